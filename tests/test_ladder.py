"""ladder+asymptotics: limits of sums over a symbolic group size G (backends/ladder.py,
kinds/limit.py).

S_G is enclosed in arb balls along G = 10, 100, ..., 10^6; S_G - S_inf must tend to 0 and
G (S_G - S_inf) settle on the declared 1/G coefficient (``rate``).  A wrong coefficient or a
wrong limit is refuted with the ladder's numbers; a correct claim is *checked* (never proved
or certified); a ladder that cannot settle within its budget is never a counterexample.
"""

import sys
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "src", ROOT / "derivations"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from verify_claims import DeclarationError, Limit, Ref  # noqa: E402
from verify_claims.backends import ladder  # noqa: E402
from verify_claims.engine.verify import verify  # noqa: E402
from verify_claims.run.keys import declaration_key  # noqa: E402
from verify_claims.run.settings import Settings  # noqa: E402

SETTINGS = Settings(seed=0, samples=100, precision=30)
METHOD = "ladder+asymptotics"

G = sp.Symbol("G", integer=True, positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
mu = sp.Symbol("mu")
MU = sp.Interval(sp.Rational(1, 10), sp.Rational(9, 10))
# E[(k/G)^2] for k ~ Bin(G, mu): exactly mu^2 + mu (1 - mu)/G
SQUARE = sp.Sum(sp.binomial(G, k) * mu ** k * (1 - mu) ** (G - k) * (k / G) ** 2, (k, 0, G))
# sum_{k <= G} 1/k^2 = pi^2/6 - 1/G + 1/(2 G^2) - ...: a sum without a binomial weight
BASEL = sp.Sum(1 / k ** 2, (k, 1, G))


def lim(cid, expr, value, rate=None, domain=None):
    c = Limit(id=cid, title="t", ref=Ref("2.1"), expr=expr, var=G, point=sp.oo, direction="-", value=value,
              rate=rate, domain=domain if domain is not None else ({mu: MU} if expr.has(mu) else {}))
    c.validate()
    return c


def never_strong(res):
    assert res.status not in ("proved", "certified"), (res.status, res.method)


# ------------------------------------------------------------------ refuted, with the ladder's numbers
def test_wrong_rate_of_a_binomial_sum_is_refuted_with_its_numbers():
    res = verify(lim("square-wrong-rate", SQUARE, mu ** 2, rate=mu * (1 - mu) / 2), SETTINGS)
    assert res.status == "refuted" and res.method == f"{METHOD} counterexample", (res.status, res.method)
    cx = res.counterexample
    assert cx["type"] == "rate differs"
    rows = cx["ladder"]
    assert [r["G"] for r in rows] == ["10", "100", "1000", "10^4", "10^5", "10^6"]
    # G (S_G - S_inf) = mu (1 - mu) exactly, against the declared half of it: the mismatch is printed
    mu0 = sp.Rational(cx["point"]["mu"]) if "/" in cx["point"]["mu"] else sp.Float(cx["point"]["mu"])
    for r in rows:
        assert float(r["G (sum - limit)"]) == pytest.approx(float(mu0 * (1 - mu0)), rel=1e-9)
        assert float(r["G (sum - limit) - c"]) == pytest.approx(float(mu0 * (1 - mu0) / 2), rel=1e-3)
    assert "not on the declared coefficient" in cx["explanation"] and "10^6" in cx["explanation"]
    assert "claimed coefficient at the point" in cx and cx["raw"]["type"] == "rate differs"
    never_strong(res)


def test_wrong_rate_of_a_plain_sum_is_refuted():
    res = verify(lim("basel-wrong-rate", BASEL, sp.pi ** 2 / 6, rate=1), SETTINGS)
    assert res.status == "refuted", (res.status, res.message)
    cx = res.counterexample
    assert cx["type"] == "rate differs" and "settled on -0.99999" in cx["explanation"]
    # a sum free of G continues its partial sums: 10^5 fits the term budget, 10^6 does not
    assert cx["ladder"][-1]["G"] == "10^5" and "budget" in cx["method"]


def test_wrong_sign_of_the_rate_is_refuted_for_a_bundled_sum():
    import s2_1_reward_preference as s21
    c = next(c for c in s21.CLAIMS if c.id == "pg-binary-limit-high-reward")
    import dataclasses
    bad = dataclasses.replace(c, id="pg-rate-sign", rate=-c.rate, harmless_mutants={}, uses=())
    bad.validate()
    res = verify(bad, SETTINGS)
    assert res.status == "refuted" and res.counterexample["type"] == "rate differs"


def test_wrong_limit_value_is_refuted():
    res = verify(lim("basel-wrong-value", BASEL, sp.pi ** 2 / 6 + sp.Rational(1, 1000), rate=-1), SETTINGS)
    assert res.status == "refuted" and res.method == f"{METHOD} counterexample"
    cx = res.counterexample
    assert cx["type"] == "limit differs" and "settled away from 0" in cx["explanation"]
    assert float(cx["ladder"][-1]["sum - limit"]) == pytest.approx(-1e-3, rel=0.02)
    res = verify(lim("square-wrong-value", SQUARE, mu ** 2 + sp.Rational(1, 100)), SETTINGS)
    assert res.status == "refuted" and res.counterexample["type"] == "limit differs"
    never_strong(res)


def test_divergent_sum_is_refuted():
    # binomial(G, k) mu^k without (1 - mu)^(G - k): the sum is (1 + mu)^G E[...] -> oo
    res = verify(lim("square-diverges", sp.Sum(sp.binomial(G, k) * mu ** k * (k / G) ** 2, (k, 0, G)), mu ** 2),
                 SETTINGS)
    assert res.status == "refuted" and res.counterexample["type"] == "limit differs"
    assert "grows along the ladder" in res.counterexample["explanation"]


def test_rate_slower_than_one_over_g_is_refuted():
    # sum_{k > G} k^(-3/2) ~ 2/sqrt(G): the limit holds, but no 1/G coefficient describes it
    c = lim("zeta-three-halves", sp.Sum(k ** sp.Rational(-3, 2), (k, 1, G)), sp.zeta(sp.Rational(3, 2)),
            rate=-2)
    prog = ladder.Program(c.expr, G, c.value, c.rate)
    v = ladder.judge(prog.run({}))
    assert v.verdict == "counterexample" and v.kind == "rate differs" and "grows" in v.why


# ------------------------------------------------------------------ checked, never proved or certified
def test_correct_rate_is_checked_by_ladder_asymptotics():
    res = verify(lim("square-ok", SQUARE, mu ** 2, rate=mu * (1 - mu)), SETTINGS)
    assert res.status == "checked" and res.method == METHOD, (res.status, res.method, res.message)
    num = res.evidence["numeric"]
    assert num["method"] == METHOD and num["points"] == 4
    assert num["group_sizes"] == "10, 100, 1000, 10^4, 10^5, 10^6"
    for i in range(1, 5):
        rec = num[f"ladder_{i}"]
        assert "settles on the declared coefficient" in rec["verdict"]
        assert len(rec["scaled_gap"].split(", ")) == 6 and rec["coefficient_here"]
    cert = res.evidence["certificate"]
    assert cert["method"] is None and METHOD in cert["reason"] and "not a proof" in cert["reason"]
    never_strong(res)


def test_correct_limit_without_a_rate_is_checked():
    res = verify(lim("basel-ok", BASEL, sp.pi ** 2 / 6), SETTINGS)
    assert res.status == "checked" and res.method == METHOD
    assert res.evidence["numeric"]["coefficient"].startswith("none declared")


def test_exact_model_never_refutes_a_correct_coefficient():
    """S_G = L + c/G + d/G^2 exactly: G (S_G - L) - c = d/G is 1/9 of the last step, far
    inside the 3x tolerance, whatever d is; a coefficient off by more than the tolerance
    (3 x 0.9 |d|/10^5 + |d|/10^6) is refuted, one off by less is not resolved (checked)."""
    for d in (-50, -1, 1, 1000):
        e = sp.Rational(1, 3) + sp.Rational(7, 5) / G + d / G ** 2  # reaches G = 10^6 (no terms to sum)
        prog = ladder.Program(e, G, sp.Rational(1, 3), sp.Rational(7, 5))
        assert ladder.judge(prog.run({})).verdict == "consistent", d
        prog = ladder.Program(e, G, sp.Rational(1, 3), sp.Rational(7, 5) + sp.Rational(1, 10))
        assert ladder.judge(prog.run({})).verdict == "counterexample", d
    e = sp.Rational(1, 3) + sp.Rational(7, 5) / G - 50 / G ** 2
    prog = ladder.Program(e, G, sp.Rational(1, 3), sp.Rational(7, 5) + sp.Rational(1, 10 ** 4))
    assert ladder.judge(prog.run({})).verdict == "consistent"  # 1e-4 is inside the tolerance 1.4e-3


# ------------------------------------------------------------------ not settled: never refuted
def test_slowly_converging_sum_is_not_refuted():
    # sum_{k >= 2} 1/(k log^2 k) converges, its tail ~ 1/log G: no ladder to 10^6 settles it,
    # so a wrong value is undecided, not refuted (and a right one is not checked either)
    slow = sp.Sum(1 / (k * sp.log(k) ** 2), (k, 2, G))
    res = verify(lim("slow-wrong", slow, sp.Rational(21, 10)), SETTINGS)
    assert res.status == "undecided", (res.status, res.counterexample)
    assert "inconclusive_at" in res.evidence["numeric"] and res.counterexample is None


def test_budget_too_small_to_settle_is_not_refuted(monkeypatch):
    monkeypatch.setattr(ladder, "TERMS", 150)  # G = 10 and 100 fit, 1000 does not
    res = verify(lim("basel-budget", BASEL, sp.pi ** 2 / 6 + 1, rate=5), SETTINGS)
    assert res.status == "undecided" and res.counterexample is None, (res.status, res.counterexample)
    num = res.evidence["numeric"]
    assert num["group_sizes"] == "10, 100"
    assert "too few to judge" in num["inconclusive_at"]["explanation"]
    assert "stopped before G = 1000" in num["ladder_1"]["stopped"]


# ------------------------------------------------------------------ the ball sums themselves
def test_windowed_binomial_sum_encloses_the_full_sum():
    """The window and its geometric tail bounds against the full sum in exact rationals."""
    from flint import arb, ctx
    g = sp.sqrt(G - 1 - k) / sp.sqrt(k + 1)
    e = sp.Sum(sp.binomial(G - 1, k) * mu ** k * (1 - mu) ** (G - 1 - k) * g, (k, 0, G - 1))
    prog = ladder.Program(e, G, 0)
    m0 = sp.Rational(3, 10)
    run = prog.run({mu: m0}, rungs=(200,))
    (rung,) = run.rungs
    assert rung.terms < 200  # the walk stopped before the tails, which are enclosed
    exact = sum(sp.binomial(199, j) * m0 ** j * (1 - m0) ** (199 - j) * sp.sqrt(199 - j) / sp.sqrt(j + 1)
                for j in range(200))
    with ctx.workprec(200):
        assert rung.S.contains(arb(str(sp.N(exact, 60))))
    assert rung.S.rad() < 1e-30


def test_ladder_is_deterministic():
    c = lim("square-det", SQUARE, mu ** 2, rate=mu * (1 - mu))
    a, b = verify(c, SETTINGS), verify(c, SETTINGS)
    strip = lambda ev: {k: v for k, v in ev["numeric"].items() if "seconds" not in k and k != "screen"}  # noqa: E731
    assert strip(a.evidence) == strip(b.evidence)


# ------------------------------------------------------------------ the model
def test_rate_is_declared_shown_and_keyed():
    c = lim("square-key", SQUARE, mu ** 2, rate=mu * (1 - mu))
    d = lim("square-key", SQUARE, mu ** 2, rate=mu * (1 - mu) / 2)
    e = lim("square-key", SQUARE, mu ** 2)
    assert len({declaration_key(c), declaration_key(d), declaration_key(e)}) == 3
    tex = c.statement_latex()
    assert r"o\left(\frac{1}{G}\right)" in tex and r"\frac{\mu \left(1 - \mu\right)}{G}" in tex
    assert r"\lim" in e.statement_latex()
    assert c.rate in c.expressions()


def test_rate_declaration_errors():
    x = sp.Symbol("x")
    with pytest.raises(DeclarationError, match="needs the point oo"):
        Limit(id="r0", title="t", ref="1", expr=sp.sin(x) / x, var=x, point=0, value=1, rate=1).validate()
    with pytest.raises(DeclarationError, match="must not contain"):
        lim("r1", BASEL, sp.pi ** 2 / 6, rate=-1 + 1 / G)
    with pytest.raises(DeclarationError):  # the rate's symbols need a domain like any other
        lim("r2", BASEL, sp.pi ** 2 / 6, rate=mu, domain={})


def test_rate_of_a_plain_limit_is_claimed_too():
    """Without a sum, sympy.limit proves value and rate together; a wrong rate is not proved
    and the ladder refutes it."""
    e = (1 + sp.Integer(1) / G) ** G
    ok = verify(lim("e-rate", e, sp.E, rate=-sp.E / 2), SETTINGS)
    assert ok.status == "proved" and ok.evidence["symbolic"]["rate"] == "-E/2"
    bad = verify(lim("e-rate-wrong", e, sp.E, rate=-sp.E), SETTINGS)
    assert bad.status == "refuted" and bad.counterexample["type"] == "rate differs"


# ------------------------------------------------------------------ the report shows it
def test_report_rows_in_words():
    from verify_claims.report.view import _counterexample, _evidence
    res = verify(lim("square-report", SQUARE, mu ** 2, rate=mu * (1 - mu)), SETTINGS)
    (num,) = [e for e in _evidence(res.to_json()["evidence"]) if e["name"] == "numeric check"]
    assert num["method"] == METHOD
    labels = {r["label"]: r["value"] for r in num["rows"]}
    assert labels["group sizes G reached at every point"] == "10, 100, 1000, 10^4, 10^5, 10^6"
    assert "ladder 1: G (S_G - S_inf) along the ladder" in labels
    assert "ladder 1: declared c at this point" in labels and "judged by" in labels
    bad = verify(lim("square-report-bad", SQUARE, mu ** 2, rate=mu), SETTINGS)
    rows = {r["label"]: r["value"] for r in _counterexample(bad.counterexample, {"mu": r"\mu"})}
    assert "G (sum - limit) - c" in rows["ladder of values"] and "explanation" in rows


# ------------------------------------------------------------------ the bundled paper
BUNDLED = ("group-std-l2-consistent-binary", "pg-binary-limit-high-reward", "reward-pref-binary-limit-r-inf",
           "stationary-eq11-tends-to-eq13-binary")


def test_bundled_group_size_limits_are_checked_by_ladder_asymptotics():
    import s2_1_reward_preference as s21
    import s2_3_stationary_policies as s23
    claims = {c.id: c for c in s21.CLAIMS + s23.CLAIMS if c.id in BUNDLED}
    assert set(claims) == set(BUNDLED)
    for cid in BUNDLED:
        c = claims[cid]
        assert c.rate is not None, cid
        res = verify(c, SETTINGS)
        assert res.status == "checked" and res.method == METHOD, (cid, res.status, res.method, res.message)
        num = res.evidence["numeric"]
        assert num["group_sizes"] == "10, 100, 1000, 10^4, 10^5, 10^6", cid
        assert all("settles on the declared coefficient" in num[f"ladder_{i}"]["verdict"]
                   for i in range(1, num["points"] + 1)), cid
        assert METHOD in res.evidence["certificate"]["reason"]
        assert res.seconds < 10, (cid, res.seconds)
