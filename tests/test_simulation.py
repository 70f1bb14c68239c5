"""The Simulation claim kind and the simulated status (kinds/simulation.py), and the GRPO
simulator of grpo_formulas.dynamics it is used with.

Small runs throughout (10 to 40 runs of a few hundred steps): every simulation here takes
well under a second of CPU.  A simulation compared with the wrong closed form must be
refuted, with the numbers; the same seed must give the same numbers."""

from __future__ import annotations

import json
import math

import pytest

from grpo_formulas import dynamics
from grpo_formulas.dynamics import closed_form_14, closed_form_15, settled, target_14, target_15, target_x_g, x_g
from verify_claims import DeclarationError, Identity, Ref, Settings, Simulation, Status, Summary, verify
from verify_claims.cli import main
from verify_claims.kinds.simulation import simulation_seed, t_interval, t_quantile
from verify_claims.kinds.summary import verify_summary
from verify_claims.report.inventory import render_inventory
from verify_claims.run.fingerprint import function_fingerprint, function_sources
from verify_claims.run.keys import declaration_key

REF = Ref("Beyond the paper: GRPO dynamics")
# a binary question, groups of two: (14) = 0.65311 at beta = 1/2, pi_ref(a) = 1/5
G2 = dict(rewards=[1.0, 0.0], ref=[0.2, 0.8], beta=0.5, G=2, steps=400, lr=0.5, groups=4, refresh=4, eps=0.2)
G32 = dict(G2, G=32, groups=1, steps=600, lr=0.25)


def sim(target, params=G2, runs=12, tolerance=0.01, **kw):
    return Simulation(id=kw.pop("id", "sim-claim"), title="a simulation", ref=REF, run=kw.pop("run", settled),
                      params=params, target=target, runs=runs, tolerance=tolerance, describe="a few hundred steps",
                      **kw)


# ------------------------------------------------------------------ wrong closed forms (module level:
# a target must be a module-level function)

def x_g_at_g8(*, ref, beta, **_):
    """x_G at G = 8, whatever G the simulation uses (the wrong group size for G = 2)."""
    return x_g(8, beta, ref[0])


def closed_form_14_sign_flipped(*, ref, beta, **_):
    """(14) with the square root's sign flipped: (1 - c - sqrt((1 - c)^2 + 4 c ref))/2."""
    c = beta
    return 0.5 * (1 - c - math.sqrt((1 - c) ** 2 + 4 * c * ref[0]))


def raising_run(seed, runs, **params):
    raise ZeroDivisionError("the run function's own bug")


def short_run(seed, runs, **params):
    return [0.5] * (runs - 1)


# ------------------------------------------------------------------ the statistics

def test_t_quantile_matches_tables():
    assert t_quantile(0.975, 10) == pytest.approx(2.228139, abs=1e-5)
    assert t_quantile(0.995, 99) == pytest.approx(2.626405, abs=1e-5)
    assert t_quantile(0.995, 4) == pytest.approx(4.604095, abs=1e-5)


def _t_quantile_by_200_halvings(p, df):
    """The bisection t_quantile ran before it stopped early: 200 halvings, then the float."""
    import mpmath as mp
    with mp.workdps(30):
        v = mp.mpf(df)

        def cdf(t):
            return 1 - mp.betainc(v / 2, mp.mpf(1) / 2, 0, v / (v + t * t), regularized=True) / 2
        lo, hi = mp.mpf(0), mp.mpf(1)
        while cdf(hi) < p:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
        return float((lo + hi) / 2)


@pytest.mark.parametrize("p, df", [(0.995, 99), (0.995, 19), (0.975, 3), (0.9, 1), (0.999, 500)])
def test_t_quantile_stops_early_with_the_same_float(p, df, monkeypatch):
    import mpmath
    reference = _t_quantile_by_200_halvings(p, df)
    calls = []
    real = mpmath.betainc
    monkeypatch.setattr(mpmath, "betainc", lambda *a, **k: calls.append(1) or real(*a, **k))
    t_quantile.cache_clear()
    assert t_quantile(p, df) == reference  # the same float, not just close
    assert len(calls) < 100  # stopped once both ends round to one float (200 halvings before)
    calls.clear()
    assert t_quantile(p, df) == reference and not calls  # remembered: no CDF evaluated again


def test_t_interval_is_mean_plus_minus_t_se():
    ci = t_interval([1.0, 2.0, 3.0, 4.0], 0.95)
    assert ci["mean"] == 2.5 and ci["sd"] == pytest.approx(math.sqrt(5 / 3))
    half = t_quantile(0.975, 3) * math.sqrt(5 / 3) / 2
    assert (ci["lo"], ci["hi"]) == pytest.approx((2.5 - half, 2.5 + half))


