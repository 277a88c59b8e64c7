r"""Exact certificates for 004 (FedFV): counterexamples of the refuted results, proofs of the true ones.

Untrusted proposers, like :mod:`fairtheory.proofs.symbolic`: the makers write a statement (the theorem's special
case in the kernel's language) and the evidence; :func:`fairtheory_kernel.check.check_proof` decides.  A wrong
certificate is refused by the kernel, never by this module.  Derivations: docs/decided/fedfv.md.

Counterexamples (kind ``"counterexample"``, common.md item 4): rational gradient sets in the plane and the relation
they violate, evaluated exactly by the kernel.  Cosine hypotheses are written polynomially:
``|cos(g, h)| <= eps`` is ``(g.h)^2 <= E |g|^2 |h|^2`` with ``E = eps^2``; a strict conflict ``g.h < 0`` is
``g.h + s == 0`` with a symbol ``s > 0``; ``sqrt(1 - eps1^2)`` is a symbol ``r >= 0`` with ``r^2 == 1 - E1``.

* :func:`theorem1_absolute_counterexample` - 004 Thm. 1 as printed (``|e_k . gbar'|``), ``m = 2``, ``d = 2``;
* :func:`theorem2_absolute_counterexample` - 004 Thm. 2 as printed (``|g_k . gbar'|``), ``m = 2``, ``d = 2``;
* :func:`last_target_counterexample` - 004 App. A.1 "``gbar'`` never conflicts with ``g_m``" under FedFV's
  conditional rule, ``m = 3``, ``d = 2``;
* :func:`theorem3_descent_counterexample` - 004 Thm. 3 eq. 18 for two convex ``L``-smooth quadratics in the plane;
* :func:`theorem3_pareto_counterexample` - 004 Thm. 3 (convergence to a Pareto-stationary point or the optimum):
  an exact 2-cycle of the eq. 10 iteration through points that are not Pareto-stationary.

Proofs (kind ``"symbolic"`` with assumptions), every dimension ``d``:

* :func:`projection_step_certificate` - 004 Alg. 2 / App. A.2 eq. 7;
* :func:`theorem4_descent_certificate` - 004 Thm. 4 eq. 21 from the descent lemma of an ``L``-smooth ``F``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fairtheory.proofs.symbolic import IDX, E, at, mx, q, sm, v

__all__ = ["theorem1_absolute_counterexample", "theorem2_absolute_counterexample", "last_target_counterexample",
           "theorem3_descent_counterexample", "theorem3_pareto_counterexample", "projection_step_certificate",
           "theorem4_descent_certificate", "value", "CYCLE", "ALL_COUNTEREXAMPLES", "ALL_PROOFS", "CITATIONS"]

Vec = list[E]

#: the paper label each certificate cites
CITATIONS = {"theorem1.absolute": "004 Thm. 1 (App. A.1 eq. 5)", "theorem2.absolute": "004 Thm. 2 (App. A.2)",
             "theorem1.last_target": "004 App. A.1", "theorem3.descent": "004 Thm. 3 eq. 18",
             "theorem3.pareto": "004 Thm. 3", "projection.step": "004 App. A.2 eq. 7",
             "theorem4.descent": "004 Thm. 4 eq. 21"}


# ------------------------------------------------------------------------------------------ helpers
def _dot(a: Vec, b: Vec) -> E:
    out = a[0] * b[0]
    for x, y in zip(a[1:], b[1:], strict=True):
        out = out + x * y
    return out


def _lin(*terms: tuple[Any, Vec]) -> Vec:
    """``sum_k c_k a_k`` coordinate-wise."""
    return [sum((E(E.lift(c)) * a[i] for c, a in terms[1:]), E(E.lift(terms[0][0])) * terms[0][1][i])
            for i in range(len(terms[0][1]))]


def _abs(x: E) -> E:
    return mx(x, -x)


def _stmt(symbols: list[list[Any]], assume: list[tuple[str, Any, Any]], goals: list[tuple[str, str, Any, Any]]
          ) -> dict[str, Any]:
    """A symbolic statement with assumptions: ``assume`` entries ``(rel, lhs, rhs)``, goals ``(name, rel, lhs, rhs)``."""
    decls = [[s[0], s[1], *[E.lift(x) for x in s[2:]]] for s in symbols]
    out: dict[str, Any] = {"kind": "symbolic", "symbols": decls,
                           "goals": [{"name": n, "rel": r, "lhs": E.lift(a), "rhs": E.lift(b)} for n, r, a, b in goals]}
    if assume:
        out["assume"] = [{"rel": r, "lhs": E.lift(a), "rhs": E.lift(b)} for r, a, b in assume]
    return out


def value(t: Any, point: dict[str, Any], idx: Fraction | None = None) -> Fraction:
    """Exact value of a kernel term at a rational point (untrusted helper: it only sizes a counterexample's margin;
    the kernel evaluates for itself).  ``point`` maps scalars to Fractions and families to terms in ``["b", 0]``."""
    h, a = t[0], t[1:]
    if h == "q":
        return Fraction(a[0])
    if h == "v":
        return Fraction(point[a[0]])
    if h == "b":
        if idx is None:
            raise ValueError("index outside a sum")
        return idx
    xs = [value(x, point, idx) for x in a] if h in ("+", "*", "/", "max") else []
    if h == "+":
        return sum(xs, Fraction(0))
    if h == "*":
        out = Fraction(1)
        for x in xs:
            out *= x
        return out
    if h == "/":
        return xs[0] / xs[1]
    if h == "max":
        return max(xs)
    if h == "^":
        return value(a[0], point, idx) ** a[1]
    if h == "at":
        return value(E.lift(point[a[0]]), point, value(a[1], point, idx))
    if h == "sum":
        lo, hi = value(a[1], point, idx), value(a[2], point, idx)
        return sum((value(a[0], point, Fraction(i)) for i in range(int(lo), int(hi) + 1)), Fraction(0))
    raise ValueError(f"value: head {h!r} not supported")


def _violation(st: dict[str, Any], goal: str, point: dict[str, Any]) -> Fraction:
    g = next(x for x in st["goals"] if x["name"] == goal)
    d = value(g["lhs"], point) - value(g["rhs"], point)
    return d if g["rel"] == "<=" else abs(d)


def _cx(key: str, title: str, st: dict[str, Any], goal: str, point: dict[str, Any]) -> dict[str, Any]:
    """A ``"counterexample"`` certificate; the margin is the exact violation (checked > 0 here only to fail fast)."""
    margin = _violation(st, goal, point)
    if margin <= 0:
        raise ValueError(f"{key}: the point does not violate goal {goal!r} (lhs - rhs = {margin})")
    return {"kind": "counterexample", "version": 1, "title": title, "citation": CITATIONS[key], "statement": st,
            "evidence": {"goal": goal, "margin": str(margin),
                         "point": [[k, E.lift(x if isinstance(x, E) else Fraction(x))] for k, x in point.items()]}}


# ---------------------------------------------------------------------------------- Theorems 1-2, m = 2
def _pair_setup() -> tuple[Vec, Vec, E, Vec]:
    """``g_1 = (a1, a2)``, ``g_2 = (b1, b2)``, their dot product and ``gbar' = (g_1^{(2)} + g_2^{(1)})/2`` under
    App. A.1's rule (every step projects; the hypothesis makes every step a conflict)."""
    g1, g2 = [v("a1"), v("a2")], [v("b1"), v("b2")]
    c = _dot(g1, g2)
    g1p = _lin((1, g1), (-c / _dot(g2, g2), g2))  # g_1^{(2)}: onto g_2's normal plane (g_1^{(1)} = g_1)
    g2p = _lin((1, g2), (-c / _dot(g1, g1), g1))  # g_2^{(1)} = g_2^{(2)}
    return g1, g2, c, _lin((q("1/2"), g1p), (q("1/2"), g2p))


