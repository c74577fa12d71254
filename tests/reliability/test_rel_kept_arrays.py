"""A custom forward that keeps on self an array it computed from its inputs (`self.e =
np.exp(x)`), read by a backward that create_graph records: the first derivative is right and
every higher one silently wrong, the array being a constant to the recorded graph. It is
refused at the backward's line, naming the attribute; masks, indices, piecewise constants,
random masks and constants of the op's parameters are not (variable/forwarder.py's
_kept_from_inputs, variable/variable.py's _FromInputs)."""

import numpy as np
import pytest

import variable as V


class XExp(V.Forwarder):
    """x e^x, keeping e^x: a first derivative right, a second silently wrong (not refused)."""

    def forward(self, x):
        self.e = np.exp(x)
        return x * self.e

    def backward(self, gy):
        x, = self.inputs
        return gy * self.e * (1 + x)


class UnitKeepingTheNorm(V.Forwarder):
    def forward(self, x):
        self.norm = np.sqrt((x * x).sum())   # a reduction: a NumPy scalar, marked too
        return x / self.norm

    def backward(self, gy):
        y, = self.outputs
        return (gy - y * V.sum(gy * y)) / self.norm


class TanhKeepingItsOutput(V.Forwarder):
    def forward(self, x):
        self.cache = (x.shape, np.tanh(x))  # in a tuple
        return self.cache[1]

    def backward(self, gy):
        return gy * (1 - self.cache[1] ** 2)


class AffineKeepingAProduct(V.Forwarder):
    def forward(self, x, w):
        self.xw = np.dot(x, w)
        return self.xw

    def backward(self, gy):
        x, w = self.inputs
        return gy @ w.T, V.transpose(x) @ gy + 0 * self.xw[:1].sum()


class PhaseKeepingTheRemainder(V.Forwarder):
    def forward(self, x):
        self.phase = np.remainder(x, 1.0)    # slope 1 between its jumps: not a constant
        return np.sin(2 * np.pi * self.phase)

    def backward(self, gy):
        x, = self.inputs
        return gy * 2 * np.pi * np.cos(2 * np.pi * self.phase) + 0 * x


@pytest.mark.parametrize("op, inputs, attribute", [
    (XExp, (np.array([0.5, -0.3]),), "self.e"),
    (UnitKeepingTheNorm, (np.array([0.3, -1.2, 0.5]),), "self.norm"),
    (TanhKeepingItsOutput, (np.array([0.2, 0.7]),), r"self.cache\[1\]"),
    (AffineKeepingAProduct, (np.ones((2, 3)), np.full((3, 2), 0.5)), "self.xw"),
    (PhaseKeepingTheRemainder, (np.array([0.3, 1.7]),), "self.phase"),
], ids=["self.e", "a reduction", "in a tuple", "np.dot", "np.remainder"])
def test_a_kept_array_read_by_a_recorded_backward_is_refused_naming_it(op, inputs, attribute):
    xs = [V.Variable(a) for a in inputs]
    y = V.sum(op.apply(*xs))
    grads = V.grad(y, xs)                    # first order: the kept array is right to use
    assert all(g is not None for g in grads)
    with pytest.raises(TypeError, match=rf"{op.__name__}\.backward computes .* on {attribute}, an "
                                        rf"array {op.__name__}\.forward computed from its inputs.*"
                                        r"silently wrong.*x, = self\.inputs"):
        V.grad(V.sum(op.apply(*xs)), xs, create_graph=True)


def test_the_refusal_holds_on_later_calls_of_the_class_too():
    x = V.Variable(np.array([0.5, 1.5]))
    for _ in range(3):  # (the first call learns what the class keeps; later ones look it up)
        y = XExp.apply(x)
        with pytest.raises(TypeError, match=r"on self\.e, an array XExp\.forward computed"):
            V.grad(y, x, create_graph=True)


def test_without_the_check_the_second_derivative_would_be_silently_wrong():
    x = V.Variable(np.array(0.5))
    gx = V.grad(XExp.apply(x), x)            # first order: e^x (1 + x)
    np.testing.assert_allclose(gx.data, np.exp(0.5) * 1.5)
    forwarder = XExp()                       # what the recorded backward would compute with
    y = V.Function(forwarder)(x)             # the check off: a constant e times (1 + x), whose
    forwarder._kept_from_inputs = ()         # derivative is e, not e^x (2 + x)
    g2 = V.grad(V.grad(y, x, create_graph=True), x)
    assert not np.isclose(g2.data, np.exp(0.5) * 2.5)


class ReluKeepingAMask(V.Forwarder):
    def forward(self, x):
        self.mask = x > 0                    # a mask
        self.where = np.where(x > 0, 1.0, 0.0)  # a float mask built from constants
        self.sign = np.sign(x)               # piecewise constant
        self.index = np.argmax(x)            # an index
        self.floor = np.floor(x)
        return x * self.mask

    def backward(self, gy):
        return gy * self.mask * self.where * self.sign * self.sign + 0 * self.floor


class DropoutKeepingItsMask(V.Forwarder):
    def __init__(self, scale=2.0):
        self.weights = np.array([1.0, 2.0]) * scale  # a parameter of the op, not of its input
        self.keep = None

    def forward(self, x):
        self.keep = (np.random.default_rng(0).random(x.shape) > 0.5) / 0.5  # random, float
        self.scaled = self.weights * 3.0
        return x * self.keep * self.scaled

    def backward(self, gy):
        return gy * self.keep * self.scaled


class SignKeptOnPurpose(V.Forwarder):
    def forward(self, x):
        self.s = np.asarray(x / np.abs(x))   # constant where differentiated: kept on purpose
        return np.abs(x)

    def backward(self, gy):
        return gy * self.s


@pytest.mark.parametrize("op", [ReluKeepingAMask, DropoutKeepingItsMask, SignKeptOnPurpose])
def test_masks_indices_piecewise_constants_random_masks_and_parameters_are_let_through(op):
    x = V.Variable(np.array([0.5, -1.5]))
    assert V.gradcheck(op.apply, x.data, order=2)
    g = V.grad(V.sum(op.apply(x) ** 2), x, create_graph=True)  # recorded: no refusal
    assert g.creator is not None


def test_kept_arrays_are_plain_ndarrays_after_forward():
    forwarder = XExp()
    y = V.Function(forwarder)(V.Variable(np.array([0.5])))
    assert type(forwarder.e) is np.ndarray and type(y.data) is np.ndarray


class KeptButOnceDifferentiable(XExp):
    once_differentiable = True


def test_a_once_differentiable_backward_may_use_kept_arrays():
    x = V.Variable(np.array([0.5]))
    g = V.grad(V.sum(KeptButOnceDifferentiable.apply(x)), x, create_graph=True)
    np.testing.assert_allclose(g.data, np.exp(0.5) * 1.5)
