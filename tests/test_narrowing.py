"""No silent narrowing: a claim verified on a narrower domain than the paper states says so
(``narrowed=Narrowed(...)``), every report shows it next to the verdict and counts it, and
a guard flags a restriction that no claim declared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from verify_claims import DeclarationError, Identity, Inequality, Narrowed, Ref, refuted
from verify_claims.model.narrowing import narrowing_json, restriction_of, undeclared_restrictions
from verify_claims.report.inventory import render_inventory
from verify_claims.run.collect import load_derivations
from conftest import bundled_paper_loaded  # noqa: E402
from verify_claims.run.keys import declaration_key

# its module-scoped fixture runs once: one xdist worker takes the whole module
pytestmark = pytest.mark.xdist_group("test_narrowing")

ROOT = Path(__file__).resolve().parents[1]
x, beta, G = sp.symbols("x beta G", positive=True)
HOSTILE = r"<script>alert(1)</script> & 100% $\beta > 0$ #1 ~ ^ \input{evil} {braces}"


def _claim(**kw):
    base = dict(id="sq", title="t", ref=Ref("9"), lhs=(x + beta) ** 2, rhs=x ** 2 + 2 * x * beta + beta ** 2,
                domain={x: sp.Interval.open(0, sp.oo), beta: sp.FiniteSet(sp.Rational(1, 10), 1, 10)})
    base.update(kw)
    c = Identity(**base)
    c.source = "paper.py"
    return c


# ------------------------------------------------------------------ declaration
@pytest.mark.parametrize("field, value, words", [
    ("paper", "", "non-empty paper="), ("verified", "  ", "non-empty verified="),
    ("reason", "", "non-empty reason=")])
def test_empty_narrowed_fields_are_declaration_errors(field, value, words):
    kw = {"paper": "every beta > 0", "verified": "beta in {1/10, 1, 10}", "reason": "instances", field: value}
    c = _claim(narrowed=Narrowed(**kw))
    with pytest.raises(DeclarationError, match=rf"claim 'sq': narrowed= needs a {words}"):
        c.validate()


def test_narrowed_must_be_a_narrowed_and_paper_domain_must_name_a_restricted_symbol():
    with pytest.raises(DeclarationError, match="claim 'sq': narrowed= is a str; use verify_claims.Narrowed"):
        _claim(narrowed="beta only at three values").validate()
    with pytest.raises(DeclarationError, match="unknown key"):
        _claim(narrowed={"paper": "a", "verified": "b", "reason": "c", "extra": "d"}).validate()
    with pytest.raises(DeclarationError, match="paper_domain= names G, which is not a symbol of the claim's domain"):
        _claim(paper_domain={G: "groups of two"}).validate()
    with pytest.raises(DeclarationError, match=r"paper_domain\[beta\] needs a non-empty reason"):
        _claim(paper_domain={beta: " "}).validate()
    # naming a set that is no restriction is harmless (a copy with a widened domain stays valid)
    _claim(paper_domain={x: "the paper says x > 0"}).validate()
    # a dict with the three keys is accepted and becomes a Narrowed (stripped)
    c = _claim(narrowed={"paper": " every beta > 0 ", "verified": "three values", "reason": "instances"})
    c.validate()
    assert c.narrowed == Narrowed("every beta > 0", "three values", "instances")


def test_the_declaration_is_not_part_of_the_claims_key():
    """A verdict does not depend on it: declaring it re-verifies nothing, and committed
    certificates stay valid (the report takes the text from today's declaration)."""
    plain = _claim()
    declared = _claim(narrowed=Narrowed("every beta > 0", "three values", "instances"))
    own = _claim(paper_domain={beta: "the paper's three values"})
    assert declaration_key(plain) == declaration_key(declared) == declaration_key(own)
    assert declaration_key(plain) != declaration_key(_claim(domain={x: sp.Interval.open(0, sp.oo),
                                                                     beta: sp.FiniteSet(1, 10)}))


# ------------------------------------------------------------------ the guard
@pytest.mark.parametrize("st, flagged", [
    (sp.FiniteSet(1, 2), True), (sp.FiniteSet(0), True), (sp.Range(2, 41), True), (sp.Range(2, sp.oo), False),
    (sp.Interval.open(0, sp.oo), False), (sp.Interval(0, 1), False), (sp.Interval.Lopen(-1, 0), False),
    (sp.Interval(sp.Rational(1, 10), sp.Rational(9, 10)), True), (sp.Interval(2, sp.oo), True),
    (sp.Interval.Lopen(0, 10), True), (sp.Interval(-sp.oo, sp.oo), False)])
def test_what_the_guard_calls_a_restriction(st, flagged):
    assert (restriction_of(st) is not None) is flagged


def test_guard_flags_an_undeclared_instance_claim_and_accepts_a_declared_one():
    found = undeclared_restrictions(_claim())
    assert [s for s, _, _ in found] == ["beta"]
    n = narrowing_json(_claim())
    assert n["declared"] is False and n["verified"] == "beta in {1/10, 1, 10}"
    # the message names the file, the claim, the symbol and what to add
    for words in ("paper.py [sq]", "beta (only the values {1/10, 1, 10} (instances))", "narrowed=Narrowed(paper=",
                  'paper_domain={beta: "<where the paper restricts beta so>"}'):
        assert words in n["reason"]
    assert undeclared_restrictions(_claim(narrowed=Narrowed("every beta > 0", "three values", "instances"))) == []
    assert undeclared_restrictions(_claim(paper_domain={beta: "the paper's own three values"})) == []
    # a counterexample at an instance refutes a "for all": no declaration needed
    assert undeclared_restrictions(_claim(expect=refuted("fails at beta = 1"))) == []
    # a truncated interval is flagged; only the symbols not declared as the paper's own
    cut = _claim(domain={x: sp.Interval.Lopen(0, 10), beta: sp.FiniteSet(1)}, paper_domain={beta: "beta = 1 in the paper"})
    assert [s for s, _, _ in undeclared_restrictions(cut)] == ["x"]


def test_bundled_paper_declares_every_restriction_the_guard_sees():
    """Every claim of derivations/ expected to hold whose domain is instances or a cut
    interval declares narrowed= or paper_domain= (the guard cannot be bypassed silently:
    this test fails naming the file, the claim, the symbol and what to add)."""
    loaded = bundled_paper_loaded()
    assert not loaded.problems, loaded.problems
    missing = [narrowing_json(c)["reason"] for c in loaded.claims if undeclared_restrictions(c)]
    assert not missing, "\n".join(missing)
    # not vacuous: the bundled paper has such claims, and they are declared
    assert sum(1 for c in loaded.claims if c.narrowed is not None) >= 100
    assert any(c.paper_domain for c in loaded.claims)


# ------------------------------------------------------------------ the reports
MODULE = r'''
    """Section 9: a tiny paper with narrowed claims."""
    import sympy as sp
    from verify_claims import Identity, Inequality, Narrowed, Ref, Summary

    x = sp.Symbol("x", positive=True)
    beta = sp.Symbol("beta", positive=True)
    G = sp.Symbol("G", positive=True, integer=True)
    HOSTILE = %r
    POS = sp.Interval.open(0, sp.oo)

    CLAIMS = [
        Identity(id="square-at-instances", title="(x + beta)^2 expands", ref=Ref("9.1", "1"),
                 lhs=(x + beta) ** 2, rhs=x ** 2 + 2 * x * beta + beta ** 2,
                 domain={x: POS, beta: sp.FiniteSet(sp.Rational(1, 10), 1, 10)},
                 narrowed=Narrowed(paper="every $\\beta > 0$ " + HOSTILE, verified="beta in {1/10, 1, 10}",
                                   reason=REASON)),
        Identity(id="groups-of-two", title="a pair", ref=Ref("9.2"), lhs=G * x, rhs=2 * x,
                 domain={x: POS, G: sp.FiniteSet(2)}, paper_domain={G: "Section 9.2 treats groups of two"}),
        Inequality(id="undeclared-cut", title="x > 0 on a cut", ref=Ref("9.3"), lhs=x, op=">", rhs=0,
                   domain={x: sp.Interval.Lopen(0, 10)}),
        Identity(id="full-domain", title="x + x = 2x", ref=Ref("9.4"), lhs=x + x, rhs=2 * x, domain={x: POS}),
        Summary(id="summary-of-instances", title="the expansion", ref=Ref("9"),
                uses=("square-at-instances", "full-domain")),
        Summary(id="summary-full", title="doubling", ref=Ref("9"), uses=("full-domain",)),
    ]
'''


def _write(d: Path, reason: str) -> None:
    d.mkdir(exist_ok=True)
    import textwrap
    (d / "paper.py").write_text(textwrap.dedent(MODULE % HOSTILE).replace(
        'reason=REASON', f'reason={reason!r}'), encoding="utf-8")


def _run(cli_env, d, out, *extra):
    proc = subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(d), "--report-dir", str(out),
                           "--jobs", "1", "--samples", "20", "--no-pdf", *extra],
                          capture_output=True, text=True, env=cli_env, timeout=300)
    data = json.loads((out / "claims.json").read_text()) if (out / "claims.json").exists() else None
    return proc, data


