"""Speed side by side: each audited peer function against fairtheory's on the same inputs, in one process.

Run ``python benchmarks/bench_peers.py [--repeat 5] [--only flgo] [--json PATH]``.  BLAS and torch run
single-threaded; the contenders of one row are interleaved and the median of ``--repeat`` runs is
reported.  Only the server-side function is timed: the peer's inputs (FLGo server objects and client
packages, Flower messages, FedLab client uploads) are built before each timed call, outside the timing.
A peer that is not installed is listed with its install command.  The answers are compared too (the
row says when they differ: the audit's findings).

Rows (peer vs fairtheory):

* ``sqwash.reduce_superquantile`` vs :meth:`CappedSimplex.support` (caps ``1/(theta n)``), n = 100,000;
* ``sqwash.reduce_superquantile_smooth`` vs the closed-form projection, n = 2,000;
* FLGo FedFV ``Server.iterate`` vs :func:`fedfv_aggregate.aggregate`, m = 20, d = 10,000;
* FLGo FedMGDA+ ``Server.aggregate`` (cvxopt) vs :func:`fedmgda.aggregate` (Gram active set), m = 50, d = 10,000;
* FLGo AFL ``Server.iterate`` vs the projected step, n = 50, d = 10,000;
* FLGo q-FedAvg ``Server.iterate`` (sums the clients' ``dk``, ``hk``), Flower ``aggregate_train`` /
  ``aggregate_fit`` and FedLab ``global_update`` vs the q-FFL step from the local models and losses
  (fairtheory does the clients' part too), m = 20, d = 10,000.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from verify.claims import peers as P

Setup = Callable[[], Callable[[], Any]]


def _cases(rng: np.random.Generator) -> list[dict[str, Any]]:
    from fairtheory.algorithms import fedfv_aggregate, fedmgda
    from fairtheory.sets import CappedSimplex

    cases: list[dict[str, Any]] = []

    x = rng.normal(size=100_000)

    def ours_cvar() -> Callable[[], Any]:
        S = CappedSimplex.cvar(x.size, 0.3)
        return lambda: S.support(x)

    cases.append({"name": "sqwash.reduce_superquantile", "lib": "sqwash", "size": "n=100000, theta=0.3",
                  "peer": lambda: (lambda: P.sqwash_superquantile(x, 0.3)), "ours": ours_cvar})
    xs = rng.normal(size=2000)
    cases.append({"name": "sqwash.reduce_superquantile_smooth", "lib": "sqwash", "size": "n=2000, theta=0.3, nu=1",
                  "peer": lambda: (lambda: P.sqwash_superquantile_smooth(xs, 0.3, 1.0)),
                  "ours": lambda: (lambda: P.superquantile_smooth(xs, 0.3, 1.0))})

    m, d = 20, 10_000
    U = rng.normal(size=(m, d)) + 0.3 * rng.normal(size=d)
    losses = rng.uniform(size=m)
    H, R = np.zeros((m, d)), -np.ones(m, dtype=int)
    fedfv_kw = {"alpha": 0.1, "tau": 1, "t": 1, "history": H, "history_round": R, "clients": list(range(m))}
    cases.append({"name": "flgo FedFV Server.iterate", "lib": "flgo", "size": f"m={m}, d={d}", "fp64": True,
                  "peer": lambda: P.prepare_flgo_fedfv(np.zeros(d), U, losses, **fedfv_kw),
                  "ours": lambda: (lambda: fedfv_aggregate.aggregate(U, losses, alpha=0.1, tau=1, t=1,
                                                                     history=U, history_round=np.ones(m, dtype=int),
                                                                     keep_rule="reference", window="reference"))})

    m, d = 50, 10_000
    Um = rng.normal(size=(m, d)) + 0.3 * rng.normal(size=d)
    sizes = rng.integers(10, 100, size=m)
    lam0 = sizes / sizes.sum()
    cases.append({"name": "flgo FedMGDA+ Server.aggregate", "lib": "flgo", "size": f"m={m}, d={d}, eps=0.1", "fp64": True,
                  "peer": lambda: P.prepare_flgo_fedmgda(np.zeros(d), -Um, sizes=sizes, epsilon=0.1),
                  "ours": lambda: (lambda: fedmgda.aggregate(Um, lam0, epsilon=0.1, offset=1e-8)[0]),
                  "compare": lambda peer, ours: abs(float(peer @ peer) - float(ours @ ours))})

    n, d = 50, 10_000
    w = rng.normal(size=d)
    W = w + rng.normal(size=(n, d))
    F = rng.uniform(0, 3, size=n)
    lam = rng.dirichlet(np.ones(n))
    cases.append({"name": "flgo AFL Server.iterate", "lib": "flgo", "size": f"n={n}, d={d}", "fp64": True,
                  "peer": lambda: P.prepare_flgo_afl(w, W, F, lam=lam, lr=0.1, lr_lam=0.01, t=1, w_avg=w),
                  "ours": lambda: (lambda: P.afl_update(w, W, F, lam, 0.1, 0.01, 1, w)),
                  "compare": lambda peer, ours: max(float(np.max(np.abs(a - b))) for a, b in zip(peer, ours, strict=True))})

    m, d = 20, 10_000
    wq = rng.normal(size=d)
    Wq = wq + 0.1 * rng.normal(size=(m, d))
    Fq = rng.uniform(0.1, 3, size=m)
    ours_q = {o: (lambda o=o: (lambda: P.qffl_update(wq, Wq, Fq, 1.0, 0.1, o))) for o in (1e-8, 1e-10)}
    cases.append({"name": "flgo q-FedAvg Server.iterate", "lib": "flgo", "size": f"m={m}, d={d}, q=1", "fp64": True,
                  "peer": lambda: P.prepare_flgo_qfedavg(wq, Wq, Fq, q=1.0, lr=0.1), "ours": ours_q[1e-8]})
    cases.append({"name": "flwr QFedAvg.aggregate_train (Message API)", "lib": "flwr", "size": f"m={m}, d={d}, q=1",
                  "peer": lambda: P.prepare_flwr_qfedavg(wq, Wq, Fq, q=1.0, lr=0.1), "ours": ours_q[1e-10]})
    cases.append({"name": "flwr QFedAvg.aggregate_fit (legacy)", "lib": "flwr", "size": f"m={m}, d={d}, q=1",
                  "peer": lambda: P.prepare_flwr_qfedavg_legacy(wq, Wq, Fq, q=1.0, lr=0.1,
                                                                evaluate_loss=float(np.mean(Fq))),
                  "ours": ours_q[1e-10]})
    data = [(rng.normal(size=(4, d)), rng.normal(size=4)) for _ in range(m)]

    def ours_fedlab() -> Callable[[], Any]:
        # the clients' part (local SGD, losses at w) is built here, like FedLab's uploads
        local = np.array([P.local_sgd(wq, X, y, lr=0.1, epochs=1, batch_size=4) for X, y in data])
        Fk = np.array([float(np.mean((X @ wq - y) ** 2)) for X, y in data])
        return lambda: P.qffl_update(wq, local, Fk, 1.0, 0.1, 1e-10)

    cases.append({"name": "fedlab qFedAvgServerHandler.global_update", "lib": "fedlab", "size": f"m={m}, d={d}, q=1",
                  "fp64": True, "peer": lambda: P.prepare_fedlab_qfedavg(wq, data, q=1.0, lr=0.1)[0],
                  "ours": ours_fedlab})
    return cases


def _timed(setup: Setup, fp64: bool) -> tuple[float, Any]:
    import contextlib

    ctx = P.float64_torch() if fp64 else contextlib.nullcontext()
    with ctx:
        fn = setup()  # inputs built here, outside the timing
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out


def run(repeat: int, only: str | None = None, seed: int = 0) -> list[dict[str, Any]]:
    import torch

    torch.set_num_threads(1)
    rows = []
    with threadpool_limits(1):
        for case in _cases(np.random.default_rng(seed)):
            if only and only not in case["name"] and only != case["lib"]:
                continue
            version = P.peer_version(case["lib"])
            row = {"name": case["name"], "lib": case["lib"], "version": version, "size": case["size"]}
            if version is None:
                row["missing"] = P.PEERS[case["lib"]].install
                rows.append(row)
                continue
            t_peer, t_ours = [], []
            peer_out = ours_out = None
            for _ in range(repeat):
                tp, peer_out = _timed(case["peer"], case.get("fp64", False))
                to, ours_out = _timed(case["ours"], False)
                t_peer.append(tp)
                t_ours.append(to)
            cmp = case.get("compare", lambda a, b: float(np.max(np.abs(np.asarray(a) - np.asarray(b)))))
            row.update(peer_ms=1e3 * statistics.median(t_peer), ours_ms=1e3 * statistics.median(t_ours),
                       max_abs_diff=cmp(peer_out, ours_out))
            row["ratio"] = row["peer_ms"] / row["ours_ms"]
            rows.append(row)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", help="a library (sqwash, flgo, flwr, fedlab) or part of a row name")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args()
    rows = run(args.repeat, args.only)
    print(f"{'peer function':46s} {'version':8s} {'size':24s} {'peer ms':>10s} {'ours ms':>10s} {'peer/ours':>9s}  max|diff|")
    for r in rows:
        if "missing" in r:
            print(f"{r['name']:46s} {'-':8s} {r['size']:24s}  not installed: {r['missing']}")
            continue
        print(f"{r['name']:46s} {r['version']:8s} {r['size']:24s} {r['peer_ms']:10.2f} {r['ours_ms']:10.2f} "
              f"{r['ratio']:9.1f}  {r['max_abs_diff']:.1e}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
