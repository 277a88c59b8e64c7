"""The ``"symbolic"`` kernel (fairtheory_kernel.symbolic) on the five certificates of
fairtheory.proofs.symbolic: each re-checks (also after a JSON round trip, in a fresh process that never imports
sympy), fast; its statement is the claim's declared one; tampering fails; statements are canonical, compared by
``implies`` and put in words sign-correctly; falsification finds nothing in them and finds the false ones."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from fairtheory.proofs import symbolic as S
from fairtheory.proofs.falsify_symbolic import falsify
from fairtheory.proofs.symbolic import IDX, E, at, log, q, sm, v
from fairtheory_kernel import symbolic as K

MAKERS = sorted(S.ALL_CERTIFICATES)
CLAIM = {"softplus_smoothness": "proofs.rcfl.softplus.smoothness", "prop1": "proofs.rcfl.prop1.softplus",
         "lemma2": "proofs.rcfl.lemma2.gap", "lemma_c1": "proofs.rcfl.lemmaC1.smoothness",
         "lemma12": "proofs.qffl.lemma12.lipschitz"}


@pytest.fixture(scope="module")
def certs() -> dict:
    return {k: S.ALL_CERTIFICATES[k]() for k in MAKERS}


def _pf(c: dict, name: str) -> dict:
    """The evidence entry proving goal ``name``."""
    return next(p for p in c["evidence"]["proofs"] if p["name"] == name)


def _why(c: dict) -> str:
    try:
        K._check(c, 10.0)
    except Exception as exc:  # noqa: BLE001 - the reason, for the assertion message
        return f"{type(exc).__name__}: {exc}"
    return "OK"


# ------------------------------------------------------------------------------------ the real certificates
@pytest.mark.parametrize("name", MAKERS)
def test_certificate_rechecks_after_json_round_trip(certs: dict, name: str) -> None:
    d = json.loads(json.dumps(certs[name]))
    assert d["kind"] == "symbolic" and d["version"] == 1
    assert K.check(d) is True, _why(d)  # within the kernel's own deadline (K.MAX_SECONDS)


def test_fresh_process_rechecks_without_importing_sympy(certs: dict, tmp_path) -> None:
    """Only the JSON files are shared; the check path never imports sympy."""
    paths = []
    for name in MAKERS:
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(certs[name]))
        paths.append(str(p))
    code = ("import json, sys; from fairtheory_kernel.symbolic import check; "
            "r = [check(json.load(open(p))) for p in sys.argv[1:]]; print(json.dumps([r, 'sympy' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [[True] * len(MAKERS), False]


@pytest.mark.parametrize("name", MAKERS)
def test_statement_is_the_claims_declared_statement(certs: dict, name: str) -> None:
    from verify.claims.proofs import DECLARED

    st = certs[name]["statement"]
    assert K.implies(st, DECLARED[CLAIM[name]]()) and K.implies(DECLARED[CLAIM[name]](), st)
    assert K.canonical_statement(st) == K.canonical_statement(DECLARED[CLAIM[name]]())
    assert not any(K.implies(st, f()) for cid, f in DECLARED.items() if cid != CLAIM[name])


def test_falsify_finds_nothing_in_the_proved_statements(certs: dict) -> None:
    for name in MAKERS:
        assert falsify(certs[name]["statement"]) is None, name


def test_falsify_finds_false_statements(certs: dict) -> None:
    st = copy.deepcopy(certs["softplus_smoothness"]["statement"])
    st["goals"][0]["rhs"] = E.lift(1 / (8 * v("mu")))  # the true maximum is 1/(4 mu)
    bad = falsify(st)
    assert bad is not None and bad["goal"] == "upper" and float(bad["lhs"]) > float(bad["rhs"])
    st = copy.deepcopy(certs["lemma2"]["statement"])
    st["goals"][0]["rhs"] = E.lift(v("mu") * sm(at("p", IDX) / at("alpha", IDX), 1, v("n")) * log(q("3/2")))
    assert falsify(st)["goal"] == "F^mu - F <= mu tau_alpha log 2"
    st = copy.deepcopy(certs["prop1"]["statement"])
    st["goals"][0]["attained"] = [["x", ["q", "1"]]]  # equality does not hold at x = 1
    assert falsify(st)["goal"] == "gap <= mu log 2"


# ---------------------------------------------------------------------------------------------- tampering
def _set_rhs(c: dict, goal: str, rhs: E, also_proof: bool) -> dict:
    c = copy.deepcopy(c)
    for g in c["statement"]["goals"]:
        if g["name"] == goal:
            g["rhs"] = rhs.t
    if also_proof:
        _pf(c, goal)["chain"][-1]["expr"] = rhs.t
    return c


def test_tampering_fails(certs: dict) -> None:
    mu = v("mu")
    bad = [
        _set_rhs(certs["softplus_smoothness"], "upper", 1 / (8 * mu), False),
        _set_rhs(certs["softplus_smoothness"], "upper", 1 / (8 * mu), True),
        _set_rhs(certs["lemma_c1"], "tight L <= paper L", (v("L1") + (v("L2") ** 2 + 1) / (2 * mu)) / v("alpha"), True),
    ]
    c = copy.deepcopy(certs["lemma12"])
    _pf(c, "form <= L_q |u|^2")["chain"][1]["terms"].pop(0)  # Lagrange's square dropped
    bad.append(c)
    c = copy.deepcopy(certs["softplus_smoothness"])
    _pf(c, "upper")["chain"][1]["terms"][0][0] = "2"  # changed constant in front of a square
    bad.append(c)
    c = copy.deepcopy(certs["prop1"])
    _pf(c, "gap <= mu log 2")["chains"][0][3]["b"] = ["q", "3/2"]  # log_mono end point
    bad.append(c)
    c = copy.deepcopy(certs["lemma2"])
    _pf(c, "F^mu - F >= 0")["chain"][1]["lemma"] = "Prop. 1 upper"  # wrong premise
    bad.append(c)
    c = copy.deepcopy(certs["lemma2"])
    c["evidence"]["lemmas"][0]["rhs"] = E.lift(mu * log(q("3/2"))).copy()  # a false lemma
    bad.append(c)
    c = copy.deepcopy(certs["prop1"])
    _pf(c, "gap >= 0")["chains"] = copy.deepcopy(_pf(c, "gap <= mu log 2")["chains"])  # proofs swapped
    bad.append(c)
    for c in bad:
        assert K.check(c) is False


@pytest.mark.parametrize(("name", "sym", "hi"), [
    ("lemma_c1", "a", 2 * (v("G") + 1) * v("U")), ("lemma_c1", "G", 2 * v("L2") ** 2), ("lemma_c1", "s", q(2)),
    ("lemma12", "a", 2 * v("G") * v("U")), ("lemma12", "k", 2 * v("L") * v("U"))])
def test_widening_a_range_breaks_the_proof(certs: dict, name: str, sym: str, hi: E) -> None:
    c = copy.deepcopy(certs[name])
    for d in c["statement"]["symbols"]:
        if d[0] == sym:
            d[3] = hi.t
    assert K.check(c) is False


def test_narrowed_statement_is_not_the_declared_one(certs: dict) -> None:
    """A valid certificate of a narrower statement (ranges narrowed to points) re-checks but does not imply the
    claim's declared statement; a statement with a goal left out is implied by the full one, not conversely."""
    from verify.claims.proofs import DECLARED

    c = copy.deepcopy(certs["lemma_c1"])
    for d in c["statement"]["symbols"]:
        if d[0] in ("g", "h"):
            d[2], d[3] = ["q", "0"], ["q", "0"]
    assert not K.implies(c["statement"], DECLARED["proofs.rcfl.lemmaC1.smoothness"]())
    fewer = copy.deepcopy(certs["softplus_smoothness"]["statement"])
    fewer["goals"].pop(1)
    assert K.implies(certs["softplus_smoothness"]["statement"], fewer)
    assert not K.implies(fewer, certs["softplus_smoothness"]["statement"])


