"""Time of certification per claim, per method and in total (issues 4 and 10), measured in one run.

Runs verify() on the bundled inequality-like claims and on anticipated Section 2.3.1 /
Appendix B shapes ((14), (15), their bounds, monotonicity, the quadratic's root, (14) as a
maximiser, (17) with poles at the interval's ends, (19) by squaring), and
prints, per claim, the status, the certificate's method, the seconds spent in
certification and in the ball backend against the claim's total; then, per certification
method, how many goals it was asked, how many it decided and its CPU seconds.  Ratios, not absolute timings, are the point:
run it on the reference machine with `python3 bench/bench_certify.py`.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import sympy as sp  # noqa: E402

from verify_claims import Inequality, Maximiser, Monotonic, Ref, Root  # noqa: E402
from verify_claims.run.collect import load_derivations  # noqa: E402
from verify_claims.model.status import INEQUALITY_LIKE  # noqa: E402
from verify_claims.run.settings import Settings  # noqa: E402
from verify_claims.engine.verify import verify  # noqa: E402

b, g, p, x = sp.symbols("beta gamma p x")
u = 1 - b / g
PI14 = (u + sp.sqrt(u ** 2 + 4 * b / g * p)) / 2
PI15 = (2 * b ** 2 * p + 1 + sp.sqrt(1 + 4 * b ** 2 * p * (1 - p))) / (2 * (1 + b ** 2))
POS = sp.Interval.open(0, sp.oo)
D = {b: POS, g: sp.Interval.Lopen(0, 1), p: sp.Interval(0, 1)}
DO = {b: POS, g: sp.Interval.Lopen(0, 1), p: sp.Interval.open(0, 1)}
R = Ref("2.3.1")
SHAPES = [
    Inequality(id="b-pi14-lower-bound", title="(14) >= max{1 - b/g, p}", ref=R, lhs=PI14, op=">=", rhs=sp.Max(u, p), domain=D),
    Inequality(id="b-pi15-lower-bound", title="(15) >= max{1/(1+b^2), p}", ref=R, lhs=PI15, op=">=",
               rhs=sp.Max(1 / (1 + b ** 2), p), domain={b: POS, p: sp.Interval(0, 1)}),
    Inequality(id="b-bounds-compare", title="1/(1+b^2) > 1-b", ref=R, lhs=1 / (1 + b ** 2), op=">", rhs=1 - b, domain={b: POS}),
    Monotonic(id="b-pi14-dec-beta", title="(14) decreasing in beta", ref=R, expr=PI14, var=b, direction="decreasing", domain=DO),
    Monotonic(id="b-pi14-inc-gamma", title="(14) increasing in gamma", ref=R, expr=PI14, var=g, direction="increasing", domain=DO),
    Monotonic(id="b-pi14-inc-pref", title="(14) increasing in pi_ref", ref=R, expr=PI14, var=p, direction="increasing", domain=DO),
    Root(id="b-pi14-unique-root", title="(14) unique root in [0,1]", ref=Ref("B.1"), equation=sp.Eq(x ** 2 - u * x - b / g * p, 0),
         var=x, value=PI14, interval=sp.Interval(0, 1), unique=True,
         domain={b: POS, g: sp.Interval.Lopen(0, 1), p: sp.Interval.Lopen(0, 1)}),
    Maximiser(id="b-pi14-maximises-potential", title="(14) maximises g x - b KL(p || x) (route A)", ref=R,
              objective=g * x - b * (p * sp.log(p / x) + (1 - p) * sp.log((1 - p) / (1 - x))), wrt=(x,),
              at={x: PI14}, over={x: sp.Interval.open(0, 1)}, domain=DO),
    Root(id="b-pi14-solves-17-poles", title="(14) the only root of (17) on [0, 1] (poles at the ends)", ref=Ref("B.1"),
         equation=sp.Eq(b * (x - p) / (x * (1 - x)), g), var=x, value=PI14, interval=sp.Interval(0, 1), unique=True,
         domain=DO),
    Root(id="b-pi15-solves-19-squared", title="(15) the only root of (19) (squaring)", ref=Ref("B.1"),
         equation=sp.Eq(b * (x - p), sp.sqrt(x * (1 - x))), var=x, value=PI15, interval=sp.Interval(0, 1), unique=True,
         domain={b: POS, p: sp.Interval.open(0, 1)}),
    Inequality(id="b-log-tight-interval", title="x - log x - 1 >= 0 (interval)", ref=Ref("1"), lhs=x - sp.log(x) - 1, op=">=",
               rhs=0, domain={x: sp.Interval.open(0, 4)}, certify_with="interval"),
]


PER_METHOD: dict = {}  # method -> [goals asked, goals decided, CPU seconds]


def _timed_backends():
    """Count every backend call (CPU time, decided or not) by method, for this benchmark."""
    from verify_claims.engine import goals

    inner = goals._run_backend

    def timed(name, goal, seconds, cx_check, trace):
        t = time.process_time()
        try:
            out = inner(name, goal, seconds, cx_check, trace)
        except Exception:
            _count(name, False, time.process_time() - t)
            raise
        _count(name, out[0] == "holds", time.process_time() - t)
        return out

    goals._run_backend = timed


def _count(name, decided, seconds):
    row = PER_METHOD.setdefault(name, [0, 0, 0.0])
    row[0] += 1
    row[1] += int(decided)
    row[2] += seconds


def import_floor() -> float:
    """CPU seconds of `import sympy, mpmath, jinja2` in a fresh interpreter (the floor the
    other benchmarks divide by), the median of three, measured as bench_run.py measures it."""
    from bench_run import median_of, timed
    return median_of(3, lambda: timed([sys.executable, "-c", "import sympy, mpmath, jinja2"]))[1]


def main():
    settings = Settings()
    floor = import_floor()
    print(f"import floor (import sympy, mpmath, jinja2): {floor:.2f} s CPU; ball time is also printed as a "
          "multiple of it, to compare machines")
    root = Path(__file__).resolve().parents[1]
    loaded = load_derivations(root / "derivations")
    claims = [c for c in loaded.claims if c.kind in INEQUALITY_LIKE] + SHAPES
    if "--checked" in sys.argv:
        # the claims issue 10 is about: those a run without the ball backend left checked
        claims = [c for c in claims if c.id in CHECKED_BEFORE_BALL]
    for c in SHAPES:
        c.validate()
    _timed_backends()
    t0 = time.perf_counter()
    total_cert = 0.0
    print(f"{'claim':<52} {'status':<10} {'method':<22} {'certify s':>9} {'ball s':>7} {'ball/floor':>10} "
          f"{'total s':>8}")
    slowest_ball = (0.0, "")
    for c in claims:
        before = PER_METHOD.get("ball", [0, 0, 0.0])[2]
        r = verify(c, settings)
        cert = r.evidence.get("certificate") or {}
        cs = cert.get("seconds") or 0.0
        total_cert += cs
        ball = PER_METHOD.get("ball", [0, 0, 0.0])[2] - before
        print(f"{c.id:<52} {r.status:<10} {str(cert.get('method') or '-'):<22} {cs:9.3f} {ball:7.3f} "
              f"{ball / floor:9.1f}x {r.seconds:8.2f}")
        if "ball" in str(cert.get("method") or "") and r.status == "certified":
            slowest_ball = max(slowest_ball, (ball, c.id))
    wall = time.perf_counter() - t0
    print(f"total: {len(claims)} claims, certification {total_cert:.2f} s of {wall:.2f} s wall "
          f"({100 * total_cert / wall:.0f}%)")
    if slowest_ball[1]:
        print(f"slowest claim the ball backend certified: {slowest_ball[1]}, {slowest_ball[0]:.2f} s of ball time "
              f"({slowest_ball[0] / floor:.1f}x the import floor)")
    print(f"{'method':<10} {'goals':>6} {'decided':>8} {'CPU s':>8}")
    for name, (asked, decided, secs) in sorted(PER_METHOD.items()):
        print(f"{name:<10} {asked:6d} {decided:8d} {secs:8.2f}")


# checked, not certified, before the ball backend (main at c9caefe): the 14 that are not
# limits over a symbolic G
CHECKED_BEFORE_BALL = {
    "stationary-eq11-local-maximiser-g2", "b2-large-g-h-positive-when-min-positive",
    "direct-kl-large-g-small-beta-instance", "direct-kl-large-g-large-beta-instance",
    "direct-kl-large-g-small-beta-no-interior-stationary", "direct-kl-large-g-small-beta-optimum-one",
    "b2-large-g-threshold-single-stationary", "direct-kl-large-g-two-stationary-lower",
    "direct-kl-large-g-two-stationary-upper", "direct-kl-large-g-potential-lower-local-max",
    "direct-kl-large-g-potential-upper-local-min", "direct-kl-large-g-potential-increasing-to-one",
    "shift-only-direct-kl-maximiser-g2", "shift-only-direct-kl-maximiser-g3"}


if __name__ == "__main__":
    main()
