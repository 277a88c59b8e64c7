r"""Peer audit of FedLab 1.3.0 (``fedlab.contrib.algorithm``): q-FedAvg, Ditto and power-of-choice.

* ``peers.fedlab.qfedavg``: ``qFedAvgClientTrainer.train`` + ``qFedAvgServerHandler.global_update`` vs
  q-FedAvg's step (003 Alg. 2) on linear least-squares clients;
* ``peers.fedlab.ditto``: ``DittoSerialClientTrainer`` as shipped (``local_process``) and its ``train``
  with the attributes it reads set by hand, on softmax-regression clients vs
  :func:`fairtheory.algorithms.base.local_steps` / :func:`fairtheory.algorithms.ditto.personal_steps` on
  the multinomial problem;
* ``peers.fedlab.powerofchoice``: ``Powerofchoice.sample_candidates`` / ``sample_clients`` and
  ``PowerofchoiceSerialClientTrainer.evaluate`` vs the pow-d rule
  (:func:`fairtheory.algorithms.power_of_choice.is_valid_selection`) and the clients' exact losses.

FedLab's modules import torchvision; :func:`verify.claims.peers.support.fedlab_module` imports them with
stand-ins when no torchvision loads (docs/peers.md).
"""

from __future__ import annotations

import logging
import random
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from verify.claims.peers.compare import check_reference, combine_parts, qffl_mse_round, vec_equal
from verify.claims.peers.support import attempt, fedlab_module, float64_torch, lst, needs, note
from verify.core import Context, Outcome, Tally, claim

__all__ = ["prepare_fedlab_qfedavg", "fedlab_ditto_train", "fedlab_ditto_local_process", "fedlab_powerofchoice",
           "multinomial", "softmax_clients"]


def _logger(name: str = "ft.fedlab") -> Any:
    from fedlab.utils import Logger

    return Logger(log_name=name)


# ============================================================================ q-FedAvg
def prepare_fedlab_qfedavg(w: Any, data: list[tuple[Any, Any]], *, q: float, lr: float, epochs: int = 1,
                           batch_size: int | None = None, set_lr: bool = True
                           ) -> tuple[Callable[[], np.ndarray], np.ndarray]:
    """FedLab's q-FedAvg: one ``qFedAvgClientTrainer`` per client (linear model without bias, MSE loss,
    ``setup_optim(epochs, batch_size, lr, q)``) trains on its ``(X, y)`` from ``w`` (client side, here);
    the returned function runs ``qFedAvgServerHandler.global_update`` on their ``(delta, hk)``.  Also
    returns the clients' local models.  ``set_lr=False`` leaves FedLab's trainer as ``setup_optim``
    makes it (without ``trainer.lr``, which its ``train`` reads)."""
    import torch

    fq = fedlab_module("qfedavg")
    from fedlab.utils import SerializationTool

    log = _logger("fairtheory.peers.fedlab")
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


@claim("peers.fedlab.qfedavg", citation="FedLab 1.3.0 contrib/algorithm/qfedavg.py; 003 Alg. 2",
       statement="FedLab's qFedAvgClientTrainer.train + qFedAvgServerHandler.global_update take the q-FedAvg step "
                 "of 003 Alg. 2 with F_k = client k's mean loss at the server model (offset 1e-10, L = 1/lr), rtol 1e-9",
       expected="refuted")
@needs("fedlab")
def fedlab_qfedavg_claim(ctx: Context) -> Outcome:
    """Parts: FedLab as ``setup_optim`` leaves it; with ``trainer.lr`` set by hand and one full batch per
    epoch (then FedLab's loss is the loss at the server model); with several batches or epochs."""
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
            inst = {"m": m, "d": d, "samples": ns, "q": q, "lr": lr, "w": lst(w),
                    "data": [[lst(X), lst(y)] for X, y in data]}
            for part, kw in (("as shipped (setup_optim)", {"set_lr": False, "epochs": 1, "batch_size": None}),
                             ("lr set, one full batch", {"set_lr": True, "epochs": 1, "batch_size": None}),
                             ("lr set, minibatches", {"set_lr": True, "epochs": ep, "batch_size": bs})):
                if part == "lr set, minibatches" and ep == 1 and bs >= ns:
                    continue
                ours, local = qffl_mse_round(w, data, q, lr, kw["epochs"], kw["batch_size"])
                try:
                    call, peer_local = prepare_fedlab_qfedavg(w, data, q=q, lr=lr, **kw)
                    peer: Any = call()
                    worst_ref = max(worst_ref, check_reference("local SGD", peer_local, local, 1e-9, inst))
                except Exception as exc:
                    peer = exc
                info = {**inst, "epochs": kw["epochs"], "batch_size": kw["batch_size"] or ns}
                vec_equal(parts[part], peer, ours, rtol=1e-9, instance=info, size=m * d * ns)
    return combine_parts(parts, explain="measured = FedLab's new model component of largest deviation, bound = q-FedAvg's "
                                        "step with the clients' mean losses at the server model and FedLab's own local "
                                        "models; an exception counts as nan",
                         note=f"{note('fedlab')}; linear model without bias, MSE loss, float64",
                         details={"local_models_vs_sgd": worst_ref})


