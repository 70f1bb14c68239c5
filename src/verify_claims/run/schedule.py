"""Run many claims in worker processes with a hard per-claim limit in CPU time.

Workers are forked (they inherit the loaded claims, so only an index and a certificate
cross the pipe) and are reused across claims.  Before each claim a worker lowers its own
soft ``RLIMIT_CPU`` to its CPU time so far plus ``--timeout``: a claim that spends more
CPU than that is stopped by the kernel (SIGXCPU) even inside native code (z3), and is
reported as ``timeout``.  Counting CPU time, not wall time, is what keeps a verdict
independent of the machine's load: a claim that needs 30 s of CPU gets them whether the
machine is quiet or other processes keep every core busy.  The wall clock is only a far
looser safety net (``wall_limit``) for a worker that stops consuming CPU (a deadlock).

A worker that dies is reported as an error of the claim it was running; one hanging or
crashing claim never stops the others.
"""

from __future__ import annotations

import gc
import math
import multiprocessing as mp
import os
import signal
import time
from collections import Counter
from multiprocessing.connection import wait

from ..kinds.summary import verify_summary
from ..model.result import Result
from ..model.status import Status
from .framestack import with_frame_room
from .settings import Settings

__all__ = ["run_claims", "wall_limit"]

try:
    import resource
except ImportError:  # pragma: no cover - non-POSIX
    resource = None


def wall_limit(settings: Settings) -> float:
    """The wall-clock safety net per claim (Settings.wall_seconds)."""
    return settings.wall_seconds()


def _limit_cpu(timeout: float) -> None:
    """Let this process use `timeout` more CPU seconds, then receive SIGXCPU (fatal)."""
    if resource is None or not math.isfinite(timeout):
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(math.ceil(spent + timeout))
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _worker(claims, settings, conn, job=None):
    from ..engine.verify import verify
    job = job or verify
    from ..children import die_with_parent

    die_with_parent()  # a killed run leaves no worker computing on

    if resource is not None:
        # a claim stopped by SIGXCPU must not leave a core file behind
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt stops
    _collect_less()
    # every claim runs above one frame with room for its recursion: no frame-stack chunk
    # is mapped and unmapped per call (run/framestack.py: about 4 s of system CPU from scratch)
    with_frame_room(_serve, claims, settings, conn, job)


# gc thresholds of a worker (Python's default: 700, 10, 10)
WORKER_GC_THRESHOLDS = (10_000, 20, 20)


def _collect_less() -> None:
    """Fewer garbage collections in a worker.  What was loaded before the fork (sympy, the
    derivation modules, the claims) is moved out of the collector's generations
    (gc.freeze): no collection walks it again.  And a young generation of 10,000 objects
    instead of 700: sympy allocates container objects by the million, and a worker then
    collects about 55 times instead of about 950.  From scratch on the bundled paper
    (2026-11-28): the workers' collections 1.9 s -> 0.6 s of CPU, peak memory 254 MB ->
    257 MB; two interleaved pairs, the run's CPU 62.2 / 62.3 s -> 60.8 / 61.2 s (a fresh
    clone 40.7 / 41.1 s -> 39.9 / 39.4 s).  When objects are collected changes nothing a
    claim computes."""
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)


def _serve(claims, settings, conn, job) -> None:
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        i, certificate = task
        _limit_cpu(settings.timeout)
        res = job(claims[i], settings, certificate=certificate)
        conn.send((i, res))


def _placeholder(claim, status, message, seconds) -> Result:
    return Result.for_claim(claim, status, message=message, seconds=round(seconds, 4))


class _Slot:
    def __init__(self, ctx, claims, settings, job=None):
        parent, child = ctx.Pipe()
        self.conn = parent
        self.proc = ctx.Process(target=_worker, args=(claims, settings, child, job), daemon=True)
        self.proc.start()
        child.close()
        self.task = None
        self.started = 0.0

    def kill(self):
        try:
            self.proc.kill()
        finally:
            self.proc.join(1)
            self.conn.close()


