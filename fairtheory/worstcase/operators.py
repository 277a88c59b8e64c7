r"""Operator classes and operator oracles for the hand-written PEP builder (:class:`fairtheory.worstcase.sdp.PEP`).

An operator ``A`` of a PEP is a :class:`~fairtheory.worstcase.sdp.Function` of the builder whose class is one of the
classes below: its points ``(x, g, f)`` hold an input ``x`` and an output ``g`` (``g = A x``, or an element of ``A x``
for a set-valued operator); no value variable is created (``zero_values``: ``f = 0`` throughout, an operator has no
function values).  Each class declares its interpolation rows ``r <= 0`` to the builder exactly as the function
classes of :mod:`fairtheory.worstcase.classes` do (the same protocol: ``interpolation(points)`` and, for the linear
classes, an ``on_point`` hook adding equalities) - there is one class abstraction, not two.

Classes (``du = u_j - u_k``, ``dx = x_j - x_k`` for two points of the operator; "exact": the rows hold for the data of
a member of the class *iff* the data are interpolated by one, so a PEP's value is the worst case; "relaxation": the
rows are only necessary, the value is an upper bound on the worst case):

=============================  ==========================================================  =========================
class                          rows                                                        source, status
=============================  ==========================================================  =========================
:class:`Monotone`              ``<du, dx> >= 0``                                           RTBG 2020 Sec 2; BC Thm 20.21 - exact
:class:`StronglyMonotone`      ``<du, dx> >= mu ||dx||^2``                                 RTBG 2020 Sec 2 - exact
:class:`Lipschitz`             ``||du||^2 <= L^2 ||dx||^2``                                Kirszbraun-Valentine; RTBG 2020 - exact
:class:`LipschitzStronglyMonotone` both rows above                                         RTBG 2020 Sec 2 - **relaxation**
:class:`Cocoercive`            ``<du, dx> >= beta ||du||^2``                               RTBG 2020 Prop 2 - exact
:class:`CocoerciveStronglyMonotone` ``<du, dx> >= beta ||du||^2``, ``>= mu ||dx||^2``      RTBG 2020 Sec 2 - **relaxation**
:class:`Nonexpansive`          ``||du||^2 <= ||dx||^2``                                    Kirszbraun-Valentine - exact
:class:`NegativelyComonotone`  ``<du, dx> >= -rho ||du||^2``                               BMW 2021 + BC Thm 20.21 - exact
:class:`Linear`                ``Y^T Y <= L^2 X^T X`` (PSD)                                BHG 2023 Thm 3.1 - exact
:class:`SymmetricLinear`       ``X^T Y`` symmetric, ``(Y - mu X)^T (L X - Y) >= 0``        BHG 2023 Thm 3.3 - exact
:class:`SkewSymmetricLinear`   ``X^T Y`` skew, ``Y^T Y <= L^2 X^T X``                      BHG 2023 Cor 3.2 - exact
=============================  ==========================================================  =========================

RTBG 2020 = Ryu, Taylor, Bergeling & Giselsson, "Operator splitting performance estimation: tight contraction factors
and optimal parameter selection", SIAM J. Optim. 30(3) (2020) 2251-2271; BC = Bauschke & Combettes, "Convex analysis and
monotone operator theory in Hilbert spaces" (2017); BMW 2021 = Bauschke, Moursi & Wang, "Generalized monotone
operators and their averaged resolvents", Math. Program. 189 (2021) 55-74; BHG 2023 = Bousselmi, Hendrickx & Glineur,
"Interpolation conditions for linear operators and applications to performance estimation problems" (2023).  The
derivations (why each is exact or a relaxation) are in docs/worstcase.md, "Operator classes".

Oracles (functions of this module; they call the builder's public methods only):

* :func:`operator` - a new operator of a PEP in a class above;
* :func:`apply` - ``A x`` (single-valued classes: one output per point; set-valued classes - monotone, strongly
  monotone, negatively comonotone - a new element of ``A x`` per call);
* :func:`resolvent` - ``x = J_{gamma A}(y)``, i.e. ``y = x + gamma u`` with ``u in A x``: a new output vector ``u`` and
  the point ``(y - gamma u, u)`` (the builder's proximal step, the same optimality condition);
* :func:`declare_zero` / :func:`declare_fixed_point` / :func:`declare_zero_of_sum` - ``x* = 0`` with ``A x* = 0``,
  ``T x* = x*`` or ``0 in sum_i A_i x*`` (a translation, free for every class here: ``x -> A(x + x*)`` stays in the
  class, and for the linear classes ``A x* = 0`` makes the translate the same linear map);
* :func:`value_is` - ``"worst case"`` when every class of a PEP is exact, ``"upper bound"`` otherwise.

Certificates: the exact pairwise classes (monotone, strongly monotone, Lipschitz and nonexpansive, cocoercive,
negatively comonotone) and the linear classes (their PSD condition lifted to new Gram vectors, as here) name their
entry of the trusted kernel's class table (:mod:`fairtheory_kernel.classes`) with
``kernel_class()``; as a traced client's class (``worst_case(..., function_class=Cocoercive(1), measure="distance",
certificate=True)``: the operator is the client's "gradient") a certificate the kernel checks comes back for the
measures ``"grad_norm"`` (``||sum_i p_i A_i(x)||^2``) and ``"distance"`` (an operator has no values: ``"value"`` is
refused).  The relaxations name none: ``certificate=True`` is refused for them.

Public, stable API (for the traced min-max worst cases): the eleven classes (their parameters as attributes, ``exact``,
``rescaled(a, b)``), :data:`OPERATOR_CLASSES`, the oracles above and :func:`is_operator_class`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import gram as _rows
from fairtheory.worstcase.classes import PairIndices, Row, _div, _frozen_pairs, _kq, _param
from fairtheory.worstcase.gram import Scalar, Vec
from fairtheory.worstcase.sdp import PEP, Function

if TYPE_CHECKING:
    from fairtheory.worstcase.gram import _Point

__all__ = ["Monotone", "StronglyMonotone", "Lipschitz", "LipschitzStronglyMonotone", "Cocoercive",
           "CocoerciveStronglyMonotone", "Nonexpansive", "NegativelyComonotone", "Linear", "SymmetricLinear",
           "SkewSymmetricLinear", "OPERATOR_CLASSES", "is_operator_class", "operator", "apply", "resolvent",
           "declare_zero", "declare_fixed_point", "declare_zero_of_sum", "value_is"]


def _upairs(points: list[_Point]) -> Any:
    """Unordered pairs ``j < k`` (every operator row is symmetric in the pair)."""
    for j in range(len(points)):
        for k in range(j + 1, len(points)):
            yield j, points[j], k, points[k]


class _OperatorClass:
    """Shared attributes: an operator has no function values and no smooth-convex bracket."""

    smooth_convex = False
    zero_values = True
    is_operator = True
    #: one output per point (single-valued); ``False``: a new element of ``A x`` per call (set-valued classes)
    differentiable = True
    exact = True
    #: Lipschitz constant of the operator (``inf`` when the class has none): the builder's unit of its outputs
    L: Any = math.inf

    def interpolation(self, points: list[_Point]) -> list[Row]:   # pragma: no cover - overridden
        raise NotImplementedError

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters (``None``: not certifiable - the relaxations)."""
        return None

    def rescaled(self, a: Any, b: Any) -> _OperatorClass:
        r"""The class of ``x' -> (a/b) A(a x')`` (``a, b > 0``): the units of the traced backend (``x' = x/a``, outputs
        ``u' = a u/b``, as gradients in :func:`fairtheory.worstcase.classes.rescale`).  Curvature-like constants
        (``mu``, ``L``) become ``c a^2/b``, cocoercivity and comonotonicity ``c b/a^2``; :class:`Monotone` is unchanged and
        :class:`Nonexpansive` becomes :class:`Lipschitz` ``(a^2/b)``.  An exact rescaling."""
        raise FairtheoryTypeError(f"{self!r} has no rescaling")   # pragma: no cover - overridden


