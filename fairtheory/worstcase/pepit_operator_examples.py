r"""PEPit's monotone-inclusion and fixed-point examples, written from their papers' statements with the operator classes.

Each function states one example of PEPit's ``examples/monotone_inclusions_variational_inequalities`` and
``examples/fixed_point_problems`` - the method, the operator classes (:mod:`fairtheory.worstcase.operators`), the initial
condition and the performance measure - solves it with :class:`fairtheory.worstcase.sdp.PEP` and returns an
:class:`OperatorParityResult`: our worst case, the **value the paper states** (with its reference), their relative
difference, the time, and what our value is (``value_is``: ``"worst case"`` when every class is exact, ``"upper bound"``
when one is a relaxation).  No PEPit code is used; keyword names follow PEPit's functions.

Conventions: the zero / fixed point is ``x* = 0`` (a translation, :func:`~fairtheory.worstcase.operators.declare_zero`),
``R = 1`` in the initial condition; the value is :meth:`PEP.solve`'s (normalised units, checked, GMP re-solve of small
PEPs).  :data:`OPERATOR_EXAMPLES` lists them with the quick and full parameters
(``verify/claims/pepit_operators.py``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase.classes import ConvexIndicator, SmoothStronglyConvex
from fairtheory.worstcase.operators import (
    Cocoercive,
    Lipschitz,
    LipschitzStronglyMonotone,
    Monotone,
    Nonexpansive,
    StronglyMonotone,
    apply,
    declare_fixed_point,
    declare_zero,
    operator,
    resolvent,
    value_is,
)
from fairtheory.worstcase.pepit_examples import Example, ParityResult, check_all, homogeneous
from fairtheory.worstcase.sdp import PEP, Function, Vec, sqnorm

__all__ = ["OperatorParityResult", "OPERATOR_EXAMPLES", "run_operator_example", "drs_lipschitz_tau",
           "drs_cocoercive_tau", "drs_cocoercive_tau_as_pepit", "douglas_rachford_splitting_cocoercive_corrected",
           "km_constant_bound", "km_increasing_bound", "OperatorWorstCase", "optimistic_gradient", "past_extragradient",
           "three_operator_splitting"]


@dataclass(frozen=True)
class OperatorParityResult(ParityResult):
    """:class:`~fairtheory.worstcase.pepit_examples.ParityResult` with ``value_is``: ``"worst case"`` (every class of
    the PEP exact) or ``"upper bound"`` (a relaxation class: the value bounds the worst case from above)."""

    value_is: str = "worst case"


def _finish(name: str, params: dict[str, Any], pep: PEP, theory: float, t0: float, reference: str,
            kind: str = "tight", gmp: str = "auto") -> OperatorParityResult:
    sol = pep.solve(gmp=gmp)
    secs = time.perf_counter() - t0
    rel = abs(sol.value - theory) / abs(theory) if theory != 0 else abs(sol.value)
    return OperatorParityResult(name, dict(params), float(sol.value), float(theory), float(rel), secs, float(sol.gap),
                                sol.status, reference, kind, value_is(pep))


def _n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise FairtheoryValueError(f"n (the number of iterations) must be an integer >= 1, got {n!r}")
    return n


def _start(pep: PEP) -> Vec:
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)      # ||x0 - x*||^2 <= 1 with x* = 0
    return x0


# ------------------------------------------------------------------------- monotone inclusions
def proximal_point(alpha: float = 2.2, n: int = 10) -> OperatorParityResult:
    r"""Proximal point ``x_{t+1} = J_{alpha A}(x_t)`` on maximally monotone ``A``, ``||x_0 - x*||^2 <= 1``:
    ``||x_n - x_{n-1}||^2 <= (1 - 1/n)^{n-1}/n``, tight (Gu & Yang 2020, SIAM J. Optim. 30(3), Sec 4; PEPit
    ``monotone_inclusions_variational_inequalities/proximal_point``).  The value does not depend on ``alpha``."""
    t0 = time.perf_counter()
    n = _n(n)
    pep = PEP()
    A = operator(pep, Monotone())
    declare_zero(A)
    x = _start(pep)
    prev = x
    for _ in range(n):
        prev, (x, _) = x, resolvent(A, x, alpha)
    pep.maximize(sqnorm(x - prev))
    return _finish("proximal_point", {"alpha": alpha, "n": n}, pep, (1 - 1 / n) ** (n - 1) / n, t0,
                   "Gu & Yang 2020, Sec 4")


def accelerated_proximal_point(alpha: float = 2.0, n: int = 10) -> OperatorParityResult:
    r"""Kim's accelerated proximal point ``x_{t+1} = J_{alpha A}(y_t)``, ``y_{t+1} = x_{t+1} + t/(t+2) (x_{t+1} - x_t)
    - t/(t+2) (x_t - y_{t-1})`` (``x_0 = y_0 = y_{-1}``) on maximally monotone ``A``: ``||x_n - y_{n-1}||^2 <= 1/n^2``,
    tight (Kim 2021, Math. Program., Thm 4.1; PEPit ``.../accelerated_proximal_point``)."""
    t0 = time.perf_counter()
    n = _n(n)
    pep = PEP()
    A = operator(pep, Monotone())
    declare_zero(A)
    x0 = _start(pep)
    x, y, y_prev = x0, x0, x0          # x_t, y_t, y_{t-1}
    for t in range(n):
        x_new, _ = resolvent(A, y, alpha)
        if t == n - 1:
            pep.maximize(sqnorm(x_new - y))
            break
        c = t / (t + 2)
        y_new = x_new + c * (x_new - x) - c * (x - y_prev)
        x, y_prev, y = x_new, y, y_new
    return _finish("accelerated_proximal_point", {"alpha": alpha, "n": n}, pep, 1 / n ** 2, t0, "Kim 2021, Thm 4.1")


def optimal_strongly_monotone_proximal_point(n: int = 10, mu: float = 0.05) -> OperatorParityResult:
    r"""OS-PPM (Park & Ryu 2022): ``x_{t+1} = J_A(y_t)``, ``y_{t+1} = x_{t+1} + (phi_t - 1)/phi_{t+1} (x_{t+1} - x_t)
    - 2 mu phi_t/phi_{t+1} (y_t - x_{t+1}) + (1 + 2 mu) phi_{t-1}/phi_{t+1} (y_{t-1} - x_t)``, ``phi_k = sum_{i<=k}
    (1 + 2 mu)^{2i}``, ``phi_{-1} = 0``, ``x_0 = y_0 = y_{-1}``, on maximally ``mu``-strongly monotone ``A``:
    ``||y_{n-1} - x_n||^2 <= (1 / sum_{k<n} (1 + 2 mu)^k)^2``, tight (Park & Ryu 2022, ICML, Thm 3.2 and Cor 4.2;
    PEPit ``.../optimal_strongly_monotone_proximal_point``)."""
    t0 = time.perf_counter()
    n = _n(n)
    q = (1 + 2 * mu) ** 2

    def phi(k: int) -> float:
        return 0.0 if k < 0 else sum(q ** i for i in range(k + 1))

    pep = PEP()
    A = operator(pep, StronglyMonotone(mu))
    declare_zero(A)
    x0 = _start(pep)
    x, y, y_prev = x0, x0, x0
    for t in range(n):
        x_new, _ = resolvent(A, y, 1)
        y_new = (x_new + ((phi(t) - 1) / phi(t + 1)) * (x_new - x) - (2 * mu * phi(t) / phi(t + 1)) * (y - x_new)
                 + ((1 + 2 * mu) * phi(t - 1) / phi(t + 1)) * (y_prev - x))
        x, y_prev, y = x_new, y, y_new
    pep.maximize(sqnorm(y_prev - x))          # y_{n-1} - x_n, an element of A x_n
    theory = (1 / sum((1 + 2 * mu) ** k for k in range(n))) ** 2
    return _finish("optimal_strongly_monotone_proximal_point", {"n": n, "mu": mu}, pep, theory, t0,
                   "Park & Ryu 2022, Thm 3.2, Cor 4.2")


def drs_lipschitz_tau(L: float, mu: float, alpha: float, theta: float) -> float:
    r"""RTBG 2020 Thm 4.3: the tight contraction factor (squared) of one DRS step with ``A`` ``L``-Lipschitz monotone,
    ``B`` ``mu``-strongly monotone; in the scaled constants ``m = alpha mu``, ``l = alpha L``, with
    ``a = 2 (theta - 1) m + theta - 2``, ``b = theta - 2 (m + 1)``, ``c = sqrt((a^2 + l^2 b^2)/(l^2 + 1))``: three regimes
    (the first when ``theta (theta + c)/((m + 1)^2 c) (c + m (a - l^2 b)/(l^2 + 1)) >= 0``)."""
    m, l2, l_ = alpha * mu, (alpha * L) ** 2, alpha * L
    a = 2 * (theta - 1) * m + theta - 2
    b = theta - 2 * (m + 1)
    c = math.sqrt((a * a + l2 * b * b) / (l2 + 1))
    if theta * (theta + c) / (m + 1) ** 2 / c * (c + m * (a - l2 * b) / (l2 + 1)) >= 0:
        return ((theta + c) / (2 * (m + 1))) ** 2
    second = (l_ <= 1 and m >= (l2 + 1) / (l_ - 1) ** 2
              and theta <= -(2 * (m + 1) * (l_ + 1) * (m + (m - 1) * l2 - 2 * m * l_ - 1))
              / (m + l_ * (l2 + l_ + 1) + 2 * m * m * (l_ - 1) + m * l_ * (1 - (l_ - 3) * l_) + 1))
    if second:
        return (1 - theta * (l_ + m) / ((l_ + 1) * (m + 1))) ** 2
    return ((2 - theta) / (4 * m * (l2 + 1)) * (theta * (1 - 2 * m + l2) - 2 * m * (l2 - 1))
            * (theta * (1 + 2 * m + l2) - 2 * (m + 1) * (l2 + 1)) / (theta * (1 + 2 * m - l2) - 2 * (m + 1) * (1 - l2)))


def _drs_cocoercive_regimes(m: Any, b: Any, theta: Any, general_denominator: Any) -> Any:
    """The five regimes of RTBG 2020 Thm 4.1 in the scaled constants ``m`` (of ``alpha B``) and ``b`` (of ``alpha A``);
    the general (fifth) regime divides by ``general_denominator``.  Only ``+ - * /`` and comparisons: exact for
    :class:`fractions.Fraction` arguments."""
    if m * b - m + b < 0 and theta <= 2 * (b + 1) * (m - b - m * b) / (m + m * b - b - b * b - 2 * m * b * b):
        return (1 - theta * b / (b + 1)) ** 2
    if m * b - m - b > 0 and theta <= 2 * (m * m + b * b + m * b + m + b - m * m * b * b) / (
            m * m + b * b + m * m * b + m * b * b + m + b - 2 * m * m * b * b):
        return (1 - theta * (1 + m * b) / ((m + 1) * (b + 1))) ** 2
    if theta >= 2 * (m * b + m + b) / (2 * m * b + m + b):
        return (1 - theta) ** 2
    if m * b + m - b < 0 and theta <= 2 * (m + 1) * (b - m - m * b) / (b + m * b - m - m * m - 2 * m * m * b):
        return (1 - theta * m / (m + 1)) ** 2
    return ((2 - theta) * ((2 - theta) * m * (b + 1) + theta * b * (1 - m))
            * ((2 - theta) * b * (m + 1) + theta * m * (1 - b))
            / (general_denominator * (2 * m * b * (1 - theta) + (2 - theta) * (m + b + 1))))


def drs_cocoercive_tau(beta: Any, mu: Any, alpha: Any, theta: Any) -> Any:
    r"""RTBG 2020 Thm 4.1: the tight contraction factor (squared) of one DRS step ``x = J_{alpha B}(w)``, ``y = J_{alpha
    A}(2x - w)``, ``w+ = w - theta (x - y)`` with ``A`` ``beta``-cocoercive and ``B`` ``mu``-strongly monotone.

    In the scaled constants ``m = alpha mu`` (``alpha B`` is ``alpha mu``-strongly monotone) and ``b = beta / alpha``
    (``alpha A`` is ``(beta/alpha)``-cocoercive: ``<alpha A x - alpha A y, x - y> >= (beta/alpha) ||alpha A x - alpha A
    y||^2``), five regimes; the general one is

    ``(2 - theta) ((2 - theta) m (b + 1) + theta b (1 - m)) ((2 - theta) b (m + 1) + theta m (1 - b))
    / (4 m b (2 m b (1 - theta) + (2 - theta) (m + b + 1)))``.

    This is PEPit's transcription (:func:`drs_cocoercive_tau_as_pepit`) with its two slips corrected: ``b = beta/alpha``
    for PEPit's ``alpha beta``, and ``4 m b`` for PEPit's ``4 m^2 b`` in the general regime.  The corrected formula
    equals our PEP (both classes exact) at every parameter point checked, in every regime and with ``alpha != 1``
    (claim ``base.pepit.operators.douglas_rachford_splitting_cocoercive_corrected``; tests/test_worstcase_operators.py).
    Exact for :class:`fractions.Fraction` arguments: ``drs_cocoercive_tau(7/10, 13/10, 1, 1) = 100/273``."""
    m, b = alpha * mu, beta / alpha
    return _drs_cocoercive_regimes(m, b, theta, 4 * m * b)


def drs_cocoercive_tau_as_pepit(beta: Any, mu: Any, alpha: Any, theta: Any) -> Any:
    r"""The contraction factor of RTBG 2020 Thm 4.1 exactly as PEPit's example ``.../douglas_rachford_splitting_2``
    transcribes it: scaled constants ``m = alpha mu`` and ``b = alpha beta``, and a general regime that divides by ``4
    m^2 b``.  Two transcription slips: ``alpha A`` is ``(beta/alpha)``-cocoercive, not ``(alpha beta)``-cocoercive, and
    the general regime divides by ``m`` once too often (:func:`drs_cocoercive_tau` is the corrected formula).  Both slips
    vanish at PEPit's published parameters (``beta = 1.2, mu = 0.1, alpha = 0.3, theta = 1.5``: the fourth regime, which
    does not involve ``b``), where it agrees with the PEP; at ``beta = 0.7, mu = 1.3, alpha = theta = 1`` it gives
    ``0.28177`` below the worst case ``100/273``."""
    m, b = alpha * mu, alpha * beta
    return _drs_cocoercive_regimes(m, b, theta, 4 * m * m * b)


def _drs(A_cls: Any, B_cls: Any, alpha: float, theta: float) -> PEP:
    """One DRS step ``x = J_{alpha B}(w)``, ``y = J_{alpha A}(2x - w)``, ``w+ = w - theta (x - y)`` from two points
    ``w, w'`` with ``||w - w'||^2 <= 1``; objective ``||w+ - w'+||^2``."""
    pep = PEP()
    A, B = operator(pep, A_cls, "A"), operator(pep, B_cls, "B")
    w0, w1 = pep.vector(), pep.vector()
    pep.add_le(sqnorm(w0 - w1) - 1)

    def step(w: Vec) -> Vec:
        x, _ = resolvent(B, w, alpha)
        y, _ = resolvent(A, 2 * x - w, alpha)
        return w - theta * (x - y)

    pep.maximize(sqnorm(step(w0) - step(w1)))
    return pep


