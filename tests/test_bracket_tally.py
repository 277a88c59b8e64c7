"""verify.core.BracketTally: equalities of results with rigorous brackets - within rtol verified, apart with
overlapping brackets inconclusive (undecided), apart with disjoint or missing brackets refuted."""

from __future__ import annotations

import math

import pytest

from verify.core import BracketTally


class _WC:
    """A worst case's value and rigorous bracket (the fields BracketTally reads)."""

    def __init__(self, value: float, lower: float, upper: float) -> None:
        self.value, self.lower, self.upper = value, lower, upper


@pytest.mark.parametrize("a,b,status", [
    ((1.0, 1.0 - 1e-9, 1.0), (1.0 + 1e-7, 1.0, 1.0 + 1e-7), "verified"),        # within rtol
    ((1.0, 0.99999, 1.0), (1.00001, 0.999995, 1.00001), "inconclusive"),        # 1e-5 apart, brackets overlap
    ((1.0, 0.99999, 1.0), (1.00001, 1.000005, 1.00001), "refuted"),             # 1e-5 apart, brackets disjoint
    ((1.0, math.nan, 1.0), (1.00001, 0.99, math.inf), "refuted"),               # no bracket: nothing undecided
    ((1.0, 0.99, math.inf), (1.00001, 0.99, math.inf), "refuted"),              # no rigorous upper end
])
def test_bracket_tally_decides_by_brackets(a, b, status) -> None:
    t = BracketTally(1e-6)
    t.equal(_WC(*a), _WC(*b), instance={"case": 1}, size=1)
    out = t.outcome(explain="test")
    assert out.status == status
    assert (out.counterexample is not None) == (status == "refuted")
    assert ("undecided" in out.details) == (status == "inconclusive")


def test_bracket_tally_one_refuted_instance_refutes() -> None:
    """An undecided instance never hides a refuted one."""
    t = BracketTally(1e-6)
    t.equal(_WC(1.0, 0.99999, 1.0), _WC(1.00001, 0.999995, 1.00001), instance={"case": 1}, size=1)
    t.equal(_WC(1.0, 0.99999, 1.0), _WC(1.00001, 1.000005, 1.00001), instance={"case": 2}, size=1)
    out = t.outcome(explain="test")
    assert out.status == "refuted" and out.counterexample["case"] == 2


@pytest.mark.parametrize("rtol", [-1e-6, math.nan, math.inf, "1e-6"])
def test_bracket_tally_rejects_bad_rtol(rtol) -> None:
    with pytest.raises((ValueError, TypeError), match="BracketTally rtol"):
        BracketTally(rtol)
