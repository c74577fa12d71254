"""docs/numpy.md, "gengrad for NumPy, HIPS autograd and JAX users", generated from the op tables.

The table has one row per public op (`variable.OPS` and `variable.LINALG_OPS`): its NumPy
name, the gradcheck order and Taylor order its rows in `OP_TABLE` (tests/variable/
test_op_table.py) are checked to, and whether its table file is among tests/conftest.py's
DEVICE_READY.  The NumPy functions on Variables come from variable/numpy_dispatch.py: the
data-only ones, and the refused ones that a NumPy user would reach for.

Regenerate the page with `python tests/docs/ops_page.py --write` (or print it with
`python -m tests.docs.ops_page`); tests/docs/test_ops_page.py fails when it is stale.
"""

import ast
import importlib
import inspect
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "tests" / "variable"
PAGE = ROOT / "docs" / "numpy.md"
for _path in (str(ROOT), str(TABLES)):
    if _path not in sys.path:
        sys.path.append(_path)

from op_rows import TAYLOR, TAYLOR_ELSEWHERE  # noqa: E402

import variable as V  # noqa: E402
from variable import numpy_dispatch  # noqa: E402

# refused NumPy functions of one argument, for the page's example of a refusal
ONE_ARGUMENT = ("sort_complex",)

# gengrad ops that compute a NumPy function under another name (numpy_dispatch's _SPELLINGS
# gives the others)
EQUIVALENTS = {"variance": "var"}

# NumPy functions a NumPy user reaches for; those numpy_dispatch refuses are listed, each with
# the reason or what to write instead ("linalg." for np.linalg's)
EXPECTED = {
    "put": "writes in place: build the result with `V.where` or indexing",
    "put_along_axis": "writes in place: build the result with `V.where`",
    "putmask": "writes in place: `V.where(mask, values, x)`",
    "place": "writes in place: `V.where(mask, values, x)`",
    "copyto": "writes in place: `V.where(mask, src, dst)`, or `V.broadcast_to(src, shape)`",
    "fill_diagonal": "writes in place: `x * (1 - eye) + value * eye` with `eye = np.eye(n)`",
    "nextafter": "no agreed derivative: `np.nextafter(x.data, y)` as a constant",
    "sort_complex": "complex results are not supported",
    "linalg.matrix_rank": "an integer, no gradient: `np.linalg.matrix_rank(x.data)`",
}


# ----- the tables ---------------------------------------------------------------------
def device_ready():
    """tests/conftest.py's DEVICE_READY, read from its source (importing it has side effects)."""
    tree = ast.parse((ROOT / "tests" / "conftest.py").read_text())
    for node in tree.body:
        names = [getattr(target, "id", None) for target in getattr(node, "targets", ())]
        if isinstance(node, ast.Assign) and "DEVICE_READY" in names:
            return tuple(ast.literal_eval(node.value))
    raise LookupError("tests/conftest.py no longer defines DEVICE_READY")


def table_files():
    """Each table file (relative to tests/) with its dict of rows."""
    tables = importlib.import_module("test_op_table")
    files = {
        "variable/test_tensor_table.py": importlib.import_module("test_tensor_table").TENSOR_OPS_COVERED,
        "variable/test_op_table.py": tables.ELEMENTWISE_ROWS,
    }
    for path in sorted(TABLES.glob("test_ops_*.py")):
        rows = getattr(importlib.import_module(path.stem), "ROWS", None)
        if isinstance(rows, dict):
            files[f"variable/{path.name}"] = rows
    return tables.OP_TABLE, files


def op(name):
    """The public op called `name` ("linalg.det": V.linalg.det)."""
    module, _, short = name.rpartition(".")
    return getattr(V.linalg if module == "linalg" else V, short)


