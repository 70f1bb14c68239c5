"""Replay hints of the sign analysis (backends/hints.py): recorded where the first
alternative did not prove a sum, kept with memoised answers, tried first on replay, and
never able to change an answer."""

import sympy as sp

from verify_claims.backends import hints
from verify_claims.backends import symbolic as S
from verify_claims.engine.context import Trace

p1, p2, x = sp.symbols("p1 p2 x", positive=True)
SLACK = 1 - p1 - p2  # p1 + p2 < 1
# positive by its terms (p1 > 0, x (1 - p1 - p2) >= 0: "rest"), not by subtracting the
# slack first (p1 + x (1 - p1 - p2) - (1 - p1 - p2) has no provable sign)
SUM = p1 + x * SLACK


class CountingFacts(S.Facts):
    """Facts that note every sum whose sign is asked, to see which alternatives ran."""

    def __init__(self, *a):
        super().__init__(*a)
        self.asked = []

    def is_nonnegative(self, e, depth=0):
        self.asked.append(sp.expand(e))
        return super().is_nonnegative(e, depth)


SUBTRACTED = sp.expand(SUM - SLACK)


def test_the_alternative_that_proved_a_sum_is_recorded_when_it_is_not_the_first():
    with hints.collecting() as found:
        assert S.Facts([SLACK]).is_positive(SUM)
    assert list(found.values()) == ["rest"]
    # the slack itself is proved by its first alternative (itself minus itself): no hint
    with hints.collecting() as found:
        assert S.Facts([SLACK]).is_positive(SLACK)
    assert found == {}


def test_a_hint_is_named_with_the_facts_slacks():
    assert _found(SUM) == {hints._key(SUM, 0, [SLACK]): "rest"}


def test_zero_by_keeps_the_hints_of_its_winning_stage_only(monkeypatch):
    # the classic stage (which a replay of an exp/log winner does not run) finds a hint and
    # fails; the exp/log stage finds another and wins: only the latter is the point's
    def classic(expr, facts, names, seconds, prepared):
        hints.note(p1, 0, "rest", key="0:classic")
        return None, None, expr, False

    def exp_log(expr, facts, names, seconds, prepared):
        hints.note(p1, 0, "rest", key="0:exp-log")
        return "exp-log+rational", "exp-log+rational"
    monkeypatch.setattr(S, "_zero_by_classic", classic)
    monkeypatch.setattr(S, "_zero_by_exp_log", exp_log)
    label, name, residual, stopped, found = S._zero_by(sp.exp(x) + p1, S.Facts([SLACK]), S._STRATEGY_NAMES)
    assert name == "exp-log+rational" and found == {"0:exp-log": "rest"}


def test_a_memoised_answer_passes_on_the_same_hints():
    facts = S.Facts([SLACK])
    with hints.collecting() as first:
        assert facts.is_positive(SUM)
    with hints.collecting() as again:  # from the memo this time
        assert facts.is_positive(SUM)
    assert first == again and first


def test_a_given_hint_is_tried_first_and_skips_the_failing_slack():
    with hints.collecting() as found:
        S.Facts([SLACK]).is_positive(SUM)
    searched = CountingFacts([SLACK])
    assert searched.is_positive(SUM)
    assert SUBTRACTED in searched.asked  # the search subtracts the slack first, in vain
    replayed = CountingFacts([SLACK])
    with hints.given(found):
        assert replayed.is_positive(SUM)
    assert SUBTRACTED not in replayed.asked


def test_a_hint_never_changes_an_answer():
    for label in ("0", "rest", "7", "-1", "nonsense", ""):
        # a wrong or malformed hint for the sum: the usual order still proves it...
        with hints.given({hints._key(SUM, 0, [SLACK]): label}):
            assert S.Facts([SLACK]).is_positive(SUM)
        # ...and one for a sum with no provable sign proves nothing
        for e in (p1 - p2, SUM - 1):
            with hints.given({hints._key(e, 0, [SLACK]): label}):
                assert not S.Facts([SLACK]).is_positive(e)


def _found(e):
    with hints.collecting() as found:
        S.Facts([SLACK]).is_positive(e)
    return found