# ------------------------------------------------------------------------------------- statements and words
def test_canonical_statement_reduces_and_refuses() -> None:
    st = {"symbols": [["x", "real"]], "goals": [{"name": "g", "rel": "<=", "lhs": ["q", "2/4"], "rhs": ["^", ["v", "x"], 2]}]}
    c = K.canonical_statement(st)
    assert c["goals"][0]["lhs"] == ["q", "1/2"] and json.loads(json.dumps(c)) == c
    for bad in (None, [], {"symbols": [], "goals": []}, {**st, "extra": 1},
                {"symbols": [["x", "real"]], "goals": [{**st["goals"][0], "lhs": ["v", "y"]}]},
                {"symbols": [["x", "real"]], "goals": [{**st["goals"][0], "name": "g\nproved (other.id): 1 <= 0"}]},
                {"symbols": [["x", "real"]], "goals": [{**st["goals"][0], "name": "n" * 81}]},
                {"symbols": [["x", "real"]], "goals": [{**st["goals"][0], "rel": ">="}]},
                {"symbols": [["x", "real"]], "goals": [{**st["goals"][0], "lhs": ["q", "1/0"]}]},
                {"symbols": [["x", "real"]], "goals": [{**st["goals"][0], "lhs": ["b", 0]}]},
                {"symbols": [["x", "real"], ["x", "positive"]], "goals": st["goals"]},
                {"kind": "sympy-proof", **st}):
        with pytest.raises(ValueError):
            K.canonical_statement(bad)


