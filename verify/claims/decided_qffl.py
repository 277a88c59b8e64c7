r"""Decided q-FFL claims (seed 003): symbolic proofs (``"symbolic"`` certificates, kernel
:mod:`fairtheory_kernel.symbolic`) of Alg. 1's reduction, the q = 0 objective, Lemmas 6, 7 and 10.

As in :mod:`verify.claims.proofs`: each claim declares its statement here, written independently of the certificate
makers (:mod:`fairtheory.proofs.seed_qffl`, untrusted); a claim ends ``proved`` only when every certificate's
statement implies the declared one (:func:`fairtheory_kernel.symbolic.implies`) and re-checks
(:func:`fairtheory_kernel.check.check_proof`).  The library's float implementation is evaluated next to it (the second
route).  Exact minimisers enter only through the optimality inequalities they satisfy, declared as assumptions; what
each statement covers, and what it does not, is in its ``statement`` text and in docs/decided/qffl.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verify.core import ROUNDING, Context, Outcome, claim
from verify.settle import settle_symbolic


def _settle(certs: Any, declared: Any, **kw: Any) -> Outcome:
    """:func:`verify.settle.settle_symbolic` naming docs/decided/qffl.md (the numeric route must agree)."""
    return settle_symbolic(certs, declared, docs="docs/decided/qffl.md", check_numeric=True, **kw)


# ---------------------------------------------------------------------------------- declared statements
def _terms() -> Any:
    from fairtheory.proofs import symbolic as s

    return s


def _with(st: dict[str, Any], *rels: tuple[str, Any, Any]) -> dict[str, Any]:
    from fairtheory.proofs.symbolic import E

    return {**st, "assume": [{"rel": r, "lhs": E.lift(a), "rhs": E.lift(b)} for r, a, b in rels]}


def statement_reduction() -> dict[str, Any]:
    """003 Alg. 1, ``q = 0``: for every ``n >= 1``, ``L > 0``, model coordinate ``w``, weights ``p_k > 0``, losses
    ``F_k > 0``, gradient coordinates ``g_k`` and ``N_k = ||Delta w_k||^2 >= 0``: with ``wbar_k = w - g_k/L`` (one
    full-batch step of size ``1/L``) and ``Delta w_k = L (w - wbar_k)``, the q-FedAvg update
    ``w - sum_k p_k F_k^0 Delta w_k / sum_k p_k (0 F_k^{0-1} N_k + L F_k^0)`` equals ``w - (1/L) sum p_k g_k/sum p_k``."""
    s = _terms()
    i, n, L, w = s.IDX, s.v("n"), s.v("L"), s.v("w")
    p, F, g, Nk = s.at("p", i), s.at("F", i), s.at("g", i), s.at("N", i)
    zero = s.q(0)
    wbar = w - g / L
    delta_w = L * (w - wbar)
    Delta = s.rpow(F, zero) * delta_w
    h = zero * s.rpow(F, zero - 1) * Nk + L * s.rpow(F, zero)
    update = w - s.sm(p * Delta, 1, n) / s.sm(p * h, 1, n)
    sgd = w - (1 / L) * (s.sm(p * g, 1, n) / s.sm(p, 1, n))
    return s.statement([["n", "count"], ["L", "positive"], ["w", "real"], ["p", "family_positive"],
                        ["F", "family_positive"], ["g", "family_real"], ["N", "family_nonnegative"]],
                       [("q-FedAvg(q=0, one step) = FedSGD(1/L)", "==", update, sgd, None)])


def statement_limits_q0() -> dict[str, Any]:
    """003 eq. (2) at ``q = 0``: ``sum_k p_k F_k^{0+1}/(0+1) = sum_k p_k F_k`` for every ``n``, ``p_k > 0``, ``F_k > 0``."""
    s = _terms()
    p, F, n, zero = s.at("p", s.IDX), s.at("F", s.IDX), s.v("n"), s.q(0)
    return s.statement([["n", "count"], ["p", "family_positive"], ["F", "family_positive"]],
                       [("f_0 = FedAvg objective", "==", s.sm(p * s.rpow(F, zero + 1) / (zero + 1), 1, n),
                         s.sm(p * F, 1, n), None)])

def statement_limits_sandwich() -> dict[str, Any]:
    """003 Sec. 3.2, ``q -> infinity``: for every ``q >= 0``, ``n``, weights ``p_i > 0`` with ``sum p = 1``, losses
    ``a_i = F_i(w*_q) > 0`` and ``c_i = F_i(w_AFL)`` with ``C/(1 + s) <= c_i <= C`` (``s >= 0`` any: every ``c_i``
    in ``(0, C]``; ``C = AFL* = max c``),
    ``w*_q`` entering through its optimality ``f_q(a) <= f_q(c)`` (``f_q`` written with client 1 apart):
    ``p_1 a_1^{q+1} <= C^{q+1}`` (client 1 stands for any client)."""
    s = _terms()
    i, n, qq, C = s.IDX, s.v("n"), s.v("q"), s.v("C")
    p, a, c = s.at("p", i), s.at("a", i), s.at("c", i)
    one = s.q(1)
    head = s.at("p", one) * s.rpow(s.at("a", one), qq + 1)
    st = s.statement([["q", "nonnegative"], ["n", "count"], ["C", "positive"], ["s", "nonnegative"],
                      ["p", "family_positive"], ["a", "family_positive"], ["c", "family_bounded", C / (1 + s.v("s")), C]],
                     [("p_1 F_1(w*_q)^(q+1) <= AFL*^(q+1)", "<=", head, s.rpow(C, qq + 1), None)])
    return _with(st, ("==", s.sm(p, 1, n), one),
                 ("<=", head + s.sm(p * s.rpow(a, qq + 1), 2, n), s.sm(p * s.rpow(c, qq + 1), 1, n)))


def statement_limits_epsilon() -> dict[str, Any]:
    """003 Sec. 3.2, the limit in epsilon form: the setting of :func:`statement_limits_sandwich` with ``eps > 0`` and
    the assumption ``1 <= p_1 (1 + eps)^{q+1}`` (``q + 1 >= log(1/p_1)/log(1 + eps)``): ``a_1 <= (1 + eps) C``, i.e.
    ``F_j(w*_q) <= (1 + eps) AFL*`` for every client ``j`` once ``q`` is that large."""
    s = _terms()
    i, n, qq, C, eps = s.IDX, s.v("n"), s.v("q"), s.v("C"), s.v("eps")
    p, a, c = s.at("p", i), s.at("a", i), s.at("c", i)
    one = s.q(1)
    p1, a1 = s.at("p", one), s.at("a", one)
    st = s.statement([["q", "nonnegative"], ["n", "count"], ["eps", "positive"], ["C", "positive"], ["s", "nonnegative"],
                      ["p", "family_positive"], ["a", "family_positive"], ["c", "family_bounded", C / (1 + s.v("s")), C]],
                     [("F_1(w*_q) <= (1 + eps) AFL*", "<=", a1, (1 + eps) * C, None)])
    return _with(st, ("==", s.sm(p, 1, n), one),
                 ("<=", p1 * s.rpow(a1, qq + 1) + s.sm(p * s.rpow(a, qq + 1), 2, n), s.sm(p * s.rpow(c, qq + 1), 1, n)),
                 ("<=", one, p1 * s.rpow(1 + eps, qq + 1)))



def statement_limits() -> list[dict[str, Any]]:
    """The statements of ``proofs.qffl.limits.sandwich``: :func:`statement_limits_q0`, :func:`statement_limits_sandwich`,
    :func:`statement_limits_epsilon`."""
    return [statement_limits_q0(), statement_limits_sandwich(), statement_limits_epsilon()]


def _uniform(goal: tuple[str, str, Any, Any, None], positive: bool = False) -> dict[str, Any]:
    s = _terms()
    a, b, n = s.at("a", s.IDX), s.at("b", s.IDX), s.v("n")
    kind = "family_positive" if positive else "family_nonnegative"
    st = s.statement([["n", "count"], ["a", kind], ["b", kind]], [goal])
    return _with(st, ("<=", s.sm(a ** 2, 1, n), s.sm(b ** 2, 1, n)), ("<=", s.sm(b, 1, n), s.sm(a, 1, n)))


def statement_lemma6() -> dict[str, Any]:
    """003 Lemma 6: for every ``n``, ``a_k, b_k >= 0`` (``a = F(w*_1)``, ``b = F(w*_0)``) with ``sum a^2 <= sum b^2``
    (``w*_1`` minimises the mean square) and ``sum b <= sum a`` (``w*_0`` minimises the mean):
    ``mean(a^2) - mean(a)^2 <= mean(b^2) - mean(b)^2``."""
    s = _terms()
    a, b, n = s.at("a", s.IDX), s.at("b", s.IDX), s.v("n")

    def var(x: Any) -> Any:
        return s.sm(x ** 2, 1, n) / n - (s.sm(x, 1, n) / n) ** 2

    return _uniform(("Var F(w*_1) <= Var F(w*_0)", "<=", var(a), var(b), None))


def statement_lemma7() -> list[dict[str, Any]]:
    """003 Lemma 7, same setting: (i) for ``a_k, b_k >= 0``: ``mean(b)^2 mean(a^2) <= mean(a)^2 mean(b^2)`` (the
    squared angle criterion, cross-multiplied: equivalent to it wherever the angle is defined, i.e. both vectors
    non-zero); (ii) for ``a_k, b_k > 0`` literally: ``mean(b)/sqrt(mean(b^2)) <= mean(a)/sqrt(mean(a^2))``."""
    s = _terms()
    a, b, n, half = s.at("a", s.IDX), s.at("b", s.IDX), s.v("n"), s.q("1/2")

    def mean(x: Any) -> Any:
        return s.sm(x, 1, n) / n

    cross = _uniform(("cos^2 angle: w*_1 >= w*_0", "<=", mean(b) ** 2 * mean(a ** 2), mean(a) ** 2 * mean(b ** 2), None))
    literal = _uniform(("angle: w*_1 >= w*_0", "<=", mean(b) / s.rpow(mean(b ** 2), half),
                        mean(a) / s.rpow(mean(a ** 2), half), None), positive=True)
    return [cross, literal]


def statement_lemma10() -> list[dict[str, Any]]:
    """003 Lemma 10.  (i) Hoelder, ``q > 0``: for every ``n``, ``p = (q+1)/q`` (``1/p + 1/(q+1) = 1``),
    ``lam_k > 0``, ``F_k > 0``, ``U = ||lam||_p``, ``V = ||F||_{q+1}`` (each with its consequence ``U^p = sum lam^p``,
    ``V^{q+1} = sum F^{q+1}``): ``sum lam_k F_k <= U V``.  (ii) ``q = 0`` (``p = inf``): ``0 <= lam_k <= M``, ``F_k >= 0``:
    ``sum lam_k F_k <= M sum F_k``.  (iii) the dual-norm maximiser, ``q > 0``, ``F_k > 0``, ``V = ||F||_{q+1}`` (with
    its consequence ``V^{q+1} = sum F^{q+1}``), ``nu_k = F_k^q/V^q``: ``sum nu_k^{(q+1)/q} = 1`` and
    ``sum nu_k F_k = V``."""
    s = _terms()
    i, n, qq, pp = s.IDX, s.v("n"), s.v("q"), s.v("p")
    lam, F, U, V, M = s.at("lam", i), s.at("F", i), s.v("U"), s.v("V"), s.v("M")
    holder = s.statement([["q", "positive"], ["p", "positive"], ["n", "count"], ["lam", "family_positive"],
                          ["F", "family_positive"], ["U", "positive"], ["V", "positive"]],
                         [("Hoelder", "<=", s.sm(lam * F, 1, n), U * V, None)])
    lam_p, f_r = s.sm(s.rpow(lam, pp), 1, n), s.sm(s.rpow(F, qq + 1), 1, n)
    holder = _with(holder, ("==", pp, (qq + 1) / qq), ("==", U, s.rpow(lam_p, 1 / pp)), ("==", V, s.rpow(f_r, 1 / (qq + 1))),
                   ("==", s.rpow(U, pp), lam_p), ("==", s.rpow(V, qq + 1), f_r))
    q0 = s.statement([["n", "count"], ["M", "nonnegative"], ["lam", "family_bounded", s.q(0), M],
                      ["F", "family_nonnegative"]],
                     [("Hoelder q = 0", "<=", s.sm(lam * F, 1, n), M * s.sm(F, 1, n), None)])
    nu = s.rpow(F, qq) / s.rpow(V, qq)
    dual = s.statement([["q", "positive"], ["n", "count"], ["F", "family_positive"], ["V", "positive"]],
                       [("||nu||_p^p = 1", "==", s.sm(s.rpow(nu, (qq + 1) / qq), 1, n), s.q(1), None),
                        ("nu . F = ||F||_(q+1)", "==", s.sm(nu * F, 1, n), V, None)])
    f_r = s.sm(s.rpow(F, qq + 1), 1, n)
    dual = _with(dual, ("==", V, s.rpow(f_r, 1 / (qq + 1))), ("==", s.rpow(V, qq + 1), f_r))
    return [holder, q0, dual]


def statement_lemma8() -> dict[str, Any]:
    """003 Lemma 8, any dimension, ``q > 0``, every ``n``, ``F_k > 0`` (the losses at ``w*_q``, the minimiser of
    ``sum F^p`` at ``p = q``), ``g_k`` real (``grad F_k(w*_q) . W'``, ``W' = dw*_p/dp`` at ``p = q``), ``Q >= 0``
    (``W'^T Hess(sum F^q)(w*_q) W'``: the Hessian at a minimiser is positive semidefinite), ``S = sum F^q``,
    ``H = -sum (F^q/S) ln(F^q/S)``; assumptions: stationarity ``sum F^{q-1} g = 0`` and the implicit-function identity
    ``Q + sum F^{q-1} (1 + q ln F) g = 0``.  Goal: ``0 <= sum_k -(q/F_k)(F_k^q/S)(ln(F_k^q/S) + H) g_k`` (the chain
    rule for ``dH/dp``)."""
    s = _terms()
    i, n, qq, S, H, Q = s.IDX, s.v("n"), s.v("q"), s.v("S"), s.v("H"), s.v("Q")
    F, g = s.at("F", i), s.at("g", i)
    share = s.rpow(F, qq) / S
    dHdp = s.sm(-(qq / F) * share * (s.log(share) + H) * g, 1, n)
    st = s.statement([["q", "positive"], ["n", "count"], ["F", "family_positive"], ["g", "family_real"],
                      ["Q", "nonnegative"], ["S", "positive"], ["H", "real"]], [("dH/dp >= 0", "<=", s.q(0), dHdp, None)])
    return _with(st, ("==", s.sm(s.rpow(F, qq - 1) * g, 1, n), s.q(0)),
                 ("==", Q + s.sm(s.rpow(F, qq - 1) * (1 + qq * s.log(F)) * g, 1, n), s.q(0)),
                 ("==", S, s.sm(s.rpow(F, qq), 1, n)), ("==", H, -s.sm(share * s.log(share), 1, n)))


def statement_lemma8_chain_rule() -> dict[str, Any]:
    """003 Lemma 8's chain-rule expression, three clients: for ``q > 0``, real ``p`` and positive smooth ``F1, F2, F3``
    of ``p``: ``d/dp H(F(p)^q) = sum_k -(q/F_k)(F_k^q/S)(ln(F_k^q/S) + H) F_k'(p)``, ``S = sum F_k^q``,
    ``H = -sum (F_k^q/S) ln(F_k^q/S)``."""
    s = _terms()
    qq, p = s.v("q"), s.v("p")
    F1, F2, F3 = (s.fn(name, p) for name in ("F1", "F2", "F3"))
    total = s.rpow(F1, qq) + s.rpow(F2, qq) + s.rpow(F3, qq)
    shares = [s.rpow(F, qq) / total for F in (F1, F2, F3)]
    H = -(shares[0] * s.log(shares[0]) + shares[1] * s.log(shares[1]) + shares[2] * s.log(shares[2]))
    parts = [(-(qq / F) * sh * (s.log(sh) + H)) * s.d(F, "p") for F, sh in zip((F1, F2, F3), shares, strict=True)]
    return s.statement([["q", "positive"], ["p", "real"], ["F1", "function", 1], ["F2", "function", 1],
                        ["F3", "function", 1]],
                       [("chain rule, n = 3", "==", s.d(H, "p"), parts[0] + parts[1] + parts[2], None)])


def statement_lemma8_all() -> list[dict[str, Any]]:
    """The statements of ``proofs.qffl.lemma8.entropy_sign``: :func:`statement_lemma8`, :func:`statement_lemma8_chain_rule`."""
    return [statement_lemma8(), statement_lemma8_chain_rule()]


# ------------------------------------------------------------------------------------------------ claims


@claim("proofs.qffl.qfedavg.reduction", citation="003 Alg. 1",
       statement="q = 0, one full-batch local step of size 1/L, Delta w_k = L (w - wbar_k): the q-FedAvg update equals "
                 "w - (1/L) sum p_k grad F_k / sum p_k, coordinate-wise, for every n, weights, losses F_k > 0 and "
                 "gradients (symbolic proof)",
       expected="proved", proves=statement_reduction)
def reduction(ctx: Context) -> Outcome:
    """Identity of normal forms; next to it the library's q-FedAvg round against the FedSGD formula on one instance."""
    import numpy as np

    from fairtheory.instances import qffl as inst
    from fairtheory.proofs.seed_qffl import reduction_certificate

    P = inst.random_convex_instance(np.random.default_rng([ctx.seed, 42]), 4, 3)
    r = inst.reduction(problem=P, w=np.ones(P.d), lr=0.25, K=None)
    err = abs(r.measured - r.theory) / max(abs(r.theory), r.extra["scale"])
    return _settle([reduction_certificate()], [statement_reduction()], measured=r.measured, bound=r.theory,
                   relation="==", error=err, tolerance=ROUNDING,
                   explain="measured = library q-FedAvg (q = 0, one local step, lr 1/4) at its worst coordinate, "
                           "bound = the FedSGD step there (the proved identity)",
                   details={"relative difference": err})


