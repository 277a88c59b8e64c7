"""004 Thm. 3: two-client FedFV trajectories approaching the Pareto set, and the eq. 10 2-cycle.

Trajectories and the Pareto-stationarity ``rho`` come from
:func:`fairtheory.instances.fedfv.pareto_two_client` on the claim's minimal counterexample
(:data:`~fairtheory.instances.fedfv.MIN_THEOREM3_PARETO`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("fedfv_pareto_2client", "FedFV: 2-client trajectories vs the Pareto set (Thm. 3)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib.pyplot as plt

    from fairtheory.instances.fedfv import MIN_THEOREM3_PARETO, pareto_two_client

    q = {k: np.asarray(MIN_THEOREM3_PARETO[k]) for k in ("H1", "H2", "c1", "c2")}
    H, c = np.array([q["H1"], q["H2"]]), np.array([q["c1"], q["c2"]])
    # Pareto set: minimisers of lam F1 + (1 - lam) F2
    lams = np.linspace(0, 1, 201)
    pareto = np.array([np.linalg.solve(l * H[0] + (1 - l) * H[1], l * H[0] @ c[0] + (1 - l) * H[1] @ c[1])
                       for l in lams])
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax.plot(pareto[:, 0], pareto[:, 1], "k-", lw=2, label="Pareto set")
    T = 300 if quick else 2000
    starts = [np.asarray(MIN_THEOREM3_PARETO["theta0"]), np.array([-3.5, -1.0]), np.array([0.5, 4.0])]
    for i, w0 in enumerate(starts):
        for lr, ls in ((0.5, "-"), (0.05, "--")):
            r = pareto_two_client(**q, theta0=w0, eta=lr, T=T, method="fedfv", record=True)
            it = r.extra["iterates"]
            ax.plot(it[:, 0], it[:, 1], ls, color=f"C{i}", lw=1, alpha=0.8,
                    label=f"FedFV lr={lr}" if i == 0 else None)
            ax2.semilogy(np.maximum(r.extra["rho"], 1e-16), ls, color=f"C{i}", lw=1,
                         label=f"FedFV lr={lr}" if i == 0 else None)
    r = pareto_two_client(**q, theta0=starts[0], eta=MIN_THEOREM3_PARETO["eta"], T=T, record=True)
    traj = r.extra["iterates"]
    ax.plot(traj[:, 0], traj[:, 1], "r.-", ms=3, lw=0.6, label="eq. 10, eta = 1/L (2-cycle)")
    ax2.semilogy(r.extra["rho"], "r-", lw=1, label="eq. 10, eta = 1/L")
    ax.plot(c[:, 0], c[:, 1], "k*", ms=10)
    ax.set_title("iterates (stars: client optima)")
    ax.legend(fontsize=7)
    ax2.set_xlabel("round")
    ax2.set_ylabel("rho = min_lam ||lam g1 + (1-lam) g2||")
    ax2.set_title("Pareto-stationarity measure (exact)")
    ax2.legend(fontsize=7)
    fig.suptitle("004 Thm. 3: H1 = diag(1, .2), H2 = diag(.2, 1), c1 = (2,-2), c2 = (-2,2)", fontsize=10)
    return save(fig, out_dir, "fedfv_pareto_2client", formats)
