"""Certification (issue 4): each method certifies true bounds (including ones tight at a
boundary or at an interior point) and never certifies a false-but-plausible one, which
must come out refuted with a confirmed counterexample.  Shapes anticipate Section 2.3.1
((14), (15) and their bounds) and Appendix B.1 (the quadratic's root)."""

import sympy as sp
import pytest

from verify_claims import Inequality, Monotonic, Ref, Root
from verify_claims.backends import METHODS, smt
from verify_claims.engine.goals import Certificate
from verify_claims.engine.verify import certify
from verify_claims.model.domain import DeclarationError
from verify_claims.run.settings import Settings
from verify_claims.engine.verify import verify

b, g, p, x = sp.symbols("beta gamma p x")
u = 1 - b / g
PI14 = (u + sp.sqrt(u ** 2 + 4 * b / g * p)) / 2  # Eq. (14)
PI15 = (2 * b ** 2 * p + 1 + sp.sqrt(1 + 4 * b ** 2 * p * (1 - p))) / (2 * (1 + b ** 2))  # Eq. (15)
POS = sp.Interval.open(0, sp.oo)
D14 = {b: POS, g: sp.Interval.Lopen(0, 1), p: sp.Interval(0, 1)}
D14_OPEN_P = {b: POS, g: sp.Interval.Lopen(0, 1), p: sp.Interval.open(0, 1)}
S = Settings(samples=40)


def ineq(lhs, op, rhs, domain, **kw):
    c = Inequality(id=kw.pop("id", "t"), title="t", ref=Ref("2.3.1"), lhs=lhs, op=op, rhs=rhs, domain=domain, **kw)
    c.validate()
    return c


def run(c, budget=10.0, **kw):
    return certify(c, S, budget, **kw)


# ------------------------------------------------------------------ symbolic
def test_symbolic_certifies_tight_log_bound():
    # x - log x - 1 >= 0 is tight at x = 1 (inside): the tangent bound makes it exact
    r = run(ineq(x - sp.log(x) - 1, ">=", 0, {x: POS}, certify_with="symbolic"))
    assert r.verdict == "certified" and r.method == "symbolic"


def test_symbolic_never_certifies_a_stronger_constant():
    c = ineq(x - sp.log(x) - 1, ">=", sp.Rational(1, 100), {x: POS}, certify_with="symbolic")
    assert run(c).verdict == "undecided"  # the symbolic route never refutes, never passes
    assert verify(c, S).status != "certified"
    # with the automatic order, the interval method finds the violation near x = 1 that
    # 40 random samples can miss, and mpmath confirms it
    c.certify_with = None
    res = verify(c, S)
    assert res.status == "refuted" and res.counterexample["type"] == "inequality violated"


# ------------------------------------------------------------------ smt
def test_smt_certifies_paper_bounds_14_and_15():
    assert run(ineq(PI14, ">=", sp.Max(u, p), D14, certify_with="smt")).verdict == "certified"
    r = run(ineq(PI15, ">=", sp.Max(1 / (1 + b ** 2), p), {b: POS, p: sp.Interval(0, 1)}, certify_with="smt"))
    assert r.verdict == "certified" and r.method == "smt"


def test_smt_certifies_bound_tight_at_closed_end():
    # pi14 >= p holds with equality on the whole face p = 1: no rounding may refute it
    assert run(ineq(PI14, ">=", p, D14, certify_with="smt")).verdict == "certified"


def test_smt_certifies_strict_bound_tight_at_open_end():
    # 1/(1 + b^2) > 1 - b for every b > 0; the difference vanishes as b -> 0
    assert run(ineq(1 / (1 + b ** 2), ">", 1 - b, {b: POS}, certify_with="smt")).verdict == "certified"


def test_smt_refutes_slightly_stronger_constant_with_counterexample():
    r = run(ineq(PI14, ">=", p + sp.Rational(1, 10 ** 6), D14, certify_with="smt"))
    assert r.verdict == "refuted"
    assert r.counterexample["type"] == "inequality violated"


