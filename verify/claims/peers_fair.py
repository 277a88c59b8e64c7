r"""Peer audit, second half: the fair methods users run - FedFa, Ditto and power-of-choice selection
(FLGo, FedLab) and SQwash's superquantile weights and reducer modules - against fairtheory's own
implementations (:mod:`fairtheory.algorithms.ditto`, :mod:`~fairtheory.algorithms.fedfa`,
:mod:`~fairtheory.algorithms.power_of_choice`) and exact references.

Claims (each calls the peer's own code in-process; ``skipped`` with the install command when the peer
does not import, through :mod:`verify.claims.peers`' helpers):

* ``peers.flgo.fedfa``: FLGo's FedFa ``Server.iterate`` with the server momentum switched off
  (``eta = 0``) and one-hot client models, so that the new model *is* the weight vector; vs
  :func:`fairtheory.algorithms.fedfa.weights` with FLGo's constants inside the logarithms;
* ``peers.flgo.ditto``: FLGo's Ditto ``Client.train`` (global and personal solvers) on quadratic clients
  over two rounds vs :func:`fairtheory.algorithms.base.local_steps` / :func:`~fairtheory.algorithms.ditto.personal_steps`,
  the personal model's distance to the exact personalised optimum (contraction bound), and the
  checkpoint round trip of the personal models;
* ``peers.flgo.powerofchoice``: FLGo's ``Server.sample`` (the candidate set is read off the clients it
  asks for their loss) vs the pow-d rule :func:`~fairtheory.algorithms.power_of_choice.is_valid_selection`;
* ``peers.fedlab.ditto``: ``DittoSerialClientTrainer`` as shipped (``local_process``) and its ``train``
  with the attributes it reads set by hand, on softmax-regression clients vs the multinomial problem;
* ``peers.fedlab.powerofchoice``: ``Powerofchoice.sample_candidates`` / ``sample_clients`` and
  ``PowerofchoiceSerialClientTrainer.evaluate`` vs the pow-d rule and the clients' exact losses;
* ``peers.sqwash.superquantile_grad``: the autograd gradient of ``reduce_superquantile`` vs the exact
  dual weights (a gradient must be a maximiser over the capped simplex, :class:`fairtheory.sets.CappedSimplex`);
* ``peers.sqwash.smooth_weights``: ``solve_qp_for_l2_smooth_superquantile`` (and the gradient of
  ``reduce_superquantile_smooth``) vs the exact projection and the Clarabel QP;
* ``peers.sqwash.SuperquantileReducer`` / ``SuperquantileSmoothReducer``: the ``torch.nn.Module``
  reducers' forward value and backward gradient vs the exact ones.
"""

from __future__ import annotations

import importlib
import math
import random
import types
from typing import Any

import numpy as np

from verify.claims.peers import (
    _combine,
    _err,
    _flgo_feed,
    _flgo_model,
    _flgo_server,
    _flgo_value,
    _import_fedlab_qfedavg,
    _lst,
    _note,
    _skipped,
    _try,
    float64_torch,
    peer_version,
    superquantile,
    vec_equal,
)
from verify.core import Context, Outcome, Tally, claim

__all__ = ["flgo_fedfa_weights", "flgo_ditto_train", "flgo_ditto_checkpoint", "flgo_powerofchoice_sample",
           "fedlab_ditto_train", "fedlab_ditto_local_process", "fedlab_powerofchoice", "sqwash_grad",
           "sqwash_smooth_weights", "sqwash_module", "FLGO_EPS", "exact_grad_error", "smooth_weights_exact", "smooth_weights_qp"]

#: FLGo 0.4.4 fedfa.py: ``-log2(acc/sum + 1e-6)`` and ``-log2(1 - f/sum + 1e-5)``
FLGO_EPS = (1e-6, 1e-5)


# ============================================================================ FLGo: FedFa
def flgo_fedfa_weights(acc: Any, freq: Any, *, beta: float = 0.5) -> np.ndarray:
    """FLGo's FedFa ``Server.iterate`` on one round whose client ``i`` sends the one-hot model ``e_i``, with
    accuracy ``acc[i]`` and participation count ``freq[i]``; the server momentum is off (``eta = 0``), so
    the new model is ``sum_i p_i e_i = p``: FLGo's aggregation weights.  Call inside :func:`float64_torch`."""
    import flgo.algorithm.fedfa as ffa

    m = len(acc)
    S = _flgo_server(ffa, np.zeros(m), beta=beta, alpha=1.0 - beta, gamma=0.9, eta=0.0)
    S.m = _flgo_model(np.zeros(m))
    _flgo_feed(S, list(range(m)), {"model": [_flgo_model(e) for e in np.eye(m)], "loss": [0.0] * m,
                                   "acc": [float(a) for a in acc], "freq": [int(f) for f in freq]})
    S.iterate()
    return _flgo_value(S.model)


