"""Layer: a callable holding Parameters and sub-layers, found by attribute assignment."""

from collections.abc import Iterator

import numpy as np

from variable import Variable, backend
from variable.variable import (
    AXIS_KEYWORDS,
    RENAMED_KEYWORDS,
    _MixedGrad,
    _TorchName,
    foreign_keyword,
    keywords_of,
)

from . import serialization
from .parameter import Parameter

# Bumped whenever any layer gains or loses a Parameter or sub-layer, so `params()` can
# reuse its last answer (it runs twice per training step: cleargrads and update).
_structure = {"version": 0}


def _is_array(value):
    """Whether `value` is an ndarray or a device array (a CuPy array)."""
    return isinstance(value, np.ndarray) or backend.is_device_array(value)


def _holds_layers(value):
    return isinstance(value, (list, tuple, dict, set)) and any(
        isinstance(v, (Layer, Parameter)) for v in (value.values() if isinstance(value, dict) else value)
    )


_LAYER_KEYWORDS = frozenset((*AXIS_KEYWORDS, *RENAMED_KEYWORDS, "inplace"))
"""The keywords of PyTorch's layers (and DeZero's) that a layer refuses naming gengrad's."""


class _SubLayers:
    """What `model.layers` is: called, an iterator over every sub-layer, depth first; used as
    DeZero's MLP's list attribute of that name (indexed, iterated, measured) it refuses, naming
    the call and a Sequential's own indexing."""

    __slots__ = ("_of",)

    def __init__(self, of):
        self._of = of

    def __call__(self) -> Iterator["Layer"]:
        return self._of._sub_layers()

    def _refuse(self, *args):
        steps = ("its steps are model[i], `for step in model` and len(model)" if hasattr(self._of, "__len__")
                 else "a layer set as an attribute is read by its name (model.l0, model.l1, ... in an L.MLP)")
        raise TypeError(
            f"{type(self._of).__name__}.layers is a method here, not a list: model.layers() yields every "
            f"sub-layer, nested ones included, depth first (DeZero's MLP keeps a list of that name); "
            f"{steps}")

    __getitem__ = __iter__ = __len__ = _refuse

    def __repr__(self):
        return f"<method layers of {type(self._of).__name__}>"


class _LayersMethod:
    """`model.layers()`: yield every sub-layer (not the model itself), depth first, each once.

    A layer that sets an attribute `layers` of its own (DeZero's MLP keeps its Linears in a
    list of that name) reads its own: this descriptor gives way to the instance's attribute."""

    def __get__(self, obj, owner=None):
        return self if obj is None else _SubLayers(obj)


