"""Names that PyTorch (or NumPy) users reach for and gengrad spells otherwise.

Each is refused with an AttributeError naming gengrad's spelling (`x.permute`, `V.cat`,
`F.cross_entropy`, `L.Module`, `O.Adagrad`), and every spelling a message names must exist:
a hint that sends the user to a missing name would be a second slip.
"""

import re

import numpy as np
import pytest

import function as F
import layers as L
import optimizers as O
import variable as V
from variable import variable as variable_module

TENSOR_NAMES = {**variable_module._TORCH_TENSOR_NAMES, **variable_module._NUMPY_IN_PLACE,
                **variable_module._NUMPY_OTHER}
MODULES = {"variable": V, "function": F, "layers": L, "optimizers": O}
MODULE_NAMES = [(module, name, fix) for module in MODULES.values()
                for name, (_, fix) in module._SPELLED_OTHERWISE.items()]


def _variable():
    return V.Variable(np.ones((2, 3)))


@pytest.mark.parametrize("name", sorted(TENSOR_NAMES))
def test_a_variable_refuses_the_name_with_its_fix(name):
    x = _variable()
    assert not hasattr(x, name)
    with pytest.raises(AttributeError) as caught:
        getattr(x, name)
    assert str(caught.value).startswith(f"'Variable' object has no attribute {name!r}; that is ")
    assert TENSOR_NAMES[name] in str(caught.value)


@pytest.mark.parametrize("module, name, fix", MODULE_NAMES, ids=lambda v: getattr(v, "__name__", str(v)[:30]))
def test_a_package_refuses_the_name_with_its_fix(module, name, fix):
    if name in vars(module):  # (function has relu, which variable's table names for V.relu)
        assert module is F and name in F.__all__
        return
    assert not hasattr(module, name)
    with pytest.raises(AttributeError) as caught:
        getattr(module, name)
    message = str(caught.value)
    assert message.startswith(f"module {module.__name__!r} has no attribute {name!r}; that is ")
    assert fix in message


def _torch_names(cls):
    return {name: attr.fix for name, attr in vars(cls).items()
            if isinstance(attr, variable_module._TorchName)}


OBJECT_NAMES = [(make, name, fix)
                for cls, make in ((L.Layer, lambda: L.MLP((3, 1))), (O.Optimizer, lambda: O.Adam()))
                for name, fix in sorted(_torch_names(cls).items())]


@pytest.mark.parametrize("make, name, fix", OBJECT_NAMES, ids=lambda v: v if isinstance(v, str) else "")
def test_a_model_or_optimizer_refuses_the_name_with_its_fix(make, name, fix):
    obj = make()
    assert not hasattr(obj, name)
    with pytest.raises(AttributeError) as caught:
        getattr(obj, name)
    assert str(caught.value) == (f"{type(obj).__name__!r} object has no attribute {name!r}; "
                                 f"that is PyTorch's name: in gengrad, {fix}")


def test_a_layer_may_still_use_such_a_name_for_its_own_attribute():
    layer = L.Linear(2)
    layer.modules = ["mine"]                         # the instance's own value comes first
    assert layer.modules == ["mine"]


def test_names_no_table_knows_stay_plain_attribute_errors():
    for module in MODULES.values():
        with pytest.raises(AttributeError, match=r"^module '\w+' has no attribute 'no_such_name'$"):
            module.no_such_name  # noqa: B018


_OWNERS = {
    "V": lambda: V, "F": lambda: F, "L": lambda: L, "O": lambda: O, "np": lambda: np,
    "x": _variable, "y": _variable, "p": _variable, "b": _variable, "logp": _variable,
    "opt": lambda: O.SGD(lr=0.1), "model": lambda: L.Linear(2),
}
_NAMED = re.compile(r"(?<![\w.])(" + "|".join(_OWNERS) + r")((?:\.[A-Za-z_]\w*)+)")


def _named_spellings():
    texts = list(TENSOR_NAMES.values()) + [fix for _, _, fix in MODULE_NAMES]
    texts += [whose for whose, _ in variable_module._PYTORCH_KEYWORDS.values()]
    texts += [fix for _, _, fix in OBJECT_NAMES]
    return sorted({match.group(0) for text in texts for match in _NAMED.finditer(text)})