@claim("peers.flgo.fedfa", citation="FLGo 0.4.4 algorithm/fedfa.py; Huang et al. (2020) FedFa",
       statement="FLGo's FedFa Server.iterate aggregates with p_i = (1-beta) a_i/sum a + beta b_i/sum b, a_i = "
                 "-log2(ACC_i/sum ACC + 1e-6), b_i = -log2(1 - f_i/sum f + 1e-5) (FLGo's constants), rtol 1e-9",
       expected="refuted")
def flgo_fedfa_claim(ctx: Context) -> Outcome:
    """FLGo's weights vs :func:`fairtheory.algorithms.fedfa.weights` (with FLGo's constants); the detail
    ``flgo_vs_paper_rule`` is the largest deviation from the paper's rule (constants ``0``)."""
    if peer_version("flgo") is None:
        return _skipped("flgo")
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
            peer = _try(lambda acc=acc, freq=freq, beta=beta: flgo_fedfa_weights(acc, freq, beta=beta))
            inst = {"kind": kind, "acc": _lst(acc), "freq": [int(f) for f in freq], "beta": beta}
            # weights lie in [0, 1]: deviations relative to 1 (floor); an exception, a wrong shape or nan disagrees
            vec_equal(tally, peer, ours, rtol=1e-9, instance=inst, size=acc.size, floor=1.0)
            if not isinstance(peer, BaseException) and np.shape(peer) == ours.shape and np.all(np.isfinite(peer)):
                agree = max(agree, float(np.max(np.abs(peer - ours))))
    return tally.outcome(note=f"{_note('flgo')}; server momentum off (eta = 0), one-hot client models: FLGo's new model "
                              "is its weight vector; FLGo's constants 1e-6, 1e-5 inside the logarithms mapped",
                         details={"flgo_vs_paper_rule": worst_paper, "largest_deviation_where_finite": agree},
                         explain="measured = FLGo's weight of largest deviation, bound = fairtheory.algorithms.fedfa."
                                 "weights with FLGo's constants; a NaN weight fails")


