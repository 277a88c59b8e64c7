r"""Peer audit: the fair-FL libraries people use, checked against exact ground truth.

Each claim ``peers.<library>.<function>`` calls the peer's own code in-process on the same inputs
as fairtheory's reference and an independent definition (an LP/QP or a direct formula), with the
conventions mapped explicitly (docs/peers.md lists them per library):

* ``peers.sqwash.superquantile`` / ``superquantile_smooth``: ``sqwash.reduce_superquantile`` and
  ``reduce_superquantile_smooth`` vs the capped-simplex support / projection (Rockafellar-Uryasev
  superquantile) and the HiGHS LP / Clarabel QP;
* ``peers.flgo.fedfv``, ``qfedavg``, ``afl``, ``fedmgda``: FLGo's ``Server.iterate`` /
  ``Server.aggregate`` (and ``Client.pack`` where the client computes the server's inputs) on
  minimal FLGo server objects holding one-parameter-vector models, under ``torch`` default dtype
  float64;
* ``peers.flwr.qfedavg`` (``flwr.serverapp.strategy.QFedAvg.aggregate_train``, Message API) and
  ``peers.flwr.qfedavg_legacy`` (``flwr.server.strategy.QFedAvg.aggregate_fit``);
* ``peers.fedlab.qfedavg``: ``qFedAvgClientTrainer.train`` + ``qFedAvgServerHandler.global_update``.

A peer that is not importable gives ``skipped`` with its install command.  A claim whose peer
shows a genuine defect is recorded ``expected="refuted"`` with the smallest counterexample;
``tests/test_peers.py`` asserts each one still reproduces when the peer is installed.

The ``prepare_*`` functions build the peer's inputs (server objects, messages, client packages)
and return a zero-argument function that runs only the peer's server-side code; the benchmark
(``benchmarks/bench_peers.py``) times that function alone.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import logging
import math
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from verify.core import Context, Outcome, Tally, claim, combine

__all__ = ["PEERS", "peer_version", "require", "vec_equal", "superquantile", "superquantile_smooth", "qffl_update",
           "afl_update", "afl_qp_radius", "fedfv_direction", "fedmgda_direction", "sqwash_superquantile",
           "sqwash_superquantile_smooth",
           "prepare_flgo_fedfv", "prepare_flgo_qfedavg", "prepare_flgo_afl", "prepare_flgo_fedmgda",
           "prepare_flgo_fedmgda_lambda",
           "prepare_flwr_qfedavg", "prepare_flwr_qfedavg_legacy", "prepare_fedlab_qfedavg", "float64_torch",
           "local_sgd", "KEEP_COUNT_CASE", "fedmgda_compare", "FEDMGDA_VALUE_TOL", "FEDMGDA_DIRECTION_TOL",
           "flwr_reply_timing"]


# ============================================================================ peers and their installs
@dataclass(frozen=True)
class Peer:
    dist: str      # distribution name on PyPI
    module: str    # a module whose import proves the peer usable
    tested: str    # the version audited
    install: str   # how to install it next to the CPU torch of this project


_FLGO_DEPS = "tqdm prettytable ujson nvidia-ml-py pyyaml requests toolz cvxopt"
PEERS: dict[str, Peer] = {
    "sqwash": Peer("sqwash", "sqwash", "0.1.0", "pip install sqwash==0.1.0"),
    "flgo": Peer("flgo", "flgo.algorithm.fedbase", "0.4.4",
                 f"pip install --no-deps flgo==0.4.4 && pip install {_FLGO_DEPS}"),
    "flwr": Peer("flwr", "flwr.serverapp.strategy", "1.41.0", "pip install flwr==1.41.0"),
    "fedlab": Peer("fedlab", "fedlab", "1.3.0",
                   "pip install --no-deps fedlab==1.3.0 && pip install munch tqdm nvidia-ml-py"),
}


def _import_fedlab_qfedavg() -> Any:
    """``fedlab.contrib.algorithm.qfedavg``.  FedLab's client package imports its dataset modules, which
    import torchvision at module level; no torchvision wheel on PyPI loads next to the CPU torch here
    (``operator torchvision::nms does not exist``), so when torchvision is absent empty stand-in modules
    are registered for the import only and removed afterwards (no audited code touches them)."""
    try:
        import torchvision  # noqa: F401
        stubs: list[str] = []
    except Exception:
        stubs = [n for n in ("torchvision", "torchvision.transforms", "torchvision.datasets") if n not in sys.modules]
        for n in stubs:
            sys.modules[n] = types.ModuleType(n)
        if "torchvision" in stubs:
            sys.modules["torchvision"].transforms = sys.modules["torchvision.transforms"]  # type: ignore[attr-defined]
            sys.modules["torchvision"].datasets = sys.modules["torchvision.datasets"]  # type: ignore[attr-defined]
    try:
        return importlib.import_module("fedlab.contrib.algorithm.qfedavg")
    finally:
        for n in stubs:
            sys.modules.pop(n, None)


@cache
def peer_version(lib: str) -> str | None:
    """The installed version of peer ``lib`` if it imports, else ``None``."""
    peer = PEERS[lib]
    try:
        if lib == "fedlab":
            _import_fedlab_qfedavg()
        else:
            importlib.import_module(peer.module)
        return importlib.metadata.version(peer.dist)
    except Exception:
        return None


def require(lib: str) -> Any:
    """Import and return the peer's top module; raises ``ImportError`` naming the install command."""
    if peer_version(lib) is None:
        raise ImportError(f"{lib} is not installed (or does not import): {PEERS[lib].install}")
    return importlib.import_module(lib)


def _skipped(lib: str) -> Outcome:
    return Outcome("skipped", note=f"{lib} is not installed: {PEERS[lib].install}")


def _note(lib: str) -> str:
    v = peer_version(lib)
    tested = PEERS[lib].tested
    return f"{lib} {v}" + ("" if v == tested else f" (audited version: {tested})")