def _c2(a: Any, b: Any) -> float:
    if isinstance(a, bool) or isinstance(b, bool) or not (float(a) > 0 and float(b) > 0):
        raise FairtheoryValueError(f"a and b (the rescaling units) must be positive numbers, got {a!r}, {b!r}")
    return float(a) * float(a) / float(b)


def _inner_row(coef_du_dx: Any, coef_du2: Any, coef_dx2: Any, pj: _Point, pk: _Point) -> Scalar:
    """``coef_du_dx <du, dx> + coef_du2 ||du||^2 + coef_dx2 ||dx||^2`` (zero coefficients skipped)."""
    du, dx = pj.g - pk.g, pj.x - pk.x
    quad = []
    if coef_du_dx != 0:
        quad.append((coef_du_dx, du, dx))
    if coef_du2 != 0:
        quad.append((coef_du2, du, du))
    if coef_dx2 != 0:
        quad.append((coef_dx2, dx, dx))
    return Scalar(quad)


#: :func:`_pair_rows` builds a block of arrays from this many rows per term on (fewer: the per-pair loop, cheaper there)
_BLOCK_ROWS_PER_TERM = 4

#: number of points -> ``(j, k, labels)`` of every unordered pair ``j < k``, ``j`` outer (:func:`_upairs`' order):
#: read-only arrays and the pairs as a tuple of Python ints
_UPAIRS: dict[int, tuple[np.ndarray, np.ndarray, tuple[tuple[int, int], ...]]] = {}


