"""The held-out hostile sweep of the public worst-case API (``benchmarks/bench_hostile.py``, issue 41).

Default: the sweep's quick subset (every surface: catalogue, scaled examples, closed forms, unbounded problems, bad
arguments) - no wrong value, no poor failure outside :data:`KNOWN_POOR` (each a finding owned by another module, with
its reason), at most 3 poor failures; and one regression test per wrong value or poor failure the sweep found and this
change fixed.  ``slow``: the full sweep (476 calls): only the known findings of other modules, and issue 41's
acceptance (0 wrong values, at most 3 poor failures) as a strict xfail until those are fixed.

Ground truth: the closed forms named in the benchmark's module doc, PEPit 0.5.1's printed values (past extragradient:
``0.0813424`` at ``n = 4``, ``0.0602664`` at ``n = 5``, the examples' docstrings), and homogeneity against the same
problem at scale 1.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from fairtheory.errors import FairtheoryError, FairtheoryTypeError, FairtheoryValueError


def _bench() -> Any:
    name = "bench_hostile_for_tests"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_hostile.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


#: poor failures the sweep still finds, each in a module outside this sweep's fixes, and why
KNOWN_POOR = {
    # the sparse route: ||x_60 - x*||^2 = 0.9^120 is 2^-18 of its unit, a cancelling combination of O(1) Gram entries;
    # a named refusal quoting the proved upper bound 3.2292572e-06 (truth 3.2292460e-06), never the solver's point
    "hand GD distance L=1 mu=0.1 h=1 N=60",
    # mu -> L (classes' interpolation rows carry 1/(L - mu) = 1e9): InsufficientProgress, SolverError
    "hand GD distance L=1 mu=0.999999999 h=0.5 N=3",
}
#: wrong values the sweep still finds, outside the modules of this change
KNOWN_WRONG = {
    # the contraction (1e-6)^4 = 1e-24 at mu = 1 - 1e-6: SDPA-GMP's 9.999984e-25, 1.6e-6 relative below (its accuracy
    # is absolute, 1.6e-30; the same GMP solve with the objective scaled by 2^40..2^80 ends noINFO)
    "hand GD distance L=1 mu=0.999999 h=1 N=2",
}


def _assert_sweep(done: dict[str, Any], max_poor: int = 3) -> None:
    wrong = {k: o.detail for k, o in done.items() if o.klass == "wrong value"}
    poor = {k: o.detail for k, o in done.items() if o.klass == "poor failure"}
    assert not wrong, wrong
    assert set(poor) <= KNOWN_POOR, {k: v for k, v in poor.items() if k not in KNOWN_POOR}
    assert len(poor) <= max_poor, poor


def test_quick_sweep() -> None:
    B = _bench()
    calls = B.build(full=False)
    assert len(calls) >= 30 and {c.surface for c in calls} == {"catalogue", "scaled examples", "closed forms",
                                                                "unbounded", "bad arguments"}
    _assert_sweep(B.run_sweep(calls, None, log=lambda _s: None))


@pytest.fixture(scope="module")
def full_sweep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    B = _bench()
    calls = B.build(full=True)
    done = B.run_sweep(calls, str(tmp_path_factory.mktemp("hostile") / "hostile.json"), log=lambda _s: None)
    assert len(done) == len(calls)
    return done


@pytest.mark.slow
def test_full_sweep_finds_only_the_known_findings(full_sweep: dict[str, Any]) -> None:
    """Every surface of this change's modules clean; what is left is :data:`KNOWN_POOR` / :data:`KNOWN_WRONG`."""
    wrong = {k: o.detail for k, o in full_sweep.items() if o.klass == "wrong value"}
    poor = {k: o.detail for k, o in full_sweep.items() if o.klass == "poor failure"}
    assert set(wrong) <= KNOWN_WRONG, {k: v for k, v in wrong.items() if k not in KNOWN_WRONG}
    assert set(poor) <= KNOWN_POOR, {k: v for k, v in poor.items() if k not in KNOWN_POOR}


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 41's acceptance not met yet: KNOWN_WRONG and KNOWN_POOR (3 calls, in "
                   "checked_solve, sparse_solve and the classes' mu -> L rows)")
