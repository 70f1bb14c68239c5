"""The mutation run (`--mutate`): does the gate notice a mistake in each claim?

For every claim expected to hold that this run established, its mutants (plausible
editing mistakes, ``verify_claims.mutation``) go through the falsify-first screen only --
the same seeded points in floats, mpmath for every doubtful one, a small CPU budget per
mutant, no proof search -- in the same worker processes and CPU-time limits as claims:

- **killed**: the screen found a confirmed counterexample (the gate would fail);
- **equivalent**: not killed, and sympy shows the mutated formula equal to the original on
  the claim's domain (no mistake at all: excluded from the score);
- **still true**: not killed, and the mutated claim is itself proved or certified by the
  engine (a different but true statement, e.g. a weaker bound: excluded from the score,
  listed);
- **survived**: none of these: a mistake the gate lets through.  The claim can say why it
  is harmless (``harmless_mutants={label: reason}``); it still counts as survived.

Score = killed / (killed + survived), per claim, per module and for the whole run.
Results are kept in the proof store under the claim's key (an unchanged claim is not
mutated again).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..model.result import Result
from ..model.status import Status

__all__ = ["mutate_claim", "run_mutation", "MutationOptions", "summarise", "MUTANT_SECONDS", "VERSION"]

VERSION = "mutation-1"  # part of the store key: bump when the mutants or the verdict rules change
MUTANT_SECONDS = 4.0      # CPU seconds of one mutant's screen
EQUIVALENCE_SECONDS = 2.0  # CPU seconds to show a surviving mutant's formula equal to the original
STILL_TRUE_SECONDS = 4.0   # CPU seconds to prove or certify a surviving mutant
CLAIM_SECONDS = 300.0      # CPU seconds of one claim's whole mutation (the worker's hard limit)


@dataclass
class MutationOptions:
    min_score: float | None = None   # the gate: exit 1 below it


def _formula(m) -> str:
    if m.mutated is None:
        return m.description
    import sympy as sp
    s = sp.sstr(m.mutated)
    return s if len(s) <= 300 else s[:297] + "..."


def _equivalent(claim, m) -> bool:
    """sympy shows the mutated formula equal to the original on the claim's domain."""
    if m.original is None or m.mutated is None:
        return False  # a reversed relation or direction is never the same statement
    from ..backends.symbolic import NO_FACTS, assume, zero_by
    from ..backends.timebox import TimeUp, time_limit
    try:
        with time_limit(EQUIVALENCE_SECONDS):
            try:
                rep, facts = assume(claim)
            except Exception:  # noqa: BLE001 - a domain without usable assumptions
                rep, facts = {}, NO_FACTS
            import sympy as sp
            diff = (sp.sympify(m.mutated) - sp.sympify(m.original)).xreplace(rep)
            how, _ = zero_by(diff, facts)
            return bool(how)
    except (TimeUp, Exception):  # noqa: BLE001 - not shown equal
        return False


def _still_true(m, settings) -> str:
    """The mutated claim proved or certified by the engine (a true statement): its status."""
    from dataclasses import replace as dc_replace

    from ..engine.verify import verify
    from ..backends.timebox import TimeUp, time_limit
    quick = dc_replace(settings, prover_budget=STILL_TRUE_SECONDS / 2, certify_budget=STILL_TRUE_SECONDS / 2)
    try:
        with time_limit(STILL_TRUE_SECONDS):
            res = verify(m.claim, quick)
    except (TimeUp, Exception):  # noqa: BLE001
        return ""
    return str(res.status) if res.status in (Status.PROVED, Status.CERTIFIED) else ""


