"""FedMGDA+ (Hu et al. 2022, Alg. 1): the server direction is the exact min-norm point of the box.

* ``fedmgda.direction``: :func:`fairtheory.algorithms.fedmgda.aggregate` (Gram-matrix active set)
  attains the minimum of ``||sum_i lam_i u_i||^2`` over ``{lam in simplex : |lam - lam0| <= epsilon}``
  computed by an independent cvxpy QP in ``R^d`` (Clarabel, tolerances ``1e-10``), and its weights
  lie in that box.
* ``fedmgda.common_descent``: with ``epsilon >= 1`` (the whole simplex) the direction ``d`` is a
  common descent direction of every normalised update, ``min_i u_i . d >= ||d||^2`` (the optimality
  condition of the min-norm point, Desideri 2012), so a small server step decreases every client's
  linearised loss.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory.algorithms.fedmgda import aggregate, normalise
from fairtheory.exact.min_norm import fedmgda_box
from fairtheory.exact.result import solve_checked
from verify.core import Context, Outcome, Tally, claim

__all__ = ["update_sets"]


def update_sets(ctx: Context, salt: str) -> list[dict[str, Any]]:
    """Random and edge-case update sets with sample weights ``lam0`` and box half-widths ``epsilon``."""
    rng = ctx.rng(salt)
    out: list[dict[str, Any]] = []

    def add(U: np.ndarray, lam0: Any, eps: float, kind: str) -> None:
        out.append({"kind": kind, "U": np.asarray(U, dtype=np.float64), "lam0": np.asarray(lam0, dtype=np.float64),
                    "epsilon": eps})

    add(np.zeros((1, 1)), [1.0], 0.1, "one zero update")
    add(np.zeros((3, 2)), [0.2, 0.3, 0.5], 1.0, "zero updates")
    add([[1.0, 0.0], [-1.0, 0.0]], [0.5, 0.5], 1.0, "opposite updates")
    add([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [1 / 3] * 3, 0.05, "duplicate updates")
    add([[1.0, 0.0], [0.0, 1.0]], [0.9, 0.1], 0.0, "epsilon 0")
    add(1e-12 * rng.normal(size=(4, 3)), [0.25] * 4, 0.3, "tiny")
    add(1e12 * rng.normal(size=(4, 3)), [0.25] * 4, 0.3, "huge")
    for _ in range(ctx.count(60, 600)):
        m, d = int(rng.integers(1, 12)), int(rng.integers(1, 8))
        U = rng.normal(size=(m, d)) + rng.normal(size=d) * rng.uniform(0, 2)
        if rng.uniform() < 0.2:
            U[rng.integers(0, m)] = 0.0
        add(U, rng.dirichlet(np.ones(m)), float(rng.choice([0.0, 0.01, 0.05, 0.1, 0.5, 1.0, rng.uniform()])), "random")
    return out


def _qp_value(U: np.ndarray, lam0: np.ndarray, eps: float) -> float:
    import cvxpy as cp

    Un = normalise(U)
    lo, hi = fedmgda_box(lam0, eps)
    lam = cp.Variable(U.shape[0])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(Un.T @ lam)), [cp.sum(lam) == 1, lam >= lo, lam <= hi])
    return solve_checked(prob, "FedMGDA+ min-norm QP", "CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)


@claim("fedmgda.direction", citation="Hu et al. (2022) Alg. 1 (FedMGDA+)",
       statement="the FedMGDA+ server direction attains min ||sum lam_i u_i||^2 over the epsilon-box of the simplex "
                 "(independent R^d QP), within 1e-8 on values <= 1, with weights in the box")
def direction(ctx: Context) -> Outcome:
    value, feasible = Tally(), 0
    for s in update_sets(ctx, "fedmgda.direction"):
        d, lam = aggregate(s["U"], s["lam0"], epsilon=s["epsilon"])
        lo, hi = fedmgda_box(s["lam0"], s["epsilon"])
        feasible += int(bool(np.all(lam >= lo - 1e-12) and np.all(lam <= hi + 1e-12) and abs(lam.sum() - 1) <= 1e-12))
        m, dim = s["U"].shape
        value.equal(float(d @ d), _qp_value(s["U"], s["lam0"], s["epsilon"]), rtol=1e-8, scale=1.0,
                    instance={"kind": s["kind"], "U": s["U"].tolist(), "lam0": s["lam0"].tolist(), "epsilon": s["epsilon"]},
                    size=m * dim)
    out = value.outcome(details={"weights_in_box": feasible},
                        explain="measured = ||d||^2 of fairtheory's FedMGDA+ direction, bound = the exact QP minimum")
    if feasible != value.instances:
        out.status = "refuted"
        out.note = f"weights outside the box in {value.instances - feasible} of {value.instances} instances"
    return out


@claim("fedmgda.common_descent", citation="Hu et al. (2022) Alg. 1; Desideri (2012)",
       statement="with epsilon >= 1 the FedMGDA+ direction d satisfies min_i u_i . d >= ||d||^2 for the normalised "
                 "updates u_i (a common descent direction)")
def common_descent(ctx: Context) -> Outcome:
    tally = Tally()
    for s in update_sets(ctx, "fedmgda.common_descent"):
        Un = normalise(s["U"])
        d, _ = aggregate(s["U"], s["lam0"], epsilon=1.0)
        m, dim = s["U"].shape
        tally.lower(float(np.min(Un @ d)), float(d @ d), instance={"kind": s["kind"], "U": s["U"].tolist()}, size=m * dim)
    return tally.outcome(explain="measured = min_i u_i . d, bound = ||d||^2 (>= : every normalised update has at least "
                                 "||d||^2 along d)")
