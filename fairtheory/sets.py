r"""Ambiguity sets over client weights: capped simplices and integrated sets.

A *capped simplex* is

.. math:: S(u) = \{\lambda \in \Delta_n : 0 \le \lambda_i \le u_i\},\qquad \textstyle\sum_i u_i \ge 1,

and covers every ambiguity set of the seeds (``docs/exact.md`` Sec. 1):

* the simplex ``u = 1`` (AFL, agnostic FL);
* the CVaR set ``C(a)``, ``u_i = 1/(a n)`` (001 Example 1);
* RC-FL's ``Q_alpha`` in weight coordinates, ``u_i = p_i/alpha_i`` (002 Def. 1);
* the singleton ``{p}``, ``u = p`` (FedAvg).

Its support function ``max_{lam in S(u)} lam . v`` is a fractional knapsack: fill the clients in
order of decreasing ``v`` up to their caps until the mass reaches one.  With the *threshold* ``t``
(the value at which the cumulative cap crosses one, ``sum_{v_i > t} u_i < 1 <= sum_{v_i >= t} u_i``)

.. math:: \sigma_{S(u)}(v) = \sum_{v_i > t} u_i v_i + \Big(1 - \sum_{v_i > t} u_i\Big)\, t
          = t + \sum_i u_i (v_i - t)_+ = \min_\eta \Big[\eta + \sum_i u_i (v_i - \eta)_+\Big],

which is exact and independent of how ties at ``t`` are broken (the last form is LP duality,
002 Lemma 1).  ``t`` is found without a full sort by a weighted Floyd-Rivest selection: a
deterministic random sample of the values estimates the cumulative-cap curve, two sample values
bracket the crossing, and exact cap masses above the bracket decide which part to keep (expected
``O(n)``, a small constant; a median-pivot quickselect step guarantees progress on adversarial
inputs).  Euclidean projection sweeps the ``2n`` sorted breakpoints of the piecewise-linear map
``s -> sum_i clip(v_i - s, 0, u_i)`` accumulating its value from non-negative increments (no
cancellation), ``O(n log n)``.

The *integrated set* of relative fairness (001 eqs. 6-8, reconstructed) is
``Lambda_phi(A, B) = {(a - phi b)/(1 - phi) : a in A, b in B}``; its members sum to one but may be
negative, and ``max_{lam in Lambda_phi} lam . v = (sigma_A(v) - phi min_B v)/(1 - phi)``.

Inputs ``v``, ``caps``, ``lam`` may be lists, tuples, numpy arrays of any real dtype or torch tensors
(converted to float64 numpy; tensors are detached on purpose - these are exact combinatorial routines,
not differentiable); booleans, nan and infinities are rejected naming the argument.  Values anywhere in
the float64 range are handled without intermediate overflow; only an integrated-set value beyond the
range (possible since ``|support| <= (1 + phi)/(1 - phi) max |v|``) raises.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_probability_vector,
)
from fairtheory.backend import as_alpha, as_array

if TYPE_CHECKING:  # pragma: no cover
    import cvxpy as cp

__all__ = ["CappedSimplex", "IntegratedSet"]

Array = NDArray[np.float64]

#: relative slack on ``sum(caps) >= 1`` (caps that sum to one up to rounding are accepted)
FEASIBILITY_TOL = 1e-12
_SMALL = 2048  # below this many candidates the selection finishes with a sort
FLOAT_MIN = float(np.finfo(np.float64).tiny)
_SEED = 0x5E75  # fixed seed of the selection's sample: results never depend on it, speed barely


class CappedSimplex:
    r"""``S(u) = {lam in Delta_n : 0 <= lam_i <= u_i}`` (exact routes: ``docs/exact.md`` Sec. 1).

    Parameters
    ----------
    caps : array_like, shape (n,)
        Finite caps ``u_i >= 0`` with ``sum(u) >= 1`` (else the set is empty).  Caps above one are
        clipped to one (they are not binding on the simplex).  Caps summing to one (up to a relative
        ``1e-12 n`` rounding slack) give the single point ``u``.

    Raises
    ------
    FairtheoryValueError
        On an empty, non-finite or negative ``caps`` or when ``sum(caps) < 1`` (infeasible set).
    FairtheoryTypeError
        When ``caps`` is not an array of real numbers.

    Examples
    --------
    >>> S = CappedSimplex.cvar(4, 0.5)          # caps 1/2: mean of the two largest
    >>> S.support([1.0, 4.0, 2.0, 3.0])
    3.5
    """

    __slots__ = ("caps", "n", "_total", "_equal", "_cmax")

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
        self._total = float(self.caps.sum())
        self._equal = bool(np.all(self.caps == self.caps[0]))
        self._cmax = float(self.caps.max())

    # ---------------------------------------------------------------- constructors
    @classmethod
    def simplex(cls, n: int) -> CappedSimplex:
        """The probability simplex ``Delta_n`` (caps one); its support is ``max v`` (AFL)."""
        n = _check_n(n)
        return cls(np.ones(n))

    @classmethod
    def cvar(cls, n: int, a: float) -> CappedSimplex:
        """CVaR set ``C(a)``: caps ``1/(a n)``, ``a in (0, 1]`` (001 Example 1).

        Its support is the mean of the largest ``a n`` entries (fractional last term); ``a <= 1/n``
        gives the simplex, ``a = 1`` the uniform singleton."""
        n = _check_n(n)
        a = check_in_range(a, "a", low=0.0, high=1.0, low_inclusive=False)
        return cls(np.full(n, 1.0 / (a * n)))

    @classmethod
    def qalpha(cls, p: Any, alpha: Any) -> CappedSimplex:
        """RC-FL's ``Q_alpha`` in weight coordinates: caps ``p_i/alpha_i`` (002 Def. 1).

        ``alpha`` is a scalar or a vector with ``alpha_i in [p_i, 1]``, ``alpha_i > 0``."""
        p = check_probability_vector(p, "p")
        a = as_alpha(alpha, p, "alpha")
        return cls(p / a)

    @classmethod
    def singleton(cls, p: Any) -> CappedSimplex:
        """The singleton ``{p}`` (caps ``p``): the FedAvg weighting."""
        return cls(check_probability_vector(p, "p"))

    def __repr__(self) -> str:
        return f"CappedSimplex(n={self.n}, caps={np.array2string(self.caps, threshold=6)})"

    # ---------------------------------------------------------------- validation
    def _vec(self, v: Any, name: str = "v") -> Array:
        return self._vec_range(v, name)[0]

    def _vec_range(self, v: Any, name: str = "v") -> tuple[Array, float, float]:
        """``v`` as a finite float64 vector of shape ``(n,)`` with its minimum and maximum.

        Finiteness is read off the extremes (a NaN or infinity shows in ``min``/``max``), which
        saves a pass over large vectors."""
        if isinstance(v, np.ndarray) and v.dtype == np.float64 and v.ndim == 1 and v.size > 0:
            arr = v
        else:
            arr = as_vector(v, name)
        if arr.shape != (self.n,):
            raise FairtheoryValueError(f"{name} must have shape ({self.n},) to match caps, got {arr.shape}")
        lo, hi = float(arr.min()), float(arr.max())
        if not (math.isfinite(lo) and math.isfinite(hi)):
            as_vector(arr, name)  # raises naming the first non-finite entry
        return arr, lo, hi

    # ---------------------------------------------------------------- core closed forms
    def threshold(self, v: Any) -> float:
        r"""The value ``t`` of the entry where the cumulative cap (by decreasing ``v``) reaches one.

        ``sum_{v_i > t} u_i < 1 <= sum_{v_i >= t} u_i``; found by weighted selection in expected
        ``O(n)`` time, exact (``t`` is an entry of ``v``).  When the caps sum to one up to rounding
        the greedy may exhaust them first; then ``t = min v``."""
        x, lo, hi = self._vec_range(v)
        return _threshold(x, self.caps, lo, hi, self._total, self._equal, self._cmax)

    def support(self, v: Any) -> float:
        r"""``sigma(v) = max_{lam in S(u)} lam . v = t + sum_i u_i (v_i - t)_+`` (exact; ties irrelevant)."""
        x, lo, hi = self._vec_range(v)
        if lo == hi:  # constant vector: every member gives the same value
            return hi
        t = _threshold(x, self.caps, lo, hi, self._total, self._equal, self._cmax)
        if t == hi:  # the maximum alone carries all the mass (e.g. the simplex)
            return hi
        return _value_at(x, self.caps, t)

    def support_many(self, V: Any) -> Array:
        r"""``support`` of every vector along the last axis of ``V`` (shape ``(..., n)``), batched.

        Sort each row in decreasing order and give each entry its cap until the mass reaches one,
        ``sum_(k) min(u_(k), (1 - sum_{l<k} u_(l))_+) v_(k)`` (exact, independent of tie order; any
        mass left by caps that sum to one only up to rounding goes to the smallest entry, as in
        :meth:`support`).  ``O(n log n)`` per row, for many small vectors at once."""
        arr = as_array(V, "V")
        if arr.ndim < 1 or arr.shape[-1] != self.n:
            raise FairtheoryValueError(f"V must have last axis of length n = {self.n}, got shape {arr.shape}")
        order = np.argsort(-arr, axis=-1, kind="stable")
        v = np.take_along_axis(arr, order, axis=-1)
        u = self.caps[order]
        before = np.cumsum(u, axis=-1) - u
        mass = np.minimum(u, np.clip(1.0 - before, 0.0, None))
        left = np.clip(1.0 - mass.sum(axis=-1), 0.0, None)
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.sum(mass * v, axis=-1) + left * v[..., -1]
        if np.all(np.isfinite(out)):
            return out
        # a sum of terms near the float range overflowed: scale each row by a power of two (exact)
        top = np.max(np.abs(arr), axis=-1)
        e = np.where(top > 0, np.frexp(top)[1], 0)[..., None]
        vs = np.ldexp(v, -e)
        return np.ldexp(np.sum(mass * vs, axis=-1) + left * vs[..., -1], e[..., 0])

    def lower(self, v: Any) -> float:
        """``min_{lam in S(u)} lam . v = -support(-v)``."""
        x = self._vec(v)
        return -self.support(-x)

    def argmax(self, v: Any) -> Array:
        r"""A maximiser of ``lam . v`` over the set.

        Clients with ``v_i > t`` get their cap, clients with ``v_i < t`` get zero, and the remaining
        mass is split among the clients tied at the threshold ``t`` in proportion to their caps
        (a symmetric, order-independent tie rule; any split among ties is optimal)."""
        x, lo, hi = self._vec_range(v)
        return _fill_at_threshold(x, self.caps, _threshold(x, self.caps, lo, hi, self._total,
                                                           self._equal, self._cmax))

    def argmin(self, v: Any) -> Array:
        """A minimiser of ``lam . v`` (``argmax(-v)``)."""
        return self.argmax(-self._vec(v))

    def project(self, v: Any) -> Array:
        r"""Euclidean projection ``argmin_{lam in S(u)} ||lam - v||^2``.

        ``lam_i = clip(v_i - s, 0, u_i)`` with the scalar ``s`` solving
        ``sum_i clip(v_i - s, 0, u_i) = 1`` (KKT conditions of the QP); ``s`` is found exactly by a
        sweep over the ``2n`` sorted breakpoints ``v_i`` and ``v_i - u_i`` (``O(n log n)``)."""
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

        A point of ``S(u)`` is a vertex iff at most one coordinate lies strictly between its
        bounds ``0`` and ``u_i``.  Enumerates ``2^n`` subsets; refuses ``n > max_n``."""
        max_n = check_integer(max_n, "max_n", low=1, high=20)
        if self.n > max_n:
            raise FairtheoryValueError(f"vertices() enumerates 2^n subsets: n must be <= max_n = {max_n}, "
                                       f"got n = {self.n}")
        out: list[Array] = []
        for mask in itertools.product((False, True), repeat=self.n):
            full = np.array(mask)
            rest = 1.0 - self.caps[full].sum()
            if rest < -1e-12:
                continue
            free = np.flatnonzero(~full)
            if abs(rest) <= 1e-12:
                lam = np.where(full, self.caps, 0.0)
                if rest > 0 and free.size:  # a rounding-size remainder on the largest free cap: the point sums to 1
                    j = free[np.argmax(self.caps[free])]
                    lam[j] = min(rest, self.caps[j])
                out.append(lam)
                continue
            for j in free:
                if rest < self.caps[j] - 1e-12:  # strictly fractional, else counted as full
                    lam = np.where(full, self.caps, 0.0)
                    lam[j] = rest
                    out.append(lam)
        if not out:  # sum(caps) = 1 - rounding: the set is the single point u
            out.append(self.caps.copy())
        return _unique_rows(np.array(out))

    # ---------------------------------------------------------------- cvxpy twin
    def cvxpy_constraints(self, lam: cp.Variable) -> list[Any]:
        """The set as cvxpy constraints on a variable of shape ``(n,)`` (LP/QP twin)."""
        import cvxpy as cp

        return [lam >= 0, lam <= self.caps, cp.sum(lam) == 1]


