"""LayerNorm, RMSNorm and BatchNorm: forward against NumPy, running statistics, test mode, gradients."""

import numpy as np
import pytest
from layer_checks import assert_param_grads_match

import layers as L
import variable as V
from variable.backend import to_cpu


def test_layer_norm_matches_numpy(rng, on_device):
    layer = L.LayerNorm()
    x = rng.standard_normal((3, 5)) * 2 + 1
    y = layer(on_device(x))
    assert layer.gamma.shape == (5,) and layer.size == 5
    z = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y.data, z, rtol=1e-10)
    layer.gamma.data = on_device(rng.standard_normal(5))
    layer.beta.data = on_device(rng.standard_normal(5))
    gamma, beta = to_cpu(layer.gamma.data), to_cpu(layer.beta.data)
    np.testing.assert_allclose(layer(on_device(x)).data, z * gamma + beta, rtol=1e-10)


def test_layer_norm_gradients_and_dtype(rng, on_device):
    layer = L.LayerNorm(4)
    layer.gamma.data = on_device(rng.standard_normal(4))
    x = on_device(rng.standard_normal((3, 4)))
    w = on_device(rng.standard_normal((3, 4)))
    assert_param_grads_match(layer, lambda: V.sum(layer(x) * w))
    lazy = L.LayerNorm()
    assert lazy(x.astype(np.float32)).dtype == np.float32 and lazy.gamma.dtype == np.float32


@pytest.mark.parametrize("size", [None, 4])
def test_layer_norm_without_gamma_or_beta_as_pytorchs_elementwise_affine_and_bias(size, rng, on_device):
    x = rng.standard_normal((3, 4)) * 2 + 1
    z = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    bare = L.LayerNorm(size, elementwise_affine=False)
    np.testing.assert_allclose(to_cpu(bare(on_device(x)).data), z, rtol=1e-10)
    assert list(bare.params()) == [] and bare.size == 4
    assert repr(bare) == "LayerNorm(eps=1e-05, elementwise_affine=False)"
    scaled = L.LayerNorm(size, bias=False)
    scaled(on_device(x))
    assert [name for name, _ in scaled.named_params()] == ["gamma"] and scaled.beta is None
    scaled.gamma.data = on_device(rng.standard_normal(4))
    np.testing.assert_allclose(to_cpu(scaled(on_device(x)).data), z * to_cpu(scaled.gamma.data), rtol=1e-10)
    w = on_device(rng.standard_normal((3, 4)))
    assert_param_grads_match(scaled, lambda: V.sum(scaled(on_device(x)) * w))
    with pytest.raises(TypeError, match="LayerNorm: elementwise_affine must be True or False, got 'no'"):
        L.LayerNorm(4, elementwise_affine="no")


def test_group_norm_layer_without_gamma_and_beta_as_pytorchs_affine(rng, on_device):
    x = rng.standard_normal((2, 4, 3))
    bare = L.GroupNorm(2, affine=False)
    g = x.reshape(2, 2, -1)
    z = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(to_cpu(bare(on_device(x)).data), z, rtol=1e-10)
    assert list(bare.params()) == [] and bare.num_channels == 4
    assert repr(bare) == "GroupNorm(num_groups=2, eps=1e-05, affine=False)"


def test_layer_norm_errors():
    with pytest.raises(ValueError, match=r"LayerNorm: input of shape \(2, 3\) does not end in size=4"):
        L.LayerNorm(4)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="LayerNorm: eps must be positive"):
        L.LayerNorm(eps=0)


def test_rms_norm_divides_by_the_root_mean_square_and_scales(rng, on_device):
    layer = L.RMSNorm()
    x = rng.standard_normal((3, 5)) * 2 + 1
    y = layer(on_device(x))
    assert layer.gamma.shape == (5,) and layer.size == 5 and len(list(layer.params())) == 1
    z = x / np.sqrt((x ** 2).mean(-1, keepdims=True) + np.finfo(np.float64).eps)
    np.testing.assert_allclose(to_cpu(y.data), z, rtol=1e-12)
    layer.gamma.data = on_device(rng.standard_normal(5))
    np.testing.assert_allclose(to_cpu(layer(on_device(x)).data), z * to_cpu(layer.gamma.data), rtol=1e-12)
    w = on_device(rng.standard_normal((3, 5)))
    assert_param_grads_match(layer, lambda: V.sum(layer(on_device(x)) * w))
    assert V.gradcheck(lambda v: layer(v), on_device(x), order=2)
    lazy = L.RMSNorm(eps=1e-6)
    small = lazy(on_device(x.astype(np.float32)))
    assert small.dtype == np.float32 and lazy.gamma.dtype == np.float32
    np.testing.assert_allclose(to_cpu(small.data), x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6),
                               rtol=1e-5)
    assert repr(L.RMSNorm(eps=1e-6)) == "RMSNorm(eps=1e-06)"


def test_rms_norm_errors():
    with pytest.raises(ValueError, match=r"RMSNorm: input of shape \(2, 3\) does not end in size=4"):
        L.RMSNorm(4)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="RMSNorm: eps must be positive"):
        L.RMSNorm(eps=0)
    with pytest.raises(TypeError, match=r"elementwise_affine is PyTorch's keyword: .*"
                                        r"lambda x: F\.rms_norm\(x\)"):
        L.RMSNorm(4, elementwise_affine=False)


