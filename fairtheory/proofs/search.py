r"""Finding exact dual multipliers of an exported PEP, robustly (untrusted search; the result is checked exactly).

Data: ``data = {"dim", "nf", "n_eq", "rows": [(G, F, c), ...], "objective": (G, F, c)}`` as exported by
:meth:`fairtheory.worstcase.sdp.PEP.export` or built by :func:`fairtheory_kernel.pep.build`; row ``k``
reads ``<M_k, Gram> + a_k . F + c_k <= 0`` (``== 0`` for ``k < n_eq``) and the PEP maximises the objective
``<C, Gram> + c . F + c_0`` over ``Gram >= 0``.  A certificate is a rational ``lambda`` (``>= 0`` on the
inequalities) with

(i)  ``sum_k lambda_k a_k = c`` exactly, and (ii) ``S(lambda) = sum_k lambda_k M_k - C >= 0``,

proving ``value <= bound(lambda) = c_0 - sum_k lambda_k c_k``.  Both (i) and the bound are *affine* in
``lambda`` and (ii) is a convex condition, so for two multiplier vectors satisfying (i) every convex
combination satisfies (i), and

.. math:: S((1-t)\lambda_{tight} + t\lambda_{int}) = (1-t) S_{tight} + t S_{int}
          \succeq \big((1-t)\,\lambda_{\min}(S_{tight}) + t\, m\big) I  \quad\text{on } B,

which is ``>= 0`` as soon as ``t >= eps / (eps + m)`` with ``eps = -lambda_min(S_tight)``, ``m =
lambda_min(S_int)``.  :func:`find_multipliers` builds the two ends and searches ``t``:

1. **reference**: the PEP solved by SDPA in GMP arithmetic (``sdpap``, 200-bit floats, gaps ``1e-30``; value
   and duals come back as doubles correct to the last bit) when it is small (:data:`SDPA_MAX_ROWS`,
   :data:`SDPA_MAX_DIM`: SDPA-GMP takes ``~3 s (rows/86)^2.5``), else by Clarabel, with SDPA-GMP as the
   escalation when the Clarabel route fails and the deadline allows it;
2. **structural zeros** ``Z``: basis indices whose row of ``S`` vanishes for *every* dual-feasible ``lambda``
   (a ray of the primal along which ``Gram_ii`` grows for free, e.g. the free model of a one-round potential
   PEP).  No certificate is strictly feasible on them, so they are imposed exactly (``S_{Z,:} = 0``) and the
   margin is asked for on ``B`` = the other indices.  ``Z = {}`` when the back-off PEP below is bounded with
   ``B`` = everything, else the indices where the reference slack's diagonal vanishes (a Clarabel reference is
   then re-solved on the reduced PEP, ``Gram_{Z,:}`` free);
3. **value** (Clarabel references): Clarabel ends ``AlmostSolved`` on degenerate PEPs, its value up to ``1e-6``
   low and its slack ``1e-8`` indefinite.  A Gauss-Newton on the KKT system (:func:`_kkt_newton`: active rows
   tight, (i), ``S Gram = 0``) from its solution converges quadratically to a float-feasible primal point whose
   objective is the value to ``~1e-15``, and whose range and tight rows are the optimal face and active set;
4. **tight ends** ``lambda_tight``: the reference duals, and the duals pushed onto candidate optimal faces
   (``S U = 0`` for the Newton face and the slack's near-null spaces, with candidate active sets;
   :func:`_face_refine`), each rounded to a common dyadic grid (:data:`GRID_BITS` bits below the largest costly
   multiplier; the multipliers of cost-free rows such as ``rho^2 <= 0``, which interior-point solvers drive to
   ``1e16``, capped first: :func:`_cap`) and projected exactly onto (i) and ``S_{Z,:} = 0`` (exact Gaussian
   elimination moving only the largest multipliers).  Their bounds are the value to ``~1e-13``; their slacks may
   have tiny negative eigenvalues.  One that is exactly PSD already: done (``t = 0``);
5. **interior end** ``lambda_int``: the *back-off* PEP, objective ``+ delta sum_{i in B} Gram_ii`` with
   ``Gram_{Z,:}`` free (its dual has ``S_{Z,:} = 0`` and ``S >= delta`` on ``B``), ``delta`` a sizeable
   fraction of ``value / tr_B(Gram*)`` (well conditioned: "Solved"), solved by Clarabel, rounded and projected
   the same way.  Its margin ``m ~ delta`` dwarfs any rounding, so ``S_int > 0`` on ``B``;
6. **combination**: the smallest dyadic ``t`` (estimated from float eigenvalues, then doubled until the exact
   test :func:`fairtheory.proofs.exact_linalg.is_psd` accepts), the tight end with the lowest
   predicted bound first.  The bound is ``(1-t) bound_tight + t bound_int``; its excess over the value is about
   ``t delta tr_B(Gram) ~ eps tr_B(Gram*)``, independent of ``delta``: only the tight end's accuracy matters.

Nothing depends on the last bits of a float solver: perturbing the duals by ``1e-7`` relative only moves ``t``.
The result is re-checked with :func:`fairtheory.proofs.certificate.verify_multipliers` before it is returned.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range
from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.proofs.exact_linalg import is_psd, solve_sparse
from fairtheory.worstcase import solvers
from fairtheory.worstcase.gram import one_blas_thread as _one_blas_thread
from fairtheory.worstcase.solvers import ExportedPEP, FloatSolve, exported_pep
from fairtheory_kernel.pep import verify_multipliers

__all__ = ["SearchResult", "find_multipliers", "reference_solve", "SDPA_MAX_ROWS", "SDPA_MAX_DIM", "GRID_BITS"]

#: SDPA-GMP is used for the reference solve up to this many rows and this Gram dimension (its time grows like
#: ``rows^2.5``: ~3 s at 86 rows / dim 14, ~10 s at 146 / 18, ~45 s at 266 / 24, ~160 s at 422 / 30 on one
#: AMD EPYC core pair); above, Clarabel, with SDPA as escalation when the deadline allows
SDPA_MAX_ROWS = 60
SDPA_MAX_DIM = 16
#: the float multipliers are rounded to the grid ``2^(e - GRID_BITS)``, ``2^e`` the largest multiplier
GRID_BITS = 40
#: multipliers of free rows (no function values, constant 0) are capped at this times the costly ones' scale
CAP_FACTOR = 1e4
#: candidate active sets of the face refinement: rows whose multiplier exceeds tau times the largest
ACTIVE_TAUS = (0.0, 1e-6, 1e-5, 1e-4, 1e-3)
#: primal active sets tried by the KKT Newton polish (rows within tau of 0 at the reference primal), and its size cap
PRIMAL_TAUS = (1e-6, 1e-5, 1e-7)
NEWTON_MAX_DIM = 48
#: the low-rank KKT Newton (:func:`_kkt_newton` with ``rank``) drops singular values of its Jacobian below this
#: times the largest (a degenerate dual leaves whole directions of ``lambda`` free; their ``1e-12`` singular values
#: would give steps the line search rejects: local GD ``lr = 1/40``, ``kappa = 2`` stalls at ``1e-4`` without it)
LOWRANK_RCOND = 1e-8
#: :func:`kkt_rank`: an eigenvalue of the reference Gram matrix counts when it is above this times the largest and
#: the next one is below this times it (a clear gap: local GD ``lr = 1/40``: ``7.6`` then ``6e-8``)
RANK_GAP = 1e-5
#: :func:`kkt_newton_grown`: rounds of adding the rows the rank-r KKT point violates to its active set
GROW_ROUNDS = 4
#: back-off levels, in units of ``max(|value|, abs_floor) / tr_B(Gram*)``
BACKOFF_FACTORS = (0.1, 1.0, 0.01, 10.0)
Row = tuple[dict[tuple[int, int], Fraction], dict[int, Fraction], Fraction]


@dataclass
class SearchResult:
    """Exact multipliers found by :func:`find_multipliers` (normalised units of the data).

    ``verify_multipliers(rows, objective, multipliers, ...) == bound`` holds exactly; ``value`` is the float PEP
    value the bound was compared with (``rtol``), ``route`` how the multipliers were obtained, ``tried`` every
    attempt before (and including) the successful one, ``meta`` timings (``solve_s``, ``search_s``,
    ``check_s``), the reference solver, ``t``, margins and structural zeros."""

    multipliers: list[Fraction]
    bound: Fraction
    value: float
    route: str
    seconds: float
    tried: list[str]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def rel_excess(self) -> float:
        """``(bound - value) / |value|`` (``inf`` for a non-finite or zero value)."""
        if not math.isfinite(self.value) or self.value == 0:
            return math.inf
        return float(self.bound - Fraction(self.value)) / abs(self.value)


# ----------------------------------------------------------------------------------------------- float solves


def _use_sdpa(P: ExportedPEP) -> bool:
    return P.m <= SDPA_MAX_ROWS and P.dim <= SDPA_MAX_DIM


def _reference(P: ExportedPEP) -> FloatSolve | None:
    """The most accurate solve available: SDPA-GMP for small PEPs (:func:`_use_sdpa`), else or on failure Clarabel."""
    if _use_sdpa(P):
        s = solvers.solve_sdpa(P)
        if s is not None and s.ok:
            return s
    s = solvers.solve_clarabel(P, tol=1e-10)
    return s if s.ok else None


def reference_solve(data: Mapping[str, Any]) -> tuple[list[float], float, str] | None:
    """``(z, value, how)``: the row multipliers and value of the most accurate float solve available (SDPA in GMP
    arithmetic for small PEPs, else Clarabel; ``how`` names it), or ``None`` when no solver reports optimal."""
    s = _reference(exported_pep(data, "reference_solve"))
    return None if s is None else ([float(x) for x in s.z], s.value, s.how)


# ----------------------------------------------------------------------------------------------- exact side
def _dyadic(x: float, e: int) -> Fraction:
    """``x`` rounded to the grid ``2^e``."""
    n = round(math.ldexp(x, -e))
    return Fraction(n * (1 << e)) if e >= 0 else Fraction(n, 1 << -e)


def _costly(P: ExportedPEP) -> np.ndarray:
    """Mask of the rows with a function-value part or a constant (they enter (i) or the bound)."""
    return np.array([bool(r[1]) or r[2] != 0 for r in P.rows], dtype=bool)


def _cap(P: ExportedPEP, z: np.ndarray, cap: float = 0.0) -> np.ndarray:
    r"""``z`` with the multipliers of *free* rows (no function values, constant 0, e.g. ``rho^2 <= 0``) capped at
    ``cap`` (default :data:`CAP_FACTOR`) times the largest costly multiplier.  Free rows cost nothing, so an
    interior-point solver drives their multipliers towards infinity when the primal forces ``Gram`` to vanish along
    them (SDPA-GMP: ``5e16``), which would swamp every other multiplier in the rounding and the eigenvalues."""
    cap = cap or CAP_FACTOR
    mask = _costly(P)
    top = float(np.max(np.abs(z[mask]))) if mask.any() else 0.0
    if not math.isfinite(top) or top == 0.0 or mask.all():
        return z
    out = z.copy()
    big = (~mask) & (np.abs(z) > cap * top)
    out[big] = np.sign(z[big]) * cap * top
    return out


def _round(P: ExportedPEP, z: np.ndarray, bits: int = GRID_BITS) -> dict[int, Fraction]:
    """Multipliers on the common dyadic grid ``2^(e - bits)``, ``2^e >=`` the largest costly multiplier (the
    largest overall when no row is costly); inequality ones ``<= 0`` dropped, and those below the grid."""
    mask = _costly(P)
    za = np.abs(z[mask]) if mask.any() else np.abs(z)
    top = float(np.max(za)) if za.size else 0.0
    if not math.isfinite(top) or top == 0.0:
        top = float(np.max(np.abs(z))) if z.size else 0.0
        if not math.isfinite(top) or top == 0.0:
            return {}
    e = math.frexp(top)[1] - bits
    out = {}
    for k, x in enumerate(z):
        if k >= P.n_eq and x <= 0:
            continue
        q = _dyadic(float(x), e)
        if q != 0:
            out[k] = q
    return out


def _face_system(P: ExportedPEP, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The linear equations ``A lambda = b`` of (i) and ``S(lambda) U = 0`` (dense)."""
    import scipy.sparse as sp

    blocks = [P.AF.T.toarray()]
    rhs = [P.cF]
    eye = sp.identity(P.dim, format="csr")
    for j in range(U.shape[1]):
        blocks.append(np.asarray((P.MG @ sp.kron(eye, sp.csr_matrix(U[:, j:j + 1]))).todense()).T)  # (d, m)
        rhs.append(P.C @ U[:, j])
    return np.vstack(blocks), np.concatenate(rhs)


