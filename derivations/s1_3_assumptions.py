"""Section 1.3: the additional assumptions (support of the reference policy, no clipping).

Notation: x = pi_theta(o|q) / pi_theta_old(o|q) is the probability ratio of Eq. (1),
A an advantage, eps the clipping parameter; pi = pi_theta(o|q), ref = pi_ref(o|q).
The penalty term is D_i of Eq. (1): ref/pi - log(ref/pi) - 1.
"""

import sympy as sp

from verify_claims import Identity, Limit, Narrowed, Notation, Ref

from _s1_helpers import clip_as_described, clip_ppo, clipped_advantage

NOTATION = Notation()
x = NOTATION.symbol("x", "x")
A = NOTATION.symbol("A", "A_i")
eps = NOTATION.symbol("epsilon", r"\epsilon")

# the clip's epsilon is any positive hyperparameter (Section 1); the claims take epsilon < 1
SMALL_EPS = Narrowed(paper=r"every clipping threshold $\epsilon > 0$ (a positive hyperparameter, Section 1)",
                     verified=r"$0 < \epsilon < 1$",
                     reason=r"the paragraph is about small steps, where the band $[1-\epsilon, 1+\epsilon]$ has a "
                            r"positive lower end; $\epsilon \ge 1$ is not checked (the statement holds there too)")
pi = NOTATION.symbol("pi", r"\pi_\theta(o \mid q)")
ref = NOTATION.symbol("pi_ref", r"\pi_{\mathrm{ref}}(o \mid q)")
old = NOTATION.symbol("pi_old", r"\pi_{\theta_{\mathrm{old}}}(o \mid q)")
# the clipped surrogate min(x A_i, clip_eps(x) A_i) of Eq. (1), with the described and PPO's clip
NOTATION.define(clipped_advantage(x, A, clip_as_described, eps), r"\tilde{A}_i")
NOTATION.define(clipped_advantage(x, A, clip_ppo, eps), r"\tilde{A}_i^{\mathrm{PPO}}")
NOTATION.define(sp.Min(sp.Max(pi / old, 1 - eps), 1 + eps),
                r"\operatorname{clip}^{\mathrm{PPO}}_\epsilon\left(\frac{\pi_\theta(o \mid q)}"
                r"{\pi_{\theta_{\mathrm{old}}}(o \mid q)}\right)")

CLAIMS = []

CLAIMS.append(Limit(
    id="penalty-infinite-outside-reference-support",
    title=r"The penalty term $D_i$ becomes infinite when $\pi_{\mathrm{ref}}(o \mid q) \to 0$ while "
          r"$\pi_\theta(o \mid q) > 0$",
    ref=Ref("1.3", note="first paragraph: why the domain of pi_theta is within the support of pi_ref"),
    expr=ref / pi - sp.log(ref / pi) - 1, var=ref, point=0, direction="+", value=sp.oo,
    domain={pi: sp.Interval.Lopen(0, 1)},
    display=r"\lim_{\pi_{\mathrm{ref}}(o \mid q) \to 0^+} \left(\frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} "
            r"- \log \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} - 1\right) = \infty",
    uses=("penalty-term-nonnegative",),
    note="At pi_ref = 0 the term -log(pi_ref/pi) of D_i is +infinity; as a one-sided limit "
         "pi_ref -> 0+ for every fixed pi_theta in (0, 1].",
))

# |pi - old| <= eps * old is the same as 1 - eps <= x <= 1 + eps for x = pi / old
CLAIMS.append(Identity(
    id="epsilon-relative-step-is-ratio-band", narrowed=SMALL_EPS,
    title=r"An $\epsilon$-relative difference $|\pi_\theta - \pi_{\theta_{\mathrm{old}}}| \le \epsilon "
          r"\pi_{\theta_{\mathrm{old}}}$ keeps the ratio $\pi_\theta/\pi_{\theta_{\mathrm{old}}}$ in "
          r"$[1-\epsilon, 1+\epsilon]$",
    ref=Ref("1.3", note="second paragraph: new and old policies within an eps-relative difference"),
    lhs=sp.Min(sp.Max(pi / old, 1 - eps), 1 + eps), rhs=pi / old,
    domain={old: sp.Interval.Lopen(0, 1), pi: sp.Interval(0, 1), eps: sp.Interval.open(0, 1)},
    where=(sp.Abs(pi - old) <= eps * old,),
    note="Clipping the ratio to [1-eps, 1+eps] changes nothing when |pi - pi_old| <= eps pi_old.",
))

for name, clip, label in (("ppo", clip_ppo, "PPO's clip"), ("described", clip_as_described,
                                                                 "the clip as Section 1 describes it")):
    CLAIMS.append(Identity(
        id=f"clipping-inactive-for-small-steps-{name}", narrowed=SMALL_EPS,
        title=f"Within an $\\epsilon$-relative step the clipped term of Eq. (1) equals the unclipped $x A_i$ "
              f"({label})",
        ref=Ref("1.3", note="second paragraph: ignoring the clip is justified for small steps"),
        lhs=clipped_advantage(x, A, clip, eps), rhs=x * A,
        domain={x: sp.Interval.open(0, sp.oo), A: sp.Reals, eps: sp.Interval.open(0, 1)},
        where=(x >= 1 - eps, x <= 1 + eps),
        uses=("epsilon-relative-step-is-ratio-band",),
        note="min(x A, clip_eps(x) A) = x A whenever 1 - eps <= x <= 1 + eps, for every sign of A; so "
             "with small steps the objective without clipping has the same value (and, for an open "
             "band, the same gradient).",
    ))

UNCHECKABLE = [
    {"id": "stationary-policy-definition", "ref": Ref("1.3", note="second paragraph"),
     "statement": "A stationary policy is one whose parameter maximises the GRPO objective when the old "
                  "policy equals it.",
     "reason": "a definition; the claims of Sections 2.3-3 verify stationarity in this sense"},
    {"id": "small-step-size-keeps-eps-relative-difference", "ref": Ref("1.3", note="second paragraph"),
     "statement": "Running policy gradient with a sufficiently small step size keeps new and old policies "
                  "within an eps-relative difference.",
     "reason": "a statement about an optimisation algorithm's iterates, not a formula; its consequence for "
               "the objective is the claim clipping-inactive-for-small-steps-ppo"},
]
