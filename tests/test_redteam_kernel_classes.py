"""Held-out red team of the class table (fairtheory_kernel.classes): soundness of a ``pep-dual`` bound needs every
row of a class to hold for *every member* of the class (necessity; exactness is not needed for soundness).  Each test
draws concrete members of one class - exact rational data wherever the class allows it - with ``x* = 0``,
``f(x*) = 0``, evaluates them at random points (plus ``x*`` with a subgradient there) and checks every row the kernel
builds, ``<G, Gram> + F . values + c <= 0``, exactly.  A wrong sign, a wrong constant or a row stronger than the class
would show as a violated row.  Also: the kernel's rows of a class are never weaker than the class's known
interpolation conditions at a known tight instance (each worst case is attained by some member)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from fairtheory_kernel.classes import TABLE, parse_class
from fairtheory_kernel.rows import RATIONALS, q

Vec = dict[int, Fraction]
DIM = 3


def _vec(xs: Sequence[Fraction]) -> Vec:
    return {i: Fraction(x) for i, x in enumerate(xs) if x != 0}


def _dot(a: Sequence[Any], b: Sequence[Any]) -> Any:
    return sum((x * y for x, y in zip(a, b, strict=True)), Fraction(0))


def _rows_hold(key: str, params: dict[str, Any], pts: list[tuple[list[Any], list[Any], Any]], *, tol: float = 0.0
               ) -> list[int]:
    """Indices of the kernel's rows of class ``key`` violated by the data ``pts`` = ``[(x, g, f), ...]`` (``x*``
    first, ``f(x*) = 0``), in an orthonormal basis (Gram = identity)."""
    cls = parse_class({"functions": key, **params}, q)
    points = [(_vec(x), _vec(g), None if j == 0 else j - 1) for j, (x, g, _) in enumerate(pts)]
    values = {j - 1: f for j, (_, _, f) in enumerate(pts) if j}
    bad = []
    for r, (G, F, c) in enumerate(TABLE[key].rows(points, cls, RATIONALS)):
        # Gram = identity: <G, Gram> is the sum of G's diagonal (an off-diagonal key pairs two orthogonal vectors)
        lhs = sum((v for (a, b), v in G.items() if a == b), Fraction(0)) \
            + sum((w * values[i] for i, w in F.items()), Fraction(0)) + c
        if (float(lhs) > tol) if tol else lhs > 0:
            bad.append(r)
    return bad


def _rand(rng: random.Random, k: int = DIM, den: int = 7, span: int = 9) -> list[Fraction]:
    return [Fraction(rng.randint(-span, span), rng.randint(1, den)) for _ in range(k)]


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_smooth_strongly_convex_quadratics_satisfy_their_rows(seed: int) -> None:
    """``f(x) = 1/2 x^T Q x`` with ``Q = diag(mu, L, c)``, ``c`` in ``[mu, L]`` (exact); ``x* = 0``, ``g = Q x``."""
    rng = random.Random(seed)
    L = Fraction(rng.randint(1, 6), rng.randint(1, 3))
    mu = L * Fraction(rng.randint(0, 3), 4)
    Q = [mu, L, mu + (L - mu) * Fraction(rng.randint(0, 5), 5)]
    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0))]
    for _ in range(4):
        x = _rand(rng)
        g = [Q[i] * x[i] for i in range(DIM)]
        pts.append((x, g, _dot(x, g) / 2))
    assert _rows_hold("smooth-convex", {"L": str(L), "mu": str(mu)}, pts) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_convex_and_lipschitz_max_of_affine_satisfy_their_rows(seed: int) -> None:
    """``f(x) = max_k <a_k, x> + b_k - f(0)`` with one piece through the origin (so ``x* = 0`` is a minimiser needs
    not hold: the rows of a class concern the points only); subgradient = the active ``a_k``; ``||a_k|| <= M``."""
    rng = random.Random(seed)
    A = [_rand(rng, den=3, span=3) for _ in range(4)]
    b = [Fraction(rng.randint(-4, 0), rng.randint(1, 3)) for _ in range(3)] + [Fraction(0)]
    M2 = max(_dot(a, a) for a in A)

    def val(x: Sequence[Fraction]) -> tuple[Fraction, list[Fraction]]:
        k = max(range(len(A)), key=lambda i: _dot(A[i], x) + b[i])
        return _dot(A[k], x) + b[k], A[k]

    f0, g0 = val([Fraction(0)] * DIM)
    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, g0, Fraction(0))]
    for _ in range(5):
        x = _rand(rng)
        f, g = val(x)
        pts.append((x, g, f - f0))
    assert _rows_hold("convex", {}, pts) == []
    M = Fraction(math.isqrt(int(M2) + 1) + 1)
    assert _rows_hold("convex-lipschitz", {"M": str(M)}, pts) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_strongly_convex_members_satisfy_their_rows(seed: int) -> None:
    """``f(x) = mu/2 ||x||^2 + max_k <a_k, x>`` (a subgradient ``mu x + a_k``)."""
    rng = random.Random(seed)
    mu = Fraction(rng.randint(1, 5), rng.randint(1, 3))
    A = [_rand(rng, den=3, span=3) for _ in range(3)] + [[Fraction(0)] * DIM]

    def val(x: Sequence[Fraction]) -> tuple[Fraction, list[Fraction]]:
        k = max(range(len(A)), key=lambda i: _dot(A[i], x))
        return mu / 2 * _dot(x, x) + _dot(A[k], x), [mu * x[i] + A[k][i] for i in range(DIM)]

    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, val([Fraction(0)] * DIM)[1], Fraction(0))]
    for _ in range(5):
        x = _rand(rng)
        f, g = val(x)
        pts.append((x, g, f))
    assert _rows_hold("strongly-convex", {"mu": str(mu)}, pts) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_smooth_nonconvex_members_satisfy_their_rows(seed: int) -> None:
    """``f(x) = L sum_i cos(w_i x_i + c_i)/w_i^2 - f(0)`` (Hessian diagonal in ``[-L, L]``), in floats (tolerance
    1e-9), and the exact ``f(x) = -L/2 ||x||^2`` (the most concave member)."""
    rng = random.Random(seed)
    L = rng.uniform(0.5, 3.0)
    w = [rng.uniform(0.5, 2.0) for _ in range(DIM)]
    c = [rng.uniform(-3, 3) for _ in range(DIM)]

    def val(x: Sequence[float]) -> tuple[float, list[float]]:
        return (sum(L * math.cos(w[i] * x[i] + c[i]) / w[i] ** 2 for i in range(DIM)),
                [-L * math.sin(w[i] * x[i] + c[i]) / w[i] for i in range(DIM)])

    f0, g0 = val([0.0] * DIM)
    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, [Fraction(v) for v in g0], Fraction(0))]
    for _ in range(5):
        x = [float(v) for v in _rand(rng)]
        f, g = val(x)
        pts.append(([Fraction(v) for v in x], [Fraction(v) for v in g], Fraction(f - f0)))
    assert _rows_hold("smooth-nonconvex", {"L": str(Fraction(L))}, pts, tol=1e-9) == []
    Lq = Fraction(rng.randint(1, 5))
    exact: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0))]
    for _ in range(4):
        x = _rand(rng)
        exact.append((x, [-Lq * v for v in x], -Lq / 2 * _dot(x, x)))
    assert _rows_hold("smooth-nonconvex", {"L": str(Lq)}, exact) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_indicators_of_boxes_satisfy_their_rows(seed: int) -> None:
    """The indicator of the box ``[-r, r]^3`` (diameter ``2 r sqrt 3``): points in the box, normal vectors of the
    faces they lie on (a random non-negative multiple), ``x* = 0``."""
    rng = random.Random(seed)
    r = Fraction(rng.randint(1, 4))
    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0))]
    for _ in range(5):
        x = [Fraction(rng.randint(-4, 4), 4) * r for _ in range(DIM)]
        face = rng.randrange(DIM)
        x[face] = r * rng.choice((-1, 1))
        g = [Fraction(0)] * DIM
        g[face] = Fraction(rng.randint(0, 5)) * (1 if x[face] > 0 else -1)
        pts.append((x, g, Fraction(0)))
    D = Fraction(math.isqrt(int(12 * r * r)) + 1)  # >= 2 r sqrt(3)
    assert _rows_hold("convex-indicator", {"D": str(D)}, pts) == []
    assert _rows_hold("convex-indicator", {"D": "inf"}, pts) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_support_functions_satisfy_their_rows(seed: int) -> None:
    """``sigma_C(x) = max_k <c_k, x>`` with ``C`` = the hull of rational points in the ball of radius ``M`` (and 0);
    subgradient = an active vertex."""
    rng = random.Random(seed)
    C = [_rand(rng, den=2, span=2) for _ in range(4)] + [[Fraction(0)] * DIM]
    M = Fraction(math.isqrt(int(max(_dot(c, c) for c in C)) + 1) + 1)

    def val(x: Sequence[Fraction]) -> tuple[Fraction, list[Fraction]]:
        k = max(range(len(C)), key=lambda i: _dot(C[i], x))
        return _dot(C[k], x), C[k]

    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, C[rng.randrange(len(C))], Fraction(0))]
    for _ in range(5):
        x = _rand(rng)
        f, g = val(x)
        pts.append((x, g, f))
    assert _rows_hold("convex-support", {"M": str(M)}, pts) == []
    assert _rows_hold("convex-support", {"M": "inf"}, pts) == []


def _linear_points(rng: random.Random, A: Sequence[Sequence[Fraction]], k: int = 5
                   ) -> list[tuple[list[Any], list[Any], Any]]:
    """``x* = 0`` (``A 0 = 0``) and ``k`` random points with their outputs ``A x`` (values: 0, read by no row)."""
    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0))]
    for _ in range(k):
        x = _rand(rng)
        pts.append((x, [_dot(row, x) for row in A], Fraction(0)))
    return pts


def _psd_plus_skew(rng: random.Random, shift: Fraction) -> list[list[Fraction]]:
    """``shift I + B^T B + K`` (``K`` skew-symmetric): ``<A d, d> = shift ||d||^2 + ||B d||^2 >= shift ||d||^2``."""
    Bm = [_rand(rng, den=3, span=2) for _ in range(DIM)]
    K = [[Fraction(0)] * DIM for _ in range(DIM)]
    for i in range(DIM):
        for j in range(i + 1, DIM):
            K[i][j] = Fraction(rng.randint(-3, 3), rng.randint(1, 2))
            K[j][i] = -K[i][j]
    return [[shift * (i == j) + sum(Bm[r][i] * Bm[r][j] for r in range(DIM)) + K[i][j] for j in range(DIM)]
            for i in range(DIM)]


@pytest.mark.parametrize("seed", SEEDS)
def test_monotone_and_strongly_monotone_linear_operators_satisfy_their_rows(seed: int) -> None:
    rng = random.Random(seed)
    assert _rows_hold("monotone", {}, _linear_points(rng, _psd_plus_skew(rng, Fraction(0)))) == []
    mu = Fraction(rng.randint(1, 5), rng.randint(1, 3))
    assert _rows_hold("strongly-monotone", {"mu": str(mu)}, _linear_points(rng, _psd_plus_skew(rng, mu))) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_monotone_subdifferentials_satisfy_their_rows(seed: int) -> None:
    """A set-valued member: the subdifferential of ``max_k <a_k, x>`` (any active ``a_k`` an output)."""
    rng = random.Random(seed)
    A = [_rand(rng, den=2, span=3) for _ in range(4)] + [[Fraction(0)] * DIM]
    pts: list[tuple[list[Any], list[Any], Any]] = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0))]
    for _ in range(5):
        x = _rand(rng)
        pts.append((x, A[max(range(len(A)), key=lambda i: _dot(A[i], x))], Fraction(0)))
    assert _rows_hold("monotone", {}, pts) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_lipschitz_and_cocoercive_linear_operators_satisfy_their_rows(seed: int) -> None:
    """``A x = M x`` with ``L`` at least the Frobenius norm of ``M`` (``>= ||M||_2``); ``A = diag(q)``, ``0 <= q_i
    <= 1/beta`` (the gradient of a convex ``1/beta``-smooth quadratic: ``beta``-cocoercive, Baillon-Haddad)."""
    rng = random.Random(seed)
    M = [_rand(rng, den=3, span=3) for _ in range(DIM)]
    L = Fraction(math.isqrt(int(sum(_dot(r, r) for r in M)) + 1) + 1)
    assert _rows_hold("lipschitz-operator", {"L": str(L)}, _linear_points(rng, M)) == []
    beta = Fraction(rng.randint(1, 4), rng.randint(1, 4))
    D = [[(Fraction(rng.randint(0, 4), 4) / beta) * (i == j) for j in range(DIM)] for i in range(DIM)]
    assert _rows_hold("cocoercive", {"beta": str(beta)}, _linear_points(rng, D)) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_negatively_comonotone_linear_operators_satisfy_their_rows(seed: int) -> None:
    """``A = diag(-c, s_1, s_2)`` with ``c >= 1/rho``, ``s_i >= 0``: ``<A d, d> = -c d_0^2 + sum s_i d_i^2 >= -rho
    ||A d||^2`` since ``rho c^2 >= c``; and ``-c I`` itself."""
    rng = random.Random(seed)
    rho = Fraction(rng.randint(1, 4), rng.randint(1, 4))
    c = 1 / rho + Fraction(rng.randint(0, 3), 2)
    diag = [-c, Fraction(rng.randint(0, 4), 2), Fraction(rng.randint(0, 4), 2)]
    A = [[diag[i] * (i == j) for j in range(DIM)] for i in range(DIM)]
    assert _rows_hold("negatively-comonotone", {"rho": str(rho)}, _linear_points(rng, A)) == []
    A = [[-c * (i == j) for j in range(DIM)] for i in range(DIM)]
    assert _rows_hold("negatively-comonotone", {"rho": str(rho)}, _linear_points(rng, A)) == []


def test_operator_row_checker_catches_non_members() -> None:
    """Controls: ``-I`` is not monotone (it is 1-negatively comonotone), ``2 I`` not 1-Lipschitz nor 1-cocoercive
    (it is 1/2-cocoercive), ``I`` not 2-strongly monotone, ``-I/2`` not 1-negatively comonotone (``c < 1/rho``)."""
    rng = random.Random(0)
    eye = lambda s: [[Fraction(s) * (i == j) for j in range(DIM)] for i in range(DIM)]  # noqa: E731
    assert _rows_hold("monotone", {}, _linear_points(rng, eye(-1))) != []
    assert _rows_hold("negatively-comonotone", {"rho": "1"}, _linear_points(rng, eye(-1))) == []
    assert _rows_hold("lipschitz-operator", {"L": "1"}, _linear_points(rng, eye(2))) != []
    assert _rows_hold("cocoercive", {"beta": "1"}, _linear_points(rng, eye(2))) != []
    assert _rows_hold("cocoercive", {"beta": "1/2"}, _linear_points(rng, eye(2))) == []
    assert _rows_hold("strongly-monotone", {"mu": "2"}, _linear_points(rng, eye(1))) != []
    assert _rows_hold("negatively-comonotone", {"rho": "1"}, _linear_points(rng, eye(Fraction(-1, 2)))) != []


def _inverse(M: list[list[Fraction]]) -> list[list[Fraction]]:
    """Gauss-Jordan inverse of an invertible rational matrix."""
    n = len(M)
    A = [list(r) + [Fraction(i == j) for j in range(n)] for i, r in enumerate(M)]
    for c in range(n):
        piv = next(r for r in range(c, n) if A[r][c] != 0)
        A[c], A[piv] = A[piv], A[c]
        A[c] = [v / A[c][c] for v in A[c]]
        for r in range(n):
            if r != c and A[r][c] != 0:
                A[r] = [v - A[r][c] * w for v, w in zip(A[r], A[c], strict=True)]
    return [r[n:] for r in A]


def _mul(A: Sequence[Sequence[Fraction]], B: Sequence[Sequence[Fraction]]) -> list[list[Fraction]]:
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), Fraction(0)) for j in range(len(B[0]))]
            for i in range(len(A))]


@pytest.mark.parametrize("seed", SEEDS)
def test_quadratics_satisfy_the_lifted_rows(seed: int) -> None:
    """``f(x) = 1/2 <x, Q x> + <b, x>`` (``x* = 0`` need not be a minimiser: ``g* = b``), ``Q = O diag(q) O^T`` with
    ``O`` a rational rotation (Cayley) and ``q_i`` in ``{mu, (mu + L)/2, L}``, so that ``R = sqrt((Q - mu)(L - Q)) =
    O diag(r) O^T`` is rational; the kernel's extra vectors ``u_j = R x_j`` live in coordinates orthogonal to every
    ``x`` and ``g``.  Every row (equalities as two rows) holds exactly; a ``Q`` with an eigenvalue above ``L``
    violates some row for every choice of the ``u_j`` - checked here for ``u_j = 0`` and ``u_j = R' x_j``."""
    rng = random.Random(seed)
    L = Fraction(rng.randint(2, 6), rng.randint(1, 2))
    mu = L * Fraction(rng.randint(0, 3), 4)
    K = [[Fraction(0)] * DIM for _ in range(DIM)]
    for i in range(DIM):
        for j in range(i + 1, DIM):
            K[i][j] = Fraction(rng.randint(-3, 3), rng.randint(1, 3))
            K[j][i] = -K[i][j]
    eye = [[Fraction(i == j) for j in range(DIM)] for i in range(DIM)]
    O = _mul([[eye[i][j] - K[i][j] for j in range(DIM)] for i in range(DIM)],
             _inverse([[eye[i][j] + K[i][j] for j in range(DIM)] for i in range(DIM)]))
    Ot = [list(r) for r in zip(*O, strict=True)]
    qs = [rng.choice((mu, (mu + L) / 2, L)) for _ in range(DIM)]
    rs = [(L - mu) / 2 if v == (mu + L) / 2 else Fraction(0) for v in qs]
    Q = _mul(_mul(O, [[qs[i] * (i == j) for j in range(DIM)] for i in range(DIM)]), Ot)
    Rm = _mul(_mul(O, [[rs[i] * (i == j) for j in range(DIM)] for i in range(DIM)]), Ot)
    bvec = _rand(rng, den=2, span=3)
    xs = [_rand(rng) for _ in range(4)]
    assert not _quadratic_rows_violated(L, mu, Q, Rm, bvec, xs)
    # a non-member: an eigenvalue L + 1 (then (Q - mu)(L - Q) is not PSD: no u_j can exist; the kernel's T row
    # <u_j, u_j> = T_jj < 0 for x_j along that eigenvector fails whatever u_j)
    qs_bad = [L + 1, *qs[1:]]
    Qb = _mul(_mul(O, [[qs_bad[i] * (i == j) for j in range(DIM)] for i in range(DIM)]), Ot)
    e0 = [O[i][0] for i in range(DIM)]  # the eigenvector of L + 1
    assert _quadratic_rows_violated(L, mu, Qb, Rm, bvec, [e0, *xs[:2]])
    assert _quadratic_rows_violated(L, mu, Qb, [[Fraction(0)] * DIM for _ in range(DIM)], bvec, [e0, *xs[:2]])