def _upair_indices(n: int) -> PairIndices:
    """``(j, k, labels)`` of the unordered pairs ``j < k`` of ``n`` points in :func:`_upairs`' order (a constant of
    ``n``, kept for a few sizes)."""
    return _frozen_pairs(_UPAIRS, n, lambda m: np.triu_indices(m, 1))


def _pair_rows(points: list[_Point], kinds: list[tuple[Any, Any, Any]]) -> list[Row]:
    r"""The rows ``c_1 <du, dx> + c_2 ||du||^2 + c_3 ||dx||^2 <= 0`` (:func:`_inner_row`, ``du = u_j - u_k``,
    ``dx = x_j - x_k``) of every unordered pair ``j < k`` (``j`` outer), one row per ``(c_1, c_2, c_3)`` of ``kinds``
    per pair in that order: array-built (:class:`~fairtheory.worstcase.gram.RowBlock`, one block over all pairs, no
    Python loop per row), the float data bitwise :func:`~fairtheory.worstcase.gram.scalar_row` of the per-pair rows
    (the same differences ``u_j - u_k`` of the zero-padded coefficients, the same products ``c (du_a dx_b)`` in the
    same order, zero coefficients skipped; tests/test_rows_vectorised.py).  Exact (object) coefficients, and fewer than
    :data:`_BLOCK_ROWS_PER_TERM` rows per term: the per-pair loop."""
    n = len(points)
    n_terms = sum(c != 0 for kind in kinds for c in kind)
    # a block's fixed cost (one pass per term) exceeds the loop's below about 4 rows per term (Douglas-Rachford's
    # two-point operators): a rule on sizes
    arr = _rows.point_arrays(points) if len(kinds) * (n * (n - 1) // 2) >= _BLOCK_ROWS_PER_TERM * n_terms else None
    if arr is None:
        return [(_inner_row(*c, pj, pk), (j, k)) for j, pj, k, pk in _upairs(points) for c in kinds]
    X, G = arr[0], arr[1]
    jj, kk, pairs = _upair_indices(n)
    DU, DX = G[jj] - G[kk], X[jj] - X[kk]
    K, P = len(kinds), int(jj.size)
    terms: list[tuple[float, np.ndarray, np.ndarray]] = []
    for r, (c1, c2, c3) in enumerate(kinds):
        for c, U, V in ((c1, DU, DX), (c2, DU, DU), (c3, DX, DX)):
            if c == 0:
                continue
            if K > 1:  # rows of kind r only: the other kinds' rows of this term are zero (no entries)
                Um, Vm = np.zeros((K * P, U.shape[1])), np.zeros((K * P, V.shape[1]))
                Um[r::K], Vm[r::K] = U, V
                U, V = Um, Vm
            terms.append((float(c), U, V))

    def build(i: int) -> Scalar:
        p = i // K
        return _inner_row(*kinds[i % K], points[int(jj[p])], points[int(kk[p])])

    block = _rows.RowBlock(terms, [], np.zeros(K * P), build)
    labels = pairs if K == 1 else [lab for lab in pairs for _ in range(K)]
    return list(zip(block.rows(), labels, strict=True))


class Monotone(_OperatorClass):
    r"""Maximally monotone operators (set-valued): for every pair of points ``<u_j - u_k, x_j - x_k> >= 0``.

    **Exact**: data satisfying the rows form a monotone set, which has a maximally monotone extension (Bauschke &
    Combettes 2017, Thm 20.21 (Zorn); RTBG 2020, Sec 2; PEPit's ``MonotoneOperator``).  Set-valued: each :func:`apply`
    returns a new element of ``A x``."""

    differentiable = False

    def __repr__(self) -> str:
        return "Monotone()"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "monotone"}

    def rescaled(self, a: Any, b: Any) -> Monotone:
        _c2(a, b)
        return Monotone()

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return _pair_rows(points, [(-1, 0, 0)])