def _face_refine(P: ExportedPEP, z: np.ndarray, A: np.ndarray, b: np.ndarray,
                 keep: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    r"""Least change of ``z`` (float) onto (i) and ``S(lambda) U = 0`` (``A lambda = b``, :func:`_face_system`): the
    dual pushed onto the optimal face whose slack vanishes on ``range(U)`` (``U`` a candidate face, and ``e_i`` for
    the structural zeros).  Weighted by ``|z_k|`` (multipliers change relative to their size; inequality ones that
    would turn negative are fixed at 0 and it repeats; inequality multipliers outside ``keep`` are 0 from the
    start: the *active set*, complementary slackness).  Returns the refined ``z`` and the residual of the
    equations: the slack of the result is ``0`` on ``range(U)`` to float accuracy, which cuts the tight end's
    ``eps`` from the solver's ``1e-8`` to ``1e-16`` when ``U`` is right (:meth:`_Search.tight_ends` tries several)."""
    free = np.arange(P.m) < P.n_eq
    x = z.copy()
    x[(~free) & (x < 0)] = 0.0
    fixed = (~free) & (x <= 1e-12 * max(float(np.abs(x).max()), 1e-300))
    if keep is not None:
        fixed |= (~free) & (~keep)
    x[fixed] = 0.0
    for _ in range(30):
        w = np.where(free, 1.0, np.abs(x))
        w[fixed] = 0.0
        y = np.linalg.lstsq(A * w, b - A @ x, rcond=None)[0]
        xn = x + w * y
        neg = (~free) & (xn < 0)
        if not neg.any():
            x = xn
            break
        fixed |= neg
        x = np.where(neg, 0.0, xn)
    return x, float(np.abs(A @ x - b).max())


def kkt_rank(gram: np.ndarray) -> int | None:
    """The rank ``r`` of a reference Gram matrix when its spectrum has a clear gap (:data:`RANK_GAP`: eigenvalue
    ``r`` above ``RANK_GAP`` times the largest, eigenvalue ``r + 1`` below ``RANK_GAP`` times eigenvalue ``r``;
    ``r`` below the dimension), else ``None``.  An interior-point solution keeps the null directions of the
    optimal face at ``~sqrt(mu)``: a gap of many decades, so the choice does not rest on the solve's last bits."""
    G = np.asarray(gram, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] != G.shape[1] or G.shape[0] < 2 or not np.all(np.isfinite(G)):
        return None
    w = np.linalg.eigvalsh(0.5 * (G + G.T))[::-1]
    top = float(w[0])
    if not top > 0:
        return None
    big = int(np.sum(w > RANK_GAP * top))
    if big >= w.size or not float(w[big]) < RANK_GAP * float(w[big - 1]):
        return None
    return big


def _kkt_newton(P: ExportedPEP, ref: FloatSolve, active: np.ndarray, zeros: Sequence[int] = (),
                iters: int = 10, rank: int | None = None) -> tuple[float, np.ndarray, np.ndarray, np.ndarray] | None:
    r"""Newton (Gauss-Newton, least squares, backtracking) on the KKT system of the PEP from the reference solve:
    unknowns ``Gram`` (full), ``F`` and the multipliers of the ``active`` rows, equations ``row_k(Gram, F) = 0``
    (``k`` active), (i) and ``S(lambda) Gram = 0`` (complementarity).  It converges quadratically where the
    reference is close (``AlmostSolved`` Clarabel on a degenerate PEP: ``1e-6`` off), to residuals ``~1e-16``.

    ``rank`` (no structural ``zeros``): the same system on the rank-``r`` face, ``Gram = V V^T`` with ``V`` of
    ``dim x r`` started from the reference's top ``r`` eigenpairs (:func:`_kkt_newton_lowrank`): ``r dim - r (r -
    1)/2 + nf + |active|`` unknowns (the rank-``r`` face's dimension: the rotations of ``V`` left out) instead of
    ``dim (dim + 1)/2 + nf + |active|`` (local GD ``lr = 1/40``, ``kappa = 5``: 195 instead of 495, one least squares
    ~20x cheaper; Halpern ``N = 20``, rank 21 of 22: 274 instead of 484 with ``V`` whole).  Its point is accepted by
    the same test as the full one.  The full one builds its complementarity block ``S dGram`` in one scatter.

    Returns ``(objective, lambda, Gram, tight rows)`` when the final primal is *feasible to float accuracy* (every
    row ``<= 1e-12``, ``Gram >= -1e-12``, the full system's residual ``<= 1e-12``; with structural ``zeros`` the
    problem is the reduced one, ``Gram_{Z,:}`` free, ``S_{Z,:} = 0``, complementarity and ``Gram >= 0`` on
    ``B x B`` only): its objective is then a lower bound of the PEP value up to ``~1e-12`` whatever the multipliers
    (in a degenerate PEP some may come out negative), and the value itself at a KKT point.  ``None`` otherwise."""
    import scipy.linalg

    if ref.gram is None or ref.F is None or P.dim > NEWTON_MAX_DIM:
        return None
    if rank is not None:
        if zeros or not 1 <= rank < P.dim:
            return None
        got = _kkt_newton_lowrank(P, ref, active, rank, iters=iters)
        if got is None:
            return None
        V, F, lam_a = got
        Gr = V @ V.T
        Gr = 0.5 * (Gr + Gr.T)
        return _kkt_accept(P, active, (), Gr[np.triu_indices(P.dim)], F, lam_a)
    d, nf = P.dim, P.nf
    iu = np.triu_indices(d)
    ng = len(iu[0])
    A_idx = np.flatnonzero(active)
    nA = len(A_idx)
    MG = P.MG.toarray()
    Dm = np.zeros((d * d, ng))  # vec(Gram) (row-major) from its upper triangle
    Dm[iu[0] * d + iu[1], np.arange(ng)] = 1.0
    Dm[iu[1] * d + iu[0], np.arange(ng)] = 1.0
    rowsG = MG @ Dm
    AF = P.AF.toarray()
    MA = MG[A_idx]
    zs = sorted(set(zeros))
    Bi = np.array([i for i in range(d) if i not in set(zs)], dtype=int)
    bb = (Bi[:, None] * d + Bi[None, :]).reshape(-1)  # (a, b) in B x B, row-major
    zrows = np.array([i * d + j for i in zs for j in range(d)], dtype=int)  # S_{Z,:}
    resid = _kkt_residual(P, A_idx, zs, MA, rowsG, AF)

    g, F, lam = ref.gram[iu].copy(), ref.F.copy(), np.asarray(ref.z, dtype=float)[A_idx].copy()
    res, G, S = resid(g, F, lam)
    J1 = np.hstack([rowsG[A_idx], AF[A_idx], np.zeros((nA, nA))])
    J2 = np.hstack([np.zeros((nf, ng + nf)), AF[A_idx].T])
    # S dGram: column j = (c, e) holds S[:, c] at rows (a, e) and, c != e, S[:, e] at rows (a, c) (distinct rows)
    ce_off = iu[0] != iu[1]
    k1_rows_e = np.arange(d)[:, None] * d + iu[1][None, :]
    k1_rows_c = (np.arange(d)[:, None] * d + iu[0][None, :])[:, ce_off]
    k1_cols = np.broadcast_to(np.arange(ng), (d, ng))
    k1_cols_off = k1_cols[:, ce_off]
    for it in range(iters):
        err = float(np.abs(res).max()) if np.all(np.isfinite(res)) else math.inf
        if err < 1e-15 or (it >= 5 and err > 1e-9) or not math.isfinite(err):
            break  # converged, or not converging quadratically from this start: give up early
        Sz = S.copy()
        Sz[zs, :] = 0.0
        Sz[:, zs] = 0.0
        K1 = np.zeros((d * d, ng))  # one scatter, no loop per column; ``0.0 + x``: the sum the zeros held
        K1[k1_rows_e, k1_cols] = 0.0 + Sz[:, iu[0]]
        K1[k1_rows_c, k1_cols_off] = 0.0 + Sz[:, iu[1][ce_off]]
        Gz = G.copy()
        Gz[zs, :] = 0.0
        Gz[:, zs] = 0.0
        K2 = (MA.reshape(nA, d, d) @ Gz).reshape(nA, d * d).T  # dS Gram
        J = np.vstack([J1, J2, np.hstack([K1[bb], np.zeros((len(bb), nf)), K2[bb]]),
                       np.hstack([np.zeros((len(zrows), ng + nf)), MA[:, zrows].T])])
        # a complete orthogonal factorization (gelsy) with numpy's rank cutoff: half the SVD's (gelsd) time at ~750 x
        # 525 (GD N = 20 at mu = L (1 - 1e-6), in the a-priori units: 45 -> 22 ms per step)
        step = scipy.linalg.lstsq(J, -res, cond=np.finfo(float).eps * max(J.shape), lapack_driver="gelsy",
                                  check_finite=False)[0]
        a, n0 = 1.0, float(np.linalg.norm(res))
        while a > 1e-4:
            g2, F2, l2 = g + a * step[:ng], F + a * step[ng:ng + nf], lam + a * step[ng + nf:]
            r2, G2, S2 = resid(g2, F2, l2)
            if np.all(np.isfinite(r2)) and float(np.linalg.norm(r2)) < n0:
                break
            a /= 2
        else:
            break
        g, F, lam, res, G, S = g2, F2, l2, r2, G2, S2
    return _kkt_accept(P, active, zs, g, F, lam, resid=resid, rowsG=rowsG, AF=AF)


def _kkt_residual(P: ExportedPEP, A_idx: np.ndarray, zs: Sequence[int], MA: np.ndarray, rowsG: np.ndarray,
                  AF: np.ndarray) -> Any:
    """The KKT residual of :func:`_kkt_newton` as a function ``(g, F, lambda_active) -> (residual, Gram, S)``:
    the active rows, (i) and ``S_{B,B} Gram_{B,B}``, ``S_{Z,:}`` (``g`` the upper triangle of ``Gram``)."""
    d = P.dim
    iu = np.triu_indices(d)
    Bi = np.array([i for i in range(d) if i not in set(zs)], dtype=int)
    zrows = np.array([i * d + j for i in zs for j in range(d)], dtype=int)
    rA, AFa, AFt, ca = rowsG[A_idx], AF[A_idx], AF[A_idx].T, P.c[A_idx]

    def resid(g: np.ndarray, F: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        G = np.zeros((d, d))
        G[iu] = g
        G = G + G.T - np.diag(np.diag(G))
        S = (MA.T @ lam).reshape(d, d) - P.C
        return np.concatenate([rA @ g + AFa @ F + ca, AFt @ lam - P.cF,
                               (S[np.ix_(Bi, Bi)] @ G[np.ix_(Bi, Bi)]).reshape(-1), S.reshape(-1)[zrows]]), G, S

    return resid


def _kkt_accept(P: ExportedPEP, active: np.ndarray, zs: Sequence[int], g: np.ndarray, F: np.ndarray,
                lam: np.ndarray, *, resid: Any = None, rowsG: np.ndarray | None = None, AF: np.ndarray | None = None
                ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_kkt_newton`'s acceptance of a point ``(g, F, lambda_active)`` (``g`` the upper triangle of
    ``Gram``): the full KKT residual ``<= 1e-12``, every row ``<= 1e-12`` (relative to ``max(1, |c|)``), ``Gram_{B,B}
    >= -1e-12`` (relative); returns its ``(objective, lambda, Gram, tight rows)``, else ``None``."""
    d = P.dim
    iu = np.triu_indices(d)
    A_idx = np.flatnonzero(active)
    zs = sorted(set(zs))
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(F)) and np.all(np.isfinite(lam))):
        return None
    if rowsG is None or AF is None or resid is None:
        # the same residual and rows from the sparse data (<M_k, Gram> with the full Gram; no dense copies)
        G = np.zeros((d, d))
        G[iu] = g
        G = G + G.T - np.diag(np.diag(G))
        Bs = np.array([i for i in range(d) if i not in set(zs)], dtype=int)
        zrows = np.array([i * d + j for i in zs for j in range(d)], dtype=int)
        rows = np.asarray(P.MG @ G.reshape(-1)).ravel() + np.asarray(P.AF @ F).ravel() + P.c
        S = np.asarray(P.MG[A_idx].T @ lam).reshape(d, d) - P.C
        res = np.concatenate([rows[A_idx], np.asarray(P.AF[A_idx].T @ lam).ravel() - P.cF,
                              (S[np.ix_(Bs, Bs)] @ G[np.ix_(Bs, Bs)]).reshape(-1), S.reshape(-1)[zrows]])
    else:
        res, G, _ = resid(g, F, lam)
        rows = rowsG @ g + AF @ F + P.c
    if not np.all(np.isfinite(res)) or float(np.abs(res).max(initial=0.0)) > 1e-12:
        return None
    Bi = np.array([i for i in range(d) if i not in set(zs)], dtype=int)
    rscale = max(1.0, float(np.max(np.abs(P.c), initial=0.0)))
    viol = max(float(np.max(rows[P.n_eq:], initial=-math.inf)), float(np.max(np.abs(rows[: P.n_eq]), initial=0.0)))
    GB = G[np.ix_(Bi, Bi)]
    if viol > 1e-12 * rscale or (Bi.size and float(np.linalg.eigvalsh(GB)[0]) < -1e-12 * max(1.0, float(np.abs(GB).max()))):
        return None
    full = np.zeros(P.m)
    full[A_idx] = lam
    return float(np.sum(P.C * G) + P.cF @ F) + float(P.c0), full, G, rows >= -1e-9 * rscale


def _kkt_newton_lowrank(P: ExportedPEP, ref: FloatSolve, active: np.ndarray, rank: int, iters: int = 10
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    r"""Gauss-Newton on the KKT system of :func:`_kkt_newton` restricted to ``Gram = V V^T``, ``V`` of ``dim x
    rank``: unknowns ``V``, ``F``, ``lambda_active``; equations ``<M_k, V V^T> + a_k . F + c_k = 0`` (``k`` active),
    (i) and ``S(lambda) V = 0`` (``S`` symmetrised; with ``V`` of full column rank the same as ``S Gram = 0``).

    The step of ``V`` is sought as ``dV = V A + W B`` (``A`` symmetric ``r x r``, ``W`` an orthonormal basis of
    ``range(V)^perp``, ``B`` of ``(dim - r) x r``; :func:`_lowrank_step`): the rotations ``V -> V (I + K)``, ``K``
    skew, leave ``Gram`` unchanged and are the only directions left out (``V A + W B = V K`` forces ``B = 0``,
    ``A = K``): ``r dim - r (r - 1)/2`` unknowns of ``V``, the dimension of the rank-``r`` face, instead of ``r
    dim``, and as many complementarity equations (the rotated ``S V = 0`` less the antisymmetric part of ``V^T S
    V``, which vanishes with the rest): Halpern ``N = 20``, rank 21 of 22: a square system of 274 instead of 484 x
    484.  Least squares with singular values below :data:`LOWRANK_RCOND` times the largest dropped (the free
    directions of a degenerate dual).  Start: ``V = U_r diag(sqrt(w_r))`` from the
    reference's top ``rank`` eigenpairs, ``F`` and ``lambda`` the reference's.  Returns the last ``(V, F,
    lambda_active)`` (checked by the caller, :func:`_kkt_accept`), ``None`` on non-finite iterates."""
    d, nf = P.dim, P.nf
    A_idx = np.flatnonzero(active)
    nA = A_idx.size
    M = P.MG.tocsr()[A_idx].toarray().reshape(nA, d, d)
    M = 0.5 * (M + M.transpose(0, 2, 1))
    Mflat = M.reshape(nA, d * d)
    C = 0.5 * (P.C + P.C.T)
    AFa = P.AF.tocsr()[A_idx].toarray()
    ca = P.c[A_idx]
    G0 = np.asarray(ref.gram, dtype=np.float64)
    w, U = np.linalg.eigh(0.5 * (G0 + G0.T))
    V = U[:, -rank:] * np.sqrt(np.maximum(w[-rank:], 0.0))
    F = np.asarray(ref.F, dtype=np.float64).copy()
    lam = np.asarray(ref.z, dtype=np.float64)[A_idx].copy()

    def resid(V: np.ndarray, F: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        S = (lam @ Mflat).reshape(d, d) - C
        return np.concatenate([Mflat @ (V @ V.T).reshape(-1) + AFa @ F + ca, AFa.T @ lam - P.cF,
                               (S @ V).reshape(-1)]), S

    res, S = resid(V, F, lam)
    step_of = _lowrank_step(M, AFa, d, nf, rank)
    for it in range(iters):
        err = float(np.abs(res).max()) if np.all(np.isfinite(res)) else math.inf
        if err < 1e-15 or (it >= 6 and err > 1e-9) or not math.isfinite(err):
            break  # converged, or not converging quadratically from this start: give up early
        V, dV, dF, dl = step_of(V, S, res)  # V rotated (the same Gram, the same residual norm)
        a, n0 = 1.0, float(np.linalg.norm(res))
        while a > 1e-4:
            V2, F2, l2 = V + a * dV, F + a * dF, lam + a * dl
            r2, S2 = resid(V2, F2, l2)
            if np.all(np.isfinite(r2)) and float(np.linalg.norm(r2)) < n0:
                break
            a /= 2
        else:
            break
        V, F, lam, res, S = V2, F2, l2, r2, S2
    if not (np.all(np.isfinite(V)) and np.all(np.isfinite(F)) and np.all(np.isfinite(lam))):
        return None
    return V, F, lam


def _lowrank_step(M: np.ndarray, AFa: np.ndarray, d: int, nf: int, rank: int) -> Any:
    r"""The Gauss-Newton step of :func:`_kkt_newton_lowrank` as a function ``(V, S, residual) -> (V', dV, dF,
    dlambda)``, ``M`` the active rows' symmetric ``M_k`` (``nA x d x d``), ``AFa`` their ``a_k``; ``V' = V Q``
    (``Q`` orthogonal: the same ``Gram``) the point the step starts from.

    ``V = U_r diag(sigma) Q^T`` (SVD, ``U = [U_r W]`` complete), ``V' = U_r diag(sigma)``: orthogonal columns.
    Unknowns ``(A, B, dF, dlambda)`` with ``dV = V' A + W B`` (``A`` symmetric, its upper triangle).  Equations: the
    active rows ``2 <V'^T M_k V', A> + 2 <W^T M_k V', B> + a_k . dF``, (i) ``sum_k dlambda_k a_k``, and the
    complementarity ``E = S V'`` linearised (``(S V') A + (S W) B + dS V'``) and rotated by ``U^T`` (orthogonal: the
    least squares unchanged): ``W^T E`` (``(dim - r) r`` rows) and the symmetric part of ``U_r^T E = K diag(sigma)``,
    ``K = U_r^T S U_r`` (``r (r + 1)/2`` rows, ``(X_ij + X_ji)/sqrt 2`` off the diagonal).  Its antisymmetric part,
    ``K_ij (sigma_j - sigma_i)/2``, vanishes with the symmetric one ``K_ij (sigma_i + sigma_j)/2`` and is left out:
    a square system of ``r dim - r (r - 1)/2 + nf + nA`` equations and unknowns instead of ``r dim + nf + nA`` rows.
    The dropped rows' linearisation is ``O(|K| |step|)``, second order: the step still converges quadratically (at
    the new point ``K = O(residual^2)`` follows from ``sym(K diag(sigma)) = O(residual^2)``).  The minimum-norm
    least-squares step on the numerical range (pivoted QR, LAPACK ``gelsy``, relative cutoff
    :data:`LOWRANK_RCOND`: a degenerate dual's free directions)."""
    import scipy.linalg

    r = rank
    nA = M.shape[0]
    nV = d * r
    iu, ju = np.triu_indices(r)
    nS, nB = iu.size, (d - r) * r
    p = nS + nB
    n = p + nf + nA
    off = iu != ju
    wgt = np.where(off, 4.0, 2.0)  # d/dA_ij <V^T M_k V, A> = 2 (V^T M_k V)_ij off the diagonal; times 2 (V V^T)
    sym = np.where(off, 1.0 / math.sqrt(2.0), 0.5)  # (X_ij + X_ji)/sqrt 2 off the diagonal, X_ii on it
    rows_j = np.arange(d)[:, None] * r + ju[None, :]  # (S V A)_{a, j} gets (S V)_{a, i} A_ij
    rows_i = (np.arange(d)[:, None] * r + iu[None, :])[:, off]  # and (S V)_{a, i} gets (S V)_{a, j} A_ji
    cols = np.broadcast_to(np.arange(nS), (d, nS))
    cols_off = cols[:, off]
    J = np.zeros((nA + nf + p, n))
    J[:nA, p:p + nf] = AFa
    J[nA:nA + nf, p + nf:] = AFa.T
    Ir = np.eye(r)

    def step(V: np.ndarray, S: np.ndarray, res: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        U, _, Qt = np.linalg.svd(V, full_matrices=True)
        V = V @ Qt.T  # U_r diag(sigma)
        W = U[:, r:]
        MV = M @ V  # nA x d x r
        T = np.swapaxes(MV, 1, 2) @ V  # V^T M_k V (symmetric)
        J[:nA, :nS] = T[:, iu, ju] * wgt
        J[:nA, nS:p] = 2.0 * (W.T @ MV).reshape(nA, nB)
        SV = S @ V
        JC = np.zeros((nV, n))  # the complementarity rows (a, j) of S V, row-major, before the rotation
        JC[rows_j, cols] = SV[:, iu]
        JC[rows_i, cols_off] = SV[:, ju[off]]  # other rows than the line above's (i != j)
        JC[:, nS:p] = np.kron(S @ W, Ir)
        JC[:, p + nf:] = MV.reshape(nA, nV).T
        TC = (U.T @ JC.reshape(d, r * n)).reshape(d, r, n)
        E = U.T @ SV
        J[nA + nf:nA + nf + nS] = (TC[iu, ju] + TC[ju, iu]) * sym[:, None]
        J[nA + nf + nS:] = TC[r:].reshape(nB, n)
        rhs = np.concatenate([res[:nA + nf], (E[iu, ju] + E[ju, iu]) * sym, E[r:].reshape(-1)])
        x = scipy.linalg.lstsq(J, -rhs, cond=LOWRANK_RCOND, lapack_driver="gelsy", check_finite=False)[0]
        Asym = np.zeros((r, r))
        Asym[iu, ju] = x[:nS]
        Asym[ju, iu] = x[:nS]
        return V, V @ Asym + W @ x[nS:p].reshape(d - r, r), x[p:p + nf], x[p + nf:]

    return step


def kkt_newton_grown(P: ExportedPEP, ref: FloatSolve, active: np.ndarray, rank: int, rounds: int = GROW_ROUNDS
                     ) -> tuple[tuple[float, np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None:
    """The rank-``rank`` KKT Newton of :func:`_kkt_newton` with its active set grown: where it converges (the KKT
    residual ``<= 1e-12``) to a point that violates rows outside ``active`` (by more than ``1e-12`` relative), those
    rows join the active set and the Newton runs again from the reference, up to ``rounds`` times (an active-set
    step: local GD ``lr = 1/40``, ``kappa = 2``, ``T_N = 3``: the 68 clearly active rows leave 28 violated by
    ``~1e-5``; with them, 96 rows, a feasible KKT point).  Returns ``(the accepted point, its active set)`` -
    :func:`_kkt_newton`'s acceptance, unchanged - or ``None``."""
    if ref.gram is None or ref.F is None or P.dim > NEWTON_MAX_DIM or not 1 <= rank < P.dim:
        return None
    act = np.asarray(active, dtype=bool).copy()
    rscale = max(1.0, float(np.max(np.abs(P.c), initial=0.0)))
    ineq = np.arange(P.m) >= P.n_eq
    for _ in range(rounds + 1):
        got = _kkt_newton_lowrank(P, ref, act, rank)
        if got is None:
            return None
        V, F, lam_a = got
        Gr = V @ V.T
        Gr = 0.5 * (Gr + Gr.T)
        acc = _kkt_accept(P, act, (), Gr[np.triu_indices(P.dim)], F, lam_a)
        if acc is not None:
            return acc, act
        rows = np.asarray(P.MG @ Gr.reshape(-1)).ravel() + np.asarray(P.AF @ F).ravel() + P.c
        S = np.asarray(P.MG[np.flatnonzero(act)].T @ lam_a).reshape(P.dim, P.dim) - P.C
        res = np.concatenate([rows[act], np.asarray(P.AF[np.flatnonzero(act)].T @ lam_a).ravel() - P.cF,
                              (S @ Gr).reshape(-1)])
        new = ineq & ~act & (rows > 1e-12 * rscale)
        if not np.all(np.isfinite(res)) or float(np.abs(res).max(initial=0.0)) > 1e-12 or not new.any():
            return None
        act = act | new
    return None


def _null_ranks(w: np.ndarray, top: float, limit: int = 3) -> list[int]:
    """Candidate dimensions ``r`` of the slack's near-null space from its ascending eigenvalues ``w``: the
    positions of the ``limit`` largest spectral gaps among eigenvalues below ``1e-5 top``."""
    small = int(np.sum(w < 1e-5 * top))
    gaps = []
    for r in range(1, min(small, len(w) - 1) + 1):
        lo = max(abs(float(w[r - 1])), 1e-16 * top)
        gaps.append((float(w[r]) / lo, r))
    if small == len(w) and small:
        gaps.append((math.inf, small))
    return [r for _, r in sorted(gaps, reverse=True)[:limit]]


def linear_conditions(rows: Sequence[Row], objective: Row, support: Sequence[int], zeros: Sequence[int]
                      ) -> tuple[list[dict[int, Fraction]], list[Fraction]]:
    r"""The linear conditions on the multipliers ``lambda_k``, ``k`` in ``support``, as sparse equations
    ``sum_k e[k] lambda_k = r``: (i) one per function value (``sum_k lambda_k a_k = c``) and one per Gram entry
    ``(i, j)`` with ``i`` or ``j`` in ``zeros`` (``S_{Z,:} = 0``, i.e. ``sum_k lambda_k (A_k)_ij = C_ij``)."""
    CG, cF, _ = objective
    zset = set(zeros)
    eqF: dict[int, dict[int, Fraction]] = {}
    eqG: dict[tuple[int, int], dict[int, Fraction]] = {}
    for k in support:
        G, F, _ = rows[k]
        for key, v in F.items():
            eqF.setdefault(key, {})[k] = v
        if zset:
            for (a, b), v in G.items():
                if a in zset or b in zset:
                    eqG.setdefault((a, b), {})[k] = v
    eqs: list[dict[int, Fraction]] = []
    rhs: list[Fraction] = []
    for key in sorted(set(eqF) | set(cF)):
        eqs.append(eqF.get(key, {}))
        rhs.append(cF.get(key, Fraction(0)))
    for key in CG:
        if (key[0] in zset or key[1] in zset) and key not in eqG:
            eqG[key] = {}
    for key in sorted(eqG):
        eqs.append(eqG[key])
        rhs.append(CG.get(key, Fraction(0)))
    return eqs, rhs


def _project(P: ExportedPEP, lam0: Mapping[int, Fraction], zeros: Sequence[int]) -> list[Fraction] | None:
    r"""Exact multipliers near ``lam0`` (same support) with (i) and ``S_{Z,:} = 0``: the residual is removed by
    exact Gaussian elimination (:func:`~fairtheory.proofs.exact_linalg.solve_sparse`) on pivot multipliers,
    equalities first, then the largest (bounded fill-in: only a few more columns than equations)."""
    support = sorted(lam0)
    eqs, rhs = linear_conditions(P.rows, P.objective, support, zeros)
    res = [r - sum((v * lam0[k] for k, v in e.items()), Fraction(0)) for e, r in zip(eqs, rhs, strict=True)]
    lam = [Fraction(0)] * P.m
    for k in support:
        lam[k] = lam0[k]
    if all(r == 0 for r in res):
        return lam
    order = sorted(support, key=lambda k: (k >= P.n_eq, -abs(lam0[k]), k))
    corr = None
    for cols in (order[: 2 * len(eqs) + 8], order):
        corr = solve_sparse(eqs, res, cols)
        if corr is not None:
            break
    if corr is None:
        return None
    for k, v in corr.items():
        lam[k] += v
    return lam


def _slack_exact(P: ExportedPEP, lam: Sequence[Fraction]) -> dict[tuple[int, int], Fraction]:
    """Exact ``S(lambda)`` (upper-triangle entries, zeros dropped)."""
    S: dict[tuple[int, int], Fraction] = {}
    for x, (G, _, _) in zip(lam, P.rows, strict=True):
        if x == 0:
            continue
        for key, v in G.items():
            S[key] = S.get(key, Fraction(0)) + x * v
    for key, v in P.objective[0].items():
        S[key] = S.get(key, Fraction(0)) - v
    return {key: v for key, v in S.items() if v != 0}


def _bound(P: ExportedPEP, lam: Sequence[Fraction]) -> Fraction:
    return P.objective[2] - sum((x * r[2] for x, r in zip(lam, P.rows, strict=True) if x != 0), Fraction(0))


def _restricted(S: Mapping[tuple[int, int], Fraction], B: Sequence[int]) -> tuple[dict[tuple[int, int], Fraction], bool]:
    """``S_BB`` re-indexed ``0..|B|-1``, and whether every entry outside ``B x B`` is zero."""
    pos = {i: j for j, i in enumerate(B)}
    out = {}
    for (a, b), v in S.items():
        if a in pos and b in pos:
            out[(pos[a], pos[b])] = v
        elif v != 0:
            return out, False
    return out, True


def _psd_exact(S: Mapping[tuple[int, int], Fraction], B: Sequence[int]) -> bool:
    """``S >= 0`` exactly, given that ``S`` lives on ``B x B`` (checked; else ``False``)."""
    SB, inside = _restricted(S, B)
    return inside and is_psd(SB, len(B))


def _lmin(S: np.ndarray, B: Sequence[int]) -> float:
    if not B:
        return 0.0
    idx = np.asarray(B)
    return float(np.linalg.eigvalsh(S[np.ix_(idx, idx)])[0])


# ----------------------------------------------------------------------------------------------- the search
@dataclass
class _End:
    """One end of the segment: exact multipliers, slack, bound and float smallest eigenvalue on ``B``."""

    lam: list[Fraction]
    S: dict[tuple[int, int], Fraction]
    bound: Fraction
    lmin: float
    tag: str
    smax: float = 1.0  #: max(1, max |S_ab|) in floats: the scale of the eigenvalue rounding


class _Search:
    """State of one :func:`find_multipliers` call: the data, the value compared with, timings and attempts."""

    def __init__(self, data: Mapping[str, Any], value: float | None, rtol: float, abs_floor: float,
                 deadline_s: float, unit: float = 0.0) -> None:
        self.P = exported_pep(data, "find_multipliers")
        self.user_value = value
        self.rtol, self.abs_floor, self.unit = rtol, abs_floor, unit
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + deadline_s
        self.tried: list[str] = []
        self.timing = {"solve_s": 0.0, "search_s": 0.0, "check_s": 0.0}
        self.value = math.nan
        self.cand: list[int] = []
        self.newton_lam: np.ndarray | None = None
        self.newton_face: tuple[np.ndarray, np.ndarray] | None = None
        self.zs: list[int] = []

    # -- bookkeeping
    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def out_of_time(self) -> bool:
        return self.left() <= 0

    def ref_scale(self) -> float:
        return max(abs(self.value), self.abs_floor)

    def within(self, bound: Fraction) -> bool:
        """``|bound - value| <= rtol max(|value|, unit, abs_floor)``: relative to the problem's scale (``unit``), so a
        value of 0 computed as ``1e-10`` accepts the exact bound 0."""
        return abs(float(bound) - self.value) <= self.rtol * max(self.ref_scale(), self.unit)

    def end(self, lam0: Mapping[int, Fraction], zeros: Sequence[int], B: Sequence[int], tag: str) -> _End | None:
        t = time.perf_counter()
        lam = _project(self.P, lam0, zeros)
        if lam is None:
            self.tried.append(f"{tag}: projection onto (i), S_Z = 0 inconsistent")
            self.timing["search_s"] += time.perf_counter() - t
            return None
        S = _slack_exact(self.P, lam)
        Sf = self.P.slack(lam)
        lmin = _lmin(Sf, B)
        self.timing["search_s"] += time.perf_counter() - t
        return _End(lam, S, _bound(self.P, lam), lmin, tag, max(1.0, float(np.abs(Sf).max())))

    def exact_ok(self, lam: Sequence[Fraction], S: Mapping[tuple[int, int], Fraction], B: Sequence[int]) -> bool:
        t = time.perf_counter()
        ok = all(x >= 0 for x in lam[self.P.n_eq:]) and _psd_exact(S, B)
        self.timing["check_s"] += time.perf_counter() - t
        return ok

    # -- structural zeros
    def zero_options(self, ref: FloatSolve) -> Iterator[tuple[list[int], FloatSolve | None]]:
        """Candidate structural zeros ``Z``, each with a bounded back-off solve (``None``: unbounded / failed): ``{}``
        first, then the indices where the reference slack's diagonal vanishes (relative ``1e-7``)."""
        P = self.P
        S = P.slack(_cap(P, ref.z))
        top = max(1.0, float(np.abs(S).max()))
        cand = [i for i in range(P.dim) if S[i, i] <= 1e-7 * top]
        self.cand = cand
        yielded = False
        for zs in ([], cand) if cand else ([],):
            d = self.delta(ref, BACKOFF_FACTORS[0])
            t = time.perf_counter()
            s = solvers.solve_clarabel(P, delta=d, zeros=zs, tol=1e-9)
            self.timing["solve_s"] += time.perf_counter() - t
            if s.ok:
                yielded = True
                yield list(zs), s
            else:
                self.tried.append(f"back-off(delta={d:.3g}, zeros={zs}): clarabel {s.status}")
        if not yielded:  # no bounded back-off at the first level: let the other levels try
            yield list(cand), None

    def delta(self, ref: FloatSolve, factor: float) -> float:
        """``factor max(|value|, abs_floor) / tr(Gram*)``, the trace outside the zero-diagonal candidates (along a
        structural zero the reference Gram may be huge: the primal is unbounded there)."""
        zs = set(self.cand)
        tr = 0.0 if ref.gram is None else float(sum(ref.gram[i, i] for i in range(self.P.dim) if i not in zs))
        if not math.isfinite(tr) or tr <= 1e-12 * self.ref_scale():
            tr = float(self.P.dim)
        return factor * self.ref_scale() / tr

    # -- the route for one reference
    def tight_ends(self, ref: FloatSolve, zs: Sequence[int], B: Sequence[int]) -> list[_End]:
        r"""Tight ends: the reference duals rounded and projected (``plain``); pushed first onto candidate optimal
        faces (near-null spaces of the slack, :func:`_null_ranks`) with candidate active sets (multipliers above
        ``tau`` times the largest, :data:`ACTIVE_TAUS`), :func:`_face_refine`; and the KKT Newton multipliers
        (:meth:`polish_value`) when they came out non-negative."""
        P = self.P
        z = _cap(P, ref.z)
        floats: list[tuple[np.ndarray, str]] = [(z, f"tight({ref.how})")]
        if self.newton_lam is not None:
            floats.append((self.newton_lam, f"tight({ref.how}, kkt-newton)"))
        t = time.perf_counter()
        S = P.slack(z)
        idx = np.asarray(B, dtype=int)
        w, V = np.linalg.eigh(S[np.ix_(idx, idx)]) if len(B) else (np.zeros(0), np.zeros((0, 0)))
        top = max(float(np.abs(S).max()), 1e-300)
        mask = _costly(P)
        ztop = max(float(np.max(z[mask] if mask.any() else z, initial=0.0)), 1e-300)
        seen: set[tuple[int, ...]] = set()
        faces: list[tuple[str, np.ndarray, list[np.ndarray]]] = []
        if self.newton_face is not None:
            # the KKT Newton primal: its range is the optimal face, its tight rows the active set (complementarity)
            G, act = self.newton_face
            gw, gV = np.linalg.eigh(G[np.ix_(idx, idx)])
            big = gw > 1e-9 * max(float(gw[-1]) if gw.size else 0.0, 1e-300)
            faces.append(("kkt face", gV[:, big], [act & (z > 0), act]))
        for r in _null_ranks(w, top):
            faces.append((f"face r={r}", V[:, :r], [z > tau * ztop for tau in ACTIVE_TAUS]))
        for name, Vb, keeps in faces:
            r = Vb.shape[1]
            U = np.zeros((P.dim, r + len(zs)))
            U[idx, :r] = Vb
            for j, i in enumerate(zs):
                U[i, r + j] = 1.0
            A, b = _face_system(P, U)
            for n, keep in enumerate(keeps):
                tag = f"tight({ref.how}, {name}, active set {n})"
                x, res = _face_refine(P, z, A, b, keep)
                if not res <= 1e-9 * max(1.0, top):
                    self.tried.append(f"{tag}: refinement residual {res:.1e}")
                    continue
                key = tuple(np.flatnonzero(x).tolist())
                if key in seen:
                    continue
                seen.add(key)
                lmin = _lmin(P.slack(x), B)
                if lmin < -1e-8 * top:
                    self.tried.append(f"{tag}: slack lambda_min {lmin:.1e} (wrong face)")
                    continue
                floats.append((x, tag))
        self.timing["search_s"] += time.perf_counter() - t
        return [e for x, tag in floats if (e := self.end(_round(P, x), zs, B, tag)) is not None]

    def polish_value(self, ref: FloatSolve) -> tuple[float, str] | None:
        """A more accurate value than an ``AlmostSolved`` float solver's: the objective of a float-feasible KKT Newton
        point (:func:`_kkt_newton`, the primal active sets of :data:`PRIMAL_TAUS` in turn, the first that converges).
        Its range and tight rows seed the best tight end (:meth:`tight_ends`), its multipliers another when they are
        ``>= 0`` (in a degenerate PEP they need not be: the primal point is still feasible, its value still right)."""
        P = self.P
        if ref.gram is None or ref.F is None:
            return None
        t = time.perf_counter()
        rows0 = np.asarray(P.MG @ ref.gram.reshape(-1)).ravel() + P.AF @ ref.F + P.c
        rscale = max(1.0, float(np.max(np.abs(P.c), initial=0.0)))
        ineq = np.arange(P.m) >= P.n_eq
        out = None
        for tau in PRIMAL_TAUS:
            if self.out_of_time():
                break
            act = rows0 >= -tau * rscale
            act[: P.n_eq] = True
            got = _kkt_newton(P, ref, act, self.zs)
            tag = f"kkt-newton(tau={tau:g})"
            if got is None:
                self.tried.append(f"{tag}: no feasible KKT point")
                continue
            obj, lam, G, tight = got
            if abs(obj - ref.value) > 1e-4 * max(abs(ref.value), self.abs_floor):
                self.tried.append(f"{tag}: feasible point {obj:.12g} far from {ref.value:.12g}")
                continue
            out = (obj, tag)
            self.newton_face = (G, tight)
            if np.all(lam[ineq] >= -1e-12 * max(1.0, float(np.abs(lam).max()))):
                self.newton_lam = np.where(ineq & (lam < 0), 0.0, lam)
            break
        self.timing["solve_s"] += time.perf_counter() - t
        return out

    def interior(self, ref: FloatSolve, zs: Sequence[int], B: Sequence[int], first: FloatSolve | None,
                 skip: int = 0) -> tuple[_End, float, int] | None:
        """The back-off end with a float margin, trying the levels of :data:`BACKOFF_FACTORS` from ``skip`` on."""
        P = self.P
        for i, factor in enumerate(BACKOFF_FACTORS):
            if i < skip:
                continue
            if self.out_of_time():
                self.tried.append("deadline reached")
                return None
            d = self.delta(ref, factor)
            if i == 0 and first is not None:
                s = first
            else:
                t = time.perf_counter()
                s = solvers.solve_clarabel(P, delta=d, zeros=zs, tol=1e-9)
                self.timing["solve_s"] += time.perf_counter() - t
            tag = f"interior(delta={d:.3g})"
            if not s.ok:
                self.tried.append(f"{tag}: clarabel {s.status}")
                continue
            inner = self.end(_round(P, _cap(P, s.z)), zs, B, tag)
            if inner is None:
                continue
            if inner.lmin <= 0:
                self.tried.append(f"{tag}: no margin (float lambda_min {inner.lmin:.2e})")
                continue
            return inner, d, i
        return None

    def run(self, ref: FloatSolve) -> tuple[list[Fraction], Fraction, str, dict[str, Any]] | None:
        """The whole route for one reference solve, for each candidate ``Z`` in turn (:meth:`zero_options`)."""
        self.value = ref.value
        for zs, first in self.zero_options(ref):
            if self.out_of_time():
                self.tried.append("deadline reached")
                return None
            got = self.run_zeros(ref, zs, first)
            if got is not None:
                return got
        return None

    def run_zeros(self, ref: FloatSolve, zs: list[int], first: FloatSolve | None
                  ) -> tuple[list[Fraction], Fraction, str, dict[str, Any]] | None:
        P = self.P
        self.value = ref.value
        self.newton_lam, self.newton_face = None, None
        self.zs = zs
        B = [i for i in range(P.dim) if i not in set(zs)]
        if zs and ref.how == "clarabel":
            # the reduced PEP (Gram_{Z,:} free) is well posed where the full one has a ray: re-solve it for the duals
            t = time.perf_counter()
            red = solvers.solve_clarabel(P, zeros=zs, tol=1e-10)
            self.timing["solve_s"] += time.perf_counter() - t
            if red.ok:
                red.how = "clarabel-reduced"
                ref = red
            else:
                self.tried.append(f"reduced reference (zeros={zs}): clarabel {red.status}")
        info: dict[str, Any] = {"reference": ref.how, "structural_zeros": zs, "value_from": ref.how,
                                "reference_value": ref.value}
        if ref.how != "sdpa-gmp" and self.user_value is not None:
            self.value = float(self.user_value)
            info["value_from"] = "caller"
        pv = self.polish_value(ref)  # for SDPA-GMP only its face and multipliers are used: its value is better
        if pv is not None and ref.how != "sdpa-gmp":
            self.value, info["value_from"] = pv
        tights = self.tight_ends(ref, zs, B)
        if not tights:
            return None
        # the cheap attempt: a tight end alone (t = 0) when its float slack is PSD to rounding; the lowest bound first
        tights.sort(key=lambda e: e.bound)
        low = tights[0].bound
        cheap: tuple[list[Fraction], Fraction, str, dict[str, Any]] | None = None
        for e in tights:
            if e.lmin >= -1e-13 * e.smax:
                if self.exact_ok(e.lam, e.S, B):
                    if self.within(e.bound):
                        cheap = (e.lam, e.bound, e.tag, info | {"t": 0, "tight_lmin": e.lmin})
                        break
                    self.tried.append(f"{e.tag}: PSD but bound {float(e.bound):.12g} not within {self.rtol:g} "
                                      f"of {self.value:.12g}")
                else:
                    self.tried.append(f"{e.tag}: slack not PSD (float lambda_min {e.lmin:.2e})")
        if cheap is not None and float(cheap[1] - low) <= 1e-3 * self.rtol * self.ref_scale():
            return cheap
        skip = 0
        while skip < len(BACKOFF_FACTORS):
            got_int = self.interior(ref, zs, B, first, skip)
            if got_int is None:
                return cheap
            inner, d, i = got_int
            skip = i + 1

            def predicted(e: _End, m: float = inner.lmin, bi: Fraction = inner.bound) -> float:
                eps = max(-e.lmin, 1e-14 * e.smax)
                return float(e.bound) + 2 * eps / (eps + m) * (float(bi) - float(e.bound))

            for e in sorted(tights, key=predicted):
                if cheap is not None and predicted(e) >= float(cheap[1]):
                    return cheap
                got = self.combine(e, inner, B)
                if got is None:
                    continue
                lam, bound, t = got
                route = f"combination({e.tag}, t={_tstr(t)}, delta={d:.3g})"
                if cheap is not None and bound >= cheap[1]:
                    return cheap
                if self.within(bound):
                    return lam, bound, route, info | {"t": t, "margin": inner.lmin, "delta": d, "tight_lmin": e.lmin,
                                                      "bound_tight": float(e.bound), "bound_interior": float(inner.bound)}
                self.tried.append(f"{route}: bound {float(bound):.12g} not within {self.rtol:g} of {self.value:.12g}")
            if cheap is not None:
                return cheap
        return cheap

    def combine(self, tight: _End, inner: _End, B: Sequence[int]) -> tuple[list[Fraction], Fraction, Fraction] | None:
        """Smallest dyadic ``t`` found with ``(1-t) lambda_tight + t lambda_int`` exactly feasible."""
        n_eq = self.P.n_eq
        eps = max(-tight.lmin, 0.0)
        m = inner.lmin
        # multipliers: (1-t) a + t b >= 0 needs t >= -a/(b-a) where a < 0
        t_need = 0.0
        for a, b in zip(tight.lam[n_eq:], inner.lam[n_eq:], strict=True):
            if a < 0:
                if b <= 0:
                    self.tried.append(f"{inner.tag}: a multiplier < 0 at both ends")
                    return None
                t_need = max(t_need, float(-a / (b - a)))
        eps = max(eps, 1e-14 * tight.smax)  # float rounding of the eigenvalue estimate, at least
        t_est = max(2.0 * eps / (eps + m), 2.0 * t_need)
        k = max(0, min(200, -math.frexp(t_est)[1] + 1))  # 2^-k >= t_est
        t = Fraction(1, 1 << k)
        while True:
            if self.out_of_time():
                self.tried.append("deadline reached")
                return None
            lam = [(1 - t) * a + t * b for a, b in zip(tight.lam, inner.lam, strict=True)]
            S = {key: v for key in set(tight.S) | set(inner.S)
                 if (v := (1 - t) * tight.S.get(key, Fraction(0)) + t * inner.S.get(key, Fraction(0))) != 0}
            if self.exact_ok(lam, S, B):
                return lam, (1 - t) * tight.bound + t * inner.bound, t
            self.tried.append(f"combination({inner.tag}, t={_tstr(t)}): not PSD")
            if t == 1:
                return None
            t = min(Fraction(1), 2 * t)


def _tstr(t: Fraction) -> str:
    if t == 0:
        return "0"
    if t.numerator == 1 and t.denominator & (t.denominator - 1) == 0:
        return f"2^-{t.denominator.bit_length() - 1}"
    return str(t)


def _sdpa_estimate_s(P: ExportedPEP) -> float:
    """Rough SDPA-GMP time (seconds) on this kind of machine: ``~3 s (rows/86)^2.5``."""
    return 3.0 * (max(P.m, 1) / 86.0) ** 2.5


def find_multipliers(data: Mapping[str, Any], *, value: float | None = None, rtol: float = 1e-6,
                     abs_floor: float = 1e-12, deadline_s: float = 600.0, reference: str = "auto",
                     unit: float = 0.0) -> SearchResult:
    r"""Exact multipliers ``lambda`` (one per row) proving ``PEP value <= bound`` with ``|bound - value| <= rtol
    max(|value|, unit, abs_floor)`` (module doc: tight end, interior end, exact convex combination).  ``unit``: the
    problem's scale in the data's units (1 for a normalised statement, :func:`fairtheory.proofs.certificate.certify_pep`),
    so that a value of 0 computed as ``1e-10`` is certified; 0 keeps the tolerance relative to ``|value|``.

    ``value``: the caller's float PEP value.  The comparison point is the most accurate value at hand: SDPA-GMP's
    (correct to the last bit), else the objective of a float-feasible KKT Newton point polished from Clarabel's
    solution (``~1e-15``; Clarabel alone is up to ``1e-6`` low on degenerate PEPs), else the caller's, else
    Clarabel's (``meta["value_from"]`` says which, ``meta["caller_value"]`` keeps the caller's).

    ``reference``: ``"auto"`` (SDPA-GMP first for small PEPs, :data:`SDPA_MAX_ROWS`, then Clarabel; for larger
    ones Clarabel first, then SDPA-GMP when its estimated time, :func:`_sdpa_estimate_s`, is at most ``deadline_s``: a
    rule on the PEP's size, not on the time left), ``"sdpa"`` (SDPA-GMP first at
    any size, then Clarabel) or ``"clarabel"`` (Clarabel only).  ``deadline_s``: wall-clock budget, checked
    between steps.  Raises :class:`~fairtheory.errors.SolverError` listing every attempt when nothing is found."""
    if not isinstance(reference, str) or reference not in ("auto", "sdpa", "clarabel"):
        raise FairtheoryValueError(f"reference must be 'auto', 'sdpa' or 'clarabel', got {reference!r}")
    rtol = check_in_range(rtol, "rtol", low=0.0, high=1.0)  # 0 asks for the float value exactly (rarely found)
    abs_floor = check_in_range(abs_floor, "abs_floor", low=0.0, high=1e300, low_inclusive=False)
    unit = check_in_range(unit, "unit", low=0.0, high=1e300)
    deadline_s = check_in_range(deadline_s, "deadline_s", low=0.0, high=1e7)  # 0: stop at the first check
    if value is not None:
        value = check_in_range(value, "value")
    exported_pep(data, "find_multipliers")
    with _one_blas_thread():
        return _find(data, value, rtol, abs_floor, deadline_s, reference, unit)


def _find(data: Mapping[str, Any], value: float | None, rtol: float, abs_floor: float, deadline_s: float,
          reference: str, unit: float = 0.0) -> SearchResult:

    S = _Search(data, value, rtol, abs_floor, deadline_s, unit)
    P = S.P
    plans = {"auto": ["sdpa", "clarabel"] if _use_sdpa(P) else ["clarabel", "sdpa"], "sdpa": ["sdpa", "clarabel"],
             "clarabel": ["clarabel"]}[reference]
    for n, kind in enumerate(plans):
        if S.out_of_time():
            S.tried.append("deadline reached")
            break
        t = time.perf_counter()
        if kind == "sdpa":
            if not solvers.sdpa_available():
                S.tried.append("sdpa-gmp: sdpap not installed")
                continue
            # a size rule, not a clock: the estimate against the whole budget (the time already spent would make
            # the route depend on the machine's speed and load)
            if n > 0 and _sdpa_estimate_s(P) > deadline_s:
                S.tried.append(f"sdpa-gmp skipped (estimated {_sdpa_estimate_s(P):.0f} s > deadline_s = "
                               f"{deadline_s:g} s)")
                continue
            ref = solvers.solve_sdpa(P)
        else:
            ref = solvers.solve_clarabel(P, tol=1e-10)
        S.timing["solve_s"] += time.perf_counter() - t
        if ref is None or not ref.ok:
            S.tried.append(f"{kind}: " + ("raised" if ref is None else f"status {ref.status}"))
            continue
        got = S.run(ref)
        if got is None:
            continue
        lam, bound, route, info = got
        t = time.perf_counter()
        chk = verify_multipliers(P.rows, P.objective, lam, dim=P.dim, nf=P.nf, n_eq=P.n_eq)
        S.timing["check_s"] += time.perf_counter() - t
        if chk != bound:
            S.tried.append(f"{route}: the final verify_multipliers disagreed (internal)")
            continue
        S.tried.append(route + ": certified")
        meta = dict(info) | {k: round(v, 4) for k, v in S.timing.items()} | {"caller_value": value}
        return SearchResult(multipliers=lam, bound=bound, value=S.value, route=route,
                            seconds=time.perf_counter() - S.t0, tried=S.tried, meta=meta)
    raise SolverError(f"find_multipliers: no exact certificate within rtol={rtol:g} (tried " + "; ".join(S.tried) + ")",
                      "sdpa-gmp/clarabel + exact check", "no certificate")