def test_full_sweep_acceptance(full_sweep: dict[str, Any]) -> None:
    """Issue 41: a held-out hostile sweep with 0 wrong values and at most 3 poor failures."""
    _assert_sweep(full_sweep)


def test_sweep_is_seeded() -> None:
    B = _bench()
    a = [c.cid for c in B.build(full=True)]
    b = [c.cid for c in B.build(full=True)]
    assert a == b and len(a) == len(set(a))


def test_classification_of_the_runner() -> None:
    """The classes themselves: a raw exception on invalid input is poor, a named one a refusal, a finite value for an
    unbounded problem wrong, an exception on valid input poor, a timeout poor."""
    B = _bench()
    B._NAMED.clear()
    B._NAMED.update(B._named_types())

    def klass(fn: Any, oracle: Any, timeout: float = 20.0) -> str:
        c = B.Call("x", "s", fn, oracle, timeout)
        res, _ = B.run_one(c)
        return B.classify(c, res, {})[0]

    def raw() -> None:
        raise ZeroDivisionError("x")

    def named() -> None:
        raise FairtheoryValueError("n must be >= 1")

    assert klass(raw, B.Refuse("n")) == "poor failure"
    assert klass(named, B.Refuse("n")) == "correct refusal"
    assert klass(lambda: 1.0, B.Refuse("n")) == "poor failure"
    assert klass(lambda: 1.0, B.Unbounded()) == "wrong value"
    assert klass(lambda: math.inf, B.Unbounded()) == "correct"
    assert klass(lambda: math.inf, B.Val(1.0)) == "wrong value"
    assert klass(lambda: 1.0 + 1e-5, B.Val(1.0)) == "wrong value"
    assert klass(lambda: 1.0 + 1e-8, B.Val(1.0)) == "correct"
    assert klass(named, B.Val(1.0)) == "poor failure"
    assert klass(lambda: __import__("time").sleep(5), B.Finite(), timeout=0.5) == "poor failure"


# ------------------------------------------------------------------ regressions: wrong values found and fixed
@pytest.mark.parametrize("L", [4.0, 22.5, 3.0])
def test_past_extragradient_off_unit_scale(L: float) -> None:
    """Found by the sweep: past extragradient (n = 5) at ``L = 22.5``, ``gamma = 0.25/L`` returned 0.0602652692
    ("Solved", reported as an upper bound) - 1.85e-5 relative below its value at ``L = 1`` (0.0602663812; PEPit 0.5.1:
    0.0602664), at ``L = 4`` 6e-6 below; the example left ``L`` within ``2^+-4`` of 1 unnormalised.  Now every ``L != 1``
    is normalised (homogeneity)."""
    from fairtheory.worstcase import pepit_operator_examples as OE

    base = OE.past_extragradient()
    assert abs(base.value - 0.0602664) <= 1e-6 * 0.0602664
    r = OE.past_extragradient(L=L, gamma=0.25 / L)
    assert r.status in ("Solved", "AlmostSolved")
    assert abs(r.value - base.value) <= 1e-7 * base.value
    assert r.params["L"] == L   # the caller's parameters, as given


@pytest.mark.parametrize("mu", [1e5, 1e-5, 0.1])
def test_gradient_flow_at_every_scale(mu: float) -> None:
    """Found by the sweep: ``dV/dt = -2 mu`` (tight, attained by ``mu/2 ||x||^2``) came out -200014.97 at ``mu = 1e5``
    (7.5e-5 relative, "Solved"): the example was not posed in its units."""
    from fairtheory.worstcase import pepit_examples as E

    r = E.gradient_flow_strongly_convex(mu=mu)
    assert r.status in ("Solved", "AlmostSolved") and abs(r.ours + 2 * mu) <= 1e-6 * 2 * mu


