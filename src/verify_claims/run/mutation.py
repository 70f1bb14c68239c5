"""The mutation run (`--mutate`): does the gate notice a mistake in each claim?

For every claim expected to hold that this run established, its mutants (plausible
editing mistakes, ``verify_claims.mutation``) go through the falsify-first screen only --
the same seeded points in floats, mpmath for every doubtful one, a small CPU budget per
mutant, no proof search -- in the same worker processes and CPU-time limits as claims:

- **killed**: the screen found a confirmed counterexample; or a certification method found
  one when the mutant was given to the sound methods (below: the gate refutes it the same
  way, "the random spot-check missed it"); or the screen decided none of the mutant's points
  and no sound method establishes it (the gate would report it undecided): either way the
  gate would fail;
- **equivalent**: not killed, and sympy shows the mutated formula equal to the original on
  the claim's domain (no mistake at all: excluded from the score); also, for an identity
  proved in this run, when the prover proves the mutated identity (lhs' = rhs and
  lhs = rhs give lhs' = lhs: ``equivalent_by``);
- **still true**: not killed, and the mutated claim is itself proved or certified by the
  engine (a different but true statement, e.g. a weaker bound: excluded from the score,
  listed; the strict score counts it as survived).  Tried only for claims that were
  themselves proved or certified in this run;
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

__all__ = ["mutate_claim", "classify", "run_mutation", "summarise", "attach", "harmless_reason", "score_of",
           "format_score", "survivors_by_claim", "VERSION"]

VERSION = "mutation-3"  # part of the store key: bump when the mutants or the verdict rules change
MUTANT_SECONDS = 4.0      # CPU seconds of one mutant's screen
EQUIVALENCE_SECONDS = 1.5  # CPU seconds to show a surviving mutant's formula equal to the original
EQUIVALENCE_POINTS = 12    # points at which the numbers may show it different first
# CPU seconds of the prover and of certification for a surviving mutant (half each, in a
# run's order), the whole attempt cut at STILL_TRUE_SECONDS + 1: certification's margin fits
# in it once, so a kind that certifies again after the prover (a root, a maximiser) gets
# what is left of it for that
STILL_TRUE_SECONDS = 3.0
CLAIM_SECONDS = 300.0      # CPU seconds of one claim's whole mutation (the worker's hard limit)


def _formula(m) -> str:
    if m.mutated is None:
        return m.description
    from ..model.short_text import short_str
    return short_str(m.mutated, 300)


def _compare(claim, pairs, settings) -> str:
    """The mutated formula against the original, in numbers, at points of the claim's
    domain: "differs" (at a point, confirmed across precisions as a counterexample is:
    then it is not equivalent, and sympy need not spend its budget trying), "agrees" (at
    every point), or "" when the numbers cannot tell.  `pairs`: ``_forms`` (None: none)."""
    from ..backends.numeric import check_equal
    if not pairs:
        return ""
    try:
        ev, pts = _equivalence_points(claim, pairs, settings)
        outs = [check_equal(ev, f"original{i}", f"mutant{i}", pts) for i in range(len(pairs))]
    except Exception:  # noqa: BLE001 - the numbers cannot tell
        return ""
    if any(o.verdict == "counterexample" and (o.counterexample or {}).get("type") == "values differ" for o in outs):
        return "differs"
    if all(o.verdict == "consistent" and not o.evidence.get("unresolved_points") for o in outs):
        return "agrees"
    return ""


def _equivalence_points(claim, pairs, settings) -> tuple:
    """(Evaluator of the pairs as original<i> and mutant<i>, the seeded points) at which the
    numbers compare them.  Symbols outside the domain are drawn from the claim's feasible
    set where it has one (a maximiser's variables: its logs are undefined outside it), else
    in (0.1, 0.9).  The same for every mutant of a claim: the points, and the original's
    programs, are made once (sample_points, compile_expr)."""
    import mpmath
    import sympy as sp

    from ..backends.numeric import Evaluator, sample_points
    from ..engine.context import claim_rng
    exprs = {f"{side}{i}": e for i, (a, b) in enumerate(pairs) for side, e in (("original", a), ("mutant", b))}
    dom = tuple(claim.domain.symbols())
    free = set().union(*(sp.sympify(e).free_symbols for e in exprs.values()))
    extra = tuple(sorted(free - set(dom), key=sp.default_sort_key))
    ev = Evaluator(dom + extra, exprs, settings.precision, screen=True, domain=claim.domain)
    rng = claim_rng(settings, f"{claim.id}:equivalence")
    pts = sample_points(claim.domain, settings, rng, n=EQUIVALENCE_POINTS)
    feasible = claim.feasible() if callable(getattr(claim, "feasible", None)) else None
    within = [s for s in extra if feasible is not None and s in feasible.sets]
    if within:
        inside = sample_points(feasible, settings, claim_rng(settings, f"{claim.id}:equivalence:feasible"),
                               n=len(pts), edges=False)
        pts = [{**pt, **{s: q[s] for s in within}} for pt, q in zip(pts, inside)]
    for pt in pts:
        for s in extra:
            if s not in within:
                pt[s] = mpmath.mpf(rng.uniform(0.1, 0.9))
    return ev, pts


def _not_negated(claim, pairs, settings) -> bool:
    """The numbers show the mutated formula is not the original negated: at the first of
    _compare's points where every form is defined, a pair's values do not sum to 0 (above
    1e-12 of their size).  The forms are the formulas or their gradients
    (``Kind.equivalence_forms``): a negated formula has negated gradients."""
    import mpmath

    from ..backends.evaluate import Undefined
    if not pairs:
        return False
    try:
        ev, pts = _equivalence_points(claim, pairs, settings)
    except Exception:  # noqa: BLE001 - the numbers cannot tell
        return False
    for pt in pts:
        try:
            values = [(ev.at(f"original{i}", pt, settings.precision), ev.at(f"mutant{i}", pt, settings.precision))
                      for i in range(len(pairs))]
        except Undefined:
            continue
        return any(abs(a + b) > mpmath.mpf(10) ** -12 * (abs(a) + abs(b)) for a, b in values)
    return False


def _forms(claim, m) -> list | None:
    """(original, mutated) pairs of what the claim's kind says the statement depends on
    (``Kind.equivalence_forms``): the formulas, or their derivatives.  None for a mistake
    that is no formula (a reversed relation), or forms that cannot be built."""
    from ..kinds import kind_of
    if m.original is None or m.mutated is None:
        return None
    field = m.label.split(":", 1)[0]
    kind = kind_of(claim)
    try:
        a, b = kind.equivalence_forms(claim, field, m.original), kind.equivalence_forms(claim, field, m.mutated)
    except Exception:  # noqa: BLE001 - neither the numbers nor sympy can compare them
        return None
    return list(zip(a, b)) if len(a) == len(b) else [(m.original, m.mutated)]


def _equivalent(claim, m, pairs, numbers: str, settings) -> bool:
    """sympy shows the mutated formula equal to the original on the claim's domain
    (not tried when the numbers already showed them different)."""
    if m.original is None or m.mutated is None:
        return False  # a reversed relation or direction is never the same statement
    if _sign_free(claim, m, pairs, settings):
        return True
    if numbers == "differs" or not pairs:
        return False
    from ..backends.symbolic import NO_FACTS, assume, zero_by
    from ..backends.timebox import TimeUp, time_limit
    try:
        with time_limit(EQUIVALENCE_SECONDS):
            try:
                rep, facts = assume(claim)
            except Exception:  # noqa: BLE001 - a domain without usable assumptions
                rep, facts = {}, NO_FACTS
            import sympy as sp
            for a, b in pairs:
                how, _ = zero_by((sp.sympify(b) - sp.sympify(a)).xreplace(rep), facts)
                if not how:
                    return False
            return True
    except (TimeUp, Exception):  # noqa: BLE001 - not shown equal
        return False


def _sign_free(claim, m, pairs, settings) -> bool:
    """The mutant negates a formula whose sign the statement does not see (an equation's
    roots, an objective's stationary points: ``Kind.sign_free``).  Multiplied out only when
    neither sympy's own cancellation nor the numbers (`pairs`, _not_negated) decide: a
    stationary objective written out for three outputs took 0.2 s to expand per mutant."""
    import sympy as sp

    from ..kinds import kind_of
    field = m.label.split(":", 1)[0]
    if field not in kind_of(claim).sign_free:
        return False
    try:
        total = sp.sympify(m.mutated) + sp.sympify(m.original)
        if total == 0:  # the usual negation: sympy cancels it as it adds
            return True
        if _not_negated(claim, pairs, settings):
            return False
        return sp.expand(total) == 0
    except Exception:  # noqa: BLE001
        return False


def _still_true(m, settings, screen) -> tuple:
    """(status, counterexample): the mutated claim proved or certified (a true statement
    after all), or refuted by a counterexample that certification found and confirmed (a
    false one the gate refutes), each as establish_screened says; ("", None): neither.
    Its screen already agreed with it at every point: only the sound methods run."""
    from dataclasses import replace as dc_replace

    from ..backends.timebox import TimeUp, time_limit
    from ..engine.verify import establish_screened
    quick = dc_replace(settings, prover_budget=STILL_TRUE_SECONDS / 2, certify_budget=STILL_TRUE_SECONDS / 2)
    try:
        with time_limit(STILL_TRUE_SECONDS + 1.0):
            return establish_screened(m.claim, quick, screen)
    except (TimeUp, Exception):  # noqa: BLE001 - not established
        return "", None


def mutate_claim(claim, settings, certificate=None) -> Result:
    """The worker's job: generate the claim's mutants and classify each (see the module
    docstring).  Returned as a Result whose evidence holds the mutation record.
    `certificate` is what the scheduler hands each job: here {"status": the original
    claim's status in this run} (None: not known, the sound methods are tried)."""
    from ..mutation import claim_mutants

    t0 = time.process_time()
    # a claim whose status this run gives was established by it, so it passed this same
    # screen (the same points, and the engine and settings of the run or of its store
    # key): screened again only when its status is not known
    own = _own_screen(claim, settings) if certificate is None else ""
    if own:
        # a mutant of a claim that fails by itself would be "killed" by that failure
        return Result.for_claim(claim, Status.ERROR, method="mutation", seconds=round(time.process_time() - t0, 4),
                                message=f"the claim does not pass its own screen ({own}): not mutated")
    sound = certificate is None or certificate.get("status") in (Status.PROVED, Status.CERTIFIED)
    from ..backends.symbolic import facts_shared
    with facts_shared():  # the mutants' sign analyses ask about the same sums (facts_shared)
        proved = certificate is not None and certificate.get("status") == Status.PROVED
        rows = [classify(claim, m, settings, try_sound=sound, claim_proved=proved)
                for m in claim_mutants(claim, settings.seed)]
    return Result.for_claim(claim, Status.CHECKED, method="mutation", evidence={"mutation": _record(rows)},
                            seconds=round(time.process_time() - t0, 4))


def _own_screen(claim, settings) -> str:
    """Why the claim itself does not pass the screen its mutants go through ("" when it does)."""
    screen, failure = _screen(claim, claim, settings)
    if failure == "timeout":
        return ""  # slow, not wrong: its mutants' screens will say so one by one
    return failure or ("a counterexample" if screen.verdict == "counterexample" else "")


def _screen(claim, subject, settings):
    """The falsify-first screen of `subject` (the claim or one of its mutants) at the
    claim's own seeded points, within MUTANT_SECONDS of CPU: (outcome, "") or (None,
    "timeout") or (None, why it raised)."""
    import random

    from ..backends.timebox import TimeUp, time_limit
    from ..engine.context import claim_rng
    from ..kinds import kind_of
    random.seed(f"sympy:{settings.seed}:{claim.id}")
    try:
        with time_limit(MUTANT_SECONDS):
            return kind_of(subject).spot_check(subject, settings, claim_rng(settings, claim.id), screen=True), ""
    except TimeUp:
        return None, "timeout"
    except Exception as exc:  # noqa: BLE001 - reported by the caller
        return None, f"{type(exc).__name__}: {exc}"[:200]


def classify(claim, m, settings, try_sound: bool = True, claim_proved: bool = False) -> dict:
    """One mutant's row: killed, equivalent, still true or survived (the module docstring),
    with the counterexample that killed it or the reason it survived.  `try_sound`: whether
    a surviving mutant is given to the prover and certifier (not when the claim itself was
    only checked: what no sound method established in the original will not be
    established in a mistake made to it, and the attempt is most of a mutation run's cost).
    `claim_proved`: the claim itself was proved in this run (_proved_equivalent)."""
    t1 = time.process_time()
    verdict, cx = "survived", None
    screen, failure = _screen(claim, m.claim, settings)
    timed_out = failure == "timeout"
    if screen is not None and screen.verdict == "counterexample":
        verdict, cx = "killed", screen.counterexample
    elif failure and not timed_out:  # a mutant the engine cannot evaluate is an error: the gate fails
        verdict, cx = "killed", {"type": "error", "cause": failure}
    how, numbers, found, shown = "", "", None, ""
    if verdict == "survived":
        pairs = _forms(claim, m)
        numbers = _compare(claim, pairs, settings)
        # numbers that decide no point leave the gate at *undecided* unless a sound method
        # establishes the mutant: a failure the gate reports (e.g. a claimed point gone complex)
        undecided = screen is not None and screen.verdict == "inconclusive"
        first = _proved_equivalent(claim, m, screen, numbers, settings) if claim_proved and try_sound else None
        if first is not None and first[0] == "proved":
            verdict, shown = "equivalent", "the mutated claim proved, as the claim is"
        elif first is not None and first[1]:
            # certification found and confirmed a counterexample, which refutes the mutant in
            # a run whatever sympy's attempt at lhs' - lhs would say
            verdict, cx, found = "killed", first[1], first[1]
        elif _equivalent(claim, m, pairs, numbers, settings):
            verdict = "equivalent"
        else:
            how, found = first if first is not None else \
                _still_true(m, settings, screen) if screen is not None and (try_sound or undecided) else ("", None)
            if how:
                verdict = "still true"
            elif found:
                verdict, cx = "killed", found
            elif undecided:
                verdict, cx = "killed", {"type": "undecided", "cause": "the numbers decide the mutated claim at "
                                         "no point and no sound method establishes it: the gate reports it "
                                         "undecided"}
    row = {"label": m.label, "mistake": m.description, "formula": _formula(m), "verdict": verdict,
           "seconds": round(time.process_time() - t1, 4)}
    if how:
        row["still_true"] = how
    if shown:
        row["equivalent_by"] = shown
    if found:
        row["killed_by"] = "certification"  # its counterexample: one the screen's points missed
    if verdict == "killed" and cx:
        row["counterexample"] = {k: v for k, v in list(cx.items())[:6]}
    if verdict == "survived":
        row["cause"], row["diagnosis"] = _diagnosis(timed_out, numbers, screen, try_sound)
    return row


def _proved_equivalent(claim, m, screen, numbers, settings) -> tuple | None:
    """The still-true attempt (_still_true), made first where a proof of the mutant shows it
    equivalent (``Kind.proof_shows_equivalence``: for an identity, lhs' = rhs proved where
    lhs = rhs is gives lhs' = lhs on the domain) and the numbers agree; None where not.
    sympy's attempt at lhs' - lhs (_equivalent) asks the same question with less: on the
    paper, 37 mutants of identities failed it and the prover then proved them "still true"
    (21 s of CPU for both attempts); with the prover first, 8 s for these and the 47 that
    sympy's attempt had shown equivalent, every one of them proved."""
    from ..kinds import kind_of
    if screen is None or numbers != "agrees" or not kind_of(claim).proof_shows_equivalence:
        return None
    return _still_true(m, settings, screen)


def _diagnosis(timed_out, numbers, screen, tried=True) -> tuple:
    """Why a mutant survived, as far as the engine can tell: (short cause, sentence).  The
    claim may add why it is harmless (``harmless_mutants``)."""
    if timed_out:
        return "screen timeout", f"the screen did not finish within {MUTANT_SECONDS:g} s of CPU"
    points = (screen.evidence or {}).get("points") if screen is not None else None
    at = f" at all {points} points of the screen" if points else " at every point of the screen"
    if numbers == "agrees":
        return "same values", (f"the mutated formula has the original's values{at} (e.g. a change "
                               "in a branch or a term the domain never reaches), but sympy did not show them equal")
    if not tried:
        return "holds, unproved", (f"the mutated claim holds{at}; the claim itself is only checked "
                                   "(no sound method established it), so none was tried on the mutant: a different "
                                   "statement the numbers cannot tell from the claim")
    return "holds, unproved", (f"the mutated claim holds{at}, but was neither proved nor certified "
                               f"within {STILL_TRUE_SECONDS:g} s: a different statement the numbers cannot tell "
                               "from the claim")


def harmless_reason(claim, label: str) -> str:
    """The claim's own explanation of a surviving mutant: ``harmless_mutants`` maps a label,
    or a pattern of labels (``lhs:const-*``), to why that mistake cannot be caught or does
    not matter."""
    from fnmatch import fnmatchcase
    for pattern, reason in (getattr(claim, "harmless_mutants", None) or {}).items():
        if fnmatchcase(label, pattern):
            return reason
    return ""


def _record(rows) -> dict:
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("killed", "equivalent", "still true", "survived")}
    return {"version": VERSION, "counts": counts, "score": score_of(counts), "mutants": rows}


def score_of(counts: dict) -> float | None:
    """killed / (killed + survived); None when no mutant changed the claim."""
    n = counts["killed"] + counts["survived"]
    return counts["killed"] / n if n else None


def format_score(score, missing: str = "n/a") -> str:
    return f"{100 * score:.1f}%" if isinstance(score, (int, float)) and not isinstance(score, bool) else missing


def survivors_by_claim(survivors) -> list:
    """The surviving mutants grouped by claim, in order: [(claim id, rows, the reason they
    all share or "")], for every place that lists them (console, HTML, LaTeX, README)."""
    by_claim: dict = {}
    for row in survivors or []:
        by_claim.setdefault(row["id"], []).append(row)
    out = []
    for cid, rows in by_claim.items():
        reasons = {r.get("harmless") for r in rows}
        out.append((cid, rows, reasons.pop() if len(reasons) == 1 and None not in reasons else ""))
    return out


@dataclass
class MutationOutcome:
    records: dict = field(default_factory=dict)   # claim id -> record
    from_store: int = 0
    failed: list = field(default_factory=list)    # (claim id, why): the mutation run itself failed


def eligible(results) -> set:
    """Claims whose mutants are worth running: expected to hold, and established now."""
    # a simulation has no formula to mistype (its run is a function): not mutated
    return {r.id for r in results if r.expected == "holds" and r.kind not in ("summary", "simulation", "?")
            and Status(r.status).established}


def run_mutation(claims, results, settings, jobs, store=None, keys=None, on_result=None) -> MutationOutcome:
    """Mutate every eligible claim (in workers); `keys[claim id]` is the claim's store key.
    on_result(claim id, record, done, total) as each claim's record arrives (stored ones first)."""
    from dataclasses import replace as dc_replace

    from .fingerprint import digest
    from .schedule import run_claims
    want = eligible(results)
    todo = [c for c in claims if c.id in want]
    out = MutationOutcome()
    fresh = []
    status = {r.id: Status(r.status) for r in results}
    for c in todo:
        key = digest(VERSION, keys[c.id], str(status[c.id])) if keys and c.id in keys else None
        entry = store.get("mutants", key) if store is not None and key else None
        if entry is not None:
            out.records[c.id] = entry["record"]
            out.from_store += 1
            if on_result:
                on_result(c.id, entry["record"], out.from_store, len(todo))
        else:
            fresh.append((c, key))
    done = {"n": out.from_store}

    def progress(res, _d, _t):
        done["n"] += 1
        if on_result:
            on_result(res.id, (res.evidence or {}).get("mutation"), done["n"], len(todo))

    results_ = run_claims([c for c, _ in fresh], dc_replace(settings, timeout=CLAIM_SECONDS), jobs=jobs,
                          on_result=progress, job=mutate_claim, certificates=lambda c: {"status": status[c.id]})
    for (c, key), res in zip(fresh, results_):
        rec = (res.evidence or {}).get("mutation") if res is not None else None
        if rec is None:
            out.failed.append((c.id, (res.message if res is not None else "not run") or str(res.status)))
            continue
        out.records[c.id] = rec
        if store is not None and key:
            store.put("mutants", key, {"id": c.id, "record": rec})
    # declaration order, whatever came from the store; the claims' own reasons are applied
    # here, not stored (a reason is not part of a claim's key: editing one re-runs nothing)
    out.records = {c.id: _with_reasons(out.records[c.id], c) for c in todo if c.id in out.records}
    return out


def _with_reasons(record, claim) -> dict:
    """The claim's reasons on its surviving mutants, and the patterns that explain none of
    them (a reason left behind after the claim was strengthened)."""
    from fnmatch import fnmatchcase
    rows = []
    for row in record["mutants"]:
        row = {k: v for k, v in row.items() if k != "harmless"}
        if row["verdict"] == "survived":
            reason = harmless_reason(claim, row["label"])
            if reason:
                row["harmless"] = reason
        rows.append(row)
    survivors = [r["label"] for r in rows if r["verdict"] == "survived"]
    unused = [p for p in (getattr(claim, "harmless_mutants", None) or {})
              if not any(fnmatchcase(label, p) for label in survivors)]
    return {**record, "mutants": rows, "unused_reasons": unused}


def summarise(records: dict, sources: dict, failed=(), min_score=None) -> dict:
    """Per module and for the whole run: counts and the score (killed / (killed + survived));
    `sources[claim id]` is the claim's module.  ``strict_score`` counts the still-true
    mutants as survivors too, for a reader who does not accept that exclusion."""
    total = {"killed": 0, "equivalent": 0, "still true": 0, "survived": 0}
    modules: dict = {}
    for cid, rec in records.items():
        mod = modules.setdefault(sources.get(cid, "?"), dict.fromkeys(total, 0))
        for k in total:
            total[k] += rec["counts"][k]
            mod[k] += rec["counts"][k]

    def score(c):
        v = score_of(c)
        return None if v is None else round(v, 4)

    strict_n = total["killed"] + total["survived"] + total["still true"]
    overall = score(total)
    passed = None if min_score is None else (overall is not None and 100 * overall >= min_score and not failed)
    return {"version": VERSION, "claims": len(records), "counts": total, "score": overall,
            "strict_score": round(total["killed"] / strict_n, 4) if strict_n else None,
            "modules": {m: {**c, "score": score(c)} for m, c in sorted(modules.items())},
            "survivors": [{"id": cid, **row} for cid, rec in records.items() for row in rec["mutants"]
                          if row["verdict"] == "survived"],
            "failed": [list(f) for f in failed],
            "unused_reasons": [[cid, p] for cid, rec in records.items() for p in rec.get("unused_reasons") or []],
            "gate": {"min_score": min_score, "passed": passed},
            "budgets": {"mutants_per_claim": _max_per_claim(), "screen_seconds": MUTANT_SECONDS,
                        "equivalence_seconds": EQUIVALENCE_SECONDS, "still_true_seconds": STILL_TRUE_SECONDS}}


def _max_per_claim() -> int:
    from ..mutation import MAX_PER_CLAIM
    return MAX_PER_CLAIM


def attach(report: dict, records: dict, failed=(), min_score=None) -> dict:
    """Put the mutation run into claims.json: each claim's record under claims[].mutation,
    the summary (scores, survivors, the gate) under mutation.  Returns the summary."""
    for c in report["claims"]:
        if c["id"] in records:
            c["mutation"] = records[c["id"]]
    summary = summarise(records, {c["id"]: c.get("source", "?") for c in report["claims"]}, failed, min_score)
    report["mutation"] = summary
    return summary
