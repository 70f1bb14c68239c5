"""Verify one claim: a symbolic attempt, then always a numeric spot-check.

The combination rule is what makes a status trustworthy:
- numbers contradict the claim -> refuted (with the counterexample), unless the
  prover said proved, which is an engine error reported loudly, never a pass;
- numbers agree -> the prover's status (proved / certified) or else checked;
- numbers inconclusive -> the prover's status if it has one, else undecided.
"""

from __future__ import annotations

import random
import time

import sympy as sp

from .certify import CERTIFIABLE, Certificate, certify, limit_reason
from .numeric import NumericOutcome, spot_check
from .result import Result, Settings
from .symbolic import ProofOutcome, prove
from .timebox import TimeUp, time_limit

__all__ = ["verify", "verify_summary", "Settings", "claim_rng"]


CONFLICT_CHECK_SECONDS = 2.0


def claim_rng(settings: Settings, claim_id: str) -> random.Random:
    """Per-claim generator: results do not depend on order, filtering or parallelism."""
    return random.Random(f"{settings.seed}:{claim_id}")


def verify(claim, settings: Settings | None = None) -> Result:
    """Establish `claim` as strongly as possible; see the module docstring."""
    settings = settings or Settings()
    t0 = time.perf_counter()
    try:
        # numbers first: when they refute, the symbolic attempt only serves the conflict
        # check (a proof of a refuted claim is an engine bug), so it gets a short budget
        numeric = spot_check(claim, settings, claim_rng(settings, claim.id))
        t1 = time.perf_counter()
        budget = settings.symbolic_budget()
        if numeric.verdict == "counterexample":
            budget = min(budget, CONFLICT_CHECK_SECONDS)
        proof = _attempt_proof(claim, budget)
        t2 = time.perf_counter()
        cert = _attempt_certificate(claim, settings, proof, numeric)
        status, method, message = _combine(proof, numeric)
        counterexample = numeric.counterexample if status in ("refuted", "error") else None
        if cert is not None:
            status, method, message, counterexample = _combine_certificate(
                cert, status, method, message, counterexample, proof, numeric)
    except Exception as exc:  # a claim that raises is an error of that claim, not of the run
        return Result.for_claim(claim, "error", message=f"{type(exc).__name__}: {exc}",
                                seconds=round(time.perf_counter() - t0, 4))
    evidence = {"symbolic": {"status": proof.status or "not established", "method": proof.method,
                             "seconds": round(t2 - t1, 4), **proof.evidence},
                "numeric": {"verdict": numeric.verdict, "seconds": round(t1 - t0, 4), **numeric.evidence}}
    if cert is not None:
        evidence["certificate"] = cert.to_json()
    elif proof.status == "certified":
        evidence["certificate"] = {"method": "symbolic", "detail": proof.method, "seconds": round(t2 - t1, 4),
                                   "boxes": None, "depth": None, "goals": []}
    return Result.for_claim(claim, status, method=method, evidence=evidence,
                            counterexample=counterexample,
                            message=message, steps=_steps(claim, proof, numeric),
                            seconds=round(time.perf_counter() - t0, 4))


_STRENGTH = ("proved", "certified", "checked")


def verify_summary(claim, results_by_id: dict) -> Result:
    """A summary statement holds as strongly as the weakest claim it uses.

    A supporting claim that is refuted refutes the summary (the counterexample names it),
    except a confirmed "not in general" statement, whose counterexample is the support (it
    counts as checked); one that errored, timed out or is undecided, or was not run,
    leaves it undecided.
    """
    support = {u: results_by_id.get(u) for u in claim.uses}
    statuses = {u: (r.status if r is not None else "not run") for u, r in support.items()}
    evidence = {"supported_by": dict(statuses)}
    for u, r in support.items():
        # a confirmed "not in general" (expected refuted, not a paper error) supports a
        # summary that says the two differ; a numeric counterexample is checked-strength
        if r is not None and r.status == "refuted" and r.as_expected and not r.paper_error:
            statuses[u] = "checked"
    refuted_by = [u for u, st in statuses.items() if st == "refuted"]
    if refuted_by:
        first = support[refuted_by[0]]
        return Result.for_claim(claim, "refuted", method="conjunction of the claims it uses",
                                evidence=evidence,
                                counterexample={"type": "refuted supporting claim", "claim": refuted_by[0],
                                                **({"reason": first.expected_reason}
                                                   if first.expected_reason else {})},
                                message=f"supporting claim(s) refuted: {', '.join(refuted_by)}")
    open_ = [u for u, st in statuses.items() if st not in _STRENGTH]
    if open_:
        return Result.for_claim(claim, "undecided", method="conjunction of the claims it uses",
                                evidence=evidence,
                                message="not established: " + ", ".join(f"{u} is {statuses[u]}" for u in open_))
    weakest = max(statuses.values(), key=_STRENGTH.index)
    return Result.for_claim(claim, weakest, method=f"conjunction of {len(statuses)} claims it uses "
                                                   "(the weakest verdict among them)", evidence=evidence)


