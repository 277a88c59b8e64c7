"""One rFedFair round (002 Algorithm 1, ``kappa`` local steps + one averaging): vectorised vs per-client loop.

Both implementations compute the same iterates (asserted to 1e-12) on a logistic problem with
``n = 1000`` clients, ``d = 20``, 50 samples each.  They are timed side by side: every trial runs the
loop round and the vectorised round once each, in alternating order, and the speed-up of the trial
is their ratio; the reported speed-up is the median over the trials (the machine may be shared, so
single timings are noisy).  In every trial each implementation runs two rounds back to back: the
*first* starts with the caches as the other implementation left them (the vectorised round then
re-reads its 8 MB design from memory), the *steady* second is what each round of a training run costs.
Both are reported; the acceptance threshold applies to the steady median speed-up, >= 20x (exit code 1
below).

Extra lines: the torch CPU backend (same vectorised code on torch tensors; ratio against the loop
of its own trials, after the numpy ones) and, with ``--profile``, where one vectorised step spends
its time, next to the cost of the elementwise transcendental functions alone and of one pass over
the data.

Run: ``python benchmarks/bench_rfedfair.py [--n 1000 --d 20 --m 50 --kappa 5 --trials 15 --torch
--torch-threads 1 --profile]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fairtheory.algorithms import rfedfair as R  # noqa: E402
from fairtheory.algorithms.base import Algorithm  # noqa: E402
from fairtheory.backend import to_numpy  # noqa: E402
from fairtheory.problems.logistic import LogisticProblem  # noqa: E402

ACCEPT = 20.0


def make_problem(n: int, d: int, m: int, seed: int = 0) -> LogisticProblem:
    """Heterogeneous logistic clients (shifted features, noisy labels)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n * m, d)) + np.repeat(rng.normal(scale=0.5, size=(n, d)), m, axis=0)
    w_true = rng.normal(size=d)
    y = np.where(rng.uniform(size=n * m) < 1 / (1 + np.exp(-X @ w_true)), 1.0, -1.0)
    return LogisticProblem(X, y, np.arange(0, n * m + 1, m))


