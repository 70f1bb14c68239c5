"""DPO, Section 4: the optimum of the KL-regularised RLHF objective (Eqs. (3)-(5)).

Rafailov et al., "Direct Preference Optimization: Your Language Model is Secretly a
Reward Model" (2023, arXiv 2305.18290).  One prompt x with three responses a, b, c:
pi(y) = pi_theta(y | x), ref(y) = pi_ref(y | x), rewards r(y).  The RLHF objective (3) for
one prompt is J(pi) = E_{y ~ pi}[r(y)] - beta KL(pi || ref); its optimum (4) is the Gibbs
policy pi* = ref e^{r/beta} / Z; (5) reads the reward back off pi*.

KL and the Gibbs policy come from the installed package ``grpo_formulas`` (the same
definitions the bundled GRPO derivations use); nothing here imports a derivations helper.
"""

import sympy as sp

from grpo_formulas.closed_forms import gibbs
from grpo_formulas.divergence import kl, kl_rev
from verify_claims import Identity, Maximiser, Ref, Stationary, not_in_general

OUT = ("a", "b", "c")
REAL = sp.Interval(-sp.oo, sp.oo)
POS = sp.Interval.open(0, sp.oo)
UNIT = sp.Interval.open(0, 1)

beta = sp.Symbol("beta")
r = dict(zip(OUT, sp.symbols("r_a r_b r_c")))
p_a, p_b, p_c = sp.symbols("pi_a pi_b pi_c")
f_a, f_b = sp.symbols("ref_a ref_b")

PI = {"a": p_a, "b": p_b, "c": 1 - p_a - p_b}        # a policy on the open simplex
REF = {"a": f_a, "b": f_b, "c": 1 - f_a - f_b}       # the reference policy
PI_FREE = {"a": p_a, "b": p_b, "c": p_c}             # free coordinates, for Lagrange conditions

PI_DOMAIN = {p_a: UNIT, p_b: UNIT}
PI_WHERE = (p_a + p_b < 1,)
BASE_DOMAIN = {beta: POS, f_a: UNIT, f_b: UNIT, **{r[o]: REAL for o in OUT}}
REF_WHERE = (f_a + f_b < 1,)


def rlhf_objective(pi):
    """Eq. (3) of arXiv 2305.18290 for one prompt: E_{y ~ pi}[r(y)] - beta KL(pi || ref)."""
    return sp.Add(*[pi[o] * r[o] for o in pi]) - beta * kl(pi, REF)


PSTAR = gibbs(REF, r, beta)                           # Eq. (4): ref e^{r/beta} / Z
Z = sp.Add(*[REF[o] * sp.exp(r[o] / beta) for o in OUT])

CLAIMS = [
    Identity(
        id="rlhf-objective-gap",
        title="The RLHF objective of any policy is its value at the Gibbs policy minus beta times "
              "the KL divergence to the Gibbs policy",
        ref=Ref("4", eq="4", note="the optimum of (3); derived in Appendix A"),
        lhs=rlhf_objective(PI),
        rhs=rlhf_objective(PSTAR) - beta * kl(PI, PSTAR),
        domain={**BASE_DOMAIN, **PI_DOMAIN},
        where=REF_WHERE + PI_WHERE,
        note="Both sides equal beta log Z - beta KL(pi || pi*); with KL >= 0 (zero only at "
             "pi = pi*) this proves that (4) is the unique maximiser of (3).",
    ),
    Maximiser(
        id="rlhf-gibbs-maximiser",
        title="The Gibbs policy maximises the RLHF objective over the open simplex",
        ref=Ref("4", eq="4"),
        objective=rlhf_objective(PI),
        wrt=(p_a, p_b),
        at={p_a: PSTAR["a"], p_b: PSTAR["b"]},
        over={p_a: UNIT, p_b: UNIT},
        over_where=PI_WHERE,
        scope="global",
        domain=BASE_DOMAIN,
        where=REF_WHERE,
        uses=("rlhf-objective-gap",),
    ),
    *[Identity(
        id=f"reward-reparametrisation-{o}",
        title=f"The reward of response {o} is beta log(pi*/pi_ref) + beta log Z",
        ref=Ref("4", eq="5"),
        lhs=beta * sp.log(PSTAR[o] / REF[o]) + beta * sp.log(Z),
        rhs=r[o],
        domain=BASE_DOMAIN,
        where=REF_WHERE,
        note="Taking logarithms of (4); Z > 0 because every term ref e^{r/beta} is positive.",
    ) for o in ("a", "c")],
    Stationary(
        id="gibbs-not-stationary-reverse-kl",
        title="With the reverse KL penalty KL(pi_ref || pi) the Gibbs policy is not stationary",
        ref=Ref("4", eq="4", note="the optimum (4) is specific to the direct KL(pi || pi_ref) of (3)"),
        objective=sp.Add(*[PI_FREE[o] * r[o] for o in OUT]) - beta * kl_rev(PI_FREE, REF),
        wrt=(p_a, p_b, p_c),
        at={p_a: PSTAR["a"], p_b: PSTAR["b"], p_c: PSTAR["c"]},
        simplex=True,
        domain=BASE_DOMAIN,
        where=REF_WHERE,
        expect=not_in_general(
            "a deliberately wrong variant: (4) solves (3) with the direct KL(pi || pi_ref); with "
            "the reverse KL(pi_ref || pi), the penalty GRPO effectively uses (arXiv 2502.18548, "
            "Section 2.2), the Lagrange condition r(y) + beta ref(y)/pi(y) = const fails at (4)"),
        note="Shows the verifier refuting a plausible but wrong statement: the counterexample "
             "is a point (rewards, beta, pi_ref) where the gradient components differ.",
    ),
]
