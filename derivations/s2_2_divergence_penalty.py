"""Section 2.2: the reference-policy divergence penalty of GRPO.

Three outputs.  pi = pi_theta(.|q), ref = pi_ref(.|q), old = pi_theta_old(.|q).  For the
penalty D of Eq. (7) only pi_old must be a probability vector (it is the sampling law);
pi and ref may be any positive weights, which makes those identities slightly stronger
than stated.  Unbiasedness needs pi and ref normalised.  Gradients are taken, as in the
paper, treating the probabilities pi(o) as free variables; the "on-policy" forms set
pi_old = pi after differentiating (pi_old is frozen in the objective).
"""

import sympy as sp

from verify_claims import Chain, Identity, Narrowed, Notation, Ref, Stationary, Step, not_in_general
from verify_claims.expectations import Categorical

from _notation import name
from _s2_helpers import kl, kl0, kl_rev, penalty_def

R = sp.Symbol
UNIT_OPEN = sp.Interval.open(0, 1)
POS = sp.Interval.open(0, sp.oo)
OUT = ("a", "b", "c")

# Section 2.2 is stated for any set of outputs (and Eq. (7) for every group size)
_THREE_WHY = "a distribution over a symbolic number of outputs is not a finite set of symbols with a domain"
THREE_OUTPUTS = Narrowed(paper="one context with any set of outputs (Section 2.2)", verified="three outputs",
                         reason=_THREE_WHY)


def _three_outputs_g(G):
    return Narrowed(paper="one context with any set of outputs, every group size G (Eq. (7))",
                    verified=f"three outputs, $G = {G}$",
                    reason=_THREE_WHY + "; the expectation over the group is a finite sum for a fixed G")

NOTATION = Notation()   # the paper's notation (Section 2.2)
p1, p2, p3 = (NOTATION.symbol(f"pi_{o}", rf"\pi_\theta({o} \mid q)") for o in OUT)      # free positive weights
f1, f2, f3 = (NOTATION.symbol(f"ref_{o}", rf"\pi_{{\mathrm{{ref}}}}({o} \mid q)") for o in OUT)  # free weights
o1, o2, o3 = (NOTATION.symbol(f"old_{o}", rf"\pi_{{\theta_{{\mathrm{{old}}}}}}({o} \mid q)") for o in OUT)
beta = NOTATION.symbol("beta", r"\beta")

# the paper's names: KL, KL_0 (display after (7)), KL_rev, and their derivatives in pi_theta(a | q)
_KL = r"\mathrm{KL}(\pi_\theta \,\|\, \pi_{\mathrm{ref}})"
_KL_REV = r"\mathrm{KL}_{\mathrm{rev}}(\pi_\theta \,\|\, \pi_{\mathrm{ref}})"


def _kl0(third=r"\pi_{\theta_{\mathrm{old}}}"):
    return rf"\mathrm{{KL}}_0(\pi_\theta \,\|\, \pi_{{\mathrm{{ref}}}}; {third})"


def _d(o="a"):
    return rf"\frac{{\partial}}{{\partial \pi_\theta({o} \mid q)}}"


_ON_POLICY = r"\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta}"

PI_FREE = dict(zip(OUT, (p1, p2, p3)))
REF_FREE = dict(zip(OUT, (f1, f2, f3)))
OLD = dict(zip(OUT, (o1, o2, 1 - o1 - o2)))        # normalised sampling law
OLD_FREE = dict(zip(OUT, (o1, o2, o3)))           # pi_old held fixed while differentiating
PI_N = dict(zip(OUT, (p1, p2, 1 - p1 - p2)))       # normalised pi
REF_N = dict(zip(OUT, (f1, f2, 1 - f1 - f2)))      # normalised ref

FREE_DOMAIN = {p1: POS, p2: POS, p3: POS, f1: POS, f2: POS, f3: POS}
OLD_DOMAIN = {o1: UNIT_OPEN, o2: UNIT_OPEN}
OLD_WHERE = (o1 + o2 < 1,)
NORM_DOMAIN = {p1: UNIT_OPEN, p2: UNIT_OPEN, f1: UNIT_OPEN, f2: UNIT_OPEN}
NORM_WHERE = (p1 + p2 < 1, f1 + f2 < 1)

OLD_LAW = Categorical(OUT, [OLD[o] for o in OUT])
PI_N_LAW = Categorical(OUT, [PI_N[o] for o in OUT])

