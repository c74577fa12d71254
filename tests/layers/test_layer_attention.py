"""MultiheadAttention, and the encoder and decoder layers: forward against a head-by-head NumPy
formula, PyTorch's mask convention, queries that see no key, gradients to second order, dropout,
dtype, refusals, checkpoints."""

import numpy as np
import pytest
from layer_checks import assert_param_grads_match

import function as F
import layers as L
import variable as V
from variable.backend import to_cpu


def np_multihead(layer, query, key, value, seen=None, bias=None):
    """Head by head, query by query: softmax over the keys the query sees (weights 0 when it sees
    none), the weighted sum of the values, then the output projection.  `seen` and `bias` are
    (N, H, L, S).  Returns (output, weights per head)."""
    def project(linear, x):
        return x @ to_cpu(linear.W.data) + to_cpu(linear.b.data)

    q, k, v = project(layer.q_proj, query), project(layer.k_proj, key), project(layer.v_proj, value)
    (n, length, e), source, heads = q.shape, k.shape[1], layer.num_heads
    d = e // heads
    seen = np.ones((n, heads, length, source), bool) if seen is None else seen
    bias = np.zeros((n, heads, length, source)) if bias is None else bias
    weights = np.zeros((n, heads, length, source))
    joined = np.zeros((n, length, e))
    for b, h, i in np.ndindex(n, heads, length):
        part = slice(h * d, (h + 1) * d)
        s = k[b, :, part] @ q[b, i, part] / np.sqrt(d) + bias[b, h, i]
        if seen[b, h, i].any():
            w = np.where(seen[b, h, i], np.exp(s - s[seen[b, h, i]].max()), 0)
            weights[b, h, i] = w / w.sum()
        joined[b, i, part] = weights[b, h, i] @ v[b, :, part]
    return project(layer.out_proj, joined), weights


def test_self_and_cross_attention_match_numpy(rng, on_device):
    layer = L.MultiheadAttention(6, 3, rng=rng)
    x, y = rng.standard_normal((2, 4, 6)), rng.standard_normal((2, 5, 6))
    out, weights = layer(on_device(x))                      # self-attention: key = value = query
    ref, ref_weights = np_multihead(layer, x, x, x)
    np.testing.assert_allclose(to_cpu(out.data), ref, atol=1e-13)
    np.testing.assert_allclose(to_cpu(weights.data), ref_weights.mean(axis=1), atol=1e-14)
    out, weights = layer(on_device(x), on_device(y), on_device(y), average_attn_weights=False)
    ref, ref_weights = np_multihead(layer, x, y, y)
    assert out.shape == (2, 4, 6) and weights.shape == (2, 3, 4, 5)
    np.testing.assert_allclose(to_cpu(out.data), ref, atol=1e-13)
    np.testing.assert_allclose(to_cpu(weights.data), ref_weights, atol=1e-14)


def test_key_and_value_widths_and_one_example(rng, on_device):
    layer = L.MultiheadAttention(4, 2, kdim=3, vdim=5, rng=rng)
    assert layer.k_proj.W.shape == (3, 4) and layer.v_proj.W.shape == (5, 4)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((6, 3)), rng.standard_normal((6, 5))
    out, weights = layer(on_device(q), on_device(k), on_device(v))        # unbatched: (L, E)
    ref, ref_weights = np_multihead(layer, q[None], k[None], v[None])
    assert out.shape == (3, 4) and weights.shape == (3, 6)
    np.testing.assert_allclose(to_cpu(out.data), ref[0], atol=1e-13)
    np.testing.assert_allclose(to_cpu(weights.data), ref_weights[0].mean(axis=0), atol=1e-14)


