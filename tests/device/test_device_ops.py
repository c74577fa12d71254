"""The variable ops on a device: what an op creates lands there, and constants meet the data.

Runs on the CPU with tests/device/fake_gpu.py standing in for CuPy (registered for each
test and removed after it, the default device set to the CPU inside), so these checks
hold on every machine.  Each op is checked against itself on NumPy: same values, results
and gradients (first and second order) on the device, Taylor coefficients too.

Constant parameters (where's condition, clip's bounds, pow's array exponent) follow the
rule of the nn functions' labels: a 0-d NumPy array counts as a number, a larger NumPy
array next to GPU data moves there only under set_default_device("gpu") and is refused
otherwise, naming the op; lists are made on the data's device.  Index arrays go to the
input's device, as CuPy moves a NumPy index itself.
"""

import numpy as np
import pytest
from device_checks import assert_on_gpu, host, on_gpu

import variable as V
from variable import backend


def _outputs(y):
    return list(y) if isinstance(y, tuple) else [y]


def same_on_both(fn, *arrays, rtol=1e-12, atol=1e-14, taylor=True):
    """fn on GPU Variables equals fn on CPU Variables: values, gradients of a weighted sum to
    second order (the first with create_graph), and (with `taylor`) the first three Taylor
    coefficients."""
    cpu = [V.Variable(a) for a in arrays]
    dev = [on_gpu(a) for a in arrays]
    ys_cpu, ys_dev = _outputs(fn(*cpu)), _outputs(fn(*dev))
    for y_cpu, y_dev in zip(ys_cpu, ys_dev):
        assert_on_gpu(y_dev)
        assert y_dev.dtype == y_cpu.dtype and y_dev.shape == y_cpu.shape
        np.testing.assert_allclose(host(y_dev), y_cpu.data, rtol=rtol, atol=atol)

    def loss(ys):
        return sum(V.sum(V.sin(y)) for y in ys)         # sin: second derivatives not constant

    g_cpu = V.grad(loss(ys_cpu), cpu, create_graph=True, allow_unused=True)
    g_dev = V.grad(loss(ys_dev), dev, create_graph=True, allow_unused=True)
    for a, b in zip(g_cpu, g_dev):
        assert (a is None) == (b is None)
        if a is not None:
            assert_on_gpu(b)
            np.testing.assert_allclose(host(b), a.data, rtol=rtol, atol=atol)
    used_cpu = [g for g in g_cpu if g is not None and g.requires_grad]
    used_dev = [g for g in g_dev if g is not None and g.requires_grad]
    if used_cpu:
        h_cpu = V.grad(sum(V.sum(g * g) for g in used_cpu), cpu, allow_unused=True)
        h_dev = V.grad(sum(V.sum(g * g) for g in used_dev), dev, allow_unused=True)
        for a, b in zip(h_cpu, h_dev):
            if a is not None:
                assert_on_gpu(b)
                np.testing.assert_allclose(host(b), a.data, rtol=1e-10, atol=1e-12)

    if not taylor:
        return
    directions = [np.linspace(-1.0, 1.0, a.size).reshape(a.shape) for a in arrays]
    t_cpu = V.taylor(fn, tuple(arrays), tuple(directions), 3)
    t_dev = V.taylor(fn, tuple(on_gpu(a) for a in arrays), tuple(on_gpu(d) for d in directions), 3)
    for k in range(4):
        for a, b in zip(_outputs(t_cpu[k]), _outputs(t_dev[k])):
            assert_on_gpu(b)
            np.testing.assert_allclose(host(b), a.data, rtol=1e-10, atol=1e-12)


X = np.array([[0.3, -1.2, 0.0], [2.0, 0.7, -0.4]])
POSITIVE = np.array([[0.3, 1.2, 0.5], [2.0, 0.7, 1.4]])
W = np.array([[0.5, -1.0], [2.0, 0.1], [-0.3, 0.8]])