def _attempt_certificate(claim, settings: Settings, proof: ProofOutcome, numeric: NumericOutcome):
    """Run the certification methods on an inequality-like claim the prover did not
    establish; on a numerically refuted claim only briefly, as a conflict check."""
    if claim.kind == "limit" and proof.status is None and numeric.verdict != "counterexample":
        return Certificate("undecided", reason=limit_reason(claim, proof.evidence, numeric.evidence))
    if claim.kind not in CERTIFIABLE or proof.status is not None:
        return None
    if claim.kind == "maximiser" and proof.evidence.get("stopped"):
        # the objective's derivatives already exhausted the symbolic budget; the routes
        # below differentiate it again (twice for the Hessian), which would only add
        # another budget to a claim that is near the per-claim timeout
        return Certificate("undecided", reason="maximiser: the objective's derivatives exhausted the symbolic "
                           "budget; certification not attempted")
    if numeric.verdict == "counterexample" and (numeric.counterexample or {}).get("type") == "undefined":
        return None
    budget = settings.certification_budget()
    if numeric.verdict == "counterexample":
        budget = min(budget, CONFLICT_CHECK_SECONDS)
    solved = bool(proof.evidence.get("solves_proved")) if claim.kind == "root" else None
    if claim.kind == "maximiser":  # the prover's exact zero-gradient identity, reused
        solved = proof.evidence.get("first_order") == "gradient vanishes (proved)"
    box = None
    try:
        with time_limit(budget + 1.0) as box:
            return certify(claim, settings, budget, solved=solved)
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return Certificate("undecided", reason=f"certification stopped after {budget:g} s")
    except RecursionError:
        return Certificate("undecided", reason="recursion limit in certification")


def _combine_certificate(cert: Certificate, status, method, message, counterexample, proof, numeric):
    """A certificate upgrades checked (or undecided) to certified; a confirmed
    counterexample of a certification method refutes; either contradicting the other
    evidence is an engine conflict, never a pass."""
    if cert.verdict == "certified":
        if numeric.verdict == "counterexample":
            return ("error", "engine conflict",
                    f"ENGINE CONFLICT: certified ({cert.method}) but the numeric check found a "
                    "counterexample; report this as a bug", numeric.counterexample)
        note = "" if numeric.verdict == "consistent" else message
        return "certified", f"certified ({cert.method})", note, None
    if cert.verdict == "refuted":
        if proof.status is not None:
            return ("error", "engine conflict",
                    f"ENGINE CONFLICT: the prover says {proof.status} ({proof.method}) but certification "
                    "found a confirmed counterexample; report this as a bug", cert.counterexample)
        if status == "refuted":
            return status, method, message, counterexample
        return ("refuted", "counterexample from certification (confirmed by mpmath)",
                "counterexample found by certification; the random spot-check missed it",
                cert.counterexample)
    return status, method, message, counterexample


def _attempt_proof(claim, budget: float) -> ProofOutcome:
    box = None
    try:
        with time_limit(budget) as box:
            return prove(claim)
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return ProofOutcome(None, "sympy", {"stopped": f"symbolic attempt stopped after {budget:g} s"})
    except RecursionError:
        return ProofOutcome(None, "sympy", {"stopped": "sympy recursion limit"})


def _combine(proof: ProofOutcome, numeric: NumericOutcome):
    if numeric.verdict == "counterexample":
        undefined = (numeric.counterexample or {}).get("type") == "undefined"
        if proof.status is not None and undefined:
            # the algebra holds where both sides are defined; the declared domain does not
            # keep the claim defined, so as declared it is refuted (not an engine conflict)
            return ("refuted", "numeric counterexample (mpmath)",
                    "undefined at a point of the declared domain; the symbolic "
                    f"{proof.status} result holds only where the claim is defined")
        if proof.status is not None:
            return ("error", "engine conflict",
                    f"ENGINE CONFLICT: the prover says {proof.status} ({proof.method}) but the "
                    "numeric check found a counterexample; report this as a bug")
        where = f" at step {numeric.step}" if numeric.step else ""
        return "refuted", "numeric counterexample (mpmath)", f"counterexample{where}"
    if numeric.verdict == "consistent":
        if proof.status is not None:
            return proof.status, proof.method, ""
        if proof.disagrees:
            return ("undecided", "conflicting evidence",
                    f"{proof.disagrees}, but the numbers agree with the claim; neither is trusted alone")
        return "checked", "numeric spot-check (mpmath)", ""
    # inconclusive numbers
    if proof.status is not None:
        return proof.status, proof.method, "numeric check inconclusive: " + str(
            numeric.evidence.get("inconclusive_at", {}).get("explanation", "tight at every point"))
    why = numeric.evidence.get("inconclusive_at", {}).get("explanation", "")
    return "undecided", "", "neither proved nor decided numerically" + (f": {why}" if why else "")


def _steps(claim, proof: ProofOutcome, numeric: NumericOutcome):
    if claim.kind != "chain":
        return None
    out = []
    for i, step in enumerate(claim.steps):
        entry = {"step": i + 1, "latex": sp.latex(step.expr), "because": step.because,
                 "relation": step.relation if i else "start"}
        if i:
            s = proof.step_statuses[i - 1] if proof.step_statuses else None
            nv = numeric.step_verdicts[i - 1] if numeric.step_verdicts and i - 1 < len(
                numeric.step_verdicts) else None
            if nv == "counterexample":
                entry["status"] = "refuted"
            elif s is not None:
                entry["status"] = s
            elif nv == "consistent":
                entry["status"] = "checked"
            else:
                entry["status"] = "not-reached" if numeric.step and i + 1 > numeric.step else "undecided"
        out.append(entry)
    return out
