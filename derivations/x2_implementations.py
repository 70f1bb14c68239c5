"""Beyond the paper: what GRPO implementations compute (TRL, verl, OpenRLHF).

The paper (arXiv 2502.18548) analyses Eq. (2) with the *population* standard deviation and
the penalty term D_i of Eq. (1).  This module states, from the libraries' own code, what
they compute instead, and decides with sympy what that changes in the paper's results.
Sources (read in the libraries' git snapshots; each claim's reference names file, version
and function):

- TRL, huggingface/trl v1.9.0 (commit 35def3ee, 2026-07-21): ``trl/trainer/grpo_trainer.py``
  (``_generate_and_score_completions``: ``advantages / (std_rewards + 1e-4)`` with
  ``nanstd``; ``_compute_loss``: ``per_token_kl``, ``use_bias_correction_kl``),
  ``trl/trainer/utils.py`` (``nanstd``: Bessel's correction count/(count - 1)),
  ``trl/trainer/grpo_config.py`` (defaults).  v0.14.0 (commit 49711efa) and v0.15.0
  (commit 00e58893): ``rewards.view(-1, G).std(dim=1)`` + 1e-4 (PyTorch's ``std`` uses
  Bessel's correction by default), beta = 0.04.
- verl, volcengine/verl v0.7.0 (commit f9c855f7, 2026-01-05): ``verl/trainer/ppo/core_algos.py``
  (``compute_grpo_outcome_advantage``: ``torch.std`` + epsilon = 1e-6, or no division with
  ``norm_adv_by_std_in_grpo=False``; ``kl_penalty_forward``: ``low_var_kl``/``k3``),
  ``verl/workers/actor/dp_actor.py`` (the KL loss, no importance ratio),
  ``verl/trainer/config/actor/actor.yaml`` (defaults).
- OpenRLHF, OpenRLHF/OpenRLHF v0.11.0 (commit 3c3be623, 2026-08-13):
  ``openrlhf/trainer/ppo_utils/experience_maker.py`` (``compute_advantages_and_returns``:
  ``group_norm`` with ``std`` + 1e-9, ``dr_grpo``), ``openrlhf/models/utils.py``
  (``compute_approx_kl``), ``openrlhf/trainer/ray/ppo_actor.py`` (the KL loss),
  ``openrlhf/cli/train_ppo_ray.py`` (defaults).

Covered: the Bessel factor (sample std = sqrt(G/(G-1)) population std, so the library's
advantages and P_G are the paper's times sqrt((G-1)/G) and (11) holds with the effective
beta sqrt(G/(G-1)) beta); the G = 2 advantages (+-1/sqrt 2; with epsilon) and the G = 2
stationary policy ((14) with beta/gamma replaced by sqrt 2 beta/gamma, and by
(sqrt 2 + 2 eps/g) beta/gamma with epsilon and two reward levels g apart); epsilon for 0/1
rewards (a factor per group composition, bounded below by 1 - eps sqrt(G)/c); the
no-scale options as the paper's shift-only variant of Section 3; the k3 estimator of each
library as D_i of Eq. (1) (penalty KL_0, reverse-KL stationary points) and, with TRL's
importance-ratio correction, as the direct-KL term of Section 3; the defaults as not
checkable facts and the paper's bounds evaluated at them.

Not modelled here (listed in UNCHECKABLE): the libraries apply the ratio and k3 per *token*
and aggregate tokens (``loss_type``), while the paper's outputs are whole sequences.
"""

import sympy as sp

from verify_claims import Identity, Inequality, Limit, Maximiser, Notation, Ref, Root, Stationary, Summary
from verify_claims.expectations import Categorical

from grpo_formulas.advantage import advantage_shift_only, normalised_advantage, not_all_equal, std
from grpo_formulas.closed_forms import closed_form_g2, closed_form_large
from grpo_formulas.divergence import kl0, penalty_term, penalty_term_direct
from grpo_formulas.implementations import (advantage_centred, advantage_sample_std, advantage_sample_std_eps,
                                           binary_group_advantage_one, binary_group_sample_std,
                                           expected_group_relative_preference_with, k3_logprobs,
                                           k3_verl, k3_with_importance_ratio, sample_std)
from grpo_formulas.preference import expected_group_relative_preference, expected_sign

from _notation import P_G, name

R = sp.Symbol
POS = sp.Interval.open(0, sp.oo)
REAL = sp.Interval(-sp.oo, sp.oo)
UNIT = sp.Interval(0, 1)
OPEN_UNIT = sp.Interval.open(0, 1)

NOTATION = Notation()
beta = NOTATION.symbol("beta", r"\beta")
eps = NOTATION.symbol("epsilon", r"\epsilon")   # the constant added to the std (not the clip epsilon)
x = NOTATION.symbol("pi_a", r"\pi_\theta(a \mid q)")
old = NOTATION.symbol("old_a", r"\pi_{\theta_{\mathrm{old}}}(a \mid q)")
ref = NOTATION.symbol("ref_a", r"\pi_{\mathrm{ref}}(a \mid q)")
Gs = R("G", integer=True, positive=True)
m = R("m", integer=True, positive=True)            # number of rewards c in a 0/c group
c = NOTATION.symbol("c", "c")                      # reward scale: rewards 0 or c

TOPIC = "Beyond the paper: library implementations"
TRL = "TRL v1.9.0 (huggingface/trl, commit 35def3ee)"
TRL_OLD = "TRL v0.14.0-v0.18.x (huggingface/trl; v0.15.0 commit 00e58893)"
VERL = "verl v0.7.0 (volcengine/verl, commit f9c855f7)"
ORLHF = "OpenRLHF v0.11.0 (OpenRLHF/OpenRLHF, commit 3c3be623)"
_STD_SOURCES = (f"{TRL}, trl/trainer/grpo_trainer.py _generate_and_score_completions and trl/trainer/utils.py "
                f"nanstd; {VERL}, verl/trainer/ppo/core_algos.py compute_grpo_outcome_advantage (torch.std); "
                f"{ORLHF}, openrlhf/trainer/ppo_utils/experience_maker.py compute_advantages_and_returns "
                "(group_norm, Tensor.std)")


def ref_(what: str, eq: str = "2") -> Ref:
    return Ref(TOPIC, note=f"{what}; cf. Eq. ({eq})")


def bessel(G):
    """sqrt((G - 1)/G): library advantage / paper advantage."""
    return sp.sqrt(sp.Rational(G - 1, G)) if isinstance(G, int) else sp.sqrt((G - 1) / G)


def beta_eff(G, b=beta):
    """The effective regularisation constant beta sqrt(G/(G - 1)) of the sample-std advantage."""
    return b * (sp.sqrt(sp.Rational(G, G - 1)) if isinstance(G, int) else sp.sqrt(G / (G - 1)))


CLAIMS = []

# ============================================================================ the Bessel factor
for G in (3, 4):
    rs = [R(f"r_{i}", real=True) for i in range(1, G + 1)]
    name(NOTATION, sample_std(rs), rf"\operatorname{{std}}_{{G-1}}(r_1, \ldots, r_{G})")
    name(NOTATION, std(rs), rf"\operatorname{{std}}(r_1, \ldots, r_{G})")
    CLAIMS.append(Identity(
        id=f"impl-sample-std-bessel-factor-g{G}",
        title=f"$G = {G}$: the libraries' sample standard deviation is the paper's population one times "
              rf"$\sqrt{{G/(G-1)}} = \sqrt{{{G}/{G - 1}}}$",
        ref=ref_("torch/TRL std with Bessel's correction: " + _STD_SOURCES),
        lhs=sample_std(rs), rhs=sp.sqrt(sp.Rational(G, G - 1)) * std(rs),
        domain={r: REAL for r in rs},
        note="std_{G-1} = sqrt(sum (r_i - mean)^2/(G - 1)) (PyTorch's default correction = 1, TRL's nanstd "
             "multiplies the variance by count/(count - 1)); the paper's std under Eq. (2) divides by G.",
    ))
    CLAIMS.append(Identity(
        id=f"impl-sample-std-advantage-g{G}",
        title=f"$G = {G}$: the sample-std advantage is the paper's advantage (2) times "
              rf"$\sqrt{{(G-1)/G}} = \sqrt{{{G - 1}/{G}}}$",
        ref=ref_("advantage (r - mean)/std without epsilon: " + _STD_SOURCES),
        lhs=advantage_sample_std(rs, 0), rhs=bessel(G) * normalised_advantage(rs, 0),
        domain={r: REAL for r in rs}, where=(not_all_equal(rs),),
        uses=(f"impl-sample-std-bessel-factor-g{G}",),
        note="Epsilon set to 0 here (its effect is the impl-eps-* claims).  Rewards not all equal (a tie "
             "gives 0 in both, by the paper's convention and by the libraries' 0/(0 + eps)).  Dividing by a "
             "larger std shrinks every advantage by the same factor, whatever the rewards.",
    ))

