"""The command in the conventions CI and pytest users expect: -V, -k, -x, --lf, --junitxml,
--json -, [tool.verify-claims] in pyproject.toml, the summary so far on Ctrl-C, the live
line on a terminal, `verify-claims diff` after two runs, and the README's CI recipes.
Small derivation directories, --jobs 1 or 2."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import signal
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path


from verify_claims import __version__
from verify_claims.cli import build_parser, main
from verify_claims.model.status import ExitCode
from verify_claims.report.diff import build_parser as diff_parser

from _sample_claims import TRUE_CLAIMS
from conftest import OTHER_PLUGINS_OFF

ROOT = Path(__file__).resolve().parents[1]

GOOD = TRUE_CLAIMS

WRONG = '''
    import sympy as sp
    from verify_claims import Identity, refuted
    x, y = sp.symbols("x y")
    D = {x: sp.Interval(1, 2), y: sp.Interval(1, 2)}
    CLAIMS = [Identity(id="dropped-cross-term", title="Cross term dropped", ref="3",
                       lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain=D),
              Identity(id="paper-error", title="The paper's identity", ref="4",
                       lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain=D,
                       expect=refuted("the paper drops the cross term"))]
'''

FIXED = WRONG.replace("rhs=x ** 2 + y ** 2, domain=D),", "rhs=x ** 2 + 2 * x * y + y ** 2, domain=D),")

HANGS = '''
    import sympy as sp
    from sympy.utilities.lambdify import implemented_function
    from verify_claims import Identity
    x = sp.Symbol("x")

    def _forever(v):
        while True:
            v = v * 1
        return v

    slow = implemented_function("slow", _forever)
    CLAIMS = [Identity(id="zz-hangs-forever", title="Never finishes", ref="5", lhs=slow(x), rhs=x,
                       domain={x: sp.Interval(0, 1)})]
'''


def _dir(tmp_path, files, sub="derivs"):
    d = tmp_path / sub
    d.mkdir(parents=True, exist_ok=True)
    for name, src in files.items():
        (d / name).write_text(textwrap.dedent(src), encoding="utf-8")
    return d


def _run(d, rdir, *args):
    return main(["--derivations", str(d), "--report-dir", str(rdir), "--no-html", "--no-latex",
                 "--jobs", "1", "--samples", "20", *args])


def _claims(rdir):
    return json.loads((rdir / "claims.json").read_text())


def _ids(rdir):
    return [c["id"] for c in _claims(rdir)["claims"]]


def test_version_short_and_long(capsys):
    for flag in ("-V", "--version"):
        assert main([flag]) == 0
        assert capsys.readouterr().out.strip() == f"verify-claims {__version__}"


def test_help_lists_every_exit_code(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for code in ExitCode:
        assert re.search(rf"^\s+{code.value}\s+\S", out, re.M), code


def test_keyword_selects_by_id_kind_module_and_reference(tmp_path, capsys):
    d = _dir(tmp_path, {"good.py": GOOD, "wrong.py": WRONG})
    r = tmp_path / "r"
    assert _run(d, r, "-k", "amgm or exp") == 0
    assert _ids(r) == ["amgm-bound", "exp-increasing"]
    assert _run(d, r, "-k", "monotonic") == 0            # kind
    assert _ids(r) == ["exp-increasing"]
    assert _run(d, r, "-k", "good and not square") == 0  # module
    assert _ids(r) == ["amgm-bound", "exp-increasing"]
    assert _run(d, r, "-k", '"Eq. (5)"') == 0           # paper reference, quoted
    assert _ids(r) == ["amgm-bound"]
    assert _claims(r)["run"]["selection"]["keyword"] == '"Eq. (5)"'
    assert _run(d, r, "-k", "cross") == ExitCode.FAILED
    assert _ids(r) == ["dropped-cross-term"]
    capsys.readouterr()
    assert _run(d, r, "-k", "nothing-is-called-this") == ExitCode.USAGE
    assert "no claim is chosen by -k 'nothing-is-called-this'" in capsys.readouterr().err
    assert _run(d, r, "-k", "amgm and (") == ExitCode.USAGE
    assert "expected a word at the end" in capsys.readouterr().err


def test_keyword_applies_to_list(tmp_path, capsys):
    d = _dir(tmp_path, {"good.py": GOOD})
    assert main(["--derivations", str(d), "--report-dir", str(tmp_path / "r"), "--list", "-k", "square"]) == 0
    out = capsys.readouterr().out
    assert "square-of-sum" in out and "amgm-bound" not in out and "1 claims" in out


def test_exitfirst_stops_after_the_first_failure(tmp_path, capsys):
    # jobs 1: one claim at a time, so what is left after the failure is not run
    d = _dir(tmp_path, {"a_wrong.py": WRONG, "b_good.py": GOOD})
    r = tmp_path / "r"
    assert _run(d, r, "-x") == ExitCode.FAILED
    out = capsys.readouterr().out
    data = _claims(r)
    ran, not_run = _ids(r), data["run"]["selection"]["not_run"]
    assert "dropped-cross-term" in ran
    assert not_run and set(ran).isdisjoint(not_run)
    assert len(ran) + len(not_run) == 5
    assert f"stopped at the first claim not as expected (-x): {len(not_run)} claims not run" in out
    # without -x every claim is reported
    assert _run(d, r) == ExitCode.FAILED
    assert len(_ids(r)) == 5


def test_last_failed_reruns_what_was_not_as_expected(tmp_path, capsys):
    d = _dir(tmp_path, {"good.py": GOOD, "wrong.py": WRONG})
    r = tmp_path / "r"
    assert _run(d, r) == ExitCode.FAILED
    assert _run(d, r, "--lf") == ExitCode.FAILED
    assert _ids(r) == ["dropped-cross-term"]
    (d / "wrong.py").write_text(textwrap.dedent(FIXED), encoding="utf-8")
    assert _run(d, r, "--lf") == 0                       # fixed: as expected now
    assert _ids(r) == ["dropped-cross-term"]
    capsys.readouterr()
    assert _run(d, r, "--lf") == 0                       # nothing failed last time: everything
    assert "verifying every claim" in capsys.readouterr().err
    assert len(_ids(r)) == 5
    assert _run(d, r, "--lf", "--no-cache") == ExitCode.USAGE


def test_junitxml_one_testcase_per_claim(tmp_path):
    d = _dir(tmp_path, {"good.py": GOOD, "wrong.py": WRONG})
    r, junit = tmp_path / "r", tmp_path / "out" / "junit.xml"
    assert _run(d, r, "--junitxml", str(junit)) == ExitCode.FAILED
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert sorted(cases) == sorted(_ids(r))
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped"), suite.get("errors")) == ("5", "1", "1", "0")
    props = {p.get("name"): p.get("value") for p in cases["square-of-sum"].iter("property")}
    assert props["status"] == "proved" and props["kind"] == "identity" and props["expected"] == "holds"
    failure = cases["dropped-cross-term"].find("failure")
    assert failure is not None and failure.get("type") == "refuted"
    assert re.search(r"at x = [0-9.]+, y = [0-9.]+", failure.text)
    assert re.search(r"lhs = [0-9.]+", failure.text) and re.search(r"rhs = [0-9.]+", failure.text)
    skipped = cases["paper-error"].find("skipped")
    assert skipped is not None and skipped.get("type") == "xfail"
    assert "the paper drops the cross term" in skipped.get("message")
    assert cases["amgm-bound"].find("failure") is None and cases["amgm-bound"].find("skipped") is None


def test_json_on_stdout_and_everything_else_on_stderr(tmp_path, cli_env):
    d = _dir(tmp_path, {"good.py": GOOD, "wrong.py": WRONG})
    r = tmp_path / "r"
    proc = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir", str(r),
                           "--no-html", "--no-latex", "--jobs", "1", "--samples", "20", "--json", "-"],
                          capture_output=True, text=True, env=cli_env, timeout=300)
    assert proc.returncode == ExitCode.FAILED, proc.stderr
    data = json.loads(proc.stdout)  # nothing but the JSON
    assert data == _claims(r)
    assert "== FAILED" in proc.stderr and "dropped-cross-term" in proc.stderr


def test_configuration_in_pyproject(tmp_path, monkeypatch, capsys):
    d = _dir(tmp_path, {"good.py": GOOD})
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent('''
        [tool.verify-claims]
        derivations = "derivs"
        report-dir = "out"
        jobs = 1
        seed = 7
        samples = 20
        timeout = 30
        prover-budget = 5
        certify-budget = 6
        wall-limit = 45
        html = false
        pdf = false
    '''))
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)  # found from a subdirectory, paths relative to the file
    assert main(["--no-latex"]) == 0
    run = _claims(tmp_path / "out")["run"]
    assert (run["seed"], run["samples"], run["timeout"], run["jobs"]) == (7, 20, 30.0, 1)
    assert run["wall_limit"] == 45.0
    assert run["derivations"] == str(d.resolve())
    assert not (tmp_path / "out" / "report.html").exists()
    assert main(["--no-latex", "--seed", "9"]) == 0          # the command line wins
    assert _claims(tmp_path / "out")["run"]["seed"] == 9
    capsys.readouterr()
    for bad, says in (('seeed = 7', "unknown key 'seeed' (did you mean 'seed'?)"),
                      ('jobs = "two"', "jobs must be an integer"),
                      ('timeout = -1', "timeout must be a positive, finite number"),
                      ('wall-limit = 0', "wall-limit must be a positive, finite number of wall-clock seconds"),
                      ('derivations = 3', "derivations must be a path")):
        (tmp_path / "pyproject.toml").write_text(f"[tool.verify-claims]\n{bad}\n")
        assert main(["--no-latex"]) == ExitCode.USAGE
        err = capsys.readouterr().err
        assert str(tmp_path / "pyproject.toml") in err and says in err, err


def test_budget_options_are_validated(capsys):
    assert main(["--prover-budget", "0"]) == ExitCode.USAGE
    assert "budget must be a positive" in capsys.readouterr().err
    assert main(["--wall-limit", "-3"]) == ExitCode.USAGE
    assert "wall limit must be a positive, finite number of wall-clock seconds" in capsys.readouterr().err


def test_ctrl_c_prints_the_summary_so_far_and_exits_interrupted(tmp_path, cli_env):
    d = _dir(tmp_path, {"good.py": GOOD, "hangs.py": HANGS})
    r = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir", str(r),
                             "--no-html", "--no-latex", "--jobs", "2", "--samples", "20", "--timeout", "300"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=cli_env,
                            start_new_session=True)
    seen = []
    t0 = time.monotonic()
    while sum("[" in line and "/4]" in line for line in seen) < 3:  # the three good claims are done
        line = proc.stdout.readline()
        assert line or proc.poll() is None, "".join(seen)
        seen.append(line)
        assert time.monotonic() - t0 < 240, "".join(seen)
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    out = "".join(seen) + out
    assert proc.returncode == ExitCode.INTERRUPTED, out
    assert re.search(r"== INTERRUPTED: 3 claims verified before the interrupt: .*0 not as expected", out), out
    assert "nothing was published" in out
    assert not (r / "claims.json").exists()


def test_live_line_on_a_terminal(tmp_path, cli_env):
    d = _dir(tmp_path, {"good.py": GOOD})
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir",
                             str(tmp_path / "r"), "--no-html", "--no-latex", "--jobs", "1", "--samples", "20"],
                            stdout=slave, stderr=slave, env=cli_env)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal closed: the process ended
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(60) == 0
    out = b"".join(chunks).decode("utf-8", "replace")
    assert "\r\x1b[K[0/3] starting | ETA --" in out
    assert re.search(r"\r\x1b\[K\[[0-3]/3\] [^\r]*\| ETA [0-9-]+[^\r]*\| running: ", out), out
    # the line is cleared (not redrawn) before the summary, so the final screen shows no half line
    last = out.rindex("\r\x1b[K")
    assert not out[last + 4:].startswith("[") and "== OK" in out[last:]
    # and never drawn when standard output is not a terminal
    piped = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir",
                            str(tmp_path / "r"), "--no-html", "--no-latex", "--jobs", "1", "--samples", "20"],
                           capture_output=True, text=True, env=cli_env, timeout=300)
    assert "\r" not in piped.stdout and "ETA" not in piped.stdout


def test_diff_after_two_runs_gates_on_regressions(tmp_path, capsys):
    d = _dir(tmp_path, {"good.py": GOOD, "wrong.py": FIXED})
    r = tmp_path / "r"
    assert _run(d, r) == 0
    assert main(["diff", "--report-dir", str(r)]) == ExitCode.USAGE  # no previous run kept yet
    assert main(["diff", "--report-dir", str(r), "--missing-ok"]) == 0  # a first CI run
    (d / "wrong.py").write_text(textwrap.dedent(WRONG), encoding="utf-8")  # an edit that breaks a claim
    assert _run(d, r) == ExitCode.FAILED
    capsys.readouterr()
    summary = tmp_path / "summary.md"
    assert main(["diff", "--report-dir", str(r), "--markdown", "--output", str(summary)]) == ExitCode.FAILED
    assert "dropped-cross-term" in capsys.readouterr().out
    md = summary.read_text()
    assert md.startswith("### verify-claims diff") and "| dropped-cross-term |" in md
    # two files named: the same comparison, and the reverse is not a regression
    prev = r / ".verify-claims-cache" / "runs-history" / "previous.json"
    assert main(["diff", str(prev), str(r / "claims.json")]) == ExitCode.FAILED
    assert main(["diff", str(r / "claims.json"), str(prev)]) == 0


# ------------------------------------------------------------------ CI recipes in the README
def _readme_commands():
    """Every `verify-claims ...` command line inside the README's CI recipes."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = text.index("<!-- ci-recipes -->"), text.index("<!-- /ci-recipes -->")
    lines = []
    for raw in text[start:end].splitlines():
        line = raw.strip().lstrip("-").strip()
        for prefix in ("run:", "entry:", "args:"):
            if line.startswith(prefix):
                line = line[len(prefix):].strip()
        m = re.search(r"(?:^|&&\s*|\|\|\s*)(verify-claims\b[^|&#]*)", line)
        if m:
            lines.append(m.group(1).strip())
        m = re.search(r"pytest\s+(--verify-claims\S*.*)$", line)
        if m:
            lines.append("pytest " + m.group(1).strip())
    return lines


