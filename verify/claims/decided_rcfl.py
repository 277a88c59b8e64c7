r"""RC-FL / FAFL seed claims decided exactly: ``proofs.rcfl.*`` claims with ``"symbolic"`` certificates (000 / 002
deviation, 002 Lemma 1 both equalities, the greedy closed form and the limits of Def. 1 / Sec. 3.1 through the split
form of a sorted instance, Remark 1, convexity of ``f_alpha``, Remark 2; and, as parts, Lemma 1's weak duality and
matching point, the FedAvg limit alone) and the statement the exact refutation of the
literal 002 Def. 2 refutes (:func:`statement_conditional`, declared by ``rcfl.lemma1.hcvar_conditional``).

Each claim declares its statement here, written independently of the certificate makers in
:mod:`fairtheory.proofs.seed_rcfl` (terms built with :class:`fairtheory.proofs.symbolic.E`), requires the
certificate's statement to imply it (the kernel's ``implies``), re-checks the certificate with
:func:`fairtheory_kernel.check.check_proof`, and evaluates the library's float implementation on a rational
instance beside it (a second route: a disagreement is a kernel or library bug).  Notation: ``c_i = p_i/alpha_i``,
``tau_alpha = sum_i c_i``, ``G(f, eta) = eta + sum_{i=1}^n c_i (f_i - eta)_+`` (002 Lemma 1), whose infimum over
``eta`` is ``f_alpha`` and, in the RU reading, ``HCVaR``.  The paper's domain ``alpha_i in [p_i, 1]``, ``alpha_i >
0``, ``sum p = 1`` is declared ``e/(1 + e) <= alpha_i <= 1`` (some ``e > 0``), ``0 <= p_i <= alpha_i`` and an
assumption; ``t = tau_alpha`` is a symbol with an assumption (a sum body may not contain a sum).  Derivations:
docs/decided/rcfl.md.

What the kernel statements contain and what follows from them by one step of the definition of an infimum or a
supremum (stated in each claim's line): a pointwise identity ``A(eta) = B(eta)`` for every ``eta`` gives ``inf A =
inf B``; a shift identity ``G(f - m, eta - m) = G(f, eta) - m`` gives ``inf_eta G(f - m, .) = inf_eta G(f, .) - m``;
a bound ``L <= G(f, eta)`` for every ``eta``, with equality at one ``eta``, gives ``inf_eta G = L``; a bound for every
``q in Q_alpha`` gives the bound for the supremum; and (Lemma 1, closed form, limits) the split-form reduction
(:data:`SPLIT_REDUCTION`): the value is invariant under permuting the clients, and every instance sorted by loss has
the split form the kernel statements quantify over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verify.core import ROUNDING, Context, Outcome, claim
from verify.settle import settle_symbolic


def _settle(certs: Any, declared: Any, **kw: Any) -> Outcome:
    """:func:`verify.settle.settle_symbolic` naming docs/decided/rcfl.md."""
    return settle_symbolic(certs, declared, docs="docs/decided/rcfl.md", **kw)


# ---------------------------------------------------------------------------------- declared statements
def _clients() -> list[list[Any]]:
    return [["n", "count"], ["p", "family_positive"], ["alpha", "family_positive"]]


def _g(fi: Any, eta: Any, cap: Any = None) -> Any:
    """``eta + sum_{i=1}^n cap_i (fi - eta)_+`` with ``cap_i = p_i/alpha_i`` unless given."""
    from fairtheory.proofs.symbolic import IDX, at, mx, sm, v

    c = at("p", IDX) / at("alpha", IDX) if cap is None else cap
    return eta + sm(c * mx(fi - eta, 0), 1, v("n"))


def statement_translation() -> dict[str, Any]:
    """For every ``n >= 1``, ``p_i >= 0``, ``alpha_i > 0``, real ``f_i``, ``eta``, ``m``:
    ``G(f - m, eta - m) = G(f, eta) - m``."""
    from fairtheory.proofs.symbolic import IDX, at, statement, v

    f, eta, m = at("f", IDX), v("eta"), v("m")
    return statement([["n", "count"], ["p", "family_nonnegative"], ["alpha", "family_positive"], ["f", "family_real"],
                      ["eta", "real"], ["m", "real"]],
                     [("G(f - m, eta - m) = G(f, eta) - m", "==", _g(f - m, eta - m), _g(f, eta) - m, None)])


def _paper_domain(*more: list[Any]) -> list[list[Any]]:
    """``n >= 1``, ``alpha_i in (0, 1]`` (as ``e/(1 + e) <= alpha_i <= 1`` for some ``e > 0``), ``0 <= p_i <=
    alpha_i``, then ``more``: with :func:`_paper_assumptions` the paper's whole domain of ``(p, alpha)``."""
    from fairtheory.proofs.symbolic import IDX, at, q, v

    e = v("e")
    return [["n", "count"], ["e", "positive"], ["alpha", "family_bounded", e / (1 + e), q(1)],
            ["p", "family_bounded", q(0), at("alpha", IDX)], *more]


