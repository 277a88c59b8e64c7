r"""Rigorous lower bounds of a PEP's worst case: an exactly feasible rational point and its objective.

A PEP (Drori & Teboulle 2014; Taylor, Hendrickx & Glineur 2017) is the SDP

.. math:: \max_{G \succeq 0,\,F}\ \mathrm{obj}(G, F) \quad\text{s.t.}\quad r_i(G, F) = \langle M_i, G\rangle
          + a_i^\top F + c_i \;\le 0 \ (= 0 \text{ for the first } n_{eq}),

so **every** feasible ``(G, F)`` gives ``obj(G, F) <= worst case``.  A float (or SDPA-GMP) solve returns a point that
is feasible only to its tolerance; :func:`lower_bound` turns it into a point that is feasible *exactly*:

1. **factor** the solver's ``G`` (symmetric eigendecomposition, eigenvalues above ``rank_rtol`` times the largest),
   ``V = U sqrt(Lambda)``, and round ``V`` and ``F`` to the dyadic rationals of their doubles: ``G = V V^T`` is PSD by
   construction;
2. **equalities** (if any) restored exactly by a small exact linear solve in ``F`` (refused when the ``F``-part of
   the equality rows cannot absorb the residual);
3. **inequalities** violated by the rounding (the active rows of the optimum, by ``~1e-16`` after a GMP solve, by the
   solver's tolerance after Clarabel) repaired by **mixing** with a strictly feasible rational point ``P0`` (the
   feasible set is convex in ``(G, F)``): ``P_t = t P + (1 - t) P0`` with ``t = min_i s0_i/(s0_i + v_i)`` over the
   violated rows (``v_i`` the violation, ``s0_i > 0`` the slack of ``P0``), rounded down to a dyadic.  ``P0`` comes
   from a float solve that maximises the smallest slack (:func:`interior_point`), rounded and checked exactly.  The
   Gram matrix of ``P_t`` is ``W diag(w) W^T`` with ``W = [V, V0]``, ``w = (t, ..., 1 - t, ...) >= 0``: PSD by
   construction again.

Everything that decides is exact (``fractions.Fraction``): :meth:`LowerBound.verify` recomputes the Gram matrix from
its factor (or, for a point given without one, runs the exact PSD test of
:func:`fairtheory.proofs.exact_linalg.is_psd`), every row and the objective from the PEP's data, from scratch.

**Which data are exact.**  :meth:`ExactData.from_pep` takes :meth:`fairtheory.worstcase.sdp.PEP.export`: with
``PEP(exact=True)`` and ``Fraction`` parameters (``h = 1/10``) these are the PEP's exact rationals; with a float PEP
they are the exact binary values of its doubles (``h = 0.1`` is ``3602879701896397/2^55``), so the bound is rigorous
for *that* PEP - the method with the double-precision coefficients - which differs from the rational one in the 17th
digit.  :meth:`ExactData.from_solution` reads the float data a solve keeps (``SDPSolution.rows``, natural
coordinates ``[G_ab (a <= b), F]``, the layout of :func:`fairtheory.worstcase.exact_repair.verify`): exact binary
values of the doubles, the same caveat.  Prefer the export of an exact PEP where one exists.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import clarabel
import numpy as np
import scipy.sparse as sp

from fairtheory.errors import FairtheoryValueError
from fairtheory.proofs.exact_linalg import is_psd
from fairtheory.worstcase.exact_repair import newton_polish

__all__ = ["ExactData", "LowerBound", "LowerBoundError", "lower_bound", "lower_bound_pep", "interior_point",
           "RANK_RTOL", "MIX_BITS"]

#: eigenvalues of the solver's Gram matrix above this times the largest are kept in the factor
RANK_RTOL = 1e-12
#: the mixing weight ``t`` is rounded down to a multiple of ``2^-MIX_BITS``
MIX_BITS = 64

Row = tuple[tuple[tuple[int, Fraction], ...], Fraction]   # ((natural index, coefficient), ...), constant


class LowerBoundError(FairtheoryValueError):
    """No exactly feasible point could be built (the reason is the message)."""


def _nat(a: int, b: int) -> int:
    """Natural coordinate of ``G_ab``, ``a <= b`` (``b (b + 1)/2 + a``, :class:`SDPSolution` ``rows``)."""
    return b * (b + 1) // 2 + a


@dataclass(frozen=True)
class ExactData:
    """A PEP's data in exact rationals over natural coordinates ``x = [G_ab (a <= b), F]``: row ``i`` is
    ``sum_j rows[i][0][j] x_j + rows[i][1] <= 0`` (``== 0`` for the first ``n_eq``); the objective
    ``sum objective[0] x + objective[1]``.  ``source``: ``"export"`` (:meth:`PEP.export`) or ``"solution"`` (a
    solve's float data, exact binary values of its doubles)."""

    dim: int
    nf: int
    n_eq: int
    rows: tuple[Row, ...]
    objective: Row
    source: str = "export"

    @property
    def nG(self) -> int:
        return self.dim * (self.dim + 1) // 2

    @classmethod
    def from_export(cls, data: Mapping[str, Any]) -> ExactData:
        """From :meth:`fairtheory.worstcase.sdp.PEP.export` (``G`` dicts of ``M_ab``, ``<M, Gram> = sum_a M_aa G_aa +
        2 sum_{a<b} M_ab G_ab``)."""
        dim, nf = int(data["dim"]), int(data["nf"])
        nG = dim * (dim + 1) // 2

        def row(r: Any) -> Row:
            G, F, c = r
            acc: dict[int, Fraction] = {}
            for (a, b), v in G.items():
                a, b = (a, b) if a <= b else (b, a)
                j = _nat(a, b)
                acc[j] = acc.get(j, Fraction(0)) + Fraction(v) * (1 if a == b else 2)
            for k, v in F.items():
                acc[nG + int(k)] = acc.get(nG + int(k), Fraction(0)) + Fraction(v)
            return tuple(sorted((j, v) for j, v in acc.items() if v != 0)), Fraction(c)

        return cls(dim, nf, int(data["n_eq"]), tuple(row(r) for r in data["rows"]), row(data["objective"]), "export")

    @classmethod
    def from_pep(cls, pep: Any) -> ExactData:
        """From a :class:`fairtheory.worstcase.sdp.PEP` (its :meth:`export`)."""
        return cls.from_export(pep.export())

    @classmethod
    def from_solution(cls, sol: Any) -> ExactData:
        """From the float data a solve keeps (``rows . x <= consts``, ``objective_row . x + objective_const``): the
        exact binary values of the doubles."""
        if sol.rows is None or sol.objective_row is None:
            raise FairtheoryValueError("sol must keep its data (rows, consts, objective_row): a PEP.solve result")
        R = sol.rows.tocsr()
        dim = int(sol.dim)
        nG = dim * (dim + 1) // 2
        rows = []
        for i in range(R.shape[0]):
            acc: dict[int, Fraction] = {}
            for j, v in zip(R.indices[R.indptr[i]:R.indptr[i + 1]].tolist(),
                            R.data[R.indptr[i]:R.indptr[i + 1]].tolist(), strict=True):
                acc[j] = acc.get(j, Fraction(0)) + Fraction(v)
            rows.append((tuple(sorted((j, v) for j, v in acc.items() if v != 0)), -Fraction(float(sol.consts[i]))))
        obj = np.asarray(sol.objective_row, dtype=np.float64)
        o = tuple((j, Fraction(float(v))) for j, v in enumerate(obj.tolist()) if v != 0)
        return cls(dim, R.shape[1] - nG, int(sol.n_eq), tuple(rows), (o, Fraction(float(sol.objective_const))),
                   "solution")

    def fingerprint(self) -> str:
        """A hash of the exact data (a lower bound names the PEP it is for)."""
        h = hashlib.sha256()
        h.update(f"{self.dim},{self.nf},{self.n_eq};".encode())
        for terms, c in (*self.rows, self.objective):
            h.update((",".join(f"{j}:{v}" for j, v in terms) + f"|{c};").encode())
        return h.hexdigest()

    def evaluate(self, x: Sequence[Fraction], row: Row) -> Fraction:
        terms, c = row
        return sum((v * x[j] for j, v in terms), c)


def _natural_point(G: Sequence[Sequence[Fraction]], F: Sequence[Fraction]) -> list[Fraction]:
    dim = len(G)
    x = [Fraction(0)] * (dim * (dim + 1) // 2)
    for b in range(dim):
        for a in range(b + 1):
            x[_nat(a, b)] = G[a][b]
    return x + list(F)


def _gram(W: Sequence[Sequence[Fraction]], w: Sequence[Fraction], dim: int) -> list[list[Fraction]]:
    """``W diag(w) W^T`` exactly (``W``: ``dim x k``)."""
    G = [[Fraction(0)] * dim for _ in range(dim)]
    for a in range(dim):
        for b in range(a, dim):
            s = sum((W[a][i] * W[b][i] * w[i] for i in range(len(w)) if W[a][i] and W[b][i]), Fraction(0))
            G[a][b] = G[b][a] = s
    return G


@dataclass(frozen=True)
class LowerBound:
    """An exactly feasible point ``(G, F)`` of the PEP ``data`` and ``value <= obj(G, F)``: a rigorous lower bound
    on the PEP's worst case once :meth:`verify` returns ``True``.  ``W``, ``w``: ``G = W diag(w) W^T``, ``w >= 0``
    (the PSD witness; ``None``: :meth:`verify` runs the exact PSD test on ``G``).  ``info``: how it was built
    (rank, the mixing weight ``t``, the violations repaired, the source of the float point)."""

    data: ExactData
    G: tuple[tuple[Fraction, ...], ...]
    F: tuple[Fraction, ...]
    value: Fraction
    W: tuple[tuple[Fraction, ...], ...] | None = None
    w: tuple[Fraction, ...] | None = None
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    def verify(self, data: ExactData | Any | None = None) -> bool:
        """Re-check from scratch in exact arithmetic: ``data`` (default: the bound's own; an :class:`ExactData`, a
        ``PEP`` or its export) is the PEP this bound is for (the same exact data), ``G`` is ``dim x dim`` symmetric
        and PSD (``G == W diag(w) W^T`` with ``w >= 0``, or the exact PSD test when no factor is given), every
        equality row is ``0`` and every inequality row ``<= 0`` at ``(G, F)``, and ``value <= obj(G, F)``."""
        d = self.data
        if data is not None:
            other = data if isinstance(data, ExactData) else (
                ExactData.from_export(data) if isinstance(data, Mapping) else ExactData.from_pep(data))
            if other.fingerprint() != d.fingerprint():
                return False
        dim = d.dim
        G = [[Fraction(v) for v in r] for r in self.G]
        if len(G) != dim or any(len(r) != dim for r in G) or len(self.F) != d.nf:
            return False
        if any(G[a][b] != G[b][a] for a in range(dim) for b in range(a)):
            return False
        if self.W is not None or self.w is not None:
            if self.W is None or self.w is None or len(self.W) != dim or any(len(r) != len(self.w) for r in self.W):
                return False
            w = [Fraction(v) for v in self.w]
            if any(v < 0 for v in w):
                return False
            if _gram([[Fraction(v) for v in r] for r in self.W], w, dim) != G:
                return False
        elif not is_psd({(a, b): G[a][b] for b in range(dim) for a in range(b + 1) if G[a][b] != 0}, dim):
            return False
        x = _natural_point(G, [Fraction(v) for v in self.F])
        for i, row in enumerate(d.rows):
            r = d.evaluate(x, row)
            if (r != 0) if i < d.n_eq else (r > 0):
                return False
        return Fraction(self.value) <= d.evaluate(x, d.objective)


# ------------------------------------------------------------------------------------------------ construction
def _factor(G: np.ndarray, rank_rtol: float) -> list[list[Fraction]]:
    """``V`` (``dim x r``, exact binary values of the doubles) with ``V V^T ~ G``."""
    G = np.asarray(G, dtype=np.float64)
    G = (G + G.T) / 2
    lam, U = np.linalg.eigh(G)
    top = float(lam.max()) if lam.size else 0.0
    keep = lam > rank_rtol * top if top > 0 else np.zeros(lam.size, dtype=bool)
    V = U[:, keep] * np.sqrt(lam[keep])
    return [[Fraction(float(v)) for v in r] for r in V]


def _restore_equalities(d: ExactData, x: list[Fraction]) -> list[Fraction]:
    """``x`` with its ``F`` part corrected (exact Gaussian elimination) so that every equality row is ``0``."""
    if d.n_eq == 0:
        return x
    nG = d.nG
    res = [-d.evaluate(x, d.rows[i]) for i in range(d.n_eq)]
    if all(r == 0 for r in res):
        return x
    A = [[dict(d.rows[i][0]).get(nG + k, Fraction(0)) for k in range(d.nf)] + [res[i]] for i in range(d.n_eq)]
    piv: list[int] = []
    r = 0
    for c in range(d.nf):
        p = next((i for i in range(r, len(A)) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        inv = 1 / A[r][c]
        A[r] = [v * inv for v in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c] != 0:
                f = A[i][c]
                A[i] = [u - f * v for u, v in zip(A[i], A[r], strict=True)]
        piv.append(c)
        r += 1
    if any(A[i][-1] != 0 for i in range(r, len(A))):
        raise LowerBoundError("the equality rows cannot be restored by a change of the function values F")
    x = list(x)
    for i, c in enumerate(piv):
        x[nG + c] += A[i][-1]
    return x


def _rounded(d: ExactData, G: np.ndarray, F: np.ndarray, rank_rtol: float) -> tuple[list[list[Fraction]], list[Fraction]]:
    """``(V, x)``: the factor and the natural point ``[V V^T, F]`` (equalities restored)."""
    V = _factor(G, rank_rtol)
    Gx = _gram(V, [Fraction(1)] * (len(V[0]) if V else 0), d.dim)
    x = _natural_point(Gx, [Fraction(float(v)) for v in np.asarray(F, dtype=np.float64).ravel()])
    return V, _restore_equalities(d, x)


def interior_point(d: ExactData, *, cap: float = 1.0, trace_cap: float | None = None) -> tuple[np.ndarray, np.ndarray,
                                                                                               float]:
    """A float point with every inequality row ``<= -s`` for the largest ``s <= cap`` Clarabel finds (the equality
    rows ``= 0``, ``G >= 0``, ``tr G <= trace_cap`` when given): ``(G, F, s)``.  Untrusted: :func:`lower_bound`
    rounds it and checks its slacks exactly."""
    dim, nG, nf = d.dim, d.nG, d.nf
    nx = nG + nf + 1                           # [svec(G), F, s]
    sq2 = math.sqrt(2.0)
    off = np.ones(nG)
    for b in range(dim):
        for a in range(b):
            off[_nat(a, b)] = 1 / sq2           # the coefficient of G_ab on svec_ab = sqrt 2 G_ab
    ri, ci, vv, bb = [], [], [], []
    m = 0
    for i, (terms, c) in enumerate(d.rows):
        for j, v in terms:
            ri.append(m)
            ci.append(j)
            vv.append(float(v) * (off[j] if j < nG else 1.0))
        if i >= d.n_eq:
            ri.append(m)
            ci.append(nx - 1)
            vv.append(1.0)
        bb.append(-float(c))
        m += 1
    ri.append(m)                               # s <= cap
    ci.append(nx - 1)
    vv.append(1.0)
    bb.append(float(cap))
    m += 1
    n_nonneg = m - d.n_eq
    if trace_cap is not None:
        for a in range(dim):
            ri.append(m)
            ci.append(_nat(a, a))
            vv.append(1.0)
        bb.append(float(trace_cap))
        m += 1
        n_nonneg += 1
    for j in range(nG):                        # -svec(G) + s_psd = 0, s_psd in the PSD triangle cone
        ri.append(m + j)
        ci.append(j)
        vv.append(-1.0)
    bb.extend([0.0] * nG)
    A = sp.csc_matrix((vv, (ri, ci)), shape=(m + nG, nx))
    q = np.zeros(nx)
    q[-1] = -1.0
    cones = ([clarabel.ZeroConeT(d.n_eq)] if d.n_eq else []) + [clarabel.NonnegativeConeT(n_nonneg),
                                                                 clarabel.PSDTriangleConeT(dim)]
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.presolve_enable = False
    sol = clarabel.DefaultSolver(sp.csc_matrix((nx, nx)), q, A, np.asarray(bb), cones, st).solve()
    x = np.asarray(sol.x)
    G = np.zeros((dim, dim))
    for b in range(dim):
        for a in range(b + 1):
            G[a, b] = G[b, a] = x[_nat(a, b)] * off[_nat(a, b)]
    return G, x[nG:nG + nf], float(x[-1])


def lower_bound(data: ExactData | Any, G: np.ndarray, F: np.ndarray, *, rank_rtol: float = RANK_RTOL,
                interior: tuple[np.ndarray, np.ndarray] | None = None, source: str = "") -> LowerBound:
    """A verified :class:`LowerBound` of the PEP ``data`` (an :class:`ExactData`, a ``PEP`` or its export) from a
    float point ``(G, F)`` of it (module doc).  ``interior``: a float point with positive slack on every inequality
    (default: :func:`interior_point`), used only when the rounded point violates a row.  Raises
    :class:`LowerBoundError` when no exactly feasible point is found (an infeasible float point that mixing cannot
    repair, equalities that ``F`` cannot absorb)."""
    d = data if isinstance(data, ExactData) else (
        ExactData.from_export(data) if isinstance(data, Mapping) else ExactData.from_pep(data))
    G = np.asarray(G, dtype=np.float64)
    if G.shape != (d.dim, d.dim) or np.asarray(F).size != d.nf:
        raise FairtheoryValueError(f"G must be {d.dim} x {d.dim} and F hold {d.nf} values (the PEP's), got "
                                   f"{G.shape} and {np.asarray(F).size}")
    if not (np.all(np.isfinite(G)) and np.all(np.isfinite(F))):
        raise FairtheoryValueError("G and F must be finite")
    V, x = _rounded(d, G, F, rank_rtol)
    slack = [-d.evaluate(x, r) for r in d.rows[d.n_eq:]]
    viol = {i: -s for i, s in enumerate(slack) if s < 0}
    info: dict[str, Any] = {"rank": len(V[0]) if V else 0, "violated": len(viol),
                            "max_violation": float(max(viol.values())) if viol else 0.0, "source": source,
                            "data": d.source}
    t, V0, x0 = Fraction(1), None, None
    if viol:
        if interior is None:
            Gi, Fi, s = interior_point(d, trace_cap=10.0 * (1.0 + float(np.trace(G))))
            info["interior_slack"] = s
        else:
            Gi, Fi = interior
        V0, x0 = _rounded(d, np.asarray(Gi), np.asarray(Fi), rank_rtol)
        s0 = [-d.evaluate(x0, r) for r in d.rows[d.n_eq:]]
        if any(v < 0 for v in s0):
            raise LowerBoundError("the interior point is not exactly feasible after rounding")
        bad = [i for i in viol if s0[i] <= 0]
        if bad:
            raise LowerBoundError(f"rows {bad[:5]} are violated by the rounded point and tight at the interior one")
        t = min(s0[i] / (s0[i] + viol[i]) for i in viol)
        t = Fraction(math.floor(t * 2**MIX_BITS), 2**MIX_BITS)
        info["t"] = float(t)
        info["one_minus_t"] = float(1 - t)
    if V0 is None:
        W, w = V, [Fraction(1)] * info["rank"]
    else:
        W = [r + r0 for r, r0 in zip(V, V0, strict=True)]
        w = [t] * len(V[0]) + [1 - t] * len(V0[0])
    Gx = _gram(W, w, d.dim)
    F_ = x[d.nG:] if x0 is None else [t * a + (1 - t) * b for a, b in zip(x[d.nG:], x0[d.nG:], strict=True)]
    value = d.evaluate(_natural_point(Gx, F_), d.objective)
    lb = LowerBound(d, tuple(tuple(r) for r in Gx), tuple(F_), value, tuple(tuple(r) for r in W), tuple(w), info)
    if not lb.verify():
        raise LowerBoundError("the constructed point does not verify (a bug: report it)")
    return lb


def lower_bound_pep(pep: Any, sol: Any | None = None, *, gmp: str = "auto") -> LowerBound:
    """:func:`lower_bound` of a :class:`fairtheory.worstcase.sdp.PEP` on its exported data (:meth:`PEP.export`:
    exact for ``PEP(exact=True)``, the doubles' binary values otherwise) from ``sol`` (default ``pep.solve(gmp=gmp)``:
    SDPA-GMP where it is installed and the PEP small enough, else Clarabel)."""
    if sol is None:
        sol = pep.solve(gmp=gmp)
    data = ExactData.from_pep(pep)
    best = lower_bound(data, sol.gram, sol.F, source=str(getattr(sol, "solver", "")))
    if getattr(sol, "solver", "") != "sdpa-gmp":
        # a float solve is feasible to ~1e-9 only: the KKT point of the Newton polish (~1e-15) usually gives a
        # tighter bound; both are verified, the larger is kept
        try:
            got = newton_polish(sol)
            pol = None if got is None else lower_bound(data, got[0].gram, got[0].F, source=f"{sol.solver}+newton")
        except (LowerBoundError, FairtheoryValueError, np.linalg.LinAlgError, ValueError):
            pol = None
        if pol is not None and pol.value > best.value:
            best = pol
    return best