def test_readme_ci_recipes_use_options_the_cli_accepts():
    commands = _readme_commands()
    assert any(c.startswith("verify-claims diff") for c in commands), commands
    assert any("--junitxml" in c for c in commands) and any(c.startswith("pytest --verify-claims") for c in commands)
    for cmd in commands:
        argv = [a for a in shlex.split(cmd.replace("$GITHUB_STEP_SUMMARY", "summary.md"))]
        if argv[0] == "pytest":
            continue  # checked below by pytest itself
        if argv[1:2] == ["diff"]:
            diff_parser().parse_args(argv[2:])  # exits (SystemExit) on an unknown option
        else:
            build_parser().parse_args(argv[1:])


def test_readme_pytest_recipe_is_accepted_by_pytest():
    for cmd in _readme_commands():
        if cmd.startswith("pytest "):
            argv = [a for a in shlex.split(cmd)[1:] if not a.startswith("--junitxml")]
            # collected in this process (-n 0: the repository's addopts would start a worker per
            # core, each loading every derivation module), without other packages' plugins
            argv += ["--co", "-q", "-p", "no:cacheprovider", "-n", "0", *OTHER_PLUGINS_OFF]
            proc = subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=ROOT, capture_output=True,
                                  text=True, timeout=300)
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
            assert "derivations/s2_3_1_binary_questions.py::binary-g2-closed-form" in proc.stdout


def test_pre_commit_hook_definition_runs_the_gate():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert re.search(r"^- id: verify-claims$", text, re.M)
    entry = re.search(r"^\s+entry: (.+)$", text, re.M).group(1)
    argv = shlex.split(entry)
    assert argv[0] == "verify-claims"
    build_parser().parse_args(argv[1:])
