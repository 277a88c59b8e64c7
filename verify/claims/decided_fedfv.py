r"""004 (FedFV) decided exactly: the declared statements of the refuted seed claims and the symbolic proofs.

Every statement here is written independently of the certificate makers (:mod:`fairtheory.proofs.seed_fedfv`,
untrusted): the symbols with their domains, the assumptions (the theorem's hypothesis, written polynomially) and the
goals.  The runner binds a certificate to a claim only when the certificate's statement is implied by the declared
one (refuted claims, ``refutes=``) or implies it (proved claims, ``proves=``).  Derivations and the readings chosen
are in docs/decided/fedfv.md.

Refuted (declared here, claimed in :mod:`verify.claims.fedfv`, certificates of kind ``"counterexample"``):

* :func:`statement_theorem1_absolute` - 004 Thm. 1 as printed, ``m = 2``, ``g_i in R^2``;
* :func:`statement_theorem2_absolute` - 004 Thm. 2 as printed, ``m = 2``, ``g_i in R^2``;
* :func:`statement_last_target` - 004 App. A.1 "``g_m . gbar' >= 0``", FedFV's rule, ``m = 3``, ``g_i in R^2``;
* :func:`statement_theorem3_descent` - 004 Thm. 3 eq. 18, convex ``L``-smooth quadratics on ``R^2``;
* :func:`statement_theorem3_pareto` - 004 Thm. 3's limit: a 2-cycle of the eq. 10 iteration is Pareto-stationary.

Proved here (claims ``proofs.fedfv.*``, kind ``"symbolic"`` with assumptions, every dimension ``d``):

* ``proofs.fedfv.projection.step`` - 004 App. A.2 eq. 7 (:func:`statement_projection_step`);
* ``proofs.fedfv.theorem4.descent`` - 004 Thm. 4 eq. 21 given the descent lemma (:func:`statement_theorem4_descent`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from verify.core import ROUNDING, Context, Outcome, claim
from verify.settle import settle_symbolic

__all__ = ["statement_theorem1_absolute", "statement_theorem2_absolute", "statement_last_target",
           "statement_theorem3_descent", "statement_theorem3_pareto", "statement_projection_step",
           "statement_theorem4_descent", "REFUTED", "exact_details"]


# ------------------------------------------------------------------------------------------- term helpers
def _E() -> Any:
    from fairtheory.proofs import symbolic as S

    return S


def _sym(symbols: list[list[Any]], assume: list[tuple[str, Any, Any]], goals: list[tuple[str, str, Any, Any]]
         ) -> dict[str, Any]:
    S = _E()
    st: dict[str, Any] = {"kind": "symbolic",
                          "symbols": [[x[0], x[1], *[S.E.lift(t) for t in x[2:]]] for x in symbols],
                          "goals": [{"name": n, "rel": r, "lhs": S.E.lift(a), "rhs": S.E.lift(b)} for n, r, a, b in goals]}
    if assume:
        st["assume"] = [{"rel": r, "lhs": S.E.lift(a), "rhs": S.E.lift(b)} for r, a, b in assume]
    return st


def _inner(x: list[Any], y: list[Any]) -> Any:
    acc = x[0] * y[0]
    for k in range(1, len(x)):
        acc = acc + x[k] * y[k]
    return acc


def _comb(a: Any, x: list[Any], b: Any, y: list[Any]) -> list[Any]:
    """``a x + b y`` with the coefficients as terms (``1`` written as the rational 1)."""
    S = _E()
    ca, cb = (S.E(S.E.lift(t)) for t in (a, b))
    return [ca * x[k] + cb * y[k] for k in range(len(x))]


# ----------------------------------------------------------------------------------- Theorems 1-2, m = 2
_PAIR = [["a1", "real"], ["a2", "real"], ["b1", "real"], ["b2", "real"]]


def _two() -> tuple[list[Any], list[Any], Any, list[Any]]:
    """``g_1``, ``g_2``, ``g_1.g_2`` and ``gbar' = (g_1^{(2)} + g_2^{(1)})/2`` (004 App. A.1 update rules, ``m = 2``:
    ``g_1`` skips itself at step 1 and is projected onto ``g_2``'s normal plane at step 2; ``g_2`` is projected onto
    ``g_1``'s at step 1 and skips itself at step 2)."""
    S = _E()
    half = S.q("1/2")
    g1, g2 = [S.v("a1"), S.v("a2")], [S.v("b1"), S.v("b2")]
    dot = _inner(g1, g2)
    g1m = _comb(1, g1, -dot / _inner(g2, g2), g2)
    g2m = _comb(1, g2, -dot / _inner(g1, g1), g1)
    return g1, g2, dot, _comb(half, g1m, half, g2m)


