"""Smoke tests of the training examples: each main() runs on small settings into tmp_path.

Each test checks what the example printed (one progress line per epoch, numbered 1..N,
losses that fall, accuracies or errors past a threshold) and what it wrote (its figure
when matplotlib is installed).  Where an example reports a number that can be computed
another way (least squares, a per-example gradient, a finite difference), the test
computes it here.  The IDX parser is tested on small files written here byte by byte.
"""

import gzip
import math
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V
from examples import (
    attention_sort,
    deep_checkpoint,
    digits_mlp,
    gradient_penalty,
    linear_regression,
    lstm_sine,
    mnist,
    seq2seq_reverse,
    sin_regression_mlp,
    spiral_mlp,
)

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
EPOCH = re.compile(r"\bepoch +(\d+)/(\d+)\b")


def numbers(line):
    """Every number on a printed line, in order."""
    return [float(s) for s in re.findall(NUMBER, line)]


def line_with(out, text):
    """The first printed line containing `text`."""
    return next(line for line in out.splitlines() if text in line)


def field(line, name):
    """The number printed after `name` on a progress line ('loss 0.1234' -> 0.1234)."""
    return float(re.search(rf"\b{name} +({NUMBER})", line).group(1))


def progress(out, epochs, runs=1):
    """The progress lines; checks there is exactly one per epoch, numbered 1..epochs, with a time."""
    lines = [line for line in out.splitlines() if EPOCH.search(line)]
    assert len(lines) == runs * epochs
    for k, line in enumerate(lines):
        done, total = map(int, EPOCH.search(line).groups())
        assert (done, total) == (k % epochs + 1, epochs)
        assert re.search(r"time \d+\.\d\ds$", line)
    return lines


