r"""Horizon-free certificates for local GD with averaging: one-round potential PEPs.

In the style of Taylor & Bach 2019: instead of the worst case after ``T_N`` rounds, ask for constants
``(a, C)`` such that *one* round from any server model ``theta`` (``kappa`` local steps of every client
from ``theta``, then the ``p``-average ``theta^+``) satisfies, for every instance,

.. math:: a\,(G(\theta) - G^*) + \|\theta^+ - \theta^*\|^2 \le \|\theta - \theta^*\|^2 + C \rho^2 .

Summing over the rounds ``r = 0, ..., T_N`` from ``theta_1`` and using Jensen's inequality gives, for
every ``T_N``, the 002 output's bound

.. math:: G(\tilde\theta) - G^* \le \frac{\|\theta_1 - \theta^*\|^2}{a (T_N + 1)} + \frac{C}{a}\rho^2
          \le \frac{D_0}{a (T_N + 1)} + \frac{C}{a}\rho^2

(``theta_1 = theta_0 - beta grad G(theta_0)`` is no farther from ``theta*`` than ``theta_0`` when
``beta <= 2/L``).  002 Thm. 1's proof (eqs. C.8-C.10) is such an argument with ``a = beta/2`` and
``C = 13 L beta^3 (kappa-1)^2 kappa`` per round, i.e. ``2 D0/(beta (T_N+1)) + 26 L beta^2 (kappa-1)^2 kappa
rho^2``.

For fixed ``a`` the smallest valid ``C`` is the value of one small PEP (:func:`round_constant`):
``max a (G(theta) - G*) + ||theta^+ - theta*||^2 - ||theta - theta*||^2`` subject to ``rho^2 <= 1``
(homogeneous: it is ``+inf`` - no certificate with this ``a`` - or the smallest ``C``).  The value is
convex and non-decreasing in ``a``.  :func:`horizon_free_constants` reports ``C(beta/2)`` next to the
theorem's ``C``, the largest ``a`` with a finite ``C`` (the best initial-distance constant ``1/a``) and
``min_a C(a)/a`` (the best heterogeneity constant), all within this potential family.
:func:`stepsize_region` finds the largest ``beta L`` with a certificate.  See docs/worstcase.md.

The functions take 002's step ``beta`` as ``lr`` (``beta=`` is refused naming ``lr=``; the formulas above keep the
paper's symbol).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive, check_probability_vector
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.errors import FairtheoryValueError
from fairtheory.proofs.certificate import certify_pep, statement
from fairtheory.worstcase.finish import exact_weights
from fairtheory.worstcase.gram import Scalar, num, sqnorm, vsum
from fairtheory.worstcase.local_gd import _outcomes
from fairtheory.worstcase.sdp import PEP

__all__ = ["RoundConstant", "round_constant", "HorizonFree", "horizon_free_constants", "stepsize_region",
           "certificate_bound", "theorem_round_constants"]

_BETA = {"beta": "lr"}  #: 002's symbol, refused as a keyword naming lr=

#: statuses that mean "no certificate with this a" (the one-round PEP is unbounded)
_UNBOUNDED = ("DualInfeasible", "AlmostDualInfeasible")


@dataclass
class RoundConstant:
    """Smallest ``C`` for a given ``a`` (``inf`` when no certificate exists), in units ``L = 1``."""

    a: float
    C: float
    status: str
    gap: float
    dim: int
    seconds: float
    certificate: Any = None  #: exact certificate of ``C <= certificate.bound`` (``certificate=True``)

    @property
    def exists(self) -> bool:
        return math.isfinite(self.C)


def _round_pep(n: int, p: Any, beta: Any, kappa: int, a: Any, R: Any,
               K: int | None = None, exact: bool = False) -> tuple[PEP, Scalar]:
    pep = PEP(exact=exact)
    funcs, stars = pep.clients_at_optimum(n, p, 1 if exact else 1.0)
    theta = pep.vector()
    Y = [theta] * n
    for _ in range(kappa):
        Y = [Y[i] - beta * funcs[i].grad(Y[i]) for i in range(n)]
    G_theta = Scalar()
    for i in range(n):
        G_theta = G_theta + num(p[i]) * funcs[i].value(theta)
    obj = a * G_theta - sqnorm(theta)
    if K is None:
        obj = obj + sqnorm(vsum(Y, p))
    else:  # E over the K draws of ||theta^+ - theta*||^2, theta^+ the plain mean of the drawn clients' models
        for q, counts in _outcomes(p, K):
            obj = obj + q * sqnorm(vsum(Y, counts / K))
    rho = Scalar()
    for pi, g in zip(p, stars, strict=True):
        rho = rho + num(pi) * sqnorm(g)
    pep.add_le(rho - R)
    pep.maximize(obj)
    return pep, obj


@refuses_old_names(None, also=_BETA)
def round_constant(*, kappa: int, lr: float, a: float, L: float = 1.0, n: int = 2, p: Any = None,
                   K: int | None = None, tol: float = 1e-8, certificate: bool = False) -> RoundConstant:
    r"""Smallest ``C`` with ``a (G(theta) - G*) + ||theta^+ - theta*||^2 <= ||theta - theta*||^2 + C rho^2``
    for one round of ``kappa`` local steps of size ``lr`` (every client ``L``-smooth convex).  With ``K``
    (partial participation, 002 Thm. 2) ``||theta^+ - theta*||^2`` is its exact expectation over the ``K``
    draws with replacement by ``p``.

    Normalised units (``L = 1``): pass ``a = a_phys L`` and read ``C_phys = C / L^2`` (``lr`` and ``L``
    are given physically).  ``C = inf`` when no certificate exists.

    ``certificate=True`` (full participation): ``.certificate`` proves the one-round inequality with
    ``C = certificate.bound`` exactly, as a homogeneous statement (``local_gd_round``, :mod:`fairtheory_kernel.pep`)
    with ``lr``, ``L`` and ``a / L`` the rationals the floats given are; ``certificate.bound`` is in physical
    units (``C / L^2``)."""
    kappa_i = check_integer(kappa, "kappa", low=1)
    beta_f, L_f = check_positive(lr, "lr"), check_positive(L, "L")
    a_f = check_in_range(a, "a", low=0.0)
    n_i = check_integer(n, "n", low=1)
    p_arr = np.full(n_i, 1.0 / n_i) if p is None else check_probability_vector(p, "p")
    if p_arr.shape != (n_i,):
        raise FairtheoryValueError(f"p must have shape ({n_i},), got {p_arr.shape}")
    bq = Fraction(beta_f) * Fraction(L_f)
    if not 0 < bq * kappa_i < 10**6 or bq * kappa_i < Fraction(1, 10**6):
        raise FairtheoryValueError(f"lr * L * kappa must lie in [1e-6, 1e6] for the one-round PEP, got {float(bq * kappa_i):g}")
    b = float(bq)
    # rho^2 <= R with R = (beta L kappa)^-3 keeps the value O(1) (C scales like (beta L kappa)^3); C = value / R
    Rq = (bq * kappa_i) ** -3
    R = float(Rq)
    K_i = None if K is None else check_integer(K, "K", low=1)
    if certificate and K_i is not None:
        raise FairtheoryValueError("certificate=True supports full participation only (K=None)")
    pep, _ = _round_pep(n_i, p_arr, b, kappa_i, a_f, R, K_i)
    sol = pep.solve(tol=tol, raw=True)
    if sol.status in _UNBOUNDED:
        C = math.inf
    elif sol.status in ("Solved", "AlmostSolved"):
        C = max(sol.value, 0.0) / R
    else:
        C = math.nan
    cert = None
    if certificate and math.isfinite(C):
        # the statement is physical: a_phys = a / L; the certificate's bound is C_phys = C / L^2
        tpl = statement(method={"name": "local_gd_round", "kappa": kappa_i, "lr": beta_f, "a": Fraction(a_f) / Fraction(L_f)},
                        n=n_i, p=exact_weights(p, p_arr), L=L_f, bound={"form": "homogeneous", "dist": 1, "hetero": 0})
        cert = certify_pep(tpl, direction=(0, 1), meta={"problem": "round_constant", "kappa": kappa_i, "lr": beta_f,
                                                        "L": L_f, "a": a_f, "n": n_i})
    return RoundConstant(a=a_f, C=C, status=sol.status, gap=sol.gap / R, dim=sol.dim, seconds=sol.seconds,
                         certificate=cert)


@refuses_old_names(None, also=_BETA)
def theorem_round_constants(*, kappa: int, lr: float, L: float = 1.0, K: int | None = None) -> tuple[float, float]:
    """``(a, C)`` of 002 Thm. 1's proof per round at step ``lr`` (002's ``beta``): ``a = lr/2``,
    ``C = 13 L lr^3 (kappa-1)^2 kappa``; with ``K`` (002 Thm. 2, eq. D.9) ``C`` gains ``(6/K) lr^2 kappa^2``
    (``C/a`` gains ``(12/K) lr kappa^2``)."""
    C = 13.0 * L * lr**3 * (kappa - 1) ** 2 * kappa
    if K is not None:
        C += 6.0 / K * lr**2 * kappa**2
    return lr / 2.0, C


@dataclass
class HorizonFree:
    """Horizon-free constants next to the theorem's (physical units).

    The bound is ``G(theta_tilde) - G* <= D0/(a (T_N+1)) + (C/a) rho^2`` for every ``T_N``."""

    kappa: int
    lr: float
    L: float
    a_thm: float
    C_thm: float
    C_at_a_thm: float          #: exact smallest C at the theorem's a (inf: no certificate)
    a_max: float               #: largest a with a finite C (bisection, relative accuracy ``a_rtol``)
    C_at_a_max: float
    best_hetero: float         #: min over a of C(a)/a (grid + refinement)
    a_best_hetero: float
    init_coef_thm: float       #: 1/a_thm = 2/lr (theorem's D0/(T_N+1) coefficient)
    init_coef_best: float      #: 1/a_max
    hetero_coef_thm: float     #: C_thm/a_thm = 26 L lr^2 (kappa-1)^2 kappa
    hetero_coef_at_a_thm: float  #: C(a_thm)/a_thm
    solves: int
    extra: dict[str, Any] = field(default_factory=dict)


def _C(kappa: int, bL: float, aL: float, n: int, p: Any, cache: dict[float, float]) -> float:
    if aL not in cache:
        cache[aL] = round_constant(kappa=kappa, lr=bL, a=aL, n=n, p=p).C
    return cache[aL]


@refuses_old_names(None, also=_BETA)
def horizon_free_constants(*, kappa: int, lr: float, L: float = 1.0, n: int = 2, p: Any = None,
                           a_rtol: float = 1e-3, grid: int = 12) -> HorizonFree:
    r"""Exact horizon-free constants of the one-round potential for (``kappa``, ``lr``, ``L``) and the
    theorem's, term by term (see the module doc).  Physical units: ``a`` in units of ``lr``,
    ``C`` in units of ``lr`` times distance-per-gradient squared (``C rho^2`` is a squared distance)."""
    kappa_i = check_integer(kappa, "kappa", low=1)
    beta_f = check_positive(lr, "lr")
    L_f = check_positive(L, "L")
    bL = beta_f * L_f
    cache: dict[float, float] = {}
    a_thm, C_thm = theorem_round_constants(kappa=kappa_i, lr=beta_f, L=L_f)
    # normalised units (x' = x/sqrt(u), g' = g/(L sqrt(u)), f' = f/(L u)): a' = a L, C' = C L^2
    C_thm_n = C_thm * L_f**2
    C_at = _C(kappa_i, bL, a_thm * L_f, n, p, cache)
    # largest a with finite C: double then bisect
    lo, hi = 0.0, max(a_thm * L_f, 1e-6)
    while math.isfinite(_C(kappa_i, bL, hi, n, p, cache)) and hi < 1e3:
        lo, hi = hi, 2.0 * hi
    if lo == 0.0:
        lo = hi
        while not math.isfinite(_C(kappa_i, bL, lo, n, p, cache)) and lo > 1e-12:
            hi, lo = lo, lo / 2.0
        if not math.isfinite(_C(kappa_i, bL, lo, n, p, cache)):
            lo = 0.0
    while lo > 0 and hi - lo > a_rtol * lo:
        mid = 0.5 * (lo + hi)
        if math.isfinite(_C(kappa_i, bL, mid, n, p, cache)):
            lo = mid
        else:
            hi = mid
    a_max = lo
    C_amax = _C(kappa_i, bL, a_max, n, p, cache) if a_max > 0 else math.inf
    # best heterogeneity coefficient min_a C(a)/a on a geometric grid in (0, a_max], then refine
    best, a_best = math.inf, math.nan
    if a_max > 0:
        grid_a = a_max * np.geomspace(1e-3, 1.0, grid)
        vals = [(_C(kappa_i, bL, float(x), n, p, cache) / float(x), float(x)) for x in grid_a]
        best, a_best = min(vals)
        k = int(np.argmin([v for v, _ in vals]))
        lo_a = float(grid_a[max(k - 1, 0)])
        hi_a = float(grid_a[min(k + 1, grid - 1)])
        for _ in range(12):  # golden-section refinement on [lo_a, hi_a]
            m1 = lo_a + 0.382 * (hi_a - lo_a)
            m2 = lo_a + 0.618 * (hi_a - lo_a)
            if _C(kappa_i, bL, m1, n, p, cache) / m1 <= _C(kappa_i, bL, m2, n, p, cache) / m2:
                hi_a = m2
            else:
                lo_a = m1
        for x in (lo_a, hi_a):
            v = _C(kappa_i, bL, x, n, p, cache) / x
            if v < best:
                best, a_best = v, x
    to_a = 1.0 / L_f          # a_phys = a' / L
    to_C = 1.0 / L_f**2       # C_phys = C' / L^2
    return HorizonFree(
        kappa=kappa_i, lr=beta_f, L=L_f, a_thm=a_thm, C_thm=C_thm,
        C_at_a_thm=C_at * to_C, a_max=a_max * to_a, C_at_a_max=C_amax * to_C,
        best_hetero=best * to_C / to_a if math.isfinite(best) else math.inf,
        a_best_hetero=a_best * to_a, init_coef_thm=1.0 / a_thm,
        init_coef_best=1.0 / (a_max * to_a) if a_max > 0 else math.inf,
        hetero_coef_thm=C_thm / a_thm, hetero_coef_at_a_thm=(C_at * to_C) / a_thm,
        solves=len(cache), extra={"C_thm_normalised": C_thm_n})


def certificate_bound(hf: HorizonFree, *, T_N: int, D0: float, rho2: float, use: str = "theorem_a") -> float:
    r"""The horizon-free bound ``D0/(a (T_N+1)) + (C/a) rho^2`` with ``a = a_thm`` (``use="theorem_a"``,
    exact ``C(a_thm)``) or ``a = a_max`` (``use="a_max"``)."""
    if use == "theorem_a":
        a, C = hf.a_thm, hf.C_at_a_thm
    else:
        a, C = hf.a_max, hf.C_at_a_max
    return D0 / (a * (T_N + 1)) + C / a * rho2


def stepsize_region(*, kappa: int, L: float = 1.0, n: int = 2, p: Any = None, a_frac: float = 1e-3,
                    lo: float = 1e-2, hi: float = 2.0, rtol: float = 1e-3, coarse_points: int = 16) -> dict[str, float]:
    r"""Largest ``beta L`` in ``[lo, hi]`` (coarse geometric grid, then bisection to relative accuracy
    ``rtol``) with

    * ``"exists"``: a one-round certificate with ``a = a_frac beta`` (some ``a > 0``; ``C`` finite);
    * ``"theorem_a"``: a certificate with the theorem's ``a = beta/2`` (finite ``C``);
    * ``"theorem_constants"``: the theorem's own constants certified, ``C(beta/2) <= 13 L beta^3 (kappa-1)^2 kappa``
      (then 002 Thm. 1's optimisation bound holds for every ``T_N`` at this ``beta``).

    Assumes each set of step sizes is an interval (checked on the coarse grid: ``"<kind>_nonmonotone"`` is 1
    when a grid point above the first failure passes again).  Below ``beta L = 1e-2`` the one-round SDP is
    badly scaled (``C ~ (beta L kappa)^3``); ``0.0`` means even ``lo`` fails.  Solver failures count as
    "no certificate"."""
    kappa_i = check_integer(kappa, "kappa", low=1)
    L_f = check_positive(L, "L")

    def ok(kind: str, bL: float) -> bool:
        if kind == "exists":
            C = round_constant(kappa=kappa_i, lr=bL, a=a_frac * bL, n=n, p=p).C
            return math.isfinite(C)
        C = round_constant(kappa=kappa_i, lr=bL, a=bL / 2.0, n=n, p=p).C
        if kind == "theorem_a":
            return math.isfinite(C)
        C_thm = 13.0 * bL**3 * (kappa_i - 1) ** 2 * kappa_i
        # C is computed as value / R with R = (beta L kappa)^-3: allow the solver's 1e-7 on the value
        return bool(C <= C_thm * (1 + 1e-6) + 1e-7 * (bL * kappa_i) ** 3)

    out: dict[str, float] = {}
    coarse = np.geomspace(lo, hi, coarse_points)
    for kind in ("exists", "theorem_a", "theorem_constants"):
        flags = [ok(kind, float(b)) for b in coarse]
        if not flags[0]:
            out[kind] = 0.0
            continue
        j = next((k for k, f in enumerate(flags) if not f), None)
        if j is None:
            out[kind] = hi / L_f
            continue
        out[f"{kind}_nonmonotone"] = float(any(flags[j:]))
        lo_b, hi_b = float(coarse[j - 1]), float(coarse[j])
        while hi_b - lo_b > rtol * lo_b:
            mid = 0.5 * (lo_b + hi_b)
            if ok(kind, mid):
                lo_b = mid
            else:
                hi_b = mid
        out[kind] = lo_b / L_f
    return out
