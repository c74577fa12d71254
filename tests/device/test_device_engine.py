"""The engine on a device: Variables holding device arrays, moving them, and mixing refused.

Runs on the CPU with tests/device/fake_gpu.py standing in for CuPy (the `gpu` fixture of
tests/conftest.py), so these checks hold on every machine; with GENGRAD_DEVICE=gpu they run
on the GPU itself.
"""

import numpy as np
import pytest

import variable as V
from variable import backend


def test_without_cupy_to_gpu_names_what_is_missing():
    if backend._GPU["module"] is not None:
        pytest.skip("a GPU module is registered in this session")
    try:
        import cupy  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("CuPy is installed here")
    x = V.Variable(np.ones(2))
    with pytest.raises(ModuleNotFoundError, match=r"Variable\.to_gpu: CuPy is not installed.*cupy-cuda1"):
        x.to_gpu()
    assert x.device == "cpu" and type(x.data) is np.ndarray       # nothing moved


def test_cupy_without_a_gpu_says_so(monkeypatch):
    def no_device():
        raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    fake_cupy = type("M", (), {"cuda": type("C", (), {"runtime": type("R", (), {
        "getDeviceCount": staticmethod(no_device)})})})
    monkeypatch.setitem(backend._GPU, "module", None)
    monkeypatch.setattr(backend, "_cupy", lambda: fake_cupy)
    with pytest.raises(RuntimeError, match=r"to_gpu: CuPy is installed but finds no usable GPU.*nvidia-smi"):
        backend.gpu_module()


def test_to_gpu_and_back(gpu):
    x = V.Variable(np.array([1.0, 2.0]), name="x")
    assert x.to_gpu() is x and x.device == "gpu" and isinstance(x.data, gpu.ndarray)
    assert x.to_cpu() is x and x.device == "cpu" and type(x.data) is np.ndarray
    np.testing.assert_array_equal(x.data, [1.0, 2.0])


def test_backward_and_higher_order_stay_on_the_device(gpu):
    x = V.Variable(np.array([0.5, -1.0, 2.0])).to_gpu()
    y = V.sum(V.tanh(x) * x + 2.0 * V.exp(x) / 3)
    assert y.device == "gpu"
    y.backward(create_graph=True)
    gx = x.grad
    assert gx.device == "gpu"
    host = np.array([0.5, -1.0, 2.0])
    t = np.tanh(host)
    np.testing.assert_allclose(backend.to_cpu(gx.data), t + host * (1 - t * t) + 2 * np.exp(host) / 3)
    x.cleargrad()
    gx.backward()
    d2 = 2 * (1 - t * t) - 2 * host * t * (1 - t * t) + 2 * np.exp(host) / 3
    np.testing.assert_allclose(backend.to_cpu(x.grad.data), d2)


def test_results_match_numpy(gpu):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal(3)

    def f(x0, x1):
        return V.sum(V.logsumexp(V.matmul(x0, V.reshape(x1, (3, 1))) * x0, axis=1) ** 2)

    host = [V.Variable(a), V.Variable(b)]
    device = [V.Variable(a).to_gpu(), V.Variable(b).to_gpu()]
    gh = V.grad(f(*host), host)
    gd = V.grad(f(*device), device)
    for h, d in zip(gh, gd):
        assert d.device == "gpu"
        np.testing.assert_allclose(backend.to_cpu(d.data), h.data, rtol=1e-12)


def test_numbers_become_constants_on_the_device(gpu):
    x = V.Variable(np.array([1.0, 2.0])).to_gpu()
    for y in (x * 0.5, 0.5 * x, x + 3, 1 - x, x ** 2, 2.0 ** x):
        assert y.device == "gpu"
    z = x * 0.5                                     # the cached device constant, twice
    np.testing.assert_allclose(backend.to_cpu(z.data), [0.5, 1.0])
    h = V.Variable(np.array([1.0, 2.0])).to_cpu() * 0.5   # and the host one stays on the host
    assert h.device == "cpu"


