"""Runtime configuration: whether graphs are recorded and whether we are training.

Both settings live in context variables, so they are local to a thread and to an
asyncio task, and every context manager restores the value it found.
"""

import contextlib
import contextvars
import functools
from typing import Any

_enable_backprop = contextvars.ContextVar("gengrad_enable_backprop", default=True)
_train = contextvars.ContextVar("gengrad_train", default=True)
_recomputing = contextvars.ContextVar("gengrad_recomputing", default=False)


def is_backprop_enabled() -> bool:
    """True when ops record the graph needed for backward."""
    return _enable_backprop.get()


def is_train() -> bool:
    """True in training mode (dropout active, batch norm updates statistics)."""
    return _train.get()


def is_recomputing() -> bool:
    """True while `V.checkpoint` runs its block again in backward: a layer that updates state
    in its forward pass (batch norm's running statistics) leaves it as the first pass left it."""
    return _recomputing.get()


class _setting(contextlib.ContextDecorator):
    """Set a context variable for the duration of a `with` block (or a decorated call)."""

    __slots__ = ("var", "value", "token")

    def __init__(self, var, value):
        self.var, self.value = var, value

    def __enter__(self):
        self.token = self.var.set(self.value)
        return self

    def __exit__(self, *exc_info):
        self.var.reset(self.token)
        return False

    def _recreate_cm(self):  # each decorated call gets its own token
        return _setting(self.var, self.value)


def _no_arguments(given, name):
    """Refuse `@V.no_grad` without parentheses (which passes the decorated function)."""
    if given:
        first = given[0]
        what = f"the function {getattr(first, '__name__', '?')!r}" if callable(first) else repr(first)
        raise TypeError(
            f"{name} takes no arguments, got {what}: to decorate a function write "
            f"@V.{name}() with parentheses, or use `with V.{name}():` around the code"
        )


class _MakesContext:
    """A function that makes a context manager (no_grad, enable_grad, test_mode), which
    refuses `with V.no_grad:` without parentheses, naming them (Python's own message,
    "'function' object does not support the context manager protocol", names no fix)."""

    def __init__(self, function):
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any) -> _setting:
        return self.__wrapped__(*args)

    def __enter__(self):
        name = self.__name__
        raise TypeError(
            f"with V.{name}: needs parentheses: write `with V.{name}():` ({name} is a function "
            f"that makes the context manager, as torch.no_grad() is)"
        )

    def __exit__(self, *exc_info):
        return False

    def __repr__(self):
        return f"<function {self.__name__}>"

    def __reduce__(self):  # pickled by name, as a function is (the name is this object)
        return self.__qualname__


@_MakesContext
def no_grad(*function: Any) -> _setting:
    """Context manager in which ops record no graph (inference, parameter updates).

    Returns
    -------
    _setting
        A context manager, also usable as a function decorator; on exit it restores
        the setting it found, so blocks nest.
    """
    _no_arguments(function, "no_grad")
    return _setting(_enable_backprop, False)


@_MakesContext
def enable_grad(*function: Any) -> _setting:
    """Context manager that turns graph recording back on inside `no_grad()`.

    Returns
    -------
    _setting
        A context manager, also usable as a function decorator; on exit it restores
        the setting it found.
    """
    _no_arguments(function, "enable_grad")
    return _setting(_enable_backprop, True)


@_MakesContext
def test_mode(*function: Any) -> _setting:
    """Context manager for evaluation: dropout off, batch norm uses running statistics.

    Returns
    -------
    _setting
        A context manager, also usable as a function decorator; on exit it restores
        the mode it found.
    """
    _no_arguments(function, "test_mode")
    return _setting(_train, False)


_SETTINGS = {"enable_backprop": _enable_backprop, "train": _train}


def using_config(name: str, value: bool) -> _setting:
    """Context manager that sets the setting `name` to `value` (DeZero's `using_config`).

    `using_config("enable_backprop", False)` is `no_grad()`, and
    `using_config("train", False)` is `test_mode()`.

    Parameters
    ----------
    name : str
        "enable_backprop" (record graphs) or "train" (dropout on, batch norm updates
        its statistics).
    value : bool

    Returns
    -------
    _setting
        A context manager, also usable as a function decorator; on exit it restores
        the value it found.

    Raises
    ------
    ValueError
        If `name` is not a known setting.
    TypeError
        If `value` is not a bool.
    """
    var = _SETTINGS.get(name)
    if var is None:
        raise ValueError(f"using_config: unknown setting {name!r}; the settings are {sorted(_SETTINGS)}")
    if not isinstance(value, bool):
        raise TypeError(f"using_config: {name} must be True or False, got {value!r}")
    return _setting(var, value)


test_mode.__test__ = False  # keep pytest from collecting it when a test imports it
