r"""PEPit 0.5.1's published examples, written from their mathematical statements with the hand-written builder.

Each function below states one example of PEPit (Goujaud, Moucer, Glineur, Hendrickx, Taylor & Dieuleveut,
"PEPit: computer-assisted worst-case analyses of first-order optimization methods in Python", Math. Prog.
Comp. 2024) - the method, the function class, the initial condition and the performance measure - and solves
it with :class:`fairtheory.worstcase.sdp.PEP` and the classes of :mod:`fairtheory.worstcase.classes`; no PEPit
code is used.  Every example returns a :class:`ParityResult`: our worst case, the **theoretical value the
example documents as tight** (with the reference it cites), their relative difference and the wall time.
Keyword names follow the PEPit function (``L``, ``mu``, ``gamma``, ``n``, ...), so the same parameters can be
passed to PEPit itself (``benchmarks/bench_pepit_parity.py`` does when PEPit is installed).

Conventions shared by all examples: the optimum is ``x* = 0`` with ``f* = 0`` (a shift, see
:meth:`Function.optimum`); ``R = 1`` in the initial condition; the value reported is :meth:`PEP.solve`'s
primal value (Clarabel, tolerance ``1e-8``) with its duality gap.

:data:`EXAMPLES` lists them with the parameters of the quick and the full runs (``verify/claims/pepit_parity.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory._validation import check_positive
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import units
from fairtheory.worstcase.classes import (
    Convex,
    ConvexIndicator,
    ConvexLipschitz,
    ConvexQG,
    RsiEb,
    SmoothNonconvex,
    SmoothQuadraticLojasiewicz,
    SmoothStronglyConvex,
    SmoothStronglyConvexQuadratic,
    StronglyConvex,
)
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, inner, sqnorm
from fairtheory.worstcase.steps import (
    BlockPartition,
    Combination,
    bregman_gradient_step,
    bregman_proximal_step,
    epsilon_subgradient_step,
    exact_linesearch_step,
    inexact_gradient,
    inexact_proximal_step,
    linear_optimization_step,
)

__all__ = ["ParityResult", "Example", "EXAMPLES", "run_example", "REL_TOL"]

#: the agreement required between our worst case and the documented theoretical value (relative)
REL_TOL = 1e-6


@dataclass(frozen=True)
class ParityResult:
    """One example solved: ``ours`` (the PEP's primal value), ``theory`` (the documented tight value)."""

    name: str
    params: dict[str, Any]
    ours: float
    theory: float
    rel_diff: float          #: ``|ours - theory| / |theory|``
    seconds: float           #: wall time to build and solve our PEP
    gap: float               #: Clarabel's duality gap (dual - primal)
    status: str              #: Clarabel's status
    reference: str
    #: ``"tight"``: the paper's value is the exact worst case (agreement to ``REL_TOL``); ``"bound"``: the paper proves
    #: an upper bound only (``ours <= theory (1 + REL_TOL)``)
    kind: str = "tight"

    @property
    def agrees(self) -> bool:
        """``|ours - theory| <= REL_TOL |theory|`` (``kind == "bound"``: ``ours <= (1 + REL_TOL) theory``) with the
        solver ``Solved`` or ``AlmostSolved``."""
        ok = self.status in ("Solved", "AlmostSolved")
        if self.kind == "bound":
            return ok and self.ours <= self.theory * (1 + REL_TOL)
        return ok and self.rel_diff <= REL_TOL


def _finish(name: str, params: dict[str, Any], pep: PEP, theory: float, t0: float, reference: str,
            kind: str = "tight", gmp: str = "auto", unit: Fraction = Fraction(1)) -> ParityResult:
    """Solve and report; ``unit``: the measure's unit (an exact rational, a product of powers of the units) when the
    PEP was posed in normalised parameters (homogeneity), the value mapped back as ``unit * value`` (rounded once)."""
    sol = pep.solve(gmp=gmp)
    secs = time.perf_counter() - t0
    value, gap = float(sol.value), float(sol.gap)
    if unit != 1:
        value, gap = _times(value, unit), _times(gap, unit)
    rel = abs(value - theory) / abs(theory) if theory != 0 else abs(value)
    return ParityResult(name, dict(params), value, float(theory), float(rel), secs, gap,
                        sol.status, reference, kind)


def _n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise FairtheoryValueError(f"n (the number of iterations) must be an integer >= 1, got {n!r}")
    return n


# ------------------------------------------------------------------------- unconstrained convex minimization
def gradient_descent(L: float = 3.0, gamma: float = 1 / 3, n: int = 4) -> ParityResult:
    r"""GD ``x_{t+1} = x_t - gamma grad f(x_t)`` on ``L``-smooth convex ``f``, ``||x_0 - x*||^2 <= 1``:
    ``f(x_n) - f* <= L / (4 n L gamma + 2)`` for ``gamma <= 1/L``, tight (Drori & Teboulle 2014, Thm 3.1;
    PEPit ``unconstrained_convex_minimization/gradient_descent``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    for _ in range(_n(n)):
        x = x - gamma * f.grad(x)
    pep.maximize(f.value(x))
    return _finish("gradient_descent", {"L": L, "gamma": gamma, "n": n}, pep, L / (4 * n * L * gamma + 2), t0,
                   "Drori & Teboulle 2014, Thm 3.1")


def subgradient_method(M: float = 2.0, n: int = 6, gamma: float | None = None) -> ParityResult:
    r"""Subgradient method ``x_{t+1} = x_t - gamma g_t`` on convex ``M``-Lipschitz ``f``, ``||x_0 - x*|| <= 1``,
    ``gamma = 1/(M sqrt(n+1))``: ``min_{0<=t<=n} f(x_t) - f* <= M / sqrt(n+1)``, tight (Nesterov 2003, Sec 3.2.3;
    Drori & Teboulle 2016 for tightness; PEPit ``unconstrained_convex_minimization/subgradient_method``)."""
    t0 = time.perf_counter()
    n = _n(n)
    g_ = 1 / (M * math.sqrt(n + 1))
    if gamma is not None and abs(gamma - g_) > 1e-12 * g_:
        raise FairtheoryValueError(f"gamma must be 1/(M sqrt(n+1)) = {g_!r} (the documented tight value is for that "
                                   f"step), got {gamma!r}")
    pep = PEP()
    f = pep.function(ConvexLipschitz(M))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    vals = []
    g, fx = f.oracle(x)
    for _ in range(n):
        vals.append(fx)
        x = x - g_ * g
        g, fx = f.oracle(x)
    vals.append(fx)
    pep.maximize_min(vals)
    return _finish("subgradient_method", {"M": M, "n": n, "gamma": g_}, pep, M / math.sqrt(n + 1), t0,
                   "Nesterov 2003, Sec 3.2.3; Drori & Teboulle 2016")


def proximal_point(gamma: float = 3.0, n: int = 4) -> ParityResult:
    r"""Proximal point ``x_{t+1} = prox_{gamma f}(x_t)`` on closed convex ``f``, ``||x_0 - x*||^2 <= 1``:
    ``f(x_n) - f* <= 1/(4 gamma n)``, tight (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 4.1; PEPit
    ``unconstrained_convex_minimization/proximal_point``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    fx = Scalar()
    for _ in range(_n(n)):
        x, _, fx = f.prox(x, gamma)
    pep.maximize(fx)
    return _finish("proximal_point", {"gamma": gamma, "n": n}, pep, 1 / (4 * gamma * n), t0,
                   "Taylor, Hendrickx & Glineur 2017 (SIAM J. Optim.), Thm 4.1")


def _ogm_thetas(n: int) -> list[float]:
    th = [1.0]
    for i in range(n):
        c = 8 if i == n - 1 else 4
        th.append((1 + math.sqrt(c * th[-1] ** 2 + 1)) / 2)
    return th


def optimized_gradient(L: float = 3.0, n: int = 4) -> ParityResult:
    r"""OGM (Kim & Fessler 2016): ``x_{t+1} = y_t - grad f(y_t)/L``, ``y_{t+1} = x_{t+1} + (theta_t - 1)/theta_{t+1}
    (x_{t+1} - x_t) + theta_t/theta_{t+1} (x_{t+1} - y_t)`` (last ``theta`` with ``8`` instead of ``4``) on
    ``L``-smooth convex ``f``: ``f(y_n) - f* <= L/(2 theta_n^2)``, tight (Kim & Fessler 2016, Thm 2; Drori 2017,
    Thm 3; PEPit ``unconstrained_convex_minimization/optimized_gradient``)."""
    t0 = time.perf_counter()
    n = _n(n)
    th = _ogm_thetas(n)
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x_new, y = x0, x0
    for i in range(n):
        x_old = x_new
        x_new = y - (1 / L) * f.grad(y)
        y = x_new + ((th[i] - 1) / th[i + 1]) * (x_new - x_old) + (th[i] / th[i + 1]) * (x_new - y)
    pep.maximize(f.value(y))
    return _finish("optimized_gradient", {"L": L, "n": n}, pep, L / (2 * th[n] ** 2), t0,
                   "Kim & Fessler 2016, Thm 2; Drori 2017, Thm 3")


def optimized_gradient_for_gradient(L: float = 3.0, n: int = 4) -> ParityResult:
    r"""OGM-G (Kim & Fessler 2021): ``y_{t+1} = x_t - grad f(x_t)/L``, ``x_{t+1} = y_{t+1} + a_t (y_{t+1} - y_t)
    + b_t (y_{t+1} - x_t)`` with the reversed ``tilde theta`` sequence, on ``L``-smooth convex ``f`` with
    ``f(x_0) - f* <= 1``: ``||grad f(x_n)||^2 <= 2L / tilde theta_0^2``, tight (Kim & Fessler 2021, Thm 6.1; PEPit
    ``unconstrained_convex_minimization/optimized_gradient_for_gradient``)."""
    t0 = time.perf_counter()
    n = _n(n)
    tt = _ogm_thetas(n)[::-1]
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(f.value(x0) - 1)
    x, y_new = x0, x0
    for i in range(n):
        y_old = y_new
        y_new = x - (1 / L) * f.grad(x)
        a = (tt[i] - 1) * (2 * tt[i + 1] - 1) / tt[i] / (2 * tt[i] - 1)
        b = (2 * tt[i + 1] - 1) / (2 * tt[i] - 1)
        x = y_new + a * (y_new - y_old) + b * (y_new - x)
    pep.maximize(sqnorm(f.grad(x)))
    return _finish("optimized_gradient_for_gradient", {"L": L, "n": n}, pep, 2 * L / tt[0] ** 2, t0,
                   "Kim & Fessler 2021, Thm 6.1")


def inexact_gradient_descent(L: float = 1.0, mu: float = 0.1, epsilon: float = 0.1, n: int = 2) -> ParityResult:
    r"""GD with relatively inexact gradients ``x_{t+1} = x_t - gamma d_t``, ``||d_t - grad f(x_t)|| <= epsilon
    ||grad f(x_t)||``, ``gamma = 2/(L_eps + mu_eps)``, ``L_eps = (1 + epsilon) L``, ``mu_eps = (1 - epsilon) mu``, on
    ``L``-smooth ``mu``-strongly convex ``f`` with ``f(x_0) - f* <= 1``: ``f(x_n) - f* <= ((L_eps - mu_eps)/(L_eps +
    mu_eps))^{2n}``, tight (de Klerk, Glineur & Taylor 2020, Thm 5.3; Gannot 2021; PEPit
    ``unconstrained_convex_minimization/inexact_gradient_descent``)."""
    t0 = time.perf_counter()
    Le, me = (1 + epsilon) * L, (1 - epsilon) * mu
    gamma = 2 / (Le + me)
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(f.value(x) - 1)
    for _ in range(_n(n)):
        x = x - gamma * f.inexact_grad(x, epsilon)
    pep.maximize(f.value(x))
    return _finish("inexact_gradient_descent", {"L": L, "mu": mu, "epsilon": epsilon, "n": n}, pep,
                   ((Le - me) / (Le + me)) ** (2 * n), t0, "de Klerk, Glineur & Taylor 2020, Thm 5.3")


def information_theoretic_exact_method(mu: float = 0.001, L: float = 1.0, n: int = 15) -> ParityResult:
    r"""ITEM (Taylor & Drori 2022) on ``L``-smooth ``mu``-strongly convex ``f``, ``||z_0 - x*||^2 <= 1``:
    ``||z_n - x*||^2 <= 1/(1 + q A_n)``, ``q = mu/L``, tight (Taylor & Drori 2022, Thm 3 and Lemma 2; PEPit
    ``unconstrained_convex_minimization/information_theoretic_exact_method``)."""
    t0 = time.perf_counter()
    n = _n(n)
    q = mu / L
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    z0 = pep.vector()
    pep.add_le(sqnorm(z0) - 1)
    A_new = 0.0
    x, z = z0, z0
    for _ in range(n):
        A_old = A_new
        A_new = ((1 + q) * A_old + 2 * (1 + math.sqrt((1 + A_old) * (1 + q * A_old)))) / (1 - q) ** 2
        beta = A_old / (1 - q) / A_new
        delta = 0.5 * ((1 - q) ** 2 * A_new - (1 + q) * A_old) / (1 + q + q * A_old)
        y = (1 - beta) * z + beta * x
        g = f.grad(y)
        x = y - (1 / L) * g
        z = (1 - q * delta) * z + (q * delta) * y - (delta / L) * g
    pep.maximize(sqnorm(z))
    return _finish("information_theoretic_exact_method", {"mu": mu, "L": L, "n": n}, pep, 1 / (1 + q * A_new), t0,
                   "Taylor & Drori 2022, Thm 3")


def gradient_descent_contraction(L: float = 1.0, mu: float = 0.1, gamma: float = 1.0, n: int = 1) -> ParityResult:
    r"""Two GD runs on one ``L``-smooth ``mu``-strongly convex ``f``, ``||x_0 - y_0||^2 <= 1``: ``||x_n - y_n||^2 <=
    max((1 - L gamma)^2, (1 - mu gamma)^2)^n``, tight on quadratics (PEPit ``tutorials/gradient_descent_contraction``;
    e.g. Polyak 1987, Sec 1.4 Thm 3)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    x0, y0 = pep.vector(), pep.vector()
    pep.add_le(sqnorm(x0 - y0) - 1)
    x, y = x0, y0
    for _ in range(_n(n)):
        x = x - gamma * f.grad(x)
        y = y - gamma * f.grad(y)
    pep.maximize(sqnorm(x - y))
    return _finish("gradient_descent_contraction", {"L": L, "mu": mu, "gamma": gamma, "n": n}, pep,
                   max((1 - L * gamma) ** 2, (1 - mu * gamma) ** 2) ** n, t0, "Polyak 1987, Sec 1.4 Thm 3")


def polyak_steps_in_distance_to_optimum(L: float = 1.0, mu: float = 0.1, gamma: float = 2 / 1.1) -> ParityResult:
    r"""One gradient step whose step ``gamma`` is Polyak's, ``gamma ||grad f(x_0)||^2 = 2 (f(x_0) - f*)``, on
    ``L``-smooth ``mu``-strongly convex ``f``, ``||x_0 - x*||^2 <= 1``: ``||x_1 - x*||^2 <= (gamma L - 1)(1 - gamma mu)
    / (gamma (L + mu) - 1)`` for ``gamma in [1/L, 1/mu]``, tight (Barre, Taylor & d'Aspremont 2020, Prop 1; PEPit
    ``adaptive_methods/polyak_steps_in_distance_to_optimum``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x0 = pep.vector()
    g0, f0 = f.oracle(x0)
    pep.add_le(sqnorm(x0) - 1)
    x1 = x0 - gamma * g0
    f.oracle(x1)
    pep.add_eq(gamma * sqnorm(g0) - 2 * f0)
    pep.maximize(sqnorm(x1))
    th = (gamma * L - 1) * (1 - gamma * mu) / (gamma * (L + mu) - 1) if 1 / L <= gamma <= 1 / mu else 0.0
    return _finish("polyak_steps_in_distance_to_optimum", {"L": L, "mu": mu, "gamma": gamma}, pep, th, t0,
                   "Barre, Taylor & d'Aspremont 2020, Prop 1")


def polyak_steps_in_function_value(L: float = 1.0, mu: float = 0.1, gamma: float = 2 / 1.1) -> ParityResult:
    r"""One gradient step ``x_1 = x_0 - gamma grad f(x_0)`` with ``||grad f(x_0)||^2 = 2 L (2 - L gamma)(f(x_0) - f*)``
    on ``L``-smooth ``mu``-strongly convex ``f``, ``f(x_0) - f* <= 1``: ``f(x_1) - f* <= (gamma L - 1)(L gamma (3 -
    gamma (L + mu)) - 1)`` for ``gamma in [1/L, (2L - mu)/L^2]``, tight (Barre, Taylor & d'Aspremont 2020, Prop 2;
    PEPit ``adaptive_methods/polyak_steps_in_function_value``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x0 = pep.vector()
    g0, f0 = f.oracle(x0)
    pep.add_le(f0 - 1)
    pep.add_eq(sqnorm(g0) - (2 * L * (2 - L * gamma)) * f0)
    x1 = x0 - gamma * g0
    pep.maximize(f.value(x1))
    ok = 1 / L <= gamma <= (2 * L - mu) / L ** 2
    th = (gamma * L - 1) * (L * gamma * (3 - gamma * (L + mu)) - 1) if ok else 0.0
    return _finish("polyak_steps_in_function_value", {"L": L, "mu": mu, "gamma": gamma}, pep, th, t0,
                   "Barre, Taylor & d'Aspremont 2020, Prop 2")


def sgd_overparametrized(L: float = 1.0, mu: float = 0.1, gamma: float = 2.3, n: int = 5) -> ParityResult:
    r"""One SGD step on ``F = (1/n) sum_i f_i``, ``f_i`` ``L``-smooth ``mu``-strongly convex, all minimised at ``x*``
    (zero variance at the optimum), ``||x_0 - x*||^2 <= 1``: ``E ||x_1 - x*||^2 <= max(1 - gamma mu, L gamma - 1)^2``,
    empirically tight (PESTO, Taylor, Hendrickx & Glineur 2017 CDC; PEPit
    ``stochastic_and_randomized_convex_minimization/sgd_overparametrized``)."""
    t0 = time.perf_counter()
    pep = PEP()
    fs = [pep.function(SmoothStronglyConvex(L, mu)) for _ in range(_n(n))]
    for f in fs:
        f.optimum()                    # every grad f_i(x*) = 0: the zero-variance condition
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    meas = Scalar()
    for f in fs:
        meas = meas + (1 / n) * sqnorm(x0 - gamma * f.grad(x0))
    pep.maximize(meas)
    return _finish("sgd_overparametrized", {"L": L, "mu": mu, "gamma": gamma, "n": n}, pep,
                   max(1 - gamma * mu, L * gamma - 1) ** 2, t0, "PESTO (Taylor, Hendrickx & Glineur 2017, CDC)")


# ------------------------------------------------------------------------- composite convex minimization
def proximal_gradient(L: float = 1.0, mu: float = 0.1, gamma: float = 1.0, n: int = 2) -> ParityResult:
    r"""Proximal gradient ``x_{t+1} = prox_{gamma f_2}(x_t - gamma grad f_1(x_t))``, ``f_1`` ``L``-smooth
    ``mu``-strongly convex, ``f_2`` closed convex, ``||x_0 - x*||^2 <= 1`` (``x*`` minimises ``f_1 + f_2``):
    ``||x_n - x*||^2 <= max((1 - L gamma)^2, (1 - mu gamma)^2)^n``, tight (Taylor, Hendrickx & Glineur 2018,
    JOTA, Thm 3.1; PEPit ``composite_convex_minimization/proximal_gradient``)."""
    return _prox_grad("proximal_gradient", Convex(), L, mu, gamma, n)


def proximal_gradient_projected(L: float = 1.0, mu: float = 0.1, gamma: float = 1.0, n: int = 2) -> ParityResult:
    r"""PEPit's ``proximal_gradient`` with ``f_2`` the indicator of a closed convex set (projected gradient
    ``x_{t+1} = Proj_C(x_t - gamma grad f_1(x_t))``): the same tight rate, since Taylor, Hendrickx & Glineur 2018
    (JOTA), Thm 3.1 holds for every closed convex ``f_2`` (upper bound) and ``C = R^d`` attains it (lower bound)."""
    return _prox_grad("proximal_gradient_projected", ConvexIndicator(), L, mu, gamma, n)


def _prox_grad(name: str, cls2: Any, L: float, mu: float, gamma: float, n: int) -> ParityResult:
    t0 = time.perf_counter()
    pep = PEP()
    f1 = pep.function(SmoothStronglyConvex(L, mu))
    f2 = pep.function(cls2)
    pep.optimum_of_sum([f1, f2])
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(_n(n)):
        y = x - gamma * f1.grad(x)
        x = f2.project(y) if cls2.zero_values else f2.prox(y, gamma)[0]
    pep.maximize(sqnorm(x))
    return _finish(name, {"L": L, "mu": mu, "gamma": gamma, "n": n}, pep,
                   max((1 - mu * gamma) ** 2, (1 - L * gamma) ** 2) ** n, t0,
                   "Taylor, Hendrickx & Glineur 2018 (JOTA), Thm 3.1")


def accelerated_proximal_gradient_simplified(mu: float = 0.0, L: float = 1.0, n: int = 4) -> ParityResult:
    r"""FPGM ``x_{t+1} = prox_{h/L}(y_t - grad f(y_t)/L)``, ``y_{t+1} = x_{t+1} + t/(t+3) (x_{t+1} - x_t)`` on
    ``F = f + h``, ``f`` ``L``-smooth convex (``mu = 0``), ``h`` closed convex, ``||x_0 - x*||^2 <= 1``:
    ``F(x_n) - F* <= 2L/(n^2 + 5n + 2)``, tight for ``mu = 0`` (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim.,
    Table 1; PEPit ``composite_convex_minimization/accelerated_proximal_gradient_simplified``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    h = pep.function(Convex())
    pep.optimum_of_sum([f, h])
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x_new, y = x0, x0
    hx: Scalar = Scalar()
    for i in range(_n(n)):
        x_old = x_new
        x_new, _, hx = h.prox(y - (1 / L) * f.grad(y), 1 / L)
        y = x_new + (i / (i + 3)) * (x_new - x_old)
    pep.maximize(f.value(x_new) + hx)
    return _finish("accelerated_proximal_gradient_simplified", {"mu": mu, "L": L, "n": n}, pep,
                   2 * L / (n ** 2 + 5 * n + 2), t0, "Taylor, Hendrickx & Glineur 2017 (SIAM J. Optim.), Table 1")


def douglas_rachford_splitting_contraction(mu: float = 0.1, L: float = 1.0, alpha: float = 3.0, theta: float = 1.0,
                                           n: int = 2) -> ParityResult:
    r"""Two DRS runs ``x_t = prox_{alpha f_2}(w_t)``, ``y_t = prox_{alpha f_1}(2 x_t - w_t)``, ``w_{t+1} = w_t +
    theta (y_t - x_t)``, ``f_1`` ``L``-smooth ``mu``-strongly convex, ``f_2`` closed convex, ``||w_0 - w_0'||^2 <= 1``:
    for ``theta = 1``, ``||w_n - w_n'||^2 <= max(1/(1 + mu alpha), alpha L/(1 + alpha L))^{2n}``, tight (Giselsson &
    Boyd 2016, Thm 2; Ryu, Taylor, Bergeling & Giselsson 2020; PEPit
    ``composite_convex_minimization/douglas_rachford_splitting_contraction``)."""
    if theta != 1:
        raise FairtheoryValueError(f"theta must be 1 (the documented tight value is for theta = 1), got {theta!r}")
    t0 = time.perf_counter()
    pep = PEP()
    f1 = pep.function(SmoothStronglyConvex(L, mu))
    f2 = pep.function(Convex())
    w0, w0p = pep.vector(), pep.vector()
    pep.add_le(sqnorm(w0 - w0p) - 1)

    def run(w: Vec) -> Vec:
        for _ in range(_n(n)):
            x = f2.prox(w, alpha)[0]
            y = f1.prox(2 * x - w, alpha)[0]
            w = w + theta * (y - x)
        return w

    pep.maximize(sqnorm(run(w0) - run(w0p)))
    return _finish("douglas_rachford_splitting_contraction", {"mu": mu, "L": L, "alpha": alpha, "theta": theta,
                                                              "n": n}, pep,
                   max(1 / (1 + mu * alpha), alpha * L / (1 + alpha * L)) ** (2 * n), t0, "Giselsson & Boyd 2016, Thm 2")


# ------------------------------------------------------------------------- nonconvex optimization
def nonconvex_gradient_descent(L: float = 1.0, gamma: float = 1.0, n: int = 5) -> ParityResult:
    r"""GD on ``L``-smooth (nonconvex) ``f`` with ``f(x_0) - f(x_n) <= 1``: ``min_{0<=t<=n} ||grad f(x_t)||^2 <=
    4L/(3n)`` for ``gamma = 1/L``, documented as empirically tight (Taylor 2017, PhD thesis, p. 190;
    Abbaszadehpeivasti, de Klerk & Zamani 2021; PEPit ``nonconvex_optimization/gradient_descent``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothNonconvex(L))
    x = pep.vector()
    g, f0 = f.oracle(x)
    meas = [sqnorm(g)]
    fx = f0
    for _ in range(_n(n)):
        x = x - gamma * g
        g, fx = f.oracle(x)
        meas.append(sqnorm(g))
    pep.add_le(f0 - fx - 1)
    pep.maximize_min(meas)
    return _finish("nonconvex_gradient_descent", {"L": L, "gamma": gamma, "n": n}, pep, 4 / 3 * L / n, t0,
                   "Taylor 2017 (PhD thesis), p. 190; Abbaszadehpeivasti, de Klerk & Zamani 2021")


# ------------------------------------------------------------------------- the catalogue's other classes and steps
#: exact line-search PEPs are solved in GMP arithmetic (SDPA-GMP) whenever they are small enough: their float solve
#: stalls ~1e-6 short of the optimum (gradient_exact_line_search, L = 1, mu = 0.1, n = 3: 7.6e-6 relative, Clarabel
#: 'Solved' with a PSD Gram matrix; 2e-7 at tol 1e-10, AlmostSolved at 1e-11), the GMP solve meets the closed form to 4e-16
_ELS_GMP = "always"


def gradient_exact_line_search(L: float = 1.0, mu: float = 0.1, n: int = 2) -> ParityResult:
    r"""Steepest descent with exact line search on ``L``-smooth ``mu``-strongly convex ``f``, ``f(x_0) - f* <= 1``:
    ``f(x_n) - f* <= ((L - mu)/(L + mu))^{2n}``, tight (de Klerk, Glineur & Taylor 2017, Optim. Lett., Thm 1.2; PEPit
    ``unconstrained_convex_minimization/gradient_exact_line_search``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x = pep.vector()
    g, fx = f.oracle(x)
    pep.add_le(fx - 1)
    for _ in range(_n(n)):
        x, g, fx = exact_linesearch_step(f, x, [g])
    pep.maximize(fx)
    return _finish("gradient_exact_line_search", {"L": L, "mu": mu, "n": n}, pep, ((L - mu) / (L + mu)) ** (2 * n), t0,
                   "de Klerk, Glineur & Taylor 2017, Thm 1.2", gmp=_ELS_GMP)


def inexact_gradient_exact_line_search(L: float = 1.0, mu: float = 0.1, epsilon: float = 0.1, n: int = 2
                                       ) -> ParityResult:
    r"""Exact line search along relatively inexact gradients ``||d_t - grad f(x_t)|| <= epsilon ||grad f(x_t)||`` on
    ``L``-smooth ``mu``-strongly convex ``f``, ``f(x_0) - f* <= 1``: ``f(x_n) - f* <= ((L_eps - mu_eps)/(L_eps +
    mu_eps))^{2n}``, ``L_eps = (1 + epsilon) L``, ``mu_eps = (1 - epsilon) mu``, tight (de Klerk, Glineur & Taylor 2017,
    Thm 5.1; PEPit ``unconstrained_convex_minimization/inexact_gradient_exact_line_search``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(f.value(x) - 1)
    for _ in range(_n(n)):
        d = inexact_gradient(f, x, epsilon, notion="relative")
        x, _, _ = exact_linesearch_step(f, x, [d])
    pep.maximize(f.value(x))
    Le, me = (1 + epsilon) * L, (1 - epsilon) * mu
    return _finish("inexact_gradient_exact_line_search", {"L": L, "mu": mu, "epsilon": epsilon, "n": n}, pep,
                   ((Le - me) / (Le + me)) ** (2 * n), t0, "de Klerk, Glineur & Taylor 2017, Thm 5.1", gmp=_ELS_GMP)


def _cg(name: str, cls: Any, n: int, theory: float, ref: str, params: dict[str, Any]) -> ParityResult:
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(cls)
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    g0, fx = f.oracle(x0)
    span = [g0]
    x_new = x0
    for _ in range(_n(n)):
        x_old = x_new
        x_new, gx, fx = exact_linesearch_step(f, x_new, span)
        span += [gx, x_old - x_new]
    pep.maximize(fx)
    return _finish(name, params, pep, theory, t0, ref, gmp=_ELS_GMP)


def conjugate_gradient(L: float = 1.0, n: int = 2) -> ParityResult:
    r"""The greedy subspace method (conjugate gradient; exact minimisation over ``x_t + span{g_0, ..., g_t, x_{t-1} -
    x_t, ...}``) on ``L``-smooth convex ``f``, ``||x_0 - x*||^2 <= 1``: ``f(x_n) - f* <= L/(2 theta_n^2)``, OGM's tight
    value (Drori & Taylor 2020, "Efficient first-order methods for convex minimization: a constructive approach",
    Thm 3 and Cor 6; PEPit ``unconstrained_convex_minimization/conjugate_gradient``)."""
    th = _ogm_thetas(_n(n))
    return _cg("conjugate_gradient", SmoothStronglyConvex(L, 0), n, L / (2 * th[n] ** 2),
               "Drori & Taylor 2020, Thm 3", {"L": L, "n": n})


def conjugate_gradient_qg_convex(L: float = 1.0, n: int = 12) -> ParityResult:
    r"""The same subspace method on convex ``QG+`` functions (``f - f* <= L/2 ||x - x*||^2``), ``||x_0 - x*||^2 <= 1``:
    ``f(x_n) - f* <= L/(2(n + 1))``, tight (Goujaud, Taylor & Dieuleveut 2022, Thm 3.1 and Sec 4; PEPit
    ``unconstrained_convex_minimization/conjugate_gradient_qg_convex``)."""
    return _cg("conjugate_gradient_qg_convex", ConvexQG(L), n, L / (2 * (n + 1)),
               "Goujaud, Taylor & Dieuleveut 2022", {"L": L, "n": n})


def gradient_descent_qg_convex(L: float = 1.0, gamma: float = 0.2, n: int = 4) -> ParityResult:
    r"""Subgradient descent ``x_{t+1} = x_t - gamma g_t`` on convex ``QG+`` functions, ``||x_0 - x*||^2 <= 1``:
    ``f(x_n) - f* <= L/2 max(1/(2 n L gamma + 1), L gamma)``, tight (Goujaud, Taylor & Dieuleveut 2022, Thm 2.2; PEPit
    ``unconstrained_convex_minimization/gradient_descent_qg_convex``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(ConvexQG(L))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(_n(n)):
        x = x - gamma * f.grad(x)
    pep.maximize(f.value(x))
    return _finish("gradient_descent_qg_convex", {"L": L, "gamma": gamma, "n": n}, pep,
                   L / 2 * max(1 / (2 * n * L * gamma + 1), L * gamma), t0, "Goujaud, Taylor & Dieuleveut 2022, Thm 2.2")


def heavy_ball_momentum_qg_convex(L: float = 1.0, n: int = 5) -> ParityResult:
    r"""Heavy ball ``x_{t+1} = x_t - g_t/(L(t + 2)) + t/(t + 2) (x_t - x_{t-1})`` on convex ``QG+`` functions,
    ``||x_0 - x*||^2 <= 1``: ``f(x_n) - f* <= L/(2(n + 1))``, tight (Goujaud, Taylor & Dieuleveut 2022, Thm 3.3; PEPit
    ``unconstrained_convex_minimization/heavy_ball_momentum_qg_convex``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(ConvexQG(L))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x_new, x_old = x0, x0
    for t in range(_n(n)):
        x_next = x_new - (1 / (L * (t + 2))) * f.grad(x_new) + (t / (t + 2)) * (x_new - x_old)
        x_old, x_new = x_new, x_next
    pep.maximize(f.value(x_new))
    return _finish("heavy_ball_momentum_qg_convex", {"L": L, "n": n}, pep, L / (2 * (n + 1)), t0,
                   "Goujaud, Taylor & Dieuleveut 2022, Thm 3.3")


def subgradient_method_rsi_eb(mu: float = 0.1, L: float = 1.0, gamma: float = 0.1, n: int = 4) -> ParityResult:
    r"""Gradient descent on ``RSI^- cap EB^+`` functions, ``||x_0 - x*||^2 <= 1``: ``||x_n - x*||^2 <= (1 - 2 gamma mu +
    gamma^2 L^2)^n``, tight (Guille-Escuret, Goujaud, Ibrahim & Mitliagkas 2022, Thm 2; PEPit
    ``unconstrained_convex_minimization/subgradient_method_rsi_eb``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(RsiEb(mu, L))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(_n(n)):
        x = x - gamma * f.grad(x)
    pep.maximize(sqnorm(x))
    return _finish("subgradient_method_rsi_eb", {"mu": mu, "L": L, "gamma": gamma, "n": n}, pep,
                   (1 - 2 * gamma * mu + gamma ** 2 * L ** 2) ** n, t0, "Guille-Escuret et al. 2022, Thm 2")


def gradient_descent_quadratics(mu: float = 0.3, L: float = 3.0, gamma: float = 1 / 3, n: int = 4) -> ParityResult:
    r"""GD on quadratics ``1/2 <x, Q x>``, ``mu I <= Q <= L I``, ``||x_0 - x*||^2 <= 1``: ``f(x_n) - f* = max over the
    spectrum of lambda/2 (1 - gamma lambda)^{2n}``, i.e. ``L/2 max(a (1 - a L gamma)^{2n}, (1 - L gamma)^{2n})`` with
    ``a = clip(1/(L gamma (2n + 1)), mu/L, 1)`` (one eigenvector carries ``x_0``; PEPit
    ``unconstrained_convex_minimization/gradient_descent_quadratics``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(SmoothStronglyConvexQuadratic(L, mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(_n(n)):
        x = x - gamma * f.grad(x)
    pep.maximize(f.value(x))
    a = min(max(1 / (L * gamma * (2 * n + 1)), mu / L), 1.0)
    th = 0.5 * L * max(a * (1 - a * L * gamma) ** (2 * n), (1 - L * gamma) ** (2 * n))
    return _finish("gradient_descent_quadratics", {"mu": mu, "L": L, "gamma": gamma, "n": n}, pep, th, t0,
                   "Bousselmi, Hendrickx & Glineur 2023 (interpolation); spectral maximum")


def proximal_gradient_quadratics(L: float = 1.0, mu: float = 0.1, gamma: float = 1.0, n: int = 2) -> ParityResult:
    r"""Proximal gradient with ``f_1`` a quadratic (``mu I <= Q <= L I``) and ``f_2`` closed convex, ``||x_0 - x*||^2 <=
    1``: ``||x_n - x*||^2 <= max((1 - L gamma)^2, (1 - mu gamma)^2)^n``, tight (Taylor, Hendrickx & Glineur 2018,
    JOTA, Thm 3.1, attained by a quadratic; PEPit ``composite_convex_minimization/proximal_gradient_quadratics``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f1 = pep.function(SmoothStronglyConvexQuadratic(L, mu))
    f2 = pep.function(Convex())
    # x* = 0 minimises f_1 + f_2; the quadratic's own minimiser is 0 too, so grad f_1(x*) = 0 and 0 in df_2(x*)
    f1.optimum()
    f2.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(_n(n)):
        x = f2.prox(x - gamma * f1.grad(x), gamma)[0]
    pep.maximize(sqnorm(x))
    return _finish("proximal_gradient_quadratics", {"L": L, "mu": mu, "gamma": gamma, "n": n}, pep,
                   max((1 - mu * gamma) ** 2, (1 - L * gamma) ** 2) ** n, t0,
                   "Taylor, Hendrickx & Glineur 2018 (JOTA), Thm 3.1")


def gradient_descent_quadratic_lojasiewicz(L: float = 1.0, mu: float = 0.2, gamma: float = 1.0, n: int = 1
                                           ) -> ParityResult:
    r"""GD on ``L``-smooth functions with the quadratic Lojasiewicz inequality ``f - f* <= ||grad f||^2/(2 mu)``,
    ``f(x_0) - f* <= 1``: one step contracts ``f - f*`` by ``rho(gamma)`` with (``m = -L``, ``m' = mu``) ``rho = ((L gamma -
    2)(m gamma - 2) m' gamma)/((L + m - m') gamma - 2) + 1`` for ``gamma in [1/L, 3/(m + L + sqrt(m^2 - L m + L^2))]``
    and ``(L gamma - 1)^2/((L gamma - 1)^2 + m' gamma (2 - L gamma))`` up to ``2/L``, tight
    (Abbaszadehpeivasti, de Klerk & Zamani 2023, "Conditions for linear convergence of the gradient method for
    non-convex optimization", Thm 3; PEPit ``nonconvex_optimization/gradient_descent_quadratic_lojasiewicz_naive``).
    The class is a relaxation (:class:`SmoothQuadraticLojasiewicz`): the PEP value is an upper bound, equal to the
    tight value here."""
    t0 = time.perf_counter()
    if not 1 / L <= gamma < 2 / L:
        raise FairtheoryValueError(f"gamma must lie in [1/L, 2/L) (the documented cases), got {gamma!r}")
    pep = PEP()
    f = pep.function(SmoothQuadraticLojasiewicz(L, mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(f.value(x) - 1)
    for _ in range(_n(n)):
        x = x - gamma * f.grad(x)
    pep.maximize(f.value(x))
    m, mp = -L, mu
    if gamma <= 3 / (m + L + math.sqrt(m ** 2 - L * m + L ** 2)):
        rho = ((L * gamma - 2) * (m * gamma - 2) * mp * gamma) / ((L + m - mp) * gamma - 2) + 1
    else:
        rho = (L * gamma - 1) ** 2 / ((L * gamma - 1) ** 2 + mp * gamma * (2 - L * gamma))
    return _finish("gradient_descent_quadratic_lojasiewicz", {"L": L, "mu": mu, "gamma": gamma, "n": n}, pep,
                   rho ** n, t0, "Abbaszadehpeivasti, de Klerk & Zamani 2023, Thm 3")


def _nolips(L: float) -> tuple[PEP, Any, Any, Any, Combination, Combination]:
    """``f_1`` convex, ``d = L h - f_1`` convex (``f_1`` is ``L``-smooth relative to ``h = (d + f_1)/L``), ``C`` a closed
    convex set; ``x* = 0`` minimises ``f_1 + i_C``."""
    pep = PEP()
    d = pep.function(Convex(reuse_gradient=True), "d")
    f1 = pep.function(Convex(reuse_gradient=True), "f1")
    ind = pep.function(ConvexIndicator(), "C")
    pep.optimum_of_sum([f1, ind])
    h = Combination([(1 / L, d), (1 / L, f1)])
    mirror = Combination([(1, ind), (1 / L, d), (1 / L, f1)])
    return pep, d, f1, ind, h, mirror


def no_lips_in_function_value(L: float = 1.0, gamma: float = 0.5, n: int = 3) -> ParityResult:
    r"""NoLips (Bregman gradient) ``grad h(x_{t+1}) = grad h(x_t) - gamma grad f_1(x_t)`` over ``C``, ``f_1``
    ``L``-smooth relative to ``h`` (``L h - f_1`` convex), ``D_h(x*, x_0) <= 1``, ``gamma = 1/(2L)``: ``f_1(x_n) - f* <=
    1/(gamma n)``, tight (Bauschke, Bolte & Teboulle 2017, Thm 1; Dragomir, Taylor, d'Aspremont & Bolte 2021, Thm 1;
    PEPit ``composite_convex_minimization/no_lips_in_function_value``)."""
    t0 = time.perf_counter()
    pep, d, f1, ind, h, mirror = _nolips(L)
    xs = pep.zero()
    ghs, hs = h.oracle(xs)
    x0 = pep.vector()
    gh0, h0 = h.oracle(x0)
    gfx, ffx = f1.oracle(x0)
    pep.add_le(hs - h0 - inner(gh0, xs - x0) - 1)
    ghx = gh0
    for _ in range(_n(n)):
        x, _, _ = bregman_gradient_step(mirror, ghx, gfx, gamma)
        gfx, ffx = f1.oracle(x)
        ghx = (1 / L) * (d.grad(x) + gfx)
    pep.maximize(ffx)
    return _finish("no_lips_in_function_value", {"L": L, "gamma": gamma, "n": n}, pep, 1 / (gamma * n), t0,
                   "Dragomir, Taylor, d'Aspremont & Bolte 2021, Thm 1")


def no_lips_in_bregman_divergence(L: float = 1.0, gamma: float = 1.0, n: int = 10) -> ParityResult:
    r"""NoLips with ``gamma = 1/L``: ``min_{1<=t<=n} D_h(x_{t-1}, x_t) <= 2/(n(n - 1))`` ``D_h(x*, x_0)``, tight (Dragomir,
    Taylor, d'Aspremont & Bolte 2021, Thm 2; PEPit ``composite_convex_minimization/no_lips_in_bregman_divergence``)."""
    t0 = time.perf_counter()
    if _n(n) < 2:
        raise FairtheoryValueError(f"n must be >= 2 (the bound 2/(n(n-1))), got {n!r}")
    pep, d, f1, ind, h, mirror = _nolips(L)
    xs = pep.zero()
    ghs, hs = h.oracle(xs)
    x0 = pep.vector()
    gh0, h0 = h.oracle(x0)
    gfx, _ = f1.oracle(x0)
    pep.add_le(hs - h0 - inner(gh0, xs - x0) - 1)
    x1, hx1, ghx = x0, h0, gh0
    meas = []
    for _ in range(n):
        x2, _, _ = bregman_gradient_step(mirror, ghx, gfx, gamma)
        gfx, _ = f1.oracle(x2)
        ghx, hx2 = h.oracle(x2)
        meas.append(hx1 - hx2 - inner(ghx, x1 - x2))
        x1, hx1 = x2, hx2
    pep.maximize_min(meas)
    return _finish("no_lips_in_bregman_divergence", {"L": L, "gamma": gamma, "n": n}, pep, 2 / (n * (n - 1)), t0,
                   "Dragomir, Taylor, d'Aspremont & Bolte 2021, Thm 2")


def bregman_proximal_point(gamma: float = 3.0, n: int = 5) -> ParityResult:
    r"""Bregman proximal point ``x_{t+1} = argmin f_1(x) + D_h(x, x_t)/gamma`` with ``f_1``, ``h`` closed convex,
    ``D_h(x*, x_0) <= 1``: ``f_1(x_n) - f_1(x*) <= 1/(gamma n)``, tight (Teboulle 2018, Thm 4.1; Dragomir, Taylor,
    d'Aspremont & Bolte 2021; PEPit ``composite_convex_minimization/bregman_proximal_point``)."""
    t0 = time.perf_counter()
    # homogeneity (fairtheory.worstcase.units): gamma f_1 and D_h share a unit (D_h's, fixed by D_h(x*, x_0) <= 1), so
    # f_1 in the unit b = 1/gamma (exact rational; 1 near unit scale, _unit) has the step gamma b = 1; the value is b
    # times (exact, rounded once)
    b = _unit(1 / Fraction(check_positive(gamma, "gamma")))
    pep = PEP()
    f1 = pep.function(Convex(), "f1")
    h = pep.function(Convex(), "h")
    f1.optimum()
    xs = pep.zero()
    ghs, hs = h.oracle(xs)
    x0 = pep.vector()
    gh, h0 = h.oracle(x0)
    pep.add_le(hs - h0 - inner(gh, xs - x0) - 1)
    f1x = Scalar()
    for _ in range(_n(n)):
        _, gh, _, _, f1x = bregman_proximal_step(h, f1, gh, float(Fraction(gamma) * b))
    pep.maximize(f1x)
    return _finish("bregman_proximal_point", {"gamma": gamma, "n": n}, pep, 1 / (gamma * n), t0,
                   "Teboulle 2018, Thm 4.1", unit=b)


def randomized_coordinate_descent_smooth_strongly_convex(L: float = 1.0, mu: float = 0.1, gamma: float = 2 / 1.1,
                                                         d: int = 2) -> ParityResult:
    r"""One step of randomized block-coordinate descent ``x_1 = x_0 - gamma grad_{(i)} f(x_0)``, block ``i`` uniform among
    ``d`` orthogonal blocks, on ``L``-smooth ``mu``-strongly convex ``f``, ``||x_0 - x*||^2 <= 1``: ``E||x_1 - x*||^2 <=
    max(((mu gamma - 1)^2 + d - 1)/d, ((L gamma - 1)^2 + d - 1)/d)``, tight (PEPit
    ``stochastic_and_randomized_convex_minimization/randomized_coordinate_descent_smooth_strongly_convex``: the
    expectation is ``||x_0||^2 - (2 gamma <g, x_0> - gamma^2 ||g||^2)/d``, GD's one-step contraction averaged with
    ``d - 1`` unchanged blocks; Nesterov 2012, Thm 2 for the rate)."""
    t0 = time.perf_counter()
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise FairtheoryValueError(f"d (the number of blocks) must be an integer >= 1, got {d!r}")
    pep = PEP()
    part = BlockPartition(pep, d)
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    g0 = f.grad(x0)
    meas = Scalar()
    for i in range(d):
        meas = meas + (1 / d) * sqnorm(x0 - gamma * part.block(g0, i))
    pep.maximize(meas)
    th = max(((mu * gamma - 1) ** 2 + d - 1) / d, ((L * gamma - 1) ** 2 + d - 1) / d)
    return _finish("randomized_coordinate_descent_smooth_strongly_convex", {"L": L, "mu": mu, "gamma": gamma, "d": d},
                   pep, th, t0, "Nesterov 2012, Thm 2; PEPit")


def frank_wolfe(L: float = 1.0, D: float = 1.0, n: int = 10) -> ParityResult:
    r"""Frank-Wolfe ``y_t in argmin_{y in C} <grad f(x_t), y>``, ``x_{t+1} = (1 - l_t) x_t + l_t y_t``, ``l_t = 2/(t + 2)``
    on ``L``-smooth convex ``f`` over ``C`` of diameter ``D``, ``x_0 in C``: ``f(x_n) - f* <= 2 L D^2/(n + 2)`` (Jaggi
    2013, Thm 1; an upper bound, not tight; PEPit ``composite_convex_minimization/frank_wolfe``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f1 = pep.function(SmoothStronglyConvex(L, 0), "f")
    ind = pep.function(ConvexIndicator(D), "C")
    pep.optimum_of_sum([f1, ind])
    x = pep.vector()
    f1.oracle(x)
    ind.oracle(x)
    for i in range(_n(n)):
        y, _, _ = linear_optimization_step(ind, f1.grad(x))
        lam = 2 / (i + 2)
        x = (1 - lam) * x + lam * y
    pep.maximize(f1.value(x))
    return _finish("frank_wolfe", {"L": L, "D": D, "n": n}, pep, 2 * L * D ** 2 / (n + 2), t0, "Jaggi 2013, Thm 1",
                   kind="bound")


def epsilon_subgradient_method(M: float = 2.0, n: int = 6, eps: float = 0.1, R: float = 1.0,
                               gamma: float | None = None) -> ParityResult:
    r"""The ``eps``-subgradient method ``x_{t+1} = x_t - gamma g_t``, ``g_t in d_eps f(x_t)``, ``||g_t|| <= M``, on convex
    ``f``, ``||x_0 - x*|| <= R``, ``gamma = 1/sqrt(n + 1)``: ``min_{0<=t<=n} f(x_t) - f* <= (R^2 + 2(n + 1) gamma eps +
    (n + 1) gamma^2 M^2)/(2(n + 1) gamma)`` (an upper bound; e.g. Bertsekas 2015, Prop 3.3.1 style analysis; PEPit
    ``unconstrained_convex_minimization/epsilon_subgradient_method``)."""
    t0 = time.perf_counter()
    n = _n(n)
    gm = 1 / math.sqrt(n + 1) if gamma is None else gamma
    # homogeneity (fairtheory.worstcase.units): space unit a = R, value unit b = M R (exact rationals; 1 near unit
    # scale, _unit); the PEP is posed
    # in R/a, M a/b, eps/b, gamma b/a^2 and its value mapped back times b (exact, rounded once)
    a = _unit(Fraction(check_positive(R, "R")))
    b = _unit(a * Fraction(check_positive(M, "M")))
    Rn, Mn = units.normalise(R, units.SPACE, a, b), units.normalise(M, units.GRAD, a, b)
    en, gn = units.normalise(eps, units.VALUE, a, b), units.normalise(gm, units.STEP, a, b)
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - Rn ** 2)
    meas = []
    for _ in range(n):
        x, g, fx, e = epsilon_subgradient_step(f, x, gn)
        meas.append(fx)
        pep.add_le(e - en)
        pep.add_le(sqnorm(g) - Mn ** 2)
    g, fx = f.oracle(x)
    pep.add_le(sqnorm(g) - Mn ** 2)
    meas.append(fx)
    pep.maximize_min(meas)
    th = (R ** 2 + 2 * (n + 1) * gm * eps + (n + 1) * gm ** 2 * M ** 2) / (2 * (n + 1) * gm)
    return _finish("epsilon_subgradient_method", {"M": M, "n": n, "eps": eps, "R": R, "gamma": gm}, pep, th, t0,
                   "Bertsekas 2015 (Convex optimization algorithms), Sec 3.3", kind="bound", unit=b)


def relatively_inexact_proximal_point_algorithm(n: int = 8, gamma: float = 10.0, sigma: float = 0.65) -> ParityResult:
    r"""Inexact proximal point ``x_{t+1} ~ prox_{gamma f}(x_t)`` with primal-dual gap ``<= sigma^2 ||x_{t+1} - x_t||^2/2``
    (``PD_gapII``) on closed convex ``f``, ``||x_0 - x*||^2 <= 1``: ``f(x_n) - f* <= (1 + sigma)/(4 gamma
    n^{sqrt(1 - sigma^2)})`` (Barre, Taylor & Bach 2023, Thm 3.2; an upper bound; PEPit
    ``inexact_proximal_methods/relatively_inexact_proximal_point_algorithm``)."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    fx = Scalar()
    for _ in range(_n(n)):
        x_new, _, fx, _, _, _, e = inexact_proximal_step(f, x, gamma, opt="PD_gapII")
        pep.add_le(e - (sigma ** 2 / 2) * sqnorm(x_new - x))
        x = x_new
    pep.maximize(fx)
    return _finish("relatively_inexact_proximal_point_algorithm", {"n": n, "gamma": gamma, "sigma": sigma}, pep,
                   (1 + sigma) / (4 * gamma * n ** math.sqrt(1 - sigma ** 2)), t0, "Barre, Taylor & Bach 2023, Thm 3.2",
                   kind="bound")


def gradient_flow_strongly_convex(mu: float = 0.1) -> ParityResult:
    r"""Gradient flow ``dX/dt = -g(X)`` on ``mu``-strongly convex (nonsmooth) ``f``: the Lyapunov function ``V = f(X_t) -
    f*`` decays at ``dV/dt = <g, dX/dt> = -||g||^2 <= -2 mu V``, tight (Scieur, Roulet, Bach & d'Aspremont 2017,
    Prop 11; Moucer, Taylor & Bach 2022, Thm 2.1; attained by ``mu/2 ||x||^2``; PEPit
    ``continuous_time_models/gradient_flow_strongly_convex``): the PEP maximises ``dV/dt`` at one point with ``V = 1``."""
    t0 = time.perf_counter()
    pep = PEP()
    f = pep.function(StronglyConvex(mu))
    f.optimum()
    x = pep.vector()
    g, fx = f.oracle(x)
    pep.add_eq(fx - 1)
    pep.maximize(-1 * sqnorm(g))
    return _finish("gradient_flow_strongly_convex", {"mu": mu}, pep, -2 * mu, t0,
                   "Scieur, Roulet, Bach & d'Aspremont 2017, Prop 11")


def online_gradient_descent(M: float = 1.0, D: float = 0.5, n: int = 2) -> ParityResult:
    r"""Online projected gradient descent ``x_{t+1} = P_C(x_t - gamma g_t)``, ``gamma = D/(M sqrt(n))``, against ``n``
    convex ``M``-Lipschitz losses ``f_t`` revealed one per round, ``C`` of diameter ``D``: the regret ``sum_t f_t(x_t) -
    min_{x in C} sum_t f_t(x)`` is at most ``M D sqrt(n)`` (Zinkevich 2003, Thm 1 in the constant-step form of Orabona
    2025, "A modern introduction to online learning", Cor 2.9), and the bound is attained: PEPit
    ``online_learning/online_gradient_descent`` documents its worst case equal to it at ``n = 2``, ours equals it for
    ``n = 1..5`` (the claim: equality)."""
    t0 = time.perf_counter()
    n = _n(n)
    gamma = D / (M * math.sqrt(n))
    pep = PEP()
    fs = [pep.function(ConvexLipschitz(M), f"f{t}") for t in range(n)]
    ind = pep.function(ConvexIndicator(D), "C")
    x_ref = ind.project(pep.vector())
    f_ref = Scalar()
    for f in fs:
        f_ref = f_ref + f.value(x_ref)
    x = ind.project(pep.vector())
    regret = Scalar()
    for f in fs:
        g, fx = f.oracle(x)
        regret = regret + fx
        x = ind.prox(x - gamma * g, gamma)[0]
    pep.maximize(regret - f_ref)
    return _finish("online_gradient_descent", {"M": M, "D": D, "n": n}, pep, M * D * math.sqrt(n), t0,
                   "Zinkevich 2003, Thm 1; Orabona 2025, Cor 2.9")


# ------------------------------------------------------------------------- catalogue
# ------------------------------------------------------------------ homogeneity (fairtheory.worstcase.units)
def _keyword_defaults(sig: inspect.Signature) -> dict[str, Any] | None:
    """``{name: default}`` in signature order when every parameter of ``sig`` is an ordinary one with a default
    (positional or keyword): then a call with keywords only binds as ``{k: kwargs.get(k, default)}``; ``None``
    otherwise (the wrappers bind with ``Signature.bind``)."""
    out: dict[str, Any] = {}
    for name, prm in sig.parameters.items():
        if prm.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD or prm.default is inspect.Parameter.empty:
            return None
        out[name] = prm.default
    return out


def homogeneous(unit_of: str, exps: dict[str, int], measure: int,
                dead_zone: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    r"""Pose an example in its own units and map the result back exactly (issue 41, "homogeneity as one mechanism").

    Every example here fixes one unit by its initial condition (``||x_0 - x*||^2 <= 1`` or ``f(x_0) - f* <= 1``) and
    leaves one free, ``c``: a parameter scales as ``c^e`` (``exps``; ``L``, ``mu``, ``M`` ``e = 1``, a step size
    ``e = -1`` when the value unit is free, the same exponents when the space unit is free, ``c = a^-2``), the measure
    as ``c^measure``.  ``c = P`` exactly (the rational of the float; :func:`_unit`), ``P`` the parameter ``unit_of``
    (``"1/gamma"``: the step's inverse), so that parameter is exactly 1 in the normalised problem - the normalised
    problems of every scale coincide with the one at ``P = 1`` up to one rounding of the other parameters; ``P`` within
    ``2^+-4`` of 1 is at unit scale already (``c = 1``: the data bit for bit as given); the example runs at
    ``p / c^e`` (rounded once) and ``ours``, ``theory`` and ``gap`` are ``c^measure`` times the normalised ones (an
    exact rational, rounded once: :func:`_times`).  ``dead_zone=False``: every ``P != 1`` is normalised (the examples
    whose float solve at ``P`` near but not at 1 misses the value at ``P = 1``: past extragradient at ``L = 22.5`` came
    out ``1.85e-5`` relative below it, "Solved", issue 41's hostile sweep)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn)
        defaults = _keyword_defaults(sig)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not args and defaults is not None and defaults.keys() >= kwargs.keys():
                # keywords only (the usual call): the bound arguments with the defaults applied, in signature order
                p = {k: kwargs[k] if k in kwargs else d for k, d in defaults.items()}
            else:
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                p = dict(bound.arguments)
            ok = all(isinstance(p.get(k), (int, float)) and not isinstance(p.get(k), bool)
                     and math.isfinite(p[k]) and p[k] >= 0 for k in exps if p.get(k) is not None)
            key = unit_of[2:] if unit_of.startswith("1/") else unit_of
            P = p.get(key)
            if not ok or not isinstance(P, (int, float)) or isinstance(P, bool) or not P > 0:
                return fn(**p)
            c = _unit(1 / Fraction(P) if unit_of.startswith("1/") else Fraction(P), dead_zone)
            if c == 1:
                return fn(**p)
            try:
                q = {k: (float(Fraction(v) / c ** exps[k]) if k in exps and v is not None else v) for k, v in p.items()}
            except OverflowError:   # beyond float64 in the normalised units: validated as given
                return fn(**p)
            r = fn(**q)
            f = c ** measure
            params = {k: (_times(v, c ** exps[k]) if k in exps and isinstance(v, float) else v)
                      for k, v in r.params.items()}
            params.update({k: v for k, v in p.items() if k in r.params})   # the caller's parameters, as given
            # the measured fields of a ParityResult (ours, theory, gap) or an OperatorWorstCase (value)
            new: dict[str, Any] = {k: _times(getattr(r, k), f) for k in ("ours", "theory", "gap", "value")
                                   if hasattr(r, k)}
            if "ours" in new and "theory" in new:
                ours, theory = new["ours"], new["theory"]
                new["rel_diff"] = abs(ours - theory) / abs(theory) if theory != 0 else abs(ours)
            return dataclasses.replace(r, params=params, **new)

        return wrapper

    return deco


def _unit(P: Fraction, dead_zone: bool = True) -> Fraction:
    """The unit ``P`` itself, or 1 when ``|round(log2 P)| <= units.DEAD_ZONE`` (a problem at unit scale keeps its
    data; ``dead_zone=False``: ``P`` whenever ``P != 1``)."""
    if not dead_zone:
        return P
    return Fraction(1) if units.pow2(P, dead_zone=True) == 1 else P


def _times(x: float, f: Fraction) -> float:
    """``x * f`` exactly, rounded once (``+-inf`` beyond the float range; non-finite ``x`` unchanged)."""
    if not math.isfinite(x):
        return x
    v = Fraction(x) * f
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


#: (the parameter fixing the free unit, the exponents of the parameters, the measure's exponent); see homogeneous
_UNITS: dict[str, tuple[str, dict[str, int], int]] = {
    "gradient_descent": ("L", {"L": 1, "gamma": -1}, 1),
    "subgradient_method": ("M", {"M": 1, "gamma": -1}, 1),
    "proximal_point": ("1/gamma", {"gamma": -1}, 1),
    "optimized_gradient": ("L", {"L": 1}, 1),
    "optimized_gradient_for_gradient": ("L", {"L": 1}, 1),            # f(x_0) - f* <= 1: space free, ||g||^2 ~ a^-2
    "inexact_gradient_descent": ("L", {"L": 1, "mu": 1}, 0),         # value / value
    "information_theoretic_exact_method": ("L", {"L": 1, "mu": 1}, 0),  # distance / distance
    "gradient_descent_contraction": ("L", {"L": 1, "mu": 1, "gamma": -1}, 0),
    "proximal_gradient": ("L", {"L": 1, "mu": 1, "gamma": -1}, 0),
    "proximal_gradient_projected": ("L", {"L": 1, "mu": 1, "gamma": -1}, 0),
    "accelerated_proximal_gradient_simplified": ("L", {"L": 1, "mu": 1}, 1),
    "douglas_rachford_splitting_contraction": ("L", {"L": 1, "mu": 1, "alpha": -1}, 0),
    "nonconvex_gradient_descent": ("L", {"L": 1, "gamma": -1}, 1),     # f_0 - f_n <= 1: space free
    "gradient_exact_line_search": ("L", {"L": 1, "mu": 1}, 0),
    "inexact_gradient_exact_line_search": ("L", {"L": 1, "mu": 1}, 0),
    "conjugate_gradient": ("L", {"L": 1}, 1),
    "conjugate_gradient_qg_convex": ("L", {"L": 1}, 1),
    "gradient_descent_qg_convex": ("L", {"L": 1, "gamma": -1}, 1),
    "heavy_ball_momentum_qg_convex": ("L", {"L": 1}, 1),
    "subgradient_method_rsi_eb": ("L", {"L": 1, "mu": 1, "gamma": -1}, 0),
    "gradient_descent_quadratics": ("L", {"L": 1, "mu": 1, "gamma": -1}, 1),
    "proximal_gradient_quadratics": ("L", {"L": 1, "mu": 1, "gamma": -1}, 0),
    "gradient_descent_quadratic_lojasiewicz": ("L", {"L": 1, "mu": 1, "gamma": -1}, 0),
    # V = f - f* = 1 fixes the value unit, the space unit is free: mu and ||g||^2 both scale as a^-2 (issue 41's
    # hostile sweep: -200014.97 for -2 mu = -2e5 at mu = 1e5 before)
    "gradient_flow_strongly_convex": ("mu", {"mu": 1}, 1),
    # D_h(x*, x_0) <= 1 fixes h; f_1 and d scaled by c leave h = (d + f_1)/L unchanged at L c (sweep: SolverError
    # at L = 1e6 before)
    "no_lips_in_function_value": ("L", {"L": 1, "gamma": -1}, 1),
    "no_lips_in_bregman_divergence": ("L", {"L": 1, "gamma": -1}, 0),
    # ||x_0 - x*||^2 <= 1 fixes space, the value unit is free; sigma is dimensionless (sweep: 18031.7 for
    # 16261.4 = 1e6 x the scale-1 value at gamma = 1e-5 before, "Solved")
    "relatively_inexact_proximal_point_algorithm": ("1/gamma", {"gamma": -1}, 1),
}
for _name, (_u, _e, _m) in _UNITS.items():
    globals()[_name] = homogeneous(_u, _e, _m)(globals()[_name])


#: parameters of the examples that may be 0 (a strong-convexity or monotonicity modulus, an inexactness, a relative
#: error); every other real parameter (a curvature ``L``, a bound ``M``, a step ``gamma`` / ``alpha``, a cocoercivity
#: ``beta``, a radius, a relaxation ``theta``) lies in ``(0, inf)``; the integers (``n`` iterations, ``d`` blocks) in
#: ``[1, inf)``
_MAY_BE_ZERO = frozenset({"mu", "eps", "epsilon", "sigma"})
_INTEGERS = frozenset({"n", "d"})


def _check_parameter(name: str, v: Any, default: Any) -> None:
    """One example parameter by name (:func:`checked_parameters`)."""
    if name in _INTEGERS:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise FairtheoryTypeError(f"{name} must be an integer >= 1, got {v!r}")
        if v < 1:
            raise FairtheoryValueError(f"{name} must be an integer >= 1, got {v!r}")
        return
    if v is None and default is None:
        return
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, Fraction, np.integer, np.floating)):
        raise FairtheoryTypeError(f"{name} must be a real number, got {v!r}")
    low = "[0, inf)" if name in _MAY_BE_ZERO else "(0, inf)"
    if not math.isfinite(float(v)) or v < 0 or (v == 0 and name not in _MAY_BE_ZERO):
        raise FairtheoryValueError(f"{name} must be a finite number in {low}, got {v!r}")


def checked_parameters(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (an example) with its arguments validated by name before anything is built: integers ``n``, ``d`` in
    ``[1, inf)``, every other real parameter finite and in ``(0, inf)`` (``[0, inf)`` for :data:`_MAY_BE_ZERO`), a
    parameter whose default is ``None`` may be ``None`` - a named :class:`FairtheoryTypeError` /
    :class:`FairtheoryValueError` otherwise (issue 41: a negative step or a NaN used to be solved or to raise a raw
    ``ValueError``).  The example's own checks (its documented ranges) follow."""
    sig = inspect.signature(fn)
    defaults = _keyword_defaults(sig)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not args and defaults is not None and defaults.keys() >= kwargs.keys():
            # keywords only (the usual call): what Signature.bind gives - the given arguments in signature order
            for k, d in defaults.items():
                if k in kwargs:
                    _check_parameter(k, kwargs[k], d)
            return fn(**kwargs)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise FairtheoryTypeError(f"{fn.__name__}: {exc}") from None
        for k, v in bound.arguments.items():
            _check_parameter(k, v, sig.parameters[k].default)
        return fn(*bound.args, **bound.kwargs)

    wrapper.__checked__ = True  # type: ignore[attr-defined]
    return wrapper


def check_all(namespace: dict[str, Any], module: str, results: tuple[str, ...]) -> None:
    """Wrap every example of ``namespace`` (a public function of ``module`` returning one of ``results``) in
    :func:`checked_parameters`."""
    for name, fn in list(namespace.items()):
        if name.startswith("_") or not callable(fn) or getattr(fn, "__module__", None) != module or \
                getattr(fn, "__checked__", False) or isinstance(fn, type):
            continue
        ret = getattr(inspect.unwrap(fn), "__annotations__", {}).get("return")
        if ret in results:
            namespace[name] = checked_parameters(fn)


check_all(globals(), __name__, ("ParityResult",))


@dataclass(frozen=True)
class Example:
    """One PEPit example: our builder (``run(**params) -> ParityResult``), the PEPit module and function that state
    it (``None`` for our variants), and the parameters of the quick and the full runs."""

    name: str
    run: Callable[..., ParityResult]
    pepit: tuple[str, str] | None
    quick: list[dict[str, Any]]
    full: list[dict[str, Any]] = field(default_factory=list)
    #: ``"tight"`` (the claim: equal to the paper's value) or ``"bound"`` (at most the paper's value)
    kind: str = "tight"


_UCM = "PEPit.examples.unconstrained_convex_minimization"
_CCM = "PEPit.examples.composite_convex_minimization"

EXAMPLES: dict[str, Example] = {e.name: e for e in [
    Example("gradient_descent", gradient_descent, (f"{_UCM}.gradient_descent", "wc_gradient_descent"),
            [{"L": 3.0, "gamma": 1 / 3, "n": 4}],
            [{"L": 3.0, "gamma": 1 / 3, "n": n} for n in (1, 2, 8, 12)] + [{"L": 1.0, "gamma": 0.5, "n": 5}]),
    Example("subgradient_method", subgradient_method, (f"{_UCM}.subgradient_method", "wc_subgradient_method"),
            [{"M": 2.0, "n": 6, "gamma": 1 / (2.0 * math.sqrt(7))}],
            [{"M": M, "n": n, "gamma": 1 / (M * math.sqrt(n + 1))} for M, n in ((2.0, 1), (2.0, 3), (2.0, 10), (0.5, 5))]),
    Example("proximal_point", proximal_point, (f"{_UCM}.proximal_point", "wc_proximal_point"),
            [{"gamma": 3.0, "n": 4}], [{"gamma": g, "n": n} for g, n in ((1.0, 1), (0.5, 6), (3.0, 10))]),
    Example("optimized_gradient", optimized_gradient, (f"{_UCM}.optimized_gradient", "wc_optimized_gradient"),
            [{"L": 3.0, "n": 4}], [{"L": 3.0, "n": n} for n in (1, 2, 8, 12)]),
    Example("optimized_gradient_for_gradient", optimized_gradient_for_gradient,
            (f"{_UCM}.optimized_gradient_for_gradient", "wc_optimized_gradient_for_gradient"),
            [{"L": 3.0, "n": 4}], [{"L": 3.0, "n": n} for n in (1, 2, 8)]),
    Example("inexact_gradient_descent", inexact_gradient_descent,
            (f"{_UCM}.inexact_gradient_descent", "wc_inexact_gradient_descent"),
            # the published instance, then epsilon = 0 (formerly a float-accuracy counterexample, docs/worstcase.md)
            [{"L": 1.0, "mu": 0.1, "epsilon": 0.1, "n": 2}, {"L": 1.0, "mu": 0.1, "epsilon": 0.0, "n": 2}],
            [{"L": 1.0, "mu": 0.1, "epsilon": e, "n": n} for e, n in ((0.0, 3), (0.3, 2), (0.1, 4), (0.1, 6))]),
    Example("information_theoretic_exact_method", information_theoretic_exact_method,
            (f"{_UCM}.information_theoretic_exact_method", "wc_information_theoretic"),
            [{"mu": 0.001, "L": 1.0, "n": 3}],
            [{"mu": 0.001, "L": 1.0, "n": 15}, {"mu": 0.1, "L": 1.0, "n": 5}]),
    Example("gradient_descent_contraction", gradient_descent_contraction,
            ("PEPit.examples.tutorials.gradient_descent_contraction", "wc_gradient_descent_contraction"),
            [{"L": 1.0, "mu": 0.1, "gamma": 1.0, "n": 1}],
            [{"L": 1.0, "mu": 0.1, "gamma": g, "n": n} for g, n in ((1.0, 3), (1.5, 2), (0.5, 4))]),
    Example("polyak_steps_in_distance_to_optimum", polyak_steps_in_distance_to_optimum,
            ("PEPit.examples.adaptive_methods.polyak_steps_in_distance_to_optimum",
             "wc_polyak_steps_in_distance_to_optimum"),
            [{"L": 1.0, "mu": 0.1, "gamma": 2 / 1.1}],
            [{"L": 1.0, "mu": 0.1, "gamma": g} for g in (1.5, 3.0, 8.0)]),
    Example("polyak_steps_in_function_value", polyak_steps_in_function_value,
            ("PEPit.examples.adaptive_methods.polyak_steps_in_function_value", "wc_polyak_steps_in_function_value"),
            [{"L": 1.0, "mu": 0.1, "gamma": 2 / 1.1}],
            [{"L": 1.0, "mu": 0.1, "gamma": g} for g in (1.2, 1.5, 1.85)]),
    Example("sgd_overparametrized", sgd_overparametrized,
            ("PEPit.examples.stochastic_and_randomized_convex_minimization.sgd_overparametrized",
             "wc_sgd_overparametrized"),
            [{"L": 1.0, "mu": 0.1, "gamma": 2.3, "n": 5}],
            [{"L": 1.0, "mu": 0.1, "gamma": g, "n": n} for g, n in ((0.5, 2), (1.0, 5), (1.9, 10))]),
    Example("proximal_gradient", proximal_gradient, (f"{_CCM}.proximal_gradient", "wc_proximal_gradient"),
            [{"L": 1.0, "mu": 0.1, "gamma": 1.0, "n": 2}],
            [{"L": 1.0, "mu": 0.1, "gamma": g, "n": n} for g, n in ((1.0, 5), (1.5, 3), (0.5, 4))]),
    Example("proximal_gradient_projected", proximal_gradient_projected, None,
            [{"L": 1.0, "mu": 0.1, "gamma": 1.0, "n": 2}],
            [{"L": 1.0, "mu": 0.1, "gamma": g, "n": n} for g, n in ((1.0, 5), (1.5, 3), (0.5, 4))]),
    Example("accelerated_proximal_gradient_simplified", accelerated_proximal_gradient_simplified,
            (f"{_CCM}.accelerated_proximal_gradient_simplified", "wc_accelerated_proximal_gradient_simplified"),
            [{"mu": 0.0, "L": 1.0, "n": 4}], [{"mu": 0.0, "L": 1.0, "n": n} for n in (1, 2, 6)]),
    Example("douglas_rachford_splitting_contraction", douglas_rachford_splitting_contraction,
            (f"{_CCM}.douglas_rachford_splitting_contraction", "wc_douglas_rachford_splitting_contraction"),
            [{"mu": 0.1, "L": 1.0, "alpha": 3.0, "theta": 1.0, "n": 2}],
            [{"mu": 0.1, "L": 1.0, "alpha": a, "theta": 1.0, "n": n} for a, n in ((3.0, 4), (1.0, 2), (0.5, 3))]),
    Example("nonconvex_gradient_descent", nonconvex_gradient_descent,
            ("PEPit.examples.nonconvex_optimization.gradient_descent", "wc_gradient_descent"),
            [{"L": 1.0, "gamma": 1.0, "n": 5}], [{"L": 1.0, "gamma": 1.0, "n": n} for n in (1, 2, 10)]),
    # ---- the catalogue's other classes (QG+, RSI/EB, quadratics, Lojasiewicz) and steps (line search, LMO, Bregman,
    # epsilon-subgradient, inexact prox, block partitions)
    Example("gradient_exact_line_search", gradient_exact_line_search,
            (f"{_UCM}.gradient_exact_line_search", "wc_gradient_exact_line_search"),
            [{"L": 1.0, "mu": 0.1, "n": 2}], [{"L": 1.0, "mu": m, "n": n} for m, n in ((0.1, 1), (0.1, 3), (0.5, 2))]),
    Example("inexact_gradient_exact_line_search", inexact_gradient_exact_line_search,
            (f"{_UCM}.inexact_gradient_exact_line_search", "wc_inexact_gradient_exact_line_search"),
            [{"L": 1.0, "mu": 0.1, "epsilon": 0.1, "n": 2}],
            [{"L": 1.0, "mu": 0.1, "epsilon": e, "n": n} for e, n in ((0.0, 2), (0.3, 2), (0.1, 3))]),
    Example("conjugate_gradient", conjugate_gradient, (f"{_UCM}.conjugate_gradient", "wc_conjugate_gradient"),
            [{"L": 1.0, "n": 2}], [{"L": 1.0, "n": n} for n in (1, 3, 4)]),
    Example("conjugate_gradient_qg_convex", conjugate_gradient_qg_convex,
            (f"{_UCM}.conjugate_gradient_qg_convex", "wc_conjugate_gradient_qg_convex"),
            [{"L": 1.0, "n": 3}], [{"L": 1.0, "n": n} for n in (1, 6, 12)]),
    Example("gradient_descent_qg_convex", gradient_descent_qg_convex,
            (f"{_UCM}.gradient_descent_qg_convex", "wc_gradient_descent_qg_convex"),
            [{"L": 1.0, "gamma": 0.2, "n": 4}], [{"L": 1.0, "gamma": g, "n": n} for g, n in ((0.2, 1), (0.5, 3), (1.0, 6))]),
    Example("heavy_ball_momentum_qg_convex", heavy_ball_momentum_qg_convex,
            (f"{_UCM}.heavy_ball_momentum_qg_convex", "wc_heavy_ball_momentum_qg_convex"),
            [{"L": 1.0, "n": 5}], [{"L": 1.0, "n": n} for n in (1, 3, 10)]),
    Example("subgradient_method_rsi_eb", subgradient_method_rsi_eb,
            (f"{_UCM}.subgradient_method_rsi_eb", "wc_subgradient_method_rsi_eb"),
            [{"mu": 0.1, "L": 1.0, "gamma": 0.1, "n": 4}],
            [{"mu": m, "L": 1.0, "gamma": g, "n": n} for m, g, n in ((0.1, 0.1, 10), (0.5, 0.5, 3), (0.1, 0.15, 4))]),
    Example("gradient_descent_quadratics", gradient_descent_quadratics,
            (f"{_UCM}.gradient_descent_quadratics", "wc_gradient_descent_quadratics"),
            [{"mu": 0.3, "L": 3.0, "gamma": 1 / 3, "n": 4}],
            [{"mu": m, "L": 3.0, "gamma": g, "n": n} for m, g, n in ((0.3, 1 / 3, 1), (0.0, 1 / 3, 3), (0.3, 0.5, 2))]),
    Example("proximal_gradient_quadratics", proximal_gradient_quadratics,
            (f"{_CCM}.proximal_gradient_quadratics", "wc_proximal_gradient_quadratics"),
            [{"L": 1.0, "mu": 0.1, "gamma": 1.0, "n": 2}],
            [{"L": 1.0, "mu": 0.1, "gamma": g, "n": n} for g, n in ((1.5, 3), (0.5, 4))]),
    Example("gradient_descent_quadratic_lojasiewicz", gradient_descent_quadratic_lojasiewicz,
            ("PEPit.examples.nonconvex_optimization.gradient_descent_quadratic_lojasiewicz_naive",
             "wc_gradient_descent_quadratic_lojasiewicz_naive"),
            [{"L": 1.0, "mu": 0.2, "gamma": 1.0, "n": 1}],
            [{"L": 1.0, "mu": m, "gamma": g, "n": 1} for m, g in ((0.2, 1.2), (0.2, 1.9), (0.5, 1.5))]),
    Example("no_lips_in_function_value", no_lips_in_function_value,
            (f"{_CCM}.no_lips_in_function_value", "wc_no_lips_in_function_value"),
            [{"L": 1.0, "gamma": 0.5, "n": 3}], [{"L": 1.0, "gamma": 0.5, "n": n} for n in (1, 5)]),
    Example("no_lips_in_bregman_divergence", no_lips_in_bregman_divergence,
            (f"{_CCM}.no_lips_in_bregman_divergence", "wc_no_lips_in_bregman_divergence"),
            [{"L": 1.0, "gamma": 1.0, "n": 3}], [{"L": 1.0, "gamma": 1.0, "n": n} for n in (2, 6, 10)]),
    Example("bregman_proximal_point", bregman_proximal_point,
            (f"{_CCM}.bregman_proximal_point", "wc_bregman_proximal_point"),
            [{"gamma": 3.0, "n": 5}], [{"gamma": g, "n": n} for g, n in ((1.0, 1), (0.5, 8))]),
    Example("randomized_coordinate_descent_smooth_strongly_convex", randomized_coordinate_descent_smooth_strongly_convex,
            ("PEPit.examples.stochastic_and_randomized_convex_minimization."
             "randomized_coordinate_descent_smooth_strongly_convex",
             "wc_randomized_coordinate_descent_smooth_strongly_convex"),
            [{"L": 1.0, "mu": 0.1, "gamma": 2 / 1.1, "d": 2}],
            [{"L": 1.0, "mu": 0.1, "gamma": g, "d": d} for g, d in ((1.0, 3), (0.5, 2), (1.9, 4))]),
    Example("frank_wolfe", frank_wolfe, (f"{_CCM}.frank_wolfe", "wc_frank_wolfe"),
            [{"L": 1.0, "D": 1.0, "n": 10}], [{"L": 1.0, "D": 1.0, "n": n} for n in (1, 4)], kind="bound"),
    Example("epsilon_subgradient_method", epsilon_subgradient_method,
            (f"{_UCM}.epsilon_subgradient_method", "wc_epsilon_subgradient_method"),
            [{"M": 2.0, "n": 6, "eps": 0.1, "R": 1.0, "gamma": 1 / math.sqrt(7)}],
            [{"M": 2.0, "n": n, "eps": e, "R": 1.0, "gamma": 1 / math.sqrt(n + 1)} for n, e in ((1, 0.1), (3, 0.5))],
            kind="bound"),
    Example("relatively_inexact_proximal_point_algorithm", relatively_inexact_proximal_point_algorithm,
            ("PEPit.examples.inexact_proximal_methods.relatively_inexact_proximal_point_algorithm",
             "wc_relatively_inexact_proximal_point_algorithm"),
            [{"n": 3, "gamma": 10.0, "sigma": 0.65}],
            [{"n": n, "gamma": 10.0, "sigma": s} for n, s in ((8, 0.65), (4, 0.3))], kind="bound"),
    Example("gradient_flow_strongly_convex", gradient_flow_strongly_convex,
            ("PEPit.examples.continuous_time_models.gradient_flow_strongly_convex", "wc_gradient_flow_strongly_convex"),
            [{"mu": 0.1}], [{"mu": m} for m in (0.01, 1.0)]),
    Example("online_gradient_descent", online_gradient_descent,
            ("PEPit.examples.online_learning.online_gradient_descent", "wc_online_gradient_descent"),
            [{"M": 1.0, "D": 0.5, "n": 2}], [{"M": M, "D": D, "n": n} for M, D, n in ((1.0, 0.5, 1), (2.0, 1.0, 3),
                                                                                       (1.0, 0.5, 5))]),
]}


def run_example(name: str, **params: Any) -> ParityResult:
    """Solve one example of :data:`EXAMPLES` (its first quick parameter set unless ``params`` are given)."""
    if name not in EXAMPLES:
        raise FairtheoryValueError(f"name must be one of {sorted(EXAMPLES)}, got {name!r}")
    ex = EXAMPLES[name]
    return ex.run(**(params or ex.quick[0]))