# ------------------------------------------------------------------ the simulator

def test_simulator_is_deterministic_under_the_seed():
    a, b, c = settled(7, 6, **G2), settled(7, 6, **G2), settled(8, 6, **G2)
    assert list(a) == list(b)
    assert list(a) != list(c)
    assert len(set(a)) == 6  # the runs differ from each other


@pytest.mark.parametrize("spread", [0.05, 1.5])  # pi_old near pi (clip inactive) and far (clip binding)
def test_gradient_is_the_exact_gradient_of_the_sampled_objective(spread):
    import numpy as np
    rng = np.random.default_rng(3)
    runs, K, groups, G = 6, 3, 2, 4
    theta = rng.normal(size=(runs, K))
    old = dynamics.softmax(theta + spread * rng.normal(size=(runs, K)))
    idx = rng.integers(0, K, size=(runs, groups, G))
    args = ([1.0, 0.5, 0.0], [0.2, 0.3, 0.5], 0.7, 0.2)
    grad = dynamics.sampled_gradient(theta, old, idx, *args)
    h, fd = 1e-6, np.zeros_like(theta)
    for k in range(K):
        e = np.zeros(K)
        e[k] = h
        fd[:, k] = (dynamics.sampled_objective(theta + e, old, idx, *args)
                    - dynamics.sampled_objective(theta - e, old, idx, *args)) / (2 * h)
    assert np.abs(grad - fd).max() < 1e-7
    if spread > 1:  # the clip binds somewhere, so the test covers the clipped branch too
        pi = dynamics.softmax(theta)
        rho = np.take_along_axis(pi, idx.reshape(runs, -1), 1) / np.take_along_axis(old, idx.reshape(runs, -1), 1)
        assert ((rho > 1.2) | (rho < 0.8)).any()


def test_x_g_at_g2_is_the_closed_form_14():
    for beta, ref in ((0.5, 0.2), (1.0, 0.1), (2.0, 0.7)):
        assert x_g(2, beta, ref) == pytest.approx(closed_form_14(beta, ref), abs=1e-12)


def test_x_g_tends_to_15_from_below():
    gaps = [closed_form_15(0.5, 0.2) - x_g(G, 0.5, 0.2) for G in (8, 32, 128)]
    assert all(g > 0 for g in gaps) and gaps[0] > gaps[1] > gaps[2]


def test_stationary_g2_solves_eq_12():
    rewards, ref, beta = [1.0, 0.5, 0.0], [0.2, 0.3, 0.5], 1.0
    p = [dynamics.stationary_g2(rewards, ref, beta, k) for k in range(3)]
    assert sum(p) == pytest.approx(1.0, abs=1e-12)
    for k in range(3):
        pg = sum(p[j] * ((rewards[k] > rewards[j]) - (rewards[k] < rewards[j])) for j in range(3))
        assert (1 - pg / beta) * p[k] == pytest.approx(ref[k], abs=1e-12)


# ------------------------------------------------------------------ the kind: verdicts

def test_agrees_with_the_right_closed_form():
    res = verify(sim(target_14), Settings())
    assert res.status is Status.SIMULATED and res.as_expected
    ev = res.evidence["simulation"]
    assert ev["runs"] == 12 and ev["ci_low"] - 0.01 <= ev["target"] <= ev["ci_high"] + 0.01
    assert ev["target"] == pytest.approx(closed_form_14(0.5, 0.2))
    assert "t-interval" in ev["interval"] and "12 runs" in res.message


@pytest.mark.parametrize("target, why", [
    (target_15, "(15), the large-group limit, at G = 2"),
    (x_g_at_g8, "x_G at the wrong group size"),
    (closed_form_14_sign_flipped, "(14) with the root's sign flipped"),
    (0.7, "a wrong constant"),
])
def test_disagrees_with_a_wrong_closed_form(target, why):
    res = verify(sim(target), Settings())
    assert res.status is Status.REFUTED, why
    assert not res.as_expected
    cx = res.counterexample
    assert cx["runs"] == 12 and set(cx) >= {"mean", "interval", "target", "tolerance", "widened", "outside_by"}
    assert float(cx["outside_by"]) > 0
    lo, hi = (float(v) for v in cx["widened"].strip("[]").split(","))
    t = float(cx["target"])
    assert t < lo or t > hi
    assert "outside" in res.message and "12 runs" in res.message and "a few hundred steps" in res.message


