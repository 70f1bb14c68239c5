"""Section 2.3 (up to 2.3.1) and Appendix A: the alignment objective and stationary policies.

Setting (per context q, which is dropped from the notation).  Outputs a, b, c; rewards
are stochastic given the output, as in Section 2.1: each output has a finite reward law
on shared, ordered reward levels (lo < lo + g_1 < lo + g_1 + g_2).  pi = pi_theta(.|q),
old = pi_theta_old(.|q), ref = pi_ref(.|q).  The per-context objective is

    J(pi | pi_old) = E_{o ~ pi}[P_G(o | pi_old)] - beta KL_0(pi || ref; pi_old),

with P_G the expected group-relative preference of Section 2.1 (built exactly from the
definition by the Section 2.1 helper) and KL_0 the penalty of Section 2.2.  A stationary
policy (Section 1.3) maximises J(. | pi_old) when pi_old is set to it; the KKT conditions
of Appendix A are taken, as in the paper, by differentiating in pi(o) with pi_old frozen
and then setting pi_old = pi.

Notation in the claims: y_o are the free probabilities pi(o) being optimised, pi_a, pi_b
(pi_c = 1 - pi_a - pi_b) the candidate stationary policy, u_o stands for P_G(o | pi_old)
(which does not depend on pi) in the generic KKT derivation, lambda and gamma_o are the
multipliers of the equality and non-negativity constraints.  Finite instances: three
outputs with G = 2 (two reward levels) and G = 3 (three reward levels); symbolic G is
not supported by the exact expectations.

Findings (see the claims): (11) is stated for every maximum, but the Appendix A step
"using sum_o pi(o) = 1" needs pi_ref to put all its mass on the support of pi; a point
mass can be a stationary policy (a global maximiser) that violates (11).  The bound
P_G < E[P_G] + beta survives; the sentence reading it as "within beta" is one-sided only;
"more concentrated implies smaller sigma" holds for two outputs and in the limit, not in
general.
"""

import sympy as sp

from verify_claims import (Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Narrowed, Notation, Ref, Root,
                           Stationary, Step, not_in_general, refuted)
from verify_claims.expectations import Categorical

from _notation import P_G, name

from _s2_helpers import (kl0, penalty_def, pg_expected_binary, pg_reward_one,
                         point_mass, reward_preference_def)
from _s23_helpers import (expected, g, lagrangian, mixture, objective, objective_literal,
                          ordered_prob, pg_vector, ref_from_eq11, reward_std)

R = sp.Symbol
UNIT = sp.Interval(0, 1)
OPEN_UNIT = sp.Interval.open(0, 1)
LOPEN_UNIT = sp.Interval.Lopen(0, 1)
REAL = sp.Interval(-sp.oo, sp.oo)
POS = sp.Interval.open(0, sp.oo)
NONNEG = sp.Interval(0, sp.oo)
OUT = ("a", "b", "c")

# ----------------------------------------------------------------------------- symbols
# the paper's notation: pi_theta is the policy optimised, pi_theta* the candidate stationary
# policy (Section 1.3), pi_theta_old the sampling policy, frozen while differentiating
NOTATION = Notation()
_THETA, _STAR, _OLD = r"\pi_\theta", r"\pi_{\theta^*}", r"\pi_{\theta_{\mathrm{old}}}"
beta = NOTATION.symbol("beta", r"\beta")
lam = NOTATION.symbol("lambda", r"\lambda")
ya, yb, yc = (NOTATION.symbol(f"y_{o}", rf"{_THETA}({o} \mid q)") for o in OUT)   # free while differentiating
Y = dict(zip(OUT, (ya, yb, yc)))
oa, ob, oc = (NOTATION.symbol(f"old_{o}", rf"{_OLD}({o} \mid q)") for o in OUT)   # frozen while differentiating
OLDF = dict(zip(OUT, (oa, ob, oc)))
pa, pb = (NOTATION.symbol(f"pi_{o}", rf"{_STAR}({o} \mid q)") for o in "ab")      # the candidate stationary policy
STAR = {"a": pa, "b": pb, "c": 1 - pa - pb}
STAR_LAW = Categorical(OUT, [STAR[o] for o in OUT])
AT_STAR = {ya: pa, yb: pb, yc: 1 - pa - pb}
ON_STAR = {oa: pa, ob: pb, oc: 1 - pa - pb}            # pi_old := the candidate
STAR_DOMAIN = {pa: OPEN_UNIT, pb: OPEN_UNIT}
STAR_WHERE = (pa + pb < 1,)
fa, fb, fc = (NOTATION.symbol(f"ref_{o}", rf"\pi_{{\mathrm{{ref}}}}({o} \mid q)") for o in OUT)
# u_o stands for P_G(o | pi_old, q), a constant while differentiating in pi_theta
ua, ub, uc = (NOTATION.symbol(f"u_{o}", P_G("G", o, _OLD), real=True) for o in OUT)
U = dict(zip(OUT, (ua, ub, uc)))
ga, gb, gc = (NOTATION.symbol(f"gamma_{o}", rf"\gamma_{o}") for o in OUT)
GAM = dict(zip(OUT, (ga, gb, gc)))

# reward levels and stochastic reward laws
lo = NOTATION.symbol("r_lo", r"r_{\mathrm{lo}}", real=True)
g1, g2 = R("g_1", positive=True), R("g_2", positive=True)
LEVELS2 = [lo, lo + g1]
LEVELS3 = [lo, lo + g1, lo + g1 + g2]
ta, tb, tc = R("t_a"), R("t_b"), R("t_c")
sa, sb, sc = R("s_a"), R("s_b"), R("s_c")


def _stick3(t, s):
    return [t, (1 - t) * s, (1 - t) * (1 - s)]


# G = 2: output o gets the high level w.p. t_o (two levels give wins, losses and ties)
KERNEL2 = {o: Categorical(LEVELS2, [1 - t, t]) for o, t in zip(OUT, (ta, tb, tc))}
KERNEL2_DOMAIN = {ta: UNIT, tb: UNIT, tc: UNIT, lo: REAL, g1: POS}
# G = 3 (and (12)): three levels, stick-breaking law per output (covers the whole simplex)
KERNEL3 = {o: Categorical(LEVELS3, _stick3(t, s)) for o, t, s in zip(OUT, (ta, tb, tc), (sa, sb, sc))}
KERNEL3_DOMAIN = {ta: UNIT, tb: UNIT, tc: UNIT, sa: UNIT, sb: UNIT, sc: UNIT, lo: REAL, g1: POS,
                  g2: POS}

PG2_STAR = pg_vector(STAR_LAW, KERNEL2.__getitem__, 2)   # P_2(o | pi*) (on-policy)
# G = 3: output a has a stochastic reward on three levels, b and c deterministic on the two upper
# levels (all three outputs stochastic makes the expressions ~70x larger and the check ~50 s)
KERNEL3G = {"a": KERNEL3["a"], "b": point_mass(LEVELS3[1]), "c": point_mass(LEVELS3[2])}
KERNEL3G_DOMAIN = {ta: UNIT, sa: UNIT, lo: REAL, g1: POS, g2: POS}
PG3_STAR = pg_vector(STAR_LAW, KERNEL3G.__getitem__, 3)  # P_3(o | pi*)
PG2_OLD = pg_vector(Categorical(OUT, [OLDF[o] for o in OUT]), KERNEL2.__getitem__, 2)

REF2 = ref_from_eq11(PG2_STAR, STAR, beta)    # pi_ref for which pi* satisfies (11), G = 2
REF3 = ref_from_eq11(PG3_STAR, STAR, beta)
REF2_POS = tuple(REF2[o] > 0 for o in OUT)    # pi_ref must be a positive probability vector
REF3_POS = tuple(REF3[o] > 0 for o in OUT)


def _e(under, G, against):
    """E_{o' ~ under}[P_G(o' | against, q)]."""
    return rf"\mathbb{{E}}_{{o' \sim {under}}}[" + P_G(G, "o'", against) + "]"


def _eq11(G, o, pi=_STAR):
    """The left side of Eq. (11) at output o: (1 - (P_G(o | pi) - E_{o' ~ pi}[P_G(o' | pi)])/beta) pi(o)."""
    return rf"\left(1 - \frac{{{P_G(G, o, pi)} - {_e(pi, G, pi)}}}{{\beta}}\right) {pi}({o} \mid q)"


# P_G(o | pi_theta*) and P_G(o | pi_old) (Section 2.1), their means, and pi_ref solved from (11)
_PG3_OLD = pg_vector(Categorical(OUT, [OLDF[o] for o in OUT]), KERNEL3G.__getitem__, 3)
for _G, _PGS, _PGO, _REF in ((2, PG2_STAR, PG2_OLD, REF2), (3, PG3_STAR, _PG3_OLD, REF3)):
    name(NOTATION, expected(STAR, _PGS), _e(_STAR, _G, _STAR))
    for _o in OUT:
        name(NOTATION, _PGS[_o], P_G(_G, _o, _STAR))
        name(NOTATION, _PGO[_o], P_G(_G, _o, _OLD))
        name(NOTATION, _REF[_o], _eq11(_G, _o))