@contextlib.contextmanager
def float64_torch() -> Iterator[None]:
    """torch's default dtype float64 inside the block (FLGo accumulates dot products and norms in it)."""
    import torch

    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def _err(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


# ============================================================================ references (fairtheory + independent)
def superquantile(x: Any, theta: float) -> float:
    r"""Superquantile (CVaR) of the empirical distribution of ``x`` at tail fraction ``theta``:
    ``max {q . x : 0 <= q_i <= 1/(theta n), sum q = 1}`` (``theta = 0``: ``max x``), via
    :meth:`fairtheory.sets.CappedSimplex.support`."""
    from fairtheory.sets import CappedSimplex

    v = np.asarray(x, dtype=np.float64)
    caps = np.ones(v.size) if theta <= 0 else np.full(v.size, 1.0 / (theta * v.size))
    return CappedSimplex(caps).support(v)


def _superquantile_lp(x: np.ndarray, theta: float) -> float:
    from fairtheory.exact.capped import support_lp
    from fairtheory.sets import CappedSimplex

    caps = np.ones(x.size) if theta <= 0 else np.full(x.size, 1.0 / (theta * x.size))
    return support_lp(CappedSimplex(caps), x).value


def superquantile_smooth(x: Any, theta: float, nu: float, *, exact: bool = False) -> float:
    r"""L2-smoothed superquantile ``max_{q in C} q . x - nu/(2n) ||q - 1/n||^2`` over the capped simplex
    ``C`` (caps ``1/(theta n)``): ``q* = Proj_C(1/n + n x / nu)`` (closed-form projection; ``exact=True``
    uses the certified Clarabel projection QP instead)."""
    from fairtheory.exact.capped import project_qp
    from fairtheory.sets import CappedSimplex

    v = np.asarray(x, dtype=np.float64)
    n = v.size
    caps = np.ones(n) if theta <= 0 else np.full(n, 1.0 / (theta * n))
    S = CappedSimplex(caps)
    target = 1.0 / n + n * v / nu
    q = project_qp(S, target).weights if exact else S.project(target)
    return float(q @ v - nu / (2 * n) * np.sum((q - 1.0 / n) ** 2))


def qffl_update(w: Any, W: Any, F: Any, q: float, lr: float, offset: float) -> np.ndarray:
    r"""q-FedAvg's server step (003 Alg. 2, camera-ready scaling ``L = 1/lr``) from the aggregator
    :class:`fairtheory.aggregators.QFFL`: ``Delta_k = L (w - w_k)``,
    ``w+ = w - sum_k (F_k+o)^q Delta_k / sum_k [q (F_k+o)^{q-1} ||Delta_k||^2 + L (F_k+o)^q]``."""
    from fairtheory.aggregators import QFFL

    w, W, F = (np.asarray(a, dtype=np.float64) for a in (w, W, F))
    m = F.size
    agg = QFFL(np.full(m, 1.0 / m), q, offset)
    L = 1.0 / lr
    D = L * (w[None, :] - W)
    c = agg.client_grads(F, None)[0]
    h = agg.client_curvature(F) * np.sum(D * D, axis=1) + L * c
    return w - (c @ D) / np.sum(h)


def _qffl_direct(w: np.ndarray, W: np.ndarray, F: np.ndarray, q: float, lr: float, offset: float) -> np.ndarray:
    """The same step written per device as in 003 Alg. 2 (independent of the aggregator code)."""
    L = 1.0 / lr
    num = np.zeros_like(w)
    den = 0.0
    for k in range(F.size):
        dk = L * (w - W[k])
        fk = float(F[k]) + offset
        num += math.pow(fk, q) * dk
        den += q * math.pow(fk, q - 1.0) * float(dk @ dk) + L * math.pow(fk, q)
    return w - num / den


def afl_update(w: Any, W: Any, F: Any, lam: Any, lr: float, lr_lam: float, t: int, w_avg: Any,
               *, exact: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Stochastic-AFL's server step with FLGo's conventions: ``w+ = w - lr sum_i lam_i (w - w_i)/lr``,
    ``lam+ = Proj_simplex(lam + lr_lam F)`` (:meth:`CappedSimplex.project`; ``exact=True``: the
    certified QP), running average of the models ``(t w_avg + w+)/(t + 1)`` (``t`` = 1-based round)."""
    from fairtheory.exact.capped import project_qp
    from fairtheory.sets import CappedSimplex

    w, W, F, lam, w_avg = (np.asarray(a, dtype=np.float64) for a in (w, W, F, lam, w_avg))
    G = (w[None, :] - W) / lr
    w_new = w - lr * (lam @ G)
    S = CappedSimplex.simplex(F.size)
    v = lam + lr_lam * F
    lam_new = project_qp(S, v).weights if exact else S.project(v)
    return w_new, lam_new, (t * w_avg + w_new) / (t + 1)


def afl_qp_radius(F: Any, lam: Any, lr_lam: float) -> tuple[np.ndarray, float]:
    """The certified projection QP of ``lam + lr_lam F`` onto the simplex and its accuracy radius
    ``sqrt(2 gap)`` (1-strong convexity: the exact projection lies within it)."""
    from fairtheory.exact.capped import project_qp
    from fairtheory.sets import CappedSimplex

    v = np.asarray(lam, dtype=np.float64) + lr_lam * np.asarray(F, dtype=np.float64)
    qp = project_qp(CappedSimplex.simplex(v.size), v)
    return qp.weights, float(np.sqrt(2.0 * max(qp.certificate["gap"], 0.0)))


def _keep(m: int, alpha: float) -> int:
    """FLGo's keep count ``m - ceil((m - 1)(1 - alpha))`` (``alpha > 0``) evaluated exactly in rationals."""
    from fractions import Fraction

    if alpha <= 0:
        return 0
    return m - math.ceil((m - 1) * (1 - Fraction(str(alpha))))


def fedfv_direction(U: Any, losses: Any, *, alpha: float, tau: int, t: int, history: Any, history_round: Any,
                    clients: Any, independent: bool = False) -> np.ndarray:
    r"""FedFV's server direction (004 Alg. 1-3) with FLGo's conventions: keep rule ``m - ceil((m-1)(1-alpha))``
    (exact arithmetic), history window ``t - tau + 1 .. t`` (the current round included), the clients'
    current updates written to the history first.  ``independent=False``:
    :func:`fairtheory.algorithms.fedfv_aggregate.aggregate` (Gram-matrix route); ``True``: a per-vector
    loop written here."""
    U = np.asarray(U, dtype=np.float64)
    loss = np.asarray(losses, dtype=np.float64)
    H = np.array(history, dtype=np.float64, copy=True)
    R = np.array(history_round, dtype=np.int64, copy=True)
    idx = np.asarray(clients, dtype=np.int64)
    H[idx], R[idx] = U, t
    if not independent:
        from fairtheory.algorithms.fedfv_aggregate import aggregate

        return np.asarray(aggregate(U, loss, alpha=alpha, tau=tau, t=t, history=H, history_round=R,
                                    keep_rule="reference", window="reference"), dtype=np.float64)
    m = U.shape[0]
    order = sorted(range(m), key=lambda i: loss[i])
    kept = set(order[m - _keep(m, alpha):]) if _keep(m, alpha) else set()
    P = U.copy()
    for i in range(m):
        if i in kept:
            continue
        for j in order:
            if j != i:
                dot = float(U[j] @ P[i])
                if dot < 0:
                    P[i] = P[i] - U[j] * dot / float(U[j] @ U[j])
    g = P.mean(axis=0)
    if tau > 0 and t >= tau:
        for k in range(tau - 1, -1, -1):
            con = [H[c] for c in range(H.shape[0]) if R[c] == t - k and float(g @ H[c]) < 0]
            if con:
                gc = np.sum(con, axis=0)
                dot = float(g @ gc)
                if dot < 0:
                    g = g - gc * dot / float(gc @ gc)
    gn, target = float(np.linalg.norm(g)), float(np.linalg.norm(U.mean(axis=0)))
    # ||mean|| = 0: every reading of Alg. 1 line 10 is a zero step.  ||g|| = 0 (projections that cancel
    # exactly; in floating point a residue at rounding level of the updates) leaves the direction
    # undefined: no move, as fairtheory does, rather than a full step along rounding noise.
    if target == 0.0 or gn <= 64 * np.finfo(np.float64).eps * float(np.max(np.linalg.norm(U, axis=1))):
        return np.zeros_like(g)
    return g / gn * target


def fedmgda_direction(U: Any, lam0: Any, epsilon: float, offset: float, *, exact: bool = False) -> tuple[np.ndarray, float]:
    r"""FedMGDA+'s server direction ``d = sum_i lam_i u_i`` and ``||d||^2``, ``u_i = g_i/(||g_i|| + offset)``,
    ``lam`` the min-norm weights in the box ``|lam - lam0| <= epsilon`` of the simplex:
    :func:`fairtheory.algorithms.fedmgda.aggregate` (Gram active set) or, with ``exact=True``, the cvxpy
    QP in ``R^d`` (Clarabel, tolerances ``1e-12``)."""
    from fairtheory.algorithms.fedmgda import aggregate, normalise
    from fairtheory.exact.min_norm import fedmgda_box

    U = np.asarray(U, dtype=np.float64)
    if not exact:
        d, _ = aggregate(U, lam0, epsilon=epsilon, offset=offset)
        return d, float(d @ d)
    import cvxpy as cp

    Un = normalise(U, offset)
    lo, hi = fedmgda_box(lam0, epsilon)
    lam = cp.Variable(U.shape[0])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(Un.T @ lam)), [cp.sum(lam) == 1, lam >= lo, lam <= hi])
    from fairtheory.exact.result import solve_checked

    solve_checked(prob, "FedMGDA+ min-norm QP", "CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    lv = np.clip(np.asarray(lam.value, dtype=np.float64), lo, hi)
    d = lv @ Un
    return d, float(prob.value)


# ============================================================================ peer adapters
def sqwash_superquantile(x: Any, theta: float) -> float:
    """``sqwash.reduce_superquantile`` on a float64 tensor of ``x``."""
    import torch
    from sqwash import reduce_superquantile

    return float(reduce_superquantile(torch.as_tensor(np.asarray(x, dtype=np.float64)), theta))


def sqwash_superquantile_smooth(x: Any, theta: float, nu: float) -> float:
    """``sqwash.reduce_superquantile_smooth`` on a float64 tensor of ``x``."""
    import torch
    from sqwash import reduce_superquantile_smooth

    return float(reduce_superquantile_smooth(torch.as_tensor(np.asarray(x, dtype=np.float64)), theta, nu))


@cache
def _flgo_vector_model(d: int) -> type:
    """An FLGo ``FModule`` holding one parameter vector of length ``d`` (FLGo rebuilds models by class)."""
    import torch
    from flgo.utils.fmodule import FModule

    class Vector(FModule):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(d))

    Vector.__name__ = Vector.__qualname__ = f"Vector{d}"
    return Vector


