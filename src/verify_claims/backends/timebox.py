"""Nestable time limits for pure-Python work (sympy), using interval timers where available.

sympy cannot be cancelled cooperatively, so a limit interrupts it with an exception.
Limits nest: the claim's symbolic budget contains one slice per simplification
strategy, and whichever deadline passes first stops the work it owns.

Budgets are measured in CPU time of the process by default (ITIMER_PROF), not wall
time: a proof that fits its budget on a quiet machine then fits it on a loaded CI
machine too, so a verdict does not drop from proved to checked because other jobs
share the cores.  Waiting (an import that sleeps or blocks) uses no CPU, so the loader
uses ``clock="wall"``.  Where interval timers are unavailable (not the main thread,
non-POSIX) the limits are no-ops and the runner's hard wall-clock timeout per claim is
the only guard.

A search gives each alternative a slice of the claim's budget, so that one hopeless
alternative cannot use it all.  A CPU-time slice still depends on the machine: a step that
took 0.6 s of a 1 s slice where the proof was found takes 1.2 s on a machine twice as
slow.  Replaying a certificate runs only steps that succeeded before, so the replay opens
its budget with ``slices=REPLAY_STRETCH``: every limit opened inside it is that many times
longer (never past the budget itself), and a proof found once is re-checked, not lost, on
a machine several times slower.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
import time
import weakref
from contextlib import contextmanager

__all__ = ["TimeUp", "time_limit", "slice_deadline", "REPLAY_STRETCH"]

# how much longer a slice may run when a certificate is replayed (see the module docstring)
REPLAY_STRETCH = 8.0


class TimeUp(BaseException):
    """Raised inside the timed block; `box` identifies whose deadline passed.

    A BaseException so that the broad `except Exception` around sympy calls, which
    turns a sympy failure into "not established", cannot swallow it."""

    def __init__(self, box):
        super().__init__("time limit reached")
        self.box = box


class _Clock:
    """One interval timer with its own stack of (deadline, box, factor), outermost first;
    `factor` stretches the limits opened inside that one."""

    def __init__(self, timer: str, signame: str, now):
        self.timer, self.signame, self.now = timer, signame, now
        self.stack: list = []

    def available(self) -> bool:
        return hasattr(signal, "setitimer") and hasattr(signal, self.timer) and hasattr(signal, self.signame)

    def arm(self):
        which = getattr(signal, self.timer)
        if not self.stack:
            signal.setitimer(which, 0)
            return
        remaining = min(e[0] for e in self.stack) - self.now()
        signal.setitimer(which, max(remaining, 1e-4))

    def expired(self) -> list:
        """Boxes whose deadline has passed, outermost first."""
        now = self.now()
        return [e[1] for e in self.stack if e[0] <= now]

    def on_alarm(self, signum, frame):
        expired = self.expired()
        if expired:
            # a TimeUp raised inside a weakref callback or a __del__ (sympy's caches, the
            # garbage collector) is printed and dropped by Python: signal again soon, until
            # the limit's own block has closed it (its cleanup re-arms the timer)
            signal.setitimer(getattr(signal, self.timer), RETRY_SECONDS)
            if _finalizing(frame):
                return  # where it would be dropped for sure (and printed): only the retry
            raise TimeUp(expired[0])  # the outermost expired limit wins: it owns more work
        self.arm()

    def close(self, box):
        """Remove `box`'s limit (if still there) and re-arm: safe to repeat.  Returns the
        outermost enclosing limit that has already expired, if any."""
        entry = next((e for e in self.stack if e[1] is box), None)
        if entry is not None:
            self.stack.remove(entry)
        expired = self.expired()
        self.arm()
        return expired[0] if expired else None


def _finalizing(frame) -> bool:
    """The signal came while a finalizer runs: a weakref dictionary's callback (sympy's
    caches hold WeakKeyDictionaries) or a __del__, or while sys.unraisablehook reports a
    TimeUp such a finalizer dropped (pytest's hook imports tracemalloc there: a TimeUp
    raised inside it fails the hook, and with it the test or the pytest plugin's run).
    Other callbacks are not recognisable from their frame; for them the retry signal is
    the guard."""
    code = getattr(frame, "f_code", None)
    if code is not None and (code.co_name == "__del__" or code.co_filename == weakref.__file__):
        return True
    hook = _code_of(sys.unraisablehook)
    if hook is None:
        return False
    depth = 0
    while frame is not None and depth < 64:
        if frame.f_code is hook:
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _code_of(fn):
    """The code object of a Python function (through functools.partial), else None."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__code__", None)


_CLOCKS = {"cpu": _Clock("ITIMER_PROF", "SIGPROF", time.process_time),
           "wall": _Clock("ITIMER_REAL", "SIGALRM", time.monotonic)}
RETRY_SECONDS = 0.01
_UNSET = object()


def _open(box) -> bool:
    return any(e[1] is box for c in _CLOCKS.values() for e in c.stack)


@contextmanager
def time_limit(seconds: float, clock: str = "cpu", slices: float | None = None):
    """Yield a box; TimeUp(box) is raised in the block once `seconds` of `clock` time
    ("cpu": this process's CPU time, "wall": elapsed time) have passed.

    Inside a limit opened with `slices=k`, every limit is k times longer than asked (a
    replay's slices, see the module docstring); limits opened inside inherit the factor."""
    box = object()
    c = _CLOCKS[clock]
    if seconds <= 0 or not c.available() or threading.current_thread() is not threading.main_thread():
        yield box
        return
    signum = getattr(signal, c.signame)
    first = not c.stack
    # read before installing: a signal of the other clock handled inside signal.signal()
    # must not lose the handler to restore
    old = signal.getsignal(signum) if first else _UNSET
    try:
        # inside the try: a signal of an enclosing limit arriving here still closes this one
        if first:
            signal.signal(signum, c.on_alarm)
        # an enclosing limit that has run out stops the work here, whether or not its signal
        # has come: a timer re-armed at every nested limit would otherwise be pushed back by
        # the kernel's tick (4 ms) each time, and a loop of short limits would never stop
        expired = c.expired()
        if expired:
            raise TimeUp(expired[0])
        inherited = c.stack[-1][2] if c.stack else 1.0
        c.stack.append((c.now() + seconds * inherited, box, inherited if slices is None else slices))
        c.arm()
        yield box
    finally:
        # an enclosing limit's TimeUp may arrive during this cleanup: the cleanup is finished
        # first (no stale limit, the handler restored), then that TimeUp is raised; so is
        # one for an enclosing limit that ran out while this block worked
        pending = None
        while True:
            try:
                outer = c.close(box)
                if first and old is not _UNSET:
                    signal.signal(signum, old)
                break
            except TimeUp as exc:
                pending = exc
        if pending is None and outer is not None:
            pending = TimeUp(outer)
        if pending is not None and _open(pending.box):
            raise pending


def slice_deadline(seconds: float, clock: str = "cpu") -> float:
    """The deadline a limit of `seconds` opened now would have, on `clock`'s own scale
    (stretched inside a replay), and never past an enclosing limit: for native code (z3)
    that watches a deadline itself instead of taking the signal."""
    c = _CLOCKS[clock]
    now = c.now()
    if not c.stack or threading.current_thread() is not threading.main_thread():
        return now + seconds
    return min(now + seconds * c.stack[-1][2], min(e[0] for e in c.stack))
