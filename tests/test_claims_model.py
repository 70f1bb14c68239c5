"""Declaration validation: a malformed claim raises DeclarationError naming the claim id
and the cause (``Claim.validate`` is what the loader calls on every declared claim)."""

from __future__ import annotations

import pytest
import sympy as sp

from verify_claims import (HOLDS, Chain, DeclarationError, Expect, Identity, Inequality, Limit,
                           Maximiser, Monotonic, Ref, Root, Simulation, Stationary, Step, Summary,
                           not_in_general, refuted)
from verify_claims.model.claims import KINDS

x, y, a = sp.symbols("x y a")
R = sp.Interval(-sp.oo, sp.oo)
UNIT = sp.Interval(0, 1)


def _identity(**kw):
    base = dict(id="good-id", title="a title", ref=Ref("2", eq="3"), lhs=x, rhs=x, domain={x: R})
    base.update(kw)
    return Identity(**base)


def _sim_run(seed, runs, **params):
    """A simulation's run function (module level, as the kind requires)."""
    return [0.0] * runs


def _raises_naming(claim, *fragments):
    """validate() raises DeclarationError whose message names the claim id and each fragment."""
    with pytest.raises(DeclarationError) as info:
        claim.validate()
    msg = str(info.value)
    assert repr(claim.id) in msg or str(claim.id) in msg, msg
    for f in fragments:
        assert f in msg, msg
    return msg


# ------------------------------------------------------------------ what is accepted
def test_a_well_formed_claim_of_every_kind_validates():
    claims = [
        _identity(id="k-identity"),
        Chain(id="k-chain", title="t", ref="1", steps=[(x + 1) ** 2, x ** 2 + 2 * x + 1], domain={x: R}),
        Inequality(id="k-inequality", title="t", ref="1", lhs=x ** 2, op=">=", rhs=sp.S(0), domain={x: R}),
        Limit(id="k-limit", title="t", ref="1", expr=sp.sin(x) / x, var=x, point=0, value=1),
        Monotonic(id="k-monotonic", title="t", ref="1", expr=sp.exp(x), var=x, domain={x: R}),
        Root(id="k-root", title="t", ref="1", equation=sp.Eq(x ** 2, 4), var=x, value=sp.S(2),
             interval=sp.Interval(0, 3)),
        Stationary(id="k-stationary", title="t", ref="1", objective=-(x - a) ** 2, wrt=x, at={x: a},
                   domain={a: R}),
        Maximiser(id="k-maximiser", title="t", ref="1", objective=-(x - a) ** 2, wrt=x, at={x: a},
                  over={x: R}, domain={a: R}),
        Summary(id="k-summary", title="t", ref="1", uses=("k-maximiser",)),
        Simulation(id="k-simulation", title="t", ref="1", run=_sim_run, target=0, runs=5),
    ]
    for c in claims:
        c.validate()  # must not raise
    assert sorted(c.kind for c in claims) == sorted(KINDS)


def test_numbers_are_sympified_and_expect_string_becomes_refuted():
    c = _identity(lhs=1.5, rhs=sp.Rational(3, 2), domain={})
    c.validate()
    assert c.expressions() == [sp.Float(1.5), sp.Rational(3, 2)]
    e = _identity(expect="the paper drops a factor").expect
    assert e == Expect(False, "the paper drops a factor", paper_error=True)
    assert _identity(expect="holds").expect is HOLDS


def test_ref_renders_section_equation_and_note():
    assert str(Ref("3.1", eq="14", note="sentence after (14)")) == "Section 3.1, Eq. (14), sentence after (14)"
    assert str(Ref("Appendix A")) == "Appendix A"


# ------------------------------------------------------------------ ids and metadata
@pytest.mark.parametrize("bad", ["Bad_Id", "with space", "trailing-", "-leading", "double--hyphen", "", "UPPER"])
def test_bad_slug_id(bad):
    with pytest.raises(DeclarationError) as info:
        _identity(id=bad).validate()
    msg = str(info.value)
    assert repr(bad) in msg and "not a slug" in msg


def test_non_string_id():
    with pytest.raises(DeclarationError, match="not a slug"):
        _identity(id=42).validate()


def test_empty_title_and_reference():
    _raises_naming(_identity(title=""), "empty title")
    _raises_naming(_identity(ref=""), "empty paper reference")


