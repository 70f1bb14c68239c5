"""Section 1.1 (Related work): RLHF (Eqs. (3)-(4)) and NLHF (Eq. (5)) as preference
aggregation, for one context with three outputs.

RLHF.  J(pi) = sum_i pi_i r_i - beta KL(pi || pi_ref) (Eq. (3) for one context q).  The
paper says (4), pi* proportional to pi_ref e^{r/beta}, maximises it.  Encoded as the
Gibbs-gap identity J(pi*) - J(pi) = beta KL(pi || pi*) (with KL >= 0 this is a proof of
global maximality), the Maximiser claim itself, the Lagrange (simplex) stationarity of
pi*, and the logarithmic-pooling reading of (4): normalising pi_ref^1 * Luce^{1/beta}
gives (4).

NLHF.  J(pi, pi') of Eq. (5) with antisymmetric pairwise preferences P(o > o') (so
P(o > o) = 1/2).  Encoded: the game is constant-sum (J(pi, pi') + J(pi', pi) = 1, i.e.
zero-sum after subtracting 1/2 from each payoff); against a fixed pi' the payoff is the
RLHF objective with reward p(o) = E_{o'~pi'}[P(o > o')] plus a constant, so the best
response is the Gibbs distribution pi_ref e^{p/beta}/Z (decomposition and Maximiser); the
first-order condition of the symmetric game (differentiate in pi with pi' frozen, then set
pi' = pi) is, component by component, beta * log(Gibbs(pi)_o / pi_o) up to an
o-independent constant, so an interior symmetric equilibrium satisfies the fixed-point
form displayed after (5); and, conversely, any such fixed point is stationary for, and a
global best response to, itself.  The remark that the fixed point is a logarithmic
pooling with pi-dependent weights is encoded with one Luce distribution per opponent
output, weighted by pi(o')/beta.

Uniqueness of the NLHF equilibrium (cited from Munos et al. 2024), shown here for two and
three outputs: with two outputs the fixed-point map is constant (the score difference is
P(a > b) - 1/2), so there is exactly one fixed point, in closed form; with three outputs
J(pi, pi') is strictly concave in pi and strictly convex in pi' (Hessian minors), and the
fixed-point residual R(y) = log y - log F(y) is strictly monotone, (y - x).(R(y) - R(x)) =
KL(x || y) + KL(y || x), so two fixed points coincide (the positivity of the symmetrised
KL is only spot-checked).  The convergence of mirror descent to it is listed as cited.
"""

import sympy as sp

from _notation import name
from _s1_helpers import (expected_preference, gibbs, kl, luce, nlhf_payoff, normalise,
                         preference_matrix, rlhf_objective, simplex3)
from verify_claims import Identity, Inequality, Maximiser, Monotonic, Narrowed, Notation, Ref, Stationary, Summary

R = sp.Interval(-sp.oo, sp.oo)
POS = sp.Interval.open(0, sp.oo)
UNIT = sp.Interval.open(0, 1)
CLOSED_UNIT = sp.Interval(0, 1)

# Eqs. (3)-(5) are stated for any set of outputs and any policies; every claim here takes one
# context with three outputs and policies in the interior of the simplex
THREE_OUTPUTS = Narrowed(
    paper="one context with any set of outputs, any policies (Eqs. (3)-(5) and the text after them)",
    verified="one context with three outputs, every probability of the policies strictly between 0 and 1",
    reason="a distribution over a symbolic number of outputs is not a finite set of symbols with a domain")

# the paper's notation (Section 1.1), for one context q with three outputs o_1, o_2, o_3:
# pi_theta is the policy, pi' the opponent (Eq. (5)) or the second argument of KL, pi the
# first; x_1, x_2 the coordinates of an NLHF fixed point; P(o_i > o_j | q) the preferences
NOTATION = Notation()


def _o(k):
    return f"(o_{k} \\mid q)"


beta = NOTATION.symbol("beta", r"\beta")
r1, r2, r3 = (NOTATION.symbol(f"r{k}", r"r_\phi" + _o(k)) for k in (1, 2, 3))
pi1, pi2, pi3 = (NOTATION.symbol(f"pi{k}", r"\pi_\theta" + _o(k)) for k in (1, 2, 3))
ref1, ref2 = (NOTATION.symbol(f"ref{k}", r"\pi_{\mathrm{ref}}" + _o(k)) for k in (1, 2))
p1, p2 = (NOTATION.symbol(f"p{k}", r"\pi" + _o(k)) for k in (1, 2))
q1, q2, q3 = (NOTATION.symbol(f"q{k}", r"\pi'" + _o(k)) for k in (1, 2, 3))
x1, x2 = (NOTATION.symbol(f"x{k}", f"x_{k}") for k in (1, 2))
P12, P13, P23 = (NOTATION.symbol(f"P{i}{j}", rf"\mathcal{{P}}(o_{i} \succ o_{j} \mid q)")
                 for i, j in ((1, 2), (1, 3), (2, 3)))

r = (r1, r2, r3)
ref = simplex3(ref1, ref2)
pi = simplex3(pi1, pi2)

PI_DOMAIN = {pi1: UNIT, pi2: UNIT}
PI_WHERE = (pi1 + pi2 < 1,)
REF_DOMAIN = {ref1: UNIT, ref2: UNIT}
REF_WHERE = (ref1 + ref2 < 1,)

CLAIMS = []

