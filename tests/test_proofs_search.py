"""Exact multiplier search (:mod:`fairtheory.proofs.search`): tight end + interior end + exact convex combination.

Every certificate is re-checked with :func:`fairtheory.proofs.certificate.verify_multipliers` (exact rationals) and
compared with an accurate value: SDPA-GMP's, or a closed form where one is known (the rho = 0 local-GD worst case
``1 / (2 + 2 beta L (kappa T_N + 2))`` and ``C = 7/10`` at ``kappa = 2``, ``beta L = 1``, ``a = beta/2``).  The
robustness tests perturb the float solvers' duals: the search must not depend on their last bits.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from fairtheory.errors import SolverError
from fairtheory.proofs import search
from fairtheory.proofs.certificate import verify_multipliers
from fairtheory.proofs.search import SearchResult, find_multipliers, reference_solve
from fairtheory.worstcase import solvers

RTOL = 1e-6


def local_gd(kappa: int, T_N: int, rho2: Fraction, *, constrained: bool = True) -> dict[str, Any]:
    from fairtheory.worstcase.local_gd import build_local_gd, rho2_expr
    from fairtheory.worstcase.results import units
    from fairtheory.worstcase.sdp import sqnorm

    _, D0n, R2n = units(1, 1, rho2)
    p = [Fraction(1, 2)] * 2
    b = build_local_gd(n=2, p=p, lr=Fraction(1, 4), kappa=kappa, T_N=T_N, output="average", exact=True)
    if constrained:
        b.pep.add_le(sqnorm(b.x0) - D0n)
        b.pep.add_le(rho2_expr(b, p) - R2n)
    b.pep.maximize(b.objective)
    return b.pep.export()


def round_pep(h: Fraction, kappa: int = 2) -> dict[str, Any]:
    """One-round potential PEP at ``a = beta/2`` with ``rho^2 <= R = (beta L kappa)^-3`` (value ``= C R``)."""
    from fairtheory.worstcase.potential import _round_pep

    R = (h * kappa) ** -3
    pep, _ = _round_pep(2, [Fraction(1, 2)] * 2, h, kappa, h / 2, R, None, exact=True)
    return pep.export()


def rho0_value(kappa: int, T_N: int, h: Fraction = Fraction(1, 4)) -> Fraction:
    """Proved closed form of the rho = 0 local-GD worst case (002 output, rFedFair schedule), ``L = D0 = 1``."""
    return 1 / (2 + 2 * h * (kappa * T_N + 2))


def check(data: dict[str, Any], res: SearchResult, rtol: float = RTOL) -> None:
    """The result's own claims, re-checked: exact bound, multiplier signs, bound near the value it reports."""
    assert isinstance(res, SearchResult)
    assert len(res.multipliers) == len(data["rows"])
    assert all(isinstance(x, Fraction) for x in res.multipliers)
    assert all(x >= 0 for x in res.multipliers[data["n_eq"]:])
    b = verify_multipliers(data["rows"], data["objective"], res.multipliers, dim=data["dim"], nf=data["nf"],
                           n_eq=data["n_eq"])
    assert b is not None and b == res.bound
    assert math.isfinite(res.value)
    assert abs(float(res.bound) - res.value) <= rtol * max(abs(res.value), 1e-12)
    assert float(res.bound) >= res.value - 1e-9 * abs(res.value)  # an upper bound of an accurate value
    assert res.route and res.tried and res.tried[-1].endswith("certified")


# ----------------------------------------------------------------------------------------------- local GD grid
GRID = [(2, 2), (2, 3), (2, 4), (3, 3), (2, 6), (4, 3)]
SLOW = {(2, 6), (4, 3)}  # Gram 30, 422 rows: ~2 s each


@pytest.mark.parametrize("rho2", [Fraction(0), Fraction(1, 2)], ids=["rho0", "rho1/2"])
@pytest.mark.parametrize("kT", [pytest.param(kT, marks=pytest.mark.slow) if kT in SLOW else kT for kT in GRID],
                         ids=[f"k{k}T{t}" for k, t in GRID])
