"""--junitxml: a run as JUnit XML, for a CI's test view.

One <testcase> per claim (classname: its module, name: its id), as pytest writes them:
a claim not as expected is a <failure> (an <error> for error/timeout) whose text is the
counterexample with its numbers; an expected refutation that was refuted is skipped with
type "xfail" (pytest's strict xfail); a broken derivation module is an <error> testcase of
its file.  Each testcase carries the status, expectation, kind, reference, method and
origin as <properties>.  Everything is escaped by ElementTree; characters XML cannot hold
(control characters) are replaced.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from ..model.result import Result

__all__ = ["render_junit"]

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text) -> str:
    return _ILLEGAL.sub("\ufffd", str(text))


def render_junit(report: dict) -> str:
    claims = report.get("claims", [])
    problems = [p for p in report.get("problems", []) if not p.get("claim")]
    suite = ET.Element("testsuite", name="verify-claims")
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    props = ET.SubElement(suite, "properties")
    run = report.get("run", {})
    for key in ("seed", "samples", "precision", "timeout", "derivations"):
        if key in run:
            ET.SubElement(props, "property", name=key, value=_clean(run[key]))
    total_time = 0.0
    for c in claims:
        res = Result.from_json(c)
        seconds = float(c.get("seconds") or 0.0)
        total_time += seconds
        case = ET.SubElement(suite, "testcase", classname=Path(res.source).stem or "derivations",
                             name=_clean(res.id), file=_clean(res.source), time=f"{seconds:.3f}")
        cprops = ET.SubElement(case, "properties")
        for key in ("status", "expected", "kind", "ref", "method", "origin"):
            ET.SubElement(cprops, "property", name=key, value=_clean(c.get(key, "")))
        if c.get("narrowed"):  # verified on a narrower domain than the paper states
            n = c["narrowed"]
            ET.SubElement(cprops, "property", name="narrowed", value=_clean(
                (f"verified: {n.get('verified', '')}; the paper: {n.get('paper', '')}" if n.get("declared")
                 else f"undeclared restriction: {n.get('verified', '')}")[:1000]))
        counts["tests"] += 1
        if res.as_expected and res.status == "refuted":
            ET.SubElement(case, "skipped", type="xfail",
                          message=_clean(f"expected refutation: {res.expected_reason}"[:1000])).text = \
                _clean(res.failure_text())
            counts["skipped"] += 1
        elif not res.as_expected:
            error = res.status in ("error", "timeout")
            tag = "error" if error else "failure"
            if res.expected != "holds" and res.status != "refuted":
                message = f"[XPASS(strict)] expected refuted, but {res.status}: {res.expected_reason}"
            else:
                message = f"{res.status} (expected {res.expected})" + (f": {res.message}" if res.message else "")
            ET.SubElement(case, tag, type=str(res.status), message=_clean(message[:1000])).text = \
                _clean(res.failure_text())
            counts["errors" if error else "failures"] += 1
    for p in problems:
        case = ET.SubElement(suite, "testcase", classname=Path(p.get("file", "")).stem,
                             name=_clean(f"{p.get('file', '')} (module)"), file=_clean(p.get("file", "")),
                             time="0.000")
        ET.SubElement(case, "error", type="collection", message=_clean(p.get("cause", ""))[:1000]).text = \
            _clean(p.get("cause", ""))
        counts["tests"] += 1
        counts["errors"] += 1
    for k, v in counts.items():
        suite.set(k, str(v))
    suite.set("time", f"{total_time:.3f}")
    if run.get("started"):
        suite.set("timestamp", _clean(run["started"]))
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
