"""The domain is one kernel object: every substitution of the ``"symbolic"`` kernel (attained points, lemma
instances, sum expansions; case splits around them) passes :meth:`fairtheory_kernel.normal_form.Ctx.point`.

The route closed here: a goal's ``attained`` point was checked against the range of the symbol it assigns only.
With ``x <= y <= x + 1/2`` the goal ``(y - x)^2 <= 1`` "with equality at ``x = y + 1``" was accepted (and printed
``proved`` by ``python -m verify --plugin``, passed by ``recheck``), although the left side is at most ``1/4`` on
that domain.  Each forgery below is refused by the kernel, ends not ``proved`` end to end, fails ``recheck`` naming
its row, and is refuted by the numerical falsifier; each control (a true statement) is accepted."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fairtheory.proofs.__main__ import main as proofs_main
from fairtheory.proofs.falsify_symbolic import falsify
from fairtheory_kernel import symbolic as K
from fairtheory_kernel.check import check_inline, describe

REPO = Path(__file__).resolve().parents[1]
X, Y = ["v", "x"], ["v", "y"]
GAP = ["+", Y, ["*", ["q", "-1"], X]]  # y - x, in [0, 1/2]


def q(s: str) -> list[Any]:
    return ["q", s]


def plus(*xs: Any) -> list[Any]:
    return ["+", *xs]


def _cert(symbols: list[Any], goal: dict[str, Any], proof: dict[str, Any], lemmas: list[Any] | None = None) -> dict[str, Any]:
    return {"kind": "symbolic", "version": 1, "title": "domain", "citation": "test",
            "statement": {"symbols": symbols, "goals": [goal]},
            "evidence": {"lemmas": lemmas or [], "proofs": [{"name": goal["name"], **proof}]}}


def _sos(lhs: Any, rhs: Any, terms: list[Any]) -> dict[str, Any]:
    return {"chain": [lhs, {"rel": "<=", "expr": rhs, "by": "sos", "terms": terms}]}


RANGE = [["x", "real"], ["y", "bounded", X, plus(X, q("1/2"))]]
SQ = ["^", GAP, 2]
#: 1 - (y - x)^2 = 3/4 + (1/2) hi + hi lo, hi = x + 1/2 - y, lo = y - x
PROOF_1 = _sos(SQ, q("1"), [["3/4", []], ["1/2", [["hi", "y"]]], ["1", [["hi", "y"], ["lo", "y"]]]])
#: 1/4 - (y - x)^2 = (1/2) hi + hi lo
PROOF_Q = _sos(SQ, q("1/4"), [["1/2", [["hi", "y"]]], ["1", [["hi", "y"], ["lo", "y"]]]])


REPRO_POINT = [["x", plus(Y, q("1"))]]


def repro(attained: list[Any] | None | str = "x = y + 1") -> dict[str, Any]:
    """The issue's statement: ``(y - x)^2 <= 1`` on ``x <= y <= x + 1/2``, equality "at ``x = y + 1``" (the
    default), at another point, or without one (``None``)."""
    goal: dict[str, Any] = {"name": "g", "rel": "<=", "lhs": SQ, "rhs": q("1")}
    if attained is not None:
        goal["attained"] = copy.deepcopy(REPRO_POINT if isinstance(attained, str) else attained)
    return _cert(RANGE, goal, PROOF_1)


def tight(attained: list[Any]) -> dict[str, Any]:
    """``(y - x)^2 <= 1/4`` on the same domain: attained at ``y = x + 1/2`` (true)."""
    return _cert(RANGE, {"name": "g", "rel": "<=", "lhs": SQ, "rhs": q("1/4"), "attained": attained}, PROOF_Q)


# ------------------------------------------------------------------------------------------------ the kernel alone
def test_the_kernel_refuses_the_issue_repro_and_accepts_its_control() -> None:
    assert K.check(repro()) is False
    assert check_inline(repro()) is False
    assert K.check(repro(None)) is True  # the inequality alone is true and proved
    assert K.check(tight([["y", plus(X, q("1/2"))]])) is True  # a genuine equality point
    assert K.check(tight([["x", q("0")], ["y", q("1/2")]])) is True


@pytest.mark.parametrize("att", [
    [["x", plus(Y, q("-1/4"))]],                 # circular: x's value uses y, whose range uses x
    [["x", plus(Y, q("-1/2"))]],                 # the same, refused although y = x + 1/2 would be a point
    [["y", plus(X, q("1"))]],                    # y above its dependent upper end
    [["y", plus(X, q("-1/2"))]],                 # y below its dependent lower end
    [["x", q("1")], ["y", q("1/2")]],            # both given: y outside [1, 3/2]
    [["x", q("0")], ["y", X]],                   # a value that uses an assigned name
])
def test_points_outside_the_domain_are_refused(att: list[Any]) -> None:
    for c in (tight(att), repro(att)):
        assert K.check(c) is False, att


def test_the_repro_with_other_proofs_is_still_refused() -> None:
    """The same point behind a case split (both branches prove the inequality) and behind a lemma."""
    c = repro()
    pf = c["evidence"]["proofs"][0]
    c["evidence"]["proofs"][0] = {"name": "g", "cases": GAP, "chains": [pf["chain"], pf["chain"]]}
    assert K.check(c) is False
    del c["statement"]["goals"][0]["attained"]
    assert K.check(c) is True


def test_an_empty_dependent_range_at_the_point_is_refused() -> None:
    """``a >= 0``, ``0 <= y <= a``: at ``a = -1`` the range of ``y`` is empty (and ``a`` is outside its kind)."""
    a = ["v", "a"]
    sym = [["a", "nonnegative"], ["y", "bounded", q("0"), a]]
    goal = {"name": "g", "rel": "<=", "lhs": ["*", q("0"), Y], "rhs": q("0"), "attained": [["a", q("-1")]]}
    proof = {"chain": [goal["lhs"], {"rel": "==", "expr": q("0"), "by": "identity"}]}
    assert K.check(_cert(sym, goal, proof)) is False
    assert K.check(_cert(sym, {**goal, "attained": [["a", q("2")]]}, proof)) is True
    # a bounded a in [0, 1] with y in [0, a]: a = -1 is refused the same way
    sym2 = [["a", "bounded", q("0"), q("1")], ["y", "bounded", q("0"), a]]
    assert K.check(_cert(sym2, goal, proof)) is False
    assert K.check(_cert(sym2, {**goal, "attained": [["a", q("1/2")]]}, proof)) is True


def test_a_family_value_outside_its_kind_is_refused() -> None:
    p = ["at", "p", ["b", 0]]
    n = ["v", "n"]
    sym = [["n", "count"], ["p", "family_positive"]]
    lhs = ["sum", ["*", q("0"), p], q("1"), n]
    goal = {"name": "g", "rel": "<=", "lhs": lhs, "rhs": q("0"), "attained": [["p", q("-1")]]}
    proof = {"chain": [lhs, {"rel": "==", "expr": q("0"), "by": "identity"}]}
    assert K.check(_cert(sym, goal, proof)) is False
    assert K.check(_cert(sym, {**goal, "attained": [["p", q("1")]]}, proof)) is True
    assert K.check(_cert(sym, {**goal, "attained": [["n", q("1")]]}, proof)) is False  # a count is never assigned


def _nonneg_lemma(kind: str) -> dict[str, Any]:
    """``0 <= z`` for ``z`` of ``kind``: true for ``positive``/``nonnegative`` only."""
    z = ["v", "z"]
    return {"name": "L", "vars": [["z", kind]], "rel": "<=", "lhs": q("0"), "rhs": z,
            "proof": {"chain": [q("0"), {"rel": "<=", "expr": z, "by": "sos", "terms": [["1", [["pos", z]]]]}]}}


def test_a_lemma_instance_outside_the_lemma_domain_is_refused() -> None:
    """``0 <= z`` for ``z > 0``, instantiated at ``z = -1`` in a sum: ``0 <= -2`` would follow."""
    lhs, rhs = ["sum", q("0"), q("1"), q("2")], ["sum", q("-1"), q("1"), q("2")]
    link = {"rel": "<=", "expr": rhs, "by": "sum_mono", "lemma": "L", "term": q("-1"), "weight": q("1"),
            "lo": q("1"), "hi": q("2")}
    goal = {"name": "g", "rel": "<=", "lhs": q("0"), "rhs": q("-2")}
    proof = {"chain": [q("0"), {"rel": "==", "expr": lhs, "by": "identity"}, link,
                       {"rel": "==", "expr": q("-2"), "by": "identity"}]}
    for kind in ("positive", "nonnegative"):
        assert K.check(_cert([], goal, proof, [_nonneg_lemma(kind)])) is False
    assert falsify({"symbols": [], "goals": [goal]}) is not None


def test_a_lemma_instance_inside_its_domain_is_accepted() -> None:
    """Control: ``(t - 1)^2 >= 0`` for real ``t``, instantiated at ``t = i`` in ``sum_{i=1}^{n}``."""
    t = ["v", "t"]
    lemma = {"name": "L", "vars": [["t", "real"]], "rel": "<=", "lhs": q("0"), "rhs": ["^", plus(t, q("-1")), 2],
             "proof": _sos(q("0"), ["^", plus(t, q("-1")), 2], [["1", [["sq", plus(t, q("-1"))]]]])}
    n, i = ["v", "n"], ["b", 0]
    rhs = ["sum", ["^", plus(i, q("-1")), 2], q("1"), n]
    goal = {"name": "g", "rel": "<=", "lhs": q("0"), "rhs": rhs}
    proof = {"chain": [q("0"), {"rel": "==", "expr": ["sum", q("0"), q("1"), n], "by": "identity"},
                       {"rel": "<=", "expr": rhs, "by": "sum_mono", "lemma": "L", "term": i, "weight": q("1"),
                        "lo": q("1"), "hi": n}]}
    assert K.check(_cert([["n", "count"]], goal, proof, [lemma])) is True


def test_sum_expansions_stay_inside_their_range() -> None:
    """A short sum is expanded at its integer points only; an empty-backwards range ``sum_{i=3}^{1}`` is refused
    (``sum 1`` would be ``-1``), ``sum_{i=2}^{1}`` is the empty sum."""
    for lo, hi, value, ok in (("3", "1", "-1", False), ("2", "1", "0", True), ("1", "3", "6", True),
                              ("1", "3", "7", False)):
        lhs = ["sum", ["b", 0], q(lo), q(hi)] if ok or value != "-1" else ["sum", q("1"), q(lo), q(hi)]
        goal = {"name": "g", "rel": "==", "lhs": lhs, "rhs": q(value)}
        proof = {"chain": [lhs, {"rel": "==", "expr": q(value), "by": "identity"}]}
        assert K.check(_cert([], goal, proof)) is ok, (lo, hi, value)


def test_the_point_function_is_the_only_substitution() -> None:
    """Every substitution of the symbolic kernel goes through ``Ctx.substitute`` (which calls ``Ctx.point``):
    the private replacement is called nowhere else."""
    import inspect

    from fairtheory_kernel import normal_form, symbolic

    src_sym = inspect.getsource(symbolic)
    assert "_replace" not in src_sym and "subst(" not in src_sym and src_sym.count(".substitute(") == 2
    src_nf = inspect.getsource(normal_form)
    calls = [ln.strip() for ln in src_nf.splitlines() if "self._replace(" in ln]
    assert len(calls) == 3, calls  # in point (the substituted range), substitute, and _replace's own recursion
    assert "self.substitute([body], {bvar: const(i)}, {})" in src_nf  # sum expansions


# ------------------------------------------------------------------------------------------------ the falsifier
def test_the_falsifier_samples_dependent_ranges_consistently() -> None:
    res = falsify(repro()["statement"])
    assert res is not None and res["goal"] == "g" and "outside the domain" in res, res
    assert falsify(repro(None)["statement"]) is None
    assert falsify(tight([["y", plus(X, q("1/2"))]])["statement"]) is None
    assert falsify(tight([["y", plus(X, q("1"))]])["statement"]) is not None


# ------------------------------------------------------------------------------------------------ end to end
PLUGIN = '''
from verify import Context, Outcome, claim

FORGED = {forged!r}
CONTROL = {control!r}


@claim("domain.forged", citation="test", statement="(y - x)^2 <= 1 with equality at x = y + 1", expected="proved",
       proves=FORGED["statement"])
def forged(ctx: Context) -> Outcome:
    return Outcome("proved", certificate=FORGED)


@claim("domain.control", citation="test", statement="(y - x)^2 <= 1", expected="proved", proves=CONTROL["statement"])
def control(ctx: Context) -> Outcome:
    return Outcome("proved", certificate=CONTROL)
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], str, Path]:
    tmp = tmp_path_factory.mktemp("domain")
    plugin = tmp / "domain_plugin.py"
    plugin.write_text(PLUGIN.format(forged=repro(), control=repro(None)))
    js = tmp / "r.json"
    res = subprocess.run([sys.executable, "-m", "verify", "--plugin", str(plugin), "--only", "domain.*", "--json",
                          str(js), "--no-markdown"], cwd=REPO, capture_output=True, text=True, timeout=900,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    doc = json.loads(js.read_text())
    return res.returncode, doc, res.stdout + res.stderr, js


def test_verify_plugin_does_not_prove_the_repro(run: tuple[int, dict[str, Any], str, Path]) -> None:
    code, doc, out, _ = run
    rows = {r["id"]: r for r in doc["claims"]}
    assert rows["domain.control"]["status"] == "proved", rows["domain.control"]["note"]
    forged = rows["domain.forged"]
    assert forged["status"] != "proved" and forged["proved_statement"] is None, forged
    assert "failed re-check" in forged["note"], forged["note"]
    assert code != 0
    assert "with equality at x = y + 1" not in out  # the forged statement is never printed as proved
    assert "proved (domain.control)" in out or "domain.control" in out


def test_recheck_of_a_doctored_report_names_the_row(run: tuple[int, dict[str, Any], str, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The control's proved row edited as a forger would: certificate, declared statement and words all carry the
    false equality point; ``recheck`` fails naming the row."""
    _, doc, _, _ = run
    doc = copy.deepcopy(doc)
    row = next(r for r in doc["claims"] if r["id"] == "domain.control")
    forged = repro()
    row["certificate"] = forged
    row["details"]["declared_statements"] = [forged["statement"]]
    row["proved_statement"] = [describe(forged["statement"])]
    assert "with equality at x = y + 1" in row["proved_statement"][0]
    path = tmp_path / "doctored.json"
    path.write_text(json.dumps(doc))
    code = proofs_main(["recheck", str(path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "FAIL  domain.control: certificate 0 of 1 (kind 'symbolic') fails its exact re-check" in out, out
    assert "1 of 1 rows FAIL (1 proved, 0 refuted exactly): domain.control" in out


# ------------------------------------------------------------------------------------------------ hostile review
def _zero_goal(sym: list[Any], att: list[Any], lhs: Any = None) -> dict[str, Any]:
    """``0 * lhs == 0`` (always true) with the equality point ``att``: only the point is at stake."""
    lhs = ["*", q("0"), lhs if lhs is not None else q("1")]
    goal = {"name": "g", "rel": "==", "lhs": lhs, "rhs": q("0"), "attained": att}
    return _cert(sym, goal, {"chain": [lhs, {"rel": "==", "expr": q("0"), "by": "identity"}]})


def test_ranges_through_family_members_and_counts() -> None:
    p1 = ["at", "p", q("1")]
    sym = [["p", "family_positive"], ["y", "bounded", q("0"), p1]]
    assert K.check(_zero_goal(sym, [["p", q("1")], ["y", q("1/2")]], Y)) is True  # control
    for att in ([["p", q("1")], ["y", q("2")]],      # y outside [0, p_1] = [0, 1]
                [["y", plus(p1, q("1"))]],           # y above p_1
                [["p", Y]],                           # p's value uses y, whose range uses p
                [["y", Y]], [["y", plus(Y, q("0"))]]):  # a value that uses the name it assigns
        assert K.check(_zero_goal(sym, att, Y)) is False, att
    n = ["v", "n"]
    sym_n = [["n", "count"], ["y", "bounded", q("0"), n]]
    assert K.check(_zero_goal(sym_n, [["y", n]], Y)) is True
    assert K.check(_zero_goal(sym_n, [["y", plus(n, q("1"))]], Y)) is False


def test_a_denominator_cancelled_in_the_normal_form_cannot_hide_a_point_off_the_domain() -> None:
    """``(x^2 + x)/x = x + 1`` needs ``x != 0`` (``x > 0`` or ``x`` in ``[1, 2]`` here).  The points ``x = 0`` and
    ``x = -1`` satisfy the cancelled identity but are outside the domain."""
    frac = ["/", plus(["^", X, 2], X), X]
    for sym, bad, good in (([["x", "positive"]], ["0", "-1"], "1"),
                           ([["x", "bounded", q("1"), q("2")]], ["0", "1/2", "3"], "2")):
        goal = {"name": "g", "rel": "==", "lhs": frac, "rhs": plus(X, q("1"))}
        proof = {"chain": [frac, {"rel": "==", "expr": plus(X, q("1")), "by": "identity"}]}
        for v in bad:
            assert K.check(_cert(sym, {**goal, "attained": [["x", q(v)]]}, proof)) is False, (sym, v)
        assert K.check(_cert(sym, {**goal, "attained": [["x", q(good)]]}, proof)) is True


def test_a_log_or_division_at_the_point_is_re_proved() -> None:
    """``log x`` for ``x > 0``: the point ``x = 0`` is outside ``x``'s kind; with ``x`` bounded in ``[1, 2]`` the
    point ``x = 1/2`` is outside its range, although ``log`` and ``1/x`` would be defined there."""
    lg = ["log", X]
    for sym, att in (([["x", "positive"]], [["x", q("0")]]), ([["x", "bounded", q("1"), q("2")]], [["x", q("1/2")]])):
        assert K.check(_zero_goal(sym, att, plus(lg, ["/", q("1"), X]))) is False
    assert K.check(_zero_goal([["x", "bounded", q("1"), q("2")]], [["x", q("3/2")]], plus(lg, ["/", q("1"), X])))


def test_a_lemma_proved_under_a_range_instantiated_outside_it() -> None:
    """A lemma's proof may use the statement's ranges (``0 <= s <= 1``): ``s (1 - s) >= 0``.  Its instance in a sum
    keeps the statement's domain, so a proof of ``0 <= sum_{i=1}^{2} t (1 - t)`` at ``t = 2`` (false: ``-4``)
    must fail: the lemma's variable is real and cannot borrow the range."""
    t = ["v", "t"]
    sym = [["s", "bounded", q("0"), q("1")]]
    prod_t = ["*", t, plus(q("1"), ["*", q("-1"), t])]
    lemma = {"name": "L", "vars": [["t", "real"]], "rel": "<=", "lhs": q("0"), "rhs": prod_t,
             "proof": _sos(q("0"), prod_t, [["1", [["lo", "s"], ["hi", "s"]]]])}
    rhs = ["sum", ["*", q("2"), plus(q("1"), q("-2"))], q("1"), q("2")]
    goal = {"name": "g", "rel": "<=", "lhs": q("0"), "rhs": q("-4")}
    proof = {"chain": [q("0"), {"rel": "==", "expr": ["sum", q("0"), q("1"), q("2")], "by": "identity"},
                       {"rel": "<=", "expr": rhs, "by": "sum_mono", "lemma": "L", "term": q("2"), "weight": q("1"),
                        "lo": q("1"), "hi": q("2")},
                       {"rel": "==", "expr": q("-4"), "by": "identity"}]}
    assert K.check(_cert(sym, goal, proof, [lemma])) is False
    assert falsify({"symbols": sym, "goals": [goal]}) is not None


def test_values_in_later_names_only_where_nothing_depends_on_the_order() -> None:
    """``x = y`` with ``x, y`` real is a point for every ``y`` (accepted); with ``x`` in ``[0, 1]`` it is not
    (``y = 2``), and the kernel refuses a ranged symbol's value in a later name."""
    sq = ["^", plus(X, ["*", q("-1"), Y]), 2]
    goal = {"name": "g", "rel": "<=", "lhs": q("0"), "rhs": sq, "attained": [["x", Y]]}
    proof = _sos(q("0"), sq, [["1", [["sq", plus(X, ["*", q("-1"), Y])]]]])
    assert K.check(_cert([["x", "real"], ["y", "real"]], goal, proof)) is True
    assert K.check(_cert([["x", "bounded", q("0"), q("1")], ["y", "real"]], goal, proof)) is False
    assert K.check(_cert([["y", "real"], ["x", "bounded", q("0"), q("1")]], goal, proof)) is False  # y earlier: range
    assert falsify(_cert([["x", "bounded", q("0"), q("1")], ["y", "real"]], goal, proof)["statement"]) is not None


def test_check_proof_refuses_the_repro_in_its_child() -> None:
    from fairtheory_kernel.check import check_proof

    assert check_proof(repro()) is False
    assert check_proof(repro(None)) is True
