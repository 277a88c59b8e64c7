r"""The dual of a block-diagonal PEP solved by a Schur-complement interior-point method (cvxopt).

:func:`fairtheory.worstcase.symmetric.solve_symmetric` poses the reduced PEP in Clarabel's form

    minimise  q^T y   s.t.  R y + s = b,  s in {0}^{n_eq} x R_+^{n_in},   Y_k = mat(y_k) >= 0  (k = 1..K),

with ``y = [svec(Y_1), ..., svec(Y_K), w]`` (``svec``: the upper triangle column by column, off-diagonal entries
times ``sqrt 2``; ``w`` free).  Clarabel factors the Nesterov-Todd scaling of each PSD block densely in its KKT
system: a block of size ``k`` gives a dense ``k(k+1)/2`` square block (at ``k = 100``: 5050), which sets the cost of an
iteration whatever the number of rows.  Its dual is

    minimise  b^T z   s.t.  Z_k = mat(q_k + R_k^T z) >= 0,   R_w^T z + q_w = 0,   z_in >= 0   (z_eq free),

over the multipliers ``z`` of the rows; a Schur-complement method (cvxopt's ``conelp``) eliminates the PSD blocks and
factors a dense matrix of the size of ``z`` only: ``H_ij = tr(N M_i N M_j)`` (``M_i`` row ``i``'s matrix in a block,
``N`` the scaling), ``O(r^2 k^2)`` per iteration for ``r`` rows instead of ``O(k^6)``.  Two KKT solvers:
``kkt="chol"`` is cvxopt's own (it scales every row's matrix, ``O(k^3)`` each); ``kkt="lowrank"`` (default) is
:func:`_lowrank_kkt`, the same elimination with the scaled rows formed from rank-one factors of the rows
(:func:`row_factors`; a PEP row is a quadratic form in a few vectors, rank at most 3 for local GD), ``O(k^2)`` each,
and ``H`` formed as their Gram matrix as cvxopt does (measured at local GD ``kappa = 47``: the same iterations and
accuracy; an earlier variant summing ``(q_ip . q_jq)^2`` over the factors was exact to ``1e-14`` but not a Gram
matrix, and its Cholesky factor stalled the method at a gap ``2e-7``).  From blocks of :data:`ORTH_MIN_BLOCK` on,
``H`` is formed from *orthonormal* factors of the scaled rows instead (:func:`_orth_factors`: ``L^T M_i L =
Q_i diag(lam_i) Q_i^T``; :func:`_hadamard_add`: ``H_ij = sum_pq lam_ip lam_jq (q_ip . q_jq)^2``), ``O(r^2 k)`` per
block instead of ``O(r^2 k^2)``, and the right-hand side and ``uz`` go through the same factors: the stall above came
from the scaled factors ``L^T V_i`` of an unscaled eigendecomposition, which can be far longer than ``L^T M_i L`` is
large (a row ``sym(a b^T)`` with ``L^T a`` long and ``L^T b`` short), so their sum cancelled; orthonormal factors do
not cancel (error ``~eps ||X_i|| ||X_j||``, as the ``svec`` Gram matrix).  Measured at local GD ``kappa = 47``
(blocks of 50, forced): the same 32 iterations and gap as the ``svec`` form, values within ``3e-10``; at
``kappa = 97`` (blocks of 100, 2886 rows) 1.4 s of CPU per iteration in all, where the ``svec`` Gram matrices alone
take 2.5-3 s.  The two problems are each other's Lagrange duals: cvxopt's multipliers of the
PSD constraints are the primal blocks ``Y_k`` (``y_k = svec(Z_k^{dual})``) and its multipliers of the equalities
``R_w^T z + q_w = 0`` are ``-w``, so :func:`solve_dual_schur` hands back Clarabel's ``(x, z)`` layout and the caller
maps it back unchanged.  A float solution only: its use is to feed the rigorous bracket
(:mod:`fairtheory.worstcase.bracket`), which checks it.

cvxopt is imported at the first call (``pip install cvxopt``); without it :func:`solve_dual_schur` raises
:class:`~fairtheory.errors.SolverError` naming the package.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg  # noqa: F401 - loaded before the BLAS thread limit (one_blas_thread) so that it covers scipy's BLAS
import scipy.sparse as sp

from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.worstcase.gram import one_blas_thread

__all__ = ["SchurResult", "solve_dual_schur", "ORTH_MIN_BLOCK"]

_SQRT2 = math.sqrt(2.0)
#: blocks from this size on form the Schur matrix from orthonormal factors of the scaled rows
#: (:func:`_orth_factors`, :func:`_hadamard_add`: ``O(r^2 k)`` per block instead of the ``O(r^2 k^2)`` Gram matrix
#: of the scaled ``svec`` rows); below it the ``svec`` Gram matrix (:func:`_scaled_rows`) costs about as much, and the
#: measured routes there (local GD ``kappa = 47``, blocks of 50) stay as they were - a rule of sizes.  Measured
#: (one BLAS thread, random data of the same shapes, 2 shared cores): blocks of 75 with 2301 rows, 0.14 s against 0.47 s
#: per block and iteration; blocks of 100 with 3300 rows, 0.4-0.5 s against 1.2-1.5 s
ORTH_MIN_BLOCK = 60


@dataclass
class SchurResult:
    """A float solution in Clarabel's conventions: ``x`` the primal ``y``, ``z`` the multipliers of the rows then of
    the PSD blocks (``svec``), ``obj_val = q^T x``, ``obj_val_dual = -b^T z``; ``status`` ``"Solved"`` (cvxopt
    ``optimal``), ``"AlmostSolved"`` (``unknown`` with residuals and relative gap within ``100 tol``) or
    ``"InsufficientProgress"``."""

    x: np.ndarray
    z: np.ndarray
    s: np.ndarray
    status: str
    obj_val: float
    obj_val_dual: float
    iterations: int
    r_prim: float
    r_dual: float
    solve_time: float


def _cvxopt():  # type: ignore[no-untyped-def]
    try:
        import cvxopt
        from cvxopt import solvers
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise SolverError("the Schur-complement route of the symmetric reduction needs the package cvxopt "
                          "(pip install cvxopt)", "cvxopt", "not installed") from e
    return cvxopt, solvers


@dataclass
class RowFactors:
    """Every row's restriction to one PSD block as a sum of rank-one terms: row ``i`` has the matrix
    ``sum_p d[i, p] V[i, :, p] V[i, :, p]^T`` (``mat`` of its ``svec`` coefficients; ``r`` terms per row, the
    largest rank found, zero-padded; eigenvalues below ``1e-13`` of the row's largest dropped - they enter the Newton
    system only, never a residual)."""

    V: np.ndarray
    d: np.ndarray


def _svec_pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ca, cb)`` with ``ca <= cb`` in ``svec`` order (index ``cb (cb + 1) / 2 + ca``)."""
    ca, cb = np.triu_indices(k)
    order = np.argsort(cb * (cb + 1) // 2 + ca, kind="stable")
    return ca[order], cb[order]


def row_factors(Rk: sp.spmatrix, k: int, *, chunk: int = 256) -> RowFactors:
    """:class:`RowFactors` of the rows ``Rk`` (``svec`` coefficients of a block of size ``k``), by batched
    symmetric eigendecompositions.  Rows of a PEP are quadratic forms in a few vectors (an interpolation row of a
    smooth convex function: ``g_j``, ``g_k``, ``x_j - x_k``), so their ranks are small (local GD: at most 3)."""
    Rk = sp.csr_matrix(Rk)
    nr = Rk.shape[0]
    ca, cb = _svec_pairs(k)
    sc = np.where(ca == cb, 1.0, 1.0 / _SQRT2)
    ws, Us = [], []
    for lo in range(0, nr, chunk):
        D = Rk[lo:lo + chunk].toarray()
        M = np.zeros((D.shape[0], k, k))
        M[:, ca, cb] = D * sc
        M[:, cb, ca] = D * sc
        w, U = np.linalg.eigh(M)
        order = np.argsort(-np.abs(w), axis=1, kind="stable")
        w = np.take_along_axis(w, order, axis=1)
        U = np.take_along_axis(U, order[:, None, :], axis=2)
        big = np.abs(w[:, :1])
        w = np.where(np.abs(w) > 1e-13 * big, w, 0.0)
        ws.append(w)
        Us.append(U)
    if not ws:
        return RowFactors(np.zeros((0, k, 0)), np.zeros((0, 0)))
    w = np.concatenate(ws)
    r = max(int(np.max(np.count_nonzero(w, axis=1))), 1)
    return RowFactors(np.concatenate([U[:, :, :r] for U in Us]), np.ascontiguousarray(w[:, :r]))


def _scaled_rows(F: RowFactors, rti: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], *,
                 chunk: int = 512) -> np.ndarray:
    """``svec(L^T M_i L)`` for every row ``i`` (``L = rti``; ``W^{-T}`` applied to the row's matrix) from its rank-one
    factors: ``(L^T V_i) diag(d_i) (L^T V_i)^T``, ``O(k^2 r)`` per row instead of cvxopt's ``O(k^3)``."""
    ca, cb = pairs
    vs = np.where(ca == cb, 1.0, _SQRT2)
    nr = F.V.shape[0]
    out = np.empty((nr, ca.size))
    for lo in range(0, nr, chunk):
        U = np.matmul(rti.T, F.V[lo:lo + chunk])
        X = np.matmul(U * F.d[lo:lo + chunk, None, :], np.swapaxes(U, 1, 2))
        out[lo:lo + chunk] = X[:, ca, cb] * vs
    return out


