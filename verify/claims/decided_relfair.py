r"""The relative-fairness seed claims (001, reconstructed: /work/shared/spec/relative.md) decided exactly.

Each claim declares its statement here, written independently of the certificate makers
(:mod:`fairtheory.proofs.seed_relfair`): symbols with their domains, the assumptions (``"assume"``: the
hypotheses of the lemma, e.g. ``c <= V <= C``, the optimality inequalities that model a global minimiser, or the
stationarity equations that characterise one) and the goals.

* Proved claims (``proves=``, :data:`DECLARED`) build their ``"symbolic"`` certificates, require each certificate's
  statement to imply a declared one (:func:`fairtheory_kernel.symbolic.implies`), re-check it with
  :func:`fairtheory_kernel.check.check_proof`, and evaluate the library's float implementation next to it.
* Refuted claims (``expected="refuted"``, ``refutes=``, :data:`REFUTED`) return a ``"counterexample"`` certificate of
  a special case of the seed claim; the runner records ``refuted_exactly`` only when it re-checks and the declared
  statement implies its statement (:func:`verify.core.bind_refutation`).  ``proofs.relfair.theorem1.monotone`` and
  ``proofs.relfair.skewness.monotone`` decide their seed claims this way.
* A proof that covers less than a seed claim's whole hypothesis has its own id (``proofs.relfair.theorem1.shared_point``,
  ``proofs.relfair.skewness.nested_sets``, ``proofs.relfair.theorem2.instance``,
  ``proofs.relfair.penguins.index_monotone``) and decides no seed claim.

docs/decided/relfair.md has the derivations and the coverage of every seed claim.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from verify.core import ROUNDING, Context, Outcome, claim
from verify.settle import settle_symbolic


def _settle(certs: Any, declared: Any, **kw: Any) -> Outcome:
    """:func:`verify.settle.settle_symbolic` naming docs/decided/relfair.md."""
    return settle_symbolic(certs, declared, docs="docs/decided/relfair.md", **kw)


# ---------------------------------------------------------------------------------- declared statements
def _assume(*rels: tuple[str, Any, Any]) -> list[dict[str, Any]]:
    from fairtheory.proofs.symbolic import E

    return [{"rel": r, "lhs": E.lift(a), "rhs": E.lift(b)} for r, a, b in rels]


def statement_prop9() -> dict[str, Any]:
    """001 Prop. 9: for ``c, V, C > 0``, real ``U``, ``phi`` with ``c <= V <= C`` and ``phi V <= U``:
    ``phi + (U - phi V)/C <= U/V <= phi + (U - phi V)/c``, ``d/dphi`` lower ``>= 0``, ``d/dphi`` upper ``<= 0``."""
    from fairtheory.proofs.symbolic import d, q, statement, v

    c, V, C, U, phi = v("c"), v("V"), v("C"), v("U"), v("phi")
    lower, upper = phi + (U - phi * V) / C, phi + (U - phi * V) / c
    st = statement([["c", "positive"], ["V", "positive"], ["C", "positive"], ["U", "real"], ["phi", "real"]],
                   [("lower bound", "<=", lower, U / V, None), ("upper bound", "<=", U / V, upper, None),
                    ("lower bound non-decreasing in phi", "<=", q(0), d(lower, "phi"), None),
                    ("upper bound non-increasing in phi", "<=", d(upper, "phi"), q(0), None)])
    return {**st, "assume": _assume(("<=", c, V), ("<=", V, C), ("<=", phi * V, U))}


def statement_theorem1() -> dict[str, Any]:
    """001 Thm. 1 / App. E.1: ``phi >= 0``, ``delta > 0``, ``phi' = phi + delta <= 1``, ``V, V' > 0``, ``V <= U``
    (shared point), ``U - phi V <= U' - phi V'`` and ``U' - phi' V' <= U - phi' V`` (optimality of ``w*_phi`` and
    ``w*_phi'``): eq. 21, eq. 22 and ``U'/V' <= U/V``."""
    from fairtheory.proofs.symbolic import q, statement, v

    phi, dl, V, V2, U, U2 = v("phi"), v("delta"), v("V"), v("V2"), v("U"), v("U2")
    p2 = phi + dl
    st = statement([["phi", "nonnegative"], ["delta", "positive"], ["V", "positive"], ["V2", "positive"],
                    ["U", "real"], ["U2", "real"]],
                   [("eq. 21: V <= V'", "<=", V, V2, None),
                    ("eq. 22: U' - U <= phi'(V' - V)", "<=", U2 - U, p2 * (V2 - V), None),
                    ("index non-increasing: U'/V' <= U/V", "<=", U2 / V2, U / V, None)])
    return {**st, "assume": _assume(("<=", p2, q(1)), ("<=", V, U), ("<=", U - phi * V, U2 - phi * V2),
                                    ("<=", U2 - p2 * V2, U - p2 * V))}


def _t1_parts(x: Any) -> tuple[Any, Any]:
    """``U = f_1 = x^2 + 1/100`` and ``V = f_2 = (x - 1)^2 + 1`` of the instance ``A = {e_1}``, ``B = {e_2}``."""
    return x ** 2 + Fraction(1, 100), (x - 1) ** 2 + 1


def _t1_stationarity(w0: Any, w1: Any) -> list[dict[str, Any]]:
    """``d/dw [(U - phi V)/(1 - phi)] = (2 w - phi 2 (w - 1))/(1 - phi)`` is 0 at ``w0`` (``phi = 0``) and at ``w1``
    (``phi' = 1/2``)."""
    from fairtheory.proofs.symbolic import q

    def slope(x: Any, phi: Fraction) -> Any:
        return (2 * x - phi * (2 * (x - 1))) / (1 - phi)

    return _assume(("==", slope(w0, Fraction(0)), q(0)), ("==", slope(w1, Fraction(1, 2)), q(0)))


def statement_theorem1_instance() -> dict[str, Any]:
    """001 Thm. 1 (reconstructed, Assumption 1 only), its special case ``A = {e_1}``, ``B = {e_2}``, ``f_1 = w^2 +
    1/100``, ``f_2 = (w - 1)^2 + 1``, ``phi = 0``, ``phi' = 1/2``: for all real ``w0``, ``w1`` at which problem (8)'s
    objective is stationary (at ``phi`` resp. ``phi'``; a convex quadratic with leading coefficient 1, so these are
    exactly its global solutions: :func:`statement_theorem1_instance_solutions`), ``I(w1) <= I(w0)``: refuted."""
    from fairtheory.proofs.symbolic import statement, v

    w0, w1 = v("w0"), v("w1")
    (u0, v0), (u1, v1) = _t1_parts(w0), _t1_parts(w1)
    st = statement([["w0", "real"], ["w1", "real"]], [("I(w*_phi') <= I(w*_phi)", "<=", u1 / v1, u0 / v0, None)])
    return {**st, "assume": _t1_stationarity(w0, w1)}


def statement_theorem1_instance_solutions() -> dict[str, Any]:
    """For the instance of :func:`statement_theorem1_instance`: ``V(w) >= 1`` (Assumption 1), and a stationary ``w0``
    (``w1``) is the unique global solution of (8) at ``phi = 0`` (``1/2``): ``obj(w_k) + (w - w_k)^2 <= obj(w)``."""
    from fairtheory.proofs.symbolic import q, statement, v

    w, w0, w1 = v("w"), v("w0"), v("w1")

    def obj(x: Any, phi: Fraction) -> Any:
        u, vv = _t1_parts(x)
        return (u - phi * vv) / (1 - phi)

    h, z = Fraction(1, 2), Fraction(0)
    st = statement([["w", "real"], ["w0", "real"], ["w1", "real"]], [
        ("Assumption 1: V(w) >= 1 > 0", "<=", q(1), _t1_parts(w)[1], None),
        ("w0 is the unique global solution at phi = 0", "<=", obj(w0, z) + (w - w0) ** 2, obj(w, z), None),
        ("w1 is the unique global solution at phi' = 1/2", "<=", obj(w1, h) + (w - w1) ** 2, obj(w, h), None)])
    return {**st, "assume": _t1_stationarity(w0, w1)}


def _support(rel: str) -> dict[str, Any]:
    from fairtheory.proofs.symbolic import IDX, at, sm, statement, v

    n, phi, t, U, V = v("n"), v("phi"), v("t"), v("U"), v("V")
    lam = (at("a", IDX) - phi * at("b", IDX)) / t
    af, bf = sm(at("a", IDX) * at("f", IDX), 1, n), sm(at("b", IDX) * at("f", IDX), 1, n)
    name = "lam.f <= D_phi/(1 - phi)" if rel == "<=" else "lam.f = D_phi/(1 - phi)"
    st = statement([["n", "count"], ["a", "family_real"], ["b", "family_real"], ["f", "family_real"], ["U", "real"],
                    ["V", "real"], ["phi", "nonnegative"], ["t", "positive"]],
                   [(name, rel, sm(lam * at("f", IDX), 1, n), (U - phi * V) / t, None)])
    return {**st, "assume": _assume(("==", t, 1 - phi), (rel, af, U), (rel, V, bf))}


def statements_integrated() -> list[dict[str, Any]]:
    """001 eqs. 6-8: (1) ``sum a = sum b = 1``, ``t = 1 - phi > 0``: ``sum_i (a_i - phi b_i)/t = 1``; (2) ``a.f <= U``,
    ``b.f >= V``, ``phi >= 0``: ``lam.f <= (U - phi V)/t``; (3) ``a.f = U``, ``b.f = V``: equality."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, phi, t = v("n"), v("phi"), v("t")
    st = statement([["n", "count"], ["a", "family_real"], ["b", "family_real"], ["phi", "real"], ["t", "positive"]],
                   [("members of Lambda_phi sum to 1", "==", sm((at("a", IDX) - phi * at("b", IDX)) / t, 1, n), q(1),
                     None)])
    sums = {**st, "assume": _assume(("==", sm(at("a", IDX), 1, n), q(1)), ("==", sm(at("b", IDX), 1, n), q(1)),
                                    ("==", t, 1 - phi))}
    return [sums, _support("<="), _support("==")]


def statement_lemma8() -> dict[str, Any]:
    """001 Lemma 8: ``a, b >= 0`` summing to 1, ``L = mu + k`` with ``k >= 0``, ``h_i in [mu, L]``, ``phi >= 0``,
    ``t = 1 - phi > 0``: ``(mu - phi L)/t <= sum_i (a_i - phi b_i)/t h_i``."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, phi, t, mu, k = v("n"), v("phi"), v("t"), v("mu"), v("k")
    L = mu + k
    a, b, h = at("a", IDX), at("b", IDX), at("h", IDX)
    st = statement([["n", "count"], ["a", "family_nonnegative"], ["b", "family_nonnegative"], ["mu", "real"],
                    ["k", "nonnegative"], ["h", "family_bounded", mu, L], ["phi", "nonnegative"], ["t", "positive"]],
                   [("sum_i lam_i h_i >= (mu - phi L)/(1 - phi)", "<=", (mu - phi * L) / t,
                     sm((a - phi * b) / t * h, 1, n), None)])
    return {**st, "assume": _assume(("==", sm(a, 1, n), q(1)), ("==", sm(b, 1, n), q(1)), ("==", t, 1 - phi))}


def statements_skewness() -> list[dict[str, Any]]:
    """001 Sec. 6: (1) ``0 < phi``, ``phi' = phi + delta``, ``1 - phi' = t > 0``; if ``|a|^2 <= |lam_phi(a, b)|^2`` then
    ``|lam_phi(a, b)|^2 <= |lam_phi'(a, b)|^2``; (2) ``lam_phi'(a, a) = a`` for ``phi' = 1 - t``."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, phi, dl, t = v("n"), v("phi"), v("delta"), v("t")
    a, b = at("a", IDX), at("b", IDX)
    now = sm(((a - phi * b) / (dl + t)) ** 2, 1, n)
    later = sm(((a - (phi + dl) * b) / t) ** 2, 1, n)
    step = statement([["n", "count"], ["a", "family_real"], ["b", "family_real"], ["phi", "positive"],
                      ["delta", "positive"], ["t", "positive"]], [("|lam_phi|^2 <= |lam_phi'|^2", "<=", now, later, None)])
    step = {**step, "assume": _assume(("==", phi + dl + t, q(1)), ("<=", sm(a ** 2, 1, n), now))}
    start = statement([["n", "count"], ["a", "family_real"], ["t", "positive"]],
                      [("|lam_phi'(a, a)|^2 = |a|^2", "==", sm(((a - (1 - t) * a) / t) ** 2, 1, n), sm(a ** 2, 1, n),
                        None)])
    return [step, start]


def statement_theorem2_instance() -> dict[str, Any]:
    """``f_1 = w^2 + 1``, ``f_2 = (w - 1)^2/10 + 1/2``, ``A = B = Delta_2``: ``V >= 1/2``, unique global minimisers
    ``w*_0 = 0``, ``w*_{1/2} = -1/19``, index ``5/3 -> 724/441``."""
    from fairtheory.proofs.symbolic import mx, q, statement, v

    w = v("w")

    def UV(x: Any) -> tuple[Any, Any]:
        x = q(x) if not hasattr(x, "t") else x
        f1, f2 = x ** 2 + 1, (x - 1) ** 2 * Fraction(1, 10) + Fraction(1, 2)
        return mx(f1, f2), f1 + f2 - mx(f1, f2)

    def obj(x: Any, phi: Fraction) -> Any:
        U, V = UV(x)
        return (U - phi * V) / (1 - phi)

    def index(x: Any) -> Any:
        U, V = UV(x)
        return U / V

    h, w1 = Fraction(1, 2), Fraction(-1, 19)
    return statement([["w", "real"]], [
        ("Assumption 1: V(w) >= 1/2 > 0", "<=", q(h), UV(w)[1], None),
        ("w = 0 unique global minimiser at phi = 0", "<=", obj(0, Fraction(0)) + w ** 2, obj(w, Fraction(0)), None),
        ("w = -1/19 unique global minimiser at phi = 1/2", "<=", obj(w1, h) + Fraction(19, 10) * (w - w1) ** 2,
         obj(w, h), None),
        ("index at w*_0 is 5/3", "==", index(0), q(Fraction(5, 3)), None),
        ("index at w*_(1/2) is 724/441", "==", index(w1), q(Fraction(724, 441)), None),
        ("index decreases by 11/441", "<=", index(w1) + Fraction(11, 441), index(0), None)])


def statements_cvar() -> list[dict[str, Any]]:
    """001 Ex. 1-2: ``C = {lam in Delta_n : lam_i <= 1/kap}``, ``f_i = tau + p_i - m_i`` (``p, m >= 0``), ``z in [0, 1]^n``
    with ``sum z = kap``: (1) top set (``sum (1 - z) p = 0``, ``sum z m = 0``): ``lam.f <= (1/kap) sum z f``;
    (2) bottom set (``sum (1 - z) m = 0``, ``sum z p = 0``): ``(1/kap) sum z f <= lam.f``; (3) ``z/kap`` sums to 1 and
    attains."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, kap, tau = v("n"), v("kap"), v("tau")
    lam, z, f, p, m = at("lam", IDX), at("z", IDX), at("f", IDX), at("p", IDX), at("m", IDX)
    symbols = [["n", "count"], ["kap", "positive"], ["tau", "real"], ["p", "family_nonnegative"],
               ["m", "family_nonnegative"], ["f", "family_bounded", tau + p - m, tau + p - m],
               ["z", "family_bounded", q(0), q(1)], ["lam", "family_bounded", q(0), 1 / kap]]
    top = statement(symbols, [("lam.f <= mean of the kap largest", "<=", sm(lam * f, 1, n), sm(z * f, 1, n) / kap,
                               None)])
    top["assume"] = _assume(("==", sm(lam, 1, n), q(1)), ("==", sm(z, 1, n), kap), ("==", sm((1 - z) * p, 1, n), q(0)),
                            ("==", sm(z * m, 1, n), q(0)))
    bottom = statement(symbols, [("mean of the kap smallest <= lam.f", "<=", sm(z * f, 1, n) / kap, sm(lam * f, 1, n),
                                  None)])
    bottom["assume"] = _assume(("==", sm(lam, 1, n), q(1)), ("==", sm(z, 1, n), kap),
                               ("==", sm((1 - z) * m, 1, n), q(0)), ("==", sm(z * p, 1, n), q(0)))
    attained = statement([["n", "count"], ["kap", "positive"], ["z", "family_bounded", q(0), q(1)], ["f", "family_real"]],
                         [("z/kap sums to 1", "==", sm(z / kap, 1, n), q(1), None),
                          ("(z/kap).f = (1/kap) sum z_i f_i", "==", sm(z / kap * f, 1, n), sm(z * f, 1, n) / kap, None)])
    attained["assume"] = _assume(("==", sm(z, 1, n), kap))
    return [top, bottom, attained]


def statements_capped() -> list[dict[str, Any]]:
    """001 Ex. 1: ``C = {lam in Delta_n : 0 <= lam_i <= u_i}``: (1) the greedy member ``z`` (``f_i = tau + p_i - m_i``,
    ``sum (u - z) p = 0``, ``sum z m = 0``) has ``lam.f <= z.f`` for every ``lam in C``; (2) the KKT point ``x``
    (``v_i = x_i + theta - al_i + be_i``, ``sum x al = 0``, ``sum (u - x) be = 0``) has ``|x - v|^2 <= |y - v|^2``
    for every ``y in C``."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, tau, th = v("n"), v("tau"), v("theta")
    lam, z, f, p, m, u = (at(k, IDX) for k in ("lam", "z", "f", "p", "m", "u"))
    support = statement([["n", "count"], ["tau", "real"], ["p", "family_nonnegative"], ["m", "family_nonnegative"],
                         ["f", "family_bounded", tau + p - m, tau + p - m], ["u", "family_nonnegative"],
                         ["z", "family_bounded", q(0), u], ["lam", "family_bounded", q(0), u]],
                        [("lam.f <= z.f (z the greedy argmax)", "<=", sm(lam * f, 1, n), sm(z * f, 1, n), None)])
    support["assume"] = _assume(("==", sm(lam, 1, n), q(1)), ("==", sm(z, 1, n), q(1)),
                                ("==", sm((u - z) * p, 1, n), q(0)), ("==", sm(z * m, 1, n), q(0)))
    x, y, al, be = (at(k, IDX) for k in ("x", "y", "al", "be"))
    vv = x + th - al + be
    proj = statement([["n", "count"], ["theta", "real"], ["u", "family_nonnegative"], ["al", "family_nonnegative"],
                      ["be", "family_nonnegative"], ["x", "family_bounded", q(0), u], ["y", "family_bounded", q(0), u]],
                     [("|x - v|^2 <= |y - v|^2", "<=", sm((x - vv) ** 2, 1, n), sm((y - vv) ** 2, 1, n), None)])
    proj["assume"] = _assume(("==", sm(x, 1, n), q(1)), ("==", sm(y, 1, n), q(1)), ("==", sm(x * al, 1, n), q(0)),
                             ("==", sm((u - x) * be, 1, n), q(0)))
    return [support, proj]


def statement_skewness_singletons() -> dict[str, Any]:
    """001 Sec. 6 (``phi -> s(Lambda_phi(A, B))`` non-decreasing on ``[0, 1)``), its special case of singleton sets
    ``A = {a}``, ``B = {b}``: ``Lambda_phi`` is the one point ``lam_phi(a, b)``, so ``s = n |lam_phi(a, b)|^2``; for all
    ``n``, ``a, b`` in the simplex, ``0 <= phi < phi' = phi + delta < 1`` (``t = 1 - phi'``): refuted."""
    from fairtheory.proofs.symbolic import IDX, at, q, sm, statement, v

    n, phi, dl, t = v("n"), v("phi"), v("delta"), v("t")
    a, b = at("a", IDX), at("b", IDX)
    st = statement([["n", "count"], ["a", "family_bounded", q(0), q(1)], ["b", "family_bounded", q(0), q(1)],
                    ["phi", "nonnegative"], ["delta", "positive"], ["t", "positive"]],
                   [("s(Lambda_phi) <= s(Lambda_phi')", "<=", n * sm(((a - phi * b) / (dl + t)) ** 2, 1, n),
                     n * sm(((a - (phi + dl) * b) / t) ** 2, 1, n), None)])
    st["assume"] = _assume(("==", phi + dl + t, q(1)), ("==", sm(a, 1, n), q(1)), ("==", sm(b, 1, n), q(1)))
    return st


def _penguin_rows() -> list[list[tuple[Fraction, Fraction, Fraction]]]:
    """The library's penguins data (:func:`fairtheory.problems.penguins.penguins_data`) as exact decimals."""
    from fairtheory.problems.penguins import penguins_data

    d = penguins_data()
    return [[(Fraction(repr(float(d.X[i, j, 1]))), Fraction(repr(float(d.X[i, j, 2]))), Fraction(repr(float(d.y[i, j]))))
             for j in range(d.y.shape[1])] for i in range(d.y.shape[0])]


