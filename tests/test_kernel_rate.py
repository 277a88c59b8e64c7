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


# ------------------------------------------------------------------------------------------------ every round
def _every_round(lo: str = "1/1048576", hi: str = "1/40", half: str = "1", kappa: int = 2, final_mult: str = "1") -> dict:
    """Local GD (002 Alg. 1, rFedFair, rho = 0, n = 2, p = (1/2, 1/2)): the potential ``||x - x*||^2`` never grows
    (today's one-round multipliers), and each server model has ``2 (G - G*) <= ||x - x*||^2`` (rows ``(x*, x)`` of
    both clients with multiplier ``2 p_i``: the rest is ``sum_i p_i ||x - x* - g_i||^2``): ``G(x_out) - G* <= L D0/2``
    for every ``T_N``, the trivial bound, as the constant per-round bound ``num/den = half/2``."""
    from fairtheory.proofs.potential_search import _kp as kp
    from fairtheory.proofs.potential_search import _local_gd, _row

    st, ev = _local_gd(Fraction(lo), Fraction(hi), 2, [Fraction(1, 2)] * 2, kappa, "rfedfair", (kp(1), kp(2)))
    st["bound"] = {"rho2": "0", "num": kp(half), "den": kp(2), "final": "each"}
    ob = K.obligations(K.canonical(st))["final"][0]
    ev["final"] = {"denominator": ["1"], "multipliers": [[_row(ob, i, None, ob.b.points[i][1][0]), kp(final_mult)]
                                                         for i in range(2)]}
    return {"kind": "pep-potential", "version": 1, "statement": st, "evidence": ev}


def test_the_trivial_bound_for_every_round() -> None:
    ok, why = K.explain_potential(_every_round())
    assert ok, why
    st = K.canonical(_every_round()["statement"])
    assert st["bound"]["final"] == "each" and K.bound_at(st, 1000, Fraction(1, 40)) == Fraction(1, 2)
    assert "every round's server model within the bound" in K.describe(st)
    assert K.to_json(st)["bound"]["final"] == "each"


@pytest.mark.parametrize("edit", [{"half": "9/10"},            # 9/20 < 1/2: false (x^2/2 with x0 = 1 at tiny steps)
                                  {"final_mult": "9/10"},      # multipliers that do not give 2 (G - G*) <= ||x - x*||^2
                                  {"hi": "5/2"}])              # steps past 2/L: the potential grows
def test_every_round_forgeries_are_refused(edit: dict) -> None:
    assert not K.check_potential(_every_round(**edit))


def test_every_round_needs_a_constant_bound() -> None:
    c = _every_round()
    c["statement"]["bound"]["num"] = [["1"], ["1"]]  # (1 + T_N)/2: the per-round rule does not state growing bounds
    assert "constant" in K.explain_potential(c)[1]
    c = _every_round()
    del c["statement"]["bound"]["final"]  # the average rule: B0/(w (T_N + 1)) = 1/(2 h (T_N + 1)) > 1/2 at T_N = 0
    assert not K.check_potential(c)
