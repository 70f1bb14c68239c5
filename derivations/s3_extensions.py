"""Section 3 (Extensions) and Appendix B.2 (using the direct KL divergence penalty).

Setting and notation (per context q, which is dropped): pi = pi_theta(.|q) is the policy
being optimised, old = pi_theta_old(.|q) the sampling policy, ref = pi_ref(.|q), beta > 0
the regularisation constant.  Finite instances: three outputs a, b, c whose probabilities
are plain symbols (the last one is 1 minus the others where a policy must be normalised),
groups of G = 2, 3 (and 4 for shift-only normalisation).  Expectations are exact finite
sums over groups (no sampling).

Covered:

* Direct KL penalty (Section 3): the importance-weighted penalty D_i makes D(theta | q) of
  Eq. (7) equal to KL(pi || ref) (G = 2, 3; a derivation chain), with the gradient
  log(pi/ref).  The resulting aggregation pi(o) = e^{P_G(o | pi)/beta} ref(o) / Z_q: every
  interior policy of this form is a stationary policy AND the global maximiser of its own
  objective E_pi[P_G(o | pi_old)] - beta KL(pi || ref) with pi_old frozen at it (G = 2 with
  general pairwise margins; G = 3 with stochastic two-level rewards), the best response to
  any frozen pi_old is this Gibbs form and unique (gap identity), and for G = 2 the form is
  NLHF's with beta/2.  Binary questions, G = 2: the closed form with the paper's Z_q is the
  maximiser (claim direct-kl-g2-closed-form), it is a fixed point of the general form, and
  it is continuous at pi_ref(a) = 0 (Figure 3 caption).
* Appendix B.2, groups of two: the objective from stochastic rewards, the derivative
  (the paper's display has misplaced parentheses: a finding), the unique root.
* Appendix B.2, large groups: objective and derivative, gamma~ (the paper writes
  sign(r(a|b) > r(b|q)): a finding), the on-policy derivative beta h(x), the point x*,
  the monotone pieces of h, its one-sided limits (the paper writes x up-arrow 0 and
  x down-arrow 1, i.e. approaching from outside (0, 1): a finding), and the regimes in
  beta: h(x*) in closed form, decreasing in beta from +oo to -oo; below the threshold no
  interior stationary policy and pi(a) = 1 optimal, at it one degenerate stationary point,
  above it two interior stationary policies, each the maximiser of its own objective.
  "The objective" of the Section 3 sentence is read in both ways the paper allows (see
  the notes): the fixed-point reading (argmax of J(. | pi_old) with pi_old = the point)
  and the potential Phi(x) = arcsin(2x - 1) - beta KL(x || ref), whose derivative is
  the on-policy derivative beta h(x).  Read as worded ("two values ... that maximise the
  objective function": one function with two maximisers) the sentence fails in both readings
  (direct-kl-large-g-two-maximisers-literal-*): Phi's two local maxima have different heights,
  and with pi_old held fixed the objective is strictly concave.
* Shift-only normalisation: with A_i = r_i - mean, E_pi[P_G(o | pi_old)] =
  (1 - 1/G)(E_pi r - E_old r) for G = 2, 3, 4 with stochastic rewards (and Eq. (6) from
  the definition of R_G), its large-G limit, the stationarity condition with the GRPO
  penalty, and, combined with the direct KL penalty, the RLHF Gibbs policy with
  beta G/(G - 1).
"""

import sympy as sp

from verify_claims import (Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Narrowed, Notation, Ref,
                           Root, Stationary, Step, refuted)
from verify_claims.expectations import Categorical

from _notation import E_P_G, P_G, R_G, name

from _s2_helpers import expected_group_relative_preference, expected_preference_under, kl, kl0
from _s3_helpers import (adv_shift, closed_form_g2,  # noqa: F401 - adv_shift: re-exported for the tests
                         expected_pref_shift, gibbs, h_fn, h_min,
                         kl_bern, logit, penalty_direct_def, penalty_term_direct,
                         potential_large_g, reference_making_stationary, reward_pref_shift_def,
                         win_prob, x_star, z_q)

R = sp.Symbol
UNIT = sp.Interval(0, 1)
OPEN_UNIT = sp.Interval.open(0, 1)
POS = sp.Interval.open(0, sp.oo)
REAL = sp.Interval(-sp.oo, sp.oo)
SIGNED_UNIT = sp.Interval(-1, 1)
OUT = ("a", "b", "c")

# the paper's notation (Section 3, Appendix B.2); a symbol name means one thing in the module
NOTATION = Notation()
beta = NOTATION.symbol("beta", r"\beta")
gamma = NOTATION.symbol("gamma", r"\gamma_{a,b}")   # gamma~_{a,b} in b2-large-g-derivative (see its display)
p1, p2, p3 = (NOTATION.symbol(f"pi_{o}", rf"\pi_\theta({o} \mid q)") for o in OUT)
f1, f2 = (NOTATION.symbol(f"ref_{o}", rf"\pi_{{\mathrm{{ref}}}}({o} \mid q)") for o in "ab")
NOTATION.display("ref_c", r"\pi_{\mathrm{ref}}(c \mid q)")
o1, o2, o3 = (NOTATION.symbol(f"old_{o}", rf"\pi_{{\theta_{{\mathrm{{old}}}}}}({o} \mid q)") for o in OUT)
x1, x2 = R("x_a"), R("x_b")                       # a fixed point (stationary policy)

PI_N = dict(zip(OUT, (p1, p2, 1 - p1 - p2)))
REF_N = dict(zip(OUT, (f1, f2, 1 - f1 - f2)))
OLD_N = dict(zip(OUT, (o1, o2, 1 - o1 - o2)))
OLD_LAW = Categorical(OUT, [OLD_N[o] for o in OUT])
PI_FREE = dict(zip(OUT, (p1, p2, p3)))
OLD_FREE = dict(zip(OUT, (o1, o2, o3)))
X = dict(zip(OUT, (x1, x2, 1 - x1 - x2)))

NORM_DOMAIN = {p1: OPEN_UNIT, p2: OPEN_UNIT, f1: OPEN_UNIT, f2: OPEN_UNIT, o1: OPEN_UNIT, o2: OPEN_UNIT}
NORM_WHERE = (p1 + p2 < 1, f1 + f2 < 1, o1 + o2 < 1)
X_DOMAIN = {x1: OPEN_UNIT, x2: OPEN_UNIT}
X_WHERE = (x1 + x2 < 1,)
# the open simplex: every claimed point is interior and the objectives extend continuously
# to the boundary (0 log 0 = 0), so comparing against interior rivals loses nothing
PI_OVER = {p1: OPEN_UNIT, p2: OPEN_UNIT}
PI_OVER_WHERE = (p1 + p2 < 1,)
ON_POLICY = {o1: p1, o2: p2, o3: p3}

CLAIMS = []

# Section 3's variants are stated for any set of outputs, every group size and any rewards;
# the claims below that need the objective take finite instances of them
_THREE_WHY = "a distribution over a symbolic number of outputs is not a finite set of symbols with a domain"
_FINITE_WHY = ("the exact expectations are finite sums only for a fixed group size, finitely many outputs and "
               "reward levels; symbolic G is not supported by them")


def _instance(verified, paper="any set of outputs, every group size $G \\ge 2$, any rewards (Section 3)",
              reason=_FINITE_WHY):
    return Narrowed(paper=paper, verified=verified, reason=reason)


def _fixed_g(G, rewards=""):
    return _instance(f"$G = {G}$, three outputs" + (f", {rewards}" if rewards else ""))


THREE_OUTPUTS = _instance("three outputs", paper="any set of outputs (Section 3)", reason=_THREE_WHY)
# B.2 builds on Eq. (18), whose sigma holds for deterministic rewards only (Appendix B.1 claims)
DETERMINISTIC = Narrowed(
    paper=r"a binary question with expected rewards $r(a \mid q) \ne r(b \mid q)$, stochastic rewards included "
          "(Appendix B.2, reward part from Eq. (18))",
    verified="deterministic rewards",
    reason="with stochastic rewards sigma is the total reward std and Eq. (18) fails: "
           "b1-large-g-sigma-squared-stochastic-rewards is refuted")
THREE_LEVELS = Narrowed(
    paper="a binary question with any stochastic rewards of the two answers (Appendix B.2, groups of two)",
    verified="reward laws on three shared levels per answer",
    reason="the exact expectations are finite sums over finitely many reward levels")

# ============================================================================ direct KL penalty
_KL = r"\mathrm{KL}(\pi_\theta \,\|\, \pi_{\mathrm{ref}})"
_KL0 = r"\mathrm{KL}_0(\pi_\theta \,\|\, \pi_{\mathrm{ref}}; \pi_{\theta_{\mathrm{old}}})"
_OLD = r"\pi_{\theta_{\mathrm{old}}}"
_D = r"\mathcal{D}(\theta \mid q)"
name(NOTATION, kl(PI_N, REF_N), _KL)
for G in (2, 3):
    name(NOTATION, penalty_direct_def(PI_N, REF_N, OLD_LAW, G), _D)
for G in (2, 3):
    CLAIMS.append(Identity(
        id=f"direct-kl-penalty-equals-kl-g{G}",
        narrowed=_fixed_g(G),
        title=f"$G = {G}$: with the importance-weighted penalty terms, the expected penalty is "
              r"$\mathrm{KL}(\pi_\theta \| \pi_{\mathrm{ref}})$",
        ref=Ref("3", eq="7", note="direct KL penalty: D_i display and D(theta|q) = KL(pi||ref)"),
        lhs=penalty_direct_def(PI_N, REF_N, OLD_LAW, G),
        rhs=kl(PI_N, REF_N),
        domain=NORM_DOMAIN, where=NORM_WHERE,
        uses=("penalty-d-equals-kl0-g2",) if G == 2 else ("penalty-d-equals-kl0-g3",),
        note="D(theta | q) = E_{o_i i.i.d. pi_old}[(1/G) sum_i (pi/pi_old)(ref/pi - log(ref/pi) - 1)] "
             "as an exact sum over groups of three outputs, for ANY sampling policy pi_old with full "
             "support (pi_old is a free point of the open simplex, not pi): the importance weight "
             "removes the dependence on pi_old.  Needs pi and ref normalised (E_pi[ref/pi] = 1).",
    ))

_single = sp.Add(*[OLD_N[o] * penalty_term_direct(PI_N[o], OLD_N[o], REF_N[o]) for o in OUT])
CLAIMS.append(Chain(
    id="direct-kl-penalty-derivation",
    narrowed=_fixed_g(2),
    title="Why the importance-weighted penalty is the direct KL divergence, line by line ($G = "
          "2$)",
    ref=Ref("3", eq="7", note="direct KL penalty, importance sampling trick"),
    steps=[
        Step(penalty_direct_def(PI_N, REF_N, OLD_LAW, 2), because="definition (7) with the new D_i, G = 2"),
        Step(_single, because="linearity: each of the G i.i.d. terms has the same expectation"),
        Step(sp.Add(*[REF_N[o] - PI_N[o] * sp.log(REF_N[o] / PI_N[o]) - PI_N[o] for o in OUT]),
             because="pi_old(o) cancels against the importance weight pi(o)/pi_old(o)"),
        Step(1 - sp.Add(*[PI_N[o] * sp.log(REF_N[o] / PI_N[o]) for o in OUT]) - 1,
             because="pi_ref and pi each sum to one"),
        Step(kl(PI_N, REF_N), because="-log(ref/pi) = log(pi/ref): KL(pi || ref)"),
    ],
    domain=NORM_DOMAIN, where=NORM_WHERE,
    uses=("direct-kl-penalty-equals-kl-g2",),
    display=_D + r" \\ &= \sum_o \pi_{\theta_{\mathrm{old}}}(o \mid q) \frac{\pi_\theta(o \mid q)}{\pi_{\theta_{\mathrm{old}}}"
    r"(o \mid q)} \left(\frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} - \log \frac{\pi_{\mathrm{ref}}(o \mid q)}"
    r"{\pi_\theta(o \mid q)} - 1\right) \\ &= \sum_o \left(\pi_{\mathrm{ref}}(o \mid q) - \pi_\theta(o \mid q) \log "
    r"\frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} - \pi_\theta(o \mid q)\right) \\ &= 1 - \sum_o "
    r"\pi_\theta(o \mid q) \log \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} - 1 \\ &= " + _KL,
))