class StronglyMonotone(_OperatorClass):
    r"""Maximally ``mu``-strongly monotone operators: ``<u_j - u_k, x_j - x_k> >= mu ||x_j - x_k||^2``.

    **Exact** (RTBG 2020, Sec 2: ``A`` is maximally ``mu``-strongly monotone iff ``A - mu I`` is maximally monotone, a
    bijection of graphs ``(x, u) -> (x, u - mu x)``, and the monotone condition is exact).  Set-valued.

    Parameters
    ----------
    mu : float or Fraction
        strong monotonicity constant, ``0 < mu < inf``.
    """

    differentiable = False

    def __init__(self, mu: Any) -> None:
        self.mu = _param(mu, "mu")

    def __repr__(self) -> str:
        return f"StronglyMonotone(mu={self.mu!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "strongly-monotone", "mu": _kq(self.mu)}

    def rescaled(self, a: Any, b: Any) -> StronglyMonotone:
        return StronglyMonotone(float(self.mu) * _c2(a, b))

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return _pair_rows(points, [(-1, 0, self.mu)])


class Lipschitz(_OperatorClass):
    r"""``L``-Lipschitz operators (single-valued, not necessarily monotone): ``||u_j - u_k||^2 <= L^2 ||x_j - x_k||^2``.

    **Exact** by the Kirszbraun-Valentine theorem (a Lipschitz map from a subset of a Hilbert space extends to the whole
    space with the same constant; Kirszbraun 1934, Valentine 1945; RTBG 2020, Sec 2; PEPit's ``LipschitzOperator``).
    ``L = 1``: :class:`Nonexpansive`; ``L < 1``: contractions.

    Parameters
    ----------
    L : float or Fraction
        Lipschitz constant, ``0 < L < inf``.
    """

    def __init__(self, L: Any) -> None:
        self.L = _param(L, "L")

    def __repr__(self) -> str:
        return f"Lipschitz(L={self.L!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "lipschitz-operator", "L": _kq(self.L)}

    def rescaled(self, a: Any, b: Any) -> Lipschitz:
        return Lipschitz(float(self.L) * _c2(a, b))

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return _pair_rows(points, [(0, 1, -(self.L * self.L))])


class Nonexpansive(Lipschitz):
    r"""Nonexpansive operators (``1``-Lipschitz): ``||T x_j - T x_k|| <= ||x_j - x_k||``.  **Exact**
    (Kirszbraun-Valentine, as :class:`Lipschitz`; PEPit's ``NonexpansiveOperator`` without an infimal displacement
    vector, i.e. consistent operators once a fixed point is declared)."""

    def __init__(self) -> None:
        super().__init__(1)

    def __repr__(self) -> str:
        return "Nonexpansive()"


