"""Identical clients: constraint generation in the symmetric reduction, the size rule of its dense fallback, and a
certified local-GD value that never exceeds its own exact certificate (fairtheory.worstcase.symmetric, local_gd).

Ground truth: the reduced solve over every row (generation off) and the dense full solve with its own rigorous
bracket; the exact certificate of fairtheory.proofs.certificate (rational multipliers, re-checked exactly)."""

from __future__ import annotations

import math
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest

from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.worstcase import local_gd as lg
from fairtheory.worstcase import local_gd_worst_case, symmetric
from fairtheory.worstcase.bracket import bracket, primal_objective
from fairtheory.worstcase.local_gd import rho2_expr
from fairtheory.worstcase.sdp import sqnorm
from fairtheory.worstcase.symmetric import attach, solve_symmetric


def _sym_pep(n: int, kappa: int, T_N: int, beta: float) -> lg.Built:
    p = np.full(n, 1.0 / n)
    b = lg.build_local_gd(n=n, p=p, lr=beta, kappa=kappa, T_N=T_N, output="average")
    b.pep.add_le(sqnorm(b.x0) - 2.0 / 3.0)  # D0 = 1, rho2 = 1/2 in units of L D0 + rho2/L = 3/2
    b.pep.add_le(rho2_expr(b, p) - 1.0 / 3.0)
    b.pep.maximize(b.objective)
    assert attach(b.pep, b.funcs, b.stars, b.x0, p)
    return b


@pytest.mark.parametrize("loose", [False, True])
@pytest.mark.parametrize(("n", "kappa"), [(2, 5), (3, 3)])
def test_generation_matches_every_row(n: int, kappa: int, loose: bool) -> None:
    """Constraint generation keeps fewer rows, ends with none violated, gives the multiplier 0 to every row never
    added, and its value and rigorous bracket agree with the reduced solve over every row (each one's replayed lower
    end below the other's rigorous upper end)."""
    b = _sym_pep(n, kappa, 1, 1.0 / (8 * kappa))
    sym = b.pep.symmetry
    full = solve_symmetric(b.pep, sym, generate=False)
    gen = solve_symmetric(b.pep, sym, generate=True, loose_rounds=loose)
    p = np.full(n, 1.0 / n)
    kw = {"x0": b.x0, "n": n, "p": p, "D0_level": 2.0 / 3.0, "rho2_level": 1.0 / 3.0}
    bf = bracket(b.pep, full, b.objective, **kw)
    bg = bracket(b.pep, gen, b.objective, **kw)
    assert gen.violated_left == 0 and len(gen.generation) >= 1
    assert gen.generation[-1]["tol"] == 1e-8  # the last round at the caller's tolerance
    assert gen.rows_reduced < full.rows_reduced
    assert abs(primal_objective(gen) - primal_objective(full)) <= 1e-7
    assert bg.lower <= bf.upper and bf.lower <= bg.upper
    assert bg.upper - primal_objective(gen) <= 1e-6  # certified on its own
    # rows of client 0 never added carry no multiplier, and every orbit shares one
    n_interp = gen.n_interp
    zi = gen.z[gen.n_eq:gen.n_eq + n_interp].reshape(n, n_interp // n)
    assert np.all(zi[0] == zi[1]) and np.count_nonzero(zi[0]) <= gen.rows_reduced


def test_generation_arguments_named() -> None:
    b = _sym_pep(2, 2, 1, 0.125)
    with pytest.raises(FairtheoryValueError, match="generate"):
        solve_symmetric(b.pep, b.pep.symmetry, generate="yes")  # type: ignore[arg-type]
    with pytest.raises(FairtheoryValueError, match="max_rounds"):
        solve_symmetric(b.pep, b.pep.symmetry, max_rounds=0)
    with pytest.raises(FairtheoryValueError, match="loose_rounds"):
        solve_symmetric(b.pep, b.pep.symmetry, loose_rounds=1)  # type: ignore[arg-type]
    with pytest.raises(FairtheoryValueError, match="viol_tol"):
        solve_symmetric(b.pep, b.pep.symmetry, generate=True, viol_tol=2.0)


def _truncated(max_iter: int):  # type: ignore[no-untyped-def]
    """solve_symmetric stopped after ``max_iter`` iterations: an open bracket on every machine."""
    real = symmetric.solve_symmetric

    def f(*a, **k):  # type: ignore[no-untyped-def]
        k["max_iter"] = max_iter
        return real(*a, **k)
    return f


def test_open_reduction_above_the_size_keeps_the_reduction() -> None:
    """An open reduced bracket (forced: the reduced solves stopped after 3 iterations) above the size rule (the rule
    lowered to 30 for the test, Gram 34): no dense solve is made; the result is the reduction's, never certified (or
    no value at all when its replay does not match either).  Below the rule: tests/test_worstcase_scale.py
    ``test_uncertified_reduction_falls_back_to_dense``."""
    from fairtheory.worstcase import solvers

    with mock.patch.object(symmetric, "solve_symmetric", side_effect=_truncated(3)), \
            mock.patch.object(lg, "SYMMETRIC_DENSE_FALLBACK_DIM", 30), \
            mock.patch.object(solvers, "solve_dense", wraps=solvers.solve_dense) as dense:
        try:
            r = local_gd_worst_case(n=2, kappa=14, T_N=1, lr=1.0 / (8 * 14), L=1.0, D0=1.0, rho2=1.0, symmetric=True)
        except SolverError:
            r = None
    assert dense.call_count == 0
    if r is not None:
        assert r.extra["symmetric"].startswith("reduced, not certified") and not r.certified()


def test_symmetric_route_records_its_solves() -> None:
    r = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0, symmetric=True)
    assert r.extra["symmetric"] == "reduced" and r.certified()
    assert r.extra["symmetric_solves"][0] == "plain"


