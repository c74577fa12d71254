"""A small quadratic problem shared by the optimizer tests.

loss(p) = sum(0.5 * a * p^2 + b * p), so the gradient is g(p) = a * p + b: the tests
run three optimizer steps through the library and the same steps by hand with this g.
"""

import numpy as np

import layers as L
import variable as V

A = np.array([1.0, 3.0, 0.5])
B = np.array([0.5, -1.0, 0.25])
P0 = np.array([1.0, -2.0, 0.3])


def grad_of(p):
    """The exact gradient a p + b, written out."""
    return A * p + B


class Quadratic(L.Model):
    """One parameter vector p and the loss sum(0.5 a p^2 + b p)."""

    def __init__(self, dtype=np.float64):
        super().__init__()
        self.p = L.Parameter(P0.astype(dtype))

    def forward(self):
        # constant Variables: where V.Variable puts host data (the device under GENGRAD_DEVICE)
        a = V.Variable(A.astype(self.p.dtype), requires_grad=False)
        b = V.Variable(B.astype(self.p.dtype), requires_grad=False)
        return V.sum(0.5 * a * self.p ** 2 + b * self.p)


def run_steps(optimizer, model, steps=3):
    """`steps` rounds of cleargrads, backward, update; returns p after each step."""
    optimizer.setup(model)
    trajectory = []
    for _ in range(steps):
        model.cleargrads()
        model().backward()
        optimizer.update()
        trajectory.append(model.p.data.copy())
    return trajectory