_D_FREE = name(NOTATION, penalty_direct_def(PI_FREE, dict(zip(OUT, (f1, f2, R("ref_c")))), OLD_LAW, 2), _D)
CLAIMS.append(Identity(
    id="direct-kl-penalty-gradient",
    narrowed=THREE_OUTPUTS,
    title=r"The importance-weighted penalty has gradient $\log(\pi_\theta(o \mid "
          r"q)/\pi_{\mathrm{ref}}(o \mid q))$: the KL gradient (9) minus 1",
    ref=Ref("3", note="direct KL penalty; compare Eq. (9)"),
    lhs=sp.diff(_D_FREE, p1),
    rhs=sp.log(p1 / f1),
    display=r"\frac{\partial}{\partial \pi_\theta(a \mid q)} " + _D
    + r" = \log \frac{\pi_\theta(a \mid q)}{\pi_{\mathrm{ref}}(a \mid q)}",
    domain={p1: POS, p2: POS, p3: POS, f1: POS, f2: POS, R("ref_c"): POS, o1: OPEN_UNIT, o2: OPEN_UNIT},
    where=(o1 + o2 < 1,),
    uses=("direct-kl-penalty-equals-kl-g2", "kl-gradient-eq9"),
    note="pi(o) are free positive coordinates (as in Section 2.2), pi_old any sampling law; "
         "d/dpi(a) D = log(pi(a)/ref(a)) = Eq. (9) - 1, whatever pi_old: the additive constant is "
         "non-essential on the simplex, so the stationary policies are those of KL(pi || ref), not "
         "of the reverse KL as with the GRPO penalty.",
))

# ============================================================================ exp-form aggregation
# G = 2: P_2(o | y) = sum_o' y(o') M(o, o') with an antisymmetric margin matrix
# M(o, o') = P(o > o') - P(o' > o) in [-1, 1] (p2-is-win-minus-loss-probability): the general
# form for stochastic rewards and three outputs.
m_ab, m_ac, m_bc = (NOTATION.symbol(f"m_{u}{v}", f"M({u}, {v})") for u, v in ("ab", "ac", "bc"))
_M = {("a", "b"): m_ab, ("a", "c"): m_ac, ("b", "c"): m_bc}
for (_u, _v), _m in list(_M.items()):
    _M[_v, _u] = -_m
for _u in OUT:
    _M[_u, _u] = sp.S.Zero
M_DOMAIN = {m_ab: SIGNED_UNIT, m_ac: SIGNED_UNIT, m_bc: SIGNED_UNIT}


def p2_scores(y: dict):
    """P_2(o | y) for every output o: E_{o' ~ y}[P(o > o') - P(o' > o)]."""
    return {o: sp.Add(*[y[o2] * _M[o, o2] for o2 in OUT]) for o in OUT}


# G = 3: stochastic rewards on two levels (0 and 1; A_i is shift and scale invariant):
# output o has the high reward with probability t_o.
ta, tb, tc = R("t_a"), R("t_b"), R("t_c")
_T = {"a": ta, "b": tb, "c": tc}
T_DOMAIN = {ta: UNIT, tb: UNIT, tc: UNIT}


def _kernel2(o):
    return Categorical([0, 1], [1 - _T[o], _T[o]])


def p3_scores(y: dict):
    """P_3(o | y) for every output o, from the definition (stochastic two-level rewards)."""
    law = Categorical(OUT, [y[o] for o in OUT])
    return {o: expected_group_relative_preference(o, law, _kernel2, 3) for o in OUT}


SCORES = {2: (p2_scores, M_DOMAIN, "general pairwise margins M(o,o') = P(o>o') - P(o'>o) in [-1, 1]"),
          3: (p3_scores, T_DOMAIN, "stochastic rewards: output o gets reward 1 w.p. t_o, else 0")}


def _j_text(G, against=_OLD):
    """E_{o ~ pi_theta}[P_G(o | against, q)] - beta KL(pi_theta || pi_ref): the direct-KL objective."""
    return rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{P_G(G, 'o', against)}] - \beta\, " + _KL


def j_direct(pi: dict, y: dict, ref: dict, scores):
    """E_{o ~ pi}[P_G(o | y)] - beta KL(pi || ref): the objective with the direct KL penalty and
    pi_old = y held fixed (Section 2.3 objective with the Section 3 penalty)."""
    u = scores(y)
    return sp.Add(*[pi[o] * u[o] for o in OUT]) - beta * kl(pi, ref)


for G in (2, 3):
    scores, sdom, sdesc = SCORES[G]
    u_x = scores(X)
    ref_x = reference_making_stationary(X, u_x, beta)
    name(NOTATION, j_direct(PI_FREE, OLD_FREE, ref_x, scores), _j_text(G))
    name(NOTATION, j_direct({"a": p1, "b": p2, "c": 1 - p1 - p2}, OLD_FREE, ref_x, scores), _j_text(G))
    _fixed_display = (r"x(o) = \frac{1}{Z_q} e^{" + P_G(G, "o", "x") + r"/\beta} \pi_{\mathrm{ref}}(o \mid q), "
                      r"\quad \pi_{\mathrm{ref}}(o \mid q) = \frac{1}{N} x(o)\, e^{-" + P_G(G, "o", "x") + r"/\beta}")
    fixed_note = (f"Three outputs, G = {G}, {sdesc}.  A fixed point x = (x_a, x_b, 1 - x_a - x_b) of "
                  "pi(o) = e^{P_G(o | pi)/beta} ref(o)/Z is parametrised by x itself: for any interior x "
                  "the reference ref(o) = x(o) e^{-P_G(o | x)/beta}/N is the one making x a fixed point, "
                  "so the claim covers every interior fixed point of every reference policy.")
    CLAIMS.append(Stationary(
        id=f"direct-kl-exp-form-stationary-g{G}",
        narrowed=_fixed_g(G),
        title=f"$G = {G}$: every policy of the form "
              r"$\pi_\theta = e^{\mathcal{P}_G(o \mid \pi_\theta, q)/\beta} \pi_{\mathrm{ref}} / Z_q$ is stationary "
              "(direct KL penalty)",
        ref=Ref("3", note="direct KL penalty: display pi = (1/Z_q) e^{P_G(o|pi,q)/beta} pi_ref"),
        objective=j_direct(PI_FREE, OLD_FREE, ref_x, scores),
        wrt=(p1, p2, p3), at={p1: x1, p2: x2, p3: 1 - x1 - x2}, frozen=ON_POLICY, simplex=True,
        domain={**X_DOMAIN, **sdom, beta: POS}, where=X_WHERE,
        display=r"\nabla_{\pi_\theta} \Big(" + _j_text(G) + r"\Big)\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta = x} "
        r"\text{ has equal components at every } x \text{ with } " + _fixed_display,
        uses=(f"direct-kl-penalty-equals-kl-g{G}",),
        note=fixed_note + "  Differentiate in pi with pi_old fixed, then set pi_old = pi (the paper's "
             "stationarity); on the simplex the Lagrange condition is 'all partials equal'.",
    ))
    CLAIMS.append(Maximiser(
        id=f"direct-kl-exp-form-maximiser-g{G}",
        narrowed=_fixed_g(G),
        title=f"$G = {G}$: a policy of the exp form maximises its own objective "
              r"($\pi_{\theta_{\mathrm{old}}}$ frozen at it) over the whole simplex",
        ref=Ref("3", note="direct KL penalty: the aggregation display; maxima as in Section 2.3"),
        objective=j_direct({"a": p1, "b": p2, "c": 1 - p1 - p2}, OLD_FREE, ref_x, scores),
        wrt=(p1, p2), at={p1: x1, p2: x2},
        over=PI_OVER, over_where=PI_OVER_WHERE,
        frozen={o1: x1, o2: x2, o3: 1 - x1 - x2},
        scope="global",
        domain={**X_DOMAIN, **sdom, beta: POS}, where=X_WHERE,
        display=r"x \text{ globally maximises } " + _j_text(G) + r" \text{ with } \pi_{\theta_{\mathrm{old}}} = x, "
        r"\text{ for every } x \text{ with } " + _fixed_display,
        uses=(f"direct-kl-exp-form-stationary-g{G}",),
        note=fixed_note + "  With pi_old frozen at x, the objective is linear minus beta KL, strictly "
             "concave on the simplex, so the stationary point is its unique global maximiser: the "
             "stationary policies of Section 2.3 are maxima, not only critical points.",
    ))

# best response to an arbitrary frozen pi_old, and uniqueness through the gap identity
q1, q2 = R("y_a"), R("y_b")
Y = dict(zip(OUT, (q1, q2, 1 - q1 - q2)))
Y_DOMAIN = {q1: OPEN_UNIT, q2: OPEN_UNIT}
Y_WHERE = (q1 + q2 < 1,)
REF_DOMAIN = {f1: OPEN_UNIT, f2: OPEN_UNIT}
REF_WHERE = (f1 + f2 < 1,)
# parametrised by the response x: ref(o) = x(o) e^{-P_2(o|y)/beta}/N is the reference whose Gibbs
# response to y is x (every interior ref arises from exactly one x); the claimed point is still
# computed by the Gibbs formula, so it is the formula that is tested
_ref_xy = reference_making_stationary(X, p2_scores(Y), beta)
_br2x = gibbs(_ref_xy, p2_scores(Y), beta)
name(NOTATION, j_direct({"a": p1, "b": p2, "c": 1 - p1 - p2}, Y, _ref_xy, p2_scores), _j_text(2, "y"))
for _o in OUT:   # the Gibbs response pi_ref(o) e^{P_2(o | y)/beta} / Z_q
    name(NOTATION, _br2x[_o], rf"\frac{{1}}{{Z_q}} \pi_{{\mathrm{{ref}}}}({_o} \mid q)\, e^{{{P_G(2, _o, 'y')}/\beta}}")
CLAIMS.append(Maximiser(
    id="direct-kl-best-response-gibbs-g2",
    narrowed=_fixed_g(2),
    title="$G = 2$: for any fixed old policy, the direct-KL objective is maximised by the Gibbs "
          "policy of the expected group-relative preferences",
    ref=Ref("3", note="direct KL penalty: the aggregation display (pi_old held fixed)"),
    objective=j_direct({"a": p1, "b": p2, "c": 1 - p1 - p2}, Y, _ref_xy, p2_scores),
    wrt=(p1, p2), at={p1: _br2x["a"], p2: _br2x["b"]},
    over=PI_OVER, over_where=PI_OVER_WHERE, scope="global",
    domain={**Y_DOMAIN, **X_DOMAIN, **M_DOMAIN, beta: POS}, where=Y_WHERE + X_WHERE,
    note="pi_old = y arbitrary; the maximiser is ref(o) e^{P_2(o | y)/beta}/Z.  The reference policy is "
         "parametrised by the response x it produces (ref = x e^{-P_2(.|y)/beta}/N; a bijection of open "
         "simplices), which keeps the claimed point within working precision of its true value even "
         "when it lies within e^{-2/beta} of the boundary.  A stationary policy is one that is its own "
         "best response, which gives the display's fixed-point form.",
))
_br2 = gibbs(REF_N, p2_scores(Y), beta)
name(NOTATION, kl(PI_N, _br2), r"\mathrm{KL}(\pi_\theta \,\|\, g)")
CLAIMS.append(Identity(
    id="direct-kl-best-response-unique-g2",
    narrowed=_fixed_g(2),
    title=r"$G = 2$: the Gibbs best response beats every other policy by $\beta$ times a KL "
          "divergence (so it is the unique maximiser)",
    ref=Ref("3", note="direct KL penalty: the aggregation display"),
    lhs=j_direct(_br2, Y, REF_N, p2_scores) - j_direct(PI_N, Y, REF_N, p2_scores),
    rhs=beta * kl(PI_N, _br2),
    display=r"J(g) - J(\pi_\theta) = \beta\, \mathrm{KL}(\pi_\theta \,\|\, g), \quad J(\pi) = \mathbb{E}_{o \sim \pi}"
            r"[" + P_G(2, "o", "y") + r"] - \beta\, \mathrm{KL}(\pi \,\|\, \pi_{\mathrm{ref}}), \quad g(o) = \frac{1}{Z_q} "
            r"\pi_{\mathrm{ref}}(o \mid q)\, e^{" + P_G(2, "o", "y") + r"/\beta}",
    domain={**Y_DOMAIN, **REF_DOMAIN, **M_DOMAIN, beta: POS, p1: OPEN_UNIT, p2: OPEN_UNIT},
    where=Y_WHERE + REF_WHERE + (p1 + p2 < 1,),
    uses=("direct-kl-best-response-gibbs-g2",),
    note="J(g) - J(pi) = beta KL(pi || g) > 0 for pi != g (Gibbs' inequality): the maximiser is unique, "
         "so a stationary policy (a critical point of the strictly concave J(. | pi_old = pi)) must have "
         "the exp form; with the stationary claims above, the exp form characterises them.",
))

# akin to NLHF: for antisymmetric pairwise preferences P(o > o') + P(o' > o) = 1 the exponent
# P_2(o | pi)/beta = (2 E_pi[P(o > .)] - 1)/beta, i.e. NLHF's Gibbs form with beta/2
w_ab, w_ac, w_bc = (NOTATION.symbol(f"w_{u}{v}", rf"\mathcal{{P}}({u} \succ {v} \mid q)") for u, v in ("ab", "ac", "bc"))
_W = {("a", "b"): w_ab, ("a", "c"): w_ac, ("b", "c"): w_bc}
for (_u, _v), _w in list(_W.items()):
    _W[_v, _u] = 1 - _w
for _u in OUT:
    _W[_u, _u] = sp.Rational(1, 2)
