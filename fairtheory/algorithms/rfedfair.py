r"""rFedFair (002 Algorithm 1; 000 Algorithm 1): local gradient descent on the smoothed RC-FL objective.

Every client ``i`` holds ``theta_i = (w_i, eta_i)`` and descends its own smoothed objective
(002 eq. 5)

.. math:: f^{\mu,i}(w, \eta) = \tfrac{1}{\alpha_i}\,\mathrm{softplus}_\mu(f_i(w) - \eta) + \eta,

.. math::
    \nabla_w f^{\mu,i} = s_i \nabla f_i(w), \qquad
    \partial_\eta f^{\mu,i} = 1 - s_i, \qquad
    s_i = \tfrac{1}{\alpha_i}\,\sigma\!\big((f_i(w) - \eta)/\mu\big).

Step ``t`` (``t = 0, 1, ...``): every client takes ``theta_i <- theta_i - beta grad f^{mu,i}(theta_i)``.
When ``kappa`` divides ``t`` (a *communication step*; the seeds' "t does not divide kappa" means
"kappa does not divide t") the stepped models are averaged and broadcast to all clients:

* full participation: ``theta_{t+1} = sum_i p_i (theta_t^i - beta grad f^{mu,i}(theta_t^i))``;
* partial participation: ``K`` clients ``Z`` drawn i.i.d. *with replacement* with probabilities
  ``p``, ``theta_{t+1} = (1/K) sum_{j in Z} (...)`` (a client drawn twice counts twice).

All clients step at every step - the virtual sequence of 002 App. D eq. (D.1), which is 000's
literal algorithm and has the same law as 002's literal one (only the draws ``Z`` made at the
previous communication decide whose models are used, and the draws are independent of the
iterates).  002 requires ``T - 2`` divisible by ``kappa`` and uses ``T_N = (T-2)/kappa`` rounds, so
communication happens at ``t = 0, kappa, ..., T_N kappa``; the outputs are

* 002: ``w_tilde = 1/(T_N+1) sum_{r=0}^{T_N} w_{r kappa + 1}`` (server models right after averaging);
* 000: ``w_tilde = 1/T sum_{t=0}^{T-1} sum_i p_i w_t^i``.

Neither output uses ``theta_T`` (the result of the last step ``t = T-1``); :func:`run_rfedfair`
performs that step anyway so the state matches Algorithm 1, and reads the outputs before it.

The state carries the running sums both outputs need, so ``output(state)`` after any prefix of a
run is the output of the algorithm with that shorter horizon (the iterates do not depend on ``T``).

Written once against the array API: numpy or torch (``float64``) iterates, chosen by the type of
``w0``; client draws come from the explicit ``numpy.random.Generator`` so both backends make the
same draws.  No Python loop over clients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy.special import expit

from fairtheory._validation import (
    FairtheoryValueError,
    check_alpha,
    check_in_range,
    check_integer,
    check_positive,
)
from fairtheory.algorithms.base import History, sample_clients
from fairtheory.algorithms.base import run_steps as _run
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.problems.base import FederatedProblem

__all__ = [
    "State",
    "RunResult",
    "init",
    "step",
    "stepper",
    "local_gradients",
    "output",
    "is_communication_step",
    "rounds_for",
    "run_rfedfair",
]

Output = Literal["002", "000"]


@dataclass(frozen=True)
class State:
    """rFedFair state after ``t`` steps.

    Attributes
    ----------
    w, eta : server model ``(d,)`` and server dual variable (0-d array): the last broadcast
        (the initial point before the first communication).
    W, E : client models ``(n, d)`` and client dual variables ``(n,)`` (``theta_t^i``).
    t : number of steps taken (the next step is step ``t``).
    comms : number of communication (averaging) steps taken.
    srv_w_sum, srv_eta_sum : sum of the server models right after each averaging
        (``sum_r w_{r kappa + 1}``), for the 002 output.
    avg_w_sum, avg_eta_sum : ``sum_{s=0}^{t} sum_i p_i theta_s^i`` (includes the current iterate),
        for the 000 output.
    """

    w: Any
    eta: Any
    W: Any
    E: Any
    t: int
    comms: int
    srv_w_sum: Any
    srv_eta_sum: Any
    avg_w_sum: Any
    avg_eta_sum: Any


@dataclass
class RunResult:
    """What :func:`run_rfedfair` returns."""

    w: Any                 #: the requested output ``w_tilde`` (numpy or torch, like ``w0``)
    eta: Any               #: the matching average of the dual variables (0-d)
    state: State           #: final state after all ``T`` steps
    history: History       #: server models recorded every ``record_every`` steps
    T: int
    T_N: int | None        #: ``(T-2)/kappa`` (``None`` for the 000 output when not integral)
    output: str
    #: ``{T': {"002": (w, eta) or None, "000": (w, eta)}}`` outputs at the requested shorter horizons
    checkpoints: dict[int, dict[str, Any]] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------ helpers
def _check_common(problem: FederatedProblem, beta: Any, mu: Any, alpha: Any, kappa: Any,
                  K: Any) -> tuple[float, float, np.ndarray, int, int | None]:
    if not isinstance(problem, FederatedProblem):
        raise FairtheoryValueError(f"problem must be a FederatedProblem, got {type(problem).__name__}")
    beta_f = check_positive(beta, "beta")
    mu_f = check_positive(mu, "mu")
    alpha_arr = check_alpha(alpha, problem.p, "alpha")
    kappa_i = check_integer(kappa, "kappa", low=1)
    K_i = None if K is None else check_integer(K, "K", low=1)
    return beta_f, mu_f, alpha_arr, kappa_i, K_i


def is_communication_step(t: int, kappa: int) -> bool:
    """Whether step ``t`` averages (``kappa`` divides ``t``; 002 Algorithm 1)."""
    return int(t) % int(kappa) == 0


def rounds_for(T: Any, kappa: Any) -> int:
    """``T_N = (T - 2)/kappa`` (002 Sec. 4); raises unless ``T >= 2`` and ``kappa | T - 2``."""
    T_i = check_integer(T, "T", low=2)
    kappa_i = check_integer(kappa, "kappa", low=1)
    if (T_i - 2) % kappa_i:
        raise FairtheoryValueError(
            f"T - 2 must be divisible by kappa (002 Sec. 4), got T={T_i}, kappa={kappa_i}"
        )
    return (T_i - 2) // kappa_i


def local_gradients(problem: FederatedProblem, W: Any, E: Any, alpha: Any, mu: float) -> tuple[Any, Any]:
    r"""All clients' gradients of ``f^{mu,i}`` at their own ``(W_i, E_i)`` (002 eq. 5).

    Returns ``(G_w, g_eta)`` with ``G_w[i] = s_i grad f_i(W_i)`` (shape ``(n, d)``) and
    ``g_eta[i] = 1 - s_i``, ``s_i = sigma((f_i(W_i) - E_i)/mu)/alpha_i``.  ``alpha`` is a validated
    numpy vector; ``W``, ``E`` numpy or torch.
    """
    f, G = problem.loss_grad_each(W)
    s = _sigmoid((f - E) / mu) / like(alpha, f)
    return s[:, None] * G, 1.0 - s


def _sigmoid(x: Any) -> Any:
    """:func:`fairtheory.objectives.qalpha.sigmoid` without its input validation, as one library
    kernel (``scipy.special.expit`` / ``torch.sigmoid``; both stable for any ``x``)."""
    if isinstance(x, np.ndarray):
        return expit(x)
    import torch

    return torch.sigmoid(x)


# ------------------------------------------------------------------------------------------ API
def init(problem: FederatedProblem, w0: Any = None, eta0: float = 0.0) -> State:
    """All clients start at ``(w0, eta0)`` (002 Algorithm 1 input).

    ``w0`` (default ``problem.initial_point()``) decides the backend: a torch tensor gives torch
    iterates of its dtype and device.
    """
    if not isinstance(problem, FederatedProblem):
        raise FairtheoryValueError(f"problem must be a FederatedProblem, got {type(problem).__name__}")
    if w0 is None:
        w0 = problem.initial_point()
    if isinstance(w0, (list, tuple)):
        w0 = np.asarray(w0, dtype=np.float64)
    xp = namespace(w0)
    if tuple(w0.shape) != (problem.d,):
        raise FairtheoryValueError(f"w0 must have shape ({problem.d},), got {tuple(w0.shape)}")
    if not bool(xp.all(xp.isfinite(w0))):
        raise FairtheoryValueError("w0 must be finite")
    eta0_f = check_in_range(eta0, "eta0")
    w = xp.asarray(w0, copy=True)
    W = _broadcast_rows(xp, w, problem.n)
    E = like(np.full(problem.n, eta0_f), w)
    eta = like(np.asarray(eta0_f), w)
    zero_w = like(np.zeros(problem.d), w)
    zero = like(np.asarray(0.0), w)
    # sum_{s=0}^{0} sum_i p_i theta_0^i = theta_0 (the p_i sum to one)
    return State(w=w, eta=eta, W=W, E=E, t=0, comms=0, srv_w_sum=zero_w, srv_eta_sum=zero,
                 avg_w_sum=xp.asarray(w, copy=True), avg_eta_sum=xp.asarray(eta, copy=True))


def step(state: State, problem: FederatedProblem, rng: np.random.Generator | None, *, beta: float,
         mu: float, alpha: Any, kappa: int, K: int | None = None) -> State:
    r"""One step ``t = state.t`` of 002 Algorithm 1 (pure; returns a new state).

    Every client takes ``theta_i - beta grad f^{mu,i}(theta_i)``; when ``kappa`` divides ``t`` the
    server averages (weights ``p`` if ``K is None``, else the plain mean over ``K`` draws with
    replacement by ``p`` from ``rng``) and broadcasts.

    Parameters
    ----------
    beta : step size ``> 0``.  mu : smoothing ``> 0``.  alpha : scalar or ``(n,)``, ``alpha_i in [p_i, 1]``.
    kappa : local steps per round ``>= 1``.  K : clients per round (``None``: full participation).
    rng : ``numpy.random.Generator`` (required when ``K`` is given).

    Validates every argument at every call; a loop taking many steps with fixed hyper-parameters
    can validate them once with :func:`stepper`.
    """
    return stepper(problem, beta=beta, mu=mu, alpha=alpha, kappa=kappa, K=K)(state, rng)


def stepper(problem: FederatedProblem, *, beta: float, mu: float, alpha: Any, kappa: int,
            K: int | None = None) -> Callable[[State, np.random.Generator | None], State]:
    """:func:`step` with ``problem`` and the hyper-parameters bound and validated once.

    Returns ``step_fn(state, rng) -> State`` computing exactly what
    ``step(state, problem, rng, beta=beta, mu=mu, alpha=alpha, kappa=kappa, K=K)`` computes, checking
    only ``state`` and ``rng`` per call.
    """
    beta_f, mu_f, alpha_arr, kappa_i, K_i = _check_common(problem, beta, mu, alpha, kappa, K)

    def step_fn(state: State, rng: np.random.Generator | None = None) -> State:
        if K_i is not None and not isinstance(rng, np.random.Generator):
            raise FairtheoryValueError(
                f"rng must be a numpy.random.Generator for partial participation, got {rng!r}")
        if not isinstance(state, State):
            raise FairtheoryValueError(f"state must be an rfedfair.State, got {type(state).__name__}")
        return _step(state, problem, rng, beta=beta_f, mu=mu_f, alpha=alpha_arr, kappa=kappa_i, K=K_i)

    return step_fn


def _step(state: State, problem: FederatedProblem, rng: np.random.Generator | None, *, beta: float,
          mu: float, alpha: np.ndarray, kappa: int, K: int | None) -> State:
    """:func:`step` on validated hyper-parameters (``alpha`` a numpy vector); no checks."""
    beta_f, mu_f, alpha_arr, kappa_i, K_i = beta, mu, alpha, kappa, K
    xp = namespace(state.W)
    # one fused evaluation: theta_i - beta grad f^{mu,i} = (W_i - (beta s_i) grad f_i, E_i - beta (1 - s_i))
    f, G = problem.loss_grad_each(state.W)
    s = _sigmoid((f - state.E) / mu_f) / like(alpha_arr, f)
    W_new = (-beta_f * s)[:, None] * G  # a fresh array: update it in place (W + (-x) == W - x exactly)
    W_new += state.W
    E_new = state.E - beta_f * (1.0 - s)
    w, eta, comms = state.w, state.eta, state.comms
    srv_w_sum, srv_eta_sum = state.srv_w_sum, state.srv_eta_sum
    if is_communication_step(state.t, kappa_i):
        if K_i is None:
            p = like(problem.p, W_new)
            w = p @ W_new
            eta = p @ E_new
        else:
            idx_np = sample_clients(rng, problem.p, K_i)  # type: ignore[arg-type]
            idx = _index_like(idx_np, W_new)
            w = xp.mean(xp.take(W_new, idx, axis=0), axis=0)
            eta = xp.mean(xp.take(E_new, idx, axis=0))
        W_new = _broadcast_rows(xp, w, W_new.shape[0])
        E_new = eta * xp.ones_like(E_new)
        comms += 1
        srv_w_sum = srv_w_sum + w
        srv_eta_sum = srv_eta_sum + eta
    p = like(problem.p, W_new)
    return State(w=w, eta=eta, W=W_new, E=E_new, t=state.t + 1, comms=comms,
                 srv_w_sum=srv_w_sum, srv_eta_sum=srv_eta_sum,
                 avg_w_sum=state.avg_w_sum + p @ W_new, avg_eta_sum=state.avg_eta_sum + p @ E_new)


def _broadcast_rows(xp: Any, w: Any, n: int) -> Any:
    """``n`` copies of the model ``w`` as a read-only stride-0 view (the clients' models right after a
    broadcast; no step writes into ``W``, and a problem may evaluate all clients at one model with a
    single product, see :meth:`fairtheory.problems.logistic.SampleProblem.loss_grad_each`)."""
    return xp.broadcast_to(w[None, :], (n, w.shape[0]))


def _index_like(idx: np.ndarray, ref: Any) -> Any:
    """Integer index array in ``ref``'s library and device."""
    from fairtheory.backend import is_torch

    if is_torch(ref):
        import torch

        return torch.as_tensor(idx, dtype=torch.int64, device=ref.device)
    return np.asarray(idx, dtype=np.int64)


