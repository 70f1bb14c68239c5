"""Simulation: a statement about what an algorithm does, backed by running it.

The claim's ``run(seed, runs, **params)`` returns one estimate per run (e.g. the policy
each run settles at).  The kind

1. derives the seed from the settings' master seed and the claim's id (``simulation_seed``:
   the same numbers on every run, whatever the order, ``--only`` or the worker);
2. calls ``run`` (in the claim's worker, under the same CPU limit as every claim);
3. computes the mean over the runs and a two-sided Student t confidence interval for it
   at the claim's ``confidence`` (mean +- t_{(1+c)/2, n-1} s / sqrt(n), s the sample
   standard deviation of the per-run estimates, n the number of runs);
4. compares the target with that interval widened by ``tolerance`` on each side (the
   systematic error a finite step size or run length leaves, which more runs do not
   remove): inside -> **simulated**; outside -> **refuted**, with the mean, the interval,
   the target, the number of runs and what one run does.

Never proved, certified or checked: a simulation is statistical evidence about a model
of the algorithm, and its status says so.  A run function that raises or returns the
wrong number of estimates, or non-finite ones, is an error naming the claim and the
function's module.
"""

from __future__ import annotations

import hashlib
import math
import time
import traceback
from functools import lru_cache
from pathlib import Path

from ..model.result import Result
from ..model.status import Status
from ..run.fingerprint import versions
from .base import Kind

__all__ = ["KIND", "simulation_seed", "t_quantile", "t_interval"]


def simulation_seed(master_seed: int, claim_id: str) -> int:
    """The seed a simulation claim's run function gets: 63 bits of sha256 over the master
    seed and the claim id (deterministic, independent of order and process)."""
    return int.from_bytes(hashlib.sha256(f"simulation:{master_seed}:{claim_id}".encode()).digest()[:8], "big") >> 1


