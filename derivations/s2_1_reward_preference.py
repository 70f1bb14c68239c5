"""Section 2.1: the reward preference model of GRPO.

Rewards may be stochastic given the output (Section 2.1, first paragraph): each output
o has a finite reward law ``kernel(o)`` over shared reward *levels*.  Levels are written
as lo < lo + g1 < lo + g1 + g2 with gaps g1, g2 > 0: every finite reward law is a law
over increasing levels, so this loses no generality, two outputs that share a level tie
with positive probability (which exercises the paper's convention A_i = 0/0 := 0), and
the order of the levels is known to sympy.  Probability vectors of outputs are either
symbols with a `where` (policies) or stick-breaking (t, (1-t)s, (1-t)(1-s)) for reward
laws, which covers the whole simplex without coupling relations.

Covered: Eq. (6) from the definition of R_G for G = 2, 3, 4; the deterministic-reward
form of P_G; groups of two (A_i = sign(r_i - r_j), A_j = -A_i, P_2 as win minus loss
probability, R_2, and its antisymmetric form); the large-group limits (mean, std and
the binary-reward preference P_G tending to R_inf).
"""

import sympy as sp

from verify_claims import Identity, Limit, Narrowed, Notation, Ref, refuted
from verify_claims.expectations import Categorical

from _grpo import advantage, advantage_with_ties, mean
from _notation import E_P_G, OLD, P_G, R_G, name  # noqa: F401 - OLD: re-exported for the tests
from _s2_helpers import (SAME_LIMIT, expected_group_relative_preference, expected_preference_under,
                         group_relative_preference, pg_expected_binary, pg_reward_one,
                         pg_reward_zero, point_mass, reward_preference_def,
                         symmetric_group_expectation)

R = sp.Symbol
NOTATION = Notation()   # the paper's notation (Section 2.1); each symbol's display next to it
UNIT = sp.Interval(0, 1)
OPEN_UNIT = sp.Interval.open(0, 1)
REAL = sp.Interval(-sp.oo, sp.oo)
POS = sp.Interval.open(0, sp.oo)

# ----------------------------------------------------------------------------- symbols
lo = NOTATION.symbol("r_lo", r"r_{\mathrm{lo}}", real=True)   # lowest reward level
g1, g2 = R("g_1", positive=True), R("g_2", positive=True)  # gaps between levels
LEVELS3 = [lo, lo + g1, lo + g1 + g2]
LEVELS2 = LEVELS3[:2]

# policies over outputs a, b, c: pi = pi_theta(.|q), old = pi_theta_old(.|q)
pa, pb = (NOTATION.symbol(f"pi_{o}", rf"\pi_\theta({o} \mid q)") for o in "ab")
oa, ob = (NOTATION.symbol(f"old_{o}", rf"\pi_{{\theta_{{\mathrm{{old}}}}}}({o} \mid q)") for o in "ab")
# reward laws (stick-breaking parameters) per output
ta, sa, tb, sb, tc = (R(n) for n in ("t_a", "s_a", "t_b", "s_b", "t_c"))


def stick3(t, s):
    return [t, (1 - t) * s, (1 - t) * (1 - s)]


def _level_domain():
    return {lo: REAL, g1: POS, g2: POS}


OLD3 = Categorical(["a", "b", "c"], [oa, ob, 1 - oa - ob])
PI3 = {"a": pa, "b": pb, "c": 1 - pa - pb}
OLD2 = Categorical(["a", "b"], [oa, 1 - oa])
PI2 = {"a": pa, "b": 1 - pa}
POLICY3_DOMAIN = {pa: UNIT, pb: UNIT, oa: OPEN_UNIT, ob: OPEN_UNIT}
POLICY3_WHERE = (pa + pb <= 1, oa + ob < 1)
POLICY2_DOMAIN = {pa: UNIT, oa: OPEN_UNIT}

# three outputs, each with its own reward law on the two levels: high w.p. t_o
KERNEL3 = {o: Categorical(LEVELS2, [1 - t, t]) for o, t in (("a", ta), ("b", tb), ("c", tc))}
KERNEL3_DOMAIN = {ta: UNIT, tb: UNIT, tc: UNIT}
# two outputs, rewards on two levels: output a gets the high level w.p. t_a, b w.p. t_b
KERNEL2 = {"a": Categorical(LEVELS2, [1 - ta, ta]), "b": Categorical(LEVELS2, [1 - tb, tb])}
KERNEL2_DOMAIN = {ta: UNIT, tb: UNIT}
# two outputs with reward laws on three levels (for P_2 and the pairwise preferences)
KERNEL_L3 = {"a": Categorical(LEVELS3, stick3(ta, sa)), "b": Categorical(LEVELS3, stick3(tb, sb))}


def _k3(o):
    return KERNEL3[o]


def _k2(o):
    return KERNEL2[o]


def _kl3(o):
    return KERNEL_L3[o]


def _rank(level):
    return LEVELS3.index(level)  # LEVELS2 is a prefix of LEVELS3


def win_prob(law1, law2):
    """P[r > r'] for independent r ~ law1, r' ~ law2 over the ordered levels."""
    return law1.then(lambda r: law2).prob(lambda rr: _rank(rr[0]) > _rank(rr[1]))


def loss_prob(law1, law2):
    return win_prob(law2, law1)


CLAIMS = []

# Section 2.1 states its identities for every group size G >= 2, any set of outputs and any
# (stochastic) reward laws; the claims below verify finite instances of them
_ANY = "every group size $G \\ge 2$, any set of outputs and any stochastic rewards (Section 2.1)"
_FINITE_WHY = ("the expectations are exact finite sums only for a fixed group size and finitely many outputs "
               "and reward levels")


def _instance(verified, paper=_ANY, reason=_FINITE_WHY):
    return Narrowed(paper=paper, verified=verified, reason=reason)