def test_masks_follow_pytorch_convention_true_is_masked(rng, on_device):
    layer = L.MultiheadAttention(4, 2, rng=rng)
    x = rng.standard_normal((2, 3, 4))
    padding = np.array([[False, False, True], [False, True, False]])      # True: ignore that key
    future = np.triu(np.ones((3, 3), bool), 1)                            # True: may not attend
    seen = ~padding[:, None, None, :] & ~future
    ref, _ = np_multihead(layer, x, x, x, np.broadcast_to(seen, (2, 2, 3, 3)))
    out, weights = layer(on_device(x), key_padding_mask=on_device(padding), attn_mask=on_device(future))
    np.testing.assert_allclose(to_cpu(out.data), ref, atol=1e-13)
    assert np.all(to_cpu(weights.data)[np.broadcast_to(~seen[:, 0], (2, 3, 3))] == 0)
    # is_causal alone builds the same causal mask; a float mask of -inf is the boolean one
    causal, _ = layer(on_device(x), key_padding_mask=on_device(padding), is_causal=True)
    floats, _ = layer(on_device(x), key_padding_mask=on_device(np.where(padding, -np.inf, 0.0)),
                      attn_mask=on_device(np.where(future, -np.inf, 0.0)))
    np.testing.assert_allclose(to_cpu(causal.data), ref, atol=1e-13)
    np.testing.assert_allclose(to_cpu(floats.data), ref, atol=1e-13)
    # PyTorch's per-head form (N * H, L, S), head h of example b at row b * H + h
    per_head = rng.random((4, 3, 3)) < 0.4
    ref, _ = np_multihead(layer, x, x, x, ~per_head.reshape(2, 2, 3, 3))
    out, _ = layer(on_device(x), attn_mask=on_device(per_head))
    np.testing.assert_allclose(to_cpu(out.data), ref, atol=1e-13)


def test_a_masked_key_does_not_reach_the_output(rng, on_device):
    layer = L.MultiheadAttention(4, 1, rng=rng)
    x = rng.standard_normal((1, 3, 4))
    padding = on_device(np.array([[False, True, False]]))
    changed = x.copy()
    changed[0, 1] += 10
    a, _ = layer(on_device(x), key_padding_mask=padding)
    b, _ = layer(on_device(x), on_device(changed), key_padding_mask=padding)
    np.testing.assert_allclose(to_cpu(a.data)[0, [0, 2]], to_cpu(b.data)[0, [0, 2]], atol=1e-13)


def test_a_query_that_sees_no_key_gets_zero_weights_and_finite_gradients(rng, on_device):
    layer = L.MultiheadAttention(4, 2, rng=rng)
    layer.out_proj.b.data = on_device(rng.standard_normal(4))
    x = V.Variable(on_device(rng.standard_normal((1, 3, 4))))
    blind = np.zeros((3, 3), bool)
    blind[1] = True                                   # query 1 may attend to nothing
    out, weights = layer(x, attn_mask=on_device(blind))
    np.testing.assert_array_equal(to_cpu(weights.data)[0, 1], 0)
    np.testing.assert_allclose(to_cpu(out.data)[0, 1], to_cpu(layer.out_proj.b.data), atol=1e-15)
    V.sum(out * out).backward()
    assert np.all(np.isfinite(to_cpu(x.grad.data)))
    assert all(np.all(np.isfinite(to_cpu(p.grad.data))) for p in layer.params())


def test_parameter_and_mask_gradients(rng, on_device):
    layer = L.MultiheadAttention(4, 2, rng=rng)
    x = on_device(rng.standard_normal((2, 3, 4)))
    w = on_device(rng.standard_normal((2, 3, 4)))
    assert_param_grads_match(layer, lambda: V.sum(layer(x)[0] * w))
    # a learned additive bias (relative positions): the float mask is differentiated
    assert V.gradcheck(lambda m: layer(x, attn_mask=m)[0], on_device(rng.standard_normal((3, 3))), order=1)


def test_second_derivatives_of_input(rng):
    layer = L.MultiheadAttention(4, 2, rng=rng)
    padding = np.array([[False, False, True], [False, False, False]])
    assert V.gradcheck(lambda x: layer(x, key_padding_mask=padding)[0], rng.standard_normal((2, 3, 4)),
                       order=2)
    assert V.gradcheck(lambda x, y: layer(x, y, is_causal=True)[1], rng.standard_normal((2, 3, 4)),
                       rng.standard_normal((2, 3, 4)), order=2)


def test_need_weights_false_gives_none(rng, on_device):
    layer = L.MultiheadAttention(4, 2, rng=rng)
    out, weights = layer(on_device(rng.standard_normal((2, 3, 4))), need_weights=False)
    assert weights is None and out.shape == (2, 3, 4)


