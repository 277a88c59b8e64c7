"""Forged ``"symbolic"`` certificates: every one must be refused by fairtheory_kernel.symbolic.check.

The first four rebuild, in the kernel's format, the false statements that the sympy-based checker printed
``proved`` (issue 33, route 1: bound-variable capture through ``subs``); falsification confirms each statement is
false.  The others try every rule's side condition: weights, generators, logs and divisions, ranges, summation
limits, binders, statements swapped or edited, the old ``"sympy-proof"`` kind, hostile sizes."""

from __future__ import annotations

import copy

import pytest

from fairtheory.proofs import symbolic as S
from fairtheory.proofs.falsify_symbolic import falsify
from fairtheory.proofs.symbolic import IDX, E, d, log, mx, q, sm, v
from fairtheory_kernel import symbolic as K

L = E.lift


def _pf(c: dict, name: str) -> dict:
    """The evidence entry proving goal ``name``."""
    return next(p for p in c["evidence"]["proofs"] if p["name"] == name)


def _cert(symbols: list, rel: str, lhs: E, rhs: E, proof: dict, lemmas: list | None = None) -> dict:
    st = S.statement(symbols, [("g", rel, lhs, rhs, None)])
    return {"kind": "symbolic", "version": 1, "title": "t", "citation": "c", "statement": st,
            "evidence": {"lemmas": lemmas or [], "proofs": [{"name": "g", **proof}]}}


def _chain(*xs: object) -> dict:
    return {"chain": [L(xs[0]) if isinstance(xs[0], E) else xs[0], *xs[1:]]}


def _lk(rel: str, expr: E, by: str, **kw: object) -> dict:
    return {"rel": rel, "expr": L(expr), "by": by, **{k: (L(x) if isinstance(x, E) else x) for k, x in kw.items()}}


def _refused(c: dict) -> None:
    """Refused on its merits: ``False``, and with a deadline far past any honest check (60 s instead of
    ``K.MAX_SECONDS``) the kernel names a reason that is not its time budget."""
    assert K.check(c) is False
    with pytest.raises(Exception) as why:  # noqa: PT011 - any refusal, as long as it is not the deadline
        K._check(c, 60.0)
    assert "time budget" not in str(why.value), why.value


# --------------------------------------------------------------------- the four statements of issue 33, route 1
def test_three_le_two_by_a_captured_index() -> None:
    """A lemma whose left side is a sum in its own index ``i`` (``sum_i x i = 3x``, true), instantiated at the
    outer index: with capture the inner ``x i`` would become ``i i`` and ``5 <= 3`` would follow."""
    x = v("x")
    lemma = {"name": "cap", "vars": [["x", "real"]], "rel": "<=", "lhs": L(sm(x * IDX, 1, 2)), "rhs": L(3 * x),
             "proof": _chain(sm(x * IDX, 1, 2), _lk("==", 3 * x, "identity"))}
    c = _cert([], "<=", q(5), q(3), _chain(q(5), _lk("==", sm(q(5), 1, 1), "identity"),
                                           _lk("<=", sm(3 * IDX, 1, 1), "sum_mono", lemma="cap", term=IDX, weight=q(1),
                                               lo=q(1), hi=q(1)), _lk("==", q(3), "identity")), [lemma])
    _refused(c)  # the kernel instantiates without capture: sum_j 1 * (sum_i j i) = 3, not 5
    assert falsify(c["statement"]) is not None
    n = v("n")  # the same with a symbolic number of terms: a lemma with a sum is never instantiated
    lemma = {"name": "cap", "vars": [["x", "real"]], "rel": "<=", "lhs": L(sm(x * IDX, 1, n)), "rhs": L(x * sm(IDX, 1, n)),
             "proof": _chain(sm(x * IDX, 1, n), _lk("==", x * sm(IDX, 1, n), "identity"))}
    c = _cert([["n", "count"]], "<=", sm(IDX * IDX, 1, n), sm(IDX, 1, n),  # with capture: sum i^2 <= sum i
              _chain(sm(IDX * IDX, 1, n), _lk("<=", sm(IDX, 1, n), "sum_mono", lemma="cap", term=IDX, weight=q(1),
                                              lo=q(1), hi=q(1))), [lemma])
    _refused(c)
    assert falsify(c["statement"]) is not None


