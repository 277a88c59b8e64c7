"""The symbolic kernel's assumptions, per-index bounded families and sums of non-negative terms (issue 42, items
1-3): what they prove, and forgeries of each rule, all refused."""

from __future__ import annotations

from fractions import Fraction as F

from fairtheory.proofs.symbolic import IDX, E, assume_eq, at, cert, chain, exp, gsum, link, log, q, rep, sm, statement, v
from fairtheory_kernel import check as C
from fairtheory_kernel import symbolic as K

X, Y, N = v("x"), v("y"), v("n")
W = at("w", IDX)


def _one(st: dict, proof: dict) -> dict:
    return cert("t", "test", st, {"g": proof})


def _up(lhs: object, rhs: object, lo: object, hi: object, *gens: list) -> dict:
    """The chain ``lhs <= rhs`` by one ``sos`` link whose representation is ``sum_{i=lo}^{hi} prod gens``."""
    return chain(lhs, link("<=", rhs, "sos", terms=rep((1, [gsum(lo, hi, (1, list(gens)))]))))


# ------------------------------------------------------------------------------------------------ assumptions
def test_an_assumption_proves_what_it_says_and_no_more() -> None:
    st = statement([["x", "real"]], [("g", "<=", X, q(1), None)], assume=[("<=", X, q(1))])
    assert K.check(_one(st, chain(X, link("<=", q(1), "sos", terms=rep((1, [["assume", 0]]))))))
    assert C.check_proof(_one(st, chain(X, link("<=", q(1), "sos", terms=rep((1, [["assume", 0]]))))))
    # the false lemma "x <= 1 implies x <= 1/2", with every weight of the assumption
    false = statement([["x", "real"]], [("g", "<=", X, F(1, 2), None)], assume=[("<=", X, q(1))])
    for c in (F(1, 2), 1, 2):
        assert not K.check(_one(false, chain(X, link("<=", q(F(1, 2)), "sos", terms=rep((c, [["assume", 0]]))))))
    # assume_rev is for equalities only: x <= 1 does not give 1 - x <= 0
    assert not K.check(_one(false, chain(X, link("<=", q(F(1, 2)), "sos", terms=rep((1, [["assume_rev", 0]]))))))


def test_an_assumption_that_is_not_declared_is_refused() -> None:
    st = statement([["x", "real"]], [("g", "<=", X, q(1), None)])  # no assumption
    assert not K.check(_one(st, chain(X, link("<=", q(1), "sos", terms=rep((1, [["assume", 0]]))))))
    two = statement([["x", "real"]], [("g", "<=", X, q(1), None)], assume=[("<=", X, q(1))])
    for k in (1, -1, 16, True, "0"):
        assert not K.check(_one(two, chain(X, link("<=", q(1), "sos", terms=rep((1, [["assume", k]]))))))


def test_assume_eq_with_the_right_multiplier_only() -> None:
    st = statement([["x", "real"], ["y", "real"]], [("g", "==", Y, 1 - X, None)], assume=[("==", X + Y, q(1))])
    assert K.check(_one(st, chain(Y, assume_eq(1 - X, {0: q(1)}))))
    for wrong in ({0: q(2)}, {0: q(-1)}, {}, {1: q(1)}):
        assert not K.check(_one(st, chain(Y, assume_eq(1 - X, wrong))))
    # an inequality assumption is no equation
    ineq = statement([["x", "real"], ["y", "real"]], [("g", "==", Y, 1 - X, None)], assume=[("<=", X + Y, q(1))])
    assert not K.check(_one(ineq, chain(Y, assume_eq(1 - X, {0: q(1)}))))
    # both directions of an equality as generators
    le = statement([["x", "real"], ["y", "real"]], [("g", "<=", Y, 1 - X, None)], assume=[("==", X + Y, q(1))])
    assert K.check(_one(le, chain(Y, link("<=", 1 - X, "sos", terms=rep((1, [["assume", 0]]))))))
    ge = statement([["x", "real"], ["y", "real"]], [("g", "<=", 1 - X, Y, None)], assume=[("==", X + Y, q(1))])
    assert K.check(_one(ge, chain(1 - X, link("<=", Y, "sos", terms=rep((1, [["assume_rev", 0]]))))))