class LipschitzStronglyMonotone(_OperatorClass):
    r"""``L``-Lipschitz ``mu``-strongly monotone operators (``mu = 0``: Lipschitz monotone): for every pair both
    ``<du, dx> >= mu ||dx||^2`` and ``||du||^2 <= L^2 ||dx||^2``.

    A **relaxation**: every member satisfies the rows, but RTBG 2020 (Sec 2) show that these two-point conditions are
    not sufficient for interpolation by one Lipschitz strongly monotone operator; a worst case computed with this class
    is an **upper bound** (:attr:`exact` is ``False``, :func:`value_is` says ``"upper bound"``; PEPit's
    ``LipschitzStronglyMonotoneOperatorCheap``).  It is tight in some settings (the Douglas-Rachford contraction of
    RTBG 2020 Thm 4.3, the forward step's ``1 - 2 gamma mu + gamma^2 L^2``; tests/test_worstcase_operators.py).

    Parameters
    ----------
    L : Lipschitz constant, ``0 < L < inf``.  mu : strong monotonicity, ``0 <= mu < L``.
    """

    exact = False

    def __init__(self, L: Any, mu: Any = 0) -> None:
        self.L = _param(L, "L")
        self.mu = _param(mu, "mu", low_inclusive=True)
        if not float(self.mu) < float(self.L):
            raise FairtheoryValueError(f"mu must lie in [0, L) = [0, {float(self.L)!r}), got {mu!r} (mu > L: no such "
                                       "operator; mu = L leaves A = L I + c, whose rows have no strictly feasible point: "
                                       "write L x)")

    def __repr__(self) -> str:
        return f"LipschitzStronglyMonotone(L={self.L!r}, mu={self.mu!r})"

    def rescaled(self, a: Any, b: Any) -> LipschitzStronglyMonotone:
        c = _c2(a, b)
        return LipschitzStronglyMonotone(float(self.L) * c, float(self.mu) * c)

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return _pair_rows(points, [(-1, 0, self.mu), (0, 1, -(self.L * self.L))])


class Cocoercive(_OperatorClass):
    r"""``beta``-cocoercive operators: ``<u_j - u_k, x_j - x_k> >= beta ||u_j - u_k||^2`` (single-valued,
    ``1/beta``-Lipschitz, maximally monotone).

    **Exact** (RTBG 2020, Prop 2: ``A`` is ``beta``-cocoercive iff ``I - 2 beta A`` is nonexpansive, and Lipschitz
    interpolation is exact; PEPit's ``CocoerciveOperator``).

    Parameters
    ----------
    beta : float or Fraction
        cocoercivity constant, ``0 < beta < inf``.
    """

    def __init__(self, beta: Any) -> None:
        self.beta = _param(beta, "beta")
        self.L = _div(1, self.beta)

    def __repr__(self) -> str:
        return f"Cocoercive(beta={self.beta!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "cocoercive", "beta": _kq(self.beta)}

    def rescaled(self, a: Any, b: Any) -> Cocoercive:
        return Cocoercive(float(self.beta) / _c2(a, b))

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return _pair_rows(points, [(-1, self.beta, 0)])


class CocoerciveStronglyMonotone(_OperatorClass):
    r"""``beta``-cocoercive ``mu``-strongly monotone operators: both ``<du, dx> >= beta ||du||^2`` and
    ``<du, dx> >= mu ||dx||^2`` (``mu beta < 1``).

    A **relaxation** (PEPit's ``CocoerciveStronglyMonotoneOperatorCheap``: necessary conditions, not known to be
    sufficient; RTBG 2020, Sec 2): a worst case computed with it is an **upper bound** (:attr:`exact` ``False``).

    Parameters
    ----------
    beta : cocoercivity, ``0 < beta < inf``.  mu : strong monotonicity, ``0 < mu < 1/beta``.
    """

    exact = False

    def __init__(self, beta: Any, mu: Any) -> None:
        self.beta = _param(beta, "beta")
        self.mu = _param(mu, "mu")
        if not float(self.mu) * float(self.beta) < 1:
            raise FairtheoryValueError(f"mu must lie in (0, 1/beta) = (0, {1 / float(self.beta)!r}), got {mu!r} (a "
                                       "beta-cocoercive operator is 1/beta-Lipschitz; mu = 1/beta leaves A = I/beta + c: "
                                       "write x/beta)")
        self.L = _div(1, self.beta)

    def __repr__(self) -> str:
        return f"CocoerciveStronglyMonotone(beta={self.beta!r}, mu={self.mu!r})"

    def rescaled(self, a: Any, b: Any) -> CocoerciveStronglyMonotone:
        c = _c2(a, b)
        return CocoerciveStronglyMonotone(float(self.beta) / c, float(self.mu) * c)

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return _pair_rows(points, [(-1, self.beta, 0), (-1, 0, self.mu)])