# ---------------------------------------------------------------- KL >= 0 (lemma)
name(NOTATION, kl(simplex3(p1, p2), simplex3(q1, q2)), r"\mathrm{KL}(\pi \,\|\, \pi')")
CLAIMS.append(Inequality(
    id="kl-nonnegative-3", narrowed=THREE_OUTPUTS,
    title="The KL divergence between two distributions on three outputs is non-negative",
    ref=Ref("1.1", eq="3", note="KL divergence defined after (3)"),
    lhs=kl(simplex3(p1, p2), simplex3(q1, q2)),
    op=">=",
    rhs=sp.Integer(0),
    domain={p1: UNIT, p2: UNIT, q1: UNIT, q2: UNIT},
    where=(p1 + p2 < 1, q1 + q2 < 1),
    uses=("penalty-term-nonnegative",),
    note="Supporting lemma (Gibbs' inequality): KL(p||q) = sum_x p(x) [q/p - log(q/p) - 1] "
         "because sum p(q/p - 1) = 0, and each bracket is a D_i term, >= 0.",
))

# ---------------------------------------------------------------- RLHF
J_rlhf = rlhf_objective(pi, r, ref, beta)
pstar = gibbs(ref, r, beta)
J_rlhf_star = rlhf_objective(pstar, r, ref, beta)
RLHF_DOMAIN = {beta: POS, **{ri: R for ri in r}, **REF_DOMAIN}
# Eq. (3) for one context and its maximiser (4), pi* = pi_ref e^{r/beta} / Z_q
name(NOTATION, J_rlhf, r"\mathcal{J}_{\mathrm{RLHF}}(\pi_\theta)")
name(NOTATION, J_rlhf_star, r"\mathcal{J}_{\mathrm{RLHF}}(\pi^*)")
name(NOTATION, kl(pi, ref), r"\mathrm{KL}(\pi_\theta \,\|\, \pi_{\mathrm{ref}})")
name(NOTATION, kl(pi, pstar), r"\mathrm{KL}(\pi_\theta \,\|\, \pi^*)")
for _k in range(3):
    name(NOTATION, pstar[_k], rf"\frac{{1}}{{Z_q}} \pi_{{\mathrm{{ref}}}}{_o(_k + 1)} e^{{r_\phi{_o(_k + 1)} / \beta}}")

CLAIMS.append(Identity(
    id="rlhf-gibbs-gap-3", narrowed=THREE_OUTPUTS,
    title="The RLHF objective falls short of its value at the Gibbs policy by $\\beta$ times a KL "
          "divergence (three outputs)",
    ref=Ref("1.1", eq="4", note="sentence after (4): (4) maximises (3)"),
    lhs=J_rlhf_star - J_rlhf,
    rhs=beta * kl(pi, pstar),
    display=r"\mathcal{J}_{\mathrm{RLHF}}(\pi^*) - \mathcal{J}_{\mathrm{RLHF}}(\pi_\theta) "
            r"= \beta\, \mathrm{KL}(\pi_\theta \,\|\, \pi^*), \quad \pi^*(o \mid q) "
            r"= \frac{1}{Z_q} \pi_{\mathrm{ref}}(o \mid q) e^{r_\phi(o \mid q) / \beta}",
    domain={**RLHF_DOMAIN, **PI_DOMAIN},
    where=REF_WHERE + PI_WHERE,
    note="J(pi*) - J(pi) = beta KL(pi || pi*) for pi* = pi_ref e^{r/beta} / Z; both sides "
         "equal beta log Z - J(pi).  With KL >= 0 this proves (4) is the global maximiser "
         "and (KL = 0 iff pi = pi*) that it is unique.",
))
CLAIMS.append(Maximiser(
    id="rlhf-gibbs-maximiser-3", narrowed=THREE_OUTPUTS,
    title="The Gibbs policy built from the reference policy and the rewards maximises the "
          "RLHF objective (three outputs)",
    ref=Ref("1.1", eq="4", note="sentence after (4): (4) maximises (3)"),
    objective=J_rlhf,
    wrt=(pi1, pi2),
    at={pi1: pstar[0], pi2: pstar[1]},
    over={pi1: UNIT, pi2: UNIT},
    over_where=PI_WHERE,
    scope="global",
    domain=RLHF_DOMAIN,
    where=REF_WHERE,
    uses=("rlhf-gibbs-gap-3", "kl-nonnegative-3"),
    note="Eq. (3) for a single context q (the expectation over q ~ mu decouples across "
         "contexts); pi3 = 1 - pi1 - pi2.  The open simplex suffices: (4) is interior and J "
         "extends continuously to the boundary (0 log 0 = 0).  For small beta and spread "
         "rewards (4) lies within e^{-|r_i - r_j|/beta} of the boundary, below any working "
         "precision.",
))
_pi_free = (pi1, pi2, pi3)
name(NOTATION, rlhf_objective(_pi_free, r, ref, beta), r"\mathcal{J}_{\mathrm{RLHF}}(\pi_\theta)")
CLAIMS.append(Stationary(
    id="rlhf-gibbs-stationary-3", narrowed=THREE_OUTPUTS,
    title="The Gibbs policy satisfies the Lagrange condition of the RLHF objective on the "
          "simplex (three outputs)",
    ref=Ref("1.1", eq="4"),
    objective=rlhf_objective(_pi_free, r, ref, beta),
    wrt=_pi_free,
    at={pi1: pstar[0], pi2: pstar[1], pi3: pstar[2]},
    simplex=True,
    domain=RLHF_DOMAIN,
    where=REF_WHERE,
    note="dJ/dpi_o = r_o - beta (log(pi_o/pi_ref(o)) + 1) = beta log Z - beta at pi*, the "
         "same for every o.",
))
_L = luce(r)
for _k in range(3):   # Luce's choice distribution e^{r(o)} / sum_o' e^{r(o')}
    name(NOTATION, _L[_k], rf"\left(\frac{{e^{{r_\phi{_o(_k + 1)}}}}}{{\sum_{{o'}} e^{{r_\phi(o' \mid q)}}}}\right)")
