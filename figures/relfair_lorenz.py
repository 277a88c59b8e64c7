"""Lorenz curves of the client losses at the FedAvg, AFL, Scaff-PD and Scaff-PD-IA solutions (001 Fig. 4 analogue).

Solutions on one heterogeneous quadratic instance: FedAvg = exact minimiser of ``sum p_i f_i``
(``exact.rcfl.solve_fedavg``); AFL = exact ``min max_i f_i`` (``exact.rcfl.solve_afl``); Scaff-PD over
``A = C(0.2)`` and Scaff-PD-IA over ``Lambda_phi(C(0.2), C(0.2))`` = the algorithm's iterate after
``R`` rounds.  Lorenz curves and Gini coefficients come from :mod:`fairtheory.metrics`.  :func:`data` returns
what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

N, PHI = 20, 0.45


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Per solution name the client losses ``f`` at it (``losses``), its Lorenz curve ``(x, y)`` and Gini coefficient."""
    from fairtheory import metrics
    from fairtheory.aggregators import integrated
    from fairtheory.algorithms import scaffpd
    from fairtheory.algorithms.base import run
    from fairtheory.exact.rcfl import solve_afl, solve_fedavg
    from fairtheory.instances.baselines import safe_steps
    from fairtheory.problems.quadratic import random_quadratic
    from fairtheory.sets import CappedSimplex

    rng = np.random.default_rng(1)
    P = random_quadratic(N, 8, rng=rng, mu=1.0, L=2.0, spread=2.0, offset=0.5)
    A = CappedSimplex.cvar(N, 0.2)
    R = 1000 if quick else 4000
    sols = {"FedAvg": solve_fedavg(P).argmin, "AFL": solve_afl(P).argmin}
    for name, phi in (("Scaff-PD", 0.0), (f"Scaff-PD-IA ($\\phi = {PHI}$)", PHI)):
        alg = scaffpd.make(P, aggregator=integrated(A, A, phi), **safe_steps(P, phi))
        st, _ = run(alg, R, record_every=R, record_losses=False)
        sols[name] = np.asarray(st.w)
    out = {}
    for name, w in sols.items():
        f = np.asarray(P.losses(w))
        out[name] = {"losses": f, "lorenz": metrics.lorenz_curve(f), "gini": metrics.gini(f)}
    return out


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.4, 4.8))
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, label="equality")
    for name, r in d.items():
        x, y = r["lorenz"]
        ax.plot(x, y, marker=".", ms=3, label=f"{name}: Gini {r['gini']:.3f}, max {r['losses'].max():.2f}")
    ax.set_xlabel("fraction of clients (sorted by loss, ascending)")
    ax.set_ylabel("cumulative share of total loss")
    ax.set_title(f"Lorenz curves of client losses ($n = {N}$ quadratic clients)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '001 Fig. 4 analogue'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Lorenz curves of the client losses at the FedAvg, AFL, Scaff-PD and Scaff-PD-IA solutions of one instance
(Gini coefficient and largest loss in the legend). A curve closer to the diagonal is a more equal spread;
Scaff-PD-IA is the most equal here (Gini 0.162) while its largest loss (55.73) stays above AFL's (38.92,
the smallest largest loss).
"""


@figure("relfair_lorenz", "Lorenz curves of client losses: FedAvg, AFL, Scaff-PD, Scaff-PD-IA (Gini in legend)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "relfair_lorenz", formats)
