"""The paper's Figures 1-3 as evidence: closed form against independent numeric roots of
the stationarity condition (declared in derivations/s2_3_1_binary_questions.py and s3_extensions.py), and a wrong closed form flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from verify_claims.figures import TOLERANCE, Curve, Figure
from verify_claims.report.figures import compute_figure
from verify_claims.report.plots import figure_svg
from verify_claims.run.collect import load_derivations
from conftest import bundled_paper_loaded  # noqa: E402
from verify_claims.report.html import render_html

# its module-scoped fixture runs once: one xdist worker takes the whole module
pytestmark = pytest.mark.xdist_group("test_report_figures")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def paper_figures():
    loaded = bundled_paper_loaded()
    figs = {f.id: f for f in loaded.figures}
    assert {"fig-1-groups-of-two", "fig-2-large-groups", "fig-3-direct-kl"} <= set(figs), \
        [str(p) for p in loaded.problems]
    return figs


@pytest.mark.parametrize("fid", ["fig-1-groups-of-two", "fig-2-large-groups", "fig-3-direct-kl"])
def test_paper_figure_overlay_agrees_with_closed_form(paper_figures, fid):
    data = compute_figure(paper_figures[fid])
    assert data["agrees"], data["problems"]
    assert data["max_abs_diff"] < TOLERANCE
    for c in data["curves"]:
        assert len(c["points"]) == 10
        for p in c["points"]:
            assert len(p["roots"]) == 1, p  # exactly one stationary point in (0, 1)
            assert abs(p["roots"][0] - p["closed_form"]) < 1e-8
        assert all(y is None or 0 <= y <= 1 + 1e-12 for y in c["y"])
    svg = figure_svg(data, id_prefix="t-")
    assert svg.startswith("<svg") and "<metadata>" not in svg and 'id="t-' in svg


def test_wrong_closed_form_is_flagged(paper_figures):
    """Figure 1 with the sign under the square root flipped: the overlay disagrees."""
    good = paper_figures["fig-1-groups-of-two"]
    names = {str(v): v for v in good.closed_form.free_symbols}
    beta, gamma = names["beta"], names["gamma"]  # the module's own symbols
    pr = good.x
    wrong = (1 - beta / gamma + sp.sqrt((1 - beta / gamma) ** 2 - 4 * beta / gamma * pr)) / 2
    bad = Figure(id="fig-1-wrong", title=good.title, ref=good.ref, caption=good.caption, x=good.x, y=good.y,
                 closed_form=wrong, stationarity=good.stationarity, curves=good.curves,
                 x_label=good.x_label, y_label=good.y_label)
    bad.validate()
    data = compute_figure(bad)
    assert not data["agrees"]
    assert data["max_abs_diff"] > 1e-3
    assert any("differ by" in p or "undefined" in p for p in data["problems"])
    report = {"run": {"versions": {}}, "claims": [], "figures": [data]}
    html = render_html(report)
    assert "DISAGREES" in html and "differ by" in html


def test_stationarity_with_two_roots_is_flagged():
    x, y = sp.symbols("x y", positive=True)
    fig = Figure(id="two-roots", title="t", ref="Section 1", caption="c", x=x, y=y,
                 closed_form=sp.Rational(1, 4) + 0 * x, stationarity=(y - sp.Rational(1, 4)) * (y - sp.Rational(3, 4)),
                 curves=[Curve({})])
    fig.validate()
    data = compute_figure(fig)
    assert not data["agrees"] and any("2 roots" in p for p in data["problems"])
    # the closed form matches one of the roots exactly, yet the figure is not evidence
    assert data["max_abs_diff"] < 1e-20


def test_pole_is_not_a_root():
    x, y = sp.symbols("x y", positive=True)
    fig = Figure(id="pole", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=x,
                 stationarity=1 / (y - x), curves=[Curve({})])
    data = compute_figure(fig)
    assert not data["agrees"] and all(p["roots"] == [] for p in data["curves"][0]["points"])


def test_bad_figure_declarations_are_problems(write_modules):
    d = write_modules({"m.py": """
        import sympy as sp
        from verify_claims.figures import Figure, Curve
        x, y, b = sp.symbols("x y b")
        CLAIMS = []
        FIGURES = [
            Figure(id="Bad Id", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=x,
                   stationarity=y - x, curves=[Curve({})]),
            Figure(id="free-param", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=b * x,
                   stationarity=y - b * x, curves=[Curve({})]),
            "not a figure",
            Figure(id="ok", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=x,
                   stationarity=y - x, curves=[Curve({})]),
        ]
    """})
    loaded = load_derivations(d)
    assert [f.id for f in loaded.figures] == ["ok"]
    causes = " | ".join(str(p) for p in loaded.problems)
    assert "not a slug" in causes and "free symbols ['b']" in causes and "not a Figure" in causes


def test_figure_labels_cannot_inject_markup():
    data = {"curves": [{"label": "x --><script>alert(1)</script>", "x": [0, 1], "y": [0, 1], "points": []}],
            "x_label": "a</text><script>alert(2)</script>", "y_label": "$\\undefinedmacro$", "diagonal": True}
    svg = figure_svg(data, id_prefix="h-")
    assert "<script" not in svg and "alert" not in svg and "<!--" not in svg
    assert svg.count("<svg") == 1 and svg.rstrip().endswith("</svg>")


def test_disagreeing_figure_fails_the_run(write_modules, tmp_path, capsys):
    """A figure whose closed form does not solve its stationarity condition makes the exit
    code 1, is named on stderr, and the report says DISAGREES."""
    from verify_claims.cli import main

    d = write_modules({"m.py": """
        import sympy as sp
        from verify_claims import Identity, Ref
        from verify_claims.figures import Figure, Curve
        x, y = sp.symbols("x y", positive=True)
        CLAIMS = [Identity(id="a", title="t", ref=Ref("1"), lhs=x, rhs=x, domain={x: sp.Interval(0, 1)})]
        FIGURES = [Figure(id="wrong-sqrt", title="t", ref="Section 1", caption="c", x=x, y=y,
                          closed_form=x ** 2, stationarity=y ** 2 - x, curves=[Curve({})], uses=("a",))]
    """})
    code = main(["--derivations", str(d), "--report-dir", str(tmp_path / "r"), "--jobs", "1", "--no-latex"])
    err = capsys.readouterr().err
    assert code == 1 and "FIGURE wrong-sqrt" in err and "differ by" in err
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "DISAGREES" in html and 'href="#claim-a"' in html


# -- figures whose curves have no closed form (closed_form=None) ---------------------------

def _finite_g(paper_figures):
    fig = paper_figures["fig-finite-g-stationary"]
    names = {str(s): s for s in fig.stationarity.free_symbols | set(fig.curves[0].params)}
    return fig, names["G"], names["beta"]


def test_numeric_figure_is_drawn_and_labelled(paper_figures):
    """x_G of derivations/x1_finite_group_sizes.py: every curve point is the one root of (11)
    in (0, 1), the curves are ordered (14) = x_2 < x_3 < ... < x_64 < (15), and the figure says
    the curves are computed numerically, not a closed form."""
    from verify_claims.backends.instances import written_out
    from verify_claims.report.plots import _draw
    from verify_claims.report.tex import render_latex

    fig, G, beta = _finite_g(paper_figures)
    assert fig.numeric and fig.closed_form is None
    data = compute_figure(fig)
    assert data["agrees"], data["problems"]
    assert data["numeric"] and data["closed_form"] == "" and "computed numerically" in data["method"]
    curves = data["curves"]
    assert [c["label"] for c in curves] == [f"$G = {g}$" for g in (2, 3, 4, 8, 16, 64)]
    assert all(c["numeric"] and c["points"] == [] and None not in c["y"] for c in curves)
    assert data["nroots"] == sum(len(c["y"]) for c in curves)
    # the roots satisfy the equation: (11) written out at each G, evaluated at 30 digits
    for c in (curves[2], curves[-1]):
        F = written_out(fig.stationarity.subs({G: int(c["params"]["G"]), beta: sp.Rational(1, 2)}))
        for x, y in list(zip(c["x"], c["y"]))[::40]:
            assert abs(F.subs({fig.x: x, fig.y: y}).evalf(30)) < 1e-13
    refs = {r["label"]: r for r in data["references"]}
    r14, r15 = refs[r"(14), $\gamma = 1$"], refs["(15)"]
    assert r14["matches"] == 0 and r14["max_abs_diff"] < 1e-12   # x_2 is (14)
    for i, x in enumerate(curves[0]["x"]):
        if 0.01 < x < 0.99:
            col = [c["y"][i] for c in curves]
            assert abs(col[0] - r14["y"][i]) < 1e-12 and col == sorted(col) and col[-1] < r15["y"][i]
    # drawn: solid lines through the roots, dashed references, the legend says so
    mfig, _ = _draw(data)
    ax = mfig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "solid lines: numerical roots (no closed form)" in legend and "numeric root" not in legend
    assert r"(14), $\gamma = 1$" in legend and "(15)" in legend
    styles = {ln.get_label(): ln.get_linestyle() for ln in ax.get_lines()}
    assert styles["$G = 64$"] == "-" and styles["(15)"] == styles[r"(14), $\gamma = 1$"] == "--"
    assert figure_svg(data, id_prefix="n-").startswith("<svg")
    report = {"run": {"versions": {}}, "claims": [], "figures": [data]}
    html = render_html(report)
    assert "Computed numerically, not a closed form" in html and "Closed form:" not in html
    assert "max |closed form" not in html and "1206 curve points solved" in html
    tex = render_latex(report)
    assert "Computed numerically, not a closed form" in tex and "Closed form:" not in tex


def test_numeric_figure_wrong_reference_is_flagged(paper_figures):
    """A reference declared equal to the wrong curve -- (14) at beta against the curve of
    G = 3, whose stationary point is (14) at beta/sqrt(2) -- is flagged; the right one agrees."""
    from grpo_formulas.closed_forms import closed_form_g2
    from verify_claims.figures import Reference

    fig, G, beta = _finite_g(paper_figures)
    ref = fig.x

    def with_refs(*refs):
        f = Figure(id="finite-g-refs", title=fig.title, ref=fig.ref, caption=fig.caption, x=fig.x, y=fig.y,
                   closed_form=None, stationarity=fig.stationarity, curves=fig.curves[:2], references=list(refs))
        f.validate()
        return compute_figure(f)

    half = {beta: sp.Rational(1, 2)}
    right = with_refs(Reference(closed_form_g2(beta / sp.sqrt(2), 1, ref), "x3", half, matches=1))
    assert right["agrees"] and right["max_abs_diff"] < 1e-12
    wrong = with_refs(Reference(closed_form_g2(beta, 1, ref), "(14)", half, matches=1))
    assert not wrong["agrees"] and wrong["max_abs_diff"] > 0.1
    assert any("reference (14) and curve 2" in p and "differ by" in p for p in wrong["problems"])
    html = render_html({"run": {"versions": {}}, "claims": [], "figures": [wrong]})
    assert "DISAGREES" in html and "differ by" in html
    # the stationarity of the wrong G under a label: the G = 2 reference no longer matches
    shifted = Figure(id="finite-g-shifted", title="t", ref="x", caption="c", x=fig.x, y=fig.y, closed_form=None,
                     stationarity=fig.stationarity.subs(G, G + 1), curves=fig.curves[:1],
                     references=[Reference(closed_form_g2(beta, 1, ref), "(14)", half, matches=0)])
    shifted.validate()
    assert not compute_figure(shifted)["agrees"]


def test_numeric_figure_flags_several_roots_and_poles():
    x, y = sp.symbols("x y", positive=True)
    two = Figure(id="two", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
                 stationarity=(y - x / 4 - sp.Rational(1, 10)) * (y - sp.Rational(9, 10)), curves=[Curve({})])
    two.validate()
    data = compute_figure(two)
    assert not data["agrees"] and any("no single root" in p and "(2 roots)" in p for p in data["problems"])
    pole = Figure(id="pole-n", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
                  stationarity=1 / (y - x / 2 - sp.Rational(1, 4)), curves=[Curve({})])
    data = compute_figure(pole)
    assert not data["agrees"] and all(v is None for v in data["curves"][0]["y"])
    one = Figure(id="one", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
                 stationarity=y ** 2 - x, curves=[Curve({})])
    data = compute_figure(one)
    assert data["agrees"] and max(abs(r - xv ** 0.5) for xv, r in zip(data["curves"][0]["x"],
                                                                     data["curves"][0]["y"])) < 1e-15


def test_numeric_figure_declaration_errors(write_modules):
    from verify_claims.model.domain import DeclarationError

    x, y = sp.symbols("x y")
    with pytest.raises(DeclarationError, match="needs a stationarity condition.*closed_form=None"):
        Figure(id="no-eq", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
               stationarity=None, curves=[Curve({})]).validate()
    d = write_modules({"m.py": """
        import sympy as sp
        from verify_claims.figures import Figure, Curve, Reference
        x, y, b = sp.symbols("x y b")
        CLAIMS = []
        FIGURES = [
            Figure(id="no-eq", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
                   stationarity=None, curves=[Curve({})]),
            Figure(id="free-ref", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
                   stationarity=y - x, curves=[Curve({})], references=[Reference(b * x, "r")]),
            Figure(id="bad-match", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
                   stationarity=y - x, curves=[Curve({})], references=[Reference(x, "r", matches=1)]),
            Figure(id="ok-numeric", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=None,
                   stationarity=y - b * x, curves=[Curve({b: 1})], references=[Reference(x, "r", matches=0)]),
        ]
    """})
    loaded = load_derivations(d)
    assert [f.id for f in loaded.figures] == ["ok-numeric"]
    causes = " | ".join(str(p) for p in loaded.problems)
    assert "needs a stationarity condition" in causes and "free symbols ['b']" in causes
    assert "is not the index of a curve" in causes


# -- the overlay's root search --------------------------------------------------------------
def test_roots_found_to_the_digits_asked_and_a_pole_is_not_a_root():
    import mpmath
    from verify_claims.report.figures import _roots
    third = mpmath.mpf(1) / 3
    F = lambda t: (t - third) * (t - mpmath.mpf("0.7")) / (t - mpmath.mpf("0.55"))  # noqa: E731
    F_float = lambda t: (t - 1 / 3) * (t - 0.7) / (t - 0.55)  # noqa: E731
    for ff in (None, F_float):
        rs = _roots(F, 0, 1, 30, F_float=ff)
        assert len(rs) == 2, rs  # the sign change across the pole at 0.55 is rejected
        with mpmath.workdps(40):
            assert abs(rs[0] - third) < mpmath.mpf(10) ** -29
            assert abs(rs[1] - mpmath.mpf("0.7")) < mpmath.mpf(10) ** -29


def test_roots_scan_falls_back_to_mpmath_where_doubles_cancel():
    import mpmath
    from verify_claims.report.figures import _roots
    third = mpmath.mpf(1) / 3
    # in doubles 1e17 + t - 1e17 is 0 for every t in (0, 1): no sign change would be seen
    F_float = lambda t: (1e17 + t) - 1e17 - 1 / 3  # noqa: E731
    rs = _roots(lambda t: t - third, 0, 1, 30, F_float=F_float)
    assert len(rs) == 1 and abs(rs[0] - third) < mpmath.mpf(10) ** -29


def test_a_figure_is_drawn_from_the_store_when_only_its_timing_differs(paper_figures, tmp_path, monkeypatch):
    """How long computing a figure took differs from run to run and is not drawn: it must
    not make every run draw the figure again (an edit to one claim redrew every figure)."""
    import verify_claims.report.html as html
    import verify_claims.report.plots as plots
    import verify_claims.report.tex as tex

    drawn = []
    for name in ("figure_pdf", "figure_svg"):  # imported from plots.py when a figure is drawn
        real = getattr(plots, name)
        monkeypatch.setattr(plots, name, lambda *a, real=real, name=name, **k: drawn.append(name) or real(*a, **k))

    class Store:
        def __init__(self):
            self.kept = {}

        def cached(self, key, build):
            if key not in self.kept:
                self.kept[key] = build()
            return self.kept[key]

    store = Store()
    fig = compute_figure(paper_figures["fig-1-groups-of-two"])

    def render(f, sub):
        report = {"claims": [], "figures": [f], "run": {}}
        tex.write_latex(report, tmp_path / sub, cache=store)
        html._figure_views({"figures": [dict(f)]}, cache=store)

    render(fig, "a")
    assert drawn == ["figure_pdf", "figure_svg"]
    render({**fig, "seconds": fig["seconds"] + 1.5}, "b")
    assert drawn == ["figure_pdf", "figure_svg"]  # the same drawings, from the store
    render({**fig, "curves": [dict(fig["curves"][0], label="other")] + fig["curves"][1:]}, "c")
    assert drawn == ["figure_pdf", "figure_svg"] * 2  # a drawn difference: drawn again


def _sqrt_figure(**over):
    x, y = sp.symbols("x y", positive=True)
    b = sp.Symbol("b", positive=True)
    args = dict(id="root-curve", title="t", ref="Section 1", caption="c", x=x, y=y, closed_form=sp.sqrt(b * x),
                stationarity=y**2 - b * x, curves=[Curve({b: 1})], x_range=(0, 1), y_interval=(0, 2))
    args.update(over)
    fig = Figure(**args)
    fig.validate()
    return fig


def test_a_figure_is_taken_from_the_store_until_its_declaration_changes(tmp_path, monkeypatch):
    """An unchanged figure is not computed again; any change of its declaration (a curve's
    parameter, the caption, the reference's note) computes it afresh."""
    from verify_claims.model.claims import Ref
    from verify_claims.report import figures as computing
    from verify_claims.run.session import compute_figures
    from verify_claims.run.store import Store

    store = Store(tmp_path / "store")
    calls = []
    real = computing.compute_figure

    def counting(fig, **kw):
        calls.append(fig.id)
        return real(fig, **kw)
    monkeypatch.setattr(computing, "compute_figure", counting)
    first = compute_figures([_sqrt_figure()], store, "engine")
    assert calls == ["root-curve"] and first[0]["agrees"]
    again = compute_figures([_sqrt_figure()], store, "engine")
    assert calls == ["root-curve"] and again == first  # from the store, the same data
    b = sp.Symbol("b", positive=True)
    changed = compute_figures([_sqrt_figure(curves=[Curve({b: 2})])], store, "engine")
    assert len(calls) == 2 and changed[0]["curves"][0]["y"] != first[0]["curves"][0]["y"]
    assert compute_figures([_sqrt_figure(caption="other")], store, "engine")[0]["caption"] == "other"
    noted = compute_figures([_sqrt_figure(ref=Ref("1", note="after (3)"))], store, "engine")
    assert "after (3)" in noted[0]["ref"] and len(calls) == 4
    compute_figures([_sqrt_figure()], store, "other engine")  # another engine or settings
    assert len(calls) == 5
    compute_figures([_sqrt_figure()], None, "")  # without a store: computed every time
    assert len(calls) == 6
    compute_figures([_sqrt_figure()], store, "engine", reuse=False)  # --recheck: computed again
    assert len(calls) == 7


def test_the_pdf_and_the_svg_of_a_figure_print_one_drawing(tmp_path, monkeypatch):
    """report.tex's PDF and report.html's SVG of a figure come from one drawing (its layout
    and mathtext are most of a figure's cost), with the same bytes as two separate ones; a
    figure whose data differ is drawn anew."""
    import verify_claims.report.plots as plots

    data = compute_figure(_sqrt_figure())

    def both(d, name):
        plots.figure_pdf(d, tmp_path / f"{name}.pdf")
        return (tmp_path / f"{name}.pdf").read_bytes(), plots.figure_svg(d, id_prefix="s-")

    monkeypatch.setattr(plots, "_DRAWN", {})
    plots.figure_pdf(data, tmp_path / "alone.pdf")  # each format from a drawing of its own
    plots._DRAWN.clear()
    separate = ((tmp_path / "alone.pdf").read_bytes(), plots.figure_svg(data, id_prefix="s-"))
    drawn = []
    real = plots._draw
    monkeypatch.setattr(plots, "_draw", lambda d: drawn.append(d["id"]) or real(d))
    plots._DRAWN.clear()
    assert both(data, "shared") == separate and drawn == ["root-curve"]
    other = {**data, "curves": [dict(data["curves"][0], label="other")] + data["curves"][1:]}
    assert both(other, "other") != separate and drawn == ["root-curve"] * 2


def test_free_symbols_left_after_the_params_are_the_substitutions():
    # the loader skips the substitution only when no symbol could be left; otherwise it is made
    from verify_claims.model.figures import _left_free

    x, b, c = sp.symbols("x b c")
    assert _left_free(b * x + b ** 2, {b: sp.Integer(2)}, {x}) == set()
    assert _left_free(b * x + c, {b: sp.Integer(2)}, {x}) == {c}
    assert _left_free(x + c * b, {b: sp.Integer(0)}, {x}) == set()  # c is multiplied by 0: gone
    assert _left_free(b * x, {b: c + 1}, {x}) == {c}  # a value that is not a number brings its symbols