_G_SYMBOLS = [["a1", "real"], ["a2", "real"], ["b1", "real"], ["b2", "real"]]
#: the m = 2 instance of MIN_ABSOLUTE: g_1 = (1, 0), g_2 = (-1, 1), cos^2 = 1/2, g_2 . gbar' = 1/2
_G_POINT = {"a1": 1, "a2": 0, "b1": -1, "b2": 1}


def theorem1_absolute_counterexample() -> dict[str, Any]:
    r"""004 Thm. 1 as printed, ``m = 2``, ``g_i in R^2``: ``|g_k . gbar'| <= (eps^2/2) ||g_k|| sum_{j=k}^{1}
    sum_{i != j+1} ||g_i^{(j)}||`` for ``k = 1`` (right side ``(eps^2/2)||g_1||^2``: ``g_1^{(1)} = g_1``) and
    ``k = 2`` (empty sum: 0), whenever ``g_1 . g_2 < 0`` and ``cos^2(g_1, g_2) <= eps^2 <= 1`` (for ``m = 2`` every
    pair the proof bounds is ``(g_1, g_2)``).  False at ``g_1 = (1, 0)``, ``g_2 = (-1, 1)``, ``eps^2 = 1/2``:
    ``|g_2 . gbar'| = 1/2 > 0``."""
    g1, g2, c, gb = _pair_setup()
    e2, s = v("e2"), v("s")
    st = _stmt(_G_SYMBOLS + [["e2", "positive"], ["s", "positive"]],
               [("<=", e2, q(1)), ("==", c + s, q(0)), ("<=", c ** 2, e2 * _dot(g1, g1) * _dot(g2, g2))],
               [("k = 1", "<=", _abs(_dot(g1, gb)), e2 / 2 * _dot(g1, g1)),
                ("k = 2", "<=", _abs(_dot(g2, gb)), q(0))])
    return _cx("theorem1.absolute", "004 Thm. 1 printed with |.|, m = 2: |g_2 . gbar'| = 1/2 > 0 = bound", st, "k = 2",
               {**_G_POINT, "e2": Fraction(1, 2), "s": 1})


