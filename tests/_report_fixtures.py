"""Shared set-up for the report tests: a small derivations directory verified once per
session by the real command (HTML, LaTeX and, when pdflatex is present, PDF)."""

from __future__ import annotations

import os
import re
from html import escape as html_escape
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

HOSTILE = r"<script>alert(1)</script> & 100% $x_1$ #1 ~ ^ \input{evil} {braces} β ≤ γ"

MODULE = textwrap.dedent(r'''
    """Section 9: a tiny paper for the report tests."""
    import sympy as sp
    from verify_claims import Chain, Identity, Inequality, Ref, Step, refuted
    from verify_claims.figures import Curve, Figure

    x = sp.Symbol("x", positive=True)
    y, c = sp.symbols("y c", positive=True)
    z = sp.Symbol(r"z_{\mathrm{a\,rather\,long\,subscript\,name}}", positive=True)
    D = {x: sp.Interval.open(0, 10)}
    HOSTILE = %r

    CLAIMS = [
        Identity(id="square-expands", title=HOSTILE, ref=Ref("9.1", "1"),
                 lhs=(x + 1) ** 2, rhs=x ** 2 + 2 * x + 1, domain=D, note=HOSTILE),
        Identity(id="square-drops-cross-term", title="The paper's expansion (drops 2x)",
                 ref=Ref("9.1", "2"), lhs=(x + 1) ** 2, rhs=x ** 2 + 1, domain=D,
                 expect=refuted("drops the cross term 2x; corrected in square-expands <b>")),
        Inequality(id="square-bound", title="(x+1)^2 > x^2", ref=Ref("9.2"), lhs=(x + 1) ** 2, op=">",
                   rhs=x ** 2, domain=D, uses=("square-expands",)),
        Identity(id="failing-claim", title="A claim that is simply false", ref=Ref("Appendix A.1", "7"),
                 lhs=x ** 3, rhs=x ** 3 + x / 1000, domain=D, uses=("square-bound",)),
        # a chain wrong at step 2: the steps after it are "not-reached" (own badge colour)
        Chain(id="chain-wrong-middle-step", title="A derivation with a wrong middle line", ref=Ref("9.3"),
              steps=[Step((x + 1) ** 2), Step(x ** 2 + 2 * x, because="expand (drops the 1)"),
                     Step(x * (x + 2), because="factor"), Step(x ** 2 + 2 * x, because="expand again")],
              domain=D, expect=refuted("the second line drops the constant 1")),
        # far wider than TeX can measure in a box (20000 pt > 16384 pt): must still compile.  Wide
        # by its long symbol rather than by its length: 100 terms a side, not 400, to evaluate
        Identity(id="very-wide-statement", title="A very long polynomial identity", ref=Ref("9.4"),
                 lhs=sp.Add(*[z ** k / (k + 1) for k in range(100)]),
                 rhs=sp.Add(*[z ** k / (k + 1) for k in range(100)]), domain={z: sp.Interval.open(0, 10)}),
    ]

    FIGURES = [
        Figure(id="fig-sqrt", title="Square root as the root of y^2 = c x", ref=Ref("9.2", None, "Figure 9"),
               caption="y = sqrt(c x) against x: " + HOSTILE, x=x, y=y, closed_form=sp.sqrt(c * x),
               stationarity=y ** 2 - c * x, curves=[Curve({c: sp.Rational(1, 2)}), Curve({c: 1})],
               x_label="$x$", y_label="$y$", uses=("square-expands", "no-such-claim")),
    ]
''') % HOSTILE

TIMING = [re.compile(r'<span class="timing">[^<]*</span>'), re.compile(r"\\timing\{(?:[^{}]|\{[^{}]*\})*\}")]


def strip_timing(text: str) -> str:
    for rx in TIMING:
        text = rx.sub("", text)
    return text


def need(program: str) -> str:
    """The program's path; in CI a missing program FAILS the test, locally it skips."""
    path = shutil.which(program)
    if path:
        return path
    msg = f"{program} is not installed (.ci/run installs it; apt-get install {program})"
    if IN_CI:
        pytest.fail(msg)
    pytest.skip(msg)


_WRAPPED = textwrap.dedent('''
    import json, sys
    from verify_claims.cli import main
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
    names = {m.split(".")[0] for m in sys.modules}
    plots = sys.modules.get("verify_claims.report.plots")
    if plots is not None and plots._PROVIDED:
        names.add("drawn-beside")  # the drawings came from the process beside the loading
    print("IMPORTED=" + json.dumps(sorted(names)))
''')


def parent_imports(tmp_path: Path, env: dict, derivs: Path, report_dir: Path, names, *extra) -> list:
    """Which of `names` (top-level packages) the run's own process imported: a run of the
    CLI in a wrapper that lists its modules at the end (--samples 20 --no-pdf -q, `extra`);
    the name "drawn-beside" when the run printed figures drawn beside its loading."""
    import json

    script = tmp_path / "wrapped.py"
    script.write_text(_WRAPPED, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script), "--derivations", str(derivs), "--report-dir",
                           str(report_dir), "--samples", "20", "--no-pdf", "-q", *extra],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0 and "IMPORTED=" in proc.stdout, proc.stdout + proc.stderr
    return sorted(set(json.loads(proc.stdout.rsplit("IMPORTED=", 1)[1])) & set(names))


