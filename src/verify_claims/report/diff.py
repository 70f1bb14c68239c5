"""What changed between two runs: ``verify-claims diff [OLD.json [NEW.json]]``.

Two claims.json files are compared claim by claim (by id): claims added and removed,
status changes judged weaker or stronger against what each claim is expected to do,
claims that stopped (or started) coming out as expected, findings new and lost, and the
run-level facts that explain a change (seed and settings, versions, exit code, problems).

``compare`` is pure (two dicts in, a ``RunDiff`` out); ``render_text`` is for the
terminal, ``render_markdown`` for a GitHub job summary or pull-request comment (every
title and id escaped: a hostile title cannot break a table or inject HTML); ``diff_main``
is the command.  Its exit code makes it a CI gate: 1 when something got weaker.  A
removed claim is listed but is not a regression by default -- renaming a claim would
otherwise always fail -- ``--fail-on-removed`` counts it.

With no files named, the previous run kept in the proof store
(``REPORT_DIR/.verify-claims-cache/runs-history/previous.json``, copied there by
``remember_run`` just before a run publishes its own claims.json) is compared with
``REPORT_DIR/claims.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import write_via
from ..model.status import ESTABLISHED, ExitCode, Status
from ..run.store import DIRNAME as STORE_DIRNAME
from .schema import SCHEMA

__all__ = [
    "ClaimRef",
    "ExpectationChange",
    "Fact",
    "Finding",
    "InvalidReport",
    "Problem",
    "Regression",
    "RunDiff",
    "StatusChange",
    "build_parser",
    "compare",
    "diff_main",
    "direction",
    "load_run",
    "md_escape",
    "previous_run_path",
    "remember_run",
    "render_markdown",
    "render_text",
    "strength",
    "validate",
]

SETTINGS = ("seed", "samples", "precision", "timeout", "wall_limit")  # the run settings that can change a verdict
HISTORY = "runs-history"
PREVIOUS = "previous.json"


class InvalidReport(ValueError):
    """A file or dict that cannot be compared: missing, unreadable, not JSON, not a claims.json."""


# ------------------------------------------------------------------------------ the diff
@dataclass(frozen=True)
class ClaimRef:
    """A claim as one run recorded it: the rows for added and removed claims."""

    id: str
    title: str
    source: str
    status: str
    expected: str
    as_expected: bool


@dataclass(frozen=True)
class StatusChange:
    """A claim in both runs whose status changed; `direction` is judged against what the
    claim is expected to do now ("weaker", "stronger" or "different")."""

    id: str
    title: str
    source: str
    old: str
    new: str
    expected: str
    direction: str


@dataclass(frozen=True)
class ExpectationChange:
    """A claim in both runs whose ``as_expected`` flipped (its verdict, or what it is
    expected to do, changed)."""

    id: str
    title: str
    source: str
    old_status: str
    new_status: str
    expected: str
    now_as_expected: bool


@dataclass(frozen=True)
class Finding:
    """An error found in the paper: a paper-error claim refuted, or an uncheckable
    statement carrying a ``finding``.  `where` is "claim" or "uncheckable"; `detail` says
    what it is (new) or what became of it (lost)."""

    id: str
    title: str
    source: str
    where: str
    detail: str


@dataclass(frozen=True)
class Fact:
    """A run-level value that differs: a setting, a version, the exit code, the schema."""

    name: str
    old: object
    new: object


@dataclass(frozen=True)
class Problem:
    """An entry of claims.json's ``problems`` (a derivation module or figure that broke)."""

    file: str
    claim: str
    cause: str


@dataclass(frozen=True)
class Regression:
    """One thing that makes the diff fail: `id` is a claim id (or a problem's file),
    `reason` says what got worse."""

    id: str
    reason: str

    def __str__(self) -> str:
        return f"{self.id}: {self.reason}"


