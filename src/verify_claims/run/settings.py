"""Settings: how claims are verified.  Passed explicitly; there is no global configuration."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    """Everything that can change a verdict (and is therefore part of the store's keys)."""

    seed: int = 20250221
    samples: int = 100
    precision: int = 30
    # the hard limit per claim, in CPU seconds of its worker process (the wall clock is
    # only a far looser safety net: see run.schedule)
    timeout: float = 60.0
    # CPU seconds.  On a 2-core machine whose cores are hyperthreads, CPU time per unit of work
    # roughly doubles when both are busy (CI): budgets keep a 2x margin over the slowest
    # proof that succeeds on a quiet machine, so a verdict does not depend on the load.
    prover_budget: float = 20.0  # the symbolic attempt (at most a third of the timeout)
    certify_budget: float = 20.0  # certification (SMT, intervals; at most a third of the timeout)
    # the wall-clock safety net per claim, for a claim that blocks without computing; None:
    # ten times the timeout, at least the timeout + 20 s (run.schedule.wall_limit)
    wall_limit: float | None = None

    def symbolic_budget(self) -> float:
        return min(self.prover_budget, self.timeout / 3)

    def certification_budget(self) -> float:
        return min(self.certify_budget, self.timeout / 3)

    def wall_seconds(self) -> float:
        """The wall-clock safety net per claim: `wall_limit` (--wall-limit) when set, else ten
        times the CPU limit (a claim sharing a core with nine other busy processes still
        finishes), and at least 20 s more."""
        if self.wall_limit is not None:
            return self.wall_limit
        if not math.isfinite(self.timeout):
            return math.inf
        return max(10 * self.timeout, self.timeout + 20)

    def key(self) -> str:
        """The settings that can change a verdict, as one string (part of store keys)."""
        return (f"seed={self.seed}|samples={self.samples}|precision={self.precision}|timeout={self.timeout:g}|"
                f"prover={self.prover_budget:g}|certify={self.certify_budget:g}"
                + ("" if self.wall_limit is None else f"|wall={self.wall_limit:g}"))
