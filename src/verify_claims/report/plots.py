"""A figure's data (``report/figures.py``'s :func:`compute_figure`) drawn for the reports.

matplotlib's object-oriented API (no pyplot, no global backend), with a fixed SVG hash salt
and no dates, so the same data give the same bytes.  Apart from the computing module: the
drawing needs neither sympy nor mpmath (about 0.6 s of CPU for every run that draws a
figure in the run's parent process).  A run that draws in a process beside its loading
(run/figures_beside.py) hands those drawings to the renderers (`provide`), which then
print them instead of drawing.
"""

from __future__ import annotations

import io
import json
import re

__all__ = ["figure_pdf", "figure_svg", "drawings", "drawn_key", "provide"]


_RC = {"svg.hashsalt": "verify-claims", "svg.fonttype": "path", "font.size": 10,
       "path.simplify": False}
_COLOURS = ["#1f4e99", "#c0392b", "#1e8449", "#b9770e", "#7d3c98", "#117a8b", "#555555"]
_REF_STYLES = [(0, (5, 2.5)), (0, (6, 2, 1.5, 2)), (0, (2, 1.5)), (0, (8, 2, 1.5, 2, 1.5, 2))]


def _draw(data: dict):
    import matplotlib
    from cycler import cycler
    from matplotlib.figure import Figure as MplFigure

    rc = dict(_RC)
    rc["axes.prop_cycle"] = cycler(color=_COLOURS)
    with matplotlib.rc_context(rc):
        fig = MplFigure(figsize=(5.2, 3.9))
        ax = fig.add_subplot(1, 1, 1)
        if data.get("diagonal"):  # y = x over the plotted range
            a, b = data.get("x_range") or (0, 1)
            ax.plot([a, b], [a, b], ls=":", lw=0.8, color="#999999", label="_nolegend_")
        for i, c in enumerate(data["curves"]):
            col = _COLOURS[i % len(_COLOURS)]
            # break the line where the closed form is undefined
            xs = [x for x, y in zip(c["x"], c["y"])]
            ys = [float("nan") if y is None else y for y in c["y"]]
            ax.plot(xs, ys, lw=1.5, color=col, label=c["label"])
            px = [p["x"] for p in c["points"] for _ in p["roots"]]
            py = [r for p in c["points"] for r in p["roots"]]
            ax.plot(px, py, ls="none", marker="o", ms=4.5, mfc="none", mec=col, mew=1.0,
                    label="_nolegend_")
        for i, r in enumerate(data.get("references") or []):
            ax.plot(r["x"], [float("nan") if y is None else y for y in r["y"]], lw=1.1, color="#222222",
                    ls=_REF_STYLES[i % len(_REF_STYLES)], label=r["label"])
        if any(c.get("numeric") for c in data["curves"]):  # the lines themselves are numeric roots
            ax.plot([], [], lw=1.5, color="#777777", label="solid lines: numerical roots (no closed form)")
        else:
            ax.plot([], [], ls="none", marker="o", mfc="none", mec="#333333", label="numeric root")
        xlo, xhi = data.get("x_range") or (0, 1)
        ylo, yhi = data.get("y_interval") or (0, 1)
        ax.set_xlim(xlo, xhi)
        ax.set_ylim(ylo, yhi + 0.02 * (yhi - ylo))
        ax.set_xlabel(data.get("x_label") or "x")
        ax.set_ylabel(data.get("y_label") or "y")
        ax.grid(True, lw=0.4, color="#dddddd")
        ax.legend(loc="lower right", fontsize=8, frameon=True)
        fig.tight_layout()
        return fig, rc


def _plain(data: dict) -> dict:
    """The same data with every label as literal text (no mathtext): the fallback when a
    declared label is not valid mathtext, so a bad label never loses the figure."""
    def lit(s):
        return str(s).replace("\\", "/").replace("$", r"\$").replace("^", r"\^").replace("_", r"\_")
    return {**data, "x_label": lit(data.get("x_label", "")), "y_label": lit(data.get("y_label", "")),
            "curves": [{**c, "label": lit(c["label"])} for c in data["curves"]],
            "references": [{**r, "label": lit(r["label"])} for r in data.get("references") or []]}


