"""interpolate and adaptive pooling: PyTorch's sizes and source coordinates, NaN kept where it
is read, and the identities between the modes."""

import numpy as np
import pytest

import function as F
import variable as V
from variable.backend import to_cpu


def test_nearest_by_a_scale_factor_reads_floor_of_i_over_the_factor(on_device):
    x = on_device(np.arange(3.0).reshape(1, 1, 3))
    # 3 * 1.3 gives 3 outputs, reading inputs floor(i / 1.3) = 0, 0, 1 (PyTorch's), not the identity
    np.testing.assert_array_equal(to_cpu(F.interpolate(x, scale_factor=1.3).data), [[[0.0, 0.0, 1.0]]])
    np.testing.assert_array_equal(to_cpu(F.interpolate(x, size=7).data), [[[0, 0, 0, 1, 1, 2, 2]]])
    image = on_device(np.ones((1, 2, 4, 6)))
    assert F.interpolate(image, size=np.array(image.shape[2:]) * 2).shape == (1, 2, 8, 12)   # an array


def test_a_linear_axis_whose_size_stays_is_left_as_it_is(rng, on_device):
    x = rng.standard_normal((1, 2, 3, 6))
    y = F.interpolate(on_device(x), scale_factor=1.3, mode="bilinear")       # (3, 6) -> (3, 7)
    z = F.interpolate(on_device(x), size=(3, 7), mode="bilinear")
    np.testing.assert_allclose(to_cpu(y.data)[..., 0], x[..., 0], rtol=1e-15)
    assert y.shape == (1, 2, 3, 7) and not np.allclose(to_cpu(y.data), to_cpu(z.data))   # scales 1/1.3 vs 6/7


def test_a_nan_reaches_only_the_outputs_that_read_it(on_device):
    x = np.zeros((1, 1, 6, 6))
    x[0, 0, 0, 0] = np.nan
    for y in (F.interpolate(on_device(x), size=(9, 9), mode="bilinear"),
              F.interpolate(on_device(x), size=(3, 3), mode="area"),
              F.adaptive_avg_pool2d(on_device(x), 4), F.adaptive_max_pool2d(on_device(x), 4)):
        nan = np.isnan(to_cpu(y.data))[0, 0]
        assert nan[0, 0] and nan.sum() <= 4, nan


def test_the_modes_agree_where_they_should(rng, on_device):
    x = on_device(rng.standard_normal((2, 3, 6, 4)))
    up = F.interpolate(x, scale_factor=2)                                # nearest: each pixel 2 x 2
    np.testing.assert_allclose(to_cpu(F.adaptive_avg_pool2d(up, (6, 4)).data), to_cpu(x), rtol=1e-14)
    np.testing.assert_allclose(to_cpu(F.adaptive_max_pool2d(up, (6, 4)).data), to_cpu(x), rtol=0)
    np.testing.assert_allclose(to_cpu(F.interpolate(x, size=(3, 2), mode="area").data),
                               to_cpu(F.average_pooling(x, 2, 2).data), rtol=1e-14)
    np.testing.assert_allclose(to_cpu(F.adaptive_avg_pool2d(x, 1).data),
                               to_cpu(V.mean(x, axis=(2, 3), keepdims=True).data), rtol=1e-14)
    np.testing.assert_allclose(to_cpu(F.adaptive_max_pool2d(x, (3, 2)).data),
                               to_cpu(F.pooling(x, 2, 2).data), rtol=0)
    corners = F.interpolate(x, size=(11, 7), mode="bilinear", align_corners=True)
    np.testing.assert_allclose(to_cpu(corners.data)[:, :, ::2, ::2], to_cpu(x), rtol=1e-14)


def test_gradients_reach_the_pixels_read_and_float32_stays(rng, on_device):
    x = V.Variable(on_device(rng.standard_normal((1, 1, 4, 4))))
    V.sum(F.adaptive_max_pool2d(x, 2)).backward()
    assert to_cpu(x.grad.data).sum() == 4 and set(np.unique(to_cpu(x.grad.data))) == {0.0, 1.0}
    assert V.gradcheck(lambda v: F.interpolate(v, size=(5, 3), mode="bilinear") ** 2,
                       on_device(rng.standard_normal((1, 2, 3, 4))), order=2)
    small = on_device(rng.standard_normal((1, 2, 3, 4)).astype(np.float32))
    for y in (F.interpolate(small, scale_factor=2.5, mode="bilinear"), F.adaptive_avg_pool2d(small, 2),
              F.interpolate(small, size=5), F.adaptive_max_pool2d(small, (2, None))):
        assert y.dtype == np.float32


