"""Federated problems: client losses, gradients and Hessians evaluated for all clients at once."""

from fairtheory.problems.base import FederatedProblem
from fairtheory.problems.generators import digits_federated, random_least_squares, random_logistic, separable
from fairtheory.problems.least_squares import LeastSquaresProblem
from fairtheory.problems.logistic import LogisticProblem, SampleProblem
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic

__all__ = [
    "FederatedProblem",
    "QuadraticProblem",
    "random_quadratic",
    "SampleProblem",
    "LogisticProblem",
    "LeastSquaresProblem",
    "random_logistic",
    "random_least_squares",
    "digits_federated",
    "separable",
]
