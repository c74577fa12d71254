"""Optimizer: the base of every update rule, with hooks that edit gradients first."""

import inspect
from collections.abc import Callable, Iterator

import numpy as np

from variable import Variable, backend
from variable.variable import _grad_is_current, _TorchName


def hyperparameter(value, name, where, low=0.0, high=None, low_open=False):
    """`value` as a Python float after checking low <= value (< high); a clear error otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        fix = ""
        if isinstance(value, str):                   # (a command line's argument, not converted)
            fix = f" {value!r}; convert it first: float({value!r})"
        elif isinstance(value, Variable):
            fix = f"; give one number, float({name}) (an update follows no graph)"
        elif hasattr(value, "shape"):                # (an ndarray, a CuPy array)
            fix = f"; give one number, float(...) of a single value (one {name} for every entry)"
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}{fix}")
    value = float(value)
    bad = not np.isfinite(value) or value < low or (low_open and value == low)
    if high is not None and value >= high:
        bad = True
    if bad:
        interval = f"{'(' if low_open else '['}{low}, {'inf)' if high is None else f'{high})'}"
        raise ValueError(f"{where}: {name} must lie in {interval}, got {value!r}")
    return value


class Hyperparameter:
    """A number setting of an optimizer or hook (lr, beta1, rate, ...), checked by
    `hyperparameter` whenever it is assigned: in the constructor, and by a schedule between
    updates (`opt.lr = opt.lr * 0.5`), where a string read from a command line, a negative rate
    or an array is refused at the line that assigns it, never met inside the update.  A read
    finds the instance's own value (the descriptor has no __get__), some 14 ns slower than a
    plain attribute's (31 against 17 ns on our machine; Adam reads four per parameter)."""

    def __init__(self, high=None, low_open=False):
        self.high, self.low_open = high, low_open

    def __set_name__(self, owner, name):
        self.name = name

    def __set__(self, obj, value):
        obj.__dict__[self.name] = hyperparameter(value, self.name, type(obj).__name__, high=self.high,
                                                 low_open=self.low_open)


def settings_repr(obj, extra=()) -> str:
    """`Name(setting=value, ...)`: an optimizer's or hook's Hyperparameters, in the order its
    classes declare them, then the attributes named in `extra` (MomentumSGD's nesterov)."""
    names = []
    for klass in reversed(type(obj).__mro__):
        names += [name for name, attr in vars(klass).items()
                  if isinstance(attr, Hyperparameter) and name not in names]
    shown = [f"{name}={obj.__dict__[name]!r}" for name in [*names, *extra] if name in obj.__dict__]
    return f"{type(obj).__name__}({', '.join(shown)})"


class _Listed:
    """A list of Variables given to setup, answering as a Layer does: params(), named_params()
    (named by position, for the optimizer's saved state) and cleargrads()."""

    def __init__(self, params):
        self._params = list(params)

    def params(self):
        return iter(self._params)

    def named_params(self):
        return ((str(i), p) for i, p in enumerate(self._params))

    def cleargrads(self):
        for p in self._params:
            p.cleargrad()


def replace_grad(param, array):
    """Give `param` a fresh gradient holding `array` (never writes into the old one)."""
    param.grad = Variable(array, requires_grad=False)


def _foreign_call(cls, args, kwargs):
    """Why `cls(*args, **kwargs)` is PyTorch's or DeZero's spelling, or None if it is not."""
    accepted = list(inspect.signature(cls.__init__).parameters)[1:]
    if args and accepted[:1] in (["lr"], ["args"]) and (   # (AdaDelta takes its settings by name)
            isinstance(args[0], (Variable, Iterator, list, tuple, set, dict))
            or callable(getattr(args[0], "params", None))):
        return (f"{cls.__name__}: the parameters go to setup(), not to the constructor: write "
                f"O.{cls.__name__}(lr=...).setup(model), or setup([w, b]) for a list of Variables "
                f"(PyTorch's {cls.__name__}(model.parameters(), lr=...) order; gengrad's optimizers, "
                f"as DeZero's, take what they update in setup)")
    for name in kwargs:
        renamed = cls.renamed.get(name, _RENAMED_EVERYWHERE.get(name))
        if renamed is not None and name not in accepted:
            return (f"{cls.__name__}() got an unexpected keyword argument {name!r}; "
                    + renamed.format(name=cls.__name__))
    return None


