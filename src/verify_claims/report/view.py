"""What the HTML and LaTeX reports show, prepared once from the claims.json data.

Both renderers take the dict that report_json.build_report returns (the same data the
JSON file holds) and call :func:`prepare`; nothing here re-verifies anything.  Evidence is
rendered generically (known fields first, any other key as a key/value row), so new
evidence keys appear in the reports without changes here.
"""

from __future__ import annotations

import json
import re

from .graph import STATUS_COLOURS, foundations
from ..model.status import STATUSES

__all__ = ["prepare", "section_of", "section_sort_key", "safe_math", "display_latex", "rich_text", "words",
           "TIMING_KEYS"]

TIMING_KEYS = ("seconds", "started", "established_at")
_MAX_VALUE = 1500  # characters of one evidence value shown; the JSON keeps everything

STATUS_TEXT = {
    "proved": "exact symbolic proof (sympy), no sampling",
    "certified": "shown on the whole domain by a sound symbolic argument",
    "checked": "numeric spot-check only",
    "simulated": "target inside the confidence interval of seeded runs (never a proof)",
    "refuted": "counterexample found",
    "undecided": "neither proved nor decided numerically",
    "error": "the claim raised, is malformed, or prover and numbers conflict",
    "timeout": "did not finish within the time limit",
}

FOUNDATION_TEXT = {
    "rigorous": "it and everything it uses (transitively) is proved or certified",
    "spot-checked": "established, but something down the chain is only numerically checked or simulated",
    "unfounded": "its own status is established but something it uses is not, or is missing",
    "not established": "its own status is not established",
}

# Control sequences that could read or write files, define macros or (in MathJax) emit
# links, classes or styles.  sympy's latex never produces them; a statement containing
# one is shown as plain text, never typeset.
_UNSAFE_MATH = re.compile(
    r"\\(input|include|openin|openout|read|write|immediate|special|def|edef|gdef|xdef|let|"
    r"catcode|csname|newcommand|renewcommand|providecommand|DeclareMathOperator|usepackage|"
    r"href|url|class|cssId|style|data|unicode|require|html|begingroup|endgroup|end\{document|"
    r"documentclass|jobname|string|expandafter|afterassignment|loop|directlua)(?![a-zA-Z])"
    r"|\\\]|\\\[|\\\(|\\\)|\$|%")


def safe_math(latex: str) -> bool:
    """True when `latex` may be typeset (MathJax / pdflatex math mode)."""
    return bool(latex) and not _UNSAFE_MATH.search(latex) and latex.count("{") == latex.count("}")


def display_latex(latex: str) -> str:
    """Chain statements are lines joined by \\\\ with & alignment: wrap them in aligned."""
    if latex.startswith(r"\begin{aligned}"):  # already lines (wrap_math)
        return latex
    if "&" in latex or "\\\\" in latex:
        first = latex.split("\\\\", 1)[0]
        if "&" not in first:  # start the first line at the alignment point too, not right of it
            latex = "&" + latex
        return r"\begin{aligned}" + latex + r"\end{aligned}"
    return latex


WRAP_CHARS = 110  # LaTeX source characters per line of a wrapped statement (about a page width)
_BREAK_AT = re.compile(r"\\left[\\(\[{.|]|\\right[\\)\]}.|]|[{}]|(?<![\\{(\[^_=<>,])[+-]|=|\\leq?(?![a-zA-Z])|"
                       r"\\geq?(?![a-zA-Z])|<|>|\\quad(?![a-zA-Z])")


