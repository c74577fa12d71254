"""Habits of DeZero-book readers and PyTorch users with layers (docs/from_dezero.md).

The book's weights come from NumPy's global random state, which `L.use_numpy_global_random()`
makes gengrad draw from too; PyTorch's and DeZero's names that gengrad spells otherwise raise
an AttributeError naming gengrad's spelling, and are absent to `hasattr`.
"""

import numpy as np
import pytest

import layers as L
import variable as V
from variable.backend import to_cpu  # device data compared on the host


@pytest.fixture
def numpy_global():
    """Draw from NumPy's global random state for the test, then go back to gengrad's generator."""
    L.use_numpy_global_random()
    yield
    L.use_numpy_global_random(False)


def test_weights_are_drawn_as_dezero_draws_them_after_np_random_seed(numpy_global):
    np.random.seed(0)
    model = L.MLP((10, 1))
    model(np.ones((2, 3)))
    expected = np.random.RandomState(0)           # DeZero: randn(I, O) * sqrt(1 / I), layer by layer
    W0 = expected.randn(3, 10) * np.sqrt(1 / 3)
    W1 = expected.randn(10, 1) * np.sqrt(1 / 10)
    np.testing.assert_array_equal(model.l0.W.data, W0)
    np.testing.assert_array_equal(model.l1.W.data, W1)
    np.testing.assert_array_equal(model.l0.b.data, np.zeros(10))


def test_conv_and_embedding_weights_follow_np_random_too(numpy_global):
    np.random.seed(1)
    conv = L.Conv2d(4, 3, in_channels=2)
    embed = L.EmbedID(5, 2)
    expected = np.random.RandomState(1)
    np.testing.assert_array_equal(conv.W.data, expected.randn(4, 2, 3, 3) * np.sqrt(1 / 18))
    np.testing.assert_array_equal(embed.W.data, expected.randn(5, 2))


def test_a_loader_shuffles_with_np_random_permutation(numpy_global):
    x = np.arange(10.0)
    np.random.seed(3)
    batches = [b.copy() for b in L.DataLoader(x, batch_size=10)]
    np.testing.assert_array_equal(batches[0], np.random.RandomState(3).permutation(10))


def test_an_explicit_rng_and_switching_back_are_untouched(numpy_global):
    np.random.seed(0)
    given = L.Linear(2, in_size=3, rng=np.random.default_rng(5))
    drawn = np.random.default_rng(5).standard_normal((3, 2)) * np.sqrt(1 / 3)
    np.testing.assert_array_equal(given.W.data, drawn)
    L.use_numpy_global_random(False)
    L.seed(0)
    ours = L.Linear(2, in_size=3).W.data
    L.seed(0)
    np.testing.assert_array_equal(L.Linear(2, in_size=3).W.data, ours)
    np.random.seed(0)
    assert not np.array_equal(to_cpu(ours), np.random.randn(3, 2) * np.sqrt(1 / 3))


@pytest.mark.parametrize("name, fix", [
    ("parameters", r"model\.params\(\)"),
    ("named_parameters", r"model\.named_params\(\)"),
    ("zero_grad", r"model\.cleargrads\(\)"),
    ("eval", r"with V\.test_mode\(\):"),
    ("train", r"V\.test_mode\(\)"),
])
def test_pytorch_names_of_a_model_name_gengrads(name, fix):
    model = L.MLP((3, 1))
    with pytest.raises(AttributeError, match=rf"'MLP' object has no attribute '{name}'.*{fix}"):
        getattr(model, name)
    assert not hasattr(model, name)


def test_a_layer_may_define_the_pytorch_names_itself():
    class Net(L.Model):
        def __init__(self):
            super().__init__()
            self.l1 = L.Linear(2)
            self.eval = "kept"

        def train(self):
            return "trained"

        def forward(self, x):
            return self.l1(x)

    net = Net()
    assert net.eval == "kept" and net.train() == "trained"


def test_evaluation_under_test_mode_is_what_eval_would_be():
    layer = L.Dropout(0.5)
    x = np.ones((4, 5))
    with V.test_mode():
        np.testing.assert_array_equal(layer(x).data, x)
    assert not np.array_equal(to_cpu(layer(x).data), x)


@pytest.mark.parametrize("name, fix", [
    ("get_spiral", r"L\.datasets\.spiral\(\)"),
    ("Spiral", r"L\.DataLoader"),
    ("SinCurve", r"L\.datasets\.sine_curve\(\)"),
    ("MNIST", r"load_mnist"),
])
def test_dezero_data_set_names_name_gengrads(name, fix):
    with pytest.raises(AttributeError, match=rf"no attribute '{name}'.*DeZero's name.*{fix}"):
        getattr(L.datasets, name)
    with pytest.raises(AttributeError, match=r"no attribute 'nothing'$"):
        L.datasets.nothing  # noqa: B018


def test_a_batch_size_given_by_position_is_named():
    x, t = np.ones((100, 2)), np.arange(100) % 3
    with pytest.raises(TypeError, match=r"argument 3 is the number 30.*keyword-only.*"
                                        r"L\.DataLoader\(x, t, batch_size=30\)"):
        L.DataLoader(x, t, 30)
    with pytest.raises(TypeError, match=r"L\.DataLoader\(x, batch_size=5\)"):
        L.DataLoader(x, 5)
    assert len(L.DataLoader(x, t, batch_size=30)) == 4


def test_the_seed_mode_is_checked():
    with pytest.raises(TypeError, match="use_numpy_global_random: on must be True or False, got str"):
        L.use_numpy_global_random("yes")
    np.random.seed(0)                                        # still gengrad's generator
    W = to_cpu(L.Linear(2, in_size=3).W.data)
    assert not np.array_equal(W, np.random.RandomState(0).randn(3, 2) * np.sqrt(1 / 3))
