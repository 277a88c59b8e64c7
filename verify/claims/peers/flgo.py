r"""Peer audit of FLGo 0.4.4 (``flgo.algorithm``): FedFV, q-FedAvg, AFL, FedMGDA+, FedFa, Ditto, power-of-choice.

Each claim runs FLGo's own ``Server.iterate`` / ``aggregate`` / ``sample`` or ``Client.train`` (``Client.pack``
where the client computes the server's inputs) on minimal FLGo objects holding one-parameter-vector models
(:mod:`verify.claims.peers.support`), under torch default dtype float64, against fairtheory's answer
(:mod:`verify.claims.peers.compare`) or rule: FedFa's weights (momentum off, one-hot client models, so the new
model *is* the weight vector; FLGo's constants inside the logarithms), Ditto's two solvers on quadratic clients
(and the exact personalised optimum, the checkpoint round trip), the pow-d selection (the candidates are the
clients FLGo asks for their loss).  The ``prepare_*`` functions build FLGo's inputs and return a zero-argument
function that runs only FLGo's server-side code (``benchmarks/bench_peers.py`` times that function alone).
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from verify.claims.peers.compare import (
    afl_update,
    check_projection,
    check_reference,
    combine_parts,
    fedfv_direction,
    fedmgda_compare,
    fedmgda_direction,
    qffl_check,
    vec_equal,
)
from verify.claims.peers.support import (
    attempt,
    flgo_feed,
    flgo_model,
    flgo_server,
    flgo_value,
    float64_torch,
    lst,
    needs,
    note,
)
from verify.core import Context, Outcome, Tally, claim

__all__ = ["prepare_flgo_fedfv", "prepare_flgo_qfedavg", "prepare_flgo_afl", "prepare_flgo_fedmgda", "KEEP_COUNT_CASE",
           "FLGO_EPS", "flgo_fedfa_weights",
           "flgo_ditto_train", "flgo_ditto_checkpoint", "flgo_powerofchoice_sample"]

_FLGO_FP64 = "FLGo run under torch default dtype float64 (its dot/norm accumulators use the default dtype)"


# ============================================================================ adapters: server steps
def prepare_flgo_fedfv(w: Any, U: Any, losses: Any, *, alpha: float, tau: int, t: int, history: Any,
                       history_round: Any, clients: Any) -> Callable[[], np.ndarray]:
    """FLGo's FedFV ``Server.iterate`` at round ``t`` (1-based) with client models ``w - U`` and training
    losses ``losses``; returns a function giving the direction ``w - model+``.  Call inside
    :func:`float64_torch` for float64 accumulators."""
    import flgo.algorithm.fedfv as ffv

    w = np.asarray(w, dtype=np.float64)
    U = np.asarray(U, dtype=np.float64)
    hist, hr = np.asarray(history, dtype=np.float64), [int(r) for r in history_round]
    S = flgo_server(ffv, w, alpha=alpha, tau=tau, current_round=t, num_clients=len(hr),
                    client_last_sample_round=list(hr),
                    client_grads_history=[flgo_model(h) if r >= 0 else 0 for h, r in zip(hist, hr, strict=True)])
    flgo_feed(S, [int(c) for c in clients], {"model": [flgo_model(w - u) for u in U], "loss": [float(v) for v in losses]})

    def call() -> np.ndarray:
        S.iterate()
        return w - flgo_value(S.model)

    return call


def prepare_flgo_qfedavg(w: Any, W: Any, F: Any, *, q: float, lr: float) -> Callable[[], np.ndarray]:
    """FLGo's q-FedAvg: each ``Client.pack`` computes ``(dk, hk)`` from its training loss ``F_k`` at the
    server model (built here), then ``Server.iterate`` (the returned function) sums them."""
    import flgo.algorithm.qfedavg as fq

    w = np.asarray(w, dtype=np.float64)
    packs = []
    for k, wk in enumerate(np.asarray(W, dtype=np.float64)):
        C = object.__new__(fq.Client)
        C.q, C.learning_rate, C.global_model = q, lr, flgo_model(w)
        C.test = lambda model, flag="train", _f=float(F[k]): {"loss": _f}
        packs.append(C.pack(flgo_model(wk)))
    S = flgo_server(fq, w)
    flgo_feed(S, list(range(len(packs))), {"dk": [p["dk"] for p in packs], "hk": [p["hk"] for p in packs]})

    def call() -> np.ndarray:
        S.iterate()
        return flgo_value(S.model)

    return call


def prepare_flgo_afl(w: Any, W: Any, F: Any, *, lam: Any, lr: float, lr_lam: float, t: int,
                     w_avg: Any) -> Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """FLGo's AFL ``Server.iterate`` (full participation) at round ``t``: returns ``(w+, lam+, average+)``."""
    import flgo.algorithm.afl as fafl

    w = np.asarray(w, dtype=np.float64)
    S = flgo_server(fafl, w, num_clients=len(F), learning_rate=lr, learning_rate_lambda=lr_lam,
                    dynamic_lambdas=[float(v) for v in lam], current_round=t,
                    result_model=flgo_model(np.asarray(w_avg, dtype=np.float64)))
    flgo_feed(S, list(range(len(F))), {"model": [flgo_model(x) for x in np.asarray(W, dtype=np.float64)],
                                      "loss": [float(v) for v in F]})

    def call() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        S.iterate()
        return flgo_value(S.model), np.asarray(S.dynamic_lambdas, dtype=np.float64), flgo_value(S.result_model)

    return call


