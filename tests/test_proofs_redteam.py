"""Red team of the proof kernel (issue 33's six families), each attempt kept as a test that it is refused.

Families: (1) the symbolic kernel, (2) ``pep-dual``, (3) ``pep-family``, (4) ``pep-potential``, (5) words and
``implies``, (6) the report re-check.  Every attack edits a genuine certificate (or builds a forged one) and asserts
that the kernel answers ``False`` / ``implies`` answers ``False`` / the recheck exits non-zero naming the row; the
untouched genuine certificate is checked alongside, so a refusal is not an accident of a broken fixture.  Attacks
that succeeded before this file's fixes (docs/proofs.md, section 6) are marked ``REGRESSION``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from fractions import Fraction as Q
from pathlib import Path
from typing import Any

import pytest

from fairtheory.proofs import symbolic as S
from fairtheory.proofs.symbolic import IDX, E, at, d, exp, fn, log, mx, q, rpow, sm, v
from fairtheory_kernel import check as K
from fairtheory_kernel import potential_kernel as PK

L = E.lift

# genuine certificates (JSON pasted from prove_family("gd", N=1, h=(0, 1)) and certify_exact of one GD step at 1/6)
FAMILY = json.loads(
    '{"kind": "pep-family", "version": 1, "statement": {"class": {"functions": "smooth-convex", "mu": "0"}, '
    '"normalisation": {"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "lr*L"}, "n": 1, "p": ["1"], '
    '"method": {"name": "gd", "N": 1}, "parameter": {"name": "h", "lo": "0", "hi": "1"}, "bound": {"form": '
    '"constrained", "rho2": "0", "value": {"num": ["1"], "den": ["2", "4"]}}}, "evidence": {"pieces": [{"lo": "0", '
    '"hi": "1", "denominator": ["1", "2"], "multipliers": [[0, ["1/2", "1"]], [1, ["1/2", "1"]], [3, ["1/2", "1"]], '
    '[6, ["1/2"]]]}]}}')
DUAL = json.loads(
    '{"kind": "pep-dual", "version": 2, "statement": {"class": {"functions": "smooth-convex", "L": "1", "mu": "0"}, '
    '"n": 1, "p": ["1"], "method": {"name": "local_gd", "kappa": 1, "T_N": 0, "lr": "1", "schedule": "rfedfair", '
    '"output": "last"}, "bound": {"form": "constrained", "D0": "1", "rho2": "0", "value": "1/6"}}, "evidence": '
    '{"multipliers": [[0, "194846532296351/562949953421312"], [1, "368103421124961/562949953421312"], '
    '[3, "368103421124961/562949953421312"], [5, "86628444414305/281474976710656"], [6, "1/6"]]}}')


@pytest.fixture(scope="module")
def potential() -> dict[str, Any]:
    """A genuine pep-potential certificate: gd, f(x_N) - f* <= 3 L D0/(8 N h + 4), every N >= 1, h in [1/100, 1]."""
    from fairtheory.proofs import prove_potential

    return prove_potential("gd", h=(Q(1, 100), Q(1)), potential="lyapunov2").to_json()  # the edits below are its


def _edit(c: Any, f: Callable[[Any], Any]) -> Any:
    out = copy.deepcopy(c)
    f(out)
    return out


def _refused(c: Any) -> None:
    assert K.check_inline(c) is False


def _pair(kind: str, st: Any) -> dict[str, Any]:
    return {"kind": kind, "statement": st}


# ============================================================================== (1) the symbolic kernel
def _cert(symbols: list, rel: str, lhs: E, rhs: E, proof: dict, lemmas: list | None = None,
          attained: dict | None = None) -> dict:
    st = S.statement(symbols, [("g", rel, lhs, rhs, attained)])
    return {"kind": "symbolic", "version": 1, "title": "t", "citation": "c", "statement": st,
            "evidence": {"lemmas": lemmas or [], "proofs": [{"name": "g", **proof}]}}


def _ch(*xs: Any) -> dict:
    return {"chain": [L(xs[0]) if isinstance(xs[0], E) else xs[0], *xs[1:]]}


def _lk(rel: str, expr: E, by: str, **kw: Any) -> dict:
    return {"rel": rel, "expr": L(expr), "by": by, **{k: (L(x) if isinstance(x, E) else x) for k, x in kw.items()}}


def _ident(symbols: list, lhs: E, rhs: E, attained: dict | None = None) -> dict:
    """``lhs == rhs`` by one identity step (true only when the normal forms agree)."""
    return _cert(symbols, "==", lhs, rhs, _ch(lhs, _lk("==", rhs, "identity")), attained=attained)


def _pos(symbols: list, t: E) -> dict:
    """``0 <= t`` by the kernel's sign test of ``t``."""
    return _cert(symbols, "<=", q(0), t, _ch(q(0), _lk("<=", t, "sos", terms=[["1", [["pos", L(t)]]]])))


x, y, z, n, mu = v("x"), v("y"), v("z"), v("n"), v("mu")
R, P, N = ["x", "real"], ["x", "positive"], ["n", "count"]


