"""Certification routes added for the whole paper (issue 4): maximisers (Sections 1.3, 2.3,
2.3.1, 3), root uniqueness with a pole at an interval end and roots of A + K sqrt(B)
(Eqs. (14), (15) with (17), (19)), the affine-in-a-bounded-variable sign rule (the
normaliser Z_q of Section 3), side conditions, and the one-line reason of limits over a
symbolic group size.  Each route certifies a true claim and never certifies a
false-but-plausible variant."""

import sympy as sp

from verify_claims import Inequality, Limit, Maximiser, Ref, Root
from verify_claims.backends.functions import side_conditions
from verify_claims.engine.verify import certify
from verify_claims.kinds.limit import limit_reason
from verify_claims.run.settings import Settings
from verify_claims.engine.verify import verify

x, y, a, b, c, r = sp.symbols("x y a b c r")
S = Settings(samples=40)
UNIT = sp.Interval(0, 1)
OPEN = sp.Interval.open(0, 1)
POS = sp.Interval.open(0, sp.oo)


def maxi(objective, wrt, at, over, domain, **kw):
    m = Maximiser(id=kw.pop("id", "m"), title="t", ref=Ref("2.3"), objective=objective, wrt=wrt, at=at,
                  over=over, domain=domain, **kw)
    m.validate()
    return m


def cert(claim, solved=False, budget=15.0):
    return certify(claim, S, budget, solved=solved)


# ------------------------------------------------------------------ route A (one variable, global)
def test_route_a_certifies_interior_global_maximiser_without_stationarity():
    # gamma x - beta KL(ref || x) (Section 2.3.1): the maximiser (14) is irrational in the
    # parameters; the derivative's sign on each side is decided by z3
    pi14 = (1 - b + sp.sqrt((1 - b) ** 2 + 4 * b * r)) / 2
    f = x - b * (r * sp.log(r / x) + (1 - r) * sp.log((1 - r) / (1 - x)))
    m = maxi(f, (x,), {x: pi14}, {x: OPEN}, {b: POS, r: OPEN})
    res = cert(m)
    assert res.verdict == "certified", res.reason
    assert "route A" in res.detail
    assert verify(m, S).status == "certified"


def test_route_a_certifies_maximiser_at_the_closed_end():
    # f' = (x^2 - b x + b r)/x^2 > 0 when b < 4 r: the maximum is at x = 1 (not stationary)
    f = x - b * (r / x + sp.log(x))
    m = maxi(f, (x,), {x: 1}, {x: sp.Interval.Lopen(0, 1)}, {b: POS, r: OPEN}, where=(b < 4 * r,))
    res = cert(m)
    assert res.verdict == "certified", res.reason


def test_local_maximum_claimed_global_is_not_certified():
    # x^3 - 3x has a local maximum at -1 (value 2) but reaches 18 at x = 3
    m = maxi(x ** 3 - 3 * x + 0 * a, (x,), {x: -1}, {x: sp.Interval(-2, 3)}, {a: UNIT})
    assert cert(m).verdict != "certified"
    assert verify(m, S).status == "refuted"


def test_end_point_that_is_not_the_maximum_is_not_certified():
    # the same objective as above, but b > 4 r: f decreases somewhere, x = 1 need not win
    f = x - b * (r / x + sp.log(x))
    m = maxi(f, (x,), {x: 1}, {x: sp.Interval.Lopen(0, 1)}, {b: sp.Interval(2, 3), r: sp.Interval(sp.Rational(1, 100), sp.Rational(1, 10))})
    assert cert(m).verdict != "certified"


def test_infeasible_point_is_not_certified():
    # the unconstrained maximiser of -(x - a)^2 is a, outside (0, 1) when a > 1
    m = maxi(-(x - a) ** 2, (x,), {x: a}, {x: OPEN}, {a: sp.Interval(sp.Rational(1, 2), 2)})
    res = cert(m)
    assert res.verdict != "certified" and "point" in res.reason


# ------------------------------------------------------------------ routes B and C (several variables)
def test_route_b_certifies_concave_maximiser_on_the_simplex():
    # x log-barrier objective on the open simplex: a + ... maximised at (1/3, 1/3)
    f = sp.log(x) + sp.log(y) + sp.log(1 - x - y)
    m = maxi(f, (x, y), {x: sp.Rational(1, 3), y: sp.Rational(1, 3)}, {x: OPEN, y: OPEN},
             {a: UNIT}, over_where=(x + y < 1,))
    res = cert(m, solved=True)
    assert res.verdict == "certified", res.reason
    assert "route B" in res.detail