def assert_figure(path):
    """The figure is a small PNG when matplotlib is installed, and absent when it is not."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not path.exists(), path
        return
    assert path.exists(), path
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size < 150_000


@pytest.fixture(autouse=True)
def _seed_layers():
    """Every test starts from the same initial weights."""
    L.seed(0)


# ----- linear_regression.py -----------------------------------------------------------
def test_linear_regression_reaches_least_squares_at_the_predicted_rate(tmp_path, capsys):
    assert linear_regression.main(["--epochs", "100", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = progress(out, 100)
    losses = [field(line, "loss") for line in lines]
    assert losses[-1] < 0.02 < 30 < losses[0]                    # from w = b = 0 to the noise level
    assert all(b <= a + 1e-12 for a, b in zip(losses[1:], losses[2:]))   # monotone once in the valley

    x, y = linear_regression.make_data(100, 0.1, 0)
    slope, intercept = np.polyfit(x[:, 0], y[:, 0], 1)          # least squares, independently
    gd = numbers(line_with(out, "gradient descent: w"))
    ls = numbers(line_with(out, "least squares:"))
    assert ls[:2] == pytest.approx([slope, intercept], abs=2e-6)
    assert abs(gd[0] - slope) < 2e-3 and abs(gd[1] - intercept) < 2e-3
    assert abs(slope - 2) < 0.1 and abs(intercept - 5) < 0.1

    # the excess loss contracts by (1 - lr * lambda_min)^2, lambda_min of H = 2 [[E x^2, E x], [E x, 1]]
    m2, m1 = np.mean(x ** 2), np.mean(x)
    lam_min = (m2 + 1) - math.sqrt((m2 - 1) ** 2 + 4 * m1 ** 2)  # 2 * the smaller root, in closed form
    rate_line = numbers(line_with(out, "excess loss shrank"))
    measured, theory = rate_line[1], rate_line[-1]
    assert theory == pytest.approx((1 - 0.5 * lam_min) ** 2, abs=1e-4)
    assert measured == pytest.approx(theory, abs=2e-3)
    assert_figure(tmp_path / "linear_regression.png")


def test_an_example_without_matplotlib_says_so_and_writes_no_figure(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)         # `import matplotlib` fails
    assert linear_regression.main(["--epochs", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    progress(out, 3)
    assert "matplotlib is not installed" in out
    assert not list(tmp_path.iterdir())


# ----- sin_regression_mlp.py ---------------------------------------------------------
def test_sin_regression_fits_the_sine_down_to_the_noise(tmp_path, capsys):
    assert sin_regression_mlp.main(["--out", str(tmp_path)]) == 0   # defaults: 300 epochs, ~1 s
    out = capsys.readouterr().out
    losses = [field(line, "loss") for line in progress(out, 300)]
    assert losses[0] > 0.3 and np.mean(losses[-20:]) < 0.13
    final = numbers(line_with(out, "final loss on the data"))
    assert 1 / 12 * 0.8 < final[0] < 0.11                         # near the noise variance 1/12
    assert final[-1] == pytest.approx(1 / 12, abs=1e-4)
    assert numbers(line_with(out, "RMS distance"))[-1] < 0.2
    assert_figure(tmp_path / "sin_regression.png")


def test_sin_regression_data_has_the_documented_noise():
    x, y = sin_regression_mlp.make_data(2000, seed=1)
    noise = y - np.sin(2 * np.pi * x)
    assert x.min() >= 0 and x.max() < 1
    assert noise.min() >= -0.5 and noise.max() < 0.5
    assert noise.var() == pytest.approx(1 / 12, rel=0.1)


# ----- spiral_mlp.py -----------------------------------------------------------------
def test_spiral_defaults_reach_95_percent(tmp_path, capsys):
    assert spiral_mlp.main(["--out", str(tmp_path)]) == 0        # defaults: 50 epochs
    out = capsys.readouterr().out
    lines = progress(out, 50)
    first, last = lines[0], lines[-1]
    assert field(last, "loss") < 0.3 * field(first, "loss")
    assert field(last, "accuracy") >= 0.95
    assert numbers(line_with(out, "training accuracy after"))[-1] >= 0.95
    assert_figure(tmp_path / "spiral_boundary.png")


def test_spiral_training_accuracy_checked_by_hand(capsys):
    x, t = L.datasets.spiral(seed=0)
    model = L.MLP((30, 3), activation=F.tanh)
    spiral_mlp.train(model, O.Adam(lr=0.05).setup(model), x, t, epochs=50, batch_size=30)
    assert len(capsys.readouterr().out.splitlines()) == 50
    scores = model(x).data
    assert np.mean(np.argmax(scores, axis=1) == t) >= 0.95      # not the library's accuracy
    a, b, classes = spiral_mlp.class_grid(model, x, steps=7)
    assert a.shape == b.shape == classes.shape == (7, 7) and set(np.unique(classes)) <= {0, 1, 2}


# ----- digits_mlp.py and mnist.py ----------------------------------------------------
IDX_CODES = {np.uint8: 0x08, np.int8: 0x09, np.int16: 0x0B, np.int32: 0x0C, np.float32: 0x0D,
             np.float64: 0x0E}


def idx_bytes(array, code=None):
    """An IDX file, written here from the format's definition (not with the parser's help)."""
    array = np.asarray(array)
    code = IDX_CODES[array.dtype.type] if code is None else code
    header = struct.pack(">BBBB", 0, 0, code, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def synthetic_digits(n, rng, prototypes):
    """n noisy copies of ten 7x7 prototype images (uint8) and their labels."""
    labels = rng.integers(0, 10, n).astype(np.uint8)
    images = prototypes[labels] * 180 + rng.integers(0, 70, (n, 7, 7))
    return images.astype(np.uint8), labels


def write_mnist(directory, rng, n_train=300, n_test=100):
    """Train files gzip'd with the usual names, test files raw with the '.idx' spelling."""
    prototypes = (rng.random((10, 7, 7)) > 0.5).astype(np.int64)
    images, labels = synthetic_digits(n_train, rng, prototypes)
    (directory / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(idx_bytes(images)))
    (directory / "train-labels-idx1-ubyte.gz").write_bytes(gzip.compress(idx_bytes(labels)))
    images, labels = synthetic_digits(n_test, rng, prototypes)
    (directory / "t10k-images.idx3-ubyte").write_bytes(idx_bytes(images))
    (directory / "t10k-labels.idx1-ubyte").write_bytes(idx_bytes(labels))
    return images, labels


