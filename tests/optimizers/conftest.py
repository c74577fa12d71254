"""Fixtures of the optimizer tests (the problem itself lives in optim_problem.py)."""

import pytest
from optim_problem import Quadratic


@pytest.fixture
def quadratic():
    """A fresh float64 Quadratic model."""
    return Quadratic()
