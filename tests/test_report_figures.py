"""The paper's Figures 1-3 as evidence: closed form against independent numeric roots of
the stationarity condition (declared in derivations/s2_3_1_binary_questions.py and s3_extensions.py), and a wrong closed form flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from verify_claims.figures import TOLERANCE, Curve, Figure
from verify_claims.report.figures import compute_figure, figure_svg
from verify_claims.run.collect import load_derivations
from verify_claims.report.html import render_html

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def paper_figures():
    loaded = load_derivations(ROOT / "derivations")
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
