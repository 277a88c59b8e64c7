"""PEPit parity: our builder on PEPit 0.5.1's examples vs their documented tight values.

Ground truth: the closed forms the examples cite (recomputed here, independently of the module) and the
worst-case values printed in the examples' own docstrings (6 significant digits, PEPit + MOSEK)."""

from __future__ import annotations

import math

import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase.pepit_examples import EXAMPLES, REL_TOL, run_example

#: "PEPit guarantee" lines printed in the examples' docstrings, at their published parameters
DOCUMENTED = {
    "gradient_descent": 0.166667,
    "subgradient_method": 0.755929,
    "proximal_point": 0.0208333,
    "optimized_gradient": 0.0767518,
    "inexact_gradient_descent": 0.518917,
    "gradient_descent_contraction": 0.81,
    "polyak_steps_in_distance_to_optimum": 0.669421,
    "polyak_steps_in_function_value": 0.669421,
    "sgd_overparametrized": 1.69,
    "proximal_gradient": 0.6561,
    "accelerated_proximal_gradient_simplified": 0.0526316,
    "douglas_rachford_splitting_contraction": 0.350128,
    "nonconvex_gradient_descent": 0.266667,
}

FAST = ["gradient_descent", "subgradient_method", "proximal_gradient_projected", "nonconvex_gradient_descent"]


def _closed_form(name: str, p: dict) -> float:
    """The tight values, written out again from the cited papers."""
    if name == "gradient_descent":
        return p["L"] / (4 * p["n"] * p["L"] * p["gamma"] + 2)
    if name == "subgradient_method":
        return p["M"] / math.sqrt(p["n"] + 1)
    if name in ("proximal_gradient", "proximal_gradient_projected"):
        return max((1 - p["mu"] * p["gamma"]) ** 2, (1 - p["L"] * p["gamma"]) ** 2) ** p["n"]
    if name == "nonconvex_gradient_descent":
        return 4 * p["L"] / (3 * p["n"])
    raise KeyError(name)


def test_at_least_twelve_examples_and_claims_registered() -> None:
    import verify.claims.pepit_parity  # noqa: F401
    from verify.core import REGISTRY

    assert len(EXAMPLES) >= 12
    for name in EXAMPLES:
        spec = REGISTRY[f"base.pepit.{name}"]
        assert spec.expected == "verified"


@pytest.mark.parametrize("name", FAST)
def test_fast_examples_match_closed_form(name: str) -> None:
    ex = EXAMPLES[name]
    r = ex.run(**ex.quick[0])
    truth = _closed_form(name, ex.quick[0])
    assert r.theory == pytest.approx(truth, rel=1e-14)
    assert abs(r.ours - truth) <= REL_TOL * truth
    assert r.agrees and r.seconds > 0 and abs(r.gap) <= 1e-6


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_documented_pepit_outputs(name: str) -> None:
    """Our value rounds to the number PEPit's docstring prints (6 significant digits)."""
    r = run_example(name)
    doc = DOCUMENTED[name]
    assert float(f"{r.ours:.6g}") == doc or abs(r.ours - doc) <= 5e-6 * doc


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_all_examples_all_parameters(name: str) -> None:
    ex = EXAMPLES[name]
    for p in ex.quick + ex.full:
        r = ex.run(**p)
        assert r.agrees, (p, r.ours, r.theory, r.rel_diff)


def test_inexact_gradient_claim_verified_after_gmp_resolve() -> None:
    """base.pepit.inexact_gradient_descent used to be refuted with the counterexample epsilon = 0, n = 2 (1.3e-6
    relative) and epsilon = 0.1, n = 4 (2.6e-6): artefacts of float accuracy.  The float solve of the n = 4 PEP still
    misses (raw=True); a GMP re-solve (SDPA-GMP) meets the paper's closed form ((L_eps - mu_eps)/(L_eps + mu_eps))^(2n)
    to 1e-12 - the same tolerance-free ground truth, computed here - and the default route (float first, then an exact
    repair) brackets it with a proved upper end within 1e-7."""
    import verify.claims.pepit_parity  # noqa: F401
    from fairtheory.worstcase.checked_solve import gmp_available
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP
    from verify.core import Context, run_claim

    res = run_claim("base.pepit.inexact_gradient_descent", Context(quick=True))
    assert res.status == "verified" and res.as_expected
    if not gmp_available():
        pytest.skip("SDPA-GMP (sdpa-multiprecision) not installed")
    L, mu, eps, n = 1.0, 0.1, 0.1, 4
    Le, me = (1 + eps) * L, (1 - eps) * mu
    truth = ((Le - me) / (Le + me)) ** (2 * n)

    def build() -> PEP:
        pep = PEP()
        f = pep.function(SmoothStronglyConvex(L, mu))
        f.optimum()
        x = pep.vector()
        pep.add_le(f.value(x) - 1)
        for _ in range(n):
            x = x - (2 / (Le + me)) * f.inexact_grad(x, eps)
        pep.maximize(f.value(x))
        return pep

    floats = build().solve(raw=True)                      # the bare float solve (no repair, no GMP)
    assert abs(floats.value - truth) > 1e-6 * truth       # the float solve alone: the old counterexample
    exact = build().solve(gmp="always")
    assert exact.solver == "sdpa-gmp" and exact.status == "Solved"
    assert abs(exact.value - truth) <= 1e-12 * truth
    repaired = build().solve()                            # float first + exact repair, the default route
    assert repaired.status == "Solved" and repaired.value_is in ("upper", "exact", "gmp")
    assert repaired.upper >= truth * (1 - 1e-15) and abs(repaired.value - truth) <= 1e-7 * truth


def test_unknown_example_and_bad_n() -> None:
    with pytest.raises(FairtheoryValueError, match="name"):
        run_example("nope")
    with pytest.raises(FairtheoryValueError, match="n"):
        run_example("gradient_descent", L=1.0, gamma=1.0, n=0)
