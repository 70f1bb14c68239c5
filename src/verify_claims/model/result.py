"""The result of verifying one claim: what the JSON and every report renders."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .status import ESTABLISHED, INEQUALITY_LIKE, STATUSES, Status

__all__ = ["Result", "Problem", "describe", "counterexample_lines", "STATUSES", "ESTABLISHED", "INEQUALITY_LIKE"]


@dataclass
class Problem:
    """A broken derivation module or claim: the file, the claim (None for the whole file)
    and the cause, in words that say what to do."""

    file: str
    claim: str | None
    cause: str

    def __str__(self) -> str:
        where = self.file + (f" [{self.claim}]" if self.claim else "")
        return f"{where}: {self.cause}"


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
    status: Status
    method: str = ""
    evidence: dict = field(default_factory=dict)
    counterexample: dict | None = None
    message: str = ""  # cause of an error / timeout / undecided, or a note on the verdict
    uses: list = field(default_factory=list)
    seconds: float = 0.0
    statement: str = ""  # LaTeX, in the paper's notation (named quantities by their names)
    expanded: str = ""  # the statement with those names expanded ("" when none was used)
    display: str = ""  # the paper's displayed form, when the module gives one (LaTeX)
    symbols: dict = field(default_factory=dict)  # symbol name -> its display form (LaTeX)
    steps: list | None = None  # chains: [{"step": i, "status": ..., "because": ...}]
    as_expected: bool = False
    established: bool | None = None  # status established and so is everything it uses
    # how this run got the verdict: "searched" (falsified first, then proofs searched for),
    # "replayed" (a stored or committed certificate re-checked step by step), "store" (an
    # identical claim's result kept by an earlier run) or "judged" (a summary, from the
    # claims it uses); and when that verdict was established (UTC)
    origin: str = "searched"
    established_at: str = ""
    # verified on a narrower domain than the paper states (model/narrowing.py): the claim's
    # declaration {"declared": true, "paper", "verified", "reason"}, what the guard found
    # undeclared ("declared": false), or, for a summary, the narrowed claims it rests on
    # ("rests_on"); None when the claim is verified on the paper's domain
    narrowed: dict | None = None
    paper_domain: dict = field(default_factory=dict)  # symbol -> {"set", "reason"}: the paper's own set

    def __post_init__(self):
        self.status = Status(self.status)

    @classmethod
    def for_claim(cls, claim, status, **fields) -> "Result":
        """A result carrying the claim's own fields; as_expected follows from status."""
        status = Status(status)
        return cls(status=status, as_expected=cls.judge(status, claim.expect.holds),
                   **describe(claim), **fields)

    def to_json(self) -> dict:
        out = asdict(self)
        out["status"] = self.status.value
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Result":
        return cls(**{k: v for k, v in data.items() if k in _FIELDS})

    def failure_text(self) -> str:
        """Why this claim is not as expected (or what refuted it), in a few plain lines:
        the status against the expectation, the message, the counterexample's numbers
        (the point, then both sides or whatever the kind compared)."""
        exp = "holds" if self.expected == "holds" else "is refuted"
        lines = [f"{self.id} [{self.ref}]: {self.status} (expected: {exp})"]
        if self.message and self.message not in ("counterexample",):
            lines.append(self.message)
        if self.counterexample:
            lines += counterexample_lines(self.counterexample)
        return "\n".join(lines)

    @staticmethod
    def judge(status, expected_holds: bool) -> bool:
        if expected_holds:
            return Status(status) in ESTABLISHED
        return Status(status) is Status.REFUTED


def counterexample_lines(cx: dict) -> list:
    """A counterexample dict as lines: its kind, the point, then every other quantity; a
    shrunk counterexample first, then the raw one it was shrunk from."""
    cx = dict(cx)
    raw = cx.pop("raw", None)
    out = [f"counterexample ({cx.pop('type', 'counterexample')}):"]
    point = cx.pop("point", None)
    if isinstance(point, dict) and point:
        out.append("  at " + ", ".join(f"{k} = {v}" for k, v in point.items()))
    for k, v in cx.items():
        if isinstance(v, dict):
            v = ", ".join(f"{a} = {b}" for a, b in v.items())
        out.append(f"  {k} = {v}")
    if isinstance(raw, dict) and raw:
        first, *rest = counterexample_lines(raw)
        out.append("  " + first.replace("counterexample", "raw counterexample, before shrinking", 1))
        out += ["  " + line for line in rest]
    return out


def describe(claim, statement: tuple | None = None) -> dict:
    """The descriptive fields of a result, taken from the claim as it is declared now (a
    result reused from the store gets today's title, reference and module).  `statement`:
    (statement, expanded) when already known (a stored result's, rendered from the
    expressions its key covers with the same notation: rendering is the costly part of
    reusing a result)."""
    from .narrowing import narrowing_json, paper_domain_json  # sympy: not for a run answered from the store
    if not statement or not statement[0]:
        try:
            statement = claim.statements()
        except Exception:  # noqa: BLE001 - rendering must never decide a verdict
            statement = ("", "")
    try:
        # the declared symbols (every free symbol has a domain) and the bound ones: no walk
        # over the expressions, which can be large
        names = {s.name for s in list(claim.domain.sets) + list(claim.bound_symbols())}
        symbols = {n: claim.notation.symbols[n] for n in sorted(names) if n in claim.notation.symbols} \
            if claim.notation else {}
    except Exception:  # noqa: BLE001
        symbols = {}
    return {"statement": statement[0], "expanded": statement[1], "display": getattr(claim, "display", ""),
            "symbols": symbols,
            "id": claim.id, "title": claim.title, "ref": str(claim.ref), "kind": claim.kind,
            "source": claim.source, "expected": "holds" if claim.expect.holds else "refuted",
            "expected_reason": claim.expect.reason, "paper_error": claim.expect.paper_error,
            "uses": list(claim.uses), "narrowed": narrowing_json(claim), "paper_domain": paper_domain_json(claim)}


_FIELDS = {f for f in Result.__dataclass_fields__}