def test_mu_log2_le_0() -> None:
    mu = v("mu")
    st = [["mu", "positive"]]
    forged = [
        {"cases": L(mu), "chains": [[L(mu * log(2)), _lk("<=", q(0), "sos", terms=[["1", [["hyp"], ["pos", L(log(2))]]]])]] * 2},
        _chain(mu * log(2), _lk("<=", q(0), "sos", terms=[["1", [["pos", L(-mu * log(2))]]]])),
        _chain(mu * log(2), _lk("<=", q(0), "log_mono", c=mu, a=q(2), b=q(1), terms=[["1", [["pos", L(q(-1))]]]])),
    ]
    for p in forged:
        _refused(_cert(st, "<=", mu * log(2), q(0), p))
    # a lemma variable that shadows the statement's mu
    lemma = {"name": "shadow", "vars": [["mu", "real"]], "rel": "<=", "lhs": L(q(0)), "rhs": L(v("mu") ** 2),
             "proof": _chain(q(0), _lk("<=", v("mu") ** 2, "sos", terms=[["1", [["sq", L(v("mu"))]]]]))}
    _refused(_cert(st, "<=", mu * log(2), q(0), forged[0], [lemma]))
    assert falsify(_cert(st, "<=", mu * log(2), q(0), forged[0])["statement"]) is not None


def test_y_squared_plus_one_le_0() -> None:
    y = v("y")
    st = [["y", "real"]]
    for terms in ([["-1", [["sq", L(y)]]], ["-1", []]], [["1", [["pos", L(-(y ** 2) - 1)]]]],
                  [["1", [["lo", "y"], ["hi", "y"]]]], [["1", [["hyp"]]]], [["1", [["magic", L(y)]]]]):
        _refused(_cert(st, "<=", y ** 2 + 1, q(0), _chain(y ** 2 + 1, _lk("<=", q(0), "sos", terms=terms))))
    assert falsify(_cert(st, "<=", y ** 2 + 1, q(0), {})["statement"]) is not None


def test_sum_x_7i_minus_12_le_0() -> None:
    """``sum_{i=1}^{2} x (7 i - 12) = -3 x``, false for ``x < 0``; both branches of a case split must hold."""
    x = v("x")
    lhs = sm(x * (7 * IDX - 12), 1, 2)
    hyp3 = [["3", [["hyp"]]]]
    for p in ({"cases": L(x), "chains": [[L(lhs), _lk("<=", q(0), "sos", terms=hyp3)]] * 2},
              _chain(lhs, _lk("<=", q(0), "sum_mono", lemma="nope", term=x, weight=q(1), lo=q(1), hi=q(2))),
              _chain(lhs, _lk("==", -3 * x, "identity"), _lk("<=", q(0), "sos", terms=[["3", [["sq", L(x)]]]]))):
        _refused(_cert([["x", "real"]], "<=", lhs, q(0), p))
    assert falsify(_cert([["x", "real"]], "<=", lhs, q(0), {})["statement"]) is not None


# ----------------------------------------------------------------------------------- side conditions of rules
def test_wrong_weight_sign_and_undeclared_generators() -> None:
    c = S.softplus_smoothness_certificate()
    for terms in ([["-1", [["pos", L(1 / v("mu"))], ["sq", L(q(0))]]]], [["1", [["pos", L(-1 / v("mu"))]]]],
                  [["1", [["lo", "x"]]]], [["1", [["hi", "nope"]]]], [["1", [["hyp"]]]], [["1", [["exp1"]]]]):
        f = copy.deepcopy(c)
        _pf(f, "upper")["chain"][1]["terms"] = terms
        _refused(f)


def test_log_and_division_need_proved_signs() -> None:
    x, y = v("x"), v("y")
    for sym, lhs, rhs in ((["x", "real"], log(x), x - 1), (["x", "nonnegative"], log(x), x - 1),
                          (["x", "real"], x / x, q(1)), (["x", "positive"], 1 / (x - 1), 1 / (x - 1)),
                          (["x", "real"], d(mx(x, 0), "x"), d(mx(x, 0), "x")), (["x", "real"], x ** -1, x ** -1)):
        _refused(_cert([sym], "==", lhs, rhs, _chain(lhs, _lk("==", rhs, "identity"))))
    # log_mono between a possibly nonpositive pair
    step = _lk("<=", log(y + 1), "log_mono", c=q(1), a=y, b=y + 1, terms=[["1", []]])
    _refused(_cert([["y", "real"]], "<=", log(y), log(y + 1), _chain(log(y), step)))


