"""Root uniqueness with polynomial coefficients spread over many orders of magnitude.

mpmath.polyroots with the default step budget fails to converge on x^2 - (1 - c) x - c r
for c = 1e35, r = 1e-6 (a parameter pressed to 1e20 against another at 1e-15); the root
checker retries with a larger budget instead of reporting an error.
"""

import sympy as sp

from verify_claims import Root
from verify_claims.engine.verify import verify
from verify_claims.run.settings import Settings

x, c, r = sp.symbols("x c r")


def _claim(value, cid):
    return Root(id=cid, title="unique non-negative root", ref="test",
                equation=sp.Eq(x ** 2 - (1 - c) * x - c * r, 0), var=x, value=value,
                interval=sp.Interval(0, sp.oo), unique=True,
                domain={c: sp.FiniteSet(sp.Integer(10) ** 35), r: sp.FiniteSet(sp.Rational(1, 10 ** 6))})


ROOT = (1 - c + sp.sqrt((1 - c) ** 2 + 4 * c * r)) / 2


def test_extreme_coefficients_do_not_error():
    res = verify(_claim(ROOT, "extreme-root"), Settings(seed=0, samples=4, precision=30))
    assert res.status in ("proved", "certified", "checked"), (res.status, res.message)


def test_extreme_coefficients_other_root_refuted():
    res = verify(_claim((1 - c - sp.sqrt((1 - c) ** 2 + 4 * c * r)) / 2, "extreme-root-wrong"),
                 Settings(seed=0, samples=4, precision=30))
    assert res.status == "refuted" and res.counterexample