def prepare_flgo_fedmgda(w: Any, W: Any, *, sizes: Any, epsilon: float, eta: float = 1.0) -> Callable[[], np.ndarray]:
    """FLGo's FedMGDA+ ``Server.aggregate`` (cvxopt QP, its progress output off); ``sizes`` are the clients'
    training-set sizes (FLGo's ``lam0 = n_k / sum n_k``).  Returns a function giving the new model."""
    import flgo.algorithm.fedmgda as fmg

    w = np.asarray(w, dtype=np.float64)
    clients = [types.SimpleNamespace(train_data=[0] * int(n)) for n in sizes]
    S = flgo_server(fmg, w, epsilon=epsilon, eta=eta, clients=clients, received_clients=list(range(len(clients))))
    models = [flgo_model(x) for x in np.asarray(W, dtype=np.float64)]

    def call() -> np.ndarray:
        import cvxopt

        old = cvxopt.solvers.options.get("show_progress", True)
        cvxopt.solvers.options["show_progress"] = False
        try:
            return flgo_value(S.aggregate(models))
        finally:
            cvxopt.solvers.options["show_progress"] = old

    return call


# ============================================================================ FedFV
#: FLGo keeps ``m - ceil((m-1)(1-alpha))`` clients with ``ceil`` of a float: at ``m = 11``, ``alpha = 0.7``
#: ``(1 - 0.7) * 10 = 3.0000000000000004`` rounds up to 4, so FLGo keeps 7 clients where its own rule
#: (and the paper's ``alpha m = 7.7``) keeps 8.  Hand-built instance: every client sends ``e_1`` except
#: the 4th-smallest loss (client 3), whose update ``(-1, 1)`` conflicts with them.
KEEP_COUNT_CASE = {"U": [[1.0, 0.0]] * 3 + [[-1.0, 1.0]] + [[1.0, 0.0]] * 7, "losses": list(range(11)), "alpha": 0.7}


def _fedfv_cases(ctx: Context) -> list[dict[str, Any]]:
    rng = ctx.rng("peers.flgo.fedfv")
    cases: list[dict[str, Any]] = []

    def add(U: np.ndarray, losses: Any, alpha: float, kind: str, *, tau: int = 0, t: int = 1, N: int | None = None,
            clients: Any = None, hist: np.ndarray | None = None, hr: Any = None) -> None:
        m, d = U.shape
        N = N or m
        cl = list(range(m)) if clients is None else list(clients)
        H = np.zeros((N, d)) if hist is None else hist
        R = -np.ones(N, dtype=np.int64) if hr is None else np.asarray(hr, dtype=np.int64)
        cases.append({"kind": kind, "w": np.zeros(d), "U": U, "losses": np.asarray(losses, dtype=np.float64),
                      "alpha": alpha, "tau": tau, "t": t, "clients": cl, "history": H, "history_round": R})

    # zeros and zero aggregates
    add(np.zeros((1, 1)), [1.0], 0.1, "zero update")
    add(np.zeros((2, 2)), [1.0, 2.0], 0.1, "zero updates")
    add(np.array([[1.0, 0.0], [-2.0, 0.0]]), [1.0, 2.0], 0.0, "opposite updates, alpha 0")
    add(np.array([[1.0, 0.0], [-1.0, 0.0]]), [1.0, 2.0], 0.5, "opposite updates, alpha 0.5")
    # ties: equal losses, duplicate updates
    add(np.array([[1.0, 0.5], [1.0, 0.5], [-1.0, 0.2]]), [1.0, 1.0, 1.0], 0.3, "ties")
    # scales
    for s in (1e-12, 1e12):
        add(s * rng.normal(size=(4, 3)), rng.uniform(size=4), 0.25, f"scale {s:g}")
    # keep counts: the hand-built instance, then every m up to 12 and alpha on the 0.1 grid
    add(np.array(KEEP_COUNT_CASE["U"]), KEEP_COUNT_CASE["losses"], KEEP_COUNT_CASE["alpha"], "keep count (hand-built)")
    for m in range(2, 13):
        for a10 in range(1, 10):
            add(rng.normal(size=(m, 2)), rng.uniform(size=m), a10 / 10, "keep count")
    # random rounds with history
    for _ in range(ctx.count(40, 300)):
        m, d, N = int(rng.integers(1, 7)), int(rng.integers(1, 5)), int(rng.integers(1, 4))
        N += m
        cl = np.sort(rng.choice(N, size=m, replace=False))
        tau = int(rng.integers(0, 4))
        t = int(rng.integers(1, 6))
        H = rng.normal(size=(N, d))
        R = rng.integers(max(0, t - 3), t, size=N) * (rng.uniform(size=N) < 0.8) - (rng.uniform(size=N) >= 0.8)
        R[R == 0] = -1
        U = rng.normal(size=(m, d)) + rng.normal(size=d) * rng.uniform(0, 1)
        add(U, np.round(rng.uniform(size=m), 1), float(rng.choice([0.0, 0.1, 0.25, 0.5, rng.uniform()])), "random",
            tau=tau, t=t, N=N, clients=cl, hist=H, hr=R)
    return cases