def test_local_gd_grid(kT: tuple[int, int], rho2: Fraction) -> None:
    data = local_gd(*kT, rho2)
    res = find_multipliers(data)
    check(data, res)
    if rho2 == 0:
        exact = rho0_value(*kT)
        assert res.bound >= exact  # weak duality against the proved closed form
        assert res.bound - exact <= RTOL * exact
        assert abs(res.value - float(exact)) <= 1e-12  # the value compared with is accurate, not Clarabel's 1e-7


def test_local_gd_rho_half_value_is_accurate() -> None:
    """Clarabel ends AlmostSolved ~1.5e-6 low here (Gram 22); the value compared with is the KKT-polished one,
    equal to SDPA-GMP's 0.09745011300663513 (measured) to 1e-12."""
    data = local_gd(2, 4, Fraction(1, 2))
    res = find_multipliers(data, reference="clarabel")
    check(data, res)
    assert res.meta["value_from"].startswith("kkt-newton")
    assert abs(res.value - 0.09745011300663513) <= 1e-12
    assert float(res.bound) - 0.09745011300663513 <= 1e-9


# ----------------------------------------------------------------------------------------------- one-round potential
ROUND_BETA = [Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(5, 4), Fraction(3, 2)]


def round_fit(h: Fraction) -> Fraction:
    """``7 / (16 (7 - 2 (beta L)^2))``: the measured PEP values (SDPA-GMP) at kappa = 2, a = beta/2, a fit (exact
    at ``beta L = 1``: ``7/80``, i.e. ``C = 7/10``)."""
    return Fraction(7, 16) / (7 - 2 * h**2)


@pytest.mark.parametrize("h", ROUND_BETA, ids=[str(b) for b in ROUND_BETA])
def test_round_constant_pep(h: Fraction) -> None:
    """These failed with the old search (Clarabel's dual last bits, value 5e-6 low)."""
    data = round_pep(h)
    res = find_multipliers(data)
    check(data, res)
    fit = round_fit(h)
    assert res.bound >= fit if h == 1 else abs(float(res.bound - fit)) <= 1e-9 * float(fit)
    assert res.bound - fit <= RTOL * fit
    assert res.meta["structural_zeros"] == [1]  # the free model of the one-round PEP


def test_round_constant_pep_vs_sdpa() -> None:
    pytest.importorskip("sdpap")
    data = round_pep(Fraction(1))
    ref = solvers.solve_sdpa(solvers.ExportedPEP(data))
    assert ref is not None and ref.status == "pdOPT"
    assert abs(ref.value - 0.0875) <= 1e-15
    res = find_multipliers(data)
    assert res.meta["reference"] == "sdpa-gmp"
    assert abs(float(res.bound) - ref.value) <= RTOL * ref.value


def test_round_constant_pep_clarabel_only() -> None:
    """Without SDPA: the reduced PEP (free model's Gram entries free) plus the KKT polish give the value to 1e-13."""
    data = round_pep(Fraction(3, 4))
    res = find_multipliers(data, reference="clarabel")
    check(data, res)
    assert res.meta["reference"] == "clarabel-reduced"
    assert abs(res.value - float(round_fit(Fraction(3, 4)))) <= 1e-13


# ----------------------------------------------------------------------------------------------- robustness
def _noisy(monkeypatch: pytest.MonkeyPatch, rel: float, seed: int, primal: bool = False) -> None:
    """Both float solvers' duals (and optionally primal and value) perturbed by ``rel`` relative Gaussian noise."""
    rng = np.random.default_rng(seed)
    clar, sdpa = solvers.solve_clarabel, solvers.solve_sdpa

    def perturb(sol: Any) -> Any:
        if sol is None:
            return sol
        sol.z = sol.z * (1 + rel * rng.standard_normal(sol.z.shape))
        if primal and sol.gram is not None:
            g = sol.gram * (1 + rel * rng.standard_normal(sol.gram.shape))
            sol.gram = (g + g.T) / 2
            sol.F = sol.F * (1 + rel * rng.standard_normal(sol.F.shape))
        return sol

    monkeypatch.setattr(solvers, "solve_clarabel", lambda *a, **k: perturb(clar(*a, **k)))
    monkeypatch.setattr(solvers, "solve_sdpa", lambda *a, **k: perturb(sdpa(*a, **k)))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", ["round1", "round3/2", "lgd22half", "lgd23zero"])
