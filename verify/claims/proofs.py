r"""Symbolic proofs (``"symbolic"`` certificates, the kernel :mod:`fairtheory_kernel.symbolic`) of the analytic
lemmas: softplus smoothness, 002 Prop. 1, 002 Lemma 2, 002 Lemma C.1 and 003 Lemma 12.

Each claim declares its statement in structured form, written here independently of the certificate makers
(terms built with :class:`fairtheory.proofs.symbolic.E`): the symbols with their domains and ranges, and the goals.
The claim builds its certificate (:mod:`fairtheory.proofs.symbolic`, untrusted), requires the certificate's
statement to imply the declared one (the kernel's ``implies``: the same declarations, every declared goal among the
certificate's; a certificate of another statement, e.g. with narrowed ranges, ends ``error``), re-checks it with
:func:`fairtheory_kernel.check.check_proof`, and evaluates the library's float implementation at the tight point
next to the proved constant.  ``proved`` only when all hold.  The declared statements are also handed to the runner
(``@claim(..., proves=...)``, collected in :data:`DECLARED`).  See docs/proofs.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from verify.core import ROUNDING, Context, Outcome, claim
from verify.settle import settle_symbolic


def _settle(certs: Any, declared: Any, **kw: Any) -> Outcome:
    """:func:`verify.settle.settle_symbolic` naming docs/proofs.md."""
    return settle_symbolic(certs, declared, docs="docs/proofs.md", **kw)


# ---------------------------------------------------------------------------------- declared statements


def _sp(z: Any, mu: Any) -> Any:
    from fairtheory.proofs.symbolic import exp as ex
    from fairtheory.proofs.symbolic import log

    return mu * log(1 + ex(z / mu))


def _statement_softplus() -> dict[str, Any]:
    """002 Sec. 4: for all ``mu > 0``, real ``x``: ``softplus_mu''(x) <= 1/(4 mu)`` (equality at ``x = 0``) and
    ``0 <= softplus_mu''(x)``."""
    from fairtheory.proofs.symbolic import d, q, statement, v

    mu, x = v("mu"), v("x")
    d2 = d(_sp(x, mu), "x", "x")
    return statement([["mu", "positive"], ["x", "real"]],
                     [("upper", "<=", d2, 1 / (4 * mu), {"x": q(0)}), ("convex", "<=", q(0), d2, None)])


def _statement_prop1() -> dict[str, Any]:
    """002 Prop. 1: for all ``mu > 0``, real ``x``: ``0 <= softplus_mu(x) - (x)_+ <= mu log 2``, equality at ``x = 0``."""
    from fairtheory.proofs.symbolic import log, mx, q, statement, v

    mu, x = v("mu"), v("x")
    gap = _sp(x, mu) - mx(x, 0)
    return statement([["mu", "positive"], ["x", "real"]],
                     [("gap <= mu log 2", "<=", gap, mu * log(2), {"x": q(0)}), ("gap >= 0", "<=", q(0), gap, None)])


def _statement_lemma2() -> dict[str, Any]:
    """002 Lemma 2: for all ``mu > 0``, real ``eta``, ``n >= 1``, ``p_i, alpha_i > 0``, real ``f_i``:
    ``0 <= F^mu_alpha - F_alpha <= mu tau_alpha log 2``, equality when every ``f_i = eta``."""
    from fairtheory.proofs.symbolic import IDX, at, log, mx, q, sm, statement, v

    mu, eta, n = v("mu"), v("eta"), v("n")
    p, a, xi = at("p", IDX), at("alpha", IDX), at("f", IDX) - v("eta")
    diff = sm(p * (_sp(xi, mu) / a + eta), 1, n) - sm(p * (mx(xi, 0) / a + eta), 1, n)
    tau = sm(p / a, 1, n)
    return statement([["mu", "positive"], ["eta", "real"], ["n", "count"], ["p", "family_positive"],
                      ["alpha", "family_positive"], ["f", "family_real"]],
                     [("F^mu - F <= mu tau_alpha log 2", "<=", diff, mu * tau * log(2), {"f": eta}),
                      ("F^mu - F >= 0", "<=", q(0), diff, None)])


def _statement_lemma_c1() -> dict[str, Any]:
    """002 Lemma C.1.  Scalar ``w``, generic positive smooth ``f``: the three Hessian entries of
    ``f^{mu,i}(w, eta) = softplus_mu(f(w) - eta)/alpha + eta``.  For ``s in [0, 1]``, ``g in [-L2, L2]``,
    ``h in [-L1, L1]`` (standing for ``sigma((f - eta)/mu)``, ``f'(w)``, ``f''(w)``) and ``u = (u1, u0)``:
    ``|form| <= (L1 + (L2^2+1)/(4 mu))/alpha |u|^2`` and that constant ``<=`` the paper's.  Any dimension:
    ``U = |u|^2 >= 0``, ``G = |grad f|^2 in [0, L2^2]``, ``a = (gt.u)^2 in [0, (G + 1) U]`` (Cauchy-Schwarz),
    ``k = u_w^T hess f u_w in [-L1 U, L1 U]`` (curvature bound) - hypotheses, not derived."""
    from fairtheory.proofs.symbolic import d, exp, fn, q, statement, v

    mu, al, L1, L2, w, eta = v("mu"), v("alpha"), v("L1"), v("L2"), v("w"), v("eta")
    f = fn("f", w)
    fmu = _sp(f - eta, mu) / al + eta
    sw = 1 / (1 + exp(-(f - eta) / mu))
    curv = sw * (1 - sw) / mu
    f1, f2 = d(f, "w"), d(f, "w", "w")
    s, g, h, u1, u0, U, G, A, K = (v(k) for k in ("s", "g", "h", "u1", "u0", "U", "G", "a", "k"))
    form = (s * (1 - s) / mu * (g * u1 - u0) ** 2 + s * h * u1 ** 2) / al
    nu = u1 ** 2 + u0 ** 2
    tight = (L1 + (L2 ** 2 + 1) / (4 * mu)) / al
    paper = (L1 + (L2 ** 2 + 1) / mu) / al
    form_d = (s * (1 - s) / mu * A + s * K) / al
    symbols = [["mu", "positive"], ["alpha", "positive"], ["L1", "nonnegative"], ["L2", "nonnegative"], ["w", "real"],
               ["eta", "real"], ["f", "function", 1], ["s", "bounded", q(0), q(1)], ["g", "bounded", -L2, L2],
               ["h", "bounded", -L1, L1], ["u1", "real"], ["u0", "real"], ["U", "nonnegative"],
               ["G", "bounded", q(0), L2 ** 2], ["a", "bounded", q(0), (G + 1) * U], ["k", "bounded", -L1 * U, L1 * U]]
    return statement(symbols, [
        ("Hessian ww", "==", d(fmu, "w", "w"), (curv * f1 ** 2 + sw * f2) / al, None),
        ("Hessian w eta", "==", d(fmu, "w", "eta"), -curv * f1 / al, None),
        ("Hessian eta eta", "==", d(fmu, "eta", "eta"), curv / al, None),
        ("form <= tight L |u|^2", "<=", form, tight * nu, None),
        ("form >= -tight L |u|^2", "<=", -tight * nu, form, None),
        ("tight L <= paper L", "<=", tight, paper, None),
        ("any d: form <= tight L |u|^2", "<=", form_d, tight * U, None),
        ("any d: form >= -tight L |u|^2", "<=", -tight * U, form_d, None)])


def _statement_lemma12() -> dict[str, Any]:
    """003 Lemma 12.  ``w in R^2``, generic positive smooth ``f``, ``q >= 0``: the three Hessian entries of
    ``f^{q+1}/(q+1)``.  For ``F > 0``, ``L >= 0``, ``g in R^2``, ``u in R^2``, ``h in [-L, L]`` (standing for
    ``u^T hess f u/|u|^2``): ``|q F^{q-1}(g.u)^2 + F^q h |u|^2| <= (L F^q + q F^{q-1}|g|^2)|u|^2``.  Any
    dimension: ``G, U >= 0``, ``a = (g.u)^2 in [0, G U]`` (Cauchy-Schwarz) and ``k in [-L U, L U]`` - hypotheses."""
    from fairtheory.proofs.symbolic import d, fn, q, rpow, statement, v

    qq = v("q")
    f = fn("f", v("w1"), v("w2"))
    obj = rpow(f, qq + 1) / (qq + 1)
    goals: list[Any] = []
    for x, y, name in (("w1", "w1", "11"), ("w1", "w2", "12"), ("w2", "w2", "22")):
        goals.append((f"Hessian {name}", "==", d(obj, x, y),
                      qq * rpow(f, qq - 1) * d(f, x) * d(f, y) + rpow(f, qq) * d(f, x, y), None))
    F, L = v("F"), v("L")
    g1, g2, u1, u2, h, G, U, A, K = (v(k) for k in ("g1", "g2", "u1", "u2", "h", "G", "U", "a", "k"))
    gu, nu, ng = g1 * u1 + g2 * u2, u1 ** 2 + u2 ** 2, g1 ** 2 + g2 ** 2
    c, Fq = qq * rpow(F, qq - 1), rpow(F, qq)
    form, Lq = c * gu ** 2 + Fq * h * nu, L * Fq + c * ng
    form_d, Lq_d = c * A + Fq * K, L * Fq + c * G
    goals += [("form <= L_q |u|^2", "<=", form, Lq * nu, None), ("form >= -L_q |u|^2", "<=", -Lq * nu, form, None),
              ("any d: form <= L_q |u|^2", "<=", form_d, Lq_d * U, None),
              ("any d: form >= -L_q |u|^2", "<=", -Lq_d * U, form_d, None)]
    symbols = [["q", "nonnegative"], ["w1", "real"], ["w2", "real"], ["f", "function", 2], ["F", "positive"],
               ["L", "nonnegative"], ["g1", "real"], ["g2", "real"], ["u1", "real"], ["u2", "real"], ["h", "bounded", -L, L],
               ["G", "nonnegative"], ["U", "nonnegative"], ["a", "bounded", q(0), G * U], ["k", "bounded", -L * U, L * U]]
    return statement(symbols, goals)


# ------------------------------------------------------------------------------------------------ claims


@claim("proofs.rcfl.softplus.smoothness", citation="002 Sec. 4",
       statement="0 <= softplus_mu''(x) <= 1/(4 mu) for all real x and mu > 0, equality at x = 0 (symbolic proof)",
       expected="proved", proves=_statement_softplus)
def softplus_smoothness(ctx: Context) -> Outcome:
    """``softplus_mu'' = s(1-s)/mu`` and ``1/(4 mu) - s(1-s)/mu = (s - 1/2)^2/mu``: the seed's ``1/mu`` is loose by 4."""
    import numpy as np

    from fairtheory.proofs.symbolic import softplus_smoothness_certificate
    from fairtheory.stable import softplus

    h = 1e-4  # library check: mu softplus_mu''(0) by a central second difference at mu = 1
    fd = float((softplus(np.array([h])) - 2 * softplus(np.array([0.0])) + softplus(np.array([-h])))[0] / h ** 2)
    return _settle(softplus_smoothness_certificate(), _statement_softplus(), measured=0.25, bound=1.0, relation="<=",
                   explain="measured = mu max_x softplus_mu''(x) = 1/4 (proved, attained at x = 0), bound = 1 (the seed's 1/mu)",
                   details={"library mu softplus''(0), finite differences at mu = 1": fd})


@claim("proofs.rcfl.prop1.softplus", citation="002 Prop. 1",
       statement="(x)_+ <= softplus_mu(x) <= (x)_+ + mu log 2 for all real x, mu > 0, equality at x = 0 (symbolic proof)",
       expected="proved", proves=_statement_prop1)
def prop1(ctx: Context) -> Outcome:
    """Cases ``x >= 0`` / ``x <= 0``: the gap is ``mu log(1 + exp(-|x|/mu))`` and ``exp(-|x|/mu) <= 1``."""
    import numpy as np

    from fairtheory.proofs.symbolic import prop1_certificate
    from fairtheory.stable import softplus

    lib = float(softplus(np.array([0.0]), mu=1.0)[0])
    return _settle(prop1_certificate(), _statement_prop1(), measured=math.log(2), bound=1.0, relation="<=",
                   explain="measured = max_x (softplus_mu(x) - (x)_+)/mu = log 2 (proved, at x = 0), bound = 1 (the paper's mu)",
                   details={"library softplus_1(0) - log 2": lib - math.log(2)})


@claim("proofs.rcfl.lemma2.gap", citation="002 Lemma 2",
       statement="F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha log 2 for any n, p, alpha > 0, f, eta, mu > 0; "
                 "equality when every f_i = eta (symbolic proof)",
       expected="proved", proves=_statement_lemma2)
def lemma2(ctx: Context) -> Outcome:
    """Prop. 1 applied to ``x_i = f_i - eta`` and summed with weights ``p_i/alpha_i`` (symbolic ``n``)."""
    from fairtheory.objectives.qalpha import F_alpha, F_mu, tau_alpha
    from fairtheory.proofs.symbolic import lemma2_certificate

    pv, av, fv = [0.5, 0.3, 0.2], [0.5, 0.6, 1.0], [1.0, 1.0, 1.0]
    lib = (F_mu(fv, 1.0, pv, av, 0.5) - F_alpha(fv, 1.0, pv, av)) / (0.5 * tau_alpha(pv, av) * math.log(2))
    return _settle(lemma2_certificate(), _statement_lemma2(), measured=math.log(2), bound=1.0, relation="<=",
                   explain="measured = max (F^mu - F)/(mu tau_alpha) = log 2 (proved, all f_i = eta), bound = 1 (the paper's)",
                   details={"library (F^mu - F)/(mu tau log 2) at f_i = eta": lib})


@claim("proofs.rcfl.lemmaC1.smoothness", citation="002 Lemma C.1",
       statement="Hessian of f^{mu,i}(w, eta) = (1/alpha)[s(1-s)/mu gt gt^T + s diag(hess f, 0)] for scalar w (identities); "
                 "|u^T Hess u| <= (1/alpha)(L1 + (L2^2+1)/(4 mu))|u|^2 <= (1/alpha)(L1 + (L2^2+1)/mu)|u|^2 for s in [0, 1], "
                 "|f'| <= L2, |f''| <= L1, and in any dimension under the declared ranges |grad f|^2 <= L2^2, "
                 "(gt.u)^2 <= (|grad f|^2+1)|u|^2 (Cauchy-Schwarz) and |u^T hess f u| <= L1|u|^2 (curvature bound), "
                 "taken as hypotheses (symbolic proof)",
       expected="proved", proves=_statement_lemma_c1)
def lemma_c1(ctx: Context) -> Outcome:
    """The Hessian identities (scalar ``w``) and the quadratic-form bound for a direction ``u``; the sum
    ``F^mu = sum_i p_i f^{mu,i}`` with ``sum p_i = 1`` keeps the largest constant (``max_i 1/alpha_i``)."""
    from fairtheory.bounds.rcfl import lemma_c1_L
    from fairtheory.proofs.symbolic import lemma_c1_certificate

    L1, L2, mu, al = 1.0, 2.0, 0.5, 0.5
    tight = (L1 + (L2 ** 2 + 1) / (4 * mu)) / al
    lib = lemma_c1_L(1.0, 2.0, 0.5, [0.5, 1.0])  # (1 + 5/0.5)/0.5 = 22
    return _settle(lemma_c1_certificate(), _statement_lemma_c1(), measured=tight, bound=lib, relation="<=",
                   explain="at L1 = 1, L2 = 2, mu = 1/2, min alpha = 1/2: measured = proved constant "
                           "(L1 + (L2^2+1)/(4 mu))/alpha, bound = the paper's L (fairtheory.bounds.rcfl.lemma_c1_L)",
                   details={"tight constant": "(L1 + (L2^2 + 1)/(4 mu)) max_i 1/alpha_i"})


@claim("proofs.qffl.lemma12.lipschitz", citation="003 Lemma 12",
       statement="Hessian of f^{q+1}/(q+1) = q f^{q-1} grad f grad f^T + f^q hess f and its spectral norm "
                 "<= L f^q + q f^{q-1} |grad f|^2 for f > 0, q >= 0, |hess f| <= L (symbolic proof; Hessian identity "
                 "in R^2, norm bound in R^2 by Lagrange's identity and in any dimension given Cauchy-Schwarz "
                 "(g.u)^2 <= |g|^2 |u|^2 and |u^T hess f u| <= L |u|^2 as declared ranges)",
       expected="proved", proves=_statement_lemma12)
def lemma12(ctx: Context) -> Outcome:
    """Hessian identities for a generic positive ``f(w1, w2)``; the quadratic form bounded both ways with
    Lagrange's identity in dimension 2, and in any dimension from ``(g.u)^2 in [0, |g|^2 |u|^2]`` (Cauchy-Schwarz)
    and ``u^T hess f u in [-L |u|^2, L |u|^2]`` declared as ranges."""
    import numpy as np

    from fairtheory.objectives.qffl import lipschitz_estimate
    from fairtheory.proofs.symbolic import lemma12_certificate

    q, F, L, G = 2.0, 2.0, 1.5, 3.0
    want = L * F ** q + q * F ** (q - 1) * G  # the proved L_q(w) at F = 2, |grad F|^2 = 3, L = 3/2, q = 2
    lib = float(np.asarray(lipschitz_estimate(np.array([2.0]), np.array([3.0]), 1.5, 2.0)).ravel()[0])
    return _settle(lemma12_certificate(), _statement_lemma12(),
                   measured=lib, bound=want, relation="==", error=abs(lib - want) / want, tolerance=ROUNDING,
                   explain="measured = library lipschitz_estimate at F = 2, |grad F|^2 = 3, L = 3/2, q = 2; bound = the "
                           "proved L_q(w) = L F^q + q F^{q-1} |grad F|^2 there (= 18)",
                   details={"library minus proved": lib - want})


# ------------------------------------------------------------------------------ closed-form discovery


def _rho0_exact(point: dict[str, Any], value: Any, quick: bool = False) -> bool:
    """``value`` is the exact worst case at this rational point: a ``pep-dual`` certificate with bound ``value``
    (re-checked; in quick mode the one shipped with the package when its statement is this one,
    :func:`fairtheory.proofs.shipped.shipped_or_search`) and the 1-D Huber instance attaining ``value``
    (verify.claims.proofs_pep)."""
    from fairtheory.proofs.certificate import certify_exact
    from fairtheory.proofs.shipped import shipped_or_search
    from fairtheory_kernel.check import check_proof
    from verify.claims.proofs_pep import huber_instance_value, rho0_statement

    k, T, b = int(point["kappa"]), int(point["T_N"]), point["beta"]

    def search() -> dict[str, Any] | None:
        c = certify_exact(rho0_statement(k, T, b), value)
        return None if c is None else c.to_json()

    cert = shipped_or_search("proofs.fit.localgd_rho0", search, quick=quick, declared=rho0_statement(k, T, b, value))
    return cert is not None and check_proof(cert) and huber_instance_value(k, T, b) == value


def _declare_fit(ctx: Context) -> list[dict[str, Any]]:
    from verify.claims.proofs_pep import FIT_PAIRS, rho0_family_statement

    return [rho0_family_statement(k, T) for k, T in FIT_PAIRS]


@claim("proofs.fit.localgd_rho0", citation="002 Alg. 1 (local GD, 002 output), worst case at rho = 0",
       statement="fit_closed_form recovers a rational formula of (beta, kappa, T_N) from float PEP worst cases "
                 "(L = D0 = 1, rho2 = 0), exact on held-out rational points (certificate + attaining instance); the "
                 "fitted formula is then proved for every beta L in [0, 1/2] at the fit's (kappa, T_N) with "
                 "kappa T_N <= 8 (parametric certificates)",
       expected="proved", proves=_declare_fit)
def fit_rho0(ctx: Context) -> Outcome:
    """Closed-form discovery (:func:`fairtheory.proofs.fit.fit_closed_form`) on the PEP values of
    :func:`fairtheory.worstcase.local_gd.local_gd_worst_case` over a grid; the proposed formula is then
    checked *exactly* at every held-out point by an exact ``pep-dual`` upper certificate whose bound is
    the formula's value and the Huber instance whose value equals it.  ``proved`` (at those rational
    points, certificates attached) only when every held-out point is confirmed; else ``verified`` with
    the held-out error."""
    import functools
    import itertools
    from fractions import Fraction

    from fairtheory.proofs.fit import fit_closed_form
    from fairtheory.worstcase.local_gd import local_gd_worst_case

    betas = [Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)] + ([] if ctx.quick else [Fraction(3, 8)])
    pts, vals = [], []
    for b, k, T in itertools.product(betas, (1, 2, 3), (1, 2, 3)):
        pts.append({"beta": b, "kappa": k, "T_N": T})
        vals.append(local_gd_worst_case(n=2, kappa=k, T_N=T, lr=float(b), L=1.0, D0=1.0, rho2=0.0, output="average",
                                        bracket=False).value)  # floats to fit; the fit is then proved exactly
    res = fit_closed_form(pts, vals, names=["beta", "kappa", "T_N"], max_degree=3, seed=ctx.seed,
                          exact=functools.partial(_rho0_exact, quick=ctx.quick))
    details = {"formula": str(res.expression), "degrees": res.degrees, "heldout_error": res.heldout_error,
               "train_error": res.train_error, "points": len(pts), "heldout": res.n_heldout,
               "exact_points": [{k: str(v) for k, v in pt.items()} | {"value": str(fv), "confirmed": ok}
                                for pt, fv, ok in res.exact]}
    explain = "measured = max relative error of the fitted formula on held-out PEP values, bound = fit tolerance 1e-5"
    if not res.found:
        return Outcome(status="inconclusive", measured=res.heldout_error, bound=1e-5, relation="<=", explain=explain,
                       details=details, note="no rational function of degree <= 3 fits the PEP values")
    k = sum(ok for *_, ok in res.exact)
    # discover, then prove: the fitted formula must equal the closed form the parametric certificates prove
    import sympy as sp

    from verify.claims.proofs_pep import FAMILY_RANGE, FIT_PAIRS, prove_rho0_families

    bq, kq, tq = sp.symbols("beta kappa T_N")
    fitted = sp.sympify(str(res.expression), locals={"beta": bq, "kappa": kq, "T_N": tq})
    same = sp.simplify(fitted - 1 / (2 + 2 * bq * (kq * tq + 2))) == 0
    certs, rows = prove_rho0_families(FIT_PAIRS, claim="proofs.fit.localgd_rho0", quick=ctx.quick) if same else ([], [])
    details |= {"fit_equals_closed_form": bool(same), "parametric": rows}
    proved = same and len(certs) == len(FIT_PAIRS) and k == len(res.exact)
    note = (f"fitted {res.expression}; exact at {k} of {len(res.exact)} held-out points (pep-dual upper certificate = "
            "formula and Huber instance = formula); "
            + (f"proved for every beta L in [{FAMILY_RANGE[0]}, {FAMILY_RANGE[1]}] at {len(certs)} of {len(FIT_PAIRS)} "
               "(kappa, T_N) pairs of the fit (pep-family certificates)" if same else
               "the fitted formula differs from the closed form the parametric certificates prove: stays verified"))
    if proved:
        return Outcome(status="proved", measured=res.heldout_error, bound=1e-5, relation="<=", explain=explain,
                       details=details, instances=len(pts), note=note, certificate=certs)
    return Outcome(status="verified", measured=res.heldout_error, bound=1e-5, relation="<=", explain=explain,
                   details=details, instances=len(pts), note=note)