def _quadratic_rows_violated(L: Fraction, mu: Fraction, Q: Sequence[Sequence[Fraction]], Rm: Sequence[Sequence[Fraction]],
                             bvec: Sequence[Fraction], xs: Sequence[Sequence[Fraction]]) -> list[int]:
    """The kernel's rows of ``"quadratic"`` violated by the data of ``1/2 <x, Q x> + <b, x>`` at ``0`` and ``xs``,
    with ``u_j = R x_j`` as the extra basis vectors (basis ``DIM + j``; Gram: coordinates orthonormal, ``u`` orthogonal
    to them)."""
    cls = parse_class({"functions": "quadratic", "L": str(L), "mu": str(mu)}, q)
    cls = {**cls, "aux": DIM}
    points = [({}, _vec(bvec), None)]
    for j, x in enumerate(xs):
        g = [_dot(Q[i], x) + bvec[i] for i in range(DIM)]
        points.append((_vec(x), _vec(g), j))
    values = {j: _dot(x, [_dot(Q[i], x) for i in range(DIM)]) / 2 + _dot(bvec, x) for j, x in enumerate(xs)}
    us = [[_dot(Rm[i], x) for i in range(DIM)] for x in xs]

    def gram(a: int, b: int) -> Fraction:
        if a < DIM and b < DIM:
            return Fraction(a == b)
        if a < DIM or b < DIM:
            return Fraction(0)
        return _dot(us[a - DIM], us[b - DIM])

    bad = []
    for r, (G, F, c) in enumerate(TABLE["quadratic"].rows(points, cls, RATIONALS)):
        lhs = sum((v * gram(a, b) * (1 if a == b else 2) for (a, b), v in G.items()), Fraction(0)) \
            + sum((w * values[i] for i, w in F.items()), Fraction(0)) + c
        if lhs > 0:
            bad.append(r)
    return bad


