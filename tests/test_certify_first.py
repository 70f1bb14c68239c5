"""Certification before the prover (``Kind.certify_first``): all of it for the kinds whose
prover reaches no more than certified (inequalities, monotonicities, roots), route A by z3
alone for a maximiser in one variable.

The order only decides which method gets there first, never the status: the prover still
runs where certification decided nothing, a proof still answers to the numbers, and a
certificate recorded in the old order (prover first) still replays.
"""

from __future__ import annotations

import sympy as sp

from verify_claims import Inequality, Maximiser, Monotonic, Root
from verify_claims.backends.numeric import NumericOutcome
from verify_claims.backends.symbolic import ProofOutcome
from verify_claims.engine.goals import Certificate
from verify_claims.engine.verify import verify
from verify_claims.kinds import KINDS
from verify_claims.run.settings import Settings

x, y, a = sp.symbols("x y a")
UNIT = sp.Interval(0, 1)
S = Settings(samples=40)


def meta(id_):
    return dict(id=id_, title="t", ref="1")


def run(claim):
    claim.validate()
    return verify(claim, S)


def prover_calls(monkeypatch, kind):
    """The kind's prover, recording the claims it was asked about."""
    calls = []
    orig = KINDS[kind].prove
    monkeypatch.setattr(KINDS[kind], "prove", lambda claim, ctx: calls.append(claim.id) or orig(claim, ctx))
    return calls


AMGM = dict(lhs=x * (1 - x), op="<=", rhs=sp.Rational(1, 4), domain={x: UNIT})
SQUARE = dict(expr=x ** 2 + a, var=x, direction="increasing", domain={x: sp.Interval(0, 2), a: UNIT})
QUAD = dict(equation=sp.Eq(x ** 2 - 3 * x + 2, 0), var=x, value=sp.S(2), interval=sp.Interval(sp.Rational(3, 2), 3),
            unique=True)


def test_certification_decides_before_the_prover_is_asked(monkeypatch):
    for kind, claim in (("inequality", Inequality(**meta("amgm"), **AMGM)),
                        ("monotonic", Monotonic(**meta("square"), **SQUARE)),
                        ("root", Root(**meta("quad"), **QUAD))):
        calls = prover_calls(monkeypatch, kind)
        res = run(claim)
        assert res.status == "certified" and res.method.startswith("certified ("), (kind, res.method)
        assert calls == [], kind
        assert res.evidence["symbolic"]["skipped"] == "certified by certification, tried first"
        assert res.evidence["certificate"]["goals"], kind


def test_the_prover_establishes_what_certification_left_undecided(monkeypatch):
    calls = prover_calls(monkeypatch, "inequality")
    monkeypatch.setattr(KINDS["inequality"], "certify", lambda *a: Certificate("undecided", reason="test"))
    res = run(Inequality(**meta("amgm-prover"), **AMGM))
    assert calls == ["amgm-prover"]
    assert (res.status, res.method) == ("certified", "sympy sign analysis")
    # the undecided certificate is not shown beside the proof that established the claim
    assert res.evidence["certificate"]["method"] == "symbolic"
    assert res.evidence["certificate"]["detail"] == "sympy sign analysis"


def test_neither_deciding_leaves_the_claim_checked(monkeypatch):
    monkeypatch.setattr(KINDS["inequality"], "certify", lambda *a: Certificate("undecided", reason="no route"))
    monkeypatch.setattr(KINDS["inequality"], "prove", lambda claim, ctx: ProofOutcome(None, "sympy", {}))
    res = run(Inequality(**meta("amgm-neither"), **AMGM))
    assert res.status == "checked"
    assert res.evidence["certificate"]["reason"] == "no route"


def test_a_counterexample_of_certification_refutes_without_the_prover(monkeypatch):
    # the float screen is made to miss the violation (x <= 1/2 fails on (1/2, 1]); z3's
    # counterexample, confirmed by mpmath, refutes the claim and the prover is never asked
    kind = KINDS["inequality"]
    orig = kind.spot_check
    monkeypatch.setattr(kind, "spot_check", lambda c, s, r, screen=False:
                        NumericOutcome("consistent", {"points": 0}) if screen else orig(c, s, r, screen=False))
    calls = prover_calls(monkeypatch, "inequality")
    res = run(Inequality(**meta("half"), lhs=x, op="<=", rhs=sp.Rational(1, 2), domain={x: UNIT}))
    assert res.status == "refuted" and res.counterexample, res.message
    assert sp.Rational(res.counterexample["point"]["x"]) > sp.Rational(1, 2)
    assert calls == []
    assert res.evidence["symbolic"]["skipped"] == "refuted by certification, tried first"