def output(state: State, which: Output = "002") -> tuple[Any, Any]:
    r"""The output ``(w_tilde, eta_tilde)`` of a run whose iterates are ``theta_0, ..., theta_t``.

    ``"002"`` (002 Algorithm 1): mean of the server models right after each averaging so far,
    ``1/(T_N+1) sum_{r=0}^{T_N} theta_{r kappa + 1}`` (needs at least one averaging).
    ``"000"`` (000 Algorithm 1): ``1/T sum_{s=0}^{T-1} sum_i p_i theta_s^i`` with ``T = t + 1``,
    i.e. including the current iterate ``theta_t``.
    """
    if which == "002":
        if state.comms == 0:
            raise FairtheoryValueError("the 002 output needs at least one averaging step (comms >= 1), got 0")
        return state.srv_w_sum / state.comms, state.srv_eta_sum / state.comms
    if which == "000":
        T = state.t + 1
        return state.avg_w_sum / T, state.avg_eta_sum / T
    raise FairtheoryValueError(f"which must be '002' or '000', got {which!r}")


def run_rfedfair(
    problem: FederatedProblem,
    *,
    T: int,
    beta: float,
    mu: float,
    alpha: Any,
    kappa: int,
    K: int | None = None,
    rng: np.random.Generator | None = None,
    w0: Any = None,
    eta0: float = 0.0,
    output_version: Output = "002",
    record_every: int = 1,
    record_losses: bool = False,
    checkpoints: Any = None,
) -> RunResult:
    r"""Run Algorithm 1 for ``T`` steps (``t = 0, ..., T-1``) and return its output.

    ``output_version="002"`` needs ``T - 2`` divisible by ``kappa`` (``T_N = (T-2)/kappa``, 002
    Sec. 4); ``"000"`` accepts any ``T >= 1``.  ``checkpoints`` (optional iterable of horizons
    ``T' <= T``) records both outputs for those shorter horizons in ``result.checkpoints`` as numpy
    ``(w, eta)`` pairs (valid because the iterates do not depend on ``T``; the 002 entry is ``None``
    before the first averaging).  ``record_every``/``record_losses`` go to
    :func:`fairtheory.algorithms.base.run`, which records the server model ``w``.
    """
    if output_version not in ("002", "000"):
        raise FairtheoryValueError(f"output_version must be '002' or '000', got {output_version!r}")
    T_i = check_integer(T, "T", low=1)
    if output_version == "002":
        T_N: int | None = rounds_for(T_i, kappa)
    beta_f, mu_f, alpha_arr, kappa_i, K_i = _check_common(problem, beta, mu, alpha, kappa, K)
    if output_version == "000":
        T_N = (T_i - 2) // int(kappa) if T_i >= 2 and (T_i - 2) % int(kappa) == 0 else None
    if rng is None:
        if K is not None:
            raise FairtheoryValueError("rng must be given for partial participation (K is not None)")
        rng = np.random.default_rng(0)  # unused by full participation
    cps = sorted({check_integer(c, "checkpoints[...]", low=1, high=T_i) for c in (checkpoints or [])})
    state0 = init(problem, w0, eta0)
    captured: dict[int, tuple[Any, Any]] = {}
    chk: dict[int, dict[str, Any]] = {}

    def callback(k: int, s: State) -> None:
        # after k steps the state holds theta_0..theta_k: the horizon-(k+1) outputs
        if k == T_i - 1:
            captured[0] = output(s, output_version)
        if (k + 1) in cps:
            chk[k + 1] = {"000": output(s, "000"), "002": output(s, "002") if s.comms else None}

    if T_i - 1 == 0:
        captured[0] = output(state0, output_version)
    if 1 in cps:
        chk[1] = {"000": output(state0, "000"), "002": None}
    state, hist = _run(state0, _step, T_i, problem=problem, rng=rng, record_every=record_every,
                       record_losses=record_losses, callback=callback, beta=beta_f, mu=mu_f,
                       alpha=alpha_arr, kappa=kappa_i, K=K_i)
    w_out, eta_out = captured[0]
    cp_np = {k: {kk: (None if v is None else (to_numpy(v[0]).copy(), float(to_numpy(v[1]))))
                 for kk, v in d.items()} for k, d in chk.items()}
    return RunResult(w=w_out, eta=eta_out, state=state, history=hist, T=T_i, T_N=T_N,
                     output=output_version, checkpoints=cp_np)