def test_symbolic_controls_check() -> None:
    """The forms the attacks below edit are accepted when true (so each refusal is the side condition's)."""
    assert K.check_inline(_ident([R], (x + 1) ** 2, x ** 2 + 2 * x + 1))
    assert K.check_inline(_ident([P], log(x ** 2), 2 * log(x)))
    assert K.check_inline(_ident([N], sm(q(1), 1, n), n))
    assert K.check_inline(_pos([P], x / (x + 1)))
    assert K.check_inline(_ident([R, ["y", "real"]], d(x ** 2 * y, "x"), 2 * x * y))
    assert K.check_inline(_ident([P], exp(log(x)), x))


@pytest.mark.parametrize("cert", [
    # division by an expression that can vanish
    _ident([R], x ** 2 / x ** 2, q(1)),
    _ident([P, ["y", "positive"]], (x - y) / (x - y), q(1)),
    _ident([["mu", "positive"]], (mu - 1) / (mu - 1), q(1)),
    _ident([R], (x - x) ** -1, q(0)),
    _ident([["x", "nonnegative"]], x / x, q(1)),
    # log and rpow domains
    _ident([R], log(x ** 2), 2 * log(x)),
    _ident([["x", "nonnegative"]], exp(log(x)), x),
    _ident([R], exp(log(x)), x),
    _ident([], log(q(-1)) * 0 + 1, q(1)),
    _ident([R], rpow(x, q(2)), x ** 2),
    _ident([], rpow(q(0), q(1)), q(0)),
    _ident([R], rpow(x ** 2, q("1/2")) ** 2, x ** 2),
    _pos([P], log(x)),
    _pos([P], rpow(x, q("1/2")) - 1),
    # signs: the summation index has no sign (sum_{i=-5}^{n} i < 0 at n = 1), generic-function derivatives neither
    _pos([N], sm(IDX, -5, n)),
    _pos([N], sm(IDX - 1, 0, n)),
    _pos([["f", "function", 1], R], d(fn("f", x), "x")),
    _pos([P], x - 1),
    _pos([["f", "family_real"]], at("f", 1)),
    _pos([["f", "family_nonnegative"]], -at("f", 1)),
    # sums with symbolic limits: only count symbols, hi >= lo - 1 proved
    _ident([N], sm(q(1), 1, n), n + 1),
    _ident([N], sm(q(1), 3, n), n - 2),
    _ident([N], sm(q(1), n, 1), 2 - n),
    _ident([R], sm(q(1), 1, x), x),
    _ident([N], sm(q(1), 1, 2 * n), 2 * n),
    _ident([N], sm(q(1), n, n + 1), q(2)),
    _ident([], sm(q(1), q("1/2"), q(3)), q(3)),
    # derivative of max, of a sum in the variable, in a variable a range uses
    _ident([R], d(mx(x, q(0)), "x"), q(1)),
    _ident([R, N], d(sm(exp(x * IDX), 1, n), "x"), q(0)),
    _ident([R, ["y", "bounded", L(x), L(x + 1)]], d(y, "x"), q(0)),
    # products, family indices and atoms
    _ident([P, ["y", "real"]], log(x * y), log(x) + log(y)),
    _ident([["f", "family_real"], N], at("f", n), at("f", n)),
    _pos([N], sm(mx(IDX, q(0)) - 2, 1, n)),
    _ident([R], exp(x) * exp(-x), q(2)),
    _ident([R], exp(2 * log(x)), x ** 2),
    # generic functions: positive, nothing more
    _pos([["f", "function", 1], R], fn("f", x) - 1),
    _ident([["f", "function", 1], R, ["y", "real"]], fn("f", x), fn("f", y)),
])
def test_symbolic_side_conditions(cert: dict) -> None:
    _refused(cert)


def test_symbolic_rule_misuse() -> None:
    # exp(u) >= 1 + u used the other way round
    _refused(_cert([R], "<=", exp(x), 1 + x, _ch(exp(x), _lk("<=", 1 + x, "sos", terms=[["1", [["exp1", L(x)]]]]))))
    # log_mono with a negative constant: -log 1 <= -log 2 is false
    _refused(_cert([], "<=", -log(q(1)), -log(q(2)),
                   _ch(-log(q(1)), _lk("<=", -log(q(2)), "log_mono", c=q(-1), a=q(1), b=q(2), terms=[["1", []]]))))
    # max(x, 0) = x without x >= 0
    _refused(_cert([R], "==", mx(x, q(0)), x, _ch(mx(x, q(0)), _lk("==", x, "max", a=x, b=q(0),
                                                                      terms=[["1", [["sq", L(x)]]]]))))
    # a case split whose second branch uses the first branch's hypothesis sign
    br = [L(x), _lk("<=", q(0), "sos", terms=[["1", [["hyp"]]]])]
    _refused(_cert([R], "<=", x, q(0), {"cases": L(-x), "chains": [br, br]}))
    # a "<=" link inside a goal stated with "=="
    _refused(_cert([R], "==", x, x + 1, _ch(x, _lk("<=", x + 1, "sos", terms=[["1", []]]))))
    # an empty range declared: anything would follow vacuously
    _refused(_cert([["y", "bounded", L(q(1)), L(q(0))]], "<=", q(1), q(0),
                   _ch(q(1), _lk("<=", q(0), "sos", terms=[["1", [["lo", "y"]]], ["1", [["hi", "y"]]]]))))
    _refused(_cert([R, ["y", "bounded", L(x), L(x - 1)]], "<=", q(1), q(0),
                   _ch(q(1), _lk("<=", q(0), "sos", terms=[["1", [["lo", "y"]]], ["1", [["hi", "y"]]]]))))


