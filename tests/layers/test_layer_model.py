"""Model.plot, Sequential and MLP."""

import shutil
import sys

import numpy as np
import pytest

import function as F
import layers as L
import variable as V
from variable.backend import to_cpu


class TwoLayer(L.Model):
    """A small user-defined model, as in the API example."""

    def __init__(self):
        super().__init__()
        self.l1 = L.Linear(4)
        self.l2 = L.Linear(2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_plot_renders_the_graph(tmp_path, rng, on_device):
    target = tmp_path / "model.png"
    out = TwoLayer().plot(on_device(rng.standard_normal((3, 5))), to_file=str(target))
    assert out == str(target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "model.svg"
    TwoLayer().plot(on_device(rng.standard_normal((3, 5))), to_file=str(svg))
    text = svg.read_text()
    assert "Linear" in text and "ReLU" in text


def test_plot_without_graphviz_writes_the_dot_file_and_says_how_to_render_it(monkeypatch, tmp_path, rng,
                                                                            on_device):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    target = tmp_path / "m.png"
    with pytest.warns(UserWarning, match=r"^Model\.plot: Graphviz's `dot` is not on PATH") as caught:
        out = TwoLayer().plot(on_device(rng.standard_normal((3, 5))), to_file=str(target))
    assert out == str(tmp_path / "m.dot") and not target.exists()        # and the script goes on
    text = (tmp_path / "m.dot").read_text()
    assert text.startswith("digraph") and "Linear" in text and "ReLU" in text
    warning, = caught
    assert f"dot -Tpng {tmp_path / 'm.dot'} -o {target}" in str(warning.message)
    assert warning.filename == __file__                                 # said at the caller's line


def test_sequential_applies_layers_and_functions_in_order(rng, on_device):
    seq = L.Sequential(L.Linear(4, in_size=3), F.tanh, L.Linear(2), L.Sigmoid())
    x = rng.standard_normal((5, 3))
    y = seq(on_device(x))
    h = np.tanh(x @ to_cpu(seq[0].W.data) + to_cpu(seq[0].b.data))
    expected = 1 / (1 + np.exp(-(h @ to_cpu(seq[2].W.data) + to_cpu(seq[2].b.data))))
    np.testing.assert_allclose(y.data, expected, rtol=1e-12)
    assert len(seq) == 4 and seq[-1] is seq[3] and list(seq)[1] is F.tanh
    assert [k for k, _ in seq.named_params()] == ["l0/W", "l0/b", "l2/W", "l2/b"]


def test_sequential_errors():
    with pytest.raises(TypeError, match="Sequential: step 1 must be a Layer or a function"):
        L.Sequential(L.Linear(2), 3)
    with pytest.raises(IndexError, match="Sequential: index 2 out of range for 2 steps"):
        L.Sequential(L.Linear(2), L.ReLU())[2]


def test_mlp_matches_numpy(rng, on_device):
    mlp = L.MLP((5, 4, 3))
    x = rng.standard_normal((6, 2))
    y = mlp(on_device(x))
    h = x
    for i in range(3):
        h = h @ to_cpu(getattr(mlp, f"l{i}").W.data) + to_cpu(getattr(mlp, f"l{i}").b.data)
        if i < 2:
            h = 1 / (1 + np.exp(-h))                 # default activation: sigmoid
    np.testing.assert_allclose(y.data, h, rtol=1e-12)
    assert [k for k, _ in mlp.named_params()] == ["l0/W", "l0/b", "l1/W", "l1/b", "l2/W", "l2/b"]


def test_mlp_with_another_activation_and_dtype(rng, on_device):
    mlp = L.MLP((3, 1), activation=F.relu, dtype=np.float32)
    x = rng.standard_normal((4, 2))
    y = mlp(on_device(x))
    assert all(p.dtype == np.float32 for p in mlp.params())
    h = np.maximum(x.astype(np.float32) @ to_cpu(mlp.l0.W.data) + to_cpu(mlp.l0.b.data), 0)
    np.testing.assert_allclose(y.data, h @ to_cpu(mlp.l1.W.data) + to_cpu(mlp.l1.b.data), rtol=1e-5)


def test_mlp_errors():
    with pytest.raises(ValueError, match="MLP: sizes must hold at least one layer size"):
        L.MLP(())
    with pytest.raises(TypeError, match="MLP: activation must be callable"):
        L.MLP((2,), activation="relu")


def test_model_is_a_layer_and_trains_in_the_dezero_loop(rng, on_device):
    import optimizers as O

    model = TwoLayer()
    opt = O.SGD(0.1).setup(model)
    x = on_device(rng.standard_normal((8, 5)))
    t = on_device(rng.standard_normal((8, 2)))
    losses = []
    for _ in range(20):
        loss = F.mean_squared_error(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.data))
    assert isinstance(model, L.Layer)
    assert losses[-1] < 0.7 * losses[0]


@pytest.mark.parametrize("step, shown", [(L.ReLU, r"L\.ReLU\(\)"), (L.Linear, r"L\.Linear\(\.\.\.\)"),
                                         (TwoLayer, r"TwoLayer\(\)")])
def test_a_layer_class_instead_of_a_layer_is_refused(step, shown):
    with pytest.raises(TypeError, match=rf"Sequential: step 1 is the class {step.__name__}, not a layer: "
                                        rf"pass an instance, {shown}"):
        L.Sequential(L.Linear(3), step)


def test_sequential_len_indexing_and_slicing_like_pytorch(rng, on_device):
    first, second, last = L.Linear(4, in_size=3), L.Linear(2), L.Tanh()
    seq = L.Sequential(first, F.relu, second, last)
    assert len(seq) == 4 and seq[0] is first and seq[-2] is second and seq[np.int64(3)] is last
    head = seq[:2]
    assert isinstance(head, L.Sequential) and len(head) == 2
    assert head[0] is first and head[1] is F.relu            # the same objects, parameters shared
    x = on_device(rng.standard_normal((5, 3)))
    np.testing.assert_array_equal(seq[2:](head(x)).data, seq(x).data)
    assert [s for s in seq[::-1]] == [last, second, F.relu, first]
    assert len(seq[10:]) == 0 and len(seq[-3:-1]) == 2 and seq[-3:-1][0] is F.relu
    assert [k for k, _ in seq[:1].named_params()] == ["l0/W", "l0/b"]
    with pytest.raises(IndexError, match="Sequential: index -5 out of range for 4 steps"):
        seq[-5]
    with pytest.raises(TypeError, match="Sequential: indices must be ints or slices, got str"):
        seq["l0"]


def test_flatten_joins_convolutions_to_a_linear_head_in_a_sequential(rng, on_device):
    model = L.Sequential(L.Conv2d(4, 3, pad=1), L.ReLU(), L.Flatten(), L.Linear(2))   # PyTorch's CNN habit
    x = on_device(rng.standard_normal((5, 1, 6, 6)))
    y = model(x)
    assert y.shape == (5, 2) and model.l3.W.shape == (4 * 6 * 6, 2)
    assert repr(model.l2) == "Flatten()"
    model.cleargrads()
    V.sum(y).backward()
    assert all(p.grad is not None for p in model.params())
    np.testing.assert_array_equal(to_cpu(L.Flatten()(x).data), to_cpu(x).reshape(5, -1))


def test_sequential_shows_a_lambda_step_as_written():
    model = L.Sequential(L.Linear(4), lambda x: F.pooling(x[:, None], 2, 2)[:, 0],
                         F.relu, lambda h: V.mean(h, axis=-1, keepdims=True))
    assert repr(model).splitlines()[2:5] == ["  (l1): lambda x: F.pooling(x[:, None], 2, 2)[:, 0]",
                                             "  (l2): F.relu",
                                             "  (l3): lambda h: V.mean(h, axis=-1, keepdims=True)"]
    double, halve = (lambda x: 2 * x), (lambda x: x / 2)         # two on one line: each its own
    expected = ["  (l0): lambda x: 2 * x", "  (l1): lambda x: x / 2"]
    if sys.version_info < (3, 11):                                # (no code positions to tell them apart)
        expected = ["  (l0): <lambda>", "  (l1): <lambda>"]
    assert repr(L.Sequential(double, halve)).splitlines()[1:3] == expected
    typed = eval("lambda x: x")                                   # no file to read: its name
    assert repr(L.Sequential(typed)).splitlines()[1] == "  (l0): <lambda>"
