"""Regression tests for recorded findings on RC-FL's objective (002 Def. 2, Lemma 1).

rcfl.lemma1.hcvar_conditional is registered expected="refuted": the literal Def. 2 of 002,
E_pi[f | f > Q_beta(f)], differs from f_alpha when an atom of pi sits at the quantile.  The stored
counterexample must keep violating the claim (and the RU reading must keep matching f_alpha on it).
"""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory.objectives.qalpha import hcvar, qalpha_dual, qalpha_loss, tau_alpha
from verify.claims.rcfl_objective import EQ_TOL, HCVAR_CONDITIONAL_COUNTEREXAMPLE, check_hcvar_conditional
from verify.core import REGISTRY, Context, relative_error


def test_stored_counterexample_still_violates_literal_def2():
    cx = HCVAR_CONDITIONAL_COUNTEREXAMPLE
    p, alpha, f = np.array(cx["p"]), cx["alpha"], np.array(cx["losses"])
    f_alpha, _ = qalpha_loss(f, p, alpha)
    conditional = hcvar(f, p, alpha, reading="conditional")
    assert f_alpha == pytest.approx(2 / 3, rel=1e-15)
    assert conditional == 1.0
    assert relative_error(conditional, f_alpha) > EQ_TOL  # the claim fails here
    # beta = 1 - 1/tau = 1/4 lies strictly inside the atom of mass 1/2 at f = 0: every quantile
    # convention (lower, upper, any point of the quantile interval) gives Q_beta = 0
    assert 1.0 - 1.0 / tau_alpha(p, alpha) == pytest.approx(0.25, rel=1e-15)
    # the RU reading and the Lemma 1 dual do hold on the same instance
    assert relative_error(hcvar(f, p, alpha, reading="ru"), f_alpha) <= EQ_TOL
    assert relative_error(qalpha_dual(f, p, alpha)[0], f_alpha) <= EQ_TOL


def test_n1_cannot_violate():
    # a single client: tau_alpha = 1, beta = 0, both readings give f_1
    assert hcvar([3.0], [1.0], 1.0, "conditional") == 3.0 == qalpha_loss([3.0], [1.0], 1.0)[0]


def test_claim_is_refuted_with_the_stored_counterexample():
    assert REGISTRY["rcfl.lemma1.hcvar_conditional"].expected == "refuted"
    out = check_hcvar_conditional(Context(quick=True, seed=0))
    assert out.status == "refuted"
    cx = out.counterexample
    assert cx["p"] == HCVAR_CONDITIONAL_COUNTEREXAMPLE["p"]
    assert cx["losses"] == HCVAR_CONDITIONAL_COUNTEREXAMPLE["losses"]
    assert cx["alpha"] == [HCVAR_CONDITIONAL_COUNTEREXAMPLE["alpha"]] * 2
    # natural units: measured = the literal conditional expectation 1, theory = f_alpha = 2/3
    assert cx["measured"] == 1.0
    assert cx["bound"] == pytest.approx(2 / 3, rel=1e-15)
    assert out.relation == "==" and out.error > out.tolerance == EQ_TOL


def test_instance_function_reproduces_the_counterexample():
    from fairtheory.instances.rcfl import lemma1_hcvar

    cx = HCVAR_CONDITIONAL_COUNTEREXAMPLE
    m, t, x = lemma1_hcvar(p=cx["p"], alpha=cx["alpha"], losses=cx["losses"], reading="conditional")
    assert (m, x["beta"]) == (1.0, 0.25)
    assert t == pytest.approx(2 / 3, rel=1e-15)
    m_ru, t_ru, _ = lemma1_hcvar(p=cx["p"], alpha=cx["alpha"], losses=cx["losses"], reading="ru")
    assert abs(m_ru - t_ru) <= EQ_TOL * max(1.0, abs(t_ru))
