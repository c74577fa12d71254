"""RNN, LSTM and GRU: step-by-step forward against NumPy, state handling, BPTT gradients."""

import numpy as np
import pytest
from layer_checks import assert_param_grads_match, substituted

import layers as L
import variable as V
from variable.backend import to_cpu


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _rnn_by_hand(layer, xs):
    Wx, b, Wh = (to_cpu(p.data) for p in (layer.x2h.W, layer.x2h.b, layer.h2h.W))
    h = np.zeros((xs[0].shape[0], Wh.shape[0]))
    out = []
    for x in xs:
        h = np.tanh(x @ Wx + b + h @ Wh)             # h_t = tanh(x W_x + b + h_{t-1} W_h)
        out.append(h)
    return out


def _lstm_by_hand(layer, xs):
    Wx, b, Wh = (to_cpu(p.data) for p in (layer.x2h.W, layer.x2h.b, layer.h2h.W))
    n = Wh.shape[0]
    h = np.zeros((xs[0].shape[0], n))
    c = np.zeros_like(h)
    out = []
    for x in xs:
        z = x @ Wx + b + h @ Wh
        i, f, o, g = (z[:, k * n:(k + 1) * n] for k in range(4))
        i, f, o, g = _sigmoid(i), _sigmoid(f), _sigmoid(o), np.tanh(g)
        c = f * c + i * g
        h = o * np.tanh(c)
        out.append(h)
    return out


def _gru_by_hand(layer, xs):
    Wx, bx, Wh, bh = (to_cpu(p.data) for p in (layer.x2h.W, layer.x2h.b, layer.h2h.W, layer.h2h.b))
    n = Wh.shape[0]
    h = np.zeros((xs[0].shape[0], n))
    out = []
    for x in xs:
        a, u = x @ Wx + bx, h @ Wh + bh                   # h_0 = 0 too: u = b_h at the first step
        r = _sigmoid(a[:, :n] + u[:, :n])
        z = _sigmoid(a[:, n:2 * n] + u[:, n:2 * n])
        g = np.tanh(a[:, 2 * n:] + r * u[:, 2 * n:])   # the reset gate scales b_h's part too
        h = (1 - z) * g + z * h
        out.append(h)
    return out


RECURRENT = [L.RNN, L.LSTM, L.GRU]


@pytest.mark.parametrize("cls, by_hand", [(L.RNN, _rnn_by_hand), (L.LSTM, _lstm_by_hand),
                                           (L.GRU, _gru_by_hand)])
