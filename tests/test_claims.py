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


@pytest.mark.parametrize("claim_id", BUILTIN)
def test_builtin_claim_status_matches_expectation(claim_id: str) -> None:
    assert claim_id in REGISTRY, f"{claim_id} has no registered check"
    r = run_claim(claim_id, Context(quick=True, seed=0))
    detail = r.details.get("traceback", "") if r.status == "error" else ""
    assert r.status == r.expected, f"{claim_id}: {r.status} (expected {r.expected}): {r.note}\n{detail}"
    if r.status == "verified" and r.relation == "<=" and r.tightness is not None:
        assert r.tightness >= 0.0  # one meaning: measured/bound of an upper bound
    if r.relation == "==":
        assert r.tightness is None and r.tolerance is not None and r.error is not None
