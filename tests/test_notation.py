"""The paper's notation in every output (issue: the report a reviewer reads).

A module's NOTATION gives symbols their display forms and names large quantities; a
claim's `display` is the paper's displayed form; titles carry inline maths.  Checked in
claims.json, HTML, LaTeX and the PDF's text, together with what must not change: the
claim's key (notation is description) and the verdicts.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report_fixtures import need, run_cli  # noqa: E402

from verify_claims import Identity, Notation, Ref  # noqa: E402
from verify_claims.model.notation import latex, math_safe_symbol  # noqa: E402
from verify_claims.report.tex import math_ascii, render_latex  # noqa: E402
from verify_claims.report.view import rich_text, wrap_math  # noqa: E402
from verify_claims.run.keys import declaration_key  # noqa: E402

# its module-scoped fixture runs once: one xdist worker takes the whole module
pytestmark = pytest.mark.xdist_group("test_notation")

MODULE = textwrap.dedent(r'''
    """Section 9: notation."""
    import sympy as sp
    from verify_claims import Identity, Inequality, Notation, Ref, refuted

    NOTATION = Notation()
    x = NOTATION.symbol("pi_a", r"\pi_\theta(a \mid q)", positive=True)
    r = NOTATION.symbol("ref_a", r"\pi_{\mathrm{ref}}(a \mid q)", positive=True)
    b = sp.Symbol("β", positive=True)     # a Unicode name, no display form
    KL = NOTATION.define(x * sp.log(x / r) + (1 - x) * sp.log((1 - x) / (1 - r)),
                        r"\mathrm{KL}(\pi_\theta \,\|\, \pi_{\mathrm{ref}})")
    U = {x: sp.Interval.open(0, 1), r: sp.Interval.open(0, 1)}

    CLAIMS = [
        Identity(id="kl-named", title=r"$\mathrm{KL}$ at $\pi_\theta = \pi_{\mathrm{ref}}$ written out",
                 ref=Ref("9.1", "1"), lhs=b * KL, rhs=b * KL, domain={**U, b: sp.Interval.open(0, sp.oo)},
                 display=r"\beta\, \mathrm{KL}(\pi_\theta \| \pi_{\mathrm{ref}}) = \beta\, \mathrm{KL}"),
        Inequality(id="kl-wrong-sign", title=r"The paper's $\mathrm{KL} \le 0$", ref=Ref("9.1", "2"),
                   lhs=KL, op="<=", rhs=0, domain=U,
                   expect=refuted(r"$\mathrm{KL} \ge 0$ (Gibbs); corrected in kl-named")),
        Identity(id="very-long-sum", title="A long polynomial identity", ref=Ref("9.2"),
                 lhs=sp.Add(*[x ** k / (k + 1) for k in range(60)]),
                 rhs=sp.Add(*[x ** k / (k + 1) for k in range(60)]), domain=U),
    ]
''')


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from conftest import _pythonpath_env
    base = tmp_path_factory.mktemp("notation")
    derivs = base / "derivs"
    derivs.mkdir()
    (derivs / "s9_notation.py").write_text(MODULE, encoding="utf-8")
    env = _pythonpath_env()
    proc = run_cli(derivs, base / "r", env, *([] if shutil.which("pdflatex") else ["--no-pdf"]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((base / "r" / "claims.json").read_text(encoding="utf-8"))
    return base, derivs, env, data


def _claim(data, cid):
    return next(c for c in data["claims"] if c["id"] == cid)


def test_symbols_print_in_the_papers_notation_everywhere(run):
    base, _, _, data = run
    c = _claim(data, "kl-named")
    assert c["status"] == "proved"
    # the named quantity is printed by its name, its expansion kept beside it
    assert r"\mathrm{KL}(\pi_\theta \,\|\, \pi_{\mathrm{ref}})" in c["statement"] and r"\log" not in c["statement"]
    assert r"\log" in c["expanded"] and r"\pi_\theta(a \mid q)" in c["expanded"] and "pi_{a}" not in c["expanded"]
    assert r"{\beta}" in c["statement"] and "β" not in c["statement"]  # Unicode name as a command
    assert c["symbols"] == {"pi_a": r"\pi_\theta(a \mid q)", "ref_a": r"\pi_{\mathrm{ref}}(a \mid q)"}
    assert c["display"].startswith(r"\beta\, \mathrm{KL}")
    html = (base / "r" / "report.html").read_text(encoding="utf-8")
    art = html[html.index('id="claim-kl-named"'):]
    art = art[:art.index("</article>")]
    assert "As the paper displays it" in art and "named quantities written out" in art
    assert r"\(\mathrm{KL}\)" in art  # the title's inline maths, typeset
    tex = (base / "r" / "report.tex").read_text(encoding="utf-8")
    assert r"$\mathrm{KL}$ at $\pi_\theta = \pi_{\mathrm{ref}}$" in tex
    assert "β" not in tex.split(r"\begin{document}")[1]
    # the refuted claim's counterexample is labelled in the paper's notation
    cx = _claim(data, "kl-wrong-sign")
    assert cx["status"] == "refuted" and cx["as_expected"]
    assert r"\pi_\theta(a \mid q)" in tex[tex.index("kl-wrong-sign"):]
    cxh = html[html.index('id="claim-kl-wrong-sign"'):]
    cxh = cxh[cxh.index('class="grid cx"'):cxh.index("</table>", cxh.index('class="grid cx"'))]
    assert r'<td class="math">\( \pi_\theta(a \mid q) \)</td>' in cxh and ">pi_a<" not in cxh


def test_display_forms_reach_the_pdf_text(run):
    need("pdflatex")
    base = run[0]
    tool = shutil.which("pdftotext") or pytest.skip("pdftotext not installed")
    text = subprocess.run([tool, str(base / "r" / "report.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    # pdftotext renders \pi_\theta(a | q) as "πθ (a | q)" (glyphs, spacing vary)
    flat = re.sub(r"\s+", "", text)
    assert "πθ(a|q)" in flat and "πref(a|q)" in flat and "KL(πθ" in flat
    assert "\n  pi_a" not in text  # no coordinate labelled by its engine name


def test_findings_pdf_holds_every_finding_and_nothing_else(run):
    need("pdflatex")
    base, _, _, data = run
    tool = shutil.which("pdftotext") or pytest.skip("pdftotext not installed")
    text = subprocess.run([tool, str(base / "r" / "findings.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    flat = re.sub(r"\s+", "", text)
    findings = [c["id"] for c in data["claims"] if c["expected"] == "refuted" and c["paper_error"]]
    assert findings == ["kl-wrong-sign"]
    assert "kl-wrong-sign" in flat and "Corrected" in flat and "kl-named" in flat  # the correction
    assert "very-long-sum" not in flat and "Summary" not in flat and "Dependencygraph" not in flat
    # the full report opens with the findings too
    full = subprocess.run([tool, str(base / "r" / "report.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert full.index("What the verifier found") < full.index("Summary")


def test_long_statement_stays_within_the_page(run):
    """pdflatex's log: no overfull line wider than a few points (a statement is never cut)."""
    exe = need("pdflatex")
    base = run[0]
    work = base / "tex"
    shutil.copytree(base / "r", work)
    proc = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "report.tex"],
                          cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    log = (work / "report.log").read_text(errors="replace")
    over = [float(m) for m in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    assert not [o for o in over if o > 5.0], over
    tex = (work / "report.tex").read_text(encoding="utf-8")
    assert r"\begin{aligned}" in tex[tex.index("very-long-sum"):]  # wrapped, not shrunk to a line


def test_notation_is_description_not_part_of_the_key():
    x = sp.Symbol("pi_a", positive=True)
    n = Notation()
    y = n.symbol("pi_a", r"\pi_\theta", positive=True)
    assert y == x
    plain = Identity(id="k", title="t", ref=Ref("1"), lhs=x + 1, rhs=1 + x, domain={x: sp.Interval.open(0, 1)})
    shown = Identity(id="k", title="t", ref=Ref("1"), lhs=y + 1, rhs=1 + y, domain={x: sp.Interval.open(0, 1)},
                     display=r"\pi_\theta + 1")
    shown.notation = n
    assert declaration_key(plain) == declaration_key(shown)
    assert shown.statements()[0] == r"\pi_\theta + 1 = \pi_\theta + 1"
    assert plain.statements()[0] == r"\pi_{a} + 1 = \pi_{a} + 1"


def test_the_notation_digest_follows_every_named_quantity():
    """The digest that says a stored statement is stale: the same for the same names of the
    same quantities (built again, or named in another order), another for another name or
    another quantity under the same name."""
    from verify_claims.run.session import notation_digest

    def claim(named):
        n = Notation()
        for e, tex in named:
            n.define(e, tex)
        c = Identity(id="k", title="t", ref=Ref("1"), lhs=a + 1, rhs=1 + a, domain={a: sp.Interval.open(0, 1)})
        c.notation = n
        return notation_digest(c)

    a, b = sp.symbols("a b", positive=True)
    def named():
        return [(a * sp.log(a / b) + (1 - a) * sp.log((1 - a) / (1 - b)), r"D(a \| b)"), (a - b, r"\delta")]
    kl = named()
    assert claim(kl) == claim(list(reversed(kl))) == claim(named())
    assert claim(kl) != claim([(sp.expand(kl[0][0]), kl[0][1]), kl[1]])  # another expression, same value
    assert claim(kl) != claim([kl[0], (a - b, r"\Delta")])
    assert claim(kl) != claim([kl[0], (a + b, r"\delta")])
    assert claim(kl) != claim([(kl[0][0].subs(b, 2 * b), kl[0][1]), kl[1]])


def test_a_changed_notation_re_renders_the_stored_statement(run, tmp_path):
    """Editing a display form re-verifies nothing (the verdicts come from the store) but
    the statement in claims.json follows the edit."""
    base, derivs, env, _ = run
    d2 = tmp_path / "derivs"
    shutil.copytree(derivs, d2)
    rdir = tmp_path / "r"
    assert run_cli(d2, rdir, env, "--no-latex").returncode == 0
    src = (d2 / "s9_notation.py").read_text(encoding="utf-8")
    (d2 / "s9_notation.py").write_text(src.replace(r'r"\pi_{\mathrm{ref}}(a \mid q)"', r'r"\rho_{a}"'),
                                       encoding="utf-8")
    proc = run_cli(d2, rdir, env, "--no-latex")
    assert proc.returncode == 0
    data = json.loads((rdir / "claims.json").read_text(encoding="utf-8"))
    c = _claim(data, "kl-named")
    assert c["origin"] == "store" and r"\rho_{a}" in c["expanded"] and r"\mathrm{ref}}(a" not in c["expanded"]


def test_named_quantity_printing():
    n = Notation()
    x = n.symbol("x", r"\xi")
    q = n.define(x ** 2 + 1, "Q")
    c = sp.Symbol("c")
    assert latex(c * q, n) == "c Q"              # a name is never bracketed as a sum
    assert latex(q ** 2, n) == "Q^{2}"
    rec = []
    assert latex(q + x, n, abbreviate=False, record=rec) == r"\xi^{2} + \xi + 1" and rec == []
    assert math_safe_symbol("β_1") == r"{\beta}_{1}" and math_safe_symbol("x") == "x"
    assert math_ascii("α ≤ β") == r" \alpha   \leq   \beta "


def test_inline_maths_only_when_safe():
    assert rich_text(r"at $\pi_\theta$ and \$5") == [("text", "at "), ("math", r"\pi_\theta"), ("text", r" and \$5")]
    assert rich_text(r"$\input{/etc/passwd}$") == [("text", r"$\input{/etc/passwd}$")]
    rep = {"claims": [{"id": "c", "title": r"$\input{x}$ <b>", "ref": "Section 1", "kind": "identity",
                       "status": "proved", "expected": "holds", "statement": "x", "source": "s.py", "message": "",
                       "expected_reason": "", "paper_error": False, "as_expected": True, "method": "m",
                       "seconds": 0.1, "uses": [], "evidence": {}, "counterexample": None, "steps": None}]}
    tex = render_latex(rep)
    assert r"\input{x}" not in tex and r"\textless{}b\textgreater{}" in tex


def test_wrap_breaks_only_at_top_level():
    s = " + ".join(f"x^{{{k}}}" for k in range(80)) + r" + \left(a + b\right)"
    w = wrap_math(s, width=40)
    assert w.startswith(r"\begin{aligned}&") and w.count(r"\\") >= 5
    for line in w[len(r"\begin{aligned}&"):-len(r"\end{aligned}")].split(r"\\"):
        assert line.count("{") == line.count("}") and line.count(r"\left") == line.count(r"\right")
    assert wrap_math(r"\frac{" + s + "}{2}", width=40) == r"\frac{" + s + "}{2}"  # nowhere to break


def test_command_line_options_keep_both_hyphens_in_latex():
    from verify_claims.report.tex import latex_escape
    assert latex_escape("raise --timeout") == "raise -{}-timeout"  # TeX would print an en dash
    assert latex_escape("1–2") == "1--2"                           # a real en dash stays one


def test_frozen_values_and_operands_are_shown():
    from verify_claims import Maximiser, Stationary
    x, o = sp.symbols("x o")
    m = Maximiser(id="m", title="t", ref=Ref("1"), objective=x * o - x ** 2, wrt=x, at={x: o / 2},
                  over={x: sp.Interval(0, 1)}, frozen={o: sp.Rational(1, 2)}, domain={o: sp.Interval(0, 1)})
    assert m.statement_latex().endswith(r"\ \text{with } o = \frac{1}{2} \text{ held}")
    s = Stationary(id="s", title="t", ref=Ref("1"), objective=x * o - x ** 2, wrt=x, at={x: o / 2},
                   frozen={o: x}, domain={})
    assert r"\partial_{x}\, \left(o x - x^{2}\right) = 0" in s.statement_latex()  # the whole sum differentiated
    assert r"o = x\ \text{(after differentiating)}" in s.statement_latex()


def test_every_coordinate_of_a_counterexample_in_notation():
    from verify_claims.report.view import _counterexample
    cx = {"type": "a feasible point does better", "point": {"b": "1"}, "claimed": {"pi_a": "0.5"},
          "better": {"pi_a": "0.1"}, "raw": {"point": {"b": "1.7"}, "better": {"pi_a": "0.07"}}}
    rows = {r["key"]: r for r in _counterexample(cx, {"pi_a": r"\pi_\theta", "b": r"\beta"})}
    assert rows["point.b"]["tex"] == r"\beta"
    assert rows["claimed.pi_a"]["tex"] == r"\text{claimed: }\pi_\theta"
    assert rows["raw.better.pi_a"]["tex"] == r"\text{before shrinking, better: }\pi_\theta"
    assert rows["raw.point.b"]["label"] == "before shrinking: b"


def test_subexpressions_printed_before_print_the_same_and_follow_the_notation():
    """model/notation.py keeps a subexpression's LaTeX on the notation (95 % of the bundled
    paper's printing repeated shared subexpressions).  What it gives must be what printing
    from scratch gives: the same text, the use of a name still recorded, a changed display
    form or name printed anew."""
    a, b = sp.symbols("a b", positive=True)
    big = sp.log(a / b) + sp.sqrt(a + b) ** 3 / (1 + a)
    notation = Notation()
    notation.display(a, r"\alpha_{\mathrm{x}}")
    first = latex(big * b + 1, notation)
    assert notation._printed and first == latex(big * b + 1, notation)
    assert latex(big - a, notation) == latex(big - a, Notation(notation))  # a fresh notation: nothing kept
    notation.display(a, r"\tilde a")
    assert r"\tilde a" in latex(big * b + 1, notation) and r"\alpha" not in latex(big * b + 1, notation)
    notation.define(big, r"\Phi")
    rec: list = []
    assert latex(big * b, notation, record=rec) == latex(big * b, Notation(notation)) and rec == [True]
    latex(sp.sin(big) * b, notation)
    rec2: list = []
    latex(sp.sin(big) * b, notation, record=rec2)  # printed before: the name's use is still recorded
    assert rec2 == [True]
    assert r"\Phi" not in latex(big * b, notation, abbreviate=False)


def test_symbols_print_in_the_notations_forms_without_a_walk_of_the_tree(monkeypatch):
    """latex() gives each symbol its notation form by name as it prints it (a bound index
    of a sum, a derivative's variable, a symbol inside a named expression written out),
    the same LaTeX as sympy's symbol_names filled from the expression's atoms, which it no
    longer collects first (a walk of the whole tree per statement)."""
    from sympy.printing.latex import LatexPrinter

    n = Notation()
    p, i, G = n.symbol("p", r"\pi(a)"), n.symbol("i", r"\iota"), n.symbol("G", r"\mathcal{G}")
    q, k = sp.Symbol("q"), sp.Symbol("k_2")
    named = n.define(p * (1 - p), r"\sigma^2")
    exprs = [sp.Sum(p ** i / sp.factorial(i), (i, 0, G)), sp.Derivative(p ** 2 * q, p),
             named + q * k, sp.log(p / (1 - p)) - sp.sqrt(G) * sp.Dummy("p")]
    reference = [LatexPrinter({"symbol_names": {s: n.symbols[s.name] for s in e.atoms(sp.Symbol)
                                                if s.name in n.symbols}}).doprint(e) for e in exprs[:2]]
    assert [latex(e, n) for e in exprs[:2]] == reference
    monkeypatch.setattr(sp.Basic, "atoms", lambda self, *types: (_ for _ in ()).throw(AssertionError("walked")))
    n._changed()  # nothing printed before: every subexpression printed again
    out = [latex(e, n) for e in exprs] + [latex(exprs[2], n, abbreviate=False)]
    assert out[:2] == reference
    assert r"\iota" in out[0] and r"\mathcal{G}" in out[0] and r"\pi(a)" in out[1]
    assert r"\sigma^2" in out[2] and "k_{2}" in out[2]
    assert r"\pi(a)" in out[3] and r"\mathcal{G}" in out[3] and r"\pi(a)" in out[4]
    assert latex(sp.MatrixSymbol("p", 2, 2), n) == "p"  # not a Symbol: its own name, as before