def douglas_rachford_splitting(L: float = 1.0, mu: float = 0.1, alpha: float = 1.3, theta: float = 0.9
                               ) -> OperatorParityResult:
    r"""One Douglas-Rachford step on ``0 in A x + B x``, ``A`` ``L``-Lipschitz maximally monotone (the relaxation
    :class:`~fairtheory.worstcase.operators.LipschitzStronglyMonotone` ``(L, 0)``: our value is an **upper bound**),
    ``B`` maximally ``mu``-strongly monotone: the contraction factor of RTBG 2020 Thm 4.3, tight (PEPit
    ``.../douglas_rachford_splitting``; Moursi & Vandenberghe 2019 for an earlier bound)."""
    t0 = time.perf_counter()
    pep = _drs(LipschitzStronglyMonotone(L, 0), StronglyMonotone(mu), alpha, theta)
    return _finish("douglas_rachford_splitting", {"L": L, "mu": mu, "alpha": alpha, "theta": theta}, pep,
                   drs_lipschitz_tau(L, mu, alpha, theta), t0, "Ryu, Taylor, Bergeling & Giselsson 2020, Thm 4.3")


def douglas_rachford_splitting_cocoercive(beta: float = 1.2, mu: float = 0.1, alpha: float = 0.3, theta: float = 1.5
                                          ) -> OperatorParityResult:
    r"""One Douglas-Rachford step, ``A`` ``beta``-cocoercive, ``B`` maximally ``mu``-strongly monotone (both exact
    classes) against the contraction factor of RTBG 2020 Thm 4.1 **as PEPit's example** ``.../douglas_rachford_splitting_2``
    **transcribes it** (:func:`drs_cocoercive_tau_as_pepit`).

    **Finding** (expected ``refuted``): a transcription error in PEPit's example, not in the theorem.  At ``beta = 0.7,
    mu = 1.3, alpha = 1, theta = 1`` the transcribed formula gives ``0.28177`` but our PEP gives ``0.366300 = 100/273``
    (PEPit's own PEP prints ``0.3663004``), and commuting 2x2 linear operators (``A`` with eigenvalues ``0.6914 +- 0.7139
    i`` on the boundary of the ``0.7``-cocoercive disk, ``B`` with eigenvalues ``1.3 -+ 2.891 i``) reach it: the
    transcribed formula is not an upper bound there.  The formula divides by ``mu`` once too often in its general regime
    (``mu^2 beta`` where ``mu beta`` belongs: ``0.28177 = (100/273)/1.3``) and scales ``beta`` as ``alpha beta`` where
    ``alpha A`` is ``(beta/alpha)``-cocoercive.  Corrected (:func:`drs_cocoercive_tau`), it gives exactly ``100/273``
    here and equals our PEP at every point checked (:func:`douglas_rachford_splitting_cocoercive_corrected`)."""
    t0 = time.perf_counter()
    pep = _drs(Cocoercive(beta), StronglyMonotone(mu), alpha, theta)
    return _finish("douglas_rachford_splitting_cocoercive", {"beta": beta, "mu": mu, "alpha": alpha, "theta": theta},
                   pep, drs_cocoercive_tau_as_pepit(beta, mu, alpha, theta), t0,
                   "PEPit's transcription of Ryu, Taylor, Bergeling & Giselsson 2020, Thm 4.1")