# J_GRPO(pi_theta(. | q) | q) as Appendix A differentiates it, and as Section 2.3 displays it
_KL0 = r"\mathrm{KL}_0(\pi_\theta \,\|\, \pi_{\mathrm{ref}}; \pi_{\theta_{\mathrm{old}}})"


def _j(G, literal=False):
    pen = rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{_KL0}]" if literal else _KL0
    return rf"\mathbb{{E}}_{{o \sim \pi_\theta}}[{P_G(G, 'o', _OLD)}] - \beta\, {pen}"


# the stationarity claims: pi_ref solved from (11) at pi_theta*, pi_old frozen and then set to pi_theta*
_ON_STAR_TEXT = r"\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta = \pi_{\theta^*}}"


def _from_eq11(G):
    return (r",\quad \pi_{\mathrm{ref}}(o \mid q) = " + _eq11(G, "o") + r" \text{ (Eq. (11) at } \pi_{\theta^*})")

CLAIMS = []

# Section 2.3 and Appendix A are stated for any set of outputs, every group size and any
# (stochastic) rewards; the claims below that need the objective take finite instances
_GENERAL = "any set of outputs, every group size $G \\ge 2$, any stochastic rewards (Section 2.3, Appendix A)"
_FINITE_WHY = ("the exact expectations are finite sums only for a fixed group size, finitely many outputs and "
               "reward levels; symbolic G is not supported by them")
_THREE_WHY = "a distribution over a symbolic number of outputs is not a finite set of symbols with a domain"


def _instance(verified, paper=_GENERAL, reason=_FINITE_WHY):
    return Narrowed(paper=paper, verified=verified, reason=reason)


_THREE = _instance("three outputs (the group-relative preferences $u_o$ left symbolic)",
                   paper="any set of outputs (Appendix A)", reason=_THREE_WHY)
_THREE_LARGE = _instance("three outputs with distinct deterministic rewards",
                         paper="any set of outputs and rewards, large groups (Eq. (13) and the paragraph after it)",
                         reason=_THREE_WHY)

# ============================================================ the objective (first displays)
_PI_N = {"a": ya, "b": yb, "c": 1 - ya - yb}
_OLD_N = {"a": oa, "b": ob, "c": 1 - oa - ob}
_OLD_N_LAW = Categorical(OUT, [_OLD_N[o] for o in OUT])
_PG2_OLD_N = pg_vector(_OLD_N_LAW, KERNEL2.__getitem__, 2)
_REFF = dict(zip(OUT, (fa, fb, fc)))

CLAIMS.append(Identity(
    id="s23-objective-reward-pref-minus-penalty-g2",
    narrowed=_instance("$G = 2$, three outputs, stochastic rewards on two levels"),
    title=r"$G = 2$: the per-context GRPO objective is the reward preference minus $\beta$ times the penalty",
    ref=Ref("2.3", note="display of J_GRPO(pi_theta(.|q) | q)"),
    lhs=name(NOTATION, objective_literal(_PI_N, _PG2_OLD_N, _REFF, _OLD_N, beta), _j(2, literal=True)),
    rhs=name(NOTATION, reward_preference_def(_PI_N, _OLD_N_LAW, KERNEL2.__getitem__, 2), r"\mathcal{R}_2(\theta \mid q)")
    - beta * name(NOTATION, penalty_def(_PI_N, _REFF, _OLD_N_LAW, 2), r"\mathcal{D}(\theta \mid q)"),
    domain={ya: OPEN_UNIT, yb: OPEN_UNIT, oa: OPEN_UNIT, ob: OPEN_UNIT, fa: POS, fb: POS, fc: POS,
            beta: POS, **KERNEL2_DOMAIN},
    where=(ya + yb < 1, oa + ob < 1),
    uses=("reward-pref-eq6-g2-stochastic", "penalty-d-equals-kl0-g2"),
    display=_j(2, literal=True) + r" = \mathcal{R}_2(\theta \mid q) - \beta\, \mathcal{D}(\theta \mid q)",
    note="'From our preceding discussion': R_G (definition in Section 2.1) minus beta D (Eq. (7)) "
         "equals the displayed J, where the paper writes the penalty as beta E_{o ~ pi}[KL_0(...)], "
         "an expectation over o of a quantity that does not depend on o; this is KL_0 because pi "
         "sums to one.  Three outputs, stochastic two-level rewards, G = 2, exact sums.  The outer "
         "display J_GRPO(theta) = E_{q ~ mu}[...] is linear in the per-context objective.",
))

_AT_STAR2 = dict(AT_STAR)
_DOM2 = {**STAR_DOMAIN, **KERNEL2_DOMAIN, beta: POS}
_DOM3 = {**STAR_DOMAIN, **KERNEL3G_DOMAIN, beta: POS}

CLAIMS.append(Stationary(
    id="kkt-literal-objective-same-stationary-points",
    narrowed=_instance("$G = 2$, three outputs, stochastic rewards on two levels"),
    title=r"The literal objective (penalty averaged over $o$) has the same stationary policies",
    ref=Ref("2.3", note="display of J_GRPO(pi_theta(.|q) | q), E_{o ~ pi} around KL_0"),
    objective=name(NOTATION, objective_literal(Y, PG2_OLD, REF2, OLDF, beta), _j(2, literal=True)),
    wrt=(ya, yb, yc), at=AT_STAR, frozen=ON_STAR, simplex=True,
    domain=_DOM2, where=STAR_WHERE + REF2_POS,
    display=r"\nabla_{\pi_\theta} \Big(" + _j(2, literal=True) + r"\Big)" + _ON_STAR_TEXT
    + r" \text{ has equal components}" + _from_eq11(2),
    uses=("kkt-eq11-stationary-g2",),
    note="Differentiated with pi(o) free, beta (sum_o pi(o)) KL_0 contributes the extra term "
         "beta KL_0 to every partial derivative; it is the same for every o, so it is absorbed by "
         "lambda and the stationary policies (11) are unchanged.  Checked at the policies that "
         "satisfy (11) (pi_ref solved from (11)), three outputs, G = 2, stochastic rewards.",
))

# ============================================================ Appendix A: KKT derivation
_L = lagrangian(Y, U, _REFF, OLDF, beta, lam, GAM)
_GRAD_A = U["a"] - beta * (-oa * fa / ya ** 2 + oa / ya)      # paper's bracket, output a
_ALL_POS = {ya: POS, yb: POS, yc: POS, oa: POS, ob: POS, oc: POS, fa: POS, fb: POS, fc: POS,
            beta: POS, lam: REAL, ga: NONNEG, gb: NONNEG, gc: NONNEG, ua: REAL, ub: REAL, uc: REAL}

CLAIMS.append(Identity(
    id="kkt-lagrangian-gradient",
    narrowed=_THREE,
    title=r"Partial derivative of the Lagrangian: $\mathcal{P}_G(o \mid \pi_{\theta_{\mathrm{old}}}, q)$ minus $\beta$ times (8), "
          r"minus $\lambda$, plus $\gamma_o$",
    ref=Ref("Appendix A", note="stationarity condition and the display after it"),
    lhs=sp.diff(_L, ya),
    rhs=_GRAD_A - lam + ga,
    domain=_ALL_POS,
    display=r"\frac{\partial L}{\partial \pi_\theta(a \mid q)} = " + P_G("G", "a", _OLD) + r" - \beta \left(-"
    r"\pi_{\theta_{\mathrm{old}}}(a \mid q) \frac{\pi_{\mathrm{ref}}(a \mid q)}{\pi_\theta(a \mid q)^2} + "
    r"\pi_{\theta_{\mathrm{old}}}(a \mid q) \frac{1}{\pi_\theta(a \mid q)}\right) - \lambda + \gamma_a, \quad L = "
    r"\mathcal{J}_{\mathrm{GRPO}} - \lambda \Big(\sum_o \pi_\theta(o \mid q) - 1\Big) + \sum_o \gamma_o \pi_\theta(o \mid q)",
    uses=("kl0-gradient-eq8",),
    note="L = J - lambda (sum_o pi(o) - 1) + sum_o gamma_o pi(o), with J = sum_o pi(o) u_o - beta "
         "KL_0(pi || ref; pi_old); u_o = P_G(o | pi_old) does not depend on pi (only on pi_old), "
         "so it is a constant here.  Output a; b and c are symmetric.",
))

