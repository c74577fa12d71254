"""Table test of the tensor ops: shape, indexing, joining, reduction and linear algebra.

Every case is run three ways: the forward pass against an independent NumPy formula,
`V.gradcheck` in float64 (to order 3 for smooth ops, order 2 for max/min), and a
float32 pass checking that data and gradients (first and second order) stay float32.

`TENSOR_OPS_COVERED` maps each op name to its cases; together with the elementwise
table in test_op_table.py it must cover every name in `variable.OPS`.
"""

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from op_rows import DEVICE_TAYLOR, device_order

import variable as V


@dataclass(frozen=True)
class Case:
    """One row of the table: an op applied to inputs of given shapes."""

    id: str
    f: Callable            # Variables -> Variable or tuple of Variables
    ref: Callable          # ndarrays -> ndarray or tuple of ndarrays (independent NumPy)
    shapes: tuple          # shapes of the inputs
    order: int = 3         # gradcheck order


def _einsum(spec):
    return lambda a, b: np.einsum(spec, a, b)


def _split_ref(bounds, axis):
    """Slice `x` at `bounds` along `axis` (independent of np.split)."""
    def ref(x):
        edges = [0, *bounds, x.shape[axis]]
        return tuple(
            x[(slice(None),) * (axis % x.ndim) + (slice(lo, hi),)] for lo, hi in zip(edges, edges[1:])
        )
    return ref


def _lse_naive(axis, keepdims=False):
    return lambda x: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))


def _var_ref(axis, keepdims=False):
    def ref(x):
        centred = x - np.mean(x, axis=axis, keepdims=True)
        return np.mean(centred * centred, axis=axis, keepdims=keepdims)
    return ref


_BOOL_MASK = np.array([[True, False, True], [False, False, True]])

_KEEP = np.array([[True, False, True], [False, False, True]])     # NumPy's where= masks
_ROW_KEEP = np.array([True, False, True])                       # broadcast along axis 0
_NONE_KEPT_IN_ROW_1 = np.array([[True, True, False], [False, False, False]])

