"""The Douglas-Rachford finding stated right: PEPit's example transcribes RTBG 2020 Thm 4.1 with two slips (``beta``
scaled as ``alpha beta`` where ``alpha A`` is ``(beta/alpha)``-cocoercive; the general regime divided by ``mu^2 beta``
where ``mu beta`` belongs).  The corrected formula gives exactly ``100/273`` at the finding's parameters and equals
our PEP in every regime, the general one also with ``alpha != 1``."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from fairtheory.worstcase.pepit_operator_examples import (
    OPERATOR_EXAMPLES,
    douglas_rachford_splitting_cocoercive,
    douglas_rachford_splitting_cocoercive_corrected,
    drs_cocoercive_tau,
    drs_cocoercive_tau_as_pepit,
)

RTOL = 1e-6
FINDING = "base.pepit.operators.douglas_rachford_splitting_cocoercive"
CORRECTED = FINDING + "_corrected"


def test_corrected_formula_is_exactly_100_over_273_at_the_findings_parameters() -> None:
    tau = drs_cocoercive_tau(F(7, 10), F(13, 10), F(1), F(1))
    assert isinstance(tau, F) and tau == F(100, 273)
    # PEPit's transcription there: the general regime divided by mu = 13/10 once more
    pepit = drs_cocoercive_tau_as_pepit(F(7, 10), F(13, 10), F(1), F(1))
    assert isinstance(pepit, F) and pepit == F(100, 273) / F(13, 10) == F(1000, 3549)
    assert float(pepit) == pytest.approx(0.2817695125, rel=1e-9)


@pytest.mark.parametrize("beta, mu, alpha, theta", [(F(7, 10), F(13, 10), F(1, 2), F(6, 5)),
                                                    (F(3, 2), F(4, 5), F(17, 10), F(9, 10)),
                                                    (F(7, 10), F(13, 10), F(1), F(1))])
def test_the_two_slips_exactly(beta: F, mu: F, alpha: F, theta: F) -> None:
    """In the general regime PEPit's value is the corrected one at ``beta' = alpha^2 beta`` (so that its ``alpha beta``
    is the corrected ``beta'/alpha``) divided by ``m = alpha mu`` once more - exact rational arithmetic."""
    assert drs_cocoercive_tau_as_pepit(beta, mu, alpha, theta) * (alpha * mu) == drs_cocoercive_tau(
        alpha * alpha * beta, mu, alpha, theta)


def test_the_finding_at_its_parameters_pep_and_explicit_operators() -> None:
    beta, mu, alpha, theta = 0.7, 1.3, 1.0, 1.0
    r = douglas_rachford_splitting_cocoercive(beta=beta, mu=mu, alpha=alpha, theta=theta)
    assert r.status == "Solved" and r.ours == pytest.approx(100 / 273, rel=RTOL) and not r.agrees
    assert r.theory == pytest.approx(float(F(1000, 3549)), rel=1e-12)
    c = douglas_rachford_splitting_cocoercive_corrected(beta=beta, mu=mu, alpha=alpha, theta=theta)
    assert c.agrees and c.theory == pytest.approx(100 / 273, rel=1e-15)
    # PEP.bracket finds no exact certificate here (clarabel's multipliers do not round to one), so the PEP's value
    # stands with the explicit operators that reach it from below: commuting normal 2x2 operators, A's eigenvalue on
    # the boundary of the 0.7-cocoercive disk
    # (Re a = beta |a|^2), B's with real part mu: |1 - theta (J_B - J_A (2 J_B - 1))|^2 = 100/273 - 6e-12
    lam_a = (1 / (2 * beta)) * (1 + np.exp(-1.6029j))
    lam_b = complex(mu, 2.8914)
    assert abs(lam_a.real - beta * abs(lam_a) ** 2) < 1e-12 and lam_b.real >= mu
    ja, jb = 1 / (1 + alpha * lam_a), 1 / (1 + alpha * lam_b)
    reached = abs(1 - theta * (jb - ja * (2 * jb - 1))) ** 2
    assert 100 / 273 - 1e-10 < reached <= 100 / 273 + 1e-12


def test_corrected_formula_equals_the_pep_in_every_regime() -> None:
    """Every parameter point of the corrected claim (quick and full): PEP = corrected formula to 1e-6; at the points
    of the general regime with alpha != 1 PEPit's transcription is off by far."""
    ex = OPERATOR_EXAMPLES["douglas_rachford_splitting_cocoercive_corrected"]
    points = ex.quick + ex.full
    assert len(points) >= 10
    general_alpha = 0
    for params in points:
        r = ex.run(**params)
        assert r.status == "Solved" and r.agrees, (params, r.ours, r.theory)
        pepit = drs_cocoercive_tau_as_pepit(**params)
        if params["alpha"] != 1.0 and abs(pepit - r.ours) > 0.05 * r.ours:
            general_alpha += 1
    assert general_alpha >= 4


def test_the_claims_state_the_finding_and_verify_the_correction() -> None:
    import verify.claims.pepit_operators as po
    from verify.core import REGISTRY, Context, run_claim

    assert FINDING in po.CLAIM_IDS and CORRECTED in po.CLAIM_IDS
    spec = REGISTRY[FINDING]
    assert spec.expected == "refuted"
    assert "transcription error in PEPit's example, not in the theorem" in spec.statement
    assert "as PEPit's example writes it" in spec.statement
    assert REGISTRY[CORRECTED].expected == "verified" and "corrected" in REGISTRY[CORRECTED].citation
    found = run_claim(FINDING, Context(quick=True))
    assert found.status == "refuted" and found.as_expected
    assert found.note.startswith("recorded finding: a transcription error in PEPit's example")
    cx = found.counterexample
    assert (cx["beta"], cx["mu"], cx["alpha"], cx["theta"]) == (0.7, 1.3, 1.0, 1.0)
    assert cx["measured"] == pytest.approx(100 / 273, rel=RTOL) and cx["bound"] == pytest.approx(1000 / 3549, rel=1e-12)
    fixed = run_claim(CORRECTED, Context(quick=True))
    assert fixed.status == "verified" and fixed.instances == len(OPERATOR_EXAMPLES[
        "douglas_rachford_splitting_cocoercive_corrected"].quick) >= 8