def test_large_g_separates_x_g_from_15():
    """At G = 32, (15) is 0.008 above x_32: a tight tolerance refutes (15) and keeps x_G."""
    right = verify(sim(target_x_g, params=G32, runs=16, tolerance=0.002), Settings())
    wrong = verify(sim(target_15, params=G32, runs=16, tolerance=0.002), Settings())
    assert right.status is Status.SIMULATED
    assert wrong.status is Status.REFUTED and float(wrong.counterexample["outside_by"]) > 0.003


def test_deterministic_under_the_master_seed():
    c = sim(target_14)
    a, b = verify(c, Settings(seed=1)), verify(c, Settings(seed=1))
    other = verify(c, Settings(seed=2))
    assert a.evidence["simulation"]["mean"] == b.evidence["simulation"]["mean"]
    assert a.evidence["simulation"]["seed"] == simulation_seed(1, "sim-claim")
    assert other.evidence["simulation"]["mean"] != a.evidence["simulation"]["mean"]
    # the claim id is part of the seed, so two claims with the same run do not share numbers
    assert simulation_seed(1, "sim-claim") != simulation_seed(1, "another-claim")


def test_never_proved_or_certified_even_when_exact():
    """A run function that returns the target exactly is still only simulated."""
    res = verify(sim(0.5, run=constant_half, tolerance=0.0), Settings())
    assert res.status is Status.SIMULATED


def constant_half(seed, runs, **params):
    return [0.5] * runs


def test_expected_refutation_that_agrees_fails():
    from verify_claims import refuted
    res = verify(sim(target_14, expect=refuted("not really")), Settings())
    assert res.status is Status.SIMULATED and not res.as_expected


def test_a_run_function_that_raises_is_an_error_naming_claim_and_module():
    res = verify(sim(0.5, run=raising_run, id="broken-sim"), Settings())
    assert res.status is Status.ERROR
    assert "broken-sim" in res.message and __name__ in res.message and "raising_run" in res.message
    assert "ZeroDivisionError" in res.message and "the run function's own bug" in res.message


def test_a_run_function_with_too_few_estimates_is_an_error():
    res = verify(sim(0.5, run=short_run), Settings())
    assert res.status is Status.ERROR and "returned 11 estimates for runs=12" in res.message


@pytest.mark.parametrize("bad, msg", [
    (dict(run=lambda seed, runs: [0.0] * runs), "module-level function"),
    (dict(runs=1), "runs must be an integer >= 2"),
    (dict(confidence=1.0), "confidence"),
    (dict(tolerance=-0.1), "tolerance"),
    (dict(params={"seed": 3}), "params"),
    (dict(params={"ref": __import__("numpy").array([0.2, 0.8])}), "tolist"),
])
def test_declaration_errors(bad, msg):
    kw = dict(target=0.5, **bad)
    with pytest.raises(DeclarationError, match=msg):
        sim(**kw).validate()


# ------------------------------------------------------------------ summaries

def test_a_summary_over_a_simulated_claim_is_not_stronger_than_it():
    proved = verify(Identity(id="one-is-one", title="1 = 1", ref=REF, lhs=1, rhs=1), Settings())
    simulated = verify(sim(target_14), Settings())
    assert proved.status is Status.PROVED and simulated.status is Status.SIMULATED
    summary = Summary(id="sum", title="both", ref=REF, uses=("one-is-one", "sim-claim"))
    res = verify_summary(summary, {"one-is-one": proved, "sim-claim": simulated})
    assert res.status is Status.SIMULATED and res.as_expected
    only_proved = verify_summary(Summary(id="s2", title="t", ref=REF, uses=("one-is-one",)), {"one-is-one": proved})
    assert only_proved.status is Status.PROVED
    assert Status.SIMULATED.strength > Status.CHECKED.strength > Status.PROVED.strength


# ------------------------------------------------------------------ keys: the function's source

