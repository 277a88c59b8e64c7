"""Exact ground truth from cvxpy (spec ``exact.md``); solvers raise :class:`SolverError` unless optimal."""

from fairtheory.exact.result import ExactResult, SolverError, solve_checked

__all__ = ["ExactResult", "SolverError", "solve_checked"]
