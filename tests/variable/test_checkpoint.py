"""V.checkpoint and V.checkpoint_sequential: the same gradients as the block run plainly (to
any order, through V.grad, with dropout and batch norm), less memory, and the slips that
would make the second run differ refused."""

import gc
import tracemalloc

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def _block(W, b):
    def block(h):
        return V.tanh(h @ W + b)
    return block


def _params(rng, n=3, width=5):
    return [(V.Variable(rng.normal(size=(width, width)) / 2), V.Variable(rng.normal(size=width)))
            for _ in range(n)]


def _chain(x, params, cut):
    """The blocks of `params` one after another on x, each checkpointed when `cut`."""
    h = x
    for W, b in params:
        h = V.checkpoint(_block(W, b), h) if cut else _block(W, b)(h)
    return h


def test_gradients_and_values_equal_the_plain_block(rng):
    x = V.Variable(rng.normal(size=(4, 5)))
    params = _params(rng)
    grads = []
    for cut in (False, True):
        loss = (_chain(x, params, cut) ** 2).sum()
        leaves = [x, *[p for pair in params for p in pair]]
        for v in leaves:
            v.cleargrad()
        loss.backward()
        grads.append((loss.data, [v.grad.data for v in leaves]))
    (plain, plain_grads), (cut, cut_grads) = grads
    np.testing.assert_allclose(cut, plain, rtol=1e-14)
    for a, b in zip(cut_grads, plain_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_float32_stays_float32(rng):
    x = V.Variable(rng.normal(size=(4, 5)).astype(np.float32))
    W = V.Variable(rng.normal(size=(5, 5)).astype(np.float32))
    y = V.checkpoint(lambda h: V.tanh(h @ W), x)
    y.sum().backward()
    assert y.dtype == np.float32 and W.grad.dtype == np.float32 and x.grad.dtype == np.float32
    np.testing.assert_allclose(W.grad.data, V.grad(V.tanh(x @ W).sum(), W).data, rtol=1e-6)


def test_the_graph_keeps_one_node_per_block(rng):
    x = V.Variable(rng.normal(size=(4, 5)))
    (W, b), = _params(rng, 1)
    y = V.checkpoint(_block(W, b), x)
    assert y.creator.name == "Checkpoint"
    assert [f.name for f in V.graph_functions(y)] == ["Checkpoint"]
    assert {id(v) for v in y.creator.inputs} == {id(x), id(W), id(b)}
    assert "Checkpoint" in V.get_dot_graph(y)


@pytest.mark.parametrize("order", [2, 3])
def test_gradcheck_through_a_checkpoint(rng, order):
    (W, b), = _params(rng, 1, width=3)

    def f(x):
        return (V.checkpoint(_block(W, b), x) * V.sin(x)).sum()

    assert V.gradcheck(f, rng.normal(size=(2, 3)), order=order)


def test_second_order_through_checkpoints_equals_plain(rng):
    x = V.Variable(rng.normal(size=(4, 5)))
    params = _params(rng)
    result = []
    for cut in (False, True):
        gx = V.grad((_chain(x, params, cut) ** 3).sum(), x, create_graph=True)     # a gradient penalty
        penalty = (gx ** 2).sum()
        result.append(V.grad(penalty, [x, *params[0]]))
    for a, b in zip(*result):
        np.testing.assert_allclose(a.data, b.data, rtol=1e-11, atol=1e-14)


def test_grad_leaves_dot_grad_untouched_and_takes_intermediate_inputs(rng):
    x = V.Variable(rng.normal(size=(4, 5)))
    (W1, b1), (W2, b2) = _params(rng, 2)
    h = _block(W1, b1)(x)                          # an intermediate as the block's argument
    y = V.checkpoint(_block(W2, b2), h)
    gh, gW2 = V.grad(y.sum(), [h, W2])
    plain_gh, plain_gW2 = V.grad(_block(W2, b2)(h).sum(), [h, W2])
    np.testing.assert_allclose(gh.data, plain_gh.data, rtol=1e-13)
    np.testing.assert_allclose(gW2.data, plain_gW2.data, rtol=1e-13)
    assert W2.grad is None and x.grad is None
    gx = V.grad(y.sum(), x)
    np.testing.assert_allclose(gx.data, V.grad(_block(W2, b2)(_block(W1, b1)(x)).sum(), x).data,
                               rtol=1e-13)


def test_a_closed_over_intermediate_gets_its_gradient(rng):
    x = V.Variable(rng.normal(size=(3, 4)))
    W = V.Variable(rng.normal(size=(4, 4)))
    scale = V.exp(W) / 2                     # made outside the block, read inside it

    def block(h):
        return V.sin(h @ scale)

    for cut in (True, False):
        W.cleargrad()
        x.cleargrad()
        y = V.checkpoint(block, x) if cut else block(x)
        (y * y).sum().backward()
        if cut:
            got = W.grad.data, x.grad.data
    np.testing.assert_allclose(got[0], W.grad.data, rtol=1e-13)
    np.testing.assert_allclose(got[1], x.grad.data, rtol=1e-13)


def test_training_with_dropout_is_bit_for_bit_the_plain_run(rng):
    x = rng.normal(size=(16, 4))
    t = rng.integers(0, 3, size=16)
    runs = []
    for segments in (None, 3):
        L.seed(1)
        model = L.Sequential(*[m for _ in range(4) for m in (L.Linear(8), F.relu, L.Dropout(0.3))],
                             L.Linear(3))
        opt = O.SGD(lr=0.1).setup(model)
        losses = []
        for _ in range(3):
            y = model(x) if segments is None else V.checkpoint_sequential(model, segments, x)
            loss = F.softmax_cross_entropy(y, t)
            model.cleargrads()
            loss.backward()
            opt.update()
            losses.append(float(loss.data))
        runs.append((losses, [p.data.copy() for p in model.params()], np.random.random()))
    (plain, plain_params, plain_next), (cut, cut_params, cut_next) = runs
    assert cut == plain
    assert all(np.array_equal(a, b) for a, b in zip(cut_params, plain_params))
    assert cut_next == plain_next            # the global stream continues as without checkpoints


def test_batch_norm_running_statistics_are_updated_once(rng):
    x = rng.normal(size=(8, 3))
    stats = []
    for cut in (False, True):
        L.seed(0)
        model = L.Sequential(L.Linear(4), L.BatchNorm(), F.tanh, L.Linear(2))
        y = V.checkpoint(model, x) if cut else model(x)
        y.sum().backward()
        stats.append((model[1].avg_mean.copy(), model[1].avg_var.copy(), model[0].W.grad.data))
    for a, b in zip(*stats):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_test_mode_is_replayed_in_backward(rng):
    L.seed(0)
    model = L.Sequential(L.Linear(6), L.Dropout(0.5), F.tanh, L.Linear(1))
    x = rng.normal(size=(5, 3))
    with V.test_mode():
        y = V.checkpoint(model, x)
        plain = model(x)
    y.sum().backward()                     # backward outside test_mode: dropout stays off
    g = model[0].W.grad.data.copy()
    model.cleargrads()
    plain.sum().backward()
    np.testing.assert_allclose(g, model[0].W.grad.data, rtol=1e-13)


def test_memory_drops_with_segments():
    rng = np.random.default_rng(0)
    depth, width = 64, 64
    weights = [V.Variable(rng.normal(size=(width, width)) / 8) for _ in range(depth)]
    x = rng.normal(size=(512, width))
    chain = [lambda h, W=W: V.tanh(h @ W) for W in weights]

    def kept_after_forward(segments):
        gc.collect()
        V.empty_cache()
        tracemalloc.start()
        try:
            y = V.checkpoint_sequential(chain, segments, x) if segments else V.tanh(x)
            if not segments:
                for f in chain:
                    y = f(y)
            held = tracemalloc.get_traced_memory()[0]
            y.sum().backward()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        for W in weights:
            W.cleargrad()
        return held, peak

    plain_held, plain_peak = kept_after_forward(None)
    held, peak = kept_after_forward(8)
    activation = 512 * width * 8
    assert plain_held > 63 * activation        # every tanh output kept: 64
    assert held < 18 * activation              # 7 boundaries and the last segment's 8 (+ 1)
    assert peak < 0.6 * plain_peak             # and in backward, one segment's graph more


def test_forward_mode_runs_the_block_plainly(rng):
    (W, b), = _params(rng, 1, width=3)

    def f(x):
        return V.checkpoint(_block(W, b), x)

    x = rng.normal(size=(2, 3))
    v = rng.normal(size=(2, 3))
    got = V.taylor(f, x, v, 3)
    want = V.taylor(_block(W, b), x, v, 3)
    for a, b_ in zip(got, want):
        np.testing.assert_allclose(V.as_variable(a).data, V.as_variable(b_).data, rtol=1e-13)
    lap = V.laplacian(lambda p: V.checkpoint(lambda q: V.sin(q).sum(axis=-1), p), x)
    np.testing.assert_allclose(lap.data, -np.sin(x).sum(axis=-1), rtol=1e-13)


def test_no_grad_and_constants_run_the_block_plainly(rng):
    (W, b), = _params(rng, 1)
    with V.no_grad():
        y = V.checkpoint(_block(W, b), rng.normal(size=(2, 5)))
    assert y.creator is None
    c = V.checkpoint(lambda a: V.sin(a), V.Variable(np.ones(3), requires_grad=False))
    assert c.creator is None and not c.requires_grad


def test_nested_checkpoints(rng):
    x = V.Variable(rng.normal(size=(3, 5)))
    params = _params(rng, 2)

    def outer(h):
        h = V.checkpoint(_block(*params[0]), h)
        return V.checkpoint(_block(*params[1]), h) * 2

    y = V.checkpoint(outer, x)
    g = V.grad((y ** 2).sum(), [x, *params[1]])
    plain = V.grad((outer(x) ** 2).sum(), [x, *params[1]])
    for a, b in zip(g, plain):
        np.testing.assert_allclose(a.data, b.data, rtol=1e-13)


def test_several_outputs_and_outputs_without_graph(rng):
    x = V.Variable(rng.normal(size=(3, 4)))

    def block(h):
        return V.sin(h), h, V.sin(V.as_variable(np.ones(2))), V.cos(h) * 3

    s, same, constant, c = V.checkpoint(block, x)
    assert same is x and constant.creator is None
    assert s.creator is c.creator and s.creator.name == "Checkpoint"
    (s * c).sum().backward()
    np.testing.assert_allclose(x.grad.data, 3 * np.cos(2 * x.data), rtol=1e-13)
    out = V.checkpoint(lambda h: [V.exp(h)], x)
    assert type(out) is list and out[0].creator.name == "Checkpoint"


def test_arguments_that_are_not_variables_are_passed_as_given(rng):
    x = V.Variable(rng.normal(size=(3, 4)))
    y = V.checkpoint(lambda h, k, axis=0: V.sum(h ** k, axis=axis), x, 3, axis=1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, 3 * x.data ** 2, rtol=1e-14)


def test_pytorch_keywords(rng):
    x = V.Variable(rng.normal(size=3))
    y = V.checkpoint(V.sin, x, use_reentrant=False, preserve_rng_state=True)
    assert y.creator.name == "Checkpoint"
    with pytest.raises(TypeError, match=r"checkpoint\(\) got PyTorch's keyword argument determinism_check"):
        V.checkpoint(V.sin, x, determinism_check="none")


# ----- slips ----------------------------------------------------------------------------------
def test_a_lambda_made_in_a_loop_is_refused_in_backward(rng):
    h = V.Variable(rng.normal(size=(2, 3)))
    weights = [V.Variable(rng.normal(size=(3, 3))) for _ in range(3)]
    for W in weights:
        h = V.checkpoint(lambda a: V.tanh(a @ W), h)      # noqa: B023 (the slip itself)
    with pytest.raises(ValueError, match=r"read other Variables .* on its second run.*lambda x, w=w"):
        h.sum().backward()


def test_a_new_leaf_made_inside_the_block_is_refused(rng):
    x = V.Variable(rng.normal(size=3))
    y = V.checkpoint(lambda a: a * V.Variable(np.array(2.0)), x)
    with pytest.raises(ValueError, match=r"a new V\.Variable made in the block.*plain array"):
        y.sum().backward()
    z = V.checkpoint(lambda a: a * V.Variable(np.array(2.0), requires_grad=False), x)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 2.0, 2.0])


