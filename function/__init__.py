"""Every primitive op of `variable`, re-exported, plus neural-network functions."""

from variable import *  # noqa: F401,F403  (the primitive ops, re-exported as the API promises)
from variable import OPS

__all__ = list(OPS)