def test_route_b_saddle_claimed_global_is_not_certified():
    m = maxi(x ** 2 - y ** 2 + 0 * a, (x, y), {x: 0, y: 0}, {x: sp.Interval(-1, 1), y: sp.Interval(-1, 1)},
             {a: UNIT})
    assert cert(m, solved=True).verdict != "certified"


def test_route_c_certifies_local_maximiser_and_rejects_local_minimum():
    # f = a x^2 - x^4: x = 1/sqrt(2) ... use the stationary point x = 0 of -(a) x^2 + x^4
    f = -a * x ** 2 + x ** 4
    ok = maxi(f, (x,), {x: 0}, {x: sp.Interval(-1, 1)}, {a: sp.Interval(1, 2)}, scope="local")
    assert cert(ok, solved=True).verdict == "certified"
    # with the sign of a flipped, x = 0 is a local minimum: never certified, and refuted
    bad = maxi(a * x ** 2 - x ** 4, (x,), {x: 0}, {x: sp.Interval(-1, 1)}, {a: sp.Interval(1, 2)},
               scope="local")
    assert cert(bad, solved=True).verdict != "certified"
    assert verify(bad, S).status == "refuted"


def test_route_c_needs_the_gradient_to_vanish():
    # -(x - a)^2 - x at x = a: the Hessian is negative but the gradient is -1, not 0
    m = maxi(-(x - a) ** 2 - x, (x,), {x: a}, {x: sp.Interval(-2, 2)}, {a: sp.Interval(0, 1)}, scope="local")
    assert cert(m, solved=False).verdict != "certified"


# ------------------------------------------------------------------ separable second order
def test_separable_objective_is_split_along_directions_that_rebuild_the_hessian():
    from verify_claims.kinds.maximiser import separable
    f = 3 * x + a * x * sp.log(x / r) + y * sp.log(y) + (1 - x - y) * sp.log(2 * (1 - x - y)) - (2 * x + 2 * y) ** 2
    pieces, u = separable(f, [x, y])
    assert {d for d, _ in pieces} == {(1, 0), (0, 1), (1, 1)}
    rebuilt = sum((sp.diff(g, u, 2).xreplace({u: d[0] * x + d[1] * y}) * sp.Matrix(d) * sp.Matrix(d).T
                   for d, g in pieces), sp.zeros(2, 2))
    assert sp.simplify(rebuilt - sp.hessian(f, [x, y])) == sp.zeros(2, 2)
    # a term in x and y together is not along one direction: no split
    assert separable(f + x * y, [x, y]) is None
    assert separable(f + sp.log(x + y ** 2), [x, y]) is None


def test_route_c_separable_certifies_a_local_maximiser_on_the_simplex():
    # entropy plus a linear reward over three outputs: the Gibbs point is a strict local max
    f = a * x + y * 0 - (x * sp.log(x) + y * sp.log(y) + (1 - x - y) * sp.log(1 - x - y))
    z = 1 + 2 * sp.exp(-a)
    m = maxi(f, (x, y), {x: 1 / z, y: sp.exp(-a) / z}, {x: OPEN, y: OPEN}, {a: sp.Interval(0, 3)},
             over_where=(x + y < 1,), scope="local")
    res = cert(m, solved=True)
    assert res.verdict == "certified", res.reason
    assert "spanning directions" in res.detail and "g'' < 0 along (1, 1) at the point" in res.detail


def test_separable_saddle_and_flat_direction_are_not_certified():
    # one direction curves up: a saddle, refuted by a nearby point
    saddle = maxi(-(x - sp.Rational(1, 4)) ** 2 + a * (y - sp.Rational(1, 4)) ** 2, (x, y),
                  {x: sp.Rational(1, 4), y: sp.Rational(1, 4)}, {x: OPEN, y: OPEN}, {a: sp.Interval(1, 2)},
                  scope="local")
    assert cert(saddle, solved=True).verdict != "certified"
    assert verify(saddle, S).status == "refuted"
    # curved along (1, 1) only: the directions do not span, the maximum is not strict
    flat = maxi(-a * (x + y - sp.Rational(1, 2)) ** 2, (x, y), {x: sp.Rational(1, 4), y: sp.Rational(1, 4)},
                {x: OPEN, y: OPEN}, {a: sp.Interval(1, 2)}, scope="local")
    assert cert(flat, solved=True).verdict != "certified"


