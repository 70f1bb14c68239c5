"""Run many claims in worker processes with a hard per-claim timeout.

Workers are forked (they inherit the loaded claims, so only an index crosses the
pipe) and are reused across claims; a worker that exceeds the timeout is killed and
replaced, and a worker that dies is reported as an error of the claim it was running.
One hanging or crashing claim therefore never stops the others.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from multiprocessing.connection import wait

from .result import Result, Settings
from .verify import verify, verify_summary

__all__ = ["run_claims"]


_COST_RANK = {"maximiser": 0, "limit": 1, "stationarity": 2, "inequality": 3, "monotonic": 3,
              "root": 3, "chain": 4, "identity": 5}


def _worker(claims, settings, conn):
    while True:
        try:
            i = conn.recv()
        except EOFError:
            return
        if i is None:
            return
        res = verify(claims[i], settings)
        conn.send((i, res))


def _placeholder(claim, status, message, seconds) -> Result:
    return Result.for_claim(claim, status, message=message, seconds=round(seconds, 4))


class _Slot:
    def __init__(self, ctx, claims, settings):
        parent, child = ctx.Pipe()
        self.conn = parent
        self.proc = ctx.Process(target=_worker, args=(claims, settings, child), daemon=True)
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


def run_claims(claims, settings: Settings, jobs: int | None = None, on_result=None):
    """Verify every claim; returns results in declaration order.

    on_result(result, done, total) is called as each claim finishes (progress).
    Summaries are judged last, from the results of the claims they use.
    """
    summaries = [i for i, c in enumerate(claims) if c.kind == "summary"]
    if not summaries:
        return _run_verified(claims, settings, jobs, on_result)
    others = [i for i, c in enumerate(claims) if c.kind != "summary"]
    total = len(claims)
    done = 0

    def progress(res, _done, _total):
        nonlocal done
        done += 1
        if on_result:
            on_result(res, done, total)

    results: list = [None] * total
    for i, res in zip(others, _run_verified([claims[i] for i in others], settings, jobs, progress)):
        results[i] = res
    by_id = {r.id: r for r in results if r is not None}
    # summaries may use summaries: judge in dependency order (the loader rejects cycles)
    left = list(summaries)
    while left:
        ready = [i for i in left if all(u in by_id or u not in {claims[j].id for j in left}
                                        for u in claims[i].uses)]
        ready = ready or left[:1]
        for i in ready:
            t0 = time.perf_counter()
            res = verify_summary(claims[i], by_id)
            res.seconds = round(time.perf_counter() - t0, 4)
            results[i] = by_id[res.id] = res
            left.remove(i)
            progress(res, 0, total)
    return results


def _run_verified(claims, settings: Settings, jobs, on_result):
    total = len(claims)
    results: list = [None] * total
    if total == 0:
        return []
    jobs = max(1, min(jobs or os.cpu_count() or 1, total))
    if "fork" not in mp.get_all_start_methods():  # pragma: no cover - non-POSIX
        for i, c in enumerate(claims):
            results[i] = verify(c, settings)
            if on_result:
                on_result(results[i], i + 1, total)
        return results
    ctx = mp.get_context("fork")
    # longest first (by kind), so a slow claim does not start last and leave the other
    # workers idle; results stay in declaration order and seeds depend only on the id
    pending = sorted(range(total), key=lambda i: _COST_RANK.get(claims[i].kind, 9))
    slots = [_Slot(ctx, claims, settings) for _ in range(jobs)]
    done = 0

    def finish(i, res):
        nonlocal done
        results[i] = res
        done += 1
        if on_result:
            on_result(res, done, total)

    try:
        while done < total:
            for k, slot in enumerate(slots):
                if slot.task is None and pending:
                    slot.task = pending.pop(0)
                    slot.started = time.perf_counter()
                    try:
                        slot.conn.send(slot.task)
                    except (BrokenPipeError, OSError):
                        i = slot.task
                        slot.kill()
                        slots[k] = _Slot(ctx, claims, settings)
                        finish(i, _placeholder(claims[i], "error", "worker process unavailable", 0))
            busy = [s for s in slots if s.task is not None]
            if not busy:
                continue
            now = time.perf_counter()
            next_deadline = min(s.started + settings.timeout for s in busy)
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy],
                         timeout=max(0.0, next_deadline - now))
            now = time.perf_counter()
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
                    slots[k] = _Slot(ctx, claims, settings)
                    finish(i, _placeholder(claims[i], "error",
                                           f"the worker verifying this claim died (exit code {code}); "
                                           "likely out of memory or a crash in a native library",
                                           now - slot.started))
                elif now - slot.started >= settings.timeout:
                    slot.kill()
                    slots[k] = _Slot(ctx, claims, settings)
                    finish(i, _placeholder(claims[i], "timeout",
                                           f"did not finish within --timeout {settings.timeout:g} s",
                                           now - slot.started))
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
