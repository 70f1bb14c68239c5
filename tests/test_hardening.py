"""The gate under hostile derivations, kills, concurrency and unwritable report directories
(issue 15): nothing mixed, nothing half-written, every bad input named.

* hostile modules (table): each names its file, the claim and the cause with the fix, and
  never stops the good module beside it -- including imports that hang in native code or
  crash the interpreter, which only a child process can survive;
* report directories that are files or cannot be written fail before verification;
* kill -9, SIGINT and SIGTERM at each phase leave one run's complete set (the new or the
  previous one) and no process behind; two concurrent runs publish one complete set each;
* the verdict first: a LaTeX failure is exit 4 with the real error when the claims hold,
  exit 1 when they do not;
* the same inputs and seed give the same bytes (timing fields aside).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report_fixtures import MODULE, need, strip_timing  # noqa: E402
from conftest import _pythonpath_env  # noqa: E402

from verify_claims.cli import main  # noqa: E402
from verify_claims.model.status import ExitCode  # noqa: E402
from verify_claims.report.directory import JOURNAL, STAGING_PREFIX, ReportDir  # noqa: E402
from verify_claims.report.view import is_timing  # noqa: E402

GOOD = """
import sympy as sp
from verify_claims import Identity
x = sp.Symbol("x")
CLAIMS = [Identity(id="good", title="t", ref="1", lhs=(x + 1)**2, rhs=x**2 + 2*x + 1,
                   domain={x: sp.Interval(0, 1)})]
