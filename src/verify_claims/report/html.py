"""reports/report.html: the proof report a person reads, offline from file://.

Rendered with jinja2 (autoescaping on: nothing from a derivation can inject markup) from
the same dict that claims.json holds.  Mathematics is typeset in the browser by the
vendored MathJax 3 tex-svg component, copied next to the report; figures and the
dependency graph (one SVG per paper section) are inline SVG, and each claim's neighbourhood
is drawn by a small inline script from one laid-out JSON block, so the page needs no network
and no system program.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jinja2
import markupsafe

from .artifacts import cached, cached_text, drawing_input, stable_report
from .graph import graph_inputs, neighbourhoods_json, section_graphs_html
from ..atomic import write_text_atomic
from .view import display_latex, for_render, rich_text, safe_math, wrap_math

__all__ = ["render_html", "write_html", "write_text_atomic", "warm", "MATHJAX_DIR", "TEMPLATES"]

_HERE = Path(__file__).resolve().parent
TEMPLATES = _HERE / "templates"
MATHJAX_DIR = _HERE / "static" / "mathjax"
MATHJAX_REL = "mathjax/tex-svg.js"


@functools.cache
def _environment() -> jinja2.Environment:
    """One environment per process: it keeps its compiled templates."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["display"] = display_latex  # returns a plain str: still autoescaped
    env.filters["wrap"] = wrap_math
    env.filters["rich"] = rich_html
    return env


def warm() -> None:
    """Compile the page's template now, as the first rendering would (cli.py)."""
    _environment().get_template("report.html.j2")


def rich_html(text) -> markupsafe.Markup:
    """Text with inline maths: the text escaped, each safe $...$ as MathJax inline maths
    (escaped too: MathJax reads the text, so &lt; is still <)."""
    return markupsafe.Markup("".join(
        str(markupsafe.escape(part)) if kind == "text" else r"\(" + str(markupsafe.escape(part)) + r"\)"
        for kind, part in rich_text(text)))


def _figure_svg(f: dict, i: int) -> bytes:
    # imported here: matplotlib (a second or more of CPU), which a run answered from the
    # store (its figures' drawings too) never needs
    from .plots import figure_svg

    return figure_svg(f, id_prefix=f"fig{i + 1}-").encode()


def _figure_views(view: dict, cache=None) -> None:
    for i, f in enumerate(view["figures"]):
        f["svg"] = cached(cache, "figure svg", {"data": drawing_input(f), "prefix": i},
                          lambda f=f, i=i: _figure_svg(f, i)).decode() if f.get("curves") else ""
        f["closed_form_ok"] = safe_math(f.get("closed_form", ""))
        f["stationarity_ok"] = safe_math(f.get("stationarity", ""))
        f["npoints"] = sum(len(c.get("points", [])) for c in f.get("curves", []))
        f.setdefault("problems", [])
        f.setdefault("max_abs_diff", float("nan"))


def render_html(report: dict, *, mathjax_src: str = MATHJAX_REL, figures_note: str = "", cache=None,
                view=None) -> str:
    """The report as one HTML string (deterministic for the same data).  `cache`: the
    proof store, which keeps the drawn figures and graph by their input.  `view`: the
    report's prepared view (report.view.prepare), when the caller has it already."""
    view = for_render(view, report)
    _figure_views(view, cache)
    graphs = json.loads(cached(cache, "graph sections html", graph_inputs(view["claims"]), lambda: json.dumps(
        {"sections": section_graphs_html(view["claims"]), "nb": neighbourhoods_json(view["claims"])}).encode()))
    view["graph_sections"] = graphs["sections"]  # one SVG per paper section
    view["graph_json"] = graphs["nb"]  # every claim's neighbourhood, laid out (escaped for <script>)
    view["mathjax_src"] = mathjax_src
    view["figures_note"] = figures_note
    return _environment().get_template("report.html.j2").render(**view)


def _copy_atomic(src: Path, dst: Path) -> None:
    if dst.exists() and dst.stat().st_size == src.stat().st_size and dst.read_bytes() == src.read_bytes():
        return
    write_text_atomic(src.read_bytes(), dst, mode="wb")


def write_html(report: dict, report_dir, *, figures_note: str = "", cache=None, view=None) -> Path:
    """Write report_dir/report.html and the MathJax file it loads (report_dir/mathjax/).
    With `cache`, the page of a report that differs from one rendered before only in the
    run's start time and duration is taken from the store with those two filled in.
    `view`: the prepared view of stable_report(report)[0] (a dict or a view.Prepared)."""
    report_dir = Path(report_dir)
    mj = report_dir / "mathjax"
    mj.mkdir(parents=True, exist_ok=True)
    for name in ("tex-svg.js", "LICENSE", "ui/safe.js", "input/tex/extensions/html.js"):
        (mj / name).parent.mkdir(parents=True, exist_ok=True)
        _copy_atomic(MATHJAX_DIR / name, mj / name)
    stable, tokens = stable_report(report)
    text = cached_text(cache, "report html", stable, tokens, {"note": figures_note, "mathjax": MATHJAX_REL},
                       lambda: render_html(stable, figures_note=figures_note, cache=cache, view=view),
                       lambda v: str(markupsafe.escape(v)))
    return write_text_atomic(text, report_dir / "report.html")
