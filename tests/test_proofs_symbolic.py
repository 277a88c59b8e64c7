"""sympy-proof certificates (fairtheory.proofs.symbolic, version 2: statement + evidence).

Each real certificate re-checks (also after a JSON round trip and in a fresh process); tampering fails; the
forgeries a reviewer found (non-real squares, narrowed hypotheses, hostile slow certificates) and the
statement/evidence rules (fresh auxiliary symbols, no auxiliary hypotheses, every goal proved by its part)
give ``False``; a claim handed a certificate of another statement ends ``error``."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time

import pytest
import sympy as sp

from fairtheory.proofs import symbolic as S

MAKERS = sorted(S.ALL_CERTIFICATES)
T = S.to_tree
mu, x = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True)


@pytest.fixture(scope="module")
def certs() -> dict:
    return {k: S.ALL_CERTIFICATES[k]() for k in MAKERS}


def _one_goal(symbols: list, rel: str, lhs, rhs, links: list, aux: list | None = None, name: str = "g") -> dict:
    """A one-goal certificate: statement ``lhs rel rhs`` and the chain ``lhs, *links``."""
    lt, rt = (t if isinstance(t, (list, dict)) else T(t) for t in (lhs, rhs))
    return {"kind": "sympy-proof", "version": 2, "title": "t", "citation": "c",
            "statement": {"symbols": symbols, "goals": [{"name": name, "rel": rel, "lhs": lt, "rhs": rt}]},
            "evidence": {"symbols": aux or [], "parts": [{"name": name, "goal": {"rel": rel, "lhs": lt, "rhs": rt},
                                                          "chains": [[lt, *links]]}]}}


def _sos(expr, terms: list) -> dict:
    return {"rel": "<=", "expr": expr if isinstance(expr, list) else T(expr), "by": "sos", "terms": terms}


def _sqrt(t: list) -> list:
    return ["Pow", t, ["Rational", "1/2"]]


# ------------------------------------------------------------------------------------ the real certificates


@pytest.mark.parametrize("name", MAKERS)
def test_certificate_rechecks_after_json_round_trip(certs: dict, name: str) -> None:
    d = json.loads(json.dumps(certs[name]))
    assert d["kind"] == "sympy-proof" and d["version"] == 2
    assert S.check_symbolic(d) is True
    st = S.statement_of(d)
    assert st is not None and st["goals"] == d["statement"]["goals"]


def test_certificates_recheck_in_a_fresh_process(certs: dict, tmp_path) -> None:
    """Nothing but the JSON files is shared with the checking process."""
    paths = []
    for name in MAKERS:
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(certs[name]))
        paths.append(str(p))
    code = ("import json, sys; from fairtheory.proofs.symbolic import check_symbolic; "
            "print(json.dumps([check_symbolic(json.load(open(p))) for p in sys.argv[1:]]))")
    out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True] * len(MAKERS)


@pytest.mark.parametrize("name", MAKERS)
def test_certificate_checks_well_inside_the_budget(certs: dict, name: str) -> None:
    t0 = time.perf_counter()
    assert S.check_symbolic(certs[name]) is True
    assert time.perf_counter() - t0 < S.MAX_SECONDS * 0.8


def test_check_proof_dispatches_to_the_symbolic_checker(certs: dict) -> None:
    import fairtheory.proofs.bounded  # noqa: F401 - the project's own module: an import error must fail, not skip
    from fairtheory.proofs.check import check_proof

    assert check_proof(certs["prop1"]) is True
    bad = copy.deepcopy(certs["prop1"])
    bad["version"] = 1
    assert check_proof(bad) is False


def test_version_1_is_refused(certs: dict) -> None:
    d = copy.deepcopy(certs["prop1"])
    v1 = {"kind": "sympy-proof", "version": 1, "title": d["title"], "citation": d["citation"],
          "symbols": d["statement"]["symbols"] + d["evidence"]["symbols"], "parts": d["evidence"]["parts"]}
    assert S.check_symbolic(v1) is False
    d["version"] = 1
    assert S.check_symbolic(d) is False
    assert S.statement_of(d) is None


# ------------------------------------------------------------------------------------------------ tampering


def _leaf(tree, path):
    for p in path:
        tree = tree[p]
    return tree


# (certificate, path to a leaf, new value): each changes one constant of a proof step
TAMPER = [
    ("softplus_smoothness", ("evidence", "parts", 0, "chains", 0, 2, "terms", 0, 1, 1), ["Rational", "-1/3"]),  # (s - 1/3)^2
    ("lemma12", ("evidence", "parts", 3, "chains", 0, 1, "terms", 0, 0), ["Integer", "0"]),  # drop Lagrange's square
    ("prop1", ("evidence", "parts", 0, "chains", 0, 2, "b"), ["Integer", "3"]),              # log_mono to log 3
]


@pytest.mark.parametrize("name,path,new", TAMPER)
def test_tampered_step_fails(certs: dict, name: str, path: tuple, new) -> None:
    d = copy.deepcopy(certs[name])
    node = _leaf(d, path[:-1])
    assert isinstance(node[path[-1]], list) and node[path[-1]] != new
    node[path[-1]] = new
    assert S.check_symbolic(d) is False


@pytest.mark.parametrize("name,goal,side,new", [
    ("softplus_smoothness", "upper", "rhs", lambda: 1 / (5 * mu)),                                       # 1/(4 mu) -> 1/(5 mu)
    ("prop1", "gap <= mu log 2", "rhs", lambda: mu * sp.log(3) / 2),                                    # a smaller constant
    ("lemma_c1", "tight L <= paper L", "rhs", lambda: sp.Symbol("L1", nonnegative=True) + 1 / (8 * mu)),
])
def test_changed_goal_fails_in_statement_and_part(certs: dict, name: str, goal: str, side: str, new) -> None:
    """Changing a goal in the statement alone leaves it unproved; changing it in the part too breaks the chain."""
    d = copy.deepcopy(certs[name])
    g = next(g for g in d["statement"]["goals"] if g["name"] == goal)
    g[side] = T(new())
    assert S.check_symbolic(d) is False
    next(p for p in d["evidence"]["parts"] if p["name"] == goal)["goal"][side] = T(new())
    assert S.check_symbolic(d) is False


def test_wrong_premise_fails(certs: dict) -> None:
    d = copy.deepcopy(certs["lemma2"])
    link = d["evidence"]["parts"][2]["chains"][0][2]
    assert link["by"] == "sum_mono" and link["premise"] == 0
    link["premise"] = 1
    assert S.check_symbolic(d) is False


def test_false_identity_negative_weight_empty_range_fail() -> None:
    syms = [["mu", "positive"], ["x", "real"]]
    assert S.check_symbolic(_one_goal(syms, "==", x ** 2, x, [{"rel": "==", "expr": T(x), "by": "identity"}])) is False
    # x <= x^2 + 1/4: (x - 1/2)^2 >= 0
    top = x ** 2 + sp.Rational(1, 4)
    good = _one_goal(syms, "<=", x, top, [_sos(top, [[T(1), T(x - sp.Rational(1, 2))]])])
    assert S.check_symbolic(good) is True
    low = -x ** 2 + 2 * x - sp.Rational(1, 4)
    neg = _one_goal(syms, "<=", x, low, [_sos(low, [[T(-1), T(x - sp.Rational(1, 2))]])])
    assert S.check_symbolic(neg) is False
    empty = copy.deepcopy(good)
    empty["statement"]["symbols"] = [["mu", "positive"], ["x", "bounded", ["Integer", "1"], ["Integer", "0"]]]
    assert S.check_symbolic(empty) is False
    other = copy.deepcopy(good)  # a chain that ends elsewhere
    for g in (other["statement"]["goals"][0], other["evidence"]["parts"][0]["goal"]):
        g["rhs"] = T(x ** 2)
    assert S.check_symbolic(other) is False


# ----------------------------------------------------------------------- forgeries: squares of non-real terms

#: the build guard (Pow / log real on the domain) and the sos rule's realness test: each alone rejects a forgery
_GUARD_OFF = {"_power_ok": lambda b, e, env: True, "_log_ok": lambda a, env: True}
_REAL_OFF = {"_real": lambda w, env: True}


def _forged_two_le_x() -> dict:
    """``2 <= x`` for all real ``x``: ``x - 2 = ((x - 2)^(1/2))^2``."""
    return _one_goal([["x", "real"]], "<=", sp.Integer(2), x, [_sos(x, [[T(1), _sqrt(T(x - 2))]])])


def _forged_softplus_eighth() -> dict:
    """``softplus_mu''(x) <= 1/(8 mu)`` (false: the maximum is ``1/(4 mu)``) via ``q = (1/(8 mu) - s(1 - s)/mu)^(1/2)``."""
    d2 = sp.Derivative(mu * sp.log(1 + sp.exp(x / mu)), (x, 2))
    s = 1 / (1 + sp.exp(-x / mu))
    mid = s * (1 - s) / mu
    top = 1 / (8 * mu)
    return _one_goal([["mu", "positive"], ["x", "real"]], "<=", d2, top,
                     [{"rel": "==", "expr": T(mid), "by": "identity"}, _sos(top, [[T(1), _sqrt(T(top - mid))]])],
                     name="upper")


def _forged_log_mono() -> dict:
    """``mu log 2 <= 0``: ``log_mono`` from ``a = 2`` to ``b = 1`` with ``b - a = ((-1)^(1/2))^2``."""
    return _one_goal([["mu", "positive"]], "<=", mu * sp.log(2), sp.Integer(0),
                     [{"rel": "<=", "expr": T(mu * sp.log(1)), "by": "log_mono", "c": T(mu), "a": T(2), "b": T(1),
                       "terms": [[T(1), _sqrt(["Integer", "-1"])]]}])


def _forged_nested_root() -> dict:
    """``2 <= x`` again, the square ``(z^(1/2))^2 = z`` hidden one level down: ``q = ((x - 2)^(1/4))^2``."""
    q = ["Pow", ["Pow", T(x - 2), ["Rational", "1/4"]], ["Integer", "2"]]
    return _one_goal([["x", "real"]], "<=", sp.Integer(2), x, [_sos(x, [[T(1), ["Pow", q, ["Rational", "1/2"]]]])])


FORGED_SQUARES = {"2 <= x": _forged_two_le_x, "softplus'' <= 1/(8 mu)": _forged_softplus_eighth,
                  "log_mono": _forged_log_mono, "nested root": _forged_nested_root}


@pytest.mark.parametrize("name", sorted(FORGED_SQUARES))
def test_non_real_square_is_rejected_by_each_layer(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    d = FORGED_SQUARES[name]()
    assert S.check_symbolic(d) is False
    with monkeypatch.context() as m:  # the sos realness test alone
        for k, v in _GUARD_OFF.items():
            m.setattr(S, k, v)
        assert S._check_inline(d) is False
    with monkeypatch.context() as m:  # the build guard alone
        for k, v in _REAL_OFF.items():
            m.setattr(S, k, v)
        assert S._check_inline(d) is False
    if name != "nested root":  # control: with both layers off the forgery passes, so the layers are what rejects it
        with monkeypatch.context() as m:
            for k, v in {**_GUARD_OFF, **_REAL_OFF}.items():
                m.setattr(S, k, v)
            assert S._check_inline(d) is True


def test_forged_softplus_statement_differs_from_the_claim() -> None:
    from verify.claims.proofs import _statement_softplus

    st = S.statement_of(_forged_softplus_eighth())
    assert st is not None and S.statements_equal(st, _statement_softplus()) is False


@pytest.mark.parametrize("tree", [
    ["log", ["Symbol", "x"]],                                            # log of a real
    ["Pow", ["Symbol", "x"], ["Integer", "-1"]],                         # 1/x, x may be 0
    ["Pow", ["Symbol", "x"], ["Rational", "1/3"]],                       # odd root of a real: complex in sympy
    ["Pow", ["Symbol", "v"], ["Rational", "-1/2"]],                      # v >= 0 may be 0
    ["Derivative", ["Max", ["Symbol", "x"], ["Integer", "0"]], [["x", 1]]],   # derivative of a kink
    ["Sum", ["Indexed", "c", "i"], "i", ["Integer", "3"], ["Integer", "1"]],  # Karr convention: = -c_2
])
def test_ill_defined_expressions_are_refused(tree) -> None:
    syms = [["x", "real"], ["v", "nonnegative"], ["i", "index"], ["c", "indexed_real"]]
    d = _one_goal(syms, "==", tree, tree, [{"rel": "==", "expr": tree, "by": "identity"}])
    assert S.check_symbolic(d) is False
    with pytest.raises(ValueError):
        S.from_tree(tree, syms)


def test_reversed_sum_cannot_flip_sum_mono(certs: dict) -> None:
    """``Sum(f, (i, 3, 1)) = -f(2)`` in sympy: summing Prop. 1's ``gap >= 0`` over it would 'prove' ``gap <= 0``."""
    eta, i = sp.Symbol("eta", real=True), sp.Symbol("i", integer=True)
    p, a, f = sp.IndexedBase("p", positive=True), sp.IndexedBase("alpha", positive=True), sp.IndexedBase("f", real=True)
    xi, w = f[i] - eta, p[i] / a[i]
    gap = mu * sp.log(1 + sp.exp(xi / mu)) - sp.Max(xi, 0)
    lo, hi = sp.Integer(3), sp.Integer(1)
    end = -sp.Sum(w * gap, (i, 2, 2))
    d = copy.deepcopy(certs["lemma2"])
    goal = {"name": "forged", "rel": "<=", "lhs": T(sp.Integer(0)), "rhs": T(end)}
    d["statement"]["goals"] = [goal]
    d["evidence"]["parts"] = d["evidence"]["parts"][:2] + [{
        "name": "forged", "goal": {k: goal[k] for k in ("rel", "lhs", "rhs")},
        "chains": [[T(sp.Integer(0)), S._link_t("==", sp.Sum(w * 0, (i, lo, hi)), "identity"),
                    S._link_t("<=", sp.Sum(w * gap, (i, lo, hi)), "sum_mono", premise=1, var="x", index="i", term=xi,
                              weight=w, lo=lo, hi=hi),
                    S._link_t("==", end, "identity")]]}]
    assert S.check_symbolic(d) is False