def _det3(M: list[list[Fraction]]) -> Fraction:
    return (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0])
            + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]))


def _least_squares(rows: list[tuple[Fraction, Fraction, Fraction]]) -> tuple[list[Fraction], Fraction]:
    """Exact least squares by Cramer's rule on the normal equations; the residual mean at the fit."""
    X = [[Fraction(1), dep, fl] for dep, fl, _ in rows]
    G = [[sum(x[i] * x[j] for x in X) for j in range(3)] for i in range(3)]
    r = [sum(x[i] * t for x, (_, _, t) in zip(X, rows, strict=True)) for i in range(3)]
    det = _det3(G)
    c = [_det3([[r[i] if j == k else G[i][j] for j in range(3)] for i in range(3)]) / det for k in range(3)]
    e = sum((c[0] + dep * c[1] + fl * c[2] - t) ** 2 for dep, fl, t in rows) / len(rows)
    return c, e


def statements_penguins() -> list[dict[str, Any]]:
    """001 Sec. 4.3: (1) each client's MSE ``f_i(w) = (1/10) sum_j (w1 + depth_j w2 + flipper_j w3 - length_j)^2`` is at
    least its exact least-squares residual ``e_i``, attained at the fit; (2) ``lam.f(w) >= min_i e_i`` for every
    ``lam in Delta_3`` (Assumption 1 for every ``B``)."""
    from fairtheory.proofs.symbolic import q, statement, v

    w1, w2, w3 = v("w1"), v("w2"), v("w3")
    data = _penguin_rows()

    def loss(rows: list[tuple[Fraction, Fraction, Fraction]]) -> Any:
        first, *rest = [(w1 + dep * w2 + fl * w3 - t) ** 2 for dep, fl, t in rows]
        return sum(rest, first) / len(rows)

    fits = [_least_squares(rows) for rows in data]
    goals = [(f"client {i + 1}: f_i(w) >= e_i", "<=", q(e), loss(rows), {"w1": q(c[0]), "w2": q(c[1]), "w3": q(c[2])})
             for i, (rows, (c, e)) in enumerate(zip(data, fits, strict=True))]
    each = statement([["w1", "real"], ["w2", "real"], ["w3", "real"]], goals)
    lam = (v("l1"), v("l2"), v("l3"))
    lf = lam[0] * loss(data[0]) + lam[1] * loss(data[1]) + lam[2] * loss(data[2])
    mixed = statement([["w1", "real"], ["w2", "real"], ["w3", "real"], ["l1", "nonnegative"], ["l2", "nonnegative"],
                       ["l3", "nonnegative"]], [("lam.f(w) >= min_i e_i", "<=", q(min(e for _, e in fits)), lf, None)])
    mixed["assume"] = _assume(("==", lam[0] + lam[1] + lam[2], q(1)))
    return [each, mixed]


