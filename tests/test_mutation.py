"""The gate tests itself (--mutate): mutants generated from a claim's own formulas, killed
by the falsify-first screen, classified equivalent / still true / survived, scored per
claim, module and run, in claims.json and the HTML report, with a gate on the score."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import sympy as sp

from verify_claims import Identity, Inequality, Maximiser, Monotonic, Root
from verify_claims.cli import main
from verify_claims.kinds import kind_of
from verify_claims.model.status import ExitCode
from verify_claims.mutation import Mutant, claim_mutants
from verify_claims.run.mutation import classify, mutate_claim, summarise
from verify_claims.run.settings import Settings

x, y = sp.symbols("x y")
SETTINGS = Settings()

# a true identity, verified only at one instance (x = 0) or on a whole interval
SQUARE = dict(id="square-of-sum", title="(x + 1)^2 expanded", ref="1", lhs=(x + 1) ** 2, rhs=x ** 2 + 2 * x + 1)


def _record(claim):
    return mutate_claim(claim, SETTINGS).evidence["mutation"]


def test_a_claim_checked_only_at_an_instance_lets_mutants_survive_and_widening_its_domain_kills_them():
    at_instance = _record(Identity(**SQUARE, domain={x: sp.FiniteSet(0)}))
    survivors = [r for r in at_instance["mutants"] if r["verdict"] == "survived"]
    assert len(survivors) >= 3, at_instance
    # e.g. the cross term dropped: (x + 1)^2 = x^2 + 1 holds at x = 0
    assert any(r["label"].startswith("rhs:drop-term") for r in survivors)
    assert all(r["cause"] and r["diagnosis"] for r in survivors)

    widened = _record(Identity(**SQUARE, domain={x: sp.Interval(-2, 2)}))
    assert widened["counts"]["survived"] == 0, [r for r in widened["mutants"] if r["verdict"] == "survived"]
    assert widened["counts"]["killed"] >= len(survivors)
    assert widened["score"] == 1.0 and at_instance["score"] < 0.8
    # every killed mutant carries the counterexample that killed it
    killed = [r for r in widened["mutants"] if r["verdict"] == "killed"]
    assert all("point" in r["counterexample"] or r["counterexample"].get("type") for r in killed)


def test_an_equivalent_mutant_is_classified_equivalent_not_survived():
    claim = Identity(id="double", title="2x", ref="1", lhs=x * 2, rhs=2 * x, domain={x: sp.Interval(0, 1)})
    same = sp.Add(x, x, evaluate=False)  # x + x, written differently: no mistake at all
    assert same != claim.lhs
    m = Mutant("lhs:rewritten", "lhs: x*2 written x + x", claim.__class__(**{**_fields(claim), "lhs": same}),
               claim.lhs, same)
    assert classify(claim, m, SETTINGS)["verdict"] == "equivalent"
    # and a real mistake in the same place is killed, with its numbers
    wrong = Mutant("lhs:wrong", "lhs: 3x", claim.__class__(**{**_fields(claim), "lhs": 3 * x}), claim.lhs, 3 * x)
    row = classify(claim, wrong, SETTINGS)
    assert row["verdict"] == "killed" and row["counterexample"]["type"] == "values differ"


def test_an_objectives_variables_are_compared_on_its_feasible_set():
    """A maximiser's gradient has logs that are undefined off the simplex: drawn there, the
    numbers show a mistaken coefficient different (and sympy need not try), where variables
    drawn each in (0.1, 0.9) often left the sum of probabilities above 1."""
    from verify_claims.run.mutation import _compare, _forms
    p, q, b = sp.symbols("p q beta", positive=True)
    objective = p * sp.log(p) + q * sp.log(q) + (1 - p - q) * sp.log(1 - p - q) - b * p
    claim = Maximiser(id="simplex", title="an entropy-like objective", ref="1", objective=-objective, wrt=(p, q),
                      at={p: sp.exp(b) / (sp.exp(b) + 2), q: 1 / (sp.exp(b) + 2)},
                      over={p: sp.Interval.open(0, 1), q: sp.Interval.open(0, 1)}, over_where=(p + q < 1,),
                      domain={b: sp.Interval(sp.Rational(1, 2), 2)})
    wrong = -(objective.subs(b, 2 * b))
    m = Mutant("objective:const-double", "objective: beta doubled", claim.__class__(**{**_fields(claim), "objective": wrong}),
               claim.objective, wrong)
    assert _compare(claim, _forms(claim, m), SETTINGS) == "differs"
    same = Mutant("objective:plus-constant", "objective: a constant added", claim, claim.objective, claim.objective + b)
    assert _compare(claim, _forms(claim, same), SETTINGS) == "agrees"  # the gradient is the same


def test_a_negated_objective_is_found_by_sympy_and_other_mistakes_are_ruled_out_by_numbers(monkeypatch):
    """The stationary points do not see an objective's sign: a mutant that negates it is
    equivalent, also when only multiplying out shows it (a and b swapped in (x - 1)^2 (a -
    b)).  A mutant that is no negation is ruled out by the numbers, without multiplying out."""
    from verify_claims import Stationary
    from verify_claims.run.mutation import _compare, _forms, _sign_free
    a, b = sp.symbols("a b", positive=True)
    claim = Stationary(id="bowl", title="(x - 1)^2 (a - b) is stationary at 1", ref="1",
                       objective=(x - 1) ** 2 * (a - b), wrt=x, at={x: 1},
                       domain={x: sp.Interval(0, 2), a: sp.Interval(1, 2), b: sp.Interval(3, 4)})
    expanded = []
    real = sp.expand
    monkeypatch.setattr(sp, "expand", lambda e, *args, **kw: expanded.append(e) or real(e, *args, **kw))
    swapped = claim.objective.xreplace({a: b, b: a})
    assert swapped + claim.objective != 0  # sympy does not cancel it as it adds
    m = Mutant("objective:swap-a-b", "a and b swapped", claim.__class__(**{**_fields(claim), "objective": swapped}),
               claim.objective, swapped)
    pairs = _forms(claim, m)
    _compare(claim, pairs, SETTINGS)
    assert _sign_free(claim, m, pairs, SETTINGS) and expanded  # multiplied out, and 0
    expanded.clear()
    wrong = (x - 1) ** 2 * (a - 2 * b)
    m = Mutant("objective:const-double", "b doubled", claim.__class__(**{**_fields(claim), "objective": wrong}),
               claim.objective, wrong)
    pairs = _forms(claim, m)
    assert not _sign_free(claim, m, pairs, SETTINGS) and not expanded
    assert classify(claim, m, SETTINGS)["verdict"] != "equivalent"


def _fields(claim):
    from dataclasses import fields
    return {f.name: getattr(claim, f.name) for f in fields(claim) if f.init}


def test_a_true_weaker_statement_is_still_true_and_excluded_from_the_score():
    claim = Inequality(id="amgm", title="x(1-x) <= 1/4", ref="1", lhs=x * (1 - x), op="<=",
                       rhs=sp.Rational(1, 4), domain={x: sp.Interval(0, 1)})
    rec = _record(claim)
    rows = {r["label"]: r for r in rec["mutants"]}
    # 1/4 doubled to 1/2: a weaker bound, true, proved or certified -- not a mistake the gate can see
    assert rows["rhs:const-double@root"]["verdict"] == "still true", rows["rhs:const-double@root"]
    assert rows["rhs:const-double@root"]["still_true"] in ("proved", "certified")
    # 1/4 halved: false at x = 1/2, killed
    assert rows["rhs:const-halve@root"]["verdict"] == "killed"
    assert rows["op:reversed"]["verdict"] == "killed"
    c = rec["counts"]
    assert rec["score"] == c["killed"] / (c["killed"] + c["survived"])


def test_a_mutant_the_screen_misses_but_certification_refutes_is_killed():
    """The gate refutes a claim whose certification finds a confirmed counterexample that
    the random points missed ("the random spot-check missed it"): the mutation run counts
    such a mutant as killed, as the gate would, not as a survivor."""
    eps = sp.Rational(1, 10 ** 12)
    claim = Inequality(id="narrow", title="(x - 3/10)^2 + eps >= 0", ref="1", lhs=(x - sp.Rational(3, 10)) ** 2 + eps,
                       op=">=", rhs=0, domain={x: sp.Interval(0, 1)})
    wrong = (x - sp.Rational(3, 10)) ** 2 - eps  # false only within 1e-6 of x = 3/10
    m = Mutant("lhs:term-sign-1@1", "lhs: the sign of eps flipped", claim.__class__(**{**_fields(claim), "lhs": wrong}),
               claim.lhs, wrong)
    assert kind_of(m.claim).spot_check(m.claim, SETTINGS, __import__("random").Random(0), screen=True).verdict \
        == "consistent"  # the screen's points do not see it
    row = classify(claim, m, SETTINGS)
    assert row["verdict"] == "killed" and row["killed_by"] == "certification", row
    cx = row["counterexample"]
    assert cx["type"] == "inequality violated" and abs(float(cx["point"]["x"]) - 0.3) < 1e-6, cx
    # the negative: the same mistake with the sign that keeps the claim true is not killed
    right = (x - sp.Rational(3, 10)) ** 2 + 2 * eps
    ok = Mutant("lhs:const-double@1", "lhs: eps doubled", claim.__class__(**{**_fields(claim), "lhs": right}),
                claim.lhs, right)
    row = classify(claim, ok, SETTINGS)
    assert row["verdict"] == "still true" and "killed_by" not in row, row


def test_kind_mistakes_are_generated_and_killed():
    """A reversed monotonicity, the other root of a quadratic, a maximiser moved off its
    place: each is a mutant of its kind, and the screen refutes it."""
    mono = Monotonic(id="exp-up", title="exp increasing", ref="1", expr=sp.exp(x), var=x,
                     domain={x: sp.Interval(0, 1)})
    root = Root(id="golden", title="x^2 = x + 1", ref="1", equation=x ** 2 - x - 1, var=x,
                value=(1 + sp.sqrt(5)) / 2, interval=sp.Interval(1, 2), domain={})
    peak = Maximiser(id="peak", title="-(x - y)^2 peaks at y", ref="1", objective=-(x - y) ** 2, wrt=(x,),
                     at={x: y}, over={x: sp.Interval(0, 1)}, domain={y: sp.Interval.open(0, 1)})
    for claim, label in ((mono, "direction:reversed"), (root, "value:other-root"), (peak, "at[x]:nearby-up-10pc")):
        rows = {r["label"]: r for r in _record(claim)["mutants"]}
        assert label in rows, sorted(rows)
        assert rows[label]["verdict"] == "killed", rows[label]
        assert rows[label]["counterexample"]["type"] != "error", rows[label]


def test_mutants_are_deterministic_under_the_seed_and_few_per_claim():
    claim = Identity(id="poly", title="p", ref="1", lhs=(x + y) ** 3,
                     rhs=x ** 3 + 3 * x ** 2 * y + 3 * x * y ** 2 + y ** 3,
                     domain={x: sp.Interval(0, 1), y: sp.Interval(0, 1)})
    a = [m.label for m in claim_mutants(claim, 1)]
    assert a == [m.label for m in claim_mutants(claim, 1)]
    assert a != [m.label for m in claim_mutants(claim, 2)]
    assert 10 <= len(a) <= 24 and len(set(a)) == len(a)
    # symbols of the same domain swapped is one of the mistakes
    assert any(lbl.endswith("swap-x-y") for m in [claim] for lbl in
               [c.label for c in kind_of(m).mutants(m)])


def test_summary_scores_match_the_counts():
    recs = {"a": {"counts": {"killed": 9, "equivalent": 1, "still true": 2, "survived": 1}, "mutants": []},
            "b": {"counts": {"killed": 3, "equivalent": 0, "still true": 0, "survived": 3}, "mutants": []}}
    s = summarise(recs, {"a": "m1.py", "b": "m2.py"}, min_score=80)
    assert s["counts"] == {"killed": 12, "equivalent": 1, "still true": 2, "survived": 4}
    assert s["score"] == round(12 / 16, 4) and s["strict_score"] == round(12 / 18, 4)
    assert s["modules"]["m2.py"]["score"] == 0.5
    assert s["gate"] == {"min_score": 80, "passed": False}


INSTANCE_MODULE = '''
    """A claim checked at one instance (weak) and the same claim on an interval."""
    import sympy as sp
    from verify_claims import Identity
    x = sp.Symbol("x")
    CLAIMS = [
        Identity(id="square-at-zero", title="(x + 1)^2 at x = 0", ref="1", lhs=(x + 1) ** 2,
                 rhs=x ** 2 + 2 * x + 1, domain={x: sp.FiniteSet(0)},
                 harmless_mutants={"rhs:drop-term-*": "only x = 0 is claimed"}),
        Identity(id="square-everywhere", title="(x + 1)^2", ref="1", lhs=(x + 1) ** 2,
                 rhs=x ** 2 + 2 * x + 1, domain={x: sp.Interval(-2, 2)}),
    ]
'''


def _write(tmp_path, text) -> Path:
    d = tmp_path / "derivations"
    d.mkdir(exist_ok=True)
    (d / "s1_instances.py").write_text(textwrap.dedent(text))
    return d


def _run(tmp_path, d, *extra):
    out = tmp_path / "out"
    code = main(["--derivations", str(d), "--report-dir", str(out), "--jobs", "2", "--no-latex", *extra])
    return code, json.loads((out / "claims.json").read_text()), out


def test_cli_mutate_writes_the_score_the_survivors_and_the_gate(tmp_path, capsys):
    d = _write(tmp_path, INSTANCE_MODULE)
    code, report, out = _run(tmp_path, d, "--mutate")
    assert code == ExitCode.OK
    m = report["mutation"]
    per_claim = {c["id"]: c["mutation"] for c in report["claims"]}
    # the run's counts are the sum of the claims' counts, and the score is killed / (killed + survived)
    for k in ("killed", "equivalent", "still true", "survived"):
        assert m["counts"][k] == sum(r["counts"][k] for r in per_claim.values())
    assert m["score"] == round(m["counts"]["killed"] / (m["counts"]["killed"] + m["counts"]["survived"]), 4)
    assert per_claim["square-everywhere"]["counts"]["survived"] == 0
    assert m["survivors"] and {s["id"] for s in m["survivors"]} == {"square-at-zero"}
    assert len(m["survivors"]) == per_claim["square-at-zero"]["counts"]["survived"]
    # the claim's own reason (a pattern of labels) is attached to the mutants it names
    dropped = [s for s in m["survivors"] if s["label"].startswith("rhs:drop-term")]
    assert dropped and all(s["harmless"] == "only x = 0 is claimed" for s in dropped)
    printed = capsys.readouterr().out
    assert "mutation score:" in printed and "square-at-zero: " in printed and " survived" in printed
    html = (out / "report.html").read_text()
    assert 'id="mutation"' in html and "Surviving mutants" in html and "only x = 0 is claimed" in html

    # the gate: the same run below a minimum score fails (exit 1), and says so; from the store
    capsys.readouterr()
    code, report, _ = _run(tmp_path, d, "--min-mutation-score", "99")
    assert code == ExitCode.FAILED and report["run"]["exit_code"] == ExitCode.FAILED
    assert report["mutation"]["gate"] == {"min_score": 99.0, "passed": False}
    assert "mutation gate FAILED" in capsys.readouterr().out
    code, report, _ = _run(tmp_path, d, "--min-mutation-score", "10%")
    assert code == ExitCode.OK and report["mutation"]["gate"]["passed"] is True


NARROW_MODULE = '''
    """A claim whose sign-flipped constant is false only within 1e-6 of x = 3/10."""
    import sympy as sp
    from verify_claims import Inequality
    x = sp.Symbol("x")
    CLAIMS = [Inequality(id="narrow", title="(x - 3/10)^2 + 1e-12 >= 0", ref="1",
                         lhs=(x - sp.Rational(3, 10)) ** 2 + sp.Rational(1, 10 ** 12), op=">=", rhs=0,
                         domain={x: sp.Interval(0, 1)})]
'''


def test_cli_reports_a_mutant_killed_by_certification(tmp_path):
    d = _write(tmp_path, NARROW_MODULE)
    code, report, out = _run(tmp_path, d, "--mutate")
    assert code == ExitCode.OK
    rows = {r["label"]: r for r in report["claims"][0]["mutation"]["mutants"]}
    flipped = [r for label, r in rows.items() if label.startswith("lhs:term-sign-")
               and "1/1000000000000" in r["mistake"]]
    assert flipped and flipped[0]["verdict"] == "killed" and flipped[0]["killed_by"] == "certification", rows
    assert not any(r.get("killed_by") for r in rows.values() if r["verdict"] != "killed")
    assert "killed (by certification)" in (out / "report.html").read_text()


def test_without_mutate_there_is_no_mutation_record(tmp_path):
    d = _write(tmp_path, INSTANCE_MODULE)
    code, report, out = _run(tmp_path, d)
    assert code == ExitCode.OK and "mutation" not in report
    assert all("mutation" not in c for c in report["claims"])
    assert 'id="mutation"' not in (out / "report.html").read_text()


def test_min_mutation_score_is_a_percentage(capsys):
    assert main(["--min-mutation-score", "120", "--list"]) == ExitCode.USAGE
    assert "percentage" in capsys.readouterr().err


def test_simple_points_test_a_convention_at_a_tie_that_random_points_never_hit():
    """Found by the mutation run: sign(d) with the convention sign(0) = 0 passed a mutant
    with the tie value 1, since no random real is exactly 0.  Simple points (0, 1, 1/2, ...)
    now kill it, with the tie as the counterexample."""
    d = sp.Symbol("d", real=True)
    claim = Identity(id="sign-with-tie", title="sign", ref="1", lhs=sp.Piecewise((0, sp.Eq(d, 0)), (d / sp.Abs(d), True)),
                     rhs=sp.sign(d), domain={d: sp.Interval(-sp.oo, sp.oo)})
    tie = sp.Piecewise((1, sp.Eq(d, 0)), (d / sp.Abs(d), True))
    m = Mutant("lhs:tie", "lhs: the tie value 0 changed to 1", claim.__class__(**{**_fields(claim), "lhs": tie}),
               claim.lhs, tie)
    row = classify(claim, m, SETTINGS)
    assert row["verdict"] == "killed", row
    assert float(row["counterexample"]["point"]["d"]) == 0.0


def test_a_term_the_derivative_does_not_see_is_equivalent_for_a_monotonicity_but_a_jump_is_not():
    """Monotonic in t depends on expr only through d/dt: adding a term free of t says the
    same thing.  A Piecewise step is not smooth: its derivative would hide the jump."""
    t, b = sp.symbols("t b")
    claim = Monotonic(id="mono", title="increasing", ref="1", expr=t ** 3 + b, var=t,
                      domain={t: sp.Interval(0, 1), b: sp.Interval(1, 2)})
    shifted = t ** 3 + 2 * b
    m = Mutant("expr:const-double@1", "expr: b doubled", claim.__class__(**{**_fields(claim), "expr": shifted}),
               claim.expr, shifted)
    assert classify(claim, m, SETTINGS)["verdict"] == "equivalent"

    step = sp.Piecewise((t, t < sp.Rational(1, 2)), (t + 1, True))
    jumpy = Monotonic(id="jumpy", title="increasing with a jump up", ref="1", expr=step, var=t,
                      domain={t: sp.Interval(0, 1)})
    down = sp.Piecewise((t, t < sp.Rational(1, 2)), (t - 1, True))  # same derivative, a jump down
    m = Mutant("expr:const-negate", "expr: the jump reversed", jumpy.__class__(**{**_fields(jumpy), "expr": down}),
               jumpy.expr, down)
    assert kind_of(jumpy).equivalence_forms(jumpy, "expr", step) == [step]  # compared as it is, not by d/dt
    assert classify(jumpy, m, SETTINGS)["verdict"] == "killed"


def test_a_negated_equation_states_the_same_roots_but_a_negated_maximiser_objective_does_not():
    root = Root(id="golden", title="x^2 = x + 1", ref="1", equation=x ** 2 - x - 1, var=x,
                value=(1 + sp.sqrt(5)) / 2, interval=sp.Interval(1, 2), domain={})
    rows = {r["label"]: r for r in _record(root)["mutants"]}
    assert rows["equation:negate@root"]["verdict"] == "equivalent"
    peak = Maximiser(id="peak", title="-(x - y)^2 peaks at y", ref="1", objective=-(x - y) ** 2, wrt=(x,),
                     at={x: y}, over={x: sp.Interval(0, 1)}, domain={y: sp.Interval.open(0, 1)})
    rows = {r["label"]: r for r in _record(peak)["mutants"]}
    assert rows["objective:negate@root"]["verdict"] == "killed"


def test_a_claim_that_does_not_pass_its_own_screen_is_not_mutated():
    """Otherwise every mutant would be 'killed' by the claim's own error."""
    broken = Root(id="broken", title="x in its own domain", ref="1", equation=x ** 2 - x - 1, var=x,
                  value=(1 + sp.sqrt(5)) / 2, domain={x: sp.Interval(1, 2)})  # var declared as a parameter
    res = mutate_claim(broken, SETTINGS)
    assert "mutation" not in res.evidence and "does not pass its own screen" in res.message


