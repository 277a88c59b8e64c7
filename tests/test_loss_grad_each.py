"""Fused per-client loss and gradient (``loss_grad_each``) of the sample-based problems: both
evaluation layouts (batched / flat), equal and unequal client sizes, client subsets, numpy vs torch,
against per-client loop references and against ``losses_each`` / ``grads_each``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from fairtheory.problems import LeastSquaresProblem, LogisticProblem
from fairtheory.problems.base import FederatedProblem


def ref(P, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-client loop (test only)."""
    L, G = [], []
    for i in range(P.n):
        X = P.X[P.offsets[i]:P.offsets[i + 1]]
        y = P.y[P.offsets[i]:P.offsets[i + 1]]
        w = W[i]
        if isinstance(P, LogisticProblem):
            z = y * (X @ w)
            L.append(np.mean(np.logaddexp(0.0, -z)) + 0.5 * P.l2 * w @ w)
            G.append(X.T @ (-y * expit(-z)) / len(y) + P.l2 * w)
        else:
            r = X @ w - y
            L.append(0.5 * np.mean(r * r))
            G.append(X.T @ r / len(y))
    return np.array(L), np.array(G)


SIZES = {"equal": 9, "near": [9, 7, 9, 8, 6, 9], "skewed": [2, 3, 40, 2, 5, 2]}


def make(kind: str, sizes: str, l2: float = 0.0):
    rng = np.random.default_rng(11)
    m = np.broadcast_to(SIZES[sizes], (6,))
    offsets = np.concatenate([[0], np.cumsum(m)])
    X = rng.normal(size=(offsets[-1], 3)) + np.repeat(rng.normal(size=(6, 3)), m, axis=0)
    if kind == "logistic":
        return LogisticProblem(X, np.where(rng.uniform(size=offsets[-1]) < 0.5, -1.0, 1.0), offsets, l2=l2)
    return LeastSquaresProblem(X, rng.normal(size=offsets[-1]), offsets)


CASES = [(k, s, l2) for k in ("logistic", "ls") for s in SIZES for l2 in ((0.0, 0.4) if k == "logistic" else (0.0,))]


def test_default_layout_follows_padding_waste():
    assert make("logistic", "equal").layout == "batched"
    assert make("logistic", "near").layout == "batched"
    assert make("logistic", "skewed").layout == "flat"


@pytest.mark.parametrize("kind,sizes,l2", CASES)
@pytest.mark.parametrize("layout", ["batched", "flat"])
def test_matches_loop_and_separate_calls(kind, sizes, l2, layout):
    P = make(kind, sizes, l2)
    P.layout = layout
    rng = np.random.default_rng(0)
    W = 3.0 * rng.normal(size=(P.n, P.d))  # large margins: both branches of the stable formulas
    L, G = ref(P, W)
    f, g = P.loss_grad_each(W)
    scale = max(1.0, np.abs(L).max(), np.abs(G).max())
    assert f.shape == (P.n,) and g.shape == (P.n, P.d)
    assert np.max(np.abs(f - L)) <= 1e-12 * scale
    assert np.max(np.abs(g - G)) <= 1e-12 * scale
    assert np.array_equal(f, P.losses_each(W))
    assert np.array_equal(g, P.grads_each(W))
    # a broadcast (read-only, stride-0) model array works too
    w = W[0]
    fb, gb = P.loss_grad_each(np.broadcast_to(w, (P.n, P.d)))
    Lb, Gb = ref(P, np.tile(w, (P.n, 1)))
    assert np.max(np.abs(fb - Lb)) <= 1e-12 * scale and np.max(np.abs(gb - Gb)) <= 1e-12 * scale


@pytest.mark.parametrize("kind,sizes,l2", CASES)
def test_layouts_agree_and_subsets(kind, sizes, l2):
    P = make(kind, sizes, l2)
    rng = np.random.default_rng(1)
    W = rng.normal(size=(P.n, P.d))
    idx = np.array([5, 0, 5, 2])
    out = {}
    for layout in ("batched", "flat"):
        P.layout = layout
        f, g = P.loss_grad_each(W)
        fs, gs = P.loss_grad_each(W[idx], clients=idx)
        assert np.max(np.abs(fs - f[idx])) <= 1e-15 * max(1.0, np.abs(f).max())
        assert np.max(np.abs(gs - g[idx])) <= 1e-15 * max(1.0, np.abs(g).max())
        out[layout] = (f, g)
    for a, b in zip(out["batched"], out["flat"], strict=True):
        assert np.max(np.abs(a - b)) <= 1e-13 * max(1.0, np.abs(b).max())


