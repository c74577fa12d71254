"""L-BFGS: a quasi-Newton method that calls the loss again (a closure) within each update.

    opt = O.LBFGS(line_search_fn="strong_wolfe").setup(model)
    def closure():
        loss = F.mean_squared_error(model(x), t)
        loss.backward()
        return loss
    for _ in range(50):
        opt.update(closure)

The direction comes from the last `history_size` steps s and gradient changes y (the
two-loop recursion of Nocedal and Wright, Algorithm 7.4), scaled by s.y / y.y; the step is
lr, or one that a strong Wolfe line search finds (cubic interpolation, bracketing then
zooming).  The arithmetic follows PyTorch's torch.optim.LBFGS, so the two take the same
steps (tests/optimizers compares them where PyTorch is installed).
"""

import functools

import numpy as np

from variable import Variable
from variable.backend import get_array_module
from variable.variable import _TorchName

from .optimizer import Hyperparameter, Optimizer


def _count(value, name, low):
    """`value` as an int >= `low`, else a TypeError/ValueError naming LBFGS and `name`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"LBFGS: {name} must be an int, got {type(value).__name__}")
    if value < low:
        raise ValueError(f"LBFGS: {name} must be >= {low}, got {value}")
    return int(value)


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, kept in
    `bounds` (by default the interval between the points); their middle when the cubic has
    no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    if x1 == x2:                                  # (a bracket shrunk to a point: no cubic through it)
        return (low + high) / 2
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    square = d1 * d1 - g1 * g2
    if square < 0:
        return (low + high) / 2
    d2 = np.sqrt(square)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, low), high)


class _Point:
    """A trial step t along the direction: its loss f, flat gradient g and slope gtd = g.d."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate, t, d, start, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t along `d` meeting the strong Wolfe conditions from the `start` point (t = 0):
    f(t) <= f0 + c1 t g0.d and |g(t).d| <= c2 |g0.d|.

    `evaluate(t)` gives (loss, flat gradient) at step t.  First steps grow (cubic
    extrapolation, at most 10x) until the conditions hold or an interval holds a point that
    meets them; then the interval shrinks (cubic interpolation, kept a tenth of its length
    from its ends when progress stalls) to such a point.  Returns (loss, gradient, t, number of
    evaluations) of the lowest point found.
    """
    d_norm = float(abs(d).max())
    f, g = evaluate(t)
    evals = 1
    new = _Point(t, f, g, float(g @ d))
    prev = start
    bracket, done, ls_iter = None, False, 0
    while ls_iter < max_ls:
        if new.f > start.f + c1 * new.t * start.gtd or (ls_iter > 1 and new.f >= prev.f):
            bracket = [prev, new]
            break
        if abs(new.gtd) <= -c2 * start.gtd:
            bracket, done = [new], True
            break
        if new.gtd >= 0:
            bracket = [prev, new]
            break
        t = _cubic_minimum(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                           bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev = new
        f, g = evaluate(t)
        evals += 1
        new = _Point(t, f, g, float(g @ d))
        ls_iter += 1
    if ls_iter == max_ls:                       # (no interval found: the start and the last trial)
        bracket = [start, new]

    # zoom: bracket[low] is the lower end; shrink toward a point meeting the conditions
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    stalled = False
    while not done and ls_iter < max_ls:
        a, b = bracket
        if abs(b.t - a.t) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        left, right = min(a.t, b.t), max(a.t, b.t)
        margin = 0.1 * (right - left)
        if min(right - t, t - left) < margin:   # too near an end: move inside if it happens again
            if stalled or t >= right or t <= left:
                t = right - margin if abs(t - right) < abs(t - left) else left + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f, g = evaluate(t)
        evals += 1
        new = _Point(t, f, g, float(g @ d))
        ls_iter += 1
        if new.f > start.f + c1 * t * start.gtd or new.f >= bracket[low].f:
            bracket[high] = new                 # not low enough: the new high end
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(new.gtd) <= -c2 * start.gtd:
                done = True
            elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]    # the minimum lies on the other side of the new point
            bracket[low] = new
    best = bracket[low]
    return best.f, best.g, best.t, evals


class LBFGS(Optimizer):
    """Limited-memory BFGS on all parameters as one vector; `update(closure)` runs up to
    `max_iter` iterations, calling `closure` (which computes the loss, calls backward and
    returns the loss) as often as it needs.

    The optimizer clears the gradients before each call of the closure, so a closure with
    or without `model.cleargrads()` (PyTorch's `zero_grad()`) computes the same.  The
    history is kept between updates, as PyTorch's is, and in checkpoints
    (`layers.save_checkpoint`: each parameter's slices of it), so a resumed run continues bit
    for bit.  Memory: (2 history_size + 2) copies of the parameters.

    Parameters
    ----------
    lr : float
        Step length (> 0): the step when there is no line search, the first trial of one.
        The first iteration's step is min(1, 1 / |g|_1) lr.
    max_iter : int
        Iterations per update (>= 1).
    max_eval : int or None
        Closure calls per update (>= 1); by default max_iter * 5 // 4.
    tolerance_grad : float
        Stop when every gradient entry is at most this in magnitude.
    tolerance_change : float
        Stop when the loss or every entry of a step changes by less.
    history_size : int
        Steps remembered (>= 1).
    line_search_fn : None or 'strong_wolfe'
        None takes steps of lr; 'strong_wolfe' searches along each direction.

    Raises
    ------
    TypeError, ValueError
        If a setting is out of range or of the wrong type.
    """

    lr = Hyperparameter(low_open=True)
    tolerance_grad = Hyperparameter()
    tolerance_change = Hyperparameter()
    _repr_extra = ("max_iter", "max_eval", "history_size", "line_search_fn")

    step = _TorchName("opt.update(closure) runs the iterations, calling the closure (which returns the loss "
                      "after loss.backward()) as PyTorch's step(closure) does")

    def __init__(self, lr: float = 1.0, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None):
        super().__init__()
        self.lr = lr
        self.max_iter = _count(max_iter, "max_iter", 1)
        self.max_eval = self.max_iter * 5 // 4 if max_eval is None else _count(max_eval, "max_eval", 1)
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = _count(history_size, "history_size", 1)
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        self.line_search_fn = line_search_fn
        self.global_state = {"n_iter": 0, "func_evals": 0, "t": 0.0, "h_diag": 1.0, "ro": []}
        self._vectors = {}          # d, prev_g and the history's dirs and steps, flat over all parameters

    state_kinds = {"d": "array", "prev_g": "array", "dirs": "history", "steps": "history"}
    global_kinds = {"n_iter": "count", "func_evals": "count", "t": "float", "h_diag": "float", "ro": "floats"}
    """The history is kept flat over all parameters; a checkpoint holds each parameter's slices
    (its part of the last direction, of the last gradient and of every remembered step and
    gradient change) and the rest as the optimizer's global state."""

    def hyperparameters(self):
        """The numbers, and whether the line search is on (a setting a checkpoint must match)."""
        return {**super().hyperparameters(), "strong_wolfe": self.line_search_fn == "strong_wolfe"}

    def add_hook(self, hook):
        """Refused: a hook changes the gradient but not the loss the line search and the
        stopping tests compare."""
        raise TypeError("LBFGS.add_hook: a hook would change the gradients but not the loss that the line "
                        "search and the stopping tests read; put a penalty in the closure's loss instead "
                        "(loss = loss + rate / 2 * sum of squares for weight decay)")

    # ----- the parameters as one vector ---------------------------------------------------
    def _params(self):
        params = list(self.target.params())
        if not params:
            raise ValueError("LBFGS.update: the model has no parameters (its layers read their sizes off "
                             "their first input: the closure's first call should have built them)")
        return params

    def _evaluate(self, closure):
        """Clear the gradients, call `closure`; the loss it returned, as a float too, and the flat
        gradient."""
        self.target.cleargrads()
        loss = closure()
        value = _loss_value(loss)
        params = self._params()
        grads = [p.grad for p in params]
        if all(g is None for g in grads):
            raise ValueError("LBFGS.update: the closure left no gradient: call loss.backward() in it "
                             "before returning the loss")
        xp = get_array_module(params[0].data)
        dtype = np.result_type(*(p.dtype for p in params))
        flat = xp.concatenate([
            xp.zeros(p.size, dtype=dtype) if g is None else xp.reshape(g.data, -1).astype(dtype, copy=False)
            for p, g in zip(params, grads)])
        return loss, value, flat

    def _slices(self, params):
        """(parameter, the slice of a flat vector that is its part), in the flat vectors' order."""
        offset = 0
        for p in params:
            yield p, slice(offset, offset + p.size)
            offset += p.size

    def _move(self, t, d):
        """params += t d, each in place and in its own dtype (a new point: gradients go stale)."""
        for p, part in self._slices(self._params()):
            data = p.data
            data += (d[part].reshape(p.shape) * t).astype(data.dtype, copy=False)
            p.data = data

    def _copy_params(self):
        return [p.data.copy() for p in self._params()]

    def _restore(self, saved):
        for p, data in zip(self._params(), saved):
            p.data[...] = data
            p.data = p.data

    def _probe(self, closure, saved, d, step):
        """(loss, flat gradient) at `step` along `d` from the parameters `saved`, restored after."""
        self._move(step, d)
        _, value, flat = self._evaluate(closure)
        self._restore(saved)
        return value, flat

    def update(self, closure=None):
        """Run up to `max_iter` L-BFGS iterations; returns the loss that the first call of
        `closure` gave (at the parameters as they were).

        Raises
        ------
        TypeError
            If `closure` is missing or not callable, or returns something other than a
            one-entry loss (None: a closure without `return loss`).
        ValueError
            If the closure leaves no gradient (no loss.backward()).
        RuntimeError
            If `setup` was not called.
        """
        if self.target is None:
            raise RuntimeError("LBFGS.update: call setup(model) first")
        if closure is None or not callable(closure):
            got = "no closure" if closure is None else f"a {type(closure).__name__}"
            raise TypeError(f"LBFGS.update: give a closure, a function that computes the loss, calls "
                            f"loss.backward() and returns the loss: opt.update(closure), got {got} (L-BFGS "
                            f"evaluates the loss several times per update)")
        memory, vectors = self.global_state, self._vectors
        self._updates += 1   # (a call is an update for a learning-rate schedule, even one that stops early)
        first, loss, g = self._evaluate(closure)
        evals = 1
        memory["func_evals"] += 1
        if float(abs(g).max()) <= self.tolerance_grad:
            return first
        d, prev_g = vectors.get("d"), vectors.get("prev_g")
        dirs, steps = vectors.get("dirs"), vectors.get("steps")
        t, h_diag, ro = memory["t"], memory["h_diag"], memory["ro"]
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            memory["n_iter"] += 1
            if memory["n_iter"] == 1:
                d, dirs, steps, ro, h_diag = -g, [], [], [], 1.0
            else:
                y, s = g - prev_g, d * t
                ys = float(y @ s)
                if ys > 1e-10:                      # (curvature too small: the pair is skipped)
                    if len(dirs) == self.history_size:
                        del dirs[0], steps[0], ro[0]
                    dirs.append(y)
                    steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y @ y)
                d = _two_loop(-g, dirs, steps, ro, h_diag)
            prev_g, prev_loss = g, loss
            t = (min(1.0, 1.0 / float(abs(g).sum())) if memory["n_iter"] == 1 else 1.0) * self.lr
            gtd = float(g @ d)
            if gtd > -self.tolerance_change:        # not a descent direction (to tolerance)
                break
            if self.line_search_fn is None:
                self._move(t, d)
                spent = 0
                if n_iter != self.max_iter:         # (the last iteration's loss is not needed)
                    _, loss, g = self._evaluate(closure)
                    spent = 1
            else:
                along = functools.partial(self._probe, closure, self._copy_params(), d)
                loss, g, t, spent = _strong_wolfe(along, t, d, _Point(0.0, loss, g, gtd),
                                                  tolerance_change=self.tolerance_change,
                                                  max_ls=self.max_eval - evals)
                self._move(t, d)
            evals += spent
            memory["func_evals"] += spent
            if n_iter == self.max_iter or evals >= self.max_eval:
                break
            if float(abs(g).max()) <= self.tolerance_grad:
                break
            if float(abs(d * t).max()) <= self.tolerance_change:        # (no progress left)
                break
            if abs(loss - prev_loss) < self.tolerance_change:
                break
        memory.update(t=float(t), h_diag=float(h_diag), ro=ro)
        vectors.update(d=d, prev_g=prev_g, dirs=dirs, steps=steps)
        return first

    def update_one(self, param, grad):
        raise TypeError("LBFGS updates all parameters at once: opt.update(closure)")

    # ----- checkpoints: the flat vectors as each parameter's slices ------------------------
    def state_dict(self):
        """As Optimizer.state_dict, each parameter's slices of the flat vectors as its state.

        Raises
        ------
        TypeError
            If the parameters have several dtypes (their slices would not keep every bit).
        """
        self._slice_into_state()
        try:
            return super().state_dict()
        finally:
            self.state.clear()

    def _slice_into_state(self):
        self.state.clear()
        if self._vectors.get("d") is None:
            return
        params = self._params()
        if len({p.dtype for p in params}) > 1:
            dtypes = sorted({str(p.dtype) for p in params})
            raise TypeError(f"LBFGS.state_dict: the parameters have several dtypes ({dtypes}), and the "
                            f"history, kept in the widest, would lose bits in theirs; give them one dtype to "
                            f"checkpoint")
        xp = get_array_module(params[0].data)
        vectors = self._vectors
        for p, part in self._slices(params):
            def stack(history, p=p, part=part):
                return (xp.stack([v[part].reshape(p.shape) for v in history]) if history
                        else xp.zeros((0,) + p.shape, p.dtype))

            self.state[p] = {"d": vectors["d"][part].reshape(p.shape),
                             "prev_g": vectors["prev_g"][part].reshape(p.shape),
                             "dirs": stack(vectors["dirs"]), "steps": stack(vectors["steps"])}

    def _plan_state(self, arrays, specs, where):
        """As Optimizer's, checking too that the history is whole: every parameter's slices
        after an update (none before), with as many steps as the global state's ro."""
        install = super()._plan_state(arrays, specs, where)
        with_state = set(np.asarray(arrays["params_with_state"]).tolist())
        started = int(arrays.get("global/n_iter", 0)) > 0
        if with_state and with_state != set(specs) or started != bool(with_state):
            raise ValueError(f"{where}: the LBFGS history is not whole: "
                             + ("it has no slices of " + ", ".join(sorted(set(specs) - with_state))
                                if with_state else "the file says it made steps but holds none of them"
                                if started else "the file holds steps but says it made none"))
        counts = {int(np.shape(arrays[key])[0]) for key in arrays
                  if key.startswith("state/") and key.rsplit("/", 1)[1] in ("dirs", "steps")}
        if counts and counts != {len(arrays["global/ro"])}:
            raise ValueError(f"{where}: the LBFGS history holds {sorted(counts)} steps per parameter "
                             f"but {len(arrays['global/ro'])} curvatures (ro)")

        def apply():
            install()
            self._join_state()

        return apply

    def _join_state(self):
        """The flat vectors back from each parameter's slices (the state just installed)."""
        states, self.state = self.state, {}
        memory = self.global_state
        memory["ro"] = [float(r) for r in memory["ro"]]
        if not states:
            self._vectors = {}
            return
        params = self._params()
        xp = get_array_module(params[0].data)

        def join(entry, i=None):
            return xp.concatenate([xp.reshape(states[p][entry] if i is None else states[p][entry][i], -1)
                                   for p in params])

        k = len(memory["ro"])
        self._vectors = {"d": join("d"), "prev_g": join("prev_g"),
                         "dirs": [join("dirs", i) for i in range(k)],
                         "steps": [join("steps", i) for i in range(k)]}


def _two_loop(q, dirs, steps, ro, h_diag):
    """The L-BFGS direction: the inverse-Hessian estimate of the history applied to q = -g."""
    q = q.copy()
    alphas = [0.0] * len(dirs)
    for i in range(len(dirs) - 1, -1, -1):
        alphas[i] = float(steps[i] @ q) * ro[i]
        q -= alphas[i] * dirs[i]
    r = q * h_diag
    for i in range(len(dirs)):
        beta = float(dirs[i] @ r) * ro[i]
        r += (alphas[i] - beta) * steps[i]
    return r


def _loss_value(loss):
    """The closure's loss as a float; a clear TypeError for None or for more than one entry."""
    if loss is None:
        raise TypeError("LBFGS.update: the closure returned None; end it with `return loss` (after "
                        "loss.backward())")
    data = loss.data if isinstance(loss, Variable) else loss
    size = getattr(data, "size", 1)
    if size != 1 or not isinstance(data, (int, float, np.generic, np.ndarray)) and not hasattr(data, "item"):
        raise TypeError(f"LBFGS.update: the closure must return the loss, one number, got "
                        f"{type(loss).__name__}" + (f" of shape {data.shape}" if size != 1 else ""))
    return float(data.item()) if hasattr(data, "item") else float(data)