def test_batch_norm_training_step_and_running_statistics(rng, on_device):
    layer = L.BatchNorm(decay=0.8)
    x = rng.standard_normal((6, 3)) * 3 + 2
    y = layer(on_device(x))
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(y.data, (x - mean) / np.sqrt(var + 2e-5), rtol=1e-10)
    # running = decay * running + (1 - decay) * batch, starting at mean 0 and variance 1,
    # the variance stored unbiased (m / (m - 1) times the batch variance)
    np.testing.assert_allclose(layer.avg_mean, 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(layer.avg_var, 0.8 + 0.2 * var * 6 / 5, rtol=1e-12)
    x2 = rng.standard_normal((6, 3))
    layer(on_device(x2))
    np.testing.assert_allclose(layer.avg_mean, 0.8 * 0.2 * mean + 0.2 * x2.mean(0), rtol=1e-12)


def test_batch_norm_test_mode_uses_running_statistics(rng, on_device):
    layer = L.BatchNorm(3)
    for _ in range(5):
        layer(on_device(rng.standard_normal((8, 3)) + 4))
    layer.gamma.data = on_device(np.array([1.0, 2.0, 0.5]))
    layer.beta.data = on_device(np.array([0.0, -1.0, 1.0]))
    mean, var = to_cpu(layer.avg_mean.copy()), to_cpu(layer.avg_var.copy())
    x = rng.standard_normal((2, 3))
    with V.test_mode():
        y = layer(on_device(x))
    gamma, beta = to_cpu(layer.gamma.data), to_cpu(layer.beta.data)
    np.testing.assert_allclose(y.data, (x - mean) / np.sqrt(var + 2e-5) * gamma + beta, rtol=1e-10)
    np.testing.assert_array_equal(layer.avg_mean, mean)       # no update in test mode


def test_batch_norm_images_are_normalised_per_channel(rng, on_device):
    layer = L.BatchNorm()
    x = rng.standard_normal((4, 2, 3, 3)) + np.array([1.0, -5.0]).reshape(1, 2, 1, 1)
    y = layer(on_device(x)).data
    assert layer.size == 2
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(0, 2, 3)), 1, rtol=1e-3)


def test_batch_norm_gradients_buffers_and_dtype(rng, on_device):
    layer = L.BatchNorm(3)
    layer.gamma.data = on_device(rng.standard_normal(3))
    x = on_device(rng.standard_normal((5, 3)))
    w = on_device(rng.standard_normal((5, 3)))
    assert_param_grads_match(layer, lambda: V.sum(layer(x) * w))
    assert [k for k, _ in layer.named_params()] == ["gamma", "beta"]
    assert [k for k, _ in layer.named_buffers()] == ["avg_mean", "avg_var"]
    lazy = L.BatchNorm()
    assert lazy(x.astype(np.float32)).dtype == np.float32
    assert lazy.avg_mean.dtype == np.float32 and lazy.gamma.dtype == np.float32


def test_batch_norm_errors():
    with pytest.raises(ValueError, match=r"BatchNorm: input of shape \(2, 4\) has 4 channels on axis 1"):
        L.BatchNorm(3)(np.ones((2, 4)))
    with pytest.raises(ValueError, match="BatchNorm: input must have a batch and a channel axis"):
        L.BatchNorm()(np.ones(3))
    with pytest.raises(ValueError, match=r"BatchNorm: decay must lie in \[0, 1.0\]"):
        L.BatchNorm(decay=1.5)


@pytest.mark.parametrize("groups, shape", [(2, (3, 4, 5, 5)), (1, (2, 3, 4)), (3, (2, 3, 2, 2))])
def test_group_norm_layer_normalises_groups_of_channels(groups, shape, rng, on_device):
    layer = L.GroupNorm(groups)
    assert repr(layer) == f"GroupNorm(num_groups={groups}, eps=1e-05)"
    x = rng.standard_normal(shape)
    y = to_cpu(layer(on_device(x)).data)
    g = y.reshape(shape[0], groups, -1)                     # gamma 1, beta 0: each group standardised
    np.testing.assert_allclose(g.mean(axis=2), 0, atol=1e-12)
    np.testing.assert_allclose(g.var(axis=2) * (1 + 1e-5 / x.reshape(shape[0], groups, -1).var(axis=2)), 1,
                               rtol=1e-10)
    assert [k for k, _ in layer.named_params()] == ["gamma", "beta"]
    assert layer.gamma.shape == (shape[1],)
    assert L.GroupNorm(groups)(on_device(x.astype(np.float32))).dtype == np.float32


def test_group_norm_layer_refuses_channels_its_groups_do_not_divide(rng):
    layer = L.GroupNorm(3)
    with pytest.raises(ValueError, match=r"GroupNorm: num_groups=3 must divide the 4 channels of the input"):
        layer(rng.standard_normal((2, 4, 2)))
    assert layer.gamma is None and layer.num_channels is None          # nothing built
    with pytest.raises(ValueError, match=r"GroupNorm: num_groups=3 must divide num_channels=4"):
        L.GroupNorm(3, 4)
    built = L.GroupNorm(2)
    built(rng.standard_normal((2, 4, 2)))
    with pytest.raises(ValueError, match=r"has 6 channels, but the layer was built for num_channels=4"):
        built(rng.standard_normal((2, 6, 2)))