# ---- general G, two reward levels (0 and c): the factor from the definitions
_MG = {Gs: sp.Range(2, sp.oo), m: sp.Range(1, sp.oo), c: POS}
_MG_WHERE = (m <= Gs - 1,)
_S_M = sp.sqrt(m * (Gs - m) / (Gs * (Gs - 1)))     # the sample std of a 0/1 group with m ones
name(NOTATION, binary_group_sample_std(Gs, m, c), r"\operatorname{std}_{G-1}(\underbrace{c, \ldots, c}_{m}, 0, \ldots, 0)")
CLAIMS.append(Identity(
    id="impl-binary-sample-std-closed-form",
    title=r"Any $G$: a group of $m$ rewards $c$ and $G - m$ rewards 0 has sample std $c\sqrt{m(G-m)/(G(G-1))}$",
    ref=ref_("sample std of a two-level group (" + _STD_SOURCES + ")"),
    lhs=binary_group_sample_std(Gs, m, c), rhs=c * _S_M,
    domain=_MG, where=_MG_WHERE,
    note="From the definition: mean c m/G, squared deviations c^2 (1 - m/G)^2 (m times) and c^2 (m/G)^2 "
         "(G - m times), divided by G - 1.  Symbolic G >= 2 and 1 <= m <= G - 1.",
))
CLAIMS.append(Identity(
    id="impl-binary-advantage-bessel-factor-any-g",
    title=r"Any $G$, two reward levels: the sample-std advantage is the population-std advantage times "
          r"$\sqrt{(G-1)/G}$, whatever the group composition",
    ref=ref_("advantage of a reward-c output in a 0/c group (" + _STD_SOURCES + ")"),
    lhs=binary_group_advantage_one(Gs, m, c), rhs=bessel(Gs) * binary_group_advantage_one(Gs, m, c, population=True),
    domain=_MG, where=_MG_WHERE,
    uses=("impl-sample-std-advantage-g3", "impl-sample-std-advantage-g4"),
    note="Both sides from the definition (the population side is the term sqrt((G - m)/m) of the binomial "
         "sums of Section 2.1, pg_reward_one with m = k + 1).  The factor does not depend on m, so the "
         "library's P_G(o | pi_old) is the paper's times sqrt((G - 1)/G) for 0/1 rewards at every G "
         "(expectation is linear); the same holds for any rewards by impl-sample-std-advantage-g*.",
))

# ---- P_G and the stationarity condition (11): two outputs, stochastic two-level rewards
lo = NOTATION.symbol("r_lo", r"r_{\mathrm{lo}}", real=True)
gap = R("g", positive=True)
ta, tb = R("t_a"), R("t_b")
LAW2 = {"a": Categorical([lo, lo + gap], [1 - ta, ta]), "b": Categorical([lo, lo + gap], [1 - tb, tb])}


def _k2(o):
    return LAW2[o]


def _law(p):
    return Categorical(["a", "b"], [p, 1 - p])


# the G = 2 claims use three reward levels (ties and two different gaps), G = 3, 4 two levels
g1, g2 = R("g_1", positive=True), R("g_2", positive=True)
LEVELS3 = [lo, lo + g1, lo + g1 + g2]
sa, sb = R("s_a"), R("s_b")


def _stick3(t, s):
    return [t, (1 - t) * s, (1 - t) * (1 - s)]


LAW3 = {"a": Categorical(LEVELS3, _stick3(ta, sa)), "b": Categorical(LEVELS3, _stick3(tb, sb))}


def _k3(o):
    return LAW3[o]


_KERNEL = {2: _k3, 3: _k2, 4: _k2}


def _p_impl(o, p, G):
    return expected_group_relative_preference_with(advantage_sample_std, o, _law(p), _KERNEL[G], G)


def _p_paper(o, p, G):
    return expected_group_relative_preference(o, _law(p), _KERNEL[G], G)


_LAW_DOMAIN = {ta: UNIT, tb: UNIT, lo: REAL, gap: POS}
_LAW3_DOMAIN = {ta: UNIT, sa: UNIT, tb: UNIT, sb: UNIT, lo: REAL, g1: POS, g2: POS}
_LAWS = {2: (_LAW3_DOMAIN, "three levels r_lo < r_lo + g_1 < r_lo + g_1 + g_2 (stick-breaking laws)"),
         3: (_LAW_DOMAIN, "two levels (r_lo, r_lo + g), high w.p. t_a, t_b"),
         4: (_LAW_DOMAIN, "two levels (r_lo, r_lo + g), high w.p. t_a, t_b")}
_OLD_A = r"\pi_{\theta_{\mathrm{old}}}"
_PI = r"\pi_\theta"


def _pimpl_tex(G, o="a", against=_OLD_A):
    return rf"\mathcal{{P}}^{{\mathrm{{impl}}}}_{{{G}}}({o} \mid {against}, q)"


for G in (2, 3, 4):
    name(NOTATION, _p_impl("a", old, G), _pimpl_tex(G))
    name(NOTATION, _p_paper("a", old, G), P_G(G, "a", _OLD_A))
    CLAIMS.append(Identity(
        id=f"impl-pg-sample-std-g{G}",
        title=f"$G = {G}$: the group-relative preference the libraries optimise is the paper's "
              rf"$\mathcal{{P}}_{G}$ times $\sqrt{{{G - 1}/{G}}}$",
        ref=ref_("P_G with the sample-std advantage (" + _STD_SOURCES + ")", eq="6"),
        lhs=_p_impl("a", old, G), rhs=bessel(G) * _p_paper("a", old, G),
        domain={old: OPEN_UNIT, **_LAWS[G][0]},
        uses=("impl-g2-sample-std-advantage-higher",) if G == 2 else (f"impl-sample-std-advantage-g{G}",),
        note=f"Exact sums over groups: two outputs a, b, each with a stochastic reward on {_LAWS[G][1]}; "
             "ties have positive probability (advantage 0 on both sides).  Left: the Section 2.1 definition "
             "of P_G with (r - mean)/std_{G-1}; right: with Eq. (2).",
    ))
    _li = {o: _p_impl(o, x, G) for o in "ab"}
    _pa = {o: _p_paper(o, x, G) for o in "ab"}
    _lhs = (1 - (_li["a"] - (x * _li["a"] + (1 - x) * _li["b"])) / beta) * x
    _rhs = (1 - (_pa["a"] - (x * _pa["a"] + (1 - x) * _pa["b"])) / beta_eff(G)) * x
    _num_i = _pimpl_tex(G, "a", _PI) + r" - \mathbb{E}_{o' \sim \pi_\theta}[" + _pimpl_tex(G, "o'", _PI) + "]"
    _num_p = P_G(G, "a", _PI) + r" - \mathbb{E}_{o' \sim \pi_\theta}[" + P_G(G, "o'", _PI) + "]"
    name(NOTATION, _lhs, r"\left(1 - \frac{" + _num_i + r"}{\beta}\right) \pi_\theta(a \mid q)")
    name(NOTATION, _rhs, r"\left(1 - \frac{" + _num_p + r"}{\beta \sqrt{" + f"{G}/{G - 1}" + r"}}\right) "
                         r"\pi_\theta(a \mid q)")
    CLAIMS.append(Identity(
        id=f"impl-eq11-effective-beta-g{G}",
        title=f"$G = {G}$: (11) with the libraries' advantage is (11) of the paper with the effective "
              rf"$\beta \sqrt{{G/(G-1)}} = \beta\sqrt{{{G}/{G - 1}}}$",
        ref=ref_("stationarity condition with the sample-std advantage (" + _STD_SOURCES + ")", eq="11"),
        lhs=_lhs, rhs=_rhs,
        domain={x: OPEN_UNIT, beta: POS, **_LAWS[G][0]},
        uses=(f"impl-pg-sample-std-g{G}", "kkt-eq11-stationary-g3"),
        note="Both sides of the bracket of (11) at an on-policy point pi_old = pi_theta (two outputs, "
             "stochastic rewards), from the definitions.  So the stationary policies of the "
             "library objective with beta are the paper's stationary policies with beta sqrt(G/(G - 1)): "
             "the penalty weighs more, by sqrt(2) at G = 2, sqrt(3/2) = 1.22 at G = 3, sqrt(8/7) = 1.069 at TRL's default G = 8.",
    ))

