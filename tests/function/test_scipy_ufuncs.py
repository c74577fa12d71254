"""scipy.special's ufuncs on a Variable that record an op of `function` (function/activation.py
registers them with variable/numpy_dispatch.py): expit as F.sigmoid, log_expit as
F.log_sigmoid, ndtr as the exact GELU's normal CDF. Each against SciPy's own values, far
into its tails, and by gradcheck to third order through SciPy's call."""

import numpy as np
import pytest

import function as F
import variable as V

special = pytest.importorskip("scipy.special")

POINTS = np.array([-40.0, -8.0, -1.3, 0.0, 0.2, 0.9, 8.0, 40.0])


@pytest.mark.parametrize("name, ours", [
    ("expit", F.sigmoid),
    ("log_expit", F.log_sigmoid),
    ("ndtr", None),
])
def test_scipys_ufunc_records_gengrads_op(name, ours):
    scipys = getattr(special, name)
    x = V.Variable(POINTS)
    y = scipys(x)
    assert isinstance(y, V.Variable) and y.creator is not None
    np.testing.assert_allclose(y.data, scipys(POINTS), rtol=2e-14, atol=1e-300)
    if ours is not None:
        np.testing.assert_array_equal(y.data, ours(x).data)
    assert V.gradcheck(scipys, np.array([-1.3, 0.2, 0.9]), order=3)


def test_the_gradient_through_expit_is_the_sigmoids():
    x = V.Variable(POINTS)
    g = V.grad(V.sum(special.expit(x)), x)
    s = special.expit(POINTS)
    np.testing.assert_allclose(g.data, s * (1 - s), rtol=1e-14, atol=1e-300)
