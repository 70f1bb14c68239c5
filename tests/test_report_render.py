"""The proof report (issue 5): HTML and LaTeX/PDF rendered from the claims.json data.

One small derivations directory (tests/_report_fixtures.py) is verified by the real
command twice: the reports must show every claim, escape hostile text, show the failing
claim's counterexample in HTML and PDF, and be byte-identical apart from timing fields.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report_fixtures import HOSTILE, IN_CI, MODULE, need, run_cli, strip_timing  # noqa: E402

from verify_claims.report.html import render_html  # noqa: E402
from verify_claims.report.tex import latex_escape, render_latex  # noqa: E402
from verify_claims.report.view import prepare, safe_math  # noqa: E402

# its module-scoped fixture runs once: one xdist worker takes the whole module
pytestmark = pytest.mark.xdist_group("test_report_render")

IDS = ["square-expands", "square-drops-cross-term", "square-bound", "failing-claim"]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Two runs of verify-claims on the same inputs into two report directories."""
    from conftest import _pythonpath_env

    base = tmp_path_factory.mktemp("report")
    derivs = base / "derivs"
    derivs.mkdir()
    (derivs / "s9_tiny.py").write_text(MODULE, encoding="utf-8")
    env = _pythonpath_env()
    runs = []
    for name in ("r1", "r2"):
        proc = run_cli(derivs, base / name, env)
        runs.append((base / name, proc))
    return derivs, runs


def test_command_writes_every_report(reports):
    _, runs = reports
    rdir, proc = runs[0]
    assert proc.returncode == 1, proc.stdout + proc.stderr  # failing-claim is not as expected
    for name in ("claims.json", "report.html", "report.tex", "mathjax/tex-svg.js", "mathjax/LICENSE"):
        assert (rdir / name).is_file(), name
    assert f"report: {rdir / 'report.html'}" in proc.stdout
    if shutil.which("pdflatex"):
        assert (rdir / "report.pdf").is_file()
        assert f"report: {rdir / 'report.pdf'}" in proc.stdout
    else:
        assert "report.pdf NOT built: pdflatex is not installed" in proc.stdout
    # no temporary files left behind by the atomic writes
    assert not [p for p in rdir.rglob(".*") if p.is_file() and p.name != ".verify-claims.lock"]


def test_html_shows_every_claim_with_status_and_evidence(reports):
    _, runs = reports
    html = (runs[0][0] / "report.html").read_text(encoding="utf-8")
    data = json.loads((runs[0][0] / "claims.json").read_text(encoding="utf-8"))
    for c in data["claims"]:
        assert f'id="claim-{c["id"]}"' in html
        assert f'<tr data-status="{c["status"]}"' in html
    assert '<script src="mathjax/tex-svg.js"' in html  # relative: works from file://
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") \
        .replace('xmlns:xlink="http://www.w3.org/1999/xlink"', "").replace("http://www.w3.org", "")
    assert "https://" not in html
    # summary: counts, seed, precision, versions
    assert "20250221" in html and "30 significant digits" in html and "sympy" in html
    # filters by status and by section
    assert 'id="filter-status"' in html and 'id="filter-section"' in html
    assert '<option value="Appendix A.1">' in html and '<option value="Section 9.1">' in html
    # the paper-error finding, with its reason and the corrected claim it names
    findings = html[html.index('id="findings"'):html.index('id="figures"')]
    assert "square-drops-cross-term" in findings and "drops the cross term 2x" in findings
    assert 'href="#claim-square-expands"' in findings


def test_failing_claim_counterexample_in_html_and_tex(reports):
    _, runs = reports
    rdir = runs[0][0]
    data = json.loads((rdir / "claims.json").read_text(encoding="utf-8"))
    bad = next(c for c in data["claims"] if c["id"] == "failing-claim")
    assert bad["status"] == "refuted" and not bad["as_expected"]
    cx = bad["counterexample"]
    html = (rdir / "report.html").read_text(encoding="utf-8")
    art = html[html.index('id="claim-failing-claim"'):]
    art = art[:art.index("</article>")]
    assert "counterexample" in art and cx["type"] in art and str(cx["point"]["x"]) in art
    assert str(cx["lhs"]) in art and "Not as expected" in art
    tex = (rdir / "report.tex").read_text(encoding="utf-8")
    assert "values differ" in tex and re.sub(r"\\allowbreak\{\}", "", tex).count(str(cx["point"]["x"])) >= 1


