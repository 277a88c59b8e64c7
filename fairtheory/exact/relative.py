r"""Exact solutions of the integrated-set minimax problem (8) of relative fairness.

Problem (8) (001 eqs. 7-8, reconstructed):

.. math:: \min_w \max_{\lambda\in\Lambda_\phi(A,B)} \lambda\cdot f(w),\qquad
          \Lambda_\phi(A,B) = \{(a - \phi b)/(1-\phi) : a\in A,\ b\in B\}.

For quadratic clients ``f_i(w) = 0.5 w^T H_i w - r_i^T w + k_i`` the dual function is
``g(lam) = k(lam) - 0.5 r(lam)^T H(lam)^{-1} r(lam)`` (``H(lam) = sum lam_i H_i`` etc.), concave,
and the dual ``max_{a in A, b in B} g((a - phi b)/(1 - phi))`` is written as
the explicit SDP

.. math:: \max_{a\in A,\ b\in B,\ s}\ k(\lambda) - s/2 \quad\text{s.t.}\quad
          \begin{pmatrix} H(\lambda) & r(\lambda)\\ r(\lambda)^T & s\end{pmatrix}\succeq 0,
          \qquad \lambda = (a - \phi b)/(1-\phi)

(Schur complement: the epigraph of ``matrix_frac``), solved by Clarabel at tolerance ``1e-10``.
The model comes from the PSD constraint's multiplier ``Z``: the Lagrangian is
``sum_i lam_i f_i(w)`` exactly when ``Z = (1/2) [w; -1][w; -1]^T``, so ``w = -Z[:d, d]/Z[d, d]``.
The certificate is ``gap = max_{lam in Lambda_phi} lam . f(w) - (dual value)`` (closed-form primal
value via :meth:`IntegratedSet.support` minus the SDP value).  By weak duality the SDP value is a
lower bound of (8) in every regime, so a small gap certifies global optimality of ``w``.

A second, uncertified route for ``d <= 3`` (:func:`global_search_minimax`) minimises the closed-form
``w -> IntegratedSet.support(f(w))`` by a dense grid plus multistart local refinement; it works in
any regime (also the non-convex one) and is reported as "global search".
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_rng,
)
from fairtheory.exact.rcfl import _cert_scale, _unit
from fairtheory.exact.result import ExactResult, SolverError, solve_checked
from fairtheory.objectives.relative import convex_regime, unfairness_parts
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = [
    "NotConvexRegimeError",
    "CLARABEL_TOL",
    "solve_integrated_minimax",
    "global_search_minimax",
    "PhiSelection",
    "select_phi",
    "index_curve",
]

Array = NDArray[np.float64]

#: Clarabel tolerances used for the SDP
CLARABEL_TOL = 1e-10


class NotConvexRegimeError(FairtheoryValueError):
    """Problem (8) is outside the convex regime (some ``lam in Lambda_phi`` has ``H(lam)`` not PD)."""


def _check_problem(problem: Any) -> None:
    for attr in ("H", "r", "k", "losses"):
        if not hasattr(problem, attr):
            raise FairtheoryTypeError(
                f"problem must be a QuadraticProblem (needs H, r, k, losses), got {type(problem).__name__}")


def _check_iset(problem: Any, iset: Any) -> IntegratedSet:
    if not isinstance(iset, IntegratedSet):
        raise FairtheoryTypeError(f"iset must be an IntegratedSet, got {type(iset).__name__}")
    if iset.n != problem.n:
        raise FairtheoryValueError(f"iset has n={iset.n} but the problem has n={problem.n} clients")
    return iset


def solve_integrated_minimax(
    problem: Any,
    iset: IntegratedSet,
    *,
    require_convex: bool = True,
    gap_tol: float = 1e-6,
    tol: float = CLARABEL_TOL,
    precondition: bool = True,
) -> ExactResult:
    r"""Certified solution of problem (8) for quadratic clients (SDP dual route, module docstring).

    Parameters
    ----------
    problem : QuadraticProblem
    iset : IntegratedSet
        ``Lambda_phi(A, B)``; ``phi = 0`` gives the plain DRO problem over ``A`` (001 eq. 1).
    require_convex : bool
        If true (default) run :func:`fairtheory.objectives.relative.convex_regime` first and raise
        :class:`NotConvexRegimeError` when it finds a member with ``lambda_min(H(lam)) <= 0``.  An
        undecided sufficient test (large ``n``) does not raise: the duality gap then decides.
    gap_tol : float
        Raise :class:`SolverError` when the certified gap exceeds ``gap_tol * max(|value|, min(1, unit))``
        (``unit`` = the loss scale, 1 for ordinary losses; the SDP is then written for ``f/unit``).
    tol : float
        Clarabel's ``tol_gap_abs``, ``tol_gap_rel``, ``tol_feas``.  If Clarabel does not report
        ``optimal`` the solve is retried at ``10 tol`` and ``100 tol`` (recorded in ``extra``);
        whatever tolerance was used, the result is returned only with a certified gap.
    precondition : bool
        Solve in coordinates ``z = T^{-1} w`` with ``T = Hbar^{-1/2}``, ``Hbar = mean_i H_i`` (the
        value is invariant; this keeps ill-conditioned data such as raw regression features
        solvable).  ``w`` and the certificate are always in the original coordinates.

    Returns
    -------
    ExactResult
        ``value``: closed-form primal value ``max_{lam in Lambda_phi} lam . f(w*)``; ``argmin``: ``w*``;
        ``weights``: ``lam* = (a* - phi b*)/(1 - phi)``; ``extra``: ``a``, ``b``, ``dual_value``,
        ``regime`` (the :class:`ConvexRegime` found); ``certificate``: ``gap`` (primal - SDP value),
        ``primal``, ``dual`` and ``gap_closed_form`` = primal - ``g(lam*)`` with ``g`` evaluated in
        closed form at the solver's ``(a*, b*)`` projected onto ``A``, ``B`` (a solver-independent
        upper bound on the suboptimality of ``w*``, ``inf`` if ``H(lam*)`` is not PD).

    Raises
    ------
    NotConvexRegimeError
        Outside the convex regime (test ``convex_regime``, method named in the message).
    SolverError
        Solver status other than optimal (after the retries), or certified gap above ``gap_tol``.
    """
    import cvxpy as cp

    _check_problem(problem)
    iset = _check_iset(problem, iset)
    gap_tol = check_in_range(gap_tol, "gap_tol", low=0.0)
    tol = check_in_range(tol, "tol", low=0.0, low_inclusive=False)
    regime = None
    if require_convex:
        regime = convex_regime(problem, iset)
        if regime.convex is False:
            raise NotConvexRegimeError(
                f"problem (8) is not in the convex regime: convex_regime (method {regime.method!r}) found "
                f"min lambda_min(H(lam)) = {regime.min_eig:.6g} <= 0 over Lambda_phi (phi={iset.phi}); "
                "use global_search_minimax (d <= 3) or require_convex=False")
    n, d = problem.n, problem.d
    # precondition: w = w0 + T z (centre and whiten); the minimax value is invariant
    H, r, k, w0, T = _reparametrise(problem, precondition)
    # losses of order 1e-12 or 1e12: write the SDP for f/unit (in coordinates y = z/sqrt(unit) when
    # preconditioned, so that H stays whitened); values are converted back, the certificate is relative
    unit = _unit(problem)
    if unit != 1.0:
        if precondition:
            r, k, T = r / np.sqrt(unit), k / unit, T * np.sqrt(unit)
        else:
            H, r, k = H / unit, r / unit, k / unit
    phi = iset.phi

    a = cp.Variable(n)
    cons = list(iset.A.cvxpy_constraints(a))
    if phi > 0:
        b = cp.Variable(n)
        cons += iset.B.cvxpy_constraints(b)
        lam = (a - phi * b) / (1.0 - phi)
    else:
        b = None
        lam = a
    s = cp.Variable()
    Hl = cp.reshape(H.reshape(n, d * d).T @ lam, (d, d), order="C")
    rl = cp.reshape(r.T @ lam, (d, 1), order="C")
    M = cp.bmat([[Hl, rl], [rl.T, cp.reshape(s, (1, 1), order="C")]])
    Msym = 0.5 * (M + M.T)  # M is symmetric by construction; this makes it explicit for cvxpy
    psd = Msym >> 0
    cons.append(psd)
    prob = cp.Problem(cp.Maximize(k @ lam - 0.5 * s), cons)
    what = "integrated-set minimax SDP (001 problem (8))"
    statuses: list[str] = []
    solved = False
    for used_tol in (tol, 10 * tol, 100 * tol):  # retry ladder; the certified gap below is the guard
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                solve_checked(prob, what, "CLARABEL", tol_gap_abs=used_tol, tol_gap_rel=used_tol,
                              tol_feas=used_tol, max_iter=500)
        except SolverError as exc:
            statuses.append(exc.status)
            continue
        statuses.append(str(prob.status))
        solved = True
        break
    if not solved:
        raise SolverError(what, "CLARABEL", " / ".join(statuses))
    Z = np.asarray(psd.dual_value, dtype=np.float64)
    if Z.shape != (d + 1, d + 1) or not abs(Z[d, d]) > 0:
        raise SolverError(what, "CLARABEL", f"unusable PSD multiplier {Z!r}")
    w = w0 + T @ (-Z[:d, d] / Z[d, d])
    dual = unit * float(prob.value)
    primal = float(iset.support(np.asarray(problem.losses(w))))
    gap = primal - dual
    if gap > gap_tol * _cert_scale(primal, unit) or not np.isfinite(gap):
        raise SolverError(what, "CLARABEL", f"optimal but certified gap {gap:.3g} > {gap_tol:.1g} (relative)")
    a_v = iset.A.project(np.asarray(a.value, dtype=np.float64))
    b_v = iset.B.project(np.asarray(b.value, dtype=np.float64)) if b is not None else a_v.copy()
    lam_v = (a_v - phi * b_v) / (1.0 - phi)
    g_cf = unit * _dual_function(H, r, k, lam_v)
    return ExactResult(
        value=primal,
        argmin=w,
        weights=lam_v,
        solver="CLARABEL (SDP dual, w from PSD multiplier)",
        status="optimal",
        certificate={"gap": gap, "primal": primal, "dual": dual, "gap_closed_form": primal - g_cf,
                     "dual_closed_form": g_cf},
        extra={"a": a_v, "b": b_v, "dual_value": dual, "regime": regime, "route": "sdp", "tol": used_tol,
               "statuses": statuses},
    )


def _dual_function(H: Array, r: Array, k: Array, lam: Array) -> float:
    """``g(lam) = min_w lam . f(w) = k(lam) - 0.5 r(lam)^T H(lam)^{-1} r(lam)`` in closed form
    (``-inf`` unless ``H(lam)`` is positive definite).  A rigorous lower bound of problem (8) for
    every ``lam`` in the set (weak duality), independent of the solver's reported value."""
    Hl = np.einsum("i,ijk->jk", lam, H)
    ev, Q = np.linalg.eigh(0.5 * (Hl + Hl.T))
    if not ev[0] > 0:
        return float("-inf")
    rl = lam @ r
    y = Q.T @ rl
    return float(lam @ k - 0.5 * np.sum(y * y / ev))