@claim("peers.flgo.fedfv", citation="FLGo 0.4.4 algorithm/fedfv.py; 004 Alg. 1-3",
       statement="FLGo's FedFV Server.iterate moves the model by the FedFV direction of 004 Alg. 1-3 under FLGo's "
                 "keep rule and history window (fairtheory Gram route and a per-vector loop), rtol 1e-9",
       expected="refuted")
@needs("flgo")
def flgo_fedfv_claim(ctx: Context) -> Outcome:
    """FLGo's FedFV server step vs fairtheory's aggregate (``keep_rule="reference"``, ``window="reference"``),
    itself checked against the per-vector loop ``aggregate_loop``."""
    parts = {"edge cases": Tally(), "keep count": Tally(), "random": Tally()}
    worst_ref = 0.0
    with float64_torch():
        for c in _fedfv_cases(ctx):
            kw = {k: c[k] for k in ("alpha", "tau", "t", "history", "history_round", "clients")}
            ours = fedfv_direction(c["U"], c["losses"], **kw)
            worst_ref = max(worst_ref, check_reference("FedFV", ours, fedfv_direction(c["U"], c["losses"], **kw,
                                                                                       independent=True), 1e-9, c["kind"]))
            peer = attempt(lambda c=c, kw=kw: prepare_flgo_fedfv(c["w"], c["U"], c["losses"], **kw)())
            m, d = c["U"].shape
            inst = {"kind": c["kind"], "U": lst(c["U"]), "losses": lst(c["losses"]), "alpha": c["alpha"],
                    "tau": c["tau"], "t": c["t"]}
            if c["tau"]:
                inst.update(clients=[int(v) for v in c["clients"]], history=lst(c["history"]),
                            history_round=[int(v) for v in c["history_round"]])
            part = "keep count" if c["kind"].startswith("keep count") else ("random" if c["kind"] == "random" else "edge cases")
            size = m * d - (0.5 if c["kind"] == "keep count (hand-built)" else 0.0)  # integer entries win at equal size
            vec_equal(parts[part], peer, ours, rtol=1e-9, instance=inst, size=size)
    return combine_parts(parts, explain="measured = FLGo's update component of largest deviation, bound = fairtheory's "
                                        "(004 Alg. 1-3, FLGo conventions); NaN or an exception counts as a deviation",
                         note=f"{note('flgo')}; {_FLGO_FP64}; keep m - ceil((m-1)(1-alpha)) evaluated exactly; window "
                              f"rounds t-tau+1..t; zero-norm aggregate: zero step",
                         details={"reference_vs_loop": worst_ref})


# ============================================================================ q-FedAvg, AFL
@claim("peers.flgo.qfedavg", citation="FLGo 0.4.4 algorithm/qfedavg.py; 003 Alg. 2",
       statement="FLGo's q-FedAvg (Client.pack + Server.iterate) takes the q-FedAvg step of 003 Alg. 2 "
                 "(offset 1e-8, L = 1/lr), rtol 1e-9")
@needs("flgo")
def flgo_qfedavg_claim(ctx: Context) -> Outcome:
    with float64_torch():
        return qffl_check(ctx, "flgo", "peers.flgo.qfedavg", 1e-8,
                          lambda c: prepare_flgo_qfedavg(c["w"], c["W"], c["F"], q=c["q"], lr=c["lr"])())


@claim("peers.flgo.afl", citation="FLGo 0.4.4 algorithm/afl.py; Mohri et al. (2019)",
       statement="FLGo's AFL Server.iterate takes the Stochastic-AFL step (primal step with the current weights, "
                 "exact simplex projection of lam + lr_lam f, running model average), rtol 1e-9",
       expected="refuted")