# ------------------------------------------------------------------ domains
def test_missing_domain_for_a_symbol():
    msg = _raises_naming(_identity(lhs=x + y, rhs=y + x, domain={x: R}), "no domain")
    assert "symbol(s) y" in msg


def test_missing_domain_lists_every_missing_symbol():
    msg = _raises_naming(_identity(lhs=x + y + a, rhs=a + y + x, domain={}), "no domain")
    assert "a, x, y" in msg


def test_empty_interval():
    assert sp.Interval(1, 0) is sp.S.EmptySet
    _raises_naming(_identity(domain={x: sp.Interval(1, 0)}), "domain of x is empty")


def test_empty_open_interval():
    _raises_naming(_identity(domain={x: sp.Interval.open(1, 1)}), "domain of x is empty")


def test_unsupported_set():
    _raises_naming(_identity(domain={x: sp.Union(sp.Interval(0, 1), sp.Interval(2, 3))}),
                   "use sympy Interval, FiniteSet or Range")


def test_set_depending_on_another_symbol():
    _raises_naming(_identity(lhs=x + y, rhs=y + x, domain={x: R, y: sp.Interval(0, x)}),
                   "depends on ['x']", "where=")


def test_domain_key_must_be_a_symbol():
    _raises_naming(_identity(lhs=sp.S(1), rhs=sp.S(1), domain={x + 1: R}), "is not a sympy Symbol")


def test_domain_must_be_a_dict():
    with pytest.raises(DeclarationError, match="domain must be a dict"):
        _identity(domain=[(x, R)])


def test_where_entry_must_be_a_relation():
    _raises_naming(_identity(where=(x,)), "`where` entry x is not a sympy relation")


def test_where_relation_with_unknown_symbol():
    _raises_naming(_identity(where=(x + y < 1,)), "uses y with no domain")


# ------------------------------------------------------------------ expressions
@pytest.mark.parametrize("bad", ["x + 1", lambda v: v, [x], None], ids=["str", "lambda", "list", "missing"])
def test_non_sympy_expression(bad):
    _raises_naming(_identity(lhs=bad), "not a sympy expression")


# ------------------------------------------------------------------ chains
def test_chain_with_one_step():
    _raises_naming(Chain(id="one-step", title="t", ref="1", steps=[x], domain={x: R}),
                   "at least two steps")


def test_chain_with_no_steps():
    _raises_naming(Chain(id="no-steps", title="t", ref="1", steps=[], domain={}), "at least two steps")


def test_chain_bad_relation():
    _raises_naming(Chain(id="bad-rel", title="t", ref="1", steps=[x, Step(x, relation="becomes")],
                         domain={x: R}), "step 2 has relation 'becomes'")


def test_chain_equals_mixing_equation_and_expression():
    _raises_naming(Chain(id="mixed", title="t", ref="1", steps=[x, sp.Eq(x, 1)], domain={x: R}),
                   "step 2 mixes an equation and an expression")


def test_chain_equivalent_needs_equations():
    _raises_naming(Chain(id="eqv-expr", title="t", ref="1", steps=[x, Step(2 * x, relation="equivalent")],
                         domain={x: R}), "step 2 is 'equivalent'", "sympy Eq")


def test_chain_plain_steps_become_step_objects():
    c = Chain(id="plain", title="t", ref="1", steps=[x, 2 * x / 2], domain={x: R})
    assert all(isinstance(s, Step) for s in c.steps) and c.steps[1].relation == "equals"


# ------------------------------------------------------------------ per-kind parameters
@pytest.mark.parametrize("op", ["=<", "==", "!=", "le", ""])
def test_inequality_bad_op(op):
    _raises_naming(Inequality(id="bad-op", title="t", ref="1", lhs=x, op=op, rhs=sp.S(0), domain={x: R}),
                   f"op {op!r} is not one of")


@pytest.mark.parametrize("direction", ["left", "+/-", "", "right"])
def test_limit_bad_direction(direction):
    _raises_naming(Limit(id="bad-dir", title="t", ref="1", expr=x, var=x, point=0, value=0,
                         direction=direction), "direction must be '+', '-' or '+-'")