@dataclass
class RunDiff:
    """Everything that changed from one run (`old`) to the next (`new`)."""

    added: list = field(default_factory=list)             # [ClaimRef] in new only
    removed: list = field(default_factory=list)           # [ClaimRef] in old only
    status_changes: list = field(default_factory=list)    # [StatusChange]
    not_as_expected: list = field(default_factory=list)   # [ExpectationChange] became not as expected
    as_expected: list = field(default_factory=list)       # [ExpectationChange] became as expected
    findings_new: list = field(default_factory=list)      # [Finding]
    findings_lost: list = field(default_factory=list)     # [Finding]
    settings: list = field(default_factory=list)          # [Fact] seed, samples, ..., versions
    exit_code: Fact | None = None
    schema: Fact | None = None
    problems_added: list = field(default_factory=list)    # [Problem]
    problems_removed: list = field(default_factory=list)  # [Problem]
    survivors_new: list = field(default_factory=list)     # [Survivor] mutants surviving now, not before (--mutate)
    survivors_gone: list = field(default_factory=list)    # [Survivor] mutants that no longer survive
    fail_on_removed: bool = False
    old_name: str = "old"
    new_name: str = "new"

    @property
    def weaker(self) -> list:
        return [c for c in self.status_changes if c.direction == "weaker"]

    @property
    def stronger(self) -> list:
        return [c for c in self.status_changes if c.direction == "stronger"]

    @property
    def different(self) -> list:
        return [c for c in self.status_changes if c.direction == "different"]

    @property
    def regressions(self) -> list:
        """What got worse, one entry per claim: a weaker verdict, a claim no longer as
        expected, a new problem (a module that breaks also drops its claims, which alone
        would not fail) and, with fail_on_removed, a removed claim."""
        reasons: dict = {}
        for c in self.weaker:
            reasons.setdefault(c.id, []).append(f"weaker ({c.old} -> {c.new})")
        for c in self.not_as_expected:
            reasons.setdefault(c.id, []).append(f"no longer as expected ({c.new_status}, expected "
                                                f"{c.expected})")
        if self.fail_on_removed:
            for c in self.removed:
                reasons.setdefault(c.id, []).append(f"removed (was {c.status})")
        out = [Regression(cid, "; ".join(rs)) for cid, rs in reasons.items()]
        out += [Regression(p.file or p.claim or "?", f"new problem: {p.cause}") for p in self.problems_added]
        return out

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.status_changes or self.not_as_expected
                    or self.as_expected or self.findings_new or self.findings_lost or self.settings
                    or self.exit_code or self.schema or self.problems_added or self.problems_removed
                    or self.survivors_new or self.survivors_gone)

    def counts(self) -> list:
        """[(group, "2 weaker")] for every non-empty group, in the order they are shown."""
        def n_of(n, one, many):
            return f"{n} {one if n == 1 else many}"

        groups = [("weaker", len(self.weaker), "weaker", "weaker"),
                  ("not_as_expected", len(self.not_as_expected), "no longer as expected", "no longer as expected"),
                  ("problems_added", len(self.problems_added), "new problem", "new problems"),
                  ("removed", len(self.removed), "removed", "removed"),
                  ("stronger", len(self.stronger), "stronger", "stronger"),
                  ("different", len(self.different), "changed status", "changed status"),
                  ("as_expected", len(self.as_expected), "now as expected", "now as expected"),
                  ("added", len(self.added), "added", "added"),
                  ("findings_new", len(self.findings_new), "new finding", "new findings"),
                  ("findings_lost", len(self.findings_lost), "lost finding", "lost findings"),
                  ("problems_removed", len(self.problems_removed), "problem gone", "problems gone"),
                  ("survivors_new", len(self.survivors_new), "new surviving mutant", "new surviving mutants"),
                  ("survivors_gone", len(self.survivors_gone), "mutant no longer surviving",
                   "mutants no longer surviving"),
                  ("settings", len(self.settings), "setting changed", "settings changed")]
        out = [(key, n_of(n, one, many)) for key, n, one, many in groups if n]
        if self.exit_code:
            out.append(("exit_code", f"exit code {self.exit_code.old} -> {self.exit_code.new}"))
        if self.schema:
            out.append(("schema", "schema changed"))
        return out


def strength(status, expected: str = "holds") -> int:
    """How strong a verdict is for what the claim is expected to do; larger is stronger.

    Expected to hold: proved 4 > certified 3 > checked 2 > simulated 1 > not established 0 (undecided,
    timeout, error, refuted).  Expected refuted: refuted 1 > anything else 0.  An unknown
    status (a newer writer) counts as not established."""
    try:
        s = Status(status)
    except ValueError:
        return 0
    if expected == "refuted":
        return 1 if s is Status.REFUTED else 0
    return len(ESTABLISHED) - min(s.strength, len(ESTABLISHED))


