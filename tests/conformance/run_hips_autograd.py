"""Run HIPS autograd's own test suite against gengrad, and sort what happened.

    python tests/conformance/run_hips_autograd.py PATH/TO/autograd/tests [test_x.py ...] [-v]

autograd's tests are not part of gengrad; take them from a copy of autograd's repository
(its tests/ folder, unedited).  They import `autograd`, `autograd.numpy`, ... : here those
names are tests/conformance/autograd_on_gengrad.py (the differential operators and
check_grads on V.grad, V.jacobian and V.jvp), NumPy and SciPy themselves, whose functions
on a Variable record gengrad's ops.  Each test that does not pass is sorted by its error:

- "no op": gengrad has no such op (the call is refused, naming it) or it is complex;
- "not mapped": autograd machinery this adapter does not answer (vspaces, holomorphic_grad),
  or a test of autograd's own API beyond NumPy's (OWN_API below);
- "by design": where gengrad differs from autograd on purpose (BY_DESIGN below);
- "wrong": an assertion failed, a derivative or a value differs: each one is a defect
  to look at (in gengrad or in this adapter);
- "error": anything else, also to look at.

Default files: the ones that test derivatives of NumPy and SciPy code.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import tempfile
import types
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_FILES = ("test_numpy.py", "test_scalar_ops.py", "test_systematic.py", "test_core.py",
                 "test_graphs.py", "test_binary_ops.py", "test_truediv.py", "test_jacobian.py",
                 "test_wrappers.py", "test_linalg.py", "test_direct.py", "test_scipy.py", "test_logic.py")
NO_OP = re.compile(r"does not take Variables|has no \w+ op|no gengrad op|complex|is refused|not supported|"
                   r"NotImplementedError: .*has no Taylor rule|would be silently lost|would have no graph")
NOT_MAPPED = re.compile(r"autograd-on-gengrad|module 'numpy[.\w]*' has no attribute")
# Tests of autograd's own API, beyond NumPy's and SciPy's (a where with keywords that returns
# Python scalars, make_diagonal, linalg._dot, convolve's `axes`, deprecated primitive methods,
# its wrappers' docstrings): nothing of gengrad's to run
OWN_API = re.compile(r"::(test_custom_where|test_make_diagonal|test_diagonal|test_pinv|"
                     r"test_convolve_generalization|test_convolve_ignore|test_deprecated_def|test_wrapped_name_and_docs)")
# Where gengrad differs from autograd on purpose (README, docs/numpy.md)
BY_DESIGN = {"test_array_from_scalar": "np.array(x) of one Variable is the conversion to its values (what "
                                       "plotting calls); V.positive(x) or np.copy(x) is the recorded copy"}
ALIASED = ("numpy", "numpy.random", "numpy.linalg", "numpy.fft", "scipy", "scipy.special", "scipy.stats",
           "scipy.linalg", "scipy.signal", "scipy.integrate")


class _Alias(types.ModuleType):
    """A module whose attributes are another object's (numpy, scipy.stats.norm, ...)."""

    def __init__(self, name, target):
        super().__init__(name)
        self.__dict__["_target"] = target
        self.__path__ = []                                  # a package: submodules come here too

    def __getattr__(self, attr):
        return getattr(self.__dict__["_target"], attr)


class _Either:
    """A V.stats distribution, with SciPy's for what it lacks (rvs: sampling, no gradient)."""

    def __init__(self, ours, theirs):
        self.ours, self.theirs = ours, theirs

    def __getattr__(self, attr):
        return getattr(self.ours, attr, None) or getattr(self.theirs, attr)


