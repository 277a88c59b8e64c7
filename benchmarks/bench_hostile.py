"""Held-out hostile sweep of the public worst-case API (issue 41).

Every call runs in a forked child (wall-clock limit, address space capped) and is classified against an oracle
computed here, never by the library under test:

* ``correct``          - the value matches the oracle (a closed form, an explicit instance, or the scale-1 value of the
                         same problem times ``a^p b^q`` by homogeneity, Drori & Teboulle 2014, Sec. 2); an unbounded
                         problem reported unbounded (``value = inf`` / ``value_is = "unbounded"``);
* ``correct refusal``  - invalid input refused by a named :class:`fairtheory.errors.FairtheoryError` (its message
                         names the argument);
* ``wrong value``      - a value off the oracle, a finite value for an unbounded problem, an infinite one for a
                         bounded problem: silently wrong;
* ``poor failure``     - valid input refused (``SolverError``, any exception, a timeout or a crash), invalid input
                         refused by a raw ``ValueError`` / ``ZeroDivisionError`` / ``TypeError`` / ... instead of a
                         named error, or invalid input accepted.

The closed forms (each the cited theorem, tight): gradient descent on ``L``-smooth convex functions with ``h = gamma L
in (0, 1]``: ``L R^2/(4 N h + 2)`` (Drori & Teboulle 2014, Thm 3.1 and Thm 3.2); the subgradient method with steps
``R/(M sqrt(N + 1))``, best iterate: ``M R/sqrt(N + 1)`` (Drori & Teboulle 2016); the proximal point method on
``L``-smooth convex functions ``L D0/(2 + 4 gamma L N)`` (the Huber instance of
:func:`fairtheory.worstcase.proximal_point.ppm_huber_value`, whose formula is rewritten here); the Bregman proximal point
method ``1/(gamma n)`` (Teboulle 2018, Thm 4.1); the gradient method's contraction ``max(|1 - gamma L|, |1 - gamma
mu|)^(2n)`` on ``L``-smooth ``mu``-strongly convex functions (Taylor, Hendrickx & Glineur 2018, Thm 3.3); AFL after one
step: ``D_w G_w + D_lam G_lam`` (Cauchy-Schwarz, attained); past extragradient at ``n = 4``: PEPit 0.5.1's 0.0813424
(issue 41).  Elsewhere: the example's documented tight value at its published parameters, or homogeneity against the
same call at scale 1 (parameters drawn here, seeded, log-uniform in ``[1e-6, 1e6]`` - held out from the tests' fixed
grid).

``python benchmarks/bench_hostile.py [--quick] [--only SURFACE] [--match TEXT] [--seed N] [--json PATH] [-v]`` prints
the counts per class and per surface (``--seed``: the draws of a fresh held-out sweep; default 41); the JSON (default
``/tmp/bench_hostile.json``) is rewritten after every call, so an interrupted run keeps what it measured.  The machine
is shared and loaded: timeouts are generous wall-clock limits, not measurements.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import resource
import select
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

SEED = 41
#: the seed of the last :func:`build` (``--seed``; :data:`SEED` by default), written to the JSON
_SEED_USED = [SEED]
NAN, INF = float("nan"), float("inf")
DEFAULT_TIMEOUT = 90.0
CHILD_MEMORY = 3 * 2**30

CLASSES = ("correct", "correct refusal", "wrong value", "poor failure")


# ================================================================================ oracles
@dataclass
class Val:
    """Valid input: the value ``x`` within ``rtol`` (relative)."""

    x: float
    rtol: float = 1e-6
    why: str = ""


@dataclass
class AtMost:
    """Valid input: a finite upper bound ``<= x (1 + rtol)`` (an example documented as a bound)."""

    x: float
    rtol: float = 1e-6
    why: str = ""


@dataclass
class Ref:
    """Valid input: ``factor`` times the value of call ``cid`` (homogeneity), within ``rtol``."""

    cid: str
    factor: float
    rtol: float = 1e-6


@dataclass
class Finite:
    """Valid input with no closed form here: any finite value (a solve, not a refusal)."""

    why: str = ""


@dataclass
class Unbounded:
    """Valid input whose worst case is ``+inf`` (a ray of the PEP): reported unbounded by name."""

    why: str = ""


@dataclass
class Refuse:
    """Invalid input: a named :class:`fairtheory.errors.FairtheoryError` whose message names ``arg``."""

    arg: str = ""


@dataclass
class Call:
    cid: str
    surface: str
    fn: Callable[[], Any]
    oracle: Any
    timeout: float = DEFAULT_TIMEOUT
    quick: bool = False


@dataclass
class Outcome:
    cid: str
    surface: str
    klass: str
    detail: str
    value: float | None = None
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


# ================================================================================ the calls
CALLS: list[Call] = []
_SURFACE = ["?"]


def surface(name: str) -> None:
    _SURFACE[0] = name


def call(cid: str, fn: Callable[[], Any], oracle: Any, timeout: float = DEFAULT_TIMEOUT, quick: bool = False) -> None:
    if any(c.cid == cid for c in CALLS):
        raise ValueError(f"duplicate call id {cid}")
    CALLS.append(Call(cid, _SURFACE[0], fn, oracle, timeout, quick))


def _logu(rng: np.random.Generator, lo: float = 1e-6, hi: float = 1e6) -> float:
    """Log-uniform in ``[lo, hi]``, rounded to 3 significant digits (readable ids)."""
    return float(f"{10 ** rng.uniform(math.log10(lo), math.log10(hi)):.3g}")


def _held_out_scales(rng: np.random.Generator) -> list[float]:
    """One scale below 1, one above, and one extreme (1e-6 or 1e6): held out from the tests' grid."""
    return [_logu(rng, 1e-6, 1e-1), _logu(rng, 1e1, 1e6), float(rng.choice([1e-6, 1e6]))]


# ------------------------------------------------------------------------------ hand-written PEPs
def gd_pep(L: float, h: float, N: int, R2: float, cls: Any = None, init: bool = True) -> Any:
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP, sqnorm

    pep = PEP()
    f = pep.function(cls if cls is not None else SmoothStronglyConvex(L, 0))
    xs, _, fs = f.optimum()
    x = pep.vector()
    if init:
        pep.add_le(sqnorm(x - xs) - R2)
    for _ in range(N):
        x = x - (h / L) * f.grad(x)
    pep.maximize(f.value(x) - fs)
    return pep


def resolvent_pep(cls: Any, gamma: float, n: int = 1) -> Any:
    from fairtheory.worstcase import operators as O
    from fairtheory.worstcase.sdp import PEP, sqnorm

    pep = PEP()
    A = O.operator(pep, cls)
    xs = O.declare_zero(A)
    x = pep.vector()
    pep.add_le(sqnorm(x - xs) - 1)
    for _ in range(n):
        x, _u = O.resolvent(A, x, gamma)
    pep.maximize(sqnorm(x - xs))
    return pep


def _solve(pep: Any) -> Any:
    return pep.solve()