def theorem2_absolute_counterexample() -> dict[str, Any]:
    r"""004 Thm. 2 as printed, ``m = 2``, ``g_i in R^2``: ``|g_k . gbar'| <= (1/2) max(||g_1||^2, ||g_2||^2)
    f(2, k, eps1, eps2)``, ``f = eps2^2 r (1 - r^{2-k})/(1 - r)``, ``r = (1 - eps1^2)^{1/2}``, whenever
    ``g_1 . g_2 < 0`` and ``eps1^2 <= cos^2(g_1, g_2) <= eps2^2``, ``0 < eps1 <= eps2 <= 1``.  False at
    ``g_1 = (1, 0)``, ``g_2 = (-1, 1)``, ``eps1^2 = 7/16`` (``r = 3/4``), ``eps2^2 = 1/2``, ``k = 2``."""
    g1, g2, c, gb = _pair_setup()
    E1, E2, r, s = v("E1"), v("E2"), v("r"), v("s")
    n1, n2 = _dot(g1, g1), _dot(g2, g2)
    big = mx(n1, n2)

    def f(k: int) -> E:
        return E2 * r * (1 - r ** (2 - k)) / (1 - r)

    st = _stmt(_G_SYMBOLS + [["E1", "positive"], ["E2", "positive"], ["r", "nonnegative"], ["s", "positive"]],
               [("<=", E1, E2), ("<=", E2, q(1)), ("==", r ** 2, 1 - E1), ("==", c + s, q(0)),
                ("<=", E1 * n1 * n2, c ** 2), ("<=", c ** 2, E2 * n1 * n2)],
               [("k = 1", "<=", _abs(_dot(g1, gb)), q("1/2") * big * f(1)),
                ("k = 2", "<=", _abs(_dot(g2, gb)), q("1/2") * big * f(2))])
    return _cx("theorem2.absolute", "004 Thm. 2 printed with |.|, m = 2: |g_2 . gbar'| = 1/2 > 0 = bound", st, "k = 2",
               {**_G_POINT, "E1": Fraction(7, 16), "E2": Fraction(1, 2), "r": Fraction(3, 4), "s": 1})


# --------------------------------------------------------------------------------- last target, m = 3
def _fedfv_projection(g: Vec, h: Vec, nh: E) -> Vec:
    """FedFV's conditional projection: ``g - (g.h/||h||^2) h`` when ``g.h < 0``, else ``g``; written
    ``g + (max(0, -g.h)/||h||^2) h`` with ``nh = ||h||^2 > 0``."""
    return _lin((1, g), (mx(q(0), -_dot(g, h)) / nh, h))