def wrap_math(latex: str, width: int = WRAP_CHARS) -> str:
    """A long one-line formula as aligned lines, broken before a + or - (or after a
    relation) outside every brace and \\left...\\right pair, so it wraps within the page
    instead of running off it; a formula with no such place stays one line."""
    if len(latex) <= width or "&" in latex or "\\\\" in latex:
        return latex
    depth, cuts, last = 0, [], 0
    for m in _BREAK_AT.finditer(latex):
        tok = m.group(0)
        if tok.startswith("\\left") or tok == "{":
            depth += 1
        elif tok.startswith("\\right") or tok == "}":
            depth -= 1
        elif depth == 0 and m.start() - last >= width:
            at = m.start() if tok in ("+", "-", r"\quad") else m.end()
            if latex[last:at].strip():
                cuts.append(at)
                last = at
    if not cuts or depth != 0:
        return latex
    parts = [latex[a:b].strip() for a, b in zip([0] + cuts, cuts + [len(latex)])]
    return r"\begin{aligned}&" + r" \\ &\quad ".join(parts) + r"\end{aligned}"


_SECTION_RE = re.compile(r"^(Section [0-9]+(?:\.[0-9]+)*|Appendix [A-Z](?:\.[0-9]+)*|Abstract"
                         r"|Beyond the paper: [^,]+)")


def section_of(ref: str, source: str = "") -> str:
    """The paper section a reference points to ("Section 2.3.1", "Appendix B.1")."""
    m = _SECTION_RE.match(ref or "")
    if m:
        return m.group(1)
    return source or "other"


def section_sort_key(s: str):
    """The paper's order: abstract, numbered sections, appendices (2.10 after 2.9), then
    what goes beyond the paper."""
    if s.startswith("Beyond the paper"):
        return (3, (), s)
    m = re.match(r"(Abstract|Section|Appendix) ?(.*)", s)
    if not m:
        return (4, (), s)
    group = {"Abstract": 0, "Section": 1, "Appendix": 2}[m.group(1)]
    parts = tuple(int(p) if p.isdigit() else ord(p[0]) if p else 0 for p in re.split(r"\.", m.group(2)) if p)
    return (group, parts, "")


def is_timing(key) -> bool:
    """Fields that differ between runs on the same inputs (wall-clock times)."""
    k = str(key)
    return k in TIMING_KEYS or k.endswith("seconds") or k.endswith("_time")


def _value(v) -> str:
    if isinstance(v, str):
        s = v
    elif isinstance(v, list) and v and all(isinstance(x, dict) and all(not isinstance(y, (dict, list))
                                                                        for y in x.values()) for x in v):
        # a list of records (certificate goals): one "field value, ..." per record, in words
        s = "; ".join(", ".join(f"{words(k)} {y}" for k, y in x.items() if has_value(y)) for x in v)
    elif isinstance(v, (int, float, bool)) or v is None:
        s = json.dumps(v)
    else:
        s = json.dumps(v, ensure_ascii=False, default=str, sort_keys=False)
    return s if len(s) <= _MAX_VALUE else s[: _MAX_VALUE - 1] + "…"