def test_mixing_devices_names_both(gpu):
    x = V.Variable(np.ones(3)).to_gpu()
    with pytest.raises(TypeError, match=r"Add: expected all inputs on one device, got input 0 on the GPU, "
                                        r"input 1 on the CPU.*to_gpu\(\)"):
        x + V.Variable(np.ones(3)).to_cpu()
    if backend.default_device() == "gpu":   # (under the switch NumPy arrays go to the GPU)
        assert (x * np.ones(3)).device == "gpu"
        return
    with pytest.raises(TypeError, match=r"Mul: expected the NumPy array on the device of the GPU data, "
                                        r"got the GPU data on the GPU and the NumPy array on the CPU "
                                        r"\(a NumPy array of shape \(3,\)\)"):
        x * np.ones(3)
    backend.set_default_device("gpu")       # where V.Variable(a) would put it, so goes an op's input
    assert (x * np.ones(3)).device == "gpu" and (x * np.array(2.0)).device == "gpu"
    backend.set_default_device("cpu")


def test_no_silent_trip_to_the_host(gpu):
    x = V.Variable(np.ones(2)).to_gpu()
    for call in (lambda: np.asarray(x), x.numpy):
        with pytest.raises(TypeError, match=r"the data is on the GPU.*x\.to_cpu\(\)"):
            call()
    assert float(V.sum(x)) == 2.0 and V.sum(x).item() == 2.0     # a Python number is fine


def test_gradients_handed_out_are_never_shared(gpu):
    # broadcast_to's backward hands out a zero-stride view: writing to it must not write
    # every element at once, and two leaves never share one gradient buffer
    x = V.Variable(np.array(2.0)).to_gpu()
    w = V.Variable(np.array([1.0, 1.0, 1.0])).to_gpu()
    V.sum(V.broadcast_to(x, (3,)) + w).backward()
    w.grad.data[0] = 5.0
    np.testing.assert_array_equal(backend.to_cpu(w.grad.data), [5.0, 1.0, 1.0])
    np.testing.assert_array_equal(backend.to_cpu(x.grad.data), 3.0)


def test_forward_mode_on_the_device(gpu):
    x = np.linspace(-1, 1, 5)
    d = V.taylor(V.tanh, V.Variable(x).to_gpu(), np.ones(5), 6)
    reference = V.taylor(V.tanh, x, np.ones(5), 6)
    for k in range(7):
        assert d[k].device == "gpu"
        np.testing.assert_allclose(backend.to_cpu(d[k].data), reference[k].data, rtol=1e-12, atol=1e-12)


def test_checkers_run_on_the_device(gpu):
    x = V.Variable(np.array([0.3, -0.7])).to_gpu()
    assert V.gradcheck(lambda a: V.sin(a) * a, x, order=2)
    assert V.taylorcheck(lambda a: V.sin(a) * a, x, order=3)
    hv = V.hvp(lambda a: V.sum(a ** 3), x, np.ones(2))
    assert hv.device == "gpu"
    np.testing.assert_allclose(backend.to_cpu(hv.data), 6 * np.array([0.3, -0.7]))


def test_default_device(gpu):
    backend.set_default_device("gpu")
    assert V.Variable(np.ones(2)).device == "gpu"
    backend.set_default_device("cpu")
    assert V.Variable(np.ones(2)).device == "cpu"
    with pytest.raises(ValueError, match="'cpu' or 'gpu'"):
        backend.set_default_device("cuda:0")


SMOOTH = {
    "tanh": V.tanh, "sin": V.sin, "exp": V.exp, "sigmoid": lambda x: 1 / (1 + V.exp(-x)),
    "log(1+x)": lambda x: V.log(1 + x), "1/(1-x)": lambda x: 1 / (1 - x),
    "(1+x)**2.5": lambda x: (1 + x) ** 2.5, "x**7": lambda x: x ** 7, "tan": V.tan,
}


