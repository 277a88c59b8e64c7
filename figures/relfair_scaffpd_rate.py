"""Scaff-PD-IA distance to the exact saddle point of problem (8) vs rounds (001 Thm. 3, reconstructed).

Log-log axes, deterministic (accelerated schedule and constant steps) and noisy-gradient modes (mean
over seeds), reference slopes -2 and -1.  Each curve is computed by
:func:`fairtheory.instances.relative.theorem3_rate` (the function ``relfair.theorem3.rate`` checks),
against the exact saddle point of :func:`fairtheory.exact.relative.solve_integrated_minimax`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("relfair_scaffpd_rate", "Scaff-PD-IA ||w_r - w*||^2 vs rounds (log-log) with slopes -2 and -1")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairtheory.instances.relative import theorem3_rate
    from fairtheory.problems.quadratic import random_quadratic
    from fairtheory.sets import CappedSimplex

    rng = np.random.default_rng(2024)
    P = random_quadratic(6, 3, rng=rng, mu=1.0, L=2.0, spread=2.0, offset=1.0)
    phi = 0.3
    R = 600 if quick else 4000
    seeds = 4 if quick else 16
    common = {"problem": P, "A": CappedSimplex.cvar(P.n, 0.5), "phi": phi, "mu": 1.0, "L": 2.0, "rounds": R}
    det = theorem3_rate(**common)
    const = theorem3_rate(**common, accelerate=False)
    noisy = theorem3_rate(**common, seeds=seeds, grad_noise=1.0)
    floor = det.extra["floor"]
    r = np.arange(1, R + 1)
    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    ax.loglog(r, det.extra["error_curve"], label=f"deterministic, accelerated schedule (fit {det.measured:.2f})")
    ax.loglog(r, const.extra["error_curve"], label="deterministic, constant steps", alpha=0.8)
    noisy_err = noisy.extra["error_curve"]
    ax.loglog(r, noisy_err, label=f"noisy gradients (sd 1), mean of {seeds} seeds (fit {noisy.measured:.2f})")
    for slope, ls in ((-2, "--"), (-1, ":")):
        ax.loglog(r[9:], noisy_err[9] * (r[9:] / 10.0) ** slope, "k" + ls, lw=1, label=f"slope {slope}")
    ax.axhline(floor, color="grey", lw=0.8, label="accuracy of exact w*")
    ax.set_ylim(max(floor / 10, 1e-18), None)
    ax.set_xlabel("round r")
    ax.set_ylabel(r"$\|w_r - w^*\|^2$")
    ax.set_title(f"Scaff-PD-IA, n={P.n}, d={P.d}, A=B=C(1/2), phi={phi}")
    ax.legend(fontsize=7, loc="lower left")
    return save(fig, out_dir, "relfair_scaffpd_rate", formats)
