"""Run the ```python blocks of a Markdown file and check what their prints print.

The rule the docs follow, and this module checks: in a python block, a `print(...)`
statement with a comment on its line,

    print(x.grad)                  # variable(44.0)

promises that the print writes exactly the comment's text (after `# `).  So the comment
holds the output and nothing else; a remark about it goes on another line or into the
prose.  Three conveniences:

- Output over several lines continues on comment-only lines directly below, with their
  `#` in the same column:

      print(H)                     # variable([[0.03 1.  ]
                                   #           [1.   0.12]])

- `...` stands for any text (as doctest's ELLIPSIS): `# grad: the outputs do not ...`.
- `# e.g. <text>` marks an output that differs from run to run (a time, an address):
  the print must still run, but its text is not compared.

Trailing spaces are ignored on every line (comments cannot keep them).  A commented
print that never runs, or runs several times with different output, fails too.  Every
file's blocks run in order in one namespace, like one Python session.
"""

import ast
import builtins
import io
import linecache
import re
import sys
import tokenize
from dataclasses import dataclass, field

PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
EXAMPLE_MARKER = "e.g. "


def python_blocks(text):
    """The code of every ```python fenced block of a Markdown text, in order."""
    return PYTHON_BLOCK.findall(text)


@dataclass
class CheckedPrint:
    """A print statement whose comment states its output."""

    first_line: int                      # line numbers within the block, 1-based
    last_line: int
    expected: str                        # the comment's text, continuation lines joined by \n
    example_only: bool = False           # `# e.g. ...`: run, not compared
    outputs: list = field(default_factory=list)

    def matches(self, output):
        """Whether `output` is what the comment says (with `...` matching anything)."""
        expected, output = _rstrip_lines(self.expected), _rstrip_lines(output)
        if "..." not in expected:
            return expected == output
        pattern = ".*".join(re.escape(part) for part in expected.split("..."))
        return re.fullmatch(pattern, output, flags=re.S) is not None


def _rstrip_lines(text):
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _is_print(node):
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == "print")


def checked_prints(code):
    """The commented print statements of a block of code, by their first line."""
    comments, code_lines = {}, set()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = (token.start[1], token.string)
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                tokenize.ENDMARKER):
            code_lines.update(range(token.start[0], token.end[0] + 1))
    found = {}
    for node in ast.walk(ast.parse(code)):
        if not _is_print(node) or node.end_lineno not in comments:
            continue
        column, comment = comments[node.end_lineno]
        lines = [_comment_text(comment)]
        row = node.end_lineno + 1
        while row in comments and row not in code_lines and comments[row][0] == column:
            lines.append(_comment_text(comments[row][1]))
            row += 1
        expected = "\n".join(lines)
        example_only = expected.startswith(EXAMPLE_MARKER)
        found[node.lineno] = CheckedPrint(node.lineno, node.end_lineno, expected, example_only)
    return found


def _comment_text(comment):
    """A comment without its `#` and the one space after it."""
    text = comment[1:]
    return text[1:] if text.startswith(" ") else text


def run_blocks(blocks, filename, namespace=None):
    """Run `blocks` in order in one namespace; return every failed print promise as text.

    Each block is compiled as `<filename> (python block <i>)`, its text put where Python
    finds a file's source (linecache), so a traceback names and shows it and gengrad reads its
    calls as it reads a script's (np.array([x, y]) refused).
    """
    namespace = {} if namespace is None else namespace
    failures = []
    for i, code in enumerate(blocks, start=1):
        name = f"{filename} (python block {i})"
        checks = checked_prints(code)
        linecache.cache[name] = (len(code), None, code.splitlines(keepends=True), name)
        namespace["print"] = _recording_print(name, checks)
        try:
            exec(compile(code, name, "exec"), namespace)
        finally:
            del namespace["print"]
        for check in checks.values():
            failures.extend(_failures(name, code, check))
    return failures


def _recording_print(name, checks):
    """A print that also keeps what each checked print statement of block `name` wrote."""
    def record(*args, **kwargs):
        stream = io.StringIO()
        builtins.print(*args, **{**kwargs, "file": stream})
        text = stream.getvalue()
        if kwargs.get("file") is not None:
            kwargs["file"].write(text)
            return
        sys.stdout.write(text)
        frame = sys._getframe(1)
        if frame.f_code.co_filename == name:
            for check in checks.values():
                if check.first_line <= frame.f_lineno <= check.last_line:
                    end = kwargs.get("end", "\n")
                    check.outputs.append(text[:len(text) - len(end)] if end and text.endswith(end) else text)
    return record


def _failures(name, code, check):
    source = code.splitlines()[check.first_line - 1].strip()
    where = f"{name}, line {check.first_line}: {source}"
    if not check.outputs:
        return [f"{where}\n  printed nothing (it never ran, or wrote to a file): its comment is unchecked"]
    if check.example_only:
        return []
    return [
        f"{where}\n  the comment says:\n{_indent(check.expected)}\n  it printed:\n{_indent(output)}"
        for output in dict.fromkeys(check.outputs) if not check.matches(output)
    ]


def _indent(text):
    return "\n".join("    | " + line for line in text.split("\n"))