def test_implies_keeps_assumptions_in_the_right_direction() -> None:
    g = [("g", "<=", X, q(2), None)]
    weak = statement([["x", "real"]], g, assume=[("<=", X, q(1))])
    strong = statement([["x", "real"]], g, assume=[("<=", X, q(1)), ("<=", q(0), X)])
    bare = statement([["x", "real"]], g)
    assert K.implies(weak, strong) and K.implies(bare, weak) and K.implies(bare, strong)
    assert not K.implies(strong, weak) and not K.implies(weak, bare) and not K.implies(strong, bare)
    assert C.implies({"kind": "symbolic", "statement": weak}, strong)
    assert not C.implies({"kind": "symbolic", "statement": weak}, bare)
    # an empty list is no assumption at all
    assert K.canonical_statement({**bare, "assume": []}) == K.canonical_statement(bare)


def test_attained_points_satisfy_the_assumptions() -> None:
    def st(att: int) -> dict:
        return statement([["x", "real"]], [("g", "<=", X * X, X, {"x": q(att)})], assume=[("<=", q(0), X), ("<=", X, q(1))])

    proof = chain(X * X, link("<=", X, "sos", terms=rep((1, [["assume", 0], ["assume", 1]]))))
    assert K.check(_one(st(1), proof)) and K.check(_one(st(0), proof))
    assert not K.check(_one(st(2), proof))  # 4 == 2 fails, and 2 <= 1 too
    eq = statement([["x", "real"], ["y", "real"]], [("g", "<=", Y, 1 - X, {"x": q(0), "y": q(1)})],
                   assume=[("==", X + Y, q(1))])
    off = statement([["x", "real"], ["y", "real"]], [("g", "<=", Y, Y, {"x": q(0), "y": q(2)})],
                    assume=[("==", X + Y, q(1))])
    assert K.check(_one(eq, chain(Y, link("<=", 1 - X, "sos", terms=rep((1, [["assume", 0]]))))))
    assert not K.check(_one(off, chain(Y, link("==", Y, "identity"))))  # the point violates x + y == 1


def test_describe_prints_the_assumptions() -> None:
    st = statement([["x", "real"], ["y", "real"]], [("g", "==", Y, 1 - X, None)], assume=[("==", X + Y, q(1))])
    assert K.describe(st).splitlines()[0] == "for all x real, y real with x + y == 1:"
    assert C.describe(st).startswith("for all x real, y real with x + y == 1: y == 1 - x")


def test_malformed_assumptions_are_refused() -> None:
    base = statement([["x", "real"]], [("g", "<=", X, X, None)])
    for bad in ({"rel": "<", "lhs": ["v", "x"], "rhs": ["q", "1"]}, {"rel": "<=", "lhs": ["v", "z"], "rhs": ["q", "1"]},
                {"rel": "<=", "lhs": ["b", 0], "rhs": ["q", "1"]}, {"rel": "<=", "lhs": ["v", "x"]}, "x <= 1"):
        try:
            K.canonical_statement({**base, "assume": [bad]})
        except ValueError:
            continue
        raise AssertionError(bad)
    try:
        K.canonical_statement({**base, "assume": [{"rel": "<=", "lhs": ["v", "x"], "rhs": ["q", "1"]}] * 17})
    except ValueError:
        pass
    else:
        raise AssertionError("17 assumptions")


# ------------------------------------------------------------------------------------------------ families, sums
def _bounded(lo: object = q(0), hi: object = q(1)) -> list:
    return [["n", "count"], ["w", "family_bounded", lo, hi]]


