r"""Certificates for the RC-FL / FAFL seed claims (002 Def. 1-2, Lemma 1, Remarks 1-2, Sec. 3.2; 000 deviation),
for the ``"symbolic"`` kernel and its ``"counterexample"`` kind (untrusted proposers: the kernel decides).

Notation (002): ``n`` clients, weights ``p_i > 0``, conservatism ``alpha_i`` (in ``[p_i, 1]`` where a proof needs
it), losses ``f_i``, caps ``c_i = p_i/alpha_i``, ``tau_alpha = sum_i c_i``, ``pi_i = c_i/tau_alpha``,
``beta = 1 - 1/tau_alpha``, and the Lemma 1 / Rockafellar-Uryasev objective

.. math:: G(f, \eta) = \eta + \sum_{i=1}^n \frac{p_i}{\alpha_i} (f_i - \eta)_+ ,

whose infimum over ``eta`` is ``f_alpha`` (002 Lemma 1, first equality) and ``HCVaR`` in the RU reading (second
equality).  Every maker builds its chain directly (no search); the derivations are in docs/decided/rcfl.md.

* :func:`translation_certificate` - ``G(f - m, eta - m) = G(f, eta) - m`` (the deviation definitions agree);
* :func:`deviation_sign_certificate` - ``E_pi f <= G(f, eta)`` (``D >= 0``), ``HCVaR`` of a constant is the constant;
* :func:`hcvar_ru_certificate` - the RU objective of ``f`` under ``pi`` at level ``beta`` equals ``G`` pointwise;
* :func:`remark1_certificate` - with ``alpha_i = chi`` the RU objective equals that of ``CVaR_{1-chi}`` under ``p``;
* :func:`convex_certificate` - ``f_alpha`` is convex for convex clients (every ``q in Q_alpha``);
* :func:`weak_duality_certificate`, :func:`complementary_certificate` - Lemma 1's first equality, the two inequalities
  (the existence of a complementary pair is not stated);
* :func:`fedavg_limit_certificate` - ``alpha = 1``: ``Q_1`` gives ``sum_i p_i f_i``;
* :func:`remark2_certificate` - Remark 2 (kernel generators ``max_le`` / ``max_ge`` inside sums);
* :func:`split_certificate` - Lemma 1 and the greedy closed form on the split form of a sorted instance: the greedy
  point is feasible, its value is ``G(eta)`` at the boundary loss ``eta``, and at most ``G(eta')`` for every ``eta'``;
* :func:`split_fedavg_certificate`, :func:`split_afl_certificate` - the limits ``alpha = 1`` and ``alpha = p`` there;
* :func:`conditional_counterexample` - the exact refutation of the literal Def. 2 (kind ``"counterexample"``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fairtheory.proofs.symbolic import IDX, E, at, mx, q, sm, statement, v

__all__ = ["G", "tau", "ALL_CERTIFICATES", "CONDITIONAL_POINT", "conditional_region_statement", "conditional_counterexample",
           "translation_certificate", "hcvar_ru_certificate", "remark1_certificate", "deviation_sign_certificate",
           "weak_duality_certificate", "complementary_certificate", "convex_certificate", "fedavg_limit_certificate",
           "remark2_certificate", "split_certificate", "split_fedavg_certificate", "split_afl_certificate", "split_exact"]

KIND = "symbolic"
N, ETA = v("n"), v("eta")
P, AL, F = at("p", IDX), at("alpha", IDX), at("f", IDX)
CAP = P / AL
#: the declarations every n-client statement starts with
CLIENTS = [["n", "count"], ["p", "family_positive"], ["alpha", "family_positive"]]


def G(fi: Any, eta: Any, cap: Any = CAP) -> E:
    """``eta + sum_{i=1}^n cap_i (fi - eta)_+`` (``fi``, ``cap`` terms in the summation index)."""
    return eta + sm(cap * mx(fi - eta, 0), 1, N)


def tau(cap: Any = CAP) -> E:
    return sm(cap, 1, N)


# ------------------------------------------------------------------------------------------ evidence helpers
def link(rel: str, expr: Any, by: str, **kw: Any) -> dict[str, Any]:
    out = {"rel": rel, "expr": E.lift(expr), "by": by}
    for k, x in kw.items():
        out[k] = E.lift(x) if isinstance(x, E) else x
    return out


def rep(*terms: tuple[Any, list[Any]]) -> list[Any]:
    """``[[c, [generator, ...]], ...]``, term arguments of generators lifted (nested representations kept)."""
    def gen(g: Any) -> list[Any]:
        return [g[0], *[E.lift(x) if isinstance(x, E) else x for x in g[1:]]]
    return [[str(Fraction(c)), [gen(g) for g in gens]] for c, gens in terms]


def chain(*xs: Any) -> dict[str, Any]:
    return {"chain": [E.lift(xs[0]), *xs[1:]]}


def cert(title: str, citation: str, st: dict[str, Any], proofs: dict[str, Any],
         lemmas: list[Any] | None = None) -> dict[str, Any]:
    return {"kind": KIND, "version": 1, "title": title, "citation": citation, "statement": st,
            "evidence": {"lemmas": lemmas or [], "proofs": [{"name": k, **p} for k, p in proofs.items()]}}


# ------------------------------------------------------------------------------------------ identities
def translation_certificate() -> dict[str, Any]:
    r"""000 / 002 Sec. 3.2: ``G(f - m, eta - m) = G(f, eta) - m`` for every ``n``, ``p_i >= 0``, ``alpha_i > 0``,
    real ``f_i``, ``eta``, ``m`` (the hinge arguments agree).  With ``m = E_pi f`` and the shift ``eta -> eta - m``
    (a bijection of the reals) it gives ``HCVaR(f - E_pi f) = HCVaR(f) - E_pi f``: the 002 and 000 deviations agree."""
    m = v("m")
    lhs, rhs = G(F - m, ETA - m), G(F, ETA) - m
    st = statement([["n", "count"], ["p", "family_nonnegative"], ["alpha", "family_positive"], ["f", "family_real"],
                    ["eta", "real"], ["m", "real"]],
                   [("G(f - m, eta - m) = G(f, eta) - m", "==", lhs, rhs, None)])
    return cert("translation: G(f - m, eta - m) = G(f, eta) - m", "000 / 002 Sec. 3.2", st,
                {"G(f - m, eta - m) = G(f, eta) - m": chain(lhs, link("==", rhs, "identity"))})


def hcvar_ru_certificate() -> dict[str, Any]:
    r"""002 Lemma 1, second equality (RU reading): ``eta + (1/(1 - beta)) E_pi[(f - eta)_+] = G(f, eta)`` for every
    real ``eta`` on the paper's whole domain (:func:`paper_domain`), ``pi_i = p_i/(alpha_i t)``, ``beta = 1 - 1/t``,
    ``t = tau_alpha``: the objectives agree pointwise, so do their infima."""
    t = v("t")
    lhs = ETA + (1 / (1 - (1 - 1 / t))) * sm(P / (AL * t) * mx(F - ETA, 0), 1, N)
    st = statement(paper_domain(["f", "family_real"], ["t", "positive"], ["eta", "real"]),
                   [("RU objective under pi at beta = G", "==", lhs, G(F, ETA), None)])
    st["assume"] = paper_assumptions()
    return cert("RU objective of f under pi at level beta = 1 - 1/tau_alpha equals G(f, eta)", "002 Lemma 1", st,
                {"RU objective under pi at beta = G": chain(lhs, link("==", G(F, ETA), "identity"))})


def remark1_certificate() -> dict[str, Any]:
    r"""002 Remark 1 (RU reading): with ``alpha_i = chi`` for every ``i``, the HCVaR objective
    ``eta + (1/(1 - beta)) E_pi[(f - eta)_+]`` (``pi_i = p_i/(chi t)``, ``t = tau_alpha = sum_i p_i/chi``,
    ``beta = 1 - 1/t``) equals the CVaR_{1-chi} objective ``eta + (1/chi) sum_i p_i (f_i - eta)_+`` for every
    ``eta``, ``n``, ``p_i >= 0`` with ``sum p = 1``, ``chi > 0``, real ``f_i``."""
    chi, t = v("chi"), v("t")
    lhs = ETA + (1 / (1 - (1 - 1 / t))) * sm(P / (chi * t) * mx(F - ETA, 0), 1, N)
    rhs = ETA + (1 / chi) * sm(P * mx(F - ETA, 0), 1, N)
    st = statement([["n", "count"], ["chi", "positive"], ["p", "family_nonnegative"], ["f", "family_real"],
                    ["t", "positive"], ["eta", "real"]],
                   [("HCVaR objective at alpha = chi = CVaR_{1-chi} objective", "==", lhs, rhs, None)])
    st["assume"] = [_assume("==", sm(P, 1, N), q(1)), _assume("==", t, sm(P / chi, 1, N))]
    return cert("alpha_i = chi: the HCVaR objective is the CVaR_{1-chi} objective", "002 Remark 1", st,
                {"HCVaR objective at alpha = chi = CVaR_{1-chi} objective": chain(lhs, link("==", rhs, "identity"))})



# ------------------------------------------------------------------------------------------ the refutation
def _assume(rel: str, lhs: Any, rhs: Any) -> dict[str, Any]:
    return {"rel": rel, "lhs": E.lift(lhs), "rhs": E.lift(rhs)}


def conditional_region_statement() -> dict[str, Any]:
    r"""002 Def. 2 read literally, with Lemma 1, on the region ``n = 2``, ``f_1 < f_2``, ``0 < beta < pi_1``:
    there every quantile of ``f`` at level ``beta`` under ``pi`` is ``f_1`` (``P_pi(f < f_1) = 0 < beta <
    pi_1 = P_pi(f <= f_1)``), so ``E_pi[f | f > Q_beta(f)] = f_2``, and Lemma 1 ``inf_eta G = HCVaR`` gives
    ``f_2 <= G(f, eta)`` for every real ``eta``.  Strict inequalities through positive slacks:
    ``f_2 = f_1 + delta``, ``tau_alpha = 1 + s`` (``beta > 0``), ``c_2 + r = 1`` (``c_2 < 1``, i.e. ``beta < pi_1``)."""
    p1, p2, a1, a2, f1, f2, d, s, r, eta = (v(x) for x in ("p1", "p2", "alpha1", "alpha2", "f1", "f2", "delta", "s",
                                                             "r", "eta"))
    c1, c2 = p1 / a1, p2 / a2
    g = eta + c1 * mx(f1 - eta, 0) + c2 * mx(f2 - eta, 0)
    st = statement([["p1", "positive"], ["p2", "positive"], ["alpha1", "positive"], ["alpha2", "positive"],
                    ["f1", "real"], ["delta", "positive"], ["f2", "real"], ["s", "positive"], ["r", "positive"],
                    ["eta", "real"]],
                   [("literal HCVaR f2 <= G(f, eta)", "<=", f2, g, None)])
    st["assume"] = [_assume("==", p1 + p2, q(1)), _assume("<=", p1, a1), _assume("<=", a1, q(1)),
                    _assume("<=", p2, a2), _assume("<=", a2, q(1)), _assume("==", f1 + d, f2),
                    _assume("==", c1 + c2, 1 + s), _assume("==", c2 + r, q(1))]
    return st


#: the instance: p = (1/2, 1/2), alpha = (3/4, 3/4), f = (0, 1), eta = 0 (tau = 4/3, beta = 1/4, pi = (1/2, 1/2));
#: literal conditional mean 1, G(f, 0) = 2/3 = f_alpha
CONDITIONAL_POINT = {"p1": "1/2", "p2": "1/2", "alpha1": "3/4", "alpha2": "3/4", "f1": "0", "delta": "1", "f2": "1",
                     "s": "1/3", "r": "1/3", "eta": "0"}


def conditional_counterexample(point: dict[str, str] | None = None, margin: str = "1/3") -> dict[str, Any]:
    """The exact counterexample to :func:`conditional_region_statement` (kind ``"counterexample"``): at
    :data:`CONDITIONAL_POINT` the left side is ``1`` and the right side ``2/3``."""
    pt = CONDITIONAL_POINT if point is None else point
    return {"kind": "counterexample", "version": 1,
            "title": "002 Def. 2 literal: E_pi[f | f > Q_beta(f)] = 1 > 2/3 = G(f, 0) >= f_alpha at p = (1/2, 1/2), "
                     "alpha = 3/4, f = (0, 1)",
            "citation": "002 Def. 2, Lemma 1", "statement": conditional_region_statement(),
            "evidence": {"goal": "literal HCVaR f2 <= G(f, eta)", "point": [[k, ["q", x]] for k, x in pt.items()],
                         "margin": margin}}


# ------------------------------------------------------------------------------------------ deviation: D >= 0, D(const) = 0
#: the declarations of a statement over the paper's whole domain: ``alpha_i in (0, 1]`` (written ``e/(1 + e) <=
#: alpha_i <= 1`` for some ``e > 0``: every ``alpha`` in ``(0, 1]^n`` has one), ``0 <= p_i <= alpha_i``, and a symbol
#: ``t`` for ``tau_alpha`` (assumption ``t = sum_i p_i/alpha_i``) so that ``pi_i = p_i/(alpha_i t)`` can be written in a
#: sum body; assumptions ``sum_i p_i = 1`` (index 0) and ``t = tau_alpha`` (index 1)
def paper_domain(*more: list[Any]) -> list[list[Any]]:
    e = v("e")
    return [["n", "count"], ["e", "positive"], ["alpha", "family_bounded", e / (1 + e), q(1)],
            ["p", "family_bounded", q(0), at("alpha", IDX)], *more]


def paper_assumptions() -> list[dict[str, Any]]:
    return [_assume("==", sm(P, 1, N), q(1)), _assume("==", v("t"), tau())]


def _t_minus_1(times: list[Any]) -> list[Any]:
    """``(t - 1) prod(times)`` as a representation: ``t - 1 = (t - tau) + (tau - sum p) + (sum p - 1)``, the middle a
    sum of ``p_i (1 - alpha_i)/alpha_i >= 0`` (``fhi`` of ``alpha``), the others 0 by the assumptions."""
    body = rep((1, [("fhi", "alpha"), ("pos", CAP)]))
    return rep((1, [("assume_rev", 1), *times]), (1, [("sum", q(1), N, body), *times]), (1, [("assume_rev", 0), *times]))


def _shift_lemma(name: str, k: Any) -> dict[str, Any]:
    """Lemma ``x + k <= max(x, 0) + k`` for real ``x`` (``k`` a term without the lemma's variable), by cases."""
    x = v("x")
    pos = [E.lift(x + k), link("==", mx(x, 0) + k, "max", a=x, b=q(0), terms=rep((1, [("hyp",)])))]
    neg = [E.lift(x + k), link("<=", k, "sos", terms=rep((1, [("hyp",)]))),
           link("==", mx(x, 0) + k, "max", a=q(0), b=x, terms=rep((1, [("hyp",)])))]
    return {"name": name, "vars": [["x", "real"]], "rel": "<=", "lhs": E.lift(x + k), "rhs": E.lift(mx(x, 0) + k),
            "proof": {"cases": x.t, "chains": [pos, neg]}}


def deviation_sign_certificate() -> dict[str, Any]:
    r"""000 / 002 Sec. 3.2, ``D >= 0``: ``E_pi f <= G(f, eta)`` for every real ``eta`` (so ``HCVaR(f) = inf_eta G >=
    E_pi f``), on the paper's whole domain (:func:`paper_domain`).  And ``D = 0`` for constant losses ``f_i = k``:
    ``k <= G(k, eta)`` with equality at ``eta = k`` (so ``HCVaR(k) = k``), and ``E_pi k = k``.

    Cases on ``eta - E``: above, ``E <= eta <= G``; below, ``E <= E + (tau - 1)(E - eta) = eta + sum_i c_i (f_i -
    eta) <= G`` (``tau >= 1``: ``sum p = 1``, ``alpha_i <= 1``; the last step the lemma ``x <= (x)_+`` summed)."""
    t, eta, k = v("t"), ETA, v("k")
    mean = sm(P / (AL * t) * F, 1, N)
    g = G(F, ETA)
    gk = G(k, ETA)
    st = statement(paper_domain(["f", "family_real"], ["t", "positive"], ["k", "real"], ["eta", "real"]),
                   [("E_pi f <= G(f, eta)", "<=", mean, g, None),
                    ("k <= G(k, eta)", "<=", k, gk, None), ("G(k, k) = k", "==", G(k, k), k, None),
                    ("E_pi k = k", "==", sm(P / (AL * t) * k, 1, N), k, None)])
    st["assume"] = paper_assumptions()
    hyp = [("hyp",)]
    tau_ = tau()
    cs, s_max = sm(CAP * F, 1, N), sm(CAP * mx(F - ETA, 0), 1, N)
    above = [E.lift(mean), link("<=", eta, "sos", terms=rep((1, hyp))),
             link("<=", g, "sos", terms=rep((1, [("sum", q(1), N, rep((1, [("pos", CAP * mx(F - ETA, 0))])))])))]
    below = [E.lift(mean), link("<=", mean + (t - 1) * (mean - eta), "sos", terms=_t_minus_1(hyp)),
             link("==", eta + cs - t * eta, "identity"),
             link("==", cs - eta * tau_ + (eta / t) * tau_, "assume_eq", mult=[[1, E.lift(eta * (1 / t - 1))]]),
             link("<=", s_max + (eta / t) * tau_, "sum_mono", lemma="x <= (x)_+", term=E.lift(F - ETA),
                  weight=E.lift(CAP), lo=["q", "1"], hi=N.t),
             link("==", g, "assume_eq", mult=[[1, E.lift(-eta / t)]])]
    k_above = [E.lift(k), link("<=", k + (t - 1) * (k - eta), "sos", terms=_t_minus_1(hyp)),
               link("==", eta + t * (k - eta), "identity"),
               link("==", eta + tau_ * (k - eta), "assume_eq", mult=[[1, E.lift(k - eta)]]),
               link("==", gk, "max", a=k - eta, b=q(0), terms=rep((1, hyp)))]
    k_below = [E.lift(k), link("<=", eta, "sos", terms=rep((1, hyp))),
               link("<=", gk, "sos", terms=rep((1, [("pos", tau_ * mx(k - eta, 0))])))]
    const_mean = sm(P / (AL * t) * k, 1, N)
    proofs = {"E_pi f <= G(f, eta)": {"cases": E.lift(eta - mean), "chains": [above, below]},
              "k <= G(k, eta)": {"cases": E.lift(k - eta), "chains": [k_above, k_below]},
              "G(k, k) = k": chain(G(k, k), link("==", k, "identity")),
              "E_pi k = k": chain(const_mean, link("==", k, "assume_eq", mult=[[1, E.lift(-k / t)]]))}
    return cert("D >= 0: E_pi f <= G(f, eta) for every eta; D(k) = 0: inf_eta G(k, eta) = k = E_pi k",
                "000 / 002 Sec. 3.2", st, proofs, [_shift_lemma("x <= (x)_+", eta / t)])


# ------------------------------------------------------------------------------------------ Lemma 1: weak duality
QF = at("q", IDX)


def dual_domain() -> list[list[Any]]:
    """The paper's domain with losses, ``q in [0, 1/alpha_i]`` per client and ``eta``."""
    return paper_domain(["f", "family_real"], ["q", "family_bounded", q(0), 1 / AL], ["eta", "real"])


def dual_assumptions(cs: bool) -> list[dict[str, Any]]:
    """``sum p = 1`` (0), ``sum_i q_i p_i = 1`` (1: ``q in Q_alpha``) and, with ``cs``, complementary slackness (2):
    ``sum_i p_i [(1/alpha_i - q_i)(f_i - eta)_+ + q_i (eta - f_i)_+] = 0`` (each term ``>= 0``)."""
    out = [_assume("==", sm(P, 1, N), q(1)), _assume("==", sm(QF * P, 1, N), q(1))]
    if cs:
        out.append(_assume("==", sm(P * ((1 / AL - QF) * mx(F - ETA, 0) + QF * mx(ETA - F, 0)), 1, N), q(0)))
    return out


def weak_duality_certificate() -> dict[str, Any]:
    r"""002 Lemma 1 (first equality, ``<=``): ``sum_i q_i p_i f_i <= G(f, eta)`` for every ``q in Q_alpha`` and every
    real ``eta``, every ``n``, on the paper's domain.  ``sum_i q_i p_i (f_i - eta) <= sum_i q_i p_i (f_i - eta)_+``
    (lemma ``x <= (x)_+``, weights ``q_i p_i >= 0`` summing to 1) ``<= sum_i (p_i/alpha_i)(f_i - eta)_+``
    (``q_i <= 1/alpha_i``)."""
    primal, g = sm(QF * P * F, 1, N), G(F, ETA)
    st = statement(dual_domain(), [("sum q_i p_i f_i <= G(f, eta)", "<=", primal, g, None)])
    st["assume"] = dual_assumptions(False)
    x = F - ETA
    ch = chain(primal,
               link("<=", sm(QF * P * mx(x, 0), 1, N) + ETA * sm(QF * P, 1, N), "sum_mono", lemma="x <= (x)_+",
                    term=E.lift(x), weight=E.lift(QF * P), lo=["q", "1"], hi=N.t),
               link("==", ETA + sm(QF * P * mx(x, 0), 1, N), "assume_eq", mult=[[1, E.lift(ETA)]]),
               link("<=", g, "sos", terms=rep((1, [("sum", q(1), N, rep((1, [("fhi", "q"), ("pos", P * mx(x, 0))])))]))))
    return cert("weak duality: sum q_i p_i f_i <= G(f, eta) for q in Q_alpha", "002 Lemma 1", st,
                {"sum q_i p_i f_i <= G(f, eta)": ch}, [_shift_lemma("x <= (x)_+", ETA)])


def _split_lemma(name: str, k: Any) -> dict[str, Any]:
    """Lemma ``(x)_+ - (-x)_+ + k <= x + k`` for real ``x`` (it is an equality), by cases."""
    x = v("x")
    lhs = mx(x, 0) - mx(-x, 0) + k
    h = rep((1, [("hyp",)]))
    pos = [E.lift(lhs), link("==", x - mx(-x, 0) + k, "max", a=x, b=q(0), terms=h),
           link("==", x + k, "max", a=q(0), b=-x, terms=h)]
    neg = [E.lift(lhs), link("==", -mx(-x, 0) + k, "max", a=q(0), b=x, terms=h),
           link("==", x + k, "max", a=-x, b=q(0), terms=h)]
    return {"name": name, "vars": [["x", "real"]], "rel": "<=", "lhs": E.lift(lhs), "rhs": E.lift(x + k),
            "proof": {"cases": x.t, "chains": [pos, neg]}}


def complementary_certificate() -> dict[str, Any]:
    r"""002 Lemma 1 (first equality, the matching point): a feasible ``q`` and an ``eta`` in complementary slackness
    (``q_i = 1/alpha_i`` where ``f_i > eta``, ``q_i = 0`` where ``f_i < eta``, as one assumption: a sum of
    non-negative terms equal to 0) have ``G(f, eta) <= sum_i q_i p_i f_i``, so with weak duality
    ``sup_{Q_alpha} = G(f, eta) = inf_eta G`` whenever such a pair exists."""
    primal, g = sm(QF * P * F, 1, N), G(F, ETA)
    st = statement(dual_domain(), [("G(f, eta) <= sum q_i p_i f_i", "<=", g, primal, None)])
    st["assume"] = dual_assumptions(True)
    x = F - ETA
    mid = sm(QF * P * (mx(x, 0) - mx(-x, 0)), 1, N)
    ch = chain(g, link("==", ETA + mid, "assume_eq", mult=[[2, ["q", "1"]]]),
               link("==", mid + ETA * sm(QF * P, 1, N), "assume_eq", mult=[[1, E.lift(-ETA)]]),
               link("<=", primal, "sum_mono", lemma="(x)_+ - (-x)_+ <= x", term=E.lift(x), weight=E.lift(QF * P),
                    lo=["q", "1"], hi=N.t))
    return cert("complementary slackness: G(f, eta) <= sum q_i p_i f_i", "002 Lemma 1", st,
                {"G(f, eta) <= sum q_i p_i f_i": ch}, [_split_lemma("(x)_+ - (-x)_+ <= x", ETA)])


# ------------------------------------------------------------------------------------------ convexity of f_alpha
def convex_statement_parts() -> tuple[list[list[Any]], list[dict[str, Any]], E, E]:
    """Declarations, assumptions and the two sides of the convexity statement (:func:`convex_certificate`)."""
    lam, fa, fb, fl = v("lam"), at("fa", IDX), at("fb", IDX), at("fl", IDX)
    mid = lam * fa + (1 - lam) * fb
    symbols = paper_domain(["q", "family_bounded", q(0), 1 / AL], ["lam", "bounded", q(0), q(1)], ["fa", "family_real"],
                           ["fb", "family_real"], ["g", "family_nonnegative"],
                           ["fl", "family_bounded", mid - at("g", IDX), mid])
    assume = [_assume("==", sm(P, 1, N), q(1)), _assume("==", sm(QF * P, 1, N), q(1))]
    lhs = sm(QF * P * fl, 1, N)
    rhs = lam * sm(QF * P * fa, 1, N) + (1 - lam) * sm(QF * P * fb, 1, N)
    return symbols, assume, lhs, rhs


def convex_certificate() -> dict[str, Any]:
    r"""002 Sec. 3.2 (convexity of ``w -> f_alpha(w)`` for convex clients): for every ``q in Q_alpha``, ``lam in [0,
    1]`` and losses ``fa_i = f_i(a)``, ``fb_i = f_i(b)``, ``fl_i = f_i(lam a + (1 - lam) b) <= lam fa_i + (1 - lam)
    fb_i`` (client convexity; ``fl_i`` at least that minus some ``g_i >= 0``, i.e. any value below it):
    ``sum_i q_i p_i fl_i <= lam sum_i q_i p_i fa_i + (1 - lam) sum_i q_i p_i fb_i``.  The supremum over ``q`` of the
    left side is ``f_alpha(lam a + (1 - lam) b)``, of the right side at most ``lam f_alpha(a) + (1 - lam) f_alpha(b)``."""
    symbols, assume, lhs, rhs = convex_statement_parts()
    st = statement(symbols, [("f_alpha convex: sum q p f(lam a + (1-lam) b) <= lam ... + (1-lam) ...", "<=", lhs, rhs,
                              None)])
    st["assume"] = assume
    ch = chain(lhs, link("<=", rhs, "sos", terms=rep((1, [("sum", q(1), N, rep((1, [("pos", QF * P), ("fhi", "fl")])))]))))
    return cert("f_alpha is convex for convex clients: every q in Q_alpha", "002 Sec. 3.2", st,
                {"f_alpha convex: sum q p f(lam a + (1-lam) b) <= lam ... + (1-lam) ...": ch})


# ------------------------------------------------------------------------------------------ Remark 2
def remark2_certificate() -> dict[str, Any]:
    r"""002 Remark 2: for losses ``0 <= f_i <= B``, ``G(f, 0) <= G(f, eta1)`` for every ``eta1 <= 0`` and ``G(f, B) <=
    G(f, eta2)`` for every ``eta2 >= B``, so ``inf_{eta in R} G = inf_{eta in [0, B]} G``.

    Uses the kernel generators ``["max_le", a, b, R]`` (``a - max(a, b)``, which is 0, when ``a - b`` is the
    representation ``R``) and ``["max_ge", a, b]`` (``max(a, b) - a``) inside sum bodies.  Low side: ``G(f, 0) =
    sum c_i (f_i)_+ = sum c_i f_i <= sum c_i f_i - eta1 (tau - 1) = eta1 + sum c_i (f_i - eta1) <= G(f, eta1)``; high
    side: ``G(f, B) = B + sum c_i (f_i - B)_+ = B <= eta2 <= G(f, eta2)``."""
    B, e1, e2 = v("B"), v("eta1"), v("eta2")
    st = statement(paper_domain(["B", "nonnegative"], ["f", "family_bounded", q(0), B], ["eta1", "real"], ["eta2", "real"]),
                   [("G(f, 0) <= G(f, eta1) for eta1 <= 0", "<=", G(F, q(0)), G(F, e1), None),
                    ("G(f, B) <= G(f, eta2) for eta2 >= B", "<=", G(F, B), G(F, e2), None)])
    st["assume"] = [_assume("==", sm(P, 1, N), q(1)), _assume("<=", e1, q(0)), _assume("<=", B, e2)]
    cf = sm(CAP * F, 1, N)
    low = chain(G(F, q(0)),
                link("<=", cf, "sos", terms=rep((1, [("sum", q(1), N, rep((1, [("pos", CAP), ("max_le", F, q(0), rep(
                    (1, [("flo", "f")])))])))]))),
                link("<=", cf - e1 * (tau() - sm(P, 1, N)) - e1 * (sm(P, 1, N) - 1), "sos",
                     terms=rep((1, [("assume", 1), ("sum", q(1), N, rep((1, [("fhi", "alpha"), ("pos", CAP)])))]),
                               (1, [("assume", 1), ("assume_rev", 0)]))),
                link("==", e1 + sm(CAP * (F - e1), 1, N), "identity"),
                link("<=", G(F, e1), "sos", terms=rep((1, [("sum", q(1), N, rep((1, [("pos", CAP), ("max_ge", F - e1,
                                                                                                        q(0))])))]))))
    high = chain(G(F, B),
                 link("<=", B, "sos", terms=rep((1, [("sum", q(1), N, rep((1, [("pos", CAP), ("max_le", q(0), F - B, rep(
                     (1, [("fhi", "f")])))])))]))),
                 link("<=", e2, "sos", terms=rep((1, [("assume", 2)]))),
                 link("<=", G(F, e2), "sos", terms=rep((1, [("sum", q(1), N, rep((1, [("pos", CAP * mx(F - e2, 0))])))]))))
    return cert("Remark 2: eta restricted to [0, B] for losses in [0, B]", "002 Remark 2", st,
                {"G(f, 0) <= G(f, eta1) for eta1 <= 0": low, "G(f, B) <= G(f, eta2) for eta2 >= B": high})


# ------------------------------------------------------------------------------------------ Sec. 3.1: the FedAvg limit
def fedavg_limit_certificate() -> dict[str, Any]:
    r"""002 Sec. 3.1, ``alpha = 1``: every ``q in Q_1`` (``0 <= q_i <= 1``, ``sum_i q_i p_i = 1``) has ``sum_i q_i p_i
    f_i = sum_i p_i f_i`` (two inequalities; losses in a box ``[m, m + w]``, which every loss vector lies in), and
    ``q = 1`` is in ``Q_1`` (``sum p = 1``): ``f_alpha = sum_i p_i f_i``.  ``sum p f - sum q p f = sum (1 - q_i) p_i
    (f_i - m) >= 0`` and ``sum q p f - sum p f = sum (1 - q_i) p_i (m + w - f_i) >= 0`` (``sum (1 - q_i) p_i = 0``)."""
    m, w = v("m"), v("w")
    st = statement([["n", "count"], ["p", "family_nonnegative"], ["q", "family_bounded", q(0), q(1)], ["m", "real"],
                    ["w", "nonnegative"], ["f", "family_bounded", m, m + w]],
                   [("sum q p f <= sum p f", "<=", sm(QF * P * F, 1, N), sm(P * F, 1, N), None),
                    ("sum p f <= sum q p f", "<=", sm(P * F, 1, N), sm(QF * P * F, 1, N), None)])
    st["assume"] = [_assume("==", sm(P, 1, N), q(1)), _assume("==", sm(QF * P, 1, N), q(1))]
    qpf, pf = sm(QF * P * F, 1, N), sm(P * F, 1, N)
    up = chain(qpf, link("<=", qpf + sm((1 - QF) * P * (F - m), 1, N), "sos",
                         terms=rep((1, [("sum", q(1), N, rep((1, [("fhi", "q"), ("pos", P), ("flo", "f")])))]))),
               link("==", pf, "assume_eq", mult=[[0, E.lift(-m)], [1, E.lift(m)]]))
    low = chain(pf, link("<=", pf + sm((1 - QF) * P * (m + w - F), 1, N), "sos",
                         terms=rep((1, [("sum", q(1), N, rep((1, [("fhi", "q"), ("pos", P), ("fhi", "f")])))]))),
                link("==", qpf, "assume_eq", mult=[[0, E.lift(m + w)], [1, E.lift(-(m + w))]]))
    return cert("alpha = 1: every q in Q_1 gives sum p_i f_i", "002 Sec. 3.1", st,
                {"sum q p f <= sum p f": up, "sum p f <= sum q p f": low})


# ------------------------------------------------------------------------------------------ Lemma 1: the split form
# Every instance, after its clients are sorted by loss (the value is invariant under permuting clients), has the
# split form: ``K`` top clients (indices ``2..k``, ``K = k - 1 >= 0``) with caps ``ua_i >= 0``, ``U = sum ua <= 1``,
# losses ``eta + r_i`` (``r_i >= 0``); one boundary client with cap ``u0 >= 1 - U`` and loss ``eta``; ``M`` bottom
# clients (indices ``2..m``, ``M = m - 1 >= 0``) with caps ``ub_i >= 0`` and losses ``eta - s_i`` (``s_i >= 0``).
KS, MS = v("k"), v("m")
UA, RT, UB, SB = at("ua", IDX), at("r", IDX), at("ub", IDX), at("s", IDX)
U0 = v("u0")


def split_symbols(*s_decl: list[Any]) -> list[list[Any]]:
    """The split form's declarations (``s_decl``, when given, replaces the bottom gaps' declaration)."""
    return [["k", "count"], ["m", "count"], ["eta", "real"], ["ua", "family_nonnegative"], ["r", "family_nonnegative"],
            ["u0", "nonnegative"], ["ub", "family_nonnegative"], *(s_decl or [["s", "family_nonnegative"]])]


def split_G(eta: Any, u0: Any = U0, ub: Any = UB) -> E:
    """``G`` of a split instance at ``eta``: the three groups' hinge terms (top, boundary, bottom)."""
    return (eta + sm(UA * mx((ETA + RT) - eta, 0), 2, KS) + u0 * mx(ETA - eta, 0)
            + sm(ub * mx((ETA - SB) - eta, 0), 2, MS))


def split_certificate() -> dict[str, Any]:
    r"""002 Lemma 1 / Def. 1 (greedy closed form), on the split form (module comment above): the greedy point ``lam*``
    (top at their caps, boundary ``1 - U``, bottom 0) is feasible (``0 <= 1 - U <= u0``, weights sum to 1) with value
    ``V = eta + sum_top ua_i r_i``; ``G(eta) = V`` (``(r_i)_+ = r_i``, ``(0)_+ = 0``, ``(-s_i)_+ = 0``: generators
    ``max_le`` / ``max_ge`` in sum bodies); and ``V <= G(eta')`` for every real ``eta'`` (each hinge ``(x)_+ >= x``
    against the primal weights, ``1 - U <= u0``, the bottom terms ``>= 0``), so ``eta`` minimises ``G``."""
    e2 = v("eta2")
    U = sm(UA, 2, KS)
    val = ETA + sm(UA * RT, 2, KS)
    prim = sm(UA * (ETA + RT), 2, KS) + (1 - U) * ETA
    g, g2 = split_G(ETA), split_G(e2)
    st = statement(split_symbols() + [["eta2", "real"]],
                   [("boundary weight 0 <= 1 - U", "<=", q(0), 1 - U, None),
                    ("boundary weight 1 - U <= u0", "<=", 1 - U, U0, None),
                    ("greedy weights sum to 1", "==", U + (1 - U), q(1), None),
                    ("greedy value = eta + sum_top ua r", "==", prim, val, None),
                    ("G(eta) <= greedy value", "<=", g, val, None), ("greedy value <= G(eta)", "<=", val, g, None),
                    ("greedy value <= G(eta2)", "<=", val, g2, None)])
    st["assume"] = [_assume("<=", U, q(1)), _assume("<=", 1 - U, U0)]
    top_le = rep((1, [("pos", UA), ("max_le", RT, q(0), rep((1, [("pos", RT)])))]))
    bot_le = rep((1, [("pos", UB), ("max_le", q(0), -SB, rep((1, [("pos", SB)])))]))
    top_ge = rep((1, [("pos", UA), ("max_ge", RT, q(0))]))
    bot_ge = rep((1, [("pos", UB), ("max_ge", q(0), -SB)]))
    x2 = ETA - e2
    # V - eta2 = sum_top ua (eta + r - eta2) + (1 - U)(eta - eta2) <= sum_top ua (.)_+ + (1 - U)(.)_+ <= G(eta2) - eta2
    weak = chain(val, link("<=", e2 + sm(UA * mx(ETA + RT - e2, 0), 2, KS) + (1 - U) * mx(x2, 0), "sos", terms=rep(
        (1, [("sum", q(2), KS, rep((1, [("pos", UA), ("max_ge", ETA + RT - e2, q(0))])))]),
        (1, [("assume", 0), ("max_ge", x2, q(0))]))),
        link("<=", g2, "sos", terms=rep((1, [("assume", 1), ("pos", mx(x2, 0))]),
                                      (1, [("sum", q(2), MS, rep((1, [("pos", UB * mx(ETA - SB - e2, 0))])))]))))
    proofs = {"boundary weight 0 <= 1 - U": chain(q(0), link("<=", 1 - U, "sos", terms=rep((1, [("assume", 0)])))),
              "boundary weight 1 - U <= u0": chain(1 - U, link("<=", U0, "sos", terms=rep((1, [("assume", 1)])))),
              "greedy weights sum to 1": chain(U + (1 - U), link("==", q(1), "identity")),
              "greedy value = eta + sum_top ua r": chain(prim, link("==", val, "identity")),
              "G(eta) <= greedy value": chain(g, link("<=", val, "sos", terms=rep(
                  (1, [("sum", q(2), KS, top_le)]), (1, [("sum", q(2), MS, bot_le)])))),
              "greedy value <= G(eta)": chain(val, link("<=", g, "sos", terms=rep(
                  (1, [("sum", q(2), KS, top_ge)]), (1, [("sum", q(2), MS, bot_ge)])))),
              "greedy value <= G(eta2)": weak}
    return cert("split form: the greedy point is feasible, its value is G(eta) = min G", "002 Lemma 1, Def. 1", st, proofs)


def split_fedavg_certificate() -> dict[str, Any]:
    r"""002 Sec. 3.1, ``alpha = 1`` on the split form: caps ``u = p`` with ``U + u0 + sum_bottom ub = 1``; then the
    greedy value ``eta + sum_top ua r`` equals ``sum_i u_i f_i`` over all three groups (``= sum_i p_i f_i``).  The
    bottom gaps lie in ``[0, S]`` (every instance has such an ``S``): ``sum ub s <= S sum ub = S (1 - U - u0) <= 0``."""
    S = v("S")
    U, sub = sm(UA, 2, KS), sm(UB, 2, MS)
    val = ETA + sm(UA * RT, 2, KS)
    allv = sm(UA * (ETA + RT), 2, KS) + U0 * ETA + sm(UB * (ETA - SB), 2, MS)
    st = statement(split_symbols(["S", "nonnegative"], ["s", "family_bounded", q(0), S]),
                   [("greedy value <= sum_i p_i f_i", "<=", val, allv, None),
                    ("sum_i p_i f_i <= greedy value", "<=", allv, val, None)])
    st["assume"] = [_assume("<=", U, q(1)), _assume("<=", 1 - U, U0), _assume("==", U + U0 + sub, q(1))]
    up = chain(val, link("<=", val + sm(UB * (S - SB), 2, MS) + S * (U + U0 - 1), "sos", terms=rep(
        (1, [("sum", q(2), MS, rep((1, [("pos", UB), ("fhi", "s")])))]), (1, [("pos", S), ("assume", 1)]))),
        link("==", val - sm(UB * SB, 2, MS), "assume_eq", mult=[[2, E.lift(S)]]),
        link("==", allv, "assume_eq", mult=[[2, E.lift(-ETA)]]))
    down = chain(allv, link("==", val - sm(UB * SB, 2, MS), "assume_eq", mult=[[2, E.lift(ETA)]]),
                 link("<=", val, "sos", terms=rep((1, [("sum", q(2), MS, rep((1, [("pos", UB), ("flo", "s")])))]))))
    return cert("alpha = 1 on the split form: the greedy value is sum_i p_i f_i", "002 Sec. 3.1", st,
                {"greedy value <= sum_i p_i f_i": up, "sum_i p_i f_i <= greedy value": down})


def split_afl_certificate() -> dict[str, Any]:
    r"""002 Sec. 3.1, ``alpha = p`` on the split form: every cap is 1, so the greedy has no top client (``K = 0``) and
    the boundary client is a largest loss ``eta`` (every other loss is ``eta - s_i <= eta``): its point (weight 1 on the
    boundary) is feasible (``1 <= 1``) with value ``eta = max_i f_i``, and ``G(eta) = eta``."""
    g = ETA + q(1) * mx(ETA - ETA, 0) + sm(q(1) * mx((ETA - SB) - ETA, 0), 2, MS)
    st = statement([["m", "count"], ["eta", "real"], ["s", "family_nonnegative"]],
                   [("greedy value = eta", "==", q(1) * ETA, ETA, None),
                    ("G(eta) <= eta", "<=", g, ETA, None), ("eta <= G(eta)", "<=", ETA, g, None)])
    return cert("alpha = p on the split form: the value is the largest loss eta", "002 Sec. 3.1", st,
                {"greedy value = eta": chain(q(1) * ETA, link("==", ETA, "identity")),
                 "G(eta) <= eta": chain(g, link("<=", ETA, "sos", terms=rep(
                     (1, [("sum", q(2), MS, rep((1, [("max_le", q(0), -SB, rep((1, [("pos", SB)])))])))])))),
                 "eta <= G(eta)": chain(ETA, link("<=", g, "sos", terms=rep(
                     (1, [("sum", q(2), MS, rep((1, [("max_ge", q(0), -SB)])))]))))})


#: every certificate maker, by short name
ALL_CERTIFICATES = {"translation": translation_certificate, "hcvar_ru": hcvar_ru_certificate,
                    "remark1": remark1_certificate, "deviation_sign": deviation_sign_certificate,
                    "weak_duality": weak_duality_certificate, "complementary": complementary_certificate,
                    "convex": convex_certificate, "fedavg_limit": fedavg_limit_certificate,
                    "remark2": remark2_certificate, "split": split_certificate,
                    "split_fedavg": split_fedavg_certificate, "split_afl": split_afl_certificate}


def split_exact(f: list[Any], p: list[Any], alpha: list[Any]) -> tuple[Any, Any, int, int]:
    """The split form of an instance in exact rationals (002 Def. 1, Lemma 1: clients sorted by loss, the top ones at
    their caps ``p_i/alpha_i``, the boundary one with the remainder): ``(greedy value, boundary loss eta, K, M)``."""
    from fractions import Fraction

    fs, c = [Fraction(x) for x in f], [Fraction(x) / Fraction(y) for x, y in zip(p, alpha, strict=True)]
    order = sorted(range(len(fs)), key=lambda i: -fs[i])
    run = Fraction(0)
    for pos, j in enumerate(order):
        if run + c[j] >= 1:
            top = order[:pos]
            return fs[j] + sum((c[i] * (fs[i] - fs[j]) for i in top), Fraction(0)), fs[j], pos, len(fs) - pos - 1
        run += c[j]
    raise ValueError("tau_alpha < 1: alpha is outside [p, 1]")
