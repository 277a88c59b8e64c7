"""Identical clients: the symmetric reduction of the local-GD PEP (fairtheory.worstcase.symmetric).

Ground truth: the full PEP (Gram dimension ``1 + n (m + 1) - 1``) solved by SDPA-GMP (200-bit, an independent solver)
where it is small enough, else by the dense Clarabel solve with its own rigorous bracket; never the reduced solve."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase import local_gd as lg
from fairtheory.worstcase import local_gd_worst_case
from fairtheory.worstcase.bracket import bracket, primal_objective
from fairtheory.worstcase.checked_solve import gmp_available
from fairtheory.worstcase.local_gd import rho2_expr
from fairtheory.worstcase.results import WorstCase
from fairtheory.worstcase.sdp import sqnorm
from fairtheory.worstcase.symmetric import attach, solve_symmetric

SCALE = 2.0  # L D0 + rho2/L with L = D0 = rho2 = 1


def _full_pep(n: int, kappa: int, T_N: int, beta: float, output: str = "average") -> lg.Built:
    p = np.full(n, 1.0 / n)
    b = lg.build_local_gd(n=n, p=p, lr=beta, kappa=kappa, T_N=T_N, output=output)  # type: ignore[arg-type]
    b.pep.add_le(sqnorm(b.x0) - 0.5)
    b.pep.add_le(rho2_expr(b, p) - 0.5)
    b.pep.maximize(b.objective)
    return b


def _reduced(n: int, kappa: int, T_N: int, beta: float) -> tuple[WorstCase, int]:
    """local_gd_worst_case, counting the symmetric solves it made."""
    from fairtheory.worstcase import symmetric

    with mock.patch.object(symmetric, "solve_symmetric", wraps=symmetric.solve_symmetric) as spy:
        r = local_gd_worst_case(n=n, kappa=kappa, T_N=T_N, lr=beta, L=1.0, D0=1.0, rho2=1.0, symmetric=True)
    return r, spy.call_count


def _check_against_gmp(n: int, kappa: int, T_N: int) -> None:
    beta = 1.0 / (8 * kappa)
    sol = _full_pep(n, kappa, T_N, beta).pep.solve(gmp="always")
    assert sol.solver == "sdpa-gmp" and sol.status == "Solved"
    w = SCALE * sol.value
    r, calls = _reduced(n, kappa, T_N, beta)
    assert calls >= 1
    assert r.certified() and r.value_is == "upper"
    assert r.upper >= w - 1e-9  # a rigorous upper bound of the full PEP
    assert r.upper - w <= 1e-6 * SCALE  # certified means within CERTIFY_RTOL of the unit
    assert abs(r.extra["solver_value"] - w) <= 1e-7  # the reduced solve's value is the full optimum (measured <= 6.8e-8)
    assert r.lower <= w + 1e-9  # reached by explicit functions


needs_gmp = pytest.mark.skipif(not gmp_available(), reason="SDPA-GMP (the independent full solve) not installed")


@needs_gmp
@pytest.mark.parametrize(("n", "kappa", "T_N"), [(2, 2, 1), (3, 2, 1)])
def test_reduced_equals_full_gmp(n: int, kappa: int, T_N: int) -> None:
    _check_against_gmp(n, kappa, T_N)


@pytest.mark.slow
@needs_gmp
@pytest.mark.parametrize(("n", "kappa", "T_N"), [
    (2, 2, 2), (2, 3, 1), (2, 4, 1), (2, 5, 1), (3, 3, 1)])
def test_reduced_equals_full_gmp_more(n: int, kappa: int, T_N: int) -> None:
    _check_against_gmp(n, kappa, T_N)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("kappa", [2, 3, 4, 5])
@pytest.mark.parametrize("T_N", [1, 2])
def test_reduced_brackets_agree_with_dense(n: int, kappa: int, T_N: int) -> None:
    """Beyond SDPA-GMP's size: the dense full solve (symmetry switched off) and the reduced one are both certified
    and each one's replayed lower bound lies below the other's rigorous upper bound (measured: values within 3.9e-7,
    both certified to 1e-6 of the unit)."""
    beta = 1.0 / (8 * kappa)
    r, calls = _reduced(n, kappa, T_N, beta)
    d = local_gd_worst_case(n=n, kappa=kappa, T_N=T_N, lr=beta, L=1.0, D0=1.0, rho2=1.0, symmetric=False)
    assert calls >= 1 and r.certified() and d.certified()
    assert r.lower <= d.upper and d.lower <= r.upper
    assert abs(r.value - d.value) <= 1e-6 * SCALE


def test_route_only_for_identical_clients() -> None:
    from fairtheory.worstcase import symmetric

    with mock.patch.object(symmetric, "solve_symmetric", wraps=symmetric.solve_symmetric) as spy:
        local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0, p=[0.25, 0.75], symmetric=True)
        local_gd_worst_case(n=2, kappa=1, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0, K=1, symmetric=True)
        local_gd_worst_case(n=1, kappa=2, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=0.0, symmetric=True)
        local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0)  # Gram 10 < SYMMETRIC_MIN_DIM
        assert spy.call_count == 0
        with pytest.raises(FairtheoryValueError, match="symmetric"):
            local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0, symmetric="yes")  # type: ignore[arg-type]
        r = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0, symmetric=True)
        assert spy.call_count >= 1
        assert r.certified() and r.extra["symmetric"] == "reduced"


def test_blocks_and_full_solution() -> None:
    """Two PSD blocks of size m + 1 (m points per client after the optimum); the returned solution is the full PEP's:
    every row (both clients') satisfied, Gram PSD, the multipliers of one orbit equal."""
    b = _full_pep(3, 2, 1, 0.125)
    assert attach(b.pep, b.funcs, b.stars, b.x0, np.full(3, 1 / 3))
    s = b.pep.solve(raw=True)
    m = len(b.funcs[0].points) - 1
    assert s.blocks == (m + 1, m + 1) and b.pep.dim == 1 + 3 * m + 2
    assert s.rows_reduced < s.n_constraints
    nG = s.dim * (s.dim + 1) // 2
    ia, ib = np.triu_indices(s.dim)
    xnat = np.concatenate([s.gram[ia, ib][np.argsort(ib * (ib + 1) // 2 + ia)], s.F])
    assert xnat.size == nG + b.pep.nf
    assert np.max(s.rows @ xnat - s.consts) <= 1e-7
    assert np.linalg.eigvalsh(s.gram)[0] >= -1e-6
    per = len(s.z[s.n_eq:s.n_eq + s.n_interp]) // 3
    zi = s.z[s.n_eq:s.n_eq + s.n_interp].reshape(3, per)
    assert np.array_equal(zi[0], zi[1]) and np.array_equal(zi[0], zi[2])


def test_layout_refused() -> None:
    """client_symmetry refuses what it cannot reduce: unequal weights, one client."""
    b = _full_pep(2, 2, 1, 0.125)
    assert not attach(b.pep, b.funcs, b.stars, b.x0, [0.25, 0.75])
    assert getattr(b.pep, "symmetry", None) is None
    b1 = _full_pep(1, 2, 1, 0.125)
    assert not attach(b1.pep, b1.funcs, b1.stars, b1.x0, [1.0])


def test_fooled_rows_refused() -> None:
    """A PEP whose clients are not alike (client 1 takes another step size) with the symmetry attached by hand: the
    orbit check refuses it by name."""
    from fairtheory.worstcase.sdp import PEP, vsum

    pep = PEP()
    funcs, stars = pep.clients_at_optimum(2, np.array([0.5, 0.5]), 1.0)
    x0 = pep.vector()
    y = [x0 - 0.1 * funcs[0].grad(x0), x0 - 0.2 * funcs[1].grad(x0)]
    out = vsum(y, [0.5, 0.5])
    pep.add_le(sqnorm(x0) - 0.5)
    pep.maximize(0.5 * funcs[0].value(out) + 0.5 * funcs[1].value(out))
    assert attach(pep, funcs, stars, x0, [0.5, 0.5])  # the layout alone looks symmetric
    with pytest.raises(FairtheoryValueError, match="not symmetric in its clients"):
        pep.solve(raw=True)


def test_fooled_objective_not_certified() -> None:
    """Symmetric rows but an objective of client 0 only (not invariant): the restricted optimum (0.102) is far below
    the full one (0.556, dense), and the rigorous bracket does not close on it - it still contains the true value."""
    n, p = 2, np.full(2, 0.5)
    b = lg.build_local_gd(n=n, p=p, lr=0.25, kappa=2, T_N=1, output="last")
    b.pep.add_le(sqnorm(b.x0) - 0.5)
    b.pep.add_le(rho2_expr(b, p) - 0.5)
    obj = b.funcs[0].points[-1].f
    b.pep.maximize(obj)
    w = b.pep.solve(raw=True, method="dense").value
    assert attach(b.pep, b.funcs, b.stars, b.x0, p)
    s = b.pep.solve(raw=True)
    br = bracket(b.pep, s, obj, x0=b.x0, n=n, p=p, D0_level=0.5, rho2_level=0.5)
    assert primal_objective(s) < w - 0.1
    assert br.lower <= w + 1e-7 <= br.upper
    assert br.upper - primal_objective(s) > 1e-6  # never certified


def test_solve_symmetric_checks_tol() -> None:
    b = _full_pep(2, 2, 1, 0.125)
    assert attach(b.pep, b.funcs, b.stars, b.x0, np.full(2, 0.5))
    with pytest.raises(FairtheoryValueError, match="tol"):
        solve_symmetric(b.pep, b.pep.symmetry, tol=0.5)


@pytest.mark.slow
@pytest.mark.parametrize("rho2", [1.0, 0.5])
def test_gram_100_multi_client_certified(rho2: float) -> None:
    """Issue 41's scale target: local GD, n = 2, kappa = 47, T_N = 1, beta kappa L = 1/8 (Gram dimension 100), rho2 = 1
    and 1/2: certified by the symmetric reduction (blocks of 50: the dual by cvxopt's Schur-complement method,
    constraint generation: 3 solves of 290 to ~1000 of its 2450 rows), value inside its bracket (CPU time:
    benchmarks/bench_worstcase.py --multi)."""
    r = local_gd_worst_case(n=2, kappa=47, T_N=1, lr=1.0 / (8 * 47), L=1.0, D0=1.0, rho2=rho2)
    assert r.dim == 100
    assert r.extra["symmetric"] == "reduced" and r.extra["symmetric_solver"] == "cvxopt-schur"
    assert r.certified() and r.value_is == "upper"
    assert r.lower <= r.extra["solver_value"] <= r.value == r.upper
    assert r.upper - r.lower <= 1e-4 * r.scale


@pytest.mark.slow
def test_uncertified_reduction_falls_back_to_dense() -> None:
    """kappa = 14 (Gram 34 <= SYMMETRIC_DENSE_FALLBACK_DIM): a reduced solve whose bracket is open - forced, so that
    the test does not rest on the last bits of a float solve: the reduced solves stopped after 3 iterations - sends
    the worst case to the dense route (a rule of sizes, not of the clock), which certifies.  The same open bracket
    above the size rule: tests/test_worstcase_symmetric_route.py."""
    from fairtheory.worstcase import symmetric

    real = symmetric.solve_symmetric

    def truncated(*a, **k):  # type: ignore[no-untyped-def]
        k["max_iter"] = 3
        return real(*a, **k)

    with mock.patch.object(symmetric, "solve_symmetric", side_effect=truncated) as spy:
        r = local_gd_worst_case(n=2, kappa=14, T_N=1, lr=1.0 / (8 * 14), L=1.0, D0=1.0, rho2=1.0, symmetric=True)
    assert spy.call_count >= 1
    assert r.extra["symmetric"] == "not certified: dense route"
    assert r.certified() and r.value_is == "upper"
