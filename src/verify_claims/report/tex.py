"""reports/report.tex and reports/report.pdf: the same content as the HTML report.

The LaTeX template uses jinja2 with LaTeX-friendly delimiters (``(((var)))``,
``((* block *))``) and a ``finalize`` hook that escapes *every* value for LaTeX text
unless it is explicitly wrapped as :class:`TeX` (math from sympy.latex that passed
:func:`report_view.safe_math`, or markup built here).  So text from derivations (titles,
notes, reasons, counterexample values) can never inject LaTeX.

:func:`build_pdf` compiles with ``pdflatex -interaction=nonstopmode -halt-on-error
-no-shell-escape`` in a temporary directory (once: the template needs no second run; again
only when the log asks for it) and then moves report.pdf into place;
a LaTeX error raises :class:`LatexError` carrying the log excerpt.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import jinja2

from ..atomic import write_text_atomic
from ..children import die_with_parent
from .artifacts import cached, cached_text, drawing_input, stable_report
from .graph import GRAPHS_PDF, STATUS_COLOURS, graph_inputs, section_graphs_pdf
from .html import TEMPLATES
from .view import display_latex, for_render, rich_text, safe_math, wrap_math

__all__ = ["LatexError", "TeX", "build_pdf", "latex_escape", "pdflatex", "render_latex", "warm", "write_latex",
           "write_findings_latex"]


class TeX(str):
    """A string that is already LaTeX (not escaped again)."""


class LatexError(RuntimeError):
    """pdflatex failed: the message names the file and quotes the real error; `log` is the
    whole log (the CLI publishes it as report.log)."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(message)
        self.log = log


_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#",
    "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}", "<": r"\textless{}",
    ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}",
}
_MATH_CHARS = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "ζ": r"\zeta",
    "η": r"\eta", "θ": r"\theta", "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi",
    "π": r"\pi", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "φ": r"\phi", "χ": r"\chi", "ψ": r"\psi",
    "ω": r"\omega", "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta", "Λ": r"\Lambda", "Π": r"\Pi",
    "Σ": r"\Sigma", "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega", "≤": r"\leq", "≥": r"\geq", "≠": r"\neq",
    "≈": r"\approx", "∞": r"\infty", "→": r"\to", "←": r"\leftarrow", "⇒": r"\Rightarrow", "∈": r"\in",
    "∑": r"\sum", "∏": r"\prod", "√": r"\surd", "×": r"\times", "·": r"\cdot", "±": r"\pm", "−": "-",
    "∂": r"\partial", "∇": r"\nabla", "≻": r"\succ", "≺": r"\prec", "∣": r"\mid", "∀": r"\forall",
    "∃": r"\exists", "⊆": r"\subseteq", "∩": r"\cap", "∪": r"\cup", "′": r"\prime", "ℓ": r"\ell",
}
_TEXT_CHARS = {"–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "…": r"\ldots{}",
               "•": r"\textbullet{}", "✓": "[ok]", "✗": "[x]", "\u00a0": "~"}
_LONG_TOKEN = re.compile(r"\S{28,}")


# printable ASCII without a LaTeX special and without "--": already LaTeX text as it is
_PLAIN_TEXT = re.compile(r'(?:[ !\'-,.-;=?-\[\]`a-z]|-(?!-))*')


def latex_escape(value) -> str:
    """Plain text -> LaTeX text: specials escaped, Greek and math symbols in math mode,
    characters pdflatex cannot typeset written as U+XXXX (never an error)."""
    text = str(value)
    if _PLAIN_TEXT.fullmatch(text):
        return text  # most of a report (ids, numbers, words): nothing to replace
    out = []
    for i, ch in enumerate(text):
        if ch == "-" and text[i + 1:i + 2] == "-":  # --timeout, not an en dash (TeX's -- ligature)
            out.append("-{}")
        elif ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _MATH_CHARS:
            out.append(r"\ensuremath{" + _MATH_CHARS[ch] + "}")
        elif ch in _TEXT_CHARS:
            out.append(_TEXT_CHARS[ch])
        elif ch == "\n" or ord(ch) < 32 or ord(ch) == 127:
            out.append(" ")
        elif ord(ch) < 128 or 0xC0 <= ord(ch) <= 0xFF:  # ASCII and Latin-1 letters (T1 + utf8)
            out.append(ch)
        else:
            out.append(f"[U+{ord(ch):04X}]")
    return "".join(out)


