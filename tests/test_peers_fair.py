"""Peer audit of the fair methods (FedFa, Ditto, power-of-choice in FLGo and FedLab; SQwash's gradients, weights and
modules): each claim's status (or ``skipped`` with the install command), and every recorded finding reproduced on
its minimal input while the peer is installed.

When a peer fixes a defect its test fails: update the claim's expectation and docs/peers.md then."""

from __future__ import annotations

import numpy as np
import pytest

from verify.claims.peers import compare, fedlab, flgo, sqwash, support
from verify.core import REGISTRY, Context, run_claim
from verify.plugins import load_builtin


def needs(lib: str):
    return pytest.mark.skipif(support.peer_version(lib) is None, reason=f"{lib} not installed: {support.PEERS[lib].install}")


CLAIMS = {"peers.flgo.fedfa": "flgo", "peers.flgo.ditto": "flgo", "peers.flgo.powerofchoice": "flgo",
          "peers.fedlab.ditto": "fedlab", "peers.fedlab.powerofchoice": "fedlab",
          "peers.sqwash.superquantile_grad": "sqwash", "peers.sqwash.smooth_weights": "sqwash",
          "peers.sqwash.SuperquantileReducer": "sqwash", "peers.sqwash.SuperquantileSmoothReducer": "sqwash"}


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
    assert r.instances > 0 and r.tolerance is not None
    if r.expected == "refuted":
        assert r.counterexample


def test_missing_peer_is_skipped_with_install_command(registry, monkeypatch):
    monkeypatch.setattr(support, "peer_version", lambda lib: None)
    for claim_id, lib in CLAIMS.items():
        r = run_claim(claim_id, Context(quick=True, seed=0))
        assert r.status == "skipped" and r.as_expected
        assert support.PEERS[lib].install in r.note


def test_peers_family_covers_at_least_15_functions(registry):
    assert len([i for i in REGISTRY if i.startswith("peers.")]) >= 18


# ------------------------------------------------------------------ FLGo: FedFa
@needs("flgo")
def test_flgo_fedfa_nan_when_every_accuracy_is_zero():
    from fairtheory.algorithms.fedfa import weights

    with support.float64_torch(), np.errstate(all="ignore"):
        assert np.isnan(flgo.flgo_fedfa_weights([0.0], [1])).all()
        assert np.isnan(flgo.flgo_fedfa_weights([0.0, 0.0], [1, 3])).all()
        generic = flgo.flgo_fedfa_weights([0.2, 0.6], [1, 3])
    assert weights([0.0], [1]).tolist() == [1.0]
    assert weights([0.0, 0.0], [1, 3], eps_acc=flgo.FLGO_EPS[0], eps_freq=flgo.FLGO_EPS[1])[0] > 0
    ours = weights([0.2, 0.6], [1, 3], eps_acc=flgo.FLGO_EPS[0], eps_freq=flgo.FLGO_EPS[1])
    assert np.max(np.abs(generic - ours)) <= 1e-15
    # FLGo's constants move the weights off the paper's rule by ~1e-6
    assert 1e-7 < np.max(np.abs(generic - weights([0.2, 0.6], [1, 3]))) < 1e-5


# ------------------------------------------------------------------ FLGo: Ditto
@needs("flgo")
def test_flgo_ditto_checkpoint_cannot_be_loaded():
    with support.float64_torch(), pytest.raises(AttributeError, match="'c'"):
        flgo.flgo_ditto_checkpoint(np.array([0.5]))


@needs("flgo")
def test_flgo_ditto_solvers_agree_by_hand():
    # F(v) = 0.5 (v - 2)^2, lr = 0.5, mu = 1, one step from w = 0: global 1.0; personal v = 0 - 0.5 (-2 + 0) = 1.0;
    # second round from w = 4 (personal from 1): global 3.0; personal 1 - 0.5 ((1 - 2) + (1 - 4)) = 3.0
    with support.float64_torch():
        out = flgo.flgo_ditto_train(np.eye(1), np.array([2.0]), [np.zeros(1), np.array([4.0])], lr=0.5, mu=1.0, steps=1)
    assert [(float(g[0]), float(v[0])) for g, v in out] == [(1.0, 1.0), (3.0, 3.0)]


# ------------------------------------------------------------------ FLGo: power-of-choice
@needs("flgo")
def test_flgo_powerofchoice_selects_a_non_candidate():
    # two clients, d = 1, m = 1: the draw (seed 0) makes client 1 the only candidate; FLGo indexes the list of
    # available clients by the candidate's position and returns client 0, which was never a candidate
    asked, sel = flgo.flgo_powerofchoice_sample([0.0, 1.0], [1, 1], d=1, m=1, seed=0)
    assert asked == [1] and sel == [0]
    # with d = n (FLGo's default) the candidate set is every client and the selection is right
    asked, sel = flgo.flgo_powerofchoice_sample([0.3, 0.1, 0.7], [1, 2, 3], d=3, m=2, seed=0)
    assert sorted(asked) == [0, 1, 2] and sel == [2, 0]


