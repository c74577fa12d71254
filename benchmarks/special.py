"""SciPy's special functions and distributions in gengrad: the forward pass on n points, next
to SciPy's (a ufunc in C, or scipy.stats' Python) when SciPy is installed and to a NumPy
formula where NumPy has one (np.i0, x * log(y), the normal's log density).

Each case checks gengrad's values against SciPy's and the formula's before timing them, and
times gengrad's forward pass alone and with the backward pass (V.grad of the sum).  Rounds
alternate between the three.
"""

import argparse
import importlib

import numpy as np

import variable as V
from benchmarks.timing import best_time, ratio


def cases(rng, n):
    """(name, gengrad's op on arrays, SciPy's name and its arguments' order, the NumPy formula
    or None, the arrays): the points drawn over each function's domain."""
    wide, unit, positive = rng.uniform(-10, 10, n), rng.uniform(-1, 1, n), rng.uniform(0.1, 20, n)
    probability, other = rng.uniform(0.001, 0.999, n), rng.uniform(0.1, 20, n)
    return [
        ("erf", V.erf, "erf", None, (wide / 3,)),
        ("erfc", V.erfc, "erfc", None, (wide,)),
        ("erfcx", V.erfcx, "erfcx", None, (wide,)),
        ("erfinv", V.erfinv, "erfinv", None, (unit,)),
        ("ndtr", V.ndtr, "ndtr", None, (wide,)),
        ("ndtri", V.ndtri, "ndtri", None, (probability,)),
        ("log_ndtr", V.log_ndtr, "log_ndtr", None, (wide,)),
        ("gamma", V.gamma, "gamma", None, (positive,)),
        ("gammaln", V.gammaln, "gammaln", None, (positive,)),
        ("digamma", V.digamma, "digamma", None, (positive,)),
        ("polygamma(1, x)", lambda x: V.polygamma(1, x), "polygamma", None, (positive,)),
        ("betaln", V.betaln, "betaln", None, (positive, other)),
        ("gammainc", _in_x(V.gammainc), "gammainc", None, (positive, other)),
        ("gammaincc", _in_x(V.gammaincc), "gammaincc", None, (positive, other)),
        ("betainc", _in_x(V.betainc), "betainc", None, (positive, other, probability)),
        ("betaincc", _in_x(V.betaincc), "betaincc", None, (positive, other, probability)),
        ("stdtr", _in_x(V.stdtr), "stdtr", None, (positive, wide)),
        ("j0", V.j0, "j0", None, (wide * 5,)),
        ("y1", V.y1, "y1", None, (positive * 2.5,)),
        ("jn(5, x)", lambda x: V.jn(5, x), "jn", None, (wide * 5,)),
        ("k0", V.k0, "k0", None, (positive * 2.5,)),
        ("k1e", V.k1e, "k1e", None, (positive * 2.5,)),
        ("kv(2.3, x)", lambda x: V.kv(2.3, x), "kv", None, (positive * 2.5,)),
        ("iv(2.3, x)", lambda x: V.iv(2.3, x), "iv", None, (positive * 2.5,)),
        ("iv(40.5, x)", lambda x: V.iv(40.5, x), "iv:40.5", None, (positive * 2.5,)),
        ("jv(2.3, x)", lambda x: V.jv(2.3, x), "jv", None, (positive * 2.5,)),
        ("yv(2.3, x)", lambda x: V.yv(2.3, x), "yv", None, (positive * 2.5,)),
        ("airy", _all(V.airy), "airy:all", None, (wide,)),
        ("airye", _all(V.airye), "airye:all", None, (positive * 2.5,)),
        ("spherical_jn(3, x)", lambda x: V.spherical_jn(3, x), "spherical_jn", None, (positive * 2.5,)),
        ("hyp0f1(2.5, x)", lambda x: V.hyp0f1(2.5, x), "hyp0f1", None, (wide * 5,)),
        ("ber", V.ber, "ber", None, (wide * 5,)),
        ("kei", V.kei, "kei", None, (positive * 2.5,)),
        ("berp", V.berp, "berp", None, (wide * 5,)),
        ("rgamma", V.rgamma, "rgamma", None, (wide / 2,)),
        ("beta", V.beta, "beta", None, (positive, other)),
        ("zeta", V.zeta, "zeta", None, (wide / 2,)),
        ("zeta(x, q)", V.zeta, "zeta", None, (positive + 1.01, other)),
        ("erfi", V.erfi, "erfi", None, (wide,)),
        ("dawsn", V.dawsn, "dawsn", None, (wide,)),
        ("exp1", V.exp1, "exp1", None, (positive,)),
        ("expi", V.expi, "expi", None, (wide * 4,)),
        ("ellipk", V.ellipk, "ellipk", None, (unit * 3 - 2,)),
        ("ellipe", V.ellipe, "ellipe", None, (unit * 3 - 2,)),
        ("ellipkinc", V.ellipkinc, "ellipkinc", None, (wide / 2, unit * 3 - 2)),
        ("ellipeinc", V.ellipeinc, "ellipeinc", None, (wide / 2, unit * 3 - 2)),
        ("elliprf", V.elliprf, "elliprf", None, (positive, other, probability)),
        ("elliprg", V.elliprg, "elliprg", None, (positive, other, probability)),
        ("elliprj", V.elliprj, "elliprj", None, (positive, other, probability, unit * 3)),
        ("ellipj", _all(V.ellipj), "ellipj:all", None, (wide, probability)),
        ("tklmbda(x, 0.3)", lambda x: V.tklmbda(x, 0.3), "tklmbda:0.3", None, (unit * 3,)),
        ("tklmbda(x, -0.7)", lambda x: V.tklmbda(x, -0.7), "tklmbda:-0.7", None, (wide * 3,)),
        ("smirnov(20, d)", lambda d: V.smirnov(20, d), "smirnov:20", None, (probability,)),
        ("smirnovi(20, p)", lambda p: V.smirnovi(20, p), "smirnovi:20", None, (probability,)),
        ("eval_legendre(8, x)", lambda x: V.eval_legendre(8, x), "eval_legendre", None, (unit,)),
        ("eval_jacobi(6, x)", lambda x: V.eval_jacobi(6, 0.5, -0.3, x), "eval_jacobi", None, (unit,)),
        ("exprel", V.exprel, "exprel", lambda x: np.expm1(x) / x, (wide,)),
        ("powm1", V.powm1, "powm1", lambda x, y: x ** y - 1, (positive, unit)),
        ("boxcox", V.boxcox, "boxcox", None, (positive, unit)),
        ("sindg", V.sindg, "sindg", lambda x: np.sin(np.deg2rad(x)), (wide * 36,)),
        ("agm", V.agm, "agm", None, (positive, other)),
        ("poch", V.poch, "poch", None, (positive, unit * 3)),
        ("binom", V.binom, "binom", None, (positive + 5, positive / 2)),
        ("chdtr", _in_x(V.chdtr), "chdtr", None, (positive, other)),
        ("bdtr", _in_x(V.bdtr), "bdtr", None, (positive.astype(np.int64), positive.astype(np.int64) + 20,
                                                 probability)),
        ("gammaincinv", _in_x(V.gammaincinv), "gammaincinv", None, (positive, probability)),
        ("betaincinv", _in_x(V.betaincinv), "betaincinv", None, (positive, other, probability)),
        ("stdtrit", _in_x(V.stdtrit), "stdtrit", None, (positive, probability)),
        ("sici", _both(V.sici), "sici:pair", None, (wide * 5,)),
        ("shichi", _both(V.shichi), "shichi:pair", None, (wide,)),
        ("fresnel", _both(V.fresnel), "fresnel:pair", None, (wide / 2,)),
        ("wrightomega", V.wrightomega, "wrightomega", None, (wide * 3,)),
        ("lambertw", V.lambertw, "lambertw", None, (positive - 0.45,)),
        ("lambertw(x, -1)", lambda x: V.lambertw(x, -1), "lambertw:-1", None, (probability * -0.36,)),
        ("owens_t", V.owens_t, "owens_t", None, (wide / 2, unit * 5)),
        ("i0", V.i0, "i0", np.i0, (wide,)),
        ("i0e", V.i0e, "i0e", lambda x: np.i0(x) * np.exp(-np.abs(x)), (wide,)),
        ("xlogy", V.xlogy, "xlogy", lambda x, y: x * np.log(y), (positive, other)),
        ("logit", V.logit, "logit", lambda p: np.log(p / (1 - p)), (probability,)),
        ("kl_div", V.kl_div, "kl_div", lambda x, y: x * np.log(x / y) - x + y, (positive, other)),
        # scipy.stats' distributions (V.stats), differentiated in every argument
        ("stats.norm.logpdf", V.stats.norm.logpdf, "stats.norm.logpdf",
         lambda x, m, s: -0.5 * ((x - m) / s) ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi),
         (wide, unit, positive)),
        ("stats.norm.cdf", V.stats.norm.cdf, "stats.norm.cdf", None, (wide, unit, positive)),
        ("stats.t.logpdf", V.stats.t.logpdf, "stats.t.logpdf", None, (wide, positive, unit, other)),
        ("stats.gamma.logpdf", V.stats.gamma.logpdf, "stats.gamma.logpdf", None, (positive, other)),
        ("stats.beta.logpdf", V.stats.beta.logpdf, "stats.beta.logpdf", None, (probability, positive, other)),
    ]


