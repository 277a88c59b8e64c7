"""Adversarial search (fairtheory.worstcase.adversarial) and its place in the claims' reports."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase.adversarial import (
    Choice,
    Integer,
    Interval,
    Simplex,
    Space,
    Vector,
    adversarial_max,
    ratio_of,
)
from verify.core import Context, Outcome, attach_adversarial, combine, run_claim
from verify.plugins import load_builtin

load_builtin()


def _bump(*, x: float, y: float) -> tuple[float, float]:
    """measured/bound = exp(-((x - 1.2)^2 + (y + 0.7)^2)): maximum 1 at (1.2, -0.7)."""
    return float(np.exp(-((x - 1.2) ** 2 + (y + 0.7) ** 2))), 1.0


SPACE = Space(x=Interval(-3.0, 3.0), y=Interval(-3.0, 3.0))


def test_finds_the_known_maximum_of_a_toy_ratio() -> None:
    res = adversarial_max(_bump, SPACE, seed=0, budget=200)
    assert res.ratio > 1.0 - 1e-6
    assert abs(res.instance["x"] - 1.2) < 1e-2 and abs(res.instance["y"] + 0.7) < 1e-2
    assert res.evaluations <= 200 and not res.violated
    assert res.measured == pytest.approx(res.ratio) and res.bound == 1.0


def test_deterministic_for_a_seed_and_budget() -> None:
    a = adversarial_max(_bump, SPACE, seed=3, budget=60)
    b = adversarial_max(_bump, SPACE, seed=3, budget=60)
    assert a.ratio == b.ratio and a.instance == b.instance and a.evaluations == b.evaluations
    c = adversarial_max(_bump, SPACE, seed=4, budget=60)
    assert c.instance != a.instance  # another seed, another path


def test_budget_is_respected_and_small_budgets_work() -> None:
    calls = []

    def counted(**kw: float) -> tuple[float, float]:
        calls.append(kw)
        return _bump(**kw)

    for budget in (1, 3, 7, 40):
        calls.clear()
        res = adversarial_max(counted, SPACE, seed=1, budget=budget)
        assert len(calls) == res.evaluations <= budget
        assert res.evaluations >= 1


def test_seed_instances_are_kept_and_known_values_are_not_recomputed() -> None:
    best = {"x": 1.2, "y": -0.7}
    res = adversarial_max(_bump, SPACE, seed=0, budget=6, x0=[best])
    assert res.ratio >= _bump(**best)[0] - 1e-12
    calls = []

    def counted(**kw: float) -> tuple[float, float]:
        calls.append(kw)
        return _bump(**kw)

    res = adversarial_max(counted, SPACE, seed=0, budget=4, x0=[best], x0_values=[(1.0, 1.0)])
    assert res.ratio == 1.0 and all(c != best for c in calls) and len(calls) == res.evaluations <= 4


def test_violations_are_counted_as_counterexamples() -> None:
    res = adversarial_max(lambda x: (x, 1.0), Space(x=Interval(0.0, 2.0)), seed=0, budget=30)
    assert res.violated and res.counterexample["measured"] > 1.0 and res.ratio > 1.0
    lower = adversarial_max(lambda x: (x, 0.5), Space(x=Interval(0.1, 1.0)), seed=0, budget=30, relation=">=")
    assert lower.violated and lower.ratio > 1.0  # bound/measured for a lower bound


def test_infeasible_instances_rank_below_feasible_ones() -> None:
    res = adversarial_max(lambda x: None if x < 0.5 else (x, 2.0), Space(x=Interval(0.0, 1.0)), seed=0, budget=40)
    assert res.instance["x"] >= 0.5 and 0.0 < res.ratio <= 0.5 + 1e-12
    none = adversarial_max(lambda x: None, Space(x=Interval(0.0, 1.0)), seed=0, budget=5)
    assert math.isnan(none.ratio) and none.instance is None and none.feasible == 0


def test_ratio_conventions_match_the_tally() -> None:
    assert ratio_of(1.0, 2.0) == (0.5, False)
    assert ratio_of(-1.0, 2.0) == (0.0, False)  # clipped at 0 like Tally.upper
    r, bad = ratio_of(1.0, 0.0)
    assert bad and math.isinf(r)  # a violation of a zero bound has no finite ratio
    r, bad = ratio_of(-1.0, 0.0)
    assert not bad and math.isnan(r)  # a sign condition that holds has no ratio
    assert ratio_of(2.0, 1.0, ">=") == (0.5, False)
    assert ratio_of(1.0 + 1e-13, 1.0) == (1.0 + 1e-13, False)  # float rounding slack, as in the Tally


def test_space_round_trips() -> None:
    sp = Space(p=Simplex(3), n=Integer(1, 5), c=Choice(("a", "b")), v=Vector(2, 1e-3, 1e3, log=True),
               fixed={"k": 7})
    inst = {"p": np.array([0.2, 0.3, 0.5]), "n": 4, "c": "b", "v": np.array([1.0, 10.0])}
    back = sp.decode(sp.encode(inst))
    assert np.allclose(back["p"], inst["p"]) and back["n"] == 4 and back["c"] == "b" and back["k"] == 7
    assert np.allclose(back["v"], inst["v"])
    assert sp.dimension == 3 + 1 + 1 + 2
    with pytest.raises(FairtheoryValueError):
        Interval(1.0, 0.0)
    with pytest.raises(FairtheoryValueError):
        Interval(0.0, 1.0, log=True)
    with pytest.raises(FairtheoryValueError):
        adversarial_max(_bump, SPACE, seed=0, budget=0)


def test_attach_refutes_on_a_found_violation_and_keeps_fields() -> None:
    out = Outcome("verified", measured=0.5, bound=1.0, margin=0.5, tightness=0.5, relation="<=")
    res = adversarial_max(lambda x: (x, 1.0), Space(x=Interval(0.0, 2.0)), seed=0, budget=20)
    attach_adversarial(out, res, what="toy")
    assert out.status == "refuted" and out.counterexample["found_by"] == "adversarial search"
    assert "ADVERSARIAL SEARCH FOUND A VIOLATION" in out.note
    assert out.tightness == 0.5 and out.adversarial == res.ratio
    ok = attach_adversarial(Outcome("verified", tightness=0.2, margin=0.1, relation="<="),
                            adversarial_max(lambda x: (x, 4.0), Space(x=Interval(0.0, 1.0)), seed=0, budget=20))
    assert ok.status == "verified" and 0.2 < ok.adversarial <= 0.25 + 1e-12
    merged = combine({"a": ok, "b": Outcome("verified", tightness=0.1, margin=5.0, relation="<=")})
    assert merged.adversarial == ok.adversarial  # carried from the headline part
    assert merged.details["parts"]["a"]["adversarial"] == ok.adversarial


@pytest.mark.parametrize("claim_id", ["rcfl.prop1.softplus", "rcfl.remark2.eta_range", "qffl.lemma10.holder",
                                      "rcfl.theorem1.v002"])
def test_claims_report_adversarial_at_least_the_sampled_tightness(claim_id: str) -> None:
    # these searches start at the worst sampled instance, a point of their search space
    r = run_claim(claim_id, Context(quick=True, seed=0))
    assert r.status == r.expected
    assert r.tightness is not None and r.adversarial is not None
    # the seed is re-evaluated through the space's decoding: equal up to float64 rounding
    assert r.adversarial >= r.tightness * (1 - 1e-12)
    summary = r.details["adversarial"]
    assert summary["evaluations"] <= summary["budget"] and summary["what"]
    doc = json.loads(json.dumps(r.to_json()))
    assert doc["adversarial"] == r.adversarial and "worstcase" in doc


def test_theorem_claims_report_the_pep_worst_case() -> None:
    r = run_claim("rcfl.theorem1.v000", Context(quick=True, seed=0))
    assert r.worstcase is not None and r.tightness is not None
    assert r.tightness <= r.worstcase <= 1.0  # sampled (logistic) below the exact worst case, both below the bound
    assert "G - G*" in r.details["worstcase"]["what"] and "mu tau_alpha" in r.details["worstcase"]["what"]


def test_reports_show_three_ratios() -> None:
    from verify.report import to_markdown
    from verify.runner import results_table

    r = run_claim("rcfl.prop1.softplus", Context(quick=True, seed=0))
    md = to_markdown([r], {"mode": "quick"})
    assert "| adversarial | worst case |" in md
    row = next(line for line in md.splitlines() if line.startswith("| `rcfl.prop1.softplus`"))
    assert f"{r.adversarial:.4g}" in row
    cols = [c.header for c in results_table([r]).columns]
    assert {"tight", "adv", "worst"} <= set(cols)