@claim("proofs.qffl.limits.sandwich", citation="003 Sec. 3.2",
       statement="f_0 = sum p_k F_k^(0+1)/(0+1) is the FedAvg objective sum p_k F_k (every n, p_k, F_k > 0); for every "
                 "q >= 0, n, weights summing to 1, losses > 0: p_j F_j(w*_q)^(q+1) <= AFL*^(q+1) for each client j, "
                 "and for every eps > 0, F_j(w*_q) <= (1 + eps) AFL* once p_j (1 + eps)^(q+1) >= 1, w*_q entering "
                 "through f_q(F(w*_q)) <= f_q(F(w_AFL)) (symbolic proofs; with AFL* <= max_j F_j(w*_q), the definition "
                 "of AFL*, the limit; zero losses not covered: qffl.limits itself stays verified)",
       expected="proved", proves=statement_limits)
def limits(ctx: Context) -> Outcome:
    """The identity at ``q = 0``; the sandwich from ``C^r - p_1 a_1^r`` written as a sum of non-negative terms
    (``C^r - c_i^r >= 0`` from ``exp u >= 1 + u``); the epsilon form adds the monotone ``r``-th root.  Next to it
    the library's ``max_k F_k(w*_q)`` against ``p_min^{-1/(q+1)} AFL*`` on one instance at ``q = 5``."""
    import numpy as np

    from fairtheory.instances import qffl as inst
    from fairtheory.proofs.seed_qffl import limits_epsilon_certificate, limits_q0_certificate, limits_sandwich_certificate

    P = inst.random_convex_instance(np.random.default_rng([ctx.seed, 43]), 4, 2)
    r0 = inst.q0_is_fedavg(problem=P, w=np.zeros(P.d))
    r = inst.limits(problem=P, q=5.0)
    return _settle([limits_q0_certificate(), limits_sandwich_certificate(), limits_epsilon_certificate()],
                   statement_limits(), measured=r.measured, bound=r.theory,
                   relation="<=",
                   explain="measured = max_k F_k(w*_5) (exact minimiser), bound = p_min^(-1/6) AFL* on one instance",
                   details={"AFL*": r.extra["afl"], "library f_0 - sum p F at w = 0": r0.measured - r0.theory})