CLAIMS = []

# ======================================================================== D = KL_0
name(NOTATION, kl0(PI_FREE, REF_FREE, OLD), _kl0())
name(NOTATION, kl(PI_N, REF_N), _KL)
for G in (2, 3):
    name(NOTATION, penalty_def(PI_FREE, REF_FREE, OLD_LAW, G), r"\mathcal{D}(\theta \mid q)")
    name(NOTATION, penalty_def(PI_N, REF_N, PI_N_LAW, G), r"\mathcal{D}(\theta \mid q)" + _ON_POLICY)
    CLAIMS.append(Identity(
        id=f"penalty-d-equals-kl0-g{G}", narrowed=_three_outputs_g(G),
        title=f"$G = {G}$: the expected penalty $\\mathcal{{D}}$ equals "
              f"$\\mathrm{{KL}}_0(\\pi_\\theta \\| \\pi_{{\\mathrm{{ref}}}}; \\pi_{{\\theta_{{\\mathrm{{old}}}}}})$",
        ref=Ref("2.2", eq="7", note="and the display defining KL_0"),
        lhs=penalty_def(PI_FREE, REF_FREE, OLD_LAW, G),
        rhs=kl0(PI_FREE, REF_FREE, OLD),
        domain={**FREE_DOMAIN, **OLD_DOMAIN},
        where=OLD_WHERE,
        note="D(theta | q) = E_{o_i i.i.d. pi_old}[(1/G) sum_i D_i] with D_i = ref/pi - log(ref/pi) - 1 "
             "(Eq. (1)) equals E_old[ref/pi] - E_old[log(ref/pi)] - 1; exact finite sum over three "
             "outputs.  Only pi_old needs to sum to one.",
    ))

# ======================================================================== unbiased on-policy only
for G in (2, 3):
    CLAIMS.append(Identity(
        id=f"penalty-unbiased-kl-on-policy-g{G}", narrowed=_three_outputs_g(G),
        title=f"$G = {G}$: sampled on-policy, the penalty is unbiased for "
              f"$\\mathrm{{KL}}(\\pi_\\theta \\| \\pi_{{\\mathrm{{ref}}}})$",
        ref=Ref("2.2", note="sentence after the KL_0 display (unbiased when pi_theta = pi_old)"),
        lhs=penalty_def(PI_N, REF_N, PI_N_LAW, G),
        rhs=kl(PI_N, REF_N),
        domain=NORM_DOMAIN, where=NORM_WHERE,
        uses=(f"penalty-d-equals-kl0-g{G}",),
        note="With pi_old = pi: E_pi[ref/pi] = sum_o ref(o) = 1, so D = KL(pi || ref).  Needs both pi "
             "and ref normalised.",
    ))

_ratio_sum = sp.Add(*[PI_N[o] * (REF_N[o] / PI_N[o]) for o in OUT])
_log_term = sp.Add(*[PI_N[o] * sp.log(REF_N[o] / PI_N[o]) for o in OUT])
CLAIMS.append(Chain(
    id="kl0-on-policy-unbiased-derivation", narrowed=THREE_OUTPUTS,
    title=r"Why the penalty is unbiased on-policy: $\mathrm{KL}_0(\pi_\theta \| \pi_{\mathrm{ref}}; \pi_\theta)$ "
          r"reduces to $\mathrm{KL}(\pi_\theta \| \pi_{\mathrm{ref}})$ step by step",
    ref=Ref("2.2", note="sentence after the KL_0 display (unbiased when pi_theta = pi_old)"),
    steps=[
        Step(kl0(PI_N, REF_N, PI_N), because="KL_0 with pi_old = pi (display after (7))"),
        Step(sp.Add(*[sp.UnevaluatedExpr(PI_N[o]) * (REF_N[o] / sp.UnevaluatedExpr(PI_N[o])) for o in OUT])
             - _log_term - 1, because="both expectations written out under pi"),
        Step(sp.Add(*[REF_N[o] for o in OUT]) - _log_term - 1, because="pi(o) cancels in the ratio term"),
        Step(1 - _log_term - 1, because="pi_ref sums to one"),
        Step(sp.Add(*[PI_N[o] * sp.log(PI_N[o] / REF_N[o]) for o in OUT]),
             because="-log(ref/pi) = log(pi/ref): the KL divergence KL(pi || ref)"),
    ],
    domain=NORM_DOMAIN, where=NORM_WHERE,
    display=_kl0(r"\pi_\theta") + r" \\ &= \sum_o \pi_\theta(o \mid q) \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} "
    r"- \sum_o \pi_\theta(o \mid q) \log \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} - 1 \\ &= \sum_o "
    r"\pi_{\mathrm{ref}}(o \mid q) - \sum_o \pi_\theta(o \mid q) \log \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} "
    r"- 1 \\ &= 1 - \sum_o \pi_\theta(o \mid q) \log \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)} - 1 \\ "
    r"&= \sum_o \pi_\theta(o \mid q) \log \frac{\pi_\theta(o \mid q)}{\pi_{\mathrm{ref}}(o \mid q)} = " + _KL,
    note="A derivation chain: each line is verified against the previous one, so an edit that "
         "breaks one line is reported at that step.",
))

