r"""Worst cases of identical clients: the PEP restricted to permutation-invariant Gram matrices, block-diagonalised.

Setting: ``n >= 2`` clients of one function class with equal weights ``p_i = 1/n``, a method that treats them
alike (local GD / FedAvg with full participation: every client runs the same recurrence from the server model,
the server takes the plain mean) and initial conditions that are symmetric (``||x0 - x*||^2 <= D0``,
``1/n sum_i ||g_i*||^2 <= rho2``, ``sum_i g_i* = 0``).  A permutation ``sigma`` of the clients maps a feasible
``(G, F)`` to a feasible one with the same objective (client ``i``'s points, gradients and values become client
``sigma(i)``'s), and the PEP is convex, so the average over the symmetric group of an optimal solution is optimal
and *invariant*: the PEP may be restricted to invariant ``(G, F)`` without changing its optimum.

**Invariant Gram matrices.**  The basis vectors are ``x0``, the optimum gradients ``g_i*`` (``sum_i g_i* = 0``)
and the gradients ``g_{i,t}`` of client ``i`` at its ``t``-th point (``t = 1..m``).  Invariance says
``<g_{i,t}, g_{j,l}> = a_tl`` (``i = j``) or ``b_tl`` (``i != j``), ``<x0, g_{i,t}>`` is the same for every ``i``,
and (with ``sum_i g_i* = 0``) ``<x0, g_i*> = 0``, ``<g_i*, g_j*>`` and ``<g_i*, g_{j,l}>`` vanish on the mean.
Split every vector into its mean over the clients and the deviations (the trivial and the standard
representation of ``S_n``): with ``s_t = 1/n sum_i g_{i,t}``, ``d_{i,t} = g_{i,t} - s_t`` (``d_{i,0} = g_i*``),

    G = Phi(A, B):  <u_c, u_d> = A_cd + (delta_ij - 1/n) B_cd,

with ``A`` the Gram matrix of ``(x0, s_1..s_m)`` (size ``m + 1``) and ``B = 1/(n-1) sum_i Gram(d_{i,0..m})`` (size
``m + 1``), ``A``'s part absent for ``g_i*`` and ``B``'s absent for ``x0``.  Then ``G >= 0`` (invariant) iff
``A >= 0`` and ``B >= 0``: ``A`` and ``B`` are Gram matrices of the vectors above; conversely ``A = B = V^T V``
factors give explicit vectors ``s_t = U e_t``, ``d_{i,t} = W e_t (x) (e_i - 1/n)`` with
``<e_i - 1/n, e_j - 1/n> = delta_ij - 1/n``.  The values are ``F_{i,t} = phi_t``.  So one PSD cone of size
``1 + n (m + 1) - 1`` becomes two of size ``m + 1`` (independent of ``n``), and the interpolation rows of client
``i`` restrict to client 0's (one row per orbit; Gatermann & Parrilo 2004, "Symmetry groups, semidefinite
programs, and sums of squares", J. Pure Appl. Algebra 192; for PEPs: Colla & Hendrickx 2024 reduce decentralised
GD the same way).

**Multipliers of the full PEP.**  Client 0's row ``(0, j, k)`` stands for its orbit ``{(i, j, k)}``; its multiplier
``lambda`` gives every row of the orbit ``lambda / n``.  Their sum, minus the objective, is the group average of the
reduced dual slack, hence invariant, and positive semidefinite exactly when the reduced slack is (the same block
diagonalisation): a dual solution of the full PEP.  :func:`solve_symmetric` returns an
:class:`~fairtheory.worstcase.solvers.SDPSolution` of the *full* PEP (its ``gram``, ``F`` in the PEP's basis, every
row with its multiplier), so :mod:`fairtheory.worstcase.bracket` certifies it exactly as a dense solve - the
rigorous upper bound (weak duality over every row of the full PEP, rounding bounded) and the replayed lower bound
do not rely on the symmetry argument: a wrong reduction could only leave the bracket open, never close it on a
wrong value.  See docs/worstcase.md, "Identical clients: the symmetric reduction".
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase.bracket import norm_bounds
from fairtheory.worstcase.gram import Vec, _unsvec
from fairtheory.worstcase.schur_sdp import RowFactors, row_factors, solve_dual_schur
from fairtheory.worstcase.solvers import SDPSolution, clarabel_setup, estimated_seconds
from fairtheory.worstcase.sparse_solve import _natural

if TYPE_CHECKING:
    from fairtheory.worstcase.sdp import PEP, Function

__all__ = ["ClientSymmetry", "client_symmetry", "solve_symmetric", "SymmetricSDPSolution", "symmetric_estimated_seconds",
           "SYMMETRIC_MIN_DIM", "SYMMETRIC_DENSE_FALLBACK_DIM"]

_SQRT2 = math.sqrt(2.0)
#: Gram dimension from which :func:`fairtheory.worstcase.local_gd.local_gd_worst_case` takes the reduction by default
#: (a rule of sizes, measured 2026-12-02 on n = 2, 3, kappa = 1, 2, 5, T_N = 1, 2, lr = 1/40, 0.3: from Gram 20 on the
#: reduction was 1.9-31x faster in every setting - n = 3, kappa = 5, T_N = 2: 12.5 s -> 0.4 s - with values within
#: 3.3e-7 of the dense route's, both certified; below it the dense solve takes a fraction of a second and the small
#: hand-written PEPs stay the traced ones' bit-identical twins: routing every size through the reduction made verify's
#: ``worstcase.traced.fedavg_twin`` differ at 2.7e-6 relative against its 1e-6)
SYMMETRIC_MIN_DIM = 20
#: where the reduction's bracket does not close, :func:`fairtheory.worstcase.local_gd.local_gd_worst_case` solves the
#: full PEP densely up to this Gram dimension (a rule of sizes: the route never depends on the clock; one dense solve
#: at this size is estimated at ~28 s by :func:`~fairtheory.worstcase.solvers.estimated_seconds`, ~180 s at Gram
#: 100), and reports the reduction's uncertified bracket above it
SYMMETRIC_DENSE_FALLBACK_DIM = 64
#: largest relative difference between the restrictions of two rows of one orbit before the symmetry is refused
ORBIT_RTOL = 1e-9
#: blocks from this size on are solved with the a priori preconditioner (:func:`a_priori_scale`) unless a ``scale``
#: is given: there one solve costs seconds and the bracket keeps a certified one without re-solves; below it the
#: bracket's own re-solves are cheap and reach tighter values without it (local GD ``n = 2``, ``kappa = 2``,
#: ``lr = 1/2``: certified ``1.6e-6`` relative above the solver value with it, ``1.6e-7`` without)
AUTO_SCALE_MIN_BLOCK = 20
#: blocks from this size on are solved by constraint generation (``generate=None``): the first relaxation keeps the
#: rows of neighbouring points and the rows with the optimum and the output, violated rows join until none is
GENERATE_MIN_BLOCK = 20
#: blocks from this size on are solved through the dual by a Schur-complement interior-point method
#: (:func:`fairtheory.worstcase.schur_sdp.solve_dual_schur`, cvxopt; ``solver=None``): its iteration costs
#: ``O(r k^2 + r^2 k^2)`` for ``r`` rows of rank at most 3 and blocks of size ``k``, Clarabel's ``O(k^6)`` (the dense
#: scaling block of each ``k x k`` cone in its KKT system); below it Clarabel's solves take a second at most and the
#: route stays the one the small-PEP tests compare with SDPA-GMP
SCHUR_MIN_BLOCK = 20
#: constraint generation on the Schur route (blocks of at least :data:`SCHUR_MIN_BLOCK`, ``settle=None``) stops when a
#: round leaves at most this fraction of its kept rows violated, each by at most :data:`SETTLE_VIOL` (relative, as
#: ``viol_tol``): rows at the solve's own accuracy, which the next round's solve does not settle (measured at local GD
#: ``kappa = 97``, blocks of 100: rounds of 590, 2886, 3397 and 3399 rows left 2296, 511, 2 and 43 rows violated,
#: the last two by at most ``1.1e-8`` and ``2.0e-8``, each round ~90 s of CPU, the values within ``5e-8``
#: relative).  The solution then has ``violated_left > 0``: a relaxation, whose bracket
#: (:mod:`fairtheory.worstcase.bracket`: the rigorous upper bound holds for every row, the lower end is the replayed
#: instance) says whether it is good enough - its caller decides (``fairtheory.worstcase.local_gd``)
SETTLE_FRACTION = 0.01
#: the largest violation (relative) of a row left out when generation settles (:data:`SETTLE_FRACTION`)
SETTLE_VIOL = 1e-7
#: Clarabel's tolerance in a round of constraint generation far from the end (``loose_rounds=True``): it only decides
#: which rows join; the last rounds are solved at the caller's ``tol``
ROUND_TOL = 1e-5


@dataclass
class ClientSymmetry:
    """The layout of a PEP of ``n`` identical clients (:func:`client_symmetry`): per basis vector its kind (0 the
    starting point, 1 an optimum gradient ``g_i*``, 2 a client gradient ``g_{i,t}``), its client and its index in the
    blocks ``A`` (``-1``: none) and ``B``; per value variable its slot ``t - 1`` in ``phi``."""

    n: int
    m: int
    kind: np.ndarray
    client: np.ndarray
    aidx: np.ndarray
    bidx: np.ndarray
    fslot: np.ndarray
    #: reduced rows (indices, client 0's orbits in the PEP's row order) that join the first relaxation of constraint
    #: generation besides :func:`_initial_pair`'s: a caller re-solving the same PEP (another tolerance, trace weight
    #: or scale) passes the rows its last solve kept (:attr:`SymmetricSDPSolution.kept_rows`) and skips the rounds
    #: that found them again
    initial_rows: np.ndarray | None = None

    @property
    def block(self) -> int:
        """Size of each of the two PSD blocks (``m + 1``)."""
        return self.m + 1


@dataclass
class SymmetricSDPSolution(SDPSolution):
    """An :class:`~fairtheory.worstcase.solvers.SDPSolution` of the full PEP found by :func:`solve_symmetric`
    (``gram``, ``F``, ``rows``, ``z`` of the full PEP); ``blocks``: the sizes of the two PSD cones solved,
    ``rows_reduced``: the rows Clarabel saw."""

    blocks: tuple[int, int] = (0, 0)
    rows_reduced: int = 0
    #: constraint generation (``generate``): one entry per solve (rows kept, rows violated after it, status)
    generation: list[dict[str, Any]] = field(default_factory=list)
    #: reduced rows still violated (beyond ``viol_tol``) when the generation stopped (0: the point is feasible)
    violated_left: int = 0
    #: set by a caller that made its own (deterministic) re-solves: bracket this solution as it is
    final: bool = False
    #: the reduced rows the last relaxation kept (indices; constraint generation), for :attr:`ClientSymmetry.initial_rows`
    kept_rows: np.ndarray | None = None
    #: the reduced rows violated at the solution that the last relaxation did not keep (``violated_left`` of them)
    violated_rows: np.ndarray | None = None


def _unit_index(v: Vec) -> int | None:
    """The index ``j`` when ``v`` is the basis vector ``e_j`` exactly, else None."""
    c = np.asarray(v.c, dtype=np.float64)
    nz = np.flatnonzero(c)
    if nz.size != 1 or c[nz[0]] != 1.0:
        return None
    return int(nz[0])


def client_symmetry(pep: PEP, funcs: list[Function], stars: list[Vec], x0: Vec) -> ClientSymmetry | None:
    """The client layout of ``pep`` when it has the form the reduction needs, else None: ``funcs`` are all of
    ``pep``'s functions (``n >= 2``), of one class, with equally many points, the first at the optimum with gradient
    ``stars[i]`` (``stars[i] = e_i`` for ``i < n - 1`` and ``stars[n-1] = -sum_i stars[i]``: equal weights), every
    later point's gradient a new basis vector and its value a new value variable, ``x0`` the only other basis vector
    and no other value variable.  It checks the layout only; that the method and constraints treat the clients
    alike is the caller's statement (and :func:`solve_symmetric` checks every row's orbit)."""
    n = len(funcs)
    if n < 2 or pep.exact or list(pep.functions) != list(funcs) or len(stars) != n:
        return None
    if len({repr(f.cls) for f in funcs}) != 1 or len({len(f.points) for f in funcs}) != 1:
        return None
    m = len(funcs[0].points) - 1
    dim = pep.dim
    kind = np.full(dim, -1)
    client = np.full(dim, -1)
    aidx = np.full(dim, -1)
    bidx = np.full(dim, -1)
    fslot = np.full(pep.nf, -1)
    for i in range(n - 1):
        j = _unit_index(stars[i])
        if j is None or kind[j] != -1:
            return None
        kind[j], client[j], bidx[j] = 1, i, 0
    last = np.zeros(dim)
    cl = np.asarray(stars[n - 1].c, dtype=np.float64)
    last[: cl.size] = cl
    expect = np.zeros(dim)
    expect[kind == 1] = -1.0
    if not np.array_equal(last, expect):
        return None
    j0 = _unit_index(x0)
    if j0 is None or kind[j0] != -1:
        return None
    kind[j0], aidx[j0] = 0, 0
    for i, fn in enumerate(funcs):
        if not np.array_equal(np.pad(np.asarray(fn.points[0].g.c, dtype=np.float64), (0, dim))[:dim],
                              np.pad(np.asarray(stars[i].c, dtype=np.float64), (0, dim))[:dim]):
            return None
        for t, pt in enumerate(fn.points[1:], start=1):
            j = _unit_index(pt.g)
            f = pt.f
            if j is None or kind[j] != -1 or f.quad or float(f.const) != 0.0 or len(f.lin) != 1:
                return None
            (k, a), = f.lin.items()
            if float(a) != 1.0 or fslot[k] != -1:
                return None
            kind[j], client[j], aidx[j], bidx[j] = 2, i, t, t
            fslot[k] = t - 1
    if np.any(kind == -1) or np.any(fslot == -1):
        return None
    return ClientSymmetry(n, m, kind, client, aidx, bidx, fslot)


def _pair_index(c: np.ndarray, d: np.ndarray) -> np.ndarray:
    lo, hi = np.minimum(c, d), np.maximum(c, d)
    return hi * (hi + 1) // 2 + lo


def lift_matrix(sym: ClientSymmetry) -> sp.csr_matrix:
    """``Phi`` as a sparse matrix from ``y = [A_cd (c <= d), B_cd (c <= d), phi]`` to the PEP's natural
    ``x = [G_ab (a <= b), F]`` (module doc)."""
    dim, nb = sym.kind.size, sym.block
    nA = nb * (nb + 1) // 2
    nG = dim * (dim + 1) // 2
    ia, ib = np.triu_indices(dim)
    xidx = ib * (ib + 1) // 2 + ia
    rows, cols, vals = [], [], []
    has_a = (sym.aidx[ia] >= 0) & (sym.aidx[ib] >= 0)
    rows.append(xidx[has_a])
    cols.append(_pair_index(sym.aidx[ia[has_a]], sym.aidx[ib[has_a]]))
    vals.append(np.ones(int(has_a.sum())))
    has_b = (sym.bidx[ia] >= 0) & (sym.bidx[ib] >= 0)
    coef = np.where(sym.client[ia] == sym.client[ib], 1.0, 0.0) - 1.0 / sym.n
    rows.append(xidx[has_b])
    cols.append(nA + _pair_index(sym.bidx[ia[has_b]], sym.bidx[ib[has_b]]))
    vals.append(coef[has_b])
    nf = sym.fslot.size
    rows.append(nG + np.arange(nf))
    cols.append(2 * nA + sym.fslot)
    vals.append(np.ones(nf))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=(nG + nf, 2 * nA + sym.m))


def a_priori_scale(pep: PEP, sym: ClientSymmetry) -> np.ndarray | None:
    """A diagonal preconditioner of the basis: the a priori bounds of
    :func:`fairtheory.worstcase.bracket.norm_bounds` along the recurrence for ``||x0 - x*|| <= 1`` and
    ``||g_i*|| <= sqrt(n)`` (the normalised units' levels are at most these), floored at ``1e-6`` of the largest;
    None when a bound is not finite.  Any positive scaling solves the same problem (a congruence); this one makes
    the iterates' Gram entries of comparable size (local GD at ``kappa = 47``: the unscaled solve stopped with a
    rigorous bound ``1.3e-5`` of the unit above its value, the scaled one ``8.2e-7``: certified)."""
    initial = {int(j): 1.0 for j in np.flatnonzero(sym.kind == 0)}
    initial.update({int(j): math.sqrt(sym.n) for j in np.flatnonzero(sym.kind == 1)})
    B = norm_bounds(pep, initial=initial, anchors=[math.sqrt(sym.n)] * sym.n).B
    if not np.all(np.isfinite(B)) or B.max() <= 0:
        return None
    return np.maximum(B, 1e-6 * float(B.max()))


def symmetric_estimated_seconds(block: int, rows: int) -> float:
    """A rough upper estimate of :func:`solve_symmetric` (2 cores): two PSD cones of size ``block`` and ``rows``
    reduced rows cost about what :func:`fairtheory.worstcase.solvers.estimated_seconds` gives one cone of size
    ``block`` with those rows, doubled (measured: blocks of 50 with 2.45k rows, 3-8 s per solve)."""
    return 2.0 * estimated_seconds(block, rows)


def solve_symmetric(pep: PEP, sym: ClientSymmetry, *, tol: float = 1e-8, max_iter: int = 400, verbose: bool = False,
                    scale: np.ndarray | None = None, fscale: np.ndarray | None = None, trace_weight: float = 0.0,
                    obj_unit: float = 1.0, row_units: bool = False, auto_scale: bool = True,
                    generate: bool | None = None, viol_tol: float | None = None,
                    max_rounds: int = 20, loose_rounds: bool = False,
                    solver: str | None = None, settle: bool | None = None) -> SymmetricSDPSolution:
    """Solve ``pep`` restricted to invariant ``(G, F)`` (module doc), two PSD cones of size ``m + 1``; return the
    solution of the full PEP (:meth:`PEP.solve` ``raw=True``'s contract: Clarabel's status as reported).

    ``scale`` / ``fscale`` / ``trace_weight`` / ``obj_unit`` / ``row_units`` as :meth:`PEP._solve_float`
    (``scale=None`` with ``auto_scale`` and blocks of at least :data:`AUTO_SCALE_MIN_BLOCK`: :func:`a_priori_scale`);
    ``scale`` and ``fscale`` are first replaced by their geometric means over each orbit (a diagonal rescaling that
    is itself invariant; any positive one gives the same problem).

    ``generate`` (default: blocks of at least :data:`GENERATE_MIN_BLOCK`): constraint generation over the reduced
    rows, as :func:`fairtheory.worstcase.sparse_solve.solve_sparse` does over a PEP's rows.  The first relaxation
    keeps the equalities, the user rows and client 0's rows of neighbouring points and of pairs with the optimum
    or the output (:func:`_initial_pair`); every reduced row is evaluated at its solution and those violated by
    more than ``viol_tol`` (relative to ``1 + |row| . |y| + |const|``; default ``max(tol, 1e-9)``) join, until
    none is, generation settles (``settle``, default: blocks of at least :data:`SCHUR_MIN_BLOCK`; at most
    :data:`SETTLE_FRACTION` of the kept rows violated, each by at most :data:`SETTLE_VIOL`: the solve's own
    accuracy) or ``max_rounds`` solves are made (``violated_left`` counts those left, ``violated_rows`` lists them;
    ``kept_rows`` lists the rows of the last relaxation, and ``sym.initial_rows``, when set, joins the first one: a
    re-solve of the same PEP).  The Schur route computes each row's low-rank factors once, at the round that first
    keeps it.  Rows never added get the multiplier 0: the relaxation's dual solution is one of the full PEP and
    :mod:`fairtheory.worstcase.bracket`'s rigorous bound applies to it unchanged; the relaxation's optimum is an
    upper bound, and a solution feasible for every row is the full optimum.  A solve's cost is set by the two
    dense PSD blocks, not by the rows (measured, local GD ``n = 2``, ``kappa = 47``, blocks of 50: 290 rows 13.6 s
    CPU against 2450 rows 17 s), but the relaxations are better conditioned: at ``kappa = 47``, ``rho2 = 1/2``
    the full reduced solve ends ``AlmostSolved`` with a rigorous bound ``8.3e-6`` above its value (not certified),
    the generated one (3 rounds, 1228 of 2450 rows) ``3.7e-7`` above it (certified).

    ``solver``: ``"clarabel"`` (the reduced primal, Clarabel), ``"schur"`` (its dual by the Schur-complement
    interior-point method of :func:`fairtheory.worstcase.schur_sdp.solve_dual_schur`, cvxopt: an iteration costs
    ``O(r^2 k^2)`` for ``r`` rows and blocks of size ``k`` where Clarabel factors the dense ``k(k+1)/2``-square scaling
    block of each cone) or None (default): ``"schur"`` from blocks of :data:`SCHUR_MIN_BLOCK` on - a rule of sizes.
    Either way the solution is mapped back to the full PEP the same way; measured at local GD ``kappa = 47``,
    ``rho2 = 1/2`` (blocks of 50, 3 rounds of generation): 10 s of CPU for the three solves against 43 s with
    Clarabel, values within ``5e-8``.

    Raises :class:`~fairtheory.errors.FairtheoryValueError` when two rows of one orbit do not restrict to the same
    row (to :data:`ORBIT_RTOL`): the PEP is not symmetric; :class:`~fairtheory.errors.SolverError` when the Schur
    route is taken without cvxopt installed.

    ``loose_rounds`` (default off): a round far from the end (the first, or after one that added more than half of
    its rows) is solved at :data:`ROUND_TOL` - it only decides which rows join.  Measured at ``kappa = 47``,
    ``rho2 = 1/2``: 42.6 s of CPU instead of 49.5 s, but the loose round adds more rows (1510 at the end instead of
    1228) and the rigorous bound ends ``7.6e-7`` of the unit above the value instead of ``3.7e-7``: closer to
    :data:`~fairtheory.worstcase.bracket.CERTIFY_RTOL`, so the default keeps every round at ``tol``."""
    import clarabel  # heavy: loaded at the first solve

    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) or not 1e-14 <= float(tol) <= 1e-2:
        raise FairtheoryValueError(f"tol (the solver's tolerance) must be a number in [1e-14, 1e-2], got {tol!r}")
    if pep._objective is None:
        raise FairtheoryValueError("no objective: call maximize(...) first")
    if not isinstance(loose_rounds, (bool, np.bool_)):
        raise FairtheoryValueError(f"loose_rounds must be True or False, got {loose_rounds!r}")
    if generate is not None and not isinstance(generate, (bool, np.bool_)):
        raise FairtheoryValueError(f"generate must be None, True or False, got {generate!r}")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise FairtheoryValueError(f"max_rounds must be an integer >= 1, got {max_rounds!r}")
    if solver not in (None, "clarabel", "schur"):
        raise FairtheoryValueError(f"solver must be None, 'clarabel' or 'schur', got {solver!r}")
    if solver is None:
        solver = "schur" if sym.block >= SCHUR_MIN_BLOCK else "clarabel"
    if settle is not None and not isinstance(settle, (bool, np.bool_)):
        raise FairtheoryValueError(f"settle must be None, True or False, got {settle!r}")
    if settle is None:
        settle = sym.block >= SCHUR_MIN_BLOCK
    t0 = time.perf_counter()
    nat = _natural(pep)
    dim, nf, n = pep.dim, pep.nf, sym.n
    nG = dim * (dim + 1) // 2
    nb = sym.block
    nA = nb * (nb + 1) // 2
    Phi = lift_matrix(sym)
    # an invariant rescaling: geometric means over the orbits (x0; the optimum gradients; slot t of every client)
    colscale = np.ones(nG + nf)
    if scale is None and auto_scale and sym.block >= AUTO_SCALE_MIN_BLOCK:
        scale = a_priori_scale(pep, sym)
    if scale is not None:
        d = np.asarray(scale, dtype=np.float64)
        if d.shape != (dim,) or not np.all(np.isfinite(d)) or np.any(d <= 0):
            raise FairtheoryValueError(f"scale must hold {dim} positive finite numbers")
        key = np.where(sym.kind == 2, 2 + sym.aidx, sym.kind)
        ld = np.log(d)
        sums = np.bincount(key, weights=ld)
        cnt = np.bincount(key)
        d = np.exp(sums[key] / cnt[key])
        ia, ib = np.triu_indices(dim)
        colscale[ib * (ib + 1) // 2 + ia] = d[ia] * d[ib]
    if fscale is not None:
        e = np.asarray(fscale, dtype=np.float64)
        if e.shape != (nf,) or not np.all(np.isfinite(e)) or np.any(e <= 0):
            raise FairtheoryValueError(f"fscale must hold {nf} positive finite numbers")
        le = np.bincount(sym.fslot, weights=np.log(e)) / np.bincount(sym.fslot)
        colscale[nG:] = np.exp(le[sym.fslot])
    Phis = (sp.diags(colscale) @ Phi).tocsr()
    # one row per orbit: the equalities, client 0's interpolation rows, the user inequalities
    labels = nat.labels
    orbit_of: list[int] = []
    keep: list[int] = []
    rep: dict[tuple[int, int], int] = {}
    for r, lab in enumerate(labels):
        if lab is None or lab[0] == 0:
            if lab is not None:
                rep[(lab[1], lab[2])] = len(keep)
            orbit_of.append(len(keep))
            keep.append(r)
        else:
            orbit_of.append(-1)
    for r, lab in enumerate(labels):
        if lab is not None and lab[0] != 0:
            if (lab[1], lab[2]) not in rep:
                raise FairtheoryValueError(f"solve_symmetric: row {lab} has no counterpart of client 0")
            orbit_of[r] = rep[(lab[1], lab[2])]
    red_all = (nat.rows @ Phis).tocsr()
    orb = np.asarray(orbit_of)
    keep_arr = np.asarray(keep)
    diff = red_all - red_all[keep_arr[orb]]
    mag = abs(red_all) @ np.ones(red_all.shape[1]) + np.abs(nat.consts)
    dmax = np.asarray(abs(diff).max(axis=1).todense()).ravel() + np.abs(nat.consts - nat.consts[keep_arr[orb]])
    bad = dmax > ORBIT_RTOL * np.maximum(mag, 1.0)
    if np.any(bad):
        r = int(np.flatnonzero(bad)[0])
        raise FairtheoryValueError(f"solve_symmetric: the PEP is not symmetric in its clients (row {labels[r]} "
                                   f"restricts to a row that differs from its orbit's by {dmax[r]:.3g})")
    red = red_all[keep_arr]
    consts = nat.consts[keep_arr]
    # Clarabel's svec: off-diagonal entries of A and B scaled by sqrt 2
    ny = 2 * nA + sym.m
    to_svec = np.ones(ny)
    ca, cb = np.triu_indices(nb)
    off = (ca != cb)
    sidx = cb * (cb + 1) // 2 + ca
    to_svec[sidx[off]] = 1.0 / _SQRT2
    to_svec[nA + sidx[off]] = 1.0 / _SQRT2
    A_all = (red @ sp.diags(to_svec)).tocsr()
    nr_all = A_all.shape[0]
    rscale = np.ones(nr_all)
    if row_units and nr_all:
        big = np.maximum(abs(A_all).max(axis=1).toarray().ravel(), np.abs(consts))
        ok = (big > 0) & np.isfinite(big)
        rscale[ok] = np.ldexp(1.0, np.round(np.log2(big[ok])).astype(np.int64))
        A_all = (sp.diags(1.0 / rscale) @ A_all).tocsr()
    b_all = consts / rscale
    obj_nat = nat.obj.copy()
    if trace_weight:
        ia, ib = np.triu_indices(dim)
        obj_nat[(ib * (ib + 1) // 2 + ia)[ia == ib]] += float(trace_weight)
    obj_red = Phis.T @ obj_nat
    q = -(obj_red * to_svec) / float(obj_unit)
    cone_rows = sp.csr_matrix((-np.ones(2 * nA), (np.arange(2 * nA), np.arange(2 * nA))), shape=(2 * nA, ny))
    n_eq = nat.n_eq
    red_labels = [labels[r] for r in keep]
    if generate is None:
        generate = nb >= GENERATE_MIN_BLOCK
    kept = np.ones(nr_all, dtype=bool) if not generate else np.asarray(
        [lab is None or _initial_pair(lab[1], lab[2], sym.m) for lab in red_labels], dtype=bool)
    if generate and sym.initial_rows is not None:
        warm = np.asarray(sym.initial_rows, dtype=np.int64)
        if warm.ndim != 1 or (warm.size and (warm.min() < 0 or warm.max() >= nr_all)):
            raise FairtheoryValueError(f"initial_rows must be indices of the {nr_all} reduced rows")
        kept[warm] = True
    vt = max(float(tol), 1e-9) if viol_tol is None else float(viol_tol)
    if not 0 < vt < 1:
        raise FairtheoryValueError(f"viol_tol must lie in (0, 1), got {viol_tol!r}")
    absA = abs(A_all)
    fcache = _FactorCache(A_all, [(0, nA), (nA, 2 * nA)], nb)
    rounds = 0
    seconds = 0.0
    iters = 0
    log: list[dict[str, Any]] = []
    while True:
        rounds += 1
        idx = np.flatnonzero(kept)
        A = sp.vstack([A_all[idx], cone_rows]).tocsc()
        n_eq_k = int(np.count_nonzero(idx < n_eq))
        # a round far from the end (no round yet, or the last one added more than half of its rows) only tells which
        # rows join: it is solved at the loose tolerance ROUND_TOL; the others at ``tol``
        loose = generate and loose_rounds and (not log or log[-1]["violated"] > 0.5 * log[-1]["rows_kept"])
        rtol = max(float(tol), ROUND_TOL) if loose else float(tol)
        cones, settings = clarabel_setup(n_eq_k, idx.size - n_eq_k, nb, tol_gap=rtol, tol_feas=10 * rtol,
                                         max_iter=max_iter, verbose=verbose)
        cones.append(clarabel.PSDTriangleConeT(nb))
        if rounds == 1:
            build = time.perf_counter() - t0
        if solver == "schur":
            sol = solve_dual_schur(q, A_all[idx], b_all[idx], n_eq=n_eq_k, blocks=[nb, nb], tol=rtol,
                                   max_iter=max_iter, verbose=verbose, factors=fcache.get(idx))
        else:
            sol = clarabel.DefaultSolver(sp.csc_matrix((ny, ny)), q, A, np.concatenate([b_all[idx], np.zeros(2 * nA)]),
                                         cones, settings).solve()
        status = str(sol.status).split(".")[-1]
        seconds += float(sol.solve_time)
        iters += int(sol.iterations)
        xs = np.asarray(sol.x)
        resid = A_all @ xs - b_all
        rel = resid / (1.0 + absA @ np.abs(xs) + np.abs(b_all))
        bad = np.flatnonzero((rel > vt) & ~kept)
        log.append({"round": rounds, "rows_kept": int(idx.size), "violated": int(bad.size), "status": status,
                    "iterations": int(sol.iterations), "seconds": float(sol.solve_time), "tol": rtol})
        settled = bool(settle and generate and not loose and 0 < bad.size <= SETTLE_FRACTION * idx.size
                       and float(rel[bad].max()) <= SETTLE_VIOL)
        log[-1]["settled"] = settled
        if (bad.size == 0 and not loose) or settled or status not in ("Solved", "AlmostSolved") or rounds >= max_rounds:
            break
        kept[bad] = True
    y = xs * to_svec
    x = Phis @ y
    z_red = np.zeros(nr_all)
    z_red[idx] = np.asarray(sol.z)[: idx.size]
    z_red = z_red * float(obj_unit) / rscale
    # every row of an interpolation orbit gets 1/n of its representative's multiplier
    z = np.where(np.asarray([lab is None for lab in labels]), z_red[orb], z_red[orb] / n)
    gram = _unsvec(x[:nG] * _svec_scale(dim), dim)
    F = x[nG:].copy()
    const = float(pep._objective.const)
    value = -float(sol.obj_val) * float(obj_unit) + const
    dual = -float(sol.obj_val_dual) * float(obj_unit) + const
    first_user = nat.n_eq + nat.n_interp
    return SymmetricSDPSolution(
        value=value, dual_value=dual, gap=dual - value, status=status, gram=gram, F=F, dim=dim,
        n_constraints=nat.rows.shape[0], n_interp=nat.n_interp, seconds=seconds, build_seconds=build,
        iterations=iters, r_prim=float(sol.r_prim), r_dual=float(sol.r_dual),
        duals=z[first_user:first_user + nat.n_user].copy(), rows=nat.rows, consts=nat.consts, objective_row=nat.obj,
        objective_const=const, z=z, n_eq=nat.n_eq, max_terms=nat.max_terms, trace_weight=float(trace_weight),
        blocks=(nb, nb), rows_reduced=int(idx.size), generation=log, violated_left=int(bad.size), kept_rows=idx.copy(),
        violated_rows=bad.copy(),
        solver="cvxopt-schur" if solver == "schur" else "clarabel")


class _FactorCache:
    """:func:`~fairtheory.worstcase.schur_sdp.row_factors` of the reduced rows, per PSD block, computed once per row
    (the rows a round of constraint generation keeps are those of the last round and a few more): ``get(idx)`` gives
    the factors of the rows ``idx``, computing those of rows not seen before (the same batched eigendecompositions,
    row by row independent; the rank padding is the largest seen)."""

    def __init__(self, A_all: sp.csr_matrix, spans: list[tuple[int, int]], k: int) -> None:
        self.blocks = [A_all[:, lo:hi].tocsr() for lo, hi in spans]
        self.k = k
        nr = A_all.shape[0]
        self.done = np.zeros(nr, dtype=bool)
        self.V = [np.zeros((nr, k, 1)) for _ in spans]
        self.d = [np.zeros((nr, 1)) for _ in spans]

    def get(self, idx: np.ndarray) -> list[RowFactors]:
        new = idx[~self.done[idx]]
        if new.size:
            for b, Rb in enumerate(self.blocks):
                F = row_factors(Rb[new], self.k)
                rr = F.d.shape[1]
                if rr > self.d[b].shape[1]:
                    pad = rr - self.d[b].shape[1]
                    self.V[b] = np.concatenate([self.V[b], np.zeros(self.V[b].shape[:2] + (pad,))], axis=2)
                    self.d[b] = np.concatenate([self.d[b], np.zeros((self.d[b].shape[0], pad))], axis=1)
                self.V[b][new, :, :rr] = F.V
                self.d[b][new, :rr] = F.d
            self.done[new] = True
        return [RowFactors(np.ascontiguousarray(V[idx]), np.ascontiguousarray(d[idx]))
                for V, d in zip(self.V, self.d, strict=True)]


def _initial_pair(j: int, k: int, m: int) -> bool:
    """Rows of the first relaxation (constraint generation): neighbouring points, pairs with the optimum (point 0)
    and with the last point (the output)."""
    return abs(j - k) <= 1 or 0 in (j, k) or m in (j, k)


def _svec_scale(dim: int) -> np.ndarray:
    """Natural ``G_ab`` to Clarabel's svec (off-diagonals times ``sqrt 2``), the layout :func:`_unsvec` reads."""
    ia, ib = np.triu_indices(dim)
    out = np.ones(dim * (dim + 1) // 2)
    out[(ib * (ib + 1) // 2 + ia)[ia != ib]] = _SQRT2
    return out


def attach(pep: PEP, funcs: list[Function], stars: list[Vec], x0: Vec, p: Any) -> bool:
    """Mark ``pep`` for the symmetric solve (``pep.symmetry``) when the weights ``p`` are equal and
    :func:`client_symmetry` accepts the layout; returns whether it did.  The caller states that its method and
    constraints treat the clients alike."""
    pa = np.asarray(p, dtype=np.float64)
    if pa.size < 2 or not np.all(pa == pa[0]):
        return False
    sym = client_symmetry(pep, funcs, stars, x0)
    if sym is None:
        return False
    pep.symmetry = sym  # type: ignore[attr-defined]
    return True
