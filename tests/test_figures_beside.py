"""The figures computed and drawn beside the loading (run/figures_beside.py).

The process beside only saves time: the figures and their drawings are the ones the run's
child and the renderers would have made; a figure is taken from it only under the key the
run itself gives the figure, and a process that fails leaves every figure to the child.
"""

from __future__ import annotations

import json
import os

import pytest

from verify_claims.report import plots
from verify_claims.run import figures_beside
from verify_claims.run.session import RunOptions, figure_key, run_directory
from verify_claims.run.settings import Settings

SETTINGS = Settings(samples=20)


@pytest.fixture
def tiny(tmp_path):
    from _report_fixtures import MODULE

    d = tmp_path / "derivs"
    d.mkdir()
    (d / "s9_tiny.py").write_text(MODULE, encoding="utf-8")
    # a second module, without figures: the process beside does not import it
    (d / "s8_plain.py").write_text(
        "import sympy as sp\nfrom verify_claims import Identity, Ref\nx = sp.Symbol('x', positive=True)\n"
        "CLAIMS = [Identity(id='plain-square', title='t', ref=Ref('1'), lhs=(x + 1)**2, rhs=x**2 + 2*x + 1,"
        " domain={x: sp.Interval.open(0, 10)})]\n", encoding="utf-8")
    return d


def _run(d, **kw):
    return run_directory(RunOptions(derivations=d, settings=SETTINGS, jobs=1, **kw))


def _without_seconds(figures):
    return json.loads(json.dumps([{k: v for k, v in f.items() if k != "seconds"} for f in figures], default=str))


def test_the_figures_drawn_beside_are_the_ones_drawn_here(tiny):
    plain = _run(tiny)
    beside = _run(tiny, draw=("svg", "pdf"))
    assert plain.drawings == {}
    assert _without_seconds(beside.figures) == _without_seconds(plain.figures)
    drawn = [f for f in beside.figures if f.get("curves")]
    assert drawn and set(beside.drawings) == {plots.drawn_key(f) for f in drawn}
    plots.provide({})
    for f in drawn:
        here = plots.drawings(f, ("svg", "pdf"))
        assert beside.drawings[plots.drawn_key(f)] == here  # the same bytes
        assert here["pdf"].startswith(b"%PDF") and "<svg" in here["svg"]
    # the renderers print what was provided, and draw what was not
    plots.provide({plots.drawn_key(drawn[0]): {"svg": "<svg>PROVIDED</svg>", "pdf": b"%PDF PROVIDED"}})
    try:
        assert plots.figure_svg(drawn[0]) == "<svg>PROVIDED</svg>"
        changed = {**drawn[0], "x_label": "$t$"}
        assert "PROVIDED" not in plots.figure_svg(changed)
    finally:
        plots.provide({})


def test_only_the_modules_mentioning_figures_are_imported_beside(tiny):
    assert figures_beside.modules_mentioning_figures(tiny) == ["s9_tiny.py"]


def _fails(conn, *args):
    os._exit(3)  # dies before answering


def test_a_process_beside_that_fails_leaves_every_figure_to_the_child(tiny, monkeypatch):
    plain = _run(tiny)
    monkeypatch.setattr(figures_beside, "_compute_and_draw", _fails)
    out = _run(tiny, draw=("svg", "pdf"))
    assert out.drawings == {}
    assert _without_seconds(out.figures) == _without_seconds(plain.figures)
    assert all(r.status for r in out.results)


def _hangs(conn, *args):
    import time
    time.sleep(60)


def test_a_process_beside_that_does_not_answer_is_not_waited_for_long(tiny, monkeypatch):
    import time
    monkeypatch.setattr(figures_beside, "_compute_and_draw", _hangs)
    beside = figures_beside.FiguresBeside.start(RunOptions(derivations=tiny, import_wall=0.5), "k", ("svg",))
    t0 = time.monotonic()
    assert beside.take() == {}  # the run's child then computes the figures itself
    assert time.monotonic() - t0 < 10
    beside.abandon()


def test_a_module_whose_import_was_stopped_is_not_imported_beside(tiny):
    """A module the run skips (its import hung or crashed before: run.supervise) is not
    imported again by the process beside; with nothing left to import, none is started."""
    assert figures_beside.FiguresBeside.start(RunOptions(derivations=tiny), "k", ("svg",),
                                             skip={"s9_tiny.py": "crashed"}) is None
    started = figures_beside.FiguresBeside.start(RunOptions(derivations=tiny), "k", ("svg",))
    assert started is not None  # not vacuous
    started.abandon()


def test_a_figure_is_taken_only_under_the_runs_own_key(tiny, monkeypatch):
    """What the process beside hands back is matched by the key this run gives each figure
    (its whole declaration, the engine, the settings): anything else is computed again."""
    forged = {"id": "fig-sqrt", "title": "FORGED", "curves": [], "problems": []}
    keys = {}

    def take_forged_under(key_of):
        def take(self):
            self.abandon()
            return {key_of(): (forged, {})}
        return take

    from verify_claims.run.collect import load_derivations
    from verify_claims.run.session import run_keys
    options = RunOptions(derivations=tiny, settings=SETTINGS, jobs=1, draw=("svg",))
    base_key = run_keys(options)[0]
    keys["right"] = figure_key(load_derivations(tiny).figures[0], base_key)

    monkeypatch.setattr(figures_beside.FiguresBeside, "take", take_forged_under(lambda: "some other key"))
    assert [f["title"] for f in run_directory(options).figures] != ["FORGED"]
    # the control: under the run's own key, what the process computed is what the run uses
    monkeypatch.setattr(figures_beside.FiguresBeside, "take", take_forged_under(lambda: keys["right"]))
    assert [f["title"] for f in run_directory(options).figures] == ["FORGED"]