def statements_penguins_index() -> list[dict[str, Any]]:
    """Thm. 1's step for sets sharing a point (the figure's sets contain the uniform point) and
    :func:`statements_penguins`."""
    return [statement_theorem1(), *statements_penguins()]


def _cvar_claim(what: str, measured: float, bound: float, details: dict[str, Any]) -> Outcome:
    from fairtheory.proofs.seed_relfair import cvar_attained_certificate, cvar_bottom_certificate, cvar_top_certificate

    return _settle([cvar_top_certificate(), cvar_bottom_certificate(), cvar_attained_certificate()], statements_cvar(),
                   measured=measured, bound=bound, relation="==", error=abs(measured - bound) / abs(bound),
                   tolerance=ROUNDING, explain=what, details=details)


# ------------------------------------------------------------------------------------------------ claims
@claim("proofs.relfair.prop9.majorization", citation="001 Prop. 9",
       statement="phi + (U - phi V)/C <= U/V <= phi + (U - phi V)/c for all 0 < c <= V <= C, real U, phi with "
                 "U - phi V >= 0 (so every phi in [0, 1)); d/dphi of the lower bound >= 0, of the upper <= 0 "
                 "(symbolic proof)",
       expected="proved", proves=statement_prop9)
def prop9(ctx: Context) -> Outcome:
    """``U/V - lower = (U - phi V)(C - V)/(V C)``, ``upper - U/V = (U - phi V)(V - c)/(c V)``; the derivatives are
    ``1 - V/C >= 0`` and ``1 - V/c <= 0``."""
    import numpy as np

    from fairtheory.objectives.relative import prop9_bounds, unfairness_parts
    from fairtheory.proofs.seed_relfair import prop9_certificate
    from fairtheory.sets import CappedSimplex

    S = CappedSimplex.cvar(4, 0.5)
    U, V = unfairness_parts(np.array([1.0, 2.0, 3.0, 4.0]), S, S)  # 3.5, 1.5
    lo, hi = prop9_bounds(U, V, 0.5, 1.0, 2.0)
    return _settle([prop9_certificate()], [statement_prop9()], measured=U / V, bound=hi, relation="<=",
                   explain="library at f = (1, 2, 3, 4), A = B = C(1/2), c = 1, C = 2, phi = 1/2: measured = U/V, "
                           "bound = the library's upper bound (lower bound in details)",
                   details={"library lower bound": lo, "library upper bound": hi})


