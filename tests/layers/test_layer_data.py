"""layers/dataloader.py and layers/datasets.py: DataLoader, SeqDataLoader, spiral, sine_curve."""

import numpy as np
import pytest

import layers as L
from layers.datasets import sine_curve, spiral


# ----- datasets ------------------------------------------------------------------------
def test_datasets_are_reachable_from_the_package():
    assert L.datasets.spiral is spiral and L.datasets.sine_curve is sine_curve
    assert {"DataLoader", "SeqDataLoader", "datasets"} <= set(L.__all__)


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
    with pytest.raises(ValueError, match="spiral: n_classes must be a positive int, got 0"):
        spiral(n_classes=0)
    with pytest.raises(TypeError, match="spiral: n_per_class must be an int, got float"):
        spiral(n_per_class=10.0)


def test_sine_curve_pairs_are_one_step_apart():
    x, t = sine_curve(n=200, period=20.0, noise=0.05, seed=0)
    assert x.shape == t.shape == (200, 1)
    np.testing.assert_array_equal(t[:-1], x[1:])
    clean = np.sin(2 * np.pi * np.arange(200) / 20.0).reshape(-1, 1)
    assert np.max(np.abs(x - clean)) <= 0.05
    assert np.max(np.abs(x - clean)) > 0.04               # the noise is really there
    x0, _ = sine_curve(n=50, noise=0.0)
    np.testing.assert_allclose(x0[:, 0], np.sin(2 * np.pi * np.arange(50) / 25.0), atol=1e-15)
    assert sine_curve(n=3, dtype=np.float32)[1].dtype == np.float32
    with pytest.raises(ValueError, match="sine_curve: n must be a positive int"):
        sine_curve(n=0)
    with pytest.raises(TypeError, match="sine_curve: n must be an int, got str"):
        sine_curve(n="100")


# ----- DataLoader ----------------------------------------------------------------------
def test_loader_covers_every_example_once_per_epoch():
    x = np.arange(10) * 10
    t = np.arange(10)
    loader = L.DataLoader(x, t, batch_size=4, seed=0)
    assert len(loader) == 3 and loader.size == 10
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
    loader = L.DataLoader(x, batch_size=4, shuffle=False, drop_last=True)
    batches = list(loader)
    assert len(loader) == 2 and len(batches) == 2
    np.testing.assert_array_equal(batches[0], [0, 1, 2, 3])   # one array: batches are arrays
    np.testing.assert_array_equal(batches[1], [4, 5, 6, 7])
    assert len(L.DataLoader(np.arange(8), batch_size=4, drop_last=True)) == 2
    rows = list(L.DataLoader(np.arange(12).reshape(6, 2), batch_size=4, shuffle=False))
    assert [r.shape for r in rows] == [(4, 2), (2, 2)]          # trailing axes kept


def test_loader_is_reproducible_with_a_seed_or_with_layers_seed():
    a = [b.tolist() for b in L.DataLoader(np.arange(20), batch_size=5, seed=3)]
    b = [b.tolist() for b in L.DataLoader(np.arange(20), batch_size=5, seed=np.random.default_rng(3))]
    assert a == b
    L.seed(7)
    c = [b.tolist() for b in L.DataLoader(np.arange(20), batch_size=5)]
    L.seed(7)
    d = [b.tolist() for b in L.DataLoader(np.arange(20), batch_size=5)]
    assert c == d and sorted(sum(c, [])) == list(range(20))


@pytest.mark.parametrize("args, kwargs, error, match", [
    ((), {}, ValueError, "DataLoader: give at least one array"),
    ((np.zeros(3), np.zeros(4)), {}, ValueError,
     r"DataLoader: arrays must have the same length, got lengths \[3, 4\]"),
    ((np.zeros(3),), {"batch_size": 0}, ValueError, "DataLoader: batch_size must be a positive int, got 0"),
    ((np.zeros(3),), {"batch_size": 2.0}, TypeError, "DataLoader: batch_size must be an int, got float"),
    ((np.zeros(3),), {"batch_size": True}, TypeError, "DataLoader: batch_size must be an int, got bool"),
    ((np.zeros(3),), {"shuffle": "no"}, TypeError, "DataLoader: shuffle must be True or False, got str"),
    ((np.zeros(3),), {"drop_last": 1}, TypeError, "DataLoader: drop_last must be True or False, got int"),
    ((np.zeros(3),), {"seed": 1.5}, TypeError, "DataLoader: seed must be an int, a numpy.random.Generator"),
    ((np.float64(1.0),), {}, ValueError, "DataLoader: arrays must have a first axis"),
])
def test_loader_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        L.DataLoader(*args, **kwargs)


# ----- SeqDataLoader -------------------------------------------------------------------
def test_seq_loader_batches_read_evenly_spaced_streams_in_order():
    loader = L.SeqDataLoader(np.arange(10), batch_size=3)      # streams start at 0, 3, 6
    assert len(loader) == 3 and loader.size == 10
    np.testing.assert_array_equal(loader.offsets, [0, 3, 6])
    assert [b.tolist() for b in loader] == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]   # 9 is in no stream
    assert [b.tolist() for b in loader] == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]   # same order each epoch
    assert loader.epoch == 2


def test_seq_loader_rows_are_contiguous_pieces_of_the_series():
    n, streams = 23, 4                                          # 5 steps per stream, 3 left over
    x = np.arange(n * 2).reshape(n, 2)
    t = np.arange(n) + 100
    batches = list(L.SeqDataLoader(x, t, batch_size=streams))
    assert len(batches) == n // streams == 5
    xs = np.stack([b[0] for b in batches])                    # (steps, streams, 2)
    ts = np.stack([b[1] for b in batches])                    # (steps, streams)
    assert xs.shape == (5, 4, 2) and ts.shape == (5, 4)
    for k in range(streams):
        np.testing.assert_array_equal(ts[:, k], 100 + np.arange(5 * k, 5 * k + 5))   # stream k
        np.testing.assert_array_equal(xs[:, k], x[5 * k:5 * k + 5])                 # same indices
    # the same thing as reshaping the used part of the series into (streams, steps) rows
    np.testing.assert_array_equal(ts.T, t[:20].reshape(streams, 5))


def test_seq_loader_edge_sizes():
    assert [b.tolist() for b in L.SeqDataLoader(np.arange(4), batch_size=4)] == [[0, 1, 2, 3]]
    assert [b.tolist() for b in L.SeqDataLoader(np.arange(4), batch_size=1)] == [[0], [1], [2], [3]]


@pytest.mark.parametrize("args, kwargs, error, match", [
    ((), {"batch_size": 2}, ValueError, "SeqDataLoader: give at least one array"),
    ((np.zeros(3), np.zeros(4)), {"batch_size": 2}, ValueError, "SeqDataLoader: arrays must have the same"),
    ((np.zeros(3),), {"batch_size": 0}, ValueError, "SeqDataLoader: batch_size must be a positive int"),
    ((np.zeros(3),), {"batch_size": "2"}, TypeError, "SeqDataLoader: batch_size must be an int, got str"),
    ((np.zeros(3),), {"batch_size": 4}, ValueError,
     "SeqDataLoader: batch_size 4 exceeds the length 3 of the series"),
    ((np.float64(1.0),), {"batch_size": 1}, ValueError, "SeqDataLoader: arrays must have a first axis"),
])
def test_seq_loader_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        L.SeqDataLoader(*args, **kwargs)


def test_seq_loader_needs_batch_size_by_keyword():
    with pytest.raises(TypeError):
        L.SeqDataLoader(np.zeros(3))
