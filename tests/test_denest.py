"""Nested square roots denested, only where exact arithmetic and a sign proof say so
(backends/symbolic.py: `denested`, the zero test's strategy "denest+rational").

sqrt(A + B sqrt(c)) = p + q sqrt(c) when m**2 = A**2 - B**2 c is a perfect square and
p**2 = (A +- m)/2.  A replacement U of sqrt(W) is made only when U**2 - W is identically 0
and U >= 0 follows from the facts, so a root is never given the wrong sign: on 1 < a < 2,
sqrt(a - 2 sqrt(a - 1)) is 1 - sqrt(a - 1), not sqrt(a - 1) - 1.  Stationary policy (15)
of arXiv 2502.18548 is the case that needed it: the reward's standard deviation under it
is d sqrt(x (1 - x)), and x (1 - x) is such a nested sum.
"""

import sympy as sp
from sympy import Interval, sqrt

from verify_claims import Identity
from verify_claims.backends.rational import identically_zero
from verify_claims.backends.symbolic import Facts, denested, zero_by
from verify_claims.engine.verify import verify
from verify_claims.run.settings import Settings

a = sp.Symbol("a", positive=True)
b, p = sp.symbols("beta pi_ref", positive=True)


def test_a_nested_root_is_denested_when_its_sign_is_shown():
    w = sqrt(a + 2 * sqrt(a - 1))  # = 1 + sqrt(a - 1) for a >= 1
    got = denested(w, Facts(positive=[a - 1]))
    assert got != w and not got.has(sqrt(a + 2 * sqrt(a - 1)))
    assert identically_zero(got - (1 + sqrt(a - 1)))


def test_the_wrong_sign_is_never_chosen():
    w = sqrt(a - 2 * sqrt(a - 1))  # = |sqrt(a - 1) - 1|
    # a > 1 only: sqrt(a - 1) - 1 changes sign at a = 2, neither candidate is shown >= 0
    assert denested(w, Facts(positive=[a - 1])) == w
    # a > 2: sqrt(a - 1) - 1 > 0, and that is the root
    got = denested(w, Facts(positive=[a - 2]))
    assert identically_zero(got - (sqrt(a - 1) - 1))
    # 1 < a < 2 (a - 1 > 0, 2 - a > 0): 1 - sqrt(a - 1) > 0, and that is the root
    got = denested(w, Facts(positive=[a - 1, 2 - a]))
    assert identically_zero(got - (1 - sqrt(a - 1)))


def test_no_facts_no_replacement():
    w = sqrt(a + 2 * sqrt(a - 1))
    assert denested(w, Facts()) == w
    assert zero_by(w - 1 - sqrt(a - 1), Facts())[0] is None


def test_the_standard_deviation_under_policy_15():
    """Rewards d 1[a] under x = (15): their standard deviation sqrt((1 - x)(d x)**2 + x (d (1 - x))**2)
    is d beta (S + 1 - 2 pi_ref) / (2 (1 + beta**2)), S the root of (15)."""
    d = sp.Symbol("d", positive=True)
    s = sqrt(1 + 4 * b ** 2 * p * (1 - p))
    x = (2 * b ** 2 * p + 1 + s) / (2 * (1 + b ** 2))
    std = sqrt((1 - x) * (d * x) ** 2 + x * (d * (1 - x)) ** 2)
    closed = d * b * (s + 1 - 2 * p) / (2 * (1 + b ** 2))
    facts = Facts(positive=[1 - p])  # pi_ref < 1: what shows S + 1 - 2 pi_ref > 0
    assert zero_by(std - closed, facts)[0] == "denest+rational"
    assert zero_by(std + closed, facts)[0] is None  # the other sign is never the root
    assert zero_by(std - closed, Facts())[0] is None  # without pi_ref < 1 the sign is not shown


def meta(cid):
    return {"id": cid, "title": "t", "ref": "denesting"}


def test_an_identity_with_a_nested_root_is_proved():
    res = verify(Identity(**meta("denest-holds"), lhs=sqrt(a + 2 * sqrt(a - 1)), rhs=1 + sqrt(a - 1),
                          domain={a: Interval.open(0, 10)}, where=(a > 1,)), Settings())
    assert res.status == "proved", res.message


def test_an_identity_with_the_wrong_sign_of_a_nested_root_is_refuted():
    """sqrt(a - 2 sqrt(a - 1)) = sqrt(a - 1) - 1 holds for a >= 2 only: on (1, 10) the
    numbers refute it (a counterexample below 2), and no proof is attempted or found."""
    res = verify(Identity(**meta("denest-wrong-sign"), lhs=sqrt(a - 2 * sqrt(a - 1)), rhs=sqrt(a - 1) - 1,
                          domain={a: Interval.open(0, 10)}, where=(a > 1,)), Settings())
    assert res.status == "refuted" and res.counterexample
    assert float(res.counterexample["point"]["a"]) < 2


def test_a_root_under_a_binder_is_left_alone():
    """Found in review: the facts are about the free a, not about the a an integral binds.
    With a > 2, sqrt(a - 2 sqrt(a - 1)) is sqrt(a - 1) - 1 for the free a, but under
    Integral(.., (a, 1, 2)) it is 1 - sqrt(a - 1): a*(I1 - I2) below is (2/3) a, not 0."""
    w = sqrt(a - 2 * sqrt(a - 1))
    e = a * sp.Integral(w, (a, 1, 2)) - a * sp.Integral(sqrt(a - 1) - 1, (a, 1, 2))
    facts = Facts(positive=[a - 2])
    assert denested(e, facts) == e
    assert zero_by(e, facts)[0] is None
    assert abs(float(e.subs(a, 3).evalf()) - 2) < 1e-9  # (the difference is really not 0)
    # outside the binder the root is still denested, the integral left as it is
    got = denested(w + sp.Integral(w, (a, 1, 2)), facts)
    assert got.has(sp.Integral(w, (a, 1, 2))) and identically_zero(
        got - sp.Integral(w, (a, 1, 2)) - (sqrt(a - 1) - 1))