def _tt(value) -> TeX:
    """Monospace text that may break inside long tokens (ids, numbers, vectors): after
    punctuation and at least every 16 characters."""
    pieces = []
    for part in re.split(r"(\s+)", str(value)):
        if len(part) < 12:
            pieces.append(latex_escape(part))
            continue
        run = 0
        for ch in part:
            pieces.append(latex_escape(ch))
            run += 1
            if ch in "-,._=/:;)]}" or run >= 16:
                pieces.append(r"\allowbreak{}")
                run = 0
    return TeX(r"\texttt{" + "".join(pieces) + "}")


LONG_MATH_CHARS = 1500  # beyond this a formula may be wider than TeX can measure
EXPANDED_LIMIT = 1000  # an expansion of named quantities longer than this is left to the HTML and JSON (it rarely fits a page)


def math_ascii(latex: str) -> str:
    """Maths with every character outside ASCII as a LaTeX command (a display form or
    symbol written with β): pdflatex's math mode cannot typeset it raw."""
    if latex.isascii():
        return latex
    return "".join(ch if ord(ch) < 128 else (" " + _MATH_CHARS[ch] + " " if ch in _MATH_CHARS
                                             else r"\text{[U+%04X]}" % ord(ch)) for ch in latex)


def _math(latex) -> TeX:
    """Display math from sympy.latex, or escaped monospace text when it is not safe."""
    latex = math_ascii(str(latex or ""))
    if not latex:
        return TeX(r"\emph{(no statement)}")
    if safe_math(latex):
        if len(latex) > LONG_MATH_CHARS:
            # measuring it in a box would exceed TeX's largest dimension (about 16000 pt):
            # typeset it straight into a ragged paragraph that breaks at relations/operators
            lines = [ln.replace("&", " ").strip() for ln in latex.split("\\\\")]
            return TeX("".join(r"\fitlong{" + ln + "}" for ln in lines if ln))
        shown = display_latex(wrap_math(latex))
        return TeX((r"\fitmath{" if shown != latex else r"\fitbreak{") + shown + "}")
    return _tt(latex)


def _inline_math(latex) -> TeX:
    latex = math_ascii(str(latex or ""))
    if latex and safe_math(latex):
        return TeX(r"\fitinline{" + latex + "}")
    return _tt(latex)


def _rich(text) -> TeX:
    """Text with inline maths ($...$ that is safe to typeset): the text escaped, the maths
    kept (written ASCII)."""
    return TeX("".join(latex_escape(part) if kind == "text" else "$" + math_ascii(part) + "$"
                       for kind, part in rich_text(text)))


def _finalize(v):
    if v is None:
        return ""
    if isinstance(v, TeX):
        return v
    return latex_escape(v)


