"""AdaGrad, RMSprop, AdaDelta, Adam, AdamW, Adamax, RAdam, NAdam: steps against the formulas by hand."""

import numpy as np
import pytest
from optim_problem import P0, Quadratic, grad_of, run_steps

import layers as L
import optimizers as O
import variable as V


def test_adagrad_three_steps(quadratic):
    lr, eps = 0.1, 1e-8
    got = run_steps(O.AdaGrad(lr, eps=eps), quadratic)
    p, h = P0.copy(), np.zeros(3)
    for step in range(3):
        g = grad_of(p)
        h = h + g * g                                    # h <- h + g^2
        p = p - lr * g / (np.sqrt(h) + eps)              # p <- p - lr g / (sqrt h + eps)
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


def test_adagrad_first_step_is_lr_times_sign(quadratic):
    # h = g^2 after one step, so the step is lr g / |g| = lr sign(g)
    got = run_steps(O.AdaGrad(0.1), quadratic, steps=1)
    np.testing.assert_allclose(got[0], P0 - 0.1 * np.sign(grad_of(P0)), rtol=1e-7)


def test_rmsprop_three_steps(quadratic):
    lr, alpha, eps = 0.01, 0.9, 1e-8
    got = run_steps(O.RMSprop(lr, alpha=alpha, eps=eps), quadratic)
    p, h = P0.copy(), np.zeros(3)
    for step in range(3):
        g = grad_of(p)
        h = alpha * h + (1 - alpha) * g * g              # running mean of g^2
        p = p - lr * g / (np.sqrt(h) + eps)
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


@pytest.mark.parametrize("momentum, centered", [(0.9, False), (0.0, True), (0.5, True)])
def test_rmsprop_with_momentum_or_centered_three_steps(momentum, centered, quadratic):
    lr, alpha, eps = 0.01, 0.9, 1e-8
    got = run_steps(O.RMSprop(lr, alpha=alpha, eps=eps, momentum=momentum, centered=centered), quadratic)
    p, h, a, b = P0.copy(), np.zeros(3), np.zeros(3), np.zeros(3)
    for step in range(3):
        g = grad_of(p)
        h = alpha * h + (1 - alpha) * g * g
        a = alpha * a + (1 - alpha) * g                  # running mean of g (used when centered)
        scaled = g / (np.sqrt(h - a * a if centered else h) + eps)
        b = momentum * b + scaled                        # the velocity (the step itself without momentum)
        p = p - lr * b
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


def test_rmsprop_keeps_and_shows_only_what_is_on():
    plain = O.RMSprop()
    assert plain.state_kinds == {"h": "array"} and "momentum" not in plain.hyperparameters()
    both = O.RMSprop(momentum=0.9, centered=True)
    assert both.state_kinds == {"h": "array", "b": "array", "a": "array"}
    assert both.hyperparameters()["momentum"] == 0.9 and both.hyperparameters()["centered"] is True
    assert repr(both) == "RMSprop(lr=0.01, alpha=0.99, eps=1e-08, momentum=0.9, centered=True)"
    with pytest.raises(ValueError, match=r"RMSprop: momentum must lie in \[0.0, 1.0\), got 1.0"):
        O.RMSprop(momentum=1.0)
    with pytest.raises(TypeError, match=r"RMSprop: centered must be True or False, got 'yes'"):
        O.RMSprop(centered="yes")


def test_adadelta_three_steps(quadratic):
    rho, eps, lr = 0.9, 1e-6, 1.0
    got = run_steps(O.AdaDelta(lr=lr, rho=rho, eps=eps), quadratic)
    p, msg, msdx = P0.copy(), np.zeros(3), np.zeros(3)
    for step in range(3):
        g = grad_of(p)
        msg = rho * msg + (1 - rho) * g * g
        dx = np.sqrt(msdx + eps) / np.sqrt(msg + eps) * g     # RMS[dx]_{t-1} / RMS[g]_t * g
        msdx = rho * msdx + (1 - rho) * dx * dx
        p = p - lr * dx
        np.testing.assert_allclose(got[step], p, rtol=1e-12)