_LADDER_WHY = ("the ladder+asymptotics check needs G mu (1 - mu) large at G <= 10^6: the probability is kept "
               "in [1/10, 9/10] (the limit holds on (0, 1), see the note)")

# ============================================================ Eq. (6) from the definition of R_G
_EQ6_NOTE = ("R_G is the group average of pi(o_i)/pi_old(o_i) * A_i over o_i i.i.d. pi_old with "
             "independent stochastic rewards r_i | o_i; the right side is sum_o pi(o) P_G(o | pi_old), "
             "P_G(o | pi_old) = E[A_1 | o_1 = o] with the other G - 1 outputs drawn from pi_old. "
             "Exact finite sums; ties (shared levels) use A_i = 0/0 := 0.")

# the two sides of Eq. (6): R_G(theta | q) and E_{o ~ pi_theta}[P_G(o | pi_old, q)]
for _PI, _OLD, _K, _G in ((PI3, OLD3, _k3, 2), (PI2, OLD2, _k2, 3), (PI2, OLD2, _k2, 4)):
    name(NOTATION, reward_preference_def(_PI, _OLD, _K, _G), R_G(_G))
    name(NOTATION, expected_preference_under(_PI, _OLD, _K, _G), E_P_G(_G))

CLAIMS.append(Identity(
    id="reward-pref-eq6-g2-stochastic",
    narrowed=_instance("$G = 2$, three outputs, each with a stochastic reward on two shared levels"),
    title=r"$G = 2$: reward preference as the $\pi_\theta$-average of the expected group-relative preference",
    ref=Ref("2.1", eq="6"),
    lhs=reward_preference_def(PI3, OLD3, _k3, 2),
    rhs=expected_preference_under(PI3, OLD3, _k3, 2),
    domain={**POLICY3_DOMAIN, **KERNEL3_DOMAIN, lo: REAL, g1: POS},
    where=POLICY3_WHERE,
    note="Three outputs, each with its own stochastic reward on two shared levels (for G = 2 the "
         "advantage only takes the values -1, 0, 1, so two levels already produce wins, losses "
         "and ties). " + _EQ6_NOTE,
))

CLAIMS.append(Identity(
    id="reward-pref-eq6-g3-stochastic",
    narrowed=_instance("$G = 3$, two outputs, each with a stochastic reward on two shared levels"),
    title=r"$G = 3$: reward preference as the $\pi_\theta$-average of the expected group-relative preference",
    ref=Ref("2.1", eq="6"),
    lhs=reward_preference_def(PI2, OLD2, _k2, 3),
    rhs=expected_preference_under(PI2, OLD2, _k2, 3),
    domain={**POLICY2_DOMAIN, **KERNEL2_DOMAIN, lo: REAL, g1: POS},
    note="Two outputs with stochastic two-level rewards. " + _EQ6_NOTE,
))

CLAIMS.append(Identity(
    id="reward-pref-eq6-g4-stochastic",
    narrowed=_instance("$G = 4$, two outputs, each with a stochastic reward on two shared levels"),
    title=r"$G = 4$: reward preference as the $\pi_\theta$-average of the expected group-relative preference",
    ref=Ref("2.1", eq="6"),
    lhs=reward_preference_def(PI2, OLD2, _k2, 4),
    rhs=expected_preference_under(PI2, OLD2, _k2, 4),
    domain={**POLICY2_DOMAIN, **KERNEL2_DOMAIN, lo: REAL, g1: POS},
    note="Two outputs with stochastic two-level rewards. " + _EQ6_NOTE,
))

# ============================================================ deterministic rewards
# P_3(a | {b, c}) from the stochastic definition with point-mass reward laws.
ra, rb, rc = (NOTATION.symbol(f"r_{o}", rf"r({o} \mid q)", real=True) for o in "abc")
_DET = {"a": point_mass(ra), "b": point_mass(rb), "c": point_mass(rc)}
# with point-mass rewards sympy builds P_3(a | {b, c}) as the very expression of the right side
_ADV_DET = (r"\frac{r(a \mid q) - \operatorname{mean}(r(a \mid q), r(b \mid q), r(c \mid q))}"
            r"{\operatorname{std}(r(a \mid q), r(b \mid q), r(c \mid q))}")
name(NOTATION, advantage([ra, rb, rc], 0), _ADV_DET)

CLAIMS.append(Identity(
    id="pg-deterministic-rewards-g3",
    narrowed=_instance("$G = 3$ (one output against two others)",
                       paper="every group size $G \\ge 2$, deterministic rewards (display after Eq. (6))",
                       reason="the group-relative preference is built from the outputs of one group of fixed size"),
    title="Deterministic rewards: group-relative preference is the normalised advantage",
    ref=Ref("2.1", note="display after Eq. (6), deterministic rewards"),
    lhs=group_relative_preference("a", ["b", "c"], lambda o: _DET[o]),
    rhs=advantage([ra, rb, rc], 0),  # (r(o) - mean(...)) / std(...) of Eq. (2)
    domain={ra: REAL, rb: REAL, rc: REAL},
    display=r"\mathcal{P}_3(a \mid \{b, c\}, q) = " + _ADV_DET,
    where=(sp.Ne(ra, rb),),
    note="P_3(o | {o'_1, o'_2}) = E[A_1 | outputs] with each output's reward law a point mass "
         "reduces to (r(o) - mean)/std of the three rewards. "
         "r_a != r_b keeps std > 0 (when all three tie both sides are 0 by the convention).",
))

# ============================================================ groups of size two
ri, rj = R("r_i", real=True), R("r_j", real=True)
dij = R("d", real=True)  # r_i - r_j

