"""sympy-proof certificates (fairtheory.proofs.symbolic): each re-checks, tampering fails, hostile data gives False."""

from __future__ import annotations

import copy
import json

import pytest
import sympy as sp

from fairtheory.proofs import symbolic as S
from fairtheory.proofs.check import check_proof

MAKERS = sorted(S.ALL_CERTIFICATES)


@pytest.fixture(scope="module")
def certs() -> dict:
    return {k: S.ALL_CERTIFICATES[k]() for k in MAKERS}


@pytest.mark.parametrize("name", MAKERS)
def test_certificate_rechecks_after_json_round_trip(certs: dict, name: str) -> None:
    d = json.loads(json.dumps(certs[name]))
    assert d["kind"] == "sympy-proof"
    assert S.check_symbolic(d) is True
    assert check_proof(d) is True


def _leaf(tree, path):
    for p in path:
        tree = tree[p]
    return tree


# (certificate, path to an Integer/Rational leaf inside "parts", new value): each a changed constant
TAMPER = [
    ("softplus_smoothness", (0, "goal", "rhs", 1), ["Rational", "1/5"]),            # 1/(4 mu) -> 1/(5 mu)
    ("softplus_smoothness", (0, "chains", 0, 2, "terms", 0, 1, 1), ["Rational", "-1/3"]),  # (s - 1/2)^2 -> (s - 1/3)^2
    ("prop1", (0, "goal", "rhs", 2, 1), ["Integer", "3"]),                           # mu log 2 -> mu log 3
    ("lemma2", (2, "chains", 0, 2), None),                                           # premise 0 -> 1 (wrong lemma)
    ("lemma12", (3, "chains", 0, 1, "terms", 0, 0), ["Integer", "0"]),               # drop Lagrange's square
    ("lemma_c1", (5, "goal", "rhs"), None),                                          # paper L -> smaller constant
]


@pytest.mark.parametrize("name,path,new", TAMPER)
def test_tampered_certificate_fails(certs: dict, name: str, path: tuple, new) -> None:
    d = copy.deepcopy(certs[name])
    parts = d["parts"]
    if name == "lemma2":
        link = _leaf(parts, path)
        assert link["by"] == "sum_mono"
        link["premise"] = 1
    elif name == "lemma_c1":
        goal = _leaf(parts, path[:-1])
        L1, mu = sp.Symbol("L1", nonnegative=True), sp.Symbol("mu", positive=True)
        goal["rhs"] = S.to_tree(L1 + 1 / (8 * mu))
    else:
        node = _leaf(parts, path[:-1])
        assert isinstance(node[path[-1]], list)
        node[path[-1]] = new
    assert S.check_symbolic(d) is False
    assert check_proof(d) is False


def test_false_identity_and_false_sos_fail() -> None:
    mu, x = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True)
    base = {"kind": "sympy-proof", "version": 1, "title": "t", "citation": "c",
            "symbols": [["mu", "positive"], ["x", "real"]]}
    bad_id = dict(base, parts=[{"name": "p", "goal": {"rel": "==", "lhs": S.to_tree(x ** 2), "rhs": S.to_tree(x)},
                                "chains": [[S.to_tree(x ** 2), {"rel": "==", "expr": S.to_tree(x), "by": "identity"}]]}])
    assert S.check_symbolic(bad_id) is False
    # x <= x^2 + 1/4 is true: (x - 1/2)^2 >= 0 ... but a negative weight must be refused
    top = S.to_tree(x ** 2 + sp.Rational(1, 4))
    terms = [[S.to_tree(sp.Integer(1)), S.to_tree(x - sp.Rational(1, 2))]]
    good = dict(base, parts=[{"name": "p", "goal": {"rel": "<=", "lhs": S.to_tree(x), "rhs": top},
                              "chains": [[S.to_tree(x), {"rel": "<=", "expr": top, "by": "sos", "terms": terms}]]}])
    assert S.check_symbolic(good) is True
    neg = copy.deepcopy(good)
    neg["parts"][0]["goal"]["rhs"] = S.to_tree(-x ** 2 + 2 * x - sp.Rational(1, 4))
    neg["parts"][0]["chains"][0][1] = {"rel": "<=", "expr": S.to_tree(-x ** 2 + 2 * x - sp.Rational(1, 4)), "by": "sos",
                                        "terms": [[S.to_tree(sp.Integer(-1)), S.to_tree(x - sp.Rational(1, 2))]]}
    assert S.check_symbolic(neg) is False
    # an empty declared range would make every statement vacuous: refused
    empty = copy.deepcopy(good)
    empty["symbols"] = [["mu", "positive"], ["x", "bounded", ["Integer", "1"], ["Integer", "0"]]]
    assert S.check_symbolic(empty) is False
    # a goal whose chain ends elsewhere fails
    other = copy.deepcopy(good)
    other["parts"][0]["goal"]["rhs"] = S.to_tree(x ** 2)
    assert S.check_symbolic(other) is False
    assert mu.is_positive


def _deep(n: int):
    t = ["Symbol", "x"]
    for _ in range(n):
        t = ["exp", t]
    return t


