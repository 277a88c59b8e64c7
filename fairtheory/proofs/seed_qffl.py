r"""Certificates of the q-FFL seed (003) for the ``"symbolic"`` kernel (untrusted proposers, no search).

Each maker writes a statement and its evidence (terms built with :class:`fairtheory.proofs.symbolic.E`);
:mod:`fairtheory_kernel.symbolic` decides.  The derivations are in docs/decided/qffl.md.

* :func:`reduction_certificate` - 003 Alg. 1: with ``q = 0`` and one full-batch local step of size ``1/L``
  (camera-ready ``Delta w_k = L (w - wbar_k)``), the q-FedAvg update is the FedSGD step
  ``w - (1/L) sum p_k g_k / sum p_k`` (one coordinate, every ``n``, weights, losses, gradients);
* :func:`limits_q0_certificate` - 003 Sec. 3.2: ``f_0 = sum p_k F_k`` (the FedAvg objective);
* :func:`lemma6_certificate` - 003 Lemma 6: ``Var(a) <= Var(b)`` for ``a = F(w*_1)``, ``b = F(w*_0)`` modelled by
  the two optimality inequalities ``sum a^2 <= sum b^2``, ``sum b <= sum a`` (losses ``>= 0``);
* :func:`lemma7_certificate`, :func:`lemma7_angle_certificate` - 003 Lemma 7: the angle criterion in the same
  setting (squared and cross-multiplied for losses ``>= 0``; literally for losses ``> 0``);
* :func:`lemma8_certificate` - 003 Lemma 8: ``d/dp H(F^q(w*_p))|_{p=q} = (q/S) W'^T Hess W' >= 0``, the minimiser's
  derivative ``W'`` entering through stationarity and the implicit-function identity; :func:`lemma8_chain_rule_certificate`
  checks the chain-rule expression of ``dH/dp`` it uses (three clients, generic functions);
* :func:`limits_sandwich_certificate`, :func:`limits_epsilon_certificate` - 003 Sec. 3.2, ``q -> infinity``:
  ``p_j F_j(w*_q)^{q+1} <= AFL*^{q+1}``, and ``F_j(w*_q) <= (1 + eps) AFL*`` once ``p_j (1 + eps)^{q+1} >= 1``;
* :func:`young_certificate`, :func:`holder_certificate`, :func:`dual_norm_certificate`,
  :func:`holder_q0_certificate` - 003 Lemma 10 (Young from ``exp u >= 1 + u``, Hoelder, the dual-norm maximiser).

:data:`ALL_CERTIFICATES` maps a short name to each maker.
"""

from __future__ import annotations

from typing import Any

from fairtheory.proofs.symbolic import IDX, E, _cert, _chain, _link, _rep, at, d, exp, fn, log, q, rpow, sm, statement, v

__all__ = ["reduction_certificate", "limits_q0_certificate", "lemma6_certificate", "lemma7_certificate",
           "lemma7_angle_certificate", "lemma8_certificate", "lemma8_chain_rule_certificate", "lemma8_statement_parts",
           "limits_sandwich_certificate", "limits_epsilon_certificate", "limits_statement_parts",
           "young_certificate", "holder_certificate", "dual_norm_certificate", "holder_q0_certificate",
           "ALL_CERTIFICATES"]

N = v("n")


def _mean(x: E) -> E:
    return sm(x, 1, N) / N