@dataclass(frozen=True)
class IntegratedSet:
    r"""``Lambda_phi(A, B) = {(a - phi b)/(1 - phi) : a in A, b in B}``, ``phi in [0, 1)``.

    001 eqs. 6-8 (reconstructed).  Members sum to one and may be negative.
    ``support(v) = (sigma_A(v) - phi min_B v)/(1 - phi) = D_phi/(1 - phi)``.
    """

    A: CappedSimplex
    B: CappedSimplex
    phi: float

    def __post_init__(self) -> None:
        for name in ("A", "B"):
            val = getattr(self, name)
            if not isinstance(val, CappedSimplex):
                raise FairtheoryTypeError(
                    f"{name} must be a CappedSimplex instance, got {type(val).__name__}")
        if self.A.n != self.B.n:
            raise FairtheoryValueError(f"A and B must have the same n, got {self.A.n} and {self.B.n}")
        phi = check_in_range(self.phi, "phi", low=0.0, high=1.0, high_inclusive=False)
        object.__setattr__(self, "phi", phi)

    @property
    def n(self) -> int:
        return self.A.n

    def support(self, v: Any) -> float:
        """``max_{lam in Lambda_phi} lam . v = (sigma_A(v) - phi min_B v)/(1 - phi)``.

        Raises :class:`FairtheoryValueError` when the value exceeds the float64 range (only possible for
        entries near it: ``|value| <= (1 + phi)/(1 - phi) max |v|``)."""
        x = self.A._vec(v)
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite((self.A.support(x) - self.phi * self.B.lower(x)) / (1.0 - self.phi), "support")

    def lower(self, v: Any) -> float:
        """``min_{lam in Lambda_phi} lam . v = (min_A v - phi sigma_B(v))/(1 - phi)`` (raises like
        :meth:`support` when it exceeds the float64 range)."""
        x = self.A._vec(v)
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite((self.A.lower(x) - self.phi * self.B.support(x)) / (1.0 - self.phi), "lower")

    def argmax(self, v: Any) -> Array:
        """``(argmax_A v - phi argmin_B v)/(1 - phi)``."""
        x = self.A._vec(v)
        return (self.A.argmax(x) - self.phi * self.B.argmin(x)) / (1.0 - self.phi)

    def contains(self, lam: Any, tol: float = 1e-9) -> bool:
        """Whether ``(1 - phi) lam = a - phi b`` for some ``a in A``, ``b in B`` (HiGHS LP feasibility).

        ``tol`` is the absolute slack allowed on each coordinate of the identity."""
        from scipy.optimize import linprog

        x = self.A._vec(lam, "lam")
        tol = check_in_range(tol, "tol", low=0.0)
        n, phi = self.n, self.phi
        eye = np.eye(n)
        # variables (a, b); |a - phi b - (1 - phi) lam| <= tol, sum a = sum b = 1, bounds from caps
        a_ub = np.vstack([np.hstack([eye, -phi * eye]), np.hstack([-eye, phi * eye])])
        rhs = (1.0 - phi) * x
        b_ub = np.concatenate([rhs + tol, -rhs + tol])
        a_eq = np.vstack([np.concatenate([np.ones(n), np.zeros(n)]),
                          np.concatenate([np.zeros(n), np.ones(n)])])
        bounds = [(0.0, c) for c in self.A.caps] + [(0.0, c) for c in self.B.caps]
        res = linprog(np.zeros(2 * n), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0, 1.0], bounds=bounds,
                      method="highs")
        return bool(res.status == 0)

    def vertices(self, max_n: int = 10) -> Array:
        """Extreme points of the set (small ``n``).

        Candidates ``(a - phi b)/(1 - phi)`` over vertex pairs contain every vertex of the Minkowski
        sum; a candidate is kept only if it is not a convex combination of the others
        (LP feasibility via HiGHS)."""
        va, vb = self.A.vertices(max_n), self.B.vertices(max_n)
        pairs = (va[:, None, :] - self.phi * vb[None, :, :]) / (1.0 - self.phi)
        cand = _unique_rows(pairs.reshape(-1, self.n))
        return _extreme_points(cand)