def _paper_assumptions() -> list[dict[str, Any]]:
    """``sum_i p_i = 1`` and ``t = tau_alpha = sum_i p_i/alpha_i`` (``t`` names ``tau_alpha`` inside sum bodies)."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, v

    return [{"rel": "==", "lhs": sm(at("p", IDX), 1, v("n")).t, "rhs": q(1).t},
            {"rel": "==", "lhs": v("t").t, "rhs": sm(at("p", IDX) / at("alpha", IDX), 1, v("n")).t}]


def statement_deviation_sign() -> dict[str, Any]:
    """On the paper's whole domain (:func:`_paper_domain`), real ``f_i``, ``k``, ``eta``: ``E_pi f <= G(f, eta)``
    (``pi_i = p_i/(alpha_i t)``), ``k <= G(k, eta)``, ``G(k, k) = k`` and ``E_pi k = k``."""
    from fairtheory.proofs.symbolic import IDX, at, sm, statement, v

    n, t, k, eta, f = v("n"), v("t"), v("k"), v("eta"), at("f", IDX)
    pi = at("p", IDX) / (at("alpha", IDX) * t)
    st = statement(_paper_domain(["f", "family_real"], ["t", "positive"], ["k", "real"], ["eta", "real"]),
                   [("E_pi f <= G(f, eta)", "<=", sm(pi * f, 1, n), _g(f, eta), None),
                    ("k <= G(k, eta)", "<=", k, _g(k, eta), None), ("G(k, k) = k", "==", _g(k, k), k, None),
                    ("E_pi k = k", "==", sm(pi * k, 1, n), k, None)])
    st["assume"] = _paper_assumptions()
    return st


def declared_deviation() -> list[dict[str, Any]]:
    return [statement_translation(), statement_deviation_sign()]


def statement_hcvar_ru() -> dict[str, Any]:
    """On the paper's whole domain, real ``f_i``, ``eta``: with ``pi_i = p_i/(alpha_i t)``, ``t = tau_alpha``,
    ``beta = 1 - 1/t``: ``eta + (1/(1 - beta)) sum_i pi_i (f_i - eta)_+ = G(f, eta)``."""
    from fairtheory.proofs.symbolic import IDX, at, mx, sm, statement, v

    f, eta, n, t = at("f", IDX), v("eta"), v("n"), v("t")
    pi = at("p", IDX) / (at("alpha", IDX) * t)
    ru = eta + (1 / (1 - (1 - 1 / t))) * sm(pi * mx(f - eta, 0), 1, n)
    st = statement(_paper_domain(["f", "family_real"], ["t", "positive"], ["eta", "real"]),
                   [("RU objective under pi at beta = G", "==", ru, _g(f, eta), None)])
    st["assume"] = _paper_assumptions()
    return st


def statement_remark1() -> dict[str, Any]:
    """For every ``n``, ``chi > 0``, ``p_i >= 0`` with ``sum p = 1``, real ``f_i``, ``eta``, ``t = sum_i p_i/chi``
    (``tau_alpha`` at ``alpha_i = chi``): the HCVaR RU objective ``eta + (1/(1 - beta)) sum_i (p_i/(chi t))
    (f_i - eta)_+`` (``beta = 1 - 1/t``) equals the ``CVaR_{1-chi}`` objective ``eta + (1/chi) sum_i p_i (f_i - eta)_+``."""
    from fairtheory.proofs.symbolic import IDX, at, mx, q, sm, statement, v

    f, eta, n, chi, p, t = at("f", IDX), v("eta"), v("n"), v("chi"), at("p", IDX), v("t")
    hc = eta + (1 / (1 - (1 - 1 / t))) * sm(p / (chi * t) * mx(f - eta, 0), 1, n)
    cvar = eta + (1 / chi) * sm(p * mx(f - eta, 0), 1, n)
    st = statement([["n", "count"], ["chi", "positive"], ["p", "family_nonnegative"], ["f", "family_real"],
                    ["t", "positive"], ["eta", "real"]],
                   [("HCVaR objective at alpha = chi = CVaR_{1-chi} objective", "==", hc, cvar, None)])
    st["assume"] = [{"rel": "==", "lhs": sm(p, 1, n).t, "rhs": q(1).t}, {"rel": "==", "lhs": t.t, "rhs": sm(p / chi, 1, n).t}]
    return st


def statement_conditional() -> dict[str, Any]:
    """002 Def. 2 literal + Lemma 1 on ``n = 2``, ``f1 < f2 = f1 + delta``, ``tau_alpha = 1 + s`` (``beta > 0``),
    ``p2/alpha2 = 1 - r`` (``beta < pi_1``), ``p1 + p2 = 1``, ``alpha_i in [p_i, 1]``: every ``beta``-quantile of
    ``f`` under ``pi`` is ``f1``, the literal conditional mean ``E_pi[f | f > Q] = f2``, and Lemma 1 would give
    ``f2 = inf_eta G(f, eta) <= G(f, eta)`` for every real ``eta``."""
    from fairtheory.proofs.symbolic import mx, q, statement, v

    p1, p2, a1, a2, f1, f2, d, s, r, eta = (v(x) for x in ("p1", "p2", "alpha1", "alpha2", "f1", "f2", "delta", "s",
                                                             "r", "eta"))
    c1, c2 = p1 / a1, p2 / a2
    st = statement([["p1", "positive"], ["p2", "positive"], ["alpha1", "positive"], ["alpha2", "positive"],
                    ["f1", "real"], ["delta", "positive"], ["f2", "real"], ["s", "positive"], ["r", "positive"],
                    ["eta", "real"]],
                   [("literal HCVaR f2 <= G(f, eta)", "<=", f2, eta + c1 * mx(f1 - eta, 0) + c2 * mx(f2 - eta, 0), None)])
    rel = [("==", p1 + p2, q(1)), ("<=", p1, a1), ("<=", a1, q(1)), ("<=", p2, a2), ("<=", a2, q(1)),
           ("==", f1 + d, f2), ("==", c1 + c2, 1 + s), ("==", c2 + r, q(1))]
    st["assume"] = [{"rel": x, "lhs": a.t, "rhs": b.t} for x, a, b in rel]
    return st


def _dual(cs: bool) -> dict[str, Any]:
    """On the paper's domain with real ``f_i``, ``0 <= q_i <= 1/alpha_i``, real ``eta``, ``sum p = 1`` and ``sum_i q_i
    p_i = 1`` (``q in Q_alpha``): weak duality ``sum_i q_i p_i f_i <= G(f, eta)``; with ``cs``, under complementary
    slackness ``sum_i p_i [(1/alpha_i - q_i)(f_i - eta)_+ + q_i (eta - f_i)_+] = 0``: ``G(f, eta) <= sum_i q_i p_i f_i``."""
    from fairtheory.proofs.symbolic import IDX, at, mx, q, sm, statement, v

    n, eta, f, p, a, qq = v("n"), v("eta"), at("f", IDX), at("p", IDX), at("alpha", IDX), at("q", IDX)
    e = v("e")
    symbols = [["n", "count"], ["e", "positive"], ["alpha", "family_bounded", e / (1 + e), q(1)],
               ["p", "family_bounded", q(0), a], ["f", "family_real"], ["q", "family_bounded", q(0), 1 / a],
               ["eta", "real"]]
    primal = sm(qq * p * f, 1, n)
    goal = ("G(f, eta) <= sum q_i p_i f_i", "<=", _g(f, eta), primal, None) if cs else \
        ("sum q_i p_i f_i <= G(f, eta)", "<=", primal, _g(f, eta), None)
    st = statement(symbols, [goal])
    st["assume"] = [{"rel": "==", "lhs": sm(p, 1, n).t, "rhs": q(1).t}, {"rel": "==", "lhs": sm(qq * p, 1, n).t, "rhs": q(1).t}]
    if cs:
        slack = sm(p * ((1 / a - qq) * mx(f - eta, 0) + qq * mx(eta - f, 0)), 1, n)
        st["assume"].append({"rel": "==", "lhs": slack.t, "rhs": q(0).t})
    return st


def declared_dual() -> list[dict[str, Any]]:
    return [_dual(False), _dual(True)]


def statement_convex() -> dict[str, Any]:
    """On the paper's domain, ``q in Q_alpha`` (``0 <= q_i <= 1/alpha_i``, ``sum_i q_i p_i = 1``), ``lam in [0, 1]``,
    real ``fa_i``, ``fb_i`` and ``fl_i <= lam fa_i + (1 - lam) fb_i`` (client convexity; written ``fl_i in [mid_i - g_i,
    mid_i]`` with ``g_i >= 0``): ``sum_i q_i p_i fl_i <= lam sum_i q_i p_i fa_i + (1 - lam) sum_i q_i p_i fb_i``."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, lam, e = v("n"), v("lam"), v("e")
    a, p, qq, fa, fb, fl = (at(x, IDX) for x in ("alpha", "p", "q", "fa", "fb", "fl"))
    mid = lam * fa + (1 - lam) * fb
    symbols = [["n", "count"], ["e", "positive"], ["alpha", "family_bounded", e / (1 + e), q(1)],
               ["p", "family_bounded", q(0), a], ["q", "family_bounded", q(0), 1 / a], ["lam", "bounded", q(0), q(1)],
               ["fa", "family_real"], ["fb", "family_real"], ["g", "family_nonnegative"],
               ["fl", "family_bounded", mid - at("g", IDX), mid]]
    st = statement(symbols, [("f_alpha convex: sum q p f(lam a + (1-lam) b) <= lam ... + (1-lam) ...", "<=",
                              sm(qq * p * fl, 1, n), lam * sm(qq * p * fa, 1, n) + (1 - lam) * sm(qq * p * fb, 1, n),
                              None)])
    st["assume"] = [{"rel": "==", "lhs": sm(p, 1, n).t, "rhs": q(1).t}, {"rel": "==", "lhs": sm(qq * p, 1, n).t,
                                                                          "rhs": q(1).t}]
    return st