CLAIMS.append(Identity(
    id="kl0-on-policy-equals-kl", narrowed=THREE_OUTPUTS,
    title=r"$\mathrm{KL}_0$ with the old policy equal to the current one is the KL divergence",
    ref=Ref("2.2", note="sentence after the KL_0 display"),
    lhs=kl0(PI_N, REF_N, PI_N),
    rhs=kl(PI_N, REF_N),
    domain=NORM_DOMAIN, where=NORM_WHERE,
    display=_kl0(r"\pi_\theta") + " = " + _KL,
))

CLAIMS.append(Identity(
    id="penalty-biased-off-policy",
    title=r"Sampled from an older policy, the expected penalty is not $\mathrm{KL}(\pi_\theta \| \pi_{\mathrm{ref}})$",
    ref=Ref("2.2", note="sentence after the KL_0 display ('but not in general')"),
    lhs=name(NOTATION, kl0({"a": p1, "b": 1 - p1}, {"a": f1, "b": 1 - f1}, {"a": o1, "b": 1 - o1}), _kl0()),
    rhs=name(NOTATION, kl({"a": p1, "b": 1 - p1}, {"a": f1, "b": 1 - f1}), _KL),
    domain={p1: UNIT_OPEN, f1: UNIT_OPEN, o1: UNIT_OPEN},
    expect=not_in_general(r"with $\pi_{\theta_{\mathrm{old}}} \ne \pi_\theta$, $\mathcal{D} = "
                          r"\mathrm{KL}_0(\pi_\theta \| \pi_{\mathrm{ref}}; \pi_{\theta_{\mathrm{old}}})$ differs "
                          r"from $\mathrm{KL}(\pi_\theta \| \pi_{\mathrm{ref}})$"),
    uses=("penalty-d-equals-kl0-g2", "penalty-d-equals-kl0-g3"),
    note="The paper's own caveat: the estimator is unbiased only when pi_theta = pi_old.  Stated "
         "for KL_0(pi || ref; pi_old), which is D for every G (penalty-d-equals-kl0-g*), with two "
         "outputs (a counterexample there is one for the general statement).",
))

# ======================================================================== gradients
KL0_FREE_OLD = kl0(PI_FREE, REF_FREE, OLD_FREE)
ON_POLICY = {o1: p1, o2: p2, o3: p3}
KLF = kl(PI_FREE, REF_FREE)
KLREV = kl_rev(PI_FREE, REF_FREE)
GRAD_DOMAIN = {**FREE_DOMAIN, o1: POS, o2: POS, o3: POS}
name(NOTATION, KL0_FREE_OLD, _kl0())
name(NOTATION, KLF, _KL)
# (the derivatives are not named: sympy builds them as the very expressions of Eqs. (8)-(10))
_RATIO = r"\frac{\pi_{\mathrm{ref}}(a \mid q)}{\pi_\theta(a \mid q)}"