class NegativelyComonotone(_OperatorClass):
    r"""Maximally ``rho``-negatively comonotone operators (set-valued): ``<u_j - u_k, x_j - x_k> >= -rho ||u_j - u_k||^2``.

    **Exact** (our argument, docs/worstcase.md "Operator classes"; PEPit's ``NegativelyComonotoneOperator`` labels these
    rows necessary only): ``A`` is ``rho``-comonotone iff ``A^{-1} + rho I`` is monotone (Bauschke, Moursi & Wang 2021,
    Sec 2: ``A`` is ``rho``-comonotone iff ``A^{-1}`` is ``rho``-monotone); data satisfying the rows give a monotone set
    ``{(u_i, x_i + rho u_i)}``, which extends to a maximally monotone ``B`` (Bauschke & Combettes 2017, Thm 20.21), and
    ``A = (B - rho I)^{-1}`` contains the data and is maximally ``rho``-comonotone (an extension ``A'`` would make
    ``A'^{-1} + rho I`` a monotone extension of ``B``).

    Parameters
    ----------
    rho : float or Fraction
        comonotonicity parameter, ``0 < rho < inf``.
    """

    differentiable = False

    def __init__(self, rho: Any) -> None:
        self.rho = _param(rho, "rho")

    def __repr__(self) -> str:
        return f"NegativelyComonotone(rho={self.rho!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "negatively-comonotone", "rho": _kq(self.rho)}

    def rescaled(self, a: Any, b: Any) -> NegativelyComonotone:
        return NegativelyComonotone(float(self.rho) / _c2(a, b))

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return _pair_rows(points, [(-1, -self.rho, 0)])


# ----------------------------------------------------------------------------- linear classes (PSD conditions)
class _LinearBase(_OperatorClass):
    """Linear classes: ``M 0 = 0`` (the origin of the PEP is the origin of the linear map), rows on the matrices
    ``X = [x_i]``, ``Y = [y_i]`` of all points.  A PSD condition ``T >= 0`` is written as the builder's quadratic class
    does: one new basis vector ``w_i`` per point and the equalities ``<w_i, w_j> = T_ij`` (``i <= j``), so ``T`` is a
    principal block of the Gram matrix; conversely a feasible ``T >= 0`` extends to a PSD Gram matrix with the ``w``
    orthogonal to everything else - the same set of Gram matrices."""

    def _T(self, p: _Point, q: _Point) -> Scalar:   # pragma: no cover - overridden
        raise NotImplementedError

    def _pair_eqs(self, p: _Point, q: _Point, pep: PEP) -> None:
        """Equalities between two points other than ``T`` (symmetry of ``X^T Y``)."""

    def on_point(self, fn: Any, index: int) -> None:
        p = fn.points[index]
        if not np.any(p.x.c):
            if np.any(p.g.c):
                raise FairtheoryValueError(f"{self!r}: a linear operator maps the origin to 0; the point at the origin "
                                           "must have output 0 (declare_zero, not declare_zero_of_sum)")
            return
        aux = fn.__dict__.setdefault("_linop_aux", [])
        w = fn.pep._new_vector(("grad", fn, None))
        aux.append((p, w))
        for q, v in aux:
            self._pair_eqs(p, q, fn.pep)
            fn.pep.add_eq(Scalar([(1, w, v)]) - self._T(p, q))

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return []   # every condition is an equality added by on_point


class Linear(_LinearBase):
    r"""Linear operators ``M`` with ``||M|| <= L`` (largest singular value): points ``y_i = M x_i`` exist iff
    ``Y^T Y <= L^2 X^T X`` (PSD order), Bousselmi, Hendrickx & Glineur 2023, Thm 3.1 (without evaluations of ``M^T``;
    PEPit's ``LinearOperator``).  **Exact**: the condition says ``||Y a|| <= L ||X a||`` for every ``a``, so ``M X a =
    Y a`` is well defined on ``range X`` with norm ``<= L`` and extends by ``0`` on its orthogonal complement.  It
    implies linearity (``X a = 0`` forces ``Y a = 0``).

    Parameters
    ----------
    L : float or Fraction
        bound on the largest singular value, ``0 < L < inf``.
    """

    def __init__(self, L: Any) -> None:
        self.L = _param(L, "L")

    def __repr__(self) -> str:
        return f"Linear(L={self.L!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "linear-operator", "L": _kq(self.L)}

    def rescaled(self, a: Any, b: Any) -> Linear:
        return Linear(float(self.L) * _c2(a, b))

    def _T(self, p: _Point, q: _Point) -> Scalar:
        return Scalar([(self.L * self.L, p.x, q.x), (-1, p.g, q.g)])