def test_failing_claim_counterexample_in_pdf(reports):
    need("pdflatex")
    _, runs = reports
    rdir = runs[0][0]
    pdf = rdir / "report.pdf"
    assert pdf.is_file() and pdf.read_bytes().startswith(b"%PDF")
    data = json.loads((rdir / "claims.json").read_text(encoding="utf-8"))
    cx = next(c for c in data["claims"] if c["id"] == "failing-claim")["counterexample"]
    tool = shutil.which("pdftotext")
    if not tool:
        if IN_CI:
            pytest.fail("pdftotext (poppler-utils) is not installed; .ci/run installs it")
        pytest.skip("pdftotext not installed: the PDF compiled, its text is not checked")
    text = subprocess.run([tool, "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    flat = re.sub(r"\s+", "", text)
    assert "failing-claim" in flat and "valuesdiffer" in flat
    assert str(cx["point"]["x"]) in flat and str(cx["lhs"]) in flat
    assert "Figure9" in flat or "Squareroot" in flat


def test_same_inputs_same_bytes_apart_from_timing(reports):
    _, runs = reports
    (r1, _), (r2, _) = runs
    for name in ("report.html", "report.tex"):
        a = (r1 / name).read_text(encoding="utf-8")
        b = (r2 / name).read_text(encoding="utf-8")
        assert strip_timing(a) == strip_timing(b), name
        assert strip_timing(a) != a, f"{name}: no timing fields found to strip (the test would be vacuous)"
    graphs = sorted(p.relative_to(r1).as_posix() for p in (r1 / "figures").glob("_graphs.pdf"))
    assert graphs, "no section graph drawn"
    for fig in ["figures/fig-sqrt.pdf"] + graphs:
        assert (r1 / fig).read_bytes() == (r2 / fig).read_bytes(), fig


def test_latex_does_not_show_where_a_verdict_came_from(reports, tmp_path):
    """report.tex and findings.tex are kept in the store without the claims' origins
    (artifacts.stable_report keeps them as tokens), so that the first warm run after a search, whose claims
    say "from the store", does not render them again: that is sound only while the TeX does
    not show an origin.  Checked here on a real report: other origins, the same TeX."""
    import json

    from verify_claims.report.tex import render_latex

    _, runs = reports
    report = json.loads((runs[0][0] / "claims.json").read_text(encoding="utf-8"))
    assert {c.get("origin") for c in report["claims"]} - {None}, "no origins: the test would be vacuous"
    other = json.loads(json.dumps(report))
    for c in other["claims"]:
        c["origin"] = "replayed" if c.get("origin") == "store" else "store"
    other["run"]["store"] = {"origins": {"store": 99}, "replay_failures": [["x", "y"]]}
    for kw in ({}, {"findings_only": True}):
        assert render_latex(other, **kw) == render_latex(report, **kw)


def test_html_from_the_store_shows_this_runs_origins(reports, tmp_path):
    """report.html is kept in the store with each claim's origin as tokens
    (artifacts.stable_report), so the first warm run after a search, whose claims now say
    "from the store", takes the page from the store: what it writes must be exactly the
    page rendered afresh with those origins (labels, tooltips, the header's count), and
    taken from the store, not rendered again."""
    import json

    from verify_claims.report.html import write_html
    from verify_claims.run.store import Store

    _, runs = reports
    searched = json.loads((runs[0][0] / "claims.json").read_text(encoding="utf-8"))
    origins = ["searched", "replayed", "judged", "store", "an-unknown-origin"]
    for i, c in enumerate(searched["claims"]):
        c["origin"] = origins[i % len(origins)]
    warm = json.loads(json.dumps(searched))
    for c in warm["claims"]:
        c["origin"] = "store"
    warm["run"]["store"] = {"origins": {"store": len(warm["claims"])}, "snapshot": True}
    store = Store(tmp_path / "cache")
    write_html(searched, tmp_path / "first", cache=store)
    kept = sorted((tmp_path / "cache").rglob("*.json"))
    assert kept, "nothing kept in the store: the test would be vacuous"
    write_html(warm, tmp_path / "warm", cache=store)
    assert sorted((tmp_path / "cache").rglob("*.json")) == kept, \
        "the warm run's page was rendered again, not taken from the store"
    write_html(warm, tmp_path / "fresh", cache=None)
    page = (tmp_path / "warm" / "report.html").read_text(encoding="utf-8")
    assert page == (tmp_path / "fresh" / "report.html").read_text(encoding="utf-8")
    assert "VCRUN" not in page
    n = len(warm["claims"])
    assert page.count('title="from the proof store (unchanged since they were established)">from the store<') == n
    assert f"<td>verdicts</td><td>{n} from the proof store" in page
    first = (tmp_path / "first" / "report.html").read_text(encoding="utf-8")
    write_html(searched, tmp_path / "first-fresh", cache=None)
    assert first == (tmp_path / "first-fresh" / "report.html").read_text(encoding="utf-8")
    assert ">searched<" in first and ">an-unknown-origin<" in first and "VCRUN" not in first


def test_a_token_like_text_in_a_claim_is_left_as_written(tmp_path):
    """Only the report's own tokens are filled in: a title that looks like one stays."""
    from verify_claims.report.artifacts import cached_text

    text = cached_text(None, "x", {}, {"VCRUNORIGINLABEL1TOKEN": "<b>"},
                       None, lambda: "VCRUNORIGINLABEL1TOKEN VCRUNORIGINLABEL12TOKEN VCRUNXTOKEN",
                       lambda v: v.replace("<", "&lt;"))
    assert text == "&lt;b> VCRUNORIGINLABEL12TOKEN VCRUNXTOKEN"


def test_hostile_text_is_escaped_in_html_and_latex(reports):
    _, runs = reports
    rdir = runs[0][0]
    html = (rdir / "report.html").read_text(encoding="utf-8")
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; 100% $x_1$" in html
    assert "corrected in square-expands &lt;b&gt;" in html
    tex = (rdir / "report.tex").read_text(encoding="utf-8")
    assert r"\input{evil}" not in tex
    # titles and captions: everything escaped except a safe inline maths $x_1$, typeset as maths
    from verify_claims.report.tex import _rich
    assert _rich(HOSTILE) in tex and r"100\% $x_1$ \#1" in tex
    assert r"\textless{}script\textgreater{}alert(1)" in tex and r"\textbackslash{}input\{evil\}" in tex


def test_latex_escape_covers_specials_and_unicode():
    s = latex_escape("a_b & c% $d$ #e {f} ~g ^h \\i <j> β ∞ 中")
    assert s == (r"a\_b \& c\% \$d\$ \#e \{f\} \textasciitilde{}g \textasciicircum{}h \textbackslash{}i "
                 r"\textless{}j\textgreater{} \ensuremath{\beta} \ensuremath{\infty} [U+4E2D]")


def _report(**claim):
    base = {"id": "c1", "title": "t", "ref": "Section 1", "kind": "identity", "source": "m.py",
            "expected": "holds", "expected_reason": "", "paper_error": False, "status": "proved",
            "method": "m", "evidence": {}, "counterexample": None, "message": "", "uses": [],
            "seconds": 0.1, "statement": "x = x", "steps": None, "as_expected": True, "established": True}
    base.update(claim)
    return {"schema": "verify-claims/1", "run": {"seed": 1, "samples": 10, "precision": 30, "timeout": 1,
            "jobs": 1, "derivations": "d", "started": "s", "seconds": 1, "versions": {"verify_claims": "0"},
            "counts": {}, "claims": 1, "as_expected": 1, "not_as_expected": 0, "problems": 0, "exit_code": 0},
            "problems": [], "claims": [base], "figures": []}


def test_unsafe_math_is_never_typeset():
    evil = r"\href{javascript:alert(1)}{x} + \input{/etc/passwd}"
    assert not safe_math(evil) and safe_math(r"\frac{\beta}{\gamma} \leq 1")
    html = render_html(_report(statement=evil))
    art = html[html.index('id="claim-c1"'):]
    assert '<div class="stmt">' in art and "plain-math" in art  # shown as text, no "math" class
    tex = render_latex(_report(statement=evil))
    assert r"\input{/etc/passwd}" not in tex and r"\href{javascript" not in tex


def test_unknown_evidence_keys_are_rendered_escaped():
    rep = _report(evidence={"certificate": {"method": "interval boxes", "boxes": 128, "depth": 7,
                                            "seconds": 0.5, "weird<key>": "<i>v</i>"},
                            "numeric": {"verdict": "consistent", "points": 100}})
    html = render_html(rep)
    for s in ("interval boxes", "boxes", "128", "depth", "weird&lt;key&gt;", "&lt;i&gt;v&lt;/i&gt;"):
        assert s in html, s
    assert '<span class="timing">0.5</span>' in html
    tex = render_latex(rep)
    assert "interval boxes" in tex and r"weird\textless{}key\textgreater{}" in tex
    # certificate before numeric (known evidence first), order of the view is stable
    names = [e["name"] for e in prepare(rep)["claims"][0]["evidence_view"]]
    assert names == ["certificate", "numeric check"]  # in words


def test_chain_steps_each_with_verdict():
    rep = _report(kind="chain", statement=r"a \\ &= b", steps=[
        {"step": 0, "latex": "a", "because": "start", "relation": "", "status": "proved"},
        {"step": 1, "latex": "b", "because": "wrong <line>", "relation": "equals", "status": "refuted"}])
    html = render_html(rep)
    assert 'id="claim-c1-step-1"' in html and "wrong &lt;line&gt;" in html
    assert r"\begin{aligned}&amp;a \\ &amp;= b\end{aligned}" in html
    step1 = html[html.index('id="claim-c1-step-1"'):]
    assert '<span class="badge st-refuted">refuted</span>' in step1[:step1.index("</tr>")]
    tex = render_latex(rep)
    assert r"\badge{strefuted}{refuted}" in tex and r"\begin{aligned}&a \\ &= b\end{aligned}" in tex


def test_graph_marks_established_only_when_everything_used_is():
    from verify_claims.report.graph import foundations, graph_svg

    claims = [
        {"id": "base", "status": "proved", "uses": []},
        {"id": "spot", "status": "checked", "uses": []},
        {"id": "bad", "status": "refuted", "uses": []},
        {"id": "on-base", "status": "proved", "uses": ["base"]},
        {"id": "on-spot", "status": "certified", "uses": ["spot"]},
        {"id": "on-bad", "status": "proved", "uses": ["on-base", "bad"]},
        {"id": "on-missing", "status": "proved", "uses": ["ghost"]},
        {"id": "top", "status": "proved", "uses": ["on-bad"]},
    ]
    f = foundations(claims)
    assert f == {"base": "rigorous", "spot": "spot-checked", "bad": "not established", "on-base": "rigorous",
                 "on-spot": "spot-checked", "on-bad": "unfounded", "on-missing": "unfounded", "top": "unfounded"}
    svg = graph_svg(claims)
    assert svg.count("<a href=") == len(claims) and 'href="#claim-top"' in svg
    assert "ghost (not found)" in svg
    assert 'class="node status-proved foundation-unfounded" opacity="0.55"' in svg
    assert 'class="node status-proved foundation-rigorous"' in svg


def test_graph_escapes_labels():
    from verify_claims.report.graph import graph_svg

    svg = graph_svg([{"id": "a<b>&c", "status": "proved", "uses": ["x\"y"]}])
    assert "a<b>" not in svg and "a&lt;b&gt;&amp;c" in svg and "x&quot;y" in svg


def test_missing_pdflatex_is_said_plainly(tmp_path, cli_env):
    """With pdflatex off the PATH the command still writes report.tex and says why no PDF."""
    derivs = tmp_path / "d"
    derivs.mkdir()
    (derivs / "m.py").write_text("import sympy as sp\nfrom verify_claims import Identity, Ref\n"
                                 "x = sp.Symbol('x')\nCLAIMS = [Identity(id='a', title='t', ref=Ref('1'), "
                                 "lhs=x, rhs=x, domain={x: sp.Interval(0, 1)})]\n")
    env = dict(cli_env, PATH=str(Path(sys.executable).parent))
    proc = run_cli(derivs, tmp_path / "r", env)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r" / "report.tex").is_file() and not (tmp_path / "r" / "report.pdf").exists()
    assert "report.pdf NOT built: pdflatex is not installed" in proc.stdout
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "No figures declared in this run." in html


def test_latex_error_fails_loudly(tmp_path):
    need("pdflatex")
    from verify_claims.report.tex import LatexError, build_pdf

    tex = tmp_path / "report.tex"
    tex.write_text("\\documentclass{article}\\begin{document}\\undefinedcommandxyz\\end{document}\n")
    with pytest.raises(LatexError, match="Undefined control sequence"):
        build_pdf(tex)
    assert not (tmp_path / "report.pdf").exists()


def _pdf_objects(pdf: bytes) -> bytes:
    """The PDF's bytes with every Flate stream decompressed (pdflatex puts the catalog and
    the outline in compressed object streams)."""
    import zlib

    out = [pdf]
    for m in re.finditer(rb"stream\r?\n", pdf):
        try:
            out.append(zlib.decompressobj().decompress(pdf[m.end():]))
        except zlib.error:
            pass
    return b"\n".join(out)


def _typeset_twice(tex: Path, tmp: Path) -> tuple:
    """pdflatex run twice on a copy of tex (with its figures), as build_pdf runs it: the PDF
    and log of each run."""
    from verify_claims.report.tex import pdflatex

    work = tmp / "twice"
    work.mkdir()
    shutil.copy(tex, work / "report.tex")
    if (tex.parent / "figures").is_dir():
        shutil.copytree(tex.parent / "figures", work / "figures")
    env = {**os.environ, "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1"}
    out = []
    for _ in range(2):
        subprocess.run([pdflatex(), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "report.tex"],
                       cwd=work, env=env, capture_output=True, check=True)
        out.append(((work / "report.pdf").read_bytes(), (work / "report.log").read_text(errors="replace")))
    return out


def test_one_pdflatex_run_makes_the_final_pdf(reports, tmp_path, monkeypatch):
    """The template needs no second run (bookmark writes the outline in the first, every
    longtable column has a fixed width, nothing uses \\ref): a second run over the first
    run's .aux and .out gives the same bytes, and build_pdf stops after one."""
    need("pdflatex")
    import verify_claims.report.tex as tex

    rdir = reports[1][0][0]
    (pdf1, log1), (pdf2, log2) = _typeset_twice(rdir / "report.tex", tmp_path)
    assert not tex.asks_for_rerun(log1) and not tex.asks_for_rerun(log2)
    assert pdf1 == pdf2
    # the bookmarks, written in the one run: an /Outlines tree with an entry per section
    objects = _pdf_objects(pdf1)
    assert b"/Outlines" in objects and objects.count(b"/Title") >= 3, "report.pdf has no outline"
    assert (rdir / "report.pdf").read_bytes() == pdf1  # what the command published
    runs = []
    real = tex.subprocess.run
    monkeypatch.setattr(tex.subprocess, "run", lambda cmd, **kw: runs.append(cmd) or real(cmd, **kw))
    (tmp_path / "again").mkdir()
    shutil.copy(rdir / "report.tex", tmp_path / "again" / "report.tex")
    shutil.copytree(rdir / "figures", tmp_path / "again" / "figures")
    assert tex.build_pdf(tmp_path / "again" / "report.tex").read_bytes() == pdf1
    assert len(runs) == 1


def test_without_bookmark_the_outline_takes_a_second_run(reports, tmp_path, monkeypatch):
    """A TeX installation without bookmark.sty (the template loads it only if present): the
    outline comes from hyperref's .out, whose first run asks for a rerun, and gets it."""
    need("pdflatex")
    import verify_claims.report.tex as tex

    rdir = reports[1][0][0]
    source = (rdir / "report.tex").read_text(encoding="utf-8")
    assert source.count("\\IfFileExists{bookmark.sty}") == 1
    (tmp_path / "report.tex").write_text(source.replace("{bookmark.sty}", "{no-such-bookmark.sty}"), encoding="utf-8")
    shutil.copytree(rdir / "figures", tmp_path / "figures")
    runs = []
    real = tex.subprocess.run
    monkeypatch.setattr(tex.subprocess, "run", lambda cmd, **kw: runs.append(cmd) or real(cmd, **kw))
    objects = _pdf_objects(tex.build_pdf(tmp_path / "report.tex").read_bytes())
    assert len(runs) == 2 and b"/Outlines" in objects and objects.count(b"/Title") >= 3


def test_a_document_that_needs_a_second_run_gets_it(tmp_path):
    """A reference resolved only from the previous run's .aux: the log asks for a rerun, and
    build_pdf runs pdflatex again rather than publish "??"."""
    need("pdflatex")
    tool = shutil.which("pdftotext")
    if not tool:
        pytest.skip("pdftotext not installed")
    from verify_claims.report.tex import build_pdf

    tex = tmp_path / "report.tex"
    tex.write_text("\\documentclass{article}\\begin{document}See Section~\\ref{s}.\\section{Here}\\label{s}\\end{document}\n")
    pdf = build_pdf(tex)
    text = subprocess.run([tool, str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "See Section 1." in text and "??" not in text


def test_evidence_rows_in_words_only_fields_with_values():
    rep = _report(evidence={
        "certificate": {"method": "smt", "boxes": None, "depth": None, "goals": [], "detail": "z3 unsat",
                        "found": [{"goal": "d/dx > 0", "method": "smt"}]},
        "numeric": {"verdict": "consistent", "points": 100, "screened_in_floats": 97, "unresolved_points": 2,
                    "points_with_lost_digits": 3,
                    "screen": {"points": 100, "screened_in_floats": 90}},
        "trace": {"goal:positive#ab12": ["smt"], "goal:positive#cd34": ["smt"]}})
    view = {e["name"]: e for e in prepare(rep)["claims"][0]["evidence_view"]}
    cert = {r["label"]: r["value"] for r in view["certificate"]["rows"]}
    assert "interval boxes" not in cert and "subdivision depth" not in cert and "goals" not in cert
    assert cert["found"] == "goal d/dx > 0, method smt"           # a record in words, not JSON
    num = {r["label"]: r["value"] for r in view["numeric check"]["rows"]}
    assert num["checks cleared in machine floats"] == "97"
    assert num["float screen: checks cleared in machine floats"] == "90"
    # left undecided at every precision: not points "passed on to mpmath" (every point not
    # cleared in doubles is), which is what the row said before
    assert num["points left unresolved (unstable across precisions)"] == "2"
    assert num["points decided again past digits lost to cancellation"] == "3"
    assert "float screen: points evaluated" not in num            # the same as the full check's
    assert [r["value"] for r in view["replayable decisions"]["rows"]] == ["2"]
    html = render_html(rep)
    assert "boxes null" not in html and "null" not in html[html.index('id="claim-c1"'):]
    tex = render_latex(rep)
    assert "null" not in tex[tex.index("Claims}"):] and r"\textit{checks cleared in machine floats}" in tex


def test_undeclared_cut_domain_is_marked_beside_the_verdict(reports):
    """The fixture's claims live on x in (0, 10) without saying so: the guard marks those
    expected to hold (and established) as an undeclared restriction in JSON, HTML, TeX and the
    summary count, and leaves the expected refutations alone."""
    _, runs = reports
    rdir, proc = runs[0]
    data = json.loads((rdir / "claims.json").read_text(encoding="utf-8"))
    by = {c["id"]: c for c in data["claims"]}
    assert by["square-expands"]["narrowed"]["declared"] is False
    assert by["square-expands"]["narrowed"]["verified"] == "x in (0, 10)"
    assert by["square-drops-cross-term"]["narrowed"] is None  # expected refuted: nothing to declare
    assert data["run"]["narrowed"]["undeclared"] >= 2
    assert "square-expands" in data["run"]["narrowed"]["undeclared_ids"]
    assert "NOT DECLARED" in proc.stdout and "s9_tiny.py [square-expands]" in proc.stdout
    html = (rdir / "report.html").read_text(encoding="utf-8")
    art = html[html.index('id="claim-square-expands"'):]
    assert "narrower domain? not declared" in art[:art.index("</article>")]
    refuted = html[html.index('id="claim-square-drops-cross-term"'):]
    assert "badge narrowed" not in refuted[:refuted.index("</article>")]
    tex = (rdir / "report.tex").read_text(encoding="utf-8")
    assert r"\narrowbadge{narrower domain? not declared}" in tex


def test_declared_narrowing_rendered_and_escaped():
    evil = "<img src=x onerror=alert(1)> & 100% #1 \\input{evil}"
    report = _report(narrowed={"declared": True, "paper": "every $\\beta > 0$ " + evil, "verified": "beta = 1",
                               "reason": evil})
    report["run"]["narrowed"] = {"claims": 1, "declared": 1, "summaries": 0, "undeclared": 0, "ids": ["c1"],
                                 "undeclared_ids": []}
    html = render_html(report)
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt; &amp; 100%" in html
    assert '<span class="badge st-proved">proved</span><span class="badge narrowed"' in html
    assert "<b>1</b> claim verified on a narrower domain than the paper states (1 declared by the claim)" in html
    tex = render_latex(report)
    assert r"\textbackslash{}input\{evil\}" in tex and "\\input{evil}" not in tex
    assert r"the paper: every $\beta > 0$ \textless{}img" in tex
    # without a narrowing nothing is shown
    plain = render_html(_report())
    assert "badge narrowed" not in plain.split("</style>", 1)[1] and "narrower domain than the paper" not in plain