def _pair_peps() -> tuple[Any, Any, Any, Any]:
    """A function of one PEP and a vector of another (with more basis vectors than the first has)."""
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP

    p1, p2 = PEP(), PEP()
    f = p1.function(SmoothStronglyConvex(1.0, 0.0))
    x1 = p1.vector()
    for _ in range(3):
        p2.vector()
    y = p2.vector()
    return p1, f, x1, y


def _operator_pair() -> tuple[Any, Any, Any]:
    from fairtheory.worstcase import operators as O
    from fairtheory.worstcase.sdp import PEP

    p1, p2 = PEP(), PEP()
    A = O.operator(p1, O.Monotone())
    x = p1.vector()
    for _ in range(3):
        p2.vector()
    return A, x, p2.vector()


# ------------------------------------------------------------------------------ surfaces
def build_catalogue() -> None:
    """Every catalogue example at its published parameters (the documented value where it is tight)."""
    from fairtheory.worstcase import pepit_examples as E
    from fairtheory.worstcase import pepit_operator_examples as OE

    surface("catalogue")
    for name, ex in E.EXAMPLES.items():
        call(f"E.{name}()", (lambda name=name: E.run_example(name)), Finite(f"catalogue kind {ex.kind}"), timeout=240,
             quick=name in ("gradient_descent", "proximal_point", "bregman_proximal_point"))
    for name in ("accelerated_proximal_point", "douglas_rachford_splitting", "douglas_rachford_splitting_cocoercive",
                 "douglas_rachford_splitting_cocoercive_corrected", "halpern_iteration",
                 "krasnoselskii_mann_constant_step_sizes", "krasnoselskii_mann_increasing_step_sizes",
                 "optimal_contractive_halpern_iteration", "optimal_strongly_monotone_proximal_point", "optimistic_gradient",
                 "past_extragradient", "proximal_point", "three_operator_splitting"):
        call(f"OE.{name}()", (lambda name=name: getattr(OE, name)()), Finite("catalogue"), timeout=240,
             quick=name == "proximal_point")
    for n in (3, 4, 6):
        call(f"OE.past_extragradient(n={n})", (lambda n=n: OE.past_extragradient(n=n)),
             Val(0.0813424, 1e-6, "PEPit 0.5.1 (issue 41)") if n == 4 else Finite("n = 3, 6"), timeout=240,
             quick=n == 4)
    for n in (3, 4):
        call(f"OE.optimistic_gradient(n={n})", (lambda n=n: OE.optimistic_gradient(n=n)), Finite(), timeout=240)