@lru_cache(maxsize=64)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with df degrees of freedom (p in (1/2, 1)), by bisection
    on the exact CDF 1 - I_{df/(df+t^2)}(df/2, 1/2)/2 (mpmath's regularised incomplete beta).

    The bisection stops once both ends round to the same float: every later midpoint lies
    between them and rounds to that float too, so the answer is the one 200 halvings gave
    (about 60 instead of 200 evaluations of the CDF).  Remembered per (p, df): a worker's
    simulation claims share their confidence and number of runs."""
    import mpmath as mp
    with mp.workdps(30):
        v = mp.mpf(df)

        def cdf(t):
            return 1 - mp.betainc(v / 2, mp.mpf(1) / 2, 0, v / (v + t * t), regularized=True) / 2
        lo, hi = mp.mpf(0), mp.mpf(1)
        while cdf(hi) < p:
            hi *= 2
        for _ in range(200):
            if float(lo) == float(hi):
                break
            mid = (lo + hi) / 2
            if cdf(mid) < p:
                lo = mid
            else:
                hi = mid
        return float((lo + hi) / 2)


def t_interval(values, confidence: float) -> dict:
    """Mean, sample standard deviation and the two-sided t-interval of the mean."""
    n = len(values)
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    sd = math.sqrt(var)
    t = t_quantile((1 + confidence) / 2, n - 1)
    half = t * sd / math.sqrt(n)
    return {"mean": mean, "sd": sd, "t": t, "half_width": half, "lo": mean - half, "hi": mean + half}


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _where(exc: BaseException) -> str:
    """The innermost frame of the traceback: file name, line and code."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" (at {Path(f.filename).name}, line {f.lineno}: {f.line})"


class SimulationKind(Kind):
    name = "simulation"
    cost = 3  # runs for seconds: start early

    def spot_check(self, claim, settings, rng, screen=False):  # pragma: no cover - evaluate() decides
        raise NotImplementedError("a simulation claim is decided by SimulationKind.evaluate")

    def evaluate(self, claim, settings) -> Result:
        """The whole verification of a simulation claim (see the module docstring)."""
        t0 = time.process_time()
        seed = simulation_seed(settings.seed, claim.id)
        fn = claim.function_name()
        module = getattr(claim.run, "__module__", "?")

        def error(message):
            return Result.for_claim(claim, Status.ERROR, method="simulation", message=message,
                                    evidence={"simulation": {"run_function": fn, "seed": seed}},
                                    seconds=round(time.process_time() - t0, 4))
        try:
            target = claim.target_value()
        except Exception as exc:  # noqa: BLE001 - a broken target is this claim's error
            return error(f"simulation {claim.id!r}: its target ({claim.function_name(claim.target)} in module "
                         f"{getattr(claim.target, '__module__', '?')}) raised {type(exc).__name__}: {exc}{_where(exc)}")
        try:
            raw = claim.run(seed, claim.runs, **claim.params)
        except Exception as exc:  # noqa: BLE001 - a run function that raises is this claim's error
            return error(f"simulation {claim.id!r}: its run function {fn} (module {module}) raised "
                         f"{type(exc).__name__}: {exc}{_where(exc)}")
        try:
            values = [float(v) for v in raw]
        except (TypeError, ValueError) as exc:
            return error(f"simulation {claim.id!r}: its run function {fn} (module {module}) must return a sequence of "
                         f"numbers, one per run ({type(exc).__name__}: {exc})")
        if len(values) != claim.runs:
            return error(f"simulation {claim.id!r}: its run function {fn} (module {module}) returned {len(values)} "
                         f"estimates for runs={claim.runs}")
        bad = [i for i, v in enumerate(values) if not math.isfinite(v)]
        if bad or not math.isfinite(target):
            what = f"run {bad[0]} gave {values[bad[0]]}" if bad else f"the target is {target}"
            return error(f"simulation {claim.id!r}: not a finite number: {what} (run function {fn}, module {module})")
        ci = t_interval(values, claim.confidence)
        lo, hi = ci["lo"] - claim.tolerance, ci["hi"] + claim.tolerance
        agrees = lo <= target <= hi
        distance = 0.0 if agrees else (lo - target if target < lo else target - hi)
        conf = f"{claim.confidence * 100:g}%"
        what = f"{claim.runs} runs" + (f" ({claim.describe})" if claim.describe else "")
        summary = (f"{what}: mean {_fmt(ci['mean'])}, {conf} t-interval [{_fmt(ci['lo'])}, {_fmt(ci['hi'])}], "
                   f"widened by the tolerance {claim.tolerance:g} to [{_fmt(lo)}, {_fmt(hi)}]; target {_fmt(target)}")
        evidence = {"simulation": {
            "summary": summary,
            "runs": claim.runs, "confidence": claim.confidence, "describe": claim.describe,
            "run_function": fn, "seed": seed,
            "params": {k: (v if isinstance(v, (int, float, str, bool)) or v is None else str(v))
                       for k, v in claim.params.items()},
            "interval": f"two-sided Student t-interval of the mean over runs, confidence {claim.confidence:g} "
                        f"(t = {ci['t']:.4f} with {claim.runs - 1} degrees of freedom)",
            "mean": ci["mean"], "sd_between_runs": ci["sd"], "ci_low": ci["lo"], "ci_high": ci["hi"],
            "tolerance": claim.tolerance, "target": target,
            "compared": "the target against the interval widened by the tolerance on both sides",
            "numpy": versions()["numpy"]}}
        seconds = round(time.process_time() - t0, 4)
        method = f"simulation ({claim.runs} runs, {conf} t-interval)"
        if agrees:
            return Result.for_claim(claim, Status.SIMULATED, method=method, message=f"{summary}: inside",
                                    evidence=evidence, seconds=seconds)
        cx = {"type": "simulation disagrees with the target",
              "mean": _fmt(ci["mean"]), "interval": f"[{_fmt(ci['lo'])}, {_fmt(ci['hi'])}]",
              "confidence": claim.confidence, "tolerance": claim.tolerance,
              "widened": f"[{_fmt(lo)}, {_fmt(hi)}]", "target": _fmt(target),
              "outside_by": _fmt(distance), "runs": claim.runs,
              **({"per_run": claim.describe} if claim.describe else {})}
        return Result.for_claim(claim, Status.REFUTED, method=method,
                                message=f"{summary}: outside, by {_fmt(distance)}", evidence=evidence,
                                counterexample=cx, seconds=seconds)


KIND = SimulationKind()