# ------------------------------------------------------------------------------------------ Alg. 1
def reduction_certificate() -> dict[str, Any]:
    r"""003 Alg. 1 at ``q = 0``.  Client ``k`` takes one full-batch step ``wbar_k = w - g_k/L`` (``g_k`` one coordinate
    of ``grad F_k(w)``), ``Delta w_k = L (w - wbar_k)``, ``Delta_k = F_k^0 Delta w_k``,
    ``h_k = 0 F_k^{-1} N_k + L F_k^0`` (``N_k >= 0`` standing for ``||Delta w_k||^2``); the server's
    ``w - sum p_k Delta_k / sum p_k h_k`` is ``w - (1/L) sum p_k g_k / sum p_k``: equal normal forms."""
    n, L, w = N, v("L"), v("w")
    p, F, g, Nk = at("p", IDX), at("F", IDX), at("g", IDX), at("N", IDX)
    q0 = q(0)
    dw = L * (w - (w - g / L))
    new = w - sm(p * (rpow(F, q0) * dw), 1, n) / sm(p * (q0 * rpow(F, q0 - 1) * Nk + L * rpow(F, q0)), 1, n)
    fedsgd = w - (1 / L) * (sm(p * g, 1, n) / sm(p, 1, n))
    st = statement([["n", "count"], ["L", "positive"], ["w", "real"], ["p", "family_positive"],
                    ["F", "family_positive"], ["g", "family_real"], ["N", "family_nonnegative"]],
                   [("q-FedAvg(q=0, one step) = FedSGD(1/L)", "==", new, fedsgd, None)])
    return _cert("q = 0, one full-batch local step of 1/L: the q-FedAvg update is the FedSGD step", "003 Alg. 1", st,
                 {"q-FedAvg(q=0, one step) = FedSGD(1/L)": _chain(new, _link("==", fedsgd, "identity"))})


# ------------------------------------------------------------------------------------------ Sec. 3.2
def limits_q0_certificate() -> dict[str, Any]:
    r"""003 Sec. 3.2 / eq. (2): ``f_0(w) = sum p_k F_k^{0+1}/(0+1) = sum p_k F_k`` for every ``n``, ``p_k > 0``,
    ``F_k > 0`` (identity)."""
    p, F = at("p", IDX), at("F", IDX)
    q0 = q(0)
    f0 = sm(p * rpow(F, q0 + 1) / (q0 + 1), 1, N)
    fedavg = sm(p * F, 1, N)
    st = statement([["n", "count"], ["p", "family_positive"], ["F", "family_positive"]],
                   [("f_0 = FedAvg objective", "==", f0, fedavg, None)])
    return _cert("the q-FFL objective at q = 0 is the FedAvg objective", "003 Sec. 3.2", st,
                 {"f_0 = FedAvg objective": _chain(f0, _link("==", fedavg, "identity"))})


ALL_CERTIFICATES = {"reduction": reduction_certificate, "limits_q0": limits_q0_certificate}


# ------------------------------------------------------------------------------------------ helpers
def _assume(st: dict[str, Any], *rels: tuple[str, Any, Any]) -> dict[str, Any]:
    """``st`` with the assumptions ``lhs rel rhs`` (kernel key ``"assume"``, in this order: generator ``["assume", k]``
    is ``rhs_k - lhs_k >= 0``)."""
    return {**st, "assume": [{"rel": r, "lhs": E.lift(a), "rhs": E.lift(b)} for r, a, b in rels]}


def _assume_eq(expr: Any, *mult: tuple[int, Any]) -> dict[str, Any]:
    """Link ``prev == expr`` because ``expr - prev = sum_k T_k (rhs_k - lhs_k)`` over ``==`` assumptions ``k``."""
    return {"rel": "==", "expr": E.lift(expr), "by": "assume_eq", "mult": [[k, E.lift(t)] for k, t in mult]}


def _sum_gen(lo: Any, hi: Any, *terms: tuple[Any, list[Any]]) -> list[Any]:
    """Generator ``sum_{i=lo}^{hi} R_i >= 0`` with ``R_i`` the representation ``terms`` (index ``IDX``)."""
    return ["sum", E.lift(lo), E.lift(hi), _rep(*terms)]


# ------------------------------------------------------------------------------------------ Lemmas 6, 7
A_, B_ = at("a", IDX), at("b", IDX)


def _uniformity_symbols() -> list[list[Any]]:
    return [["n", "count"], ["a", "family_nonnegative"], ["b", "family_nonnegative"]]


def _optimality(st: dict[str, Any]) -> dict[str, Any]:
    """``a = F(w*_1)`` minimises the mean square, ``b = F(w*_0)`` the mean: ``sum a^2 <= sum b^2``, ``sum b <= sum a``."""
    return _assume(st, ("<=", sm(A_ ** 2, 1, N), sm(B_ ** 2, 1, N)), ("<=", sm(B_, 1, N), sm(A_, 1, N)))


