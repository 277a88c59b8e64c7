"""004 Thm. 3: two-client FedFV trajectories approaching the Pareto set, and the eq. 10 2-cycle.

Trajectories and the Pareto-stationarity ``rho`` come from
:func:`fairtheory.instances.fedfv.pareto_two_client` on the claim's minimal counterexample
(:data:`~fairtheory.instances.fedfv.MIN_THEOREM3_PARETO`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, figure_legend, save


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
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10.5, 4.3))
    ax.plot(pareto[:, 0], pareto[:, 1], "k-", lw=2, label="Pareto set (minimisers of lam F1 + (1-lam) F2)")
    T = 300 if quick else 2000
    starts = [np.asarray(MIN_THEOREM3_PARETO["theta0"]), np.array([-3.5, -1.0]), np.array([0.5, 4.0])]
    # one colour per step size (the legend's), one trajectory per start; lr = 0.5 is a wide band under lr = 0.05
    styles = {0.5: dict(color="C0", lw=4, alpha=0.45, ls="-", solid_capstyle="butt"),
              0.05: dict(color="C1", lw=1.2, ls="--")}
    for i, w0 in enumerate(starts):
        for lr, style in styles.items():
            r = pareto_two_client(**q, theta0=w0, eta=lr, T=T, method="fedfv", record=True)
            it = r.extra["iterates"]
            label = f"FedFV lr={lr}, one curve per start" if i == 1 else None
            ax.plot(it[:, 0], it[:, 1], zorder=3, label=label, **style)
            ax2.semilogy(np.maximum(r.extra["rho"], 1e-16), label=label, **(style | dict(lw=1.0, alpha=0.9)))
    r = pareto_two_client(**q, theta0=starts[0], eta=MIN_THEOREM3_PARETO["eta"], T=T, record=True)
    traj = r.extra["iterates"]
    ax.plot(traj[:, 0], traj[:, 1], "r.-", ms=4, lw=0.6, zorder=2.5,
            label="eq. 10 as printed, eta = 1/L: 2-cycle from (3, 3)")
    ax2.semilogy(r.extra["rho"], "r.-", ms=2, lw=0.8, label="eq. 10 as printed, eta = 1/L: 2-cycle from (3, 3)")
    start_pts = np.array(starts)
    ax.plot(start_pts[:, 0], start_pts[:, 1], "o", ms=7, mfc="none", mec="k", zorder=4, label="starts")
    ax.plot(c[:, 0], c[:, 1], "k*", ms=11, zorder=4, label="client optima c1, c2")
    ax.set_xlabel("theta_1")
    ax.set_ylabel("theta_2")
    ax.set_title("iterates in the model plane")
    ax2.set_xlabel("round")
    ax2.set_ylabel("rho = min_lam ||lam g1 + (1-lam) g2||")
    ax2.set_title("Pareto-stationarity measure (exact), every start")
    figure_legend(fig, (ax, ax2), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3)
    fig.suptitle("004 Thm. 3: H1 = diag(1, .2), H2 = diag(.2, 1), c1 = (2,-2), c2 = (-2,2); colour = method and "
                 "step size", fontsize=10)
    return save(fig, out_dir, "fedfv_pareto_2client", formats)
