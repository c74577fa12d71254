"""docs/numpy.md is generated from the op tables (tests/docs/ops_page.py); this test fails
when they disagree.

Regenerate the page with `python tests/docs/ops_page.py --write`.
"""

from ops_page import PAGE, render

import variable as V

REGENERATE = "python tests/docs/ops_page.py --write"


def test_page_matches_the_op_tables():
    assert PAGE.is_file(), f"docs/numpy.md is missing: run `{REGENERATE}`"
    assert PAGE.read_text() == render(), f"docs/numpy.md is out of date: run `{REGENERATE}`"


def test_every_op_has_a_row():
    page = render()
    missing = [name for name in (*V.OPS, *V.LINALG_OPS)       # (other names share a row: "V.mul, V.multiply")
               if not any(form in page for form in (f"| `V.{name}` |", f"| `V.{name}`, ", f", `V.{name}` |",
                                                    f", `V.{name}`, "))]
    assert not missing, f"ops without a row in docs/numpy.md: {missing}"


def test_refused_functions_are_refused_and_data_only_ones_run():
    import numpy as np
    from ops_page import data_only, refused_but_expected

    x = V.Variable(np.array([0.5, 1.0, 2.0]))
    for name, _ in refused_but_expected():
        func = getattr(np.linalg, name[7:]) if name.startswith("linalg.") else getattr(np, name)
        assert func.__name__ in str(_refusal(func, x)), name
    assert "argmax" in data_only() and "isnan" in data_only()
    assert np.argmax(x) == 2


def _refusal(func, x):
    """The message of gengrad's TypeError from `func` called on 1 to 4 Variables, or ''."""
    for n in (1, 2, 3, 4):
        try:
            func(*[x] * n)
        except TypeError as e:
            if "does not take Variables" in str(e):
                return str(e)
        except Exception:  # NumPy's own complaint about the arguments: try more of them
            pass
    return ""