def _uniformity_instance(ctx: Context, salt: int) -> Any:
    import numpy as np

    from fairtheory.instances import qffl as inst

    return inst.random_convex_instance(np.random.default_rng([ctx.seed, salt]), 5, 2)


@claim("proofs.qffl.lemma6.variance", citation="003 Lemma 6",
       statement="Var F(w*_1) <= Var F(w*_0) for every n and losses F_k >= 0, the exact minimisers entering through "
                 "their optimality inequalities sum F(w*_1)^2 <= sum F(w*_0)^2 and sum F(w*_0) <= sum F(w*_1) "
                 "(symbolic proof; non-strict - the seed's strict form needs w*_1 != w*_0)",
       expected="proved", proves=statement_lemma6)
def lemma6(ctx: Context) -> Outcome:
    """``Var(b) - Var(a) = (sum b^2 - sum a^2)/n + (sum a - sum b)(sum a + sum b)/n^2``."""
    from fairtheory.instances import qffl as inst
    from fairtheory.proofs.seed_qffl import lemma6_certificate

    r = inst.lemma6(problem=_uniformity_instance(ctx, 6))
    return _settle([lemma6_certificate()], [statement_lemma6()], measured=r.measured, bound=r.theory, relation="<=",
                   explain="measured = Var F(w*_1), bound = Var F(w*_0) on one quadratic instance (exact minimisers)",
                   details={})


