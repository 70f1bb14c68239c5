"""The ``verify-claims`` command: verify derivations, print a summary, write claims.json.

Exit codes (documented in the README, in the spirit of pytest's): see ``ExitCode`` and
``_EXIT_TEXT``.  The verdict comes first: a report that fails to render gives its own code
only when every claim came out as expected.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from . import __version__
from .model.status import STATUSES, ExitCode
from .run.settings import Settings

# module-level names kept for scripts that imported them from here
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = (ExitCode.OK, ExitCode.FAILED, ExitCode.USAGE,
                                                   ExitCode.INTERNAL)

_COLOURS = {"proved": "32", "certified": "32", "checked": "36", "simulated": "34", "refuted": "31", "undecided": "33",
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


def _positive_int(name, lo, hi=None):
    def parse(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {s!r}")
        if v < lo:
            raise argparse.ArgumentTypeError(f"{name} must be at least {lo}, got {v}")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"{name} must be at most {hi}, got {v}")
        return v
    return parse


def _positive_float(s, what="timeout", unit="CPU seconds"):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number of seconds, got {s!r}")
    if not math.isfinite(v) or not 0 < v <= 1e6:
        raise argparse.ArgumentTypeError(f"{what} must be a positive, finite number of {unit}, got {s} "
                                         "(a claim that needs longer can be given a larger one)")
    return v


def _wall_seconds(s):
    return _positive_float(s, what="wall limit", unit="wall-clock seconds")


def _percent(s):
    try:
        v = float(s.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"the score must be a percentage between 0 and 100, got {s!r}")
    if not math.isfinite(v) or not 0 <= v <= 100:
        raise argparse.ArgumentTypeError(f"the score must be a percentage between 0 and 100, got {s}")
    return v


def _budget(s):
    return _positive_float(s, what="budget")


def build_parser() -> argparse.ArgumentParser:
    d = Settings()
    p = _Parser(prog="verify-claims", formatter_class=argparse.RawDescriptionHelpFormatter,
                description="Verify the claims of derivation modules: proved, certified, checked, "
                            "simulated (simulation claims) or refuted, with counterexamples. Writes "
                            "REPORT_DIR/claims.json and the report.\n"
                            "`verify-claims diff [OLD.json [NEW.json]]` says what changed between two runs "
                            "(`verify-claims diff -h`).\nDefaults can be set in pyproject.toml under "
                            "[tool.verify-claims] (see the README); options given here override them.",
                epilog="exit codes:\n" + "\n".join(f"  {c.value}  {_EXIT_TEXT[c]}" for c in ExitCode))
    p.add_argument("--derivations", metavar="DIR", help="directory of derivation modules "
                   "(default: the bundled paper, ./derivations)")
    sel = p.add_argument_group("choosing claims (together: only the claims every one of them chooses, "
                               "plus what a chosen summary uses)")
    sel.add_argument("--only", nargs="+", metavar="ID", help="verify only these claim ids")
    sel.add_argument("-k", dest="keyword", metavar="EXPRESSION",
                     help="verify only the claims matching the expression, as pytest -k: words matched "
                          "(case-insensitive substrings) against the id, kind, module and paper reference, "
                          "with and/or/not and parentheses; quote a phrase, e.g. -k 's3 and not limit' or "
                          "-k '\"Eq. (14)\"'")
    sel.add_argument("--lf", "--last-failed", dest="last_failed", action="store_true",
                     help="verify only the claims that were not as expected in the last run (from the proof "
                          "store); all claims when there were none")
    p.add_argument("-x", "--exitfirst", action="store_true",
                   help="stop at the first claim that is not as expected (claims not run are not reported)")
    p.add_argument("--list", action="store_true", help="list the claims (id, reference, kind) and exit")
    mut = p.add_argument_group("the gate tests itself (mutation score)")
    mut.add_argument("--mutate", action="store_true",
                     help="after verifying, make plausible mistakes in every established claim expected to hold "
                          "(a sign flipped, a term dropped, a constant changed, symbols swapped, a relation or a "
                          "direction reversed, the other root, a nearby maximiser) and report, per claim, module "
                          "and run, how many the gate kills: the mutation score, with every surviving mutant")
    mut.add_argument("--min-mutation-score", type=_percent, default=None, metavar="PERCENT",
                     help="fail (exit 1) when the mutation score is below PERCENT (implies --mutate)")
    p.add_argument("--seed", type=_positive_int("seed", 0), default=d.seed,
                   help=f"random seed of the numeric checks (default {d.seed})")
    p.add_argument("--samples", type=_positive_int("samples", 10, 100_000), default=d.samples,
                   help=f"random domain points per claim (default {d.samples})")
    p.add_argument("--precision", type=_positive_int("precision", 15, 10_000), default=d.precision,
                   help=f"significant digits of the numeric checks (default {d.precision})")
    p.add_argument("--timeout", type=_positive_float, default=d.timeout,
                   help=f"CPU seconds per claim before it is stopped (default {d.timeout:g}); the wall clock "
                        "is only a 10x safety net, so a loaded machine gives the same verdicts")
    p.add_argument("--wall-limit", type=_wall_seconds, default=d.wall_limit, metavar="SECONDS",
                   help="wall-clock seconds per claim, and per import of a derivation module, before it is "
                        "stopped even if it uses no CPU (it blocks, or waits on something); default 10 x "
                        "--timeout (for a claim at least --timeout + 20 s)")
    p.add_argument("--prover-budget", type=_budget, default=d.prover_budget, metavar="SECONDS",
                   help=f"CPU seconds of a claim's symbolic proof attempt (default {d.prover_budget:g}; at most "
                        "a third of --timeout)")
    p.add_argument("--certify-budget", type=_budget, default=d.certify_budget, metavar="SECONDS",
                   help=f"CPU seconds of a claim's certification: SMT, intervals (default {d.certify_budget:g}; "
                        "at most a third of --timeout)")
    p.add_argument("--jobs", type=_positive_int("jobs", 1, 1024), default=None,
                   help="worker processes (default: number of CPUs)")
    p.add_argument("--report-dir", metavar="DIR", default="reports",
                   help="where claims.json is written (default reports/)")
    p.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="the proof store: results kept by content, reused when nothing a verdict depends on "
                        "changed (default REPORT_DIR/.verify-claims-cache)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the proof store (verify everything)")
    p.add_argument("--cache-clear", action="store_true", help="empty the proof store first")
    p.add_argument("--recheck", action="store_true",
                   help="do not trust stored results: replay their certificates step by step (no search)")
    p.add_argument("--no-certificates", action="store_true",
                   help="ignore the certificates committed in DIR/certificates.json (with --no-cache: a run "
                        "from scratch)")
    p.add_argument("--update-certificates", action="store_true",
                   help="after the run, write DIR/certificates.json: per claim, the decisions that proved or "
                        "certified it (commit it; CI replays it instead of searching)")
    p.add_argument("--update-docs", action="store_true",
                   help="after the run, regenerate the claim inventory DIR/README.md and the block "
                        "between the 'findings' markers in DIR/../README.md from this run's results")
    p.add_argument("--no-html", action="store_true", help="do not write REPORT_DIR/report.html")
    p.add_argument("--no-pdf", action="store_true",
                   help="write REPORT_DIR/report.tex but do not compile report.pdf")
    p.add_argument("--no-latex", action="store_true", help="write neither report.tex nor report.pdf")
    p.add_argument("--json", metavar="PATH",
                   help="also write claims.json to PATH; '-' writes it to standard output (everything else then "
                        "goes to standard error)")
    p.add_argument("--junitxml", metavar="PATH",
                   help="write a JUnit XML file: one testcase per claim (a claim not as expected is a failure "
                        "with its counterexample; an expected refutation is a skipped xfail), statuses as "
                        "properties")
    p.add_argument("--config", metavar="PYPROJECT",
                   help="read [tool.verify-claims] from this file (default: the nearest pyproject.toml with "
                        "that table, from the working directory up)")
    p.add_argument("--durations", type=_positive_int("durations", 0), default=None, metavar="N",
                   help="after the summary, list the N claims that took the most CPU time in this run "
                        "(0: every one), split into the numbers, the proof and the certificate")
    p.add_argument("-q", "--quiet", action="store_true", help="print only problems, failures and the summary")
    p.add_argument("--no-color", action="store_true", help="no ANSI colours")
    p.add_argument("-V", "--version", action="version", version=f"verify-claims {__version__}")
    return p


def parse_args(argv):
    """The command line over the [tool.verify-claims] defaults of pyproject.toml."""
    from .config import ConfigError, load_config

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config")
    known, _ = pre.parse_known_args(argv)
    try:
        config = load_config(known.config)
    except ConfigError as exc:
        raise _UsageError(str(exc)) from None
    parser = build_parser()
    values = dict(config.values)
    if "pdf" in values:
        values["no_pdf"] = not values.pop("pdf")
    if "html" in values:
        values["no_html"] = not values.pop("html")
    parser.set_defaults(**values)
    args = parser.parse_args(argv)
    args.config_path = config.path
    return args


class _Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an exception so that every cleanup (staging directory, lock,
    child processes) runs as it does for Ctrl-C."""