@pytest.mark.parametrize("spelling", _named_spellings())
def test_every_spelling_a_hint_names_exists(spelling):
    owner, *path = spelling.split(".")
    obj = _OWNERS[owner]()
    for part in path:
        assert hasattr(obj, part), f"{spelling}: {type(obj).__name__} has no {part!r}"
        obj = getattr(obj, part)


def test_the_hints_name_spellings_at_all():
    assert len(_named_spellings()) > 60  # the parser above finds what the tables name


def test_the_wrapped_ops_keep_their_names_docs_and_signatures():
    import inspect

    from variable.ops import reduction
    assert V.sum.__wrapped__ is reduction.sum
    assert V.sum.__name__ == "sum" and V.sum.__doc__ == reduction.sum.__doc__
    assert inspect.signature(V.sum) == inspect.signature(reduction.sum)
    assert F.sum is V.sum


def test_transpose_of_two_axes_means_numpys_permutation_where_it_is_one():
    x = V.Variable(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(x.transpose(1, 0).data, x.data.T)  # a swap in both
    np.testing.assert_array_equal(x.transpose((0, 1)).data, x.data)  # the identity, asked for
    y = V.Variable(np.ones((2, 3, 4)))
    assert y.transpose(1, 0, 2).shape == (3, 2, 4)
    with pytest.raises(ValueError, match=r"not a permutation of the axes of an input of shape \(2, 3\)$"):
        x.transpose(0, 5)  # out of range: NumPy's refusal, with no PyTorch hint


_DIM = r"\(dim is PyTorch's name: write axis=|keepdim is PyTorch's spelling"


@pytest.mark.parametrize("wrong, refused, right", [
    (lambda x: V.sum(x, dim=1), _DIM, lambda x: V.sum(x, axis=1)),
    (lambda x: F.softmax(x, dim=0), _DIM, lambda x: F.softmax(x, axis=0)),
    (lambda x: V.concat([x, x], dim=1), _DIM, lambda x: V.concat([x, x], axis=1)),
    (lambda x: V.mean(x, 0, keepdim=True), _DIM, lambda x: V.mean(x, 0, keepdims=True)),
    (lambda x: L.Linear(3, bias=False)(x), r"Linear\(\) got .* 'bias'; .*write nobias=True",
     lambda x: L.Linear(3, nobias=True)(x)),
    (lambda x: L.Linear(out_features=6, in_features=3)(x), r"'out_features'; .*write out_size=6",
     lambda x: L.Linear(out_size=6, in_size=3)(x)),
    (lambda x: L.LayerNorm(normalized_shape=3)(x), r"write size=3", lambda x: L.LayerNorm(size=3)(x)),
    (lambda x: L.LeakyReLU(negative_slope=0.2)(x), r"write alpha=0\.2", lambda x: L.LeakyReLU(alpha=0.2)(x)),
    (lambda x: L.Dropout(dropout_ratio=0.3)(x), r"dropout_ratio is DeZero's name: write p=0\.3",
     lambda x: L.Dropout(p=0.3)(x)),
    (lambda x: L.ReLU(inplace=True)(x), r"ReLU\(\) got .* 'inplace'.*drop inplace=True",
     lambda x: L.ReLU()(x)),
    (lambda x: L.Softmax(dim=0)(x), r"dim is PyTorch's name: write axis=0", lambda x: L.Softmax(axis=0)(x)),
    (lambda x: L.Conv2d(2, 3, padding=1)(x.reshape(1, 1, 2, 3)), r"Conv2d\(\) got .* 'padding'.*write pad=1",
     lambda x: L.Conv2d(2, 3, pad=1)(x.reshape(1, 1, 2, 3))),
    (lambda x: F.relu(x, inplace=True), r"relu\(\) got .* 'inplace'", lambda x: F.relu(x)),
    (lambda x: F.conv2d(x.reshape(1, 1, 2, 3), np.ones((1, 1, 1, 1)), padding=1), r"write pad=1",
     lambda x: F.conv2d(x.reshape(1, 1, 2, 3), np.ones((1, 1, 1, 1)), pad=1)),
    (lambda x: F.linear(x, np.ones((3, 2)), bias=np.ones(2)), r"bias is PyTorch's name: write b=\.\.\.",
     lambda x: F.linear(x, np.ones((3, 2)), b=np.ones(2))),
    (lambda x: F.mean_squared_error(x, 0 * x, size_average=False),
     r"size_average is PyTorch's keyword; PyTorch 0\.4\.1 replaced it with reduction=.*size_average=False is "
     r"reduction='sum'", lambda x: F.mean_squared_error(x, 0 * x, reduction="sum")),
    (lambda x: F.sigmoid_cross_entropy(x, np.ones((2, 3)), reduce=False),
     r"reduce=False is reduction='none'",
     lambda x: F.sigmoid_cross_entropy(x, np.ones((2, 3)), reduction="none")),
])
def test_pytorch_keywords_of_layers_and_functions_are_refused_and_the_fix_works(wrong, refused, right):
    x = V.Variable(np.linspace(-1.0, 1.0, 6).reshape(2, 3))
    with pytest.raises(TypeError, match=refused):
        wrong(x)
    y = right(x)
    y.sum().backward()
    assert x.grad.shape == x.shape


def test_every_renamed_keyword_names_one_gengrad_takes():
    takes = set()
    for module in (F, L):
        for name in dir(module):
            obj = getattr(module, name)
            if callable(obj) and not name.startswith("_"):
                takes |= variable_module.keywords_of(obj.__init__ if isinstance(obj, type) else obj) or set()
    for key, (_, ours) in variable_module._RENAMED_KEYWORDS.items():
        assert ours in takes, f"{key} is refused naming {ours}, which no layer or function takes"


def test_a_layer_of_ones_own_may_take_any_of_those_keywords():
    class Gate(L.Layer):
        def __init__(self, bias=True, inplace=False, padding=0):
            super().__init__()
            self.bias, self.inplace, self.padding = bias, inplace, padding

    gate = Gate(bias=False, inplace=True, padding=2)
    assert (gate.bias, gate.inplace, gate.padding) == (False, True, 2)


def test_every_exported_function_pickles_as_itself():
    import pickle

    functions = {id(f): f for module in (V, F) for name in module.__all__
                 if callable(f := getattr(module, name)) and not isinstance(f, type)}
    assert len(functions) > 400
    for f in functions.values():
        assert pickle.loads(pickle.dumps(f)) is f, repr(f)
    model = L.Sequential(L.Linear(2), F.relu, F.softmax)
    steps = pickle.loads(pickle.dumps(model))
    assert steps[1] is F.relu and steps[2] is F.softmax


def test_the_multilabel_margin_loss_hint_computes_pytorchs_definition():
    # PyTorch's docs: sum over target classes j and non-target classes i of
    # max(0, 1 - (x[y_j] - x[i])) / C, averaged over the rows; y's targets end at its first -1
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4))
    y = np.array([[3, 0, -1, 1], [2, -1, -1, -1], [0, 1, 2, 3]])
    expected = 0.0
    for row, targets in zip(x, y):
        targets = list(targets[:list(targets).index(-1)] if -1 in targets else targets)
        expected += sum(max(0.0, 1 - (row[j] - row[i])) for j in targets for i in range(4)
                        if i not in targets) / 4
    m = np.zeros((3, 4))
    m[0, [3, 0]] = m[1, 2] = m[2, :] = 1
    xv, C = V.Variable(x), 4
    hinge = V.maximum(0, 1 - xv[:, :, None] + xv[:, None, :])
    loss = V.mean(V.sum(m[:, :, None] * (1 - m)[:, None, :] * hinge, axis=(1, 2)) / C)
    hint = str(F._SPELLED_OTHERWISE["multilabel_margin_loss"])
    assert "* V.maximum(0, 1 - x[:, :, None] + x[:, None, :]), axis=(1, 2)) / C)" in hint
    np.testing.assert_allclose(loss.data, expected / 3, rtol=1e-14)


def test_the_conv_tbc_hint_computes_a_convolution_over_time():
    rng = np.random.default_rng(4)
    T, B, cin, cout, k, pad = 6, 2, 3, 2, 3, 1
    x, W, b = rng.standard_normal((T, B, cin)), rng.standard_normal((k, cin, cout)), rng.standard_normal(cout)
    padded = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    expected = np.stack([sum(padded[t + j] @ W[j] for j in range(k)) + b for t in range(T + 2 * pad - k + 1)])
    y = F.conv1d(x.transpose(1, 2, 0), W.transpose(2, 1, 0), b, pad=pad).transpose(2, 0, 1)
    np.testing.assert_allclose(y.data, expected, rtol=1e-13, atol=1e-14)
