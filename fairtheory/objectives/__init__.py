"""Objective families as aggregators of the client-loss vector (one module per family).

* :mod:`~fairtheory.objectives.qalpha`: RC-FL's ``Q_alpha`` (002 Def. 1), its dual (002 Lemma 1), HCVaR
  and the smoothed objective ``F^mu_alpha`` (002 Lemma 2);
* :mod:`~fairtheory.objectives.qffl`: q-FFL's power aggregator (003);
* :mod:`~fairtheory.objectives.relative`: the relative unfairness index and discrepancy (001);
* :mod:`~fairtheory.objectives.tilted`: TERM's log-sum-exp aggregator.

Every public name of these modules is exported here (``from fairtheory.objectives import qalpha_loss``)
and imported on first use: ``import fairtheory.objectives`` loads no scipy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairtheory._lazy import lazy_exports

if TYPE_CHECKING:  # the same names, for type checkers (tests/test_public_api.py checks they match)
    from fairtheory.objectives.qalpha import F_alpha as F_alpha
    from fairtheory.objectives.qalpha import F_mu as F_mu
    from fairtheory.objectives.qalpha import F_mu_grad as F_mu_grad
    from fairtheory.objectives.qalpha import client_weights_mu as client_weights_mu
    from fairtheory.objectives.qalpha import deviation as deviation
    from fairtheory.objectives.qalpha import hcvar as hcvar
    from fairtheory.objectives.qalpha import hcvar_level as hcvar_level
    from fairtheory.objectives.qalpha import qalpha_dual as qalpha_dual
    from fairtheory.objectives.qalpha import qalpha_loss as qalpha_loss
    from fairtheory.objectives.qalpha import sigmoid as sigmoid
    from fairtheory.objectives.qalpha import softplus as softplus
    from fairtheory.objectives.qalpha import tau_alpha as tau_alpha
    from fairtheory.objectives.qffl import FORMS as FORMS
    from fairtheory.objectives.qffl import QFFLProblem as QFFLProblem
    from fairtheory.objectives.qffl import check_losses as check_losses
    from fairtheory.objectives.qffl import hessian_powered as hessian_powered
    from fairtheory.objectives.qffl import lipschitz_estimate as lipschitz_estimate
    from fairtheory.objectives.qffl import qffl_grad as qffl_grad
    from fairtheory.objectives.qffl import qffl_value as qffl_value
    from fairtheory.objectives.relative import ConvexRegime as ConvexRegime
    from fairtheory.objectives.relative import convex_regime as convex_regime
    from fairtheory.objectives.relative import discrepancy as discrepancy
    from fairtheory.objectives.relative import discrepancy_at as discrepancy_at
    from fairtheory.objectives.relative import lemma8_bound as lemma8_bound
    from fairtheory.objectives.relative import prop9_bounds as prop9_bounds
    from fairtheory.objectives.relative import relative_index as relative_index
    from fairtheory.objectives.relative import relative_index_at as relative_index_at
    from fairtheory.objectives.relative import skewness as skewness
    from fairtheory.objectives.relative import unfairness_parts as unfairness_parts
    from fairtheory.objectives.tilted import term as term

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    names={
        "qalpha": [
            "tau_alpha", "qalpha_loss", "qalpha_dual", "hcvar", "hcvar_level", "deviation", "softplus", "sigmoid",
            "F_alpha", "F_mu", "F_mu_grad", "client_weights_mu"],
        "qffl": [
            "FORMS", "check_losses", "qffl_value", "qffl_grad", "lipschitz_estimate", "hessian_powered",
            "QFFLProblem"],
        "relative": [
            "unfairness_parts", "relative_index", "relative_index_at", "discrepancy", "discrepancy_at",
            "prop9_bounds", "lemma8_bound", "ConvexRegime", "convex_regime", "skewness"],
        "tilted": ["term"],
    },
)