_pg, _ep = R("P_a"), R("E_P")   # P_G(o | pi) and E_{o' ~ pi}[P_G(o' | pi)]: any reals
CLAIMS.append(Identity(
    id="impl-eq11-effective-beta-any-g",
    title=r"Any $G$: scaling $\mathcal{P}_G$ by $\sqrt{(G-1)/G}$ in (11) is the same as replacing $\beta$ by "
          r"$\beta\sqrt{G/(G-1)}$",
    ref=ref_("stationarity condition with the sample-std advantage, any G (" + _STD_SOURCES + ")", eq="11"),
    lhs=(1 - (bessel(Gs) * _pg - bessel(Gs) * _ep) / beta) * x,
    rhs=(1 - (_pg - _ep) / beta_eff(Gs)) * x,
    domain={Gs: sp.Range(2, sp.oo), _pg: REAL, _ep: REAL, beta: POS, x: OPEN_UNIT},
    display=r"\left(1 - \frac{\sqrt{\frac{G-1}{G}}\,\mathcal{P}_G(o \mid \pi_\theta, q) - \sqrt{\frac{G-1}{G}}\,"
            r"\mathbb{E}_{o'}[\mathcal{P}_G(o' \mid \pi_\theta, q)]}{\beta}\right) \pi_\theta(o \mid q) = "
            r"\left(1 - \frac{\mathcal{P}_G(o \mid \pi_\theta, q) - \mathbb{E}_{o'}[\mathcal{P}_G(o' \mid \pi_\theta, q)]}"
            r"{\beta \sqrt{G/(G-1)}}\right) \pi_\theta(o \mid q)",
    uses=("impl-binary-advantage-bessel-factor-any-g", "impl-eq11-effective-beta-g3", "impl-eq11-effective-beta-g4"),
    note="P_a and E_P stand for P_G(o | pi) and its pi-average (any values): the algebraic step that turns "
         "the composition-free factor of impl-binary-advantage-bessel-factor-any-g / impl-pg-sample-std-g* "
         "into an effective regularisation constant, for every G >= 2.",
))
CLAIMS.append(Limit(
    id="impl-effective-beta-tends-to-beta",
    title=r"The effective $\beta\sqrt{G/(G-1)}$ tends to $\beta$ as $G$ grows, as $\beta + \beta/(2G)$",
    ref=ref_("large groups: the Bessel factor disappears (" + _STD_SOURCES + ")", eq="13"),
    expr=beta_eff(Gs), var=Gs, point=sp.oo, direction="-", value=beta, rate=beta / 2,
    domain={beta: POS},
    uses=("impl-eq11-effective-beta-any-g",),
    note="So (13) and (15), the large-group limits, are the same for the sample and the population std; "
         "the difference is a finite-G effect of relative size about 1/(2G) (6.25% at G = 8 to first "
         "order; exactly sqrt(8/7) - 1 = 6.9%).",
))

# ============================================================================ groups of two
rj = R("r_j", real=True)
d = R("d", real=True)            # r_i - r_j
for _i, _side, _val in ((0, "higher", 1 / sp.sqrt(2)), (1, "lower", -1 / sp.sqrt(2))):
    CLAIMS.append(Identity(
        id=f"impl-g2-sample-std-advantage-{_side}",
        title=rf"$G = 2$: with the sample std the {_side}-reward output's advantage is "
              + (r"$+1/\sqrt{2}$" if _i == 0 else r"$-1/\sqrt{2}$") + r", not $\pm 1$",
        ref=ref_("G = 2 advantages (" + _STD_SOURCES + ")"),
        lhs=advantage_sample_std([rj + d, rj], _i), rhs=_val,
        domain={rj: REAL, d: POS},
        uses=("impl-sample-std-advantage-g3", "pair-advantage-is-sign"),
        display=(r"\frac{r_i - \operatorname{mean}(r_i, r_j)}{\operatorname{std}_{G-1}(r_i, r_j)} = \frac{1}{\sqrt{2}}"
                 if _i == 0 else
                 r"\frac{r_j - \operatorname{mean}(r_i, r_j)}{\operatorname{std}_{G-1}(r_i, r_j)} = -\frac{1}{\sqrt{2}}")
        + r", \quad r_i = r_j + d,\ d > 0",
        note="The sample std of two rewards is |r_i - r_j|/sqrt(2) (population: |r_i - r_j|/2), so the paper's "
             "A_i = sign(r_i - r_j) (Section 2.1) becomes sign(r_i - r_j)/sqrt(2) in the libraries (a tie "
             "gives 0 in both).",
    ))
name(NOTATION, advantage_sample_std_eps([rj + d, rj], 0, eps),
     r"\frac{r_i - \operatorname{mean}(r_i, r_j)}{\operatorname{std}_{G-1}(r_i, r_j) + \epsilon}")
CLAIMS.append(Identity(
    id="impl-g2-eps-advantage",
    title=r"$G = 2$ with the libraries' $\epsilon$: the advantage is $(d/2)/(|d|/\sqrt{2} + \epsilon)$ for a "
          r"reward gap $d$",
    ref=ref_("G = 2 advantages with epsilon: TRL 1e-4, verl 1e-6, OpenRLHF 1e-9 (" + _STD_SOURCES + ")"),
    lhs=advantage_sample_std_eps([rj + d, rj], 0, eps), rhs=(d / 2) / (sp.Abs(d) / sp.sqrt(2) + eps),
    domain={rj: REAL, d: REAL, eps: POS},
    uses=("impl-g2-sample-std-advantage-higher",),
    note="Defined at every d (a tie gives 0/eps = 0).  For d != 0 it is sign(d)/(sqrt(2) + 2 eps/|d|): "
         "smaller than 1/sqrt(2) by a factor that depends on the reward gap |d|.",
))

# the G = 2 stationary policy: stochastic rewards on three levels (LAW3), as binary-g2-closed-form
GAMMA3 = expected_sign(LAW3["a"], LAW3["b"])
name(NOTATION, GAMMA3, r"\gamma_{a,b}")
_KL0 = r"\mathrm{KL}_0(\pi_\theta \,\|\, \pi_{\mathrm{ref}}; \pi_{\theta_{\mathrm{old}}})"


def _two(p):
    return {"a": p, "b": 1 - p}