_pooled = normalise([ref[i] * _L[i] ** (1 / beta) for i in range(3)])
CLAIMS.append(Identity(
    id="rlhf-logarithmic-pooling-3", narrowed=THREE_OUTPUTS,
    title="The RLHF policy is the normalised geometric average of the reference policy "
          "(weight 1) and Luce's choice distribution (weight $1/\\beta$)",
    ref=Ref("1.1", eq="4", note="paragraph after (4)"),
    lhs=_pooled[0],
    rhs=pstar[0],
    display=r"\frac{\pi_{\mathrm{ref}}(o_1 \mid q)\, L(o_1)^{1/\beta}}{\sum_{o} \pi_{\mathrm{ref}}(o \mid q)\, "
            r"L(o)^{1/\beta}} = \frac{1}{Z_q} \pi_{\mathrm{ref}}(o_1 \mid q) e^{r_\phi(o_1 \mid q) / \beta}, "
            r"\quad L(o) = \frac{e^{r_\phi(o \mid q)}}{\sum_{o'} e^{r_\phi(o' \mid q)}}",
    domain=RLHF_DOMAIN,
    where=REF_WHERE,
    note="Compared after normalisation: pi_ref(o) (e^{r(o)}/S)^{1/beta} = S^{-1/beta} "
         "pi_ref(o) e^{r(o)/beta}, and the common factor S^{-1/beta} cancels.  Output 1 is "
         "shown; outputs 2, 3 follow by relabelling.",
))

# ---------------------------------------------------------------- NLHF
P = preference_matrix(P12, P13, P23)
P_DOMAIN = {P12: CLOSED_UNIT, P13: CLOSED_UNIT, P23: CLOSED_UNIT}
opp = simplex3(q1, q2)
Q_DOMAIN = {q1: UNIT, q2: UNIT}
Q_WHERE = (q1 + q2 < 1,)
NLHF_DOMAIN = {beta: POS, **REF_DOMAIN, **P_DOMAIN}
# Eq. (5) for one context: the payoff of pi_theta against pi' and of pi' against pi_theta
name(NOTATION, nlhf_payoff(pi, opp, P, ref, beta), r"\mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, \pi')")
name(NOTATION, nlhf_payoff(opp, pi, P, ref, beta), r"\mathcal{J}_{\mathrm{NLHF}}(\pi', \pi_\theta)")
name(NOTATION, kl(opp, ref), r"\mathrm{KL}(\pi' \,\|\, \pi_{\mathrm{ref}})")

CLAIMS.append(Identity(
    id="nlhf-constant-sum-3", narrowed=THREE_OUTPUTS,
    title="The NLHF payoffs of the two players always add up to one (three outputs)",
    ref=Ref("1.1", eq="5", note="two-player zero-sum game"),
    lhs=nlhf_payoff(pi, opp, P, ref, beta) + nlhf_payoff(opp, pi, P, ref, beta),
    rhs=sp.Integer(1),
    display=r"\mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, \pi') + \mathcal{J}_{\mathrm{NLHF}}(\pi', \pi_\theta) = 1",
    domain={**NLHF_DOMAIN, **PI_DOMAIN, **Q_DOMAIN},
    where=REF_WHERE + PI_WHERE + Q_WHERE,
    note="With P(o' > o) = 1 - P(o > o') the KL terms cancel and the preferences add to 1: "
         "the game of (5) is constant-sum, i.e. zero-sum for the payoffs J - 1/2, which "
         "have the same equilibria.",
))

_scores = expected_preference(P, opp)
J_nlhf = nlhf_payoff(pi, opp, P, ref, beta)
CLAIMS.append(Identity(
    id="nlhf-payoff-decomposition-3", narrowed=THREE_OUTPUTS,
    title="Against a fixed opponent, the NLHF payoff is an RLHF objective whose reward is the "
          "expected pairwise preference, plus a constant (three outputs)",
    ref=Ref("1.1", eq="5", note="display after (5)"),
    lhs=J_nlhf,
    rhs=rlhf_objective(pi, _scores, ref, beta) + beta * kl(opp, ref),
    display=r"\mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, \pi') = \mathbb{E}_{o \sim \pi_\theta}"
            r"\big[\mathbb{E}_{o' \sim \pi'}[\mathcal{P}(o \succ o' \mid q)]\big] "
            r"- \beta\, \mathrm{KL}(\pi_\theta \,\|\, \pi_{\mathrm{ref}}) "
            r"+ \beta\, \mathrm{KL}(\pi' \,\|\, \pi_{\mathrm{ref}})",
    domain={**NLHF_DOMAIN, **PI_DOMAIN, **Q_DOMAIN},
    where=REF_WHERE + PI_WHERE + Q_WHERE,
    note="J(pi, pi') = E_{o~pi}[p(o)] - beta KL(pi||pi_ref) + beta KL(pi'||pi_ref) with "
         "p(o) = E_{o'~pi'}[P(o > o')].  So for fixed pi' the best-response problem is the "
         "RLHF problem (3) with reward p, and its payoff gap to the Gibbs response "
         "pi_ref e^{p/beta}/Z is beta KL(pi || response) by rlhf-gibbs-gap-3 (the rewards "
         "there are arbitrary reals).  The gap is not restated in the expanded form: sympy "
         "needs > 20 s for it (exp of sums of P's and q's), while this decomposition is "
         "proved at once.",
))
_br = gibbs(ref, _scores, beta)
for _k in range(3):   # the display after (5): pi_ref e^{E_{o' ~ pi'} P(o > o') / beta} / Z_q
    name(NOTATION, _br[_k], rf"\frac{{1}}{{Z_q}} \pi_{{\mathrm{{ref}}}}{_o(_k + 1)} "
                            rf"e^{{\frac{{1}}{{\beta}} \mathbb{{E}}_{{o' \sim \pi'}}[\mathcal{{P}}(o_{_k + 1} \succ o' \mid q)]}}")