def lemma6_certificate() -> dict[str, Any]:
    r"""003 Lemma 6: ``mean(a^2) - mean(a)^2 <= mean(b^2) - mean(b)^2``; the gap is
    ``(sum b^2 - sum a^2)/n + (sum a - sum b)(sum a + sum b)/n^2``, both products of assumed and sign-known factors."""
    va = _mean(A_ ** 2) - _mean(A_) ** 2
    vb = _mean(B_ ** 2) - _mean(B_) ** 2
    sa, sb = sm(A_, 1, N), sm(B_, 1, N)
    st = _optimality(statement(_uniformity_symbols(), [("Var F(w*_1) <= Var F(w*_0)", "<=", va, vb, None)]))
    rep = [[str(1), [["pos", E.lift(1 / N)], ["assume", 0]]], [str(1), [["pos", E.lift((sa + sb) / N ** 2)], ["assume", 1]]]]
    proof = _chain(va, {"rel": "<=", "expr": E.lift(vb), "by": "sos", "terms": rep})
    return _cert("Var F(w*_1) <= Var F(w*_0) from the optimality of w*_1 (mean square) and w*_0 (mean)", "003 Lemma 6",
                 st, {"Var F(w*_1) <= Var F(w*_0)": proof})


def lemma7_certificate() -> dict[str, Any]:
    r"""003 Lemma 7 (squared, cross-multiplied, so that it covers zero losses): ``mean(b)^2 mean(a^2) <=
    mean(a)^2 mean(b^2)``; the gap times ``n^3`` is ``(sum a)^2 (sum b^2 - sum a^2) + sum a^2 (sum a - sum b)(sum a
    + sum b)``."""
    sa, sb, sa2 = sm(A_, 1, N), sm(B_, 1, N), sm(A_ ** 2, 1, N)
    lhs = _mean(B_) ** 2 * _mean(A_ ** 2)
    rhs = _mean(A_) ** 2 * _mean(B_ ** 2)
    st = _optimality(statement(_uniformity_symbols(), [("cos^2 angle: w*_1 >= w*_0", "<=", lhs, rhs, None)]))
    rep = [["1", [["sq", E.lift(sa)], ["pos", E.lift(1 / N ** 3)], ["assume", 0]]],
           ["1", [["pos", E.lift(sa2 * (sa + sb) / N ** 3)], ["assume", 1]]]]
    proof = _chain(lhs, {"rel": "<=", "expr": E.lift(rhs), "by": "sos", "terms": rep})
    return _cert("mean(F)^2/mean(F^2) at w*_1 >= at w*_0 (angle criterion, squared)", "003 Lemma 7", st,
                 {"cos^2 angle: w*_1 >= w*_0": proof})


def lemma7_angle_certificate() -> dict[str, Any]:
    r"""003 Lemma 7, literal form for positive losses: ``mean(b)/sqrt(mean(b^2)) <= mean(a)/sqrt(mean(a^2))``.
    Chain: raise the numerator (assumption 1), then ``sqrt(mean b^2)/sqrt(mean a^2) = exp(u) >= 1`` with
    ``exp(u) - 1 = exp1(u) + exp1(-2u)/2 + (sum b^2 - sum a^2)/(2 sum b^2)`` (``exp(-2u) = sum a^2/sum b^2``)."""
    sa2, sb2 = sm(A_ ** 2, 1, N), sm(B_ ** 2, 1, N)
    half = q("1/2")
    ma, mb = _mean(A_), _mean(B_)
    ra, rb = rpow(_mean(A_ ** 2), half), rpow(_mean(B_ ** 2), half)
    lhs, mid, rhs = mb / rb, ma / rb, ma / ra
    u = half * (log(sb2) - log(sa2))
    st = statement([["n", "count"], ["a", "family_positive"], ["b", "family_positive"]],
                   [("angle: w*_1 >= w*_0", "<=", lhs, rhs, None)])
    st = _assume(st, ("<=", sa2, sb2), ("<=", sm(B_, 1, N), sm(A_, 1, N)))
    step1 = [["1", [["pos", E.lift(1 / (N * rb))], ["assume", 1]]]]
    step2 = [["1", [["pos", E.lift(ma / rb)], ["exp1", E.lift(u)]]],
             ["1/2", [["pos", E.lift(ma / rb)], ["exp1", E.lift(-2 * u)]]],
             ["1/2", [["pos", E.lift(ma / (rb * sb2))], ["assume", 0]]]]
    proof = _chain(lhs, {"rel": "<=", "expr": E.lift(mid), "by": "sos", "terms": step1},
                   {"rel": "<=", "expr": E.lift(rhs), "by": "sos", "terms": step2})
    return _cert("mean(F)/sqrt(mean(F^2)) at w*_1 >= at w*_0 (positive losses)", "003 Lemma 7", st,
                 {"angle: w*_1 >= w*_0": proof})


