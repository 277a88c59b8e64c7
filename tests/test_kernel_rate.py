"""Linear rates in ``"pep-potential"``: strong convexity (``mu``), ``"rate"`` and ``"measure"`` (docs/proofs.md 8.1).

The certificate: gradient descent with step ``1/L`` on an ``L``-smooth ``(L/10)``-strongly convex ``f`` contracts the
distance to the minimiser by ``(1 - mu/L)^2 = 81/100`` per step (the potential ``||x - x*||^2``, the two interpolation
rows between ``x`` and ``x*`` with multiplier ``9/5`` each).  Every edit that makes the statement false, or the
evidence wrong, is refused; the falsifier finds the exact counterexample of a rate one notch too small."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from fairtheory.proofs.falsify import falsify_potential
from fairtheory_kernel import potential_kernel as K
from fairtheory_kernel.family import NORMALISATION


def _kp(*cs: str) -> list[list[str]]:
    return [[c] for c in cs]


def contraction(mu: str = "1/10", rate: str = "81/100", lam: str = "9/5", measure: str = "distance",
                h: str = "1") -> dict:
    st = {"class": {"functions": "smooth-convex", "mu": mu}, "normalisation": dict(NORMALISATION), "n": 1, "p": ["1"],
          "method": {"name": "gd"}, "parameter": {"name": "h", "lo": h, "hi": h}, "rate": rate, "measure": measure,
          "potential": {"terms": {"xx": _kp("1")}, "den": ["1"], "initial": {"num": ["1"], "den": ["1"]}},
          "bound": {"rho2": "0", "num": _kp("1"), "den": _kp("1")}}
    ev = {"step": {"denominator": ["1"], "multipliers": [[0, _kp(lam)], [1, _kp(lam)]]},
          "initial": {"denominator": ["1"], "multipliers": [[0, _kp("1")]]},
          "final": {"denominator": ["1"], "multipliers": []}}
    return {"kind": "pep-potential", "version": 1, "statement": st, "evidence": ev}


def test_the_contraction_checks_and_says_what_it_proves() -> None:
    ok, why = K.explain_potential(contraction())
    assert ok, why
    st = K.canonical(contraction()["statement"])
    assert st["rate"] == Fraction(81, 100) and st["measure"] == "distance"
    words = K.describe(st)
    assert "||x_N - x*||^2 <= (81/100)^N D0" in words and "(1/10 L)-strongly convex" in words
    assert K.bound_at(st, 3, Fraction(1)) == Fraction(81, 100) ** 3
    assert K.to_json(st)["rate"] == "81/100"


def test_a_stronger_class_is_a_true_weaker_statement() -> None:
    assert K.check_potential(contraction(mu="1/5"))  # (1 - 1/5)^2 = 16/25 <= 81/100


@pytest.mark.parametrize("edit", [
    {"rate": "4/5"},                      # below (1 - mu)^2: false
    {"mu": "0"},                          # no strong convexity: no contraction
    {"mu": "1"}, {"mu": "-1/10"},         # outside [0, 1)
    {"rate": "0"}, {"rate": "101/100"},   # outside (0, 1]
    {"lam": "17/10"}, {"lam": "2"},       # multipliers that do not prove it
    {"measure": "value"},                 # the final obligation changes: these multipliers do not give it
    {"measure": "gradient"},              # not a measure
    {"h": "3/2"},                         # step 3/(2L): the factor is max((1 - h mu)^2, (1 - h)^2) = 0.7225 < 0.81,
])                                        # but these multipliers are those of h = 1
def test_forgeries_are_refused(edit: dict) -> None:
    assert not K.check_potential(contraction(**edit))


def test_rate_and_measure_only_for_gd() -> None:
    bad = contraction()
    bad["statement"]["method"] = {"name": "agm"}
    assert not K.check_potential(bad)


def test_implies_needs_the_same_rate_and_measure() -> None:
    a = K.canonical(contraction()["statement"])
    assert K.implies(a, "pep-potential", contraction()["statement"])
    for edit in ({"rate": "9/10"}, {"measure": "value"}):
        assert not K.implies(a, "pep-potential", contraction(**edit)["statement"])


def test_the_falsifier_refutes_a_rate_one_notch_too_small() -> None:
    st = contraction(rate="3/4")["statement"]  # false: f = (mu/2) x^2 contracts by exactly 81/100
    found = falsify_potential(st, horizons=5, large=())
    assert found is not None and Fraction(found["measure"]) > Fraction(found["bound"])
    assert falsify_potential(contraction()["statement"], horizons=5, large=()) is None


def test_a_forged_statement_json_is_not_mutated_into_validity() -> None:
    c = contraction()
    c2 = copy.deepcopy(c)
    c2["statement"]["bound"]["num"] = _kp("9/10")  # the bound lowered by 10%: ||x1 - x*||^2 <= 0.729 is false
    assert not K.check_potential(c2)
