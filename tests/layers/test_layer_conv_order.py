"""Conv2d/Deconv2d(out_channels, kernel_size, stride, pad, in_channels): PyTorch's order is refused or named.

PyTorch's nn.Conv2d(3, 8, 3) typed as L.Conv2d(3, 8, 3) is out_channels=3, kernel_size=8,
stride=3, and on an RGB image it would run and give a wrong network.  At the first call
an input with as many channels as out_channels, under a square stride of 3 or more and
a larger kernel, is refused; every channel or kernel-size error at the first call names
the order and the call PyTorch's numbers need.
"""

import numpy as np
import pytest

import layers as L

ORDER = "(gengrad's order is {0}(out_channels, kernel_size, stride, pad, in_channels))"


@pytest.mark.parametrize("cls, torch", [(L.Conv2d, "Conv2d"), (L.Deconv2d, "ConvTranspose2d")])
def test_pytorch_order_on_an_image_is_refused_with_the_fix(cls, torch, on_device):
    layer = cls(3, 8, 3)                                   # meant as nn.Conv2d(3, 8, 3)
    name = cls.__name__
    with pytest.raises(ValueError) as info:
        layer(on_device(np.ones((2, 3, 28, 28))))
    message = str(info.value)
    assert message.startswith(f"{name}: input of shape (2, 3, 28, 28) has 3 channels, as many as "
                              f"out_channels=3, and ")
    assert f"{name}(3, 8, 3) means out_channels=3, kernel_size=8, stride=3 " + ORDER.format(name) in message
    assert f"for PyTorch's nn.{torch}(3, 8, 3) write L.{name}(8, 3, in_channels=3) or just L.{name}(8, 3)" \
        in message
    assert "pass in_channels=3 to say so" in message
    assert layer.W is None and layer.in_channels is None       # nothing was built
    fixed = cls(8, 3, in_channels=3)
    assert fixed(on_device(np.ones((2, 3, 28, 28)))).shape[1] == 8


@pytest.mark.parametrize("cls", [L.Conv2d, L.Deconv2d])
def test_in_channels_given_says_the_unusual_configuration_is_meant(cls, on_device):
    y = cls(3, 8, 3, in_channels=3)(on_device(np.ones((1, 3, 28, 28))))
    assert y.shape[1] == 3


@pytest.mark.parametrize("args, channels", [
    ((16, 3), 16),             # same channels, stride 1
    ((64, 3, 2), 64),          # same channels, downsampling by 2
    ((8, 5, 5), 8),            # patchify: stride equal to the kernel
    ((16, 3, 3), 16),          # stride 3 with kernel 3
    ((3, 8, 3), 1),            # other channels than out_channels
])
def test_ordinary_configurations_still_run(args, channels, on_device):
    assert L.Conv2d(*args)(on_device(np.ones((1, channels, 20, 20)))).shape[1] == args[0]


def test_pytorch_padding_in_the_in_channels_slot_is_explained(on_device):
    layer = L.Conv2d(3, 16, 3, 1, 1)                       # nn.Conv2d(3, 16, 3, 1, 1): stride 1, padding 1
    with pytest.raises(ValueError) as info:
        layer(on_device(np.ones((2, 3, 28, 28))))
    message = str(info.value)
    assert "has 3 channels, but the layer was built for in_channels=1; " in message
    assert ("Conv2d(3, 16, 3, 1, 1) means out_channels=3, kernel_size=16, stride=3, pad=1, in_channels=1 "
            + ORDER.format("Conv2d")) in message
    assert "for PyTorch's nn.Conv2d(3, 16, 3, 1, 1) write L.Conv2d(16, 3, pad=1, in_channels=3)" in message


def test_deconv_pytorch_stride_and_padding_are_mapped(on_device):
    with pytest.raises(ValueError, match=r"for PyTorch's nn\.ConvTranspose2d\(3, 16, 4, 2, 1\) write "
                                         r"L\.Deconv2d\(16, 4, stride=2, pad=1, in_channels=3\)"):
        L.Deconv2d(3, 16, 4, 2, 1)(on_device(np.ones((1, 3, 8, 8))))


def test_a_kernel_larger_than_the_image_names_the_order(on_device):
    with pytest.raises(ValueError) as info:
        L.Conv2d(8, 32, 3, in_channels=1)(on_device(np.ones((1, 1, 28, 28))))
    message = str(info.value)
    assert message.startswith("Conv2d: kernel (32, 32) does not fit the input of shape (1, 1, 28, 28) "
                              "padded by (0, 0); ")
    assert "Conv2d(8, 32, 3, in_channels=1) means out_channels=8, kernel_size=32, stride=3, in_channels=1" \
        in message
    assert "for PyTorch's nn.Conv2d(8, 32, 3) write L.Conv2d(32, 3, in_channels=8)" in message


def test_later_errors_of_a_layer_that_ran_do_not_blame_the_order(on_device):
    layer = L.Conv2d(4, 3)
    layer(on_device(np.ones((1, 2, 8, 8))))
    with pytest.raises(ValueError, match=r"built for in_channels=2 \(read off its first input") as info:
        layer(on_device(np.ones((1, 5, 8, 8))))
    assert "means out_channels" not in str(info.value)
    with pytest.raises(ValueError, match=r"kernel \(3, 3\) does not fit .*padded by \(0, 0\)$"):
        layer(on_device(np.ones((1, 2, 2, 2))))


def test_rectangular_kernels_get_the_meaning_without_a_pytorch_reading(on_device):
    with pytest.raises(ValueError) as info:
        L.Conv2d(8, (3, 5), in_channels=2)(on_device(np.ones((1, 3, 9, 9))))
    message = str(info.value)
    assert "Conv2d(8, (3, 5), 1, in_channels=2) means out_channels=8, kernel_size=(3, 5), stride=1" in message
    assert "PyTorch" not in message


@pytest.mark.parametrize("cls", [L.Conv2d, L.Deconv2d])
@pytest.mark.parametrize("shape", [(2, 28, 28, 1), (2, 32, 32, 3), (1, 64, 64, 4)])
def test_a_channels_last_image_is_refused_at_the_first_call(cls, shape, on_device):
    layer = cls(8, 3)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: input of shape \({shape[0]}, {shape[1]}, "
                                         rf".*looks channels-last.*x\.transpose\(0, 3, 1, 2\)"):
        layer(on_device(np.ones(shape)))
    assert layer.W is None
    image = on_device(np.ones(shape).transpose(0, 3, 1, 2))
    assert layer(image).shape[:2] == (shape[0], 8)


def test_in_channels_given_takes_an_input_that_looks_channels_last(on_device):
    layer = L.Conv2d(8, 1, in_channels=28)      # 28 channels of 28 x 1, meant
    assert layer(on_device(np.ones((2, 28, 28, 1)))).shape == (2, 8, 28, 1)


@pytest.mark.parametrize("shape", [(2, 16, 16, 4), (2, 3, 3, 3), (2, 64, 4, 4), (2, 8, 4, 1)])
def test_channels_first_inputs_with_a_narrow_last_axis_still_run(shape, on_device):
    assert L.Conv2d(4, 1)(on_device(np.ones(shape))).shape == (2, 4, shape[2], shape[3])