CLAIMS.append(Maximiser(
    id="nlhf-best-response-gibbs-3", narrowed=THREE_OUTPUTS,
    title="The best response to a fixed opponent in the NLHF game is the Gibbs distribution "
          "of the expected pairwise preferences (three outputs)",
    ref=Ref("1.1", eq="5", note="display after (5)"),
    objective=J_nlhf,
    wrt=(pi1, pi2),
    at={pi1: _br[0], pi2: _br[1]},
    over={pi1: UNIT, pi2: UNIT},
    over_where=PI_WHERE,
    scope="global",
    domain={**NLHF_DOMAIN, **Q_DOMAIN},
    where=REF_WHERE + Q_WHERE,
    uses=("nlhf-payoff-decomposition-3", "rlhf-gibbs-gap-3", "kl-nonnegative-3"),
    note="Opponent pi' = (q1, q2, 1 - q1 - q2) arbitrary and fixed; the claimed point is "
         "pi_ref(o) e^{p(o)/beta}/Z with p(o) = E_{o'~pi'}[P(o > o')].  The response is "
         "unique since the gap is beta KL(pi || response) > 0 for pi != response.",
))

# Symmetric equilibrium.  Differentiate J(pi, pi') in pi (pi with three free coordinates,
# pi' = (q1, q2, q3) held fixed), then set pi' = pi (frozen) and put pi on the simplex.
_pi_free_opp = (q1, q2, q3)
_J_free = nlhf_payoff(_pi_free, _pi_free_opp, P, ref, beta)
_on_simplex = {pi3: 1 - pi1 - pi2}


def _grad_symmetric(k):
    d = sp.diff(_J_free, _pi_free[k])
    return d.subs({q1: pi1, q2: pi2, q3: pi3}).subs(_on_simplex)


_sc_self = expected_preference(P, pi)
_fix = gibbs(ref, _sc_self, beta)
for _k in range(3):   # the fixed-point map F(pi_theta) of the display after (5)
    name(NOTATION, _fix[_k], rf"\frac{{1}}{{Z_q}} \pi_{{\mathrm{{ref}}}}{_o(_k + 1)} "
                             rf"e^{{\frac{{1}}{{\beta}} \mathbb{{E}}_{{o' \sim \pi_\theta}}[\mathcal{{P}}(o_{_k + 1} \succ o' \mid q)]}}")
CLAIMS.append(Identity(
    id="nlhf-symmetric-stationarity-fixed-point-3", narrowed=THREE_OUTPUTS,
    title="In the symmetric NLHF game the first-order condition compares each probability "
          "with its Gibbs fixed-point value (three outputs)",
    ref=Ref("1.1", eq="5", note="display after (5)"),
    lhs=_grad_symmetric(0) - _grad_symmetric(1),
    rhs=beta * sp.log((_fix[0] / pi[0]) / (_fix[1] / pi[1])),
    display=r"\left.\left(\frac{\partial}{\partial \pi_\theta(o_1 \mid q)} - \frac{\partial}{\partial "
            r"\pi_\theta(o_2 \mid q)}\right) \mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, \pi')\right|_{\pi' = \pi_\theta} "
            r"= \beta \log \frac{F(\pi_\theta)(o_1) / \pi_\theta(o_1 \mid q)}{F(\pi_\theta)(o_2) / \pi_\theta(o_2 \mid q)}, "
            r"\quad F(\pi_\theta)(o) = \frac{1}{Z_q} \pi_{\mathrm{ref}}(o \mid q) "
            r"e^{\frac{1}{\beta} \mathbb{E}_{o' \sim \pi_\theta}[\mathcal{P}(o \succ o' \mid q)]}",
    domain={**NLHF_DOMAIN, **PI_DOMAIN},
    where=REF_WHERE + PI_WHERE,
    uses=("nlhf-best-response-gibbs-3", "nlhf-payoff-decomposition-3"),
    note="d/dpi_o J(pi, pi')|_{pi'=pi} = beta log(F(pi)_o / pi_o) + (beta log Z - beta + "
         "beta KL(pi||pi_ref)), F(pi) = pi_ref e^{E_{o'~pi}P(o > o')/beta}/Z; the bracket does "
         "not depend on o.  Output pair (1, 2) shown, the others by relabelling.  Hence the "
         "interior Lagrange condition (all partials equal) holds iff F(pi)_o / pi_o is the "
         "same for all o, and since both sum to 1, iff pi = F(pi): the fixed-point form "
         "after (5).  A symmetric equilibrium pi is a best response to itself, so it "
         "satisfies this condition (and is interior because the best response is).",
))


def _luce_against(j):
    """Luce's choice distribution with scores P(o > o_j): e^{P(o_i > o_j)} / sum_k e^{P(o_k > o_j)}."""
    return luce([P[i][j] for i in range(3)])


for _j in range(3):   # L_{o'}(o), proportional to e^{P(o > o')}
    for _k in range(3):
        name(NOTATION, _luce_against(_j)[_k], rf"L_{{o_{_j + 1}}}(o_{_k + 1})")


_pooled_nlhf = normalise([ref[i] * sp.Mul(*[_luce_against(j)[i] ** (pi[j] / beta) for j in range(3)])
                          for i in range(3)])