SCIPY_SPECIAL = ("erf", "erfc", "erfcx", "erfinv", "erfcinv", "ndtr", "ndtri", "log_ndtr", "i1", "i0e", "i1e",
                 "gamma", "gammaln", "digamma", "betaln", "multigammaln", "xlogy", "xlog1py", "logit", "entr",
                 "rel_entr", "kl_div", "gammainc", "gammaincc", "betainc", "betaincc", "stdtr", "j0", "j1",
                 "jn", "y0", "y1", "yn", "jv", "yv", "jve", "yve", "k0", "k1", "kn", "k0e", "k1e", "kv",
                 "kve", "iv", "ive", "gammasgn",
                 "rgamma", "beta", "eval_legendre", "eval_chebyt", "eval_chebyu", "eval_hermite",
                 "eval_hermitenorm", "eval_laguerre", "zeta", "ellipk", "ellipkm1", "ellipe", "exp1", "expi",
                 "huber", "pseudo_huber", "erfi", "dawsn", "exprel", "cosm1", "powm1", "boxcox", "boxcox1p",
                 "inv_boxcox", "inv_boxcox1p", "exp10", "sindg", "cosdg", "tandg", "cotdg", "radian", "agm",
                 "zetac", "loggamma", "eval_gegenbauer", "eval_genlaguerre", "eval_jacobi", "eval_sh_jacobi",
                 "eval_sh_legendre", "eval_sh_chebyt", "eval_sh_chebyu", "eval_chebyc", "eval_chebys", "lpmv",
                 "pbdv",
                 "chdtr", "chdtrc", "gdtr", "gdtrc", "pdtr", "pdtrc", "bdtr", "bdtrc", "nbdtr", "nbdtrc",
                 "fdtr", "fdtrc", "tklmbda", "poch", "binom", "expn", "spence", "gammaincinv", "gammainccinv",
                 "chdtri",
                 "gdtrix", "gdtria", "pdtri", "betaincinv", "betainccinv", "bdtri", "nbdtri", "fdtri",
                 "stdtrit",
                 "ndtri_exp", "nrdtrimn", "nrdtrisd", "sici", "shichi", "fresnel", "wrightomega",
                 "lambertw", "owens_t", "kolmogorov", "kolmogi", "smirnov", "smirnovi", "airy", "airye",
                 "spherical_jn", "spherical_yn",
                 "spherical_in", "spherical_kn", "hyp0f1", "ber", "bei", "ker", "kei", "berp", "beip", "kerp",
                 "keip", "elliprf", "elliprd", "elliprc", "elliprg", "elliprj", "ellipkinc", "ellipeinc",
                 "ellipj")
"""gengrad's ops that NumPy lacks and scipy.special has, its ufunc on a Variable recording them."""


def numpy_names(name):
    """NumPy's functions that compute gengrad's op `name`, as `np....` strings."""
    module, _, short = name.rpartition(".")
    if module == "linalg":
        return [f"np.linalg.{short}"] if callable(getattr(np.linalg, short, None)) else []
    if short in SCIPY_SPECIAL:  # (NumPy has none: SciPy's ufunc records it)
        return [f"scipy.special.{short}"]
    own = EQUIVALENTS.get(short, short)
    names = [own] if callable(getattr(np, own, None)) else []
    names += sorted(alias for alias, spelled in numpy_dispatch._SPELLINGS.items()
                    if spelled == short and alias not in V.OPS and callable(getattr(np, alias, None)))
    return [f"np.{n}" for n in names]


def taylor_rule(rows):
    """'any order' when every row is Taylor-checked to order 6 (rows at TAYLOR_ELSEWHERE beside
    one at order 6 count as order 6: op_rows.py), else the lowest order checked."""
    orders = [getattr(row, "taylor", TAYLOR) for row in rows]
    if TAYLOR in orders:
        orders = [TAYLOR if order == TAYLOR_ELSEWHERE else order for order in orders]
    order = min(orders)
    return "any order" if order >= 6 else f"order {order} (jvp)" if order == 1 else f"order {order}"