# evidence keys in words (a key not listed is shown with its underscores as spaces)
WORDS = {
    "boxes": "interval boxes", "depth": "subdivision depth", "goals": "goals", "seconds": "seconds",
    "digits": "working precision (digits)", "inconclusive_at": "inconclusive at", "ladder": "ladder of values",
    "max_abs_residual": "largest |residual|", "max_relative_deviation": "largest relative deviation",
    "min_relative_margin": "smallest relative margin", "pairs": "pairs compared",
    "parameter_points": "parameter points", "points": "points evaluated", "screen": "float screen",
    "screened_in_floats": "checks cleared in machine floats", "tight_pairs": "pairs where it is tight",
    "points_with_lost_digits": "points decided again past digits lost to cancellation",
    "unresolved_rivals": "rivals left unresolved (more digits lost to cancellation than the check spends)",
    "tight_points": "points where it is tight", "unresolved_points": "points left unresolved (unstable across precisions)",
    "recorded": "certificate recorded", "result": "result", "supported_by": "supported by",
    "first_order": "first-order condition", "second_order": "second-order condition",
    "in_interval_lo": "above the interval's lower end", "in_interval_hi": "below the interval's upper end",
    "solves_proved": "solves (proved)", "strategy": "strategy that reduced it to 0",
    "strategies": "strategies", "residual": "residual", "difference": "difference", "sign": "sign",
    "skipped": "skipped", "reason": "reason", "multiplier": "multiplier",
    "multiplier_nonzero": "multiplier non-zero", "multiplier_poles": "multiplier's poles",
    "lhs": "left-hand side", "rhs": "right-hand side", "type": "kind of counterexample", "point": "at", "raw": "before shrinking",
    "symbolic": "symbolic proof", "certificate": "certificate", "numeric": "numeric check",
    "replay": "replay of certificates", "trace": "replayable decisions", "mode": "mode", "scope": "scope",
    # ladder+asymptotics (a limit over a symbolic group size G, kinds/limit.py)
    "group_sizes": "group sizes G reached at every point", "precision_bits": "ball precision (bits)",
    "coefficient": "1/G coefficient", "criterion": "judged by", "gap": "S_G - S_inf along the ladder",
    "scaled_gap": "G (S_G - S_inf) along the ladder", "coefficient_here": "declared c at this point",
    "stopped": "ladder stopped",
    # simulations (kinds/simulation.py)
    "simulation": "simulation", "summary": "summary", "runs": "runs", "describe": "one run",
    "run_function": "run function", "seed": "seed of the run function", "params": "parameters",
    "interval": "confidence interval", "mean": "mean over runs", "sd_between_runs": "standard deviation between runs",
    "ci_low": "interval's lower end", "ci_high": "interval's upper end", "tolerance": "tolerance (absolute)",
    "target": "target", "compared": "compared", "widened": "interval widened by the tolerance",
    "outside_by": "target outside by", "per_run": "one run", "confidence": "confidence",
}


def words(key: str) -> str:
    """A dotted evidence key in words ("screen.points" -> "float screen: points evaluated")."""
    return ": ".join(WORDS.get(p, p.replace("_", " ")) for p in str(key).split("."))


def has_value(v) -> bool:
    """Whether a field says something (None, "", [] and {} say nothing and are not shown)."""
    return not (v is None or (isinstance(v, (str, list, tuple, dict)) and len(v) == 0))


def _rows(d: dict, prefix: str = "") -> list:
    """Flatten a dict into rows {key, label (in words), value, timing}; nested dicts get
    dotted keys; fields without a value are left out."""
    rows = []
    for k, v in d.items():
        if not has_value(v):
            continue
        key = f"{prefix}{k}"
        if isinstance(v, dict) and _leaves(v) <= 24:  # small nested records: one row per value
            rows.extend(_rows(v, key + "."))
        else:
            rows.append({"key": key, "label": words(key), "value": _value(v), "timing": is_timing(k)})
    return rows


def _leaves(d, depth: int = 0) -> int:
    """Values in a nested dict (a list counts as many); deep or large records stay JSON."""
    if depth > 3:
        return 10 ** 6
    return sum(_leaves(x, depth + 1) if isinstance(x, dict) else (10 ** 6 if isinstance(x, list) else 1)
               for x in d.values())


_INLINE_MATH = re.compile(r"(?<!\\)\$([^$]+)\$")


def rich_text(text) -> list:
    """Text with inline maths ($\\pi_{\\mathrm{ref}}(a \\mid q)$) as [(kind, part)], kind
    "text" or "math"; a $...$ that is not safe to typeset stays text, dollars and all."""
    text = str(text or "")
    out, pos = [], 0
    for m in _INLINE_MATH.finditer(text):
        if not safe_math(m.group(1)):
            continue
        if m.start() > pos:
            out.append(("text", text[pos:m.start()]))
        out.append(("math", m.group(1).strip()))
        pos = m.end()
    if pos < len(text):
        out.append(("text", text[pos:]))
    return out


_KNOWN_ORDER = ("symbolic", "certificate", "numeric")


