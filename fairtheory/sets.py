r"""Ambiguity sets over client weights: capped simplices and integrated sets.

A *capped simplex* is

.. math:: S(u) = \{\lambda \in \Delta_n : 0 \le \lambda_i \le u_i\},\qquad \textstyle\sum_i u_i \ge 1,

and covers every ambiguity set of the seeds (spec ``exact.md`` Sec. 1, DESIGN.md "one idea"):

* the simplex ``u = 1`` (AFL, agnostic FL);
* the CVaR set ``C(a)``, ``u_i = 1/(a n)`` (001 Example 1);
* RC-FL's ``Q_alpha`` in weight coordinates, ``u_i = p_i/alpha_i`` (002 Def. 1);
* the singleton ``{p}``, ``u = p`` (FedAvg).

Its support function ``max_{lam in S(u)} lam . v`` is a fractional knapsack: fill the clients in
order of decreasing ``v`` up to their caps until the mass reaches one.  Here it is computed without
a full sort: a weighted selection (quickselect on values with ``np.partition``) finds the
*threshold* value ``t`` at which the cumulative cap crosses one, after which

.. math:: \sigma_{S(u)}(v) = \sum_{v_i > t} u_i v_i + \Big(1 - \sum_{v_i > t} u_i\Big)\, t

is exact and independent of how ties at ``t`` are broken.  Euclidean projection uses the exact
breakpoint search of the piecewise-linear map ``s -> sum_i clip(v_i - s, 0, u_i)``.

The *integrated set* of relative fairness (001 eqs. 6-8, reconstructed in ``relative.md`` Sec. 4) is
``Lambda_phi(A, B) = {(a - phi b)/(1 - phi) : a in A, b in B}``; its members sum to one but may be
negative, and ``max_{lam in Lambda_phi} lam . v = (sigma_A(v) - phi min_B v)/(1 - phi)``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import (
    FairtheoryValueError,
    as_vector,
    check_alpha,
    check_in_range,
    check_probability_vector,
)

if TYPE_CHECKING:  # pragma: no cover
    import cvxpy as cp

__all__ = ["CappedSimplex", "IntegratedSet"]

Array = NDArray[np.float64]

#: relative slack on ``sum(caps) >= 1`` (caps that sum to one up to rounding are accepted)
FEASIBILITY_TOL = 1e-12
_SMALL = 64  # below this many active entries the selection finishes with a sort


class CappedSimplex:
    r"""``S(u) = {lam in Delta_n : 0 <= lam_i <= u_i}`` (spec ``exact.md`` Sec. 1).

    Parameters
    ----------
    caps : array_like, shape (n,)
        Finite caps ``u_i >= 0`` with ``sum(u) >= 1`` (else the set is empty).  Caps above one are
        clipped to one (they are not binding on the simplex).

    Raises
    ------
    FairtheoryValueError
        On an empty, non-finite or negative ``caps`` or when ``sum(caps) < 1`` (infeasible set).
    """

    __slots__ = ("caps", "n")

    def __init__(self, caps: Any) -> None:
        u = as_vector(caps, "caps")
        if np.any(u < 0):
            bad = int(np.argmin(u))
            raise FairtheoryValueError(f"caps must be >= 0, got {u[bad]} at index {bad}")
        total = float(u.sum())
        if total < 1.0 - FEASIBILITY_TOL * u.size:
            raise FairtheoryValueError(
                f"caps must sum to at least 1 for the capped simplex to be non-empty, got sum {total!r}"
            )
        self.caps: Array = np.minimum(u, 1.0)
        self.caps.setflags(write=False)
        self.n: int = int(u.size)

    # ---------------------------------------------------------------- constructors
    @classmethod
    def simplex(cls, n: int) -> CappedSimplex:
        """The probability simplex ``Delta_n`` (caps one); its support is ``max v`` (AFL)."""
        n = _check_n(n)
        return cls(np.ones(n))

    @classmethod
    def cvar(cls, n: int, a: float) -> CappedSimplex:
        """CVaR set ``C(a)``: caps ``1/(a n)``, ``a in (0, 1]`` (001 Example 1).

        Its support is the mean of the largest ``a n`` entries (fractional last term)."""
        n = _check_n(n)
        a = check_in_range(a, "a", low=0.0, high=1.0, low_inclusive=False)
        return cls(np.full(n, 1.0 / (a * n)))

    @classmethod
    def qalpha(cls, p: Any, alpha: Any) -> CappedSimplex:
        """RC-FL's ``Q_alpha`` in weight coordinates: caps ``p_i/alpha_i`` (002 Def. 1).

        ``alpha`` is a scalar or a vector with ``alpha_i in [p_i, 1]``."""
        p = check_probability_vector(p, "p")
        a = check_alpha(alpha, p, "alpha")
        return cls(p / a)

    @classmethod
    def singleton(cls, p: Any) -> CappedSimplex:
        """The singleton ``{p}`` (caps ``p``): the FedAvg weighting."""
        return cls(check_probability_vector(p, "p"))

    def __repr__(self) -> str:
        return f"CappedSimplex(n={self.n}, caps={np.array2string(self.caps, threshold=6)})"

    # ---------------------------------------------------------------- core closed forms
    def _vec(self, v: Any, name: str = "v") -> Array:
        arr = as_vector(v, name)
        if arr.shape != (self.n,):
            raise FairtheoryValueError(f"{name} must have shape ({self.n},) to match caps, got {arr.shape}")
        return arr

    def threshold(self, v: Any) -> float:
        r"""The value ``t`` of the entry where the cumulative cap (by decreasing ``v``) reaches one.

        ``sum_{v_i > t} u_i < 1 <= sum_{v_i >= t} u_i``; found by weighted quickselect in
        expected ``O(n)`` time, exact (``t`` is an entry of ``v``)."""
        return _threshold(self._vec(v), self.caps)

    def support(self, v: Any) -> float:
        r"""``max_{lam in S(u)} lam . v`` (greedy fractional knapsack; exact, ties irrelevant)."""
        x = self._vec(v)
        t = _threshold(x, self.caps)
        gt = x > t
        ug = self.caps[gt]
        return float(ug @ x[gt] + (1.0 - ug.sum()) * t)

    def lower(self, v: Any) -> float:
        """``min_{lam in S(u)} lam . v = -support(-v)``."""
        return -self.support(-self._vec(v))

    def argmax(self, v: Any) -> Array:
        r"""A maximiser of ``lam . v`` over the set.

        Clients with ``v_i > t`` get their cap, clients with ``v_i < t`` get zero, and the remaining
        mass is split among the clients tied at the threshold ``t`` in proportion to their caps
        (a symmetric, order-independent tie rule; any split among ties is optimal)."""
        x = self._vec(v)
        return _fill_at_threshold(x, self.caps, _threshold(x, self.caps))

    def argmin(self, v: Any) -> Array:
        """A minimiser of ``lam . v`` (``argmax(-v)``)."""
        return self.argmax(-self._vec(v))

    def project(self, v: Any) -> Array:
        r"""Euclidean projection ``argmin_{lam in S(u)} ||lam - v||^2``.

        ``lam_i = clip(v_i - s, 0, u_i)`` with the scalar ``s`` solving
        ``sum_i clip(v_i - s, 0, u_i) = 1``; ``s`` comes from an exact breakpoint search
        (``O(n log n)``) followed by a closed-form solve on the active set."""
        x = self._vec(v)
        return _project(x, self.caps)

    def contains(self, lam: Any, tol: float = 1e-9) -> bool:
        """Whether ``lam`` lies in the set up to absolute tolerance ``tol``."""
        lam_arr = self._vec(lam, "lam")
        tol = check_in_range(tol, "tol", low=0.0)
        return bool(
            abs(lam_arr.sum() - 1.0) <= tol
            and np.all(lam_arr >= -tol)
            and np.all(lam_arr <= self.caps + tol)
        )

    def vertices(self, max_n: int = 14) -> Array:
        """All vertices (rows), for small ``n``: ``u`` on a subset, one fractional entry, zeros.

        Enumerates ``2^n`` subsets; refuses ``n > max_n``."""
        if self.n > max_n:
            raise FairtheoryValueError(f"vertices() enumerates 2^n subsets: n must be <= {max_n}, got {self.n}")
        out: list[Array] = []
        for mask in itertools.product((False, True), repeat=self.n):
            full = np.array(mask)
            rest = 1.0 - self.caps[full].sum()
            if rest < -1e-12:
                continue
            free = np.flatnonzero(~full)
            if abs(rest) <= 1e-12:
                lam = np.where(full, self.caps, 0.0)
                out.append(lam)
                continue
            for j in free:
                if rest < self.caps[j] - 1e-12:  # strictly fractional, else counted as full
                    lam = np.where(full, self.caps, 0.0)
                    lam[j] = rest
                    out.append(lam)
        return _unique_rows(np.array(out))

    # ---------------------------------------------------------------- cvxpy twin
    def cvxpy_constraints(self, lam: cp.Variable) -> list[Any]:
        """The set as cvxpy constraints on a variable of shape ``(n,)`` (LP/QP twin)."""
        import cvxpy as cp

        return [lam >= 0, lam <= self.caps, cp.sum(lam) == 1]


@dataclass(frozen=True)
class IntegratedSet:
    r"""``Lambda_phi(A, B) = {(a - phi b)/(1 - phi) : a in A, b in B}``, ``phi in [0, 1)``.

    001 eqs. 6-8 (reconstructed, ``relative.md`` Sec. 4).  Members sum to one and may be negative.
    ``support(v) = (sigma_A(v) - phi min_B v)/(1 - phi) = D_phi/(1 - phi)``.
    """

    A: CappedSimplex
    B: CappedSimplex
    phi: float

    def __post_init__(self) -> None:
        if not isinstance(self.A, CappedSimplex) or not isinstance(self.B, CappedSimplex):
            from fairtheory._validation import FairtheoryTypeError

            raise FairtheoryTypeError("A and B must be CappedSimplex instances")
        if self.A.n != self.B.n:
            raise FairtheoryValueError(f"A and B must have the same n, got {self.A.n} and {self.B.n}")
        phi = check_in_range(self.phi, "phi", low=0.0, high=1.0, high_inclusive=False)
        object.__setattr__(self, "phi", phi)

    @property
    def n(self) -> int:
        return self.A.n

    def support(self, v: Any) -> float:
        """``max_{lam in Lambda_phi} lam . v``."""
        x = self.A._vec(v)
        return (self.A.support(x) - self.phi * self.B.lower(x)) / (1.0 - self.phi)

    def argmax(self, v: Any) -> Array:
        """``(argmax_A v - phi argmin_B v)/(1 - phi)``."""
        x = self.A._vec(v)
        return (self.A.argmax(x) - self.phi * self.B.argmin(x)) / (1.0 - self.phi)

    def vertices(self, max_n: int = 10) -> Array:
        """Extreme points of the set (small ``n``).

        Candidates ``(a - phi b)/(1 - phi)`` over vertex pairs contain every vertex of the Minkowski
        sum; a candidate is kept only if it is not a convex combination of the others
        (LP feasibility via HiGHS)."""
        va, vb = self.A.vertices(max_n), self.B.vertices(max_n)
        cand = _unique_rows(((va[:, None, :] - self.phi * vb[None, :, :]) / (1.0 - self.phi)).reshape(-1, self.n))
        return _extreme_points(cand)


# -------------------------------------------------------------------- kernels
def _check_n(n: Any) -> int:
    from fairtheory._validation import check_integer

    return check_integer(n, "n", low=1)


def _threshold(v: Array, caps: Array) -> float:
    """Weighted quickselect: value where the descending cumulative cap first reaches 1."""
    need = 1.0
    vv, cc = v, caps
    first = True
    while vv.size > _SMALL:
        if first:  # guess from the mean cap: exact in one pass when caps are equal (simplex, CVaR)
            k_est = int(np.ceil(need / max(float(cc.mean()), 1e-300) - 1e-9))
            mid = min(max(vv.size - k_est, 0), vv.size - 1)
            first = False
        else:
            mid = vv.size // 2
        piv = np.partition(vv, mid)[mid]
        gt = vv > piv
        m_gt = cc[gt].sum()
        if m_gt >= need:
            vv, cc = vv[gt], cc[gt]
            continue
        eq = vv == piv
        m_eq = cc[eq].sum()
        if m_gt + m_eq >= need:
            return float(piv)
        need -= m_gt + m_eq
        lt = vv < piv
        if not lt.any():  # caps exhausted by rounding: the smallest remaining value takes the rest
            return float(piv)
        vv, cc = vv[lt], cc[lt]
    order = np.argsort(-vv, kind="stable")
    cs = np.cumsum(cc[order])
    k = int(np.searchsorted(cs, need, side="left"))
    return float(vv[order[min(k, vv.size - 1)]])


def _fill_at_threshold(v: Array, caps: Array, t: float) -> Array:
    gt = v > t
    eq = v == t
    lam = np.where(gt, caps, 0.0)
    rest = 1.0 - lam.sum()
    ceq = caps[eq]
    s = ceq.sum()
    if s > 0:
        lam[eq] = ceq * (rest / s)
    else:  # only reachable through rounding of sum(caps) ~ 1
        lam[np.flatnonzero(eq)[0]] = rest
    return lam


def _project(v: Array, caps: Array) -> Array:
    # g(s) = sum_i clip(v_i - s, 0, u_i) = P(s; v) - P(s; v - u), P(s; x) = sum_i max(x_i - s, 0):
    # non-increasing, piecewise linear with breakpoints at v and v - u.
    lo_pts = v - caps
    bps = np.unique(np.concatenate([lo_pts, v]))
    xs_hi, xs_lo = np.sort(v), np.sort(lo_pts)
    g = _sum_pos(xs_hi, bps) - _sum_pos(xs_lo, bps)
    # g is non-increasing in s; want the last breakpoint with g >= 1
    k = int(np.searchsorted(-g, -1.0, side="right")) - 1
    if k < 0:  # only possible if sum(caps) < 1 beyond tolerance; set validation prevents it
        k = 0
    if k >= bps.size - 1:
        m = bps[-1] + 1.0
    else:
        m = 0.5 * (bps[k] + bps[k + 1])
    capped = lo_pts >= m
    linear = (v > m) & ~capped
    n_lin = int(linear.sum())
    if n_lin == 0:
        s = bps[k]
    else:
        s = (v[linear].sum() - (1.0 - caps[capped].sum())) / n_lin
    return np.clip(v - s, 0.0, caps)


def _sum_pos(xs_sorted: Array, s: Array) -> Array:
    """``sum_i max(x_i - s_j, 0)`` for every ``s_j`` (``xs_sorted`` ascending)."""
    suffix = np.concatenate([np.cumsum(xs_sorted[::-1])[::-1], [0.0]])
    idx = np.searchsorted(xs_sorted, s, side="right")
    return suffix[idx] - s * (xs_sorted.size - idx)


def _unique_rows(x: Array, decimals: int = 12) -> Array:
    if x.size == 0:
        return x
    _, idx = np.unique(np.round(x, decimals), axis=0, return_index=True)
    return x[np.sort(idx)]


def _extreme_points(points: Array) -> Array:
    from scipy.optimize import linprog

    keep = []
    m = points.shape[0]
    for i in range(m):
        others = np.delete(points, i, axis=0)
        if others.shape[0] == 0:
            keep.append(i)
            continue
        # feasible mu >= 0, sum mu = 1, others^T mu = points[i]  =>  not extreme
        a_eq = np.vstack([others.T, np.ones(others.shape[0])])
        b_eq = np.concatenate([points[i], [1.0]])
        res = linprog(np.zeros(others.shape[0]), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
        if res.status != 0:
            keep.append(i)
    return points[keep]