# ============================================================================ FLGo: Ditto
def _quadratic_calculator(H: np.ndarray, c: np.ndarray, e: float) -> Any:
    """An FLGo ``BasicTaskCalculator`` whose loss is ``0.5 (v - c)^T H (v - c) + e`` of the model's vector."""
    import torch
    from flgo.benchmark.base import BasicTaskCalculator

    Ht, ct = torch.as_tensor(H, dtype=torch.float64), torch.as_tensor(c, dtype=torch.float64)

    class Quadratic(BasicTaskCalculator):
        def compute_loss(self, model: Any, data: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
            r = model.w - ct
            return {"loss": 0.5 * r @ (Ht @ r) + e}

    return Quadratic(torch.device("cpu"), "SGD")


def _flgo_ditto_client(H: np.ndarray, c: np.ndarray, *, lr: float, mu: float, steps: int) -> Any:
    import flgo.algorithm.ditto as fd
    import torch

    C = object.__new__(fd.Client)
    C.model, C.mu, C.num_steps, C.learning_rate = None, mu, steps, lr
    C.weight_decay, C.momentum, C.clip_grad, C.device = 0.0, 0.0, 0.0, torch.device("cpu")
    C.calculator = _quadratic_calculator(H, c, 0.0)
    C.get_batch_data = lambda: None
    return C


def flgo_ditto_train(H: np.ndarray, c: np.ndarray, rounds: list[np.ndarray], *, lr: float, mu: float,
                     steps: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """FLGo's Ditto ``Client.train`` of one quadratic client, once per global model in ``rounds``: returns
    ``(global solver's local model, personal model)`` after each.  Call inside :func:`float64_torch`."""
    C = _flgo_ditto_client(H, c, lr=lr, mu=mu, steps=steps)
    out = []
    for w in rounds:
        mdl = _flgo_model(np.asarray(w, dtype=np.float64))
        C.train(mdl)
        out.append((_flgo_value(mdl), _flgo_value(C.model)))
    return out


def flgo_ditto_checkpoint(v: np.ndarray) -> np.ndarray:
    """FLGo's Ditto ``Server.save_checkpoint`` state of one client's personal model ``v``, loaded back with
    ``Server.load_checkpoint`` into a fresh client: returns the restored personal model."""
    import flgo.algorithm.ditto as fd

    client = types.SimpleNamespace(model=_flgo_model(np.asarray(v, dtype=np.float64)))
    cpt = {"cmodels": [client.model.state_dict()]}
    S = _flgo_server(fd, np.zeros(len(v)), option={}, gv=types.SimpleNamespace(simulator=None),
                     clients=[object.__new__(fd.Client)])
    S.load_checkpoint(cpt)
    return _flgo_value(S.clients[0].model)


def _contraction(H: np.ndarray, lr: float, mu: float) -> float:
    eig = np.linalg.eigvalsh(H)
    return float(np.max(np.abs(1.0 - lr * (mu + eig))))


@claim("peers.flgo.ditto", citation="FLGo 0.4.4 algorithm/ditto.py; Li et al. (2021) Ditto Alg. 1",
       statement="FLGo's Ditto Client.train runs the global solver's SGD on F_k and the personal solver's SGD on "
                 "F_k(v) + mu/2 ||v - w||^2 (rtol 1e-9 over two rounds), its personal model approaches the exact "
                 "personalised optimum within the contraction bound, and a checkpoint restores the personal models",
       expected="refuted")
def flgo_ditto_claim(ctx: Context) -> Outcome:
    """Parts: the two solvers vs fairtheory over two rounds; the distance to the exact optimum
    ``(H + mu I)^{-1}(H c + mu w)`` (:func:`fairtheory.algorithms.ditto.personal_optimum_exact`) within
    ``rho^S ||v_0 - v*||``; the checkpoint round trip of ``Server.save_checkpoint``'s ``cmodels``."""
    if peer_version("flgo") is None:
        return _skipped("flgo")
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
            if lr * (mu + float(np.linalg.eigvalsh(H).max())) >= 1.9:
                lr = 0.5 / (mu + float(np.linalg.eigvalsh(H).max()))
            P = QuadraticProblem(H[None], c[None])
            w1, w2 = rng.normal(size=d), rng.normal(size=d)
            inst = {"d": d, "H": _lst(H), "c": _lst(c), "lr": lr, "mu": mu, "steps": steps, "w": [_lst(w1), _lst(w2)]}
            peer = _try(lambda H=H, c=c, w1=w1, w2=w2, lr=lr, mu=mu, steps=steps:
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
                lr_long = 1.0 / (mu + float(np.linalg.eigvalsh(H).max()))
                rho = _contraction(H, lr_long, mu)
                S = int(min(400, max(20, math.ceil(-36.0 / math.log(rho))))) if rho > 0 else 1
                vstar = np.array([float(t) for t in personal_optimum_exact(P, w1, mu)[0]])
                far = _try(lambda H=H, c=c, w1=w1, lr=lr_long, mu=mu, S=S:
                           flgo_ditto_train(H, c, [w1], lr=lr, mu=mu, steps=S)[0][1])
                bound = rho ** S * float(np.linalg.norm(w1 - vstar)) \
                    + 1e-12 * max(1.0, float(np.max(np.abs(vstar))))
                dist = math.nan if isinstance(far, BaseException) else float(np.linalg.norm(far - vstar))
                worst_exact = max(worst_exact, dist)
                parts["personal model vs exact optimum"].upper(dist, bound, instance={**inst, "steps": S}, size=d)
        for d in (1, 2, 3):
            v = rng.normal(size=d)
            got = _try(lambda v=v: flgo_ditto_checkpoint(v))
            vec_equal(parts["checkpoint round trip"], got, v, rtol=0.0, instance={"d": d, "v": _lst(v)}, size=d)
    out = _combine({k: t.outcome(explain="solvers: component of largest deviation from fairtheory's local/personal "
                                         "steps; optimum: ||v_S - v*|| <= rho^S ||v_0 - v*||; checkpoint: the restored "
                                         "personal model (an exception counts as nan)") for k, t in parts.items()},
                   note=f"{_note('flgo')}; quadratic clients through an FLGo BasicTaskCalculator, full-batch SGD "
                        "(momentum 0, weight decay 0)")
    out.details["personal_vs_exact_optimum"] = worst_exact
    return out


# ============================================================================ FLGo: power-of-choice
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
    S = _flgo_server(fp, np.zeros(1), d=d, clients_per_round=m, num_clients=n, clients=[client(k) for k in range(n)])
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
def flgo_powerofchoice_claim(ctx: Context) -> Outcome:
    """Checked against :func:`fairtheory.algorithms.power_of_choice.is_valid_selection` (any tie order)."""
    if peer_version("flgo") is None:
        return _skipped("flgo")
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
        seeds = range(8) if i == 0 else [int(rng.integers(2**31))]
        for seed in seeds:
            res = _try(lambda losses=losses, sizes=sizes, d=d, m=m, seed=seed:
                       flgo_powerofchoice_sample(losses, sizes, d=d, m=m, seed=seed))
            inst = {"losses": _lst(losses), "sizes": [int(s) for s in sizes], "d": d, "m": m, "seed": seed}
            if isinstance(res, BaseException):
                tally.equal(math.nan, 1.0, rtol=0.0, instance={**inst, "peer_error": _err(res)}, size=len(losses))
                continue
            asked, sel = res
            ok = len(asked) == min(d, len(losses)) and len(set(asked)) == len(asked) and \
                is_valid_selection(sel, asked, losses[asked], m)
            inst.update(candidates=sorted(asked), selected=sel,
                        rule=[int(k) for k in select(sorted(asked), losses[sorted(asked)], m)])
            tally.equal(1.0 if ok else 0.0, 1.0, rtol=0.0, instance=inst, size=len(losses) + d / 10)
    return tally.outcome(note=f"{_note('flgo')}; the candidate set is the set of clients FLGo's sample() asks for their "
                              "loss; ties in the loss may be broken in any order",
                         explain="measured = 1 if FLGo's selection is m distinct candidates none of which has a "
                                 "smaller loss than an unselected candidate, else 0; bound = 1")


# ============================================================================ FedLab: Ditto
def _fedlab_module(name: str) -> Any:
    _import_fedlab_qfedavg()  # imports fedlab.contrib.algorithm (all its algorithms) with the torchvision stand-ins
    return importlib.import_module(f"fedlab.contrib.algorithm.{name}")


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


def _fedlab_linear(W: np.ndarray) -> Any:
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


def fedlab_ditto_train(data: list[tuple[np.ndarray, np.ndarray]], W: np.ndarray, V: list[np.ndarray], *, lr: float,
                       mu: float, epochs: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """FedLab's ``DittoSerialClientTrainer.train`` for each client ``k`` (global model ``W``, personal model
    ``V[k]``, full-batch loader), with the ``args`` it reads (``epochs``, ``lr``, ``mu``) set by hand:
    returns ``(global solver's local model, personal model)`` per client, as ``(d_in, C)`` matrices."""
    fd = _fedlab_module("ditto")
    from fedlab.utils import Logger

    d_in, C = W.shape
    trainer = fd.DittoSerialClientTrainer(_fedlab_linear(W), len(data), cuda=False, logger=Logger(log_name="ft.fedlab"))
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
    fd = _fedlab_module("ditto")
    from fedlab.utils import Logger

    trainer = fd.DittoSerialClientTrainer(_fedlab_linear(W), len(data), cuda=False, logger=Logger(log_name="ft.fedlab"))
    trainer.setup_dataset(_Data(data))
    trainer.setup_optim(epochs, None, lr)
    trainer.local_process([_flat(W)], list(range(len(data))))
    return trainer.uplink_package


def _multinomial(data: list[tuple[np.ndarray, np.ndarray]], C: int) -> Any:
    from fairtheory.problems.multinomial import MultinomialProblem

    X = np.concatenate([x for x, _ in data])
    y = np.concatenate([t for _, t in data])
    off = np.concatenate([[0], np.cumsum([len(t) for _, t in data])])
    return MultinomialProblem(X, y, off, C, intercept=False)


def _softmax_clients(rng: np.random.Generator, n: int, d_in: int, C: int) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for _ in range(n):
        X = rng.normal(size=(int(rng.integers(1, 6)), d_in))
        out.append((X, rng.integers(0, C, size=len(X))))
    return out


@claim("peers.fedlab.ditto", citation="FedLab 1.3.0 contrib/algorithm/ditto.py; Li et al. (2021) Ditto Alg. 1",
       statement="FedLab's DittoSerialClientTrainer runs a round (local_process) and its train takes the global "
                 "solver's and the personal solver's gradient steps on the clients' cross-entropy (personal: "
                 "+ mu/2 ||v - w||^2), rtol 1e-9",
       expected="refuted")
def fedlab_ditto_claim(ctx: Context) -> Outcome:
    """Parts: as shipped (``local_process``); ``train`` with ``args`` set by hand, full batch, vs
    :func:`fairtheory.algorithms.base.local_steps` and :func:`fairtheory.algorithms.ditto.personal_steps`
    on the multinomial problem (softmax cross-entropy, no intercept)."""
    if peer_version("fedlab") is None:
        return _skipped("fedlab")
    from fairtheory.algorithms.base import local_steps
    from fairtheory.algorithms.ditto import personal_steps

    rng = ctx.rng("peers.fedlab.ditto")
    parts = {"as shipped (local_process)": Tally(), "train, args set by hand": Tally()}
    with float64_torch():
        for k in range(ctx.count(10, 60)):
            n, d_in, C = (1, 1, 2) if k == 0 else (int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(2, 4)))
            data = _softmax_clients(rng, n, d_in, C)
            W = rng.normal(size=(d_in, C))
            V = [rng.normal(size=(d_in, C)) for _ in range(n)]
            lr, mu, ep = float(rng.choice([0.05, 0.1, 0.5])), float(rng.choice([0.0, 0.1, 1.0])), int(rng.integers(1, 4))
            P = _multinomial(data, C)
            w = W.ravel()
            G = local_steps(P, np.tile(w, (n, 1)), lr=lr, kappa=ep).W
            Vp = personal_steps(P, np.array([v.ravel() for v in V]), w, lr=lr, lam=mu, steps=ep)
            ours = np.concatenate([np.concatenate([G[i], Vp[i]]) for i in range(n)])
            inst = {"n": n, "d_in": d_in, "C": C, "lr": lr, "mu": mu, "epochs": ep, "W": _lst(W),
                    "data": [[_lst(X), [int(t) for t in y]] for X, y in data]}
            size = n * d_in * C + sum(len(y) for _, y in data)
            shipped = _try(lambda data=data, W=W, lr=lr, ep=ep: fedlab_ditto_local_process(data, W, lr=lr, epochs=ep))
            if isinstance(shipped, BaseException):
                parts["as shipped (local_process)"].equal(math.nan, 1.0, rtol=1e-9, scale=1.0,
                                                         instance={**inst, "peer_error": _err(shipped)}, size=size)
            else:
                parts["as shipped (local_process)"].equal(1.0, 1.0, rtol=1e-9, instance=inst, size=size)
            peer = _try(lambda data=data, W=W, V=V, lr=lr, mu=mu, ep=ep: fedlab_ditto_train(data, W, V, lr=lr, mu=mu,
                                                                                            epochs=ep))
            got = peer if isinstance(peer, BaseException) else np.concatenate(
                [np.concatenate([g.ravel(), v.ravel()]) for g, v in peer])
            vec_equal(parts["train, args set by hand"], got, ours, rtol=1e-9, instance={**inst, "V": [_lst(v) for v in V]},
                      size=size)
    return _combine({k: t.outcome(explain="as shipped: 1 if local_process runs, nan if it raises; train: the component "
                                          "of largest deviation from fairtheory's global and personal steps")
                     for k, t in parts.items()},
                    note=f"{_note('fedlab')}; Linear(d_in, C, bias=False) float64, CrossEntropyLoss (FedLab's), full "
                         "batch; the model matrix is the transposed torch weight")


# ============================================================================ FedLab: power-of-choice
def fedlab_powerofchoice(data: list[tuple[np.ndarray, np.ndarray]], W: np.ndarray, *, d: int, m: int,
                         seed: int) -> tuple[list[int], list[float], list[int]]:
    """FedLab's power-of-choice round: ``Powerofchoice.sample_candidates()`` (Python's ``random`` seeded with
    ``seed``), ``PowerofchoiceSerialClientTrainer.evaluate`` of the candidates at ``W`` and
    ``sample_clients(candidates, losses)``; ``m = num_clients_per_round`` through ``sample_ratio = m/n``."""
    fp = _fedlab_module("powerofchoice")
    from fedlab.utils import Logger

    n = len(data)
    log = Logger(log_name="ft.fedlab")
    handler = fp.Powerofchoice(_fedlab_linear(W), global_round=1, sample_ratio=m / n, logger=log)
    handler.num_clients = n
    handler.setup_optim(d)
    trainer = fp.PowerofchoiceSerialClientTrainer(_fedlab_linear(W), n, cuda=False, logger=log)
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
def fedlab_powerofchoice_claim(ctx: Context) -> Outcome:
    """Losses vs the multinomial problem's client losses (cross-entropy, FedLab's criterion); selection vs
    :func:`fairtheory.algorithms.power_of_choice.is_valid_selection`; with distinct losses, equal to
    :func:`~fairtheory.algorithms.power_of_choice.select`."""
    if peer_version("fedlab") is None:
        return _skipped("fedlab")
    from fairtheory.algorithms.power_of_choice import is_valid_selection, select

    rng = ctx.rng("peers.fedlab.powerofchoice")
    parts = {"candidate losses": Tally(), "selection": Tally()}
    with float64_torch():
        for _ in range(ctx.count(30, 200)):
            n, d_in, C = int(rng.integers(1, 8)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
            d = int(rng.integers(1, n + 1))
            m = int(rng.integers(1, d + 1))
            data = _softmax_clients(rng, n, d_in, C)
            W = rng.normal(size=(d_in, C))
            seed = int(rng.integers(2**31))
            inst = {"n": n, "d": d, "m": m, "seed": seed, "W": _lst(W),
                    "data": [[_lst(X), [int(t) for t in y]] for X, y in data]}
            res = _try(lambda data=data, W=W, d=d, m=m, seed=seed: fedlab_powerofchoice(data, W, d=d, m=m, seed=seed))
            if isinstance(res, BaseException):
                for t in parts.values():
                    t.equal(math.nan, 1.0, rtol=1e-9, scale=1.0, instance={**inst, "peer_error": _err(res)}, size=n)
                continue
            cands, losses, sel = res
            exact = np.asarray(_multinomial(data, C).losses(W.ravel()), dtype=np.float64)
            vec_equal(parts["candidate losses"], np.asarray(losses), exact[cands], rtol=1e-9, instance=inst, size=n)
            f = np.asarray(losses)
            ok = len(cands) == d and len(set(cands)) == d and is_valid_selection(sel, cands, f, m)
            if ok and len(set(f.tolist())) == f.size:
                ok = sel == [int(k) for k in select(cands, f, m)]
            parts["selection"].equal(1.0 if ok else 0.0, 1.0, rtol=1e-9, instance={**inst, "candidates": cands,
                                                                                   "selected": sel}, size=n)
    return _combine({k: t.outcome(explain="losses: component of largest deviation from the exact client losses; "
                                          "selection: 1 if a valid pow-d selection, else 0")
                     for k, t in parts.items()},
                    note=f"{_note('fedlab')}; FedLab draws the candidates uniformly (random.sample), i.e. the paper's "
                         "rule with equal data fractions p; losses through FedLab's full-batch dataloader convention")


# ============================================================================ SQwash
def sqwash_grad(x: Any, theta: float) -> tuple[float, np.ndarray]:
    """``reduce_superquantile`` of a float64 tensor of ``x`` and its autograd gradient."""
    import torch
    from sqwash import reduce_superquantile

    t = torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    v = reduce_superquantile(t, theta)
    v.backward()
    return float(v.detach()), t.grad.numpy().astype(np.float64)


def sqwash_module(x: Any, theta: float, nu: float | None = None) -> tuple[float, np.ndarray]:
    """``SuperquantileReducer(theta)`` (``nu is None``) or ``SuperquantileSmoothReducer(theta, nu)`` called as
    a module on a float64 tensor of ``x``: forward value and the gradient of its backward pass."""
    import torch
    from sqwash import SuperquantileReducer, SuperquantileSmoothReducer

    mod = SuperquantileReducer(theta) if nu is None else SuperquantileSmoothReducer(theta, nu)
    t = torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    v = mod(t)
    v.backward()
    return float(v.detach()), t.grad.numpy().astype(np.float64)


def sqwash_smooth_weights(x: Any, theta: float, nu: float) -> np.ndarray:
    """SQwash's primal solution of the smoothed QP, ``solve_qp_for_l2_smooth_superquantile``."""
    import torch
    from sqwash.qp_solve import solve_qp_for_l2_smooth_superquantile

    q = solve_qp_for_l2_smooth_superquantile(torch.as_tensor(np.asarray(x, dtype=np.float64)), theta, nu)
    return q.numpy().astype(np.float64)


def _caps(n: int, theta: float) -> np.ndarray:
    return np.ones(n) if theta <= 0 else np.full(n, 1.0 / (theta * n))


def exact_grad_error(x: Any, theta: float, g: Any) -> float:
    r"""How far ``g`` is from being a gradient (a subgradient) of the superquantile at ``x``: the subdifferential
    is the set of maximisers ``argmax_{q in C} q . x`` over the capped simplex ``C``, so the error is the
    larger of ``g``'s infeasibility in ``C`` and ``(SQ(x) - g . x)/max(1, max|x|)`` (``0`` iff ``g`` is one)."""
    v = np.asarray(x, dtype=np.float64)
    q = np.asarray(g, dtype=np.float64)
    if not np.all(np.isfinite(q)):
        return math.inf
    u = _caps(v.size, theta)
    infeas = max(float(np.max(-q, initial=0.0)), float(np.max(q - u, initial=0.0)), abs(float(np.sum(q)) - 1.0))
    gap = abs(superquantile(v, theta) - float(q @ v)) / max(1.0, float(np.max(np.abs(v))))
    return max(infeas, gap)


def smooth_weights_exact(x: Any, theta: float, nu: float) -> np.ndarray:
    """The maximiser ``q* = Proj_C(1/n + n x/nu)`` of the smoothed superquantile (closed-form projection,
    :meth:`fairtheory.sets.CappedSimplex.project`)."""
    from fairtheory.sets import CappedSimplex

    v = np.asarray(x, dtype=np.float64)
    return CappedSimplex(_caps(v.size, theta)).project(1.0 / v.size + v.size * v / nu)


def smooth_weights_qp(x: Any, theta: float, nu: float) -> tuple[np.ndarray, float]:
    """The same maximiser from the certified Clarabel projection QP, and its accuracy radius ``sqrt(2 gap)``
    (1-strong convexity: the exact projection lies within it)."""
    from fairtheory.exact.capped import project_qp
    from fairtheory.sets import CappedSimplex

    v = np.asarray(x, dtype=np.float64)
    qp = project_qp(CappedSimplex(_caps(v.size, theta)), 1.0 / v.size + v.size * v / nu)
    return qp.weights, float(np.sqrt(2.0 * max(qp.certificate["gap"], 0.0)))


def _sq_cases(ctx: Context, salt: str, count: tuple[int, int]) -> list[tuple[np.ndarray, float, float]]:
    """``(x, theta, size)``: a small exhaustive grid (values in {0, 1, 2}), then random vectors (their size
    is ``n + 0.5`` so that at equal ``n`` a grid counterexample is reported)."""
    rng = ctx.rng(salt)
    cases = []
    grid = [0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.7, 0.75, 0.9, 1.0]
    for n in range(1, 4):
        for vals in np.ndindex(*(3,) * n):
            for th in grid:
                cases.append((np.array(vals, dtype=np.float64), th, float(n)))
    for _ in range(ctx.count(*count)):
        n = int(rng.integers(1, 30))
        x = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
        if rng.uniform() < 0.3:
            x = np.round(x)
        cases.append((x, float(rng.choice([rng.uniform(0, 1), *grid])), n + 0.5))
    return cases


def _smooth_cases(ctx: Context, salt: str, count: tuple[int, int]) -> list[tuple[np.ndarray, float, float]]:
    rng = ctx.rng(salt)
    cases = []
    for n in range(1, 9):
        for th in (0.25, 0.5, 1.0):
            cases.append((np.zeros(n), th, 1.0))
            cases.append((np.arange(n, dtype=np.float64), th, 1.0))
    for _ in range(ctx.count(*count)):
        n = int(rng.integers(1, 25))
        x = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
        if rng.uniform() < 0.3:
            x = np.round(x)
        cases.append((x, float(rng.choice([0.1, 0.25, 0.5, 0.75, 1.0, rng.uniform(0.05, 1)])),
                      float(rng.choice([0.01, 0.1, 1.0, 10.0]))))
    return cases


_SQ_NOTE = ("superquantile_tail_fraction theta = upper-tail mass, caps 1/(theta n); a gradient must be a maximiser of "
            "q.x over the capped simplex (the superquantile's subdifferential); tolerance 1e-6 (SQwash's tail weight is "
            "formed in float32)")


@claim("peers.sqwash.superquantile_grad", citation="SQwash 0.1.0 reduce_superquantile (autograd); Rockafellar-Uryasev (2000)",
       statement="the autograd gradient of sqwash.reduce_superquantile(x, theta) is a maximiser of q.x over the capped "
                 "simplex {0 <= q <= 1/(theta n), sum q = 1} (the exact dual weights), to 1e-6",
       expected="refuted")
def sqwash_grad_claim(ctx: Context) -> Outcome:
    if peer_version("sqwash") is None:
        return _skipped("sqwash")
    from fairtheory.sets import CappedSimplex

    tally, unique_dev, agree = Tally(), 0.0, 0.0
    for x, th, size in _sq_cases(ctx, "peers.sqwash.superquantile_grad", (200, 2000)):
        res = _try(lambda x=x, th=th: sqwash_grad(x, th))
        inst = {"x": _lst(x), "theta": th}
        if isinstance(res, BaseException):
            tally.equal(math.nan, 0.0, rtol=1e-6, scale=1.0, instance={**inst, "peer_error": _err(res)}, size=size)
            continue
        err = exact_grad_error(x, th, res[1])
        if err <= 1e-6:
            agree = max(agree, err)
        tally.equal(err, 0.0, rtol=1e-6, scale=1.0, instance={**inst, "gradient": _lst(res[1]),
                                                              "exact": _lst(CappedSimplex(_caps(x.size, th)).argmax(x))},
                    size=size)
        if err <= 1e-6 and len(set(x.tolist())) == x.size:
            unique_dev = max(unique_dev, float(np.max(np.abs(res[1] - CappedSimplex(_caps(x.size, th)).argmax(x)))))
    return tally.outcome(note=f"{_note('sqwash')}. {_SQ_NOTE}", details={"distinct_x_agreeing_vs_argmax": unique_dev,
                                                                     "largest_error_where_a_subgradient": agree},
                         explain="measured = max(infeasibility of SQwash's gradient in the capped simplex, "
                                 "|SQ(x) - g.x|/max(1, |x|)), bound = 0")


@claim("peers.sqwash.smooth_weights",
       citation="SQwash 0.1.0 qp_solve.solve_qp_for_l2_smooth_superquantile; Laguel et al. (2021)",
       statement="SQwash's primal weights of the smoothed QP (and the gradient of reduce_superquantile_smooth) equal "
                 "q* = Proj_C(1/n + n x/nu) (closed-form projection, Clarabel QP), rtol 1e-9",
       expected="refuted")
def sqwash_smooth_weights_claim(ctx: Context) -> Outcome:
    if peer_version("sqwash") is None:
        return _skipped("sqwash")
    parts = {"solve_qp_for_l2_smooth_superquantile": Tally(), "gradient of reduce_superquantile_smooth": Tally()}
    worst_ref, agree = 0.0, 0.0
    for k, (x, th, nu) in enumerate(_smooth_cases(ctx, "peers.sqwash.smooth_weights", (150, 1500))):
        ours = smooth_weights_exact(x, th, nu)
        if k % 11 == 0:  # closed form vs the QP: within the QP's certified radius sqrt(2 gap)
            qp, radius = smooth_weights_qp(x, th, nu)
            dist = float(np.linalg.norm(qp - ours))
            if not dist <= radius + 1e-9:  # float rounding of the gap itself (as peers.flgo.afl)
                raise AssertionError(f"smoothed weights: projection {dist:.3e} from the QP's, beyond its certified "
                                     f"radius {radius:.3e} on {(x, th, nu)}")
            worst_ref = max(worst_ref, dist)
        inst = {"x": _lst(x), "theta": th, "nu": nu}
        vec_equal(parts["solve_qp_for_l2_smooth_superquantile"],
                  _try(lambda x=x, th=th, nu=nu: sqwash_smooth_weights(x, th, nu)), ours, rtol=1e-9, instance=inst,
                  size=x.size, floor=1.0)

        def grad(x: np.ndarray = x, th: float = th, nu: float = nu) -> np.ndarray:
            import torch
            from sqwash import reduce_superquantile_smooth

            t = torch.tensor(x, requires_grad=True)
            reduce_superquantile_smooth(t, th, nu).backward()
            return t.grad.numpy().astype(np.float64)

        vec_equal(parts["gradient of reduce_superquantile_smooth"], _try(grad), ours, rtol=1e-9, instance=inst, size=x.size,
                  floor=1.0)
        peer = _try(lambda x=x, th=th, nu=nu: sqwash_smooth_weights(x, th, nu))
        if not isinstance(peer, BaseException) and np.shape(peer) == ours.shape and np.all(np.isfinite(peer)):
            agree = max(agree, float(np.max(np.abs(peer - ours))))
    out = _combine({k: t.outcome(explain="measured = SQwash's weight of largest deviation, bound = the exact maximiser "
                                         "(an exception counts as nan)") for k, t in parts.items()},
                   note=f"{_note('sqwash')}; caps 1/(theta n); the smoothed objective max_q q.x - nu/(2n)||q - 1/n||^2 "
                        "has the unique maximiser Proj_C(1/n + n x/nu)")
    out.details["projection_vs_qp"] = worst_ref
    out.details["largest_deviation_where_sqwash_returns"] = agree
    return out


def _module_claim(ctx: Context, smooth: bool) -> Outcome:
    parts = {"forward value": Tally(), "backward gradient": Tally()}
    if smooth:
        from verify.claims.peers import superquantile_smooth

        for x, th, nu in _smooth_cases(ctx, "peers.sqwash.SuperquantileSmoothReducer", (100, 1000)):
            inst = {"x": _lst(x), "theta": th, "nu": nu}
            res = _try(lambda x=x, th=th, nu=nu: sqwash_module(x, th, nu))
            val, q = superquantile_smooth(x, th, nu), smooth_weights_exact(x, th, nu)
            scale = max(1.0, float(np.max(np.abs(x))))
            if isinstance(res, BaseException):
                bad = {**inst, "peer_error": _err(res)}
                parts["forward value"].equal(math.nan, val, rtol=1e-9, scale=scale, instance=bad, size=x.size)
                parts["backward gradient"].equal(math.nan, 0.0, rtol=1e-9, scale=1.0, instance=bad, size=x.size)
                continue
            parts["forward value"].equal(res[0], val, rtol=1e-9, scale=scale, instance=inst, size=x.size)
            vec_equal(parts["backward gradient"], res[1], q, rtol=1e-9, instance=inst, size=x.size, floor=1.0)
        tol_note = "rtol 1e-9"
    else:
        for x, th, size in _sq_cases(ctx, "peers.sqwash.SuperquantileReducer", (150, 1500)):
            inst = {"x": _lst(x), "theta": th}
            res = _try(lambda x=x, th=th: sqwash_module(x, th))
            scale = max(1.0, float(np.max(np.abs(x))))
            if isinstance(res, BaseException):
                bad = {**inst, "peer_error": _err(res)}
                parts["forward value"].equal(math.nan, 0.0, rtol=1e-6, scale=1.0, instance=bad, size=size)
                parts["backward gradient"].equal(math.nan, 0.0, rtol=1e-6, scale=1.0, instance=bad, size=size)
                continue
            parts["forward value"].equal(res[0], superquantile(x, th), rtol=1e-6, scale=scale, instance=inst, size=size)
            parts["backward gradient"].equal(exact_grad_error(x, th, res[1]), 0.0, rtol=1e-6, scale=1.0,
                                             instance={**inst, "gradient": _lst(res[1])}, size=size)
        tol_note = "tolerance 1e-6 (float32 tail weight)"
    name = "SuperquantileSmoothReducer" if smooth else "SuperquantileReducer"
    return _combine({k: t.outcome(explain="forward: the module's value vs the exact one; backward: the gradient vs the "
                                          "exact maximiser (smoothed) / its distance from the subdifferential")
                     for k, t in parts.items()}, note=f"{_note('sqwash')}; sqwash.{name} called as a torch module; {tol_note}")


@claim("peers.sqwash.SuperquantileReducer", citation="SQwash 0.1.0 reducers.SuperquantileReducer; Rockafellar-Uryasev (2000)",
       statement="sqwash.SuperquantileReducer(theta) as a module: its forward value is the superquantile and its "
                 "backward gradient a maximiser over the capped simplex, to 1e-6",
       expected="refuted")
def sqwash_reducer_claim(ctx: Context) -> Outcome:
    if peer_version("sqwash") is None:
        return _skipped("sqwash")
    return _module_claim(ctx, smooth=False)


@claim("peers.sqwash.SuperquantileSmoothReducer",
       citation="SQwash 0.1.0 reducers.SuperquantileSmoothReducer; Laguel et al. (2021)",
       statement="sqwash.SuperquantileSmoothReducer(theta, nu) as a module: its forward value is the smoothed "
                 "superquantile and its backward gradient the exact maximiser, rtol 1e-9",
       expected="refuted")
def sqwash_smooth_reducer_claim(ctx: Context) -> Outcome:
    if peer_version("sqwash") is None:
        return _skipped("sqwash")
    return _module_claim(ctx, smooth=True)
