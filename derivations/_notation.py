"""The paper's notation shared by the derivation modules (a helper: not scanned for claims).

``name(notation, expr, latex)`` is ``notation.define`` that refuses to give a second name to an
expression already named differently: sympy canonicalises eagerly (the advantage of shifted
rewards is structurally the advantage of the rewards), and a later ``define`` of the same
expression would silently rename every earlier occurrence.
"""

import sympy as sp

__all__ = ["E_P_G", "OLD", "P_G", "R_G", "THETA", "name", "policy"]


def name(notation, expr, latex):
    """``notation.define(expr, latex)``, refusing a structurally equal expression that already
    has another name; returns ``expr`` unchanged."""
    expr = sp.sympify(expr)
    old = notation.named.get(expr)
    if old is not None and old != latex:
        raise ValueError(f"{latex!r}: this expression is already named {old!r}")
    return notation.define(expr, latex)


def policy(which: str, output: str = "a") -> str:
    r"""The paper's LaTeX for one probability: ``policy("theta", "a")`` is
    ``\pi_\theta(a \mid q)``; ``which`` is theta, ref or old."""
    head = {"theta": r"\pi_\theta", "ref": r"\pi_{\mathrm{ref}}", "old": r"\pi_{\theta_{\mathrm{old}}}"}[which]
    return rf"{head}({output} \mid q)"


# ----------------------------------------------------------------- the paper's named quantities
OLD = r"\pi_{\theta_{\mathrm{old}}}(\cdot \mid q)"
THETA = r"\pi_\theta(\cdot \mid q)"


def R_G(G) -> str:
    r"""The reward preference R_G(theta | q) of Section 2.1 (G a number, or "G", or r"\infty")."""
    return rf"\mathcal{{R}}_{{{G}}}(\theta \mid q)"


def P_G(G, o="o", against=OLD) -> str:
    r"""The expected group-relative preference P_G(o | pi'(. | q), q) of Section 2.1."""
    return rf"\mathcal{{P}}_{{{G}}}({o} \mid {against}, q)"


def E_P_G(G, against=OLD, under=THETA) -> str:
    r"""E_{o ~ pi_theta}[P_G(o | pi_old, q)], the right side of Eq. (6)."""
    return rf"\mathbb{{E}}_{{o \sim {under}}}[{P_G(G, 'o', against)}]"
