"""The report directory: one run, one report.

Every file of a run's report (claims.json, report.html and its MathJax, report.tex, its
figures, report.pdf) is written into a staging directory inside the report directory and
published together at the end, under a lock:

* **a lock** (``.verify-claims.lock``, flock) held from before verification to after
  publishing: a second run into the same directory waits, saying for whom;
* **checked first**: a report directory that is a file, or cannot be written, is an error
  before any verification starts, not a traceback after it;
* **published together**: a journal names the staging directory, then each file is renamed
  into place (claims.json last) and the journal removed.  A run killed while publishing is
  completed by the next run (roll forward), so the directory holds one run's complete set
  -- the new one's or, when the kill came before publishing, the previous one's;
* **nothing stale**: a report file this run did not produce (``--no-pdf`` after a full
  run) is removed, never left beside files of another run;
* **nothing left behind**: the staging directory (and pdflatex's working directory inside
  it) is removed on every exit path; a killed run's leftovers are removed by the next run.

Only the report's own names are ever removed or replaced: other files in the directory
(the proof store, a user's notes) are not touched.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
from contextlib import contextmanager
import uuid
from pathlib import Path

__all__ = ["REPORT_FILES", "ReportDir", "ReportDirError"]

# every name a report consists of, in publishing order: claims.json last, so a script that
# waits for it to change finds the rest of the set already in place
REPORT_FILES = ("mathjax", "figures", "report.html", "report.tex", "report.log", "report.pdf", "findings.tex",
                "findings.log", "findings.pdf", "claims.json")
LOCK = ".verify-claims.lock"
JOURNAL = ".verify-claims-publish.json"
STAGING_PREFIX = ".verify-claims-staging-"

try:
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX: no lock
    fcntl = None


@contextmanager
def _signals_deferred(signums=(signal.SIGINT, signal.SIGTERM)):
    """Hold SIGINT/SIGTERM while the block runs, then hand them to the handlers that were
    installed.  Python runs signal handlers in the main thread whichever thread the kernel
    picked, so swapping the Python-level handlers (not the thread's signal mask) is what
    keeps a KeyboardInterrupt out of the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    old = {s: signal.signal(s, lambda signum, frame: caught.append((signum, frame))) for s in signums}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        for signum, frame in caught[:1]:
            handler = old[signum]
            if callable(handler):
                handler(signum, frame)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


class ReportDirError(Exception):
    """The report directory cannot be used (it is a file, or not writable)."""


class ReportDir:
    """Use as a context manager: ``with ReportDir(path, on_wait=print) as rd:`` write the
    report files into ``rd.staging``, then ``rd.publish(names)``."""

    def __init__(self, path, on_wait=None):
        self.path = Path(path)
        self.staging: Path | None = None
        self.published = False
        self._lock_fh = None
        self._on_wait = on_wait

    # ------------------------------------------------------------------ opening
    def __enter__(self) -> ReportDir:
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> None:
        p = self.path
        if p.exists() and not p.is_dir():
            raise ReportDirError(f"--report-dir {p} is a file, not a directory: pass a directory "
                                 "(it is created if missing)")
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportDirError(f"cannot create the report directory {p}: {exc.strerror or exc}; pass "
                                 "--report-dir with a writable directory") from None
        try:
            self._lock()
            self._recover()
            self.staging = p / f"{STAGING_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
            self.staging.mkdir()
            probe = self.staging / ".probe"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            self.close()
            raise ReportDirError(f"cannot write to the report directory {p}: {exc.strerror or exc}; pass "
                                 "--report-dir with a writable directory") from None

    def _lock(self) -> None:
        if fcntl is None:  # pragma: no cover
            return
        fh = open(self.path / LOCK, "a+")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            if self._on_wait:
                self._on_wait(f"waiting for another verify-claims run ({holder}) to finish writing "
                              f"{self.path} (Ctrl-C to stop waiting)")
            try:
                fcntl.flock(fh, fcntl.LOCK_EX)
            except BaseException:
                fh.close()
                raise
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}\n")
        fh.flush()
        self._lock_fh = fh

    def _recover(self) -> None:
        """Under the lock: finish a publish a killed run began, remove its staging leftovers."""
        journal = self.path / JOURNAL
        if journal.exists():
            try:
                data = json.loads(journal.read_text(encoding="utf-8"))
                staging = self.path / Path(data["staging"]).name
                names = [n for n in data["names"] if n in REPORT_FILES]
            except (OSError, ValueError, KeyError, TypeError):
                staging, names = None, []
            if staging is not None and staging.is_dir():
                self._move_in(staging, names)
            journal.unlink()
        for leftover in self.path.glob(STAGING_PREFIX + "*"):
            shutil.rmtree(leftover, ignore_errors=True)
        for tmp in self.path.glob(".claims.json.*"):  # a temporary file of an older version's writer
            tmp.unlink(missing_ok=True)

    # ---------------------------------------------------------------- publishing
    def publish(self, names) -> list:
        """Move the staged `names` into the report directory as one set and remove the
        report files this run did not produce.  Returns the published paths."""
        names = [n for n in REPORT_FILES if n in set(names) and (self.staging / n).exists()]
        journal = self.path / JOURNAL
        tmp = self.path / (JOURNAL + ".tmp")
        # Ctrl-C or SIGTERM wait until the set is in place (their handlers run right after);
        # only kill -9 can cut the renames short, and the journal lets the next run finish them
        with _signals_deferred():
            tmp.write_text(json.dumps({"staging": self.staging.name, "names": names}), encoding="utf-8")
            os.replace(tmp, journal)
            self._move_in(self.staging, names)
            journal.unlink()
            self.published = True
        return [self.path / n for n in names]

    def _move_in(self, staging: Path, names) -> None:
        """Idempotent (a recovery may redo part of it): each staged name replaces the
        current one; report names not staged are moved out, then all is removed."""
        old = staging / ".replaced"
        old.mkdir(exist_ok=True)
        for name in REPORT_FILES:
            target, new = self.path / name, staging / name
            if name in names and not new.exists():
                continue  # already moved in before a kill
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(old / name, ignore_errors=True)
                os.replace(target, old / name)
            elif name not in names and (target.exists() or target.is_symlink()):
                target.unlink()
            if name in names:
                os.replace(new, target)  # a file replaces atomically; a directory was moved aside
        shutil.rmtree(staging, ignore_errors=True)

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Remove the staging directory (whatever was not published) and release the lock."""
        if self.staging is not None:
            # a publish that failed half-way (an I/O error) leaves its journal: the staged
            # files stay for the next run to finish it
            if not (self.path / JOURNAL).exists():
                shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
        if self._lock_fh is not None:
            try:
                self._lock_fh.seek(0)
                self._lock_fh.truncate()
            except OSError:
                pass
            self._lock_fh.close()  # closing releases the flock
            self._lock_fh = None
