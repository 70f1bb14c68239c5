"""--durations N: the slowest claims of a run, with where their CPU time went."""

from __future__ import annotations

import time

import pytest
import sympy as sp

from verify_claims import Inequality, Ref
from verify_claims.cli import main
from verify_claims.engine.goals import Certificate
from verify_claims.engine.verify import verify
from verify_claims.kinds import kind_of
from verify_claims.model.result import Result
from verify_claims.model.status import Status
from verify_claims.report.durations import format_durations, slowest

from _sample_claims import TRUE_CLAIMS, WRONG_CLAIM


def _result(cid, seconds, origin="searched", evidence=None, status=Status.PROVED):
    return Result(id=cid, title=cid, ref="1", kind="identity", source="m.py", expected="holds",
                  expected_reason="", paper_error="", status=status,
                  seconds=seconds, origin=origin, evidence=evidence or {})


def test_slowest_first_store_answers_left_out_and_counted():
    results = [_result("a", 0.5), _result("b", 2.0), _result("c", 9.0, origin="store"), _result("d", 1.0,
                                                                                                 origin="replayed")]
    rows, from_store = slowest(results, 2)
    assert [r["id"] for r in rows] == ["b", "d"] and from_store == 1
    rows, _ = slowest(results, 0)
    assert [r["id"] for r in rows] == ["b", "d", "a"]  # 0: every claim verified in this run


def test_the_split_counts_a_symbolic_certificate_once():
    """A proof that certified is also recorded as the certificate with the prover's
    seconds: counted as the proof only, and the rest of the claim's time is `other`."""
    ev = {"numeric": {"seconds": 0.25}, "symbolic": {"status": "certified", "method": "sympy (concave)", "seconds": 1.0},
          "certificate": {"method": "symbolic", "detail": "sympy (concave)", "seconds": 1.0}}
    (row,), _ = slowest([_result("p", 1.5, evidence=ev)], 1)
    assert (row["numbers"], row["proof"], row["certificate"]) == (0.25, 1.0, 0.0)
    assert row["other"] == pytest.approx(0.25)
    # the certifier's own sympy certificate (a root, certified first) is its own work
    ev = {"numeric": {"seconds": 0.25}, "symbolic": {"status": "not established", "method": "sympy", "seconds": 0.0},
          "certificate": {"method": "symbolic", "detail": "value solves the equation: sympy (cancel)", "seconds": 0.75}}
    (row,), _ = slowest([_result("r", 1.0, evidence=ev)], 1)
    assert (row["proof"], row["certificate"]) == (0.0, 0.75) and row["other"] == pytest.approx(0.0)
    ev = {"numeric": {"seconds": 0.25}, "symbolic": {"seconds": 0.5}, "certificate": {"method": "ball", "seconds": 2.0}}
    (row,), _ = slowest([_result("q", 3.0, evidence=ev)], 1)
    assert (row["proof"], row["certificate"]) == (0.5, 2.0) and row["other"] == pytest.approx(0.25)


def test_lines_name_each_claim_with_its_phases():
    ev = {"numeric": {"seconds": 0.25}, "symbolic": {"seconds": 1.0}}
    lines = format_durations([_result("slow-one", 1.5, evidence=ev), _result("fast-one", 0.1)], 1)
    assert lines[0].startswith("slowest 1 of 2 claims verified in this run")
    assert lines[1].split() == ["total", "numbers", "proof", "certif.", "other", "status", "origin", "kind", "claim"]
    assert lines[2].split() == ["1.50", "0.25", "1.00", "0.00", "0.25", "proved", "searched", "identity", "slow-one"]
    assert len(lines) == 3
    only_store = format_durations([_result("s", 3.0, origin="store")], 5)
    assert "1 answered from the proof store, not listed" in only_store[0]
    assert only_store[1].strip() == "(none: every result came from the proof store)"