def mutate_claim(claim, settings, certificate=None) -> Result:
    """The worker's job: generate the claim's mutants and classify each (see the module
    docstring).  Returned as a Result whose evidence holds the mutation record."""
    from ..backends.timebox import TimeUp, time_limit
    from ..engine.context import claim_rng
    from ..kinds import kind_of
    from ..mutation import claim_mutants
    import random

    t0 = time.process_time()
    kind = kind_of(claim)
    harmless = dict(getattr(claim, "harmless_mutants", None) or {})
    rows = []
    for m in claim_mutants(claim, settings.seed):
        t1 = time.process_time()
        random.seed(f"sympy:{settings.seed}:{claim.id}")
        verdict, cx = "survived", None
        timed_out = False
        try:
            with time_limit(MUTANT_SECONDS):
                screen = kind.spot_check(m.claim, settings, claim_rng(settings, claim.id), screen=True)
            if screen.verdict == "counterexample":
                verdict, cx = "killed", screen.counterexample
        except TimeUp:
            verdict, cx = "survived", None
            timed_out = True
        except Exception as exc:  # noqa: BLE001 - a mutant the engine cannot even evaluate is caught
            verdict, cx = "killed", {"type": "error", "cause": f"{type(exc).__name__}: {exc}"[:200]}
        how = ""
        if verdict == "survived":
            if _equivalent(claim, m):
                verdict = "equivalent"
            else:
                how = _still_true(m, settings)
                if how:
                    verdict = "still true"
        row = {"label": m.label, "mistake": m.description, "formula": _formula(m), "verdict": verdict,
               "seconds": round(time.process_time() - t1, 4)}
        if how:
            row["still_true"] = how
        if verdict == "killed" and cx:
            row["counterexample"] = {k: v for k, v in list(cx.items())[:6]}
        if verdict == "survived" and timed_out:
            row["note"] = f"the screen did not finish within {MUTANT_SECONDS:g} s of CPU"
        if verdict == "survived" and m.label in harmless:
            row["harmless"] = harmless[m.label]
        rows.append(row)
    return Result.for_claim(claim, Status.CHECKED, method="mutation", evidence={"mutation": _record(rows)},
                            seconds=round(time.process_time() - t0, 4))


def _record(rows) -> dict:
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("killed", "equivalent", "still true", "survived")}
    scored = counts["killed"] + counts["survived"]
    return {"version": VERSION, "counts": counts, "score": (counts["killed"] / scored) if scored else None,
            "mutants": rows}


@dataclass
class MutationOutcome:
    records: dict = field(default_factory=dict)   # claim id -> record
    from_store: int = 0
    failed: list = field(default_factory=list)    # (claim id, why): the mutation run itself failed


def eligible(results) -> set:
    """Claims whose mutants are worth running: expected to hold, and established now."""
    return {r.id for r in results if r.expected == "holds" and r.kind not in ("summary", "?")
            and Status(r.status).established}


def run_mutation(claims, results, settings, jobs, store=None, keys=None, on_result=None) -> MutationOutcome:
    """Mutate every eligible claim (in workers); `keys[claim id]` is the claim's store key."""
    from .fingerprint import digest
    from .schedule import run_claims
    want = eligible(results)
    todo = [c for c in claims if c.id in want]
    out = MutationOutcome()
    fresh = []
    for c in todo:
        key = digest(VERSION, keys[c.id]) if keys and c.id in keys else None
        entry = store.get("mutants", key) if store is not None and key else None
        if entry is not None:
            out.records[c.id] = entry["record"]
            out.from_store += 1
        else:
            fresh.append((c, key))
    done = {"n": 0}

    def progress(res, _d, _t):
        done["n"] += 1
        if on_result:
            on_result(res, done["n"] + out.from_store, len(todo))

    from dataclasses import replace as dc_replace
    results_ = run_claims([c for c, _ in fresh], dc_replace(settings, timeout=CLAIM_SECONDS), jobs=jobs,
                          on_result=progress, job=mutate_claim)
    for (c, key), res in zip(fresh, results_):
        rec = (res.evidence or {}).get("mutation") if res is not None else None
        if rec is None:
            out.failed.append((c.id, (res.message if res is not None else "not run") or str(res.status)))
            continue
        out.records[c.id] = rec
        if store is not None and key:
            store.put("mutants", key, {"id": c.id, "record": rec})
    return out


def summarise(records: dict, results) -> dict:
    """Per module and for the whole run: counts and the score (killed / non-equivalent)."""
    source = {r.id: r.source for r in results}
    total = {"killed": 0, "equivalent": 0, "still true": 0, "survived": 0}
    modules: dict = {}
    for cid, rec in records.items():
        mod = modules.setdefault(source.get(cid, "?"), dict.fromkeys(total, 0))
        for k in total:
            total[k] += rec["counts"][k]
            mod[k] += rec["counts"][k]

    def score(c):
        n = c["killed"] + c["survived"]
        return round(c["killed"] / n, 4) if n else None

    return {"version": VERSION, "claims": len(records), "counts": total, "score": score(total),
            "modules": {m: {**c, "score": score(c)} for m, c in sorted(modules.items())},
            "survivors": [{"id": cid, **row} for cid, rec in records.items() for row in rec["mutants"]
                          if row["verdict"] == "survived"]}
