"""Running Graphviz's `dot`, the one program the pictures may use (and never require)."""

import re
import shutil
import subprocess

TIMEOUT = 60
"""Seconds one `dot` run may take before it is given up."""


def have_dot() -> bool:
    """Whether Graphviz's `dot` is on PATH."""
    return shutil.which("dot") is not None


def render(source: str, fmt: str = "svg") -> bytes:
    """The DOT text `source` laid out by `dot` in the format `fmt` ("svg", "png", ...).

    Raises
    ------
    RuntimeError
        If `dot` is not on PATH, fails, or runs longer than TIMEOUT seconds.
    """
    if not have_dot():
        raise RuntimeError("render: Graphviz's `dot` is not on PATH; install Graphviz (apt-get install "
                           "graphviz, brew install graphviz or conda install graphviz)")
    try:
        done = subprocess.run(["dot", f"-T{fmt}"], input=source.encode(), capture_output=True,
                              check=True, timeout=TIMEOUT)
    except subprocess.CalledProcessError as error:
        raise RuntimeError(f"render: dot failed: {error.stderr.decode(errors='replace').strip()}") from None
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"render: dot took more than {TIMEOUT} s; draw a smaller graph") from None
    return done.stdout


def inline_svg(svg: bytes | str) -> str:
    """An SVG document from `dot` as an element to put inside HTML: no XML prolog, no
    DOCTYPE, no comments."""
    text = svg.decode() if isinstance(svg, bytes) else svg
    text = re.sub(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", "", text, flags=re.S)
    return text.strip()


def quote(text: str) -> str:
    """`text` as a DOT string literal (backslashes and quotes escaped, newlines as \\n)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