def _objective_g2(adv, kernel):
    """E_{o ~ pi}[P_2(o | pi_old)] with advantage ``adv`` minus beta KL_0 (Section 2.3)."""
    pref = sp.Add(*[_two(x)[o] * expected_group_relative_preference_with(adv, o, _law(old), kernel, 2)
                    for o in "ab"])
    return pref - beta * kl0(_two(x), _two(ref), _two(old))


_OBJ_S = _objective_g2(advantage_sample_std, _k3)
name(NOTATION, _OBJ_S, rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{_pimpl_tex(2, 'o')}] - \beta\, " + _KL0)
CLAIMS.append(Stationary(
    id="impl-g2-stationary-sample-std",
    title=r"$G = 2$, binary question: with the sample std the stationary policy is (14) with "
          r"$\beta/\gamma_{a,b}$ replaced by $\sqrt{2}\,\beta/\gamma_{a,b}$",
    ref=ref_("G = 2 stationary policy with the sample-std advantage (" + _STD_SOURCES + ")", eq="14"),
    objective=_OBJ_S, wrt=(x,), at={x: closed_form_g2(sp.sqrt(2) * beta, GAMMA3, ref)}, frozen={old: x},
    domain={beta: POS, ref: OPEN_UNIT, ta: UNIT, sa: UNIT, tb: UNIT, sb: UNIT, lo: REAL, g1: POS, g2: POS},
    where=(GAMMA3 > 0,),
    uses=("impl-g2-on-policy-derivative-sample-std", "impl-g2-closed-form-root-sample-std",
          "impl-eq11-effective-beta-g2", "binary-g2-closed-form"),
    note="As binary-g2-closed-form (stochastic rewards on three levels, gamma_{a,b} = P(a > b) - P(b > a) "
         "from the laws, positive), with the advantage (r - mean)/std_{G-1}: P_2 is divided by sqrt(2), "
         "which is (14) with the effective ratio sqrt(2) beta/gamma_{a,b}.  Its lower bound becomes "
         "1 - sqrt(2) beta/gamma_{a,b}.",
))
gam = NOTATION.symbol("gamma", r"\gamma_{a,b}")
_H_S = sp.diff(_OBJ_S, x).subs(old, x)
name(NOTATION, _H_S, r"\frac{d}{d \pi_\theta(a \mid q)} \Big(\mathbb{E}_{o \sim \pi_\theta}[" + _pimpl_tex(2, "o")
     + r"] - \beta\, " + _KL0 + r"\Big)\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta}")
CLAIMS.append(Identity(
    id="impl-g2-on-policy-derivative-sample-std",
    title=r"$G = 2$, sample std: the on-policy derivative is the paper's (Appendix B.1) with $\gamma_{a,b}$ "
          r"divided by $\sqrt{2}$",
    ref=ref_("G = 2 objective with the sample-std advantage (" + _STD_SOURCES + ")", eq="17"),
    lhs=_H_S, rhs=GAMMA3 / sp.sqrt(2) - beta * (x - ref) / (x * (1 - x)),
    domain={x: OPEN_UNIT, beta: POS, ref: OPEN_UNIT, **_LAW3_DOMAIN},
    uses=("impl-pg-sample-std-g2", "b1-g2-derivative-on-policy"),
    note="From the definitions (stochastic three-level rewards): differentiate in pi_theta(a | q) with "
         "pi_old frozen, then set pi_old = pi_theta.  Setting it to 0 is Eq. (17) with beta replaced by "
         "sqrt(2) beta, whose unique root in (0, 1) is (14) at sqrt(2) beta/gamma_{a,b} "
         "(impl-g2-closed-form-root-sample-std).",
))
CLAIMS.append(Root(
    id="impl-g2-closed-form-root-sample-std",
    title=r"$G = 2$, sample std: (14) with $\sqrt{2}\beta$ is the only root in $[0, 1]$ of the stationarity "
          r"condition $\gamma_{a,b}/\sqrt{2} = \beta(\pi - \pi_{\mathrm{ref}})/(\pi(1 - \pi))$",
    ref=ref_("G = 2 stationary policy with the sample-std advantage (" + _STD_SOURCES + ")", eq="14"),
    equation=sp.Eq(beta * (x - ref) / (x * (1 - x)), gam / sp.sqrt(2)),
    var=x, value=closed_form_g2(sp.sqrt(2) * beta, gam, ref), interval=UNIT, unique=True,
    domain={beta: POS, gam: sp.Interval.Lopen(0, 1), ref: OPEN_UNIT},
    uses=("impl-g2-on-policy-derivative-sample-std", "binary-g2-closed-form-unique-root"),
    note="gamma_{a,b} in (0, 1] as a symbol (its value from the reward laws is in "
         "impl-g2-on-policy-derivative-sample-std).  The closed form's lower bound becomes "
         "1 - sqrt(2) beta/gamma_{a,b}.",
))
_OBJ_E = _objective_g2(lambda rs, i: advantage_sample_std_eps(rs, i, eps), _k2)
name(NOTATION, _OBJ_E, rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{_pimpl_tex(2, 'o')}] - \beta\, " + _KL0
     + r" \quad (\text{advantage } (r - \bar r)/(\operatorname{std}_{G-1} + \epsilon))")
GAMMA2 = expected_sign(LAW2["a"], LAW2["b"])
CLAIMS.append(Stationary(
    id="impl-g2-stationary-eps-two-levels",
    title=r"$G = 2$, rewards on two levels $g$ apart, with $\epsilon$: the stationary policy is (14) with "
          r"$\beta/\gamma_{a,b}$ replaced by $(\sqrt{2} + 2\epsilon/g)\,\beta/\gamma_{a,b}$",
    ref=ref_("G = 2 stationary policy with the libraries' epsilon (" + _STD_SOURCES + ")", eq="14"),
    objective=_OBJ_E, wrt=(x,), at={x: closed_form_g2((sp.sqrt(2) + 2 * eps / gap) * beta, GAMMA2, ref)},
    frozen={old: x},
    domain={beta: POS, ref: OPEN_UNIT, eps: POS, **_LAW_DOMAIN},
    where=(GAMMA2 > 0,),
    uses=("impl-g2-eps-advantage", "impl-g2-stationary-sample-std"),
    note="Two reward levels r_lo and r_lo + g (a w.p. t_a, b w.p. t_b; gamma_{a,b} = t_a - t_b > 0): every "
         "non-tied pair has the gap g, so the advantage is +-1/(sqrt(2) + 2 eps/g) and epsilon acts as one "
         "effective beta, which depends on the reward scale g (a single constant only because there is one "
         "gap; with several gaps the factor differs per pair, impl-eps-factor-larger-for-balanced-groups).",
))

# ============================================================================ epsilon, 0/c rewards, any G
_F = c * _S_M / (c * _S_M + eps)            # A_eps / A_sample for a group with m rewards c
name(NOTATION, binary_group_advantage_one(Gs, m, c, eps),
     r"A^{\epsilon}(m) = \frac{c - \frac{c m}{G}}{\operatorname{std}_{G-1} + \epsilon}")