@needs("flgo")
def test_flgo_powerofchoice_is_right_with_d_equal_n_only():
    from fairtheory.algorithms.power_of_choice import is_valid_selection

    rng = np.random.default_rng(5)
    wrong = {"d<n": 0, "d=n": 0}
    for _ in range(300):
        n = int(rng.integers(2, 9))
        d = int(rng.integers(1, n + 1))
        m = int(rng.integers(1, d + 1))
        losses = rng.uniform(size=n)
        asked, sel = flgo.flgo_powerofchoice_sample(losses, rng.integers(1, 20, size=n), d=d, m=m,
                                                 seed=int(rng.integers(2**31)))
        wrong["d<n" if d < n else "d=n"] += not is_valid_selection(sel, asked, losses[asked], m)
    assert wrong["d=n"] == 0 and wrong["d<n"] > 50


# ------------------------------------------------------------------ FedLab
@needs("fedlab")
def test_fedlab_ditto_does_not_run_as_shipped(monkeypatch):
    data, W = [(np.array([[1.0]]), np.array([1]))], np.zeros((1, 2))
    fd = support.fedlab_module("ditto")
    with support.float64_torch():
        with pytest.raises(TypeError, match="'module' object is not callable"):
            fedlab.fedlab_ditto_local_process(data, W, lr=0.1, epochs=1)
        monkeypatch.setattr(fd, "tqdm", lambda it: it)  # past the tqdm call: `args` was never set
        with pytest.raises(AttributeError, match="args"):
            fedlab.fedlab_ditto_local_process(data, W, lr=0.1, epochs=1)
        monkeypatch.setattr(fd.DittoSerialClientTrainer, "args", type("A", (), {"batch_size": None, "epochs": 1,
                                                                                 "lr": 0.1, "mu": 1.0}), raising=False)
        with pytest.raises(AttributeError, match="_train_alone"):  # then a method that does not exist
            fedlab.fedlab_ditto_local_process(data, W, lr=0.1, epochs=1)


@needs("fedlab")
def test_fedlab_ditto_train_agrees_with_args_set():
    from fairtheory.algorithms.ditto import personal_steps

    rng = np.random.default_rng(0)
    data = [(rng.normal(size=(3, 2)), np.array([0, 2, 1]))]
    W, V = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    with support.float64_torch():
        (g, v), = fedlab.fedlab_ditto_train(data, W, [V], lr=0.1, mu=0.5, epochs=2)
    Pm = fedlab.multinomial(data, 3)
    want = personal_steps(Pm, V.ravel()[None], W.ravel(), lr=0.1, lam=0.5, steps=2)[0]
    assert np.max(np.abs(v.ravel() - want)) <= 1e-15


@needs("fedlab")
def test_fedlab_powerofchoice_agrees():
    rng = np.random.default_rng(1)
    data = fedlab.softmax_clients(rng, 5, 2, 3)
    W = rng.normal(size=(2, 3))
    with support.float64_torch():
        cands, losses, sel = fedlab.fedlab_powerofchoice(data, W, d=3, m=2, seed=4)
    exact = fedlab.multinomial(data, 3).losses(W.ravel())
    assert np.max(np.abs(np.array(losses) - exact[cands])) <= 1e-15
    from fairtheory.algorithms.power_of_choice import select

    assert len(set(cands)) == 3 and sel == select(cands, losses, 2).tolist()


# ------------------------------------------------------------------ SQwash
@needs("sqwash")
def test_sqwash_gradient_is_not_a_subgradient_when_theta_n_is_fractional():
    # x = (0, 1), theta = 0.75: caps 1/(theta n) = 2/3, the unique maximiser is (1/3, 2/3); SQwash's gradient
    # (0.25, 0.75) exceeds the cap (it differentiates torch.quantile's interpolation)
    val, g = sqwash.sqwash_grad([0.0, 1.0], 0.75)
    assert g == pytest.approx([0.25, 0.75], abs=1e-7)
    assert g[1] > 2 / 3 + 0.08
    assert compare.exact_grad_error([0.0, 1.0], 0.75, g) > 0.08
    assert compare.exact_grad_error([0.0, 1.0], 0.75, [1 / 3, 2 / 3]) <= 1e-15
    # theta n integer and distinct values: the gradient is the maximiser (to SQwash's float32 tail weight)
    _, g2 = sqwash.sqwash_grad([3.0, 1.0, 2.0, 0.0], 0.5)
    assert np.max(np.abs(g2 - np.array([0.5, 0.0, 0.5, 0.0]))) <= 1e-7


