"""Optimizers with per-parameter step sizes: AdaGrad, RMSprop, AdaDelta, Adam, AdamW, Adamax, RAdam.

All state starts at zero; products and square roots are elementwise.
"""

import math

import numpy as np

from .optimizer import Hyperparameter, Optimizer, hyperparameter


def _switch(value, where, name):
    """`value` as a bool (an optimizer's amsgrad or centered): True or False only."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be True or False, got {value!r}")
    return bool(value)


def _zeros(state, key, like):
    array = state.get(key)
    if array is None:
        array = state[key] = np.zeros_like(like)
    return array


class AdaGrad(Optimizer):
    """h <- h + g^2;  p <- p - lr * g / (sqrt(h) + eps).

    Parameters
    ----------
    lr : float
        Learning rate (>= 0).
    eps : float
        Added to the denominator (>= 0).
    """

    state_kinds = {"h": "array"}

    lr = Hyperparameter()
    eps = Hyperparameter()

    def __init__(self, lr: float = 0.01, eps: float = 1e-8):
        super().__init__()
        self.lr = lr
        self.eps = eps

    def update_one(self, param, grad):
        """Accumulate squared gradients and scale the step by their root."""
        h = _zeros(self.state_of(param), "h", param.data)
        h += grad * grad
        param.data -= self.lr * grad / (np.sqrt(h) + self.eps)


class RMSprop(Optimizer):
    """h <- alpha * h + (1 - alpha) * g^2;  p <- p - lr * g / (sqrt(h) + eps).

    With `centered` (Graves, 2013) the running mean of g, a, is kept too and h - a^2 (an
    estimate of g's variance) replaces h; with `momentum` the scaled gradients are summed
    into a velocity, b <- momentum * b + g / (sqrt(h) + eps), and p <- p - lr * b.  Both
    as PyTorch's RMSprop (its weight_decay is the WeightDecay hook).

    Parameters
    ----------
    lr : float
        Learning rate (>= 0).
    alpha : float
        Decay of the running mean of squares, in [0, 1).
    eps : float
        Added to the denominator (>= 0).
    momentum : float
        In [0, 1); 0 takes no velocity.
    centered : bool
        Divide by the root of the running variance instead of the mean square.
    """

    state_kinds = {"h": "array"}
    centered = False
    """Off unless an instance sets it (as momentum): only then is it a saved setting, so
    checkpoints of a plain RMSprop load as before."""
    _repr_extra = ("centered",)

    lr = Hyperparameter()
    alpha = Hyperparameter(high=1.0)
    eps = Hyperparameter()
    momentum = Hyperparameter(high=1.0)

    def __init__(self, lr: float = 0.01, alpha: float = 0.99, eps: float = 1e-8, momentum: float = 0.0,
                 centered: bool = False):
        super().__init__()
        self.lr = lr
        self.alpha = alpha
        self.eps = eps
        kinds = dict(type(self).state_kinds)
        if hyperparameter(momentum, "momentum", "RMSprop", high=1.0):
            self.momentum = momentum
            kinds["b"] = "array"
        if _switch(centered, "RMSprop", "centered"):
            self.centered = True
            kinds["a"] = "array"
        self.state_kinds = kinds

    def update_one(self, param, grad):
        """Running mean of squared gradients (and of gradients, centered); the step is divided by
        its root (and summed into a velocity, with momentum)."""
        state = self.state_of(param)
        h = _zeros(state, "h", param.data)
        h *= self.alpha
        h += (1 - self.alpha) * grad * grad
        if self.centered:
            a = _zeros(state, "a", param.data)
            a *= self.alpha
            a += (1 - self.alpha) * grad
            root = np.sqrt(h - a * a)
        else:
            root = np.sqrt(h)
        scaled = grad / (root + self.eps)
        momentum = self.__dict__.get("momentum", 0.0)
        if momentum:
            b = _zeros(state, "b", param.data)
            b *= momentum
            b += scaled
            scaled = b
        param.data -= self.lr * scaled


class AdaDelta(Optimizer):
    """Zeiler's AdaDelta: steps scaled by the ratio of running RMS of updates and gradients.

    msg <- rho * msg + (1 - rho) * g^2
    dx  <- sqrt(msdx + eps) / sqrt(msg + eps) * g
    msdx <- rho * msdx + (1 - rho) * dx^2
    p   <- p - lr * dx

    Parameters (by name only: DeZero's AdaDelta takes rho first, PyTorch's lr)
    ----------
    lr : float
        Scales the step (1.0 is the original method).
    rho : float
        Decay of both running means, in [0, 1).
    eps : float
        Keeps the roots away from zero (> 0).
    """

    state_kinds = {"msg": "array", "msdx": "array"}

    lr = Hyperparameter()
    rho = Hyperparameter(high=1.0)
    eps = Hyperparameter(low_open=True)

    def __init__(self, *args: float, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6):
        if args:  # AdaDelta(0.95): DeZero's rho, or PyTorch's lr? Named, it cannot be misread
            raise TypeError(
                f"AdaDelta: name its settings, AdaDelta(lr=1.0, rho=0.9, eps=1e-6); a bare "
                f"{args[0]!r} would set lr here, where the DeZero book's AdaDelta({args[0]!r}) means rho"
            )
        super().__init__()
        self.lr = lr
        self.rho = rho
        self.eps = eps

    def update_one(self, param, grad):
        """One AdaDelta step."""
        state = self.state_of(param)
        msg = _zeros(state, "msg", param.data)
        msdx = _zeros(state, "msdx", param.data)
        rho, eps = self.rho, self.eps
        msg *= rho
        msg += (1 - rho) * grad * grad
        dx = np.sqrt((msdx + eps) / (msg + eps)) * grad
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        param.data -= self.lr * dx


class Adam(Optimizer):
    """Adam with bias correction (Kingma and Ba).

    t <- t + 1 (per parameter)
    m <- beta1 * m + (1 - beta1) * g;   v <- beta2 * v + (1 - beta2) * g^2
    m_hat = m / (1 - beta1^t);          v_hat = v / (1 - beta2^t)
    p <- p - lr * m_hat / (sqrt(v_hat) + eps)

    With `amsgrad` (Reddi et al., 2018, as PyTorch's) v_hat is that of the largest v so far,
    v_max <- max(v_max, v), so a step never grows for a second moment that fell.

    Parameters
    ----------
    lr : float
        Learning rate (>= 0).
    beta1, beta2 : float
        Decays of the first and second moment estimates, in [0, 1).
    eps : float
        Added to the denominator (>= 0).
    amsgrad : bool
        Divide by the largest second moment so far.
    """

    state_kinds = {"m": "array", "v": "array", "t": "count"}
    amsgrad = False
    """Off unless an instance sets it: only then is it a saved setting (old checkpoints load)."""
    _repr_extra = ("amsgrad",)
    renamed = {"alpha": "the step size is lr (DeZero's alpha): O.{name}(lr=0.001)",
               "betas": "write beta1=0.9, beta2=0.999 (PyTorch's betas=(0.9, 0.999))"}

    lr = Hyperparameter()
    beta1 = Hyperparameter(high=1.0)
    beta2 = Hyperparameter(high=1.0)
    eps = Hyperparameter()

    def __init__(self, lr: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 amsgrad: bool = False):
        super().__init__()
        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.eps = eps
        if _switch(amsgrad, type(self).__name__, "amsgrad"):
            self.amsgrad = True
            self.state_kinds = {**type(self).state_kinds, "v_max": "array"}

    def _moments(self, param, grad):
        """m and v updated in place with `grad`, and the step count t, counted."""
        state = self.state_of(param)
        m = _zeros(state, "m", param.data)
        v = _zeros(state, "v", param.data)
        t = state["t"] = state.get("t", 0) + 1
        b1, b2 = self.beta1, self.beta2
        m *= b1
        m += (1 - b1) * grad
        v *= b2
        v += (1 - b2) * grad * grad
        return m, v, t

    def update_one(self, param, grad):
        """One bias-corrected Adam step."""
        m, v, t = self._moments(param, grad)
        if self.amsgrad:                              # v_hat of the largest v so far
            v_max = _zeros(self.state_of(param), "v_max", param.data)
            v = np.maximum(v_max, v, out=v_max)
        b1, b2 = self.beta1, self.beta2
        correction1 = 1 - b1 ** t                      # Python floats: the dtype of p is kept
        correction2 = 1 - b2 ** t
        param.data -= self.lr * (m / correction1) / (np.sqrt(v / correction2) + self.eps)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter).

    p <- p - lr * weight_decay * p, then the Adam step; the decay never enters m or v.

    Parameters
    ----------
    lr, beta1, beta2, eps : float
        As for Adam.
    weight_decay : float
        Decay rate (>= 0), multiplied by lr.
    amsgrad : bool
        As for Adam.
    """

    weight_decay = Hyperparameter()

    def __init__(self, lr: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 weight_decay: float = 0.01, amsgrad: bool = False):
        super().__init__(lr, beta1, beta2, eps, amsgrad)
        self.weight_decay = weight_decay

    def update_one(self, param, grad):
        """Decay p, then take the Adam step."""
        param.data *= 1 - self.lr * self.weight_decay
        super().update_one(param, grad)



class Adamax(Adam):
    """Adam's variant on the infinity norm (Kingma and Ba, section 7.1), as PyTorch's Adamax.

    t <- t + 1;  m <- beta1 * m + (1 - beta1) * g;  u <- max(beta2 * u, |g| + eps)
    p <- p - lr / (1 - beta1^t) * m / u

    Parameters
    ----------
    lr : float
        Learning rate (>= 0).
    beta1, beta2 : float
        Decays of the first moment and of the infinity norm, in [0, 1).
    eps : float
        Added to |g| (>= 0): keeps u away from 0.
    """

    state_kinds = {"m": "array", "u": "array", "t": "count"}

    def __init__(self, lr: float = 0.002, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        super().__init__(lr, beta1, beta2, eps)

    def update_one(self, param, grad):
        """One Adamax step."""
        state = self.state_of(param)
        m = _zeros(state, "m", param.data)
        u = _zeros(state, "u", param.data)
        t = state["t"] = state.get("t", 0) + 1
        b1 = self.beta1
        m *= b1
        m += (1 - b1) * grad
        u *= self.beta2
        np.maximum(u, np.abs(grad) + self.eps, out=u)
        param.data -= (self.lr / (1 - b1 ** t)) * m / u


class RAdam(Adam):
    """Rectified Adam (Liu et al., 2020), as PyTorch's RAdam: plain momentum steps while the
    variance estimate is unreliable, Adam's steps scaled by a rectification after.

    m, v and their bias corrections as in Adam; rho_inf = 2 / (1 - beta2) - 1 and
    rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t).  While rho_t <= 5,
    p <- p - lr * m_hat; after, with r = sqrt((rho_t - 4)(rho_t - 2) rho_inf /
    ((rho_inf - 4)(rho_inf - 2) rho_t)),  p <- p - lr * r * m_hat * sqrt(1 - beta2^t) / (sqrt(v) + eps)
    (eps added to sqrt(v) before the correction, as PyTorch does).

    Parameters
    ----------
    lr, beta1, beta2, eps : float
        As for Adam.
    """

    def __init__(self, lr: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        super().__init__(lr, beta1, beta2, eps)

    def update_one(self, param, grad):
        """One RAdam step."""
        m, v, t = self._moments(param, grad)
        b1, b2 = self.beta1, self.beta2
        correction2 = 1 - b2 ** t
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / correction2
        step = self.lr / (1 - b1 ** t)                # on m_hat = m / (1 - beta1^t)
        if rho_t > 5:                                 # (Python floats: no sync on a device)
            r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            param.data -= (step * r * math.sqrt(correction2)) * m / (np.sqrt(v) + self.eps)
        else:
            param.data -= step * m


class NAdam(Adam):
    """Adam with Nesterov momentum (Dozat, 2016), as PyTorch's NAdam: the step takes the
    momentum one step ahead, with a momentum coefficient that warms up over the first steps.

    mu_t = beta1 (1 - 0.96^(t psi) / 2),  M_t = mu_1 mu_2 ... mu_t  (psi = momentum_decay)
    m and v as in Adam;  v_hat = v / (1 - beta2^t)
    p <- p - lr [(1 - mu_t) / (1 - M_t) g + mu_(t+1) / (1 - M_t mu_(t+1)) m] / (sqrt(v_hat) + eps)

    M_t depends on t alone: it is recomputed from the step count (so a checkpoint needs only
    m, v and t), one product a step.

    Parameters
    ----------
    lr : float
        Learning rate (>= 0).
    beta1, beta2 : float
        As for Adam.
    eps : float
        As for Adam.
    momentum_decay : float
        psi (>= 0): how fast mu_t warms up to beta1.
    """

    momentum_decay = Hyperparameter()

    def __init__(self, lr: float = 0.002, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 momentum_decay: float = 0.004):
        super().__init__(lr, beta1, beta2, eps)
        self.momentum_decay = momentum_decay
        self._products = (0, 1.0)                     # (t, M_t): the last product made

    def _mu(self, t):
        return self.beta1 * (1 - 0.5 * 0.96 ** (t * self.momentum_decay))

    def _product(self, t):
        """M_t = mu_1 ... mu_t (Python floats): the last one made when it is M_t (every parameter
        of a step reads it), one product more when it is M_(t-1), else made afresh."""
        last, product = self._products
        if last == t:
            return product
        if last != t - 1:
            last, product = 0, 1.0
        for step in range(last + 1, t + 1):
            product *= self._mu(step)
        self._products = (t, product)
        return product

    def update_one(self, param, grad):
        """One NAdam step."""
        m, v, t = self._moments(param, grad)
        mu, mu_next = self._mu(t), self._mu(t + 1)
        product = self._product(t)
        denominator = np.sqrt(v / (1 - self.beta2 ** t)) + self.eps
        param.data -= (self.lr * (1 - mu) / (1 - product)) * grad / denominator
        param.data -= (self.lr * mu_next / (1 - product * mu_next)) * m / denominator