def test_a_strict_local_maximum_with_a_basin_smaller_than_the_probes_is_not_refuted():
    # -x^2 + 10^12 x^3 has a strict local maximum at 0, but rises again from x = 1e-12 on: the
    # probes at 1e-9 .. 1e-3 do better, the Hessian -2 says the point is a strict maximum
    m = maxi(-a * x ** 2 + 10 ** 12 * x ** 3, (x,), {x: 0}, {x: sp.Interval.open(-1, 1)}, {a: sp.Interval(1, 2)},
             scope="local")
    assert verify(m, S).status == "certified"


def test_a_local_counterexample_says_why_the_point_is_not_a_local_maximum():
    # a local minimum: the Hessian's positive eigenvalue
    bad = maxi(a * x ** 2 - x ** 4 + y ** 2 * 0 - y ** 2, (x, y), {x: 0, y: 0},
               {x: sp.Interval(-1, 1), y: sp.Interval(-1, 1)}, {a: sp.Interval(1, 2)}, scope="local")
    res = verify(bad, S)
    assert res.status == "refuted" and "positive eigenvalue" in res.counterexample["why"]
    # not stationary: the gradient -1
    slope = maxi(-(x - a) ** 2 - x, (x,), {x: a}, {x: sp.Interval(-2, 2)}, {a: sp.Interval(0, 1)}, scope="local")
    res = verify(slope, S)
    assert res.status == "refuted" and "gradient does not vanish" in res.counterexample["why"]


# ------------------------------------------------------------------ roots
def test_unique_root_with_poles_at_the_interval_ends():
    # b (x - r)/(x (1 - x)) = 1 on [0, 1] (Eq. (17) shape): the ends are poles, not roots
    v = (1 - b + sp.sqrt((1 - b) ** 2 + 4 * b * r)) / 2
    c_ = Root(id="r", title="t", ref=Ref("B.1"), equation=sp.Eq(b * (x - r) / (x * (1 - x)), 1), var=x,
              value=v, interval=UNIT, unique=True, domain={b: POS, r: OPEN})
    c_.validate()
    assert verify(c_, S).status == "certified"


def test_two_roots_between_poles_are_not_unique():
    # (x - 1/4)(x - 3/4)/(x (1 - x)) = 0 has two roots in [0, 1]
    c_ = Root(id="r", title="t", ref=Ref("B.1"), equation=(x - sp.Rational(1, 4)) * (x - a) / (x * (1 - x)),
              var=x, value=sp.Rational(1, 4), interval=UNIT, unique=True,
              domain={a: sp.Interval(sp.Rational(1, 2), sp.Rational(3, 4))})
    c_.validate()
    res = cert(c_, solved=True)
    assert res.verdict == "refuted" and res.counterexample["type"] == "another root in the interval"


def test_root_of_square_root_equation_by_squaring():
    # Eq. (19): b (x - r) = sqrt(x (1 - x)) is solved by (15)
    v = (2 * b ** 2 * r + 1 + sp.sqrt(1 + 4 * b ** 2 * r * (1 - r))) / (2 * (1 + b ** 2))
    c_ = Root(id="r", title="t", ref=Ref("B.1"), equation=sp.Eq(b * (x - r), sp.sqrt(x * (1 - x))), var=x,
              value=v, interval=UNIT, unique=True, domain={b: POS, r: OPEN})
    c_.validate()
    res = cert(c_)
    assert res.verdict == "certified", res.reason
    assert "squared" in res.detail


def test_squaring_does_not_accept_the_spurious_root():
    # the other root of the squared quadratic, (2 b^2 r + 1 - sqrt(...))/(2 (1 + b^2)), solves
    # b (x - r) = -sqrt(x (1 - x)), not (19): A K <= 0 fails there
    w = (2 * b ** 2 * r + 1 - sp.sqrt(1 + 4 * b ** 2 * r * (1 - r))) / (2 * (1 + b ** 2))
    c_ = Root(id="r", title="t", ref=Ref("B.1"), equation=sp.Eq(b * (x - r), sp.sqrt(x * (1 - x))), var=x,
              value=w, interval=UNIT, domain={b: POS, r: OPEN})
    c_.validate()
    assert cert(c_).verdict != "certified"
    assert verify(c_, S).status == "refuted"


