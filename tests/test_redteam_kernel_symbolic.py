"""Held-out red team of the ``"symbolic"`` kernel (fairtheory_kernel.symbolic + normal_form): each test is one
attempt to have a false or unproved statement accepted, through substitutions (attained points, lemma instances,
sums over ``n``, case splits) with dependent, empty or parameter-dependent ranges, division by expressions that
vanish on the domain, powers/log/exp side conditions, capture through the summation index, and equality goals
proved by inequalities.  Every attempt asserts refusal; the controls beside them assert that the same shape with a
true statement is accepted (so a refusal is about the forgery, not the shape)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fairtheory_kernel import symbolic as K
from fairtheory_kernel.check import check_inline, describe, implies, statement_of

X, Y, W, U, N = ["v", "x"], ["v", "y"], ["v", "w"], ["v", "u"], ["v", "n"]
B = ["b", 0]


def q(s: str) -> list[Any]:
    return ["q", s]


def plus(*xs: Any) -> list[Any]:
    return ["+", *xs]


def times(*xs: Any) -> list[Any]:
    return ["*", *xs]


def neg(x: Any) -> list[Any]:
    return times(q("-1"), x)


def cert(symbols: list[Any], goals: list[dict[str, Any]], proofs: list[dict[str, Any]],
         lemmas: list[Any] | None = None) -> dict[str, Any]:
    return {"kind": "symbolic", "version": 1, "title": "red team", "citation": "H10",
            "statement": {"symbols": symbols, "goals": goals},
            "evidence": {"lemmas": lemmas or [], "proofs": proofs}}


def one(symbols: list[Any], goal: dict[str, Any], proof: dict[str, Any], lemmas: list[Any] | None = None
        ) -> dict[str, Any]:
    goal = {"name": "g", **goal}
    return cert(symbols, [goal], [{"name": "g", **proof}], lemmas)


def ident(lhs: Any, rhs: Any) -> dict[str, Any]:
    return {"chain": [lhs, {"rel": "==", "expr": rhs, "by": "identity"}]}


def sos(lhs: Any, rhs: Any, terms: list[Any]) -> dict[str, Any]:
    return {"chain": [lhs, {"rel": "<=", "expr": rhs, "by": "sos", "terms": terms}]}


def refused(c: dict[str, Any]) -> bool:
    return K.check(c) is False and check_inline(c) is False


# ------------------------------------------------------------------------------------------ attained points
def test_attained_point_in_a_range_only_for_some_parameter_values() -> None:
    """``x`` real, ``0 <= y <= 1``; goal ``y <= 1`` "with equality at y = x": the point is in ``[0, 1]`` only for
    ``x`` in ``[0, 1]``, and equality ``x = 1`` holds only at ``x = 1`` - the statement says for every x."""
    sym = [["x", "real"], ["y", "bounded", q("0"), q("1")]]
    proof = sos(Y, q("1"), [["1", [["hi", "y"]]]])
    assert K.check(one(sym, {"rel": "<=", "lhs": Y, "rhs": q("1")}, proof)) is True  # control
    assert refused(one(sym, {"rel": "<=", "lhs": Y, "rhs": q("1"), "attained": [["y", X]]}, proof))
    assert K.check(one(sym, {"rel": "<=", "lhs": Y, "rhs": q("1"), "attained": [["y", q("1")]]}, proof)) is True


def test_range_non_empty_only_at_some_parameter_values_is_refused_at_declaration() -> None:
    """``w`` real, ``x <= y <= x + w``: empty for ``w < 0``; the true-where-defined goal ``y - x <= w`` must not be
    accepted on a domain the kernel cannot prove non-empty (nor with an attained point on it)."""
    sym = [["w", "real"], ["x", "real"], ["y", "bounded", X, plus(X, W)]]
    goal = {"rel": "<=", "lhs": plus(Y, neg(X)), "rhs": W}
    assert refused(one(sym, goal, sos(goal["lhs"], W, [["1", [["hi", "y"]]]])))
    assert refused(one(sym, dict(goal, attained=[["y", plus(X, W)]]), sos(goal["lhs"], W, [["1", [["hi", "y"]]]])))


def test_attained_point_emptying_a_dependent_range_through_a_nonnegative_width() -> None:
    """``u >= 0``, ``x <= y <= x + u``; equality of ``(y - x) u <= u^2`` claimed at ``u = x^2 - 1`` (negative for
    ``|x| < 1``: ``u``'s own kind fails) and at ``u = -1``."""
    sym = [["u", "nonnegative"], ["x", "real"], ["y", "bounded", X, plus(X, U)]]
    lhs, rhs = times(plus(Y, neg(X)), U), ["^", U, 2]
    proof = sos(lhs, rhs, [["1", [["hi", "y"], ["pos", U]]]])
    assert K.check(one(sym, {"rel": "<=", "lhs": lhs, "rhs": rhs}, proof)) is True  # control
    for val in (plus(["^", X, 2], q("-1")), q("-1")):
        assert refused(one(sym, {"rel": "<=", "lhs": lhs, "rhs": rhs, "attained": [["u", val]]}, proof))


def test_attained_value_dividing_by_a_range_variable_that_may_vanish() -> None:
    """``0 <= y <= 1``, ``x`` real; ``x y <= x y`` trivially, "equality at x = 1/y": ``1/y`` is undefined at
    ``y = 0``, which the range allows."""
    sym = [["y", "bounded", q("0"), q("1")], ["x", "real"]]
    e = times(X, Y)
    assert refused(one(sym, {"rel": "==", "lhs": e, "rhs": e, "attained": [["x", ["/", q("1"), Y]]]}, ident(e, e)))


@pytest.mark.parametrize("val", [["log", Y], ["rpow", Y, q("1/2")], ["/", q("1"), plus(Y, q("-1/2"))],
                                 ["^", Y, -1]], ids=["log", "rpow", "pole", "negpow"])
def test_attained_values_with_unproved_side_conditions(val: Any) -> None:
    """A value whose own side condition fails somewhere on the domain (``log 0``, ``0^(1/2)`` as ``rpow``, a pole at
    ``y = 1/2``, ``0^(-1)``)."""
    sym = [["y", "bounded", q("0"), q("1")], ["x", "real"]]
    e = times(X, q("0"))
    assert refused(one(sym, {"rel": "==", "lhs": e, "rhs": e, "attained": [["x", val]]}, ident(e, e)))


def test_attained_value_making_a_positive_symbol_zero() -> None:
    """``y > 0``, ``x`` real; goal ``y (1/y) == 1`` (true on ``y > 0``) "with equality at y = x^2": ``x = 0`` gives
    ``y = 0``, outside ``y > 0``, where ``1/y`` is undefined."""
    sym = [["y", "positive"], ["x", "real"]]
    lhs = times(Y, ["/", q("1"), Y])
    assert K.check(one(sym, {"rel": "==", "lhs": lhs, "rhs": q("1")}, ident(lhs, q("1")))) is True  # control
    assert refused(one(sym, {"rel": "==", "lhs": lhs, "rhs": q("1"), "attained": [["y", ["^", X, 2]]]},
                       ident(lhs, q("1"))))
    assert K.check(one(sym, {"rel": "==", "lhs": lhs, "rhs": q("1"), "attained": [["y", plus(["^", X, 2], q("1"))]]},
                       ident(lhs, q("1")))) is True


def test_attained_family_value_outside_the_family_kind_or_using_the_index() -> None:
    """``a_i > 0``; ``a_1 <= a_1 + x^2`` "with equality at a = x - 1" (not > 0 everywhere), at ``x = b`` (the index
    outside a sum) and at a lemma variable's name."""
    sym = [["a", "family_positive"], ["x", "real"]]
    a1 = ["at", "a", q("1")]
    goal = {"rel": "<=", "lhs": a1, "rhs": plus(a1, ["^", X, 2])}
    proof = sos(a1, goal["rhs"], [["1", [["sq", X]]]])
    assert K.check(one(sym, dict(goal, attained=[["x", q("0")]]), proof)) is True  # control
    assert refused(one(sym, dict(goal, attained=[["a", plus(X, q("-1"))], ["x", q("0")]]), proof))
    assert refused(one(sym, dict(goal, attained=[["x", B]]), proof))
    assert refused(one(sym, dict(goal, attained=[["z", q("0")]]), proof))


def test_attained_on_a_count_or_twice_on_one_name() -> None:
    """Counts are never assigned (``sum_{i=1}^n 1 <= n`` "with equality at n = 1/2"); a name assigned twice."""
    sym = [["n", "count"], ["x", "real"]]
    s = ["sum", q("1"), q("1"), N]
    assert K.check(one(sym, {"rel": "==", "lhs": s, "rhs": N}, ident(s, N))) is True  # control
    assert refused(one(sym, {"rel": "==", "lhs": s, "rhs": N, "attained": [["n", q("1/2")]]}, ident(s, N)))
    assert refused(one(sym, {"rel": "==", "lhs": s, "rhs": N, "attained": [["x", q("0")], ["x", q("1")]]},
                       ident(s, N)))


def test_attained_value_through_a_later_name_that_ranges_on_it() -> None:
    """``x`` real, ``x <= y <= x + 1``; goal ``(y - x)(y - x - 1) <= 0`` "with equality at x = y - 1" - the value of
    ``x`` uses ``y`` whose range uses ``x`` (a cycle; the point may leave the domain)."""
    sym = [["x", "real"], ["y", "bounded", X, plus(X, q("1"))]]
    gap = plus(Y, neg(X))
    lhs = times(gap, plus(gap, q("-1")))
    proof = sos(lhs, q("0"), [["1", [["hi", "y"], ["lo", "y"]]]])
    assert K.check(one(sym, {"rel": "<=", "lhs": lhs, "rhs": q("0")}, proof)) is True  # control
    assert refused(one(sym, {"rel": "<=", "lhs": lhs, "rhs": q("0"), "attained": [["x", plus(Y, q("-1"))]]}, proof))
    assert refused(one(sym, {"rel": "<=", "lhs": lhs, "rhs": q("0"), "attained": [["x", plus(Y, q("-2"))]]}, proof))


# ------------------------------------------------------------------------------------------ sums over n
def test_division_by_a_sum_that_is_empty_for_n_equal_1() -> None:
    """``x_i > 0``; ``(sum_{i=2}^n x_i) / (sum_{i=2}^n x_i) == 1`` for every count ``n``: at ``n = 1`` both sums are
    empty (0/0).  The same with ``i = 1`` (never empty) is a control."""
    sym = [["n", "count"], ["x", "family_positive"]]
    for lo, ok in (("2", False), ("1", True)):
        s = ["sum", ["at", "x", B], q(lo), N]
        lhs = ["/", s, s]
        c = one(sym, {"rel": "==", "lhs": lhs, "rhs": q("1")}, ident(lhs, q("1")))
        assert K.check(c) is ok


def test_sum_ranges_that_are_not_ranges_for_every_n() -> None:
    """``sum_{i=3}^n 1 == n - 2`` (``n = 1``: the range 3..1 is not a range); ``sum_{i=n}^{1} 1 == 2 - n``;
    ``sum_{i=5}^{2} 1 == -2`` (the reversed-range convention)."""
    sym = [["n", "count"]]
    for s, r in ((["sum", q("1"), q("3"), N], plus(N, q("-2"))), (["sum", q("1"), N, q("1")], plus(q("2"), neg(N))),
                 (["sum", q("1"), q("5"), q("2")], q("-2"))):
        assert refused(one(sym, {"rel": "==", "lhs": s, "rhs": r}, ident(s, r)))


def test_sum_of_a_nonnegative_family_is_not_positive_for_every_n() -> None:
    """``log(sum_{i=1}^n x_i)`` with ``x_i >= 0``: the sum may be 0 (log undefined); ``log(sum_{i=1}^n y_i)`` with
    ``y_i > 0`` is a control."""
    sym = [["n", "count"], ["x", "family_nonnegative"], ["y", "family_positive"]]
    for fam, ok in (("x", False), ("y", True)):
        t = ["log", ["sum", ["at", fam, B], q("1"), N]]
        assert K.check(one(sym, {"rel": "==", "lhs": t, "rhs": t}, ident(t, t))) is ok


def test_capture_a_value_with_its_own_sum_substituted_into_a_sum() -> None:
    """``0 <= x <= n``; ``sum_{i=1}^{n} x <= n^2`` "with equality at x = sum_{i=1}^{n} 1": a value holding a sum
    over the same index put inside a sum (a nested sum after substitution) must not be accepted."""
    sym = [["n", "count"], ["x", "bounded", q("0"), N]]
    lhs, rhs = ["sum", X, q("1"), N], ["^", N, 2]
    proof = sos(lhs, rhs, [["1", [["hi", "x"], ["pos", N]]]])
    assert K.check(one(sym, {"rel": "<=", "lhs": lhs, "rhs": rhs}, proof)) is True  # control
    assert refused(one(sym, {"rel": "<=", "lhs": lhs, "rhs": rhs,
                             "attained": [["x", ["sum", B, q("1"), N]]]}, proof))


def test_sum_mono_over_a_reversed_or_count_shifted_range() -> None:
    """A lemma ``t^2 >= 0`` summed over ``i = 5..2`` with weight ``-1`` written as the range reversed, and over
    ``i = 3..n`` (not a range at ``n = 1``): ``sum (-t_i^2) <= 0`` style reversals must not pass."""
    lem = {"name": "sq", "vars": [["t", "real"]], "rel": "<=", "lhs": q("0"), "rhs": ["^", ["v", "t"], 2],
           "proof": sos(q("0"), ["^", ["v", "t"], 2], [["1", [["sq", ["v", "t"]]]]])}
    sym = [["n", "count"], ["x", "family_real"]]
    for lo, hi in ((q("5"), q("2")), (q("3"), N)):
        lhs, rhs = q("0"), ["sum", ["^", ["at", "x", B], 2], lo, hi]
        link = {"rel": "<=", "expr": rhs, "by": "sum_mono", "lemma": "sq", "term": ["at", "x", B],
                "weight": q("1"), "lo": lo, "hi": hi}
        assert refused(one(sym, {"rel": "<=", "lhs": lhs, "rhs": rhs}, {"chain": [lhs, link]}, [lem]))


def test_sum_mono_with_a_two_variable_lemma_or_a_positive_variable() -> None:
    """``sum_mono`` instantiates one *real* variable only: a lemma ``0 <= 1/t`` proved for ``t > 0`` summed at
    ``t_i = x_i`` (``x`` real: ``1/x_0`` is undefined) is refused."""
    lem = {"name": "inv", "vars": [["t", "positive"]], "rel": "<=", "lhs": q("0"), "rhs": ["/", q("1"), ["v", "t"]],
           "proof": sos(q("0"), ["/", q("1"), ["v", "t"]], [["1", [["pos", ["/", q("1"), ["v", "t"]]]]]])}
    sym = [["n", "count"], ["x", "family_real"]]
    rhs = ["sum", ["/", q("1"), ["at", "x", B]], q("1"), N]
    link = {"rel": "<=", "expr": rhs, "by": "sum_mono", "lemma": "inv", "term": ["at", "x", B], "weight": q("1"),
            "lo": q("1"), "hi": N}
    assert refused(one(sym, {"rel": "<=", "lhs": q("0"), "rhs": rhs}, {"chain": [q("0"), link]}, [lem]))


# ------------------------------------------------------------------------------------------ divisions, powers, log, exp
@pytest.mark.parametrize("lhs", [["/", ["^", X, 2], ["^", X, 2]], times(X, ["^", X, -1]),
                                 ["/", plus(["exp", X], q("-1")), plus(["exp", X], q("-1"))],
                                 ["/", plus(["^", X, 2], ["^", Y, 2]), plus(["^", X, 2], ["^", Y, 2])]],
                         ids=["x2/x2", "x*x^-1", "expm1/expm1", "r2/r2"])
def test_division_by_an_expression_vanishing_on_the_domain(lhs: Any) -> None:
    """``lhs == 1`` for every real ``x, y`` - false (undefined) at ``x = 0`` / ``x = y = 0``."""
    sym = [["x", "real"], ["y", "real"]]
    assert refused(one(sym, {"rel": "==", "lhs": lhs, "rhs": q("1")}, ident(lhs, q("1"))))


@pytest.mark.parametrize("lhs,rhs", [(["log", ["^", X, 2]], times(q("2"), ["log", X])),
                                     (["log", times(X, Y)], plus(["log", X], ["log", Y])),
                                     (["exp", times(q("1/2"), ["log", ["^", X, 2]])], X),
                                     (["rpow", ["^", X, 2], q("1/2")], X),
                                     (["^", ["rpow", X, q("1/2")], 2], X)],
                         ids=["log-x2", "log-xy", "sqrt-x2-exp", "sqrt-x2-rpow", "rpow-of-real"])
def test_log_exp_rpow_identities_false_for_negative_reals(lhs: Any, rhs: Any) -> None:
    """Identities true on ``x, y > 0`` and false or undefined for some real ``x, y`` (``sqrt(x^2) = |x|``)."""
    assert refused(one([["x", "real"], ["y", "real"]], {"rel": "==", "lhs": lhs, "rhs": rhs}, ident(lhs, rhs)))


def test_log_identity_on_positives_is_a_control() -> None:
    lhs, rhs = ["log", times(X, Y)], plus(["log", X], ["log", Y])
    assert K.check(one([["x", "positive"], ["y", "positive"]], {"rel": "==", "lhs": lhs, "rhs": rhs},
                       ident(lhs, rhs))) is True


def test_log_of_a_huge_rational_is_not_given_a_sign() -> None:
    """``log(10^21) >= 0`` is true but ``-log(10^-21) <= 0`` is false; a ``pos`` generator on ``log(1/10^21)``
    (an atom the kernel keeps unsigned past 10^20) must not prove ``0 <= log(10^-21)``."""
    tiny = ["log", ["q", "1/" + "1" + "0" * 21]]
    assert refused(one([["x", "real"]], {"rel": "<=", "lhs": q("0"), "rhs": tiny}, sos(q("0"), tiny, [["1", [["pos", tiny]]]])))


def test_exp1_generator_cannot_be_turned_around() -> None:
    """``exp(u) >= 1 + u`` gives ``exp(x) - 1 - x >= 0``; it must not prove ``exp(x) <= 1 + x``."""
    lhs, rhs = ["exp", X], plus(q("1"), X)
    assert refused(one([["x", "real"]], {"rel": "<=", "lhs": lhs, "rhs": rhs}, sos(lhs, rhs, [["1", [["exp1", X]]]])))
    assert K.check(one([["x", "real"]], {"rel": "<=", "lhs": rhs, "rhs": lhs}, sos(rhs, lhs, [["1", [["exp1", X]]]]))) is True


# ------------------------------------------------------------------------------------------ case splits, max, equality
def test_case_split_proving_a_false_max_identity() -> None:
    """``max(x, 0) == x`` for every real ``x`` (false for ``x < 0``): the ``max`` rule in the ``x >= 0`` branch,
    and in the other branch the rule with the hypothesis used the wrong way round."""
    m = ["max", X, q("0")]
    br1 = [m, {"rel": "==", "expr": X, "by": "max", "a": X, "b": q("0"), "terms": [["1", [["hyp"]]]]}]
    br2 = [m, {"rel": "==", "expr": X, "by": "max", "a": X, "b": q("0"), "terms": [["1", [["hyp"]]]]}]
    assert refused(one([["x", "real"]], {"rel": "==", "lhs": m, "rhs": X}, {"cases": X, "chains": [br1, br2]}))
    # the max rule without a case split, and the hypothesis generator outside a case
    assert refused(one([["x", "real"]], {"rel": "==", "lhs": m, "rhs": X}, {"chain": br1}))


def test_case_split_control_max_is_at_least_both() -> None:
    m = ["max", X, q("0")]
    br1 = [X, {"rel": "==", "expr": m, "by": "max", "a": X, "b": q("0"), "terms": [["1", [["hyp"]]]]}]
    br2 = [X, {"rel": "<=", "expr": q("0"), "by": "sos", "terms": [["1", [["hyp"]]]]},
           {"rel": "==", "expr": m, "by": "max", "a": q("0"), "b": X, "terms": [["1", [["hyp"]]]]}]
    assert K.check(one([["x", "real"]], {"rel": "<=", "lhs": X, "rhs": m}, {"cases": X, "chains": [br1, br2]})) is True
    # the same two chains for the equality goal ``x == max(x, 0)``: branch 2 has a ``<=`` link
    assert refused(one([["x", "real"]], {"rel": "==", "lhs": X, "rhs": m}, {"cases": X, "chains": [br1, br2]}))


def test_equality_goal_by_an_inequality_chain_or_two_opposite_chains() -> None:
    """``x^2 == x^2 + y^2`` by ``sos`` (a ``<=`` step) must not prove ``==``."""
    lhs, rhs = ["^", X, 2], plus(["^", X, 2], ["^", Y, 2])
    assert refused(one([["x", "real"], ["y", "real"]], {"rel": "==", "lhs": lhs, "rhs": rhs},
                       sos(lhs, rhs, [["1", [["sq", Y]]]])))


def test_derivative_in_a_variable_a_range_uses_or_through_max() -> None:
    """``d/dx max(x, 0) == 1`` (false at ``x < 0``) and ``d/dx (y - x) == -1`` with ``x <= y <= x + 1``."""
    d = ["d", ["max", X, q("0")], ["x"]]
    assert refused(one([["x", "real"]], {"rel": "==", "lhs": d, "rhs": q("1")}, ident(d, q("1"))))
    sym = [["x", "real"], ["y", "bounded", X, plus(X, q("1"))]]
    d2 = ["d", plus(Y, neg(X)), ["x"]]
    assert refused(one(sym, {"rel": "==", "lhs": d2, "rhs": q("-1")}, ident(d2, q("-1"))))


# ------------------------------------------------------------------------------------------ statements and words
def test_a_narrower_domain_does_not_imply_the_wider_one() -> None:
    """A certificate of ``log(x y) = log x + log y`` for ``x, y > 0`` implies nothing about real ``x, y``; one with
    an extra goal still implies its sub-goal (control)."""
    lhs, rhs = ["log", times(X, Y)], plus(["log", X], ["log", Y])
    c = one([["x", "positive"], ["y", "positive"]], {"rel": "==", "lhs": lhs, "rhs": rhs}, ident(lhs, rhs))
    wider = copy.deepcopy(c["statement"])
    wider["symbols"] = [["x", "real"], ["y", "real"]]
    assert implies(statement_of(c), {"kind": "symbolic", "statement": c["statement"]}) is True
    assert implies(statement_of(c), {"kind": "symbolic", "statement": wider}) is False
    reordered = copy.deepcopy(c["statement"])
    reordered["symbols"] = reordered["symbols"][::-1]
    assert implies(statement_of(c), {"kind": "symbolic", "statement": reordered}) is False


@pytest.mark.parametrize("name", ["\u0445", "x\u0301", "\uff58", "e\u200b"], ids=["cyrillic", "combining", "fullwidth",
                                                                                  "zero-width"])
def test_symbol_names_with_unicode_lookalikes_are_refused(name: str) -> None:
    """A symbol that prints like ``x`` but is another name (Cyrillic ``x``, a combining accent, a full-width ``x``)."""
    c = one([[name, "real"]], {"rel": "<=", "lhs": ["^", ["v", name], 2], "rhs": ["^", ["v", name], 2]},
            ident(["^", ["v", name], 2], ["^", ["v", name], 2]))
    assert refused(c)
    assert statement_of(c) is None


def test_goal_names_with_lookalikes_are_printed_escaped_after_the_mathematics() -> None:
    """A goal named like mathematics (``"x <= 0"`` with a Cyrillic x) is user text: quoted, escaped, after the
    mathematics it labels."""
    name = "\u0445 <= 0 for all x"
    c = cert([["x", "real"]], [{"name": name, "rel": "<=", "lhs": q("0"), "rhs": ["^", X, 2]}],
             [{"name": name, **sos(q("0"), ["^", X, 2], [["1", [["sq", X]]]])}])
    assert K.check(c) is True
    text = describe({"kind": "symbolic", "statement": c["statement"]})
    assert "\u0445" not in text and "\\u0445" in text
    assert text.index("0 <= x^2") < text.index("[goal")


# ------------------------------------------------------------------------------------------ the domain's one door, harder
def test_attained_family_value_that_empties_a_range_through_a_sum() -> None:
    """``x_i >= 0``, ``0 <= y <= sum_{i=1}^n x_i``; ``y <= sum_{i=1}^n x_i`` "with equality at x = -1, y = -n" (the
    family's kind fails, and the range would be ``[0, -n]``, empty) and at ``x = 0, y = 1`` (``y`` outside
    ``[0, 0]``); control: equality at ``x = 1, y = n``."""
    s = ["sum", ["at", "x", B], q("1"), N]
    sym = [["n", "count"], ["x", "family_nonnegative"], ["y", "bounded", q("0"), s]]
    goal = {"rel": "<=", "lhs": Y, "rhs": s}
    proof = sos(Y, s, [["1", [["hi", "y"]]]])
    assert K.check(one(sym, dict(goal, attained=[["x", q("1")], ["y", N]]), proof)) is True
    assert refused(one(sym, dict(goal, attained=[["x", q("-1")], ["y", neg(N)]]), proof))
    assert refused(one(sym, dict(goal, attained=[["x", q("0")], ["y", q("1")]]), proof))


def test_attained_point_leaving_a_later_range_non_empty_only_by_the_old_sign() -> None:
    """``u >= 0``, ``x`` real, ``u x^2 <= y <= u x^2 + u``: the range of ``y`` has width ``u``.  "Equality at
    u = x - 1" would make the width ``x - 1`` (negative for ``x < 1``, ``y`` unassigned): refused (``u``'s own kind
    already fails; a width proved ``>= 0`` stays so under values of the right signs, so this is the door)."""
    ux2 = times(U, ["^", X, 2])
    sym = [["u", "nonnegative"], ["x", "real"], ["y", "bounded", ux2, plus(ux2, U)]]
    lhs, rhs = plus(Y, neg(ux2)), U
    proof = sos(lhs, rhs, [["1", [["hi", "y"]]]])
    assert K.check(one(sym, {"rel": "<=", "lhs": lhs, "rhs": rhs}, proof)) is True
    assert refused(one(sym, {"rel": "<=", "lhs": lhs, "rhs": rhs, "attained": [["u", plus(X, q("-1"))]]}, proof))


def test_lemma_proved_with_a_case_split_on_its_own_variable_then_summed() -> None:
    """Lemma ``0 <= max(t, 0) - t`` (true: a case split on ``t``) summed over ``i = 1..n`` at ``t_i = x_i`` with
    weight 1 is a control; the reversed lemma ``max(t, 0) - t <= 0`` (false for ``t < 0``) cannot be proved by the
    same split, so the sum ``sum (max(x_i, 0) - x_i) <= 0`` is refused."""
    t = ["v", "t"]
    m = ["max", t, q("0")]
    gap = plus(m, neg(t))
    br1 = [q("0"), {"rel": "==", "expr": gap, "by": "max", "a": t, "b": q("0"), "terms": [["1", [["hyp"]]]]}]
    br2 = [q("0"), {"rel": "<=", "expr": neg(t), "by": "sos", "terms": [["1", [["hyp"]]]]},
           {"rel": "==", "expr": gap, "by": "max", "a": q("0"), "b": t, "terms": [["1", [["hyp"]]]]}]
    good = {"name": "gap", "vars": [["t", "real"]], "rel": "<=", "lhs": q("0"), "rhs": gap,
            "proof": {"cases": t, "chains": [br1, br2]}}
    sym = [["n", "count"], ["x", "family_real"]]
    xi = ["at", "x", B]
    body = plus(["max", xi, q("0")], neg(xi))
    rhs = ["sum", body, q("1"), N]
    link = {"rel": "<=", "expr": rhs, "by": "sum_mono", "lemma": "gap", "term": xi, "weight": q("1"), "lo": q("1"), "hi": N}
    assert K.check(one(sym, {"rel": "<=", "lhs": q("0"), "rhs": rhs}, {"chain": [q("0"), link]}, [good])) is True
    bad = dict(good, lhs=gap, rhs=q("0"), proof={"cases": t, "chains": [
        [gap, {"rel": "==", "expr": q("0"), "by": "max", "a": t, "b": q("0"), "terms": [["1", [["hyp"]]]]}],
        [gap, {"rel": "==", "expr": q("0"), "by": "max", "a": t, "b": q("0"), "terms": [["1", [["hyp"]]]]}]]})
    link_bad = dict(link, expr=q("0"))
    assert refused(one(sym, {"rel": "<=", "lhs": rhs, "rhs": q("0")}, {"chain": [rhs, link_bad]}, [bad]))


def test_a_lemma_variable_name_cannot_reach_the_goals() -> None:
    """A lemma variable ``t`` (real) is not a symbol of the statement: a goal or an attained point naming it is
    malformed, and a second lemma re-declaring it is refused."""
    lem = {"name": "sq", "vars": [["t", "real"]], "rel": "<=", "lhs": q("0"), "rhs": ["^", ["v", "t"], 2],
           "proof": sos(q("0"), ["^", ["v", "t"], 2], [["1", [["sq", ["v", "t"]]]]])}
    sym = [["x", "real"]]
    t = ["v", "t"]
    assert refused(one(sym, {"rel": "<=", "lhs": q("0"), "rhs": ["^", t, 2]},
                       sos(q("0"), ["^", t, 2], [["1", [["sq", t]]]]), [lem]))
    assert refused(one(sym, {"rel": "<=", "lhs": q("0"), "rhs": ["^", X, 2], "attained": [["t", q("0")]]},
                       sos(q("0"), ["^", X, 2], [["1", [["sq", X]]]]), [lem]))
    assert refused(one(sym, {"rel": "<=", "lhs": q("0"), "rhs": ["^", X, 2]},
                       sos(q("0"), ["^", X, 2], [["1", [["sq", X]]]]), [lem, dict(lem, name="sq2")]))