def douglas_rachford_splitting_cocoercive_corrected(beta: float = 0.7, mu: float = 1.3, alpha: float = 1.0,
                                                    theta: float = 1.0) -> OperatorParityResult:
    r"""The PEP of :func:`douglas_rachford_splitting_cocoercive` against the contraction factor of RTBG 2020 Thm 4.1
    with PEPit's two transcription slips corrected (:func:`drs_cocoercive_tau`: ``b = beta/alpha``, general regime over
    ``4 m b``), stated tight.  Its parameters cover every regime of the theorem, the general one also with ``alpha !=
    1`` (:data:`OPERATOR_EXAMPLES`)."""
    t0 = time.perf_counter()
    pep = _drs(Cocoercive(beta), StronglyMonotone(mu), alpha, theta)
    return _finish("douglas_rachford_splitting_cocoercive_corrected",
                   {"beta": beta, "mu": mu, "alpha": alpha, "theta": theta}, pep, drs_cocoercive_tau(beta, mu, alpha, theta),
                   t0, "Ryu, Taylor, Bergeling & Giselsson 2020, Thm 4.1 (PEPit's transcription corrected)")


#: homogeneity (fairtheory.worstcase.units; :func:`fairtheory.worstcase.pepit_examples.homogeneous`): each example posed
#: with its unit-fixing parameter 1 and mapped back exactly; contractions and squared distances at a fixed initial
#: distance are dimensionless (measure exponent 0).  Not wrapped: ``douglas_rachford_splitting_cocoercive``, whose
#: theory is PEPit's transcription - not homogeneous (``b = alpha beta`` where ``beta/alpha`` belongs), the finding
#: that example documents.
_UNITS: dict[str, tuple[str, dict[str, int], int]] = {
    "proximal_point": ("1/alpha", {"alpha": -1}, 0),
    "accelerated_proximal_point": ("1/alpha", {"alpha": -1}, 0),
    "douglas_rachford_splitting": ("L", {"L": 1, "mu": 1, "alpha": -1}, 0),
    "douglas_rachford_splitting_cocoercive_corrected": ("mu", {"beta": -1, "mu": 1, "alpha": -1}, 0),
}
for _name, (_u, _e, _m) in _UNITS.items():
    globals()[_name] = homogeneous(_u, _e, _m)(globals()[_name])


