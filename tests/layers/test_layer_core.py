"""Parameter and Layer: registration by attribute, params() once each, cleargrads, calling."""

import numpy as np
import pytest

import function as F
import layers as L
import variable as V
from variable.backend import to_cpu


class Affine(L.Layer):
    """y = x * w + c with two hand-made parameters."""

    def __init__(self, w=2.0, c=1.0):
        super().__init__()
        self.w = L.Parameter(np.array([w]))
        self.c = L.Parameter(np.array([c]))

    def forward(self, x):
        return x * self.w + self.c


class Outer(L.Layer):
    """Nested layers, a shared layer and a plain Variable that must not be registered."""

    def __init__(self):
        super().__init__()
        self.first = Affine(2.0, 1.0)
        self.inner = L.Layer()
        self.inner.deep = Affine(3.0, 0.0)
        self.inner.again = self.first          # the same layer reached twice
        self.scale = L.Parameter(np.array([0.5]))
        self.state = V.Variable(np.array([9.0]))   # not a Parameter: not collected
        self.size = 3

    def forward(self, x):
        return self.inner.deep(self.first(x)) * self.scale


def test_parameter_is_a_variable_that_requires_grad():
    p = L.Parameter(np.array([1.0, 2.0], dtype=np.float32), name="w")
    assert isinstance(p, V.Variable)
    assert p.requires_grad and p.dtype == np.float32 and p.name == "w"
    assert repr(p) == "parameter([1. 2.])"
    assert L.Parameter(0.5).dtype == np.float64


def test_parameter_rejects_integer_data():
    with pytest.raises(TypeError, match="Parameter: data must be a floating-point array, got dtype int64"):
        L.Parameter(np.array([1, 2]))


def test_params_are_found_in_assignment_order_each_once():
    model = Outer()
    paths = [path for path, _ in model.named_params()]
    assert paths == ["first/w", "first/c", "inner/deep/w", "inner/deep/c", "scale"]
    params = list(model.params())
    assert len({id(p) for p in params}) == 5
    assert params[0] is model.first.w and params[-1] is model.scale


def test_a_shared_parameter_appears_once():
    model = L.Layer()
    model.a = Affine()
    model.b = Affine()
    model.b.w = model.a.w
    assert [p for p, _ in model.named_params()] == ["a/w", "a/c", "b/c"]


def test_reassigning_or_deleting_an_attribute_unregisters_it():
    model = Outer()
    del model.scale                              # a parameter leaves only by del
    del model.first                              # still reachable as inner/again
    assert [p for p, _ in model.named_params()] == ["inner/deep/w", "inner/deep/c",
                                                    "inner/again/w", "inner/again/c"]
    del model.inner.again
    assert [p for p, _ in model.named_params()] == ["inner/deep/w", "inner/deep/c"]
    model.first = Affine()
    assert [p for p, _ in model.named_params()][-2:] == ["first/w", "first/c"]


@pytest.mark.parametrize("value, kind", [
    (np.ones((2, 3)), "ndarray"),
    (None, "NoneType"),
    (3.0, "float"),
    (L.ReLU(), "ReLU"),
])
def test_a_parameter_is_not_replaced_by_what_is_not_a_parameter(value, kind):
    layer = L.Linear(3, in_size=2)
    W = layer.W
    with pytest.raises(TypeError) as info:
        layer.W = value
    message = str(info.value)
    assert message.startswith(f"cannot assign {kind} as parameter 'W' of Linear: it would unregister")
    assert "use layer.W.data[...] = ... (or layer.W.data = array), or assign a Parameter" in message
    assert ("del layer.W" in message) == (value is None or kind == "ReLU")
    assert layer.W is W and [k for k, _ in layer.named_params()] == ["W", "b"]


def test_a_computed_variable_in_place_of_a_parameter_points_to_in_place_updates(on_device):
    layer = L.Linear(3, in_size=2)
    layer(on_device(np.ones((1, 2)))).sum().backward()
    with pytest.raises(TypeError, match=r"cannot assign Variable as parameter 'W' of Linear: .* update it "
                                        r"in place with layer\.W\.data -= lr \* layer\.W\.grad\.data"):
        layer.W = layer.W - 0.1 * layer.W.grad
    assert isinstance(layer.W, L.Parameter)