CLAIMS.append(Identity(
    id="impl-eps-advantage-factor",
    title=r"With $\epsilon$, a 0/$c$ group's advantage is the sample-std advantage times "
          r"$c s_m/(c s_m + \epsilon)$, $s_m = \sqrt{m(G-m)/(G(G-1))}$: a factor per group composition",
    ref=ref_("advantage / (std + eps) (" + _STD_SOURCES + ")"),
    lhs=binary_group_advantage_one(Gs, m, c, eps), rhs=binary_group_advantage_one(Gs, m, c) * _F,
    domain={**_MG, eps: POS}, where=_MG_WHERE,
    uses=("impl-binary-sample-std-closed-form",),
    note="The factor depends on m (how many of the G rewards are high) and on the reward scale c, so "
         "P_G is not a constant multiple of the paper's and no single effective beta exists; the advantage "
         "is no longer invariant to the reward scale (Section 1, Eq. (2): it is invariant without epsilon).",
))
# the two inequalities below hold for real G and m (m(G - m) is concave in m), which is stronger than
# for integers and lets z3 decide them: real copies of G and m
Gr, mr = R("G", positive=True), R("m", positive=True)
_FR = _F.subs({Gs: Gr, m: mr})
_F_AT = {k: _FR.subs(mr, k) for k in (1, 2)}
CLAIMS.append(Inequality(
    id="impl-eps-factor-larger-for-balanced-groups",
    title=r"Any $G \ge 4$: the $\epsilon$ factor is larger for a group with two high rewards than with one",
    ref=ref_("advantage / (std + eps) (" + _STD_SOURCES + ")"),
    lhs=_F_AT[2], op=">", rhs=_F_AT[1],
    domain={Gr: sp.Interval(4, sp.oo), c: POS, eps: POS},
    paper_domain={Gr: "the claim's own statement (beyond the paper): G >= 4, where two high rewards differ from one"},
    uses=("impl-eps-advantage-factor",),
    note="Stated for every real G >= 4, so for every integer.  s_2 > s_1 for G >= 4 (2(G - 2) > G - 1), so the shrinkage differs between group compositions: "
         "epsilon is not one effective beta (at G = 3, m = 2 mirrors m = 1 and the factors coincide).",
))
CLAIMS.append(Inequality(
    id="impl-binary-min-sample-std",
    title=r"Any $G$: the smallest nonzero sample std of a 0/1 group is $1/\sqrt{G}$ (one high or one low reward)",
    ref=ref_("sample std of a two-level group (" + _STD_SOURCES + ")"),
    lhs=_S_M ** 2, op=">=", rhs=1 / Gs,
    domain={Gs: sp.Range(2, sp.oo), m: sp.Range(1, sp.oo)}, where=_MG_WHERE,
    uses=("impl-binary-sample-std-closed-form",),
    harmless_mutants={"lhs:*": "a bound with room to spare away from m = 1 and m = G - 1: a change in the squared "
                               "std that keeps it above 1/G passes; the std itself is pinned by "
                               "impl-binary-sample-std-closed-form",
                      "rhs:negate@root": "-1/G is below every squared std: a weaker, true bound"},
    note="m(G - m)/(G(G - 1)) >= 1/G is (m - 1)(G - 1 - m) >= 0, equality at m = 1 and m = G - 1.  (The "
         "population std's minimum is sqrt(G - 1)/G, smaller by the Bessel factor.)",
))
CLAIMS.append(Inequality(
    id="impl-eps-factor-lower-bound",
    title=r"Any $G$: the $\epsilon$ factor of a 0/$c$ group is at least $1 - \epsilon\sqrt{G}/c$",
    ref=ref_("advantage / (std + eps) (" + _STD_SOURCES + ")"),
    lhs=_FR, op=">=", rhs=1 - eps * sp.sqrt(Gr) / c,
    domain={Gr: sp.Interval(2, sp.oo), mr: sp.Interval(1, sp.oo), c: POS, eps: POS}, where=(mr <= Gr - 1,),
    paper_domain={Gr: "every group size G >= 2 (the claim's own statement, beyond the paper)"},
    uses=("impl-binary-min-sample-std", "impl-eps-advantage-factor"),
    harmless_mutants={"lhs:*": "the factor c s/(c s + eps) increases with s: a mistake that enlarges s (a square root "
                               "dropped on a quantity below 1, a sign flipped) keeps it above the bound; s is pinned "
                               "by impl-binary-sample-std-closed-form and the factor by impl-eps-advantage-factor"},
    note="Stated for real G >= 2 and m in [1, G - 1], so for the integer compositions.  "
         "c s/(c s + eps) = 1 - eps/(c s + eps) >= 1 - eps/(c s_min) with s_min = 1/sqrt(G).  The bound is "
         "in the reward scale c: small rewards make epsilon matter.",
))
CLAIMS.append(Inequality(
    id="impl-eps-factor-below-one",
    title=r"The $\epsilon$ factor is below 1: epsilon only shrinks advantages",
    ref=ref_("advantage / (std + eps) (" + _STD_SOURCES + ")"),
    lhs=_F, op="<", rhs=1,
    domain={**_MG, eps: POS}, where=_MG_WHERE,
    uses=("impl-eps-advantage-factor",),
    harmless_mutants={"lhs:*": "c s/(c s + eps) < 1 for every positive s: any mistake in s that keeps it positive "
                               "passes; s is pinned by impl-binary-sample-std-closed-form and the factor by "
                               "impl-eps-advantage-factor"},
))
CLAIMS.append(Inequality(
    id="impl-eps-factor-trl-default",
    title=r"TRL's defaults $G = 8$, $\epsilon = 10^{-4}$, rewards 0/1: the $\epsilon$ factor exceeds 0.9997 in "
          "every group",
    ref=ref_(f"{TRL}, grpo_trainer.py (+ 1e-4) and grpo_config.py (num_generations = 8)"),
    lhs=_F.subs({Gs: 8, c: 1, eps: sp.Rational(1, 10000)}), op=">", rhs=sp.Rational(9997, 10000),
    domain={m: sp.Range(1, 8)},
    paper_domain={m: "every group composition at G = 8: 1 to 7 high rewards (0 and 8 have no std)"},
    uses=("impl-eps-factor-lower-bound",),
    note="1 - 1e-4 sqrt(8) = 0.99972: for 0/1 rewards epsilon is negligible at the default; rewards of "
         "scale c multiply the deficit by 1/c (0.028 for c = 0.01).  verl (1e-6) and OpenRLHF (1e-9) "
         "add smaller constants.",
))

# ============================================================================ shift-only
rs8 = [R(f"r_{i}", real=True) for i in range(1, 9)]
CLAIMS.append(Identity(
    id="impl-no-scale-advantage-is-shift-only",
    title="TRL's scale_rewards='none', verl's norm_adv_by_std_in_grpo=False and OpenRLHF's dr_grpo "
          r"compute the paper's shift-only advantage $r_i - \operatorname{mean}$ ($G = 8$)",
    ref=ref_(f"{TRL}, grpo_trainer.py _generate_and_score_completions (scale_rewards != 'none' guards the "
             f"division); {VERL}, core_algos.py compute_grpo_outcome_advantage; {ORLHF}, experience_maker.py "
             "compute_advantages_and_returns ('reinforce_baseline', 'dr_grpo')"),
    lhs=advantage_centred(rs8, 0), rhs=advantage_shift_only(rs8, 0),
    domain={r: REAL for r in rs8},
    note="Left: rewards minus the group's mean as the libraries write it; right: the advantage of the "
         "paper's Section 3 shift-only normalisation.  G = 8 (TRL's default num_generations); output 1.",
))
_rbar = {o: LAW2[o].expect(lambda r: r) for o in "ab"}
_lhs_c = expected_group_relative_preference_with(advantage_centred, "a", _law(old), _k2, 3)
CLAIMS.append(Identity(
    id="impl-no-scale-pg-g3",
    title=r"$G = 3$: with the libraries' centred advantage, $\mathcal{P}_3(a) = (1 - 1/3)(r(a) - "
          r"\mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r])$, the paper's shift-only preference",
    ref=ref_("no scale normalisation (Dr. GRPO) in the three libraries, as impl-no-scale-advantage-is-shift-only",
             eq="6"),
    lhs=_lhs_c, rhs=sp.Rational(2, 3) * (_rbar["a"] - (old * _rbar["a"] + (1 - old) * _rbar["b"])),
    domain={old: OPEN_UNIT, **_LAW_DOMAIN},
    uses=("impl-no-scale-advantage-is-shift-only", "shift-only-pg-g3"),
    note="Exact sum over groups with the library form of the advantage (two outputs, stochastic two-level "
         "rewards).  No std, hence no Bessel factor and no epsilon: the shift-only results of Section 3 "
         "apply to these options as they are.",
))
CLAIMS.append(Summary(
    id="impl-no-scale-options-are-shift-only",
    title="The no-scale options of TRL, verl and OpenRLHF (Dr. GRPO) optimise the paper's shift-only objective",
    ref=ref_("scale_rewards='none' / norm_adv_by_std_in_grpo=False / dr_grpo", eq="6"),
    uses=("impl-no-scale-advantage-is-shift-only", "impl-no-scale-pg-g3", "shift-only-reward-pref-g3",
          "shift-only-grpo-penalty-stationary-g3"),
    note="Reward preference (1 - 1/G)(E_pi r - E_old r), stationary policies with the GRPO penalty and "
         "effective beta/(1 - 1/G).  Dr. GRPO's other change (the length normalisation of the token loss) is "
         "outside the paper's sequence-level model.",
))