def test_command_lists_the_slowest_claims_and_none_from_the_store(write_modules, tmp_path, capsys):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "wrong.py": WRONG_CLAIM})
    argv = ["--derivations", str(d), "--report-dir", str(tmp_path / "r"), "--samples", "20", "--jobs", "1",
            "--no-color", "--no-html", "--no-latex", "-q", "--durations", "2"]
    assert main(argv) == 1  # the wrong claim fails the gate; the listing still follows the verdict
    out = capsys.readouterr().out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("slowest 2 of 4 claims verified in this run"))
    assert lines.index(next(line for line in lines if line.startswith("== FAILED"))) < at
    rows = []
    for line in lines[at + 2:]:
        if not line.startswith("  "):
            break
        rows.append(line.split())
    assert len(rows) == 2 and len({r[-1] for r in rows}) == 2
    assert {r[-1] for r in rows} <= {"square-of-sum", "amgm-bound", "exp-increasing", "dropped-cross-term"}
    assert float(rows[0][0]) >= float(rows[1][0])  # slowest first
    # the same run again is answered from the store: nothing ran, nothing is listed
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "4 answered from the proof store, not listed" in out
    assert "(none: every result came from the proof store)" in out


def test_command_without_the_option_lists_nothing(write_modules, tmp_path, capsys):
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    assert main(["--derivations", str(d), "--report-dir", str(tmp_path / "r"), "--samples", "20", "--jobs", "1",
                 "--no-html", "--no-latex", "-q", "--no-cache"]) == 0
    assert "slowest" not in capsys.readouterr().out


def test_a_negative_count_is_a_usage_error(capsys):
    assert main(["--durations", "-1"]) == 2
    assert "durations must be at least 0, got -1" in capsys.readouterr().err


def test_certification_tried_first_counts_when_the_prover_then_decides(monkeypatch):
    """A kind that certifies first (an inequality) and decided nothing there, then proved by
    the prover: the first attempt's CPU is the claim's certification time, not `other`
    (engine/verify.py records it as symbolic.certification_first_seconds)."""
    def burns_then_undecided(claim, ctx, numeric, budget):
        start = time.process_time()
        while time.process_time() - start < 0.3:
            pass
        return Certificate("undecided", reason="nothing decided (this test)")

    x = sp.Symbol("x")
    claim = Inequality(id="amgm", title="AM-GM", ref=Ref("1"), lhs=x * (1 - x), op="<=",
                       rhs=sp.Rational(1, 4), domain={x: sp.Interval(0, 1)})
    # on the instance the engine dispatches to, as the other tests patch kinds (monkeypatch
    # leaves a patched instance's method as an instance attribute, which a class patch would
    # not reach)
    monkeypatch.setattr(kind_of(claim), "certify_before_proof", burns_then_undecided)
    res = verify(claim)
    assert str(res.status) == "certified" and "certificate" not in (res.evidence["symbolic"].get("skipped") or "")
    assert res.evidence["symbolic"]["certification_first_seconds"] >= 0.3
    (row,), _ = slowest([res], 1)
    assert row["certificate"] >= 0.3 and row["other"] < 0.1, row


def test_the_split_of_a_real_run_adds_up(write_modules, tmp_path):
    """Claims verified by the engine: every phase the evidence records is counted once,
    so the phases never add up to more than the claim's CPU time, and the numbers (every
    claim here is spot-checked; a tiny claim's can read 0: with a CPU limit set, a worker's
    process clock advances in clock ticks) are found in the evidence."""
    import json

    from verify_claims.model.result import Result

    d = write_modules({"true_claims.py": TRUE_CLAIMS, "wrong.py": WRONG_CLAIM})
    main(["--derivations", str(d), "--report-dir", str(tmp_path / "r"), "--samples", "20", "--jobs", "1",
          "--no-html", "--no-latex", "-q", "--no-cache"])
    results = [Result.from_json(c) for c in json.loads((tmp_path / "r" / "claims.json").read_text())["claims"]]
    rows, _ = slowest(results, 0)
    assert len(rows) == 4
    assert sum(r["numbers"] for r in rows) > 0
    for r in rows:
        assert r["numbers"] + r["proof"] + r["certificate"] <= r["seconds"] + 0.01, r


def test_json_on_standard_output_stays_json(write_modules, tmp_path, cli_env):
    """--json - writes nothing but the JSON to standard output: the listing goes to
    standard error with the rest (the command swaps the file descriptors, so this runs it
    as a user does)."""
    import json
    import subprocess
    import sys

    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    proc = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir",
                           str(tmp_path / "r"), "--samples", "20", "--jobs", "1", "--no-html", "--no-latex", "-q",
                           "--no-cache", "--durations", "2", "--json", "-"],
                          capture_output=True, text=True, env=cli_env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["claims"]) == 3
    assert "slowest 2 of 3 claims verified in this run" in proc.stderr