@needs("flgo")
def flgo_afl_claim(ctx: Context) -> Outcome:
    """FLGo's AFL step vs the projected descent-ascent step (CappedSimplex.project, certified QP)."""
    from fairtheory.sets import CappedSimplex

    rng = ctx.rng("peers.flgo.afl")
    cases: list[dict[str, Any]] = []

    def add(n: int, d: int, F: Any, lam: Any, kind: str, lr: float = 0.1, lr_lam: float = 0.01, t: int = 1) -> None:
        w = rng.normal(size=d)
        cases.append({"kind": kind, "w": w, "W": w + rng.normal(size=(n, d)), "F": np.asarray(F, dtype=np.float64),
                      "lam": np.asarray(lam, dtype=np.float64), "lr": lr, "lr_lam": lr_lam, "t": t,
                      "w_avg": rng.normal(size=d)})

    add(1, 1, [1e18], [1.0], "huge loss, one client")
    add(2, 1, [1e18, 0.0], [0.5, 0.5], "huge loss")
    add(2, 1, [1e12, 1e12], [0.5, 0.5], "large tied losses")
    add(3, 2, [0.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3], "zero losses")
    add(3, 2, [1.0, 1.0, 1.0], [1.0, 0.0, 0.0], "ties, vertex weights")
    add(3, 2, [1e-12, 2e-12, 0.0], [0.2, 0.3, 0.5], "tiny losses")
    for _ in range(ctx.count(40, 400)):
        n, d = int(rng.integers(1, 8)), int(rng.integers(1, 5))
        F = rng.uniform(0, 5, size=n) * 10.0 ** rng.integers(-2, 3)
        add(n, d, F, rng.dirichlet(np.ones(n) * 0.5), "random", lr=float(rng.choice([0.01, 0.1, 1.0])),
            lr_lam=float(rng.choice([0.01, 0.1, 1.0])), t=int(rng.integers(1, 10)))
    tally, worst_ref = Tally(), 0.0
    with float64_torch():
        for c in cases:
            ours = afl_update(c["w"], c["W"], c["F"], c["lam"], c["lr"], c["lr_lam"], c["t"], c["w_avg"])
            worst_ref = max(worst_ref, check_projection("AFL weights", ours[1], CappedSimplex.simplex(c["F"].size),
                                                        c["lam"] + c["lr_lam"] * c["F"], c["kind"]))
            peer = attempt(lambda c=c: prepare_flgo_afl(c["w"], c["W"], c["F"], lam=c["lam"], lr=c["lr"],
                                                        lr_lam=c["lr_lam"], t=c["t"], w_avg=c["w_avg"])())
            n, d = c["W"].shape
            inst = {"kind": c["kind"], "F": lst(c["F"]), "lam": lst(c["lam"]), "lr": c["lr"], "lr_lam": c["lr_lam"],
                    "t": c["t"], "d": d}
            got = peer if isinstance(peer, BaseException) else np.concatenate(peer)
            vec_equal(tally, got, np.concatenate(ours), rtol=1e-9, instance=inst, size=n * d)
    return tally.outcome(note=f"{note('flgo')}; {_FLGO_FP64}; FLGo averages the models w_0..w_t (t = 1-based round)",
                         details={"reference_vs_qp": worst_ref},
                         explain="measured = FLGo's (w+, lam+, average+) component of largest deviation, bound = "
                                 "the exact step; an exception counts as nan")


# ============================================================================ FedMGDA+
@claim("peers.flgo.fedmgda", citation="FLGo 0.4.4 algorithm/fedmgda.py; Hu et al. (2022) Alg. 1",
       statement="FLGo's FedMGDA+ Server.aggregate reaches the min-norm value ||sum lam_i u_i||^2 over the "
                 "epsilon-box of the simplex (u_i = g_i/(||g_i|| + 1e-8)) within 1e-6 (values <= 1; cvxopt's "
                 "default tolerances are 1e-7 absolute, 1e-6 relative), and its direction d lies within "
                 "1e-3 = sqrt(1e-6) of the exact min-norm direction d* (for a feasible d, "
                 "||d - d*||^2 <= ||d||^2 - ||d*||^2)")
