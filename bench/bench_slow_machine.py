"""Do the tests that search for proofs keep their verdicts on a machine k times slower?

A test that asserts "certified" or "proved" after a *search* (no committed certificate to
replay) passes only if every step that found the proof fits its CPU slice.  A step that
used 0.66 s of a 0.97 s slice passes here and fails on a CI machine whose CPU is half as
fast for sympy (Appendix B.2's potential did, 2026-11-24).  Budgets are meant to keep a
2x margin; this script is how to see whether they do.

It runs pytest with every Python call of every process (the xdist workers and the
verify-claims workers they fork included) going through a trace function that burns a
fixed amount of work, so pure-Python work (sympy) costs `--slowdown` times more CPU or a
little more, as on a slower CPU, while native code (z3, flint) does not slow down.  First
it measures the factor actually reached on a fixed sympy workload and prints it (the hook
alone already gives about 2.5x; more loops per call give more).

    python3 bench/bench_slow_machine.py                 # the search-heavy test files, 2x
    python3 bench/bench_slow_machine.py --slowdown 3 tests/test_ball.py -k quotient

Exits with pytest's exit code.  A failure names a test whose margin is under the factor:
give the step that ran out a larger slice or make it cheaper, do not loosen the test.
Nothing here is timed against a limit: the verdicts are what is compared.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# the test files whose tests run searches (no committed certificate) and assert their verdict
SEARCHING = ["tests/test_ball.py", "tests/test_ball_quotients.py", "tests/test_certify.py",
             "tests/test_certify_maximiser.py", "tests/test_kinds.py", "tests/test_symbolic_monotone.py",
             "tests/test_symbolic_transcendental.py", "tests/test_monotonic_removable.py",
             "tests/test_root_polyroots_retry.py", "tests/test_finite_group_sizes.py", "tests/test_ladder.py",
             "tests/test_derivations_s1.py", "tests/test_derivations_s1_2.py", "tests/test_derivations_s1_3.py",
             "tests/test_derivations_s2.py", "tests/test_derivations_s2_3.py", "tests/test_derivations_s2_3_1.py",
             "tests/test_derivations_s3.py", "tests/test_derivations_implementations.py", "tests/test_soundness.py"]

SITE = '''
# written by bench/bench_slow_machine.py: every Python call of this process burns LOOPS
import os, sys, threading
_LOOPS = int(os.environ.get("VERIFY_CLAIMS_SLOW_LOOPS", "-1"))


def _burn(frame, event, arg):
    for _ in range(_LOOPS):
        pass
    return None  # no line events: only calls cost more


if _LOOPS >= 0:  # 0: the hook alone, which already slows sympy down about 2.5 times
    sys.settrace(_burn)
    threading.settrace(_burn)
'''

WORKLOAD = textwrap.dedent("""
    import sys, time
    import sympy as sp
    from sympy.core.cache import clear_cache
    x, y = sp.symbols("x y", positive=True)
    def run():
        clear_cache()
        t = time.process_time()
        for n in range(2, 9):
            sp.factor(sp.expand((x + y + 1) ** n - (x - y) ** n))
        return time.process_time() - t
    run()
    print(min(run() for _ in range(3)))
""")


def _seconds(env) -> float:
    out = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _env(site: Path, loops: int) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["VERIFY_CLAIMS_SLOW_LOOPS"] = str(loops)
    return env


def calibrate(site: Path, target: float) -> tuple:
    """(loops, factor reached): the fewest loops per call whose slowdown of the workload
    reaches `target` (the hook alone, 0 loops, is the least this simulation can do)."""
    base = _seconds(_env(site, -1))
    loops, factor = 0, _seconds(_env(site, 0)) / base
    while factor < 0.9 * target and loops < 4096:
        loops = max(1, 2 * loops)
        factor = _seconds(_env(site, loops)) / base
    return loops, factor


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slowdown", type=float, default=2.0,
                    help="how many times slower sympy should run at least (default 2; the trace hook alone "
                         "gives about 2.5)")
    ap.add_argument("pytest_args", nargs="*", help="tests and pytest options (default: the search-heavy test files)")
    args, rest = ap.parse_known_args(argv)  # pytest's own options pass through
    args.pytest_args += rest
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        (site / "sitecustomize.py").write_text(SITE, encoding="utf-8")
        loops, factor = calibrate(site, args.slowdown)
        print(f"slowdown: {factor:.2f}x on a fixed sympy workload ({loops} loops per call; target "
              f"{args.slowdown:g}x)", flush=True)
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + (args.pytest_args or SEARCHING)
        code = subprocess.run(cmd, cwd=ROOT, env=_env(site, loops)).returncode
    print(f"bench_slow_machine: pytest exited {code} at {factor:.2f}x slower", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