def test_perturbed_duals_still_certify(monkeypatch: pytest.MonkeyPatch, case: str, seed: int) -> None:
    data = {"round1": lambda: round_pep(Fraction(1)), "round3/2": lambda: round_pep(Fraction(3, 2)),
            "lgd22half": lambda: local_gd(2, 2, Fraction(1, 2)), "lgd23zero": lambda: local_gd(2, 3, Fraction(0))}[case]()
    _noisy(monkeypatch, 1e-7, seed, primal=seed == 2)
    res = find_multipliers(data)
    check(data, res)


def test_perturbed_duals_clarabel_route(monkeypatch: pytest.MonkeyPatch) -> None:
    data = local_gd(2, 4, Fraction(1, 2))
    _noisy(monkeypatch, 1e-7, 3, primal=True)
    res = find_multipliers(data, reference="clarabel")
    check(data, res)
    assert abs(res.value - 0.09745011300663513) <= 1e-9


def test_free_row_multiplier_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """At rho2 = 0 the row ``rho^2 <= 0`` costs nothing and SDPA-GMP drives its multiplier to ~5e16; capped, the
    tight end still certifies."""
    pytest.importorskip("sdpap")
    seen: list[float] = []
    solve = solvers.solve_sdpa

    def spy(P: Any) -> Any:
        out = solve(P)
        seen.append(float(np.max(out.z)))
        return out

    monkeypatch.setattr(solvers, "solve_sdpa", spy)
    data = local_gd(2, 2, Fraction(0))
    res = find_multipliers(data, reference="sdpa")
    check(data, res)
    assert res.meta["reference"] == "sdpa-gmp" and seen and seen[0] > 1e10
    assert res.bound - rho0_value(2, 2) <= 1e-12
    assert max(res.multipliers) < 10**6


def test_without_sdpa(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solvers, "sdpa_available", lambda: False)
    monkeypatch.setattr(solvers, "solve_sdpa", lambda P: None)
    data = round_pep(Fraction(1, 2))
    res = find_multipliers(data)
    check(data, res)
    assert "sdpa-gmp: sdpap not installed" in res.tried
    assert reference_solve(data) is not None