def test_certified_value_never_exceeds_its_certificate() -> None:
    """Issue: kappa = 3, T_N = 3, rho2 = 1/2 reported value 0.144382545 above its certificate's 0.144382354.  The
    value is now the smaller of the rigorous upper bounds - the certificate's bound rounded up to a float, or (since
    session 12) the exact repair of the KKT point's face multipliers (fairtheory.worstcase.kkt_bracket: measured
    0.14438235367860444, 6e-15 above SDPA-GMP's 0.14438235367860353, tests/test_proofs_certificate.py GMP_RHO_HALF,
    where the certificate's is 0.1443823536788962) - and never below the worst case (GMP's value, to its printed
    digits)."""
    wc = local_gd_worst_case(n=2, kappa=3, T_N=3, lr=0.25, L=1, D0=1, rho2=0.5, output="average", certificate=True)
    bound = Fraction(wc.certificate.bound)
    assert wc.value_is == "upper" and wc.certified()
    assert Fraction(wc.value) >= Fraction(0.14438235367860353) * (1 - Fraction(1, 10 ** 13))
    assert wc.value <= math.nextafter(float(bound), math.inf)
    assert wc.upper == wc.value and wc.lower <= wc.value
    assert abs(wc.value - 0.14438235367860353) <= 1e-6 * 0.14438235367860353


def test_certificate_clamps_only_downwards() -> None:
    """Forgery attempts on the clamp: an ``upper`` already below the certificate's bound is kept (the smaller of
    two rigorous bounds), a replayed ``lower`` above the exact bound is lowered to it, and a result of another kind
    ("solver": unbracketed) keeps its kind but is never above the bound either."""
    from fairtheory.worstcase.local_gd import _attach_certificate
    from fairtheory.worstcase.results import WorstCase

    tpl_kw = dict(n=2, kappa=2, T_N=1, lr=0.25, L=1, D0=1, rho2=0.5, output="average", certificate=True)
    ref = local_gd_worst_case(**tpl_kw)  # type: ignore[arg-type]
    from fairtheory.proofs.certificate import statement
    from fairtheory.worstcase.finish import exact_weights

    tpl = statement(method={"name": "local_gd", "kappa": 2, "T_N": 1, "lr": 0.25, "schedule": "rfedfair",
                            "output": "average"}, n=2, p=exact_weights(None, np.full(2, 0.5)), L=1.0,
                    bound={"form": "constrained", "D0": 1.0, "rho2": 0.5, "value": 0})
    cb = float(ref.certificate.bound)

    def wc(value: float, lower: float, upper: float, value_is: str) -> WorstCase:
        return WorstCase(value=value, dual_value=value, gap=0.0, status="Solved", dim=1, n_constraints=1,
                         seconds=0.0, build_seconds=0.0, scale=1.5, params={}, lower=lower, upper=upper,
                         value_is=value_is, extra={"solver_value": value})

    low = _attach_certificate(wc(cb - 1e-3, cb - 2e-3, cb - 1e-3, "upper"), tpl, {})
    assert low.upper == cb - 1e-3 and low.value == cb - 1e-3  # not raised to the certificate's bound
    hi = _attach_certificate(wc(cb + 1e-3, cb + 5e-4, cb + 1e-3, "upper"), tpl, {})
    assert hi.value <= math.nextafter(cb, math.inf) and hi.lower <= hi.value and "lower_clamped" in hi.extra
    raw = _attach_certificate(wc(cb + 1e-3, math.nan, math.inf, "solver"), tpl, {})
    assert raw.value <= math.nextafter(cb, math.inf) and raw.value_is == "solver"
    below = _attach_certificate(wc(cb - 1e-3, math.nan, math.inf, "solver"), tpl, {})
    assert below.value == cb - 1e-3


