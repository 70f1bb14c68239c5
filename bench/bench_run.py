"""Benchmark: wall time of `verify-claims` on the bundled paper against the floor.

The floor is the bare interpreter importing sympy, mpmath and verify_claims (what
any run pays before verifying anything), measured in the same run on the same
machine, so the printed ratio is comparable across machines.  Also prints the
slowest claims from claims.json and the per-status counts.

    python3 bench/bench_run.py [--repeat 3] [--jobs N]

Target (issue 2): the complete paper (about a hundred claims) under 10 s on the
2-core reference machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd) -> tuple[float, int]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()
    env_path = str(ROOT / "src")
    floor_cmd = [sys.executable, "-c",
                 f"import sys; sys.path.insert(0, {env_path!r}); import sympy, mpmath, verify_claims.cli"]
    floors = [timed(floor_cmd)[0] for _ in range(args.repeat)]
    runs, codes = [], set()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c",
               f"import sys; sys.path.insert(0, {env_path!r}); from verify_claims.cli import main; "
               f"sys.exit(main(sys.argv[1:]))", "-q", "--report-dir", tmp]
        if args.jobs:
            cmd += ["--jobs", str(args.jobs)]
        for _ in range(args.repeat):
            t, code = timed(cmd)
            runs.append(t)
            codes.add(code)
        report = json.loads((Path(tmp) / "claims.json").read_text())
    floor, run = statistics.median(floors), statistics.median(runs)
    n = report["run"]["claims"]
    print(f"claims verified           : {n}  (exit codes {sorted(codes)})")
    print(f"counts                    : " + ", ".join(f"{k} {v}" for k, v in report["run"]["counts"].items() if v))
    print(f"floor (interpreter+import): {floor:7.2f} s  (median of {args.repeat})")
    print(f"verify-claims, whole run  : {run:7.2f} s  (median of {args.repeat}; jobs {report['run']['jobs']})")
    print(f"ratio run / floor         : {run / floor:7.1f}x")
    print(f"per claim (wall)          : {run / max(n, 1) * 1000:7.0f} ms")
    print(f"target                    : < 10 s for ~100 claims -> {'MET' if run < 10 else 'NOT MET'}")
    print("slowest claims (CPU seconds in the worker):")
    for c in sorted(report["claims"], key=lambda c: -c["seconds"])[:8]:
        print(f"  {c['seconds']:6.2f} s  {c['status']:9} {c['id']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
