"""Section 2.3.1 (binary questions) and Appendix B.1 (the GRPO's alignment objective).

Setting.  A question q with two answers a and b; every policy is one number:
x = pi_theta(a | q), old = pi_theta_old(a | q), ref = pi_ref(a | q) (b gets one minus
that).  Stationary policies are found as in the paper: differentiate the objective in x
with pi_old held fixed, then set pi_old = pi_theta (``frozen={old: x}``).

Groups of two.  Rewards may be stochastic given the answer (Section 2.1): each answer
has a reward law on three shared levels lo < lo + g_1 < lo + g_1 + g_2 (stick-breaking
probabilities (t, (1 - t) s, (1 - t)(1 - s))), so ties have positive probability and
P(a > b) + P(b > a) < 1 is allowed.  gamma = gamma_{a,b} = P(a > b) - P(b > a) is either
computed from those laws (claims built from the definitions) or a symbol in (0, 1] (the
closed form and its properties: the paper assumes P(a > b) > P(b > a) w.l.o.g., and
|gamma| <= 1).  The objective J_GRPO = E_{o ~ pi}[P_2(o | pi_old)] - beta KL_0(pi || ref;
pi_old) of Section 2.3 is built from the advantage of Eq. (2) and KL_0 (Section 2.2).

Large groups.  Symbolic G is not supported by the engine, so the large-group claims start
from the limiting objective R_inf - beta KL_0 (Section 2.1 display for R_inf; its
stationarity condition is Eq. (13)); the finite-G -> R_inf limit itself is claim
reward-pref-binary-limit-r-inf of Section 2.1.  Rewards are deterministic, r(a | q) =
r_b + d, r(b | q) = r_b (the B.1 derivation assumes it); stochastic Bernoulli rewards are
used to show where the paper's statements need that assumption.

Domains: beta in (0, oo), gamma in (0, 1], pi_ref(a | q) in (0, 1) unless a statement is
about the ends (pi_ref = 0 or 1 is stated separately: at pi_ref(a | q) = 0 the paper sets
pi_theta(a | q) = 0 because the policy's support lies in the reference's).

(14) and (15) with pi_old held at them: the second derivative of the frozen objective is derived
in closed form, and the exact parameter regions where each is a strict local minimum rather than
a maximum are certified: (14) iff pi_ref < (2 - r)(3r - 2)/(16 r), r = beta/gamma (non-empty for
2/3 < r < 2); (15) iff pi_ref < 1/2 - (beta^2 + 4)/(2 beta sqrt(beta^2 + 16)) (non-empty for
beta > sqrt 2); both boundaries stay below (2 - sqrt 3)/4 ~ 0.067 (binary-*-frozen-*).

Ids: binary-g2-* (Section 2.3.1, groups of two), binary-large-g-* (Section 2.3.1, large
groups), b1-* (the displayed steps of Appendix B.1).
"""

import sympy as sp

from verify_claims import (Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Narrowed, Notation, Ref,
                           Root, Stationary, Step, refuted)
from verify_claims.expectations import Categorical

from _notation import E_P_G, name

from _s2_helpers import expected_preference_under, group_relative_preference
from _s231_helpers import (bracket, closed_form_g2, closed_form_large, esign, grpo_objective_g2,
                           grpo_objective_large, kl_rev_binary, law2, penalty_binary, point_mass,
                           r_inf, two, win_prob)

R = sp.Symbol
POS = sp.Interval.open(0, sp.oo)
REAL = sp.Interval(-sp.oo, sp.oo)
UNIT = sp.Interval(0, 1)
OPEN_UNIT = sp.Interval.open(0, 1)
GAMMA_SET = sp.Interval.Lopen(0, 1)   # gamma_{a,b} in (0, 1]
REF_SET = OPEN_UNIT                    # pi_ref(a | q) strictly inside (0, 1)

NOTATION = Notation()   # the paper's notation (Section 2.3.1, Appendix B.1)
x = NOTATION.symbol("pi_a", r"\pi_\theta(a \mid q)")
old = NOTATION.symbol("old_a", r"\pi_{\theta_{\mathrm{old}}}(a \mid q)")
ref = NOTATION.symbol("ref_a", r"\pi_{\mathrm{ref}}(a \mid q)")
beta = NOTATION.symbol("beta", r"\beta")
gamma = NOTATION.symbol("gamma", r"\gamma_{a,b}")
y = R("y")             # pi_theta(a | q) - pi_ref(a | q)

# ----------------------------------------------------------------------------- reward laws
lo = NOTATION.symbol("r_lo", r"r_{\mathrm{lo}}", real=True)
g1, g2 = R("g_1", positive=True), R("g_2", positive=True)
LEVELS3 = [lo, lo + g1, lo + g1 + g2]
ta, sa, tb, sb = (R(n) for n in ("t_a", "s_a", "t_b", "s_b"))


def _stick3(t, s):
    return [t, (1 - t) * s, (1 - t) * (1 - s)]


LAW = {"a": Categorical(LEVELS3, _stick3(ta, sa)), "b": Categorical(LEVELS3, _stick3(tb, sb))}


def _kernel(o):
    return LAW[o]


GAMMA_EXPR = esign(LAW["a"], LAW["b"])            # E[sign(r_1 - r_2) | o_1 = a, o_2 = b]
P_AB, P_BA = win_prob(LAW["a"], LAW["b"]), win_prob(LAW["b"], LAW["a"])
STOCH_DOMAIN = {ta: UNIT, sa: UNIT, tb: UNIT, sb: UNIT, lo: REAL, g1: POS, g2: POS}
# gamma_{a,b} = E[sign(r_1 - r_2) | o_1 = a, o_2 = b, q] = P(a > b | q) - P(b > a | q), from the reward laws
name(NOTATION, GAMMA_EXPR, r"\gamma_{a,b}")
name(NOTATION, P_AB, r"\mathcal{P}(a \succ b \mid q)")
name(NOTATION, P_BA, r"\mathcal{P}(b \succ a \mid q)")

# deterministic rewards r(a | q) = r_b + d, r(b | q) = r_b
rb = NOTATION.symbol("r_b", r"r(b \mid q)", real=True)
d = R("d", real=True)   # r(a | q) - r(b | q)
DET = {"a": point_mass(rb + d), "b": point_mass(rb)}


def _det(o):
    return DET[o]


# Bernoulli rewards for the large-group caveat: a earns the high level w.p. u_a, b w.p. u_b
ua, ub = R("u_a"), R("u_b")
BERN = {"a": Categorical([lo, lo + g1], [1 - ua, ua]), "b": Categorical([lo, lo + g1], [1 - ub, ub])}


def _bern(o):
    return BERN[o]


# ----------------------------------------------------------------------------- closed forms
P14 = closed_form_g2(beta, gamma, ref)
P15 = closed_form_large(beta, ref)
C = beta / gamma                                   # the effective regularisation beta/gamma

G2_DOMAIN = {beta: POS, gamma: GAMMA_SET, ref: REF_SET}
LARGE_DOMAIN = {beta: POS, ref: REF_SET}

# on-policy derivatives (B.1): what must vanish at a stationary policy
H_G2 = gamma - beta * (x - ref) / (x * (1 - x))
H_LARGE = 1 / sp.sqrt(x * (1 - x)) - beta * (x - ref) / (x * (1 - x))
QUAD_G2 = x ** 2 - (1 - C) * x - C * ref
QUAD_LARGE = (1 + beta ** 2) * x ** 2 - (2 * beta ** 2 * ref + 1) * x + beta ** 2 * ref ** 2

# the paper's named quantities: J_GRPO (Section 2.3) for groups of two and in the large-group limit,
# KL_0 (Section 2.2), the reverse KL and R_inf (Section 2.1), for the reward laws used below
_KL0 = r"\mathrm{KL}_0(\pi_\theta \,\|\, \pi_{\mathrm{ref}}; \pi_{\theta_{\mathrm{old}}})"
_J = r"\mathcal{J}_{\mathrm{GRPO}}(\pi_\theta(a \mid q) \mid q)"
_R_INF = r"\mathcal{R}_\infty(\theta \mid q)"
name(NOTATION, penalty_binary(x, old, ref), _KL0)
name(NOTATION, kl_rev_binary(x, ref), r"\mathrm{KL}(\pi_{\mathrm{ref}} \,\|\, \pi_\theta)")
for _k in (_kernel, _det):
    name(NOTATION, grpo_objective_g2(x, old, ref, beta, _k), _J)
for _k in (_det, _bern):
    name(NOTATION, r_inf(x, old, _k), _R_INF)
    name(NOTATION, grpo_objective_large(x, old, ref, beta, _k), _R_INF + r" - \beta\, " + _KL0)

CLAIMS = []
UNCHECKABLE = []

# groups of two: the paper allows any (stochastic) reward laws of the two answers; the claims
# built from the laws take laws on three shared levels (wins, losses and ties all possible)
THREE_LEVELS = Narrowed(
    paper="a binary question with any stochastic rewards of the two answers (Section 2.3.1, Appendix B.1)",
    verified=r"reward laws on three shared levels per answer (every margin $\gamma_{a,b} \in (0, 1]$ arises)",
    reason="the exact expectations are finite sums over finitely many reward levels")
# large groups: the paper's r(o | q) are expected rewards (Section 2.1), so stochastic rewards are
# included; its sigma formula, hence (15), holds for deterministic rewards only (refuted otherwise)
DETERMINISTIC = Narrowed(
    paper=r"a binary question with expected rewards $r(a \mid q) > r(b \mid q)$, stochastic rewards included "
          "(Section 2.3.1, Eq. (15); Appendix B.1)",
    verified="deterministic rewards",
    reason="with stochastic rewards sigma is the total reward std and the statement fails: "
           "b1-large-g-sigma-squared-stochastic-rewards and binary-large-g-closed-form-stochastic-rewards "
           "are refuted")

# =============================================================================================
#                                   Groups of size two
# =============================================================================================

CLAIMS.append(Stationary(
    id="binary-g2-closed-form", narrowed=THREE_LEVELS,
    title="Groups of two, binary question: (14) is a stationary policy of the GRPO objective",
    ref=Ref("2.3.1", eq="14"),
    objective=grpo_objective_g2(x, old, ref, beta, _kernel),
    wrt=(x,), at={x: closed_form_g2(beta, GAMMA_EXPR, ref)}, frozen={old: x},
    domain={beta: POS, ref: REF_SET, **STOCH_DOMAIN},
    where=(GAMMA_EXPR > 0,),
    uses=("b1-g2-eq16", "b1-g2-objective", "b1-g2-derivative-on-policy", "b1-g2-stationarity-chain",
          "b1-g2-quadratic-unique-nonnegative-root"),
    note="In the paper's generality: stochastic rewards (three shared levels per answer, ties "
         "possible), J_GRPO built from the definitions (P_2 from the advantage of Eq. (2), KL_0), "
         "gamma_{a,b} = P(a > b) - P(b > a) computed from the reward laws and required positive "
         "(the paper's w.l.o.g. assumption).  The derivative in pi_theta(a | q) with pi_old frozen, "
         "then pi_old = pi_theta, vanishes at (14).  That (14) is the only such point is "
         "binary-g2-closed-form-unique-root; in what sense it is a maximum is "
         "binary-g2-closed-form-maximises-frozen-objective (refuted) and "
         "binary-g2-closed-form-maximises-on-policy-potential.",
))

CLAIMS.append(Root(
    id="binary-g2-closed-form-unique-root",
    title="Groups of two: (14) is the only policy in $(0, 1)$ satisfying the stationarity "
          "condition (17)",
    ref=Ref("2.3.1", eq="14", note="with Appendix B.1, Eq. (17)"),
    equation=sp.Eq(beta * (x - ref) / (x * (1 - x)), gamma),
    var=x, value=P14, interval=UNIT, unique=True,
    domain=G2_DOMAIN,
    uses=("b1-g2-stationarity-chain",),
    note="Checked on the closed interval [0, 1], whose ends are not roots (pole of (17)), so that a "
         "root within rounding of 1 (tiny beta/gamma) is not mistaken for one outside.  "
         "Uniqueness over the whole interval, not only among non-negative roots of the "
         "quadratic: (17) has exactly one solution for every beta > 0, gamma in (0, 1], "
         "pi_ref(a | q) in (0, 1).  Interior policies only; at pi_ref(a | q) in {0, 1} the policy "
         "sits at the boundary (see binary-g2-*-pi-ref-zero).",
))

# ---- in what sense is (14) a maximum?
_FROZEN_NOTE = ("Section 2.3 considers 'the maxima of the optimisation problem when pi_old = "
                "pi_theta' and (14) is presented as that maximum.  Encoded as: with pi_old held at "
                "(14), (14) maximises J_GRPO(x | q) over x in (0, 1) (gamma a symbol; the reward "
                "part is gamma (x - pi_old), Eq. (16)).  ")