@claim("proofs.fit.localgd_D0zero", citation="002 Alg. 1 (local GD, 002 output), worst case at D0 = 0",
       statement="closed-form discovery on the heterogeneity-only worst case (D0 = 0, rho2 = 1): report whether a "
                 "rational function of (beta, kappa, T_N) of degree <= 3 fits (held-out error)",
       expected="inconclusive")
def fit_d0zero(ctx: Context) -> Outcome:
    """The drift term alone (``D0 = 0``, ``rho2 = 1``, ``kappa >= 2``; at ``kappa = 1`` it is 0).  A finding, not a
    theorem: ``inconclusive`` when no rational function of the allowed degree fits, ``verified`` if one does."""
    import itertools
    from fractions import Fraction

    from fairtheory.proofs.fit import fit_closed_form
    from fairtheory.worstcase.local_gd import local_gd_worst_case

    betas = [Fraction(1, 16), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2)] + ([] if ctx.quick else [Fraction(3, 8)])
    pts, vals = [], []
    for b, k, T in itertools.product(betas, (2, 3, 4), (1, 2) if ctx.quick else (1, 2, 3)):
        pts.append({"beta": b, "kappa": k, "T_N": T})
        vals.append(local_gd_worst_case(n=2, kappa=k, T_N=T, lr=float(b), L=1.0, D0=0.0, rho2=1.0, output="average",
                                        bracket=False).value)  # floats to fit (the finding is that none fits)
    res = fit_closed_form(pts, vals, names=["beta", "kappa", "T_N"], max_degree=3, seed=ctx.seed)
    details = {"formula": str(res.expression), "best_degrees": res.degrees, "heldout_error": res.heldout_error,
               "candidates_tried": res.tried, "points": len(pts)}
    explain = "measured = held-out relative error of the best rational fit (degree <= 3), bound = fit tolerance 1e-5"
    if res.found:
        return Outcome(status="verified", measured=res.heldout_error, bound=1e-5, relation="<=", explain=explain,
                       details=details, instances=len(pts), note=f"fitted {res.expression}")
    return Outcome(status="inconclusive", measured=res.heldout_error, bound=1e-5, relation="<=", explain=explain,
                   details=details, instances=len(pts),
                   note="no rational function of (beta, kappa, T_N) of degree <= 3 fits the D0 = 0 worst cases")


#: each symbolic claim's declared statement (a no-argument function returning the statement dict), by claim id
DECLARED: dict[str, Callable[[], dict[str, Any]]] = {
    "proofs.rcfl.softplus.smoothness": _statement_softplus, "proofs.rcfl.prop1.softplus": _statement_prop1,
    "proofs.rcfl.lemma2.gap": _statement_lemma2, "proofs.rcfl.lemmaC1.smoothness": _statement_lemma_c1,
    "proofs.qffl.lemma12.lipschitz": _statement_lemma12}