def _flgo_model(x: np.ndarray) -> Any:
    import torch

    mdl = _flgo_vector_model(int(x.size))()
    with torch.no_grad():
        mdl.w.copy_(torch.as_tensor(x, dtype=mdl.w.dtype))
    return mdl


def _flgo_value(mdl: Any) -> np.ndarray:
    return mdl.w.detach().cpu().numpy().astype(np.float64)


def _flgo_server(module: Any, model: np.ndarray, **attrs: Any) -> Any:
    """A FLGo ``Server`` with only the attributes its aggregation reads (no task, no clients' data)."""
    S = object.__new__(module.Server)
    S.model = _flgo_model(model)
    for k, v in attrs.items():
        setattr(S, k, v)
    return S


def _flgo_feed(S: Any, clients: list[int], package: dict[str, Any]) -> None:
    """Replace sampling and communication by the given clients and their replies."""
    S.sample = lambda: list(clients)

    def communicate(selected: list[int], *args: Any, **kwargs: Any) -> dict[str, Any]:
        S.received_clients = list(selected)
        return package

    S.communicate = communicate


def prepare_flgo_fedfv(w: Any, U: Any, losses: Any, *, alpha: float, tau: int, t: int, history: Any,
                       history_round: Any, clients: Any) -> Callable[[], np.ndarray]:
    """FLGo's FedFV ``Server.iterate`` at round ``t`` (1-based) with client models ``w - U`` and training
    losses ``losses``; returns a function giving the direction ``w - model+``.  Call inside
    :func:`float64_torch` for float64 accumulators."""
    import flgo.algorithm.fedfv as ffv

    w = np.asarray(w, dtype=np.float64)
    U = np.asarray(U, dtype=np.float64)
    hist, hr = np.asarray(history, dtype=np.float64), [int(r) for r in history_round]
    S = _flgo_server(ffv, w, alpha=alpha, tau=tau, current_round=t, num_clients=len(hr),
                     client_last_sample_round=list(hr),
                     client_grads_history=[_flgo_model(h) if r >= 0 else 0 for h, r in zip(hist, hr, strict=True)])
    _flgo_feed(S, [int(c) for c in clients], {"model": [_flgo_model(w - u) for u in U],
                                              "loss": [float(v) for v in losses]})

    def call() -> np.ndarray:
        S.iterate()
        return w - _flgo_value(S.model)

    return call


def prepare_flgo_qfedavg(w: Any, W: Any, F: Any, *, q: float, lr: float) -> Callable[[], np.ndarray]:
    """FLGo's q-FedAvg: each ``Client.pack`` computes ``(dk, hk)`` from its training loss ``F_k`` at the
    server model (built here), then ``Server.iterate`` (the returned function) sums them."""
    import flgo.algorithm.qfedavg as fq

    w = np.asarray(w, dtype=np.float64)
    packs = []
    for k, wk in enumerate(np.asarray(W, dtype=np.float64)):
        C = object.__new__(fq.Client)
        C.q, C.learning_rate, C.global_model = q, lr, _flgo_model(w)
        C.test = lambda model, flag="train", _f=float(F[k]): {"loss": _f}
        packs.append(C.pack(_flgo_model(wk)))
    S = _flgo_server(fq, w)
    _flgo_feed(S, list(range(len(packs))), {"dk": [p["dk"] for p in packs], "hk": [p["hk"] for p in packs]})

    def call() -> np.ndarray:
        S.iterate()
        return _flgo_value(S.model)

    return call


def prepare_flgo_afl(w: Any, W: Any, F: Any, *, lam: Any, lr: float, lr_lam: float, t: int,
                     w_avg: Any) -> Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """FLGo's AFL ``Server.iterate`` (full participation) at round ``t``: returns ``(w+, lam+, average+)``."""
    import flgo.algorithm.afl as fafl

    w = np.asarray(w, dtype=np.float64)
    S = _flgo_server(fafl, w, num_clients=len(F), learning_rate=lr, learning_rate_lambda=lr_lam,
                     dynamic_lambdas=[float(v) for v in lam], current_round=t,
                     result_model=_flgo_model(np.asarray(w_avg, dtype=np.float64)))
    _flgo_feed(S, list(range(len(F))), {"model": [_flgo_model(x) for x in np.asarray(W, dtype=np.float64)],
                                       "loss": [float(v) for v in F]})

    def call() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        S.iterate()
        return _flgo_value(S.model), np.asarray(S.dynamic_lambdas, dtype=np.float64), _flgo_value(S.result_model)

    return call


def prepare_flgo_fedmgda(w: Any, W: Any, *, sizes: Any, epsilon: float, eta: float = 1.0) -> Callable[[], np.ndarray]:
    """FLGo's FedMGDA+ ``Server.aggregate`` (cvxopt QP); ``sizes`` are the clients' training-set sizes
    (FLGo's ``lam0 = n_k / sum n_k``).  Returns a function giving the new model."""
    import flgo.algorithm.fedmgda as fmg

    w = np.asarray(w, dtype=np.float64)

    class _Data:
        def __init__(self, n: int) -> None:
            self.n = n

        def __len__(self) -> int:
            return self.n

    clients = [types.SimpleNamespace(train_data=_Data(int(n))) for n in sizes]
    S = _flgo_server(fmg, w, epsilon=epsilon, eta=eta, clients=clients, received_clients=list(range(len(clients))))
    models = [_flgo_model(x) for x in np.asarray(W, dtype=np.float64)]

    def call() -> np.ndarray:
        import cvxopt

        old = cvxopt.solvers.options.get("show_progress", True)
        cvxopt.solvers.options["show_progress"] = False
        try:
            return _flgo_value(S.aggregate(models))
        finally:
            cvxopt.solvers.options["show_progress"] = old

    return call


def prepare_flgo_fedmgda_lambda(U: Any, lam0: Any, *, epsilon: float, models: bool = False) -> Callable[[], np.ndarray]:
    """FLGo's FedMGDA+ weights ``optim_lambda`` for the rows of ``U`` (the normalised updates).

    ``models=True``: FLGo's own ``Server.optim_lambda`` on one ``FModule`` per row (it deep-copies and
    flattens each model, then forms ``P = 2 Jt Jt^T``); ``models=False``: the same lines from the stacked
    array ``Jt = U`` on (FLGo 0.4.4 ``fedmgda.py``: ``P = 2 np.dot(Jt, Jt.T)``, bounds and constraint
    matrices built as there, FLGo's ``Server.quadprog`` - cvxopt at its defaults), i.e. the Gram product
    plus FLGo's QP.  Returns a function giving ``lam`` (numpy)."""
    import flgo.algorithm.fedmgda as fmg

    U = np.asarray(U, dtype=np.float64)
    lambda0 = [float(x) for x in np.asarray(lam0, dtype=np.float64)]
    server = types.SimpleNamespace(epsilon=epsilon, quadprog=lambda *a: fmg.Server.quadprog(None, *a))

    def flgo_lines(Jt: np.ndarray) -> Any:  # fedmgda.py optim_lambda after ``Jt = np.array(Jt)``
        n = len(Jt)
        P = 2 * np.dot(Jt, Jt.T)
        q = np.array([[0] for i in range(n)])
        A = np.ones(n).T
        b = np.array([1])
        lb = np.array([max(0, lambda0[i] - epsilon) for i in range(n)])
        ub = np.array([min(1, lambda0[i] + epsilon) for i in range(n)])
        G = np.zeros((2 * n, n))
        for i in range(n):
            G[i][i] = -1
            G[n + i][i] = 1
        h = np.zeros((2 * n, 1))
        for i in range(n):
            h[i] = -lb[i]
            h[n + i] = ub[i]
        return fmg.Server.quadprog(None, P, q, G, h, A, b)

    grads = [_flgo_model(x) for x in U] if models else None

    def call() -> np.ndarray:
        import cvxopt

        old = cvxopt.solvers.options.get("show_progress", True)
        cvxopt.solvers.options["show_progress"] = False
        try:
            res = fmg.Server.optim_lambda(server, grads, lambda0) if models else flgo_lines(U)
        finally:
            cvxopt.solvers.options["show_progress"] = old
        return np.asarray(res, dtype=np.float64).ravel()

    return call