def _lemma(name: str, var: list, lhs: E, rhs: E, proof: dict) -> dict:
    return {"name": name, "vars": [var], "rel": "<=", "lhs": L(lhs), "rhs": L(rhs), "proof": proof}


def test_symbolic_sum_mono_misuse() -> None:
    t = v("t")
    # a lemma in a positive variable (log t <= t - 1) is never instantiated at an index that may be <= 0
    lem = _lemma("lg", ["t", "positive"], log(t), t - 1,
                 _ch(log(t), _lk("<=", t - 1, "sos", terms=[["1", [["pos", L(t)]]]])))
    lhs, rhs = sm(log(IDX), 1, n), sm(IDX - 1, 1, n)
    _refused(_cert([N], "<=", lhs, rhs, _ch(lhs, _lk("<=", rhs, "sum_mono", lemma="lg", term=IDX, weight=q(1), lo=q(1),
                                                     hi=n)), [lem]))
    # 0 <= t^2 instantiated with a weight that is negative for small i
    lem = _lemma("sq", ["t", "real"], q(0), t ** 2, _ch(q(0), _lk("<=", t ** 2, "sos", terms=[["1", [["sq", L(t)]]]])))
    lhs, rhs = sm(q(0), 1, n), sm((IDX - 2) * IDX ** 2, 1, n)
    _refused(_cert([N], "<=", lhs, rhs, _ch(lhs, _lk("<=", rhs, "sum_mono", lemma="sq", term=IDX, weight=IDX - 2,
                                                     lo=q(1), hi=n)), [lem]))
    # the lemma's direction swapped: sum i^2 <= sum 0
    lhs, rhs = sm(IDX ** 2, 1, n), sm(q(0), 1, n)
    _refused(_cert([N], "<=", lhs, rhs, _ch(lhs, _lk("<=", rhs, "sum_mono", lemma="sq", term=IDX, weight=q(1),
                                                     lo=q(1), hi=n)), [lem]))
    # an instantiation over a range that is not the goal's (lo = 0 adds the term at 0 on one side only)
    lhs, rhs = sm(q(0), 1, n), sm(IDX ** 2, 0, n)
    _refused(_cert([N], "<=", lhs, rhs, _ch(lhs, _lk("<=", rhs, "sum_mono", lemma="sq", term=IDX, weight=q(1),
                                                     lo=q(1), hi=n)), [lem]))


@pytest.mark.parametrize("sym, lhs, rhs, point", [
    ([["mu", "positive"]], mu ** 2, q(0), {"mu": q(0)}),                         # mu = 0 is not > 0
    ([["x", "bounded", L(q(0)), L(q(1))]], (x - 2) ** 2, q(0), {"x": q(2)}),       # x = 2 outside [0, 1]
    ([["p", "family_positive"]], at("p", 1) ** 2, q(0), {"p": q(0)}),            # p_i = 0 is not > 0
    ([R], x ** 2 + 1, q(0), {"x": q(0)}),                                        # no equality at all
    ([R, ["y", "bounded", L(x), L(x + 1)]], (y - x - 2) ** 2, q(0), {"y": x + 2}),  # y = x + 2 outside [x, x + 1]
])
def test_symbolic_attained_point_outside_the_domain(sym: list, lhs: E, rhs: E, point: dict) -> None:
    c = _cert(sym, "<=", rhs, lhs, _ch(rhs, _lk("<=", lhs, "sos", terms=[["1", [["sq", L(lhs if lhs.t[0] == "^"
                                                                                         else x)]]]])), attained=point)
    c["statement"]["goals"][0]["attained"] = [[k, L(val)] for k, val in point.items()]
    _refused(c)


# ============================================================================== (2) pep-dual
def test_dual_control() -> None:
    assert K.check_inline(DUAL) and K.check_proof(DUAL)


def _st(f: Callable[[dict], Any]) -> Callable[[dict], Any]:
    return lambda c: f(c["statement"])


@pytest.mark.parametrize("edit", [
    _st(lambda s: s["bound"].update(value="1/7")),                       # a lower bound than the multipliers give
    _st(lambda s: s["bound"].update(value="-1")),                        # a negative bound
    _st(lambda s: s["bound"].update(D0="2")),                            # a larger initial distance
    _st(lambda s: s["bound"].update(value=0.17)),                        # a float
    _st(lambda s: s["bound"].update(value="1/0")),
    _st(lambda s: s["bound"].update(value="NaN")),
    _st(lambda s: s["class"].update(L="2")),                             # a rougher class
    _st(lambda s: s["class"].update(L="0")),
    _st(lambda s: s["class"].update(L="-1")),
    _st(lambda s: s["class"].update(mu="1")),                            # mu = L
    _st(lambda s: s["class"].update(mu="-1/2")),                         # a negative mu (non-convex functions)
    _st(lambda s: s["method"].update(beta="3/2")),                       # another step
    _st(lambda s: s["method"].update(T_N=1)),                            # another number of rounds
    _st(lambda s: s["method"].update(kappa=2, schedule="fedavg")),   # two steps of 1/L in the first round
    _st(lambda s: s["method"].update(name="scaffold")),
    _st(lambda s: s.update(n=2, p=["1/2", "1/2"])),                      # more clients
    _st(lambda s: s.update(n=2, p=["3/2", "-1/2"])),                     # weights: negative
    _st(lambda s: s.update(n=2, p=["1", "0"])),                          # weights: zero
    _st(lambda s: s.update(p=["2"])),                                    # weights that do not sum to 1
    lambda c: c["evidence"]["multipliers"].__setitem__(4, [6, "-1/6"]),  # a negative multiplier
    lambda c: c["evidence"]["multipliers"].append([6, "1/6"]),           # a repeated row
    lambda c: c["evidence"]["multipliers"].append([True, "0"]),          # a boolean row index
    lambda c: c["evidence"]["multipliers"].append([10 ** 9, "0"]),       # a row that does not exist
    lambda c: c["evidence"]["multipliers"].pop(0),                       # a multiplier dropped
    lambda c: c.update(version=1),
    lambda c: c.update(kind="pep-family"),
])
def test_dual_edits_refused(edit: Callable[[dict], Any]) -> None:
    _refused(_edit(DUAL, edit))


