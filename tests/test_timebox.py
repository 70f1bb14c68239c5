"""Nestable time limits: the inner slice stops its own work; the outer budget wins."""

import sys
import time

import pytest

from verify_claims.backends.timebox import TimeUp, slice_deadline, time_limit


def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_inner_limit_stops_only_its_block():
    with time_limit(5) as outer:
        with pytest.raises(TimeUp) as info:
            with time_limit(0.05) as inner:
                spin(2)
        assert info.value.box is inner and info.value.box is not outer
        spin(0.01)  # the outer limit is still armed and has not fired


def test_outer_deadline_wins_inside_an_inner_block():
    with pytest.raises(TimeUp) as info:
        with time_limit(0.05) as outer:
            with time_limit(5):
                spin(2)
    assert info.value.box is outer


def test_no_alarm_left_armed_after_exit():
    with time_limit(0.05):
        pass
    spin(0.1)  # would raise TimeUp if the timer were still armed


def test_cpu_budget_does_not_count_waiting_but_wall_clock_does():
    with time_limit(0.05):
        time.sleep(0.2)  # no CPU used: the CPU budget is not spent
    with pytest.raises(TimeUp):
        with time_limit(0.05, clock="wall"):
            time.sleep(2)


def test_cpu_and_wall_limits_nest_independently():
    with time_limit(5, clock="wall") as wall:
        with pytest.raises(TimeUp) as info:
            with time_limit(0.05) as cpu:
                spin(2)
        assert info.value.box is cpu and info.value.box is not wall


def burn(cpu_seconds):
    """Use this much CPU time (a load on the machine does not shorten it, as it would spin)."""
    end = time.process_time() + cpu_seconds
    while time.process_time() < end:
        pass


def test_nested_limits_leave_nothing_armed_when_the_inner_one_expires_at_its_exit():
    for _ in range(50):  # the inner limit expiring around the moment its block ends
        with time_limit(5):
            try:
                with time_limit(0.002):
                    spin(0.002)
            except TimeUp:
                pass
    spin(0.1)


def test_a_replay_stretches_the_slices_opened_inside_it_but_not_its_own_budget():
    # a slice that runs out in a search ...
    with time_limit(5):
        with pytest.raises(TimeUp):
            with time_limit(0.05):
                burn(0.15)
    # ... holds inside a budget opened with slices=k: 0.05 s becomes 0.4 s
    with time_limit(5, slices=8):
        with time_limit(0.05):
            with time_limit(0.05):  # nested slices inherit the factor once, not twice
                burn(0.15)
    # the budget itself is not stretched, and it still bounds its stretched slices
    with pytest.raises(TimeUp) as info:
        with time_limit(0.1, slices=8) as budget:
            with time_limit(0.05):
                spin(2)
    assert info.value.box is budget


def test_slice_deadline_is_stretched_and_capped_like_a_limit():
    now = time.process_time()
    assert abs(slice_deadline(1.0) - (now + 1.0)) < 0.05  # no limit open: as asked
    with time_limit(30, slices=8):
        now = time.process_time()
        assert abs(slice_deadline(1.0) - (now + 8.0)) < 0.05
        assert slice_deadline(100.0) <= now + 30.0 + 0.05  # never past the budget


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped one
def test_a_time_up_dropped_inside_a_weakref_callback_is_raised_again():
    # the limit expires while a weakref callback runs (as inside sympy's caches or the
    # garbage collector): Python prints "Exception ignored in ..." and drops the TimeUp, so
    # a limit that signalled only once would never stop the work after it
    import weakref

    class Thing:
        pass

    def callback(_ref):
        burn(0.2)

    with pytest.raises(TimeUp) as info:
        with time_limit(0.05) as box:
            thing = Thing()
            ref = weakref.ref(thing, callback)
            del thing  # the callback runs here, and the limit expires in it
            burn(3)  # without a second signal nothing stops this
    assert info.value.box is box and ref() is None
    spin(0.05)  # and nothing is left armed


def test_a_time_up_during_a_limits_own_cleanup_leaves_no_stale_limit():
    # the retry signal of an expired outer limit may arrive while an inner limit is being
    # closed: the inner limit's entry is still removed and its handler state restored, and
    # the outer TimeUp still reaches its own block
    for _ in range(30):
        with pytest.raises(TimeUp) as info:
            with time_limit(0.003) as outer:
                while True:
                    with time_limit(5):
                        burn(0.0005)
        assert info.value.box is outer
    from verify_claims.backends.timebox import _CLOCKS
    assert _CLOCKS["cpu"].stack == []
    spin(0.05)


def test_a_replay_that_never_finishes_leaves_the_numbers_their_share_of_the_claims_limit():
    # a replay is not held to a search's budgets, but the proof and the certificate together
    # stop before the claim's CPU limit less the numbers' share (engine/verify.py)
    from verify_claims.engine import verify as engine
    from verify_claims.engine.context import Context, Trace
    from verify_claims.run.settings import Settings

    class Endless:
        inequality_like = True

        def prove(self, claim, ctx):
            burn(1e9)

        def certify(self, claim, ctx, proof, numeric, budget):
            burn(1e9)

    for timeout in (2.0, 4.0):
        settings = Settings(timeout=timeout)
        t0 = time.process_time()
        ctx = Context(settings, Trace({}))  # replaying a certificate
        proof = engine._attempt_proof(Endless(), None, ctx, engine._budget(settings.symbolic_budget(), ctx,
                                                                           settings, t0))
        engine._attempt_certificate(Endless(), None, ctx, proof, None,
                                    engine._budget(settings.certification_budget(), ctx, settings, t0))
        used = time.process_time() - t0
        assert used <= timeout * (1 - engine.NUMBERS_SHARE) + 0.1, (timeout, used)


def test_a_limit_too_short_to_measure_is_not_its_own_enclosing_limit():
    with pytest.raises(TimeUp) as info:
        with time_limit(1e-9) as box:
            burn(1)
    assert info.value.box is box


def test_a_time_up_is_not_raised_inside_a_weakref_dictionarys_callback():
    # a signal arriving in WeakKeyDictionary's `remove` (sympy's caches) is not raised there,
    # where Python would print and drop it: the retry signal raises it after the callback
    import weakref

    from verify_claims.backends.timebox import _CLOCKS

    scope = {}
    # a function whose code lives in weakref.py, as its dictionaries' callbacks do
    exec(compile("def remove(clock):\n    clock.on_alarm(0, __import__('sys')._getframe())\n    return 'returned'\n",
                 weakref.__file__, "exec"), scope)
    returned = []
    with pytest.raises(TimeUp) as info:
        with time_limit(30) as box:
            clock = _CLOCKS["cpu"]
            clock.stack[-1] = (0.0, box, 1.0)  # past due, as if the signal came now
            returned.append(scope["remove"](clock))  # not raised here ...
            burn(3)  # ... but by the retry, soon after
    assert returned == ["returned"] and info.value.box is box
    spin(0.05)
    # anywhere else the signal raises at once
    with pytest.raises(TimeUp):
        with time_limit(30) as box:
            clock = _CLOCKS["cpu"]
            clock.stack[-1] = (0.0, box, 1.0)
            clock.on_alarm(0, sys._getframe())
            returned.append("not reached")
    assert returned == ["returned"]
    spin(0.05)