# ------------------------------------------------------------------------- fixed-point problems
def halpern_iteration(n: int = 10) -> OperatorParityResult:
    r"""Halpern iteration ``x_{t+1} = x_0/(t+2) + (1 - 1/(t+2)) T x_t`` on nonexpansive ``T`` with a fixed point,
    ``||x_0 - x*||^2 <= 1``: ``||x_n - T x_n||^2 <= (2/(n+1))^2``, tight (Lieder 2021, Optim. Lett. 15, Thm 2.1; PEPit
    ``fixed_point_problems/halpern_iteration``)."""
    t0 = time.perf_counter()
    n = _n(n)
    pep = PEP()
    T = operator(pep, Nonexpansive(), "T")
    declare_fixed_point(T)
    x0 = _start(pep)
    x = x0
    for t in range(n):
        x = (1 / (t + 2)) * x0 + (1 - 1 / (t + 2)) * apply(T, x)
    pep.maximize(sqnorm(x - apply(T, x)))
    return _finish("halpern_iteration", {"n": n}, pep, (2 / (n + 1)) ** 2, t0, "Lieder 2021, Thm 2.1")


def optimal_contractive_halpern_iteration(n: int = 10, gamma: float = 1.1) -> OperatorParityResult:
    r"""Optimal contractive Halpern ``x_{t+1} = (1 - 1/phi_{t+1}) T x_t + x_0/phi_{t+1}``, ``phi_k = sum_{i<=k}
    gamma^{2i}``, on ``1/gamma``-Lipschitz ``T`` (``gamma > 1``): ``||x_n - T x_n||^2 <= (1 + 1/gamma)^2
    (1/sum_{k<=n} gamma^k)^2``, tight (Park & Ryu 2022, ICML, Cor 3.3 and Thm 4.1; PEPit
    ``fixed_point_problems/optimal_contractive_halpern_iteration``)."""
    t0 = time.perf_counter()
    n = _n(n)
    pep = PEP()
    T = operator(pep, Lipschitz(1 / gamma), "T")
    declare_fixed_point(T)
    x0 = _start(pep)
    x = x0
    for t in range(n):
        phi = sum(gamma ** (2 * i) for i in range(t + 2))
        x = (1 - 1 / phi) * apply(T, x) + (1 / phi) * x0
    pep.maximize(sqnorm(x - apply(T, x)))
    theory = (1 + 1 / gamma) ** 2 / sum(gamma ** k for k in range(n + 1)) ** 2
    return _finish("optimal_contractive_halpern_iteration", {"n": n, "gamma": gamma}, pep, theory, t0,
                   "Park & Ryu 2022, Cor 3.3, Thm 4.1")