def run_claims(claims, settings: Settings, jobs: int | None = None, on_result=None, certificates=None,
               should_stop=None, on_running=None, job=None):
    """Verify every claim; returns results in declaration order.

    on_result(result, done, total) is called as each claim finishes (progress).
    certificates(claim) -> a certificate dict to replay, or None (search).
    should_stop() -> True ends the run early (-x): claims in flight are stopped, claims
    not started stay None in the returned list, and summaries are not judged.
    on_running(ids) is called whenever the set of claims being verified changes.
    job(claim, settings, certificate=...) -> Result replaces engine.verify (the mutation
    run screens a claim's mutants this way, with the same limits and isolation).
    Summaries are judged last, from the results of the claims they use.
    """
    summaries = [i for i, c in enumerate(claims) if c.kind == "summary"]
    others = [i for i, c in enumerate(claims) if c.kind != "summary"]
    total = len(claims)
    done = 0

    def progress(res, _done, _total):
        nonlocal done
        done += 1
        if on_result:
            on_result(res, done, total)

    results: list = [None] * total
    verified = _run_verified([claims[i] for i in others], settings, jobs, progress, certificates,
                             should_stop, on_running, job)
    for i, res in zip(others, verified):
        results[i] = res
    if should_stop is not None and should_stop():
        return results
    judge_summaries(claims, summaries, results, lambda res: progress(res, 0, total))
    return results


def judge_summaries(claims, summaries, results, on_result=None) -> None:
    """Fill results[i] for every summary index, in dependency order (summaries may use
    summaries; the loader rejects cycles)."""
    by_id = {r.id: r for r in results if r is not None}
    left = list(summaries)
    pending_ids = {claims[j].id for j in left}
    while left:
        ready = [i for i in left if all(u in by_id or u not in pending_ids for u in claims[i].uses)]
        ready = ready or left[:1]
        for i in ready:
            t0 = time.process_time()
            res = verify_summary(claims[i], by_id)
            res.seconds = round(time.process_time() - t0, 4)
            results[i] = by_id[res.id] = res
            left.remove(i)
            pending_ids.discard(claims[i].id)
            if on_result:
                on_result(res)


def _cost(claim) -> int:
    from ..kinds import KINDS
    kind = KINDS.get(claim.kind)
    return kind.cost if kind is not None else 9


def _owners(modules: list, jobs: int) -> dict:
    """Each module's worker (_pick): the modules, largest first, each to the worker with the
    fewest claims so far."""
    sizes = Counter(modules)
    load = [0] * jobs
    owner = {}
    for m in sorted(sizes, key=lambda m: (-sizes[m], m)):
        k = load.index(min(load))
        owner[m] = k
        load[k] += sizes[m]
    return owner


def _pick(pending: list, mine, cost) -> int:
    """The position in `pending` (claim indices, heaviest kind first) of the claim a free
    worker takes next: the first of its own modules (`mine(i)`), unless a claim of a
    heavier kind (`cost(i)`, lower first) is still waiting, which then starts first, so no
    heavy claim is left for the end; with none of its own left, the first of all (it helps
    the other workers).  Claims of one module share expressions, derivatives and the
    answers of their zero tests (sympy's caches and backends.symbolic's memo), which a
    worker keeps."""
    for pos, i in enumerate(pending):
        if mine(i):
            return pos if cost(i) <= cost(pending[0]) else 0
    return 0