CLAIMS.append(Maximiser(
    id="binary-g2-closed-form-maximises-frozen-objective",
    title="Groups of two: (14) maximises the GRPO objective with the old policy held at (14)",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (14)"),
    objective=gamma * (x - old) - beta * penalty_binary(x, old, ref),
    wrt=(x,), at={x: P14}, over={x: OPEN_UNIT}, frozen={old: P14}, scope="global",
    domain={beta: sp.FiniteSet(sp.Rational(1, 2), 1, 2), gamma: sp.FiniteSet(1),
            ref: sp.FiniteSet(sp.Rational(1, 10000), sp.Rational(1, 1000))},
    expect=refuted(r"(14) is only a stationary point: with $\pi_{\theta_{\mathrm{old}}}$ held at "
                   r"(14) other policies score higher ($\beta/\gamma_{a,b} = 1/2$, "
                   r"$\pi_{\mathrm{ref}}(a \mid q) = 10^{-4}$: (14) $= 0.5001$ but $\pi_\theta(a "
                   r"\mid q) = 10^{-4}$ is better), and it is a strict local minimum exactly when "
                   r"$\pi_{\mathrm{ref}}(a \mid q) < (2 - r)(3r - 2)/(16 r)$, $r = \beta/\gamma_{a,b}$, "
                   r"a region inside $2/3 < r < 2$, $\pi_{\mathrm{ref}}(a \mid q) < (2 - \sqrt{3})/4$ "
                   "(binary-g2-frozen-local-minimum-region)"),
    note=_FROZEN_NOTE + "Parameters: instances with beta/gamma in {1/2, 1, 2} and pi_ref(a | q) in "
         "{1e-4, 1e-3}, where it fails at every point (the statement is for all parameters, so "
         "these refute it; elsewhere, e.g. beta/gamma = 1/2, pi_ref = 0.3, it does hold).  The "
         "frozen penalty KL_0(x || ref; old) = old (ref/x + log x) + ... is not "
         "convex in x (ref/x + log x is concave for x > 2 ref), so stationarity does not give a "
         "maximum.  Corrected statement: binary-g2-closed-form-maximises-on-policy-potential.",
))

CLAIMS.append(Maximiser(
    id="binary-g2-closed-form-frozen-local-maximiser-instance",
    title=r"Groups of two, $\beta/\gamma_{a,b} = 3/2$, $\pi_{\mathrm{ref}}(a \mid q) = 1/1000$: "
          "(14) is a local maximiser of the GRPO objective with the old policy held at (14)",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (14)"),
    objective=gamma * (x - old) - beta * penalty_binary(x, old, ref),
    wrt=(x,), at={x: P14}, over={x: OPEN_UNIT}, frozen={old: P14}, scope="local",
    domain={beta: sp.FiniteSet(sp.Rational(3, 2)), gamma: sp.FiniteSet(1),
            ref: sp.FiniteSet(sp.Rational(1, 1000))},
    expect=refuted("here (14) $= 0.00298$ is a strict local minimum of the objective with "
                   r"$\pi_{\theta_{\mathrm{old}}}$ held at it (second derivative about $+164$): "
                   "not even a local maximum"),
    note="One parameter point (a finite instance) showing the strong form of the finding: "
         "d^2/dx^2 = -beta ((2 ref - x)/x^2 + (1 - 2 ref + x)/(1 - x)^2) at x = pi_old = (14) equals "
         "-gamma (4 (14) + beta/gamma - 2)/((14)(1 - (14))), positive exactly when (14) < (2 - beta/gamma)/4, "
         "i.e. pi_ref(a | q) < (2 - r)(3r - 2)/(16 r), r = beta/gamma (here 1/1000 < 0.0521): the exact region "
         "is binary-g2-frozen-local-minimum-region, its complement binary-g2-frozen-local-maximum-region.",
))

# ---- where exactly is (14) a local minimum / maximum of the frozen objective?  With pi_old held
# at x, the second derivative of gamma (x - pi_old) - beta KL_0(x || ref; pi_old) at x = pi_old is
# -beta ((2 ref - x)/x^2 + (1 - 2 ref + x)/(1 - x)^2) = -beta (2 ref (1 - 2x) + x (3x - 1))/(x (1 - x))^2.
# At x = (14), ref = x (x - 1 + beta/gamma)/(beta/gamma) (the quadratic of B.1), and the numerator
# factorises: 2 ref (1 - 2x) + x (3x - 1) = x (1 - x)(4x + beta/gamma - 2)/(beta/gamma).  Hence
# f''((14)) = -gamma (4 (14) + beta/gamma - 2)/((14)(1 - (14))): a local minimum iff (14) < (2 - beta/gamma)/4,
# which, (14) being increasing in pi_ref, is pi_ref < PHI(beta/gamma) below.
_FROZEN_G2 = gamma * (x - old) - beta * penalty_binary(x, old, ref)
D2_FROZEN = -beta * ((2 * ref - x) / x ** 2 + (1 - 2 * ref + x) / (1 - x) ** 2)
D2_FROZEN_14 = D2_FROZEN.subs(x, P14)
PHI_G2 = (2 - C) * (3 * C - 2) / (16 * C)       # the boundary curve pi_ref = PHI(beta/gamma)
_D2 = (r"\frac{d^2}{d \pi_\theta(a \mid q)^2} \Big(\gamma_{a,b} (\pi_\theta(a \mid q) - \pi_{\theta_{\mathrm{old}}}(a \mid q)) "
       r"- \beta\, " + _KL0 + r"\Big)\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta}")
name(NOTATION, D2_FROZEN_14, _D2 + r"\Big|_{(14)}")
name(NOTATION, PHI_G2, r"\varphi(\beta/\gamma_{a,b})")
_PHI_TEX = r"\varphi(r) = \frac{(2 - r)(3 r - 2)}{16 r},\ r = \beta/\gamma_{a,b}"
_REGION_NOTE = ("Region derived in closed form: f''((14)) = -gamma (4 (14) + beta/gamma - 2)/((14)(1 - (14))) "
                "(binary-g2-frozen-second-derivative-at-14), so the sign is that of (2 - beta/gamma)/4 - (14); "
                "(14) is increasing in pi_ref and equals (2 - r)/4 at pi_ref = phi(r) = (2 - r)(3r - 2)/(16 r), "
                "r = beta/gamma (binary-g2-frozen-boundary-value).  phi(r) > 0 iff 2/3 < r < 2, and phi <= "
                "(2 - sqrt 3)/4 ~ 0.067 (at r = 2/sqrt 3).  ")
CLAIMS.append(Identity(
    id="binary-g2-frozen-second-derivative",
    title=r"Groups of two: the second derivative of the GRPO objective with $\pi_{\theta_{\mathrm{old}}}$ held "
          r"fixed, at $\pi_\theta = \pi_{\theta_{\mathrm{old}}}$",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; objective of Appendix B.1 (after (16))"),
    lhs=sp.diff(_FROZEN_G2, x, 2).subs(old, x),
    rhs=D2_FROZEN,
    display=_D2 + r" = -\beta \left(\frac{2 \pi_{\mathrm{ref}}(a \mid q) - \pi_\theta(a \mid q)}{\pi_\theta(a \mid q)^2} "
                  r"+ \frac{1 - 2 \pi_{\mathrm{ref}}(a \mid q) + \pi_\theta(a \mid q)}{(1 - \pi_\theta(a \mid q))^2}\right)",
    domain={x: OPEN_UNIT, beta: POS, gamma: GAMMA_SET, ref: REF_SET},
    uses=("b1-g2-objective-derivative",),
    note="The reward part gamma (x - pi_old) (Eq. (16)) is linear in x; the penalty's second derivative "
         "with pi_old fixed is pi_old (2 ref/x^3 - 1/x^2) + (1 - pi_old)(2 (1 - ref)/(1 - x)^3 - 1/(1 - x)^2), "
         "then pi_old = x.",
))
CLAIMS.append(Identity(
    id="binary-g2-frozen-second-derivative-at-14",
    title=r"Groups of two: at (14) the frozen second derivative is $-\gamma_{a,b} (4 \pi_\theta(a \mid q) + "
          r"\beta/\gamma_{a,b} - 2)/(\pi_\theta(a \mid q)(1 - \pi_\theta(a \mid q)))$",
    ref=Ref("2.3.1", eq="14", note="derived here: the second-order condition at (14) with pi_old held at it"),
    lhs=D2_FROZEN_14,
    rhs=-gamma * (4 * P14 + C - 2) / (P14 * (1 - P14)),
    display=_D2 + r"\Big|_{(14)} = -\gamma_{a,b} \frac{4 \pi_\theta(a \mid q) + \beta/\gamma_{a,b} - 2}"
                  r"{\pi_\theta(a \mid q) (1 - \pi_\theta(a \mid q))}, \quad \pi_\theta(a \mid q) = (14)",
    domain=G2_DOMAIN,
    uses=("binary-g2-frozen-second-derivative", "b1-g2-stationarity-chain"),
    note="With x = (14), x^2 - (1 - r) x - r ref = 0 (r = beta/gamma), so ref = x (x - 1 + r)/r and "
         "2 ref (1 - 2x) + x (3x - 1) = x (1 - x)(4x + r - 2)/r.  The sign of the second derivative is "
         "therefore the sign of (2 - r)/4 - (14).",
))
CLAIMS.append(Inequality(
    id="binary-g2-frozen-local-minimum-region",
    title=r"Groups of two: with $\pi_{\theta_{\mathrm{old}}}$ held at (14), (14) is a strict local minimum of the "
          r"objective exactly when $\pi_{\mathrm{ref}}(a \mid q) < \varphi(\beta/\gamma_{a,b}) = (2 - r)(3r - 2)/(16 r)$",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (14)"),
    lhs=D2_FROZEN_14, op=">", rhs=sp.Integer(0),
    display=_D2 + r"\Big|_{(14)} > 0 \quad \text{for } \pi_{\mathrm{ref}}(a \mid q) < \varphi(\beta/\gamma_{a,b}), \quad "
            + _PHI_TEX,
    domain={beta: sp.Interval.open(0, 2), gamma: GAMMA_SET, ref: sp.Interval.open(0, sp.Rational(7, 100))},
    where=(ref < PHI_G2,),
    paper_domain={beta: "beta < 2: the region needs beta/gamma < 2 and gamma <= 1, so the box contains all of it",
                  ref: "pi_ref < 7/100: phi < 7/100 (binary-g2-frozen-local-minimum-needs-small-reference)"},
    uses=("binary-g2-frozen-second-derivative-at-14", "binary-g2-frozen-boundary-value",
          "binary-g2-increasing-in-pi-ref", "binary-g2-frozen-local-minimum-needs-small-reference"),
    note=_REGION_NOTE + "The region is non-empty only for 2/3 < beta/gamma < 2 (elsewhere phi <= 0 < pi_ref); "
         "with binary-g2-frozen-local-maximum-region this is the exact split of the whole parameter range, "
         "beta > 0, gamma in (0, 1], pi_ref in (0, 1).  The declared box beta < 2, pi_ref < 7/100 contains the "
         "whole region (beta < 2 gamma <= 2; phi < 7/100 by binary-g2-frozen-local-minimum-needs-small-"
         "reference); it only keeps the seeded sample points inside the thin region.",
))
CLAIMS.append(Inequality(
    id="binary-g2-frozen-local-maximum-region",
    title=r"Groups of two: with $\pi_{\theta_{\mathrm{old}}}$ held at (14), (14) is a strict local maximum of the "
          r"objective exactly when $\pi_{\mathrm{ref}}(a \mid q) > \varphi(\beta/\gamma_{a,b})$",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (14)"),
    lhs=D2_FROZEN_14, op="<", rhs=sp.Integer(0),
    display=_D2 + r"\Big|_{(14)} < 0 \quad \text{for } \pi_{\mathrm{ref}}(a \mid q) > \varphi(\beta/\gamma_{a,b}), \quad "
            + _PHI_TEX,
    domain=G2_DOMAIN, where=(ref > PHI_G2,),
    uses=("binary-g2-frozen-second-derivative-at-14", "binary-g2-frozen-boundary-value"),
    note=_REGION_NOTE + "For beta/gamma <= 2/3 or >= 2 the relation holds for every pi_ref, so (14) is then "
         "always a strict local maximum of the frozen objective (not necessarily the global one: "
         "binary-g2-closed-form-maximises-frozen-objective).",
))
CLAIMS.append(Identity(
    id="binary-g2-frozen-boundary-value",
    title=r"Groups of two: on the boundary $\pi_{\mathrm{ref}}(a \mid q) = \varphi(\beta/\gamma_{a,b})$, "
          r"$2/3 < \beta/\gamma_{a,b} < 2$, (14) equals $(2 - \beta/\gamma_{a,b})/4$",
    ref=Ref("2.3.1", eq="14", note="derived here: the boundary between local minimum and local maximum"),
    lhs=P14.subs(ref, PHI_G2), rhs=(2 - C) / 4,
    display=r"\pi_\theta(a \mid q)\big|_{\pi_{\mathrm{ref}}(a \mid q) = \varphi(\beta/\gamma_{a,b})} = "
            r"\frac{2 - \beta/\gamma_{a,b}}{4} \quad \text{for (14)}, \quad " + _PHI_TEX,
    domain={beta: POS, gamma: GAMMA_SET}, where=(3 * beta > 2 * gamma, beta < 2 * gamma),
    note="The discriminant of (14) at pi_ref = phi(r) is (1 - r)^2 + (2 - r)(3r - 2)/4 = r^2/4, so "
         "(14) = (1 - r + r/2)/2.  There 4 (14) + r - 2 = 0: the second derivative vanishes "
         "(binary-g2-frozen-second-derivative-at-14); phi(r) is in (0, 1) exactly for 2/3 < r < 2.",
))
CLAIMS.append(Identity(
    id="binary-g2-frozen-second-derivative-vanishes-on-boundary",
    title=r"Groups of two: on the boundary curve $\pi_{\mathrm{ref}}(a \mid q) = \varphi(\beta/\gamma_{a,b})$ the "
          "frozen second derivative at (14) is zero",
    ref=Ref("2.3.1", eq="14", note="derived here: the boundary between local minimum and local maximum"),
    lhs=D2_FROZEN_14.subs(ref, PHI_G2), rhs=sp.Integer(0),
    display=_D2 + r"\Big|_{(14),\ \pi_{\mathrm{ref}}(a \mid q) = \varphi(\beta/\gamma_{a,b})} = 0, \quad " + _PHI_TEX,
    domain={beta: POS, gamma: GAMMA_SET}, where=(3 * beta > 2 * gamma, beta < 2 * gamma),
    uses=("binary-g2-frozen-boundary-value",),
))
CLAIMS.append(Inequality(
    id="binary-g2-frozen-local-minimum-needs-small-reference",
    title=r"Groups of two: $\varphi(\beta/\gamma_{a,b}) \le (2 - \sqrt{3})/4 \approx 0.067$, so (14) can be a "
          r"local minimum of the frozen objective only for $\pi_{\mathrm{ref}}(a \mid q) < 0.067$",
    ref=Ref("2.3.1", eq="14", note="derived here: the extent of the local-minimum region"),
    lhs=PHI_G2, op="<=", rhs=(2 - sp.sqrt(3)) / 4,
    display=r"\varphi(\beta/\gamma_{a,b}) \le \frac{2 - \sqrt{3}}{4}, \quad " + _PHI_TEX,
    domain={beta: POS, gamma: GAMMA_SET},
    note="16 phi(r) = 8 - 3r - 4/r <= 8 - 4 sqrt 3 by AM-GM (3r + 4/r >= 2 sqrt 12), with equality at "
         "r = 2/sqrt 3.",
))

