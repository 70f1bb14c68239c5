"""The verify-claims command: exit codes, --list/--only, claims.json, and isolation of
hanging, crashing and broken claims.  Small derivation directories, --samples 20, --jobs 2."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time

import mpmath
import pytest
import sympy

from verify_claims.cli import main

from _sample_claims import TRUE_CLAIMS, WRONG_CLAIM

EXPECTED_REFUTED = '''
    import sympy as sp
    from verify_claims import Identity, refuted
    x, y = sp.symbols("x y")
    CLAIMS = [Identity(id="{id}", title="Paper's identity", ref="4",
                       lhs=(x + y) ** 2, rhs={rhs}, domain={{x: sp.Interval(1, 2), y: sp.Interval(1, 2)}},
                       expect=refuted("the paper drops the cross term"))]
'''

HANGS = '''
    import sympy as sp
    from sympy.utilities.lambdify import implemented_function
    from verify_claims import Identity
    x = sp.Symbol("x")

    def _forever(v):
        while True:  # computes for ever (the CPU-time limit stops it)
            v = v * 1
        return v

    slow = implemented_function("slow", _forever)
    CLAIMS = [Identity(id="hangs-forever", title="Never finishes", ref="5", lhs=slow(x), rhs=x,
                       domain={x: sp.Interval(0, 1)})]
'''

SLEEPS = '''
    import time
    import sympy as sp
    from sympy.utilities.lambdify import implemented_function
    from verify_claims import Identity
    x = sp.Symbol("x")

    def _blocked(v):
        time.sleep(1000)  # uses no CPU: only the wall-clock safety net stops it
        return v

    slow = implemented_function("slow", _blocked)
    CLAIMS = [Identity(id="sleeps-forever", title="Blocked", ref="5", lhs=slow(x), rhs=x,
                       domain={x: sp.Interval(0, 1)})]
'''

RAISES = '''
    import sympy as sp
    from sympy.utilities.lambdify import implemented_function
    from verify_claims import Identity
    x = sp.Symbol("x")

    def _boom(v):
        raise RuntimeError("kaboom in evaluation")

    boom = implemented_function("boom", _boom)
    CLAIMS = [Identity(id="raises-in-verify", title="Raises", ref="6", lhs=boom(x), rhs=x,
                       domain={x: sp.Interval(0, 1)})]
'''

FAST = ["--samples", "20", "--jobs", "2", "--no-color"]


@pytest.fixture
def cli(tmp_path, capsys):
    """cli(dir, *args) -> (exit code, stdout, stderr, report dict or None)."""

    def run(ddir, *args, report=True):
        rdir = tmp_path / "reports"
        argv = ["--derivations", str(ddir), "--report-dir", str(rdir), *FAST, *args]
        code = main(argv)
        out, err = capsys.readouterr()
        path = rdir / "claims.json"
        data = json.loads(path.read_text()) if report and path.exists() else None
        if path.exists():
            path.unlink()
        return code, out, err, data

    return run


def _without_seconds(obj):
    """Drop every 'seconds' entry (timings) at any depth."""
    if isinstance(obj, dict):
        return {k: _without_seconds(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [_without_seconds(v) for v in obj]
    return obj


def by_id(report):
    return {c["id"]: c for c in report["claims"]}


# ====================================================================== exit codes
def test_all_true_claims_exit_0(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    code, out, err, report = cli(d)
    assert code == 0, out + err
    assert "== OK: 3 claims:" in out and "0 not as expected" in out
    statuses = {c["id"]: c["status"] for c in report["claims"]}
    assert statuses == {"square-of-sum": "proved", "amgm-bound": "certified", "exp-increasing": "certified"}
    assert report["run"]["exit_code"] == 0
    assert all(c["established"] is True for c in report["claims"])


def test_refuted_claim_expected_to_hold_exit_1(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "wrong.py": WRONG_CLAIM})
    code, out, err, report = cli(d)
    assert code == 1
    assert "REFUTED   dropped-cross-term" in out and "<-- NOT AS EXPECTED" in out
    assert "counterexample: type=values differ, point=" in out
    assert "dropped-cross-term (wrong.py): refuted but expected holds" in out
    assert "== FAILED" in out
    c = by_id(report)["dropped-cross-term"]
    assert c["status"] == "refuted" and c["counterexample"]["point"]
    assert report["run"]["counts"]["refuted"] == 1 and report["run"]["not_as_expected"] == 1


def test_expected_refuted_claim_that_is_refuted_exit_0(write_modules, cli):
    d = write_modules({"xfail.py": EXPECTED_REFUTED.format(id="paper-wrong", rhs="x ** 2 + y ** 2")})
    code, out, err, report = cli(d)
    assert code == 0, out + err
    assert "(expected)" in out and "(1 refuted as expected)" in out
    c = by_id(report)["paper-wrong"]
    assert (c["status"], c["expected"], c["as_expected"], c["paper_error"]) == ("refuted", "refuted", True, True)
    assert c["expected_reason"] == "the paper drops the cross term"


def test_expected_refuted_claim_that_holds_exit_1(write_modules, cli):
    d = write_modules({"xfail.py": EXPECTED_REFUTED.format(id="paper-right", rhs="x ** 2 + 2 * x * y + y ** 2")})
    code, out, err, report = cli(d)
    assert code == 1
    assert "(expected refuted)" in out and "<-- NOT AS EXPECTED" in out
    assert "paper-right (xfail.py): proved but expected refuted" in out
    assert by_id(report)["paper-right"]["as_expected"] is False


def test_unknown_only_id_exit_2_with_suggestion(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    code, out, err, report = cli(d, "--only", "amgm-bund", report=True)
    assert code == 2
    assert "unknown claim id(s): amgm-bund (did you mean amgm-bound?)" in err
    assert "--list" in err
    assert report is None  # nothing was run


def test_nonexistent_derivations_dir_exit_2(tmp_path, cli):
    code, out, err, report = cli(tmp_path / "does-not-exist")
    assert code == 2
    assert "derivations directory" in err and "does not exist" in err
    assert report is None


def test_dir_with_no_claims_exit_2(write_modules, cli):
    d = write_modules({"_helper.py": "X = 1\n"})
    code, out, err, report = cli(d)
    assert code == 2
    assert "no claims found" in err
    assert report is None


def test_dir_with_only_broken_modules_exit_1(write_modules, cli):
    d = write_modules({"broken.py": "raise ImportError('no such dependency')\n"})
    code, out, err, report = cli(d)
    assert code == 1
    assert "PROBLEM broken.py: failed to import: ImportError: no such dependency" in err
    assert report["claims"] == [] and report["problems"][0]["file"] == "broken.py"


@pytest.mark.parametrize("args,fragment", [
    (["--samples", "0"], "samples must be at least 10, got 0"),
    (["--samples", "many"], "samples must be an integer"),
    (["--timeout", "-1"], "timeout must be a positive, finite number"),
    (["--jobs", "0"], "jobs must be at least 1"),
    (["--no-such-flag"], "unrecognized arguments"),
])
def test_bad_arguments_exit_2(write_modules, tmp_path, capsys, args, fragment):
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    code = main(["--derivations", str(d), "--report-dir", str(tmp_path / "r"), *args])
    assert code == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_samples_0_exit_2_as_a_command(write_modules, tmp_path, cli_env):
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    proc = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--samples", "0",
                           "--report-dir", str(tmp_path / "r")], capture_output=True, text=True,
                          env=cli_env, timeout=120)
    assert proc.returncode == 2
    assert "samples must be at least 10" in proc.stderr


def test_command_runs_and_exits_0(write_modules, tmp_path, cli_env):
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    proc = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), *FAST,
                           "--report-dir", str(tmp_path / "r")], capture_output=True, text=True,
                          env=cli_env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((tmp_path / "r" / "claims.json").read_text())["run"]["exit_code"] == 0


# ====================================================================== --list and --only
def test_list(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS,
                       "xfail.py": EXPECTED_REFUTED.format(id="paper-wrong", rhs="x ** 2 + y ** 2")})
    code, out, err, report = cli(d, "--list")
    assert code == 0
    lines = out.splitlines()
    row = next(ln for ln in lines if ln.startswith("square-of-sum"))
    assert "Section 2, Eq. (3)" in row and "identity" in row and "true_claims.py" in row
    assert "Appendix A" in next(ln for ln in lines if ln.startswith("exp-increasing"))
    assert "monotonic" in next(ln for ln in lines if ln.startswith("exp-increasing"))
    assert "[expected refuted]" in next(ln for ln in lines if ln.startswith("paper-wrong"))
    assert "4 claims in 2 modules" in out
    assert report is None  # --list verifies nothing


def test_list_with_a_broken_module_exit_1(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "broken.py": "1/0\n"})
    code, out, err, report = cli(d, "--list")
    assert code == 1
    assert "3 claims in 1 modules" in out
    assert "PROBLEM broken.py: failed to import: ZeroDivisionError" in err


def test_only_runs_only_those_ids(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "wrong.py": WRONG_CLAIM})
    code, out, err, report = cli(d, "--only", "amgm-bound", "exp-increasing")
    assert code == 0, out + err  # the refuted claim was not run
    assert sorted(c["id"] for c in report["claims"]) == ["amgm-bound", "exp-increasing"]
    assert "2 claims from" in out and "dropped-cross-term" not in out


def test_results_do_not_depend_on_jobs_or_filtering(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "wrong.py": WRONG_CLAIM})

    def strip(report):
        return {c["id"]: _without_seconds({k: v for k, v in c.items() if k not in ("established", "established_at")})
                for c in report["claims"]}

    # --no-cache: each run verifies (the store would hand back the first run's results)
    _, _, _, two = cli(d, "--seed", "5", "--no-cache")
    _, _, _, one = cli(d, "--seed", "5", "--jobs", "1", "--no-cache")
    _, _, _, only = cli(d, "--seed", "5", "--only", "dropped-cross-term", "--no-cache")
    assert strip(one) == strip(two)
    assert strip(only)["dropped-cross-term"] == strip(two)["dropped-cross-term"]
    _, _, _, other = cli(d, "--seed", "6", "--only", "dropped-cross-term")
    # another seed, other sample points: the raw counterexample differs (shrinking may then
    # find the same simplest point from both)
    assert other["claims"][0]["counterexample"]["raw"]["point"] != \
        strip(two)["dropped-cross-term"]["counterexample"]["raw"]["point"]


# ====================================================================== claims.json
def test_claims_json_fields(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "wrong.py": WRONG_CLAIM})
    code, out, err, report = cli(d, "--seed", "123", "--precision", "25")
    assert code == 1
    assert report["schema"] == "verify-claims/1"
    run = report["run"]
    assert (run["seed"], run["samples"], run["precision"]) == (123, 20, 25)
    assert run["jobs"] == 2 and run["exit_code"] == 1 and run["claims"] == 4
    assert run["versions"]["python"] == platform.python_version()
    assert run["versions"]["sympy"] == sympy.__version__
    assert run["versions"]["mpmath"] == mpmath.__version__
    assert run["counts"] == {"proved": 1, "certified": 2, "checked": 0, "simulated": 0, "refuted": 1,
                             "undecided": 0, "error": 0, "timeout": 0}
    assert (run["as_expected"], run["not_as_expected"], run["problems"]) == (3, 1, 0)
    assert report["problems"] == []
    assert [c["id"] for c in report["claims"]] == ["square-of-sum", "amgm-bound", "exp-increasing",
                                                   "dropped-cross-term"]
    required = {"id", "title", "ref", "kind", "expected", "status", "method", "evidence", "counterexample",
                "uses", "seconds"}
    for c in report["claims"]:
        assert required <= set(c), required - set(c)
        assert isinstance(c["seconds"], (int, float)) and c["seconds"] >= 0
        assert isinstance(c["uses"], list) and isinstance(c["evidence"], dict)
    sq = by_id(report)["square-of-sum"]
    assert (sq["title"], sq["ref"], sq["kind"], sq["expected"], sq["status"]) == (
        "Square of a sum", "Section 2, Eq. (3)", "identity", "holds", "proved")
    assert sq["method"].startswith("sympy") and sq["counterexample"] is None
    assert sq["evidence"]["numeric"]["screen"]["points"] == 20 and sq["evidence"]["numeric"]["digits"] == 25
    assert sq["source"] == "true_claims.py"
    wrong = by_id(report)["dropped-cross-term"]
    assert wrong["counterexample"]["type"] == "values differ" and set(wrong["counterexample"]["point"]) == {"x", "y"}


def test_claims_json_uses_and_established(write_modules, cli):
    d = write_modules({"chain.py": '''
        import sympy as sp
        from verify_claims import Identity
        x = sp.Symbol("x")
        U = {x: sp.Interval(1, 2)}
        CLAIMS = [
            Identity(id="base-true", title="t", ref="1", lhs=2 * x, rhs=x + x, domain=U),
            Identity(id="base-false", title="t", ref="1", lhs=2 * x, rhs=x, domain=U),
            Identity(id="uses-true", title="t", ref="1", lhs=x, rhs=x, domain=U, uses=["base-true"]),
            Identity(id="uses-false", title="t", ref="1", lhs=x, rhs=x, domain=U, uses=["base-false"]),
        ]
    '''})
    code, out, err, report = cli(d)
    assert code == 1
    c = by_id(report)
    assert c["uses-true"]["uses"] == ["base-true"]
    assert (c["base-true"]["established"], c["uses-true"]["established"]) == (True, True)
    assert (c["base-false"]["established"], c["uses-false"]["established"]) == (False, False)
    assert c["uses-false"]["status"] == "proved"  # its own verdict is unaffected
    _, _, _, only = cli(d, "--only", "uses-true")
    assert only["claims"][0]["established"] is None  # depends on a claim outside this run


def test_report_dir_is_created(write_modules, tmp_path, capsys):
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    rdir = tmp_path / "deep" / "nested" / "reports"
    assert main(["--derivations", str(d), "--report-dir", str(rdir), *FAST]) == 0
    assert f"report: {rdir / 'claims.json'}" in capsys.readouterr().out
    assert json.loads((rdir / "claims.json").read_text())["schema"] == "verify-claims/1"
    names = {p.name for p in rdir.iterdir()}
    assert {"claims.json", "report.html", "report.tex"} <= names
    # no temporary file left behind (the proof store and the lock are the hidden entries)
    assert not [n for n in names if n.startswith(".") and n not in (".verify-claims-cache", ".verify-claims.lock")]


# ====================================================================== isolation
def test_hanging_claim_times_out_and_others_are_verified(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "hangs.py": HANGS})
    t0 = time.perf_counter()
    code, out, err, report = cli(d, "--timeout", "2")
    elapsed = time.perf_counter() - t0
    assert code == 1
    assert elapsed < 30
    c = by_id(report)
    assert c["hangs-forever"]["status"] == "timeout"
    assert c["hangs-forever"]["message"] == ("did not finish within --timeout 2 s of CPU time (stopped by the "
                                             "kernel's CPU limit)")
    assert c["hangs-forever"]["as_expected"] is False
    assert 2 <= c["hangs-forever"]["seconds"] < 10
    assert {i: c[i]["status"] for i in ("square-of-sum", "amgm-bound", "exp-increasing")} == {
        "square-of-sum": "proved", "amgm-bound": "certified", "exp-increasing": "certified"}
    assert report["run"]["counts"]["timeout"] == 1 and report["run"]["timeout"] == 2
    assert "TIMEOUT   hangs-forever" in out


def test_a_claim_that_blocks_without_computing_is_stopped_by_the_wall_clock_net(write_modules, cli):
    # the per-claim limit counts CPU time; a claim that sleeps uses none, so the far looser
    # wall-clock net (by default 10 x the limit, at least the limit + 20 s; here --wall-limit)
    # is what stops it
    from verify_claims.run.schedule import wall_limit
    from verify_claims.run.settings import Settings
    assert wall_limit(Settings(timeout=1)) == 21 and wall_limit(Settings(timeout=5)) == 50
    assert wall_limit(Settings(timeout=1, wall_limit=3)) == 3
    assert Settings(wall_limit=3).key() != Settings().key()  # it can turn a verdict into a timeout
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "sleeps.py": SLEEPS})
    t0 = time.perf_counter()
    code, out, err, report = cli(d, "--timeout", "1", "--wall-limit", "3")
    elapsed = time.perf_counter() - t0
    assert code == 1 and 3 <= elapsed < 3 + 30
    c = by_id(report)
    assert c["sleeps-forever"]["status"] == "timeout" and "wall time" in c["sleeps-forever"]["message"]
    assert c["square-of-sum"]["status"] == "proved"


def test_import_error_module_plus_good_module(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "broken.py": '''
        import sympy as sp
        from verify_claims import Identity
        raise ValueError("a derivation bug")
    '''})
    code, out, err, report = cli(d)
    assert code == 1
    assert "PROBLEM broken.py: failed to import: ValueError: a derivation bug (line 4:" in err
    assert "broken.py: failed to import" in out  # listed under "Not as expected"
    assert {c["id"]: c["status"] for c in report["claims"]} == {
        "square-of-sum": "proved", "amgm-bound": "certified", "exp-increasing": "certified"}
    assert report["problems"] == [{"file": "broken.py", "claim": None,
                                   "cause": report["problems"][0]["cause"]}]
    assert report["run"]["problems"] == 1 and report["run"]["exit_code"] == 1


def test_malformed_claim_is_an_error_entry(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "malformed.py": '''
        import sympy as sp
        from verify_claims import Identity
        x, y = sp.symbols("x y")
        CLAIMS = [Identity(id="missing-domain", title="t", ref="1", lhs=x + y, rhs=y + x,
                           domain={x: sp.Interval(0, 1)})]
    '''})
    code, out, err, report = cli(d)
    assert code == 1
    assert "PROBLEM malformed.py [missing-domain]:" in err
    bad = by_id(report)["missing-domain"]
    assert bad["status"] == "error" and "symbol(s) y have no domain" in bad["message"]
    assert bad["source"] == "malformed.py"
    assert by_id(report)["square-of-sum"]["status"] == "proved"


def test_claim_raising_during_verification_is_an_error(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "raises.py": RAISES})
    code, out, err, report = cli(d)
    assert code == 1
    c = by_id(report)
    assert c["raises-in-verify"]["status"] == "error"
    assert c["raises-in-verify"]["message"] == "RuntimeError: kaboom in evaluation"
    assert "RuntimeError: kaboom in evaluation" in out
    assert {i: c[i]["status"] for i in ("square-of-sum", "amgm-bound", "exp-increasing")} == {
        "square-of-sum": "proved", "amgm-bound": "certified", "exp-increasing": "certified"}


def test_crashing_worker_is_an_error_and_others_are_verified(write_modules, cli):
    d = write_modules({"true_claims.py": TRUE_CLAIMS, "crash.py": '''
        import os
        import sympy as sp
        from sympy.utilities.lambdify import implemented_function
        from verify_claims import Identity
        x = sp.Symbol("x")
        die = implemented_function("die", lambda v: os._exit(7))
        CLAIMS = [Identity(id="kills-worker", title="t", ref="1", lhs=die(x), rhs=x, domain={x: sp.Interval(0, 1)})]
    '''})
    code, out, err, report = cli(d)
    assert code == 1
    c = by_id(report)
    assert c["kills-worker"]["status"] == "error"
    assert c["kills-worker"]["message"].startswith("the worker verifying this claim died (exit code ")
    assert "exit code None" not in c["kills-worker"]["message"]  # reaped before reading the code
    assert c["square-of-sum"]["status"] == "proved" and c["exp-increasing"]["status"] == "certified"


def test_claims_json_has_one_entry_per_id(write_modules, cli):
    d = write_modules({"a_first.py": TRUE_CLAIMS,
                       "b_dup.py": TRUE_CLAIMS.replace('"amgm-bound"', '"amgm-bound-2"').replace(
                           '"exp-increasing"', '"exp-increasing-2"')})
    code, out, err, report = cli(d)
    assert code == 1
    assert "PROBLEM b_dup.py: duplicate claim id 'square-of-sum': already declared in a_first.py" in err
    ids = [c["id"] for c in report["claims"]]
    assert len(ids) == len(set(ids)), ids
    assert by_id(report)["square-of-sum"]["established"] is True


@pytest.mark.parametrize("env_size, expected", [(None, "30000"), ("500", "500")])
def test_the_command_sizes_sympys_cache_unless_the_user_did(write_modules, tmp_path, cli_env, env_size, expected):
    # sympy reads SYMPY_CACHE_SIZE once, at import: the command sets a larger default before
    # sympy is imported (its workers inherit it), and a user's own value wins
    from verify_claims.cli import SYMPY_CACHE_ENTRIES
    assert SYMPY_CACHE_ENTRIES == "30000"
    d = write_modules({"true_claims.py": TRUE_CLAIMS})
    env = dict(cli_env)
    env.pop("SYMPY_CACHE_SIZE", None)
    if env_size is not None:
        env["SYMPY_CACHE_SIZE"] = env_size
    script = ("import sys; from verify_claims.cli import main; assert 'sympy' not in sys.modules; "
              f"code = main(['--derivations', {str(d)!r}, '--report-dir', {str(tmp_path / 'r')!r}, "
              "'--no-html', '--no-latex', '-q', '--samples', '20', '--jobs', '1']); "
              "import sympy.core.cache as c; print('cache', c.SYMPY_CACHE_SIZE, code)")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert f"cache {expected} 0" in proc.stdout, proc.stdout + proc.stderr