def test_a_decision_point_records_its_hints_and_a_replay_records_them_again():
    S._SEARCHED.clear()
    searched = Trace()
    assert S.prove_sign(SUM, "positive", S.Facts([SLACK]), trace=searched, at="demo")
    point = next(p for p in searched.record if not p.endswith(hints.SUFFIX))
    assert searched.record[point] == "as is"
    assert hints.decode(searched.record[point + hints.SUFFIX]) == _found(SUM)
    # a replay in a process that never searched (nothing memoised) records the same
    S._SEARCHED.clear()
    replayed = Trace(searched.record)
    assert S.prove_sign(SUM, "positive", S.Facts([SLACK]), trace=replayed, at="demo")
    assert replayed.record == searched.record
    # and without its hints (a certificate from before them) it still replays
    S._SEARCHED.clear()
    old = Trace({point: "as is"})
    assert S.prove_sign(SUM, "positive", S.Facts([SLACK]), trace=old, at="demo")
    S._SEARCHED.clear()


def test_a_replayed_decision_point_tries_its_hinted_alternative_first():
    S._SEARCHED.clear()
    searched = Trace()
    assert S.prove_sign(SUM, "positive", S.Facts([SLACK]), trace=searched, at="demo")
    point = next(p for p in searched.record if not p.endswith(hints.SUFFIX))
    for record, skips in ((searched.record, True), ({point: "as is"}, False)):
        S._SEARCHED.clear()
        facts = CountingFacts([SLACK])
        assert S.prove_sign(SUM, "positive", facts, trace=Trace(record), at="demo")
        assert (SUBTRACTED not in facts.asked) is skips
    S._SEARCHED.clear()


def test_a_node_is_named_with_the_slacks_it_is_analysed_with():
    # under other facts the same sum may be proved by another alternative
    assert hints._key(SUM, 0, [SLACK]) != hints._key(SUM, 0, [SLACK, 1 - p1])
    assert hints._key(SUM, 0, [SLACK]) != hints._key(SUM, 1, [SLACK])
    assert hints._key(SUM, 0, [SLACK]) == hints._key(p1 + x * (1 - p2 - p1), 0, [1 - p2 - p1])


def test_the_same_search_records_the_same_hints_whatever_ran_before_it():
    S._SEARCHED.clear()
    alone = Trace()
    S.prove_sign(SUM, "positive", S.Facts([SLACK]), trace=alone, at="demo")
    # another claim's search of the same sum earlier in this worker: memoised, same record
    after = Trace()
    S.prove_sign(SUM, "positive", S.Facts([SLACK]), trace=after, at="demo")
    assert after.record == alone.record
    S._SEARCHED.clear()


def test_hints_given_to_a_replay_do_not_leak_into_a_later_search_of_the_same_point():
    # proved by its first alternative (the slack subtracted) and by "rest" too: a stale
    # hint "rest" is recorded by the replay given it, and by nothing else in this process
    e = sp.expand(SLACK * sp.exp(x) + SLACK)
    S._SEARCHED.clear()
    searched = Trace()
    assert S.prove_sign(e, "positive", S.Facts([SLACK]), trace=searched, at="leak")
    (point, form), = searched.record.items()
    stale = {point: form, point + hints.SUFFIX: hints.encode({hints._key(e, 0, [SLACK]): "rest"})}
    replayed = Trace(stale)
    assert S.prove_sign(e, "positive", S.Facts([SLACK]), trace=replayed, at="leak")
    assert replayed.record == stale
    plain = Trace({point: form})  # the same options, no hints: its own answer, not the replay's
    assert S.prove_sign(e, "positive", S.Facts([SLACK]), trace=plain, at="leak")
    assert plain.record == {point: form}
    S._SEARCHED.clear()


def test_hints_round_trip_and_malformed_text_is_dropped():
    got = {"0:aaaaaaaaaaaa": "rest", "1:bbbbbbbbbbbb": "2"}
    assert hints.decode(hints.encode(got)) == got
    assert hints.encode(got) == "0:aaaaaaaaaaaa=rest 1:bbbbbbbbbbbb=2"
    assert hints.decode("no-equals =x y= 0:c=1") == {"0:c": "1"}
    assert hints.decode(None) == {} and hints.decode(["0:c=1"]) == {}
