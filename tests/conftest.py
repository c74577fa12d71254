"""Fixtures shared by the whole suite, and the device switch.

GENGRAD_DEVICE=gpu runs the tests listed in DEVICE_READY with every Variable made from host
data put on the GPU (V.backend.set_default_device), through CuPy; without CuPy or a GPU
they are skipped, saying which is missing.  GENGRAD_DEVICE=fake runs them on
tests/device/fake_gpu.py, a CPU stand-in that refuses what CuPy refuses (host arrays mixed
into device operations, implicit conversion to NumPy), so the device code paths are
exercised on any machine.  The default, cpu, runs everything on NumPy.
"""

import contextlib
import functools
import gc
import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from variable import backend, forwarder

DEVICE = os.environ.get("GENGRAD_DEVICE", "cpu")
HERE = Path(__file__).resolve().parent

DEVICE_READY = (
    "device/",
    "variable/test_op_table.py",
    "variable/test_backward_arrays.py",
    "variable/test_tensor_table.py",
    "variable/test_forward_mode.py",
    "variable/test_functional.py",
    "variable/test_operators.py",
    "variable/test_higher_order.py",
    "variable/test_ops_exponential.py",
    "variable/test_ops_rounding.py",
    "variable/test_ops_reductions.py",
    "variable/test_ops_contraction.py",
    "variable/test_ops_shape_more.py",
    "variable/test_ops_selection.py",
    "variable/test_ops_linalg.py",
    "variable/test_ops_decompositions.py",
    "variable/test_directions_ops.py",
    "variable/test_recording_rules.py",
    "variable/test_recording_decompositions.py",
    "variable/test_wanted_coefficients.py",
    "variable/test_scaled_product.py",
    "variable/test_ops_quantiles.py",
    "variable/test_ops_nanfunctions.py",
    "variable/test_ops_signal.py",
    "variable/test_ops_powers.py",
    "variable/test_ops_grids.py",
    "variable/test_ops_statistics.py",
    "variable/test_ops_array_api.py",
    "variable/test_ops_linalg_api.py",
    "variable/test_ops_polynomials.py",
    "variable/test_ops_division.py",
    "variable/test_ops_sets.py",
    "variable/test_ops_histograms.py",
    "variable/test_ops_special.py",
    "variable/test_ops_elementary.py",
    "variable/test_ops_distribution_functions.py",
    "variable/test_ops_distribution_inverses.py",
    "variable/test_ops_integrals.py",
    "variable/test_ops_implicit.py",
    "variable/test_ops_airy.py",
    "variable/test_ops_spherical_bessel.py",
    "variable/test_ops_kelvin.py",
    "variable/test_ops_elliptic_integrals.py",
    "variable/test_ops_hypergeometric.py",
    "variable/test_ops_ks_distribution.py",
    "variable/test_stats.py",
    "variable/test_ndarray_methods.py",
    "function/test_function_table.py",
    "function/test_function_resample.py",
    "layers/",
    "optimizers/",
)
"""Test files (relative to tests/) that run on the device under GENGRAD_DEVICE."""

_unavailable = []  # why the device switch cannot run here, if it cannot


def load_fake_gpu():
    """tests/device/fake_gpu.py as a module (tests/ is not a package)."""
    spec = importlib.util.spec_from_file_location("fake_gpu", HERE / "device" / "fake_gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FAKE_GPU = load_fake_gpu()
"""The one loaded copy of the stand-in, for the switch and the `gpu` fixture alike."""


def _host(value):
    """A device array as a NumPy copy, for NumPy's testing functions (CuPy refuses np.asarray);
    in a list or tuple too (`assert_allclose([a, b], [0, 0])`)."""
    if type(value) in (list, tuple) and any(backend.is_device_array(v) for v in value):
        return type(value)(_host(v) for v in value)
    return backend.to_cpu(value) if backend.is_device_array(value) else value


def _on_host(function):
    @functools.wraps(function)
    def compare(*args, **kwargs):
        return function(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})
    return compare