@claim("proofs.relfair.theorem1.monotone", citation="001 Thm. 1",
       statement="Thm. 1 (reconstructed: Assumption 1 only) is false, refuted exactly in its special case A = {e1}, "
                 "B = {e2} (so U = f1, V = f2), f1 = w^2 + 1/100, f2 = (w - 1)^2 + 1 (V >= 1: Assumption 1), "
                 "phi = 0, phi' = 1/2: for all real w0, w1 at which problem (8)'s objective (U - phi V)/(1 - phi) is "
                 "stationary (at phi resp. phi'; a convex quadratic with leading coefficient 1 at both, so stationary "
                 "= global solution, proved by a second certificate), I(w1) <= I(w0); false at w0 = 0, w1 = -1: "
                 "I rises from 1/200 to 101/500",
       expected="refuted", refutes=statement_theorem1_instance)
def theorem1_monotone(ctx: Context) -> Outcome:
    """Two certificates: the ``"counterexample"`` (the point ``w0 = 0``, ``w1 = -1`` meets both stationarity
    assumptions exactly and ``I(w1) - I(w0) = 197/1000``) and the ``"symbolic"`` proof that, in this instance,
    Assumption 1 holds and the stationary points are the unique global solutions of (8) (so the special case is
    implied by the theorem)."""
    from fairtheory.objectives.relative import relative_index
    from fairtheory.proofs.seed_relfair import theorem1_instance_counterexample, theorem1_instance_solutions_certificate
    from fairtheory.sets import CappedSimplex
    from fairtheory_kernel.check import check_proof
    from fairtheory_kernel.symbolic import implies

    A, B = CappedSimplex.singleton([1.0, 0.0]), CappedSimplex.singleton([0.0, 1.0])
    i0, i1 = relative_index([0.01, 2.0], A, B), relative_index([1.01, 5.0], A, B)  # f(w*_0 = 0), f(w*_1/2 = -1)
    solutions = theorem1_instance_solutions_certificate()
    explain = ("library index at the exact solutions: measured = I(w*_{1/2}) = 101/500, bound = I(w*_0) = 1/200 "
               "(Thm. 1 says measured <= bound)")
    if not implies(solutions["statement"], statement_theorem1_instance_solutions()):
        return Outcome(status="error", measured=i1, bound=i0, relation="<=", explain=explain,
                       note="the solutions certificate proves another statement than the declared one", details={})
    if not check_proof(solutions):
        return Outcome(status="error", measured=i1, bound=i0, relation="<=", explain=explain,
                       note="the solutions certificate did not re-check", details={})
    return Outcome(status="refuted", measured=i1, bound=i0, relation="<=", explain=explain,
                   certificate=[theorem1_instance_counterexample(), solutions],
                   counterexample={"A": "{e1}", "B": "{e2}", "f1": "w^2 + 1/100", "f2": "(w - 1)^2 + 1",
                                   "w*_0": 0, "w*_1/2": -1, "I(w*_0)": "1/200", "I(w*_1/2)": "101/500"},
                   instances=1, details={"library I(w*_0)": i0, "library I(w*_1/2)": i1},
                   note="Thm. 1 holds when A and B share a point (proofs.relfair.theorem1.shared_point)")