def test_extreme_margins_stay_finite():
    X = np.array([[1.0], [-1.0], [2.0], [0.5]])
    P = LogisticProblem(X, np.array([1.0, 1.0, -1.0, 1.0]), [0, 2, 4])
    W = np.array([[800.0], [-800.0]])
    f, g = P.loss_grad_each(W)
    assert np.all(np.isfinite(f)) and np.all(np.isfinite(g))
    L, G = ref(P, W)
    assert np.max(np.abs(f - L)) <= 1e-12 * np.abs(L).max()
    assert np.max(np.abs(g - G)) <= 1e-12 * np.abs(G).max()


@pytest.mark.parametrize("kind,sizes,l2", CASES)
def test_numpy_torch_agree(kind, sizes, l2, xp_name, to_backend):
    from fairtheory.backend import to_numpy

    P = make(kind, sizes, l2)
    rng = np.random.default_rng(2)
    W = 2.0 * rng.normal(size=(P.n, P.d))
    idx = np.array([1, 1, 4])
    for layout in ("batched", "flat"):
        P.layout = layout
        for args, kw in (((W,), {}), ((W[idx],), {"clients": idx}), ((300.0 * W,), {})):
            want = P.loss_grad_each(*args, **kw)
            got = P.loss_grad_each(to_backend(args[0]), **kw)
            for a, b in zip(got, want, strict=True):
                assert type(a).__module__.split(".")[0] == ("torch" if xp_name == "torch" else "numpy")
                assert np.max(np.abs(to_numpy(a) - b)) <= 1e-12 * max(1.0, np.abs(b).max())


def test_base_default_calls_separate_methods():
    from fairtheory.problems import random_quadratic

    Q = random_quadratic(4, 3, rng=np.random.default_rng(0))
    assert isinstance(Q, FederatedProblem)
    W = np.random.default_rng(1).normal(size=(4, 3))
    f, g = Q.loss_grad_each(W)
    assert np.array_equal(f, Q.losses_each(W)) and np.array_equal(g, Q.grads_each(W))


def test_validation():
    from fairtheory._validation import FairtheoryValueError

    P = make("logistic", "equal")
    with pytest.raises(FairtheoryValueError, match="W must have shape"):
        P.loss_grad_each(np.zeros((P.n + 1, P.d)))
    with pytest.raises(FairtheoryValueError, match="clients must lie"):
        P.loss_grad_each(np.zeros((1, P.d)), clients=np.array([P.n]))
    P.layout = "dense"
    with pytest.raises(FairtheoryValueError, match="layout must be"):
        P.loss_grad_each(np.zeros((P.n, P.d)))


def test_padded_rows_do_not_leak():
    """A padded client equals the same client stored alone (no contribution from padding rows)."""
    P = make("logistic", "near")
    assert P.layout == "batched"
    W = np.random.default_rng(3).normal(size=(P.n, P.d))
    f, g = P.loss_grad_each(W)
    i = 4  # smallest client (6 rows, padded to 9)
    a, b = P.offsets[i], P.offsets[i + 1]
    alone = LogisticProblem(P.X[a:b], P.y[a:b], [0, b - a])
    fa, ga = alone.loss_grad_each(W[i:i + 1])
    assert abs(f[i] - fa[0]) <= 1e-15 * max(1.0, abs(fa[0]))
    assert np.max(np.abs(g[i] - ga[0])) <= 1e-15 * max(1.0, np.abs(ga).max())
    assert isinstance(P, LogisticProblem) and not isinstance(P, LeastSquaresProblem)


@pytest.mark.parametrize("kind,sizes,l2", CASES)
def test_broadcast_model_takes_single_product(kind, sizes, l2, xp_name, to_backend):
    """A stride-0 ``W`` (one model for all clients, as after a broadcast) is evaluated with one product
    of the stacked rows; the values match those at a contiguous copy of the same rows."""
    from fairtheory.backend import namespace, to_numpy
    from fairtheory.problems.logistic import _is_broadcast_rows

    P = make(kind, sizes, l2)
    w = to_backend(2.0 * np.random.default_rng(5).normal(size=P.d))
    xp = namespace(w)
    idx = np.array([1, 1, 4])
    for layout in ("batched", "flat"):
        P.layout = layout
        for k, kw in ((P.n, {}), (idx.size, {"clients": idx})):
            Wb = xp.broadcast_to(w[None, :], (k, P.d))
            Wc = xp.asarray(Wb, copy=True)
            assert _is_broadcast_rows(Wb) and not _is_broadcast_rows(Wc)
            for a, b in zip(P.loss_grad_each(Wb, **kw), P.loss_grad_each(Wc, **kw), strict=True):
                a, b = to_numpy(a), to_numpy(b)
                assert np.max(np.abs(a - b)) <= 1e-14 * max(1.0, np.abs(b).max())
