"""The CI gate itself: the bundled derivations of the paper must verify as expected.

A wrong edit to a derivation module (or to the engine) makes a claim come out other
than expected, which fails this test with the claim's id and counterexample.
"""

import json
from pathlib import Path

from verify_claims.cli import default_derivations, main
from verify_claims.inventory import FINDINGS_BEGIN, FINDINGS_END, render_findings, render_inventory

ROOT = Path(__file__).resolve().parents[1]


def test_bundled_paper_verifies_as_expected(tmp_path, capsys):
    code = main(["--derivations", str(default_derivations()), "--report-dir", str(tmp_path), "-q"])
    out = capsys.readouterr().out
    report = json.loads((tmp_path / "claims.json").read_text())
    bad = [(c["id"], c["status"], c["expected"], c["message"], c["counterexample"])
           for c in report["claims"] if not c["as_expected"]]
    assert bad == [] and report["problems"] == [], out
    assert code == 0
    assert report["run"]["claims"] >= 60
    # the paper's known errors stay refuted (strict xfail) and carry counterexamples
    refuted = [c for c in report["claims"] if c["status"] == "refuted"]
    assert refuted and all(c["counterexample"] and c["expected"] == "refuted" for c in refuted)
    # honesty: nothing numeric-only is labelled proved
    for c in report["claims"]:
        if c["kind"] == "summary":
            assert set(c["evidence"]["supported_by"]) == set(c["uses"])
            continue
        if c["status"] == "proved":
            assert c["evidence"]["symbolic"]["status"] == "proved"
        if c["status"] == "checked":
            assert c["evidence"]["numeric"]["verdict"] == "consistent"
            assert c["evidence"]["symbolic"]["status"] == "not established"

    # the inventory and the README's findings are generated from this very run
    _assert_docs_current(report)


def _assert_docs_current(report):
    hint = "out of date: regenerate with `verify-claims --update-docs` and commit the result"
    inventory = (ROOT / "derivations" / "README.md").read_text(encoding="utf-8")
    assert inventory == render_inventory(report), f"derivations/README.md is {hint}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    i, j = readme.index(FINDINGS_BEGIN) + len(FINDINGS_BEGIN), readme.index(FINDINGS_END)
    assert readme[i:j] == "\n" + render_findings(report), f"the findings block of README.md is {hint}"
