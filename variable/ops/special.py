"""The error function erf and its complement erfc (scipy.special's, which NumPy lacks), on
NumPy alone: a series of positive terms inside |x| < 2 (|x| < 1 for erfc) and a continued
fraction outside, each to a few ulps of relative precision (erfc's worst, 4e-15, just below
1), so that erfc keeps its tail (erfc(10) = 2.1e-45) and erf its small values (erf(1e-10) =
1.1e-10). `scipy.special.erf(x)` and `erfc(x)` on a Variable record these ops too
(variable/numpy_dispatch.py). Derivatives: erf' = 2/sqrt(pi) e^(-x^2), -erfc' the same;
Taylor mode integrates that density along the input's series."""

import math

import numpy as np

from .. import series
from ..backend import is_device_array
from ..forwarder import Forwarder, Function
from .elementwise import exp

TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def erf_series(z):
    """erf(z) for 0 <= z < 2 by a series of positive terms (no cancellation)."""
    # erf(z) = 2/sqrt(pi) exp(-z^2) sum_n 2^n z^(2n+1) / (1 3 5 ... (2n+1)); the term
    # ratio is 2 z^2 / (2n + 1), so 40 terms reach 1e-17 relative at z = 2
    term = z.copy()
    total = z.copy()
    z2 = 2 * z * z
    for n in range(1, 41):
        term *= z2
        term *= 1 / (2 * n + 1)
        total += term
    return TWO_OVER_SQRT_PI * np.exp(-z * z) * total


def erfc_fraction(z, levels=60):
    """erfc(z) for z >= 2 (z >= 1 with 200 `levels`) from its continued fraction, to full
    relative precision.

    erfc(z) = exp(-z^2)/sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...)))), evaluated
    bottom-up; 60 levels are exact to double precision from z = 2 on, 200 from z = 1 on.
    """
    z = np.minimum(z, 40.0)                           # erfc(40) underflows to 0 anyway
    fraction = z.copy()
    for k in range(levels, 0, -1):
        fraction = z + (k / 2) / fraction
    s = np.round(z * 16) / 16                         # z^2 = s^2 + (z - s)(z + s), s^2 exact:
    density = np.exp(-s * s) * np.exp(-(z - s) * (z + s))  # no rounding of z^2 ~ 600 in the tail
    return density / (math.sqrt(math.pi) * fraction)


def erf_arrays(x, complement, split, levels):
    """erf(x) (erfc(x) with `complement`) on an ndarray, in float64 inside, x's dtype out: the
    series where |x| < `split`, the continued fraction of `levels` levels outside (erfc_fraction
    says which are exact from where).

    On the CPU each formula runs on its own entries (picked by masks); on a device, where a
    mask's size is a sync, each runs everywhere and `where` picks."""
    dtype = x.dtype if x.dtype.kind == "f" else np.float64   # (integers and booleans: float64)
    z = x.astype(np.float64, copy=False)
    a = np.abs(z)
    if is_device_array(z):
        inner = np.copysign(erf_series(np.minimum(a, split)), z)
        tail = erfc_fraction(np.maximum(a, split), levels)          # erfc(|x|)
        if complement:
            out = np.where(a < split, 1 - inner, np.where(z < 0, 2 - tail, tail))
        else:
            out = np.where(a < split, inner, np.copysign(1 - tail, z))
        out = np.where(np.isnan(z), np.nan, out)
        return out.astype(dtype, copy=False)
    out = np.empty_like(z)
    middle = a < split
    inner = np.copysign(erf_series(a[middle]), z[middle])
    tail = erfc_fraction(a[~middle], levels)
    if complement:
        out[middle] = 1 - inner
        out[~middle] = np.where(z[~middle] < 0, 2 - tail, tail)
    else:
        out[middle] = inner
        out[~middle] = np.copysign(1 - tail, z[~middle])
    out[np.isnan(z)] = np.nan
    return out.astype(dtype, copy=False)


def _density_series(x, scale):
    """Series of scale * e^(-x^2) along the series `x`."""
    return series.scale(series.exp(series.neg(series.square(x))), scale)


class Erf(Forwarder):
    """erf(x) = 2/sqrt(pi) int_0^x e^(-t^2) dt."""

    complement = False
    slope = TWO_OVER_SQRT_PI     # the derivative over e^(-x^2)
    split, levels = 2.0, 60      # (the series inside |x| < 2, the fraction outside)

    def forward(self, x):
        return erf_arrays(x, self.complement, self.split, self.levels)

    save_for_backward = ("x0",)

    def backward(self, gy):
        x, = self.inputs
        return gy * (exp(-(x * x)) * self.slope)    # d erf = 2/sqrt(pi) e^(-x^2)

    taylor_records = True
    _pointwise = True

    def taylor(self, x):
        y, = self.outputs
        return series.integral(x, y._data, _density_series(x, self.slope))


class Erfc(Erf):
    """erfc(x) = 1 - erf(x), without the cancellation: its right tail to full precision."""

    complement = True
    slope = -TWO_OVER_SQRT_PI
    split, levels = 1.0, 200     # 1 - erf would lose erfc's digits where erf nears 1: the fraction sooner
    _pointwise = True  # (read from each class's own attributes)


def erf(x):
    """The error function, elementwise (scipy.special.erf; torch.erf).

    Parameters
    ----------
    x : ArrayLike
        Floating point (integers become float64).

    Returns
    -------
    Variable
        erf(x), of x's shape, to full relative precision.
    """
    return Function(Erf())(x)


def erfc(x):
    """The complementary error function 1 - erf(x), elementwise (scipy.special.erfc).

    Parameters
    ----------
    x : ArrayLike
        Floating point (integers become float64).

    Returns
    -------
    Variable
        erfc(x), of x's shape; its right tail to full relative precision (erfc(10) = 2.1e-45).
    """
    return Function(Erfc())(x)


__all__ = ["erf", "erfc"]