def direction(old, new, expected: str = "holds") -> str:
    """"weaker", "stronger", "different" (same strength, e.g. undecided -> error) or "same"."""
    if old == new:
        return "same"
    a, b = strength(old, expected), strength(new, expected)
    return "weaker" if b < a else "stronger" if b > a else "different"


def validate(data, name: str = "claims.json") -> list:
    """Raise InvalidReport unless `data` looks like a claims.json (an object with a
    "claims" list of objects with unique string ids); return warnings (another schema)."""
    what = f"{name} is not a claims.json"
    if not isinstance(data, dict):
        raise InvalidReport(f"{what}: the JSON is {_json_type(data)}, not an object")
    claims = data.get("claims")
    if not isinstance(claims, list):
        raise InvalidReport(f"{what}: it has no \"claims\" list" if claims is None else
                            f"{what}: \"claims\" is {_json_type(claims)}, not a list")
    seen = set()
    for i, c in enumerate(claims):
        if not isinstance(c, dict):
            raise InvalidReport(f"{what}: claims[{i}] is {_json_type(c)}, not an object")
        cid = c.get("id")
        if not isinstance(cid, str) or not cid:
            raise InvalidReport(f"{what}: claims[{i}] has no string \"id\"")
        if cid in seen:
            raise InvalidReport(f"{what}: claim id {cid!r} appears twice")
        seen.add(cid)
    for key, kind in (("run", dict), ("uncheckable", list), ("problems", list)):
        if data.get(key) is not None and not isinstance(data[key], kind):
            raise InvalidReport(f"{what}: \"{key}\" is {_json_type(data[key])}, not "
                                f"{'an object' if kind is dict else 'a list'}")
    for key in ("uncheckable", "problems"):
        for i, u in enumerate(data.get(key) or []):
            if not isinstance(u, dict):
                raise InvalidReport(f"{what}: {key}[{i}] is {_json_type(u)}, not an object")
    if data.get("schema") != SCHEMA:
        return [f"{name} has schema {data.get('schema')!r}, not {SCHEMA!r}: comparing anyway"]
    return []


def _json_type(v) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(v), "a number")


def _s(v) -> str:
    return "" if v is None else str(v)


def _expected(c: dict) -> str:
    return "refuted" if c.get("expected") == "refuted" else "holds"


def _as_expected(c: dict) -> bool:
    if isinstance(c.get("as_expected"), bool):
        return c["as_expected"]
    return strength(c.get("status"), _expected(c)) > 0  # an older writer: judged as Result.judge does


def _ref(c: dict) -> ClaimRef:
    return ClaimRef(c["id"], _s(c.get("title")), _s(c.get("source")), _s(c.get("status")), _expected(c),
                    _as_expected(c))


def _findings(data: dict) -> dict:
    """(where, id) -> Finding for every finding a run recorded."""
    out = {}
    for c in data.get("claims") or []:
        if c.get("paper_error") is True and c.get("status") == "refuted":
            out[("claim", c["id"])] = Finding(c["id"], _s(c.get("title")), _s(c.get("source")), "claim",
                                              _s(c.get("expected_reason")) or "refuted")
    for u in data.get("uncheckable") or []:
        if u.get("finding") and u.get("id") is not None:
            out[("uncheckable", _s(u["id"]))] = Finding(_s(u["id"]), _s(u.get("statement")),
                                                        _s(u.get("source")), "uncheckable", _s(u["finding"]))
    return out


def _problems(data: dict) -> list:
    return [Problem(_s(p.get("file")), _s(p.get("claim")), _s(p.get("cause"))) for p in data.get("problems") or []]


