"""Every ```python block in docs/*.md runs: each file's blocks in order, in one namespace.

The blocks run in a temporary working directory, so files they write (graph pictures)
land there.  Images the docs link must exist in the repository and stay small.
"""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
DOC_FILES = sorted(DOCS.glob("*.md"))


def python_blocks(text):
    """The code of every ```python fenced block of a Markdown text, in order."""
    return PYTHON_BLOCK.findall(text)


def test_python_blocks_are_extracted_in_order_and_other_languages_skipped():
    text = "intro\n```python\na = 1\n```\n```sh\nls\n```\ntext\n```python\nb = a + 1\n```\n"
    assert python_blocks(text) == ["a = 1\n", "b = a + 1\n"]


def test_the_tutorials_exist_and_have_code():
    names = {path.name for path in DOC_FILES}
    assert {"custom_functions.md", "higher_order.md", "engine.md"} <= names
    for name in ("custom_functions.md", "higher_order.md", "engine.md"):
        assert len(python_blocks((DOCS / name).read_text())) >= 3, name


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda path: path.name)
def test_doc_snippets_run(path, tmp_path, monkeypatch):
    blocks = python_blocks(path.read_text())
    if not blocks:
        pytest.skip(f"{path.name} has no python blocks")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{path.stem}"}
    for i, block in enumerate(blocks, start=1):
        exec(compile(block, f"{path.name} (python block {i})", "exec"), namespace)


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda path: path.name)
def test_linked_images_exist_and_are_small(path):
    for link in IMAGE_LINK.findall(path.read_text()):
        image = (path.parent / link).resolve()
        assert image.is_file(), f"{path.name} links a missing image {link}"
        assert image.stat().st_size < 150_000, f"{link} is {image.stat().st_size} bytes"