def test_settled_generation_is_a_relaxation_with_its_rows() -> None:
    """Generation that settles (here forced: any violated rows are "few and small") stops with ``violated_left > 0``,
    names the rows it left out and those it kept, never gives a left-out row a multiplier, and a re-solve started
    from ``initial_rows`` (kept and left-out rows) keeps at least those rows; ``settle`` is validated by name."""
    b = _sym_pep(2, 5, 1, 1.0 / 40)
    sym = b.pep.symmetry
    with mock.patch.object(symmetric, "SETTLE_FRACTION", 1.0), mock.patch.object(symmetric, "SETTLE_VIOL", 1.0):
        rel = solve_symmetric(b.pep, sym, generate=True, settle=True, viol_tol=1e-12)
    assert len(rel.generation) == 1 and rel.generation[0]["settled"]
    assert rel.violated_left == rel.violated_rows.size > 0
    assert np.intersect1d(rel.kept_rows, rel.violated_rows).size == 0
    assert rel.rows_reduced == rel.kept_rows.size
    sym.initial_rows = np.union1d(rel.kept_rows, rel.violated_rows)
    try:
        more = solve_symmetric(b.pep, sym, generate=True, settle=False)
    finally:
        sym.initial_rows = None
    assert more.violated_left == 0
    assert np.isin(np.union1d(rel.kept_rows, rel.violated_rows), more.kept_rows).all()
    with pytest.raises(FairtheoryValueError, match="settle"):
        solve_symmetric(b.pep, sym, settle="yes")  # type: ignore[arg-type]
    sym.initial_rows = np.array([10 ** 9])
    try:
        with pytest.raises(FairtheoryValueError, match="initial_rows"):
            solve_symmetric(b.pep, sym, generate=True)
    finally:
        sym.initial_rows = None


def test_route_brackets_a_relaxation_from_its_replayed_end() -> None:
    """local GD at kappa = 17 (blocks of 20: the Schur route, generation settles by default): with settling forced
    after the first relaxation, the route either certifies the relaxation by its two rigorous ends (upper minus the
    replayed lower end within 1e-6 of the unit) or continues the generation; either way its bracket meets the
    unforced route's, and a certified result's replayed lower end is within 1e-6 of the unit of its upper end."""
    kw = {"n": 2, "kappa": 17, "T_N": 1, "lr": 1.0 / (8 * 17), "L": 1.0, "D0": 1.0, "rho2": 0.5, "symmetric": True}
    ref = local_gd_worst_case(**kw)
    left: list[int] = []
    real = symmetric.solve_symmetric

    def spy(*a, **k):  # type: ignore[no-untyped-def]
        s = real(*a, **k)
        left.append(s.violated_left)
        return s

    with mock.patch.object(symmetric, "SETTLE_FRACTION", 1.0), mock.patch.object(symmetric, "SETTLE_VIOL", 1.0), \
            mock.patch.object(symmetric, "solve_symmetric", side_effect=spy):
        r = local_gd_worst_case(**kw)
    assert left[0] > 0  # the first solve is a relaxation
    assert ref.certified() and ref.extra["symmetric_solver"] == "cvxopt-schur"
    assert r.lower <= ref.upper and ref.lower <= r.upper
    if r.certified():
        assert r.upper - r.lower <= 1e-6 * max(abs(r.value), r.scale)
    else:
        assert r.value_is == "lower" and r.value == r.lower