def test_a_parameter_may_be_replaced_by_a_parameter_or_deleted():
    layer = L.Linear(3, in_size=2)
    new = L.Parameter(np.zeros((2, 3)))
    layer.W = new
    assert layer.W is new and [p for p in layer.params()][0] is new
    del layer.W
    assert [k for k, _ in layer.named_params()] == ["b"]
    layer.W = np.ones((2, 3))                        # no parameter there any more: a plain attribute
    assert [k for k, _ in layer.named_params()] == ["b"]


def test_an_optimizer_keeps_updating_a_weight_changed_through_data(on_device):
    import optimizers as O

    layer = L.Linear(1, in_size=1)
    opt = O.SGD(lr=0.5).setup(layer)
    layer.W.data[...] = 2.0                          # the fix the error names
    layer(on_device(np.ones((1, 1)))).sum().backward()
    opt.update()
    np.testing.assert_allclose(layer.W.data, [[1.5]])


def test_layers_yields_every_sublayer_once():
    model = Outer()
    found = list(model.layers())
    assert found == [model.first, model.inner, model.inner.deep]


def test_cleargrads_clears_every_parameter():
    model = Outer()
    y = model(V.Variable(np.array([1.0, 2.0])))
    V.sum(y).backward()
    assert all(p.grad is not None for p in model.params())
    model.cleargrads()
    assert all(p.grad is None for p in model.params())


def test_call_runs_forward_and_backward_reaches_nested_parameters():
    model = Outer()
    x = np.array([1.0, 2.0])
    y = model(V.Variable(x))                         # where V.Variable puts data (GENGRAD_DEVICE)
    # y = ((x * 2 + 1) * 3 + 0) * 0.5
    np.testing.assert_allclose(y.data, ((x * 2 + 1) * 3) * 0.5)
    V.sum(y).backward()
    np.testing.assert_allclose(model.scale.grad.data, [np.sum((x * 2 + 1) * 3)])
    np.testing.assert_allclose(model.first.w.grad.data, [np.sum(x * 3 * 0.5)])


def test_call_returns_tuples_for_several_outputs():
    class Two(L.Layer):
        def forward(self, x):
            return [x * 2, x * 3]

    out = Two()(V.Variable(np.array([1.0])))
    assert isinstance(out, tuple) and len(out) == 2


def test_forward_must_return_variables():
    class Bad(L.Layer):
        def forward(self, x):
            return to_cpu(x.data)        # an ndarray, on every device

    class BadTuple(L.Layer):
        def forward(self, x):
            return x, 3

    with pytest.raises(TypeError, match="Bad.forward must return a Variable or a tuple of Variables, "
                                        "got ndarray"):
        Bad()(V.Variable(np.array([1.0])))
    with pytest.raises(TypeError, match=r"BadTuple.forward must return Variables, got a tuple of "
                                        r"\(Variable, int\)"):
        BadTuple()(V.Variable(np.array([1.0])))


def test_forward_not_defined():
    with pytest.raises(NotImplementedError, match="Layer.forward is not defined"):
        L.Layer()(np.zeros(2))


def test_registration_works_without_super_init():
    class Forgetful(L.Layer):
        def __init__(self):
            self.w = L.Parameter(np.array([1.0]))

    assert [p for p, _ in Forgetful().named_params()] == ["w"]


def test_layers_in_a_list_are_refused_with_advice():
    model = L.Layer()
    with pytest.raises(TypeError, match=r"attribute 'blocks' is a list holding layers.*L.Sequential"):
        model.blocks = [L.Linear(2), L.Linear(3)]
    model.sizes = [1, 2, 3]                      # a list of plain values is fine
    assert model.sizes == [1, 2, 3]


def test_a_layer_cannot_contain_itself():
    model = L.Layer()
    with pytest.raises(ValueError, match="a layer cannot contain itself"):
        model.me = model


def test_cycles_between_layers_terminate():
    a, b = L.Layer(), L.Layer()
    a.w = L.Parameter(np.array([1.0]))
    a.b = b
    b.a = a
    assert [p for p, _ in a.named_params()] == ["w"]
    assert list(a.layers()) == [b]