_RENAMED_EVERYWHERE = {
    "learning_rate": "the step size is lr: O.{name}(lr=0.01)",
    "weight_decay": "weight decay is a hook, as PyTorch's weight_decay adds rate * p to each "
                    "gradient: opt = O.{name}(lr=...).setup(model); opt.add_hook(O.WeightDecay(rate))",
}
"""PyTorch's keywords that no optimizer takes (AdamW has its own weight_decay), with the fix."""


def _refuse_an_empty_update(optimizer):
    """Raise for an update that would change nothing: no parameter has a gradient."""
    name = type(optimizer).__name__
    if next(iter(optimizer.target.params()), None) is None:
        raise ValueError(
            f"{name}.update: the model has no parameters yet (its layers read their in_size off "
            f"their first input): run the forward pass and loss.backward() before opt.update()"
        )
    raise ValueError(
        f"{name}.update: no parameter has a gradient, so this step would change nothing: call "
        f"loss.backward() before opt.update(), and model.cleargrads() before loss.backward(), not "
        f"between it and the update (PyTorch's zero_grad() goes before backward too)"
    )


def _refuse_a_stale_gradient(optimizer, param):
    """Raise for a step with a gradient taken before `param`'s data last changed."""
    which = f"parameter {param.name!r}" if param.name else f"a parameter of shape {param.shape}"
    name = type(optimizer).__name__
    raise ValueError(
        f"{name}.update: the gradient of {which} was taken before its data last changed (by the "
        f"previous update, or an assignment to .data), so this step would go from an old point: "
        f"two updates with one gradient, or a parameter that two optimizers update. Compute the "
        f"gradient again before each update: model.cleargrads(); loss = ...; loss.backward(); "
        f"opt.update(). (An assigned gradient, p.grad = g, counts as taken at the data of its "
        f"assignment.)"
    )


