"""The python blocks of README.md and docs/*.md run, and print what their comments say.

Every Markdown file's blocks run in order in one namespace, in a temporary working
directory (files they write land there).  A `print(...)` with a comment must print
exactly the comment's text: see tests/docs/markdown_blocks.py for the rule (`...` and
`# e.g.` included).  The first tests run the checker on small synthetic blocks, to show
that it passes what is right and fails what is not.
"""

import io
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest
from markdown_blocks import checked_prints, python_blocks, run_blocks

import variable as V

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MARKDOWN = sorted(ROOT.glob("*.md")) + sorted(DOCS.glob("**/*.md"))
IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
VALUE_COMMENT = re.compile(r"#\s*(variable\(|(True|False|None)\b)")


def name_of(path):
    return str(path.relative_to(ROOT))


# ----- the checker itself --------------------------------------------------------------
def test_python_blocks_are_extracted_in_order_and_other_languages_skipped():
    text = "intro\n```python\na = 1\n```\n```sh\nls\n```\ntext\n```python\nb = a + 1\n```\n"
    assert python_blocks(text) == ["a = 1\n", "b = a + 1\n"]


def test_a_true_comment_passes_and_a_stale_one_fails():
    good = "x = 2\nprint(x * 3)      # 6\nprint('a', 'b')   # a b\n"
    assert run_blocks([good], "good.md") == []
    stale = "x = 2\nprint(x * 3)      # 7\n"
    failures = run_blocks([stale], "stale.md")
    assert len(failures) == 1
    assert "stale.md (python block 1), line 2: print(x * 3)" in failures[0]
    assert "the comment says:\n    | 7\n  it printed:\n    | 6" in failures[0]


def test_a_remark_after_the_output_fails():
    """The comment is the output and nothing more: a trailing remark is a mismatch."""
    assert run_blocks(["print(True)  # True: checked\n"], "remark.md")
    assert run_blocks(["print(1.0000000000022888)  # 1.000000000002289\n"], "digits.md")


def test_ellipsis_matches_any_text_and_only_where_written():
    block = "print('grad: the output does not require grad, so')  # grad: the output does ...\n"
    assert run_blocks([block], "ellipsis.md") == []
    block = "print('abc' * 3)  # abc...abc\n"
    assert run_blocks([block], "middle.md") == []
    block = "print('grad: the inputs')  # grad: the output ...\n"
    assert len(run_blocks([block], "wrong-prefix.md")) == 1


def test_example_marker_is_run_but_not_compared():
    assert run_blocks(["import time\nprint(time.time())  # e.g. 1700000000.123\n"], "eg.md") == []
    failures = run_blocks(["if False:\n    print(1)  # e.g. 1\n"], "dead-eg.md")
    assert len(failures) == 1 and "printed nothing" in failures[0]


def test_output_over_several_lines_continues_in_the_same_column():
    block = (
        "import numpy as np\n"
        "print(np.eye(2))    # [[1. 0.]\n"
        "                    #  [0. 1.]]\n"
        "# a remark in another column is not part of the output\n"
        "print(1)            # 1\n"
    )
    assert run_blocks([block], "multi.md") == []
    wrong = block.replace("#  [0. 1.]]", "#  [0. 2.]]")
    assert len(run_blocks([wrong], "multi-wrong.md")) == 1
    short = block.replace("                    #  [0. 1.]]\n", "")
    assert len(run_blocks([short], "multi-short.md")) == 1


def test_every_call_is_checked_and_dead_prints_fail():
    assert run_blocks(["for i in range(3):\n    print(i % 1)  # 0\n"], "loop.md") == []
    failures = run_blocks(["for i in range(3):\n    print(i)  # 0\n"], "loop-wrong.md")
    assert len(failures) == 2                                    # 1 and 2 differ from the comment
    failures = run_blocks(["def f():\n    print(5)  # 5\n"], "never.md")
    assert len(failures) == 1 and "printed nothing" in failures[0]
    assert run_blocks(["def f():\n    print(5)  # 5\nf()\n"], "called.md") == []