def test_buffers_are_registered_and_type_checked():
    layer = L.Layer()
    layer.register_buffer("running", np.zeros(3))
    layer.running = np.ones(3)
    assert [(k, v.tolist()) for k, v in layer.named_buffers()] == [("running", [1.0, 1.0, 1.0])]
    assert list(layer.params()) == []
    with pytest.raises(TypeError, match="buffer 'running' must hold an ndarray or None, got list"):
        layer.running = [1, 2]
    with pytest.raises(TypeError, match="register_buffer: 'other' must be an ndarray or None"):
        layer.register_buffer("other", 3)


def test_repr_shows_the_tree():
    model = L.Sequential(L.Linear(2, in_size=3), L.ReLU())
    text = repr(model)
    assert "(l0): Linear(" in text and "(W): Parameter(3, 2) float64" in text and "(l1): ReLU()" in text


def test_a_sequential_repr_lists_its_function_steps_too():
    def double(x):
        return 2 * x

    model = L.Sequential(L.Linear(2, in_size=3), F.relu, double, L.Sequential(F.softmax))
    lines = repr(model).splitlines()
    assert lines[0] == "Sequential(" and lines[-1] == ")"
    assert "  (l1): F.relu" in lines and "  (l2): double" in lines        # (functions were left out)
    assert "  (l3): Sequential(" in lines and "    (l0): F.softmax" in lines
    assert repr(L.Sequential()) == "Sequential()"
    mlp = repr(L.MLP((4, 2), activation=F.relu)).splitlines()
    assert mlp[0] == "MLP(" and mlp[-2:] == ["  (activation): F.relu", ")"]
    assert "  (l1): Linear(out_size=2)" in mlp                           # (not built yet: its settings)


@pytest.mark.parametrize("layer, text", [
    (L.Dropout(0.3), "Dropout(p=0.3)"),
    (L.LeakyReLU(0.2), "LeakyReLU(alpha=0.2)"),
    (L.ELU(), "ELU(alpha=1.0)"),
    (L.CELU(0.5), "CELU(alpha=0.5)"),
    (L.HardTanh(0, 6), "HardTanh(min_val=0.0, max_val=6.0)"),
    (L.GELU("tanh"), "GELU(approximate='tanh')"),
    (L.Softmax(axis=0), "Softmax(axis=0)"),
    (L.ReLU(), "ReLU()"),
    (L.Linear(3), "Linear(out_size=3)"),
    (L.Linear(3, nobias=True), "Linear(out_size=3, nobias=True)"),
    (L.Conv2d(8, 3, pad=1), "Conv2d(out_channels=8, kernel_size=(3, 3), stride=(1, 1), pad=(1, 1))"),
    (L.BatchNorm(decay=0.99), "BatchNorm(decay=0.99, eps=2e-05)"),
    (L.LayerNorm(), "LayerNorm(eps=1e-05)"),
])
def test_a_layer_with_nothing_to_list_shows_its_settings(layer, text):
    assert repr(layer) == text                  # (PyTorch's Dropout(p=0.3), LeakyReLU(negative_slope=0.2))


def test_a_built_layer_lists_its_parameters_instead_of_its_settings():
    layer = L.Linear(3)
    layer(np.ones((1, 2)))
    assert repr(layer).splitlines() == ["Linear(", "  (W): Parameter(2, 3) float64",
                                        "  (b): Parameter(3,) float64", ")"]


def test_a_layer_may_keep_its_own_list_named_layers_as_dezeros_mlp_does():
    class MLP(L.Model):                          # DeZero's MLP, as its book writes it
        def __init__(self, sizes):
            super().__init__()
            self.layers = []
            for i, size in enumerate(sizes):
                layer = L.Linear(size)
                setattr(self, "l" + str(i), layer)
                self.layers.append(layer)

        def forward(self, x):
            for layer in self.layers[:-1]:
                x = F.relu(layer(x))
            return self.layers[-1](x)

    model = MLP((4, 1))
    assert model(np.ones((2, 3))).shape == (2, 1)
    assert type(model.layers) is list and len(list(model.params())) == 4
    assert list(L.MLP((4, 2)).layers()) and repr(L.MLP((4, 2)).layers) == "<method layers of MLP>"