def km_constant_bound(n: int, gamma: float) -> float:
    r"""Lieder 2018 (PhD thesis, HHU Duesseldorf), Thm 4.9: for ``1/2 <= gamma <= 1``, ``||x_n - T x_n||^2/4 <=
    (n/(n+1))^n / ((n+1) 4 gamma (1 - gamma))`` when ``gamma <= (1 + sqrt(n/(n+1)))/2``, else ``(2 gamma - 1)^{2n}``.

    (PEPit's docstring prints ``(gamma - 1)^{2n}`` for the second regime, its code ``(2 gamma - 1)^{2n}``; ``T = -I``
    gives ``||x_n - T x_n||^2/4 = (2 gamma - 1)^{2n}``, so the docstring's value is not a bound: ``0.817`` against
    ``1e-20`` at ``n = 5``, ``gamma = 0.99``; tests/test_worstcase_operators.py.)"""
    if not 0.5 <= gamma <= 1:
        raise FairtheoryValueError(f"gamma must lie in [1/2, 1] (the range of Lieder's Thm 4.9), got {gamma!r}")
    if gamma <= (1 + math.sqrt(n / (n + 1))) / 2:
        return (n / (n + 1)) ** n / (n + 1) / (4 * gamma * (1 - gamma))
    return (2 * gamma - 1) ** (2 * n)


def krasnoselskii_mann_constant_step_sizes(n: int = 3, gamma: float = 0.75) -> OperatorParityResult:
    r"""Krasnoselskii-Mann ``x_{t+1} = (1 - gamma) x_t + gamma T x_t`` on nonexpansive ``T`` with a fixed point:
    ``||x_n - T x_n||^2/4 <=`` :func:`km_constant_bound` (Lieder 2018, Thm 4.9; stated as an upper bound, so the claim
    is ``ours <= bound``; PEPit ``fixed_point_problems/krasnoselskii_mann_constant_step_sizes``)."""
    t0 = time.perf_counter()
    n = _n(n)
    bound = km_constant_bound(n, gamma)
    pep = PEP()
    T = operator(pep, Nonexpansive(), "T")
    declare_fixed_point(T)
    x = _start(pep)
    for _ in range(n):
        x = (1 - gamma) * x + gamma * apply(T, x)
    pep.maximize(0.25 * sqnorm(x - apply(T, x)))
    return _finish("krasnoselskii_mann_constant_step_sizes", {"n": n, "gamma": gamma}, pep, bound, t0,
                   "Lieder 2018, PhD thesis, Thm 4.9", kind="bound")