CLAIMS.append(Root(
    id="kkt-complementary-slackness-interior",
    title="Complementary slackness with a positive probability forces the multiplier to zero",
    ref=Ref("Appendix A", note="non-negativity and complementary slackness; 'either pi(o) = 0 or "
                               "pi(o) > 0 and ...'"),
    equation=sp.Eq(ga * ya, 0), var=ga, value=0, interval=NONNEG, unique=True,
    domain={ya: LOPEN_UNIT},
    note="The case split of Appendix A: gamma_o pi(o) = 0 with gamma_o >= 0 (the interval) and "
         "pi(o) in (0, 1] has the single solution gamma_o = 0.  (Stated as a Root rather than a "
         "two-line chain because the chain's numeric converse check is fooled by pi(o) ~ 1e-125, "
         "where gamma_o pi(o) is below the absolute tolerance.)",
))

CLAIMS.append(Chain(
    id="kkt-appendix-a-stationarity-chain",
    paper_domain={ga: "Appendix A: at an output with pi(o) > 0 complementary slackness gives gamma_o = 0 "
                      "(kkt-complementary-slackness-interior)"},
    title="Appendix A, first step: stationarity plus complementary slackness give the displayed condition",
    ref=Ref("Appendix A", note="KKT conditions to the first display"),
    steps=[
        Step(sp.Eq(_GRAD_A - lam + ga, 0),
             because="stationarity: dJ/dpi(o) - lambda + gamma_o = 0 (kkt-lagrangian-gradient)"),
        Step(sp.Eq(_GRAD_A - lam, 0),
             because="gamma_o >= 0 and gamma_o pi(o) = 0 with pi(o) > 0 give gamma_o = 0"),
    ],
    domain={ya: OPEN_UNIT, oa: OPEN_UNIT, fa: OPEN_UNIT, beta: POS, lam: REAL, ua: REAL,
            ga: sp.FiniteSet(0)},
    uses=("kkt-lagrangian-gradient", "kkt-complementary-slackness-interior"),
    note="The condition of the step is the domain gamma_a in {0}: non-negativity and complementary "
         "slackness with pi(a) in (0, 1) leave only gamma_a = 0 (kkt-complementary-slackness-interior; "
         "the engine cannot sample the relation gamma_a pi(a) = 0 directly).  Output a of a "
         "categorical distribution; u_a = P_G(a | pi_old).  The paper writes 'gamma_0 >= 0' "
         "(a typo for gamma_o >= 0, every o).",
))

_ONP = sp.Eq(ua - beta * (-ya * fa / ya ** 2 + ya / ya) - lam, 0)
CLAIMS.append(Chain(
    id="kkt-appendix-a-on-policy-chain",
    title=r"Appendix A, second step: at $\pi_{\theta_{\mathrm{old}}} = \pi_\theta$ the condition becomes "
          r"$\pi_{\mathrm{ref}} = (1 - (\mathcal{P}_G - \lambda)/\beta)\, \pi_\theta$",
    ref=Ref("Appendix A", note="display 'Under the condition pi_theta = pi_theta_old'"),
    steps=[
        Step(_ONP, because="the first display with pi_old(o) := pi(o) after differentiating"),
        Step(sp.Eq(fa, (1 - (ua - lam) / beta) * ya), relation="equivalent", multiply_by=ya / beta,
             because="multiply by pi(o)/beta > 0 and rearrange"),
    ],
    domain={ya: OPEN_UNIT, fa: OPEN_UNIT, beta: POS, lam: REAL, ua: REAL},
    uses=("kkt-appendix-a-stationarity-chain",),
    note="u_a = P_G(a | pi) once pi_old = pi.  pi(a) > 0 and beta > 0 make the step an equivalence.",
))

_FORM = {o: (1 - (U[o] - lam) / beta) * Y[o] for o in OUT}
_YN = {"a": ya, "b": yb, "c": 1 - ya - yb}
_FN = {"a": fa, "b": fb, "c": 1 - fa - fb}
_FORM_N = {o: (1 - (U[o] - lam) / beta) * _YN[o] for o in OUT}
_EU = expected(_YN, U)
_NORM_DOMAIN = {ya: OPEN_UNIT, yb: OPEN_UNIT, fa: OPEN_UNIT, fb: OPEN_UNIT, beta: POS, lam: REAL,
                ua: REAL, ub: REAL, uc: REAL}
_NORM_WHERE = (ya + yb < 1, fa + fb < 1)

CLAIMS.append(Chain(
    id="kkt-multiplier-from-normalisation",
    narrowed=_THREE,
    title=r"Appendix A, last step: summing over outputs fixes $\lambda$ as the expected preference",
    ref=Ref("Appendix A", eq="11", note="'By using the constraint sum_o pi(o) = 1'"),
    steps=[
        Step(sp.Eq(sp.Add(*_FN.values()), sp.Add(*_FORM_N.values())),
             because="sum the previous display over all outputs o"),
        Step(sp.Eq(1, 1 - (_EU - lam) / beta),
             because="pi and pi_ref both sum to one (pi(o) > 0 for every o)"),
        Step(sp.Eq(lam / beta, _EU / beta), relation="equivalent", multiply_by=-1,
             because="rearrange: lambda/beta = E_{o ~ pi}[P_G(o | pi)]/beta, so lambda = E_pi[P_G]"),
    ],
    domain=_NORM_DOMAIN, where=_NORM_WHERE,
    display=r"\sum_o \pi_{\mathrm{ref}}(o \mid q) = \sum_o \left(1 - \frac{" + P_G("G", "o", _OLD) + r" - \lambda}{\beta}"
    r"\right) \pi_\theta(o \mid q) \\ &\iff 1 = 1 - \frac{\mathbb{E}_{o \sim \pi_\theta}[" + P_G("G", "o", _OLD)
    + r"] - \lambda}{\beta} \\ &\iff \frac{\lambda}{\beta} = \frac{\mathbb{E}_{o \sim \pi_\theta}[" + P_G("G", "o", _OLD)
    + r"]}{\beta}",
    uses=("kkt-appendix-a-on-policy-chain",),
    note="Full support: every output has pi(o) > 0, so the previous display holds at every o and "
         "the sum of pi_ref over them is 1.  With lambda = E_pi[P_G], the previous display is (11). "
         "Three outputs.  (When pi has smaller support see kkt-multiplier-partial-support.)  The last "
         "line is kept divided by beta: multiplying an equation by a beta near 0 defeats the "
         "engine's absolute-tolerance converse check; kkt-multiplier-unique states lambda itself.",
))

CLAIMS.append(Root(
    id="kkt-multiplier-unique",
    narrowed=_THREE,
    title="The normalisation determines the multiplier uniquely",
    ref=Ref("Appendix A", eq="11", note="'By using the constraint sum_o pi(o) = 1'"),
    equation=sp.Eq(sp.Add(*_FN.values()), sp.Add(*_FORM_N.values())),
    var=lam, value=_EU, interval=REAL, unique=True,
    domain={k: v for k, v in _NORM_DOMAIN.items() if k != lam}, where=_NORM_WHERE,
    uses=("kkt-multiplier-from-normalisation",),
    note="The summed condition is linear in lambda with slope sum_o pi(o)/beta = 1/beta != 0.",
))

CLAIMS.append(Stationary(
    id="kkt-eq11-stationary-g2",
    narrowed=_instance("$G = 2$, three outputs, stochastic rewards on two levels"),
    title="$G = 2$, three outputs, stochastic rewards: a policy satisfying (11) is a KKT point",
    ref=Ref("2.3", eq="11"),
    objective=name(NOTATION, objective(Y, PG2_OLD, REF2, OLDF, beta), _j(2)),
    wrt=(ya, yb, yc), at=AT_STAR, frozen=ON_STAR, simplex=True,
    domain=_DOM2, where=STAR_WHERE + REF2_POS,
    display=r"\nabla_{\pi_\theta} \Big(" + _j(2) + r"\Big)" + _ON_STAR_TEXT + r" \text{ has equal components}"
    + _from_eq11(2),
    uses=("kkt-multiplier-unique",),
    note="For every interior pi* and beta, pi_ref is solved from (11) (any pi_ref making pi* satisfy "
         "(11) is of this form); the partial derivatives of J(. | pi_old) with pi_old frozen and then "
         "set to pi* are all equal (= E_pi*[P_2]): the Lagrange condition with gamma = 0.  P_2 is "
         "built from the Section 2.1 definition with stochastic two-level rewards.  Together with "
         "the Appendix A chain (KKT => (11)) this is (11) <=> KKT at interior policies.",
))

CLAIMS.append(Stationary(
    id="kkt-eq11-stationary-g3",
    narrowed=_instance("$G = 3$, three outputs, stochastic rewards on three levels"),
    title="$G = 3$, three outputs, stochastic three-level rewards: a policy satisfying (11) is a KKT point",
    ref=Ref("2.3", eq="11"),
    objective=name(NOTATION, objective(Y, pg_vector(Categorical(OUT, [OLDF[o] for o in OUT]), KERNEL3G.__getitem__, 3),
                                       REF3, OLDF, beta), _j(3)),
    wrt=(ya, yb, yc), at=AT_STAR, frozen=ON_STAR, simplex=True,
    domain=_DOM3, where=STAR_WHERE + REF3_POS,
    display=r"\nabla_{\pi_\theta} \Big(" + _j(3) + r"\Big)" + _ON_STAR_TEXT + r" \text{ has equal components}"
    + _from_eq11(3),
    uses=("kkt-multiplier-unique",),
    note="As kkt-eq11-stationary-g2 with G = 3: output a has a stochastic reward on three levels, "
         "b and c deterministic rewards on the upper two (so ties, wins and losses all occur and P_3 "
         "depends on the gap ratio g_1 : g_2; with two levels P_3 would be a multiple of P_2).",
))

