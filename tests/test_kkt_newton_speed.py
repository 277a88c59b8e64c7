"""The KKT Newton of :mod:`fairtheory.proofs.search` in its cheaper forms.

* :func:`~fairtheory.proofs.search._kkt_newton_lowrank` seeks the step of ``V`` (``Gram = V V^T``) as ``V A + W B``
  (``A`` symmetric, ``W`` an orthonormal basis of ``range(V)^perp``): ``dim r - r (r - 1)/2`` unknowns of ``V`` - the
  dimension of the rank-``r`` face - instead of ``dim r`` (the rotations ``V -> V Q`` left out), and as many
  complementarity rows (``S V = 0`` rotated, less the antisymmetric part of ``V^T S V``): a square system.  Checked
  here on the shape of every least-squares system it solves, and on its point: a float-feasible KKT point at Lieder's
  tight value ``(2/(N+1))^2`` of Halpern's iteration, as the full Newton's.
* :func:`~fairtheory.proofs.search._kkt_newton` (the full Gram) builds the complementarity block ``S dGram`` in one
  scatter: its result is compared with the reference loop's, bitwise, on the same data.
* :func:`fairtheory.worstcase.gram.gram_coordinates` factors in one BLAS thread (OpenBLAS's idle workers cost more
  than a 26 x 26 ``eigh`` itself) and its vectors reproduce the Gram matrix.
No timing is asserted.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import scipy.linalg

from fairtheory.proofs import search
from fairtheory.worstcase import solvers


def halpern_export(n: int) -> dict[str, Any]:
    """Halpern's iteration on a nonexpansive operator with a fixed point, ``||x_0 - x*||^2 <= 1``, ``n`` steps (exact
    data); its worst case ``||x_n - T x_n||^2`` is ``(2/(n+1))^2`` (Lieder 2021, Thm 2.1)."""
    from fairtheory.worstcase.operators import Nonexpansive, apply, declare_fixed_point, operator
    from fairtheory.worstcase.sdp import PEP, sqnorm

    pep = PEP()
    T = operator(pep, Nonexpansive(), "T")
    declare_fixed_point(T)
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    for t in range(n):
        x = Fraction(1, t + 2) * x0 + (1 - Fraction(1, t + 2)) * apply(T, x)
    pep.maximize(sqnorm(x - apply(T, x)))
    return pep.export()


def reference(n: int) -> tuple[solvers.ExportedPEP, solvers.FloatSolve, np.ndarray, int]:
    """The exported Halpern PEP, Clarabel's solve of it, its primal active set (rows within ``1e-6``) and the
    reference Gram matrix's rank (:func:`search.kkt_rank`)."""
    P = solvers.exported_pep(halpern_export(n), "test")
    ref = solvers.solve_clarabel(P)
    assert ref.ok and ref.gram is not None and ref.F is not None
    rows = np.asarray(P.MG @ ref.gram.reshape(-1)).ravel() + np.asarray(P.AF @ ref.F).ravel() + P.c
    act = rows >= -1e-6 * max(1.0, float(np.abs(P.c).max()))
    act[: P.n_eq] = True
    r = search.kkt_rank(ref.gram)
    assert r is not None and 1 <= r < P.dim
    return P, ref, act, r