_p2_anti = {o: sp.Add(*[PI_N[o2] * (_W[o, o2] - _W[o2, o]) for o2 in OUT]) for o in OUT}
_nlhf_score = {o: sp.Add(*[PI_N[o2] * _W[o, o2] for o2 in OUT]) for o in OUT}
CLAIMS.append(Identity(
    id="direct-kl-g2-akin-to-nlhf",
    narrowed=_instance("three outputs, any antisymmetric pairwise preferences among them",
                       paper="groups of two, any set of outputs (Section 3)",
                       reason=_THREE_WHY),
    title="$G = 2$, antisymmetric preferences: the direct-KL aggregation is NLHF's Gibbs form "
          r"with regularisation $\beta/2$",
    ref=Ref("3", note="'for groups of size two, this aggregation ... is akin to the NLHF objective'"),
    lhs=name(NOTATION, gibbs(REF_N, _p2_anti, beta)["a"],
             r"\frac{1}{Z_q} \pi_{\mathrm{ref}}(a \mid q)\, e^{" + P_G(2, "a", r"\pi_\theta") + r"/\beta}"),
    rhs=name(NOTATION, gibbs(REF_N, _nlhf_score, beta / 2)["a"],
             r"\frac{1}{Z'_q} \pi_{\mathrm{ref}}(a \mid q)\, e^{\mathbb{E}_{o' \sim \pi_\theta}[\mathcal{P}(a \succ o' "
             r"\mid q)]/(\beta/2)}"),
    domain={p1: OPEN_UNIT, p2: OPEN_UNIT, **REF_DOMAIN, w_ab: UNIT, w_ac: UNIT, w_bc: UNIT, beta: POS},
    where=(p1 + p2 < 1,) + REF_WHERE,
    uses=("direct-kl-best-response-gibbs-g2",),
    note="The right side is the fixed-point form after Eq. (5) (pi proportional to ref e^{E_pi[P(o > o')]/beta'}) "
         "with beta' = beta/2; output a, the others are symmetric.  'Akin' is therefore exact up to the "
         "factor 2 in beta.",
))

# ============================================================================ binary questions, G = 2
pa, refa = R("pi_a"), R("ref_a")
pold = NOTATION.symbol("p_old", r"\pi_{\theta_{\mathrm{old}}}(a \mid q)")
_PI_STAR = closed_form_g2(gamma, beta, refa)
sv = R("s")
ee = NOTATION.symbol("e", r"\varepsilon")   # 1 - beta/gamma
_J2 = gamma * (pa - pold) - beta * kl_bern(pa, refa)  # Eq. (16) minus beta KL
G2_DOMAIN = {gamma: SIGNED_UNIT, beta: POS, refa: OPEN_UNIT}
# the paper's Z_q and the Bernoulli KL(pi_theta(a | q) || pi_ref(a | q)) of Appendix B.2
name(NOTATION, z_q(gamma, beta, refa), "Z_q")
_KL_BERN = r"\mathrm{KL}(\pi_\theta(a \mid q) \,\|\, \pi_{\mathrm{ref}}(a \mid q))"
name(NOTATION, kl_bern(pa, refa), _KL_BERN)
_J_B2 = r"\mathcal{J}(\pi_\theta(a \mid q) \mid q)"
_DJ_B2 = r"\frac{d}{d \pi_\theta(a \mid q)} " + _J_B2
_LOGS = (r"\log \frac{\pi_\theta(a \mid q)}{\pi_{\mathrm{ref}}(a \mid q)} - \log \frac{1 - \pi_\theta(a \mid q)}"
         r"{1 - \pi_{\mathrm{ref}}(a \mid q)}")

CLAIMS.append(Maximiser(
    id="direct-kl-g2-closed-form",
    title=r"Binary question, groups of two: $e^{\gamma_{a,b}/(2\beta)} \pi_{\mathrm{ref}}(a \mid "
          "q) / Z_q$ maximises the direct-KL objective",
    ref=Ref("3", note="binary display with Z_q; same display in Appendix B.2 ('by setting the derivative "
                      "to zero')"),
    objective=_J2,
    wrt=(pa,), at={pa: _PI_STAR}, over={pa: OPEN_UNIT},
    frozen={pold: _PI_STAR}, scope="global",
    domain=G2_DOMAIN,
    uses=("b2-g2-objective", "b2-g2-derivative"),
    note="J(pi(a)) = gamma (pi(a) - pi_old(a)) - beta KL(Bern(pi(a)) || Bern(ref(a))) (Eq. (16) and the "
         "B.2 objective), pi_old(a) frozen at the point (stationary policy; the reward term's slope gamma "
         "does not depend on pi_old, so the point is the maximiser for every pi_old).  Any sign of "
         "gamma in [-1, 1]; Z_q = e^{gamma/(2 beta)} ref + e^{-gamma/(2 beta)} (1 - ref).",
))
CLAIMS.append(Identity(
    id="direct-kl-g2-normaliser",
    title="Binary, groups of two: the paper's $Z_q$ normalises the two probabilities",
    ref=Ref("3", note="Z_q display; Appendix B.2"),
    lhs=_PI_STAR + sp.exp(-gamma / (2 * beta)) * (1 - refa) / z_q(gamma, beta, refa),
    rhs=1,
    domain={gamma: SIGNED_UNIT, beta: POS, refa: UNIT},
))
CLAIMS.append(Identity(
    id="direct-kl-g2-closed-form-is-fixed-point",
    title="Binary, groups of two: the closed form is a fixed point of the general exp-form aggregation",
    ref=Ref("3", note="binary display vs the general display pi = e^{P_G(o|pi)/beta} ref / Z_q"),
    lhs=_PI_STAR,
    rhs=gibbs({"a": refa, "b": 1 - refa},
              {"a": gamma * (1 - _PI_STAR), "b": -gamma * _PI_STAR}, beta)["a"],
    domain=G2_DOMAIN,
    uses=("direct-kl-exp-form-stationary-g2",),
    note="P_2(a | pi) = gamma pi(b), P_2(b | pi) = -gamma pi(a): the exponents differ by gamma/beta, as "
         "in the binary display (gamma/(2 beta) vs -gamma/(2 beta)); the normalisers differ, the "
         "policy is the same.",
))
CLAIMS.append(Inequality(
    id="direct-kl-g2-normaliser-positive",
    title=r"Binary, groups of two: $Z_q$ is positive for every $\pi_{\mathrm{ref}}(a \mid q) \in "
          "[0, 1]$, so the closed form is continuous there",
    ref=Ref("3", note="Figure 3 caption: no discontinuity (unlike Figure 1)"),
    lhs=z_q(gamma, beta, refa), op=">", rhs=0,
    domain={gamma: SIGNED_UNIT, beta: POS, refa: UNIT},
    note="A ratio of continuous functions with a positive denominator is continuous on the closed "
         "interval, including pi_ref(a) = 0.",
))
CLAIMS.append(Limit(
    id="direct-kl-g2-no-discontinuity-at-ref-zero",
    title=r"Binary, groups of two, direct KL: $\pi_\theta(a \mid q)$ tends to 0 as "
          r"$\pi_{\mathrm{ref}}(a \mid q)$ tends to 0 (no jump)",
    ref=Ref("3", note="Figure 3 caption: lack of discontinuity at pi_ref(a) = 0"),
    expr=_PI_STAR.subs(refa, sv * sp.exp(-gamma / beta)), var=sv, point=0, direction="+", value=0,
    domain={gamma: sp.Interval.Lopen(0, 1), beta: POS},
    uses=("direct-kl-g2-normaliser-positive",),
    note="Figure 3 takes r(a) > r(b), so gamma in (0, 1]; the value at pi_ref(a) = 0 is 0 (pi's support "
         "is within ref's), and the one-sided limit agrees for every beta > 0.  Written with "
         "pi_ref(a) = s e^{-gamma/beta}, s -> 0+ (for fixed gamma, beta the same one-sided limit): "
         "pi(a) only leaves 1 once pi_ref(a) is below ~e^{-gamma/beta}, which for small beta is far below "
         "any fixed numeric ladder (1e-24), where the plain form would look like a limit of 1.",
))
CLAIMS.append(Limit(
    id="direct-kl-g2-grpo-contrast-jump",
    title=r"Contrast (Figure 1): with the GRPO penalty, Eq. (14) tends to $1 - \beta/\gamma_{a,b} "
          r"> 0$ as $\pi_{\mathrm{ref}}(a \mid q)$ tends to 0 when $\beta < \gamma_{a,b}$",
    ref=Ref("3", note="Figure 3 caption: 'a notable difference from ... Figure 1'"),
    expr=sp.Rational(1, 2) * (ee + sp.sqrt(ee ** 2 + 4 * (1 - ee) * refa)),
    var=refa, point=0, direction="+", value=ee,
    domain={ee: OPEN_UNIT},
    note="Eq. (14) depends on beta, gamma only through beta/gamma; beta < gamma is written "
         "beta/gamma = 1 - e, e in (0, 1).  At pi_ref(a) -> 0+ it tends to (e + |e|)/2 = e = 1 - beta/gamma > 0 "
         "while pi(a) = 0 at pi_ref(a) = 0: the jump of Figure 1 that the direct KL removes.",
))

# ============================================================================ Appendix B.2, groups of two
# objective from the definition, with stochastic rewards on three ordered levels
lo = NOTATION.symbol("r_lo", r"r_{\mathrm{lo}}", real=True)
g1_, g2_ = R("g_1", positive=True), R("g_2", positive=True)
LEVELS = [lo, lo + g1_, lo + g1_ + g2_]
sa, sb, ua, ub = R("s_a"), R("s_b"), R("u_a"), R("u_b")


def _stick(t, s):
    return [t, (1 - t) * s, (1 - t) * (1 - s)]


_LAWS = {"a": Categorical(LEVELS, _stick(sa, ua)), "b": Categorical(LEVELS, _stick(sb, ub))}


def _kl3(o):
    return _LAWS[o]


def _rank(level):
    return LEVELS.index(level)