def compare(old: dict, new: dict, *, fail_on_removed: bool = False, old_name: str = "old",
            new_name: str = "new") -> RunDiff:
    """What changed from run `old` to run `new` (both claims.json dicts).  Raises
    InvalidReport when either is not a claims.json; order follows the new run (removed
    claims and lost findings: the old one)."""
    validate(old, old_name)
    validate(new, new_name)
    d = RunDiff(fail_on_removed=fail_on_removed, old_name=old_name, new_name=new_name)
    o_claims = {c["id"]: c for c in old["claims"]}
    n_claims = {c["id"]: c for c in new["claims"]}
    for cid, n in n_claims.items():
        o = o_claims.get(cid)
        if o is None:
            d.added.append(_ref(n))
            continue
        os_, ns = _s(o.get("status")), _s(n.get("status"))
        title, source, expected = _s(n.get("title")), _s(n.get("source")), _expected(n)
        if os_ != ns:
            d.status_changes.append(StatusChange(cid, title, source, os_, ns, expected,
                                                 direction(os_, ns, expected)))
        oa, na = _as_expected(o), _as_expected(n)
        if oa != na:
            (d.as_expected if na else d.not_as_expected).append(
                ExpectationChange(cid, title, source, os_, ns, expected, na))
    d.removed = [_ref(o) for cid, o in o_claims.items() if cid not in n_claims]

    o_find, n_find = _findings(old), _findings(new)
    d.findings_new = [f for k, f in n_find.items() if k not in o_find]
    for (where, fid), f in o_find.items():
        if (where, fid) in n_find:
            continue
        if where == "claim":
            n = n_claims.get(fid)
            what = ("claim removed" if n is None else
                    "no longer marked a paper error" if n.get("paper_error") is not True else
                    f"now {_s(n.get('status'))}")
        else:
            still = any(_s(u.get("id")) == fid for u in new.get("uncheckable") or [])
            what = "no longer a finding" if still else "no longer listed"
        d.findings_lost.append(Finding(f.id, f.title, f.source, where, what))

    o_run, n_run = old.get("run") or {}, new.get("run") or {}
    for key in SETTINGS:
        if key == "wall_limit" and not (key in o_run and key in n_run):
            continue  # a claims.json from before --wall-limit does not state its net
        if o_run.get(key) != n_run.get(key):
            d.settings.append(Fact(key, o_run.get(key), n_run.get(key)))
    o_ver = o_run.get("versions") if isinstance(o_run.get("versions"), dict) else {}
    n_ver = n_run.get("versions") if isinstance(n_run.get("versions"), dict) else {}
    for key in list(n_ver) + [k for k in o_ver if k not in n_ver]:
        if o_ver.get(key) != n_ver.get(key):
            d.settings.append(Fact(f"{key} version", o_ver.get(key), n_ver.get(key)))
    if o_run.get("exit_code") != n_run.get("exit_code"):
        d.exit_code = Fact("exit code", o_run.get("exit_code"), n_run.get("exit_code"))
    if old.get("schema") != new.get("schema"):
        d.schema = Fact("schema", old.get("schema"), new.get("schema"))
    o_prob, n_prob = _problems(old), _problems(new)
    d.problems_added = [p for p in n_prob if p not in o_prob]
    d.problems_removed = [p for p in o_prob if p not in n_prob]
    o_mut, n_mut = old.get("mutation"), new.get("mutation")
    if isinstance(o_mut, dict) and isinstance(n_mut, dict):
        # both runs measured the gate (--mutate): its score and which mistakes it lets through
        if o_mut.get("score") != n_mut.get("score"):
            d.settings.append(Fact("mutation score", _pct(o_mut.get("score")), _pct(n_mut.get("score"))))
        o_sur, n_sur = _survivors(o_mut), _survivors(n_mut)
        d.survivors_new = [v for k, v in n_sur.items() if k not in o_sur]
        d.survivors_gone = [v for k, v in o_sur.items() if k not in n_sur]
    return d


@dataclass(frozen=True)
class Survivor:
    id: str
    label: str
    mistake: str


def _survivors(m: dict) -> dict:
    out = {}
    for row in m.get("survivors") or []:
        if isinstance(row, dict):
            sv = Survivor(_s(row.get("id")), _s(row.get("label")), _s(row.get("mistake")))
            out[(sv.id, sv.label)] = sv
    return out


def _pct(score) -> str:
    from ..run.mutation import format_score
    return format_score(score, missing="-")