def _adam_by_hand(lr, b1, b2, eps, weight_decay=0.0, steps=3, amsgrad=False):
    p, m, v, v_max = P0.copy(), np.zeros(3), np.zeros(3), np.zeros(3)
    path = []
    for t in range(1, steps + 1):
        g = grad_of(p)
        p = p - lr * weight_decay * p                    # AdamW: decay p, not the gradient
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        v_max = np.maximum(v_max, v)                     # AMSGrad: the largest v so far
        m_hat = m / (1 - b1 ** t)                        # bias corrections
        v_hat = (v_max if amsgrad else v) / (1 - b2 ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
        path.append(p)
    return path


def test_adam_three_steps(quadratic):
    got = run_steps(O.Adam(lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8), quadratic)
    for step, expected in enumerate(_adam_by_hand(0.1, 0.9, 0.999, 1e-8)):
        np.testing.assert_allclose(got[step], expected, rtol=1e-12)


def test_adam_bias_correction_makes_the_first_step_lr_sized(quadratic):
    # m_hat = g and v_hat = g^2 at t = 1, so p moves by lr * sign(g) exactly (up to eps);
    # without the correction the step would be lr * 0.1 / sqrt(0.001) = 3.16 lr
    got = run_steps(O.Adam(lr=0.01), quadratic, steps=1)
    np.testing.assert_allclose(got[0], P0 - 0.01 * np.sign(grad_of(P0)), rtol=1e-9)


@pytest.mark.parametrize("make, decay", [
    (lambda: O.Adam(lr=0.3, beta2=0.5, amsgrad=True), 0.0),
    (lambda: O.AdamW(lr=0.3, beta2=0.5, weight_decay=0.5, amsgrad=True), 0.5)])
def test_amsgrad_divides_by_the_largest_second_moment(make, decay, quadratic):
    # beta2 = 0.5 forgets fast, so v falls below its maximum as the gradient shrinks
    got = run_steps(make(), quadratic, steps=12)
    expected = _adam_by_hand(0.3, 0.9, 0.5, 1e-8, weight_decay=decay, steps=12, amsgrad=True)
    plain = _adam_by_hand(0.3, 0.9, 0.5, 1e-8, weight_decay=decay, steps=12)
    for step in range(12):
        np.testing.assert_allclose(got[step], expected[step], rtol=1e-12)
    assert not np.allclose(expected[-1], plain[-1])
    assert repr(make()).endswith("amsgrad=True)") and "amsgrad" not in repr(O.Adam())


def test_amsgrad_state_is_saved_and_a_plain_adam_refuses_it(quadratic):
    opt = O.Adam(lr=0.1, amsgrad=True).setup(quadratic)
    quadratic().backward()
    opt.update()
    saved = opt.state_dict()
    assert saved["hyperparameters/amsgrad"] and "state/p/v_max" in saved
    plain = O.Adam(lr=0.1).setup(quadratic)
    with pytest.raises(ValueError, match=r"the Adam in the file has hyperparameters \['amsgrad', 'beta1'"):
        plain.load_state_dict(saved)
    again = O.Adam(lr=0.1, amsgrad=True).setup(quadratic)
    again.load_state_dict(saved)
    np.testing.assert_array_equal(again.state_of(quadratic.p)["v_max"], opt.state_of(quadratic.p)["v_max"])
    assert "hyperparameters/amsgrad" not in plain.state_dict()          # (checkpoints of before load)


def test_amsgrad_is_a_bool_and_adams_own():
    with pytest.raises(TypeError, match=r"Adam: amsgrad must be True or False, got 'yes'"):
        O.Adam(amsgrad="yes")
    with pytest.raises(TypeError, match=r"amsgrad"):
        O.RAdam(amsgrad=True)


def test_adam_default_hyperparameters():
    opt = O.Adam()
    assert (opt.lr, opt.beta1, opt.beta2, opt.eps) == (0.001, 0.9, 0.999, 1e-8)
    assert O.AdamW().weight_decay == 0.01


def test_adamw_three_steps(quadratic):
    got = run_steps(O.AdamW(lr=0.1, weight_decay=0.5), quadratic)
    for step, expected in enumerate(_adam_by_hand(0.1, 0.9, 0.999, 1e-8, weight_decay=0.5)):
        np.testing.assert_allclose(got[step], expected, rtol=1e-12)


def test_adamw_decay_is_decoupled_from_the_moments(quadratic, on_device):
    # with g = 0 Adam does nothing, while AdamW still shrinks p by (1 - lr wd) per step
    opt = O.AdamW(lr=0.1, weight_decay=0.5).setup(quadratic)
    quadratic.p.grad = None
    quadratic().backward()
    quadratic.p.grad.data = on_device(np.zeros(3))
    opt.update()
    np.testing.assert_allclose(quadratic.p.data, P0 * (1 - 0.05), rtol=1e-12)
    np.testing.assert_array_equal(opt.state_of(quadratic.p)["m"], 0)


@pytest.mark.parametrize("make", [
    lambda: O.SGD(0.1), lambda: O.MomentumSGD(0.1), lambda: O.MomentumSGD(0.1, nesterov=True),
    lambda: O.AdaGrad(0.1), lambda: O.RMSprop(0.01), lambda: O.AdaDelta(), lambda: O.Adam(0.01),
    lambda: O.AdamW(0.01),
])
def test_float32_stays_float32_and_updates_in_place(make):
    model = Quadratic(np.float32)
    data = model.p.data
    opt = make()
    run_steps(opt, model)
    assert model.p.data is data                     # the same array, updated in place
    assert model.p.data.dtype == np.float32
    assert all(a.dtype == np.float32 for a in opt.state_of(model.p).values() if not isinstance(a, int))
    # and the float32 run follows the float64 one to float32 precision
    reference = Quadratic()
    run_steps(make(), reference)
    np.testing.assert_allclose(model.p.data, reference.p.data, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, match", [
    (lambda: O.Adam(beta1=1.0), "Adam: beta1"),
    (lambda: O.Adam(beta2=-0.5), "Adam: beta2"),
    (lambda: O.AdamW(weight_decay=-1), "AdamW: weight_decay"),
    (lambda: O.AdaDelta(eps=0), "AdaDelta: eps"),
    (lambda: O.RMSprop(alpha=2), "RMSprop: alpha"),
    (lambda: O.AdaGrad(lr=None), "AdaGrad: lr must be a number"),
])
def test_bad_hyperparameters_are_named(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


HYPERPARAMETERS = [(make, name) for make in (O.SGD, O.MomentumSGD, O.AdaGrad, O.RMSprop, O.AdaDelta, O.Adam,
                                             O.AdamW, lambda: O.WeightDecay(0.1), lambda: O.ClipGrad(1.0))
                   for name in vars(make()) if name in {"lr", "momentum", "alpha", "rho", "eps", "beta1",
                                                        "beta2", "weight_decay", "rate", "max_norm"}]


@pytest.mark.parametrize("make, name", HYPERPARAMETERS)
def test_a_hyperparameter_assigned_later_is_checked_as_the_constructor_checks_it(make, name):
    # a schedule's `opt.lr = ...`: a string from a command line, an array or a value out of range is
    # refused where it is assigned, never met inside update()
    opt = make()
    kept = getattr(opt, name)
    where = type(opt).__name__
    text = rf"{where}: {name} must be a number, got str '0\.1'; .*float\('0\.1'\)"
    with pytest.raises(TypeError, match=text):
        setattr(opt, name, "0.1")
    with pytest.raises(TypeError, match=rf"{where}: {name} must be a number, got ndarray; give one number"):
        setattr(opt, name, np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match=rf"{where}: {name} must lie in"):
        setattr(opt, name, -0.5)
    assert getattr(opt, name) == kept               # nothing refused was kept
    setattr(opt, name, np.float32(0.5))
    assert type(getattr(opt, name)) is float and getattr(opt, name) == 0.5
    assert name in vars(opt)                        # a plain attribute to read, and to save


def test_adamax_three_steps(quadratic):
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    got = run_steps(O.Adamax(lr, beta1=b1, beta2=b2, eps=eps), quadratic)
    p, m, u = P0.copy(), np.zeros(3), np.zeros(3)
    for t in range(1, 4):
        g = grad_of(p)
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g) + eps)          # the infinity norm, decayed
        p = p - lr / (1 - b1 ** t) * m / u
        np.testing.assert_allclose(got[t - 1], p, rtol=1e-12)
    assert (O.Adamax().lr, O.Adamax().beta2) == (0.002, 0.999)   # PyTorch's defaults