def _evidence(ev) -> list:
    """[{"name", "status", "method", "rows": [...]}] for each evidence entry."""
    if not isinstance(ev, dict):
        return [{"name": "evidence", "status": "", "method": "", "rows": [{"key": "value", "value": _value(ev),
                                                                         "timing": False}]}]
    out = []
    names = [k for k in _KNOWN_ORDER if k in ev] + sorted(k for k in ev if k not in _KNOWN_ORDER)
    for name in names:
        v = ev[name]
        if not has_value(v):
            continue
        if name == "trace" and isinstance(v, dict):  # hashes of decisions: a count says what matters
            out.append({"name": words(name), "status": "", "method": "", "rows": [
                {"key": "decisions", "label": "recorded decisions (replayed by --recheck)",
                 "value": str(len(v)), "timing": False}]})
            continue
        if isinstance(v, dict):
            rest = {k: x for k, x in v.items() if k not in ("status", "verdict", "method")}
            rows = _rows(rest)
            top = {r["key"]: r["value"] for r in rows if "." not in r["key"]}
            # the float screen repeats what the full check found: show only where it differs
            rows = [r for r in rows if not (r["key"].startswith("screen.")
                                            and top.get(r["key"][len("screen."):]) == r["value"])]
            out.append({"name": words(name), "status": str(v.get("status") or v.get("verdict") or ""),
                        "method": str(v.get("method") or ""), "rows": rows})
        else:
            out.append({"name": words(name), "status": "", "method": "",
                        "rows": [{"key": "value", "label": "value", "value": _value(v), "timing": False}]})
    return out


def _counterexample(cx, symbols=None) -> list:
    """Rows of a counterexample; a coordinate of the point is labelled by its symbol's
    display form ("tex": LaTeX) when the module gives one."""
    if not cx:
        return []
    if not isinstance(cx, dict):
        return [{"key": "counterexample", "label": "counterexample", "value": _value(cx), "timing": False}]
    rows = _rows(cx)
    for r in rows:  # point.x, claimed.x, better.x, raw.point.x (the point before shrinking), ...
        parts = r["key"].split(".")
        name = parts[-1] if len(parts) >= 2 and parts[-1] in (symbols or {}) else ""
        if not name:
            r["tex"] = ""
            continue
        where = [words(p) for p in parts[:-1] if p != "point"]
        prefix = ", ".join(where) + ": " if where else ""
        tex = symbols[name]
        r["label"] = prefix + name
        r["tex"] = ((r"\text{" + prefix + "}" if prefix else "") + tex) if safe_math(tex) else ""
    return rows


ORIGIN_TEXT = {"store": "from the proof store (unchanged since they were established)",
               "replayed": "replayed from certificates (every step re-checked)",
               "searched": "searched for in this run",
               "judged": "judged from the claims they use (summaries)"}
ORIGIN_LABEL = {"store": "from the store", "replayed": "replayed", "searched": "searched", "judged": "judged"}


def origin_fields(origin) -> dict:
    """A claim's origin as report.html shows it: {"origin_label", "origin_title"} ("" for none)."""
    if not origin:
        return {"origin_label": "", "origin_title": ""}
    return {"origin_label": ORIGIN_LABEL.get(origin, str(origin)), "origin_title": ORIGIN_TEXT.get(origin, "")}


def origins_text(claims) -> str:
    """How many verdicts came from where, in words (the report's header)."""
    origins = {o: sum(1 for c in claims if c.get("origin") == o) for o in ORIGIN_TEXT}
    return ", ".join(f"{n} {ORIGIN_TEXT[o]}" for o, n in origins.items() if n) or "none"


class Prepared:
    """A report's view, prepared on first use and then shared by report.html, report.tex
    and findings.tex (a renderer whose text comes from the store needs none)."""

    def __init__(self, report: dict):
        self.report = report
        self._view = None

    def get(self) -> dict:
        if self._view is None:
            self._view = prepare(self.report)
        return self._view