@pytest.mark.parametrize("gamma", [1e-5, 10 / 30300, 1e5])
def test_relatively_inexact_proximal_point_is_homogeneous(gamma: float) -> None:
    """Found by the sweep: at ``gamma = 1e-5`` (n = 3, sigma = 0.65) the value was 18031.68 where homogeneity gives
    ``1e6`` times the value at ``gamma = 10`` (16261.36; 11% too high, "Solved"), 6.7e-5 off at ``gamma = 10/30300``.
    The value unit is free (``||x_0 - x*||^2 <= 1``): value times ``gamma`` is scale-free; and below the paper's bound
    ``(1 + sigma)/(4 gamma n^sqrt(1 - sigma^2))`` (Barre, Taylor & Bach 2023, Thm 3.2)."""
    from fairtheory.worstcase import pepit_examples as E

    base = E.relatively_inexact_proximal_point_algorithm(n=3, gamma=10.0)
    r = E.relatively_inexact_proximal_point_algorithm(n=3, gamma=gamma)
    assert abs(r.ours * gamma - base.ours * 10.0) <= 1e-6 * base.ours * 10.0
    assert r.ours <= r.theory * (1 + 1e-6)


@pytest.mark.parametrize("L", [1e6, 1e-6])
def test_no_lips_at_extreme_scales(L: float) -> None:
    """Found by the sweep: NoLips in function value at ``L = 1e6``, ``gamma = 1/(2L)`` raised SolverError (AlmostSolved);
    tight value ``1/(gamma n) = 2 L/3`` (Dragomir, Taylor, d'Aspremont & Bolte 2021, Thm 1); in Bregman divergence
    ``2/(n(n - 1)) = 1/3`` at ``n = 3`` (Thm 2)."""
    from fairtheory.worstcase import pepit_examples as E

    r = E.no_lips_in_function_value(L=L, gamma=0.5 / L)
    assert abs(r.ours - 2 * L / 3) <= 1e-6 * 2 * L / 3
    r = E.no_lips_in_bregman_divergence(L=L, gamma=1 / L, n=3)
    assert abs(r.ours - 1 / 3) <= 1e-6 / 3


def test_past_extragradient_at_n4_is_pepits() -> None:
    """Issue 41: ``n = 4`` raised SolverError while 3 and 5 solved; PEPit 0.5.1: 0.0813424."""
    from fairtheory.worstcase import pepit_operator_examples as OE

    r = OE.past_extragradient(n=4)
    assert r.status in ("Solved", "AlmostSolved") and abs(r.value - 0.0813424) <= 1e-6 * 0.0813424


# ------------------------------------------------------------------ regressions: poor failures found and fixed
def _pair() -> tuple[Any, Any, Any]:
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP

    p1, p2 = PEP(), PEP()
    f = p1.function(SmoothStronglyConvex(1.0, 0.0))
    x = p1.vector()
    for _ in range(3):
        p2.vector()
    return f, x, p2.vector()


def test_steps_refuse_a_vector_of_another_pep() -> None:
    """Issue 41: ``steps.inexact_gradient`` accepted a vector of another PEP (so did every step and the operator
    oracles)."""
    from fairtheory.worstcase import operators as O
    from fairtheory.worstcase import steps as S
    from fairtheory.worstcase.sdp import PEP

    f, x, y = _pair()
    for fn, arg in ((lambda: S.inexact_gradient(f, y, 0.1), "x"),
                    (lambda: S.inexact_gradient(f, y, 0.1, notion="relative"), "x"),
                    (lambda: S.epsilon_subgradient_step(f, y, 0.1), "x0"),
                    (lambda: S.exact_linesearch_step(f, y, [x]), "x0"),
                    (lambda: S.exact_linesearch_step(f, x, [y]), "directions[0]"),
                    (lambda: S.inexact_proximal_step(f, y, 1.0), "x0"),
                    (lambda: S.bregman_gradient_step(f, y, x, 1.0), "sx0"),
                    (lambda: S.bregman_proximal_step(f, f, y, 1.0), "sx0"),
                    (lambda: S.Combination([(1.0, f)]).oracle(y), "x")):
        with pytest.raises(FairtheoryValueError, match=re.escape(arg) + " is a vector of another PEP"):
            fn()
    p1, p2 = PEP(), PEP()
    A = O.operator(p1, O.Monotone())
    for _ in range(2):
        p2.vector()
    z = p2.vector()
    with pytest.raises(FairtheoryValueError, match="x is a vector of another PEP"):
        O.apply(A, z)
    with pytest.raises(FairtheoryValueError, match="y is a vector of another PEP"):
        O.resolvent(A, z, 1.0)
    # the vectors of its own PEP still pass
    assert S.inexact_gradient(f, x, 0.1) is not None
    assert O.apply(A, p1.vector()) is not None