def statement_remark2() -> dict[str, Any]:
    """On the paper's domain, ``B >= 0``, ``0 <= f_i <= B``, real ``eta1 <= 0`` and ``eta2 >= B``:
    ``G(f, 0) <= G(f, eta1)`` and ``G(f, B) <= G(f, eta2)``."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, B, e1, e2, f, e = v("n"), v("B"), v("eta1"), v("eta2"), at("f", IDX), v("e")
    symbols = [["n", "count"], ["e", "positive"], ["alpha", "family_bounded", e / (1 + e), q(1)],
               ["p", "family_bounded", q(0), at("alpha", IDX)], ["B", "nonnegative"], ["f", "family_bounded", q(0), B],
               ["eta1", "real"], ["eta2", "real"]]
    st = statement(symbols, [("G(f, 0) <= G(f, eta1) for eta1 <= 0", "<=", _g(f, q(0)), _g(f, e1), None),
                             ("G(f, B) <= G(f, eta2) for eta2 >= B", "<=", _g(f, B), _g(f, e2), None)])
    st["assume"] = [{"rel": "==", "lhs": sm(at("p", IDX), 1, n).t, "rhs": q(1).t}, {"rel": "<=", "lhs": e1.t, "rhs": q(0).t},
                    {"rel": "<=", "lhs": B.t, "rhs": e2.t}]
    return st


def statement_fedavg() -> dict[str, Any]:
    """``alpha = 1``: for every ``n``, ``p_i >= 0`` with ``sum p = 1``, ``q`` with ``0 <= q_i <= 1`` and ``sum_i q_i p_i =
    1`` (``q in Q_1``), losses in a box ``m <= f_i <= m + w``: ``sum_i q_i p_i f_i = sum_i p_i f_i`` (two goals)."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, m, w = v("n"), v("m"), v("w")
    p, qq, f = at("p", IDX), at("q", IDX), at("f", IDX)
    st = statement([["n", "count"], ["p", "family_nonnegative"], ["q", "family_bounded", q(0), q(1)], ["m", "real"],
                    ["w", "nonnegative"], ["f", "family_bounded", m, m + w]],
                   [("sum q p f <= sum p f", "<=", sm(qq * p * f, 1, n), sm(p * f, 1, n), None),
                    ("sum p f <= sum q p f", "<=", sm(p * f, 1, n), sm(qq * p * f, 1, n), None)])
    st["assume"] = [{"rel": "==", "lhs": sm(p, 1, n).t, "rhs": q(1).t}, {"rel": "==", "lhs": sm(qq * p, 1, n).t,
                                                                          "rhs": q(1).t}]
    return st