class SymmetricLinear(_LinearBase):
    r"""Symmetric linear operators ``M = M^T`` with ``mu I <= M <= L I``: points ``y_i = M x_i`` exist iff ``X^T Y`` is
    symmetric and ``(Y - mu X)^T (L X - Y) >= 0`` (Bousselmi, Hendrickx & Glineur 2023, Thm 3.3; PEPit's
    ``SymmetricLinearOperator``).  **Exact.**  With the symmetry, ``T_ij = (L + mu) <y_i, x_j> - <y_i, y_j> -
    mu L <x_i, x_j>`` (the matrix of :class:`~fairtheory.worstcase.classes.SmoothStronglyConvexQuadratic`, whose
    gradients are exactly these operators with ``mu >= 0``).

    Parameters
    ----------
    L : float or Fraction
        largest eigenvalue bound, ``0 < L < inf`` (also the builder's unit of the outputs).
    mu : float or Fraction
        smallest eigenvalue bound, ``-inf < mu < L`` (negative allowed: indefinite operators).
    """

    def __init__(self, L: Any, mu: Any = 0) -> None:
        self.L = _param(L, "L")
        if isinstance(mu, (bool, str, bytes)) or mu is None:
            raise FairtheoryTypeError(f"mu must be a real number, got {mu!r}")
        mf = float(mu)
        if not math.isfinite(mf) or not mf < float(self.L):
            raise FairtheoryValueError(f"mu must be a finite number below L = {float(self.L)!r}, got {mu!r} (mu = L "
                                       "leaves M = L I, whose PSD condition has no strictly feasible point: write L x)")
        self.mu = mu if isinstance(mu, (Fraction, int)) else mf

    def __repr__(self) -> str:
        return f"SymmetricLinear(L={self.L!r}, mu={self.mu!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "symmetric-linear", "L": _kq(self.L), "mu": _kq(self.mu)}

    def rescaled(self, a: Any, b: Any) -> SymmetricLinear:
        c = _c2(a, b)
        return SymmetricLinear(float(self.L) * c, float(self.mu) * c)

    def _pair_eqs(self, p: _Point, q: _Point, pep: PEP) -> None:
        if q is not p:
            pep.add_eq(Scalar([(1, p.x, q.g), (-1, q.x, p.g)]))          # <x_i, y_j> = <x_j, y_i>

    def _T(self, p: _Point, q: _Point) -> Scalar:
        return Scalar([(self.L + self.mu, p.g, q.x), (-1, p.g, q.g), (-(self.mu * self.L), p.x, q.x)])


class SkewSymmetricLinear(_LinearBase):
    r"""Skew-symmetric linear operators ``M = -M^T`` with ``||M|| <= L``: points ``y_i = M x_i`` exist iff ``X^T Y`` is
    skew-symmetric (``<x_i, y_j> = -<x_j, y_i>``, so ``<x_i, y_i> = 0``) and ``Y^T Y <= L^2 X^T X`` (Bousselmi, Hendrickx
    & Glineur 2023, Cor 3.2; PEPit's ``SkewSymmetricLinearOperator``).  **Exact.**  These are the monotone linear
    operators of bilinear saddle problems (``<M x, x> = 0``).

    Parameters
    ----------
    L : float or Fraction
        bound on the largest singular value, ``0 < L < inf``.
    """

    def __init__(self, L: Any) -> None:
        self.L = _param(L, "L")

    def __repr__(self) -> str:
        return f"SkewSymmetricLinear(L={self.L!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        return {"functions": "skew-symmetric-linear", "L": _kq(self.L)}

    def rescaled(self, a: Any, b: Any) -> SkewSymmetricLinear:
        return SkewSymmetricLinear(float(self.L) * _c2(a, b))

    def _pair_eqs(self, p: _Point, q: _Point, pep: PEP) -> None:
        pep.add_eq(Scalar([(1, p.x, q.g), (1, q.x, p.g)]))                # <x_i, y_j> + <x_j, y_i> = 0

    def _T(self, p: _Point, q: _Point) -> Scalar:
        return Scalar([(self.L * self.L, p.x, q.x), (-1, p.g, q.g)])