@pytest.mark.parametrize("name, kw, arg", [
    ("gradient_descent", {"gamma": -1.0}, "gamma"),        # was solved (77084.87, "Solved")
    ("epsilon_subgradient_method", {"gamma": math.nan}, "gamma"),   # raw ValueError
    ("epsilon_subgradient_method", {"eps": "0.1"}, "eps"),          # raw TypeError
    ("gradient_descent", {"n": 0}, "n"),
    ("gradient_descent", {"n": True}, "n"),
    ("subgradient_method", {"M": math.inf}, "M"),
    ("bregman_proximal_point", {"gamma": "3"}, "gamma"),
])
def test_examples_validate_by_name(name: str, kw: dict[str, Any], arg: str) -> None:
    from fairtheory.worstcase import pepit_examples as E

    with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=rf"^{arg} must be"):
        E.run_example(name, **kw)
    with pytest.raises(FairtheoryError, match=rf"^{arg} must be"):
        getattr(E, name)(**kw)


def test_operator_examples_validate_by_name() -> None:
    from fairtheory.worstcase import pepit_operator_examples as OE

    for fn, kw, arg in ((OE.past_extragradient, {"L": "1"}, "L"), (OE.optimistic_gradient, {"gamma": -0.25}, "gamma"),
                        (OE.douglas_rachford_splitting, {"mu": -0.5}, "mu"), (OE.proximal_point, {"n": 0}, "n"),
                        (OE.three_operator_splitting, {"beta": math.nan}, "beta")):
        with pytest.raises(FairtheoryError, match=rf"^{arg} must be"):
            fn(**kw)
    with pytest.raises(FairtheoryError, match="^alpha must be"):
        OE.run_operator_example("proximal_point", alpha=0.0)
    # published parameters: still solved
    assert OE.run_operator_example("proximal_point").ours > 0
    assert OE.douglas_rachford_splitting(mu=2.0).ours > 0   # mu > L is valid (two different operators)


def test_closed_forms_validate_by_name() -> None:
    """Found by the sweep: ``afl_paper_steps(2, G_lam=0)`` raised ZeroDivisionError, ``D_w = nan`` was accepted;
    ``ppm_huber_value`` accepted ``N = 0``, ``L < 0``, ``gamma = nan`` and raised TypeError on a string."""
    from fairtheory.worstcase.minmax import afl_paper_bound, afl_paper_steps, gda_classical_bound
    from fairtheory.worstcase.proximal_point import ppm_huber_replay, ppm_huber_value

    for fn, arg in ((lambda: afl_paper_steps(2, G_lam=0.0), "G_lam"), (lambda: afl_paper_steps(2, D_w=math.nan), "D_w"),
                    (lambda: afl_paper_bound(2, D_lam=-1.0), "D_lam"),
                    (lambda: gda_classical_bound(2, 0.0, 0.1), "lr"),
                    (lambda: ppm_huber_value(L=1.0, D0=1.0, gamma=1.0, N=0), "N"),
                    (lambda: ppm_huber_value(L=-1.0, D0=1.0, gamma=1.0, N=2), "L"),
                    (lambda: ppm_huber_value(L=1.0, D0=1.0, gamma=math.nan, N=2), "gamma"),
                    (lambda: ppm_huber_value(L=1.0, D0="1", gamma=1.0, N=2), "D0"),
                    (lambda: ppm_huber_replay(L=1.0, D0=1.0, gamma=1.0, N=-1), "N")):
        with pytest.raises(FairtheoryError, match=rf"^{arg} must"):
            fn()
    assert afl_paper_steps(4) == (1.0, 1.0)
    assert ppm_huber_value(L=1.0, D0=1.0, gamma=1.0, N=2) == pytest.approx(0.1, rel=1e-15)