def pytest_configure(config):
    # The cyclic collector runs after 50,000 allocations (Python's default: 700): collecting the
    # suite and running its checks make many small objects, few of them cyclic garbage; at 700
    # the collector ran 7,000 times in 150 s of op-table checks, 10 s of its time (3.5 s at
    # 50,000).  A test that counts objects or memory collects first.
    gc.set_threshold(50_000, 20, 100)
    # NumPy's testing functions take device arrays (the `gpu` fixture's too, in every run)
    for name in ("assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_equal"):
        setattr(np.testing, name, _on_host(getattr(np.testing, name)))
    if DEVICE == "cpu":
        return
    if DEVICE == "fake":
        backend.register_device_module(FAKE_GPU.DeviceArray, FAKE_GPU.module)
    elif DEVICE == "gpu":
        try:
            backend.gpu_module("GENGRAD_DEVICE=gpu")
        except (ImportError, RuntimeError) as error:
            _unavailable.append(str(error))
            return
    else:
        raise pytest.UsageError(f"GENGRAD_DEVICE must be cpu, gpu or fake, got {DEVICE!r}")


def pytest_ignore_collect(collection_path, config):
    """Under GENGRAD_DEVICE (the device there), the test files outside DEVICE_READY are not
    collected at all: marking each of their 18,000 tests skipped cost the stand-in's suite half
    a minute.  Where the device is missing every test is still collected, and skipped saying why."""
    if DEVICE == "cpu" or _unavailable or collection_path.suffix != ".py" or \
            not collection_path.name.startswith("test_"):
        return None
    relative = Path(str(collection_path)).resolve().relative_to(HERE).as_posix()
    return True if not relative.startswith(DEVICE_READY) else None


def pytest_collection_modifyitems(config, items):
    if DEVICE == "cpu":
        return
    for item in items:
        relative = Path(str(item.fspath)).resolve().relative_to(HERE).as_posix()
        if _unavailable:
            item.add_marker(pytest.mark.skip(reason=_unavailable[0]))
        elif not relative.startswith(DEVICE_READY):
            item.add_marker(pytest.mark.skip(reason=f"GENGRAD_DEVICE={DEVICE}: not among DEVICE_READY"))


def pytest_collection_finish(session):
    """The collected items (38,000 with their parameters and table rows) live to the end of the
    run: frozen out of the cyclic collector's reach, its full collections during the tests walk
    what the tests made (half their time)."""
    gc.collect()
    gc.freeze()


def uses_host_constants(fn) -> bool:
    """Whether `fn` (a table row's function) holds a NumPy array of its own: in a default
    argument, a closure cell or a global it names.  Next to GPU data such a constant is
    refused, as CuPy and PyTorch refuse it, so the row cannot run on the device as written."""
    cells = [c.cell_contents for c in (fn.__closure__ or ()) if c.cell_contents is not None]
    names = [fn.__globals__.get(n) for n in fn.__code__.co_names] if hasattr(fn, "__code__") else []
    held = list(fn.__defaults__ or ()) + cells + names
    return any(type(v) is np.ndarray and v.ndim > 0 for v in held)


@pytest.fixture
def device_row():
    """A check a table test calls with its row (or a function): under GENGRAD_DEVICE it skips a
    row whose function holds a constant NumPy array (nothing to do on the CPU), and a row marked
    for the host alone (`device=False`)."""
    def check(row):
        fn = getattr(row, "fn", row)
        if DEVICE != "cpu" and not getattr(row, "device", True):
            pytest.skip("a row for the host alone: its op's device path is its family's device test")
        if DEVICE != "cpu" and uses_host_constants(fn):
            pytest.skip("the row holds a constant NumPy array, refused next to GPU data (as in CuPy)")
    return check


@pytest.fixture
def gpu():
    """A GPU module for one test: the one registered (GENGRAD_DEVICE=gpu or fake), else the
    CPU stand-in registered for the test.  New Variables start on the CPU inside (to_gpu is
    explicit); the backend's registry, default device and the engine's constant cache are
    restored after."""
    modules, registered, default = dict(backend._MODULES), dict(backend._GPU), backend.default_device()
    forwarder._constants.clear()
    if registered["module"] is None:
        backend.register_device_module(FAKE_GPU.DeviceArray, FAKE_GPU.module)
    backend.set_default_device("cpu")
    yield backend._GPU["module"]
    with contextlib.suppress(ValueError, IndexError):   # no device error left for the next test
        backend.raise_device_errors()
    forwarder._constants.clear()
    backend._MODULES.clear()
    backend._MODULES.update(modules)
    backend._GPU.update(registered)
    backend.set_default_device(default)


class _Uncounted:
    """What a block counted where nothing counts syncs (CuPy itself, GENGRAD_DEVICE=gpu)."""

    count, where = 0, []


@pytest.fixture
def count_syncs(gpu):
    """`with count_syncs() as syncs: ...`, then `syncs.count` / `syncs.where`: the host syncs
    the stand-in (tests/device/fake_gpu.py) saw inside the block; on a real GPU, a block that
    counts nothing."""
    if gpu is FAKE_GPU.module:
        return FAKE_GPU.count_syncs
    return lambda: contextlib.nullcontext(_Uncounted())


