"""Identities with kinks (Min, Max, Abs, sign, Piecewise) proved branch by branch
(backends/cases.py, used by kinds/identity.py).

Each positive test has its wrong twin: a sign flipped, a band's end moved, a factor
dropped, the domain widened.  The case split must not prove the twin (it is asked
directly, so a numeric check that happened to miss could not hide an unsound branch), and
the whole pipeline must refute it with a counterexample.  The identities are those of
Section 1 and Appendix B.1 of arXiv 2502.18548 (the clip of Eq. (1), the pair advantage,
the large-G normalised advantage), in small form.
"""

import sympy as sp

from verify_claims import Identity, Ref
from verify_claims.backends.cases import zero_by_cases
from verify_claims.backends.symbolic import with_ends
from verify_claims.engine.context import Trace
from verify_claims.engine.verify import verify
from verify_claims.run.certificates import Certificates
from verify_claims.run.keys import declaration_key
from verify_claims.run.settings import Settings

SETTINGS = Settings(samples=60)
x, eps, A, old, pi, d, r = sp.symbols("x epsilon A old pi d r", real=True)
POS = sp.Interval.open(0, sp.oo)
CLIP = sp.Min(sp.Max(x, 1 - eps), 1 + eps)


def _split(claim):
    """The case split alone, as the identity kind calls it (None when it decides nothing)."""
    rep = claim.domain.assumption_symbols()
    e = claim.lhs.xreplace(rep) - claim.rhs.xreplace(rep)
    return zero_by_cases(e, [w.xreplace(rep) for w in with_ends(claim.domain)], Trace())


def _proved(claim):
    how, why = _split(claim)
    assert how and why is None, why
    res = verify(claim, SETTINGS)
    assert res.status == "proved", (res.status, res.method, res.evidence)
    assert "case split" in res.method
    return res


def _refuted(claim):
    how, why = _split(claim)
    assert how is None and why, how
    res = verify(claim, SETTINGS)
    assert res.status == "refuted" and res.counterexample, (res.status, res.method)
    return res


def clip_identity(**kw):
    fields = dict(id="clip-nearest-end", title="t", ref=Ref("1", eq="1"), lhs=CLIP,
                  rhs=sp.Piecewise((1 - eps, x < 1 - eps), (1 + eps, x > 1 + eps), (x, True)),
                  domain={x: POS, eps: POS})
    fields.update(kw)
    return Identity(**fields)


def test_min_max_and_piecewise_agree_on_every_branch():
    res = _proved(clip_identity())
    assert res.evidence["symbolic"]["strategy"].startswith("case split into 3 branch(es)")


def test_a_band_end_moved_is_refuted_on_its_branch():
    wrong = clip_identity(rhs=sp.Piecewise((1 - eps, x < 1 - eps), (1 + 2 * eps, x > 1 + eps), (x, True)))
    how, why = _split(wrong)
    assert how is None and "x > epsilon + 1" in why.replace("epsilon + 1 < x", "x > epsilon + 1")
    _refuted(wrong)


def test_min_and_max_swapped_is_refuted():
    _refuted(clip_identity(lhs=sp.Max(sp.Min(x, 1 - eps), 1 + eps)))


def test_the_band_from_the_domain_leaves_one_branch():
    inside = Identity(id="inside", title="t", ref=Ref("1", eq="1"), lhs=CLIP, rhs=x, domain={x: POS, eps: POS},
                      where=(x >= 1 - eps, x <= 1 + eps))
    assert _proved(inside).evidence["symbolic"]["strategy"].startswith("case split into 1 branch(es)")
    # the domain widened to twice the band: outside it the clip is active
    _refuted(Identity(id="wide", title="t", ref=Ref("1", eq="1"), lhs=CLIP, rhs=x, domain={x: POS, eps: sp.Interval.open(0, 0.5)},
                      where=(x >= 1 - 2 * eps, x <= 1 + 2 * eps)))


