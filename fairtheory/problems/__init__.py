"""Federated problems: client losses, gradients and Hessians evaluated for all clients at once.

Problem classes (:class:`FederatedProblem` and its quadratic, logistic, least-squares, multinomial
and one-client Huber kinds), generators, the penguins data set (001) and the threshold population (002).  The q-FFL
synthetic data (003) stays in :mod:`fairtheory.problems.synthetic_qffl`: its generator has the
module's name, and exporting it here would shadow the module.
"""

from fairtheory.problems.base import FederatedProblem
from fairtheory.problems.generators import digits_federated, random_least_squares, random_logistic, separable
from fairtheory.problems.huber import HuberProblem
from fairtheory.problems.least_squares import LeastSquaresProblem
from fairtheory.problems.logistic import LogisticProblem, SampleProblem
from fairtheory.problems.multinomial import MultinomialProblem
from fairtheory.problems.penguins import PenguinsData, penguins_data, penguins_problem
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic
from fairtheory.problems.threshold_population import ThresholdPopulation, ThresholdSample, default_population

__all__ = [
    "FederatedProblem",
    "QuadraticProblem",
    "HuberProblem",
    "random_quadratic",
    "SampleProblem",
    "LogisticProblem",
    "LeastSquaresProblem",
    "random_logistic",
    "random_least_squares",
    "digits_federated",
    "separable",
    "MultinomialProblem",
    "PenguinsData",
    "penguins_data",
    "penguins_problem",
    "ThresholdPopulation",
    "ThresholdSample",
    "default_population",
]