@pytest.mark.parametrize("name", list(SMOOTH))
def test_taylor_to_order_60_on_the_device(gpu, name):
    # 60! is far past 64 bits: no Python int of that size may reach a device array op
    # (CuPy raises OverflowError where NumPy makes a float), and every coefficient stays there
    x = np.linspace(-0.5, 0.5, 7)
    on_host = V.taylor(SMOOTH[name], x, np.ones(7), 60)
    on_device = V.taylor(SMOOTH[name], backend.to_gpu(x), backend.to_gpu(np.ones(7)), 60)
    for k in (1, 2, 21, 30, 59, 60):
        assert backend.is_device_array(on_device[k].data)
        np.testing.assert_allclose(backend.to_cpu(on_device[k].data), on_host[k].data, rtol=1e-12,
                                   err_msg=f"order {k}")


def test_the_stand_in_refuses_python_ints_past_64_bits(gpu):
    # what made order 21 and above crash on a real GPU: keep the stand-in as strict as CuPy
    with pytest.raises(OverflowError, match="too large"):
        backend.to_gpu(np.ones(3)) * (2 ** 70)
    assert float((backend.to_gpu(np.ones(3)) * float(2 ** 70))[0]) == 2.0 ** 70


def test_a_device_array_never_becomes_a_host_array_implicitly(gpu):
    # np.asarray(cupy array) raises in CuPy; the stand-in once let NumPy read its wrapped array
    # through __array_interface__ (its attribute lookup fell through to the ndarray's), which
    # hid a np.asarray(device data) in bitwise operators and host grad_outputs for device outputs
    a = backend.to_gpu(np.arange(3.0))
    for convert in (np.asarray, np.array, lambda a: np.full(3, a[0])):
        with pytest.raises(TypeError, match="Implicit conversion to a NumPy array"):
            convert(a)


def test_a_host_grad_output_for_a_device_output_goes_where_a_variable_would(gpu):
    x = V.Variable(backend.to_gpu(np.arange(6.0).reshape(2, 3)))
    with pytest.raises(TypeError, match=r"grad: expected grad_output on the device of its output, got its "
                                        r"output on the GPU and grad_output on the CPU"):
        V.grad(V.repeat(x, [1, 0, 3], axis=1), [x], grad_outputs=np.ones((2, 4)))
    backend.set_default_device("gpu")
    try:
        gx, = V.grad(V.repeat(x, [1, 0, 3], axis=1), [x], grad_outputs=np.ones((2, 4)))
    finally:
        backend.set_default_device("cpu")
    np.testing.assert_array_equal(backend.to_cpu(gx.data), [[1.0, 0.0, 3.0]] * 2)
    h = V.Variable(np.ones(3))
    with pytest.raises(TypeError, match="output on the CPU and grad_output on the GPU; move grad_output"):
        V.grad(h * 2, [h], grad_outputs=backend.to_gpu(np.ones(3)))


def test_the_stand_in_lacks_the_ufuncs_cupy_lacks_and_spacing_works_without(gpu):
    x = np.array([0.0, -0.0, 1.0, -3.5, 1e30, np.inf, np.nan])
    if gpu.__name__ == "fake_gpu":   # (CuPy itself: its __array_ufunc__ has no spacing)
        with pytest.raises(TypeError):
            np.spacing(backend.to_gpu(x))
    for dtype in (np.float64, np.float32, np.int64):
        data = x.astype(dtype) if dtype != np.int64 else np.array([0, -3, 7])
        got = V.spacing(V.Variable(backend.to_gpu(data)))
        assert got.dtype == np.spacing(data).dtype
        want = np.spacing(data)
        if gpu.__name__ != "fake_gpu":   # CuPy flushes subnormal results to zero (-ftz=true)
            want = np.where(np.abs(want) < np.finfo(want.dtype).tiny, 0, want)
        np.testing.assert_array_equal(backend.to_cpu(got.data), want)


