"""Exact worst cases (performance estimation, PEP) of federated first-order methods.

* :func:`local_gd_worst_case` / :func:`worst_case_vs_rounds`: local GD with averaging (FedAvg / rFedFair).
* :func:`theorem_ratio` / :func:`sampled_ratio`: the largest ratio to 002 / 000 Theorems 1-2.
* :func:`horizon_free_constants` / :func:`stepsize_region`: one-round potential certificates.
* :func:`scaffold_worst_case`: deterministic Scaffold.
* :mod:`fairtheory.worstcase.replay`: explicit worst-case functions, replayed with the project's algorithms.
* :func:`adversarial_max`: seeded search for the largest measured/bound where no PEP applies.
* :mod:`fairtheory.worstcase.classes`: function classes with exact interpolation conditions for hand-written PEPs
  (:class:`~fairtheory.worstcase.sdp.PEP`); :mod:`fairtheory.worstcase.sparse_solve`: the sparse route of large
  single-sequence PEPs.
* :mod:`fairtheory.worstcase.operators`: operator classes (monotone, Lipschitz, cocoercive, linear, ...) with their
  interpolation conditions (exact or labelled relaxations) and the oracles ``apply`` / ``resolvent`` / ``declare_zero``.

See docs/worstcase.md for the derivation.
"""

from fairtheory.worstcase.adversarial import AdversarialResult, Space, adversarial_max
from fairtheory.worstcase.classes import (
    Convex,
    ConvexIndicator,
    ConvexLipschitz,
    SmoothNonconvex,
    SmoothStronglyConvex,
)
from fairtheory.worstcase.local_gd import Instance, WorstCase, local_gd_worst_case, report_value, worst_case_vs_rounds
from fairtheory.worstcase.operators import (
    Cocoercive,
    CocoerciveStronglyMonotone,
    Linear,
    Lipschitz,
    LipschitzStronglyMonotone,
    Monotone,
    NegativelyComonotone,
    Nonexpansive,
    SkewSymmetricLinear,
    StronglyMonotone,
    SymmetricLinear,
)
from fairtheory.worstcase.potential import certificate_bound, horizon_free_constants, round_constant, stepsize_region
from fairtheory.worstcase.ratio import sampled_ratio, theorem_ratio
from fairtheory.worstcase.scaffold import scaffold_worst_case
from fairtheory.worstcase.traced import PEPProblem, worst_case  # traced backend: any linear method's own make()

__all__ = ["Instance", "WorstCase", "local_gd_worst_case", "report_value", "worst_case_vs_rounds",
           "certificate_bound", "horizon_free_constants", "round_constant", "stepsize_region",
           "sampled_ratio", "theorem_ratio", "scaffold_worst_case", "adversarial_max", "AdversarialResult", "Space",
           "PEPProblem", "worst_case", "Convex", "ConvexIndicator", "ConvexLipschitz", "SmoothNonconvex",
           "SmoothStronglyConvex", "Monotone", "StronglyMonotone", "Lipschitz", "LipschitzStronglyMonotone", "Cocoercive",
           "CocoerciveStronglyMonotone", "Nonexpansive", "NegativelyComonotone", "Linear", "SymmetricLinear",
           "SkewSymmetricLinear"]