def test_smt_refutes_bound_failing_only_near_an_open_end():
    # x^2 >= x/10^6 fails only on (0, 10^-6)
    r = run(ineq(x ** 2, ">=", x / 10 ** 6, {x: sp.Interval.open(0, 1)}, certify_with="smt"))
    assert r.verdict == "refuted"
    assert float(r.counterexample["point"]["x"]) < 1e-6


def test_smt_strict_bound_refuted_at_boundary_equality():
    # 1/(1 + b^2) > 1 - b is false at b = 0 when 0 is in the domain
    r = run(ineq(1 / (1 + b ** 2), ">", 1 - b, {b: sp.Interval(0, 1)}, certify_with="smt"))
    assert r.verdict == "refuted" and r.counterexample["point"]["beta"] in ("0", "0.0")


def test_smt_unknown_is_not_a_certificate(monkeypatch):
    monkeypatch.setattr(smt, "check_goal", lambda *a, **k: smt.SmtAnswer("unknown", "z3 unknown: (test)"))
    r = run(ineq(1 / (1 + b ** 2), ">", 1 - b, {b: POS}, certify_with="smt"))
    assert r.verdict == "undecided" and "unknown" in r.reason


def test_smt_model_that_fails_recheck_is_not_used(monkeypatch):
    # a "model" at a point where the (true) claim holds: never a counterexample
    import mpmath
    fake = smt.SmtAnswer("sat", "z3 sat", model={b: mpmath.mpf(1)})
    monkeypatch.setattr(smt, "check_goal", lambda *a, **k: fake)
    r = run(ineq(1 / (1 + b ** 2), ">", 1 - b, {b: POS}, certify_with="smt"))
    assert r.verdict == "undecided" and "not confirmed" in r.reason


def test_smt_declines_logs():
    r = run(ineq(x - sp.log(x) - 1, ">=", 0, {x: POS}, certify_with="smt"))
    assert r.verdict == "undecided" and "not expressible" in r.reason


# ------------------------------------------------------------------ interval
def test_interval_certifies_tight_interior_minimum():
    # tight at x = 1: the enclosure alone cannot decide, the monotone-corner argument does
    r = run(ineq(x - sp.log(x) - 1, ">=", 0, {x: sp.Interval.open(0, 4)}, certify_with="interval"))
    assert r.verdict == "certified" and r.method == "interval" and r.boxes > 1


def test_interval_certifies_strict_bound_tight_at_open_end():
    r = run(ineq(1 / (1 + b ** 2), ">", 1 - b, {b: POS}, certify_with="interval"))
    assert r.verdict == "certified" and r.method == "interval"


def test_interval_refutes_stronger_constant():
    r = run(ineq(x - sp.log(x) - 1, ">=", sp.Rational(1, 100), {x: sp.Interval.open(0, 4)},
                 certify_with="interval"))
    assert r.verdict == "refuted" and r.counterexample["type"] == "inequality violated"


def test_interval_refutes_bound_failing_only_near_the_end():
    # x - log x - 1 >= (x - 1)^2/3 holds near 1 but fails on about (1.9, 2]
    r = run(ineq(x - sp.log(x) - 1, ">=", (x - 1) ** 2 / 3, {x: sp.Interval.Lopen(0, 2)}, certify_with="interval"))
    assert r.verdict == "refuted" and float(r.counterexample["point"]["x"]) > 1.8


def test_interval_strict_claim_with_interior_equality_is_refuted():
    r = run(ineq(x - sp.log(x) - 1, ">", 0, {x: sp.Interval.open(0, 4)}, certify_with="interval"))
    assert r.verdict == "refuted"
    assert r.counterexample["point"]["x"] in ("1.0", "1")


# ------------------------------------------------------------------ monotonic and roots
def test_monotonic_14_in_beta_gamma_p():
    for var, d in ((b, "decreasing"), (g, "increasing"), (p, "increasing")):
        c = Monotonic(id="m", title="t", ref=Ref("2.3.1"), expr=PI14, var=var, direction=d, domain=D14_OPEN_P)
        c.validate()
        assert run(c).verdict == "certified", var


