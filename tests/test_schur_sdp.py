"""The Schur-complement route of the symmetric reduction (fairtheory.worstcase.schur_sdp, cvxopt on the dual).

Ground truth: Clarabel's solve of the same reduced PEP (an independent interior-point method on the primal), the
rigorous bracket of fairtheory.worstcase.bracket on the full PEP (weak duality over every row, rounding bounded),
and, for the Schur complement's linear algebra, the direct ``svec`` formula ``H_ij = <L^T M_i L, L^T M_j L>``."""

from __future__ import annotations

import sys
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp

from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.worstcase import local_gd as lg
from fairtheory.worstcase import schur_sdp, symmetric
from fairtheory.worstcase.bracket import bracket, primal_objective
from fairtheory.worstcase.local_gd import rho2_expr
from fairtheory.worstcase.sdp import sqnorm
from fairtheory.worstcase.symmetric import SCHUR_MIN_BLOCK, attach, solve_symmetric

pytest.importorskip("cvxopt")


def _sym_pep(n: int, kappa: int) -> lg.Built:
    p = np.full(n, 1.0 / n)
    b = lg.build_local_gd(n=n, p=p, lr=1.0 / (8 * kappa), kappa=kappa, T_N=1, output="average")
    b.pep.add_le(sqnorm(b.x0) - 2.0 / 3.0)  # D0 = 1, rho2 = 1/2 in units of L D0 + rho2/L = 3/2
    b.pep.add_le(rho2_expr(b, p) - 1.0 / 3.0)
    b.pep.maximize(b.objective)
    assert attach(b.pep, b.funcs, b.stars, b.x0, p)
    return b


def _bracket(b: lg.Built, n: int, sol):  # type: ignore[no-untyped-def]
    return bracket(b.pep, sol, b.objective, x0=b.x0, n=n, p=np.full(n, 1.0 / n), D0_level=2.0 / 3.0,
                   rho2_level=1.0 / 3.0)


