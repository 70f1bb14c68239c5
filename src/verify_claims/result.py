"""The result of verifying one claim: what the JSON and every report renders."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["Result", "STATUSES", "ESTABLISHED", "Settings", "INEQUALITY_LIKE"]

# strongest first; "certified" is an inequality-like statement shown over its whole domain
STATUSES = ("proved", "certified", "checked", "refuted", "undecided", "error", "timeout")
ESTABLISHED = ("proved", "certified", "checked")
# the kinds whose strongest status is "certified" (a statement over a whole domain that is
# not an identity); limits are included because the issue counts them, though their
# strongest evidence is an exact sympy limit (proved)
INEQUALITY_LIKE = ("inequality", "monotonic", "limit", "root", "maximiser")


@dataclass(frozen=True)
class Settings:
    """How claims are verified.  Passed explicitly; there is no global configuration."""

    seed: int = 20250221
    samples: int = 100
    precision: int = 30
    timeout: float = 60.0  # seconds per claim, hard limit (the worker is killed)
    # CPU seconds.  On a 2-core machine whose cores are hyperthreads, CPU time per unit of work
    # roughly doubles when both are busy (CI): budgets keep a 2x margin over the slowest
    # proof that succeeds on a quiet machine, so a verdict does not depend on the load.
    prover_budget: float = 20.0  # the symbolic attempt (at most a third of the timeout)
    certify_budget: float = 20.0  # certification (SMT, intervals; at most a third of the timeout)

    def symbolic_budget(self) -> float:
        return min(self.prover_budget, self.timeout / 3)

    def certification_budget(self) -> float:
        return min(self.certify_budget, self.timeout / 3)


@dataclass
class Result:
    id: str
    title: str
    ref: str
    kind: str
    source: str
    expected: str  # "holds" | "refuted"
    expected_reason: str
    paper_error: bool
    status: str
    method: str = ""
    evidence: dict = field(default_factory=dict)
    counterexample: dict | None = None
    message: str = ""  # cause of an error / timeout / undecided, or a note on the verdict
    uses: list = field(default_factory=list)
    seconds: float = 0.0
    statement: str = ""  # LaTeX
    steps: list | None = None  # chains: [{"step": i, "status": ..., "because": ...}]
    as_expected: bool = False
    established: bool | None = None  # status established and so is everything it uses

    @classmethod
    def for_claim(cls, claim, status: str, **fields) -> "Result":
        """A result carrying the claim's own fields; as_expected follows from status."""
        try:
            statement = claim.statement_latex()
        except Exception:  # noqa: BLE001 - rendering must never decide a verdict
            statement = ""
        return cls(id=claim.id, title=claim.title, ref=str(claim.ref), kind=claim.kind,
                   source=claim.source, expected="holds" if claim.expect.holds else "refuted",
                   expected_reason=claim.expect.reason, paper_error=claim.expect.paper_error,
                   uses=list(claim.uses), statement=statement, status=status,
                   as_expected=cls.judge(status, claim.expect.holds), **fields)

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def judge(status: str, expected_holds: bool) -> bool:
        if expected_holds:
            return status in ESTABLISHED
        return status == "refuted"