@needs("flgo")
def flgo_fedmgda_claim(ctx: Context) -> Outcome:
    """FLGo's FedMGDA+ (a cvxopt QP) vs the Gram active set and the cvxpy QP in ``R^d``.

    Two parts: the squared norm of FLGo's direction ``(w - w+)/eta`` against the exact minimum, and the
    direction itself against the exact min-norm direction (a sign flip, or another point of the same
    norm, fails it; the tolerance is the square root of cvxopt's objective tolerance)."""
    rng = ctx.rng("peers.flgo.fedmgda")
    cases: list[dict[str, Any]] = []

    def add(U: np.ndarray, sizes: Any, eps: float, kind: str, eta: float = 1.0) -> None:
        cases.append({"kind": kind, "w": np.zeros(U.shape[1]), "U": U, "sizes": np.asarray(sizes), "epsilon": eps,
                      "eta": eta})

    add(np.zeros((1, 1)), [1], 0.1, "zero update")
    add(np.zeros((3, 2)), [1, 2, 3], 0.1, "zero updates")
    add(np.array([[1.0, 0.0], [-1.0, 0.0]]), [1, 1], 1.0, "opposite updates")
    add(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), [2, 2, 2], 0.05, "duplicate updates")
    add(1e-12 * rng.normal(size=(4, 3)), [1, 2, 3, 4], 0.1, "tiny (the 1e-8 offset dominates)")
    add(1e12 * rng.normal(size=(4, 3)), [1, 2, 3, 4], 0.1, "huge")
    for eps in (0.0, 0.01, 0.05, 0.1, 0.5, 1.0):
        add(rng.normal(size=(5, 3)), rng.integers(1, 10, size=5), eps, f"epsilon = {eps:g}")
    for _ in range(ctx.count(25, 250)):
        m, d = int(rng.integers(1, 8)), int(rng.integers(1, 6))
        add(rng.normal(size=(m, d)) + rng.normal(size=d) * rng.uniform(0, 2), rng.integers(1, 50, size=m),
            float(rng.choice([0.0, 0.01, 0.05, 0.1, 0.5, 1.0])), "random", eta=float(rng.choice([0.1, 1.0])))
    value, direction = Tally(), Tally()
    worst_ref, worst_ref_dir = 0.0, 0.0
    with float64_torch():
        for c in cases:
            lam0 = c["sizes"] / c["sizes"].sum()
            d_ours, v_ours = fedmgda_direction(c["U"], lam0, c["epsilon"], 1e-8)
            d_qp, v_qp = fedmgda_direction(c["U"], lam0, c["epsilon"], 1e-8, exact=True)
            worst_ref = max(worst_ref, check_reference("FedMGDA+ min-norm value", v_ours, v_qp, 1e-9, c["kind"]))
            # the QP's direction is within sqrt(its objective tolerance 1e-10) of the exact one
            worst_ref_dir = max(worst_ref_dir, check_reference("FedMGDA+ direction", d_ours, d_qp, 1e-4, c["kind"]))
            peer = attempt(lambda c=c: prepare_flgo_fedmgda(c["w"], c["w"][None, :] - c["U"], sizes=c["sizes"],
                                                            epsilon=c["epsilon"], eta=c["eta"])())
            m, d = c["U"].shape
            inst = {"kind": c["kind"], "U": lst(c["U"]), "sizes": [int(s) for s in c["sizes"]], "epsilon": c["epsilon"],
                    "eta": c["eta"]}
            d_peer = peer if isinstance(peer, BaseException) else (c["w"] - peer) / c["eta"]
            fedmgda_compare(value, direction, d_peer, d_ours, v_ours, instance=inst, size=m * d)
    return combine_parts({"||d||^2": value, "direction": direction},
                         explain={"||d||^2": "measured = ||FLGo direction||^2, bound = exact min over the epsilon-box "
                                             "of ||sum lam_i u_i||^2 (Gram active set, checked against the R^d QP)",
                                  "direction": "measured = ||FLGo direction - exact min-norm direction||, "
                                               "bound = 1e-3 = sqrt(1e-6)"},
                         note=f"{note('flgo')}; {_FLGO_FP64}; lam0 = n_k / sum n_k; offset 1e-8 in the "
                              "normalisation; cvxopt default tolerances",
                         details={"reference_vs_qp": worst_ref, "reference_direction_vs_qp": worst_ref_dir})


# ============================================================================ FedFa
#: FLGo 0.4.4 fedfa.py: ``-log2(acc/sum + 1e-6)`` and ``-log2(1 - f/sum + 1e-5)``
FLGO_EPS = (1e-6, 1e-5)


def flgo_fedfa_weights(acc: Any, freq: Any, *, beta: float = 0.5) -> np.ndarray:
    """FLGo's FedFa ``Server.iterate`` on one round whose client ``i`` sends the one-hot model ``e_i``, with
    accuracy ``acc[i]`` and participation count ``freq[i]``; the server momentum is off (``eta = 0``), so
    the new model is ``sum_i p_i e_i = p``: FLGo's aggregation weights.  Call inside :func:`float64_torch`."""
    import flgo.algorithm.fedfa as ffa

    m = len(acc)
    S = flgo_server(ffa, np.zeros(m), beta=beta, alpha=1.0 - beta, gamma=0.9, eta=0.0)
    S.m = flgo_model(np.zeros(m))
    flgo_feed(S, list(range(m)), {"model": [flgo_model(e) for e in np.eye(m)], "loss": [0.0] * m,
                                  "acc": [float(a) for a in acc], "freq": [int(f) for f in freq]})
    S.iterate()
    return flgo_value(S.model)


@claim("peers.flgo.fedfa", citation="FLGo 0.4.4 algorithm/fedfa.py; Huang et al. (2020) FedFa",
       statement="FLGo's FedFa Server.iterate aggregates with p_i = (1-beta) a_i/sum a + beta b_i/sum b, a_i = "
                 "-log2(ACC_i/sum ACC + 1e-6), b_i = -log2(1 - f_i/sum f + 1e-5) (FLGo's constants), rtol 1e-9",
       expected="refuted")