def test_a_maximiser_is_proved_before_routes_b_and_c(monkeypatch):
    # routes B and C of its certification take the prover's proof of the first-order condition
    calls = prover_calls(monkeypatch, "maximiser")
    res = run(Maximiser(**meta("concave-2"), objective=-(x - a) ** 2 - (y - a) ** 2, wrt=(x, y), at={x: a, y: a},
                        over={x: UNIT, y: UNIT}, domain={a: UNIT}))
    assert res.status == "certified" and calls == ["concave-2"]
    assert "skipped" not in res.evidence["symbolic"]
    local = run(Maximiser(**meta("concave-1-local"), objective=-(x - a) ** 2, wrt=(x,), at={x: a}, over={x: UNIT},
                          domain={a: UNIT}, scope="local"))
    assert local.status == "certified" and calls == ["concave-2", "concave-1-local"]


def test_route_a_by_z3_certifies_a_maximiser_in_one_variable_before_the_prover(monkeypatch):
    calls = prover_calls(monkeypatch, "maximiser")
    res = run(Maximiser(**meta("concave-1"), objective=-(x - a) ** 2, wrt=(x,), at={x: a}, over={x: UNIT},
                        domain={a: UNIT}))
    assert (res.status, res.method) == ("certified", "certified (smt)") and calls == []
    assert res.evidence["certificate"]["detail"].startswith("route A: ")
    assert res.evidence["symbolic"]["skipped"] == "certified by certification, tried first"


def test_after_route_a_by_z3_the_whole_certification_follows_the_prover(monkeypatch):
    from verify_claims.kinds import maximiser
    seen = []
    monkeypatch.setattr(maximiser, "_certify_maximiser", lambda claim, methods, t0, deadline, first_order, trace=None,
                        only=None: seen.append((tuple(methods), only, first_order)) or Certificate("undecided",
                                                                                                 reason="test"))
    claim = dict(objective=-(x - a) ** 2, wrt=(x,), at={x: a}, over={x: UNIT}, domain={a: UNIT})
    monkeypatch.setattr(KINDS["maximiser"], "prove", lambda claim, ctx: ProofOutcome(
        None, "sympy", {"first_order": "gradient vanishes (proved)", "second_order": "not established"}))
    run(Maximiser(**meta("a-then-all"), **claim))
    assert seen[0] == (("smt",), ("A",), False)  # before the prover: route A, z3 alone
    assert len(seen) == 2 and seen[1][1] is None and seen[1][2] is True  # after it: every route, every method
    assert set(seen[1][0]) > {"smt"}
    # the prover establishing the claim: no certification after it
    seen.clear()
    monkeypatch.setattr(KINDS["maximiser"], "prove", lambda claim, ctx: ProofOutcome("certified", "sympy", {}))
    res = run(Maximiser(**meta("a-then-proof"), **claim))
    assert len(seen) == 1 and res.method == "sympy"


def test_a_route_a_that_needs_more_than_z3_is_certified_after_the_prover(monkeypatch):
    # z3 declines exp before the prover; after it, route A's derivative signs are decided by
    # the other backends
    calls = prover_calls(monkeypatch, "maximiser")
    res = run(Maximiser(**meta("exp-1"), objective=-(sp.exp(x) - sp.exp(a)) ** 2, wrt=(x,), at={x: a},
                        over={x: UNIT}, domain={a: UNIT}))
    assert res.status == "certified" and calls == ["exp-1"]
    assert res.evidence["certificate"]["detail"].startswith("route A: ")
    assert "skipped" not in res.evidence["symbolic"]


def test_a_root_is_certified_again_with_what_the_prover_showed(monkeypatch):
    # certification first decides nothing; the prover shows that the value solves the
    # equation but not that it is unique; certification, given that, is tried once more
    seen = []
    monkeypatch.setattr(KINDS["root"], "certify", lambda claim, ctx, proof, numeric, budget: seen.append(
        proof.evidence.get("solves_proved", False)) or Certificate("undecided", reason="test"))
    orig = KINDS["root"].prove

    def not_unique(claim, ctx):
        out = orig(claim, ctx)
        return ProofOutcome(None, out.method, {**out.evidence, "unique": "not established"})
    monkeypatch.setattr(KINDS["root"], "prove", not_unique)
    run(Root(**meta("quad-again"), **QUAD))
    assert seen == [False, True]
    # nothing new from the prover: no second attempt
    seen.clear()
    monkeypatch.setattr(KINDS["root"], "prove", lambda claim, ctx: ProofOutcome(None, "sympy", {}))
    run(Root(**meta("quad-once"), **QUAD))
    assert seen == [False]


def test_a_certificate_recorded_prover_first_still_replays(monkeypatch):
    # a certificate committed by an engine that proved before certifying names the
    # prover's decisions only: certification, replaying first, finds none and gives way
    claim = Inequality(**meta("amgm-old"), **AMGM)
    claim.validate()
    with monkeypatch.context() as m:
        m.setattr(KINDS["inequality"], "certify_first", False)
        old = verify(claim, S)
    assert (old.status, old.method) == ("certified", "sympy sign analysis")
    again = verify(claim, S, certificate={"status": "certified", "decisions": old.evidence["trace"]})
    assert (again.status, again.method) == ("certified", "sympy sign analysis")
    assert again.evidence["replay"]["result"] == "replayed"
