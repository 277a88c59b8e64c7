r"""PEPit parity for operators: the builder with the operator classes of :mod:`fairtheory.worstcase.operators`
reproduces the tight values the papers behind PEPit's monotone-inclusion and fixed-point examples state.

One claim per example of :data:`fairtheory.worstcase.pepit_operator_examples.OPERATOR_EXAMPLES` (id
``base.pepit.operators.<name>``): the example, written from its paper's statement, solved by
:meth:`~fairtheory.worstcase.sdp.PEP.solve` with ``gmp="always"`` (SDPA-GMP, 200-bit, wherever the PEP is small
enough; the float solve alone misses Kim's ``1/n^2`` by ``4e-6`` relative at ``n = 10``), must equal the paper's tight
value to :data:`~fairtheory.worstcase.pepit_examples.REL_TOL` relative with the solver ``Solved`` - or, for the
Krasnoselskii-Mann bounds (Lieder 2018's constant-step bound; a textbook bound for increasing steps, for which PEPit
states no value), lie below it. ``douglas_rachford_splitting_cocoercive`` is a recorded finding (expected ``refuted``,
:data:`_FINDINGS`): a transcription error in PEPit's example, not in RTBG 2020 Thm 4.1 - the example's formula
(:func:`~fairtheory.worstcase.pepit_operator_examples.drs_cocoercive_tau_as_pepit`) scales ``beta`` as ``alpha beta``
where ``beta/alpha`` belongs and divides its general regime by ``mu^2 beta`` where ``mu beta`` belongs.
``douglas_rachford_splitting_cocoercive_corrected`` checks the corrected formula
(:func:`~fairtheory.worstcase.pepit_operator_examples.drs_cocoercive_tau`) against the PEP in every regime, the general
one also with ``alpha != 1``.
The ground truth is always the paper's closed form (for the corrected Douglas-Rachford claim, the formula with PEPit's slips
corrected). Each result records ``value_is`` (``"upper bound"`` for the
Douglas-Rachford example, whose Lipschitz monotone class is a relaxation; its agreement with RTBG 2020 Thm 4.3 shows
the relaxation is tight there).
Quick mode: PEPit's published parameters (Halpern at ``n = 10``); full mode adds others.
"""

from __future__ import annotations

from typing import Any

from fairtheory.worstcase.pepit_operator_examples import OPERATOR_EXAMPLES
from verify.claims.pepit_parity import register_parity

#: the ids this module registers (one per example), literal so that ``python -m verify`` reads them without importing
CLAIM_IDS = (
    "base.pepit.operators.proximal_point",
    "base.pepit.operators.accelerated_proximal_point",
    "base.pepit.operators.optimal_strongly_monotone_proximal_point",
    "base.pepit.operators.douglas_rachford_splitting",
    "base.pepit.operators.douglas_rachford_splitting_cocoercive",
    "base.pepit.operators.douglas_rachford_splitting_cocoercive_corrected",
    "base.pepit.operators.halpern_iteration",
    "base.pepit.operators.optimal_contractive_halpern_iteration",
    "base.pepit.operators.krasnoselskii_mann_constant_step_sizes",
    "base.pepit.operators.krasnoselskii_mann_increasing_step_sizes",
)

#: recorded findings (expected ``refuted``): what they are, with the counterexample
_FINDINGS = {
    "douglas_rachford_splitting_cocoercive": (
        "a transcription error in PEPit's example, not in the theorem (RTBG 2020 Thm 4.1): the example's formula scales "
        "beta as alpha beta where alpha A is (beta/alpha)-cocoercive, and divides its general regime by mu^2 beta where "
        "mu beta belongs; at beta = 0.7, mu = 1.3, alpha = theta = 1 it gives 0.28177 = (100/273)/1.3, below the worst "
        "case 100/273 = 0.366300 (our PEP; 2x2 linear operators reach it). Corrected, it gives exactly 100/273 there and "
        "equals the PEP in every regime: claim base.pepit.operators.douglas_rachford_splitting_cocoercive_corrected"),
}

#: citations of the examples that are not PEPit's (``Example.pepit`` is ``None``)
_OWN = {"douglas_rachford_splitting_cocoercive_corrected":
        "RTBG 2020 Thm 4.1 (PEPit examples/monotone_inclusions_variational_inequalities/douglas_rachford_splitting_2.py, "
        "formula corrected)"}


def _where(ex: Any) -> str:
    if ex.pepit is None:
        return _OWN[ex.name]
    return f"PEPit examples/{ex.pepit[0].split('PEPit.examples.')[1].replace('.', '/')}.py"


register_parity(OPERATOR_EXAMPLES, prefix="base.pepit.operators.", claim_ids=CLAIM_IDS, findings=_FINDINGS,
                ok_statuses=("Solved",), source="verify/claims/pepit_operators.py", fn_prefix="operator_parity_",
                where=_where)
