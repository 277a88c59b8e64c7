r"""Peer audit of Flower 1.41: both q-FedAvg strategies against q-FedAvg's server step (003 Alg. 2).

* ``peers.flwr.qfedavg``: ``flwr.serverapp.strategy.QFedAvg.aggregate_train`` (Message API);
* ``peers.flwr.qfedavg_legacy``: ``flwr.server.strategy.QFedAvg.aggregate_fit``.

The ``prepare_*`` functions build the strategy and its replies and return a zero-argument function that
runs only Flower's server-side code (``benchmarks/bench_peers.py`` times that function alone, and
measures Flower's time per reply: one ``gc.collect()`` each).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from verify.claims.peers.compare import combine_parts, qffl_check
from verify.claims.peers.support import needs, note, quiet
from verify.core import Context, Outcome, claim

__all__ = ["prepare_flwr_qfedavg", "prepare_flwr_qfedavg_legacy", "gc_frozen"]


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
        with quiet("flwr"):
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
        with quiet("flwr"):
            params, _ = strategy.aggregate_fit(1, results, [])
        return np.asarray(parameters_to_ndarrays(params)[0], dtype=np.float64)

    return call


def gc_frozen(call: Callable[[], Any]) -> Any:
    """``call()`` with the objects that exist now moved out of the garbage collector's reach."""
    import gc

    gc.freeze()
    try:
        return call()
    finally:
        gc.unfreeze()


@claim("peers.flwr.qfedavg", citation="Flower 1.41 flwr.serverapp.strategy.QFedAvg; 003 Alg. 2",
       statement="Flower's Message-API QFedAvg.aggregate_train takes the q-FedAvg step of 003 Alg. 2 "
                 "(offset 1e-10, L = 1/client_learning_rate, F_k = the reply's train_loss), rtol 1e-9")
@needs("flwr")
def flwr_qfedavg_claim(ctx: Context) -> Outcome:
    """Agreement is checked with the process's existing objects frozen out of the garbage collector: every
    reply's ``ArrayRecord.to_numpy_ndarrays(keep_input=False)`` runs ``gc.collect()``, which walks every
    object of this process (memory management only).  What that costs as shipped is measured by
    ``benchmarks/bench_peers.py`` (its Flower table), not here."""
    out = qffl_check(ctx, "flwr", "peers.flwr.qfedavg", 1e-10,
                     lambda c: gc_frozen(prepare_flwr_qfedavg(c["w"], c["W"], c["F"], q=c["q"], lr=c["lr"])),
                     count=(10, 200))
    out.note += ("; checked with the process's objects frozen out of the collector (each reply runs one "
                 "gc.collect(); its time as shipped: python benchmarks/bench_peers.py --only flwr)")
    return out


@claim("peers.flwr.qfedavg_legacy", citation="Flower 1.41 flwr.server.strategy.QFedAvg.aggregate_fit; 003 Alg. 2",
       statement="Flower's legacy QFedAvg.aggregate_fit takes the q-FedAvg step of 003 Alg. 2 with each client's "
                 "loss F_k (offset 1e-10, L = 1/qffl_learning_rate), rtol 1e-9",
       expected="refuted")
@needs("flwr")
def flwr_qfedavg_legacy_claim(ctx: Context) -> Outcome:
    """Two configurations: the default strategy (no ``evaluate_fn``) and an ``evaluate_fn`` returning the mean
    client loss (the server-side loss the strategy reads; the clients' own ``F_k`` travel in ``metrics``)."""
    outs = {}
    for part, ev in (("default (no evaluate_fn)", None), ("evaluate_fn = mean client loss", "mean")):
        outs[part] = qffl_check(ctx, "flwr", "peers.flwr.qfedavg_legacy", 1e-10,
                                lambda c, ev=ev: prepare_flwr_qfedavg_legacy(
                                    c["w"], c["W"], c["F"], q=c["q"], lr=c["lr"],
                                    evaluate_loss=None if ev is None else float(np.mean(c["F"])))())
    return combine_parts(outs, note=f"{note('flwr')}; the legacy strategy weights every client by (loss + 1e-10)^q "
                                    "with the loss of its evaluate_fn, one number for all clients")