def test_a_branch_zero_only_by_its_signs():
    """min(x A, clip(x) A) is min(x, 1 + eps) A for A >= 0: on the branch A >= 0, x > 1 + eps,
    x A <= (1 + eps) A the difference A (x - 1 - eps) is >= 0 and <= 0 (A = 0 there)."""
    claim = Identity(id="surrogate", title="t", ref=Ref("1", eq="1"), lhs=sp.Min(A * x, A * CLIP),
                     rhs=sp.Piecewise((A * sp.Min(x, 1 + eps), A >= 0), (A * sp.Max(x, 1 - eps), True)),
                     domain={x: POS, eps: POS, A: sp.Reals})
    assert "0 by its signs" in _proved(claim).evidence["symbolic"]["strategy"]
    # the factor A dropped from the negative-advantage branch
    _refuted(Identity(id="surrogate-wrong", title="t", ref=Ref("1", eq="1"), lhs=claim.lhs,
                      rhs=sp.Piecewise((A * sp.Min(x, 1 + eps), A >= 0), (sp.Max(x, 1 - eps), True)),
                      domain=claim.domain))


def test_abs_in_the_domain_is_split_too():
    """|pi - old| <= eps old keeps the ratio pi/old in [1 - eps, 1 + eps] (Section 1.3)."""
    claim = Identity(id="ratio-band", title="t", ref=Ref("1", eq="1"), lhs=sp.Min(1 + eps, sp.Max(pi / old, 1 - eps)), rhs=pi / old,
                     domain={old: sp.Interval.Lopen(0, 1), pi: sp.Interval(0, 1), eps: sp.Interval.open(0, 1)},
                     where=(sp.Abs(pi - old) <= eps * old,))
    _proved(claim)
    # an absolute step |pi - old| <= eps does not keep the ratio in the band
    _refuted(Identity(id="ratio-band-wrong", title="t", ref=Ref("1", eq="1"), lhs=claim.lhs, rhs=claim.rhs, domain={
        old: sp.Interval.Lopen(0, 1), pi: sp.Interval(0, 1), eps: sp.Interval.open(0, 1)},
        where=(sp.Abs(pi - old) <= eps,)))


def test_a_sign_becomes_an_assumption_and_opens_a_root():
    """The large-G normalised advantage of Appendix B.1: (r_a - mean)/std = sign(d) sqrt((1 - p)/p)
    for rewards r + d, r with p = P(a).  Only with d > 0 (or d < 0) an assumption does
    sqrt(p (1 - p) d**2) become |d| sqrt(p (1 - p))."""
    mean = old * (r + d) + (1 - old) * r
    std = sp.sqrt(old * (r + d - mean) ** 2 + (1 - old) * (r - mean) ** 2)
    claim = Identity(id="normalised", title="t", ref=Ref("1", eq="1"), lhs=(r + d - mean) / std,
                     rhs=sp.sign(d) * sp.sqrt((1 - old) / old),
                     domain={old: sp.Interval.open(0, 1), r: sp.Reals, d: sp.Reals}, where=(sp.Ne(d, 0),))
    assert "2 branch(es)" in _proved(claim).evidence["symbolic"]["strategy"]
    # the sign flipped
    _refuted(Identity(id="normalised-flipped", title="t", ref=Ref("1", eq="1"), lhs=claim.lhs, rhs=-claim.rhs, domain=claim.domain))
    # sqrt(p/(1 - p)) is the other output's factor, not this one's
    _refuted(Identity(id="normalised-swapped", title="t", ref=Ref("1", eq="1"), lhs=claim.lhs,
                      rhs=sp.sign(d) * sp.sqrt(old / (1 - old)), domain=claim.domain))


def test_an_equation_condition_is_substituted():
    """A_i for a pair: 0 when the rewards tie, else d/|d| = sign(d) (Section 2.1)."""
    claim = Identity(id="pair", title="t", ref=Ref("1", eq="1"), lhs=sp.Piecewise((0, sp.Eq(r, r + d)), (d / sp.Abs(d), True)),
                     rhs=sp.sign(d), domain={r: sp.Reals, d: sp.Reals})
    _proved(claim)
    _refuted(Identity(id="pair-wrong", title="t", ref=Ref("1", eq="1"), lhs=claim.lhs, rhs=sp.sign(-d), domain=claim.domain))


