"""004 Thm. 3: two-client FedFV trajectories approaching the Pareto set (and the eq. 10 2-cycle)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("fedfv_pareto_2client", "FedFV: 2-client trajectories vs the Pareto set (Thm. 3)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib.pyplot as plt

    from fairtheory.algorithms import fedfv
    from fairtheory.exact.pareto import min_norm_point_2
    from fairtheory.problems.quadratic import QuadraticProblem
    from verify.claims.fedfv import _MIN_T3P, _eq10

    H = np.array([_MIN_T3P["H1"], _MIN_T3P["H2"]])
    c = np.array([_MIN_T3P["c1"], _MIN_T3P["c2"]])
    prob = QuadraticProblem(H, c)
    # Pareto set: minimisers of lam F1 + (1 - lam) F2
    lams = np.linspace(0, 1, 201)
    pareto = np.array([np.linalg.solve(l * H[0] + (1 - l) * H[1], l * H[0] @ c[0] + (1 - l) * H[1] @ c[1])
                       for l in lams])
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax.plot(pareto[:, 0], pareto[:, 1], "k-", lw=2, label="Pareto set")
    T = 300 if quick else 2000
    starts = [np.array([3.0, 3.0]), np.array([-3.5, -1.0]), np.array([0.5, 4.0])]
    for i, w0 in enumerate(starts):
        for lr, ls in ((0.5, "-"), (0.05, "--")):
            _, h = fedfv.run(prob, T, np.random.default_rng(0), w0=w0, lr=lr, record_losses=False)
            it = np.array(h.iterates)
            rho = [min_norm_point_2(*prob.grads(w)).value for w in it]
            ax.plot(it[:, 0], it[:, 1], ls, color=f"C{i}", lw=1, alpha=0.8,
                    label=f"FedFV lr={lr}" if i == 0 else None)
            ax2.semilogy(np.maximum(rho, 1e-16), ls, color=f"C{i}", lw=1,
                         label=f"FedFV lr={lr}" if i == 0 else None)
    w = starts[0].copy()
    traj, rho = [w], []
    for _ in range(T):
        _, _, g1, g2 = (None, None, *prob.grads(w))
        rho.append(min_norm_point_2(g1, g2).value)
        w = w - 1.0 * _eq10(g1, g2)
        traj.append(w)
    traj = np.array(traj)
    ax.plot(traj[:, 0], traj[:, 1], "r.-", ms=3, lw=0.6, label="eq. 10, eta = 1/L (2-cycle)")
    ax2.semilogy(rho, "r-", lw=1, label="eq. 10, eta = 1/L")
    ax.plot(c[:, 0], c[:, 1], "k*", ms=10)
    ax.set_title("iterates (stars: client optima)")
    ax.legend(fontsize=7)
    ax2.set_xlabel("round")
    ax2.set_ylabel("rho = min_lam ||lam g1 + (1-lam) g2||")
    ax2.set_title("Pareto-stationarity measure (exact)")
    ax2.legend(fontsize=7)
    fig.suptitle("004 Thm. 3: H1 = diag(1, .2), H2 = diag(.2, 1), c1 = (2,-2), c2 = (-2,2)", fontsize=10)
    return save(fig, out_dir, "fedfv_pareto_2client", formats)