# ============================================================================ k3
pt = NOTATION.symbol("pi_t", r"\pi_\theta(o_i \mid q)")
# log probabilities, the libraries' inputs (per_token_logps, ref_per_token_logps, old_per_token_logps)
lp, lr, lo_ = (NOTATION.symbol(n, t) for n, t in (("logp", r"\log \pi_\theta(o_i \mid q)"),
                                                 ("logp_ref", r"\log \pi_{\mathrm{ref}}(o_i \mid q)"),
                                                 ("logp_old", r"\log \pi_{\theta_{\mathrm{old}}}(o_i \mid q)")))
LOGP = sp.Interval.open(-sp.oo, 0)
u = NOTATION.symbol("u", r"\log \frac{\pi_{\mathrm{ref}}(o_i \mid q)}{\pi_\theta(o_i \mid q)}")
_D_I = r"D_i(\theta)"
_D_LOG = name(NOTATION, penalty_term(sp.exp(lp), sp.exp(lr)), _D_I)   # D_i at pi = e^logp, ref = e^logp_ref
CLAIMS.append(Identity(
    id="impl-k3-trl-is-penalty-term",
    title=r"TRL's per_token_kl $e^{\log\pi_{\mathrm{ref}} - \log\pi_\theta} - (\log\pi_{\mathrm{ref}} - "
          r"\log\pi_\theta) - 1$ is the penalty term $D_i$ of Eq. (1)",
    ref=ref_(f"{TRL}, trl/trainer/grpo_trainer.py _compute_loss (per_token_kl)", eq="1"),
    lhs=k3_logprobs(lp, lr), rhs=_D_LOG,
    domain={lp: LOGP, lr: LOGP},
    display=r"e^{\ell_{\mathrm{ref}} - \ell_\theta} - (\ell_{\mathrm{ref}} - \ell_\theta) - 1 = D_i(\theta), \quad "
            r"\ell_\theta = \log \pi_\theta(o_i \mid q),\ \ell_{\mathrm{ref}} = \log \pi_{\mathrm{ref}}(o_i \mid q)",
    note="Written in the log probabilities the code receives; D_i = pi_ref/pi_theta - log(pi_ref/pi_theta) - 1 "
         "at pi_theta = e^logp, pi_ref = e^logp_ref.  The same expression is in TRL v0.14.0/v0.15.0 "
         "compute_loss.  Without use_bias_correction_kl (default False) it is not importance weighted, so "
         "its expectation over groups from pi_old is KL_0 (penalty-d-equals-kl0-g2).",
))
_DU = penalty_term(pt, pt * sp.exp(u))
_kl_verl = lr - lp         # verl: kl = ref_logprob - logprob (before its clamps)
CLAIMS.append(Identity(
    id="impl-k3-verl-is-penalty-term",
    title=r"verl's low_var_kl, $e^{kl} - kl - 1$ with $kl = \log\pi_{\mathrm{ref}} - \log\pi_\theta$, is the "
          r"penalty term $D_i$ of Eq. (1) (before its clamps)",
    ref=ref_(f"{VERL}, verl/trainer/ppo/core_algos.py kl_penalty_forward ('low_var_kl', 'k3')", eq="1"),
    lhs=sp.exp(_kl_verl) - _kl_verl - 1, rhs=_D_LOG,
    domain={lp: LOGP, lr: LOGP},
    display=r"e^{k} - k - 1 = D_i(\theta), \quad k = \log \pi_{\mathrm{ref}}(o_i \mid q) - \log \pi_\theta(o_i \mid q)",
    uses=("impl-k3-trl-is-penalty-term",),
    note="verl then clamps kl to [-20, 20] and the result to [-10, 10] (impl-k3-clamps-inactive-moderate-ratios, "
         "impl-k3-verl-clamped-for-large-ratios).  dp_actor.py adds kl_loss_coef times it to the policy loss "
         "(use_kl_loss), not importance weighted.  'k3+' keeps this value with the k2 gradient "
         "(straight-through), not modelled here.",
))
_u_orl = lp - lr           # OpenRLHF: log_ratio = log_probs - log_probs_base
CLAIMS.append(Identity(
    id="impl-k3-openrlhf-is-penalty-term",
    title=r"OpenRLHF's k3, $e^{-v} - 1 + v$ with $v = \log\pi_\theta - \log\pi_{\mathrm{ref}}$, is the penalty "
          r"term $D_i$ of Eq. (1) (before its clamp)",
    ref=ref_(f"{ORLHF}, openrlhf/models/utils.py compute_approx_kl (kl_estimator='k3')", eq="1"),
    lhs=sp.exp(-_u_orl) - 1 + _u_orl, rhs=_D_LOG,
    domain={lp: LOGP, lr: LOGP},
    display=r"e^{-v} - 1 + v = D_i(\theta), \quad v = \log \pi_\theta(o_i \mid q) - \log \pi_{\mathrm{ref}}(o_i \mid q)",
    uses=("impl-k3-trl-is-penalty-term",),
    note="The three libraries' k3 are the same expression (sympy writes them identically).  Then clamped to "
         "[-10, 10] (impl-k3-clamps-inactive-moderate-ratios).  ppo_actor.py adds it times "
         "the KL coefficient when --algo.kl.use_loss is set, not importance weighted.",
))
CLAIMS.append(Inequality(
    id="impl-k3-clamps-inactive-moderate-ratios",
    title=r"The $\pm 10$ clamps of verl and OpenRLHF do not bind while $-10 \le \log(\pi_{\mathrm{ref}}/\pi_\theta) "
          r"\le 5/2$: there the libraries' value is $D_i$",
    ref=ref_(f"{VERL}, core_algos.py kl_penalty_forward; {ORLHF}, models/utils.py compute_approx_kl", eq="1"),
    lhs=_DU, op="<=", rhs=10,
    domain={pt: OPEN_UNIT, u: sp.Interval(-10, sp.Rational(5, 2))},
    paper_domain={u: "the claim's own range of log-ratios, where the clamps are shown inactive"},
    uses=("impl-k3-verl-is-penalty-term", "impl-k3-openrlhf-is-penalty-term", "penalty-term-nonnegative"),
    note="D_i = e^u - u - 1 with u = log(pi_ref/pi_theta) lies in [0, 10] there (>= 0 by "
         "penalty-term-nonnegative), so clamp(D_i, -10, 10) = D_i; verl's clamp of u to [-20, 20] is inactive "
         "too.  The cap binds for u > 2.528 and for u below about -11 (e^u - u - 1 = 10 at u = -10.99998).",
))
CLAIMS.append(Inequality(
    id="impl-k3-verl-clamped-for-large-ratios",
    title=r"verl's clamp caps the penalty at 10: below $D_i$ wherever $\log(\pi_{\mathrm{ref}}/\pi_\theta) \ge 3$",
    ref=ref_(f"{VERL}, verl/trainer/ppo/core_algos.py kl_penalty_forward (torch.clamp(kld, min=-10, max=10))",
             eq="1"),
    lhs=k3_verl(sp.log(pt), sp.log(pt) + u), op="<", rhs=_DU,
    domain={pt: OPEN_UNIT, u: sp.Interval(3, 20)},
    paper_domain={u: "the claim's own range of log-ratios, where verl's clamp is shown to bind (up to its clamp of u at 20)"},
    uses=("impl-k3-verl-is-penalty-term",),
    note="The library formula with both clamps.  e^3 - 3 - 1 = 16.1 > 10.  The cap also binds for "
         "log(pi_ref/pi_theta) below about -11 (D_i > 10 there); where it binds, the penalty's gradient in pi_theta "
         "is 0.  OpenRLHF clamps the same way (k3_openrlhf).",
))
_DIRECT_LOG = name(NOTATION, penalty_term_direct(sp.exp(lp), sp.exp(lo_), sp.exp(lr)),
                   r"\frac{\pi_\theta(o_i \mid q)}{\pi_{\theta_{\mathrm{old}}}(o_i \mid q)}\, D_i(\theta)")