# ------------------------------------------------------------------------------ rendering
_COLOURS = {"WEAKER": "31", "UNEXPECTED": "31", "PROBLEM+": "31", "STRONGER": "32", "EXPECTED": "32",
            "PROBLEM-": "32", "SURVIVOR+": "33", "SURVIVOR-": "32", "CHANGED": "33", "REMOVED": "33", "LOST FINDING": "33", "ADDED": "36",
            "NEW FINDING": "35"}


def _plain(v, limit: int = 0) -> str:
    """One terminal line: control characters (escape sequences, newlines, bidi overrides)
    shown as escapes, so a hostile title can neither recolour the terminal nor fake a line."""
    s = "".join(ch if ch.isprintable() else (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
                for ch in _s(v))
    return s[:limit - 1] + "…" if limit and len(s) > limit else s


def _rows(diff: RunDiff) -> list:
    """[(group heading, [(tag, id, detail, source)])] for the non-empty groups, what makes
    the diff fail first."""
    def exp(e):
        return "" if e == "holds" else " (expected refuted)"

    def problem(p):
        return (f"{p.claim}: " if p.claim else "") + p.cause

    def fact(f):
        return f"{_s(f.old) or '-'} -> {_s(f.new) or '-'}"

    groups = [
        ("Got weaker", [("WEAKER", c.id, f"{c.old} -> {c.new}{exp(c.expected)}", c.source) for c in diff.weaker]),
        ("No longer as expected", [("UNEXPECTED", c.id, f"{c.old_status} -> {c.new_status}, expected {c.expected}",
                                    c.source) for c in diff.not_as_expected]),
        ("New problems", [("PROBLEM+", p.file, problem(p), "") for p in diff.problems_added]),
        ("Removed" + (" (counted as regressions)" if diff.fail_on_removed else ""),
         [("REMOVED", c.id, f"was {c.status}", c.source) for c in diff.removed]),
        ("Got stronger", [("STRONGER", c.id, f"{c.old} -> {c.new}{exp(c.expected)}", c.source)
                          for c in diff.stronger]),
        ("Changed status", [("CHANGED", c.id, f"{c.old} -> {c.new}{exp(c.expected)}", c.source)
                            for c in diff.different]),
        ("Now as expected", [("EXPECTED", c.id, f"{c.old_status} -> {c.new_status}, expected {c.expected}",
                              c.source) for c in diff.as_expected]),
        ("Added", [("ADDED", c.id, c.status + ("" if c.as_expected else f", not as expected (expected {c.expected})"),
                    c.source) for c in diff.added]),
        ("New findings", [("NEW FINDING", f.id, _finding_detail(f), f.source) for f in diff.findings_new]),
        ("Lost findings", [("LOST FINDING", f.id, _finding_detail(f), f.source) for f in diff.findings_lost]),
        ("Problems gone", [("PROBLEM-", p.file, problem(p), "") for p in diff.problems_removed]),
        ("New surviving mutants (the gate lets these mistakes through)",
         [("SURVIVOR+", v.id, f"{v.label}: {v.mistake}", "") for v in diff.survivors_new]),
        ("Mutants no longer surviving", [("SURVIVOR-", v.id, f"{v.label}: {v.mistake}", "")
                                         for v in diff.survivors_gone]),
        ("Run", [("SETTING", f.name, fact(f), "") for f in diff.settings]
         + [("RUN", f.name, fact(f), "") for f in (diff.exit_code, diff.schema) if f]),
    ]
    return [(h, rows) for h, rows in groups if rows]


def _finding_detail(f: Finding) -> str:
    where = "" if f.where == "claim" else "uncheckable: "
    return f"{where}{f.detail}"


def _verdict(diff: RunDiff) -> str:
    regs = diff.regressions
    if not regs:
        return "No regression."
    names = ", ".join(r.id for r in regs[:5]) + (f", ... ({len(regs) - 5} more)" if len(regs) > 5 else "")
    return f"REGRESSION: {len(regs)} regression{'s' if len(regs) != 1 else ''} ({_plain(names)})"


def render_text(diff: RunDiff, colour: bool = False) -> str:
    """The diff for a terminal: a headline with counts, then one line per change, grouped
    (what got worse first), then the verdict line the exit code follows."""
    names = f"{_plain(diff.old_name)} -> {_plain(diff.new_name)}"
    if diff.empty:
        return f"No changes between {names}.\n"
    groups = _rows(diff)
    rows = [r for _, rs in groups for r in rs]
    tag_w = max(len(r[0]) for r in rows)
    id_w = min(max(len(_plain(r[1])) for r in rows), 40)
    lines = [f"verify-claims diff: {names}",
             _plain(", ".join(text for _, text in diff.counts()))]
    for heading, rs in groups:
        lines += ["", f"{heading}:"]
        for tag, rid, detail, source in rs:
            shown = f"{tag:<{tag_w}}"
            if colour and tag in _COLOURS:
                shown = f"\033[{_COLOURS[tag]}m{shown}\033[0m"
            line = f"  {shown}  {_plain(rid):<{id_w}}  {_plain(detail, 160)}"
            if source:
                line += f"  ({_plain(source)})"
            lines.append(line.rstrip())
    verdict = _verdict(diff)
    if colour:
        verdict = f"\033[{'31' if diff.regressions else '32'}m{verdict}\033[0m"
    lines += ["", verdict]
    return "\n".join(lines) + "\n"


_MD_ESCAPES = {"\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|",
               "~": "\\~", "$": "\\$", "!": "\\!", "#": "\\#", "<": "&lt;", ">": "&gt;", "&": "&amp;",
               "@": "@\u200b"}  # @ + zero-width space: a title never @-mentions anyone in a comment


def md_escape(v, limit: int = 160) -> str:
    """Text for one Markdown table cell: Markdown-active characters escaped, HTML as
    entities, line breaks and control characters as spaces, at most `limit` characters:
    a hostile title cannot end the row, split a cell, open a code span or inject HTML."""
    s = "".join(" " if not ch.isprintable() else ch for ch in _s(v)).strip()
    if limit and len(s) > limit:
        s = s[:limit - 1] + "…"
    return "".join(_MD_ESCAPES.get(ch, ch) for ch in s)


def _table(header: tuple, rows: list, max_rows: int) -> list:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows[:max_rows]]
    if len(rows) > max_rows:
        out.append(f"\n…and {len(rows) - max_rows} more (`verify-claims diff` lists them all).")
    return out


