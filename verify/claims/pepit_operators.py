r"""PEPit parity for operators: the builder with the operator classes of :mod:`fairtheory.worstcase.operators`
reproduces the tight values the papers behind PEPit's monotone-inclusion and fixed-point examples state.

One claim per example of :data:`fairtheory.worstcase.pepit_operator_examples.OPERATOR_EXAMPLES` (id
``base.pepit.operators.<name>``): the example, written from its paper's statement, solved by
:meth:`~fairtheory.worstcase.sdp.PEP.solve` with ``gmp="always"`` (SDPA-GMP, 200-bit, wherever the PEP is small
enough; the float solve alone misses Kim's ``1/n^2`` by ``4e-6`` relative at ``n = 10``), must equal the paper's tight
value to :data:`~fairtheory.worstcase.pepit_examples.REL_TOL` relative with the solver ``Solved`` - or, for the
Krasnoselskii-Mann bounds (Lieder 2018's constant-step bound; a textbook bound for increasing steps, for which PEPit
states no value), lie below it. ``douglas_rachford_splitting_cocoercive`` is a recorded finding (expected ``refuted``,
:data:`_FINDINGS`): the formula of RTBG 2020 Thm 4.1 as PEPit transcribes it fails at a setting beyond PEPit's own.
The ground truth is always the paper's closed form. Each result records ``value_is`` (``"upper bound"`` for the
Douglas-Rachford example, whose Lipschitz monotone class is a relaxation; its agreement with RTBG 2020 Thm 4.3 shows
the relaxation is tight there).
Quick mode: PEPit's published parameters (Halpern at ``n = 10``); full mode adds others.
"""

from __future__ import annotations

from fairtheory.worstcase.pepit_operator_examples import OPERATOR_EXAMPLES
from verify.claims.pepit_parity import register_parity

#: the ids this module registers (one per example), literal so that ``python -m verify`` reads them without importing
CLAIM_IDS = (
    "base.pepit.operators.proximal_point",
    "base.pepit.operators.accelerated_proximal_point",
    "base.pepit.operators.optimal_strongly_monotone_proximal_point",
    "base.pepit.operators.douglas_rachford_splitting",
    "base.pepit.operators.douglas_rachford_splitting_cocoercive",
    "base.pepit.operators.halpern_iteration",
    "base.pepit.operators.optimal_contractive_halpern_iteration",
    "base.pepit.operators.krasnoselskii_mann_constant_step_sizes",
    "base.pepit.operators.krasnoselskii_mann_increasing_step_sizes",
)

#: recorded findings (expected ``refuted``), with the counterexample
_FINDINGS = {
    "douglas_rachford_splitting_cocoercive": "RTBG 2020 Thm 4.1 as PEPit transcribes it is not an upper bound at beta = "
                                             "0.7, mu = 1.3, alpha = 1, theta = 1: formula 0.28177, worst case 100/273 "
                                             "= 0.366300, reached by explicit 2x2 linear operators",
}


register_parity(OPERATOR_EXAMPLES, prefix="base.pepit.operators.", claim_ids=CLAIM_IDS, findings=_FINDINGS,
                ok_statuses=("Solved",), source="verify/claims/pepit_operators.py", fn_prefix="operator_parity_",
                where=lambda ex: f"PEPit examples/{ex.pepit[0].split('PEPit.examples.')[1].replace('.', '/')}.py")