@pytest.fixture(scope="module")
def narrowed_run(tmp_path_factory):
    from conftest import _pythonpath_env
    env = _pythonpath_env()
    base = tmp_path_factory.mktemp("narrow")
    d, out = base / "derivs", base / "out"
    _write(d, "only three instances have a closed form")
    cold = _run(env, d, out)
    warm = _run(env, d, out)  # nothing changed: the whole run from the store
    return env, d, out, cold, warm


def test_json_records_the_declaration_and_counts_it(narrowed_run):
    _, _, _, (proc, data), _ = narrowed_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by = {c["id"]: c for c in data["claims"]}
    n = by["square-at-instances"]["narrowed"]
    assert n == {"declared": True, "paper": "every $\\beta > 0$ " + HOSTILE, "verified": "beta in {1/10, 1, 10}",
                 "reason": "only three instances have a closed form"}
    assert by["square-at-instances"]["status"] == "proved"  # the status is unchanged: of the narrower statement
    assert by["groups-of-two"]["narrowed"] is None
    assert by["groups-of-two"]["paper_domain"] == {"G": {"set": "{2}", "reason": "Section 9.2 treats groups of two"}}
    assert by["undeclared-cut"]["narrowed"]["declared"] is False
    assert "undeclared-cut" in by["undeclared-cut"]["narrowed"]["reason"]
    assert by["full-domain"]["narrowed"] is None and by["summary-full"]["narrowed"] is None
    # a summary resting on a narrowed claim is not the paper's statement verified in full
    assert by["summary-of-instances"]["narrowed"]["rests_on"] == ["square-at-instances"]
    counts = data["run"]["narrowed"]
    assert counts["claims"] == 3 and counts["declared"] == 1 and counts["summaries"] == 1 and counts["undeclared"] == 1
    assert counts["ids"] == ["square-at-instances", "undeclared-cut", "summary-of-instances"]
    assert counts["undeclared_ids"] == ["undeclared-cut"]
    # the terminal summary counts them and warns about the undeclared one (file, claim, what to add)
    assert ("3 claims verified on a narrower domain than the paper states (1 declared by the claim, "
            "1 summary resting on such claims, 1 NOT DECLARED)") in proc.stdout
    warn = next(line for line in proc.stdout.splitlines() if "undeclared restriction" in line)
    assert "paper.py [undeclared-cut]" in warn and "x (the interval (0, 10], cut at 10)" in warn
    assert "narrowed=Narrowed(" in warn


