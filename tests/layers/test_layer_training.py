"""Training that must work: spiral MLP, LSTM and GRU on a noisy sine, linear regression.

Each runs the DeZero loop (cleargrads, backward, update) from a fixed seed in about a
second or less.
"""

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V
from layers import DataLoader
from layers.datasets import sine_curve, spiral


def test_mlp_learns_the_spiral(on_device):
    x, t = on_device(spiral(n_per_class=100, n_classes=3, seed=0, dtype=np.float32))
    assert x.shape == (300, 2)
    model = L.MLP((30, 3), activation=F.tanh)
    opt = O.Adam(0.03).setup(model)
    loader = DataLoader(x, t, batch_size=30, seed=0)
    for _ in range(60):
        for xb, tb in loader:
            loss = F.softmax_cross_entropy(model(xb), tb)
            model.cleargrads()
            loss.backward()
            opt.update()
    assert loader.epoch == 60
    with V.no_grad():
        scores = model(x).data
    accuracy = np.mean(scores.argmax(axis=1) == t)
    assert accuracy >= 0.95, accuracy
    assert all(p.dtype == np.float32 for p in model.params())
    # a linear model cannot do this: the data really needs the hidden layer
    linear = L.Linear(3)
    lopt = O.Adam(0.03).setup(linear)
    for _ in range(300):
        loss = F.softmax_cross_entropy(linear(x), t)
        linear.cleargrads()
        loss.backward()
        lopt.update()
    assert np.mean(linear(x).data.argmax(axis=1) == t) < 0.7


class SineNet(L.Model):
    """A recurrent layer of 16 units (LSTM or GRU) and a Linear read-out, one time step per call."""

    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(16)
        self.out = L.Linear(1)

    def reset_state(self):
        self.rnn.reset_state()

    def forward(self, x):
        return self.out(self.rnn(x))


@pytest.mark.parametrize("cell", [L.LSTM, L.GRU])
def test_a_recurrent_net_fits_a_noisy_sine_curve(cell, on_device):
    x, t = on_device(sine_curve(n=1000, period=25.0, noise=0.05, seed=0))
    # predicting "no change" is far off at 25 samples per period: the net must learn the dynamics
    assert np.mean((x - t) ** 2) > 0.03
    model = SineNet(cell)
    opt = O.Adam(0.01).setup(model)
    rng = np.random.default_rng(0)
    batch, length = 16, 25
    for _ in range(80):                            # BPTT over random windows, in parallel
        starts = on_device(rng.integers(0, len(x) - length, size=batch))
        model.reset_state()
        loss = 0
        for k in range(length):
            loss = loss + F.mean_squared_error(model(x[starts + k]), t[starts + k])
        loss = loss / length
        model.cleargrads()
        loss.backward()
        opt.update()
    model.reset_state()                            # then run through the whole curve once
    with V.no_grad():
        predictions = np.concatenate([model(x[k:k + 1]).data for k in range(len(x))])
    mse = np.mean((predictions - t) ** 2)
    assert mse < 0.01, mse


def test_linear_regression_recovers_known_weights(rng, on_device):
    W_true = np.array([[1.5, -2.0], [0.5, 3.0], [-1.0, 0.25]])
    b_true = np.array([0.3, -0.7])
    x = rng.standard_normal((200, 3))
    x, t = on_device((x, x @ W_true + b_true))
    model = L.Linear(2)
    opt = O.SGD(0.1).setup(model)
    for _ in range(300):
        loss = F.mean_squared_error(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
    np.testing.assert_allclose(model.W.data, W_true, atol=1e-3)
    np.testing.assert_allclose(model.b.data, b_true, atol=1e-3)