CLAIMS.append(Identity(
    id="impl-k3-importance-ratio-is-direct-kl-term",
    title=r"TRL with use_bias_correction_kl: per_token_kl times $e^{\log\pi_\theta - \log\pi_{\theta_{\mathrm{old}}}}$ "
          "is the direct-KL penalty term of Section 3",
    ref=ref_(f"{TRL}, trl/trainer/grpo_trainer.py _compute_loss (per_token_kl * coef_1); "
             "grpo_config.py use_bias_correction_kl (default False)", eq="7"),
    lhs=k3_with_importance_ratio(lp, lo_, lr), rhs=_DIRECT_LOG,
    domain={lp: LOGP, lr: LOGP, lo_: LOGP},
    uses=("impl-k3-trl-is-penalty-term", "direct-kl-penalty-equals-kl-g2"),
    note="coef_1 = exp(per_token_logps - old_per_token_logps) = pi_theta/pi_old (with num_iterations = 1 "
         "old_per_token_logps is per_token_logps.detach(): the ratio is 1 in value and carries the "
         "gradient, the paper's 'differentiate, then set pi_old = pi_theta').  verl and OpenRLHF have no "
         "such option in the files read.",
))
CLAIMS.append(Summary(
    id="impl-k3-without-ratio-is-kl0-reverse-kl",
    title="The libraries' default k3 penalty is the paper's GRPO penalty: KL_0 in expectation, the reverse "
          "KL's stationary points",
    ref=ref_("TRL (default), verl low_var_kl, OpenRLHF k3", eq="7"),
    uses=("impl-k3-trl-is-penalty-term", "impl-k3-verl-is-penalty-term", "impl-k3-openrlhf-is-penalty-term",
          "impl-k3-clamps-inactive-moderate-ratios", "penalty-d-equals-kl0-g2",
          "grpo-penalty-shares-stationary-points-with-reverse-kl"),
    note="Section 2.2's analysis applies to all three as implemented (within the clamps).",
))
CLAIMS.append(Summary(
    id="impl-k3-with-ratio-is-direct-kl",
    title="TRL's use_bias_correction_kl penalty is the paper's direct-KL variant (Section 3)",
    ref=ref_(f"{TRL}, use_bias_correction_kl", eq="7"),
    uses=("impl-k3-importance-ratio-is-direct-kl-term", "direct-kl-penalty-equals-kl-g2",
          "direct-kl-penalty-gradient"),
    note="Its stationary policies are the exp-form (logarithmic pooling) aggregation of Section 3; with "
         "scale_rewards='none' as well, both extensions: RLHF's Gibbs policy with beta G/(G - 1) "
         "(shift-only-direct-kl-is-rlhf).",
))

# ============================================================================ defaults
CLAIMS.append(Limit(
    id="impl-large-g-closed-form-beta-zero",
    title=r"(15) tends to 1 as $\beta \to 0$: at TRL's current default $\beta = 0$ both closed forms give 1",
    ref=ref_(f"{TRL}, trl/trainer/grpo_config.py beta default 0.0", eq="15"),
    expr=closed_form_large(beta, ref), var=beta, point=0, direction="+", value=1,
    domain={ref: OPEN_UNIT},
    uses=("binary-g2-limit-beta-zero", "binary-large-g-closed-form"),
    note="(14) -> 1 as beta -> 0 is binary-g2-limit-beta-zero.  beta = 0 itself is outside the paper's "
         "analysis ((11) divides by beta): there is no penalty at all (TRL does not load the reference "
         "model), see impl-beta-zero-g2-maximiser.",
))
_PREF_ONLY = sp.Add(*[_two(x)[o] * expected_group_relative_preference(o, _law(old), _k3, 2) for o in "ab"])
name(NOTATION, _PREF_ONLY, rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{P_G(2, 'o', _OLD_A)}]")
CLAIMS.append(Maximiser(
    id="impl-beta-zero-g2-maximiser",
    title=r"$\beta = 0$ (TRL's default since v0.19), groups of two: the objective is maximised by "
          r"$\pi_\theta(a \mid q) = 1$ whatever $\pi_{\theta_{\mathrm{old}}}$ and $\pi_{\mathrm{ref}}$",
    ref=ref_(f"{TRL}, trl/trainer/grpo_config.py beta default 0.0", eq="6"),
    objective=_PREF_ONLY, wrt=(x,), at={x: 1}, over={x: UNIT}, scope="global",
    domain={old: OPEN_UNIT, ta: UNIT, sa: UNIT, tb: UNIT, sb: UNIT, lo: REAL, g1: POS, g2: POS},
    where=(GAMMA3 > 0,),
    uses=("b1-g2-eq16",),
    harmless_mutants={"objective:*": "with beta = 0 the objective is linear in pi(a) and pi(a) = 1 maximises it as long "
                                     "as the slope P_2(a) - P_2(b) stays positive: a mistake in the advantage's "
                                     "magnitude keeps the maximiser; P_2 is pinned by b1-g2-eq16 and "
                                     "impl-pg-sample-std-g2"},
    note="E_pi[P_2(o | pi_old)] = gamma_{a,b} (pi(a) - pi_old(a)) (Eq. (16)) with gamma_{a,b} > 0: linear "
         "with positive slope, so the better answer gets everything, for every old policy; pi_ref plays no "
         "role.  Stochastic rewards on three levels, as binary-g2-closed-form.",
))
CLAIMS.append(Inequality(
    id="impl-trl-legacy-beta-g2-sample-std-bound",
    title=r"$\beta \le 0.04$ (TRL's default up to v0.18), $G = 2$, sample std, $\gamma_{a,b} = 1$: the "
          r"guarantee $1 - \sqrt{2}\beta$ is at least 0.943 (the paper's $1 - \beta$: 0.96)",
    ref=ref_(f"{TRL_OLD}, grpo_config.py beta = 0.04, grpo_trainer.py std(dim=1) + 1e-4", eq="14"),
    lhs=1 - sp.sqrt(2) * beta, op=">=", rhs=sp.Rational(943, 1000),
    domain={beta: sp.Interval.Lopen(0, sp.Rational(1, 25))},
    paper_domain={beta: "beta <= 0.04: TRL's default up to v0.18, the claim's own statement"},
    uses=("impl-g2-closed-form-root-sample-std", "binary-g2-lower-bound", "summary-trl-default-beta-groups-of-two"),
    note="The bound 1 - beta/gamma of the display after (14) at the effective sqrt(2) beta "
         "(1 - 0.04 sqrt 2 = 0.94343); epsilon = 1e-4 lowers it further by a relative ~1e-4 "
         "(impl-g2-stationary-eps-two-levels).",
))
CLAIMS.append(Inequality(
    id="impl-trl-legacy-beta-g8-large-g-bound",
    title=r"$\beta \le 0.04$ at TRL's $G = 8$: the bound $1/(1 + \beta_{\mathrm{eff}}^2)$ of (15) at "
          r"$\beta_{\mathrm{eff}} = \beta\sqrt{8/7}$ is at least $4375/4383 = 0.99817$",
    ref=ref_(f"{TRL_OLD} beta = 0.04; {TRL} num_generations = 8 (also 8 in v0.14-v0.18)", eq="15"),
    lhs=1 / (1 + beta_eff(8) ** 2), op=">=", rhs=sp.Rational(4375, 4383),
    domain={beta: sp.Interval.Lopen(0, sp.Rational(1, 25))},
    paper_domain={beta: "beta <= 0.04: TRL's default up to v0.18, the claim's own statement"},
    uses=("impl-eq11-effective-beta-any-g", "binary-large-g-lower-bound", "summary-trl-default-beta-large-groups"),
    note="Equality at beta = 0.04: 1/(1 + 0.0016 * 8/7) = 4375/4383.  (15) is the G -> oo form, where "
         "beta_eff -> beta (impl-effective-beta-tends-to-beta): this evaluates its bound at G = 8's effective "
         "beta, the setting of the paper's footnote value (Section 1.2) as TRL ran it; the finite-G stationary "
         "policy x_G is the subject of the finite-G claims, not of this module.",
))
CLAIMS.append(Inequality(
    id="impl-trl-legacy-beta-g8-g2-form-bound",
    title=r"$\beta \le 0.04$, $\gamma_{a,b} = 1$: the bound $1 - \beta_{\mathrm{eff}}$ of (14) at TRL's $G = 8$ "
          r"effective $\beta\sqrt{8/7}$ is at least 0.957",
    ref=ref_(f"{TRL_OLD} beta = 0.04; num_generations = 8", eq="14"),
    lhs=1 - beta_eff(8), op=">=", rhs=sp.Rational(957, 1000),
    domain={beta: sp.Interval.Lopen(0, sp.Rational(1, 25))},
    paper_domain={beta: "beta <= 0.04: TRL's default up to v0.18, the claim's own statement"},
    uses=("impl-eq11-effective-beta-any-g", "binary-g2-lower-bound"),
    note="1 - 0.04 sqrt(8/7) = 0.95724.  (14) is the G = 2 form: at G = 8 it is evaluated with G = 8's "
         "effective beta only as the other end of the range (the paper's Section 1.2 reads the two bounds "
         "together).",
))
CLAIMS.append(Inequality(
    id="impl-verl-example-kl-coef-bound",
    title=r"verl's GRPO examples ($\beta$ = kl_loss_coef = 0.001, $G$ = rollout.n = 5): "
          r"$1 - \beta\sqrt{5/4} \ge 0.9988$",
    ref=ref_(f"{VERL}, verl/trainer/config/actor/actor.yaml kl_loss_coef 0.001; "
             "examples/grpo_trainer/run_qwen2-7b.sh rollout.n=5, use_kl_loss=True", eq="14"),
    lhs=1 - beta_eff(5), op=">=", rhs=sp.Rational(9988, 10000),
    domain={beta: sp.Interval.Lopen(0, sp.Rational(1, 1000))},
    paper_domain={beta: "beta <= 0.001: verl's example kl_loss_coef, the claim's own statement"},
    uses=("impl-eq11-effective-beta-any-g", "binary-g2-lower-bound"),
    note="1 - 0.001 sqrt(5/4) = 0.998882; the (15) form 1/(1 + 1.25e-6) is closer still to 1.  verl's own "
         "defaults are use_kl_loss = False (no penalty) and rollout.n = 1; the example script sets both.",
))

