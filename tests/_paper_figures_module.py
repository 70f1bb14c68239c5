"""A self-contained copy of the paper's Figures 1-3 for report tests (the bundled ones live in
derivations/s2_3_1_binary_questions.py and derivations/s3_extensions.py, beside the claims they
use; this copy renders without verifying the whole paper).

Figures 1-3 of the paper (Sections 2.3.1 and 3), reproduced as evidence.

Each figure plots pi_theta(a|q) against pi_ref(a|q) for a binary question.  The curves
are the paper's closed forms; the overlay points are roots of the stationarity condition
the closed form is claimed to solve, found numerically by the engine (not by evaluating
the closed form):

- Figure 1 (Section 2.3.1, Eq. (14)): groups of two.  Stationarity: the derivative of the
  objective at pi_old = pi vanishes, Appendix B.1, Eq. (17):
  gamma - beta (pi - pi_ref) / (pi (1 - pi)) = 0.
- Figure 2 (Section 2.3.1, Eq. (15)): the limit of large groups, r(a|q) > r(b|q).
  Stationarity: Appendix B.1, derivative before (19):
  1 / sqrt(pi (1 - pi)) - beta (pi - pi_ref) / (pi (1 - pi)) = 0.
- Figure 3 (Section 3, direct KL penalty, groups of two): pi = e^{gamma/(2 beta)} pi_ref / Z_q.
  Stationarity: Appendix B.2, gamma - beta (log(pi/pi_ref) - log((1-pi)/(1-pi_ref))) = 0.

The paper's figure legends are not in the text we have; the parameter values below are
ours, chosen to span the regimes the text discusses (beta below, at and above gamma).
The closed forms depend on beta and gamma only through beta/gamma, so gamma = 1
(deterministic rewards, Section 2.3.1) and the legend shows the ratio.
"""

import sympy as sp

from verify_claims import Ref
from verify_claims.figures import Curve, Figure

pi, pr = sp.symbols("pi pi_ref", positive=True)  # pi_theta(a|q) and pi_ref(a|q)
beta, gamma = sp.symbols("beta gamma", positive=True)

PI_LABEL = r"$\pi_\theta(a\,|\,q)$"
REF_LABEL = r"$\pi_{\mathrm{ref}}(a\,|\,q)$"

# Eq. (14)
pi14 = (1 - beta / gamma + sp.sqrt((1 - beta / gamma) ** 2 + 4 * beta / gamma * pr)) / 2
# Eq. (15)
pi15 = (2 * beta ** 2 * pr + 1 + sp.sqrt(1 + 4 * beta ** 2 * pr * (1 - pr))) / (2 * (1 + beta ** 2))
# Section 3, direct KL, groups of two
_e = sp.exp(gamma / (2 * beta))
pi_dkl = _e * pr / (_e * pr + (1 - pr) / _e)

RATIOS = (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2, 10)


def _ratio_curves():
    return [Curve({beta: r, gamma: 1}, label=rf"$\beta/\gamma = {sp.latex(r)}$") for r in RATIOS]


FIGURES = [
    Figure(id="fig-1-groups-of-two", title="Figure 1: GRPO, binary question, groups of two",
           ref=Ref("2.3.1", "14", "Figure 1"),
           caption="pi_theta(a|q) against pi_ref(a|q) for answer a with P(a > b) > P(b > a), groups of "
                   "size two, at several beta/gamma: the closed form (14) (lines) and numerical roots of "
                   "the stationarity condition (17) (circles).",
           x=pr, y=pi, closed_form=pi14,
           stationarity=gamma - beta * (pi - pr) / (pi * (1 - pi)),
           curves=_ratio_curves(), x_label=REF_LABEL, y_label=PI_LABEL,
           uses=("binary-g2-closed-form",)),
    Figure(id="fig-2-large-groups", title="Figure 2: GRPO, binary question, large groups",
           ref=Ref("2.3.1", "15", "Figure 2"),
           caption="pi_theta(a|q) against pi_ref(a|q) for answer a with r(a|q) > r(b|q), in the limit of "
                   "large groups, at several beta: the closed form (15) (lines) and numerical roots of the "
                   "stationarity condition before (19) (circles).",
           x=pr, y=pi, closed_form=pi15,
           stationarity=1 / sp.sqrt(pi * (1 - pi)) - beta * (pi - pr) / (pi * (1 - pi)),
           curves=[Curve({beta: b}, label=rf"$\beta = {sp.latex(b)}$") for b in RATIOS],
           x_label=REF_LABEL, y_label=PI_LABEL,
           uses=("binary-large-g-closed-form",)),
    Figure(id="fig-3-direct-kl", title="Figure 3: direct KL penalty, binary question, groups of two",
           ref=Ref("3", None, "Figure 3"),
           caption="pi_theta(a|q) against pi_ref(a|q) for answer a with r(a|q) > r(b|q), groups of size "
                   "two, with the direct KL divergence penalty, at several beta/gamma: the closed form "
                   "e^{gamma/(2 beta)} pi_ref / Z_q (lines) and numerical roots of the stationarity "
                   "condition of Appendix B.2 (circles). Unlike Figure 1, continuous at pi_ref = 0.",
           x=pr, y=pi, closed_form=pi_dkl,
           stationarity=gamma - beta * (sp.log(pi / pr) - sp.log((1 - pi) / (1 - pr))),
           curves=_ratio_curves(), x_label=REF_LABEL, y_label=PI_LABEL,
           uses=("direct-kl-g2-closed-form",)),
]

CLAIMS = []