@claim("proofs.qffl.lemma7.angle", citation="003 Lemma 7",
       statement="mean F / sqrt(mean F^2) at w*_1 >= at w*_0 for every n, same optimality inequalities as Lemma 6: "
                 "squared and cross-multiplied for F_k >= 0 (equivalent wherever the angle is defined), literally "
                 "for F_k > 0 (symbolic proofs)",
       expected="proved", proves=statement_lemma7)
def lemma7(ctx: Context) -> Outcome:
    """Cross-multiplied: ``(sum a)^2 (sum b^2 - sum a^2) + sum a^2 (sum a - sum b)(sum a + sum b) >= 0``; literal:
    raise the numerator, then ``sqrt(mean b^2)/sqrt(mean a^2) >= 1`` from ``exp u >= 1 + u``."""
    from fairtheory.instances import qffl as inst
    from fairtheory.proofs.seed_qffl import lemma7_angle_certificate, lemma7_certificate

    r = inst.lemma7(problem=_uniformity_instance(ctx, 7))
    return _settle([lemma7_certificate(), lemma7_angle_certificate()], statement_lemma7(), measured=r.measured,
                   bound=r.theory, relation=">=",
                   explain="measured = cos(F(w*_1), 1), bound = cos(F(w*_0), 1) on one quadratic instance", details={})