_TABLE = {
    "reshape": [
        Case("(2,3)->(3,2)", lambda x: V.reshape(x, (3, 2)), lambda x: x.reshape(3, 2), ((2, 3),)),
        Case("varargs", lambda x: V.reshape(x, 3, 2), lambda x: x.reshape(3, 2), ((2, 3),)),
        Case("minus-one", lambda x: V.reshape(x, (4, -1)), lambda x: x.reshape(4, 6), ((2, 3, 4),)),
        Case("size-1-axes", lambda x: V.reshape(x, (1, 2, 1, 3)), lambda x: x.reshape(1, 2, 1, 3), ((6,),)),
        Case("scalar-up", lambda x: V.reshape(x, (1, 1)), lambda x: x.reshape(1, 1), ((),)),
        Case("to-scalar", lambda x: V.reshape(x, ()), lambda x: x.reshape(()), ((1,),)),
        Case("same-shape", lambda x: V.reshape(x, (2, 3)), lambda x: x, ((2, 3),)),
    ],
    "transpose": [
        Case("2d-default", lambda x: V.transpose(x), lambda x: x.T, ((2, 3),)),
        Case("3d-perm", lambda x: V.transpose(x, (1, 0, 2)), lambda x: np.einsum("ijk->jik", x),
             ((2, 3, 4),)),
        Case("negative-axes", lambda x: V.transpose(x, (-1, 0, -2)), lambda x: np.einsum("ijk->kij", x),
             ((2, 3, 4),)),
        Case("size-1-axes", lambda x: V.transpose(x, (2, 0, 1)), lambda x: x.reshape(1, 1, 3), ((1, 3, 1),)),
        Case("scalar", lambda x: V.transpose(x), lambda x: x, ((),)),
        Case("1d", lambda x: V.transpose(x), lambda x: x, ((3,),)),
    ],
    "flatten": [
        Case("3d", V.flatten, lambda x: x.reshape(2, 12), ((2, 3, 4),)),
        Case("1d", V.flatten, lambda x: x[:, None], ((3,),)),
        Case("size-1-axes", V.flatten, lambda x: x.reshape(1, 6), ((1, 2, 1, 3),)),
    ],
    "expand_dims": [
        Case("scalar", lambda x: V.expand_dims(x, 0), lambda x: x[None], ((),)),
        Case("1d-last", lambda x: V.expand_dims(x, -1), lambda x: x[:, None], ((3,),)),
        Case("2d-middle", lambda x: V.expand_dims(x, 1), lambda x: x[:, None, :], ((2, 3),)),
        Case("2d-negative-front", lambda x: V.expand_dims(x, -3), lambda x: x[None], ((2, 3),)),
        Case("2d-tuple", lambda x: V.expand_dims(x, (0, 2)), lambda x: x[None, :, None], ((2, 3),)),
        Case("2d-tuple-negative", lambda x: V.expand_dims(x, (-1, 1)), lambda x: x[:, None, :, None],
             ((2, 3),)),
        Case("np-tuple", lambda x: np.expand_dims(x, (3, 0)), lambda x: x[None, :, :, None], ((2, 3),)),
    ],
    "squeeze": [
        Case("all", V.squeeze, lambda x: x[0, :, 0], ((1, 3, 1),)),
        Case("negative-axis", lambda x: V.squeeze(x, -1), lambda x: x[:, :, 0], ((1, 3, 1),)),
        Case("axis-tuple", lambda x: V.squeeze(x, (0, 2)), lambda x: x[0, :, 0], ((1, 3, 1),)),
        Case("middle", lambda x: V.squeeze(x, 1), lambda x: x[:, 0, :], ((2, 1, 3),)),
        Case("to-scalar", V.squeeze, lambda x: x[0], ((1,),)),
    ],
    "broadcast_to": [
        Case("scalar", lambda x: V.broadcast_to(x, (2, 3)), lambda x: x * np.ones((2, 3)), ((),)),
        Case("leading", lambda x: V.broadcast_to(x, (2, 3)), lambda x: x * np.ones((2, 3)), ((3,),)),
        Case("size-1-axis", lambda x: V.broadcast_to(x, (2, 3)), lambda x: x * np.ones((2, 3)), ((2, 1),)),
        Case("both", lambda x: V.broadcast_to(x, (2, 3, 4)), lambda x: x * np.ones((2, 3, 4)), ((1, 3, 1),)),
        Case("same-shape", lambda x: V.broadcast_to(x, (3,)), lambda x: x, ((3,),)),
    ],
    "sum_to": [
        Case("drop-leading", lambda x: V.sum_to(x, (3,)), lambda x: x[0] + x[1], ((2, 3),)),
        Case("keep-size-1", lambda x: V.sum_to(x, (2, 1)), lambda x: (x[:, 0] + x[:, 1] + x[:, 2])[:, None],
             ((2, 3),)),
        Case("both", lambda x: V.sum_to(x, (3, 1)), lambda x: np.einsum("ijk->j", x)[:, None], ((2, 3, 4),)),
        Case("to-scalar", lambda x: V.sum_to(x, ()), lambda x: np.einsum("ij->", x), ((2, 3),)),
        Case("to-ones", lambda x: V.sum_to(x, (1, 1)), lambda x: np.einsum("ij->", x).reshape(1, 1),
             ((2, 3),)),
        Case("same-shape", lambda x: V.sum_to(x, (2, 3)), lambda x: x, ((2, 3),)),
    ],
    "get_item": [
        Case("int", lambda x: V.get_item(x, 1), lambda x: x[1], ((3, 2),)),
        Case("negative-int", lambda x: V.get_item(x, -1), lambda x: x[2], ((3,),)),
        Case("int-pair", lambda x: V.get_item(x, (1, 2)), lambda x: x[1][2], ((2, 3),)),
        Case("slice", lambda x: V.get_item(x, slice(1, 3)), lambda x: x[1:3], ((4, 2),)),
        Case("reverse-slice", lambda x: V.get_item(x, (slice(None), slice(None, None, -2))),
             lambda x: x[:, [2, 0]], ((2, 3),)),
        Case("ellipsis", lambda x: V.get_item(x, (Ellipsis, 0)), lambda x: x[:, :, 0], ((2, 3, 4),)),
        Case("none", lambda x: V.get_item(x, (None, slice(None), 1)), lambda x: x[:, 1].reshape(1, 2),
             ((2, 3),)),
        Case("bool-mask", lambda x: V.get_item(x, _BOOL_MASK),
             lambda x: np.array([x[0, 0], x[0, 2], x[1, 2]]), ((2, 3),)),
        Case("int-array-repeated", lambda x: V.get_item(x, np.array([0, 2, 0, 0])),
             lambda x: np.stack([x[0], x[2], x[0], x[0]]), ((3, 2),)),
        Case("int-array-pairs", lambda x: V.get_item(x, (np.array([1, 0, 1]), np.array([2, 2, 2]))),
             lambda x: np.array([x[1, 2], x[0, 2], x[1, 2]]), ((2, 3),)),
        Case("array-and-slice", lambda x: V.get_item(x, (slice(None), [1, 1])),
             lambda x: np.stack([x[:, 1], x[:, 1]], axis=1), ((2, 3),)),
        Case("scalar-input", lambda x: V.get_item(x, ()), lambda x: x, ((),)),
    ],
    "concat": [
        Case("axis0", lambda a, b: V.concat([a, b]), lambda a, b: np.vstack([a, b]), ((2, 3), (1, 3))),
        Case("three-negative-axis", lambda a, b, c: V.concat((a, b, c), axis=-1),
             lambda a, b, c: np.hstack([a, b, c]), ((2, 1), (2, 3), (2, 2))),
        Case("1d", lambda a, b: V.concat([a, b]), lambda a, b: np.hstack([a, b]), ((2,), (3,))),
        Case("3d-middle", lambda a, b: V.concat([a, b], axis=1),
             lambda a, b: np.concatenate([a, b], axis=1), ((2, 1, 2), (2, 2, 2))),
        Case("single", lambda a: V.concat([a], axis=0), lambda a: a, ((2, 2),)),
    ],
    "stack": [
        Case("1d-axis0", lambda a, b: V.stack([a, b]), lambda a, b: np.array([a, b]), ((3,), (3,))),
        Case("2d-negative-axis", lambda a, b, c: V.stack((a, b, c), axis=-1),
             lambda a, b, c: np.einsum("kij->ijk", np.array([a, b, c])), ((2, 3),) * 3),
        Case("2d-middle", lambda a, b: V.stack([a, b], axis=1),
             lambda a, b: np.einsum("kij->ikj", np.array([a, b])), ((2, 3), (2, 3))),
        Case("scalars", lambda a, b, c: V.stack([a, b, c]), lambda a, b, c: np.array([a, b, c]), ((),) * 3),
    ],
    "split": [
        Case("equal-1d", lambda x: V.split(x, 3), _split_ref([2, 4], 0), ((6,),)),
        Case("indices-negative-axis", lambda x: V.split(x, [1, 4], axis=-1), _split_ref([1, 4], -1),
             ((2, 6),)),
        Case("equal-axis0", lambda x: V.split(x, 2, axis=0), _split_ref([2], 0), ((4, 3),)),
        Case("one-index-3d", lambda x: V.split(x, [3], axis=2), _split_ref([3], 2), ((2, 3, 4),)),
        Case("single-part", lambda x: V.split(x, 1, axis=1), _split_ref([], 1), ((2, 3),)),
    ],
    "sum": [
        Case("where", lambda x: V.sum(x, where=_KEEP), lambda x: x[0, 0] + x[0, 2] + x[1, 2], ((2, 3),)),
        Case("where-axis0-initial", lambda x: V.sum(x, axis=0, where=_ROW_KEEP, initial=1.5),
             lambda x: np.array([x[0, 0] + x[1, 0], 0.0, x[0, 2] + x[1, 2]]) + 1.5, ((2, 3),)),
        Case("initial", lambda x: V.sum(x, axis=-1, initial=-2.0), lambda x: np.einsum("ij->i", x) - 2,
             ((2, 3),)),
        Case("scalar", V.sum, lambda x: x, ((),)),
        Case("all", V.sum, lambda x: np.einsum("ij->", x), ((2, 3),)),
        Case("axis0", lambda x: V.sum(x, axis=0), lambda x: x[0] + x[1], ((2, 3),)),
        Case("neg-axis-keepdims", lambda x: V.sum(x, axis=-1, keepdims=True),
             lambda x: np.einsum("ij->i", x)[:, None], ((2, 3),)),
        Case("axis-tuple", lambda x: V.sum(x, axis=(0, 2)), lambda x: np.einsum("ijk->j", x), ((2, 3, 4),)),
        Case("neg-tuple-keepdims", lambda x: V.sum(x, axis=(-1, 0), keepdims=True),
             lambda x: np.einsum("ijk->j", x).reshape(1, 3, 1), ((2, 3, 4),)),
        Case("size-1-axis", lambda x: V.sum(x, axis=0), lambda x: x[0], ((1, 3, 1),)),
        Case("all-keepdims", lambda x: V.sum(x, keepdims=True), lambda x: np.einsum("ij->", x).reshape(1, 1),
             ((2, 3),)),
        Case("1d", V.sum, lambda x: np.einsum("i->", x), ((4,),)),
    ],
    "mean": [
        Case("where", lambda x: V.mean(x, where=_KEEP), lambda x: (x[0, 0] + x[0, 2] + x[1, 2]) / 3,
             ((2, 3),)),
        Case("where-axis1-keepdims", lambda x: V.mean(x, axis=1, keepdims=True, where=_KEEP),
             lambda x: np.array([[(x[0, 0] + x[0, 2]) / 2], [x[1, 2]]]), ((2, 3),)),
        Case("where-broadcast-axis1", lambda x: V.mean(x, axis=1, where=_ROW_KEEP),
             lambda x: (x[:, 0] + x[:, 2]) / 2, ((2, 3),)),
        Case("scalar", V.mean, lambda x: x, ((),)),
        Case("all", V.mean, lambda x: np.einsum("ij->", x) / 6, ((2, 3),)),
        Case("neg-axis", lambda x: V.mean(x, axis=-2), lambda x: (x[0] + x[1]) / 2, ((2, 3),)),
        Case("axis-keepdims", lambda x: V.mean(x, axis=1, keepdims=True),
             lambda x: np.einsum("ij->i", x)[:, None] / 3, ((2, 3),)),
        Case("axis-tuple", lambda x: V.mean(x, axis=(0, 2)), lambda x: np.einsum("ijk->j", x) / 8,
             ((2, 3, 4),)),
        Case("tuple-keepdims", lambda x: V.mean(x, axis=(2, -3), keepdims=True),
             lambda x: np.einsum("ijk->j", x).reshape(1, 3, 1) / 8, ((2, 3, 4),)),
        Case("size-1-axis", lambda x: V.mean(x, axis=-1), lambda x: x[:, 0], ((3, 1),)),
    ],
    "variance": [
        Case("1d", V.variance, _var_ref(None), ((5,),)),
        Case("axis-keepdims", lambda x: V.variance(x, axis=1, keepdims=True), _var_ref(1, True), ((2, 3),)),
        Case("neg-axis", lambda x: V.variance(x, axis=-2), _var_ref(0), ((3, 2),)),
        Case("axis-tuple", lambda x: V.variance(x, axis=(0, 2)), _var_ref((0, 2)), ((2, 3, 4),)),
        Case("all-keepdims", lambda x: V.variance(x, keepdims=True), _var_ref(None, True), ((2, 3),)),
        Case("size-1-axis", lambda x: V.variance(x, axis=0), lambda x: np.zeros(x.shape[1:]), ((1, 3),)),
        Case("scalar", V.variance, lambda x: np.zeros(()), ((),)),
    ],
    "max": [
        Case("where-initial", lambda x: V.max(x, axis=1, where=_NONE_KEPT_IN_ROW_1, initial=-10.0),
             lambda x: np.array([np.maximum(x[0, 0], x[0, 1]), -10.0]), ((2, 3),), 2),
        Case("initial-wins-in-places", lambda x: V.max(x, axis=0, initial=0.0),
             lambda x: np.maximum(np.maximum(x[0], x[1]), 0.0), ((2, 3),), 2),
        Case("1d", V.max, lambda x: np.sort(x)[-1], ((5,),), 2),
        Case("scalar", V.max, lambda x: x, ((),), 2),
        Case("axis0", lambda x: V.max(x, axis=0), lambda x: np.maximum(x[0], x[1]), ((2, 3),), 2),
        Case("neg-axis-keepdims", lambda x: V.max(x, axis=-1, keepdims=True),
             lambda x: np.sort(x, axis=1)[:, -1:], ((2, 3),), 2),
        Case("axis-tuple", lambda x: V.max(x, axis=(0, 2)), lambda x: np.amax(x, axis=(0, 2)),
             ((2, 3, 4),), 2),
        Case("tuple-keepdims", lambda x: V.max(x, axis=(-1, 0), keepdims=True),
             lambda x: np.amax(x, axis=(0, 2), keepdims=True), ((2, 3, 4),), 2),
        Case("size-1-axis", lambda x: V.max(x, axis=0), lambda x: x[0], ((1, 3),), 2),
    ],
    "min": [
        Case("where-initial", lambda x: V.min(x, where=_KEEP, initial=10.0),
             lambda x: np.min([x[0, 0], x[0, 2], x[1, 2]]), ((2, 3),), 2),
        Case("1d", V.min, lambda x: np.sort(x)[0], ((5,),), 2),
        Case("scalar", V.min, lambda x: x, ((),), 2),
        Case("axis1", lambda x: V.min(x, axis=1), lambda x: np.minimum(np.minimum(x[:, 0], x[:, 1]), x[:, 2]),
             ((2, 3),), 2),
        Case("neg-axis-keepdims", lambda x: V.min(x, axis=-2, keepdims=True),
             lambda x: np.sort(x, axis=0)[:1], ((2, 3),), 2),
        Case("axis-tuple", lambda x: V.min(x, axis=(0, 2)), lambda x: np.amin(x, axis=(0, 2)),
             ((2, 3, 4),), 2),
        Case("tuple-keepdims", lambda x: V.min(x, axis=(1, -1), keepdims=True),
             lambda x: np.amin(x, axis=(1, 2), keepdims=True), ((2, 3, 4),), 2),
        Case("size-1-axis", lambda x: V.min(x, axis=-1), lambda x: x[:, 0], ((3, 1),), 2),
    ],
    "amax": [                                        # (NumPy's other name for max)
        Case("axis-tuple", lambda x: V.amax(x, axis=(0, 2)), lambda x: np.amax(x, axis=(0, 2)),
             ((2, 3, 4),), 2),
        Case("1d", V.amax, lambda x: np.sort(x)[-1], ((5,),), 2),
    ],
    "amin": [
        Case("neg-axis-keepdims", lambda x: V.amin(x, axis=-2, keepdims=True),
             lambda x: np.sort(x, axis=0)[:1], ((2, 3),), 2),
        Case("1d", V.amin, lambda x: np.sort(x)[0], ((5,),), 2),
    ],
    "logsumexp": [
        Case("1d", V.logsumexp, _lse_naive(None), ((5,),)),
        Case("scalar", V.logsumexp, lambda x: x, ((),)),
        Case("axis0", lambda x: V.logsumexp(x, axis=0), _lse_naive(0), ((2, 3),)),
        Case("neg-axis-keepdims", lambda x: V.logsumexp(x, axis=-1, keepdims=True), _lse_naive(-1, True),
             ((2, 3),)),
        Case("axis-tuple", lambda x: V.logsumexp(x, axis=(0, 2)), _lse_naive((0, 2)), ((2, 3, 4),)),
        Case("all-keepdims", lambda x: V.logsumexp(x, keepdims=True), _lse_naive(None, True), ((2, 3),)),
        Case("size-1-axis", lambda x: V.logsumexp(x, axis=1), lambda x: x[:, 0], ((3, 1),)),
    ],
    "matmul": [
        Case("(3,)@(3,)", V.matmul, _einsum("i,i->"), ((3,), (3,))),
        Case("(3,)@(3,4)", V.matmul, _einsum("i,ik->k"), ((3,), (3, 4))),
        Case("(2,3)@(3,)", V.matmul, _einsum("ij,j->i"), ((2, 3), (3,))),
        Case("(2,3)@(3,4)", V.matmul, _einsum("ij,jk->ik"), ((2, 3), (3, 4))),
        Case("(5,2,3)@(3,4)", V.matmul, _einsum("bij,jk->bik"), ((5, 2, 3), (3, 4))),
        Case("(2,1,2,3)@(3,3,4)", V.matmul, _einsum("...ij,...jk->...ik"), ((2, 1, 2, 3), (3, 3, 4))),
        Case("(4,2,3)@(4,3,2)", V.matmul, _einsum("bij,bjk->bik"), ((4, 2, 3), (4, 3, 2))),
        Case("(3,)@(2,3,4)", V.matmul, _einsum("j,bjk->bk"), ((3,), (2, 3, 4))),
        Case("(2,3,4)@(4,)", V.matmul, _einsum("bij,j->bi"), ((2, 3, 4), (4,))),
        Case("operator", lambda a, b: a @ b, _einsum("ij,jk->ik"), ((1, 3), (3, 2))),
    ],
    "transpose_matmul": [
        Case("2d", V.transpose_matmul, _einsum("ji,jk->ik"), ((3, 2), (3, 4))),
        Case("2d-vector", V.transpose_matmul, _einsum("ji,j->i"), ((3, 2), (3,))),
        Case("batched", V.transpose_matmul, _einsum("bji,jk->bik"), ((5, 3, 2), (3, 4))),
        Case("broadcast-batch", V.transpose_matmul, _einsum("...ji,...jk->...ik"), ((2, 1, 3, 2), (4, 3, 1))),
    ],
}

