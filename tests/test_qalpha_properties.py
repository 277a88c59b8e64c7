"""Hypothesis properties for every RC-FL objective claim (002 Def. 1-2, Lemmas 1-2, Prop. 1), drawn with
fairtheory.testing.

Equalities use 1e-8 relative (relative_error: absolute below 1), inequalities a rounding slack relative
to the magnitudes involved.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fairtheory.instances.rcfl import ru_cvar_reference
from fairtheory.objectives.qalpha import (
    F_alpha,
    F_mu,
    F_mu_grad,
    client_weights_mu,
    deviation,
    hcvar,
    hcvar_level,
    qalpha_dual,
    qalpha_loss,
    sigmoid,
    softplus,
    tau_alpha,
)
from fairtheory.sets import CappedSimplex
from fairtheory.testing import (
    check_between_mean_and_max,
    check_convex_in_losses,
    check_monotone,
    check_positively_homogeneous,
    check_translation_equivariant,
    loss_vectors,
    qalpha_instances,
)

EQ = 1e-8
RND = 1e-12


def relative_error(a: float, b: float) -> float:
    """``|a - b| / max(1, |b|)``: relative for large values, absolute near zero (the measure of the claims' equalities)."""
    return abs(float(a) - float(b)) / max(1.0, abs(float(b)))


def _scale(*xs):
    return max([1.0] + [float(np.max(np.abs(np.asarray(x)))) for x in xs])


@given(qalpha_instances())
def test_weights_feasible_and_value(inst):
    p, a, f = inst
    v, w = qalpha_loss(f, p, a)
    S = CappedSimplex.qalpha(p, a)
    assert S.contains(w, tol=1e-12)
    assert relative_error(float(w @ f), v) <= EQ
    check_between_mean_and_max(lambda x: qalpha_loss(x, p, a)[0], f, p)


@given(qalpha_instances())
def test_limits(inst):
    p, _, f = inst
    assert relative_error(qalpha_loss(f, p, 1.0)[0], float(p @ f)) <= EQ
    a = np.where(p > 0, p, 1.0)
    assert qalpha_loss(f, p, a)[0] == f[p > 0].max()
    assert abs(tau_alpha(p, 1.0) - 1.0) <= 1e-12
    assert abs(tau_alpha(p, a) - (p > 0).sum()) <= 1e-12 * p.size


@given(qalpha_instances(scalar_alpha=True), st.floats(0.0, 1.0))
def test_more_conservatism_never_lowers_f_alpha(inst, s):
    p, a, f = inst
    a2 = float(p.max()) + s * (a - float(p.max()))  # a2 <= a: larger caps
    assert qalpha_loss(f, p, a2)[0] >= qalpha_loss(f, p, a)[0] - RND * _scale(f)


@given(qalpha_instances())
def test_lemma1_dual(inst):
    p, a, f = inst
    vp, _ = qalpha_loss(f, p, a)
    vd, eta = qalpha_dual(f, p, a)
    assert relative_error(vd, vp) <= EQ
    assert f.min() <= eta <= f.max()
    c = p / a
    g_all = f + np.maximum(f[None, :] - f[:, None], 0.0) @ c  # g at every breakpoint
    assert (vd - g_all.min()) / max(1.0, abs(g_all.min())) <= EQ
    assert relative_error(F_alpha(f, eta, p, a), vd) <= EQ


@given(qalpha_instances(), st.floats(-2.0, 2.0))
def test_dual_objective_dominates(inst, shift):
    p, a, f = inst
    vd, _ = qalpha_dual(f, p, a)
    eta = float(f.min() + (shift + 1.0) * (f.max() - f.min() + 1.0))
    assert F_alpha(f, eta, p, a) >= vd - RND * _scale(f, eta) * tau_alpha(p, a)


@given(qalpha_instances())
def test_hcvar_ru_equals_f_alpha(inst):
    p, a, f = inst
    vp, _ = qalpha_loss(f, p, a)
    assert relative_error(hcvar(f, p, a, "ru"), vp) <= EQ
    pi, beta = hcvar_level(p, a)
    c = p / a
    assert np.allclose(pi, c / c.sum(), rtol=1e-15, atol=0) and abs(beta - (1.0 - 1.0 / c.sum())) <= 1e-15
    assert relative_error(ru_cvar_reference(f, pi, beta), vp) <= EQ


def test_hcvar_level_is_never_negative():
    """Regression (issue 34, found by the 1,000-example profile): p = (10, 1, 10)/21 and alpha = 1 give
    tau_alpha = 1 exactly, but its float sum is one ulp below 1 and 1 - 1/tau = -2.2e-16, which the RU
    reference refused.  hcvar_level's beta = sum p (1 - alpha)/alpha / tau is exactly 0 there."""
    p = np.array([10.0, 1.0, 10.0]) / 21.0
    assert 1.0 - 1.0 / float((p / 1.0).sum()) < 0.0  # the rounding this guards against still happens
    f = np.array([3.0, -1.0, 2.0])
    pi, beta = hcvar_level(p, 1.0)
    assert beta == 0.0 and np.array_equal(pi, p / p.sum())
    assert relative_error(ru_cvar_reference(f, pi, beta), float(p @ f)) <= EQ
    assert relative_error(hcvar(f, p, 1.0, "ru"), float(p @ f)) <= EQ
    pi, beta = hcvar_level(p, np.array([1.0, 0.5, 1.0]))  # tau = 22/21: beta = (1/21)/(22/21) = 1/22
    assert abs(beta - 1.0 / 22.0) <= 1e-16


@given(qalpha_instances())
def test_hcvar_conditional_is_never_below_f_alpha(inst):
    # the literal tail mean keeps only values above the quantile: it can only overshoot the RU value
    p, a, f = inst
    vp, _ = qalpha_loss(f, p, a)
    assert hcvar(f, p, a, "conditional") >= vp - 1e-9 * _scale(f)


@given(qalpha_instances(scalar_alpha=True))
def test_remark1_cvar(inst):
    p, chi, f = inst
    vp, _ = qalpha_loss(f, p, chi)
    assert relative_error(vp, ru_cvar_reference(f, p, 1.0 - chi)) <= EQ
    n = p.size
    u = np.full(n, 1.0 / n)
    chi_u = max(chi, 1.0 / n)
    assert relative_error(qalpha_loss(f, u, chi_u)[0], CappedSimplex.cvar(n, chi_u).support(f)) <= EQ


@given(qalpha_instances(), st.floats(1e-3, 1e6))
def test_remark2_eta_in_0_B(inst, B):
    p, a, f = inst
    fb = f / max(float(f.max()), 1e-300) * B if f.max() > 0 else f
    fb = np.clip(fb, 0.0, B)
    _, eta = qalpha_dual(fb, p, a)
    assert 0.0 <= eta <= B


@given(qalpha_instances())
def test_deviation(inst):
    p, a, f = inst
    d0, d2 = deviation(f, p, a, "000"), deviation(f, p, a, "002")
    assert relative_error(d0, d2) <= EQ
    assert min(d0, d2) >= -RND * _scale(f)
    c = p / a
    pi = c / c.sum()
    assert relative_error(float(pi @ f) + d2, qalpha_loss(f, p, a)[0]) <= EQ
    cf = np.full(p.size, f[0])
    assert abs(deviation(cf, p, a, "000")) <= RND * _scale(cf)
    assert abs(deviation(cf, p, a, "002")) <= RND * _scale(cf)


_mu = st.floats(1e-9, 1e9)
_x = st.floats(-1e300, 1e300, allow_nan=False)


@given(_x, _mu)
def test_prop1_softplus_sandwich(x, mu):
    gap = float(softplus(x, mu)) - max(x, 0.0)
    assert gap >= 0.0
    assert gap <= mu * math.log(2.0) * (1 + RND) + RND


@given(st.floats(-50.0, 50.0), _mu)
def test_softplus_smoothness(z, mu):
    x, h = z * mu, 1e-3 * mu
    sec = (float(softplus(x + h, mu)) - 2 * float(softplus(x, mu)) + float(softplus(x - h, mu))) / h**2
    assert sec * mu <= 0.25 * (1 + 1e-5) + 1e-6  # tight constant 1/(4 mu) (seed: 1/mu)
    s = float(sigmoid(z))
    assert s * (1 - s) <= 0.25


@given(st.floats(-30.0, 30.0), st.floats(1e-3, 1e3))
def test_softplus_derivative_is_sigmoid(z, mu):
    x, h = z * mu, 1e-5 * mu
    d = (float(softplus(x + h, mu)) - float(softplus(x - h, mu))) / (2 * h)
    assert abs(d - float(sigmoid(z))) <= 1e-6


@given(qalpha_instances(max_n=10), st.sampled_from([1e-6, 1e-3, 1.0, 1e3]), st.floats(-1.0, 2.0))
def test_lemma2_gap(inst, mu, s):
    p, a, f = inst
    eta = float(f.min() + s * (f.max() - f.min()))
    c = p / a
    x = f - eta
    gap = float(c @ (softplus(x, mu) - np.maximum(x, 0.0)))
    tau = tau_alpha(p, a)
    assert gap >= 0.0
    assert gap <= mu * tau * math.log(2.0) * (1 + RND)
    Fa, Fm = F_alpha(f, eta, p, a), F_mu(f, eta, p, a, mu)
    scale = max(1.0, abs(Fa), float(c @ np.abs(x)), abs(eta))
    assert abs((Fm - Fa) - gap) <= 1e-12 * scale * p.size


@given(qalpha_instances(max_n=10, scalar_alpha=False), st.floats(0.01, 10.0))
def test_lemma2_tight_at_constant_losses(inst, mu):
    p, a, f = inst
    cf = np.full(p.size, f[0])
    gap = F_mu(cf, f[0], p, a, mu) - F_alpha(cf, f[0], p, a)
    assert abs(gap - mu * tau_alpha(p, a) * math.log(2.0)) <= 1e-9 * max(1.0, abs(f[0])) * tau_alpha(p, a)


@given(qalpha_instances(max_n=8), st.floats(0.05, 5.0), st.floats(-1.0, 2.0))
def test_F_mu_grad_finite_differences(inst, mu, s):
    p, a, f = inst
    f = f / max(1.0, float(f.max())) * 10.0  # moderate scale for finite differences
    eta = float(f.min() + s * (f.max() - f.min()))
    g_f, g_eta = F_mu_grad(f, eta, p, a, mu)
    h = 1e-5 * mu
    d_eta = (F_mu(f, eta + h, p, a, mu) - F_mu(f, eta - h, p, a, mu)) / (2 * h)
    tau = tau_alpha(p, a)
    assert abs(d_eta - g_eta) <= 1e-5 * tau
    k = int(np.argmax(p))
    e = np.zeros_like(f)
    e[k] = h
    d_k = (F_mu(f + e, eta, p, a, mu) - F_mu(f - e, eta, p, a, mu)) / (2 * h)
    assert abs(d_k - g_f[k]) <= 1e-5 * tau
    w = client_weights_mu(f, eta, a, mu)
    assert np.allclose(p * w, g_f, rtol=1e-13, atol=1e-300)
    assert abs(g_eta - float(np.sum(p * (1.0 - w)))) <= 1e-12 * tau


@given(qalpha_instances(max_n=10), loss_vectors(n=10, max_value=1e3), st.floats(0.0, 1.0),
       st.floats(-1e3, 1e3), st.floats(0.0, 1e3))
def test_f_alpha_is_a_coherent_aggregator(inst, g_full, t, shift, scale):
    p, a, f = inst
    g = g_full[: p.size]

    def agg(x):
        return qalpha_loss(x, p, a)[0]

    check_monotone(agg, f, g)
    check_translation_equivariant(agg, f, shift)
    check_positively_homogeneous(agg, f, scale)
    check_convex_in_losses(agg, f, g, t)


@given(qalpha_instances(max_n=10))
def test_hcvar_ru_translation_equivariant(inst):
    p, a, f = inst
    f = f / max(1.0, float(f.max())) * 1e3
    c = 3.25
    assert relative_error(hcvar(f + c, p, a), hcvar(f, p, a) + c) <= EQ