def _radam_by_hand(lr, b1, b2, eps, steps):
    p, m, v = P0.copy(), np.zeros(3), np.zeros(3)
    rho_inf = 2 / (1 - b2) - 1
    path, rectified = [], []
    for t in range(1, steps + 1):
        g = grad_of(p)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** t)
        rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho_t > 5:                                     # the variance estimate is trusted
            r = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            p = p - lr * r * m_hat * np.sqrt(1 - b2 ** t) / (np.sqrt(v) + eps)
        else:                                             # momentum alone, while it is not
            p = p - lr * m_hat
        path.append(p)
        rectified.append(rho_t > 5)
    return path, rectified


def test_radam_takes_momentum_steps_then_rectified_adam_steps(quadratic):
    got = run_steps(O.RAdam(lr=0.05, beta2=0.9), quadratic, steps=8)
    expected, rectified = _radam_by_hand(0.05, 0.9, 0.9, 1e-8, steps=8)
    assert rectified[0] is False and rectified[-1] is True  # both kinds of step are checked
    for step in range(8):
        np.testing.assert_allclose(got[step], expected[step], rtol=1e-12)


def test_nadam_steps_by_hand(quadratic):
    lr, b1, b2, eps, psi = 0.05, 0.9, 0.999, 1e-8, 0.004
    got = run_steps(O.NAdam(lr), quadratic, steps=25)
    p, m, v, product = P0.copy(), np.zeros(3), np.zeros(3), 1.0
    for t in range(1, 26):
        g = grad_of(p)
        mu, mu_next = (b1 * (1 - 0.5 * 0.96 ** (k * psi)) for k in (t, t + 1))   # warming momentum
        product *= mu
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        denominator = np.sqrt(v / (1 - b2 ** t)) + eps
        p = p - lr * (1 - mu) / (1 - product) * g / denominator
        p = p - lr * mu_next / (1 - product * mu_next) * m / denominator
        np.testing.assert_allclose(got[t - 1], p, rtol=1e-12)


def test_nadam_resumes_from_its_state_alone(quadratic):
    straight = run_steps(O.NAdam(0.05), quadratic, steps=12)[-1]
    second = Quadratic()
    run_steps(first := O.NAdam(0.05), second, steps=5)
    resumed = O.NAdam(0.05).setup(second)
    resumed.load_state_dict(first.state_dict())                # m, v and t: the product follows from t
    for _ in range(7):
        second.cleargrads()
        second().backward()
        resumed.update()
    np.testing.assert_allclose(second.p.data, straight, rtol=1e-13)


def test_nadam_makes_one_product_a_step_for_every_parameter(monkeypatch):
    model = L.Sequential(L.Linear(3), L.Linear(2))
    opt = O.NAdam(0.01).setup(model)
    calls = []
    mu = opt._mu
    monkeypatch.setattr(opt, "_mu", lambda t: calls.append(t) or mu(t))
    x = np.ones((4, 5))
    for _ in range(50):
        model.cleargrads()
        V.sum(model(x) ** 2).backward()
        opt.update()
    assert len(calls) == 50 * (2 * 4 + 1)     # mu_t and mu_(t+1) for each of 4 parameters, M_t once a step