def test_store_key_changes_with_the_run_function_source(tmp_path, monkeypatch):
    pkg = tmp_path / "simpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("def scale():\n    return 1.0\n")
    (pkg / "runs.py").write_text("from .helpers import scale\n\n"
                                 "def run(seed, runs, **params):\n    return [scale() * 0.5] * runs\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    runs_mod = importlib.import_module("simpkg.runs")
    assert {p.name for p in function_sources(runs_mod.run)} == {"__init__.py", "helpers.py", "runs.py"}
    claim = sim(0.5, run=runs_mod.run)
    k0, f0 = declaration_key(claim), function_fingerprint(runs_mod.run)
    assert declaration_key(claim) == k0  # stable (no memory address in the key)
    (pkg / "helpers.py").write_text("def scale():\n    return 2.0\n")  # a helper the run calls
    assert function_fingerprint(runs_mod.run) != f0 and declaration_key(claim) != k0
    k1 = declaration_key(claim)
    (pkg / "runs.py").write_text((pkg / "runs.py").read_text().replace("0.5", "0.25"))  # the run itself
    assert declaration_key(claim) != k1


def test_numpy_version_is_part_of_every_store_key(monkeypatch):
    """Store keys start from the engine fingerprint, which holds numpy's version; the
    declaration key (what committed certificates match) does not depend on the machine."""
    from verify_claims.run import fingerprint
    assert "numpy" in fingerprint.versions()
    monkeypatch.setattr(fingerprint, "_ENGINE", {})
    before = fingerprint.engine_fingerprint()
    real = fingerprint.versions
    monkeypatch.setattr(fingerprint, "versions", lambda: {**real(), "numpy": "0.0.0-other"})
    monkeypatch.setattr(fingerprint, "_ENGINE", {})
    assert fingerprint.engine_fingerprint() != before
    f0 = function_fingerprint(settled)
    assert function_fingerprint(settled) == f0


# ------------------------------------------------------------------ a whole run: report, store, exit codes

MODULE = '''
    """Simulations, for the tests."""
    from verify_claims import Ref, Simulation, Summary
    from grpo_formulas.dynamics import settled, target_14, target_15

    P = dict(rewards=[1.0, 0.0], ref=[0.2, 0.8], beta=0.5, G=2, steps=300, lr=0.5, groups=4)

    def run_here(seed, runs, **params):
        return settled(seed, runs, **params)

    CLAIMS = [
        Simulation(id="sim-right", title="right", ref=Ref("Beyond the paper: GRPO dynamics"), run=run_here,
                   params=P, target=target_14, runs=10, tolerance=0.01, describe="300 steps of lr 0.5"),
        Summary(id="sim-summary", title="summary", ref=Ref("Beyond the paper: GRPO dynamics"), uses=("sim-right",)),
    ]
'''
WRONG = '''
    from verify_claims import Ref, Simulation
    from grpo_formulas.dynamics import settled, target_15
    P = dict(rewards=[1.0, 0.0], ref=[0.2, 0.8], beta=0.5, G=2, steps=300, lr=0.5, groups=4)
    CLAIMS = [Simulation(id="sim-wrong", title="wrong", ref=Ref("Beyond the paper: GRPO dynamics"), run=settled,
                         params=P, target=target_15, runs=10, tolerance=0.01, describe="300 steps of lr 0.5")]
'''
FAST = ("--jobs", "2", "--no-latex")


@pytest.fixture
def run(tmp_path, capsys):
    def go(ddir, *args):
        rdir = tmp_path / "reports"
        code = main(["--derivations", str(ddir), "--report-dir", str(rdir), *FAST, *args])
        out, _ = capsys.readouterr()
        return code, out, json.loads((rdir / "claims.json").read_text()), rdir
    return go


def test_report_json_html_inventory_junit_show_runs_steps_interval(write_modules, run, tmp_path):
    d = write_modules({"sims.py": MODULE})
    code, out, report, rdir = run(d, "--junitxml", str(tmp_path / "junit.xml"))
    assert code == 0, out
    by = {c["id"]: c for c in report["claims"]}
    assert by["sim-right"]["status"] == "simulated" and by["sim-summary"]["status"] == "simulated"
    assert report["run"]["counts"]["simulated"] == 2 and "numpy" in report["run"]["versions"]
    ev = by["sim-right"]["evidence"]["simulation"]
    assert ev["runs"] == 10 and ev["describe"] == "300 steps of lr 0.5" and ev["params"]["steps"] == 300
    assert ev["ci_low"] <= ev["mean"] <= ev["ci_high"] and "t-interval" in ev["interval"]
    assert "SIMULATED" in out and "2 simulated" in out
    html = (rdir / "report.html").read_text()
    assert "st-simulated" in html and "300 steps of lr 0.5" in html and "t-interval" in html
    inventory = render_inventory(report)
    assert "| Section | simulated | total |" in inventory  # the counts table has a simulated column
    assert "10 runs of 300 steps of lr 0.5" in inventory and "t-interval" in inventory
    junit = (tmp_path / "junit.xml").read_text()
    assert 'name="status" value="simulated"' in junit and "<failure" not in junit
    from verify_claims.report.graph import STATUS_COLOURS, foundations
    from verify_claims.report.view import STATUS_TEXT
    assert "simulated" in STATUS_COLOURS and "simulated" in STATUS_TEXT
    assert foundations(report["claims"])["sim-summary"] == "spot-checked"


def test_html_escapes_a_hostile_describe(write_modules, run):
    d = write_modules({"sims.py": MODULE.replace("300 steps of lr 0.5", "<script>alert(1)</script>")})
    code, out, report, rdir = run(d)
    html = (rdir / "report.html").read_text()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_exit_code_fails_on_a_disagreement_expected_to_hold(write_modules, run):
    d = write_modules({"sims.py": MODULE, "wrong.py": WRONG})
    code, out, report, _ = run(d)
    assert code == 1
    wrong = {c["id"]: c for c in report["claims"]}["sim-wrong"]
    assert wrong["status"] == "refuted" and wrong["counterexample"]["runs"] == 10
    assert "NOT AS EXPECTED" in out and "outside" in out


def test_expected_refutation_passes_while_refuted(write_modules, run):
    src = WRONG.replace("Ref, Simulation", "Ref, Simulation, refuted").replace(
        'describe="300 steps of lr 0.5")', 'describe="300 steps", expect=refuted("(15) is the large-G limit"))')
    code, out, report, _ = run(write_modules({"wrong.py": src}))
    assert code == 0 and report["claims"][0]["status"] == "refuted" and report["claims"][0]["as_expected"]


def test_expected_refutation_that_stops_disagreeing_fails_the_gate(write_modules, run):
    src = MODULE.replace("Simulation, Summary", "Simulation, Summary, refuted").replace(
        'describe="300 steps of lr 0.5")', 'describe="300 steps", expect=refuted("claimed wrong"))')
    code, out, report, _ = run(write_modules({"sims.py": src}))
    right = {c["id"]: c for c in report["claims"]}["sim-right"]
    assert code == 1 and right["status"] == "simulated" and not right["as_expected"]


def test_diff_ranks_simulated_below_checked():
    from verify_claims.report.diff import direction, strength
    assert strength("proved") > strength("checked") > strength("simulated") > strength("undecided")
    assert direction("checked", "simulated") == "weaker" and direction("simulated", "refuted") == "weaker"


def test_store_reuses_a_simulation_and_reruns_it_after_its_source_changes(write_modules, run):
    d = write_modules({"sims.py": MODULE, "other.py": WRONG.replace("sim-wrong", "sim-other").replace(
        "target_15", "target_14")})
    code, out, first, _ = run(d)
    assert code == 0 and {c["origin"] for c in first["claims"] if c["kind"] == "simulation"} == {"searched"}
    # another module changes: the run is not a snapshot, the simulations come from the store
    (d / "extra.py").write_text("CLAIMS = []\n")
    code, out, second, _ = run(d)
    origins = {c["id"]: c["origin"] for c in second["claims"]}
    assert origins["sim-right"] == "store" and origins["sim-other"] == "store"
    assert [c["evidence"] for c in second["claims"]] == [c["evidence"] for c in first["claims"]]
    # the run function's source changes (a comment is enough: the source is what is keyed)
    (d / "sims.py").write_text((d / "sims.py").read_text().replace(
        "return settled(seed, runs, **params)", "return settled(seed, runs, **params)  # edited"))
    code, out, third, _ = run(d)
    origins = {c["id"]: c["origin"] for c in third["claims"]}
    assert origins["sim-right"] == "searched" and origins["sim-other"] == "store"


RAISES = '''
    from verify_claims import Ref, Simulation

    def broken(seed, runs, **params):
        return [1.0 / 0.0] * runs

    CLAIMS = [Simulation(id="sim-broken", title="broken", ref=Ref("Beyond the paper: GRPO dynamics"), run=broken,
                         params={}, target=0, runs=3)]
'''


def test_a_raising_run_function_is_an_error_of_its_claim_not_of_the_run(write_modules, run):
    code, out, report, _ = run(write_modules({"sims.py": MODULE, "broken_sims.py": RAISES}))
    by = {c["id"]: c for c in report["claims"]}
    assert code == 1 and by["sim-right"]["status"] == "simulated"
    msg = by["sim-broken"]["message"]
    assert by["sim-broken"]["status"] == "error" and "sim-broken" in msg and "broken_sims" in msg
    assert "ZeroDivisionError" in msg and "line" in msg


SPIN = '''
    from verify_claims import Ref, Simulation

    def spin(seed, runs, **params):
        x = 0
        while True:
            x += 1

    CLAIMS = [Simulation(id="sim-spins", title="spins", ref=Ref("Beyond the paper: GRPO dynamics"), run=spin,
                         params={}, target=0, runs=2)]
'''


def test_per_claim_cpu_limit_applies_to_a_simulation(write_modules, run):
    code, out, report, _ = run(write_modules({"spin.py": SPIN}), "--timeout", "1")
    assert code == 1 and report["claims"][0]["status"] == "timeout"