@contextlib.contextmanager
def _quiet_flwr() -> Iterator[None]:
    lg = logging.getLogger("flwr")
    old = lg.level
    lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        lg.setLevel(old)


def prepare_flwr_qfedavg(w: Any, W: Any, F: Any, *, q: float, lr: float,
                         num_examples: Any = None) -> Callable[[], np.ndarray]:
    """Flower's Message-API ``QFedAvg.aggregate_train``: one reply ``Message`` per client carrying its
    local model (``ArrayRecord``) and ``train_loss = F_k`` (``MetricRecord``)."""
    from flwr.app import Array, ArrayRecord, Message, MetricRecord, RecordDict
    from flwr.app.metadata import Metadata
    from flwr.serverapp.strategy import QFedAvg

    w = np.asarray(w, dtype=np.float64)
    sizes = [1] * len(F) if num_examples is None else [int(v) for v in num_examples]
    strategy = QFedAvg(client_learning_rate=lr, q=q, min_train_nodes=1, min_evaluate_nodes=1, min_available_nodes=1)
    strategy.current_arrays = ArrayRecord({"w": Array(w.copy())})
    replies = []
    for k, wk in enumerate(np.asarray(W, dtype=np.float64)):
        content = RecordDict({"arrays": ArrayRecord({"w": Array(wk.copy())}),
                              "metrics": MetricRecord({"train_loss": float(F[k]), "num-examples": sizes[k]})})
        meta = Metadata(run_id=0, message_id="", src_node_id=k + 1, dst_node_id=0, reply_to_message_id="",
                        group_id="1", created_at=0.0, ttl=3600.0, message_type="train")
        replies.append(Message(content=content, metadata=meta))

    def call() -> np.ndarray:
        with _quiet_flwr():
            arrays, _ = strategy.aggregate_train(1, replies)
        return np.asarray(arrays.to_numpy_ndarrays()[0], dtype=np.float64)

    return call


def prepare_flwr_qfedavg_legacy(w: Any, W: Any, F: Any, *, q: float, lr: float,
                                evaluate_loss: float | None) -> Callable[[], np.ndarray]:
    """Flower's legacy ``flwr.server.strategy.QFedAvg.aggregate_fit``: ``FitRes`` per client with its
    local model and ``metrics={"loss": F_k}``; ``evaluate_loss`` is what the server's ``evaluate_fn``
    returns (``None``: no ``evaluate_fn``, the strategy's default)."""
    from flwr.common import Code, FitRes, Status, ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server.strategy import QFedAvg

    w = np.asarray(w, dtype=np.float64)
    kw: dict[str, Any] = {}
    if evaluate_loss is not None:
        kw["evaluate_fn"] = lambda rnd, arrays, config: (float(evaluate_loss), {})
    strategy = QFedAvg(q_param=q, qffl_learning_rate=lr, **kw)
    strategy.pre_weights = [w.copy()]
    results = [(None, FitRes(status=Status(code=Code.OK, message=""), parameters=ndarrays_to_parameters([wk.copy()]),
                             num_examples=1, metrics={"loss": float(F[k])}))
               for k, wk in enumerate(np.asarray(W, dtype=np.float64))]

    def call() -> np.ndarray:
        with _quiet_flwr():
            params, _ = strategy.aggregate_fit(1, results, [])
        return np.asarray(parameters_to_ndarrays(params)[0], dtype=np.float64)

    return call


def prepare_fedlab_qfedavg(w: Any, data: list[tuple[Any, Any]], *, q: float, lr: float, epochs: int = 1,
                           batch_size: int | None = None, set_lr: bool = True
                           ) -> tuple[Callable[[], np.ndarray], np.ndarray]:
    """FedLab's q-FedAvg: one ``qFedAvgClientTrainer`` per client (linear model without bias, MSE loss,
    ``setup_optim(epochs, batch_size, lr, q)``) trains on its ``(X, y)`` from ``w`` (client side, here);
    the returned function runs ``qFedAvgServerHandler.global_update`` on their ``(delta, hk)``.  Also
    returns the clients' local models.  ``set_lr=False`` leaves FedLab's trainer as ``setup_optim``
    makes it (without ``trainer.lr``, which its ``train`` reads)."""
    import torch

    fq = _import_fedlab_qfedavg()
    from fedlab.utils import Logger, SerializationTool

    log = Logger(log_name="fairtheory.peers.fedlab")
    logging.getLogger("fairtheory.peers.fedlab").setLevel(logging.WARNING)
    w = np.asarray(w, dtype=np.float64)
    d = w.size
    w_t = torch.as_tensor(w, dtype=torch.float64)
    buffer, local = [], []
    for X, y in data:
        Xt = torch.as_tensor(np.asarray(X, dtype=np.float64))
        yt = torch.as_tensor(np.asarray(y, dtype=np.float64)).reshape(-1, 1)
        trainer = fq.qFedAvgClientTrainer(torch.nn.Linear(d, 1, bias=False).double(), cuda=False, logger=log)
        trainer.setup_optim(epochs, batch_size or len(Xt), lr, q)
        trainer.criterion = torch.nn.MSELoss()
        if set_lr:
            trainer.lr = lr
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xt, yt), batch_size=batch_size or len(Xt),
                                             shuffle=False)
        trainer.train(w_t.clone(), loader)
        buffer.append((trainer.delta, trainer.hk))
        local.append(trainer.model_parameters.detach().numpy().astype(np.float64))
    server = fq.qFedAvgServerHandler(torch.nn.Linear(d, 1, bias=False).double(), global_round=1, sample_ratio=1.0,
                                     logger=log)
    SerializationTool.deserialize_model(server._model, w_t.clone())

    def call() -> np.ndarray:
        server.global_update(buffer)
        return server.model_parameters.detach().numpy().astype(np.float64)

    return call, np.array(local)