@pytest.mark.parametrize("schedule", ["cosine", "onecycle"])
def test_digits_with_a_learning_rate_schedule(schedule, tmp_path, capsys, rng):
    data = tmp_path / "mnist"
    data.mkdir()
    write_mnist(data, rng)
    argv = ["--source", "mnist", "--mnist-dir", str(data), "--epochs", "4", "--schedule", schedule,
            "--out", str(tmp_path / "out")]
    assert digits_mlp.main(argv) == 0
    lines = progress(capsys.readouterr().out, 4)
    rates = [field(line, "lr") for line in lines]
    if schedule == "cosine":                          # 0.005 (1 + cos(pi e / 4)) / 2 at epochs 0 .. 3
        np.testing.assert_allclose(rates, [0.005 * (1 + np.cos(np.pi * e / 4)) / 2 for e in range(4)],
                                   rtol=1e-2)
    else:                                             # up to 0.02 and down to nearly 0 by the end
        assert max(rates) > 0.005 and rates[-1] < 1e-4    # (one step past the end: near its minimum)
    assert field(lines[-1], "loss") < field(lines[0], "loss")


def test_digits_on_mnist_idx_files(tmp_path, capsys, rng, monkeypatch):
    data = tmp_path / "mnist"
    data.mkdir()
    test_images, test_labels = write_mnist(data, rng)
    out_dir = tmp_path / "out"
    argv = ["--source", "mnist", "--mnist-dir", str(data), "--epochs", "5", "--out", str(out_dir)]
    assert digits_mlp.main(argv) == 0
    out = capsys.readouterr().out
    assert "300 training and 100 test images of 49 pixels" in line_with(out, "data: MNIST from")
    lines = progress(out, 5)
    assert field(lines[-1], "loss") < field(lines[0], "loss")
    assert numbers(line_with(out, "final test accuracy"))[0] >= 0.9
    assert_figure(out_dir / "digits.png")

    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    x_train, t_train, x_test, t_test, shape, name = digits_mlp.load_data("auto", str(data))
    assert name.startswith("MNIST from")                        # auto falls back to MNIST
    assert shape == (7, 7) and x_train.shape == (300, 49) and x_test.dtype == np.float32
    np.testing.assert_array_equal(t_test, test_labels)
    np.testing.assert_allclose(x_test, test_images.reshape(100, 49) / np.float32(255), rtol=1e-6)
    model = digits_mlp.DigitsMLP(8)                              # float32 stays float32
    digits_mlp.train(model, x_train[:40], t_train[:40], x_test, t_test, 1, 20, 0.01, 0)
    assert model.l1.W.dtype == model.l2.b.dtype == np.float32


def test_digits_with_neither_source_is_skipped_with_a_message(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)            # as if scikit-learn were missing
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)   # even if imported before
    argv = ["--mnist-dir", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]
    assert digits_mlp.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("digits example skipped: neither scikit-learn")
    assert "nowhere" in out and "epoch" not in out
    assert digits_mlp.main(["--source", "mnist"] + argv) == 1    # asked for explicitly: an error
    assert "train-images-idx3-ubyte.gz" in capsys.readouterr().out
    assert digits_mlp.main(["--source", "sklearn"] + argv) == 1
    assert "scikit-learn is not installed" in capsys.readouterr().out

    broken = tmp_path / "broken"                                # MNIST found but malformed: an error
    broken.mkdir()
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte"):
        (broken / name).write_bytes(idx_bytes(np.zeros((2, 3, 3), dtype=np.uint8))[:-1])
    assert digits_mlp.main(["--mnist-dir", str(broken), "--out", str(tmp_path / "out")]) == 1
    failure = capsys.readouterr().out
    assert failure.startswith("digits example failed: ") and "train-images-idx3-ubyte: truncated" in failure


