"""What one claim's verification carries along: the settings and the trace of decisions.

The trace is what makes a proof found once replayable.  At every point where the engine
chooses between alternatives (which simplification strategy, which sign form, which
certification method, which maximiser route), it asks the trace for the alternatives to
try and tells it which one won:

- searching, every alternative is offered, cheapest first, and the winners are recorded;
- replaying a certificate, a point offers only the alternative the certificate names
  (none at a point the certificate never reached), so no search happens and every step
  of the proof is re-done, never trusted.

A decision point is named by what is decided and a digest of the expression it is about,
so a replay that meets a different expression (a changed declaration) finds no recorded
choice and fails safely: the claim is then searched again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..run.keys import Hasher
from ..run.settings import Settings

__all__ = ["Trace", "Context", "claim_rng"]


class Trace:
    """Decisions of one claim's verification (see the module docstring)."""

    def __init__(self, replay: dict | None = None):
        self.replay = dict(replay) if replay is not None else None
        self.record: dict = {}
        self._hasher = Hasher()

    @property
    def replaying(self) -> bool:
        return self.replay is not None

    def point(self, what: str, *about) -> str:
        """A decision point's name: what is decided, and a short digest of what it is about."""
        if not about:
            return what
        import hashlib
        h = hashlib.sha256()
        for a in about:
            h.update(self._hasher.value(a))
        return f"{what}#{h.hexdigest()[:16]}"

    def options(self, point: str, names) -> list:
        """The alternatives to try at a decision point, in order."""
        names = list(names)
        if self.replay is None:
            return names
        chosen = self.replay.get(point)
        return [chosen] if chosen in names else []

    def won(self, point: str, name: str) -> None:
        self.record[point] = name


@dataclass
class Context:
    """Settings and trace of one claim's verification (passed explicitly, never global)."""

    settings: Settings = field(default_factory=Settings)
    trace: Trace = field(default_factory=Trace)

    @property
    def replaying(self) -> bool:
        return self.trace.replaying


def claim_rng(settings: Settings, claim_id: str) -> random.Random:
    """Per-claim generator: results do not depend on order, filtering or parallelism."""
    return random.Random(f"{settings.seed}:{claim_id}")