CLAIMS.append(Identity(
    id="kkt-eq11-reference-normalised-g2",
    narrowed=_instance("$G = 2$, three outputs, stochastic rewards on two levels"),
    title="The reference policy solved from (11) sums to one",
    ref=Ref("2.3", eq="11"),
    lhs=sp.Add(*REF2.values()), rhs=1,
    domain=_DOM2, where=STAR_WHERE,
    display=r"\sum_o \pi_{\mathrm{ref}}(o \mid q) = 1" + _from_eq11(2) + r",\ G = 2",
    note="Consistency of (11): sum_o (1 - (P(o) - E P)/beta) pi(o) = 1 - 0.  G = 2, three outputs.",
))

for _G, _PG, _KD in ((2, PG2_STAR, KERNEL2_DOMAIN), (3, PG3_STAR, KERNEL3G_DOMAIN)):
    CLAIMS.append(Identity(
        id=f"pg-on-policy-mean-zero-g{_G}",
        narrowed=_instance(f"$G = {_G}$, three outputs, stochastic rewards on {_G} levels"),
        title=f"$G = {_G}$: on-policy, the expected group-relative preference of a random output is zero",
        ref=Ref("2.3", eq="11", note="the term E_{o' ~ pi}[P_G(o' | pi)]"),
        lhs=expected(STAR, _PG), rhs=0,
        domain={**STAR_DOMAIN, **_KD}, where=STAR_WHERE,
        note="E_{o ~ pi}[P_G(o | pi)] = E[A_1] over a group drawn from pi = (1/G) E[sum_i A_i] = 0. "
             "The term the paper subtracts in (11) is therefore 0 for every G (an observation, not "
             "an error).  Three outputs, stochastic rewards.",
    ))

# ---- boundary stationary policies: (11) fails when pi_ref has mass outside supp(pi)
x = NOTATION.symbol("x", rf"{_THETA}(a \mid q)")   # pi(a) over the two outputs a, b
delta = R("delta", positive=True)
rb = NOTATION.symbol("r_b", r"r(b \mid q)", real=True)
_DET2 = {"a": point_mass(rb + delta), "b": point_mass(rb)}   # deterministic, r(a) > r(b)
_POINT = Categorical(["a", "b"], [1, 0])                      # pi_old = pi* = delta_a
_PG_POINT = pg_vector(_POINT, _DET2.__getitem__, 2)           # P_2(a | delta_a) = 0, P_2(b | .) = -1
_J_POINT = x * _PG_POINT["a"] + (1 - x) * _PG_POINT["b"] - beta * (fa / x - sp.log(fa / x) - 1)
_POINT_DOMAIN = {fa: OPEN_UNIT, beta: POS, rb: REAL, delta: POS}
_POINT_WHERE = (beta < 4 * fa,)

CLAIMS.append(Maximiser(
    id="stationary-boundary-point-mass-maximiser",
    title="A point mass on the better answer can be a stationary policy (global maximiser)",
    ref=Ref("2.3", note="'for each maximum'; stationary policy as defined in Section 1.3"),
    objective=_J_POINT, wrt=(x,), at={x: 1}, over={x: LOPEN_UNIT},
    domain=_POINT_DOMAIN, where=_POINT_WHERE,
    note="Two outputs, G = 2, deterministic rewards r(a) > r(b), pi_old = delta_a.  Then "
         "P_2(a | delta_a) = 0, P_2(b | delta_a) = -1 and KL_0(pi || ref; delta_a) = ref_a/x - "
         "log(ref_a/x) - 1 (outputs outside supp(pi_old) do not enter the expectation).  J'(x) = "
         "(x^2 - beta x + beta ref_a)/x^2 > 0 when beta < 4 ref_a, so x = 1 is the global maximiser "
         "of J(. | pi_old = delta_a): delta_a is a stationary policy.  pi_ref(b) = 1 - ref_a > 0, "
         "and Section 1.3's assumption (supp pi in supp pi_ref) holds.",
))

_EP_POINT = _PG_POINT["a"]  # E_{o ~ delta_a}[P_2(o | delta_a)]
CLAIMS.append(Identity(
    id="kkt-eq11-at-boundary-maximiser",
    title=r"(11) as stated, at the point-mass stationary policy: $(1 - (\mathcal{P}_G(a) - \mathbb{E}[\mathcal{P}_G])/\beta)\, "
          r"\pi_\theta(a \mid q) = \pi_{\mathrm{ref}}(a \mid q)$",
    ref=Ref("2.3", eq="11", note="'for each maximum, either pi(o) = 0 or (11)'"),
    lhs=(1 - (_PG_POINT["a"] - _EP_POINT) / beta) * 1, rhs=fa,
    domain=_POINT_DOMAIN, where=_POINT_WHERE,
    display=r"\left(1 - \frac{\mathcal{P}_2(a \mid \delta_a, q) - \mathbb{E}_{o' \sim \delta_a}[\mathcal{P}_2(o' \mid "
            r"\delta_a, q)]}{\beta}\right) \cdot 1 = \pi_{\mathrm{ref}}(a \mid q), \quad \pi_\theta = "
            r"\pi_{\theta_{\mathrm{old}}} = \delta_a,\ \mathcal{P}_2(a \mid \delta_a, q) = 0",
    uses=("stationary-boundary-point-mass-maximiser",),
    expect=refuted(r"at the stationary policy $\delta_a$ ($\beta < 4 \pi_{\mathrm{ref}}(a \mid q)$) (11) reads "
                   r"$1 = \pi_{\mathrm{ref}}(a \mid q)$: Appendix A's 'using $\sum_o \pi_\theta(o \mid q) = 1$' needs "
                   r"$\pi_{\mathrm{ref}}(\operatorname{supp} \pi_\theta) = 1$; in general $\lambda = \mathbb{E}[\mathcal{P}_G] "
                   r"- \beta (1 - \pi_{\mathrm{ref}}(\operatorname{supp} \pi_\theta))$"),
    note="pi(a) = 1 > 0, so the paper's dichotomy requires (11) at a; it holds only if pi_ref(a) = 1. "
         "Counterexample e.g. pi_ref(a) = 1/2, beta = 1.  Corrected: kkt-multiplier-partial-support "
         "and kkt-boundary-multiplier-nonnegative.",
))

_YS = {"a": ya, "b": 1 - ya}          # pi supported on {a, b}, pi(c) = 0
_FS = fa + fb                        # pi_ref(supp pi), pi_ref(c) = 1 - fa - fb > 0
_EU_S = expected(_YS, U)
CLAIMS.append(Chain(
    id="kkt-multiplier-partial-support",
    narrowed=_instance("three outputs, the policy supported on two of them",
                       paper="any set of outputs and any support (Appendix A, corrected)",
                       reason=_THREE_WHY),
    title=r"Corrected last step: with $\pi_\theta(c \mid q) = 0$ the multiplier is $\mathbb{E}[\mathcal{P}_G] - \beta (1 - "
          r"\pi_{\mathrm{ref}}(\operatorname{supp} \pi_\theta))$",
    ref=Ref("Appendix A", eq="11", note="'By using the constraint', corrected for boundary policies"),
    steps=[
        Step(sp.Eq(fa + fb, sum((1 - (U[o] - lam) / beta) * _YS[o] for o in ("a", "b"))),
             because="sum the on-policy display over the support {a, b} of pi"),
        Step(sp.Eq(_FS, 1 - (_EU_S - lam) / beta), because="pi sums to one on its support"),
        Step(sp.Eq(lam / beta, _EU_S / beta - (1 - _FS)), relation="equivalent", multiply_by=-1,
             because="rearrange: lambda = E_pi[P_G] - beta (1 - pi_ref(S))"),
    ],
    domain={ya: OPEN_UNIT, fa: OPEN_UNIT, fb: OPEN_UNIT, beta: POS, lam: REAL, ua: REAL, ub: REAL},
    where=(fa + fb < 1,),
    uses=("kkt-eq11-at-boundary-maximiser", "kkt-appendix-a-on-policy-chain"),
    note="Three outputs, pi(c) = 0 < pi_ref(c).  Substituting lambda, the corrected condition for "
         "pi(o) > 0 is (pi_ref(S) - (P_G(o) - E_pi[P_G])/beta) pi(o) = pi_ref(o), S = supp pi; it is "
         "(11) exactly when pi_ref(S) = 1 (e.g. pi has full support).",
))

