"""V.record_backward: the steps recorded are the engine's own, in its order, with the right sums.

The engine's real order is observed independently of the recording: every Function's
Forwarder gets a `backward` that notes the Function before running the original, so the
log is what the engine called, in the order it called it.  The gradients are checked
against V.grad run separately for each Variable, and the final ones against `.grad`.
"""

import threading

import numpy as np
import pytest
from picture_scenes import diamond

import variable as V
from pictures import BackwardRecording
from variable.backward import backward as backward_all
from variable.saving import key

UNARY = [V.sin, V.tanh, V.square, V.neg, lambda x: V.exp(x * 0.1)]
BINARY = [V.add, V.mul, V.sub]


def random_graph(rng, n_leaves=3, n_ops=12):
    """Leaves and ops on (2,)-shaped Variables, every one named "n<k>": unary and binary ops
    with inputs drawn from everything made so far (so repeats such as x * x happen), a
    multi-output split with one part dropped, and x[[0, 0]] (a repeated index)."""
    made = [V.Variable(rng.standard_normal(2), name=f"n{k}") for k in range(n_leaves)]
    for _ in range(n_ops):
        kind = rng.integers(5)
        pick = lambda: made[rng.integers(len(made))]   # noqa: E731
        if kind == 0:
            y = UNARY[rng.integers(len(UNARY))](pick())
        elif kind in (1, 2):
            y = BINARY[rng.integers(len(BINARY))](pick(), pick())
        elif kind == 3:
            part = V.split(pick(), 2)[rng.integers(2)]   # the other output is dropped
            y = part * np.ones(2)
        else:
            y = pick()[np.array([0, 0])] + pick()
        y.name = f"n{len(made)}"
        made.append(y)
    return made


def spy_on_backward(outputs, log=None):
    """Make every Function behind `outputs` note itself in `log` (a new list when None, which
    is returned) when the engine calls its backward: the real order, seen from outside the
    recording.  A Function already noting itself is left as it is."""
    log = [] if log is None else log
    for f in V.graph_functions(outputs):
        if "backward" in vars(f.forwarder):
            continue
        original = f.forwarder.backward

        def noted(*gys, f=f, original=original):
            log.append(f)
            return original(*gys)

        f.forwarder.backward = noted  # (an op's rule on arrays is off once backward is replaced)
    return log


def arrivals_by_label(steps):
    """{Variable name: [Arrival, ...]} in the order the gradients arrived."""
    found = {}
    for step in steps:
        for a in step.arrivals:
            found.setdefault(a.label, []).append(a)
    return found


def final_value(arrivals):
    """The gradient a Variable holds after its last arrival: the last sum, or its only value."""
    last = arrivals[-1]
    return last.total if last.added else last.values


def check_queue(p):
    """The queue after each step is in pop order (generation, highest first), its head is what
    the next step pops, and everything in it is popped later; it ends empty."""
    queues = [p.queue] + [s.queue for s in p.steps]
    for i, queue in enumerate(queues):
        generations = [q.generation for q in queue]
        assert generations == sorted(generations, reverse=True)
        later = [s.node for s in p.steps[i:]]
        assert {q.node for q in queue} <= set(later)
        if i < len(p.steps):
            assert queue[0].node == p.steps[i].node
    assert queues[-1] == ()