_gamma_ab = win_prob(_LAWS["a"], _LAWS["b"], _rank) - win_prob(_LAWS["b"], _LAWS["a"], _rank)
_PI2 = {"a": pa, "b": 1 - pa}
_OLD2 = Categorical(["a", "b"], [pold, 1 - pold])
name(NOTATION, _gamma_ab, r"\gamma_{a,b}")   # P(a > b | q) - P(b > a | q) from the reward laws
name(NOTATION, kl(_PI2, {"a": refa, "b": 1 - refa}), _KL_BERN)
CLAIMS.append(Identity(
    id="b2-g2-objective",
    narrowed=THREE_LEVELS,
    title=r"B.2, groups of two: the direct-KL objective is $\gamma_{a,b} \pi_\theta(a \mid q) - "
          r"\beta \mathrm{KL}(\pi_\theta(a \mid q) \| \pi_{\mathrm{ref}}(a \mid q)) + "
          r"\text{const}$",
    ref=Ref("Appendix B.2", note="groups of size two, objective display"),
    lhs=name(NOTATION, expected_preference_under(_PI2, _OLD2, _kl3, 2) - beta * kl(_PI2, {"a": refa, "b": 1 - refa}),
             E_P_G(2) + r" - \beta\, " + _KL_BERN),
    rhs=_gamma_ab * pa - beta * kl_bern(pa, refa) - _gamma_ab * pold,
    display=E_P_G(2) + r" - \beta\, " + _KL_BERN + r" = \gamma_{a,b} \pi_\theta(a \mid q) - \beta\, " + _KL_BERN
    + r" + \text{const}, \quad \text{const} = -\gamma_{a,b} \pi_{\theta_{\mathrm{old}}}(a \mid q)",
    domain={pa: OPEN_UNIT, refa: OPEN_UNIT, pold: UNIT, beta: POS, sa: UNIT, sb: UNIT, ua: UNIT,
            ub: UNIT, lo: REAL, g1_: POS, g2_: POS},
    note="Left: E_{o ~ pi}[P_2(o | pi_old)] from the definition (stochastic rewards on three ordered "
         "levels, ties possible) minus beta KL over the two answers.  Right: the display, with "
         "gamma = P(a > b) - P(b > a) and const = -gamma pi_old(a) (Eq. (16)).",
))
_DERIV = gamma - beta * (sp.log(pa / refa) - sp.log((1 - pa) / (1 - refa)))
CLAIMS.append(Identity(
    id="b2-g2-derivative-literal",
    title="B.2, groups of two: the derivative display as printed (parentheses put the second log "
          "inside the first)",
    ref=Ref("Appendix B.2", note="groups of size two, derivative display"),
    lhs=sp.diff(_J2, pa),
    rhs=gamma - beta * sp.log(pa / refa - sp.log((1 - pa) / (1 - refa))),
    display=_DJ_B2 + r" = \gamma_{a,b} - \beta \left(\log \left(\left(\frac{\pi_\theta(a \mid q)}{\pi_{\mathrm{ref}}"
    r"(a \mid q)}\right) - \log \left(\frac{1 - \pi_\theta(a \mid q)}{1 - \pi_{\mathrm{ref}}(a \mid q)}\right)\right)"
    r"\right) \quad \text{(as printed)}",
    domain={gamma: SIGNED_UNIT, beta: POS, pa: OPEN_UNIT, refa: OPEN_UNIT, pold: UNIT},
    where=(pa / refa - sp.log((1 - pa) / (1 - refa)) > 0,),
    expect=refuted(r"misplaced parentheses: printed $\log((\pi_\theta/\pi_{\mathrm{ref}}) - "
                   r"\log((1-\pi_\theta)/(1-\pi_{\mathrm{ref}})))$, meant "
                   r"$\log(\pi_\theta/\pi_{\mathrm{ref}}) - "
                   r"\log((1-\pi_\theta)/(1-\pi_{\mathrm{ref}}))$"),
    note="The display reads \\log(\\left(\\frac{pi}{ref}\\right) - \\log(\\frac{1-pi}{1-ref})): the "
         "closing parenthesis of the first log comes after the second log.  Encoded literally (where "
         "the printed log's argument is positive, so it is defined).",
))
CLAIMS.append(Identity(
    id="b2-g2-derivative",
    title=r"B.2, groups of two: the derivative is $\gamma_{a,b} - \beta "
          r"(\log(\pi_\theta/\pi_{\mathrm{ref}}) - \log((1-\pi_\theta)/(1-\pi_{\mathrm{ref}})))$",
    ref=Ref("Appendix B.2", note="groups of size two, derivative display (corrected parentheses)"),
    lhs=sp.diff(_J2, pa), rhs=_DERIV,
    domain={gamma: SIGNED_UNIT, beta: POS, pa: OPEN_UNIT, refa: OPEN_UNIT, pold: UNIT},
    display=_DJ_B2 + r" = \gamma_{a,b} - \beta \left(" + _LOGS + r"\right)",
    uses=("b2-g2-derivative-literal", "b2-g2-objective"),
))
CLAIMS.append(Monotonic(
    id="b2-g2-derivative-decreasing",
    title=r"B.2, groups of two: the derivative is strictly decreasing in $\pi_\theta(a \mid q)$, "
          "so it has at most one zero",
    ref=Ref("Appendix B.2", note="groups of size two: 'by setting the derivative to zero'"),
    expr=_DERIV, var=pa, direction="decreasing",
    domain={gamma: SIGNED_UNIT, beta: POS, pa: OPEN_UNIT, refa: OPEN_UNIT},
    uses=("b2-g2-derivative",),
))
CLAIMS.append(Root(
    id="b2-g2-closed-form-root",
    narrowed=_instance(r"$\beta \ge 1/10$",
                       paper=r"every $\beta > 0$ (Appendix B.2, groups of two)",
                       reason="for the numbers only: for smaller beta the root lies within e^{-|gamma|/beta} of 0 or 1 and rounds onto the end; the maximiser claim direct-kl-g2-closed-form covers every beta > 0"),
    title="B.2, groups of two: setting the derivative to zero gives exactly the closed form with "
          "$Z_q$",
    ref=Ref("Appendix B.2", note="groups of size two: display after 'by setting the derivative to zero'"),
    equation=_DERIV.subs(pa, R("z")), var=R("z"), value=_PI_STAR.subs(pa, R("z")),
    interval=OPEN_UNIT, unique=True,
    domain={gamma: SIGNED_UNIT, beta: sp.Interval(sp.Rational(1, 10), sp.oo), refa: OPEN_UNIT},
    uses=("b2-g2-derivative", "b2-g2-derivative-decreasing"),
    note="The unique root in (0, 1) (the derivative runs from +oo to -oo and is decreasing).  beta >= 1/10 "
         "for the numbers only: for smaller beta the root lies within e^{-|gamma|/beta} of 0 or 1 and "
         "rounds onto the end, where the derivative is infinite; the maximiser claim "
         "direct-kl-g2-closed-form covers every beta > 0.",
))

# ============================================================================ Appendix B.2, large groups
rb = NOTATION.symbol("r_b", r"r(b \mid q)", real=True)
dd = R("d", real=True)  # r(a) = r(b) + d
_RW = {"a": rb + dd, "b": rb}
_PIL = Categorical(["a", "b"], [pa, 1 - pa])
_OLDL = Categorical(["a", "b"], [pold, 1 - pold])
_mo = _OLDL.expect(lambda o: _RW[o])
_R_INF = name(NOTATION, (_PIL.expect(lambda o: _RW[o]) - _mo) / sp.sqrt(_OLDL.expect(lambda o: (_RW[o] - _mo) ** 2)),
              r"\mathcal{R}_\infty(\theta \mid q)")
_GT = r"\tilde{\gamma}_{a,b}"
_P = r"\pi_{\theta_{\mathrm{old}}}(a \mid q)"
_SQ = rf"\sqrt{{{_P} (1 - {_P})}}"
CLAIMS.append(Identity(
    id="b2-large-g-gamma-tilde-literal",
    title=r"B.2, large groups: $\tilde{\gamma}_{a,b}$ as printed, $\operatorname{sign}(r(a \mid q) "
          r"> r(b \mid q))$, equals $\operatorname{sign}(r(a \mid q) - r(b \mid q))$",
    ref=Ref("Appendix B.2", note="large group size: definition of gamma~ after the objective"),
    lhs=sp.sign(sp.Piecewise((1, rb + dd > rb), (0, True))),
    rhs=sp.sign(dd),
    domain={rb: REAL, dd: REAL},
    display=r"\operatorname{sign}(r(a \mid b) > r(b \mid q)) = \operatorname{sign}(r(a \mid q) - r(b \mid q)) "
            r"\quad \text{(as printed; } r(a \mid q) = r(b \mid q) + d)",
    expect=refuted(r"$\operatorname{sign}(r(a \mid b) > r(b \mid q))$ is the sign of a Boolean (0 "
                   r"or 1 as a number), never $-1$; Eq. (18) uses $\operatorname{sign}(r(a \mid q) "
                   r"- r(b \mid q))$; also $r(a \mid b)$ should be $r(a \mid q)$"),
    note="The printed expression takes the sign of the proposition r(a|b) > r(b|q); read as the 0/1 "
         "indicator it gives 0 when r(a) < r(b), where the objective needs -1.  r(a) = r(b) + d.",
))
CLAIMS.append(Identity(
    id="b2-large-g-objective",
    narrowed=DETERMINISTIC,
    title=r"B.2, large groups: the direct-KL objective is $\tilde{\gamma}_{a,b} \pi_\theta(a \mid "
          r"q)/\sqrt{p(1-p)} - \beta \mathrm{KL} + \text{const}$, $\tilde{\gamma}_{a,b} = "
          r"\operatorname{sign}(r(a \mid q) - r(b \mid q))$",
    ref=Ref("Appendix B.2", note="large group size: objective display (reward part from Eq. (18))"),
    lhs=_R_INF - beta * kl(_PI2, {"a": refa, "b": 1 - refa}),
    rhs=sp.sign(dd) / sp.sqrt(pold * (1 - pold)) * pa - beta * kl_bern(pa, refa)
    - sp.sign(dd) * sp.sqrt(pold / (1 - pold)),
    display=r"\mathcal{R}_\infty(\theta \mid q) - \beta\, " + _KL_BERN + rf" = \frac{{{_GT}}}{{{_SQ}}} \pi_\theta(a \mid q) "
    r"- \beta\, " + _KL_BERN + r" + \text{const}, \quad " + _GT + r" = \operatorname{sign}(r(a \mid q) - r(b \mid q))",
    domain={pa: OPEN_UNIT, pold: OPEN_UNIT, refa: OPEN_UNIT, beta: POS, rb: REAL, dd: REAL},
    where=(sp.Ne(dd, 0),),
    uses=("b2-large-g-gamma-tilde-literal",),
    note="Left: R_inf = (E_pi r - E_old r)/sigma(pi_old) from its definition (Section 2.1) for two answers "
         "with r(a) = r(b) + d, d != 0, minus beta KL.  Right: the display with gamma~ = sign(d) and "
         "const = -gamma~ sqrt(p/(1-p)), p = pi_old(a).  The coefficient 1/sqrt(p(1-p)) is the correct "
         "one (Eq. (18) as printed has 1/sqrt(p) in front of pi(a); see the Appendix B.1 claims).",
))
_JL = pa / sp.sqrt(pold * (1 - pold)) - beta * kl_bern(pa, refa)  # gamma~ = 1
_JL_G = gamma * pa / sp.sqrt(pold * (1 - pold)) - beta * kl_bern(pa, refa)
CLAIMS.append(Identity(
    id="b2-large-g-derivative",
    paper_domain={gamma: "Appendix B.2: gamma~_{a,b} is the sign of r(a | q) - r(b | q), so -1, 0 or 1"},
    title="B.2, large groups: the derivative display is correct",
    ref=Ref("Appendix B.2", note="large group size: derivative display"),
    lhs=sp.diff(_JL_G, pa),
    rhs=gamma / sp.sqrt(pold * (1 - pold)) - beta * (logit(pa) - logit(refa)),
    display=rf"\frac{{d}}{{d \pi_\theta(a \mid q)}} \left(\frac{{{_GT}}}{{{_SQ}}} \pi_\theta(a \mid q) - \beta\, "
    + _KL_BERN + rf"\right) = \frac{{{_GT}}}{{{_SQ}}} - \beta \left(\log \frac{{\pi_\theta(a \mid q)}}{{1 - \pi_\theta(a \mid q)}} "
    r"- \log \frac{\pi_{\mathrm{ref}}(a \mid q)}{1 - \pi_{\mathrm{ref}}(a \mid q)}\right), \quad " + _GT
    + r" \in \{-1, 0, 1\}",
    domain={gamma: sp.FiniteSet(-1, 0, 1), beta: POS, pa: OPEN_UNIT, pold: OPEN_UNIT, refa: OPEN_UNIT},
    uses=("b2-large-g-objective",),
    note="gamma here is gamma~ in {-1, 0, 1}; pi_old(a) held fixed while differentiating.",
))
xx = R("x")
_HX = name(NOTATION, h_fn(xx, beta, refa), "h(x)")
name(NOTATION, beta * h_fn(xx, beta, refa), r"\beta\, h(x)")
CLAIMS.append(Identity(
    id="b2-large-g-derivative-is-beta-h",
    title=r"B.2, large groups: at $\pi_{\theta_{\mathrm{old}}} = \pi_\theta$ the derivative is "
          r"$\beta h(\pi_\theta(a \mid q))$ with the paper's $h$",
    ref=Ref("Appendix B.2", note="large group size: displays defining h"),
    lhs=sp.diff(_JL, pa).subs(pold, pa).subs(pa, xx),
    rhs=beta * h_fn(xx, beta, refa),
    domain={beta: POS, xx: OPEN_UNIT, refa: OPEN_UNIT},
    display=r"\frac{d}{d \pi_\theta(a \mid q)} " + _J_B2 + r"\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta,\ "
            r"\pi_\theta(a \mid q) = x} = \beta\, h(x), \quad h(x) = \frac{1}{\beta} \frac{1}{\sqrt{x(1 - x)}} - \log "
            r"\frac{x}{1 - x} + \log \frac{\pi_{\mathrm{ref}}(a \mid q)}{1 - \pi_{\mathrm{ref}}(a \mid q)}",
    uses=("b2-large-g-derivative",),
    note="gamma~ = 1 (the paper's 'without loss of generality'); differentiate, then set pi_old(a) = "
         "pi(a) = x.",
))

_H = h_fn(xx, beta, refa)
# why a mistake survives a claim about a direction (--mutate): the formula is pinned elsewhere
_DIRECTION_OF_H = ("a claim about the direction of h along a path that ends at x*: a mistake in h or in the path "
                   "that keeps the direction passes it; h is pinned by b2-large-g-potential-derivative "
                   "(Phi' = beta h) and x* by b2-large-g-xstar-critical-point and b2-large-g-xstar-minimises-h")