# -------------------------------------------------------------------- kernels
def _finite(value: float, what: str) -> float:
    if not math.isfinite(value):
        raise FairtheoryValueError(f"the {what} of this integrated set at v exceeds the float64 range (about "
                                   "1.8e308): the true value does not fit a float64; rescale v")
    return float(value)


def _check_n(n: Any) -> int:
    return check_integer(n, "n", low=1)


def _mass(cc: Array, mask: NDArray[np.bool_], equal: bool) -> float:
    """``sum_i cc_i [mask_i]`` (a count times the cap when the caps are equal)."""
    if equal:
        return float(cc[0]) * int(np.count_nonzero(mask)) if cc.size else 0.0
    return float(np.dot(cc, mask))


def _value_at(v: Array, caps: Array, t: float) -> float:
    """``t + sum_i u_i (v_i - t)_+`` (the support once the threshold is known; no cancellation)."""
    with np.errstate(over="ignore", invalid="ignore"):
        w = v - t
        np.maximum(w, 0.0, out=w)
        val = t + float(np.einsum("i,i->", caps, w))
    if math.isfinite(val):
        return val
    gt = v > t  # |v - t| overflowed (values near the float range): the masked form stays finite
    ug = caps[gt]
    with np.errstate(over="ignore", invalid="ignore"):
        return float(ug @ v[gt] + (1.0 - ug.sum()) * t)