def _in_x(op):
    """op(a, x) (op(a, b, x)) differentiated in x alone (gammainc's a, betainc's a and b are
    constants)."""
    return lambda *args: op(*[a.detach() if isinstance(a, V.Variable) else a for a in args[:-1]], args[-1])


def _both(op):
    """op's pair of outputs (sici's Si and Ci) stacked: both computed, one array to check and time."""
    return lambda *xs: V.stack(list(op(*xs)))


_all = _both
"""(airy's four, ellipj's four, likewise)"""


def _scipy_special():
    try:
        importlib.import_module("scipy.stats")
        return importlib.import_module("scipy.special")
    except ImportError:
        return None


def _scipy_call(special, name, arrays):
    """SciPy's function: scipy.special.<name>, or scipy.stats' for "stats.<dist>.<method>"."""
    if name.endswith((":pair", ":all")):                       # (a pair of outputs, or airy's four, stacked)
        function = getattr(special, name.split(":")[0])
        return lambda: np.stack(function(*arrays))
    if name.startswith("lambertw"):                           # (SciPy's is complex: its real part)
        k = int(name.partition(":")[2] or 0)
        return lambda: special.lambertw(*arrays, k).real
    if name == "polygamma":
        return lambda: special.polygamma(1, *arrays)
    if name == "jn":
        return lambda: special.jn(5, *arrays)
    if name in ("jv", "yv", "hyp0f1"):
        return lambda: getattr(special, name)(2.3 if name != "hyp0f1" else 2.5, *arrays)
    if name == "spherical_jn":
        return lambda: special.spherical_jn(3, *arrays)
    if name.split(":")[0] in ("kv", "iv"):                    # ("iv:40.5": the order; 2.3 by default)
        base, _, order = name.partition(":")
        return lambda: getattr(special, base)(float(order or 2.3), *arrays)
    if name.startswith("tklmbda:"):                           # ("tklmbda:0.3": lambda)
        return lambda: special.tklmbda(*arrays, float(name.partition(":")[2]))
    if name.split(":")[0] in ("smirnov", "smirnovi"):          # ("smirnov:20": the sample size)
        base, _, size = name.partition(":")
        return lambda: getattr(special, base)(int(size), *arrays)
    if name == "eval_legendre":
        return lambda: special.eval_legendre(8, *arrays)
    if name == "eval_jacobi":
        return lambda: special.eval_jacobi(6, 0.5, -0.3, *arrays)
    if name.startswith("stats."):
        _, dist, method = name.split(".")
        function = getattr(getattr(importlib.import_module("scipy.stats"), dist), method)
        return lambda: function(*arrays)
    return lambda: getattr(special, name)(*arrays)


