r"""Exact rational dual certificates for performance-estimation (PEP) worst cases.

A PEP (:class:`fairtheory.worstcase.sdp.PEP`) maximises over a Gram matrix ``G >= 0`` and function
values ``F``

.. math:: \langle C, G\rangle + c^\top F + c_0 \quad\text{s.t.}\quad
          \langle A_k, G\rangle + a_k^\top F + b_k \le 0 \;(k \in I), \qquad = 0 \;(k \in E).

Weak duality: for multipliers ``lambda_k >= 0`` (``k in I``; free for ``k in E``) with

(i)   ``sum_k lambda_k a_k = c`` (the function values cancel exactly),
(ii)  ``S = sum_k lambda_k A_k - C`` positive semidefinite,

every feasible ``(G, F)`` has objective ``= -<S, G> + sum_k lambda_k (<A_k,G> + a_k F + b_k) + c_0 -
sum_k lambda_k b_k <= c_0 - sum_k lambda_k b_k`` =: the bound (iii).  A :class:`Certificate` is such a
rational ``lambda`` together with the exact problem data; :meth:`Certificate.check` and
:func:`check_certificate` recompute (i)-(iii) in exact arithmetic (``S >= 0`` by the fraction-free
``L D L^T`` of :func:`fairtheory.proofs.exact_linalg.ldl_pivots`).  The bound in the caller's units is
``scale * (c_0 - sum_k lambda_k b_k)`` (the PEPs are solved in normalised units).

Obtaining ``lambda`` (:func:`certify`): the float SDP's dual multipliers (Clarabel's ``z``) satisfy (i)
and (ii) only approximately, and PEP duals are rank deficient (``S`` has a null space where the worst
case ``G`` lives), so rounding alone usually breaks (ii).  The route taken:

1. *back off*: re-solve the PEP with objective ``+ delta * sum_{i in B} G_ii`` (``delta`` growing
   ``0, 1e-11, ..., 1e-6`` relative to the value).  Its dual slack is ``S' + delta I_B`` with
   ``S' >= 0``, i.e. ``S >= delta`` on ``B``: a margin the rounding cannot destroy.  The bound grows by
   about ``delta tr_B(G)`` - the "back off the bound by a small rational" step.  ``B`` is every basis
   index except the *structural zeros* ``Z``: indices whose row of ``S`` must vanish in every
   certificate (e.g. the free model of a one-round potential PEP, where the objective is 0 along a
   whole ray of zero functions); they are found from the float dual (diagonal of ``S`` at 0) and
   imposed exactly as linear equations ``S_{i,:} = 0``;
2. round ``lambda`` to a dyadic grid, drop non-positive entries, and *project* back onto the linear
   equalities (i) (and ``S_{Z,:} = 0``) exactly: :func:`fairtheory.proofs.exact_linalg.solve_sparse`
   changes only pivot multipliers, the largest ones first (dependent rows allowed);
3. check ``lambda >= 0`` and (ii) exactly; the certified bound must lie within ``rtol`` (default
   ``1e-6``) relative of the PEP value, else the next ``delta`` is tried and finally
   :class:`~fairtheory.errors.SolverError` is raised.

:func:`certify_exact` instead asks for a certificate whose bound *equals* a given rational (e.g. a
closed form): multipliers recovered at small denominators (``Fraction.limit_denominator``), projected
onto (i), ``S_{Z,:} = 0`` and ``bound = target``, and (ii) checked with no back-off.

What a certificate proves: the bound holds for the PEP *data as exported*, i.e. for the parameters
exactly as the builder received them (rational parameters stay rational; a float such as
``beta = 0.1`` is the binary double nearest 1/10).  The data are part of the JSON, so a reader checks
the data against the method and the bound against the data.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fairtheory.proofs.exact_linalg import ldl_pivots, solve_sparse

__all__ = ["Certificate", "certify", "certify_exact", "check_certificate", "verify_multipliers", "fraction_str",
           "MAX_DIM", "MAX_ROWS"]

#: checker limits (hostile input beyond them is rejected, not computed)
MAX_DIM = 600
MAX_ROWS = 2_000_000
_MAX_DIGITS = 4000
_MAX_ENTRIES = 5_000_000

Row = tuple[dict[tuple[int, int], Fraction], dict[int, Fraction], Fraction]


# ----------------------------------------------------------------------------------------------- exact core
def verify_multipliers(rows: Sequence[Row], objective: Row, mult: Sequence[Fraction], *, dim: int, nf: int,
                       n_eq: int) -> Fraction | None:
    r"""The bound ``c_0 - sum_k lambda_k b_k`` (normalised units) when (i) and (ii) hold exactly and
    ``lambda_k >= 0`` for the inequalities, else ``None``.  Pure integer/:class:`Fraction` arithmetic."""
    if len(mult) != len(rows):
        return None
    CG, cF, c0 = objective
    F: dict[int, Fraction] = {}
    S: dict[tuple[int, int], Fraction] = {}
    bound = c0
    for k, (lam, (G, a, b)) in enumerate(zip(mult, rows, strict=True)):
        if k >= n_eq and lam < 0:
            return None
        if lam == 0:
            continue
        for key, v in a.items():
            F[key] = F.get(key, Fraction(0)) + lam * v
        for key, v in G.items():
            S[key] = S.get(key, Fraction(0)) + lam * v
        bound -= lam * b
    for key, v in cF.items():
        F[key] = F.get(key, Fraction(0)) - v
    if any(v != 0 for v in F.values()):
        return None
    for key, v in CG.items():
        S[key] = S.get(key, Fraction(0)) - v
    S = {key: v for key, v in S.items() if v != 0}
    if ldl_pivots(S, dim) is None:
        return None
    return bound


@dataclass
class Certificate:
    r"""Rational dual multipliers proving ``PEP value <= bound`` (see the module doc).

    ``bound`` is in the caller's units (``scale * bound_normalised``); ``multipliers`` follow the PEP's
    constraint order (equalities, interpolation conditions, user inequalities); ``data`` is the PEP's
    exact export (:meth:`fairtheory.worstcase.sdp.PEP.export`)."""

    data: dict[str, Any]
    multipliers: list[Fraction]
    scale: Fraction
    bound: Fraction
    bound_normalised: Fraction
    value: float                 #: the float PEP value (caller's units) the bound certifies
    delta: float                 #: back-off used (relative; 0 = none)
    structural_zeros: list[int]
    seconds: float
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def rel_excess(self) -> float:
        """``(bound - value) / max(|value|, tiny)``: how far the certified bound lies above the PEP value."""
        return float(self.bound - Fraction(self.value)) / max(abs(self.value), 1e-300) if math.isfinite(
            self.value) else math.inf

    def check(self) -> bool:
        """Recompute (i)-(iii) exactly from the multipliers and the data: ``True`` iff valid and the stated
        bound is the recomputed one."""
        b = verify_multipliers(self.data["rows"], self.data["objective"], self.multipliers, dim=self.data["dim"],
                               nf=self.data["nf"], n_eq=self.data["n_eq"])
        return b is not None and self.scale > 0 and b == self.bound_normalised and self.scale * b == self.bound

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: ``kind``, sizes, every row and the objective (rational strings), ``multipliers``,
        ``scale`` and ``bound`` (caller's units); ``meta`` is informational (not checked)."""
        return {
            "kind": "pep-dual", "version": 1,
            "dim": self.data["dim"], "nf": self.data["nf"], "n_eq": self.data["n_eq"],
            "rows": [_row_json(r) for r in self.data["rows"]],
            "objective": _row_json(self.data["objective"]),
            "multipliers": [fraction_str(m) for m in self.multipliers],
            "scale": fraction_str(self.scale),
            "bound": fraction_str(self.bound),
            "meta": _jsonable(self.meta | {"value": self.value, "delta": self.delta,
                                           "structural_zeros": self.structural_zeros}),
        }