def spied(monkeypatch, owner, name, note):
    """Replaces owner.<name> for one test by a wrapper that appends note(*args) to a list
    before each call; returns the list."""
    calls, real = [], getattr(owner, name)

    def wrapper(*args, **kwargs):
        calls.append(note(*args, **kwargs))
        return real(*args, **kwargs)
    monkeypatch.setattr(owner, name, wrapper)
    return calls


@pytest.fixture
def spy(monkeypatch):
    """spy(owner, name, note): `spied` for this test."""
    return lambda owner, name, note: spied(monkeypatch, owner, name, note)


@pytest.fixture
def on_device():
    """Moves a test's NumPy inputs where GENGRAD_DEVICE puts data (a tuple, list or one
    array; anything else unchanged); on the CPU it returns them as they are."""
    def move(values):
        if DEVICE == "cpu" or _unavailable:
            return values
        if isinstance(values, (tuple, list)):
            return type(values)(move(v) for v in values)
        return backend.to_gpu(values) if type(values) is np.ndarray else values
    return move


@pytest.fixture(autouse=True)
def _seed_global_rng():
    """Seed NumPy's global RNG so any code that uses it is reproducible."""
    np.random.seed(0)


@pytest.fixture(autouse=True)
def _default_device():
    """Under GENGRAD_DEVICE, new Variables start on the device."""
    if DEVICE == "cpu" or _unavailable:
        yield
        return
    backend.set_default_device("gpu")
    yield
    backend.set_default_device("cpu")


@pytest.fixture
def rng():
    """A fresh, seeded Generator for test data."""
    return np.random.default_rng(0)


@pytest.fixture
def cube_op():
    """A custom op x^3 whose Taylor rule (two Cauchy products, which take several directions
    too) does not say it records (no taylor_records = True): a gradient through a Taylor
    pass over it must be refused, naming it."""
    import variable as V

    class Cube(V.Forwarder):
        def forward(self, x):
            return x ** 3

        def backward(self, gy):
            x, = self.inputs
            return gy * 3 * x ** 2

        def taylor(self, x):
            return V.series.mul(V.series.mul(x, x), x)
    return Cube


NOT_RECORDING: set[str] = set()
"""Built-in ops whose Taylor rule runs on arrays only (it writes in place or reads arrays its
forward saved), where a gradient through V.taylor's result is refused, naming the op: none
(every built-in rule records)."""


@pytest.fixture
def directions_check(monkeypatch):
    """Many directions in one pass, for a table row: V.taylor with batched=True along three
    random directions per input equals the three single-direction passes, and (order 2, one
    output) the collapsed pass, sum_d w_d D^2_{v_d} f with weights of both signs, equals the
    weighted sum of their second derivatives.  Every built-in rule takes coefficients that
    carry a leading axis of directions (variable/directions.py) as they are, on the device
    too: none is run once per direction (forward_mode._each_direction, the fallback kept for
    custom rules), which would be right but slow."""
    import variable as V
    from variable import forward_mode
    from variable.forward_mode import collapsed

    fallbacks = spied(monkeypatch, forward_mode, "_each_direction", lambda f, *args: f.name)

    def host(y):
        return np.asarray(backend.to_cpu(y.data))

    def check(fn, *xs, order=2, per_direction=False, recorded=True):
        """per_direction: fn holds a rule that cannot take Directions, which must then run once
        per direction (and give the same numbers).  recorded=False leaves out the collapsed pass
        recorded and the Laplacian against nested reverse mode (the slower half: for a row whose
        op another row checks so at another shape)."""
        rng = np.random.default_rng(1)
        floating = [i for i, x in enumerate(xs) if np.asarray(x).dtype.kind == "f"]
        if not floating:
            return

        def along(*vs):
            args = list(xs)
            for i, v in zip(floating, vs):
                args[i] = v
            return fn(*args)

        points = tuple(np.asarray(xs[i]) for i in floating)
        stacks = tuple(rng.standard_normal((3, *p.shape)) for p in points)
        one = len(points) == 1
        x, v = (points[0], stacks[0]) if one else (points, stacks)
        batched = V.taylor(along, x, v, order, batched=True)
        singles = [V.taylor(along, x, stacks[0][d] if one else tuple(s[d] for s in stacks), order)
                   for d in range(3)]
        for k in range(1, order + 1):
            got = batched[k] if isinstance(batched[k], tuple) else (batched[k],)
            for i, y in enumerate(got):
                expected = np.stack([host(s[k][i] if isinstance(s[k], tuple) else s[k]) for s in singles])
                np.testing.assert_allclose(host(y), expected, rtol=1e-10, atol=1e-10,
                                           err_msg=f"batched directions, derivative {k}, output {i}")
        if order >= 2 and not isinstance(batched[0], tuple):
            w = np.array([0.75, -1.5, 2.0])
            total = collapsed(along, x, v, w, "directions_check")
            expected = sum(wd * host(s[2]) for wd, s in zip(w, singles))
            np.testing.assert_allclose(host(total), expected, rtol=1e-10, atol=1e-10,
                                       err_msg="collapsed second order")
            if recorded:
                _recorded_collapse(V, collapsed, host, along, points, x, v, w, one)
            if recorded and one and 0 < points[0].size <= 24:
                _laplacian_against_nested(V, collapsed, host, along, points[0])
        if per_direction:
            assert fallbacks, "a rule that cannot take Directions was not run once per direction"
        else:
            assert not fallbacks, f"run once per direction (the fallback): {sorted(set(fallbacks))}"
    return check