CLAIMS.append(Identity(
    id="kl0-gradient-eq8", narrowed=THREE_OUTPUTS,
    title=r"The partial derivative of $\mathrm{KL}_0$ in $\pi_\theta(o \mid q)$ is $\pi_{\theta_{\mathrm{old}}}(o \mid q)$ "
          r"times $1/\pi_\theta(o \mid q) - \pi_{\mathrm{ref}}(o \mid q)/\pi_\theta(o \mid q)^2$",
    ref=Ref("2.2", eq="8"),
    lhs=sp.diff(KL0_FREE_OLD, p1),
    rhs=-o1 * f1 / p1 ** 2 + o1 / p1,
    domain=GRAD_DOMAIN,
    display=_d() + " " + _kl0() + r" = -\pi_{\theta_{\mathrm{old}}}(a \mid q) \frac{\pi_{\mathrm{ref}}(a \mid q)}"
    r"{\pi_\theta(a \mid q)^2} + \pi_{\theta_{\mathrm{old}}}(a \mid q) \frac{1}{\pi_\theta(a \mid q)}",
    note="Output a; the other outputs are symmetric.  pi_old is held fixed (any positive weights).",
))

CLAIMS.append(Identity(
    id="kl-gradient-eq9", narrowed=THREE_OUTPUTS,
    title=r"The partial derivative of $\mathrm{KL}(\pi_\theta \| \pi_{\mathrm{ref}})$ in $\pi_\theta(o \mid q)$ is one "
          r"minus the log probability ratio",
    ref=Ref("2.2", eq="9"),
    lhs=sp.diff(KLF, p1),
    rhs=-sp.log(f1 / p1) + 1,
    domain=FREE_DOMAIN,
    display=_d() + " " + _KL + r" = -\log " + _RATIO + " + 1",
    note="KL(pi || ref) = sum_o pi(o) log(pi(o)/ref(o)) with pi(o) free; output a.",
))

GRAD10 = sp.diff(KL0_FREE_OLD, p1).subs(ON_POLICY)
CLAIMS.append(Identity(
    id="kl0-gradient-on-policy-eq10", narrowed=THREE_OUTPUTS,
    title=r"At the old policy, the partial derivative of $\mathrm{KL}_0$ is one minus the reference-to-policy ratio",
    ref=Ref("2.2", eq="10"),
    lhs=GRAD10,
    rhs=-f1 / p1 + 1,
    domain=FREE_DOMAIN,
    display=_d() + " " + _kl0() + _ON_POLICY + " = -" + _RATIO + " + 1",
    uses=("kl0-gradient-eq8",),
    note="Eq. (8) evaluated at pi_old = pi (differentiate first, then set pi_old = pi).",
))

CLAIMS.append(Identity(
    id="kl0-and-kl-gradients-differ-on-policy",
    title=r"Even at the old policy, the gradients of $\mathrm{KL}_0$ and of $\mathrm{KL}(\pi_\theta \| \pi_{\mathrm{ref}})$ "
          r"differ",
    ref=Ref("2.2", note="sentence before Eq. (10): (8) and (9) differ even when pi_old = pi"),
    lhs=GRAD10,
    rhs=sp.diff(KLF, p1),
    domain=FREE_DOMAIN,
    display=_d() + " " + _kl0() + _ON_POLICY + " = " + _d() + " " + _KL,
    expect=not_in_general(r"$1 - \pi_{\mathrm{ref}}/\pi_\theta$ is linear in the ratio $\pi_{\mathrm{ref}}/\pi_\theta$, "
                          r"$1 - \log(\pi_{\mathrm{ref}}/\pi_\theta)$ is logarithmic; they agree only where "
                          r"$\pi_{\mathrm{ref}}(o \mid q) = \pi_\theta(o \mid q)$"),
    uses=("kl0-gradient-on-policy-eq10", "kl-gradient-eq9"),
))

CLAIMS.append(Identity(
    id="reverse-kl-definition", narrowed=THREE_OUTPUTS,
    title="The reverse KL of the policy is the KL divergence of the reference from the policy",
    ref=Ref("2.2", note="display defining KL_rev"),
    lhs=KLREV,
    rhs=Categorical(OUT, [REF_FREE[o] for o in OUT]).expect(lambda o: sp.log(REF_FREE[o] / PI_FREE[o])),
    domain=FREE_DOMAIN,
    display=_KL_REV + r" = \mathrm{KL}(\pi_{\mathrm{ref}} \,\|\, \pi_\theta) = \mathbb{E}_{o \sim \pi_{\mathrm{ref}}"
    r"(\cdot \mid q)}\left[\log \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi_\theta(o \mid q)}\right]",
    note="KL_rev(pi || ref) = KL(ref || pi) = E_{o ~ ref}[log(ref(o)/pi(o))].",
))

