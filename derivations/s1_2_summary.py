"""The abstract and Section 1.2 (summary of findings): each summary statement, linked to
the claims that support it.

A ``Summary`` holds exactly as strongly as the weakest claim it uses, so each line of the
abstract and of Section 1.2 gets the verdict of the derivations behind it.  Where a summary
statement has a concrete quantitative consequence (the TRL default beta = 0.04), that
consequence is an inequality of its own.  Intent, interpretation and library facts are
listed in UNCHECKABLE.
"""

import sympy as sp

from verify_claims import Inequality, Narrowed, Notation, Ref, Summary

NOTATION = Notation()
beta = NOTATION.symbol("beta", r"\beta")   # the regularisation constant of Eq. (1)
GAMMA_DETERMINISTIC = sp.Integer(1)  # the margin of deterministic rewards (Section 2.3.1)
TRL_BETA = sp.Rational(1, 25)  # 0.04, the default the paper quotes for TRL (footnote 1)

CLAIMS = [
    # ------------------------------------------------------------------ abstract
    Summary(
        id="abstract-penalty-is-reverse-kl",
        title="The penalty essentially corresponds to the reverse KL divergence between the policy and "
              "the reference policy",
        ref=Ref("Abstract", note="second paragraph"),
        uses=("grpo-penalty-shares-stationary-points-with-reverse-kl",
              "kl0-on-policy-and-reverse-kl-same-simplex-gradient"),
        note="'Essentially': on-policy the GRPO penalty and reverse KL have the same projected gradient "
             "on the simplex, hence the same stationary points (Section 2.2).",
    ),
    Summary(
        id="abstract-aggregation-differs-from-logarithmic-pooling",
        title="GRPO's preference aggregation differs from the logarithmic pooling of RLHF",
        ref=Ref("Abstract", note="second paragraph"),
        uses=("stationary-g-rewrite", "stationary-g-not-logarithmic-pooling", "rlhf-logarithmic-pooling-3"),
        note="RLHF's policy is logarithmic pooling (Section 1.1); GRPO's stationary policy scales pi_ref "
             "by g(x) = 1/(1 - x), which is not exponential (a counterexample confirms the difference).",
    ),
    Summary(
        id="abstract-groups-of-two-pairwise-preferences",
        title="For groups of size two the reward preference model is a pairwise comparison preference",
        ref=Ref("Abstract", note="third paragraph"),
        uses=("p2-is-win-minus-loss-probability", "r2-expected-win-minus-loss"),
        note="Precisely: P_2(o | {o'}) = P(o > o') - P(o' > o) (the literal 'corresponds to P(o > o')' "
             "is refuted in Section 2.1).",
    ),
    Summary(
        id="abstract-binary-closed-forms",
        title="Explicit characterisations of the aggregate preference for binary questions, for groups of "
              "two and for large groups",
        ref=Ref("Abstract", note="third paragraph"),
        uses=("binary-g2-closed-form", "binary-large-g-closed-form"),
        note="(14) and (15) solve the stationarity condition (11) (and are its unique admissible "
             "solutions).  They are first-order stationary points: with pi_old frozen at them they need "
             "not maximise the objective (see binary-g2-closed-form-maximises-frozen-objective).",
    ),
    Summary(
        id="abstract-dependence-on-beta-and-margin",
        title="The aggregate preference depends on the regularisation constant and the confidence margin "
              "as expected",
        ref=Ref("Abstract", note="third paragraph"),
        uses=("binary-g2-decreasing-in-beta", "binary-g2-increasing-in-gamma", "binary-g2-depends-on-ratio-only"),
    ),
    Summary(
        id="abstract-variants-direct-kl-and-shift-only",
        title="Aggregation under the direct KL penalty and under shift-only normalisation is characterised",
        ref=Ref("Abstract", note="last paragraph"),
        uses=("direct-kl-exp-form-maximiser-g3", "shift-only-reward-pref-g3", "shift-only-direct-kl-is-rlhf"),
    ),
    # ------------------------------------------------------------------ Section 1.2
    Summary(
        id="summary-aggregation-scales-reference-by-increasing-function",
        title="Aggregation scales the reference probability by a function increasing in the output's "
              "expected advantage relative to a random group from the aggregate policy",
        ref=Ref("1.2", note="second bullet"),
        uses=("stationary-g-rewrite", "stationary-g-increasing", "stationary-g-not-logarithmic-pooling"),
    ),
    Summary(
        id="summary-groups-of-two-pairwise",
        title="Groups of two: the reward preference model is a pairwise comparison preference of point "
              "rewards",
        ref=Ref("1.2", note="third bullet"),
        uses=("p2-is-win-minus-loss-probability", "r2-expected-win-minus-loss"),
    ),
    Summary(
        id="summary-large-groups-normalised-expected-reward",
        title="Large groups: the reward preference converges to the expected reward normalised by the "
              "standard deviation under the old policy",
        ref=Ref("1.2", note="third bullet"),
        uses=("reward-pref-binary-limit-r-inf", "r-inf-binary-closed-form", "group-std-l2-consistent-binary"),
        note="Checked for two reward levels (binary rewards), where the limit is a sum over a symbolic "
             "group size evaluated by a summation ladder.",
    ),
    Summary(
        id="summary-penalty-reverse-kl-for-stationary-policies",
        title="For stationary policies the GRPO penalty is essentially the reverse KL divergence",
        ref=Ref("1.2", note="fourth bullet"),
        uses=("grpo-penalty-shares-stationary-points-with-reverse-kl",
              "kl0-on-policy-and-reverse-kl-same-simplex-gradient", "kl0-on-policy-gradient-is-reverse-kl-plus-one"),
    ),
    Summary(
        id="summary-binary-closed-forms",
        title="Closed forms for the stationary policies of binary questions, for groups of two and large "
              "groups, favouring the more rewarding answer",
        ref=Ref("1.2", note="fifth bullet"),
        uses=("binary-g2-closed-form", "binary-large-g-closed-form", "binary-g2-lower-bound",
              "binary-large-g-lower-bound"),
        note="'Favouring the more rewarding answer': both closed forms are at least pi_ref(a).",
    ),
    Summary(
        id="summary-g2-guarantee-depends-on-ratio-only",
        title="Groups of two: the better answer gets probability at least a value depending only on "
              r"$\beta/\gamma_{a,b}$, approaching 1 as the ratio goes to 0",
        ref=Ref("1.2", note="fifth bullet"),
        uses=("binary-g2-lower-bound", "binary-g2-close-to-one-for-positive-pi-ref", "binary-g2-limit-beta-zero"),
        note="For pi_ref(a) > 0; at pi_ref(a) = 0 the policy is 0 (the support convention), see "
             "binary-g2-close-to-one-regardless-of-pi-ref.",
    ),
    Summary(
        id="summary-large-groups-guarantee-depends-on-beta-only",
        title="Large groups: the guarantee depends on the regularisation constant alone",
        ref=Ref("1.2", note="fifth bullet"),
        uses=("binary-large-g-lower-bound", "binary-large-g-depends-only-on-comparison",
              "binary-large-g-bound-exceeds-g2-bound"),
        note="For deterministic rewards; with stochastic rewards the large-group policy also depends on "
             "the reward variances (binary-large-g-depends-only-on-comparison-stochastic-rewards).",
    ),
    Inequality(
        id="summary-trl-default-beta-large-groups",
        paper_domain={beta: "Section 1.2 speaks of beta = 0.04, TRL's default; (0, 0.04] contains it (wider, not "
                            "narrower)"},
        title=r"At $\beta = 0.04$ (TRL's default) the large-group guarantee $1/(1 + \beta^2)$ exceeds 0.998",
        ref=Ref("1.2", note="fifth bullet, TRL default beta = 0.04"),
        lhs=1 / (1 + beta ** 2), op=">", rhs=sp.Rational(998, 1000),
        domain={beta: sp.Interval.Lopen(0, TRL_BETA)},
        display=r"\frac{1}{1 + \beta^2} > 0.998 \quad \text{for } 0 < \beta \le 0.04",
        uses=("binary-large-g-lower-bound",),
        note="The quantitative content of 'preference aggregation may predominantly reflect the reward "
             "preference': for every beta <= 0.04 the better answer gets more than 99.8% of the mass in "
             "the large-group limit (1/(1 + 0.0016) = 0.99840...).",
    ),
    Inequality(
        id="summary-trl-default-beta-groups-of-two",
        narrowed=Narrowed(paper=r"$\beta = 0.04$ and the groups-of-two guarantee $1 - \beta/\gamma_{a,b}$ for the "
                                r"question's confidence margin $\gamma_{a,b} \in (0, 1]$",
                          verified=r"$0 < \beta \le 0.04$ at the one margin $\gamma_{a,b} = 1$ (deterministic rewards)",
                          reason="the bullet gives no margin; at a smaller margin the guarantee is weaker "
                                 "(1 - 0.04/gamma), so the 0.96 holds at gamma = 1 only"),
        title=r"At $\beta = 0.04$ and a deterministic margin $\gamma_{a,b} = 1$ the groups-of-two guarantee "
              r"$1 - \beta/\gamma_{a,b}$ is at least 0.96",
        ref=Ref("1.2", note="fifth bullet, TRL default beta = 0.04"),
        lhs=1 - beta / GAMMA_DETERMINISTIC, op=">=", rhs=sp.Rational(96, 100),
        domain={beta: sp.Interval.Lopen(0, TRL_BETA)},
        display=r"1 - \frac{\beta}{\gamma_{a,b}} \ge 0.96 \quad \text{for } \gamma_{a,b} = 1,\ 0 < \beta \le 0.04",
        uses=("binary-g2-lower-bound", "binary-g2-deterministic-gamma-one"),
        note="Deterministic rewards give gamma = 1 (binary-g2-deterministic-gamma-one); smaller margins "
             "weaken the guarantee to 1 - 0.04/gamma.",
    ),
    Summary(
        id="summary-direct-kl-logarithmic-pooling",
        title="With the direct KL penalty the aggregation is logarithmic opinion pooling",
        ref=Ref("1.2", note="last bullet"),
        uses=("direct-kl-exp-form-maximiser-g2", "direct-kl-exp-form-maximiser-g3", "direct-kl-g2-closed-form"),
    ),
    Summary(
        id="summary-direct-kl-may-not-be-unique",
        title="With the direct KL penalty the aggregate preference may not be unique (an example)",
        ref=Ref("1.2", note="last bullet"),
        uses=("direct-kl-large-g-two-stationary-lower", "direct-kl-large-g-two-stationary-upper",
              "direct-kl-large-g-large-beta-instance"),
    ),
    Summary(
        id="summary-shift-only-aligns-with-rlhf",
        title="Shift-only normalisation aligns the reward preference with that of RLHF",
        ref=Ref("1.2", note="last bullet"),
        uses=("shift-only-reward-pref-g3", "shift-only-eq6-g3", "shift-only-large-g-limit"),
        note="The reward preference becomes (1 - 1/G)(E_pi r - E_old r): the expected reward up to a "
             "constant and a factor, as in RLHF's objective (3).",
    ),
    Summary(
        id="summary-both-adjustments-give-rlhf",
        title="Combining direct KL and shift-only normalisation gives an aggregation consistent with RLHF",
        ref=Ref("1.2", note="last bullet"),
        uses=("shift-only-direct-kl-is-rlhf", "shift-only-direct-kl-maximiser-g3", "rlhf-gibbs-maximiser-3"),
    ),
]