@pytest.mark.parametrize("point,direction", [(sp.oo, "+"), (-sp.oo, "-")])
def test_limit_cannot_approach_infinity_from_beyond(point, direction):
    _raises_naming(Limit(id="beyond-oo", title="t", ref="1", expr=1 / x, var=x, point=point, value=0,
                         direction=direction), "cannot approach")


def test_limit_variable_and_point():
    _raises_naming(Limit(id="var-str", title="t", ref="1", expr=x, var="x", point=0, value=0),
                   "limit variable must be a sympy Symbol")
    _raises_naming(Limit(id="point-sym", title="t", ref="1", expr=x, var=x, point=a, value=a,
                         domain={a: R}), "limit point must be a number")


def test_limit_variable_needs_no_domain_but_parameters_do():
    Limit(id="lim-ok", title="t", ref="1", expr=a * x, var=x, point=0, value=0, domain={a: R}).validate()
    _raises_naming(Limit(id="lim-param", title="t", ref="1", expr=a * x, var=x, point=0, value=0),
                   "symbol(s) a have no domain")


def test_monotonic_parameters():
    _raises_naming(Monotonic(id="mono-dir", title="t", ref="1", expr=x, var=x, direction="up", domain={x: R}),
                   "direction must be 'increasing' or 'decreasing'")
    _raises_naming(Monotonic(id="mono-nodom", title="t", ref="1", expr=x * a, var=x, domain={a: R}),
                   "x needs a domain")
    _raises_naming(Monotonic(id="mono-finite", title="t", ref="1", expr=x, var=x,
                             domain={x: sp.FiniteSet(1, 2)}), "must be an Interval")


def test_root_parameters():
    _raises_naming(Root(id="root-interval", title="t", ref="1", equation=x, var=x, value=0, interval=(0, 1)),
                   "`interval` must be a sympy Interval")
    _raises_naming(Root(id="root-var", title="t", ref="1", equation=x, var="x", value=0, interval=UNIT),
                   "root variable must be a sympy Symbol")


def test_stationary_parameters():
    _raises_naming(Stationary(id="stat-at", title="t", ref="1", objective=x ** 2, wrt=x, at={}),
                   "`at` gives no value for x")
    _raises_naming(Stationary(id="stat-simplex", title="t", ref="1", objective=x ** 2, wrt=x, at={x: 0},
                              simplex=True), "simplex=True needs at least two variables")
    _raises_naming(Stationary(id="stat-wrt", title="t", ref="1", objective=x ** 2, wrt=[x ** 2], at={}),
                   "wrt entries must be sympy Symbols")


def test_maximiser_parameters():
    _raises_naming(Maximiser(id="max-scope", title="t", ref="1", objective=-x ** 2, wrt=x, at={x: 0},
                             over={x: R}, scope="everywhere"), "scope must be 'global' or 'local'")
    _raises_naming(Maximiser(id="max-over", title="t", ref="1", objective=-x ** 2, wrt=x, at={x: 0}),
                   "x need both a value in `at` and a range in `over`")
    _raises_naming(Maximiser(id="max-empty", title="t", ref="1", objective=-x ** 2, wrt=x, at={x: 0},
                             over={x: sp.Interval(2, 1)}), "domain of x is empty")


# ------------------------------------------------------------------ expectations
@pytest.mark.parametrize("reason", ["", "   ", None])
def test_refuted_needs_a_reason(reason):
    with pytest.raises(DeclarationError, match="refuted\\(\\.\\.\\.\\) needs a one-line reason"):
        refuted(reason)


@pytest.mark.parametrize("reason", ["", "  \t"])
def test_not_in_general_needs_a_reason(reason):
    with pytest.raises(DeclarationError, match="not_in_general\\(\\.\\.\\.\\) needs a one-line reason"):
        not_in_general(reason)


def test_expectation_constructors():
    r = refuted("  sign of the KL term is flipped ")
    assert (r.holds, r.reason, r.paper_error) == (False, "sign of the KL term is flipped", True)
    n = not_in_general("the paper says: not in general")
    assert (n.holds, n.paper_error) == (False, False)
    assert str(HOLDS) == "holds" and str(r) == "refuted: sign of the KL term is flipped"


def test_empty_expect_string_is_rejected():
    with pytest.raises(DeclarationError, match="needs a one-line reason"):
        _identity(expect="")