def test_a_claim_the_run_established_is_not_screened_again(monkeypatch):
    # the run passes the claim's status: established by this run, so it passed this screen
    from verify_claims.run import mutation as run_mutation
    screened = []
    own = run_mutation._own_screen
    monkeypatch.setattr(run_mutation, "_own_screen", lambda c, s: screened.append(c.id) or own(c, s))
    bound = Inequality(id="bound", title="x(1 - x) <= 1/4", ref="1", lhs=x * (1 - x), op="<=",
                       rhs=sp.Rational(1, 4), domain={x: sp.Interval(0, 1)})
    with_status = mutate_claim(bound, SETTINGS, {"status": "certified"}).evidence["mutation"]
    assert screened == []
    assert _record(bound)["counts"] == with_status["counts"] and screened == ["bound"]


def test_a_mutant_the_numbers_cannot_decide_is_killed_as_undecided():
    """Found by the mutation run: x* = 1/2 + sqrt(1 - 1/(1 + b^2))/2 with the 1 dropped is complex;
    no point is decided, and the gate would report the claim undecided (exit 1)."""
    b = sp.Symbol("beta")
    peak = Maximiser(id="peak", title="-(x - 1/2)^2 peaks at 1/2", ref="1", objective=-(x - sp.Rational(1, 2)) ** 2,
                     wrt=(x,), at={x: sp.Rational(1, 2) + 0 * b}, over={x: sp.Interval.open(0, 1)},
                     domain={b: sp.Interval.open(0, sp.oo)})
    gone = sp.sqrt(-1 / (b ** 2 + 1)) / 2 + sp.Rational(1, 2)
    m = Mutant("at[x]:complex", "at[x]: a complex point", peak.__class__(**{**_fields(peak), "at": {x: gone}}),
               peak.at[x], gone)
    row = classify(peak, m, SETTINGS)
    assert row["verdict"] == "killed" and row["counterexample"]["type"] == "undecided", row


