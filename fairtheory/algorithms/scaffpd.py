r"""Scaff-PD (Yu, Karimireddy, Ma, Jordan 2023) and Scaff-PD-IA (001 Sec. 5, Alg. 1-2, reconstructed).

Solves problem (8) of 001 (eqs. 6-8, reconstructed), ``min_w max_{lam in Lambda_phi(A, B)} lam . f(w)``
with the integrated set ``Lambda_phi = {(a - phi b)/(1 - phi) : a in A, b in B}``, the set of the
aggregator :func:`fairtheory.aggregators.integrated` ``(A, B, phi)``.  A set-support aggregator over a
capped simplex ``A`` (:func:`~fairtheory.aggregators.afl`, ``cvar``, ``qalpha``, or a raw
:class:`~fairtheory.sets.CappedSimplex`) means ``phi = 0``: plain Scaff-PD for the DRO problem
``min_w max_{lam in A} lam . f(w)``.  One implementation, the integrated set being the general case;
the default is the simplex (AFL's objective).

Round ``r`` (accelerated primal-dual, APD, with Scaffold-corrected local steps):

1. *Extrapolated losses.*  ``s_r = f(w_r) + theta_r (f(w_r) - f(w_{r-1}))`` (``f(w_{-1}) = f(w_0)``).
2. *Dual step* on the pair ``(a, b)`` (001 Alg. 1, practical form):

   .. math:: \max_{a \in A,\, b \in B}\ \lambda \cdot s_r - \tfrac{1}{2\sigma_r}\big(\|a - a_r\|^2 + \|b - b_r\|^2\big),
             \qquad \lambda = \frac{a - \phi b}{1 - \phi}.

   The objective is ``[a . s/(1-phi) - ||a - a_r||^2/(2 sigma)] + [-phi b . s/(1-phi) - ||b - b_r||^2/(2 sigma)]``,
   a sum of a function of ``a`` and one of ``b`` over the product ``A x B``, so it separates.
   Completing the square, ``a . u - ||a - a_r||^2/(2 sigma) = -||a - (a_r + sigma u)||^2/(2 sigma) + const``:

   .. math:: a_{r+1} = \mathrm{Proj}_A\Big(a_r + \frac{\sigma_r}{1-\phi} s_r\Big), \qquad
             b_{r+1} = \mathrm{Proj}_B\Big(b_r - \frac{\sigma_r \phi}{1-\phi} s_r\Big),

   two Euclidean projections onto capped simplices (:meth:`CappedSimplex.project`); ``a`` ascends
   the losses, ``b`` *descends* them (it tracks the minimiser over ``B``).  The new weights are
   ``lam_{r+1} = (a_{r+1} - phi b_{r+1})/(1 - phi)`` (they sum to one, entries may be negative).
3. *Control variates.*  ``c_i = g_i(w_r)`` (client gradients at the server model) and
   ``c = sum_i lam_{r+1,i} c_i``, the gradient of ``lam_{r+1} . f`` (001 eq. 9).
4. *Local steps*, all clients at once: ``y_{i,0} = w_r``,
   ``y_{i,k+1} = y_{i,k} - lr (g_i(y_{i,k}) - c_i + c)``, ``k < kappa`` (001 Alg. 2, whose ``J``
   is ``kappa`` here).
5. *Server*: ``w_{r+1} = w_r + server_lr rho_r sum_i lam_{r+1,i} (y_{i,kappa} - w_r)`` - the
   ``lam``-weighted (possibly negatively weighted) average displacement.  The effective primal step
   is ``tau_r = kappa lr server_lr rho_r``; with ``kappa = 1`` and exact gradients step 5 is exactly
   ``w_{r+1} = w_r - tau_r grad_w (lam_{r+1} . f)(w_r)``, the APD primal step.

Step sizes (:func:`make`'s ``lr``, ``server_lr`` and ``dual_lr`` are 001 Alg. 2's ``eta_l``, ``eta_g`` and Alg. 1's
``sigma_0``, :mod:`fairtheory.algorithms.names`).  ``mu_accel = 0`` (default): constant ``tau_r = kappa lr server_lr``,
``sigma_r = sigma``, ``theta_r = theta`` (default 1, the PDHG extrapolation).  ``mu_accel > 0`` (a lower bound on the
strong convexity of ``lam . f`` over the set, ``(mu - phi L)/(1 - phi)`` by 001 Lemma 8): the
Chambolle-Pock/APD acceleration schedule for a strongly convex primal,
``omega_r = 1/sqrt(1 + 2 mu_accel tau_r)``, ``rho_{r+1} = omega_r rho_r`` (so
``tau_{r+1} = omega_r tau_r``), ``sigma_{r+1} = sigma_r/omega_r``, ``theta_{r+1} = omega_r
= sigma_r/sigma_{r+1}`` - ``tau_r ~ 1/(mu r)``, ``sigma_r ~ r``, the schedule behind the
``O(1/R^2)`` deterministic and ``O(1/R)`` stochastic rates of ``||w_R - w*||^2`` (001 Thm. 3).

Fixed points: with exact oracles a fixed point has ``a`` maximising ``f . a`` over ``A``, ``b``
minimising it over ``B`` (projection fixed points) and ``grad (lam . f)(w) = 0`` (whenever
``sum_i lam_i sum_k (I - lr H_i)^k`` is nonsingular), i.e. it is the saddle point of (8).

Stochastic mode: ``g_i`` and ``f_i`` are the exact values plus independent ``N(0, grad_noise^2 I)``
and ``N(0, loss_noise^2)`` noise.  Two communications per round (losses and control variates up,
then local models up).  numpy or torch float64 (type of ``w0``), draws from the explicit numpy
generator, no Python loop over clients.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError, check_in_range, check_integer
from fairtheory.algorithms.afl import dual_set
from fairtheory.algorithms.base import (
    Algorithm,
    check_problem,
    check_rng,
    check_state,
    gaussian,
    initial_model,
    initial_weights,
    local_steps,
    project_to,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import namespace
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = ["State", "make", "as_integrated", "dual_step"]


@dataclass(frozen=True)
class State:
    """Scaff-PD(-IA) state.

    ``w``: server model ``w_r``; ``a``, ``b``: dual pair (``b`` is unused when ``phi = 0``);
    ``lam``: weights ``(a - phi b)/(1 - phi)``; ``f_prev``: observed losses at the previous model
    (``None`` before the first round); ``rho``, ``sigma``, ``theta``: step-size schedule for the
    next round (``rho`` multiplies the primal step); ``rounds``, ``comms``: counters."""

    w: Any
    a: Any
    b: Any
    lam: Any
    f_prev: Any = None
    rho: float = 1.0
    sigma: float | None = None
    theta: float | None = None
    rounds: int = 0
    comms: int = 0


def as_integrated(S: Any, n: int) -> IntegratedSet:
    """``S`` as an :class:`IntegratedSet` (a :class:`CappedSimplex` ``A`` means ``phi = 0``, ``B = A``)."""
    if isinstance(S, CappedSimplex):
        S = IntegratedSet(S, S, 0.0)
    if not isinstance(S, IntegratedSet):
        raise FairtheoryTypeError(f"the dual set must be an IntegratedSet or a CappedSimplex, got {type(S).__name__}")
    if S.n != n:
        raise FairtheoryValueError(f"the dual set must have n = {n} (one weight per client), got n = {S.n}")
    return S


def dual_step(iset: IntegratedSet, a: Any, b: Any, s: Any, sigma: float) -> tuple[Any, Any]:
    r"""``argmax_{a in A, b in B} lam . s - (||a - a_r||^2 + ||b - b_r||^2)/(2 sigma)``.

    ``lam = (a - phi b)/(1 - phi)``; the maximiser is ``a = Proj_A(a_r + sigma s/(1 - phi))``,
    ``b = Proj_B(b_r - sigma phi s/(1 - phi))`` (module docstring, step 2).  numpy or torch inputs."""
    sigma = check_in_range(sigma, "sigma", low=0.0, low_inclusive=False)
    phi = iset.phi
    a_new = project_to(iset.A, a + (sigma / (1.0 - phi)) * s)
    b_new = project_to(iset.B, b - (sigma * phi / (1.0 - phi)) * s) if phi > 0 else b
    return a_new, b_new


@refuses_old_names("scaffpd")
def make(problem: FederatedProblem, *, kappa: int, lr: float, dual_lr: float, server_lr: float = 1.0,
         aggregator: Any = None, theta: float = 1.0, mu_accel: float = 0.0, grad_noise: float = 0.0,
         loss_noise: float = 0.0) -> Algorithm:
    """Scaff-PD(-IA) on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`; the paper's symbols are refused as keywords
    (a ``FairtheoryTypeError`` naming ``lr`` / ``server_lr`` / ``dual_lr``).

    Parameters
    ----------
    kappa : int >= 1
        Local steps per round (001 Alg. 2's ``J``).
    lr : float > 0
        Local step size (001 Alg. 2's ``eta_l``).
    server_lr : float > 0
        Global step size (001 Alg. 2's ``eta_g``); the primal step is
        ``tau_r = kappa lr server_lr rho_r``.
    dual_lr : float > 0
        Initial dual step (001 Alg. 1's ``sigma_0``), constant when ``mu_accel = 0``.
    aggregator : SetSupport, IntegratedSet, CappedSimplex or None
        The objective and its set ``Lambda_phi(A, B)`` (001 eqs. 6-8):
        :func:`fairtheory.aggregators.integrated` ``(A, B, phi)`` (or a raw :class:`IntegratedSet`) for
        Scaff-PD-IA; a capped-simplex set (``afl(n)``, ``cvar``, ``qalpha`` or a raw :class:`CappedSimplex`)
        for Scaff-PD; default the simplex.  ``init`` and ``step`` both
        use this one set.
    theta : float >= 0
        Extrapolation weight ``theta`` (001 Alg. 1) when ``mu_accel = 0`` (with ``mu_accel > 0`` the
        schedule sets it).
    mu_accel : float >= 0
        Strong-convexity modulus driving the acceleration schedule (001 Lemma 8's ``mu``; 0: constant
        steps).
    grad_noise, loss_noise : float >= 0
        Standard deviations of the additive oracle noise (0: deterministic mode; this implementation's
        model of stochastic oracles).

    Returns
    -------
    Algorithm with ``init(w0=None, a0=None, b0=None) -> State`` (``a0 in A``, ``b0 in B``; defaults:
    projections of the uniform vector) and ``step(state, rng) -> State`` (``rng`` is needed only
    with noise).
    """
    problem = check_problem(problem)
    kappa = check_integer(kappa, "kappa", low=1)
    lr = check_in_range(lr, "lr", low=0.0, low_inclusive=False)
    server_lr = check_in_range(server_lr, "server_lr", low=0.0, low_inclusive=False)
    sigma0 = check_in_range(dual_lr, "dual_lr", low=0.0, low_inclusive=False)
    theta = check_in_range(theta, "theta", low=0.0)
    mu_accel = check_in_range(mu_accel, "mu_accel", low=0.0)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    loss_noise = check_in_range(loss_noise, "loss_noise", low=0.0)
    agg, S = dual_set(problem, aggregator, algorithm="scaffpd", integrated=True)
    I = as_integrated(S, problem.n)
    n, d = problem.n, problem.d
    phi = I.phi
    accel = mu_accel > 0.0
    random = grad_noise > 0 or loss_noise > 0

    def init(w0: Any = None, a0: Any = None, b0: Any = None) -> State:
        w = initial_model(problem, w0)
        a = initial_weights(I.A, a0, w, "a0")
        b = initial_weights(I.B, b0, w, "b0")
        return State(w=w, a=a, b=b, lam=(a - phi * b) / (1.0 - phi))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "scaffpd")
        if random:
            rng = check_rng(rng)
        w = state.w
        xp = namespace(w)
        sigma_r = state.sigma if (accel and state.sigma is not None) else sigma0
        theta_r = state.theta if (accel and state.theta is not None) else theta
        rho_r = state.rho if accel else 1.0

        # 1. losses and control variates at w_r (one communication)
        f_r = problem.losses(w) + gaussian(rng, loss_noise, (n,), w)  # type: ignore[arg-type]
        C = problem.grads(w) + gaussian(rng, grad_noise, (n, d), w)  # type: ignore[arg-type]
        f_prev = f_r if state.f_prev is None else state.f_prev
        s = f_r + theta_r * (f_r - f_prev)
        # 2. dual step on (a, b)
        a_new, b_new = dual_step(I, state.a, state.b, s, sigma_r)
        lam = (a_new - phi * b_new) / (1.0 - phi)
        # 3-4. Scaffold-corrected local steps with c = sum lam_i c_i
        corr = (lam @ C)[None, :] - C
        Y0 = xp.broadcast_to(w[None, :], (n, d))
        if grad_noise == 0.0:
            Y = local_steps(problem, Y0, lr=lr, kappa=kappa, correction=corr).W
        else:  # fresh noise at every local step: outside what base.local_steps offers
            Y = Y0
            for _ in range(kappa):
                Y = Y - lr * (problem.grads_each(Y) + gaussian(rng, grad_noise, (n, d), w) + corr)  # type: ignore[arg-type]
        # 5. server: lam-weighted displacement
        w_new = w + (server_lr * rho_r) * (lam @ (Y - w[None, :]))

        if accel:
            tau_r = kappa * lr * server_lr * rho_r
            omega = 1.0 / math.sqrt(1.0 + 2.0 * mu_accel * tau_r)
            rho_next, sigma_next, theta_next = rho_r * omega, sigma_r / omega, omega
        else:  # constant steps: nothing to carry
            rho_next, sigma_next, theta_next = 1.0, None, None
        return State(w=w_new, a=a_new, b=b_new, lam=lam, f_prev=f_r, rho=rho_next, sigma=sigma_next,
                     theta=theta_next, rounds=state.rounds + 1, comms=state.comms + 2)

    hyper = {"kappa": kappa, "lr": lr, "server_lr": server_lr, "dual_lr": sigma0, "aggregator": agg, "theta": theta,
             "mu_accel": mu_accel, "grad_noise": grad_noise, "loss_noise": loss_noise}
    return Algorithm("scaffpd", problem, hyper, init, step, ("lr", "server_lr", "dual_lr"))