@claim("proofs.qffl.lemma10.holder_positive", citation="003 Lemma 10",
       statement="Hoelder sum lam_k F_k <= ||lam||_p ||F||_(q+1), 1/p + 1/(q+1) = 1, for every n, q > 0 and "
                 "lam_k, F_k > 0, and for q = 0 (p = inf) with lam_k, F_k >= 0; the dual-norm maximiser "
                 "nu = F^q/||F||_(q+1)^q has ||nu||_p = 1 and nu . F = ||F||_(q+1) (symbolic proofs; zero entries "
                 "at q > 0 are not covered: qffl.lemma10.holder itself stays verified)",
       expected="proved", proves=statement_lemma10)
def lemma10(ctx: Context) -> Outcome:
    """Young's inequality from ``exp u >= 1 + u`` at ``(lam_k/U, F_k/V)``, summed (sum of non-negative terms)."""
    import numpy as np

    from fairtheory.instances import qffl as inst
    from fairtheory.proofs.seed_qffl import dual_norm_certificate, holder_certificate, holder_q0_certificate

    F, lam = np.array([1.0, 2.0, 4.0]), np.array([0.5, 0.25, 0.25])
    r = inst.lemma10(F=F, lam=lam, q=2.0)
    return _settle([holder_certificate(), holder_q0_certificate(), dual_norm_certificate()], statement_lemma10(),
                   measured=r.measured, bound=r.theory, relation="<=",
                   explain="measured = lam . F, bound = ||lam||_p ||F||_3 at F = (1, 2, 4), lam = (1/2, 1/4, 1/4), q = 2",
                   details={"library nu . F at the maximiser minus ||F||_3": r.extra["dual_closed_form"] - r.extra["norm"]})