def test_update_docs_writes_the_mutation_block(tmp_path):
    d = _write(tmp_path, INSTANCE_MODULE)
    from verify_claims.report.inventory import begin_marker, end_marker
    (tmp_path / "README.md").write_text(f"# x\n\n{begin_marker('mutation')}\nSTALE-BLOCK\n{end_marker('mutation')}\n")
    code, report, _ = _run(tmp_path, d, "--mutate", "--update-docs")
    assert code == ExitCode.OK
    text = (tmp_path / "README.md").read_text()
    assert "STALE-BLOCK" not in text and "Mutation score **" in text and "`square-at-zero`" in text
    assert "only x = 0 is claimed" in text
    # a run without --mutate leaves the block as it is
    code, _, _ = _run(tmp_path, d, "--update-docs")
    assert (tmp_path / "README.md").read_text() == text


def test_a_complex_residue_of_a_cancellation_is_marked_near_real():
    """Simple points (ref = 1/4, 1/2) beside an extreme reward made 1 - pi_a - pi_b, a
    probability of 1e-194, come out -2e-52 in the example's Gibbs maximiser: a complex
    objective with an imaginary part 1e-52 of its real part.  That is rounding, not
    undefinedness (more digits, or unresolved); sqrt(-1) is undefined."""
    import mpmath
    from verify_claims.backends.evaluate import Undefined, real_value
    for value, near in ((mpmath.mpc(0.51, 6.9e-52), True), (mpmath.mpc(0.5, 0.3), False),
                        (mpmath.mpc(0, 1), False)):
        with mpmath.workdps(140):  # the precision of the retry where the example failed
            try:
                real_value(value, "f")
            except Undefined as exc:
                assert exc.near_real is near
            else:
                raise AssertionError(f"{value} taken as real")