# ============================================================================ not checkable
_LIB = "a fact about a software library's code or configuration at one version; read in its source, not derivable"
UNCHECKABLE = [
    {"id": "impl-default-trl-v1-9",
     "ref": Ref(TOPIC, note=f"{TRL}, trl/trainer/grpo_config.py and grpo_trainer.py"),
     "statement": "TRL v1.9.0 defaults: beta = 0.0 (the reference model is not loaded), num_generations = 8, "
                  "epsilon = 0.2 (the clip of Eq. (1)), scale_rewards = 'group', loss_type = 'dapo', "
                  "use_bias_correction_kl = False, num_iterations = 1; the advantage is (r - mean)/(nanstd + 1e-4) "
                  "with the constant 1e-4 written in _generate_and_score_completions and nanstd applying "
                  "Bessel's correction (trl/trainer/utils.py).",
     "reason": _LIB + "; consequences: impl-eps-factor-trl-default, impl-beta-zero-g2-maximiser, "
                      "impl-large-g-closed-form-beta-zero"},
    {"id": "impl-default-trl-legacy",
     "ref": Ref(TOPIC, note=f"{TRL_OLD}, trl/trainer/grpo_config.py"),
     "statement": "TRL's default beta was 0.04 from v0.14.0 (the first GRPOTrainer) to v0.18.x and is 0.0 from "
                  "v0.19.0 (grpo_config.py read at every tag from v0.14.0 to v1.9.0; v0.13.0 has no GRPO); "
                  "num_generations = 8 at every one of them; v0.14.0 and v0.15.0 "
                  "normalise with rewards.view(-1, G).std(dim=1) + 1e-4; scale_rewards (default True) appears in "
                  "v0.16.0, loss_type in v0.17.0 ('bnpo'; 'dapo' from v0.22.0).",
     "reason": _LIB + "; the paper's footnote value 0.04 (Section 1.2) is this period's default; consequences: "
                      "impl-trl-legacy-beta-*"},
    {"id": "impl-default-verl-v0-7",
     "ref": Ref(TOPIC, note=f"{VERL}, verl/trainer/config/actor/actor.yaml, ppo_trainer.yaml, "
                            "rollout/rollout.yaml, core_algos.py"),
     "statement": "verl v0.7.0 defaults: compute_grpo_outcome_advantage epsilon = 1e-6 with torch.std (Bessel), "
                  "norm_adv_by_std_in_grpo = True; actor use_kl_loss = False, kl_loss_coef = 0.001, "
                  "kl_loss_type = 'low_var_kl'; rollout.n = 1 and algorithm.adv_estimator = 'gae' (GRPO is chosen "
                  "in the example scripts, e.g. examples/grpo_trainer/run_qwen2-7b.sh: adv_estimator=grpo, "
                  "rollout.n=5, use_kl_loss=True); clip_ratio = 0.2.",
     "reason": _LIB + "; consequence: impl-verl-example-kl-coef-bound"},
    {"id": "impl-default-openrlhf-v0-11",
     "ref": Ref(TOPIC, note=f"{ORLHF}, openrlhf/cli/train_ppo_ray.py, experience_maker.py"),
     "statement": "OpenRLHF v0.11.0 defaults: --algo.advantage.estimator = 'gae' (choices include group_norm "
                  "and dr_grpo), --rollout.n_samples_per_prompt = 1, --algo.kl.estimator = 'k1' (the help text: "
                  "'In GRPO, k3 is utilized as the loss function'), --algo.kl.init_coef = 0.01, "
                  "--algo.kl.use_loss = False; group_norm divides by std + 1e-9.",
     "reason": _LIB},
    {"id": "impl-token-level-losses",
     "ref": Ref(TOPIC, note=f"{TRL}, grpo_trainer.py _compute_loss; {VERL}, verl/workers/actor/dp_actor.py and "
                            f"core_algos.py agg_loss; {ORLHF}, openrlhf/trainer/ray/ppo_actor.py"),
     "statement": "The libraries apply the importance ratio, the clip and k3 to each token's probability and "
                  "aggregate token losses (TRL loss_type, verl loss_agg_mode); the paper's outputs o_i are whole "
                  "sequences with pi_theta(o_i | q) their probability.  The identities here hold for one sampled "
                  "unit (a token, or a sequence with importance_sampling_level='sequence' in TRL), not for "
                  "the sum over a sequence's tokens.",
     "reason": "outside the paper's model (no token structure); stating what the per-token sums optimise "
               "needs a model of sequences the paper does not have"},
]