@claim("proofs.qffl.lemma8.entropy_sign", citation="003 Lemma 8",
       statement="d/dp H(F^q(w*_p)) at p = q >= 0 for every n, q > 0, F_k > 0, in any dimension, w*_p the minimiser of "
                 "sum F^p: the derivative dw*/dp enters through stationarity and the implicit-function identity "
                 "(eq. 11 dotted with dw*/dp) it satisfies, the Hessian of sum F^q at w*_q through W'^T Hess W' >= 0, "
                 "dH/dp through the chain rule (symbolic proof: it equals (q/S) W'^T Hess W'; the chain-rule "
                 "expression itself checked by the kernel's derivative rules for n = 3 only, so for other n the "
                 "derivative's closed form is a hypothesis and qffl.lemma8.entropy stays undecided)",
       expected="proved", proves=statement_lemma8_all)
def lemma8(ctx: Context) -> Outcome:
    """``D - (q/S) Q`` is a combination of the stationarity and implicit-function residuals; next to it the library's
    central finite difference between exact minimisers on one quadratic instance."""
    from fairtheory.instances import qffl as inst
    from fairtheory.proofs.seed_qffl import lemma8_certificate, lemma8_chain_rule_certificate

    r = inst.lemma8(problem=_uniformity_instance(ctx, 8), q=2.0)
    return _settle([lemma8_certificate(), lemma8_chain_rule_certificate()],
                   [statement_lemma8(), statement_lemma8_chain_rule()], measured=r.measured, bound=0.0, relation=">=",
                   explain="measured = d/dp H(F^2(w*_p)) at p = 2 by central differences between exact minimisers on "
                           "one quadratic instance, bound = 0",
                   details={"implicit-function derivative": r.extra["ift"]})


#: each claim's declared statement(s), by claim id
DECLARED: dict[str, Callable[[], Any]] = {
    "proofs.qffl.qfedavg.reduction": statement_reduction, "proofs.qffl.limits.sandwich": statement_limits,
    "proofs.qffl.lemma6.variance": statement_lemma6, "proofs.qffl.lemma7.angle": statement_lemma7,
    "proofs.qffl.lemma8.entropy_sign": statement_lemma8_all, "proofs.qffl.lemma10.holder_positive": statement_lemma10}