def test_html_shows_it_next_to_the_verdict_escaped(narrowed_run):
    _, _, out, _, _ = narrowed_run
    html = (out / "report.html").read_text(encoding="utf-8")
    art = html[html.index('id="claim-square-at-instances"'):]
    art = art[:art.index("</article>")]
    head = art[:art.index("</div>")]
    assert '<span class="badge st-proved">proved</span><span class="badge narrowed"' in head
    assert "Verified on a narrower domain than the paper states" in art
    assert "the status <i>proved</i> is that of the narrower statement" in art
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in art
    assert "only three instances have a closed form" in art
    assert r"\(\beta &gt; 0\)" in art  # inline maths typeset, escaped
    cut = html[html.index('id="claim-undeclared-cut"'):]
    assert "narrower domain? not declared" in cut[:cut.index("</article>")]
    pair = html[html.index('id="claim-groups-of-two"'):]
    pair = pair[:pair.index("</article>")]
    assert "The paper's own domain (not a narrowing): <code>G</code> in {2}: Section 9.2 treats groups of two" in pair and "badge narrowed" not in pair
    full = html[html.index('id="claim-full-domain"'):]
    assert "badge narrowed" not in full[:full.index("</article>")]
    rests = html[html.index('id="claim-summary-of-instances"'):]
    assert 'rests on: <a href="#claim-square-at-instances"><code>square-at-instances</code></a>' in \
        rests[:rests.index("</article>")]
    summary = html[html.index('id="summary"'):html.index('id="claims-table"')]
    assert "<b>3</b> claims verified on a narrower domain than the paper states" in summary