def test_describe_is_sign_correct_and_quotes_names() -> None:
    x, y = v("x"), v("y")
    st = S.statement([["x", "real"], ["y", "positive"]],
                     [("a - b", "<=", x - y, -(x * q("-1/2")), None),
                      ("neg constant", "<=", q(-3) / (4 * y + 2), 0 - y * 0, None)])
    text = K.describe(st)
    assert "x - y <= -(x*(-1/2))" in text and '[goal "a - b"]' in text
    assert "(-3)/(4*y + 2) <= 0 - (y*0)" in text and "for all x real, y > 0:" in text
    assert text.index("<=") < text.index('"a - b"')  # mathematics first, the name after it


def test_goal_of() -> None:
    c = S.prop1_certificate()
    rel, lhs, rhs = S.goal_of(c, "gap <= mu log 2")
    assert rel == "<=" and (rel, lhs, rhs) == S.goal_of(c, 0) == S.goal_of(c, -2)


def _q_leaves(x: object, path: tuple = ()) -> list[tuple]:
    if isinstance(x, list) and len(x) == 2 and x[0] == "q" and isinstance(x[1], str):
        return [path]
    items = enumerate(x) if isinstance(x, list) else x.items() if isinstance(x, dict) else []
    return [p for k, y in items for p in _q_leaves(y, (*path, k))]


@pytest.mark.parametrize("name", ["softplus_smoothness", "prop1",
                                  *[pytest.param(k, marks=pytest.mark.slow) for k in ("lemma2", "lemma_c1", "lemma12")]])
def test_mutation_sweep_every_rational_of_the_evidence(certs: dict, name: str) -> None:
    """``+1`` on each rational leaf of the evidence, one at a time (after a JSON round trip, so the statement is
    untouched): every mutant is refused (on this code: 12, 44, 87, 91 and 49 mutants, none survives)."""
    from fractions import Fraction

    base = json.loads(json.dumps(certs[name]))
    paths = _q_leaves(base["evidence"], ("evidence",))
    assert len(paths) >= 10
    for p in paths:
        m = copy.deepcopy(base)
        leaf = m
        for k in p:
            leaf = leaf[k]
        leaf[1] = str(Fraction(leaf[1]) + 1)
        assert K.check(m) is False, p