@needs("flgo")
def flgo_fedfa_claim(ctx: Context) -> Outcome:
    """FLGo's weights vs :func:`fairtheory.algorithms.fedfa.weights` (with FLGo's constants); the detail
    ``flgo_vs_paper_rule`` is the largest deviation from the paper's rule (constants ``0``)."""
    from fairtheory.algorithms.fedfa import weights

    rng = ctx.rng("peers.flgo.fedfa")
    cases: list[tuple[np.ndarray, np.ndarray, float, str]] = [
        (np.array([0.0]), np.array([1]), 0.5, "one client, accuracy 0"),
        (np.array([0.0, 0.0]), np.array([1, 3]), 0.5, "all accuracies 0"),
        (np.array([0.5]), np.array([1]), 0.5, "one client"),
        (np.array([0.0, 0.8]), np.array([2, 2]), 0.5, "one accuracy 0"),
        (np.array([0.3, 0.3, 0.3]), np.array([1, 1, 1]), 0.5, "ties"),
        (np.array([1.0, 1e-9]), np.array([1, 100]), 0.2, "extreme shares"),
    ]
    for _ in range(ctx.count(40, 400)):
        m = int(rng.integers(1, 9))
        cases.append((rng.uniform(0.05, 1.0, size=m), rng.integers(1, 20, size=m), float(rng.choice([0.0, 0.3, 0.5, 1.0])),
                      "random"))
    tally, worst_paper, agree = Tally(), 0.0, 0.0
    with float64_torch():
        for acc, freq, beta, kind in cases:
            ours = weights(acc, freq, beta=beta, eps_acc=FLGO_EPS[0], eps_freq=FLGO_EPS[1])
            if np.all(acc > 0) and acc.size > 1:
                worst_paper = max(worst_paper, float(np.max(np.abs(weights(acc, freq, beta=beta) - ours))))
            peer = attempt(lambda acc=acc, freq=freq, beta=beta: flgo_fedfa_weights(acc, freq, beta=beta))
            inst = {"kind": kind, "acc": lst(acc), "freq": [int(f) for f in freq], "beta": beta}
            # weights lie in [0, 1]: deviations relative to 1 (floor); an exception, a wrong shape or nan disagrees
            vec_equal(tally, peer, ours, rtol=1e-9, instance=inst, size=acc.size, floor=1.0)
            if not isinstance(peer, BaseException) and np.shape(peer) == ours.shape and np.all(np.isfinite(peer)):
                agree = max(agree, float(np.max(np.abs(peer - ours))))
    return tally.outcome(note=f"{note('flgo')}; server momentum off (eta = 0), one-hot client models: FLGo's new model "
                              "is its weight vector; FLGo's constants 1e-6, 1e-5 inside the logarithms mapped",
                         details={"flgo_vs_paper_rule": worst_paper, "largest_deviation_where_finite": agree},
                         explain="measured = FLGo's weight of largest deviation, bound = fairtheory.algorithms.fedfa."
                                 "weights with FLGo's constants; a NaN weight fails")


