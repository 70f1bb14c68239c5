"""Beyond the paper: binary questions at every finite group size G.

The paper (arXiv 2502.18548) solves the stationarity condition (11) of a binary question
in closed form for groups of two, Eq. (14), and in the limit of large groups, Eq. (15).
Practitioners use G = 4 to 64.  For deterministic rewards r(a | q) > r(b | q), with
x = pi_theta(a | q) and p = pi_ref(a | q):

- P_G(a | x) = sum_k Bin(G-1, x)(k) sqrt((G-1-k)/(k+1)) and P_G(b | x) = -sum_k Bin(G-1, x)(k)
  sqrt(k/(G-k)) are exact finite sums (Section 2.1, display before Eq. (6); the Bessel-free
  std of Eq. (2)); their x-weighted mean is 0 (the advantages of a group sum to 0), so (11)
  for o = a reads x (1 - P_G(a | x)/beta) = p;
- at G = 3 the sums collapse: P_3(a | x) = sqrt(2) (1 - x) = sqrt(2) P_2(a | x), so the
  stationary policy x_3 is (14) at beta/sqrt(2) (gamma = 1);
- for each G = 2..64, P_G(a | .) is strictly decreasing (certified value by value), so (11)
  divided by x, P_G(a | x) - beta (1 - p/x) = 0, has a strictly decreasing left side that
  runs from +oo (x -> 0) to -beta (1 - p) < 0 (x = 1): exactly one root x_G in (0, 1);
- P_{G+1}(a | x) > P_G(a | x) on [0, 1) (certified per G), so x_G < x_{G+1}; and
  P_G(a | x) < sqrt((1 - x)/x) = the large-group preference on (0, 1) (certified per G), so
  x_G < (15);
- the residual of (11) at (15) is O(1/G) with the coefficient of the ladder+asymptotics
  evidence (checked), so x_G approaches (15) at the rate 1/G.

Why "for each G up to 64" and not "for every G": the per-G statements are polynomials of
degree up to 2G - 2 with algebraic coefficients, certified by their Bernstein coefficients
one G at a time; no sound method here handles a symbolic G.  Each such claim declares the
restriction (``narrowed``).
"""

import sympy as sp

from grpo_formulas.closed_forms import closed_form_g2, closed_form_large
from grpo_formulas.preference import pg_reward_one, pg_reward_zero
from verify_claims import Identity, Inequality, Limit, Monotonic, Narrowed, Notation, Ref, Root, Summary

R = sp.Symbol
x = R("x", positive=True)
ref = R("pi_ref", positive=True)
beta = R("beta", positive=True)
G = R("G", integer=True, positive=True)
k = R("k", integer=True, nonnegative=True)

NOTATION = Notation()
NOTATION.display(x, r"\pi_\theta(a \mid q)")
NOTATION.display(ref, r"\pi_{\mathrm{ref}}(a \mid q)")

TOPIC = "Beyond the paper: finite group sizes"
OPEN_UNIT = sp.Interval.open(0, 1)
UNIT = sp.Interval(0, 1)
POS = sp.Interval.open(0, sp.oo)
G_MAX = 64
G_RANGE = sp.Range(2, G_MAX + 1)      # G = 2, ..., 64
G_RANGE_NEXT = sp.Range(2, G_MAX)     # G = 2, ..., 63 (compared with G + 1)

PER_G = Narrowed(paper="every group size G >= 2 (Eq. (11) holds at every G)",
                 verified=f"each G = 2, ..., {G_MAX}, one G at a time",
                 reason="the statement at one G is an explicit polynomial certified by its Bernstein "
                        "coefficients; no sound method here handles a symbolic G")

PG_A = pg_reward_one(G, k, x)    # P_G(a | pi), x = pi(a): the better answer
PG_B = pg_reward_zero(G, k, x)   # P_G(b | pi)


def q_sum(G_):
    """Q_G(x) = P_G(a | x)/(1 - x): every term of P_G(a | .) but the tie k = G - 1 (which is
    0) has a factor 1 - x."""
    return sp.Sum(sp.binomial(G_ - 1, k) * x**k * (1 - x)**(G_ - 2 - k) * sp.sqrt(G_ - 1 - k) / sp.sqrt(k + 1),
                  (k, 0, G_ - 2))


CLAIMS = []