@pytest.mark.parametrize("n", [6, 10])
def test_lowrank_least_squares_have_the_face_dimension(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    P, ref, act, r = reference(n)
    shapes: list[tuple[int, int]] = []
    real = scipy.linalg.lstsq

    def spy(a: Any, b: Any, *args: Any, **kw: Any) -> Any:
        shapes.append(np.shape(a))
        return real(a, b, *args, **kw)

    monkeypatch.setattr(scipy.linalg, "lstsq", spy)
    got = search._kkt_newton(P, ref, act, rank=r)
    monkeypatch.undo()
    assert got is not None, "the rank-r KKT Newton must converge on Halpern's PEP"
    d, nf, nA = P.dim, P.nf, int(act.sum())
    assert shapes, "the Newton took no step"
    face = d * r - r * (r - 1) // 2
    want = (face + nf + nA, face + nf + nA)  # square: the complementarity rows reduced to the face's dimension too
    assert all(s == want for s in shapes), (shapes, want)
    # the face's dimension is below the unknowns (and rows) of V itself as soon as r >= 2
    assert face < d * r


@pytest.mark.parametrize("n", [6, 10])
def test_lowrank_point_is_the_full_newtons_and_the_tight_value(n: int) -> None:
    P, ref, act, r = reference(n)
    low = search._kkt_newton(P, ref, act, rank=r)
    full = search._kkt_newton(P, ref, act)
    assert low is not None and full is not None
    tight = (2.0 / (n + 1)) ** 2
    for obj, lam, G, tight_rows in (low, full):
        assert math.isclose(obj, tight, rel_tol=1e-12)
        assert float(np.linalg.eigvalsh(G)[0]) >= -1e-12 * float(np.abs(G).max())
        S = P.slack(lam)
        assert float(np.abs(S @ G).max()) <= 1e-10 * max(1.0, float(np.abs(G).max()))
        # a float-feasible primal point: every row <= 1e-12 (its worst-case Gram need not be unique: Halpern's optimal
        # face holds more than one point, so the two Newtons' Grams are compared through their rows and value only)
        rows = np.asarray(P.MG @ G.reshape(-1)).ravel() + P.c
        assert float(rows[P.n_eq:].max()) <= 1e-12 and float(np.abs(rows[: P.n_eq]).max(initial=0.0)) <= 1e-12
        assert bool(tight_rows[act].all())


def _kkt_newton_loop(P: solvers.ExportedPEP, ref: solvers.FloatSolve, active: np.ndarray, zeros: tuple[int, ...]
                     ) -> Any:
    """:func:`search._kkt_newton` (full Gram) with its complementarity block built column by column, the form it had
    before the scatter (reference for the bitwise comparison)."""
    d, nf = P.dim, P.nf
    iu = np.triu_indices(d)
    ng = len(iu[0])
    A_idx = np.flatnonzero(active)
    nA = len(A_idx)
    MG = P.MG.toarray()
    Dm = np.zeros((d * d, ng))
    Dm[iu[0] * d + iu[1], np.arange(ng)] = 1.0
    Dm[iu[1] * d + iu[0], np.arange(ng)] = 1.0
    rowsG = MG @ Dm
    AF = P.AF.toarray()
    MA = MG[A_idx]
    zs = sorted(set(zeros))
    Bi = np.array([i for i in range(d) if i not in set(zs)], dtype=int)
    bb = (Bi[:, None] * d + Bi[None, :]).reshape(-1)
    zrows = np.array([i * d + j for i in zs for j in range(d)], dtype=int)
    resid = search._kkt_residual(P, A_idx, zs, MA, rowsG, AF)
    g, F, lam = ref.gram[iu].copy(), ref.F.copy(), np.asarray(ref.z, dtype=float)[A_idx].copy()
    res, G, S = resid(g, F, lam)
    J1 = np.hstack([rowsG[A_idx], AF[A_idx], np.zeros((nA, nA))])
    J2 = np.hstack([np.zeros((nf, ng + nf)), AF[A_idx].T])
    rows_of = np.arange(d) * d
    for it in range(10):
        err = float(np.abs(res).max()) if np.all(np.isfinite(res)) else math.inf
        if err < 1e-15 or (it >= 5 and err > 1e-9) or not math.isfinite(err):
            break
        Sz = S.copy()
        Sz[zs, :] = 0.0
        Sz[:, zs] = 0.0
        K1 = np.zeros((d * d, ng))
        for j, (c, e) in enumerate(zip(*iu, strict=True)):
            K1[rows_of + e, j] += Sz[:, c]
            if c != e:
                K1[rows_of + c, j] += Sz[:, e]
        Gz = G.copy()
        Gz[zs, :] = 0.0
        Gz[:, zs] = 0.0
        K2 = (MA.reshape(nA, d, d) @ Gz).reshape(nA, d * d).T
        J = np.vstack([J1, J2, np.hstack([K1[bb], np.zeros((len(bb), nf)), K2[bb]]),
                       np.hstack([np.zeros((len(zrows), ng + nf)), MA[:, zrows].T])])
        step = scipy.linalg.lstsq(J, -res, cond=np.finfo(float).eps * max(J.shape), lapack_driver="gelsy",
                                  check_finite=False)[0]  # the least squares _kkt_newton takes
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
    return search._kkt_accept(P, active, zs, g, F, lam, resid=resid, rowsG=rowsG, AF=AF)


@pytest.mark.parametrize("zeros", [(), (0,)])
def test_full_newton_scatter_is_bitwise_the_loop(zeros: tuple[int, ...]) -> None:
    P, ref, act, _ = reference(6)
    with search._one_blas_thread():
        new = search._kkt_newton(P, ref, act, zeros)
        old = _kkt_newton_loop(P, ref, act, zeros)
    assert (new is None) == (old is None)
    if new is not None and old is not None:
        assert new[0] == old[0]
        for a, b in zip(new[1:], old[1:], strict=True):
            assert np.array_equal(a, b)
    if not zeros:
        assert new is not None and math.isclose(new[0], (2.0 / 7) ** 2, rel_tol=1e-12)


def test_gram_coordinates_factor_in_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`fairtheory.worstcase.gram.gram_coordinates` factors the Gram matrix with BLAS limited to one thread
    (OpenBLAS wakes its workers for ``eigh`` from dimension 26 on), and its vectors reproduce the Gram matrix."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from types import SimpleNamespace

    from fairtheory.worstcase import gram as gram_mod

    rng = np.random.default_rng(7)
    d = 30
    B = rng.standard_normal((d, 4))
    G = B @ B.T
    threads: list[int] = []
    real_eigh = np.linalg.eigh

    def spy(a: Any, *args: Any, **kw: Any) -> Any:
        threads.extend(int(i["num_threads"]) for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas")
        return real_eigh(a, *args, **kw)

    monkeypatch.setattr(np.linalg, "eigh", spy)
    coords = gram_mod.gram_coordinates(SimpleNamespace(gram=G, dim=d))  # type: ignore[arg-type]
    monkeypatch.undo()
    assert threads and all(t == 1 for t in threads), threads
    X = np.stack([coords(gram_mod.Vec(np.eye(d)[k])) for k in range(d)])  # row k: the point of e_k
    assert X.shape == (d, 4)
    assert np.allclose(X @ X.T, G, rtol=0, atol=1e-10 * float(np.abs(G).max()))