# ---------------------------------------------------------------------------------- the split form (Lemma 1)
#: The one meta-step of the Lemma 1 / closed-form / limits claims: f_alpha and G are invariant under permuting the
#: clients, and every instance sorted by loss (descending) has the split form below, with ``eta`` the loss of the first
#: client at which the running sum of caps ``c_i = p_i/alpha_i`` reaches 1 (it does: ``tau_alpha >= 1``): the clients
#: before it are "top" (losses ``eta + r_i``, caps summing to ``U < 1``), it is the "boundary" client (cap ``>= 1 - U``),
#: the clients after it are "bottom" (losses ``eta - s_i``).  Top indices ``2..k`` and bottom indices ``2..m`` (counts
#: ``k, m >= 1``) allow empty groups.
SPLIT_REDUCTION = ("sorted by loss (the value is invariant under permuting clients) every instance has the split form: "
                   "K >= 0 top clients (caps ua_i >= 0, U = sum ua <= 1, losses eta + r_i, r_i >= 0), a boundary client "
                   "(cap u0 >= 1 - U, loss eta), M >= 0 bottom clients (caps ub_i >= 0, losses eta - s_i, s_i >= 0); "
                   "caps u_i = p_i/alpha_i, weights lam_i = q_i p_i")


def _split_decls(*bottom: list[Any]) -> list[list[Any]]:
    """``k, m`` counts, ``eta``, top caps and gaps, boundary cap, bottom caps, then ``bottom`` (default: gaps ``s_i >=
    0``)."""
    decl = [["k", "count"], ["m", "count"], ["eta", "real"]]
    decl += [["ua", "family_nonnegative"], ["r", "family_nonnegative"], ["u0", "nonnegative"]]
    decl += [["ub", "family_nonnegative"]]
    return decl + (list(bottom) if bottom else [["s", "family_nonnegative"]])


def _split_hinge_sum(at_eta: Any, u0: Any = None, ub: Any = None) -> Any:
    """``at_eta + sum_{i=2}^k ua_i (eta + r_i - at_eta)_+ + u0 (eta - at_eta)_+ + sum_{i=2}^m ub_i (eta - s_i -
    at_eta)_+``: ``G`` at ``at_eta`` summed over the three groups."""
    from fairtheory.proofs.symbolic import IDX, at, mx, sm, v

    eta, k, m = v("eta"), v("k"), v("m")
    top_loss, bottom_loss = eta + at("r", IDX), eta - at("s", IDX)
    c0 = v("u0") if u0 is None else u0
    cb = at("ub", IDX) if ub is None else ub
    return (at_eta + sm(at("ua", IDX) * mx(top_loss - at_eta, 0), 2, k) + c0 * mx(eta - at_eta, 0)
            + sm(cb * mx(bottom_loss - at_eta, 0), 2, m))


def statement_split() -> dict[str, Any]:
    """Split form (:data:`SPLIT_REDUCTION`), every ``k, m >= 1`` (``K = k - 1``, ``M = m - 1`` clients), every data
    with ``U = sum_{i=2}^k ua_i <= 1`` and ``1 - U <= u0``, every real ``eta2``: the greedy weights (top ``ua_i``,
    boundary ``1 - U``, bottom 0) are feasible (``0 <= 1 - U <= u0``, sum 1) with value ``sum_top ua_i (eta + r_i) +
    (1 - U) eta = eta + sum_top ua_i r_i =: V``; ``G(eta) = V`` (two inequalities) and ``V <= G(eta2)``."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    eta, k = v("eta"), v("k")
    U = sm(at("ua", IDX), 2, k)
    V = eta + sm(at("ua", IDX) * at("r", IDX), 2, k)
    greedy = sm(at("ua", IDX) * (eta + at("r", IDX)), 2, k) + (1 - U) * eta
    goals = [("boundary weight 0 <= 1 - U", "<=", q(0), 1 - U, None),
             ("boundary weight 1 - U <= u0", "<=", 1 - U, v("u0"), None),
             ("greedy weights sum to 1", "==", U + (1 - U), q(1), None),
             ("greedy value = eta + sum_top ua r", "==", greedy, V, None),
             ("G(eta) <= greedy value", "<=", _split_hinge_sum(eta), V, None),
             ("greedy value <= G(eta)", "<=", V, _split_hinge_sum(eta), None),
             ("greedy value <= G(eta2)", "<=", V, _split_hinge_sum(v("eta2")), None)]
    st = statement(_split_decls() + [["eta2", "real"]], goals)
    st["assume"] = [{"rel": "<=", "lhs": U.t, "rhs": q(1).t}, {"rel": "<=", "lhs": (1 - U).t, "rhs": v("u0").t}]
    return st


def statement_split_fedavg() -> dict[str, Any]:
    """``alpha = 1`` on the split form: caps ``u = p`` summing to 1 (``U + u0 + sum_{i=2}^m ub_i = 1``), bottom gaps
    in ``[0, S]`` for some ``S >= 0``: the greedy value ``eta + sum_top ua_i r_i`` equals ``sum_i u_i f_i`` over the
    three groups (two inequalities)."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    eta, k, m, S, u0 = v("eta"), v("k"), v("m"), v("S"), v("u0")
    U, Ub = sm(at("ua", IDX), 2, k), sm(at("ub", IDX), 2, m)
    V = eta + sm(at("ua", IDX) * at("r", IDX), 2, k)
    every = (sm(at("ua", IDX) * (eta + at("r", IDX)), 2, k) + u0 * eta
             + sm(at("ub", IDX) * (eta - at("s", IDX)), 2, m))
    st = statement(_split_decls(["S", "nonnegative"], ["s", "family_bounded", q(0), S]),
                   [("greedy value <= sum_i p_i f_i", "<=", V, every, None),
                    ("sum_i p_i f_i <= greedy value", "<=", every, V, None)])
    st["assume"] = [{"rel": "<=", "lhs": U.t, "rhs": q(1).t}, {"rel": "<=", "lhs": (1 - U).t, "rhs": u0.t},
                    {"rel": "==", "lhs": (U + u0 + Ub).t, "rhs": q(1).t}]
    return st