# ============================================================================ shared comparison helpers
def vec_equal(tally: Tally, peer: Any, ours: Any, *, rtol: float, instance: dict[str, Any], size: float,
              floor: float | None = None) -> bool:
    """The one comparator of the peer audit (every ``peers.*`` claim records its vector comparisons with it).

    Records one :meth:`Tally.equal` instance of the peer's array against ours and returns whether it held:

    * the peer raised (``peer`` is the exception): ``nan`` - a disagreement, the error in ``peer_error``;
    * the peer's value is not an array of real numbers, or its **shape differs** from ours (no
      flattening, no broadcasting: ``[1, 2, 99]`` against ``[1, 2]`` is a disagreement): ``nan``, the shapes
      in ``peer_shape`` / ``our_shape``;
    * a non-finite peer entry: that entry (never equal);
    * otherwise the component of largest deviation, relative to ``max |ours|`` (or ``floor`` when larger).
    """
    o = np.asarray(ours, dtype=np.float64)
    scale = max(float(np.max(np.abs(o))) if o.size and np.all(np.isfinite(o)) else 0.0, floor or 0.0,
                np.finfo(float).tiny)
    first = float(o.flat[0]) if o.size else 0.0

    def disagree(**why: Any) -> bool:
        return tally.equal(math.nan, first, rtol=rtol, scale=scale, instance={**instance, **why}, size=size)

    if isinstance(peer, BaseException):
        return disagree(peer_error=_err(peer))
    try:
        p = np.asarray(peer, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        return disagree(peer_error=f"not an array of real numbers: {_err(exc)}")
    if p.shape != o.shape:
        return disagree(peer_shape=list(p.shape), our_shape=list(o.shape))
    if p.size == 0:
        return tally.equal(0.0, 0.0, rtol=rtol, scale=scale, instance=instance, size=size)
    pf, of = p.ravel(), o.ravel()
    bad = ~np.isfinite(pf)
    j = int(np.flatnonzero(bad)[0]) if bad.any() else int(np.argmax(np.abs(pf - of)))
    return tally.equal(float(pf[j]), float(of[j]), rtol=rtol, scale=scale, instance=instance, size=size)


def _combine(outs: dict[str, Outcome], note: str) -> Outcome:
    """:func:`verify.core.combine` plus each part's counterexample in ``details["counterexamples"]``."""
    out = combine(outs, note=note)
    out.details["counterexamples"] = {k: o.counterexample for k, o in outs.items() if o.counterexample}
    return out


def _try(fn: Callable[[], Any]) -> Any:
    try:
        with np.errstate(all="ignore"):
            return fn()
    except Exception as exc:  # the peer's failure is the finding
        return exc


def _check_reference(name: str, a: np.ndarray | float, b: np.ndarray | float, tol: float, instance: Any) -> float:
    """fairtheory vs the independent definition: must agree (else our reference is wrong: raise)."""
    a_, b_ = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a_.shape != b_.shape:
        raise AssertionError(f"{name}: fairtheory's shape {a_.shape} and the independent definition's {b_.shape} differ "
                             f"on {instance}")
    dev = float(np.max(np.abs(a_ - b_))) / max(1.0, float(np.max(np.abs(b_))))
    if not dev <= tol:
        raise AssertionError(f"{name}: fairtheory and the independent definition differ by {dev:.3e} on {instance}")
    return dev


def _lst(x: Any) -> Any:
    return np.asarray(x, dtype=np.float64).tolist()


# ============================================================================ SQwash
_SQWASH = ("superquantile_tail_fraction theta is the mass of the upper tail: the superquantile is "
           "max{q . x : 0 <= q_i <= 1/(theta n), sum q = 1} (SQwash's docstring writes min; its code and examples "
           "take the upper tail).")


@claim("peers.sqwash.superquantile", citation="SQwash 0.1.0 reduce_superquantile; Rockafellar-Uryasev (2000)",
       statement="sqwash.reduce_superquantile(x, theta) equals the empirical superquantile "
                 "max{q.x : 0 <= q <= 1/(theta n), sum q = 1} (capped-simplex support and HiGHS LP), rtol 1e-6",
       expected="refuted")
def sqwash_superquantile_claim(ctx: Context) -> Outcome:
    """SQwash's superquantile vs the exact one.  Tolerance ``1e-6``: SQwash forms its tail weight
    ``(#tail)/(n theta)`` in torch's default dtype (float32) even for float64 losses."""
    if peer_version("sqwash") is None:
        return _skipped("sqwash")
    rng = ctx.rng("peers.sqwash.superquantile")
    cases: list[tuple[np.ndarray, float]] = []
    grid = [0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]
    for n in range(1, 5):  # small exhaustive: values in {0, 1, 2}
        for vals in np.ndindex(*(3,) * n):
            for th in grid:
                cases.append((np.array(vals, dtype=np.float64), th))
    n_grid = len(cases)
    for _ in range(ctx.count(200, 2000)):
        n = int(rng.integers(1, 40))
        x = rng.normal(size=n) * 10.0 ** rng.integers(-6, 7)
        if rng.uniform() < 0.3:
            x = np.round(x)  # ties
        cases.append((x, float(rng.choice([rng.uniform(0, 1), *grid]))))
    tally, worst_ref = Tally(), 0.0
    for k, (x, th) in enumerate(cases):
        size = x.size + (0.5 if k >= n_grid else 0.0)  # at equal n the small-integer grid wins
        ours = superquantile(x, th)
        if k % 17 == 0:
            worst_ref = max(worst_ref, _check_reference("superquantile", ours, _superquantile_lp(x, th), 1e-8, (x, th)))
        peer = _try(lambda x=x, th=th: sqwash_superquantile(x, th))
        inst = {"x": _lst(x), "theta": th}
        if isinstance(peer, BaseException):
            tally.equal(math.nan, ours, rtol=1e-6, scale=1.0, instance={**inst, "peer_error": _err(peer)}, size=size)
        else:
            tally.equal(peer, ours, rtol=1e-6, scale=max(1.0, float(np.max(np.abs(x)))), instance=inst, size=size)
    return tally.outcome(note=f"{_note('sqwash')}. {_SQWASH}",
                         details={"reference_vs_lp": worst_ref},
                         explain="measured = sqwash.reduce_superquantile(x, theta), bound = exact superquantile; "
                                 "SQwash evaluates the Rockafellar-Uryasev objective at torch.quantile's linearly "
                                 "interpolated quantile, which is not a minimiser when theta n is fractional")


@claim("peers.sqwash.superquantile_smooth",
       citation="SQwash 0.1.0 reduce_superquantile_smooth; Laguel et al. (2021)",
       statement="sqwash.reduce_superquantile_smooth(x, theta, nu) equals max_{q in C} q.x - nu/(2n)||q - 1/n||^2 "
                 "(closed-form projection and Clarabel QP), rtol 1e-9",
       expected="refuted")
def sqwash_superquantile_smooth_claim(ctx: Context) -> Outcome:
    """SQwash's smoothed superquantile vs the exact QP value."""
    if peer_version("sqwash") is None:
        return _skipped("sqwash")
    rng = ctx.rng("peers.sqwash.superquantile_smooth")
    cases: list[tuple[np.ndarray, float, float]] = []
    for n in range(1, 9):
        for th in (0.25, 0.5, 1.0):
            cases.append((np.zeros(n), th, 1.0))
            cases.append((np.arange(n, dtype=np.float64), th, 1.0))
    n_grid = len(cases)
    for _ in range(ctx.count(150, 1500)):
        n = int(rng.integers(1, 30))
        x = rng.normal(size=n) * 10.0 ** rng.integers(-4, 5)
        if rng.uniform() < 0.3:
            x = np.round(x)
        cases.append((x, float(rng.choice([0.1, 0.25, 0.5, 0.75, 1.0, rng.uniform(0.05, 1)])),
                      float(rng.choice([0.01, 0.1, 1.0, 10.0]))))
    tally, worst_ref = Tally(), 0.0
    for k, (x, th, nu) in enumerate(cases):
        size = x.size + (0.5 if k >= n_grid else 0.0)
        ours = superquantile_smooth(x, th, nu)
        if k % 13 == 0:
            worst_ref = max(worst_ref, _check_reference("smoothed superquantile", ours,
                                                        superquantile_smooth(x, th, nu, exact=True), 1e-7, (x, th, nu)))
        peer = _try(lambda x=x, th=th, nu=nu: sqwash_superquantile_smooth(x, th, nu))
        inst = {"x": _lst(x), "theta": th, "nu": nu}
        if isinstance(peer, BaseException):
            tally.equal(math.nan, ours, rtol=1e-9, scale=1.0, instance={**inst, "peer_error": _err(peer)}, size=size)
        else:
            tally.equal(peer, ours, rtol=1e-9, scale=max(1.0, float(np.max(np.abs(x)))), instance=inst, size=size)
    return tally.outcome(note=f"{_note('sqwash')}. {_SQWASH}", details={"reference_vs_qp": worst_ref},
                         explain="measured = sqwash.reduce_superquantile_smooth(x, theta, nu), bound = the exact QP "
                                 "value; a peer exception counts as measured = nan")


# ============================================================================ FLGo
_FLGO_FP64 = "FLGo run under torch default dtype float64 (its dot/norm accumulators use the default dtype)"


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
def flgo_fedfv_claim(ctx: Context) -> Outcome:
    """FLGo's FedFV server step vs fairtheory's aggregate (``keep_rule="reference"``, ``window="reference"``)."""
    if peer_version("flgo") is None:
        return _skipped("flgo")
    parts: dict[str, Tally] = {}
    worst_ref = 0.0
    with float64_torch():
        for c in _fedfv_cases(ctx):
            kw = {k: c[k] for k in ("alpha", "tau", "t", "history", "history_round", "clients")}
            ours = fedfv_direction(c["U"], c["losses"], **kw)
            worst_ref = max(worst_ref, _check_reference("FedFV", ours, fedfv_direction(c["U"], c["losses"], **kw,
                                                                                        independent=True), 1e-9, c["kind"]))
            peer = _try(lambda c=c, kw=kw: prepare_flgo_fedfv(c["w"], c["U"], c["losses"], **kw)())
            m, d = c["U"].shape
            inst = {"kind": c["kind"], "U": _lst(c["U"]), "losses": _lst(c["losses"]), "alpha": c["alpha"],
                    "tau": c["tau"], "t": c["t"]}
            if c["tau"]:
                inst.update(clients=[int(v) for v in c["clients"]], history=_lst(c["history"]),
                            history_round=[int(v) for v in c["history_round"]])
            part = "keep count" if c["kind"].startswith("keep count") else ("random" if c["kind"] == "random" else "edge cases")
            size = m * d - (0.5 if c["kind"] == "keep count (hand-built)" else 0.0)  # integer entries win at equal size
            vec_equal(parts.setdefault(part, Tally()), peer, ours, rtol=1e-9, instance=inst, size=size)
    expl = ("measured = FLGo's update component of largest deviation, bound = fairtheory's (004 Alg. 1-3, FLGo "
            "conventions); NaN or an exception counts as a deviation")
    outs = {k: t.outcome(explain=expl) for k, t in parts.items()}
    out = _combine({k: outs[k] for k in ("edge cases", "keep count", "random")},
                  note=f"{_note('flgo')}; {_FLGO_FP64}; keep m - ceil((m-1)(1-alpha)) evaluated exactly; window "
                       f"rounds t-tau+1..t; zero-norm aggregate: zero step")
    out.details["reference_vs_loop"] = worst_ref
    return out


def _qffl_cases(rng: np.random.Generator, count: int) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []

    def add(w: np.ndarray, U: np.ndarray, F: Any, q: float, lr: float, kind: str) -> None:
        cases.append({"kind": kind, "w": w, "W": w[None, :] - U, "F": np.asarray(F, dtype=np.float64), "q": q, "lr": lr})

    add(np.zeros(1), np.array([[1.0], [0.0]]), [1.0, 0.0], 1.0, 1.0, "two clients")
    add(np.zeros(1), np.zeros((1, 1)), [0.0], 1.0, 0.1, "zero update, zero loss")
    add(np.zeros(2), np.zeros((3, 2)), [1.0, 2.0, 3.0], 2.0, 0.1, "zero aggregate")
    add(np.zeros(2), np.array([[1.0, 0.0], [-1.0, 0.0]]), [1.0, 1.0], 1.0, 0.1, "opposite updates, tied losses")
    add(np.ones(2), np.array([[1.0, 0.5], [1.0, 0.5]]), [0.5, 0.5], 5.0, 0.1, "ties")
    add(np.zeros(3), 1e-9 * rng.normal(size=(3, 3)), [1e-9, 2e-9, 3e-9], 0.5, 0.1, "tiny")
    add(np.zeros(3), 1e6 * rng.normal(size=(3, 3)), [1e3, 2e3, 5e2], 2.0, 0.1, "huge")
    for q in (0.0, 0.1, 1.0, 5.0):
        add(rng.normal(size=3), rng.normal(size=(4, 3)), rng.uniform(0, 3, size=4), q, 0.05, f"q = {q:g}")
    for _ in range(count):
        m, d = int(rng.integers(1, 7)), int(rng.integers(1, 6))
        F = rng.uniform(0, 3, size=m)
        F[rng.uniform(size=m) < 0.1] = 0.0
        add(rng.normal(size=d), rng.normal(size=(m, d)) * rng.uniform(0.01, 2), F,
            float(rng.choice([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, rng.uniform(0, 10)])),
            float(rng.choice([0.01, 0.1, 1.0])), "random")
    return cases


def _qffl_claim(ctx: Context, lib: str, salt: str, offset: float, run: Callable[[dict[str, Any]], Any],
                *, rtol: float = 1e-9, count: tuple[int, int] = (40, 400)) -> Outcome:
    rng = ctx.rng(salt)
    tally, worst_ref = Tally(), 0.0
    for c in _qffl_cases(rng, ctx.count(*count)):
        ours = qffl_update(c["w"], c["W"], c["F"], c["q"], c["lr"], offset)
        worst_ref = max(worst_ref, _check_reference("q-FFL step", ours, _qffl_direct(c["w"], c["W"], c["F"], c["q"],
                                                                                      c["lr"], offset), 1e-9, c["kind"]))
        peer = _try(lambda c=c: run(c))
        m, d = c["W"].shape
        inst = {"kind": c["kind"], "w": _lst(c["w"]), "W": _lst(c["W"]), "F": _lst(c["F"]), "q": c["q"], "lr": c["lr"]}
        vec_equal(tally, peer, ours, rtol=rtol, instance=inst, size=m * d)
    return tally.outcome(note=f"{_note(lib)}; offset {offset:g} inside the powers; L = 1/lr; F_k = client k's loss at "
                              f"the server model", details={"reference_vs_direct": worst_ref},
                         explain="measured = the peer's new model component of largest deviation, bound = q-FedAvg's "
                                 "step (003 Alg. 2) from fairtheory.aggregators.QFFL; an exception counts as nan")


@claim("peers.flgo.qfedavg", citation="FLGo 0.4.4 algorithm/qfedavg.py; 003 Alg. 2",
       statement="FLGo's q-FedAvg (Client.pack + Server.iterate) takes the q-FedAvg step of 003 Alg. 2 "
                 "(offset 1e-8, L = 1/lr), rtol 1e-9")
def flgo_qfedavg_claim(ctx: Context) -> Outcome:
    if peer_version("flgo") is None:
        return _skipped("flgo")
    with float64_torch():
        return _qffl_claim(ctx, "flgo", "peers.flgo.qfedavg", 1e-8,
                           lambda c: prepare_flgo_qfedavg(c["w"], c["W"], c["F"], q=c["q"], lr=c["lr"])())


@claim("peers.flgo.afl", citation="FLGo 0.4.4 algorithm/afl.py; Mohri et al. (2019)",
       statement="FLGo's AFL Server.iterate takes the Stochastic-AFL step (primal step with the current weights, "
                 "exact simplex projection of lam + lr_lam f, running model average), rtol 1e-9",
       expected="refuted")
def flgo_afl_claim(ctx: Context) -> Outcome:
    """FLGo's AFL step vs the projected descent-ascent step (CappedSimplex.project, certified QP)."""
    if peer_version("flgo") is None:
        return _skipped("flgo")
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
            args = (c["w"], c["W"], c["F"], c["lam"], c["lr"], c["lr_lam"], c["t"], c["w_avg"])
            ours = afl_update(*args)
            lam_qp, radius = afl_qp_radius(c["F"], c["lam"], c["lr_lam"])
            dist = float(np.linalg.norm(ours[1] - lam_qp))
            if not dist <= radius + 1e-9:
                raise AssertionError(f"AFL weights: closed-form projection {dist:.3e} from the QP's, beyond its "
                                     f"certified radius {radius:.3e} ({c['kind']})")
            worst_ref = max(worst_ref, dist)
            peer = _try(lambda c=c: prepare_flgo_afl(c["w"], c["W"], c["F"], lam=c["lam"], lr=c["lr"],
                                                     lr_lam=c["lr_lam"], t=c["t"], w_avg=c["w_avg"])())
            n, d = c["W"].shape
            inst = {"kind": c["kind"], "F": _lst(c["F"]), "lam": _lst(c["lam"]), "lr": c["lr"], "lr_lam": c["lr_lam"],
                    "t": c["t"], "d": d}
            flat = np.concatenate(ours)
            got = peer if isinstance(peer, BaseException) else np.concatenate(peer)
            vec_equal(tally, got, flat, rtol=1e-9, instance=inst, size=n * d)
    return tally.outcome(note=f"{_note('flgo')}; {_FLGO_FP64}; FLGo averages the models w_0..w_t (t = 1-based round)",
                         details={"reference_vs_qp": worst_ref},
                         explain="measured = FLGo's (w+, lam+, average+) component of largest deviation, bound = "
                                 "the exact step; an exception counts as nan")


#: FLGo's FedMGDA+ tolerances: ||d||^2 within 1e-6 of the minimum (cvxopt's defaults are 1e-7 absolute,
#: 1e-6 relative), the direction within sqrt(1e-6): for a feasible d, ||d - d*||^2 <= ||d||^2 - ||d*||^2
FEDMGDA_VALUE_TOL, FEDMGDA_DIRECTION_TOL = 1e-6, 1e-3


def fedmgda_compare(value: Tally, direction: Tally, d_peer: Any, d_ours: np.ndarray, v_ours: float, *,
                    instance: dict[str, Any], size: float) -> bool:
    """Record FLGo's FedMGDA+ direction ``d_peer`` against the exact ``d_ours`` (``v_ours = ||d_ours||^2``):
    ``| ||d_peer||^2 - v_ours | <= 1e-6`` in ``value`` and ``||d_peer - d_ours|| <= 1e-3`` in ``direction``
    (a sign flip or a wrong direction of the right length fails the second).  An exception or a
    non-finite direction fails both.  Returns whether both held."""
    if isinstance(d_peer, BaseException):
        inst = {**instance, "peer_error": _err(d_peer)}
        value.equal(math.nan, v_ours, rtol=FEDMGDA_VALUE_TOL, scale=1.0, instance=inst, size=size)
        direction.upper(math.nan, FEDMGDA_DIRECTION_TOL, instance=inst, size=size)
        return False
    dp = np.asarray(d_peer, dtype=np.float64).ravel()
    ok1 = value.equal(float(dp @ dp), v_ours, rtol=FEDMGDA_VALUE_TOL, scale=1.0, instance=instance, size=size)
    dev = float(np.linalg.norm(dp - np.asarray(d_ours, dtype=np.float64).ravel()))
    ok2 = direction.upper(dev, FEDMGDA_DIRECTION_TOL, instance=instance, size=size)
    return ok1 and ok2


@claim("peers.flgo.fedmgda", citation="FLGo 0.4.4 algorithm/fedmgda.py; Hu et al. (2022) Alg. 1",
       statement="FLGo's FedMGDA+ Server.aggregate reaches the min-norm value ||sum lam_i u_i||^2 over the "
                 "epsilon-box of the simplex (u_i = g_i/(||g_i|| + 1e-8)) within 1e-6 (values <= 1; cvxopt's "
                 "default tolerances are 1e-7 absolute, 1e-6 relative), and its direction d lies within "
                 "1e-3 = sqrt(1e-6) of the exact min-norm direction d* (for a feasible d, "
                 "||d - d*||^2 <= ||d||^2 - ||d*||^2)")
def flgo_fedmgda_claim(ctx: Context) -> Outcome:
    """FLGo's FedMGDA+ (a cvxopt QP) vs the Gram active set and the cvxpy QP in ``R^d``.

    Two parts: the squared norm of FLGo's direction ``(w - w+)/eta`` against the exact minimum, and the
    direction itself against the exact min-norm direction (a sign flip, or another point of the same
    norm, fails it; the tolerance is the square root of cvxopt's objective tolerance)."""
    if peer_version("flgo") is None:
        return _skipped("flgo")
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
            worst_ref = max(worst_ref, _check_reference("FedMGDA+ min-norm value", v_ours, v_qp, 1e-9, c["kind"]))
            # the QP's direction is within sqrt(its objective tolerance 1e-10) of the exact one
            worst_ref_dir = max(worst_ref_dir, _check_reference("FedMGDA+ direction", d_ours, d_qp, 1e-4, c["kind"]))
            peer = _try(lambda c=c: prepare_flgo_fedmgda(c["w"], c["w"][None, :] - c["U"], sizes=c["sizes"],
                                                         epsilon=c["epsilon"], eta=c["eta"])())
            m, d = c["U"].shape
            inst = {"kind": c["kind"], "U": _lst(c["U"]), "sizes": [int(s) for s in c["sizes"]], "epsilon": c["epsilon"],
                    "eta": c["eta"]}
            d_peer = peer if isinstance(peer, BaseException) else (c["w"] - peer) / c["eta"]
            fedmgda_compare(value, direction, d_peer, d_ours, v_ours, instance=inst, size=m * d)
    outs = {"||d||^2": value.outcome(explain="measured = ||FLGo direction||^2, bound = exact min over the epsilon-box "
                                             "of ||sum lam_i u_i||^2 (Gram active set, checked against the R^d QP)"),
            "direction": direction.outcome(explain="measured = ||FLGo direction - exact min-norm direction||, "
                                                   "bound = 1e-3 = sqrt(1e-6)")}
    out = _combine(outs, note=f"{_note('flgo')}; {_FLGO_FP64}; lam0 = n_k / sum n_k; offset 1e-8 in the "
                              "normalisation; cvxopt default tolerances")
    out.details["reference_vs_qp"] = worst_ref
    out.details["reference_direction_vs_qp"] = worst_ref_dir
    return out


# ============================================================================ Flower
@claim("peers.flwr.qfedavg", citation="Flower 1.41 flwr.serverapp.strategy.QFedAvg; 003 Alg. 2",
       statement="Flower's Message-API QFedAvg.aggregate_train takes the q-FedAvg step of 003 Alg. 2 "
                 "(offset 1e-10, L = 1/client_learning_rate, F_k = the reply's train_loss), rtol 1e-9")
def flwr_qfedavg_claim(ctx: Context) -> Outcome:
    """Agreement is checked with the process's existing objects frozen out of the garbage collector;
    ``details["timing"]`` records what one call costs as shipped (see :func:`flwr_reply_timing`)."""
    if peer_version("flwr") is None:
        return _skipped("flwr")
    # every reply's ArrayRecord.to_numpy_ndarrays(keep_input=False) runs gc.collect(), which walks every
    # object of this process: the already-existing ones are frozen out of the collector during the call
    # (memory management only); the time as shipped is measured once below and reported, not compared
    out = _qffl_claim(ctx, "flwr", "peers.flwr.qfedavg", 1e-10,
                      lambda c: _gc_frozen(prepare_flwr_qfedavg(c["w"], c["W"], c["F"], q=c["q"], lr=c["lr"])),
                      count=(10, 200))
    timing = flwr_reply_timing()
    out.details["timing"] = timing
    out.note += (f"; speed (this run, not part of the claim): {timing['per_reply_ms']:.1f} ms per reply as shipped "
                 f"(m = {timing['m']}, d = {timing['d']}), {timing['per_reply_frozen_ms']:.2f} ms with the process's "
                 f"objects frozen out of the collector; each reply runs one gc.collect(), here "
                 f"{timing['gc_collect_ms']:.1f} ms over {timing['live_objects']:,} live objects (it grows with "
                 "everything the process holds, not with d)")
    return out


def flwr_reply_timing(m: int = 20, d: int = 10_000, repeat: int = 3, seed: int = 0) -> dict[str, Any]:
    """One ``QFedAvg.aggregate_train`` call of ``m`` replies (``d`` parameters each), timed as shipped and
    with ``gc.freeze()``, next to one ``gc.collect()`` and the number of live gc-tracked objects of this
    process (``len(gc.get_objects())``).  Flower reads each reply with
    ``ArrayRecord.to_numpy_ndarrays(keep_input=False)``, which calls ``gc.collect()`` (``m + 1`` calls:
    the current model and every reply), so the time per reply is about one full collection: it grows
    with everything the process holds (torch, the test suite, the user's data), not with ``d``.
    Medians of ``repeat`` calls (milliseconds)."""
    import gc
    import statistics
    import time

    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    W = w + 0.1 * rng.normal(size=(m, d))
    F = rng.uniform(0.1, 3, size=m)

    def timed(fn: Callable[[], Any]) -> float:
        t0 = time.perf_counter()
        fn()
        return 1e3 * (time.perf_counter() - t0)

    gc.collect()
    live = len(gc.get_objects())
    t_gc = statistics.median(timed(gc.collect) for _ in range(repeat))
    shipped = statistics.median(timed(prepare_flwr_qfedavg(w, W, F, q=1.0, lr=0.1)) for _ in range(repeat))
    frozen = statistics.median(timed(lambda: _gc_frozen(prepare_flwr_qfedavg(w, W, F, q=1.0, lr=0.1)))
                               for _ in range(repeat))
    return {"m": m, "d": d, "live_objects": live, "gc_collect_ms": t_gc, "call_ms": shipped,
            "per_reply_ms": shipped / (m + 1), "call_frozen_ms": frozen, "per_reply_frozen_ms": frozen / (m + 1)}


def _gc_frozen(call: Callable[[], Any]) -> Any:
    """``call()`` with the objects that exist now moved out of the garbage collector's reach."""
    import gc

    gc.freeze()
    try:
        return call()
    finally:
        gc.unfreeze()


@claim("peers.flwr.qfedavg_legacy", citation="Flower 1.41 flwr.server.strategy.QFedAvg.aggregate_fit; 003 Alg. 2",
       statement="Flower's legacy QFedAvg.aggregate_fit takes the q-FedAvg step of 003 Alg. 2 with each client's "
                 "loss F_k (offset 1e-10, L = 1/qffl_learning_rate), rtol 1e-9",
       expected="refuted")
def flwr_qfedavg_legacy_claim(ctx: Context) -> Outcome:
    """Two configurations: the default strategy (no ``evaluate_fn``) and an ``evaluate_fn`` returning the mean
    client loss (the server-side loss the strategy reads; the clients' own ``F_k`` travel in ``metrics``)."""
    if peer_version("flwr") is None:
        return _skipped("flwr")
    outs = {}
    for part, ev in (("default (no evaluate_fn)", None), ("evaluate_fn = mean client loss", "mean")):
        outs[part] = _qffl_claim(ctx, "flwr", "peers.flwr.qfedavg_legacy", 1e-10,
                                 lambda c, ev=ev: prepare_flwr_qfedavg_legacy(
                                     c["w"], c["W"], c["F"], q=c["q"], lr=c["lr"],
                                     evaluate_loss=None if ev is None else float(np.mean(c["F"])))())
    return _combine(outs, note=f"{_note('flwr')}; the legacy strategy weights every client by (loss + 1e-10)^q with "
                              "the loss of its evaluate_fn, one number for all clients")


# ============================================================================ FedLab
def local_sgd(w: np.ndarray, X: np.ndarray, y: np.ndarray, *, lr: float, epochs: int, batch_size: int) -> np.ndarray:
    """Minibatch SGD on the mean squared error of a linear model, batches in order (FedLab's local solver)."""
    v = np.array(w, dtype=np.float64, copy=True)
    for _ in range(epochs):
        for s in range(0, len(y), batch_size):
            Xb, yb = X[s:s + batch_size], y[s:s + batch_size]
            v = v - lr * (2.0 / len(yb)) * (Xb.T @ (Xb @ v - yb))
    return v


def _fedlab_reference(w: np.ndarray, data: list[tuple[np.ndarray, np.ndarray]], q: float, lr: float, epochs: int,
                      batch_size: int | None) -> tuple[np.ndarray, np.ndarray]:
    """q-FedAvg's step with ``F_k`` = client k's mean squared error at ``w`` and the local models of
    :func:`local_sgd`; also returns the local models."""
    F = np.array([float(np.mean((X @ w - y) ** 2)) for X, y in data])
    local = np.array([local_sgd(w, X, y, lr=lr, epochs=epochs, batch_size=batch_size or len(y)) for X, y in data])
    return qffl_update(w, local, F, q, lr, 1e-10), local


@claim("peers.fedlab.qfedavg", citation="FedLab 1.3.0 contrib/algorithm/qfedavg.py; 003 Alg. 2",
       statement="FedLab's qFedAvgClientTrainer.train + qFedAvgServerHandler.global_update take the q-FedAvg step "
                 "of 003 Alg. 2 with F_k = client k's mean loss at the server model (offset 1e-10, L = 1/lr), rtol 1e-9",
       expected="refuted")
def fedlab_qfedavg_claim(ctx: Context) -> Outcome:
    """Parts: FedLab as ``setup_optim`` leaves it; with ``trainer.lr`` set by hand and one full batch per
    epoch (then FedLab's loss is the loss at the server model); with several batches or epochs."""
    if peer_version("fedlab") is None:
        return _skipped("fedlab")
    rng = ctx.rng("peers.fedlab.qfedavg")
    parts = {"as shipped (setup_optim)": Tally(), "lr set, one full batch": Tally(), "lr set, minibatches": Tally()}
    worst_ref = 0.0
    # (m, d, samples, epochs, batch, q, lr): one sample (the smallest crash), two samples in two batches
    cases = [(1, 1, 1, 1, 1, 1.0, 0.1), (1, 1, 2, 1, 1, 1.0, 0.1)]
    for _ in range(ctx.count(12, 100)):
        cases.append((int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 3)),
                      int(rng.integers(1, 4)), float(rng.choice([0.0, 0.5, 1.0, 2.0])), float(rng.choice([0.01, 0.1]))))
    with float64_torch():
        for m, d, ns, ep, bs, q, lr in cases:
            w = rng.normal(size=d)
            data = [(rng.normal(size=(ns, d)), rng.normal(size=ns)) for _ in range(m)]
            inst = {"m": m, "d": d, "samples": ns, "q": q, "lr": lr, "w": _lst(w),
                    "data": [[_lst(X), _lst(y)] for X, y in data]}
            for part, kw in (("as shipped (setup_optim)", {"set_lr": False, "epochs": 1, "batch_size": None}),
                             ("lr set, one full batch", {"set_lr": True, "epochs": 1, "batch_size": None}),
                             ("lr set, minibatches", {"set_lr": True, "epochs": ep, "batch_size": bs})):
                if part == "lr set, minibatches" and ep == 1 and bs >= ns:
                    continue
                ours, local = _fedlab_reference(w, data, q, lr, kw["epochs"], kw["batch_size"])
                try:
                    call, peer_local = prepare_fedlab_qfedavg(w, data, q=q, lr=lr, **kw)
                    peer: Any = call()
                    worst_ref = max(worst_ref, _check_reference("local SGD", peer_local, local, 1e-9, inst))
                except Exception as exc:
                    peer = exc
                info = {**inst, "epochs": kw["epochs"], "batch_size": kw["batch_size"] or ns}
                vec_equal(parts[part], peer, ours, rtol=1e-9, instance=info, size=m * d * ns)
    expl = ("measured = FedLab's new model component of largest deviation, bound = q-FedAvg's step with the clients' "
            "mean losses at the server model and FedLab's own local models; an exception counts as nan")
    out = _combine({k: t.outcome(explain=expl) for k, t in parts.items()},
                  note=f"{_note('fedlab')}; linear model without bias, MSE loss, float64")
    out.details["local_models_vs_sgd"] = worst_ref
    return out