# ------------------------------------------------------------------------------------------ Lemma 10
QQ, P = v("q"), v("p")
LAM, FF = at("lam", IDX), at("F", IDX)


def young_certificate() -> dict[str, Any]:
    r"""Young: ``x y <= x^p/p + y^{q+1}/(q+1)`` for ``x, y, q > 0``, ``p = (q+1)/q`` (``1/p + 1/(q+1) = 1``).  With
    ``m = log x + log y``: ``x^p/p + y^r/r - x y = (xy/p) exp1(p log x - m) + (xy/r) exp1(r log y - m)
    + (1 - 1/p - 1/r)(xy m - xy)`` (``r = q + 1``), the last term zero by the assumption."""
    x, y = v("x"), v("y")
    r = QQ + 1
    lhs, rhs = x * y, rpow(x, P) / P + rpow(y, r) / r
    m = log(x) + log(y)
    st = _assume(statement([["q", "positive"], ["p", "positive"], ["x", "positive"], ["y", "positive"]],
                           [("Young", "<=", lhs, rhs, None)]), ("==", P, r / QQ))
    rep = _rep((1, [("pos", x * y / P), ("exp1", P * log(x) - m)]), (1, [("pos", x * y / r), ("exp1", r * log(y) - m)]))
    X = lhs + (x * y / P) * (exp(P * log(x) - m) - 1 - (P * log(x) - m)) \
        + (x * y / r) * (exp(r * log(y) - m) - 1 - (r * log(y) - m))
    # 1 - 1/p - 1/r = -(q/(p r)) ((q+1)/q - p): the residual of the assumption p = (q+1)/q
    proof = _chain(lhs, _link("<=", X, "sos", terms=rep), _assume_eq(rhs, (0, -(x * y * m - x * y) * QQ / (P * r))))
    return _cert("Young's inequality x y <= x^p/p + y^(q+1)/(q+1), 1/p + 1/(q+1) = 1", "003 Lemma 10 (proof)", st,
                 {"Young": proof})


def holder_certificate() -> dict[str, Any]:
    r"""003 Lemma 10 (Hoelder): ``sum lam_k F_k <= U V`` for ``U = ||lam||_p``, ``V = ||F||_{q+1}`` (assumed with
    their consequences ``U^p = sum lam^p``, ``V^{q+1} = sum F^{q+1}``), ``p = (q+1)/q``, ``lam_k, F_k > 0``.
    Young at ``(lam_k/U, F_k/V)`` for each ``k`` (the kernel's sum of non-negative terms), summed."""
    U, V, r = v("U"), v("V"), QQ + 1
    sl, sf = sm(rpow(LAM, P), 1, N), sm(rpow(FF, r), 1, N)
    lhs, rhs = sm(LAM * FF, 1, N), U * V
    st = statement([["q", "positive"], ["p", "positive"], ["n", "count"], ["lam", "family_positive"],
                    ["F", "family_positive"], ["U", "positive"], ["V", "positive"]],
                   [("Hoelder", "<=", lhs, rhs, None)])
    st = _assume(st, ("==", P, r / QQ), ("==", U, rpow(sl, 1 / P)), ("==", V, rpow(sf, 1 / r)),
                 ("==", rpow(U, P), sl), ("==", rpow(V, r), sf))
    m = log(LAM) - log(U) + log(FF) - log(V)
    A, B = P * (log(LAM) - log(U)), r * (log(FF) - log(V))
    gen = _sum_gen(1, N, (1, [("pos", LAM * FF / P), ("exp1", A - m)]), (1, [("pos", LAM * FF / r), ("exp1", B - m)]))
    body = LAM * FF + (LAM * FF / P) * (exp(A - m) - 1 - (A - m)) + (LAM * FF / r) * (exp(B - m) - 1 - (B - m))
    X = sm(body, 1, N)
    proof = _chain(lhs, {"rel": "<=", "expr": E.lift(X), "by": "sos", "terms": [["1", [gen]]]},
                   _assume_eq(rhs, (0, -(U * V - lhs + sm(LAM * FF * m, 1, N)) * QQ / (P * r)),
                              (3, -U * V / (P * rpow(U, P))), (4, -U * V / (r * rpow(V, r)))))
    return _cert("Hoelder: sum lam_k F_k <= ||lam||_p ||F||_(q+1), 1/p + 1/(q+1) = 1", "003 Lemma 10", st,
                 {"Hoelder": proof})


