"""Section 1 (Introduction): the GRPO objective (1), the advantage (2) and its pairwise form.

Claims of Section 1 encoded here:
- the pairwise form of the advantage (display after Eq. (2)): its numerator and the
  radicand of its denominator equal those of Eq. (2), for G = 2, 3, 4, hence the two
  forms of A_i agree whenever the rewards are not all equal;
- the tie convention A_i = 0/0 := 0 of Eq. (2);
- invariance of A_i under shifts and (positive) rescalings of the rewards (paragraph
  after the display after (2)), with what happens for a negative scale;
- the penalty term D_i of Eq. (1) is non-negative and vanishes only at pi_theta = pi_ref
  (a supporting lemma: D_i is the function x - log x - 1 of x = pi_ref / pi_theta);
- the clip function of Eq. (1): the paper's verbal description differs from PPO's clip.

Only concrete group sizes are encoded: a symbolic-G version would need IndexedBase /
Sum objects, which are not plain symbols with a domain.  Index i = 1 is used
throughout; other i follow by relabelling the rewards.
"""

import sympy as sp

from _grpo import advantage, advantage_with_ties, mean, std  # noqa: F401 - std, HOLDS: used by the tests through this module
from _notation import name
from _s1_helpers import (advantage_pairwise, clip_as_described, clip_ppo, clipped_advantage,
                         not_all_equal, pairwise_mean_deviation, pairwise_variance,
                         population_variance)
from verify_claims import HOLDS, Identity, Inequality, Narrowed, Notation, Ref, Root, not_in_general, refuted  # noqa: F401

R = sp.Interval(-sp.oo, sp.oo)
POS = sp.Interval.open(0, sp.oo)

# the paper's notation (Section 1): rewards r_i of the group, a shift c and a scale s of the
# rewards, the clip's argument x (the ratio pi_theta / pi_theta_old) and threshold epsilon,
# an advantage A_i, and the two probabilities of output o_i in the penalty term D_i
NOTATION = Notation()
r1, r2, r3, r4 = (NOTATION.symbol(f"r{k}", f"r_{k}") for k in range(1, 5))
c, s = sp.symbols("c s")
x = NOTATION.symbol("x", "x")
eps = NOTATION.symbol("epsilon", r"\epsilon")
A = NOTATION.symbol("A", "A_i")
pi = NOTATION.symbol("pi_theta", r"\pi_\theta(o_i \mid q)")
pi_ref = NOTATION.symbol("pi_ref", r"\pi_{\mathrm{ref}}(o_i \mid q)")

REWARDS = {2: (r1, r2), 3: (r1, r2, r3), 4: (r1, r2, r3, r4)}


def _rs(rs, f=lambda r: r):
    """The group (r_1, ..., r_G) in LaTeX, each reward transformed by f."""
    return ", ".join(f(f"r_{k}") for k in range(1, len(rs) + 1))


for _G, _rs_G in REWARDS.items():   # the paper's names of the group's mean, std^2 and A_1
    name(NOTATION, mean(_rs_G), rf"\operatorname{{mean}}({_rs(_rs_G)})")
    name(NOTATION, population_variance(_rs_G), rf"\operatorname{{std}}({_rs(_rs_G)})^2")
    name(NOTATION, advantage(_rs_G, 0), rf"A_1({_rs(_rs_G)})")
    name(NOTATION, pairwise_variance(_rs_G),
         rf"\frac{{1}}{{2 \cdot {_G}^2}} \sum_{{j=1}}^{{{_G}}} \sum_{{k=1}}^{{{_G}}} (r_j - r_k)^2")
    name(NOTATION, advantage([s * r for r in _rs_G], 0), rf"A_1({_rs(_rs_G, lambda t: 's ' + t)})")


def _reals(rs):
    return {r: R for r in rs}


def _fixed_g(G):
    """Eq. (2) and what the paper says of it hold for every group size; verified at one G."""
    return Narrowed(paper=r"every group size $G \ge 2$ (Eq. (2) and the text after it)",
                    verified=f"$G = {G}$, for the advantage of output $i = 1$ (other $i$ by relabelling)",
                    reason="a symbolic-G statement needs indexed sums, which are not plain symbols with a "
                           "domain: the identity is verified for each listed group size separately")


CLAIMS = []