def _with_goal(lhs) -> dict:
    return {"kind": "sympy-proof", "version": 1, "symbols": [["x", "real"], ["i", "index"], ["c", "indexed_real"]],
            "parts": [{"name": "p", "goal": {"rel": "==", "lhs": lhs, "rhs": lhs}, "chains": [[lhs, {
                "rel": "==", "expr": lhs, "by": "identity"}]]}]}


HOSTILE = [
    None, 3, "sympy-proof", [], {}, {"kind": "sympy-proof"}, {"kind": "sympy-proof", "version": 2},
    {"kind": "sympy-proof", "version": 1, "symbols": "x", "parts": []},
    {"kind": "sympy-proof", "version": 1, "symbols": [["x", "real"], ["x", "real"]], "parts": [{}]},
    {"kind": "sympy-proof", "version": 1, "symbols": [["__import__", "real"]], "parts": [{}]},
    {"kind": "sympy-proof", "version": 1, "symbols": [["x", "evil"]], "parts": [{}]},
    _with_goal(["eval", "1+1"]),                                             # unknown head
    _with_goal(["Symbol", "y"]),                                             # undeclared symbol
    _with_goal(["Integer", "1" * 500]),                                      # huge integer
    _with_goal(["Integer", "1e5"]),                                          # not an integer string
    _with_goal(["Rational", "1/0"]),                                         # zero denominator
    _with_goal(["Pow", ["Add", ["Symbol", "x"], ["Integer", "1"]], ["Integer", "100000"]]),   # huge power
    _with_goal(["Pow", ["Pow", ["Add", ["Symbol", "x"], ["Integer", "1"]], ["Integer", "16"]], ["Integer", "16"]]),
    _with_goal(_deep(200)),                                                  # too deep
    _with_goal(["Add"] + [["Symbol", "x"]] * 5000),                          # too wide
    _with_goal(["Sum", ["Indexed", "c", "i"], "i", ["Integer", "1"], ["Integer", "10000000000"]]),  # huge sum
    _with_goal(["Symbol", 7]),
    _with_goal({"Symbol": "x"}),
    {"kind": "sympy-proof", "version": 1, "symbols": [["x", "real"]],
     "parts": [{"name": "p", "goal": {"rel": "<", "lhs": ["Symbol", "x"], "rhs": ["Symbol", "x"]}, "chains": []}]},
]


@pytest.mark.parametrize("d", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_gives_false_without_exception(d) -> None:
    assert S.check_symbolic(d) is False
    assert check_proof(d) is False


def test_from_tree_rejects_and_round_trips() -> None:
    syms = [["mu", "positive"], ["x", "real"]]
    mu, x = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True)
    e = mu * sp.log(1 + sp.exp(x / mu)) - sp.Max(x, 0) + sp.Rational(3, 7)
    assert sp.simplify(S.from_tree(S.to_tree(e), syms) - e) == 0
    with pytest.raises(ValueError):
        S.from_tree(["Symbol", "y"], syms)
    with pytest.raises(ValueError):
        S.from_tree(["sympify", "x"], syms)


def test_goal_of_returns_the_stated_lemma(certs: dict) -> None:
    rel, lhs, rhs = S.goal_of(certs["softplus_smoothness"], 0)
    mu, x = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True)
    assert rel == "<="
    assert sp.simplify(rhs - 1 / (4 * mu)) == 0
    assert sp.simplify(lhs.doit() - sp.diff(mu * sp.log(1 + sp.exp(x / mu)), x, 2)) == 0


def test_summed_variable_may_not_carry_a_declared_range(certs: dict) -> None:
    """sum_mono substitutes the premise's variable: a range that depends on it would not follow."""
    d = copy.deepcopy(certs["lemma2"])
    d["symbols"].append(["y", "bounded", ["Symbol", "x"], ["Add", ["Symbol", "x"], ["Integer", "1"]]])
    assert S.check_symbolic(d) is False
    ok = copy.deepcopy(certs["lemma2"])
    ok["symbols"].append(["y", "bounded", ["Integer", "0"], ["Integer", "1"]])
    assert S.check_symbolic(ok) is True


def test_time_budget_stops_a_check(certs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S, "MAX_SECONDS", -1.0)
    assert S.check_symbolic(certs["prop1"]) is False


@pytest.mark.parametrize("name,symbol,new_high", [
    ("lemma12", "a", lambda: 2 * sp.Symbol("G", nonnegative=True) * sp.Symbol("U", nonnegative=True)),  # not Cauchy-Schwarz
    ("lemma_c1", "G", lambda: 2 * sp.Symbol("L2", nonnegative=True) ** 2),                              # |grad f| > L2
    ("lemma_c1", "s", lambda: sp.Integer(2)),                                                             # sigma > 1
])
def test_widened_range_breaks_the_any_d_proofs(certs: dict, name: str, symbol: str, new_high) -> None:
    d = copy.deepcopy(certs[name])
    i = [x[0] for x in d["symbols"]].index(symbol)
    d["symbols"][i][3] = S.to_tree(new_high())
    assert S.check_symbolic(d) is False