def test_tex_shows_it_escaped(narrowed_run):
    _, _, out, _, _ = narrowed_run
    tex = (out / "report.tex").read_text(encoding="utf-8")
    assert r"\narrowbadge{narrower domain} \textbf{3} claims verified on a narrower domain" in tex
    sub = tex[tex.index(r"\hypertarget{claim-square-at-instances}"):]
    sub = sub[:sub.index(r"\subsection*", 10)]
    assert r"\badge{stproved}{proved} \narrowbadge{narrower domain}" in sub
    assert r"\raggedright\textbf{Verified on a narrower domain than the paper states} (the status proved" in sub
    assert r"\input{evil}" not in tex and r"\textbackslash{}input\{evil\}" in sub
    assert "only three instances have a closed form" in sub


def test_inventory_has_a_column_and_a_count(narrowed_run):
    _, _, _, (_, data), _ = narrowed_run
    inv = render_inventory(data)
    assert "3 claims are verified on a narrower domain than the paper states" in inv
    assert "1 of them do not declare it (**undeclared restriction**)" in inv
    assert "| Expected | Verified on less than the paper states | Verdict |" in inv
    row = next(line for line in inv.splitlines() if line.startswith("| `square-at-instances`"))
    assert row.endswith("| beta in {1/10, 1, 10} (the paper: every $\\\\beta > 0$ <script>alert(1)</script> & 100% "
                        "$\\\\beta > 0$ #1 ~ ^ \\\\input{evil} {braces}) | proved |")
    row = next(line for line in inv.splitlines() if line.startswith("| `undeclared-cut`"))
    assert "| **undeclared restriction**: x in (0, 10] |" in row
    row = next(line for line in inv.splitlines() if line.startswith("| `full-domain`"))
    assert row.endswith("| holds |  | proved |")


def test_a_warm_run_still_shows_the_restriction(narrowed_run):
    env, d, out, (_, cold), (proc, warm) = narrowed_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert warm["run"]["store"]["snapshot"] is True
    by = {c["id"]: c for c in warm["claims"]}
    assert by["square-at-instances"]["narrowed"] == {c["id"]: c for c in cold["claims"]}["square-at-instances"]["narrowed"]
    assert warm["run"]["narrowed"] == cold["run"]["narrowed"]
    assert "3 claims verified on a narrower domain" in proc.stdout
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Verified on a narrower domain than the paper states" in html