# ----- elementwise ------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x ** 3,
        lambda x: x ** 0,                             # d x^0 = 0: zeros made on the device
        lambda x: V.pow(x * x + 1, 0.5),
        lambda x: V.pow(x * x + 1, x),                # a Variable exponent
        lambda x: V.pow(2.0, x),                      # a constant base, made on the device
        lambda x: V.pow(x, [1.0, 2.0, 3.0]),          # a list exponent, made on the device
        lambda x: V.pow(x, np.array(3.0)),            # a 0-d NumPy exponent counts as a number
        lambda x: V.maximum(x, 0.0) + V.minimum(x, 0.5),
        lambda x: V.clip(x, -0.5, 0.5),
        lambda x: V.clip(x, 0.0, None) + V.clip(x, None, 0.1),
        lambda x: V.clip(x, np.array(-0.5), np.array(0.5)),   # 0-d NumPy bounds
        lambda x: V.where(x > 0, x * x, 0.0),
        lambda x: V.where(True, x, 1.0),
        lambda x: V.where([True, False, True], x, V.exp(x)),  # a list mask, made on the device
        lambda x: V.where(np.array(False), x, V.tanh(x)),     # a 0-d NumPy mask
        lambda x: V.abs(x) + V.sqrt(x * x + 1) + V.log(x * x + 1) + V.square(x) / (x * x + 2),
        lambda x: V.sin(x) + V.cos(x) + V.tan(x / 4) + V.tanh(x) + V.sinh(x) + V.cosh(x),
    ],
    ids=[
        "cube", "power-0", "sqrt-power", "pow-variable", "pow-base", "pow-list", "pow-0d",
        "maximum-minimum", "clip", "clip-one-side", "clip-0d-bounds", "where-mask-of-x",
        "where-bool", "where-list", "where-0d", "elementwise", "trigonometric",
    ],
)
def test_elementwise_ops_on_the_device(gpu, fn):
    same_on_both(fn, X)


def test_power_of_zero_to_the_zero_on_the_device(gpu):
    # 0^0 = 1 with PyTorch's derivatives: the masks PowVar saves stay on the device (no
    # Taylor series: that of log x0 at x0 = 0 divides by 0, on the CPU too)
    same_on_both(lambda x0, x1: V.pow(x0, x1), np.array([0.0, 0.0, 2.0]), np.array([0.0, 2.0, -1.0]),
                 taylor=False)


def test_a_gpu_array_as_constant_parameter(gpu):
    x = on_gpu(X)
    mask, lo, c = backend.to_gpu(X > 0), backend.to_gpu(np.full(3, -0.5)), backend.to_gpu(np.arange(3.0))
    for y, expected in [
        (V.where(mask, x, 0.0), np.where(X > 0, X, 0.0)),
        (V.where(mask, 1.0, 0.0), (X > 0).astype(float)),       # numbers follow the mask
        (V.clip(x, lo, 0.5), np.clip(X, -0.5, 0.5)),
        (V.pow(x, c), X ** np.arange(3.0)),
        (V.pow(x, backend.to_gpu(np.array(2.0))), X ** 2),
    ]:
        assert_on_gpu(y)
        np.testing.assert_allclose(host(y), expected, rtol=1e-14)


@pytest.mark.parametrize(
    ("fn", "name"),
    [
        (lambda x: V.where(X > 0, x, 0.0), "where"),
        (lambda x: V.clip(x, np.full(3, -0.5), None), "clip"),
        (lambda x: V.clip(x, None, np.full((2, 1), 0.5)), "clip"),
        (lambda x: V.pow(x, np.arange(3.0)), "pow"),
    ],
    ids=["where-condition", "clip-lo", "clip-hi", "pow-exponent"],
)
def test_a_numpy_constant_next_to_gpu_data(gpu, fn, name):
    x = on_gpu(X)
    with pytest.raises(TypeError, match=rf"^{name}: expected .* on the device of .*NumPy array"):
        fn(x)
    backend.set_default_device("gpu")                  # where V.Variable(a) would put it
    y = fn(x)
    backend.set_default_device("cpu")
    assert_on_gpu(y)
    np.testing.assert_allclose(host(y), fn(V.Variable(X)).data, rtol=1e-14)


@pytest.mark.parametrize(
    ("fn", "name"),
    [
        (lambda x, g: V.where(g > 0, x, 0.0), "where"),
        (lambda x, g: V.clip(x, g, None), "clip"),
        (lambda x, g: V.pow(x, g), "pow"),
    ],
    ids=["where", "clip", "pow"],
)
def test_a_gpu_constant_next_to_cpu_data(gpu, fn, name):
    with pytest.raises(TypeError, match=rf"^{name}: expected .* on the device of .* on the CPU and .* GPU"):
        fn(V.Variable(X), backend.to_gpu(np.full(3, 0.5)))


def test_where_refuses_cpu_operands_with_a_gpu_condition(gpu):
    with pytest.raises(TypeError, match="^where: .*condition on the GPU"):
        V.where(backend.to_gpu(X > 0), V.Variable(X), 0.0)


# ----- indexing ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "index",
    [
        1,
        (slice(None), slice(None, None, -2)),
        X > 0,                                        # a NumPy mask: moved, as CuPy moves it
        np.array([0, 1, 0, 0]),                        # repeated rows: gradients add up
        (np.array([1, 0, 1]), np.array([2, 2, 2])),   # repeated elements
        (slice(None), [1, 1]),                        # a list: made on the device
        (Ellipsis, None, 0),
    ],
    ids=["int", "reverse-slice", "bool-mask", "int-array", "int-pairs", "list", "ellipsis-none"],
)
def test_get_item_on_the_device(gpu, index):
    same_on_both(lambda x: V.get_item(x, index), X)


