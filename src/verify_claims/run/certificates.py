"""Committed certificates: the proofs of a derivations directory, reviewed like a lockfile.

``DIR/certificates.json`` is written by ``verify-claims --update-certificates`` and
committed with the derivations.  For every claim it records the claim's declaration key,
the status reached and the decisions that reached it (which strategy reduced a residual
to 0, which sign form, which backend decided each goal, which maximiser route).  A fresh
clone or a CI machine *replays* those decisions instead of searching: every step is done
again, nothing is trusted, but no time is spent on alternatives that failed.  So a proof
found once is not lost on a slower or busier machine.

A record is keyed by the claim's declaration and this file's format only, not by the
engine's source (the replay re-checks it).  A record whose declaration no longer matches
is stale and ignored (the claim is searched), and a record that fails to replay is
reported loudly and the claim is searched again, never passed.  A record of a claim that
no sound method established says so, with the certification methods that were tried: the
claim is spot-checked and not searched again (``--no-certificates`` searches from scratch)
unless the engine now has a method the record does not list.  An unreadable file is ignored with a
warning.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..atomic import write_text_atomic
from ..model.status import Status

__all__ = ["Certificates", "FILENAME", "FORMAT"]

# said after a reason taken from a certificate, and taken off again when one is written
RECORDED_NOTE = " (as recorded by the search that wrote the certificate; not searched again)"

FILENAME = "certificates.json"
FORMAT = "verify-claims-certificates/1"


class Certificates:
    """The committed certificates of one derivations directory."""

    def __init__(self, records: dict | None = None, path: Path | None = None):
        self.records = records or {}
        self.path = path

    @classmethod
    def load(cls, directory, warn=None) -> "Certificates":
        warn = warn or (lambda msg: print(f"verify-claims: warning: {msg}", file=sys.stderr))
        path = Path(directory) / FILENAME
        if not path.exists():
            return cls({}, path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("claims"), dict):
                raise ValueError(f"not a {FORMAT} file")
        except (OSError, ValueError) as exc:
            warn(f"ignoring {path}: {exc}; every claim is searched (regenerate it with --update-certificates)")
            return cls({}, path)
        return cls(data["claims"], path)

    def lookup(self, claim_id: str, declaration: str) -> dict | None:
        """The record to replay for this claim, or None (missing or stale)."""
        rec = self.records.get(claim_id)
        if not isinstance(rec, dict) or rec.get("declaration") != declaration:
            return None
        return rec

    def state(self, claim_id: str, declaration: str) -> str:
        """'current', 'stale' or 'missing' (what --update-certificates would change)."""
        rec = self.records.get(claim_id)
        if not isinstance(rec, dict):
            return "missing"
        return "current" if rec.get("declaration") == declaration else "stale"

    @staticmethod
    def record(result, declaration: str) -> dict | None:
        """What to commit for a result (None for errors and timeouts: nothing to keep)."""
        status = Status(result.status)
        if status in (Status.ERROR, Status.TIMEOUT) or result.kind in ("summary", "simulation"):
            return None  # a simulation has no decisions to replay: it is run again (or taken from the store)
        rec = {"declaration": declaration, "status": status.value, "method": result.method}
        if status in (Status.PROVED, Status.CERTIFIED):
            rec["decisions"] = dict(sorted((result.evidence.get("trace") or {}).items()))
        else:
            # which methods found nothing: a later engine with a new method searches again
            from ..backends import SEARCHED
            rec["methods"] = list(SEARCHED)
            reason = ((result.evidence or {}).get("certificate") or {}).get("reason")
            if reason:
                # why, shown again when the search is skipped; a reason replayed from a
                # certificate is written back as it was, not with the note added again
                rec["reason"] = reason.removesuffix(RECORDED_NOTE)
        return rec

    @staticmethod
    def covers(committed: dict | None, rec: dict) -> bool:
        """Does the committed record say all that the new one says (the same status and
        method, each of its decisions with the same choice)?  What --update-certificates asks
        before keeping a record a replay reached (cli._update_certificates)."""
        if committed is None or "decisions" not in rec:
            return False
        if any(committed.get(k) != rec.get(k) for k in ("status", "method")):
            return False
        recorded = committed.get("decisions")
        return isinstance(recorded, dict) and all(recorded.get(k) == v for k, v in rec["decisions"].items())

    def render(self, records: dict) -> str:
        data = {"format": FORMAT,
                "about": "verify-claims --update-certificates: per claim, the decisions that proved or certified it "
                         "(replayed and re-checked on every run, never trusted); regenerate after editing claims",
                "claims": dict(sorted(records.items()))}
        return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"

    def write(self, records: dict) -> Path:
        write_text_atomic(self.render(records), self.path)
        self.records = records
        return self.path