def statement_split_afl() -> dict[str, Any]:
    """``alpha = p`` on the split form: caps 1, no top client, the boundary loss ``eta`` is the largest (bottom losses
    ``eta - s_i``, every ``m >= 1``): the greedy point (weight 1 on the boundary) has value ``1 * eta = eta`` and
    ``G(eta) = eta + (eta - eta)_+ + sum_{i=2}^m (eta - s_i - eta)_+ = eta``."""
    from fairtheory.proofs.symbolic import IDX, at, mx, q, sm, statement, v

    eta = v("eta")
    g = eta + q(1) * mx(eta - eta, 0) + sm(q(1) * mx((eta - at("s", IDX)) - eta, 0), 2, v("m"))
    return statement([["m", "count"], ["eta", "real"], ["s", "family_nonnegative"]],
                     [("greedy value = eta", "==", q(1) * eta, eta, None), ("G(eta) <= eta", "<=", g, eta, None),
                      ("eta <= G(eta)", "<=", eta, g, None)])


def declared_lemma1_dual() -> list[dict[str, Any]]:
    """The split statement and weak duality (every ``q in Q_alpha``, every ``eta``) on the paper's domain."""
    return [statement_split(), _dual(False)]


def declared_limits() -> list[dict[str, Any]]:
    return [*declared_lemma1_dual(), statement_split_fedavg(), statement_split_afl()]


def declared_hcvar_ru() -> list[dict[str, Any]]:
    return [statement_hcvar_ru(), *declared_lemma1_dual()]


# ------------------------------------------------------------------------------------------------ claims
_INST = ([0.5, 0.25, 0.25], [0.75, 0.5, 1.0], [3.0, 1.0, 2.0])
_INST_TEXT = "p = (1/2, 1/4, 1/4), alpha = (3/4, 1/2, 1), f = (3, 1, 2)"
_DUAL_LINE = ("for all K, M and such data (i) lam* (top at caps, boundary 1 - U, bottom 0) is feasible, value V = eta + "
              "sum_top ua_i r_i; (ii) G(eta) = V <= G(eta') for every eta'; (iii) for every n, sum p = 1, 0 <= p_i <= "
              "alpha_i <= 1, f, eta, q in Q_alpha: sum q_i p_i f_i <= G(f, eta) (symbolic proofs)")


@claim("proofs.rcfl.lemma1.dual", citation="002 Lemma 1 (first equality; minimiser in [min f, max f])",
       statement="sup over Q_alpha = inf over eta of G, attained at eta = the boundary loss, which lies in [min f, max "
                 "f]. Reduction (one meta-step): " + SPLIT_REDUCTION + ". " + _DUAL_LINE + ". So V <= sup_Q (i) <= "
                 "inf_eta G (iii) <= G(eta) = V (ii): sup = inf = V, and eta (a loss) minimises G",
       expected="proved", proves=declared_lemma1_dual)
def lemma1_dual(ctx: Context) -> Outcome:
    """Split form: ``(r_i)_+ = r_i``, ``(0)_+ = 0``, ``(-s_i)_+ = 0`` in the sum bodies (kernel generators ``max_le``
    / ``max_ge``); weak duality as in ``proofs.rcfl.lemma1.dual.parts``.  Library route: the closed-form ``f_alpha``
    and the exact minimiser of ``G`` against the split form computed in rationals."""
    from fairtheory.objectives.qalpha import qalpha_dual, qalpha_loss
    from fairtheory.proofs.seed_rcfl import split_certificate, split_exact, weak_duality_certificate

    p, a, f = _INST
    fa, g_eta = qalpha_loss(f, p, a)[0], qalpha_dual(f, p, a)
    val, eta, k, m = split_exact(f, p, a)
    return _settle([split_certificate(), weak_duality_certificate()], declared_lemma1_dual(), measured=fa,
                   bound=float(val), relation="==", error=abs(fa - float(val)) / max(1.0, abs(float(val))),
                   tolerance=ROUNDING,
                   explain=f"measured = library f_alpha at {_INST_TEXT}; bound = the split form's greedy value "
                           f"(exact: {val}, boundary loss {eta}, K = {k}, M = {m})",
                   details={"library min G": g_eta[0], "library eta*": g_eta[1], "split eta": float(eta)})


@claim("proofs.rcfl.qalpha.closed_form", citation="002 Def. 1 (greedy closed form)",
       statement="the greedy closed form (sort losses descending, fill each client to its cap u_i = p_i/alpha_i until "
                 "mass 1, the boundary client gets the remainder) equals sup over Q_alpha. Reduction (one meta-step): "
                 + SPLIT_REDUCTION + ". " + _DUAL_LINE + ". So the greedy value V = sup over Q_alpha (= inf_eta G)",
       expected="proved", proves=declared_lemma1_dual)
def qalpha_closed_form_proved(ctx: Context) -> Outcome:
    """The greedy point is feasible with value ``V``, and ``V = G(eta)`` bounds every feasible point (weak duality).
    Library route: the library's greedy (:func:`qalpha_loss`, the capped simplex's support function) against the
    split value in rationals (the LP comparison is ``rcfl.qalpha.closed_form``'s own)."""
    from fairtheory.objectives.qalpha import qalpha_loss
    from fairtheory.proofs.seed_rcfl import split_certificate, split_exact, weak_duality_certificate

    p, a, f = _INST
    greedy, lam = qalpha_loss(f, p, a)
    val = float(split_exact(f, p, a)[0])
    return _settle([split_certificate(), weak_duality_certificate()], declared_lemma1_dual(), measured=greedy,
                   bound=val, relation="==", error=abs(greedy - val) / max(1.0, abs(val)), tolerance=ROUNDING,
                   explain=f"measured = library greedy closed form at {_INST_TEXT}; bound = the split form's greedy "
                           "value in rationals", details={"library greedy weights lam": [float(x) for x in lam]})