def test_get_item_with_a_gpu_index(gpu):
    x = on_gpu(X)
    for index in (backend.to_gpu(np.array([1, 1, 0])), V.Variable(np.array([1, 1, 0])).to_gpu()):
        y = x[index]
        assert_on_gpu(y)
        V.sum(y * y).backward()
        assert_on_gpu(x.grad)
        np.testing.assert_allclose(host(x.grad), [2 * X[0], 4 * X[1]], rtol=1e-14)   # row 1 twice
        x.cleargrad()


def test_get_item_refuses_a_gpu_index_for_cpu_data(gpu):
    with pytest.raises(TypeError, match="^get_item: expected the index on the device"):
        V.get_item(V.Variable(X), backend.to_gpu(np.array([0, 1])))


# ----- shape, joining, reductions, matmul ----------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: V.reshape(x, (3, 2)) + V.transpose(x).T[0, 0],
        lambda x: V.broadcast_to(x, (4, 2, 3)) * 2,
        lambda x: V.sum_to(x, (1, 3)) + V.expand_dims(V.squeeze(V.sum_to(x, (2, 1))), 0).T,
        lambda x: V.flatten(V.expand_dims(x, 0)),
        lambda x: V.concat([x, V.tanh(x)], axis=1),
        lambda x: V.stack([x, x * x], axis=-1),
        lambda x: V.split(x, [1], axis=1),
        lambda x: V.sum(x, axis=0) + V.mean(x, axis=0, keepdims=False),
        lambda x: V.variance(x, axis=1),
        lambda x: V.max(x, axis=1) + V.min(x),
        lambda x: V.logsumexp(x, axis=(0, 1), keepdims=True),
    ],
    ids=[
        "reshape-transpose", "broadcast_to", "sum_to-squeeze", "flatten", "concat", "stack",
        "split", "sum-mean", "variance", "max-min", "logsumexp",
    ],
)
def test_tensor_ops_on_the_device(gpu, fn):
    same_on_both(fn, X)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w: V.matmul(x, w) + V.transpose_matmul(x, x)[0, :2],
        lambda x, w: V.matmul(V.broadcast_to(x, (4, 2, 3)), w[:, 0]),
        lambda x, w: V.matmul(w[:, 0], V.transpose(x)),
    ],
    ids=["2d", "batched-vector", "vector-matrix"],
)
def test_matmul_on_the_device(gpu, fn):
    same_on_both(fn, X, W)


def test_ties_and_nans_of_max_on_the_device(gpu):
    same_on_both(lambda x: V.max(x, axis=1), np.array([[1.0, 1.0, 0.0], [2.0, np.nan, 3.0]]), atol=0)


QUIET = pytest.mark.filterwarnings("ignore::RuntimeWarning")
"""The fake computes with NumPy, which warns where CuPy is silent (backend.errstate is a
no-op on a device), so log(0) and 0/0 warn here and nowhere else."""


@QUIET
def test_reductions_over_an_empty_axis_on_the_device(gpu):
    x = on_gpu(np.zeros((2, 0)))
    for y, expected in [
        (V.logsumexp(x, axis=1), -np.inf),           # the log of an empty sum: zeros made there
        (V.mean(x, axis=1), np.nan),
        (V.variance(x, axis=1), np.nan),
        (V.sum(x, axis=1), 0.0),
    ]:
        assert_on_gpu(y)
        np.testing.assert_array_equal(host(y), np.full(2, expected))
        V.sum(y).backward()
        assert_on_gpu(x.grad)
        assert x.grad.shape == (2, 0)
        x.cleargrad()


@QUIET
def test_logsumexp_of_only_minus_infinity_on_the_device(gpu):
    x = on_gpu(np.array([[-np.inf, -np.inf], [0.0, 1.0]]))
    y = V.logsumexp(x, axis=1)
    V.sum(y).backward()
    assert_on_gpu(y, x.grad)
    np.testing.assert_allclose(host(x.grad)[0], [0.0, 0.0])


def test_joining_numbers_with_gpu_data(gpu):
    x = on_gpu(np.array(2.0))
    y = V.stack([x, 1.0, [3.0]][:2])
    assert_on_gpu(y)
    np.testing.assert_allclose(host(y), [2.0, 1.0])
    with pytest.raises(TypeError, match="^concat: expected the NumPy array on the device of the GPU data"):
        V.concat([on_gpu(X), np.ones((1, 3))])