def fraction_str(q: Fraction) -> str:
    """``"p/q"`` (``"p"`` for an integer)."""
    return str(q)


def _row_json(r: Row) -> dict[str, Any]:
    G, F, c = r
    return {"G": [[a, b, str(v)] for (a, b), v in sorted(G.items())],
            "F": [[k, str(v)] for k, v in sorted(F.items())], "c": str(c)}


def _jsonable(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return x
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return f if math.isfinite(f) else str(f)


def _times(x: float, q: Fraction) -> float:
    if not math.isfinite(x):
        return x
    try:
        return float(Fraction(x) * q)
    except OverflowError:
        return math.inf if x * q > 0 else -math.inf


# ----------------------------------------------------------------------------------------------- checker
_RAT = re.compile(r"-?[0-9]+(/[0-9]+)?")


class _Bad(Exception):
    pass


def _q(s: Any) -> Fraction:
    if isinstance(s, bool):
        raise _Bad
    if isinstance(s, int):
        if abs(s).bit_length() > 4 * _MAX_DIGITS:
            raise _Bad
        return Fraction(s)
    if not isinstance(s, str) or len(s) > 2 * _MAX_DIGITS + 2 or not _RAT.fullmatch(s):
        raise _Bad
    num, _, den = s.partition("/")
    d = int(den) if den else 1
    if d <= 0:
        raise _Bad
    return Fraction(int(num), d)


def _idx(x: Any, hi: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < hi:
        raise _Bad
    return x


def _parse_row(r: Any, dim: int, nf: int, budget: list[int]) -> Row:
    if not isinstance(r, Mapping):
        raise _Bad
    Gl, Fl, c = r.get("G"), r.get("F"), r.get("c")
    if not isinstance(Gl, list) or not isinstance(Fl, list):
        raise _Bad
    budget[0] -= len(Gl) + len(Fl) + 1
    if budget[0] < 0:
        raise _Bad
    G: dict[tuple[int, int], Fraction] = {}
    for e in Gl:
        if not isinstance(e, list) or len(e) != 3:
            raise _Bad
        a, b = _idx(e[0], dim), _idx(e[1], dim)
        if a > b or (a, b) in G:
            raise _Bad
        G[(a, b)] = _q(e[2])
    F: dict[int, Fraction] = {}
    for e in Fl:
        if not isinstance(e, list) or len(e) != 2:
            raise _Bad
        k = _idx(e[0], nf)
        if k in F:
            raise _Bad
        F[k] = _q(e[1])
    return G, F, _q(c)


def check_certificate(d: Any) -> bool:
    r"""Exact re-check of a ``"pep-dual"`` certificate dict (:meth:`Certificate.to_json`): parses every
    rational string, recomputes (i) the function-value cancellation, (ii) ``S >= 0`` by exact ``L D L^T``
    and (iii) ``scale * (c_0 - sum_k lambda_k b_k)``, which must equal the stated ``bound`` exactly
    (``scale > 0``; inequality multipliers ``>= 0``).  No solver, no float.  Malformed or hostile input
    (wrong types, bad indices, duplicate entries, absurd sizes) gives ``False``, never an exception."""
    try:
        return _check(d)
    except (_Bad, ValueError, TypeError, KeyError, OverflowError, ZeroDivisionError, RecursionError, MemoryError):
        return False
    except Exception:  # noqa: BLE001 - a checker of untrusted data never raises
        return False


def _check(d: Any) -> bool:
    if not isinstance(d, Mapping) or d.get("kind") != "pep-dual":
        return False
    dim, nf, n_eq = d.get("dim"), d.get("nf"), d.get("n_eq")
    for v, hi in ((dim, MAX_DIM), (nf, MAX_ROWS), (n_eq, MAX_ROWS)):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= hi:
            return False
    rows_j, mult_j = d.get("rows"), d.get("multipliers")
    if not isinstance(rows_j, list) or not isinstance(mult_j, list) or len(rows_j) != len(mult_j):
        return False
    if len(rows_j) > MAX_ROWS or n_eq > len(rows_j):
        return False
    budget = [_MAX_ENTRIES]
    mult = [_q(m) for m in mult_j]
    # only rows with a non-zero multiplier matter; the others are parsed for well-formedness
    rows = [_parse_row(r, dim, nf, budget) for r in rows_j]
    objective = _parse_row(d.get("objective"), dim, nf, budget)
    scale, bound = _q(d.get("scale")), _q(d.get("bound"))
    if scale <= 0:
        return False
    b = verify_multipliers(rows, objective, mult, dim=dim, nf=nf, n_eq=n_eq)
    return b is not None and scale * b == bound


# ----------------------------------------------------------------------------------------------- float side
def _float_solve(data: dict[str, Any], *, delta: float, B: Sequence[int], tol: float) -> tuple[str, list[float], float]:
    """Solve the exported PEP (floats) with objective ``+ delta sum_{i in B} G_ii``; returns (status, z over
    the rows, primal value)."""
    import clarabel
    import numpy as np
    import scipy.sparse as sp

    dim, nf, n_eq = data["dim"], data["nf"], data["n_eq"]
    rows = data["rows"]
    nG = dim * (dim + 1) // 2
    r2 = math.sqrt(2.0)

    def col(a: int, b: int) -> int:
        return b * (b + 1) // 2 + a

    def vec(row: Row) -> tuple[list[int], list[float]]:
        G, F, _ = row
        cs, vs = [], []
        for (a, b), v in G.items():
            cs.append(col(a, b))
            vs.append(float(v) if a == b else r2 * float(v))
        for k, v in F.items():
            cs.append(nG + k)
            vs.append(float(v))
        return cs, vs

    R, C, V, bvec = [], [], [], []
    for i, row in enumerate(rows):
        cs, vs = vec(row)
        R.extend([i] * len(cs))
        C.extend(cs)
        V.extend(vs)
        bvec.append(-float(row[2]))
    m = len(rows)
    R.extend(range(m, m + nG))
    C.extend(range(nG))
    V.extend([-1.0] * nG)
    bvec.extend([0.0] * nG)
    A = sp.csc_matrix((V, (R, C)), shape=(m + nG, nG + nf))
    A.sum_duplicates()
    q = np.zeros(nG + nf)
    cs, vs = vec(data["objective"])
    np.add.at(q, cs, [-v for v in vs])
    for i in B:
        q[col(i, i)] -= delta
    cones = []
    if n_eq:
        cones.append(clarabel.ZeroConeT(n_eq))
    if m - n_eq:
        cones.append(clarabel.NonnegativeConeT(m - n_eq))
    cones.append(clarabel.PSDTriangleConeT(dim))
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = tol
    st.tol_gap_rel = tol
    st.tol_feas = tol
    st.max_iter = 500
    st.max_threads = 1
    st.presolve_enable = False
    for k, v in _SETTINGS.items():
        setattr(st, k, v)
    sol = clarabel.DefaultSolver(sp.csc_matrix((nG + nf, nG + nf)), q, A, np.asarray(bvec), cones, st).solve()
    status = str(sol.status).split(".")[-1]
    return status, [float(x) for x in np.asarray(sol.z)[:m]], -float(sol.obj_val) + float(data["objective"][2])


_SETTINGS: dict[str, Any] = {}


def _slack_float(data: dict[str, Any], z: Sequence[float]) -> Any:
    import numpy as np

    dim = data["dim"]
    S = np.zeros((dim, dim))
    for lam, (G, _, _) in zip(z, data["rows"], strict=True):
        if lam != 0:
            for (a, b), v in G.items():
                S[a, b] += lam * float(v)
    for (a, b), v in data["objective"][0].items():
        S[a, b] -= float(v)
    return np.triu(S) + np.triu(S, 1).T


def _structural_zeros(data: dict[str, Any], z: Sequence[float], rel: float = 1e-7) -> list[int]:
    S = _slack_float(data, z)
    import numpy as np

    top = max(1.0, float(np.abs(S).max()))
    return [i for i in range(data["dim"]) if S[i, i] <= rel * top]


def _null_space(data: dict[str, Any], z: Sequence[float], rel: float = 1e-6,
                den: int = 10**6, fit: float = 1e-10) -> list[dict[int, Fraction]]:
    """Rational basis (reduced row echelon form, entries recovered at small denominators when they fit to
    ``1e-10``) of the near-null space of the float slack ``S``: eigenvalues below ``rel * max |S|``."""
    import numpy as np

    S = _slack_float(data, z)
    w, U = np.linalg.eigh(S)
    top = max(1.0, float(np.abs(S).max()))
    V = U[:, w < rel * top].T.copy()  # (r, dim)
    r, dim = V.shape
    piv_cols = []
    for i in range(r):  # numerical RREF with column pivoting on the largest entry
        rest = [c for c in range(dim) if c not in piv_cols]
        c = max(rest, key=lambda c: abs(V[i, c]))
        V[i] /= V[i, c]
        for j in range(r):
            if j != i:
                V[j] -= V[j, c] * V[i]
        piv_cols.append(c)
    out = []
    for i in range(r):
        vec: dict[int, Fraction] = {}
        for c in range(dim):
            x = float(V[i, c])
            if c in piv_cols:
                q = Fraction(int(c == piv_cols[i]))
            elif abs(x) < 1e-13:
                continue
            else:
                q = Fraction(x).limit_denominator(den)
                if abs(float(q) - x) > fit:
                    q = _round(x, 30)
            if q != 0:
                vec[c] = q
        out.append(vec)
    return out


def _round(x: float, bits: int) -> Fraction:
    return Fraction(round(math.ldexp(x, bits)), 1 << bits)


def _project(data: dict[str, Any], lam0: dict[int, Fraction], zeros: Sequence[int],
             target: Fraction | None, null: Sequence[dict[int, Fraction]] = (),
             refine: bool = False) -> list[Fraction] | None:
    """Exact multipliers near ``lam0`` (support only) with (i), ``S_{Z,:} = 0``, ``S v = 0`` for every ``v`` in
    ``null`` and optionally ``bound = target``."""
    rows, (CG, cF, c0) = data["rows"], data["objective"]
    n_eq = data["n_eq"]
    support = sorted(lam0)
    # equations: one per F index, one per (i in Z, j) Gram entry, optionally the bound
    eqF: dict[int, dict[int, Fraction]] = {}
    zset = set(zeros)
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
    for key in set(eqF) | set(cF):
        eqs.append(eqF.get(key, {}))
        rhs.append(cF.get(key, Fraction(0)))
    for a, b in CG:
        if (a in zset or b in zset) and (a, b) not in eqG:
            eqG[(a, b)] = {}
    for key, e in eqG.items():
        eqs.append(e)
        rhs.append(CG.get(key, Fraction(0)))
    for v in null:  # (S v)_a = sum_b S_ab v_b = 0 for every a
        eqN: dict[int, dict[int, Fraction]] = {}
        for k in support:
            for a, coef in _matvec(rows[k][0], v).items():
                eqN.setdefault(a, {})[k] = coef
        cv = _matvec(CG, v)
        for a in set(eqN) | set(cv):
            eqs.append(eqN.get(a, {}))
            rhs.append(cv.get(a, Fraction(0)))
    if target is not None:
        eqs.append({k: rows[k][2] for k in support if rows[k][2] != 0})
        rhs.append(c0 - target)
    if refine:
        lam0 = _float_refine(eqs, rhs, lam0, n_eq)
        support = sorted(lam0)
    # residual of lam0, then a correction on pivot multipliers (equalities first, then the largest)
    res = [r - sum((v * lam0.get(k, 0) for k, v in e.items()), Fraction(0)) for e, r in zip(eqs, rhs, strict=True)]
    order = sorted(support, key=lambda k: (k >= n_eq, -abs(lam0[k])))
    # only the largest multipliers move (a few more than there are equations): bounded fill-in
    corr = solve_sparse(eqs, res, order[: 2 * len(eqs) + 8])
    if corr is None:
        return None
    lam = [Fraction(0)] * len(rows)
    for k in support:
        lam[k] = lam0[k] + corr.get(k, Fraction(0))
    return lam


def _float_refine(eqs: Sequence[Mapping[int, Fraction]], rhs: Sequence[Fraction], lam0: dict[int, Fraction],
                  n_eq: int, bits: int = 48) -> dict[int, Fraction]:
    """Weighted least-norm float correction of ``lam0`` onto the equations (changes relative to each multiplier,
    so small multipliers move little), rounded back to a dyadic grid; negative inequality multipliers -> 0."""
    import numpy as np

    cols = sorted(lam0)
    pos = {k: i for i, k in enumerate(cols)}
    M = np.zeros((len(eqs), len(cols)))
    for r, e in enumerate(eqs):
        for k, v in e.items():
            if k in pos:
                M[r, pos[k]] = float(v)
    x0 = np.array([float(lam0[k]) for k in cols])
    b = np.array([float(r) for r in rhs])
    free = np.array([k < n_eq for k in cols])
    x1 = x0.copy()
    for _ in range(4):  # weighted least-change correction; multipliers pushed below 0 are fixed at 0 and it repeats
        w = np.where(free, 1.0, np.abs(x1))
        w[(~free) & (x1 < 1e-7 * max(float(np.abs(x1).max()), 1e-300))] = 0.0  # tiny ones stay
        y = np.linalg.lstsq(M * w, b - M @ x1, rcond=None)[0]
        x1 = x1 + w * y
        neg = (~free) & (x1 < 0)
        if not neg.any():
            break
        x1[neg] = 0.0
    out = {}
    for k, x in zip(cols, x1, strict=True):
        if k >= n_eq and x <= 0:
            continue
        q = _round(float(x), bits)
        if q != 0:
            out[k] = q
    return out


def _matvec(G: Mapping[tuple[int, int], Fraction], v: Mapping[int, Fraction]) -> dict[int, Fraction]:
    """``M v`` for the symmetric ``M`` given by upper-triangle entries (sparse, exact)."""
    out: dict[int, Fraction] = {}
    for (a, b), m in G.items():
        if b in v:
            out[a] = out.get(a, Fraction(0)) + m * v[b]
        if a != b and a in v:
            out[b] = out.get(b, Fraction(0)) + m * v[a]
    return {k: x for k, x in out.items() if x != 0}


def certify(pep: Any, *, scale: Fraction | int = 1, value: float | None = None, rtol: float = 1e-6,
            meta: dict[str, Any] | None = None, deltas: Sequence[float] = (0.0, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 3e-7),
            bits: int = 48, abs_floor: float = 1e-12, null_space: bool = True) -> Certificate:
    r"""A rational dual certificate for a built PEP (objective set), bound within ``rtol`` of its value.

    ``scale``: exact factor from the PEP's normalised units to the caller's.  ``value``: the PEP value in
    normalised units (solved here when None).  ``deltas``: back-off levels tried in order (relative to
    ``max(|value|, abs_floor)``).  Raises :class:`~fairtheory.errors.SolverError` when no level gives an exact
    certificate within ``rtol``."""
    from fairtheory.errors import SolverError

    t0 = time.perf_counter()
    data = pep.export()
    scale_q = Fraction(scale)
    dim = data["dim"]
    status, z, v = _float_solve(data, delta=0.0, B=(), tol=1e-9)
    if value is None:
        value = v
    if status not in ("Solved", "AlmostSolved"):
        raise SolverError("certify: the PEP", "clarabel", status)
    ref = max(abs(value), abs_floor)
    z0 = z
    zeros = _structural_zeros(data, z)
    B = [i for i in range(dim) if i not in set(zeros)]
    tried: list[str] = []

    def attempt(zv: Sequence[float], zs: Sequence[int], null: Sequence[dict[int, Fraction]], tag: str,
                d: float) -> Certificate | None:
        zmax = max((abs(x) for x in zv), default=0.0)
        lam0 = {k: _round(x, bits) for k, x in enumerate(zv)
                if (k < data["n_eq"] and x != 0) or x > 1e-13 * max(zmax, 1e-300)}
        lam0 = {k: q for k, q in lam0.items() if q != 0}
        lam = _project(data, lam0, zs, None, null, refine=bool(null))
        if lam is None:
            tried.append(f"{tag}: projection inconsistent")
            return None
        if any(x < 0 for x in lam[data["n_eq"]:]):
            tried.append(f"{tag}: a multiplier < 0 after projection")
            return None
        bnd = verify_multipliers(data["rows"], data["objective"], lam, dim=dim, nf=data["nf"], n_eq=data["n_eq"])
        if bnd is None:
            tried.append(f"{tag}: slack not PSD")
            return None
        if abs(float(bnd) - value) > rtol * ref:
            tried.append(f"{tag}: bound {float(bnd):.10g} not within {rtol:g} of {value:.10g}")
            return None
        return Certificate(data=data, multipliers=lam, scale=scale_q, bound=scale_q * bnd, bound_normalised=bnd,
                           value=_times(value, scale_q), delta=d, structural_zeros=list(zs),
                           seconds=time.perf_counter() - t0, meta=dict(meta or {}) | {"route": tag})

    # 1. no back-off: tight multipliers projected onto the face S V = 0 (V: the slack's near-null space)
    if null_space:
        for den, fit in ((100, 1e-6), (10_000, 1e-7), (10**6, 1e-10)):
            cert = attempt(z, [], _null_space(data, z, 1e-6, den, fit), f"null-space(den={den})", 0.0)
            if cert is not None:
                return cert
    # 2. back-off: S >= delta on B
    for zs, Bs in (((zeros, B), ([], list(range(dim)))) if zeros else (([], list(range(dim))),)):
        for d in deltas:
            zd = z0
            if d > 0:
                status, zd, _ = _float_solve(data, delta=d * ref, B=Bs, tol=1e-10)
                if status not in ("Solved", "AlmostSolved"):
                    tried.append(f"delta={d:g}: {status}")
                    continue
            elif zs:
                continue  # delta = 0 was tried without structural zeros in step 1's projection
            cert = attempt(zd, zs, (), f"back-off(delta={d:g}, zeros={len(zs)})", d)
            if cert is not None:
                return cert
    raise SolverError(f"certify: no exact certificate within rtol={rtol:g} (tried " + "; ".join(tried) + ")",
                      "clarabel + exact check", "no certificate")


def certify_exact(pep: Any, target: Fraction, *, scale: Fraction | int = 1, meta: dict[str, Any] | None = None,
                  denominators: Sequence[int] = (10, 100, 1000, 10_000, 100_000, 1_000_000)) -> Certificate | None:
    r"""A certificate whose bound (normalised units) equals ``target`` exactly, or ``None``.

    Tight multipliers of the float dual, recovered at small denominators (``limit_denominator``),
    projected exactly onto (i), ``S_{Z,:} = 0`` and ``bound = target``; then (ii) with no back-off."""
    t0 = time.perf_counter()
    data = pep.export()
    dim = data["dim"]
    status, z, value = _float_solve(data, delta=0.0, B=(), tol=1e-10)
    if status not in ("Solved", "AlmostSolved"):
        return None
    zmax = max((abs(x) for x in z), default=0.0)
    nulls = [(f"null(den={d}, fit={f:g})", [], _null_space(data, z, 1e-6, d, f))
             for d, f in ((100, 1e-5), (1000, 1e-5), (100, 1e-4), (1000, 1e-6), (10_000, 1e-7))]
    for tag, zs, null in nulls + [("zeros", _structural_zeros(data, z), []), ("plain", [], [])]:
        for den in denominators:
            lam0 = {k: Fraction(x).limit_denominator(den) for k, x in enumerate(z)
                    if (k < data["n_eq"] and x != 0) or x > 1e-9 * max(zmax, 1e-300)}
            lam0 = {k: q for k, q in lam0.items() if q != 0}
            lam = _project(data, lam0, zs, Fraction(target), null, refine=bool(null))
            if lam is None:
                continue
            bnd = verify_multipliers(data["rows"], data["objective"], lam, dim=dim, nf=data["nf"], n_eq=data["n_eq"])
            if bnd is not None and bnd == target:
                sq = Fraction(scale)
                return Certificate(data=data, multipliers=lam, scale=sq, bound=sq * bnd, bound_normalised=bnd,
                                   value=_times(value, sq), delta=0.0, structural_zeros=list(zs),
                                   seconds=time.perf_counter() - t0,
                                   meta=dict(meta or {}) | {"exact_target": str(target), "denominator": den,
                                                            "route": tag})
    return None
