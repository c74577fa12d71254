"""L.seed(n): the one call that makes initial weights, shuffling and dropout masks reproducible."""

import sys
import types

import numpy as np

import function as F
import layers as L
import optimizers as O
from variable import backend


class Net(L.Model):
    """Lazily sized, with a Dropout layer and F.dropout, as a training script has them."""

    def __init__(self):
        super().__init__()
        self.l1 = L.Linear(16)
        self.drop = L.Dropout(0.5)
        self.l2 = L.Linear(3)

    def forward(self, x):
        return self.l2(F.dropout(self.drop(F.relu(self.l1(x))), 0.3))


def _run(seed, steps=3):
    """Weights, the masks of both dropouts and a DataLoader's order after `steps` steps from L.seed(seed)."""
    L.seed(seed)
    model = Net()
    opt = O.SGD(lr=0.1).setup(model)
    x, t = np.linspace(-1, 1, 40).reshape(8, 5), np.arange(8) % 3
    masks, orders = [], []
    for xb, _ in L.DataLoader(x, t, batch_size=4):
        orders.append(xb[:, 0].copy())
    for _ in range(steps):
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        masks.append(model.drop(np.ones((4, 6))).data)
        masks.append(F.dropout(np.ones((4, 6)), 0.5).data)
    weights = [p.data.copy() for p in model.params()]
    return weights, masks, orders


def _same(a, b):
    return all(np.array_equal(u, v) for u, v in zip(a, b)) and len(a) == len(b)


def test_the_same_seed_gives_the_same_weights_masks_and_order():
    weights, masks, orders = _run(5)
    np.random.random(100)                          # whatever ran in between does not matter
    again = _run(5)
    assert _same(weights, again[0]) and _same(masks, again[1]) and _same(orders, again[2])


def test_another_seed_gives_other_weights_and_masks():
    weights, masks, _ = _run(5)
    other_weights, other_masks, _ = _run(6)
    assert not any(np.array_equal(a, b) for a, b in zip(weights, other_weights))
    assert not any(np.array_equal(a, b) for a, b in zip(masks, other_masks))


def test_seeds_beyond_32_bits_and_none_work():
    big = _run(2**40, steps=1)
    assert _same(big[1], _run(2**40, steps=1)[1])
    assert not _same(big[1], _run(2**40 + 2**32, steps=1)[1])     # not the same seed modulo 2**32
    L.seed(None)
    first = F.dropout(np.ones(64), 0.5).data
    L.seed(None)
    assert not np.array_equal(first, F.dropout(np.ones(64), 0.5).data)


def test_the_initial_weights_do_not_depend_on_dropout_draws():
    L.seed(1)
    plain = L.Linear(4, in_size=3).W.data
    L.seed(1)
    F.dropout(np.ones(10), 0.5)                    # masks come from another stream
    np.testing.assert_array_equal(L.Linear(4, in_size=3).W.data, plain)


def test_seed_reaches_a_gpu_in_use_and_never_imports_cupy(monkeypatch):
    """With no GPU module in use, L.seed leaves CuPy alone (an import of it would fail here);
    with one in use, its generator is reseeded from the seed, None drawing fresh entropy."""
    monkeypatch.setitem(sys.modules, "cupy", None)           # `import cupy` raises ImportError
    monkeypatch.setitem(backend._GPU, "module", None)
    L.seed(3)

    class Device:
        random = types.SimpleNamespace(seed=lambda value: seeds.append(value))

    seeds = []
    monkeypatch.setitem(backend._GPU, "module", Device)
    L.seed(3)
    L.seed(3)
    L.seed(4)
    L.seed(None)
    assert seeds[0] == seeds[1] != seeds[2] and seeds[3] is None
    assert all(type(s) is int and 0 <= s < 2**64 for s in seeds[:3])   # what cupy.random.seed takes


def test_a_seed_given_before_the_gpu_is_in_use_reaches_it(monkeypatch):
    """The usual order, L.seed(0) at the top of a script and model.to_gpu() later: the
    GPU's generator is seeded when it comes into use, with what L.seed(0) gives it then."""
    seeds = []

    class Device:
        random = types.SimpleNamespace(seed=lambda value: seeds.append(value))

    monkeypatch.setitem(backend._GPU, "module", Device)
    L.seed(5)                                                # in use: seeded now
    monkeypatch.setitem(backend._GPU, "module", None)
    monkeypatch.setattr(backend, "_PENDING_SEED", [])
    L.seed(5)                                                # no GPU yet: kept for it
    assert len(seeds) == 1
    monkeypatch.setattr(backend.importlib, "import_module", lambda name: Device)
    assert backend._cupy() is Device                         # the first move to the GPU
    assert seeds == [seeds[0], seeds[0]] and backend._PENDING_SEED == []
