"""The leanest pure-Python engine of gengrad's design, to bound what overhead work can reach.

It keeps what the overhead chain y = sin(y) * 1.0001 + x exercises and nothing else:
ndarray data (0-d results turned back into arrays), one node per op with its inputs, a
weak reference to its output and a generation number, and a backward pass that pops nodes
from a heap by generation and calls backward methods written with the same ops (run
unrecorded).  It drops everything gengrad must also do: argument checks and clear errors,
dtype rules for numbers, the Forwarder/Function split, thread-local settings, create_graph,
multi-output ops, `grad` and hooks.

So its time per op is a floor for any engine of this design in this Python: whatever
gengrad adds on top is the price of those features.  It is not part of the library.

    python -m benchmarks.engine_floor
"""

import argparse
import weakref
from heapq import heappop, heappush

import numpy as np

from benchmarks.timing import best_time

_recording = [True]  # a plain global flag: no nesting, no threads (gengrad's are contextvars)


class Var:
    """Data, gradient, creator, generation: the least a Variable can be."""

    __slots__ = ("data", "grad", "creator", "generation", "requires_grad", "__weakref__")

    def __init__(self, data, creator=None, generation=0, requires_grad=True):
        self.data = data
        self.grad = None
        self.creator = creator
        self.generation = generation
        self.requires_grad = requires_grad

    def __mul__(self, other):
        return Mul().call(self, other)

    def __add__(self, other):
        return Add().call(self, other)


_constants = {}


def _constant(c):
    v = _constants.get(c)
    if v is None:
        v = _constants[c] = Var(np.array(c), requires_grad=False)
    return v


class Op:
    """Forward on arrays, backward on Vars; `call` records the node when recording."""

    __slots__ = ("inputs", "outputs", "generation")

    def call(self, x0, x1=None):
        if x1 is None:
            y = self.forward(x0.data)
            inputs, generation = (x0,), x0.generation
        else:
            if type(x1) is float:
                x1 = _constant(x1)
            y = self.forward(x0.data, x1.data)
            inputs, generation = (x0, x1), max(x0.generation, x1.generation)
        if type(y) is not np.ndarray:
            y = np.asarray(y)
        if not _recording[0]:
            return Var(y, None, 0, False)
        self.inputs, self.generation = inputs, generation
        v = Var(y, self, generation + 1)
        self.outputs = (weakref.ref(v),)
        return v


class Sin(Op):
    __slots__ = ()

    def forward(self, x):
        return np.sin(x)

    def backward(self, gy):
        return gy * Cos().call(self.inputs[0])


class Cos(Op):
    __slots__ = ()

    def forward(self, x):
        return np.cos(x)


class Mul(Op):
    __slots__ = ()

    def forward(self, x0, x1):
        return x0 * x1

    def backward(self, gy):
        x0, x1 = self.inputs
        return (gy * x1 if x0.requires_grad else None), (gy * x0 if x1.requires_grad else None)


class Add(Op):
    __slots__ = ()

    def forward(self, x0, x1):
        return x0 + x1

    def backward(self, gy):
        return gy, gy


def backward(y):
    """Leaf gradients of `y` into `.grad`: a generation-ordered heap, each node once."""
    grads = {y: Var(np.ones_like(y.data), requires_grad=False)}
    heap, seen, counter = [(-y.creator.generation, 0, y.creator)], {y.creator}, 1
    _recording[0] = False
    try:
        while heap:
            f = heappop(heap)[2]
            gxs = f.backward(grads.pop(f.outputs[0]()))
            if type(gxs) is not tuple:
                gxs = (gxs,)
            for x, gx in zip(f.inputs, gxs):
                if gx is None or not x.requires_grad:
                    continue
                previous = grads.get(x)
                if previous is not None:
                    grads[x] = Var(previous.data + gx.data, requires_grad=False)
                    continue
                grads[x] = gx
                creator = x.creator
                if creator is not None and creator not in seen:
                    seen.add(creator)
                    heappush(heap, (-creator.generation, counter, creator))
                    counter += 1
    finally:
        _recording[0] = True
    for x, g in grads.items():
        x.grad = g


def chain(steps):
    """The overhead benchmark's chain, forward and backward; returns dy/dx."""
    x = Var(np.array(0.5))
    y = x
    for _ in range(steps):
        y = Sin().call(y) * 1.0001 + x
    backward(y)
    return x.grad.data


def run(steps=2000, repeat=5):
    """Microseconds per op of the chain in the minimal engine."""
    return best_time(lambda: chain(steps), repeat) / (3 * steps) * 1e6


def main(argv=None):
    """Time the chain in the minimal engine and print microseconds per op."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"minimal engine (no checks, no features): {run(args.steps, args.repeat):.2f} us per op")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