_XS = x_star(beta)
_HP = name(NOTATION, sp.diff(_H, xx), "h'(x)")
name(NOTATION, _XS, "x^*")
name(NOTATION, _H.subs(xx, _XS), "h(x^*)")
H_DOMAIN = {beta: POS, refa: OPEN_UNIT}
tt = R("t")
CLAIMS.append(Root(
    id="b2-large-g-xstar-critical-point",
    title=r"B.2, large groups: $x^* = (1 + \sqrt{1 - 1/(1+\beta^2)})/2$ is the unique critical "
          "point of $h$ in $(0, 1)$",
    ref=Ref("Appendix B.2", note="last paragraph: x*"),
    equation=_HP, var=xx, value=_XS, interval=OPEN_UNIT, unique=True,
    domain=H_DOMAIN,
    note="h'(x) = [(2x - 1)/(2 beta sqrt(x(1-x))) - 1]/(x(1-x)); (2x-1)/(2 sqrt(x(1-x))) increases from -oo "
         "to oo, so h' vanishes once, at 2x - 1 = beta/sqrt(1 + beta^2) = sqrt(1 - 1/(1+beta^2)).",
))
CLAIMS.append(Monotonic(
    id="b2-large-g-h-decreasing-below-xstar",
    title="B.2, large groups: $h$ decreases on $(0, x^*]$",
    ref=Ref("Appendix B.2", note="last paragraph: h decreases on (0, x*]"),
    expr=name(NOTATION, _H.subs(xx, tt * _XS), "h(t x^*)"), var=tt, direction="decreasing",
    domain={tt: sp.Interval.Lopen(0, 1), **H_DOMAIN},
    uses=("b2-large-g-xstar-critical-point",),
    harmless_mutants={"*": _DIRECTION_OF_H},
    note="x = t x*, t in (0, 1], covers (0, x*] increasingly (the engine's monotonicity variable needs "
         "fixed interval ends).",
))
CLAIMS.append(Monotonic(
    id="b2-large-g-h-increasing-above-xstar",
    title="B.2, large groups: $h$ increases on $[x^*, 1)$",
    ref=Ref("Appendix B.2", note="last paragraph: h increases on [x*, 1)"),
    expr=name(NOTATION, _H.subs(xx, _XS + tt * (1 - _XS)), "h(x^* + t (1 - x^*))"), var=tt, direction="increasing",
    domain={tt: sp.Interval.Ropen(0, 1), **H_DOMAIN},
    uses=("b2-large-g-xstar-critical-point",),
    harmless_mutants={"*": _DIRECTION_OF_H},
    note="x = x* + t (1 - x*), t in [0, 1), covers [x*, 1) increasingly.",
))
CLAIMS.append(Maximiser(
    id="b2-large-g-xstar-minimises-h",
    title="B.2, large groups: $x^*$ is the global minimiser of $h$ on $(0, 1)$",
    ref=Ref("Appendix B.2", note="last paragraph (consequence of the two monotone pieces)"),
    objective=name(NOTATION, -_H, "-h(x)"), wrt=(xx,), at={xx: _XS}, over={xx: OPEN_UNIT}, scope="global",
    domain=H_DOMAIN,
    uses=("b2-large-g-h-decreasing-below-xstar", "b2-large-g-h-increasing-above-xstar"),
    note="A minimiser, not a maximiser: the maximiser of -h.",
))
CLAIMS.append(Limit(
    id="b2-large-g-h-limit-literal-up-to-zero",
    title="B.2, large groups: $h$ tends to infinity as $x$ increases to 0 (as printed, $x "
          r"\uparrow 0$)",
    ref=Ref("Appendix B.2", note="last sentence: lim_{x up-arrow 0} h(x) = oo"),
    expr=_H, var=xx, point=0, direction="-", value=sp.oo, domain=H_DOMAIN,
    expect=refuted(r"$x \uparrow 0$ approaches 0 from below, outside $(0, 1)$ where $h$ is not "
                   r"real; the intended limit is $x \downarrow 0$"),
))
CLAIMS.append(Limit(
    id="b2-large-g-h-limit-literal-down-to-one",
    title="B.2, large groups: $h$ tends to infinity as $x$ decreases to 1 (as printed, $x "
          r"\downarrow 1$)",
    ref=Ref("Appendix B.2", note="last sentence: lim_{x down-arrow 1} h(x) = oo"),
    expr=_H, var=xx, point=1, direction="+", value=sp.oo, domain=H_DOMAIN,
    expect=refuted(r"$x \downarrow 1$ approaches 1 from above, outside $(0, 1)$ where $h$ is not "
                   r"real; the intended limit is $x \uparrow 1$"),
))
CLAIMS.append(Limit(
    id="b2-large-g-h-limit-at-zero",
    title=r"B.2, large groups: $h(x)$ tends to $+\infty$ as $x$ decreases to 0",
    ref=Ref("Appendix B.2", note="last sentence, corrected direction"),
    expr=_H, var=xx, point=0, direction="+", value=sp.oo, domain=H_DOMAIN,
    uses=("b2-large-g-h-limit-literal-up-to-zero",),
))
CLAIMS.append(Limit(
    id="b2-large-g-h-limit-at-one",
    title=r"B.2, large groups: $h(x)$ tends to $+\infty$ as $x$ increases to 1",
    ref=Ref("Appendix B.2", note="last sentence, corrected direction"),
    expr=_H, var=xx, point=1, direction="-", value=sp.oo, domain=H_DOMAIN,
    uses=("b2-large-g-h-limit-literal-down-to-one",),
    note="1/(beta sqrt(1-x)) grows faster than -log(x/(1-x)) decreases.",
))

# ---- the regimes in beta.  H(beta, ref) = h(x*) is the minimum of h on (0, 1).
_HMIN = h_min(beta, refa)
CLAIMS.append(Identity(
    id="b2-large-g-h-min-closed-form",
    title=r"B.2, large groups: the minimum of $h$ is $2 \sqrt{1+\beta^2}/\beta - 2 "
          r"\operatorname{asinh} \beta + \operatorname{logit} \pi_{\mathrm{ref}}(a \mid q)$",
    ref=Ref("Appendix B.2", note="derived here (not in the paper): h(x*)"),
    lhs=_H.subs(xx, _XS), rhs=_HMIN, domain=H_DOMAIN,
    uses=("b2-large-g-xstar-minimises-h",),
    note="The sign of h(x*) decides the regime of the Section 3 sentence about small and large beta.",
))
CLAIMS.append(Monotonic(
    id="b2-large-g-h-min-decreasing-in-beta",
    title=r"B.2, large groups: the minimum of $h$ strictly decreases in $\beta$",
    ref=Ref("3", note="'if beta is sufficiently small ... sufficiently large': there is one threshold"),
    expr=_HMIN, var=beta, direction="decreasing", domain=H_DOMAIN,
    uses=("b2-large-g-h-min-closed-form",),
    note="d/dbeta = -2/(beta^2 sqrt(1+beta^2)) - 2/sqrt(1+beta^2) < 0: a single threshold beta_c(ref) "
         "separates the regimes.",
))
CLAIMS.append(Limit(
    id="b2-large-g-h-min-limit-small-beta",
    title=r"B.2, large groups: the minimum of $h$ tends to $+\infty$ as $\beta$ decreases to 0",
    ref=Ref("3", note="'the optimal value of pi(a) is 1 if beta is sufficiently small'"),
    expr=_HMIN, var=beta, point=0, direction="+", value=sp.oo, domain={refa: OPEN_UNIT},
    uses=("b2-large-g-h-min-closed-form",),
    note="For every pi_ref(a) in (0, 1) there is a beta_0 > 0 with h > 0 on (0, 1) for all beta < beta_0; "
         "beta_0 depends on pi_ref(a) (no uniform threshold: logit(ref) -> -oo as ref -> 0).",
))
CLAIMS.append(Limit(
    id="b2-large-g-h-min-limit-large-beta",
    title=r"B.2, large groups: the minimum of $h$ tends to $-\infty$ as $\beta$ grows",
    ref=Ref("3", note="'two values ... if beta is sufficiently large'"),
    expr=_HMIN, var=beta, point=sp.oo, direction="-", value=-sp.oo, domain={refa: OPEN_UNIT},
    uses=("b2-large-g-h-min-closed-form",),
))

_WHERE_SMALL = (_HMIN > 0,)
# why mistakes survive a sign claimed on a box with a wide margin (--mutate)
_MARGIN = ("a sign on a box with a wide margin (see the note): a mistake in the formula that does not flip the "
           "sign anywhere on the box passes this claim; mistakes in the formula of min h are caught by "
           "b2-large-g-h-min-closed-form, which states it")
CLAIMS.append(Inequality(
    id="b2-large-g-h-positive-when-min-positive",
    title=r"B.2, large groups: when the minimum of $h$ is positive ($\beta$ below the threshold), "
          "$h > 0$ on $(0, 1)$",
    ref=Ref("3", note="small-beta regime: the on-policy derivative beta h is positive"),
    lhs=_H, op=">", rhs=0,
    domain={xx: OPEN_UNIT, **H_DOMAIN}, where=_WHERE_SMALL,
    uses=("b2-large-g-xstar-minimises-h", "b2-large-g-h-min-closed-form"),
    harmless_mutants={"*": "conditional on min h > 0 (the where relation, which these mutants leave as it is), where "
                           "h is positive with room to spare: a mistake in h that keeps it positive there passes; "
                           "the formula of h is pinned by b2-large-g-potential-derivative (Phi' = beta h) and "
                           "b2-large-g-h-min-closed-form"},
))
CLAIMS.append(Inequality(
    id="direct-kl-large-g-small-beta-instance",
    narrowed=_instance(r"$\beta \le 1$ and $\pi_{\mathrm{ref}}(a \mid q) \ge 1/2$",
                       paper=r"every $\pi_{\mathrm{ref}}(a \mid q) \in (0, 1)$, $\beta$ sufficiently small (Section 3)",
                       reason="an explicit instance of 'sufficiently small'; for every pi_ref such a beta exists by b2-large-g-h-min-limit-small-beta"),
    title=r"Large groups, direct KL: for $\beta \le 1$ and $\pi_{\mathrm{ref}}(a \mid q) \ge 1/2$ "
          "the minimum of $h$ is positive",
    ref=Ref("3", note="an explicit 'beta sufficiently small'"),
    lhs=_HMIN, op=">", rhs=0,
    domain={beta: sp.Interval.Lopen(0, 1), refa: sp.Interval.Ropen(sp.Rational(1, 2), 1)},
    uses=("b2-large-g-h-min-decreasing-in-beta",),
    note="h(x*) >= 2 sqrt(2) - 2 asinh(1) ~ 1.07 > 0 on this box (decreasing in beta, increasing in ref).",
    harmless_mutants={"lhs:*": _MARGIN},
))
CLAIMS.append(Inequality(
    id="direct-kl-large-g-large-beta-instance",
    narrowed=_instance(r"$\beta \ge 2$ and $\pi_{\mathrm{ref}}(a \mid q) \le 1/2$",
                       paper=r"every $\pi_{\mathrm{ref}}(a \mid q) \in (0, 1)$, $\beta$ sufficiently large (Section 3)",
                       reason="an explicit instance of 'sufficiently large'; for every pi_ref such a beta exists by b2-large-g-h-min-limit-large-beta"),
    title=r"Large groups, direct KL: for $\beta \ge 2$ and $\pi_{\mathrm{ref}}(a \mid q) \le 1/2$ "
          "the minimum of $h$ is negative",
    ref=Ref("3", note="an explicit 'beta sufficiently large'"),
    lhs=_HMIN, op="<", rhs=0,
    domain={beta: sp.Interval(2, sp.oo), refa: sp.Interval.Lopen(0, sp.Rational(1, 2))},
    uses=("b2-large-g-h-min-decreasing-in-beta",),
    note="h(x*) <= sqrt(5) - 2 asinh(2) ~ -0.65 < 0 on this box; then h has exactly two zeros "
         "x_1 < x* < x_2 (monotone pieces, limits +oo at both ends).",
    harmless_mutants={"lhs:*": _MARGIN, "rhs:*": _MARGIN},
))