def _linear(evals: list, outputs: list, n: int = 1, value: str = "1", measure: Any = ("value",)) -> dict:
    return {"kind": "pep-dual", "version": 2, "evidence": {"multipliers": []}, "statement": {
        "class": {"functions": "smooth-convex", "L": "1", "mu": "0"}, "n": n, "p": [str(Q(1, n))] * n,
        "method": {"name": "linear", "evaluations": evals, "measure": list(measure), "outputs": outputs},
        "bound": {"form": "constrained", "D0": "1", "rho2": "0" if n == 1 else "1", "value": value}}}


X0 = [[0, "1"]]


@pytest.mark.parametrize("evals, outputs, n", [
    ([[0, []]], [["1", [[]]]], 1),                                # x_out = x* itself (no x0 coefficient)
    ([[0, [[0, "1/2"]]]], [["1", [[[0, "1/2"]]]]], 1),            # (x0 + x*)/2
    ([[0, [[0, "1"], [1, "1"]]]], [["1", [X0]]], 1),              # a gradient that does not exist yet
    ([[0, [[0, "1"], [1, "-1"]]]], [["1", [X0]]], 2),             # the optimum gradient of client 1
    ([[0, X0]], [["1", [[[0, "1"], [1, "-1"]]]]], 2),             # an output point on the optimum gradient
    ([[0, X0]], [["1", [[[0, "1"], [3, "-1"]]]]], 1),             # an output point on a gradient never evaluated
    ([[0, X0]], [["-1", [X0]]], 1),                               # a negative output probability
    ([[0, X0]], [["1/2", [X0]]], 1),                              # probabilities that do not sum to 1
    ([[0, X0]], [["1", []]], 1),                                  # a leaf without a candidate
    ([[0, [[0, "1"], [0, "1"]]]], [["1", [X0]]], 1),              # a repeated basis index
])
def test_dual_linear_methods_refused(evals: list, outputs: list, n: int) -> None:
    c = _linear(evals, outputs, n, value="0")
    _refused(c)
    assert K.statement_of(c) is None  # not even a statement: it would be printed as an algorithm's measure


def _rationals(c: Any, path: tuple = ()) -> list[tuple]:
    """Paths of every rational string of a certificate's evidence (the numbers a forger would edit)."""
    if isinstance(c, dict):
        return [p for k, x in c.items() for p in _rationals(x, (*path, k))]
    if isinstance(c, list):
        return [p for k, x in enumerate(c) for p in _rationals(x, (*path, k))]
    return [path] if isinstance(c, str) and path and path[0] == "evidence" else []


def _nudged(c: dict, path: tuple, by: Q) -> dict:
    out = copy.deepcopy(c)
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = str(Q(node[path[-1]]) + by)
    return out


@pytest.mark.parametrize("which", ["dual", "family"])
def test_every_evidence_number_matters(which: str) -> None:
    """Every rational of the evidence moved by +-1/1000, one at a time: none still re-checks."""
    c = DUAL if which == "dual" else FAMILY
    paths = _rationals(c)
    assert len(paths) >= 5
    for path in paths:
        for by in (Q(1, 1000), Q(-1, 1000)):
            assert K.check_inline(_nudged(c, path, by)) is False, (path, by)


def test_dual_implications_refused() -> None:
    a = K.statement_of(DUAL)
    assert a is not None and K.implies(a, _pair("pep-dual", DUAL["statement"]))
    for f in (lambda s: s["bound"].update(value="1/7"), lambda s: s["bound"].update(D0="2"),
              lambda s: s["bound"].update(rho2="1"), lambda s: s["method"].update(beta="1/2"),
              lambda s: s["class"].update(mu="1/2"),
              lambda s: s.update(bound={"form": "homogeneous", "dist": "1/7", "hetero": "0"})):
        assert not K.implies(a, _pair("pep-dual", _edit(DUAL["statement"], f)))
    # homogeneous -> constrained: a negative coefficient is not a licence for a negative bound
    h = _pair("pep-dual", _edit(DUAL["statement"], lambda s: s.update(bound={"form": "homogeneous", "dist": "1/6",
                                                                              "hetero": "-5"})))
    assert not K.implies(h, _pair("pep-dual", _edit(DUAL["statement"], lambda s: s["bound"].update(value="0"))))
    assert K.implies(h, _pair("pep-dual", DUAL["statement"]))