class Optimizer:
    """Base class: `setup(model)` once, then `update()` after every backward.

    `update()` collects the parameters that have a gradient (parameters whose grad is
    None are skipped; none at all is refused: that step would change nothing; a gradient
    taken before its parameter's data last changed, as a second update with one gradient
    would use, is refused too), runs the
    hooks in the order they were added (a hook may set a grad to None to exclude its
    parameter), then applies `update_one` to each.  Updates
    are made in place on `param.data`, keep its dtype, and never write into
    `param.grad.data` (which may be a read-only broadcast view).  Per-parameter state
    (momentum, moment estimates, step count) lives in `self.state[param]`; `state_dict()`
    and `load_state_dict()` save and restore it by parameter path, for checkpoints
    (`layers.save_checkpoint`).  Hooks are not state: they are neither saved nor restored.

    Attributes
    ----------
    state_kinds : dict
        Class attribute naming each entry of the per-parameter state and its kind:
        'array' (an array of the parameter's shape and dtype), 'history' (a stack of such
        arrays along a first axis) or 'count' (a Python int >= 0).  An optimizer with state
        declares it here so that it can be checkpointed.
    global_kinds : dict
        The same for the state of the optimizer as a whole, `self.global_state` (L-BFGS's step
        count and last step length): 'count', 'float' (a Python float) or 'floats' (a 1-d
        float64 array).  Saved and restored all together, or not at all.
    """

    _updates = 0  # how many update() calls it has made (a learning-rate schedule reads it)

    state_kinds: dict[str, str] = {}
    global_kinds: dict[str, str] = {}
    renamed: dict[str, str] = {}
    """Keywords of DeZero or PyTorch that this optimizer spells otherwise, with the fix."""

    def __new__(cls, *args, **kwargs):
        """Refuse PyTorch's `SGD(model.params(), lr=...)` and renamed keywords, naming the fix."""
        if args or kwargs.keys() & cls.renamed.keys() or kwargs.keys() & _RENAMED_EVERYWHERE.keys():
            why = _foreign_call(cls, args, kwargs)
            if why is not None:
                raise TypeError(why)
        return super().__new__(cls)

    def __init__(self):
        self.target = None
        self.hooks = []
        self.state = {}
        self.global_state = {}

    _repr_extra: tuple = ()
    """Settings that are not Hyperparameters but belong in the repr (MomentumSGD's nesterov)."""

    def __repr__(self):
        text = settings_repr(self, self._repr_extra)
        if self.hooks:
            text = text[:-1] + (", " if text[-2] != "(" else "") + f"hooks={self.hooks!r})"
        return text

    # PyTorch's names, refused with gengrad's (DeZero's) spelling
    step = _TorchName("opt.update() updates the parameters, after loss.backward()")
    zero_grad = _TorchName("the model forgets its gradients: model.cleargrads(), before loss.backward()")
    param_groups = _TorchName("opt.lr is the learning rate, and may be set between updates "
                              "(opt.lr = 0.1 * 0.5 ** (epoch // 10)); every parameter of the model shares it")

    def setup(self, target):
        """Remember what to optimize, a Layer (anything with `params()`) or a list of
        Variables (PyTorch's `Adam([w, b])`); returns self.

        Raises
        ------
        TypeError
            If `target` has no `params()` method and is not a list or tuple of Variables (a
            generator such as `model.params()` is refused, naming `setup(model)`, which also
            sees the parameters a lazy layer makes later).
        """
        name = type(self).__name__
        if isinstance(target, Variable):
            raise TypeError(f"{name}.setup: target must be a Layer or a list of Variables, got one "
                            f"{type(target).__name__}: give it in a list, setup([w])")
        if isinstance(target, (list, tuple)) and target and all(isinstance(p, Variable) for p in target):
            target = _Listed(target)
        elif isinstance(target, Iterator):
            raise TypeError(
                f"{name}.setup: got an iterator ({type(target).__name__}: model.params()?), read once; "
                f"pass the model itself, "
                f"setup(model), whose params() are read at each update (a lazy layer's included), "
                f"or a list of Variables, setup([w, b])"
            )
        elif not callable(getattr(target, "params", None)):
            raise TypeError(
                f"{name}.setup: target must be a Layer (something with params()) or a list of "
                f"Variables, got {type(target).__name__}"
                + (" holding " + ", ".join(sorted({type(p).__name__ for p in target})) if
                   isinstance(target, (list, tuple)) and target else "")
            )
        self.target = target
        return self

    def add_hook(self, hook: Callable) -> "Optimizer":
        """Run `hook(params)` on the list of parameters with gradients before each update.

        Returns self, so hooks can be chained.
        """
        if not callable(hook):
            raise TypeError(
                f"{type(self).__name__}.add_hook: hook must be callable, got {type(hook).__name__}"
            )
        self.hooks.append(hook)
        return self

    def update(self) -> None:
        """Apply one step of the update rule to every parameter that has a gradient.

        Raises
        ------
        RuntimeError
            If `setup` was not called.
        ValueError
            If no parameter has a gradient (loss.backward() not called, or model.cleargrads()
            called after it): the step would change nothing; or if a gradient was taken before
            its parameter's data last changed (a second update without a backward between).
        """
        if self.target is None:
            raise RuntimeError(f"{type(self).__name__}.update: call setup(model) first")
        params = [p for p in self.target.params() if p.grad is not None]
        if not params:
            _refuse_an_empty_update(self)
        for param in params:
            if not _grad_is_current(param):
                _refuse_a_stale_gradient(self, param)
        for hook in self.hooks:
            hook(params)
            params = [p for p in params if p.grad is not None]
        for param in params:
            grad = param.grad.data
            if grad.shape != param.data.shape:
                raise ValueError(
                    f"{type(self).__name__}.update: gradient of shape {grad.shape} for a parameter "
                    f"of shape {param.data.shape}"
                )
            if grad.dtype != param.data.dtype:
                grad = grad.astype(param.data.dtype)
            self.update_one(param, grad)
        self._updates += 1

    def state_of(self, param) -> dict:
        """The per-parameter state dict of `param` (created empty on first use)."""
        state = self.state.get(param)
        if state is None:
            state = self.state[param] = {}
        return state

    def update_one(self, param, grad: np.ndarray) -> None:
        """Update `param.data` in place from the gradient array `grad` (read only)."""
        raise NotImplementedError(f"{type(self).__name__}.update_one is not defined")

    # ----- checkpoints ------------------------------------------------------------------------
    def hyperparameters(self) -> dict:
        """The settings of the update rule: every public number or bool attribute (lr, beta1, ...)."""
        return {name: value for name, value in vars(self).items()
                if not name.startswith("_") and isinstance(value, (bool, int, float))}

    def _named_state(self, where):
        """[(parameter path, its state dict)] of the parameters of the target that have state."""
        if self.target is None:
            raise RuntimeError(f"{where}: call setup(model) first")
        named = []
        for path, param in self.target.named_params():
            state = self.state.get(param)
            if state:
                named.append((path, state))
        return named

    def state_dict(self) -> dict[str, np.ndarray]:
        """The optimizer as arrays, keyed by name, to save beside the model's weights.

        'class' holds the class name, 'hyperparameters/<name>' each hyperparameter,
        'params_with_state' the paths of the parameters that have state (so that a
        state lost from a damaged file is noticed), and 'state/<parameter path>/<name>'
        each entry of their state (a copy), the parameter named by its path in
        `target.named_params()` (e.g. 'l1/W').  Hooks are not included.

        Raises
        ------
        RuntimeError
            If `setup` was not called.
        TypeError
            If the state holds an entry that `state_kinds` does not declare.
        """
        name = type(self).__name__
        arrays = {"class": np.array(name)}
        for key, value in self.hyperparameters().items():
            arrays["hyperparameters/" + key] = np.array(value)
        named = self._named_state(f"{name}.state_dict")
        arrays["params_with_state"] = np.array([path for path, _ in named], dtype=str)
        for path, state in named:
            for key, value in state.items():
                kind = self.state_kinds.get(key)
                if kind is None:
                    raise TypeError(
                        f"{name}.state_dict: state {key!r} of parameter {path!r} is not declared in "
                        f"{name}.state_kinds; declare it as {{{key!r}: 'array'}} (or 'count' for an int)"
                    )
                # an array is copied on the parameter's device (save_checkpoint writes host copies)
                copy = np.array(value, dtype=np.int64) if kind == "count" else value.copy()
                arrays[f"state/{path}/{key}"] = copy
        for key, value in self.global_state.items():
            kind = self.global_kinds.get(key)
            if kind is None:
                raise TypeError(f"{name}.state_dict: global state {key!r} is not declared in "
                                f"{name}.global_kinds")
            dtype = np.int64 if kind == "count" else np.float64
            arrays[f"global/{key}"] = np.array(value, dtype=dtype)
        return arrays

    def load_state_dict(self, arrays: dict) -> None:
        """Restore what `state_dict()` gave, all or nothing, onto the parameters of `target`.

        The class, every hyperparameter, and the name, shape and dtype of every state
        array are checked first; on any error nothing changes.  Parameters without state in
        `arrays` start afresh, as they would in a new optimizer.

        Parameters
        ----------
        arrays : dict of str to ndarray
            As returned by `state_dict()` (for this optimizer or an identical one).

        Raises
        ------
        RuntimeError
            If `setup` was not called.
        ValueError
            If the class or a hyperparameter differs, a state entry is missing, unknown, or
            of the wrong shape or dtype, or names a parameter the target does not have.
        """
        where = f"{type(self).__name__}.load_state_dict"
        if self.target is None:
            raise RuntimeError(f"{where}: call setup(model) first")
        specs = {path: (p.shape, p.dtype) for path, p in self.target.named_params()}
        self._plan_state(dict(arrays), specs, where)()

    def _plan_state(self, arrays, specs, where):
        """Check `arrays` (as from `state_dict`) against parameter specs {path: (shape, dtype)}.

        Returns a function that installs the state, looking the parameters up by path in
        `target` when called (so a lazily sized model may be built in between), and puts
        every array on its parameter's device; nothing changes before that, and it cannot
        fail (short of GPU memory).
        """
        name = type(self).__name__
        saved = arrays.get("class")
        if saved is None or not isinstance(saved, np.ndarray) or saved.dtype.kind != "U" or saved.ndim:
            raise ValueError(f"{where}: the optimizer state has no 'class' entry naming the optimizer")
        if str(saved) != name:
            raise ValueError(
                f"{where}: the state was saved from {saved}, but this optimizer is {name}; load it "
                f"into {saved}(...) with the saved hyperparameters, set up on the same model"
            )
        own = self.hyperparameters()
        prefix = "hyperparameters/"
        given = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
        if given.keys() != own.keys():
            raise ValueError(
                f"{where}: the {name} in the file has hyperparameters {sorted(given)}, this one "
                f"{sorted(own)}"
            )
        for key, value in own.items():
            stored = given[key]
            stored = stored.item() if isinstance(stored, np.ndarray) and stored.ndim == 0 else stored
            if isinstance(stored, bool) != isinstance(value, bool) or stored != value:
                raise ValueError(
                    f"{where}: {name} has {key}={value!r} but the file was saved with "
                    f"{key}={stored!r}; build the optimizer with the saved hyperparameters (and change "
                    f"opt.{key} after loading if you mean to)"
                )
        listed = arrays.get("params_with_state")
        if not isinstance(listed, np.ndarray) or listed.dtype.kind != "U" or listed.ndim != 1:
            raise ValueError(
                f"{where}: the optimizer state has no 'params_with_state' entry (a 1-d array of "
                f"parameter paths) saying which parameters have state"
            )
        by_path, whole = {}, {}
        for key, value in arrays.items():
            if key in ("class", "params_with_state") or key.startswith("hyperparameters/"):
                continue
            if key.startswith("global/"):
                whole[key[len("global/"):]] = _global_value(key, value, self.global_kinds, name, where)
                continue
            if not key.startswith("state/") or key.count("/") < 2:
                raise ValueError(f"{where}: unexpected optimizer entry {key!r}")
            path, entry = key[len("state/"):].rsplit("/", 1)
            if path not in specs:
                raise ValueError(
                    f"{where}: optimizer entry {key!r} is for parameter {path!r}, which the model "
                    f"does not have"
                )
            kind = self.state_kinds.get(entry)
            if kind is None:
                raise ValueError(
                    f"{where}: optimizer entry {key!r}: {name} keeps no state named {entry!r} "
                    f"(it keeps {sorted(self.state_kinds)})"
                )
            by_path.setdefault(path, {})[entry] = _state_value(key, value, kind, specs[path], where)
        listed = set(listed.tolist())
        lost, unlisted = sorted(listed - by_path.keys()), sorted(by_path.keys() - listed)
        if lost or unlisted:
            raise ValueError(
                f"{where}: the optimizer state of "
                + (f"parameters {lost} is missing, though the file lists them as having state"
                   if lost else f"parameters {unlisted} is in the file, which does not list them as "
                                f"having state")
            )
        for path, state in by_path.items():
            lacking = sorted(self.state_kinds.keys() - state.keys())
            if lacking:
                raise ValueError(
                    f"{where}: the optimizer state of parameter {path!r} lacks "
                    f"{', '.join(repr(k) for k in lacking)}"
                )

        if whole and whole.keys() != self.global_kinds.keys():
            raise ValueError(f"{where}: the optimizer's global state lacks "
                             f"{', '.join(repr(k) for k in sorted(self.global_kinds.keys() - whole.keys()))}")

        def apply():
            params = dict(self.target.named_params())
            self.state.clear()
            for path, state in by_path.items():
                param = params[path]
                self.state[param] = {entry: _on_device_of(param, value, where)
                                     for entry, value in state.items()}
            self.global_state = whole

        return apply