def _threshold(v: Array, caps: Array, vmin: float, vmax: float, total: float, equal: bool,
               cmax: float) -> float:
    """Greedy crossing ``t``: ``mass(v > t) < 1 <= mass(v >= t)``; weighted Floyd-Rivest selection."""
    need = 1.0
    if total < 1.0 or vmin == vmax:  # the caps are used up entirely / every value is the same
        return vmin
    if cmax >= 1.0 and _mass(caps, v == vmax, equal) >= need:
        return vmax
    vv, cc = v, caps
    rng: np.random.Generator | None = None
    median_next = False
    while vv.size > _SMALL:
        m = vv.size
        if median_next:  # the sample's bracket was poor: a plain quickselect step halves the set
            mid = m // 2
            hi = lo = float(np.partition(vv, mid)[mid])
        else:
            if rng is None:
                rng = np.random.default_rng(_SEED)
            s = int(min(m, max(512, m ** (2.0 / 3.0))))
            idx = rng.integers(0, m, s)
            sv = vv[idx]
            order = np.argsort(-sv, kind="stable")
            sv = sv[order]
            est = np.cumsum(cc[idx][order]) * (m / s)  # estimated mass at or above each sample value
            j = int(np.searchsorted(est, need, side="left"))
            delta = int(3.0 * math.sqrt(j + 1.0)) + 2
            # bracket [lo, hi] around the estimated crossing, clamped to the sample's extremes (a
            # bracket value may repeat, e.g. with ties; the exact masses below decide either way)
            hi = float(sv[max(j - delta, 0)])
            lo = float(sv[min(j + delta, s - 1)])
        # exact cap masses strictly above hi and at or above lo decide where the crossing is
        gt = vv > hi
        m_gt = _mass(cc, gt, equal)
        if m_gt >= need:  # above the bracket
            vv, cc = vv[gt], cc[gt]
            median_next = vv.size > 0.75 * m
            continue
        ge = vv >= lo
        m_ge = _mass(cc, ge, equal)
        if m_ge < need:  # below the bracket
            lt = ~ge
            if not lt.any():  # caps exhausted by rounding: the smallest value (lo, a sampled entry)
                return lo
            need -= m_ge
            vv, cc = vv[lt], cc[lt]
            median_next = vv.size > 0.75 * m
            continue
        if lo == hi:  # the bracket is a single value, and the crossing is in it
            return lo
        need -= m_gt
        keep = np.flatnonzero(ge & ~gt)
        vv, cc = vv[keep], cc[keep]
        median_next = vv.size > 0.75 * m
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
    with np.errstate(over="ignore", invalid="ignore"):
        lam = _project_sweep(v, caps, 1.0)
    if lam is None or (abs(float(lam.sum()) - 1.0) > 1e-9 and caps.sum() >= 1.0 - 1e-9):
        # breakpoints v_i and v_i - u_i that coincide in float64 (caps below the spacing of huge |v_i|)
        # lose the capped entries' mass, and gaps between values of opposite sign near the float range
        # overflow: project cluster by cluster instead
        lam = _project_clusters(v, caps)
    return lam