def test_dropout_drops_weights_in_training_only(rng, on_device):
    L.seed(3)
    layer = L.MultiheadAttention(4, 2, dropout=0.5)
    assert repr(layer).startswith("MultiheadAttention(\n  embed_dim=4, num_heads=2, dropout=0.5\n  (q_proj): "
                                  "Linear(\n")
    x = rng.standard_normal((2, 5, 4))
    _, trained = layer(on_device(x), average_attn_weights=False)
    with V.test_mode():
        out, weights = layer(on_device(x), average_attn_weights=False)
    ref, ref_weights = np_multihead(layer, x, x, x)
    trained = to_cpu(trained.data)
    kept = trained != 0
    assert 0.2 < np.mean(kept) < 0.8                         # dropped, the rest scaled by 2
    np.testing.assert_allclose(trained[kept], 2 * ref_weights[kept], rtol=1e-13)
    np.testing.assert_allclose(to_cpu(out.data), ref, atol=1e-13)
    np.testing.assert_allclose(to_cpu(weights.data), ref_weights, atol=1e-14)


def test_float32_inputs_make_a_float32_layer(rng, on_device):
    layer = L.MultiheadAttention(4, 2)
    mask = np.where(np.tri(3, dtype=bool), 0.0, -np.inf)     # float64, as PyTorch users build it
    out, weights = layer(on_device(rng.standard_normal((2, 3, 4)).astype(np.float32)),
                         attn_mask=on_device(mask))
    assert out.dtype == weights.dtype == np.float32 and layer.q_proj.W.dtype == np.float32


def test_checkpoint_round_trip(rng, tmp_path, on_device):
    layer = L.MultiheadAttention(4, 2, kdim=3, vdim=3)          # (value is key when not given)
    x, y = on_device(rng.standard_normal((2, 3, 4))), on_device(rng.standard_normal((2, 5, 3)))
    layer.save_weights(tmp_path / "mha.npz")
    other = L.MultiheadAttention(4, 2, kdim=3, vdim=3)
    other.load_weights(tmp_path / "mha.npz")
    np.testing.assert_array_equal(to_cpu(other(x, y)[0].data), to_cpu(layer(x, y)[0].data))


@pytest.mark.parametrize("make, message", [
    (lambda: L.MultiheadAttention(6, 4), r"num_heads=4 must divide embed_dim=6"),
    (lambda: L.MultiheadAttention(0, 1), r"embed_dim must be a positive int"),
    (lambda: L.MultiheadAttention(4, 2, dropout=1.0), r"dropout must be in \[0, 1\)"),
])
def test_bad_settings_are_refused(make, message):
    with pytest.raises(ValueError, match=r"MultiheadAttention: " + message):
        make()


@pytest.mark.parametrize("keyword, fix", [
    ("batch_first", r"batch first always.*x\.transpose\(1, 0, 2\)"),
    ("bias", r"nobias=True"),
    ("add_bias_kv", r"no learned bias key"),
])
def test_pytorch_keywords_name_the_fix(keyword, fix):
    with pytest.raises(TypeError, match=rf"MultiheadAttention\(\) got an unexpected keyword argument "
                                        rf"'{keyword}'.*{fix}"):
        L.MultiheadAttention(4, 2, **{keyword: False})


@pytest.mark.parametrize("call, error, message", [
    (lambda m: m(np.ones((2, 3, 5))), ValueError,
     r"query of shape \(2, 3, 5\) has 5 features on its last axis, but the layer takes 4"),
    (lambda m: m(np.ones((2, 3, 4)), np.ones((3, 3, 4))), ValueError,
     r"key and value must have the query's batch size"),
    (lambda m: m(np.ones((2, 3, 4)), np.ones((3, 4))), ValueError, r"query, key and value must be all 3-d"),
    (lambda m: m(np.ones((2, 3, 4)), np.ones((2, 5, 4)), np.ones((2, 4, 4))), ValueError,
     r"key and value must have .* the same sequence length"),
    (lambda m: m(np.ones((2, 3, 4)), attn_mask=np.ones((3, 4), bool)), ValueError,
     r"attn_mask of shape \(3, 4\) does not broadcast to the scores' shape \(2, 2, 3, 3\)"),
    (lambda m: m(np.ones((2, 3, 4)), attn_mask=np.ones((2, 3, 3), bool)), ValueError,
     r"attn_mask must be \(L, S\) = \(3, 3\) or \(N \* num_heads, L, S\) = \(4, 3, 3\)"),
    (lambda m: m(np.ones((2, 3, 4)), key_padding_mask=np.ones((3, 2), bool)), ValueError,
     r"key_padding_mask must be \(N, S\) = \(2, 3\)"),
    (lambda m: m(np.ones((2, 3, 4)), key_padding_mask=np.ones((2, 3), int)), TypeError,
     r"key_padding_mask must be boolean .* or floating .*, got dtype int"),
])
def test_bad_calls_name_the_shapes(call, error, message, on_device):
    layer = L.MultiheadAttention(4, 2)
    with pytest.raises(error, match=r"MultiheadAttention: " + message):
        call(lambda *arrays, **masks: layer(*on_device(arrays), **{k: on_device(m) for k, m in
                                                                   masks.items()}))