CLAIMS.append(Root(
    id="kkt-multiplier-partial-support-unique",
    narrowed=_instance("three outputs, the policy supported on two of them",
                       paper="any set of outputs and any support (Appendix A, corrected)",
                       reason=_THREE_WHY),
    title=r"With $\pi_\theta(c \mid q) = 0$, the normalisation over the support fixes $\lambda = \mathbb{E}[\mathcal{P}_G] - "
          r"\beta (1 - \pi_{\mathrm{ref}}(S))$",
    ref=Ref("Appendix A", eq="11", note="'By using the constraint', corrected for boundary policies"),
    equation=sp.Eq(fa + fb, sum((1 - (U[o] - lam) / beta) * _YS[o] for o in ("a", "b"))),
    var=lam, value=_EU_S - beta * (1 - _FS), interval=REAL, unique=True,
    domain={ya: OPEN_UNIT, fa: OPEN_UNIT, fb: OPEN_UNIT, beta: POS, ua: REAL, ub: REAL},
    where=(fa + fb < 1,),
    uses=("kkt-multiplier-partial-support",),
    note="Three outputs, supp pi = {a, b}, pi_ref(c) = 1 - pi_ref(a) - pi_ref(b) > 0: lambda differs "
         "from E_pi[P_G] by beta pi_ref(c), which is why (11) fails at such policies.",
))

CLAIMS.append(Inequality(
    id="kkt-boundary-multiplier-nonnegative",
    title="At the point-mass stationary policy the corrected KKT multipliers are admissible",
    ref=Ref("Appendix A", note="non-negativity, with the corrected multiplier"),
    lhs=(_EP_POINT - beta * (1 - fa)) - _PG_POINT["b"], op=">=", rhs=0,
    domain=_POINT_DOMAIN, where=_POINT_WHERE,
    display=r"\gamma_b = \lambda - \mathcal{P}_2(b \mid \delta_a, q) \ge 0, \quad \lambda = \mathbb{E}_{o \sim "
            r"\delta_a}[\mathcal{P}_2(o \mid \delta_a, q)] - \beta (1 - \pi_{\mathrm{ref}}(a \mid q)),\ "
            r"\mathcal{P}_2(b \mid \delta_a, q) = -1",
    uses=("kkt-eq11-at-boundary-maximiser", "kkt-multiplier-partial-support"),
    note="gamma_b = lambda - P_2(b | delta_a) with lambda = E[P_2] - beta (1 - pi_ref(a)) "
         "= 1 - beta (1 - pi_ref(a)) >= 0 on beta < 4 pi_ref(a) (as 4 p (1 - p) <= 1): the full KKT "
         "system holds at delta_a with the corrected multiplier.",
))

# ============================================================ the bound P_G < E[P_G] + beta
pg_o = NOTATION.symbol("P_o", P_G("G", "o", _THETA), real=True)
ep = NOTATION.symbol("E_P", r"\mathbb{E}_{o' \sim \pi_\theta}[" + P_G("G", "o'", _THETA) + "]", real=True)
piv = NOTATION.symbol("pi_o", rf"{_THETA}(o \mid q)")
refv = NOTATION.symbol("ref_o", r"\pi_{\mathrm{ref}}(o \mid q)")
_EQ11_GENERIC = sp.Eq((1 - (pg_o - ep) / beta) * piv, refv)
_BOUND_DOMAIN = {piv: LOPEN_UNIT, refv: LOPEN_UNIT, beta: POS, ep: REAL}

CLAIMS.append(Root(
    id="stationary-pg-solved-from-eq11",
    title=r"Given $\pi_\theta(o \mid q) > 0$, (11) determines $\mathcal{P}_G(o \mid \pi_\theta, q)$ uniquely as "
          r"$\mathbb{E}[\mathcal{P}_G] + \beta (1 - \pi_{\mathrm{ref}}(o \mid q)/\pi_\theta(o \mid q))$",
    ref=Ref("2.3", eq="11", note="sentence after (11): 'it must hold'"),
    equation=_EQ11_GENERIC, var=pg_o, value=ep + beta * (1 - refv / piv), interval=REAL, unique=True,
    domain=_BOUND_DOMAIN,
    uses=("kkt-eq11-stationary-g2",),
    note="(11) is linear in P_G(o) with slope -pi(o)/beta != 0.  pi(o) in (0, 1]; pi_ref(o) in (0, 1] "
         "by Section 1.3 (supp pi in supp pi_ref).",
))

# two outputs, G = 2, deterministic r(a) > r(b): P_2(a | pi) = pi(b), P_2(b | pi) = -pi(a)
_PI2 = Categorical(["a", "b"], [x, 1 - x])
_PG2_TWO = pg_vector(_PI2, _DET2.__getitem__, 2)
_PI2D = {"a": x, "b": 1 - x}
_EP2_TWO = expected(_PI2D, _PG2_TWO)
_REF_TWO = ref_from_eq11(_PG2_TWO, _PI2D, beta)

CLAIMS.append(Inequality(
    id="stationary-within-beta-two-sided",
    title=r"Reading 'within an additive constant $\beta$' two-sidedly: $|\mathcal{P}_G(o) - \mathbb{E}[\mathcal{P}_G]| < \beta$ "
          r"at stationary policies",
    ref=Ref("2.3", note="sentence after the bound: 'within an additive constant of beta'"),
    lhs=sp.Abs(_PG2_TWO["b"] - _EP2_TWO), op="<", rhs=beta,
    display=r"\left|\mathcal{P}_2(b \mid \pi_\theta, q) - \mathbb{E}_{o' \sim \pi_\theta}[\mathcal{P}_2(o' \mid "
            r"\pi_\theta, q)]\right| < \beta",
    domain={x: sp.Interval.open(sp.Rational(1, 2), 1), beta: POS, rb: REAL, delta: POS},
    where=(_REF_TWO["a"] > 0,),
    uses=("stationary-two-output-local-maximiser",),
    expect=refuted(r"only the upper bound $\mathcal{P}_G(o) < \mathbb{E}[\mathcal{P}_G] + \beta$ holds; below, "
                   r"$\mathcal{P}_G(o) - \mathbb{E}[\mathcal{P}_G]$ is unbounded by $\beta$ (two answers, "
                   r"$\pi_\theta(a \mid q) = 0.9$, $\beta = 0.2$: $\mathcal{P}_2(b) - \mathbb{E}[\mathcal{P}_2] = -0.9$)"),
    note="Two outputs, G = 2, deterministic rewards r(a) > r(b), pi(a) = x in (1/2, 1); pi_ref is "
         "solved from (11) (positive iff 1 - x < beta).  The stationary policy pi(a) = x is a local "
         "maximiser there (stationary-two-output-local-maximiser).  Corrected: "
         "stationary-pg-below-mean-plus-beta.",
))

CLAIMS.append(Inequality(
    id="stationary-pg-below-mean-plus-beta",
    title=r"Outputs with positive probability at a stationary policy have $\mathcal{P}_G(o) < \mathbb{E}[\mathcal{P}_G] + \beta$",
    ref=Ref("2.3", note="display after (11): P_G(o | pi) < E[P_G] + beta"),
    lhs=ep + beta * (1 - refv / piv), op="<", rhs=ep + beta,
    domain=_BOUND_DOMAIN,
    uses=("stationary-pg-solved-from-eq11", "stationary-within-beta-two-sided"),
    note="The value of P_G(o) forced by (11) is below E[P_G] + beta because pi_ref(o)/pi(o) > 0. "
         "Strict only with pi_ref(o) > 0 (Section 1.3); pi_ref(o) = 0 would give equality.  "
         "This is the one-sided statement the paper's display makes.",
))

refs_ = NOTATION.symbol("ref_S", r"\pi_{\mathrm{ref}}(S)")   # S = supp pi
CLAIMS.append(Inequality(
    id="stationary-pg-bound-partial-support",
    title=r"The bound $\mathcal{P}_G(o) < \mathbb{E}[\mathcal{P}_G] + \beta$ also holds at boundary stationary policies",
    ref=Ref("2.3", note="display after (11), with the corrected multiplier"),
    lhs=ep + beta * (refs_ - refv / piv), op="<", rhs=ep + beta,
    domain={**_BOUND_DOMAIN, refs_: LOPEN_UNIT},
    where=(refv <= refs_,),
    uses=("kkt-multiplier-partial-support",),
    note="From the corrected condition (pi_ref(S) - (P_G(o) - E P_G)/beta) pi(o) = pi_ref(o): "
         "P_G(o) - E P_G = beta (pi_ref(S) - pi_ref(o)/pi(o)) < beta pi_ref(S) <= beta.  So the "
         "paper's bound survives the gap in (11).",
))