def _project_sweep(v: Array, caps: Array, mass: float) -> Array | None:
    """``lam_i = clip(v_i - s, 0, u_i)`` with ``sum lam = mass`` by the breakpoint sweep; ``None`` when an
    intermediate left the float range (values near it, of both signs)."""
    # g(s) = sum_i clip(v_i - s, 0, u_i) is non-increasing and piecewise linear in s, with
    # breakpoints v_i - u_i (entry i stops being capped as s increases past it) and v_i (entry i
    # becomes zero).  Sweep the 2n sorted breakpoints; g at each one is a sum of non-negative
    # increments slope * gap, so it carries no cancellation even for large |v|.
    n = v.size
    start = v - caps
    if float(np.sum(np.abs((v - start) - caps))) > 1e-9 * mass:
        return None  # v_i - u_i rounds away (part of) u_i: the sweep would lose that mass
    keys = np.concatenate([np.sort(start), np.sort(v)])
    order = np.argsort(keys, kind="stable")  # two sorted runs: a linear-time merge
    b = keys[order]
    nlin = np.cumsum(np.where(order < n, 1, -1))[:-1]  # number of linear entries on (b_k, b_k+1)
    inc = nlin * np.diff(b)  # g(b_k) - g(b_k+1) >= 0
    if not np.all(np.isfinite(inc)):
        return None
    g = np.concatenate([np.cumsum(inc[::-1])[::-1], [0.0]])
    k = int(np.searchsorted(-g, -mass, side="right")) - 1  # last breakpoint with g >= mass
    if k < 0:  # sum(caps) = mass up to rounding (g(b_0) = sum(caps) came out below it): lam = u
        lam = caps.copy()
    elif k >= b.size - 1 or nlin[k] <= 0:  # no linear entry: every entry at a bound
        lam = np.where((v - caps) >= float(b[k]), caps, np.clip(v - float(b[k]), 0.0, caps))
    else:
        # lam_i = v_i - s with s = b_k+1 - delta, written so that v_i - b_k+1 is formed first (exact
        # for the linear entries, which lie within one cap of s)
        delta = (mass - float(g[k + 1])) / float(nlin[k])
        hi_b = float(b[k + 1])
        capped = (v - caps) >= hi_b  # at the cap on the whole segment: exactly u_i
        linear = ~capped & (v > float(b[k]))  # entries <= b_k are exactly zero
        lam = np.where(capped, caps, 0.0)
        lin = np.clip((v[linear] - hi_b) + delta, 0.0, caps[linear])
        if lin.size:  # one Newton step on sum(lam) = mass over the active set removes the rounding
            lin = np.clip(lin + (mass - float(lam.sum()) - float(lin.sum())) / lin.size, 0.0, caps[linear])
        lam[linear] = lin
    return lam


