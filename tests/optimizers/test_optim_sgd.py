"""SGD and MomentumSGD: three steps against the update formulas written out by hand."""

import numpy as np
import pytest
from optim_problem import P0, Quadratic, grad_of, run_steps

import optimizers as O


def test_sgd_three_steps(quadratic):
    lr = 0.1
    got = run_steps(O.SGD(lr), quadratic)
    p = P0.copy()
    for step in range(3):
        p = p - lr * grad_of(p)                          # p <- p - lr g
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


def test_sgd_first_step_by_hand(quadratic):
    # g(P0) = [1*1 + 0.5, 3*(-2) - 1, 0.5*0.3 + 0.25] = [1.5, -7, 0.4]
    got = run_steps(O.SGD(0.1), quadratic, steps=1)
    np.testing.assert_allclose(got[0], [1.0 - 0.15, -2.0 + 0.7, 0.3 - 0.04], rtol=1e-12)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_three_steps(quadratic, nesterov):
    lr, mu = 0.1, 0.9
    got = run_steps(O.MomentumSGD(lr, momentum=mu, nesterov=nesterov), quadratic)
    p, v = P0.copy(), np.zeros(3)
    for step in range(3):
        g = grad_of(p)
        v = mu * v - lr * g                              # v <- mu v - lr g
        p = p + (mu * v - lr * g if nesterov else v)     # p <- p + v   (Nesterov: + mu v - lr g)
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


def test_momentum_differs_from_sgd_after_the_first_step(quadratic):
    momentum = run_steps(O.MomentumSGD(0.1, momentum=0.9), quadratic)
    plain = run_steps(O.SGD(0.1), Quadratic())
    np.testing.assert_allclose(momentum[0], plain[0], rtol=1e-12)   # v starts at zero
    assert not np.allclose(momentum[1], plain[1])


def test_nesterov_matches_pytorch_form(quadratic):
    # PyTorch: buf <- mu buf + g;  p <- p - lr (g + mu buf); the same path for constant lr
    lr, mu = 0.05, 0.8
    got = run_steps(O.MomentumSGD(lr, momentum=mu, nesterov=True), quadratic)
    p, buf = P0.copy(), np.zeros(3)
    for step in range(3):
        g = grad_of(p)
        buf = mu * buf + g
        p = p - lr * (g + mu * buf)
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


@pytest.mark.parametrize("bad", [dict(lr=-0.1), dict(lr="0.1"), dict(lr=float("nan")),
                                 dict(momentum=1.0), dict(momentum=-0.1)])
def test_momentum_rejects_bad_hyperparameters(bad):
    with pytest.raises((ValueError, TypeError), match="MomentumSGD"):
        O.MomentumSGD(**bad)


def test_sgd_rejects_negative_lr():
    with pytest.raises(ValueError, match=r"SGD: lr must lie in \[0.0, inf\), got -1.0"):
        O.SGD(-1)