def test_a_sum_of_family_ranges() -> None:
    st = statement(_bounded(), [("g", "<=", sm(W, 1, N), N, None)])
    assert K.check(_one(st, _up(sm(W, 1, N), N, 1, N, ["fhi", "w"])))
    low = statement(_bounded(), [("g", "<=", q(0), sm(W, 1, N), None)])
    assert K.check(_one(low, _up(q(0), sm(W, 1, N), 1, N, ["flo", "w"])))
    # the wrong end of the range, and a range one step too wide (0..n has n + 1 terms)
    assert not K.check(_one(st, _up(sm(W, 1, N), N, 1, N, ["flo", "w"])))
    assert not K.check(_one(st, _up(sm(W, 1, N), N, 0, N, ["fhi", "w"])))


def test_per_index_ends_and_earlier_families() -> None:
    """``0 <= w_i <= u_i`` with ``u`` an earlier family, ``i^2/2 <= z_i <= i^2``: per-index ends."""
    U = at("u", IDX)
    st = statement([["n", "count"], ["u", "family_positive"], ["w", "family_bounded", q(0), U]],
                   [("g", "<=", sm(W, 1, N), sm(U, 1, N), None)])
    assert K.check(_one(st, _up(sm(W, 1, N), sm(U, 1, N), 1, N, ["fhi", "w"])))
    assert "0 <= w_i <= u_i" in K.describe(st)
    Z, I2 = at("z", IDX), IDX * IDX
    z = statement([["n", "count"], ["z", "family_bounded", I2 / 2, I2]], [("g", "<=", sm(Z, 1, N), sm(I2, 1, N), None)])
    assert K.check(_one(z, _up(sm(Z, 1, N), sm(I2, 1, N), 1, N, ["fhi", "z"])))
    # i/2 <= z_i <= i is empty at negative indices (a family has a member at every integer): refused
    neg = statement([["n", "count"], ["z", "family_bounded", IDX / 2, IDX]], [("g", "<=", sm(Z, 1, N), sm(IDX, 1, N), None)])
    assert not K.check(_one(neg, _up(sm(Z, 1, N), sm(IDX, 1, N), 1, N, ["fhi", "z"])))
    # an empty range (hi - lo not >= 0) is refused at declaration: i <= z_i <= i/2 is empty for i >= 1
    empty = statement([["n", "count"], ["z", "family_bounded", IDX, IDX / 2]], [("g", "<=", q(0), q(0), None)])
    assert not K.check(_one(empty, chain(q(0), link("==", q(0), "identity"))))


def test_short_sums_expand_with_bounded_families() -> None:
    """Integer limits: the sum is its terms (members w_1, w_2, w_3), each range holds at its index."""
    st = statement([["w", "family_bounded", q(0), q(1)]], [("g", "<=", sm(W, 1, 3), q(3), None)])
    assert K.check(_one(st, _up(sm(W, 1, 3), q(3), 1, 3, ["fhi", "w"])))
    assert not K.check(_one(st, _up(sm(W, 1, 3), q(2), 1, 3, ["fhi", "w"])))


def test_a_sum_body_must_be_non_negative_at_every_index() -> None:
    """``sum_{i=1}^{n} (3 - i) >= 0`` is false for n = 5: the body 3 - i is negative at i = 4, and no
    representation of it is accepted; the true ``sum_{i=1}^{n} i >= 0`` is."""
    st = statement([["n", "count"]], [("g", "<=", q(0), sm(3 - IDX, 1, N), None)])
    for gens in ([["pos", 3 - IDX]], [["sq", 3 - IDX]]):
        assert not K.check(_one(st, _up(q(0), sm(3 - IDX, 1, N), 1, N, *gens)))
    ok = statement([["n", "count"]], [("g", "<=", q(0), sm(IDX, 1, N), None)])
    assert not K.check(_one(ok, _up(q(0), sm(IDX, 1, N), 1, N, ["pos", IDX])))
    # the body is checked for every real value of the index, so ["pos", i] is refused although i >= 1 on the
    # range (incomplete, never unsound); a square is accepted
    sq = statement([["n", "count"]], [("g", "<=", q(0), sm(IDX * IDX, 1, N), None)])
    assert K.check(_one(sq, _up(q(0), sm(IDX * IDX, 1, N), 1, N, ["sq", IDX])))


