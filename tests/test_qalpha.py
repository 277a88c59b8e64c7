"""Exact (hand-computed) values, validation and backends for fairtheory.objectives.qalpha."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.objectives.qalpha import (
    F_alpha,
    F_mu,
    F_mu_grad,
    client_weights_mu,
    deviation,
    hcvar,
    qalpha_dual,
    qalpha_loss,
    sigmoid,
    softplus,
    tau_alpha,
)

P2 = np.array([0.5, 0.5])
F2 = np.array([0.0, 1.0])


# --------------------------------------------------------------------------- hand-computed values
def test_two_client_example_by_hand():
    # caps p/alpha = 2/3 each: greedy gives 2/3 * 1 + 1/3 * 0
    v, w = qalpha_loss(F2, P2, 0.75)
    assert v == pytest.approx(2 / 3, rel=1e-15)
    assert np.allclose(w, [1 / 3, 2 / 3], rtol=0, atol=1e-15)
    assert tau_alpha(P2, 0.75) == pytest.approx(4 / 3, rel=1e-15)
    dv, eta = qalpha_dual(F2, P2, 0.75)
    assert dv == pytest.approx(2 / 3, rel=1e-15)
    assert eta == 0.0
    assert hcvar(F2, P2, 0.75, "ru") == pytest.approx(2 / 3, rel=1e-15)
    assert hcvar(F2, P2, 0.75, "conditional") == 1.0  # the literal reading drops part of the atom at 0
    # pi = (1/2, 1/2): E_pi f = 1/2, D = 2/3 - 1/2
    assert deviation(F2, P2, 0.75, "000") == pytest.approx(1 / 6, rel=1e-14)
    assert deviation(F2, P2, 0.75, "002") == pytest.approx(1 / 6, rel=1e-14)


def test_three_client_example_flat_dual():
    p = np.array([0.2, 0.3, 0.5])
    a = np.array([0.4, 0.6, 1.0])  # caps 0.5 each, tau = 1.5
    f = np.array([3.0, 1.0, 2.0])
    v, w = qalpha_loss(f, p, a)
    assert v == pytest.approx(2.5, rel=1e-15)
    assert np.allclose(w, [0.5, 0.0, 0.5], atol=1e-15)
    dv, eta = qalpha_dual(f, p, a)
    # g(eta) = eta + 0.5 sum (f - eta)_+ is flat on [1, 2]; the smallest minimising breakpoint is 1
    assert dv == pytest.approx(2.5, rel=1e-15)
    assert eta == 1.0
    assert tau_alpha(p, a) == pytest.approx(1.5, rel=1e-15)
    assert hcvar(f, p, a) == pytest.approx(2.5, rel=1e-15)


def test_limits_by_hand():
    p = np.array([0.25, 0.75])
    f = np.array([4.0, 2.0])
    assert qalpha_loss(f, p, 1.0)[0] == pytest.approx(2.5, rel=1e-15)
    assert qalpha_loss(f, p, p)[0] == 4.0
    assert tau_alpha(p, p) == 2.0
    assert tau_alpha(p, 1.0) == 1.0
    # alpha = 1: beta = 0, every reading is the mean
    assert hcvar(f, p, 1.0, "conditional") == pytest.approx(2.5, rel=1e-15)
    assert hcvar(f, p, 1.0, "ru") == pytest.approx(2.5, rel=1e-15)


def test_conditional_empty_tail_returns_quantile():
    # alpha = p: beta = 1 - 1/2, pi = (1/2, 1/2); with f = (5, 5) nothing lies above Q = 5
    p = np.array([0.5, 0.5])
    assert hcvar(np.array([5.0, 5.0]), p, p, "conditional") == 5.0
    assert hcvar(np.array([1.0, 5.0]), p, p, "conditional") == 5.0


def test_joint_objectives_by_hand():
    p = np.array([0.5, 0.5])
    a = np.array([0.5, 1.0])
    f = np.array([2.0, 0.0])
    assert F_alpha(f, 1.0, p, a) == pytest.approx(2.0, rel=1e-15)
    sp1, spm1 = math.log1p(math.e), math.log1p(math.exp(-1.0))
    expect = 0.5 * (2 * sp1 + 1) + 0.5 * (spm1 + 1)
    assert F_mu(f, 1.0, p, a, 1.0) == pytest.approx(expect, rel=1e-14)
    g_f, g_eta = F_mu_grad(f, 1.0, p, a, 1.0)
    s1, sm1 = 1 / (1 + math.exp(-1)), 1 / (1 + math.e)
    assert np.allclose(g_f, [s1, 0.5 * sm1], rtol=1e-14, atol=0)
    assert g_eta == pytest.approx(0.5 * (1 - 2 * s1) + 0.5 * (1 - sm1), rel=1e-13)
    w = client_weights_mu(f, 1.0, a, 1.0)
    assert np.allclose(w, [2 * s1, sm1], rtol=1e-14, atol=0)


def test_softplus_sigmoid_values_and_extremes():
    assert softplus(0.0, 2.0) == pytest.approx(2 * math.log(2), rel=1e-15)
    assert softplus(3.0, 1.0) == pytest.approx(math.log1p(math.exp(3.0)), rel=1e-15)
    x = np.array([1e300, -1e300, 0.0, 5e-324, -5e-324])
    for mu in (1e-300, 1e-10, 1.0, 1e10, 1e300):
        out = softplus(x, mu)
        assert np.all(np.isfinite(out))
        if mu <= 1e10:
            assert out[0] == 1e300  # x/mu >= 1e290: the log term underflows to 0
        else:
            assert out[0] == pytest.approx(mu * math.log1p(math.exp(1e300 / mu)), rel=1e-14)
        assert out[1] >= 0.0
        assert out[2] == pytest.approx(mu * math.log(2), rel=1e-15)
    s = sigmoid(np.array([-1e300, -800.0, 0.0, 800.0, 1e300]))
    assert np.array_equal(s[[0, 2, 4]], [0.0, 0.5, 1.0])
    assert 0.0 <= s[1] < 1e-300 and s[3] == 1.0
    assert softplus(np.array([-np.inf, np.inf]), 1.0).tolist() == [0.0, np.inf]
    assert softplus(np.array([1, 2]), 1.0).dtype == np.float64  # integers are promoted


def test_softplus_float32_stays_float32():
    out = softplus(np.array([0.0, 100.0], dtype=np.float32), 0.1)
    assert out.dtype == np.float32
    assert np.all(np.isfinite(out))


# --------------------------------------------------------------------------- backends
def test_softplus_sigmoid_backends(xp_name, to_backend):
    rng = np.random.default_rng(0)
    x_np = np.concatenate([rng.normal(0, 30, 50), [0.0, 1e300, -1e300, 1e-300]])
    mu = 0.37
    x = to_backend(x_np)
    sp, sg = softplus(x, mu), sigmoid(x / mu)
    if xp_name == "torch":
        import torch

        assert isinstance(sp, torch.Tensor) and isinstance(sg, torch.Tensor)
        assert sp.dtype == torch.float64 and sg.dtype == torch.float64
        sp, sg = sp.numpy(), sg.numpy()
    ref_sp = np.maximum(x_np, 0) + mu * np.log1p(np.exp(-np.abs(x_np) / mu))
    assert np.allclose(sp, ref_sp, rtol=1e-14, atol=0)
    assert np.allclose(sg, softplus_derivative_reference(x_np / mu), rtol=1e-14, atol=1e-300)
    assert np.all(np.isfinite(sp)) and np.all((sg >= 0) & (sg <= 1))


def softplus_derivative_reference(z):
    from scipy.special import expit

    return expit(z)


def test_client_weights_mu_backends(xp_name, to_backend):
    f_np = np.array([0.0, 0.5, 2.0, 1e6])
    a = np.array([0.5, 1.0, 0.25, 0.8])
    eta, mu = 0.5, 0.1
    w = client_weights_mu(to_backend(f_np), eta, a, mu)
    if xp_name == "torch":
        import torch

        assert isinstance(w, torch.Tensor) and w.dtype == torch.float64
        w = w.numpy()
    from scipy.special import expit

    assert np.allclose(w, expit((f_np - eta) / mu) / a, rtol=1e-14, atol=0)


def test_torch_autograd_matches_sigmoid():
    torch = pytest.importorskip("torch")
    x = torch.linspace(-5, 5, 41, dtype=torch.float64, requires_grad=True)
    mu = 0.7
    softplus(x, mu).sum().backward()
    assert torch.allclose(x.grad, sigmoid(x.detach() / mu), rtol=1e-12, atol=1e-15)


def test_torch_eta_tensor_accepted():
    torch = pytest.importorskip("torch")
    f = torch.tensor([0.0, 1.0], dtype=torch.float64)
    w = client_weights_mu(f, torch.tensor(0.5, dtype=torch.float64), 0.5, 1.0)
    assert torch.allclose(w, 2 * torch.sigmoid(f - 0.5), rtol=1e-14, atol=0)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize("fn", [qalpha_loss, qalpha_dual, hcvar, deviation])
@pytest.mark.parametrize(
    "losses,p,alpha,match",
    [
        ([0.0, 1.0], [0.5, 0.6], 0.75, "sum to 1"),
        ([0.0, 1.0], [1.5, -0.5], 1.0, ">= 0"),
        ([0.0, 1.0], [0.5, 0.5], 0.4, r"alpha\[0\] must lie in \[p\[0\], 1\]"),
        ([0.0, 1.0], [0.5, 0.5], 1.2, r"alpha\[0\]"),
        ([0.0, 1.0], [1.0, 0.0], [1.0, 0.0], r"alpha\[1\].*> 0"),
        ([0.0, 1.0], [0.5, 0.5], [0.5, 0.5, 0.5], "same shape as p"),
        ([0.0, 1.0, 2.0], [0.5, 0.5], 0.75, "losses must have the same shape"),
        ([0.0, np.nan], [0.5, 0.5], 0.75, "losses must be finite"),
        ([0.0, np.inf], [0.5, 0.5], 0.75, "losses must be finite"),
        ([], [], 1.0, "non-empty"),
        ([0.0, 1.0], [0.5, 0.5], np.nan, "alpha must be finite"),
    ],
)
def test_validation_errors(fn, losses, p, alpha, match):
    with pytest.raises(FairtheoryValueError, match=match):
        fn(losses, p, alpha)


def test_validation_other_arguments():
    with pytest.raises(FairtheoryValueError, match="reading"):
        hcvar(F2, P2, 0.75, reading="literal")
    with pytest.raises(FairtheoryValueError, match="version"):
        deviation(F2, P2, 0.75, version="001")
    for bad_mu in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(FairtheoryValueError, match="mu"):
            softplus(1.0, bad_mu)
        with pytest.raises(FairtheoryValueError, match="mu"):
            F_mu(F2, 0.0, P2, 0.75, bad_mu)
        with pytest.raises(FairtheoryValueError, match="mu"):
            client_weights_mu(F2, 0.0, 0.75, bad_mu)
    with pytest.raises(FairtheoryTypeError, match="mu"):
        F_mu_grad(F2, 0.0, P2, 0.75, [1.0])
    for bad_eta in (np.nan, np.inf):
        with pytest.raises(FairtheoryValueError, match="eta"):
            F_alpha(F2, bad_eta, P2, 0.75)
        with pytest.raises(FairtheoryValueError, match="eta"):
            client_weights_mu(F2, bad_eta, 0.75, 1.0)
    with pytest.raises(FairtheoryTypeError, match="eta"):
        F_mu(F2, [0.0, 1.0], P2, 0.75, 1.0)
    with pytest.raises(FairtheoryValueError, match="nan"):
        softplus(np.array([0.0, np.nan]), 1.0)
    with pytest.raises(FairtheoryTypeError, match="x"):
        sigmoid("abc")
    with pytest.raises(FairtheoryTypeError, match="real"):
        softplus(np.array([1 + 1j]), 1.0)
    with pytest.raises(FairtheoryValueError, match="alpha must lie in"):
        client_weights_mu(F2, 0.0, [0.5, 1.5], 1.0)
    with pytest.raises(FairtheoryValueError, match="alpha must be a scalar or have shape"):
        client_weights_mu(F2, 0.0, [0.5, 0.5, 0.5], 1.0)
    with pytest.raises(FairtheoryValueError, match="non-empty 1-D"):
        client_weights_mu(np.zeros((2, 2)), 0.0, 0.5, 1.0)
    with pytest.raises(FairtheoryValueError, match="finite"):
        client_weights_mu(np.array([0.0, np.inf]), 0.0, 0.5, 1.0)
    with pytest.raises(FairtheoryValueError, match="alpha"):
        tau_alpha(P2, 0.2)


def test_torch_nan_rejected():
    torch = pytest.importorskip("torch")
    with pytest.raises(FairtheoryValueError, match="nan"):
        softplus(torch.tensor([0.0, float("nan")]), 1.0)
    with pytest.raises(FairtheoryTypeError, match="real floating"):
        sigmoid(torch.tensor([1 + 1j]))


def test_alpha_equal_p_with_subnormal_weight():
    p = np.array([1.0, 5e-324])
    assert tau_alpha(p, p) == 2.0
    assert qalpha_loss(np.array([0.0, 1.0]), p, p)[0] == 1.0
