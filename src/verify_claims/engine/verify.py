"""Verify one claim: falsify first, then prove or certify, then the numbers decide what is left.

1. **Falsify first.**  The claim is spot-checked at its seeded points, cheapest first:
   machine floats, and mpmath for every point floats cannot clear.  A confirmed
   counterexample ends the claim's work at once: no symbolic attempt on a claim that is
   already refuted.
2. **Prove and certify**, cheapest method first, within CPU-time budgets: the prover and
   then certification, or certification first for a kind whose prover reaches no more than
   certified (``Kind.certify_first``: inequalities, monotonicities, roots; a maximiser's
   route A by z3 alone).  With a
   certificate (from the proof store or committed beside the derivations) only the
   recorded decisions are replayed: every step is re-done, none is trusted.  A replay that
   does not reach the recorded status is reported, and the claim is searched again.  A
   replay is not held to a search's budgets (NUMBERS_SHARE below), so that a slower
   machine re-checks a proof instead of losing it.
3. **The numbers again, in mpmath at every point**: all of the claim's points when no
   proof or certificate established it (the evidence behind *checked*), the first ten as
   the cross-check of a proof.  The combination rule:
   - numbers contradict the claim -> refuted (with the counterexample), unless a proof or
     certificate says otherwise, which is an engine conflict reported loudly, never a pass;
   - numbers agree -> the prover's status (proved / certified) or else checked;
   - numbers inconclusive -> the prover's status if it has one, else undecided.
4. **Shrink** the counterexample of a refuted claim towards the simplest point of its
   domain that still fails the same way (``backends.shrink``; each step confirmed by the
   kind's own rule, exactly where the expressions allow); the raw point is kept beside it.
   Only here, for a claim's final result: the mutation run's screening of mutants never
   shrinks.

A ``Simulation`` claim takes none of these steps: its run function is called and the mean
over runs compared with the target (``kinds/simulation.py``); its status is *simulated*
or refuted, never proved, certified or checked.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import replace

from ..backends import SEARCHED
from ..backends.numeric import NumericOutcome
from ..backends.shrink import shrink_counterexample
from ..backends.symbolic import ProofOutcome
from ..backends.timebox import REPLAY_STRETCH, TimeUp, time_limit
from ..kinds import kind_of
from ..model.claims import float_hint, too_deep
from ..model.result import Result
from ..model.status import Status
from ..run.certificates import RECORDED_NOTE
from ..run.framestack import with_frame_room
from ..run.settings import Settings
from .context import Context, Trace, claim_rng
from .goals import Certificate

__all__ = ["verify", "certify", "establish_screened", "Settings", "claim_rng"]

STRONG = (Status.PROVED, Status.CERTIFIED)
# A replay runs only steps that succeeded before, so it is not held to a search's budgets:
# it may use the claim's CPU limit (--timeout) up to what the numbers need (NUMBERS_SHARE
# of it), and the slices inside it are stretched (backends/timebox.py).  A machine several
# times slower than the one that found a proof then re-checks it instead of losing it.
NUMBERS_SHARE = 0.2
MIN_SEARCH_SECONDS = 1.0
CERTIFY_MARGIN = 1.0  # the certification's limit is its budget plus this (_attempt_certificate)
# sample points of the high-precision cross-check of a proof (the first ones of the
# claim's seeded sample, which the float screen has already seen)
CROSS_CHECK_SAMPLES = 10


def verify(claim, settings: Settings | None = None, *, certificate: dict | None = None) -> Result:
    """Establish `claim` as strongly as possible; see the module docstring.

    `certificate` is a record written by an earlier run (``Result.evidence['trace']`` and its
    status): its decisions are replayed instead of searching."""
    # with room on the frame stack, as in the run's workers (run/framestack.py): called from
    # a script or a notebook, a claim costs the same CPU whatever the caller's stack depth
    return with_frame_room(_verify, claim, settings, certificate)


def _verify(claim, settings: Settings | None, certificate: dict | None) -> Result:
    settings = settings or Settings()
    if certificate is not None and certificate.get("status") not in ("proved", "certified", "checked", "undecided"):
        certificate = None  # a refutation is re-found by the numbers or the search, never replayed
    if certificate is not None and certificate.get("status") in ("checked", "undecided") and \
            not set(SEARCHED) <= set(certificate.get("methods") or ()):
        # "no sound method succeeded" was recorded before one of today's methods existed
        certificate = None
    t0 = time.process_time()
    if claim.kind == "simulation":
        # no points, no proof: the algorithm is run and its mean compared (kinds/simulation.py)
        try:
            return kind_of(claim).evaluate(claim, settings)
        except Exception as exc:  # noqa: BLE001 - an error of this claim, not of the run
            return Result.for_claim(claim, Status.ERROR, message=f"{type(exc).__name__}: {exc}",
                                    seconds=round(time.process_time() - t0, 4))
    # sympy's assumption system shuffles its rules with the global random module: seeding
    # it per claim makes a verdict independent of which claims ran before in this process
    random.seed(f"sympy:{settings.seed}:{claim.id}")
    kind = kind_of(claim)
    try:
        screen = kind.spot_check(claim, settings, claim_rng(settings, claim.id), screen=True)
        t1 = time.process_time()
        if screen.verdict == "counterexample":
            return _with_hints(claim, _refuted_first(claim, settings, screen, t0, t1))
        result = _with_hints(claim, _establish(kind, claim, settings, certificate, screen, t0, t1))
        replay = result.evidence.get("replay")
        if replay is not None and replay.get("result") == "failed":
            # a committed or stored certificate that does not replay is never trusted:
            # search from scratch, and say so -- in what is left of the claim's CPU limit
            left = _replay_end(settings, t0) - time.process_time()
            if left < 2 * MIN_SEARCH_SECONDS:
                result.message = (f"CERTIFICATE DID NOT REPLAY ({replay.get('reason', '')}); no CPU time "
                                  "left to search again. " + result.message).strip()
                return result
            searching = replace(settings, prover_budget=min(settings.symbolic_budget(), left / 2),
                                certify_budget=min(settings.certification_budget(), left / 2))
            fresh = _establish(kind, claim, searching, None, screen, t0, t1)
            fresh.evidence["replay"] = replay
            fresh.message = (f"CERTIFICATE DID NOT REPLAY ({replay.get('reason', '')}); searched again. "
                             + fresh.message).strip()
            return _with_hints(claim, fresh)
        return result
    except RecursionError:
        return Result.for_claim(claim, Status.ERROR, message=too_deep(claim.id, claim.named_expressions()),
                                seconds=round(time.process_time() - t0, 4))
    except Exception as exc:  # a claim that raises is an error of that claim, not of the run
        return _with_hints(claim, Result.for_claim(claim, Status.ERROR, message=f"{type(exc).__name__}: {exc}",
                                                   seconds=round(time.process_time() - t0, 4)))


def establish_screened(claim, settings: Settings, screen: NumericOutcome) -> tuple:
    """(status, counterexample) for a claim whose screen (`screen`, at these settings)
    already agreed with it at every point, so the numbers are not run again: the sound
    status ("proved" or "certified") that the prover and certification reach within the
    settings' budgets, in the order a run tries them (_prove_and_certify), or ""; and the
    counterexample a certification method found and confirmed, which refutes the claim
    as a run would (_combine_certificate), else None.  What the mutation run asks of a
    mutant that survived the screen: is it still a true statement, or does the gate
    refute it after all?"""
    random.seed(f"sympy:{settings.seed}:{claim.id}")
    kind = kind_of(claim)
    ctx = Context(settings, Trace(None))
    proof, cert, _, _ = _prove_and_certify(kind, claim, ctx, screen, settings, time.process_time())
    if proof.status is not None:
        return str(proof.status), None
    if cert is not None and cert.verdict == "refuted":
        return "", cert.counterexample or {"type": "refuted by certification", "method": cert.method}
    return ("certified" if cert is not None and cert.verdict == "certified" else ""), None


def _with_hints(claim, result: Result) -> Result:
    """A refuted or failed claim whose declaration has floats says so: 0.1 is not one tenth."""
    if result.status in (Status.REFUTED, Status.ERROR) and not result.as_expected:
        hint = float_hint(claim)
        if hint:
            result.message = f"{result.message}; {hint}" if result.message else hint
    return result


def _shrunk(kind, claim, settings, cx, outcome):
    """A refuting counterexample shrunk towards the simplest point that still fails (the raw
    one kept under "raw"); `outcome`: the numeric pass that found it, if it did."""
    if not isinstance(cx, dict) or not cx:
        return cx
    if outcome is not None and outcome.counterexample is not cx:
        outcome = None
    try:
        return shrink_counterexample(kind.shrink_target(claim, settings, cx, outcome), cx)
    except Exception as exc:  # noqa: BLE001 - shrinking never decides a verdict
        return {**cx, "shrunk": f"not shrunk: {type(exc).__name__}: {exc}"}


def _refuted_first(claim, settings, numeric: NumericOutcome, t0, t1) -> Result:
    where = f" at step {numeric.step}" if numeric.step else ""
    evidence = {"symbolic": {"status": "not attempted", "method": "",
                             "reason": "the numeric check refuted the claim first"},
                "numeric": {"verdict": numeric.verdict.value, "seconds": round(t1 - t0, 4), "mode": "screen",
                            **numeric.evidence}}
    return Result.for_claim(claim, Status.REFUTED, method=_refuting_method(numeric),
                            message=f"counterexample{where}", evidence=evidence,
                            counterexample=_shrunk(kind_of(claim), claim, settings, numeric.counterexample, numeric),
                            steps=kind_of(claim).steps(claim, ProofOutcome(None), numeric),
                            seconds=round(time.process_time() - t0, 4))


def _establish(kind, claim, settings, certificate, screen, t0, t1) -> Result:
    recorded = (certificate or {}).get("status")
    negative = recorded in ("checked", "undecided")
    ctx = Context(settings, Trace(certificate.get("decisions", {}) if certificate and not negative else None))
    cert, cert_seconds = None, 0.0
    if negative:
        # the record says no sound method succeeded: nothing to replay, no search
        proof = ProofOutcome(None, "", {"skipped": "the certificate records that no proof or certificate "
                                                   "was found (search again with --no-certificates)"})
        proof_seconds = 0.0
        if certificate.get("reason"):
            cert = Certificate("undecided", reason=certificate["reason"] + RECORDED_NOTE)
    else:
        proof, cert, proof_seconds, cert_seconds = _prove_and_certify(kind, claim, ctx, screen, settings, t0)
    t3 = time.process_time()
    strong = proof.status is not None or (cert is not None and cert.verdict == "certified")
    # the numbers again, every point in mpmath: for a claim that no proof or certificate
    # established, at all its points (that is what *checked* means); for a proof, at the
    # first CROSS_CHECK_SAMPLES of them, a cross-check independent of the float screen
    if screen.evidence.get("screened_in_floats") == 0:
        numeric = screen  # no point was decided in doubles: the screen already was the full check
    else:
        checking = replace(settings, samples=min(settings.samples, CROSS_CHECK_SAMPLES)) if strong else settings
        numeric = kind.spot_check(claim, checking, claim_rng(settings, claim.id), screen=False)
    t4 = time.process_time()
    status, method, message = _combine(proof, numeric)
    counterexample = numeric.counterexample if status in (Status.REFUTED, Status.ERROR) else None
    if cert is not None:
        status, method, message, counterexample = _combine_certificate(
            cert, status, method, message, counterexample, proof, numeric)
    evidence = {"symbolic": {"status": proof.status or "not established", "method": proof.method,
                             "seconds": round(proof_seconds, 4), **proof.evidence},
                "numeric": {"verdict": numeric.verdict.value, "seconds": round((t1 - t0) + (t4 - t3), 4),
                            **numeric.evidence, "screen": _screen_summary(screen)}}
    if cert is not None:
        evidence["certificate"] = {**cert.to_json(), "seconds": round(cert_seconds, 4)}
    else:
        if proof.status == "certified":
            evidence["certificate"] = {"method": "symbolic", "detail": proof.method,
                                       "seconds": round(proof_seconds, 4), "boxes": None, "depth": None, "goals": []}
        if round(cert_seconds, 4):
            # certification tried first decided nothing, and the prover then did: its time
            # is still the claim's (--durations)
            evidence["symbolic"]["certification_first_seconds"] = round(cert_seconds, 4)
    if status == Status.REFUTED:
        counterexample = _shrunk(kind, claim, settings, counterexample, numeric)
    if status in STRONG:
        evidence["trace"] = ctx.trace.record
    if certificate is not None:
        evidence["replay"] = _replay_outcome(recorded, status, negative)
    return Result.for_claim(claim, status, method=method, evidence=evidence, counterexample=counterexample,
                            message=message, steps=kind.steps(claim, proof, numeric),
                            seconds=round(time.process_time() - t0, 4))


def _prove_and_certify(kind, claim, ctx, screen, settings, t0) -> tuple:
    """(proof, certificate or None, the proof attempt's CPU seconds, certification's CPU
    seconds, a dropped first attempt's included), cheapest first: the
    prover and then certification; or, for a kind that sets ``Kind.certify_first``, what of
    certification needs nothing from the prover first (``Kind.certify_before_proof``: all of
    it for a kind whose prover reaches no more than certified, a maximiser's route A by z3)
    and the prover only where that decided nothing.  A certificate that decided nothing is
    then dropped when the prover established the claim; certification runs after the prover
    when nothing was tried before it, or when the failed proof gave it something new
    (``Kind.certify_again``)."""
    def prove():
        start = time.process_time()
        return _attempt_proof(kind, claim, ctx, _budget(settings.symbolic_budget(), ctx, settings, t0)), \
            time.process_time() - start

    certifying = [0.0]

    def certify(proof, first=False):
        start = time.process_time()
        try:
            return _attempt_certificate(kind, claim, ctx, proof, screen,
                                        _budget(settings.certification_budget(), ctx, settings, t0), first=first)
        finally:
            certifying[0] += time.process_time() - start
    cert = certify(None, first=True) if kind.certify_first else None
    if cert is not None and cert.verdict in ("certified", "refuted"):
        return (ProofOutcome(None, "sympy", {"skipped": f"{cert.verdict} by certification, tried first"}), cert,
                0.0, certifying[0])
    proof, seconds = prove()
    if proof.status is not None:
        return proof, None, seconds, certifying[0]
    if cert is None or kind.certify_again(claim, proof):
        cert = certify(proof)
    return proof, cert, seconds, certifying[0]


def _screen_summary(screen: NumericOutcome) -> dict:
    return {"verdict": screen.verdict.value, **{k: v for k, v in screen.evidence.items() if k != "inconclusive_at"}}


def _replay_outcome(recorded, status, negative) -> dict:
    if negative:
        return {"result": "search skipped", "recorded": recorded}
    if Status(status) in STRONG and Status(status).strength <= Status(recorded).strength:
        return {"result": "replayed", "recorded": recorded}
    if Status(status) in (Status.REFUTED, Status.ERROR):
        return {"result": "contradicted", "recorded": recorded}
    return {"result": "failed", "recorded": recorded,
            "reason": f"the certificate recorded {recorded}, the replay reached {Status(status).value}"}


def _stretch(ctx: Context) -> float | None:
    """A replay's slices are longer than a search's: it runs only steps that succeeded
    before, and a slower machine must re-check them, not lose them (backends/timebox.py)."""
    return REPLAY_STRETCH if ctx.replaying else None


def _attempt_proof(kind, claim, ctx: Context, budget: float) -> ProofOutcome:
    if budget < 0.05:  # (a limit of 0 would be no limit at all)
        return ProofOutcome(None, "sympy", {"stopped": "no CPU time left for the symbolic attempt"})
    box = None
    try:
        with time_limit(budget, slices=_stretch(ctx)) as box:
            return kind.prove(claim, ctx)
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return ProofOutcome(None, "sympy", {"stopped": f"symbolic attempt stopped after {budget:g} s"})
    except RecursionError:
        return ProofOutcome(None, "sympy", {"stopped": "sympy recursion limit"})


def _replay_end(settings: Settings, t0: float) -> float:
    """The CPU time by which a replay (or the search after a failed one) must be done: the
    claim's limit less the numbers' share and the certification's margin."""
    if not math.isfinite(settings.timeout):
        return math.inf
    return t0 + settings.timeout * (1 - NUMBERS_SHARE) - CERTIFY_MARGIN


def _budget(search: float, ctx: Context, settings: Settings, t0: float) -> float:
    """A search's budget, or a replay's: what is left until _replay_end (0: nothing left)."""
    if not ctx.replaying:
        return search
    if not math.isfinite(settings.timeout):
        return search * REPLAY_STRETCH
    return max(0.0, _replay_end(settings, t0) - time.process_time())


def _attempt_certificate(kind, claim, ctx: Context, proof: ProofOutcome | None, numeric, budget: float,
                         first: bool = False):
    """Certification of an inequality-like claim the prover did not establish, or (`first`)
    what of it comes before the prover (None: nothing was attempted)."""
    if not kind.inequality_like or proof is not None and proof.status is not None:
        return None
    if budget < 0.05:
        return Certificate("undecided", reason="no CPU time left for certification")
    box = None
    try:
        with time_limit(budget + CERTIFY_MARGIN, slices=_stretch(ctx)) as box:
            if first:
                return kind.certify_before_proof(claim, ctx, numeric, budget)
            return kind.certify(claim, ctx, proof, numeric, budget)
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
            return (Status.ERROR, "engine conflict",
                    f"ENGINE CONFLICT: certified ({cert.method}) but the numeric check found a "
                    "counterexample; report this as a bug", numeric.counterexample)
        # inconclusive numbers: their word on a claim the certificate establishes
        why = numeric.evidence.get("inconclusive_at", {}).get("explanation", "")
        note = "" if numeric.verdict == "consistent" else "numeric check inconclusive" + (f": {why}" if why else "")
        return Status.CERTIFIED, f"certified ({cert.method})", note, None
    if cert.verdict == "refuted":
        if proof.status is not None:
            return (Status.ERROR, "engine conflict",
                    f"ENGINE CONFLICT: the prover says {proof.status} ({proof.method}) but certification "
                    "found a confirmed counterexample; report this as a bug", cert.counterexample)
        if status == Status.REFUTED:
            return status, method, message, counterexample
        return (Status.REFUTED, "counterexample from certification (confirmed by mpmath)",
                "counterexample found by certification; the random spot-check missed it",
                cert.counterexample)
    return status, method, message, counterexample


def _refuting_method(numeric: NumericOutcome) -> str:
    return f"{numeric.method} counterexample" if numeric.method else "numeric counterexample (mpmath)"


def _combine(proof: ProofOutcome, numeric: NumericOutcome):
    if numeric.verdict == "counterexample":
        undefined = (numeric.counterexample or {}).get("type") == "undefined"
        if proof.status is not None and undefined:
            # the algebra holds where both sides are defined; the declared domain does not
            # keep the claim defined, so as declared it is refuted (not an engine conflict)
            return (Status.REFUTED, "numeric counterexample (mpmath)",
                    "undefined at a point of the declared domain; the symbolic "
                    f"{proof.status} result holds only where the claim is defined")
        if proof.status is not None:
            return (Status.ERROR, "engine conflict",
                    f"ENGINE CONFLICT: the prover says {proof.status} ({proof.method}) but the "
                    "numeric check found a counterexample; report this as a bug")
        where = f" at step {numeric.step}" if numeric.step else ""
        return Status.REFUTED, _refuting_method(numeric), f"counterexample{where}"
    if numeric.verdict == "consistent":
        if proof.status is not None:
            return Status(proof.status), proof.method, ""
        if proof.disagrees:
            return (Status.UNDECIDED, "conflicting evidence",
                    f"{proof.disagrees}, but the numbers agree with the claim; neither is trusted alone")
        return Status.CHECKED, numeric.method or "numeric spot-check (mpmath)", ""
    # inconclusive numbers
    if proof.status is not None:
        return Status(proof.status), proof.method, "numeric check inconclusive: " + str(
            numeric.evidence.get("inconclusive_at", {}).get("explanation", "tight at every point"))
    why = numeric.evidence.get("inconclusive_at", {}).get("explanation", "")
    return Status.UNDECIDED, "", "neither proved nor decided numerically" + (f": {why}" if why else "")


def certify(claim, settings: Settings | None = None, budget: float | None = None, *, solved: bool = False,
            trace: Trace | None = None) -> Certificate:
    """Certification alone (no numbers first, no prover): what the certification benchmark
    and the backend tests measure.  `solved`: the prover's exact result is taken as given
    (a root's value solves its equation; a maximiser's gradient vanishes)."""
    settings = settings or Settings()
    kind = kind_of(claim)
    if not kind.inequality_like:
        return Certificate("undecided", reason=f"no certification method for {claim.kind} claims")
    evidence = {"solves_proved": solved, "first_order": "gradient vanishes (proved)" if solved else ""}
    ctx = Context(settings, trace or Trace())
    budget = settings.certification_budget() if budget is None else budget
    return kind.certify(claim, ctx, ProofOutcome(None, "", evidence), NumericOutcome("consistent", {}), budget)
