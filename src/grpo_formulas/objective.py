"""GRPO's per-context alignment objective (arXiv 2502.18548, Section 2.3).

pi, ref, old: dicts {output: probability}; ``pg_old``: {output: P_G(o | pi_old, q)} (from
:func:`grpo_formulas.preference.expected_group_relative_preference`, or symbols).
"""

import sympy as sp

from .divergence import kl0

__all__ = ["expected", "grpo_objective"]


def expected(pi: dict, vals: dict):
    """E_{o ~ pi}[vals(o)] as a finite sum (the outer expectation of arXiv 2502.18548, Eq. (6))."""
    return sp.Add(*[pi[o] * vals[o] for o in pi])


def grpo_objective(pi: dict, pg_old: dict, ref: dict, old: dict, beta):
    """J_GRPO(pi | q) of arXiv 2502.18548, Section 2.3 (the objective whose stationarity
    condition is Eq. (11)): sum_o pi(o) P_G(o | pi_old) - beta KL_0(pi || ref; old), with the
    penalty as the reading Appendix A differentiates."""
    return expected(pi, pg_old) - beta * kl0(pi, ref, old)