CLAIMS.append(Identity(
    id="finite-g-expected-preference-zero",
    title=r"Binary question, every $G$: the expected group-relative preference under the policy itself is 0",
    ref=Ref(TOPIC, note="Eq. (11): E_{o' ~ pi}[P_G(o' | pi)]"),
    lhs=x * PG_A + (1 - x) * PG_B, rhs=0,
    domain={x: OPEN_UNIT, G: G_RANGE}, narrowed=PER_G,
    uses=("pg-binary-closed-form-g2", "pg-binary-closed-form-g3", "pg-binary-closed-form-g4"),
    note="The advantages of a group sum to 0, so E[A_1] = 0 when o_1 is drawn from the same policy as "
         "the others.  Hence the bracket of (11) for o = a is 1 - P_G(a | x)/beta and (11) reads "
         "x (1 - P_G(a | x)/beta) = pi_ref(a | q).",
))

CLAIMS.append(Identity(
    id="finite-g3-preference-closed-form",
    title=r"$G = 3$: $P_3(a \mid \pi) = \sqrt{2}\,(1 - \pi(a))$, $\sqrt{2}$ times its value at $G = 2$",
    ref=Ref(TOPIC, note="Section 2.1, display before Eq. (6), at G = 3"),
    lhs=pg_reward_one(sp.Integer(3), k, x), rhs=sp.sqrt(2) * (1 - x),
    domain={x: OPEN_UNIT},
    uses=("pg-binary-closed-form-g3",),
    note="k = 0: (1 - x)^2 sqrt(2); k = 1: 2 x (1 - x) sqrt(1/2) = sqrt(2) x (1 - x); the tie k = 2 is 0.",
))

CLAIMS.append(Identity(
    id="finite-g3-preference-closed-form-worse-answer",
    title=r"$G = 3$: $P_3(b \mid \pi) = -\sqrt{2}\,\pi(a)$",
    ref=Ref(TOPIC, note="Section 2.1, display before Eq. (6), at G = 3"),
    lhs=pg_reward_zero(sp.Integer(3), k, x), rhs=-sp.sqrt(2) * x,
    domain={x: OPEN_UNIT},
    uses=("pg-binary-closed-form-g3",),
))

X3 = closed_form_g2(beta / sp.sqrt(2), 1, ref)
CLAIMS.append(Root(
    id="finite-g3-stationary-closed-form",
    title=r"$G = 3$: the stationary policy is (14) with $\beta/\gamma_{a,b}$ replaced by $\beta/\sqrt{2}$",
    ref=Ref(TOPIC, note="Eq. (11) at G = 3, compared with Eq. (14)"),
    equation=sp.Eq(x * (1 - sp.sqrt(2) * (1 - x) / beta), ref),
    var=x, value=X3, interval=OPEN_UNIT, unique=True,
    domain={beta: POS, ref: OPEN_UNIT},
    uses=("finite-g3-preference-closed-form", "finite-g-expected-preference-zero"),
    note="(11) at G = 3 is (11) at G = 2 with P_2(a | x) = 1 - x scaled by sqrt(2): the quadratic of "
         "(14) with beta/gamma -> beta/sqrt(2).  x_3 = (1 - b + sqrt((1 - b)^2 + 4 b p))/2, b = beta/sqrt(2).",
))

CLAIMS.append(Inequality(
    id="finite-g3-stationary-above-g2",
    title=r"$G = 3$: the stationary probability of the better answer exceeds the one of groups of two, (14)",
    ref=Ref(TOPIC, note="Eq. (14) against x_3"),
    lhs=X3, op=">", rhs=closed_form_g2(beta, 1, ref),
    domain={beta: POS, ref: OPEN_UNIT},
    uses=("finite-g3-stationary-closed-form", "binary-g2-decreasing-in-beta"),
    note="(14) is strictly decreasing in beta/gamma and beta/sqrt(2) < beta.",
))

CLAIMS.append(Monotonic(
    id="finite-g-preference-decreasing",
    title=r"Every $G \le 64$: $P_G(a \mid \pi)$ is strictly decreasing in $\pi(a)$",
    ref=Ref(TOPIC, note="Section 2.1, display before Eq. (6)"),
    expr=PG_A, var=x, direction="decreasing",
    domain={x: OPEN_UNIT, G: G_RANGE}, narrowed=PER_G,
    note="P_G(a | x) = E f(K), K ~ Bin(G - 1, x), f(k) = sqrt((G-1-k)/(k+1)) strictly decreasing: more "
         "better answers among the others lower a's advantage.  Certified for each G by the Bernstein "
         "coefficients of the derivative.",
))