TENSOR_OPS_COVERED = {name: list(cases) for name, cases in _TABLE.items()}
"""Op name -> its cases in this table (merged with the elementwise table by the meta-test)."""

TENSOR_OPS = (
    "reshape", "transpose", "flatten", "expand_dims", "squeeze", "broadcast_to", "sum_to",
    "get_item", "concat", "stack", "split",
    "sum", "mean", "variance", "max", "min", "logsumexp", "amax", "amin",
    "matmul", "transpose_matmul",
)

_ROWS = [(name, case) for name, cases in _TABLE.items() for case in cases]
_IDS = [f"{name}-{case.id}" for name, case in _ROWS]


def _inputs(name, case, dtype):
    """Reproducible inputs for `case`: standard normal, seeded by the case's id."""
    rng = np.random.default_rng(zlib.crc32(f"{name}-{case.id}".encode()))
    return [rng.standard_normal(shape).astype(dtype) for shape in case.shapes]


def _as_tuple(y):
    return y if isinstance(y, tuple) else (y,)


def test_table_covers_every_tensor_op():
    assert sorted(TENSOR_OPS_COVERED) == sorted(TENSOR_OPS)
    assert set(TENSOR_OPS) <= set(V.OPS)
    assert all(len(cases) >= 1 for cases in TENSOR_OPS_COVERED.values())