CLAIMS.append(Maximiser(
    id="binary-g2-closed-form-maximises-on-policy-potential",
    title=r"Groups of two: (14) is the unique maximiser of $\gamma_{a,b} \pi_\theta(a \mid q) - "
          r"\beta \mathrm{KL}(\pi_{\mathrm{ref}} \| \pi_\theta)$, whose gradient is the on-policy "
          "GRPO gradient",
    ref=Ref("2.3.1", eq="14", note="corrected sense of 'maximum'; Section 2.2 (reverse KL)"),
    objective=gamma * x - beta * kl_rev_binary(x, ref),
    wrt=(x,), at={x: P14}, over={x: OPEN_UNIT}, scope="global",
    domain=G2_DOMAIN,
    uses=("binary-g2-closed-form-maximises-frozen-objective",
          "binary-g2-closed-form-frozen-local-maximiser-instance", "binary-g2-on-policy-gradient-decreasing",
          "kl0-on-policy-gradient-is-reverse-kl-plus-one"),
    note="The on-policy derivative of J_GRPO (B.1) is gamma - beta (x - ref)/(x (1 - x)) = "
         "d/dx [gamma x - beta KL(ref || pi)] (Section 2.2: the on-policy KL_0 gradient is the "
         "reverse-KL gradient plus 1).  That potential is strictly concave, so (14) is its unique "
         "global maximiser and on-policy gradient ascent moves towards (14) from both sides: "
         "the sense in which the stationary policy (14) is 'the maximum'.",
))

CLAIMS.append(Monotonic(
    id="binary-g2-on-policy-gradient-decreasing",
    title=r"Groups of two: the on-policy GRPO derivative is strictly decreasing in $\pi_\theta(a "
          r"\mid q)$",
    ref=Ref("Appendix B.1", note="derivative display before (17)"),
    expr=H_G2, var=x, direction="decreasing",
    domain={x: OPEN_UNIT, **G2_DOMAIN},
    uses=("b1-g2-derivative-on-policy",),
    note="d/dx (x - ref)/(x (1 - x)) = ((x - ref)^2 + ref (1 - ref))/(x (1 - x))^2 > 0, so the "
         "derivative is positive below (14) and negative above it.",
))

# ---- the tie
CLAIMS.append(Root(
    id="binary-g2-tie-reference-policy",
    title=r"Groups of two, a tie ($\gamma_{a,b} = 0$): the stationary policy is the reference "
          "policy",
    ref=Ref("2.3.1", note="sentence after (14); Appendix B.1, after (17)"),
    equation=H_G2.subs(gamma, 0),
    var=x, value=ref, interval=OPEN_UNIT, unique=True,
    domain={beta: POS, ref: REF_SET},
    uses=("b1-g2-derivative-on-policy",),
    note="With P(a > b) = P(b > a), gamma = 0 and the on-policy derivative is "
         "-beta (x - ref)/(x (1 - x)): its only zero in (0, 1) is pi_ref(a | q).",
))

# ---- properties stated after (14)
bs, gs = R("s"), R("beta_over_gamma")
CLAIMS.append(Identity(
    id="binary-g2-depends-on-ratio-only",
    title=r"Groups of two: (14) depends on $\beta$ and $\gamma_{a,b}$ only through "
          r"$\beta/\gamma_{a,b}$",
    ref=Ref("2.3.1", eq="14", note="'depends only on the ratio beta/gamma and pi_ref'"),
    lhs=closed_form_g2(bs * beta, bs * gamma, ref),
    rhs=closed_form_g2(beta, gamma, ref),
    domain={bs: POS, beta: POS, gamma: POS, ref: UNIT},
    display=r"\pi_\theta(a \mid q)\big|_{(s \beta,\, s \gamma_{a,b})} = \pi_\theta(a \mid q)\big|_{(\beta,\, "
            r"\gamma_{a,b})} \quad \text{for (14)},\ s > 0",
    note="Scaling beta and gamma by the same s > 0 leaves (14) unchanged.",
))

CLAIMS.append(Monotonic(
    id="binary-g2-decreasing-in-beta",
    title=r"Groups of two: $\pi_\theta(a \mid q)$ is strictly decreasing in $\beta$",
    ref=Ref("2.3.1", eq="14", note="'decreasing in beta'"),
    expr=P14, var=beta, direction="decreasing",
    domain=G2_DOMAIN,
    note="Strict for pi_ref(a | q) in (0, 1); at pi_ref = 1 the policy is 1 for every beta.",
    harmless_mutants={"*": "a claim about the direction of (14) in beta: a mistake in the formula that keeps it "
                           "decreasing passes; (14) itself is pinned by binary-g2-closed-form"},
))

CLAIMS.append(Limit(
    id="binary-g2-limit-beta-zero",
    title=r"Groups of two: $\pi_\theta(a \mid q)$ tends to 1 as $\beta$ tends to 0",
    ref=Ref("2.3.1", eq="14", note="'converges to the value 1 as beta -> 0'"),
    expr=P14, var=beta, point=0, direction="+", value=1,
    domain={gamma: GAMMA_SET, ref: sp.Interval.Lopen(0, 1)},
    note="One-sided (beta > 0).  pi_ref(a | q) > 0: at pi_ref = 0 the policy is 0.",
))

CLAIMS.append(Limit(
    id="binary-g2-limit-beta-infinity",
    title=r"Groups of two: $\pi_\theta(a \mid q)$ tends to $\pi_{\mathrm{ref}}(a \mid q)$ as "
          r"$\beta$ grows",
    ref=Ref("2.3.1", eq="14", note="'converges to pi_ref(a | q) as beta -> oo'"),
    expr=P14, var=beta, point=sp.oo, value=ref,
    domain={gamma: GAMMA_SET, ref: UNIT},
))

CLAIMS.append(Identity(
    id="binary-g2-value-at-beta-equals-gamma",
    title=r"Groups of two: at $\beta = \gamma_{a,b}$, $\pi_\theta(a \mid q)$ is the square root of "
          r"$\pi_{\mathrm{ref}}(a \mid q)$",
    ref=Ref("2.3.1", eq="14", note="'pi_theta(a | q) = sqrt(pi_ref(a | q)) for beta = gamma'"),
    lhs=P14.subs(beta, gamma), rhs=sp.sqrt(ref),
    domain={gamma: GAMMA_SET, ref: UNIT},
    display=r"\pi_\theta(a \mid q)\big|_{\beta = \gamma_{a,b}} = \sqrt{\pi_{\mathrm{ref}}(a \mid q)} \quad \text{for (14)}",
))

CLAIMS.append(Monotonic(
    id="binary-g2-increasing-in-gamma",
    title=r"Groups of two: $\pi_\theta(a \mid q)$ is strictly increasing in the confidence margin "
          r"$\gamma_{a,b}$",
    ref=Ref("2.3.1", eq="14", note="'increases in the confidence margin gamma_{a,b}'"),
    expr=P14, var=gamma, direction="increasing",
    domain=G2_DOMAIN,
    uses=("binary-g2-depends-on-ratio-only", "binary-g2-decreasing-in-beta"),
))

CLAIMS.append(Monotonic(
    id="binary-g2-increasing-in-pi-ref",
    title=r"Groups of two: $\pi_\theta(a \mid q)$ is strictly increasing in $\pi_{\mathrm{ref}}(a "
          r"\mid q)$",
    ref=Ref("2.3.1", eq="14", note="'increases in pi_ref(a | q)'"),
    expr=P14, var=ref, direction="increasing",
    domain={beta: POS, gamma: GAMMA_SET, ref: sp.Interval.Lopen(0, 1)},
    note="Formula (14) on (0, 1]; at pi_ref = 0 the policy is 0, below every value of (14), so "
         "the policy is increasing on [0, 1] as well.",
))

CLAIMS.append(Inequality(
    id="binary-g2-continuous-for-positive-pi-ref",
    title=r"Groups of two: the discriminant in (14) is positive for $\pi_{\mathrm{ref}}(a \mid q) "
          "> 0$, so (14) is continuous there",
    ref=Ref("2.3.1", eq="14", note="'continuous except at pi_ref(a | q) = 0'"),
    lhs=(1 - C) ** 2 + 4 * C * ref, op=">", rhs=0,
    domain={beta: POS, gamma: GAMMA_SET, ref: sp.Interval.Lopen(0, 1)},
    note="(14) is a composition of continuous functions and the square root of a positive "
         "quantity, hence continuous (indeed smooth) in pi_ref on (0, 1].",
))

e = NOTATION.symbol("e", r"\varepsilon")  # |1 - beta/gamma|: the two cases of the limit at pi_ref -> 0+
CLAIMS.append(Limit(
    id="binary-g2-jump-at-pi-ref-zero-when-beta-lt-gamma",
    title=r"Groups of two, $\beta < \gamma_{a,b}$: as $\pi_{\mathrm{ref}}(a \mid q) \to 0^+$, (14) "
          r"tends to $1 - \beta/\gamma_{a,b} > 0$, while the policy at $\pi_{\mathrm{ref}} = 0$ is "
          "0 (a jump)",
    ref=Ref("2.3.1", eq="14", note="'discontinuous whenever beta < gamma'"),
    expr=closed_form_g2(gamma * (1 - e), gamma, ref), var=ref, point=0, direction="+", value=e,
    domain={gamma: GAMMA_SET, e: OPEN_UNIT},
    note="beta < gamma written as beta = gamma (1 - e), e = 1 - beta/gamma in (0, 1), so that the "
         "limit max(1 - beta/gamma, 0) has a sign sympy can see.  One-sided: pi_ref is a "
         "probability.  The limit e > 0 differs from the policy value 0 at pi_ref(a | q) = 0 "
         "(support of pi_theta within that of pi_ref): a jump of size 1 - beta/gamma.",
))

CLAIMS.append(Limit(
    id="binary-g2-continuous-at-pi-ref-zero-when-beta-ge-gamma",
    title=r"Groups of two, $\beta \ge \gamma_{a,b}$: as $\pi_{\mathrm{ref}}(a \mid q) \to 0^+$, "
          r"(14) tends to 0, the policy value at $\pi_{\mathrm{ref}} = 0$ (no jump)",
    ref=Ref("2.3.1", eq="14", note="'discontinuous whenever beta < gamma': only then"),
    expr=closed_form_g2(gamma * (1 + e), gamma, ref), var=ref, point=0, direction="+", value=0,
    domain={gamma: GAMMA_SET, e: sp.Interval(0, sp.oo)},
    note="beta >= gamma written as beta = gamma (1 + e), e >= 0.  With "
         "binary-g2-jump-at-pi-ref-zero-when-beta-lt-gamma: the right limit at 0 is "
         "max(1 - beta/gamma, 0), discontinuous exactly when beta < gamma.",
))

CLAIMS.append(Inequality(
    id="binary-g2-lower-bound",
    title=r"Groups of two: $\pi_\theta(a \mid q) \ge \max(1 - \beta/\gamma_{a,b}, "
          r"\pi_{\mathrm{ref}}(a \mid q))$",
    ref=Ref("2.3.1", note="display after (14)"),
    lhs=P14, op=">=", rhs=sp.Max(1 - C, ref),
    domain={beta: POS, gamma: GAMMA_SET, ref: sp.Interval.Lopen(0, 1)},
    uses=("binary-g2-close-to-one-regardless-of-pi-ref",),
    note="For pi_ref(a | q) in (0, 1] (at pi_ref = 0 the policy is 0: see "
         "binary-g2-close-to-one-regardless-of-pi-ref).",
))