#: (example, scale-1 parameters, exponent of the unit ``s`` per parameter, exponent of the measure) - the units of
#: each example (every one fixes one unit by its initial condition; a curvature scales as ``s``, a step as ``1/s``)
EXAMPLE_UNITS: list[tuple[str, dict[str, Any], dict[str, int], int]] = [
    ("gradient_descent", {"L": 1.0, "gamma": 1.0}, {"L": 1, "gamma": -1}, 1),
    ("subgradient_method", {"M": 1.0}, {"M": 1}, 1),
    ("proximal_point", {"gamma": 1.0}, {"gamma": -1}, 1),
    ("optimized_gradient", {"L": 1.0}, {"L": 1}, 1),
    ("optimized_gradient_for_gradient", {"L": 1.0}, {"L": 1}, 1),
    ("inexact_gradient_descent", {}, {"L": 1, "mu": 1}, 0),
    ("gradient_descent_contraction", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("polyak_steps_in_distance_to_optimum", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("sgd_overparametrized", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("proximal_gradient", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("accelerated_proximal_gradient_simplified", {}, {"L": 1, "mu": 1}, 1),
    ("douglas_rachford_splitting_contraction", {}, {"L": 1, "mu": 1, "alpha": -1}, 0),
    ("nonconvex_gradient_descent", {}, {"L": 1, "gamma": -1}, 1),
    ("gradient_exact_line_search", {}, {"L": 1, "mu": 1}, 0),
    ("conjugate_gradient", {}, {"L": 1}, 1),
    ("gradient_descent_qg_convex", {}, {"L": 1, "gamma": -1}, 1),
    ("subgradient_method_rsi_eb", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("gradient_descent_quadratics", {"L": 1.0, "mu": 0.1, "gamma": 1.0}, {"L": 1, "mu": 1, "gamma": -1}, 1),
    ("proximal_gradient_quadratics", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("gradient_descent_quadratic_lojasiewicz", {"gamma": 1.5}, {"L": 1, "mu": 1, "gamma": -1}, 0),  # inside [1/L, 2/L)
    ("frank_wolfe", {"L": 1.0, "D": 1.0, "n": 3}, {"L": 1}, 1),
    ("online_gradient_descent", {}, {"M": 1, "D": 0}, 1),
    ("randomized_coordinate_descent_smooth_strongly_convex", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("gradient_flow_strongly_convex", {}, {"mu": 1}, 1),   # d/dt (f - f*) = -2 mu (f - f*)
    ("epsilon_subgradient_method", {"M": 1.0, "gamma": 0.4}, {"eps": 1, "R": 1, "gamma": 1}, 1),
    # held out from tests/test_homogeneity_sweep.py (units derived here from each example's initial condition)
    ("polyak_steps_in_function_value", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("no_lips_in_function_value", {}, {"L": 1, "gamma": -1}, 1),        # D_h(x*, x0) <= 1 fixed, f scaled by s
    ("no_lips_in_bregman_divergence", {"n": 3}, {"L": 1, "gamma": -1}, 0),
    ("relatively_inexact_proximal_point_algorithm", {"n": 3}, {"gamma": -1}, 1),
    ("information_theoretic_exact_method", {"n": 3}, {"L": 1, "mu": 1}, 0),
    ("inexact_gradient_exact_line_search", {}, {"L": 1, "mu": 1}, 0),
    ("conjugate_gradient_qg_convex", {"n": 3}, {"L": 1}, 1),
    ("heavy_ball_momentum_qg_convex", {}, {"L": 1}, 1),
    ("proximal_gradient_projected", {}, {"L": 1, "mu": 1, "gamma": -1}, 0),
    ("bregman_proximal_point", {"gamma": 1.0}, {"gamma": -1}, 1),
]

OPERATOR_UNITS: list[tuple[str, dict[str, Any], dict[str, int]]] = [
    ("proximal_point", {"alpha": 1.0}, {"alpha": -1}),
    ("accelerated_proximal_point", {"alpha": 1.0}, {"alpha": -1}),
    ("douglas_rachford_splitting", {}, {"L": 1, "mu": 1, "alpha": -1}),
    ("douglas_rachford_splitting_cocoercive_corrected", {"mu": 1.0}, {"beta": -1, "mu": 1, "alpha": -1}),
    ("optimistic_gradient", {}, {"L": 1, "gamma": -1}),
    ("past_extragradient", {}, {"L": 1, "gamma": -1}),
    ("three_operator_splitting", {}, {"L": 1, "mu": 1, "beta": -1, "alpha": -1}),
]


def _defaults(fn: Any, params: dict[str, Any]) -> dict[str, Any]:
    import inspect

    sig = inspect.signature(fn)
    out = {k: v.default for k, v in sig.parameters.items() if v.default is not inspect.Parameter.empty}
    out.update(params)
    return out


def build_scaled(rng: np.random.Generator) -> None:
    """Catalogue examples at held-out scales: the scale-1 value times ``s^m`` (homogeneity)."""
    from fairtheory.worstcase import pepit_examples as E
    from fairtheory.worstcase import pepit_operator_examples as OE

    surface("scaled examples")
    for name, params, exps, m in EXAMPLE_UNITS:
        p = _defaults(E.EXAMPLES[name].run, params)
        base = f"E.{name}@1"
        call(base, (lambda name=name, p=p: E.run_example(name, **p)), Finite("scale 1"), timeout=240)
        for s in _held_out_scales(rng):
            kw = {k: (v * s ** exps[k] if k in exps and v is not None else v) for k, v in p.items()}
            call(f"E.{name}@s={s:g}", (lambda name=name, kw=kw: E.run_example(name, **kw)), Ref(base, s ** m, 1e-6),
                 timeout=240, quick=name == "gradient_descent_quadratics" and s >= 1e6)
    for name, params, exps in OPERATOR_UNITS:
        fn = getattr(OE, name)
        p = _defaults(fn, params)
        base = f"OE.{name}@1"
        call(base, (lambda fn=fn, p=p: fn(**p)), Finite("scale 1"), timeout=240)
        for s in _held_out_scales(rng):
            kw = {k: (v * s ** exps[k] if k in exps else v) for k, v in p.items()}
            call(f"OE.{name}@s={s:g}", (lambda fn=fn, kw=kw: fn(**kw)), Ref(base, 1.0, 1e-6), timeout=240)
    # the badly scaled valid calls
    call("E.gradient_descent_quadratics(L=3, mu=0.3, gamma=1/3)",
         lambda: E.run_example("gradient_descent_quadratics", L=3.0, mu=0.3, gamma=1 / 3), Finite(), quick=True)
    call("E.gradient_descent_quadratics(L=3e6, mu=3e5, gamma=1/3e6)",
         lambda: E.run_example("gradient_descent_quadratics", L=3e6, mu=3e5, gamma=1 / 3e6),
         Ref("E.gradient_descent_quadratics(L=3, mu=0.3, gamma=1/3)", 1e6), quick=True)


def build_closed_forms(rng: np.random.Generator) -> None:
    """Closed forms at held-out parameters (module doc)."""
    from fairtheory.algorithms import afl, fedavg, fedprox
    from fairtheory.worstcase import local_gd_worst_case
    from fairtheory.worstcase import pepit_examples as E
    from fairtheory.worstcase import pepit_operator_examples as OE
    from fairtheory.worstcase.classes import ConvexLipschitz
    from fairtheory.worstcase.minmax import afl_paper_steps, minmax_worst_case
    from fairtheory.worstcase.traced import worst_case

    surface("closed forms")
    for k in range(4):
        L, R2, N = _logu(rng), _logu(rng), int(rng.integers(1, 4))
        h = float(f"{rng.uniform(0.3, 1.0):.3g}")
        call(f"hand GD L={L:g} h={h:g} N={N} R2={R2:g}", (lambda L=L, h=h, N=N, R2=R2: _solve(gd_pep(L, h, N, R2))),
             Val(L * R2 / (4 * N * h + 2), 1e-6, "Drori & Teboulle 2014"), quick=k == 0)
        call(f"traced GD L={L:g} h={h:g} N={N} D0={R2:g}",
             (lambda L=L, h=h, N=N, R2=R2: worst_case(fedavg.make, N, n=1, L=L, D0=R2, rho2=0, lr=h / L)),
             Val(L * R2 / (4 * N * h + 2), 1e-6, "Drori & Teboulle 2014"), quick=k == 0)
    for k in range(3):
        M, R2, N = _logu(rng), _logu(rng), int(rng.integers(1, 5))
        R = math.sqrt(R2)
        call(f"traced subgradient M={M:g} R2={R2:g} N={N}",
             (lambda M=M, R2=R2, N=N, R=R: worst_case(fedavg.make, N, n=1, D0=R2, rho2=0, function_class=ConvexLipschitz(M),
                                                      lr=R / (M * math.sqrt(N + 1)), output="best")),
             Val(M * R / math.sqrt(N + 1), 1e-6, "Drori & Teboulle 2016"), quick=k == 0)
    for _ in range(2):
        L, D0, N = _logu(rng), _logu(rng), int(rng.integers(1, 4))
        gamma = float(f"{_logu(rng, 0.1, 10) / L:.3g}")
        call(f"traced fedprox (PPM) L={L:g} D0={D0:g} gamma={gamma:g} N={N}",
             (lambda L=L, D0=D0, N=N, gamma=gamma: worst_case(fedprox.make, N, n=1, L=L, D0=D0, rho2=0,
                                                              prox_mu=1 / gamma, solver="exact")),
             Val(L * D0 / (2 + 4 * gamma * L * N), 1e-6, "Huber instance (proximal_point.py)"))
    for _ in range(2):
        gamma, n = _logu(rng), int(rng.integers(2, 6))
        call(f"E.bregman_proximal_point(gamma={gamma:g}, n={n})",
             (lambda gamma=gamma, n=n: E.bregman_proximal_point(gamma=gamma, n=n)), Val(1 / (gamma * n), 1e-6,
                                                                                         "Teboulle 2018 Thm 4.1"))
    for _ in range(3):
        L = _logu(rng)
        mu = float(f"{L * rng.uniform(0.01, 0.9):.3g}")
        gamma = float(f"{rng.uniform(0.1, 1.9) / L:.3g}")
        n = int(rng.integers(1, 4))
        rate = max(abs(1 - gamma * L), abs(1 - gamma * mu)) ** (2 * n)
        call(f"E.gradient_descent_contraction(L={L:g}, mu={mu:g}, gamma={gamma:g}, n={n})",
             (lambda L=L, mu=mu, gamma=gamma, n=n: E.gradient_descent_contraction(L=L, mu=mu, gamma=gamma, n=n)),
             Val(rate, 1e-6, "Taylor, Hendrickx & Glineur 2018"))
    for k in range(3):
        Dw, Dl, Gw, Gl = (_logu(rng, 1e-3, 1e3) for _ in range(4))
        def afl1(Dw: float = Dw, Dl: float = Dl, Gw: float = Gw, Gl: float = Gl) -> Any:
            lr, dual_lr = afl_paper_steps(1, D_w=Dw, D_lam=Dl, G_w=Gw, G_lam=Gl)
            return minmax_worst_case(afl.make, 1, lr=lr, dual_lr=dual_lr, D_w=Dw, D_lam=Dl, G_w=Gw, G_lam=Gl)
        call(f"AFL T=1 D_w={Dw:g} D_lam={Dl:g} G_w={Gw:g} G_lam={Gl:g}", afl1,
             Val(Dw * Gw + Dl * Gl, 1e-6, "Cauchy-Schwarz"), quick=k == 0)
    # saddle PEP homogeneity (three units: primal a, dual c, value b)
    call("AFL T=2 @1", lambda: minmax_worst_case(afl.make, 2, lr=0.5, dual_lr=0.25), Finite())
    for _ in range(2):
        a, b, c = _logu(rng, 1e-3, 1e3), _logu(rng, 1e-3, 1e3), _logu(rng, 1e-3, 1e3)
        call(f"AFL T=2 a={a:g} b={b:g} c={c:g}",
             (lambda a=a, b=b, c=c: minmax_worst_case(afl.make, 2, lr=0.5 * a * a / b, dual_lr=0.25 * c * c / b, D_w=a,
                                                      D_lam=c, G_w=b / a, G_lam=b / c)), Ref("AFL T=2 @1", b))
    # local GD: space a, value b
    base = dict(n=2, kappa=2, T_N=1, lr=0.25, L=1.0, D0=1.0, rho2=0.5)
    call("local_gd @1", lambda: local_gd_worst_case(**base), Finite(), timeout=180, quick=True)
    for k in range(2):
        a, b = _logu(rng, 1e-3, 1e3), _logu(rng, 1e-3, 1e3)
        kw = dict(base, L=b / (a * a), D0=a * a, rho2=0.5 * (b / a) ** 2, lr=0.25 * a * a / b)
        call(f"local_gd a={a:g} b={b:g}", (lambda kw=kw: local_gd_worst_case(**kw)), Ref("local_gd @1", b), timeout=180,
             quick=k == 0)
    # traced noise: value unit b (sigma2 b^2)
    call("fedavg sigma2 @1", lambda: worst_case(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, sigma2=4.0, lr=0.5), Finite())
    for _ in range(2):
        a, b = _logu(rng), _logu(rng)
        call(f"fedavg sigma2 a={a:g} b={b:g}",
             (lambda a=a, b=b: worst_case(fedavg.make, 2, n=1, L=b / (a * a), D0=a * a, rho2=0, sigma2=4.0 * (b / a) ** 2,
                                          lr=0.5 * a * a / b)), Ref("fedavg sigma2 @1", b))
    # operator proximal point on a monotone operator, held-out alpha (scale-free contraction)
    call("OE.proximal_point(alpha=1, n=3)", lambda: OE.proximal_point(alpha=1.0, n=3), Finite())
    for _ in range(2):
        al = _logu(rng)
        call(f"OE.proximal_point(alpha={al:g}, n=3)", (lambda al=al: OE.proximal_point(alpha=al, n=3)),
             Ref("OE.proximal_point(alpha=1, n=3)", 1.0))


def build_unbounded() -> None:
    """Problems with no finite worst case, and their bounded neighbours."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import classes as C
    from fairtheory.worstcase import operators as O
    from fairtheory.worstcase.traced import worst_case

    surface("unbounded")
    call("hand GD on Convex()", lambda: _solve(gd_pep(1.0, 1.0, 2, 1.0, cls=C.Convex())),
         Unbounded("no smoothness: f(x) = t |x|, t -> inf"), quick=True)
    call("hand GD, no initial condition", lambda: _solve(gd_pep(1.0, 1.0, 2, 1.0, init=False)),
         Unbounded("x0 free: f(x) = L x^2/2 at x0 -> inf"), quick=True)
    call("traced GD on Convex()", lambda: worst_case(fedavg.make, 2, n=1, D0=1, rho2=0, function_class=C.Convex(),
                                                     lr=0.5), Unbounded("no smoothness"), quick=True)
    for rho, gamma in ((1.0, 0.5), (1.0, 1.0), (3e-4, 1e-4)):
        call(f"comonotone resolvent rho={rho:g} gamma={gamma:g}",
             (lambda rho=rho, gamma=gamma: _solve(resolvent_pep(O.NegativelyComonotone(rho), gamma))),
             Unbounded("gamma <= rho: (I + gamma A)^-1 not single-valued, unbounded"), quick=rho == 1.0 and gamma == 0.5)
    for rho, gamma in ((1.0, 3.0), (2e5, 7e5)):
        call(f"comonotone resolvent rho={rho:g} gamma={gamma:g}",
             (lambda rho=rho, gamma=gamma: _solve(resolvent_pep(O.NegativelyComonotone(rho), gamma))),
             Finite("gamma > rho"))
    call("monotone resolvent gamma=1", lambda: _solve(resolvent_pep(O.Monotone(), 1.0)), Val(1.0, 1e-6,
                                                                                            "nonexpansive, A = 0"))
    call("hand GD h=2.5 on SmoothConvex (divergent steps)", lambda: _solve(gd_pep(1.0, 2.5, 2, 1.0)),
         Val(1.5 ** 4 / 2, 1e-6, "f = L x^2/2: L R^2 (h - 1)^(2N)/2"))


def build_bad_arguments() -> None:  # noqa: PLR0915 - a flat table of calls
    """Invalid input: every call must be refused by a named error."""
    from fairtheory.algorithms import afl, fedavg
    from fairtheory.worstcase import classes as C
    from fairtheory.worstcase import local_gd_worst_case
    from fairtheory.worstcase import operators as O
    from fairtheory.worstcase import pepit_examples as E
    from fairtheory.worstcase import pepit_operator_examples as OE
    from fairtheory.worstcase import steps as S
    from fairtheory.worstcase.minmax import afl_paper_steps, minmax_worst_case
    from fairtheory.worstcase.proximal_point import ppm_huber_value
    from fairtheory.worstcase.ratio import theorem_ratio
    from fairtheory.worstcase.sdp import PEP
    from fairtheory.worstcase.traced import worst_case

    surface("bad arguments")
    # classes and operator classes
    for expr, fn, arg in (
            ("SmoothStronglyConvex('1', 0)", lambda: C.SmoothStronglyConvex("1", 0), "L"),
            ("SmoothStronglyConvex(nan, 0)", lambda: C.SmoothStronglyConvex(NAN, 0), "L"),
            ("SmoothStronglyConvex(-1, 0)", lambda: C.SmoothStronglyConvex(-1.0, 0), "L"),
            ("SmoothStronglyConvex(1, 2)", lambda: C.SmoothStronglyConvex(1.0, 2.0), "mu"),
            ("ConvexLipschitz(-1)", lambda: C.ConvexLipschitz(-1.0), "M"),
            ("ConvexLipschitz('a')", lambda: C.ConvexLipschitz("a"), "M"),
            ("ConvexIndicator(R=-1)", lambda: C.ConvexIndicator(R=-1.0), "R"),
            ("ConvexIndicator(D=nan)", lambda: C.ConvexIndicator(D=NAN), "D"),
            ("SmoothNonconvex(0)", lambda: C.SmoothNonconvex(0.0), "L"),
            ("Lipschitz(-1)", lambda: O.Lipschitz(-1.0), "L"),
            ("Lipschitz('2')", lambda: O.Lipschitz("2"), "L"),
            ("Lipschitz(nan)", lambda: O.Lipschitz(NAN), "L"),
            ("LipschitzStronglyMonotone(1, 2)", lambda: O.LipschitzStronglyMonotone(1.0, 2.0), "mu"),
            ("Cocoercive(-1)", lambda: O.Cocoercive(-1.0), "beta"),
            ("CocoerciveStronglyMonotone(2, 1)", lambda: O.CocoerciveStronglyMonotone(2.0, 1.0), "beta"),
            ("NegativelyComonotone('x')", lambda: O.NegativelyComonotone("x"), "rho"),
            ("NegativelyComonotone(inf)", lambda: O.NegativelyComonotone(INF), "rho"),
            ("SymmetricLinear(1, 2)", lambda: O.SymmetricLinear(1.0, 2.0), "mu"),
            ("Linear(nan)", lambda: O.Linear(NAN), "L")):
        call(expr, fn, Refuse(arg), quick=expr in ("SmoothStronglyConvex(nan, 0)", "Lipschitz('2')"))

    # operator oracles
    def op(*args: Any, what: str) -> Callable[[], Any]:
        def run() -> Any:
            pep = PEP()
            A = O.operator(pep, O.Monotone())
            x = pep.vector()
            if what == "resolvent":
                return O.resolvent(A, x, *args)
            if what == "apply":
                return O.apply(A, *args)
            raise AssertionError(what)
        return run

    for gm in (0.0, -1.0, NAN, INF, "1"):
        call(f"resolvent(A, x, {gm!r})", op(gm, what="resolvent"), Refuse("gamma"), quick=gm == 0.0)
    call("apply(A, 'x')", op("x", what="apply"), Refuse("x"))
    call("operator(pep, 'Monotone')", lambda: O.operator(PEP(), "Monotone"), Refuse("cls"))
    call("operator('pep', Monotone())", lambda: O.operator("pep", O.Monotone()), Refuse("pep"))
    call("declare_zero_of_sum([])", lambda: O.declare_zero_of_sum([]), Refuse("ops"))

    def other_apply() -> Any:
        A, _x, y = _operator_pair()
        return O.apply(A, y)

    def other_resolvent() -> Any:
        A, _x, y = _operator_pair()
        return O.resolvent(A, y, 1.0)

    call("apply(A, vector of another PEP)", other_apply, Refuse("x"), quick=True)
    call("resolvent(A, vector of another PEP)", other_resolvent, Refuse("y"))

    # steps
    def steps_call(what: str) -> Callable[[], Any]:
        def run() -> Any:  # noqa: PLR0911 - a table
            p1, f, x, y = _pair_peps()
            if what == "inexact other":
                return S.inexact_gradient(f, y, 0.1)
            if what == "inexact rel other":
                return S.inexact_gradient(f, y, 0.1, notion="relative")
            if what == "inexact eps<0":
                return S.inexact_gradient(f, x, -0.1)
            if what == "inexact eps nan":
                return S.inexact_gradient(f, x, NAN)
            if what == "inexact eps str":
                return S.inexact_gradient(f, x, "0.1")
            if what == "inexact notion":
                return S.inexact_gradient(f, x, 0.1, notion="bogus")
            if what == "eps-sub gamma str":
                return S.epsilon_subgradient_step(f, x, "a")
            if what == "eps-sub other":
                return S.epsilon_subgradient_step(f, y, 0.1)
            if what == "linesearch []":
                return S.exact_linesearch_step(f, x, [])
            if what == "linesearch other":
                return S.exact_linesearch_step(f, y, [x])
            if what == "linesearch other dir":
                return S.exact_linesearch_step(f, x, [y])
            if what == "lmo non-indicator":
                return S.linear_optimization_step(f, x)
            if what == "prox opt":
                return S.inexact_proximal_step(f, x, 1.0, opt="bogus")
            if what == "prox gamma 0":
                return S.inexact_proximal_step(f, x, 0.0)
            if what == "prox other":
                return S.inexact_proximal_step(f, y, 1.0)
            if what == "bregman gamma nan":
                return S.bregman_gradient_step(f, x, x, NAN)
            if what == "bregman other":
                return S.bregman_gradient_step(f, y, x, 1.0)
            if what == "partition 0":
                return S.BlockPartition(p1, 0)
            if what == "partition str":
                return S.BlockPartition(p1, "2")
            if what == "combination []":
                return S.Combination([])
            if what == "combination str":
                return S.Combination([(1.0, "f")])
            if what == "combination nan":
                return S.Combination([(NAN, f)])
            raise AssertionError(what)
        return run

    for what, arg in (("inexact other", "x"), ("inexact rel other", "x"), ("inexact eps<0", "eps"),
                      ("inexact eps nan", "eps"), ("inexact eps str", "eps"), ("inexact notion", "notion"),
                      ("eps-sub gamma str", "gamma"), ("eps-sub other", "x0"), ("linesearch []", "directions"),
                      ("linesearch other", "x0"), ("linesearch other dir", "directions"), ("lmo non-indicator", "ind"),
                      ("prox opt", "opt"), ("prox gamma 0", "gamma"), ("prox other", "x0"),
                      ("bregman gamma nan", "gamma"), ("bregman other", "sx0"), ("partition 0", "d"),
                      ("partition str", "d"), ("combination []", "terms"), ("combination str", "terms"),
                      ("combination nan", "terms")):
        call(f"steps: {what}", steps_call(what), Refuse(arg), quick=what in ("inexact other", "inexact notion"))

    # catalogue examples
    for name in ("gradient_descent", "optimized_gradient", "proximal_gradient", "bregman_proximal_point",
                 "epsilon_subgradient_method", "frank_wolfe", "gradient_flow_strongly_convex"):
        run_ = E.EXAMPLES[name].run
        import inspect

        params = inspect.signature(run_).parameters
        bad: list[tuple[str, Any]] = []
        if "n" in params:
            bad += [("n", 0), ("n", -1), ("n", 2.5), ("n", "3")]
        for k in ("L", "gamma", "M", "mu", "eps", "D"):
            if k in params:
                bad += [(k, NAN), (k, -1.0), (k, "0.1")]
        for k, v in bad:
            call(f"E.{name}({k}={v!r})", (lambda name=name, k=k, v=v: E.run_example(name, **{k: v})), Refuse(k),
                 quick=name == "gradient_descent" and k == "n" and v == 0)
    call("run_example('nope')", lambda: E.run_example("nope"), Refuse("name"))
    for name, kw, arg in (("past_extragradient", {"n": 0}, "n"), ("past_extragradient", {"gamma": NAN}, "gamma"),
                          ("past_extragradient", {"L": "1"}, "L"), ("proximal_point", {"alpha": -1.0}, "alpha"),
                          ("proximal_point", {"n": 0}, "n"), ("halpern_iteration", {"n": -2}, "n"),
                          ("douglas_rachford_splitting", {"mu": -0.5}, "mu"),
                          ("three_operator_splitting", {"beta": 0.0}, "beta"),
                          ("krasnoselskii_mann_constant_step_sizes", {"gamma": 1.5}, "gamma"),
                          ("optimal_strongly_monotone_proximal_point", {"mu": -0.1}, "mu")):
        call(f"OE.{name}({kw})", (lambda name=name, kw=kw: getattr(OE, name)(**kw)), Refuse(arg),
             quick=name == "past_extragradient" and "n" in kw)

    # traced worst_case
    good = dict(n=1, L=1.0, D0=1.0, rho2=0.0, lr=0.5)
    for k, v in (("rounds", 0), ("rounds", "2"), ("n", 0), ("n", -1), ("D0", -1.0), ("D0", NAN), ("L", NAN),
                 ("L", "1"), ("lr", "0.1"), ("lr", NAN), ("rho2", -1.0), ("output", "bogus"), ("measure", "bogus"),
                 ("sigma2", -1.0), ("sigma2", NAN), ("grad_eps", -0.5), ("noise_atoms", 0), ("function_class", "L")):
        def wc(k: str = k, v: Any = v) -> Any:
            kw = dict(good)
            rounds = 2
            if k == "rounds":
                rounds = v
            else:
                kw[k] = v
            if k == "function_class":
                kw.pop("L")
            return worst_case(fedavg.make, rounds, **kw)
        call(f"worst_case({k}={v!r})", wc, Refuse(k), quick=k in ("n", "D0") and v in (0, -1.0))
    call("worst_case(make='fedavg')", lambda: worst_case("fedavg", 2, **good), Refuse("make"))

    # min-max
    for k, v in (("rounds", 0), ("D_w", -1.0), ("D_lam", 0.0), ("G_lam", NAN), ("G_w", "1"), ("lr", "a"),
                 ("dual_lr", -0.1), ("measure", "bogus"), ("output", "bogus"), ("n", 0), ("lipschitz", -1.0)):
        def mm(k: str = k, v: Any = v) -> Any:
            kw: dict[str, Any] = {"lr": 0.5, "dual_lr": 0.25}
            rounds = 2
            if k == "rounds":
                rounds = v
            else:
                kw[k] = v
            return minmax_worst_case(afl.make, rounds, **kw)
        call(f"minmax_worst_case({k}={v!r})", mm, Refuse(k), quick=k == "D_w")
    call("afl_paper_steps(0)", lambda: afl_paper_steps(0), Refuse("T"))
    call("afl_paper_steps(2, D_w=nan)", lambda: afl_paper_steps(2, D_w=NAN), Refuse("D_w"))
    call("afl_paper_steps(2, G_lam=0)", lambda: afl_paper_steps(2, G_lam=0.0), Refuse("G_lam"))

    # local GD (owned by "multi"; here as a public entry)
    lg = dict(n=2, kappa=2, T_N=1, lr=0.25, L=1.0, D0=1.0, rho2=0.5)
    for k, v in (("n", 0), ("n", "2"), ("kappa", 0), ("T_N", -1), ("lr", NAN), ("L", -1.0), ("D0", INF),
                 ("rho2", -1.0), ("p", [1.0]), ("p", [0.5, NAN]), ("output", "bogus"), ("K", 0)):
        call(f"local_gd_worst_case({k}={v!r})", (lambda k=k, v=v: local_gd_worst_case(**dict(lg, **{k: v}))),
             Refuse(k), quick=k == "n" and v == 0)

    # ratio, proximal point closed form
    for k, v in (("kappa", 0), ("T_N", -1), ("lr", NAN), ("L", 0.0), ("n", 0), ("version", "001")):
        kw: dict[str, Any] = dict(kappa=1, T_N=1, lr=0.25)
        kw[k] = v
        call(f"theorem_ratio({k}={v!r})", (lambda kw=kw: theorem_ratio(**kw)), Refuse(k))
    for k, v in (("N", 0), ("L", -1.0), ("gamma", NAN), ("D0", "1")):
        kw = dict(L=1.0, D0=1.0, gamma=1.0, N=2)
        kw[k] = v
        call(f"ppm_huber_value({k}={v!r})", (lambda kw=kw: ppm_huber_value(**kw)), Refuse(k))

    # hand-written twins, references, sampled ratio, scaffold, potentials, adversarial search
    from fairtheory.worstcase import adversarial as AD
    from fairtheory.worstcase import potential as PO
    from fairtheory.worstcase import references as RF
    from fairtheory.worstcase import scaffold as SC
    from fairtheory.worstcase.minmax_twins import hand_gda, hand_scaffpd
    from fairtheory.worstcase.ratio import sampled_ratio

    rng0 = np.random.default_rng(0)
    for cid, fn, arg in (
            ("hand_gda(T=0)", lambda: hand_gda(0, 0.5, 0.5), "T"),
            ("hand_gda(lr=nan)", lambda: hand_gda(2, NAN, 0.5), "lr"),
            ("hand_gda(D_w=-1)", lambda: hand_gda(2, 0.5, 0.5, D_w=-1.0), "D_w"),
            ("hand_scaffpd(kappa=0)", lambda: hand_scaffpd(2, 0, 0.5, 0.5, lipschitz=None), "kappa"),
            ("hand_scaffpd(lipschitz=-1)", lambda: hand_scaffpd(2, 1, 0.5, 0.5, lipschitz=-1.0), "lipschitz"),
            ("agm_worst_case(-1)", lambda: RF.agm_worst_case(-1), "N"),
            ("agm_worst_case('2')", lambda: RF.agm_worst_case("2"), "N"),
            ("gd_instances_value(2, 0)", lambda: RF.gd_instances_value(2, 0), "h"),
            ("gd_instances_value(2, 'a')", lambda: RF.gd_instances_value(2, "a"), "h"),
            ("sampled_ratio(count=0)", lambda: sampled_ratio(version="002", kappa=1, T_N=1, lr=0.25, count=0, rng=rng0),
             "count"),
            ("sampled_ratio(rng=0)", lambda: sampled_ratio(version="002", kappa=1, T_N=1, lr=0.25, count=2, rng=0), "rng"),
            ("sampled_ratio(p=[1])", lambda: sampled_ratio(version="002", kappa=1, T_N=1, lr=0.25, count=2, p=[1.0],
                                                           rng=rng0), "p"),
            ("scaffold_worst_case(n=0)", lambda: SC.scaffold_worst_case(n=0, kappa=1, R=1, lr=0.1, L=1, D0=1, rho2=0.5),
             "n"),
            ("scaffold_worst_case(server_lr=nan)", lambda: SC.scaffold_worst_case(kappa=1, R=1, lr=0.1, L=1, D0=1,
                                                                                  rho2=0.5, server_lr=NAN), "server_lr"),
            ("horizon_free_constants(kappa=0)", lambda: PO.horizon_free_constants(kappa=0, lr=0.1), "kappa"),
            ("horizon_free_constants(lr=-0.1)", lambda: PO.horizon_free_constants(kappa=1, lr=-0.1), "lr"),
            ("adversarial_max(budget=0)", lambda: AD.adversarial_max(lambda **k: 1.0, None, seed=0, budget=0), "budget")):
        call(cid, fn, Refuse(arg))
    call("agm_worst_case(0)", lambda: RF.agm_worst_case(0), Val(0.5, 1e-6, "no step: L R^2/2"))
    call("hand_gda(T=1) vs Cauchy-Schwarz", lambda: hand_gda(1, 2.0, 2.0, D_w=3.0, D_lam=0.5, G_w=2.0, G_lam=4.0),
         Val(3.0 * 2.0 + 0.5 * 4.0, 1e-6, "Cauchy-Schwarz"))


def build_hard(rng: np.random.Generator) -> None:
    """Valid but hard: long runs (the sparse route), a class at its degenerate end (``mu -> L``), tiny and huge steps."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase.classes import ConvexLipschitz, SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP, sqnorm
    from fairtheory.worstcase.traced import worst_case

    surface("hard")
    call("hand GD N=60 h=0.05", lambda: _solve(gd_pep(1.0, 0.05, 60, 1.0)), Val(1 / 14, 1e-6, "Drori & Teboulle 2014"),
         timeout=240)
    L = _logu(rng)
    call(f"traced GD N=60 h=1 L={L:g}", (lambda L=L: worst_case(fedavg.make, 60, n=1, L=L, D0=1.0, rho2=0, lr=1 / L)),
         Val(L / 242, 1e-6, "Drori & Teboulle 2014"), timeout=240)
    call("traced subgradient N=60 M=1", lambda: worst_case(fedavg.make, 60, n=1, D0=1.0, rho2=0,
                                                           function_class=ConvexLipschitz(1.0), lr=1 / math.sqrt(61),
                                                           output="best"),
         Val(1 / math.sqrt(61), 1e-6, "Drori & Teboulle 2016"), timeout=240)

    def distance(L: float, mu: float, h: float, N: int) -> Any:
        pep = PEP()
        f = pep.function(SmoothStronglyConvex(L, mu))
        xs, _, _ = f.optimum()
        x = pep.vector()
        pep.add_le(sqnorm(x - xs) - 1)
        for _ in range(N):
            x = x - (h / L) * f.grad(x)
        pep.maximize(sqnorm(x - xs))
        return pep.solve()

    for L, mu, h, N in ((1.0, 0.1, 1.0, 60), (1.0, 1 - 1e-9, 0.5, 3), (1.0, 1 - 1e-6, 1.0, 2), (1e6, 1e6 * 0.3, 1.5, 4),
                        (1e-6, 1e-7, 0.2, 3)):
        rate = max(abs(1 - h), abs(1 - h * mu / L)) ** (2 * N)
        call(f"hand GD distance L={L:g} mu={mu:.10g} h={h:g} N={N}",
             (lambda L=L, mu=mu, h=h, N=N: distance(L, mu, h, N)), Val(rate, 1e-6, "Taylor, Hendrickx & Glineur 2018"),
             timeout=240)
    for h in (1e-6, 1.999):
        call(f"hand GD h={h:g} N=3", (lambda h=h: _solve(gd_pep(1.0, h, 3, 1.0))),
             Val(max(1 / (12 * h + 2), (h - 1) ** 6 / 2), 1e-6, "Drori & Teboulle 2014 / f = x^2/2"))


def build(full: bool = True, only: str | None = None, seed: int | None = None) -> list[Call]:
    """All calls (``full``) or the quick subset, seeded (``seed``: default :data:`SEED`; the sweep of record)."""
    CALLS.clear()
    seed = SEED if seed is None else int(seed)
    _SEED_USED[0] = seed
    rng = np.random.default_rng(seed)
    builders = [build_catalogue, lambda: build_scaled(rng), lambda: build_closed_forms(rng), build_unbounded,
                lambda: build_hard(np.random.default_rng(seed + 1)), build_bad_arguments]
    for b in builders:
        b()   # always build (the seeded draws stay the same whatever is selected)
    out = [c for c in CALLS if (full or c.quick) and (only is None or c.surface == only)]
    if not full:   # a quick call's reference comes along
        need = {c.oracle.cid for c in out if isinstance(c.oracle, Ref)}
        have = {c.cid for c in out}
        out = [c for c in CALLS if c.cid in have or c.cid in need]
    return out


# ================================================================================ running and classifying
def _named(exc_type: str) -> bool:
    return exc_type in _NAMED


_NAMED: set[str] = set()


def _named_types() -> set[str]:
    import fairtheory.errors as errs

    out = set()
    for k in dir(errs):
        t = getattr(errs, k)
        if isinstance(t, type) and issubclass(t, errs.FairtheoryError):
            out.add(f"{t.__module__}.{t.__name__}")
    return out


def _summarise(out: Any) -> dict[str, Any]:
    """The number a call returned, with its status (child side; plain data only)."""
    val: Any = None
    for attr in ("ours", "value"):
        if hasattr(out, attr) and not callable(getattr(out, attr)):
            val = getattr(out, attr)
            break
    else:
        if isinstance(out, (int, float)) and not isinstance(out, bool):
            val = out
    try:
        val = float(val) if val is not None else None
    except (TypeError, ValueError):
        val = None
    status = getattr(out, "status", None)
    value_is = getattr(out, "value_is", None)
    return {"value": val, "status": None if status is None else str(status),
            "value_is": None if value_is is None else str(value_is), "type": type(out).__name__}


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # pragma: no cover
        return 0


def run_one(c: Call) -> tuple[dict[str, Any], float]:
    """Run ``c.fn`` in a forked child: ``{"ok": summary}`` or ``{"exc": type, "msg": ...}``, ``{"timeout": s}``,
    ``{"crash": code}``; and the child's CPU seconds (its own wall clock on a loaded machine is meaningless)."""
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    t0 = os.times()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(r)
            os.setpgid(0, 0)
            vm = _vm_bytes()
            if vm:
                resource.setrlimit(resource.RLIMIT_AS, (vm + CHILD_MEMORY, vm + CHILD_MEMORY))
            import warnings

            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                try:
                    res: dict[str, Any] = {"ok": _summarise(c.fn())}
                except BaseException as exc:  # noqa: BLE001 - every failure is classified
                    t = type(exc)
                    res = {"exc": f"{t.__module__}.{t.__name__}", "msg": str(exc)[:400],
                           "where": traceback.format_exc(limit=-3)[-600:]}
            data = pickle.dumps(res)
            os.write(w, len(data).to_bytes(8, "little"))
            view = memoryview(data)
            while view:
                n = os.write(w, view[:65536])
                view = view[n:]
        except BaseException:  # noqa: BLE001
            code = 3
        finally:
            os._exit(code)
    os.close(w)
    buf = b""
    deadline = time.monotonic() + c.timeout
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([r], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            buf += chunk
    if timed_out:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.close(r)
    _, status = os.waitpid(pid, 0)
    t1 = os.times()
    cpu = (t1.children_user + t1.children_system) - (t0.children_user + t0.children_system)
    if timed_out:
        return {"timeout": c.timeout}, cpu
    if len(buf) < 8:
        return {"crash": status}, cpu
    return pickle.loads(buf[8:]), cpu


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


def _unbounded(s: dict[str, Any]) -> bool:
    v = s.get("value")
    return (v is not None and math.isinf(v) and v > 0) or s.get("value_is") == "unbounded" or s.get("status") == "Unbounded"


def classify(c: Call, res: dict[str, Any], done: dict[str, Outcome]) -> tuple[str, str, float | None]:
    """(class, detail, value) of one call's result (module doc)."""
    o = c.oracle
    if "timeout" in res:
        return "poor failure", f"timeout after {res['timeout']:g} s", None
    if "crash" in res:
        return "poor failure", f"child died (status {res['crash']})", None
    if isinstance(o, Refuse):
        if "ok" in res:
            return "poor failure", f"invalid input accepted: {res['ok']}", res["ok"].get("value")
        if _named(res["exc"]):
            named_arg = not o.arg or o.arg.split(".")[-1] in res["msg"]
            return ("correct refusal", f"{res['exc'].rsplit('.', 1)[-1]}: {res['msg'][:160]}"
                    + ("" if named_arg else f" [message does not name {o.arg!r}]"), None)
        return "poor failure", f"raw {res['exc']}: {res['msg'][:200]}", None
    # valid input
    if "exc" in res:
        return "poor failure", f"valid input refused: {res['exc'].rsplit('.', 1)[-1]}: {res['msg'][:200]}", None
    s = res["ok"]
    v = s.get("value")
    if isinstance(o, Unbounded):
        if _unbounded(s):
            return "correct", f"unbounded ({s.get('status')}, {s.get('value_is')})", v
        return "wrong value", f"finite {v!r} ({s.get('status')}) for an unbounded problem", v
    if v is None or math.isnan(v):
        return "poor failure", f"no value returned: {s}", v
    if _unbounded(s):
        return "wrong value", f"reported unbounded ({s.get('status')}) for a bounded problem", v
    if isinstance(o, Finite):
        return "correct", f"finite {v:.10g} ({s.get('status')})", v
    if isinstance(o, Val):
        ok = _rel(v, o.x) <= o.rtol
        return ("correct" if ok else "wrong value"), f"{v:.10g} vs {o.x:.10g} (rel {_rel(v, o.x):.2e}; {o.why})", v
    if isinstance(o, AtMost):
        ok = v <= o.x * (1 + o.rtol)
        return ("correct" if ok else "wrong value"), f"{v:.10g} <= {o.x:.10g}? ({o.why})", v
    if isinstance(o, Ref):
        base = done.get(o.cid)
        if base is None or base.value is None or base.klass != "correct":
            return "poor failure", f"reference {o.cid} has no correct value ({base.klass if base else 'not run'})", v
        want = base.value * o.factor
        ok = _rel(v, want) <= o.rtol
        return ("correct" if ok else "wrong value"), f"{v:.10g} vs {want:.10g} = {o.factor:g} x scale 1 " \
                                                      f"(rel {_rel(v, want):.2e})", v
    raise AssertionError(o)


def run_sweep(calls: list[Call], json_path: str | None = None, verbose: bool = False,
              log: Callable[[str], None] = print) -> dict[str, Outcome]:
    """Run every call in order; the JSON at ``json_path`` is rewritten after each."""
    _NAMED.clear()
    _NAMED.update(_named_types())
    done: dict[str, Outcome] = {}
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for i, c in enumerate(calls):
        res, cpu = run_one(c)
        klass, detail, value = classify(c, res, done)
        done[c.cid] = Outcome(c.cid, c.surface, klass, detail, value, cpu)
        if verbose or klass in ("wrong value", "poor failure"):
            log(f"[{i + 1}/{len(calls)}] {klass:15s} {c.surface:16s} {c.cid}: {detail} ({cpu:.1f} s CPU)")
        if json_path:
            _write_json(json_path, done, started, len(calls))
    return done


def _write_json(path: str, done: dict[str, Outcome], started: str, total: int) -> None:
    counts = Counter(o.klass for o in done.values())
    data = {"seed": _SEED_USED[0], "started": started, "calls_total": total, "calls_run": len(done),
            "counts": {k: counts.get(k, 0) for k in CLASSES},
            "outcomes": [{"id": o.cid, "surface": o.surface, "class": o.klass, "detail": o.detail, "value": o.value,
                          "cpu_s": round(o.seconds, 3)} for o in done.values()]}
    tmp = f"{path}.tmp"
    Path(tmp).write_text(json.dumps(data, indent=1, default=str))
    os.replace(tmp, path)


def table(done: dict[str, Outcome]) -> str:
    surfaces = list(dict.fromkeys(o.surface for o in done.values()))
    head = f"{'surface':18s}" + "".join(f"{k:>17s}" for k in CLASSES) + f"{'total':>8s}"
    lines = [head, "-" * len(head)]
    for s in surfaces + ["all"]:
        cs = Counter(o.klass for o in done.values() if s == "all" or o.surface == s)
        lines.append(f"{s:18s}" + "".join(f"{cs.get(k, 0):>17d}" for k in CLASSES) + f"{sum(cs.values()):>8d}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="the small default subset of tests/test_hostile_sweep.py")
    ap.add_argument("--only", default=None, help="one surface (catalogue, scaled examples, closed forms, unbounded, "
                                                 "bad arguments)")
    ap.add_argument("--json", default="/tmp/bench_hostile.json")
    ap.add_argument("--match", default=None, help="only the calls whose id contains this text (and their references)")
    ap.add_argument("--seed", type=int, default=None, help=f"the draws' seed (default {SEED}, the sweep of record; "
                                                           "a new one is a fresh held-out sweep)")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args(argv)
    calls = build(full=not a.quick, only=a.only, seed=a.seed)
    if a.match:
        keep = [c for c in calls if a.match in c.cid]
        need = {c.oracle.cid for c in keep if isinstance(c.oracle, Ref)}
        calls = [c for c in calls if c in keep or c.cid in need]
    print(f"bench_hostile: {len(calls)} calls, seed {_SEED_USED[0]}, shared loaded machine (CPU seconds per call), "
          f"JSON {a.json}", flush=True)
    t0 = time.process_time()
    done = run_sweep(calls, a.json, a.v)
    print(table(done))
    print(f"parent CPU {time.process_time() - t0:.1f} s; children CPU {sum(o.seconds for o in done.values()):.1f} s")
    bad = [o for o in done.values() if o.klass in ("wrong value", "poor failure")]
    for o in bad:
        print(f"  {o.klass}: {o.cid}: {o.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
