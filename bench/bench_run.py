"""Benchmark: the speed targets of engine v2, measured in one run, as ratios to the floor.

The floor is `python -c "import sympy, mpmath, jinja2"` (what any run of a sympy tool
pays), measured in the same run on the same machine, so the ratios compare across
machines.  Printed, per target, the wall time, the CPU time of the whole process tree,
the ratio to the floor and whether the target is met:

  from scratch   --no-cache --no-certificates, 2 jobs, reports included   <= 40 s
  fresh clone    --no-cache (replays derivations/certificates.json)       <= 10 s
  warm           nothing changed since the previous run (a search)        <= 4x floor
  warm again     and again: the report's text from the store too          goal 2.5x floor
  --list         warm                                                     <= 3x floor
  -k, --lf       a warm run of a selection (-k), and --lf when nothing failed (no target)
  edit one claim one claim of a warm copy of the paper edited: it alone is verified again (no target)
  pytest         `pytest --verify-claims` on the paper, the store filled by the CLI (no target)
  wrong claims   one deliberately wrong claim of every kind, refuted       <  2 s each
  --load         the whole paper (fresh clone) quiet, then with two CPU-burning processes per
                 core: the same statuses and exit code 0
  --tests        the whole test suite (.ci/run's command)                   <  5 minutes
  --mutate       the mutation run on the paper (`--mutate`, claims' verdicts from the store,
                 mutants from scratch), its score and counts                 <  3 minutes, >= 95%
  --only-mutate  only the floor and the mutation run

    python3 bench/bench_run.py [--repeat 3] [--skip-scratch] [--load] [--tests] [--mutate]

Nothing here is a test: timings vary with the machine; the test suite checks behaviour.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
CLI = [sys.executable, "-c", "import sys; from verify_claims.cli import main; sys.exit(main(sys.argv[1:]))"]

WRONG = '''
    """One deliberately wrong claim of every kind (a sign flip, a wrong root, a missing
    factor, a wrong domain...): each must be refuted, fast."""
    import sympy as sp
    from verify_claims import (Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Ref, Root,
                               Stationary, Step)
    x, y, b, p = sp.symbols("x y beta p")
    POS, UNIT = sp.Interval.open(0, sp.oo), sp.Interval.open(0, 1)
    PI15 = (2 * b ** 2 * p + 1 + sp.sqrt(1 + 4 * b ** 2 * p * (1 - p))) / (2 * (1 + b ** 2))
    CLAIMS = [
        Identity(id="wrong-identity", title="sign flip in the cross term", ref=Ref("1"),
                 lhs=(x + y) ** 2, rhs=x ** 2 - 2 * x * y + y ** 2, domain={x: UNIT, y: UNIT}),
        Chain(id="wrong-chain", title="a step drops a factor", ref=Ref("1"),
              steps=[(x + 1) ** 2 - 1, x ** 2 + 2 * x, x * (x + 1)], domain={x: UNIT}),
        Inequality(id="wrong-inequality", title="(15) below 1/(1+b^2)", ref=Ref("2.3.1"),
                   lhs=PI15, op="<", rhs=1 / (1 + b ** 2), domain={b: POS, p: UNIT}),
        Limit(id="wrong-limit", title="a wrong limit value", ref=Ref("2.3.1"),
              expr=sp.sin(x) / x, var=x, point=0, value=2, domain={}),
        Monotonic(id="wrong-monotonic", title="(15) decreasing in pi_ref", ref=Ref("2.3.1"),
                  expr=PI15, var=p, direction="decreasing", domain={b: POS, p: UNIT}),
        Root(id="wrong-root", title="the other root of the quadratic", ref=Ref("B.1"),
             equation=sp.Eq(x ** 2 - (1 - b) * x - b * p, 0), var=x,
             value=(1 - b - sp.sqrt((1 - b) ** 2 + 4 * b * p)) / 2, interval=sp.Interval(0, 1),
             unique=True, domain={b: POS, p: UNIT}),
        Stationary(id="wrong-stationary", title="a wrong stationary point", ref=Ref("A"),
                   objective=-(x - p) ** 2 * b, wrt=(x,), at={x: p / 2}, domain={b: POS, p: UNIT}),
        Maximiser(id="wrong-maximiser", title="a minimiser claimed to maximise", ref=Ref("A"),
                  objective=(x - p) ** 2, wrt=(x,), at={x: p}, over={x: sp.Interval(0, 1)},
                  domain={p: UNIT}),
    ]
'''


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["NO_COLOR"] = "1"
    return env


def timed(cmd, cwd=ROOT) -> tuple:
    """(wall seconds, CPU seconds of the command and its children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        print(proc.stderr[-2000:], file=sys.stderr)
    return wall, cpu, proc.returncode


def median_of(n, fn):
    runs = [fn() for _ in range(n)]
    return tuple(statistics.median(r[i] for r in runs) for i in range(2)) + (sorted({r[2] for r in runs}),)


def line(name, wall, cpu, floor, codes, target, ok):
    mark = "MET" if ok else "NOT MET"
    print(f"{name:<28} {wall:7.2f} s wall {cpu:7.2f} s CPU  {wall / floor:6.1f}x floor  exit {codes}  "
          f"target {target}: {mark}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of the cheap measurements (median)")
    ap.add_argument("--skip-scratch", action="store_true", help="skip the from-scratch run (minutes)")
    ap.add_argument("--load", action="store_true", help="also: the whole paper quiet and under CPU load")
    ap.add_argument("--tests", action="store_true", help="also: time the whole test suite")
    ap.add_argument("--mutate", action="store_true", help="also: the mutation run on the paper (minutes)")
    ap.add_argument("--only-mutate", action="store_true", help="only the floor and the mutation run")
    args = ap.parse_args()
    floor_cmd = [sys.executable, "-c", "import sympy, mpmath, jinja2"]
    floor, floor_cpu, _ = median_of(args.repeat, lambda: timed(floor_cmd))
    print(f"floor: import sympy, mpmath, jinja2   {floor:7.2f} s wall {floor_cpu:7.2f} s CPU  (median of {args.repeat})")
    if args.only_mutate:
        with tempfile.TemporaryDirectory(prefix="verify-claims-bench-") as tmp:
            _mutation(Path(tmp), floor)
        return 0
    with tempfile.TemporaryDirectory(prefix="verify-claims-bench-") as tmp:
        tmp = Path(tmp)
        if not args.skip_scratch:
            w, c, code = timed(CLI + ["-q", "--jobs", "2", "--no-cache", "--no-certificates", "--report-dir",
                                      str(tmp / "scratch")])
            line("from scratch", w, c, floor, [code], "<= 40 s", w <= 40)
            _counts(tmp / "scratch")
        w, c, code = timed(CLI + ["-q", "--jobs", "2", "--no-cache", "--report-dir", str(tmp / "fresh")])
        line("fresh clone (certificates)", w, c, floor, [code], "<= 10 s", w <= 10)
        _counts(tmp / "fresh")
        timed(CLI + ["-q", "--jobs", "2", "--report-dir", str(tmp / "warm")])  # fills the store
        # the first warm run after a search renders its report again (its claims now say "from
        # the store"); from the next one on, the report text comes from the store too
        w, c, code = timed(CLI + ["-q", "--jobs", "2", "--report-dir", str(tmp / "warm")])
        line("warm (nothing changed)", w, c, floor, [code], "<= 4x floor", w <= 4 * floor)
        w, c, codes = median_of(args.repeat, lambda: timed(CLI + ["-q", "--jobs", "2", "--report-dir",
                                                                  str(tmp / "warm")]))
        line("warm again (report from the store)", w, c, floor, codes, "goal 2.5x floor", w <= 2.5 * floor)
        timed(CLI + ["--list", "--report-dir", str(tmp / "warm")])
        w, c, codes = median_of(args.repeat, lambda: timed(CLI + ["--list", "--report-dir", str(tmp / "warm")]))
        line("--list (warm)", w, c, floor, codes, "<= 3x floor", w <= 3 * floor)
        w, c, codes = median_of(args.repeat, lambda: timed(CLI + ["--list", "--no-cache"]))
        line("--list (no store)", w, c, floor, codes, "(imports every module)", True)
        w, c, codes = median_of(args.repeat, lambda: timed(CLI + ["-q", "--jobs", "2", "-k", "s3 and not limit",
                                                                  "--report-dir", str(tmp / "warm")]))
        line("-k 's3 and not limit' (warm)", w, c, floor, codes, "(no target)", True)
        w, c, codes = median_of(args.repeat, lambda: timed(CLI + ["-q", "--jobs", "2", "--lf",
                                                                  "--report-dir", str(tmp / "warm")]))
        line("--lf, nothing failed (warm)", w, c, floor, codes, "(no target)", True)
        # the pytest plugin shares the CLI's store: point its [tool.verify-claims] at the same one
        (tmp / "pyproject.toml").write_text(f'[tool.verify-claims]\nreport-dir = "{tmp / "warm"}"\n')
        pytest_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={tmp}",
                      "-c", str(tmp / "pyproject.toml"), f"--verify-claims={ROOT / 'derivations'}"]
        w, c, codes = median_of(args.repeat, lambda: timed(pytest_cmd))
        line("pytest --verify-claims (warm store)", w, c, floor, codes, "(no target)", True)
        _edit_one_claim(tmp, floor, args.repeat)
        wrong = tmp / "wrong"
        wrong.mkdir()
        (wrong / "wrong_claims.py").write_text(textwrap.dedent(WRONG))
        w, c, code = timed(CLI + ["--derivations", str(wrong), "--no-cache", "--jobs", "2", "--no-html",
                                  "--no-latex", "--report-dir", str(tmp / "wrong-report")])
        report = json.loads((tmp / "wrong-report" / "claims.json").read_text())
        slowest = max(x["seconds"] for x in report["claims"])
        refuted = all(x["status"] == "refuted" for x in report["claims"])
        line("wrong claims (whole command)", w, c, floor, [code], "each refuted < 2 s", refuted and slowest < 2)
        for x in report["claims"]:
            print(f"    {x['status']:<9} {x['seconds']:6.2f} s CPU  {x['kind']:<12} {x['id']}")
        if args.load:
            _under_load(tmp, floor)
        if args.mutate:
            _mutation(tmp, floor)
    if args.tests:
        w, c, code = timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"])
        line("test suite", w, c, floor, [code], "< 5 minutes", w < 300 and code == 0)
    return 0