def client_blocks(problem: LogisticProblem) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(X_i, y_i)`` of every client, as the per-client loop keeps them (built once, not timed)."""
    o = problem.offsets
    return [(problem.X[o[i]:o[i + 1]], problem.y[o[i]:o[i + 1]]) for i in range(problem.n)]


def loop_round(problem: LogisticProblem, blocks: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray,
               eta: float, *, lr: float, mu: float, alpha: np.ndarray, kappa: int) -> tuple[np.ndarray, float]:
    """The straightforward implementation: a Python loop over clients, each with its own data."""
    W_out, E_out = [], []
    for i, (Xi, yi) in enumerate(blocks):
        wi, ei = w.copy(), float(eta)
        for _ in range(kappa):
            z = yi * (Xi @ wi)
            f = float(np.mean(np.logaddexp(0.0, -z)))
            g = Xi.T @ (-yi / (1.0 + np.exp(z))) / len(z)
            s = 1.0 / (1.0 + np.exp(-(f - ei) / mu)) / alpha[i]
            wi = wi - lr * s * g
            ei = ei - lr * (1.0 - s)
        W_out.append(wi)
        E_out.append(ei)
    return problem.p @ np.array(W_out), float(problem.p @ np.array(E_out))


def round_start(alg: Algorithm, w: Any, eta: float) -> R.State:
    """The state right after a broadcast of ``(w, eta)``, at step ``t = 1``: steps ``1, ..., kappa-1``
    are local and step ``kappa`` averages (the arithmetic of a round of Algorithm 1 between two
    broadcasts).  ``w`` numpy or torch."""
    return dataclasses.replace(alg.init(w, eta), t=1)


def vectorised_round(alg: Algorithm, start: R.State, kappa: int) -> tuple[Any, float]:
    """``kappa`` steps of :func:`fairtheory.algorithms.rfedfair.make`'s ``step`` from ``start``.

    The hyper-parameters are validated when the algorithm is made (once, as
    :func:`~fairtheory.algorithms.rfedfair.run_rfedfair` does once per run), not in the round."""
    step = alg.step
    s = start
    for _ in range(kappa):
        s = step(s, None)
    return s.w, float(s.eta)


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _median_time(fn: Callable[[], Any], reps: int) -> float:
    return float(np.median([_timed(fn) for _ in range(reps)]))


def bench(n: int = 1000, d: int = 20, m: int = 50, kappa: int = 5, trials: int = 15,
          torch: bool = False, torch_threads: int = 0) -> dict[str, Any]:
    prob = make_problem(n, d, m)
    alpha = np.full(n, 0.5)
    w0 = np.full(d, 0.05)
    kw = dict(lr=0.05, mu=0.1, alpha=alpha, kappa=kappa)
    blocks = client_blocks(prob)
    alg = R.make(prob, **kw)
    start = round_start(alg, w0, 0.2)
    wv, ev = vectorised_round(alg, start, kappa)
    wl, el = loop_round(prob, blocks, w0, 0.2, **kw)
    err = max(float(np.max(np.abs(wv - wl))), abs(ev - el))
    assert err <= 1e-12, f"vectorised and loop rounds differ by {err}"
    fns: dict[str, Callable[[], Any]] = {
        "loop": lambda: loop_round(prob, blocks, w0, 0.2, **kw),
        "numpy": lambda: vectorised_round(alg, start, kappa),
    }
    out: dict[str, Any] = {"n": n, "d": d, "m": m, "kappa": kappa, "trials": trials, "max_abs_diff": err}
    if torch:
        import torch as th

        if torch_threads:
            th.set_num_threads(torch_threads)
        start_t = round_start(alg, th.as_tensor(w0, dtype=th.float64), 0.2)
        wt, et = vectorised_round(alg, start_t, kappa)
        err_t = max(float(np.max(np.abs(to_numpy(wt) - wv))), abs(et - ev))
        assert err_t <= 1e-12, f"torch and numpy rounds differ by {err_t}"
        fns["torch"] = lambda: vectorised_round(alg, start_t, kappa)
        out.update(torch_threads=th.get_num_threads(), torch_max_abs_diff=err_t)
    # numpy first, torch in its own trials afterwards (torch's worker threads can keep spinning after
    # a call and slow whatever runs next)
    loop_all: list[float] = []
    for k in [name for name in fns if name != "loop"]:
        t = {(impl, when): [] for impl in ("loop", k) for when in ("first", "steady")}
        for trial in range(trials):
            for impl in (("loop", k) if trial % 2 == 0 else (k, "loop")):
                t[impl, "first"].append(_timed(fns[impl]))   # right after the other implementation ran
                t[impl, "steady"].append(_timed(fns[impl]))  # a second round straight after the first
        for when in ("first", "steady"):
            ratios = np.array(t["loop", when]) / np.array(t[k, when])
            sfx = "" if when == "steady" else "_first"
            out[f"{k}_s{sfx}"] = float(np.median(t[k, when]))
            out[f"{k}_loop_s{sfx}"] = float(np.median(t["loop", when]))
            out[f"{k}_ratio{sfx}"] = float(np.median(ratios))
            out[f"{k}_ratio_range{sfx}"] = (float(ratios.min()), float(ratios.max()))
        loop_all += t["loop", "steady"]
    out["loop_s"] = float(np.median(loop_all))
    return out


def profile(n: int = 1000, d: int = 20, m: int = 50, reps: int = 30) -> dict[str, float]:
    """Median seconds of the pieces of one vectorised step, the loop's cost per step, and floors."""
    from fairtheory.problems.logistic import _scratch

    prob = make_problem(n, d, m)
    alpha = np.full(n, 0.5)
    kw = dict(lr=0.05, mu=0.1, alpha=alpha, kappa=5)
    alg = R.make(prob, **kw)

    def step(state: R.State) -> R.State:
        return alg.step(state, None)

    s0 = round_start(alg, np.full(d, 0.05), 0.2)  # W a broadcast of one model
    s = step(s0)  # clients' models differ
    blocks = client_blocks(prob)
    W = s.W
    A3 = prob._eval_data(W)["A3"]
    AT = A3.transpose(0, 2, 1)
    z = np.matmul(W[:, None, :], AT)
    _, coef = prob._row_terms(z.copy(), None, True, True, _scratch)
    zz = np.abs(z)
    buf = np.empty_like(z)
    res = {
        "step (first of a round: one shared model)": _median_time(lambda: step(s0), reps),
        "step (local)": _median_time(lambda: step(s), reps),
        "loss_grad_each": _median_time(lambda: prob.loss_grad_each(W), reps),
        "  margins: batched matmul": _median_time(lambda: np.matmul(W[:, None, :], AT, out=buf), reps),
        "  elementwise loss + sigmoid": _median_time(
            lambda: prob._row_terms(np.copyto(buf, z) or buf, None, True, True, _scratch), reps),
        "  gradients: batched matmul": _median_time(lambda: np.matmul(coef, A3), reps),
        "floor: exp + log1p on n*m entries": _median_time(
            lambda: (np.exp(zz, out=buf), np.log1p(buf, out=buf)), reps),
        "floor: one read of the data (copy n*m*d)": _median_time(lambda: A3.copy(), reps),
        "loop: one step (all clients)": _median_time(
            lambda: loop_round(prob, blocks, np.full(d, 0.05), 0.2, lr=0.05, mu=0.1, alpha=alpha, kappa=1),
            max(3, reps // 5)),
    }
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--m", type=int, default=50)
    ap.add_argument("--kappa", type=int, default=5)
    ap.add_argument("--trials", type=int, default=15)
    ap.add_argument("--torch", action="store_true", help="also time the torch CPU backend")
    ap.add_argument("--torch-threads", type=int, default=0, help="torch.set_num_threads (0: leave)")
    ap.add_argument("--profile", action="store_true", help="break one vectorised step down")
    a = ap.parse_args(argv)
    r = bench(a.n, a.d, a.m, a.kappa, a.trials, a.torch, a.torch_threads)
    print(f"rFedFair round: n={r['n']} d={r['d']} m={r['m']} kappa={r['kappa']}; medians of {r['trials']} "
          f"interleaved trials (max |diff| loop vs vectorised {r['max_abs_diff']:.1e})")
    print(f"  per-client loop : {r['numpy_loop_s'] * 1e3:9.2f} ms steady, "
          f"{r['numpy_loop_s_first'] * 1e3:.2f} ms first")
    lo, hi = r["numpy_ratio_range"]
    print(f"  vectorised numpy: {r['numpy_s'] * 1e3:9.2f} ms steady   speed-up {r['numpy_ratio']:6.1f}x "
          f"(trials {lo:.1f}-{hi:.1f}; acceptance >= {ACCEPT:g}x)")
    lo, hi = r["numpy_ratio_range_first"]
    print(f"                    {r['numpy_s_first'] * 1e3:9.2f} ms first    speed-up {r['numpy_ratio_first']:6.1f}x "
          f"(trials {lo:.1f}-{hi:.1f})")
    if a.torch:
        lo, hi = r["torch_ratio_range"]
        print(f"  (torch trials)  : {r['torch_loop_s'] * 1e3:9.2f} ms per-client loop")
        print(f"  vectorised torch: {r['torch_s'] * 1e3:9.2f} ms   speed-up {r['torch_ratio']:6.1f}x "
              f"(trials {lo:.1f}-{hi:.1f}; CPU, {r['torch_threads']} thread(s); "
              f"max |diff| vs numpy {r['torch_max_abs_diff']:.1e})")
    if a.profile:
        print("  profile of one step (medians):")
        for k, v in profile(a.n, a.d, a.m).items():
            print(f"    {k:44s} {v * 1e3:8.3f} ms")
    return 0 if r["numpy_ratio"] >= ACCEPT else 1


if __name__ == "__main__":
    raise SystemExit(main())
