"""Summaries, statements listed as not checkable, and the generated inventory/findings docs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from verify_claims.report.inventory import (FINDINGS_BEGIN, FINDINGS_END, begin_marker, end_marker, format_counterexample,
                                     render_findings, render_inventory, replace_findings_block, section_of)
from verify_claims.run.collect import load_derivations

MODULE = '''
    """A tiny paper."""
    import sympy as sp
    from verify_claims import Identity, Inequality, Ref, Summary, refuted

    x = sp.Symbol("x")
    POS = sp.Interval.open(0, sp.oo)
    CLAIMS = [
        Identity(id="square-expands", title="(x+1)^2 expands", ref=Ref("2.1", eq="3"),
                 lhs=(x + 1) ** 2, rhs=x ** 2 + 2 * x + 1, domain={x: POS}),
        Inequality(id="paper-bound", title="the paper's bound x > 1", ref=Ref("Appendix B.1"),
                   lhs=x, op=">", rhs=1, domain={x: POS}, expect=refuted("only for x > 1")),
        Inequality(id="corrected-bound", title="the corrected bound x + 1 > 1", ref=Ref("Appendix B.1"),
                   lhs=x + 1, op=">", rhs=1, domain={x: POS}, uses=("paper-bound",)),
        Identity(id="checked-only", title="a sum that sympy cannot close", ref=Ref("1"),
                 lhs=sp.Sum(1 / sp.Symbol("k") ** 2, (sp.Symbol("k"), 1, sp.oo)), rhs=sp.pi ** 2 / 6),
        Summary(id="summary-good", title="the algebra holds", ref=Ref("Abstract"),
                uses=("square-expands",)),
        Summary(id="summary-weakest", title="both hold", ref=Ref("1.2"),
                uses=("square-expands", "corrected-bound")),
        Summary(id="summary-of-refuted", title="the paper's summary of its bound", ref=Ref("1.2"),
                uses=("paper-bound",), expect=refuted("rests on the wrong bound")),
    ]
    UNCHECKABLE = [
        {"id": "library-default", "ref": Ref("1.2", note="footnote 1"),
         "statement": "TRL uses beta = 0.04 by default", "reason": "a fact about a library, not mathematics"},
        {"id": "subscript-typo", "ref": Ref("Appendix A"), "statement": "gamma_0 for gamma_o",
         "reason": "notation", "finding": "typo"},
    ]
'''


def _run(cli_env, d, tmp_path, *extra):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir",
                           str(out), "--jobs", "1", "--samples", "20", *extra],
                          capture_output=True, text=True, env=cli_env, timeout=300)
    data = json.loads((out / "claims.json").read_text()) if (out / "claims.json").exists() else None
    return proc, data


def test_summary_statuses_and_uncheckable_in_json(write_modules, cli_env, tmp_path):
    d = write_modules({"paper.py": MODULE})
    proc, data = _run(cli_env, d, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by = {c["id"]: c for c in data["claims"]}
    assert by["summary-good"]["status"] == "proved"
    # the weakest of proved and certified/checked
    assert by["summary-weakest"]["status"] == by["corrected-bound"]["status"]
    assert by["corrected-bound"]["status"] in ("certified", "checked")
    assert by["summary-of-refuted"]["status"] == "refuted"
    assert by["summary-of-refuted"]["counterexample"]["claim"] == "paper-bound"
    assert by["summary-weakest"]["evidence"]["supported_by"] == {
        "square-expands": "proved", "corrected-bound": by["corrected-bound"]["status"]}
    assert [u["id"] for u in data["uncheckable"]] == ["library-default", "subscript-typo"]
    assert "2 statements not checkable" in proc.stdout


def test_summary_of_a_wrong_claim_is_refuted_and_fails_the_gate(write_modules, cli_env, tmp_path):
    src = MODULE.replace('uses=("paper-bound",), expect=refuted("rests on the wrong bound")',
                         'uses=("paper-bound",)')
    d = write_modules({"paper.py": src})
    proc, data = _run(cli_env, d, tmp_path, "--only", "summary-of-refuted")
    assert proc.returncode == 1
    ids = {c["id"] for c in data["claims"]}
    assert ids == {"summary-of-refuted", "paper-bound"}  # --only pulls in what a summary uses
    assert "supporting claim(s) refuted: paper-bound" in proc.stdout


def test_summary_with_an_undecided_support_is_undecided():
    from verify_claims import Ref, Summary
    from verify_claims.model.result import Result
    from verify_claims.kinds.summary import verify_summary

    s = Summary(id="s", title="t", ref=Ref("1.2"), uses=("a", "b"))
    a = Result(id="a", title="", ref="", kind="identity", source="", expected="holds", expected_reason="",
               paper_error=False, status="proved")
    b = Result(id="b", title="", ref="", kind="identity", source="", expected="holds", expected_reason="",
               paper_error=False, status="timeout")
    r = verify_summary(s, {"a": a, "b": b})
    assert r.status == "undecided" and "b is timeout" in r.message and not r.as_expected
    r = verify_summary(s, {"a": a})
    assert r.status == "undecided" and "b is not run" in r.message


def test_summary_without_uses_and_bad_uncheckable_are_problems(write_modules):
    d = write_modules({"bad.py": '''
        from verify_claims import Summary, Ref
        CLAIMS = [Summary(id="lonely", title="nothing supports me", ref=Ref("1.2"))]
        UNCHECKABLE = [{"id": "no-reason", "ref": "Section 1", "statement": "s"},
                       {"id": "lonely", "ref": "Section 1", "statement": "s", "reason": "r"},
                       "not a dict"]
    '''})
    loaded = load_derivations(d)
    causes = [str(p) for p in loaded.problems]
    assert any("lonely" in c and "name the claims that support it" in c for c in causes), causes
    assert any("no-reason" in c and "missing reason" in c for c in causes), causes
    assert any("not a dict" in c or "use a dict" in c for c in causes), causes
    assert all(c.startswith("bad.py") for c in causes)


def test_list_shows_uncheckable_and_survives_a_closed_pipe(write_modules, cli_env):
    d = write_modules({"paper.py": MODULE})
    proc = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--list"],
                          capture_output=True, text=True, env=cli_env, timeout=120)
    assert "library-default" in proc.stdout and "not checkable" in proc.stdout
    assert "7 claims and 2 statements listed as not checkable" in proc.stdout
    piped = subprocess.run(f"{sys.executable} -m verify_claims --derivations {d} --list | head -1",
                           shell=True, capture_output=True, text=True, env=cli_env, timeout=120)
    assert "Traceback" not in piped.stderr and "internal error" not in piped.stderr


def test_update_docs_writes_inventory_and_findings(write_modules, cli_env, tmp_path):
    d = write_modules({"paper.py": MODULE}, sub="proj/derivations")
    top = d.parent / "README.md"
    cert_b, cert_e = begin_marker("certification"), end_marker("certification")
    top.write_text(f"# Proj\n\n## Findings\n{FINDINGS_BEGIN}\nstale\n{FINDINGS_END}\n\n"
                   f"## Certification\n{cert_b}\nold counts\n{cert_e}\n\n## After\n")
    proc, data = _run(cli_env, d, tmp_path, "--update-docs")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    inv = (d / "README.md").read_text()
    assert inv == render_inventory(data)  # regenerated from the run, nothing hand-typed
    assert "| Appendix B.1 |" in inv and "`library-default`" in inv and "not checkable" in inv
    assert "refuted (paper error)" in inv
    readme = top.read_text()
    assert "stale" not in readme and "old counts" not in readme and readme.endswith("## After\n")
    assert "inequality-like claims" in readme and "| proved | certified | checked | undecided |" in readme
    assert "`paper-bound`" in readme and "Corrected claim: `corrected-bound`" in readme
    assert "Counterexample:" in readme
    assert "- Typo, Section Appendix A (`subscript-typo`): gamma_0 for gamma_o" in readme or \
        "- Typo, Appendix A (`subscript-typo`): gamma_0 for gamma_o" in readme
    # --update-docs needs a complete run
    proc2, _ = _run(cli_env, d, tmp_path, "--update-docs", "--only", "square-expands")
    assert "ignored with --only" in proc2.stderr


def test_render_helpers():
    assert section_of("Section 2.3.1, Eq. (14), sentence") == "Section 2.3.1"
    assert section_of("Appendix B.2, display") == "Appendix B.2"
    assert section_of("Abstract, second paragraph") == "Abstract"
    assert format_counterexample({"type": "values differ", "point": {"x": "0.123456789"}, "lhs": "1.0"}) == \
        "values differ: at x = 0.123457; lhs = 1.0"
    assert replace_findings_block("no markers", "x") is None
    report = {"run": {"seed": 1, "samples": 10, "precision": 30}, "uncheckable": [], "claims": [
        {"id": "a|b", "title": "t", "ref": "Section 1", "kind": "identity", "source": "m.py",
         "expected": "holds", "status": "error", "as_expected": False, "message": "boom", "uses": [],
         "paper_error": False, "expected_reason": ""}]}
    inv = render_inventory(report)
    assert "a\\|b" in inv and "NOT AS EXPECTED" in inv
    assert "did not go as expected" in render_findings(report)


@pytest.mark.parametrize("bad", ['UNCHECKABLE = "x"'])
def test_uncheckable_not_a_list(write_modules, bad):
    d = write_modules({"m.py": f"CLAIMS = []\n{bad}\n"})
    assert any("UNCHECKABLE must be a list" in str(p) for p in load_derivations(d).problems)


def test_update_docs_never_replaces_a_readme_someone_wrote(tmp_path):
    from verify_claims.report.inventory import update_docs
    d = tmp_path / "mine"
    d.mkdir()
    (d / "README.md").write_text("# My derivations\n\nHand-written.\n")
    with pytest.raises(FileExistsError, match="not an inventory"):
        update_docs({"claims": [], "uncheckable": [], "run": {}}, d)
    assert (d / "README.md").read_text() == "# My derivations\n\nHand-written.\n"


def test_inventory_marks_narrowed_claims_beside_the_verdict():
    """A column beside the verdict and a count; a claim verified on the paper's domain has an
    empty cell, and a run without any narrowing prints no count."""
    claims = [
        {"id": "at-instances", "ref": "Section 2.1", "kind": "identity", "source": "m.py", "expected": "holds",
         "status": "proved", "as_expected": True,
         "narrowed": {"declared": True, "paper": "every G", "verified": "G = 3", "reason": "finite sums"}},
        {"id": "cut", "ref": "Section 2.1", "kind": "inequality", "source": "m.py", "expected": "holds",
         "status": "certified", "as_expected": True,
         "narrowed": {"declared": False, "paper": "", "verified": "x in (0, 10]", "reason": "not declared: ..."}},
        {"id": "full", "ref": "Section 2.1", "kind": "identity", "source": "m.py", "expected": "holds",
         "status": "proved", "as_expected": True, "narrowed": None},
    ]
    report = {"run": {"seed": 1, "samples": 10, "precision": 30}, "claims": claims, "uncheckable": []}
    inv = render_inventory(report)
    assert "2 claims are verified on a narrower domain than the paper states" in inv
    assert "1 of them do not declare it (**undeclared restriction**)" in inv
    rows = {line.split(" | ")[0]: line for line in inv.splitlines() if line.startswith("| `")}
    assert rows["| `at-instances`"].endswith("| holds | G = 3 (the paper: every G) | proved |")
    assert rows["| `cut`"].endswith("| holds | **undeclared restriction**: x in (0, 10] | certified |")
    assert rows["| `full`"].endswith("| holds |  | proved |")
    for c in claims:
        c["narrowed"] = None
    assert "narrower domain" not in render_inventory(report)