def test_editing_the_declaration_reuses_the_verdict_and_shows_the_new_text(narrowed_run, tmp_path):
    """The declaration is not in the key: the claim comes from the store, with today's text."""
    env, d, out, _, _ = narrowed_run
    d2 = tmp_path / "derivs"
    _write(d2, "the new reason")
    import shutil
    out2 = tmp_path / "out"
    shutil.copytree(out / ".verify-claims-cache", out2 / ".verify-claims-cache")
    proc, data = _run(env, d2, out2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by = {c["id"]: c for c in data["claims"]}
    assert by["square-at-instances"]["origin"] == "store"
    assert by["square-at-instances"]["narrowed"]["reason"] == "the new reason"
    assert "the new reason" in (out2 / "report.html").read_text(encoding="utf-8")


def test_junit_records_the_narrowing_as_a_property(narrowed_run):
    import xml.etree.ElementTree as ET

    from verify_claims.report.junit import render_junit
    _, _, _, (_, data), _ = narrowed_run
    root = ET.fromstring(render_junit(data))
    props = {case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
             for case in root.iter("testcase")}
    assert props["square-at-instances"]["narrowed"].startswith("verified: beta in {1/10, 1, 10}; the paper: every")
    assert props["undeclared-cut"]["narrowed"] == "undeclared restriction: x in (0, 10]"
    assert "narrowed" not in props["full-domain"]


def test_a_narrowed_correction_is_marked_in_the_findings():
    from verify_claims.report.html import render_html
    from verify_claims.report.tex import render_latex

    def claim(**kw):
        base = {"id": "c", "title": "t", "ref": "Section 1", "kind": "identity", "source": "m.py",
                "expected": "holds", "expected_reason": "", "paper_error": False, "status": "proved",
                "method": "m", "evidence": {}, "counterexample": None, "message": "", "uses": [], "seconds": 0.1,
                "statement": "x = x", "steps": None, "as_expected": True, "established": True}
        return {**base, **kw}

    paper = claim(id="paper-claim", expected="refuted", expected_reason="wrong", paper_error=True, status="refuted",
                  counterexample={"type": "values differ", "point": {"x": "1"}})
    fix = claim(id="corrected-claim", uses=["paper-claim"],
                narrowed={"declared": True, "paper": "any rewards", "verified": "deterministic rewards", "reason": "r"})
    report = {"schema": "verify-claims/1", "run": {"seed": 1, "samples": 10, "precision": 30, "timeout": 1, "jobs": 1,
              "derivations": "d", "started": "s", "seconds": 1, "versions": {}, "counts": {}, "claims": 2,
              "as_expected": 2, "not_as_expected": 0, "problems": 0, "exit_code": 0}, "problems": [],
              "claims": [paper, fix], "figures": []}
    html = render_html(report)
    found = html[html.index('id="findings"'):]
    found = found[:found.index("</section>")]
    assert '<code>corrected-claim</code></a> <span class="badge st-proved">proved</span> <span class="badge narrowed"' \
        in found
    tex = render_latex(report, findings_only=True)
    assert "{(}proved, on a narrower domain): t" in tex


def test_guard_flags_a_where_bound_on_one_symbol_but_not_a_coupling():
    y = sp.Symbol("y", positive=True)
    base = dict(id="w", title="t", ref=Ref("9"), lhs=x + y, op=">", rhs=0,
                domain={x: sp.Interval.open(0, sp.oo), y: sp.Interval.open(0, sp.oo)})
    cut = Inequality(**base, where=(x <= 10,))
    cut.source = "m.py"
    found = undeclared_restrictions(cut)
    assert [(s, text) for s, text, _ in found] == [("x", "x <= 10")]
    assert "the relation x <= 10 in `where`, cut at 10" in narrowing_json(cut)["reason"]
    for rel in (x + y < 1, x < 1, sp.Ne(x, 3), x ** 2 < 4):  # couplings, plain ends, not a linear bound
        assert undeclared_restrictions(Inequality(**base, where=(rel,))) == [], rel
    assert undeclared_restrictions(Inequality(**base, where=(x <= 10,), paper_domain={x: "x <= 10 in the paper"})) == []


def test_a_malformed_declaration_is_a_problem_naming_the_file_and_the_claim(write_modules):
    d = write_modules({"paper.py": '''
        import sympy as sp
        from verify_claims import Identity, Narrowed, Ref
        x = sp.Symbol("x", positive=True)
        CLAIMS = [Identity(id="empty-reason", title="t", ref=Ref("1"), lhs=x, rhs=x,
                           domain={x: sp.FiniteSet(1, 2)}, narrowed=Narrowed("every x > 0", "x in {1, 2}", " ")),
                  Identity(id="fine", title="t", ref=Ref("1"), lhs=x, rhs=x, domain={x: sp.FiniteSet(1, 2)},
                           paper_domain={x: "the paper's two cases"})]
    '''})
    loaded = load_derivations(d)
    assert [(p.file, p.claim) for p in loaded.problems] == [("paper.py", "empty-reason")]
    assert "narrowed= needs a non-empty reason=" in loaded.problems[0].cause
    assert [c.id for c in loaded.claims] == ["fine"]
