"""Pointwise ops along several directions (variable/forward_mode.py, `_pointwise_directions`):
at order 1, or in a collapsed pass, an op marked `_pointwise` has its rule run once along one
direction of ones, and its coefficients made from f' and f''/2.  Every marked op is listed
here, checked to be what the mark says (one input, each output entry from the same input
entry alone), and its Laplacian and divergence through a layer checked against the traces
of the Hessian and the Jacobian, on that path."""

import numpy as np
import pytest

import function as F
import variable as V
from variable import forward_mode
from variable.ops.elementary import _reduced_degrees
from variable.ops.integrals import Sinhc
from variable.ops.ks_distribution import kolmogi_complement, kolmogorov_complement, ksone_low_quantile

OPS = {                                          # marked Forwarder: (a call, a domain)
    "Sin": (V.sin, (-2, 2)), "Cos": (V.cos, (-2, 2)), "Tan": (V.tan, (-1, 1)),
    "Sinh": (V.sinh, (-2, 2)), "Cosh": (V.cosh, (-2, 2)), "Tanh": (V.tanh, (-2, 2)),
    "Exp": (V.exp, (-2, 2)), "Log": (V.log, (0.5, 2)), "Sqrt": (V.sqrt, (0.5, 2)),
    "Square": (V.square, (-2, 2)), "Pow": (lambda x: x ** 3.5, (0.5, 2)), "Abs": (V.abs, (0.1, 2)),
    "Cbrt": (V.cbrt, (0.5, 2)), "BesselI": (V.i0, (-2, 2)),
    "ScaledBesselI": (V.i0e, (0.3, 2)), "BesselJ": (V.j0, (-2, 2)), "BesselY": (V.y1, (0.5, 3)),
    "BesselK": (V.k1, (0.5, 3)), "ScaledBesselK": (V.k0e, (0.5, 3)),
    "Clip": (lambda x: V.clip(x, -0.5, 0.5), (-1, 1)),
    "Exp2": (V.exp2, (-2, 2)), "Expm1": (V.expm1, (-2, 2)), "Log10": (V.log10, (0.5, 2)),
    "Log1p": (V.log1p, (-0.5, 2)), "Log2": (V.log2, (0.5, 2)), "Reciprocal": (V.reciprocal, (0.5, 2)),
    "Arcsin": (V.arcsin, (-0.8, 0.8)), "Arccos": (V.arccos, (-0.8, 0.8)), "Arctan": (V.arctan, (-2, 2)),
    "Arcsinh": (V.arcsinh, (-2, 2)), "Arccosh": (V.arccosh, (1.2, 3)), "Arctanh": (V.arctanh, (-0.8, 0.8)),
    "Sinc": (V.sinc, (0.1, 2)), "Erf": (V.erf, (-2, 2)), "Erfc": (V.erfc, (-2, 2)),
    "Gammaln": (V.gammaln, (0.3, 4)), "Gamma": (V.gamma, (0.3, 4)),
    "RGamma": (V.rgamma, (-3.5, 4)), "Digamma": (V.digamma, (0.3, 4)),
    "Exp1": (V.exp1, (0.2, 5)), "Expi": (V.expi, (0.2, 5)),
    "Erfi": (V.erfi, (-2, 2)), "Dawsn": (V.dawsn, (-3, 3)),
    "Expn": (lambda x: V.expn(2, x), (0.3, 3)),
    "Exp10": (V.exp10, (-2, 2)), "QuarterTurnRest": (lambda x: _reduced_degrees(x)[0], (-400, 400)),
    "Polygamma": (lambda x: V.polygamma(2, x), (0.3, 4)), "Logit": (V.logit, (0.1, 0.9)),
    "Erfinv": (V.erfinv, (-0.9, 0.9)), "Erfcinv": (V.erfcinv, (0.1, 1.9)), "Ndtri": (V.ndtri, (0.05, 0.95)),
    "LogNdtr": (V.log_ndtr, (-4, 4)), "Ndtr": (V.ndtr, (-4, 4)), "NdtriExp": (V.ndtri_exp, (-5, -0.05)),
    "Erfcx": (V.erfcx, (-2, 3)),
    "Si": (lambda x: V.sici(x)[0], (-3, 3)), "Ci": (lambda x: V.sici(x)[1], (0.5, 5)),
    "Shi": (lambda x: V.shichi(x)[0], (-3, 3)), "Chi": (lambda x: V.shichi(x)[1], (0.5, 3)),
    "FresnelS": (lambda x: V.fresnel(x)[0], (-2, 2)), "FresnelC": (lambda x: V.fresnel(x)[1], (-2, 2)),
    "Sinhc": (lambda x: V.Function(Sinhc())(x), (-3, 3)), "WrightOmega": (V.wrightomega, (-3, 3)),
    "LambertW": (V.lambertw, (-0.3, 3)),
    "Kolmogorov": (V.kolmogorov, (0.3, 1.5)), "Kolmogi": (V.kolmogi, (0.1, 0.9)),
    "KolmogorovComplement": (kolmogorov_complement, (0.3, 1.5)),
    "AiryAi": (lambda x: V.airy(x).ai, (-3, 3)), "AiryAiPrime": (lambda x: V.airy(x).aip, (-3, 3)),
    "SphericalBessel": (lambda x: V.spherical_jn(2, x), (-3, 3)),
    "Hyp0F1": (lambda x: V.hyp0f1(2.5, x), (-3, 3)),
    "Kelvin": (lambda x: V.berp(x), (-3, 3)),
    "AiryBi": (lambda x: V.airy(x).bi, (-3, 3)),
    "ScaledAi": (lambda x: V.airye(x).eai, (0.2, 4)), "ScaledAiPrime": (lambda x: V.airye(x).eaip, (0.2, 4)),
    "ScaledBi": (lambda x: V.airye(x).ebi, (-3, 4)), "ScaledBiPrime": (lambda x: V.airye(x).ebip, (-3, 4)),
    "AiryBiPrime": (lambda x: V.airy(x).bip, (-3, 3)),
    "KolmogiComplement": (kolmogi_complement, (0.1, 0.9)),
    "Smirnov": (lambda d: V.smirnov(9, d), (0.15, 0.9)), "Smirnovi": (lambda p: V.smirnovi(9, p), (0.1, 0.9)),
    "KsoneLowQuantile": (lambda q: ksone_low_quantile(9, q), (1e-3, 0.2)),      # (V.stats.ksone.ppf's)
    "Sigmoid": (F.sigmoid, (-3, 3)), "Softplus": (F.softplus, (-3, 3)), "Swish": (F.swish, (-3, 3)),
    "ELU": (F.elu, (-2, 2)), "HardSwish": (F.hard_swish, (-2.5, 2.5)),
    "Mish": (F.mish, (-3, 3)), "SoftSign": (F.softsign, (-3, 3)), "LogSigmoid": (F.log_sigmoid, (-3, 3)),
    "GELUTanh": (lambda x: F.gelu(x, approximate="tanh"), (-3, 3)), "GELUErf": (F.gelu, (-3, 3)),
}