# a claim of derivations/x2_implementations.py, scaled on both sides by k: a new declaration
# (searched again), still true
EDITED = ("lhs=binary_group_advantage_one(Gs, m, c, eps), rhs=binary_group_advantage_one(Gs, m, c) * _F,",
          "lhs={k}*binary_group_advantage_one(Gs, m, c, eps), rhs={k}*binary_group_advantage_one(Gs, m, c) * _F,")


def _edit_one_claim(tmp: Path, floor: float, repeat: int) -> None:
    """The edit-verify loop: a copy of the paper whose every claim is in the warm store,
    one claim edited before each run (a different edit each time)."""
    import shutil
    copy = tmp / "edited"
    shutil.copytree(ROOT / "derivations", copy)
    module = copy / "x2_implementations.py"
    text = module.read_text(encoding="utf-8")
    if EDITED[0] not in text:
        print("edit one claim: SKIPPED (the edited claim's text is not in x2_implementations.py)")
        return
    cmd = CLI + ["-q", "--jobs", "2", "--derivations", str(copy), "--cache-dir", str(tmp / "warm" / ".verify-claims-cache"),
                 "--report-dir", str(tmp / "edited-report")]
    timed(cmd)  # the copy's own first run: every claim from the store
    edits = iter(range(2, 2 + repeat))

    def edited_run():
        module.write_text(text.replace(EDITED[0], EDITED[1].format(k=next(edits))), encoding="utf-8")
        return timed(cmd)
    w, c, codes = median_of(repeat, edited_run)
    line("edit one claim (warm)", w, c, floor, codes, "(no target)", True)