@pytest.mark.parametrize("kkt", ["chol", "lowrank", "orth"])
@pytest.mark.parametrize(("n", "kappa"), [(2, 4), (3, 3)])
def test_schur_agrees_with_clarabel(n: int, kappa: int, kkt: str) -> None:
    """The dual solved by cvxopt and the primal solved by Clarabel: the same value (both to their 1e-8 tolerance),
    each one's replayed lower end below the other's rigorous upper end, the Schur solution certified on its own,
    its Gram matrix PSD and every orbit sharing one multiplier (a dual solution of the full PEP)."""
    b = _sym_pep(n, kappa)
    sym = b.pep.symmetry
    ref = solve_symmetric(b.pep, sym, solver="clarabel")
    with mock.patch.object(symmetric, "solve_dual_schur",
                           side_effect=lambda *a, **k: schur_sdp.solve_dual_schur(*a, **{**k, "kkt": kkt})):
        sch = solve_symmetric(b.pep, sym, solver="schur")
    assert sch.status in ("Solved", "AlmostSolved")
    assert abs(primal_objective(sch) - primal_objective(ref)) <= 1e-6
    br, bs = _bracket(b, n, ref), _bracket(b, n, sch)
    assert bs.lower <= br.upper and br.lower <= bs.upper
    assert bs.upper - primal_objective(sch) <= 1e-6
    assert np.linalg.eigvalsh(sch.gram).min() >= -1e-7 * max(1.0, float(np.abs(sch.gram).max()))
    zi = sch.z[sch.n_eq:sch.n_eq + sch.n_interp].reshape(n, sch.n_interp // n)
    assert np.all(zi == zi[0]) and np.all(zi >= -1e-9)


def test_solver_rule_is_the_block_size() -> None:
    """``solver=None``: Clarabel below SCHUR_MIN_BLOCK, the Schur route from it on (a rule of sizes, no clock)."""
    small = _sym_pep(2, 3)
    with mock.patch.object(symmetric, "solve_dual_schur", wraps=schur_sdp.solve_dual_schur) as spy:
        solve_symmetric(small.pep, small.pep.symmetry)
    assert spy.call_count == 0
    assert small.pep.symmetry.block < SCHUR_MIN_BLOCK
    big = _sym_pep(2, SCHUR_MIN_BLOCK - 3)  # block m + 1 = kappa + 3 (T_N = 1)
    assert big.pep.symmetry.block == SCHUR_MIN_BLOCK
    with mock.patch.object(symmetric, "solve_dual_schur", wraps=schur_sdp.solve_dual_schur) as spy:
        s = solve_symmetric(big.pep, big.pep.symmetry, max_rounds=1)
    assert spy.call_count == 1 and s.status in ("Solved", "AlmostSolved")


def test_arguments_named() -> None:
    b = _sym_pep(2, 2)
    with pytest.raises(FairtheoryValueError, match="solver"):
        solve_symmetric(b.pep, b.pep.symmetry, solver="mosek")
    q = np.array([1.0, 0.0, 1.0, 0.0])
    R = sp.csr_matrix(np.array([[-1.0, 0.0, -1.0, 0.0]]))
    with pytest.raises(FairtheoryValueError, match="kkt"):
        schur_sdp.solve_dual_schur(q, R, np.array([-1.0]), n_eq=0, blocks=[2], kkt="qr")
    with pytest.raises(FairtheoryValueError, match="tol"):
        schur_sdp.solve_dual_schur(q, R, np.array([-1.0]), n_eq=0, blocks=[2], tol=1.0)
    with pytest.raises(FairtheoryValueError, match="shapes"):
        schur_sdp.solve_dual_schur(q[:3], R, np.array([-1.0]), n_eq=0, blocks=[2])


def test_missing_cvxopt_is_named() -> None:
    with mock.patch.dict(sys.modules, {"cvxopt": None}):
        with pytest.raises(SolverError, match="cvxopt"):
            schur_sdp.solve_dual_schur(np.zeros(3), sp.csr_matrix((1, 3)), np.zeros(1), n_eq=0, blocks=[2])


@pytest.mark.parametrize("kkt", ["chol", "lowrank", "orth"])
def test_tiny_sdp_layout(kkt: str) -> None:
    """min tr(Y) + w s.t. Y_01 >= 1 (one PSD block of size 2), w = 1 (an equality): optimum Y = [[1, 1], [1, 1]],
    value 3, the row's multiplier 2 (Clarabel's layout: R y + s = b, svec with sqrt 2 off the diagonal)."""
    r2 = np.sqrt(2.0)
    q = np.array([1.0, 0.0, 1.0, 1.0])           # svec(Y) = [Y00, sqrt2 Y01, Y11], then w
    R = sp.csr_matrix(np.array([[0.0, 0.0, 0.0, 1.0],    # w = 1
                                [0.0, -1.0 / r2, 0.0, 0.0]]))  # -Y01 <= -1
    b = np.array([1.0, -1.0])
    s = schur_sdp.solve_dual_schur(q, R, b, n_eq=1, blocks=[2], tol=1e-9, kkt=kkt)
    assert s.status in ("Solved", "AlmostSolved")
    assert s.obj_val == pytest.approx(3.0, abs=1e-6) and s.obj_val_dual == pytest.approx(3.0, abs=1e-6)
    assert s.x == pytest.approx([1.0, r2, 1.0, 1.0], abs=1e-5)
    assert s.z[1] == pytest.approx(2.0, abs=1e-5)
    # the dual slack of the block is q + R^T z restricted to svec(Y): PSD
    zs = q[:3] + R[:, :3].T @ s.z[:2]
    assert s.z[2:] == pytest.approx(zs, abs=1e-6)
    Z = np.array([[zs[0], zs[1] / r2], [zs[1] / r2, zs[2]]])
    assert np.linalg.eigvalsh(Z).min() >= -1e-6


def test_row_factors_and_schur_block() -> None:
    """Low-rank factors reproduce every row, and the Schur block from them equals the direct ``svec`` formula."""
    rng = np.random.default_rng(3)
    k, nr = 7, 12
    ca, cb = schur_sdp._svec_pairs(k)
    vs = np.where(ca == cb, 1.0, np.sqrt(2.0))
    rows, mats = [], []
    for i in range(nr):
        U = rng.standard_normal((k, 1 + i % 3))
        M = U @ np.diag(rng.choice([-1.0, 1.0], U.shape[1])) @ U.T
        mats.append(M)
        rows.append(M[ca, cb] * vs)
    F = schur_sdp.row_factors(sp.csr_matrix(np.array(rows)), k)
    assert F.V.shape == (nr, k, 3)
    back = np.einsum("ikp,ip,ilp->ikl", F.V, F.d, F.V)
    assert np.abs(back - np.array(mats)).max() <= 1e-12 * max(np.abs(m).max() for m in mats)
    L = rng.standard_normal((k, k)) + 3 * np.eye(k)
    X = np.array([(L.T @ M @ L)[ca, cb] * vs for M in mats])
    H = schur_sdp._schur_block(F, L)
    assert np.abs(H - X @ X.T).max() <= 1e-11 * np.abs(X @ X.T).max()


def test_orthonormal_factors_and_hadamard_schur_block() -> None:
    """The factored form of the scaled rows (``X_i = Q_i diag(lam_i) Q_i^T``, orthonormal ``Q_i``) reproduces
    ``L^T M_i L``, and the Schur matrix from it (``sum_pq lam_ip lam_jq (q_ip . q_jq)^2``, lower triangle) equals the
    direct ``svec`` Gram matrix - also for rows ``sym(a b^T)`` under an ill-conditioned ``L`` (``L^T a`` ``1e6`` times
    longer than ``L^T b``), where the unscaled factors' sum would cancel."""
    rng = np.random.default_rng(5)
    k, nr = 9, 40
    ca, cb = schur_sdp._svec_pairs(k)
    vs = np.where(ca == cb, 1.0, np.sqrt(2.0))
    rows, mats = [], []
    for i in range(nr):
        a, c = rng.standard_normal(k), rng.standard_normal(k)
        M = 0.5 * (np.outer(a, c) + np.outer(c, a)) - (i % 2) * np.outer(a - c, a - c)
        mats.append(M)
        rows.append(M[ca, cb] * vs)
    F = schur_sdp.row_factors(sp.csr_matrix(np.array(rows)), k)
    Qe, _ = np.linalg.qr(rng.standard_normal((k, k)))
    for L in (rng.standard_normal((k, k)) + 3 * np.eye(k), Qe @ np.diag(np.logspace(-3, 3, k))):
        Qall, lam = schur_sdp._orth_factors(F, L)
        rr = lam.shape[1]
        Q3 = Qall.reshape(k, nr, rr).transpose(1, 0, 2)
        assert np.abs(np.einsum("ikp,ikq->ipq", Q3, Q3) - np.eye(rr)).max() <= 1e-12
        Xm = np.array([L.T @ M @ L for M in mats])
        back = np.einsum("ikp,ip,ilp->ikl", Q3, lam, Q3)
        assert np.abs(back - Xm).max() <= 1e-10 * np.abs(Xm).max()
        X = np.array([x[ca, cb] * vs for x in Xm])
        H = np.zeros((nr, nr))
        schur_sdp._hadamard_add(H, Qall, lam, chunk=16)
        ref = X @ X.T
        assert np.abs(np.tril(H) - np.tril(ref)).max() <= 1e-10 * np.abs(ref).max()
        full = np.tril(H)
        schur_sdp._lower_to_full(full, chunk=7)
        assert np.array_equal(full, full.T) and np.array_equal(np.tril(full), np.tril(H))


def test_orth_rule_is_the_block_size() -> None:
    """``kkt="lowrank"`` (default) takes the factored Schur matrix from blocks of ORTH_MIN_BLOCK on, per block."""
    seen: list[list[bool]] = []
    real = schur_sdp._lowrank_kkt

    def spy(*a, **k):  # type: ignore[no-untyped-def]
        seen.append(k.get("orth"))
        return real(*a, **k)

    r2 = np.sqrt(2.0)
    q = np.array([1.0, 0.0, 1.0, 1.0])
    R = sp.csr_matrix(np.array([[0.0, 0.0, 0.0, 1.0], [0.0, -1.0 / r2, 0.0, 0.0]]))
    with mock.patch.object(schur_sdp, "_lowrank_kkt", side_effect=spy):
        schur_sdp.solve_dual_schur(q, R, np.array([1.0, -1.0]), n_eq=1, blocks=[2], kkt="lowrank")
        schur_sdp.solve_dual_schur(q, R, np.array([1.0, -1.0]), n_eq=1, blocks=[2], kkt="orth")
    assert seen == [None, [True]]
    assert schur_sdp.ORTH_MIN_BLOCK > 2