# fixed-point reading: best response to a frozen pi_old(a) = p, and its relation to h
_F = 1 / (1 + sp.exp(-(logit(refa) + 1 / (beta * sp.sqrt(pold * (1 - pold))))))
CLAIMS.append(Maximiser(
    id="b2-large-g-best-response",
    title="B.2, large groups: for a frozen old policy $p$, the direct-KL objective has the unique "
          r"maximiser $F(p) = \operatorname{sigmoid}(\operatorname{logit} \pi_{\mathrm{ref}}(a "
          r"\mid q) + 1/(\beta \sqrt{p(1-p)}))$",
    ref=Ref("Appendix B.2", note="large group size: objective display (gamma~ = 1), maximised over pi(a)"),
    objective=_JL, wrt=(pa,), at={pa: _F}, over={pa: OPEN_UNIT}, scope="global",
    domain={pold: OPEN_UNIT, **H_DOMAIN},
    uses=("b2-large-g-objective",),
    note="Linear minus beta KL: strictly concave in pi(a), so the critical point is the unique maximiser. "
         "A stationary policy is a fixed point F(p) = p.",
))
CLAIMS.append(Identity(
    id="b2-large-g-best-response-logit-gap",
    narrowed=_instance(r"$\pi_{\theta_{\mathrm{old}}}(a \mid q) \in [1/100, 99/100]$, $\beta \ge 1/10$",
                       paper=r"every old policy $p \in (0, 1)$ and $\beta > 0$ (Appendix B.2)",
                       reason="for the numbers only: outside the box 1 - F(p) falls below e^{-100} and rounds to 0 at working precision; the algebra logit(sigmoid(z)) = z holds everywhere"),
    title=r"B.2, large groups: $\operatorname{logit} F(p) - \operatorname{logit} p = h(p)$, so "
          "$F(p) > p$ exactly where $h(p) > 0$",
    ref=Ref("Appendix B.2", note="large group size: h and the stationary policies"),
    lhs=logit(_F) - logit(pold), rhs=name(NOTATION, h_fn(pold, beta, refa), r"h(\pi_{\theta_{\mathrm{old}}}(a \mid q))"),
    domain={pold: sp.Interval(sp.Rational(1, 100), sp.Rational(99, 100)),
            beta: sp.Interval(sp.Rational(1, 10), sp.oo), refa: OPEN_UNIT},
    uses=("b2-large-g-best-response", "b2-large-g-derivative-is-beta-h"),
    note="Stationary policies (fixed points of F) are exactly the zeros of h.  The algebra is "
         "logit(sigmoid(z)) = z for every z; the box p in [1/100, 99/100], beta >= 1/10 only keeps "
         "1 - F(p) >= e^{-100} within working precision (else F rounds to 1 and logit(F) is infinite).",
))
CLAIMS.append(Inequality(
    id="direct-kl-large-g-small-beta-no-interior-stationary",
    title=r"Large groups, direct KL, $\beta$ below the threshold: the best response always moves "
          r"$\pi_\theta(a \mid q)$ up, so no interior policy is stationary",
    ref=Ref("3", note="'the optimal value of pi(a) is 1 if beta is sufficiently small' (fixed-point reading)"),
    lhs=_F, op=">", rhs=pold,
    domain={pold: OPEN_UNIT, **H_DOMAIN}, where=_WHERE_SMALL,
    uses=("b2-large-g-best-response-logit-gap", "b2-large-g-h-positive-when-min-positive"),
    harmless_mutants={"*": "conditional on min h > 0 (the where relation, which these mutants leave as it is), where "
                           "F(p) exceeds p with room to spare: a mistake in F that keeps F(p) > p there passes; F "
                           "is pinned by b2-large-g-best-response (the maximiser it is)"},
    note="F(p) > p on (0, 1) and F(p) -> 1 as p -> 1: iterating the best response increases pi(a) to 1; "
         "the only stationary value is the boundary pi(a) = 1 (where the reward coefficient "
         "1/sqrt(p(1-p)) is infinite, so only as a limit).",
))

# potential reading: Phi(x) = arcsin(2x - 1) - beta KL(x || ref), Phi' = beta h
_PHI = name(NOTATION, potential_large_g(xx, beta, refa), r"\Phi(x)")
_PHI_SMOOTH = name(NOTATION, sp.asin(2 * xx - 1) - beta * kl_bern(xx, refa), r"\Phi(x)")
CLAIMS.append(Identity(
    id="b2-large-g-potential-derivative",
    title=r"B.2, large groups: the on-policy derivative $\beta h$ is the derivative of $\Phi(x) = "
          r"\arcsin(2x - 1) - \beta \mathrm{KL}(x \| \pi_{\mathrm{ref}}(a \mid q))$",
    ref=Ref("Appendix B.2", note="derived here: the function whose derivative the paper analyses"),
    lhs=sp.diff(_PHI_SMOOTH, xx), rhs=beta * h_fn(xx, beta, refa),
    domain={xx: OPEN_UNIT, **H_DOMAIN},
    uses=("b2-large-g-derivative-is-beta-h",),
    note="The paper argues from the sign of the on-policy derivative; Phi is the objective that "
         "argument maximises (Phi is extended to [0, 1] by continuity, 0 log 0 = 0).",
))
CLAIMS.append(Maximiser(
    id="direct-kl-large-g-small-beta-optimum-one",
    title=r"Large groups, direct KL, $\beta$ below the threshold: $\pi_\theta(a \mid q) = 1$ "
          "maximises the objective (potential reading)",
    ref=Ref("3", note="'the optimal value of pi(a) is 1 if beta is sufficiently small'"),
    objective=_PHI, wrt=(xx,), at={xx: 1}, over={xx: UNIT}, scope="global",
    domain=H_DOMAIN, where=_WHERE_SMALL,
    uses=("b2-large-g-potential-derivative", "b2-large-g-h-positive-when-min-positive",
          "b2-large-g-h-min-limit-small-beta"),
    harmless_mutants={"*": "a claim about where the maximum of Phi is: a mistake in Phi that keeps it increasing "
                           "(its maximum at 1) passes; Phi' = beta h is pinned by b2-large-g-potential-derivative"},
    note="'Sufficiently small' is encoded exactly as h(x*) > 0, i.e. beta < beta_c(ref) "
         "(b2-large-g-h-min-decreasing-in-beta, b2-large-g-h-min-limit-small-beta).  Phi is then "
         "increasing, so its maximum over [0, 1] is at 1.",
))

# at the threshold: ref such that h(x*) = 0
_REF_C = 1 / (1 + sp.exp(2 * sp.sqrt(1 + beta ** 2) / beta - 2 * sp.asinh(beta)))
_H_C = name(NOTATION, h_fn(xx, beta, _REF_C), "h(x)")
CLAIMS.append(Root(
    id="b2-large-g-threshold-single-stationary",
    title=r"B.2, large groups, at the threshold $\beta = \beta_c(\pi_{\mathrm{ref}})$: $x^*$ is "
          "the only zero of $h$ (one degenerate stationary policy)",
    ref=Ref("3", note="between 'sufficiently small' and 'sufficiently large'"),
    equation=_H_C, var=xx, value=_XS, interval=OPEN_UNIT, unique=True,
    domain={beta: POS},
    display=r"x^* \text{ is the unique zero of } h \text{ in } (0, 1) \text{ at } \pi_{\mathrm{ref}}(a \mid q) = "
            r"\frac{1}{1 + e^{2 \sqrt{1 + \beta^2}/\beta - 2 \operatorname{asinh} \beta}} \quad (h(x^*) = 0)",
    uses=("b2-large-g-h-min-closed-form", "b2-large-g-xstar-minimises-h"),
    note="pi_ref(a) = ref_c(beta) solves h(x*) = 0; h >= 0 touches zero only at x*, so Phi is still "
         "increasing (with an inflection at x*) and pi(a) = 1 remains optimal in the potential reading.",
))

# above the threshold: two zeros x_1 < x_2 of h.  Parametrise (beta, ref) by the two zeros:
# every parameter pair with two interior stationary policies arises this way.
z1, z2 = R("z_1"), R("z_2")
_s1, _s2 = sp.sqrt(z1 * (1 - z1)), sp.sqrt(z2 * (1 - z2))
_BETA2 = (1 / _s2 - 1 / _s1) / (logit(z2) - logit(z1))
_REF2 = 1 / (1 + sp.exp(-(logit(z1) - 1 / (_BETA2 * _s1))))
TWO_DOMAIN = {z1: OPEN_UNIT, z2: OPEN_UNIT}
# beta and pi_ref as functions of the two zeros of h
name(NOTATION, _BETA2, r"\beta(z_1, z_2)")
name(NOTATION, _REF2, r"\pi_{\mathrm{ref}}(z_1, z_2)")
name(NOTATION, kl_bern(pa, _REF2), r"\mathrm{KL}(\pi_\theta(a \mid q) \,\|\, \pi_{\mathrm{ref}}(z_1, z_2))")
name(NOTATION, kl_bern(xx, _REF2), r"\mathrm{KL}(x \,\|\, \pi_{\mathrm{ref}}(z_1, z_2))")
TWO_WHERE = (z1 < z2, z1 * (1 - z1) > z2 * (1 - z2))
# local claims: the engine probes a local maximiser at distances 1e-3 .. 1e-9, so the zeros are kept
# 1/100 apart and from the ends (the basins are (0, z_2) and (z_1, 1))
LOCAL_DOMAIN = {z1: sp.Interval(sp.Rational(1, 100), sp.Rational(99, 100)),
                z2: sp.Interval(sp.Rational(1, 100), sp.Rational(99, 100))}
LOCAL_WHERE = (z2 - z1 >= sp.Rational(1, 100), z1 * (1 - z1) > z2 * (1 - z2))
_TWO_NOTE = ("Parametrised by the two zeros z_1 < z_2 of h: beta = (1/s_2 - 1/s_1)/(logit z_2 - logit z_1) "
             "> 0 and logit(ref) = logit(z_1) - 1/(beta s_1), s_i = sqrt(z_i (1 - z_i)); the constraint "
             "s_1 > s_2 (z_2 farther from 1/2) is exactly what makes beta positive, and every (beta, ref) "
             "with two zeros arises this way, so the claim covers the whole large-beta regime.")
# beta and pi_ref above are symmetric in the two zeros (--mutate)
_SWAP_ZEROS = {"objective:swap-z_1-z_2": "beta and pi_ref are symmetric functions of the two zeros (both satisfy "
                                         "h = 0, which gives the same beta and logit(pi_ref) from either), so "
                                         "swapping z_1 and z_2 in the objective changes nothing"}
_J_TWO = (r"\frac{\pi_\theta(a \mid q)}{\sqrt{\pi_{\theta_{\mathrm{old}}}(a \mid q) (1 - \pi_{\theta_{\mathrm{old}}}(a \mid q))}} "
          r"- \beta(z_1, z_2)\, \mathrm{KL}(\pi_\theta(a \mid q) \,\|\, \pi_{\mathrm{ref}}(z_1, z_2))")
name(NOTATION, pa / sp.sqrt(pold * (1 - pold)) - _BETA2 * kl_bern(pa, _REF2), _J_TWO)
for _lbl, _z in (("lower", z1), ("upper", z2)):
    CLAIMS.append(Maximiser(
        id=f"direct-kl-large-g-two-stationary-{_lbl}",
        title=f"Large groups, direct KL, $\\beta$ above the threshold: the {_lbl} zero of $h$ maximises the "
              r"objective with $\pi_{\theta_{\mathrm{old}}}$ frozen at it",
        ref=Ref("3", note="'there exist two values of pi(a) that maximise the objective function' "
                          "(fixed-point reading)"),
        objective=pa / sp.sqrt(pold * (1 - pold)) - _BETA2 * kl_bern(pa, _REF2),
        wrt=(pa,), at={pa: _z}, over={pa: OPEN_UNIT}, frozen={pold: _z}, scope="global",
        domain=TWO_DOMAIN, where=TWO_WHERE,
        uses=("b2-large-g-best-response-logit-gap", "b2-large-g-h-min-limit-large-beta",
              "direct-kl-large-g-large-beta-instance"),
        note=_TWO_NOTE + "  Both zeros are stationary policies in the paper's sense (each is the maximiser "
             "of its own objective), and by the monotone pieces of h there are no others.",
        harmless_mutants=_SWAP_ZEROS,
    ))
_PHI2 = name(NOTATION, sp.asin(2 * xx - 1) - _BETA2 * kl_bern(xx, _REF2), r"\Phi(x)")
CLAIMS.append(Maximiser(
    id="direct-kl-large-g-potential-lower-local-max",
    narrowed=_instance(r"zeros $z_1, z_2 \in [1/100, 99/100]$ at least $1/100$ apart",
                       paper=r"every $\beta$ above the threshold, every $\pi_{\mathrm{ref}}(a \mid q)$ (Section 3)",
                       reason="the second-order check needs the zeros away from 0, 1 and from each other for the numbers"),
    title=r"Large groups, direct KL, $\beta$ above the threshold: the lower zero of $h$ is a "
          r"strict local maximiser of the potential $\Phi$",
    ref=Ref("3", note="'two values ... that maximise' (potential reading: the lower zero and pi(a) = 1)"),
    objective=_PHI2, wrt=(xx,), at={xx: z1}, over={xx: OPEN_UNIT}, scope="local",
    domain=LOCAL_DOMAIN, where=LOCAL_WHERE,
    uses=("b2-large-g-potential-derivative", "b2-large-g-h-decreasing-below-xstar"),
    note=_TWO_NOTE + "  Phi' = beta h changes sign from + to - at z_1.",
    harmless_mutants=_SWAP_ZEROS,
))
CLAIMS.append(Maximiser(
    id="direct-kl-large-g-potential-upper-local-min",
    narrowed=_instance(r"zeros $z_1, z_2 \in [1/100, 99/100]$ at least $1/100$ apart",
                       paper=r"every $\beta$ above the threshold, every $\pi_{\mathrm{ref}}(a \mid q)$ (Section 3)",
                       reason="the second-order check needs the zeros away from 0, 1 and from each other for the numbers"),
    title=r"Large groups, direct KL, $\beta$ above the threshold: the upper zero of $h$ is a "
          r"strict local minimiser of $\Phi$ (not a maximiser in the potential reading)",
    ref=Ref("3", note="'two values ... that maximise': which two depends on the reading"),
    objective=name(NOTATION, -_PHI2, r"-\Phi(x)"), wrt=(xx,), at={xx: z2}, over={xx: OPEN_UNIT}, scope="local",
    domain=LOCAL_DOMAIN, where=LOCAL_WHERE,
    uses=("b2-large-g-potential-derivative", "b2-large-g-h-increasing-above-xstar"),
    note=_TWO_NOTE + "  Phi' = beta h changes sign from - to + at z_2.",
    harmless_mutants=_SWAP_ZEROS,
))
CLAIMS.append(Monotonic(
    id="direct-kl-large-g-potential-increasing-to-one",
    title=r"Large groups, direct KL, $\beta$ above the threshold: $\Phi$ increases from the upper "
          r"zero to 1, so $\pi_\theta(a \mid q) = 1$ is a second local maximiser",
    ref=Ref("3", note="'two values ... that maximise' (potential reading)"),
    expr=sp.asin(2 * xx - 1).subs(xx, z2 + tt * (1 - z2))
    - _BETA2 * (sp.Piecewise((0, sp.Eq(tt, 1)), ((1 - tt) * (1 - z2) * sp.log((1 - tt) * (1 - z2)), True))
                + (z2 + tt * (1 - z2)) * sp.log(z2 + tt * (1 - z2))
                - (z2 + tt * (1 - z2)) * sp.log(_REF2) - (1 - tt) * (1 - z2) * sp.log(1 - _REF2)),
    var=tt, direction="increasing",
    domain={tt: UNIT, **TWO_DOMAIN}, where=TWO_WHERE,
    display=r"\Phi(z_2 + t (1 - z_2)) \text{ is increasing in } t \in [0, 1], \quad \Phi(x) = \arcsin(2x - 1) - "
            r"\beta(z_1, z_2)\, \mathrm{KL}(x \,\|\, \pi_{\mathrm{ref}}(z_1, z_2))",
    uses=("b2-large-g-potential-derivative", "b2-large-g-h-limit-at-one"),
    harmless_mutants={"*": "a claim about the direction of Phi on [z_2, 1]: a mistake in Phi, or in beta and pi_ref "
                           "as functions of the zeros, that keeps Phi increasing there passes; Phi' = beta h is "
                           "pinned by b2-large-g-potential-derivative, and z_2 as the upper zero of h by "
                           "direct-kl-large-g-potential-upper-local-min"},
    note=_TWO_NOTE + "  x = z_2 + t (1 - z_2), t in [0, 1], Phi continued to x = 1 (0 log 0 = 0).  In the "
         "potential reading the two maximisers are z_1 and 1 (which one is global depends on beta, "
         "ref; the paper does not say).",
))

