r"""Synthetic(alpha, beta) federated data of 003 App. E.1 (the FedProx recipe; default Synthetic(1, 1)).

Per device ``k``: ``u_k ~ N(0, alpha^2)``, ``W_k`` (d_in x C) and ``b_k`` (C) entries ``~ N(u_k, 1)``;
``B_k ~ N(0, beta^2)``, ``v_k`` entries ``~ N(B_k, 1)``; ``x ~ N(v_k, Sigma)`` with diagonal
``Sigma_jj = j^{-1.2}`` (``j = 1..d_in``); label ``y = argmax softmax(W_k^T x + b_k)``.
Defaults: 100 devices, ``d_in = 60``, ``C = 10`` (003 App. E.1).

Device sizes "follow a power law" (003 App. E.1): we draw ``m_k = floor(s (1 + Pareto(3)))``
(a Pareto law with exponent 3 and minimum ``s``); ``s = 85`` gives mean ``~127`` and standard
deviation ``~73`` samples per device, the statistics 003 Table 3 reports for this data set.
(The FedProx script uses ``lognormal(4, 2) + 50``, whose mean is ~450; we match the paper's table.)
Each device's samples are shuffled and split 80/10/10 into train/validation/test (003 App. E.2.3).
Everything is drawn from the explicit generator ``rng``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer, check_rng
from fairtheory.problems.base import as_data_array
from fairtheory.problems.multinomial import MultinomialProblem

__all__ = ["SyntheticSplit", "synthetic_qffl", "power_law_sizes"]


@dataclass(frozen=True)
class SyntheticSplit:
    """Train/validation/test problems over the same devices, plus the generating parameters."""

    train: MultinomialProblem
    val: MultinomialProblem
    test: MultinomialProblem
    sizes: np.ndarray
    W_true: np.ndarray  # (n, d_in, C)
    b_true: np.ndarray  # (n, C)


def power_law_sizes(n: int, *, rng: np.random.Generator, scale: float = 85.0,
                    exponent: float = 3.0) -> np.ndarray:
    """``floor(scale * (1 + Pareto(exponent)))``: power-law device sizes (minimum ``scale``)."""
    n = check_integer(n, "n", low=1)
    rng = check_rng(rng)
    scale = check_in_range(scale, "scale", low=10.0)
    exponent = check_in_range(exponent, "exponent", low=0.0, low_inclusive=False)
    return np.floor(scale * (1.0 + rng.pareto(exponent, size=n))).astype(np.int64)


def synthetic_qffl(
    *, rng: np.random.Generator, n: int = 100, d_in: int = 60, n_classes: int = 10,
    alpha: float = 1.0, beta: float = 1.0, sizes: Any = None, size_scale: float = 85.0,
    split: tuple[float, float, float] = (0.8, 0.1, 0.1), l2: float = 0.0,
) -> SyntheticSplit:
    """Generate Synthetic(alpha, beta) (003 App. E.1) as train/val/test :class:`MultinomialProblem`.

    Parameters
    ----------
    rng : numpy Generator (required; all randomness comes from it).
    n, d_in, n_classes : devices, features, classes (defaults 100, 60, 10).
    alpha, beta : heterogeneity of the models and of the features (Synthetic(1, 1) by default).
    sizes : optional (n,) integer device sizes ``>= 10``; default :func:`power_law_sizes` with
        ``size_scale``.
    split : train/validation/test fractions (sum 1); every device keeps >= 1 sample in each part.
    l2 : ridge added to every client loss (0 in the paper).
    """
    rng = check_rng(rng)
    n = check_integer(n, "n", low=1)
    d_in = check_integer(d_in, "d_in", low=1)
    C = check_integer(n_classes, "n_classes", low=2)
    alpha = check_in_range(alpha, "alpha", low=0.0)
    beta = check_in_range(beta, "beta", low=0.0)
    fr = as_data_array(split, "split", allow_empty=True)
    if fr.shape != (3,) or np.any(fr <= 0) or abs(fr.sum() - 1) > 1e-9:
        raise FairtheoryValueError(f"split must be three positive fractions summing to 1, got {split!r}")
    if sizes is None:
        m = power_law_sizes(n, rng=rng, scale=size_scale)
    else:
        m = as_data_array(sizes, "sizes", allow_empty=True)
        if m.shape != (n,) or not np.all(np.equal(np.mod(m, 1), 0)) or m.min() < 10:
            raise FairtheoryValueError(f"sizes must be ({n},) integers >= 10, got {sizes!r}")
        m = m.astype(np.int64)
    u = rng.normal(0.0, alpha, size=n)
    W = rng.normal(u[:, None, None], 1.0, size=(n, d_in, C))
    b = rng.normal(u[:, None], 1.0, size=(n, C))
    B = rng.normal(0.0, beta, size=n)
    v = rng.normal(B[:, None], 1.0, size=(n, d_in))
    sd = np.arange(1, d_in + 1, dtype=np.float64) ** (-0.6)  # sqrt(j^-1.2)
    client = np.repeat(np.arange(n), m)
    X = v[client] + rng.normal(size=(client.size, d_in)) * sd
    logits = np.einsum("ni,nic->nc", X, W[client]) + b[client]
    y = np.argmax(logits, axis=1)
    # per-device shuffle and 80/10/10 split, vectorised through a random sort key within devices
    key = rng.random(client.size)
    order = np.lexsort((key, client))
    X, y = X[order], y[order]
    offsets = np.concatenate([[0], np.cumsum(m)])
    n_tr = np.maximum(np.floor(fr[0] * m).astype(np.int64), 1)
    n_va = np.maximum(np.floor(fr[1] * m).astype(np.int64), 1)
    n_te = m - n_tr - n_va
    if np.any(n_te < 1):
        raise FairtheoryValueError("every device needs >= 1 test sample; increase sizes")
    pos = np.arange(client.size) - offsets[client]
    part = np.where(pos < n_tr[client], 0, np.where(pos < (n_tr + n_va)[client], 1, 2))
    probs = []
    for j, cnt in enumerate((n_tr, n_va, n_te)):
        sel = part == j
        off = np.concatenate([[0], np.cumsum(cnt)])
        probs.append(MultinomialProblem(X[sel], y[sel], off, C, l2=l2))
    return SyntheticSplit(probs[0], probs[1], probs[2], m, W, b)
