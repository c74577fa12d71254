"""Every primitive op of `variable`, re-exported, plus neural-network functions."""

from variable import OPS
from variable import *  # noqa: F401,F403  (the primitive ops, re-exported as the API promises)

__all__ = list(OPS)