@claim("proofs.relfair.theorem1.shared_point", citation="001 Thm. 1, App. E.1",
       statement="Thm. 1 restricted to A, B sharing a point (U >= V), not the theorem (refuted: "
                 "proofs.relfair.theorem1.monotone): I(w*_phi') <= I(w*_phi) for all 0 <= phi < phi' <= 1 and "
                 "V > 0, global minimisers modelled by their two optimality inequalities; eqs. 21-22 on the way "
                 "(symbolic proof)",
       expected="proved", proves=statement_theorem1)
def theorem1_shared_point(ctx: Context) -> Outcome:
    """``V' - V = (g2 + g3)/delta`` (the two optimality slacks) and ``U V' - U' V = (V' - V)((U - V) + (1 - phi')V)
    + g3 V``."""
    from fairtheory.objectives.relative import relative_index
    from fairtheory.proofs.seed_relfair import theorem1_certificate
    from fairtheory.sets import CappedSimplex

    S = CappedSimplex.simplex(2)

    def f(w: float) -> list[float]:
        return [w * w + 1.0, (w - 1.0) ** 2 / 10.0 + 0.5]

    i0, i1 = relative_index(f(0.0), S, S), relative_index(f(-1.0 / 19.0), S, S)
    return _settle([theorem1_certificate()], [statement_theorem1()], measured=i1, bound=i0, relation="<=",
                   explain="library index at the exact solutions of the proofs.relfair.theorem2.instance instance "
                           "(A = B = Delta_2): measured = I(w*_{1/2}), bound = I(w*_0)",
                   details={"exact I(w*_0)": "5/3", "exact I(w*_1/2)": "724/441"})


