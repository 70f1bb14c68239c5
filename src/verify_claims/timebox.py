"""Nestable time limits for pure-Python work (sympy), using SIGALRM where available.

sympy cannot be cancelled cooperatively, so a limit interrupts it with an exception.
Limits nest: the claim's symbolic budget contains one slice per simplification
strategy, and whichever deadline passes first stops the work it owns.  Where SIGALRM
is unavailable (not the main thread, non-POSIX) the limits are no-ops and the runner's
hard per-claim timeout is the only guard.
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


_stack: list = []  # (deadline, box), outermost first


def _arm():
    if not _stack:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    remaining = min(d for d, _ in _stack) - time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-4))


def _on_alarm(signum, frame):
    now = time.monotonic()
    expired = [box for d, box in _stack if d <= now]
    if expired:
        raise TimeUp(expired[0])  # the outermost expired limit wins: it owns more work
    _arm()


def _usable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(seconds: float):
    """Yield a box; TimeUp(box) is raised in the block if `seconds` pass first."""
    box = object()
    if seconds <= 0 or not _usable():
        yield box
        return
    first = not _stack
    old = signal.signal(signal.SIGALRM, _on_alarm) if first else None
    _stack.append((time.monotonic() + seconds, box))
    _arm()
    try:
        yield box
    finally:
        _stack.remove(next(e for e in _stack if e[1] is box))
        _arm()
        if first:
            signal.signal(signal.SIGALRM, old)