# The figures drawn in this process, by their data: the report's PDF and the HTML's SVG of a
# figure print one drawing (its layout, the labels' mathtext), not two.  A few only: a run
# prints each figure's two formats one after the other.
_DRAWN: dict = {}
_DRAWN_KEPT = 8


def _drawing(data: dict):
    key = json.dumps(data, sort_keys=True, default=str)
    got = _DRAWN.get(key)
    if got is None:
        got = _draw(data)
        if len(_DRAWN) >= _DRAWN_KEPT:
            _DRAWN.clear()
        _DRAWN[key] = got
    return got


def _render(data: dict, canvas_cls, target, metadata) -> None:
    import matplotlib

    for attempt in (data, None):
        d = attempt if attempt is not None else _plain(data)
        try:
            fig, rc = _drawing(d)  # tight_layout already parses the labels
            with matplotlib.rc_context(rc):
                canvas = canvas_cls(fig)
                printer = canvas.print_svg if hasattr(canvas, "print_svg") else canvas.print_pdf
                printer(target, metadata=metadata)
            return
        except ValueError:
            if attempt is None:
                raise
            if hasattr(target, "seek"):
                target.seek(0)
                target.truncate()


# What _draw reads of a figure's data: with matplotlib's defaults (a process where nothing
# else imported matplotlib: run/figures_beside.py draws only then), a drawing is a function
# of these alone, so they key the drawings made in another process (provide).
_DRAWN_FIELDS = ("diagonal", "x_range", "y_interval", "x_label", "y_label", "curves", "references")


def drawn_key(data: dict) -> str:
    """The key of `data`'s drawing in provide()."""
    return json.dumps({k: data.get(k) for k in _DRAWN_FIELDS}, sort_keys=True, default=str)


# Drawings made beside the run (run/figures_beside.py: in a process of their own while the
# derivations load), by drawn_key: the renderers print these instead of drawing again.
_PROVIDED: dict = {}


def drawings(data: dict, formats) -> dict:
    """The figure drawn in `formats` ("svg", "pdf"): {format: the renderer's raw output}
    (what figure_svg and figure_pdf print, before an SVG's ids are prefixed)."""
    out = {}
    if "svg" in formats:
        out["svg"] = _raw_svg(data)
    if "pdf" in formats:
        out["pdf"] = _raw_pdf(data)
    return out


def provide(drawn: dict) -> None:
    """Drawings made elsewhere ({drawn_key(data): drawings(data, ...)}), for figure_svg and
    figure_pdf of this process to print instead of drawing them again."""
    _PROVIDED.clear()
    _PROVIDED.update(drawn)


def _raw_svg(data: dict) -> str:
    got = _PROVIDED.get(drawn_key(data), {}).get("svg")
    if got is not None:
        return got
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    buf = io.StringIO()
    _render(data, FigureCanvasSVG, buf, {"Date": None})
    return buf.getvalue()


def _raw_pdf(data: dict) -> bytes:
    got = _PROVIDED.get(drawn_key(data), {}).get("pdf")
    if got is not None:
        return got
    from matplotlib.backends.backend_pdf import FigureCanvasPdf

    buf = io.BytesIO()
    _render(data, FigureCanvasPdf, buf, {"CreationDate": None, "ModDate": None})
    return buf.getvalue()


def figure_svg(data: dict, id_prefix: str = "") -> str:
    """The figure as an inline <svg> element (no XML prolog), ids prefixed so several
    figures can live in one HTML document without clashing."""
    svg = _raw_svg(data)
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    # matplotlib repeats every label in an XML comment (escaped); drop them: smaller, and no
    # derivation text reaches the inline SVG except as glyph outlines
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    if id_prefix:
        svg = re.sub(r'id="([^"]+)"', lambda m: f'id="{id_prefix}{m.group(1)}"', svg)
        svg = re.sub(r'url\(#([^)]+)\)', lambda m: f'url(#{id_prefix}{m.group(1)})', svg)
        svg = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{id_prefix}{m.group(1)}"', svg)
    return svg


def figure_pdf(data: dict, path) -> None:
    """The figure as a PDF file (for the LaTeX report), without creation dates."""
    from pathlib import Path

    Path(path).write_bytes(_raw_pdf(data))
