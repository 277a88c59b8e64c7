r"""rFedFair (002 Algorithm 1; 000 Algorithm 1): local gradient descent on a separable aggregator.

Every client ``i`` holds ``theta_i = (w_i, eta_i)`` and descends its own term of the separable form
``A(f) = min_eta sum_i p_i h_i(f_i, eta)`` of an aggregator ``A`` (:mod:`fairtheory.aggregators`).
The default is the smoothed ``Q_alpha`` loss of 002 eq. 5,

.. math:: f^{\mu,i}(w, \eta) = h_i(f_i(w), \eta) = \tfrac{1}{\alpha_i}\,\mathrm{softplus}_\mu(f_i(w) - \eta) + \eta,

.. math::
    \nabla_w f^{\mu,i} = \partial_f h_i\,\nabla f_i(w), \qquad
    \partial_\eta f^{\mu,i} = \partial_\eta h_i, \qquad
    (\partial_f h_i, \partial_\eta h_i) = (s_i, 1 - s_i), \quad
    s_i = \tfrac{1}{\alpha_i}\,\sigma\!\big((f_i(w) - \eta)/\mu\big),

and any aggregator with ``client_grads(f, eta) -> (dh/df, dh/deta)`` and ``client_values`` trains the
same way (:class:`~fairtheory.aggregators.TERM`, :class:`~fairtheory.aggregators.QFFL`, your own).

Step ``t`` (``t = 0, 1, ...``): every client takes ``theta_i <- theta_i - beta grad h_i(theta_i)``
(002's step size ``beta`` is :func:`make`'s ``lr``, :mod:`fairtheory.algorithms.names`).
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

* ``"average"`` (002 Alg. 1's output): ``w_tilde = 1/(T_N+1) sum_{r=0}^{T_N} w_{r kappa + 1}`` (the mean of the
  server models right after each averaging);
* ``"path_average"`` (000 Alg. 1's output): ``w_tilde = 1/T sum_{t=0}^{T-1} sum_i p_i w_t^i`` (the mean of every
  averaged iterate from ``w_0`` on).

(:data:`fairtheory.algorithms.names.OUTPUT_RENAMES`: the old names ``"002"`` / ``"000"`` warn for one release.)

Neither output uses ``theta_T`` (the result of the last step ``t = T-1``); :func:`run_rfedfair`
performs that step anyway so the state matches Algorithm 1, and reads the outputs before it.

The state carries the running sums both outputs need, so ``output(state)`` after any prefix of a
run is the output of the algorithm with that shorter horizon (the iterates do not depend on ``T``).

Usage (optax-style; hyper-parameters validated once by :func:`make`)::

    alg = rfedfair.make(problem, lr=0.05, kappa=5, alpha=0.5, mu=0.1)        # or aggregator=...
    state, hist = base.run(alg, T, rng=rng)                                  # T steps of Algorithm 1
    w_tilde, eta_tilde = rfedfair.output(state, "average")

Written once against the array API: numpy or torch (``float64``) iterates, chosen by the type of
``w0``; client draws come from the explicit ``numpy.random.Generator`` so both backends make the
same draws.  No Python loop over clients.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer, check_positive, check_rng
from fairtheory.aggregators import SmoothedQalpha
from fairtheory.algorithms.base import (
    Algorithm,
    History,
    aggregator_for,
    check_draws,
    check_problem,
    check_state,
    checked_weights,
    initial_model,
    is_builtin,
    run,
    sample_clients,
)
from fairtheory.algorithms.names import output_name, refuses_old_names
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.errors import DivergenceError, FairtheoryTypeError
from fairtheory.problems.base import FederatedProblem

__all__ = [
    "State",
    "RunResult",
    "make",
    "local_gradients",
    "output",
    "is_communication_step",
    "rounds_for",
    "run_rfedfair",
]

Output = Literal["average", "path_average"]
#: the output names, in the order of the module doc
OUTPUTS = ("average", "path_average")


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
        (``sum_r w_{r kappa + 1}``), for the ``"average"`` output.
    avg_w_sum, avg_eta_sum : ``sum_{s=0}^{t} sum_i p_i theta_s^i`` (includes the current iterate),
        for the ``"path_average"`` output.
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
    T_N: int | None        #: ``(T-2)/kappa`` (``None`` for the ``"path_average"`` output when not integral)
    output: str
    #: ``{T': {"average": (w, eta) or None, "path_average": (w, eta)}}`` outputs at the requested shorter horizons
    checkpoints: dict[int, dict[str, Any]] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------ helpers
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


def _aggregator(problem: FederatedProblem, alpha: Any, mu: Any, aggregator: Any) -> Any:
    """The separable aggregator: ``SmoothedQalpha(p, alpha, mu)`` or ``aggregator`` (never both)."""
    if aggregator is not None:
        if alpha is not None or mu is not None:
            given = ", ".join(k for k, v in (("alpha", alpha), ("mu", mu)) if v is not None)
            raise FairtheoryValueError(
                f"give either (alpha, mu) for the smoothed Q_alpha objective or aggregator=, not both "
                f"(got aggregator and {given})")
        return aggregator_for(problem, aggregator, needs=("client_grads", "client_values"), algorithm="rfedfair")
    missing = [k for k, v in (("alpha", alpha), ("mu", mu)) if v is None]
    if missing:
        raise FairtheoryValueError(
            f"rfedfair needs alpha and mu (the smoothed Q_alpha objective, 002 eq. 5) or aggregator=; "
            f"{' and '.join(missing)} missing")
    if isinstance(alpha, (bool, np.bool_, str, bytes)):  # float(True), float("0.5") would pass
        raise FairtheoryTypeError(f"alpha must be a number or a vector of numbers, got {alpha!r}")
    if isinstance(mu, (bool, np.bool_, str, bytes)):
        raise FairtheoryTypeError(f"mu must be a real number, got {mu!r}")
    return SmoothedQalpha(problem.p, alpha, mu)


def local_gradients(problem: FederatedProblem, W: Any, E: Any, aggregator: Any) -> tuple[Any, Any]:
    r"""All clients' gradients of ``h_i(f_i(w), eta)`` at their own ``(W_i, E_i)`` (002 eq. 5).

    Returns ``(G_w, g_eta)`` with ``G_w[i] = dh/df_i grad f_i(W_i)`` (shape ``(n, d)``) and
    ``g_eta[i] = dh/deta_i``, from ``aggregator.client_grads`` (for :class:`SmoothedQalpha`:
    ``s_i`` and ``1 - s_i``, ``s_i = sigma((f_i(W_i) - E_i)/mu)/alpha_i``).  ``W``, ``E`` numpy or torch.
    """
    f, G = problem.loss_grad_each(W)
    dh_df, dh_deta = aggregator.client_grads(f, E)
    return dh_df[:, None] * G, dh_deta


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


# ------------------------------------------------------------------------------------------ API
@refuses_old_names("rfedfair")
def make(problem: FederatedProblem, *, lr: float, kappa: int, alpha: Any = None, mu: float | None = None,
         aggregator: Any = None, K: int | None = None) -> Algorithm:
    r"""rFedFair (002 Algorithm 1) on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`.

    Parameters
    ----------
    lr : float
        Step size ``> 0`` (002 Algorithm 1's ``beta``; the old name ``beta=`` is refused by name).
    kappa : int
        Steps per round (``>= 1``; 002 Algorithm 1's ``kappa``): the server averages at steps ``t`` with
        ``kappa | t``.
    alpha, mu : optional
        The default objective, the smoothed ``Q_alpha`` loss (002 eq. 5's ``alpha`` and ``mu``):
        ``SmoothedQalpha(problem.p, alpha, mu)`` with ``alpha`` a scalar or ``(n,)`` vector in
        ``[p_i, 1]`` and ``mu > 0``.  Give both, or neither together with ``aggregator``.
    aggregator : optional
        Any separable aggregator (``client_grads`` and ``client_values``, client weights
        ``problem.p``); the local step is ``W_i -= lr dh/df_i grad f_i(W_i)``,
        ``E_i -= lr dh/deta_i``.  Not together with ``alpha``/``mu``.
    K : int or None
        ``None``: full participation (average with weights ``p``); else ``K >= 1`` draws with
        replacement by ``p`` per communication, plain mean over the draws (002 Sec. 4's ``K``).

    Returns
    -------
    Algorithm with ``init(w0=None, eta0=0.0) -> State`` (``w0`` numpy or torch decides the backend)
    and ``step(state, rng) -> State`` (one step ``t = state.t``; ``rng`` is a
    ``numpy.random.Generator``, needed for partial participation only).
    """
    problem = check_problem(problem)
    beta_f = check_positive(lr, "lr")
    kappa_i = check_integer(kappa, "kappa", low=1)
    K_i = None if K is None else check_draws(K)
    agg = _aggregator(problem, alpha, mu, aggregator)
    client_grads = agg.client_grads  # bound once: the step calls it with no further checks
    check_out = not is_builtin(agg)
    p_np = problem.p
    n = problem.n

    def init(w0: Any = None, eta0: float = 0.0) -> State:
        """All clients start at ``(w0, eta0)`` (002 Algorithm 1 input; ``w0`` default
        ``problem.initial_point()``; a torch ``w0`` gives torch iterates of its dtype and device)."""
        w = initial_model(problem, w0)
        eta0_f = check_in_range(eta0, "eta0")
        xp = namespace(w)
        E = like(np.full(n, eta0_f), w)
        eta = like(np.asarray(eta0_f), w)
        # sum_{s=0}^{0} sum_i p_i theta_0^i = theta_0 (the p_i sum to one)
        return State(w=w, eta=eta, W=_broadcast_rows(xp, w, n), E=E, t=0, comms=0,
                     srv_w_sum=xp.zeros_like(w), srv_eta_sum=xp.zeros_like(eta),
                     avg_w_sum=xp.asarray(w, copy=True), avg_eta_sum=xp.asarray(eta, copy=True))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        """One step ``t = state.t`` of 002 Algorithm 1 (pure; returns a new state)."""
        check_state(state, State, "rfedfair")
        if K_i is not None:
            rng = check_rng(rng)
        # Not base.local_steps: the per-client factor dh/df_i(f_i(W_i), E_i) multiplies each gradient
        # and E moves too, and one call is one step of Algorithm 1 (averaging only when kappa | t).
        xp = namespace(state.W)
        f, G = problem.loss_grad_each(state.W)  # one fused evaluation
        dh_df, dh_deta = client_grads(f, state.E)
        if check_out:  # a user aggregator: what client_grads returned must be two finite (n,) vectors
            checked_weights(agg, dh_df, n, "aggregator.client_grads(f, eta)[0]", f=f)
            checked_weights(agg, dh_deta, n, "aggregator.client_grads(f, eta)[1]", f=f)
        W_new = (-beta_f * dh_df)[:, None] * G  # a fresh array: update it in place (W + (-x) == W - x exactly)
        W_new += state.W
        E_new = state.E - beta_f * dh_deta
        w, eta, comms = state.w, state.eta, state.comms
        srv_w_sum, srv_eta_sum = state.srv_w_sum, state.srv_eta_sum
        if state.t % kappa_i == 0:
            if K_i is None:
                p = like(p_np, W_new)
                w = p @ W_new
                eta = p @ E_new
            else:
                # the raw draw sequence (base.sample_clients): a client drawn twice counts twice in the mean
                draws = sample_clients(rng, p_np, K_i)  # type: ignore[arg-type]
                if K_i <= n:  # the K x d gathered rows are no larger than W itself
                    idx = _index_like(draws, W_new)
                    w = xp.mean(xp.take(W_new, idx, axis=0), axis=0)
                    eta = xp.mean(xp.take(E_new, idx, axis=0))
                else:  # more draws than clients: the same mean as draw counts over the n rows (no K x d copy)
                    share = like(np.bincount(draws, minlength=n) / K_i, W_new)
                    w = share @ W_new
                    eta = share @ E_new
            W_new = _broadcast_rows(xp, w, n)
            E_new = eta * xp.ones_like(E_new)
            comms += 1
            srv_w_sum = srv_w_sum + w
            srv_eta_sum = srv_eta_sum + eta
        p = like(p_np, W_new)
        return State(w=w, eta=eta, W=W_new, E=E_new, t=state.t + 1, comms=comms,
                     srv_w_sum=srv_w_sum, srv_eta_sum=srv_eta_sum,
                     avg_w_sum=state.avg_w_sum + p @ W_new, avg_eta_sum=state.avg_eta_sum + p @ E_new)

    hyper: dict[str, Any] = {"lr": beta_f, "kappa": kappa_i, "K": K_i, "aggregator": agg}
    if aggregator is None:
        hyper.update(alpha=agg.alpha, mu=agg.mu)
    return Algorithm("rfedfair", problem, hyper, init, step, ("lr",))


def output(state: State, which: Output = "average") -> tuple[Any, Any]:
    r"""The output ``(w_tilde, eta_tilde)`` of a run whose iterates are ``theta_0, ..., theta_t``.

    ``"average"`` (002 Algorithm 1's output): mean of the server models right after each averaging so far,
    ``1/(T_N+1) sum_{r=0}^{T_N} theta_{r kappa + 1}`` (needs at least one averaging).
    ``"path_average"`` (000 Algorithm 1's output): ``1/T sum_{s=0}^{T-1} sum_i p_i theta_s^i`` with ``T = t + 1``,
    i.e. including the current iterate ``theta_t``.  The old names ``"002"`` / ``"000"`` warn for one release
    (:data:`fairtheory.algorithms.names.OUTPUT_RENAMES`).
    """
    if not isinstance(state, State):
        raise FairtheoryTypeError(f"state must be a rfedfair.State, got {type(state).__name__}")
    which = output_name(which, where="rfedfair.output", arg="which")
    return _output(state, which)


def _output(state: State, which: str) -> tuple[Any, Any]:
    if which == "average":
        if state.comms == 0:
            raise FairtheoryValueError("the 'average' output needs at least one averaging step (comms >= 1), got 0")
        return state.srv_w_sum / state.comms, state.srv_eta_sum / state.comms
    if which == "path_average":
        T = state.t + 1
        return state.avg_w_sum / T, state.avg_eta_sum / T
    raise FairtheoryValueError(f"which must be 'average' or 'path_average', got {which!r}")


@refuses_old_names("rfedfair", also={"output_version": "output"})
def run_rfedfair(
    problem: FederatedProblem,
    *,
    T: int,
    lr: float,
    kappa: int,
    alpha: Any = None,
    mu: float | None = None,
    aggregator: Any = None,
    K: int | None = None,
    rng: np.random.Generator | None = None,
    w0: Any = None,
    eta0: float = 0.0,
    output: Output = "average",
    record_every: int = 1,
    record_losses: bool = False,
    checkpoints: Any = None,
    on_divergence: Literal["raise", "stop"] = "raise",
) -> RunResult:
    r"""Run Algorithm 1 for ``T`` steps (``t = 0, ..., T-1``) and return its output.

    ``make(problem, lr=, kappa=, alpha=, mu=, aggregator=, K=)`` iterated by
    :func:`fairtheory.algorithms.base.run`.  ``output="average"`` (:func:`output`) needs ``T - 2`` divisible by
    ``kappa`` (``T_N = (T-2)/kappa``, 002 Sec. 4); ``"path_average"`` accepts any ``T >= 1``.  ``checkpoints``
    (optional iterable of horizons ``T' <= T``) records both outputs for those shorter horizons in
    ``result.checkpoints`` as numpy ``(w, eta)`` pairs (valid because the iterates do not depend on
    ``T``; the ``"average"`` entry is ``None`` before the first averaging).  ``record_every``/``record_losses``/
    ``on_divergence`` go to :func:`~fairtheory.algorithms.base.run`, which records the server model ``w``.
    ``beta=`` (002's symbol for ``lr``) and ``output_version=`` (now ``output=``) are refused by name
    (:mod:`fairtheory.algorithms.names`).
    """
    output = output_name(output, where="rfedfair.run_rfedfair")
    if output not in OUTPUTS:
        raise FairtheoryValueError(f"output must be 'average' or 'path_average', got {output!r}")
    T_i = check_integer(T, "T", low=1)
    T_N: int | None
    if output == "average":
        T_N = rounds_for(T_i, kappa)
    alg = make(problem, lr=lr, kappa=kappa, alpha=alpha, mu=mu, aggregator=aggregator, K=K)
    kappa_i = alg.hyper["kappa"]
    if output == "path_average":
        T_N = (T_i - 2) // kappa_i if T_i >= 2 and (T_i - 2) % kappa_i == 0 else None
    if K is not None and rng is None:
        raise FairtheoryTypeError("rng must be a numpy.random.Generator for partial participation (K is given)")
    cps = sorted({check_integer(c, "checkpoints[...]", low=1, high=T_i) for c in (checkpoints or [])})
    state0 = alg.init(w0, eta0)
    captured: dict[int, tuple[Any, Any]] = {}
    chk: dict[int, dict[str, Any]] = {}

    def callback(k: int, s: State) -> None:
        # after k steps the state holds theta_0..theta_k: the horizon-(k+1) outputs
        if k == T_i - 1:
            captured[0] = _output(s, output)
        if (k + 1) in cps:
            chk[k + 1] = {"path_average": _output(s, "path_average"), "average": _output(s, "average") if s.comms else None}

    if T_i - 1 == 0:
        captured[0] = _output(state0, output)
    if 1 in cps:
        chk[1] = {"path_average": _output(state0, "path_average"), "average": None}
    state, hist = run(alg, T_i, rng=rng, state=state0, record_every=record_every, record_losses=record_losses,
                      callback=callback, on_divergence=on_divergence)
    if 0 not in captured:  # stopped early by on_divergence="stop": the output of the last finite state
        if output == "average" and state.comms == 0:
            raise DivergenceError("rfedfair diverged at its first step: no 'average' output exists (use a smaller lr)")
        captured[0] = _output(state, output)
    w_out, eta_out = captured[0]
    cp_np = {k: {kk: (None if v is None else (to_numpy(v[0]).copy(), float(to_numpy(v[1]))))
                 for kk, v in d.items()} for k, d in chk.items()}
    return RunResult(w=w_out, eta=eta_out, state=state, history=hist, T=T_i, T_N=T_N,
                     output=output, checkpoints=cp_np)