def test_flo_fhi_only_inside_a_sum_body_and_no_nested_sums() -> None:
    st = statement(_bounded(), [("g", "<=", at("w", 1), q(1), None)])
    assert not K.check(_one(st, chain(at("w", 1), link("<=", q(1), "sos", terms=rep((1, [["fhi", "w"]]))))))
    nested = rep((1, [gsum(1, N, (1, [gsum(1, N, (1, [["fhi", "w"]]))]))]))
    st2 = statement(_bounded(), [("g", "<=", q(0), q(0), None)])
    assert not K.check(_one(st2, chain(q(0), link("<=", q(0), "sos", terms=nested))))
    # fhi of a family that is not family_bounded, or of a scalar
    st3 = statement([["n", "count"], ["w", "family_positive"]], [("g", "<=", sm(W, 1, N), N, None)])
    assert not K.check(_one(st3, _up(sm(W, 1, N), N, 1, N, ["fhi", "w"])))


def test_a_backwards_range_is_refused_and_the_empty_sum_is_zero() -> None:
    st = statement([["w", "family_bounded", q(0), q(1)]], [("g", "<=", q(0), q(0), None)])
    for lo, hi, ok in ((1, 0, True), (3, 1, False)):
        proof = _up(q(0), q(0), lo, hi, ["fhi", "w"])
        assert K.check(_one(st, proof)) is ok, (lo, hi)


def test_assumptions_with_sums() -> None:
    """Weights summing to 1 with ``0 <= w_i``: ``sum w_i^2 <= 1`` needs ``w_i <= 1`` per index; with the bound
    family ``0 <= w_i <= 1``: ``sum w_i^2 <= sum w_i = 1``."""
    st = statement(_bounded(), [("g", "<=", sm(W * W, 1, N), q(1), None)], assume=[("==", sm(W, 1, N), q(1))])
    up = _up(sm(W * W, 1, N), sm(W, 1, N), 1, N, ["flo", "w"], ["fhi", "w"])["chain"]
    proof = {"chain": [*up, assume_eq(q(1), {0: q(1)})]}
    assert K.check(_one(st, proof))
    assert "with sum_{i=1..n} w_i == 1" in K.describe(st)
    false = statement(_bounded(), [("g", "<=", sm(W * W, 1, N), q(F(1, 2)), None)], assume=[("==", sm(W, 1, N), q(1))])
    proof2 = {"chain": [*up, assume_eq(q(F(1, 2)), {0: q(F(1, 2))})]}
    assert not K.check(_one(false, proof2))


