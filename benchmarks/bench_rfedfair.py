"""One rFedFair round (002 Algorithm 1, ``kappa`` local steps + one averaging): vectorised vs per-client loop.

Both implementations compute the same iterates (asserted) on a logistic problem with ``n = 1000``
clients, ``d = 20``, 50 samples each; they are timed side by side in one run and the speed-up ratio
is reported (acceptance: >= 20x).

Run: ``python benchmarks/bench_rfedfair.py [--n 1000 --d 20 --m 50 --kappa 5 --repeats 5]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fairtheory.algorithms import rfedfair as R  # noqa: E402
from fairtheory.problems.logistic import LogisticProblem  # noqa: E402


def make_problem(n: int, d: int, m: int, seed: int = 0) -> LogisticProblem:
    """Heterogeneous logistic clients (shifted features, noisy labels)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n * m, d)) + np.repeat(rng.normal(scale=0.5, size=(n, d)), m, axis=0)
    w_true = rng.normal(size=d)
    y = np.where(rng.uniform(size=n * m) < 1 / (1 + np.exp(-X @ w_true)), 1.0, -1.0)
    return LogisticProblem(X, y, np.arange(0, n * m + 1, m))


def loop_round(problem: LogisticProblem, w: np.ndarray, eta: float, *, beta: float, mu: float,
               alpha: np.ndarray, kappa: int) -> tuple[np.ndarray, float]:
    """The straightforward implementation: a Python loop over clients, each with its own data."""
    Xs = [problem.X[problem.offsets[i]:problem.offsets[i + 1]] for i in range(problem.n)]
    ys = [problem.y[problem.offsets[i]:problem.offsets[i + 1]] for i in range(problem.n)]
    W_out, E_out = [], []
    for i in range(problem.n):
        wi, ei = w.copy(), float(eta)
        for _ in range(kappa):
            z = ys[i] * (Xs[i] @ wi)
            f = float(np.mean(np.logaddexp(0.0, -z)))
            g = Xs[i].T @ (-ys[i] / (1.0 + np.exp(z))) / len(z)
            s = 1.0 / (1.0 + np.exp(-(f - ei) / mu)) / alpha[i]
            wi = wi - beta * s * g
            ei = ei - beta * (1.0 - s)
        W_out.append(wi)
        E_out.append(ei)
    return problem.p @ np.array(W_out), float(problem.p @ np.array(E_out))


def vectorised_round(problem: LogisticProblem, w: np.ndarray, eta: float, *, beta: float, mu: float,
                     alpha: np.ndarray, kappa: int) -> tuple[np.ndarray, float]:
    """``kappa`` calls of :func:`fairtheory.algorithms.rfedfair.step` starting at a communication.

    The averaging happens at the round's last step: start at step ``t = 1`` so that steps
    ``1, ..., kappa-1`` are local and step ``kappa`` averages.  (Same arithmetic as a round of
    Algorithm 1 between two broadcasts.)"""
    s = R.init(problem, w, eta)
    s = R.State(**{**s.__dict__, "t": 1})
    for _ in range(kappa):
        s = R.step(s, problem, None, beta=beta, mu=mu, alpha=alpha, kappa=kappa)
    return np.asarray(s.w), float(s.eta)


def bench(n: int = 1000, d: int = 20, m: int = 50, kappa: int = 5, repeats: int = 5) -> dict[str, float]:
    prob = make_problem(n, d, m)
    alpha = np.full(n, 0.5)
    w0 = np.full(d, 0.05)
    kw = dict(beta=0.05, mu=0.1, alpha=alpha, kappa=kappa)
    wv, ev = vectorised_round(prob, w0, 0.2, **kw)
    wl, el = loop_round(prob, w0, 0.2, **kw)
    err = max(float(np.max(np.abs(wv - wl))), abs(ev - el))
    assert err <= 1e-12, f"vectorised and loop rounds differ by {err}"

    def best(fn) -> float:
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn(prob, w0, 0.2, **kw)
            ts.append(time.perf_counter() - t0)
        return min(ts)

    t_vec = best(vectorised_round)
    t_loop = best(loop_round)
    return {"n": n, "d": d, "m": m, "kappa": kappa, "loop_s": t_loop, "vectorised_s": t_vec,
            "ratio": t_loop / t_vec, "max_abs_diff": err}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--m", type=int, default=50)
    ap.add_argument("--kappa", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    r = bench(a.n, a.d, a.m, a.kappa, a.repeats)
    print(f"rFedFair round: n={r['n']} d={r['d']} m={r['m']} kappa={r['kappa']}")
    print(f"  per-client loop : {r['loop_s'] * 1e3:9.2f} ms")
    print(f"  vectorised      : {r['vectorised_s'] * 1e3:9.2f} ms")
    print(f"  speed-up        : {r['ratio']:9.1f}x   (acceptance >= 20x; max |diff| {r['max_abs_diff']:.1e})")
    return 0 if r["ratio"] >= 20 else 1


if __name__ == "__main__":
    raise SystemExit(main())