CLAIMS.append(Monotonic(
    id="finite-g-penalty-part-decreasing",
    title=r"$-\beta (1 - \pi_{\mathrm{ref}}(a \mid q)/\pi(a))$ is strictly decreasing in $\pi(a)$",
    ref=Ref(TOPIC, note="Eq. (11) divided by pi(a)"),
    expr=-beta * (1 - ref / x), var=x, direction="decreasing",
    domain={x: OPEN_UNIT, beta: POS, ref: OPEN_UNIT},
))

CLAIMS.append(Identity(
    id="finite-g-preference-at-one",
    title=r"Every $G \le 64$: $P_G(a \mid \pi) = 0$ when $\pi(a) = 1$",
    ref=Ref(TOPIC, note="Eq. (2): A_i = 0 when all rewards are equal"),
    lhs=PG_A.subs(x, 1), rhs=0, domain={G: G_RANGE}, narrowed=PER_G,
    note="With pi(a) = 1 every other output is a: all rewards are equal and A_1 = 0 by the 0/0 "
         "convention.  So P_G(a | x) - beta (1 - p/x) is -beta (1 - p) < 0 at x = 1, and +oo as x -> 0 "
         "(P_G >= 0 and p/x -> oo).",
))

CLAIMS.append(Summary(
    id="finite-g-stationary-unique",
    title=r"Every $G \le 64$: (11) has exactly one solution $x_G$ in $(0, 1)$",
    ref=Ref(TOPIC, note="Eq. (11) for a binary question"),
    uses=("finite-g-expected-preference-zero", "finite-g-preference-decreasing", "finite-g-penalty-part-decreasing",
          "finite-g-preference-at-one"),
    narrowed=PER_G,
    note="(11) for o = a, divided by x > 0: F_G(x) = P_G(a | x) - beta (1 - p/x) = 0.  F_G is the sum of "
         "two strictly decreasing functions, tends to +oo as x -> 0 and equals -beta (1 - p) < 0 at x = 1: "
         "it has exactly one zero, x_G.  (The equation for o = b is the same one: the two brackets of "
         "(11) are tied by E_pi[P_G] = 0.)",
))

CLAIMS.append(Inequality(
    id="finite-g-preference-increasing-in-g",
    title=r"Every $G \le 63$: $P_{G+1}(a \mid \pi) > P_G(a \mid \pi)$ for $\pi(a) < 1$",
    ref=Ref(TOPIC, note="Section 2.1, display before Eq. (6)"),
    lhs=q_sum(G + 1), op=">", rhs=q_sum(G),
    domain={x: UNIT, G: G_RANGE_NEXT}, narrowed=PER_G,
    uses=("finite-g-preference-factor",),
    display=r"\frac{P_{G+1}(a \mid \pi)}{1 - \pi(a)} > \frac{P_G(a \mid \pi)}{1 - \pi(a)}",
    note="Stated for Q_G = P_G(a | x)/(1 - x) (finite-g-preference-factor) on the closed interval, "
         "where it is strict at both ends: Q_G(0) = sqrt(G - 1) < sqrt(G), Q_G(1) = (G - 1)/sqrt(G - 1).",
))

CLAIMS.append(Identity(
    id="finite-g-preference-factor",
    title=r"Every $G \le 64$: $P_G(a \mid \pi) = (1 - \pi(a))\, Q_G(\pi(a))$",
    ref=Ref(TOPIC, note="Section 2.1, display before Eq. (6)"),
    lhs=PG_A, rhs=(1 - x) * q_sum(G),
    domain={x: OPEN_UNIT, G: G_RANGE}, narrowed=PER_G,
    note="Every term k <= G - 2 has the factor (1 - x)^(G-1-k), and the tie term k = G - 1 is 0.",
))

CLAIMS.append(Summary(
    id="finite-g-stationary-increasing-in-g",
    title=r"Every $G \le 63$: $x_G < x_{G+1}$: larger groups put more mass on the better answer",
    ref=Ref(TOPIC, note="Eq. (11)"),
    uses=("finite-g-stationary-unique", "finite-g-preference-increasing-in-g", "finite-g-preference-factor"),
    narrowed=PER_G,
    note="F_{G+1}(x) - F_G(x) = P_{G+1}(a | x) - P_G(a | x) > 0 on (0, 1): F_{G+1}(x_G) > F_G(x_G) = 0, and "
         "F_{G+1} is strictly decreasing, so its zero x_{G+1} lies above x_G.",
))