#: every operator class of this module (public, stable)
OPERATOR_CLASSES: tuple[type, ...] = (Monotone, StronglyMonotone, Lipschitz, LipschitzStronglyMonotone, Cocoercive,
                                      CocoerciveStronglyMonotone, Nonexpansive, NegativelyComonotone, Linear,
                                      SymmetricLinear, SkewSymmetricLinear)


# ----------------------------------------------------------------------------- oracles
def is_operator_class(cls: Any) -> bool:
    """Whether ``cls`` is an instance of an operator class of this module."""
    return isinstance(cls, _OperatorClass)


def _op(A: Any, name: str = "A") -> Function:
    if not isinstance(A, Function) or not is_operator_class(A.cls):
        got = repr(A.cls) if isinstance(A, Function) else type(A).__name__
        raise FairtheoryTypeError(f"{name} must be an operator of the PEP (operators.operator(pep, cls)), got {got}")
    return A


def _vec(v: Any, name: str, pep: PEP | None = None) -> Vec:
    """``v`` as a vector of ``pep`` (refused by name when it has coordinates beyond ``pep``'s basis: a vector of another
    PEP; vectors carry no owner, so a shorter one is indistinguishable)."""
    if not isinstance(v, Vec):
        raise FairtheoryTypeError(f"{name} must be a vector of the PEP (Vec), got {type(v).__name__}")
    if pep is not None and v.c.size > pep.dim:
        raise FairtheoryValueError(f"{name} is a vector of another PEP: it has coordinates on {v.c.size} basis vectors, "
                                   f"this PEP has {pep.dim}")
    return v


def operator(pep: PEP, cls: Any, name: str = "") -> Function:
    """A new operator of ``pep`` in the operator class ``cls`` (an instance of a class of this module)."""
    if not isinstance(pep, PEP):
        raise FairtheoryTypeError(f"pep must be a PEP, got {type(pep).__name__}")
    if not is_operator_class(cls):
        raise FairtheoryTypeError(f"cls must be an operator class instance of fairtheory.worstcase.operators "
                                  f"(e.g. Monotone()), got {cls!r}")
    return pep.function(cls, name or f"A{len(pep.functions)}")


def apply(A: Function, x: Vec) -> Vec:
    """``A x``: the output at ``x`` (single-valued classes: the same vector at a point seen before; set-valued classes:
    a new element of ``A x`` per call)."""
    A = _op(A)
    return A.grad(_vec(x, "x", A.pep))


def resolvent(A: Function, y: Vec, gamma: Any) -> tuple[Vec, Vec]:
    r"""``x = J_{gamma A}(y) = (I + gamma A)^{-1} y``: a new output ``u in A x`` and ``x = y - gamma u`` (the point
    ``(x, u)`` of ``A``).  Returns ``(x, u)``.  ``gamma``: a real number in ``(0, inf)``."""
    A = _op(A)
    x, u, _ = A.prox(_vec(y, "y", A.pep), gamma)
    return x, u


def declare_zero(A: Function) -> Vec:
    """Declare ``x* = 0`` a zero of ``A`` (``A x* = 0``; the point ``(0, 0)``).  Returns ``x*``."""
    return _op(A).optimum()[0]


def declare_fixed_point(T: Function) -> Vec:
    """Declare ``x* = 0`` a fixed point of ``T`` (``T x* = x* = 0``; the point ``(0, 0)``).  Returns ``x*``."""
    return _op(T, "T").optimum()[0]


def declare_zero_of_sum(ops: list[Function]) -> tuple[Vec, list[Vec]]:
    """Declare ``x* = 0`` a zero of ``sum_i A_i``: ``u_i* in A_i x*`` with ``sum_i u_i* = 0`` (the builder's
    :meth:`~fairtheory.worstcase.sdp.PEP.optimum_of_sum`).  Returns ``x*`` and the ``u_i*``."""
    if not ops:
        raise FairtheoryValueError("ops must be a non-empty list of operators of one PEP")
    for i, A in enumerate(ops):
        _op(A, f"ops[{i}]")
    return ops[0].pep.optimum_of_sum(list(ops))


def value_is(pep: PEP) -> str:
    """What a worst case of ``pep`` is: ``"worst case"`` when every class of its functions and operators is exact
    (interpolation conditions), ``"upper bound"`` when one is a relaxation (``exact`` false)."""
    return "worst case" if all(bool(getattr(f.cls, "exact", True)) for f in pep.functions) else "upper bound"