def km_increasing_bound(n: int) -> float:
    r"""``||x_n - T x_n||^2/4 <= 1/(4 sum_{t<n} lambda_t (1 - lambda_t))`` for KM with weights ``lambda_t`` on ``T``,
    here ``lambda_t = (t+1)/(t+2)``.  With ``x_{t+1} = (1 - lambda) x_t + lambda T x_t`` and ``T x* = x*``: ``||x_{t+1} -
    x*||^2 = (1 - lambda) ||x_t - x*||^2 + lambda ||T x_t - x*||^2 - lambda (1 - lambda) ||T x_t - x_t||^2 <= ||x_t -
    x*||^2 - lambda (1 - lambda) ||T x_t - x_t||^2`` (Bauschke & Combettes 2017, Cor 2.15; the proof of Thm 5.15), summed
    over ``t``; and ``||x_t - T x_t||`` does not increase (``x_{t+1} - T x_{t+1} = (1 - lambda)(x_t - T x_t) + T x_t -
    T x_{t+1}``, ``||T x_t - T x_{t+1}|| <= lambda ||x_t - T x_t||``).  Not tight."""
    return 1 / (4 * sum((t + 1) / (t + 2) ** 2 for t in range(n)))


def krasnoselskii_mann_increasing_step_sizes(n: int = 3) -> OperatorParityResult:
    r"""Krasnoselskii-Mann ``x_{t+1} = x_t/(t+2) + (1 - 1/(t+2)) T x_t`` on nonexpansive ``T`` with a fixed point
    (PEPit ``fixed_point_problems/krasnoselskii_mann_increasing_step_sizes``, which states no value): our worst case of
    ``||x_n - T x_n||^2/4`` must lie below :func:`km_increasing_bound` (Bauschke & Combettes 2017, Thm 5.15's
    inequalities; a bound, not tight)."""
    t0 = time.perf_counter()
    n = _n(n)
    pep = PEP()
    T = operator(pep, Nonexpansive(), "T")
    declare_fixed_point(T)
    x = _start(pep)
    for t in range(n):
        x = (1 / (t + 2)) * x + (1 - 1 / (t + 2)) * apply(T, x)
    pep.maximize(0.25 * sqnorm(x - apply(T, x)))
    return _finish("krasnoselskii_mann_increasing_step_sizes", {"n": n}, pep, km_increasing_bound(n), t0,
                   "Bauschke & Combettes 2017, Thm 5.15 (proof)", kind="bound")


_MI = "PEPit.examples.monotone_inclusions_variational_inequalities"
_FP = "PEPit.examples.fixed_point_problems"
check_all(globals(), __name__, ("OperatorParityResult",))   # arguments validated by name (pepit_examples)