# the Section 3 sentence read literally: "there exist two values of pi_theta(a | q) that maximise the
# objective function": two points at which one and the same objective attains its maximum
_PHI_AT_ONE = sp.pi / 2 + _BETA2 * sp.log(_REF2)      # Phi(1) = arcsin(1) - beta KL(1 || ref)
name(NOTATION, _PHI2.subs(xx, z1), r"\Phi(z_1)")
name(NOTATION, _PHI_AT_ONE, r"\Phi(1)")
CLAIMS.append(Identity(
    id="direct-kl-large-g-two-maximisers-literal-potential",
    title=r"Large groups, direct KL, $\beta$ above the threshold, as worded: the two local maximisers $z_1$ and "
          r"$1$ of the potential $\Phi$ both maximise it (attain the same maximal value)",
    ref=Ref("3", note="'there exist two values of pi_theta(a | q) that maximise the objective function if beta "
                      "is sufficiently large' (potential reading); Appendix B.2"),
    lhs=_PHI2.subs(xx, z1), rhs=_PHI_AT_ONE,
    display=r"\Phi(z_1) = \Phi(1), \quad \Phi(x) = \arcsin(2x - 1) - \beta(z_1, z_2)\, \mathrm{KL}(x \,\|\, "
            r"\pi_{\mathrm{ref}}(z_1, z_2))",
    domain=TWO_DOMAIN, where=TWO_WHERE,
    expect=refuted(r"the two local maxima of $\Phi$, at the lower zero $z_1$ of $h$ and at $\pi_\theta(a \mid q) = "
                   r"1$, have different heights except on a curve of parameters, so in general only one of them "
                   r"maximises the objective (which one depends on the parameters; for large $\beta$ it is $z_1$: "
                   r"$\Phi(1) = \pi/2 + \beta \log \pi_{\mathrm{ref}}(a \mid q) \to -\infty$); the two zeros of $h$ are "
                   "one local maximum and one local minimum"),
    uses=("direct-kl-large-g-potential-lower-local-max", "direct-kl-large-g-potential-increasing-to-one",
          "direct-kl-large-g-potential-upper-local-min"),
    note=_TWO_NOTE + "  'Two values that maximise the objective function' read as the paper states it: two "
         "distinct points at which the same function attains its maximum over [0, 1].  In the potential "
         "reading the candidates are the local maximisers z_1 and 1 (direct-kl-large-g-potential-lower-local-max, "
         "direct-kl-large-g-potential-increasing-to-one); both maximise only if Phi(z_1) = Phi(1).  "
         "Phi(1) = arcsin(1) - beta KL(1 || ref) = pi/2 + beta log ref.",
    harmless_mutants=_SWAP_ZEROS,
))
_J_Z1 = name(NOTATION, pa / sp.sqrt(pold * (1 - pold)) - _BETA2 * kl_bern(pa, _REF2), _J_TWO)
CLAIMS.append(Maximiser(
    id="direct-kl-large-g-two-maximisers-literal-fixed-point",
    title=r"Large groups, direct KL, $\beta$ above the threshold, as worded: the upper zero $z_2$ of $h$ also "
          r"maximises the objective that the lower zero $z_1$ maximises ($\pi_{\theta_{\mathrm{old}}}$ held at $z_1$)",
    ref=Ref("3", note="'there exist two values of pi_theta(a | q) that maximise the objective function if beta "
                      "is sufficiently large' (fixed-point reading); Appendix B.2"),
    objective=_J_Z1,
    wrt=(pa,), at={pa: z2}, over={pa: OPEN_UNIT}, frozen={pold: z1}, scope="global",
    domain=TWO_DOMAIN, where=TWO_WHERE,
    expect=refuted(r"with $\pi_{\theta_{\mathrm{old}}}$ held fixed the objective is linear minus $\beta$ KL, strictly "
                   r"concave, so it has exactly one maximiser ($z_1$ when $\pi_{\theta_{\mathrm{old}}} = z_1$): the two "
                   "stationary policies maximise two different objectives, not one"),
    uses=("direct-kl-large-g-two-stationary-lower", "direct-kl-large-g-two-stationary-upper",
          "b2-large-g-best-response"),
    note=_TWO_NOTE + "  In the fixed-point reading 'the objective function' is J(. | pi_old) for a given pi_old; "
         "each of the two zeros maximises the objective with pi_old held at itself "
         "(direct-kl-large-g-two-stationary-lower/upper), but no single such objective has two maximisers "
         "(b2-large-g-best-response: the maximiser is unique).",
))

# ============================================================================ shift-only normalisation
# three outputs; output o has a two-point reward law with its own values (v_o, w_o), high w.p. t_o
va, wa, vb, wb, vc, wc = (R(n, real=True) for n in ("v_a", "w_a", "v_b", "w_b", "v_c", "w_c"))
_VW = {"a": (va, wa), "b": (vb, wb), "c": (vc, wc)}
RW_DOMAIN = {va: REAL, wa: REAL, vb: REAL, wb: REAL, vc: REAL, wc: REAL}


def _kshift(o):
    v, w = _VW[o]
    return Categorical([v, w], [1 - _T[o], _T[o]])


_RBAR = {o: _kshift(o).expect(lambda r: r) for o in OUT}  # r(o | q): expected reward
_E_OLD_R = sp.Add(*[OLD_N[o] * _RBAR[o] for o in OUT])
_E_PI_R = sp.Add(*[PI_N[o] * _RBAR[o] for o in OUT])
SHIFT_DOMAIN = {p1: UNIT, p2: UNIT, o1: OPEN_UNIT, o2: OPEN_UNIT, **T_DOMAIN, **RW_DOMAIN}
SHIFT_WHERE = (p1 + p2 <= 1, o1 + o2 < 1)
_SHIFT_NOTE = ("Three outputs with stochastic rewards: output o has reward w_o w.p. t_o and v_o otherwise "
               "(arbitrary reals, ties allowed), so r(o | q) = E[reward | o].  Exact sums over groups.")

_E_PI = r"\mathbb{E}_{o \sim \pi_\theta(\cdot \mid q)}[r(o \mid q)]"
_E_OLD = r"\mathbb{E}_{o \sim \pi_{\theta_{\mathrm{old}}}(\cdot \mid q)}[r(o \mid q)]"


def _factor(G):
    return rf"\left(1 - \frac{{1}}{{{G}}}\right)"


for G in (2, 3, 4):   # the shift-only P_G (Section 2.1 definitions with A_i = r_i - mean), both sides named
    for _o in OUT:
        name(NOTATION, expected_pref_shift(_o, OLD_LAW, _kshift, G), P_G(G, _o, _OLD))
    name(NOTATION, sp.Add(*[PI_N[o] * expected_pref_shift(o, OLD_LAW, _kshift, G) for o in OUT]),
         rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{P_G(G, 'o', _OLD)}]")
    name(NOTATION, (1 - sp.Rational(1, G)) * (_RBAR["a"] - _E_OLD_R), _factor(G) + rf"(r(a \mid q) - {_E_OLD})")
    name(NOTATION, (1 - sp.Rational(1, G)) * (_E_PI_R - _E_OLD_R), _factor(G) + rf"({_E_PI} - {_E_OLD})")
    if G in (2, 3):
        name(NOTATION, reward_pref_shift_def(PI_N, OLD_LAW, _kshift, G), R_G(G))
for G in (2, 3, 4):
    CLAIMS.append(Identity(
        id=f"shift-only-pg-g{G}",
        narrowed=_fixed_g(G, "stochastic rewards"),
        title=f"Shift-only, $G = {G}$: expected group-relative preference is "
              r"$(1 - 1/G)(r(o \mid q) - \mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r])$",
        ref=Ref("3", note="shift-only normalisation (P_G with A_i = r_i - mean)"),
        lhs=expected_pref_shift("a", OLD_LAW, _kshift, G),
        rhs=(1 - sp.Rational(1, G)) * (_RBAR["a"] - _E_OLD_R),
        domain={o1: OPEN_UNIT, o2: OPEN_UNIT, **T_DOMAIN, **RW_DOMAIN}, where=(o1 + o2 < 1,),
        note=_SHIFT_NOTE + "  Output a; b and c are symmetric.",
    ))
    CLAIMS.append(Identity(
        id=f"shift-only-reward-pref-g{G}",
        narrowed=_fixed_g(G, "stochastic rewards"),
        title=f"Shift-only, $G = {G}$: "
              r"$\mathbb{E}_{\pi_\theta}[\mathcal{P}_G(o \mid \pi_{\theta_{\mathrm{old}}}, q)] = (1 - 1/G)"
              r"(\mathbb{E}_{\pi_\theta}[r] - \mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r])$",
        ref=Ref("3", note="shift-only normalisation display"),
        lhs=sp.Add(*[PI_N[o] * expected_pref_shift(o, OLD_LAW, _kshift, G) for o in OUT]),
        rhs=(1 - sp.Rational(1, G)) * (_E_PI_R - _E_OLD_R),
        domain=SHIFT_DOMAIN, where=SHIFT_WHERE,
        uses=(f"shift-only-pg-g{G}",),
        note=_SHIFT_NOTE,
    ))
for G in (2, 3):
    CLAIMS.append(Identity(
        id=f"shift-only-eq6-g{G}",
        narrowed=_fixed_g(G, "stochastic rewards"),
        title=f"Shift-only, $G = {G}$: the reward preference from its definition equals "
              r"$(1 - 1/G)(\mathbb{E}_{\pi_\theta}[r] - \mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r])$",
        ref=Ref("3", eq="6", note="shift-only normalisation: Eq. (6) still holds"),
        lhs=reward_pref_shift_def(PI_N, OLD_LAW, _kshift, G),
        rhs=(1 - sp.Rational(1, G)) * (_E_PI_R - _E_OLD_R),
        domain=SHIFT_DOMAIN, where=SHIFT_WHERE,
        uses=(f"shift-only-reward-pref-g{G}",),
        note=_SHIFT_NOTE + "  R_G = E[(1/G) sum_i pi(o_i)/pi_old(o_i) A_i] with (o_i, r_i) i.i.d.",
    ))

GG = R("G", integer=True, positive=True)
dlt = R("Delta", real=True)
CLAIMS.append(Limit(
    id="shift-only-large-g-limit",
    title=r"Shift-only: as $G$ grows the reward preference tends to $\mathbb{E}_{\pi_\theta}[r] - "
          r"\mathbb{E}_{\pi_{\theta_{\mathrm{old}}}}[r]$",
    ref=Ref("3", note="shift-only normalisation, limit of large group size"),
    expr=(1 - 1 / GG) * dlt, var=GG, point=sp.oo, direction="-", value=dlt,
    domain={dlt: REAL},
    uses=("shift-only-reward-pref-g2", "shift-only-reward-pref-g3", "shift-only-reward-pref-g4"),
    note="Delta = E_pi r - E_old r.  The identity is exact for every finite G (no law of large numbers "
         "is needed, unlike with scale normalisation), so the limit is of the factor (1 - 1/G) only.",
))