def _psd(U: list[list[Fraction]]) -> bool:
    """Exact PSD test of a symmetric rational matrix (principal minors via LDL with symmetric pivoting on the
    diagonal; written here, independent of the kernel's routine)."""
    A = [list(r) for r in U]
    idx = list(range(len(A)))
    while idx:
        k = max(idx, key=lambda i: A[i][i])
        if A[k][k] < 0:
            return False
        if A[k][k] == 0:
            if any(A[k][j] != 0 for j in idx):
                return False
            idx.remove(k)
            continue
        idx.remove(k)
        for i in idx:
            for j in idx:
                A[i][j] -= A[i][k] * A[k][j] / A[k][k]
    return True


def _lifted_rows_violated(key: str, params: dict[str, Any], M: Sequence[Sequence[Fraction]], bvec: Sequence[Fraction],
                          xs: Sequence[Sequence[Fraction]]) -> list[str]:
    """Failures of the kernel's lifted rows of class ``key`` on the affine operator ``x -> M x + b`` at ``0`` and
    ``xs`` (values: ``1/2 <x, M x> + <b, x>``): every row free of the extra vectors must hold; the rows that read
    ``<u_j, u_k>`` come as equality pairs and fix a matrix ``U`` that must be consistent and PSD (then the ``u_j``
    exist: a Gram factor of ``U`` in fresh coordinates)."""
    cls = {**parse_class({"functions": key, **params}, q), "aux": DIM}
    points = [({}, _vec(bvec), None)]
    for j, x in enumerate(xs):
        points.append((_vec(x), _vec([_dot(M[i], x) + bvec[i] for i in range(DIM)]), j))
    values = {j: _dot(x, [_dot(M[i], x) for i in range(DIM)]) / 2 + _dot(bvec, x) for j, x in enumerate(xs)}
    U: dict[tuple[int, int], Fraction] = {}
    bad = []
    for r, (G, F, c) in enumerate(TABLE[key].rows(points, cls, RATIONALS)):
        rest = sum((v for (a, b), v in G.items() if a == b < DIM), Fraction(0)) \
            + sum((w * values[i] for i, w in F.items()), Fraction(0)) + c
        lifted = [(a, b, v) for (a, b), v in G.items() if a >= DIM]
        if any(DIM <= b and a < DIM for (a, b) in G):
            bad.append(f"row {r} mixes u with x or g")
        if not lifted:
            if rest > 0:
                bad.append(f"row {r}")
            continue
        (a, b, v), = lifted
        val = -rest / (v * (1 if a == b else 2))  # the equality pair: v m U_ab + rest = 0
        if U.setdefault((a - DIM, b - DIM), val) != val:
            bad.append(f"row {r}: inconsistent U")
    n = len(xs)
    if not _psd([[U.get((min(i, j), max(i, j)), U.get((max(i, j), min(i, j)), Fraction(0))) for j in range(n)]
                 for i in range(n)]):
        bad.append("U not PSD")
    return bad