# ============================================================================== (3) pep-family
def test_family_control() -> None:
    assert K.check_inline(FAMILY)


def _fb(num: list, den: list) -> Callable[[dict], Any]:
    return lambda c: c["statement"]["bound"].update(value={"num": num, "den": den})


def _fp(lo: str, hi: str, both: bool = True) -> Callable[[dict], Any]:
    def f(c: dict) -> None:
        c["statement"]["parameter"].update(lo=lo, hi=hi)
        if both:
            c["evidence"]["pieces"][0].update(lo=lo, hi=hi)
    return f


@pytest.mark.parametrize("edit", [
    _fb(["1"], ["3", "4"]),                       # 1/(4h + 3) < 1/(4h + 2)
    _fb(["1"], ["-2", "-4"]),                     # a negative bound (sign of the leading coefficient)
    _fb(["1"], ["0", "4"]),                       # 1/(4h): a pole at the endpoint h = 0
    _fb(["1"], ["-1", "2"]),                      # 1/(2h - 1): a pole inside [0, 1]
    _fb(["1", "-2"], ["2", "4"]),                 # a numerator that changes sign in the interval
    _fb(["1"], ["0"]),                            # a zero denominator
    _fb(["1"], ["2", "4", "-1/100", "0", "0", "0", "0", "0", "0", "0"]),  # degree too high
    _fp("0", "2"),                                # the interval widened past h = 1
    _fp("1/2", "1/2"),                            # a degenerate interval
    _fp("1", "0"),                                # a reversed interval
    _fp("-1", "1"),                               # negative steps
    _fp("0", "2", both=False),                    # the pieces do not cover the statement
    lambda c: c["evidence"]["pieces"][0].update(hi="1/2"),
    lambda c: c["evidence"]["pieces"][0].update(denominator=["0", "1"]),     # d(0) = 0
    lambda c: c["evidence"]["pieces"][0].update(denominator=["-1", "-2"]),   # d < 0
    lambda c: c["evidence"]["pieces"][0]["multipliers"][0].__setitem__(1, ["1/2", "1", "-3/2"]),  # < 0 near h = 1
    lambda c: c["evidence"]["pieces"][0]["multipliers"][3].__setitem__(1, ["1/2", "-1"]),  # < 0 for h > 1/2
    lambda c: c["statement"]["method"].update(N=2),
    lambda c: c["statement"]["method"].update(N=0),
    lambda c: c["statement"]["class"].update(mu="1"),  # outside [0, 1) (mu > 0 in range is a true, weaker statement)
    lambda c: c["statement"]["class"].update(functions="smooth-nonconvex"),
    lambda c: c["statement"]["normalisation"].update(D0="2"),
])
def test_family_edits_refused(edit: Callable[[dict], Any]) -> None:
    _refused(_edit(FAMILY, edit))


def test_family_implications() -> None:
    a = K.statement_of(FAMILY)
    assert a is not None and K.implies(a, _pair("pep-family", FAMILY["statement"]))
    for f in (_fp("0", "2", both=False), _fb(["1"], ["2", "4", "1/1000"]), _fb(["1"], ["2", "5"]),
              _fb(["1", "-1/1000", "1/1000"], ["2", "4"])):  # lower only inside (0, 1): 1 - h(1 - h)/1000
        assert not K.implies(a, _pair("pep-family", _edit(FAMILY, f)["statement"]))


# ============================================================================== (4) pep-potential
def test_potential_control(potential: dict) -> None:
    assert K.check_inline(potential)
    assert PK.describe(PK.canonical(potential["statement"])).startswith("for every N >= 1 and every h in [1/100, 1]")


def _pb(num: list, den: list) -> Callable[[dict], Any]:
    return lambda c: c["statement"]["bound"].update(num=num, den=den)


@pytest.mark.parametrize("edit", [
    _pb([["2"]], [["4"], ["0", "8"]]),                          # 2/(8Nh + 4): Drori-Teboulle's exact bound, not this proof's
    # k-dependence: 3/(4 + 8hN + h N^2 (N - 6)/100) is at least 3/(4 + 8hN) for N <= 6 only
    _pb([["3"]], [["4"], ["0", "8"], ["0", "-6/100"], ["0", "1/100"]]),
    _pb([["3"], ["0", "0"], ["-1/1000"]], [["4"], ["0", "8"]]),  # a numerator 3 - N^2/1000: negative for N > 54
    _pb([["3"]], [["4"], ["0", "8"], ["1/1000"]]),              # an extra N^2 in the denominator
    _pb([["3"]], [["-4"], ["0", "8"]]),                         # a denominator negative at N = 0 and small h N
    lambda c: c["statement"]["potential"]["terms"].update(xx=[["-1"]]),      # a negative potential coefficient
    lambda c: c["statement"]["potential"]["terms"].update(f=[["1"], ["0", "1"]]),  # a weaker decrease coefficient
    lambda c: c["statement"]["potential"]["initial"].update(num=["1"]),      # B0 = 1/2 < L D0 (3/2 needed)
    lambda c: c["statement"]["parameter"].update(hi="3"),                    # h up to 3: gd diverges past 2
    lambda c: c["statement"]["parameter"].update(lo="0"),                    # h = 0 included
    lambda c: c["statement"]["parameter"].update(lo="1", hi="1/2"),
    lambda c: c["statement"]["bound"].update(rho2="1"),                       # a heterogeneity without its part
    lambda c: c["statement"]["class"].update(mu="1"),  # outside [0, 1) (a mu in range is a true, weaker statement)
    lambda c: c["statement"].update(n=2, p=["1/2", "1/2"]),
    lambda c: c["statement"]["method"].update(name="agm"),
    lambda c: c["evidence"]["final"]["multipliers"].__setitem__(0, [c["evidence"]["final"]["multipliers"][0][0],
                                                                   [["-1"]]]),
    lambda c: c["evidence"]["step"].update(denominator=["0"]),
    lambda c: c["evidence"]["step"].update(scale=[[0, [["0"]]]]),                 # a zero scale
    lambda c: c["evidence"]["step"].update(scale=[[0, [["1"], ["-1"]]]]),         # a scale 1 - k: negative for k > 1
    lambda c: c["evidence"].pop("final"),
])
def test_potential_edits_refused(potential: dict, edit: Callable[[dict], Any]) -> None:
    _refused(_edit(potential, edit))


