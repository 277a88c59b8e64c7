r"""The Palmer penguins regression of 001 Sec. 4.3 / App. J.1 (reconstructed).

Three clients (species Adelie, Chinstrap, Gentoo), each holding the first ``m = 10`` complete rows of
its species in the ``palmerpenguins`` package data (shipped with the package; no network).  The model
regresses ``bill_length_mm`` on an intercept, ``bill_depth_mm`` and ``flipper_length_mm``
(``d = 3``, raw units) and client ``i`` has the mean squared error

.. math:: f_i(w) = \frac{1}{m}\lVert X_i w - y_i\rVert^2
          = \tfrac12 (w - c_i)^T H_i (w - c_i) + e_i,\qquad
          H_i = \tfrac{2}{m} X_i^T X_i,\ c_i = X_i^+ y_i,\ e_i = \tfrac1m \lVert X_i c_i - y_i\rVert^2,

an exact expansion (``c_i`` the least-squares fit, ``e_i`` its residual MSE), returned as a
:class:`~fairtheory.problems.quadratic.QuadraticProblem`.

"Complete" is read as complete in the three regression columns (default, ``complete="regression"``);
``complete="all"`` requires every column (including ``sex``) to be present, which changes the Adelie
rows (App. J.1 only says "first 10 samples from each species").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import FairtheoryValueError, check_integer
from fairtheory.problems.quadratic import QuadraticProblem

__all__ = ["SPECIES", "FEATURES", "TARGET", "PenguinsData", "penguins_data", "penguins_problem"]

SPECIES = ("Adelie", "Chinstrap", "Gentoo")
FEATURES = ("bill_depth_mm", "flipper_length_mm")
TARGET = "bill_length_mm"

Array = NDArray[np.float64]


@dataclass(frozen=True)
class PenguinsData:
    """Design matrices ``X`` (3, m, 3) with an intercept column first, targets ``y`` (3, m) and the
    source row indices ``rows`` (3, m) of the package's data frame."""

    X: Array
    y: Array
    rows: NDArray[np.int64]


def penguins_data(m: int = 10, complete: str = "regression") -> PenguinsData:
    """The first ``m`` complete rows of each species (see the module docstring)."""
    from palmerpenguins import load_penguins

    m = check_integer(m, "m", low=2)
    if complete not in ("regression", "all"):
        raise FairtheoryValueError(f"complete must be 'regression' or 'all', got {complete!r}")
    df = load_penguins()
    cols = [TARGET, *FEATURES]
    Xs, ys, rows = [], [], []
    for sp in SPECIES:  # three species, not a hot path
        sub = df[df["species"] == sp]
        sub = sub.dropna(subset=cols) if complete == "regression" else sub.dropna()
        if len(sub) < m:
            raise FairtheoryValueError(f"m must be <= {len(sub)} (complete {sp} rows), got {m}")
        sub = sub.head(m)
        Xs.append(np.column_stack([np.ones(m), sub[list(FEATURES)].to_numpy(dtype=np.float64)]))
        ys.append(sub[TARGET].to_numpy(dtype=np.float64))
        rows.append(sub.index.to_numpy(dtype=np.int64))
    return PenguinsData(np.stack(Xs), np.stack(ys), np.stack(rows))


def penguins_problem(m: int = 10, complete: str = "regression") -> QuadraticProblem:
    """Three-client :class:`QuadraticProblem` with per-species MSE losses (001 Sec. 4.3, reconstructed).

    Uniform weights ``p``; ``f_i(w)`` equals ``mean((X_i w - y_i)^2)`` exactly (up to rounding)."""
    data = penguins_data(m, complete)
    X, y = data.X, data.y
    mm = X.shape[1]
    H = 2.0 / mm * np.einsum("nji,njk->nik", X, X)
    c = np.stack([np.linalg.lstsq(X[i], y[i], rcond=None)[0] for i in range(X.shape[0])])
    resid = np.einsum("nji,ni->nj", X, c) - y
    e = np.mean(resid ** 2, axis=1)
    return QuadraticProblem(H, c, e)
