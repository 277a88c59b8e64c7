"""The ``"counterexample"`` kind (issue 42, item 4): exact refutations of symbolic statements, the maker in
fairtheory.proofs.counterexample, the dispatch in fairtheory_kernel.check, and forgeries, all refused."""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.proofs.counterexample import counterexample, interpolate, value_at
from fairtheory.proofs.symbolic import IDX, at, chain, exp, link, q, rep, sm, statement, v
from fairtheory_kernel import check as C
from fairtheory_kernel import symbolic as K

X, N = v("x"), v("n")
W, L = at("w", IDX), at("l", IDX)


def _square() -> dict:
    """``x^2 <= x`` for ``0 <= x <= 3`` (false for ``x > 1``)."""
    return statement([["x", "bounded", q(0), q(3)]], [("g", "<=", X * X, X, None)])


def _weighted() -> dict:
    """``sum_i w_i l_i <= l_1`` for weights ``0 <= w_i <= 1`` summing to 1 and real losses (false)."""
    return statement([["n", "count"], ["w", "family_bounded", q(0), q(1)], ["l", "family_real"]],
                     [("g", "<=", sm(W * L, 1, N), at("l", 1), None)], assume=[("==", sm(W, 1, N), q(1))])


def _edit(ce: dict, **ev: object) -> dict:
    out = copy.deepcopy(ce)
    out["evidence"].update(ev)
    return out


def test_a_point_refutes_and_the_check_dispatches() -> None:
    ce = counterexample(_square(), "g", {"x": 2})
    assert ce["evidence"]["margin"] == "2" and K.check_counterexample(ce)
    assert C.check_inline(ce) and C.check_proof(ce)
    assert C.statement_of(ce) == {"kind": "counterexample", "statement": K.canonical_statement(_square())}
    assert C.describe({"kind": "counterexample", "statement": _square()}) == \
        'the statement is false at a point of its domain: for all 0 <= x <= 3: x*x <= x  [goal "g"]'
    # a symbolic checker never accepts a counterexample, nor the converse
    assert not K.check(ce) and not K.check_counterexample({**ce, "kind": "symbolic"})


def test_families_counts_and_assumptions() -> None:
    ce = counterexample(_weighted(), "g", {"n": 3, "w": [F(1, 4), F(1, 2), F(1, 4)], "l": [0, 1, 5]})
    assert ce["evidence"]["margin"] == "7/4" and C.check_proof(ce)
    assert value_at(_weighted(), ce["evidence"]["point"], K.canonical_statement(_weighted())["goals"][0]["lhs"]) == F(7, 4)


def test_implies_runs_backwards_for_refutations() -> None:
    """Refuting ``S_a`` refutes every ``S_b`` that implies ``S_a``: more goals, fewer assumptions."""
    st = _square()
    more = statement([["x", "bounded", q(0), q(3)]], [("g", "<=", X * X, X, None), ("h", "<=", q(0), X, None)])
    ce = counterexample(st, "g", {"x": 2})
    mine = C.statement_of(ce)
    assert C.implies(mine, {"kind": "counterexample", "statement": more})
    assert C.implies(mine, {"kind": "counterexample", "statement": st})
    assert not C.implies(C.statement_of(counterexample(more, "g", {"x": 2})), {"kind": "counterexample", "statement": st})
    assumed = statement([["x", "bounded", q(0), q(3)]], [("g", "<=", X * X, X, None)], assume=[("<=", X, q(2))])
    # refuting "x^2 <= x when x <= 2" refutes the bare statement, not the converse
    assert C.implies(C.statement_of(counterexample(assumed, "g", {"x": 2})), {"kind": "counterexample", "statement": st})
    assert not C.implies(mine, {"kind": "counterexample", "statement": assumed})
    assert not C.implies(mine, {"kind": "symbolic", "statement": st})


def test_an_irrational_value_by_a_proof() -> None:
    """``exp(x) <= 2`` is false at ``x = 2``: ``2 + 1 <= exp(2)`` by ``exp u >= 1 + u`` (the sign test alone
    cannot order ``exp(2)`` and 3)."""
    st = statement([["x", "real"]], [("g", "<=", exp(X), q(2), None)])
    proof = chain(q(3), link("<=", exp(q(2)), "sos", terms=rep((1, [["exp1", q(2)]]))))
    ce = counterexample(st, "g", {"x": 2}, margin=1, proof=proof)
    assert K.check_counterexample(ce)
    assert not K.check_counterexample(_edit(ce, margin="2"))  # 2 + 2 <= exp(2) is not what the proof shows
    assert not K.check_counterexample(_edit(ce, point=[["x", ["q", "1"]]]))
    with pytest.raises(FairtheoryValueError):
        counterexample(st, "g", {"x": 2})  # no rational margin


# ------------------------------------------------------------------------------------------------ forgeries
def test_a_point_outside_a_range_is_refused() -> None:
    ce = counterexample(_square(), "g", {"x": 2})
    assert not K.check_counterexample(_edit(ce, point=[["x", ["q", "4"]]], margin="12"))  # 4 > 3
    assert not K.check_counterexample(_edit(ce, point=[["x", ["q", "-1"]]], margin="1"))
    pos = statement([["x", "positive"]], [("g", "<=", X, q(-1), None)])
    assert not K.check_counterexample(counterexample(pos, "g", {"x": 0}, margin=1))