CLAIMS.append(Identity(
    id="nlhf-fixed-point-logarithmic-pooling-3", narrowed=THREE_OUTPUTS,
    title="The NLHF fixed-point map is a logarithmic pooling whose weights depend on the "
          "policy (three outputs)",
    ref=Ref("1.1", eq="5", note="remark after the display after (5)"),
    lhs=_pooled_nlhf[0],
    rhs=_fix[0],
    display=r"\frac{\pi_{\mathrm{ref}}(o_1 \mid q) \prod_{o'} L_{o'}(o_1)^{\pi_\theta(o' \mid q)/\beta}}"
            r"{\sum_{o} \pi_{\mathrm{ref}}(o \mid q) \prod_{o'} L_{o'}(o)^{\pi_\theta(o' \mid q)/\beta}} "
            r"= \frac{1}{Z_q} \pi_{\mathrm{ref}}(o_1 \mid q) e^{\frac{1}{\beta} \mathbb{E}_{o' \sim \pi_\theta}"
            r"[\mathcal{P}(o_1 \succ o' \mid q)]}, \quad L_{o'}(o) = \frac{e^{\mathcal{P}(o \succ o' \mid q)}}"
            r"{\sum_{o''} e^{\mathcal{P}(o'' \succ o' \mid q)}}",
    domain={**NLHF_DOMAIN, **PI_DOMAIN},
    where=REF_WHERE + PI_WHERE,
    uses=("rlhf-logarithmic-pooling-3",),
    note="Reading of the remark: pi_ref(o) e^{E_{o'~pi}P(o > o')/beta} is, up to "
         "normalisation, the geometric average of pi_ref (weight 1) and of the Luce "
         "distributions L_{o'}(o) proportional to e^{P(o > o')}, one per opponent output o', "
         "with weights pi(o')/beta: these are the pi-dependent weights.  Output 1 shown.",
))

# Conversely: parametrise the equilibrium x = (x1, x2, 1 - x1 - x2) and choose pi_ref so that
# x is a fixed point of F (pi_ref(o) proportional to x_o e^{-E_{o'~x} P(o > o')/beta}); every
# interior pi_ref arises this way because the game has an (interior) equilibrium for each one.
x = simplex3(x1, x2)
_sc_x = expected_preference(P, x)
_ref_x = normalise([x[i] * sp.exp(-_sc_x[i] / beta) for i in range(3)])
X_DOMAIN = {beta: POS, x1: UNIT, x2: UNIT, **P_DOMAIN}
X_WHERE = (x1 + x2 < 1,)
# pi_ref written through the fixed point x it produces; the payoff (5) with that pi_ref
name(NOTATION, nlhf_payoff(_pi_free, _pi_free_opp, P, _ref_x, beta), r"\mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, \pi')")
name(NOTATION, nlhf_payoff(pi, (q1, q2, 1 - q1 - q2), P, _ref_x, beta),
     r"\mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, \pi')")
_REF_X = (r"\quad \pi_{\mathrm{ref}}(o \mid q) = \frac{1}{Z} x(o)\, "
          r"e^{-\frac{1}{\beta} \mathbb{E}_{o' \sim x}[\mathcal{P}(o \succ o' \mid q)]}")
CLAIMS.append(Stationary(
    id="nlhf-fixed-point-stationary-3", narrowed=THREE_OUTPUTS,
    title="A Gibbs fixed point satisfies the first-order condition of the symmetric NLHF "
          "game (three outputs)",
    ref=Ref("1.1", eq="5", note="display after (5)"),
    objective=nlhf_payoff(_pi_free, _pi_free_opp, P, _ref_x, beta),
    wrt=_pi_free,
    at={pi1: x1, pi2: x2, pi3: 1 - x1 - x2},
    frozen={q1: pi1, q2: pi2, q3: pi3},
    simplex=True,
    domain=X_DOMAIN,
    where=X_WHERE,
    display=r"\left.\nabla_{\pi_\theta} \mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, \pi')\right|_{\pi' = \pi_\theta = x} "
            r"\text{ has equal components}, \quad x = (x_1, x_2, 1 - x_1 - x_2)," + _REF_X,
    uses=("nlhf-symmetric-stationarity-fixed-point-3",),
    note="pi_ref is written through the fixed point x it produces (x = F(x) by construction), "
         "which loses no generality.  Differentiate in pi with pi' frozen, then set pi' = pi "
         "= x: all partial derivatives agree.",
))
CLAIMS.append(Maximiser(
    id="nlhf-fixed-point-best-responds-to-itself-3", narrowed=THREE_OUTPUTS,
    title="A Gibbs fixed point is a best response to itself, hence a symmetric equilibrium "
          "of the NLHF game (three outputs)",
    ref=Ref("1.1", eq="5", note="display after (5)"),
    objective=nlhf_payoff(pi, (q1, q2, 1 - q1 - q2), P, _ref_x, beta),
    wrt=(pi1, pi2),
    at={pi1: x1, pi2: x2},
    over={pi1: UNIT, pi2: UNIT},
    over_where=PI_WHERE,
    frozen={q1: x1, q2: x2},
    scope="global",
    domain=X_DOMAIN,
    where=X_WHERE,
    display=r"x = (x_1, x_2, 1 - x_1 - x_2) \text{ globally maximises } \pi_\theta \mapsto "
            r"\mathcal{J}_{\mathrm{NLHF}}(\pi_\theta, x)," + _REF_X,
    uses=("nlhf-best-response-gibbs-3", "nlhf-constant-sum-3"),
    note="With the opponent frozen at x, x maximises J(., x) globally, so neither player can "
         "gain by deviating (the game is symmetric and constant-sum): (x, x) is a symmetric "
         "Nash equilibrium.  Together with nlhf-symmetric-stationarity-fixed-point-3 this "
         "gives: interior symmetric equilibria are exactly the fixed points after (5).",
))