def _reparametrise(problem: Any, precondition: bool) -> tuple[Array, Array, Array, Array, Array]:
    r"""Expanded form ``f_i(w0 + T z) = 0.5 z^T H_i' z - r_i'^T z + k_i'`` of the quadratic clients.

    With ``precondition``: ``w0 = Hbar^{-1} rbar`` (the minimiser of the mean loss) and
    ``T = Hbar^{-1/2}`` (eigenvalues floored at ``1e-12`` of the largest), so that the constants are
    loss values at ``w0`` (no cancellation of large terms) and the mean Hessian is the identity.
    Then ``H_i' = T H_i T``, ``r_i' = -T grad f_i(w0)``, ``k_i' = f_i(w0)``.  Without it,
    ``w0 = 0``, ``T = I`` and the coefficients are ``problem.H``, ``problem.r``, ``problem.k``.
    """
    H = np.asarray(problem.H, dtype=np.float64)
    d = H.shape[1]
    if not precondition:
        return H, np.asarray(problem.r, dtype=np.float64), np.asarray(problem.k, dtype=np.float64), \
            np.zeros(d), np.eye(d)
    Hbar = H.mean(axis=0)
    ev, Q = np.linalg.eigh(0.5 * (Hbar + Hbar.T))
    ev = np.maximum(ev, 1e-12 * max(float(ev.max()), 1e-300))
    T = (Q / np.sqrt(ev)) @ Q.T
    rbar = np.asarray(problem.r, dtype=np.float64).mean(axis=0)
    w0 = (Q / ev) @ (Q.T @ rbar)
    g = np.asarray(problem.grads(w0), dtype=np.float64)
    Hz = np.einsum("ij,njk,kl->nil", T, H, T)
    return 0.5 * (Hz + np.swapaxes(Hz, 1, 2)), -g @ T, np.asarray(problem.losses(w0), dtype=np.float64), w0, T


