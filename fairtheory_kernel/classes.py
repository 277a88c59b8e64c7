r"""Trusted kernel: the table of function classes a certificate may name, each with its exact interpolation rows.

A class is *certifiable* when a finite set of triples ``(x_j, g_j, f_j)`` is the data of some member of the class
**iff** a finite list of conditions, each linear in the Gram matrix of the vectors and in the values, holds (its
*interpolation conditions*).  Then the PEP over those rows has the same value as the worst case over the class, and
dual multipliers that bound the PEP bound every member (weak duality, :mod:`fairtheory_kernel.pep`).  A necessary
condition alone would also be sound for an upper bound (every member satisfies it); every entry below is exact
(necessary and sufficient), so a certified bound is also attained in the limit.

:data:`TABLE` maps a class key (the statement's ``"functions"``) to a :class:`Entry`: its parameters (exact
rationals, ``"inf"`` where the class allows no bound), their range, and its rows, written once for any number ring
(:class:`fairtheory_kernel.rows.Ring`: the rationals for ``pep-dual``, ``Q[t]`` for ``pep-family``).  The rows of
one function are over its points ``(x, g, value index)`` in order (``x*`` first, value 0: index ``None``); a row
``(G, F, c)`` reads ``<G, Gram> + F . values + c <= 0``; an equality is written as two rows ``r <= 0``,
``-r <= 0``.  Each entry's docstring is its soundness argument.  (Math. Prog. = Taylor, Hendrickx & Glineur, "Smooth
strongly convex interpolation and exact worst-case performance of first-order methods", Math. Program. 161 (2017);
SIAM = the same authors, "Exact worst-case performance of first-order methods for composite convex optimization",
SIAM J. Optim. 27(3) (2017).)

Operator classes (``values`` false: monotone, strongly monotone, Lipschitz, cocoercive, negatively comonotone, and
the linear ones) are entries of the same table: a client's points hold an input ``x`` and an output ``g`` of the
operator (the statement's "gradient"), their value indices are read by no row, and :mod:`fairtheory_kernel.pep`
refuses the measure ``"value"`` over them; ``x*`` is a zero of ``sum_i p_i A_i`` as for gradients.  Pairwise rows:
:func:`_operator`.  A PSD condition (quadratics, linear operators) is *lifted* (``lifted``): one new Gram basis vector
per point, whose inner products equal the condition's matrix, so the one PSD test of the dual covers it
(:func:`_lifted`).

Adding a class: one entry here with its soundness paragraph, and the builder's class
(:mod:`fairtheory.worstcase.classes`) naming the key in ``kernel_class()``; a twin test compares their rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fairtheory_kernel.rows import BadStatement, Ring, Row, Symbols, Vec, add, gram

__all__ = ["TABLE", "Entry", "interpolation_rows", "parse_class"]

Pt = tuple[Vec, Vec, "int | None"]
INF = "inf"


def _row(ring: Ring, terms: Sequence[tuple[Fraction, Vec, Vec]], F: Mapping[Any, int] = (), c: Fraction = Fraction(0)) -> Row:
    """``sum_t coef_t <u_t, v_t> + sum F + c`` as ``(G, F, c)``; ``F`` maps value indices (``None``: ``f(x*) = 0``,
    dropped) to integer coefficients."""
    G: dict[tuple[int, int], Any] = {}
    for coef, u, v in terms:
        if coef:
            gram(u, v, ring.const(Fraction(coef)), G)
    return {a: x for a, x in G.items() if x != 0}, {f: Fraction(w) for f, w in dict(F).items() if f is not None and w}, c


def _pairs(pts: Sequence[Pt], ring: Ring) -> Any:
    """Every ordered pair ``j != k`` with ``dx = x_j - x_k``, ``dg = g_j - g_k`` and ``{f_k: 1, f_j: -1}``."""
    m1 = ring.const(Fraction(-1))
    for j, (xj, gj, fj) in enumerate(pts):
        for k, (xk, gk, fk) in enumerate(pts):
            if j != k:
                F = {fk: 1} if fj is None else {fj: -1} if fk is None else {fk: 1, fj: -1}
                yield j, k, add(xj, xk, m1), add(gj, gk, m1), F, pts[j], pts[k]


def _smooth_strongly_convex(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
    r"""``L``-smooth ``mu``-strongly convex, ``0 <= mu < L``: for every ordered pair ``j != k``

    .. math:: f_k - f_j + \langle g_k, x_j - x_k\rangle + \frac{1}{2(1-\mu/L)}\Big(\frac1L\|g_j-g_k\|^2
              + \mu\|x_j-x_k\|^2 - \frac{2\mu}{L}\langle g_j-g_k, x_j-x_k\rangle\Big) \le 0 .

    Exact: Math. Prog., Thm 4 (necessary and sufficient for interpolation by an ``L``-smooth ``mu``-strongly convex
    function); ``mu = 0`` is the smooth convex class (ibid., Cor. 1)."""
    L, mu = c["L"], c["mu"]
    k = 1 / (2 * (1 - mu / L))
    return [_row(ring, [(1, p[1], dx), (k / L, dg, dg), (k * mu, dx, dx), (-2 * k * mu / L, dg, dx)], F)
            for _, _, dx, dg, F, _, p in _pairs(pts, ring)]


def _convex(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
    r"""Closed proper convex: ``f_k - f_j + <g_k, x_j - x_k> <= 0`` for every ordered pair.  Exact: SIAM, Thm 3.5
    with ``M = inf`` (the maximum of the affine minorants through the points interpolates)."""
    return [_row(ring, [(1, p[1], dx)], F) for _, _, dx, _, F, _, p in _pairs(pts, ring)]


def _convex_lipschitz(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
    r"""Closed proper convex and ``M``-Lipschitz: per point ``||g_j||^2 - M^2 <= 0``, then the convex rows.  Exact:
    SIAM, Thm 3.5 (the maximum of the affine minorants has subgradients in ``conv{g_j}``, of norm at most ``M``)."""
    return [_row(ring, [(1, g, g)], {}, -c["M"] ** 2) for _, g, _ in pts] + _convex(pts, c, ring)


def _strongly_convex(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
    r"""Closed proper ``mu``-strongly convex: ``f_k - f_j + <g_k, x_j - x_k> + mu/2 ||x_j - x_k||^2 <= 0``.  Exact:
    ``f`` is ``mu``-strongly convex iff ``f - mu/2 ||.||^2`` is convex, whose interpolation condition is the convex
    one (Math. Prog., Cor. 2 / SIAM, Thm 3.5), rewritten in ``f``."""
    return [_row(ring, [(1, p[1], dx), (c["mu"] / 2, dx, dx)], F) for _, _, dx, _, F, _, p in _pairs(pts, ring)]


def _smooth_nonconvex(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
    r"""``L``-smooth (gradient ``L``-Lipschitz, not necessarily convex): for every ordered pair ``j != k``
    ``f_k - f_j - L/4 ||x_j - x_k||^2 + <g_j + g_k, x_j - x_k>/2 + ||g_j - g_k||^2/(4L) <= 0``.  Exact: SIAM,
    Thm 3.10."""
    L = c["L"]
    return [_row(ring, [(-L / 4, dx, dx), (Fraction(1, 2), add(pj[1], pk[1]), dx), (1 / (4 * L), dg, dg)], F)
            for _, _, dx, dg, F, pj, pk in _pairs(pts, ring)]


def _convex_indicator(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
    r"""Indicators of closed convex sets of diameter at most ``D`` (``"inf"``: any): per point with a value ``f_j = 0``
    (rows ``f_j <= 0``, ``-f_j <= 0``); for every ordered pair ``<g_k, x_j - x_k> <= 0`` (``g_k`` a normal vector);
    for ``j < k`` and ``D`` finite ``||x_j - x_k||^2 - D^2 <= 0``.  Exact: SIAM, Thm 3.6 (``C = conv{x_j}`` has
    every ``g_k`` as a normal vector at ``x_k`` and diameter ``max ||x_j - x_k||``)."""
    rows = [r for _, _, f in pts if f is not None for r in (_row(ring, [], {f: 1}), _row(ring, [], {f: -1}))]
    rows += [_row(ring, [(1, p[1], dx)]) for _, _, dx, _, _, _, p in _pairs(pts, ring)]
    if c["D"] != INF:
        rows += [_row(ring, [(1, dx, dx)], {}, -c["D"] ** 2) for j, k, dx, *_ in _pairs(pts, ring) if j < k]
    return rows


def _convex_support(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
    r"""Support functions ``sup_{s in C} <s, x>`` of closed convex sets ``C`` in the ball of radius ``M`` (``"inf"``:
    any ``C``): per point ``f_j = <g_j, x_j>`` (two rows) and, ``M`` finite, ``||g_j||^2 - M^2 <= 0``; for every
    ordered pair ``<x_k, g_j - g_k> <= 0``.  Exact: SIAM, Cor. 3.7 (necessity: ``g_j in C`` and
    ``f(x_k) = <g_k, x_k> >= <g_j, x_k>``; sufficiency: ``C = conv{g_j}``)."""
    rows: list[Row] = []
    for x, g, f in pts:
        rows += [_row(ring, [(1, g, x)], {f: -1}), _row(ring, [(-1, g, x)], {f: 1})]
        if c["M"] != INF:
            rows.append(_row(ring, [(1, g, g)], {}, -c["M"] ** 2))
    return rows + [_row(ring, [(1, pk[0], dg)]) for _, _, _, dg, _, _, pk in _pairs(pts, ring)]


def _operator(abc: Callable[[Mapping[str, Any]], tuple[Any, Any, Any]]
              ) -> Callable[[Sequence[Pt], Mapping[str, Any], Ring], list[Row]]:
    r"""The rows of a pairwise operator class (its points ``(x, g, index)``: ``g`` an output of the operator at ``x``,
    the index a value no row reads): for every pair ``j < k``, with ``dx = x_j - x_k``, ``dg = g_j - g_k`` and
    ``(A, B, C) = abc(parameters)``, ``A <dg, dx> + B ||dg||^2 + C ||dx||^2 <= 0``.

    Soundness for an upper bound needs only that every member satisfies the rows: each is the class's definition
    applied to two points of its graph (``x* = 0`` is free: ``x -> A(x + x*)`` stays in the class, the rows read
    differences only).  Exactness (a worst case is attained): maximally monotone and ``mu``-strongly monotone
    (``A - mu I`` monotone), Bauschke & Combettes, *Convex analysis and monotone operator theory* (2017), Thm 20.21
    (a monotone set extends to a maximally monotone operator); ``L``-Lipschitz, the Kirszbraun-Valentine theorem;
    ``beta``-cocoercive (``I - 2 beta A`` nonexpansive), Ryu, Taylor, Bergeling & Giselsson, SIAM J. Optim. 30(3)
    (2020), Sec. 2, Prop. 2; maximally ``rho``-negatively comonotone (``A^-1 + rho I`` monotone: Bauschke, Moursi &
    Wang, Math. Program. 189 (2021), Sec. 2), BC Thm 20.21 applied to ``{(u_j, x_j + rho u_j)}``.  Where the pairwise
    rows are not exact (Lipschitz and strongly monotone, cocoercive and strongly monotone: ibid. RTBG, Sec. 2) the
    class has no entry."""
    def rows(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
        a, b, cc = abc(c)
        return [_row(ring, [(a, dg, dx), (b, dg, dg), (cc, dx, dx)]) for j, k, dx, dg, *_ in _pairs(pts, ring) if j < k]
    rows.__doc__ = _operator.__doc__
    return rows


def _lifted(sym: int, abc: Callable[[Mapping[str, Any]], tuple[Any, Any, Any]], values: bool
            ) -> Callable[[Sequence[Pt], Mapping[str, Any], Ring], list[Row]]:
    r"""The rows of a class with a PSD condition, lifted: ``dx_j = x_j - x*``, ``dg_j = g_j - g*`` over the points but
    ``x*`` (``x* = 0``, ``f(x*) = 0``), one new basis vector ``u_j`` per point (``c["aux"]`` the first,
    :func:`interpolation_rows`); each condition an equality (two rows ``r <= 0``, ``-r <= 0``): with ``values``,
    ``<g*, dx_j> + 1/2 <dx_j, dg_j> - f_j = 0``; with ``sym = 1`` (``-1``) ``<dx_j, dg_k> - sym <dx_k, dg_j> = 0`` for
    ``k < j`` (``k <= j``); and ``<u_j, u_k> - T_jk = 0`` (``k <= j``), ``T_jk = A <dg_j, dx_k> + B <dg_j, dg_k> + C
    <dx_j, dx_k>``, ``(A, B, C) = abc(parameters)``.  The classes, with ``M`` the (constant) Jacobian, ``dg_j = M dx_j``:

    * ``"quadratic"``: ``f(x) = 1/2 <x, M x> + <b, x> + a``, ``M = M^T``, ``mu I <= M <= L I``, ``0 <= mu < L`` (values,
      ``sym = 1``, ``T = (L + mu, -1, -mu L)``);
    * ``"symmetric-linear"``: ``x -> M x + b`` with ``M = M^T``, ``mu I <= M <= L I``, ``mu < L`` (``sym = 1``, the same
      ``T``); ``"skew-symmetric-linear"``: ``M = -M^T``, ``||M|| <= L`` (``sym = -1``, ``T = (0, -1, L^2)``);
      ``"linear-operator"``: ``||M|| <= L`` (no symmetry row, ``T = (0, -1, L^2)``).

    Sound (every member satisfies the rows with some ``u``): ``dg_j = M dx_j``; the values are ``f_j = <g*, dx_j> +
    1/2 <dx_j, M dx_j>``; ``<dx_j, M dx_k> = sym <dx_k, M dx_j>`` by (skew-)symmetry; ``T_jk = <dx_j, K dx_k>`` with ``K
    = (M - mu I)(L I - M)`` (commuting, both ``>= 0``) or ``K = L^2 I - M^T M``, ``K >= 0``, so ``u_j = K^(1/2) dx_j``
    in directions orthogonal to every other vector (the dimension is free) give ``<u_j, u_k> = T_jk``.  Exact: the
    rows make ``T >= 0`` (a block of the Gram matrix), and with symmetry such an ``M`` exists (Bousselmi, Hendrickx &
    Glineur, "Interpolation conditions for linear operators and applications to performance estimation problems"
    (2023): Thm 3.1 linear, Cor 3.2 skew-symmetric, Thm 3.3 symmetric, Thm 3.9 quadratics; applied to the
    differences from ``x*``, ``b = g* - M x*``)."""
    def rows(pts: Sequence[Pt], c: Mapping[str, Any], ring: Ring) -> list[Row]:
        (A, B, C), one, gs = abc(c), ring.const(Fraction(1)), pts[0][1]
        d = [(x, add(g, gs, ring.const(Fraction(-1))), f, {c["aux"] + j: one}) for j, (x, g, f) in enumerate(pts[1:])]
        eqs = []
        for j, (x, g, f, u) in enumerate(d):
            eqs += [_row(ring, [(1, gs, x), (Fraction(1, 2), x, g)], {f: -1})] if values else []
            eqs += [_row(ring, [(1, x, g2), (-sym, x2, g)]) for x2, g2, _, _ in d[:j + (sym < 0)]] if sym else []
            eqs += [_row(ring, [(1, u, u2), (-A, g, x2), (-B, g, g2), (-C, x, x2)]) for x2, g2, _, u2 in d[:j + 1]]
        return [r for G, F, k in eqs for r in ((G, F, k), ({a: -v for a, v in G.items()}, {i: -w for i, w in F.items()}, -k))]
    rows.__doc__ = _lifted.__doc__
    return rows


@dataclass(frozen=True)
class Entry:
    """A certifiable class: parameters ``(name, unit, may be "inf")`` (units ``"curvature"``: value/distance^2,
    ``"gradient"``, ``"distance"``; read by the untrusted normalisation only), the range check, the rows, the
    words, the number of rows of ``P`` points (an upper bound, for the work estimate), and whether its members have
    values (``False``: an operator class, ``"inverse-curvature"`` its unit distance^2/value; a statement measuring
    ``"value"`` over one is refused)."""

    params: tuple[tuple[str, str, bool], ...]
    valid: Callable[[Mapping[str, Any]], bool]
    rows: Callable[[Sequence[Pt], Mapping[str, Any], Ring], list[Row]]
    words: Callable[[Mapping[str, Any]], str]
    count: Callable[[int], int]
    values: bool = True
    lifted: bool = False  # one new basis vector per point but x*, at c["aux"] on (interpolation_rows)


def _pp(P: int) -> int:
    return P * (P - 1)


#: the proviso of classes with values +inf off a domain: the rows hold where the oracle answers, at evaluated points
IN_DOMAIN = " (every evaluated point in its domain)"

TABLE: dict[str, Entry] = {
    "smooth-convex": Entry((("L", "curvature", False), ("mu", "curvature", False)),
                           lambda c: c["L"] > 0 and 0 <= c["mu"] < c["L"], _smooth_strongly_convex,
                           lambda c: f"{c['L']}-smooth" + (f", {c['mu']}-strongly convex" if c["mu"] else " convex"), _pp),
    "convex": Entry((), lambda c: True, _convex, lambda c: "closed convex" + IN_DOMAIN, _pp),
    "convex-lipschitz": Entry((("M", "gradient", False),), lambda c: c["M"] > 0, _convex_lipschitz,
                              lambda c: f"convex {c['M']}-Lipschitz", lambda P: P * P),
    "strongly-convex": Entry((("mu", "curvature", False),), lambda c: c["mu"] > 0, _strongly_convex,
                             lambda c: f"{c['mu']}-strongly convex" + IN_DOMAIN, _pp),
    "smooth-nonconvex": Entry((("L", "curvature", False),), lambda c: c["L"] > 0, _smooth_nonconvex,
                              lambda c: f"{c['L']}-smooth (not necessarily convex)", _pp),
    "convex-indicator": Entry((("D", "distance", True),), lambda c: c["D"] == INF or c["D"] > 0, _convex_indicator,
                              lambda c: "the indicator of a closed convex set" + (
                                  f" of diameter <= {c['D']}" if c["D"] != INF else "") + IN_DOMAIN, lambda P: 2 * P * P),
    "convex-support": Entry((("M", "gradient", True),), lambda c: c["M"] == INF or c["M"] > 0, _convex_support,
                            lambda c: "the support function of a closed convex set" + (
                                f" in the ball of radius {c['M']}" if c["M"] != INF else IN_DOMAIN), lambda P: P * P + 2 * P),
    "quadratic": Entry((("L", "curvature", False), ("mu", "curvature", False)), lambda c: c["L"] > 0 and 0 <= c["mu"] < c["L"],
                       _lifted(1, lambda c: (c["L"] + c["mu"], -1, -c["mu"] * c["L"]), True),
                       lambda c: f"quadratic (any linear term), {c['mu']} <= Hessian <= {c['L']}", lambda P: 2 * P * P,
                       True, True),
    "symmetric-linear": Entry((("L", "curvature", False), ("mu", "curvature", False)), lambda c: 0 < c["L"] > c["mu"],
                              _lifted(1, lambda c: (c["L"] + c["mu"], -1, -c["mu"] * c["L"]), False),
                              lambda c: f"affine operator x -> M x + b, M = M^T, {c['mu']} <= M <= {c['L']}", lambda P: 2 * P * P,
                              False, True),
    "skew-symmetric-linear": Entry((("L", "curvature", False),), lambda c: c["L"] > 0, _lifted(-1, lambda c: (
        0, -1, c["L"] ** 2), False), lambda c: f"affine operator x -> M x + b, M = -M^T, ||M|| <= {c['L']}", lambda P: 2 * P * P,
                                   False, True),
    "linear-operator": Entry((("L", "curvature", False),), lambda c: c["L"] > 0, _lifted(0, lambda c: (0, -1, c["L"] ** 2),
                             False), lambda c: f"affine operator x -> M x + b, ||M|| <= {c['L']}", lambda P: P * P, False, True),
    "monotone": Entry((), lambda c: True, _operator(lambda c: (-1, 0, 0)), lambda c: "maximally monotone operator", _pp,
                      False),
    "strongly-monotone": Entry((("mu", "curvature", False),), lambda c: c["mu"] > 0, _operator(lambda c: (-1, 0, c["mu"])),
                               lambda c: f"maximally {c['mu']}-strongly monotone operator", _pp, False),
    "lipschitz-operator": Entry((("L", "curvature", False),), lambda c: c["L"] > 0, _operator(lambda c: (0, 1, -c["L"] ** 2)),
                                lambda c: f"{c['L']}-Lipschitz operator", _pp, False),
    "cocoercive": Entry((("beta", "inverse-curvature", False),), lambda c: c["beta"] > 0,
                        _operator(lambda c: (-1, c["beta"], 0)), lambda c: f"{c['beta']}-cocoercive operator", _pp, False),
    "negatively-comonotone": Entry((("rho", "inverse-curvature", False),), lambda c: c["rho"] > 0,
                                   _operator(lambda c: (-1, -c["rho"], 0)),
                                   lambda c: f"maximally {c['rho']}-negatively comonotone operator", _pp, False),
}


def parse_class(d: Any, q: Callable[[Any, str], Fraction]) -> dict[str, Any]:
    """A class dict ``{"functions": key, param: rational or "inf", ...}`` with its parameters parsed by ``q`` and
    validated against :data:`TABLE` (raises :class:`BadStatement`)."""
    if not isinstance(d, Mapping) or d.get("functions") not in TABLE:
        raise BadStatement(f"class.functions must be one of {sorted(TABLE)}")
    e = TABLE[d["functions"]]
    if set(d) != {"functions"} | {p for p, _, _ in e.params}:
        raise BadStatement(f"class {d['functions']!r} has exactly the parameters {[p for p, _, _ in e.params]}")
    out = {"functions": d["functions"]} | {p: INF if inf and d[p] == INF else q(d[p], p) for p, _, inf in e.params}
    if not e.valid(out):
        raise BadStatement(f"class {d['functions']!r}: a parameter is out of its range")
    return out


def interpolation_rows(b: Symbols, classes: Sequence[Mapping[str, Any]], *, max_rows: int) -> list[Row]:
    """The rows of every client's points (:attr:`Symbols.points`) under its parsed class, client by client; raises
    :class:`BadStatement` past ``max_rows`` rows (before building them)."""
    if sum(TABLE[c["functions"]].count(len(pts)) for c, pts in zip(classes, b.points, strict=True)) > max_rows:
        raise BadStatement(f"the statement's PEP exceeds {max_rows} interpolation conditions")
    out: list[Row] = []
    for c, pts in zip(classes, b.points, strict=True):
        if TABLE[c["functions"]].lifted:
            c, b.dim = {**c, "aux": b.dim}, b.dim + len(pts) - 1
            if b.dim > b.max_dim:
                raise BadStatement(f"the statement's PEP exceeds Gram dimension {b.max_dim}")
        out += TABLE[c["functions"]].rows(pts, c, b.ring)
    return out