def test_diff_shows_the_mutation_score_and_the_survivors_that_came_or_went(tmp_path):
    from verify_claims.report.diff import compare, render_markdown, render_text
    d = _write(tmp_path, INSTANCE_MODULE)
    _, weak, _ = _run(tmp_path, d, "--mutate")
    (d / "s1_instances.py").write_text(textwrap.dedent(INSTANCE_MODULE).replace("sp.FiniteSet(0)", "sp.Interval(-2, 2)"))
    _, widened, _ = _run(tmp_path, d, "--mutate")
    assert widened["mutation"]["unused_reasons"] == [["square-at-zero", "rhs:drop-term-*"]]
    assert weak["mutation"]["unused_reasons"] == []
    diff = compare(weak, widened)
    assert not diff.survivors_new and {v.id for v in diff.survivors_gone} == {"square-at-zero"}
    assert len(diff.survivors_gone) == weak["mutation"]["counts"]["survived"]
    assert any(f.name == "mutation score" and f.new == "100.0%" for f in diff.settings)
    text = render_text(diff)
    assert "Mutants no longer surviving" in text and "SURVIVOR-" in text and "mutation score" in text
    assert not diff.regressions  # the gate's sensitivity is reported, its threshold is --min-mutation-score
    back = compare(widened, weak)
    assert len(back.survivors_new) == len(diff.survivors_gone)
    assert "New surviving mutants" in render_markdown(back)