def _under_load(tmp: Path, floor: float) -> None:
    """The whole paper (no store: the committed certificates replayed) on a quiet machine,
    then with two CPU-burning processes per core: statuses and exit codes must agree."""
    cmd = CLI + ["-q", "--jobs", "2", "--no-cache", "--no-html", "--no-latex", "--report-dir"]
    w, c, code = timed(cmd + [str(tmp / "quiet")])
    line("whole paper, quiet", w, c, floor, [code], "exit 0", code == 0)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        w2, c2, code2 = timed(cmd + [str(tmp / "loaded")])
    finally:
        for b in burners:
            b.kill()
            b.wait()
    quiet = {x["id"]: x["status"] for x in json.loads((tmp / "quiet" / "claims.json").read_text())["claims"]}
    loaded = {x["id"]: x["status"] for x in json.loads((tmp / "loaded" / "claims.json").read_text())["claims"]}
    same = quiet == loaded and code == code2 == 0
    line(f"whole paper, {2 * (os.cpu_count() or 1)} burners", w2, c2, floor, [code2],
         "same statuses, exit 0", same)
    if quiet != loaded:
        for i in quiet:
            if quiet[i] != loaded.get(i):
                print(f"    {i}: quiet {quiet[i]}, loaded {loaded.get(i)}")