# ---------------------------------------------------------------- pairwise form of A_i
for G, rs in REWARDS.items():
    CLAIMS.append(Identity(
        id=f"advantage-numerator-pairwise-g{G}", narrowed=_fixed_g(G),
        title=f"Advantage numerator as an average of pairwise reward differences ($G = {G}$)",
        ref=Ref("1", eq="2", note="numerator of the display after (2)"),
        lhs=pairwise_mean_deviation(rs, 0),
        rhs=rs[0] - mean(rs),
        domain=_reals(rs),
        display=rf"\frac{{1}}{{{G}}} \sum_{{j=1}}^{{{G}}} (r_1 - r_j) = r_1 - \operatorname{{mean}}({_rs(rs)})",
        note="(1/G) sum_j (r_1 - r_j) = r_1 - mean(r_1, ..., r_G); other i by relabelling.",
    ))
    CLAIMS.append(Identity(
        id=f"advantage-variance-pairwise-g{G}", narrowed=_fixed_g(G),
        title=f"Population variance of the rewards as half the mean squared pairwise "
              f"difference ($G = {G}$)",
        ref=Ref("1", eq="2", note="denominator of the display after (2)"),
        lhs=population_variance(rs),
        rhs=pairwise_variance(rs),
        domain=_reals(rs),
        note="std(r)^2 = (1/G) sum_i (r_i - mean)^2 = (1/(2G^2)) sum_j sum_k (r_j - r_k)^2.",
    ))
    CLAIMS.append(Identity(
        id=f"advantage-pairwise-form-g{G}", narrowed=_fixed_g(G),
        title=f"The advantage of Eq. (2) equals its pairwise-difference form ($G = {G}$)",
        ref=Ref("1", eq="2", note="display after (2)"),
        lhs=advantage(rs, 0),
        rhs=advantage_pairwise(rs, 0),
        domain=_reals(rs),
        where=(not_all_equal(rs),),
        uses=(f"advantage-numerator-pairwise-g{G}", f"advantage-variance-pairwise-g{G}"),
        note="Both forms are 0/0 when all rewards are equal, so the comparison is on groups "
             "with at least two distinct rewards; the tie case is the convention of (2).",
    ))

# ---------------------------------------------------------------- tie convention
_c3 = (c, c, c)
CLAIMS.append(Identity(
    id="advantage-tie-convention-g3", narrowed=_fixed_g(3),
    title="With all rewards of the group equal, the advantage is set to zero ($G = 3$)",
    ref=Ref("1", eq="2", note="sentence after (2)"),
    lhs=advantage_with_ties(_c3, 0),
    rhs=sp.Integer(0),
    domain={c: R},
    display=r"A_1(c, c, c) = 0",
    note="Numerator r_i - mean and std both vanish at r_1 = ... = r_G (0/0); Eq. (2) sets "
         "A_i := 0 there.  The convention is a definition, not a limit: A_1 at "
         "(c + t, c, c) equals sqrt(2) for every t > 0, so A_i is discontinuous at ties.",
))

# ---------------------------------------------------------------- shift / scale invariance
for G in (3, 4):
    rs = REWARDS[G]
    CLAIMS.append(Identity(
        id=f"advantage-shift-invariant-g{G}", narrowed=_fixed_g(G),
        title=f"The advantage is unchanged when every reward is shifted by the same constant "
              f"($G = {G}$)",
        ref=Ref("1", eq="2", note="paragraph after the display after (2)"),
        lhs=advantage([r + c for r in rs], 0),
        rhs=advantage(rs, 0),
        domain={**_reals(rs), c: R},
        display=rf"A_1({_rs(rs, lambda t: t + ' + c')}) = A_1({_rs(rs)})",
        where=(not_all_equal(rs),),
        uses=(f"advantage-numerator-pairwise-g{G}", f"advantage-variance-pairwise-g{G}"),
        note="Visible from the pairwise form: only differences r_j - r_k enter.",
    ))
    CLAIMS.append(Identity(
        id=f"advantage-scale-invariant-g{G}", narrowed=_fixed_g(G),
        title=f"The advantage is unchanged when every reward is multiplied by the same "
              f"positive factor ($G = {G}$)",
        ref=Ref("1", eq="2", note="paragraph after the display after (2)"),
        lhs=advantage([s * r for r in rs], 0),
        rhs=advantage(rs, 0),
        domain={**_reals(rs), s: POS},
        where=(not_all_equal(rs),),
        uses=(f"advantage-pairwise-form-g{G}",),
        note="Numerator scales by s, the std by |s| = s for s > 0.",
    ))