def dual_norm_certificate() -> dict[str, Any]:
    r"""003 Lemma 10, the dual-norm identity's maximiser: with ``V = ||F||_{q+1}`` (and ``V^{q+1} = sum F^{q+1}``) and
    ``nu_k = F_k^q/V^q``: ``sum nu_k^{(q+1)/q} = 1`` (``||nu||_p = 1``) and ``sum nu_k F_k = V``."""
    V, r = v("V"), QQ + 1
    sf = sm(rpow(FF, r), 1, N)
    nu = rpow(FF, QQ) / rpow(V, QQ)
    g1, g2 = sm(rpow(nu, r / QQ), 1, N), sm(nu * FF, 1, N)
    st = statement([["q", "positive"], ["n", "count"], ["F", "family_positive"], ["V", "positive"]],
                   [("||nu||_p^p = 1", "==", g1, q(1), None), ("nu . F = ||F||_(q+1)", "==", g2, V, None)])
    st = _assume(st, ("==", V, rpow(sf, 1 / r)), ("==", rpow(V, r), sf))
    return _cert("nu = F^q/||F||_(q+1)^q has ||nu||_p = 1 and nu . F = ||F||_(q+1)", "003 Lemma 10", st,
                 {"||nu||_p^p = 1": _chain(g1, _assume_eq(q(1), (1, -1 / rpow(V, r)))),
                  "nu . F = ||F||_(q+1)": _chain(g2, _assume_eq(V, (1, -1 / rpow(V, QQ))))})


def holder_q0_certificate() -> dict[str, Any]:
    r"""003 Lemma 10 at ``q = 0`` (``p = infinity``): ``sum lam_k F_k <= M sum F_k`` for ``0 <= lam_k <= M``,
    ``F_k >= 0`` (``M = max lam = ||lam||_inf`` allowed): ``M sum F - sum lam F = sum (M - lam_k) F_k``."""
    M = v("M")
    lhs, rhs = sm(LAM * FF, 1, N), M * sm(FF, 1, N)
    st = statement([["n", "count"], ["M", "nonnegative"], ["lam", "family_bounded", q(0), M], ["F", "family_nonnegative"]],
                   [("Hoelder q = 0", "<=", lhs, rhs, None)])
    gen = ["sum", E.lift(q(1)), E.lift(N), [["1", [["fhi", "lam"], ["pos", E.lift(FF)]]]]]
    return _cert("sum lam_k F_k <= ||lam||_inf ||F||_1 (q = 0)", "003 Lemma 10", st,
                 {"Hoelder q = 0": _chain(lhs, {"rel": "<=", "expr": E.lift(rhs), "by": "sos", "terms": [["1", [gen]]]})})


ALL_CERTIFICATES.update({"lemma6": lemma6_certificate, "lemma7": lemma7_certificate,
                         "lemma7_angle": lemma7_angle_certificate, "young": young_certificate,
                         "holder": holder_certificate, "dual_norm": dual_norm_certificate,
                         "holder_q0": holder_q0_certificate})