def render_markdown(diff: RunDiff, *, max_rows: int = 100) -> str:
    """The diff for a GitHub job summary or pull-request comment: a headline with counts,
    one table per group (at most `max_rows` rows each, to stay within a comment's size),
    every value escaped.  An empty diff is one line."""
    names = f"{md_escape(diff.old_name)} → {md_escape(diff.new_name)}"
    if diff.empty:
        return f"No changes between {names}.\n"
    regs = diff.regressions
    head = (f"{len(regs)} regression{'s' if len(regs) != 1 else ''}" if regs else "no regression")
    failing = {"weaker", "not_as_expected", "problems_added"} | ({"removed"} if diff.fail_on_removed else set())
    counts = " · ".join(f"**{md_escape(text)}**" if key in failing else md_escape(text)
                        for key, text in diff.counts())
    lines = [f"### verify-claims diff: {head}", "", counts, "", f"Compared {names}."]
    claim_h = ("Claim", "Title", "Was", "Now", "Source")

    def claims(title, rows, header=claim_h):
        if rows:
            lines.extend(["", f"#### {title} ({len(rows)})", ""] + _table(header, rows, max_rows))

    def status_rows(cs):
        return [(c.id, c.title, c.old, c.new + ("" if c.expected == "holds" else " (expected refuted)"), c.source)
                for c in cs]

    def expect_rows(cs):
        return [(c.id, c.title, c.old_status, c.new_status, c.expected, c.source) for c in cs]

    exp_h = ("Claim", "Title", "Was", "Now", "Expected", "Source")
    claims("Got weaker", status_rows(diff.weaker))
    claims("No longer as expected", expect_rows(diff.not_as_expected), exp_h)
    claims("New problems", [(p.file, p.claim, p.cause) for p in diff.problems_added], ("File", "Claim", "Cause"))
    claims("Removed" + (" (counted as regressions)" if diff.fail_on_removed else ""),
           [(c.id, c.title, c.status, c.source) for c in diff.removed], ("Claim", "Title", "Was", "Source"))
    claims("Got stronger", status_rows(diff.stronger))
    claims("Changed status", status_rows(diff.different))
    claims("Now as expected", expect_rows(diff.as_expected), exp_h)
    claims("Added", [(c.id, c.title, c.status, "yes" if c.as_expected else f"no (expected {c.expected})",
                      c.source) for c in diff.added], ("Claim", "Title", "Status", "As expected", "Source"))
    find_h = ("Id", "Statement", "Finding", "Source")
    claims("New findings", [(f.id, f.title, _finding_detail(f), f.source) for f in diff.findings_new], find_h)
    claims("Lost findings", [(f.id, f.title, _finding_detail(f), f.source) for f in diff.findings_lost], find_h)
    claims("Problems gone", [(p.file, p.claim, p.cause) for p in diff.problems_removed], ("File", "Claim", "Cause"))
    mut_h = ("Claim", "Mutant", "Mistake")
    claims("New surviving mutants", [(v.id, v.label, v.mistake) for v in diff.survivors_new], mut_h)
    claims("Mutants no longer surviving", [(v.id, v.label, v.mistake) for v in diff.survivors_gone], mut_h)
    facts = diff.settings + [f for f in (diff.exit_code, diff.schema) if f]
    claims("Run", [(f.name, _s(f.old) or "-", _s(f.new) or "-") for f in facts], ("Fact", "Was", "Now"))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ files