rs3 = REWARDS[3]
CLAIMS.append(Identity(
    id="advantage-negative-scale-flips-sign-g3", narrowed=_fixed_g(3),
    title="A negative common factor on the rewards flips the sign of every advantage ($G = 3$)",
    ref=Ref("1", eq="2", note="paragraph after the display after (2)"),
    lhs=advantage([s * r for r in rs3], 0),
    rhs=-advantage(rs3, 0),
    domain={**_reals(rs3), s: sp.Interval.open(-sp.oo, 0)},
    display=r"A_1(s r_1, s r_2, s r_3) = -A_1(r_1, r_2, r_3), \quad s < 0",
    where=(not_all_equal(rs3),),
    uses=("advantage-pairwise-form-g3",),
    note="Not stated in the paper; it delimits the scale-invariance claim: std(s r) = |s| std(r).",
))
CLAIMS.append(Identity(
    id="advantage-scale-invariant-any-sign-g3",
    title="Scale invariance of the advantage read for every non-zero factor, of either sign "
          "($G = 3$)",
    ref=Ref("1", eq="2", note="paragraph after the display after (2)"),
    lhs=advantage([s * r for r in rs3], 0),
    rhs=advantage(rs3, 0),
    domain={**_reals(rs3), s: R},
    where=(not_all_equal(rs3), sp.Ne(s, 0)),
    uses=("advantage-scale-invariant-g3", "advantage-negative-scale-flips-sign-g3"),
    expect=not_in_general(
        "invariance holds only for positive scale factors; $s < 0$ negates every $A_i$ "
        "(the paper's 'scale transformations' leaves the sign implicit)"),
    note="Judgement: 'scale transformation' conventionally means a positive rescaling "
         "(a negative factor also reverses the reward order, i.e. which output is "
         "preferred), so this is recorded as a boundary of the paper's statement rather "
         "than as an error (not_in_general, paper_error=False).  The correct statement for "
         "s != 0 is A_i(s r) = sign(s) A_i(r): see advantage-scale-invariant-g3 and "
         "advantage-negative-scale-flips-sign-g3.",
))

# ---------------------------------------------------------------- D_i of Eq. (1)
_D = name(NOTATION, pi_ref / pi - sp.log(pi_ref / pi) - 1, r"D_i(\theta)")
CLAIMS.append(Inequality(
    id="penalty-term-nonnegative",
    title="The per-output penalty term $D_i$ of the GRPO objective is non-negative",
    ref=Ref("1", eq="1", note="definition of D_i"),
    lhs=_D,
    op=">=",
    rhs=sp.Integer(0),
    domain={pi: sp.Interval.Lopen(0, 1), pi_ref: sp.Interval.Lopen(0, 1)},
    note="Supporting lemma (not stated in Section 1): with x = pi_ref/pi_theta > 0, "
         "D_i = x - log x - 1 >= 0, i.e. log x <= x - 1.  Used for KL >= 0 in Section 1.1.",
))
CLAIMS.append(Root(
    id="penalty-term-zero-iff-reference",
    title="The penalty term $D_i$ vanishes exactly when the policy probability equals the "
          "reference probability",
    ref=Ref("1", eq="1", note="definition of D_i"),
    equation=sp.Eq(_D, 0),
    var=pi,
    value=pi_ref,
    interval=sp.Interval.Lopen(0, 1),
    unique=True,
    domain={pi_ref: sp.Interval.Lopen(0, 1)},
    uses=("penalty-term-nonnegative",),
    note="Supporting lemma: x - log x - 1 has its only zero at x = 1 on (0, oo).",
))