@claim("proofs.rcfl.qalpha.limits", citation="002 Sec. 3.1 (both limits)",
       statement="alpha = 1 gives f_alpha = sum p_i f_i and alpha = p gives f_alpha = max_i f_i. Reduction (one "
                 "meta-step): " + SPLIT_REDUCTION + ". f_alpha = V = eta + sum_top ua_i r_i (split statement and weak "
                 "duality, both declared here, as proofs.rcfl.lemma1.dual). alpha = 1: caps u = p "
                 "sum to 1 (U + u0 + sum ub = 1; bottom gaps in some [0, S]): V = sum_i u_i f_i over all clients "
                 "(symbolic proof). alpha = p: caps 1, so K = 0 and the boundary loss eta is the largest loss (every "
                 "other is eta - s_i): V = 1 * eta = eta and G(eta) = eta (symbolic proof), so f_alpha = max_i f_i",
       expected="proved", proves=declared_limits)
def qalpha_limits_proved(ctx: Context) -> Outcome:
    """The split statement with its two special cases.  Library route: :func:`qalpha_loss` at ``alpha = 1`` against
    ``sum p_i f_i`` and at ``alpha = p`` against ``max f``."""
    from fairtheory.objectives.qalpha import qalpha_loss
    from fairtheory.proofs.seed_rcfl import (
        split_afl_certificate,
        split_certificate,
        split_fedavg_certificate,
        weak_duality_certificate,
    )

    p, _, f = _INST
    avg = sum(pi * fi for pi, fi in zip(p, f, strict=True))
    fedavg, afl = qalpha_loss(f, p, 1.0)[0], qalpha_loss(f, p, p)[0]
    err = max(abs(fedavg - avg) / max(1.0, abs(avg)), abs(afl - max(f)) / max(1.0, abs(max(f))))
    certs = [split_certificate(), weak_duality_certificate(), split_fedavg_certificate(), split_afl_certificate()]
    return _settle(certs, declared_limits(), measured=afl, bound=max(f), relation="==", error=err, tolerance=ROUNDING,
                   explain="measured = library f_alpha at alpha = p, p = (1/2, 1/4, 1/4), f = (3, 1, 2); bound = max f; "
                           "error = the larger relative gap of the two limits", details={"f_alpha(alpha = 1) - sum p f":
                                                                                       fedavg - avg})


@claim("proofs.rcfl.lemma1.hcvar_ru", citation="002 Lemma 1 (f_alpha = HCVaR, RU reading)",
       statement="f_alpha = inf_eta G = RU-CVaR_beta of f under pi (beta = 1 - 1/tau_alpha, pi_i = p_i/(alpha_i "
                 "tau_alpha)). Part 1: for every n, sum p = 1, 0 <= p_i <= alpha_i <= 1, real f_i, eta: eta + E_pi[(f "
                 "- eta)_+]/(1 - beta) = G(f, eta) (symbolic proof), so the infima agree. Part 2 (f_alpha = inf_eta G, "
                 "as proofs.rcfl.lemma1.dual): reduction (one meta-step): " + SPLIT_REDUCTION + ". " + _DUAL_LINE,
       expected="proved", proves=declared_hcvar_ru)
def hcvar_ru(ctx: Context) -> Outcome:
    """The RU objective ``eta + (1/(1-beta)) E_pi[(f - eta)_+]`` is ``G(f, eta)`` term by term: ``1/(1 - beta) =
    tau_alpha`` and ``tau_alpha pi_i = c_i``; with Lemma 1's first equality (split form and weak duality) ``f_alpha =
    inf G``.  Library route: :func:`hcvar` (RU) against :func:`qalpha_loss`."""
    from fairtheory.objectives.qalpha import hcvar, qalpha_loss
    from fairtheory.proofs.seed_rcfl import hcvar_ru_certificate, split_certificate, weak_duality_certificate

    p, a, f = _INST
    h, fa = hcvar(f, p, a, reading="ru"), qalpha_loss(f, p, a)[0]
    return _settle([hcvar_ru_certificate(), split_certificate(), weak_duality_certificate()], declared_hcvar_ru(),
                   measured=h, bound=fa, relation="==", error=abs(h - fa) / max(1.0, abs(fa)), tolerance=ROUNDING,
                   explain=f"measured = library hcvar (RU) at {_INST_TEXT}; bound = library f_alpha there",
                   details={"library hcvar - f_alpha": h - fa})


@claim("proofs.rcfl.remark1.cvar", citation="002 Remark 1 (RU reading)",
       statement="for every n, p_i >= 0 with sum p = 1, chi > 0, real f_i and eta: with alpha_i = chi the HCVaR RU "
                 "objective eta + E_pi[(f - eta)_+]/(1 - beta) equals the CVaR_{1-chi} objective eta + (1/chi) "
                 "sum_i p_i (f_i - eta)_+, so HCVaR_{1-alpha} = CVaR_{1-chi} (the infima agree; symbolic proof)",
       expected="proved", proves=statement_remark1)
def remark1(ctx: Context) -> Outcome:
    """``tau = sum_i p_i/chi``: ``tau E_pi[h] = (1/chi) sum_i p_i h_i``.  Library route: f_alpha at scalar
    ``alpha = chi`` against the RU CVaR computed from its formula at the library's minimiser."""
    from fairtheory.objectives.qalpha import qalpha_dual, qalpha_loss
    from fairtheory.proofs.seed_rcfl import remark1_certificate

    p, chi, f = [0.5, 0.25, 0.25], 0.5, [3.0, 1.0, 2.0]
    fa = qalpha_loss(f, p, chi)[0]
    _, eta = qalpha_dual(f, p, chi)
    cvar = eta + sum(pi * max(fi - eta, 0.0) for pi, fi in zip(p, f, strict=True)) / chi
    return _settle([remark1_certificate()], [statement_remark1()], measured=fa, bound=cvar, relation="==",
                   error=abs(fa - cvar) / max(1.0, abs(cvar)), tolerance=ROUNDING,
                   explain="measured = library f_alpha at p = (1/2, 1/4, 1/4), alpha = chi = 1/2, f = (3, 1, 2); "
                           "bound = eta + (1/chi) E_p[(f - eta)_+] at the library's minimiser eta",
                   details={"library f_alpha - CVaR objective": fa - cvar})