@pytest.fixture(scope="module")
def more_potentials() -> dict[str, dict[str, Any]]:
    """Local GD (kappa = 2, two clients, rho = 0: 1/(2 t (T_N + 1))), GD at h = 1 alone (PEPit's classical
    potential: 1/(2N), decided exactly in N) and the accelerated method (2/(N + 1)^2)."""
    from fairtheory.proofs import prove_potential

    out = {"local": prove_potential("local_gd", n=2, kappa=2, output="average", schedule="rfedfair", rho2=0,
                                    h=(Q(1, 1000), Q(1, 40))).to_json(),
           "point": prove_potential("gd", h=1, potential="classical", a0=0).to_json(),
           "agm": prove_potential("agm").to_json()}
    assert all(K.check_inline(c) for c in out.values())
    return out


def _hetero(c: dict) -> None:
    """rho^2 free (heterogeneous clients) with a zero rho^2 part and no drift: client drift is ignored."""
    b = c["statement"]["bound"]
    b.pop("rho2")
    b["hetero"] = {"num": [["0"]], "den": [["1"]]}
    c["statement"]["potential"]["drift"] = {"num": ["0"], "den": ["1"]}


@pytest.mark.parametrize("which, edit", [
    ("local", lambda c: c["statement"]["bound"].update(den=[["0", "3"], ["0", "3"]])),  # 1/(3t(T+1))
    ("local", lambda c: (c["statement"]["potential"]["weight"].update(num=["0", "3"]),
                         c["statement"]["bound"].update(den=[["0", "3"], ["0", "3"]]))),  # the weight raised to match
    ("local", _hetero),
    ("local", lambda c: c["statement"]["parameter"].update(hi="3")),  # (up to beta L = 1 it is true, and proved)
    ("local", lambda c: c["statement"]["method"].update(output="last")),
    ("local", lambda c: c["statement"]["potential"]["initial"].update(num=["1/2"])),
    # N-dependence decided exactly at one h: 1/(2N + N^2 (N - 6)/1000) is at least the true 1/(4N + 2) for
    # N <= 50 or so, below it afterwards
    ("point", lambda c: c["statement"]["bound"].update(den=[["0"], ["2"], ["-6/1000"], ["1/1000"]])),
    ("point", lambda c: c["statement"]["bound"].update(den=[["0"], ["2"], ["0"], ["-1/1000"]])),  # negative, N large
    ("point", lambda c: c["statement"]["bound"].update(num=[["1"], ["0"], ["-1/10000"]])),       # 1 - N^2/10^4
    ("point", lambda c: c["statement"]["parameter"].update(lo="1", hi="3")),  # (to 11/10: true, and proved)
    ("agm", lambda c: c["statement"]["bound"].update(num=[["1"]])),                              # 1/(N + 1)^2
    ("agm", lambda c: c["statement"]["bound"].update(den=[["1"], ["2"], ["1"], ["1/1000"]])),
    ("agm", lambda c: c["statement"]["parameter"].update(lo="2", hi="2")),
    ("agm", lambda c: c["statement"].update(potential="lambda_k^2 (f(x_k) - f*)")),
])
def test_potential_edits_refused_more(more_potentials: dict, which: str, edit: Callable[[dict], Any]) -> None:
    _refused(_edit(more_potentials[which], edit))


def test_potential_implications(potential: dict) -> None:
    a = K.statement_of(potential)
    st = potential["statement"]
    assert a is not None and K.implies(a, _pair("pep-potential", st))
    for f in (lambda s: s["parameter"].update(hi="2"), lambda s: s["parameter"].update(lo="1/1000"),
              lambda s: s["bound"].update(num=[["2"]]),
              lambda s: s["bound"].update(den=[["4"], ["0", "8"], ["1/1000"]])):
        assert not K.implies(a, _pair("pep-potential", _edit(st, f)))
    # a one-N family statement: implied at the bound's value, not below it, never at N = 0
    fam = _edit(FAMILY["statement"], lambda s: (s["parameter"].update(lo="1/100", hi="1"),
                                                s["bound"].update(value={"num": ["3"], "den": ["4", "24"]}),
                                                s["method"].update(N=3)))
    assert K.implies(a, _pair("pep-family", fam))
    assert not K.implies(a, _pair("pep-family", _edit(fam, lambda s: s["bound"].update(value={"num": ["3"],
                                                                                              "den": ["4", "25"]}))))
    assert not K.implies(a, _pair("pep-family", _edit(fam, lambda s: s["method"].update(N=0))))
    assert not K.implies(a, _pair("pep-family", _edit(fam, lambda s: s["parameter"].update(lo="0"))))
    assert not K.implies(a, _pair("pep-dual", DUAL["statement"]))