CLAIMS.append(Inequality(
    id="finite-g-preference-below-large-group",
    title=r"Every $G \le 64$: $P_G(a \mid \pi) < \sqrt{(1 - \pi(a))/\pi(a)}$, the large-group preference",
    ref=Ref(TOPIC, note="Section 2.1, R_inf; Appendix B.1, display before (18)"),
    lhs=q_sum(G) ** 2 * x * (1 - x), op="<", rhs=1,
    domain={x: UNIT, G: G_RANGE}, narrowed=PER_G,
    uses=("finite-g-preference-factor", "pg-binary-limit-high-reward"),
    display=r"P_G(a \mid \pi)^2 \frac{\pi(a)}{1 - \pi(a)} = Q_G(\pi(a))^2\, \pi(a) (1 - \pi(a)) < 1",
    note="Squared and divided by the positive sqrt((1-x)/x): with P_G = (1 - x) Q_G, P_G < sqrt((1-x)/x) "
         "iff Q_G^2 x (1 - x) < 1 on (0, 1); stated on [0, 1], where both ends give 0 < 1.  The margin "
         "shrinks like 1/G (the 1/G coefficient of pg-binary-limit-high-reward is negative).",
))

CLAIMS.append(Summary(
    id="finite-g-stationary-below-large-group",
    title=r"Every $G \le 64$: $x_G < $ (15): finite groups put less mass on the better answer than the limit",
    ref=Ref(TOPIC, note="Eq. (11) against Eq. (15)"),
    uses=("finite-g-stationary-unique", "finite-g-preference-below-large-group",
          "binary-large-g-closed-form-unique-root"),
    narrowed=PER_G,
    note="(15) is the zero of F_inf(x) = sqrt((1-x)/x) - beta (1 - p/x) (Eq. (13) for o = a, divided by "
         "x).  F_G < F_inf on (0, 1), so F_G((15)) < 0 = F_G(x_G) and, F_G decreasing, x_G < (15).  With "
         "finite-g3-stationary-above-g2 and finite-g-stationary-increasing-in-g: (14) = x_2 < x_3 < ... "
         "< x_64 < (15).",
))

# ---- at a library default: TRL's beta = 0.04 (v0.14-v0.18, the paper's footnote value) and G = 8
TRL_DEFAULTS = ("TRL v0.14.0-v0.18.x: beta = 0.04, num_generations = 8 (grpo_config.py; "
                "derivations/x2_implementations.py cites file and commit)")
CLAIMS.append(Inequality(
    id="finite-g8-trl-default-preference-at-0-98",
    title=r"$G = 8$, $\beta \le 0.04$ with the library's sample std ($\beta_{\mathrm{eff}} = \beta\sqrt{8/7}$): "
          r"$P_8(a \mid \pi) > \beta_{\mathrm{eff}}$ at $\pi(a) = 0.98$",
    ref=Ref(TOPIC, note=TRL_DEFAULTS),
    lhs=pg_reward_one(sp.Integer(8), k, sp.Rational(49, 50)).doit(), op=">", rhs=beta * sp.sqrt(sp.Rational(8, 7)),
    domain={beta: sp.Interval.Lopen(0, sp.Rational(1, 25))},
    paper_domain={beta: "beta <= 0.04: TRL's default up to v0.18 (the paper's footnote value), the claim's own range"},
    uses=("impl-eq11-effective-beta-any-g",),
    note="P_8(a | 0.98) = 0.0515 > 0.04 sqrt(8/7) = 0.0428.  With the sample std of the libraries, (11) at G = 8 "
         "holds with beta_eff = beta sqrt(8/7) (impl-eq11-effective-beta-any-g).",
))
CLAIMS.append(Summary(
    id="finite-g8-trl-default-stationary-above-0-98",
    title=r"TRL's default $G = 8$, $\beta = 0.04$ (sample std): the stationary policy puts more than 0.98 on the "
          r"better answer, whatever $\pi_{\mathrm{ref}}(a \mid q)$ is",
    ref=Ref(TOPIC, note=TRL_DEFAULTS),
    uses=("finite-g8-trl-default-preference-at-0-98", "finite-g-stationary-unique",
          "finite-g-stationary-below-large-group", "impl-eq11-effective-beta-any-g"),
    note="F_8(x) = P_8(a | x) - beta_eff (1 - p/x) is decreasing with its zero at x_8; at x = 0.98, "
         "F_8 >= P_8(a | 0.98) - beta_eff > 0 for every p in (0, 1), so x_8 > 0.98; and x_8 < (15) at beta_eff "
         "(>= 1/(1 + beta_eff^2) = 0.998).  Between the paper's two bounds at this beta: 1 - beta_eff = 0.957 for "
         "groups of two and 0.998 for large groups.",
))

