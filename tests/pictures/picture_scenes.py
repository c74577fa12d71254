"""Small graphs and recordings shared by the tests of the pictures package."""

import shutil
from html.parser import HTMLParser

import numpy as np
import pytest

import variable as V

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")


def without_dot(monkeypatch):
    """Hide Graphviz's `dot` (and every other program) from shutil.which, as on a bare machine."""
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)


def diamond():
    """y = sin(exp(x^2)) + x^2 with every Variable named: a = x^2 is used twice."""
    x = V.Variable(np.array(0.5), name="x")
    a = V.square(x)
    a.name = "a"
    b = V.exp(a)
    b.name = "b"
    c = V.sin(b)
    c.name = "c"
    y = c + a
    y.name = "y"
    return x, y


def diamond_recording():
    """The recording of y.backward() for the diamond: 4 steps, 5 frames."""
    x, y = diamond()
    with V.record_backward() as steps:
        y.backward()
    return steps


def second_derivative_recording():
    """dy/dx of y = x sin(x) with create_graph=True, then backward through it: two passes."""
    x = V.Variable(np.array(1.0), name="x")
    y = x * V.sin(x)
    y.name = "y"
    with V.record_backward() as steps:
        gx = V.grad(y, x, create_graph=True)
        gx.name = "dy/dx"
        gx.backward()
    return steps


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Outline(HTMLParser):
    """An HTML document parsed with the standard library: every element with its attributes,
    its parent chain and its text, and a check that tags are well nested.

    `elements` lists (tag, attributes, ancestors) in document order; `text_of(i)` is the
    text inside element i; `errors` lists end tags that close nothing or the wrong element,
    and elements never closed.
    """

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements, self.errors, self._open, self._text = [], [], [], []
        self.feed(text)
        self.close()
        self.errors += [f"<{self.elements[i][0]}> never closed" for i in self._open]

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), [self.elements[i][0] for i in self._open]))
        self._text.append([])
        if tag not in VOID:
            self._open.append(len(self.elements) - 1)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), [self.elements[i][0] for i in self._open]))
        self._text.append([])

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self._open or self.elements[self._open[-1]][0] != tag:
            closes = self.elements[self._open[-1]][0] if self._open else "nothing"
            self.errors.append(f"</{tag}> closes {closes}")
            return
        self._open.pop()

    def handle_data(self, data):
        for i in self._open:
            self._text[i].append(data)

    def find(self, tag=None, **wanted):
        """Indices of the elements with this tag (any when None) whose attributes include `wanted`
        (class_ matches one of the classes)."""
        found = []
        for i, (name, attrs, _) in enumerate(self.elements):
            if tag is not None and name != tag:
                continue
            classes = attrs.get("class", "") or ""
            if "class_" in wanted and wanted["class_"] not in classes.split():
                continue
            if all(attrs.get(k) == v for k, v in wanted.items() if k != "class_"):
                found.append(i)
        return found

    def text_of(self, i):
        return "".join(self._text[i])

    def inside(self, i):
        """Indices of the elements inside element i (until it closes)."""
        depth = len(self.elements[i][2])
        inner = []
        for j in range(i + 1, len(self.elements)):
            if len(self.elements[j][2]) <= depth:
                break
            inner.append(j)
        return inner