CLAIMS.append(Inequality(
    id="binary-g2-close-to-one-regardless-of-pi-ref",
    title=r"Groups of two, literal: for small $\beta/\gamma_{a,b}$ the policy is close to 1 "
          r"whatever $\pi_{\mathrm{ref}}(a \mid q)$ is, $\pi_{\mathrm{ref}} = 0$ included",
    ref=Ref("2.3.1", note="sentence after the lower-bound display ('no matter what ... pi_ref')"),
    lhs=1 - sp.Piecewise((0, sp.Eq(ref, 0)), (P14, True)), op="<=", rhs=C,
    domain={beta: POS, gamma: GAMMA_SET, ref: sp.FiniteSet(0, sp.Rational(1, 10), sp.Rational(1, 2))},
    expect=refuted(r"at $\pi_{\mathrm{ref}}(a \mid q) = 0$ the policy is 0 (the paper's own "
                   r"support remark), so $1 - \pi_\theta(a \mid q) = 1 > \beta/\gamma_{a,b}$ for "
                   r"$\beta < \gamma_{a,b}$; holds for $\pi_{\mathrm{ref}}(a \mid q) > 0$"),
    note="pi_ref(a | q) in {0, 1/10, 1/2}: the sentence is for every value, and the edge 0 is "
         "where it fails (a continuum [0, 1] would hit 0 only by chance).  "
         "1 - pi_theta(a | q) <= beta/gamma is what the lower bound gives; the policy is (14) for "
         "pi_ref > 0 and 0 at pi_ref = 0 (paragraph after (14)).  Minor: the bound and this "
         "sentence hold for every pi_ref(a | q) > 0 (binary-g2-lower-bound, "
         "binary-g2-close-to-one-for-positive-pi-ref).",
))

CLAIMS.append(Inequality(
    id="binary-g2-close-to-one-for-positive-pi-ref",
    title=r"Groups of two: $1 - \pi_\theta(a \mid q) \le \beta/\gamma_{a,b}$ for every "
          r"$\pi_{\mathrm{ref}}(a \mid q) > 0$",
    ref=Ref("2.3.1", note="sentence after the lower-bound display, corrected"),
    lhs=1 - P14, op="<=", rhs=C,
    domain={beta: POS, gamma: GAMMA_SET, ref: sp.Interval.Lopen(0, 1)},
    uses=("binary-g2-close-to-one-regardless-of-pi-ref", "binary-g2-lower-bound"),
))

# ---- deterministic rewards
dpos = {rb: REAL, d: POS}
CLAIMS.append(Identity(
    id="binary-g2-deterministic-gamma-one",
    title=r"Deterministic rewards with $r(a \mid q) > r(b \mid q)$: the confidence margin "
          r"$\gamma_{a,b}$ is 1",
    ref=Ref("2.3.1", note="'In the case of deterministic rewards ... gamma_{a,b} = 1'"),
    lhs=group_relative_preference("a", ["b"], _det),
    rhs=1,
    domain=dpos,
    display=r"\gamma_{a,b} = \mathbb{E}[A_1 \mid o_1 = a, o_2 = b, q] = 1, \quad r(a \mid q) = r(b \mid q) + d,\ d > 0",
    uses=("b1-g2-gamma-is-expected-sign",),
    note="gamma_{a,b} = E[sign(r_1 - r_2) | o_1 = a, o_2 = b] = E[A_1] for the group (a, b), "
         "computed from the advantage of Eq. (2) with point-mass rewards r(a) = r_b + d, "
         "r(b) = r_b, d > 0; i.e. P(a > b) = 1, P(b > a) = 0.",
))

CLAIMS.append(Stationary(
    id="binary-g2-deterministic-rank-only",
    title=r"Deterministic rewards: the stationary policy is (14) with $\gamma_{a,b} = 1$, whatever "
          "the reward values (only their order matters)",
    ref=Ref("2.3.1", note="'depends solely on the comparison of the rewards'"),
    objective=grpo_objective_g2(x, old, ref, beta, _det),
    wrt=(x,), at={x: P14.subs(gamma, 1)}, frozen={old: x},
    domain={beta: POS, ref: REF_SET, **dpos},
    uses=("binary-g2-deterministic-gamma-one", "binary-g2-closed-form"),
    note="J_GRPO from the definitions with r(a) = r_b + d, r(b) = r_b for arbitrary r_b and d > 0: "
         "the stationary policy does not depend on r_b or d (invariance to scale and offset).",
))

# =============================================================================================
#                                   Limit of large groups
# =============================================================================================
DET_POS_DOMAIN = {beta: POS, ref: REF_SET, **dpos}

CLAIMS.append(Stationary(
    id="binary-large-g-closed-form", narrowed=DETERMINISTIC,
    title=r"Large groups, deterministic rewards with $r(a \mid q) > r(b \mid q)$: (15) is a "
          "stationary policy",
    ref=Ref("2.3.1", eq="15"),
    objective=grpo_objective_large(x, old, ref, beta, _det),
    wrt=(x,), at={x: P15}, frozen={old: x},
    domain=DET_POS_DOMAIN,
    uses=("binary-large-g-closed-form-stochastic-rewards", "reward-pref-binary-limit-r-inf",
          "b1-large-g-objective", "b1-large-g-stationarity-chain", "b1-large-g-eq19-to-quadratic",
          "b1-large-g-quadratic-root-above-reference"),
    note="Starts from the limiting objective R_inf - beta KL_0 (symbolic G is not supported; the "
         "finite-G limit is reward-pref-binary-limit-r-inf), with r(a | q) = r_b + d, "
         "r(b | q) = r_b, d > 0 arbitrary.  Its derivative with pi_old frozen, then pi_old = "
         "pi_theta, vanishes at (15).  This is the corrected scope of (15): deterministic "
         "rewards (binary-large-g-closed-form-stochastic-rewards).",
))

CLAIMS.append(Stationary(
    id="binary-large-g-closed-form-stochastic-rewards",
    title="Large groups, literal: (15) is stationary whenever the expected rewards satisfy $r(a "
          r"\mid q) > r(b \mid q)$",
    ref=Ref("2.3.1", eq="15", note="r(o | q) is the expected reward (Section 2.1)"),
    objective=grpo_objective_large(x, old, ref, beta, _bern),
    wrt=(x,), at={x: P15}, frozen={old: x},
    domain={beta: POS, ref: REF_SET, ua: UNIT, ub: UNIT, lo: REAL, g1: POS},
    where=(ua > ub,),
    expect=refuted(r"with stochastic rewards $\sigma(\pi_{\theta_{\mathrm{old}}})$ includes the "
                   "reward noise given the answer, so the stationary policy depends on the reward "
                   r"laws, not only on $r(a \mid q) > r(b \mid q)$; (15) needs deterministic "
                   "rewards"),
    note="Bernoulli rewards on two levels: a earns the high level w.p. u_a, b w.p. u_b < u_a, so "
         "r(a | q) > r(b | q) for the expected rewards of Section 2.1.  sigma(pi_old) is the std of "
         "the reward under pi_old (the limit of std(r_1..r_G), reward-pref-binary-limit-r-inf): "
         "sigma^2 = d^2 old (1 - old) + E_old[Var(r | o)].  Counterexample e.g. u_a = 0.6, "
         "u_b = 0.4, beta = 1, pi_ref = 0.5.",
))

CLAIMS.append(Root(
    id="binary-large-g-closed-form-unique-root",
    title="Large groups: (15) is the only policy in $(0, 1)$ satisfying (19)",
    ref=Ref("2.3.1", eq="15", note="with Appendix B.1, Eq. (19)"),
    equation=sp.Eq(beta * (x - ref), sp.sqrt(x * (1 - x))),
    var=x, value=P15, interval=UNIT, unique=True,
    domain=LARGE_DOMAIN,
    uses=("b1-large-g-eq19-to-quadratic", "b1-large-g-quadratic-root-above-reference"),
    note="Checked on [0, 1], whose ends are not roots (beta (0 - ref) < 0 = sqrt(0), beta (1 - ref) "
         "> 0), so that a root within rounding of 1 (tiny beta) is not mistaken for one outside.  sqrt(x (1 - x)) - beta (x - ref) is positive on (0, ref], concave, and negative at 1, so "
         "it has exactly one zero in (0, 1).",
))

CLAIMS.append(Maximiser(
    id="binary-large-g-closed-form-maximises-frozen-objective",
    title="Large groups: (15) maximises the GRPO objective with the old policy held at (15)",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (15)"),
    objective=(x - old) / sp.sqrt(old * (1 - old)) - beta * penalty_binary(x, old, ref),
    wrt=(x,), at={x: P15}, over={x: OPEN_UNIT}, frozen={old: P15}, scope="global",
    domain={beta: sp.FiniteSet(sp.Rational(1, 2), 1, 2),
            ref: sp.FiniteSet(sp.Rational(1, 10000), sp.Rational(1, 1000))},
    expect=refuted(r"(15) is only a stationary point: with $\pi_{\theta_{\mathrm{old}}}$ held at "
                   r"(15) other policies score higher ($\beta = 1$, $\pi_{\mathrm{ref}}(a \mid q) "
                   r"= 10^{-3}$: (15) $= 0.501$ but $\pi_\theta(a \mid q) = 10^{-3}$ is better)"),
    note="Instances beta in {1/2, 1, 2}, pi_ref(a | q) in {1e-4, 1e-3} (fails at each; the "
         "statement is for all parameters).  "
         "R_inf for deterministic r(a) > r(b) is (x - old)/sqrt(old (1 - old)) "
         "(r-inf-binary-closed-form).  Corrected: binary-large-g-closed-form-maximises-on-policy-potential.  "
         "(15) is not even a local maximum for pi_ref(a | q) < psi(beta) = 1/2 - (beta^2 + 4)/(2 beta "
         "sqrt(beta^2 + 16)) (beta > sqrt 2): binary-large-g-frozen-local-minimum-region.",
))

# ---- the same question for (15).  The reward part (x - pi_old)/sqrt(pi_old (1 - pi_old)) (R_inf for
# deterministic r(a) > r(b), r-inf-binary-closed-form) is linear in x, so the frozen second derivative
# at x = pi_old is D2_FROZEN again.  At x = (15), beta (x - ref) = sqrt(x (1 - x)) (Eq. (19)), and
# 2 ref (1 - 2x) + x (3x - 1) = (x - ref)(beta^2 (x - ref) + 4x - 2) + [the quadratic after (19)], so
# the sign is that of 2 - 4x - beta sqrt(x (1 - x)): a local minimum iff (15) < (1 - beta/sqrt(beta^2 + 16))/2,
# i.e. pi_ref < PSI(beta) below (positive only for beta > sqrt 2).
_FROZEN_LARGE = (x - old) / sp.sqrt(old * (1 - old)) - beta * penalty_binary(x, old, ref)
D2_FROZEN_15 = D2_FROZEN.subs(x, P15)
_W16 = sp.sqrt(beta ** 2 + 16)
PSI_LARGE = sp.Rational(1, 2) - (beta ** 2 + 4) / (2 * beta * _W16)   # the boundary pi_ref = PSI(beta)
_D2L = (r"\frac{d^2}{d \pi_\theta(a \mid q)^2} \Big(" + _R_INF + r" - \beta\, " + _KL0
        + r"\Big)\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta}")
name(NOTATION, D2_FROZEN_15, _D2L + r"\Big|_{(15)}")
name(NOTATION, PSI_LARGE, r"\psi(\beta)")
_PSI_TEX = r"\psi(\beta) = \frac{1}{2} - \frac{\beta^2 + 4}{2 \beta \sqrt{\beta^2 + 16}}"
_REGION_NOTE_15 = ("Region derived in closed form: f''((15)) = -beta ((15) - ref)(beta^2 ((15) - ref) + 4 (15) - 2)"
                   "/((15)(1 - (15)))^2 (binary-large-g-frozen-second-derivative-at-15); with beta ((15) - ref) = "
                   "sqrt((15)(1 - (15))) the bracket is beta s + 4x - 2, s = sqrt(x (1 - x)), increasing in x "
                   "below 1/2 and positive above, zero at x_c = (1 - beta/sqrt(beta^2 + 16))/2; (15) is increasing "
                   "in pi_ref and equals x_c at pi_ref = psi(beta) (binary-large-g-frozen-boundary-value).  "
                   "psi(beta) > 0 iff beta > sqrt 2, and psi <= (2 - sqrt 3)/4 ~ 0.067 (at beta = 2 sqrt 2).  ")
