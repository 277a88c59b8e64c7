"""Issue 18, worst-case engine: extreme units, PEP size limit, argument validation (regression cases)."""

from __future__ import annotations

import math

import pytest

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import local_gd_worst_case, round_constant, scaffold_worst_case, worst_case_vs_rounds
from fairtheory.worstcase.limits import MAX_PEP_DIM
from fairtheory.worstcase.local_gd import estimate_size

_REF = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.5, L=1.0, D0=1.0, rho2=1.0)
_REF_S = scaffold_worst_case(kappa=2, R=1, lr=0.5, L=1.0, D0=1.0, rho2=1.0)


@pytest.mark.parametrize("L", [1e-160, 1e-200, 1e200, 1e-300])
def test_extreme_L_is_finite_and_scales(L: float) -> None:
    """beta L = 1/2, D0 = 1, rho2 = 1: the value is L D0 + rho2/L times the L = 1 value's normalised part
    (homogeneity), finite, certified; formerly inf / ZeroDivisionError / OverflowError."""
    r = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.5 / L, L=L, D0=1.0, rho2=1.0)
    assert math.isfinite(r.value) and r.certified()
    S = L + 1.0 / L
    # the same normalised problem only when the D0 : rho2 split matches; check the exact scale instead
    assert math.isclose(r.scale, S, rel_tol=1e-12)
    assert 0 < r.value <= r.scale
    s = scaffold_worst_case(kappa=2, R=1, lr=0.5 / L, L=L, D0=1.0, rho2=1.0)
    assert math.isfinite(s.value) and s.certified() and 0 < s.value <= s.scale


def test_unit_scale_homogeneous() -> None:
    """Scaling L -> c L, beta -> beta / c, rho2 -> c^2 rho2 multiplies the value by c (exact rescaling)."""
    c = 1e150
    r = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.5 / c, L=c, D0=1.0, rho2=c * c)
    assert math.isclose(r.value, c * _REF.value, rel_tol=1e-6)
    s = scaffold_worst_case(kappa=2, R=1, lr=0.5 / c, L=c, D0=1.0, rho2=c * c)
    assert math.isclose(s.value, c * _REF_S.value, rel_tol=1e-6)


def test_beyond_float_range_is_inf_and_never_certified() -> None:
    r = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.5e-200, L=1e200, D0=1e200, rho2=0.0)
    assert r.value == math.inf and not r.certified()


def test_pep_size_limit_named_error() -> None:
    with pytest.raises(FairtheoryValueError, match="T_N|limit"):
        local_gd_worst_case(n=2, kappa=2, T_N=10**6, lr=0.5, L=1.0, D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryValueError, match="limit"):
        scaffold_worst_case(kappa=10**4, R=10**3, lr=0.1, L=1.0, D0=1.0, rho2=1.0)
    dim, rows = estimate_size(n=2, kappa=2, T_N=2)
    assert dim <= MAX_PEP_DIM and rows > 0
    # the estimate is an upper bound of the built PEP
    r = local_gd_worst_case(n=2, kappa=2, T_N=2, lr=0.25, L=1.0, D0=1.0, rho2=0.0)
    assert r.dim <= dim


@pytest.mark.parametrize("p,match", [([1.0], "shape"), ([0.3, 0.3, 0.4], "shape"), ([1.0, 0.0], "positive"),
                                     ([0.5, float("nan")], "p")])
def test_scaffold_validates_p(p: list[float], match: str) -> None:
    with pytest.raises(FairtheoryValueError, match=match):
        scaffold_worst_case(kappa=2, R=1, lr=0.5, L=1.0, D0=1.0, rho2=1.0, p=p)


@pytest.mark.parametrize("a", [float("nan"), float("inf"), -1.0])
def test_round_constant_validates_a(a: float) -> None:
    with pytest.raises(FairtheoryValueError, match="a "):
        round_constant(kappa=2, lr=0.5, a=a)


def test_worst_case_vs_rounds_needs_iterable() -> None:
    kw = dict(n=2, kappa=1, lr=0.5, L=1.0, D0=1.0, rho2=0.0)
    with pytest.raises(FairtheoryTypeError, match="T_N_values"):
        worst_case_vs_rounds(T_N_values=5, **kw)
    with pytest.raises(FairtheoryTypeError, match="T_N_values"):
        worst_case_vs_rounds(T_N_values="12", **kw)
    with pytest.raises(FairtheoryValueError, match="empty"):
        worst_case_vs_rounds(T_N_values=[], **kw)
    out = worst_case_vs_rounds(T_N_values=(0, 1), **kw)
    assert out["status_ok"].all()
