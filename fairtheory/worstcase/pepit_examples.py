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

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase.classes import Convex, ConvexIndicator, ConvexLipschitz, SmoothNonconvex, SmoothStronglyConvex
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, sqnorm

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

    @property
    def agrees(self) -> bool:
        """``|ours - theory| <= REL_TOL |theory|`` with Clarabel ``Solved`` or ``AlmostSolved``."""
        return self.status in ("Solved", "AlmostSolved") and self.rel_diff <= REL_TOL


def _finish(name: str, params: dict[str, Any], pep: PEP, theory: float, t0: float, reference: str) -> ParityResult:
    sol = pep.solve()
    secs = time.perf_counter() - t0
    rel = abs(sol.value - theory) / abs(theory) if theory != 0 else abs(sol.value)
    return ParityResult(name, dict(params), float(sol.value), float(theory), float(rel), secs, float(sol.gap),
                        sol.status, reference)


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


# ------------------------------------------------------------------------- catalogue
@dataclass(frozen=True)
class Example:
    """One PEPit example: our builder (``run(**params) -> ParityResult``), the PEPit module and function that state
    it (``None`` for our variants), and the parameters of the quick and the full runs."""

    name: str
    run: Callable[..., ParityResult]
    pepit: tuple[str, str] | None
    quick: list[dict[str, Any]]
    full: list[dict[str, Any]] = field(default_factory=list)


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
]}


def run_example(name: str, **params: Any) -> ParityResult:
    """Solve one example of :data:`EXAMPLES` (its first quick parameter set unless ``params`` are given)."""
    if name not in EXAMPLES:
        raise FairtheoryValueError(f"name must be one of {sorted(EXAMPLES)}, got {name!r}")
    ex = EXAMPLES[name]
    return ex.run(**(params or ex.quick[0]))