CLAIMS.append(Identity(
    id="binary-large-g-frozen-second-derivative",
    title=r"Large groups: the second derivative of $\mathcal{R}_\infty - \beta \mathrm{KL}_0$ with "
          r"$\pi_{\theta_{\mathrm{old}}}$ held fixed, at $\pi_\theta = \pi_{\theta_{\mathrm{old}}}$, is the one of "
          "groups of two",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; objective of Appendix B.1 (large groups)"),
    lhs=sp.diff(_FROZEN_LARGE, x, 2).subs(old, x),
    rhs=D2_FROZEN,
    display=_D2L + r" = -\beta \left(\frac{2 \pi_{\mathrm{ref}}(a \mid q) - \pi_\theta(a \mid q)}{\pi_\theta(a \mid q)^2} "
                   r"+ \frac{1 - 2 \pi_{\mathrm{ref}}(a \mid q) + \pi_\theta(a \mid q)}{(1 - \pi_\theta(a \mid q))^2}\right)",
    domain={x: OPEN_UNIT, beta: POS, ref: REF_SET},
    uses=("b1-large-g-objective", "binary-g2-frozen-second-derivative"),
    note="Deterministic rewards r(a | q) > r(b | q): R_inf = (x - pi_old)/sqrt(pi_old (1 - pi_old)) "
         "(r-inf-binary-closed-form), linear in x for fixed pi_old.",
))
CLAIMS.append(Identity(
    id="binary-large-g-frozen-second-derivative-at-15",
    title=r"Large groups: at (15) the frozen second derivative is $-\beta (\pi_\theta - \pi_{\mathrm{ref}})"
          r"(\beta^2 (\pi_\theta - \pi_{\mathrm{ref}}) + 4 \pi_\theta - 2)/(\pi_\theta (1 - \pi_\theta))^2$",
    ref=Ref("2.3.1", eq="15", note="derived here: the second-order condition at (15) with pi_old held at it"),
    lhs=D2_FROZEN_15,
    rhs=-beta * (P15 - ref) * (beta ** 2 * (P15 - ref) + 4 * P15 - 2) / (P15 * (1 - P15)) ** 2,
    display=_D2L + r"\Big|_{(15)} = -\beta \frac{(\pi_\theta(a \mid q) - \pi_{\mathrm{ref}}(a \mid q))(\beta^2 "
                   r"(\pi_\theta(a \mid q) - \pi_{\mathrm{ref}}(a \mid q)) + 4 \pi_\theta(a \mid q) - 2)}"
                   r"{(\pi_\theta(a \mid q) (1 - \pi_\theta(a \mid q)))^2}, \quad \pi_\theta(a \mid q) = (15)",
    domain=LARGE_DOMAIN,
    uses=("binary-large-g-frozen-second-derivative", "b1-large-g-quadratic-root-above-reference"),
    note="2 ref (1 - 2x) + x (3x - 1) - (x - ref)(beta^2 (x - ref) + 4x - 2) = -[(1 + beta^2) x^2 - "
         "(2 beta^2 ref + 1) x + beta^2 ref^2], the quadratic after (19), which vanishes at (15).  As "
         "(15) > pi_ref, the sign of the second derivative is that of 2 - 4 (15) - beta^2 ((15) - pi_ref).",
))
CLAIMS.append(Inequality(
    id="binary-large-g-frozen-local-minimum-region",
    title=r"Large groups: with $\pi_{\theta_{\mathrm{old}}}$ held at (15), (15) is a strict local minimum of the "
          r"objective exactly when $\pi_{\mathrm{ref}}(a \mid q) < \psi(\beta) = 1/2 - (\beta^2 + 4)/(2 \beta "
          r"\sqrt{\beta^2 + 16})$",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (15)"),
    lhs=D2_FROZEN_15, op=">", rhs=sp.Integer(0),
    display=_D2L + r"\Big|_{(15)} > 0 \quad \text{for } \pi_{\mathrm{ref}}(a \mid q) < \psi(\beta), \quad " + _PSI_TEX,
    domain={beta: sp.Interval.open(sp.Rational(7, 5), sp.oo), ref: sp.Interval.open(0, sp.Rational(7, 100))},
    paper_domain={beta: "beta > 7/5: the region needs beta > sqrt(2), so the box contains all of it",
                  ref: "pi_ref < 7/100: psi(beta) <= (2 - sqrt 3)/4 < 7/100, so the box contains all of it"},
    where=(ref < PSI_LARGE,),
    uses=("binary-large-g-frozen-second-derivative-at-15", "binary-large-g-frozen-boundary-value",
          "binary-large-g-closed-form-frozen-local-maximiser-instance",
          "binary-large-g-frozen-local-minimum-needs-small-reference"),
    note=_REGION_NOTE_15 + "The region is non-empty only for beta > sqrt 2; with "
         "binary-large-g-frozen-local-maximum-region this splits the whole range beta > 0, pi_ref in (0, 1).  "
         "The declared box beta > 7/5, pi_ref < 7/100 contains the whole region (psi <= 0 for beta <= sqrt 2, "
         "psi < 7/100 by binary-large-g-frozen-local-minimum-needs-small-reference); it only keeps the seeded "
         "sample points inside the thin region.",
))
CLAIMS.append(Inequality(
    id="binary-large-g-frozen-local-maximum-region",
    title=r"Large groups: with $\pi_{\theta_{\mathrm{old}}}$ held at (15), (15) is a strict local maximum of the "
          r"objective exactly when $\pi_{\mathrm{ref}}(a \mid q) > \psi(\beta)$ (always for $\beta \le \sqrt{2}$)",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (15)"),
    lhs=D2_FROZEN_15, op="<", rhs=sp.Integer(0),
    display=_D2L + r"\Big|_{(15)} < 0 \quad \text{for } \pi_{\mathrm{ref}}(a \mid q) > \psi(\beta), \quad " + _PSI_TEX,
    domain=LARGE_DOMAIN, where=(ref > PSI_LARGE,),
    uses=("binary-large-g-frozen-second-derivative-at-15", "binary-large-g-frozen-boundary-value"),
    note=_REGION_NOTE_15 + "For beta <= sqrt 2, psi(beta) <= 0 and (15) is a strict local maximum of the frozen "
         "objective for every pi_ref (not necessarily the global one: "
         "binary-large-g-closed-form-maximises-frozen-objective).",
))
CLAIMS.append(Identity(
    id="binary-large-g-frozen-boundary-value",
    title=r"Large groups: on the boundary $\pi_{\mathrm{ref}}(a \mid q) = \psi(\beta)$, $\beta > \sqrt{2}$, (15) "
          r"equals $(1 - \beta/\sqrt{\beta^2 + 16})/2$",
    ref=Ref("2.3.1", eq="15", note="derived here: the boundary between local minimum and local maximum"),
    lhs=P15.subs(ref, PSI_LARGE), rhs=(1 - beta / _W16) / 2,
    display=r"\pi_\theta(a \mid q)\big|_{\pi_{\mathrm{ref}}(a \mid q) = \psi(\beta)} = \frac{1}{2}\Big(1 - "
            r"\frac{\beta}{\sqrt{\beta^2 + 16}}\Big) \quad \text{for (15)}, \quad " + _PSI_TEX,
    domain={beta: POS}, where=(beta ** 2 > 2,),
    note="At pi_ref = psi(beta): 1 + 4 beta^2 psi (1 - psi) = 9 beta^2/(beta^2 + 16), so the square root in "
         "(15) is 3 beta/sqrt(beta^2 + 16) and (15) = (1 - beta/sqrt(beta^2 + 16))/2 = x_c, where "
         "beta sqrt(x_c (1 - x_c)) = 2 - 4 x_c.  psi(beta) is in (0, 1) exactly for beta > sqrt 2.",
))
CLAIMS.append(Identity(
    id="binary-large-g-frozen-second-derivative-vanishes-on-boundary",
    title=r"Large groups: on the boundary curve $\pi_{\mathrm{ref}}(a \mid q) = \psi(\beta)$ the frozen second "
          "derivative at (15) is zero",
    ref=Ref("2.3.1", eq="15", note="derived here: the boundary between local minimum and local maximum"),
    lhs=D2_FROZEN_15.subs(ref, PSI_LARGE), rhs=sp.Integer(0),
    display=_D2L + r"\Big|_{(15),\ \pi_{\mathrm{ref}}(a \mid q) = \psi(\beta)} = 0, \quad " + _PSI_TEX,
    domain={beta: POS}, where=(beta ** 2 > 2,),
    uses=("binary-large-g-frozen-boundary-value",),
))
CLAIMS.append(Inequality(
    id="binary-large-g-frozen-local-minimum-needs-small-reference",
    title=r"Large groups: $\psi(\beta) \le (2 - \sqrt{3})/4 \approx 0.067$, so (15) can be a local minimum of the "
          r"frozen objective only for $\pi_{\mathrm{ref}}(a \mid q) < 0.067$",
    ref=Ref("2.3.1", eq="15", note="derived here: the extent of the local-minimum region"),
    lhs=PSI_LARGE, op="<=", rhs=(2 - sp.sqrt(3)) / 4,
    display=_PSI_TEX + r" \le \frac{2 - \sqrt{3}}{4}",
    domain={beta: POS},
    note="Equality at beta = 2 sqrt 2: psi(2 sqrt 2) = 1/2 - 12/(4 sqrt 2 sqrt 24) = 1/2 - sqrt(3)/4.  The "
         "same bound as for groups of two (binary-g2-frozen-local-minimum-needs-small-reference).",
))
CLAIMS.append(Maximiser(
    id="binary-large-g-closed-form-frozen-local-maximiser-instance",
    title=r"Large groups, $\beta = 3$, $\pi_{\mathrm{ref}}(a \mid q) = 1/100$: (15) is a local maximiser of the "
          "GRPO objective with the old policy held at (15)",
    ref=Ref("2.3", note="'the maxima ... when pi_old = pi_theta'; Section 2.3.1, Eq. (15)"),
    objective=_FROZEN_LARGE,
    wrt=(x,), at={x: P15}, over={x: OPEN_UNIT}, frozen={old: P15}, scope="local",
    domain={beta: sp.FiniteSet(3), ref: sp.FiniteSet(sp.Rational(1, 100))},
    expect=refuted(r"here $\pi_{\mathrm{ref}}(a \mid q) = 1/100 < \psi(3) = 1/15$, so (15) $= 0.117$ is a strict "
                   r"local minimum of the objective with $\pi_{\theta_{\mathrm{old}}}$ held at it, not a local "
                   "maximum (binary-large-g-frozen-local-minimum-region)"),
    note="One parameter point inside the local-minimum region (psi(3) = 1/2 - 13/30 = 1/15).",
))

CLAIMS.append(Maximiser(
    id="binary-large-g-closed-form-maximises-on-policy-potential",
    title="Large groups: (15) is the unique maximiser of the potential whose derivative is the "
          "on-policy GRPO gradient",
    ref=Ref("2.3.1", eq="15", note="corrected sense of 'maximum'"),
    objective=sp.asin(2 * x - 1) - beta * kl_rev_binary(x, ref),
    wrt=(x,), at={x: P15}, over={x: OPEN_UNIT}, scope="global",
    domain=LARGE_DOMAIN,
    uses=("binary-large-g-closed-form-maximises-frozen-objective", "b1-large-g-derivative-on-policy"),
    note="d/dx asin(2x - 1) = 1/sqrt(x (1 - x)), so the derivative of this potential is the "
         "on-policy derivative of B.1; it is positive below (15) and negative above "
         "(binary-large-g-closed-form-unique-root), so on-policy gradient ascent moves towards (15).",
))

CLAIMS.append(Root(
    id="binary-large-g-tie-reference-policy",
    title="Large groups, equal rewards: the stationary policy is the reference policy",
    ref=Ref("2.3.1", note="'when r(a | q) = r(b | q), then pi_theta = pi_ref'; Appendix B.1"),
    equation=-beta * (x - ref) / (x * (1 - x)),
    var=x, value=ref, interval=OPEN_UNIT, unique=True,
    domain=LARGE_DOMAIN,
    note="With r(a) = r(b) every group ties, every advantage is 0 by the convention of Eq. (2) "
         "(R_inf itself is 0/0 since sigma = 0, hence the paper's 'intuitively'), the objective is "
         "-beta KL_0 and its on-policy derivative vanishes only at pi_ref(a | q).",
))

# ---- what (15) depends on
_D_ON = (r"\frac{d}{d \pi_\theta(a \mid q)} \Big(" + _R_INF + r" - \beta\, " + _KL0
         + r"\Big)\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta}")
_H_DET = name(NOTATION, sp.diff(grpo_objective_large(x, old, ref, beta, _det), x).subs(old, x), _D_ON)
CLAIMS.append(Identity(
    id="binary-large-g-depends-only-on-comparison", narrowed=DETERMINISTIC,
    title="Large groups, deterministic rewards: the stationarity condition depends only on "
          r"$\pi_{\mathrm{ref}}$, $\beta$ and which reward is larger",
    ref=Ref("2.3.1", eq="15", note="paragraph after (15), 'depends solely on ...'"),
    lhs=_H_DET, rhs=H_LARGE,
    domain={x: OPEN_UNIT, **DET_POS_DOMAIN},
    uses=("binary-large-g-depends-only-on-comparison-stochastic-rewards",),
    note="The on-policy derivative of R_inf - beta KL_0 for rewards r_b + d > r_b is the same "
         "for every r_b and d > 0.",
))

_H_BERN = name(NOTATION, sp.diff(grpo_objective_large(x, old, ref, beta, _bern), x).subs(old, x), _D_ON)
CLAIMS.append(Identity(
    id="binary-large-g-depends-only-on-comparison-stochastic-rewards",
    title=r"Large groups, literal: with expected rewards $r(a \mid q) > r(b \mid q)$ the "
          r"stationarity condition depends only on $\pi_{\mathrm{ref}}$, $\beta$ and the "
          "comparison",
    ref=Ref("2.3.1", eq="15", note="paragraph after (15): 'comparison of the expected rewards'"),
    lhs=_H_BERN, rhs=H_LARGE,
    domain={x: OPEN_UNIT, beta: POS, ref: REF_SET, ua: UNIT, ub: UNIT, lo: REAL, g1: POS},
    where=(ua > ub,),
    expect=refuted(r"for stochastic rewards the normalised advantage $(r(a \mid q) - "
                   r"\mathbb{E}[r])/\sigma$ depends on the reward laws (noise enters $\sigma$), "
                   r"not only on $r(a \mid q) > r(b \mid q)$"),
    note="Bernoulli rewards as in binary-large-g-closed-form-stochastic-rewards.",
))

# ---- discontinuity, lower bound, comparison with groups of two
CLAIMS.append(Limit(
    id="binary-large-g-pi-ref-zero-right-limit",
    title=r"Large groups: as $\pi_{\mathrm{ref}}(a \mid q) \to 0^+$, (15) tends to $1/(1 + "
          r"\beta^2) > 0$ (a jump, the policy at $\pi_{\mathrm{ref}} = 0$ being 0)",
    ref=Ref("2.3.1", eq="15", note="'discontinuous at pi_ref(a | q) = 0 for every beta > 0'"),
    expr=P15, var=ref, point=0, direction="+", value=1 / (1 + beta ** 2),
    domain={beta: POS},
    note="1/(1 + beta^2) > 0 for every beta, and pi_theta(a | q) = 0 at pi_ref(a | q) = 0.",
))