def test_a_stateful_recurrent_layer_is_refused(rng):
    L.seed(0)
    rnn = L.RNN(4)
    x = V.Variable(rng.normal(size=(2, 3)))
    rnn(x)                                   # built, and its state set
    y = V.checkpoint(rnn, x)
    with pytest.raises(ValueError, match=r"checkpoint\(RNN"):
        y.sum().backward()


def test_changed_data_is_refused(rng):
    x = V.Variable(rng.normal(size=(40, 4)))
    (W, b), = _params(rng, 1, width=4)
    h = x * 2
    y = V.checkpoint(_block(W, b), h)
    h.data = np.zeros((40, 4))
    with pytest.raises(ValueError, match=r"an input of Checkpoint, was assigned after"):
        y.sum().backward()
    y = V.checkpoint(_block(W, b), x)
    W.data = W.data * 2
    with pytest.raises(ValueError, match=r"assigned after Checkpoint was recorded"):
        y.sum().backward()


def test_a_block_that_returns_nothing_or_a_dict_is_refused(rng):
    x = V.Variable(rng.normal(size=3))

    def forgot(a):
        V.sin(a)

    with pytest.raises(TypeError, match=r"checkpoint: forgot returned None: did it forget `return`"):
        V.checkpoint(forgot, x)
    with pytest.raises(TypeError, match=r"returned a dict; .*tuple\(d\.values\(\)\)"):
        V.checkpoint(lambda a: {"y": V.sin(a)}, x)
    with pytest.raises(TypeError, match=r"fn is a Variable, a block's result .* V\.checkpoint\(block, x\)"):
        V.checkpoint(V.sin(x))
    with pytest.raises(TypeError, match=r"fn must be callable .* got str; write V\.checkpoint\(fn, x\)"):
        V.checkpoint("sin", x)