def last_target_counterexample() -> dict[str, Any]:
    r"""004 App. A.1 "the final gradient gbar' will not conflict with [g_m]", for FedFV's rule (Alg. 2: project on
    conflict only), ``m = 3`` non-zero gradients in ``R^2``: ``0 <= g_3 . gbar'``.  False at ``g_1 = (-1, 1)``,
    ``g_2 = (-5, -2)``, ``g_3 = (1, 0)`` (``MIN_LAST_TARGET``): ``g_3 . gbar' = -1/29``."""
    g = [[v("a1"), v("a2")], [v("b1"), v("b2")], [v("c1"), v("c2")]]
    n = [v("n1"), v("n2"), v("n3")]
    walks = []
    for i in range(3):
        cur = g[i]
        for j in range(3):
            if j != i:
                cur = _fedfv_projection(cur, g[j], n[j])
        walks.append(cur)
    gb = _lin(*[(q("1/3"), w) for w in walks])
    st = _stmt(_G_SYMBOLS + [["c1", "real"], ["c2", "real"], ["n1", "positive"], ["n2", "positive"], ["n3", "positive"]],
               [("==", _dot(g[i], g[i]), n[i]) for i in range(3)],
               [("no conflict with the last target", "<=", q(0), _dot(g[2], gb))])
    return _cx("theorem1.last_target", "004 App. A.1 last target, FedFV rule, m = 3: g_3 . gbar' = -1/29 < 0", st,
               "no conflict with the last target",
               {"a1": -1, "a2": 1, "b1": -5, "b2": -2, "c1": 1, "c2": 0, "n1": 2, "n2": 29, "n3": 1})


# ------------------------------------------------------------------------------------------- Theorem 3
#: an exact 2-cycle of the eq. 10 iteration (docs/decided/fedfv.md): ``F_i(theta) = theta^T H theta/2 - beta_i .
#: theta`` (``H = (5/36)[[1, 2], [2, 4]] + (1/325)[[49, -28], [-28, 16]]``, eigenvalues in (0, 1), so ``L = 1``
#: works), ``eta = 1``; ``theta = 0 -> p -> 0``, both steps conflicts (``g_1 . g_2 = -1/2``); ``c_i = H^{-1} beta_i``
#: are the minimisers, for :func:`fairtheory.instances.fedfv.pareto_two_client`
CYCLE: dict[str, Any] = {"H": (Fraction(3389, 11700), Fraction(1121, 5850), Fraction(1769, 2925)),
                         "beta1": (Fraction(-1), Fraction(0)), "beta2": (Fraction(1, 2), Fraction(-1)),
                         "c1": (Fraction(-1769, 405), Fraction(1121, 810)), "c2": (Fraction(289, 81), Fraction(-451, 162)),
                         "p": (Fraction(-4, 5), Fraction(-7, 5))}
_QUAD_SYMBOLS = [["L", "positive"], ["eta", "positive"],
                 ["A1", "bounded", q(0), v("L")], ["C1", "bounded", q(0), v("L")], ["B1", "real"],
                 ["A2", "bounded", q(0), v("L")], ["C2", "bounded", q(0), v("L")], ["B2", "real"],
                 ["u1", "real"], ["w1", "real"], ["u2", "real"], ["w2", "real"], ["x", "real"], ["y", "real"],
                 ["s", "positive"]]


def _quad(th: Vec) -> tuple[list[Vec], list[E]]:
    """Gradients and values of ``F_i(theta) = theta^T H_i theta/2 - beta_i . theta``, ``H_i = [[A_i, B_i], [B_i, C_i]]``,
    ``beta_i = (u_i, w_i)``, at ``th``."""
    gs, fs = [], []
    for i in ("1", "2"):
        A, B, C, beta = v("A" + i), v("B" + i), v("C" + i), [v("u" + i), v("w" + i)]
        Ht = [A * th[0] + B * th[1], B * th[0] + C * th[1]]
        gs.append([Ht[0] - beta[0], Ht[1] - beta[1]])
        fs.append(q("1/2") * _dot(th, Ht) - _dot(beta, th))
    return gs, fs


def _eq10(g1: Vec, g2: Vec, n1: E, n2: E) -> Vec:
    """004 eq. 10: ``g_1 + g_2 - (g_1.g_2/||g_1||^2) g_1 - (g_1.g_2/||g_2||^2) g_2`` with ``n_i = ||g_i||^2`` (symbols
    declared ``> 0`` and tied to the gradients by assumptions: the kernel divides only by terms proved non-zero)."""
    c = _dot(g1, g2)
    return _lin((1 - c / n1, g1), (1 - c / n2, g2))


