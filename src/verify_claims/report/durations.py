"""``--durations N``: the claims that took the most CPU time in this run, and where it went.

As pytest's ``--durations``: after the verdict, for whoever edits a derivation and wants
to know which claim makes the gate slow, and for work on the engine's speed (what a
fresh clone's replay or a run from scratch spends, per claim and per phase).  The times
are each claim's own CPU seconds in its worker (``Result.seconds``), split as the
evidence records them (engine/verify.py): the numbers (the falsify-first screen and the
mpmath check after), the prover, certification (a first attempt the prover's success
made moot included); the rest is what is left: shrinking a counterexample, a
simulation's runs, a certificate that failed to replay before the search, building the
result.  A claim stopped by its limit, or whose worker died, shows the limit or the wall
time until then.  A result answered from the proof store cost nothing in this run and a
summary is judged from its support: neither is listed, the first are counted.

In the run's workers the kernel counts CPU time in clock ticks (about 3-4 ms on Linux) once
the worker has set its CPU limit (RLIMIT_CPU arms the process's CPU timer, and the process
clock then advances at ticks): a phase or a claim shorter than that can show 0.00.
"""

from __future__ import annotations

__all__ = ["slowest", "format_durations"]


def _phases(res) -> dict:
    ev = res.evidence or {}
    numbers = (ev.get("numeric") or {}).get("seconds") or 0.0
    symbolic = ev.get("symbolic") or {}
    proof = symbolic.get("seconds") or 0.0
    cert = ev.get("certificate") or {}
    # a proof that reached *certified* is also listed as the certificate, with the prover's
    # method as its detail and the prover's seconds (engine/verify.py, _establish); the
    # certifier's own sympy certificates (certify_first kinds) are work of their own
    repeats_proof = cert.get("method") == "symbolic" and cert.get("detail") == symbolic.get("method") \
        and cert.get("seconds") == symbolic.get("seconds")
    certification = (0.0 if repeats_proof else (cert.get("seconds") or 0.0)) + \
        (symbolic.get("certification_first_seconds") or 0.0)
    other = max(0.0, res.seconds - numbers - proof - certification)
    return {"numbers": numbers, "proof": proof, "certificate": certification, "other": other}


def _verified(results) -> list:
    """The results the engine worked for in this run (not from the store, not judged)."""
    return [r for r in results if r.origin not in ("store", "judged")]


def slowest(results, n: int) -> tuple[list[dict], int]:
    """The `n` slowest results verified in this run (every one for n = 0), slowest first,
    each as {id, kind, status, origin, seconds, numbers, proof, certificate, other}; and
    how many were answered from the proof store (not listed)."""
    ran = sorted(_verified(results), key=lambda r: (-r.seconds, r.id))
    rows = [{"id": r.id, "kind": r.kind, "status": str(r.status), "origin": r.origin, "seconds": r.seconds,
             **_phases(r)} for r in (ran if n == 0 else ran[:n])]
    return rows, sum(1 for r in results if r.origin == "store")


def format_durations(results, n: int) -> list[str]:
    """The lines printed after the summary."""
    rows, from_store = slowest(results, n)
    verified = _verified(results)
    total = sum(r.seconds for r in verified)
    head = (f"slowest {len(rows)} of {len(verified)} claims verified in this run "
            f"(CPU seconds; {total:.1f} s in all)" if n else
            f"every claim verified in this run (CPU seconds; {total:.1f} s in all)")
    lines = [head + (f"; {from_store} answered from the proof store, not listed" if from_store else "") + ":"]
    if not rows:
        lines.append("  (none: every result came from the proof store)" if from_store else "  (none)")
        return lines
    lines.append(f"  {'total':>7} {'numbers':>8} {'proof':>7} {'certif.':>8} {'other':>7}  "
                 f"{'status':<10} {'origin':<9} {'kind':<13} claim")
    for r in rows:
        lines.append(f"  {r['seconds']:7.2f} {r['numbers']:8.2f} {r['proof']:7.2f} {r['certificate']:8.2f} "
                     f"{r['other']:7.2f}  {r['status']:<10} {r['origin']:<9} {r['kind']:<13} {r['id']}")
    return lines