def test_a_point_violating_an_assumption_is_refused() -> None:
    ce = counterexample(_weighted(), "g", {"n": 3, "w": [F(1, 4), F(1, 2), F(1, 2)], "l": [0, 1, 5]})
    assert not K.check_counterexample(ce)  # weights sum to 5/4
    assumed = statement([["x", "real"]], [("g", "<=", X * X, X, None)], assume=[("<=", X, q(1))])
    assert not K.check_counterexample(counterexample(assumed, "g", {"x": 2}))


def test_a_point_on_the_relation_or_a_margin_too_large_is_refused() -> None:
    ce = counterexample(_square(), "g", {"x": 2})
    for m in ("3", "5/2", "0", "-1"):
        assert not K.check_counterexample(_edit(ce, margin=m)), m
    with pytest.raises(FairtheoryValueError):
        counterexample(_square(), "g", {"x": 1})  # x^2 == x at 1: no counterexample
    assert not K.check_counterexample(_edit(ce, point=[["x", ["q", "1"]]], margin="1/1000000"))
    eq = statement([["x", "real"]], [("g", "==", X * X, X, None)])
    assert K.check_counterexample(counterexample(eq, "g", {"x": F(1, 2)}))  # |1/4 - 1/2| = 1/4
    assert not K.check_counterexample(counterexample(eq, "g", {"x": F(1, 2)}, margin=F(1, 3)))


def test_a_wrong_goal_or_a_missing_symbol_is_refused() -> None:
    ce = counterexample(_square(), "g", {"x": 2})
    assert not K.check_counterexample(_edit(ce, goal="h"))
    assert not K.check_counterexample(_edit(ce, point=[]))
    assert not K.check_counterexample(_edit(ce, point=[["x", ["q", "2"]], ["x", ["q", "2"]]]))
    assert not K.check_counterexample(_edit(ce, point=[["x", ["q", "2"]], ["y", ["q", "2"]]]))
    assert not K.check_counterexample(_edit(ce, point=[["x", ["v", "x"]]]))  # a value must be closed
    with pytest.raises(FairtheoryValueError):
        counterexample(_square(), "h", {"x": 2})


def test_a_family_value_outside_its_kind_is_refused() -> None:
    """The members the statement uses are checked: ``w_2 = 3/2 > 1``; a positive family given 0."""
    base = counterexample(_weighted(), "g", {"n": 2, "w": [F(1, 2), F(1, 2)], "l": [0, 2]})
    assert K.check_counterexample(base)
    bad = _edit(base, point=[["n", ["q", "2"]], ["w", interpolate([F(-1, 2), F(3, 2)]).t], ["l", interpolate([0, 2]).t]])
    assert not K.check_counterexample(bad)  # sums to 1 but leaves [0, 1]
    pos = statement([["n", "count"], ["w", "family_positive"]], [("g", "<=", sm(W, 1, N), q(1), None)])
    assert K.check_counterexample(counterexample(pos, "g", {"n": 2, "w": [1, 1]}))
    assert not K.check_counterexample(counterexample(pos, "g", {"n": 2, "w": [0, 2]}))
    assert not K.check_counterexample(counterexample(pos, "g", {"n": 3, "w": [2, 1, 0]}))


def test_a_count_must_be_a_positive_integer() -> None:
    st = statement([["n", "count"]], [("g", "<=", N, q(0), None)])
    ce = counterexample(st, "g", {"n": 1})
    assert K.check_counterexample(ce)
    for bad in (["q", "0"], ["q", "-2"], ["q", "3/2"], ["exp", ["q", "1"]]):
        assert not K.check_counterexample(_edit(ce, point=[["n", bad]], margin="1/100")), bad
    with pytest.raises(FairtheoryValueError):
        counterexample(st, "g", {"n": 0})


def test_sums_at_the_point_use_the_members_they_reach() -> None:
    """``sum_{i=1}^{n} w_i <= 1`` for ``0 <= w_i <= 1``: false at ``n = 2``, ``w = (3/4, 1/2)``; the same values
    claimed for ``n = 1`` hold (3/4 <= 1); a sum over more than 256 terms is not evaluated."""
    st = statement([["n", "count"], ["w", "family_bounded", q(0), q(1)]], [("g", "<=", sm(W, 1, N), q(1), None)])
    ce = counterexample(st, "g", {"n": 2, "w": [F(3, 4), F(1, 2)]})
    assert ce["evidence"]["margin"] == "1/4" and K.check_counterexample(ce)
    assert not K.check_counterexample(_edit(ce, point=[["n", ["q", "1"]], ce["evidence"]["point"][1]]))
    assert K.check_counterexample(counterexample(st, "g", {"n": 200, "w": [F(1, 2)]}))
    assert not K.check_counterexample(counterexample(st, "g", {"n": 300, "w": [F(1, 2)]}, margin=1))


def test_malformed_counterexamples_are_refused() -> None:
    ce = counterexample(_square(), "g", {"x": 2})
    for bad in ({**ce, "version": 2}, {**ce, "extra": 1}, {**ce, "evidence": {**ce["evidence"], "lemmas": []}},
                {**ce, "statement": {**ce["statement"], "kind": "counterexample"}}, {**ce, "evidence": None}):
        assert not K.check_counterexample(bad) and not C.check_inline(bad)