# ---------------------------------------------------------------- NLHF: uniqueness of the equilibrium
# "The NLHF two-player zero-sum game has a unique Nash equilibrium" (after (5)).  Shown here by
# sound methods for two and three outputs:
#  * two outputs: E_{o'~pi}[P(a > o')] - E_{o'~pi}[P(b > o')] = P(a > b) - 1/2 does not depend on pi, so
#    the fixed-point map F of the display after (5) is constant and its residual pi(a) - F(pi)(a) is
#    strictly increasing: exactly one fixed point, in closed form;
#  * three outputs: J(pi, pi') is strictly concave in pi and strictly convex in pi' (Hessians of the KL
#    terms on the simplex; the preference term is bilinear), and the fixed-point residual
#    R(y) = log y - log F(y) is strictly monotone: (y - x).(R(y) - R(x)) = KL(x || y) + KL(y || x) for
#    every x, y, because (y - x)^T P (y - x) = 0 when P(o > o') + P(o' > o) = 1.  Two fixed points x, y
#    make the left side 0, hence KL(x || y) + KL(y || x) = 0 and x = y.
ya = NOTATION.symbol("y_a", r"\pi(a \mid q)")
rho = NOTATION.symbol("ref_a", r"\pi_{\mathrm{ref}}(a \mid q)")
Pab = NOTATION.symbol("P_ab", r"\mathcal{P}(a \succ b \mid q)")
_P2 = ((sp.Rational(1, 2), Pab), (1 - Pab, sp.Rational(1, 2)))
_Y2 = (ya, 1 - ya)
_F2 = gibbs((rho, 1 - rho), expected_preference(_P2, _Y2), beta)
name(NOTATION, _F2[0], r"F(\pi)(a)")
_F2_TEX = (r"F(\pi)(a) = \frac{\pi_{\mathrm{ref}}(a \mid q)\, e^{\frac{1}{\beta} \mathbb{E}_{o' \sim \pi}[\mathcal{P}(a \succ o' \mid q)]}}"
           r"{\sum_{o \in \{a, b\}} \pi_{\mathrm{ref}}(o \mid q)\, e^{\frac{1}{\beta} \mathbb{E}_{o' \sim \pi}[\mathcal{P}(o \succ o' \mid q)]}}")
TWO_NLHF_DOMAIN = {beta: POS, rho: UNIT, Pab: CLOSED_UNIT}
CLAIMS.append(Monotonic(
    id="nlhf-two-outputs-fixed-point-residual-increasing",
    title=r"NLHF, two outputs: the residual $\pi(a \mid q) - F(\pi)(a)$ of the fixed-point equation after (5) is "
          r"strictly increasing in $\pi(a \mid q)$",
    ref=Ref("1.1", eq="5", note="'has a unique Nash equilibrium'; the fixed-point display after (5)"),
    expr=ya - _F2[0], var=ya, direction="increasing",
    display=r"\pi(a \mid q) - F(\pi)(a) \text{ is strictly increasing in } \pi(a \mid q) \in [0, 1], \quad " + _F2_TEX,
    domain={ya: CLOSED_UNIT, **TWO_NLHF_DOMAIN},
    uses=("nlhf-symmetric-stationarity-fixed-point-3",),
    note="E_{o'~pi}[P(a > o')] = pi(a)/2 + pi(b) P(a > b) and E_{o'~pi}[P(b > o')] = pi(a)(1 - P(a > b)) + pi(b)/2 "
         "differ by P(a > b) - 1/2 whatever pi is, so F(pi)(a) does not depend on pi and the residual has "
         "derivative 1.",
))
_F2_STAR = rho * sp.exp((2 * Pab - 1) / (2 * beta)) / (rho * sp.exp((2 * Pab - 1) / (2 * beta)) + 1 - rho)
CLAIMS.append(Identity(
    id="nlhf-two-outputs-unique-equilibrium",
    title=r"NLHF, two outputs: the fixed-point map after (5) is the constant $\pi_{\mathrm{ref}}(a \mid q) e^{(2 "
          r"\mathcal{P}(a \succ b) - 1)/(2 \beta)} / Z_q$, so the symmetric equilibrium is unique and has this value",
    ref=Ref("1.1", eq="5", note="'has a unique Nash equilibrium'; the fixed-point display after (5)"),
    lhs=_F2[0], rhs=_F2_STAR,
    display=_F2_TEX + r" = \frac{\pi_{\mathrm{ref}}(a \mid q)\, e^{(2 \mathcal{P}(a \succ b \mid q) - 1)/(2 \beta)}}"
            r"{\pi_{\mathrm{ref}}(a \mid q)\, e^{(2 \mathcal{P}(a \succ b \mid q) - 1)/(2 \beta)} + 1 - \pi_{\mathrm{ref}}(a \mid q)}"
            r" \quad \text{for every } \pi(a \mid q) \in [0, 1]",
    domain={ya: CLOSED_UNIT, **TWO_NLHF_DOMAIN},
    uses=("nlhf-two-outputs-fixed-point-residual-increasing", "nlhf-fixed-point-best-responds-to-itself-3",
          "nlhf-symmetric-stationarity-fixed-point-3"),
    note="The interior symmetric equilibria are exactly the fixed points pi = F(pi) (nlhf-symmetric-stationarity-fixed-"
         "point-3, nlhf-fixed-point-best-responds-to-itself-3, whose arguments do not depend on the number of "
         "outputs).  With two outputs F does not depend on pi (the score difference is P(a > b) - 1/2), so "
         "pi(a) = F(pi)(a) has exactly one solution, this constant: the Gibbs form of the direct-KL closed form "
         "of Section 3 with gamma = 2 P(a > b) - 1 and 2 beta for beta.",
))