# ============================================================ g(x) = 1/(1 - x)
xx = R("x_o", real=True)
CLAIMS.append(Chain(
    id="stationary-g-rewrite",
    title=r"(11) rewritten as $\pi_\theta(o \mid q) = g((\mathcal{P}_G(o) - \mathbb{E}[\mathcal{P}_G])/\beta)\, "
          r"\pi_{\mathrm{ref}}(o \mid q)$, $g(x) = 1/(1 - x)$",
    ref=Ref("2.3", note="display after the bound, with g(x) = 1/(1 - x)"),
    steps=[
        Step(sp.Eq((1 - (pg_o - ep) / beta) * piv, refv), because="Eq. (11)"),
        Step(sp.Eq(piv, g((pg_o - ep) / beta) * refv), relation="equivalent",
             multiply_by=1 / (1 - (pg_o - ep) / beta),
             because="divide by 1 - (P_G(o) - E P_G)/beta, positive by the bound"),
    ],
    domain={pg_o: REAL, ep: REAL, beta: POS, piv: LOPEN_UNIT, refv: LOPEN_UNIT},
    where=(pg_o - ep < beta,),
    uses=("stationary-pg-below-mean-plus-beta",),
    note="The division is legitimate because the bound P_G(o) < E[P_G] + beta (in the domain) keeps "
         "the bracket positive.",
))

CLAIMS.append(Monotonic(
    id="stationary-g-increasing",
    title=r"$g(x) = 1/(1 - x)$ is increasing: a larger relative preference means more mass than $\pi_{\mathrm{ref}}$",
    ref=Ref("2.3", note="g display; Section 1.2 'a function that increases with the expected advantage'"),
    expr=g(xx), var=xx, direction="increasing",
    domain={xx: sp.Interval.open(-sp.oo, 1)},
    note="On x < 1, the range of (P_G(o) - E P_G)/beta at stationary policies.",
))

CLAIMS.append(Inequality(
    id="stationary-g-positive-fixes-one",
    title=r"$g(x) - 1$ has the sign of $x$: outputs preferred above average get more mass than under $\pi_{\mathrm{ref}}$",
    ref=Ref("2.3", note="g display"),
    lhs=(g(xx) - 1) * xx, op=">=", rhs=0,
    domain={xx: sp.Interval.open(-sp.oo, 1)},
    note="(g(x) - 1) x = x^2/(1 - x) >= 0: outputs with P_G(o) above E[P_G] get pi(o) > pi_ref(o), "
         "those below get less, g(0) = 1.",
))

x1 = NOTATION.symbol("x_1", "x_o", real=True)
x2 = NOTATION.symbol("x_2", "x_{o'}", real=True)
CLAIMS.append(Identity(
    id="stationary-g-not-logarithmic-pooling",
    title="GRPO's aggregation differs from logarithmic pooling (probability ratios are not exponential)",
    ref=Ref("2.3", note="'the aggregation of preferences is different than logarithmic pooling'"),
    lhs=g(x1) / g(x2), rhs=sp.exp(x1 - x2),
    domain={x1: sp.Interval.open(-sp.oo, 1), x2: sp.Interval.open(-sp.oo, 1)},
    expect=not_in_general(r"the paper says GRPO's aggregation is not logarithmic pooling: "
                          r"$\frac{\pi_\theta(o \mid q)/\pi_\theta(o' \mid q)}{\pi_{\mathrm{ref}}(o \mid q)/\pi_{\mathrm{ref}}"
                          r"(o' \mid q)} = g(x_o)/g(x_{o'})$ is not $e^{x_o - x_{o'}}$"),
    note="Logarithmic pooling (KL-regularised RLHF) gives pi(o) proportional to pi_ref(o) exp(P(o)/beta), "
         "so pi(o) pi_ref(o')/(pi_ref(o) pi(o')) = exp(x_o - x_o'); GRPO gives g(x_o)/g(x_o').  Ratios "
         "are free of the normalising constants, so this compares the aggregation rules fairly.",
))

# ============================================================ (12): groups of two
_STAR_LAW_PG = pg_vector(STAR_LAW, KERNEL3.__getitem__, 2)
_MIX = mixture(STAR_LAW, KERNEL3.__getitem__)
_WIN = ordered_prob(KERNEL3["a"], _MIX, LEVELS3, lambda i, j: i > j)
_LOSS = ordered_prob(KERNEL3["a"], _MIX, LEVELS3, lambda i, j: i < j)
CLAIMS.append(Identity(
    id="stationary-eq12-groups-of-two",
    narrowed=_instance("three outputs, stochastic rewards on three levels",
                       paper="groups of two, any set of outputs and any stochastic rewards (Eq. (12))"),
    title=r"For groups of two, (11) is (12): the bracket uses $\mathbb{P}[r > r'] - \mathbb{P}[r < r']$ with "
          r"$o' \sim \pi_\theta$",
    ref=Ref("2.3", eq="12"),
    lhs=name(NOTATION, (1 - (_STAR_LAW_PG["a"] - expected(STAR, _STAR_LAW_PG)) / beta) * pa, _eq11(2, "a")),
    rhs=name(NOTATION, (1 - (_WIN - _LOSS) / beta) * pa,
             r"\left(1 - \frac{\mathbb{P}_{o' \sim \pi_{\theta^*}}[r > r' \mid a] - \mathbb{P}_{o' \sim \pi_{\theta^*}}"
             r"[r < r' \mid a]}{\beta}\right) \pi_{\theta^*}(a \mid q)"),
    domain={**STAR_DOMAIN, **KERNEL3_DOMAIN, beta: POS}, where=STAR_WHERE,
    uses=("pg-on-policy-mean-zero-g2", "p2-is-win-minus-loss-probability"),
    note="Left: (11)'s left side for G = 2 from the Section 2.1 definition; right: (12)'s left side "
         "with P_{o' ~ pi}[r > r' | o] computed directly for independent stochastic rewards on three "
         "levels.  Holds because E_pi[P_2(o' | pi)] = 0.  Output a of three.",
))

# ============================================================ (13): large groups
ra_, rb_, rc_ = NOTATION.symbol("r_a", r"r(a \mid q)", real=True), R("r_b3", real=True), R("r_c", real=True)
d1, d2 = R("d_1", positive=True), R("d_2", positive=True)
RW = {"a": ra_, "b": ra_ + d1, "c": ra_ + d1 + d2}     # distinct expected rewards
SIG = reward_std(STAR, RW)
P_INF = {o: (RW[o] - expected(STAR, RW)) / SIG for o in OUT}
_RW_DOMAIN = {ra_: REAL, d1: POS, d2: POS}
# the large-group preference (r(o) - E_pi[r]) / sigma(pi) of Section 2.1, at pi = pi_theta*
_E_R = r"\mathbb{E}_{o' \sim \pi_{\theta^*}}[r(o' \mid q)]"
_SIG = r"\sigma(\pi_{\theta^*}(\cdot \mid q))"
name(NOTATION, SIG, _SIG)
name(NOTATION, expected(STAR, RW), _E_R)


def _eq13(o):
    """The left side of Eq. (13) at output o, at pi_theta*."""
    return (rf"\left(1 - \frac{{r({o} \mid q) - {_E_R}}}{{\beta {_SIG}}}\right) \pi_{{\theta^*}}({o} \mid q)")


def _p_inf(o):
    return rf"\frac{{r({o} \mid q) - {_E_R}}}{{{_SIG}}}"

CLAIMS.append(Identity(
    id="pg-large-group-on-policy-mean-zero",
    narrowed=_THREE_LARGE,
    title="Large groups: the standardised reward has mean zero under the policy",
    ref=Ref("2.3", eq="13"),
    lhs=name(NOTATION, expected(STAR, P_INF), r"\mathbb{E}_{o \sim \pi_{\theta^*}}\left[" + _p_inf("o") + r"\right]"),
    rhs=0,
    domain={**STAR_DOMAIN, **_RW_DOMAIN}, where=STAR_WHERE,
    note="P_inf(o | pi) = (r(o) - E_pi r)/sigma(pi) (Section 2.1, R_inf) has E_pi[P_inf] = 0. "
         "Three outputs with distinct expected rewards.",
))

CLAIMS.append(Identity(
    id="stationary-eq13-large-groups",
    narrowed=_THREE_LARGE,
    title=r"For large groups, (11) with $\mathcal{P}_\infty = (r - \mathbb{E}[r])/\sigma$ is (13)",
    ref=Ref("2.3", eq="13"),
    lhs=name(NOTATION, (1 - (P_INF["a"] - expected(STAR, P_INF)) / beta) * pa,
             r"\left(1 - \frac{" + _p_inf("a") + r" - \mathbb{E}_{o \sim \pi_{\theta^*}}\left[" + _p_inf("o")
             + r"\right]}{\beta}\right) \pi_{\theta^*}(a \mid q)"),
    rhs=name(NOTATION, (1 - (RW["a"] - expected(STAR, RW)) / (beta * SIG)) * pa, _eq13("a")),
    domain={**STAR_DOMAIN, **_RW_DOMAIN, beta: POS}, where=STAR_WHERE,
    uses=("pg-large-group-on-policy-mean-zero", "reward-pref-binary-limit-r-inf"),
    note="Substituting the large-group preference of Section 2.1.  For stochastic rewards r(o) is the "
         "expected reward and sigma the std of the reward (output and reward noise) under pi.",
))

