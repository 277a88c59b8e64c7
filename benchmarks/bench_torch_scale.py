"""Scale check of the torch backend: rFedFair steps on numpy vs torch (CPU, and CUDA when present).

For each number of clients ``n`` (``--n 1000,100000,1000000``): the same logistic problem, the same
hyper-parameters and the same number of steps on each backend, timed side by side in one run.
float64 torch iterates are asserted to agree with numpy (1e-10); float32 on the GPU is reported with its
deviation from the float64 result (float32 is used only here, for scale).  Reported per row: ms per
step, the speed ratio to numpy, and the achieved memory bandwidth - the bytes of the design matrix read
by the step's two batched products (margins, gradients) divided by the step time, a lower bound on the
traffic (the elementwise pass and the model rows come on top).

numpy and torch-CPU rows are run up to ``--cpu-max-n`` clients (default 100,000); without a CUDA device
the GPU rows are skipped and the script says so.  On a GPU machine::

    python benchmarks/bench_torch_scale.py --n 1000,10000,100000,1000000 --m 10
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
    """``steps`` rFedFair steps (kappa = 5) after one warm-up step; returns the model and the seconds."""
    alg = R.make(problem, lr=0.05, mu=0.1, alpha=alpha, kappa=5)  # validated once
    s = alg.step(alg.init(w0, 0.2), None)  # warm-up (allocations, kernels, device copies of the data)
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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", default="2000", help="comma-separated client counts (default 2000)")
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--m", type=int, default=50, help="samples per client")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--cpu-max-n", type=int, default=100_000, help="largest n for the numpy / torch-CPU rows")
    a = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch is not installed: pip install torch==2.13.0")
        return 0
    cuda = torch.cuda.is_available()
    print(f"rFedFair (kappa = 5), {a.steps} steps, logistic d={a.d} m={a.m}; "
          f"{'cuda: ' + torch.cuda.get_device_name() if cuda else 'no CUDA device: GPU rows skipped'}")
    print(f"  {'n':>9s} {'backend':22s} {'ms/step':>10s} {'vs numpy':>9s} {'GB/s':>7s} {'max|w - w_float64|':>19s}")
    for n in (int(x) for x in a.n.split(",")):
        prob = make_problem(n, a.d, a.m)
        alpha = np.full(n, 0.5)
        design_bytes = prob.N * a.d  # entries read by each of the two products per step
        rows = []
        ref = None
        t_np = None
        if n <= a.cpu_max_n:
            ref, t_np = run_steps(prob, np.full(a.d, 0.05), a.steps, alpha)
            rows.append(("numpy float64 (cpu)", t_np, 0.0, 8))
            w_t, t_t = run_steps(prob, torch.full((a.d,), 0.05, dtype=torch.float64), a.steps, alpha)
            err = float(np.max(np.abs(w_t - ref)))
            assert err <= 1e-10, f"torch float64 deviates from numpy by {err}"
            rows.append(("torch float64 (cpu)", t_t, err, 8))
        if cuda:
            dev = torch.device("cuda")
            for dt, size in ((torch.float64, 8), (torch.float32, 4)):
                w_g, t_g = run_steps(prob, torch.full((a.d,), 0.05, dtype=dt, device=dev), a.steps, alpha,
                                     sync=torch.cuda.synchronize)
                if ref is None and dt == torch.float64:
                    ref = w_g
                e = float(np.max(np.abs(w_g - ref)))
                if dt == torch.float64:
                    assert e <= 1e-10, f"cuda float64 deviates from the float64 reference by {e}"
                rows.append((f"torch {str(dt).split('.')[-1]} (cuda)", t_g, e, size))
        if not rows:
            print(f"  {n:9d} (skipped: above --cpu-max-n and no CUDA device)")
        for name, secs, e, size in rows:
            per = secs / a.steps
            ratio = f"{t_np / secs:8.2f}x" if t_np else f"{'-':>9s}"
            gbs = 2 * design_bytes * size / per / 1e9
            print(f"  {n:9d} {name:22s} {per * 1e3:10.3f} {ratio} {gbs:7.1f} {e:19.2e}")
        del prob
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