# ------------------------------------------------------------------ sign rules and side conditions
def test_affine_in_a_bounded_variable():
    # Z_q = ref e^{c} + (1 - ref) e^{-c} > 0 (Section 3) for ref in [0, 1] and any c
    z = Inequality(id="z", title="t", ref=Ref("3"), lhs=r * sp.exp(c) + (1 - r) * sp.exp(-c), op=">", rhs=0,
                   domain={r: UNIT, c: sp.Interval(-sp.oo, sp.oo)}, certify_with="symbolic")
    z.validate()
    res = cert(z)
    assert res.verdict == "certified" and "affine" in res.detail
    # the difference instead of the sum is negative at ref = 0: not certified, refuted
    bad = Inequality(id="z", title="t", ref=Ref("3"), lhs=r * sp.exp(c) - (1 - r) * sp.exp(-c), op=">", rhs=0,
                     domain={r: UNIT, c: sp.Interval(-sp.oo, sp.oo)}, certify_with="symbolic")
    bad.validate()
    assert cert(bad).verdict != "certified"
    assert verify(bad, S).status == "refuted"


def test_side_conditions_of_inverse_trig_and_unknown_functions():
    conds = side_conditions(sp.asin(2 * x - 1))
    assert (1 - (2 * x - 1) ** 2, "nonnegative") in conds
    # a function whose domain is not described is never shown defined
    assert (sp.S.NegativeOne, "nonnegative") in side_conditions(sp.loggamma(x))
    assert side_conditions(sp.exp(x) + sp.asinh(x)) == []
    # a Piecewise without an otherwise-branch is nan where no condition holds (found in review:
    # it was taken for a total function, so such a sum was shown defined)
    assert (sp.S.NegativeOne, "nonnegative") in side_conditions(sp.Piecewise((x, x < sp.Rational(1, 2))))
    assert side_conditions(sp.Piecewise((x, x < sp.Rational(1, 2)), (1 - x, True))) == []
    from verify_claims.backends.definedness import defined
    from verify_claims.model.domain import Domain
    G, k = sp.Symbol("G", integer=True), sp.Symbol("k", integer=True)
    partial = sp.Sum(sp.Piecewise((x, k < 3)), (k, 0, G))
    assert not defined(partial, Domain({x: sp.Interval(0, 1), G: sp.Range(2, 6)}), 2.0)


# ------------------------------------------------------------------ limits: a reason, never a certificate
def test_limit_of_a_sum_over_symbolic_group_size_has_a_clear_reason():
    G, k = sp.symbols("G k", integer=True, positive=True)
    lim = Limit(id="l", title="t", ref=Ref("2.1"), expr=sp.Sum(x ** k, (k, 0, G)) * (1 - x), var=G,
                point=sp.oo, value=1, domain={x: sp.Interval(sp.Rational(1, 10), sp.Rational(1, 2))})
    lim.validate()
    why = limit_reason(lim, {"error": "Don't know how to calculate the mrv"}, {"ladder": ["1.204", "3.01"]})
    assert why.startswith("limit of a sum over a symbolic group size G") and "G = 1024" in why
    assert "mrv" not in why


# ------------------------------------------------------------------ monotone reduction, abstraction
def _goal(expr, want, domain, where=()):
    from verify_claims.engine.goals import Goal
    from verify_claims.model.domain import Domain
    return Goal(expr, want, Domain(domain, where), "t")


def test_monotone_reduction_to_a_closed_end():
    import time
    from verify_claims.engine.goals import _monotone_end
    # 1 - x y >= 0 on x in [0, 1), y in [0, 1]: decreasing in y, so y = 1 (closed) is the worst
    # end; x's worst end 1 is excluded and must not be used
    g = _goal(1 - x * y, "nonnegative", {x: sp.Interval.Ropen(0, 1), y: UNIT})
    red = _monotone_end(g, ["symbolic", "smt"], time.process_time() + 10)
    assert red is not None and "monotone in y" in red[1] and "y = 1" in red[1]
    # 1 - x y > 0 with y up to 2 fails at x = 1, y = 2: the reduced goal is false, no certificate
    bad = _goal(1 - x * y, "positive", {x: UNIT, y: sp.Interval(0, 2)})
    assert _monotone_end(bad, ["symbolic", "smt"], time.process_time() + 10) is None


