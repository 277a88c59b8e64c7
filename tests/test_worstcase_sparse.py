"""The sparse solve of large PEPs (fairtheory.worstcase.sparse_solve) against the dense solve and closed forms.

Ground truth: the dense :meth:`PEP.solve` of the same PEP (every row, one dense PSD cone) and the closed forms
``L R^2/(4N + 2)`` of gradient descent with ``h = 1/L`` (Drori & Teboulle 2014, Thm 3.1; Taylor, Hendrickx &
Glineur 2017) and ``(1 - mu/L)^(2N) R^2`` for ``||x_N - x*||^2`` on ``L``-smooth ``mu``-strongly convex
functions with ``h = 1/L`` (attained by ``mu x^2/2``; upper bound: ``I - h grad^2`` has norm ``<= 1 - mu/L``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.algorithms import fedavg, scaffold
from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase import checked_solve
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.finish import finish_worst_case
from fairtheory.worstcase.local_gd import build_local_gd, rho2_expr
from fairtheory.worstcase.pep_problem import PEPProblem
from fairtheory.worstcase.results import units
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, sqnorm
from fairtheory.worstcase.sparse_solve import (
    SPARSE_MIN_DIM,
    SparseSDPSolution,
    should_use_sparse,
    solve_sparse,
    sparse_basis,
)
from fairtheory.worstcase.traced import trace


def gd_pep(N: int, *, L: float = 1.0, h: float = 1.0, cls=None, objective: str = "f") -> PEP:
    """``N`` steps ``x <- x - (h/L) grad f(x)`` from ``||x0 - x*|| <= 1``; maximise ``f(x_N) - f*`` (or
    ``||x_N - x*||^2``)."""
    pep = PEP()
    f = pep.function(L if cls is None else cls, "f")
    f.add_point(Vec(np.zeros(0)), Vec(np.zeros(0)), Scalar())
    x0 = pep.vector()
    x = x0
    for _ in range(N):
        x = x - (h / L) * f.grad(x)
    pep.add_le(sqnorm(x0) - 1.0)
    pep.maximize(f.value(x) if objective == "f" else sqnorm(x))
    return pep


def local_pep(n: int = 2, kappa: int = 2, T_N: int = 2, beta: float = 0.25, output: str = "average"):
    p = np.full(n, 1.0 / n)
    b = build_local_gd(n=n, p=p, lr=beta, kappa=kappa, T_N=T_N, output=output)  # type: ignore[arg-type]
    b.pep.add_le(sqnorm(b.x0) - 0.5)
    if n > 1:
        b.pep.add_le(rho2_expr(b, p) - 0.5)
    b.pep.maximize(b.objective)
    return b


def traced_pep(make, rounds: int, *, n: int = 2, mu: float = 0.0, start=None, **hyper) -> PEP:
    """What :func:`fairtheory.worstcase.worst_case` solves: the traced PEP with its two constraints."""
    problem = PEPProblem(n, L=1.0, mu=mu, D0=1.0, rho2=1.0)
    tr = trace(make, rounds, problem, output="last", start=start, **hyper)
    c1, c2 = problem.constraints()
    problem.pep.add_le(c1)
    if c2 is not None:
        problem.pep.add_le(c2)
    problem.pep.maximize(tr.objective)
    return problem.pep


def check_solution(pep: PEP, s) -> None:
    """The sparse solution is a solution of the *full* PEP in its own basis: PSD Gram matrix, every row
    satisfied (evaluated from the PEP's own scalars), the value reached, multipliers only on kept rows."""
    assert s.status == "Solved"
    assert s.min_eig >= -1e-9 * max(1.0, float(np.abs(s.gram).max()))
    assert s.rows_total == s.rows.shape[0] == s.z.size and s.rows_kept <= s.rows_total
    assert np.count_nonzero(s.z) <= s.rows_kept
    interp = [r for r, _ in pep.interpolation_rows()]
    worst = max(pep.evaluate(r, s) for r in interp + pep._ineq)
    assert worst <= 1e-7
    assert abs(pep.evaluate(pep._objective, s) - s.value) <= 1e-7 * max(1.0, abs(s.value))
    assert s.z[s.n_eq:].min() >= -1e-9


def rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


# ------------------------------------------------------------------------------------------ the basis
def test_basis_is_triangular_and_makes_gd_rows_banded() -> None:
    pep = gd_pep(8)
    M, T, piv = sparse_basis(pep)
    assert np.allclose(np.tril(M, -1), 0.0) and np.all(np.abs(np.diag(M)) > 0)
    assert np.abs(T @ M - np.eye(pep.dim)).max() <= 1e-12
    # x_0 replaces e_0, then s_k = (x_k - x_0)/(-h) = g_0 + .. + g_{k-1} replaces e_k; g_N stays
    assert sorted(piv) == list(range(pep.dim - 1))
    assert np.allclose(np.diag(M), 1.0) and set(np.unique(T).tolist()) <= {-1.0, 0.0, 1.0}  # unit pivots: T is +-1
    s = solve_sparse(pep)
    assert s.rounds == 1
    # an arrow: the kept rows touch G'_ab with |a - b| <= 2 (the band) and the row of x_0 (rows pairing a point with
    # the optimum touch <g_k, x_0>): at most 4 dim - 6 entries
    assert s.pattern_entries <= 4 * pep.dim - 6 < pep.dim * (pep.dim + 1) // 2


def test_basis_is_well_conditioned_for_any_step() -> None:
    """Issue 35: in the basis of plain iterates T ~ 1/h (h = 1e-6 ended NumericalError); relative to x_0 with unit
    pivots T is +-1 whatever h, and an average of iterates (output="mean") is not a pivot (T stayed 120 there)."""
    for h in (1e-6, 1e-3, 1.99, 2.5):
        M, T, _ = sparse_basis(gd_pep(12, h=h))
        assert np.abs(T).max() <= 1.0 + 1e-12 and np.abs(T @ M - np.eye(M.shape[0])).max() <= 1e-12
    pep = PEP()
    f = pep.function(1.0, "f")
    f.add_point(Vec(np.zeros(0)), Vec(np.zeros(0)), Scalar())
    x = x0 = pep.vector()
    xs = []
    for _ in range(12):
        x = x - 0.5 * f.grad(x)
        xs.append(x)
    mean = xs[0]
    for v in xs[1:]:
        mean = mean + v
    pep.add_le(sqnorm(x0) - 1.0)
    pep.maximize(f.value(mean / 12))
    M, T, piv = sparse_basis(pep)
    # the mean's last coordinate is g_11 (coefficient -0.5/12, a twelfth of its largest): g_11 stays a basis vector
    assert np.abs(T).max() <= 2.0 + 1e-12 and pep.dim - 2 not in piv


# ------------------------------------------------------------------------------------------ sparse == dense
@pytest.mark.parametrize("N", [5, 12, pytest.param(20, marks=pytest.mark.slow)])
def test_gd_equals_dense_and_closed_form(N: int) -> None:
    pep = gd_pep(N)
    s = solve_sparse(pep)
    check_solution(pep, s)
    d = gd_pep(N).solve(tol=1e-9, method="dense")
    closed = 1.0 / (4 * N + 2)
    assert rel(s.value, closed) <= 1e-7
    assert rel(s.value, d.value) <= 1e-7
    assert s.rows_kept < s.rows_total  # the non-neighbour rows were never needed


@pytest.mark.slow
def test_gd_30_equals_dense() -> None:
    pep = gd_pep(30)
    s = solve_sparse(pep)
    check_solution(pep, s)
    d = gd_pep(30).solve(tol=1e-9, method="dense")
    assert rel(s.value, d.value) <= 1e-7 and rel(s.value, 1.0 / 122) <= 1e-7


def test_strongly_convex_distance_closed_form_and_dense() -> None:
    N, mu = 6, 0.1
    pep = gd_pep(N, cls=SmoothStronglyConvex(1.0, mu), objective="x")
    s = solve_sparse(pep)
    check_solution(pep, s)
    d = gd_pep(N, cls=SmoothStronglyConvex(1.0, mu), objective="x").solve(tol=1e-9, method="dense")
    assert rel(s.value, (1 - mu) ** (2 * N)) <= 1e-7
    assert rel(s.value, d.value) <= 1e-7


def test_traced_strongly_convex_fedavg_equals_dense() -> None:
    s = solve_sparse(traced_pep(fedavg.make, 6, n=1, mu=0.1, lr=1.0, kappa=1))
    d = traced_pep(fedavg.make, 6, n=1, mu=0.1, lr=1.0, kappa=1).solve(tol=1e-9, method="dense")
    assert s.status == "Solved" and rel(s.value, d.value) <= 1e-7


def test_local_gd_needs_generated_rows_and_equals_dense() -> None:
    b = local_pep(n=2, kappa=2, T_N=2)
    s = solve_sparse(b.pep)
    check_solution(b.pep, s)
    d = local_pep(n=2, kappa=2, T_N=2).pep.solve(tol=1e-9, method="dense")
    assert rel(s.value, d.value) <= 1e-7
    # the neighbour / optimum rows alone are a strict relaxation here: constraint generation is what closes it
    assert s.rounds >= 2 and s.log[0]["value"] > s.value * (1 + 1e-3)
    assert all(s.log[i]["value"] >= s.log[i + 1]["value"] - 1e-9 for i in range(len(s.log) - 1))


@pytest.mark.slow
def test_traced_scaffold_equals_dense() -> None:
    mk = lambda: traced_pep(scaffold.make, 3, kappa=2, lr=0.25, start={"warm_start": True})  # noqa: E731
    pep = mk()
    s = solve_sparse(pep)
    check_solution(pep, s)
    d = mk().solve(tol=1e-8, method="dense")
    assert d.status == "Solved" and rel(s.value, d.value) <= 1e-7


@pytest.mark.slow
def test_traced_fedavg_between_dense_value_and_dense_rigorous_bound() -> None:
    """Here the dense solve stops ``AlmostSolved`` (at tol 1e-8 and 1e-9) about 8e-7 (relative) below the sparse
    value, and its dual value is below it too.  Independent bounds decide: the sparse point satisfies every row
    of the full PEP and is PSD (``check_solution``), so its value is at most the optimum; the dense solve's own
    multipliers give a rigorous upper bound (:func:`fairtheory.worstcase.bracket.rigorous_upper`)."""
    from fairtheory.worstcase.bracket import class_data, norm_bounds, rigorous_upper

    problem = PEPProblem(2, L=1.0, D0=1.0, rho2=1.0)
    tr = trace(fedavg.make, 3, problem, output="last", lr=0.25, kappa=2)
    c1, c2 = problem.constraints()
    pep = problem.pep
    pep.add_le(c1)
    pep.add_le(c2)
    pep.maximize(tr.objective)
    s = solve_sparse(pep)
    check_solution(pep, s)
    d = pep.solve(tol=1e-9, method="dense")
    initial, anchors = class_data(problem._x0n, 2, problem.p, problem.D0_level, problem.rho2_level)
    upper, _ = rigorous_upper(d, norm_bounds(pep, initial=initial, anchors=anchors))
    assert d.value * (1 - 1e-7) <= s.value <= upper
    assert rel(s.value, d.value) <= 2e-6


# ------------------------------------------------------------------------------------------ the bracket
def _certify(b, n: int, p: np.ndarray, D0n, R2n, S):
    calls: list[dict] = []

    def routed(raw: bool = True, **kw):  # every solve of the bracket (re-solves with trace weights included) goes sparse
        calls.append(kw)
        return solve_sparse(b.pep, **kw)

    b.pep.solve = routed
    sol = b.pep.solve(tol=1e-8)
    wc = finish_worst_case(b.pep, sol, S, params={}, instance_of=None, extra={}, certificate=None, problem="test",
                           objective=b.objective, x0=b.x0, n=n, p=p, D0_level=D0n, rho2_level=R2n)
    return wc, calls


def test_gd_worst_case_is_certified_through_the_bracket() -> None:
    N = 9
    S, D0n, R2n = units(1.0, 1.0, 0.0)
    b = build_local_gd(n=1, p=np.ones(1), lr=1.0, kappa=1, T_N=N - 1, output="last")
    b.pep.add_le(sqnorm(b.x0) - float(D0n))
    b.pep.maximize(b.objective)
    wc, calls = _certify(b, 1, np.ones(1), D0n, R2n, S)
    assert wc.certified() and wc.value_is == "upper"
    assert wc.lower <= 1.0 / (4 * N + 2) <= wc.upper
    assert wc.upper - 1.0 / (4 * N + 2) <= 1e-6 / (4 * N + 2)
    assert len(calls) == len(wc.extra["solves"])


@pytest.mark.slow
def test_local_gd_worst_case_is_certified_through_the_bracket() -> None:
    p = np.full(2, 0.5)
    S, D0n, R2n = units(1.0, 1.0, 1.0)
    b = build_local_gd(n=2, p=p, lr=0.25, kappa=2, T_N=3, output="average")
    b.pep.add_le(sqnorm(b.x0) - float(D0n))
    b.pep.add_le(rho2_expr(b, p) - float(R2n))
    b.pep.maximize(b.objective)
    wc, _ = _certify(b, 2, p, D0n, R2n, S)
    dense = build_local_gd(n=2, p=p, lr=0.25, kappa=2, T_N=3, output="average")
    dense.pep.add_le(sqnorm(dense.x0) - float(D0n))
    dense.pep.add_le(rho2_expr(dense, p) - float(R2n))
    dense.pep.maximize(dense.objective)
    # the reference is SDPA-GMP on the same PEP (an exact-arithmetic-grade solver), not the raw dense float solve:
    # that one ends AlmostSolved 3.2e-7 below the worst case (0.0862789255 against GMP's 0.0862789534, measured
    # 2026-12-02), while the bracket (KKT bracket, fairtheory.worstcase.kkt_bracket) is 5e-11 wide around GMP's value
    if not checked_solve.gmp_available():
        pytest.skip("SDPA-GMP (sdpa-multiprecision) is not installed")
    g = checked_solve._gmp(dense.pep, None)
    assert g is not None
    unit = float(S)  # the WorstCase is in the caller's units, the SDP in the normalised ones
    assert wc.certified() and wc.lower / unit <= g.value * (1 + 1e-12) and g.value <= wc.upper / unit * (1 + 1e-12)


# ------------------------------------------------------------------------------------------ scale
@pytest.mark.slow
def test_gd_at_gram_dimension_100_matches_drori_teboulle() -> None:
    N = 98
    pep = gd_pep(N)
    assert pep.dim == 100 and should_use_sparse(pep)
    s = solve_sparse(pep)
    assert s.status == "Solved" and s.rounds == 1
    assert rel(s.value, 1.0 / (4 * N + 2)) <= 1e-7
    assert s.max_violation <= 1e-8 and s.min_eig >= -1e-9


# ------------------------------------------------------------------------------------------ options, errors
def test_trace_weight_and_scale_are_the_dense_solves() -> None:
    pep = gd_pep(6)
    d = gd_pep(6).solve(tol=1e-9, trace_weight=1e-3, method="dense")
    s = solve_sparse(pep, trace_weight=1e-3)
    assert s.trace_weight == 1e-3 and rel(s.value, d.value) <= 1e-7
    assert abs((s.value - 1e-3 * np.trace(s.gram)) - pep.evaluate(pep._objective, s)) <= 1e-9
    sc = solve_sparse(gd_pep(6), scale=np.linspace(1.0, 3.0, pep.dim), fscale=np.full(pep.nf, 2.0))
    assert rel(sc.value, 1.0 / 26) <= 1e-7


def test_should_use_sparse_threshold() -> None:
    assert not should_use_sparse(gd_pep(SPARSE_MIN_DIM - 3))
    assert should_use_sparse(gd_pep(SPARSE_MIN_DIM - 2))


@pytest.mark.parametrize("kw, word", [({"tol": 0.5}, "tol"), ({"tol": True}, "tol"), ({"max_rounds": 0}, "max_rounds"),
                                      ({"viol_tol": 2.0}, "viol_tol"), ({"trace_weight": -1.0}, "trace_weight"),
                                      ({"inner": 0.0}, "inner"), ({"max_iter": 0}, "max_iter"),
                                      ({"scale": np.ones(2)}, "scale"), ({"max_add": 0}, "max_add"),
                                      ({"max_add": 1.5}, "max_add")])
def test_bad_arguments_are_named(kw: dict, word: str) -> None:
    with pytest.raises(FairtheoryValueError, match=word):
        solve_sparse(gd_pep(4), **kw)


def test_no_objective_is_refused() -> None:
    pep = PEP()
    pep.vector()
    with pytest.raises(FairtheoryValueError, match="objective"):
        solve_sparse(pep)


@pytest.mark.slow
def test_max_rounds_exhausted_raises() -> None:
    from fairtheory.errors import SolverError

    b = local_pep(n=2, kappa=2, T_N=2)
    with pytest.raises(SolverError, match="max_rounds"):
        solve_sparse(b.pep, max_rounds=1)
    assert math.isfinite(solve_sparse(local_pep(n=2, kappa=2, T_N=2).pep).value)


# ------------------------------------------------------------------ the route PEP.solve takes
def test_route_is_sparse_only_for_one_function_at_dimension_50() -> None:
    from fairtheory.worstcase.sparse_solve import sparse_route

    assert sparse_route(50, 1) and sparse_route(300, 1)
    assert not sparse_route(49, 1) and not sparse_route(100, 2)


def test_solve_method_is_validated() -> None:
    with pytest.raises(FairtheoryValueError, match="method"):
        gd_pep(2).solve(method="chordal")


def test_auto_route_below_the_threshold_is_the_dense_solve() -> None:
    a, b = gd_pep(10).solve(tol=1e-9), gd_pep(10).solve(tol=1e-9, method="dense")
    assert not isinstance(a, SparseSDPSolution) and a.value == b.value


@pytest.mark.slow
def test_traced_gradient_descent_at_gram_dimension_100_is_certified_and_exact() -> None:
    """``worst_case(fedavg.make, 98, n=1, lr=1/L)`` is gradient descent with 98 steps (Gram dimension 100): the
    auto route solves it sparse; the value is the rigorous upper bound, the replayed instance a lower bound, and
    Drori & Teboulle's exact ``L D0/(4N + 2)`` (N = 98) lies between them, within 1e-6 relative of both."""
    from fairtheory.worstcase import worst_case

    wc = worst_case(fedavg.make, 98, n=1, L=1.0, D0=1.0, rho2=0.0, lr=1.0)
    exact = 1.0 / (4 * 98 + 2)
    assert wc.dim == 100
    assert wc.certified() and wc.value_is == "upper" and wc.value == wc.upper
    assert wc.lower <= exact <= wc.upper
    assert wc.upper - exact <= 1e-6 * exact and exact - wc.lower <= 1e-5 * exact


def test_psd_completion_of_rank_deficient_chordal_blocks() -> None:
    """``_psd_completion``: a rank-2 PSD matrix (every clique block singular, as a contraction's worst case in its
    measured sizes) specified on a band of width 2 plus a dense first row and column (chordal) is completed to a PSD
    matrix equal to it on the pattern - Clarabel's maximum-determinant completion inverts those blocks; a 4-cycle
    (not chordal) gives ``None``."""
    from fairtheory.worstcase.sparse_solve import _psd_completion

    rng = np.random.default_rng(7)
    n = 14
    V = rng.standard_normal((n, 2))
    Z = V @ V.T
    idx = np.arange(n)
    spec = np.abs(np.subtract.outer(idx, idx)) <= 2
    spec[0, :] = spec[:, 0] = True
    X = _psd_completion(np.where(spec, Z, 0.0), spec)
    assert X is not None
    assert np.max(np.abs(X[spec] - Z[spec])) == 0.0
    w = np.linalg.eigvalsh(X)
    assert w[0] >= -1e-10 * w[-1]
    assert np.linalg.matrix_rank(X, tol=1e-8 * w[-1]) == 2   # the pseudo-inverse keeps the rank of the blocks
    cyc = np.eye(4, dtype=bool)
    for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):
        cyc[a, b] = cyc[b, a] = True
    assert _psd_completion(np.eye(4), cyc) is None


