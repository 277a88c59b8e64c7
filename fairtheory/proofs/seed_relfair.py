r"""Certificates (``"symbolic"``, untrusted makers) of the relative-fairness seed claims, 001 (reconstructed:
/work/shared/spec/relative.md; the paper's formulas were lost in extraction).

Notation: ``U = max_{lam in A} lam.f(w)``, ``V = min_{lam in B} lam.f(w)``, ``D_phi = U - phi V``,
``Lambda_phi(A, B) = {(a - phi b)/(1 - phi) : a in A, b in B}``, ``I = U/V``.  Denominators the kernel must divide
by are positive symbols (``t = 1 - phi``), tied to ``phi`` by an equality assumption.

* :func:`prop9_certificate` - 001 Prop. 9: ``phi + D/C <= U/V <= phi + D/c`` and the bounds' monotonicity in ``phi``
  (derivatives);
* :func:`theorem1_certificate` - 001 Thm. 1 / App. E.1 (eqs. 21, 22) restricted to sets sharing a point: the index
  cannot increase between two global minimisers, given their optimality inequalities and ``U >= V``;
* :func:`theorem1_instance_counterexample` - 001 Thm. 1 itself (Assumption 1 only) refuted exactly
  (``"counterexample"``): its special case ``A = {e_1}``, ``B = {e_2}``, ``f_1 = w^2 + 1/100``,
  ``f_2 = (w - 1)^2 + 1``, solutions of (8) at ``phi = 0, 1/2`` characterised by stationarity;
* :func:`theorem1_instance_solutions_certificate` - for that instance: Assumption 1, and stationary points of (8)
  are its unique global solutions;
* :func:`integrated_sum_certificate`, :func:`integrated_upper_certificate`, :func:`integrated_attained_certificate`
  - 001 eqs. 6-8: members of ``Lambda_phi`` sum to 1; ``lam.f <= D_phi/(1 - phi)``, with equality at the
  maximiser / minimiser;
* :func:`lemma8_certificate` - 001 Lemma 8: ``sum_i lam_i h_i >= (mu - phi L)/(1 - phi)`` for ``h_i in [mu, L]``;
* :func:`skewness_step_certificate`, :func:`skewness_start_certificate` - 001 Sec. 6 restricted to nested sets: the
  skewness of ``Lambda_phi(A, B)`` is non-decreasing in ``phi`` when ``A`` is a subset of ``B``;
* :func:`penguins_positive_certificate`, :func:`penguins_assumption1_certificate` - 001 Sec. 4.3: Assumption 1 for
  the penguins clients (each MSE at least its exact least-squares residual, ``V(w) >= min_i e_i > 0``);
* :func:`capped_support_certificate`, :func:`capped_projection_certificate`, :func:`cvar_top_certificate`,
  :func:`cvar_bottom_certificate`, :func:`cvar_attained_certificate` - 001 Ex. 1-2: support, argmax and projection
  of capped simplices, top / bottom means of CVaR sets (threshold form);
* :func:`skewness_singletons_counterexample` - 001 Sec. 6 itself refuted exactly (``"counterexample"``): the
  skewness falls for singleton sets;
* :func:`theorem2_witness` - 001 Thm. 2: one instance (``n = 2``, ``d = 1``, ``A = B = Delta_2``) whose index
  decreases strictly from ``phi = 0`` to ``phi = 1/2``, exact unique global minimisers.

The derivations are in docs/decided/relfair.md.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fairtheory.proofs.symbolic import IDX, E, at, d, mx, q, sm, statement, v

__all__ = ["prop9_certificate", "theorem1_certificate", "theorem1_instance_solutions_certificate",
           "theorem1_instance_counterexample", "integrated_sum_certificate", "integrated_upper_certificate",
           "integrated_attained_certificate", "lemma8_certificate", "skewness_step_certificate",
           "skewness_start_certificate", "theorem2_witness", "cvar_top_certificate", "cvar_bottom_certificate",
           "cvar_attained_certificate", "capped_support_certificate", "capped_projection_certificate",
           "skewness_singletons_counterexample", "penguins_positive_certificate",
           "penguins_assumption1_certificate", "penguin_fit", "PENGUIN_ROWS",
           "ALL_RELFAIR"]

KIND = "symbolic"
CITE = "001 (reconstructed)"


# ------------------------------------------------------------------------------------------ helpers
def _lift(x: Any) -> Any:
    return E.lift(x) if isinstance(x, (E, int, Fraction)) else x


def _link(rel: str, expr: Any, by: str, **kw: Any) -> dict[str, Any]:
    out = {"rel": rel, "expr": E.lift(expr), "by": by}
    for k, x in kw.items():
        out[k] = _lift(x)
    return out


def _gen(g: tuple) -> list[Any]:
    """A generator: ``("pos", T)``, ``("sq", T)``, ``("hyp",)``, ``("assume", k)``, ``("sum", lo, hi, rep)``, ..."""
    if g[0] in ("assume", "assume_rev"):
        return [g[0], g[1]]
    if g[0] == "sum":
        return ["sum", _lift(g[1]), _lift(g[2]), _rep(*g[3])]
    if g[0] in ("flo", "fhi", "lo", "hi"):
        return [g[0], g[1]]
    return [g[0], *[_lift(x) for x in g[1:]]]


def _rep(*terms: tuple[Any, list[tuple]]) -> list[Any]:
    return [[str(Fraction(c)), [_gen(g) for g in gens]] for c, gens in terms]


def _chain(*xs: Any) -> dict[str, Any]:
    return {"chain": [E.lift(xs[0]), *xs[1:]]}


def _assume(*rels: tuple[str, Any, Any]) -> list[dict[str, Any]]:
    return [{"rel": r, "lhs": E.lift(a), "rhs": E.lift(b)} for r, a, b in rels]


def _cert(title: str, citation: str, st: dict[str, Any], proofs: dict[str, Any]) -> dict[str, Any]:
    return {"kind": KIND, "version": 1, "title": title, "citation": citation, "statement": st,
            "evidence": {"lemmas": [], "proofs": [{"name": k, **p} for k, p in proofs.items()]}}


def _with_assume(st: dict[str, Any], assume: list[dict[str, Any]]) -> dict[str, Any]:
    return {**st, "assume": assume}


# ------------------------------------------------------------------------------------------ Prop. 9
def prop9_certificate() -> dict[str, Any]:
    r"""001 Prop. 9 (reconstructed): for ``0 < c <= V <= C`` and ``U - phi V >= 0`` (any real ``phi``, in
    particular ``[0, 1)``): ``phi + (U - phi V)/C <= U/V <= phi + (U - phi V)/c``; ``d/dphi`` of the lower bound is
    ``1 - V/C >= 0`` and of the upper bound ``1 - V/c <= 0``.  ``U/V - lower = (U - phi V)(C - V)/(V C)``,
    ``upper - U/V = (U - phi V)(V - c)/(c V)``."""
    c, V, C, U, phi = v("c"), v("V"), v("C"), v("U"), v("phi")
    lo, hi = phi + (U - phi * V) / C, phi + (U - phi * V) / c
    st = _with_assume(statement([["c", "positive"], ["V", "positive"], ["C", "positive"], ["U", "real"], ["phi", "real"]],
                                [("lower bound", "<=", lo, U / V, None), ("upper bound", "<=", U / V, hi, None),
                                 ("lower bound non-decreasing in phi", "<=", q(0), d(lo, "phi"), None),
                                 ("upper bound non-increasing in phi", "<=", d(hi, "phi"), q(0), None)]),
                      _assume(("<=", c, V), ("<=", V, C), ("<=", phi * V, U)))
    proofs = {"lower bound": _chain(lo, _link("<=", U / V, "sos", terms=_rep((1, [("assume", 2), ("assume", 1),
                                                                                  ("pos", 1 / (V * C))])))),
              "upper bound": _chain(U / V, _link("<=", hi, "sos", terms=_rep((1, [("assume", 2), ("assume", 0),
                                                                                   ("pos", 1 / (c * V))])))),
              "lower bound non-decreasing in phi": _chain(q(0), _link("<=", d(lo, "phi"), "sos",
                                                                      terms=_rep((1, [("assume", 1), ("pos", 1 / C)])))),
              "upper bound non-increasing in phi": _chain(d(hi, "phi"), _link("<=", q(0), "sos",
                                                                              terms=_rep((1, [("assume", 0), ("pos", 1 / c)]))))}
    return _cert("Prop. 9: phi + D/C <= U/V <= phi + D/c, lower bound non-decreasing, upper non-increasing in phi",
                 "001 Prop. 9 " + CITE, st, proofs)


# ------------------------------------------------------------------------------------------ Theorem 1
def theorem1_certificate() -> dict[str, Any]:
    r"""001 Thm. 1, App. E.1 (reconstructed).  ``phi >= 0``, ``phi' = phi + delta <= 1`` (``delta > 0``); ``U, V``
    (``U2, V2``) the values ``U(w), V(w)`` at a global minimiser ``w`` of ``D_phi`` (``w'`` of ``D_phi'``), modelled by
    the optimality inequalities ``U - phi V <= U2 - phi V2`` and ``U2 - phi' V2 <= U - phi' V``; ``V, V2 > 0``
    (Assumption 1) and ``U >= V`` (``A``, ``B`` share a point).  Then eq. (21) ``V <= V2``, eq. (22)
    ``U2 - U <= phi'(V2 - V)`` and ``U2/V2 <= U/V``: with ``g2, g3`` the two optimality slacks,
    ``V2 - V = (g2 + g3)/delta`` and ``U V2 - U2 V = (V2 - V)((U - V) + (1 - phi')V) + g3 V``."""
    phi, dl, V, V2, U, U2 = v("phi"), v("delta"), v("V"), v("V2"), v("U"), v("U2")
    p2 = phi + dl
    st = _with_assume(statement([["phi", "nonnegative"], ["delta", "positive"], ["V", "positive"], ["V2", "positive"],
                                 ["U", "real"], ["U2", "real"]],
                                [("eq. 21: V <= V'", "<=", V, V2, None),
                                 ("eq. 22: U' - U <= phi'(V' - V)", "<=", U2 - U, p2 * (V2 - V), None),
                                 ("index non-increasing: U'/V' <= U/V", "<=", U2 / V2, U / V, None)]),
                      _assume(("<=", p2, q(1)), ("<=", V, U), ("<=", U - phi * V, U2 - phi * V2),
                              ("<=", U2 - p2 * V2, U - p2 * V)))
    k = 1 / (dl * V * V2)
    proofs = {"eq. 21: V <= V'": _chain(V, _link("<=", V2, "sos", terms=_rep((1, [("assume", 2), ("pos", 1 / dl)]),
                                                                            (1, [("assume", 3), ("pos", 1 / dl)])))),
              "eq. 22: U' - U <= phi'(V' - V)": _chain(U2 - U, _link("<=", p2 * (V2 - V), "sos",
                                                                     terms=_rep((1, [("assume", 3)])))),
              "index non-increasing: U'/V' <= U/V": _chain(U2 / V2, _link("<=", U / V, "sos", terms=_rep(
                  (1, [("assume", 2), ("assume", 1), ("pos", k)]), (1, [("assume", 3), ("assume", 1), ("pos", k)]),
                  (1, [("assume", 2), ("assume", 0), ("pos", 1 / (dl * V2))]),
                  (1, [("assume", 3), ("assume", 0), ("pos", 1 / (dl * V2))]),
                  (1, [("assume", 3), ("pos", 1 / V2)]))))}
    return _cert("Thm. 1: optimality of w*_phi and w*_phi' and U >= V give V <= V', U' - U <= phi'(V' - V), "
                 "U'/V' <= U/V", "001 Thm. 1, App. E.1 " + CITE, st, proofs)


def _t1_f(x: Any) -> tuple[E, E]:
    """The instance's losses ``f_1 = w^2 + 1/100``, ``f_2 = (w - 1)^2 + 1`` at ``x`` (``U = f_1``, ``V = f_2`` for
    ``A = {e_1}``, ``B = {e_2}``)."""
    x = x if isinstance(x, E) else q(x)
    return x ** 2 + Fraction(1, 100), (x - 1) ** 2 + 1


def _t1_obj(x: Any, phi: Fraction) -> E:
    """Problem (8)'s objective ``(U - phi V)/(1 - phi)`` of the instance at ``x``."""
    u, w = _t1_f(x)
    return (u - phi * w) / (1 - phi)


def _t1_grad(x: Any, phi: Fraction) -> E:
    """Its derivative in ``w`` at ``x`` (closed form): ``(2 x - phi 2 (x - 1))/(1 - phi)``."""
    x = x if isinstance(x, E) else q(x)
    return (2 * x - phi * (2 * (x - 1))) / (1 - phi)


def _t1_index(x: Any) -> E:
    u, w = _t1_f(x)
    return u / w


_T1_PHI = (Fraction(0), Fraction(1, 2))


def _t1_stationary(w0: E, w1: E) -> list[dict[str, Any]]:
    return _assume(("==", _t1_grad(w0, _T1_PHI[0]), q(0)), ("==", _t1_grad(w1, _T1_PHI[1]), q(0)))


def theorem1_instance_counterexample() -> dict[str, Any]:
    r"""001 Thm. 1 (reconstructed: under Assumption 1 only) is false; its special case for one instance refuted
    exactly.  ``n = 2``, ``d = 1``, ``A = {e_1}``, ``B = {e_2}`` (``U = f_1``, ``V = f_2``), ``f_1 = w^2 + 1/100``,
    ``f_2 = (w - 1)^2 + 1``, ``phi = 0 < phi' = 1/2``.  Problem (8)'s objective ``(U - phi V)/(1 - phi)`` is a convex
    quadratic with leading coefficient 1 at both values (``w^2 + 1/100`` and ``(w + 1)^2 - 149/50``), so its global
    solutions are exactly its stationary points (:func:`theorem1_instance_solutions_certificate`).  The statement:
    for all real ``w0``, ``w1`` stationary at ``phi`` resp. ``phi'``: ``I(w1) <= I(w0)``, ``I = f_1/f_2``.  At
    ``w0 = 0``, ``w1 = -1`` (both stationary, exactly) ``I(w1) - I(w0) = 101/500 - 1/200 = 197/1000 > 0``."""
    from fairtheory.proofs.counterexample import counterexample

    w0, w1 = v("w0"), v("w1")
    st = _with_assume(statement([["w0", "real"], ["w1", "real"]],
                                [("I(w*_phi') <= I(w*_phi)", "<=", _t1_index(w1), _t1_index(w0), None)]),
                      _t1_stationary(w0, w1))
    return counterexample(st, "I(w*_phi') <= I(w*_phi)", {"w0": 0, "w1": -1},
                          title="Thm. 1, A = {e1}, B = {e2}: the index of the exact solutions rises from 1/200 "
                                "(phi = 0) to 101/500 (phi = 1/2)",
                          citation="001 Thm. 1 " + CITE)


def theorem1_instance_solutions_certificate() -> dict[str, Any]:
    r"""For the instance of :func:`theorem1_instance_counterexample`: Assumption 1 (``V(w) = f_2(w) >= 1 > 0`` for every
    ``w``) and "stationary is globally optimal": a ``w0`` stationary for problem (8) at ``phi = 0`` is its unique
    global solution, ``obj_0(w0) + (w - w0)^2 <= obj_0(w)`` for every ``w``, and likewise ``w1`` at ``phi' = 1/2``.
    Both objectives have leading coefficient 1, so ``obj(w) - obj(w_k) - (w - w_k)^2 = (w - w_k) obj'(w_k)``, which
    the stationarity assumption makes 0."""
    w, w0, w1 = v("w"), v("w0"), v("w1")
    goals = [("Assumption 1: V(w) >= 1 > 0", "<=", q(1), _t1_f(w)[1], None),
             ("w0 is the unique global solution at phi = 0", "<=", _t1_obj(w0, _T1_PHI[0]) + (w - w0) ** 2,
              _t1_obj(w, _T1_PHI[0]), None),
             ("w1 is the unique global solution at phi' = 1/2", "<=", _t1_obj(w1, _T1_PHI[1]) + (w - w1) ** 2,
              _t1_obj(w, _T1_PHI[1]), None)]
    st = _with_assume(statement([["w", "real"], ["w0", "real"], ["w1", "real"]], goals), _t1_stationary(w0, w1))
    proofs = {goals[0][0]: _chain(q(1), _link("<=", _t1_f(w)[1], "sos", terms=_rep((1, [("sq", w - 1)])))),
              goals[1][0]: _chain(goals[1][2], _link("==", goals[1][3], "assume_eq", mult=[[0, (w0 - w).t]])),
              goals[2][0]: _chain(goals[2][2], _link("==", goals[2][3], "assume_eq", mult=[[1, (w1 - w).t]]))}
    return _cert("A = {e1}, B = {e2}: Assumption 1; stationary points of (8) at phi = 0, 1/2 are its unique global "
                 "solutions", "001 Thm. 1 " + CITE, st, proofs)


# ------------------------------------------------------------------------------------------ eqs. 6-8
def _n_ab() -> list[list[Any]]:
    return [["n", "count"], ["a", "family_real"], ["b", "family_real"]]


def integrated_sum_certificate() -> dict[str, Any]:
    r"""001 eq. (7): for ``a, b`` with ``sum a_i = sum b_i = 1`` and ``t = 1 - phi > 0``: ``sum_i (a_i - phi b_i)/t = 1``
    (assumption link: ``1 - (Sa - phi Sb)/t = (1 - Sa)/t - phi (1 - Sb)/t - ((1 - phi) - t)/t``)."""
    n, phi, t = v("n"), v("phi"), v("t")
    lam = (at("a", IDX) - phi * at("b", IDX)) / t
    st = _with_assume(statement([*_n_ab(), ["phi", "real"], ["t", "positive"]],
                                [("members of Lambda_phi sum to 1", "==", sm(lam, 1, n), q(1), None)]),
                      _assume(("==", sm(at("a", IDX), 1, n), q(1)), ("==", sm(at("b", IDX), 1, n), q(1)),
                              ("==", t, 1 - phi)))
    proofs = {"members of Lambda_phi sum to 1": _chain(sm(lam, 1, n), _link("==", q(1), "assume_eq",
                                                                            mult=[[0, (1 / t).t], [1, (-phi / t).t],
                                                                                  [2, (-1 / t).t]]))}
    return _cert("eq. 7: every member (a - phi b)/(1 - phi) of Lambda_phi sums to 1", "001 eq. 7 " + CITE, st, proofs)


def _support_statement(rel: str) -> tuple[dict[str, Any], E, E]:
    n, phi, t, U, V = v("n"), v("phi"), v("t"), v("U"), v("V")
    lam = (at("a", IDX) - phi * at("b", IDX)) / t
    lamf, Sa, Sb = sm(lam * at("f", IDX), 1, n), sm(at("a", IDX) * at("f", IDX), 1, n), sm(at("b", IDX) * at("f", IDX), 1, n)
    D = (U - phi * V) / t
    name = "lam.f <= D_phi/(1 - phi)" if rel == "<=" else "lam.f = D_phi/(1 - phi)"
    st = _with_assume(statement([*_n_ab(), ["f", "family_real"], ["U", "real"], ["V", "real"], ["phi", "nonnegative"],
                                 ["t", "positive"]], [(name, rel, lamf, D, None)]),
                      _assume(("==", t, 1 - phi), (rel, Sa, U), (rel, V, Sb)))
    return st, lamf, D


def integrated_upper_certificate() -> dict[str, Any]:
    r"""001 eqs. 6-8: ``a.f <= U`` (``a in A``, ``U`` the max over ``A``), ``b.f >= V`` (``b in B``), ``phi >= 0``,
    ``t = 1 - phi > 0``: ``sum_i (a_i - phi b_i)/t f_i <= (U - phi V)/t``; the gap is ``(U - a.f)/t + phi(b.f - V)/t``."""
    st, lamf, D = _support_statement("<=")
    phi, t = v("phi"), v("t")
    proofs = {"lam.f <= D_phi/(1 - phi)": _chain(lamf, _link("<=", D, "sos", terms=_rep(
        (1, [("assume", 1), ("pos", 1 / t)]), (1, [("assume", 2), ("pos", phi / t)]))))}
    return _cert("eqs. 6-8: every member of Lambda_phi has lam.f <= D_phi/(1 - phi)", "001 eqs. 6-8 " + CITE, st, proofs)


def integrated_attained_certificate() -> dict[str, Any]:
    r"""001 eqs. 6-8: at a maximiser ``a.f = U`` and a minimiser ``b.f = V``: ``lam.f = (U - phi V)/t``."""
    st, lamf, D = _support_statement("==")
    phi, t = v("phi"), v("t")
    proofs = {"lam.f = D_phi/(1 - phi)": _chain(lamf, _link("==", D, "assume_eq",
                                                            mult=[[1, (1 / t).t], [2, (phi / t).t]]))}
    return _cert("eqs. 6-8: the member built from a maximiser over A and a minimiser over B attains D_phi/(1 - phi)",
                 "001 eqs. 6-8 " + CITE, st, proofs)


# ------------------------------------------------------------------------------------------ Lemma 8
def lemma8_certificate() -> dict[str, Any]:
    r"""001 Lemma 8 (reconstructed): ``a, b`` in the simplex, ``phi >= 0``, ``t = 1 - phi > 0``, ``L = mu + k``
    (``k >= 0``), ``h_i in [mu, L]`` (``h_i = u^T hess f_i u/|u|^2``): ``sum_i (a_i - phi b_i)/t h_i >= (mu - phi L)/t``.
    Gap: ``(1/t)(sum a_i (h_i - mu) + phi sum b_i (L - h_i))`` after ``sum a = sum b = 1``."""
    n, phi, t, mu, k = v("n"), v("phi"), v("t"), v("mu"), v("k")
    L = mu + k
    a, b, h = at("a", IDX), at("b", IDX), at("h", IDX)
    lamh = sm((a - phi * b) / t * h, 1, n)
    Sa, Sb = sm(a, 1, n), sm(b, 1, n)
    st = _with_assume(statement([["n", "count"], ["a", "family_nonnegative"], ["b", "family_nonnegative"],
                                 ["mu", "real"], ["k", "nonnegative"], ["h", "family_bounded", mu, L],
                                 ["phi", "nonnegative"], ["t", "positive"]],
                                [("sum_i lam_i h_i >= (mu - phi L)/(1 - phi)", "<=", (mu - phi * L) / t, lamh, None)]),
                      _assume(("==", Sa, q(1)), ("==", Sb, q(1)), ("==", t, 1 - phi)))
    mid = (mu * Sa - phi * L * Sb) / t
    proofs = {"sum_i lam_i h_i >= (mu - phi L)/(1 - phi)": _chain(
        (mu - phi * L) / t,
        _link("==", mid, "assume_eq", mult=[[0, (-mu / t).t], [1, (phi * L / t).t]]),
        _link("<=", lamh, "sos", terms=_rep(
            (1, [("sum", 1, n, [(1, [("pos", a), ("flo", "h")])]), ("pos", 1 / t)]),
            (1, [("sum", 1, n, [(1, [("pos", b), ("fhi", "h")])]), ("pos", phi / t)]))))}
    return _cert("Lemma 8: sum_i lam_i h_i >= (mu - phi L)/(1 - phi) for lam in Lambda_phi, h_i in [mu, L]",
                 "001 Lemma 8 " + CITE, st, proofs)


# ------------------------------------------------------------------------------------------ skewness
def skewness_step_certificate() -> dict[str, Any]:
    r"""001 Sec. 6 (reconstructed), the step ``0 < phi < phi' < 1``: ``phi > 0``, ``delta > 0``, ``t > 0`` with
    ``phi + delta + t = 1`` (``phi' = phi + delta``, ``1 - phi = delta + t``, ``1 - phi' = t``).  If
    ``|a|^2 <= |lam_phi|^2`` (``(a*, b*)`` maximises ``|lam|`` at ``phi`` and ``(a*, a*)`` is a pair, ``A`` in ``B``)
    then ``|lam_phi|^2 <= |lam_phi'|^2``.  With ``s = phi/(1 - phi)``, ``lam = a + s(a - b)``,
    ``g(s) = |lam|^2`` is convex: ``g(s') - g(s) = (s'-s)/s (g(s) - g(0)) + (s'-s) s' |a - b|^2``; the assumption
    link carries the difference between the two parametrisations (a multiple of ``1 - phi - delta - t``)."""
    n, phi, dl, t = v("n"), v("phi"), v("delta"), v("t")
    a, b = at("a", IDX), at("b", IDX)
    g1 = sm(((a - phi * b) / (dl + t)) ** 2, 1, n)
    g2 = sm(((a - (phi + dl) * b) / t) ** 2, 1, n)
    P, Qab = sm(a ** 2, 1, n), sm(a * b, 1, n)
    st = _with_assume(statement([*_n_ab(), ["phi", "positive"], ["delta", "positive"], ["t", "positive"]],
                                [("|lam_phi|^2 <= |lam_phi'|^2", "<=", g1, g2, None)]),
                      _assume(("==", phi + dl + t, q(1)), ("<=", P, g1)))
    c = dl * (dl + phi + t) / (phi * t)
    c2 = dl * (dl + phi) * (dl + phi + t) / (t ** 2 * (dl + t))
    R = sm((a - b) ** 2, 1, n)
    mid = g2 - c * (g1 - P) - c2 * R
    T = -dl * (P * (dl * t - dl * phi - phi ** 2 - phi + t ** 2 + t) + 2 * Qab * phi * (dl + phi)) / (phi * t ** 2 * (dl + t))
    proofs = {"|lam_phi|^2 <= |lam_phi'|^2": _chain(
        g1, _link("==", mid, "assume_eq", mult=[[0, T.t]]),
        _link("<=", g2, "sos", terms=_rep((1, [("pos", c), ("assume", 1)]),
                                          (1, [("pos", c2), ("sum", 1, n, [(1, [("sq", a - b)])])]))))}
    return _cert("skewness step: |lam_phi(a, b)|^2 <= |lam_phi'(a, b)|^2 when it is >= |a|^2, 0 < phi < phi' < 1",
                 "001 Sec. 6 " + CITE, st, proofs)


def skewness_singletons_counterexample() -> dict[str, Any]:
    r"""001 Sec. 6 (``phi -> s(Lambda_phi(A, B))`` non-decreasing on ``[0, 1)``) is false; its special case for
    singleton sets refuted exactly.  For ``A = {a}``, ``B = {b}`` the set ``Lambda_phi(A, B)`` is the one point
    ``lam_phi(a, b) = (a - phi b)/(1 - phi)``, so the max in ``s(Lambda) = max_{lam in Lambda} n sum_i lam_i^2`` is
    ``n |lam_phi(a, b)|^2``.  Statement: every ``n``, ``a, b`` in the simplex, ``phi >= 0``, ``phi' = phi + delta``
    (``delta > 0``), ``1 - phi' = t > 0``: ``n |lam_phi|^2 <= n |lam_phi'|^2``.  At ``n = 2``, ``a = (2/5, 3/5)``,
    ``b = (0, 1)``, ``phi = 1/10``, ``phi' = 1/5``: ``n |lam|^2`` falls from ``82/81`` to ``1`` (margin ``1/81``)."""
    from fairtheory.proofs.counterexample import counterexample

    n, phi, dl, t = v("n"), v("phi"), v("delta"), v("t")
    a, b = at("a", IDX), at("b", IDX)
    now = sm(((a - phi * b) / (dl + t)) ** 2, 1, n)
    later = sm(((a - (phi + dl) * b) / t) ** 2, 1, n)
    st = _with_assume(statement([["n", "count"], ["a", "family_bounded", q(0), q(1)], ["b", "family_bounded", q(0), q(1)],
                                 ["phi", "nonnegative"], ["delta", "positive"], ["t", "positive"]],
                                [("s(Lambda_phi) <= s(Lambda_phi')", "<=", n * now, n * later, None)]),
                      _assume(("==", phi + dl + t, q(1)), ("==", sm(a, 1, n), q(1)), ("==", sm(b, 1, n), q(1))))
    return counterexample(st, "s(Lambda_phi) <= s(Lambda_phi')",
                          {"n": 2, "a": [Fraction(2, 5), Fraction(3, 5)], "b": [Fraction(0), Fraction(1)],
                           "phi": Fraction(1, 10), "delta": Fraction(1, 10), "t": Fraction(4, 5)},
                          title="skewness n |lam_phi(a, b)|^2 of singleton sets falls from 82/81 (phi = 1/10) to 1 "
                                "(phi = 1/5)",
                          citation="001 Sec. 6 " + CITE)


def skewness_start_certificate() -> dict[str, Any]:
    r"""001 Sec. 6, the step from ``phi = 0``: the pair ``(a, a)`` gives ``(a - phi' a)/(1 - phi') = a`` for every
    ``phi' = 1 - t in [0, 1)``, so ``s(phi') >= n max_A |a|^2 = s(0)`` when ``A`` is a subset of ``B``."""
    n, t = v("n"), v("t")
    a = at("a", IDX)
    lhs = sm(((a - (1 - t) * a) / t) ** 2, 1, n)
    st = statement([["n", "count"], ["a", "family_real"], ["t", "positive"]],
                   [("|lam_phi'(a, a)|^2 = |a|^2", "==", lhs, sm(a ** 2, 1, n), None)])
    return _cert("skewness from phi = 0: (a - phi' a)/(1 - phi') = a", "001 Sec. 6 " + CITE, st,
                 {"|lam_phi'(a, a)|^2 = |a|^2": _chain(lhs, _link("==", sm(a ** 2, 1, n), "identity"))})


# ------------------------------------------------------------------------------------------ CVaR sets
def _cvar_symbols() -> list[list[Any]]:
    tau, kap = v("tau"), v("kap")
    lo = tau + at("p", IDX) - at("m", IDX)
    return [["n", "count"], ["kap", "positive"], ["tau", "real"], ["p", "family_nonnegative"],
            ["m", "family_nonnegative"], ["f", "family_bounded", lo, lo], ["z", "family_bounded", q(0), q(1)],
            ["lam", "family_bounded", q(0), 1 / kap]]


def cvar_top_certificate() -> dict[str, Any]:
    r"""001 Ex. 1-2 (reconstructed): the support of ``C = {lam in Delta_n : lam_i <= 1/kap}`` is the mean of the
    ``kap`` largest losses (fractional last term).  The losses are written ``f_i = tau + p_i - m_i`` (``p, m >= 0``;
    every ``f`` is, for every ``tau``), the top set is ``z in [0, 1]^n`` with ``sum z = kap``, ``z_i = 1`` where
    ``p_i > 0`` (``sum (1 - z_i) p_i = 0``) and ``z_i = 0`` where ``m_i > 0`` (``sum z_i m_i = 0``).  Then every
    ``lam in C`` has ``lam.f <= (1/kap) sum z_i f_i``: the gap is ``sum (1/kap - lam_i) p_i + sum lam_i m_i``."""
    n, kap, tau = v("n"), v("kap"), v("tau")
    lam, z, f, p, m = at("lam", IDX), at("z", IDX), at("f", IDX), at("p", IDX), at("m", IDX)
    lo = tau + p - m
    lamf, top = sm(lam * f, 1, n), sm(z * f, 1, n) / kap
    st = _with_assume(statement(_cvar_symbols(), [("lam.f <= mean of the kap largest", "<=", lamf, top, None)]),
                      _assume(("==", sm(lam, 1, n), q(1)), ("==", sm(z, 1, n), kap), ("==", sm((1 - z) * p, 1, n), q(0)),
                              ("==", sm(z * m, 1, n), q(0))))
    G = sm((1 / kap - lam) * p + lam * m, 1, n)
    B = sm(z * lo, 1, n) / kap - sm(lam * lo, 1, n)
    proofs = {"lam.f <= mean of the kap largest": _chain(
        lamf,
        _link("<=", lamf + G, "sos", terms=_rep((1, [("sum", 1, n, [(1, [("fhi", "lam"), ("pos", p)]),
                                                                      (1, [("flo", "lam"), ("pos", m)])])]))),
        _link("==", lamf + B, "assume_eq", mult=[[0, tau.t], [1, (-tau / kap).t], [2, (1 / kap).t], [3, (1 / kap).t]]),
        _link("<=", top, "sos", terms=_rep((1, [("pos", 1 / kap), ("sum", 1, n, [(1, [("flo", "z"), ("flo", "f")])])]),
                                           (1, [("sum", 1, n, [(1, [("flo", "lam"), ("fhi", "f")])])]))))}
    return _cert("CVaR set: lam.f <= mean of the kap largest losses (threshold form) for every lam in C",
                 "001 Ex. 1-2 " + CITE, st, proofs)


def cvar_bottom_certificate() -> dict[str, Any]:
    r"""The mirror of :func:`cvar_top_certificate`: ``z`` the bottom set (``z_i = 1`` where ``m_i > 0``,
    ``z_i = 0`` where ``p_i > 0``): every ``lam in C`` has ``lam.f >= (1/kap) sum z_i f_i``; the gap is
    ``sum lam_i p_i + sum (1/kap - lam_i) m_i``."""
    n, kap, tau = v("n"), v("kap"), v("tau")
    lam, z, f, p, m = at("lam", IDX), at("z", IDX), at("f", IDX), at("p", IDX), at("m", IDX)
    lo = tau + p - m
    lamf, bot = sm(lam * f, 1, n), sm(z * f, 1, n) / kap
    st = _with_assume(statement(_cvar_symbols(), [("mean of the kap smallest <= lam.f", "<=", bot, lamf, None)]),
                      _assume(("==", sm(lam, 1, n), q(1)), ("==", sm(z, 1, n), kap), ("==", sm((1 - z) * m, 1, n), q(0)),
                              ("==", sm(z * p, 1, n), q(0))))
    G = sm(lam * p + (1 / kap - lam) * m, 1, n)
    B = sm(lam * lo, 1, n) - sm(z * lo, 1, n) / kap
    proofs = {"mean of the kap smallest <= lam.f": _chain(
        bot,
        _link("<=", bot + G, "sos", terms=_rep((1, [("sum", 1, n, [(1, [("flo", "lam"), ("pos", p)]),
                                                                     (1, [("fhi", "lam"), ("pos", m)])])]))),
        _link("==", bot + B, "assume_eq", mult=[[0, (-tau).t], [1, (tau / kap).t], [2, (1 / kap).t], [3, (1 / kap).t]]),
        _link("<=", lamf, "sos", terms=_rep((1, [("sum", 1, n, [(1, [("flo", "lam"), ("flo", "f")])])]),
                                            (1, [("pos", 1 / kap), ("sum", 1, n, [(1, [("flo", "z"), ("fhi", "f")])])]))))}
    return _cert("CVaR set: lam.f >= mean of the kap smallest losses (threshold form) for every lam in C",
                 "001 Ex. 1-2 " + CITE, st, proofs)


def cvar_attained_certificate() -> dict[str, Any]:
    r"""The top (bottom) set attains: ``lam = z/kap`` lies in ``C`` (``0 <= z_i/kap <= 1/kap`` from ``z_i in [0, 1]``)
    with ``sum_i z_i/kap = 1`` and ``lam.f = (1/kap) sum z_i f_i``."""
    n, kap = v("n"), v("kap")
    z, f = at("z", IDX), at("f", IDX)
    st = _with_assume(statement([["n", "count"], ["kap", "positive"], ["z", "family_bounded", q(0), q(1)],
                                 ["f", "family_real"]],
                                [("z/kap sums to 1", "==", sm(z / kap, 1, n), q(1), None),
                                 ("(z/kap).f = (1/kap) sum z_i f_i", "==", sm(z / kap * f, 1, n), sm(z * f, 1, n) / kap,
                                  None)]),
                      _assume(("==", sm(z, 1, n), kap)))
    proofs = {"z/kap sums to 1": _chain(sm(z / kap, 1, n), _link("==", q(1), "assume_eq", mult=[[0, (1 / kap).t]])),
              "(z/kap).f = (1/kap) sum z_i f_i": _chain(sm(z / kap * f, 1, n),
                                                         _link("==", sm(z * f, 1, n) / kap, "identity"))}
    return _cert("CVaR set: lam = z/kap is a member attaining the mean of the kap largest (smallest)",
                 "001 Ex. 1-2 " + CITE, st, proofs)


def capped_support_certificate() -> dict[str, Any]:
    r"""001 Ex. 1 / Sec. 2.1, a capped simplex ``C = {lam in Delta_n : 0 <= lam_i <= u_i}``: the greedy point
    ``z in C`` (``z_i = u_i`` where ``f_i > tau``: ``sum (u_i - z_i) p_i = 0``; ``z_i = 0`` where ``f_i < tau``:
    ``sum z_i m_i = 0``; ``f_i = tau + p_i - m_i``, ``p, m >= 0``) maximises ``lam.f`` over ``C``: the gap is
    ``sum (u_i - lam_i) p_i + sum lam_i m_i``."""
    n, tau = v("n"), v("tau")
    lam, z, f, p, m, u = (at(x, IDX) for x in ("lam", "z", "f", "p", "m", "u"))
    lo = tau + p - m
    lamf, zf = sm(lam * f, 1, n), sm(z * f, 1, n)
    st = _with_assume(statement([["n", "count"], ["tau", "real"], ["p", "family_nonnegative"], ["m", "family_nonnegative"],
                                 ["f", "family_bounded", lo, lo], ["u", "family_nonnegative"],
                                 ["z", "family_bounded", q(0), u], ["lam", "family_bounded", q(0), u]],
                                [("lam.f <= z.f (z the greedy argmax)", "<=", lamf, zf, None)]),
                      _assume(("==", sm(lam, 1, n), q(1)), ("==", sm(z, 1, n), q(1)), ("==", sm((u - z) * p, 1, n), q(0)),
                              ("==", sm(z * m, 1, n), q(0))))
    G = sm((u - lam) * p + lam * m, 1, n)
    B = sm(z * lo, 1, n) - sm(lam * lo, 1, n)
    proofs = {"lam.f <= z.f (z the greedy argmax)": _chain(
        lamf,
        _link("<=", lamf + G, "sos", terms=_rep((1, [("sum", 1, n, [(1, [("fhi", "lam"), ("pos", p)]),
                                                                      (1, [("flo", "lam"), ("pos", m)])])]))),
        _link("==", lamf + B, "assume_eq", mult=[[0, tau.t], [1, (-tau).t], [2, q(1).t], [3, q(1).t]]),
        _link("<=", zf, "sos", terms=_rep((1, [("sum", 1, n, [(1, [("flo", "z"), ("flo", "f")])])]),
                                          (1, [("sum", 1, n, [(1, [("flo", "lam"), ("fhi", "f")])])]))))}
    return _cert("capped simplex: the greedy (threshold) member z maximises lam.f", "001 Ex. 1 " + CITE, st, proofs)


def capped_projection_certificate() -> dict[str, Any]:
    r"""The Euclidean projection onto ``C = {lam in Delta_n : 0 <= lam_i <= u_i}``: a member ``x`` with KKT multipliers
    ``theta``, ``al, be >= 0`` (``v_i = x_i + theta - al_i + be_i``, ``sum x_i al_i = 0``, ``sum (u_i - x_i) be_i = 0``:
    ``x_i = clip(v_i - theta, 0, u_i)``) is nearest to ``v``: for every ``y in C``, ``|y - v|^2 - |x - v|^2 =
    |y - x|^2 + 2 sum y_i al_i + 2 sum (u_i - y_i) be_i >= 0``."""
    n, th = v("n"), v("theta")
    x, y, u, al, be = (at(k, IDX) for k in ("x", "y", "u", "al", "be"))
    vv = x + th - al + be
    near, far = sm((x - vv) ** 2, 1, n), sm((y - vv) ** 2, 1, n)
    st = _with_assume(statement([["n", "count"], ["theta", "real"], ["u", "family_nonnegative"],
                                 ["al", "family_nonnegative"], ["be", "family_nonnegative"],
                                 ["x", "family_bounded", q(0), u], ["y", "family_bounded", q(0), u]],
                                [("|x - v|^2 <= |y - v|^2", "<=", near, far, None)]),
                      _assume(("==", sm(x, 1, n), q(1)), ("==", sm(y, 1, n), q(1)), ("==", sm(x * al, 1, n), q(0)),
                              ("==", sm((u - x) * be, 1, n), q(0))))
    G = sm((y - x) ** 2 + 2 * y * al + 2 * (u - y) * be, 1, n)
    proofs = {"|x - v|^2 <= |y - v|^2": _chain(
        near,
        _link("<=", near + G, "sos", terms=_rep((1, [("sum", 1, n, [(1, [("sq", y - x)]), (2, [("flo", "y"), ("pos", al)]),
                                                                      (2, [("fhi", "y"), ("pos", be)])])]))),
        _link("==", far, "assume_eq", mult=[[0, (-2 * th).t], [1, (2 * th).t], [2, q(2).t], [3, q(2).t]]))}
    return _cert("capped simplex: the KKT point x = clip(v - theta, 0, u) is the Euclidean projection of v",
                 "001 Ex. 1 " + CITE, st, proofs)


# ------------------------------------------------------------------------------------------ Theorem 2
def _t2_f(x: Any) -> tuple[E, E]:
    x = x if isinstance(x, E) else q(x)
    return x ** 2 + 1, (x - 1) ** 2 * Fraction(1, 10) + Fraction(1, 2)


def _t2_UV(x: Any) -> tuple[E, E]:
    f1, f2 = _t2_f(x)
    U = mx(f1, f2)
    return U, f1 + f2 - U


def theorem2_witness() -> dict[str, Any]:
    r"""001 Thm. 2, one instance: ``n = 2``, ``d = 1``, ``f_1 = w^2 + 1``, ``f_2 = (w - 1)^2/10 + 1/2``,
    ``A = B = Delta_2`` (``U = max``, ``V = min = f_1 + f_2 - max``).  ``V >= 1/2``; ``w*_0 = 0`` and
    ``w*_{1/2} = -1/19`` are the unique global minimisers of ``(U - phi V)/(1 - phi)`` (margins ``w^2`` and
    ``19/10 (w + 1/19)^2``, cases on the sign of ``f_1 - f_2``); ``I(w*_0) = 5/3``, ``I(w*_{1/2}) = 724/441``,
    a strict decrease by ``11/441``."""
    w = v("w")
    f1, f2 = _t2_f(w)

    def obj(x: Any, phi: Fraction) -> E:
        U, V = _t2_UV(x)
        return (U - phi * V) / (1 - phi)

    def index(x: Any) -> E:
        U, V = _t2_UV(x)
        return U / V

    h, w1 = Fraction(1, 2), Fraction(-1, 19)
    _, V = _t2_UV(w)
    goals = [("Assumption 1: V(w) >= 1/2 > 0", "<=", q(h), V, None),
             ("w = 0 unique global minimiser at phi = 0", "<=", obj(0, Fraction(0)) + w ** 2, obj(w, Fraction(0)), None),
             ("w = -1/19 unique global minimiser at phi = 1/2", "<=", obj(w1, h) + Fraction(19, 10) * (w - w1) ** 2,
              obj(w, h), None),
             ("index at w*_0 is 5/3", "==", index(0), q(Fraction(5, 3)), None),
             ("index at w*_(1/2) is 724/441", "==", index(w1), q(Fraction(724, 441)), None),
             ("index decreases by 11/441", "<=", index(w1) + Fraction(11, 441), index(0), None)]
    st = statement([["w", "real"]], goals)
    hyp = [(1, [("hyp",)])]

    def cases(*branches: list[Any]) -> dict[str, Any]:
        return {"cases": (f1 - f2).t, "chains": [[E.lift(br[0]), *br[1:]] for br in branches]}

    g = goals
    proofs = {
        g[0][0]: cases([q(h), _link("<=", f2, "sos", terms=_rep((Fraction(1, 10), [("sq", w - 1)]))),
                        _link("==", V, "max", a=f1, b=f2, terms=_rep(*hyp))],
                       [q(h), _link("<=", f1, "sos", terms=_rep((1, [("sq", w)]), (h, []))),
                        _link("==", V, "max", a=f2, b=f1, terms=_rep(*hyp))]),
        g[1][0]: cases([g[1][2], _link("==", f1, "identity"), _link("==", g[1][3], "max", a=f1, b=f2, terms=_rep(*hyp))],
                       [g[1][2], _link("<=", f2, "sos", terms=_rep(*hyp)),
                        _link("==", g[1][3], "max", a=f2, b=f1, terms=_rep(*hyp))]),
        g[2][0]: cases([g[2][2], _link("==", 2 * f1 - f2, "identity"),
                        _link("==", g[2][3], "max", a=f1, b=f2, terms=_rep(*hyp))],
                       [g[2][2], _link("<=", 2 * f2 - f1, "sos", terms=_rep((3, [("hyp",)]))),
                        _link("==", g[2][3], "max", a=f2, b=f1, terms=_rep(*hyp))])}
    for name, _, lhs, rhs, _ in goals[3:]:
        proofs[name] = _chain(lhs, _link("==", rhs, "identity"))
    return _cert("A = B = Delta_2: the index of the exact solutions decreases strictly from phi = 0 to phi = 1/2",
                 "001 Thm. 2 " + CITE, st, proofs)


# ------------------------------------------------------------------------------------------ penguins (Sec. 4.3)
#: the first 10 complete rows of each species in the palmerpenguins data (bill_depth_mm, flipper_length_mm,
#: bill_length_mm), as in :func:`fairtheory.problems.penguins.penguins_data`; the claim compares them with it
PENGUIN_ROWS = (
    (("18.7", "181", "39.1"), ("17.4", "186", "39.5"), ("18.0", "195", "40.3"), ("19.3", "193", "36.7"),
     ("20.6", "190", "39.3"), ("17.8", "181", "38.9"), ("19.6", "195", "39.2"), ("18.1", "193", "34.1"),
     ("20.2", "190", "42.0"), ("17.1", "186", "37.8")),
    (("17.9", "192", "46.5"), ("19.5", "196", "50.0"), ("19.2", "193", "51.3"), ("18.7", "188", "45.4"),
     ("19.8", "197", "52.7"), ("17.8", "198", "45.2"), ("18.2", "178", "46.1"), ("18.2", "197", "51.3"),
     ("18.9", "195", "46.0"), ("19.9", "198", "51.3")),
    (("13.2", "211", "46.1"), ("16.3", "230", "50.0"), ("14.1", "210", "48.7"), ("15.2", "218", "50.0"),
     ("14.5", "215", "47.6"), ("13.5", "210", "46.5"), ("14.6", "211", "45.4"), ("15.3", "219", "46.7"),
     ("13.4", "209", "43.3"), ("15.4", "215", "46.8")))


def _solve3(G: list[list[Fraction]], r: list[Fraction]) -> list[Fraction]:
    """``G x = r`` for a 3 x 3 rational ``G`` (Gaussian elimination, exact; ``G`` positive definite here)."""
    A = [[*row, b] for row, b in zip(G, r, strict=True)]
    for k in range(3):
        for i in range(k + 1, 3):
            f = A[i][k] / A[k][k]
            A[i] = [x - f * y for x, y in zip(A[i], A[k], strict=True)]
    x = [Fraction(0)] * 3
    for k in (2, 1, 0):
        x[k] = (A[k][3] - sum(A[k][j] * x[j] for j in range(k + 1, 3))) / A[k][k]
    return x


def penguin_fit(rows: tuple) -> tuple[list[Fraction], Fraction, list[list[Fraction]]]:
    """Exact least squares of one client: ``c = (X^T X)^{-1} X^T y``, the residual mean ``e = f(c)`` and
    ``G = X^T X``."""
    X = [[Fraction(1), Fraction(dep), Fraction(fl)] for dep, fl, _ in rows]
    y = [Fraction(t) for _, _, t in rows]
    G = [[sum(x[i] * x[j] for x in X) for j in range(3)] for i in range(3)]
    c = _solve3(G, [sum(x[i] * t for x, t in zip(X, y, strict=True)) for i in range(3)])
    e = sum((x[0] * c[0] + x[1] * c[1] + x[2] * c[2] - t) ** 2 for x, t in zip(X, y, strict=True)) / len(rows)
    return c, e, G


def _penguin_loss(rows: tuple, w: tuple[E, E, E]) -> E:
    sq = [(w[0] + Fraction(dep) * w[1] + Fraction(fl) * w[2] - Fraction(t)) ** 2 for dep, fl, t in rows]
    return sum(sq[1:], sq[0]) / len(rows)


def penguins_positive_certificate() -> dict[str, Any]:
    r"""001 Sec. 4.3, Assumption 1 for the penguins clients: each ``f_i(w) = (1/10) |X_i w - y_i|^2`` is at least its
    least-squares residual ``e_i > 0`` (exact rational), with equality at the exact fit ``c_i``: ``f_i(w) - e_i =
    (1/10)(w - c_i)^T G_i (w - c_i) = (1/10) sum_k D_k (L_k^T (w - c_i))^2`` (``G_i = L D L^T``, exact)."""
    w = (v("w1"), v("w2"), v("w3"))
    goals, proofs = [], {}
    for i, rows in enumerate(PENGUIN_ROWS):
        c, e, _ = penguin_fit(rows)
        f = _penguin_loss(rows, w)
        name = f"client {i + 1}: f_i(w) >= e_i"
        goals.append((name, "<=", q(e), f, {"w1": q(c[0]), "w2": q(c[1]), "w3": q(c[2])}))
        terms = _ldl_terms(rows, w)
        proofs[name] = _chain(q(e), _link("<=", f, "sos", terms=_rep(*terms)))
    st = statement([["w1", "real"], ["w2", "real"], ["w3", "real"]], goals)
    return _cert("penguins: every client's MSE is at least its exact least-squares residual e_i > 0",
                 "001 Sec. 4.3 " + CITE, st, proofs)


def _ldl_terms(rows: tuple, w: tuple[E, E, E], weight: Any = None) -> list[tuple[Any, list[tuple]]]:
    """``f(w) - e = (1/m) sum_k D_k (L_k^T (w - c))^2`` as representation terms (times ``weight >= 0`` if given)."""
    c, _, G = penguin_fit(rows)
    L = [[Fraction(0)] * 3 for _ in range(3)]
    D = [Fraction(0)] * 3
    for k in range(3):
        D[k] = G[k][k] - sum(L[k][j] ** 2 * D[j] for j in range(k))
        L[k][k] = Fraction(1)
        for r in range(k + 1, 3):
            L[r][k] = (G[r][k] - sum(L[r][j] * L[k][j] * D[j] for j in range(k))) / D[k]
    out = []
    for k in range(3):
        lin = sum((L[r][k] * (w[r] - c[r]) for r in range(k, 3)), q(0))
        out.append((D[k] / len(rows), [("sq", lin)] + ([("pos", weight)] if weight is not None else [])))
    return out


def penguins_assumption1_certificate() -> dict[str, Any]:
    r"""001 Assumption 1 for the penguins clients and every ``B`` in ``Delta_3``: every ``lam in Delta_3`` has
    ``sum_i lam_i f_i(w) >= min_i e_i = e_3 > 0`` (Gentoo's residual), so ``V(w) >= e_3 > 0`` for every ``w``."""
    w = (v("w1"), v("w2"), v("w3"))
    lam = (v("l1"), v("l2"), v("l3"))
    es = [penguin_fit(rows)[1] for rows in PENGUIN_ROWS]
    e3 = min(es)
    parts = [lam[i] * _penguin_loss(rows, w) for i, rows in enumerate(PENGUIN_ROWS)]
    lf = parts[0] + parts[1] + parts[2]
    st = _with_assume(statement([["w1", "real"], ["w2", "real"], ["w3", "real"], ["l1", "nonnegative"],
                                 ["l2", "nonnegative"], ["l3", "nonnegative"]],
                                [("lam.f(w) >= min_i e_i", "<=", q(e3), lf, None)]),
                      _assume(("==", lam[0] + lam[1] + lam[2], q(1))))
    terms = [t for i, rows in enumerate(PENGUIN_ROWS) for t in _ldl_terms(rows, w, lam[i])]
    terms += [(es[i] - e3, [("pos", lam[i])]) for i in range(3) if es[i] > e3]
    proofs = {"lam.f(w) >= min_i e_i": _chain(q(e3), _link("==", e3 * (lam[0] + lam[1] + lam[2]), "assume_eq",
                                                           mult=[[0, q(-e3).t]]),
                                              _link("<=", lf, "sos", terms=_rep(*terms)))}
    return _cert("penguins: V(w) >= min_i e_i > 0 for every B in Delta_3 (Assumption 1)", "001 Sec. 4.3 " + CITE,
                 st, proofs)


#: every maker, by short name
ALL_RELFAIR = {"prop9": prop9_certificate, "theorem1": theorem1_certificate,
               "theorem1_instance_solutions": theorem1_instance_solutions_certificate,
               "theorem1_instance_cx": theorem1_instance_counterexample, "integrated_sum": integrated_sum_certificate,
               "integrated_upper": integrated_upper_certificate, "integrated_attained": integrated_attained_certificate,
               "lemma8": lemma8_certificate, "skewness_step": skewness_step_certificate,
               "skewness_start": skewness_start_certificate, "theorem2": theorem2_witness,
               "cvar_top": cvar_top_certificate, "cvar_bottom": cvar_bottom_certificate,
               "cvar_attained": cvar_attained_certificate, "capped_support": capped_support_certificate,
               "capped_projection": capped_projection_certificate,
               "skewness_singletons_cx": skewness_singletons_counterexample,
               "penguins_positive": penguins_positive_certificate,
               "penguins_assumption1": penguins_assumption1_certificate}