def test_paper_15_exceeds_14_by_monotone_reduction_in_gamma():
    # binary-large-g-more-biased-than-g2: (14) increases in gamma, so gamma = 1 is the worst case
    g_ = sp.Symbol("g")
    p14 = (1 - b / g_ + sp.sqrt((1 - b / g_) ** 2 + 4 * b / g_ * r)) / 2
    p15 = (2 * b ** 2 * r + 1 + sp.sqrt(1 + 4 * b ** 2 * r * (1 - r))) / (2 * (1 + b ** 2))
    dom = {b: POS, g_: sp.Interval.Lopen(0, 1), r: OPEN}
    ok = Inequality(id="i", title="t", ref=Ref("2.3.1"), lhs=p15, op=">", rhs=p14, domain=dom)
    ok.validate()
    res = cert(ok, budget=20)
    assert res.verdict == "certified" and "monotone in g" in res.detail
    # (14) at gamma = 1 with the roles swapped is false: never certified
    bad = Inequality(id="i", title="t", ref=Ref("2.3.1"), lhs=p14, op=">", rhs=p15, domain=dom)
    bad.validate()
    assert cert(bad, budget=10).verdict != "certified"


def test_positive_abstraction_certifies_gibbs_feasibility_and_not_a_false_sign():
    from verify_claims.backends.symbolic import decide_sign_goal as _symbolic
    e = sp.exp(-1 / (b * sp.sqrt(x * (1 - x))))
    point = 1 / (1 + (1 - r) * e / r)  # a Gibbs point: strictly inside (0, 1)
    dom = {x: OPEN, b: POS, r: OPEN}
    assert _symbolic(_goal(1 - point, "positive", dom), 5) is not None
    # exp(u) - exp(-u) has no fixed sign: the abstraction forgets too much to claim one
    assert _symbolic(_goal(sp.exp(c) - sp.exp(-c), "nonnegative", {c: sp.Interval(-1, 1)}), 5) is None


def test_positive_abstraction_for_zero_goals():
    from verify_claims.backends.symbolic import decide_sign_goal as _symbolic
    s_ = sp.sqrt(x * (1 - x))
    # log(exp(c / (b s))) - c/(b s) = 0 needs s real: a positive symbol gives it
    z = sp.log(sp.exp(c / (b * s_))) - c / (b * s_)
    assert _symbolic(_goal(z, "zero", {x: OPEN, b: POS, c: sp.Interval(-1, 1)}), 5) is not None
    # sqrt(x (1 - x)) - x is not identically 0: never "holds"
    assert _symbolic(_goal(s_ - x, "zero", {x: OPEN}), 5) is None


# ------------------------------------------------------------------ the first-order condition's passes
def test_first_order_condition_tried_cheapest_first_across_both_sets_of_facts(monkeypatch):
    # the exact zero tests with and without the ends, then the rational simplifications with
    # both, then simplify with both: a gradient that does not vanish (the wrong point) runs
    # every pass, in that order, and is never proved
    from verify_claims.backends import symbolic as sym
    from verify_claims.engine.context import Context, Trace
    from verify_claims.kinds import maximiser as M

    calls = []
    plain = M.zero_by

    def spy(expr, facts=sym.NO_FACTS, trace=None, at="zero", strategies=None):
        calls.append((tuple(strategies or ()), at.endswith("with the ends")))
        return plain(expr, facts, trace, at, strategies)
    monkeypatch.setattr(M, "zero_by", spy)
    wrong = maxi(-(x - a) ** 2, (x,), {x: a / 2}, {x: OPEN}, {a: OPEN}, scope="local")
    sym._SEARCHED.clear()
    out = M.KIND.prove(wrong, Context(S, Trace()))
    assert out.status is None and "not established" in out.evidence["first_order"]
    assert calls == [(s, e) for s in (M._QUICK_ZERO, M._CHEAP_ZERO, M._SLOW_ZERO) for e in (False, True)]
    # the right point is proved by the first exact test, nothing slower tried
    calls.clear()
    sym._SEARCHED.clear()
    right = maxi(-(x - a) ** 2, (x,), {x: a}, {x: OPEN}, {a: OPEN}, scope="local")
    M.KIND.prove(right, Context(S, Trace()))
    assert calls[0] == (M._QUICK_ZERO, False) and (M._CHEAP_ZERO, False) not in calls


