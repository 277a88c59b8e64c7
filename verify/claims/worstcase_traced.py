r"""The traced worst-case backend: exact worst cases computed by running a method's own ``make`` on PEP vectors.

:func:`fairtheory.worstcase.worst_case` runs an algorithm's ``init`` / ``step`` on symbolic Gram arrays
(:mod:`fairtheory.worstcase.gram_array`) and solves the resulting performance-estimation SDP.  The checks:

* twins - the hand-written PEPs (:func:`fairtheory.worstcase.local_gd_worst_case` with ``schedule="fedavg"``,
  :func:`fairtheory.worstcase.scaffold.scaffold_worst_case`) are built independently of the algorithm
  code; the traced worst cases of :mod:`fairtheory.algorithms.fedavg` / :mod:`fairtheory.algorithms.scaffold`
  must equal them (``T`` FedAvg rounds = ``T_N = T - 1``, output ``"last"`` = last server model, ``"average"``
  = the hand-written ``"average"`` output = mean of the server models ``w_1..w_T``);
* a user-style method (FedAvg with a server step size, written in this module only against the array
  API, no PEP code) gets its worst case, and the method itself, run with numpy on the extracted worst-case
  functions (:class:`fairtheory.worstcase.replay.InterpolatedProblem`), reaches the PEP value;
* methods with non-linear steps are refused with an error naming the operation.

All instances: ``L``-smooth convex clients, ``||x0 - x*||^2 <= D0``, ``sum_i p_i ||grad f_i(x*)||^2 <= rho2``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from verify.core import BracketTally, Context, Outcome, Tally, claim, combine

_TWIN_RTOL = 1e-6      # the tolerance for twins (both SDPs solved to Clarabel's 1e-8)
_REPLAY_RTOL = 1e-4    # replay: interpolant QPs and the PEP solve, each to ~1e-8, through T rounds



# ------------------------------------------------------------------------------- a user-style method
@dataclass(frozen=True)
class ServerStepState:
    w: Any
    comms: int = 0


def server_step_make(problem: Any, *, lr: float, kappa: int = 1, server_lr: float = 1.0) -> Any:
    r"""FedAvg with a server step size (FedOpt's server SGD): ``w+ = w + server_lr sum_i p_i (w_i - w)`` after
    ``kappa`` local steps ``w_i <- w_i - lr grad f_i(w_i)`` - written the way a user writes a method (array
    API only, the shared helpers of :mod:`fairtheory.algorithms.base`), with no PEP code."""
    from fairtheory.algorithms.base import Algorithm, initial_model, local_steps, open_round
    from fairtheory.backend import like

    p = problem.p

    def init(w0: Any = None) -> ServerStepState:
        return ServerStepState(w=initial_model(problem, w0))

    def step(state: ServerStepState, rng: Any = None) -> ServerStepState:
        w = state.w
        rnd = open_round(problem, w, None, rng)
        W = local_steps(problem, rnd.W0, lr=lr, kappa=kappa).W
        return ServerStepState(w=w + server_lr * (like(p, w) @ (W - w)), comms=state.comms + 1)

    return Algorithm("server_step", problem, {"lr": lr, "kappa": kappa, "server_lr": server_lr}, init, step,
                     ("lr", "server_lr"))


def replay_value(make: Any, wc: Any, rounds: int, output: str = "last", start: dict[str, Any] | None = None,
                 **hyper: Any) -> float:
    """``sum_i p_i f_i(out) - f*`` reached by ``make`` run with numpy on the extracted worst-case functions."""
    from fairtheory.algorithms.base import run
    from fairtheory.worstcase.replay import InterpolatedProblem

    P = InterpolatedProblem(wc.instance)
    alg = make(P, **hyper)
    state = alg.init(wc.instance.x0.copy(), **(start or {}))
    ws = []
    for _ in range(rounds):
        state, _ = run(alg, 1, state=state, record_losses=False)
        ws.append(np.asarray(state.w, dtype=np.float64))
    return P.G(ws[-1] if output == "last" else np.mean(ws, axis=0))


# ------------------------------------------------------------------------------- twins
#: (n, kappa, T, lr, L, D0, rho2, p, K, output)
_FEDAVG_QUICK = [
    (2, 2, 3, 0.5, 1.0, 1.0, 1.0, None, None, "last"),
    (2, 3, 2, 1.0, 1.0, 1.0, 10.0, None, None, "last"),
    (1, 1, 4, 1.0, 1.0, 1.0, 0.0, None, None, "last"),
    (3, 2, 2, 0.5, 1.0, 1.0, 4.0, (0.5, 0.3, 0.2), None, "last"),
    (2, 2, 3, 0.5, 1.0, 1.0, 1.0, (0.3, 0.7), None, "average"),
    (2, 2, 2, 0.25, 2.0, 0.5, 3.0, None, None, "last"),
    (2, 2, 2, 0.5, 1.0, 1.0, 1.0, None, 1, "last"),
]
_FEDAVG_FULL = _FEDAVG_QUICK + [
    (2, 3, 4, 0.5, 1.0, 1.0, 2.0, None, None, "last"),
    (3, 2, 3, 0.8, 1.0, 1.0, 1.0, None, None, "average"),
    (2, 1, 2, 1.0, 1.0, 1.0, 1.0, (0.2, 0.8), 2, "average"),
]

#: (n, kappa, R, lr, server_lr, L, D0, rho2, p, warm_start, output)
_SCAFFOLD_QUICK = [
    (2, 2, 2, 0.5, 1.0, 1.0, 1.0, 1.0, None, True, "last"),
    (2, 3, 2, 0.1, 1.0, 1.0, 1.0, 100.0, None, True, "last"),
    (2, 2, 3, 0.5, 0.5, 1.0, 1.0, 4.0, None, True, "last"),
    (3, 2, 2, 0.3, 1.0, 1.0, 1.0, 2.0, (0.5, 0.25, 0.25), True, "last"),
    (2, 2, 2, 0.5, 1.0, 1.0, 1.0, 4.0, None, False, "last"),
    (2, 2, 3, 0.25, 1.0, 2.0, 0.5, 3.0, None, True, "average"),
]
_SCAFFOLD_FULL = _SCAFFOLD_QUICK + [
    (2, 3, 3, 0.5, 1.0, 1.0, 1.0, 1.0, (0.3, 0.7), True, "average"),
    (3, 2, 3, 0.5, 0.8, 1.0, 1.0, 1.0, None, False, "last"),
]


@claim("worstcase.traced.fedavg_twin", citation="PEP (Taylor, Hendrickx & Glineur 2017); FedAvg (McMahan et al. 2017)",
       statement="the worst case traced from fairtheory.algorithms.fedavg.make (T rounds) equals the hand-written "
                 "local-GD PEP with schedule='fedavg', T_N = T - 1, to 1e-6 relative (last / average output, K draws)")
def fedavg_twin(ctx: Context) -> Outcome:
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import local_gd_worst_case, worst_case

    tally = BracketTally(_TWIN_RTOL)
    rows = []
    for n, kappa, T, lr, L, D0, rho2, p, K, out in (_FEDAVG_QUICK if ctx.quick else _FEDAVG_FULL):
        tr = worst_case(fedavg.make, T, n=n, L=L, D0=D0, rho2=rho2, p=p, output=out, lr=lr, kappa=kappa, K=K)
        hw = local_gd_worst_case(n=n, kappa=kappa, T_N=T - 1, lr=lr, L=L, D0=D0, rho2=rho2, p=p, K=K,
                                 output="last" if out == "last" else "average", schedule="fedavg")
        inst = {"n": n, "kappa": kappa, "T": T, "lr": lr, "L": L, "D0": D0, "rho2": rho2, "p": p, "K": K, "output": out}
        tally.equal(tr, hw, instance=inst, size=tr.dim)
        rows.append(inst | {"traced": tr.value, "hand_written": hw.value, "gram": tr.dim, "gram_hand": hw.dim,
                            "status": tr.status, "status_hand": hw.status, "branches": tr.extra["branches"]})
    return tally.outcome(explain="measured = traced worst case of fedavg.make, theory = local_gd_worst_case "
                                 "(schedule='fedavg', T_N = T - 1)", details={"settings": rows})


@claim("worstcase.traced.scaffold_twin", citation="PEP; Scaffold (Karimireddy et al. 2020, option II)",
       statement="the worst case traced from fairtheory.algorithms.scaffold.make (R rounds, K=None) equals the "
                 "hand-written scaffold_worst_case, to 1e-6 relative (warm/cold start, last/average output)")
def scaffold_twin(ctx: Context) -> Outcome:
    from fairtheory.algorithms import scaffold
    from fairtheory.worstcase import worst_case
    from fairtheory.worstcase.scaffold import scaffold_worst_case

    tally = BracketTally(_TWIN_RTOL)
    rows = []
    for n, kappa, R, lr, slr, L, D0, rho2, p, warm, out in (_SCAFFOLD_QUICK if ctx.quick else _SCAFFOLD_FULL):
        tr = worst_case(scaffold.make, R, n=n, L=L, D0=D0, rho2=rho2, p=p, output="last" if out == "last" else "average",
                        start={"warm_start": warm}, kappa=kappa, lr=lr, server_lr=slr)
        hw = scaffold_worst_case(n=n, kappa=kappa, R=R, lr=lr, server_lr=slr, L=L, D0=D0, rho2=rho2, p=p,
                                 warm_start=warm, output=out)  # type: ignore[arg-type]
        inst = {"n": n, "kappa": kappa, "R": R, "lr": lr, "server_lr": slr, "L": L, "D0": D0, "rho2": rho2, "p": p,
                "warm_start": warm, "output": out}
        tally.equal(tr, hw, instance=inst, size=tr.dim)
        rows.append(inst | {"traced": tr.value, "hand_written": hw.value, "gram": tr.dim, "gram_hand": hw.dim,
                            "status": tr.status, "status_hand": hw.status})
    return tally.outcome(explain="measured = traced worst case of scaffold.make, theory = scaffold_worst_case",
                         details={"settings": rows})


@claim("worstcase.traced.user_method", citation="PEP of a user-written method (FedAvg with a server step size)",
       statement="a method written only against the array API gets its exact worst case from its own make(): "
                 "run with numpy on the extracted worst-case functions it reaches the PEP value (1e-4), and at "
                 "server step 1 the PEP equals the hand-written local-GD PEP (1e-6)")
def user_method(ctx: Context) -> Outcome:
    from fairtheory.worstcase import local_gd_worst_case, worst_case

    replay, twin = Tally(), BracketTally(_TWIN_RTOL)
    rows = []
    grid = [(2, 2, 3, 0.5, 1.5, 1.0), (2, 1, 4, 0.5, 0.7, 4.0), (3, 2, 2, 0.3, 2.0, 1.0)]
    if not ctx.quick:
        grid += [(2, 3, 3, 0.5, 1.2, 10.0), (2, 2, 4, 1.0, 0.5, 1.0)]
    for n, kappa, T, lr, eta_s, rho2 in grid:
        wc = worst_case(server_step_make, T, n=n, L=1.0, D0=1.0, rho2=rho2, lr=lr, kappa=kappa, server_lr=eta_s,
                        return_instance=True)
        val = replay_value(server_step_make, wc, T, lr=lr, kappa=kappa, server_lr=eta_s)
        inst = {"n": n, "kappa": kappa, "T": T, "lr": lr, "server_lr": eta_s, "rho2": rho2}
        replay.equal(val, wc.value, rtol=_REPLAY_RTOL, instance=inst, size=wc.dim)
        one = worst_case(server_step_make, T, n=n, L=1.0, D0=1.0, rho2=rho2, lr=lr, kappa=kappa, server_lr=1.0)
        hw = local_gd_worst_case(n=n, kappa=kappa, T_N=T - 1, lr=lr, L=1.0, D0=1.0, rho2=rho2, output="last",
                                 schedule="fedavg")
        twin.equal(one, hw, instance=inst | {"server_lr": 1.0}, size=one.dim)
        rows.append(inst | {"worst_case": wc.value, "replayed": val, "at_server_lr_1": one.value,
                            "hand_written_fedavg": hw.value, "gram": wc.dim})
    parts = {"replay": replay.outcome(explain="measured = suboptimality the method reaches with numpy on the "
                                              "extracted worst-case functions, theory = traced PEP value"),
             "twin": twin.outcome(explain="measured = traced worst case at server_lr = 1, theory = "
                                          "local_gd_worst_case (schedule='fedavg')")}
    out = combine(parts)
    out.details.update({"grid": rows})
    return out


@claim("worstcase.traced.refuses_nonlinear", citation="PEP representability (linear steps only)",
       statement="methods with steps that are not linear in the gradients (FedFV projections, q-FedAvg / AFL / "
                 "rFedFair loss-dependent weights, power-of-choice selection) are refused with "
                 "NotRepresentableError naming the operation, never given a number")
def refuses_nonlinear(ctx: Context) -> Outcome:
    from fairtheory.algorithms import afl, fedfv, power_of_choice, qfedavg, rfedfair
    from fairtheory.worstcase import worst_case
    from fairtheory.worstcase.gram_array import NotRepresentableError

    cases = [("fedfv", fedfv.make, {"lr": 0.5}), ("qfedavg", qfedavg.make, {"q": 1.0, "lr": 0.5}),
             ("afl", afl.make, {"lr": 0.1, "dual_lr": 0.1}),
             ("power_of_choice", power_of_choice.make, {"lr": 0.5, "K": 1, "candidates": 2}),
             ("rfedfair", rfedfair.make, {"lr": 0.5, "kappa": 1, "alpha": np.array([0.5, 0.5]), "mu": 0.1})]
    tally = Tally()
    rows = []
    for name, mk, hy in cases:
        try:
            wc = worst_case(mk, 2, n=2, L=1.0, D0=1.0, rho2=1.0, hyper=hy)
            ok, msg = False, f"returned a value {wc.value!r}"
        except NotRepresentableError as exc:
            msg = str(exc)
            ok = "not PEP-representable" in msg and msg.startswith(f"{name}.make:")
        tally.upper(0.0 if ok else 1.0, 0.0, instance={"method": name, "message": msg[:200]})
        rows.append({"method": name, "refused": ok, "message": msg[:300]})
    return tally.outcome(explain="measured = 1 unless the method was refused with a NotRepresentableError naming "
                                 "the method and the operation, bound = 0", details={"methods": rows})
