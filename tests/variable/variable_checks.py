"""Helpers shared by the tests of the `variable` package."""

import numpy as np


def normal(shape, seed=0, dtype=np.float64):
    """Seeded standard-normal data of `shape` and `dtype`."""
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def assert_message(error, op, *parts):
    """The error message starts with the op's name and mentions every part (shapes...)."""
    message = str(error.value)
    assert message.startswith(f"{op}:"), message
    for part in parts:
        assert str(part) in message, (part, message)