@functools.cache
def _environment() -> jinja2.Environment:
    """One environment per process: it keeps its compiled templates."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False, finalize=_finalize,
        block_start_string="((*", block_end_string="*))", variable_start_string="(((",
        variable_end_string=")))", comment_start_string="((#", comment_end_string="#))",
        line_statement_prefix=None, trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update(tt=_tt, math=_math, imath=_inline_math, tex=TeX, e=latex_escape, anchor=anchor, rich=_rich)
    return env


def warm() -> None:
    """Compile the LaTeX template now, as the first rendering would (cli.py)."""
    _environment().get_template("report.tex.j2")


def anchor(cid) -> str:
    """A hyperref-safe anchor name for any id (claim ids are slugs; others are encoded)."""
    return re.sub(r"[^a-z0-9-]", lambda m: f"x{ord(m.group(0)):x}", str(cid))


def _colour_name(status: str) -> str:
    return "st" + re.sub(r"[^a-z]", "", status)


def render_latex(report: dict, *, figure_files: dict | None = None, graph_sections: list | None = None,
                 figures_note: str = "", findings_only: bool = False, view=None) -> str:
    """The report as a LaTeX document.  figure_files: figure id -> PDF path relative to
    the .tex file (figures without a file are described, not drawn).  findings_only: only
    what the verifier found in the paper (the short document for a referee report).  `view`:
    the report's prepared view (report.view.prepare), when the caller has it already."""
    view = for_render(view, report)
    for f in view["figures"]:
        f["file"] = (figure_files or {}).get(f["id"], "")
        f["npoints"] = sum(len(c.get("points", [])) for c in f.get("curves", []))
        f.setdefault("problems", [])
        f.setdefault("max_abs_diff", float("nan"))
    colours = [(_colour_name(s), c.lstrip("#").upper()) for s, c in STATUS_COLOURS.items()]
    view.update(graph_sections=graph_sections or [], figures_note=figures_note, colour_defs=colours,
                cname=_colour_name, findings_only=findings_only, expanded_limit=EXPANDED_LIMIT,
                long_math=LONG_MATH_CHARS)
    return _environment().get_template("report.tex.j2").render(**view)


def pdflatex() -> str | None:
    return shutil.which("pdflatex")


def write_latex(report: dict, report_dir, *, figures_note: str = "", cache=None, view=None) -> Path:
    """Write report_dir/report.tex and the figure PDFs it includes (report_dir/figures/).
    `cache`: the proof store, which keeps drawn figures by their input, and the text of a
    report that differs from one rendered before only in the run's start time and duration.
    `view`: the prepared view of stable_report(report)[0] (a dict or a view.Prepared)."""
    report_dir = Path(report_dir)
    figdir = report_dir / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    files = {}
    for f in report.get("figures") or []:
        if not f.get("curves"):
            continue
        name = f"figures/{f['id']}.pdf"
        pdf = cached(cache, "figure pdf", drawing_input(f), lambda f=f: _figure_pdf(f))
        write_text_atomic(pdf, report_dir / name, mode="wb")
        files[f["id"]] = name
    sections = []
    if report.get("claims"):  # one graph per paper section (a tall one cut into pages), drawn once per input
        graphs = json.loads(cached(cache, "graph section pdfs", graph_inputs(report["claims"]),
                                   lambda: section_graphs_pdf(report["claims"])))
        sections = graphs["sections"]
        if sections:
            write_text_atomic(base64.b64decode(graphs["pdf"]), report_dir / GRAPHS_PDF, mode="wb")
    stable, tokens = stable_report(report)
    text = cached_text(cache, "report tex", stable, tokens,
                       {"note": figures_note, "files": files, "graphs": sections},
                       lambda: render_latex(stable, figure_files=files, graph_sections=sections,
                                            figures_note=figures_note, view=view), latex_escape)
    return write_text_atomic(text, report_dir / "report.tex")


def write_findings_latex(report: dict, report_dir, *, cache=None, view=None) -> Path:
    """Write report_dir/findings.tex: the findings about the paper alone (no figures); from
    `cache` as write_latex."""
    stable, tokens = stable_report(report)
    text = cached_text(cache, "findings tex", stable, tokens, {},
                       lambda: render_latex(stable, findings_only=True, view=view), latex_escape)
    return write_text_atomic(text, Path(report_dir) / "findings.tex")


def _figure_pdf(f: dict) -> bytes:
    # imported here: matplotlib (a second or more of CPU), which a run answered from the
    # store (its figures' drawings too) never needs
    from .plots import figure_pdf

    return _pdf_bytes(lambda p: figure_pdf(f, p))


def _pdf_bytes(draw) -> bytes:
    """The bytes of a PDF that draw(path) writes."""
    with tempfile.TemporaryDirectory(prefix="verify-claims-fig-") as tmp:
        path = Path(tmp) / "figure.pdf"
        draw(path)
        return path.read_bytes()