CLAIMS.append(Identity(
    id="pair-advantage-is-sign",
    title="In a group of two the advantage of an output is the sign of its reward difference",
    ref=Ref("2.1", note="groups of size two"),
    lhs=advantage_with_ties([rj + dij, rj], 0),
    rhs=sp.sign((rj + dij) - rj),
    domain={rj: REAL, dij: REAL},
    display=r"A_i = \operatorname{sign}(r_i - r_j), \quad r_i = r_j + d",
    note="A_i of Eq. (2) with G = 2, including the convention 0/0 := 0 (which is sign(0)).  "
         "Written with r_i = r_j + d (d = r_i - r_j ranges over all reals), which lets sympy see "
         "the tie as d = 0.",
))

_r = R("r", real=True)
CLAIMS.append(Identity(
    id="pair-advantage-tie-is-zero",
    title="In a group of two with equal rewards the advantage is zero, which is the sign of zero",
    ref=Ref("2.1", note="groups of size two; tie convention of Section 1"),
    lhs=advantage_with_ties([_r, _r], 0),
    rhs=sp.sign(_r - _r),
    domain={_r: REAL},
    display=r"A_i = 0 = \operatorname{sign}(r_i - r_j) \quad \text{for } r_i = r_j = r",
    note="The tie case of A_i = sign(r_i - r_j), by the convention A_i = 0/0 := 0 below Eq. (2).",
))

name(NOTATION, advantage_with_ties([ri, rj], 0), "A_i")
name(NOTATION, advantage_with_ties([ri, rj], 1), "A_j")
CLAIMS.append(Identity(
    id="pair-advantage-antisymmetric",
    title="In a group of two the two advantages are negatives of each other",
    ref=Ref("2.1", note="groups of size two"),
    lhs=advantage_with_ties([ri, rj], 1),
    rhs=-advantage_with_ties([ri, rj], 0),
    domain={ri: REAL, rj: REAL},
    note="A_j = -A_i for G = 2 (ties: both 0).",
))

ca, cb, cc = R("c_3"), R("c_1"), R("c_0")
_f = lambda x: ca * x ** 3 + cb * x + cc  # noqa: E731  strictly increasing for c_3 >= 0, c_1 > 0
CLAIMS.append(Identity(
    id="pair-advantage-order-only",
    title="In a group of two the advantage depends only on which reward is larger, not on reward values",
    ref=Ref("2.1", note="groups of size two, remark after A_i = sign(r_i - r_j)"),
    lhs=name(NOTATION, advantage([_f(ri), _f(rj)], 0), "A_i(f(r_i), f(r_j))"),
    rhs=name(NOTATION, advantage([ri, rj], 0), "A_i(r_i, r_j)"),
    display=r"A_i(f(r_i), f(r_j)) = A_i(r_i, r_j), \quad f(r) = c_3 r^3 + c_1 r + c_0",
    domain={ri: REAL, rj: REAL, ca: sp.Interval(0, sp.oo), cb: POS, cc: REAL},
    where=(sp.Ne(ri, rj),),
    note="Invariance of A_i (G = 2) under the strictly increasing map r -> c_3 r^3 + c_1 r + c_0; "
         "the paper attributes it to the std normalisation.  For G >= 3 only affine invariance holds. "
         "Stated for r_i != r_j (a tie stays a tie, A = 0 on both sides; see "
         "pair-advantage-tie-is-zero).",
))

# P_2(o | {o'}) for stochastic rewards: output o has reward law (t_a, s_a), o' has (t_b, s_b)
_LAW_O, _LAW_O2 = KERNEL_L3["a"], KERNEL_L3["b"]
_P2 = name(NOTATION, group_relative_preference("a", ["b"], _kl3), r"\mathcal{P}_2(a \mid \{b\}, q)")
# P(o > o' | q) = P[r > r' | o, o'] for the reward laws of a and b
name(NOTATION, win_prob(_LAW_O, _LAW_O2), r"\mathcal{P}(a \succ b \mid q)")
name(NOTATION, loss_prob(_LAW_O, _LAW_O2), r"\mathcal{P}(b \succ a \mid q)")
_PAIR_DOMAIN = {ta: UNIT, sa: UNIT, tb: UNIT, sb: UNIT, **_level_domain()}

CLAIMS.append(Identity(
    id="p2-is-win-minus-loss-probability",
    narrowed=_instance("two outputs whose stochastic rewards take three shared levels",
                       paper="groups of two, any stochastic rewards (Section 2.1, groups of size two)"),
    title=r"Pairs: group-relative preference is $\mathbb{P}$(higher reward) minus $\mathbb{P}$(lower reward)",
    ref=Ref("2.1", note="groups of size two; P_2 and the pairwise preference P(o > o')"),
    lhs=_P2,
    rhs=win_prob(_LAW_O, _LAW_O2) - loss_prob(_LAW_O, _LAW_O2),
    domain=_PAIR_DOMAIN,
    display=r"\mathcal{P}_2(a \mid \{b\}, q) = \mathcal{P}(a \succ b \mid q) - \mathcal{P}(b \succ a \mid q)",
    uses=("pair-advantage-is-sign", "p2-literally-equals-pairwise-preference"),
    note="P_2(o | {o'}) = E[sign(r - r')] = P[r > r'] - P[r < r'] for independent stochastic rewards "
         "r | o and r' | o' on three shared levels (ties have positive probability).  This is the "
         "precise form of the paper's statement that P_2 'corresponds to' P(o > o').",
))

