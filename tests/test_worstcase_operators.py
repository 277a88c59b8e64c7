"""Operator classes of fairtheory.worstcase.operators: a twin for every class (the PEP's value against a closed form
and an explicit operator of the class that attains it, simulated in numpy), the oracles, the labels (exact /
relaxation), validation, and the PEPit operator parity claims with their findings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import operators as op
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.sdp import PEP, inner, sqnorm

RTOL = 1e-6


def _rot(theta: float) -> np.ndarray:
    return np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])


def _normal(lam: complex) -> np.ndarray:
    """The 2x2 real normal matrix with eigenvalues ``lam``, ``conj(lam)``."""
    return np.array([[lam.real, -lam.imag], [lam.imag, lam.real]])


def _forward_pep(cls, gamma):
    """max ||x0 - gamma A x0||^2 over ||x0 - x*|| <= 1, A x* = 0."""
    pep = PEP()
    A = op.operator(pep, cls)
    op.declare_zero(A)
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    pep.maximize(sqnorm(x0 - gamma * op.apply(A, x0)))
    return pep.solve().value, op.value_is(pep)


def _ppm_pep(cls, n, alpha=1.0):
    """Proximal point: max ||x_n - x_{n-1}||^2 over ||x0 - x*|| <= 1."""
    pep = PEP()
    A = op.operator(pep, cls)
    op.declare_zero(A)
    x = prev = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(n):
        prev, (x, _) = x, op.resolvent(A, x, alpha)
    pep.maximize(sqnorm(x - prev))
    return pep.solve().value


def _ppm_explicit(M, n, alpha=1.0):
    J = np.linalg.inv(np.eye(M.shape[0]) + alpha * M)
    x0 = np.eye(M.shape[0])[0]
    xs = [x0]
    for _ in range(n):
        xs.append(J @ xs[-1])
    return float(np.sum((xs[-1] - xs[-2]) ** 2))


# ----------------------------------------------------------------------------- twins, one per class
def test_monotone_ppm_gu_yang_attained_by_a_skew_operator():
    # Gu & Yang 2020: (1 - 1/n)^{n-1}/n, attained by A = a J (J the rotation by pi/2) with a^2 = 1/(n-1)
    n = 3
    closed = (1 - 1 / n) ** (n - 1) / n
    explicit = _ppm_explicit((1 / math.sqrt(n - 1)) * _rot(math.pi / 2), n)
    assert explicit == pytest.approx(closed, rel=1e-12)
    assert _ppm_pep(op.Monotone(), n) == pytest.approx(closed, rel=RTOL)


def test_skew_symmetric_linear_ppm_reaches_the_monotone_worst_case():
    n = 3
    closed = (1 - 1 / n) ** (n - 1) / n
    assert _ppm_pep(op.SkewSymmetricLinear(1 / math.sqrt(n - 1)), n) == pytest.approx(closed, rel=RTOL)
    # a smaller norm bound cannot reach it: t/(1+t)^n at t = L^2 = 1/4 (the skew operator itself is the worst case)
    t = 0.25
    assert _ppm_pep(op.SkewSymmetricLinear(0.5), n) == pytest.approx(t / (1 + t) ** n, rel=RTOL)
    assert _ppm_explicit(0.5 * _rot(math.pi / 2), n) == pytest.approx(t / (1 + t) ** n, rel=1e-12)


def test_strongly_monotone_resolvent_contraction_attained_by_mu_identity():
    mu, gamma = 0.5, 2.0
    pep = PEP()
    A = op.operator(pep, op.StronglyMonotone(mu))
    w0, w1 = pep.vector(), pep.vector()
    pep.add_le(sqnorm(w0 - w1) - 1)
    pep.maximize(sqnorm(op.resolvent(A, w0, gamma)[0] - op.resolvent(A, w1, gamma)[0]))
    closed = 1 / (1 + gamma * mu) ** 2          # J of A = mu I is 1/(1 + gamma mu) I
    assert pep.solve().value == pytest.approx(closed, rel=RTOL)


def test_lipschitz_forward_step_attained_by_minus_L_identity():
    L, gamma = 2.0, 0.3
    v, what = _forward_pep(op.Lipschitz(L), gamma)
    assert v == pytest.approx((1 + gamma * L) ** 2, rel=RTOL)   # A = -L I
    assert what == "worst case"


def test_lipschitz_strongly_monotone_relaxation_is_tight_on_the_forward_step():
    # A = mu I + sqrt(L^2 - mu^2) J: ||x - gamma A x||^2 = (1 - gamma mu)^2 + gamma^2 (L^2 - mu^2) = 1 - 2 gamma mu + gamma^2 L^2
    L, mu, gamma = 2.0, 0.5, 0.3
    M = mu * np.eye(2) + math.sqrt(L * L - mu * mu) * _rot(math.pi / 2)
    x0 = np.array([1.0, 0.0])
    explicit = float(np.sum((x0 - gamma * M @ x0) ** 2))
    assert explicit == pytest.approx(1 - 2 * gamma * mu + gamma ** 2 * L ** 2, rel=1e-12)
    v, what = _forward_pep(op.LipschitzStronglyMonotone(L, mu), gamma)
    assert v == pytest.approx(explicit, rel=RTOL)
    assert what == "upper bound"


@pytest.mark.parametrize("gamma, closed", [(1.5, 4.0), (0.5, 1.0)])
def test_cocoercive_forward_step(gamma, closed):
    # beta = 1/2: gamma > 2 beta gives (1 - gamma/beta)^2 (A = I/beta), gamma <= 2 beta gives 1 (A = 0)
    v, what = _forward_pep(op.Cocoercive(0.5), gamma)
    assert v == pytest.approx(closed, rel=RTOL)
    assert what == "worst case"


@pytest.mark.parametrize("beta, mu, gamma", [(1.0, 0.5, 1.0), (1.0, 0.2, 1.5), (1.0, 0.5, 3.0)])
def test_cocoercive_strongly_monotone_forward_step_attained_by_a_normal_operator(beta, mu, gamma):
    # a normal operator with eigenvalue a + i b is in the class iff a >= mu and a >= beta (a^2 + b^2); the worst case over
    # them is at a in {mu, 1/beta}, |lambda|^2 = a/beta: max(1 - 2 gamma mu + gamma^2 mu/beta, (1 - gamma/beta)^2)
    closed = max(1 - 2 * gamma * mu + gamma ** 2 * mu / beta, (1 - gamma / beta) ** 2)
    a = mu if 1 - 2 * gamma * mu + gamma ** 2 * mu / beta >= (1 - gamma / beta) ** 2 else 1 / beta
    M = _normal(complex(a, math.sqrt(max(a / beta - a * a, 0.0))))
    x0 = np.array([1.0, 0.0])
    assert float(np.sum((x0 - gamma * M @ x0) ** 2)) == pytest.approx(closed, rel=1e-12)
    v, what = _forward_pep(op.CocoerciveStronglyMonotone(beta, mu), gamma)
    assert v == pytest.approx(closed, rel=RTOL)
    assert what == "upper bound"


@pytest.mark.parametrize("n", [2, 4])
def test_nonexpansive_halpern_lieder_attained_by_minus_identity(n):
    # T = -I: x_k = c_k x0 with c_{k+1} = 1/(k+2) - (k+1)/(k+2) c_k, so c_n = 1/(n+1) for even n: ||x_n - T x_n||^2 = 4/(n+1)^2
    c = 1.0
    for k in range(n):
        c = 1 / (k + 2) - (k + 1) / (k + 2) * c
    assert (2 * c) ** 2 == pytest.approx(4 / (n + 1) ** 2, rel=1e-12)
    from fairtheory.worstcase.pepit_operator_examples import halpern_iteration

    r = halpern_iteration(n=n)
    assert r.ours == pytest.approx(4 / (n + 1) ** 2, rel=RTOL) and r.value_is == "worst case"


@pytest.mark.parametrize("rho, gamma, closed", [(1.0, 1.5, 4.0), (0.5, 0.7, 6.25), (1.0, 3.0, 1.0)])
def test_negatively_comonotone_resolvent_attained_by_a_scaled_identity(rho, gamma, closed):
    # A = -(1/rho) I is rho-comonotone with equality; J_{gamma A} = rho/(rho - gamma) I: (rho/(gamma - rho))^2 when
    # rho < gamma < 2 rho; A = 0 gives 1 (the worst case when gamma >= 2 rho)
    assert max(1.0, (rho / (gamma - rho)) ** 2) == pytest.approx(closed)
    pep = PEP()
    A = op.operator(pep, op.NegativelyComonotone(rho))
    op.declare_zero(A)
    y = pep.vector()
    pep.add_le(sqnorm(y) - 1)
    pep.maximize(sqnorm(op.resolvent(A, y, gamma)[0]))
    assert pep.solve().value == pytest.approx(closed, rel=RTOL)


def _two_orthonormal(cls):
    pep = PEP()
    A = op.operator(pep, cls)
    op.declare_zero(A)
    x0, x1 = pep.vector(), pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    pep.add_le(sqnorm(x1) - 1)
    pep.add_eq(inner(x0, x1))
    return pep, A, x0, x1


def test_linear_is_stronger_than_lipschitz():
    # ||A x0 + A x1||^2 with orthonormal x0, x1: linear maps give ||M (x0 + x1)||^2 <= 2 L^2 (M = L I attains it);
    # a Lipschitz map with A 0 = 0 reaches 4 L^2 (A x0 = A x1 = L e)
    L = 1.5
    for cls, closed in ((op.Linear(L), 2 * L * L), (op.Lipschitz(L), 4 * L * L)):
        pep, A, x0, x1 = _two_orthonormal(cls)
        pep.maximize(sqnorm(op.apply(A, x0) + op.apply(A, x1)))
        assert pep.solve().value == pytest.approx(closed, rel=RTOL), cls


def test_skew_and_symmetric_linear_on_the_antisymmetric_form():
    # <x1, M x0> - <x0, M x1>: 2L for a rotation by pi/2 scaled by L (skew, and a general linear map), 0 when M = M^T
    L = 0.8
    M = L * _rot(math.pi / 2)
    e0, e1 = np.eye(2)
    assert float(e1 @ M @ e0 - e0 @ M @ e1) == pytest.approx(2 * L, rel=1e-12)
    for cls, closed in ((op.SkewSymmetricLinear(L), 2 * L), (op.Linear(L), 2 * L), (op.SymmetricLinear(L, -L), 0.0)):
        pep, A, x0, x1 = _two_orthonormal(cls)
        pep.maximize(inner(x1, op.apply(A, x0)) - inner(x0, op.apply(A, x1)))
        assert pep.solve().value == pytest.approx(closed, rel=RTOL, abs=1e-7), cls


def test_symmetric_linear_spectrum_bounds():
    # ||M x0 - (L + mu)/2 x0||^2 <= ((L - mu)/2)^2 on mu I <= M <= L I (M = L I attains it); <x0, M x0> in [mu, L]
    L, mu = 2.0, -1.0
    pep = PEP()
    A = op.operator(pep, op.SymmetricLinear(L, mu))
    op.declare_zero(A)
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    pep.maximize(sqnorm(op.apply(A, x0) - ((L + mu) / 2) * x0))
    assert pep.solve().value == pytest.approx(((L - mu) / 2) ** 2, rel=RTOL)
    pep2 = PEP()
    A2 = op.operator(pep2, op.SymmetricLinear(L, mu))
    x = pep2.vector()
    pep2.add_le(sqnorm(x) - 1)
    pep2.maximize(-inner(x, op.apply(A2, x)))
    assert pep2.solve().value == pytest.approx(-mu, rel=RTOL)


# ----------------------------------------------------------------------------- oracles, labels, validation
def test_labels_exact_and_relaxation():
    exact = (op.Monotone(), op.StronglyMonotone(1), op.Lipschitz(1), op.Cocoercive(1), op.Nonexpansive(),
             op.NegativelyComonotone(1), op.Linear(1), op.SymmetricLinear(1, 0), op.SkewSymmetricLinear(1))
    assert all(c.exact for c in exact)
    assert not op.LipschitzStronglyMonotone(1, 0.5).exact and not op.CocoerciveStronglyMonotone(1, 0.5).exact
    assert {type(c) for c in exact} | {op.LipschitzStronglyMonotone, op.CocoerciveStronglyMonotone} == set(op.OPERATOR_CLASSES)
    assert all(op.is_operator_class(c) for c in exact) and not op.is_operator_class(SmoothStronglyConvex(1, 0))


def test_set_valued_classes_return_a_new_element_per_call_single_valued_the_same():
    pep = PEP()
    A, B = op.operator(pep, op.Monotone()), op.operator(pep, op.Lipschitz(1))
    x = pep.vector()
    assert op.apply(A, x).key() != op.apply(A, x).key()
    assert op.apply(B, x).key() == op.apply(B, x).key()


def test_validation_errors_name_the_argument():
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(1, 0))
    with pytest.raises(FairtheoryTypeError, match="A must be an operator"):
        op.apply(f, pep.vector())
    with pytest.raises(FairtheoryTypeError, match="cls must be an operator class"):
        op.operator(pep, SmoothStronglyConvex(1, 0))
    with pytest.raises(FairtheoryValueError, match="mu must be a finite number below L"):
        op.SymmetricLinear(1.0, 1.0)
    for mu in (2.0, 1.0):
        with pytest.raises(FairtheoryValueError, match=r"mu must lie in \[0, L\)"):
            op.LipschitzStronglyMonotone(1.0, mu)
    for mu in (1.0, 0.5):
        with pytest.raises(FairtheoryValueError, match=r"mu must lie in \(0, 1/beta\)"):
            op.CocoerciveStronglyMonotone(2.0, mu)
    with pytest.raises(FairtheoryTypeError, match="rho must be a real number"):
        op.NegativelyComonotone("1")
    with pytest.raises(FairtheoryValueError, match="L must"):
        op.Linear(-1.0)
    A = op.operator(pep, op.Monotone())
    with pytest.raises(FairtheoryValueError, match="gamma"):
        op.resolvent(A, pep.vector(), 0.0)
    with pytest.raises(FairtheoryTypeError, match="y must be a vector"):
        op.resolvent(A, 1.0, 1.0)


def test_linear_operator_refuses_a_nonzero_output_at_the_origin():
    pep = PEP()
    A, B = op.operator(pep, op.Linear(1)), op.operator(pep, op.Monotone())
    with pytest.raises(FairtheoryValueError, match="maps the origin to 0"):
        op.declare_zero_of_sum([A, B])


def test_zero_of_sum_drs_lipschitz_monotone():
    # the same DRS contraction written with a declared zero of A + B and one run from w0 (w* = x* + alpha u_B*)
    from fairtheory.worstcase.pepit_operator_examples import drs_lipschitz_tau

    L, mu, alpha, theta = 1.0, 0.1, 1.3, 0.9
    pep = PEP()
    A = op.operator(pep, op.LipschitzStronglyMonotone(L, 0))
    B = op.operator(pep, op.StronglyMonotone(mu))
    xs, (ua, ub) = op.declare_zero_of_sum([A, B])
    ws = xs + alpha * ub                       # a fixed point of the DRS map: J_{alpha B}(ws) = xs
    w0 = pep.vector()
    pep.add_le(sqnorm(w0 - ws) - 1)
    x, _ = op.resolvent(B, w0, alpha)
    y, _ = op.resolvent(A, 2 * x - w0, alpha)
    pep.maximize(sqnorm(w0 - theta * (x - y) - ws))
    assert pep.solve().value == pytest.approx(drs_lipschitz_tau(L, mu, alpha, theta), rel=RTOL)


# ----------------------------------------------------------------------------- findings (regression tests)
def test_finding_drs_cocoercive_formula_is_not_an_upper_bound():
    # PEPit's transcription of RTBG 2020 Thm 4.1 (the corrected formula: tests/test_pepit_drs_finding.py)
    from fairtheory.worstcase.pepit_operator_examples import (
        douglas_rachford_splitting_cocoercive,
        drs_cocoercive_tau_as_pepit,
    )

    beta, mu, alpha, theta = 0.7, 1.3, 1.0, 1.0
    formula = drs_cocoercive_tau_as_pepit(beta, mu, alpha, theta)
    assert formula == pytest.approx(0.2817695125, rel=1e-9)
    # explicit commuting normal operators: A (eigenvalue on the 0.7-cocoercive circle |lam - 1/1.4| = 1/1.4), B (Re = 1.3)
    lam_a = (1 / (2 * beta)) * (1 + np.exp(1j * 1.5984))
    lam_b = complex(mu, -2.9)
    assert lam_a.real >= beta * abs(lam_a) ** 2 - 1e-12 and lam_b.real >= mu
    ja, jb = 1 / (1 + alpha * lam_a), 1 / (1 + alpha * lam_b)
    t = 1 - theta * (jb - ja * (2 * jb - 1))
    assert abs(t) ** 2 > 0.3662 > formula
    r = douglas_rachford_splitting_cocoercive(beta=beta, mu=mu, alpha=alpha, theta=theta)
    assert r.ours == pytest.approx(100 / 273, rel=RTOL) and r.status == "Solved"
    assert not r.agrees


def test_finding_km_constant_docstring_regime_and_the_bound_used():
    from fairtheory.worstcase.pepit_operator_examples import km_constant_bound, krasnoselskii_mann_constant_step_sizes

    n, gamma = 5, 0.99
    minus_identity = (2 * gamma - 1) ** (2 * n)          # T = -I: ||x_n - T x_n||^2/4 = (1 - 2 gamma)^{2n}
    assert minus_identity > (gamma - 1) ** (2 * n) * 1e19    # PEPit's docstring value is far below an attained value
    assert km_constant_bound(n, gamma) == pytest.approx(minus_identity, rel=1e-12)
    r = krasnoselskii_mann_constant_step_sizes(n=n, gamma=gamma)
    assert r.ours == pytest.approx(minus_identity, rel=RTOL) and r.agrees


def test_operator_claims_module_registers_its_ids_and_the_finding():
    import verify.claims.pepit_operators as po
    from fairtheory.worstcase.pepit_operator_examples import OPERATOR_EXAMPLES
    from verify.core import REGISTRY

    assert po.CLAIM_IDS == tuple(f"base.pepit.operators.{n}" for n in OPERATOR_EXAMPLES) and len(po.CLAIM_IDS) >= 9
    assert REGISTRY["base.pepit.operators.douglas_rachford_splitting_cocoercive"].expected == "refuted"
    assert REGISTRY["base.pepit.operators.halpern_iteration"].expected == "verified"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["proximal_point", "accelerated_proximal_point", "optimal_strongly_monotone_proximal_point",
                                  "douglas_rachford_splitting", "halpern_iteration",
                                  "optimal_contractive_halpern_iteration", "krasnoselskii_mann_constant_step_sizes",
                                  "krasnoselskii_mann_increasing_step_sizes"])
def test_operator_examples_agree_on_their_full_grids(name):
    from fairtheory.worstcase.pepit_operator_examples import OPERATOR_EXAMPLES

    ex = OPERATOR_EXAMPLES[name]
    for params in ex.quick + ex.full:
        r = ex.run(**params)
        assert r.agrees, (name, params, r.ours, r.theory)


@pytest.mark.parametrize("cls, gamma", [(op.Lipschitz(2.0), 0.3), (op.Cocoercive(0.5), 1.5),
                                        (op.LipschitzStronglyMonotone(2.0, 0.5), 0.3),
                                        (op.CocoerciveStronglyMonotone(1.0, 0.2), 1.5), (op.Linear(1.5), 0.2),
                                        (op.SymmetricLinear(2.0, -1.0), 0.4), (op.SkewSymmetricLinear(0.8), 1.0),
                                        (op.Nonexpansive(), 0.5)])
def test_rescaled_class_gives_the_same_worst_case_in_new_units(cls, gamma):
    # x' = x/a, u' = a u/b: x - gamma u = a (x' - gamma b/a^2 u'), so the ratio is unchanged with gamma' = gamma b/a^2
    a, b = 4.0, 0.5
    assert _forward_pep(cls.rescaled(a, b), gamma * b / a ** 2)[0] == pytest.approx(_forward_pep(cls, gamma)[0], rel=RTOL)


def test_badly_scaled_operator_classes_give_the_unit_values():
    # the builder's normalised units: L = 1e4 with gamma = 1e-4 is the L = 1, gamma = 1 problem, (1 + 1)^2
    assert _forward_pep(op.Lipschitz(1e4), 1e-4)[0] == pytest.approx(4.0, rel=RTOL)
    assert _forward_pep(op.Linear(1e6), 1e-6)[0] == pytest.approx(4.0, rel=RTOL)
    assert _forward_pep(op.Cocoercive(1e-4), 3e-4)[0] == pytest.approx(4.0, rel=RTOL)
    assert _ppm_pep(op.Monotone(), 2, alpha=1e6) == pytest.approx(0.25, rel=RTOL)


def test_bracket_gives_a_rigorous_upper_bound_on_operator_peps():
    # PEP.bracket's upper bound (exact rational multipliers, weak duality checked in rational arithmetic) applies to any
    # class: it sits above Gu & Yang's 4/27 (n = 3) and within 1e-9 of it; no replayed lower bound for operators (nan)
    from fractions import Fraction

    pep = PEP()
    A = op.operator(pep, op.Monotone())
    op.declare_zero(A)
    x = prev = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(3):
        prev, (x, _) = x, op.resolvent(A, x, 1.0)
    pep.maximize(sqnorm(x - prev))
    b = pep.bracket()
    assert Fraction(b.upper) >= Fraction(4, 27) and b.upper - 4 / 27 < 1e-9
    assert math.isnan(b.lower)


# ----------------------------------------------------------------------------- PEPit's printed numbers (a cross-check)
@pytest.mark.parametrize("name, printed", [("past_extragradient", 0.0602664), ("three_operator_splitting", 0.779689),
                                           pytest.param("optimistic_gradient", 0.0663141, marks=pytest.mark.slow)])
def test_examples_without_a_paper_value_match_pepits_printed_number(name, printed):
    # no claim (the papers state O(1/n) only); PEPit's docstrings print 6 significant digits at these parameters
    from fairtheory.worstcase import pepit_operator_examples as ex

    r = getattr(ex, name)()
    assert r.status == "Solved" and r.value == pytest.approx(printed, rel=1e-5)
    assert r.value_is == ("worst case" if name == "three_operator_splitting" else "upper bound")


@pytest.mark.parametrize("name, printed", [("douglas_rachford_splitting", 0.928771),
                                           ("douglas_rachford_splitting_cocoercive", 0.91453),
                                           ("krasnoselskii_mann_constant_step_sizes", 0.140625),
                                           ("krasnoselskii_mann_increasing_step_sizes", 0.119634)])
def test_claim_examples_match_pepits_printed_number(name, printed):
    from fairtheory.worstcase.pepit_operator_examples import run_operator_example

    assert run_operator_example(name).ours == pytest.approx(printed, rel=1e-5)


def test_finding_drs_cocoercive_formula_is_not_attained_rigorous_upper_bound():
    # at beta = 1, mu = 0.5, alpha = theta = 1 PEPit's transcription says the worst case is 0.9; PEP.bracket's rigorous
    # upper bound (exact multipliers, weak duality in rationals) shows it is at most 0.45 + 1e-9 (the corrected 0.45)
    from fairtheory.worstcase.pepit_operator_examples import _drs, drs_cocoercive_tau, drs_cocoercive_tau_as_pepit

    assert drs_cocoercive_tau_as_pepit(1.0, 0.5, 1.0, 1.0) == pytest.approx(0.9, rel=1e-12)
    assert drs_cocoercive_tau(1.0, 0.5, 1.0, 1.0) == pytest.approx(0.45, rel=1e-12)
    b = _drs(op.Cocoercive(1.0), op.StronglyMonotone(0.5), 1.0, 1.0).bracket()
    assert 0.45 <= b.upper < 0.45 + 1e-9