def _run_verified(claims, settings: Settings, jobs, on_result, certificates=None, should_stop=None,
                  on_running=None, job=None):
    total = len(claims)
    stop = should_stop or (lambda: False)
    results: list = [None] * total
    if total == 0:
        return []
    cert_of = certificates or (lambda c: None)
    jobs = max(1, min(jobs or os.cpu_count() or 1, total))
    if "fork" not in mp.get_all_start_methods():  # pragma: no cover - non-POSIX
        from ..engine.verify import verify
        for i, c in enumerate(claims):
            if stop():
                break
            results[i] = with_frame_room(job or verify, c, settings, certificate=cert_of(c))
            if on_result:
                on_result(results[i], i + 1, total)
        return results
    ctx = mp.get_context("fork")
    # heaviest kinds first, so a slow claim does not start last and leave the other
    # workers idle, each worker taking its own modules' claims first (_pick); results stay
    # in declaration order and seeds depend only on the id
    costs = [_cost(c) for c in claims]
    pending = sorted(range(total), key=costs.__getitem__)
    owner = _owners([c.source for c in claims], jobs)
    slots = [_Slot(ctx, claims, settings, job) for _ in range(jobs)]
    wall = wall_limit(settings)
    done = 0

    def finish(i, res):
        nonlocal done
        results[i] = res
        done += 1
        if on_result:
            on_result(res, done, total)

    running: tuple = ()

    def announce():
        nonlocal running
        now_running = tuple(claims[s.task].id for s in slots if s.task is not None)
        if on_running is not None and now_running != running:
            on_running(now_running)
        running = now_running

    try:
        while done < total:
            if stop():
                break
            for k, slot in enumerate(slots):
                if slot.task is None and pending:
                    slot.task = pending.pop(_pick(pending, lambda i, k=k: owner[claims[i].source] == k, costs.__getitem__))
                    slot.started = time.monotonic()
                    try:
                        slot.conn.send((slot.task, cert_of(claims[slot.task])))
                    except (BrokenPipeError, OSError):
                        i = slot.task
                        slot.kill()
                        slots[k] = _Slot(ctx, claims, settings, job)
                        finish(i, _placeholder(claims[i], Status.ERROR, "worker process unavailable", 0))
            announce()
            busy = [s for s in slots if s.task is not None]
            if not busy:
                continue
            now = time.monotonic()
            next_deadline = min(s.started + wall for s in busy)
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy],
                         timeout=None if math.isinf(next_deadline) else max(0.0, next_deadline - now))
            now = time.monotonic()
            for k, slot in enumerate(slots):
                if slot.task is None:
                    continue
                i = slot.task
                if slot.conn in ready:
                    try:
                        j, res = slot.conn.recv()
                        slot.task = None
                        finish(j, res)
                        continue
                    except (EOFError, OSError):
                        pass  # the worker died while sending: handled below
                if slot.conn in ready or slot.proc.sentinel in ready or not slot.proc.is_alive():
                    slot.proc.join(1)  # reap first, or exitcode may still read None
                    code = slot.proc.exitcode
                    slot.kill()
                    slots[k] = _Slot(ctx, claims, settings, job)
                    if code == -signal.SIGXCPU:
                        finish(i, _placeholder(claims[i], Status.TIMEOUT,
                                               f"did not finish within --timeout {settings.timeout:g} s of CPU "
                                               "time (stopped by the kernel's CPU limit)", settings.timeout))
                    else:
                        finish(i, _placeholder(claims[i], Status.ERROR,
                                               f"the worker verifying this claim died (exit code {code}); "
                                               "likely out of memory (or `ulimit -t`) or a crash in a native library",
                                               now - slot.started))
                elif now - slot.started >= wall:
                    slot.kill()
                    slots[k] = _Slot(ctx, claims, settings, job)
                    finish(i, _placeholder(claims[i], Status.TIMEOUT,
                                           f"no result after {wall:g} s of wall time (the safety net of "
                                           f"--timeout {settings.timeout:g} s CPU): the worker stopped making "
                                           "progress", now - slot.started))
    finally:
        for slot in slots:
            try:
                if slot.task is None and slot.proc.is_alive():
                    slot.conn.send(None)
                    slot.proc.join(0.5)
            except (BrokenPipeError, OSError):
                pass
            if slot.proc.is_alive():
                slot.kill()
    return results