CLAIMS.append(Identity(
    id="p2-literally-equals-pairwise-preference",
    title="Pairs, literal reading: group-relative preference equals the pairwise preference",
    ref=Ref("2.1", note="groups of size two, sentence defining P(o > o')"),
    lhs=_P2,
    rhs=win_prob(_LAW_O, _LAW_O2),
    domain=_PAIR_DOMAIN,
    expect=refuted(r"$\mathcal{P}_2(o \mid \{o'\}, q) = \mathcal{P}(o \succ o' \mid q) - \mathcal{P}(o' \succ o \mid q)$ "
                   r"lies in $[-1, 1]$, not $\mathcal{P}(o \succ o' \mid q)$ in $[0, 1]$ (deterministic "
                   r"$r(o \mid q) < r(o' \mid q)$ gives $-1$ vs 0); loose wording, the paper's $\mathcal{R}_2$ display "
                   "uses the difference"),
    note="The paper says P_2(o | {o'}) 'corresponds to' P(o > o').  Under antisymmetry (no ties) "
         "P_2 = 2 P(o > o') - 1, an increasing affine map, which is presumably what is meant.",
))

# R_2 from the definition (G = 2) vs the pairwise display
_PREF = {}
for _o in "abc":
    for _o2 in "abc":
        _PREF[_o, _o2] = name(NOTATION, win_prob(KERNEL3[_o], KERNEL3[_o2]), rf"\mathcal{{P}}({_o} \succ {_o2} \mid q)")
_old3 = dict(zip(OLD3.outcomes, OLD3.probs))
# the expectation over o ~ pi_theta and o' ~ pi_old, independent
_E_OO = r"\mathbb{E}_{o \sim \pi_\theta(\cdot \mid q),\, o' \sim \pi_{\theta_{\mathrm{old}}}(\cdot \mid q)}"

CLAIMS.append(Identity(
    id="r2-expected-win-minus-loss",
    narrowed=_instance("three outputs, each with a stochastic reward on two shared levels",
                       paper="groups of two, any set of outputs and any stochastic rewards (display for R_2)"),
    title="Pairs: reward preference is the expected difference of opposite pairwise preferences",
    ref=Ref("2.1", note="display for R_2"),
    lhs=reward_preference_def(PI3, OLD3, _k3, 2),
    rhs=sp.Add(*[PI3[o] * _old3[o2] * (_PREF[o, o2] - _PREF[o2, o]) for o in "abc" for o2 in "abc"]),
    domain={**POLICY3_DOMAIN, **KERNEL3_DOMAIN, lo: REAL, g1: POS},
    display=r"\mathcal{R}_2(\theta \mid q) = " + _E_OO + r"[\mathcal{P}(o \succ o' \mid q) - \mathcal{P}(o' \succ o \mid q)]",
    where=POLICY3_WHERE,
    uses=("reward-pref-eq6-g2-stochastic", "p2-is-win-minus-loss-probability"),
    note="R_2 = E_{o ~ pi, o' ~ pi_old}[P(o > o') - P(o' > o)], from the definition of R_2 "
         "(three outputs, stochastic rewards on two levels).  Per context q; the paper's outer "
         "expectation over q ~ mu is linear and omitted.",
))

# antisymmetric pairwise preferences: P(o > o') + P(o' > o) = 1 (so P(o > o) = 1/2)
wab, wac, wbc = (NOTATION.symbol(f"w_{x}{y}", rf"\mathcal{{P}}({x} \succ {y} \mid q)") for x, y in ("ab", "ac", "bc"))
_W = {("a", "b"): wab, ("a", "c"): wac, ("b", "c"): wbc}
for (_x, _y), _w in list(_W.items()):
    _W[_y, _x] = 1 - _w
for _x in "abc":
    _W[_x, _x] = sp.Rational(1, 2)
_E2 = lambda f: sp.Add(*[PI3[o] * _old3[o2] * f(o, o2) for o in "abc" for o2 in "abc"])  # noqa: E731

CLAIMS.append(Identity(
    id="r2-antisymmetric-twice-win-minus-one",
    narrowed=_instance("three outputs, any antisymmetric pairwise preferences among them",
                       paper="any set of outputs with antisymmetric pairwise preferences (display for R_2)",
                       reason="a distribution over a symbolic number of outputs is not a finite set of symbols"),
    title="Pairs, antisymmetric preferences: reward preference is twice the expected win rate minus one",
    ref=Ref("2.1", note="display for R_2 under antisymmetric preferences"),
    lhs=_E2(lambda o, o2: _W[o, o2] - _W[o2, o]),
    rhs=2 * _E2(lambda o, o2: _W[o, o2]) - 1,
    display=_E_OO + r"[\mathcal{P}(o \succ o' \mid q) - \mathcal{P}(o' \succ o \mid q)] = 2 " + _E_OO
    + r"[\mathcal{P}(o \succ o' \mid q)] - 1",
    domain={**POLICY3_DOMAIN, wab: UNIT, wac: UNIT, wbc: UNIT},
    where=POLICY3_WHERE,
    uses=("r2-expected-win-minus-loss",),
    note="The paper calls P(o > o') + P(o' > o) = 1 'asymmetric'; it means antisymmetric (as in "
         "Section 1.1, NLHF).  Antisymmetry forces P(o > o) = 1/2, and the identity needs pi and "
         "pi_old to be normalised.  Reward-induced preferences are antisymmetric only without "
         "ties: with stochastic discrete rewards P(o > o') + P(o' > o) = 1 - P[r = r'] < 1.",
))

# ============================================================ the limit of large group size
# a reward law under pi_old with three support points (any mixture of stochastic rewards)
y1, y2, y3 = R("y_1", real=True), R("y_2", real=True), R("y_3", real=True)
rho1, rho2 = R("rho_1"), R("rho_2")
RLAW = Categorical([y1, y2, y3], [rho1, rho2, 1 - rho1 - rho2])
MU = RLAW.expect(lambda y: y)
SIGMA2 = RLAW.expect(lambda y: (y - MU) ** 2)
_RLAW_DOMAIN = {y1: REAL, y2: REAL, y3: REAL, rho1: UNIT, rho2: UNIT}
_RLAW_WHERE = (rho1 + rho2 <= 1,)
# E[r] and sigma^2: the mean and variance of the reward of an output drawn from pi_old
_E_R = r"\mathbb{E}_{o \sim \pi_{\theta_{\mathrm{old}}}(\cdot \mid q)}[r(o \mid q)]"
_SIGMA2 = r"\sigma(\pi_{\theta_{\mathrm{old}}}(\cdot \mid q))^2"
name(NOTATION, MU, _E_R)
name(NOTATION, SIGMA2, _SIGMA2)


