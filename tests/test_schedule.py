"""The order in which worker processes take claims (run/schedule.py): heaviest kinds first,
and the modules split between the workers, so that each worker keeps the caches of its
own modules (claims of one module share expressions, derivatives and zero tests)."""

from __future__ import annotations

import os

import sympy as sp

from verify_claims import Identity, Settings
from verify_claims.model.result import Result
from verify_claims.model.status import Status
from verify_claims.run.schedule import _owners, _pick, run_claims


def test_modules_are_split_between_the_workers_largest_first():
    modules = ["a.py"] * 5 + ["b.py"] * 3 + ["c.py"] * 2 + ["d.py"]
    owner = _owners(modules, 2)
    assert owner == {"a.py": 0, "b.py": 1, "c.py": 1, "d.py": 0}
    assert _owners(modules, 1) == dict.fromkeys(("a.py", "b.py", "c.py", "d.py"), 0)


def test_a_worker_takes_its_own_modules_first_and_then_helps_the_others():
    modules = ["a.py", "b.py", "a.py", "b.py"]
    pending = [1, 3, 0, 2]  # already ordered heaviest kind first
    same = [5, 5, 5, 5].__getitem__  # every claim of one kind
    assert _pick(pending, lambda i: modules[i] == "a.py", same) == 2
    assert _pick(pending, lambda i: modules[i] == "b.py", same) == 0
    assert _pick([1, 3], lambda i: modules[i] == "a.py", same) == 0  # none of its own left: the first


def test_a_heavier_kind_waiting_starts_before_a_workers_own_lighter_claims():
    # claim 1 (b.py) is a maximiser, the rest identities: the worker of a.py takes it first,
    # so it does not wait for b.py's worker and end the run alone
    modules = ["a.py", "b.py", "a.py", "b.py"]
    costs = [5, 0, 5, 5].__getitem__
    assert _pick([1, 3, 0, 2], lambda i: modules[i] == "a.py", costs) == 0
    assert _pick([3, 0, 2], lambda i: modules[i] == "a.py", costs) == 1  # then its own again


def _where(claim, settings, certificate=None):
    """A job in place of verify: which worker process ran the claim."""
    return Result.for_claim(claim, Status.CHECKED, message=str(os.getpid()))


def test_the_first_claims_of_two_workers_come_from_different_modules():
    x = sp.Symbol("x")
    claims = []
    for module in ("one.py", "two.py"):
        for k in range(4):
            c = Identity(id=f"{module[:-3]}-{k}", title="t", ref="1", lhs=x + k, rhs=x + k,
                         domain={x: sp.Interval(0, 1)})
            c.source = module
            claims.append(c)
    running = []
    results = run_claims(claims, Settings(), jobs=2, job=_where, on_running=running.append)
    assert [r.id for r in results] == [c.id for c in claims]  # declaration order
    # each worker started with the first claim of its own module (not both with one.py's)
    assert running[0] == ("one-0", "two-0")
    pid_of = {r.id: r.message for r in results}
    assert pid_of["one-0"] != pid_of["two-0"]


def _gc_state(claim, settings, certificate=None):
    """A job in place of verify: the worker's collector settings."""
    import gc

    return Result.for_claim(claim, Status.CHECKED, message=f"{gc.get_threshold()} {gc.get_freeze_count()}")


def test_a_worker_collects_garbage_less_often_and_never_walks_what_it_inherited():
    from verify_claims.run.schedule import WORKER_GC_THRESHOLDS

    x = sp.Symbol("x")
    claims = [Identity(id="c", title="t", ref="1", lhs=x, rhs=x, domain={x: sp.Interval(0, 1)})]
    threshold, frozen = run_claims(claims, Settings(), jobs=1, job=_gc_state)[0].message.rsplit(" ", 1)
    assert threshold == str(WORKER_GC_THRESHOLDS)
    assert int(frozen) > 10_000  # sympy and the claims, loaded before the fork