def _on_device_of(param, value, where):
    """A state entry (a count, or an array from a file or a state_dict) on `param`'s device."""
    return value if isinstance(value, int) else backend.to_device(value, param.device, where)


def _global_value(key, value, kinds, name, where):
    """The global state entry to install from the stored array `value`, or a ValueError."""
    kind = kinds.get(key[len("global/"):])
    if kind is None:
        raise ValueError(f"{where}: optimizer entry {key!r}: {name} keeps no global state of that name"
                         + (f" (it keeps {sorted(kinds)})" if kinds else ""))
    ndim, dtype_kinds, what = {"count": (0, "iu", "a 0-d integer >= 0"), "float": (0, "f", "a 0-d float"),
                               "floats": (1, "f", "a 1-d float array")}[kind]
    if not isinstance(value, np.ndarray) or value.ndim != ndim or value.dtype.kind not in dtype_kinds or (
            kind == "count" and value < 0):
        got = f"{value.shape} {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__
        raise ValueError(f"{where}: optimizer entry {key!r} must be {what}, got {got}")
    return int(value) if kind == "count" else float(value) if kind == "float" else value.astype(np.float64)


def _state_value(key, value, kind, spec, where):
    """The state entry to install from the stored array `value`, or a ValueError naming `key`."""
    shape, dtype = spec
    if not isinstance(value, np.ndarray) and not backend.is_device_array(value):
        raise ValueError(f"{where}: optimizer entry {key!r} is a {type(value).__name__}, not an array")
    if kind == "count":
        if value.ndim != 0 or value.dtype.kind not in "iu" or value < 0:
            raise ValueError(
                f"{where}: optimizer entry {key!r} must be a count (a 0-d integer >= 0), got "
                f"{value.shape} {value.dtype}"
            )
        return int(value)
    if kind == "history":
        if value.shape[1:] != tuple(shape) or value.ndim != len(shape) + 1 or value.dtype != dtype:
            raise ValueError(
                f"{where}: optimizer entry {key!r} is {value.shape} {value.dtype}, but it must be a stack "
                f"of arrays of its parameter's {tuple(shape)} {dtype}, (k,) + {tuple(shape)}"
            )
        return value.copy()
    if value.shape != tuple(shape) or value.dtype != dtype:
        raise ValueError(
            f"{where}: optimizer entry {key!r} is {value.shape} {value.dtype}, but its parameter "
            f"is {tuple(shape)} {dtype}"
        )
    return value.copy()