# ============================================================================ Ditto
def _flgo_ditto_client(H: np.ndarray, c: np.ndarray, *, lr: float, mu: float, steps: int) -> Any:
    """An FLGo Ditto ``Client`` whose loss, through a ``BasicTaskCalculator``, is ``0.5 (v - c)^T H (v - c)``."""
    import flgo.algorithm.ditto as fd
    import torch
    from flgo.benchmark.base import BasicTaskCalculator

    Ht, ct = torch.as_tensor(H, dtype=torch.float64), torch.as_tensor(c, dtype=torch.float64)

    class Quadratic(BasicTaskCalculator):
        def compute_loss(self, model: Any, data: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
            r = model.w - ct
            return {"loss": 0.5 * r @ (Ht @ r)}

    C = object.__new__(fd.Client)
    C.model, C.mu, C.num_steps, C.learning_rate = None, mu, steps, lr
    C.weight_decay, C.momentum, C.clip_grad, C.device = 0.0, 0.0, 0.0, torch.device("cpu")
    C.calculator = Quadratic(torch.device("cpu"), "SGD")
    C.get_batch_data = lambda: None
    return C


def flgo_ditto_train(H: np.ndarray, c: np.ndarray, rounds: list[np.ndarray], *, lr: float, mu: float,
                     steps: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """FLGo's Ditto ``Client.train`` of one quadratic client, once per global model in ``rounds``: returns
    ``(global solver's local model, personal model)`` after each.  Call inside :func:`float64_torch`."""
    C = _flgo_ditto_client(H, c, lr=lr, mu=mu, steps=steps)
    out = []
    for w in rounds:
        mdl = flgo_model(np.asarray(w, dtype=np.float64))
        C.train(mdl)
        out.append((flgo_value(mdl), flgo_value(C.model)))
    return out


def flgo_ditto_checkpoint(v: np.ndarray) -> np.ndarray:
    """FLGo's Ditto ``Server.save_checkpoint`` state of one client's personal model ``v``, loaded back with
    ``Server.load_checkpoint`` into a fresh client: returns the restored personal model."""
    import flgo.algorithm.ditto as fd

    cpt = {"cmodels": [flgo_model(np.asarray(v, dtype=np.float64)).state_dict()]}
    S = flgo_server(fd, np.zeros(len(v)), option={}, gv=types.SimpleNamespace(simulator=None),
                    clients=[object.__new__(fd.Client)])
    S.load_checkpoint(cpt)
    return flgo_value(S.clients[0].model)


@claim("peers.flgo.ditto", citation="FLGo 0.4.4 algorithm/ditto.py; Li et al. (2021) Ditto Alg. 1",
       statement="FLGo's Ditto Client.train runs the global solver's SGD on F_k and the personal solver's SGD on "
                 "F_k(v) + mu/2 ||v - w||^2 (rtol 1e-9 over two rounds), its personal model approaches the exact "
                 "personalised optimum within the contraction bound, and a checkpoint restores the personal models",
       expected="refuted")
@needs("flgo")
def flgo_ditto_claim(ctx: Context) -> Outcome:
    """Parts: the two solvers vs fairtheory over two rounds; the distance to the exact optimum
    ``(H + mu I)^{-1}(H c + mu w)`` (:func:`fairtheory.algorithms.ditto.personal_optimum_exact`) within
    ``rho^S ||v_0 - v*||``, ``rho = max |1 - lr (mu + eig H)|``; the checkpoint round trip of
    ``Server.save_checkpoint``'s ``cmodels``."""
    from fairtheory.algorithms.base import local_steps
    from fairtheory.algorithms.ditto import personal_optimum_exact, personal_steps
    from fairtheory.problems.quadratic import QuadraticProblem

    rng = ctx.rng("peers.flgo.ditto")
    parts = {"solvers vs fairtheory (two rounds)": Tally(), "personal model vs exact optimum": Tally(),
             "checkpoint round trip": Tally()}
    worst_exact = 0.0
    with float64_torch():
        for k in range(ctx.count(12, 80)):
            d = int(rng.integers(1, 5))
            A = rng.normal(size=(d, d))
            H = A @ A.T / d + float(rng.choice([0.0, 0.5])) * np.eye(d)
            c = rng.normal(size=d)
            lr, mu, steps = float(rng.choice([0.05, 0.1])), float(rng.choice([0.1, 1.0, 5.0])), int(rng.integers(1, 6))
            eig = np.linalg.eigvalsh(H)
            if lr * (mu + float(eig.max())) >= 1.9:
                lr = 0.5 / (mu + float(eig.max()))
            P = QuadraticProblem(H[None], c[None])
            w1, w2 = rng.normal(size=d), rng.normal(size=d)
            inst = {"d": d, "H": lst(H), "c": lst(c), "lr": lr, "mu": mu, "steps": steps, "w": [lst(w1), lst(w2)]}
            peer = attempt(lambda H=H, c=c, w1=w1, w2=w2, lr=lr, mu=mu, steps=steps:
                           flgo_ditto_train(H, c, [w1, w2], lr=lr, mu=mu, steps=steps))
            g1 = local_steps(P, w1[None], lr=lr, kappa=steps).W[0]
            v1 = personal_steps(P, w1[None], w1, lr=lr, lam=mu, steps=steps)[0]
            g2 = local_steps(P, w2[None], lr=lr, kappa=steps).W[0]
            v2 = personal_steps(P, v1[None], w2, lr=lr, lam=mu, steps=steps)[0]
            ours = np.concatenate([g1, v1, g2, v2])
            got = peer if isinstance(peer, BaseException) else np.concatenate([x for pair in peer for x in pair])
            vec_equal(parts["solvers vs fairtheory (two rounds)"], got, ours, rtol=1e-9, instance=inst, size=d)
            # many personal steps: the contraction bound to the exact optimum
            if k % 4 == 0:  # step 1/(mu + lambda_max): rate rho = 1 - (mu + lambda_min)/(mu + lambda_max)
                lr_long = 1.0 / (mu + float(eig.max()))
                rho = float(np.max(np.abs(1.0 - lr_long * (mu + eig))))
                S = int(min(400, max(20, math.ceil(-36.0 / math.log(rho))))) if rho > 0 else 1
                vstar = np.array([float(t) for t in personal_optimum_exact(P, w1, mu)[0]])
                far = attempt(lambda H=H, c=c, w1=w1, lr=lr_long, mu=mu, S=S:
                              flgo_ditto_train(H, c, [w1], lr=lr, mu=mu, steps=S)[0][1])
                bound = rho ** S * float(np.linalg.norm(w1 - vstar)) + 1e-12 * max(1.0, float(np.max(np.abs(vstar))))
                dist = math.nan if isinstance(far, BaseException) else float(np.linalg.norm(far - vstar))
                worst_exact = max(worst_exact, dist)
                parts["personal model vs exact optimum"].upper(dist, bound, instance={**inst, "steps": S}, size=d)
        for d in (1, 2, 3):
            v = rng.normal(size=d)
            got = attempt(lambda v=v: flgo_ditto_checkpoint(v))
            vec_equal(parts["checkpoint round trip"], got, v, rtol=0.0, instance={"d": d, "v": lst(v)}, size=d)
    return combine_parts(parts, explain="solvers: component of largest deviation from fairtheory's local/personal steps; "
                                        "optimum: ||v_S - v*|| <= rho^S ||v_0 - v*||; checkpoint: the restored personal "
                                        "model (an exception counts as nan)",
                         note=f"{note('flgo')}; quadratic clients through an FLGo BasicTaskCalculator, full-batch SGD "
                              "(momentum 0, weight decay 0)",
                         details={"personal_vs_exact_optimum": worst_exact})


# ============================================================================ power-of-choice
def flgo_powerofchoice_sample(losses: Any, sizes: Any, *, d: int, m: int, seed: int,
                              available: Any = None) -> tuple[list[int], list[int]]:
    """FLGo's power-of-choice ``Server.sample`` (``numpy.random.seed(seed)`` first) over clients with training
    losses ``losses`` and data sizes ``sizes``: returns ``(candidates, selected)``, the candidates being the
    clients FLGo asked for their loss (in the order asked)."""
    import flgo.algorithm.powerofchoice as fp

    asked: list[int] = []

    def client(k: int) -> Any:
        def test(model: Any, flag: str = "train") -> dict[str, float]:
            asked.append(k)
            return {"loss": float(losses[k])}

        idle = available is None or k in [int(a) for a in available]
        return types.SimpleNamespace(train_data=[0] * int(sizes[k]), test=test, is_idle=lambda: idle)

    n = len(losses)
    S = flgo_server(fp, np.zeros(1), d=d, clients_per_round=m, num_clients=n, clients=[client(k) for k in range(n)])
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        sel = S.sample()
    finally:
        np.random.set_state(state)
    return asked, [int(s) for s in sel]


@claim("peers.flgo.powerofchoice", citation="FLGo 0.4.4 algorithm/powerofchoice.py; Cho, Wang, Joshi (2022) Alg. 1",
       statement="FLGo's power-of-choice Server.sample returns the m candidates of highest loss from its candidate "
                 "set of d clients (drawn without replacement by the data fractions)",
       expected="refuted")
@needs("flgo")
def flgo_powerofchoice_claim(ctx: Context) -> Outcome:
    """Checked against :func:`fairtheory.algorithms.power_of_choice.is_valid_selection` (any tie order)."""
    from fairtheory.algorithms.power_of_choice import is_valid_selection, select

    rng = ctx.rng("peers.flgo.powerofchoice")
    cases: list[tuple[np.ndarray, np.ndarray, int, int]] = [(np.array([0.0, 1.0]), np.array([1, 1]), 1, 1)]
    for _ in range(ctx.count(60, 500)):
        n = int(rng.integers(1, 9))
        d = int(rng.integers(1, n + 1))
        m = int(rng.integers(1, d + 1))
        losses = rng.uniform(size=n) if rng.uniform() < 0.8 else rng.integers(0, 3, size=n).astype(float)
        cases.append((losses, rng.integers(1, 20, size=n), d, m))
    tally = Tally()
    for i, (losses, sizes, d, m) in enumerate(cases):
        for seed in range(8) if i == 0 else [int(rng.integers(2**31))]:
            res = attempt(lambda losses=losses, sizes=sizes, d=d, m=m, seed=seed:
                          flgo_powerofchoice_sample(losses, sizes, d=d, m=m, seed=seed))
            inst = {"losses": lst(losses), "sizes": [int(s) for s in sizes], "d": d, "m": m, "seed": seed}
            if isinstance(res, BaseException):
                vec_equal(tally, res, 1.0, rtol=0.0, instance=inst, size=len(losses))
                continue
            asked, sel = res
            ok = len(asked) == min(d, len(losses)) and len(set(asked)) == len(asked) and \
                is_valid_selection(sel, asked, losses[asked], m)
            inst.update(candidates=sorted(asked), selected=sel,
                        rule=[int(k) for k in select(sorted(asked), losses[sorted(asked)], m)])
            tally.equal(1.0 if ok else 0.0, 1.0, rtol=0.0, instance=inst, size=len(losses) + d / 10)
    return tally.outcome(note=f"{note('flgo')}; the candidate set is the set of clients FLGo's sample() asks for their "
                              "loss; ties in the loss may be broken in any order",
                         explain="measured = 1 if FLGo's selection is m distinct candidates none of which has a "
                                 "smaller loss than an unselected candidate, else 0; bound = 1")