def test_only_commented_prints_are_checked():
    code = "print(1)\nx = 3  # a remark\ns = '# not a comment'\nprint(s)  # # not a comment\n"
    checks = checked_prints(code)
    assert list(checks) == [4] and checks[4].expected == "# not a comment"
    assert run_blocks([code], "plain.md") == []


def test_blocks_share_one_namespace_and_errors_name_their_block():
    assert run_blocks(["x = 41\n", "print(x + 1)  # 42\n"], "shared.md") == []
    with pytest.raises(ZeroDivisionError) as info:
        run_blocks(["x = 1\n", "y = 1 / 0\n"], "broken.md")
    assert any(str(entry.path) == "broken.md (python block 2)"
               for entry in info.traceback)


def test_print_to_a_file_is_not_captured_and_trailing_spaces_do_not_count():
    assert run_blocks(["import io\nprint(2, file=io.StringIO())  # 3\n"], "file.md")   # never reached stdout
    assert run_blocks(["print('a  ')  # a\n"], "spaces.md") == []


# ----- the documentation ---------------------------------------------------------------
def test_the_documents_exist_and_have_code():
    names = {name_of(path) for path in MARKDOWN}
    assert {"README.md", "docs/custom_functions.md", "docs/higher_order.md", "docs/engine.md"} <= names
    for name in ("docs/custom_functions.md", "docs/higher_order.md", "docs/engine.md"):
        assert len(python_blocks((ROOT / name).read_text())) >= 3, name


@pytest.mark.parametrize("path", MARKDOWN, ids=name_of)
def test_python_blocks_run_and_print_what_their_comments_say(path, tmp_path, monkeypatch):
    blocks = python_blocks(path.read_text())
    if not blocks:
        pytest.skip(f"{name_of(path)} has no python blocks")
    monkeypatch.chdir(tmp_path)
    failures = run_blocks(blocks, name_of(path), {"__name__": f"docs_{path.stem}"})
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("path", MARKDOWN, ids=name_of)
def test_values_in_comments_are_stated_by_prints(path):
    """`x = f()  # variable(3.0)` cannot be checked: such a value belongs to a print."""
    offenders = []
    for i, code in enumerate(python_blocks(path.read_text()), start=1):
        checked = {line for c in checked_prints(code).values()
                   for line in range(c.first_line, c.last_line + 1 + c.expected.count("\n"))}
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if (token.type == tokenize.COMMENT and token.start[0] not in checked
                    and VALUE_COMMENT.match(token.string)):
                offenders.append(f"block {i}, line {token.start[0]}: {token.line.strip()}")
    message = f"{name_of(path)}: write these values as print(...)  # value:\n"
    assert not offenders, message + "\n".join(offenders)


@pytest.mark.parametrize("path", MARKDOWN, ids=name_of)
def test_linked_images_exist_and_are_small(path):
    for link in IMAGE_LINK.findall(path.read_text()):
        image = (path.parent / link).resolve()
        assert image.is_file(), f"{name_of(path)} links a missing image {link}"
        assert image.stat().st_size < 150_000, f"{link} is {image.stat().st_size} bytes"


def graph_sizes(order, points=5):
    """Ops in the graphs of tanh and its derivatives up to `order`, as the example counts them."""
    from examples.plotting import count_functions
    from examples.tanh_higher_order import tanh_derivatives

    return [count_functions(y) for y in tanh_derivatives(V.Variable(np.linspace(-1, 1, points)), order)]


def test_graph_sizes_quoted_in_the_docs_are_current():
    sizes = graph_sizes(10)
    text = " ".join((DOCS / "higher_order.md").read_text().split())
    quoted = re.search(r"the graphs grow quickly: ([\d, ]+) ops for orders 0 to (\d+)", text)
    assert quoted, "higher_order.md no longer quotes the graph sizes of tanh's derivatives"
    numbers = [int(n) for n in quoted.group(1).split(",")]
    assert numbers == sizes[:int(quoted.group(2)) + 1], f"the graphs now have {sizes} ops"
    engine = " ".join((DOCS / "engine.md").read_text().split())
    assert f"10th derivative of tanh has {sizes[10]:,} nodes" in engine, f"it now has {sizes[10]:,}"