"""

HEAD = "import sympy as sp\nfrom verify_claims import Identity\nx = sp.Symbol('x')\nD = {x: sp.Interval(0, 1)}\n"

# (case, module source, claim id or None for the whole file, fragments of the message, extra CLI args)
HOSTILE_MODULES = [
    ("undefined-function", HEAD + "f = sp.Function('f')\nCLAIMS = [Identity(id='u', title='t', ref='1', "
     "lhs=f(x), rhs=x, domain=D)]\n", "u", ["undefined function", "sp.Function('f')", "Use a sympy function"], ()),
    ("division-by-zero", HEAD + "CLAIMS = [Identity(id='z', title='t', ref='1', lhs=x/0, rhs=x, domain=D)]\n",
     "z", ["division by zero", "`lhs`"], ()),
    ("nan", HEAD + "CLAIMS = [Identity(id='n', title='t', ref='1', lhs=x + sp.nan, rhs=x, domain=D)]\n",
     "n", ["nan", "`lhs`"], ()),
    ("nested-too-deep", HEAD + "e = x\nfor i in range(20000):\n    e = sp.Add(e, x**(i % 5), evaluate=False)\n"
     "CLAIMS = [Identity(id='deep', title='t', ref='1', lhs=e, rhs=e, domain=D)]\n",
     "deep", ["too deep", "sp.Add(*terms)"], ()),
    ("floats", HEAD + "CLAIMS = [Identity(id='fl', title='t', ref='1', lhs=(0.1 + 0.2)*x, "
     "rhs=sp.Rational(3, 10)*x, domain=D)]\n", "fl", ["floating-point", "sp.Rational"], ()),
    ("syntax-error", "CLAIMS = [\n", None, ["syntax error", "line"], ()),
    ("import-raises", "x = 1 / 0\nCLAIMS = []\n", None, ["ZeroDivisionError", "line 1"], ()),
    ("no-claims", "X = 1\n", None, ["defines no CLAIMS"], ()),
    ("python-loop", "while True:\n    pass\n", None, ["did not finish within 0.5 s of CPU time"],
     ("--timeout", "0.5")),
    # OpenSSL's loop never returns to the interpreter: no Python-level limit or Ctrl-C reaches
    # it; the kernel's CPU limit on the loading child does
    ("native-hang", "import hashlib\nhashlib.pbkdf2_hmac('sha256', b'x', b'y', 2**31 - 1)\nCLAIMS = []\n", None,
     ["did not finish within 0.5 s of CPU time", "native code"], ("--timeout", "0.5")),
    ("segfault", "import ctypes\nctypes.string_at(0)\nCLAIMS = []\n", None, ["crashed the interpreter", "SIGSEGV"],
     ()),
    # blocks with the timer signals masked: only the parent's wall-clock net (--wall-limit, else
    # 10 x --timeout, + 5 s) ends it
    ("blocks", "import signal, time\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM, signal.SIGPROF, "
     "signal.SIGVTALRM])\ntime.sleep(3600)\nCLAIMS = []\n", None, ["did not finish within 1 s", "blocks"],
     ("--timeout", "0.5", "--wall-limit", "1")),
]


@pytest.mark.parametrize("case,source,claim,fragments,extra", HOSTILE_MODULES,
                         ids=[c[0] for c in HOSTILE_MODULES])
def test_hostile_module_is_named_and_contained(tmp_path, capsys, case, source, claim, fragments, extra):
    d = tmp_path / "derivs"
    d.mkdir()
    (d / "a_good.py").write_text(textwrap.dedent(GOOD), encoding="utf-8")
    (d / "hostile.py").write_text(source, encoding="utf-8")
    rdir = tmp_path / "r"
    code = main(["--derivations", str(d), "--report-dir", str(rdir), "--no-cache", "--jobs", "1", "--no-html",
                 "--no-latex", *extra])
    err = capsys.readouterr()
    assert code == ExitCode.FAILED, err
    data = json.loads((rdir / "claims.json").read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["good"]["status"] == "proved"  # the broken module stopped nothing else
    if claim is None:
        problems = [p for p in data["problems"] if p["file"] == "hostile.py"]
        assert len(problems) == 1, data["problems"]
        text = problems[0]["cause"]
        assert f"PROBLEM hostile.py: {text}" in err.err
    else:
        text = by_id[claim]["message"]
        assert by_id[claim]["source"] == "hostile.py" and by_id[claim]["status"] in ("error", "refuted")
        if by_id[claim]["status"] == "error":
            assert f"claim '{claim}'" in text
    for frag in fragments:
        assert frag in text, (frag, text)
    # no internal exception name leaks as the whole cause
    assert not re.fullmatch(r"\w*(Error|Exception)(: .*)?", text)


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "1e309", "abc"])
def test_timeout_option_is_validated(tmp_path, capsys, value):
    assert main(["--derivations", str(tmp_path), "--timeout", value]) == ExitCode.USAGE
    assert "timeout must be" in capsys.readouterr().err


# ------------------------------------------------------------------ report directory
def _marker_module(marker: Path) -> str:
    return (f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
            + textwrap.dedent(GOOD))


def test_report_dir_that_is_a_file_fails_before_verification(tmp_path, capsys):
    d = tmp_path / "derivs"
    d.mkdir()
    marker = tmp_path / "imported"
    (d / "m.py").write_text(_marker_module(marker), encoding="utf-8")
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    assert main(["--derivations", str(d), "--report-dir", str(afile)]) == ExitCode.USAGE
    assert "is a file, not a directory" in capsys.readouterr().err
    assert main(["--derivations", str(d), "--report-dir", str(afile / "sub")]) == ExitCode.USAGE
    assert "cannot create the report directory" in capsys.readouterr().err
    assert not marker.exists()  # nothing was verified
    assert afile.read_text() == "not a directory"


def _unwritable_dir(tmp_path) -> Path:
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        return ro
    # root writes through permissions: a read-only file system is what stops it
    for cand in (Path("/sys"), Path("/proc/sys")):
        try:
            (cand / ".verify-claims-probe").write_text("")
        except OSError:
            return cand
        (cand / ".verify-claims-probe").unlink()
    pytest.skip("no unwritable directory available to root here")


def test_unwritable_report_dir_fails_before_verification(tmp_path, capsys):
    d = tmp_path / "derivs"
    d.mkdir()
    marker = tmp_path / "imported"
    (d / "m.py").write_text(_marker_module(marker), encoding="utf-8")
    ro = _unwritable_dir(tmp_path)
    assert main(["--derivations", str(d), "--report-dir", str(ro)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "cannot write to the report directory" in err and "Traceback" not in err
    assert not marker.exists()


def test_files_not_produced_by_this_run_are_removed(tmp_path, capsys):
    d = tmp_path / "derivs"
    d.mkdir()
    (d / "m.py").write_text(textwrap.dedent(GOOD), encoding="utf-8")
    rdir = tmp_path / "r"
    (rdir).mkdir()
    (rdir / "notes.txt").write_text("mine")  # not a report file: never touched
    base = ["--derivations", str(d), "--report-dir", str(rdir), "--jobs", "1"]
    assert main(base + ["--no-pdf"]) == 0
    assert {"claims.json", "report.html", "report.tex", "mathjax"} <= {p.name for p in rdir.iterdir()}
    assert main(base + ["--no-latex", "--no-html", "--seed", "7"]) == 0
    names = {p.name for p in rdir.iterdir()}
    assert "claims.json" in names and "notes.txt" in names
    assert not names & {"report.html", "report.tex", "report.pdf", "mathjax", "figures"}, names
    assert json.loads((rdir / "claims.json").read_text())["run"]["seed"] == 7
    capsys.readouterr()


def _staged_set(rdir: Path, seed: int) -> Path:
    staging = rdir / f"{STAGING_PREFIX}999-test"
    staging.mkdir(parents=True)
    (staging / "claims.json").write_text(json.dumps({"run": {"seed": seed}}))
    (staging / "report.html").write_text(f"seed {seed}")
    (staging / "figures").mkdir()
    (staging / "figures" / "a.pdf").write_text(f"seed {seed}")
    return staging


def test_a_publish_cut_short_is_completed_by_the_next_run(tmp_path):
    """A kill between the renames of a publish: the journal makes the next run finish it."""
    rdir = tmp_path / "r"
    with ReportDir(rdir) as rd:
        for name, text in (("claims.json", json.dumps({"run": {"seed": 1}})), ("report.html", "seed 1"),
                           ("report.pdf", "seed 1")):
            (rd.staging / name).write_text(text)
        rd.publish(["claims.json", "report.html", "report.pdf"])
    staging = _staged_set(rdir, 2)
    (rdir / JOURNAL).write_text(json.dumps({"staging": staging.name,
                                            "names": ["figures", "report.html", "claims.json"]}))
    os.replace(staging / "report.html", rdir / "report.html")  # the kill came after one rename
    (rdir / f"{STAGING_PREFIX}1234-dead").mkdir()  # a killed run's staging directory
    with ReportDir(rdir) as rd:
        names = {p.name for p in rdir.iterdir()}
        assert json.loads((rdir / "claims.json").read_text())["run"]["seed"] == 2
        assert (rdir / "report.html").read_text() == "seed 2"
        assert (rdir / "figures" / "a.pdf").read_text() == "seed 2"
        assert "report.pdf" not in names  # not part of the published set
        assert JOURNAL not in names
        assert list(rdir.glob(STAGING_PREFIX + "*")) == [rd.staging]  # leftovers removed
    assert not list(rdir.glob(STAGING_PREFIX + "*"))


# --------------------------------------------------------- kills, signals, concurrency
def _derivs(tmp_path, extra: dict | None = None, *, paper_figures: bool = False) -> Path:
    """The tiny paper (one figure); with `paper_figures`, also a copy of the paper's Figures 1-3
    (several curves each: 1.5 s of CPU per run to compute and draw, so only where the
    figures' own bytes are compared)."""
    d = tmp_path / "derivs"
    d.mkdir(exist_ok=True)
    (d / "s9_tiny.py").write_text(MODULE, encoding="utf-8")
    if paper_figures:
        shutil.copy(Path(__file__).resolve().parent / "_paper_figures_module.py", d / "paper_figures.py")
    for name, text in (extra or {}).items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def _popen(d, rdir, env, seed, *extra):
    return subprocess.Popen([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir",
                             str(rdir), "--jobs", "1", "--no-cache", "--seed", str(seed), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)


def _snapshot(rdir: Path) -> dict:
    """Every report file's hash (the proof store, lock and staging leftovers aside)."""
    out = {}
    for p in sorted(rdir.rglob("*")):
        rel = p.relative_to(rdir).as_posix()
        if p.is_file() and not rel.startswith("."):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _hidden(rdir: Path) -> set:
    """The names of the directory's hidden entries (the lock file, staging directories, a
    publish journal, the proof store)."""
    return {p.name for p in rdir.iterdir() if p.name.startswith(".")}


def _seeds(rdir: Path) -> set:
    """The seed each report file states: one run's set states one seed."""
    seeds = {json.loads((rdir / "claims.json").read_text())["run"]["seed"]}
    if (rdir / "report.html").exists():
        seeds.add(int(re.search(r"<td>seed</td><td><code>(\d+)</code>", (rdir / "report.html").read_text()).group(1)))
    if (rdir / "report.tex").exists():
        seeds.add(int(re.search(r"seed & (\d+)", (rdir / "report.tex").read_text()).group(1)))
    if (rdir / "report.pdf").exists() and shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-layout", str(rdir / "report.pdf"), "-"], capture_output=True, text=True).stdout
        seeds.add(int(re.search(r"^seed\s+(\d+)", text, re.M).group(1)))
    return seeds


def _descendants(pid: int) -> set:
    kids: dict = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        kids.setdefault(int(fields[1]), set()).add(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for k in kids.get(todo.pop(), ()):
            if k not in out:
                out.add(k)
                todo.append(k)
    return out


def _alive(pids) -> set:
    alive = set()
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(p)
    return alive


def _assert_gone(family) -> None:
    t0 = time.monotonic()
    while _alive(family) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    left = _alive(family)
    assert not left, [Path(f"/proc/{p}/cmdline").read_bytes() for p in left]


def _wait_for(cond, proc, what, limit=240.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        got = cond()
        if got:
            return got
        if proc.poll() is not None:
            pytest.fail(f"the run ended (exit {proc.returncode}) before {what}: {proc.stdout.read()[-2000:]}")
        time.sleep(0.005)
    proc.kill()
    pytest.fail(f"timed out waiting for {what}")


def _pdflatex_child(pid):
    for k in _descendants(pid):
        try:
            if Path(f"/proc/{k}/comm").read_text().strip().startswith("pdflatex"):
                return k
        except OSError:
            pass
    return None


def _staged(rdir, name):
    return next((s for s in rdir.glob(STAGING_PREFIX + "*") if (s / name).exists()), None)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> Path:
    """A directory holding `derivs` (the tiny paper) and `r`, its complete report set of seed 1."""
    base = tmp_path_factory.mktemp("first-run")
    d = _derivs(base)
    first = _popen(d, base / "r", _pythonpath_env(), 1)
    out, _ = first.communicate(timeout=600)
    assert first.returncode == 1, out  # the tiny paper has one deliberately failing claim
    return base


SLOW_IMPORT = "import sys, time\nprint('SLOW-IMPORT-STARTED', flush=True)\ntime.sleep(120)\nCLAIMS = []\n"


def _kill_in_phase(d, rdir, cli_env, phase, how):
    """Start a run of seed 2 over the first run's set, signal it in `phase`: (the process,
    its family, what it printed)."""
    if phase == "verification":
        (d / "slow.py").write_text(SLOW_IMPORT, encoding="utf-8")
    proc = _popen(d, rdir, cli_env, 2)
    if phase == "verification":
        _wait_for(lambda: "SLOW-IMPORT-STARTED" in (proc.stdout.readline() or ""), proc, "the slow import")
    elif phase == "rendering":
        _wait_for(lambda: _staged(rdir, "report.html"), proc, "report.html in the staging directory")
    elif phase == "publishing":  # claims.json is staged last, the moment before the renames
        # a window of milliseconds: the run may be past it (even finished) when the signal lands
        while proc.poll() is None and not (_staged(rdir, "claims.json") or (rdir / JOURNAL).exists()):
            time.sleep(0.001)
    else:
        _wait_for(lambda: _pdflatex_child(proc.pid), proc, "pdflatex")
    family = _descendants(proc.pid) | {proc.pid}
    try:
        if how == signal.SIGINT:
            os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
        else:
            os.kill(proc.pid, how)
    except ProcessLookupError:  # publishing: the run had already ended
        assert phase == "publishing"
    out, _ = proc.communicate(timeout=120)
    return proc, family, out


def _outran(rdir) -> bool:
    """Did the run reach its renames (a journal) or finish them (its seed published)?"""
    return (rdir / JOURNAL).exists() or 2 in _seeds(rdir)


@pytest.mark.parametrize("phase", ["verification", "rendering", "pdflatex", "publishing"])
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=["kill-9", "sigint", "sigterm"])
def test_killed_run_leaves_a_consistent_report(tmp_path, cli_env, first_run, phase, how):
    if phase in ("pdflatex", "rendering"):
        # "rendering" too: report.html sits staged while report.tex and the PDFs are made;
        # without pdflatex that window is a few milliseconds and the run may end before
        # the signal is sent (the test then fails waiting, not the code under test)
        need("pdflatex")
    for attempt in range(3):
        # the previous run's complete set: the same for every case, so made once and copied
        d, rdir = tmp_path / f"derivs-{attempt}", tmp_path / f"r-{attempt}"
        shutil.copytree(first_run / "derivs", d)
        shutil.copytree(first_run / "r", rdir)
        before = _snapshot(rdir)
        hidden_before = _hidden(rdir)
        assert "claims.json" in before and _seeds(rdir) == {1}
        proc, family, out = _kill_in_phase(d, rdir, cli_env, phase, how)
        if phase == "publishing" or not _outran(rdir):
            break
        # the run got past the phase before the signal landed: on a loaded machine this
        # process can be held back for longer than the rendering or pdflatex window lasts.
        # The phase was not tested: again (a run that ignored the signal would outrun it
        # every time, and fail below)
    else:
        pytest.fail(f"in 3 attempts the signal never landed during {phase}: the run published its set\n{out}")
    if phase == "publishing":
        # before the renames: 5; during them: 5 once they are done; after: the run's own
        # code, or the signal itself when it lands as the interpreter exits
        assert proc.returncode in (ExitCode.INTERRUPTED, ExitCode.FAILED, -how), out
    elif how == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == ExitCode.INTERRUPTED, out
        assert "nothing was published" in out and "interrupted again" not in out, out
    if proc.returncode == ExitCode.INTERRUPTED:
        # cleaned up on the way out: no staging directory, no pdflatex working directory
        assert not list(rdir.glob(STAGING_PREFIX + "*"))
    if phase != "publishing":
        assert _snapshot(rdir) == before  # the previous run's complete set, untouched
    else:
        # the kill came just before, during or after the renames: the previous set, the new
        # set, or a journal with which the next run (here: opening the directory) completes it
        with ReportDir(rdir):
            pass
        assert _snapshot(rdir) == before or _seeds(rdir) == {2}
        assert set(_snapshot(rdir)) == set(before)  # complete: the same files as a full run
    # no process of the killed run keeps running (workers, the loading child, pdflatex)
    _assert_gone(family)
    if how != signal.SIGKILL and phase != "publishing":
        # an interrupted run cleaned up on its way out: the previous set untouched (above) and
        # nothing hidden left beside it (no staging directory, no journal, only the lock
        # file), so a next run starts from exactly the state the first run left -- that run
        # is made where something is left to clean up or complete (kill -9, publishing)
        assert _hidden(rdir) == hidden_before
        return
    # the next run publishes its own complete set and removes what the killed one left
    (d / "slow.py").unlink(missing_ok=True)
    third = _popen(d, rdir, cli_env, 3)
    out, _ = third.communicate(timeout=600)
    assert third.returncode == 1, out
    assert _seeds(rdir) == {3}
    assert not list(rdir.glob(STAGING_PREFIX + "*")) and not (rdir / JOURNAL).exists()


NATIVE_HANG = ("import hashlib\nprint('NATIVE-HANG-STARTED', flush=True)\n"
               "hashlib.pbkdf2_hmac('sha256', b'x', b'y', 2**31 - 1)\nCLAIMS = []\n")


def test_ctrl_c_stops_an_import_hanging_in_native_code(tmp_path, cli_env):
    """The hang ignores signals (OpenSSL's loop never returns to the interpreter): Ctrl-C
    still ends the run at once, because the import runs in a child the parent kills."""
    d = _derivs(tmp_path, {"hang.py": NATIVE_HANG})
    rdir = tmp_path / "r"
    proc = _popen(d, rdir, cli_env, 1)
    _wait_for(lambda: "NATIVE-HANG-STARTED" in (proc.stdout.readline() or ""), proc, "the hanging import")
    time.sleep(0.5)
    family = _descendants(proc.pid) | {proc.pid}
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, out
    assert time.monotonic() - t0 < 10
    _assert_gone(family)
    assert not rdir.exists() or not list(rdir.glob(STAGING_PREFIX + "*"))


def test_concurrent_runs_each_publish_a_complete_set(tmp_path, cli_env):
    d = _derivs(tmp_path)
    rdir = tmp_path / "r"
    a = _popen(d, rdir, cli_env, 11)
    time.sleep(0.3)
    b = _popen(d, rdir, cli_env, 12)
    out_a, _ = a.communicate(timeout=600)
    out_b, _ = b.communicate(timeout=600)
    assert a.returncode == 1 and b.returncode == 1, out_a + out_b
    waited = [o for o in (out_a, out_b) if "waiting for another verify-claims run" in o]
    assert waited, "the second run did not wait for the first"
    assert len(_seeds(rdir)) == 1  # one run's complete set
    assert not list(rdir.glob(STAGING_PREFIX + "*"))


# ------------------------------------------------------------------ verdict first
BAD_LATEX = HEAD.replace("x = sp.Symbol('x')", "x = sp.Symbol(r'\\undefinedmacroxyz')") + (
    "CLAIMS = [Identity(id='unknown-macro', title='t', ref='1', lhs=(x + 1)**2, rhs=x**2 + 2*x + 1, domain=D)]\n")


def test_latex_failure_is_its_own_exit_code_only_when_claims_hold(tmp_path, capsys):
    need("pdflatex")
    d = tmp_path / "derivs"
    d.mkdir()
    (d / "m.py").write_text(BAD_LATEX, encoding="utf-8")
    rdir = tmp_path / "r"
    assert main(["--derivations", str(d), "--report-dir", str(rdir), "--jobs", "1"]) == ExitCode.REPORT
    cap = capsys.readouterr()
    assert "report.pdf could not be rendered" in cap.err
    assert "Undefined control sequence" in cap.err and "report.tex line" in cap.err
    assert "== OK: 1 claims" in cap.out  # the verdict was printed first
    names = {p.name for p in rdir.iterdir()}
    assert {"claims.json", "report.html", "report.tex", "report.log"} <= names and "report.pdf" not in names
    # with a failing claim, the verdict is the exit code
    (d / "n.py").write_text(HEAD + "CLAIMS = [Identity(id='wrong', title='t', ref='1', lhs=x**2, rhs=x, domain=D)]\n",
                            encoding="utf-8")
    assert main(["--derivations", str(d), "--report-dir", str(rdir), "--jobs", "1"]) == ExitCode.FAILED
    assert "report.pdf could not be rendered" in capsys.readouterr().err


def test_pdfs_are_typeset_while_the_html_renders(tmp_path, monkeypatch):
    """report.pdf and findings.pdf compile in pdflatex processes (waited on by threads)
    while report.html renders in the main thread; both sets of files are published."""
    need("pdflatex")
    import threading

    from verify_claims.report import html

    seen = []
    real = html.write_html

    def write_html(*a, **kw):
        seen.append(sorted(t.name for t in threading.enumerate() if t.name.startswith("pdflatex")))
        return real(*a, **kw)

    monkeypatch.setattr(html, "write_html", write_html)
    d = tmp_path / "derivs"
    d.mkdir()
    (d / "m.py").write_text(HEAD + "CLAIMS = [Identity(id='sq', title='t', ref='1', lhs=(x + 1)**2, "
                            "rhs=x**2 + 2*x + 1, domain=D)]\n", encoding="utf-8")
    rdir = tmp_path / "r"
    assert main(["--derivations", str(d), "--report-dir", str(rdir), "--jobs", "1", "--no-cache"]) == ExitCode.OK
    assert seen and len(seen[0]) == 2, seen  # both builds under way when the HTML started
    names = {p.name for p in rdir.iterdir()}
    assert {"report.html", "report.tex", "report.pdf", "findings.tex", "findings.pdf", "claims.json"} <= names
    assert not any(t.name.startswith("pdflatex") for t in threading.enumerate())  # joined


def test_a_pdf_build_that_cannot_start_pdflatex_is_a_report_failure_and_an_interrupt_wins(
        tmp_path, monkeypatch, capsys):
    """pdflatex is started from a thread: an error starting it (a Ctrl-C reaching the
    child in its preexec_fn is reported so, as SubprocessError) is that PDF's failure, not
    an internal error; and while report.html renders, an interrupt is not replaced by it
    (found by the kill test sigint-pdflatex, about one run in four)."""
    need("pdflatex")
    import subprocess as sp_

    from verify_claims.report import html, tex

    def no_start(*a, **kw):
        raise sp_.SubprocessError("Exception occurred in preexec_fn.")

    monkeypatch.setattr(tex, "build_pdf", no_start)
    d = tmp_path / "derivs"
    d.mkdir()
    (d / "m.py").write_text(HEAD + "CLAIMS = [Identity(id='sq', title='t', ref='1', lhs=(x + 1)**2, "
                            "rhs=x**2 + 2*x + 1, domain=D)]\n", encoding="utf-8")
    args = ["--derivations", str(d), "--jobs", "1", "--no-cache"]
    assert main(args + ["--report-dir", str(tmp_path / "r")]) == ExitCode.REPORT
    err = capsys.readouterr().err
    assert "report.pdf could not be rendered: SubprocessError" in err and "internal error" not in err

    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(html, "write_html", interrupted)
    assert main(args + ["--report-dir", str(tmp_path / "r2")]) == ExitCode.INTERRUPTED
    assert "internal error" not in capsys.readouterr().err
    assert not (tmp_path / "r2" / "report.pdf").exists()


# ------------------------------------------------------------------ reproducible bytes
def _without_timing(obj):
    if isinstance(obj, dict):
        return {k: _without_timing(v) for k, v in obj.items() if not is_timing(k)}
    if isinstance(obj, list):
        return [_without_timing(v) for v in obj]
    return obj


def test_same_inputs_and_seed_give_the_same_bytes(tmp_path, cli_env):
    d = _derivs(tmp_path, paper_figures=True)
    rdir = tmp_path / "r"
    copies = []
    for k in range(2):
        proc = _popen(d, rdir, cli_env, 5, "--no-pdf")
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 1, out
        copies.append({n: (rdir / n).read_text(encoding="utf-8") for n in ("claims.json", "report.html", "report.tex")})
        if k == 0:
            time.sleep(1.1)  # a different second: any wall-clock stamp outside timing fields would show
    a, b = copies
    assert _without_timing(json.loads(a["claims.json"])) == _without_timing(json.loads(b["claims.json"]))
    for name in ("report.html", "report.tex"):
        assert strip_timing(a[name]) == strip_timing(b[name]), name
    # the comparison can fail: a different seed changes the bytes
    proc = _popen(d, rdir, cli_env, 6, "--no-pdf")
    proc.communicate(timeout=600)
    assert strip_timing((rdir / "report.html").read_text(encoding="utf-8")) != strip_timing(a["report.html"])