def _on_sigterm(signum, frame):
    raise _Terminated()


# sympy keeps the results of its core operations (construction, assumptions, expansion) in
# LRU caches of SYMPY_CACHE_SIZE entries, 1000 by default, read once when sympy is imported.
# A paper's claims ask the same questions of shared subexpressions again and again, and a
# worker verifies many claims: measured on the bundled paper (2026-11-28, two interleaved
# pairs each), from scratch 91.6 / 91.4 s -> 82.5 / 84.5 s of CPU and a fresh clone about 5 %
# less, for about 20 MB more at the peak.  The values cached do not depend on the size, so
# no verdict does.  A user's own SYMPY_CACHE_SIZE wins.
SYMPY_CACHE_ENTRIES = "30000"


def _size_sympy_cache() -> None:
    """SYMPY_CACHE_SIZE for this process and its workers, if sympy is not imported yet (an
    in-process caller that imported it keeps its own caches as they are)."""
    if "sympy" not in sys.modules:
        os.environ.setdefault("SYMPY_CACHE_SIZE", SYMPY_CACHE_ENTRIES)


def main(argv=None) -> int:
    _size_sympy_cache()
    old = None
    if threading.current_thread() is threading.main_thread():
        old = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _run_main(argv)
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)


def console_main() -> int:
    """The `verify-claims` command (and `python -m verify_claims`): main(), then exit with
    its code.  A Ctrl-C or SIGTERM that lands while the interpreter shuts down, after the
    outcome is settled and the report published, no longer turns that code into a death
    by signal."""
    try:
        code = main()
    except KeyboardInterrupt:  # a second Ctrl-C while the first one was being handled
        import traceback
        print("verify-claims: interrupted again while stopping", file=sys.stderr)
        if os.environ.get("VERIFY_CLAIMS_DEBUG"):
            traceback.print_exc()
        code = ExitCode.INTERRUPTED
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
    if code == ExitCode.INTERRUPTED:
        # CPython remembers a KeyboardInterrupt that was raised inside a C extension's
        # PyRun_String (pybind11's exec, met while matplotlib is imported) even though it was
        # caught, and at exit kills the process with SIGINT instead of exiting with our code
        # (observed under load). Everything is cleaned up by now: leave with the code.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(int(code))
    return int(code)