# three outputs: Hessians of J(pi, pi') in the free coordinates (pi_1, pi_2), pi_3 = 1 - pi_1 - pi_2
_JH = nlhf_payoff(pi, opp, P, ref, beta)
_H_PI = sp.hessian(_JH, (pi1, pi2))
_H_OPP = sp.hessian(_JH, (q1, q2))
_HESS_DOMAIN = {**NLHF_DOMAIN, **PI_DOMAIN, **Q_DOMAIN}
_HESS_WHERE = REF_WHERE + PI_WHERE + Q_WHERE
_HESS_NOTE = ("Coordinates (pi_1, pi_2) with pi_3 = 1 - pi_1 - pi_2 (resp. pi' likewise).  The preference term "
              "E_{o~pi, o'~pi'}[P(o > o')] is bilinear in (pi, pi'), so it does not contribute; the Hessian is that "
              "of -beta sum_o pi(o) log pi(o) (resp. +beta sum_o pi'(o) log pi'(o)): -beta [[1/pi_1 + 1/pi_3, "
              "1/pi_3], [1/pi_3, 1/pi_2 + 1/pi_3]].  A negative (1, 1) entry and a positive determinant make the "
              "2 x 2 Hessian negative definite, i.e. J strictly concave in pi on the open simplex.  ")
for _who, _H, _sign, _sym in (("policy", _H_PI, "<", r"\pi"), ("opponent", _H_OPP, ">", r"\pi'")):
    _var1 = (pi1 if _who == "policy" else q1)
    _shape = "concave" if _who == "policy" else "convex"
    CLAIMS.append(Inequality(
        id=f"nlhf-payoff-strictly-{_shape}-in-{_who}-leading-minor-3",
        title=rf"NLHF, three outputs: $\partial^2 \mathcal{{J}}_{{\mathrm{{NLHF}}}}(\pi, \pi')/\partial {_sym}(o_1 \mid q)^2 "
              rf"{_sign} 0$ on the simplex (first leading minor of the Hessian in ${_sym}$)",
        ref=Ref("1.1", eq="5", note="'has a unique Nash equilibrium'"),
        lhs=name(NOTATION, _H[0, 0], rf"\frac{{\partial^2 \mathcal{{J}}_{{\mathrm{{NLHF}}}}(\pi, \pi')}}{{\partial {_sym}(o_1 \mid q)^2}}"),
        op=_sign, rhs=sp.Integer(0),
        domain=_HESS_DOMAIN, where=_HESS_WHERE,
        note=_HESS_NOTE,
    ))
    CLAIMS.append(Inequality(
        id=f"nlhf-payoff-strictly-{_shape}-in-{_who}-determinant-3",
        title=rf"NLHF, three outputs: the Hessian of $\mathcal{{J}}_{{\mathrm{{NLHF}}}}(\pi, \pi')$ in ${_sym}$ has a "
              rf"positive determinant on the simplex, so $\mathcal{{J}}_{{\mathrm{{NLHF}}}}$ is strictly {_shape} in ${_sym}$",
        ref=Ref("1.1", eq="5", note="'has a unique Nash equilibrium'"),
        lhs=name(NOTATION, _H.det(), rf"\det \nabla^2_{{{_sym}}} \mathcal{{J}}_{{\mathrm{{NLHF}}}}(\pi, \pi')"),
        op=">", rhs=sp.Integer(0),
        domain=_HESS_DOMAIN, where=_HESS_WHERE,
        uses=(f"nlhf-payoff-strictly-{_shape}-in-{_who}-leading-minor-3",),
        note=_HESS_NOTE + "Determinant beta^2 (1/(pi_1 pi_2) + 1/(pi_1 pi_3) + 1/(pi_2 pi_3)) > 0.",
    ))

# the fixed-point residual R(y) = log y - log F(y) is strictly monotone
y1, y2 = (NOTATION.symbol(f"y{k}", f"y_{k}") for k in (1, 2))
_yv = simplex3(y1, y2)
_xv = simplex3(x1, x2)
_Fy = gibbs(ref, expected_preference(P, _yv), beta)
_Fx = gibbs(ref, expected_preference(P, _xv), beta)
for _k in range(3):
    name(NOTATION, _Fy[_k], rf"F(y)(o_{_k + 1})")
    name(NOTATION, _Fx[_k], rf"F(x)(o_{_k + 1})")
