r"""A narrow bracket of a degenerate PEP from one float solve: a KKT point, multipliers on its face, exact repair.

Setting: a PEP solved by an interior-point method (Clarabel) whose optimum is *degenerate* - interpolation rows
whose slack and multiplier both vanish at the optimum (local GD at ``lr L = 1/40``: rows between nearly coincident
points).  There the interior-point iterates stall at ``mu ~ 1e-8`` (status ``AlmostSolved``, every Clarabel setting
tried: the value ``~1e-7`` relative off), the solver's multipliers leave the slack ``S(lambda)`` ``~4e-9`` indefinite
and their exact repair pays ``eps tr G ~ 1e-7``, and the replayed instance of the solver's Gram matrix falls
``~2e-7`` below the worst case (interpolation data violated by ``delta`` give gradients off by ``~sqrt(delta)``).

What this module does, in floats first (nothing here is trusted; the two ends are checked as below):

1. **Active set by complementarity**: a row is active when its multiplier exceeds its slack at the solver's point
   (``z_i > s_i``; an interior-point iterate has ``z_i s_i ~ mu``, so the larger of the two says which side it is
   on).  The tau-thresholds of :func:`fairtheory.worstcase.exact_repair.newton_polish` misclassify the degenerate
   pairs (slack ``1e-4``, multiplier ``5e-6``).
2. **KKT Newton** (:func:`fairtheory.proofs.search._kkt_newton`: active rows tight, (i), ``S G = 0``) from the
   solver's point: a primal point feasible to ``1e-12`` with the exact objective (local GD ``kappa = 2``:
   ``0.21741805875087644`` against SDPA-GMP's ``0.21741805875087633``).  Where the solver's Gram matrix has a clear
   spectral gap (:func:`fairtheory.proofs.search.kkt_rank`: local GD ``lr = 1/40``, rank 2, the next eigenvalue
   ``1e8`` times smaller) the Newton runs on ``G = V V^T`` with ``V`` of that rank first (every candidate set;
   ``kappa = 5``: 196 unknowns instead of 495), then on the full ``G`` as before; both points pass the same
   acceptance.  Its multipliers may be negative (a degenerate dual), so they are not used.
3. **Multipliers on the face** of that point: the least change of the solver's ``z`` (weighted by ``|z|``) with
   (i) exactly in floats, ``S(lambda) U = 0`` on the range ``U`` of the KKT Gram matrix, ``lambda >= 0`` and
   ``lambda = 0`` off the rows tight at the KKT point (complementary slackness) - a small QP, which is one least
   squares where the least-norm solution of the equations is already ``>= 0`` (else Clarabel).  The slack is then
   PSD up to rounding (``lambda_min ~ 1e-16``).
4. **Upper end**: :func:`fairtheory.worstcase.exact_repair.repair` of those multipliers (rational rounding, (i)
   restored exactly, ``S + eps I >= 0`` proved by an exact ``L D L^T``) and
   :func:`~fairtheory.worstcase.exact_repair.upper_from` with the a priori trace bound of
   :func:`fairtheory.worstcase.bracket.rigorous_upper` - weak duality, exact; a wrong face or active set only
   gives a larger ``eps`` (a wider bracket), never a bound below the worst case.
5. **Lower end**: the replay of the KKT point (:func:`fairtheory.worstcase.bracket.bracket`): explicit ``L``-smooth
   convex functions run through the method - a feasible instance's value, as every replayed lower end.

:func:`kkt_bracket` returns ``None`` where a step fails (the Newton does not converge - local GD ``kappa = 5`` has
~150 rows with slack and multiplier both ``~1e-5`` at the solver's point - the QP is infeasible, the data are too
large); the caller keeps its other routes.  See docs/worstcase.md, "Which number is the worst case".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.proofs.search import NEWTON_MAX_DIM, _kkt_newton, _one_blas_thread, kkt_newton_grown, kkt_rank
from fairtheory.worstcase.exact_repair import _exported_view, repair, upper_from
from fairtheory.worstcase.solvers import FloatSolve

if TYPE_CHECKING:
    from fairtheory.worstcase.bracket import Bracket
    from fairtheory.worstcase.sdp import PEP
    from fairtheory.worstcase.solvers import SDPSolution

__all__ = ["kkt_bracket", "active_by_complementarity", "face_multipliers", "KKT_MAX_WORK", "FACE_SLACK_RTOL",
           "KKT_RTOL", "KKT_ALL_SETS_WORK", "FACE_EQ_TOL"]

#: a KKT bracket is kept (in place of the solver's point) when its proved upper end is within this of its value
#: (relative): issue 41's accuracy
KKT_RTOL = 1e-7

#: the KKT Newton's dense Jacobian has ``rows * dim^2``-ish entries: tried up to this (the repair's own limit)
KKT_MAX_WORK = 300000
#: up to this ``rows * dim^2`` every candidate active set is tried; above it only the first (a failed Newton at
#: Gram 36 costs ~1 s; measured on local GD lr = 1/40, n = 2, kappa 1..5, T_N 2..3: the strict set converges in 8 of
#: 12 cases, the others need the complementarity sets)
KKT_ALL_SETS_WORK = 100000
#: rows whose slack at the KKT point is at most this (relative to ``1 + |c_i|``) may carry a multiplier
FACE_SLACK_RTOL = 1e-10
#: a replayed lower end above the proved upper end by at most this (relative) is rounding and is lowered to it; by
#: more the bracket is refused
LOWER_EXCESS_RTOL = 1e-12
#: eigenvalues of the KKT Gram matrix above this times the largest span the face ``U``
FACE_RANK_RTOL = 1e-9
#: the face multipliers' equations are met to this (relative to ``1 + max |b|``) by the least-norm solution, or the
#: QP is solved (:func:`face_multipliers`; the QP's own feasibility tolerance)
FACE_EQ_TOL = 1e-12
#: the last candidate active set keeps only the rows whose multiplier exceeds this times their slack (the clearly
#: active ones): in a degenerate PEP the rows whose slack and multiplier both vanish at the optimum are left to the
#: Newton (local GD ``kappa = 5``: 122 rows; it converges to a point where they hold, the 144 of ``z > s`` do not)
STRICT_RATIO = 1e4
#: a user row (initial condition) joins the first candidate active set when its multiplier is at least this times
#: its slack (:func:`active_by_complementarity`)
USER_RATIO = 1.0 / 3.0


def _natural_point(dim: int, gram: np.ndarray, F: np.ndarray) -> np.ndarray:
    ia, ib = np.triu_indices(dim)
    xg = np.empty(ia.size)
    xg[ib * (ib + 1) // 2 + ia] = gram[ia, ib]
    return np.concatenate([xg, F])


def active_by_complementarity(sol: SDPSolution) -> list[np.ndarray]:
    """Candidate active sets at the solution's optimum by complementarity (module doc, step 1), in the order tried:
    the equalities and the rows with ``z > STRICT_RATIO s`` (the clearly active ones; the user rows as in the next
    set); then every inequality whose multiplier ``z`` exceeds its slack ``s`` at the solver's point, with the user
    rows (the initial conditions, the last ``len(sol.duals)`` rows) whose multiplier is at least :data:`USER_RATIO`
    of their slack added - a level constraint is tight at a worst case that grows with its level, and its pair stalls
    near ``z ~ s`` (local GD ``kappa = 2``, dense: ``rho2``'s row at ``s = 5.3e-5``, ``z = 5.1e-5``; the Newton
    converges only with it); then without them.  Duplicates are dropped."""
    x = _natural_point(sol.dim, np.asarray(sol.gram, dtype=np.float64), np.asarray(sol.F, dtype=np.float64))
    slack = np.asarray(sol.consts, dtype=np.float64) - sol.rows @ x
    z = np.asarray(sol.z, dtype=np.float64)
    act = z > slack
    act[: sol.n_eq] = True
    n_user = int(np.asarray(sol.duals).size) if sol.duals is not None else 0
    plus = act.copy()
    u = slice(z.size - n_user, z.size)
    if n_user:
        plus[u] |= z[u] >= USER_RATIO * slack[u]
    strict = z > STRICT_RATIO * slack
    strict[: sol.n_eq] = True
    if n_user:
        strict[u] = plus[u]
    out: list[np.ndarray] = []
    for a in (strict, plus, act):
        if not any(np.array_equal(a, b) for b in out):
            out.append(a)
    return out


def _face_system(sol: SDPSolution, U: np.ndarray) -> tuple[Any, np.ndarray]:
    """``(A, b)`` with ``A lambda = b`` iff (i) ``sum_i lambda_i a_i = c_F`` and ``S(lambda) U = 0`` (floats)."""
    import scipy.sparse as sp

    dim = sol.dim
    nG = dim * (dim + 1) // 2
    R = sp.csc_matrix(sol.rows)
    ia, ib = np.triu_indices(dim)
    pos_a = np.empty(nG, dtype=np.int64)
    pos_b = np.empty(nG, dtype=np.int64)
    nat = ib * (ib + 1) // 2 + ia
    pos_a[nat], pos_b[nat] = ia, ib
    RG = R[:, :nG].tocoo()
    a, b = pos_a[RG.col], pos_b[RG.col]
    v = np.where(a == b, RG.data, 0.5 * RG.data)
    obj = np.asarray(sol.objective_row, dtype=np.float64)
    C = np.zeros((dim, dim))
    hc = np.where(pos_a == pos_b, 1.0, 0.5) * obj[:nG]
    C[pos_a, pos_b] = hc
    C[pos_b, pos_a] = hc
    blocks = [R[:, nG:].T.tocsr()]
    rhs = [obj[nG:]]
    off = a != b
    for j in range(U.shape[1]):
        u = U[:, j]
        # (S u)_a = sum_b S_ab u_b over both triangles of every natural entry
        blocks.append(sp.csr_matrix((np.concatenate([v * u[b], (v * u[a])[off]]),
                                     (np.concatenate([a, b[off]]), np.concatenate([RG.row, RG.row[off]]))),
                                    shape=(dim, R.shape[0])))
        rhs.append(C @ u)
    return sp.vstack(blocks).tocsc(), np.concatenate(rhs)


def face_multipliers(sol: SDPSolution, gram: np.ndarray, F: np.ndarray, z: np.ndarray) -> np.ndarray | None:
    """Multipliers on the face of the point ``(gram, F)`` (module doc, step 3): the least change of ``z`` (weighted
    by ``|z|``, floored at ``1e-6`` of the largest) with (i), ``S(lambda) U = 0`` (``U`` the range of ``gram``),
    ``lambda >= 0`` on the inequalities and ``lambda = 0`` off the rows tight at the point; ``None`` when Clarabel does
    not solve that QP.  The least-change solution of the equations alone (a weighted least-norm problem, one least
    squares) is that QP's solution whenever it is ``>= 0`` on the inequalities and meets the equations to
    :data:`FACE_EQ_TOL`: then no QP is solved."""
    import clarabel
    import scipy.sparse as sp

    w_, V = np.linalg.eigh(0.5 * (gram + gram.T))
    top = float(w_[-1]) if w_.size else 0.0
    if not top > 0:
        return None
    U = V[:, w_ > FACE_RANK_RTOL * top]
    A, bvec = _face_system(sol, U)
    x = _natural_point(sol.dim, gram, F)
    consts = np.asarray(sol.consts, dtype=np.float64)
    slack = consts - sol.rows @ x
    m = consts.size
    ineq = np.arange(m) >= sol.n_eq
    sup = (~ineq) | (slack <= FACE_SLACK_RTOL * (1.0 + np.abs(consts)))
    idx = np.flatnonzero(sup)
    if idx.size == 0:
        return None
    zi = z[idx]
    w = np.maximum(np.abs(zi), 1e-6 * max(float(np.abs(z).max()), 1e-300))
    Aeq = A[:, idx]
    # without the signs the QP is a least-norm problem: lambda = z + w y, y the least-norm solution of
    # (Aeq diag(w)) y = b - Aeq z; where that lambda is >= 0 on the inequalities it is the QP's solution too
    Ad = Aeq.toarray()
    with np.errstate(all="ignore"):
        y = np.linalg.lstsq(Ad * w, bvec - Ad @ zi, rcond=None)[0]
        li = zi + w * y
        eq_res = float(np.abs(Ad @ li - bvec).max(initial=0.0))
    if np.all(np.isfinite(li)) and eq_res <= FACE_EQ_TOL * (1.0 + float(np.abs(bvec).max(initial=0.0))) \
            and float(li[ineq[idx]].min(initial=0.0)) >= 0.0:
        lam = np.zeros(m)
        lam[idx] = li
        return lam
    nin = int(ineq[idx].sum())
    Ain = sp.csr_matrix((-np.ones(nin), (np.arange(nin), np.flatnonzero(ineq[idx]))), shape=(nin, idx.size))
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = st.tol_gap_rel = 1e-12
    st.tol_feas = 1e-12
    st.presolve_enable = False
    st.max_threads = 1
    cones = [clarabel.ZeroConeT(Aeq.shape[0])] + ([clarabel.NonnegativeConeT(nin)] if nin else [])
    res = clarabel.DefaultSolver(sp.diags(1.0 / w ** 2).tocsc(), -zi / w ** 2, sp.vstack([Aeq, Ain]).tocsc(),
                                 np.concatenate([bvec, np.zeros(nin)]), cones, st).solve()
    if str(res.status).split(".")[-1] not in ("Solved", "AlmostSolved"):
        return None
    lam = np.zeros(m)
    lam[idx] = np.asarray(res.x)
    lam[ineq] = np.maximum(lam[ineq], 0.0)
    return lam if np.all(np.isfinite(lam)) else None


def kkt_bracket(pep: PEP, sol: SDPSolution, bracket_of: Callable[[SDPSolution], Bracket]
                ) -> tuple[SDPSolution, Bracket] | None:
    """The module doc's bracket of ``pep`` from the float solve ``sol``: ``(sol', bracket)`` with ``sol'`` the KKT
    point (its Gram matrix, values, objective, the face multipliers as ``z``), ``bracket.upper`` the exact repaired
    bound (rounded up to a float; its trace term uses the a priori bound ``tr G <= sum_j B_j^2``,
    ``info["trace_bound"]`` of ``bracket_of(sol')`` - :func:`fairtheory.worstcase.bracket.bracket` of ``pep``, which
    derives it from the class data and the levels), ``bracket.lower`` the replay of the KKT point (``bracket_of``'s).
    The KKT points of the candidate active sets (rank-``r`` Newton first, module doc step 2) are bracketed in turn:
    the first whose upper end is within :data:`KKT_RTOL` of its value is returned, else the first bracket made;
    ``None`` when every candidate fails a step or ``sol`` is not a solution of ``pep`` (another Gram dimension or
    number of rows)."""

    if sol.rows is None or sol.z is None or sol.gram is None or sol.F is None or sol.objective_row is None:
        return None
    m = sol.rows.shape[0]
    if sol.dim != pep.dim or sol.rows.shape[1] != pep.dim * (pep.dim + 1) // 2 + pep.nf or m != np.asarray(sol.z).size \
            or pep._objective is None or float(sol.objective_const) != float(pep._objective.const):
        return None
    if sol.dim > NEWTON_MAX_DIM or m * sol.dim * sol.dim > KKT_MAX_WORK or sol.trace_weight:
        return None
    z = np.asarray(sol.z, dtype=np.float64)
    if not (np.all(np.isfinite(z)) and np.all(np.isfinite(sol.gram)) and np.all(np.isfinite(sol.F))):
        return None
    # BLAS on one thread throughout: small dense algebra (a multi-threaded BLAS next to a busy core: ~3x the CPU)
    with np.errstate(all="ignore"), _one_blas_thread():
        P = _exported_view(sol)
        ref = FloatSolve(sol.status, z, float(sol.value), np.asarray(sol.gram, dtype=np.float64),
                         np.asarray(sol.F, dtype=np.float64), "clarabel", 0.0)
        sets = active_by_complementarity(sol)
        # the rank-r Newton on every candidate set first (a clear gap in the solver's spectrum; cheap), then the
        # full one as before: every point goes through the same acceptance (_kkt_newton), whichever found it.  The
        # first point whose bracket closes to KKT_RTOL is returned; else the first bracket made (or None)
        r = kkt_rank(ref.gram) if ref.gram is not None else None
        tries = [(act, r) for act in sets] if r is not None else []
        tries += [(act, None) for act in sets[: (len(sets) if m * sol.dim * sol.dim <= KKT_ALL_SETS_WORK else 1)]]
        first = None
        for act, rank in tries:
            if rank is None:
                got = _kkt_newton(P, ref, act)
            else:
                grown = kkt_newton_grown(P, ref, act, rank)
                got, act = grown if grown is not None else (None, act)
            if got is None:
                continue
            out = _bracket_at(sol, P, z, got, act, bracket_of)
            if out is None:
                continue
            val, upper = float(out[0].value), float(out[0].dual_value)
            if upper - val <= max(KKT_RTOL * abs(val), 1e-12):
                return out
            if first is None:
                first = out
    return first


def _bracket_at(sol: SDPSolution, P: Any, z: np.ndarray, got: tuple[float, np.ndarray, np.ndarray, np.ndarray],
                act: np.ndarray, bracket_of: Callable[[SDPSolution], Bracket]) -> tuple[SDPSolution, Bracket] | None:
    """Steps 3-5 of the module doc at the KKT point ``got`` of :func:`_kkt_newton` on the active set ``act``:
    ``(sol', bracket)`` as :func:`kkt_bracket` returns them, ``None`` when a step fails."""
    obj, _, Gn, _ = got
    Fn = np.asarray(sol.F, dtype=np.float64)
    if P.nf:
        rhs = -(np.asarray(P.MG[act] @ Gn.reshape(-1)).ravel() + P.c[act])
        Fn = np.linalg.lstsq(P.AF[act].toarray(), rhs, rcond=None)[0]
    val = float(np.sum(P.C * Gn) + P.cF @ Fn) + float(P.c0)
    if not abs(val - obj) <= 1e-12 * max(1.0, abs(obj)):
        return None
    lam = face_multipliers(sol, Gn, Fn, z)
    if lam is None:
        return None
    try:
        rep = repair(dataclasses.replace(sol, z=lam))
    except (ValueError, ZeroDivisionError, ArithmeticError, np.linalg.LinAlgError):
        return None
    if rep is None:
        return None
    sol2 = dataclasses.replace(sol, gram=Gn, F=Fn, z=lam, value=val)
    sol2.kkt_point = True  # type: ignore[attr-defined]  # its replay takes the interpolants' vertex check
    br = bracket_of(sol2)
    T = br.info.get("trace_bound")
    if T is None or not math.isfinite(float(T)) or float(T) < 0:
        return None
    up = upper_from(rep, None, Fraction(float(T)) * (1 + Fraction(1, 2 ** 40)))
    if up is None:
        return None
    upper = float(up)
    if Fraction(upper) < up:
        upper = math.nextafter(upper, math.inf)
    sol2.dual_value, sol2.gap = upper, upper - val
    br.upper = min(br.upper, upper)
    if math.isfinite(br.lower) and br.lower > br.upper:
        # the replay (floats) above the proved bound: by rounding only (a KKT point feasible to 1e-12) it is lowered to
        # the bound and said so; by more, one end is wrong and no bracket is returned
        if br.lower - br.upper > LOWER_EXCESS_RTOL * max(abs(br.upper), 1e-300):
            return None
        br.info = {**br.info, "lower_clamped": br.lower}
        br.lower = br.upper
    br.info = {**br.info, "kkt_upper": upper, "kkt_value": val, "kkt_eps": float(rep.eps),
               "kkt_active": int(act.sum())}
    return sol2, br