# ============================================================================ softmax-regression clients
class _Data:
    """A FedLab-style dataset: ``get_dataloader(id, batch_size=None)`` gives the client's full batch by
    default, as FedLab's partitioned datasets do."""

    def __init__(self, data: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.data = data

    def get_dataloader(self, id: int, batch_size: int | None = None, type: str = "train") -> Any:
        import torch

        X, y = self.data[id]
        ds = torch.utils.data.TensorDataset(torch.as_tensor(X, dtype=torch.float64), torch.as_tensor(y, dtype=torch.long))
        return torch.utils.data.DataLoader(ds, batch_size=batch_size or len(y), shuffle=False)

    get_data_loader = get_dataloader


def _linear(W: np.ndarray) -> Any:
    """``torch.nn.Linear(d_in, C, bias=False)`` (float64) holding the ``(d_in, C)`` matrix ``W`` as its weight ``W^T``."""
    import torch

    lin = torch.nn.Linear(W.shape[0], W.shape[1], bias=False).double()
    with torch.no_grad():
        lin.weight.copy_(torch.as_tensor(W.T))
    return lin


def _flat(W: np.ndarray) -> Any:
    import torch

    return torch.as_tensor(np.ascontiguousarray(W.T).ravel(), dtype=torch.float64)


def _unflat(t: Any, d_in: int, C: int) -> np.ndarray:
    return t.detach().numpy().astype(np.float64).reshape(C, d_in).T


def multinomial(data: list[tuple[np.ndarray, np.ndarray]], C: int) -> Any:
    """The clients' softmax regression (no intercept) as a :class:`fairtheory.problems.multinomial.MultinomialProblem`."""
    from fairtheory.problems.multinomial import MultinomialProblem

    X = np.concatenate([x for x, _ in data])
    y = np.concatenate([t for _, t in data])
    off = np.concatenate([[0], np.cumsum([len(t) for _, t in data])])
    return MultinomialProblem(X, y, off, C, intercept=False)


def softmax_clients(rng: np.random.Generator, n: int, d_in: int, C: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n`` clients with 1 to 5 standard normal samples in ``R^d_in`` and labels in ``0..C-1``."""
    out = []
    for _ in range(n):
        X = rng.normal(size=(int(rng.integers(1, 6)), d_in))
        out.append((X, rng.integers(0, C, size=len(X))))
    return out


def _instance(data: list[tuple[np.ndarray, np.ndarray]], W: np.ndarray, **kw: Any) -> dict[str, Any]:
    return {**kw, "W": lst(W), "data": [[lst(X), [int(t) for t in y]] for X, y in data]}


# ============================================================================ Ditto
def _ditto_trainer(data: list[tuple[np.ndarray, np.ndarray]], W: np.ndarray) -> Any:
    fd = fedlab_module("ditto")
    return fd.DittoSerialClientTrainer(_linear(W), len(data), cuda=False, logger=_logger())


def fedlab_ditto_train(data: list[tuple[np.ndarray, np.ndarray]], W: np.ndarray, V: list[np.ndarray], *, lr: float,
                       mu: float, epochs: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """FedLab's ``DittoSerialClientTrainer.train`` for each client ``k`` (global model ``W``, personal model
    ``V[k]``, full-batch loader), with the ``args`` it reads (``epochs``, ``lr``, ``mu``) set by hand:
    returns ``(global solver's local model, personal model)`` per client, as ``(d_in, C)`` matrices."""
    d_in, C = W.shape
    trainer = _ditto_trainer(data, W)
    trainer.setup_optim(epochs, None, lr)
    trainer.args = types.SimpleNamespace(epochs=epochs, lr=lr, mu=mu, batch_size=None)
    loaders = _Data(data)
    out = []
    for k in range(len(data)):
        personal, glb = trainer.train(_flat(W), _flat(V[k]), loaders.get_dataloader(k))
        out.append((_unflat(glb, d_in, C), _unflat(personal, d_in, C)))
    return out


def fedlab_ditto_local_process(data: list[tuple[np.ndarray, np.ndarray]], W: np.ndarray, *, lr: float, epochs: int) -> Any:
    """FedLab's ``DittoSerialClientTrainer.local_process`` as shipped (``setup_dataset``, ``setup_optim``,
    then one round for every client)."""
    trainer = _ditto_trainer(data, W)
    trainer.setup_dataset(_Data(data))
    trainer.setup_optim(epochs, None, lr)
    trainer.local_process([_flat(W)], list(range(len(data))))
    return trainer.uplink_package


@claim("peers.fedlab.ditto", citation="FedLab 1.3.0 contrib/algorithm/ditto.py; Li et al. (2021) Ditto Alg. 1",
       statement="FedLab's DittoSerialClientTrainer runs a round (local_process) and its train takes the global "
                 "solver's and the personal solver's gradient steps on the clients' cross-entropy (personal: "
                 "+ mu/2 ||v - w||^2), rtol 1e-9",
       expected="refuted")
@needs("fedlab")
def fedlab_ditto_claim(ctx: Context) -> Outcome:
    """Parts: as shipped (``local_process``: 1 if it runs); ``train`` with ``args`` set by hand, full batch, vs
    :func:`fairtheory.algorithms.base.local_steps` and :func:`fairtheory.algorithms.ditto.personal_steps`
    on the multinomial problem (softmax cross-entropy, no intercept)."""
    from fairtheory.algorithms.base import local_steps
    from fairtheory.algorithms.ditto import personal_steps

    rng = ctx.rng("peers.fedlab.ditto")
    parts = {"as shipped (local_process)": Tally(), "train, args set by hand": Tally()}
    with float64_torch():
        for k in range(ctx.count(10, 60)):
            n, d_in, C = (1, 1, 2) if k == 0 else (int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(2, 4)))
            data = softmax_clients(rng, n, d_in, C)
            W = rng.normal(size=(d_in, C))
            V = [rng.normal(size=(d_in, C)) for _ in range(n)]
            lr, mu, ep = float(rng.choice([0.05, 0.1, 0.5])), float(rng.choice([0.0, 0.1, 1.0])), int(rng.integers(1, 4))
            P = multinomial(data, C)
            w = W.ravel()
            G = local_steps(P, np.tile(w, (n, 1)), lr=lr, kappa=ep).W
            Vp = personal_steps(P, np.array([v.ravel() for v in V]), w, lr=lr, lam=mu, steps=ep)
            ours = np.concatenate([np.concatenate([G[i], Vp[i]]) for i in range(n)])
            inst = _instance(data, W, n=n, d_in=d_in, C=C, lr=lr, mu=mu, epochs=ep)
            size = n * d_in * C + sum(len(y) for _, y in data)
            shipped = attempt(lambda data=data, W=W, lr=lr, ep=ep: fedlab_ditto_local_process(data, W, lr=lr, epochs=ep))
            vec_equal(parts["as shipped (local_process)"], shipped if isinstance(shipped, BaseException) else 1.0, 1.0,
                      rtol=1e-9, instance=inst, size=size)
            peer = attempt(lambda data=data, W=W, V=V, lr=lr, mu=mu, ep=ep: fedlab_ditto_train(data, W, V, lr=lr, mu=mu,
                                                                                               epochs=ep))
            got = peer if isinstance(peer, BaseException) else np.concatenate(
                [np.concatenate([g.ravel(), v.ravel()]) for g, v in peer])
            vec_equal(parts["train, args set by hand"], got, ours, rtol=1e-9, instance={**inst, "V": [lst(v) for v in V]},
                      size=size)
    return combine_parts(parts, explain="as shipped: 1 if local_process runs, nan if it raises; train: the component "
                                        "of largest deviation from fairtheory's global and personal steps",
                         note=f"{note('fedlab')}; Linear(d_in, C, bias=False) float64, CrossEntropyLoss (FedLab's), full "
                              "batch; the model matrix is the transposed torch weight")


# ============================================================================ power-of-choice
def fedlab_powerofchoice(data: list[tuple[np.ndarray, np.ndarray]], W: np.ndarray, *, d: int, m: int,
                         seed: int) -> tuple[list[int], list[float], list[int]]:
    """FedLab's power-of-choice round: ``Powerofchoice.sample_candidates()`` (Python's ``random`` seeded with
    ``seed``), ``PowerofchoiceSerialClientTrainer.evaluate`` of the candidates at ``W`` and
    ``sample_clients(candidates, losses)``; ``m = num_clients_per_round`` through ``sample_ratio = m/n``."""
    fp = fedlab_module("powerofchoice")
    n = len(data)
    log = _logger()
    handler = fp.Powerofchoice(_linear(W), global_round=1, sample_ratio=m / n, logger=log)
    handler.num_clients = n
    handler.setup_optim(d)
    trainer = fp.PowerofchoiceSerialClientTrainer(_linear(W), n, cuda=False, logger=log)
    trainer.setup_dataset(_Data(data))
    state = random.getstate()
    random.seed(seed)
    try:
        cands = handler.sample_candidates()
    finally:
        random.setstate(state)
    losses = trainer.evaluate(cands, _flat(W))
    return [int(c) for c in cands], [float(v) for v in losses], [int(s) for s in handler.sample_clients(cands, losses)]


@claim("peers.fedlab.powerofchoice", citation="FedLab 1.3.0 contrib/algorithm/powerofchoice.py; Cho, Wang, Joshi "
                                              "(2022) Alg. 1",
       statement="FedLab's Powerofchoice draws d distinct candidates, its trainer's evaluate gives their losses at the "
                 "server model (rtol 1e-9), and sample_clients returns the m candidates of highest loss")
@needs("fedlab")
def fedlab_powerofchoice_claim(ctx: Context) -> Outcome:
    """Losses vs the multinomial problem's client losses (cross-entropy, FedLab's criterion); selection vs
    :func:`fairtheory.algorithms.power_of_choice.is_valid_selection`; with distinct losses, equal to
    :func:`~fairtheory.algorithms.power_of_choice.select`."""
    from fairtheory.algorithms.power_of_choice import is_valid_selection, select

    rng = ctx.rng("peers.fedlab.powerofchoice")
    parts = {"candidate losses": Tally(), "selection": Tally()}
    with float64_torch():
        for _ in range(ctx.count(30, 200)):
            n, d_in, C = int(rng.integers(1, 8)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
            d = int(rng.integers(1, n + 1))
            m = int(rng.integers(1, d + 1))
            data = softmax_clients(rng, n, d_in, C)
            W = rng.normal(size=(d_in, C))
            seed = int(rng.integers(2**31))
            inst = _instance(data, W, n=n, d=d, m=m, seed=seed)
            res = attempt(lambda data=data, W=W, d=d, m=m, seed=seed: fedlab_powerofchoice(data, W, d=d, m=m, seed=seed))
            if isinstance(res, BaseException):
                for t in parts.values():
                    vec_equal(t, res, 1.0, rtol=1e-9, instance=inst, size=n)
                continue
            cands, losses, sel = res
            exact = np.asarray(multinomial(data, C).losses(W.ravel()), dtype=np.float64)
            vec_equal(parts["candidate losses"], np.asarray(losses), exact[cands], rtol=1e-9, instance=inst, size=n)
            f = np.asarray(losses)
            ok = len(cands) == d and len(set(cands)) == d and is_valid_selection(sel, cands, f, m)
            if ok and len(set(f.tolist())) == f.size:
                ok = sel == [int(k) for k in select(cands, f, m)]
            parts["selection"].equal(1.0 if ok else 0.0, 1.0, rtol=1e-9, instance={**inst, "candidates": cands,
                                                                                   "selected": sel}, size=n)
    return combine_parts(parts, explain="losses: component of largest deviation from the exact client losses; "
                                        "selection: 1 if a valid pow-d selection, else 0",
                         note=f"{note('fedlab')}; FedLab draws the candidates uniformly (random.sample), i.e. the "
                              "paper's rule with equal data fractions p; losses through FedLab's full-batch dataloader "
                              "convention")