def test_a_selection_draws_nothing_beside(tiny, monkeypatch):
    """--only, -k, --lf: no figures are computed, so no process is started for them."""
    def start(*a, **k):
        raise AssertionError("a process beside was started for a selection")
    monkeypatch.setattr(figures_beside.FiguresBeside, "start", start)
    out = _run(tiny, draw=("svg", "pdf"), only=("square-expands",))
    assert out.figures == [] and out.drawings == {}
    with pytest.raises(AssertionError, match="started for a selection"):  # not vacuous
        _run(tiny, draw=("svg", "pdf"))


def test_what_a_module_prints_at_import_is_shown_once(tiny, tmp_path, cli_env):
    """Through sys.stdout or to the file descriptor itself (C code, a subprocess)."""
    from _report_fixtures import run_cli

    text = (tiny / "s9_tiny.py").read_text(encoding="utf-8")
    (tiny / "s9_tiny.py").write_text('import os\nprint("IMPORTED-S9")\nos.write(1, b"FD-S9\\n")\n' + text,
                                     encoding="utf-8")
    proc = run_cli(tiny, tmp_path / "r", cli_env, "--no-cache", "--samples", "20", "--no-pdf", "-q")
    assert proc.stdout.count("IMPORTED-S9") == 1, proc.stdout
    assert proc.stdout.count("FD-S9") == 1, proc.stdout
    assert (tmp_path / "r" / "report.html").is_file()


def _red_axes(tiny):
    text = (tiny / "s9_tiny.py").read_text(encoding="utf-8")
    (tiny / "s9_tiny.py").write_text("import matplotlib\nmatplotlib.rcParams['axes.facecolor'] = '#ff0000'\n" + text,
                                     encoding="utf-8")


def test_a_module_that_changes_matplotlib_gets_no_drawing_from_beside(tiny, tmp_path, cli_env):
    """matplotlib's global settings, changed by a derivation module at import, would reach
    a drawing made beside it but not the renderers' own (the run's parent imports no
    derivation module): such a figure is drawn by the renderers, from the data computed
    beside.  The report's figure has no red axes."""
    from _report_fixtures import run_cli

    _red_axes(tiny)
    proc = run_cli(tiny, tmp_path / "r", cli_env, "--no-cache", "--samples", "20", "--no-pdf", "-q")
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "<svg" in html and "#ff0000" not in html, proc.stdout + proc.stderr


def test_matplotlib_changed_where_it_was_imported_before(tiny):
    """The same when the process running the verification had imported matplotlib already
    (a test session, a notebook): a change of its settings is seen, not only its import."""
    import matplotlib  # noqa: F401
    _red_axes(tiny)
    out = _run(tiny, draw=("svg", "pdf"))
    assert out.drawings == {}
    assert [f["id"] for f in out.figures] == ["fig-sqrt"] and out.figures[0]["curves"]


def test_a_parent_that_imported_matplotlib_still_gets_its_drawings(tiny):
    """matplotlib imported before the run (a test session, a notebook) and left as it was:
    the drawings made beside are this process's own."""
    import matplotlib  # noqa: F401
    out = _run(tiny, draw=("svg", "pdf"))
    assert out.drawings and all(set(d) == {"svg", "pdf"} for d in out.drawings.values())


def test_the_wait_is_bounded_however_long_an_import_may_take(tiny):
    """--timeout 1e6 (an import may then take 1e7 s of wall time) or an infinite wall limit
    from the API: the child still waits a bounded time (poll() refuses a timeout that large)."""
    import math
    for wall in (1e7, math.inf):
        beside = figures_beside.FiguresBeside.start(RunOptions(derivations=tiny, import_wall=wall), "k", ("svg",))
        assert beside._wait == figures_beside.MAX_WAIT
        assert isinstance(beside.take(), dict)
        beside.abandon()


def test_the_run_passes_its_skipped_modules_on(tiny, monkeypatch):
    """A module whose import the supervisor stopped (a crash in native code) is not imported
    again beside the loading: the run hands its skip list to the process."""
    from verify_claims.run import session
    from verify_claims.run.supervise import ImportGuard
    seen = []
    real = figures_beside.FiguresBeside.start

    def start(options, base_key, formats, skip=()):
        seen.append(dict(skip))
        return real(options, base_key, formats, skip=skip)
    monkeypatch.setattr(figures_beside.FiguresBeside, "start", staticmethod(start))

    class _Conn:
        def send(self, *a):
            pass
    guard = ImportGuard(_Conn(), 60, {"s9_tiny.py": "crashed before"})
    options = RunOptions(derivations=tiny, settings=SETTINGS, jobs=1, draw=("svg",))
    base_key, run_key = session.run_keys(options)
    out = session._load_and_verify(options, base_key, run_key, guard, None, None)
    assert seen == [{"s9_tiny.py": "crashed before"}]
    assert out.drawings == {} and [p.file for p in out.problems] == ["s9_tiny.py"]