@claim("proofs.relfair.integrated.support", citation="001 eqs. 6-8",
       statement="members (a - phi b)/(1 - phi) of Lambda_phi sum to 1 (any n, sum a = sum b = 1); lam.f <= "
                 "D_phi/(1 - phi) for every a with a.f <= U = max_A, b with b.f >= V = min_B, phi in [0, 1), and "
                 "equality at a maximiser and a minimiser (symbolic proofs)",
       expected="proved", proves=statements_integrated)
def integrated_support(ctx: Context) -> Outcome:
    """Linearity of the sums and the assumptions; the gap of the bound is ``(U - a.f)/t + phi (b.f - V)/t``."""
    import numpy as np

    from fairtheory.objectives.relative import unfairness_parts
    from fairtheory.proofs.seed_relfair import (
        integrated_attained_certificate,
        integrated_sum_certificate,
        integrated_upper_certificate,
    )
    from fairtheory.sets import CappedSimplex, IntegratedSet

    f = np.array([1.0, 2.0, 3.0, 4.0])
    A, B = CappedSimplex.cvar(4, 0.5), CappedSimplex.cvar(4, 0.75)
    U, V = unfairness_parts(f, A, B)
    lib = IntegratedSet(A, B, 0.25).support(f)
    want = (U - 0.25 * V) / 0.75
    return _settle([integrated_sum_certificate(), integrated_upper_certificate(), integrated_attained_certificate()],
                   statements_integrated(), measured=lib, bound=want, relation="==", error=abs(lib - want) / want,
                   tolerance=ROUNDING,
                   explain="library IntegratedSet.support at f = (1, 2, 3, 4), A = C(1/2), B = C(3/4), phi = 1/4 "
                           "(measured) vs D_phi/(1 - phi) from the library's U and V (bound)",
                   details={"U": U, "V": V})


@claim("proofs.relfair.lemma8.strong_convexity", citation="001 Lemma 8",
       statement="sum_i lam_i h_i >= (mu - phi L)/(1 - phi) for lam = (a - phi b)/(1 - phi), a, b in the simplex "
                 "(any n), phi in [0, 1), every h_i in [mu, L] (any real mu <= L, written L = mu + k, k >= 0; "
                 "h_i = u^T hess f_i u/|u|^2: a hypothesis, per index) "
                 "(symbolic proof)",
       expected="proved", proves=statement_lemma8)
def lemma8(ctx: Context) -> Outcome:
    """``sum lam h - (mu - phi L)/t = (sum a_i (h_i - mu) + phi sum b_i (L - h_i))/t`` after ``sum a = sum b = 1``."""
    from fairtheory.objectives.relative import lemma8_bound
    from fairtheory.proofs.seed_relfair import lemma8_certificate

    lib = lemma8_bound(1.0, 3.0, 0.25)  # (1 - 3/4)/(3/4) = 1/3
    return _settle([lemma8_certificate()], [statement_lemma8()], measured=lib, bound=1.0 / 3.0, relation="==",
                   error=abs(lib - 1.0 / 3.0) * 3.0, tolerance=ROUNDING,
                   explain="library lemma8_bound(mu = 1, L = 3, phi = 1/4) (measured) vs the proved bound 1/3",
                   details={})


@claim("proofs.relfair.skewness.monotone", citation="001 Sec. 6",
       statement="phi -> s(Lambda_phi(A, B)) non-decreasing on [0, 1) is false, refuted exactly in its special case "
                 "of singleton sets A = {a}, B = {b} (Lambda_phi is the one point lam_phi(a, b), so the max is "
                 "s = n |lam_phi(a, b)|^2), every n, a, b in the simplex, 0 <= phi < phi' < 1; false at n = 2, "
                 "a = (2/5, 3/5), b = (0, 1): s falls from 82/81 (phi = 1/10) to 1 (phi' = 1/5)",
       expected="refuted", refutes=statement_skewness_singletons)
