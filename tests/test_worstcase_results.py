"""Worst-case results beyond a bracketed value: unbounded PEPs are a result, not a failure (a PEP with a ray - every row
holds along it, the Gram part stays PSD and the objective grows - is reported as ``value = inf``,
``value_is = "unbounded"``, status ``"Unbounded"``; a point that is not such a ray is never reported so), a GMP
answer that is not a point of the PEP is discarded, and ``bracket=False`` gives the solver's value alone."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from fairtheory.algorithms import fedavg
from fairtheory.worstcase import Convex, ConvexLipschitz, worst_case
from fairtheory.worstcase.checked_solve import unbounded_ray
from fairtheory.worstcase.gram import sqnorm
from fairtheory.worstcase.sdp import PEP


def _gd_on_convex(steps: int = 2) -> PEP:
    pep = PEP()
    f = pep.function(Convex())
    xs, _, fs = f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x - xs) - 1)
    for _ in range(steps):
        g, _ = f.oracle(x)
        x = x - 0.5 * g
    _, fx = f.oracle(x)
    pep.maximize(fx - fs)
    return pep


def test_gd_on_convex_is_unbounded() -> None:
    """Without smoothness or a Lipschitz bound the gradients are unbounded, so f(x_N) - f* is: a ray exists."""
    sol = _gd_on_convex().solve()
    assert sol.status == "Unbounded" and sol.value == math.inf


def test_traced_worst_case_reports_unbounded_by_name() -> None:
    w = worst_case(fedavg.make, 2, n=1, D0=1, rho2=0, function_class=Convex(), lr=0.5)
    assert w.value == math.inf and w.value_is == "unbounded" and w.status == "Unbounded"
    assert "unbounded" in w.extra["unbounded"] and w.certificate is None
    assert not w.certified()


def test_bounded_class_stays_finite() -> None:
    """The same method on ConvexLipschitz(1) has the finite worst case M R / sqrt(N + 1) at its best output."""
    w = worst_case(fedavg.make, 3, n=1, D0=1, rho2=0, function_class=ConvexLipschitz(1), lr=0.5, output="best")
    assert math.isfinite(w.value) and abs(w.value - 0.5) <= 1e-6


def test_a_point_that_is_not_a_ray_is_refused() -> None:
    """Forgeries of the ray check: the objective decreasing along it, a row violated, a non-PSD Gram part."""
    pep = _gd_on_convex()
    raw = pep._solve_float(method="dense")
    assert raw.status == "DualInfeasible" and unbounded_ray(raw) is not None
    assert unbounded_ray(dataclasses.replace(raw, objective_row=-np.asarray(raw.objective_row))) is None
    bad_rows = raw.rows.copy().tolil()
    bad_rows[raw.n_eq, :] = -bad_rows[raw.n_eq, :].toarray() + 1.0
    assert unbounded_ray(dataclasses.replace(raw, rows=bad_rows.tocsr())) is None
    g = np.array(raw.gram, dtype=np.float64)
    g[0, 0] = -abs(g).max()
    assert unbounded_ray(dataclasses.replace(raw, gram=g)) is None
    assert unbounded_ray(dataclasses.replace(raw, rows=None)) is None


def test_prove_potential_names_a_bad_step() -> None:
    """A step that is not a rational number is refused by name (was a raw ValueError from Fraction)."""
    import pytest

    from fairtheory.errors import FairtheoryValueError
    from fairtheory.proofs.potential_search import prove_potential

    for bad in ("abc", "1/0", ("1/4", "x")):
        with pytest.raises(FairtheoryValueError, match="h must be a rational number"):
            prove_potential("gd", h=bad)


def test_no_ray_where_every_gradient_is_bounded() -> None:
    """Smooth and Lipschitz classes bound every gradient by the initial condition: a solver's infeasibility
    certificate there (Scaffold at lr L = 100, where the data span 100^4) is never reported as a ray."""
    from fairtheory.worstcase import SmoothStronglyConvex
    from fairtheory.worstcase.checked_solve import ray_possible

    pep = PEP()
    pep.function(SmoothStronglyConvex(1.0, 0.0))
    pep.function(ConvexLipschitz(2.0))
    assert not ray_possible(pep)
    pep.function(Convex())
    assert ray_possible(pep)
    raw = _gd_on_convex()._solve_float(method="dense")
    smooth = PEP()
    smooth.function(SmoothStronglyConvex(1.0, 0.0))
    assert unbounded_ray(raw, smooth) is None and unbounded_ray(raw, _gd_on_convex()) is not None


def test_local_gd_solver_value_without_bracket() -> None:
    """bracket=False: the solver's value alone (value_is 'solver', never certified), within the bracket's tolerance of
    the rigorous value; a non-bool is refused by name."""
    import pytest

    from fairtheory.errors import FairtheoryValueError
    from fairtheory.worstcase import local_gd_worst_case

    kw = dict(n=2, kappa=2, T_N=2, lr=0.25, L=1.0, D0=1.0, rho2=0.5)
    fast, full = local_gd_worst_case(**kw, bracket=False), local_gd_worst_case(**kw)
    assert fast.value_is == "solver" and not fast.certified() and full.value_is == "upper"
    assert abs(fast.value - full.value) <= 1e-6 * full.value
    with pytest.raises(FairtheoryValueError, match="bracket"):
        local_gd_worst_case(**kw, bracket="no")