# ------------------------------------------------------------------------------------------ Lemma 8
def lemma8_statement_parts() -> tuple[Any, ...]:
    """``(S, H, D, s0, s1, defS, defH)`` of Lemma 8's statement: the scalars ``S`` and ``H`` are named by the
    equations ``defS``: ``S = sum F^q`` and ``defH``: ``H = -sum (F^q/S) ln(F^q/S)`` (the kernel has one level of
    sums), ``D = sum_k -(q/F_k) (F_k^q/S)(ln(F_k^q/S) + H) g_k`` (the chain rule, ``g_k = dF_k(w*_p)/dp``),
    ``s0 = sum F^{q-1} g``, ``s1 = sum F^{q-1} (1 + q ln F) g``."""
    F, g, S, H = FF, at("g", IDX), v("S"), v("H")
    pi = rpow(F, QQ) / S
    D = sm(-(QQ / F) * pi * (log(pi) + H) * g, 1, N)
    s0 = sm(rpow(F, QQ - 1) * g, 1, N)
    s1 = sm(rpow(F, QQ - 1) * (1 + QQ * log(F)) * g, 1, N)
    return S, H, D, s0, s1, ("==", S, sm(rpow(F, QQ), 1, N)), ("==", H, -sm(pi * log(pi), 1, N))


def lemma8_certificate() -> dict[str, Any]:
    r"""003 Lemma 8 in any dimension, the minimiser and its derivative modelled by what they satisfy: with
    ``W' = dw*_p/dp`` at ``p = q``, ``g_k = grad F_k(w*_q) . W'``, ``Q = W'^T (Hess sum F^q)(w*_q) W' >= 0``,
    stationarity ``sum F^{q-1} g = 0`` and the implicit-function identity ``Q + sum F^{q-1}(1 + q ln F) g = 0``
    (eq. 11 dotted with ``W'``; the seed's eq. 11 carries an extra factor ``p`` on its second sum):
    ``D = (q/S) Q >= 0``, since ``D - (q/S) Q = (q/S) r_1 - (q/S)(1 + ln S - H) r_0`` (``r_0``, ``r_1`` the residuals
    of the stationarity and implicit-function assumptions; the identity holds for any scalars ``S > 0`` and ``H``,
    whose defining equations give the statement its meaning)."""
    S, H, D, s0, s1, defS, defH = lemma8_statement_parts()
    Q = v("Q")
    st = statement([["q", "positive"], ["n", "count"], ["F", "family_positive"], ["g", "family_real"],
                    ["Q", "nonnegative"], ["S", "positive"], ["H", "real"]], [("dH/dp >= 0", "<=", q(0), D, None)])
    st = _assume(st, ("==", s0, q(0)), ("==", Q + s1, q(0)), defS, defH)
    X = QQ * Q / S
    proof = _chain(q(0), _link("<=", X, "sos", terms=_rep((1, [("pos", X)]))),
                   _assume_eq(D, (0, -(QQ / S) * (1 + log(S) - H)), (1, QQ / S)))
    return _cert("d/dp H(F^q(w*_p)) at p = q equals (q/S) W'^T Hess W' >= 0", "003 Lemma 8", st, {"dH/dp >= 0": proof})


ALL_CERTIFICATES["lemma8"] = lemma8_certificate


# ------------------------------------------------------------------------------------------ Sec. 3.2, q -> inf
def limits_statement_parts() -> tuple[Any, ...]:
    """``(r, f_q(a), f_q(c), goal lhs, goal rhs)``: ``r = q + 1``, the objective at ``w*_q`` written with client 1
    apart (``p_1 a_1^r + sum_{i=2}^n p_i a_i^r``), at ``w_AFL`` (``sum_i p_i c_i^r``), and the goal
    ``p_1 a_1^r <= C^r``."""
    r, p, a, c, C = QQ + 1, at("p", IDX), at("a", IDX), at("c", IDX), v("C")
    p1, a1 = at("p", q(1)), at("a", q(1))
    fa = p1 * rpow(a1, r) + sm(p * rpow(a, r), 2, N)
    fc = sm(p * rpow(c, r), 1, N)
    return r, fa, fc, p1 * rpow(a1, r), rpow(C, r)