CLAIMS.append(Identity(
    id="reverse-kl-gradient", narrowed=THREE_OUTPUTS,
    title=r"Reverse-KL partial derivative in $\pi_\theta(o \mid q)$ is minus the ratio "
          r"$\pi_{\mathrm{ref}}(o \mid q)/\pi_\theta(o \mid q)$",
    ref=Ref("2.2", note="display after the KL_rev definition"),
    lhs=sp.diff(KLREV, p1),
    rhs=-f1 / p1,
    domain=FREE_DOMAIN,
    display=_d() + " " + _KL_REV + " = -" + _RATIO,
    uses=("reverse-kl-definition",),
))

CLAIMS.append(Identity(
    id="kl0-on-policy-gradient-is-reverse-kl-plus-one", narrowed=THREE_OUTPUTS,
    title=r"At the old policy, the gradient of $\mathrm{KL}_0$ is the reverse-KL gradient plus one",
    ref=Ref("2.2", note="last paragraph: equal to (10) up to an additive constant 1"),
    lhs=GRAD10,
    rhs=sp.diff(KLREV, p1) + 1,
    domain=FREE_DOMAIN,
    display=_d() + " " + _kl0() + _ON_POLICY + " = " + _d() + " " + _KL_REV + " + 1",
    uses=("kl0-gradient-on-policy-eq10", "reverse-kl-gradient"),
))

CLAIMS.append(Identity(
    id="kl0-on-policy-and-reverse-kl-same-simplex-gradient", narrowed=THREE_OUTPUTS,
    title=r"On-policy $\mathrm{KL}_0$ and reverse-KL gradients have the same simplex projection",
    ref=Ref("2.2", note="last sentence: the additive constant does not matter for stationary policies"),
    lhs=GRAD10 - sp.diff(KL0_FREE_OLD, p2).subs(ON_POLICY),
    rhs=sp.diff(KLREV, p1) - sp.diff(KLREV, p2),
    domain=FREE_DOMAIN,
    display=r"\left(" + _d("a") + " - " + _d("b") + r"\right) " + _kl0() + _ON_POLICY + r" = \left(" + _d("a")
    + " - " + _d("b") + r"\right) " + _KL_REV,
    uses=("kl0-on-policy-gradient-is-reverse-kl-plus-one",),
    note="Differences of partial derivatives (the gradient projected on the tangent space of the "
         "simplex sum_o pi(o) = 1) coincide, so the KKT conditions, and hence the stationary "
         "policies, are the same.  Outputs a and b; the others are symmetric.",
))

# stationary points on the simplex: pi = ref for both penalties
_AT_REF = {p1: f1, p2: f2, p3: 1 - f1 - f2}
_REF_DOMAIN = {f1: UNIT_OPEN, f2: UNIT_OPEN}
_REF_WHERE = (f1 + f2 < 1,)
name(NOTATION, kl0(PI_FREE, REF_N, OLD_FREE), _kl0())
name(NOTATION, kl_rev(PI_FREE, REF_N), _KL_REV)

CLAIMS.append(Stationary(
    id="kl0-on-policy-stationary-at-reference", narrowed=THREE_OUTPUTS,
    title=r"On-policy $\mathrm{KL}_0$ penalty is stationary at the reference policy",
    ref=Ref("2.2", eq="10", note="stationary policies of the penalty"),
    objective=kl0(PI_FREE, REF_N, OLD_FREE),
    wrt=(p1, p2, p3), at=_AT_REF, frozen=ON_POLICY, simplex=True,
    domain=_REF_DOMAIN, where=_REF_WHERE,
    uses=("kl0-gradient-on-policy-eq10",),
    note="Eq. (10) vanishes at pi = ref for every output.",
))

CLAIMS.append(Stationary(
    id="reverse-kl-stationary-at-reference-on-simplex", narrowed=THREE_OUTPUTS,
    title="The reverse KL divergence is stationary at the reference policy on the simplex",
    ref=Ref("2.2", note="reverse-KL gradient; the additive constant is non-essential"),
    objective=kl_rev(PI_FREE, REF_N),
    wrt=(p1, p2, p3), at=_AT_REF, simplex=True,
    domain=_REF_DOMAIN, where=_REF_WHERE,
    uses=("reverse-kl-gradient",),
    note="Its partial derivatives are all -1 at pi = ref: not zero, but equal, which is the "
         "Lagrange condition on the simplex.  Same stationary point as the on-policy KL_0.",
))