class Layer:
    """Base class of layers and models: assign Parameters and Layers as attributes.

    Every attribute whose value is a `Parameter` or a `Layer` is registered (in
    assignment order), so `params()` finds it, nested layers included.  Subclasses
    implement `forward`; calling the layer runs it.  Arrays that are state but not
    trained (batch norm's running statistics) are registered with `register_buffer`
    so that `save_weights` keeps them too.

    An attribute that holds a Parameter takes only another Parameter: assigning an
    array, a computed Variable or None to it raises a TypeError rather than quietly
    dropping the parameter from `params()` (change its values with `layer.W.data[...] =
    ...`).  `del layer.W` removes a parameter on purpose.
    """

    torch_keywords: dict[str, str] = {}
    """Keywords of the PyTorch layer a subclass mirrors that it does not take ({keyword: what to
    write instead}, `{name}` standing for the class's name): refused first, by `__new__`."""

    def __new__(cls, *args, **kwargs):
        """Refuse the keywords of PyTorch's layers (and DeZero's) that gengrad's spell otherwise,
        naming the fix: the class's own `torch_keywords` (`L.GRU(8, batch_first=True)`), then
        those of every layer: `L.Linear(10, bias=False)` (nobias=True), `L.Conv2d(8, 3,
        padding=1)` (pad=1), `L.ReLU(inplace=True)` (no in-place form)."""
        for key in kwargs:
            if key in cls.torch_keywords:
                fix = cls.torch_keywords[key].format(name=cls.__name__)
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {key!r}; {key} is "
                                f"PyTorch's keyword: {fix}")
        if kwargs and not _LAYER_KEYWORDS.isdisjoint(kwargs):
            accepted = keywords_of(cls.__init__)
            if accepted is not None:
                for key, value in kwargs.items():            # (the first as written)
                    why = key in _LAYER_KEYWORDS and foreign_keyword(cls.__name__, key, value, accepted)
                    if why:
                        raise TypeError(why)
        return super().__new__(cls)

    def __init__(self):
        self._ensure_registry()

    # PyTorch's names, refused with gengrad's (DeZero's) spelling
    parameters = _TorchName("model.params() lists the parameters")
    named_parameters = _TorchName("model.named_params() gives (path, parameter) pairs")
    zero_grad = _TorchName("model.cleargrads() forgets the gradients, before loss.backward()")
    eval = _TorchName("evaluation is not a state of the model: evaluate inside `with V.test_mode():` "
                      "(dropout off, batch norm on its running statistics), as in DeZero")
    train = _TorchName("training is the default: code outside `with V.test_mode():` trains "
                       "(dropout on, batch norm updating its statistics)")
    state_dict = _TorchName("model.save_weights(path) writes every parameter and buffer to one .npz "
                            "file (model.named_params() gives them as (path, parameter) pairs)")
    load_state_dict = _TorchName("model.load_weights(path) reads what model.save_weights(path) wrote")
    modules = _TorchName("model.layers() lists the layers, nested ones included")
    apply = _TorchName("for layer in model.layers(): init(layer) (model.layers() lists the layers, "
                       "nested ones included; set a parameter with layer.W.data[...] = ...)")
    children = _TorchName("model.layers() lists the layers, nested ones included")
    cuda = _TorchName("model.to_gpu() moves the parameters to the GPU (CuPy)")
    cpu = _TorchName("model.to_cpu() moves the parameters back to the host")
    to = _TorchName("model.to_gpu() and model.to_cpu() move the parameters; a float32 model is "
                    "built from float32 inputs (or loaded from float32 weights)")

    # ----- registration ---------------------------------------------------------
    def _ensure_registry(self):
        d = self.__dict__
        if "_children" not in d:
            object.__setattr__(self, "_children", {})   # name -> None, an ordered set
            object.__setattr__(self, "_buffers", {})

    def __setattr__(self, name, value):
        self._ensure_registry()
        if not isinstance(value, Parameter) and isinstance(self.__dict__.get(name), Parameter):
            raise TypeError(self._replaced_parameter_message(name, value))
        if isinstance(value, (Parameter, Layer)):
            if value is self:
                raise ValueError(f"{type(self).__name__}: a layer cannot contain itself (attribute {name!r})")
            self._children[name] = None
            _structure["version"] += 1
        else:
            if self._children.pop(name, False) is None:
                _structure["version"] += 1
            if name in self._buffers and value is not None and not _is_array(value):
                raise TypeError(
                    f"{type(self).__name__}: buffer {name!r} must hold an ndarray or None, "
                    f"got {type(value).__name__}"
                )
            if _holds_layers(value):
                raise TypeError(
                    f"{type(self).__name__}: attribute {name!r} is a {type(value).__name__} holding "
                    f"layers or parameters, which would not be registered (their parameters would "
                    f"not be trained or saved); assign each to its own attribute "
                    f"(setattr(self, f'l{{i}}', layer)) or use L.Sequential"
                )
        object.__setattr__(self, name, value)

    def _replaced_parameter_message(self, name, value):
        """Why `value` may not take the place of the Parameter `name`, and what to write instead."""
        where = f"cannot assign {type(value).__name__} as parameter {name!r} of {type(self).__name__}"
        why = "it would unregister the parameter, so the optimizer would never update it again"
        fix = (f"use layer.{name}.data[...] = ... (or layer.{name}.data = array), or assign a Parameter "
               f"(layer.{name} = L.Parameter(array))")
        if isinstance(value, Variable):    # e.g. layer.W = layer.W - lr * layer.W.grad
            fix = (f"update it in place with layer.{name}.data -= lr * layer.{name}.grad.data "
                   f"(or layer.{name} -= ... inside V.no_grad()), or assign a Parameter")
        elif value is None or isinstance(value, Layer):
            fix += f"; to remove the parameter on purpose, write del layer.{name} first"
        return f"{where}: {why}; {fix}"

    def __delattr__(self, name):
        self._ensure_registry()
        if self._children.pop(name, False) is None:
            _structure["version"] += 1
        self._buffers.pop(name, None)
        object.__delattr__(self, name)

    def register_buffer(self, name: str, value: np.ndarray | None) -> None:
        """Keep `value` as attribute `name`: saved and loaded with the weights, never trained.

        Raises
        ------
        TypeError
            If `value` is neither an ndarray nor None.
        ValueError
            If `name` is already a parameter or a sub-layer (it would be unregistered).
        """
        self._ensure_registry()
        if value is not None and not _is_array(value):
            raise TypeError(
                f"{type(self).__name__}.register_buffer: {name!r} must be an ndarray or None, "
                f"got {type(value).__name__}"
            )
        if isinstance(self.__dict__.get(name), (Parameter, Layer)):
            what = "parameter" if isinstance(self.__dict__[name], Parameter) else "sub-layer"
            raise ValueError(
                f"{type(self).__name__}.register_buffer: {name!r} is already a {what}, and a buffer "
                f"of that name would unregister it (it would no longer be trained or saved); pick "
                f"another name, or remove it on purpose with del layer.{name} first"
            )
        self._children.pop(name, None)
        self._buffers[name] = None
        object.__setattr__(self, name, value)

    # ----- traversal ------------------------------------------------------------------
    def _collect(self, prefix, seen_layers, seen_params, buffers, out):
        """Append (path, value) for parameters (or buffers) to `out`, depth first, each once."""
        seen_layers.add(id(self))
        d = self.__dict__
        for name in self._children:          # parameters and layers, in assignment order
            value = d[name]
            if isinstance(value, Layer):
                if id(value) not in seen_layers:
                    value._collect(prefix + name + "/", seen_layers, seen_params, buffers, out)
            elif not buffers and id(value) not in seen_params:
                seen_params.add(id(value))
                out.append((prefix + name, value))
        if buffers:
            for name in self._buffers:
                out.append((prefix + name, d.get(name)))
        return out

    def named_params(self) -> Iterator[tuple[str, Parameter]]:
        """Yield (path, Parameter) pairs, nested layers included, each Parameter once.

        The path joins attribute names with '/', e.g. 'l1/W'; a Parameter shared by
        several layers appears once, under the first path that reaches it.
        """
        return iter(self._collect("", set(), set(), False, []))

    def params(self) -> Iterator[Parameter]:
        """Yield every Parameter of this layer and its sub-layers, each exactly once."""
        cached = self.__dict__.get("_params_cache")
        if cached is None or cached[0] != _structure["version"]:
            params = [param for _, param in self._collect("", set(), set(), False, [])]
            cached = (_structure["version"], params)
            object.__setattr__(self, "_params_cache", cached)
        return iter(cached[1])

    def named_buffers(self) -> Iterator[tuple[str, np.ndarray | None]]:
        """Yield (path, ndarray or None) for every buffer, nested layers included."""
        return iter(self._collect("", set(), set(), True, []))

    def _named_layers(self, prefix="", seen=None):
        """Yield (path prefix, layer) for this layer and each sub-layer, once, in `named_params` order."""
        seen = set() if seen is None else seen
        seen.add(id(self))
        yield prefix, self
        d = self.__dict__
        for name in self._children:
            value = d[name]
            if isinstance(value, Layer) and id(value) not in seen:
                yield from value._named_layers(prefix + name + "/", seen)

    def _sub_layers(self) -> Iterator["Layer"]:
        """Every sub-layer (not this one), depth first, each once: `model.layers()`."""
        seen = {id(self)}
        stack = [self]
        while stack:
            layer = stack.pop()
            children = [layer.__dict__[n] for n in layer._children]
            for child in reversed(children):
                if isinstance(child, Layer) and id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
            if layer is not self:
                yield layer

    layers = _LayersMethod()

    def cleargrads(self) -> None:
        """Forget the gradient of every parameter (call before each backward)."""
        for param in self.params():
            param.cleargrad()

    # ----- calling -----------------------------------------------------------------
    def forward(self, *inputs):
        """The computation of the layer; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined")

    def __call__(self, *inputs, **kwargs) -> Variable | tuple[Variable, ...]:
        """Run `forward`; returns one Variable or a tuple of Variables."""
        outputs = self.forward(*inputs, **kwargs)
        if isinstance(outputs, list):
            outputs = tuple(outputs)
        if isinstance(outputs, tuple):
            if not all(isinstance(y, Variable) for y in outputs):
                kinds = ", ".join(type(y).__name__ for y in outputs)
                raise TypeError(
                    f"{type(self).__name__}.forward must return Variables, got a tuple of ({kinds})"
                )
        elif not isinstance(outputs, Variable):
            raise TypeError(
                f"{type(self).__name__}.forward must return a Variable or a tuple of Variables, "
                f"got {type(outputs).__name__}"
            )
        return outputs

    # ----- dtype of lazily built layers ----------------------------------------------
    def _settle_dtype(self, x):
        """On the first call, cast this layer's own parameters to the input's float dtype.

        A layer built with `dtype=None` creates its parameters in float64 (or lazily);
        the first input then fixes the dtype (non-float inputs fix float64).  A layer
        built with an explicit `dtype` keeps it.
        """
        if self._dtype is not None:
            return self._dtype
        dtype = np.dtype(getattr(x, "dtype", np.float64))
        if dtype.kind != "f":
            dtype = np.dtype(np.float64)
        for name in self._children:
            value = self.__dict__[name]
            if isinstance(value, Parameter) and value.data.dtype != dtype:
                value.data = value.data.astype(dtype)
        for name in self._buffers:
            value = self.__dict__[name]
            if value is not None and value.dtype.kind == "f" and value.dtype != dtype:
                object.__setattr__(self, name, value.astype(dtype))
        self._dtype = dtype
        return dtype

    # ----- devices, as in DeZero --------------------------------------------------------
    def to_gpu(self) -> "Layer":
        """Move every parameter (with its gradient) and buffer to the GPU, sub-layers too; returns self.

        A layer not run yet remembers the GPU and creates its parameters there on the
        first call (or when `load_weights` builds it).

        Raises
        ------
        ModuleNotFoundError
            If CuPy is not installed.
        RuntimeError
            If CuPy finds no GPU.
        """
        op = f"{type(self).__name__}.to_gpu"
        backend.gpu_module(op)
        for _, layer in self._named_layers():
            object.__setattr__(layer, "_device", "gpu")
            layer._move_own("gpu", op)
        return self

    def to_cpu(self) -> "Layer":
        """Move every parameter (with its gradient) and buffer to the host, sub-layers too; returns self.

        A layer not run yet remembers the CPU and creates its parameters there.
        """
        for _, layer in self._named_layers():
            object.__setattr__(layer, "_device", "cpu")
            layer._move_own("cpu", f"{type(self).__name__}.to_cpu")
        return self

    def _move_own(self, device, op):
        """Move this layer's own parameters and buffers (not its sub-layers') to `device`."""
        d = self.__dict__

        for name in self._children:   # (assigned only when moved: no new data otherwise)
            value = d[name]
            if isinstance(value, Parameter):
                if backend.device_of(value.data) != device:
                    value._move(backend.to_device(value.data, device, op))
                grad = value._grad   # (a _MixedGrad too: moved, and still refused when read)
                grad = grad.grad if isinstance(grad, _MixedGrad) else grad
                if grad is not None and backend.device_of(grad.data) != device:
                    grad.data = backend.to_device(grad.data, device, op)
        for name in self._buffers:
            value = d.get(name)
            if value is not None:
                object.__setattr__(self, name, backend.to_device(value, device, op))

    def _settle_device(self, x):
        """Put the parameters and buffers just created on this layer's device: the one
        `to_gpu`/`to_cpu` chose, else that of its first input `x` (a no-op on the CPU)."""
        device = self.__dict__.get("_device") or backend.device_of(x)
        self._move_own(device, type(self).__name__)

    # ----- parameters created on the first call -------------------------------------
    def _lazy_shapes(self) -> tuple[str, dict[str, tuple]] | None:
        """What the first call would create, while a lazily sized layer has not created it yet.

        A layer that reads a size off its first input returns, until then, the name of
        that size and the shape of every parameter and buffer it will create (in creation
        order), None standing for the size: `Linear(10)` gives
        `('in_size', {'W': (None, 10), 'b': (10,)})`.  `load_weights` builds the layer
        from a file's arrays with it, so a fresh model loads without a forward pass.  A
        custom lazy layer may define it too; every other layer returns None.
        """
        return None

    def _build_from(self, size_name: str, size: int, arrays: dict) -> None:
        """Create the arrays `_lazy_shapes` announced, holding `arrays` (already checked)."""
        setattr(self, size_name, size)
        for name, array in arrays.items():
            if name in self._buffers:
                setattr(self, name, array)
            else:
                setattr(self, name, Parameter(array, name=name))
        self._dtype = next(iter(arrays.values())).dtype
        first = getattr(self, next(iter(arrays)))   # where the new Parameters went
        self._settle_device(first)

    # ----- weights on disk -----------------------------------------------------------
    def save_weights(self, path) -> None:
        """Write every parameter and buffer to the .npz file `path` ('.npz' appended unless there).

        See `layers.serialization.save_weights`.
        """
        serialization.save_weights(self, path)

    def load_weights(self, path) -> None:
        """Read weights written by `save_weights` (same name, same '.npz' rule), all or nothing.

        Layers not run yet are built from the file.

        See `layers.serialization.load_weights`.
        """
        serialization.load_weights(self, path)

    def _repr_entries(self):
        """(name, text) of each entry the repr lists: the child layers and parameters."""
        for name in self._children:
            value = self.__dict__[name]
            yield name, repr(value) if isinstance(value, Layer) else f"Parameter{value.shape} {value.dtype}"

    def _repr_settings(self) -> dict:
        """The layer's settings ({name: value}: an activation's alpha, dropout's p, a lazily sized
        layer's output size) that the repr shows where it has no entries to list."""
        return {}

    def _repr_above_entries(self) -> dict:
        """Settings the repr shows on a line of their own above the entries, where the entries
        do not tell them (an attention layer's heads, a convolution's stride); none by default."""
        return {}

    def __repr__(self):
        lines = [f"  ({name}): {text}".replace("\n", "\n  ") for name, text in self._repr_entries()]
        if not lines:
            settings = ", ".join(f"{key}={value!r}" for key, value in self._repr_settings().items())
            return f"{type(self).__name__}({settings})"
        above = ", ".join(f"{key}={value!r}" for key, value in self._repr_above_entries().items())
        return "\n".join([type(self).__name__ + "(", *([f"  {above}"] if above else []), *lines, ")"])
