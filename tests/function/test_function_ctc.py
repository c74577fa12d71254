"""F.ctc_loss: its reductions, the input forms PyTorch takes, alignments that cannot fit, and,
where PyTorch is installed, its values and gradients against torch's ctc_loss."""

import importlib.util

import numpy as np
import pytest
from test_function_table import np_ctc_by_paths

import function as F
import variable as V

TARGETS, INPUTS, LENGTHS = np.array([[1, 1, 2], [2, 0, 0]]), np.array([5, 3]), np.array([3, 1])


@pytest.fixture
def log_probs():
    scores = np.random.default_rng(0).standard_normal((5, 2, 3))
    return scores - np.log(np.exp(scores).sum(axis=-1, keepdims=True))


def test_reductions_and_the_concatenated_and_unbatched_forms(log_probs):
    each = F.ctc_loss(log_probs, TARGETS, INPUTS, LENGTHS, reduction="none")
    assert each.shape == (2,)
    want = [np_ctc_by_paths(log_probs[:, i:i + 1], TARGETS[i:i + 1], INPUTS[i:i + 1], LENGTHS[i:i + 1])
            * LENGTHS[i] for i in range(2)]
    np.testing.assert_allclose(each.data, want, rtol=1e-12)
    np.testing.assert_allclose(F.ctc_loss(log_probs, TARGETS, INPUTS, LENGTHS, reduction="sum").data,
                               sum(want), rtol=1e-12)
    np.testing.assert_allclose(F.ctc_loss(log_probs, TARGETS, INPUTS, LENGTHS).data,
                               np.mean(np.array(want) / LENGTHS), rtol=1e-12)
    concatenated = np.array([1, 1, 2, 2])
    np.testing.assert_allclose(F.ctc_loss(log_probs, concatenated, INPUTS, LENGTHS).data,
                               F.ctc_loss(log_probs, TARGETS, INPUTS, LENGTHS).data, rtol=1e-15)
    one = F.ctc_loss(log_probs[:, 0], TARGETS[0], 5, 3, reduction="none")
    assert one.shape == () and np.isclose(float(one.data), want[0], rtol=1e-12)


def test_an_alignment_that_cannot_fit_is_inf_or_zero(log_probs):
    x = V.Variable(log_probs)
    lengths = np.array([3, 3])                   # 1, 1, 2 needs 4 steps: 1, blank, 1, 2
    loss = F.ctc_loss(x, TARGETS, lengths, LENGTHS, reduction="none")
    assert np.isinf(loss.data[0]) and np.isfinite(loss.data[1])
    zeroed = F.ctc_loss(x, TARGETS, lengths, LENGTHS, zero_infinity=True)
    zeroed.backward()
    assert np.isfinite(zeroed.data) and np.all(x.grad.data[:, 0] == 0) and np.any(x.grad.data[:, 1] != 0)


def test_the_gradient_is_minus_the_posterior_of_each_class(log_probs):
    x = V.Variable(log_probs)
    F.ctc_loss(x, TARGETS, INPUTS, LENGTHS, reduction="sum").backward()
    # each step's posterior occupation sums to 1 over the classes, for the steps a sequence uses
    np.testing.assert_allclose(-x.grad.data[:5, 0].sum(axis=-1), 1, rtol=1e-12)
    np.testing.assert_allclose(-x.grad.data[:3, 1].sum(axis=-1), 1, rtol=1e-12)
    assert np.all(x.grad.data[3:, 1] == 0)       # past its input length a sequence reads nothing


def test_slips_name_the_fix(log_probs):
    with pytest.raises(ValueError, match=r"ctc_loss: input_lengths must hold one length per sequence \(3\), "
                                         r"got shape \(2,\); log_probs is \(T, N, C\), steps first"):
        F.ctc_loss(log_probs.transpose(1, 0, 2)[:, :3], TARGETS, INPUTS, LENGTHS)
    with pytest.raises(ValueError, match=r"ctc_loss: label 0 is the blank \(classes 0 to 2, blank 0\)"):
        F.ctc_loss(log_probs, np.array([[1, 0, 2], [2, 0, 0]]), INPUTS, LENGTHS)
    with pytest.raises(TypeError, match=r"ctc_loss: targets must be integers, got float64 \(write "
                                        r"\.astype\(int\)\)"):
        F.ctc_loss(log_probs, TARGETS * 1.0, INPUTS, LENGTHS)
    with pytest.raises(ValueError, match=r"ctc_loss: reduction must be 'mean', 'sum' or 'none', got 'max'"):
        F.ctc_loss(log_probs, TARGETS, INPUTS, LENGTHS, reduction="max")


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_values_and_gradients_agree_with_torch(reduction):
    import torch

    rng = np.random.default_rng(1)
    for _ in range(10):
        steps, n, classes = rng.integers(1, 10), rng.integers(1, 4), rng.integers(2, 6)
        blank = int(rng.integers(0, classes))
        longest = int(rng.integers(0, 5))
        target_lengths = rng.integers(0, longest + 1, n)
        input_lengths = rng.integers(1, steps + 1, n)
        targets = rng.choice([c for c in range(classes) if c != blank], (n, max(longest, 1)))
        scores = rng.standard_normal((steps, n, classes))
        x = V.Variable(scores)
        loss = F.ctc_loss(F.log_softmax(x, axis=-1), targets, input_lengths, target_lengths, blank=blank,
                          reduction=reduction, zero_infinity=True)
        xt = torch.tensor(scores, requires_grad=True)
        lt = torch.nn.functional.ctc_loss(torch.log_softmax(xt, -1), torch.tensor(targets),
                                          torch.tensor(input_lengths), torch.tensor(target_lengths),
                                          blank=blank, reduction=reduction, zero_infinity=True)
        np.testing.assert_allclose(loss.data, lt.detach().numpy(), rtol=1e-12, atol=1e-13)
        V.sum(loss).backward()
        lt.sum().backward()
        np.testing.assert_allclose(x.grad.data, xt.grad.numpy(), rtol=1e-10, atol=1e-13)