def _project_clusters(v: Array, caps: Array) -> Array:
    """Projection through clusters of values: sorted decreasingly, the values split where consecutive
    ones differ by at least ``max u`` (always the case near the float range, where the spacing exceeds
    one).  With ``s`` the projection's shift, a cluster with a positive entry has every cluster above
    it at its caps and every cluster below it at zero (KKT: ``v_i - s >= u_i`` resp. ``<= 0`` across
    such a gap), so the clusters are filled from the top and the one where the mass runs out is
    projected on its own, shifted by its top value (a moderate range: no overflow)."""
    n = v.size
    order = np.argsort(-v, kind="stable")
    vs, us = v[order], caps[order]
    with np.errstate(over="ignore", invalid="ignore"):
        gaps = vs[:-1] - vs[1:]  # >= 0; inf where the difference overflows
    cuts = np.flatnonzero(gaps >= max(float(caps.max()), FLOAT_MIN))
    starts = np.concatenate([[0], cuts + 1])
    ends = np.concatenate([cuts + 1, [n]])
    lam_s = np.zeros(n)
    rem = 1.0
    for a, e in zip(starts, ends, strict=True):
        cap_c = float(us[a:e].sum())
        if cap_c <= rem * (1.0 + 1e-15):
            lam_s[a:e] = us[a:e]
            rem -= cap_c
            if rem <= 0.0:
                break
            continue
        x = vs[a:e] - vs[a]  # the cluster spans at most (e - a) max u: exact enough, finite
        part = _project_sweep(x, us[a:e], rem)
        lam_s[a:e] = part if part is not None else us[a:e] * (rem / cap_c)
        break
    lam = np.empty(n)
    lam[order] = lam_s
    return lam


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
