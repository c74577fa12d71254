"""The adapter that runs HIPS autograd's own tests on gengrad (run_hips_autograd.py).

autograd's tests are not part of gengrad, so the suite checks the adapter itself: its
check_grads passes right derivatives and fails wrong ones (in both modes, at second order),
its operators answer as autograd's do, and the runner sorts a test file's outcomes.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import autograd_on_gengrad as ag
import numpy as np
import pytest

import variable as V

HERE = Path(__file__).resolve().parent


class Doubled(V.Forwarder):
    """sin, with a derivative twice too large: a wrong one for check_grads to catch."""

    def forward(self, x):
        return np.sin(x)

    def backward(self, gy):
        return 2 * V.cos(self.inputs[0]) * gy

    def taylor(self, x):                 # (first order only, as wrong as backward)
        return [np.sin(x[0]), 2 * np.cos(x[0]) * x[1]]


def test_check_grads_passes_right_derivatives_to_second_order():
    x = np.random.default_rng(0).standard_normal((3, 2))
    ag.check_grads(np.tanh)(x)
    ag.check_grads(lambda a, b: np.sum(np.sin(a) * b, axis=0), (0, 1))(x, x + 1.0)
    ag.check_grads(np.linalg.det, modes=["rev"], order=3)(np.eye(2) + 0.1 * x[:2])


@pytest.mark.parametrize("modes", [["rev"], ["fwd"]])
def test_check_grads_fails_a_wrong_derivative(modes):
    with pytest.raises(AssertionError, match=r"check|mismatch"):
        ag.check_grads(lambda x: V.Function(Doubled())(x), modes=modes, order=1)(np.array([0.3, 1.2]))


def test_check_grads_fails_a_wrong_second_derivative():
    class WrongSecond(V.Forwarder):   # x^3, its backward detached from x: no second derivative
        def forward(self, x):
            return x ** 3

        def backward(self, gy):
            return 3 * self.inputs[0].detach() ** 2 * gy

    x = np.array([0.7, -1.1])
    ag.check_grads(lambda t: V.Function(WrongSecond())(t), modes=["rev"], order=1)(x)    # first order: right
    with pytest.raises(AssertionError, match="check"):
        ag.check_grads(lambda t: V.Function(WrongSecond())(t), modes=["rev"], order=2)(x)


def test_operators_answer_as_autograds():
    assert ag.grad(lambda y: ag.grad(lambda x: x * y)(y))(3.0) == pytest.approx(1.0)   # no confusion
    assert isinstance(ag.grad(np.sin)(0.5), float)
    assert ag.grad(ag.grad(np.sin))(0.5) == pytest.approx(-np.sin(0.5))
    h = np.array([[2.0, 1.0], [0.0, 3.0]])
    np.testing.assert_allclose(ag.hessian(lambda x: x @ h @ x)(np.ones(2)), h + h.T)
    j = ag.jacobian(lambda x: np.outer(x, x))(np.array([1.0, 2.0]))
    assert j.shape == (2, 2, 2) and j[0, 1, 1] == 1.0
    value, derivative = ag.make_jvp(np.exp)(np.array([0.0, 1.0]))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(derivative, [1.0, 2 * np.e])
    vjp, ans = ag.make_vjp(lambda x: x ** 2)(np.array([3.0]))
    np.testing.assert_allclose(vjp(np.array([1.0])), [6.0])
    with pytest.warns(UserWarning, match="independent of input"):
        np.testing.assert_allclose(ag.grad(lambda x: 1.0)(np.ones(2)), 0.0)     # a constant: zeros
    with pytest.raises(TypeError, match="bool"):
        ag.grad(lambda x: np.allclose(x, x))(np.ones(2))


def test_primitives_with_their_vjps_are_forwarders():
    @ag.primitive
    def cube(x):
        return x ** 3
    ag.defvjp(cube, lambda ans, x: lambda g: 3 * x ** 2 * g)
    ag.check_grads(cube, modes=["rev"])(np.array([0.5, -2.0]))      # its vjp written on NumPy: twice
    np.testing.assert_allclose(ag.grad(ag.grad(cube))(2.0), 12.0)


def test_the_runner_sorts_a_test_files_outcomes(tmp_path):
    (tmp_path / "test_sample.py").write_text(textwrap.dedent("""
        import autograd.numpy as np
        from autograd import grad
        from autograd.extend import primitive, defvjp
        from autograd.test_util import check_grads

        def test_right():
            check_grads(lambda x: np.sum(np.tanh(x) ** 2))(np.array([0.1, 0.7]))

        def test_wrong():
            @primitive
            def f(x):
                return np.sin(x)
            defvjp(f, lambda ans, x: lambda g: 2 * np.cos(x) * g)
            check_grads(f, modes=["rev"])(np.array([0.4]))

        def test_no_op():
            check_grads(lambda x: np.sort_complex(x))(np.array([0.2, 0.1]))

        def test_built_from_a_list():
            grad(lambda x: np.sum(np.array([x, x ** 2])))(0.5)
    """))
    run = subprocess.run([sys.executable, str(HERE / "run_hips_autograd.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    line = next(text for text in run.stdout.splitlines() if text.startswith("test_sample.py"))
    passed, wrong, error, no_op = map(int, line.split()[1:5])
    assert (passed, wrong, error, no_op) == (1, 1, 0, 2), run.stdout
    assert "wrong: " in run.stdout and "test_wrong" in run.stdout