def test_the_stand_in_refuses_other_types_in_its_own_functions_as_cupy_does(gpu):
    # cupy.tile(v) reads no Variable (or a Taylor pass's Directions): it raises, where
    # np.tile(v) hands v to its own __array_function__; rules must call the np. one
    v = V.Variable(backend.to_gpu(np.arange(3.0)))
    with pytest.raises(TypeError, match="cupy.tile is CuPy's own function"):
        gpu.tile(v, 2)
    with pytest.raises(TypeError, match="cupy.linalg.inv is CuPy's own function"):
        gpu.linalg.inv(V.Variable(backend.to_gpu(np.eye(2))))
    assert isinstance(np.tile(v, 2), V.Variable) and backend.is_device_array(gpu.tile(v.data, 2))


def test_recorded_taylor_rules_of_linear_rearrangements_run_on_the_device(gpu):
    """Reverse over Taylor mode on device data through tile, roll, rot90, pad and a gather:
    each rule meets Variables (recorded coefficients) and must not hand them to CuPy."""
    x = V.Variable(backend.to_gpu(np.linspace(0.1, 0.9, 6).reshape(2, 3)), requires_grad=True)

    def along(index):
        def f(t):
            t = V.sin(t)
            return (V.sum(V.tile(t, 2) ** 2) + V.sum(V.roll(t, 1, axis=1) * t) + V.sum(V.rot90(t) ** 3)
                    + V.sum(V.pad(t, 1) ** 2) + V.sum(V.take_along_axis(t, index, 1)))
        return f
    index = np.array([[2], [0]])
    second = V.taylor(along(backend.to_gpu(index)), x, backend.to_gpu(np.ones((2, 3))), 2)[2]
    g, = V.grad(second, [x])
    host = V.Variable(np.linspace(0.1, 0.9, 6).reshape(2, 3), requires_grad=True)
    expected, = V.grad(V.taylor(along(index), host, np.ones((2, 3)), 2)[2], [host])
    assert backend.is_device_array(g.data)
    np.testing.assert_allclose(backend.to_cpu(g.data), expected.data, rtol=1e-12)


def test_the_stand_in_s_own_ufuncs_keep_their_methods_and_refuse_other_types(gpu):
    a = backend.to_gpu(np.zeros(3))
    gpu.add.at(a, backend.to_gpu(np.array([0, 0, 2])), 1.0)
    np.testing.assert_array_equal(backend.to_cpu(a), [2.0, 0.0, 1.0])
    assert float(gpu.maximum.reduce(backend.to_gpu(np.array([1.0, 5.0, 2.0])))) == 5.0
    assert gpu.add.nin == 2 and gpu.exp.__name__ == "exp"
    v = V.Variable(backend.to_gpu(np.ones(3)))
    with pytest.raises(TypeError, match="cupy.multiply is CuPy's own"):
        gpu.multiply(v, 2.0)
    with pytest.raises(TypeError, match="cupy.add.reduce is CuPy's own"):
        gpu.add.reduce(v)


def test_item_assignment_under_no_grad_on_the_device(gpu):
    # PyTorch's `with torch.no_grad(): w[mask] = 0` on a device array: numbers and lists go to
    # the device, a device array is written as it is, a larger host array is refused
    w = V.Variable(np.arange(4.0), name="w").to_gpu()
    x = V.Variable(np.ones(4)).to_gpu()
    y = V.sum(w * x)
    with V.no_grad():
        w[0] = 5.0
        w[1:3] = [6.0, 7.0]
        w[w < 0] = 0.0
        w[3] = V.Variable(np.array(8.0)).to_gpu()
        with pytest.raises(TypeError, match=r"w\[i\] = v: expected v on the device of w.*on the CPU"):
            w[:2] = np.ones(2)
    assert w.device == "gpu"
    np.testing.assert_array_equal(backend.to_cpu(w.data), [5.0, 6.0, 7.0, 8.0])
    with pytest.raises(ValueError, match=r"the data of Variable 'w', an input of Mul, was assigned"):
        y.backward()
