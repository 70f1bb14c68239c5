"""Work that imports derivation modules runs in a child process the parent can kill.

A derivation module is arbitrary Python.  Its import can hang inside native code (a C
extension spinning, a regular expression backtracking), where neither the in-process CPU
limit (a signal handler, which runs only between bytecodes) nor Ctrl-C reaches it.  So the
loading -- and the verification that needs the loaded claims -- happens in a forked child:

* before each module's import the child tells the parent which file it starts, and lowers
  its own ``RLIMIT_CPU`` to a little more than the import limit, so the kernel stops it
  (SIGXCPU) even inside native code; the parent also keeps a wall-clock net;
* a child that dies or is killed during an import makes that file a *problem* ("import
  did not finish ...", "crashed ... signal SIGSEGV"), and the work is started again
  without the file: one broken module never stops the others;
* the child ignores SIGINT; the parent, interrupted (Ctrl-C, SIGTERM), kills it, and the
  child asked the kernel to kill it should the parent itself die (``PR_SET_PDEATHSIG``),
  so nothing is left running after any exit;
* what the child prints reaches the parent's streams in order, and the callbacks
  (progress) run in the parent.

Only picklable values cross: the work's result (results, problems, figure data) and the
callbacks' arguments.  The claims themselves stay in the child.
"""

from __future__ import annotations

import faulthandler
import math
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
from contextlib import contextmanager

from ..children import die_with_parent

__all__ = ["ImportGuard", "run_supervised"]

try:
    import resource
except ImportError:  # pragma: no cover - non-POSIX
    resource = None

# the in-process limits (a Python-level signal) get the first chance, with their clearer
# message; the kernel's and the parent's limits are the backstop, a little later
CPU_MARGIN = 2.0
WALL_MARGIN = 5.0


class _Forward:
    """sys.stdout/sys.stderr of the child: text goes to the parent, which prints it in
    order with its own output.  Processes forked from the child (workers) write to the
    real stream instead: a pipe must have one writer."""

    def __init__(self, conn, name, real):
        self._conn, self._name, self._real, self._pid = conn, name, real, os.getpid()

    def write(self, text):
        if os.getpid() != self._pid:
            return self._real.write(text)
        if text:
            self._conn.send(("out", self._name, str(text)))
        return len(text)

    def flush(self):
        if os.getpid() != self._pid:
            self._real.flush()

    def isatty(self):
        return False

    @property
    def encoding(self):
        return getattr(self._real, "encoding", "utf-8")

    def fileno(self):
        return self._real.fileno()


class ImportGuard:
    """Passed to the loader in the child: wraps each module's import with a message to
    the parent and a kernel CPU limit; records which files to skip."""

    def __init__(self, conn, timeout: float, skip: dict):
        self._conn, self.timeout, self.skip = conn, timeout, dict(skip)

    @contextmanager
    def importing(self, rel: str):
        self._conn.send(("importing", rel, time.monotonic()))
        old = _cpu_limit(self.timeout + CPU_MARGIN)
        try:
            yield
        finally:
            _restore_cpu_limit(old)
            self._conn.send(("imported", rel))


