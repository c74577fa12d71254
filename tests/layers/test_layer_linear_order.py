"""Linear(out_size, in_size): a width mismatch names the argument order (PyTorch's is the reverse)."""

import numpy as np
import pytest

import layers as L


def test_pytorch_order_is_explained_with_the_fix():
    layer = L.Linear(3, 5)                           # meant as nn.Linear(3, 5): 3 in, 5 out
    with pytest.raises(ValueError) as info:
        layer(np.ones((4, 3)))
    message = str(info.value)
    assert "built for in_size=5" in message
    assert "Linear(3, 5) means out_size=3, in_size=5" in message
    assert "gengrad's order is Linear(out_size, in_size=None)" in message
    assert "for PyTorch's nn.Linear(3, 5) write L.Linear(5, in_size=3) or just L.Linear(5)" in message


def test_other_widths_still_name_the_order():
    with pytest.raises(ValueError, match=r"Linear\(3, 5\) means out_size=3, in_size=5 .*"
                                         r"for PyTorch's nn.Linear\(5, 3\) write L.Linear\(3, in_size=5\)"):
        L.Linear(3, in_size=5)(np.ones((2, 7)))


def test_an_inferred_in_size_says_where_it_came_from(on_device):
    layer = L.Linear(3)
    layer(on_device(np.ones((2, 4))))
    with pytest.raises(ValueError, match=r"built for in_size=4 \(read off its first input") as info:
        layer(on_device(np.ones((2, 5))))
    assert "means out_size" not in str(info.value)