def test_a_piecewise_undefined_somewhere_in_the_domain_is_not_split_away():
    step = sp.Piecewise((1, x > 0))  # nan for x <= 0
    how, why = zero_by_cases(step - 1, [])
    assert how is None and "x <= 0" in why
    xp = sp.Symbol("x", positive=True)
    assert zero_by_cases(sp.Piecewise((1, xp > 0)) - 1, [])[0]


def test_abs_of_a_possibly_complex_argument_is_not_split():
    # |u|**2 = u**2 for a real u only: u = sqrt(x) - 1 is not real for x < 0, and the split
    # into u and -u would "prove" it there
    u = sp.sqrt(x) - 1
    how, why = zero_by_cases(sp.Abs(u) ** 2 - u ** 2, [])
    assert how is None and "not shown to be real" in why


def test_a_kink_under_a_sum_is_not_split_on_its_bound_variable():
    k, n = sp.symbols("k n", integer=True, positive=True)
    # sum_k |k - n| over k = 1..3 is not sum_k (k - n): splitting on k - n >= 0 would be
    # a condition on the summation variable, not on n
    e = sp.Sum(sp.Abs(k - n), (k, 1, 3)) - sp.Sum(k - n, (k, 1, 3))
    how, why = zero_by_cases(e, [])
    assert how is None and why.startswith("the branch where no condition:"), why


def test_too_many_branches_is_left_to_the_other_methods(monkeypatch):
    import verify_claims.backends.cases as cases
    monkeypatch.setattr(cases, "MAX_BRANCHES", 4)  # the same rule as at 64, on a smaller split
    ys = sp.symbols("y0:4", real=True)
    e = sp.Add(*[sp.Abs(y - i) for i, y in enumerate(ys)]) - sp.Add(*[sp.Max(y - i, i - y) for i, y in enumerate(ys)])
    how, why = zero_by_cases(e, [])
    assert how is None and "more than 4 branches" in why
    # within the limit the same kind of identity is proved
    assert zero_by_cases(sp.Abs(ys[0] - 1) - sp.Max(ys[0] - 1, 1 - ys[0]), [])[0]


def test_a_case_split_proof_replays_and_an_older_checked_record_is_searched_again():
    claim = clip_identity()
    first = verify(claim, SETTINGS)
    rec = Certificates.record(first, declaration_key(claim))
    assert rec["status"] == "proved"
    again = verify(claim, SETTINGS, certificate=rec)
    assert again.status == "proved" and again.evidence["replay"]["result"] == "replayed"
    assert "case split" in again.method
    # a record of "checked" written before the case split existed is not trusted to skip it
    old = {"declaration": rec["declaration"], "status": "checked", "method": "numeric spot-check (mpmath)",
           "methods": ["symbolic", "smt", "bernstein", "ball", "interval"]}
    assert verify(claim, SETTINGS, certificate=old).status == "proved"
    current = dict(old, methods=Certificates.record(verify(claim, SETTINGS), rec["declaration"]).get("methods")
                   or ["symbolic", "smt", "bernstein", "ball", "interval", "case split"])
    assert verify(claim, SETTINGS, certificate=current).status == "checked"


def test_a_sympy_failure_inside_the_split_is_not_a_verdict(monkeypatch):
    import verify_claims.backends.cases as cases

    def broken(*_a, **_k):
        raise TypeError("Invalid NaN comparison")
    monkeypatch.setattr(cases, "_decide_branch", broken)
    how, why = zero_by_cases(CLIP - x, [x >= 1 - eps, x <= 1 + eps])
    assert how is None and "TypeError" in why


# ------------------------------------------------------------------ a review's counterexamples
# each was "proved" by an earlier version of the split, and is false at the point named