def test_digits_on_scikit_learn(tmp_path, capsys):
    pytest.importorskip("sklearn")
    assert digits_mlp.main(["--source", "sklearn", "--epochs", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1438 training and 359 test images of 64 pixels" in out
    progress(out, 3)
    assert numbers(line_with(out, "final test accuracy"))[0] >= 0.9
    assert_figure(tmp_path / "digits.png")


@pytest.mark.parametrize("dtype", list(IDX_CODES))
def test_read_idx_every_element_type_raw_and_gzip(tmp_path, dtype, rng):
    array = (rng.standard_normal((3, 2, 4)) * 50).astype(dtype)
    raw = idx_bytes(array)
    (tmp_path / "a.idx").write_bytes(raw)
    (tmp_path / "b.idx").write_bytes(gzip.compress(raw))     # detected by content, not by name
    for name in ("a.idx", "b.idx"):
        got, magic = mnist.read_idx(tmp_path / name)
        assert magic == (IDX_CODES[dtype] << 8) | 3
        assert got.dtype == np.dtype(dtype) and got.dtype.isnative and got.shape == (3, 2, 4)
        np.testing.assert_array_equal(got, array)


def test_parse_idx_rejects_malformed_files():
    good = idx_bytes(np.arange(6, dtype=np.uint8).reshape(2, 3))
    np.testing.assert_array_equal(mnist.parse_idx(good), [[0, 1, 2], [3, 4, 5]])
    cases = [
        (b"\x00\x00", "too short for an IDX header"),
        (b"\x1f\x00" + good[2:], "must start with two zero bytes"),
        (good[:2] + b"\x07" + good[3:], "unknown IDX element type 0x07"),
        (good[:10], r"header declares 2 dimensions \(12 header bytes\)"),
        (good[:-1], r"truncated: header shape \(2, 3\) of uint8 needs 6 data bytes, found 5"),
        (good + b"\x00", "has trailing bytes"),
    ]
    for data, message in cases:
        with pytest.raises(mnist.IDXError, match=message):
            mnist.parse_idx(data, "f.idx")
    huge = struct.pack(">BBBB", 0, 0, 0x0C, 4) + struct.pack(">4I", *[2 ** 32 - 1] * 4)
    with pytest.raises(mnist.IDXError, match="truncated"):      # no overflow in the size check
        mnist.parse_idx(huge)


def test_load_mnist_checks_that_the_files_fit_together(tmp_path, rng):
    images = rng.integers(0, 256, (4, 3, 3)).astype(np.uint8)
    labels = np.array([1, 9, 0, 3], dtype=np.uint8)

    def write(img, lab):
        (tmp_path / "train-images-idx3-ubyte").write_bytes(idx_bytes(img))
        (tmp_path / "train-labels-idx1-ubyte").write_bytes(idx_bytes(lab))

    write(images, labels)
    got_images, got_labels = mnist.load_mnist(tmp_path, "train")
    np.testing.assert_array_equal(got_images, images)
    np.testing.assert_array_equal(got_labels, labels)
    assert not mnist.has_mnist(tmp_path)                       # the test split is missing

    write(labels, images)                                       # swapped
    with pytest.raises(mnist.IDXError, match="magic number 0x00000801, expected 0x00000803"):
        mnist.load_mnist(tmp_path, "train")
    write(images, images.reshape(-1))
    with pytest.raises(mnist.IDXError, match="4 images .* but 36 labels"):
        mnist.load_mnist(tmp_path, "train")
    write(images, labels.astype(np.int32))
    with pytest.raises(mnist.IDXError, match="expected 0x00000801"):
        mnist.load_mnist(tmp_path, "train")
    write(images, np.array([1, 2, 10, 3], dtype=np.uint8))
    with pytest.raises(mnist.IDXError, match="labels must be digits 0..9, found 10"):
        mnist.load_mnist(tmp_path, "train")
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(b"\x1f\x8b" + b"not gzip at all")
    with pytest.raises(mnist.IDXError, match="corrupt gzip data"):
        mnist.load_mnist(tmp_path, "train")
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte.gz"):
        mnist.load_mnist(tmp_path, "test")
    with pytest.raises(ValueError, match="split must be 'train' or 'test'"):
        mnist.load_mnist(tmp_path, "validation")


# ----- lstm_sine.py ------------------------------------------------------------------
def test_lstm_learns_the_sine(tmp_path, capsys):
    assert lstm_sine.main(["--epochs", "10", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    losses = [field(line, "loss") for line in progress(out, 10)]
    assert losses[-1] < losses[0] / 5 and losses[-1] < 0.01
    assert numbers(line_with(out, "clean sine"))[-1] < 0.06
    assert numbers(line_with(out, "clean cosine"))[-1] < 0.08
    assert numbers(line_with(out, "free-running"))[-1] < 0.2
    assert_figure(tmp_path / "lstm_sine.png")


def test_a_gru_takes_the_lstms_place(tmp_path, capsys):
    assert lstm_sine.main(["--cell", "gru", "--epochs", "2", "--samples", "200", "--hidden", "8",
                           "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "GRU(8), truncated BPTT every 20 steps" in out
    losses = [field(line, "loss") for line in progress(out, 2)]
    assert losses[1] < losses[0]
    model = lstm_sine.SineLSTM(3, "gru")
    assert isinstance(model.rnn, L.GRU) and model(np.zeros((2, 1))).shape == (2, 1)


def test_lstm_reads_contiguous_streams_and_truncates():
    class Recorder(lstm_sine.SineLSTM):
        """SineLSTM that records the inputs it is fed."""

        def forward(self, x):
            self.seen.append(np.asarray(x.data if hasattr(x, "data") else x)[:, 0].copy())
            return super().forward(x)

    series = np.arange(12.0).reshape(-1, 1)
    model = Recorder(3)
    model.seen = []
    loader = L.SeqDataLoader(series[:-1], series[1:], batch_size=3)   # 11 steps: 3 streams of 3
    lstm_sine.train_epoch(model, O.SGD(lr=0.0).setup(model), loader, bptt=2)
    seen = np.array(model.seen)
    np.testing.assert_array_equal(seen[:, 1], [3, 4, 5])            # stream 1 is contiguous
    np.testing.assert_array_equal(seen[2], [2, 5, 8])               # step 2 of every stream

    class Spy(O.Adam):
        """Adam that records, at every update, whether the carried state is already a leaf."""

        def update(self):
            lstm = self.target.rnn
            self.leaves.append(lstm.h.creator is None and lstm.c.creator is None)
            super().update()

    model = lstm_sine.SineLSTM(4)
    optimizer = Spy(lr=0.01).setup(model)
    optimizer.leaves = []
    xs = np.sin(np.arange(23.0) / 3).reshape(23, 1)
    lstm_sine.train_epoch(model, optimizer, L.SeqDataLoader(xs[:-1], xs[1:], batch_size=1), bptt=5)
    assert optimizer.leaves == [True] * 5                           # 22 steps: 5+5+5+5+2
    assert all(p.grad is not None for p in model.params())


# ----- gradient_penalty.py -----------------------------------------------------------
def test_gradient_penalty_shrinks_the_input_gradient(tmp_path, capsys):
    assert gradient_penalty.main(["--out", str(tmp_path)]) == 0     # defaults: 2 x 100 epochs, ~2 s
    out = capsys.readouterr().out
    lines = progress(out, 100, runs=2)
    assert all(line.startswith("lambda 0 ") for line in lines[:100])
    assert all(line.startswith("lambda 0.1 ") for line in lines[100:])
    assert field(lines[99], "penalty") > 2 * field(lines[199], "penalty")
    table = out.splitlines()[out.splitlines().index(line_with(out, "mean |dl/dx|")) + 1:][:2]
    (lam0, train0, test0, norm0, _), (lam1, train1, test1, norm1, _) = map(numbers, table)
    assert (lam0, lam1) == (0, 0.1)
    assert norm1 < 0.7 * norm0                                   # measured: 0.53
    assert min(train0, train1, test0, test1) > 0.85
    assert_figure(tmp_path / "gradient_penalty.png")


def test_input_gradient_rows_are_per_example_gradients(rng):
    model = L.MLP((5, 2), activation=F.tanh)
    x, t = rng.standard_normal((4, 2)), np.array([0, 1, 1, 0])
    _, gx = gradient_penalty.loss_and_input_gradients(model, x, t)
    for i in range(4):
        xi = V.Variable(x[i:i + 1])
        gi = V.grad(F.softmax_cross_entropy(model(xi), t[i:i + 1]), xi)
        np.testing.assert_allclose(gx.data[i], gi.data[0], rtol=1e-12, atol=1e-15)


def test_penalised_loss_gradient_by_double_backprop_matches_finite_differences(rng):
    model = L.MLP((4, 2), activation=F.tanh)
    x, t = rng.standard_normal((6, 2)), rng.integers(0, 2, 6)
    model(x)                                                         # create the weights
    total, _, _ = gradient_penalty.penalised_loss(model, x, t, lam=0.7)
    model.cleargrads()
    total.backward()
    eps = 1e-6
    for param in model.params():
        numeric = np.zeros_like(param.data)
        for index in np.ndindex(param.shape):
            saved = param.data[index].copy()    # (a 0-d view on a GPU: copy the value)
            values = []
            for step in (eps, -eps):
                param.data[index] = saved + step
                values.append(float(gradient_penalty.penalised_loss(model, x, t, lam=0.7)[0].data))
            param.data[index] = saved
            numeric[index] = (values[0] - values[1]) / (2 * eps)
        np.testing.assert_allclose(param.grad.data, numeric, rtol=1e-6, atol=1e-8)
    # and the penalty really contributes: without it the gradient is different
    plain, _, _ = gradient_penalty.penalised_loss(model, x, t, lam=0.0)
    W = model.l0.W
    assert not np.allclose(V.grad(plain, W).data, W.grad.data, rtol=1e-3)


def test_rings_geometry():
    x, t = gradient_penalty.rings(500, 0.0, seed=3)
    np.testing.assert_allclose(np.hypot(x[:, 0], x[:, 1]), 1.0 + t, rtol=1e-12)
    np.testing.assert_array_equal(np.bincount(t), [500, 500])


# ----- every example is run by a smoke test ------------------------------------------
def test_every_example_with_a_main_has_a_smoke_test():
    root = Path(__file__).resolve().parents[2]
    tests = "".join(p.read_text() for p in (root / "tests" / "examples").glob("test_*.py"))
    scripts = [p.stem for p in sorted((root / "examples").glob("*.py")) if "\ndef main(" in p.read_text()]
    assert {"spiral_mlp", "digits_mlp", "lstm_sine", "gradient_penalty", "demo"} <= set(scripts)
    untested = [name for name in scripts if f"{name}.main(" not in tests]
    assert not untested, f"examples without a smoke test calling their main(): {untested}"


# ----- attention_sort.py ----------------------------------------------------------------
def test_a_transformer_learns_to_sort(tmp_path, capsys):
    assert attention_sort.main(["--steps", "200", "--layers", "1", "--embed", "16",
                                "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    losses = [field(line, "loss") for line in out.splitlines() if line.startswith("step")]
    assert len(losses) == 10 and losses[-1] < losses[0] / 5
    digits, sequences = numbers(line_with(out, "new sequences"))[1:3]
    assert digits > 85 and sequences > 40
    assert_figure(tmp_path / "attention_sort.png")


def test_the_sorters_attention_sees_every_position_and_keeps_its_weights():
    model = attention_sort.Sorter(10, 5, 8, 2, 2, np.random.default_rng(0))
    x, t = attention_sort.batch(np.random.default_rng(1), 3, 5, 10)
    assert np.array_equal(t, np.sort(x, axis=1)) and model(x).shape == (3, 5, 10)
    for block in model.blocks:
        np.testing.assert_allclose(block.weights.data.sum(axis=-1), 1, rtol=1e-12)   # one softmax a row
        assert block.weights.shape == (3, 5, 5)


# ----- seq2seq_reverse.py ---------------------------------------------------------------
def test_an_encoder_decoder_learns_to_reverse(tmp_path, capsys):
    assert seq2seq_reverse.main(["--steps", "150", "--length", "4", "--vocab", "5", "--embed", "16",
                                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    losses = [field(line, "loss") for line in out.splitlines() if line.startswith("step")]
    assert len(losses) == 9 and losses[-1] < losses[0] / 5            # every 150 // 8 steps, and the last
    digits, sequences = numbers(line_with(out, "greedy decoding"))[1:3]
    assert digits > 80 and sequences > 40
    assert_figure(tmp_path / "seq2seq_reverse.png")


def test_the_decoder_never_reads_ahead_and_its_attention_to_the_source_is_a_softmax():
    """Changing the target's last digit changes no score before it (the causal mask), and each
    row of the drawn attention to the source sums to one."""
    L.seed(0)
    model = seq2seq_reverse.Reverser(5, 4, 8, 2, np.random.default_rng(0))
    source, target = seq2seq_reverse.batch(np.random.default_rng(1), 3, 4, 5)
    assert np.array_equal(target, source[:, ::-1])
    read = seq2seq_reverse.shifted(target, 5)
    assert np.array_equal(read[:, 0], [5, 5, 5]) and np.array_equal(read[:, 1:], target[:, :-1])
    other = read.copy()
    other[:, -1] = (other[:, -1] + 1) % 5
    with V.test_mode():
        a, b = model(source, read).data, model(source, other).data
    np.testing.assert_array_equal(a[:, :-1], b[:, :-1])
    assert not np.allclose(a[:, -1], b[:, -1])
    weights = seq2seq_reverse.cross_attention(model, source[:1], target[:1], 5)
    assert weights.shape == (4, 4)
    np.testing.assert_allclose(weights.sum(axis=-1), 1, rtol=1e-12)


# ----- deep_checkpoint.py ---------------------------------------------------------------------
def test_deep_checkpoint_takes_the_plain_steps_in_less_memory(tmp_path, capsys):
    assert deep_checkpoint.main(["--depth", "16", "--width", "32", "--points", "200", "--steps", "6",
                                 "--segments", "4", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "losses equal bit for bit" in out
    first = numbers(line_with(out, "step    1"))
    assert first[1] == first[2] and 0.5 < first[1] < 3          # plain and checkpointed, a real loss
    peaks = {int(n[0]): n[1] for n in (numbers(line) for line in out.splitlines() if "k = " in line)}
    assert sorted(peaks) == [1, 2, 4, 8, 16]
    assert peaks[4] < 0.8 * peaks[1] and peaks[8] < 0.7 * peaks[1]    # about sqrt(D) segments: less
    assert_figure(tmp_path / "deep_checkpoint.png")


def test_deep_checkpoint_model_is_the_plain_model_with_segments():
    model = deep_checkpoint.build(4, 8, seed=0)
    x = np.random.default_rng(0).standard_normal((5, 2))
    plain = model(x)
    cut = model(x, segments=2)
    np.testing.assert_array_equal(plain.data, cut.data)
    assert "Checkpoint" in [f.name for f in V.graph_functions(cut)]
    assert "Checkpoint" not in [f.name for f in V.graph_functions(plain)]