def test_checkpoint_sequential_segments():
    x = V.Variable(np.linspace(-1, 1, 6))
    chain = [V.sin, V.tanh, V.exp, V.cos]
    plain = x
    for f in chain:
        plain = f(plain)
    for segments in (1, 2, 3, 4):
        y = V.checkpoint_sequential(chain, segments, x)
        np.testing.assert_array_equal(y.data, plain.data)
        names = [f.name for f in V.graph_functions(y)]
        assert names.count("Checkpoint") == segments - 1
        np.testing.assert_allclose(V.grad(y.sum(), x).data, V.grad(plain.sum(), x).data, rtol=1e-14)
    with pytest.raises(ValueError, match=r"segments must be between 1 and the number of functions "
                                         r"\(4\), got 5"):
        V.checkpoint_sequential(chain, 5, x)
    with pytest.raises(TypeError, match=r"segments must be an int, got Variable; the call is "
                                        r"checkpoint_sequential\(functions, segments, input\)"):
        V.checkpoint_sequential(chain, x, 2)
    with pytest.raises(TypeError, match=r"functions must be a Sequential, or a list of layers.*got MLP; a "
                                        r"model that is not a sequence is checkpointed whole"):
        V.checkpoint_sequential(L.MLP((3, 2)), 1, x)