def test_case_ids_are_unique_per_op():
    for name, cases in TENSOR_OPS_COVERED.items():
        ids = [case.id for case in cases]
        assert len(ids) == len(set(ids)), name


@pytest.mark.parametrize(("name", "case"), _ROWS, ids=_IDS)
def test_forward_matches_numpy(name, case):
    xs = _inputs(name, case, np.float64)
    ys = _as_tuple(case.f(*[V.Variable(x) for x in xs]))
    expected = _as_tuple(case.ref(*xs))
    assert len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert isinstance(y, V.Variable)
        assert y.shape == np.shape(e)
        assert y.dtype == np.float64
        np.testing.assert_allclose(y.data, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("name", "case"), _ROWS, ids=_IDS)
def test_gradcheck(name, case):
    xs = _inputs(name, case, np.float64)
    assert V.gradcheck(case.f, *xs, order=device_order(case.order))


@pytest.mark.parametrize(("name", "case"), _ROWS, ids=_IDS)
def test_taylor_matches_nested_reverse(name, case):
    # every op has a Taylor rule: V.taylor to order 6 and V.jvp against V.jacobian
    xs = _inputs(name, case, np.float64)
    assert V.taylorcheck(case.f, *xs, order=device_order(6, DEVICE_TAYLOR))