UNCHECKABLE = [
    {"id": "summary-framework", "ref": Ref("1.2", note="first bullet"),
     "statement": "A framework for analysing stationary policies that clarifies the role of each component.",
     "reason": "a description of the paper's approach; its mathematical parts are the claims of Sections 2-3"},
    {"id": "summary-penalty-design-intent", "ref": Ref("1.2", note="fourth bullet"),
     "statement": "It is unclear whether the reverse-KL behaviour of the penalty was intended; the penalty "
                  "was motivated as an estimator of the direct KL.",
     "reason": "a remark about the designers' intent and the history of the estimator"},
    {"id": "summary-trl-default-beta", "ref": Ref("1.2", note="fifth bullet, footnote 1"),
     "statement": "TRL (Hugging Face) uses beta = 0.04 by default.",
     "reason": "a fact about a software library's configuration; its consequence is checked in "
               "summary-trl-default-beta-large-groups and summary-trl-default-beta-groups-of-two"},
    {"id": "abstract-grpo-used-for-deepseek", "ref": Ref("Abstract", note="first paragraph"),
     "statement": "GRPO is used to train DeepSeek-R1-Zero and DeepSeekMath; its objective uses sampled groups, "
                  "shift-and-scale normalised rewards and a reference penalty.",
     "reason": "a description of the algorithm and its use, cited from other work; the objective itself is "
               "encoded in Section 1 (Eq. (1), (2))"},
]