def test_sum_limits() -> None:
    """``hi >= lo - 1`` is required: ``sum_{i=3}^{1} 1`` would count ``-1`` terms."""
    s = sm(q(1), 3, 1)
    _refused(_cert([], "<=", s, q(-1), _chain(s, _lk("==", q(-1), "identity"))))
    n = v("n")
    s = sm(q(1), 3, n)  # n >= 1 does not give n >= 2
    _refused(_cert([["n", "count"]], "<=", s, n - 2, _chain(s, _lk("==", n - 2, "identity"))))
    c = S.lemma2_certificate()  # Lemma 2's sum_mono over a reversed range
    _pf(c, "F^mu - F >= 0")["chain"][1].update(lo=["q", "3"], hi=["q", "1"])
    _refused(c)
    c = S.lemma2_certificate()
    _pf(c, "F^mu - F >= 0")["chain"][1]["weight"] = L(-E(["at", "p", ["b", 0]]))
    _refused(c)


def test_binders() -> None:
    x = v("x")
    for lhs in (E(["b", 0]), E(["sum", ["b", 1], ["q", "1"], ["q", "2"]]), sm(sm(IDX, 1, 2), 1, 2), sm(x, 1, x)):
        _refused(_cert([["x", "real"]], "==", lhs, lhs, _chain(lhs, _lk("==", lhs, "identity"))))


def test_edited_statements_and_swapped_certificates() -> None:
    c = S.prop1_certificate()
    c["statement"]["goals"][0]["rhs"] = L(v("mu") * log(q("3/2")))
    _refused(c)
    c = S.prop1_certificate()
    c["statement"]["goals"][0]["attained"] = [["mu", ["q", "-1"]], ["x", ["q", "0"]]]  # mu = -1 is outside mu > 0
    _refused(c)
    c = S.prop1_certificate()
    c["statement"]["goals"][0]["attained"] = [["x", ["q", "1"]]]  # no equality at x = 1
    _refused(c)
    c = S.prop1_certificate()
    c["statement"] = S.softplus_smoothness_certificate()["statement"]
    _refused(c)
    c = S.lemma2_certificate()
    c["evidence"] = S.prop1_certificate()["evidence"]
    _refused(c)
    c = S.prop1_certificate()  # the same goals with mu declared real: softplus_mu is then not defined
    c["statement"]["symbols"][0] = ["mu", "real"]
    _refused(c)
    c = S.softplus_smoothness_certificate()
    c["statement"]["goals"].append({"name": "extra", "rel": "<=", "lhs": ["q", "0"], "rhs": ["q", "1"]})
    _refused(c)  # no proof for the extra goal
    assert not K.implies(S.prop1_certificate()["statement"], S.softplus_smoothness_certificate()["statement"])


def test_old_kind_and_odd_envelopes_refused() -> None:
    c = S.prop1_certificate()
    for bad in ({**c, "kind": "sympy-proof", "version": 2}, {**c, "version": 2}, {**c, "extra": 1},
                {**c, "title": "t\nproved"}, {**c, "evidence": {"parts": []}}, None, [], "x", {"kind": "symbolic"}):
        _refused(bad)


@pytest.mark.parametrize("make", [
    lambda: E(__import__("functools").reduce(lambda t, _: ["+", t], range(100_000), ["q", "1"])),
    lambda: E(["+", *[["v", "x"]] * 200_000]),
    lambda: E(["^", ["^", ["+", ["v", "x"], ["q", "1"]], 16], 16]),
    lambda: E(["*", *[["+", ["v", "x"], ["q", str(k)]] for k in range(80)]]),
    lambda: E(["+", *[["exp", ["*", ["q", str(k)], ["v", "x"], ["v", "x"]]] for k in range(1, 80)]]),
    lambda: E(__import__("functools").reduce(lambda t, _: ["exp", t], range(10), ["v", "x"])),
    lambda: E(["q", "9" * 400]),
])
def test_hostile_sizes_refused_fast(make) -> None:
    t = make()
    _refused(_cert([["x", "real"]], "==", t, t, _chain(t, _lk("==", t, "identity"))))
