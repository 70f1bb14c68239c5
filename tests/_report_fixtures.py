"""Shared set-up for the report tests: a small derivations directory verified once per
session by the real command (HTML, LaTeX and, when pdflatex is present, PDF)."""

from __future__ import annotations

import os
import re
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
    from verify_claims import Identity, Inequality, Ref, refuted
    from verify_claims.figures import Curve, Figure

    x = sp.Symbol("x", positive=True)
    y, c = sp.symbols("y c", positive=True)
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


def run_cli(derivs: Path, report_dir: Path, env: dict, *extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verify_claims", "--derivations", str(derivs), "--jobs", "1",
                           "--report-dir", str(report_dir), "--no-color", *extra],
                          capture_output=True, text=True, env=env, timeout=600)