P15 = closed_form_large(beta, ref)
PG_AT_15 = pg_reward_one(G, k, P15)
_C1 = -1 / (8 * P15 ** sp.Rational(3, 2) * sp.sqrt(1 - P15))
CLAIMS.append(Limit(
    id="finite-g-residual-at-15",
    title=r"The residual of (11) at (15) is $O(1/G)$: $x_G \to$ (15) at the rate $1/G$",
    ref=Ref(TOPIC, note="Eq. (11) at Eq. (15)"),
    expr=PG_AT_15 - beta * (1 - ref / P15), var=G, point=sp.oo, direction="-", value=0,
    rate=_C1,
    domain={beta: sp.Interval(sp.Rational(1, 10), 10), ref: sp.Interval(sp.Rational(1, 10), sp.Rational(9, 10))},
    narrowed=Narrowed(paper="beta > 0, pi_ref in (0, 1)",
                      verified="beta in [1/10, 10], pi_ref in [1/10, 9/10]",
                      reason="the ladder of G needs (15) away from 0 and 1, where P_G converges slowly"),
    uses=("pg-binary-limit-high-reward", "binary-large-g-closed-form-unique-root"),
    note="F_G((15)) = P_G(a | (15)) - sqrt((1 - x)/x)|_(15) -> 0 with the 1/G coefficient "
         "c1 = -1/(8 x^(3/2) (1 - x)^(1/2)) at x = (15) (pg-binary-limit-high-reward).  By the implicit "
         "function theorem x_G = (15) - c1/(G F_inf'((15))) + o(1/G) with F_inf' < 0: x_G approaches "
         "(15) from below at the rate 1/G.",
))


from verify_claims.figures import Curve, Figure, Reference

FIGURE_G = (2, 3, 4, 8, 16, 64)
FIGURE_BETA = sp.Rational(1, 2)
FIGURES = [
    Figure(id="fig-finite-g-stationary", title=r"Finite groups: $x_G$ between (14) and (15), $\beta = 1/2$",
           ref=Ref(TOPIC, note="Eq. (11) against Eq. (14), (15)"),
           caption=r"The stationary $\pi_\theta(a \mid q) = x_G$ against $\pi_{\mathrm{ref}}(a \mid q)$ for answer $a$ "
                   r"with $r(a \mid q) > r(b \mid q)$, at $\beta = 1/2$ and group sizes $G = 2, 3, 4, 8, 16, 64$: "
                   r"the root in $(0, 1)$ of (11), $x (1 - P_G(a \mid x)/\beta) = \pi_{\mathrm{ref}}(a \mid q)$, "
                   r"computed numerically (solid lines; there is no closed form for $G > 3$), between (14) "
                   r"with $\gamma = 1$, which it equals at $G = 2$ (checked), and the large-group limit (15) "
                   "(dashed).",
           x=ref, y=x, closed_form=None,
           stationarity=x * (1 - PG_A / beta) - ref,
           curves=[Curve({G: g, beta: FIGURE_BETA}, label=rf"$G = {g}$") for g in FIGURE_G],
           references=[Reference(closed_form_g2(beta, 1, ref), r"(14), $\gamma = 1$", {beta: FIGURE_BETA},
                                 matches=0),
                       Reference(closed_form_large(beta, ref), "(15)", {beta: FIGURE_BETA})],
           x_label=r"$\pi_{\mathrm{ref}}(a \mid q)$", y_label=r"$\pi_\theta(a \mid q)$",
           uses=("finite-g-stationary-unique", "finite-g-stationary-increasing-in-g",
                 "finite-g-stationary-below-large-group")),
]
