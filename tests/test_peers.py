"""Peer audit: every recorded finding still reproduces while the peer is installed (skipped otherwise).

Each finding test feeds the peer its minimal counterexample from docs/peers.md and asserts the peer's
answer (or exception) and the exact one.  When a peer fixes a defect, its test fails: update the
claim's expectation and docs/peers.md then.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.claims.peers import compare, flgo, flower, sqwash, support
from verify.claims.peers import fedlab as fedlab_peer
from verify.core import REGISTRY, Context, run_claim
from verify.plugins import load_builtin


def needs(lib: str):
    return pytest.mark.skipif(support.peer_version(lib) is None, reason=f"{lib} not installed: {support.PEERS[lib].install}")


# ------------------------------------------------------------------ the claims: expected status, or skipped
CLAIMS = {"peers.sqwash.superquantile": "sqwash", "peers.sqwash.superquantile_smooth": "sqwash",
          "peers.flgo.fedfv": "flgo", "peers.flgo.qfedavg": "flgo", "peers.flgo.afl": "flgo",
          "peers.flgo.fedmgda": "flgo", "peers.flwr.qfedavg": "flwr", "peers.flwr.qfedavg_legacy": "flwr",
          "peers.fedlab.qfedavg": "fedlab"}


@pytest.fixture(scope="module")
def registry():
    assert not load_builtin()
    return REGISTRY


@pytest.mark.parametrize("claim_id", list(CLAIMS))
def test_claim_status(registry, claim_id):
    lib = CLAIMS[claim_id]
    r = run_claim(claim_id, Context(quick=True, seed=0))
    if support.peer_version(lib) is None:
        assert r.status == "skipped" and support.PEERS[lib].install in r.note
        return
    detail = r.details.get("traceback", "")
    assert r.status == r.expected, f"{claim_id}: {r.status} (expected {r.expected}): {r.note}\n{detail}"
    assert r.relation == "==" and r.tolerance is not None
    if r.expected == "refuted":
        assert r.counterexample


def test_missing_peer_is_skipped_with_install_command(registry, monkeypatch):
    monkeypatch.setattr(support, "peer_version", lambda lib: None)
    for claim_id, lib in CLAIMS.items():
        r = run_claim(claim_id, Context(quick=True, seed=0))
        assert r.status == "skipped" and r.as_expected
        assert support.PEERS[lib].install in r.note


# ------------------------------------------------------------------ SQwash
@needs("sqwash")
def test_sqwash_superquantile_interpolated_quantile():
    # theta n = 1.5: the superquantile is (1 + 0.5 * 0)/1.5 = 2/3; SQwash evaluates the Rockafellar-Uryasev
    # objective at torch.quantile's interpolated 0.25-quantile (0.25) and returns 0.75
    assert compare.superquantile([0.0, 1.0], 0.75) == pytest.approx(2 / 3, abs=1e-15)
    assert sqwash.sqwash_superquantile([0.0, 1.0], 0.75) == pytest.approx(0.75, abs=1e-7)
    assert sqwash.sqwash_superquantile([0.0, 2.0], 0.7) == pytest.approx(1.6, abs=1e-7)
    assert compare.superquantile([0.0, 2.0], 0.7) == pytest.approx(1 / 0.7, abs=1e-15)


@needs("sqwash")
def test_sqwash_tail_weight_in_float32():
    exact = compare.superquantile([1.0, 2.0, 3.0], 0.5)
    assert exact == pytest.approx(8 / 3, abs=1e-15)
    assert 1e-9 < abs(sqwash.sqwash_superquantile([1.0, 2.0, 3.0], 0.5) - exact) < 1e-6


@needs("sqwash")
def test_sqwash_smooth_crashes_at_theta_one():
    # theta = 1 is documented to give the mean; six equal losses raise instead
    assert compare.superquantile_smooth(np.zeros(6), 1.0, 1.0) == 0.0
    with pytest.raises(IndexError):
        sqwash.sqwash_superquantile_smooth(np.zeros(6), 1.0, 1.0)
    assert sqwash.sqwash_superquantile_smooth(np.zeros(5), 1.0, 1.0) == 0.0


# ------------------------------------------------------------------ FLGo
def _fedfv(U, losses, alpha, **kw):
    U = np.asarray(U, dtype=np.float64)
    m, d = U.shape
    args = {"tau": 0, "t": 1, "history": np.zeros((m, d)), "history_round": -np.ones(m, dtype=int),
            "clients": list(range(m)), **kw}
    with support.float64_torch():
        peer = flgo.prepare_flgo_fedfv(np.zeros(d), U, losses, alpha=alpha, **args)()
    return peer, compare.fedfv_direction(U, losses, alpha=alpha, **args)


@needs("flgo")
def test_flgo_fedfv_zero_update_gives_nan():
    peer, ours = _fedfv([[0.0]], [1.0], 0.1)
    assert np.isnan(peer).all() and ours.tolist() == [0.0]


@needs("flgo")
def test_flgo_fedfv_keeps_one_client_too_few_at_alpha_07():
    assert (1 - 0.7) * 10 > 3.0 and math.ceil((1 - 0.7) * 10) == 4
    case = flgo.KEEP_COUNT_CASE
    peer, ours = _fedfv(case["U"], case["losses"], case["alpha"])
    assert np.max(np.abs(peer - ours)) > 1e-2
    # FLGo's answer is the exact rule's with 7 kept clients (alpha = 0.6 keeps 11 - ceil(10 * 0.4) = 7)
    _, seven = _fedfv(case["U"], case["losses"], 0.6)
    assert np.max(np.abs(peer - seven)) <= 1e-12


@needs("flgo")
def test_flgo_fedfv_agrees_on_a_generic_round():
    rng = np.random.default_rng(0)
    U, losses = rng.normal(size=(5, 4)), rng.uniform(size=5)
    H, R = rng.normal(size=(7, 4)), np.array([1, 2, -1, 2, 1, -1, 2])
    peer, ours = _fedfv(U, losses, 0.3, tau=2, t=3, history=H, history_round=R, clients=[0, 2, 3, 5, 6])
    assert np.max(np.abs(peer - ours)) <= 1e-12 * np.max(np.abs(ours))


@needs("flgo")
def test_flgo_afl_huge_loss_divides_by_zero():
    args = dict(lam=[1.0], lr=0.1, lr_lam=0.01, t=1, w_avg=np.zeros(1))
    with support.float64_torch():
        with pytest.raises(ZeroDivisionError):
            flgo.prepare_flgo_afl(np.zeros(1), np.zeros((1, 1)), [1e18], **args)()
        w, lam, _ = flgo.prepare_flgo_afl(np.zeros(1), np.zeros((1, 1)), [1e17], **args)()
    assert lam.tolist() == [1.0]
    assert compare.afl_update(np.zeros(1), np.zeros((1, 1)), [1e18], [1.0], 0.1, 0.01, 1, np.zeros(1))[1].tolist() == [1.0]


@needs("flgo")
def test_flgo_qfedavg_and_fedmgda_agree():
    rng = np.random.default_rng(1)
    w, W, F = rng.normal(size=4), rng.normal(size=(3, 4)), rng.uniform(size=3)
    with support.float64_torch():
        new = flgo.prepare_flgo_qfedavg(w, W, F, q=2.0, lr=0.1)()
        U = rng.normal(size=(5, 4))
        sizes = np.array([3, 1, 4, 1, 5])
        mg = flgo.prepare_flgo_fedmgda(np.zeros(4), -U, sizes=sizes, epsilon=0.1)()
    assert np.max(np.abs(new - compare.qffl_update(w, W, F, 2.0, 0.1, 1e-8))) <= 1e-12
    _, v = compare.fedmgda_direction(U, sizes / sizes.sum(), 0.1, 1e-8)
    assert abs(float(mg @ mg) - v) <= 1e-6


# ------------------------------------------------------------------ Flower
TWO = {"w": np.zeros(1), "W": np.array([[-1.0], [0.0]]), "F": np.array([1.0, 0.0]), "q": 1.0, "lr": 1.0}


@needs("flwr")
def test_flwr_legacy_without_evaluate_fn_raises():
    with pytest.raises(NameError):
        flower.prepare_flwr_qfedavg_legacy(TWO["w"], TWO["W"], TWO["F"], q=1.0, lr=1.0, evaluate_loss=None)()


@needs("flwr")
def test_flwr_legacy_uses_one_loss_for_every_client():
    ours = compare.qffl_update(TWO["w"], TWO["W"], TWO["F"], 1.0, 1.0, 1e-10)
    assert ours.tolist() == pytest.approx([-0.5], abs=1e-9)
    peer = flower.prepare_flwr_qfedavg_legacy(TWO["w"], TWO["W"], TWO["F"], q=1.0, lr=1.0, evaluate_loss=0.5)()
    assert peer.tolist() == pytest.approx([-0.25], abs=1e-9)
    # = the q-FFL step with F_k replaced by the evaluate_fn's loss for every client
    same = compare.qffl_update(TWO["w"], TWO["W"], [0.5, 0.5], 1.0, 1.0, 1e-10)
    assert np.max(np.abs(peer - same)) <= 1e-15


@needs("flwr")
@pytest.mark.slow
def test_flwr_message_api_agrees():
    rng = np.random.default_rng(2)
    w, W, F = rng.normal(size=3), rng.normal(size=(4, 3)), rng.uniform(size=4)
    peer = flower.prepare_flwr_qfedavg(w, W, F, q=0.5, lr=0.05)()
    assert np.max(np.abs(peer - compare.qffl_update(w, W, F, 0.5, 0.05, 1e-10))) <= 1e-12


# ------------------------------------------------------------------ FedLab
ONE = {"w": np.array([0.5]), "data": [(np.array([[1.0], [2.0]]), np.array([1.0, -1.0]))]}


@needs("fedlab")
def test_fedlab_trainer_has_no_lr():
    with pytest.raises(AttributeError, match="lr"):
        fedlab_peer.prepare_fedlab_qfedavg(ONE["w"], ONE["data"], q=1.0, lr=0.1, set_lr=False)


@needs("fedlab")
def test_fedlab_loss_is_the_sum_of_last_epoch_minibatch_losses():
    w, (X, y) = ONE["w"], ONE["data"][0]
    with support.float64_torch():
        call, local = fedlab_peer.prepare_fedlab_qfedavg(w, ONE["data"], q=1.0, lr=0.1, batch_size=1)
        peer = call()
    ours, local_ref = compare.qffl_mse_round(w, ONE["data"], 1.0, 0.1, 1, 1)
    assert np.max(np.abs(local - local_ref)) <= 1e-15
    assert np.max(np.abs(peer - ours)) > 1e-2
    # FedLab's F: loss of batch 1 at w plus loss of batch 2 after one step (not the mean loss at w)
    w1 = w - 0.1 * 2 * X[0] * (X[0] @ w - y[0])
    F_fedlab = (X[0] @ w - y[0]) ** 2 + (X[1] @ w1 - y[1]) ** 2
    assert np.max(np.abs(peer - compare.qffl_update(w, local, [F_fedlab], 1.0, 0.1, 1e-10))) <= 1e-12


@needs("fedlab")
def test_fedlab_agrees_with_one_full_batch():
    with support.float64_torch():
        call, local = fedlab_peer.prepare_fedlab_qfedavg(ONE["w"], ONE["data"], q=2.0, lr=0.1)
        peer = call()
    ours, _ = compare.qffl_mse_round(ONE["w"], ONE["data"], 2.0, 0.1, 1, None)
    assert np.max(np.abs(peer - ours)) <= 1e-12