def _quad_assume() -> list[tuple[str, Any, Any]]:
    """``0 <= H_i <= L I`` (with ``A_i, C_i in [0, L]`` declared: both determinants ``>= 0``) and ``eta L <= 1``."""
    L = v("L")
    out: list[tuple[str, Any, Any]] = []
    for i in ("1", "2"):
        A, B, C = v("A" + i), v("B" + i), v("C" + i)
        out += [("<=", B ** 2, A * C), ("<=", B ** 2, (L - A) * (L - C))]
    return out + [("<=", v("eta") * L, q(1))]


def theorem3_descent_counterexample() -> dict[str, Any]:
    r"""004 Thm. 3 eq. 18 for ``F_i`` convex ``L``-smooth quadratics on ``R^2``, ``F = (F_1 + F_2)/2``,
    ``0 < eta <= 1/L``, ``g_1 . g_2 < 0``: ``F(theta - eta gbar') <= F(theta) - (eta/2)(1 - cos^2) ||g_1 + g_2||^2``
    with ``gbar'`` the eq. 10 direction.  False at ``F_i = ||theta - c_i||^2/2`` (``H_i = I``, ``L = eta = 1``),
    ``c_1 = (1, 0)``, ``c_2 = (-1/10, 1)``, ``theta = 0`` (``MIN_THEOREM3_DESCENT``): ``F`` increases by 10/101.
    The step's end ``theta - eta gbar'`` is the symbol pair ``(X, Y)`` with two equality assumptions."""
    th, p = [v("x"), v("y")], [v("X"), v("Y")]
    (g1, g2), (f1, f2) = _quad(th)
    _, (p1, p2) = _quad(p)
    c, n1, n2 = _dot(g1, g2), v("n1"), v("n2")
    step = _lin((1, th), (-v("eta"), _eq10(g1, g2, n1, n2)))
    cos2 = c ** 2 / (n1 * n2)
    s12 = _lin((1, g1), (1, g2))
    st = _stmt(_QUAD_SYMBOLS + [["n1", "positive"], ["n2", "positive"], ["X", "real"], ["Y", "real"]],
               _quad_assume() + [("==", c + v("s"), q(0)), ("==", _dot(g1, g1), n1), ("==", _dot(g2, g2), n2),
                                 ("==", p[0], step[0]), ("==", p[1], step[1])],
               [("eq. 18", "<=", (p1 + p2) / 2, (f1 + f2) / 2 - v("eta") / 2 * (1 - cos2) * _dot(s12, s12))])
    return _cx("theorem3.descent", "004 Thm. 3 eq. 18: F increases by 10/101 at L = eta = 1", st, "eq. 18",
               {"L": 1, "eta": 1, "A1": 1, "C1": 1, "B1": 0, "A2": 1, "C2": 1, "B2": 0, "u1": 1, "w1": 0,
                "u2": Fraction(-1, 10), "w2": 1, "x": 0, "y": 0, "s": Fraction(1, 10), "n1": 1, "n2": Fraction(101, 100),
                "X": Fraction(100, 101), "Y": Fraction(111, 101)})