def test_monotonic_wrong_direction_refuted():
    c = Monotonic(id="m", title="t", ref=Ref("2.3.1"), expr=PI14, var=b, direction="increasing",
                  domain=D14_OPEN_P, certify_with="smt")
    c.validate()
    r = run(c)
    assert r.verdict == "refuted" and r.counterexample["type"] == "not increasing"


def test_root_of_quadratic_unique_for_positive_pi_ref():
    c = Root(id="r", title="t", ref=Ref("B.1"), equation=sp.Eq(x ** 2 - u * x - b / g * p, 0), var=x,
             value=PI14, interval=sp.Interval(0, 1), unique=True,
             domain={b: POS, g: sp.Interval.Lopen(0, 1), p: sp.Interval.Lopen(0, 1)})
    c.validate()
    res = verify(c, S)
    assert res.status == "certified", res.message
    assert res.evidence["certificate"]["method"]


def test_root_of_quadratic_not_unique_at_pi_ref_zero():
    # at pi_ref = 0 and beta < gamma both 0 and 1 - beta/gamma solve the quadratic
    c = Root(id="r", title="t", ref=Ref("B.1"), equation=sp.Eq(x ** 2 - u * x - b / g * p, 0), var=x,
             value=PI14, interval=sp.Interval(0, 1), unique=True, domain=D14, certify_with="smt")
    c.validate()
    r = run(c, solved=True)
    assert r.verdict == "refuted" and r.counterexample["type"] == "another root in the interval"


def test_root_unique_by_monotone_sides_with_logs():
    # D(x) = r/x - log(r/x) - 1 vanishes only at x = r: monotone on each side of r
    r_ = sp.Symbol("r")
    D = r_ / x - sp.log(r_ / x) - 1
    c = Root(id="r", title="t", ref=Ref("1"), equation=sp.Eq(D, 0), var=x, value=r_,
             interval=sp.Interval.Lopen(0, 1), unique=True, domain={r_: sp.Interval.Lopen(0, 1)})
    c.validate()
    assert verify(c, S).status == "certified"


# ------------------------------------------------------------------ integration
def test_certificate_upgrades_checked_and_is_recorded():
    res = verify(ineq(PI15, ">=", sp.Max(1 / (1 + b ** 2), p), {b: POS, p: sp.Interval(0, 1)}), S)
    assert res.status == "certified"
    cert = res.evidence["certificate"]
    assert cert["method"] and cert["seconds"] >= 0 and cert["goals"]


def test_certified_but_numerically_refuted_is_an_engine_conflict(monkeypatch):
    from verify_claims.backends.numeric import NumericOutcome
    from verify_claims.kinds import KINDS
    kind = KINDS["inequality"]
    orig = kind.spot_check
    # the float screen finds nothing, certification says certified, the full-precision
    # check afterwards finds the counterexample: an engine conflict, never a pass
    monkeypatch.setattr(kind, "spot_check", lambda c, s, r, screen=False:
                        NumericOutcome("consistent", {}) if screen else orig(c, s, r, screen=False))
    monkeypatch.setattr(kind, "certify", lambda *a, **k: Certificate("certified", method="smt", detail="(test)"))
    res = verify(ineq(x, ">", 1, {x: sp.Interval(0, 1)}), S)
    assert res.status == "error" and "ENGINE CONFLICT" in res.message


def test_certification_counterexample_refutes_when_sampling_misses(monkeypatch):
    # the spot-check never samples below 1e-20 from the end; x^2 >= x/10^30 fails there
    res = verify(ineq(x ** 2, ">=", x / 10 ** 30, {x: sp.Interval.open(0, 1)}), S)
    assert res.status == "refuted"
    assert res.counterexample["type"] == "inequality violated"


def test_undecided_keeps_checked_with_reason():
    c = ineq(x - sp.log(x) - 1, ">=", 0, {x: POS}, certify_with="none")
    res = verify(c, S)
    assert res.status == "checked" and "certify_with='none'" in res.evidence["certificate"]["reason"]