def limits_sandwich_certificate() -> dict[str, Any]:
    r"""003 Sec. 3.2, ``q -> infinity``: for ``a = F(w*_q)`` (``w*_q`` minimises ``f_q``: ``f_q(a) <= f_q(c)``) and
    ``c = F(w_AFL)`` with ``C/(1 + s) <= c_i <= C`` for some ``s >= 0`` (every ``c_i`` in ``(0, C]``;
    ``C = AFL* = max_i c_i``), weights ``p_i > 0`` summing to 1:
    ``p_1 a_1^{q+1} <= C^{q+1}`` (client 1 stands for any client), i.e. ``F_j(w*_q) <= p_j^{-1/(q+1)} AFL*``.
    ``C^r - p_1 a_1^r = sum_{i>=2} p_i a_i^r + (f_q(c) - f_q(a)) + sum_i p_i (C^r - c_i^r) + C^r (1 - sum p)`` with
    ``C^r - c^r = c^r exp1(r(log C - log c)) + r c^r exp1(log c - log C) + (r c^r/C)(C - c)``."""
    r, fa, fc, lhs, rhs = limits_statement_parts()
    p, a, c, C = at("p", IDX), at("a", IDX), at("c", IDX), v("C")
    st = statement([["q", "nonnegative"], ["n", "count"], ["C", "positive"], ["s", "nonnegative"],
                    ["p", "family_positive"], ["a", "family_positive"], ["c", "family_bounded", C / (1 + v("s")), C]],
                   [("p_1 F_1(w*_q)^(q+1) <= AFL*^(q+1)", "<=", lhs, rhs, None)])
    st = _assume(st, ("==", sm(p, 1, N), q(1)), ("<=", fa, fc))
    u, w = r * (log(C) - log(c)), log(c) - log(C)
    cr = p * rpow(c, r)
    per_client = _sum_gen(1, N, (1, [("pos", cr), ("exp1", u)]), (1, [("pos", r * cr), ("exp1", w)]),
                          (1, [("pos", r * cr / C), ("fhi", "c")]))
    rest = ["sum", E.lift(q(2)), E.lift(N), _rep((1, [("pos", p * rpow(a, r))]))]
    terms = [["1", [rest]], ["1", [["assume", 1]]], ["1", [per_client]], ["1", [["pos", E.lift(rhs)], ["assume", 0]]]]
    proof = _chain(lhs, {"rel": "<=", "expr": E.lift(rhs), "by": "sos", "terms": terms})
    return _cert("p_j F_j(w*_q)^(q+1) <= AFL*^(q+1): max loss at w*_q <= p_min^(-1/(q+1)) AFL*", "003 Sec. 3.2", st,
                 {"p_1 F_1(w*_q)^(q+1) <= AFL*^(q+1)": proof})


ALL_CERTIFICATES["limits_sandwich"] = limits_sandwich_certificate


def lemma8_chain_rule_certificate() -> dict[str, Any]:
    r"""003 Lemma 8, the chain-rule expression its statement takes as ``dH/dp`` (:func:`lemma8_certificate`), checked
    by the kernel's derivative rules for three clients: with ``F_k(p)`` positive smooth functions (standing for
    ``p -> F_k(w*_p)``), ``S = sum F_k^q``, ``pi_k = F_k^q/S``, ``H = -sum pi_k ln pi_k``:
    ``dH/dp = sum_k -(q/F_k) pi_k (ln pi_k + H) F_k'(p)`` (identity of normal forms)."""
    p = v("p")
    Fs = [fn(f"F{k}", p) for k in (1, 2, 3)]
    S = rpow(Fs[0], QQ) + rpow(Fs[1], QQ) + rpow(Fs[2], QQ)
    pis = [rpow(F, QQ) / S for F in Fs]
    H = -(pis[0] * log(pis[0]) + pis[1] * log(pis[1]) + pis[2] * log(pis[2]))
    terms = [(-(QQ / F) * pi * (log(pi) + H)) * d(F, "p") for F, pi in zip(Fs, pis, strict=True)]
    lhs, rhs = d(H, "p"), terms[0] + terms[1] + terms[2]
    st = statement([["q", "positive"], ["p", "real"], ["F1", "function", 1], ["F2", "function", 1],
                    ["F3", "function", 1]], [("chain rule, n = 3", "==", lhs, rhs, None)])
    return _cert("dH(F^q)/dp = sum_k -(q/F_k) pi_k (ln pi_k + H) F_k' (three clients)", "003 Lemma 8", st,
                 {"chain rule, n = 3": _chain(lhs, _link("==", rhs, "identity"))})


