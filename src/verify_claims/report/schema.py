"""reports/claims.json: the machine-readable record of a run (schema in the README)."""

from __future__ import annotations

import math

import json
from collections import Counter
from pathlib import Path

from ..atomic import write_text_atomic
from ..run.fingerprint import versions
from ..model.status import INEQUALITY_LIKE, STATUSES

__all__ = ["SCHEMA", "build_report", "write_json_atomic", "mark_established", "certification_summary", "mark_narrowed",
           "narrowing_summary"]

SCHEMA = "verify-claims/1"  # additions only since 0.1: run.store, run.selection, claims[].origin, claims[].established_at,
# claims[].expanded, claims[].display, claims[].symbols; the status "simulated" (run.counts.simulated, kind
# "simulation", claims[].evidence.simulation) and run.versions.numpy
# claims[].narrowed, claims[].paper_domain, run.narrowed


def mark_established(results) -> None:
    """A claim is established when its status is and so is everything it uses (transitively)."""
    by_id = {r.id: r for r in results}
    memo: dict = {}

    def ok(rid, trail=()):
        if rid in memo:
            return memo[rid]
        r = by_id.get(rid)
        if r is None or rid in trail:  # filtered out by --only, or a cycle: not established here
            return None
        mine = r.status in ("proved", "certified", "checked", "simulated")
        deps = [ok(u, trail + (rid,)) for u in r.uses]
        if not mine or any(d is False for d in deps):
            val = False
        elif any(d is None for d in deps):
            val = None  # depends on a claim outside this run
        else:
            val = True
        memo[rid] = val
        return val

    for r in results:
        r.established = ok(r.id)


def mark_narrowed(results) -> None:
    """A summary judged from claims verified on a narrower domain than the paper states is
    itself verified on less than its prose says: it gets ``narrowed`` with the ids it rests
    on (``rests_on``, transitively through other summaries), unless it declares its own."""
    by_id = {r.id: r for r in results}
    for r in results:
        if r.kind == "summary" and isinstance(r.narrowed, dict) and "rests_on" in r.narrowed:
            r.narrowed = None  # recomputed below (a result judged again)
    for r in results:
        if r.kind != "summary" or r.narrowed is not None:
            continue
        seen, stack, found = set(), list(r.uses), []
        while stack:
            u = stack.pop()
            if u in seen or u not in by_id:
                continue
            seen.add(u)
            d = by_id[u]
            if d.kind == "summary":
                stack.extend(d.uses)
            elif d.narrowed:
                found.append(u)
        if found:
            found = sorted(found)
            r.narrowed = {"declared": True, "paper": "the statement as the paper makes it",
                          "verified": f"the {len(found)} supporting claim{'s' if len(found) > 1 else ''} "
                                      "verified on a narrower domain: " + ", ".join(found),
                          "reason": "a summary's verdict is the weakest verdict of the claims it uses",
                          "rests_on": found}


def narrowing_summary(results) -> dict:
    """How many claims are verified on a narrower domain than the paper states (run.narrowed):
    ``claims`` counts those with an established verdict (proved, certified, checked: verified,
    of the narrower statement), of which ``declared`` by the claim, ``summaries`` resting on
    such claims, ``undeclared`` found by the guard; ``ids`` lists them all, and
    ``undeclared_ids`` the guard's finds whatever their status."""
    mine = [r for r in results if r.narrowed and r.status in ("proved", "certified", "checked")]
    undeclared = [r for r in mine if not r.narrowed.get("declared")]
    summaries = [r for r in mine if r.narrowed.get("rests_on")]
    return {"claims": len(mine), "declared": len(mine) - len(undeclared) - len(summaries),
            "summaries": len(summaries), "undeclared": len(undeclared), "ids": [r.id for r in mine],
            "undeclared_ids": [r.id for r in results if r.narrowed and not r.narrowed.get("declared")]}


def _why_not_certified(r) -> str:
    """One line: why an inequality-like claim stayed at checked/undecided."""
    cert = (r.evidence or {}).get("certificate") or {}
    if cert.get("reason"):
        return cert["reason"]
    if r.kind == "limit":
        sym = (r.evidence or {}).get("symbolic", {})
        return "limit: sympy.limit did not establish it (" + str(sym.get("limit", sym.get("error", "")))[:120] + ")"
    if r.kind == "maximiser":
        return "maximiser: " + str((r.evidence or {}).get("symbolic", {}).get("second_order", "not established"))
    return r.message or "no certificate"


def certification_summary(results) -> dict:
    """Inequality-like claims by status, and a one-line reason for each only-checked one."""
    mine = [r for r in results if r.kind in INEQUALITY_LIKE]
    counts = Counter(r.status for r in mine)
    return {"kinds": list(INEQUALITY_LIKE), "claims": len(mine),
            "counts": {s: counts.get(s, 0) for s in ("proved", "certified", "checked", "undecided", "refuted",
                                                     "error", "timeout")},
            "methods": dict(Counter((r.evidence or {}).get("certificate", {}).get("method") or "?"
                                    for r in mine if r.status == "certified")),
            "not_certified": [{"id": r.id, "status": r.status, "reason": _why_not_certified(r)}
                              for r in mine if r.status in ("checked", "undecided")]}


def _wall_limit(settings):
    """The wall-clock net per claim in seconds (None: no limit)."""
    w = settings.wall_seconds()
    return w if math.isfinite(w) else None


def build_report(results, problems, settings, *, derivations: str, seconds: float, exit_code: int,
                 jobs: int, started: str, uncheckable=(), figures=None, store=None) -> dict:
    counts = Counter(r.status for r in results)
    mark_narrowed(results)
    return {
        "schema": SCHEMA,
        "run": {
            "seed": settings.seed,
            "samples": settings.samples,
            "precision": settings.precision,
            "timeout": settings.timeout,
            "wall_limit": _wall_limit(settings),
            "jobs": jobs,
            "derivations": derivations,
            "started": started,
            "seconds": round(seconds, 3),
            "versions": versions(),
            "counts": {s: counts.get(s, 0) for s in STATUSES},
            "claims": len(results),
            "as_expected": sum(1 for r in results if r.as_expected),
            "not_as_expected": sum(1 for r in results if not r.as_expected),
            "problems": len(problems),
            "exit_code": exit_code,
            # claims verified on a narrower domain than the paper states (see narrowing_summary)
            "narrowed": narrowing_summary(results),
            # the proof store and certificates: where verdicts came from this time
            "store": store or {},
        },
        "certification": certification_summary(results),
        "problems": [{"file": p.file, "claim": p.claim, "cause": p.cause} for p in problems],
        "claims": [r.to_json() for r in results],
        "uncheckable": [u if isinstance(u, dict) else u.to_json() for u in uncheckable],
        # reproduced figures (figures.compute_figure): closed form against numeric roots
        "figures": list(figures or []),
    }


def write_json_atomic(data: dict, path) -> Path:
    """Write to a temporary file beside `path`, then rename: never a half-written report."""
    return write_text_atomic(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", path)