def statement_theorem1_absolute() -> dict[str, Any]:
    r"""004 Thm. 1 (App. A.1 eq. 5) as printed, for ``m = 2`` gradients in ``R^2``.  For all ``g_1, g_2`` with
    ``g_1 . g_2 < 0`` (every projection step a conflict: ``g_1 . g_2 + s = 0``, ``s > 0``), ``0 < eps^2 = e2 <= 1``
    and ``cos^2(g_1, g_2) <= e2`` (for ``m = 2`` every cosine the proof bounds is ``cos(g_1, g_2)``):
    ``|g_k . gbar'| <= (e2/2) ||g_k|| sum_{j=k}^{1} sum_{i != j+1} ||g_i^{(j)}||``, i.e. ``(e2/2)||g_1||^2`` at
    ``k = 1`` (``g_1^{(1)} = g_1``) and 0 at ``k = 2`` (empty sum)."""
    S = _E()
    g1, g2, dot, gb = _two()
    e2 = S.v("e2")
    k1, k2 = _inner(g1, gb), _inner(g2, gb)
    return _sym(_PAIR + [["e2", "positive"], ["s", "positive"]],
                [("<=", e2, S.q(1)), ("==", dot + S.v("s"), S.q(0)),
                 ("<=", dot ** 2, e2 * _inner(g1, g1) * _inner(g2, g2))],
                [("k = 1", "<=", S.mx(k1, -k1), e2 / 2 * _inner(g1, g1)), ("k = 2", "<=", S.mx(k2, -k2), S.q(0))])


def statement_theorem2_absolute() -> dict[str, Any]:
    r"""004 Thm. 2 as printed, ``m = 2`` gradients in ``R^2``.  For all ``g_1, g_2`` with ``g_1 . g_2 < 0``,
    ``0 < E1 = eps1^2 <= E2 = eps2^2 <= 1``, ``E1 <= cos^2(g_1, g_2) <= E2``, ``r = (1 - E1)^{1/2}`` (``r >= 0``,
    ``r^2 = 1 - E1``): ``|g_k . gbar'| <= (1/2)(max_i ||g_i||)^2 f(2, k)``, ``f(2, k) = E2 r (1 - r^{2-k})/(1 - r)``,
    for ``k = 1, 2``."""
    S = _E()
    g1, g2, dot, gb = _two()
    E1, E2, r = S.v("E1"), S.v("E2"), S.v("r")
    n1, n2 = _inner(g1, g1), _inner(g2, g2)
    top = S.mx(n1, n2)
    k1, k2 = _inner(g1, gb), _inner(g2, gb)
    f1, f2 = E2 * r * (1 - r ** 1) / (1 - r), E2 * r * (1 - r ** 0) / (1 - r)
    return _sym(_PAIR + [["E1", "positive"], ["E2", "positive"], ["r", "nonnegative"], ["s", "positive"]],
                [("<=", E1, E2), ("<=", E2, S.q(1)), ("==", r ** 2, 1 - E1), ("==", dot + S.v("s"), S.q(0)),
                 ("<=", E1 * n1 * n2, dot ** 2), ("<=", dot ** 2, E2 * n1 * n2)],
                [("k = 1", "<=", S.mx(k1, -k1), S.q("1/2") * top * f1), ("k = 2", "<=", S.mx(k2, -k2), S.q("1/2") * top * f2)])