def test_a_hostile_reason_is_escaped_in_html_and_compiles_in_latex(tmp_path, capsys):
    d = _write(tmp_path, INSTANCE_MODULE.replace('"only x = 0 is claimed"',
                                                 '"<script>alert(1)</script> 100% $x$ #1 _a_ {b} \\\\textbf{c} ~^ \\x1b[31mred"'))
    out = tmp_path / "out"
    code = main(["--derivations", str(d), "--report-dir", str(out), "--jobs", "1", "--mutate"])
    assert code == ExitCode.OK, capsys.readouterr().out
    html = (out / "report.html").read_text()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)" in html
    assert (out / "report.pdf").is_file() or "pdflatex" not in capsys.readouterr().err
    assert "\x1b[31m" not in capsys.readouterr().out


def test_a_claims_mutants_share_what_the_sign_analysis_worked_out(monkeypatch):
    # a claim's mutants are its formulas with one node changed, analysed under the same
    # slacks: within facts_shared() a sign asked about once is not worked out again
    from verify_claims.backends import symbolic
    from verify_claims.run import mutation as run_mutation
    worked_out = []
    plain = symbolic.Facts._is_positive
    monkeypatch.setattr(symbolic.Facts, "_is_positive",
                        lambda self, e, depth: worked_out.append(e) or plain(self, e, depth))
    p1, p2 = sp.symbols("p1 p2", positive=True)
    slack = 1 - p1 - p2
    with symbolic.facts_shared():
        assert symbolic.Facts([slack]).is_positive(slack * (2 + p1))
        n = len(worked_out)
        assert symbolic.Facts([slack]).is_positive(slack * (2 + p1)) and len(worked_out) == n
        symbolic.Facts([1 - p1]).is_positive(slack * (2 + p1))  # other slacks: worked out again
        assert len(worked_out) > n
    n = len(worked_out)
    assert symbolic.Facts([slack]).is_positive(slack * (2 + p1)) and len(worked_out) > n  # outside: its own
    # and mutate_claim classifies every mutant within it
    inside = []
    classify_ = run_mutation.classify
    monkeypatch.setattr(run_mutation, "classify",
                        lambda *a, **k: inside.append(symbolic._SHARED_MEMOS is not None) or classify_(*a, **k))
    _record(Inequality(id="bound", title="x(1 - x) <= 1/4", ref="1", lhs=x * (1 - x), op="<=",
                       rhs=sp.Rational(1, 4), domain={x: sp.Interval(0, 1)}))
    assert inside and all(inside)
    assert symbolic._SHARED_MEMOS is None