#: the examples, with the parameters of the quick run (PEPit's published ones, Halpern at ``n = 10``) and the full run
#: (at most ``n = 12`` steps: larger PEPs exceed the GMP re-solve's 120 rows, and the float solve alone misses the
#: tight values by up to ``7e-6`` relative - above the proven bounds, so an accuracy limit; docs/worstcase.md)
OPERATOR_EXAMPLES: dict[str, Example] = {e.name: e for e in [
    Example("proximal_point", proximal_point, (f"{_MI}.proximal_point", "wc_proximal_point"),
            [{"alpha": 2.2, "n": 10}], [{"alpha": a, "n": n} for a, n in ((1.0, 1), (1.0, 2), (0.5, 5), (3.0, 12))]),
    Example("accelerated_proximal_point", accelerated_proximal_point,
            (f"{_MI}.accelerated_proximal_point", "wc_accelerated_proximal_point"),
            [{"alpha": 2.0, "n": 10}], [{"alpha": a, "n": n} for a, n in ((1.0, 1), (1.0, 2), (0.5, 5), (2.0, 12))]),
    Example("optimal_strongly_monotone_proximal_point", optimal_strongly_monotone_proximal_point,
            (f"{_MI}.optimal_strongly_monotone_proximal_point", "wc_optimal_strongly_monotone_proximal_point"),
            [{"n": 10, "mu": 0.05}], [{"n": n, "mu": m} for n, m in ((1, 0.05), (3, 0.5), (5, 0.1), (12, 0.05))]),
    Example("douglas_rachford_splitting", douglas_rachford_splitting,
            (f"{_MI}.douglas_rachford_splitting", "wc_douglas_rachford_splitting"),
            [{"L": 1.0, "mu": 0.1, "alpha": 1.3, "theta": 0.9}],
            [{"L": L, "mu": m, "alpha": a, "theta": t} for L, m, a, t in
             ((2.0, 0.5, 1.0, 1.0), (0.5, 0.1, 1.0, 1.5), (1.0, 1.0, 0.5, 0.5), (3.0, 0.2, 0.7, 1.2))]),
    Example("douglas_rachford_splitting_cocoercive", douglas_rachford_splitting_cocoercive,
            (f"{_MI}.douglas_rachford_splitting_2", "wc_douglas_rachford_splitting_2"),
            [{"beta": 1.2, "mu": 0.1, "alpha": 0.3, "theta": 1.5}, {"beta": 0.7, "mu": 1.3, "alpha": 1.0, "theta": 1.0}],
            [{"beta": b, "mu": m, "alpha": a, "theta": t} for b, m, a, t in
             ((1.0, 0.5, 1.0, 1.0), (0.5, 0.1, 1.0, 1.5), (2.0, 1.0, 0.5, 0.5), (0.3, 0.2, 2.0, 1.9), (2.0, 0.7, 1.0, 0.8))]),
    # the corrected formula at the finding's point, then each regime of Thm 4.1 (1-5 in drs_cocoercive_tau's order),
    # the general one (5) also with alpha != 1 - where PEPit's transcription is off
    Example("douglas_rachford_splitting_cocoercive_corrected", douglas_rachford_splitting_cocoercive_corrected, None,
            [{"beta": b, "mu": m, "alpha": a, "theta": t} for b, m, a, t in
             ((0.7, 1.3, 1.0, 1.0), (1.2, 0.1, 0.3, 1.5), (0.7, 1.3, 2.0, 1.0), (6.0, 1.5, 2.0, 1.0), (0.3, 0.2, 2.0, 1.9),
              (0.7, 1.3, 0.5, 1.2), (1.5, 0.8, 1.7, 0.9), (0.4, 2.0, 0.6, 1.1))],
            [{"beta": b, "mu": m, "alpha": a, "theta": t} for b, m, a, t in
             ((1.0, 0.5, 1.0, 1.0), (2.0, 1.0, 0.5, 0.5), (2.0, 0.7, 1.0, 0.8), (1.0, 1.0, 1.5, 0.7), (0.9, 0.6, 0.8, 1.3),
              (1.5, 6.0, 0.5, 0.6), (0.5, 0.1, 1.0, 1.5))]),
    Example("halpern_iteration", halpern_iteration, (f"{_FP}.halpern_iteration", "wc_halpern_iteration"),
            [{"n": 10}], [{"n": n} for n in (1, 2, 5, 12)]),
    Example("optimal_contractive_halpern_iteration", optimal_contractive_halpern_iteration,
            (f"{_FP}.optimal_contractive_halpern_iteration", "wc_optimal_contractive_halpern_iteration"),
            [{"n": 10, "gamma": 1.1}], [{"n": n, "gamma": g} for n, g in ((1, 1.5), (3, 1.1), (5, 2.0), (12, 1.05))]),
    Example("krasnoselskii_mann_constant_step_sizes", krasnoselskii_mann_constant_step_sizes,
            (f"{_FP}.krasnoselskii_mann_constant_step_sizes", "wc_krasnoselskii_mann_constant_step_sizes"),
            [{"n": 3, "gamma": 0.75}], [{"n": n, "gamma": g} for n, g in ((1, 0.5), (5, 0.75), (5, 0.99), (10, 0.6))],
            kind="bound"),
    Example("krasnoselskii_mann_increasing_step_sizes", krasnoselskii_mann_increasing_step_sizes,
            (f"{_FP}.krasnoselskii_mann_increasing_step_sizes", "wc_krasnoselskii_mann_increasing_step_sizes"),
            [{"n": 3}], [{"n": n} for n in (1, 2, 5, 10)], kind="bound"),
]}


# ------------------------------------------------------------------------- examples whose papers state no value
@dataclass(frozen=True)
class OperatorWorstCase:
    """A PEP value of an example whose paper states no closed form (no claim: PEPit prints only its own number)."""

    name: str
    params: dict[str, Any]
    value: float
    value_is: str            #: ``"worst case"`` or ``"upper bound"`` (a relaxation class)
    status: str
    seconds: float


def _value(name: str, params: dict[str, Any], pep: PEP, t0: float) -> OperatorWorstCase:
    sol = pep.solve()
    return OperatorWorstCase(name, dict(params), float(sol.value), value_is(pep), sol.status, time.perf_counter() - t0)


def _vi(L: float) -> tuple[PEP, Function, Function, Vec]:
    """A monotone variational inequality: ``F`` ``L``-Lipschitz monotone (the relaxation), ``C`` a closed convex set
    (its indicator), ``x* = 0`` a zero of ``F + N_C`` (:meth:`~fairtheory.worstcase.sdp.PEP.optimum_of_sum`: ``F x* =
    -g*`` with ``g*`` a normal vector of ``C`` at ``x*``), ``||x_0 - x*||^2 <= 1``."""
    pep = PEP()
    F = operator(pep, LipschitzStronglyMonotone(L, 0), "F")
    ind = pep.function(ConvexIndicator(), "C")
    pep.optimum_of_sum([F, ind])
    return pep, F, ind, _start(pep)