def op_rows():
    """One row per public op: (family, NumPy, gengrad, gradcheck order, Taylor, GPU)."""
    table, files = table_files()
    ready = device_ready()
    rows = []
    names_of = {}                                    # one row per op: its other names beside it
    for name in (*V.OPS, *V.LINALG_OPS):
        names_of.setdefault(id(inspect.unwrap(op(name))), []).append(name)
    for name, *others in names_of.values():
        linalg = name.startswith("linalg.")
        family = inspect.unwrap(op(name)).__module__.rpartition(".")[2]   # (where it is defined)
        gengrad = ", ".join(f"`V.{n}`" for n in (name, *others))
        numpys = [n for alias in (name, *others) for n in numpy_names(alias)]
        numpy = ", ".join(f"`{n}`" for n in dict.fromkeys(numpys)) or "—"
        cases = table.get(name)
        if not cases:
            rows.append(((linalg, family, name), family, numpy, gengrad, "no rows yet", "—", "—"))
            continue
        source = next((path for path, rows_of in files.items() if rows_of.get(name) is cases), None)
        gpu = "yes" if source and source.startswith(ready) else "not yet checked"
        order = str(max(case.order for case in cases))
        rows.append(((linalg, family, name), family, numpy, gengrad, order, taylor_rule(cases), gpu))
    return [row[1:] for row in sorted(rows)]


# ----- NumPy's functions on Variables -------------------------------------------------
def refused(func):
    """Whether numpy_dispatch refuses `func` (a NumPy ufunc or function) given a Variable."""
    name = func.__name__
    if isinstance(func, np.ufunc):
        return name not in numpy_dispatch._DATA_UFUNCS and numpy_dispatch._op_for(name) is None
    linalg = (getattr(func, "__module__", None) or "").startswith("numpy.linalg")
    if name in (numpy_dispatch._LINALG_DATA_ONLY if linalg else numpy_dispatch._DATA_ONLY):
        return False
    return numpy_dispatch._op_for(name, linalg) is None


def refused_but_expected():
    """(name, reason) for each function of EXPECTED that NumPy has and gengrad refuses."""
    public = {name: getattr(np, name) for name in np.__all__}
    public.update({f"linalg.{name}": getattr(np.linalg, name) for name in np.linalg.__all__})
    return [(name, reason) for name, reason in EXPECTED.items()
            if callable(public.get(name)) and not isinstance(public[name], type) and refused(public[name])]


def data_only():
    """The NumPy functions that run on a Variable's data (their result has no gradient)."""
    names = (numpy_dispatch._DATA_ONLY | numpy_dispatch._DATA_UFUNCS)
    return sorted(name for name in names if callable(getattr(np, name, None)))


# ----- the page -----------------------------------------------------------------------
def _cell(text):
    return text.replace("|", "\\|")