def _mutation(tmp: Path, floor: float) -> None:
    """`verify-claims --mutate` on the paper: the claims' verdicts from the store (filled by
    a first run), every mutant from scratch."""
    rdir = tmp / "mutate"
    timed(CLI + ["-q", "--jobs", "2", "--no-html", "--no-latex", "--report-dir", str(rdir)])
    w, c, code = timed(CLI + ["-q", "--jobs", "2", "--no-html", "--no-latex", "--mutate", "--report-dir", str(rdir)])
    m = json.loads((rdir / "claims.json").read_text())["mutation"]
    line("mutation run (--mutate)", w, c, floor, [code], "< 3 minutes", w < 180)
    print(f"    score {100 * m['score']:.1f}% (target >= 95%: {'MET' if m['score'] >= 0.95 else 'NOT MET'}), "
          f"strict {100 * m['strict_score']:.1f}%; {m['claims']} claims: " +
          ", ".join(f"{n} {k}" for k, n in m["counts"].items()))


def _counts(rdir: Path) -> None:
    report = json.loads((rdir / "claims.json").read_text())
    counts = ", ".join(f"{n} {s}" for s, n in report["run"]["counts"].items() if n)
    origins = report["run"].get("store", {}).get("origins", {})
    print(f"    {report['run']['claims']} claims: {counts}; origins {origins}")
    # where the claims' own CPU went (each claim's seconds in its worker, split as
    # --durations splits them); the rest of the run's CPU is loading, reports, the parent
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))  # this checkout's engine, as the runs measured use
    from verify_claims.model.result import Result
    from verify_claims.report.durations import slowest

    rows, _ = slowest([Result.from_json(c) for c in report["claims"]], 0)
    split = {k: sum(r[k] for r in rows) for k in ("seconds", "numbers", "proof", "certificate", "other")}
    print(f"    claims' CPU {split['seconds']:.1f} s: numbers {split['numbers']:.1f}, proof {split['proof']:.1f}, "
          f"certificate {split['certificate']:.1f}, other {split['other']:.1f} "
          f"(`verify-claims --durations N` lists the claims)")


if __name__ == "__main__":
    sys.exit(main())
