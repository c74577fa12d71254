"""Long runs: many training steps with gradient penalties, repeated create_graph backward
passes, and deep second-order graphs; no RecursionError, no growth in live objects or memory.

The 100,000-op chain (first-order backward without recursion, freed by refcount alone)
is tests/variable/test_backward.py::test_long_chain_backward_without_recursion_error and
::test_chain_is_freed_by_refcount_alone; it is not repeated here.

Live objects are counted with gc.get_objects() (Variables, Functions and Forwarders, after
gc.collect()), memory with tracemalloc (traced bytes after a warm-up, against traced
bytes at the end).
"""

import gc
import math
import time
import tracemalloc
import weakref

import numpy as np

import function as F
import layers as L
import optimizers as O
import variable as V

STEPS = 10_000          # training steps with a create_graph gradient penalty (about 6 s)


def live_graph_objects():
    """Number of Variables, Functions and Forwarders alive, after a full collection."""
    gc.collect()
    kinds = (V.Variable, V.Function, V.Forwarder)    # (type(o): isinstance would read o.__class__,
    return sum(1 for o in gc.get_objects() if issubclass(type(o), kinds))   # which warns on some objects)


def traced_growth(run, warmup, steps):
    """Bytes still allocated after `steps` more calls of `run`, beyond those after `warmup` calls."""
    for _ in range(warmup):
        run()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(steps):
            run()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return after - before


# ----- a 2-4-1 network trained with a gradient penalty -----------------------------------------------
class PenaltyTraining:
    """Fit t = sin(2 x0) + x1 / 2 with a 2-4-1 tanh MLP, penalising mean |d y / d x|^2.

    The penalty is a gradient taken with create_graph=True, so every step runs a double
    backward: loss + 0.01 * penalty is differentiated through the first backward pass.
    """

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.x = rng.uniform(-1, 1, (8, 2))
        self.t = np.sin(2 * self.x[:, :1]) + 0.5 * self.x[:, 1:]
        self.model = L.MLP((4, 1), activation=F.tanh, rng=np.random.default_rng(seed + 1))
        self.optimizer = O.Adam(lr=0.01).setup(self.model)

    def objective(self):
        """(loss, penalty, total) at the current parameters, with the graph of total."""
        x = V.Variable(self.x)
        y = self.model(x)
        loss = F.mean_squared_error(y, self.t)
        gx = V.grad(V.sum(y), x, create_graph=True)        # d y / d x, itself differentiable
        penalty = V.mean(gx * gx)
        return loss, penalty, loss + 0.01 * penalty

    def step(self):
        loss, penalty, total = self.objective()
        self.model.cleargrads()
        total.backward()
        self.optimizer.update()
        return float(loss.data), float(penalty.data)


def test_the_penalised_objective_has_the_gradient_of_central_differences():
    """The double backward inside a training step is right: parameter gradients vs differences."""
    run = PenaltyTraining()
    run.model(run.x)                                         # create the lazy parameters
    for param in run.model.params():
        *_, total = run.objective()
        run.model.cleargrads()
        total.backward()
        analytic = param.grad.data.copy()
        original = param.data.copy()

        def total_at(value, param=param, original=original):
            param.data = value.data.copy()
            try:
                return run.objective()[2]
            finally:
                param.data = original

        numeric = V.numerical_grad(total_at, original)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-9)


def test_ten_thousand_steps_with_a_gradient_penalty():
    run = PenaltyTraining()
    first = run.step()
    start = time.perf_counter()
    counts = {}
    history = [first]
    for step in range(1, STEPS):
        history.append(run.step())
        if step in (1_000, STEPS - 1):
            counts[step] = live_graph_objects()
    elapsed = time.perf_counter() - start
    losses = np.array([h[0] for h in history])
    assert np.all(np.isfinite(losses)) and np.all(np.isfinite([h[1] for h in history]))
    assert losses[-1] < 0.02 * losses[0], (losses[0], losses[-1])
    assert losses[-100:].mean() < losses[900:1000].mean()      # still improving after step 1000
    assert counts[1_000] == counts[STEPS - 1], counts          # nothing accumulates step after step
    assert all(np.all(np.isfinite(p.data)) for p in run.model.params())
    print(f"{STEPS} penalised steps in {elapsed:.1f} s ({elapsed / (STEPS - 1) * 1e3:.2f} ms/step); "
          f"loss {losses[0]:.3g} -> {losses[-1]:.3g}")


