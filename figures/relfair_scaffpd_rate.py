"""Scaff-PD-IA distance to the exact saddle point of problem (8) vs rounds (001 Thm. 3, reconstructed).

Log-log axes, deterministic (accelerated schedule and constant steps) and noisy-gradient modes (mean
over seeds), reference slopes -2 and -1.  Each curve is computed by
:func:`fairtheory.instances.relative.theorem3_rate` (the function ``relfair.theorem3.rate`` checks),
against the exact saddle point of :func:`fairtheory.exact.relative.solve_integrated_minimax`.
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

PHI = 0.3


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Rounds ``r`` and the squared distance to the exact saddle point per round: ``accelerated`` (deterministic,
    accelerated schedule), ``constant`` (deterministic, constant steps), ``noisy`` (mean over ``seeds``), with the
    fitted slopes ``fit_accelerated`` and ``fit_noisy`` and the exact solution's accuracy ``floor``."""
    from fairtheory.instances.relative import theorem3_rate
    from fairtheory.problems.quadratic import random_quadratic
    from fairtheory.sets import CappedSimplex

    rng = np.random.default_rng(2024)
    P = random_quadratic(6, 3, rng=rng, mu=1.0, L=2.0, spread=2.0, offset=1.0)
    R = 600 if quick else 4000
    seeds = 4 if quick else 16
    common = {"problem": P, "A": CappedSimplex.cvar(P.n, 0.5), "phi": PHI, "mu": 1.0, "L": 2.0, "rounds": R}
    det = theorem3_rate(**common)
    const = theorem3_rate(**common, accelerate=False)
    noisy = theorem3_rate(**common, seeds=seeds, grad_noise=1.0)
    return {"r": np.arange(1, R + 1), "n": P.n, "d": P.d, "seeds": seeds, "floor": det.extra["floor"],
            "accelerated": np.asarray(det.extra["error_curve"]), "fit_accelerated": det.measured,
            "constant": np.asarray(const.extra["error_curve"]),
            "noisy": np.asarray(noisy.extra["error_curve"]), "fit_noisy": noisy.measured}


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    r, floor = d["r"], d["floor"]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ax.loglog(r, d["accelerated"], label=f"deterministic, accelerated schedule (fitted slope {d['fit_accelerated']:.2f})")
    ax.loglog(r, d["constant"], label="deterministic, constant steps", alpha=0.8)
    noisy = d["noisy"]
    ax.loglog(r, noisy, label=f"noisy gradients (sd 1), mean of {d['seeds']} seeds (fitted slope {d['fit_noisy']:.2f})")
    for slope, ls in ((-2, "--"), (-1, ":")):
        ax.loglog(r[9:], noisy[9] * (r[9:] / 10.0) ** slope, "k" + ls, lw=1, label=f"reference slope ${slope}$")
    ax.axhline(floor, color="grey", lw=0.8, label=r"accuracy of the exact $w^\star$")
    ax.set_ylim(max(floor / 10, 1e-18), None)
    ax.set_xlabel(r"round $r$")
    ax.set_ylabel(r"$\|w_r - w^\star\|^2$")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(f"Scaff-PD-IA, $n = {d['n']}$, $d = {d['d']}$, $A = B = C(1/2)$, $\\phi = {PHI}$", fontsize=10)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=1, frameon=False)
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '001 Theorem 3'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Scaff-PD-IA's squared distance to the exact saddle point against rounds (log-log), with reference slopes
-2 (dashed) and -1 (dotted). The deterministic accelerated schedule follows slope -2 and beyond (fitted
slope -4.80, legend); with noisy gradients the mean over seeds falls below the slope -2 line at first,
crosses it and stays above it after round 100, and flattens (fitted slope -0.85, shallower than both
references). Both deterministic runs go below the grey line, the exact solution's own accuracy.
"""


@figure("relfair_scaffpd_rate", "Scaff-PD-IA ||w_r - w*||^2 vs rounds (log-log) with slopes -2 and -1")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "relfair_scaffpd_rate", formats)