def test_certify_with_is_validated():
    with pytest.raises(DeclarationError, match="certify_with"):
        ineq(x, ">=", 0, {x: POS}, certify_with="magic")
    from verify_claims import Identity
    c = Identity(id="i", title="t", ref=Ref("1"), lhs=x, rhs=x, domain={x: POS}, certify_with="smt")
    with pytest.raises(DeclarationError, match="certify_with applies"):
        c.validate()


# ------------------------------------------------------------------ sympy's first pass
def _scripted_backends(monkeypatch, symbolic_wins_on_pass, ball_holds=False):
    """Backends that only say what they were asked: sympy runs out of every slice before
    the pass `symbolic_wins_on_pass` (1 or 2), which it wins at once; ball holds or fails
    at once; the rest decline."""
    import time as _time

    from verify_claims.engine import goals as G
    calls = []

    def run(name, goal, seconds, cx_check, trace):
        calls.append((name, seconds))
        if name == "symbolic":
            if sum(n == "symbolic" for n, _ in calls) == symbolic_wins_on_pass:
                return "holds", "sympy", {}
            t = _time.process_time()
            while _time.process_time() - t < seconds:
                pass
            return None, "stopped", {}
        if name == "ball" and ball_holds:
            return "holds", "ball", {}
        return None, "declined: scripted", {}
    monkeypatch.setattr(G, "_run_backend", run)
    monkeypatch.setattr(G, "_monotone_end", lambda *a, **k: None)
    monkeypatch.setattr(G, "SYMBOLIC_FIRST_SECONDS", 0.05)
    x = sp.Symbol("x")
    from verify_claims.model.domain import Domain
    goal = G.Goal(x, "positive", Domain({x: sp.Interval.open(0, 1)}), "x > 0")
    return G, goal, calls


def test_sympy_gets_a_short_first_slice_and_its_whole_slice_after_the_box_methods(monkeypatch):
    import time as _time
    G, goal, calls = _scripted_backends(monkeypatch, symbolic_wins_on_pass=2)
    method, _, _ = G.solve_goal(goal, list(METHODS), _time.process_time() + 60,
                                lambda pt: None)
    assert method == "symbolic"  # what sympy decides with its whole slice is not lost
    names = [n for n, _ in calls]
    assert names.index("ball") < len(names) - 1 and names[-1] == "symbolic"
    assert calls[names.index("symbolic")][1] == 0.05 and calls[-1][1] == G.METHOD_SECONDS["symbolic"]


def test_a_goal_ball_decides_costs_sympy_only_its_first_slice(monkeypatch):
    import time as _time
    G, goal, calls = _scripted_backends(monkeypatch, symbolic_wins_on_pass=3, ball_holds=True)
    method, _, _ = G.solve_goal(goal, list(METHODS), _time.process_time() + 60,
                                lambda pt: None)
    assert method == "ball"
    assert [s for n, s in calls if n == "symbolic"] == [0.05]


def test_with_little_time_left_sympy_gets_its_whole_slice_at_once(monkeypatch):
    # the goal's time left could not hold the first slice, the box methods' slices and a
    # second pass: sympy's whole slice first, as if there were no first slice
    import time as _time
    G, goal, calls = _scripted_backends(monkeypatch, symbolic_wins_on_pass=1)
    method, _, _ = G.solve_goal(goal, list(METHODS), _time.process_time() + 5, lambda pt: None)
    assert method == "symbolic"
    assert [s for n, s in calls if n == "symbolic"] == [G.METHOD_SECONDS["symbolic"]]


def test_no_first_slice_when_no_box_method_takes_the_goal(monkeypatch):
    G, goal, calls = _scripted_backends(monkeypatch, symbolic_wins_on_pass=1)
    # an equality: ball and the interval method decline it, so sympy keeps its whole slice
    equality = G.Goal(goal.expr - goal.expr.free_symbols.pop(), "zero", goal.domain, "x - x = 0")
    assert not G._first_slice(equality, ["ball", "interval"], 60)
    assert G._first_slice(goal, ["ball", "interval"], 60)
    assert not G._first_slice(goal, ["ball", "interval"], 10)  # no room for a second pass
    assert not G._first_slice(goal, ["monotone"], 60)  # no box method follows