p = NOTATION.symbol("p", rf"{_STAR}(a \mid q)")
_LIM_P = sp.Interval(sp.Rational(1, 10), sp.Rational(9, 10))
Gs, ks = sp.Symbol("G", integer=True, positive=True), sp.Symbol("k", integer=True, nonnegative=True)
CLAIMS.append(Identity(
    id="pg-on-policy-mean-zero-binary-any-g",
    narrowed=_instance("two answers, deterministic rewards, $G = 2, 3, \\ldots, 40$",
                       paper="every group size $G \\ge 2$, any outputs and rewards (the term of Eq. (11))",
                       reason="the binomial sum is evaluated for each G of a finite range; a symbolic G is not summed"),
    title="Two answers, any group size: on-policy, the expected group-relative preference is zero",
    ref=Ref("2.3", eq="11", note="the term E_{o' ~ pi}[P_G(o' | pi)], binary questions"),
    lhs=pg_expected_binary(Gs, ks, p, p), rhs=0,
    domain={p: OPEN_UNIT, Gs: sp.Range(2, 41)},
    uses=("pg-binary-closed-form-g2", "pg-binary-closed-form-g3", "pg-binary-closed-form-g4"),
    note="E_{o ~ pi}[P_G(o | pi)] for deterministic r(a) > r(b), pi(a) = p, as the binomial sum of "
         "Section 2.1 (pg-binary-closed-form-g*), for G = 2..40.",
    harmless_mutants={"lhs:*": "the claim is that this sum is 0: a mistake that only scales it (its sign, a factor "
                               "(1 - p)^(-2G) common to every term) or empties it (upper limit -1) keeps it 0; "
                               "the sum's terms are checked by pg-binary-closed-form-g2/g3/g4"},
))

CLAIMS.append(Limit(
    id="stationary-eq11-tends-to-eq13-binary",
    narrowed=_instance(r"two answers, deterministic rewards, $\pi_\theta(a \mid q) = p \in [1/10, 9/10]$",
                       paper="any outputs and rewards, large groups (Eq. (13))",
                       reason="binary deterministic rewards give a sum over a symbolic G that the ladder+asymptotics check can enclose; it needs G p (1 - p) large at G <= 10^6, so p is kept in [1/10, 9/10]"),
    title="Two answers: the bracket of (11) tends to that of (13) as the group grows",
    ref=Ref("2.3", eq="13", note="'For the limit of large group sizes, (11) corresponds to'"),
    expr=1 - pg_reward_one(Gs, ks, p) / beta,
    var=Gs, point=sp.oo, direction="-",
    value=1 - (1 - p) / (beta * sp.sqrt(p * (1 - p))),
    rate=1 / (8 * beta * p ** sp.Rational(3, 2) * sp.sqrt(1 - p)),
    domain={p: _LIM_P, beta: POS},
    uses=("pg-binary-limit-high-reward", "stationary-eq13-large-groups",
          "pg-on-policy-mean-zero-binary-any-g"),
    note="Deterministic rewards r(a) > r(b), pi(a) = p, pi_old = pi: the bracket of (11) is "
         "1 - (P_G(a | pi) - 0)/beta (the expectation term is 0, pg-on-policy-mean-zero-binary-any-g) "
         "and P_G(a | pi) -> sqrt((1-p)/p) = (r(a) - E r)/sigma, the bracket of (13).  P_G(a | pi) = "
         "sqrt((1-p)/p) - 1/(8 p^(3/2) (1-p)^(1/2) G) + O(1/G^2) (pg-binary-limit-high-reward), so the "
         "bracket's 1/G coefficient is 1/(8 beta p^(3/2) (1-p)^(1/2)).  Checked by ladder+asymptotics "
         "(S_G in arb balls for G = 10 .. 10^6, G (S_G - S_inf) settling on that coefficient); p in "
         "[1/10, 9/10] so that the ladder converges.",
))

# ============================================================ effective regularisation beta * sigma
_REF13 = {o: (1 - (RW[o] - expected(STAR, RW)) / (beta * SIG)) * STAR[o] for o in OUT}
for _o in OUT:   # pi_ref solved from (13) at pi_theta*
    name(NOTATION, _REF13[_o], _eq13(_o))
CLAIMS.append(Stationary(
    id="effective-reg-beta-sigma",
    narrowed=_THREE_LARGE,
    title=r"(13) is the KKT condition of expected reward with regularisation constant $\beta \sigma$",
    ref=Ref("2.3", eq="13", note="paragraph after (13): effective regularisation beta sigma(pi)"),
    objective=name(NOTATION, expected(Y, RW) - beta * SIG * kl0(Y, _REF13, OLDF),
                   r"\mathbb{E}_{o \sim \pi_\theta}[r(o \mid q)] - \beta " + _SIG + r"\, " + _KL0),
    wrt=(ya, yb, yc), at=AT_STAR, frozen=ON_STAR, simplex=True,
    domain={**STAR_DOMAIN, **_RW_DOMAIN, beta: POS},
    display=r"\nabla_{\pi_\theta} \Big(\mathbb{E}_{o \sim \pi_\theta}[r(o \mid q)] - \beta " + _SIG + r"\, " + _KL0
    + r"\Big)" + _ON_STAR_TEXT + r" \text{ has equal components}, \quad \pi_{\mathrm{ref}}(o \mid q) = " + _eq13("o")
    + r" \text{ (Eq. (13) at } \pi_{\theta^*})",
    where=STAR_WHERE + tuple(_REF13[o] > 0 for o in OUT),
    uses=("stationary-eq13-large-groups",),
    note="pi* satisfying (13) is stationary for E_pi[r] - (beta sigma(pi*)) KL_0(pi || ref; pi_old) "
         "(pi_old frozen, then = pi*): normalising rewards by sigma is the same as scaling beta by "
         "sigma.  Three outputs, unnormalised rewards r(o).",
))

dd = NOTATION.symbol("Delta", r"|r(a \mid q) - r(b \mid q)|", positive=True)
CLAIMS.append(Monotonic(
    id="effective-reg-decreasing-two-outputs",
    narrowed=_instance(r"two outputs, the larger probability $p \in [1/2, 1)$",
                       paper="any policy (paragraph after (13)); the general reading is refuted, see effective-reg-more-concentrated-smaller-sigma",
                       reason="for two outputs 'more concentrated' has one meaning, p moving from 1/2 towards 1 (p < 1/2 is the same by symmetry)"),
    title=r"Two outputs: the effective regularisation $\beta \sigma$ decreases as the policy concentrates",
    ref=Ref("2.3", note="paragraph after (13): more concentrated policy, smaller sigma"),
    expr=beta * dd * sp.sqrt(p * (1 - p)), var=p, direction="decreasing",
    domain={p: sp.Interval.Ropen(sp.Rational(1, 2), 1), beta: POS, dd: POS},
    uses=("effective-reg-more-concentrated-smaller-sigma",),
    note="sigma(pi) = |r(a) - r(b)| sqrt(p (1 - p)) with p = max_o pi(o) in [1/2, 1).",
))

CLAIMS.append(Limit(
    id="effective-reg-vanishes-at-point-mass",
    narrowed=_THREE_LARGE,
    title=r"As the policy concentrates on one output, $\sigma$ and the effective regularisation vanish",
    ref=Ref("2.3", note="paragraph after (13)"),
    expr=beta * name(NOTATION, reward_std({"a": p, "b": (1 - p) * sb, "c": (1 - p) * (1 - sb)}, RW), _SIG),
    var=p, point=1, direction="-", value=0,
    domain={sb: UNIT, beta: POS, **_RW_DOMAIN},
    uses=("effective-reg-more-concentrated-smaller-sigma",),
    note="Three outputs, the remaining mass split in any proportion s : 1 - s.",
))

