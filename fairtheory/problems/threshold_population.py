r"""A federated population of 1-D threshold classifiers whose true risks are known in closed form.

Used to check the generalisation bounds of RC-FL / FAFL (002 Thm. 3, Remark 3, Thm. G.1), which need
the *population* losses ``f_i(w)`` exactly.

Model (client ``i = 1..n``):

* features ``x ~ N(mu_i, s_i^2)``;
* clean label ``c_i(x) = +1`` if ``x > theta_i`` else ``-1``; the observed label ``y`` is ``c_i(x)``
  flipped independently with probability ``eta_i in [0, 1/2]`` (label noise);
* hypotheses ``h_w(x) = +1`` if ``x > w`` else ``-1`` for ``w`` on a finite sorted grid
  ``w_1 < ... < w_K`` (VC dimension ``d = 1``);
* 0-1 loss ``l(h, y) = 1[h != y]`` (bounded by ``B = 1``), or the ``{-1,+1}``-valued *signed* loss
  ``1 - 2 l = y h`` used by 002 Remark 3.

Exact risk (the classifier disagrees with the clean label exactly between ``w`` and ``theta_i``):

.. math:: f_i(w) = \eta_i + (1 - 2\eta_i)\,\bigl|\Phi((w-\mu_i)/s_i) - \Phi((\theta_i-\mu_i)/s_i)\bigr| .

Empirical sums for *all* thresholds at once: with ``k_j = #{k : w_k < x_j}`` (a ``searchsorted``),
``h_{w_k}(x_j) = +1`` iff ``k < k_j``, so a point with ``y_j = +1`` errs for ``k >= k_j`` and one with
``y_j = -1`` errs for ``k < k_j``.  Weighted sums ``sum_j c_j l(h_{w_k}(x_j), y_j)`` for every ``k`` are
two cumulative sums of per-bin weights (one ``bincount`` over all samples, groups and bins):
``O(R M + R G K)`` for ``R`` samples of ``M`` points in ``G`` groups, no Python loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_integer,
    check_probability_vector,
)

__all__ = ["ThresholdPopulation", "ThresholdSample", "default_population"]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class ThresholdSample:
    """``R`` independent federated samples, each the concatenation of the clients' samples.

    Attributes
    ----------
    x : ndarray, shape (R, M)
        Features; columns ``client == i`` belong to client ``i`` (``M = sum_i m_i``).
    y : ndarray, shape (R, M)
        Labels in ``{-1, +1}`` (float64).
    client : ndarray of int, shape (M,)
        Client index of each column (the same layout for every row).
    m : ndarray of int, shape (n,)
        Sample sizes ``m_i``.
    """

    x: Array
    y: Array
    client: NDArray[np.int64]
    m: NDArray[np.int64]

    @property
    def size(self) -> int:
        """Number ``R`` of independent samples (rows)."""
        return int(self.x.shape[0])


class ThresholdPopulation:
    r"""Threshold classifiers on Gaussian clients with label noise (module docstring).

    Parameters
    ----------
    mu, scale : array_like, shape (n,)
        Mean and standard deviation (``> 0``) of each client's feature distribution.
    theta : array_like, shape (n,)
        Each client's true threshold.
    noise : array_like, shape (n,)
        Label-flip probabilities ``eta_i in [0, 1/2]``.
    grid : array_like, shape (K,)
        Strictly increasing finite grid of hypothesis thresholds ``w``.
    p : array_like, shape (n,), optional
        Client weights (a probability vector); uniform by default.
    """

    def __init__(self, mu: Any, scale: Any, theta: Any, noise: Any, grid: Any, p: Any = None) -> None:
        self.mu = as_vector(mu, "mu")
        n = self.mu.size
        self.scale = self._client_vec(scale, "scale", n)
        self.theta = self._client_vec(theta, "theta", n)
        self.noise = self._client_vec(noise, "noise", n)
        if np.any(self.scale <= 0):
            bad = int(np.argmin(self.scale))
            raise FairtheoryValueError(f"scale must be > 0, got {self.scale[bad]} at index {bad}")
        if np.any((self.noise < 0) | (self.noise > 0.5)):
            bad = int(np.flatnonzero((self.noise < 0) | (self.noise > 0.5))[0])
            raise FairtheoryValueError(f"noise must lie in [0, 0.5], got {self.noise[bad]} at index {bad}")
        self.grid = as_vector(grid, "grid")
        if self.grid.size > 1 and np.any(np.diff(self.grid) <= 0):
            raise FairtheoryValueError("grid must be strictly increasing")
        self.n = n
        self.K = int(self.grid.size)
        self.p = np.full(n, 1.0 / n) if p is None else check_probability_vector(p, "p")
        if self.p.shape != (n,):
            raise FairtheoryValueError(f"p must have shape ({n},), got {self.p.shape}")
        #: VC dimension of the threshold class (and of its signed loss class)
        self.vc_dim = 1
        #: bound B on the 0-1 loss
        self.B = 1.0

    @staticmethod
    def _client_vec(v: Any, name: str, n: int) -> Array:
        arr = as_vector(v, name)
        if arr.shape != (n,):
            raise FairtheoryValueError(f"{name} must have shape ({n},) like mu, got {arr.shape}")
        return arr

    def __repr__(self) -> str:
        return f"ThresholdPopulation(n={self.n}, K={self.K})"

    # ------------------------------------------------------------------ exact risks
    def risks(self) -> Array:
        r"""Exact population 0-1 risks ``f_i(w_k)``, shape ``(n, K)`` (module docstring formula)."""
        cdf_w = ndtr((self.grid[None, :] - self.mu[:, None]) / self.scale[:, None])
        cdf_t = ndtr((self.theta - self.mu) / self.scale)[:, None]
        return self.noise[:, None] + (1.0 - 2.0 * self.noise[:, None]) * np.abs(cdf_w - cdf_t)

    # ------------------------------------------------------------------ sampling
    def _check_m(self, m: Any) -> NDArray[np.int64]:
        arr = np.asarray(m)
        if arr.shape != (self.n,) or not np.issubdtype(arr.dtype, np.integer):
            raise FairtheoryTypeError(f"m must be an integer array of shape ({self.n},), got {m!r}")
        if np.any(arr < 1):
            bad = int(np.argmin(arr))
            raise FairtheoryValueError(f"m must have entries >= 1, got {arr[bad]} at index {bad}")
        return arr.astype(np.int64)

    def sample(self, m: Any, rng: np.random.Generator, size: int = 1) -> ThresholdSample:
        """Draw ``size`` independent federated samples with ``m_i`` i.i.d. points from client ``i``."""
        if not isinstance(rng, np.random.Generator):
            raise FairtheoryTypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
        m_arr = self._check_m(m)
        size = check_integer(size, "size", low=1)
        client = np.repeat(np.arange(self.n), m_arr)
        M = client.size
        x = self.mu[client] + self.scale[client] * rng.standard_normal((size, M))
        clean = np.where(x > self.theta[client], 1.0, -1.0)
        flip = rng.random((size, M)) < self.noise[client]
        y = np.where(flip, -clean, clean)
        return ThresholdSample(x=x, y=y, client=client, m=m_arr)

    # ------------------------------------------------------------------ empirical sums
    def loss_sums(self, sample: ThresholdSample, weights: Any, groups: Any = None, n_groups: int = 1,
                  signed: bool = False) -> Array:
        r"""``sum_{j in group g} c_{rj} l(h_{w_k}(x_{rj}), y_{rj})`` for all samples, groups, thresholds.

        Parameters
        ----------
        sample : ThresholdSample
        weights : array_like, shape (M,) or (R, M)
            Per-point weights ``c`` (e.g. ``1/m_i``, or ``p_i/(alpha_i m_i) sigma_ij``).
        groups : array_like of int, shape (M,), optional
            Group of each column in ``[0, n_groups)``; default: one group.
        n_groups : int
            Number of groups ``G``.
        signed : bool
            Use the ``{-1,+1}`` loss ``1 - 2 l`` instead of the 0-1 loss ``l``.

        Returns
        -------
        ndarray, shape (R, G, K)
        """
        if not isinstance(sample, ThresholdSample):
            raise FairtheoryTypeError(f"sample must be a ThresholdSample, got {type(sample).__name__}")
        R, M = sample.x.shape
        from fairtheory.problems.base import as_data_array

        c = as_data_array(weights, "weights", allow_empty=True)
        if c.shape == (M,):
            c = np.broadcast_to(c, (R, M))
        if c.shape != (R, M):
            raise FairtheoryValueError(f"weights must have shape ({M},) or ({R}, {M}), got {c.shape}")
        if not np.all(np.isfinite(c)):
            raise FairtheoryValueError("weights must be finite")
        G = check_integer(n_groups, "n_groups", low=1)
        g = np.zeros(M, dtype=np.int64) if groups is None else np.asarray(groups)
        if g.shape != (M,) or not np.issubdtype(g.dtype, np.integer) or (M and (g.min() < 0 or g.max() >= G)):
            raise FairtheoryValueError(f"groups must be integers in [0, {G}) of shape ({M},)")
        K = self.K
        kbin = np.searchsorted(self.grid, sample.x, side="left")  # (R, M): #{k : w_k < x}
        pos = sample.y > 0
        # bins: (row, group, is_negative_label, kbin) flattened
        idx = ((np.arange(R)[:, None] * G + g[None, :]) * 2 + (~pos)) * (K + 1) + kbin
        hist = np.bincount(idx.ravel(), weights=c.ravel(), minlength=R * G * 2 * (K + 1))
        hist = hist.reshape(R, G, 2, K + 1)
        cum_pos = np.cumsum(hist[:, :, 0, :K], axis=-1)  # y=+1 errs for k >= k_j
        cum_neg = np.cumsum(hist[:, :, 1, :], axis=-1)
        neg_after = cum_neg[..., -1:] - cum_neg[..., :K]  # y=-1 errs for k < k_j
        zero_one = cum_pos + neg_after
        if not signed:
            return zero_one
        rows = (np.arange(R)[:, None] * G + g[None, :]).ravel()
        total = np.bincount(rows, weights=c.ravel(), minlength=R * G).reshape(R, G)
        return total[..., None] - 2.0 * zero_one

    def empirical_risks(self, sample: ThresholdSample) -> Array:
        """Empirical 0-1 risks ``fhat_i(w_k)`` of every sample, shape ``(R, n, K)``."""
        w = 1.0 / sample.m[sample.client]
        return self.loss_sums(sample, w, groups=sample.client, n_groups=self.n)


def default_population(K: int = 41) -> ThresholdPopulation:
    """The four-client population used by the claim checks (heterogeneous means, scales, noise).

    ``p = (0.1, 0.2, 0.3, 0.4)``; grid of ``K`` thresholds on ``[-2.5, 2.5]``."""
    K = check_integer(K, "K", low=1)
    return ThresholdPopulation(
        mu=[-1.0, -0.3, 0.4, 1.0],
        scale=[0.5, 1.0, 0.8, 1.2],
        theta=[-0.5, 0.0, 0.3, 0.8],
        noise=[0.05, 0.1, 0.2, 0.3],
        grid=np.linspace(-2.5, 2.5, K),
        p=[0.1, 0.2, 0.3, 0.4],
    )
