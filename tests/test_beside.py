"""Work the run's parent does beside the verification (run.supervise, ``beside``).

The child that loads the derivations does so on one core; meanwhile the parent imports the
report renderers and compiles the templates (cli._renderers_beside), and a process of the
child draws the figures (run/figures_beside.py).  Shown
here: the work starts only after the child is forked, is done before the run returns, and a
child forked again (after a module crashed the interpreter) is forked with no such thread
running, so no child ever inherits an import lock held by a thread that does not exist in
it.  The reports themselves are the same bytes with or without it (test_hardening compares
two runs byte for byte).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time

from verify_claims.run.supervise import run_supervised


def _beside(log: list, seconds: float = 0.3):
    def start():
        log.append(("started", os.getpid(), len(mp.active_children()), time.monotonic()))

        def work():
            time.sleep(seconds)
            log.append(("finished", time.monotonic()))
        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        log.append(("thread", thread))
        return thread
    return start


def _ok(emit, guard):
    return 42


def test_work_beside_starts_after_the_fork_and_ends_before_the_run_returns():
    log: list = []
    assert run_supervised(_ok, import_timeout=30, beside=_beside(log)) == 42
    started = [e for e in log if e[0] == "started"]
    assert len(started) == 1
    _, pid, children, _ = started[0]
    assert pid == os.getpid() and children == 1  # in this process, with the child already forked
    thread = next(e[1] for e in log if e[0] == "thread")
    assert not thread.is_alive() and any(e[0] == "finished" for e in log)


def _raises(emit, guard):
    raise ValueError("a broken selection")


def test_work_beside_ends_before_an_error_of_the_child_is_raised_here():
    """An error of the child (an unknown --only id, say) reaches the caller, which may run
    again in the same process (the pytest plugin, the tests): the thread is done by then."""
    import pytest

    log: list = []
    with pytest.raises(ValueError, match="a broken selection"):
        run_supervised(_raises, import_timeout=30, beside=_beside(log))
    thread = next(e[1] for e in log if e[0] == "thread")
    assert not thread.is_alive()


def _crash_once(marker):
    def work(emit, guard):
        if not os.path.exists(marker):
            open(marker, "w").close()
            with guard.importing("crash.py"):
                os._exit(3)  # dies while "importing": the parent forks a child again, skipping it
        return sorted(guard.skip)
    return work


def test_a_child_forked_again_is_forked_after_the_work_beside_is_done(tmp_path):
    log: list = []
    forks: list = []
    real_start = mp.get_context("fork").Process.start

    def start(self):
        # what is running in this process the moment a child is forked
        forks.append([t for t in threading.enumerate() if t is not threading.main_thread() and t.is_alive()])
        return real_start(self)

    ctx_process = mp.get_context("fork").Process
    ctx_process.start = start
    try:
        skipped = run_supervised(_crash_once(str(tmp_path / "crashed")), import_timeout=30,
                                 beside=_beside(log, seconds=1.0))
    finally:
        ctx_process.start = real_start
    assert skipped == ["crash.py"]
    assert len(forks) == 2
    thread = next(e[1] for e in log if e[0] == "thread")
    assert thread not in forks[1], "a child was forked while the work beside was still running"
    assert [e[0] for e in log].count("started") == 1  # once per run, not once per child
    assert not thread.is_alive()


def _parent_imports(tmp_path, env, derivs, rdir, *extra) -> list:
    from _report_fixtures import parent_imports

    return parent_imports(tmp_path, env, derivs, rdir, ("matplotlib", "jinja2", "drawn-beside"), *extra)


def _tiny(tmp_path):
    from _report_fixtures import MODULE as REPORT_MODULE

    d = tmp_path / "derivs"
    d.mkdir()
    (d / "s9_tiny.py").write_text(REPORT_MODULE, encoding="utf-8")
    return d, REPORT_MODULE


def test_no_work_beside_without_a_report(tmp_path, cli_env):
    """--no-html --no-latex: nothing to render, so the parent imports no renderer and no
    matplotlib (the child, which verifies, imports sympy), and nothing is drawn beside.  With
    a report, the figures are drawn beside the loading (run/figures_beside.py), and the
    parent prints those drawings without importing matplotlib.  A directory without
    figures: the report is rendered, and nothing is drawn, so no matplotlib either."""
    d, _ = _tiny(tmp_path)
    rdir = tmp_path / "r"
    assert _parent_imports(tmp_path, cli_env, d, rdir, "--no-cache") == ["drawn-beside", "jinja2"]  # not vacuous
    assert _parent_imports(tmp_path, cli_env, d, rdir, "--no-cache", "--no-html", "--no-latex") == []
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "m.py").write_text(
        "import sympy as sp\nfrom verify_claims import Identity, Ref\nx = sp.Symbol('x', positive=True)\n"
        "CLAIMS = [Identity(id='square', title='t', ref=Ref('1'), lhs=(x + 1)**2, rhs=x**2 + 2*x + 1,"
        " domain={x: sp.Interval.open(0, 10)})]\n", encoding="utf-8")
    assert _parent_imports(tmp_path, cli_env, plain, tmp_path / "r2", "--no-cache") == ["jinja2"]
    assert (tmp_path / "r2" / "report.html").is_file()


def test_matplotlib_is_left_to_the_drawing_when_the_store_holds_drawings(tmp_path, cli_env):
    """The edit loop: one claim changed, its figure's drawings already in the store.  The
    figures are drawn beside the loading only while the store holds no drawings (a first
    run, --no-cache); here it would be seconds of CPU for nothing, and the parent prints
    the stored drawings without matplotlib."""
    d, module_text = _tiny(tmp_path)
    rdir = tmp_path / "r"
    first = _parent_imports(tmp_path, cli_env, d, rdir)
    # a changed title: the directory is loaded again in a child (its claims' results come
    # from the store) and the report is rendered again
    edited = module_text.replace('title="A claim that is simply false"', 'title="Edited: simply false"')
    assert edited != module_text
    (d / "s9_tiny.py").write_text(edited, encoding="utf-8")
    second = _parent_imports(tmp_path, cli_env, d, rdir)
    assert first == ["drawn-beside", "jinja2"]  # the first run drew the figure, beside its loading
    assert second == ["jinja2"]  # rendered again, the drawing from the store
    assert "Edited: simply false" in (rdir / "report.html").read_text(encoding="utf-8")