def test_using_the_pair_as_one_output_names_the_unpacking(on_device):
    layer = L.MultiheadAttention(4, 2)
    with pytest.raises(TypeError, match=r"Linear: got a tuple holding Variables.*unpack it first, out, "
                                        r"weights = layer\(x\)"):
        L.Linear(3)(layer(on_device(np.ones((2, 3, 4)))))


def test_pytorch_weights_load_as_the_hint_says(rng, on_device):
    """in_proj_weight (3E, E) rows [0:E], [E:2E], [2E:3E] transposed are q_proj.W, k_proj.W and
    v_proj.W; V.concat([...], axis=1).T gives it back, as in_proj_weight's hint says."""
    layer = L.MultiheadAttention(4, 2)
    in_proj_weight, in_proj_bias = rng.standard_normal((12, 4)), rng.standard_normal(12)
    for k, linear in enumerate((layer.q_proj, layer.k_proj, layer.v_proj)):
        linear.W.data[...] = on_device(in_proj_weight[4 * k:4 * (k + 1)].T)
        linear.b.data[...] = on_device(in_proj_bias[4 * k:4 * (k + 1)])
    joined = V.concat([layer.q_proj.W, layer.k_proj.W, layer.v_proj.W], axis=1).T
    np.testing.assert_array_equal(to_cpu(joined.data), in_proj_weight)
    x = rng.standard_normal((3, 4))
    q = x @ in_proj_weight[:4].T + in_proj_bias[:4]                  # PyTorch's F.linear(x, W_q, b_q)
    np.testing.assert_allclose(to_cpu(layer.q_proj(on_device(x)).data), q, rtol=1e-14)
    with pytest.raises(AttributeError, match=r"V\.concat\(\[q_proj\.W, k_proj\.W, v_proj\.W\], axis=1\)\.T"):
        _ = layer.in_proj_weight


def test_masks_given_as_lists_are_made_where_the_data_is(rng, on_device):
    q = on_device(rng.standard_normal((2, 3, 4)))
    keep = [[True, False, True], [True, True, False], [False, False, False]]
    out = F.scaled_dot_product_attention(q, q, q, keep)
    same = F.scaled_dot_product_attention(q, q, q, on_device(np.array(keep)))
    np.testing.assert_array_equal(to_cpu(out.data), to_cpu(same.data))
    np.testing.assert_array_equal(to_cpu(out.data)[:, 2], 0)          # the query that sees nothing
    scores = [[0.0, -np.inf, 0.5]] * 3
    out = F.scaled_dot_product_attention(q, q, q, scores)
    same = F.scaled_dot_product_attention(q, q, q, on_device(np.array(scores)))
    np.testing.assert_array_equal(to_cpu(out.data), to_cpu(same.data))
    layer = L.MultiheadAttention(4, 2)
    out, _ = layer(q, key_padding_mask=[[False, False, True], [False, True, True]])
    same, _ = layer(q, key_padding_mask=on_device(np.array([[False, False, True], [False, True, True]])))
    np.testing.assert_array_equal(to_cpu(out.data), to_cpu(same.data))


def np_layer_norm(x, layer):
    mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + layer.eps) * to_cpu(layer.gamma.data) + to_cpu(layer.beta.data)


def np_blocks(layer, x, *blocks):
    """A transformer layer's blocks written out, the last its ReLU network: each added to its
    input, normalised (norm1, norm2, ...) after it (post-norm) or before it (pre-norm)."""
    def feed_forward(h):
        hidden = np.maximum(h @ to_cpu(layer.linear1.W.data) + to_cpu(layer.linear1.b.data), 0)
        return hidden @ to_cpu(layer.linear2.W.data) + to_cpu(layer.linear2.b.data)

    for k, block in enumerate((*blocks, feed_forward), start=1):
        norm = getattr(layer, f"norm{k}")
        x = x + block(np_layer_norm(x, norm)) if layer.norm_first else np_layer_norm(x + block(x), norm)
    return x


