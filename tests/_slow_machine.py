"""`python tests/_slow_machine.py LOOPS ARGS...`: verify-claims on a simulated slower machine.

Every claim's verification runs under a trace function that burns CPU on each Python
call, so every step of sympy (pure Python) costs several times more CPU time, as it would
on a slower CPU.  Used by test_load_independence.py to show that a certificate found on
one machine replays on a slower one.  Prints `slowdown: F` first: how many times more CPU a
fixed sympy workload took under the trace function than without it."""

import sys
import time


def _workload():
    import sympy as sp
    x, y = sp.symbols("x y", positive=True)
    from sympy.core.cache import clear_cache
    clear_cache()
    t = time.process_time()
    for n in range(2, 9):
        sp.factor(sp.expand((x + y + 1) ** n - (x - y) ** n))
    return time.process_time() - t


def main(loops: int, args: list) -> int:
    from verify_claims.cli import main as cli
    from verify_claims.engine import verify as engine

    plain = engine.verify

    def burn(frame, event, arg):
        for _ in range(loops):
            pass

    _workload()  # warm: imports, caches of the interpreter
    quick = _workload()
    sys.settrace(burn)
    try:
        slow = _workload()
    finally:
        sys.settrace(None)
    print(f"slowdown: {slow / quick:.2f}", flush=True)

    def slowed(claim, settings=None, **kw):
        sys.settrace(burn)
        try:
            return plain(claim, settings, **kw)
        finally:
            sys.settrace(None)

    engine.verify = slowed  # the workers import it from here when they start (forked)
    return cli(args)


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2:]))
