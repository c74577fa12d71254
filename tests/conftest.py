"""Fixtures shared by the whole suite."""

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _seed_global_rng():
    """Seed NumPy's global RNG so any code that uses it is reproducible."""
    np.random.seed(0)


@pytest.fixture
def rng():
    """A fresh, seeded Generator for test data."""
    return np.random.default_rng(0)
