"""Linear: forward against NumPy, lazy creation, dtype rules, initial scale, seeding, grads."""

import numpy as np
import pytest
from layer_checks import assert_param_grads_match, substituted

import layers as L
import variable as V
from variable.backend import to_cpu


def test_forward_is_x_at_w_plus_b(rng, on_device):
    layer = L.Linear(4, in_size=3)
    layer.b.data = on_device(rng.standard_normal(4))
    x = rng.standard_normal((5, 3))
    np.testing.assert_allclose(layer(on_device(x)).data, x @ to_cpu(layer.W.data) + to_cpu(layer.b.data),
                               rtol=1e-12)


def test_batch_dimensions_use_the_last_axis(rng, on_device):
    layer = L.Linear(2)
    x = rng.standard_normal((2, 3, 4))
    y = layer(on_device(x))
    assert y.shape == (2, 3, 2) and layer.W.shape == (4, 2)
    np.testing.assert_allclose(y.data, x @ to_cpu(layer.W.data), rtol=1e-12)


def test_lazy_creation_on_the_first_call(rng, on_device):
    layer = L.Linear(3)
    assert layer.W is None and list(layer.params()) == []
    layer(on_device(rng.standard_normal((2, 5))))
    assert layer.in_size == 5
    assert [(k, p.shape) for k, p in layer.named_params()] == [("W", (5, 3)), ("b", (3,))]


def test_parameters_take_the_dtype_of_the_first_input(rng, on_device):
    lazy = L.Linear(3)
    y = lazy(on_device(rng.standard_normal((2, 4)).astype(np.float32)))
    assert lazy.W.dtype == np.float32 and lazy.b.dtype == np.float32 and y.dtype == np.float32
    V.sum(y).backward()
    assert lazy.W.grad.dtype == np.float32

    eager = L.Linear(3, in_size=4)                  # created in float64 ...
    w64 = eager.W.data.copy()
    assert eager.W.dtype == np.float64
    eager(on_device(rng.standard_normal((2, 4)).astype(np.float32)))
    assert eager.W.dtype == np.float32              # ... and cast by the first input
    np.testing.assert_allclose(eager.W.data, w64, rtol=1e-6)


def test_integer_inputs_give_float64_parameters(on_device):
    layer = L.Linear(2)
    y = layer(on_device(np.arange(6).reshape(2, 3)))
    assert layer.W.dtype == np.float64 and y.dtype == np.float64


def test_explicit_dtype_wins(rng, on_device):
    layer = L.Linear(3, dtype=np.float32)
    layer(on_device(rng.standard_normal((2, 4))))              # a float64 input does not change it
    assert layer.W.dtype == np.float32
    assert L.Linear(3, in_size=2, dtype="float32").W.dtype == np.float32


def test_initial_scale_is_sqrt_one_over_in_size():
    layer = L.Linear(500, in_size=400)
    w = layer.W.data
    assert abs(w.mean()) < 0.002
    np.testing.assert_allclose(w.std(), np.sqrt(1 / 400), rtol=0.02)
    np.testing.assert_array_equal(layer.b.data, 0.0)


def test_seed_makes_initialisation_reproducible(rng):
    L.seed(7)
    a = L.Linear(3, in_size=2).W.data
    L.seed(7)
    b = L.Linear(3, in_size=2).W.data
    L.seed(8)
    c = L.Linear(3, in_size=2).W.data
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_generator_argument_makes_initialisation_reproducible(rng, on_device):
    w1 = to_cpu(L.Linear(3, in_size=2, rng=np.random.default_rng(5)).W.data)
    w2 = L.Linear(3, rng=np.random.default_rng(5))(on_device(np.ones((1, 2)))).data  # lazy: drawn on call
    lazy = L.Linear(3, rng=np.random.default_rng(5))
    lazy(on_device(np.ones((1, 2), dtype=np.float32)))
    np.testing.assert_array_equal(w2, np.ones((1, 2)) @ w1)
    np.testing.assert_array_equal(lazy.W.data, w1.astype(np.float32))   # same draw in float32


def test_nobias(on_device):
    layer = L.Linear(2, in_size=3, nobias=True)
    assert layer.b is None and [k for k, _ in layer.named_params()] == ["W"]
    x = np.ones((1, 3))
    np.testing.assert_allclose(layer(on_device(x)).data, x @ to_cpu(layer.W.data))


def test_parameter_gradients_match_numerical(rng, on_device):
    layer = L.Linear(3, in_size=4)
    layer.b.data = on_device(rng.standard_normal(3))
    x = on_device(rng.standard_normal((5, 4)))
    assert_param_grads_match(layer, lambda: V.sum(V.tanh(layer(x)) ** 2))


def test_gradcheck_second_order_through_the_layer(rng):
    layer = L.Linear(2, in_size=3)
    x = rng.standard_normal((4, 3))

    def f(x, W, b):
        with substituted(layer, [W, b]):
            return V.tanh(layer(x))

    V.gradcheck(f, x, layer.W.data, rng.standard_normal(2), order=2)


@pytest.mark.parametrize("make, error, match", [
    (lambda: L.Linear(0), ValueError, "Linear: out_size must be a positive int, got 0"),
    (lambda: L.Linear(2.5), ValueError, "Linear: out_size must be a positive int"),
    (lambda: L.Linear(2, in_size=-1), ValueError, "Linear: in_size must be a positive int"),
    (lambda: L.Linear(2, dtype=np.int32), TypeError, "Linear: dtype must be a floating-point dtype"),
    (lambda: L.Linear(2, rng=3), TypeError, "rng must be a numpy.random.Generator"),
])
def test_bad_construction(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_wrong_input_width_is_named():
    layer = L.Linear(2, in_size=3)
    with pytest.raises(ValueError, match=r"Linear: input of shape \(4, 5\) has 5 features on its last axis, "
                                         r"but the layer was built for in_size=3"):
        layer(np.ones((4, 5)))
    with pytest.raises(ValueError, match="Linear: the input must have at least one axis"):
        layer(np.float64(1.0))