def _group(G_):
    return ", ".join(f"r_{i}" for i in range(1, G_ + 1))


def _popvar(ys):
    m = mean(ys)
    return sp.Add(*[(y - m) ** 2 for y in ys]) / len(ys)


for _G in (2, 3, 4):
    CLAIMS.append(Identity(
        id=f"group-mean-unbiased-g{_G}",
        narrowed=_instance(f"$G = {_G}$, a reward law with three support points",
                           paper="every group size G and any reward law (law of large numbers, Section 2.1)"),
        title=f"The group mean of {_G} i.i.d. rewards has expectation equal to the expected reward",
        ref=Ref("2.1", note="limit of large group size, law of large numbers for the mean"),
        lhs=name(NOTATION, symmetric_group_expectation(RLAW, _G, mean),
                 rf"\mathbb{{E}}[\operatorname{{mean}}({_group(_G)})]"),
        rhs=MU,
        domain=_RLAW_DOMAIN, where=_RLAW_WHERE,
        note="E[mean(r_1..r_G)] = E_{o ~ pi_old}[r(o)] for a reward law with three support points "
             "(the marginal of stochastic rewards under pi_old).",
    ))
    CLAIMS.append(Identity(
        id=f"group-mean-variance-g{_G}",
        narrowed=_instance(f"$G = {_G}$, a reward law with three support points",
                           paper="every group size G and any reward law (law of large numbers, Section 2.1)"),
        title=f"The group mean of {_G} i.i.d. rewards has variance $\\sigma^2$ over the group size",
        ref=Ref("2.1", note="limit of large group size, law of large numbers for the mean"),
        lhs=name(NOTATION, symmetric_group_expectation(RLAW, _G, lambda ys: (mean(ys) - MU) ** 2),
                 rf"\mathbb{{E}}[(\operatorname{{mean}}({_group(_G)}) - \mathbb{{E}}[r])^2]"),
        rhs=SIGMA2 / _G,
        display=rf"\mathbb{{E}}[(\operatorname{{mean}}({_group(_G)}) - \mathbb{{E}}[r])^2] = \frac{{1}}{{{_G}}} {_SIGMA2}, "
                rf"\quad \mathbb{{E}}[r] = {_E_R}",
        domain=_RLAW_DOMAIN, where=_RLAW_WHERE,
        note="Var(mean) = sigma(pi_old)^2 / G: the mean converges in L2 to E[r].",
    ))
    CLAIMS.append(Identity(
        id=f"group-std-squared-expectation-g{_G}",
        narrowed=_instance(f"$G = {_G}$, a reward law with three support points",
                           paper="every group size G and any reward law (law of large numbers, Section 2.1)"),
        title=f"The squared group std of {_G} i.i.d. rewards has expectation $(G-1)/G$ times $\\sigma^2$",
        ref=Ref("2.1", note="limit of large group size, law of large numbers for the std"),
        lhs=name(NOTATION, symmetric_group_expectation(RLAW, _G, _popvar),
                 rf"\mathbb{{E}}[\operatorname{{std}}({_group(_G)})^2]"),
        rhs=sp.Rational(_G - 1, _G) * SIGMA2,
        display=rf"\mathbb{{E}}[\operatorname{{std}}({_group(_G)})^2] = \frac{{{_G - 1}}}{{{_G}}} {_SIGMA2}",
        domain=_RLAW_DOMAIN, where=_RLAW_WHERE,
        note="The population std of Eq. (2) is biased at finite G: E[std^2] = (G-1)/G sigma^2.",
    ))

