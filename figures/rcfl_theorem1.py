r"""rFedFair suboptimality vs communication rounds with the Theorem 1 bounds (002 and 000 Thm. 1).

Unregularised logistic clients on non-separable data (:func:`random_logistic`), ``alpha = 0.5``,
``mu = 0.1``; ground truth and constants from :func:`fairtheory.instances.rcfl.theorem_setup`
(``f*_alpha``: lower certificate of :func:`solve_rcfl`; ``(w*, eta*)``: :func:`solve_smoothed_rcfl`),
every point from :func:`fairtheory.instances.rcfl.rfedfair_theorem1_curve` - the function the claims
``rcfl.theorem1.v002``/``v000`` sweep.  One panel per ``kappa in {1, 5, 10}`` at ``beta = beta_max`` (the
largest step the conditions allow); a grey curve shows ``beta = 100 beta_max`` (outside the
conditions) for comparison.  Log-log axes; the horizontal line is the smoothing term ``mu tau_alpha``.

Between the measured curve and the bound, the exact worst case of the proof's route (see docs/worstcase.md):
``f_alpha(w_tilde) - f*_alpha <= G(theta_tilde) - G* + mu tau_alpha`` (002 Lemma 2), with the largest
``G(theta_tilde) - G*`` over *all* 2-client instances with ``L``-smooth convex clients and this problem's
``L``, ``D0``, ``rho^2`` (:func:`fairtheory.worstcase.worst_case_vs_rounds`, 002 output; one SDP per
``T_N``, so only for ``kappa T_N <= 12``, ``<= 40`` with ``--full``), and the horizon-free certificate
``D0/(a (T_N+1)) + (C/a) rho^2`` valid for every ``T_N`` (one-round PEP at the proof's ``a = beta/2`` with
the exact smallest ``C``; ``--full`` adds the best ``a`` of :func:`fairtheory.worstcase.horizon_free_constants`),
both plus ``mu tau_alpha``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save, tex_sci


def theorem_problem(seed: int = 0, n: int = 5, d: int = 3, m: int = 20, alpha: float = 0.5,
                    mu: float = 0.1) -> tuple[Any, dict[str, Any]]:
    """The figures' logistic problem and its :func:`~fairtheory.instances.rcfl.theorem_setup`
    (shared with ``rcfl_theorem2``)."""
    from fairtheory.instances.rcfl import theorem_setup
    from fairtheory.problems.generators import random_logistic

    prob = random_logistic(n, d, m, rng=np.random.default_rng(seed))
    return prob, theorem_setup(prob, np.maximum(np.full(prob.n, alpha), prob.p), mu)


def log_grid(top: int, k: int = 14) -> list[int]:
    return sorted({int(round(x)) for x in np.logspace(0, np.log10(top), k)})


def certificate_curve(*, kappa: int, lr: float, L: float, D0: float, rho2: float, TNs: list[int],
                      K: int | None = None, a: float | None = None) -> np.ndarray:
    r"""Horizon-free bound on ``G(theta_tilde) - G*`` (002 output) at every ``T_N`` in ``TNs``, from one-round
    PEPs (:func:`fairtheory.worstcase.round_constant`) at ``a`` (default the proof's ``lr/2``):
    ``D0/(a (T_N+1)) + (C(a)/a) rho^2``; with ``K`` draws (002 Thm. 2) the per-round ``C`` is in expectation
    over the draws and the first (one-step) averaging adds ``C0 rho^2/(a (T_N+1))`` (see docs/worstcase.md).
    ``nan`` where no certificate exists."""
    from fairtheory.worstcase import round_constant

    a = lr / 2.0 if a is None else a
    C = round_constant(kappa=kappa, lr=lr, a=a * L, L=L, K=K).C / L**2  # normalised -> physical
    C0 = 0.0 if K is None else round_constant(kappa=1, lr=lr, a=0.0, L=L, K=K).C / L**2
    T = np.asarray(TNs, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = D0 / (a * (T + 1)) + (C + C0 / (T + 1)) / a * rho2
    return np.where(np.isfinite(out), out, np.nan)


def largest_a(*, kappa: int, lr: float, L: float, K: int | None = None, steps: int = 5) -> float | None:
    r"""Largest ``a`` (to ``2^-steps`` relative) with a one-round certificate (finite ``C(a)``), from the
    proof's ``a = lr/2`` by doubling, then bisection; ``None`` when ``lr/2`` has none.  A lighter version of
    :func:`fairtheory.worstcase.horizon_free_constants`'s ``a_max`` (a larger ``a`` improves the initial-distance
    term ``D0/(a (T_N+1))``)."""
    import math

    from fairtheory.worstcase import round_constant

    def finite(a: float) -> bool:
        return math.isfinite(round_constant(kappa=kappa, lr=lr, a=a * L, L=L, K=K).C)

    lo = lr / 2.0
    if not finite(lo):
        return None
    hi = 2.0 * lo
    while finite(hi) and hi < 1e3 * lo:
        lo, hi = hi, 2.0 * hi
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if finite(mid) else (lo, mid)
    return lo


def pep_worst_case(*, kappa: int, lr: float, L: float, D0: float, rho2: float, TNs: list[int],
                   budget: int) -> tuple[list[int], np.ndarray]:
    r"""Exact worst case of ``G(theta_tilde) - G*`` (002 output, 2 clients, full participation) at the ``T_N``
    of ``TNs`` with ``kappa T_N <= budget`` (one SDP each); uncertified values and values below ``1e-6 L D0``
    (not resolvable) are left out."""
    from fairtheory.worstcase import worst_case_vs_rounds
    from fairtheory.worstcase.results import TINY

    small = [t for t in TNs if kappa * t <= budget]
    if not small:
        return [], np.array([])
    wc = worst_case_vs_rounds(T_N_values=small, n=2, kappa=kappa, lr=lr, L=L, D0=D0, rho2=rho2, output="average")
    keep = wc["status_ok"] & (wc["value"] >= TINY * L * D0)
    return [t for t, k in zip(small, keep, strict=True) if k], wc["value"][keep]


#: the SDP of the multi-round worst case grows with kappa T_N: computed for kappa T_N up to this (quick, full)
PEP_STEPS = (12, 40)


def halo(**kw: Any) -> dict[str, Any]:
    """Line style of a curve that another one may be drawn on: a wide translucent band underneath (the figure
    check accepts two coincident curves when the lower one is at least 2.5 times as wide)."""
    return {"lw": 6, "alpha": 0.35, "solid_capstyle": "butt", "zorder": 1.5} | kw


def relative_gap(a: Any, b: Any) -> float:
    """Largest ``|a/b - 1|`` over finite entries (how far apart two curves drawn on each other are)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b) & (b != 0)
    return float(np.max(np.abs(a[ok] / b[ok] - 1))) if ok.any() else float("nan")


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """What :func:`plot` draws: ``TNs``, the smoothing term ``smooth = mu tau_alpha``, the problem's constants and one
    dict per ``kappa`` (``panels``) with the measured suboptimality per output (``measured``), the bounds
    (``bound``), the run at 100 times the step (``fast``), the exact worst case ``pep = (T_N list, values)`` (without
    ``mu tau_alpha``), and the horizon-free certificates ``cert`` (``a = lr/2``) and ``best`` (largest ``a``), both
    with ``mu tau_alpha``."""
    from fairtheory.bounds.rcfl import theorem1_lr_max
    from fairtheory.instances.rcfl import rfedfair_theorem1_curve

    prob, setup = theorem_problem()
    TN_max = 200 if quick else 2000
    TNs = log_grid(TN_max)
    smooth = setup["mu"] * setup["tau"]
    budget = PEP_STEPS[0] if quick else PEP_STEPS[1]
    panels = []
    for kappa in (1, 5, 10):
        lr = theorem1_lr_max(setup["L"], kappa)
        Ts = [2 + kappa * r for r in TNs]
        kw = dict(alpha=setup["alpha"], mu=setup["mu"], kappa=kappa, Ts=Ts, setup=setup)
        curve = rfedfair_theorem1_curve(prob, lr=lr, **kw)
        fast = rfedfair_theorem1_curve(prob, lr=100 * lr, versions=("002",), **kw)["002"]
        consts = dict(kappa=kappa, lr=lr, L=setup["L"], D0=setup["D0"], rho2=setup["rho2"])
        # every T_N while the SDPs are small, then the log grid (one SDP each, growing with kappa T_N)
        pep_TNs = sorted(set(range(1, PEP_STEPS[0] // kappa + 1)) | {t for t in TNs if kappa * t <= budget})
        a_max = largest_a(kappa=kappa, lr=lr, L=setup["L"], steps=5 if quick else 10)
        panels.append(dict(
            kappa=kappa, lr=lr, fast=np.array([max(r.measured, 1e-12) for r in fast]),
            measured={v: np.array([r.measured for r in curve[v]]) for v in ("002", "000")},
            bound={v: np.array([r.theory for r in curve[v]]) for v in ("002", "000")},
            pep=pep_worst_case(**consts, TNs=pep_TNs, budget=budget),
            cert=certificate_curve(**consts, TNs=TNs) + smooth,
            best=None if a_max is None else certificate_curve(**consts, TNs=TNs, a=a_max) + smooth))
    return {"TNs": TNs, "smooth": smooth, "budget": budget, "n": prob.n, "L": setup["L"], "rho2": setup["rho2"],
            "mu": setup["mu"], "panels": panels}


def decades_by_panel(d: dict[str, Any]) -> list[dict[str, tuple[float, float]]]:
    """Per panel (``kappa``) the smallest and largest vertical gaps (decades) the figure shows: ``bounds`` = bounds
    (002 and 000) over the measured 002 curve; ``slack`` = 002 bound over the exact worst case (+ ``mu tau_alpha``)
    and ``benign`` = that worst case over the measured 002 curve, at the ``T_N`` where the worst case is computed."""
    TNs = list(d["TNs"])
    out = []
    for p in d["panels"]:
        meas = p["measured"]["002"]
        bounds = [float(x) for v in ("002", "000") for x in np.log10(p["bound"][v] / meas)]
        slack, benign = [], []
        for t, w in zip(*p["pep"], strict=True):
            if t in TNs:
                j = TNs.index(t)
                slack.append(float(np.log10(p["bound"]["002"][j] / (w + d["smooth"]))))
                benign.append(float(np.log10((w + d["smooth"]) / meas[j])))
        out.append({k: (min(v), max(v)) for k, v in (("bounds", bounds), ("slack", slack), ("benign", benign))})
    return out


def decades(d: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The gaps of :func:`decades_by_panel` over every panel: smallest and largest per kind."""
    per = decades_by_panel(d)
    return {k: (min(g[k][0] for g in per), max(g[k][1] for g in per)) for k in ("bounds", "slack", "benign")}


#: the gap kinds of the right panel (one row each): key, row label, colour
GAPS = (("bounds", "Thm. 1 bounds\n(002, 000)\nover measured", "C1"),
        ("slack", "002 bound over\nexact worst case\n(the bound's slack)", "C4"),
        ("benign", "exact worst case\nover measured\n(benign instance)", "C0"))


def band_patch(color: str) -> Any:
    """A legend handle for a wide translucent band: a filled patch as tall as the legend row."""
    from matplotlib.patches import Patch

    return Patch(facecolor=color, alpha=0.35, edgecolor="none")


def gap_panel(gx: Any, names: list[str], per: list[dict[str, tuple[float, float]]], kinds: Any) -> None:
    """Horizontal range bars, one row per gap kind and one bar per panel in it: the smallest to largest vertical gap
    (decades) over ``T_N``, with the panel and the numbers printed at the right of each bar."""
    n = len(per)
    rows = [k for k in kinds if all(k[0] in g for g in per)]
    for r, (key, _, color) in enumerate(rows):
        for j, (name, g) in enumerate(zip(names, per, strict=True)):
            lo, hi = g[key]
            y = r + (j - (n - 1) / 2) * 0.27
            gx.plot([lo, hi], [y, y], "-", color=color, lw=6, solid_capstyle="butt", label="_nolegend_")
            gx.plot([lo, hi], [y, y], "|", color=color, ms=8, mew=1.5, label="_nolegend_")
            gx.text(hi + 0.35, y, f"{name}: {lo:.1f}-{hi:.1f}", va="center", ha="left", fontsize=8)
    gx.set_yticks(range(len(rows)))
    gx.set_yticklabels([label for _, label, _ in rows], fontsize=8.5)
    gx.yaxis.tick_right()
    gx.set_ylim(len(rows) - 0.5, -0.5)
    hi = max(g[key][1] for g in per for key, *_ in rows)
    gx.set_xlim(0, hi + 3.2)
    gx.set_xlabel("vertical gap (decades)")
    gx.set_ylabel("gap between", fontsize=9)
    gx.grid(True, axis="x", alpha=0.3)


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.lines import Line2D

    TNs, smooth, budget, panels = d["TNs"], d["smooth"], d["budget"], d["panels"]
    out_gap = max(relative_gap(p["measured"]["000"], p["measured"]["002"]) for p in panels)
    cert_gap = max(relative_gap(p["cert"], p["bound"]["002"]) for p in panels if p["kappa"] > 1)
    fig = plt.figure(figsize=(15.5, 4.6))
    grid = fig.add_gridspec(1, 4, width_ratios=(1, 1, 1, 0.95), wspace=0.1)
    axes = [fig.add_subplot(grid[0, 0])]
    axes += [fig.add_subplot(grid[0, k], sharey=axes[0]) for k in (1, 2)]
    gx = fig.add_subplot(grid[0, 3])
    L_bound = "002 Thm. 1 bound (band) with the certificate at the proof's $a = \\beta/2$ on it " \
              f"(within {100 * cert_gap:.2g}%; equal at $\\kappa = 1$)"
    L_000 = "000 Thm. 1 bound"
    L_best = "certificate at the largest certified $a$ (valid for every $T_N$)"
    L_pep = f"exact worst case (PEP) over all 2-client instances, $\\kappa T_N \\leq {budget}$"
    L_meas = f"measured: 002 output (band) and 000 output ($\\times$), within {100 * out_gap:.2g}%"
    L_smooth = r"smoothing term $\mu\tau_\alpha$ (added to the certificates and the worst case)"
    L_fast = r"measured at $100\,\beta_{\max}$ (outside the conditions)"
    for ax, p in zip(axes, panels, strict=True):
        first = p is panels[0]

        def lab(text: str, first: bool = first) -> str:
            return text if first else "_nolegend_"

        ax.loglog(TNs, p["measured"]["002"], "-", color="C0", **halo(), label=lab(L_meas))
        ax.loglog(TNs, p["measured"]["000"], "-x", color="C2", lw=1.2, ms=4, label="_nolegend_")
        ax.loglog(TNs, p["fast"], ":", color="grey", lw=1.5, label=lab(L_fast))
        ax.loglog(TNs, p["bound"]["002"], "-", color="C1", **halo(), label=lab(L_bound))
        ax.loglog(TNs, p["bound"]["000"], "--", color="C3", label=lab(L_000))
        ts, wc = p["pep"]
        if ts:
            ax.loglog(ts, wc + smooth, "-s", ms=4, color="C4", label=lab(L_pep))
        if p["kappa"] > 1:  # at kappa = 1 (no heterogeneity term) the certificate is the 002 bound itself
            ax.loglog(TNs, p["cert"], "-.", color="C4", lw=1.3, label="_nolegend_")
        if p["best"] is not None:
            ax.loglog(TNs, p["best"], ":", color="C4", lw=2, label=lab(L_best))
        ax.axhline(smooth, color="k", lw=0.9, ls=(0, (5, 3)), label=lab(L_smooth))
        ax.set_title(f"$\\kappa = {p['kappa']}$, $\\beta = \\beta_{{\\max}} = {tex_sci(p['lr'])}$", fontsize=10)
        ax.set_xlabel(r"rounds $T_N = (T-2)/\kappa$")
        ax.grid(True, which="major", alpha=0.3)
        if not first:
            ax.tick_params(labelleft=False)
    axes[0].set_ylabel(r"$f_\alpha(\tilde w) - f^\star_\alpha$ (log scale)")
    gap_panel(gx, [f"$\\kappa = {p['kappa']}$" for p in panels], decades_by_panel(d), GAPS)
    gx.set_title("vertical gaps between the curves,\nsmallest-largest over $T_N$ (decades)", fontsize=10)
    # a short legend: grouped entries (a band and the curve drawn on it share one), bands shown as patches
    a0 = axes[0]
    by_label = {ln.get_label(): ln for ln in a0.get_lines()}
    cert_line = Line2D([], [], color="C4", ls="-.", lw=1.3)
    cross = Line2D([], [], color="C2", marker="x", lw=1.2, ms=4)
    entries = [((band_patch("C1"), cert_line), L_bound), (by_label[L_000], L_000), (by_label[L_best], L_best),
               (by_label[L_pep], L_pep), ((band_patch("C0"), cross), L_meas), (by_label[L_smooth], L_smooth),
               (by_label[L_fast], L_fast)]
    fig.legend([h for h, _ in entries], [lbl for _, lbl in entries], handler_map={tuple: HandlerTuple(ndivide=1)},
               loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8.5, handlelength=3.0,
               handleheight=1.4, frameon=False)
    fig.suptitle(f"rFedFair, full participation: logistic $n = {d['n']}$, $L = {d['L']:.1f}$, "
                 f"$\\rho^2 = {d['rho2']:.3f}$, $\\mu = {d['mu']}$", y=1.02)
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '002 and 000 Theorem 1 (full participation)'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
One panel per `kappa`, one logarithmic y axis each. From the top: the 002 bound (orange band) with the horizon-free
PEP certificate at the proof's `a = beta/2` drawn on it (dash-dot, within 0.012%; at `kappa = 1` the certificate is
the bound itself, so only the band is drawn there); the 000 bound (red dashed); the certificate at the largest
certified `a` (purple dotted); the exact worst case of the optimisation part over all 2-client instances (purple
squares, one SDP per `T_N`, computed for `kappa T_N <= 12`). Far below, just under the smoothing term `mu tau_alpha`
(black dashed), the measured suboptimality: the 002 output (blue band) and the 000 output (green crosses) agree to
0.014% (legend). The right panel reads the vertical gaps off the curves, per `kappa`, smallest to largest over `T_N`:
the bounds are 2.0 to 4.9 decades above what rFedFair reaches; where the exact worst case is computed, it lies 1.2 to
2.0 decades below the 002 bound - the bound's slack - and 2.9 to 3.0 decades above the measured curve: more of the
gap is how benign this logistic instance is than the bound's slack. The grey dotted curve runs 100 times the allowed
step: it ends below the measured curve although the theorem does not cover it.
"""


@figure("rcfl_theorem1", "rFedFair suboptimality vs rounds (log-log) with the 002/000 Theorem 1 bounds and the "
        "exact worst case (PEP) between them, one panel per kappa")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_theorem1", formats)