def test_potential_implies_keeps_the_printed_potential(potential: dict) -> None:
    """REGRESSION: the words of a potential statement name the potential ("by induction on the potential phi_k =
    ..."); a declared statement with another potential was implied (only the bounds were compared) and printed a
    potential the kernel never checked."""
    a = K.statement_of(potential)
    other = _edit(potential["statement"], lambda s: s["potential"]["terms"].update(xx=[["7"]]))
    assert not K.implies(a, _pair("pep-potential", other))
    assert not K.check_inline(_edit(potential, lambda c: c.update(statement=other)))


# ============================================================================== (5) words and implication
def _words(c: dict) -> str:
    return K.describe(_pair("symbolic", c["statement"]))


def test_words_powers_are_parenthesised() -> None:
    """REGRESSION: ``(x^2)^3`` was printed ``x^2^3`` (read x^8 by the usual convention: a false-looking
    ``x^2^3 == x^6`` printed proved); the same for ``rpow`` bases and exponents."""
    c = _ident([R], (x ** 2) ** 3, x ** 6)
    assert K.check_inline(c) and "(x^2)^3 == x^6" in _words(c)
    c = _ident([P], rpow(x ** 2, q(3)), x ** 6)
    assert K.check_inline(c) and "(x^2)^3 == x^6" in _words(c)
    st = S.statement([P, ["y", "real"]], [("g", "<=", rpow(x, y ** 2), rpow(rpow(x, y), q(2)), None)])
    w = K.describe(_pair("symbolic", st))
    assert "x^(y^2) <= (x^y)^2" in w


def test_words_sum_is_delimited() -> None:
    """REGRESSION: ``(sum_i i) + n`` was printed ``sum_{i=1..n} i + n``, the same words as ``sum_i (i + n)``."""
    st = S.statement([N], [("g", "<=", sm(IDX, 1, n) + n, sm(IDX + n, 1, n), None)])
    w = K.describe(_pair("symbolic", st))
    assert "(sum_{i=1..n} i) + n <= sum_{i=1..n} (i + n)" in w


@pytest.mark.parametrize("symbols", [
    [["x", "family_positive"], ["x_1", "real"]],     # x_1 the real symbol, or the family's member 1?
    [["x_1", "real"], ["x", "family_positive"]],
    [["log", "function", 1]],                        # log(1/2) > 0 printed for a "function" named log
    [["exp", "real"]], [["max", "real"]], [["sum", "count"]], [["d", "real"]], [["rpow", "real"]],
])
def test_words_names_that_read_as_other_mathematics_are_refused(symbols: list) -> None:
    """REGRESSION: ``for all x_i > 0, x_1 real: 0 <= x_1`` and ``for all log a positive smooth function ...:
    0 <= log(1/2)`` were proved and printed (a reader sees a false statement)."""
    st = {"kind": "symbolic", "symbols": symbols, "goals": [{"name": "g", "rel": "<=", "lhs": ["q", "0"],
                                                              "rhs": ["q", "1"]}]}
    with pytest.raises(ValueError):
        K.canonical_statement("symbolic", st)
    assert K.describe(st).startswith("(malformed")


def test_words_family_member_forgery_refused() -> None:
    c = _pos([["x", "family_positive"], ["x_1", "real"]], at("x", 1))
    _refused(c)
    c = _pos([["log", "function", 1]], fn("log", q("1/2")))
    _refused(c)


@pytest.mark.parametrize("text", ["a\u202eb", "zw\u200bsp", "g\u2028", "q\"; proved: 1 <= 0", "x" * 81])
def test_words_goal_names_are_user_text(text: str) -> None:
    c = _pos([P], x)
    c["statement"]["goals"][0]["name"] = text
    c["evidence"]["proofs"][0]["name"] = text
    if K.check_inline(c):  # accepted only as quoted text after the mathematics, on one line
        w = _words(c)
        assert "\n" not in w and w.endswith(f"[goal {json.dumps(text)}]") and w.startswith("for all x > 0: 0 <= x")
    else:
        assert text != "q\"; proved: 1 <= 0"


def test_words_numbers_are_exact() -> None:
    big = "1" + "0" * 150 + "/7"
    w = K.describe(_pair("pep-dual", _edit(DUAL["statement"], lambda s: s["bound"].update(value=big))))
    assert f"<= {big} whenever" in w
    w = K.describe(_pair("pep-dual", _edit(DUAL["statement"], lambda s: s["bound"].update(value="-3/6"))))
    assert "<= -1/2 whenever" in w
    w = K.describe(_pair("pep-family", FAMILY["statement"]))
    assert "f(x_N) - f* <= L D0/(4 h + 2)" in w