@pytest.mark.parametrize("call, error, message", [
    (lambda x: F.interpolate(x, size=4, mode="linear"), ValueError,
     r"interpolate: mode 'linear' takes 1 spatial axes, x of shape \(1, 2, 3, 4\) has 2: bilinear for it"),
    (lambda x: F.interpolate(x, size=4, align_corners=True), ValueError,
     r"interpolate: align_corners is for the interpolating modes only, not 'nearest'"),
    (lambda x: F.interpolate(x), ValueError, r"interpolate: give one of size and scale_factor"),
    (lambda x: F.interpolate(x, size=4, mode="lanczos"), ValueError, r"interpolate: mode must be one of"),
    (lambda x: F.adaptive_avg_pool2d(x, None), TypeError, r"None keeps an axis inside a tuple: \(h, None\)"),
    (lambda x: F.adaptive_max_pool2d(x, (2, 0)), ValueError,
     r"adaptive_max_pool2d: output_size must be positive"),
])
def test_bad_calls_name_the_fix(call, error, message, rng, on_device):
    with pytest.raises(error, match=message):
        call(on_device(rng.standard_normal((1, 2, 3, 4))))


def test_grid_sample_reflection_folds_points_back_into_the_image():
    x = np.arange(4.0).reshape(1, 1, 1, 4)                   # one row: 0 1 2 3
    # pixel positions -1, 4.5 and 7 along the row, align_corners=False (the edges at -0.5, 3.5)
    grid = np.array([[[[(2 * p + 1) / 4 - 1, 0.0] for p in (-1.0, 4.5, 7.0)]]])
    y = F.grid_sample(x, grid, padding_mode="reflection")
    np.testing.assert_allclose(y.data.ravel(), [0.0, 2.5, 0.0], atol=1e-12)   # at 0, 2.5 and 0: mirrored
    corners = F.grid_sample(x, grid, padding_mode="reflection", align_corners=True)
    assert np.all((corners.data >= 0) & (corners.data <= 3))


def test_grid_sample_bicubic_passes_through_the_pixels_and_keeps_a_constant():
    """The cubic convolution kernel is 1 at 0 and 0 at the other integers (it interpolates),
    and its four weights sum to one (a constant image stays constant inside)."""
    x = np.random.default_rng(0).standard_normal((1, 2, 6, 7))
    px, py = np.array([3.0, 1.0, 5.0]), np.array([2.0, 4.0, 1.0])
    grid = np.stack([(2 * px + 1) / 7 - 1, (2 * py + 1) / 6 - 1], axis=-1)[None, None]
    np.testing.assert_allclose(F.grid_sample(x, grid, mode="bicubic").data[0, :, 0],
                               x[0][:, py.astype(int), px.astype(int)], rtol=1e-12, atol=1e-14)
    inside = np.random.default_rng(1).uniform(-0.4, 0.4, (1, 3, 4, 2))
    np.testing.assert_allclose(F.grid_sample(np.full((1, 1, 6, 7), 2.5), inside, mode="bicubic").data, 2.5,
                               rtol=1e-13)


def test_an_infinite_entry_stays_in_its_windows_only(on_device):
    # 5 -> 3 windows [0, 2), [1, 4), [3, 5) differ in length: the sum over the longest has a
    # third term that the others skip, and skipping must not read 0 * inf (NaN) from them
    x = np.zeros((1, 1, 5, 5))
    x[0, 0, 4, 4] = -np.inf
    expected = np.zeros((3, 3))
    expected[2, 2] = -np.inf
    for y in (F.adaptive_avg_pool2d(on_device(x), 3), F.interpolate(on_device(x), size=3, mode="area"),
              F.adaptive_avg_pool3d(on_device(x[:, :, None]), (1, 3, 3))):
        np.testing.assert_array_equal(to_cpu(y.data).reshape(3, 3), expected)
    np.testing.assert_array_equal(to_cpu(F.adaptive_avg_pool1d(on_device(x[:, :, 4]), 3).data),
                                  [[[0.0, 0.0, -np.inf]]])


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_reads_zeros_outside_even_beside_an_infinite_pixel(mode, on_device):
    # a point outside the image reads zeros (padding_mode 'zeros'), not the edge pixel times 0,
    # which is NaN where that pixel is inf; PyTorch's gives 0 for these points
    x = np.zeros((1, 1, 3, 3))
    x[0, 0, 0, 0] = np.inf
    grid = np.array([[[[-3.0, -3.0], [2.5, 0.0], [-1.5, 1.5]]]])
    y = to_cpu(F.grid_sample(on_device(x), on_device(grid), mode=mode).data).ravel()
    np.testing.assert_array_equal(y, [0.0, 0.0, 0.0])
    if mode == "bicubic":                  # a point whose 4x4 taps reach the inf pixel
        near = to_cpu(F.grid_sample(on_device(x), on_device(np.array([[[[-0.95, 0.2]]]])), mode=mode).data)
        assert near.ravel()[0] == -np.inf  # (the kernel's negative lobe at that tap)
