"""Federated problems: client losses, gradients and Hessians evaluated for all clients at once."""

from fairtheory.problems.base import FederatedProblem
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic

__all__ = ["FederatedProblem", "QuadraticProblem", "random_quadratic"]