def np_encoder_layer(layer, x, seen=None):
    """PyTorch's encoder layer written out: attention and a ReLU network."""
    return np_blocks(layer, x, lambda h: np_multihead(layer.self_attn, h, h, h, seen)[0])


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_numpy_post_and_pre_norm(norm_first, rng, on_device):
    layer = L.TransformerEncoderLayer(6, 2, 10, dropout=0.0, norm_first=norm_first, rng=rng)
    for norm in (layer.norm1, layer.norm2):
        norm.gamma.data = on_device(rng.uniform(0.5, 1.5, 6))
        norm.beta.data = on_device(rng.standard_normal(6))
    x = rng.standard_normal((2, 4, 6))
    padding = np.array([[False, False, False, True], [False, False, False, False]])
    causal = np.tri(4, dtype=bool)
    y = layer(on_device(x), src_key_padding_mask=on_device(padding), is_causal=True)
    seen = np.broadcast_to(~padding[:, None, None, :] & causal, (2, 2, 4, 4))
    np.testing.assert_allclose(to_cpu(y.data), np_encoder_layer(layer, x, seen), atol=1e-12)
    assert isinstance(y, V.Variable) and y.shape == x.shape           # one output: Sequential takes it
    w = on_device(rng.standard_normal(x.shape))
    assert_param_grads_match(layer, lambda: V.sum(layer(on_device(x)) * w))


def test_encoder_layer_dropout_is_off_in_test_mode_and_stacks_in_sequential(rng, on_device):
    L.seed(0)
    stack = L.Sequential(L.TransformerEncoderLayer(4, 2, 8, activation="gelu"),
                         L.TransformerEncoderLayer(4, 1, 8, activation=F.silu, norm_first=True))
    x = on_device(rng.standard_normal((3, 5, 4)))
    with V.test_mode():
        a, b = stack(x), stack(x)
    np.testing.assert_array_equal(to_cpu(a.data), to_cpu(b.data))
    assert not np.allclose(to_cpu(stack(x).data), to_cpu(a.data))      # dropout 0.1 on by default
    assert repr(stack).count("TransformerEncoderLayer(") == 2 and "self_attn" in repr(stack)
    lines = repr(stack).splitlines()
    assert lines[2] == "    d_model=4, nhead=2, dim_feedforward=8, dropout=0.1, activation='gelu'"
    assert ("    d_model=4, nhead=1, dim_feedforward=8, dropout=0.1, activation='swish', norm_first=True"
            in lines)


@pytest.mark.parametrize("name", ["TransformerEncoderLayer", "TransformerDecoderLayer"])
@pytest.mark.parametrize("kwargs, error, message", [
    ({"batch_first": True}, TypeError,
     r"{name}\(\) got an unexpected keyword argument 'batch_first'.*batch first always"),
    ({"nhead": 3}, ValueError, r"MultiheadAttention: num_heads=3 must divide embed_dim=8"),
    ({"activation": "tanh"}, TypeError,
     r"{name}: activation must be 'relu', 'gelu' or a function such as F\.gelu, got 'tanh'"),
    ({"dim_feedforward": 0}, ValueError, r"{name}: dim_feedforward must be a positive int"),
])
def test_encoder_and_decoder_layer_refusals_name_the_fix(name, kwargs, error, message):
    with pytest.raises(error, match=message.format(name=name)):
        getattr(L, name)(**{"d_model": 8, "nhead": 2, **kwargs})


