"""The report's figures computed and drawn beside the loading, in a process of their own.

A run's child loads the derivation modules on one core (run/supervise.py), while the other
core has nothing to do; the figures' data (report/figures.py, about 0.9 s of CPU for the
bundled paper) and their drawings (matplotlib, about 1.5 s with its import) used to come
after the last claim, on one core again.  So, when a run will draw (reports rendered, no
drawings in the store: a fresh clone, ``--no-cache``), the child forks a process before it
loads anything; that process imports only the modules that mention FIGURES, computes their
figures and draws them, and hands back {figure key: (data, drawings)}.

Nothing is trusted by name: a figure is taken from this process only under the key the
run's own loading gives it (``session.figure_key``: every field of its declaration, the
engine, the settings); any other figure, or all of them if the process failed, is computed
in the run's child as before.  The drawings are keyed by what they draw
(``report.plots.drawn_key``), so a renderer prints a provided drawing only for the same data;
and nothing is drawn here when importing the derivation modules imported matplotlib or changed
its global settings (the renderers' matplotlib does not have those).

What this assumes, as the store of figures already does: a figure depends on its declaration
(and the modules it imports), not on state another derivation module sets at import.  The
modules that mention FIGURES are imported twice (here and in the run's child, at the same
time), so their import-time side effects, if they have any, happen twice; what they print
is not shown from here.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from pathlib import Path

__all__ = ["FiguresBeside", "modules_mentioning_figures"]


def modules_mentioning_figures(directory) -> list:
    """The derivation modules (not the _helpers) whose text mentions FIGURES: those that may
    declare figures (a guess: a figure declared otherwise is computed by the run's child)."""
    try:
        return sorted(p.name for p in Path(directory).glob("*.py")
                      if not p.name.startswith("_") and b"FIGURES" in p.read_bytes())
    except OSError:
        return []


# the longest the run's child waits for the process after its claims (it normally answered
# long before: its work is a few seconds beside a loading of about as long)
MAX_WAIT = 600.0


class FiguresBeside:
    """The process computing and drawing the figures (`start`), and its answer (`take`)."""

    def __init__(self, proc, conn, wait: float = 600.0):
        self._proc, self._conn, self._wait = proc, conn, wait

    @classmethod
    def start(cls, options, base_key: str, formats, skip=()) -> FiguresBeside | None:
        """Fork the process, or None when there is nothing for it to do.  `skip`: files
        whose import was stopped before (run.supervise.ImportGuard), not imported again."""
        files = [f for f in modules_mentioning_figures(options.derivations) if f not in skip]
        if not files or "fork" not in mp.get_all_start_methods():
            return None
        ctx = mp.get_context("fork")
        here, there = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_compute_and_draw,
                           args=(there, options, base_key, tuple(formats), files, os.getpid()),
                           name="verify-claims-figures", daemon=True)
        proc.start()
        there.close()
        wall = 10 * options.import_timeout if options.import_wall is None else options.import_wall
        return cls(proc, here, wait=min(wall, MAX_WAIT) if wall == wall else MAX_WAIT)

    def take(self) -> dict:
        """{figure key: (data, drawings)} as the process computed them (it is waited for, at
        most the wall time an import may take), or {} if it failed or did not answer: then
        the run's child computes every figure itself, as it did before this process existed."""
        answered = False
        try:
            if self._conn.poll(self._wait):
                got, answered = self._conn.recv(), True
            else:
                print(f"verify-claims: warning: the process computing the figures beside the loading did not "
                      f"answer within {self._wait:g} s; they are computed again here", file=sys.stderr)
                got = {}
        except Exception:  # noqa: BLE001 - whatever went wrong there, the figures are computed here
            got = {}
        finally:
            self._conn.close()
            if answered:
                self._proc.join(5)  # it ends right after answering
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join()
        return got if isinstance(got, dict) else {}

    def abandon(self) -> None:
        """Stop the process if it still runs: at the end of every run, after `take` or
        instead of it (a run that stopped early)."""
        self._conn.close()
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join()


def _matplotlib_settings():
    """matplotlib's global settings as they stand (None while it is not imported)."""
    mpl = sys.modules.get("matplotlib")
    return None if mpl is None else dict(mpl.rcParams)


def _compute_and_draw(conn, options, base_key, formats, files, parent) -> None:
    from ..children import die_with_parent

    die_with_parent()
    if os.getppid() != parent:
        os._exit(0)  # the run's child died before the line above took effect
    # the run's child prints what a module prints at import; this process's copy is not
    # shown, whether it is written through sys.stdout or to the file descriptors themselves
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of this process
    out = {}
    try:
        from ..report.plots import drawings, drawn_key
        from .collect import load_derivations
        from .session import compute_figures, figure_key

        settings = _matplotlib_settings()
        loaded = load_derivations(options.derivations, import_timeout=options.import_timeout,
                                  import_wall=options.import_wall, files=files)
        # a module that imported matplotlib or changed its global settings would have them
        # reach these drawings, not the renderers' (in the run's parent, which imports no
        # derivation module): then only the data come from here
        draw = _matplotlib_settings() == settings
        data = compute_figures(loaded.figures, options.store, base_key, reuse=not options.recheck)
        for fig, d in zip(loaded.figures, data):
            if d.get("problems") and not d.get("curves"):
                continue  # could not be computed: the run's child says why, as it always did
            drawn = drawings(d, formats) if d.get("curves") and draw else {}
            out[figure_key(fig, base_key)] = (d, {drawn_key(d): drawn} if drawn else {})
    except BaseException:  # noqa: BLE001 - whatever failed here, the run's child computes it
        out = {}
    try:
        conn.send(out)
    except (BrokenPipeError, OSError):
        pass
    finally:
        conn.close()