# ------------------------------------------------------------------------------------ global search
def _losses_rows(problem: Any, W: Array) -> Array:
    """Loss vectors ``f(w)`` for many models ``W`` (m, d) -> (m, n); vectorised for quadratics."""
    if hasattr(problem, "H") and hasattr(problem, "c"):
        D = W[:, None, :] - problem.c[None, :, :]
        return 0.5 * np.einsum("mni,nij,mnj->mn", D, problem.H, D) + problem.e[None, :]
    return np.stack([np.asarray(problem.losses(w)) for w in W])


def _support_rows(iset: IntegratedSet, F: Array) -> Array:
    """Row-wise ``IntegratedSet.support`` via sorting (vectorised twin, checked against the set)."""
    top = _capped_support_rows(iset.A.caps, F)
    return (top + iset.phi * _capped_support_rows(iset.B.caps, -F)) / (1.0 - iset.phi)


def _capped_support_rows(caps: Array, F: Array) -> Array:
    order = np.argsort(-F, axis=1)
    Fs = np.take_along_axis(F, order, axis=1)
    Cs = caps[order]
    cum = np.cumsum(Cs, axis=1)
    prev = cum - Cs
    take = np.clip(np.minimum(Cs, 1.0 - prev), 0.0, None)
    return np.einsum("mn,mn->m", take, Fs)