def _log_excerpt(log: str, source: str = "", limit: int = 3) -> str:
    """The errors of a LaTeX log, each with the lines TeX printed after it up to its
    ``l.NNN`` context, and that line of the source; the log's tail when there is none."""
    lines = log.splitlines()
    src = source.splitlines()
    parts = []
    i = 0
    while i < len(lines) and len(parts) < limit:
        if not lines[i].startswith("!"):
            i += 1
            continue
        block = [lines[i]]
        j = i + 1
        while j < len(lines) and j < i + 12:
            block.append(lines[j])
            m = re.match(r"l\.(\d+)", lines[j])
            if m:
                n = int(m.group(1))
                if 0 < n <= len(src):
                    block.append(f"report.tex line {n}: {src[n - 1][:300]}")
                break
            j += 1
        parts.append("\n".join(block))
        i = j + 1
    if not parts:
        return "\n".join(lines[-25:])
    return "\n---\n".join(parts)


def build_pdf(tex_path, *, timeout: float = 180.0, cache=None) -> Path:
    """Compile tex_path (with the figures beside it) into report.pdf next to it.

    Once (again only if the log asks for a rerun), in a temporary directory; the PDF is
    moved into place only when every run succeeds.  Raises LatexError with the log excerpt on any LaTeX error,
    FileNotFoundError when pdflatex is not installed.  With `cache` (the proof store), a
    report.tex whose bytes and figures were typeset before gets that PDF again."""
    exe = pdflatex()
    if not exe:
        raise FileNotFoundError("pdflatex not found (install texlive-latex-base, texlive-latex-recommended, "
                                "texlive-fonts-recommended and lmodern)")
    tex_path = Path(tex_path).resolve()
    src_dir = tex_path.parent
    out = src_dir / tex_path.with_suffix(".pdf").name
    inputs = tex_path.read_bytes() + b"".join(p.name.encode() + p.read_bytes()
                                              for p in sorted((src_dir / "figures").glob("*.pdf")))
    pdf = cached(cache, "report pdf", inputs, lambda: _typeset(exe, tex_path, src_dir, timeout))
    write_text_atomic(pdf, out, mode="wb")
    return out


def _typeset(exe, tex_path, src_dir, timeout) -> bytes:
    # the working directory lives beside report.tex (the run's staging directory), so a
    # killed run's leftovers are removed with it
    with tempfile.TemporaryDirectory(prefix=".pdflatex-", dir=src_dir) as tmp:
        tmp = Path(tmp)
        shutil.copy2(tex_path, tmp / "report.tex")
        if (src_dir / "figures").is_dir():
            shutil.copytree(src_dir / "figures", tmp / "figures")
        env = dict(os.environ, openout_any="p", openin_any="p", SOURCE_DATE_EPOCH="0",
                   FORCE_SOURCE_DATE="1")
        for run in range(1, MAX_LATEX_RUNS + 1):
            try:
                proc = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                                       "report.tex"], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                      capture_output=True, text=True, errors="replace", timeout=timeout,
                                      preexec_fn=die_with_parent)
            except subprocess.TimeoutExpired:
                raise LatexError(f"pdflatex did not finish within {timeout:g} s on {tex_path.name}") from None
            log = (tmp / "report.log").read_text(errors="replace") if (tmp / "report.log").exists() \
                else proc.stdout
            if proc.returncode != 0 or not (tmp / "report.pdf").exists():
                raise LatexError(f"pdflatex failed on {tex_path.name} (run {run}, exit {proc.returncode}):\n"
                                 + _log_excerpt(log, tex_path.read_text(encoding="utf-8", errors="replace")),
                                 log)
            if not asks_for_rerun(log):
                break
        return (tmp / "report.pdf").read_bytes()


# The template needs one run (see its preamble: bookmark, fixed-width longtable columns, no
# \ref).  A run whose output depends on the previous run's .aux/.out says so in its log
# (LaTeX: "Rerun to get cross-references right", longtable: "Rerun LaTeX", rerunfilecheck:
# "Rerun to get outlines right"); only then is it typeset again, as latexmk would.
MAX_LATEX_RUNS = 3
_RERUN = re.compile(r"Rerun (?:to get|LaTeX)")


def asks_for_rerun(log: str) -> bool:
    """Does this pdflatex log ask for another run (its output read a stale .aux or .out)?"""
    return bool(_RERUN.search(log))
