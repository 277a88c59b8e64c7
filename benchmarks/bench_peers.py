"""Speed side by side: each audited peer function against fairtheory's on the same inputs, in one process.

Run ``python benchmarks/bench_peers.py [--repeat 9] [--only flgo] [--json PATH] [--markdown PATH]
[--clock cpu|wall]``.  BLAS and torch run single-threaded and are timed by the process's CPU time by
default (``--clock wall``: wall clock); every contender is called once untimed (warm-up), then the
contenders of one row are interleaved on the same inputs and the median of ``--repeat`` (>= 9) runs is
reported.  Only the server-side function is timed: the peer's inputs (FLGo server objects and client
packages, Flower messages, FedLab client uploads) are built before each timed call, outside the timing.
A peer that is not installed is listed with its install command.  The answers are compared too (the
last column: the audit's findings show there).

Rows (peer vs fairtheory):

* ``sqwash.reduce_superquantile`` vs :meth:`CappedSimplex.support` (caps ``1/(theta n)``), n = 100,000;
* ``sqwash.reduce_superquantile_smooth`` vs the closed-form projection, n = 2,000;
* FLGo FedFV ``Server.iterate`` vs :func:`fedfv_aggregate.aggregate`, m = 20, d = 10,000;
* FedMGDA+, m = 50, d = 10,000: FLGo's whole ``Server.aggregate`` vs :func:`fedmgda.aggregate`
  (difference: the direction); the min-norm point of 50 unit gradients (simplex), "the Gram product
  plus FLGo's cvxopt QP" (``np.dot(Jt, Jt.T)`` and FLGo's ``optim_lambda`` lines, FLGo's ``quadprog``)
  vs :func:`exact.min_norm.min_norm_point` (which also returns the point ``v = U^T lam``; difference:
  ``||d||^2``); FLGo's QP on a given Gram matrix vs :func:`exact.min_norm.min_norm_weights` (simplex
  and the FedMGDA+ box, eps = 0.1); plain numpy ``U / (||g_i|| + 1e-8)`` vs :func:`fedmgda.normalise`;
* FLGo AFL ``Server.iterate`` vs the projected step, n = 50, d = 10,000;
* FLGo q-FedAvg ``Server.iterate`` (sums the clients' ``dk``, ``hk``), Flower ``aggregate_train`` /
  ``aggregate_fit`` and FedLab ``global_update`` vs the q-FFL step from the local models and losses
  (fairtheory does the clients' part too), m = 20, d = 10,000.

Flower's Message-API ``QFedAvg.aggregate_train`` reads every reply with
``ArrayRecord.to_numpy_ndarrays(keep_input=False)``, which calls ``gc.collect()``: its time per reply is
one full collection, proportional to the number of live container objects of the *whole process*.  The
second table measures that: live objects (``len(gc.get_objects())``), one ``gc.collect()``, and
``aggregate_train`` per reply, as shipped and with the existing objects frozen out of the collector
(``gc.freeze()``), at the benchmark's own process state and with 10^5 / 10^6 extra small lists alive.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from verify.claims.peers import compare, fedlab, flgo, flower, sqwash, support

Setup = Callable[[], Callable[[], Any]]

#: the clock: ``time.process_time`` (CPU time of this process; every contender runs single-threaded, so
#: this is its compute time and does not count the time the shared machine gives to other processes)
#: or ``time.perf_counter`` (wall clock), chosen by ``--clock``
CLOCK: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = CLOCK["cpu"]


def prepare_flgo_fedmgda_lambda(U: Any, lam0: Any, *, epsilon: float, models: bool = False) -> Callable[[], np.ndarray]:
    """FLGo's FedMGDA+ weights ``optim_lambda`` for the rows of ``U`` (the normalised updates).

    ``models=True``: FLGo's own ``Server.optim_lambda`` on one ``FModule`` per row (it deep-copies and
    flattens each model, then forms ``P = 2 Jt Jt^T``); ``models=False``: the same lines from the stacked
    array ``Jt = U`` on (FLGo 0.4.4 ``fedmgda.py``: ``P = 2 np.dot(Jt, Jt.T)``, bounds and constraint
    matrices built as there, FLGo's ``Server.quadprog`` - cvxopt at its defaults), i.e. the Gram product
    plus FLGo's QP.  Returns a function giving ``lam`` (numpy)."""
    import types

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

    grads = [support.flgo_model(x) for x in U] if models else None

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


def _fedmgda_cases(rng: np.random.Generator) -> list[dict[str, Any]]:
    from fairtheory.algorithms import fedmgda
    from fairtheory.exact.min_norm import fedmgda_box, min_norm_point, min_norm_weights

    cases: list[dict[str, Any]] = []
    m, d = 50, 10_000
    Um = rng.normal(size=(m, d)) + 0.3 * rng.normal(size=d)
    sizes = rng.integers(10, 100, size=m)
    lam0 = sizes / sizes.sum()

    def dir_diff(peer: Any, ours: Any) -> float:
        return float(np.max(np.abs(np.asarray(peer) + np.asarray(ours))))  # peer: new model w - d (w = 0)

    cases.append({"name": "flgo FedMGDA+ Server.aggregate (whole)", "lib": "flgo", "size": f"m={m}, d={d}, eps=0.1",
                  "fp64": True, "diff": "direction",
                  "peer": lambda: flgo.prepare_flgo_fedmgda(np.zeros(d), -Um, sizes=sizes, epsilon=0.1),
                  "ours": lambda: (lambda: fedmgda.aggregate(Um, lam0, epsilon=0.1, offset=1e-8)[0]),
                  "compare": dir_diff})
    Un = Um / np.linalg.norm(Um, axis=1, keepdims=True)  # 50 unit gradients in R^10000
    G = Un @ Un.T
    flat = np.full(m, 1.0 / m)

    def sq_diff(peer: Any, ours: Any) -> float:
        lam = np.asarray(peer)
        return abs(float(lam @ G @ lam) - float(ours.value) ** 2)

    cases.append({"name": "min-norm point: Gram + FLGo's cvxopt QP", "lib": "flgo", "size": f"m={m}, d={d}, simplex",
                  "diff": "||d||^2", "goal": 2.0,
                  "peer": lambda: prepare_flgo_fedmgda_lambda(Un, flat, epsilon=1.0),
                  "ours": lambda: (lambda: min_norm_point(Un)), "compare": sq_diff})

    def lam_diff(peer: Any, ours: Any) -> float:
        a, b = np.asarray(peer), np.asarray(ours[0])
        return abs(float(a @ G @ a) - float(b @ G @ b))

    # FLGo's QP on the Gram matrix: its lines build P = 2 Jt Jt^T from Jt = the Cholesky factor of G
    # (an m x m product, ~10 us), so the timing is FLGo's QP set-up and cvxopt's solve
    R = np.linalg.cholesky(G)
    for eps, label in ((1.0, "simplex"), (0.1, "box eps=0.1")):
        lo, hi = fedmgda_box(lam0, eps)
        cases.append({"name": f"min_norm_weights vs FLGo's QP on the Gram ({label})", "lib": "flgo",
                      "size": f"m={m}, {label}", "diff": "||d||^2",
                      "peer": lambda R=R, eps=eps: prepare_flgo_fedmgda_lambda(R, lam0, epsilon=eps),
                      "ours": lambda lo=lo, hi=hi: (lambda: min_norm_weights(G, lo=lo, hi=hi)), "compare": lam_diff})

    cases.append({"name": "fedmgda.normalise vs plain numpy", "lib": "numpy", "size": f"m={m}, d={d}",
                  "diff": "max |diff|",
                  "peer": lambda: (lambda: Um / (np.linalg.norm(Um, axis=1, keepdims=True) + 1e-8)),
                  "ours": lambda: (lambda: fedmgda.normalise(Um, 1e-8))})
    return cases


def _cases(rng: np.random.Generator) -> list[dict[str, Any]]:
    from fairtheory.algorithms import fedfv_aggregate
    from fairtheory.sets import CappedSimplex

    cases: list[dict[str, Any]] = []

    x = rng.normal(size=100_000)

    def ours_cvar() -> Callable[[], Any]:
        S = CappedSimplex.cvar(x.size, 0.3)
        return lambda: S.support(x)

    cases.append({"name": "sqwash.reduce_superquantile", "lib": "sqwash", "size": "n=100000, theta=0.3",
                  "peer": lambda: (lambda: sqwash.sqwash_superquantile(x, 0.3)), "ours": ours_cvar})
    xs = rng.normal(size=2000)
    cases.append({"name": "sqwash.reduce_superquantile_smooth", "lib": "sqwash", "size": "n=2000, theta=0.3, nu=1",
                  "peer": lambda: (lambda: sqwash.sqwash_superquantile_smooth(xs, 0.3, 1.0)),
                  "ours": lambda: (lambda: compare.superquantile_smooth(xs, 0.3, 1.0))})

    m, d = 20, 10_000
    U = rng.normal(size=(m, d)) + 0.3 * rng.normal(size=d)
    losses = rng.uniform(size=m)
    H, R = np.zeros((m, d)), -np.ones(m, dtype=int)
    fedfv_kw = {"alpha": 0.1, "tau": 1, "t": 1, "history": H, "history_round": R, "clients": list(range(m))}
    cases.append({"name": "flgo FedFV Server.iterate", "lib": "flgo", "size": f"m={m}, d={d}", "fp64": True,
                  "peer": lambda: flgo.prepare_flgo_fedfv(np.zeros(d), U, losses, **fedfv_kw),
                  "ours": lambda: (lambda: fedfv_aggregate.aggregate(U, losses, alpha=0.1, tau=1, t=1,
                                                                     history=U, history_round=np.ones(m, dtype=int),
                                                                     keep_rule="reference", window="reference"))})

    cases += _fedmgda_cases(rng)

    n, d = 50, 10_000
    w = rng.normal(size=d)
    W = w + rng.normal(size=(n, d))
    F = rng.uniform(0, 3, size=n)
    lam = rng.dirichlet(np.ones(n))
    cases.append({"name": "flgo AFL Server.iterate", "lib": "flgo", "size": f"n={n}, d={d}", "fp64": True,
                  "peer": lambda: flgo.prepare_flgo_afl(w, W, F, lam=lam, lr=0.1, lr_lam=0.01, t=1, w_avg=w),
                  "ours": lambda: (lambda: compare.afl_update(w, W, F, lam, 0.1, 0.01, 1, w)),
                  "compare": lambda peer, ours: max(float(np.max(np.abs(a - b))) for a, b in zip(peer, ours, strict=True))})

    m, d = 20, 10_000
    wq = rng.normal(size=d)
    Wq = wq + 0.1 * rng.normal(size=(m, d))
    Fq = rng.uniform(0.1, 3, size=m)
    ours_q = {o: (lambda o=o: (lambda: compare.qffl_update(wq, Wq, Fq, 1.0, 0.1, o))) for o in (1e-8, 1e-10)}
    cases.append({"name": "flgo q-FedAvg Server.iterate", "lib": "flgo", "size": f"m={m}, d={d}, q=1", "fp64": True,
                  "peer": lambda: flgo.prepare_flgo_qfedavg(wq, Wq, Fq, q=1.0, lr=0.1), "ours": ours_q[1e-8]})
    cases.append({"name": "flwr QFedAvg.aggregate_train (Message API)", "lib": "flwr", "size": f"m={m}, d={d}, q=1",
                  "per_reply": m + 1,  # one gc.collect() for the current arrays and one per reply
                  "peer": lambda: flower.prepare_flwr_qfedavg(wq, Wq, Fq, q=1.0, lr=0.1), "ours": ours_q[1e-10]})
    cases.append({"name": "flwr QFedAvg.aggregate_fit (legacy)", "lib": "flwr", "size": f"m={m}, d={d}, q=1",
                  "peer": lambda: flower.prepare_flwr_qfedavg_legacy(wq, Wq, Fq, q=1.0, lr=0.1,
                                                                evaluate_loss=float(np.mean(Fq))),
                  "ours": ours_q[1e-10]})
    data = [(rng.normal(size=(4, d)), rng.normal(size=4)) for _ in range(m)]

    def ours_fedlab() -> Callable[[], Any]:
        # the clients' part (local SGD, losses at w) is built here, like FedLab's uploads
        local = np.array([compare.local_sgd(wq, X, y, lr=0.1, epochs=1, batch_size=4) for X, y in data])
        Fk = np.array([float(np.mean((X @ wq - y) ** 2)) for X, y in data])
        return lambda: compare.qffl_update(wq, local, Fk, 1.0, 0.1, 1e-10)

    cases.append({"name": "fedlab qFedAvgServerHandler.global_update", "lib": "fedlab", "size": f"m={m}, d={d}, q=1",
                  "fp64": True, "peer": lambda: fedlab.prepare_fedlab_qfedavg(wq, data, q=1.0, lr=0.1)[0],
                  "ours": ours_fedlab})
    return cases


def _timed(setup: Setup, fp64: bool) -> tuple[float, Any]:
    import contextlib

    ctx = support.float64_torch() if fp64 else contextlib.nullcontext()
    with ctx:
        fn = setup()  # inputs built here, outside the timing
        t0 = _clock()
        out = fn()
        return _clock() - t0, out


def _version(lib: str) -> str | None:
    return np.__version__ if lib == "numpy" else support.peer_version(lib)


def run(repeat: int, only: str | None = None, seed: int = 0) -> list[dict[str, Any]]:
    import torch

    torch.set_num_threads(1)
    rows = []
    with threadpool_limits(1):
        for case in _cases(np.random.default_rng(seed)):
            if only and only not in case["name"] and only != case["lib"]:
                continue
            version = _version(case["lib"])
            row = {"name": case["name"], "lib": case["lib"], "version": version, "size": case["size"],
                   "diff": case.get("diff", "max |diff|")}
            if version is None:
                row["missing"] = support.PEERS[case["lib"]].install
                rows.append(row)
                continue
            fp64 = case.get("fp64", False)
            _timed(case["peer"], fp64)  # warm-up: imports, caches, first-call costs
            _timed(case["ours"], False)
            t_peer, t_ours = [], []
            peer_out = ours_out = None
            for k in range(repeat):
                order = ("peer", "ours") if k % 2 == 0 else ("ours", "peer")  # alternate who runs first
                for who in order:
                    if who == "peer":
                        tp, peer_out = _timed(case["peer"], fp64)
                        t_peer.append(tp)
                    else:
                        to, ours_out = _timed(case["ours"], False)
                        t_ours.append(to)
            cmp = case.get("compare", lambda a, b: float(np.max(np.abs(np.asarray(a) - np.asarray(b)))))
            row.update(peer_ms=1e3 * statistics.median(t_peer), ours_ms=1e3 * statistics.median(t_ours),
                       max_abs_diff=cmp(peer_out, ours_out), repeat=repeat)
            row["ratio"] = row["peer_ms"] / row["ours_ms"]
            if "goal" in case:
                row["goal"] = case["goal"]
            if "per_reply" in case:
                row["per_reply_ms"] = row["peer_ms"] / case["per_reply"]
            rows.append(row)
    return rows


def _median_ms(fn: Callable[[], Any], repeat: int) -> float:
    ts = []
    for _ in range(repeat):
        t0 = _clock()
        fn()
        ts.append(_clock() - t0)
    return 1e3 * statistics.median(ts)


def flwr_reply_timing(m: int = 20, d: int = 10_000, repeat: int = 3, seed: int = 0) -> dict[str, Any]:
    """One Flower ``QFedAvg.aggregate_train`` call of ``m`` replies (``d`` parameters each), timed as shipped
    and with the process's existing objects frozen out of the collector (``gc.freeze()``, outside the
    timing), next to one ``gc.collect()`` and the number of live gc-tracked objects of this process
    (``len(gc.get_objects())``).  Flower reads each reply with ``ArrayRecord.to_numpy_ndarrays(keep_input=False)``,
    which calls ``gc.collect()`` (``m + 1`` calls: the current model and every reply), so the time per reply
    is about one full collection: it grows with everything the process holds (torch, the test suite, the
    user's data), not with ``d``.  Medians of ``repeat`` calls (milliseconds, by the benchmark's clock); the
    inputs are built outside the timing."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    W = w + 0.1 * rng.normal(size=(m, d))
    F = rng.uniform(0.1, 3, size=m)
    gc.collect()
    live = len(gc.get_objects())
    t_gc = _median_ms(gc.collect, repeat)
    t_call, t_frozen = [], []
    for _ in range(repeat):
        t_call.append(_median_ms(flower.prepare_flwr_qfedavg(w, W, F, q=1.0, lr=0.1), 1))
        call = flower.prepare_flwr_qfedavg(w, W, F, q=1.0, lr=0.1)
        gc.freeze()
        try:
            t_frozen.append(_median_ms(call, 1))
        finally:
            gc.unfreeze()
    shipped, frozen = statistics.median(t_call), statistics.median(t_frozen)
    return {"m": m, "d": d, "live_objects": live, "gc_collect_ms": t_gc, "call_ms": shipped,
            "per_reply_ms": shipped / (m + 1), "call_frozen_ms": frozen, "per_reply_frozen_ms": frozen / (m + 1)}


def flower_gc(repeat: int, extra: tuple[int, ...] = (0, 100_000, 1_000_000), m: int = 20, d: int = 10_000,
              seed: int = 0) -> list[dict[str, Any]]:
    """Flower's per-reply time and what drives it (:func:`flwr_reply_timing`) with ``extra`` small lists alive."""
    if support.peer_version("flwr") is None:
        return []
    rows = []
    with threadpool_limits(1):
        for n_extra in extra:
            junk = [[i] for i in range(n_extra)]  # n_extra small container objects kept alive
            rows.append({"extra_objects": n_extra, **flwr_reply_timing(m, d, repeat, seed)})
            del junk
    gc.collect()
    return rows


def markdown(rows: list[dict[str, Any]], gc_rows: list[dict[str, Any]], repeat: int, clock: str = "cpu") -> str:
    out = ["| peer function | version | size | peer ms | fairtheory ms | peer / fairtheory | difference |",
           "|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        if "missing" in r:
            out.append(f"| {r['name']} | - | {r['size']} | - | - | - | not installed: `{r['missing']}` |")
            continue
        ratio = f"{r['ratio']:.1f}x"
        if "per_reply_ms" in r:
            ratio = f"({r['per_reply_ms']:.1f} ms per reply)"
        if "goal" in r:
            ratio += f" (goal >= {r['goal']:g}x: {'met' if r['ratio'] >= r['goal'] else 'NOT met'})"
        out.append(f"| {r['name']} | {r['version']} | {r['size']} | {r['peer_ms']:.3f} | {r['ours_ms']:.3f} | {ratio} | "
                   f"{r['diff']} {r['max_abs_diff']:.1e} |")
    out.append("")
    what = "CPU time of the process (time.process_time)" if clock == "cpu" else "wall clock (time.perf_counter)"
    out.append(f"Medians of {repeat} interleaved runs after a warm-up, one BLAS/torch thread, {what}.")
    if gc_rows:
        out += ["", f"Flower `QFedAvg.aggregate_train` per reply (m = {gc_rows[0]['m']}, d = {gc_rows[0]['d']}): "
                "one `gc.collect()` per reply", "",
                "| extra live lists | live gc objects | one gc.collect() ms | per reply ms (as shipped) | "
                "per reply ms (gc.freeze) |", "|---:|---:|---:|---:|---:|"]
        for g in gc_rows:
            out.append(f"| {g['extra_objects']:,} | {g['live_objects']:,} | {g['gc_collect_ms']:.1f} | "
                       f"{g['per_reply_ms']:.1f} | {g['per_reply_frozen_ms']:.3f} |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9, help="timed runs per contender (>= 9; default 9)")
    ap.add_argument("--only", help="a library (sqwash, flgo, flwr, fedlab, numpy) or part of a row name")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    ap.add_argument("--markdown", metavar="PATH", help="also write the markdown tables to PATH")
    ap.add_argument("--no-gc-table", action="store_true", help="skip Flower's gc.collect table")
    ap.add_argument("--clock", choices=sorted(CLOCK), default="cpu",
                    help="cpu: time.process_time (default; robust on a shared machine), wall: time.perf_counter")
    args = ap.parse_args()
    global _clock
    _clock = CLOCK[args.clock]
    if args.repeat < 9:
        ap.error(f"--repeat must be >= 9 (medians of at least 9 runs), got {args.repeat}")
    rows = run(args.repeat, args.only)
    gc_rows = [] if args.no_gc_table or (args.only and args.only not in ("flwr", "gc")) else flower_gc(args.repeat)
    text = markdown(rows, gc_rows, args.repeat, args.clock)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text + "\n")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "flower_gc": gc_rows, "clock": args.clock, "repeat": args.repeat}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
