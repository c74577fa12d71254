"""Activation layers and Dropout: each against its NumPy formula, with working gradients."""

import math

import numpy as np
import pytest

import function as F
import layers as L
import variable as V


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_erf = np.vectorize(math.erf)

def _name(value):
    return type(value).__name__ if isinstance(value, L.Layer) else ""


TABLE = [
    (L.ReLU(), lambda x: np.maximum(x, 0)),
    (L.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (L.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (L.LeakyReLU(), lambda x: np.where(x > 0, x, 0.01 * x)),
    (L.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (L.SELU(), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    (L.CELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x / 0.5) - 1))),
    (L.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (L.HardTanh(), lambda x: np.clip(x, -1, 1)),
    (L.HardTanh(-2.0, 0.5), lambda x: np.clip(x, -2, 0.5)),
    (L.SoftSign(), lambda x: x / (1 + np.abs(x))),
    (L.LogSigmoid(), lambda x: np.log(_sigmoid(x))),
    (L.GELU("tanh"), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    (L.GELU(), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),      # exact by default, as PyTorch
    (L.Swish(), lambda x: x * _sigmoid(x)),
    (L.Sigmoid(), _sigmoid),
    (L.Tanh(), np.tanh),
    (L.HardSigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (L.HardSwish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (L.SoftPlus(), lambda x: np.log1p(np.exp(x))),
    (L.Softmax(), lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)),
    (L.Softmax(axis=0), lambda x: np.exp(x) / np.exp(x).sum(axis=0, keepdims=True)),
]


@pytest.mark.parametrize("layer, formula", TABLE, ids=_name)
def test_activation_layer_matches_its_formula(layer, formula, rng):
    x = rng.uniform(-7, 7, size=(4, 5))
    y = layer(V.Variable(x))
    np.testing.assert_allclose(y.data, formula(x), rtol=1e-7, atol=1e-12)
    assert list(layer.params()) == []


@pytest.mark.parametrize("layer, formula", TABLE, ids=_name)
def test_activation_layer_gradient_and_dtype(layer, formula, rng):
    x = rng.uniform(-3, 3, size=(3, 4))
    x = x[np.abs(x - np.round(x)) > 0.05].reshape(-1)[:8].reshape(2, 4)   # away from the kinks
    V.gradcheck(lambda v: layer(v), x, order=2)
    y = layer(V.Variable(x.astype(np.float32)))
    assert y.dtype == np.float32


def test_all_activation_layers_are_in_the_table():
    from layers import activation
    names = {name for name, value in vars(activation).items()
             if isinstance(value, type) and issubclass(value, L.Layer) and value is not L.Layer}
    assert len(names) == 19                           # (a guard on the search itself)
    assert {type(layer).__name__ for layer, _ in TABLE} | {"PReLU"} == names   # (PReLU: below)
    assert all(getattr(L, n) is getattr(activation, n) for n in names)


@pytest.mark.parametrize("channels, shape", [(1, (2, 3)), (3, (2, 3)), (3, (2, 3, 4, 4)), (1, (5,))])
def test_prelu_layer_learns_its_slopes(channels, shape, rng):
    layer = L.PReLU(channels)
    np.testing.assert_array_equal(layer.W.data, np.full(channels, 0.25))   # PyTorch's init
    x = rng.uniform(-3, 3, shape)
    w0 = np.full(channels, 0.25)
    slope = w0.reshape((channels,) + (1,) * (len(shape) - 2)) if len(shape) > 2 else w0
    np.testing.assert_allclose(layer(x).data, np.where(x > 0, x, slope * x), rtol=1e-15)
    (w,) = layer.params()
    V.gradcheck(lambda v, w: V.sum(V.sin(F.prelu(v, w))), x, w0, order=2)
    layer.cleargrads()
    V.sum(layer(x)).backward()                                        # d/dW = sum of x where x <= 0
    axes = tuple(a for a in range(len(shape)) if not (channels > 1 and a == 1))
    np.testing.assert_allclose(w.grad.data, np.sum(np.minimum(x, 0), axis=axes).reshape(channels), rtol=1e-12)
    assert L.PReLU(channels)(x.astype(np.float32)).dtype == np.float32


def test_prelu_layer_refuses_bad_settings_and_other_channels():
    with pytest.raises(ValueError, match="PReLU: num_parameters must be a positive int"):
        L.PReLU(0)
    with pytest.raises(TypeError, match="PReLU: init must be a real number"):
        L.PReLU(init="0.25")
    with pytest.raises(ValueError, match=r"prelu: weight of shape \(3,\) for x of shape \(2, 4\)"):
        L.PReLU(3)(np.ones((2, 4)))


def test_dropout_layer_in_training_and_test_mode(rng):
    layer = L.Dropout(0.25)
    x = np.ones((200, 50))
    y = layer(x).data
    kept = y != 0
    assert 0.72 < kept.mean() < 0.78                         # about 1 - p survive
    np.testing.assert_allclose(y[kept], 1 / 0.75)           # scaled by 1 / (1 - p)
    with V.test_mode():
        np.testing.assert_array_equal(layer(x).data, x)


def test_alpha_dropout_and_local_response_norm_layers_apply_their_functions(rng):
    x = rng.standard_normal((3, 4, 2))
    L.seed(5)
    y = L.AlphaDropout(0.3)(x).data
    L.seed(5)
    np.testing.assert_array_equal(y, F.alpha_dropout(x, 0.3).data)
    with V.test_mode():
        np.testing.assert_array_equal(L.AlphaDropout(0.3)(x).data, x)
    lrn = L.LocalResponseNorm(3, alpha=0.2, beta=0.5, k=2.0)
    np.testing.assert_array_equal(lrn(x).data, F.local_response_norm(x, 3, 0.2, 0.5, 2.0).data)
    assert repr(lrn) == "LocalResponseNorm(size=3, alpha=0.2, beta=0.5, k=2.0)" and not list(lrn.params())
    with pytest.raises(ValueError, match=r"AlphaDropout: p must lie in \[0, 1\), got 1.5"):
        L.AlphaDropout(1.5)


@pytest.mark.parametrize("name, shape", [("Dropout1d", (3, 4, 5)), ("Dropout2d", (2, 4, 3, 3)),
                                         ("Dropout3d", (4, 2, 3, 2)), ("FeatureAlphaDropout", (3, 4, 2))])
def test_channel_dropout_layers_apply_their_functions(name, shape, rng):
    x = rng.standard_normal(shape)
    layer = getattr(L, name)(0.4)
    op = getattr(F, {"FeatureAlphaDropout": "feature_alpha_dropout"}.get(name, name.lower()))
    L.seed(5)
    y = layer(x).data
    L.seed(5)
    np.testing.assert_array_equal(y, op(x, 0.4).data)
    assert repr(layer) == f"{name}(p=0.4)"
    with V.test_mode():
        np.testing.assert_array_equal(layer(x).data, x)
    with pytest.raises(ValueError, match=rf"{name}: p must lie in \[0, 1\), got 1.5"):
        getattr(L, name)(1.5)


def test_dropout_rejects_a_bad_p():
    with pytest.raises(ValueError, match=r"Dropout: p must lie in \[0, 1\), got 1.5"):
        L.Dropout(1.5)
    with pytest.raises(TypeError, match="Dropout: p must be a number"):
        L.Dropout("0.5")