CLAIMS.append(Inequality(
    id="binary-large-g-lower-bound",
    title=r"Large groups: $\pi_\theta(a \mid q) \ge \max(1/(1 + \beta^2), \pi_{\mathrm{ref}}(a "
          r"\mid q))$",
    ref=Ref("2.3.1", note="display after (15)"),
    lhs=P15, op=">=", rhs=sp.Max(1 / (1 + beta ** 2), ref),
    domain={beta: POS, ref: sp.Interval.Lopen(0, 1)},
    note="For pi_ref(a | q) in (0, 1]; at pi_ref = 0 the policy is 0 (the discontinuity).",
))

CLAIMS.append(Inequality(
    id="binary-large-g-bound-exceeds-g2-bound",
    title=r"The large-group lower bound $1/(1 + \beta^2)$ exceeds the groups-of-two bound $1 - "
          r"\beta$",
    ref=Ref("2.3.1", note="last paragraph: 'larger than 1 - beta, for every beta > 0'"),
    lhs=1 / (1 + beta ** 2), op=">", rhs=1 - beta,
    domain={beta: POS},
    uses=("binary-g2-lower-bound", "binary-large-g-lower-bound", "binary-g2-deterministic-gamma-one"),
    note="1 - beta is 1 - beta/gamma with gamma = 1 (deterministic rewards).  The difference is "
         "beta (1 - beta + beta^2)/(1 + beta^2) > 0.  (The paper's sentence writes "
         "pi_theta(q | q) for pi_theta(a | q), a typo.)",
))

CLAIMS.append(Inequality(
    id="binary-large-g-more-biased-than-g2",
    title="Large groups put more mass on the preferred answer than groups of two: (15) > (14)",
    ref=Ref("2.3.1", note="paragraph after (15): 'more biased towards the reward preference'"),
    lhs=P15, op=">", rhs=P14,
    domain={beta: POS, gamma: GAMMA_SET, ref: OPEN_UNIT},
    uses=("binary-g2-increasing-in-gamma",),
    harmless_mutants={"*": "an order between the closed forms (15) and (14), with room to spare away from "
                           "pi_ref = 1: a changed constant that keeps (15) above (14) passes; (14) and (15) "
                           "themselves are pinned by binary-g2-closed-form and binary-large-g-closed-form"},
    note="Pointwise for every beta > 0, pi_ref(a | q) in (0, 1) and every confidence margin "
         "gamma in (0, 1] (deterministic rewards give gamma = 1, the closest case; stochastic "
         "rewards only lower (14)).  At pi_ref = 1 both are 1.",
))

# =============================================================================================
#                          Appendix B.1, groups of size two: displays
# =============================================================================================
E_AB = GAMMA_EXPR                                  # E[sign(r_1 - r_2) | o_1 = a, o_2 = b]
E_BA = esign(LAW["b"], LAW["a"])                   # E[sign(r_1 - r_2) | o_1 = b, o_2 = a]


def _esign_rev(law1, law2_):
    """E[sign(r_2 - r_1)] for r_1 ~ law1, r_2 ~ law2_ (the paper's second line)."""
    return sp.Add(*[p1 * p2 * sp.sign(r2 - r1)
                    for r1, p1 in zip(law1.outcomes, law1.probs)
                    for r2, p2 in zip(law2_.outcomes, law2_.probs)])


E_BA_REV = _esign_rev(LAW["b"], LAW["a"])          # E[sign(r_2 - r_1) | o_1 = b, o_2 = a]
OLDB = 1 - old
PIB = 1 - x
_REWARD_PREF = name(NOTATION, expected_preference_under(two(x), law2(old), _kernel, 2), E_P_G(2))
name(NOTATION, E_BA, r"\mathbb{E}[\operatorname{sign}(r_1 - r_2) \mid o_1 = b, o_2 = a, q]")
# (E[sign(r_2 - r_1) | o_1 = b, o_2 = a] is built as the very expression E[sign(r_1 - r_2) | a, b]:
# the chain's third line prints with the latter's name; its display shows the paper's lines)
_B1_DOMAIN = {x: UNIT, old: UNIT, **STOCH_DOMAIN}


def _g2_chain_steps(literal: bool):
    line3_old = OLDB if literal else old
    return [
        Step(_REWARD_PREF, because="E_{o ~ pi}[P_2(o | pi_old, q)] from the definitions"),
        Step(x * OLDB * E_AB + PIB * old * E_BA,
             because="only mixed pairs count: E[sign(r_1 - r_2)] = 0 for two draws of the same "
                     "answer (i.i.d. rewards)"),
        Step(x * OLDB * E_AB - PIB * old * E_BA_REV, because="sign(r_1 - r_2) = -sign(r_2 - r_1)"),
        Step(x * OLDB * E_AB - PIB * line3_old * E_AB,
             because="relabel the two group members" + (" (as printed: pi_old(b | q))" if literal
                                                       else " (pi_old(a | q), as the next line has)")),
        Step((x * OLDB - PIB * old) * E_AB, because="factor out E[sign(r_1 - r_2) | a, b]"),
    ]


_PT = {o: rf"\pi_\theta({o} \mid q)" for o in "ab"}
_PO = {o: rf"\pi_{{\theta_{{\mathrm{{old}}}}}}({o} \mid q)" for o in "ab"}


def _es(i, j, o1, o2):
    return rf"\mathbb{{E}}[\operatorname{{sign}}(r_{i} - r_{j}) \mid o_1 = {o1}, o_2 = {o2}, q]"


def _b1_display(line3_old):
    """The first display of Appendix B.1 (line 3 with pi_old(line3_old | q) as printed or corrected)."""
    lines = [E_P_G(2),
             f"= {_PT['a']} {_PO['b']} {_es(1, 2, 'a', 'b')} + {_PT['b']} {_PO['a']} {_es(1, 2, 'b', 'a')}",
             f"= {_PT['a']} {_PO['b']} {_es(1, 2, 'a', 'b')} - {_PT['b']} {_PO['a']} {_es(2, 1, 'b', 'a')}",
             f"= {_PT['a']} {_PO['b']} {_es(1, 2, 'a', 'b')} - {_PT['b']} {_PO[line3_old]} {_es(1, 2, 'a', 'b')}",
             rf"= ({_PT['a']} {_PO['b']} - {_PT['b']} {_PO['a']})\, {_es(1, 2, 'a', 'b')}"]
    return lines[0] + r" \\ &" + r" \\ &".join(lines[1:])


CLAIMS.append(Chain(
    id="b1-g2-reward-preference-chain-literal",
    title="B.1, groups of two, as printed: the expected group-relative preference factorises",
    ref=Ref("Appendix B.1", note="first display (before (16)), as printed"),
    steps=_g2_chain_steps(literal=True),
    domain=_B1_DOMAIN,
    display=_b1_display("b"),
    expect=refuted(r"the third line has $\pi_\theta(b \mid q) \pi_{\theta_{\mathrm{old}}}(b \mid "
                   r"q)$ where $\pi_\theta(b \mid q) \pi_{\theta_{\mathrm{old}}}(a \mid q)$ is "
                   r"meant (typo; the next line uses $\pi_{\theta_{\mathrm{old}}}(a \mid q)$)"),
    note="Stochastic rewards on three levels per answer (ties possible); E[...] are exact sums "
         "over the reward laws.  The failing step is 4 (the third '=' line).",
))

CLAIMS.append(Chain(
    id="b1-g2-reward-preference-chain", narrowed=THREE_LEVELS,
    title="B.1, groups of two: the expected group-relative preference factorises (corrected)",
    ref=Ref("Appendix B.1", note="first display (before (16)), with pi_old(a | q) in line 3"),
    steps=_g2_chain_steps(literal=False),
    domain=_B1_DOMAIN,
    display=_b1_display("a"),
    uses=("b1-g2-reward-preference-chain-literal",),
    note="As b1-g2-reward-preference-chain-literal with the typo corrected.",
))

CLAIMS.append(Chain(
    id="b1-g2-policy-difference",
    title=r"B.1: $\pi_\theta(a \mid q) \pi_{\theta_{\mathrm{old}}}(b \mid q) - \pi_\theta(b \mid "
          r"q) \pi_{\theta_{\mathrm{old}}}(a \mid q) = \pi_\theta(a \mid q) - "
          r"\pi_{\theta_{\mathrm{old}}}(a \mid q)$ for a binary question",
    ref=Ref("Appendix B.1", note="display after the first one"),
    steps=[Step(x * sp.UnevaluatedExpr(OLDB) - sp.UnevaluatedExpr(PIB) * old,
                because="pi(b) = 1 - pi(a), pi_old(b) = 1 - pi_old(a)"),
           Step(x - old, because="expand")],
    domain={x: UNIT, old: UNIT},
))

CLAIMS.append(Identity(
    id="b1-g2-gamma-is-expected-sign", narrowed=THREE_LEVELS,
    title=r"B.1: $\mathbb{E}[\operatorname{sign}(r_1 - r_2) \mid o_1 = a, o_2 = b] = \mathcal{P}(a "
          r"\succ b \mid q) - \mathcal{P}(b \succ a \mid q) = \gamma_{a,b}$",
    ref=Ref("Appendix B.1", note="display defining gamma_{a,b}"),
    lhs=E_AB, rhs=P_AB - P_BA,
    domain=STOCH_DOMAIN,
    display=_es(1, 2, "a", "b") + r" = \mathcal{P}(a \succ b \mid q) - \mathcal{P}(b \succ a \mid q) = \gamma_{a,b}",
    uses=("p2-is-win-minus-loss-probability",),
    note="Stochastic rewards on three shared levels (ties have positive probability).",
))

CLAIMS.append(Identity(
    id="b1-g2-eq16", narrowed=THREE_LEVELS,
    title=r"B.1, Eq. (16): the reward part for groups of two is $\gamma_{a,b} (\pi_\theta(a \mid "
          r"q) - \pi_{\theta_{\mathrm{old}}}(a \mid q))$",
    ref=Ref("Appendix B.1", eq="16"),
    lhs=_REWARD_PREF, rhs=(P_AB - P_BA) * (x - old),
    domain=_B1_DOMAIN,
    display=E_P_G(2) + rf" = \gamma_{{a,b}} ({_PT['a']} - {_PO['a']})",
    uses=("b1-g2-reward-preference-chain", "b1-g2-policy-difference", "b1-g2-gamma-is-expected-sign"),
))

# the bracket multiplied by -beta in the objective displays of Appendix B.1, and its derivative
_A, _O, _F = r"\pi_\theta(a \mid q)", r"\pi_{\theta_{\mathrm{old}}}(a \mid q)", r"\pi_{\mathrm{ref}}(a \mid q)"
_BRACKET = (rf"{_O} \frac{{{_F}}}{{{_A}}} + (1 - {_O}) \frac{{1 - {_F}}}{{1 - {_A}}} + {_O} \log {_A} "
            rf"+ (1 - {_O}) \log(1 - {_A})")
_D_BRACKET = (rf"-\frac{{{_O} {_F}}}{{{_A}^2}} + \frac{{(1 - {_O})(1 - {_F})}}{{(1 - {_A})^2}} + \frac{{{_O}}}{{{_A}}} "
              rf"- \frac{{1 - {_O}}}{{1 - {_A}}}")
_SIGN = r"\operatorname{sign}(r(a \mid q) - r(b \mid q))"
_E_OLD = r"\mathbb{E}_{o \sim \pi_{\theta_{\mathrm{old}}}(\cdot \mid q)}[r(o \mid q)]"
_SIGMA = r"\sigma(\pi_{\theta_{\mathrm{old}}}(\cdot \mid q))"
_CONST_G2 = -(P_AB - P_BA) * old + beta * (old * sp.log(ref) + (1 - old) * sp.log(1 - ref) + 1)
CLAIMS.append(Identity(
    id="b1-g2-objective", narrowed=THREE_LEVELS,
    title=r"B.1: the GRPO objective for groups of two, up to a constant in $\pi_\theta(a \mid q)$",
    ref=Ref("Appendix B.1", note="display after (16)"),
    lhs=grpo_objective_g2(x, old, ref, beta, _kernel),
    rhs=(P_AB - P_BA) * x - beta * bracket(x, old, ref) + _CONST_G2,
    domain={x: OPEN_UNIT, old: UNIT, beta: POS, ref: REF_SET, **STOCH_DOMAIN},
    display=_J + rf" = \gamma_{{a,b}} {_A} - \beta \left({_BRACKET}\right) + \text{{const}}",
    uses=("b1-g2-eq16",),
    note="J_GRPO = E_pi[P_2(o | pi_old)] - beta KL_0(pi || ref; pi_old) from the definitions; "
         "'const' = -gamma pi_old(a) + beta (pi_old(a) log pi_ref(a) + pi_old(b) log pi_ref(b) + 1), "
         "free of pi_theta(a | q).",
))

_OBJ_G2 = gamma * x - beta * bracket(x, old, ref)
_DERIV_G2 = gamma - beta * (-old * ref / x ** 2 + (1 - old) * (1 - ref) / (1 - x) ** 2
                            + old / x - (1 - old) / (1 - x))