def check_pass(p, made, outputs, inputs=None):
    """Each gradient sum of pass `p` is right where it happens, and each Variable gets as many
    gradients as it has uses on the way back (the first starts it, the others are added)."""
    by_label = arrivals_by_label(p.steps)
    seeded = {a.label for a in p.seeds}
    visited = [s.function for s in p.steps]
    for v in made:
        if not v.requires_grad:
            continue
        uses = sum(1 for f in visited for x in f.inputs
                   if x is v or (v.creator is not None and key(x) == key(v)))
        arrivals = by_label.get(v.name, [])
        assert len(arrivals) == uses, v.name
        if not arrivals:
            continue
        expected_added = [v.name in seeded] + [True] * (len(arrivals) - 1)
        assert [a.added for a in arrivals] == expected_added, v.name
        truth = V.grad(outputs, v, allow_unused=True)
        if truth is not None and (inputs is None or v.creator is None):
            np.testing.assert_allclose(final_value(arrivals), truth.data, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_recorded_steps_are_the_engines_own_order_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    made = random_graph(rng)
    outputs = [made[-1], made[-1 - rng.integers(1, 5)]]           # several outputs
    log = spy_on_backward(outputs)
    with V.record_backward() as steps:
        backward_all(outputs)
    log = list(log)
    p, = steps.passes
    assert [s.function for s in p.steps] == log                   # the engine's order, exactly
    assert len({id(f) for f in log}) == len(log)                  # every Function once
    assert {id(f) for f in log} == {id(f) for f in V.graph_functions(outputs)}
    check_queue(p)
    check_pass(p, made, outputs)
    leaves = {v.name: v for v in made if v.creator is None}
    finals = {g.label: g for g in p.leaf_gradients}
    assert set(finals) == {name for name, v in leaves.items() if v.grad is not None}
    for name, g in finals.items():
        np.testing.assert_array_equal(g.values, leaves[name].grad.data)   # what .grad got


@pytest.mark.parametrize("seed", range(12, 20))
@pytest.mark.parametrize("create_graph", [False, True])
def test_recorded_grad_visits_only_what_reaches_the_inputs_in_the_engines_order(seed, create_graph):
    rng = np.random.default_rng(seed)
    made = random_graph(rng)
    outputs = [made[-1], made[-2]]
    inputs = [made[0], made[1]]
    log = spy_on_backward(outputs)
    with V.record_backward() as steps:
        grads = V.grad(outputs, inputs, create_graph=create_graph, allow_unused=True)
    log = list(log)                                     # (check_pass runs the spied ops again)
    p, = steps.passes
    assert p.kind == "grad" and p.create_graph is create_graph
    assert [s.function for s in p.steps] == log
    assert len({id(f) for f in log}) == len(log)
    check_queue(p)
    check_pass(p, made, outputs, inputs)
    skipped = [f for f in p.functions.values() if not f.visited and f.step == 0]
    assert len(skipped) + len(log) == len(V.graph_functions(outputs))
    finals = {g.label: g for g in p.gradients}
    for x, g in zip(inputs, grads):
        if g is not None:
            np.testing.assert_allclose(finals[x.name].values, g.data, rtol=1e-12)
    for x in made:
        assert x._grad is None                                    # V.grad leaves .grad alone


@pytest.mark.parametrize("seed", range(20, 26))
def test_both_passes_of_a_second_derivative_follow_the_engine(seed):
    rng = np.random.default_rng(seed)
    made = random_graph(rng, n_ops=8)
    x = made[0]
    y = (made[-1] * V.sin(x)).sum()                     # (so that dy/dx depends on x)
    log = spy_on_backward(y)
    with V.record_backward() as steps:
        gx = V.grad(y, x, create_graph=True)
        first_pass = len(log)
        total = gx.sum()
        spy_on_backward(total, log)                     # (and the ops the first pass recorded)
        total.backward()
    first, second = steps.passes
    assert [s.function for s in first.steps] == log[:first_pass]
    assert [s.function for s in second.steps] == log[first_pass:]
    assert first.create_graph and not second.create_graph
    check_queue(first)
    check_queue(second)
    recorded = [i for s in first.steps for i in s.recorded]
    assert len(recorded) == len(set(recorded)) > 0                # each recorded op shown once
    assert all(first.functions[i].step > 0 for i in recorded)
    h = V.grad(V.grad(y, x, create_graph=True).sum(), x)
    finals = {g.label: g for g in second.leaf_gradients}
    np.testing.assert_allclose(finals["n0"].values, h.data, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(finals["n0"].values, x.grad.data, rtol=1e-12, atol=1e-12)


def test_the_random_graphs_have_what_the_tests_above_claim():
    """Repeated inputs, gradients added to others, Slices of a repeated index, dropped outputs."""
    seen = {"added": 0, "same input twice": 0, "GetItem": 0, "Split": 0}
    for seed in range(12):
        made = random_graph(np.random.default_rng(seed))
        with V.record_backward() as steps:
            made[-1].sum().backward()
        for step in steps:
            seen["added"] += sum(a.added for a in step.arrivals)
            inputs = step.function.inputs
            seen["same input twice"] += len(inputs) == 2 and inputs[0] is inputs[1]
            seen[step.function.name] = seen.get(step.function.name, 0) + 1
    assert all(seen[k] > 0 for k in ("added", "same input twice", "GetItem", "Split")), seen


def test_the_queue_after_each_step_is_what_the_next_step_pops():
    x, y = diamond()
    with V.record_backward() as steps:
        y.backward()
    p, = steps.passes
    assert [q.title for q in p.queue] == ["Add->y"]
    assert [s.title for s in steps] == ["Add->y", "Sin->c", "Exp->b", "Square->a"]
    assert [s.generation for s in steps] == [3, 2, 1, 0]
    for step, following in zip(steps, steps[1:]):
        assert step.queue[0].node == following.node               # the head is popped next
    assert [(q.title, q.generation) for q in steps[0].queue] == [("Sin->c", 2), ("Square->a", 0)]
    assert steps[-1].queue == ()
    # a receives 1 from Add, then Exp's contribution is added: shown as a sum at step 3
    first, = [a for a in steps[0].arrivals if a.label == "a"]
    added, = steps[2].arrivals
    assert not first.added and added.added and added.label == "a"
    np.testing.assert_allclose(added.total, first.values + added.values)
    b = np.exp(0.25)
    np.testing.assert_allclose(added.total, np.cos(b) * b + 1)
    assert [(g.label, float(g.values)) for g in p.gradients] == [("x", float(x.grad.data))]


def test_repeated_inputs_and_a_repeated_index_are_sums_within_one_step():
    x = V.Variable(np.array([1.0, 2.0, 3.0]), name="x")
    y = x * x
    y.name = "y"
    z = y[np.array([0, 0, 2])]
    z.name = "z"
    with V.record_backward() as steps:
        z.sum().backward()
    mul = next(s for s in steps if s.function.name == "Mul")
    a0, a1 = mul.arrivals
    assert (a0.position, a0.added, a1.position, a1.added) == (0, False, 1, True)
    np.testing.assert_allclose(a1.total, x.grad.data)
    get_item = next(s for s in steps if s.function.name == "GetItem")
    np.testing.assert_allclose(get_item.arrivals[0].values, [2.0, 0.0, 1.0])   # index 0 twice


def test_a_gradient_too_big_to_show_is_recorded_by_shape():
    x = V.Variable(np.ones((5, 4)), name="x")
    with V.record_backward() as steps:
        V.sin(x).sum().backward()
    sent = steps[-1].arrivals[0]
    assert sent.values is None and sent.shape == (5, 4)
    assert "x <- (5, 4) array" in str(steps)


def test_nothing_is_recorded_outside_the_block_nor_in_another_thread():
    x, y = diamond()
    with V.record_backward() as steps:
        worker = threading.Thread(target=lambda: V.grad(V.sin(x), x))
        worker.start()
        worker.join()                                   # another thread's pass: not ours
    y.backward()                                        # after the block: not recorded
    assert len(steps) == 0 and steps.passes == []
    assert "no backward pass was recorded" in str(steps)


def test_recording_changes_no_gradient_and_the_block_ends_after_an_error():
    x, y = diamond()
    y.backward(create_graph=True)
    expected = x.grad.data.copy()
    x.cleargrad()
    with V.record_backward() as steps:
        y.backward(create_graph=True)
    np.testing.assert_array_equal(x.grad.data, expected)

    class Broken(V.Forwarder):
        def forward(self, x):
            return x

        def backward(self, gy):
            raise ArithmeticError("broken backward")

    with pytest.raises(ArithmeticError), V.record_backward() as steps:
        V.Function(Broken())(V.sin(x)).backward()
    assert len(steps) == 0
    from variable.graph import _observer
    assert _observer.get() is None                       # the observation point is off again


def test_nested_blocks_record_into_the_innermost():
    x, y = diamond()
    with V.record_backward() as outer:
        with V.record_backward() as inner:
            y.backward()
        V.grad(y, x)
    assert len(inner.passes) == 1 and inner.passes[0].kind == "backward"
    assert len(outer.passes) == 1 and outer.passes[0].kind == "grad"


def test_the_recording_is_a_sequence_of_steps():
    x, y = diamond()
    with V.record_backward() as steps:
        y.backward()
    assert isinstance(steps, BackwardRecording)
    assert len(steps) == 4 and list(steps) == steps.steps and steps[0].number == 1
    assert repr(steps) == "<BackwardRecording: 1 pass(es), 4 steps>"


def test_a_backward_on_gpu_data_is_recorded_with_host_copies_of_its_values(gpu, monkeypatch):
    """On a device (the CPU stand-in for CuPy when there is no GPU) the recorded values are
    NumPy copies, and the views draw them."""
    from picture_scenes import without_dot

    without_dot(monkeypatch)
    x = V.Variable(np.array([0.5, -1.0]), name="x").to_gpu()
    y = V.sin(x) * x
    with V.record_backward() as steps:
        y.sum().backward(create_graph=True)
    final, = steps.passes[0].leaf_gradients
    assert type(final.values) is np.ndarray
    np.testing.assert_allclose(final.values, V.backend.to_cpu(x.grad.data))
    assert "x <- [" in str(steps) and "x += [" in str(steps)
    assert "<pre>" in steps._repr_html_()