def run_cli(derivs: Path, report_dir: Path, env: dict, *extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(derivs), "--jobs", "1",
                           "--report-dir", str(report_dir), "--no-color", *extra],
                          capture_output=True, text=True, env=env, timeout=600)


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser_dom(html_path: Path, shot: Path | None, profile: Path, query: str = "") -> str:
    """Open the report from file:// in headless Chromium, let MathJax finish (virtual
    time), return the typeset DOM and, when `shot` is given, save a screenshot (a second
    Chromium that typesets the page again: only where the picture itself is checked).
    `query`: appended to the URL (``?expanded=all`` typesets the written-out statements
    with the page)."""
    exe = chromium()
    if not exe:
        need("chromium")
    url = html_path.resolve().as_uri() + query
    common = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
              f"--user-data-dir={profile}", "--virtual-time-budget=60000"]
    dom = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True, timeout=300)
    assert dom.returncode == 0, dom.stderr[-2000:]
    if shot is not None:
        shotp = subprocess.run(common + ["--window-size=1280,1600", f"--screenshot={shot}", url],
                               capture_output=True, text=True, timeout=300)
        assert shotp.returncode == 0 and shot.is_file() and shot.stat().st_size > 10_000, shotp.stderr[-2000:]
    return dom.stdout


def expanded_open(dom: str) -> dict:
    """{claim id: is its written-out statement's <details> open} for every claim that has
    one (split by article: a regex across a whole paper's 50 MB DOM is slow)."""
    out = {}
    for art in dom.split("<article ")[1:]:
        m = re.match(r'class="[^"]*" id="claim-([^"]*)"', art)
        body = art[:art.index("</article>")]
        if m and '<details class="expanded"' in body:
            out[m.group(1)] = '<details class="expanded" open="">' in body
    return out


def assert_typeset_report(dom: str, claim_ids, figure_ids) -> None:
    """What a reader must see: math typeset without errors, every claim, figures, graph."""
    assert 'data-mathjax="done"' in dom, "MathJax did not finish typesetting: " + \
        (re.search(r'data-mathjax="[^"]*"', dom) or [""])[0]
    assert 'data-mathjax="failed' not in dom, re.search(r'data-mathjax="failed[^"]*"', dom).group(0)
    errors = re.findall(r'data-mjx-error="([^"]*)"', dom)
    assert not errors, f"MathJax errors: {errors[:5]}"
    body = re.sub(r"<style[^>]*>.*?</style>", "", dom, flags=re.S)  # MathJax's CSS names merror too
    # parse errors are merror nodes; undefined macros (MathJax's noundefined) are red text
    for bad in ('<g data-mml-node="merror"', '<mjx-merror', 'mathcolor="red"', 'data-mml-node="mtext" fill="red"'):
        i = body.find(bad)
        assert i < 0, f"MathJax error node {bad}: ...{body[max(0, i - 600):i + 200]}"
    assert dom.count("<mjx-container") >= len(claim_ids), "statements were not typeset"
    # a written-out statement is typeset when its <details> is opened (or with ?expanded=...)
    sections = list(re.finditer(r'<details class="expanded"( open="")?>.*?</details>', body, flags=re.S))
    assert len(sections) == body.count('class="expanded"'), "the written-out statements' markup changed"
    for m in sections:
        typeset, opened = "<mjx-container" in m.group(0), bool(m.group(1))
        maths = 'class="stmt math"' in m.group(0) or 'class="stmt lazy-math"' in m.group(0)
        assert typeset == (opened and maths), \
            "a written-out statement typeset while closed, or not typeset when open: " + m.group(0)[:300]
    for cid in claim_ids:
        assert f'id="claim-{cid}"' in dom, cid
    for fid in figure_ids:
        i = dom.index(f'id="figure-{fid}"')
        assert "<svg" in dom[i:dom.index("</figure>", i)], fid
    # the dependency graph: one drawing per section, every claim a node in exactly one of them
    g = dom.index('id="dependency-graph"')
    graph = dom[g:dom.index("</section>", g)]
    blocks = graph.split('<details class="graph-section"')[1:]
    assert blocks and all('<svg xmlns="http://www.w3.org/2000/svg" class="dep-graph"' in b for b in blocks)
    nodes = re.findall(r'<a href="#claim-([^"]*)" class="node [^"]*?(?<!stub)"', graph)
    assert sorted(nodes) == sorted(html_escape(c, quote=True) for c in claim_ids), "claims missing from the graph"
    # each claim's neighbourhood, drawn by the page's script from the laid-out data
    drawn = dict(re.findall(r'<details class="nbhd" data-claim="([^"]*)" open="" data-drawn="1">'
                            r'<summary>.*?</summary><div class="nbhd-svg">(<svg[^>]*>)', dom))
    wanted = re.findall(r'<details class="nbhd" data-claim="([^"]*)"', dom)
    assert set(drawn) == set(wanted), "a neighbourhood was not drawn"
    assert all('class="dep-graph nb"' in svg for svg in drawn.values())