def _schur_block(F: RowFactors, rti: np.ndarray) -> np.ndarray:
    """``H_ij = tr(X_i X_j)`` for ``X_i = L^T M_i L``, ``L = rti`` (``tr(N M_i N M_j)``, ``N = rti rti^T``) as the
    Gram matrix of the rows' scaled ``svec`` (:func:`_scaled_rows`): numerically positive semidefinite, as cvxopt's
    own ``chol`` solver forms it."""
    k = rti.shape[0]
    Xs = _scaled_rows(F, rti, _svec_pairs(k))
    return Xs @ Xs.T


def _orth_factors(F: RowFactors, rti: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every row's scaled matrix ``X_i = L^T M_i L`` (``L = rti``, ``M_i = V_i diag(d_i) V_i^T`` from
    :func:`row_factors`) as ``Q_i diag(lam_i) Q_i^T`` with *orthonormal* columns ``Q_i``: ``L^T V_i`` for every row
    by one product, its thin QR ``Q R``, and the small core ``R diag(d_i) R^T = E diag(lam_i) E^T`` diagonalised
    (``Q_i = Q E``).  Orthonormal factors make ``tr(X_i X_j) = sum_pq lam_ip lam_jq (q_ip . q_jq)^2`` as accurate as
    the ``svec`` inner product (error ``~eps ||X_i||_F ||X_j||_F``): the factors ``L^T V_i`` themselves can be much
    longer than ``X_i`` is large (a row ``sym(a b^T)`` with ``L^T a`` long and ``L^T b`` short near the end of the
    method), and the same sum over them cancels (module doc).  Returns ``Qall`` (``k x r rr``, row ``i``'s columns
    ``i rr .. i rr + rr - 1``) and ``lam`` (``r x rr``)."""
    nr, k, rr = F.V.shape
    Vflat = F.V.transpose(1, 0, 2).reshape(k, nr * rr)
    U = (rti.T @ Vflat).reshape(k, nr, rr).transpose(1, 0, 2)
    Q, Rr = np.linalg.qr(U)
    C = np.matmul(Rr * F.d[:, None, :], np.swapaxes(Rr, 1, 2))
    lam, E = np.linalg.eigh(0.5 * (C + np.swapaxes(C, 1, 2)))
    Qe = np.matmul(Q, E)
    return np.ascontiguousarray(Qe.transpose(1, 0, 2).reshape(k, nr * rr)), np.ascontiguousarray(lam)


def _hadamard_add(H: np.ndarray, Qall: np.ndarray, lam: np.ndarray, *, chunk: int = 256) -> None:
    """``H_ij += tr(X_i X_j) = sum_pq lam_ip lam_jq (q_ip . q_jq)^2`` (:func:`_orth_factors`) for ``j <= i`` (and
    some ``j > i`` next to the diagonal; the caller keeps the lower triangle), by blocks of rows: the inner products
    by one matrix product (``O(r^2 rr^2 k)`` in all), then elementwise."""
    nr, rr = lam.shape
    QT = np.ascontiguousarray(Qall.T)
    lamf = lam.ravel()
    for lo in range(0, nr, chunk):
        hi = min(nr, lo + chunk)
        P = QT[lo * rr:hi * rr] @ Qall[:, :hi * rr]
        np.multiply(P, P, out=P)
        P *= lamf[:hi * rr]
        A = P[:, 0::rr].copy()
        for p in range(1, rr):
            A += P[:, p::rr]
        A *= lamf[lo * rr:hi * rr, None]
        S = A[0::rr].copy()
        for p in range(1, rr):
            S += A[p::rr]
        H[lo:hi, :hi] += S


def _lower_to_full(H: np.ndarray, *, chunk: int = 512) -> None:
    """Copy the strict lower triangle of the square ``H`` onto its upper one, in place, by blocks of rows."""
    n = H.shape[0]
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        D = H[lo:hi, lo:hi]
        D[:] = np.tril(D) + np.tril(D, -1).T
        if hi < n:
            H[lo:hi, hi:] = H[hi:, lo:hi].T


def _lowrank_kkt(R: sp.csr_matrix, blocks: list[int], n_eq: int, Aeq: np.ndarray,
                 factors: list[RowFactors] | None, orth: list[bool] | None = None):  # type: ignore[no-untyped-def]
    """cvxopt's ``kktsolver`` for :func:`solve_dual_schur`: the system

        [0 A^T G^T; A 0 0; G 0 -W^T W] [ux; uy; uz] = [bx; by; bz]

    by ``H = G^T (W^T W)^{-1} G = Gs^T Gs`` with ``Gs = W^{-T} G`` (per PSD block the rows' scaled matrices
    ``-L^T M_i L``, ``L = rti``, formed from their rank-one factors by :func:`_scaled_rows`; the multipliers of the
    inequality rows add ``1/d^2`` on the diagonal) - the elimination of cvxopt's own ``chol`` solver: the
    equalities by a QR factorisation of ``A^T`` (once), the Cholesky factor of ``Q_2^T H Q_2``, the right-hand side
    ``bx + Gs^T W^{-T} bz`` and ``W uz = Gs ux - W^{-T} bz`` with the same ``Gs`` (a consistent, backward-stable
    solve; a variant summing ``H`` from the unscaled factors directly stalled, module doc).  Blocks with
    ``orth[b]`` (default: from :data:`ORTH_MIN_BLOCK` on) take ``Gs`` in the factored form of :func:`_orth_factors`
    instead: ``H`` by :func:`_hadamard_add`, and ``Gs^T`` / ``Gs`` applied through the same factors (one
    ``k x k`` by ``k x r rr`` product each) - the same operator in ``H``, the right-hand side and ``uz``.  Returns
    ``ux``, ``uy`` and ``W uz`` in place, as cvxopt expects."""
    import scipy.linalg as sla
    from cvxopt import matrix as cmatrix
    from scipy.linalg import blas, lapack

    nr = R.shape[0]
    n_in = nr - n_eq
    offs = np.cumsum([0] + [k * (k + 1) // 2 for k in blocks])
    RA = [R[:, offs[i]:offs[i + 1]].tocsr() for i in range(len(blocks))]
    if factors is None:
        factors = [row_factors(RA[i], k) for i, k in enumerate(blocks)]
    pairs = [_svec_pairs(k) for k in blocks]
    if orth is None:
        orth = [k >= ORTH_MIN_BLOCK for k in blocks]
    nw = Aeq.shape[0]
    if nw:
        QA, tauA, _, info = lapack.dgeqrf(np.asfortranarray(Aeq.T))
        if info != 0:
            raise ArithmeticError("QR of the equality constraints failed")
        TA = np.triu(QA[:nw, :nw])
        lwork_l = max(1, 64 * nr)
        lwork_r = max(1, 64 * nr)
        lwork_v = max(1, 64)

    def factor(W):  # type: ignore[no-untyped-def]
        d2 = np.asarray(W["d"]).ravel() ** 2
        rtis = [np.array(r) for r in W["rti"]]
        Ofs = [_orth_factors(F, rti) if o else None for F, rti, o in zip(factors, rtis, orth, strict=True)]
        Xss = [None if o else _scaled_rows(F, rti, pr) for F, rti, pr, o in zip(factors, rtis, pairs, orth, strict=True)]
        H = np.zeros((nr, nr))
        for Xs, Of in zip(Xss, Ofs, strict=True):
            if Of is not None:
                _hadamard_add(H, *Of)
            else:
                H = blas.dsyrk(1.0, Xs, beta=1.0, c=H, lower=1, overwrite_c=1)
        _lower_to_full(H)
        idx = np.arange(n_eq, nr)
        H[idx, idx] += 1.0 / d2
        # the equalities eliminated as cvxopt's own 'chol' solver does: A^T = [Q1 Q2] [T; 0] (once), then
        # K = Q^T H Q and the Cholesky factor of K22 = Q2^T H Q2 (Q applied in its Householder form: O(r^2 p))
        if nw:
            K = lapack.dormqr("L", "T", QA, tauA, H, lwork_l)[0]
            K = lapack.dormqr("R", "N", QA, tauA, K, lwork_r)[0]
        else:
            K = H
        try:
            Lf = sla.cho_factor(K[nw:, nw:], lower=True, check_finite=False)
        except np.linalg.LinAlgError as e:
            raise ArithmeticError(str(e)) from e

        def solve(x, y, z):  # type: ignore[no-untyped-def]
            bx = np.array(x).ravel()
            by = np.array(y).ravel()
            bz = np.array(z).ravel()
            rhs = bx.copy()
            zl = bz[:n_in]
            rhs[n_eq:] -= zl / d2
            off = n_in
            Bss = []
            for k, (ca, cb), rti, Xs, Of in zip(blocks, pairs, rtis, Xss, Ofs, strict=True):
                Bk = np.tril(bz[off:off + k * k].reshape(k, k, order="F"))
                Bk = Bk + np.tril(Bk, -1).T
                Bs = rti.T @ Bk @ rti                      # W^{-T} bz
                Bss.append(Bs)
                if Of is not None:                         # <X_i, Bs> = sum_p lam_ip q_ip^T Bs q_ip
                    Qall, lam = Of
                    rhs -= (np.einsum("ab,ab->b", Qall, Bs @ Qall).reshape(lam.shape) * lam).sum(axis=1)
                else:
                    rhs -= Xs @ (Bs[ca, cb] * np.where(ca == cb, 1.0, _SQRT2))   # G^T W^{-1} W^{-T} bz, G_j = -M_j
                off += k * k
            if nw:
                xq = lapack.dormqr("L", "T", QA, tauA, rhs[:, None], lwork_v)[0].ravel()
                v = sla.solve_triangular(TA, by, trans="T", lower=False, check_finite=False)
                w = sla.cho_solve(Lf, xq[nw:] - K[nw:, :nw] @ v, check_finite=False)
                vw = np.concatenate([v, w])
                uy = sla.solve_triangular(TA, xq[:nw] - K[:nw] @ vw, lower=False, check_finite=False)
                ux = lapack.dormqr("L", "N", QA, tauA, vw[:, None], lwork_v)[0].ravel()
            else:
                uy = np.zeros(0)
                ux = sla.cho_solve(Lf, rhs, check_finite=False)
            out = [(-ux[n_eq:] - zl) / np.sqrt(d2)]
            for k, (ca, cb), Xs, Of, Bs in zip(blocks, pairs, Xss, Ofs, Bss, strict=True):
                if Of is not None:                         # sum_j ux_j X_j = Qall diag(lam ux) Qall^T
                    Qall, lam = Of
                    M = (Qall * (lam * ux[:, None]).ravel()) @ Qall.T
                    M = 0.5 * (M + M.T)
                else:
                    v = (Xs.T @ ux) * np.where(ca == cb, 1.0, 1.0 / _SQRT2)   # W^{-T} G ux = -mat(sum_j ux_j X_j)
                    M = np.zeros((k, k))
                    M[ca, cb] = v
                    M[cb, ca] = v
                out.append((-M - Bs).ravel(order="F"))
            x[:] = cmatrix(ux)
            if nw:
                y[:] = cmatrix(uy)
            z[:] = cmatrix(np.concatenate(out))
        return solve
    return factor


def solve_dual_schur(q: np.ndarray, R: sp.spmatrix, b: np.ndarray, *, n_eq: int, blocks: list[int],
                     tol: float = 1e-8, max_iter: int = 200, verbose: bool = False, kkt: str = "lowrank",
                     factors: list[RowFactors] | None = None, refinement: int | None = None) -> SchurResult:
    """Solve ``min q^T y, R y + s = b, s in {0}^n_eq x R_+, mat(y_k) >= 0`` (module doc) through its dual by cvxopt.

    ``R``: the rows (``n_eq`` equalities first), over ``y = [svec(Y_1), ..., svec(Y_K), w]`` with ``Y_k`` of size
    ``blocks[k]``; ``tol``: cvxopt's ``abstol``, ``reltol`` and ``feastol``; ``kkt``: ``"lowrank"`` (default: the
    low-rank KKT solver, orthonormal factors from blocks of :data:`ORTH_MIN_BLOCK` on), ``"orth"`` (orthonormal
    factors in every block) or ``"chol"`` (cvxopt's own); ``factors``: the rows' :func:`row_factors` per block when
    the caller has them (computed here otherwise).  Returns a :class:`SchurResult` in Clarabel's layout (the PSD rows
    ``-y_k + s = 0`` after the rows)."""
    cvxopt, solvers = _cvxopt()
    if not 1e-14 <= float(tol) <= 1e-2:
        raise FairtheoryValueError(f"tol must lie in [1e-14, 1e-2], got {tol!r}")
    R = sp.csr_matrix(R, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    nr, ny = R.shape
    sizes = [k * (k + 1) // 2 for k in blocks]
    nsv = sum(sizes)
    if q.shape != (ny,) or b.shape != (nr,) or nsv > ny or not 0 <= n_eq <= nr:
        raise FairtheoryValueError("solve_dual_schur: inconsistent shapes of q, R, b, blocks, n_eq")
    nw = ny - nsv
    n_in = nr - n_eq
    t0 = time.perf_counter()
    RT = R.T.tocsr()  # ny x nr: row j of RT = coefficient of y_j in every row
    # Gs: for each block, minus mat(R_k^T z) in cvxopt's column-major storage (lower triangle used)
    gi, gj, gv = [], [], []
    hs = []
    off_rows = 0
    off_y = 0
    for k, sz in zip(blocks, sizes, strict=True):
        ca, cb = np.triu_indices(k)          # ca <= cb, the order of svec: index cb(cb+1)/2 + ca
        sidx = cb * (cb + 1) // 2 + ca
        order = np.argsort(sidx)
        ca, cb = ca[order], cb[order]
        mscale = np.where(ca == cb, 1.0, 1.0 / _SQRT2)   # svec -> matrix entry
        pos = off_rows + cb + ca * k          # lower triangle (row cb >= col ca), column-major
        blk = RT[off_y:off_y + sz].tocoo()
        gi.append(pos[blk.row])
        gj.append(blk.col)
        gv.append(-blk.data * mscale[blk.row])
        h = np.zeros(k * k)
        h[cb + ca * k] = q[off_y:off_y + sz] * mscale
        hs.append(h)
        off_rows += k * k
        off_y += sz
    Gi = np.concatenate(gi) if gi else np.zeros(0, dtype=np.int64)
    Gj = np.concatenate(gj) if gj else np.zeros(0, dtype=np.int64)
    Gv = np.concatenate(gv) if gv else np.zeros(0)
    # the inequality multipliers are >= 0: -z_in + s_l = 0
    Gl = cvxopt.spmatrix(-1.0, list(range(n_in)), list(range(n_eq, nr)), (n_in, nr))
    Gsp = cvxopt.spmatrix(Gv.tolist(), Gi.astype(int).tolist(), Gj.astype(int).tolist(), (off_rows, nr))
    G = cvxopt.sparse([Gl, Gsp]) if n_in else Gsp
    if kkt == "chol":
        # dense: cvxopt's 'chol' solver copies G into a dense array at every iteration (from a sparse G that copy
        # was half of an iteration's time at blocks of 50)
        G = cvxopt.matrix(G)
    h = cvxopt.matrix(np.concatenate([np.zeros(n_in)] + hs))
    c = cvxopt.matrix(b)
    dims = {"l": n_in, "q": [], "s": list(blocks)}
    Rw = RT[nsv:].tocoo()                 # nw x nr: R_w^T z = -q_w
    Aeq = cvxopt.spmatrix(Rw.data.tolist(), Rw.row.astype(int).tolist(), Rw.col.astype(int).tolist(), (nw, nr))
    beq = cvxopt.matrix(-q[nsv:])
    opts = {"show_progress": bool(verbose), "abstol": float(tol), "reltol": float(tol), "feastol": float(tol),
            "maxiters": int(max_iter)}
    if refinement is not None:
        opts["refinement"] = int(refinement)
    if kkt not in ("lowrank", "orth", "chol"):
        raise FairtheoryValueError(f"kkt must be 'lowrank', 'orth' or 'chol', got {kkt!r}")
    with one_blas_thread():  # the rows' factors (batched eigh) included
        kktsolver = "chol" if kkt == "chol" else _lowrank_kkt(
            R, blocks, n_eq, np.asarray(RT[nsv:].toarray()), factors,
            orth=[True] * len(blocks) if kkt == "orth" else None)
        sol = solvers.conelp(c, G, h, dims, Aeq, beq, kktsolver=kktsolver, options=opts)
    seconds = time.perf_counter() - t0
    zr = np.asarray(sol["x"]).ravel()
    zz = np.asarray(sol["z"]).ravel()
    yw = -np.asarray(sol["y"]).ravel()
    ys = []
    zs = []
    off = n_in
    ss = np.asarray(sol["s"]).ravel()
    for k in blocks:
        ca, cb = np.triu_indices(k)
        sidx = cb * (cb + 1) // 2 + ca
        order = np.argsort(sidx)
        ca, cb = ca[order], cb[order]
        vscale = np.where(ca == cb, 1.0, _SQRT2)
        Zd = zz[off:off + k * k][cb + ca * k]
        ys.append(Zd * vscale)
        zs.append(ss[off:off + k * k][cb + ca * k] * vscale)
        off += k * k
    x = np.concatenate(ys + [yw])
    z = np.concatenate([zr] + zs)
    s_rows = np.concatenate([np.zeros(n_eq), zz[:n_in]])
    status_c = sol["status"]
    pobj = float(q @ x)
    dobj = -float(b @ zr)
    r_p = float(sol.get("dual infeasibility") or 0.0)   # cvxopt's dual is our primal
    r_d = float(sol.get("primal infeasibility") or 0.0)
    gap = abs(pobj - dobj) / max(1.0, abs(pobj), abs(dobj))
    if status_c == "optimal":
        status = "Solved"
    elif max(r_p, r_d, gap) <= 100 * float(tol):
        status = "AlmostSolved"
    else:
        status = "InsufficientProgress"
    return SchurResult(x=x, z=z, s=s_rows, status=status, obj_val=pobj, obj_val_dual=dobj,
                       iterations=int(sol.get("iterations") or 0), r_prim=r_p, r_dual=r_d, solve_time=seconds)