def statement_last_target() -> dict[str, Any]:
    r"""004 App. A.1 ("the final gradient gbar' will not conflict with [g_m]") under FedFV's rule (Alg. 2: a
    projection happens only on a conflict), ``m = 3`` non-zero gradients in ``R^2`` (``||g_i||^2 = n_i > 0``):
    ``0 <= g_3 . gbar'``, ``gbar' = (1/3) sum_i g_i^{(3)}``, each ``g_i`` walked through ``g_1, g_2, g_3`` (skipping
    itself) with ``x -> x + (max(0, -x.g_j)/n_j) g_j``."""
    S = _E()
    G = [[S.v("a1"), S.v("a2")], [S.v("b1"), S.v("b2")], [S.v("c1"), S.v("c2")]]
    n = [S.v("n1"), S.v("n2"), S.v("n3")]
    finals = []
    for i in range(3):
        x = G[i]
        for j in (0, 1, 2):
            if j == i:
                continue
            x = _comb(1, x, S.mx(S.q(0), -_inner(x, G[j])) / n[j], G[j])
        finals.append(x)
    third = S.q("1/3")
    avg = [S.E(S.E.lift(third)) * finals[0][k] + S.E(S.E.lift(third)) * finals[1][k]
           + S.E(S.E.lift(third)) * finals[2][k] for k in range(2)]
    return _sym(_PAIR + [["c1", "real"], ["c2", "real"], ["n1", "positive"], ["n2", "positive"], ["n3", "positive"]],
                [("==", _inner(G[k], G[k]), n[k]) for k in range(3)],
                [("no conflict with the last target", "<=", S.q(0), _inner(G[2], avg))])


# --------------------------------------------------------------------------------------------- Theorem 3
def _quad_decls() -> list[list[Any]]:
    S = _E()
    L = S.v("L")
    out: list[list[Any]] = [["L", "positive"], ["eta", "positive"]]
    for i in ("1", "2"):
        out += [["A" + i, "bounded", S.q(0), L], ["C" + i, "bounded", S.q(0), L], ["B" + i, "real"]]
    return out + [["u1", "real"], ["w1", "real"], ["u2", "real"], ["w2", "real"], ["x", "real"], ["y", "real"],
                  ["s", "positive"]]


def _client(i: str, at: list[Any]) -> tuple[list[Any], Any]:
    """Gradient and value at ``at`` of ``F_i(theta) = theta^T H_i theta/2 - beta_i . theta``, ``H_i = [[A_i, B_i],
    [B_i, C_i]]``, ``beta_i = (u_i, w_i)``."""
    S = _E()
    A, B, C = S.v("A" + i), S.v("B" + i), S.v("C" + i)
    beta = [S.v("u" + i), S.v("w" + i)]
    Hx = [A * at[0] + B * at[1], B * at[0] + C * at[1]]
    return [Hx[0] - beta[0], Hx[1] - beta[1]], S.q("1/2") * _inner(at, Hx) - _inner(beta, at)


def _direction(g1: list[Any], g2: list[Any], sq1: Any, sq2: Any) -> list[Any]:
    """004 eq. 10 direction ``g_1 + g_2 - (g_1.g_2/||g_1||^2) g_1 - (g_1.g_2/||g_2||^2) g_2``, the squared norms
    given as the symbols ``sq1``, ``sq2`` (``> 0``, equal to ``||g_i||^2`` by assumption)."""
    dot = _inner(g1, g2)
    return _comb(1 - dot / sq1, g1, 1 - dot / sq2, g2)


def _smooth_convex() -> list[tuple[str, Any, Any]]:
    """``0 <= H_i <= L I``: with the declared ``A_i, C_i in [0, L]``, ``B_i^2 <= A_i C_i`` and ``B_i^2 <= (L - A_i)(L -
    C_i)``; and ``eta <= 1/L``."""
    S = _E()
    L = S.v("L")
    out: list[tuple[str, Any, Any]] = []
    for i in ("1", "2"):
        A, B, C = S.v("A" + i), S.v("B" + i), S.v("C" + i)
        out.append(("<=", B ** 2, A * C))
        out.append(("<=", B ** 2, (L - A) * (L - C)))
    out.append(("<=", S.v("eta") * L, S.q(1)))
    return out