def _clip_band():
    """PPO's clip is x inside its band: an identity the prover proves case by case."""
    eps = sp.Symbol("epsilon")
    return Identity(id="clip-inside-band", title="clip is x inside its band", ref="1",
                    lhs=sp.Min(1 + eps, sp.Max(x, 1 - eps)), rhs=x,
                    domain={x: sp.Interval(0, 2), eps: sp.Interval.open(0, sp.Rational(1, 2))},
                    where=(x >= 1 - eps, x <= 1 + eps))


def test_a_proved_mutant_of_a_proved_identity_is_equivalent(tmp_path):
    # inside the band both sides are x; a mutant moving the clip's upper end (1 + eps ->
    # 2 + eps) changes nothing there, which sympy's attempt at lhs' - lhs does not show but
    # the identity's prover (case by case) does: lhs' = x = lhs on the domain
    band, eps = _clip_band(), sp.Symbol("epsilon")
    wider = sp.Min(2 + eps, sp.Max(x, 1 - eps))
    m = Mutant("lhs:const-plus-one@0.0", "lhs: 1 -> 2", band.__class__(**{**_fields(band), "lhs": wider}),
               band.lhs, wider)
    # the claim only checked: its proof is not there to compare with, the mutant is still true
    assert classify(band, m, SETTINGS)["verdict"] == "still true"
    row = classify(band, m, SETTINGS, claim_proved=True)
    assert row["verdict"] == "equivalent" and row["equivalent_by"], row
    # a real mistake is still killed, and is never "equivalent by proof"
    wrong = sp.Min(1 + eps, sp.Max(x, 2 - eps))
    bad = Mutant("lhs:const-plus-one@1.1", "lhs: 1 -> 2", band.__class__(**{**_fields(band), "lhs": wrong}),
                 band.lhs, wrong)
    assert classify(band, bad, SETTINGS, claim_proved=True)["verdict"] == "killed"
    # and mutate_claim says so for a claim the run proved
    rec = mutate_claim(band, SETTINGS, {"status": "proved"}).evidence["mutation"]
    by_proof = [r for r in rec["mutants"] if r.get("equivalent_by")]
    assert by_proof and all(r["verdict"] == "equivalent" for r in by_proof)
    assert not any(r.get("equivalent_by") for r in _record(band)["mutants"])  # status not known