@pytest.mark.parametrize("seed", SEEDS)
def test_affine_operators_satisfy_the_lifted_rows(seed: int) -> None:
    """``symmetric-linear``: ``M = O diag(q) O^T`` (``q`` in ``[mu, L]``, ``mu`` possibly negative); ``skew-symmetric``:
    ``M`` skew with Frobenius norm ``<= L``; ``linear-operator``: any ``M`` with Frobenius norm ``<= L``; each
    with an affine term ``b``.  Every row holds; non-members fail: an eigenvalue above ``L``, a non-symmetric ``M`` for
    the symmetric class, a symmetric non-zero ``M`` for the skew class, ``L`` below ``||M||``."""
    rng = random.Random(seed)
    K = [[Fraction(0)] * DIM for _ in range(DIM)]
    for i in range(DIM):
        for j in range(i + 1, DIM):
            K[i][j] = Fraction(rng.randint(-3, 3), rng.randint(1, 3))
            K[j][i] = -K[i][j]
    eye = [[Fraction(i == j) for j in range(DIM)] for i in range(DIM)]
    O = _mul([[eye[i][j] - K[i][j] for j in range(DIM)] for i in range(DIM)],
             _inverse([[eye[i][j] + K[i][j] for j in range(DIM)] for i in range(DIM)]))
    Ot = [list(r) for r in zip(*O, strict=True)]
    L = Fraction(rng.randint(1, 5), rng.randint(1, 2))
    mu = -L * Fraction(rng.randint(0, 4), 4)
    qs = [mu + (L - mu) * Fraction(rng.randint(0, 4), 4) for _ in range(DIM)]
    S = _mul(_mul(O, [[qs[i] * (i == j) for j in range(DIM)] for i in range(DIM)]), Ot)
    bvec, xs = _rand(rng, den=2, span=3), [_rand(rng) for _ in range(4)]
    sym = {"L": str(L), "mu": str(mu)}
    assert _lifted_rows_violated("symmetric-linear", sym, S, bvec, xs) == []
    bigger = _mul(_mul(O, [[(L + 1 if i == 0 else qs[i]) * (i == j) for j in range(DIM)] for i in range(DIM)]), Ot)
    assert _lifted_rows_violated("symmetric-linear", sym, bigger, bvec, [[O[i][0] for i in range(DIM)], *xs[:2]]) != []
    assert _lifted_rows_violated("symmetric-linear", {"L": "100", "mu": "-100"}, K, bvec, xs) != []  # not symmetric
    frob = lambda A: Fraction(math.isqrt(int(sum(v * v for r in A for v in r)) + 1) + 1)  # noqa: E731  >= ||A||_2
    assert _lifted_rows_violated("skew-symmetric-linear", {"L": str(frob(K))}, K, bvec, xs) == []
    assert _lifted_rows_violated("skew-symmetric-linear", {"L": str(frob(S) + 1)}, S, bvec, xs) != [] or \
        all(v == 0 for r in S for v in r)
    Mg = [_rand(rng, den=3, span=3) for _ in range(DIM)]
    assert _lifted_rows_violated("linear-operator", {"L": str(frob(Mg))}, Mg, bvec, xs) == []
    assert _lifted_rows_violated("linear-operator", {"L": str(frob(K))}, K, bvec, xs) == []  # a skew map is linear
    tiny = Fraction(1, 1000)
    assert _lifted_rows_violated("linear-operator", {"L": str(tiny)}, Mg, bvec, xs) != [] or \
        all(v == 0 for r in Mg for v in r)