def previous_run_path(report_dir, *, cache_dir=None) -> Path:
    """Where the run before the latest one is kept: in the proof store beside the report
    (REPORT_DIR/.verify-claims-cache/runs-history/previous.json), or under `cache_dir`."""
    root = Path(cache_dir) if cache_dir is not None else Path(report_dir) / STORE_DIRNAME
    return root / HISTORY / PREVIOUS


def remember_run(report_dir, claims_json_path=None, *, cache_dir=None, warn=None) -> Path | None:
    """Keep the current report's claims.json (or `claims_json_path`) as the previous run,
    atomically; called just before a new run publishes, so that ``verify-claims diff``
    with no files shows what that run changed.  Returns the path written, or None when
    there is nothing to keep (a first run) or it could not be kept: that is a warning,
    never the run's failure."""
    src = Path(claims_json_path) if claims_json_path is not None else Path(report_dir) / "claims.json"
    if not src.is_file():
        return None
    dest = previous_run_path(report_dir, cache_dir=cache_dir)
    try:
        write_via(lambda tmp: shutil.copyfile(src, tmp), dest)
    except OSError as exc:
        (warn or (lambda msg: print(f"verify-claims: warning: {msg}", file=sys.stderr)))(
            f"could not keep {src} as the previous run in {dest}: {exc}")
        return None
    return dest


