"""Lorenz curves of the client losses at the FedAvg, AFL, Scaff-PD and Scaff-PD-IA solutions (001 Fig. 4 analogue).

Solutions on one heterogeneous quadratic instance: FedAvg = exact minimiser of ``sum p_i f_i``
(``exact.rcfl.solve_fedavg``); AFL = exact ``min max_i f_i`` (``exact.rcfl.solve_afl``); Scaff-PD over
``A = C(0.2)`` and Scaff-PD-IA over ``Lambda_phi(C(0.2), C(0.2))`` = the algorithm's iterate after
``R`` rounds.  Lorenz curves and Gini coefficients come from :mod:`fairtheory.metrics`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("relfair_lorenz", "Lorenz curves of client losses: FedAvg, AFL, Scaff-PD, Scaff-PD-IA (Gini in legend)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairtheory import metrics
    from fairtheory.aggregators import integrated
    from fairtheory.algorithms import scaffpd
    from fairtheory.algorithms.base import run
    from fairtheory.exact.rcfl import solve_afl, solve_fedavg
    from fairtheory.instances.baselines import safe_steps
    from fairtheory.problems.quadratic import random_quadratic
    from fairtheory.sets import CappedSimplex

    rng = np.random.default_rng(1)
    n = 20
    P = random_quadratic(n, 8, rng=rng, mu=1.0, L=2.0, spread=2.0, offset=0.5)
    A = CappedSimplex.cvar(n, 0.2)
    R = 1000 if quick else 4000
    sols = {"FedAvg": solve_fedavg(P).argmin, "AFL": solve_afl(P).argmin}
    for name, phi in (("Scaff-PD", 0.0), ("Scaff-PD-IA (phi=0.45)", 0.45)):
        alg = scaffpd.make(P, aggregator=integrated(A, A, phi), **safe_steps(P, phi))
        st, _ = run(alg, R, record_every=R, record_losses=False)
        sols[name] = np.asarray(st.w)
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, label="equality")
    for name, w in sols.items():
        f = np.asarray(P.losses(w))
        x, y = metrics.lorenz_curve(f)
        ax.plot(x, y, marker=".", ms=3, label=f"{name}: Gini {metrics.gini(f):.3f}, max {f.max():.2f}")
    ax.set_xlabel("fraction of clients (sorted by loss, ascending)")
    ax.set_ylabel("cumulative share of total loss")
    ax.set_title(f"Lorenz curves of client losses (n={n} quadratic clients)")
    ax.legend(fontsize=7, loc="upper left")
    return save(fig, out_dir, "relfair_lorenz", formats)