def test_the_row_checker_catches_a_non_member() -> None:
    """Control of the checker above: ``f(x) = ||x||^2`` is not 1-smooth (it is 2-smooth), ``f(x) = 2 |x_1|`` not
    1-Lipschitz, a point outside ``C`` not a support-function subgradient, a concave ``f`` not convex."""
    pts = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0)),
           ([Fraction(1), Fraction(0), Fraction(0)], [Fraction(2), Fraction(0), Fraction(0)], Fraction(1))]
    assert _rows_hold("smooth-convex", {"L": "1", "mu": "0"}, pts) != []
    assert _rows_hold("smooth-convex", {"L": "2", "mu": "0"}, pts) == []
    assert _rows_hold("convex-lipschitz", {"M": "1"}, pts) != []
    concave = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0)),
               ([Fraction(1), Fraction(0), Fraction(0)], [Fraction(-1), Fraction(0), Fraction(0)], Fraction(-1, 2))]
    assert _rows_hold("convex", {}, concave) != []
    assert _rows_hold("smooth-nonconvex", {"L": "1"}, concave) == []
    # 0 in C (the subgradient at x* = 0) forces sigma(e_1) >= 0: the subgradient -e_1 at e_1 (value -1) is no member's
    support = [([Fraction(0)] * DIM, [Fraction(0)] * DIM, Fraction(0)),
               ([Fraction(1), Fraction(0), Fraction(0)], [Fraction(-1), Fraction(0), Fraction(0)], Fraction(-1))]
    assert _rows_hold("convex-support", {"M": "inf"}, support) != []
    support[1] = ([Fraction(1), Fraction(0), Fraction(0)], [Fraction(1), Fraction(0), Fraction(0)], Fraction(1))
    assert _rows_hold("convex-support", {"M": "inf"}, support) == []


def test_every_table_entry_is_exercised_here() -> None:
    """A class added to the table must get a member test in this file (its rows must hold for its members)."""
    tested: set[str] = {"smooth-convex", "convex", "convex-lipschitz", "strongly-convex", "smooth-nonconvex",
                        "convex-indicator", "convex-support", "monotone", "strongly-monotone", "lipschitz-operator",
                        "cocoercive", "negatively-comonotone", "quadratic", "symmetric-linear",
                        "skew-symmetric-linear", "linear-operator"}
    assert set(TABLE) <= tested, sorted(set(TABLE) - tested)
