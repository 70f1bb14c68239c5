"""Soundness regressions from an adversarial review of the engine.

Each case is a claim whose correct verdict is known; before the fixes, the false
claims came out proved / certified / checked and the true ones refuted or error.
"""

import pytest
import sympy as sp
from sympy import I, Eq, FiniteSet, Interval, Piecewise, Range, Rational, exp, log, pi, sin, sqrt

from verify_claims import Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Root, Step
from verify_claims.engine.verify import verify
from verify_claims.run.settings import Settings

x, a, n, u, v = sp.symbols("x a n u v")
NEG = Interval.open(-sp.oo, 0)
POS = Interval.open(0, sp.oo)


def run(claim):
    claim.validate()
    return verify(claim, Settings())


def meta(cid):
    return {"id": cid, "title": "t", "ref": "review"}


# ------------------------------------------------------------ false claims must not pass
FALSE_CLAIMS = {
    "monotonic-across-a-jump": Monotonic(**meta("f1"), var=x, domain={x: Interval(0, 2)},
                                         expr=Piecewise((x, x < 1), (x - Rational(1, 100), True))),
    "implies-without-multiplier": Chain(**meta("f2"), domain={x: Interval(0, 3)},
                                       steps=[Step(Eq(x, 1)), Step(Eq(x**2 + 1, 0), relation="implies")]),
    "linear-root-with-vanishing-coefficient": Root(**meta("f3"), equation=a * x - a, var=x, value=1,
                                                   interval=Interval(-5, 5), unique=True,
                                                   domain={a: Interval(0, 1)}),
    "maximiser-outside-a-finite-set": Maximiser(**meta("f4"), objective=-(x - 1)**2, wrt=x, at={x: 1},
                                                over={x: FiniteSet(0, 2)}),
    "equivalent-without-multiplier": Chain(**meta("f5"), domain={x: Interval(0, 3)},
                                           steps=[Step(Eq(x, 1)), Step(Eq(x**2 + 1, 0), relation="equivalent")]),
    "tiny-violation-of-non-strict-bound": Inequality(**meta("f6"), lhs=exp(-x - 50), op="<=", rhs=0,
                                                     domain={x: POS}),
    "complex-valued-identity": Identity(**meta("f7"), lhs=x + I, rhs=x, domain={x: Interval(10**16, 10**17)}),
    "concavity-on-a-non-convex-set": Maximiser(**meta("f8"), objective=-x**4 / 12 + x**2 / 2 + Rational(286, 343) * x / 3,
                                               wrt=x, at={x: Rational(-11, 7)}, over={x: Interval(-2, 2)},
                                               over_where=(x**2 > 1,)),
    "log-split-of-a-product-of-negatives": Identity(**meta("f9"), lhs=I * (log(sqrt(u * v)) - log(u) / 2 - log(v) / 2),
                                                    rhs=-pi, domain={u: NEG, v: NEG}),
}


@pytest.mark.parametrize("name", sorted(FALSE_CLAIMS))
def test_false_claim_is_refuted(name):
    res = run(FALSE_CLAIMS[name])
    assert res.status == "refuted", (res.status, res.method, res.message, res.evidence)
    assert res.counterexample and res.counterexample.get("point") is not None


# ------------------------------------------------------------ true claims must not be refuted
TRUE_CLAIMS = {
    "range-with-a-step": Identity(**meta("t1"), lhs=(-1)**n, rhs=-1, domain={n: Range(1, 10, 2)}),
    "interval-far-from-zero": Inequality(**meta("t2"), lhs=x, op=">=", rhs=2000, domain={x: Interval(2000, sp.oo)}),
    "strict-bound-absorbed-by-rounding": Inequality(**meta("t3"), lhs=1, op="<", rhs=1 + exp(-x) * (2 + sin(x)),
                                                    domain={x: POS}),
    "monotonic-absorbed-by-rounding": Monotonic(**meta("t4"), expr=1 - exp(-x) * (x**2 + 1), var=x, domain={x: POS}),
    "certified-strict-bound-absorbed": Inequality(**meta("t5"), lhs=1, op="<", rhs=1 + exp(-x), domain={x: POS}),
    "limit-slow-for-small-parameter": Limit(**meta("t6"), expr=x**a, var=x, point=0, direction="+", value=0,
                                            domain={a: Interval.Lopen(0, 1)}),
}


@pytest.mark.parametrize("name", sorted(TRUE_CLAIMS))
def test_true_claim_is_established(name):
    res = run(TRUE_CLAIMS[name])
    assert res.status in ("proved", "certified", "checked"), (res.status, res.message, res.counterexample)


def test_strict_violation_by_exact_equality_is_still_refuted():
    # x**2 > 0 fails exactly at the closed end x = 0: an exact zero, not rounding
    res = run(Inequality(**meta("exact-zero"), lhs=x**2, op=">", rhs=0, domain={x: Interval(0, 1)}))
    assert res.status == "refuted"


def test_maximiser_with_no_comparable_rival_is_not_checked():
    # the objective is undefined at every rival (log of a negative): nothing was compared
    res = run(Maximiser(**meta("no-rivals"), objective=sp.log(-x), wrt=x, at={x: Rational(1, 2)},
                        over={x: Interval.open(0, 1)}, scope="global"))
    assert res.status not in ("proved", "certified", "checked"), (res.status, res.evidence)


def test_sign_parity_certifies_products_of_negatives_only_when_even():
    p, q = sp.symbols("p q")
    dom = {p: Interval.open(0, 1), q: Interval.open(0, 1)}
    slack = (p + q < 1,)
    # -(p + q - 1) > 0 and 1/(p + q - 1)**2 > 0 on the simplex: even number of negative factors
    good = run(Inequality(**meta("parity-even"), lhs=-2 * p / (p + q - 1), op=">", rhs=0, domain=dom, where=slack))
    assert good.status == "certified"
    # one negative factor: the product is negative, so "> 0" is false and must be refuted
    bad = run(Inequality(**meta("parity-odd"), lhs=2 * p / (p + q - 1), op=">", rhs=0, domain=dom, where=slack))
    assert bad.status == "refuted"
