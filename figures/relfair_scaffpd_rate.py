"""Scaff-PD-IA distance to the exact saddle point of problem (8) vs rounds (001 Thm. 3, reconstructed).

Log-log axes, deterministic and noisy-gradient modes (mean over seeds), reference slopes -2 and -1.
The exact saddle point comes from :func:`fairtheory.exact.relative.solve_integrated_minimax`.
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

    from fairtheory.exact.relative import solve_integrated_minimax
    from fairtheory.problems.quadratic import random_quadratic
    from fairtheory.sets import CappedSimplex, IntegratedSet
    from verify.claims.baselines_dro import _safe_steps, _scaffpd_errors, certified_distance

    rng = np.random.default_rng(2024)
    P = random_quadratic(6, 3, rng=rng, mu=1.0, L=2.0, spread=2.0, offset=1.0)
    phi = 0.3
    A = CappedSimplex.cvar(P.n, 0.5)
    I = IntegratedSet(A, A, phi)
    ex = solve_integrated_minimax(P, I)
    mu_eff = (1.0 - 2.0 * phi) / (1.0 - phi)
    floor = max(1e-16, 100 * certified_distance(P, I, ex.argmin, ex.extra["a"], ex.extra["b"], mu_eff) ** 2)
    h = _safe_steps(P, phi)
    R = 600 if quick else 4000
    seeds = 4 if quick else 16
    det = _scaffpd_errors(P, I, ex.argmin, R, np.random.default_rng(0), mu_accel=mu_eff / 2, **h)
    const = _scaffpd_errors(P, I, ex.argmin, R, np.random.default_rng(0), **h)
    noisy = np.mean([_scaffpd_errors(P, I, ex.argmin, R, np.random.default_rng(s), mu_accel=mu_eff / 2,
                                     grad_noise=1.0, **h) for s in range(seeds)], axis=0)
    r = np.arange(1, R + 1)
    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    ax.loglog(r, det, label="deterministic, accelerated schedule")
    ax.loglog(r, const, label="deterministic, constant steps", alpha=0.8)
    ax.loglog(r, noisy, label=f"noisy gradients (sd 1), mean of {seeds} seeds")
    for slope, ls in ((-2, "--"), (-1, ":")):
        ax.loglog(r[9:], noisy[9] * (r[9:] / 10.0) ** slope, "k" + ls, lw=1, label=f"slope {slope}")
    ax.axhline(floor, color="grey", lw=0.8, label="accuracy of exact w*")
    ax.set_ylim(max(floor / 10, 1e-18), None)
    ax.set_xlabel("round r")
    ax.set_ylabel(r"$\|w_r - w^*\|^2$")
    ax.set_title(f"Scaff-PD-IA, n={P.n}, d={P.d}, A=B=C(1/2), phi={phi}")
    ax.legend(fontsize=7, loc="lower left")
    return save(fig, out_dir, "relfair_scaffpd_rate", formats)
