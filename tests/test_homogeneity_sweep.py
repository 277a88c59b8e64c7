"""Homogeneity as one mechanism (issue 41): every class, operator and step declares how its parameters scale
(:mod:`fairtheory.worstcase.units`), and a worst case at the scales ``(a, b)`` of space and value is ``a^p b^q`` times
the scale-1 value (``p, q`` the measure's dimension).

Ground truth: homogeneity itself (an exact identity of the PEPs, Drori & Teboulle 2014, Sec. 2) against the value at
scale 1, and the closed forms of the cited theorems: Teboulle 2018 Thm 4.1 (Bregman proximal point ``1/(gamma n)``),
Drori & Teboulle 2016 (subgradient method ``M R/sqrt(N + 1)``), Cauchy-Schwarz for AFL at ``T = 1``
(``D_w G_w + D_lam G_lam``), an explicit quadratic instance for noisy GD (``f = ||x||^2/2``: ``L lr^2 sigma2/2``).
The default part runs the issue's examples; the sweep over every class and scale is ``slow``.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction
from typing import Any

import pytest

from fairtheory.algorithms import afl, fedavg
from fairtheory.worstcase import classes as C
from fairtheory.worstcase import operators as O
from fairtheory.worstcase import pepit_examples as E
from fairtheory.worstcase import pepit_operator_examples as OE
from fairtheory.worstcase import units
from fairtheory.worstcase.classes import ConvexIndicator, ConvexLipschitz, rescale
from fairtheory.worstcase.minmax import afl_paper_steps, minmax_worst_case
from fairtheory.worstcase.sdp import PEP, sqnorm
from fairtheory.worstcase.traced import worst_case

RTOL = 1e-7
SCALES = [1e-6, 1e-3, 1.0, 1e3, 1e6]


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


# ------------------------------------------------------------------ the declarations
CLASSES: list[Any] = [C.SmoothStronglyConvex(2.0, 0.5), C.Convex(), C.ConvexLipschitz(3.0), C.ConvexIndicator(D=2.0, R=5.0),
                      C.SmoothNonconvex(2.0), C.StronglyConvex(0.5), C.SmoothConvexLipschitz(2.0, 3.0),
                      C.SmoothStronglyConvexQuadratic(2.0, 0.5), C.ConvexSupport(3.0), C.ConvexQG(2.0),
                      C.RsiEb(0.5, 2.0), C.SmoothQuadraticLojasiewicz(2.0, 0.5)]
OPERATORS: list[Any] = [O.Monotone(), O.StronglyMonotone(0.5), O.Lipschitz(2.0), O.LipschitzStronglyMonotone(2.0, 0.5),
                        O.Cocoercive(0.5), O.CocoerciveStronglyMonotone(0.5, 0.5), O.NegativelyComonotone(0.5),
                        O.Linear(2.0), O.SymmetricLinear(2.0, 0.5), O.SkewSymmetricLinear(2.0)]


def test_every_class_and_operator_declares_its_dimensions() -> None:
    for cls in CLASSES + OPERATORS + [O.Nonexpansive()]:
        dims = units.dimensions(cls)
        for name in dims:
            assert hasattr(cls, name), (cls, name)
    with pytest.raises(TypeError, match="declares no dimensions"):
        units.dimensions(object())


@pytest.mark.parametrize("a, b", [(1.0, 1.0), (2.0 ** 10, 2.0 ** -7), (1e3, 1e-6), (3.0, 7.0)])
def test_rescale_follows_the_declarations(a: float, b: float) -> None:
    """``rescale`` (classes) and ``rescaled`` (operators) give every parameter ``c / (a^p b^q)`` (rounded once)."""
    for cls in CLASSES + OPERATORS:
        new = rescale(cls, a, b)
        for name, (p, q) in units.dimensions(cls).items():
            c = getattr(cls, name)
            if c is None or (isinstance(c, float) and math.isinf(c)):
                continue
            want = Fraction(c) / (Fraction(a) ** p * Fraction(b) ** q)
            assert rel(float(getattr(new, name)), float(want)) <= 1e-15, (cls, name)


def test_pow2_is_exact_and_keeps_unit_scale() -> None:
    assert units.pow2(3e6) == 2 ** 22 and units.pow2(1e-6) == Fraction(1, 2 ** 20)
    assert units.pow2(3.0, dead_zone=True) == 1 and units.pow2(3e6, dead_zone=True) == 2 ** 22
    assert units.pow2(float("inf")) == 1 and units.pow2(0.0) == 1
    with pytest.raises(ValueError, match="positive"):
        units.factor(1, 1, 0.0, 1.0)


# ------------------------------------------------------------------ the wrong values
@pytest.mark.parametrize("gamma", [3e-6, 3.0, 3e6])
def test_bregman_proximal_point_at_every_step(gamma: float) -> None:
    """Teboulle 2018, Thm 4.1: ``1/(gamma n)``, tight (issue 41: 3x too high at gamma = 3e6, n = 5)."""
    r = E.bregman_proximal_point(gamma=gamma, n=5)
    assert r.status in ("Solved", "AlmostSolved") and rel(r.ours, 1 / (gamma * 5)) <= RTOL


@pytest.mark.parametrize("s", [1e-6, 1e6])
def test_epsilon_subgradient_is_homogeneous(s: float) -> None:
    """Space and value both scaled by ``s`` (M fixed, R, eps, gamma times s): the value times s (issue 41: wrong by 6%
    and 20x before)."""
    gm = 1 / math.sqrt(7)
    base = E.epsilon_subgradient_method(M=2.0, n=6, eps=0.1, R=1.0, gamma=gm).ours
    v = E.epsilon_subgradient_method(M=2.0, n=6, eps=0.1 * s, R=s, gamma=gm * s).ours
    assert rel(v, base * s) <= RTOL


@pytest.mark.parametrize("M", [1.0, 1e4, 1e-4])
def test_traced_convex_lipschitz_is_drori_teboulle(M: float) -> None:
    """Subgradient steps ``R/(M sqrt(N+1))``, best iterate: ``M R/sqrt(N+1)`` (issue 41: 2108.85 for 4472.14 at M = 1e4)."""
    N = 4
    v = worst_case(fedavg.make, N, n=1, D0=1, rho2=0, function_class=ConvexLipschitz(M), lr=1 / (M * math.sqrt(N + 1)),
                   output="best").value
    assert rel(v, M / math.sqrt(N + 1)) <= RTOL


def test_afl_one_step_meets_cauchy_schwarz_at_unbalanced_scales() -> None:
    """T = 1: ``D_w G_w + D_lam G_lam = 1001`` exactly (issue 41: 1001.18 above the bound; before this change the
    paper's steps raised SolverError)."""
    kw = {"D_w": 1e3, "D_lam": 0.01, "G_w": 1.0, "G_lam": 100.0}
    lr, dual_lr = afl_paper_steps(1, **kw)
    v = minmax_worst_case(afl.make, 1, lr=lr, dual_lr=dual_lr, **kw).value
    assert rel(v, 1001.0) <= RTOL


@pytest.mark.parametrize("s", [1e-3, 1e3])
def test_afl_two_spaces_scale_separately(s: float) -> None:
    """Primal space by ``s``, dual space by ``1/s``, value fixed: the gap is the same (the two spaces' own units)."""
    base = minmax_worst_case(afl.make, 2, lr=0.5, dual_lr=0.25).value
    v = minmax_worst_case(afl.make, 2, lr=0.5 * s * s, dual_lr=0.25 / (s * s), D_w=s, D_lam=1 / s, G_w=1 / s,
                          G_lam=s).value
    assert rel(v, base) <= RTOL


def test_fedavg_noise_variance_is_normalised() -> None:
    """One GD step, lr = 1/2, L = 1, D0 = 1: an explicit instance (``f = ||x||^2/2``, two atoms ``+-sigma``) reaches
    ``L lr^2 sigma2/2 = 1.25e11`` at sigma2 = 1e12 (issue 41: 3.5e10 before)."""
    v = worst_case(fedavg.make, 1, n=1, L=1, D0=1, rho2=0, sigma2=1e12, lr=0.5).value
    assert v >= 1.25e11 * (1 - RTOL)
    assert v <= 1.25e11 * (1 + RTOL)   # and the deterministic part (<= 1/4) is below the solver's tolerance there


@pytest.mark.parametrize("b", [1e-6, 1e6])
def test_fedavg_noise_value_unit(b: float) -> None:
    """Value unit ``b``: ``L b``, ``sigma2 b^2``, ``lr / b``, ``D0`` fixed: the value times ``b``."""
    base = worst_case(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, sigma2=4.0, lr=0.5).value
    v = worst_case(fedavg.make, 2, n=1, L=b, D0=1, rho2=0, sigma2=4.0 * b * b, lr=0.5 / b).value
    assert rel(v, base * b) <= RTOL


def test_indicator_radius_diameter() -> None:
    """Two points of a convex set in a ball of radius ``R``: ``max ||x - y||^2 = (2R)^2`` (issue 41: 1.147e8 for 4e8;
    the hand-written builder's units, checked_solve.pep_units, now read the declared radius)."""
    R = 1e4
    pep = PEP()
    c = pep.function(ConvexIndicator(R=R))
    x, y = pep.vector(), pep.vector()
    c.oracle(x)
    c.oracle(y)
    pep.maximize(sqnorm(x - y))
    assert rel(pep.solve().value, (2 * R) ** 2) <= RTOL


# ------------------------------------------------------------------ the sweep (slow)
SWEEP_CLASSES: list[tuple[Any, float, str]] = [   # (class at scale 1, step at scale 1, measure)
    (C.SmoothStronglyConvex(1.0, 0.1), 1.0, "value"),
    (C.ConvexLipschitz(1.0), 0.5, "value"),
    (C.SmoothNonconvex(1.0), 1.0, "grad_norm"),
    (C.SmoothConvexLipschitz(1.0, 1.0), 1.0, "value"),
    (C.SmoothStronglyConvexQuadratic(1.0, 0.1), 1.0, "value"),
    (C.ConvexSupport(1.0), 0.5, "value"),
    (C.ConvexQG(1.0), 0.5, "value"),
    (C.RsiEb(0.1, 1.0), 0.5, "distance"),
    (C.SmoothQuadraticLojasiewicz(1.0, 0.2), 1.0, "value"),
    (O.Cocoercive(1.0), 1.0, "distance"),
    (O.LipschitzStronglyMonotone(1.0, 0.2), 0.5, "distance"),
    (O.SymmetricLinear(1.0, 0.1), 1.0, "distance"),
]
MEASURE_DIM = {"value": units.VALUE, "grad_norm": units.VAR, "distance": (2, 0)}


def _scaled_class(cls: Any, a: float, b: float) -> Any:
    """The class at space unit ``a`` and value unit ``b``: ``rescale`` by ``(1/a, 1/b)`` multiplies every parameter by
    ``a^p b^q``."""
    return rescale(cls, 1 / a, 1 / b) if not getattr(cls, "is_operator", False) else cls.rescaled(1 / a, 1 / b)


@pytest.mark.slow
@pytest.mark.parametrize("cls, lr, measure", SWEEP_CLASSES, ids=[repr(c) for c, _, _ in SWEEP_CLASSES])
@pytest.mark.parametrize("a, b", [(s, s) for s in SCALES] + [(1.0, s) for s in SCALES if s != 1.0]
                         + [(s, 1.0) for s in SCALES if s != 1.0])
def test_sweep_traced_class(cls: Any, lr: float, measure: str, a: float, b: float) -> None:
    """Two GD steps on the class at the units ``(a, b)``: the value is ``a^p b^q`` times the scale-1 value."""
    base = worst_case(fedavg.make, 2, n=1, D0=1.0, rho2=0, function_class=cls, lr=lr, measure=measure).value
    v = worst_case(fedavg.make, 2, n=1, D0=a * a, rho2=0, function_class=_scaled_class(cls, a, b), lr=lr * a * a / b,
                   measure=measure).value
    p, q = MEASURE_DIM[measure]
    assert rel(v, base * a ** p * b ** q) <= RTOL


#: (example, parameters at scale 1 (its defaults where omitted; the unit-fixing parameter 1, so that every scale
#: normalises onto exactly these data), exponent of the free unit s per parameter, the measure's exponent).  Each
#: example fixes one unit by its initial condition; a curvature L, mu or a gradient bound M scales as s, a step size
#: as 1/s; the measure: a function value s (distance fixed) or s^0 (a ratio of values or of distances), a squared
#: gradient s (value fixed, s = a^-2).
EXAMPLES: list[tuple[str, dict[str, Any], dict[str, int], int]] = [
    ("gradient_descent", {"L": 1.0, "gamma": 1.0}, {"L": 1, "gamma": -1}, 1),
    ("subgradient_method", {"M": 1.0}, {"M": 1}, 1),
    ("proximal_point", {"gamma": 1.0}, {"gamma": -1}, 1),
    ("bregman_proximal_point", {"gamma": 1.0}, {"gamma": -1}, 1),
    ("optimized_gradient", {"L": 1.0}, {"L": 1}, 1),
    ("optimized_gradient_for_gradient", {"L": 1.0}, {"L": 1}, 1),
    ("inexact_gradient_descent", {}, {"L": 1, "mu": 1}, 0),
    ("gradient_descent_contraction", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("proximal_gradient", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("proximal_gradient_projected", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("accelerated_proximal_gradient_simplified", {}, {"L": 1, "mu": 1}, 1),
    ("douglas_rachford_splitting_contraction", {}, {"L": 1, "mu": 1, "alpha": -1}, 0),
    ("nonconvex_gradient_descent", {}, {"L": 1, "gamma": -1}, 1),
    ("gradient_exact_line_search", {}, {"L": 1, "mu": 1}, 0),
    ("conjugate_gradient", {}, {"L": 1}, 1),
    ("gradient_descent_qg_convex", {}, {"L": 1, "gamma": -1}, 1),
    ("heavy_ball_momentum_qg_convex", {}, {"L": 1}, 1),
    ("subgradient_method_rsi_eb", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("gradient_descent_quadratics", {"L": 1.0, "mu": 0.1, "gamma": 1.0}, {"L": 1, "mu": 1, "gamma": -1}, 1),
    ("proximal_gradient_quadratics", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("gradient_descent_quadratic_lojasiewicz", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("epsilon_subgradient_method", {"M": 1.0, "gamma": 0.4}, {"eps": 1, "R": 1, "gamma": 1}, 1),  # space, value both s
    # normalised after the hostile sweep (tests/test_hostile_sweep.py): off by 7.5e-5, 11% and a SolverError before
    ("gradient_flow_strongly_convex", {"mu": 1.0}, {"mu": 1}, 1),
    ("relatively_inexact_proximal_point_algorithm", {"gamma": 1.0, "n": 3}, {"gamma": -1}, 1),
    ("no_lips_in_function_value", {"L": 1.0, "gamma": 0.5}, {"L": 1, "gamma": -1}, 1),
    ("no_lips_in_bregman_divergence", {"L": 1.0, "gamma": 1.0, "n": 3}, {"L": 1, "gamma": -1}, 0),
]


def _defaults(name: str, params: dict[str, Any]) -> dict[str, Any]:
    sig = inspect.signature(E.EXAMPLES[name].run)
    out = {k: v.default for k, v in sig.parameters.items() if v.default is not inspect.Parameter.empty}
    out.update(params)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name, params, exps, m", EXAMPLES, ids=[e[0] for e in EXAMPLES])
@pytest.mark.parametrize("s", SCALES)
def test_sweep_hand_written_examples(name: str, params: dict[str, Any], exps: dict[str, int], m: int, s: float) -> None:
    """Each example at scale ``s`` (every parameter times ``s^e``): ``s^m`` times the scale-1 value (relative 1e-7), and
    the documented closed form where it is tight."""
    p = _defaults(name, params)
    base = E.run_example(name, **p)
    kw = {k: (v * s ** exps[k] if k in exps and v is not None else v) for k, v in p.items()}
    r = E.run_example(name, **kw)
    assert r.status in ("Solved", "AlmostSolved")
    assert rel(r.ours, base.ours * s ** m) <= RTOL
    if r.kind == "tight":
        assert rel(r.ours, r.theory) <= 1e-6


OPERATOR_EXAMPLES: list[tuple[str, dict[str, Any], dict[str, int]]] = [   # measures: contractions / squared distances
    ("proximal_point", {"alpha": 1.0}, {"alpha": -1}),
    ("accelerated_proximal_point", {"alpha": 1.0}, {"alpha": -1}),
    ("douglas_rachford_splitting", {}, {"L": 1, "mu": 1, "alpha": -1}),
    ("douglas_rachford_splitting_cocoercive_corrected", {"mu": 1.0}, {"beta": -1, "mu": 1, "alpha": -1}),
    ("optimistic_gradient", {}, {"L": 1, "gamma": -1}),
    ("past_extragradient", {}, {"L": 1, "gamma": -1}),
    ("three_operator_splitting", {}, {"L": 1, "mu": 1, "beta": -1, "alpha": -1}),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, params, exps", OPERATOR_EXAMPLES, ids=[e[0] for e in OPERATOR_EXAMPLES])
@pytest.mark.parametrize("s", SCALES)
def test_sweep_operator_examples(name: str, params: dict[str, Any], exps: dict[str, int], s: float) -> None:
    """Operator examples at scale ``s`` (curvature-like ``L``, ``mu`` times ``s``, steps and cocoercivity over ``s``):
    the same contraction (relative 1e-7), and the closed form where the example has one."""
    fn = getattr(OE, name)
    sig = inspect.signature(fn)
    p = {k: v.default for k, v in sig.parameters.items() if v.default is not inspect.Parameter.empty}
    p.update(params)
    base = fn(**p)
    r = fn(**{k: (v * s ** exps[k] if k in exps else v) for k, v in p.items()})
    assert r.status in ("Solved", "AlmostSolved")
    got, want = (r.ours, base.ours) if hasattr(r, "ours") else (r.value, base.value)
    assert rel(got, want) <= RTOL
    if hasattr(r, "theory") and r.kind == "tight":
        assert rel(r.ours, r.theory) <= 1e-6


def test_pepit_transcription_is_not_homogeneous() -> None:
    """The documented finding of ``douglas_rachford_splitting_cocoercive`` seen through homogeneity: PEPit's formula
    (``b = alpha beta``) changes under the scaling that leaves the PEP invariant, the corrected one (``b = beta/alpha``)
    does not."""
    a = OE.drs_cocoercive_tau_as_pepit(1.2, 0.1, 0.3, 1.5), OE.drs_cocoercive_tau(0.7, 1.3, 1.0, 1.0)
    s = 1e3
    b = OE.drs_cocoercive_tau_as_pepit(1.2 / s, 0.1 * s, 0.3 / s, 1.5), OE.drs_cocoercive_tau(0.7 / s, 1.3 * s, 1.0 / s, 1.0)
    assert rel(b[1], a[1]) <= 1e-12
    assert rel(b[0], a[0]) > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("which", ["primal", "dual", "value", "all", "lipschitz"])
def test_sweep_saddle_pep(s: float, which: str) -> None:
    """The saddle PEP's three units (:data:`fairtheory.worstcase.units.SADDLE_DIMENSIONS`): primal space ``a``, dual
    space ``c``, value ``b``; ``D_w a``, ``D_lam c``, ``G_w b/a``, ``G_lam b/c``, ``lr a^2/b``, ``dual_lr c^2/b``,
    ``lipschitz b/a^2`` (``a = c``): the gap times ``b``."""
    a, b, c = {"primal": (s, 1.0, 1.0), "dual": (1.0, 1.0, s), "value": (1.0, s, 1.0), "all": (s, 1 / s, s),
               "lipschitz": (s, s, s)}[which]
    lip = 2.0 if which == "lipschitz" else None
    base = minmax_worst_case(afl.make, 3, lr=0.5, dual_lr=0.25, lipschitz=lip).value
    v = minmax_worst_case(afl.make, 3, lr=0.5 * a * a / b, dual_lr=0.25 * c * c / b, D_w=a, D_lam=c, G_w=b / a,
                          G_lam=b / c, lipschitz=None if lip is None else lip * b / (a * a)).value
    assert rel(v, base * b) <= RTOL


@pytest.mark.xfail(strict=True, reason="finding: a dual step 3000x the dual diameter per unit gradient next to a dual "
                   "block 1000x smaller than the primal one: Clarabel 'Solved' at 1000.159 (relative 8e-4 low); "
                   "conditioning intrinsic to the problem, not removable by units (issue 41, exactness)")
def test_afl_large_dual_step_unbalanced_blocks() -> None:
    """T = 1: the gap is ``D_w G_w + D_lam G_lam = 1001`` whatever the steps (Cauchy-Schwarz, attained with
    ``lambda_1 = lambda_c``)."""
    v = minmax_worst_case(afl.make, 1, lr=0.7, dual_lr=0.3, D_w=1e3, D_lam=0.01, G_w=1.0, G_lam=100.0).value
    assert rel(v, 1001.0) <= RTOL


@pytest.mark.slow
@pytest.mark.parametrize("a, b", [(s, s) for s in SCALES] + [(1.0, s) for s in SCALES if s != 1.0]
                         + [(s, 1.0) for s in SCALES if s != 1.0])
@pytest.mark.parametrize("oracle", [{"sigma2": 0.5}, {"grad_eps": 0.25}, {}])
def test_sweep_traced_two_clients_with_oracles(a: float, b: float, oracle: dict[str, float]) -> None:
    """Two clients, heterogeneity ``rho2`` and noise ``sigma2`` ((value/space)^2), ``D0`` (space^2), ``L``
    (value/space^2), ``lr`` (space^2/value), relative inexactness (dimensionless): the value times ``b``."""
    kw = dict(oracle)
    base = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=0.5, lr=0.5, **kw).value
    if "sigma2" in kw:
        kw["sigma2"] = kw["sigma2"] * (b / a) ** 2
    v = worst_case(fedavg.make, 2, n=2, L=b / (a * a), D0=a * a, rho2=0.5 * (b / a) ** 2, lr=0.5 * a * a / b, **kw).value
    assert rel(v, base * b) <= RTOL