ALL_CERTIFICATES["lemma8_chain_rule"] = lemma8_chain_rule_certificate


def limits_epsilon_certificate() -> dict[str, Any]:
    r"""003 Sec. 3.2, the limit ``q -> infinity`` in epsilon form: same setting as
    :func:`limits_sandwich_certificate`; for every ``eps > 0`` and every ``q`` with ``p_1 (1 + eps)^{q+1} >= 1``
    (i.e. ``q + 1 >= log(1/p_1)/log(1 + eps)``): ``F_1(w*_q) <= (1 + eps) AFL*``.  With ``b = (1 + eps) C``,
    ``b^r - a_1^r = (1 + eps)^r (C^r - p_1 a_1^r) + a_1^r (p_1 (1 + eps)^r - 1) >= 0`` (the sandwich's representation
    and the assumption), and the ``r``-th root is monotone by ``b - a = (a/(r b^r)) ((b^r - a^r) + b^r exp1(r (log a -
    log b)) + r b^r exp1(log b - log a))``."""
    r, fa, fc, _lhs, _rhs = limits_statement_parts()
    p, a, c, C, eps = at("p", IDX), at("a", IDX), at("c", IDX), v("C"), v("eps")
    p1, a1 = at("p", q(1)), at("a", q(1))
    b = (1 + eps) * C
    st = statement([["q", "nonnegative"], ["n", "count"], ["eps", "positive"], ["C", "positive"], ["s", "nonnegative"],
                    ["p", "family_positive"], ["a", "family_positive"], ["c", "family_bounded", C / (1 + v("s")), C]],
                   [("F_1(w*_q) <= (1 + eps) AFL*", "<=", a1, b, None)])
    st = _assume(st, ("==", sm(p, 1, N), q(1)), ("<=", fa, fc), ("<=", q(1), p1 * rpow(1 + eps, r)))
    u, w = log(c) - log(C), r * (log(C) - log(c))
    cr = p * rpow(c, r)
    per_client = _sum_gen(1, N, (1, [("pos", cr), ("exp1", w)]), (1, [("pos", r * cr), ("exp1", u)]),
                          (1, [("pos", r * cr / C), ("fhi", "c")]))
    rest = ["sum", E.lift(q(2)), E.lift(N), _rep((1, [("pos", p * rpow(a, r))]))]
    br = rpow(b, r)
    W1 = a1 * rpow(1 + eps, r) / (r * br)
    terms = [["1", [["pos", E.lift(W1)], rest]], ["1", [["pos", E.lift(W1)], ["assume", 1]]],
             ["1", [["pos", E.lift(W1)], per_client]], ["1", [["pos", E.lift(W1 * rpow(C, r))], ["assume", 0]]],
             ["1", [["pos", E.lift(a1 * rpow(a1, r) / (r * br))], ["assume", 2]]],
             ["1", [["pos", E.lift(a1 / r)], ["exp1", E.lift(r * (log(a1) - log(b)))]]],
             ["1", [["pos", E.lift(a1)], ["exp1", E.lift(log(b) - log(a1))]]]]
    proof = _chain(a1, {"rel": "<=", "expr": E.lift(b), "by": "sos", "terms": terms})
    return _cert("F_j(w*_q) <= (1 + eps) AFL* once p_j (1 + eps)^(q+1) >= 1: the limit q -> infinity", "003 Sec. 3.2",
                 st, {"F_1(w*_q) <= (1 + eps) AFL*": proof})


ALL_CERTIFICATES["limits_epsilon"] = limits_epsilon_certificate
