"""Child processes that never outlive the run that started them."""

from __future__ import annotations

import signal

__all__ = ["die_with_parent"]


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask Linux to send `sig` to this process when its parent dies, kill -9 included, so a
    killed run leaves no worker, session or pdflatex behind.  A no-op where prctl is not
    available.  Safe in a subprocess's preexec_fn (no allocation beyond ctypes' call)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