def theorem3_pareto_counterexample() -> dict[str, Any]:
    r"""004 Thm. 3 (the iterates converge to a Pareto-stationary point or to the optimum), for the eq. 10
    iteration ``T(theta) = theta - eta gbar'(theta)`` on convex ``L``-smooth quadratics in ``R^2``, ``0 < eta <=
    1/L``: a point ``theta`` with ``T(T(theta)) = theta`` (both steps conflicts) is a limit point of the iterates
    from ``theta``, so it must be Pareto-stationary: some ``lam g_1 + (1 - lam) g_2 = 0``, which forces the Gram
    determinant ``||g_1||^2 ||g_2||^2 - (g_1.g_2)^2`` to 0 (the optimum, ``g_1 + g_2 = 0``, too).  False at
    :data:`CYCLE` (``L = eta = 1``, strongly convex): the iterates cycle between ``theta = 0`` and
    ``p = (-4/5, -7/5)``, Gram determinant 1 at ``theta``."""
    th, p = [v("x"), v("y")], [v("X"), v("Y")]
    (g1, g2), _ = _quad(th)
    (h1, h2), _ = _quad(p)
    eta, n1, n2, m1, m2 = v("eta"), v("n1"), v("n2"), v("m1"), v("m2")
    Tth, Tp = _lin((1, th), (-eta, _eq10(g1, g2, n1, n2))), _lin((1, p), (-eta, _eq10(h1, h2, m1, m2)))
    assume = _quad_assume() + [("==", _dot(g1, g2) + v("s"), q(0)), ("==", _dot(h1, h2) + v("S"), q(0)),
                               ("==", _dot(g1, g1), n1), ("==", _dot(g2, g2), n2), ("==", _dot(h1, h1), m1),
                               ("==", _dot(h2, h2), m2),
                               ("==", p[0], Tth[0]), ("==", p[1], Tth[1]), ("==", th[0], Tp[0]), ("==", th[1], Tp[1])]
    st = _stmt(_QUAD_SYMBOLS + [["X", "real"], ["Y", "real"], ["S", "positive"], ["n1", "positive"],
                                ["n2", "positive"], ["m1", "positive"], ["m2", "positive"]], assume,
               [("Pareto-stationary 2-cycle", "<=", _dot(g1, g1) * _dot(g2, g2) - _dot(g1, g2) ** 2, q(0))])
    return _cx("theorem3.pareto", "004 Thm. 3: an exact 2-cycle of eq. 10 through a non-Pareto-stationary point", st,
               "Pareto-stationary 2-cycle",
               {"L": 1, "eta": 1, **{k + i: x for i in ("1", "2") for k, x in zip("ABC", CYCLE["H"], strict=True)},
                "u1": CYCLE["beta1"][0], "w1": CYCLE["beta1"][1], "u2": CYCLE["beta2"][0], "w2": CYCLE["beta2"][1],
                "x": 0, "y": 0, "s": Fraction(1, 2), "X": CYCLE["p"][0], "Y": CYCLE["p"][1], "S": Fraction(1, 2),
                "n1": 1, "n2": Fraction(5, 4), "m1": Fraction(5, 4), "m2": 1})


#: every counterexample maker, by the seed claim it refutes
ALL_COUNTEREXAMPLES = {"fedfv.theorem1.absolute": theorem1_absolute_counterexample,
                       "fedfv.theorem1.last_target": last_target_counterexample,
                       "fedfv.theorem2.absolute": theorem2_absolute_counterexample,
                       "fedfv.theorem3.descent": theorem3_descent_counterexample,
                       "fedfv.theorem3.pareto": theorem3_pareto_counterexample}
ALL_PROOFS: dict[str, Any] = {}


# ------------------------------------------------------------------------------------------------ proofs
def _link(rel: str, expr: Any, by: str, **kw: Any) -> dict[str, Any]:
    return {"rel": rel, "expr": E.lift(expr), "by": by, **kw}


def _terms(*items: tuple[Any, list[list[Any]]]) -> list[Any]:
    return [[str(Fraction(c)), [[g[0], *[E.lift(x) if isinstance(x, E) else x for x in g[1:]]] for g in gens]]
            for c, gens in items]


def _proof_cert(key: str, title: str, st: dict[str, Any], proofs: dict[str, list[Any]]) -> dict[str, Any]:
    return {"kind": "symbolic", "version": 1, "title": title, "citation": CITATIONS[key], "statement": st,
            "evidence": {"lemmas": [], "proofs": [{"name": k, "chain": [E.lift(ch[0]), *ch[1:]]}
                                                  for k, ch in proofs.items()]}}