def _cpu_limit(seconds: float):
    if resource is None or not math.isfinite(seconds):
        return None
    old = resource.getrlimit(resource.RLIMIT_CPU)
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(math.ceil(used.ru_utime + used.ru_stime + seconds))
    hard = old[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    return old


def _restore_cpu_limit(old) -> None:
    if old is not None:
        resource.setrlimit(resource.RLIMIT_CPU, old)


def _child(conn, work, timeout, skip):
    die_with_parent()
    # a module that crashes the interpreter is reported as a problem of that module; a
    # faulthandler inherited from the caller (pytest) would only add a fatal-error dump
    faulthandler.disable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt stops
    if resource is not None:
        # an import stopped by SIGXCPU must not leave a core file behind
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    sys.stdout = _Forward(conn, "out", sys.__stdout__ or sys.stdout)
    sys.stderr = _Forward(conn, "err", sys.__stderr__ or sys.stderr)

    def emit(name, *args):
        conn.send(("call", name, args))

    try:
        value = work(emit, ImportGuard(conn, timeout, skip))
        conn.send(("done", value))
    except BaseException as exc:  # noqa: BLE001 - everything is the parent's to report
        text = traceback.format_exc()
        try:
            conn.send(("raised", exc, text))
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            conn.send(("raised", RuntimeError(f"{type(exc).__name__}: {exc}"), text))
    finally:
        sys.stdout.flush()
        conn.close()


class ChildTraceback(Exception):
    """Where an exception raised in the child came from (its formatted traceback)."""


def _describe_death(code, timeout: float) -> str:
    if code is None:
        return "was stopped"
    if code == -signal.SIGXCPU:
        return (f"import did not finish within {timeout:g} s of CPU time (it was stopped inside native "
                "code, where no Python-level limit reaches)")
    if code == -signal.SIGKILL:
        return "import was killed"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"import crashed the interpreter ({name})"
    return f"import ended the process (exit status {code})"


def run_supervised(work, *, import_timeout: float, handlers: dict | None = None, import_wall: float | None = None,
                   beside=None):
    """Run work(emit, guard) in a forked child and return its value.

    `emit(name, *args)` in the child calls handlers[name](*args) in the parent; `guard`
    is an ImportGuard for the loader.  A child that dies while importing a file is
    started again with that file skipped (a problem naming the file and the cause).
    Exceptions raised by the work are raised here (chained to the child's traceback).

    `beside()`, if given, is called in this process once the first child is forked, and
    returns a started thread (or None): work for this process while the child loads the
    derivations on one core.  It is joined before any further fork, so no child is ever
    forked while that thread holds an import lock, and before this function returns."""
    handlers = handlers or {}
    if "fork" not in mp.get_all_start_methods():  # pragma: no cover - non-POSIX: in process
        return work(lambda name, *args: handlers[name](*args) if name in handlers else None, None)
    skip: dict = {}
    threads: list = []
    started = beside
    interrupted = False
    try:
        while True:
            for t in threads:
                t.join()
            status, value = _attempt(work, import_timeout, handlers, skip, import_wall,
                                     started=started, threads=threads)
            started = None  # once per run, not once per child
            if status == "done":
                return value
            rel, cause = value
            skip[rel] = cause
    except KeyboardInterrupt:
        interrupted = True  # on its way out: the thread (a daemon) ends with the process
        raise
    finally:
        if not interrupted:
            for t in threads:  # no thread of this run outlives it: the caller may fork again
                t.join()


def _attempt(work, timeout, handlers, skip, import_wall=None, started=None, threads=None):
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    sys.stdout.flush()
    sys.stderr.flush()
    proc = ctx.Process(target=_child, args=(child, work, timeout, skip), daemon=False)
    proc.start()
    child.close()
    if started is not None:
        thread = started()
        if thread is not None and threads is not None:
            threads.append(thread)
    importing = None  # (file, wall-clock start) of the import under way
    wall = (10 * timeout if import_wall is None else import_wall) + WALL_MARGIN
    if not math.isfinite(wall):
        wall = math.inf
    try:
        while True:
            wait = 1.0
            if importing is not None and math.isfinite(wall):
                left = importing[1] + wall - time.monotonic()
                if left <= 0:
                    proc.kill()
                    proc.join()
                    return "skip", (importing[0], f"import did not finish within {wall - WALL_MARGIN:g} s "
                                                  "(it blocks, or hangs in native code)")
                wait = min(wait, left)
            if not parent.poll(wait):
                if not proc.is_alive() and not parent.poll(0):
                    break
                continue
            try:
                msg = parent.recv()
            except EOFError:
                break
            kind = msg[0]
            if kind == "out":
                stream = sys.stdout if msg[1] == "out" else sys.stderr
                stream.write(msg[2])
                stream.flush()
            elif kind == "importing":
                importing = (msg[1], time.monotonic())
            elif kind == "imported":
                importing = None
            elif kind == "call":
                fn = handlers.get(msg[1])
                if fn is not None:
                    fn(*msg[2])
            elif kind == "done":
                proc.join()
                return "done", msg[1]
            elif kind == "raised":
                proc.join()
                exc = msg[1]
                raise exc from ChildTraceback(msg[2])
        proc.join(5)
        code = proc.exitcode
        if importing is not None:
            return "skip", (importing[0], _describe_death(code, timeout))
        raise RuntimeError(f"the verification process ended unexpectedly ({_describe_death(code, timeout)}"
                           .replace("import ", "", 1) + ")")
    except BaseException:
        if proc.is_alive():
            proc.kill()
        proc.join()
        raise
    finally:
        parent.close()