def render() -> str:
    """The Markdown of docs/numpy.md."""
    rows = op_rows()
    refusals = refused_but_expected()
    example = next(name for name in ONE_ARGUMENT if name in dict(refusals))
    reductions = ", ".join(f"`np.{u}.reduce` (`V.{g}`)" for u, g in numpy_dispatch._REDUCTIONS.items()
                           if u not in ("fmax", "fmin"))
    accumulations = ", ".join(f"`np.{u}.accumulate` (`V.{g}`)"
                              for u, g in numpy_dispatch._ACCUMULATIONS.items())
    lines = [
        "# gengrad for NumPy, HIPS autograd and JAX users",
        "",
        "<!-- generated by tests/docs/ops_page.py from the op tables: do not edit by hand;",
        "     regenerate with `python tests/docs/ops_page.py --write` -->",
        "",
        "NumPy code differentiates as written. Given a Variable, `np.sin(x)`, `np.reshape(x, s)`,",
        "`np.linalg.det(x)` and `np.add.reduce(x)` record gengrad's op (NumPy's dispatch protocols,",
        "`__array_ufunc__` and `__array_function__`, in `variable/numpy_dispatch.py`), so the",
        "gradient flows through them; a NumPy function that has no gengrad op is refused at the",
        "call, with a TypeError naming it, rather than silently dropping the graph.",
        "",
        "```python",
        "import math",
        "import numpy as np",
        "import variable as V",
        "",
        "x = V.Variable(np.array([0.5, 1.0, 2.0]))",
        "y = np.sum(np.sin(x) * np.exp(x))       # V.sin, V.exp, V.mul and V.sum, recorded",
        "y.backward()",
        "print(np.allclose(x.grad.data, (np.cos(x.data) + np.sin(x.data)) * np.exp(x.data)))  # True",
        "print(np.add.reduce(x))                 # variable(3.5)",
        "print(np.linalg.det(V.Variable(np.array([[2.0, 0.0], [0.0, 3.0]]))))  # variable(6.0)",
        "try:",
        f"    np.{example}(x)",
        "except TypeError as e:",
        f"    print(e)                            # np.{example}(x) does not take Variables: ...",
        "```",
        "",
        "The only NumPy calls that turn a Variable into a plain array are the conversions",
        "`np.asarray(x)` and `np.array(x)` (what plotting libraries call), their siblings",
        "`np.asanyarray`, `np.ascontiguousarray`, `np.asarray_chkfinite` and `np.require`, and",
        "`x.numpy()`. NumPy calls these conversions itself, with no hook for gengrad to answer, in",
        "a few places that look like computations, as in PyTorch:",
        "",
        "- `np.array([x, y])` (autograd's way to build a vector) converts each Variable to its",
        "  data, as NumPy offers no hook to intercept a list: while one requires grad and a graph",
        "  is recorded that is refused at the call, naming `V.stack([x, y])`, which keeps the",
        "  graph (gengrad reads the call's source: a list, tuple or list comprehension written in",
        "  the call to `np.array`, `np.asarray`, ..., or a name or attribute bound to a list or",
        "  tuple, `np.array(parts)`, refused naming `V.stack(parts)`; another expression,",
        "  `np.array(tuple(parts))`, goes unseen, as a conversion);",
        "- `a[i] = x`, storing into an ndarray, converts `x` too; while `x` requires grad and a",
        "  graph is recorded that is refused, naming `V.stack` and `a[i] = x.item()` (gengrad reads",
        "  the instruction that asked for the conversion: a store, not a call);",
        "- a Variable inside a list or tuple given to a NumPy function (`np.mean([l1, l2])`), or",
        "  given to one written in Python that has no gengrad op (`np.vectorize(f)(x)`, the fill",
        "  value of `np.full(shape, w)`), is converted by NumPy's own code; while it requires grad",
        "  and a graph is recorded that is refused, naming the function and `V.stack` (for a fill",
        "  value `V.broadcast_to(w, shape)`) (gengrad reads",
        "  which file asked for the conversion: NumPy's testing, printing, saving and masked",
        "  arrays, which read values, are let through, and so is an installed package's code,",
        "  matplotlib's `plt.plot(losses)` of a list of losses, which plots their values);",
        "- the same list given to a NumPy function written in C (`np.dot([x, y], w)`,",
        "  `np.exp([a, b])`, `arr + [x, y]`), a Variable given to an ndarray's method",
        "  (`w.dot(x)`: `np.dot(w, x)` records gengrad's op), or to NumPy's random generators",
        "  (`rng.normal(mu, sigma)`: write `mu + sigma * rng.standard_normal(mu.shape)`, the",
        "  reparameterization; `rng.permutation(x)`: write `x[rng.permutation(len(x))]`) is",
        "  converted from the caller's own line; while it requires grad and a graph is recorded",
        "  that is refused too, naming the call as written and its fix (gengrad reads the",
        "  instruction and the call's source; conversions such as `np.asarray(x)`, tests",
        "  giving booleans such as `np.isfinite([x, y])`, `float(x)` and Python's `math` are let",
        "  through). Where the source is not at hand (`python -c`) or the function called is no",
        "  plain name (`np.random.default_rng().normal(mu)`), the conversion goes unseen;",
        "- SciPy's functions convert a Variable as NumPy's own code does",
        "  (`scipy.special.logsumexp(x)`, `scipy.linalg.expm(a)`, `scipy.stats.norm.logpdf(x)`):",
        "  refused alike, naming the function and gengrad's op where it has one",
        "  (`V.logsumexp`, `F.softmax`, `V.linalg.norm`; scipy.stats' distributions are",
        "  `V.stats`, under SciPy's names: `V.stats.norm.logpdf(x, loc, scale)`, `V.stats.t.cdf`,",
        "  ...); SciPy's ufuncs record gengrad's op",
        "  where it has one (`scipy.special.erf`, `erfc`, `erfcx`, `erfinv`, `erfcinv`, `ndtr`, `ndtri`,",
        "  `log_ndtr`, `i1`, `i0e`, `i1e`, `j0`, `j1`, `jn`, `y0`, `y1`, `yn`, `jv`, `yv`, `jve`,",
        "  `yve` (any real order), `k0`, `k1`, `kn`, `k0e`, `k1e`, `kv`, `kve`, `iv`, `ive` (any",
        "  real order),",
        "  `gamma`, `rgamma` (1/Gamma, entire), `gammasgn`, `gammaln`, `digamma` (or `psi`), `beta`,",
        "  `betaln`, `zeta` (Riemann's, and Hurwitz's in both arguments), `entr`, `rel_entr`, `kl_div`,",
        "  `ellipk`, `ellipkm1`, `ellipe` (by the arithmetic-geometric mean), `exp1`, `expi`, `expn`,",
        "  `huber`,",
        "  `pseudo_huber`, `erfi`, `dawsn`, `exprel`, `cosm1`, `powm1`, `boxcox`, `boxcox1p`,",
        "  `inv_boxcox`, `inv_boxcox1p` (each keeping the digits its direct formula loses, in value",
        "  and derivatives), `exp10`, `sindg`, `cosdg`, `tandg`, `cotdg` (degrees reduced exactly),",
        "  `radian`, `agm`, `zetac`, `loggamma` (real), `spence` (the dilogarithm), `poch`, `binom`",
        "  (of real arguments, in both;",
        "  SciPy's exact products for whole m and k), `xlogy`,",
        "  `xlog1py`, `gammainc`, `gammaincc`, `betainc`, `betaincc` (in x), `stdtr` (in t), the",
        "  distribution functions `chdtr`, `chdtrc`, `gdtr`, `gdtrc`, `pdtr`, `pdtrc`, `bdtr`,",
        "  `bdtrc`, `nbdtr`, `nbdtrc`, `fdtr`, `fdtrc` (in x, m or p), Tukey's lambda CDF `tklmbda` (in",
        "  x), their inverses `gammaincinv`,",
        "  `gammainccinv`, `chdtri`, `gdtrix`, `pdtri`, `betaincinv`, `betainccinv`, `bdtri`, `nbdtri`,",
        "  `fdtri`, `stdtrit` (in the probability), `gdtria` (in p and x), `ndtri_exp`, `nrdtrimn`,",
        "  `nrdtrisd`, `logit`, the",
        "  sine, cosine and Fresnel integrals `sici`, `shichi`, `fresnel` (pairs of Variables),",
        "  Wright's omega `wrightomega`, Lambert's W `lambertw` (its real branches k = 0 and -1, real",
        "  results), Owen's T `owens_t` (in h and a), the Kolmogorov distribution's",
        "  `kolmogorov` and `kolmogi`, the one-sided statistic of n samples `smirnov` and `smirnovi` (whole",
        "  n), Airy's `airy` (its four: Ai, Ai', Bi, Bi') and `airye` (scaled by e^(+-2/3 x^(3/2))),",
        "  the spherical Bessel",
        "  functions `spherical_jn`, `spherical_yn`, `spherical_in`, `spherical_kn` (gengrad's: SciPy's",
        "  Python code converts a Variable, refused naming them), `hyp0f1` (in z), Kelvin's functions",
        "  `ber`, `bei`, `ker`, `kei` and their derivatives `berp`, `beip`, `kerp`, `keip`, Carlson's",
        "  elliptic integrals `elliprf`, `elliprd`, `elliprc`, `elliprg`, `elliprj` and Legendre's",
        "  incomplete `ellipkinc`, `ellipeinc` (in every argument), Jacobi's elliptic functions",
        "  `ellipj` (sn, cn, dn and the amplitude, in u and m)",
        "  and the orthogonal polynomials `eval_legendre`, `eval_chebyt`, `eval_chebyu`, `eval_hermite`,",
        "  `eval_hermitenorm`, `eval_laguerre`, `eval_gegenbauer`, `eval_genlaguerre`, `eval_jacobi`,",
        "  `eval_sh_jacobi` (differentiable in their parameters too), `eval_sh_legendre`,",
        "  `eval_sh_chebyt`, `eval_sh_chebyu`, `eval_chebyc`, `eval_chebys` (of whole degree, by their",
        "  recurrences: derivatives to any order), the associated Legendre functions `lpmv` (whole order",
        "  and degree), the parabolic cylinder functions `pbdv` (whole orders >= 0, a pair): `V.erf`,",
        "  `V.gammaln`, ...; `expit` and `log_expit`:",
        "  `F.sigmoid`, `F.log_sigmoid`) and are refused as NumPy's are otherwise",
        "  (`scipy.special.hyp2f1`), under SciPy's name, naming gengrad's spelling where it has one",
        "  (`scipy.special.polygamma(n, x)`, SciPy's Python code: `V.polygamma(n, x)`); `scipy.io`'s",
        "  files read the values;",
        "- Python's `math` functions compute with floats: `math.exp(x[0])` on a Variable that",
        "  requires grad is refused, naming gengrad's op (`V.exp(x[0])`, or `np.exp(x[0])`), since",
        "  its result would be a plain number; tests and whole numbers (`math.isnan`,",
        "  `math.floor`) are answered, and `math.exp(x[0].item())` is the value alone.",
        "",
        "```python",
        "try:",
        "    a = np.array([x[0], x[1]])          # each Variable would be converted: no graph",
        "except ValueError as e:",
        "    print(e)                            # np.array([x, y]): NumPy converts ... V.stack([x, y]) ...",
        "a = np.array([x[0].item(), x[1].item()])  # the values alone",
        "s = V.stack([x[0], x[1]])               # the graph kept",
        "print(s)                                # variable([0.5 1. ])",
        "print(math.exp(x[0].item()) == float(np.exp(x.data[0])))  # True",
        "print(V.exp(x[0]))                      # variable(1.6487212707001282)",
        "```",
        "",
        "Ufunc methods record an op too: " + reductions + ";",
        accumulations + ";",
        "`ufunc.outer` for the binary ufuncs gengrad has (`np.multiply.outer`, ...); and",
        "`np.copy(x)` is `V.positive`, a recorded copy. Functions whose result has no gradient",
        "(indices, counts, masks, shapes, constants shaped like the input) run on the data and",
        "return plain arrays (and NumPy's savers, `np.save`, `np.savez`, `np.savetxt`, write the",
        "values, as `np.asarray` reads them), except where an argument besides the data requires grad: the",
        "weights of `np.bincount(i, weights=w)` (their sums into the bins are recorded) and the",
        "fill value of `np.full_like(x, w)` (`V.broadcast_to(w, x.shape)`); a bound of `np.clip`",
        "that is a Variable is differentiated too, as PyTorch's `clamp` with tensor bounds:",
        "",
        " ".join(f"`np.{name}`" for name in data_only()),
        "",
        "gengrad's Variables are real. So of `np.fft`, `np.fft.fftshift` and `np.fft.ifftshift`",
        "record rolls (`V.roll`), and the transforms, whose results are complex, are refused",
        "by name. `np.emath`'s functions record gengrad's op where NumPy's answer is real, and",
        "are refused where it would be complex (`np.emath.sqrt` of a negative entry), naming",
        "the real function (`np.sqrt`, NaN there) and `np.emath.sqrt(x.data)`.",
        "",
        "## Coming from HIPS autograd or JAX",
        "",
        "| HIPS autograd / JAX | gengrad |",
        "|---|---|",
        "| `import autograd.numpy as anp`, `import jax.numpy as jnp` | plain `import numpy as np` on"
        " Variables, or `import variable as V` (`V.sin`, `V.linalg.det`, ...) |",
        "| `grad(f)(x)` | `V.grad(f(x), x)` with `x` a Variable, or `f(x).backward()` then `x.grad` |",
        "| `jacobian(f)(x)`, `jax.jacobian(f)(x)` | `V.jacobian(f, x)` |",
        "| `hessian(f)(x)`, `jax.hessian(f)(x)` | `V.hessian(f, x)`; `V.hvp(f, x, v)` for H v alone |",
        "| `jax.jvp(f, (x,), (v,))` | `V.jvp(f, x, v)`, returning `(f(x), J v)` |",
        "| `jax.experimental.jet.jet` | `V.taylor(f, x, v, order)`, returning"
        " `[f(x), D_v f, ..., D_v^order f]` |",
        "| `autograd.extend.primitive` + `defvjp`, `jax.custom_vjp` | a `V.Forwarder` with `backward`"
        " (and `taylor`), see [custom_functions.md](custom_functions.md) |",
        "| `jax.lax.stop_gradient(x)` | `x.detach()` |",
        "| `anp.array([x, y])` (autograd's own) | `V.stack([x, y])` (`np.array([x, y])` is refused) |",
        "| `autograd.scipy.stats.norm.logpdf(x, mu, sigma)`, `jax.scipy.stats` | "
        "`V.stats.norm.logpdf(x, mu, sigma)`: scipy.stats' names and arguments, for `norm`, `t`, "
        "`gamma`, `chi2`, `beta`, `expon`, `laplace`, `logistic`, `cauchy`, `uniform`, `lognorm`, "
        "`halfnorm`, `skewnorm`, `weibull_min`, `gumbel_r`, `gumbel_l`, `pareto`, `rayleigh`, `vonmises`, "
        "`kstwobign`, `ksone`, `tukeylambda`, `invgamma`, `lomax`, `invweibull`, `poisson`, `binom`, "
        "`dirichlet` and `multivariate_normal` |",
        "",
        "HIPS autograd's own test suite runs on gengrad through an adapter,",
        "`python tests/conformance/run_hips_autograd.py PATH/TO/autograd/tests`, which sorts each",
        "test as passed, wrong, or refused (an op gengrad lacks, complex numbers): no test gives a",
        "wrong number.",
        "",
        "## The ops",
        "",
        f"{len(rows)} ops, one row each, by family (the module in `variable/ops/` that defines",
        "it; np.linalg's last) then name. Each op is checked by the rows of its family's table (merged into",
        "`OP_TABLE` in tests/variable/test_op_table.py): the forward pass against NumPy's own",
        "function, `V.gradcheck` in float64 up to the order given (every derivative up to it,",
        "each input), and its Taylor rule against nested reverse mode (`V.taylorcheck`) to",
        "order 6 for a rule to any order, or to order 1 (`V.jvp`) for a first-order rule (an op",
        "built from gengrad's ops to order 6 on one row, its other ranges and shapes to order 3,",
        "and gradchecked to second order there; so is an elementwise op at its smaller shapes, each",
        "range checked in full at its largest).",
        "GPU: its table runs on the device (tests/conftest.py's `DEVICE_READY`). A NumPy name",
        "\"—\" marks an op that NumPy has no function for (`x[i]` is `get_item`).",
        "",
        "| family | NumPy | gengrad | gradcheck to order | Taylor rule | GPU |",
        "|---|---|---|---|---|---|",
        *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows),
        "",
        "## NumPy functions gengrad refuses",
        "",
        "Commonly used NumPy functions with no gengrad op yet: given a Variable each raises a",
        "TypeError naming it; on `x.data` each gives a plain array (no gradient). What to",
        "write instead:",
        "",
        "| NumPy | why, or what to write instead |",
        "|---|---|",
        *(f"| `np.{name}` | {_cell(reason)} |" for name, reason in refusals),
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    """Print the page, or write it to docs/numpy.md with --write."""
    argv = sys.argv[1:] if argv is None else argv
    text = render()
    if "--write" in argv:
        PAGE.write_text(text)
        print(f"wrote {PAGE.relative_to(ROOT)}")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