def projection_step_certificate() -> dict[str, Any]:
    r"""004 Alg. 2 / App. A.2 eq. 7 in every dimension ``d``: for ``g, h in R^d`` with ``||g||^2 = M > 0``,
    ``||h||^2 = N > 0`` and ``c = g.h/N``, the projection ``g' = g - c h`` has ``g'.h = 0`` and
    ``||g'||^2 = (1 - cos^2(g, h)) ||g||^2`` with ``cos^2 = (g.h)^2/(M N)``.

    Evidence: one ``assume_eq`` link per goal.  ``0 - g'.h = -c (N - ||h||^2) - N (g.h/N - c)``;
    ``(1 - cos^2) M - ||g'||^2 = (M - ||g||^2) + c^2 (N - ||h||^2) + (c N - g.h)(g.h/N - c)``."""
    d, c, M, N = v("n"), v("c"), v("M"), v("N")
    g, h = at("g", IDX), at("h", IDX)
    G = sm(g * h, 1, d)
    st = _stmt([["n", "count"], ["g", "family_real"], ["h", "family_real"], ["M", "positive"], ["N", "positive"],
                ["c", "real"]],
               [("==", sm(g ** 2, 1, d), M), ("==", sm(h ** 2, 1, d), N), ("==", c, G / N)],
               [("no conflict after", "==", sm((g - c * h) * h, 1, d), q(0)),
                ("eq. 7", "==", sm((g - c * h) ** 2, 1, d), (1 - G ** 2 / (M * N)) * M)])
    proofs = {"no conflict after": [sm((g - c * h) * h, 1, d),
                                    _link("==", q(0), "assume_eq", mult=[[1, E.lift(-c)], [2, E.lift(-N)]])],
              "eq. 7": [sm((g - c * h) ** 2, 1, d),
                        _link("==", (1 - G ** 2 / (M * N)) * M, "assume_eq",
                              mult=[[0, ["q", "1"]], [1, E.lift(c ** 2)], [2, E.lift(c * N - G)]])]}
    return _proof_cert("projection.step", "projection onto h's normal plane: g'.h = 0, |g'|^2 = (1 - cos^2)|g|^2",
                       st, proofs)


def theorem4_descent_certificate() -> dict[str, Any]:
    r"""004 Thm. 4 eq. 21 in every dimension ``d``: vectors ``gb = gbar`` (the gradient of ``F`` at ``theta``) and
    ``gp = gbar'`` with norms ``A = ||gb||``, ``B = ||gp||``, ``cos(gb, gp) >= 1/2`` (``gb.gp >= A B/2``), ``B <= A``,
    ``0 < eta <= 1/L``, and the descent lemma of an ``L``-smooth ``F`` at the step ``theta+ = theta - eta gp`` as a
    hypothesis: ``F(theta+) <= F(theta) - eta gb.gp + (L/2) eta^2 ||gp||^2``.  Then
    ``F(theta+) <= F(theta) + (-eta/2 + L eta^2/2) A B`` (eq. 21) and ``F(theta+) <= F(theta)``.

    Evidence (``sos`` with assumption generators): ``rhs - F(theta+) = [descent lemma] + eta [gb.gp - AB/2] +
    (L eta^2/2) B [A - B] + (L eta^2/2) [B^2 - ||gp||^2]``, plus ``(eta/2) A B [1 - eta L]`` for the second goal."""
    d, A, B, L, eta, F0, F1 = v("n"), v("A"), v("B"), v("L"), v("eta"), v("F0"), v("F1")
    gb, gp = at("gb", IDX), at("gp", IDX)
    P, Q = sm(gb * gp, 1, d), sm(gp ** 2, 1, d)
    eq21 = F0 + (-eta / 2 + L * eta ** 2 / 2) * A * B
    st = _stmt([["n", "count"], ["gb", "family_real"], ["gp", "family_real"], ["A", "nonnegative"],
                ["B", "nonnegative"], ["L", "positive"], ["eta", "positive"], ["F0", "real"], ["F1", "real"]],
               [("==", sm(gb ** 2, 1, d), A ** 2), ("==", Q, B ** 2), ("<=", A * B / 2, P), ("<=", B, A),
                ("<=", eta * L, q(1)), ("<=", F1, F0 - eta * P + L / 2 * eta ** 2 * Q)],
               [("eq. 21", "<=", F1, eq21), ("F decreases", "<=", F1, F0)])
    base = [(1, [["assume", 5]]), (1, [["pos", eta], ["assume", 2]]),
            ("1/2", [["pos", L * eta ** 2], ["pos", B], ["assume", 3]]), ("1/2", [["pos", L * eta ** 2], ["assume", 1]])]
    proofs = {"eq. 21": [F1, _link("<=", eq21, "sos", terms=_terms(*base))],
              "F decreases": [F1, _link("<=", F0, "sos", terms=_terms(*base, ("1/2", [["pos", eta * A * B],
                                                                                      ["assume", 4]])))]}
    return _proof_cert("theorem4.descent", "004 Thm. 4 eq. 21 from the descent lemma, any dimension", st, proofs)


ALL_PROOFS.update({"proofs.fedfv.projection.step": projection_step_certificate,
                   "proofs.fedfv.theorem4.descent": theorem4_descent_certificate})
