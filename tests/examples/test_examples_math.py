"""Smoke tests of the maths examples: each main() runs on small settings and prints the truth.

The printed numbers are parsed back and checked against formulas written here, not
against the example's own helpers, so a wrong derivative in an example fails its test.
Figure assertions skip when matplotlib is missing; everything else runs regardless.
"""

import re
import shutil
import sys

import numpy as np
import pytest

import variable as V
from examples import (
    custom_function,
    derivatives,
    hessian,
    optimization,
    pinn_poisson,
    plotting,
    robust_regression,
    tanh_higher_order,
    taylor_series,
)

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?inf"


def numbers(line):
    """Every number on a printed line, in order."""
    return [float(s) for s in re.findall(NUMBER, line)]


def section(out, header):
    """The lines printed after the line starting with `header`, up to the next unindented line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    body = []
    for line in lines[start + 1:]:
        if not line.startswith(" "):
            break
        body.append(line)
    return body


def line_with(out, text):
    """The first printed line containing `text`."""
    return next(line for line in out.splitlines() if text in line)


def assert_figure(path):
    """The figure exists and is a small PNG (skips when matplotlib is not installed)."""
    pytest.importorskip("matplotlib")
    assert path.exists(), path
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size < 150_000


# ----- derivatives.py ---------------------------------------------------------------
def test_derivatives_prints_cos_and_the_composite_derivative(tmp_path, capsys):
    assert derivatives.main(["--points", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out

    rows = [numbers(line) for line in section(out, "sin:")[1:]]
    assert len(rows) == 3
    for x, auto, numerical, exact, err_auto, err_num in rows:
        assert auto == pytest.approx(np.cos(x), abs=1e-12)      # printed to 12 decimals
        assert numerical == pytest.approx(np.cos(x), abs=1e-8)
        assert exact == pytest.approx(np.cos(x), abs=1e-12)
        assert err_auto < 1e-15 < err_num < 1e-8

    rows = [numbers(line) for line in section(out, "f(x) = exp")[1:]]
    assert len(rows) == 3
    for x, auto, numerical, exact, err_auto, err_num in rows:
        # d/dx exp(sin(x^2)) / (1 + x^2), by the quotient rule, written out independently
        u, du = np.exp(np.sin(x * x)), np.exp(np.sin(x * x)) * np.cos(x * x) * 2 * x
        w, dw = 1 + x * x, 2 * x
        expected = (du * w - u * dw) / w ** 2
        assert auto == pytest.approx(expected, abs=1e-12)
        assert exact == pytest.approx(expected, abs=1e-12)
        assert numerical == pytest.approx(expected, abs=1e-6)
        assert err_auto < 1e-14 < err_num < 1e-6

    best = numbers(line_with(out, "best step h"))
    assert 1e-7 <= best[1] <= 1e-3 and best[2] < 1e-8          # optimum step ~ eps^(1/3)
    assert numbers(line_with(out, "by autodiff: error"))[1] < 1e-14

    value = numbers(line_with(out, "value    ="))
    gradient = numbers(line_with(out, "gradient ="))
    assert value[0] == pytest.approx(np.sin(np.pi / 4), abs=1e-4)
    assert gradient[0] == pytest.approx(np.cos(np.pi / 4), abs=1e-4)
    assert gradient[1] == pytest.approx(np.cos(np.pi / 4), abs=1e-12)
    assert_figure(tmp_path / "derivatives.png")


def test_taylor_sin_converges_to_sin_and_its_gradient_to_cos():
    x = V.Variable(np.array([-2.0, 0.3, 1.0, 3.0]))
    y, terms = derivatives.taylor_sin(x, threshold=1e-12)
    np.testing.assert_allclose(y.data, np.sin(x.data), atol=1e-12)
    np.testing.assert_allclose(V.grad(y.sum(), x).data, np.cos(x.data), atol=1e-11)
    assert 5 < terms < 30
    rough, rough_terms = derivatives.taylor_sin(x, threshold=1e-2)
    assert rough_terms < terms and np.abs(rough.data - np.sin(x.data)).max() > 1e-10


# ----- optimization.py --------------------------------------------------------------
def test_optimization_newton_reaches_the_minima_and_beats_gradient_descent(tmp_path, capsys):
    assert optimization.main(["--gd-steps", "300", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out

    steps_1d = section(out, "Newton on f(x) = x^4")
    for line in steps_1d:
        if line.lstrip().startswith("step"):
            _, x, d1, d2, _diff = numbers(line)
            assert d1 == pytest.approx(4 * x ** 3 - 4 * x, rel=1e-6, abs=1e-12)
            assert d2 == pytest.approx(12 * x ** 2 - 4, abs=1e-6)
    assert numbers(line_with(out, "-> minimum at x"))[0] == pytest.approx(1.0, abs=1e-12)
    assert len(steps_1d) <= 10                                    # quadratic convergence

    hess = numbers(line_with(out, "Hessian of Rosenbrock"))
    x0, x1, h00, h01, h10, h11 = hess[:6]
    np.testing.assert_allclose([h00, h01, h10, h11],
                               [1200 * x0 ** 2 - 400 * x1 + 2, -400 * x0, -400 * x0, 200])

    gd_f = [numbers(line)[-1] for line in section(out, "gradient descent on Rosenbrock")]
    assert len(gd_f) == 5 and gd_f[-1] < gd_f[0] < 24.2          # f(-1.2, 1) = 24.2
    newton_rows = [numbers(line) for line in section(out, "Newton's method on Rosenbrock")]
    assert newton_rows[-1][-1] < 1e-8                            # |grad f| at the last point
    assert newton_rows[-1][1:3] == pytest.approx([1.0, 1.0], abs=1e-9)
    gd_distance = numbers(line_with(out, "gradient descent:"))[-1]
    newton_distance = numbers(line_with(out, "Newton:"))[-1]
    assert newton_distance < 1e-8 < 1e-2 < gd_distance
    assert_figure(tmp_path / "rosenbrock.png")


# ----- robust_regression.py ---------------------------------------------------------
def test_robust_regression_converges_quadratically_and_resists_the_outliers(tmp_path, capsys):
    assert robust_regression.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    w_ls, b_ls = numbers(line_with(out, "least squares:"))[:2]
    w, b, scale, nu, steps, final = numbers(line_with(out, "Student-t fit:"))
    assert abs(w - 1.5) < 0.02 and abs(b + 0.7) < 0.05           # the data's line
    assert abs(b_ls + 0.7) > 0.4                                  # least squares pulled up by the outliers
    assert final < 1e-7 and steps < 20 and 0 < scale and 0 < nu
    norms = [numbers(line)[2] for line in section(out, "Newton's method on the Student-t")
             if line.lstrip().startswith("step")]
    assert norms[-1] < 10 * norms[-2] ** 2 and norms[-2] < 10 * norms[-3] ** 2    # quadratic
    x, y = robust_regression.make_data(200, 12, 0)                # the optimum: a zero gradient,
    theta = np.array([w, b, np.log(scale), np.log(nu)])           # by central differences too
    f = robust_regression.negative_log_likelihood(x, y)
    numeric = [(f(theta + h).item() - f(theta - h).item()) / 2e-6 for h in np.eye(4) * 1e-6]
    assert np.max(np.abs(numeric)) < 1e-2                        # (theta as printed: 6 decimals)
    assert_figure(tmp_path / "robust_regression.png")


def test_rosenbrock_hessian_by_double_backprop_matches_the_closed_form():
    for point in ([-1.2, 1.0], [0.3, -0.7], [1.0, 1.0]):
        x0, x1 = point
        expected = [[1200 * x0 ** 2 - 400 * x1 + 2, -400 * x0], [-400 * x0, 200]]
        H = V.hessian(optimization.rosenbrock, np.array(point)).data
        np.testing.assert_allclose(H, expected, rtol=1e-12)


# ----- tanh_higher_order.py ---------------------------------------------------------
def test_tanh_derivatives_match_the_closed_forms_and_the_graph_is_written(tmp_path, capsys):
    assert tanh_higher_order.main(["--order", "3", "--points", "21", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = section(out, "derivatives of tanh")
    assert len(rows) == 4
    t = np.tanh(0.5)
    expected = [t, 1 - t ** 2, -2 * t * (1 - t ** 2), (1 - t ** 2) * (6 * t ** 2 - 2)]
    ops = []
    for k, (line, value) in enumerate(zip(rows, expected)):
        order, printed, closed, error, n_ops = numbers(line)
        assert order == k
        assert printed == pytest.approx(value, abs=1e-8)
        assert closed == pytest.approx(value, abs=1e-8)
        assert error < 1e-12
        ops.append(n_ops)
    assert ops == sorted(ops) and ops[-1] > ops[1]              # each order's graph is bigger
    dot = (tmp_path / "tanh_derivative_3.dot").read_text()
    assert dot.startswith("digraph") and 'label="Tanh"' in dot and "d3y/dx3" in dot
    if shutil.which("dot"):
        assert (tmp_path / "tanh_derivative_3.png").read_bytes()[:4] == b"\x89PNG"
    assert_figure(tmp_path / "tanh_derivatives.png")


def test_tanh_example_without_graphviz_writes_dot_and_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # `import matplotlib` fails
    tanh_higher_order.main(["--order", "1", "--points", "5", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "Graphviz 'dot' not found" in out
    assert "matplotlib is not installed" in out
    assert (tmp_path / "tanh_derivative_3.dot").exists()
    assert not list(tmp_path.glob("*.png"))


def test_tanh_derivative_polynomials():
    p = tanh_higher_order.tanh_derivative_polynomials(3)
    np.testing.assert_allclose(p[2].coef, [0, -2, 0, 2])
    np.testing.assert_allclose(p[3].coef, [-2, 0, 8, 0, -6])


# ----- custom_function.py -----------------------------------------------------------
def test_custom_function_example_checks_the_op_and_fits_the_model(tmp_path, capsys):
    argv = ["--samples", "40", "--steps", "300", "--out", str(tmp_path)]
    assert custom_function.main(argv) == 0
    out = capsys.readouterr().out
    table = {numbers(line)[0]: line for line in section(out, "softplus(x): literal")}
    assert "literal = inf" in table[1000.0]
    assert numbers(table[-40.0])[1:] == pytest.approx([0.0, 4.248e-18, 4.248e-18], rel=1e-3)
    assert numbers(table[1000.0])[2:] == [1000.0, 1000.0]
    d = numbers(line_with(out, "derivatives at x = 0"))
    assert d[1] == pytest.approx(0.5) and d[4] == pytest.approx(0.25)
    assert "gradcheck(softplus, order=3) passes" in out
    assert "gradcheck(broken_softplus, order=1) passes" in out
    assert "gradcheck(broken_softplus, order=2) is refused: SoftplusWithConstantSlope.backward" in out
    losses = [numbers(line)[1] for line in section(out, "fitting y = a softplus")]
    assert losses[-1] < 0.05 * losses[0] and losses[-1] < 0.05    # noise variance is 0.01
    assert_figure(tmp_path / "softplus_fit.png")


def test_custom_softplus_forward_and_gradients():
    x = np.array([[-800.0, -40.0, -1.5], [0.0, 2.0, 800.0]])
    np.testing.assert_allclose(custom_function.softplus(x).data, np.logaddexp(0, x), rtol=1e-15)
    xv = V.Variable(x[:, 1:])
    sig = 1 / (1 + np.exp(-xv.data))
    np.testing.assert_allclose(V.grad(custom_function.softplus(xv).sum(), xv).data, sig)
    V.gradcheck(custom_function.softplus, np.array([[-3.0, 0.2], [1.0, 4.0]]), order=3)
    V.gradcheck(lambda a, b: custom_function.softplus(a * b),
                np.array([0.5, -1.0, 2.0]), np.array([[1.5], [-0.5]]), order=2)
    x32 = V.Variable(np.array([-1.0, 0.5], dtype=np.float32))
    y32 = custom_function.softplus(x32)
    assert y32.dtype == np.float32 and V.grad(y32.sum(), x32).dtype == np.float32
    with pytest.raises(TypeError, match="softplus: x must be floating point"):
        custom_function.softplus(np.array([1, 2]))
    with pytest.raises(TypeError, match=r"SoftplusWithConstantSlope\.backward computes np\.negative"):
        V.gradcheck(custom_function.broken_softplus, np.array([-1.0, 0.5]), order=2)


# ----- hessian.py -------------------------------------------------------------------
def test_hessian_example_reports_tiny_errors(tmp_path, capsys):
    argv = ["--dim", "3", "--rows", "5", "--big-dim", "12", "--out", str(tmp_path)]
    assert hessian.main(argv) == 0
    out = capsys.readouterr().out
    assert numbers(line_with(out, "Jacobian of tanh"))[-1] < 1e-14
    grad_error, n1, n2, hess_error = numbers(line_with(out, "f(x) = logsumexp"))
    assert (n1, n2) == (3, 3) and grad_error < 1e-14 and hess_error < 1e-14
    symmetric = numbers(line_with(out, "Hessian symmetric"))
    assert symmetric[0] < 1e-14 and min(symmetric[1:4]) > 0    # 3 positive eigenvalues
    assert numbers(line_with(out, "jacobian of the gradient"))[-1] < 1e-14
    assert max(numbers(line_with(out, "Hessian-vector product"))) < 1e-14
    assert numbers(line_with(out, "n = 12"))[-1] < 1e-12
    assert_figure(tmp_path / "hessian.png")


def test_logsumexp_hessian_closed_form_against_differences_of_the_gradient(rng):
    A = rng.standard_normal((4, 3))
    x = rng.standard_normal(3)

    def gradient(z):
        p = np.exp(A @ z - (A @ z).max())
        return A.T @ (p / p.sum())

    eps = 1e-6
    numerical = np.stack([(gradient(x + eps * e) - gradient(x - eps * e)) / (2 * eps)
                          for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(hessian.closed_form_hessian(A, x), numerical, atol=1e-8)


# ----- plotting.py ------------------------------------------------------------------
def test_plotting_helpers(tmp_path, capsys, monkeypatch):
    x = V.Variable(np.array(0.3))
    y = V.sin(x) * x + x
    assert plotting.count_functions(y) == 3
    assert plotting.count_functions(x) == 0
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert plotting.pyplot() is None
    assert capsys.readouterr().out.count("\n") == 1              # a one-line notice


# ----- taylor_series.py ---------------------------------------------------------------
def test_taylor_series_derivatives_polynomials_and_timings(tmp_path, capsys):
    assert taylor_series.main(["--order", "25", "--nested-up-to", "4", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    t = np.tanh(0.5)
    printed = {int(numbers(line)[0]): numbers(line)[1] for line in section(out, "derivatives of tanh")}
    assert printed[1] == pytest.approx(1 - t ** 2, rel=1e-9)
    assert printed[2] == pytest.approx(-2 * t * (1 - t ** 2), rel=1e-9)
    assert set(printed) == {0, 1, 2, 3, 5, 10, 25}
    assert numbers(line_with(out, "against nested reverse mode"))[-1] < 1e-12
    errors = [numbers(line)[-1] for line in out.splitlines() if line.lstrip().startswith("T_")]
    assert errors == sorted(errors, reverse=True) and errors[-1] < 1e-2      # T_n closes in on tanh
    radius = numbers(line_with(out, "radius of convergence"))[-1]
    assert radius == pytest.approx(np.hypot(0.5, np.pi / 2), abs=1e-4)
    assert_figure(tmp_path / "taylor_polynomials.png")
    assert_figure(tmp_path / "time_per_order.png")


def test_taylor_polynomial_of_sin_is_its_series():
    derivatives = taylor_series.derivatives_at(V.sin, 0.0, 7)
    np.testing.assert_allclose(derivatives, [0, 1, 0, -1, 0, 1, 0, -1], atol=1e-15)
    x = np.array([0.3])
    np.testing.assert_allclose(taylor_series.taylor_polynomial(derivatives, 0.0, x, 7),
                               x - x ** 3 / 6 + x ** 5 / 120 - x ** 7 / 5040, rtol=1e-15)


# ----- pinn_poisson.py -------------------------------------------------------------------
def test_pinn_problem_is_consistent_and_training_lowers_the_error(tmp_path, capsys):
    # the source is -Laplacian of the exact solution (checked with V.laplacian itself)
    rng = np.random.default_rng(0)
    points = rng.uniform(0, 1, (20, 2))
    u = lambda p: V.sin(np.pi * p[:, 0]) * V.sin(np.pi * p[:, 1])   # noqa: E731
    np.testing.assert_allclose(-V.laplacian(u, points).data, pinn_poisson.source(points), rtol=1e-12)
    edge = pinn_poisson.boundary_points(50, rng)
    assert np.all(np.any((edge == 0) | (edge == 1), axis=1))           # every point on a side
    model, losses = pinn_poisson.train(steps=400, points=64, log_every=0)
    assert np.mean(losses[-20:]) < 0.05 * np.mean(losses[:5])
    _, _, error = pinn_poisson.grid_error(model)
    assert error.max() < 0.5                                             # u peaks at 1
    refined = pinn_poisson.refine(model, updates=4, points=64, log_every=0)
    assert refined[-1] < 0.2 * refined[0]                               # L-BFGS goes on lowering it
    _, _, finer = pinn_poisson.grid_error(model)
    assert finer.max() < error.max()
    assert pinn_poisson.main(["--steps", "3", "--points", "8", "--lbfgs", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "error against the exact solution" in out and "L-BFGS update   0" in out


# ----- numpy_sensitivity.py ----------------------------------------------------------
def test_numpy_sensitivity_influences_are_numpys_central_differences(tmp_path, capsys):
    from examples import numpy_sensitivity
    assert numpy_sensitivity.main(["--samples", "20", "--top", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    t, y = numpy_sensitivity.make_data(20, 0.05, 0)

    def peak(values):                     # the cubic fit's maximum, written out here
        c = np.polyfit(t, values, 3)
        d = np.roots(np.polyder(c))
        return d[np.argmin(np.polyval(np.polyder(c, 2), d))]
    assert numbers(line_with(out, "the cubic fit peaks at"))[-2] == pytest.approx(peak(y), abs=1e-6)
    rows = section(out, "most influential samples")
    assert len(rows) == 3
    for row in rows:
        i, _, grad, _ = numbers(row)
        up, down = y.copy(), y.copy()
        up[int(i)] += 1e-6
        down[int(i)] -= 1e-6
        assert grad == pytest.approx((peak(up) - peak(down)) / 2e-6, rel=1e-4)
    total = re.search(r"sum of the influences (\S+)", out).group(1)  # ("influences" holds "inf")
    assert abs(float(total)) < 1e-12
    assert_figure(tmp_path / "numpy_sensitivity.png")
