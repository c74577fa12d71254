"""Hypothesis's `data.draw` inside one composite strategy, for the reliability tests' drawers.

A sibling module, as rel_numpy_refs.py: the test modules of tests/reliability import it by name.
"""


class Draws:
    """What a drawer takes as `data` (it calls data.draw(strategy), the chains with a `label`),
    answered by a composite strategy's `draw`: each of st.data()'s own draws costs about 0.12 ms
    of hypothesis's bookkeeping, one inside a composite about 0.03 ms, and an example of the
    property or chain tests draws dozens.  The label, which st.data() prints with a failing
    draw, is dropped: the composite's failure prints the whole example instead."""

    __slots__ = ("_draw",)

    def __init__(self, draw):
        self._draw = draw

    def draw(self, strategy, label=None):
        return self._draw(strategy)