q1, q2 = (NOTATION.symbol(f"q_{i}", rf"\pi({o} \mid q)") for i, o in ((1, "a"), (2, "b")))
q3, q4 = (NOTATION.symbol(f"q_{i}", rf"\pi'({o} \mid q)") for i, o in ((3, "a"), (4, "b")))
_P1 = {"a": q1, "b": q2, "c": 1 - q1 - q2}    # a is the most likely output under both
_P2 = {"a": q3, "b": q4, "c": 1 - q3 - q4}
CLAIMS.append(Inequality(
    id="effective-reg-more-concentrated-smaller-sigma",
    title="Literal reading: a policy more concentrated on a single output has a smaller reward std",
    ref=Ref("2.3", note="paragraph after (13): 'the more concentrated ... the smaller sigma'"),
    lhs=name(NOTATION, reward_std(_P2, RW), r"\sigma(\pi')"), op="<=", rhs=name(NOTATION, reward_std(_P1, RW), r"\sigma(\pi)"),
    domain={q1: UNIT, q2: UNIT, q3: UNIT, q4: UNIT, **_RW_DOMAIN},
    where=(q1 + q2 <= 1, q3 + q4 <= 1, q2 <= q1, 1 - q1 - q2 <= q1, q4 <= q3, 1 - q3 - q4 <= q3,
           q3 >= q1),
    expect=refuted(r"with three or more outputs more mass on the top output can raise $\sigma$: "
                   r"rewards $(0, 0.01, 1)$: $\pi = (1/2, 1/2, 0)$ has $\sigma = 0.005$, $(0.6, 0, 0.4)$ has "
                   r"$\sigma \approx 0.49$"),
    note="'More concentrated on a single output' read as: the largest probability (on the same output "
         "a) is larger.  True for two outputs (effective-reg-decreasing-two-outputs) and in the limit "
         "of a point mass (effective-reg-vanishes-at-point-mass), not monotone in general.",
))

# ============================================================ stationary policies as maximisers
_BIG_BETA = {**STAR_DOMAIN, **KERNEL2_DOMAIN, beta: sp.Interval(2, sp.oo)}
_OVER3 = {ya: OPEN_UNIT, yb: OPEN_UNIT}
_YN_OBJ = {"a": ya, "b": yb, "c": 1 - ya - yb}
CLAIMS.append(Maximiser(
    id="stationary-eq11-local-maximiser-g2",
    narrowed=_instance(r"$G = 2$, three outputs, stochastic rewards on two levels, $\beta \ge 2$",
                       paper=r"every stationary policy: any outputs, group size and $\beta > 0$ (Eq. (11), 'we consider the maxima')",
                       reason="the second-order argument of the note needs beta >= 2 for every reward law; smaller beta is covered for two answers by stationary-two-output-local-maximiser"),
    title=r"$G = 2$, three outputs, $\beta \ge 2$: a policy satisfying (11) is a local maximiser",
    ref=Ref("2.3", eq="11", note="'we consider the maxima'; stationary policy of Section 1.3"),
    objective=name(NOTATION, objective(_YN_OBJ, {o: PG2_OLD[o].subs(oc, 1 - oa - ob) for o in OUT}, REF2,
                                       {"a": oa, "b": ob, "c": 1 - oa - ob}, beta), _j(2)),
    wrt=(ya, yb), at={ya: pa, yb: pb}, over=_OVER3, over_where=(ya + yb < 1,),
    frozen={oa: pa, ob: pb}, scope="local",
    domain=_BIG_BETA, where=STAR_WHERE,
    display=r"\pi_{\theta^*} \text{ locally maximises } " + _j(2) + r" \text{ with } \pi_{\theta_{\mathrm{old}}} = "
    r"\pi_{\theta^*}" + _from_eq11(2) + r",\ \beta \ge 2",
    uses=("kkt-eq11-stationary-g2",),
    harmless_mutants={"objective:swap-*": "pi_ref is made from the point through (11) (REF2), and the local-maximum "
                                          "argument of the note holds for any reward laws when beta >= 2: two "
                                          "reward parameters swapped throughout the objective change the problem "
                                          "and its reference together, and the point stays a strict local "
                                          "maximiser (a different but true statement)"},
    note="J(. | pi_old = pi*) over the simplex.  With old = pi, the Hessian of J is diagonal with "
         "entries -beta (2 pi_ref(o) - pi(o))/pi(o)^2, and 2 pi_ref(o)/pi(o) = 2 - 2 P_2(o)/beta >= 1 "
         "when beta >= 2 (|P_2| <= 1, E P_2 = 0), so (11) gives a strict local maximum.  For smaller "
         "beta, and globally, it need not (see tests/test_derivations_s2_3.py).",
))

z = NOTATION.symbol("z", rf"{_THETA}(a \mid q)")   # pi(a), the variable optimised
_REF_TWO_P = {o: v.subs(x, p) for o, v in _REF_TWO.items()}
CLAIMS.append(Maximiser(
    id="stationary-two-output-local-maximiser",
    narrowed=_instance("two answers, $G = 2$, deterministic rewards",
                       paper="every stationary policy: any outputs and group size (Eq. (11), 'we consider the maxima')",
                       reason="the Hessian of the objective is written out for the binary case of groups of two"),
    title=r"Two answers, $G = 2$: the solution of (11) with more mass on the better answer is a local maximiser",
    ref=Ref("2.3", eq="11", note="'we consider the maxima'"),
    objective=z * _PG2_TWO["a"].subs(x, oa) + (1 - z) * _PG2_TWO["b"].subs(x, oa)
    - beta * name(NOTATION, kl0({"a": z, "b": 1 - z}, _REF_TWO_P, {"a": oa, "b": 1 - oa}), _KL0),
    wrt=(z,), at={z: p}, over={z: OPEN_UNIT}, frozen={oa: p}, scope="local",
    domain={p: sp.Interval.open(sp.Rational(1, 2), 1), beta: POS, rb: REAL, delta: POS},
    where=(1 - p < beta,),
    note="Deterministic r(a) > r(b), pi(a) = p > 1/2, pi_ref solved from (11) at p (positive iff "
         "1 - p < beta).  With pi_old = p the second derivative of J is "
         "-beta [(1 - 2(1-p)/beta)/p + (1 + 2p/beta)/(1-p)] < 0.",
))

# ============================================================ statements not checked mechanically
UNCHECKABLE = [
    {"id": "s23-objective-expectation-over-contexts",
     "ref": Ref("2.3", note="first display: J_GRPO(theta) = E_{q ~ mu}[J_GRPO(pi_theta(.|q) | q)]"),
     "statement": "The GRPO objective is the average over contexts of the per-context objective.",
     "reason": "A definition / restatement of Eq. (1) without clipping; the per-context part is checked "
               "by s23-objective-reward-pref-minus-penalty-g2 and the outer expectation is linear."},
    {"id": "s23-nonlinear-programme",
     "ref": Ref("2.3", note="display 'maximise J over pi subject to pi >= 0, sum pi = 1'; also Appendix A"),
     "statement": "Stationary policies are the maxima of J(. | q) over the probability simplex, taken "
                  "with pi_old = pi.",
     "reason": "A definition of the problem; its content is exercised by the Maximiser and Stationary "
               "claims (stationary-*-maximiser, kkt-eq11-stationary-g*)."},
    {"id": "s23-kkt-theorem-cited",
     "ref": Ref("Appendix A", note="'By the KKT conditions, if pi is a local optimum, then there exist "
                                   "constants gamma_o and lambda'"),
     "statement": "At a local optimum of the simplex-constrained problem KKT multipliers exist.",
     "reason": "A cited theorem (Ruszczynski, 2006; linear constraints, so no constraint qualification "
               "issue); we check its conclusion at the instances (kkt-boundary-multiplier-nonnegative, "
               "kkt-eq11-stationary-g*), not the theorem."},
    {"id": "s23-gamma-zero-typo",
     "ref": Ref("Appendix A", note="non-negativity line 'gamma_0 >= 0'"),
     "statement": "Finding (typo): the non-negativity condition is written gamma_0 >= 0; it should be "
                  "gamma_o >= 0 for every output o.",
     "reason": "A subscript typo in notation; the chains use gamma_o >= 0 (kkt-complementary-slackness-"
               "interior).  The conclusion 'pi(o) = 0 or (11)' does not depend on the sign condition.",
     "finding": "typo"},
    {"id": "s23-details-in-appendix",
     "ref": Ref("2.3", eq="11", note="'The details are provided in Appendix A'"),
     "statement": "Pointer to Appendix A.",
     "reason": "A cross-reference, no mathematical content."},
    {"id": "s23-fixed-point-equation",
     "ref": Ref("2.3", note="last paragraph: (11) is a fixed-point equation for pi; (12), (13) for G = 2 "
                            "and large groups; closed forms in some cases"),
     "statement": "(11) is a fixed-point equation in pi (P_G(o | pi) depends on pi); (12) and (13) are its "
                  "forms for G = 2 and G -> oo; closed forms exist for binary questions.",
     "reason": "A characterisation and a forward reference to Section 2.3.1; the specialisations are "
               "checked (stationary-eq12-groups-of-two, stationary-eq13-large-groups), the closed forms "
               "belong to Section 2.3.1 / Appendix B."},
    {"id": "s23-effective-reg-interpretation",
     "ref": Ref("2.3", note="paragraph after (13): 'can be interpreted as'"),
     "statement": "Normalising rewards by sigma can be interpreted as an effective regularisation beta "
                  "sigma; a smaller effective weight goes on the penalty than on the reward preference.",
     "reason": "An interpretation; its mathematical content is effective-reg-beta-sigma (holds) and the "
               "concentration statement effective-reg-* (refuted as a general monotone statement)."},
]