# ---------------------------------------------------------------- the clip of Eq. (1)
_clip_domain = {x: POS, eps: POS}
# the clip as the paper describes it (1 outside the band) and as PPO / GRPO implement it
name(NOTATION, clip_as_described(x, eps), r"\operatorname{clip}_\epsilon(x)")
name(NOTATION, clip_ppo(x, eps), r"\operatorname{clip}^{\mathrm{PPO}}_\epsilon(x)")
name(NOTATION, clipped_advantage(x, A, clip_as_described, eps), r"\tilde{A}_i")
name(NOTATION, clipped_advantage(x, A, clip_ppo, eps), r"\tilde{A}_i^{\mathrm{PPO}}")
CLAIMS.append(Identity(
    id="clip-description-agrees-inside-band",
    title="The described clip and PPO's clip agree for ratios within the clipping band",
    ref=Ref("1", eq="1", note="sentence defining clip_eps after (1)"),
    lhs=clip_as_described(x, eps),
    rhs=clip_ppo(x, eps),
    domain=_clip_domain,
    where=(x >= 1 - eps, x <= 1 + eps),
    note="Both return x on [1 - eps, 1 + eps].",
))
CLAIMS.append(Identity(
    id="clip-description-equals-ppo-clip",
    title="The clip function as described in the paper coincides with PPO's clip",
    ref=Ref("1", eq="1", note="sentence defining clip_eps after (1)"),
    lhs=clip_as_described(x, eps),
    rhs=clip_ppo(x, eps),
    domain=_clip_domain,
    uses=("clip-description-agrees-inside-band",),
    expect=refuted(
        r"the paper says $\operatorname{clip}_\epsilon(x) = 1$ outside $[1-\epsilon, 1+\epsilon]$; PPO/GRPO clip "
        r"to the nearest end ($x = 1.5$, $\epsilon = 0.2$: described 1, PPO 1.2)"),
    note="Finding: the verbal description of clip_eps after Eq. (1) is not the PPO clip "
         "min(max(x, 1-eps), 1+eps) used by PPO and GRPO.  It does not affect the paper's "
         "results, which drop the clipping term (Section 1.3).",
))
CLAIMS.append(Identity(
    id="clipped-advantage-description-equals-ppo",
    title="The clipped surrogate of the objective is the same with the described clip as "
          "with PPO's clip",
    ref=Ref("1", eq="1", note="tilde A_i with clip_eps"),
    lhs=clipped_advantage(x, A, clip_as_described, eps),
    rhs=clipped_advantage(x, A, clip_ppo, eps),
    domain={**_clip_domain, A: R},
    uses=("clip-description-equals-ppo-clip",),
    expect=refuted(
        r"with the described clip, $\tilde{A}_i = \min(x A_i, A_i)$ outside the band, not PPO's "
        r"($x = 1.5$, $\epsilon = 0.2$, $A_i = 1$: 1 vs 1.2)"),
    note="Consequence of clip-description-equals-ppo-clip for tilde A_i in Eq. (1): the two "
         "surrogates differ when x > 1 + eps with A > 0 or x < 1 - eps with A < 0.",
))
CLAIMS.append(Identity(
    id="clip-is-nearest-end-of-band",
    title=r"Corrected description: outside $[1-\epsilon, 1+\epsilon]$ the clip returns the nearest end "
          r"of the band",
    ref=Ref("1", eq="1", note="sentence defining clip_eps after (1), corrected"),
    lhs=clip_ppo(x, eps),
    rhs=sp.Piecewise((1 - eps, x < 1 - eps), (1 + eps, x > 1 + eps), (x, True)),
    domain=_clip_domain,
    uses=("clip-description-equals-ppo-clip",),
    note="The statement the paper's sentence should make: clip_eps(x) = 1 - eps for x < 1 - eps, "
         "1 + eps for x > 1 + eps, and x otherwise, i.e. min(max(x, 1 - eps), 1 + eps).",
))
CLAIMS.append(Identity(
    id="clipped-advantage-nearest-end",
    title=r"Corrected: the clipped surrogate is $\min(x, 1+\epsilon) A_i$ for $A_i \ge 0$ and "
          r"$\max(x, 1-\epsilon) A_i$ for $A_i < 0$",
    ref=Ref("1", eq="1", note="tilde A_i with clip_eps, corrected"),
    lhs=clipped_advantage(x, A, clip_ppo, eps),
    rhs=sp.Piecewise((sp.Min(x, 1 + eps) * A, A >= 0), (sp.Max(x, 1 - eps) * A, True)),
    domain={**_clip_domain, A: R},
    uses=("clipped-advantage-description-equals-ppo", "clip-is-nearest-end-of-band"),
    note="With the nearest-end clip, min(x A, clip(x) A) caps the ratio at 1 + eps when the advantage "
         "is positive and at 1 - eps from below when it is negative (PPO's pessimistic surrogate).",
))