def _pieces(iset: IntegratedSet) -> Array | None:
    """Candidate weights ``(a - phi b)/(1 - phi)`` over vertex pairs (contain the set's vertices), or
    ``None`` when there are too many; then ``max_{Lambda_phi} lam . f = max_rows rows . f``."""
    if iset.n > 12:
        return None
    va = iset.A.vertices(12)
    vb = iset.B.vertices(12) if iset.phi > 0 else iset.B.vertices(12)[:1]
    if va.shape[0] * vb.shape[0] > 5000:
        return None
    cand = ((va[:, None, :] - iset.phi * vb[None, :, :]) / (1.0 - iset.phi)).reshape(-1, iset.n)
    return np.unique(np.round(cand, 14), axis=0)


def global_search_minimax(
    problem: Any,
    iset: IntegratedSet,
    *,
    grid: int | None = None,
    starts: int = 8,
    radius: float = 1.5,
    rng: np.random.Generator | None = None,
) -> ExactResult:
    r"""Uncertified global search for problem (8), quadratic clients, ``d <= 3``, any regime
    (module docstring).

    Works in the coordinates ``w = w0 + T z`` of the SDP route (centred at the mean-loss minimiser,
    mean Hessian whitened).  A dense grid over the box containing every client centre (enlarged by
    ``radius`` times its half-width around its midpoint) evaluates the closed form
    ``F(w) = IntegratedSet.support(f(w))`` (``= D_phi/(1 - phi)``); the ``starts`` best grid points
    and the grid's discrete local minima (one start per basin the grid resolves; jittered by ``rng``)
    are refined locally.  For ``n <= 12`` ``F`` is the maximum of the finitely
    many quadratics ``lam_v . f(w)`` over vertex-pair candidates ``lam_v``, and the refinement is
    SLSQP on the epigraph ``min t s.t. t >= lam_v . f(w)``; otherwise Nelder-Mead on ``F``.
    ``status`` is ``"global search"``: no certificate is claimed (it can stop above the optimum).

    Parameters
    ----------
    problem : QuadraticProblem
    iset : IntegratedSet
    grid : int, optional
        Points per axis (default 201, 61, 25 for ``d = 1, 2, 3``).
    starts : int
        Number of local refinements.
    radius : float
        Enlargement factor of the search box (``>= 1``).
    rng : Generator, optional
        Jitter of the starts (default seed 0).
    """
    from scipy.optimize import minimize

    _check_problem(problem)
    iset = _check_iset(problem, iset)
    d = check_integer(problem.d, "problem.d", low=1, high=3)
    starts = check_integer(starts, "starts", low=1)
    radius = check_in_range(radius, "radius", low=1.0)
    g = {1: 201, 2: 61, 3: 25}[d] if grid is None else check_integer(grid, "grid", low=2)
    rng = np.random.default_rng(0) if rng is None else check_rng(rng)
    unit = _unit(problem)  # the local refinements work on f/unit (their tolerances are absolute)
    _, _, _, w0, T = _reparametrise(problem, True)
    Tinv = np.linalg.inv(T)
    zc = (np.asarray(problem.c, dtype=np.float64) - w0) @ Tinv.T
    mid, half = 0.5 * (zc.max(axis=0) + zc.min(axis=0)), 0.5 * (zc.max(axis=0) - zc.min(axis=0))
    # whitened coordinates scale like sqrt(loss): the floor of the box is 1e-3 in units of sqrt(unit)
    half = radius * np.maximum(half, 1e-3 * max(float(np.sqrt(unit)), float(np.abs(zc).max())))
    lo, hi = mid - half, mid + half
    axes = [np.linspace(lo[j], hi[j], g) for j in range(d)]
    Zg = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)
    Wg = w0 + Zg @ T.T
    vals = np.concatenate([_support_rows(iset, _losses_rows(problem, Wg[s:s + 20000]))
                           for s in range(0, Wg.shape[0], 20000)])
    best_idx = _start_indices(vals, (g,) * d, starts)
    pieces = _pieces(iset)
    step = (hi - lo) / (g - 1)

    def F(z: Array) -> float:
        return float(_support_rows(iset, _losses_rows(problem, (w0 + T @ z)[None, :]))[0]) / unit

    best_z, best_v = Zg[best_idx[0]].copy(), float(vals[best_idx[0]]) / unit
    for t, i in enumerate(best_idx):  # a few local refinements
        z0 = Zg[i] + (0.0 if t == 0 else 0.25) * step * rng.uniform(-1, 1, size=d)
        if pieces is not None:
            z = _epigraph_refine(problem, pieces, w0, T, z0, unit)
        else:
            simplex = np.vstack([z0] + [z0 + step[j] * np.eye(d)[j] for j in range(d)])
            z = minimize(F, z0, method="Nelder-Mead", options={
                "xatol": 1e-10, "fatol": 1e-13, "maxiter": 2000 * d, "initial_simplex": simplex}).x
        v = F(z)
        if v < best_v:
            best_z, best_v = np.asarray(z, dtype=np.float64), v
    best_w = w0 + T @ best_z
    f = np.asarray(problem.losses(best_w))
    best_v = float(iset.support(f))
    return ExactResult(
        value=best_v,
        argmin=best_w,
        weights=iset.argmax(f),
        solver="grid + multistart " + ("SLSQP epigraph" if pieces is not None else "Nelder-Mead"),
        status="global search",
        certificate={},
        extra={"grid": g, "starts": starts, "box_z": (lo, hi), "route": "global search"},
    )