def for_render(view, report: dict) -> dict:
    """A renderer's own copy of the view (a dict, a Prepared, or None: prepared here): the
    renderers set keys of the view and of its figures, which are copied; everything else is
    shared and only read."""
    if isinstance(view, Prepared):
        view = view.get()
    if view is None:
        return prepare(report)
    return {**view, "figures": [dict(f) for f in view["figures"]]}


def prepare(report: dict) -> dict:
    """The view model both reports render."""
    from .. import __version__

    run = {"seed": "", "samples": "", "precision": "", "timeout": "", "jobs": "", "derivations": "",
           "started": "", "seconds": "", "counts": {}, "claims": len(report.get("claims") or []),
           "as_expected": "", "not_as_expected": 0, "problems": 0, "exit_code": "",
           **(report.get("run") or {})}
    run["versions"] = {"verify_claims": __version__, **(run.get("versions") or {})}
    claims_in = list(report.get("claims") or [])
    found = foundations(claims_in)
    ids = {c["id"] for c in claims_in}
    users: dict = {}
    for c in claims_in:
        for u in c.get("uses") or []:
            users.setdefault(u, []).append(c["id"])
    claims = []
    for c in claims_in:
        stmt = c.get("statement") or ""
        steps = []
        for s in c.get("steps") or []:
            latex = s.get("latex") or s.get("expr") or ""
            steps.append({"step": s.get("step", len(steps)), "latex": latex, "math_ok": safe_math(latex),
                          "because": s.get("because") or "", "relation": s.get("relation") or "",
                          "status": s.get("status") or "", "message": s.get("message") or "",
                          "extra": [r for r in _rows({k: v for k, v in s.items() if k not in
                                    ("step", "latex", "expr", "because", "relation", "status", "message")})]})
        display, expanded = c.get("display") or "", c.get("expanded") or ""
        cx_rows = _counterexample(c.get("counterexample"), c.get("symbols"))
        message = "" if c.get("message") == "counterexample" else c.get("message") or ""  # the table says it
        claims.append({
            **origin_fields(c.get("origin")),
            **c,
            "section": section_of(c.get("ref", ""), c.get("source", "")),
            "statement": stmt, "math_ok": safe_math(stmt),
            "display": display, "display_ok": safe_math(display),
            "expanded": expanded, "expanded_ok": safe_math(expanded), "expanded_chars": len(expanded),
            "message": message,
            "foundation": found.get(c["id"], "not established"),
            "evidence_view": _evidence(c.get("evidence") or {}),
            "counterexample_rows": [r for r in cx_rows if not r["key"].startswith("raw.")],
            "raw_rows": [{**r, "label": r["label"].replace("before shrinking, ", "").replace("before shrinking: ", ""),
                          "tex": r["tex"].replace(r"\text{before shrinking, ", r"\text{").replace(
                              r"\text{before shrinking: }", "")}
                         for r in cx_rows if r["key"].startswith("raw.") and r["key"] != "raw.type"],
            "uses_view": [{"id": u, "found": u in ids} for u in c.get("uses") or []],
            "used_by": sorted(users.get(c["id"], [])),
            "steps_view": steps,
            "narrowed_view": _narrowed_view(c.get("narrowed")),
            "paper_domain_view": [{"symbol": k, "set": str((v or {}).get("set", "")), "reason": str((v or {}).get("reason", ""))}
                                  for k, v in (c.get("paper_domain") or {}).items()],
        })
    sections = sorted({c["section"] for c in claims}, key=section_sort_key)
    by_id = {c["id"]: c for c in claims}

    findings = []
    for c in claims:
        if c.get("expected") == "refuted" and c.get("paper_error"):
            named = set(users.get(c["id"], []))
            text = " ".join(str(c.get(k) or "") for k in ("expected_reason", "title", "message"))
            named |= {o for o in ids if o != c["id"] and re.search(rf"(?<![a-z0-9-]){re.escape(o)}(?![a-z0-9-])", text)}
            # a correction is a claim expected to hold (not another statement of the paper's error)
            findings.append({"claim": c, "corrected": [by_id[i] for i in sorted(named)
                                                       if by_id[i].get("expected") == "holds"]})
    confirmations = [c for c in claims if c.get("expected") == "refuted" and not c.get("paper_error")]

    figures = []
    for f in report.get("figures") or []:
        figures.append({**f, "uses_view": [{"id": u, "found": u in ids,
                                            "status": by_id[u]["status"] if u in ids else ""}
                                           for u in f.get("uses") or []]})
    counts = run.get("counts") or {}
    dates = sorted(c["established_at"] for c in claims_in if c.get("established_at"))
    established = "" if not dates else (dates[0][:10] if dates[0][:10] == dates[-1][:10]
                                        else f"{dates[0][:10]} to {dates[-1][:10]}")
    # a report kept in the store has these as tokens (artifacts.stable_report)
    origin_text = run.get("origins_text") or origins_text(claims_in)
    return {
        "run": run,
        "established_range": established or "(not recorded)",
        "origin_text": origin_text,
        "schema": report.get("schema", ""),
        "counts": [{"status": s, "n": counts.get(s, 0), "colour": STATUS_COLOURS[s], "text": STATUS_TEXT[s]}
                   for s in STATUSES],
        "versions": run.get("versions") or {},
        "claims": claims,
        "sections": sections,
        "statuses": [s for s in STATUSES if any(c["status"] == s for c in claims)],
        "problems": report.get("problems") or [],
        "findings": findings,
        "confirmations": confirmations,
        "figures": figures,
        "colours": STATUS_COLOURS,
        "status_text": STATUS_TEXT,
        "foundation_text": FOUNDATION_TEXT,
        "not_as_expected": [c for c in claims if not c.get("as_expected")],
        "mutation": _mutation_view(report.get("mutation")),
        "narrowed_summary": {"claims": 0, "declared": 0, "summaries": 0, "undeclared": 0, "ids": [],
                             "undeclared_ids": [], **(run.get("narrowed") or {})},
    }