def test_a_not_equal_condition_is_no_sign_condition():
    # Not(Eq(x, 0)) is Ne(x, 0): x < 0 or x > 0, never "x <= 0" (false at x = 1: value 2)
    p = sp.Piecewise((0, sp.Eq(x, 0)), (x, True))
    assert zero_by_cases(sp.Abs(p) + x, [])[0] is None
    y = sp.Symbol("y", real=True)
    line = Identity(id="on-a-line", title="t", ref=Ref("1", eq="1"),
                    lhs=sp.Piecewise((sp.Abs(sp.Piecewise((0, sp.Eq(y, 0)), (y, True))) + y, sp.Eq(x, y)), (0, True)),
                    rhs=sp.Integer(0), domain={x: sp.Reals, y: sp.Reals})
    assert verify(line, SETTINGS).status != "proved"  # false only where x = y = 1, 2, ...
    # the tie convention of Section 2.1 is still proved: 0 on a tie, else d/|d|
    assert zero_by_cases(sp.Piecewise((0, sp.Eq(d, 0)), (d / sp.Abs(d), True)) - sp.sign(d), [])[0]


def test_complex_or_infinite_factors_have_no_sign():
    assert zero_by_cases((1 + sp.I) * sp.Max(x, 0), [])[0] is None  # 1 + I at x = 1
    w, y = sp.symbols("w y", real=True)
    assert zero_by_cases(sp.Piecewise((w ** 2 / (y - 1), sp.Eq(y, 1)), (0, True)), [])[0] is None  # zoo w**2


def test_no_substitution_reaches_a_bound_variable():
    y = sp.Symbol("y", real=True)
    # |y| * sum_{y=-1}^{1} |y| is 2 |y|, not 0 (the sum's own y turned non-negative: -1 + 0 + 1)
    assert zero_by_cases(sp.Abs(y) * sp.Sum(sp.Abs(y), (y, -1, 1)), [])[0] is None
    assert zero_by_cases(sp.Piecewise((sp.Sum(sp.Heaviside(x), (x, -1, 1)), x > 0), (3, True)) - 3, [])[0] is None
    assert zero_by_cases(sp.Piecewise((sp.Sum(x * y, (x, 1, 2)) - 5, sp.Eq(x, y)), (0, True)), [])[0] is None


def test_a_symbol_is_not_merged_with_another_of_its_name():
    xr, xp = sp.Symbol("x", real=True), sp.Symbol("x", positive=True)
    # at xr = 1, xp = 2 the value is -1
    assert zero_by_cases(sp.Piecewise((xr - xp, xr > 0), (0, True)), [])[0] is None


def test_a_long_condition_is_not_distributed():
    ys = sp.symbols("y0:18", real=True)
    cond = sp.And(*[sp.Or(a < 0, b < 0) for a, b in zip(ys[::2], ys[1::2])])
    how, why = zero_by_cases(sp.Piecewise((1, cond), (0, True)) - 1, [])
    assert how is None and "more than 12 relations" in why


def test_a_second_review_s_counterexamples():
    xr, xp = sp.Symbol("x", real=True), sp.Symbol("x", positive=True)
    # two symbols named x: folding xr > 0 must not make xr the other x (1 at xr = 3, xp = 1/2)
    assert zero_by_cases(sp.Piecewise((1, sp.And(xr > 0, xp < 1)), (0, True)), [xr > 2])[0] is None
    y = sp.Symbol("y", real=True)
    # x = y substituted into a binder where x is bound and free at once (each false at x = y = 1 or 2)
    for inner in (sp.Integral(x * y, (x, 0, x)) - y ** 3 / 3, sp.Derivative(x * y, x) - 2 * y,
                  sp.Sum(x * y, (x, 1, x)) - y * (y + 1) * (2 * y + 1) / 6, sp.Subs(x * y, x, x + 1) - (y + 1) ** 2):
        assert zero_by_cases(sp.Piecewise((inner, sp.Eq(x, y)), (0, True)), [])[0] is None, inner
    # log 6 - log 2 - log 3 is 0, but sympy cannot sign it: no branch may be refuted by it
    yp = sp.Symbol("y", positive=True)
    c = sp.log(6) - sp.log(2) - sp.log(3)
    assert zero_by_cases(sp.Piecewise((1, sp.Eq(c * yp, 0)), (0, True)), [])[0] is None