def np_decoder_layer(layer, x, memory, seen_self=None, seen_memory=None):
    """PyTorch's decoder layer written out: self-attention, attention to the memory and a ReLU
    network."""
    return np_blocks(layer, x, lambda h: np_multihead(layer.self_attn, h, h, h, seen_self)[0],
                     lambda h: np_multihead(layer.multihead_attn, h, memory, memory, seen_memory)[0])


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_numpy_post_and_pre_norm(norm_first, rng, on_device):
    layer = L.TransformerDecoderLayer(6, 2, 10, dropout=0.0, norm_first=norm_first, rng=rng)
    for norm in (layer.norm1, layer.norm2, layer.norm3):
        norm.gamma.data = on_device(rng.uniform(0.5, 1.5, 6))
        norm.beta.data = on_device(rng.standard_normal(6))
    x, memory = rng.standard_normal((2, 4, 6)), rng.standard_normal((2, 5, 6))
    target_padding = np.array([[False, False, False, True], [False, False, False, False]])
    memory_padding = np.array([[False, False, True, True, False], [False, False, False, False, False]])
    y = layer(on_device(x), on_device(memory), tgt_key_padding_mask=on_device(target_padding),
              memory_key_padding_mask=on_device(memory_padding), tgt_is_causal=True)
    seen_self = np.broadcast_to(~target_padding[:, None, None, :] & np.tri(4, dtype=bool), (2, 2, 4, 4))
    seen_memory = np.broadcast_to(~memory_padding[:, None, None, :], (2, 2, 4, 5))
    np.testing.assert_allclose(to_cpu(y.data), np_decoder_layer(layer, x, memory, seen_self, seen_memory),
                               atol=1e-12)
    assert isinstance(y, V.Variable) and y.shape == x.shape
    w = on_device(rng.standard_normal(x.shape))
    assert_param_grads_match(layer, lambda: V.sum(layer(on_device(x), on_device(memory)) * w))
    assert V.gradcheck(lambda t, m: V.tanh(layer(t, m)), on_device(x[:1]), on_device(memory[:1]), order=2)


def test_decoder_layer_reads_one_example_and_keeps_the_encoders_conventions(rng, on_device):
    L.seed(0)
    encoder = L.TransformerEncoderLayer(4, 2, 8)
    decoder = L.TransformerDecoderLayer(4, 2, 8, activation="gelu", norm_first=True)
    source, target = on_device(rng.standard_normal((5, 4))), on_device(rng.standard_normal((3, 4)))
    with V.test_mode():                                                # dropout off: deterministic
        memory = encoder(source)
        one = decoder(target, memory, tgt_is_causal=True)
        batched = decoder(target[None], memory[None], tgt_is_causal=True)
    assert one.shape == (3, 4)
    np.testing.assert_allclose(to_cpu(one.data), to_cpu(batched.data)[0], rtol=1e-13)
    first = decoder(target, memory, tgt_is_causal=True)                # dropout 0.1 on in training
    assert not np.allclose(to_cpu(first.data), to_cpu(one.data))
    assert repr(decoder).splitlines()[1] == (
        "  d_model=4, nhead=2, dim_feedforward=8, dropout=0.1, activation='gelu', norm_first=True")
    names = [path for path, _ in decoder.named_params()]
    assert {path.split("/")[0] for path in names} == {"self_attn", "multihead_attn", "linear1", "linear2",
                                                      "norm1", "norm2", "norm3"}


@pytest.mark.parametrize("shapes, error, message", [
    (((2, 3, 8),), TypeError, r"memory"),
    (((2, 3, 8), (2, 4, 6)), ValueError,
     r"MultiheadAttention: key of shape \(2, 4, 6\) has 6 features on its last axis, but the layer takes 8"),
    (((2, 3, 8), (3, 4, 8)), ValueError,
     r"MultiheadAttention: key and value must have the query's batch size"),
])
def test_decoder_layer_calls_that_do_not_fit_name_the_shapes(shapes, error, message, on_device):
    layer = L.TransformerDecoderLayer(8, 2)
    with pytest.raises(error, match=message):
        layer(*(on_device(np.ones(shape)) for shape in shapes))


def test_a_mask_that_does_not_fit_is_named_as_the_layer_calls_it(on_device):
    decoder, encoder = L.TransformerDecoderLayer(8, 2), L.TransformerEncoderLayer(8, 2)
    target, memory = on_device(np.ones((2, 5, 8))), on_device(np.ones((2, 7, 8)))
    with pytest.raises(ValueError, match=r"TransformerDecoderLayer, its self-attention \(where tgt_mask is "
                                         r"attn_mask and tgt_key_padding_mask key_padding_mask\): "
                                         r"MultiheadAttention: key_padding_mask must be \(N, S\) = \(2, 5\)"):
        decoder(target, memory, tgt_key_padding_mask=on_device(np.zeros((2, 7), bool)))
    with pytest.raises(ValueError, match=r"TransformerDecoderLayer, its attention to the memory \(where "
                                         r"memory_mask is attn_mask .*attn_mask of shape \(7, 5\)"):
        decoder(target, memory, memory_mask=on_device(np.zeros((7, 5), bool)))
    with pytest.raises(ValueError, match=r"TransformerEncoderLayer, its self-attention \(where src_mask is "
                                         r"attn_mask"):
        encoder(memory, src_mask=on_device(np.zeros((5, 5), bool)))