def optimistic_gradient(n: int = 5, gamma: float = 0.25, L: float = 1.0) -> OperatorWorstCase:
    r"""Optimistic gradient on a monotone VI (Hsieh, Iutzeler, Malick & Mertikopoulos 2019; Gorbunov, Taylor & Gidel
    2022 prove ``O(1/n)`` without a closed form): ``x~_t = P_C(x_t - gamma F(x~_{t-1}))``, ``x_{t+1} = x~_t + gamma
    (F(x~_{t-1}) - F(x~_t))`` from ``x~_0 = P_C(x_0)``; measure ``||x~_n - x~_{n-1}||^2`` (PEPit
    ``.../optimistic_gradient``).  An upper bound (the Lipschitz monotone class is a relaxation)."""
    t0 = time.perf_counter()
    pep, F, ind, x0 = _vi(L)
    x = ind.project(x0)
    xt = x
    V = apply(F, xt)
    prev = xt
    for _ in range(_n(n)):
        prev = xt
        xt = ind.project(x - gamma * V)
        V_prev, V = V, apply(F, xt)
        x = xt + gamma * (V_prev - V)
    pep.maximize(sqnorm(xt - prev))
    return _value("optimistic_gradient", {"n": n, "gamma": gamma, "L": L}, pep, t0)


def past_extragradient(n: int = 5, gamma: float = 0.25, L: float = 1.0) -> OperatorWorstCase:
    r"""Past extragradient (Popov) on a monotone VI: ``x~_t = P_C(x_t - gamma F(x~_{t-1}))``, ``x_{t+1} = P_C(x_t -
    gamma F(x~_t))`` from ``x~_0 = x_0' = P_C(x_0)``; measure ``||x_n - x_{n-1}||^2`` (PEPit
    ``.../past_extragradient``; ``O(1/n)`` in Gorbunov, Taylor & Gidel 2022 and Cai, Oikonomou & Zheng 2022).  An upper
    bound (relaxation class)."""
    t0 = time.perf_counter()
    pep, F, ind, x0 = _vi(L)
    x = ind.project(x0)
    V = apply(F, x)
    prev = x
    for _ in range(_n(n)):
        xt = ind.project(x - gamma * V)
        V = apply(F, xt)
        prev, x = x, ind.project(x - gamma * V)
    pep.maximize(sqnorm(x - prev))
    return _value("past_extragradient", {"n": n, "gamma": gamma, "L": L}, pep, t0)


def three_operator_splitting(L: float = 1.0, mu: float = 0.1, beta: float = 1.0, alpha: float = 0.9,
                             theta: float = 1.3) -> OperatorWorstCase:
    r"""One Davis-Yin step on ``0 in A x + B x + C x`` (``A`` maximally monotone, ``B`` ``beta``-cocoercive, ``C`` the
    gradient of an ``L``-smooth ``mu``-strongly convex function - an operator and a function class in one PEP):
    ``x = J_{alpha B}(w)``, ``y = J_{alpha A}(2x - w - alpha C x)``, ``w+ = w - theta (x - y)``, contraction
    ``||w+ - w'+||^2`` over ``||w - w'||^2 <= 1`` (Davis & Yin 2017; RTBG 2020; PEPit ``.../three_operator_splitting``,
    no closed form).  Every class is exact: the worst case."""
    t0 = time.perf_counter()
    pep = PEP()
    A, B = operator(pep, Monotone(), "A"), operator(pep, Cocoercive(beta), "B")
    C = pep.function(SmoothStronglyConvex(L, mu), "C")
    w0, w1 = pep.vector(), pep.vector()
    pep.add_le(sqnorm(w0 - w1) - 1)

    def step(w: Vec) -> Vec:
        x, _ = resolvent(B, w, alpha)
        y, _ = resolvent(A, 2 * x - w - alpha * C.grad(x), alpha)
        return w - theta * (x - y)

    pep.maximize(sqnorm(step(w0) - step(w1)))
    return _value("three_operator_splitting", {"L": L, "mu": mu, "beta": beta, "alpha": alpha, "theta": theta}, pep, t0)


def run_operator_example(name: str, **params: Any) -> OperatorParityResult:
    """Solve one example of :data:`OPERATOR_EXAMPLES` (its first quick parameter set unless ``params`` are given)."""
    if name not in OPERATOR_EXAMPLES:
        raise FairtheoryValueError(f"name must be one of {sorted(OPERATOR_EXAMPLES)}, got {name!r}")
    ex = OPERATOR_EXAMPLES[name]
    return ex.run(**(params or ex.quick[0]))  # type: ignore[no-any-return]


#: homogeneity of the examples without a closed form (as :data:`_UNITS`); the measures are squared distances at a fixed
#: initial distance (exponent 0)
_VALUE_UNITS: dict[str, tuple[str, dict[str, int], int]] = {
    "optimistic_gradient": ("L", {"L": 1, "gamma": -1}, 0),
    "past_extragradient": ("L", {"L": 1, "gamma": -1}, 0),
    "three_operator_splitting": ("L", {"L": 1, "mu": 1, "beta": -1, "alpha": -1}, 0),
}
for _name, (_u, _e, _m) in _VALUE_UNITS.items():   # normalised at every L != 1 (homogeneous's dead_zone)
    globals()[_name] = homogeneous(_u, _e, _m, dead_zone=False)(globals()[_name])
check_all(globals(), __name__, ("OperatorWorstCase",))