def test_on_the_device_dropout_is_replayed(gpu, rng):
    L.seed(3)
    model = L.Sequential(L.Linear(6), L.Dropout(0.5), F.tanh, L.Linear(1)).to_gpu()
    x = V.Variable(rng.normal(size=(5, 3))).to_gpu()
    y = V.checkpoint(lambda: model(x))        # (the block's device draws found without arguments)
    y.sum().backward()
    g = V.backend.to_cpu(model[0].W.grad.data)
    assert np.isfinite(g).all() and (g != 0).any()
    keys = y.creator.forwarder
    # the same seed gives the block the same masks: the plain run under that generator agrees
    random = gpu.random
    previous = random.get_random_state()
    random.set_random_state(random.RandomState(keys.state.device_seed))
    try:
        plain = model(x)
    finally:
        random.set_random_state(previous)
    np.testing.assert_array_equal(V.backend.to_cpu(plain.data), V.backend.to_cpu(y.data))
    model.cleargrads()
    plain.sum().backward()
    np.testing.assert_allclose(V.backend.to_cpu(model[0].W.grad.data), g, rtol=1e-13)


def test_a_recorded_backward_shows_the_recompute_as_a_pass_inside_the_step():
    x = V.Variable(np.ones(3), name="x")
    y = V.checkpoint(lambda a: V.sin(a) * 2, x)
    with V.record_backward() as steps:
        (y ** 2).sum().backward()
    outer, inner = steps.passes
    assert [s.title for s in outer.steps] == ["Sum->v4", "Pow->v3", "Checkpoint->v2"]
    assert inner.inside == (1, 3) and [s.title.split("->")[0] for s in inner.steps] == ["Mul", "Sin"]
    np.testing.assert_allclose(outer.leaf_gradients[0].values, 4 * np.sin(1) * np.cos(1) * 2)
    assert "pass 2: a pass inside pass 1's step 3 (its Function's backward)" in str(steps)
    assert "2: grad, inside pass 1's step 3, create_graph=False" in steps._repr_html_()   # the page


def test_forward_mode_through_a_checkpoint_recorded_before(rng):
    x = V.Variable(rng.normal(size=(2, 3)))
    (W, b), = _params(rng, 1, width=3)
    block = _block(W, b)
    v = rng.normal(size=(2, 3))

    def pair(a):
        return V.sin(a), V.exp(a) @ W
    for f in (block, pair):
        y = V.checkpoint(f, x)                      # recorded outside the function given to taylor
        plain = f(x)
        ys, plains = (y, plain) if isinstance(y, tuple) else ((y,), (plain,))
        for yi, pi in zip(ys, plains):
            got = V.taylor(lambda _, yi=yi: yi * 2, x, v, 4)
            want = V.taylor(lambda _, pi=pi: pi * 2, x, v, 4)
            for a, c in zip(got, want):
                np.testing.assert_allclose(a.data, c.data, rtol=1e-12, atol=1e-14)
    s, w2 = V.checkpoint(lambda a: (V.sin(a), W * 2), x)     # w2: constant along x + t v
    value, tangent = V.jvp(lambda _: w2 + V.sum(s), x, v)
    np.testing.assert_allclose(tangent.data, np.full((3, 3), np.sum(np.cos(x.data) * v)), rtol=1e-13)