@pytest.mark.parametrize(("name", "case"), _ROWS, ids=_IDS)
def test_many_directions_in_one_pass(name, case, directions_check):
    directions_check(case.f, *_inputs(name, case, np.float64), order=device_order(2, 1))


@pytest.mark.parametrize(("name", "case"), _ROWS, ids=_IDS)
def test_taylor_results_are_differentiable(name, case, recording_check):
    recording_check(case.f, *_inputs(name, case, np.float64), order=device_order(2, 1))


@pytest.mark.parametrize(("name", "case"), _ROWS, ids=_IDS)
def test_float32_preserved(name, case):
    inputs = _inputs(name, case, np.float32)
    xs = [V.Variable(x) for x in inputs]
    ys = _as_tuple(case.f(*xs))
    expected = _as_tuple(case.ref(*[x.astype(np.float64) for x in inputs]))   # NumPy's, on the host
    for y, e in zip(ys, expected):
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.data, e, rtol=1e-5, atol=1e-5)

    seeds = [V.Variable(np.full(y.shape, 0.5, dtype=np.float32)) for y in ys]
    grads = V.grad(list(ys), xs, grad_outputs=seeds, create_graph=True, allow_unused=True)
    assert any(g is not None for g in grads)
    for x, g in zip(xs, grads):
        if g is not None:
            assert g.shape == x.shape
            assert g.dtype == np.float32

    # second order, with respect to the inputs and to the incoming gradients
    used = [g for g in grads if g is not None]
    seconds = V.grad(used, xs + seeds, allow_unused=True)
    for v, g in zip(xs + seeds, seconds):
        if g is not None:
            assert g.shape == v.shape
            assert g.dtype == np.float32

    # the user-facing path: backward() on a scalar fills .grad in float32
    for x in xs:
        x.cleargrad()
    total = sum(V.sum(y) for y in ys)
    total.backward()
    for x in xs:
        if x.grad is not None:
            assert x.grad.dtype == np.float32