def statement_theorem3_descent() -> dict[str, Any]:
    r"""004 Thm. 3 eq. 18 for two convex ``L``-smooth quadratics ``F_i`` on ``R^2`` (``0 <= H_i <= L I``),
    ``F = (F_1 + F_2)/2``, ``0 < eta <= 1/L``, at a conflict ``g_1 . g_2 < 0``: with ``(X, Y) = theta - eta gbar'``
    (``gbar'`` of eq. 10), ``F(X, Y) <= F(theta) - (eta/2)(1 - cos^2 phi_12) ||g_1 + g_2||^2``."""
    S = _E()
    th, nxt = [S.v("x"), S.v("y")], [S.v("X"), S.v("Y")]
    g1, f1 = _client("1", th)
    g2, f2 = _client("2", th)
    _, e1 = _client("1", nxt)
    _, e2 = _client("2", nxt)
    eta, dot, n1, n2 = S.v("eta"), _inner(g1, g2), S.v("n1"), S.v("n2")
    end = _comb(1, th, -eta, _direction(g1, g2, n1, n2))
    cos2 = dot ** 2 / (n1 * n2)
    gsum = _comb(1, g1, 1, g2)
    return _sym(_quad_decls() + [["n1", "positive"], ["n2", "positive"], ["X", "real"], ["Y", "real"]],
                _smooth_convex() + [("==", dot + S.v("s"), S.q(0)), ("==", _inner(g1, g1), n1), ("==", _inner(g2, g2), n2),
                                    ("==", nxt[0], end[0]), ("==", nxt[1], end[1])],
                [("eq. 18", "<=", (e1 + e2) / 2, (f1 + f2) / 2 - eta / 2 * (1 - cos2) * _inner(gsum, gsum))])


def statement_theorem3_pareto() -> dict[str, Any]:
    r"""004 Thm. 3's conclusion at a limit point, for the eq. 10 iteration ``T`` on two convex ``L``-smooth quadratics
    on ``R^2``, ``0 < eta <= 1/L``: if ``p = T(theta)`` and ``theta = T(p)`` (both steps conflicts), ``theta`` is a limit
    point of the iterates from ``theta``, hence Pareto-stationary or optimal; either forces the Gram determinant
    ``||g_1||^2 ||g_2||^2 - (g_1.g_2)^2 <= 0`` at ``theta``."""
    S = _E()
    th, p = [S.v("x"), S.v("y")], [S.v("X"), S.v("Y")]
    g1, _ = _client("1", th)
    g2, _ = _client("2", th)
    h1, _ = _client("1", p)
    h2, _ = _client("2", p)
    eta, sq = S.v("eta"), [S.v(x) for x in ("n1", "n2", "m1", "m2")]
    Tth, Tp = _comb(1, th, -eta, _direction(g1, g2, sq[0], sq[1])), _comb(1, p, -eta, _direction(h1, h2, sq[2], sq[3]))
    gram = _inner(g1, g1) * _inner(g2, g2) - _inner(g1, g2) ** 2
    norms = [("==", _inner(z, z), sq[k]) for k, z in enumerate((g1, g2, h1, h2))]
    return _sym(_quad_decls() + [["X", "real"], ["Y", "real"], ["S", "positive"]] + [[x, "positive"] for x in
                                                                                     ("n1", "n2", "m1", "m2")],
                _smooth_convex() + [("==", _inner(g1, g2) + S.v("s"), S.q(0)), ("==", _inner(h1, h2) + S.v("S"), S.q(0))]
                + norms + [("==", p[0], Tth[0]), ("==", p[1], Tth[1]), ("==", th[0], Tp[0]), ("==", th[1], Tp[1])],
                [("Pareto-stationary 2-cycle", "<=", gram, S.q(0))])


