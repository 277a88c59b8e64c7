r"""Scaff-PD (Yu, Karimireddy, Ma, Jordan 2023) and Scaff-PD-IA (001 Sec. 5, Alg. 1-2, reconstructed).

Solves problem (8) of 001, ``min_w max_{lam in Lambda_phi(A, B)} lam . f(w)`` with the integrated
set ``Lambda_phi = {(a - phi b)/(1 - phi) : a in A, b in B}`` (``relative.md`` Sec. 4, 6).
``phi = 0`` (or passing a :class:`~fairtheory.sets.CappedSimplex` ``A``) is plain Scaff-PD for the
DRO problem ``min_w max_{lam in A} lam . f(w)``: one implementation, the integrated set being the
general case.

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
   ``y_{i,k+1} = y_{i,k} - eta_l (g_i(y_{i,k}) - c_i + c)``, ``k < J`` (001 Alg. 2).
5. *Server*: ``w_{r+1} = w_r + eta_g rho_r sum_i lam_{r+1,i} (y_{i,J} - w_r)`` - the
   ``lam``-weighted (possibly negatively weighted) average displacement.  The effective primal step
   is ``tau_r = J eta_l eta_g rho_r``; with ``J = 1`` and exact gradients step 5 is exactly
   ``w_{r+1} = w_r - tau_r grad_w (lam_{r+1} . f)(w_r)``, the APD primal step.

Step sizes.  ``mu_accel = 0`` (default): constant ``tau_r = J eta_l eta_g``, ``sigma_r = sigma``,
``theta_r = theta`` (default 1, the PDHG extrapolation).  ``mu_accel > 0`` (a lower bound on the
strong convexity of ``lam . f`` over the set, ``(mu - phi L)/(1 - phi)`` by 001 Lemma 8): the
Chambolle-Pock/APD acceleration schedule for a strongly convex primal,
``omega_r = 1/sqrt(1 + 2 mu_accel tau_r)``, ``rho_{r+1} = omega_r rho_r`` (so
``tau_{r+1} = omega_r tau_r``), ``sigma_{r+1} = sigma_r/omega_r``, ``theta_{r+1} = omega_r
= sigma_r/sigma_{r+1}`` - ``tau_r ~ 1/(mu r)``, ``sigma_r ~ r``, the schedule behind the
``O(1/R^2)`` deterministic and ``O(1/R)`` stochastic rates of ``||w_R - w*||^2`` (001 Thm. 3).

Fixed points: with exact oracles a fixed point has ``a`` maximising ``f . a`` over ``A``, ``b``
minimising it over ``B`` (projection fixed points) and ``grad (lam . f)(w) = 0`` (whenever
``sum_i lam_i sum_k (I - eta_l H_i)^k`` is nonsingular), i.e. it is the saddle point of (8).

Stochastic mode: ``g_i`` and ``f_i`` are the exact values plus independent ``N(0, grad_noise^2 I)``
and ``N(0, loss_noise^2)`` noise.  Two communications per round (losses and control variates up,
then local models up).  numpy or torch float64 (type of ``w0``), draws from the explicit numpy
generator, no Python loop over clients.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError, check_in_range, check_integer
from fairtheory.algorithms.base import History, check_problem, check_rng, gaussian, initial_model, initial_weights, project_to
from fairtheory.algorithms.base import run_steps as _run
from fairtheory.backend import namespace
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = ["State", "init", "step", "run", "as_integrated", "dual_step"]


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


def as_integrated(iset: Any, n: int) -> IntegratedSet:
    """``iset`` as an :class:`IntegratedSet` (a :class:`CappedSimplex` ``A`` means ``phi = 0``, ``B = A``)."""
    if isinstance(iset, CappedSimplex):
        iset = IntegratedSet(iset, iset, 0.0)
    if not isinstance(iset, IntegratedSet):
        raise FairtheoryTypeError(f"iset must be an IntegratedSet or a CappedSimplex, got {type(iset).__name__}")
    if iset.n != n:
        raise FairtheoryValueError(f"iset must have n = {n} (one weight per client), got n = {iset.n}")
    return iset


def dual_step(iset: IntegratedSet, a: Any, b: Any, s: Any, sigma: float) -> tuple[Any, Any]:
    r"""``argmax_{a in A, b in B} lam . s - (||a - a_r||^2 + ||b - b_r||^2)/(2 sigma)``.

    ``lam = (a - phi b)/(1 - phi)``; the maximiser is ``a = Proj_A(a_r + sigma s/(1 - phi))``,
    ``b = Proj_B(b_r - sigma phi s/(1 - phi))`` (module docstring, step 2).  numpy or torch inputs."""
    sigma = check_in_range(sigma, "sigma", low=0.0, low_inclusive=False)
    phi = iset.phi
    a_new = project_to(iset.A, a + (sigma / (1.0 - phi)) * s)
    b_new = project_to(iset.B, b - (sigma * phi / (1.0 - phi)) * s) if phi > 0 else b
    return a_new, b_new


def init(problem: FederatedProblem, iset: Any, w0: Any = None, a0: Any = None, b0: Any = None) -> State:
    """Start at ``w0`` and ``a0 in A``, ``b0 in B`` (defaults: projections of the uniform vector)."""
    problem = check_problem(problem)
    I = as_integrated(iset, problem.n)
    w = initial_model(problem, w0)
    a = initial_weights(I.A, a0, w, "a0")
    b = initial_weights(I.B, b0, w, "b0")
    lam = (a - I.phi * b) / (1.0 - I.phi)
    return State(w=w, a=a, b=b, lam=lam)


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *, iset: Any, J: int,
         eta_l: float, eta_g: float, sigma: float, theta: float = 1.0, mu_accel: float = 0.0,
         grad_noise: float = 0.0, loss_noise: float = 0.0) -> State:
    """One Scaff-PD(-IA) round; see the module docstring.

    Parameters
    ----------
    iset : IntegratedSet or CappedSimplex
        ``Lambda_phi(A, B)``; a capped simplex ``A`` gives Scaff-PD over ``A``.
    J : int >= 1
        Local steps per round.
    eta_l, eta_g : float > 0
        Local and global step sizes (primal step ``tau_r = J eta_l eta_g rho_r``).
    sigma : float > 0
        Initial dual step ``sigma_0`` (constant when ``mu_accel = 0``).
    theta : float >= 0
        Extrapolation weight when ``mu_accel = 0`` (with ``mu_accel > 0`` the schedule sets it).
    mu_accel : float >= 0
        Strong-convexity modulus driving the acceleration schedule (0: constant steps).
    grad_noise, loss_noise : float >= 0
        Standard deviations of the additive oracle noise (0: deterministic mode).
    """
    problem = check_problem(problem)
    rng = check_rng(rng)
    I = as_integrated(iset, problem.n)
    J = check_integer(J, "J", low=1)
    eta_l = check_in_range(eta_l, "eta_l", low=0.0, low_inclusive=False)
    eta_g = check_in_range(eta_g, "eta_g", low=0.0, low_inclusive=False)
    sigma0 = check_in_range(sigma, "sigma", low=0.0, low_inclusive=False)
    theta = check_in_range(theta, "theta", low=0.0)
    mu_accel = check_in_range(mu_accel, "mu_accel", low=0.0)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    loss_noise = check_in_range(loss_noise, "loss_noise", low=0.0)
    n, d = problem.n, problem.d
    w = state.w
    xp = namespace(w)
    phi = I.phi

    accel = mu_accel > 0.0
    sigma_r = state.sigma if (accel and state.sigma is not None) else sigma0
    theta_r = state.theta if (accel and state.theta is not None) else theta
    rho_r = state.rho if accel else 1.0

    # 1. losses and control variates at w_r (one communication)
    f_r = problem.losses(w) + gaussian(rng, loss_noise, (n,), w)
    C = problem.grads(w) + gaussian(rng, grad_noise, (n, d), w)
    f_prev = f_r if state.f_prev is None else state.f_prev
    s = f_r + theta_r * (f_r - f_prev)
    # 2. dual step on (a, b)
    a_new, b_new = dual_step(I, state.a, state.b, s, sigma_r)
    lam = (a_new - phi * b_new) / (1.0 - phi)
    # 3-4. Scaffold-corrected local steps with c = sum lam_i c_i
    c = lam @ C
    corr = c[None, :] - C
    Y = xp.broadcast_to(w[None, :], (n, d))
    for _ in range(J):
        Y = Y - eta_l * (problem.grads_each(Y) + gaussian(rng, grad_noise, (n, d), w) + corr)
    # 5. server: lam-weighted displacement
    w_new = w + (eta_g * rho_r) * (lam @ (Y - w[None, :]))

    if accel:
        tau_r = J * eta_l * eta_g * rho_r
        omega = 1.0 / math.sqrt(1.0 + 2.0 * mu_accel * tau_r)
        rho_next, sigma_next, theta_next = rho_r * omega, sigma_r / omega, omega
    else:  # constant steps: nothing to carry
        rho_next, sigma_next, theta_next = 1.0, None, None
    return replace(state, w=w_new, a=a_new, b=b_new, lam=lam, f_prev=f_r, rho=rho_next,
                   sigma=sigma_next, theta=theta_next, rounds=state.rounds + 1, comms=state.comms + 2)


def run(problem: FederatedProblem, rounds: int, *, iset: Any, rng: np.random.Generator, w0: Any = None,
        a0: Any = None, b0: Any = None, record_every: int = 1, **hyper: Any) -> tuple[State, History]:
    """``init`` then ``rounds`` Scaff-PD(-IA) rounds with a recorded :class:`History`."""
    state = init(problem, iset, w0, a0, b0)
    return _run(state, step, rounds, problem=problem, rng=rng, record_every=record_every,
                iset=iset, **hyper)
