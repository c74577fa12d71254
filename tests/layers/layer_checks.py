"""Helpers for the layer tests: gradients of a model's parameters checked numerically."""

import contextlib

import numpy as np


def numerical_param_grads(model, loss_fn, eps=1e-6):
    """Central differences of loss_fn() with respect to every parameter's data, in place.

    Each entry is perturbed in the parameter's own array and restored afterwards.
    """
    grads = {}
    for path, param in model.named_params():
        data = param.data
        g = np.zeros(data.shape)
        flat, gflat = data.reshape(-1), g.reshape(-1)
        for i in range(flat.size):
            old = flat[i].copy()                     # a copy: on CuPy flat[i] is a 0-d view
            flat[i] = old + eps                      # evaluated with the graph recorded, so
            plus = float(loss_fn().data)              # loss_fn may itself call V.grad
            flat[i] = old - eps
            minus = float(loss_fn().data)
            flat[i] = old
            gflat[i] = (plus - minus) / (2 * eps)
        grads[path] = g
    return grads


def assert_param_grads_match(model, loss_fn, rtol=1e-5, atol=1e-7):
    """Backward through the model gives the numerical gradient of every parameter."""
    model.cleargrads()
    loss_fn().backward()
    analytic = {path: p.grad.data.copy() for path, p in model.named_params()}
    numerical = numerical_param_grads(model, loss_fn)
    assert analytic.keys() == numerical.keys()
    for path in analytic:
        np.testing.assert_allclose(analytic[path], numerical[path], rtol=rtol, atol=atol, err_msg=path)


@contextlib.contextmanager
def substituted(model, variables):
    """Let the model compute with `variables` in place of its parameters (in params() order).

    This is how V.gradcheck, which makes its own input Variables, can differentiate a
    model's output with respect to the model's weights.
    """
    slots = []
    for path, _ in model.named_params():
        owner = model
        *parents, name = path.split("/")
        for part in parents:
            owner = getattr(owner, part)
        slots.append((owner, name, getattr(owner, name)))
    assert len(slots) == len(variables)
    try:
        for (owner, name, _), v in zip(slots, variables):
            object.__setattr__(owner, name, v)
        yield
    finally:
        for owner, name, original in slots:
            object.__setattr__(owner, name, original)