_SCIPY_LOSES = {"ber": 1e-4, "kei": 1e-4, "berp": 1e-4}
"""The cases where SciPy's values are off by more than 1e-11: its Kelvin functions, 5e-10 of
|ber + i bei| (1.5e-9 of |ker + i kei|) from x = 8, so up to 5e-6 of a value near a zero (1e-7
of kei at x = 8.3 against 40-digit values, where gengrad's are within 1e-15)."""


def run(n=10 ** 6, repeat=3, seed=0, only=None):
    """{case: {column: milliseconds}} (columns numpy, gengrad, gengrad+backward, scipy, each
    where it runs), after checking the values agree; `only`: the case names to run."""
    special = _scipy_special()
    results = {}
    for name, op, scipy_name, formula, arrays in cases(np.random.default_rng(seed), n):
        if only is not None and name not in only:
            continue
        columns = {"gengrad": lambda op=op, arrays=arrays: op(*arrays)}

        def both(op=op, arrays=arrays):
            xs = [V.Variable(a) for a in arrays]
            return V.grad(V.sum(op(*xs)), [x for x in xs if x.dtype.kind == "f"], allow_unused=True)
        columns["gengrad+backward"] = both
        if formula is not None:
            columns["numpy"] = lambda formula=formula, arrays=arrays: formula(*arrays)
        if special is not None:
            columns["scipy"] = _scipy_call(special, scipy_name, arrays)
        ours = op(*arrays).data
        for column in ("numpy", "scipy"):
            if column in columns:
                # (absolutely near zeros, where SciPy's gammaln loses digits that gengrad's keeps;
                # a log density is a sum of terms up to ~30, so its zeros are known to ~1e-14)
                np.testing.assert_allclose(ours, columns[column](), rtol=_SCIPY_LOSES.get(name, 1e-11),
                                           atol=1e-12 if name.startswith("stats.") else 1e-14,
                                           err_msg=f"{name}: gengrad against {column}")
        best = dict.fromkeys(columns, float("inf"))
        for _ in range(repeat):
            for column, fn in columns.items():
                best[column] = min(best[column], best_time(fn, 1))
        results[name] = {column: seconds * 1e3 for column, seconds in best.items()}
    return results


def report(results, n):
    lines = [f"SciPy's special functions on {n:,} float64 points: forward (and with backward), ms, "
             "best of the rounds"]
    for name, times in results.items():
        g = times["gengrad"]
        line = f"  {name:18s} gengrad {g:8.2f}   +backward {times['gengrad+backward']:8.2f}"
        if "numpy" in times:
            line += f"   numpy {times['numpy']:8.2f} ({ratio(g, times['numpy'])})"
        if "scipy" in times:
            line += f"   scipy {times['scipy']:8.2f} (gengrad/scipy {ratio(g, times['scipy'])})"
        lines.append(line)
    return lines


def main(argv=None):
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10 ** 6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", action="append", help="a case's name (--only zeta --only 'iv(40.5, x)'): "
                                                        "those named alone")
    args = parser.parse_args(argv)
    only = None if args.only is None else set(args.only)
    print("\n".join(report(run(args.n, args.repeat, only=only), args.n)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
