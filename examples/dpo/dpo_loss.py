"""DPO, Section 4: the partition function cancels, and the gradient of the DPO loss.

Rafailov et al. (2023, arXiv 2305.18290).  A preference pair: the preferred response w
and the dispreferred response l of one prompt.  The Bradley-Terry model (Eq. (1)) gives
P(w > l) = e^{r_w} / (e^{r_w} + e^{r_l}); with the reward written through a policy as in
Eq. (5), r = beta log(pi/pi_ref) + beta log Z, the normaliser Z cancels, which is what
lets DPO train the policy directly.  The implicit reward is r_hat = beta log(pi_theta/pi_ref).

The policy in the gradient claims is a softmax over three responses (w, l and one more,
m) with free logits t_w, t_l, t_m, so that log pi_theta(y) = t_y - log sum_y' e^{t_y'}.
"""

import sympy as sp

from verify_claims import Identity, Ref

REAL = sp.Interval(-sp.oo, sp.oo)
POS = sp.Interval.open(0, sp.oo)
UNIT = sp.Interval.open(0, 1)

beta, Z = sp.symbols("beta Z")
pi_w, pi_l, ref_w, ref_l = sp.symbols("pi_w pi_l ref_w ref_l")
t = dict(zip("wlm", sp.symbols("t_w t_l t_m")))
s_w, s_l = sp.symbols("s_w s_l")                    # reference log-probabilities of w and l


def sigma(z):
    """The logistic function 1/(1 + e^{-z})."""
    return 1 / (1 + sp.exp(-z))


def reward_from_policy(pi, ref):
    """Eq. (5) of arXiv 2305.18290: r = beta log(pi/pi_ref) + beta log Z."""
    return beta * sp.log(pi / ref) + beta * sp.log(Z)


_r_w, _r_l = reward_from_policy(pi_w, ref_w), reward_from_policy(pi_l, ref_l)

log_pi = {y: t[y] - sp.log(sp.Add(*[sp.exp(t[k]) for k in "wlm"])) for y in "wlm"}
rhat_w = beta * (log_pi["w"] - s_w)                  # implicit rewards beta log(pi_theta/pi_ref)
rhat_l = beta * (log_pi["l"] - s_l)
LOSS = -sp.log(sigma(rhat_w - rhat_l))               # the DPO loss of one preference pair

GRAD_DOMAIN = {beta: POS, s_w: REAL, s_l: REAL, **{t[y]: REAL for y in "wlm"}}

CLAIMS = [
    Identity(
        id="bradley-terry-partition-cancels",
        title="Under Bradley-Terry, the preference probability written with the optimal policy "
              "does not depend on the partition function Z",
        ref=Ref("4", note="the Bradley-Terry probability in terms of pi* and pi_ref, after Eq. (5)"),
        lhs=sp.exp(_r_w) / (sp.exp(_r_w) + sp.exp(_r_l)),
        rhs=1 / (1 + sp.exp(beta * sp.log(pi_l / ref_l) - beta * sp.log(pi_w / ref_w))),
        domain={beta: POS, Z: POS, pi_w: UNIT, pi_l: UNIT, ref_w: UNIT, ref_l: UNIT},
        note="Bradley-Terry (Eq. (1)) with the rewards of Eq. (5): the common term beta log Z "
             "shifts both rewards and cancels in the difference.",
    ),
    *[Identity(
        id=f"dpo-gradient-weight-t{y}",
        title=f"The derivative of the DPO loss in the logit t_{y} is -beta sigma(r_hat_l - r_hat_w) "
              f"times the difference of the log-probability derivatives",
        ref=Ref("4", note="paragraph on what the DPO update does: the gradient of the DPO loss"),
        lhs=sp.diff(LOSS, t[y]),
        rhs=-beta * sigma(rhat_l - rhat_w) * (sp.diff(log_pi["w"], t[y]) - sp.diff(log_pi["l"], t[y])),
        domain=GRAD_DOMAIN,
        note="The weight sigma(r_hat_l - r_hat_w) is large when the implicit reward ranks the "
             "pair wrongly.  For the third response m both log-probability derivatives are "
             "-pi_theta(m), so its derivative is 0.",
    ) for y in "wlm"],
]
