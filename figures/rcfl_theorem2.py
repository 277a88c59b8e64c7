r"""rFedFair with partial participation: Monte Carlo mean +- 95% CI vs the Theorem 2 bounds.

Unregularised logistic clients (``n = 10``, non-separable), ``alpha = 0.5``, ``mu = 0.1``,
``kappa = 5``; one panel per ``K in {2, 5, 10}`` clients drawn per round with replacement by ``p``,
``beta`` = the largest step the Theorem 2 conditions allow (grey: ``100 beta_max``, outside them).
The mean over independent draw sequences of ``f_alpha(w_tilde) - f*_alpha`` (002 output) with its
95% t-interval, against the 002 and 000 Theorem 2 right-hand sides; every point from
:func:`fairtheory.instances.rcfl.rfedfair_theorem2_curve`, the function the claims
``rcfl.theorem2.v002``/``v000`` sweep.

Between the measured curve and the bounds: horizon-free certificates of the proof's route
(``E f_alpha(w_tilde) - f*_alpha <= E G(theta_tilde) - G* + mu tau_alpha``) for every ``T_N``, from one-round
PEPs in expectation over the ``K`` draws (:func:`figures.rcfl_theorem1.certificate_curve`, 2 clients,
this problem's ``L``, ``D0``, ``rho^2``) at the proof's ``a = beta/2`` and at the largest certified ``a``.
The exact multi-round worst case with ``K`` draws branches over every draw sequence and is out of reach at
``kappa = 5`` except for ``K = 2``, ``T_N = 1`` (about 10 s; drawn with ``--full`` only).  :func:`data` returns what
the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.rcfl_theorem1 import caption, certificate_curve, halo, largest_a, log_grid, relative_gap, theorem_problem
from figures.registry import figure, figure_legend, save, tex_sci


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """``TNs``, ``kappa``, ``reps``, ``smooth = mu tau_alpha``, the problem's constants and one dict per ``K``
    (``panels``): ``runs[scale][version]`` (rows of :func:`rfedfair_theorem2_curve` at ``scale * beta_max``),
    ``bounds`` per version, the certificates ``cert`` and ``best`` (with ``mu tau_alpha``) and, with ``--full`` at
    ``K = 2``, the exact worst case ``wc`` at ``T_N = 1`` (or ``None``)."""
    from fairtheory.bounds.rcfl import theorem2_beta_max
    from fairtheory.instances.rcfl import rfedfair_theorem2_curve

    prob, setup = theorem_problem(seed=0, n=10)
    kappa = 5
    reps = 10 if quick else 50
    TNs = log_grid(50 if quick else 500, 10)
    Ts = [2 + kappa * r for r in TNs]
    master = np.random.default_rng(2024)
    smooth = setup["mu"] * setup["tau"]
    panels = []
    for K in (2, 5, 10):
        beta = theorem2_beta_max(setup["L"], kappa, K)
        runs = {}
        for scale in (1.0, 100.0):
            seeds = [int(master.integers(2**63 - 1)) for _ in range(reps)]
            runs[scale] = rfedfair_theorem2_curve(prob, alpha=setup["alpha"], mu=setup["mu"], beta=scale * beta,
                                                  kappa=kappa, K=K, Ts=Ts, seeds=seeds, setup=setup,
                                                  versions=("002", "000") if scale == 1.0 else ("002",))
        consts = dict(kappa=kappa, beta=beta, L=setup["L"], D0=setup["D0"], rho2=setup["rho2"], K=K)
        a_max = largest_a(kappa=kappa, beta=beta, L=setup["L"], K=K, steps=5 if quick else 10)
        wc = None
        if not quick and K == 2:
            from fairtheory.worstcase import local_gd_worst_case
            from fairtheory.worstcase.local_gd import TINY

            res = local_gd_worst_case(n=2, kappa=kappa, T_N=1, lr=beta, L=setup["L"], D0=setup["D0"],
                                      rho2=setup["rho2"], output="002", K=K)
            if res.certified() and res.value >= TINY * setup["L"] * setup["D0"]:
                wc = res.value + smooth
        panels.append(dict(K=K, beta=beta, runs=runs, wc=wc,
                           bounds={v: np.array([r.theory for r in rows]) for v, rows in runs[1.0].items()},
                           cert=certificate_curve(**consts, TNs=TNs) + smooth,
                           best=None if a_max is None else certificate_curve(**consts, TNs=TNs, a=a_max) + smooth))
    return {"TNs": TNs, "kappa": kappa, "reps": reps, "smooth": smooth, "n": prob.n, "L": setup["L"],
            "rho2": setup["rho2"], "panels": panels}


def spread(d: dict[str, Any], scale: float) -> float:
    """Largest 95% half-width relative to the mean over every panel and ``T_N`` at ``scale * beta_max``."""
    return max(float(np.max([r.extra["half_width"] / r.extra["mean"] for r in p["runs"][scale]["002"]]))
               for p in d["panels"])


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    TNs, panels, smooth, reps = d["TNs"], d["panels"], d["smooth"], d["reps"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3), sharey=True)
    cert_gap = max(relative_gap(p["cert"], p["bounds"]["002"]) for p in panels)
    spreads = {scale: spread(d, scale) for scale in (1.0, 100.0)}
    for ax, p in zip(axes, panels, strict=True):
        for scale, style, color in ((1.0, "-o", "C0"), (100.0, ":", "grey")):
            mean = np.array([r.extra["mean"] for r in p["runs"][scale]["002"]])
            half = np.array([r.extra["half_width"] for r in p["runs"][scale]["002"]])
            what = r"$\beta_{\max}$" if scale == 1.0 else r"$100\,\beta_{\max}$ (outside the conditions)"
            thin = " (thinner than the line)" if spreads[scale] < 0.02 else ""
            ax.fill_between(TNs, np.maximum(mean - half, 1e-12), mean + half, alpha=0.3, color=color,
                            label=f"95% CI, {what}: half-width $\\leq$ {100 * spreads[scale]:.2g}% of the mean{thin}")
            ax.loglog(TNs, mean, style, ms=3, color=color, label=f"mean of {reps} runs (002 output), {what}")
        ax.loglog(TNs, p["bounds"]["002"], "-", color="C1", **halo(), label="002 Thm. 2 bound (wide band)")
        ax.loglog(TNs, p["bounds"]["000"], "--", color="C3", label="000 Thm. 2 bound")
        ax.loglog(TNs, p["cert"], "-.", color="C4", lw=1.3,
                  label=r"horizon-free certificate in expectation (one-round PEP, proof's $a = \beta/2$) "
                        r"$+\,\mu\tau_\alpha$: " + f"on the 002 band (within {100 * cert_gap:.2g}%)")
        if p["best"] is not None:
            ax.loglog(TNs, p["best"], ":", color="C4", lw=2,
                      label=r"horizon-free certificate, largest certified $a$, $+\,\mu\tau_\alpha$")
        if p["wc"] is not None:
            ax.loglog([1], [p["wc"]], "s", ms=5, color="C4",
                      label=r"exact worst case (PEP) of $\mathbb{E}\,G - G^\star + \mu\tau_\alpha$, 2 clients, "
                            r"$T_N = 1$")
        ax.axhline(smooth, color="k", lw=0.9, ls=(0, (5, 3)), label=r"$\mu\tau_\alpha$ (smoothing term)")
        ax.set_title(f"$K = {p['K']}$, $\\kappa = {d['kappa']}$\n"
                     f"$\\beta = \\beta_{{\\max}} = {tex_sci(p['beta'])}$", fontsize=10)
        ax.set_xlabel(r"rounds $T_N = (T-2)/\kappa$")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(r"$\mathbb{E}\,f_\alpha(\tilde w) - f^\star_\alpha$ (log scale)")
    figure_legend(fig, axes, loc="upper center", ncol=2, fontsize=8, bbox_to_anchor=(0.5, 0.0))
    caption(fig, "Each panel has one logarithmic y axis (no break): the measured mean lies near the smoothing term, "
            f"{decades(d)[0]:.1f} to {decades(d)[1]:.1f} decades below the bounds. The wide translucent band is the "
            "002 bound, with the certificate drawn on it. The exact multi-round worst case with $K$ draws is out of "
            "reach here (drawn at $K = 2$, $T_N = 1$ with --full only).", -0.25)
    fig.suptitle(f"rFedFair, partial participation: logistic $n = {d['n']}$, $L = {d['L']:.1f}$, "
                 f"$\\rho^2 = {d['rho2']:.3f}$", y=1.06)
    return fig


def decades(d: dict[str, Any]) -> tuple[float, float]:
    """Smallest and largest gap (decades) between the bounds (002 and 000) and the measured mean at ``beta_max``."""
    gaps = []
    for p in d["panels"]:
        mean = np.array([r.extra["mean"] for r in p["runs"][1.0]["002"]])
        for v in ("002", "000"):
            gaps += list(np.log10(p["bounds"][v] / mean))
    return float(min(gaps)), float(max(gaps))


@figure("rcfl_theorem2", "rFedFair partial participation: Monte Carlo mean +- 95% CI vs the 002/000 "
        "Theorem 2 bounds and horizon-free PEP certificates between them, for K in {2, 5, 10}")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_theorem2", formats)
