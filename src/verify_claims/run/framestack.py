"""Room on CPython's frame stack, so that deep recursion does not map and unmap memory.

CPython 3.11 and later keep a thread's Python frames on a stack of 16 KiB chunks
(``Python/pystate.c``: ``push_chunk``, ``_PyThreadState_PopFrame``).  A call that does not
fit in the current chunk maps a new one, and its return unmaps it again.  A hot call that
happens to start a chunk then costs an ``mmap``, page faults and a ``munmap`` every time.
sympy's recursive assumption queries and our sign analyses make millions of calls, and
where the chunk boundaries fall depends only on how deep the caller was.  In the run's
workers, below multiprocessing and the session, they fell badly.  From scratch on the
bundled paper (2026-11-28) the workers took 978,000 minor page faults and 4.3 s of system
CPU.  The same claims in a plain script took 90,000 and 0.5 s.

``with_frame_room`` calls a function from one frame whose code reserves a large operand
stack (``co_stacksize`` raised with ``CodeType.replace``).  CPython gives that frame a
chunk of its own: its size plus CPython's spare 1000 slots, rounded up to a power of two
times 16 KiB, which is 2 MiB for a reservation of 1 MiB (ROOM_BYTES is a power of two, so
about half the chunk is left).  The frames called from it fill that remainder, so a
recursion about 1 MiB deep (several thousand frames, beyond Python's default recursion
limit) never crosses a chunk boundary.  The reserved slots are never written: they cost
address space, not memory (a frame object made for that frame, by a traceback or a
profiler, reserves the same size untouched: ``sys.getsizeof`` shows it).  The calls and
their results are the same; only the system time goes.  Measured on the bundled paper from
scratch: 88,000 faults and 0.5 s of system CPU in the workers, and 5-12 % less CPU per claim.
A forked process inherits its parent's frame stack, room included.  The run's workers serve
their claims with room (run/schedule.py), and ``verify()`` gives its claim room when it is
called without (a script, a notebook).

Before 3.11 frames were separate heap objects: the one large frame is then an allocation
that CPython keeps and reuses, never touched, and nothing else changes.
"""

from __future__ import annotations

import struct
import sys
import threading

__all__ = ["with_frame_room", "ROOM_BYTES"]

# the reserved stack, in bytes, a power of two: the frame's chunk is the next one above it
# (2 MiB), and what the frame leaves of that chunk (about 1 MiB) is the room
ROOM_BYTES = 1 << 20
_SLOT = struct.calcsize("P")  # bytes per stack slot (a PyObject pointer)


def _call(fn, args, kwargs):
    return fn(*args, **kwargs)


def _roomy(f):
    if sys.implementation.name != "cpython":
        return f  # another interpreter's frames are its own business
    try:
        f.__code__ = f.__code__.replace(co_stacksize=f.__code__.co_stacksize + ROOM_BYTES // _SLOT)
    except (AttributeError, TypeError, ValueError):  # pragma: no cover - an interpreter without replace()
        pass
    return f


_roomy(_call)


# whether this thread is inside with_frame_room already (a forked process inherits it with
# the stack it describes)
_inside = threading.local()


def with_frame_room(fn, /, *args, **kwargs):
    """fn(*args, **kwargs), with about ROOM_BYTES of frame stack above it in one chunk.
    Called inside such a call already (a worker's claim, a test of the suite), fn is called
    directly: the room is there, and a second reservation would map a chunk per call."""
    if getattr(_inside, "room", False):
        return fn(*args, **kwargs)
    _inside.room = True
    try:
        return _call(fn, args, kwargs)
    finally:
        _inside.room = False