# ------------------------------------------------------------------------------------------------ small rules
def test_max_generators_in_a_sum_body() -> None:
    """``0 <= w_i <= 1``: ``sum max(w_i, 0) == sum w_i`` by ``max_le`` (``w_i - 0`` is ``flo``), and
    ``sum max(w_i - 1, 0) <= 0`` likewise; ``max_ge`` gives ``max(a, b) >= a`` anywhere.  Forgeries: ``max_le``
    with a representation of the wrong difference, or where it fails (``w_i - 1 >= 0`` is not ``fhi``)."""
    M0, M1 = E(["max", W.t, ["q", "0"]]), E(["max", (W - 1).t, ["q", "0"]])
    st = statement(_bounded(), [("g", "<=", sm(M0, 1, N), sm(W, 1, N), None)])
    assert K.check(_one(st, _up(sm(M0, 1, N), sm(W, 1, N), 1, N, ["max_le", W, q(0), rep((1, [["flo", "w"]]))])))
    assert not K.check(_one(st, _up(sm(M0, 1, N), sm(W, 1, N), 1, N, ["max_le", W, q(0), rep((1, [["fhi", "w"]]))])))
    st1 = statement(_bounded(), [("g", "<=", sm(M1, 1, N), q(0), None)])
    assert K.check(_one(st1, _up(sm(M1, 1, N), q(0), 1, N, ["max_le", q(0), W - 1, rep((1, [["fhi", "w"]]))])))
    assert not K.check(_one(st1, _up(sm(M1, 1, N), q(0), 1, N, ["max_le", W - 1, q(0), rep((1, [["fhi", "w"]]))])))
    ge = statement([["x", "real"]], [("g", "<=", X, E(["max", X.t, ["q", "3"]]), None)])
    assert K.check(_one(ge, chain(X, link("<=", E(["max", X.t, ["q", "3"]]), "sos", terms=rep((1, [["max_ge", X, q(3)]]))))))
    mx3 = E(["max", X.t, ["q", "3"]])
    le = statement([["x", "real"]], [("g", "<=", mx3, X, None)])  # false for x < 3
    forged = ["max_le", X, q(3), rep((1, [["sq", X]]))]  # x - 3 is not x^2
    assert not K.check(_one(le, chain(mx3, link("<=", X, "sos", terms=rep((1, [forged]))))))


def test_sum_mono_with_a_remainder_and_a_nonnegative_variable() -> None:
    """The lemma ``t <= t + t^2`` for a nonnegative ``t``, summed at ``t_i = w_i`` (``0 <= w_i <= 1``) with the
    common remainder ``n`` on both sides.  Refused: the same at a ``family_real`` ``w`` (the instance must have the
    variable's sign), and remainders that differ."""
    T = v("t")
    lem = {"name": "L", "vars": [["t", "nonnegative"]], "rel": "<=", "lhs": T.t, "rhs": (T + T * T).t,
           "proof": chain(T, link("<=", T + T * T, "sos", terms=rep((1, [["sq", T]]))))}
    lhs, rhs = N + sm(W, 1, N), N + sm(W + W * W, 1, N)
    mono = link("<=", rhs, "sum_mono", lemma="L", term=W, weight=q(1), lo=q(1), hi=N)
    st = statement(_bounded(), [("g", "<=", lhs, rhs, None)])
    assert K.check(cert("t", "test", st, {"g": chain(lhs, mono)}, [lem]))
    real = statement([["n", "count"], ["w", "family_real"]], [("g", "<=", lhs, rhs, None)])
    assert not K.check(cert("t", "test", real, {"g": chain(lhs, mono)}, [lem]))
    # a remainder that differs between the sides is refused
    st2 = statement(_bounded(), [("g", "<=", lhs, rhs + 1, None)])
    assert not K.check(cert("t", "test", st2, {"g": chain(lhs, link("<=", rhs + 1, "sum_mono", lemma="L", term=W, weight=q(1),
                                                                     lo=q(1), hi=N))}, [lem]))


def test_exp_of_an_integer_multiple_of_a_log_after_cancelling() -> None:
    """``exp(((q + 1)/q) log x) == x exp(log(x)/q)`` for ``x, q > 0`` (the exponent's ``q log x / q`` is
    ``log x``); ``exp(log(x)/q)`` alone is not ``x``."""
    Q = v("q")
    lhs, rhs = exp((Q + 1) / Q * log(X)), X * exp(log(X) / Q)
    st = statement([["x", "positive"], ["q", "positive"]], [("g", "==", lhs, rhs, None)])
    assert K.check(_one(st, chain(lhs, link("==", rhs, "identity"))))
    bad = statement([["x", "positive"], ["q", "positive"]], [("g", "==", exp(log(X) / Q), X, None)])
    assert not K.check(_one(bad, chain(exp(log(X) / Q), link("==", X, "identity"))))
