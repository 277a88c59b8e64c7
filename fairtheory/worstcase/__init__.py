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

The modules form layers that import downwards only (``tests/test_import_cycles.py`` checks there is no cycle):

1. :mod:`~fairtheory.worstcase.gram` - the Gram algebra (symbolic vectors, scalars, Gram coordinates);
2. the catalogue - :mod:`~fairtheory.worstcase.classes` (function classes and their interpolation rows);
3. :mod:`~fairtheory.worstcase.solvers` (Clarabel, SDPA-GMP), :mod:`~fairtheory.worstcase.results` (``WorstCase``,
   ``Instance``, units), the solve routes :mod:`~fairtheory.worstcase.sparse_solve` /
   :mod:`~fairtheory.worstcase.symmetric`, the replay and brackets (:mod:`~fairtheory.worstcase.replay`,
   :mod:`~fairtheory.worstcase.bracket`), the checked solve (:mod:`~fairtheory.worstcase.checked_solve`) and the size
   limits (:mod:`~fairtheory.worstcase.limits`);
4. the PEP builder :mod:`~fairtheory.worstcase.sdp` (its ``solve`` calls the routes above), then what is written on
   it: operators and steps (:mod:`~fairtheory.worstcase.operators`, :mod:`~fairtheory.worstcase.steps`), the tracer
   (:mod:`~fairtheory.worstcase.gram_array`, :mod:`~fairtheory.worstcase.pep_problem`), certification
   (:mod:`~fairtheory.worstcase.finish`);
5. the FL methods' worst cases on top (:mod:`~fairtheory.worstcase.local_gd`, :mod:`~fairtheory.worstcase.scaffold`,
   :mod:`~fairtheory.worstcase.traced`, :mod:`~fairtheory.worstcase.potential`, :mod:`~fairtheory.worstcase.ratio`).

Everything here is imported on first use (:mod:`fairtheory._lazy`): ``import fairtheory.worstcase`` loads no
solver, scipy or proof module.  See docs/worstcase.md for the derivation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairtheory._lazy import lazy_exports

if TYPE_CHECKING:  # the same names, for type checkers (tests/test_public_api.py checks they match)
    from fairtheory.worstcase.adversarial import AdversarialResult as AdversarialResult
    from fairtheory.worstcase.adversarial import Space as Space
    from fairtheory.worstcase.adversarial import adversarial_max as adversarial_max
    from fairtheory.worstcase.classes import Convex as Convex
    from fairtheory.worstcase.classes import ConvexIndicator as ConvexIndicator
    from fairtheory.worstcase.classes import ConvexLipschitz as ConvexLipschitz
    from fairtheory.worstcase.classes import SmoothNonconvex as SmoothNonconvex
    from fairtheory.worstcase.classes import SmoothStronglyConvex as SmoothStronglyConvex
    from fairtheory.worstcase.local_gd import local_gd_worst_case as local_gd_worst_case
    from fairtheory.worstcase.local_gd import worst_case_vs_rounds as worst_case_vs_rounds
    from fairtheory.worstcase.operators import Cocoercive as Cocoercive
    from fairtheory.worstcase.operators import CocoerciveStronglyMonotone as CocoerciveStronglyMonotone
    from fairtheory.worstcase.operators import Linear as Linear
    from fairtheory.worstcase.operators import Lipschitz as Lipschitz
    from fairtheory.worstcase.operators import LipschitzStronglyMonotone as LipschitzStronglyMonotone
    from fairtheory.worstcase.operators import Monotone as Monotone
    from fairtheory.worstcase.operators import NegativelyComonotone as NegativelyComonotone
    from fairtheory.worstcase.operators import Nonexpansive as Nonexpansive
    from fairtheory.worstcase.operators import SkewSymmetricLinear as SkewSymmetricLinear
    from fairtheory.worstcase.operators import StronglyMonotone as StronglyMonotone
    from fairtheory.worstcase.operators import SymmetricLinear as SymmetricLinear
    from fairtheory.worstcase.potential import certificate_bound as certificate_bound
    from fairtheory.worstcase.potential import horizon_free_constants as horizon_free_constants
    from fairtheory.worstcase.potential import round_constant as round_constant
    from fairtheory.worstcase.potential import stepsize_region as stepsize_region
    from fairtheory.worstcase.ratio import sampled_ratio as sampled_ratio
    from fairtheory.worstcase.ratio import theorem_ratio as theorem_ratio
    from fairtheory.worstcase.results import Instance as Instance
    from fairtheory.worstcase.results import WorstCase as WorstCase
    from fairtheory.worstcase.results import report_value as report_value
    from fairtheory.worstcase.scaffold import scaffold_worst_case as scaffold_worst_case
    from fairtheory.worstcase.traced import PEPProblem as PEPProblem
    from fairtheory.worstcase.traced import worst_case as worst_case

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    names={
        "results": ["Instance", "WorstCase", "report_value"],
        "local_gd": ["local_gd_worst_case", "worst_case_vs_rounds"],
        "potential": ["certificate_bound", "horizon_free_constants", "round_constant", "stepsize_region"],
        "ratio": ["sampled_ratio", "theorem_ratio"],
        "scaffold": ["scaffold_worst_case"],
        "adversarial": ["adversarial_max", "AdversarialResult", "Space"],
        "traced": ["PEPProblem", "worst_case"],  # traced backend: any linear method's own make()
        "classes": ["Convex", "ConvexIndicator", "ConvexLipschitz", "SmoothNonconvex", "SmoothStronglyConvex"],
        "operators": ["Monotone", "StronglyMonotone", "Lipschitz", "LipschitzStronglyMonotone", "Cocoercive",
                      "CocoerciveStronglyMonotone", "Nonexpansive", "NegativelyComonotone", "Linear", "SymmetricLinear",
                      "SkewSymmetricLinear"],
    },
)