name(NOTATION, kl(_xv, _yv), r"\mathrm{KL}(x \,\|\, y)")
name(NOTATION, kl(_yv, _xv), r"\mathrm{KL}(y \,\|\, x)")
_MONO_LHS = sp.Add(*[(_yv[i] - _xv[i]) * (sp.log(_yv[i] / _Fy[i]) - sp.log(_xv[i] / _Fx[i])) for i in range(3)])
CLAIMS.append(Identity(
    id="nlhf-fixed-point-residual-monotone-3",
    title=r"NLHF, three outputs: the fixed-point residual $R(y) = \log y - \log F(y)$ satisfies $(y - x) \cdot (R(y) - "
          r"R(x)) = \mathrm{KL}(x \| y) + \mathrm{KL}(y \| x)$ for all policies $x, y$",
    ref=Ref("1.1", eq="5", note="'has a unique Nash equilibrium'; the fixed-point display after (5)"),
    lhs=_MONO_LHS, rhs=kl(_xv, _yv) + kl(_yv, _xv),
    display=r"\sum_o (y(o) - x(o)) \Big(\log \frac{y(o)}{F(y)(o)} - \log \frac{x(o)}{F(x)(o)}\Big) = \mathrm{KL}(x \,\|\, y) "
            r"+ \mathrm{KL}(y \,\|\, x), \quad F(y)(o) = \frac{1}{Z_q} \pi_{\mathrm{ref}}(o \mid q) "
            r"e^{\frac{1}{\beta} \mathbb{E}_{o' \sim y}[\mathcal{P}(o \succ o' \mid q)]}",
    domain={beta: POS, **REF_DOMAIN, **P_DOMAIN, x1: UNIT, x2: UNIT, y1: UNIT, y2: UNIT},
    where=REF_WHERE + (x1 + x2 < 1, y1 + y2 < 1),
    uses=("nlhf-constant-sum-3",),
    note="log F(y)(o) = log pi_ref(o) + E_{o'~y}[P(o > o')]/beta - log Z(y); the Z terms multiply sum_o (y(o) - x(o)) = 0 "
         "and the preference terms give (y - x)^T P (y - x)/beta = 0, since P + P^T is the all-ones matrix under "
         "antisymmetry.  If x and y are both fixed points (R(x) = R(y) = 0) the left side is 0, so KL(x || y) + "
         "KL(y || x) = 0 and x = y (nlhf-fixed-points-coincide-3).",
))
name(NOTATION, kl(_xv, _yv) + kl(_yv, _xv), r"\mathrm{KL}(x \,\|\, y) + \mathrm{KL}(y \,\|\, x)")
CLAIMS.append(Inequality(
    id="nlhf-fixed-points-coincide-3",
    title=r"NLHF, three outputs: $\mathrm{KL}(x \| y) + \mathrm{KL}(y \| x) > 0$ for distinct policies, so two fixed "
          "points (two symmetric equilibria) coincide",
    ref=Ref("1.1", eq="5", note="'has a unique Nash equilibrium'"),
    lhs=kl(_xv, _yv) + kl(_yv, _xv), op=">", rhs=sp.Integer(0),
    domain={x1: UNIT, x2: UNIT, y1: UNIT, y2: UNIT},
    where=(x1 + x2 < 1, y1 + y2 < 1, (x1 - y1) ** 2 + (x2 - y2) ** 2 > 0),
    uses=("nlhf-fixed-point-residual-monotone-3", "kl-nonnegative-3"),
    note="KL(x || y) + KL(y || x) = sum_o (x(o) - y(o)) log(x(o)/y(o)), a sum of terms >= 0 (log is increasing) "
         "with a positive term wherever x(o) != y(o); equivalently it is the integral over t in [0, 1] of "
         "(y - x)^T H (y - x) at x + t (y - x), H the Hessian of sum_o pi(o) log pi(o), positive definite "
         "(nlhf-payoff-strictly-concave-in-policy-*-3 are -beta H).  With nlhf-fixed-point-residual-monotone-3: "
         "two distinct fixed points would make it 0.  Interior policies: every fixed point is interior (pi_ref > 0 "
         "and the exponential factor is positive).  The sum vanishes to second order along x = y, which the where "
         "relation excludes but which no box search or tangent bound separates from 0: it is certified by that "
         "pairing (each term (A - B)(log A - log B) >= 0, zero only where A = B, and sum (A - B)^2 > 0 by z3).",
))
CLAIMS.append(Summary(
    id="nlhf-unique-nash-equilibrium",
    title="The NLHF game of (5) has a unique (symmetric) Nash equilibrium",
    ref=Ref("1.1", eq="5", note="'The NLHF two-player zero-sum game has a unique Nash equilibrium'"),
    uses=("nlhf-two-outputs-unique-equilibrium", "nlhf-payoff-strictly-concave-in-policy-leading-minor-3",
          "nlhf-payoff-strictly-concave-in-policy-determinant-3", "nlhf-payoff-strictly-convex-in-opponent-leading-minor-3",
          "nlhf-payoff-strictly-convex-in-opponent-determinant-3", "nlhf-fixed-point-residual-monotone-3",
          "nlhf-fixed-points-coincide-3", "nlhf-fixed-point-best-responds-to-itself-3",
          "nlhf-symmetric-stationarity-fixed-point-3"),
    note="Checked for two and three outputs.  Symmetric equilibria = fixed points of F (the existing nlhf-* claims); "
         "two outputs: exactly one fixed point, in closed form; three outputs: two fixed points coincide (strictly "
         "monotone residual).  Every Nash equilibrium is symmetric and the same: J is strictly concave in pi and "
         "strictly convex in pi', so each player's best response is unique; the game is constant-sum and symmetric, "
         "so if (x, y) is an equilibrium so is (y, x), and by the interchangeability of saddle points of zero-sum "
         "games (x, x) is one too, whence x = y.  Existence for three outputs: F is continuous on the simplex "
         "(Brouwer), or Munos et al. (2024).  The interchangeability step is a standard theorem, not checked here.",
))
UNCHECKABLE = [
    {"id": "nlhf-mirror-descent-convergence",
     "ref": Ref("1.1", eq="5", note="'which is also the limit point of a mirror-descent iterative computation "
                                    "algorithm'"),
     "statement": "The NLHF equilibrium is the limit point of a mirror-descent iterative algorithm.",
     "reason": "A cited convergence theorem about an algorithm's iterates (Nash-MD), not a formula: source R. Munos "
               "et al., 'Nash learning from human feedback', Proceedings of the 41st International Conference on "
               "Machine Learning (ICML 2024), PMLR 235:36743-36768, https://proceedings.mlr.press/v235/munos24a.html.  "
               "The equilibrium it converges to is characterised and shown unique by nlhf-unique-nash-equilibrium."},
]
