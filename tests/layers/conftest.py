"""Fixtures of the layer tests: every test starts from the same initial weights."""

import pytest

import layers as L


@pytest.fixture(autouse=True)
def _seed_layers():
    """Reset the generator that layers draw their initial weights from."""
    L.seed(0)
