"""Room on CPython's frame stack (run/framestack.py): a hot call at a chunk boundary of the
frame stack must not map and unmap a chunk every time, in the run's workers above all.

Measured in this thread's minor page faults, which count memory mapped afresh (and pages
copied after a fork) and do not depend on the machine's speed or load: a chunk mapped per
call costs at least one fault per call.

The module runs without the room conftest.py gives every other test: a worker forked from
inside that room would inherit it, and could not show that run_claims gives room itself."""

from __future__ import annotations

import functools
import resource
import threading

import pytest
import sympy as sp

from verify_claims import Identity, Settings
from verify_claims.model.result import Result
from verify_claims.model.status import Status
from verify_claims.run.framestack import with_frame_room
from verify_claims.run.schedule import run_claims

pytestmark = pytest.mark.without_frame_room

CALLS = 2000
DEPTHS = 400  # a 16 KiB chunk holds about 130 frames of _down: this crosses two or more boundaries
# this thread's faults where the platform counts them per thread (Linux), else the process's
_WHO = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)


def _leaf():
    return None


# a leaf frame larger than _down's, so that at some depth it does not fit in what is left
# of a chunk while _down's frame still does
_leaf.__code__ = _leaf.__code__.replace(co_stacksize=_leaf.__code__.co_stacksize + 60)


def _down(n):
    """Minor page faults of CALLS calls of _leaf, n frames below the caller."""
    if n:
        return _down(n - 1)
    before = resource.getrusage(_WHO).ru_minflt
    for _ in range(CALLS):
        _leaf()
    return resource.getrusage(_WHO).ru_minflt - before


def worst_depth_faults() -> int:
    """The most faults of CALLS leaf calls at any depth up to DEPTHS below here."""
    return max(_down(d) for d in range(DEPTHS))


def _in_thread(fn, *args):
    """fn(*args) in a new thread: on a frame stack of its own, which starts empty, whatever
    the stack of the test that asks."""
    out = []
    t = threading.Thread(target=lambda: out.append(fn(*args)))
    t.start()
    t.join()
    return out[0]


@functools.cache
def _chunks_thrash() -> bool:
    """Does this interpreter map a frame chunk per call at a boundary (CPython 3.11+ does)?
    The control without which the tests below could not fail (measured once)."""
    return _in_thread(worst_depth_faults) >= CALLS // 2


@pytest.fixture
def chunks_thrash():
    """Skips a test that shows the room's effect where there is nothing to show."""
    if not _chunks_thrash():
        pytest.skip("this interpreter does not map a frame-stack chunk per call at a boundary")


def test_with_room_a_call_at_any_depth_maps_no_chunk(chunks_thrash):
    assert _in_thread(with_frame_room, worst_depth_faults) < CALLS // 10


def test_with_frame_room_passes_arguments_and_results_through():
    assert with_frame_room(divmod, 17, 5) == (3, 2)
    assert with_frame_room(dict, a=1) == {"a": 1}
    assert with_frame_room(dict, fn=1) == {"fn": 1}  # a keyword named like the function's own argument
    with pytest.raises(ZeroDivisionError):
        with_frame_room(divmod, 1, 0)


def _faults_in_worker(claim, settings, certificate=None):
    """A job in place of verify: the worst-depth faults where a worker runs its claims."""
    return Result.for_claim(claim, Status.CHECKED, message=str(worst_depth_faults()))


def test_the_run_s_workers_verify_claims_with_room(chunks_thrash):
    x = sp.Symbol("x")
    claims = [Identity(id=f"c{k}", title="t", ref="1", lhs=x + k, rhs=x + k, domain={x: sp.Interval(0, 1)})
              for k in range(2)]
    results = run_claims(claims, Settings(), jobs=2, job=_faults_in_worker)
    assert all(int(r.message) < CALLS // 10 for r in results), [r.message for r in results]


def test_verify_called_from_a_script_runs_its_claim_with_room(chunks_thrash, monkeypatch):
    """The public verify(), from a thread of a script or a notebook that has no room: the
    claim's work runs with room all the same."""
    import verify_claims.engine.verify as engine

    seen = []

    class Probe:
        """A kind whose falsify-first screen measures where it runs, then stops the claim."""

        def spot_check(self, *args, **kwargs):
            seen.append(worst_depth_faults())
            raise RuntimeError("probe done")

    monkeypatch.setattr(engine, "kind_of", lambda claim: Probe())
    x = sp.Symbol("x")
    claim = Identity(id="probe", title="t", ref="1", lhs=x, rhs=x, domain={x: sp.Interval(0, 1)})
    result = _in_thread(engine.verify, claim)
    assert result.status == Status.ERROR and "probe done" in result.message
    assert seen[0] < CALLS // 10, seen


def _nested_room_faults() -> int:
    """Faults of CALLS calls of with_frame_room made inside with_frame_room."""
    before = resource.getrusage(_WHO).ru_minflt
    for _ in range(CALLS):
        with_frame_room(_leaf)
    return resource.getrusage(_WHO).ru_minflt - before


def test_room_inside_room_reuses_it():
    """Nested (verify() in a worker's claim, a test of the suite): the inner call reuses the
    outer room instead of reserving, and mapping, another per call; inside, and after the
    outer call, the room is there."""
    assert _in_thread(with_frame_room, _nested_room_faults) < CALLS // 10
    assert _in_thread(with_frame_room, with_frame_room, worst_depth_faults) < CALLS // 10
    assert _in_thread(lambda: [with_frame_room(worst_depth_faults) for _ in range(2)])[1] < CALLS // 10