def test_sparse_basis_relative_to_the_start() -> None:
    """``sparse_basis`` writes a point relative to the start with the start's own coefficient: gradient descent's
    ``x_k = x_0 - h (g_0 + .. + g_{k-1})`` gives the partial sums (``M[:, k] = e_1 + .. + e_k``, no ``x_0``), and the
    reparametrised contraction ``x_k = c^k x_0 - h sum_i c^(k-1-i) gh_i`` (``c = 1 - h mu``, nearly_quadratic) gives
    ``sum_i c^(k-1-i) gh_i`` with no multiple of ``x_0`` - where ``x_k - x_0`` left ``(1 - c^k)/h x_0`` in every
    column (about ``2 x_0``: each ``gh_k`` then the cancelling difference of two of them)."""
    from fairtheory.worstcase.nearly_quadratic import reparametrise
    from fairtheory.worstcase.sdp import PEP, sqnorm
    from fairtheory.worstcase.sparse_solve import sparse_basis

    def gd(mu: float, h: float, n: int) -> PEP:
        pep = PEP()
        f = pep.function(SmoothStronglyConvex(1.0, mu))
        xs, _, _ = f.optimum()
        x = pep.vector()
        pep.add_le(sqnorm(x - xs) - 1.0)
        for _ in range(n):
            x = x - h * f.grad(x)
        pep.maximize(sqnorm(x - xs))
        return pep

    n = 10
    M, T, piv = sparse_basis(gd(0.1, 1.0, n))
    assert piv == list(range(n))
    want = np.eye(n + 1)  # x_0, g_0 .. g_9: the points x_1 .. x_9 replace g_0 .. g_8, g_9 stays
    for k in range(1, n):
        want[1:k + 1, k] = 1.0
    assert np.array_equal(M, want)
    rep = reparametrise(gd(1 - 1e-6, 0.5, n))
    assert rep is not None
    M2, T2, piv2 = sparse_basis(rep.pep)
    c = 1 - 0.5 * (1 - 1e-6)
    assert piv2 == list(range(n))
    assert np.all(M2[0, 1:] == 0.0)
    for k in range(1, n):
        for i in range(k):
            assert abs(M2[1 + i, k] - c ** (k - 1 - i)) <= 1e-14, (i, k, M2[1 + i, k])
        assert np.all(M2[k + 1:, k] == 0.0)
    assert np.allclose(T2 @ M2, np.eye(n + 1), atol=1e-12)