def test_steps_match_numpy(cls, by_hand, rng, on_device):
    layer = cls(4, in_size=3)
    for linear in (layer.x2h, layer.h2h):            # biases away from zero, so that each one counts
        if linear.b is not None:
            linear.b.data = on_device(rng.standard_normal(linear.b.shape))
    xs = [rng.standard_normal((2, 3)) for _ in range(3)]
    hs = [layer(on_device(x)) for x in xs]
    for got, expected in zip(hs, by_hand(layer, xs)):
        assert got.shape == (2, 4)
        np.testing.assert_allclose(got.data, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls", RECURRENT)
def test_reset_state_starts_a_new_sequence(cls, rng, on_device):
    layer = cls(3)
    x = on_device(rng.standard_normal((1, 2)))
    first = layer(x).data
    second = layer(x).data
    assert not np.allclose(first, second)           # the state carried over
    layer.reset_state()
    np.testing.assert_array_equal(layer(x).data, first)


@pytest.mark.parametrize("cls, width, state_bias", [(L.RNN, 1, False), (L.LSTM, 4, False), (L.GRU, 3, True)])
def test_parameters_and_lazy_input_size(cls, width, state_bias, rng, on_device):
    layer = cls(3)
    known = ["h2h/W", "h2h/b"] if state_bias else ["h2h/W"]
    assert [k for k, _ in layer.named_params()] == known       # W_h is known from the start
    layer(on_device(rng.standard_normal((2, 5)).astype(np.float32)))
    shapes = {k: p.shape for k, p in layer.named_params()}
    expected = {"h2h/W": (3, 3 * width), "x2h/W": (5, 3 * width), "x2h/b": (3 * width,)}
    if state_bias:
        expected["h2h/b"] = (3 * width,)
    assert shapes == expected
    assert all(p.dtype == np.float32 for p in layer.params())   # W_h too, before its first use
    layer(on_device(rng.standard_normal((2, 5)).astype(np.float32)))
    assert layer.h.dtype == np.float32


@pytest.mark.parametrize("cls", RECURRENT)
def test_backprop_through_time_matches_numerical(cls, rng, on_device):
    layer = cls(2, in_size=3)
    xs = on_device([rng.standard_normal((2, 3)) for _ in range(3)])
    target = on_device(rng.standard_normal((2, 2)))

    def loss():
        layer.reset_state()
        total = 0
        for x in xs:
            total = total + V.sum((layer(x) - target) ** 2)
        return total

    assert_param_grads_match(layer, loss)


@pytest.mark.parametrize("cls", RECURRENT)
def test_gradcheck_second_order_over_two_steps(cls, rng):
    layer = cls(2, in_size=2)
    x0, x1 = rng.standard_normal((2, 1, 2))
    values = [p.data.copy() for p in layer.params()]

    def f(x0, x1, *params):
        with substituted(layer, params):
            layer.reset_state()
            layer(x0)
            return layer(x1)

    V.gradcheck(f, x0, x1, *values, order=2)


def test_gru_state_bias_counts_from_the_first_step(rng, on_device):
    layer = L.GRU(2, in_size=3)
    x = on_device(rng.standard_normal((1, 3)))
    before = layer(x).data.copy()
    layer.reset_state()
    layer.h2h.b.data = layer.h2h.b.data + 1.0         # h_0 = 0, yet b_h enters every gate
    assert not np.allclose(layer(x).data, before)
    layer.reset_state()
    layer.cleargrads()
    V.sum(layer(x)).backward()
    assert layer.h2h.W.grad is None                    # W_h meets h_0 = 0 only: it is not used
    assert np.any(layer.h2h.b.grad.data != 0)


@pytest.mark.parametrize("cls", RECURRENT)
def test_unchain_backward_truncates_the_history(cls, rng, on_device):
    layer = cls(2, in_size=1)
    for _ in range(3):
        layer(on_device(rng.standard_normal((1, 1))))
    loss = V.sum(layer.h)
    loss.backward()
    loss.unchain_backward()                          # truncated BPTT: the state becomes a leaf
    states = {name: getattr(layer, name) for name in ("h", "c") if hasattr(layer, name)}
    assert all(state.creator is None for state in states.values())
    x = on_device(rng.standard_normal((1, 1)))

    def one_step():
        for name, state in states.items():
            setattr(layer, name, state)
        return V.sum(layer(x))

    # the gradient now covers one step only: it equals the numerical gradient with the
    # previous state held fixed (a gradient through the history would differ)
    assert_param_grads_match(layer, one_step)


@pytest.mark.parametrize("cls", RECURRENT)
def test_bad_hidden_size(cls):
    with pytest.raises(ValueError, match=f"{cls.__name__}: hidden_size must be a positive int"):
        cls(0)


@pytest.mark.parametrize("cls", RECURRENT)
@pytest.mark.parametrize("first, then", [(2, 4), (4, 1), (1, 3)])
def test_a_new_batch_size_without_reset_state_is_refused(cls, first, then, rng, on_device):
    layer = cls(5)
    layer(on_device(rng.standard_normal((first, 3))))
    state = layer.h
    with pytest.raises(ValueError) as info:              # a batch of 1 would broadcast silently
        layer(on_device(rng.standard_normal((then, 3))))
    message = str(info.value)
    assert message.startswith(f"{cls.__name__}: the state kept from the previous batch has batch size "
                              f"{first}, this input has {then} (input shape ({then}, 3))")
    assert "call reset_state() between sequences (or keep the batch size fixed" in message
    assert layer.h is state                              # nothing changed
    layer.reset_state()
    assert layer(on_device(rng.standard_normal((then, 3)))).shape == (then, 5)


@pytest.mark.parametrize("cls", RECURRENT)
def test_a_new_batch_shape_is_refused_too(cls, rng, on_device):
    layer = cls(2)
    layer(on_device(rng.standard_normal(3)))            # one example, no batch axis
    with pytest.raises(ValueError, match=r"batch shape \(\), this input has \(4,\)"):
        layer(on_device(rng.standard_normal((4, 3))))


@pytest.mark.parametrize("cls", RECURRENT)
def test_a_whole_sequence_is_refused_naming_the_loop_over_time(cls, rng, on_device):
    layer = cls(2)
    sequence = on_device(rng.standard_normal((5, 10, 3)))   # PyTorch's batch_first layout
    with pytest.raises(ValueError, match=rf"{cls.__name__}: x of shape \(5, 10, 3\) has 3 axes, but "
                                         rf"{cls.__name__} is one time step") as caught:
        layer(sequence)
    assert "for t in range(x.shape[1]): h = layer(x[:, t])" in str(caught.value)
    assert layer.h is None and layer.x2h.W is None        # nothing built, no state kept
    for t in range(sequence.shape[1]):                     # the loop the message names
        h = layer(sequence[:, t])
    assert h.shape == (5, 2)


@pytest.mark.parametrize("cls", RECURRENT)
def test_other_features_than_the_first_input_had_are_refused_naming_the_layer(cls, rng, on_device):
    layer = cls(2)
    h = layer(on_device(rng.standard_normal((4, 3))))
    with pytest.raises(ValueError, match=rf"^{cls.__name__}: x of shape \(4, 5\) has 5 features on its last "
                                         rf"axis, but this {cls.__name__} was built for in_size=3"):
        layer(on_device(rng.standard_normal((4, 5))))
    assert layer.h is h                                   # the state is kept, as it was
    assert layer(on_device(rng.standard_normal((4, 3)))).shape == (4, 2)
    given = cls(2, in_size=6)                             # a given size is checked before the first step
    with pytest.raises(ValueError, match=r"built for in_size=6"):
        given(on_device(rng.standard_normal((4, 3))))


@pytest.mark.parametrize("cls", RECURRENT)
def test_pytorchs_input_hidden_order_is_named_with_the_fix(cls, rng, on_device):
    layer = cls(3, 4)                                     # nn.LSTM(input_size=3, hidden_size=4)'s habit
    with pytest.raises(ValueError) as caught:
        layer(on_device(rng.standard_normal((2, 3))))
    message = str(caught.value)
    name = cls.__name__
    assert message.startswith(f"{name}: x of shape (2, 3) has 3 features on its last axis, but this {name} "
                              f"was built for in_size=4")
    assert (f"{name}(3, 4) means hidden_size=3, in_size=4 (gengrad's order is {name}(hidden_size, "
            f"in_size=None), as DeZero's); for PyTorch's nn.{name}(3, 4) write "
            f"L.{name}(4, in_size=3)") in message
    assert cls(4, in_size=3)(on_device(rng.standard_normal((2, 3)))).shape == (2, 4)   # the fix it names


@pytest.mark.parametrize("cls", RECURRENT)
@pytest.mark.parametrize("key, value, words", [
    ("batch_first", True, r"loop over time, for t in range\(x\.shape\[1\]\): h = layer\(x\[:, t\]\)"),
    ("num_layers", 2, r"stack the layers"),
    ("bidirectional", True, r"reversed sequence"),
    ("dropout", 0.1, r"F\.dropout"),
    ("bias", False, r"always has its biases"),
])
def test_pytorchs_recurrent_keywords_are_refused_naming_the_fix(cls, key, value, words):
    with pytest.raises(TypeError, match=rf"^{cls.__name__}\(\) got an unexpected keyword argument '{key}'; "
                                        rf"{key} is PyTorch's keyword: .*{words}"):
        cls(4, **{key: value})


@pytest.mark.parametrize("cls", RECURRENT)
def test_a_state_passed_along_is_refused_naming_how_to_set_it(cls, rng, on_device):
    layer = cls(4)
    x = on_device(rng.standard_normal((2, 3)))
    h0 = on_device(rng.standard_normal((2, 4)))
    with pytest.raises(TypeError, match=rf"^{cls.__name__} takes one input a call, .* got 2 arguments\. "
                                        rf"For PyTorch's {cls.__name__}Cell\(x, hx\), set the state first"):
        layer(x, h0)                                      # nn.GRUCell(x, hx)'s habit
    assert layer.h is None                                # nothing ran
    c0 = on_device(rng.standard_normal((2, 4)))
    layer.h = h0                                          # the fix it names
    if cls is L.LSTM:
        layer.c = c0
    by_state = layer(x).data
    fresh = cls(4)
    fresh(x)                                              # builds the weights: copy them over
    for (_, mine), (_, theirs) in zip(sorted(layer.named_params()), sorted(fresh.named_params())):
        theirs.data = mine.data.copy()
    fresh.h = V.Variable(h0)
    if cls is L.LSTM:
        fresh.c = V.Variable(c0)
    np.testing.assert_allclose(fresh(x).data, by_state, rtol=1e-14)
    layer.reset_state()
    assert not np.allclose(layer(x).data, by_state)       # from zeros: another state
    layer.reset_state()
    assert layer(x=x).shape == (2, 4)                     # the one input, by its name
    with pytest.raises(TypeError, match=rf"^{cls.__name__} takes one input a call"):
        layer(x, hx=h0)