def skewness_monotone(ctx: Context) -> Outcome:
    """The ``"counterexample"`` certificate evaluates ``2 (41/81 - 1/2) = 1/81 > 0`` exactly."""
    from fairtheory.objectives.relative import skewness
    from fairtheory.proofs.seed_relfair import skewness_singletons_counterexample
    from fairtheory.sets import CappedSimplex, IntegratedSet

    A, B = CappedSimplex.singleton([0.4, 0.6]), CappedSimplex.singleton([0.0, 1.0])
    s1, s2 = skewness(IntegratedSet(A, B, 0.1)), skewness(IntegratedSet(A, B, 0.2))
    return Outcome(status="refuted", measured=s1, bound=s2, relation="<=",
                   explain="library skewness: measured = s(Lambda_{1/10}) (= 82/81), bound = s(Lambda_{1/5}) (= 1)",
                   certificate=[skewness_singletons_counterexample()],
                   counterexample={"A": "{(2/5, 3/5)}", "B": "{(0, 1)}", "phi": "1/10", "phi'": "1/5",
                                   "s(phi)": "82/81", "s(phi')": "1"},
                   instances=1, note="non-decreasing when A is a subset of B (proofs.relfair.skewness.nested_sets)")


@claim("proofs.relfair.skewness.nested_sets", citation="001 Sec. 6",
       statement="Sec. 6 restricted to A a subset of B (A = B included), not the claim (refuted: "
                 "proofs.relfair.skewness.monotone): phi -> s(Lambda_phi(A, B)) is non-decreasing on [0, 1): "
                 "a maximising pair (a, b) at phi > 0 with |lam_phi(a, b)|^2 >= |a|^2 (the pair (a, a)) keeps "
                 "|lam_phi'(a, b)|^2 >= |lam_phi(a, b)|^2 for phi' > phi; from phi = 0 the pair (a, a) (symbolic proofs)",
       expected="proved", proves=statements_skewness)
def skewness_nested(ctx: Context) -> Outcome:
    """``g(s) = |a + s(a - b)|^2`` is convex in ``s = phi/(1 - phi)``; ``g(s) >= g(0)`` gives ``g(s') >= g(s)``."""
    from fairtheory.objectives.relative import skewness
    from fairtheory.proofs.seed_relfair import skewness_start_certificate, skewness_step_certificate
    from fairtheory.sets import CappedSimplex, IntegratedSet

    A = B = CappedSimplex.simplex(3)
    s1, s2 = skewness(IntegratedSet(A, B, 0.25)), skewness(IntegratedSet(A, B, 0.5))
    return _settle([skewness_step_certificate(), skewness_start_certificate()], statements_skewness(),
                   measured=s1, bound=s2, relation="<=",
                   explain="library skewness, A = B = Delta_3: measured = s(Lambda_{1/4}), bound = s(Lambda_{1/2})",
                   details={"closed form n (1 + phi^2)/(1 - phi)^2 at 1/4, 1/2": [3 * (1 + 1 / 16) / (9 / 16),
                                                                                  3 * (1 + 1 / 4) / (1 / 4)]})


@claim("proofs.relfair.theorem2.instance", citation="001 Thm. 2",
       statement="one instance (not the theorem: Assumption 2 was lost): f1 = w^2 + 1, f2 = (w - 1)^2/10 + 1/2, "
                 "A = B = Delta_2 have unique exact solutions w*_0 = 0, w*_{1/2} = -1/19 and the index decreases "
                 "strictly, 5/3 -> 724/441 (symbolic proof)",
       expected="proved", proves=statement_theorem2_instance)
def theorem2(ctx: Context) -> Outcome:
    """Cases on the sign of ``f_1 - f_2``: in each branch the objective is at least the branch-``f_1 >= f_2``
    quadratic, whose minimiser is ``-1/19`` (margin ``19/10 (w + 1/19)^2``)."""
    from fairtheory.objectives.relative import relative_index
    from fairtheory.proofs.seed_relfair import theorem2_witness
    from fairtheory.sets import CappedSimplex

    S = CappedSimplex.simplex(2)
    i0 = relative_index([1.0, 0.6], S, S)
    i1 = relative_index([1.0 + 1.0 / 361.0, (20.0 / 19.0) ** 2 / 10.0 + 0.5], S, S)
    return _settle([theorem2_witness()], [statement_theorem2_instance()], measured=i1, bound=i0, relation="<=",
                   explain="library index at the exact solutions: measured = I(w*_{1/2}) (724/441), bound = I(w*_0) "
                           "(5/3)", details={"exact decrease": "11/441"})


@claim("proofs.relfair.example2.sorted", citation="001 Ex. 2",
       statement="max over C(k/n) of lam.f = mean of the k largest losses and min = mean of the k smallest (so the "
                 "index with A = B = C(k/n) is their ratio), for every n, every real kap = k >= 1 (fractional last "
                 "term), every loss vector; top / bottom sets in threshold form (symbolic proofs)",
       expected="proved", proves=statements_cvar)
def example2(ctx: Context) -> Outcome:
    """LP weak duality with the threshold ``tau``: the gap is ``sum (1/kap - lam_i)(f_i - tau)_+ + sum lam_i
    (tau - f_i)_+``; the set ``z/kap`` attains."""
    import numpy as np

    from fairtheory.objectives.relative import relative_index
    from fairtheory.sets import CappedSimplex

    f = np.array([3.0, 1.0, 4.0, 1.5, 9.0, 2.0])
    S = CappedSimplex.cvar(6, 2.0 / 6.0)
    lib = relative_index(f, S, S)
    want = ((9.0 + 4.0) / 2.0) / ((1.0 + 1.5) / 2.0)
    return _cvar_claim("library relative_index(f, C(2/6), C(2/6)) at f = (3, 1, 4, 1.5, 9, 2) (measured) vs top-2 "
                       "mean / bottom-2 mean by sorting (bound)", lib, want, {})


@claim("proofs.relfair.index.named_measures", citation="001 Sec. 3.1, App. B",
       statement="max over C(a) of lam.f = mean of the a n largest losses (fractional last term), min = mean of the "
                 "a n smallest, for every n, a, loss vector: so I(C(.2), C(.2)) is the 20:20 ratio, I(C(.1), C(.4)) "
                 "= top-10% mean / bottom-40% mean (4 x the Palma share ratio), I({uniform} = C(1), Delta = C(1/n)) "
                 "= mean/min (symbolic proofs)",
       expected="proved", proves=statements_cvar)
