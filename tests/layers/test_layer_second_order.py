"""Second order through layers: gradient penalties built with V.grad(create_graph=True).

The penalty is itself differentiated with respect to the parameters; gradcheck (which
sees the parameters as its inputs) and direct central differences on the parameters'
own arrays both confirm the result.
"""

from layer_checks import assert_param_grads_match, substituted

import function as F
import layers as L
import optimizers as O
import variable as V


def _tiny(rng, move):
    """A small model with its data, put where `move` (the on_device fixture) puts data."""
    model = L.MLP((3, 1), activation=F.tanh)
    x = move(rng.standard_normal((4, 2)))
    t = move(rng.standard_normal((4, 1)))
    model(x)
    for p in model.params():
        p.data = move(rng.standard_normal(p.shape) * 0.8)
    return model, x, t


def _input_penalty(model, x, t):
    """WGAN-GP style: squared norm of d loss / d x."""
    x = V.as_variable(x)
    if not x.requires_grad:
        x = V.Variable(x.data)
    loss = F.mean_squared_error(model(x), t)
    gx = V.grad(loss, x, create_graph=True)
    return V.sum(gx * gx)


def _param_penalty(model, x, t, params):
    """loss + half the squared norm of d loss / d params."""
    with substituted(model, params):
        loss = F.mean_squared_error(model(x), t)
    grads = V.grad(loss, list(params), create_graph=True)
    penalty = 0
    for g in grads:
        penalty = penalty + V.sum(g * g)
    return loss + 0.5 * penalty


def test_input_gradient_penalty_passes_gradcheck(rng, on_device):
    model, x, t = _tiny(rng, on_device)
    values = [p.data.copy() for p in model.params()]

    def f(x, *params):
        with substituted(model, params):
            return _input_penalty(model, x, t)

    V.gradcheck(f, x, *values, order=2)


def test_parameter_gradient_penalty_passes_gradcheck(rng, on_device):
    model, x, t = _tiny(rng, on_device)
    values = [p.data.copy() for p in model.params()]

    def f(*params):
        return _param_penalty(model, x, t, params)

    V.gradcheck(f, *values, order=2)


def test_penalties_backpropagate_into_the_real_parameters(rng, on_device):
    model, x, t = _tiny(rng, on_device)
    assert_param_grads_match(model, lambda: _input_penalty(model, x, t), rtol=1e-5, atol=1e-8)
    assert_param_grads_match(model, lambda: _param_penalty(model, x, t, list(model.params())),
                             rtol=1e-5, atol=1e-8)


def test_training_with_a_gradient_penalty_lowers_it(rng, on_device):
    model, x, t = _tiny(rng, on_device)
    opt = O.Adam(0.01).setup(model)
    first = float(_input_penalty(model, x, t).data)
    for _ in range(50):
        penalty = _input_penalty(model, x, t)
        model.cleargrads()
        penalty.backward()
        opt.update()
    assert float(_input_penalty(model, x, t).data) < 0.5 * first
