r"""Maximum ratio of the worst case to a theorem's right-hand side, as one SDP.

For 002 / 000 Theorem 1 (and Theorem 2 in expectation over the client draws) the optimisation part of
the bound is linear in ``D0 = ||theta_0 - theta*||^2`` and ``rho^2 = sum_i p_i ||grad g_i(theta*)||^2``:

* 002 Thm. 1: ``2 D0/(beta (T_N+1)) + 26 L beta^2 (kappa-1)^2 kappa rho^2``;
* 000 Thm. 1: ``2 D0/(beta T) + 26 L beta^2 (kappa-1)^2 rho^2`` (``T = T_N kappa + 2``);
* Theorem 2 adds ``(12/K) beta kappa^2 rho^2`` (002) or ``(12/K) beta kappa rho^2`` (000).

The theorems bound ``f_alpha(w_tilde) - f*_alpha``; their proofs reach it through
``G(theta_tilde) - G* <= (the above)`` (002 eq. C.10 / D.9) and add ``mu tau_alpha`` (002 Lemma 2).
Both ``D0`` and ``rho^2`` are Gram expressions, so ``max { G(theta_tilde) - G* : (the above) <= 1 }``
over *all* instances meeting the assumptions (every client ``L``-smooth convex) is one SDP; its value
is the largest ratio ``(G(theta_tilde) - G*)/(the above)`` any instance attains (both sides are
homogeneous of degree one in ``(D0, rho^2)``).  See docs/worstcase.md.

The theorems' step ``beta`` is the functions' ``lr`` (``beta=`` is refused by name); each theorem (``version``, the
paper label ``"002"`` or ``"000"``) bounds its own output, :data:`THEOREM_OUTPUT` (the outputs of
:mod:`fairtheory.worstcase.local_gd`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_integer, check_probability_vector, check_rng
from fairtheory.algorithms.names import THEOREM_OUTPUT, refuses_old_names
from fairtheory.errors import FairtheoryValueError
from fairtheory.proofs.certificate import certify_pep, statement
from fairtheory.worstcase.finish import exact_weights
from fairtheory.worstcase.gram import sqnorm
from fairtheory.worstcase.local_gd import _check, build_local_gd, extract_instance, rho2_expr
from fairtheory.worstcase.replay import simulate_local_gd

__all__ = ["RatioResult", "theorem_coefficients", "theorem_ratio", "theorem_ratio_cached", "sampled_ratio",
           "random_quadratic_instance", "THEOREM_OUTPUT"]

_BETA = {"beta": "lr"}


@dataclass
class RatioResult:
    """Exact largest ratio ``(G(theta_tilde) - G*) / (theorem RHS - mu tau_alpha)`` over all instances.

    ``D0``, ``rho2`` are a maximising instance's constants normalised to ``a D0 + b rho2 = 1``
    (``a``, ``b`` the theorem's coefficients, in units ``L = 1``); ``init_share = a D0`` is the part
    of the right-hand side the initial-distance term makes up at the worst instance."""

    ratio: float
    dual_ratio: float
    gap: float
    status: str
    a: float
    b: float
    D0: float
    rho2: float
    init_share: float
    dim: int
    n_constraints: int
    seconds: float
    conditions_met: bool
    params: dict[str, Any]
    instance: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    certificate: Any = None  #: exact certificate of ``ratio <= certificate.bound`` (``certificate=True``)

    def certified(self, tol: float = 1e-6) -> bool:
        """``Solved``/``AlmostSolved``, ``|gap| <= tol max(1, ratio)``, residuals ``<= tol``."""
        return (self.status in ("Solved", "AlmostSolved") and abs(self.gap) <= tol * max(1.0, abs(self.ratio))
                and self.extra.get("r_prim", 0.0) <= tol and self.extra.get("r_dual", 0.0) <= tol)


@refuses_old_names(None, also=_BETA)
def theorem_coefficients(*, version: str, kappa: int, T_N: int, lr: float, L: float,
                         K: int | None = None) -> tuple[float, float]:
    r"""``(a, b)`` with theorem RHS ``- mu tau_alpha = a D0 + b rho^2`` (from
    :func:`fairtheory.bounds.rcfl.theorem1_terms` / ``theorem2_terms``; ``T = T_N kappa + 2``)."""
    from fairtheory.bounds import rcfl

    T = T_N * kappa + 2
    fn = rcfl.theorem1_terms if K is None else rcfl.theorem2_terms
    extra = {} if K is None else {"K": K}
    common = {"lr": lr, "T": T, "kappa": kappa, "L": L, "mu": 1.0, "tau_alpha": 1.0, "version": version}
    t_a = fn(dist0_sq=1.0, rho2=0.0, **common, **extra)
    t_b = fn(dist0_sq=0.0, rho2=1.0, **common, **extra)
    a = sum(v for k, v in t_a.items() if k != "smooth")
    b = sum(v for k, v in t_b.items() if k != "smooth")
    return float(a), float(b)


@refuses_old_names(None, also=_BETA)
def theorem_coefficients_exact(*, version: str, kappa: int, T_N: int, lr: Fraction, L: Fraction) -> tuple[Fraction, Fraction]:
    r"""``(a, b)`` of :func:`theorem_coefficients` as exact rationals (full participation): 002 Thm. 1
    ``a = 2/(lr (T_N+1))``, ``b = 26 L lr^2 (kappa-1)^2 kappa``; 000 Thm. 1 ``a = 2/(lr T)``,
    ``b = 26 L lr^2 (kappa-1)^2`` with ``T = T_N kappa + 2``."""
    if version == "002":
        return 2 / (lr * (T_N + 1)), 26 * L * lr**2 * (kappa - 1) ** 2 * kappa
    return 2 / (lr * (T_N * kappa + 2)), 26 * L * lr**2 * (kappa - 1) ** 2


@refuses_old_names(None, also=_BETA)
def ratio_template(*, version: str, kappa: int, T_N: int, lr: Fraction, L: Fraction, n: int = 2,
                   p: Any = None, dist: Any = 0, hetero: Any = 0) -> dict[str, Any]:
    """The homogeneous statement "G(theta_tilde) - G* <= dist ||x0 - x*||^2 + hetero rho^2" for local GD with
    the theorem's own output (``version``) and schedule: with ``(dist, hetero)`` the theorem's coefficients it is
    002/000 Thm. 1's optimisation part at that setting (:func:`theorem_coefficients_exact`)."""
    return statement(method={"name": "local_gd", "kappa": kappa, "T_N": T_N, "lr": lr, "schedule": "rfedfair",
                             "output": THEOREM_OUTPUT[version]}, n=n, p=p, L=L,
                     bound={"form": "homogeneous", "dist": dist, "hetero": hetero})


@refuses_old_names(None, also=_BETA)
def theorem_ratio(*, version: Literal["002", "000"] = "002", kappa: int, T_N: int, lr: float, L: float = 1.0,
                  n: int = 2, p: Any = None, K: int | None = None, return_instance: bool = False,
                  tol: float = 1e-8, certificate: bool = False) -> RatioResult:
    r"""Largest ``(G(theta_tilde) - G*) / (RHS - mu tau_alpha)`` of 002/000 Theorem 1 (``K=None``, full
    participation) or Theorem 2 (``K`` draws; expectation over the draws) over all ``n``-client instances
    with ``L``-smooth convex clients, with the theorem's own output (``version``).

    ``conditions_met`` says whether ``lr`` satisfies the theorem's step-size conditions (the ratio is
    computed either way).  ``certificate=True`` (full participation): ``.certificate`` proves the homogeneous
    statement ``G(theta_tilde) - G* <= r (a ||x0 - x*||^2 + b rho^2)`` with ``r = certificate.bound`` and the
    theorem's exact coefficients (:func:`theorem_coefficients_exact`; ``lr`` and ``L`` the rationals the floats
    given are); ``r <= 1`` proves the theorem's optimisation part on every instance of the class."""
    from fairtheory.bounds import rcfl

    if version not in ("002", "000"):
        raise FairtheoryValueError(f"version must be '002' or '000', got {version!r}")
    out = THEOREM_OUTPUT[version]
    n_i, kappa_i, T_N_i, lr_f, L_f, p_arr, _, K_i = _check(n, kappa, T_N, lr, L, p, out, K)
    a, b = theorem_coefficients(version=version, kappa=kappa_i, T_N=T_N_i, lr=lr_f, L=L_f, K=K_i)
    # normalised units (L = 1, f' = f/(L u), x' = x/sqrt(u), g' = g/(L sqrt(u))): a' = a/L, b' = b L
    a_n, b_n = a / L_f, b * L_f
    ok = rcfl.theorem1_step_ok(L_f, lr_f, kappa_i) if K_i is None else rcfl.theorem2_step_ok(L_f, lr_f, kappa_i, K_i)
    if certificate and K_i is not None:
        raise FairtheoryValueError("certificate=True supports full participation only (K=None)")
    p_b, h_b, a_b, b_b, one = p_arr, lr_f * L_f, a_n, b_n, 1.0
    bt = build_local_gd(n=n_i, p=p_b, lr=h_b, kappa=kappa_i, T_N=T_N_i, output=out, K=K_i)
    rho = rho2_expr(bt, p_b)
    if n_i > 1 and b_n > 0:
        bt.pep.add_le(a_b * sqnorm(bt.x0) + b_b * rho - one)
    else:
        # rho^2 does not enter the bound (kappa = 1, full participation): the trajectory depends on sum_i p_i
        # grad g_i only, so the worst case does not depend on rho^2; bound it to keep the SDP bounded
        bt.pep.add_le(a_b * sqnorm(bt.x0) - one)
        if n_i > 1:
            bt.pep.add_le(rho - one)
    bt.pep.maximize(bt.objective)
    sol = bt.pep.solve(tol=tol, raw=True)
    D0 = bt.pep.evaluate(sqnorm(bt.x0), sol)
    r2 = bt.pep.evaluate(rho, sol) if n_i > 1 else 0.0
    params = {"version": version, "theorem": 1 if K_i is None else 2, "n": n_i, "kappa": kappa_i, "T_N": T_N_i,
              "lr": lr_f, "L": L_f, "K": K_i, "p": p_arr.tolist()}
    inst = None
    if return_instance:
        inst = extract_instance(bt, sol, unit=1.0, L=L_f, p=p_arr, params=params)
    cert = None
    if certificate:
        a_q, b_q = theorem_coefficients_exact(version=version, kappa=kappa_i, T_N=T_N_i, lr=Fraction(lr_f),
                                              L=Fraction(L_f))
        cert = certify_pep(ratio_template(version=version, kappa=kappa_i, T_N=T_N_i, lr=Fraction(lr_f), L=Fraction(L_f),
                                          n=n_i, p=exact_weights(p, p_arr)),
                           direction=(a_q, b_q), value=sol.value, meta={"problem": "theorem_ratio", "params": params})
    return RatioResult(ratio=sol.value, dual_ratio=sol.dual_value, gap=sol.gap, status=sol.status, a=a_n, b=b_n,
                       D0=D0, rho2=r2, init_share=a_n * D0, dim=sol.dim, n_constraints=sol.n_constraints,
                       seconds=sol.seconds, conditions_met=bool(ok), params=params, instance=inst,
                       extra={"r_prim": sol.r_prim, "r_dual": sol.r_dual, "branches": bt.leaves}, certificate=cert)



def random_quadratic_instance(rng: np.random.Generator, *, n: int, d: int, L: float,
                              p: np.ndarray) -> dict[str, Any]:
    """Convex quadratic clients ``g_i(x) = 1/2 (x - c_i)' H_i (x - c_i)`` with ``0 <= H_i <= L`` (one client
    attains ``L``), random centres and start; returns gradients and the exact ``theta*``, ``D0``, ``rho^2``."""
    Hs = []
    for i in range(n):
        Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        lam = rng.uniform(0.0, L, size=d) * rng.choice([0.0, 1.0], size=d, p=[0.2, 0.8])
        if i == 0:
            lam[0] = L
        Hs.append((Q * lam) @ Q.T)
    H = np.array(Hs)
    c = rng.normal(size=(n, d)) * 10.0 ** rng.uniform(-2, 1)
    Hbar = np.einsum("i,ijk->jk", p, H)
    theta = np.linalg.lstsq(Hbar, np.einsum("i,ijk,ik->j", p, H, c), rcond=None)[0]
    x0 = theta + rng.normal(size=d) * 10.0 ** rng.uniform(-1, 1)
    gstar = np.einsum("ijk,ik->ij", H, theta[None, :] - c)
    return {"H": H, "c": c, "theta": theta, "x0": x0, "D0": float((x0 - theta) @ (x0 - theta)),
            "rho2": float(p @ np.sum(gstar**2, axis=1))}


@refuses_old_names(None, also=_BETA)
def sampled_ratio(*, version: Literal["002", "000"], kappa: int, T_N: int, lr: float, L: float = 1.0,
                  n: int = 2, p: Any = None, K: int | None = None, count: int = 20,
                  rng: np.random.Generator | None = None) -> float:
    r"""Largest ``(G(theta_tilde) - G*) / (RHS - mu tau_alpha)`` over ``count`` random convex quadratic
    instances (the *sampled* tightness, next to the exact worst case of :func:`theorem_ratio`); with
    ``K`` the expectation over the draws is exact (all draw sequences enumerated).  ``count`` and ``n`` integers
    ``>= 1``, ``p`` a probability vector of length ``n``, ``rng`` a ``numpy.random.Generator`` (default: seeded with
    0), refused by name otherwise."""
    count, n = check_integer(count, "count", low=1), check_integer(n, "n", low=1)
    rng = np.random.default_rng(0) if rng is None else check_rng(rng)
    p_arr = np.full(n, 1.0 / n) if p is None else check_probability_vector(p)
    if p_arr.size != n:
        raise FairtheoryValueError(f"p must hold one weight per client (n = {n}), got {p_arr.size}")
    a, b = theorem_coefficients(version=version, kappa=kappa, T_N=T_N, lr=lr, L=L, K=K)
    best = 0.0
    for _ in range(count):
        inst = random_quadratic_instance(rng, n=n, d=3, L=L, p=p_arr)
        H, c = inst["H"], inst["c"]

        def G(x: np.ndarray, H: np.ndarray = H, c: np.ndarray = c) -> float:
            return float(sum(p_arr[i] * 0.5 * (x - c[i]) @ H[i] @ (x - c[i]) for i in range(n)))

        def grad(i: int, x: np.ndarray, H: np.ndarray = H, c: np.ndarray = c) -> np.ndarray:
            return H[i] @ (x - c[i])

        runs = simulate_local_gd(grad, p=p_arr, x0=inst["x0"], lr=lr, kappa=kappa, T_N=T_N, K=K)
        gap = sum(q * G(out[THEOREM_OUTPUT[version]]) for q, out in runs) - G(inst["theta"])
        best = max(best, gap / (a * inst["D0"] + b * inst["rho2"]))
    return best


@refuses_old_names(None, also=_BETA)
@functools.lru_cache(maxsize=256)
def theorem_ratio_cached(*, version: Literal["002", "000"] = "002", kappa: int, T_N: int, lr: float,
                         K: int | None = None) -> RatioResult:
    """:func:`theorem_ratio` (``L = 1``, two uniform clients) remembered per argument set: the SDP is
    deterministic, so claims and figures that need the same grid point solve it once per process.
    Treat the returned result as read-only."""
    return theorem_ratio(version=version, kappa=kappa, T_N=T_N, lr=lr, K=K)