def test_the_monotone_reduction_comes_after_ball_and_before_interval(monkeypatch):
    # the order of trying a goal's methods; a goal no method decides runs them all
    import time
    from verify_claims.engine import goals as G

    ran = []
    run, mono = G._run_backend, G._monotone_end

    def spy_run(name, goal, seconds, cx_check, trace):
        ran.append(name)
        return run(name, goal, min(seconds, 0.3), cx_check, trace)

    def spy_mono(goal, methods, deadline, trace=None):
        ran.append("monotone")
        return mono(goal, methods, deadline, trace)
    monkeypatch.setattr(G, "_run_backend", spy_run)
    monkeypatch.setattr(G, "_monotone_end", spy_mono)
    # x y - 1/2 >= 0 is false on the unit square: no method certifies it (candidates are not
    # confirmed by this check, so every method runs)
    g = _goal(x * y - sp.Rational(1, 2), "nonnegative", {x: UNIT, y: UNIT})
    m, _, _ = G.solve_goal(g, ["symbolic", "smt", "bernstein", "ball", "interval"], time.process_time() + 10,
                           G.none_check)
    assert m is None
    # (the reduction asks smt and symbolic of the derivative: those calls follow it)
    assert ran[:5] == ["bernstein", "smt", "symbolic", "ball", "monotone"]
    assert "interval" not in ran  # not after ball ran
    # without ball the reduction still comes before the interval method
    ran.clear()
    G.solve_goal(g, ["symbolic", "smt", "interval"], time.process_time() + 10, G.none_check)
    assert ran[:3] == ["smt", "symbolic", "monotone"] and ran[-1] == "interval"


# ------------------------------------------------------------------ minors falsified first
def _minor_attempts(monkeypatch):
    """The labels of the Hessian minors whose sign sympy was asked to prove."""
    import verify_claims.kinds.maximiser as M
    asked, real = [], M.prove_sign

    def counting(e, want, facts, trace=None, at=None):
        if at and at.startswith("minor"):
            asked.append(at)
        return real(e, want, facts, trace, at=at)
    monkeypatch.setattr(M, "prove_sign", counting)
    return asked


def test_a_minor_the_balls_show_without_its_sign_is_not_given_to_sympy(monkeypatch):
    # -x^2 + x^4 / 2 at x = 0: a strict local maximum, but f'' = -2 + 6 x^2 > 0 for |x| > 0.58,
    # so "concave on the whole of [-1, 1]" is false: not attempted, and said why; the second
    # order condition at the point (f''(0) = -2 < 0) is still proved by sympy
    asked = _minor_attempts(monkeypatch)
    m = maxi(-a * x ** 2 + x ** 4 / 2, (x,), {x: 0}, {x: sp.Interval(-1, 1)}, {a: sp.Interval(1, 2)},
             scope="local")
    res = verify(m, S)
    assert res.status == "certified" and "first and second order" in res.method
    assert asked == ["minor 1 at the point"]
    note = res.evidence["symbolic"]["second_order"]
    assert "minor 1 is not negative at" in note and "arb ball" in note, note


def test_a_concave_objective_is_still_proved_strictly_concave(monkeypatch):
    # the probe never stands in the way of a true sign: -x^2 - y^2 - a x^4 is concave everywhere
    asked = _minor_attempts(monkeypatch)
    # (two variables: one would be certified by z3's route A before the prover)
    m = maxi(-x ** 2 - y ** 2 - a * x ** 4, (x, y), {x: 0, y: 0}, {x: sp.Interval(-1, 1), y: sp.Interval(-1, 1)},
             {a: sp.Interval(1, 2)})
    res = verify(m, S)
    assert res.status == "certified" and "strictly concave" in res.method, res.method
    assert asked == ["minor 1", "minor 2"]


def test_sign_violation_decides_by_balls_only():
    from verify_claims.backends.numeric import sign_violation
    from verify_claims.model.domain import Domain
    dom = Domain({x: sp.Interval(-1, 1), a: sp.Interval(1, 2)}, ())
    pt = sign_violation(-a + 3 * x ** 2, "negative", dom, S, "t")
    assert pt is not None and 3 * pt[x] ** 2 >= pt[a]
    assert sign_violation(-a - x ** 2, "negative", dom, S, "t") is None
    # strict and weak signs: x^2 is 0 at x = 0 (a simple point the sampler draws)
    assert sign_violation(x ** 2, "positive", dom, S, "t") is not None
    assert sign_violation(x ** 2, "nonnegative", dom, S, "t") is None
    # cosh^2 - sinh^2 = 1 loses every digit at 30 digits for a in [60, 80] (its values there
    # are 0 or 1e52-sized noise): the balls straddle 0 and never falsify the true sign
    big = Domain({a: sp.Interval(60, 80)}, ())
    assert sign_violation(sp.cosh(a) ** 2 - sp.sinh(a) ** 2, "positive", big, S, "t") is None
    # a symbol the domain does not declare, or a function arb is not asked to take: no probe
    assert sign_violation(-a + 3 * y ** 2, "negative", dom, S, "t") is None