@needs("sqwash")
def test_sqwash_modules_inherit_both_findings():
    val, g = sqwash.sqwash_module([0.0, 1.0], 0.75)
    assert val == pytest.approx(0.75, abs=1e-7) and compare.superquantile([0.0, 1.0], 0.75) == pytest.approx(2 / 3)
    assert compare.exact_grad_error([0.0, 1.0], 0.75, g) > 0.08
    with pytest.raises(IndexError):
        sqwash.sqwash_module(np.zeros(6), 1.0, 1.0)
    val5, g5 = sqwash.sqwash_module(np.zeros(5), 1.0, 1.0)
    assert val5 == 0.0 and np.max(np.abs(g5 - 0.2)) <= 1e-15


#: batch sizes n <= 64 for which SQwash's smoothed QP raises at theta = 1 (found by claim and doc check)
SMOOTH_FAILING_N = [6, 7, 23, 24, 28, 30, 35, 38, 39, 43, 54, 55]


@needs("sqwash")
def test_sqwash_smooth_failure_at_theta_one_depends_on_n_only():
    rng = np.random.default_rng(0)
    for n in (5, 6, 7, 8, 23, 25):
        for x in (np.zeros(n), rng.normal(size=n) * 100, np.round(rng.normal(size=n)), np.arange(n, dtype=float)):
            for nu in (0.01, 1.0, 10.0):
                if n in SMOOTH_FAILING_N:
                    with pytest.raises(IndexError):
                        sqwash.sqwash_smooth_weights(x, 1.0, nu)
                else:
                    q = sqwash.sqwash_smooth_weights(x, 1.0, nu)
                    assert np.max(np.abs(q - compare.smooth_weights(x, 1.0, nu))) <= 1e-12


@needs("sqwash")
def test_sqwash_smooth_failing_sizes_are_where_one_minus_n_copies_of_one_over_n_rounds_positive():
    import torch

    one = torch.tensor(1, dtype=torch.float64)
    predicted = [n for n in range(1, 65)
                 if float((1 - torch.full((2 * n, n), 1.0, dtype=torch.float64).mul(one / n).sum(axis=1))[0]) > 0]
    observed = []
    for n in range(1, 65):
        try:
            sqwash.sqwash_smooth_weights(np.arange(n, dtype=float), 1.0, 0.5)
        except IndexError:
            observed.append(n)
    assert predicted == observed == SMOOTH_FAILING_N


@needs("sqwash")
def test_sqwash_smooth_weights_agree_below_theta_one():
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(40):
        n = int(rng.integers(1, 20))
        x, th, nu = rng.normal(size=n), float(rng.uniform(0.05, 0.95)), float(rng.choice([0.1, 1.0, 10.0]))
        worst = max(worst, float(np.max(np.abs(sqwash.sqwash_smooth_weights(x, th, nu) - compare.smooth_weights(x, th, nu)))))
    assert worst <= 1e-12


# ------------------------------------------------------------------ docs/peers.md numbers for FedFV's and AFL's findings
def test_fedfv_keep_count_is_a_narrow_case():
    import math
    from fractions import Fraction

    from fairtheory.algorithms.fedfv_aggregate import n_unprojected

    def exact(m: int, a: float) -> int:  # FLGo's rule m - ceil((m-1)(1-alpha)) in rationals
        return m - math.ceil((m - 1) * (1 - Fraction(str(a))))

    grid = [(round(0.1 * k, 1), m) for k in range(1, 10) for m in range(1, 100)]
    # the audit's reference (fairtheory's keep_rule="reference") is the exact rule on the whole grid
    assert all(n_unprojected(m, a, "reference") == exact(m, a) for a, m in grid)
    diff = [(a, m) for a, m in grid if m - math.ceil((m - 1) * (1 - a)) != exact(m, a)]
    assert len(grid) == 891
    assert diff == [(0.7, m) for m in range(11, 100, 10)]
    assert all(m - math.ceil((m - 1) * (1 - a)) == exact(m, a) - 1 for a, m in diff)


@needs("flgo")
def test_flgo_afl_threshold_just_above_2_53():
    import flgo.algorithm.afl as fafl

    S = object.__new__(fafl.Server)

    def fails(u: float) -> bool:
        try:
            S.project([u])
            return False
        except ZeroDivisionError:
            return True

    x = 2.0 ** 53
    assert [fails(v) for v in (x - 1, x, x + 2, x + 4, x + 6, x + 8, 2.0 ** 54, 1e16)] == \
        [False, False, False, True, False, True, True, True]