def load_run(path, *, missing_hint: str = "", warn=None) -> dict:
    """Read and validate one claims.json; InvalidReport names the file and the cause."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InvalidReport(f"{path} does not exist" + (f": {missing_hint}" if missing_hint else "")) from None
    except IsADirectoryError:
        raise InvalidReport(f"{path} is a directory, not a claims.json") from None
    except OSError as exc:
        raise InvalidReport(f"cannot read {path}: {exc.strerror or exc}") from None
    if not raw.strip():
        raise InvalidReport(f"{path} is empty, not a claims.json")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InvalidReport(f"{path} is not a claims.json: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InvalidReport(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise InvalidReport(f"{path} is not a claims.json: JSON nested too deeply") from None
    for msg in validate(data, str(path)):
        (warn or (lambda m: print(f"verify-claims diff: warning: {m}", file=sys.stderr)))(msg)
    return data


def _append(path: Path, text: str) -> None:
    """Append to `path` (GitHub's step summary collects every step's text), after a blank
    line when it already holds something."""
    tail = b""
    if path.is_file():  # not a pipe or terminal (--output /dev/stderr): those are only written
        with open(path, "rb") as fh:
            fh.seek(max(fh.seek(0, os.SEEK_END) - 2, 0))
            tail = fh.read()
    sep = "" if not tail or tail.endswith(b"\n\n") else "\n" if tail.endswith(b"\n") else "\n\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(sep + text)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="verify-claims diff",
        description="What changed between two runs (two claims.json files): claims added and removed, "
                    "verdicts weaker or stronger, claims no longer as expected, findings new and lost.",
        epilog="With two files: compare them.  With one: compare it with REPORT_DIR/claims.json.  With none: "
               "compare the previous run kept in the proof store with REPORT_DIR/claims.json.  Exit codes: "
               "0 nothing got weaker, 1 something got weaker (a regression), 2 usage error.")
    p.add_argument("old", nargs="?", metavar="OLD.json", help="the earlier run")
    p.add_argument("new", nargs="?", metavar="NEW.json", help="the later run (default REPORT_DIR/claims.json)")
    p.add_argument("--markdown", action="store_true",
                   help="render Markdown (a GitHub job summary or pull-request comment) instead of text")
    p.add_argument("--output", metavar="FILE",
                   help="append the rendering to FILE (e.g. \"$GITHUB_STEP_SUMMARY\"); the text form still goes "
                        "to stdout")
    p.add_argument("--fail-on-removed", action="store_true",
                   help="count removed claims as regressions (exit 1); off by default, so a renamed claim "
                        "does not fail")
    p.add_argument("--report-dir", default="reports", metavar="DIR", help="the report directory (default reports)")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the proof store holding the previous run (default REPORT_DIR/.verify-claims-cache)")
    p.add_argument("--missing-ok", action="store_true",
                   help="with no OLD.json: when no previous run is kept yet (a first CI run, a fresh cache), say so "
                        "and exit 0 instead of 2")
    p.add_argument("--no-color", action="store_true", help="no ANSI colours")
    return p


def diff_main(argv=None) -> int:
    """``verify-claims diff``: 0 nothing got weaker, 1 a regression, 2 a usage error."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a bad option (2)
        return ExitCode.OK if exc.code in (0, None) else ExitCode.USAGE
    rdir = Path(args.report_dir)
    current = rdir / "claims.json"
    run_first = "run verify-claims first"
    if args.new is not None:
        old, new = (Path(args.old), ""), (Path(args.new), "")
    elif args.old is not None:
        old, new = (Path(args.old), ""), (current, run_first)
    else:
        old = (previous_run_path(rdir, cache_dir=args.cache_dir),
               ("no previous run is kept yet (each run keeps the one before it): run verify-claims again, "
                "or name OLD.json"))
        new = (current, run_first)
    # the named file first; with none named, claims.json first ("run verify-claims first" is the
    # useful message on a fresh checkout)
    order = (old, new) if args.old is not None else (new, old)
    if args.old is None and args.missing_ok and not old[0].is_file() and current.is_file():
        note = f"verify-claims diff: no previous run is kept yet in {old[0].parent}: nothing to compare\n"
        sys.stdout.write(note)
        if args.output:
            try:
                _append(Path(args.output), note.replace("verify-claims diff: ", "").capitalize())
            except OSError:
                pass
        return ExitCode.OK
    try:
        loaded = {p: load_run(p, missing_hint=hint) for p, hint in order}
        diff = compare(loaded[old[0]], loaded[new[0]], fail_on_removed=args.fail_on_removed,
                       old_name=str(old[0]), new_name=str(new[0]))
    except InvalidReport as exc:
        print(f"verify-claims diff: error: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    code = ExitCode.FAILED if diff.regressions else ExitCode.OK
    colour = not args.no_color and not os.environ.get("NO_COLOR") and sys.stdout.isatty()
    if args.output:
        try:
            _append(Path(args.output), render_markdown(diff) if args.markdown else render_text(diff))
        except OSError as exc:
            print(f"verify-claims diff: error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return ExitCode.USAGE
        shown = render_text(diff, colour=colour)
    else:
        shown = render_markdown(diff) if args.markdown else render_text(diff, colour=colour)
    try:
        sys.stdout.write(shown)
        sys.stdout.flush()
    except BrokenPipeError:  # `verify-claims diff | head`: the reader left; the verdict stands
        try:  # and no second BrokenPipeError when the interpreter flushes stdout at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass
    return code


if __name__ == "__main__":  # python -m verify_claims.report.diff
    sys.exit(int(diff_main()))