@claim("proofs.rcfl.deviation", citation="000 / 002 Sec. 3.2",
       statement="D_002 = HCVaR(f - E_pi f) = HCVaR(f) - E_pi f = D_000, D >= 0, D = 0 for constant f, HCVaR = "
                 "inf_eta G (RU): G(f - m, eta - m) = G(f, eta) - m (any n, p >= 0, alpha > 0, f, eta, m), and for every "
                 "n, sum p = 1, 0 <= p_i <= alpha_i <= 1, f, eta: E_pi f <= G(f, eta), k <= G(k, eta) = k at eta = k, "
                 "E_pi k = k (symbolic proofs)",
       expected="proved", proves=declared_deviation)
def deviation(ctx: Context) -> Outcome:
    """The shift identity (each hinge argument ``(f_i - m) - (eta - m) = f_i - eta``) with ``m = E_pi f`` and the
    substitution ``eta -> eta - m`` gives ``D_002 = D_000``; ``E_pi f <= G(f, eta)`` for every ``eta`` gives ``D_000 =
    inf_eta G - E_pi f >= 0``; ``k <= G(k, eta)`` with equality at ``eta = k`` gives ``HCVaR(k) = k = E_pi k``, so
    ``D = 0`` for constant losses (both definitions).  Library route: the two deviations of :func:`deviation` on a
    rational instance."""
    from fairtheory.objectives.qalpha import deviation as dev
    from fairtheory.proofs.seed_rcfl import deviation_sign_certificate, translation_certificate

    p, a, f = [0.5, 0.25, 0.25], [0.75, 0.5, 1.0], [3.0, 1.0, 2.0]
    d0, d2 = dev(f, p, a, version="000"), dev(f, p, a, version="002")
    return _settle([translation_certificate(), deviation_sign_certificate()], declared_deviation(), measured=d2,
                   bound=d0, relation="==", error=abs(d2 - d0) / max(1.0, abs(d0)), tolerance=ROUNDING,
                   explain="measured = library D_002 at p = (1/2, 1/4, 1/4), alpha = (3/4, 1/2, 1), f = (3, 1, 2); "
                           "bound = library D_000 there", details={"D_002 - D_000": d2 - d0})


@claim("proofs.rcfl.lemma1.dual.parts", citation="002 Lemma 1 (first equality: weak duality, matching point)",
       statement="for every n, sum p = 1, 0 <= p_i <= alpha_i <= 1, real f_i, eta and q in Q_alpha: sum_i q_i p_i f_i "
                 "<= G(f, eta) (weak duality, so f_alpha <= inf_eta G), and G(f, eta) <= sum_i q_i p_i f_i when (q, "
                 "eta) are in complementary slackness (symbolic proofs). Parts: the existence of a complementary pair "
                 "(the greedy point and the boundary loss) is the split form of proofs.rcfl.lemma1.dual",
       expected="proved", proves=declared_dual)
def dual_parts(ctx: Context) -> Outcome:
    """Weak duality: ``sum_i q_i p_i (f_i - eta) <= sum_i q_i p_i (f_i - eta)_+ <= sum_i c_i (f_i - eta)_+``.
    Matching point: ``(x)_+ - (-x)_+ = x`` summed against ``q_i p_i`` after the slackness sum is removed.  Library
    route: the closed-form ``f_alpha`` and its worst-case weights ``lam = q p`` against the dual at its minimiser."""
    from fairtheory.objectives.qalpha import qalpha_dual, qalpha_loss
    from fairtheory.proofs.seed_rcfl import complementary_certificate, weak_duality_certificate

    p, a, f = [0.5, 0.25, 0.25], [0.75, 0.5, 1.0], [3.0, 1.0, 2.0]
    fa, lam = qalpha_loss(f, p, a)
    g, eta = qalpha_dual(f, p, a)
    return _settle([weak_duality_certificate(), complementary_certificate()], declared_dual(), measured=fa, bound=g,
                   relation="==", error=abs(fa - g) / max(1.0, abs(g)), tolerance=ROUNDING,
                   explain="measured = library f_alpha (closed form) at p = (1/2, 1/4, 1/4), alpha = (3/4, 1/2, 1), "
                           "f = (3, 1, 2); bound = library min_eta G there",
                   details={"library eta*": eta, "library weights lam = q p": [float(x) for x in lam]})


@claim("proofs.rcfl.qalpha.convex", citation="002 Sec. 3.2 (convexity of f_alpha)",
       statement="for every n, sum p = 1, 0 <= p_i <= alpha_i <= 1, q in Q_alpha, lam in [0, 1], real f_i(a), f_i(b) "
                 "and f_i(lam a + (1-lam) b) <= lam f_i(a) + (1-lam) f_i(b) (convex clients): sum_i q_i p_i f_i(lam a + "
                 "(1-lam) b) <= lam sum_i q_i p_i f_i(a) + (1-lam) sum_i q_i p_i f_i(b) (symbolic proof); the sup over "
                 "q in Q_alpha gives f_alpha(lam a + (1-lam) b) <= lam f_alpha(a) + (1-lam) f_alpha(b)",
       expected="proved", proves=statement_convex)
