"""Gradients not cleared between steps: PyTorch's forgotten zero_grad(), DeZero's cleargrad().

backward() adds to `.grad`, as in PyTorch and DeZero. Where the Variable's data was assigned
between the backward that filled its `.grad` and the one that adds to it (an optimizer's
update, `x.data -= ...`), the sum mixes gradients at two points: reading it is refused, naming
`model.cleargrads()`. Sums at one point (micro-batches, a penalty on gradients) are untouched,
and so is a discriminator's sum in a GAN's generator step, cleared before it is read.
"""

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V

MIXED = r"Variable\.grad: the \.grad of .* adds up gradients taken before and after its data changed"


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((8, 3)), rng.integers(0, 2, 8)


def _loss(model, x, t):
    return F.softmax_cross_entropy(model(x), t)


def test_a_training_loop_that_never_clears_is_refused_at_its_second_update():
    x, t = _data()
    model = L.MLP((4, 2))
    opt = O.SGD(lr=0.1).setup(model)
    _loss(model, x, t).backward()
    opt.update()                                   # the first step is right
    _loss(model, x, t).backward()                  # adds to the first step's gradients
    with pytest.raises(ValueError, match=MIXED + r".*model\.cleargrads\(\)"):
        opt.update()


def test_clearing_before_each_backward_trains():
    x, t = _data()
    model = L.MLP((4, 2))
    opt = O.SGD(lr=0.1).setup(model)
    losses = []
    for _ in range(3):
        model.cleargrads()
        loss = _loss(model, x, t)
        loss.backward()
        opt.update()
        losses.append(float(loss))
    assert losses[2] < losses[0]


def test_the_read_is_refused_and_the_message_names_the_variable():
    x = V.Variable(np.array(2.0), name="x")
    (x ** 2).backward()
    x.data -= 0.1 * x.grad.data                    # the data changes: a new point
    (x ** 2).backward()                            # 4.0 + 3.8: no gradient of anything
    with pytest.raises(ValueError, match=r"the \.grad of Variable 'x' adds up") as caught:
        x.grad  # noqa: B018
    assert "x.cleargrad()" in str(caught.value)
    assert "total = total + x.grad.data" in str(caught.value)


def test_newtons_method_without_cleargrad_is_refused_and_with_it_converges():
    def newton(clear):
        x = V.Variable(np.array(2.0))
        for _ in range(8):
            if clear:
                x.cleargrad()
            y = x ** 4 - 2 * x ** 2
            y.backward(create_graph=True)
            gx = x.grad
            x.cleargrad()
            gx.backward()
            x.data -= gx.data / x.grad.data
        return float(x)

    assert newton(clear=True) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match=MIXED):
        newton(clear=False)


def test_an_update_under_no_grad_counts_as_a_change_of_the_data():
    w = V.Variable(np.array([1.0, -2.0]))
    (w * w).sum().backward()
    with V.no_grad():
        w -= 0.1 * w.grad
    (w * w).sum().backward()
    with pytest.raises(ValueError, match=MIXED):
        w.grad  # noqa: B018


def test_gradients_summed_at_one_point_add_up_as_before():
    x, t = _data()
    model = L.MLP((4, 2))
    model(x)
    halves = [(x[:4], t[:4]), (x[4:], t[4:])]
    for xs, ts in halves:                           # micro-batches, no update between
        (_loss(model, xs, ts) / 2).backward()
    summed = [p.grad.data.copy() for p in model.params()]
    model.cleargrads()
    (sum(_loss(model, xs, ts) for xs, ts in halves) / 2).backward()
    for s, p in zip(summed, model.params()):
        np.testing.assert_allclose(s, p.grad.data, rtol=1e-12, atol=1e-15)


def test_data_assigned_before_the_first_backward_is_no_mixing():
    x = V.Variable(np.array(1.0))
    x.data = np.array(3.0)
    (x ** 2).backward()
    (x ** 3).backward()                            # both at x = 3
    assert float(x.grad) == pytest.approx(6.0 + 27.0)


def test_a_gan_step_sums_into_the_discriminator_and_clears_it_before_reading():
    rng = np.random.default_rng(1)
    real, noise = rng.standard_normal((16, 2)), rng.standard_normal((16, 3))
    gen, disc = L.MLP((8, 2), activation=F.tanh), L.MLP((8, 1), activation=F.tanh)
    opt_g, opt_d = O.Adam(1e-3).setup(gen), O.Adam(1e-3).setup(disc)
    ones, zeros = np.ones((16, 1)), np.zeros((16, 1))
    for _ in range(3):
        disc.cleargrads()
        fake = gen(noise)
        d_loss = (F.sigmoid_cross_entropy(disc(real), ones)
                  + F.sigmoid_cross_entropy(disc(fake.detach()), zeros))
        d_loss.backward()
        opt_d.update()
        gen.cleargrads()                           # the discriminator keeps its sum
        g_loss = F.sigmoid_cross_entropy(disc(fake), ones)
        g_loss.backward()                          # adds to the updated discriminator's .grad
        opt_g.update()
    with pytest.raises(ValueError, match=MIXED):
        next(disc.params()).grad  # noqa: B018
    disc.cleargrads()                              # what the next step does first
    assert all(p.grad is None for p in disc.params())


def test_clearing_or_assigning_ends_it_and_backward_keeps_adding_meanwhile():
    x = V.Variable(np.array(1.0))
    (x * 2).backward()
    x.data = np.array(5.0)
    (x * 2).backward()
    (x * 2).backward()                             # still mixed, still refused
    with pytest.raises(ValueError, match=MIXED):
        x.grad  # noqa: B018
    x.grad = np.array(7.0)                         # an assignment: a gradient as of now
    assert float(x.grad) == 7.0
    (x * 2).backward()
    assert float(x.grad) == 9.0
    x.data = np.array(6.0)
    (x * 2).backward()
    x.cleargrad()
    (x * 2).backward()
    assert float(x.grad) == 2.0


def test_a_penalty_on_gradients_adds_at_one_point():
    w = V.Variable(np.array([1.0, 2.0]))
    loss = (w ** 3).sum()
    loss.backward(create_graph=True)               # w.grad = 3 w^2
    (w.grad ** 2).sum().backward()                 # + d/dw sum(9 w^4) = 36 w^3
    np.testing.assert_allclose(w.grad.data, 3 * w.data ** 2 + 36 * w.data ** 3)


def test_moving_to_a_device_and_back_is_the_same_point(gpu):
    x = V.Variable(np.array([1.0, 2.0]))
    (x * x).sum().backward()
    x.to_gpu()
    (x * x).sum().backward()                       # the same values, elsewhere
    x.to_cpu()
    np.testing.assert_allclose(x.grad.data, 4 * np.array([1.0, 2.0]))
    model = L.Linear(2)
    model(np.ones((3, 2)))
    V.sum(model(np.ones((3, 2)))).backward()
    model.to_gpu()
    V.sum(model(gpu.ones((3, 2)))).backward()
    model.to_cpu()
    np.testing.assert_allclose(model.b.grad.data, [6.0, 6.0])