# ------------------------------------------------------------------------- forgeries: statement vs evidence


def test_narrowed_lemma_c1_is_not_the_claimed_statement(certs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranges narrowed to points (g, h in [0, 0]): a proof of a weaker statement, refused as Lemma C.1."""
    from verify.claims.proofs import _statement_lemma_c1
    from verify.core import Context, run_claim

    d = copy.deepcopy(certs["lemma_c1"])
    for s in d["statement"]["symbols"]:
        if s[0] in ("g", "h"):
            s[2], s[3] = ["Integer", "0"], ["Integer", "0"]
    assert S.check_symbolic(d) is True  # a valid proof ... of its own narrow statement
    assert S.statements_equal(S.statement_of(d), _statement_lemma_c1()) is False
    assert S.statements_equal(S.statement_of(certs["lemma_c1"]), _statement_lemma_c1()) is True
    monkeypatch.setattr(S, "lemma_c1_certificate", lambda: d)
    r = run_claim("proofs.rcfl.lemmaC1.smoothness", Context(quick=True, seed=0))
    assert r.status == "error"
    assert "another statement" in r.note and "g, h" in r.note


def _drop_tightness(d: dict) -> None:
    for g in d["statement"]["goals"]:
        g.pop("attained", None)


def _drop_convexity(d: dict) -> None:
    d["statement"]["goals"] = [g for g in d["statement"]["goals"] if g["name"] != "convex"]


@pytest.mark.parametrize("claim_id,maker,weaken", [("proofs.rcfl.prop1.softplus", "prop1", _drop_tightness),
                                                   ("proofs.rcfl.softplus.smoothness", "softplus_smoothness", _drop_convexity)])
def test_claim_refuses_a_certificate_of_a_weaker_statement(claim_id: str, maker: str, weaken,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A valid certificate of less (no equality point, a goal left out) is not a proof of the claim."""
    from verify.core import Context, run_claim

    d = S.ALL_CERTIFICATES[maker]()
    weaken(d)
    assert S.check_symbolic(d) is True
    monkeypatch.setattr(S, f"{maker}_certificate", lambda: d)
    r = run_claim(claim_id, Context(quick=True, seed=0))
    assert r.status == "error" and "another statement" in r.note


def test_evidence_symbol_may_not_be_bounded(certs: dict) -> None:
    d = copy.deepcopy(certs["prop1"])
    d["evidence"]["symbols"].append(["y", "bounded", ["Integer", "0"], ["Integer", "1"]])
    assert S.check_symbolic(d) is False
    ok = copy.deepcopy(certs["prop1"])
    ok["evidence"]["symbols"].append(["y", "real"])
    assert S.check_symbolic(ok) is True


@pytest.mark.parametrize("decl", [["x", "real"], ["mu", "real"], ["mu", "positive"]])
def test_evidence_symbol_may_not_shadow_a_statement_symbol(certs: dict, decl: list) -> None:
    d = copy.deepcopy(certs["prop1"])
    d["evidence"]["symbols"].append(decl)
    assert S.check_symbolic(d) is False


@pytest.mark.parametrize("decl", [["p", "indexed_positive"], ["f", "function", 1]])
def test_evidence_symbol_kinds_are_restricted(certs: dict, decl: list) -> None:
    d = copy.deepcopy(certs["prop1"])
    d["evidence"]["symbols"].append(decl)
    assert S.check_symbolic(d) is False


def test_every_statement_goal_needs_its_part(certs: dict) -> None:
    renamed = copy.deepcopy(certs["prop1"])
    renamed["evidence"]["parts"][0]["name"] = "something else"
    assert S.check_symbolic(renamed) is False
    dropped = copy.deepcopy(certs["lemma12"])
    dropped["evidence"]["parts"] = [p for p in dropped["evidence"]["parts"] if p["name"] != "any d: form <= L_q |u|^2"]
    assert S.check_symbolic(dropped) is False
    twice = copy.deepcopy(certs["prop1"])
    twice["evidence"]["parts"].append(copy.deepcopy(twice["evidence"]["parts"][0]))
    assert S.check_symbolic(twice) is False


def test_part_proving_another_goal_under_the_same_name_fails(certs: dict) -> None:
    d = copy.deepcopy(certs["softplus_smoothness"])
    d["statement"]["goals"][0]["rhs"] = T(1 / (8 * mu))  # the part still proves 1/(4 mu)
    assert S.check_symbolic(d) is False
    rel = copy.deepcopy(certs["softplus_smoothness"])
    rel["statement"]["goals"][1]["rel"] = "=="           # 0 == softplus'': the part proves only <=
    assert S.check_symbolic(rel) is False
    swapped = copy.deepcopy(certs["prop1"])             # the two parts' names exchanged
    p0, p1 = swapped["evidence"]["parts"]
    p0["name"], p1["name"] = p1["name"], p0["name"]
    assert S.check_symbolic(swapped) is False


def test_statement_part_may_not_mention_auxiliary_symbols(certs: dict) -> None:
    """``0 * v`` is ``0``, but a statement goal's part may not even mention the evidence symbol ``v``."""
    d = copy.deepcopy(certs["prop1"])
    part = next(p for p in d["evidence"]["parts"] if p["name"] == "gap >= 0")
    part["goal"]["lhs"] = ["Mul", ["Integer", "0"], ["Symbol", "v"]]
    assert S.check_symbolic(d) is False
    st = copy.deepcopy(certs["prop1"])  # nor may the statement
    st["statement"]["goals"][1]["lhs"] = ["Mul", ["Integer", "0"], ["Symbol", "v"]]
    assert S.check_symbolic(st) is False


def test_attained_point_is_checked(certs: dict) -> None:
    d = copy.deepcopy(certs["softplus_smoothness"])
    d["statement"]["goals"][0]["attained"] = {"subs": [["x", ["Integer", "1"]]]}
    assert S.check_symbolic(d) is False


# ------------------------------------------------------------------------------- statements: equality, words


DECLARED_OF = {"softplus_smoothness": "proofs.rcfl.softplus.smoothness", "prop1": "proofs.rcfl.prop1.softplus",
               "lemma2": "proofs.rcfl.lemma2.gap", "lemma_c1": "proofs.rcfl.lemmaC1.smoothness",
               "lemma12": "proofs.qffl.lemma12.lipschitz"}


@pytest.mark.parametrize("name", MAKERS)
def test_declared_statement_matches_the_certificate(certs: dict, name: str) -> None:
    from verify.claims.proofs import DECLARED
    from verify.core import REGISTRY

    fn = DECLARED[DECLARED_OF[name]]
    assert REGISTRY[DECLARED_OF[name]].proves is fn
    assert S.statements_equal(S.statement_of(certs[name]), fn()) is True
    other = S.statement_of(certs["prop1" if name != "prop1" else "softplus_smoothness"])
    assert S.statements_equal(other, fn()) is False


def test_statements_equal_is_semantic() -> None:
    a = {"symbols": [["mu", "positive"], ["x", "real"], ["s", "bounded", T(0), T(1)]],
         "goals": [{"name": "g", "rel": "<=", "lhs": T(x), "rhs": T(1 / (4 * mu))}]}
    b = copy.deepcopy(a)
    b["symbols"] = b["symbols"][::-1]
    b["symbols"][0][3] = ["Add", ["Rational", "1/2"], ["Rational", "1/2"]]
    b["goals"][0]["rhs"] = ["Pow", ["Mul", ["Integer", "4"], ["Symbol", "mu"]], ["Integer", "-1"]]
    assert b["goals"][0]["rhs"] != a["goals"][0]["rhs"]
    assert S.statements_equal(a, b) is True
    for change in (lambda c: c["symbols"].__setitem__(1, ["x", "nonnegative"]),             # a new hypothesis
                   lambda c: c["symbols"][2].__setitem__(3, T(sp.Rational(1, 2))),          # a narrower range
                   lambda c: c["symbols"].append(["y", "real"]),                            # another symbol
                   lambda c: c["goals"][0].__setitem__("rel", "=="),
                   lambda c: c["goals"][0].__setitem__("rhs", T(1 / (8 * mu))),
                   lambda c: c["goals"][0].__setitem__("attained", {"subs": [["x", T(0)]]}),
                   lambda c: c["goals"].append({"name": "h", "rel": "<=", "lhs": T(0), "rhs": T(mu)}),
                   lambda c: c.__setitem__("kind", "pep-dual")):
        c = copy.deepcopy(a)
        change(c)
        assert S.statements_equal(a, c) is False
    assert S.statements_equal(a, {"symbols": "x", "goals": []}) is False
    assert S.statements_equal(None, a) is False


def test_describe_lists_hypotheses_and_goals(certs: dict) -> None:
    words = S.describe(S.statement_of(certs["softplus_smoothness"]))
    lines = words.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("upper: for all mu > 0, x real: ") and lines[0].endswith("<= 1/(4*mu), with equality at x = 0")
    c1 = S.describe(S.statement_of(certs["lemma_c1"]))
    assert len(c1.splitlines()) == 8 and "-L2 <= g <= L2" in c1 and "0 <= a <= U*(G + 1)" in c1
    assert "malformed" in S.describe({"symbols": 3}) or "not a well-formed" in S.describe({"symbols": 3})


# -------------------------------------------------------------------------------- hostile data, budgets


def _with_goal(lhs) -> dict:
    return _one_goal([["x", "real"], ["i", "index"], ["c", "indexed_real"]], "==", lhs, lhs,
                     [{"rel": "==", "expr": lhs, "by": "identity"}])


def _deep(n: int, head: str = "exp"):
    t = ["Symbol", "x"]
    for _ in range(n):
        t = [head, t]
    return t


HOSTILE = [
    None, 3, "sympy-proof", [], {}, {"kind": "sympy-proof"}, {"kind": "sympy-proof", "version": 2},
    {"kind": "sympy-proof", "version": 2, "statement": {"symbols": "x", "goals": []}, "evidence": {"parts": []}},
    {"kind": "sympy-proof", "version": 2, "statement": {"symbols": [["x", "real"], ["x", "real"]], "goals": [{}]},
     "evidence": {"symbols": [], "parts": [{}]}},
    {"kind": "sympy-proof", "version": 2, "statement": {"symbols": [["__import__", "real"]], "goals": [{}]},
     "evidence": {"parts": [{}]}},
    {"kind": "sympy-proof", "version": 2, "statement": {"symbols": [["x", "evil"]], "goals": [{}]}, "evidence": {"parts": [{}]}},
    _with_goal(["eval", "1+1"]),                                             # unknown head
    _with_goal(["Symbol", "y"]),                                             # undeclared symbol
    _with_goal(["Integer", "1" * 500]),                                      # huge integer
    _with_goal(["Integer", "1e5"]),                                          # not an integer string
    _with_goal(["Rational", "1/0"]),                                         # zero denominator
    _with_goal(["Pow", ["Add", ["Symbol", "x"], ["Integer", "1"]], ["Integer", "100000"]]),   # huge power
    _with_goal(["Pow", ["Pow", ["Add", ["Symbol", "x"], ["Integer", "1"]], ["Integer", "16"]], ["Integer", "16"]]),
    _with_goal(_deep(200)),                                                  # too deep
    _with_goal(_deep(4)),                                                    # exp tower past the nesting limit
    _with_goal(["Add"] + [["Symbol", "x"]] * 5000),                          # too wide
    _with_goal(["Add"] + [["Mul", ["Symbol", "x"], ["Integer", str(k)]] for k in range(20000)]),   # past MAX_JSON
    _with_goal(["Sum", ["Indexed", "c", "i"], "i", ["Integer", "1"], ["Integer", "10000000000"]]),  # huge sum
    _with_goal(["Sum", ["Sum", ["Indexed", "c", "i"], "i", ["Integer", "1"], ["Integer", "100"]], "i", ["Integer", "1"],
                ["Integer", "100"]]),                                        # nested numeric sums of 10^4 terms
    _with_goal(["Symbol", 7]),
    _with_goal({"Symbol": "x"}),
    _with_goal(["Float", "1.5"]),
    {"kind": "sympy-proof", "version": 2, "statement": {"symbols": [["x", "real"]], "goals": [
        {"name": "p", "rel": "<", "lhs": ["Symbol", "x"], "rhs": ["Symbol", "x"]}]},
     "evidence": {"symbols": [], "parts": [{"name": "p", "goal": {"rel": "<", "lhs": ["Symbol", "x"], "rhs": ["Symbol", "x"]},
                                            "chains": []}]}},
    {"kind": "sympy-proof", "version": 2, "statement": {"symbols": [["x", "real"]], "goals": [], "extra": 1},
     "evidence": {"parts": []}},
    {"kind": "sympy-proof", "version": 2, "statement": {"symbols": [], "goals": []}, "evidence": {"parts": []},
     "nan": float("nan")},
]


@pytest.mark.parametrize("d", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_gives_false_quickly(d) -> None:
    t0 = time.perf_counter()
    assert S.check_symbolic(d) is False
    assert S._check_inline(d) is False
    assert time.perf_counter() - t0 < 3.0


def _double_sum_certificate(degree: int = 16) -> dict:
    """2 KB: an identity between two double sums of ``(i + j + x)^degree`` with the summation order swapped,
    next to a derivative, so that ``doit`` computes both in closed form (about 45 s at degree 16)."""
    i, j = sp.Symbol("i", integer=True), sp.Symbol("j", integer=True)
    body = T((i + j + x) ** degree)

    def ds(a: str, b: str) -> list:
        return ["Sum", ["Sum", body, a, ["Integer", "1"], ["Symbol", "n"]], b, ["Integer", "1"], ["Symbol", "n"]]

    lhs = ["Add", T(sp.Derivative(x ** 3, x)), ds("i", "j")]
    rhs = ["Add", T(3 * x ** 2 + 1), ds("j", "i")]
    return _one_goal([["x", "real"], ["i", "index"], ["j", "index"], ["n", "count"]], "==", lhs, rhs,
                     [{"rel": "==", "expr": rhs, "by": "identity"}])


def test_hostile_slow_certificate_is_decided_within_the_budget() -> None:
    d = _double_sum_certificate()
    assert len(json.dumps(d)) < 2100
    t0 = time.perf_counter()
    assert S.check_symbolic(d, seconds=3.0) is False
    assert time.perf_counter() - t0 < 5.0


def test_triple_sum_is_refused_statically() -> None:
    d = _double_sum_certificate()
    for side in (d["statement"]["goals"][0], d["evidence"]["parts"][0]["goal"]):
        side["lhs"] = ["Sum", side["lhs"], "i", ["Integer", "1"], ["Symbol", "n"]]
    t0 = time.perf_counter()
    assert S._check_inline(d) is False
    assert time.perf_counter() - t0 < 1.0


def test_time_budget_kills_work_inside_a_single_step(certs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget is wall time on a child process, not a poll between steps: a step that never returns is killed."""
    monkeypatch.setattr(S, "_is_zero", lambda d: time.sleep(60) or True)
    t0 = time.perf_counter()
    assert S.check_symbolic(certs["softplus_smoothness"], seconds=1.0) is False
    assert time.perf_counter() - t0 < 3.0


def test_memory_cap_and_child_death_mean_false(certs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S, "_is_zero", lambda d: len(bytearray(S.MAX_MEMORY + 2 ** 30)) > 0)
    assert S.check_symbolic(certs["softplus_smoothness"]) is False  # MemoryError in the child (True without the cap)
    monkeypatch.setattr(S, "_is_zero", lambda d: os.kill(os.getpid(), signal.SIGKILL))
    assert S.check_symbolic(certs["softplus_smoothness"]) is False


def test_child_runs_under_cpu_and_memory_limits() -> None:
    import resource

    cpu, mem = S._bounded(lambda: (resource.getrlimit(resource.RLIMIT_CPU), resource.getrlimit(resource.RLIMIT_AS)),
                          (), 2.0, (None, None))
    assert cpu is not None and cpu[0] == 3
    assert mem[0] != resource.RLIM_INFINITY
    assert S._bounded(lambda: 1 / 0, (), 2.0, "failed") == "failed"


def test_time_budget_constant_is_read_at_call_time(certs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S, "MAX_SECONDS", -1.0)
    assert S.check_symbolic(certs["prop1"]) is False


# --------------------------------------------------------------------------------------- ranges and scope


def test_from_tree_rejects_and_round_trips() -> None:
    syms = [["mu", "positive"], ["x", "real"]]
    e = mu * sp.log(1 + sp.exp(x / mu)) - sp.Max(x, 0) + sp.Rational(3, 7)
    assert sp.simplify(S.from_tree(S.to_tree(e), syms) - e) == 0
    with pytest.raises(ValueError):
        S.from_tree(["Symbol", "y"], syms)
    with pytest.raises(ValueError):
        S.from_tree(["sympify", "x"], syms)


def test_goal_of_returns_the_stated_lemma(certs: dict) -> None:
    rel, lhs, rhs = S.goal_of(certs["softplus_smoothness"], "upper")
    assert rel == "<="
    assert sp.simplify(rhs - 1 / (4 * mu)) == 0
    assert sp.simplify(lhs.doit() - sp.diff(mu * sp.log(1 + sp.exp(x / mu)), x, 2)) == 0


def test_summed_variable_may_not_carry_a_declared_range(certs: dict) -> None:
    """sum_mono substitutes the premise's variable: a range that depends on it would not follow."""
    d = copy.deepcopy(certs["lemma2"])
    d["evidence"]["symbols"] = [s for s in d["evidence"]["symbols"] if s[0] != "x"]
    d["statement"]["symbols"] += [["x", "real"], ["y", "bounded", ["Symbol", "x"], ["Add", ["Symbol", "x"], ["Integer", "1"]]]]
    assert S.check_symbolic(d) is False
    ok = copy.deepcopy(certs["lemma2"])
    ok["statement"]["symbols"].append(["y", "bounded", ["Integer", "0"], ["Integer", "1"]])
    assert S.check_symbolic(ok) is True


@pytest.mark.parametrize("name,symbol,new_high", [
    ("lemma12", "a", lambda: 2 * sp.Symbol("G", nonnegative=True) * sp.Symbol("U", nonnegative=True)),  # not Cauchy-Schwarz
    ("lemma_c1", "G", lambda: 2 * sp.Symbol("L2", nonnegative=True) ** 2),                              # |grad f| > L2
    ("lemma_c1", "s", lambda: sp.Integer(2)),                                                             # sigma > 1
])
def test_widened_range_breaks_the_any_d_proofs(certs: dict, name: str, symbol: str, new_high) -> None:
    d = copy.deepcopy(certs[name])
    i = [s[0] for s in d["statement"]["symbols"]].index(symbol)
    d["statement"]["symbols"][i][3] = S.to_tree(new_high())
    assert S.check_symbolic(d) is False
