"""CI runs the claims: every built-in claim, in quick mode, must end with its recorded expectation.

A claim that slips from ``verified`` to ``error`` (or from ``refuted`` to ``verified``) fails here, so
CI catches it.  ``--full`` (``pytest --full``) also runs the full mode of the claims marked slow there.
"""

from __future__ import annotations

import pytest

from verify.catalogue import CATALOGUE
from verify.core import REGISTRY, Context, run_claim
from verify.plugins import load_builtin

LOAD_ERRORS = load_builtin()
#: the seed catalogue and every other built-in family (worst cases, peers, ...)
BUILTIN = list(CATALOGUE) + [i for i, s in REGISTRY.items() if s.source == "built-in" and i not in CATALOGUE]


def test_every_builtin_module_imports() -> None:
    assert not LOAD_ERRORS, f"claim modules failed to import: {LOAD_ERRORS}"


#: claims whose quick run takes over ~0.5 s on an idle 2-core machine (measured with ``--durations``, issue 34): they
#: run under ``pytest --full`` (which CI runs); every other built-in claim runs by default.  The slowest is
#: proofs.fit.localgd_rho0 (~11 s); together these were ~70% of this module's time.
SLOW_CLAIMS = frozenset({
    "proofs.potential.gd_tight", "proofs.potential.gd_linear", "proofs.potential.gd_beyond",
    "proofs.rcfl.theorem1.every_round", "proofs.rcfl.theorem1.hetero_three_clients",
    "proofs.fit.localgd_rho0", "proofs.fit.localgd_D0zero", "proofs.rcfl.theorem1.every_step", "relfair.theorem3.rate",
    "base.scaffold.worstcase", "qffl.table9.trend", "base.drfa.converges", "proofs.localgd.rho0_formula",
    "base.scaffold.converges", "worstcase.traced.fedavg_twin", "rcfl.theorem2.v002", "relfair.integrated.support",
    "worstcase.traced.scaffold_twin", "worstcase.traced.user_method", "base.afl.converges", "base.scaffpd.converges",
    "proofs.localgd.rho0_points", "rcfl.remark3.vc", "rcfl.theorem2.v000", "peers.sqwash.superquantile",
    "relfair.sets.closed_form", "proofs.rcfl.lemma2.gap", "rcfl.empirical.worst_client", "relfair.theorem1.monotone",
    "proofs.rcfl.prop1.softplus", "rcfl.stepsize.region", "relfair.penguins.figure", "proofs.rcfl.lemmaC1.smoothness",
    "base.fedavg.converges", "fedfv.theorem3.pareto", "peers.fedlab.qfedavg", "relfair.exact.routes_agree",
    "proofs.rcfl.theorem1.all_rounds", "proofs.potential.local_gd", "rcfl.theorem2.worstcase", "worstcase.localsgd.sigma2",
    "peers.fedlab.ditto", "peers.fedlab.powerofchoice", "rcfl.lemma2.gap", "relfair.theorem2.strict", "peers.flgo.fedfv",
    "worstcase.scaffold.stochastic", "peers.flgo.ditto", "rcfl.theorem3.generalization", "worstcase.fedprox.heterogeneous",
    "rcfl.theorem4.generalization", "proofs.potential.pepit", "proofs.potential.gd", "worstcase.scaffpd.traced_twin",
    "base.pepit.operators.optimal_strongly_monotone_proximal_point", "base.pepit.operators.halpern_iteration",
    "base.pepit.operators.accelerated_proximal_point", "base.pepit.operators.optimal_contractive_halpern_iteration",
    "base.pepit.operators.proximal_point", "proofs.qffl.limits.sandwich", "proofs.qffl.lemma8.entropy_sign",
})


@pytest.mark.parametrize("claim_id", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW_CLAIMS else c
                                      for c in BUILTIN])
def test_builtin_claim_status_matches_expectation(claim_id: str) -> None:
    assert claim_id in REGISTRY, f"{claim_id} has no registered check"
    r = run_claim(claim_id, Context(quick=True, seed=0))
    detail = r.details.get("traceback", "") if r.status == "error" else ""
    assert r.status == r.expected, f"{claim_id}: {r.status} (expected {r.expected}): {r.note}\n{detail}"
    if r.status == "verified" and r.relation == "<=" and r.tightness is not None:
        assert r.tightness >= 0.0  # one meaning: measured/bound of an upper bound
    if r.relation == "==":
        assert r.tightness is None and r.tolerance is not None and r.error is not None