def _run_main(argv) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["diff"]:
            from .report.diff import diff_main
            return diff_main(argv[1:])
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
    except KeyboardInterrupt as exc:
        what = "terminated (SIGTERM)" if isinstance(exc, _Terminated) else "interrupted"
        if getattr(exc, "published", False):
            print(f"verify-claims: {what} after this run's report was published", file=sys.stderr)
        else:
            print(f"verify-claims: {what}: nothing was published; the report directory keeps the previous "
                  "run's report", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as exc:  # pragma: no cover - a bug in verify-claims itself
        import traceback
        traceback.print_exc()
        print(f"verify-claims: internal error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


def _main(argv) -> int:
    args = parse_args(argv)
    if args.json == "-":
        # claims.json owns standard output: everything else (ours, the children's, native
        # libraries') goes to standard error, at the file-descriptor level
        with _stdout_to_stderr() as real_stdout:
            args.json_stream = real_stdout
            return _main_parsed(args)
    args.json_stream = None
    return _main_parsed(args)


class _stdout_to_stderr:
    def __enter__(self):
        sys.stdout.flush()
        self.saved = os.dup(1)
        os.dup2(2, 1)
        return self.saved

    def __exit__(self, *exc):
        sys.stdout.flush()
        os.dup2(self.saved, 1)
        os.close(self.saved)


def _main_parsed(args) -> int:
    colour = sys.stdout.isatty() and not args.no_color and not os.environ.get("NO_COLOR") and args.json != "-"
    ddir = Path(args.derivations) if args.derivations else default_derivations()
    if not ddir.is_dir():
        raise _UsageError(f"derivations directory {ddir} does not exist "
                          "(pass --derivations DIR with your derivation modules)")
    from .run.store import Store

    args.keywords = _keywords(args.keyword)
    cache_dir = Path(args.cache_dir) if args.cache_dir else Store.beside(args.report_dir)
    if args.last_failed and args.no_cache:
        raise _UsageError("--lf needs the proof store, where the last run's outcome is kept (drop --no-cache)")
    if args.list:
        store = None if args.no_cache else Store(cache_dir)
        if args.cache_clear:
            _store_clear(cache_dir)
        return _list(ddir, store, args)

    from .report.directory import ReportDir, ReportDirError

    # the report directory first: a directory that cannot be written is an error now, not
    # after the whole verification; and the lock makes concurrent runs wait their turn
    try:
        rdir = ReportDir(args.report_dir, on_wait=lambda msg: print(f"verify-claims: {msg}", file=sys.stderr,
                                                                     flush=True))
        rdir.open()
    except ReportDirError as exc:
        raise _UsageError(str(exc)) from None
    try:
        store = None if args.no_cache else Store(cache_dir)
        if args.cache_clear:
            _store_clear(cache_dir)
        return _verify(args, ddir, store, cache_dir, colour, rdir)
    except KeyboardInterrupt as exc:
        exc.published = rdir.published
        raise
    finally:
        rdir.close()


def _keywords(text):
    if text is None:
        return None
    from .run.keywords import KeywordError, Keywords
    try:
        return Keywords(text)
    except KeywordError as exc:
        raise _UsageError(str(exc)) from None


def _last_failed(args, store, ddir):
    """--lf: the ids to verify, or None (every claim: nothing failed last time)."""
    if not args.last_failed:
        return None
    from .run.session import last_failed
    ids = last_failed(store, ddir)
    if not ids:
        print("verify-claims: --lf: no claim was not as expected in the last run: verifying every claim",
              file=sys.stderr)
        return None
    return tuple(ids)


def _store_clear(cache_dir) -> None:
    from .run.store import Store

    Store(cache_dir).clear()
    print(f"verify-claims: emptied the proof store {cache_dir}")


def _verify(args, ddir, store, cache_dir, colour, rdir) -> int:
    from .run.session import RunOptions, UnknownIds, remember_failed, run_directory

    settings = Settings(seed=args.seed, samples=args.samples, precision=args.precision,
                        timeout=args.timeout, prover_budget=args.prover_budget,
                        certify_budget=args.certify_budget, wall_limit=args.wall_limit)
    jobs = args.jobs or os.cpu_count() or 1
    options = RunOptions(derivations=ddir, settings=settings, jobs=jobs, only=tuple(args.only or ()),
                         store=store, recheck=args.recheck, certificates=not args.no_certificates,
                         import_timeout=args.timeout, import_wall=args.wall_limit, keyword=args.keywords,
                         last_failed=_last_failed(args, store, ddir), exitfirst=args.exitfirst,
                         mutate=args.mutate or args.min_mutation_score is not None,
                         draw=_drawn_beside(args, store))
    selected = bool(options.only or options.keyword is not None or options.last_failed is not None)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    shown = {"width": 10}
    seen = []  # results so far: the summary of an interrupted run
    from .live import LiveLine
    live = LiveLine(sys.stdout) if sys.stdout.isatty() and args.json != "-" else None

    def on_start(total, from_store):
        what = f"{total} claims from {ddir}"
        if from_store:
            what += f" ({from_store} from the proof store)"
        print(f"verify-claims {__version__}: {what} (seed {settings.seed}, {settings.samples} samples, "
              f"{settings.precision} digits, timeout {settings.timeout:g} s CPU, {jobs} jobs)", flush=True)
        if live:
            live.start(total, from_store)

    def progress(res, done: int, total: int):
        seen.append(res)
        shown["width"] = max(shown["width"], min(len(res.id), 60))
        if live:
            live.clear()
        _progress_line(res, done, total, args, colour, shown["width"])
        if live:
            live.result(res, done)

    def mutated(cid, record, done, total):
        if done == 1:
            print(f"mutants: {total} claims expected to hold and established (seed {settings.seed})", flush=True)
        if record is not None and not args.quiet:
            c = record["counts"]
            print(f"[mutants {done:>{len(str(total))}}/{total}] {cid:<{shown['width']}} {c['killed']} killed"
                  + "".join(f", {c[k]} {k}" for k in ("equivalent", "still true", "survived") if c[k]), flush=True)

    try:
        outcome = run_directory(options, on_result=progress, on_start=on_start,
                                on_running=live.running if live else None, on_mutated=mutated,
                                beside=_renderers_beside(args))
    except UnknownIds as exc:
        raise _UsageError(str(exc)) from None
    except KeyboardInterrupt:
        if live:
            live.clear()
        _interrupted_summary(seen, time.perf_counter() - t0, settings, colour)
        raise
    finally:
        if live:
            live.clear()
    seconds = time.perf_counter() - t0
    for p in outcome.problems:
        print(f"PROBLEM {p}", file=sys.stderr)
    for name, secs in outcome.slow_modules:
        print(f"verify-claims: note: {name} took {secs:.1f} s CPU to load: a derivation module should declare "
              "its claims cheaply (build heavy expressions lazily, e.g. in a function the claims call)",
              file=sys.stderr)
    for cid, why in outcome.replay_failures:
        print(f"verify-claims: WARNING: the certificate of {cid} did not replay ({why}); it was searched again. "
              "Run --update-certificates once the engine change is understood.", file=sys.stderr)
    results = outcome.results
    if not results and not outcome.problems:
        if selected:
            print("verify-claims: no claim is chosen by " + _describe_selection(args, options), file=sys.stderr)
        else:
            print(f"verify-claims: no claims found in {ddir} (a derivation module is a *.py file "
                  "defining CLAIMS)", file=sys.stderr)
        return EXIT_USAGE
    from .report.schema import build_report, mark_established, write_json_atomic

    mark_established(results)
    failed = [r for r in results if not r.as_expected]
    file_problems = [p for p in outcome.problems if not p.claim]
    code = EXIT_FAILED if failed or file_problems else EXIT_OK
    for f in outcome.figures:
        if not f.get("agrees"):
            code = EXIT_FAILED
            print(f"FIGURE {f['id']} ({f.get('source', '')}) does not agree with its stationarity condition: "
                  + "; ".join(f.get("problems", [])[:3]), file=sys.stderr)
    if store is not None:
        remember_failed(store, ddir, results, file_problems)
    store_info = _store_info(outcome, store, cache_dir, args)
    report = build_report(results, outcome.problems, settings, derivations=str(ddir), seconds=seconds,
                          exit_code=code, jobs=jobs, started=started, uncheckable=outcome.uncheckable,
                          figures=outcome.figures, store=store_info)
    report["run"]["selection"] = {"only": list(options.only), "keyword": args.keyword,
                                  "last_failed": list(options.last_failed or []) if args.last_failed else None,
                                  "exitfirst": bool(args.exitfirst), "not_run": list(outcome.not_run)}
    if outcome.mutation is not None:
        from .run.mutation import attach
        mutation = attach(report, outcome.mutation, outcome.mutation_failed, args.min_mutation_score)
        if mutation["gate"]["passed"] is False or outcome.mutation_failed:
            code = EXIT_FAILED
            report["run"]["exit_code"] = int(code)
    # the verdict first: printed (and the exit code fixed) before any report is rendered
    _summary(results, outcome.problems, seconds, settings, colour, report.get("certification"),
             len(outcome.uncheckable), store_info, narrowed=report["run"].get("narrowed"))
    if args.durations is not None:
        from .report.durations import format_durations
        print("\n".join(format_durations(results, args.durations)))
    if outcome.mutation is not None:
        _mutation_summary(report["mutation"], colour)
    if outcome.not_run:
        print(f"   stopped at the first claim not as expected (-x): {len(outcome.not_run)} claims not run")
        if options.mutate:
            print("   no mutation run: it measures a gate that passes, and this run stopped at a failure")
    complete = not selected and not outcome.not_run
    if args.update_docs:
        _update_docs(report, ddir, complete=complete)
    if args.update_certificates:
        _update_certificates(outcome, ddir, complete=complete, keep_replayed=not args.no_certificates)
    if outcome.drawings:
        from .report.plots import provide
        provide(outcome.drawings)
    code, notes, failed_files = _write_reports(report, args, code, outcome.figures_note, store, rdir.staging)
    # claims.json last, so that it states the exit code of the process and what failed to render
    report["run"]["exit_code"] = int(code)
    report["run"]["report_errors"] = [{"file": f, "error": why} for f, why in failed_files]
    write_json_atomic(report, rdir.staging / "claims.json")
    if store is not None:
        from .report.diff import remember_run
        remember_run(args.report_dir, cache_dir=cache_dir)  # the run this one replaces: `verify-claims diff` compares with it
    published = rdir.publish([p.name for p in rdir.staging.iterdir()])
    for path in published:
        if path.name in notes:
            print(f"report: {path}{notes[path.name]}")
    return _write_extra_outputs(report, args, code)


def _write_extra_outputs(report, args, code) -> int:
    """--junitxml and --json: written after the report is published; a file that cannot be
    written is a usage problem of its path, named, and never hides a failed claim."""
    from .atomic import write_text_atomic

    if args.junitxml:
        from .report.junit import render_junit
        try:
            write_text_atomic(render_junit(report), Path(args.junitxml))
            print(f"report: {args.junitxml} (JUnit XML)")
        except OSError as exc:
            print(f"verify-claims: error: --junitxml {args.junitxml} could not be written: {exc}", file=sys.stderr)
            code = code if code != EXIT_OK else EXIT_USAGE
    if args.json:
        import json
        text = json.dumps(report, indent=1, ensure_ascii=False, default=str) + "\n"
        if args.json == "-":
            os.write(args.json_stream, text.encode("utf-8"))
        else:
            try:
                write_text_atomic(text, Path(args.json))
            except OSError as exc:
                print(f"verify-claims: error: --json {args.json} could not be written: {exc}", file=sys.stderr)
                code = code if code != EXIT_OK else EXIT_USAGE
    return code


def _describe_selection(args, options) -> str:
    parts = []
    if options.only:
        parts.append("--only " + " ".join(options.only))
    if args.keyword is not None:
        parts.append(f"-k {args.keyword!r}")
    if options.last_failed is not None:
        parts.append("--lf")
    return " and ".join(parts) + " (run `verify-claims --list` to see ids, kinds, modules and references)"


def _interrupted_summary(seen, seconds, settings, colour) -> None:
    """Ctrl-C / SIGTERM during verification: what was verified so far, before the run stops."""
    counts = {s: sum(1 for r in seen if r.status == s) for s in STATUSES}
    parts = [f"{n} {s}" for s, n in counts.items() if n]
    bad = [r for r in seen if not r.as_expected]
    if bad:
        print("\nNot as expected so far:")
        for r in bad:
            print(f"  {r.id} ({r.source}): {r.status} but expected {r.expected}"
                  + (f" -- {r.message}" if r.message else ""))
    line = (f"== INTERRUPTED: {len(seen)} claims verified before the interrupt: {', '.join(parts) or 'none'}; "
            f"{len(bad)} not as expected, in {seconds:.1f} s (seed {settings.seed}) ==")
    if colour:
        line = f"\033[33m{line}\033[0m"
    print(line, flush=True)


_EXIT_TEXT = {ExitCode.OK: "every claim came out as expected",
              ExitCode.FAILED: "some claim did not (refuted, error, timeout, undecided), a derivation module or "
                               "claim is broken, or a figure disagrees",
              ExitCode.USAGE: "usage error (bad option, unknown --only id, missing derivations directory, a report "
                              "directory that cannot be written) or nothing to verify",
              ExitCode.INTERNAL: "internal error of verify-claims",
              ExitCode.REPORT: "every claim came out as expected, but a report file could not be rendered "
                               "(which one and why is printed; e.g. the LaTeX error of report.pdf)",
              ExitCode.INTERRUPTED: "interrupted (Ctrl-C, SIGTERM): nothing was published, the report "
                                    "directory keeps the previous run's complete report"}


def _progress_line(res, done, total, args, colour, width):
    bad = not res.as_expected
    if args.quiet and not bad:
        return
    tag = res.status.upper()
    tag = f"\033[{_COLOURS.get(res.status, '0')}m{tag:<9}\033[0m" if colour else f"{tag:<9}"
    exp = ""
    if res.expected != "holds":
        exp = " (expected)" if res.as_expected else " (expected refuted)"
    how = {"store": " [store]", "replayed": " [replayed]"}.get(res.origin, "")
    flag = "" if not bad else "  <-- NOT AS EXPECTED"
    print(f"[{done:>{len(str(total))}}/{total}] {tag} {res.id:<{width}} {res.seconds:6.2f}s{how}{exp}{flag}",
          flush=True)
    if not bad and res.status == "refuted" and res.expected_reason and not args.quiet:
        label = "paper error" if res.paper_error else "not in general"
        print(f"      {label}: {res.expected_reason}", flush=True)
    if bad and res.message:
        print(f"      {res.message}", flush=True)
    if bad and res.counterexample:
        print(f"      counterexample: {_one_line(res.counterexample)}", flush=True)


def _store_info(outcome, store, cache_dir, args) -> dict:
    origins = {o: sum(1 for r in outcome.results if r.origin == o) for o in ("store", "replayed", "searched", "judged")}
    return {"dir": str(cache_dir) if store is not None else None, "used": store is not None,
            "snapshot": outcome.from_snapshot, "recheck": bool(args.recheck),
            "certificates": not args.no_certificates, "origins": origins,
            "stale_certificates": list(outcome.stale_certificates),
            "replay_failures": [list(x) for x in outcome.replay_failures]}


def _update_certificates(outcome, ddir: Path, complete: bool, keep_replayed: bool = True) -> None:
    """Write DIR/certificates.json from this run's results.  A complete run keeps exactly
    the current claims (a claim that errored keeps its old record if it still matches);
    an --only run updates only the claims it ran.  A current record is kept as it stands
    when the result came from a replay (this run's, or a stored one's) that used only
    decisions the record holds, with its status and method: a replay never reaches the
    decisions a search recorded for alternatives tried before the winner (a maximiser's
    route A that failed after its sub-decisions), and writing the record again from the
    replay would change a fresh clone's lockfile when no claim changed.  A claim that was
    searched (a record that failed to replay), and every claim of a run that ignores the
    committed certificates (`keep_replayed` False: --no-certificates), is written from its
    own result."""
    from .run.certificates import Certificates

    committed = Certificates.load(ddir)
    if complete:
        records = {i: committed.records[i] for i, decl in outcome.certificates.items()
                   if committed.lookup(i, decl) is not None}
    else:
        records = dict(committed.records)
    kept = 0
    for r in outcome.results:
        decl = outcome.certificates.get(r.id)
        rec = Certificates.record(r, decl) if decl is not None else None
        replay = ((r.evidence or {}).get("replay") or {}).get("result")
        if rec is not None and keep_replayed and replay == "replayed" and \
                Certificates.covers(committed.lookup(r.id, decl), rec):
            rec = committed.records[r.id]
        if rec is not None:
            records[r.id] = rec
            kept += 1
    path = committed.write(records)
    print(f"updated: {path} ({kept} claims recorded; review and commit it like a lockfile)")


def _write_reports(report, args, code, fig_note, store, staging: Path) -> tuple:
    """Render report.html, report.tex and report.pdf into the staging directory.  Returns
    the exit code, per file name to announce a note, and the (file, why) that failed.  A renderer that fails is named
    with its cause; it changes the exit code only when every claim came out as expected
    (ExitCode.REPORT), so a report problem never hides a failed claim."""
    notes = {"claims.json": ""}
    failed = []
    from .report.artifacts import stable_report
    from .report.view import Prepared

    # prepared once for report.html, report.tex and findings.tex, and only if one of them is
    # not in the store (a warm run's report differs from the last only in its start and duration)
    view = Prepared(stable_report(report)[0])
    latex: list = []
    pdfs = None
    if not args.no_latex:
        # the LaTeX sources first, so that pdflatex (another process) typesets them while
        # report.html renders here: about 3 s less of a run's wall time
        texs, latex = _write_latex_sources(report, args, fig_note, store, staging, notes, view)
        if texs and not args.no_pdf:
            pdfs = _PdfBuilds(texs, store)
    try:
        if not args.no_html:
            from .report.html import write_html

            try:
                write_html(report, staging, figures_note=fig_note, cache=store, view=view)
                url = (Path(args.report_dir).resolve() / "report.html").as_uri()
                notes["report.html"] = f" (open {url} in a browser; works offline)"
            except Exception as exc:  # noqa: BLE001 - reported, the verdict stands
                failed.append(("report.html", _render_failure(exc)))
    except BaseException:
        # an interrupt: pdflatex works inside the staging directory, which the caller
        # removes, so its builds end (or fail, quietly) before the interrupt goes on
        if pdfs is not None:
            pdfs.abandon()
        raise
    if pdfs is not None:
        latex += pdfs.finish(staging, notes)
    failed += latex
    for name, why in failed:
        print(f"verify-claims: error: {name} could not be rendered: {why}", file=sys.stderr)
    if failed and code == EXIT_OK:
        code = ExitCode.REPORT
    return code, notes, failed


def _drawn_beside(args, store) -> tuple:
    """The formats in which the run's child draws the figures beside its loading
    (run/figures_beside.py, which looks for the modules that mention FIGURES), or (): when
    a report is rendered and the store holds no drawings yet (none at all: --no-cache, a
    fresh clone).  Otherwise the drawings are most likely stored (an edit loop), and a
    figure that must be drawn after all is drawn here, by the renderer."""
    formats = ("svg",) * (not args.no_html) + ("pdf",) * (not args.no_latex)
    if not formats or (store is not None and store.read and (store.root / "artifacts").is_dir()):
        return ()
    return formats


def _renderers_beside(args):
    """What this process does while the verification's child loads the derivations (that
    loading runs on one core; run.supervise): import the report renderers and compile the
    templates, about a second of CPU that would otherwise come between the verdict and the
    report.  matplotlib is left to the process that draws the figures beside the loading
    (_drawn_beside), or to a renderer that must draw one after all.  None when no report
    is rendered."""
    html, latex = not args.no_html, not args.no_latex
    if not (html or latex):
        return None

    def warm():
        try:
            if html:
                from .report.html import warm as warm_html
                warm_html()
            if latex:
                from .report.tex import warm as warm_tex
                warm_tex()
        except Exception:  # noqa: BLE001 - whatever fails here fails again where it is needed, and is reported there
            pass

    def start():
        import threading

        thread = threading.Thread(target=warm, name="verify-claims-renderers", daemon=True)
        thread.start()
        return thread
    return start


def _write_latex_sources(report, args, fig_note, store, staging, notes, view=None) -> tuple:
    """report.tex and findings.tex: ({name: path}, []) or ({}, [(file, why)])."""
    from .report.tex import write_findings_latex, write_latex

    texs = {}
    for name, write in (("report", lambda: write_latex(report, staging, figures_note=fig_note, cache=store, view=view)),
                        ("findings", lambda: write_findings_latex(report, staging, cache=store, view=view))):
        try:
            texs[name] = write()
            notes[f"{name}.tex"] = ""
        except Exception as exc:  # noqa: BLE001
            return {}, [(f"{name}.tex", _render_failure(exc))]
    return texs, []


class _PdfBuilds:
    """report.pdf and findings.pdf typeset in threads (each waits on its pdflatex process)."""

    def __init__(self, texs: dict, store):
        from concurrent.futures import ThreadPoolExecutor

        from .report.tex import build_pdf, pdflatex

        self.texs = texs
        self.missing = not pdflatex()
        self.pool = self.futures = None
        if not self.missing:
            self.pool = ThreadPoolExecutor(max_workers=len(texs), thread_name_prefix="pdflatex")
            self.futures = {name: self.pool.submit(build_pdf, tex, cache=store) for name, tex in texs.items()}

    def finish(self, staging, notes) -> list:
        """Wait for both; the (file, why) that failed, their logs written beside them."""
        from .report.tex import LatexError

        if self.missing:
            print("report: report.pdf NOT built: pdflatex is not installed (apt-get install texlive-latex-base "
                  "texlive-latex-recommended texlive-fonts-recommended lmodern)")
            return []
        failed = []
        try:
            for name, future in self.futures.items():  # the findings alone: a short PDF for a referee report
                try:
                    future.result()
                    notes[f"{name}.pdf"] = " (the findings about the paper alone)" if name == "findings" else ""
                except LatexError as exc:
                    if exc.log:
                        (staging / f"{name}.log").write_text(exc.log, encoding="utf-8")
                        notes[f"{name}.log"] = f" (the LaTeX log of the failed {name}.pdf)"
                    failed.append((f"{name}.pdf", str(exc)))
                except Exception as exc:  # noqa: BLE001 - pdflatex could not be started: that PDF failed
                    # (a Ctrl-C reaching the starting child is one way: the interrupt itself
                    # is raised in this thread next, and wins)
                    failed.append((f"{name}.pdf", f"{type(exc).__name__}: {exc}"))
        finally:
            self.pool.shutdown(wait=True)
        return failed

    def abandon(self) -> None:
        """Wait for the builds and drop what they did (an interrupt is on its way out)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True)


def _render_failure(exc) -> str:
    import traceback

    traceback.print_exc()
    return f"{type(exc).__name__}: {exc} (a bug in verify-claims' report writer: please report it)"


def _update_docs(report: dict, ddir: Path, complete: bool) -> None:
    from .report.inventory import update_docs

    if not complete:
        print("--update-docs ignored with --only: the inventory is written from a complete run only",
              file=sys.stderr)
        return
    try:
        written = update_docs(report, ddir)
    except FileExistsError as exc:
        print(f"verify-claims: error: --update-docs: {exc}", file=sys.stderr)
        return
    for path in written:
        print(f"updated: {path}")


def _one_line(d, limit=400):
    s = ", ".join(f"{k}={v}" for k, v in d.items())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _list(ddir, store, args) -> int:
    """Collect only: the claims, their references and kinds, and the statements listed as not
    checkable -- from the proof store when no file of the directory changed."""
    from .run.session import RunOptions, UnknownIds, listing, uncheckable_chosen, wanted_ids

    data = listing(ddir, store, import_timeout=args.timeout, import_wall=args.wall_limit)
    claims = data["claims"]
    uncheckable = data["uncheckable"]
    options = RunOptions(derivations=ddir, only=tuple(args.only or ()), keyword=args.keywords,
                         last_failed=_last_failed(args, store, ddir))
    try:
        wanted = wanted_ids([_Row(c) for c in claims], options)
    except UnknownIds as exc:
        raise _UsageError(str(exc)) from None
    if wanted is not None:
        claims = [c for c in claims if c["id"] in wanted]
        uncheckable = [u for u in uncheckable if uncheckable_chosen(u, wanted, options)]
    problems = [f"{f}" + (f" [{c}]" if c else "") + f": {cause}" for f, c, cause in data["problems"]]
    if not claims and not uncheckable:
        for p in problems:
            print(f"PROBLEM {p}", file=sys.stderr)
        print("no claims", file=sys.stderr)
        return EXIT_USAGE
    rows = [(c["id"], c["ref"]) for c in claims] + [(u["id"], u["ref"]) for u in uncheckable]
    w = max(len(i) for i, _ in rows)
    rw = max(len(r) for _, r in rows)
    for c in claims:
        exp = "" if c["expect_holds"] else "  [expected refuted]"
        print(f"{c['id']:<{w}}  {c['ref']:<{rw}}  {c['kind']:<13} {c['source']}{exp}")
    for u in uncheckable:
        print(f"{u['id']:<{w}}  {u['ref']:<{rw}}  {'not checkable':<13} {u['source']}  [{u['reason']}]")
    listed = f" and {len(uncheckable)} statements listed as not checkable," if uncheckable else ""
    print(f"{len(claims)} claims{listed} in {len(data['modules'])} modules")
    for p in problems:
        print(f"PROBLEM {p}", file=sys.stderr)
    for name, secs in data.get("slow_modules", []):
        print(f"verify-claims: note: {name} took {secs:.1f} s CPU to load", file=sys.stderr)
    return EXIT_FAILED if problems else EXIT_OK


class _Row:
    """A listing row seen as a claim (id, kind, uses, source, ref) for the selection."""

    def __init__(self, d):
        self.id, self.kind, self.uses, self.source, self.ref = d["id"], d["kind"], d["uses"], d["source"], d["ref"]


def _mutation_summary(m, colour) -> None:
    """The mutation score after the verdict: per module, the survivors with their reasons,
    and the gate."""
    from .report.diff import _plain  # a reason or a symbol name never recolours the terminal
    from .run.mutation import format_score as _pct, survivors_by_claim
    c = m["counts"]
    print(f"\nmutation score: {_pct(m['score'])} ({c['killed']} killed of {c['killed'] + c['survived']} mutants that "
          f"change the claim; {c['equivalent']} equivalent and {c['still true']} still true excluded) over "
          f"{m['claims']} claims")
    for name, mc in m["modules"].items():
        if mc["survived"]:
            print(f"  {name}: {_pct(mc['score'])} ({mc['survived']} survived)")
    for cid, rows, shared in survivors_by_claim(m["survivors"]):
        print(f"  {cid}: {len(rows)} survived" + (f" -- harmless: {_plain(shared)}" if shared else ""))
        for r in rows:
            why = "" if shared else (f"harmless: {r['harmless']}" if r.get("harmless") else r.get("cause", ""))
            print(f"    {_plain(r['label'])}  {_plain(r['mistake'].split(': ', 1)[-1])}"
                  + (f"  [{_plain(why)}]" if why else ""))
    for cid, why in m["failed"]:
        print(f"  MUTATION RUN FAILED for {cid}: {why}")
    for cid, pattern in m.get("unused_reasons") or []:
        print(f"  note: {cid}: harmless_mutants[{_plain(pattern)!r}] explains no surviving mutant (the claim "
              "was strengthened? remove the reason)")
    g = m["gate"]
    if g["min_score"] is not None:
        ok = g["passed"]
        line = (f"== mutation gate {'passed' if ok else 'FAILED'}: score {_pct(m['score'])} "
                f"{'>=' if ok else '<'} {g['min_score']:g}% ==")
        if colour:
            line = f"\033[{'32' if ok else '31'}m{line}\033[0m"
        print(line)


def _narrowing_lines(results, narrowed) -> list:
    """The summary's count of claims verified on a narrower domain than the paper states,
    and one warning per restriction no claim declared (the guard's, model/narrowing.py)."""
    if not narrowed or not (narrowed.get("claims") or narrowed.get("undeclared_ids")):
        return []
    n = narrowed["claims"]
    summaries = "summary resting" if narrowed.get("summaries") == 1 else "summaries resting"
    parts = [f"{narrowed[k]} {what}" for k, what in (("declared", "declared by the claim"),
                                                      ("summaries", f"{summaries} on such claims"),
                                                      ("undeclared", "NOT DECLARED")) if narrowed.get(k)]
    out = [f"   {n} claim{'s' if n != 1 else ''} verified on a narrower domain than the paper states"
           + (f" ({', '.join(parts)})" if parts else "") + ": the verdict is of the narrower statement"]
    by_id = {r.id: r for r in results}
    for cid in narrowed.get("undeclared_ids", []):
        r = by_id.get(cid)
        if r is not None and r.narrowed:
            out.append("   warning: undeclared restriction: " + r.narrowed["reason"].removeprefix("not declared: "))
    return out


def _summary(results, problems, seconds, settings, colour, cert=None, n_uncheckable=0, store=None, narrowed=None):
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
    for extra in _narrowing_lines(results, narrowed):
        print(extra)
    if store is not None:
        o = store["origins"]
        where = "answered from the proof store (nothing changed)" if store["snapshot"] else (
            f"{o['store']} from the proof store, {o['replayed']} replayed from certificates, {o['searched']} searched")
        print(f"   {where}" + (f"; store: {store['dir']}" if store["used"] else "; proof store not used (--no-cache)"))
        if store["stale_certificates"]:
            print(f"   {len(store['stale_certificates'])} committed certificates no longer match their claims "
                  "(searched instead): run --update-certificates")
