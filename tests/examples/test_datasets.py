"""examples/datasets.py: spiral and sine-curve generators, and the minibatch DataLoader."""

import numpy as np
import pytest

from examples.datasets import DataLoader, sine_curve, spiral


def test_spiral_shapes_labels_and_geometry():
    x, t = spiral(n_per_class=100, n_classes=3)
    assert x.shape == (300, 2) and x.dtype == np.float64
    assert t.shape == (300,) and t.dtype == np.int64
    np.testing.assert_array_equal(np.bincount(t), [100, 100, 100])
    radius = np.hypot(x[:, 0], x[:, 1])
    np.testing.assert_allclose(radius, np.tile(np.arange(100) / 100, 3), atol=1e-12)
    # without noise, point i of arm j lies at angle 4 r + 2 pi j / 3 (measured from the y axis)
    x0, _ = spiral(n_per_class=4, n_classes=3, noise=0.0)
    r = 0.75
    angle = 4 * r + 2 * np.pi * 2 / 3
    np.testing.assert_allclose(x0[11], [r * np.sin(angle), r * np.cos(angle)], rtol=1e-12)


def test_spiral_is_seeded_and_typed():
    a, _ = spiral(seed=1)
    b, _ = spiral(seed=1)
    c, _ = spiral(seed=2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert spiral(dtype=np.float32)[0].dtype == np.float32
    with pytest.raises(ValueError, match="spiral: n_classes must be a positive int"):
        spiral(n_classes=0)


def test_sine_curve_pairs_are_one_step_apart():
    x, t = sine_curve(n=200, period=20.0, noise=0.05, seed=0)
    assert x.shape == t.shape == (200, 1)
    np.testing.assert_array_equal(t[:-1], x[1:])
    clean = np.sin(2 * np.pi * np.arange(200) / 20.0).reshape(-1, 1)
    assert np.max(np.abs(x - clean)) <= 0.05
    assert np.max(np.abs(x - clean)) > 0.04               # the noise is really there
    x0, _ = sine_curve(n=50, noise=0.0)
    np.testing.assert_allclose(x0[:, 0], np.sin(2 * np.pi * np.arange(50) / 25.0), atol=1e-15)
    with pytest.raises(ValueError, match="sine_curve: n must be a positive int"):
        sine_curve(n=0)


def test_loader_covers_every_example_once_per_epoch():
    x = np.arange(10) * 10
    t = np.arange(10)
    loader = DataLoader(x, t, batch_size=4, seed=0)
    assert len(loader) == 3
    orders = []
    for _ in range(2):
        batches = list(loader)
        assert [len(b[0]) for b in batches] == [4, 4, 2]
        xs = np.concatenate([b[0] for b in batches])
        ts = np.concatenate([b[1] for b in batches])
        np.testing.assert_array_equal(xs, ts * 10)         # x and t cut with the same indices
        np.testing.assert_array_equal(np.sort(ts), np.arange(10))
        orders.append(ts)
    assert loader.epoch == 2
    assert not np.array_equal(orders[0], orders[1])       # reshuffled each epoch
    assert not np.array_equal(orders[0], np.arange(10))


def test_loader_drop_last_no_shuffle_and_single_array():
    x = np.arange(10)
    loader = DataLoader(x, batch_size=4, shuffle=False, drop_last=True)
    batches = list(loader)
    assert len(loader) == 2 and len(batches) == 2
    np.testing.assert_array_equal(batches[0], [0, 1, 2, 3])   # one array: batches are arrays
    np.testing.assert_array_equal(batches[1], [4, 5, 6, 7])
    assert len(DataLoader(np.arange(8), batch_size=4, drop_last=True)) == 2


def test_loader_is_reproducible_with_a_seed():
    a = [b.tolist() for b in DataLoader(np.arange(20), batch_size=5, seed=3)]
    b = [b.tolist() for b in DataLoader(np.arange(20), batch_size=5, seed=np.random.default_rng(3))]
    assert a == b


@pytest.mark.parametrize("args, kwargs, match", [
    ((), {}, "DataLoader: give at least one array"),
    ((np.zeros(3), np.zeros(4)), {}, r"DataLoader: arrays must have the same length, got lengths \[3, 4\]"),
    ((np.zeros(3),), {"batch_size": 0}, "DataLoader: batch_size must be a positive int"),
    ((np.float64(1.0),), {}, "DataLoader: arrays must have a first axis"),
])
def test_loader_errors(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(*args, **kwargs)
