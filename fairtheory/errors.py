"""The errors every public function of fairtheory raises on bad input or an uncertified result.

All derive from :class:`FairtheoryError`, so ``except FairtheoryError`` catches every failure the
library reports on purpose; each also derives from the matching built-in (``ValueError``,
``TypeError``, ``RuntimeError``) so existing ``except ValueError`` code keeps working.
"""

from __future__ import annotations

__all__ = ["FairtheoryError", "FairtheoryValueError", "FairtheoryTypeError", "SolverError", "DivergenceError",
           "NonFiniteError"]


class FairtheoryError(Exception):
    """Base class of every error fairtheory raises deliberately."""


class FairtheoryValueError(FairtheoryError, ValueError):
    """A value is outside its allowed range; the message names argument, value and range."""


class NonFiniteError(FairtheoryValueError):
    """An array argument holds nan or inf (raised by the problems' input policy; an algorithm whose own
    iterates trigger it inside :func:`fairtheory.algorithms.base.run` is reported as diverged)."""


class FairtheoryTypeError(FairtheoryError, TypeError):
    """An argument has the wrong type or dimensionality."""


class SolverError(FairtheoryError, RuntimeError):
    """An exact solve ended without an optimal (or independently certified) result.

    Carries what was solved (``what``), the solver used and the status it reported."""

    def __init__(self, what: str, solver: str, status: str) -> None:
        super().__init__(f"{what}: solver {solver} ended with status {status!r} (not optimal)")
        self.what, self.solver, self.status = what, solver, status


class DivergenceError(FairtheoryError, RuntimeError):
    """An iterative algorithm produced non-finite iterates; the message names the step size."""