def test_implies_between_kinds_and_stronger_declarations() -> None:
    sym = S.prop1_certificate()
    a = K.statement_of(sym)
    assert K.implies(a, _pair("symbolic", sym["statement"]))
    fam, dual = K.statement_of(FAMILY), K.statement_of(DUAL)
    for s, want in ((a, _pair("pep-dual", DUAL["statement"])), (dual, _pair("symbolic", sym["statement"])),
                    (fam, _pair("pep-dual", DUAL["statement"])), (dual, _pair("pep-family", FAMILY["statement"])),
                    (fam, _pair("pep-potential", FAMILY["statement"]))):
        assert not K.implies(s, want)
    stronger = _edit(sym["statement"], lambda s: s["goals"][0].update(rhs=L(mu * log(q("3/2")))))
    assert not K.implies(a, _pair("symbolic", stronger))
    more = _edit(sym["statement"], lambda s: s["goals"].append({"name": "z", "rel": "<=", "lhs": ["q", "1"],
                                                                  "rhs": ["q", "0"]}))
    assert not K.implies(a, _pair("symbolic", more))
    other = _edit(sym["statement"], lambda s: s["symbols"].__setitem__(0, ["mu", "real"]))
    assert not K.implies(a, _pair("symbolic", other))


# ============================================================================== (6) the report re-check
def _report() -> dict[str, Any]:
    rows = []
    for rid, cert in (("rt.dual", DUAL), ("rt.family", FAMILY)):
        decl = [K.statement_of(cert)]
        rows.append({"id": rid, "status": "proved", "certificate": [copy.deepcopy(cert)],
                     "details": {"declared_statements": decl}, "proved_statement": [K.describe(decl[0])]})
    return {"claims": rows}


def _recheck(tmp_path: Path, doc: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from fairtheory.proofs.__main__ import main

    path = tmp_path / "sent.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    code = main(["recheck", str(path), "--no-falsify"])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def test_recheck_control(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _recheck(tmp_path, _report(), capsys)
    assert code == 0 and "all 2 rows re-check (2 proved, 0 refuted exactly)" in out, out


def _row(doc: dict, k: int) -> dict:
    return doc["claims"][k]


@pytest.mark.parametrize("edit", [
    lambda d: _row(d, 0)["proved_statement"].__setitem__(0, _row(d, 0)["proved_statement"][0].replace("1/6", "1/7")),
    lambda d: _row(d, 0)["details"]["declared_statements"][0]["statement"]["bound"].update(value="1/7"),
    lambda d: _row(d, 0)["certificate"][0]["statement"]["bound"].update(value="1/7"),
    lambda d: _row(d, 0).update(certificate=_row(d, 1)["certificate"]),        # another row's certificate
    lambda d: _row(d, 0).update(certificate=None),
    lambda d: _row(d, 0).update(certificate=[["not", "a", "dict"]]),
    lambda d: _row(d, 0)["details"].pop("declared_statements"),
    lambda d: _row(d, 0)["details"].update(declared_statements=[]),
    lambda d: _row(d, 0).update(proved_statement=[*_row(d, 0)["proved_statement"], "and 1 <= 0"]),
    lambda d: _row(d, 0).update(proved_statement=[]),
    lambda d: _row(d, 0).update(proved_statement="for every ..."),
    lambda d: _row(d, 0).update(details=None),
    lambda d: _row(d, 0)["details"]["declared_statements"].append(_row(d, 1)["details"]["declared_statements"][0]),
])
def test_recheck_refuses_an_edited_row(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       edit: Callable[[dict], Any]) -> None:
    code, out = _recheck(tmp_path, _edit(_report(), edit), capsys)
    assert code == 1 and "FAIL  rt.dual" in out and "rows FAIL (2 proved, 0 refuted exactly): rt.dual" in out, out
    assert "ok    rt.family" in out


@pytest.mark.parametrize("text", ["{", "[]", '{"claims": 3}', "[" * 100_000 + "]" * 100_000, '{"claims": [1, "x"]}'])
def test_recheck_of_malformed_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    code, out = _recheck(tmp_path, text, capsys)
    if text.startswith('{"claims": ['):  # rows that are not objects have no known status: refused, named
        assert code == 1 and "FAIL  (row 0): row 0: unknown status (row is not an object)" in out, out
        assert "FAIL  (row 1): row 1: unknown status (row is not an object)" in out
    else:
        assert code == 2 and "cannot read" in out


def test_recheck_refuses_repeated_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """REGRESSION: a report whose proved row carries ``"proved_statement"`` twice - false words first (what a viewer
    of the file shows), the checked words last (what ``json.load`` keeps) - re-checked ``ok``."""
    doc = _report()
    text = json.dumps(doc)
    words = json.dumps(_row(doc, 0)["proved_statement"])
    forged = text.replace('"proved_statement": ' + words, '"proved_statement": ["1 <= 0"], "proved_statement": ' + words, 1)
    assert forged != text and json.loads(forged) == doc
    code, out = _recheck(tmp_path, forged, capsys)
    assert code == 2 and "repeats a key" in out


def test_recheck_names_a_hostile_row_id_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _edit(_report(), lambda d: (_row(d, 0).update(id="rt.dual\nok    rt.other"),
                                      _row(d, 0)["certificate"][0]["statement"]["bound"].update(value="1/7")))
    code, out = _recheck(tmp_path, doc, capsys)
    assert code == 1 and "\nok    rt.other" not in out and "FAIL  rt.dual?ok    rt.other" in out