def _laplacian_against_nested(V, collapsed, host, along, x):
    """The collapsed pass along every unit direction (the Laplacian of each output entry)
    against nested reverse mode: sum_i d^2 <g, f> / dx_i^2 from n + 1 backward passes."""
    n = x.size
    eye = np.eye(n).reshape((n, *x.shape))
    lap = collapsed(along, x, eye, np.ones(n), "directions_check")
    g = np.random.default_rng(3).standard_normal(lap.shape)
    start = V.Variable(x.copy())
    first = V.grad(V.sum(along(start) * g), start, create_graph=True, allow_unused=True)
    expected = 0.0
    if first is not None and first.requires_grad:
        flat = V.reshape(first, (-1,))
        for i in range(n):
            row = V.grad(flat[i], start, allow_unused=True)
            expected += 0.0 if row is None else float(host(row).reshape(-1)[i])
    total = float(np.sum(host(lap) * g))
    np.testing.assert_allclose(total, expected, rtol=1e-8, atol=1e-8 * max(1.0, abs(expected)),
                               err_msg="the Laplacian against nested reverse mode")


def _recorded_collapse(V, collapsed, host, along, points, x, v, w, one):
    """The collapsed pass recorded (inputs that require grad): the gradient of <g, result>
    equals sum_d w_d times that of each direction's recorded V.taylor."""
    starts = [V.Variable(p.copy(), requires_grad=True) for p in points]
    at = starts[0] if one else tuple(starts)
    total = collapsed(along, at, v, w, "directions_check")
    g = np.random.default_rng(2).standard_normal(total.shape)
    try:
        got = V.grad(V.sum(total * g), starts, allow_unused=True)
    except ValueError as error:
        if "no recording rule" in str(error) or "set taylor_records = True on" in str(error):
            # (NOT_RECORDING, or a custom op without a recording rule: refused, naming it)
            return
        raise
    expected = [np.zeros(p.shape) for p in points]
    for d, wd in enumerate(w):
        vd = v[d] if one else tuple(s[d] for s in v)
        second = V.taylor(along, at, vd, 2)[2]
        for e, gd in zip(expected, V.grad(V.sum(second * g), starts, allow_unused=True)):
            if gd is not None:
                e += wd * host(gd)
    for i, (a, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(host(a) if a is not None else np.zeros_like(e), e, rtol=1e-9,
                                   atol=1e-9, err_msg=f"gradient of the recorded collapsed pass, input {i}")


@pytest.fixture
def recording_check():
    """Reverse over Taylor mode for a table row, order 2: V.taylor_gradcheck of the row's
    function with every floating input entering through x + x^2/100, so that each op's rule
    meets recorded coefficients (Variables), not only the seed's arrays.  A row through an
    op of NOT_RECORDING must be refused naming that op, never give a number."""
    import variable as V

    def check(fn, *xs, order=2):
        def premapped(*vs):
            return fn(*[v + 0.01 * v * v if v.dtype.kind == "f" else v for v in vs])
        try:
            assert V.taylor_gradcheck(premapped, *xs, order=order)
        except V.GradcheckError as error:
            refused = [op for op in NOT_RECORDING if f"the op {op} on its path" in str(error)]
            if not refused or "no recording rule" not in str(error):
                raise
    return check