#: the refuted seed claims' declared statements, by claim id
REFUTED = {"fedfv.theorem1.absolute": statement_theorem1_absolute, "fedfv.theorem2.absolute": statement_theorem2_absolute,
           "fedfv.theorem1.last_target": statement_last_target, "fedfv.theorem3.descent": statement_theorem3_descent,
           "fedfv.theorem3.pareto": statement_theorem3_pareto}


def exact_details(claim_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(certificate, details)`` for a refuted seed claim: the counterexample certificate (re-checked by the runner)
    and its instance in words (point, violated goal, exact margin)."""
    from fairtheory.proofs.seed_fedfv import ALL_COUNTEREXAMPLES

    cert = ALL_COUNTEREXAMPLES[claim_id]()
    ev = cert["evidence"]
    point = {k: str(Fraction(t[1])) if t[0] == "q" else t for k, t in ev["point"]}
    return cert, {"exact_counterexample": {"goal": ev["goal"], "margin": ev["margin"], "point": point,
                                           "title": cert["title"]}}


# ------------------------------------------------------------------------------------------ proved claims
def statement_projection_step() -> dict[str, Any]:
    r"""004 Alg. 2 / App. A.2 eq. 7, every dimension ``d``: for ``g, h in R^d`` (families ``g_i, h_i``,
    ``i = 1..d``) with ``||g||^2 = M > 0``, ``||h||^2 = N > 0``, ``c = g.h/N`` and ``g' = g - c h``:
    ``g'.h = 0`` and ``||g'||^2 = (1 - (g.h)^2/(M N)) M = (1 - cos^2(g, h)) ||g||^2``."""
    S = _E()
    d, c, M, N = S.v("n"), S.v("c"), S.v("M"), S.v("N")
    gi, hi = S.at("g", S.IDX), S.at("h", S.IDX)
    gh = S.sm(gi * hi, 1, d)
    proj = gi - c * hi
    return _sym([["n", "count"], ["g", "family_real"], ["h", "family_real"], ["M", "positive"], ["N", "positive"],
                 ["c", "real"]],
                [("==", S.sm(gi ** 2, 1, d), M), ("==", S.sm(hi ** 2, 1, d), N), ("==", c, gh / N)],
                [("no conflict after", "==", S.sm(proj * hi, 1, d), S.q(0)),
                 ("eq. 7", "==", S.sm(proj ** 2, 1, d), (1 - gh ** 2 / (M * N)) * M)])


def statement_theorem4_descent() -> dict[str, Any]:
    r"""004 Thm. 4 eq. 21, every dimension ``d``: for ``gb = gbar``, ``gp = gbar'`` in ``R^d`` with ``A = ||gb||``,
    ``B = ||gp||`` (``A, B >= 0``, ``A^2``, ``B^2`` the sums of squares), ``cos(gb, gp) >= 1/2`` (``gb.gp >= AB/2``),
    ``||gbar'|| <= ||gbar||``, ``0 < eta``, ``eta L <= 1``, and ``F1 = F(theta - eta gp)``, ``F0 = F(theta)`` meeting
    the descent lemma of an ``L``-smooth ``F`` with gradient ``gb`` (a hypothesis: ``F1 <= F0 - eta gb.gp + (L/2)
    eta^2 ||gp||^2``): ``F1 <= F0 + (-eta/2 + L eta^2/2) A B`` and ``F1 <= F0``."""
    S = _E()
    d, A, B, L, eta, F0, F1 = (S.v(x) for x in ("n", "A", "B", "L", "eta", "F0", "F1"))
    gb, gp = S.at("gb", S.IDX), S.at("gp", S.IDX)
    inner, sq = S.sm(gb * gp, 1, d), S.sm(gp ** 2, 1, d)
    return _sym([["n", "count"], ["gb", "family_real"], ["gp", "family_real"], ["A", "nonnegative"],
                 ["B", "nonnegative"], ["L", "positive"], ["eta", "positive"], ["F0", "real"], ["F1", "real"]],
                [("==", S.sm(gb ** 2, 1, d), A ** 2), ("==", sq, B ** 2), ("<=", A * B / 2, inner), ("<=", B, A),
                 ("<=", eta * L, S.q(1)), ("<=", F1, F0 - eta * inner + L / 2 * eta ** 2 * sq)],
                [("eq. 21", "<=", F1, F0 + (-eta / 2 + L * eta ** 2 / 2) * A * B), ("F decreases", "<=", F1, F0)])


def _settle(certs: Any, declared: Any, **kw: Any) -> Outcome:
    """:func:`verify.settle.settle_symbolic` naming docs/decided/fedfv.md."""
    return settle_symbolic(certs, declared, docs="docs/decided/fedfv.md", **kw)


@claim("proofs.fedfv.projection.step", citation="004 App. A.2 eq. 7",
       statement="for every d and all g, h in R^d with g, h != 0: g' = g - (g.h/|h|^2) h has g'.h = 0 and "
                 "|g'|^2 = (1 - cos^2(g, h)) |g|^2 (symbolic proof with assumptions)",
       expected="proved", proves=statement_projection_step)
def projection_step(ctx: Context) -> Outcome:
    """Two ``assume_eq`` identities (docs/decided/fedfv.md); the library's float projection beside them."""
    import numpy as np

    from fairtheory.instances import fedfv as inst
    from fairtheory.proofs.seed_fedfv import projection_step_certificate

    A = np.array([[3.0, -1.0, 2.0], [-2.0, 1.0, 0.5]])  # g_1 . g_2 = -6 < 0: g_1 is projected at target 2
    r = inst.projection_norm(grads=A, target=2)
    return _settle(projection_step_certificate(), statement_projection_step(), measured=float(r.measured),
                   bound=float(r.theory), relation="==", error=abs(float(r.measured) - float(r.theory)), tolerance=ROUNDING,
                   explain="measured = library ||g'||^2/||g||^2 of g_1 = (3, -1, 2) projected onto g_2 = (-2, 1, 1/2), "
                           "bound = 1 - cos^2 (the proved eq. 7)",
                   details={"library projected": bool(r.extra.get("projected"))})


@claim("proofs.fedfv.theorem4.descent", citation="004 Thm. 4 eq. 21",
       statement="for every d, all gbar, gbar' in R^d with cos(gbar, gbar') >= 1/2, |gbar'| <= |gbar|, 0 < eta <= 1/L and "
                 "the descent lemma of an L-smooth F at theta - eta gbar' as a hypothesis: F(theta+) <= F(theta) + "
                 "(-eta/2 + L eta^2/2)|gbar||gbar'| <= F(theta) (symbolic proof with assumptions)",
       expected="proved", proves=statement_theorem4_descent)
def theorem4_descent(ctx: Context) -> Outcome:
    """One ``sos`` step over the assumption generators (docs/decided/fedfv.md); the library's float check of eq. 21
    on one quadratic instance beside it."""
    from fairtheory.proofs.seed_fedfv import theorem4_descent_certificate

    cert = theorem4_descent_certificate()
    # second route: a 1-D instance, F = (L/2) x^2, L = 1, eta = 1/2, gbar = gbar' = F'(2) = 2 (cos = 1, equal norms)
    L, eta, g = 1.0, 0.5, 2.0
    decrease = 0.5 * L * 2.0 ** 2 - 0.5 * L * (2.0 - eta * g) ** 2
    guaranteed = (eta / 2 - L * eta ** 2 / 2) * g * g
    return _settle(cert, statement_theorem4_descent(), measured=decrease, bound=guaranteed, relation=">=",
                   explain="measured = F(theta) - F(theta - eta gbar') for F = x^2/2 at theta = 2, eta = 1/2; bound = the "
                           "proved guaranteed decrease (eta/2 - L eta^2/2)|gbar||gbar'|",
                   details={"descent lemma": "taken as a hypothesis (F L-smooth), not derived"})