def _start_indices(vals: Array, shape: tuple[int, ...], starts: int) -> Array:
    """Grid indices to refine from: discrete local minima of the grid (one per basin seen on the grid),
    best first, topped up with the best grid points; at most ``starts``, the best point first."""
    V = vals.reshape(shape)
    is_min = np.ones(shape, dtype=bool)
    for ax in range(len(shape)):  # compare with both neighbours along each axis
        for sh in (1, -1):
            nb = np.roll(V, sh, axis=ax)
            edge = [slice(None)] * len(shape)
            edge[ax] = 0 if sh == 1 else -1
            nb[tuple(edge)] = np.inf
            is_min &= V <= nb
    mins = np.flatnonzero(is_min.ravel())
    mins = mins[np.argsort(vals[mins])]
    order = np.argsort(vals)
    out = list(dict.fromkeys([int(order[0]), *mins[:starts].tolist(), *order[:starts].tolist()]))
    return np.array(out[:starts], dtype=np.int64)


def _epigraph_refine(problem: Any, pieces: Array, w0: Array, T: Array, z0: Array, unit: float = 1.0) -> Array:
    """SLSQP on ``min_{z, t} t`` s.t. ``t >= pieces @ f(w0 + T z) / unit`` (each piece a quadratic)."""
    from scipy.optimize import minimize

    d = z0.size
    H = np.asarray(problem.H, dtype=np.float64)
    c = np.asarray(problem.c, dtype=np.float64)

    def cons(x: Array) -> Array:
        w = w0 + T @ x[:d]
        return x[d] - pieces @ _losses_rows(problem, w[None, :])[0] / unit

    def cons_jac(x: Array) -> Array:
        w = w0 + T @ x[:d]
        G = np.einsum("nij,nj->ni", H, w - c) @ T / unit  # d (f_i/unit) / d z
        return np.hstack([-(pieces @ G), np.ones((pieces.shape[0], 1))])

    x0 = np.concatenate([z0, [float(np.max(pieces @ _losses_rows(problem, (w0 + T @ z0)[None, :])[0])) / unit]])
    res = minimize(lambda x: x[d], x0, jac=lambda x: np.eye(d + 1)[d], method="SLSQP",
                   constraints=[{"type": "ineq", "fun": cons, "jac": cons_jac}],
                   options={"ftol": 1e-15, "maxiter": 500})
    return np.asarray(res.x[:d], dtype=np.float64)