CLAIMS.append(Identity(
    id="b1-g2-objective-derivative",
    title=r"B.1: derivative of the groups-of-two objective in $\pi_\theta(a \mid q)$, old policy "
          "fixed",
    ref=Ref("Appendix B.1", note="display 'Taking the first derivative'"),
    lhs=sp.diff(_OBJ_G2, x), rhs=_DERIV_G2,
    domain={x: OPEN_UNIT, old: UNIT, beta: POS, gamma: GAMMA_SET, ref: REF_SET},
    display=rf"\frac{{d}}{{d {_A}}} \left(\gamma_{{a,b}} {_A} - \beta \left({_BRACKET}\right)\right) = \gamma_{{a,b}} "
            rf"- \beta \left({_D_BRACKET}\right)",
    uses=("b1-g2-objective",),
))

CLAIMS.append(Identity(
    id="b1-g2-derivative-on-policy",
    title=r"B.1: at $\pi_{\theta_{\mathrm{old}}} = \pi_\theta$ the derivative is $\gamma_{a,b} - "
          r"\beta (\pi_\theta - \pi_{\mathrm{ref}})/(\pi_\theta (1 - \pi_\theta))$",
    ref=Ref("Appendix B.1", note="display before (17)"),
    lhs=_DERIV_G2.subs(old, x), rhs=H_G2,
    domain={x: OPEN_UNIT, beta: POS, gamma: GAMMA_SET, ref: REF_SET},
    uses=("b1-g2-objective-derivative",),
))

CLAIMS.append(Chain(
    id="b1-g2-stationarity-chain",
    title="B.1: setting the derivative to zero gives (17), equivalent to a quadratic",
    ref=Ref("Appendix B.1", eq="17", note="and the quadratic after it"),
    steps=[
        Step(sp.Eq(H_G2, 0), because="derivative at pi_old = pi_theta set to zero"),
        Step(sp.Eq(beta * (x - ref) / (x * (1 - x)), gamma), relation="equivalent", multiply_by=-1,
             because="Eq. (17)"),
        Step(sp.Eq(QUAD_G2, 0), relation="equivalent", multiply_by=x * (1 - x) / gamma,
             because="multiply by pi (1 - pi)/gamma, non-zero for pi in (0, 1), gamma != 0"),
    ],
    domain={x: OPEN_UNIT, beta: POS, gamma: GAMMA_SET, ref: REF_SET},
    uses=("b1-g2-derivative-on-policy",),
))

CLAIMS.append(Root(
    id="b1-g2-quadratic-unique-nonnegative-root",
    title=r"B.1: for $\gamma_{a,b} > 0$ the quadratic has a unique non-negative root, which is "
          "(14)",
    ref=Ref("Appendix B.1", note="display before the end of the groups-of-two part"),
    equation=sp.Eq(QUAD_G2, 0),
    var=x,
    value=sp.Rational(1, 2) * (sp.sqrt((1 - C) ** 2 + 4 * C * ref) + (1 - C)),
    interval=sp.Interval(0, sp.oo), unique=True,
    domain=G2_DOMAIN,
    uses=("b1-g2-stationarity-chain",),
    note="The value is written in the appendix's order (square root first); it is (14).  The "
         "product of the roots is -(beta/gamma) pi_ref < 0, so exactly one root is non-negative.  "
         "pi_ref(a | q) > 0 is needed: at pi_ref = 0 and beta < gamma both roots 0 and "
         "1 - beta/gamma are non-negative (the appendix divides by pi_theta, which presumes "
         "pi_ref(a | q) > 0).",
))

# =============================================================================================
#                          Appendix B.1, limit of large groups: displays
# =============================================================================================
dnz = {rb: REAL, d: REAL}
NZ = (sp.Ne(d, 0),)
OLD_LAW = law2(old)
RW = {"a": rb + d, "b": rb}
MEAN_OLD = OLD_LAW.expect(lambda o: RW[o])
SIGMA2_OLD = OLD_LAW.expect(lambda o: (RW[o] - MEAN_OLD) ** 2)
SIGMA_OLD = sp.sqrt(SIGMA2_OLD)
SGN = sp.sign(d)
name(NOTATION, MEAN_OLD, r"\mathbb{E}_{o \sim \pi_{\theta_{\mathrm{old}}}(\cdot \mid q)}[r(o \mid q)]")
name(NOTATION, SIGMA2_OLD, r"\sigma(\pi_{\theta_{\mathrm{old}}}(\cdot \mid q))^2")
name(NOTATION, SIGMA_OLD, r"\sigma(\pi_{\theta_{\mathrm{old}}}(\cdot \mid q))")

CLAIMS.append(Identity(
    id="b1-large-g-centred-reward-a",
    title=r"B.1: $r(a \mid q) - \mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r] = (1 - "
          r"\pi_{\theta_{\mathrm{old}}}(a \mid q)) (r(a \mid q) - r(b \mid q))$",
    ref=Ref("Appendix B.1", note="first display of the large-group part"),
    lhs=RW["a"] - MEAN_OLD, rhs=(1 - old) * d,
    domain={old: UNIT, **dnz},
    display=rf"r(a \mid q) - {_E_OLD} = (1 - {_O})(r(a \mid q) - r(b \mid q))",
))

CLAIMS.append(Identity(
    id="b1-large-g-centred-reward-b",
    title=r"B.1: $r(b \mid q) - \mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r] = "
          r"\pi_{\theta_{\mathrm{old}}}(a \mid q) (r(b \mid q) - r(a \mid q))$",
    ref=Ref("Appendix B.1", note="second display of the large-group part"),
    lhs=RW["b"] - MEAN_OLD, rhs=old * (-d),
    domain={old: UNIT, **dnz},
    display=rf"r(b \mid q) - {_E_OLD} = {_O} (r(b \mid q) - r(a \mid q))",
))

CLAIMS.append(Identity(
    id="b1-large-g-sigma-squared", narrowed=DETERMINISTIC,
    title=r"B.1: deterministic rewards: $\sigma(\pi_{\theta_{\mathrm{old}}})^2 = (r(a \mid q) - "
          r"r(b \mid q))^2 \pi_{\theta_{\mathrm{old}}}(a \mid q) (1 - "
          r"\pi_{\theta_{\mathrm{old}}}(a \mid q))$",
    ref=Ref("Appendix B.1", note="third display of the large-group part"),
    lhs=SIGMA2_OLD, rhs=d ** 2 * old * (1 - old),
    domain={old: UNIT, **dnz},
    display=rf"{_SIGMA}^2 = (r(a \\mid q) - r(b \\mid q))^2 {_O} (1 - {_O})",
    uses=("b1-large-g-sigma-squared-stochastic-rewards",),
    note="Variance of the reward under pi_old for deterministic rewards r(a) = r_b + d, r(b) = r_b.",
))

_BJOINT = OLD_LAW.then(_bern)
_BMU = _BJOINT.expect(lambda orr: orr[1])
_BMEAN = {o: BERN[o].expect(lambda r: r) for o in ("a", "b")}
name(NOTATION, _BJOINT.expect(lambda orr: (orr[1] - _BMU) ** 2), r"\sigma(\pi_{\theta_{\mathrm{old}}}(\cdot \mid q))^2")
CLAIMS.append(Identity(
    id="b1-large-g-sigma-squared-stochastic-rewards",
    title=r"B.1, with stochastic rewards: $\sigma(\pi_{\theta_{\mathrm{old}}})^2 = (r(a \mid q) - "
          r"r(b \mid q))^2 \pi_{\theta_{\mathrm{old}}}(a \mid q) (1 - "
          r"\pi_{\theta_{\mathrm{old}}}(a \mid q))$ for the expected rewards",
    ref=Ref("Appendix B.1", note="third display of the large-group part; r(o|q) expected rewards"),
    lhs=_BJOINT.expect(lambda orr: (orr[1] - _BMU) ** 2),
    rhs=(_BMEAN["a"] - _BMEAN["b"]) ** 2 * old * (1 - old),
    domain={old: UNIT, ua: UNIT, ub: UNIT, lo: REAL, g1: POS},
    display=rf"{_SIGMA}^2 = (r(a \\mid q) - r(b \\mid q))^2 {_O} (1 - {_O})" + r" \quad \text{($r(o \mid q)$ the expected rewards)}",
    expect=refuted("for stochastic rewards the reward variance under "
                   r"$\pi_{\theta_{\mathrm{old}}}$ adds "
                   r"$\mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[\operatorname{Var}(r \mid o)]$ to "
                   r"$(r(a \mid q) - r(b \mid q))^2 \pi_{\theta_{\mathrm{old}}}(a \mid q) "
                   r"\pi_{\theta_{\mathrm{old}}}(b \mid q)$"),
    note="Bernoulli rewards (a high w.p. u_a, b w.p. u_b); r(o | q) = expected reward (Section 2.1) "
         "and sigma is the limit of std(r_1..r_G), the total reward std.",
))

CLAIMS.append(Identity(
    id="b1-large-g-normalised-advantage-a", narrowed=DETERMINISTIC,
    title=r"B.1: $(r(a \mid q) - \mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r]) / "
          r"\sigma(\pi_{\theta_{\mathrm{old}}}) = \sqrt{(1 - \pi_{\theta_{\mathrm{old}}}(a \mid "
          r"q))/\pi_{\theta_{\mathrm{old}}}(a \mid q)}\, \operatorname{sign}(r(a \mid q) - r(b "
          r"\mid q))$",
    ref=Ref("Appendix B.1", note="display 'It follows that'"),
    lhs=(RW["a"] - MEAN_OLD) / SIGMA_OLD, rhs=sp.sqrt((1 - old) / old) * SGN,
    display=rf"\frac{{r(a \mid q) - {_E_OLD}}}{{{_SIGMA}}} = \sqrt{{\frac{{1 - {_O}}}{{{_O}}}}}\, {_SIGN}",
    domain={old: OPEN_UNIT, **dnz}, where=NZ,
    uses=("b1-large-g-centred-reward-a", "b1-large-g-sigma-squared"),
))

CLAIMS.append(Identity(
    id="b1-large-g-normalised-advantage-b", narrowed=DETERMINISTIC,
    title=r"B.1: $(r(b \mid q) - \mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r]) / "
          r"\sigma(\pi_{\theta_{\mathrm{old}}}) = -\sqrt{\pi_{\theta_{\mathrm{old}}}(a \mid q)/(1 "
          r"- \pi_{\theta_{\mathrm{old}}}(a \mid q))}\, \operatorname{sign}(r(a \mid q) - r(b \mid "
          "q))$",
    ref=Ref("Appendix B.1", note="display after 'It follows that'"),
    lhs=(RW["b"] - MEAN_OLD) / SIGMA_OLD, rhs=-sp.sqrt(old / (1 - old)) * SGN,
    display=rf"\frac{{r(b \mid q) - {_E_OLD}}}{{{_SIGMA}}} = -\sqrt{{\frac{{{_O}}}{{1 - {_O}}}}}\, {_SIGN}",
    domain={old: OPEN_UNIT, **dnz}, where=NZ,
    uses=("b1-large-g-centred-reward-b", "b1-large-g-sigma-squared"),
))

_RINF_DET = r_inf(x, old, _det)
CLAIMS.append(Identity(
    id="b1-large-g-eq18-literal",
    title=r"B.1, Eq. (18) as printed: $\mathcal{R}_\infty = (\pi_\theta(a \mid "
          r"q)/\sqrt{\pi_{\theta_{\mathrm{old}}}(a \mid q)} - \sqrt{\pi_{\theta_{\mathrm{old}}}(a "
          r"\mid q)/(1 - \pi_{\theta_{\mathrm{old}}}(a \mid q))})\, \operatorname{sign}(r(a \mid "
          r"q) - r(b \mid q))$",
    ref=Ref("Appendix B.1", eq="18", note="as printed"),
    lhs=_RINF_DET, rhs=(x / sp.sqrt(old) - sp.sqrt(old / (1 - old))) * SGN,
    display=_R_INF + rf" = \left(\frac{{1}}{{\sqrt{{{_O}}}}} {_A} - \sqrt{{\frac{{{_O}}}{{1 - {_O}}}}}\right) {_SIGN}",
    domain={x: UNIT, old: OPEN_UNIT, **dnz}, where=NZ,
    expect=refuted(r"the first coefficient must be $1/\sqrt{\pi_{\theta_{\mathrm{old}}}(a \mid "
                   r"q)(1 - \pi_{\theta_{\mathrm{old}}}(a \mid q))}$, not "
                   r"$1/\sqrt{\pi_{\theta_{\mathrm{old}}}(a \mid q)}$ (typo; the next display has "
                   "the right one)"),
    note="Deterministic rewards r(a) = r_b + d, r(b) = r_b, d != 0.  At pi = pi_old the left side "
         "is 0 but the printed right side is not.",
))

CLAIMS.append(Identity(
    id="b1-large-g-eq18", narrowed=DETERMINISTIC,
    title=r"B.1, Eq. (18) corrected: $\mathcal{R}_\infty = (\pi_\theta(a \mid "
          r"q)/\sqrt{\pi_{\theta_{\mathrm{old}}}(a \mid q)(1 - \pi_{\theta_{\mathrm{old}}}(a \mid "
          r"q))} - \sqrt{\pi_{\theta_{\mathrm{old}}}(a \mid q)/(1 - \pi_{\theta_{\mathrm{old}}}(a "
          r"\mid q))})\, \operatorname{sign}(r(a \mid q) - r(b \mid q))$",
    ref=Ref("Appendix B.1", eq="18", note="corrected"),
    lhs=_RINF_DET, rhs=(x / sp.sqrt(old * (1 - old)) - sp.sqrt(old / (1 - old))) * SGN,
    display=_R_INF + rf" = \left(\frac{{1}}{{\sqrt{{{_O} (1 - {_O})}}}} {_A} - \sqrt{{\frac{{{_O}}}{{1 - {_O}}}}}\right) "
    + _SIGN,
    domain={x: UNIT, old: OPEN_UNIT, **dnz}, where=NZ,
    uses=("b1-large-g-eq18-literal", "b1-large-g-normalised-advantage-a",
          "b1-large-g-normalised-advantage-b"),
    note="E_pi[(r - E_old r)/sigma] = pi(a) sqrt((1-p)/p) - (1 - pi(a)) sqrt(p/(1-p)) times the "
         "sign, p = pi_old(a).",
))