class _StatsModule:
    """autograd.scipy.stats: each distribution V.stats has, else SciPy's."""

    def __getattr__(self, name):
        import scipy.stats

        import variable

        ours = getattr(variable.stats, name, None)
        theirs = getattr(scipy.stats, name)
        return theirs if ours is None else _Either(ours, theirs)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """autograd -> the adapter; autograd.numpy[.x] -> numpy[.x]; autograd.scipy[.x] -> scipy[.x];
    any other autograd.x -> the adapter again (core, test_util, extend, tracer, ...)."""

    def find_spec(self, name, path=None, target=None):
        if name == "autograd" or name.startswith("autograd."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        parts = spec.name.split(".")
        if len(parts) > 1 and parts[1] in ("numpy", "scipy"):
            target = importlib.import_module(parts[1])
            for i, part in enumerate(parts[2:], 2):
                try:
                    target = importlib.import_module(".".join(parts[1:i + 1]))
                except ImportError:
                    target = getattr(target, part)           # scipy.stats.multivariate_normal
            return _Alias(spec.name, target)
        adapter = importlib.import_module("autograd_on_gengrad")
        return _Alias(spec.name, adapter.SUBMODULES.get(parts[1], adapter) if len(parts) > 1 else adapter)

    def exec_module(self, module):
        pass


class _Outcomes:
    """A pytest plugin that keeps each test's outcome and error text."""

    def __init__(self):
        self.results = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            if report.nodeid not in self.results or report.outcome != "passed":
                self.results[report.nodeid] = (report.outcome, str(report.longrepr or ""))

    def pytest_collectreport(self, report):
        if report.outcome == "failed":
            self.results[report.nodeid] = ("failed", str(report.longrepr))


def _kind(node, outcome, text):
    if outcome == "passed":
        return "passed"
    if outcome == "skipped":
        return "skipped"
    if OWN_API.search(node):
        return "not mapped"
    if node.rpartition("::")[2] in BY_DESIGN:
        return "by design"
    last = text.strip().splitlines()[-1] if text.strip() else ""
    errors = [line for line in text.splitlines() if line.startswith("E ")]
    first = " ".join(errors[:3]) + " " + last
    if NOT_MAPPED.search(first):
        return "not mapped"
    if NO_OP.search(first):
        return "no op"
    if "AssertionError" in first or "assert" in first.lower() and "Error" not in first:
        return "wrong"
    return "error"


def main(argv):
    import pytest

    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    if not argv:
        print(__doc__)
        return 2
    folder = Path(argv[0]).resolve()
    files = argv[1:] or [f for f in DEFAULT_FILES if (folder / f).exists()] or sorted(
        path.name for path in folder.glob("test_*.py"))
    if not files:
        print(f"no test files in {folder}")
        return 2
    sys.path[:0] = [str(HERE), str(ROOT), str(folder)]
    sys.meta_path.insert(0, _Finder())
    for name in ALIASED:     # autograd.numpy is numpy itself, as a user's `import numpy as np`
        try:
            sys.modules["autograd." + name] = importlib.import_module(name)
        except ImportError:
            pass
    if "autograd.scipy" in sys.modules:                  # (with SciPy installed)
        stats = _Alias("autograd.scipy.stats", _StatsModule())   # autograd's distributions: V.stats
        sys.modules["autograd.scipy.stats"] = stats
        sys.modules["autograd.scipy"] = _Alias("autograd.scipy", sys.modules["autograd.scipy"])
        sys.modules["autograd.scipy"].stats = stats
        for name in ("norm", "t", "gamma", "beta", "chi2", "poisson", "dirichlet", "multivariate_normal"):
            sys.modules["autograd.scipy.stats." + name] = getattr(stats, name)
    autograd = importlib.import_module("autograd")
    autograd.numpy, autograd.scipy = sys.modules["autograd.numpy"], sys.modules.get("autograd.scipy")
    outcomes = _Outcomes()
    with tempfile.TemporaryDirectory() as empty:       # not autograd's settings (its plugins)
        ini = Path(empty) / "pytest.ini"
        ini.write_text("[pytest]\n")
        pytest.main(["-q", "-p", "no:cacheprovider", "-c", str(ini), "--rootdir", str(folder),
                     "--no-header", *[str(folder / f) for f in files]], plugins=[outcomes])
    kinds = {node: _kind(node, *result) for node, result in outcomes.results.items()}
    by_file = {}
    for node, kind in kinds.items():
        by_file.setdefault(node.split("::")[0].rsplit("/", 1)[-1], Counter())[kind] += 1
    columns = ("passed", "wrong", "error", "no op", "not mapped", "by design", "skipped")
    print(f"\n{'file':24}" + "".join(f"{c:>12}" for c in columns))
    total = Counter()
    for name, counts in sorted(by_file.items()):
        total.update(counts)
        print(f"{name:24}" + "".join(f"{counts[c]:>12}" for c in columns))
    print(f"{'all':24}" + "".join(f"{total[c]:>12}" for c in columns))
    skipped = importlib.import_module("autograd_on_gengrad").COMPLEX_SKIPPED[0]
    print(f"(combo_check cases with a complex argument, left out: {skipped})")
    for node, kind in sorted(kinds.items()):
        if kind in ("wrong", "error") or verbose and kind not in ("passed", "skipped"):
            outcome, text = outcomes.results[node]
            errors = [line for line in text.splitlines() if line.startswith("E ")][:4]
            print(f"\n{kind}: {node}\n  " + "\n  ".join(errors or text.strip().splitlines()[-3:]))
    for name, reason in BY_DESIGN.items():
        print(f"\nby design: {name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
