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

from figures.rcfl_theorem1 import (
    band_patch,
    certificate_curve,
    gap_panel,
    halo,
    largest_a,
    log_grid,
    relative_gap,
    theorem_problem,
)
from figures.registry import figure, save, tex_sci


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """``TNs``, ``kappa``, ``reps``, ``smooth = mu tau_alpha``, the problem's constants and one dict per ``K``
    (``panels``): ``runs[scale][version]`` (rows of :func:`rfedfair_theorem2_curve` at ``scale * beta_max``),
    ``bounds`` per version, the certificates ``cert`` and ``best`` (with ``mu tau_alpha``) and, with ``--full`` at
    ``K = 2``, the exact worst case ``wc`` at ``T_N = 1`` (or ``None``)."""
    from fairtheory.bounds.rcfl import theorem2_lr_max
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
        lr = theorem2_lr_max(setup["L"], kappa, K)
        runs = {}
        for scale in (1.0, 100.0):
            seeds = [int(master.integers(2**63 - 1)) for _ in range(reps)]
            runs[scale] = rfedfair_theorem2_curve(prob, alpha=setup["alpha"], mu=setup["mu"], lr=scale * lr,
                                                  kappa=kappa, K=K, Ts=Ts, seeds=seeds, setup=setup,
                                                  versions=("002", "000") if scale == 1.0 else ("002",))
        consts = dict(kappa=kappa, lr=lr, L=setup["L"], D0=setup["D0"], rho2=setup["rho2"], K=K)
        a_max = largest_a(kappa=kappa, lr=lr, L=setup["L"], K=K, steps=5 if quick else 10)
        wc = None
        if not quick and K == 2:
            from fairtheory.worstcase import local_gd_worst_case
            from fairtheory.worstcase.results import TINY

            res = local_gd_worst_case(n=2, kappa=kappa, T_N=1, lr=lr, L=setup["L"], D0=setup["D0"],
                                      rho2=setup["rho2"], output="average", K=K)
            if res.certified() and res.value >= TINY * setup["L"] * setup["D0"]:
                wc = res.value + smooth
        panels.append(dict(K=K, lr=lr, runs=runs, wc=wc,
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
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.lines import Line2D

    TNs, panels, smooth, reps = d["TNs"], d["panels"], d["smooth"], d["reps"]
    fig = plt.figure(figsize=(15.5, 4.6))
    grid = fig.add_gridspec(1, 4, width_ratios=(1, 1, 1, 0.8), wspace=0.1)
    axes = [fig.add_subplot(grid[0, 0])]
    axes += [fig.add_subplot(grid[0, k], sharey=axes[0]) for k in (1, 2)]
    gx = fig.add_subplot(grid[0, 3])
    cert_gap = max(relative_gap(p["cert"], p["bounds"]["002"]) for p in panels)
    spreads = {scale: spread(d, scale) for scale in (1.0, 100.0)}
    L_mean = (f"mean of {reps} runs (002 output) and its 95% CI: half-width $\\leq$ {100 * spreads[1.0]:.2g}% of the "
              "mean, thinner than the line")
    L_fast = (f"the same at $100\\,\\beta_{{\\max}}$ (outside the conditions; half-width $\\leq$ "
              f"{100 * spreads[100.0]:.2g}%)")
    L_bound = ("002 Thm. 2 bound (band) with the certificate in expectation at the proof's $a = \\beta/2$ on it "
               f"(within ${tex_sci(100 * cert_gap, 1)}$%)")
    L_000 = "000 Thm. 2 bound"
    L_best = "certificate at the largest certified $a$ (valid for every $T_N$)"
    L_wc = r"exact worst case (PEP) with draws, 2 clients, $T_N = 1$"
    L_smooth = r"smoothing term $\mu\tau_\alpha$ (added to the certificates)"
    for ax, p in zip(axes, panels, strict=True):
        first = p is panels[0]

        def lab(text: str, first: bool = first) -> str:
            return text if first else "_nolegend_"

        for scale, style, color, label in ((1.0, "-o", "C0", L_mean), (100.0, ":", "grey", L_fast)):
            mean = np.array([r.extra["mean"] for r in p["runs"][scale]["002"]])
            half = np.array([r.extra["half_width"] for r in p["runs"][scale]["002"]])
            ax.fill_between(TNs, np.maximum(mean - half, 1e-12), mean + half, alpha=0.3, color=color,
                            label="_nolegend_")
            ax.loglog(TNs, mean, style, ms=3, lw=1.5, color=color, label=lab(label))
        ax.loglog(TNs, p["bounds"]["002"], "-", color="C1", **halo(), label=lab(L_bound))
        ax.loglog(TNs, p["bounds"]["000"], "--", color="C3", label=lab(L_000))
        ax.loglog(TNs, p["cert"], "-.", color="C4", lw=1.3, label="_nolegend_")
        if p["best"] is not None:
            ax.loglog(TNs, p["best"], ":", color="C4", lw=2, label=lab(L_best))
        if p["wc"] is not None:
            ax.loglog([1], [p["wc"]], "s", ms=5, color="C4", label=L_wc)
        ax.axhline(smooth, color="k", lw=0.9, ls=(0, (5, 3)), label=lab(L_smooth))
        ax.set_title(f"$K = {p['K']}$, $\\kappa = {d['kappa']}$, $\\beta = \\beta_{{\\max}} = {tex_sci(p['lr'])}$",
                     fontsize=10)
        ax.set_xlabel(r"rounds $T_N = (T-2)/\kappa$")
        ax.grid(True, which="major", alpha=0.3)
        if not first:
            ax.tick_params(labelleft=False)
    axes[0].set_ylabel(r"$\mathbb{E}\,f_\alpha(\tilde w) - f^\star_\alpha$ (log scale)")
    kinds = (("bounds", "Thm. 2 bounds\n(002, 000)\nover the\nmeasured mean", "C1"),)
    gap_panel(gx, [f"$K = {p['K']}$" for p in panels], decades_by_panel(d), kinds)
    gx.set_title("vertical gap between the bounds and the mean,\nsmallest-largest over $T_N$ (decades)", fontsize=10)
    a0 = axes[0]
    by_label = {ln.get_label(): ln for ln in a0.get_lines()}
    entries = [((band_patch("C0"), by_label[L_mean]), L_mean), (by_label[L_fast], L_fast),
               ((band_patch("C1"), Line2D([], [], color="C4", ls="-.", lw=1.3)), L_bound),
               (by_label[L_000], L_000), (by_label[L_best], L_best), (by_label[L_smooth], L_smooth)]
    if any(p["wc"] is not None for p in panels):
        entries.append((Line2D([], [], color="C4", marker="s", ls="none", ms=5), L_wc))
    fig.legend([h for h, _ in entries], [lbl for _, lbl in entries], handler_map={tuple: HandlerTuple(ndivide=1)},
               loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8.5, handlelength=3.0,
               handleheight=1.4, frameon=False)
    fig.suptitle(f"rFedFair, partial participation: logistic $n = {d['n']}$, $L = {d['L']:.1f}$, "
                 f"$\\rho^2 = {d['rho2']:.3f}$", y=1.02)
    return fig


def decades_by_panel(d: dict[str, Any]) -> list[dict[str, tuple[float, float]]]:
    """Per panel (``K``) the smallest and largest gap (decades) between the bounds (002 and 000) and the measured
    mean at ``beta_max``."""
    out = []
    for p in d["panels"]:
        mean = np.array([r.extra["mean"] for r in p["runs"][1.0]["002"]])
        gaps = [float(x) for v in ("002", "000") for x in np.log10(p["bounds"][v] / mean)]
        out.append({"bounds": (min(gaps), max(gaps))})
    return out


def decades(d: dict[str, Any]) -> tuple[float, float]:
    """Smallest and largest gap (decades) between the bounds (002 and 000) and the measured mean at ``beta_max``."""
    gaps = []
    for p in d["panels"]:
        mean = np.array([r.extra["mean"] for r in p["runs"][1.0]["002"]])
        for v in ("002", "000"):
            gaps += list(np.log10(p["bounds"][v] / mean))
    return float(min(gaps)), float(max(gaps))


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '002 and 000 Theorem 2 (partial participation)'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
As `rcfl_theorem1`, with `K` clients drawn per round (`kappa = 5`): the mean over 10 draw sequences (blue) and its
95% t-interval - the legend gives its half-width, at most 0.016% of the mean, so it is thinner than the line - and
the same at 100 times the step (grey); the 002 bound (orange band) with the certificate in expectation at the proof's
`a = beta/2` drawn on it, the 000 bound (red dashed) and the certificate at the largest certified `a` (purple dotted).
The measured mean lies just under the smoothing term; the right panel gives its gap to the bounds per `K`: 3.7-5.8,
3.5-5.6 and 3.3-5.4 decades for `K = 2, 5, 10`, 3.3 to 5.8 in all. The exact multi-round worst case with draws is out
of reach at `kappa = 5` (drawn at `K = 2`, `T_N = 1` with `--full` only).
"""


@figure("rcfl_theorem2", "rFedFair partial participation: Monte Carlo mean +- 95% CI vs the 002/000 "
        "Theorem 2 bounds and horizon-free PEP certificates between them, for K in {2, 5, 10}")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_theorem2", formats)