def test_sdpa_is_silent(capfd: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sdpap")
    find_multipliers(round_pep(Fraction(5, 4)), reference="sdpa")
    out, _ = capfd.readouterr()
    assert out == ""


# ----------------------------------------------------------------------------------------------- API and failures
def test_reference_solve() -> None:
    data = round_pep(Fraction(1))
    z, value, how = reference_solve(data)
    assert len(z) == len(data["rows"])
    assert how in ("sdpa-gmp", "clarabel")
    assert abs(value - 0.0875) <= (1e-12 if how == "sdpa-gmp" else 1e-5)


def test_caller_value_kept_in_meta() -> None:
    data = local_gd(2, 2, Fraction(1, 2))
    res = find_multipliers(data, value=0.1351929)
    check(data, res)
    assert res.meta["caller_value"] == 0.1351929
    assert res.rel_excess < 1e-9


def test_unbounded_pep_raises() -> None:
    data = local_gd(2, 2, Fraction(0), constrained=False)  # no ||x0 - x*|| bound: the worst case is +inf
    with pytest.raises(SolverError, match="tried"):
        find_multipliers(data, reference="clarabel")


def test_impossible_rtol_raises_listing_attempts() -> None:
    with pytest.raises(SolverError) as info:
        find_multipliers(round_pep(Fraction(1)), rtol=0.0, reference="clarabel")
    msg = str(info.value)
    assert "no exact certificate within rtol=0" in msg and "not within" in msg


def test_deadline_and_bad_reference() -> None:
    with pytest.raises(SolverError, match="deadline"):
        find_multipliers(round_pep(Fraction(1)), deadline_s=0.0)
    with pytest.raises(ValueError, match="reference"):
        find_multipliers(round_pep(Fraction(1)), reference="mosek")


def test_gmp_fallback_is_a_size_rule_not_a_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large PEP (Clarabel first) whose Clarabel route fails falls back to SDPA-GMP exactly when the estimate fits
    the whole ``deadline_s``, whatever time has passed: the route does not depend on the machine's speed."""
    calls: list[str] = []
    monkeypatch.setattr(search, "_use_sdpa", lambda P: False)
    monkeypatch.setattr(search.solvers, "sdpa_available", lambda: True)
    monkeypatch.setattr(search.solvers, "solve_clarabel", lambda P, **k: calls.append("clarabel"))
    monkeypatch.setattr(search.solvers, "solve_sdpa", lambda P, **k: calls.append("sdpa"))
    monkeypatch.setattr(search, "_sdpa_estimate_s", lambda P: 50.0)
    for deadline, ran in ((40.0, False), (100.0, True)):
        calls.clear()
        with pytest.raises(SolverError) as info:
            find_multipliers(round_pep(Fraction(1)), deadline_s=deadline)
        assert calls == (["clarabel", "sdpa"] if ran else ["clarabel"])
        assert ("sdpa-gmp skipped (estimated 50 s > deadline_s" in str(info.value)) != ran
    # a slow machine: 20 s pass between every two clock readings, so less than the estimate is left when Clarabel
    # has failed; the fallback still runs (it used to be skipped by the time left)
    clock = iter(range(0, 10**6, 20))
    monkeypatch.setattr(search.time, "perf_counter", lambda: float(next(clock)))
    calls.clear()
    with pytest.raises(SolverError):
        find_multipliers(round_pep(Fraction(1)), deadline_s=100.0)
    assert calls == ["clarabel", "sdpa"]


def test_dyadic_rounding_and_projection_are_exact() -> None:
    """The tight end alone: common dyadic grid, exact projection onto (i); its function values cancel exactly."""
    data = local_gd(2, 2, Fraction(1, 2))
    P = solvers.ExportedPEP(data)
    ref = solvers.solve_clarabel(P)
    lam0 = search._round(P, ref.z)
    dens = {q.denominator for q in lam0.values()}
    assert all(d & (d - 1) == 0 for d in dens) and max(dens).bit_length() <= search.GRID_BITS + 8
    lam = search._project(P, lam0, [])
    assert lam is not None
    F: dict[int, Fraction] = {}
    for x, (_, a, _) in zip(lam, data["rows"], strict=True):
        for k, v in a.items():
            F[k] = F.get(k, Fraction(0)) + x * v
    for k, v in data["objective"][1].items():
        F[k] = F.get(k, Fraction(0)) - v
    assert all(v == 0 for v in F.values())


@pytest.mark.slow
def test_equality_rows() -> None:
    """The active constraint ``||x0 - x*||^2 <= 1`` turned into the equality ``= 1`` (moved first, ``n_eq = 1``): same
    worst case, its multiplier free in sign."""
    data = local_gd(2, 2, Fraction(0))
    rows = data["rows"]
    k = next(i for i, (G, F, c) in enumerate(rows) if not F and c == -1)  # ||x0 - x*||^2 - 1 <= 0
    eq = dict(data) | {"rows": [rows[k]] + rows[:k] + rows[k + 1:], "n_eq": 1}
    for reference in ("clarabel", "sdpa"):
        if reference == "sdpa" and not solvers.sdpa_available():
            continue
        res = find_multipliers(eq, reference=reference)
        check(eq, res)
        assert res.bound >= rho0_value(2, 2) and res.bound - rho0_value(2, 2) <= RTOL * rho0_value(2, 2)