G = sp.Symbol("G", integer=True, positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
sig2 = NOTATION.symbol("sigma2", r"\sigma(\pi_{\theta_{\mathrm{old}}}(\cdot \mid q))^2", positive=True)

CLAIMS.append(Limit(
    id="group-mean-variance-vanishes",
    title="The variance of the group mean vanishes as the group grows",
    ref=Ref("2.1", note="limit of large group size: mean -> E[r]"),
    expr=sig2 / G, var=G, point=sp.oo, direction="-", value=0,
    domain={sig2: POS},
    uses=("group-mean-variance-g2", "group-mean-variance-g3", "group-mean-variance-g4"),
    note="With E[mean] = E[r] this is L2 (hence in-probability) convergence of the mean.",
))

CLAIMS.append(Limit(
    id="group-std-squared-expectation-limit",
    title="The expected squared group std tends to the reward variance as the group grows",
    ref=Ref("2.1", note="limit of large group size: std -> sigma"),
    expr=(G - 1) / G * sig2, var=G, point=sp.oo, direction="-", value=sig2,
    domain={sig2: POS},
    uses=("group-std-squared-expectation-g2", "group-std-squared-expectation-g3",
          "group-std-squared-expectation-g4"),
))

# two-level rewards r_b < r_a = r_b + delta, P[r = r_a] = mu: with k high rewards among G,
# std = delta * sqrt(k/G (1 - k/G)).  E[(std - sigma)^2] -> 0 is L2 convergence of std.
delta, mu = R("delta", positive=True), R("mu")
_LIM_MU = sp.Interval(sp.Rational(1, 10), sp.Rational(9, 10))
_std_k = delta * sp.sqrt(k * (G - k)) / G  # integer radicand: exact under direct summation
_sigma_bin = delta * sp.sqrt(mu * (1 - mu))
_LIM_NOTE = ("Checked by ladder+asymptotics: S_G enclosed in arb balls for G = 10 .. 10^6, and G (S_G - "
             "S_inf) must settle on the declared 1/G coefficient (rate); mu is kept in [1/10, 9/10] so that "
             "G mu (1 - mu) is large along that ladder (the limit holds for every mu in (0, 1), but "
             "convergence needs G >> 1/(mu (1 - mu))).")
# The 1/G coefficients (rate=) by the delta method: for k ~ Bin(n, mu) and X = k/n,
# E f(X) = f(mu) + f''(mu) mu (1 - mu)/(2n) + O(1/n^2) (the third and fourth central
# moments of X are O(1/n^2)); each was checked against the ladder before it was declared
# (G (S_G - S_inf) - c falls tenfold per rung, the O(1/G^2) term, at every point tried).

CLAIMS.append(Limit(
    id="group-std-l2-consistent-binary",
    narrowed=_instance(r"rewards on two levels, $\mathbb{P}[\text{high}] = \mu \in [1/10, 9/10]$",
                       paper=r"any reward law (std $\to \sigma$ as $G \to \infty$, Section 2.1)",
                       reason="a sum over a symbolic G with two reward levels is what the ladder can enclose; "
                              + _LADDER_WHY),
    title=r"Two reward levels: the group std converges in mean square to $\sigma$",
    ref=Ref("2.1", note="limit of large group size: std -> sigma"),
    expr=sp.Sum(sp.binomial(G, k) * mu ** k * (1 - mu) ** (G - k) * (_std_k - _sigma_bin) ** 2,
                (k, 0, G)),
    var=G, point=sp.oo, direction="-", value=0,
    rate=delta ** 2 * (1 - 2 * mu) ** 2 / 4,
    domain={delta: POS, mu: _LIM_MU},
    note="E[(std(r_1..r_G) - sigma)^2] -> 0 for i.i.d. rewards in {r_b, r_b + delta} with "
         "P[high] = mu, sigma = delta sqrt(mu (1 - mu)): L2 convergence at the rate "
         "delta^2 (1 - 2 mu)^2/(4G).  With h(x) = sqrt(x (1 - x)), X = k/G: E[(std - sigma)^2] = "
         "delta^2 (E h(X)^2 - 2 h(mu) E h(X) + h(mu)^2), E h(X)^2 = mu (1 - mu)(1 - 1/G) exactly and "
         "E h(X) = h(mu) + h''(mu) mu (1 - mu)/(2G) + O(1/G^2) with h'' = -1/(4 h^3), so the 1/G "
         "coefficient is delta^2 (1/4 - mu (1 - mu)) = delta^2 (1 - 2 mu)^2/4 (0 at mu = 1/2, where the "
         "sum is O(1/G^2)). " + _LIM_NOTE,
))

# ---- binary rewards: P_G(o | pi_old) in closed form, and its limit
# outputs a, b with Bernoulli rewards on levels (r_lo, r_lo + g_1): a is high w.p. t_a,
# b w.p. t_b; under pi_old the reward is high w.p. mu_old = old_a t_a + (1 - old_a) t_b.
_mu_old = oa * ta + (1 - oa) * tb


def _pg_closed(t_own, G_, mu_):
    return t_own * pg_reward_one(G_, k, mu_) + (1 - t_own) * pg_reward_zero(G_, k, mu_)


_MU_OLD = (r"\mu_{\mathrm{old}} = \pi_{\theta_{\mathrm{old}}}(a \mid q) t_a + (1 - \pi_{\theta_{\mathrm{old}}}(a \mid q)) t_b")


def _binomial_sum(G_, ratio):
    return (rf"\sum_{{k=0}}^{{{G_ - 1}}} \binom{{{G_ - 1}}}{{k}} \mu_{{\mathrm{{old}}}}^k "
            rf"(1 - \mu_{{\mathrm{{old}}}})^{{{G_ - 1} - k}} \sqrt{{{ratio}}}")


for _G in (2, 3, 4):
    name(NOTATION, expected_group_relative_preference("a", OLD2, _k2, _G), P_G(_G, "a"))
    _S1 = name(NOTATION, pg_reward_one(sp.Integer(_G), k, _mu_old),
               _binomial_sum(_G, rf"\frac{{{_G - 1} - k}}{{k + 1}}"))
    _S0 = name(NOTATION, -pg_reward_zero(sp.Integer(_G), k, _mu_old), _binomial_sum(_G, rf"\frac{{k}}{{{_G} - k}}"))
    CLAIMS.append(Identity(
        id=f"pg-binary-closed-form-g{_G}",
        narrowed=_instance(f"$G = {_G}$, two outputs with rewards on two levels",
                           paper="every group size G, any outputs and rewards (display before Eq. (6))"),
        title=f"Two reward levels, $G = {_G}$: expected group-relative preference as a binomial sum",
        ref=Ref("2.1", note="display before Eq. (6), specialised to two reward levels"),
        lhs=expected_group_relative_preference("a", OLD2, _k2, _G),
        rhs=_pg_closed(ta, sp.Integer(_G), _mu_old),
        domain={oa: OPEN_UNIT, ta: UNIT, tb: UNIT, lo: REAL, g1: POS},
        display=f"{P_G(_G, 'a')} = t_a {NOTATION.named[_S1]} - (1 - t_a) {NOTATION.named[_S0]}, \\quad " + _MU_OLD,
        note="P_G(a | pi_old) = t_a S1 + (1 - t_a) S0 with "
             "S1 = sum_k Bin(G-1, mu)(k) sqrt((G-1-k)/(k+1)) "
             "(own reward high, k other highs) and S0 = -sum_k Bin(G-1, mu)(k) sqrt(k/(G-k)), "
             "mu = P_old[high reward]; the tie terms (k = G-1 resp. k = 0) are 0 by the convention. "
             "The sum does not depend on the levels (shift and scale invariance of A_i).",
    ))

pold = NOTATION.symbol("p_old", r"\pi_{\theta_{\mathrm{old}}}(a \mid q)")
_P_DOM = {pold: _LIM_MU}

CLAIMS.append(Limit(
    id="pg-binary-limit-high-reward",
    narrowed=_instance(r"$\pi_{\theta_{\mathrm{old}}}(a \mid q) \in [1/10, 9/10]$",
                       paper=r"$\pi_{\theta_{\mathrm{old}}}(a \mid q) \in (0, 1)$ (binary rewards, large G)",
                       reason=_LADDER_WHY),
    title=r"Binary rewards: expected preference of the better answer tends to $\sqrt{(1-p)/p}$, "
          r"$p = \pi_{\theta_{\mathrm{old}}}(a \mid q)$",
    ref=Ref("2.1", note="limit of large group size (and Appendix B.1, display before (18))"),
    expr=pg_reward_one(G, k, pold), var=G, point=sp.oo, direction="-",
    value=sp.sqrt((1 - pold) / pold),
    rate=-1 / (8 * pold ** sp.Rational(3, 2) * sp.sqrt(1 - pold)),
    domain=_P_DOM,
    harmless_mutants={"expr:*": SAME_LIMIT},
    uses=("pg-binary-closed-form-g2", "pg-binary-closed-form-g3", "pg-binary-closed-form-g4"),
    note="Deterministic rewards r(a) > r(b) (values irrelevant: A_i is shift and scale invariant), "
         "p = pi_old(a): P_G(a | pi_old) = S1(G, p) -> "
         "(r(a) - E_old r)/sigma = sqrt((1-p)/p), from below at the rate -1/(8 p^(3/2) (1-p)^(1/2) G).  "
         "With n = G - 1, X = k/n and phi(x) = sqrt((1 - x)/x): sqrt((n - k)/(k + 1)) = phi(X) (1 + 1/(n X))^(-1/2) "
         "= phi(X) - phi(X)/(2 n X) + O(1/n^2), so S1 = phi(p) + (phi''(p) p (1-p)/2 - phi(p)/(2p))/n + O(1/n^2) "
         "with phi'' = (3 - 4x)/(4 x^(5/2) (1-x)^(3/2)): the coefficient is -1/(8 p^(3/2) (1-p)^(1/2)), and "
         "1/n = 1/G + O(1/G^2). " + _LIM_NOTE,
))

pia = R("pi_a")
_R_INF_BIN = (pia - pold) / sp.sqrt(pold * (1 - pold))

CLAIMS.append(Limit(
    id="reward-pref-binary-limit-r-inf",
    narrowed=_instance(r"binary rewards with $\pi_{\theta_{\mathrm{old}}}(a \mid q) \in [1/10, 9/10]$",
                       paper=r"any outputs and rewards, $\mathcal{R}_G \to \mathcal{R}_\infty$ (display for R_inf)",
                       reason="binary rewards give a sum over a symbolic G that the ladder can enclose; "
                              + _LADDER_WHY),
    title=r"Binary rewards: the reward preference tends to its large-group form $\mathcal{R}_\infty$",
    ref=Ref("2.1", note="display for R_inf"),
    expr=name(NOTATION, pg_expected_binary(G, k, pia, pold), E_P_G("G")),
    var=G, point=sp.oo, direction="-", value=_R_INF_BIN,
    rate=(pold - pia) / (8 * (pold * (1 - pold)) ** sp.Rational(3, 2)),
    domain={pia: UNIT, **_P_DOM},
    harmless_mutants={"expr:*": SAME_LIMIT},
    uses=("pg-binary-limit-high-reward", "r-inf-binary-closed-form"),
    note="E_{o ~ pi}[P_G(o | pi_old)] = pi(a) S1(G, p) + (1 - pi(a)) S0(G, p) (written as one "
         "sum) -> (pi(a) - p)/sqrt(p (1 - p)) = R_inf for r(a) > r(b); pi(a) = 0 is the limit "
         "S0 -> -sqrt(p/(1-p)) of the lower answer. "
         "By pg-binary-closed-form-g*, the same expression with pi(a) -> E_pi[P(high | o)] and "
         "p -> P_old[high] is E_pi[P_G] for stochastic two-level rewards, so this also covers the "
         "stochastic case (limit (E_pi r(o) - E_old r)/sigma with sigma the total reward std).  "
         "The 1/G coefficient: pi(a) c1 - (1 - pi(a)) c0 with c1 = -1/(8 p^(3/2) (1-p)^(1/2)) "
         "(pg-binary-limit-high-reward) and, by the same expansion of sqrt(k/(n + 1 - k)) = psi(X) "
         "(1 + 1/(n (1 - X)))^(-1/2), psi(x) = sqrt(x/(1 - x)) = phi(1 - x), c0 = -1/(8 (1-p)^(3/2) p^(1/2)); "
         "together (p - pi(a))/(8 (p (1-p))^(3/2)) = -R_inf/(8 p (1 - p)). "
         + _LIM_NOTE,
))

rlo = R("r_b", real=True)
_RWD = {"a": rlo + delta, "b": rlo}          # r(a) = r(b) + delta > r(b)
_PI_AB = Categorical(["a", "b"], [pia, 1 - pia])
_OLD_AB = Categorical(["a", "b"], [pold, 1 - pold])
_MEAN_OLD = _OLD_AB.expect(lambda o: _RWD[o])
CLAIMS.append(Identity(
    id="r-inf-binary-closed-form",
    narrowed=_instance("two answers with deterministic rewards $r(a \\mid q) > r(b \\mid q)$",
                       paper=r"$\mathcal{R}_\infty$ for any outputs and rewards (display for R_inf); Eq. (18) with "
                             "expected rewards",
                       reason="with stochastic rewards sigma is the total reward std and the binary form fails "
                              "(b1-large-g-sigma-squared-stochastic-rewards is refuted)"),
    title=r"Two answers with distinct rewards: $\mathcal{R}_\infty$ is a standardised probability shift",
    ref=Ref("2.1", note="display for R_inf; Appendix B.1, Eq. (18)"),
    lhs=name(NOTATION, (_PI_AB.expect(lambda o: _RWD[o]) - _MEAN_OLD)
             / sp.sqrt(_OLD_AB.expect(lambda o: (_RWD[o] - _MEAN_OLD) ** 2)),
             r"\frac{\mathbb{E}_{o \sim \pi_\theta(\cdot \mid q)}[r(o \mid q)] - \mathbb{E}_{o \sim "
             r"\pi_{\theta_{\mathrm{old}}}(\cdot \mid q)}[r(o \mid q)]}{\sigma(\pi_{\theta_{\mathrm{old}}}(\cdot \mid q))}"),
    rhs=_R_INF_BIN,
    domain={pia: UNIT, pold: OPEN_UNIT, rlo: REAL, delta: POS},
    note="(E_pi r - E_old r)/sigma(pi_old) with r(a) = r(b) + delta > r(b) equals "
         "(pi(a) - p)/sqrt(p (1 - p)), p = pi_old(a), independent of the reward values.",
))

# ============================================================ notational slips (not checked mechanically)
UNCHECKABLE = [
    {"id": "s21-r-inf-expectation-subscript",
     "ref": Ref("2.1", note="display for R_inf (limit of large group size)"),
     "statement": "Finding (typo): the second expectation in the numerator of R_inf is written "
                  "E_{o ~ pi_theta_old(o | q)}[r(o | q)], with the subscript 'old' set on pi_theta instead of theta; "
                  "it should be E_{o ~ pi_theta_old(. | q)}[r(o | q)] (the distribution pi_theta_old(. | q), not its "
                  "value at o), as in the first expectation and in the two limits just above.",
     "reason": "A subscript typo; the quantity itself is checked as written correctly (r-inf-binary-closed-form, "
               "reward-pref-binary-limit-r-inf).",
     "finding": "typo"},
    {"id": "s21-rewards-drawn-from-old-policy",
     "ref": Ref("2.1", note="limit of large group size, 'for r_1, ..., r_G i.i.d. ~ pi_theta_old(. | q)'"),
     "statement": "Finding (notation slip): the law of large numbers is stated for rewards 'r_1, ..., r_G i.i.d. "
                  "~ pi_theta_old(. | q)', but pi_theta_old(. | q) is a distribution over outputs: the outputs o_i "
                  "are drawn i.i.d. from it and r_i is the (possibly stochastic) reward of o_i, so the r_i are i.i.d. "
                  "from the mixture of the reward laws under pi_theta_old.  (The two limits are also written with an "
                  "upright E where the paper elsewhere uses a blackboard E.)",
     "reason": "A notation slip; the limits are checked for i.i.d. rewards from their marginal law under pi_old "
               "(group-mean-unbiased-g2/g3/g4, group-mean-variance-vanishes, group-std-squared-expectation-limit).",
     "finding": "notation slip"},
    {"id": "s21-asymmetric-for-antisymmetric",
     "ref": Ref("2.1", note="groups of size two, 'If the pairwise preferences are asymmetric, meaning that "
                            "P(o > o' | q) + P(o' > o | q) = 1'"),
     "statement": "Finding (terminology slip): the condition P(o > o' | q) + P(o' > o | q) = 1 is called "
                  "'asymmetric'; Section 1.1 calls the same condition (P(o' > o | q) = 1 - P(o > o' | q)) "
                  "'antisymmetric', which is the property used (P - 1/2 is antisymmetric; an asymmetric relation "
                  "would be one where o > o' excludes o' > o).",
     "reason": "Terminology; the identity it introduces is checked under the antisymmetry condition "
               "(r2-antisymmetric-twice-win-minus-one).",
     "finding": "notation slip"},
    {"id": "s21-r2-notation",
     "ref": Ref("2.1", note="groups of size two, the two displays for R_2(theta)"),
     "statement": "Finding (notation slip): R_G is defined per context, R_G(theta | q), with the expectation over "
                  "the group only; the displays for groups of two write R_2(theta), without '| q', and include the "
                  "expectation over q ~ mu.  Per context they should read R_2(theta | q) = E_{o ~ pi_theta(. | q), "
                  "o' ~ pi_theta_old(. | q)}[P(o > o' | q) - P(o' > o | q)] (the displayed R_2(theta) is "
                  "E_{q ~ mu}[R_2(theta | q)]).",
     "reason": "A notation slip; the per-context identities are checked (r2-expected-win-minus-loss, "
               "r2-antisymmetric-twice-win-minus-one), and the outer expectation over q is linear.",
     "finding": "notation slip"},
    {"id": "s21-reward-preference-missing-expected",
     "ref": Ref("2.1", note="first paragraph, 'we consider the reward preference given by' R_G(theta | q)"),
     "statement": "Finding (wording slip): R_G(theta | q) is introduced as 'the reward preference', but it is an "
                  "expectation over groups (and rewards) of the importance-weighted advantages; the same section "
                  "later calls it 'the expected reward preference model, given in Equation (6)', and P_G(o | pi', q) "
                  "is likewise 'the expected group-relative preference'.",
     "reason": "Wording; the definition itself is encoded as written (reward-pref-eq6-g2/g3/g4-stochastic).",
     "finding": "wording slip"},
]
