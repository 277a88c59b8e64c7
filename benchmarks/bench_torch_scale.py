"""Scale check of the torch backend: rFedFair steps on numpy vs torch (CPU, and CUDA when present).

Same logistic problem, same hyper-parameters, the same number of steps on each backend, timed side by
side in one run; float64 torch iterates are asserted to agree with numpy (1e-10), and float32 on the
GPU is reported with its deviation from the float64 result (float32 is used only here, for scale).

Run: ``python benchmarks/bench_torch_scale.py [--n 2000 --d 20 --m 50 --steps 20]``; on a GPU machine
try ``--n 100000``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_rfedfair import make_problem  # noqa: E402
from fairtheory.algorithms import rfedfair as R  # noqa: E402


def run_steps(problem, w0, steps: int, alpha: np.ndarray, sync=None) -> tuple[np.ndarray, float]:
    alg = R.make(problem, beta=0.05, mu=0.1, alpha=alpha, kappa=5)  # validated once
    s = alg.step(alg.init(w0, 0.2), None)  # warm-up (allocations, kernels)
    s = alg.init(w0, 0.2)
    if sync:
        sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        s = alg.step(s, None)
    if sync:
        sync()
    secs = time.perf_counter() - t0
    w = s.w.detach().cpu().numpy() if hasattr(s.w, "detach") else np.asarray(s.w)
    return w.astype(np.float64), secs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--m", type=int, default=50)
    ap.add_argument("--steps", type=int, default=20)
    a = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch is not installed: pip install torch==2.13.0")
        return 0
    prob = make_problem(a.n, a.d, a.m)
    alpha = np.full(a.n, 0.5)
    w_np, t_np = run_steps(prob, np.full(a.d, 0.05), a.steps, alpha)
    rows = [("numpy float64 (cpu)", t_np, 0.0)]
    w_t, t_t = run_steps(prob, torch.full((a.d,), 0.05, dtype=torch.float64), a.steps, alpha)
    err = float(np.max(np.abs(w_t - w_np)))
    assert err <= 1e-10, f"torch float64 deviates from numpy by {err}"
    rows.append(("torch float64 (cpu)", t_t, err))
    if torch.cuda.is_available():
        dev = torch.device("cuda")
        for dt in (torch.float64, torch.float32):
            w_g, t_g = run_steps(prob, torch.full((a.d,), 0.05, dtype=dt, device=dev), a.steps, alpha,
                                 sync=torch.cuda.synchronize)
            e = float(np.max(np.abs(w_g - w_np)))
            if dt == torch.float64:
                assert e <= 1e-10, f"cuda float64 deviates from numpy by {e}"
            rows.append((f"torch {str(dt).split('.')[-1]} (cuda)", t_g, e))
    print(f"rFedFair, {a.steps} steps, logistic n={a.n} d={a.d} m={a.m} "
          f"({'cuda: ' + torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'})")
    print(f"  {'backend':24s} {'ms/step':>10s} {'vs numpy':>9s} {'max|w - w_numpy|':>18s}")
    for name, secs, e in rows:
        print(f"  {name:24s} {secs / a.steps * 1e3:10.3f} {t_np / secs:8.2f}x {e:18.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