# ------------------------------------------------------------------------------------ phi selection
def index_curve(problem: Any, A: CappedSimplex, B: CappedSimplex, phis: Any, **kw: Any) -> dict[str, Array]:
    r"""Exact solutions ``w*_phi`` of (8) on a grid and ``U``, ``V``, ``I = U/V`` there.

    Returns a dict with arrays ``phi``, ``U``, ``V``, ``index``, ``gap`` and ``w`` (rows); ``kw`` go to
    :func:`solve_integrated_minimax`."""
    ph = as_vector(phis, "phis")
    if np.any(ph < 0) or np.any(ph >= 1):
        raise FairtheoryValueError(f"phis must lie in [0, 1), got {phis!r}")
    U, V, gap, W = [], [], [], []
    for phi in ph:  # loop over the phi grid (each point is an SDP)
        res = solve_integrated_minimax(problem, IntegratedSet(A, B, float(phi)), **kw)
        u, v = unfairness_parts(np.asarray(problem.losses(res.argmin)), A, B)
        U.append(u), V.append(v), gap.append(res.certificate["gap"]), W.append(res.argmin)
    Ua, Va = np.array(U), np.array(V)
    return {"phi": ph, "U": Ua, "V": Va, "index": Ua / Va, "gap": np.array(gap), "w": np.array(W)}


@dataclass(frozen=True)
class PhiSelection:
    """Result of :func:`select_phi`: chosen ``phi``, its utility, and the whole curve."""

    phi: float
    utility: float
    curve: dict[str, Array]


def select_phi(problem: Any, A: CappedSimplex, B: CappedSimplex, phis: Any, **kw: Any) -> PhiSelection:
    r"""Exact selection of ``phi`` (001 Sec. 5.3 / App. C, reconstructed): minimise the negative utility
    ``sqrt(U(w*_phi) I(w*_phi))`` (geometric mean of absolute and relative unfairness) over the grid
    ``phis`` with certified solutions ``w*_phi``.  Ties go to the smallest ``phi``."""
    curve = index_curve(problem, A, B, phis, **kw)
    util = np.sqrt(curve["U"] * curve["index"])
    curve["utility"] = util
    j = int(np.argmin(util))
    return PhiSelection(float(curve["phi"][j]), float(util[j]), curve)