def test_training_memory_stays_flat():
    run = PenaltyTraining(seed=3)
    growth = traced_growth(run.step, warmup=300, steps=800)
    # measured: ~5 KB; a graph kept alive per step costs ~11 KB, a leak of 64 bytes per step 51 KB
    assert growth < 48_000, f"{growth} bytes more after 800 steps"


# ----- repeated create_graph backward passes ---------------------------------------------------------
def f(x):
    """tanh(x)^3 sin(x): smooth, with non-trivial derivatives of every order."""
    return V.tanh(x) ** 3 * V.sin(x)


def f1(x):
    t, s, c = np.tanh(x), np.sin(x), np.cos(x)
    return 3 * t**2 * (1 - t**2) * s + t**3 * c


def test_repeated_create_graph_backward_keeps_objects_and_memory_flat():
    x = V.Variable(np.linspace(-1.5, 1.5, 7))

    def second_order_pass():
        x.cleargrad()
        V.sum(f(x)).backward(create_graph=True)
        g = x.grad                                           # f'(x), with a graph of its own
        x.cleargrad()
        V.sum(g * g).backward()                              # d sum f'^2 / dx = 2 f' f''
        return g

    g = second_order_pass()
    np.testing.assert_allclose(g.data, f1(x.data), rtol=1e-12)
    expected = x.grad.data.copy()
    del g
    for _ in range(200):
        second_order_pass()
    baseline = live_graph_objects()
    for _ in range(1_500):
        second_order_pass()
    np.testing.assert_allclose(x.grad.data, expected, rtol=1e-12)   # the same answer every time
    assert live_graph_objects() == baseline
    growth = traced_growth(second_order_pass, warmup=100, steps=600)
    assert growth < 24_000, f"{growth} bytes more after 600 passes"     # measured: under 1 KB


def test_accumulated_create_graph_gradients_are_freed_by_cleargrad():
    """Without cleargrad, x.grad's graph grows by design (gradients add up); cleargrad frees it all."""
    x = V.Variable(np.linspace(-1.0, 1.0, 5))
    baseline = live_graph_objects()
    for _ in range(300):
        V.sum(f(x)).backward(create_graph=True)
    np.testing.assert_allclose(x.grad.data, 300 * f1(x.data), rtol=1e-12)
    grown = live_graph_objects()
    assert grown > baseline + 300                             # one add per accumulation, at least
    g = x.grad
    gg, = [V.grad(V.sum(g), x)]                               # the accumulated graph is differentiable
    assert np.all(np.isfinite(gg.data))
    del g, gg
    x.cleargrad()
    assert live_graph_objects() == baseline


# ----- deep second-order graphs -------------------------------------------------------------------
DEPTH = 10_000


def test_second_derivative_through_a_deep_chain_without_recursion():
    """y = sin(sin(...sin(x))) DEPTH times; y'' through a create_graph backward of ~3 DEPTH ops."""
    x = V.Variable(np.array(0.7))
    y = x
    for _ in range(DEPTH):
        y = V.sin(y)
    gx = V.grad(y, x, create_graph=True)
    g2 = V.grad(gx, x)
    # closed form: y_0 = x, y_k = sin(y_{k-1}); y' = prod cos(y_k),
    # y'' = y' * sum_k (-tan(y_k)) * d y_k / dx, with d y_k / dx = prod_{j<k} cos(y_j)
    values, v = [], 0.7
    for _ in range(DEPTH):
        values.append(v)
        v = math.sin(v)
    cos = np.cos(values)
    prefix = np.concatenate([[1.0], np.cumprod(cos)[:-1]])
    first = float(np.prod(cos))
    second = first * float(np.sum(-np.tan(values) * prefix))
    np.testing.assert_allclose(gx.data, first, rtol=1e-9)
    np.testing.assert_allclose(g2.data, second, rtol=1e-9)
    middle = weakref.ref(y.creator.inputs[0])
    del y, gx, g2
    gc.disable()
    try:                                                     # refcounting alone frees it, no recursion
        assert middle() is None
    finally:
        gc.enable()