# with a reward term: any interior point pi* that is stationary for the reverse-KL-regularised
# objective u . pi - beta KL_rev is stationary for the GRPO-penalised one, and conversely
q1, q2 = (NOTATION.symbol(f"pistar_{o}", rf"\pi^*({o} \mid q)") for o in "ab")
_STAR = {p1: q1, p2: q2, p3: 1 - q1 - q2}
_STARD = {"a": q1, "b": q2, "c": 1 - q1 - q2}
cst = NOTATION.symbol("lambda", r"\lambda")
# rewards for which pi* satisfies u(o) + beta ref(o)/pi*(o) = lambda (reverse-KL KKT)
_U = {o: cst - beta * REF_FREE[o] / _STARD[o] for o in OUT}
CLAIMS.append(Stationary(
    id="grpo-penalty-shares-stationary-points-with-reverse-kl", narrowed=THREE_OUTPUTS,
    title=r"Stationary for reward minus $\beta$ reverse-KL implies stationary with the GRPO penalty",
    ref=Ref("2.2", note="last sentence: the constant 1 is non-essential for stationary policies"),
    objective=sp.Add(*[_U[o] * PI_FREE[o] for o in OUT])
    - beta * kl0(PI_FREE, REF_FREE, OLD_FREE),
    wrt=(p1, p2, p3), at=_STAR, frozen=ON_POLICY, simplex=True,
    domain={q1: UNIT_OPEN, q2: UNIT_OPEN, f1: POS, f2: POS, f3: POS, beta: POS,
            cst: sp.Interval(-sp.oo, sp.oo)},
    where=(q1 + q2 < 1,),
    display=r"\nabla_{\pi_\theta} \Big(\sum_o u(o)\, \pi_\theta(o \mid q) - \beta\, " + _kl0() + r"\Big)"
    r"\Big|_{\pi_{\theta_{\mathrm{old}}} = \pi_\theta = \pi^*} \text{ has equal components}, \quad u(o) = \lambda "
    r"- \beta \frac{\pi_{\mathrm{ref}}(o \mid q)}{\pi^*(o \mid q)}",
    uses=("kl0-on-policy-and-reverse-kl-same-simplex-gradient",),
    note="Rewards u(o) = lambda - beta ref(o)/pi*(o) are exactly those making the interior point pi* "
         "satisfy the KKT condition of u.pi - beta KL_rev(pi || ref); with the GRPO penalty "
         "(pi_old frozen, then set to pi) the partials are u(o) - beta (1 - ref(o)/pi*(o)) = "
         "lambda - beta for every o, so pi* is stationary there as well.",
))

# ============================================================ notational slips (not checked mechanically)
UNCHECKABLE = [
    {"id": "s22-kl-rev-subscript-case",
     "ref": Ref("2.2", note="display defining the reverse KL and the derivative display after it"),
     "statement": "Finding (notation slip): the reverse KL divergence is defined as KL_Rev(pi_theta(. | q) || "
                  "pi_ref(. | q)) and differentiated, in the next display, as KL_rev(...): the same quantity with "
                  "two spellings of the subscript.",
     "reason": "A notation slip; the definition and its derivative are checked (reverse-kl-definition, "
               "reverse-kl-gradient).",
     "finding": "notation slip"},
    {"id": "s22-reverse-kl-derivative-variable",
     "ref": Ref("2.2", note="display 'Indeed, it holds: d/d pi_theta(. | q) KL_rev(...) = -pi_ref(o | q)/pi_theta(o | q)'"),
     "statement": "Finding (notation slip): the derivative is written with respect to pi_theta(. | q), the whole "
                  "distribution, while the right side -pi_ref(o | q)/pi_theta(o | q) is one component; it should be "
                  "the partial derivative with respect to pi_theta(o | q), as in Eqs. (8)-(10).",
     "reason": "A notation slip; the component-wise derivative is checked (reverse-kl-gradient).",
     "finding": "notation slip"},
    {"id": "s22-capital-in",
     "ref": Ref("2.2", note="sentence before Eq. (10), 'the gradients In Equations (8) and (9)'"),
     "statement": "Finding (typo): 'the gradients In Equations (8) and (9) are different' has a capitalised "
                  "'In' in mid-sentence.",
     "reason": "A typo in the prose; the statement is checked (kl0-and-kl-gradients-differ-on-policy).",
     "finding": "typo"},
]