def _narrowed_view(n):
    """A claim's narrowing for both reports (None when it is verified on the paper's domain)."""
    if not n or not isinstance(n, dict):
        return None
    return {"declared": bool(n.get("declared")), "paper": str(n.get("paper") or ""),
            "verified": str(n.get("verified") or ""), "reason": str(n.get("reason") or ""),
            "rests_on": list(n.get("rests_on") or [])}


MUTANT_VERDICT_TEXT = {
    "killed": "the gate refutes the mutated claim (a counterexample at the seeded points, or one that "
              "certification found and confirmed) or reports it undecided",
    "equivalent": "sympy shows the mutated formula equal to the original on the domain: no mistake at all "
                  "(excluded from the score)",
    "still true": "the mutated claim is itself proved or certified: a different but true statement, which no "
                  "gate could refute (excluded from the score; the strict score counts it as survived)",
    "survived": "the gate lets the mistake through: the claim passes with it",
}


def _mutation_view(m):
    """The mutation run for both reports (None when the run had no --mutate)."""
    if not m:
        return None

    from ..run.mutation import format_score as pct, survivors_by_claim
    grouped = [{"id": cid, "rows": rows, "shared": shared} for cid, rows, shared in survivors_by_claim(m.get("survivors"))]
    return {**m, "score_text": pct(m.get("score")), "strict_text": pct(m.get("strict_score")),
            "survivors_by_claim": grouped,
            "modules_view": [{"name": k, **v, "score_text": pct(v.get("score"))}
                             for k, v in (m.get("modules") or {}).items()],
            "verdict_text": MUTANT_VERDICT_TEXT,
            "gate_text": ("" if (m.get("gate") or {}).get("min_score") is None else
                          f"{'passed' if m['gate']['passed'] else 'FAILED'}: minimum {m['gate']['min_score']:g}%")}
