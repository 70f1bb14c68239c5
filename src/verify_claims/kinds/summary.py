"""Summary: a prose statement (the abstract, Section 1.2) that holds exactly when the
claims it uses do.  It is judged from their results, after them, never verified alone."""

from __future__ import annotations

from ..model.result import Result
from ..model.status import ESTABLISHED, Status

__all__ = ["verify_summary"]


def verify_summary(claim, results_by_id: dict) -> Result:
    """A summary statement holds as strongly as the weakest claim it uses.

    A supporting claim that is refuted refutes the summary (the counterexample names it),
    except a confirmed "not in general" statement, whose counterexample is the support (it
    counts as checked); one that errored, timed out or is undecided, or was not run,
    leaves it undecided.
    """
    support = {u: results_by_id.get(u) for u in claim.uses}
    statuses = {u: (r.status.value if r is not None else "not run") for u, r in support.items()}
    evidence = {"supported_by": dict(statuses)}
    for u, r in support.items():
        # a confirmed "not in general" (expected refuted, not a paper error) supports a
        # summary that says the two differ; a numeric counterexample is checked-strength
        if r is not None and r.status is Status.REFUTED and r.as_expected and not r.paper_error:
            statuses[u] = "checked"
    refuted_by = [u for u, st in statuses.items() if st == "refuted"]
    if refuted_by:
        first = support[refuted_by[0]]
        return Result.for_claim(claim, Status.REFUTED, method="conjunction of the claims it uses",
                                evidence=evidence,
                                counterexample={"type": "refuted supporting claim", "claim": refuted_by[0],
                                                **({"reason": first.expected_reason}
                                                   if first.expected_reason else {})},
                                message=f"supporting claim(s) refuted: {', '.join(refuted_by)}")
    strength = [s.value for s in ESTABLISHED]
    open_ = [u for u, st in statuses.items() if st not in strength]
    if open_:
        return Result.for_claim(claim, Status.UNDECIDED, method="conjunction of the claims it uses",
                                evidence=evidence,
                                message="not established: " + ", ".join(f"{u} is {statuses[u]}" for u in open_))
    weakest = max(statuses.values(), key=strength.index)
    return Result.for_claim(claim, weakest, method=f"conjunction of {len(statuses)} claims it uses "
                                                   "(the weakest verdict among them)", evidence=evidence)
