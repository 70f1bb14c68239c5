"""Statuses, numeric verdicts and exit codes, as enums (in the spirit of pytest's ExitCode).

They are ``str``/``int`` enums, so JSON and comparisons with the plain values keep working
(``Status.PROVED == "proved"``, ``ExitCode.OK == 0``).
"""

from __future__ import annotations

import enum

__all__ = ["Status", "NumericVerdict", "ExitCode", "ESTABLISHED", "STATUSES", "INEQUALITY_LIKE"]


class _StrEnum(str, enum.Enum):
    # hash as the plain string, so dicts keyed by "proved" find Status.PROVED (Enum's own
    # hash is that of the member's name)
    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec) -> str:
        return format(self.value, spec)


class Status(_StrEnum):
    """What the engine established about a claim, strongest first."""

    PROVED = "proved"        # exact symbolic identity or derivation step; no sampling involved
    CERTIFIED = "certified"  # an inequality-like statement shown over its whole domain by a sound method
    CHECKED = "checked"      # only spot-checked numerically
    # the algorithm simulated (Simulation claims only): the target lies in a confidence
    # interval of the mean over seeded runs; statistical evidence about a model of the
    # algorithm, weaker than checked (which evaluates the statement itself at every point)
    SIMULATED = "simulated"
    REFUTED = "refuted"      # a confirmed counterexample
    UNDECIDED = "undecided"  # neither established nor refuted
    ERROR = "error"          # malformed, raised, or an engine conflict
    TIMEOUT = "timeout"      # the claim's worker exceeded its CPU-time limit

    @property
    def established(self) -> bool:
        return self in ESTABLISHED

    @property
    def strength(self) -> int:
        """0 for proved, 1 certified, 2 checked, 3 simulated; larger for everything not established."""
        return list(Status).index(self)


class NumericVerdict(_StrEnum):
    """What a numeric spot-check concluded."""

    CONSISTENT = "consistent"
    COUNTEREXAMPLE = "counterexample"
    INCONCLUSIVE = "inconclusive"


class ExitCode(enum.IntEnum):
    """Exit codes of the verify-claims command."""

    OK = 0            # every claim came out as expected
    FAILED = 1        # some claim did not, or a derivation module or figure is broken
    USAGE = 2         # bad option, unknown id, missing directory, nothing to verify
    INTERNAL = 3      # a bug in verify-claims itself
    REPORT = 4        # every claim as expected, but a report file could not be rendered (report.pdf)
    INTERRUPTED = 5   # Ctrl-C or SIGTERM: nothing published, the previous report is kept


STATUSES = tuple(s.value for s in Status)
# strongest first: a summary is as strong as the weakest of these among the claims it uses,
# so a summary resting on a simulated claim is at most simulated
ESTABLISHED = (Status.PROVED, Status.CERTIFIED, Status.CHECKED, Status.SIMULATED)
# the kinds whose strongest status is "certified" (a statement over a whole domain that
# is not an identity); limits are included though their strongest evidence is an exact
# sympy limit (proved)
INEQUALITY_LIKE = ("inequality", "monotonic", "limit", "root", "maximiser")
