"""The ``verify-claims`` command: verify derivations, print a summary, write claims.json.

Exit codes (documented in the README, in the spirit of pytest's):
  0  every claim came out as expected
  1  some claim did not (refuted, error, timeout, undecided), or a module/claim is broken
  2  usage error, or nothing to verify
  3  internal error of verify-claims itself
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from . import __version__
from .model.status import STATUSES, ExitCode
from .run.settings import Settings

# module-level names kept for scripts that imported them from here
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = (ExitCode.OK, ExitCode.FAILED, ExitCode.USAGE,
                                                   ExitCode.INTERNAL)

_COLOURS = {"proved": "32", "certified": "32", "checked": "36", "refuted": "31", "undecided": "33",
            "error": "35", "timeout": "35"}


def default_derivations() -> Path:
    """The bundled derivations: ./derivations if present, else the ones beside the source."""
    here = Path.cwd() / "derivations"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "derivations"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse exits 2 by itself; keep our wording and code
        self.print_usage(sys.stderr)
        print(f"verify-claims: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _positive_int(name, lo):
    def parse(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {s!r}")
        if v < lo:
            raise argparse.ArgumentTypeError(f"{name} must be at least {lo}, got {v}")
        return v
    return parse


def _positive_float(s):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"timeout must be a number of seconds, got {s!r}")
    if not v > 0:
        raise argparse.ArgumentTypeError(f"timeout must be positive, got {s}")
    return v


def build_parser() -> argparse.ArgumentParser:
    d = Settings()
    p = _Parser(prog="verify-claims",
                description="Verify the claims of derivation modules: proved, certified, checked or "
                            "refuted, with counterexamples. Writes REPORT_DIR/claims.json.")
    p.add_argument("--derivations", metavar="DIR", help="directory of derivation modules "
                   "(default: the bundled paper, ./derivations)")
    p.add_argument("--only", nargs="+", metavar="ID", help="verify only these claim ids")
    p.add_argument("--list", action="store_true", help="list the claims (id, reference, kind) and exit")
    p.add_argument("--seed", type=_positive_int("seed", 0), default=d.seed,
                   help=f"random seed of the numeric checks (default {d.seed})")
    p.add_argument("--samples", type=_positive_int("samples", 10), default=d.samples,
                   help=f"random domain points per claim (default {d.samples})")
    p.add_argument("--precision", type=_positive_int("precision", 15), default=d.precision,
                   help=f"significant digits of the numeric checks (default {d.precision})")
    p.add_argument("--timeout", type=_positive_float, default=d.timeout,
                   help=f"seconds per claim before it is stopped (default {d.timeout:g})")
    p.add_argument("--jobs", type=_positive_int("jobs", 1), default=None,
                   help="worker processes (default: number of CPUs)")
    p.add_argument("--report-dir", metavar="DIR", default="reports",
                   help="where claims.json is written (default reports/)")
    p.add_argument("--update-docs", action="store_true",
                   help="after the run, regenerate the claim inventory DIR/README.md and the block "
                        "between the 'findings' markers in DIR/../README.md from this run's results")
    p.add_argument("--no-html", action="store_true", help="do not write REPORT_DIR/report.html")
    p.add_argument("--no-pdf", action="store_true",
                   help="write REPORT_DIR/report.tex but do not compile report.pdf")
    p.add_argument("--no-latex", action="store_true", help="write neither report.tex nor report.pdf")
    p.add_argument("-q", "--quiet", action="store_true", help="print only problems, failures and the summary")
    p.add_argument("--no-color", action="store_true", help="no ANSI colours")
    p.add_argument("--version", action="version", version=f"verify-claims {__version__}")
    return p


def main(argv=None) -> int:
    try:
        return _main(argv)
    except SystemExit as exc:  # argparse: --help/--version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except _UsageError as exc:
        print(f"verify-claims: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `verify-claims --list | head`: the reader left, not our fault
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except KeyboardInterrupt:
        print("verify-claims: interrupted", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # pragma: no cover - a bug in verify-claims itself
        import traceback
        traceback.print_exc()
        print(f"verify-claims: internal error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    colour = sys.stdout.isatty() and not args.no_color and not os.environ.get("NO_COLOR")
    ddir = Path(args.derivations) if args.derivations else default_derivations()
    if not ddir.is_dir():
        raise _UsageError(f"derivations directory {ddir} does not exist "
                          "(pass --derivations DIR with your derivation modules)")
    from .report.schema import build_report, mark_established, write_json_atomic
    from .run.collect import load_derivations
    from .run.schedule import run_claims

    settings = Settings(seed=args.seed, samples=args.samples, precision=args.precision,
                        timeout=args.timeout)
    loaded = load_derivations(ddir, import_timeout=args.timeout)
    claims = loaded.claims
    if args.only:
        known = {c.id for c in claims}
        unknown = [i for i in args.only if i not in known]
        if unknown:
            hints = []
            for u in unknown:
                close = difflib.get_close_matches(u, known, n=3)
                hints.append(f"{u}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
            raise _UsageError("unknown claim id(s): " + "; ".join(hints)
                              + ". Run `verify-claims --list` to see the ids.")
        wanted = _with_summary_support(set(args.only), claims)
        claims = [c for c in claims if c.id in wanted]

    if args.list:
        return _list(loaded, claims)

    for p in loaded.problems:
        print(f"PROBLEM {p}", file=sys.stderr)
    if not claims and not loaded.problems:
        print(f"verify-claims: no claims found in {ddir} (a derivation module is a *.py file "
              "defining CLAIMS)", file=sys.stderr)
        return EXIT_USAGE

    jobs = args.jobs or os.cpu_count() or 1
    print(f"verify-claims {__version__}: {len(claims)} claims from {ddir} "
          f"(seed {settings.seed}, {settings.samples} samples, {settings.precision} digits, "
          f"timeout {settings.timeout:g} s, {jobs} jobs)")
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    width = max((len(c.id) for c in claims), default=10)

    def progress(res, done: int, total: int):
        bad = not res.as_expected
        if args.quiet and not bad:
            return
        tag = res.status.upper()
        if colour:
            tag = f"\033[{_COLOURS.get(res.status, '0')}m{tag:<9}\033[0m"
        else:
            tag = f"{tag:<9}"
        exp = ""
        if res.expected != "holds":
            exp = " (expected)" if res.as_expected else " (expected refuted)"
        flag = "" if not bad else "  <-- NOT AS EXPECTED"
        print(f"[{done:>{len(str(total))}}/{total}] {tag} {res.id:<{width}} {res.seconds:6.2f}s{exp}{flag}",
              flush=True)
        if not bad and res.status == "refuted" and res.expected_reason and not args.quiet:
            label = "paper error" if res.paper_error else "not in general"
            print(f"      {label}: {res.expected_reason}", flush=True)
        if bad and res.message:
            print(f"      {res.message}", flush=True)
        if bad and res.counterexample:
            print(f"      counterexample: {_one_line(res.counterexample)}", flush=True)

    results = run_claims(claims, settings, jobs=jobs, on_result=progress)
    seconds = time.perf_counter() - t0
    results += [_problem_result(p) for p in loaded.problems if p.claim]
    mark_established(results)
    failed = [r for r in results if not r.as_expected]
    file_problems = [p for p in loaded.problems if not p.claim]
    code = EXIT_FAILED if failed or file_problems else EXIT_OK
    figures, fig_note = _figures(loaded, args)
    if any(not f.get("agrees") for f in figures):
        code = EXIT_FAILED
    uncheckable = loaded.uncheckable if not args.only else [u for u in loaded.uncheckable
                                                            if u.id in set(args.only)]
    report = build_report(results, loaded.problems, settings, derivations=str(ddir), seconds=seconds,
                          exit_code=code, jobs=jobs, started=started, uncheckable=uncheckable,
                          figures=figures)
    out = write_json_atomic(report, Path(args.report_dir) / "claims.json")
    _summary(results, loaded.problems, seconds, settings, out, colour, report.get("certification"),
             len(uncheckable))
    if args.update_docs:
        _update_docs(report, ddir, complete=not args.only)
    return _write_reports(report, args, code, fig_note)


def _figures(loaded, args):
    """Compute the declared figures (not on --only runs: they are about the whole paper)."""
    from .report.figures import compute_figure

    if args.only:
        return [], "Figures are not computed on an --only run."
    out = []
    for f in loaded.figures:
        try:
            data = compute_figure(f)
        except Exception as exc:  # noqa: BLE001 - a broken figure is reported, not fatal
            data = {"id": f.id, "title": f.title, "ref": str(f.ref), "caption": f.caption, "source": f.source,
                    "uses": list(f.uses), "agrees": False, "curves": [], "max_abs_diff": float("nan"),
                    "tolerance": 0, "method": "", "closed_form": "", "stationarity": "", "seconds": 0,
                    "problems": [f"could not be computed: {type(exc).__name__}: {exc}"]}
        out.append(data)
        if not data["agrees"]:
            print(f"FIGURE {f.id} ({f.source}) does not agree with its stationarity condition: "
                  + "; ".join(data["problems"][:3]), file=sys.stderr)
    return out, ""


def _write_reports(report, args, code, fig_note) -> int:
    """report.html, report.tex, report.pdf beside claims.json, each written atomically."""
    rdir = Path(args.report_dir)
    if not args.no_html:
        from .report.html import write_html

        html = write_html(report, rdir, figures_note=fig_note)
        print(f"report: {html} (open {html.resolve().as_uri()} in a browser; works offline)")
    if args.no_latex:
        return code
    from .report.tex import LatexError, build_pdf, pdflatex, write_latex

    tex = write_latex(report, rdir, figures_note=fig_note)
    print(f"report: {tex}")
    if args.no_pdf:
        return code
    if not pdflatex():
        print("report: report.pdf NOT built: pdflatex is not installed (apt-get install texlive-latex-base "
              "texlive-latex-recommended texlive-fonts-recommended lmodern)")
        return code
    try:
        print(f"report: {build_pdf(tex)}")
    except LatexError as exc:
        print(f"verify-claims: error: the LaTeX report did not compile: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    return code


def _with_summary_support(wanted: set, claims) -> set:
    """--only on a summary also runs what it uses: its verdict is made of theirs."""
    by_id = {c.id: c for c in claims}
    todo = [i for i in wanted if by_id[i].kind == "summary"]
    while todo:
        for u in by_id[todo.pop()].uses:
            if u not in wanted and u in by_id:
                wanted.add(u)
                if by_id[u].kind == "summary":
                    todo.append(u)
    return wanted


def _update_docs(report: dict, ddir: Path, complete: bool) -> None:
    from .report.inventory import update_docs

    if not complete:
        print("--update-docs ignored with --only: the inventory is written from a complete run only",
              file=sys.stderr)
        return
    for path in update_docs(report, ddir):
        print(f"updated: {path}")


def _problem_result(p):
    from .model.result import Result
    return Result(id=p.claim, title="(malformed declaration)", ref="", kind="?", source=p.file,
                  expected="holds", expected_reason="", paper_error=False, status="error",
                  message=p.cause, as_expected=False)


def _one_line(d, limit=400):
    s = ", ".join(f"{k}={v}" for k, v in d.items())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _list(loaded, claims) -> int:
    if not claims and not loaded.uncheckable:
        for p in loaded.problems:
            print(f"PROBLEM {p}", file=sys.stderr)
        print("no claims", file=sys.stderr)
        return EXIT_USAGE
    rows = list(claims) + list(loaded.uncheckable)
    w = max(len(c.id) for c in rows)
    rw = max(len(str(c.ref)) for c in rows)
    for c in claims:
        exp = "" if c.expect.holds else "  [expected refuted]"
        print(f"{c.id:<{w}}  {str(c.ref):<{rw}}  {c.kind:<13} {c.source}{exp}")
    for u in loaded.uncheckable:
        print(f"{u.id:<{w}}  {str(u.ref):<{rw}}  {u.kind:<13} {u.source}  [{u.reason}]")
    listed = f" and {len(loaded.uncheckable)} statements listed as not checkable," if loaded.uncheckable else ""
    print(f"{len(claims)} claims{listed} in {len(loaded.modules)} modules")
    for p in loaded.problems:
        print(f"PROBLEM {p}", file=sys.stderr)
    return EXIT_FAILED if loaded.problems else EXIT_OK


def _summary(results, problems, seconds, settings, out, colour, cert=None, n_uncheckable=0):
    if cert and cert["claims"]:
        c = cert["counts"]
        print(f"inequality-like claims ({', '.join(cert['kinds'])}): {cert['claims']}: "
              + ", ".join(f"{n} {s}" for s, n in c.items() if n or s in ("proved", "certified", "checked", "undecided")))
        for item in cert["not_certified"]:
            print(f"  {item['status']}: {item['id']} -- {item['reason'][:200]}")
    counts = {s: sum(1 for r in results if r.status == s) for s in STATUSES}
    parts = [f"{n} {s}" for s, n in counts.items() if n]
    failed = [r for r in results if not r.as_expected]
    xfail = sum(1 for r in results if r.status == "refuted" and r.as_expected)
    if failed or any(not p.claim for p in problems):
        print("\nNot as expected:")
        for r in failed:
            print(f"  {r.id} ({r.source}): {r.status} but expected {r.expected}"
                  + (f" -- {r.message}" if r.message else ""))
        for p in problems:
            if not p.claim:
                print(f"  {p}")
    verdict = "FAILED" if failed or problems else "OK"
    line = (f"== {verdict}: {len(results)} claims: {', '.join(parts) or 'none'}"
            f"{f' ({xfail} refuted as expected)' if xfail else ''}; {len(failed)} not as expected"
            f"{f'; {n_uncheckable} statements not checkable (listed)' if n_uncheckable else ''}"
            f"{f', {len(problems)} problems' if problems else ''} in {seconds:.1f} s "
            f"(seed {settings.seed}) ==")
    if colour:
        line = f"\033[{'31' if verdict == 'FAILED' else '32'}m{line}\033[0m"
    print(line)
    print(f"report: {out}")
