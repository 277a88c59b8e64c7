"""The hostile sweep of round 4 (``tests/sweeps/hostile_pep_units.py``, issue 35: units and honesty of the PEP engine)
as a slow test: no silently wrong value and no obscure error.  One call is a known limit, slow but correct: GD with
``N = 60`` and the small step ``h = 0.05`` on the sparse route (the first relaxation's completion violates 1045 far
rows; adding them takes 3 rounds, 12.7 s CPU measured on a loaded 2-core machine, issue 41; docs/worstcase.md "Large
PEPs: the sparse solve")."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

KNOWN_SLOW = {"hand GD N=60 h=0.05 (sparse route)"}


@pytest.mark.slow
def test_hostile_sweep_round4() -> None:
    """The whole sweep.  The sparse route's hand GD N=60 h=0.05 (0.0714278 against 1/14 before, a value below the worst
    case, marked machine-dependent) is judged like every call: the relaxations are solved in the measured sizes of
    the sparse basis (fairtheory.worstcase.sparse_solve._adapted_scale) and a value the multipliers do not close on is
    not reported Solved (tests/test_sparse_accuracy.py)."""
    path = Path(__file__).parent / "sweeps" / "hostile_pep_units.py"
    spec = importlib.util.spec_from_file_location("hostile_pep_units", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    res = mod.run()
    c = res["counts"]
    assert c["calls"] >= 80
    detail = "\n".join(res["bad"])
    assert c.get("silently wrong", 0) == 0, detail
    assert c.get("obscure", 0) == 0, detail
    slow = [line for line in res["bad"] if line.startswith("obscure (too slow)")]
    assert all(any(k in line for k in KNOWN_SLOW) for line in slow), detail


def test_hostile_sweep_round4_sample() -> None:
    """The default run's sample of the sweep (issue 34: every test module runs by default; the whole sweep is the slow
    test above): the five ``inexact_grad eps=`` validation calls, judged exactly as in the full sweep."""
    path = Path(__file__).parent / "sweeps" / "hostile_pep_units.py"
    spec = importlib.util.spec_from_file_location("hostile_pep_units", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    res = mod.run(only="inexact_grad eps=")
    c = res["counts"]
    assert c["calls"] == 5
    assert c.get("correct", 0) == 5 and not c.get("warned"), "\n".join(res["bad"])