def qalpha_convex(ctx: Context) -> Outcome:
    """Each ``q_i p_i >= 0`` times the client gap ``lam fa_i + (1 - lam) fb_i - fl_i >= 0``, summed.  Library route:
    ``f_alpha`` at the midpoint of two models for quadratic clients ``f_i(w) = (w - c_i)^2``."""
    from fairtheory.objectives.qalpha import qalpha_loss
    from fairtheory.proofs.seed_rcfl import convex_certificate

    p, a, c = [0.5, 0.25, 0.25], [0.75, 0.5, 1.0], [0.0, 1.0, 3.0]
    fv = lambda w: [(w - ci) ** 2 for ci in c]  # noqa: E731
    left = qalpha_loss(fv(1.0), p, a)[0]
    right = 0.5 * qalpha_loss(fv(-1.0), p, a)[0] + 0.5 * qalpha_loss(fv(3.0), p, a)[0]
    return _settle([convex_certificate()], [statement_convex()], measured=left, bound=right, relation="<=",
                   explain="measured = library f_alpha(1) for clients (w - c_i)^2, c = (0, 1, 3), p = (1/2, 1/4, 1/4), "
                           "alpha = (3/4, 1/2, 1); bound = (f_alpha(-1) + f_alpha(3))/2",
                   details={"midpoint gap": right - left})


@claim("proofs.rcfl.qalpha.limits.fedavg", citation="002 Sec. 3.1 (alpha = 1 limit only)",
       statement="alpha = 1 (FedAvg): for every n, p >= 0 with sum p = 1, q in Q_1 and losses f (in a box [m, m + w]): "
                 "sum_i q_i p_i f_i = sum_i p_i f_i (symbolic proof; q = 1 is in Q_1), so f_alpha = sum_i p_i f_i, "
                 "without sorting. The AFL limit alpha = p is in proofs.rcfl.qalpha.limits (split form)",
       expected="proved", proves=statement_fedavg)
def fedavg_limit(ctx: Context) -> Outcome:
    """``sum (1 - q_i) p_i = 0`` with every term ``>= 0``, against ``f_i - m >= 0`` and ``m + w - f_i >= 0``.
    Library route: :func:`qalpha_loss` at ``alpha = 1``."""
    from fairtheory.objectives.qalpha import qalpha_loss
    from fairtheory.proofs.seed_rcfl import fedavg_limit_certificate

    p, f = [0.5, 0.25, 0.25], [3.0, 1.0, 2.0]
    fa, avg = qalpha_loss(f, p, 1.0)[0], sum(pi * fi for pi, fi in zip(p, f, strict=True))
    return _settle([fedavg_limit_certificate()], [statement_fedavg()], measured=fa, bound=avg, relation="==",
                   error=abs(fa - avg) / max(1.0, abs(avg)), tolerance=ROUNDING,
                   explain="measured = library f_alpha at alpha = 1, p = (1/2, 1/4, 1/4), f = (3, 1, 2); bound = sum p_i f_i",
                   details={"f_alpha - sum p f": fa - avg})


@claim("proofs.rcfl.remark2.eta_range", citation="002 Remark 2",
       statement="for every n, sum p = 1, 0 <= p_i <= alpha_i <= 1, B >= 0, losses 0 <= f_i <= B: G(f, 0) <= G(f, eta) "
                 "for every eta <= 0 and G(f, B) <= G(f, eta) for every eta >= B, so inf over R of G = inf over [0, B] "
                 "(symbolic proof)",
       expected="proved", proves=statement_remark2)
def remark2(ctx: Context) -> Outcome:
    """Low side ``G(f, 0) = sum c_i f_i <= sum c_i f_i - eta (tau - 1) = eta + sum c_i (f_i - eta) <= G(f, eta)``;
    high side ``G(f, B) = B <= eta <= G(f, eta)``.  Library route: the exact minimiser ``eta*`` of
    :func:`qalpha_dual` on losses in ``[0, B]`` lies in ``[0, B]``."""
    from fairtheory.objectives.qalpha import qalpha_dual
    from fairtheory.proofs.seed_rcfl import remark2_certificate

    p, a, f, B = [0.5, 0.25, 0.25], [0.75, 0.5, 1.0], [0.0, 2.0, 1.0], 2.0
    g, eta = qalpha_dual(f, p, a)
    explain = ("measured = eta*/B for the library's exact minimiser at p = (1/2, 1/4, 1/4), alpha = (3/4, 1/2, 1), "
               "f = (0, 2, 1), B = 2; bound = 1")
    return _settle([remark2_certificate()], [statement_remark2()], measured=eta / B, bound=1.0, relation="<=",
                   explain=explain, details={"library eta*": eta, "library min G": g})


#: each claim's declared statements (no-argument functions), by claim id; ``rcfl.lemma1.hcvar_conditional``: the
#: statement it refutes (declared in verify.claims.rcfl_objective through :func:`statement_conditional`)
DECLARED: dict[str, list[Callable[[], dict[str, Any]]]] = {
    "proofs.rcfl.lemma1.hcvar_ru": [statement_hcvar_ru, statement_split, lambda: _dual(False)],
    "proofs.rcfl.lemma1.dual": [statement_split, lambda: _dual(False)],
    "proofs.rcfl.qalpha.closed_form": [statement_split, lambda: _dual(False)],
    "proofs.rcfl.qalpha.limits": [statement_split, lambda: _dual(False), statement_split_fedavg, statement_split_afl],
    "proofs.rcfl.remark1.cvar": [statement_remark1],
    "proofs.rcfl.deviation": [statement_translation, statement_deviation_sign],
    "proofs.rcfl.lemma1.dual.parts": [lambda: _dual(False), lambda: _dual(True)],
    "proofs.rcfl.qalpha.convex": [statement_convex], "proofs.rcfl.remark2.eta_range": [statement_remark2],
    "proofs.rcfl.qalpha.limits.fedavg": [statement_fedavg],
    "rcfl.lemma1.hcvar_conditional": [statement_conditional]}