def named_measures(ctx: Context) -> Outcome:
    """The same theorem as :func:`example2` at ``kap = a n``; the named ratios are its instances."""
    import numpy as np

    from fairtheory import metrics

    f = np.array([5.0, 1.0, 2.0, 8.0, 3.0, 4.0, 6.0, 7.0, 9.0, 10.0])  # n = 10: top 2 / bottom 2 means
    lib = metrics.ratio_2020(f)
    want = ((10.0 + 9.0) / 2.0) / ((1.0 + 2.0) / 2.0)
    return _cvar_claim("library metrics.ratio_2020 at f = (5, 1, 2, 8, 3, 4, 6, 7, 9, 10) (measured) vs top-2 mean / "
                       "bottom-2 mean by sorting (bound)", float(lib), want, {})


@claim("proofs.relfair.sets.closed_form", citation="001 Ex. 1, Sec. 2.1",
       statement="capped simplex {lam in Delta_n : lam_i <= u_i}, every n, caps u >= 0, losses f, point v: the greedy "
                 "(threshold) member maximises lam.f (support and argmax), and the KKT point x_i = clip(v_i - theta, "
                 "0, u_i) with sum x = 1 is the Euclidean projection of v (symbolic proofs)",
       expected="proved", proves=statements_capped)
def sets_closed_form(ctx: Context) -> Outcome:
    """LP weak duality for the support; for the projection ``|y - v|^2 - |x - v|^2 = |y - x|^2 + 2 sum y al +
    2 sum (u - y) be`` after the complementarity and mass assumptions."""
    import numpy as np

    from fairtheory.proofs.seed_relfair import capped_projection_certificate, capped_support_certificate
    from fairtheory.sets import CappedSimplex

    S = CappedSimplex(np.array([0.5, 0.3, 0.4]))
    lib = S.support(np.array([2.0, 5.0, 1.0]))
    want = 0.3 * 5.0 + 0.5 * 2.0 + 0.2 * 1.0  # greedy: cap the largest, then the next
    return _settle([capped_support_certificate(), capped_projection_certificate()], statements_capped(),
                   measured=lib, bound=want, relation="==", error=abs(lib - want) / want, tolerance=ROUNDING,
                   explain="library CappedSimplex((1/2, 3/10, 2/5)).support((2, 5, 1)) (measured) vs the greedy value "
                           "(bound)", details={})


@claim("proofs.relfair.penguins.index_monotone", citation="001 Sec. 4.3, App. J.1",
       statement="the exact solutions' index I(w*_phi) on the penguins data is non-increasing on [0, 1) for A = B = "
                 "Delta_3 and A = B = C(2/3): Thm. 1's step for sets sharing a point (proved) and Assumption 1 for "
                 "this data, V(w) >= min_i e_i > 0 for every w and every B in Delta_3 (proved exactly from the 30 "
                 "rows); the figure itself is relfair.penguins.figure's (symbolic proofs)",
       expected="proved", proves=statements_penguins_index)
def penguins_index_monotone(ctx: Context) -> Outcome:
    """The two sets contain the uniform point, so ``U >= V``; each client's MSE is at least its exact least-squares
    residual (``f_i - e_i`` a sum of squares from ``X^T X = L D L^T``)."""
    import numpy as np

    from fairtheory.problems.penguins import penguins_problem
    from fairtheory.proofs.seed_relfair import (
        PENGUIN_ROWS,
        penguins_assumption1_certificate,
        penguins_positive_certificate,
        theorem1_certificate,
    )

    lib = penguins_problem().e  # the library's float residual MSEs
    exact = [float(_least_squares(rows)[1]) for rows in _penguin_rows()]
    same = [[(Fraction(a), Fraction(b), Fraction(c)) for a, b, c in rows] for rows in PENGUIN_ROWS] == _penguin_rows()
    if not same:
        return Outcome(status="error", measured=float(np.min(lib)), bound=min(exact), relation="==",
                       explain="the certificate's rows vs the library's penguins data",
                       note="the certificate maker's penguins rows differ from the library's data", details={})
    return _settle([theorem1_certificate(), penguins_positive_certificate(), penguins_assumption1_certificate()],
                   statements_penguins_index(), measured=float(np.min(lib)), bound=min(exact), relation="==",
                   error=abs(float(np.min(lib)) - min(exact)) / min(exact), tolerance=1e-9,
                   explain="library QuadraticProblem residuals e_i (min, float lstsq) vs the exact rational minimum "
                           "(the proved lower bound of V)",
                   details={"exact e_i": exact, "library e_i": [float(x) for x in lib]})


#: the statement each refuted claim declares refuted (``@claim(..., refutes=...)``), by claim id
REFUTED = {"proofs.relfair.theorem1.monotone": statement_theorem1_instance,
           "proofs.relfair.skewness.monotone": statement_skewness_singletons}
#: what a refuted row also proves about its instance (its symbolic certificate must prove this statement)
WITNESSES = {"proofs.relfair.theorem1.monotone": statement_theorem1_instance_solutions}
#: each proved claim's declared statement(s), by claim id
DECLARED = {"proofs.relfair.prop9.majorization": statement_prop9,
            "proofs.relfair.theorem1.shared_point": statement_theorem1,
            "proofs.relfair.integrated.support": statements_integrated,
            "proofs.relfair.lemma8.strong_convexity": statement_lemma8,
            "proofs.relfair.skewness.nested_sets": statements_skewness,
            "proofs.relfair.theorem2.instance": statement_theorem2_instance,
            "proofs.relfair.example2.sorted": statements_cvar, "proofs.relfair.index.named_measures": statements_cvar,
            "proofs.relfair.sets.closed_form": statements_capped,
            "proofs.relfair.penguins.index_monotone": statements_penguins_index}