def test_a_counterexample_from_the_proof_first_attempt_is_not_dropped(monkeypatch):
    # the attempt made first for an identity the run proved (_proved_equivalent) can come
    # back with a counterexample that certification found and confirmed; the gate refutes
    # such a mutant, so it is killed, even where sympy's attempt at lhs' - lhs says equivalent
    band = _clip_band()
    same = Mutant("lhs:rewritten@0", "lhs: rewritten", band.__class__(**_fields(band)), band.lhs, band.lhs)
    from verify_claims.run import mutation as run_mutation
    cx = {"type": "refuted by certification", "method": "interval", "point": "x = 1"}
    monkeypatch.setattr(run_mutation, "_still_true", lambda m, settings, screen: ("", cx))
    row = classify(band, same, SETTINGS, claim_proved=True)
    assert row["verdict"] == "killed" and row["killed_by"] == "certification", row
    assert row["counterexample"]["type"] == "refuted by certification"
    # without the counterexample, sympy's attempt decides as before
    monkeypatch.setattr(run_mutation, "_still_true", lambda m, settings, screen: ("", None))
    assert classify(band, same, SETTINGS, claim_proved=True)["verdict"] == "equivalent"


CLIP_MODULE = '''
    """PPO's clip is x inside its band."""
    import sympy as sp
    from verify_claims import Identity
    x, eps = sp.symbols("x epsilon")
    CLAIMS = [Identity(id="clip-inside-band", title="clip is x inside its band", ref="1",
                       lhs=sp.Min(1 + eps, sp.Max(x, 1 - eps)), rhs=x,
                       domain={x: sp.Interval(0, 2), eps: sp.Interval.open(0, sp.Rational(1, 2))},
                       where=(x >= 1 - eps, x <= 1 + eps))]
'''


def test_cli_reports_a_mutant_shown_equivalent_by_proof(tmp_path):
    d = _write(tmp_path, CLIP_MODULE)
    code, report, out = _run(tmp_path, d, "--mutate")
    assert code == ExitCode.OK and report["claims"][0]["status"] == "proved"
    rows = report["claims"][0]["mutation"]["mutants"]
    assert any(r.get("equivalent_by") for r in rows), rows
    assert all(r["verdict"] == "equivalent" for r in rows if r.get("equivalent_by"))
    assert "equivalent (by proof)" in (out / "report.html").read_text()