def marked():
    import layers  # noqa: F401  (every built-in Forwarder defined)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)
    return sorted({c.__name__ for c in subclasses(V.Forwarder) if c.__dict__.get("_pointwise")})


def test_every_marked_op_is_listed_here():
    assert marked() == sorted(OPS)


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_mark_is_right_one_input_and_entries_alone(rng, name):
    op, (lo, hi) = OPS[name]
    x = V.Variable(rng.uniform(lo, hi, (2, 3)))
    y = op(x)
    assert type(y.creator.forwarder).__name__ == name and len(y.creator.inputs) == 1
    J = V.jacobian(op, x.data).data.reshape(6, 6)      # d y_i / d x_j: zero off the diagonal
    np.testing.assert_array_equal(J - np.diag(np.diag(J)), 0)


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_laplacian_through_it_takes_the_pointwise_path(rng, spy, name):
    op, (lo, hi) = OPS[name]
    taken = spy(forward_mode, "_pointwise_directions", lambda f, *args: f.name)
    d = 3
    W = V.Variable(rng.standard_normal((d, 4)) * (hi - lo) / 12)   # (a graph to W: recorded)
    x = rng.uniform(-1, 1, (5, d))

    def u(p):
        return V.sum(op(p @ W + (lo + hi) / 2), axis=1)       # (the layer's values in the domain)
    lap = V.laplacian(u, x)
    assert name in taken and lap.requires_grad
    for i, row in enumerate(x):
        H = V.hessian(lambda q: V.sum(u(V.reshape(q, (1, d)))), row).data
        np.testing.assert_allclose(lap.data[i], np.trace(H), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_divergence_through_it_takes_the_pointwise_path(rng, spy, name):
    op, (lo, hi) = OPS[name]
    taken = spy(forward_mode, "_pointwise_directions", lambda f, *args: f.name)
    d = 3
    W = V.Variable(rng.standard_normal((d, 4)) * (hi - lo) / 12)
    W2 = V.Variable(rng.standard_normal((4, d)))
    x = rng.uniform(-1, 1, (5, d))

    def field(p):
        return op(p @ W + (lo + hi) / 2) @ W2
    div = V.divergence(field, x)
    assert name in taken and div.requires_grad
    for i, row in enumerate(x):
        J = V.jacobian(lambda q: V.reshape(field(V.reshape(q, (1, d))), (d,)), row).data
        np.testing.assert_allclose(div.data[i], np.trace(J), rtol=1e-9, atol=1e-10)
