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
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager

__all__ = ["TimeUp", "time_limit"]


class TimeUp(BaseException):
    """Raised inside the timed block; `box` identifies whose deadline passed.

    A BaseException so that the broad `except Exception` around sympy calls, which
    turns a sympy failure into "not established", cannot swallow it."""

    def __init__(self, box):
        super().__init__("time limit reached")
        self.box = box


class _Clock:
    """One interval timer with its own stack of (deadline, box), outermost first."""

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
        remaining = min(d for d, _ in self.stack) - self.now()
        signal.setitimer(which, max(remaining, 1e-4))

    def on_alarm(self, signum, frame):
        now = self.now()
        expired = [box for d, box in self.stack if d <= now]
        if expired:
            raise TimeUp(expired[0])  # the outermost expired limit wins: it owns more work
        self.arm()


_CLOCKS = {"cpu": _Clock("ITIMER_PROF", "SIGPROF", time.process_time),
           "wall": _Clock("ITIMER_REAL", "SIGALRM", time.monotonic)}


@contextmanager
def time_limit(seconds: float, clock: str = "cpu"):
    """Yield a box; TimeUp(box) is raised in the block once `seconds` of `clock` time
    ("cpu": this process's CPU time, "wall": elapsed time) have passed."""
    box = object()
    c = _CLOCKS[clock]
    if seconds <= 0 or not c.available() or threading.current_thread() is not threading.main_thread():
        yield box
        return
    signum = getattr(signal, c.signame)
    first = not c.stack
    old = signal.signal(signum, c.on_alarm) if first else None
    c.stack.append((c.now() + seconds, box))
    c.arm()
    try:
        yield box
    finally:
        c.stack.remove(next(e for e in c.stack if e[1] is box))
        c.arm()
        if first:
            signal.signal(signum, old)
