"""Result object and error type shared by every exact (cvxpy) solver."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairtheory.errors import FairtheoryTypeError, SolverError

__all__ = ["ExactResult", "SolverError", "solve_checked"]


@dataclass(frozen=True)
class ExactResult:
    """What an exact solver returns.

    ``value``: optimal value; ``argmin``: primal minimiser (model ``w`` or ``(w, eta)``) or ``None``;
    ``weights``: optimal client weights where the problem has them; ``solver``/``status``: what cvxpy
    used and reported; ``certificate``: a second route's value or a duality gap where one exists.
    """

    value: float
    argmin: np.ndarray | None = None
    weights: np.ndarray | None = None
    solver: str = ""
    status: str = "optimal"
    certificate: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def solve_checked(problem: Any, what: str, solver: str, **kwargs: Any) -> float:
    """``problem.solve(solver=solver, **kwargs)``; raise :class:`SolverError` unless status is optimal.

    cvxpy's own failures (a solver crash, "Cannot unpack invalid solution", a non-finite value) become
    :class:`SolverError`; its "Solution may be inaccurate" warning is not printed - the status carries
    the same information and is checked here."""
    import warnings

    import cvxpy as cp

    if not isinstance(problem, cp.Problem):
        raise FairtheoryTypeError(f"problem must be a cvxpy.Problem, got {type(problem).__name__}")
    if not isinstance(solver, str):
        raise FairtheoryTypeError(f"solver must be a cvxpy solver name (a string), got {solver!r}")
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Solution may be inaccurate")
            val = problem.solve(solver=solver, **kwargs)
    except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
        raise SolverError(what, solver, f"solver failure: {exc}") from exc
    if problem.status != cp.OPTIMAL:
        raise SolverError(what, solver, str(problem.status))
    if val is None or not np.isfinite(float(val)):
        raise SolverError(what, solver, f"optimal with a non-finite value {val!r}")
    return float(val)