# stationarity with the GRPO penalty (Eq. (11) with the shift-only P_G): deterministic rewards
# suffice (P_G depends on the rewards only through r(o | q)).
ra_, rb_, rc_ = (NOTATION.symbol(f"r_{o}", rf"r({o} \mid q)", real=True) for o in OUT)
_RD = {"a": ra_, "b": rb_, "c": rc_}
RD_DOMAIN = {ra_: REAL, rb_: REAL, rc_: REAL}


def _shift_scores(y: dict, G):
    ey = sp.Add(*[y[o] * _RD[o] for o in OUT])
    return {o: (1 - sp.Rational(1, G)) * (_RD[o] - ey) for o in OUT}


G = 3
_u3 = _shift_scores(X, G)
_Ex_u = sp.Add(*[X[o] * _u3[o] for o in OUT])
_REF11 = {o: (1 - (_u3[o] - _Ex_u) / beta) * X[o] for o in OUT}
_OBJ11 = name(NOTATION, sp.Add(*[PI_FREE[o] * _shift_scores(OLD_FREE, G)[o] for o in OUT])
              - beta * kl0(PI_FREE, _REF11, OLD_FREE),
              rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{P_G(3, 'o', _OLD)}] - \beta\, " + _KL0)
CLAIMS.append(Stationary(
    id="shift-only-grpo-penalty-stationary-g3",
    narrowed=_fixed_g(3, "deterministic rewards"),
    title=r"Shift-only with the GRPO penalty, $G = 3$: $(1 - (1 - 1/G)(r(o \mid q) - "
          r"\mathbb{E}_{\pi_\theta}[r])/\beta)\, \pi_\theta(o \mid q) = \pi_{\mathrm{ref}}(o \mid "
          "q)$ gives a stationary policy",
    ref=Ref("3", eq="11", note="shift-only normalisation: Eq. (11) with the shift-only P_G "
                               "(implied, not displayed; compare Eq. (13))"),
    objective=_OBJ11,
    wrt=(p1, p2, p3), at={p1: x1, p2: x2, p3: 1 - x1 - x2}, frozen=ON_POLICY, simplex=True,
    domain={**X_DOMAIN, **RD_DOMAIN, beta: POS},
    display=r"\nabla_{\pi_\theta} \Big(" + rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{P_G(3, 'o', _OLD)}] - \beta\, " + _KL0
    + r"\Big)\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta = x} \text{ has equal components}, \quad "
    r"\pi_{\mathrm{ref}}(o \mid q) = \left(1 - \frac{(1 - \frac{1}{3})(r(o \mid q) - \mathbb{E}_{o' \sim x}[r(o' \mid q)])}"
    r"{\beta}\right) x(o), \quad \mathcal{P}_3 \text{ with } A_i = r_i - \operatorname{mean}(r_1, r_2, r_3)",
    where=X_WHERE + tuple(1 - (_u3[o] - _Ex_u) / beta > 0 for o in OUT),
    uses=("shift-only-pg-g3",),
    note="x interior, ref defined from x by the condition (positive by the where relations; it sums to "
         "one automatically).  Compared with Eq. (13) the std sigma(pi) disappears and beta becomes "
         "beta/(1 - 1/G): an RLHF-like reward preference with a reverse-KL-like penalty.",
))

# combination: direct KL + shift-only -> RLHF Gibbs policy with beta G/(G - 1)
def _kdet(o):
    return Categorical([_RD[o]], [1])


# G = 2 with stochastic rewards; G = 3 with deterministic ones (P_G depends on the reward laws only
# through r(o | q), shift-only-pg-g3), which keeps the G = 3 claim fast
_COMB = {2: (_kshift, lambda o: _RBAR[o], {**T_DOMAIN, **RW_DOMAIN}, _SHIFT_NOTE),
         3: (_kdet, lambda o: _RD[o], RD_DOMAIN, "Three outputs with deterministic rewards r_a, r_b, r_c.")}
for G in (2, 3):
    _kern, _rmean, _rdom, _rnote = _COMB[G]
    _sc = (lambda y, G=G, _kern=_kern: {o: expected_pref_shift(o, Categorical(OUT, [y[o] for o in OUT]),
                                                               _kern, G) for o in OUT})
    _u_sh = {o: (1 - sp.Rational(1, G)) * _rmean(o) for o in OUT}
    _ref_sh = reference_making_stationary(X, _u_sh, beta)
    _g = gibbs(_ref_sh, _u_sh, beta)
    name(NOTATION, j_direct({"a": p1, "b": p2, "c": 1 - p1 - p2}, OLD_FREE, _ref_sh, _sc), _j_text(G))
    for _o in OUT:
        name(NOTATION, _g[_o], rf"\frac{{1}}{{Z_q}} \pi_{{\mathrm{{ref}}}}({_o} \mid q)\, e^{{{_factor(G)} r({_o} \mid q)/\beta}}")
    CLAIMS.append(Maximiser(
        id=f"shift-only-direct-kl-maximiser-g{G}",
        narrowed=_fixed_g(G),
        title=f"Both extensions, $G = {G}$: the stationary policy is "
              r"$\pi_{\mathrm{ref}} e^{(1 - 1/G) r/\beta}/Z_q$, the maximiser of its own objective",
        ref=Ref("3", note="last sentence: combining the two extensions gives RLHF-like aggregation"),
        objective=j_direct({"a": p1, "b": p2, "c": 1 - p1 - p2}, OLD_FREE, _ref_sh, _sc),
        wrt=(p1, p2), at={p1: _g["a"], p2: _g["b"]},
        over=PI_OVER, over_where=PI_OVER_WHERE,
        frozen={o1: _g["a"], o2: _g["b"], o3: _g["c"]}, scope="global",
        domain={**X_DOMAIN, **_rdom, beta: POS}, where=X_WHERE,
        display=r"x(o) = \frac{1}{Z_q} \pi_{\mathrm{ref}}(o \mid q)\, e^{" + _factor(G) + r" r(o \mid q)/\beta} "
        r"\text{ globally maximises } " + _j_text(G) + r" \text{ with } \pi_{\theta_{\mathrm{old}}} = x, \quad "
        r"\pi_{\mathrm{ref}}(o \mid q) = \frac{1}{N} x(o)\, e^{-" + _factor(G) + r" r(o \mid q)/\beta}",
        uses=(f"shift-only-reward-pref-g{G}", "direct-kl-exp-form-maximiser-g2"),
        harmless_mutants={"objective:swap-*": "the reference policy is made from the Gibbs point x and the rewards "
                                              "(see the note), so x is the maximiser whatever the rewards are: "
                                              "two reward parameters swapped throughout the objective change the "
                                              "problem and its reference together, and x stays its maximiser (a "
                                              "different but true statement)"},
        note=_rnote + "  The reference policy is parametrised by the Gibbs point x it produces "
             "(ref = x e^{-(1-1/G) r/beta}/N, a bijection of open simplices) so that the point, computed "
             "by the Gibbs formula, stays within working precision for extreme rewards.  The exponent (1 - 1/G)(r(o) - E_pi r)/beta of the exp form loses its "
             "pi-dependent part in Z_q, so the fixed point is explicit.",
    ))
CLAIMS.append(Identity(
    id="shift-only-direct-kl-is-rlhf",
    narrowed=THREE_OUTPUTS,
    title=r"Both extensions: the aggregation is exactly RLHF's Gibbs policy (4) with $\beta G/(G - "
          "1)$",
    ref=Ref("3", eq="4", note="last sentence of Section 3 ('similar to the RLHF alignment objective')"),
    lhs=name(NOTATION, gibbs(REF_N, {o: (1 - 1 / GG) * _RD[o] for o in OUT}, beta)["a"],
             r"\frac{1}{Z_q} \pi_{\mathrm{ref}}(a \mid q)\, e^{(1 - \frac{1}{G}) r(a \mid q)/\beta}"),
    rhs=name(NOTATION, gibbs(REF_N, _RD, beta * GG / (GG - 1))["a"],
             r"\frac{1}{Z'_q} \pi_{\mathrm{ref}}(a \mid q)\, e^{r(a \mid q)/(\beta G/(G - 1))}"),
    domain={**REF_DOMAIN, **RD_DOMAIN, beta: POS, GG: sp.Range(2, sp.oo)}, where=REF_WHERE,
    uses=("shift-only-direct-kl-maximiser-g2", "shift-only-direct-kl-maximiser-g3"),
    note="Symbolic G >= 2; r(o) the expected rewards; output a (b, c symmetric).  'Similar' is exact up "
         "to the effective regularisation beta G/(G - 1) -> beta as G -> oo.",
))

# ============================================================================ not mechanically checkable
UNCHECKABLE = [
    {"id": "direct-kl-reverse-kl-recap", "ref": Ref("3", note="direct KL penalty, first sentence"),
     "statement": "As far as stationary policies are concerned, the GRPO penalty is essentially the reverse KL.",
     "reason": "A recap of Section 2.2; verified there (grpo-penalty-shares-stationary-points-with-reverse-kl, "
               "kl0-on-policy-gradient-is-reverse-kl-plus-one)."},
    {"id": "direct-kl-importance-sampling-remark", "ref": Ref("3", note="direct KL penalty"),
     "statement": "The conversion is 'the standard importance sampling trick for Monte Carlo estimation'.",
     "reason": "A remark on method; the resulting identity is checked (direct-kl-penalty-equals-kl-g2/g3)."},
    {"id": "direct-kl-large-g-duplicated-clause", "ref": Ref("3", note="sentence on the limit of a large group size"),
     "statement": "'If beta is sufficiently large, there exist two values ... if beta is sufficiently large.'",
     "reason": "Wording slip (the condition is stated twice); the mathematics is checked by "
               "direct-kl-large-g-two-stationary-lower/upper.",
     "finding": "wording slip"},
    {"id": "shift-only-rlhf-like-remark", "ref": Ref("3", note="shift-only normalisation"),
     "statement": "The reward preference is similar to RLHF's, with the reward model replaced by a sample "
                  "mean estimate.",
     "reason": "An interpretation; its exact content (the pi-dependent part is (1 - 1/G) E_pi r) is checked by "
               "shift-only-reward-pref-g2/3/4."},
    {"id": "b2-kl-notation-slip", "ref": Ref("Appendix B.2", note="groups of size two, objective display"),
     "statement": "'where K(p || p') denotes the KL divergence between two Bernoulli distributions'; the display "
                  "writes KL(pi(a) || pi_ref(a))) with an unmatched parenthesis.",
     "reason": "Notation slips (K vs KL, an extra ')'); the objective itself is checked by b2-g2-objective.",
     "finding": "notation slip"},
    {"id": "b2-large-g-readily-verified", "ref": Ref("Appendix B.2", note="last paragraph"),
     "statement": "Appendix B.2 stops after the properties of h; the step from them to the Section 3 sentence "
                  "(optimum 1 for small beta, two maximisers for large beta) is left to the reader, and "
                  "'the objective' is not specified.",
     "reason": "An omitted argument; both readings (fixed-point and potential Phi) are encoded and checked "
               "by the direct-kl-large-g-* claims."},
]


# =============================================================================================
# Figure 3: the direct-KL closed form (lines) against numerical roots of the Appendix B.2
# stationarity condition (circles), found by the engine, not by evaluating the closed form.
# Parameter values ours (the paper's legend is not in its text); gamma = 1.
from verify_claims.figures import Curve, Figure  # noqa: E402

_FIG_RATIOS = (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2, 10)
_fx, _fref = R("pi_a"), R("ref_a")

FIGURES = [
    Figure(id="fig-3-direct-kl", title="Figure 3: direct KL penalty, binary question, groups of two",
           ref=Ref("3", None, "Figure 3"),
           caption=r"$\pi_\theta(a \mid q)$ against $\pi_{\mathrm{ref}}(a \mid q)$ for answer $a$ with "
                   r"$r(a \mid q) > r(b \mid q)$, groups of size two, with the direct KL divergence penalty, at "
                   r"several $\beta/\gamma_{a,b}$: the closed form $e^{\gamma_{a,b}/(2\beta)}\, "
                   r"\pi_{\mathrm{ref}}(a \mid q) / Z_q$ (lines) and numerical roots of the stationarity "
                   r"condition of Appendix B.2 (circles). Unlike Figure 1, continuous at $\pi_{\mathrm{ref}} = 0$.",
           x=_fref, y=_fx, closed_form=closed_form_g2(gamma, beta, _fref),
           stationarity=gamma - beta * (sp.log(_fx / _fref) - sp.log((1 - _fx) / (1 - _fref))),
           curves=[Curve({beta: r, gamma: 1}, label=rf"$\beta/\gamma = {sp.latex(r)}$") for r in _FIG_RATIOS],
           x_label=r"$\pi_{\mathrm{ref}}(a\,|\,q)$", y_label=r"$\pi_\theta(a\,|\,q)$",
           uses=("direct-kl-g2-closed-form", "b2-g2-closed-form-root")),
]