_CONST_LARGE = -SGN * sp.sqrt(old / (1 - old)) \
    + beta * (old * sp.log(ref) + (1 - old) * sp.log(1 - ref) + 1)
CLAIMS.append(Identity(
    id="b1-large-g-objective", narrowed=DETERMINISTIC,
    title=r"B.1: the large-group objective, up to a constant in $\pi_\theta(a \mid q)$",
    ref=Ref("Appendix B.1", note="display 'The objective function is as follows'"),
    lhs=grpo_objective_large(x, old, ref, beta, _det),
    rhs=SGN / sp.sqrt(old * (1 - old)) * x - beta * bracket(x, old, ref) + _CONST_LARGE,
    display=_R_INF + r" - \beta\, " + _KL0 + rf" = \frac{{{_SIGN}}}{{\sqrt{{{_O} (1 - {_O})}}}} {_A} - \beta "
    rf"\left({_BRACKET}\right) + \text{{const}}",
    domain={x: OPEN_UNIT, old: OPEN_UNIT, beta: POS, ref: REF_SET, **dnz}, where=NZ,
    uses=("b1-large-g-eq18",),
    note="R_inf - beta KL_0 with deterministic rewards; 'const' = -sign(d) sqrt(p/(1-p)) + "
         "beta (p log pi_ref(a) + (1 - p) log pi_ref(b) + 1), p = pi_old(a).  (The printed "
         "display has one closing parenthesis too many.)",
))

_OBJ_LARGE = SGN / sp.sqrt(old * (1 - old)) * x - beta * bracket(x, old, ref)
CLAIMS.append(Identity(
    id="b1-large-g-derivative-on-policy", narrowed=DETERMINISTIC,
    title=r"B.1: the large-group derivative at $\pi_{\theta_{\mathrm{old}}} = \pi_\theta$",
    ref=Ref("Appendix B.1", note="display 'The derivative of J_GRPO ...'"),
    lhs=sp.diff(_OBJ_LARGE, x).subs(old, x),
    rhs=SGN / sp.sqrt(x * (1 - x)) - beta * (x - ref) / (x * (1 - x)),
    domain={x: OPEN_UNIT, beta: POS, ref: REF_SET, d: REAL}, where=NZ,
    uses=("b1-large-g-objective",),
    display=_D_ON + rf" = \frac{{{_SIGN}}}{{\sqrt{{{_A} (1 - {_A})}}}} - \beta \frac{{{_A} - {_F}}}{{{_A} (1 - {_A})}}",
    note="Differentiate with pi_old fixed, then set pi_old = pi_theta (the paper keeps writing "
         "pi_old in the first term, which is the same at that point).",
))

CLAIMS.append(Chain(
    id="b1-large-g-stationarity-chain", narrowed=DETERMINISTIC,
    title=r"B.1: setting the large-group derivative to zero gives $\beta (\pi_\theta - "
          r"\pi_{\mathrm{ref}}) = \sqrt{\pi_\theta (1 - \pi_\theta)}\, \operatorname{sign}(r(a "
          r"\mid q) - r(b \mid q))$",
    ref=Ref("Appendix B.1", note="display 'which when set to zero yields'"),
    steps=[
        Step(sp.Eq(SGN / sp.sqrt(x * (1 - x)) - beta * (x - ref) / (x * (1 - x)), 0),
             because="derivative set to zero"),
        Step(sp.Eq(beta * (x - ref), sp.sqrt(x * (1 - x)) * SGN), relation="equivalent",
             multiply_by=-x * (1 - x), because="multiply by -pi (1 - pi), non-zero on (0, 1)"),
    ],
    domain={x: OPEN_UNIT, beta: POS, ref: REF_SET, d: REAL}, where=NZ,
    uses=("b1-large-g-derivative-on-policy",),
))

CLAIMS.append(Chain(
    id="b1-large-g-eq19-to-quadratic",
    title="B.1: (19) implies the quadratic (squaring; the converse fails at the spurious root)",
    ref=Ref("Appendix B.1", eq="19", note="and the quadratic after it ('This is equivalent to')"),
    steps=[
        Step(sp.Eq(beta * (x - ref), sp.sqrt(x * (1 - x))), because="Eq. (19): r(a) > r(b)"),
        Step(sp.Eq(QUAD_LARGE, 0), relation="implies",
             multiply_by=beta * (x - ref) + sp.sqrt(x * (1 - x)),
             because="square both sides: multiply by beta (pi - ref) + sqrt(pi (1 - pi)), which "
                     "vanishes at the spurious root below pi_ref"),
    ],
    domain={x: OPEN_UNIT, beta: POS, ref: REF_SET},
    uses=("b1-large-g-stationarity-chain",),
    note="The paper says 'equivalent'; squaring only gives an implication, and the paper restores "
         "equivalence with the side condition pi >= pi_ref ('Since by (19) ...'): "
         "b1-large-g-quadratic-root-above-reference.  Not counted as an error.",
))

CLAIMS.append(Chain(
    id="b1-large-g-eq19-equivalent-to-quadratic-literal",
    title="B.1 as worded: (19) is equivalent to the quadratic on the whole of $(0, 1)$",
    ref=Ref("Appendix B.1", eq="19", note="'This is equivalent to the following quadratic equation'"),
    steps=[
        Step(sp.Eq(beta * (x - ref), sp.sqrt(x * (1 - x))), because="Eq. (19)"),
        Step(sp.Eq(QUAD_LARGE, 0), relation="equivalent",
             multiply_by=beta * (x - ref) + sp.sqrt(x * (1 - x)), because="square both sides"),
    ],
    domain={x: OPEN_UNIT, beta: POS, ref: REF_SET},
    expect=refuted("squaring is not an equivalence: the quadratic's smaller root lies below "
                   r"$\pi_{\mathrm{ref}}(a \mid q)$ and does not solve (19); the paper repairs "
                   r"this in the next sentence ($\pi_\theta(a \mid q) \ge \pi_{\mathrm{ref}}(a "
                   r"\mid q)$)"),
    note="Imprecise wording rather than a wrong result: the next sentence restricts to "
         "pi_theta(a | q) >= pi_ref(a | q), where the equivalence holds "
         "(b1-large-g-eq19-equivalent-to-quadratic-above-reference).",
))

CLAIMS.append(Chain(
    id="b1-large-g-eq19-equivalent-to-quadratic-above-reference",
    title=r"B.1: for $\pi_\theta(a \mid q) \ge \pi_{\mathrm{ref}}(a \mid q)$, (19) is equivalent "
          "to the quadratic",
    ref=Ref("Appendix B.1", eq="19", note="with 'Since by (19), pi_theta(a | q) >= pi_ref(a | q)'"),
    steps=[
        Step(sp.Eq(beta * (x - ref), sp.sqrt(x * (1 - x))), because="Eq. (19)"),
        Step(sp.Eq(QUAD_LARGE, 0), relation="equivalent",
             multiply_by=beta * (x - ref) + sp.sqrt(x * (1 - x)),
             because="square both sides; the multiplier is positive when pi >= pi_ref"),
    ],
    domain={x: OPEN_UNIT, beta: POS, ref: REF_SET}, where=(x >= ref,),
    uses=("b1-large-g-eq19-equivalent-to-quadratic-literal", "b1-large-g-eq19-to-quadratic"),
))

CLAIMS.append(Root(
    id="b1-large-g-quadratic-root-above-reference",
    title=r"B.1: the quadratic has a unique root with $\pi_\theta(a \mid q) \ge "
          r"\pi_{\mathrm{ref}}(a \mid q)$, which is (15)",
    ref=Ref("Appendix B.1", note="displays after (19)"),
    equation=sp.Eq(QUAD_LARGE.subs(x, ref + y), 0),
    var=y, value=P15 - ref, interval=sp.Interval(0, sp.oo), unique=True,
    domain=LARGE_DOMAIN,
    uses=("b1-large-g-eq19-to-quadratic",),
    note="Written in y = pi_theta(a | q) - pi_ref(a | q) so that the side condition is y >= 0 "
         "(root intervals are numeric).  The quadratic is -pi_ref (1 - pi_ref) < 0 at pi = pi_ref, "
         "so pi_ref lies strictly between the roots and only the '+' root qualifies.",
))

# =============================================================================================
UNCHECKABLE = [
    {"id": "binary-g2-effective-regularisation",
     "ref": Ref("2.3.1", note="sentence after (14)"),
     "statement": "beta/gamma_{a,b} may be regarded as the effective regularisation constant",
     "reason": "an interpretation; the mechanical content (dependence on beta/gamma only) is "
               "binary-g2-depends-on-ratio-only"},
    {"id": "binary-g2-margin-interpretation",
     "ref": Ref("2.3.1", note="sentence after (14)"),
     "statement": "a larger confidence margin means a larger reward preference for answer a",
     "reason": "an interpretation of gamma; the monotonicity itself is binary-g2-increasing-in-gamma"},
    {"id": "binary-g2-ranking-interpretation",
     "ref": Ref("2.3.1", note="paragraph on deterministic rewards"),
     "statement": "the model focuses on the ranking of rewards and ignores scale or offset",
     "reason": "prose restating binary-g2-deterministic-rank-only"},
    {"id": "binary-g2-support-convention",
     "ref": Ref("2.3.1", note="'Recall that when pi_ref(a | q) = 0, then pi_theta(a | q) = 0'"),
     "statement": "where the reference policy vanishes the policy vanishes, its support being "
                  "contained in that of pi_ref",
     "reason": "a modelling convention (the KL_0 penalty contains -pi_old(a) log(pi_ref(a)/pi(a)), "
               "infinite at pi_ref(a) = 0); used as the value at pi_ref = 0 in the continuity "
               "claims binary-g2-jump-at-pi-ref-zero-when-beta-lt-gamma and "
               "binary-large-g-pi-ref-zero-right-limit"},
    {"id": "binary-g2-pi-theta-q-given-q-typo",
     "ref": Ref("2.3.1", note="last paragraph of the groups-of-two part"),
     "statement": "The text writes pi_theta(q | q) where pi_theta(a | q) is meant.",
     "reason": "a typo in notation; the statement it belongs to is binary-g2-deterministic-rank-only",
     "finding": "typo"},
    {"id": "b1-large-g-objective-extra-parenthesis",
     "ref": Ref("Appendix B.1", note="large-group objective display"),
     "statement": "The large-group objective display has one closing parenthesis too many.",
     "reason": "a typesetting slip; the objective itself is b1-large-g-objective",
     "finding": "typesetting slip"},
]


# =============================================================================================
# Figures 1 and 2: each curve is the closed form; the overlay points are roots of the
# stationarity condition, found numerically by the engine (never by evaluating the closed
# form).  The paper's legends are not in its text: the parameter values span the regimes it
# discusses (beta below, at and above gamma).  (14) depends on beta and gamma only through
# beta/gamma, so gamma = 1 (deterministic rewards) and the legend shows the ratio.
from verify_claims.figures import Curve, Figure  # noqa: E402

PI_LABEL = r"$\pi_\theta(a\,|\,q)$"
REF_LABEL = r"$\pi_{\mathrm{ref}}(a\,|\,q)$"
FIGURE_VALUES = (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2, 10)

FIGURES = [
    Figure(id="fig-1-groups-of-two", title="Figure 1: GRPO, binary question, groups of two",
           ref=Ref("2.3.1", "14", "Figure 1"),
           caption=r"$\pi_\theta(a \mid q)$ against $\pi_{\mathrm{ref}}(a \mid q)$ for answer $a$ with "
                   r"$P(a \succ b) > P(b \succ a)$, groups of size two, at several $\beta/\gamma_{a,b}$: the "
                   "closed form (14) (lines) and numerical roots of the stationarity condition (17) (circles).",
           x=ref, y=x, closed_form=closed_form_g2(beta, gamma, ref),
           stationarity=gamma - beta * (x - ref) / (x * (1 - x)),
           curves=[Curve({beta: r, gamma: 1}, label=rf"$\beta/\gamma = {sp.latex(r)}$") for r in FIGURE_VALUES],
           x_label=REF_LABEL, y_label=PI_LABEL,
           uses=("binary-g2-closed-form", "b1-g2-stationarity-chain")),
    Figure(id="fig-2-large-groups", title="Figure 2: GRPO, binary question, large groups",
           ref=Ref("2.3.1", "15", "Figure 2"),
           caption=r"$\pi_\theta(a \mid q)$ against $\pi_{\mathrm{ref}}(a \mid q)$ for answer $a$ with "
                   r"$r(a \mid q) > r(b \mid q)$, in the limit of large groups, at several $\beta$: the closed "
                   "form (15) (lines) and numerical roots of the stationarity condition before (19) (circles).",
           x=ref, y=x, closed_form=closed_form_large(beta, ref),
           stationarity=1 / sp.sqrt(x * (1 - x)) - beta * (x - ref) / (x * (1 - x)),
           curves=[Curve({beta: b}, label=rf"$\beta = {sp.latex(b)}$") for b in FIGURE_VALUES],
           x_label=REF_LABEL, y_label=PI_LABEL,
           uses=("binary-large-g-closed-form", "b1-large-g-stationarity-chain")),
]
