r"""004 Thm. 3: two-client FedFV trajectories approaching the Pareto set, and the eq. 10 2-cycle.

Trajectories and the Pareto-stationarity ``rho`` come from
:func:`fairtheory.instances.fedfv.pareto_two_client` on the claim's minimal counterexample
(:data:`~fairtheory.instances.fedfv.MIN_THEOREM3_PARETO`).  ``rho`` oscillates from round to round (FedFV's
projections switch on and off), so the right panels draw, per method, the band between its smallest and largest
value over each window of :data:`WINDOW` rounds (one small panel per start).  :func:`data` returns what the figure
plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, figure_legend, save

#: rounds per window of the min-max band of rho
WINDOW = 10
LRS = (0.5, 0.05)


def window_range(values: np.ndarray, width: int = WINDOW) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre round, smallest and largest value of ``values`` (one per round, from round 0) over each window of
    ``width`` consecutive rounds (the last window may be shorter)."""
    v = np.asarray(values, dtype=float)
    starts = np.arange(0, len(v), width)
    lo = np.array([v[s:s + width].min() for s in starts])
    hi = np.array([v[s:s + width].max() for s in starts])
    centre = np.array([s + (min(s + width, len(v)) - 1 - s) / 2 for s in starts])
    return centre, lo, hi


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """The Pareto set, the client optima, the starts and per start ``runs[(start, lr)]`` (FedFV) and ``eq10`` (from
    the first start, ``eta = 1/L``), each with ``iterates`` ``(T + 1, 2)`` and ``rho`` per round."""
    from fairtheory.instances.fedfv import MIN_THEOREM3_PARETO, pareto_two_client

    q = {k: np.asarray(MIN_THEOREM3_PARETO[k]) for k in ("H1", "H2", "c1", "c2")}
    H, c = np.array([q["H1"], q["H2"]]), np.array([q["c1"], q["c2"]])
    lams = np.linspace(0, 1, 201)  # Pareto set: minimisers of lam F1 + (1 - lam) F2
    pareto = np.array([np.linalg.solve(lam * H[0] + (1 - lam) * H[1], lam * H[0] @ c[0] + (1 - lam) * H[1] @ c[1])
                       for lam in lams])
    T = 300 if quick else 2000
    starts = [np.asarray(MIN_THEOREM3_PARETO["theta0"], dtype=float), np.array([-3.5, -1.0]), np.array([0.5, 4.0])]
    runs = {}
    for i, w0 in enumerate(starts):
        for lr in LRS:
            r = pareto_two_client(**q, theta0=w0, eta=lr, T=T, method="fedfv", record=True)
            runs[(i, lr)] = {"iterates": r.extra["iterates"], "rho": r.extra["rho"]}
    r = pareto_two_client(**q, theta0=starts[0], eta=MIN_THEOREM3_PARETO["eta"], T=T, record=True)
    return {"T": T, "pareto": pareto, "optima": c, "starts": np.array(starts), "runs": runs,
            "eq10": {"iterates": r.extra["iterates"], "rho": r.extra["rho"]}}


def distance_to_pareto(d: dict[str, Any], w: np.ndarray) -> float:
    """Distance of ``w`` to the drawn Pareto set (its polyline)."""
    P = d["pareto"]
    a, b = P[:-1], P[1:]
    t = np.clip(np.einsum("ij,ij->i", w - a, b - a) / np.einsum("ij,ij->i", b - a, b - a), 0.0, 1.0)
    return float(np.min(np.linalg.norm(a + t[:, None] * (b - a) - w, axis=1)))


def _start_name(w: np.ndarray) -> str:
    return f"$({w[0]:g}, {w[1]:g})$"


#: the model-plane region the zoom panel shows: (x0, x1), (y0, y1)
ZOOM = ((0.55, 1.95), (0.8, 1.95))


def _plane(ax: Any, d: dict[str, Any], labelled: bool) -> None:
    """The Pareto set, every path, the starts and the client optima in the model plane."""
    def lab(text: str, first: bool = True) -> str:
        return text if labelled and first else "_nolegend_"

    ax.plot(d["pareto"][:, 0], d["pareto"][:, 1], "k-", lw=2,
            label=lab(r"Pareto set (minimisers of $\lambda F_1 + (1-\lambda) F_2$)"))
    styles = {0.5: dict(color="C0", lw=4, alpha=0.45, ls="-", solid_capstyle="butt"),
              0.05: dict(color="C1", lw=1.2, ls="--")}
    for (i, lr), run in d["runs"].items():
        it = run["iterates"]
        ax.plot(it[:, 0], it[:, 1], zorder=3, label=lab(f"FedFV, $\\mathrm{{lr}} = {lr}$", i == 0), **styles[lr])
    eq = d["eq10"]
    ax.plot(eq["iterates"][:, 0], eq["iterates"][:, 1], "r.-", ms=4, lw=0.6, zorder=2.5,
            label=lab(r"eq. 10 as printed, $\eta = 1/L$, from $(3, 3)$"))
    ax.plot(d["starts"][:, 0], d["starts"][:, 1], "o", ms=7, mfc="none", mec="k", zorder=4, label=lab("starts"))
    ax.plot(d["optima"][:, 0], d["optima"][:, 1], "k*", ms=11, zorder=4, label=lab(r"client optima $c_1$, $c_2$"))
    ax.set_xlabel(r"$\theta_1$")
    ax.set_ylabel(r"$\theta_2$")
    ax.grid(alpha=0.3)


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    fig = plt.figure(figsize=(15.5, 6.4))
    grid = fig.add_gridspec(3, 3, width_ratios=(0.85, 1.3, 1.1), hspace=0.12, wspace=0.3)
    ax = fig.add_subplot(grid[:, 0])
    zx = fig.add_subplot(grid[:, 1])
    small = [fig.add_subplot(grid[0, 2])]
    small += [fig.add_subplot(grid[j, 2], sharex=small[0], sharey=small[0]) for j in (1, 2)]
    _plane(ax, d, labelled=True)
    (x0, x1), (y0, y1) = ZOOM
    ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec="0.35", lw=1.0, ls=(0, (4, 2)), zorder=5,
                           label="_nolegend_"))
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_title("iterates in the model plane (one curve per start);\ndashed box: the zoom", fontsize=10)

    # the zoom: where the paths end and eq. 10's 2-cycle
    _plane(zx, d, labelled=False)
    ends = {lr: np.array([d["runs"][(i, lr)]["iterates"][-1] for i in range(len(d["starts"]))]) for lr in LRS}
    for lr, mk, col in ((0.5, "D", "C0"), (0.05, "s", "C1")):
        zx.plot(ends[lr][:, 0], ends[lr][:, 1], mk, ms=9 if lr == 0.5 else 5, mfc="none" if lr == 0.5 else col,
                mec=col, mew=1.8, zorder=6, ls="none", label=f"last iterate of each FedFV run, $\\mathrm{{lr}} = {lr}$")
    eq = d["eq10"]["iterates"]
    cyc = eq[-2:]
    zx.plot(cyc[:, 0], cyc[:, 1], "X", ms=10, color="r", mec="k", mew=0.6, zorder=6, ls="none",
            label="eq. 10's 2-cycle (its last two iterates)")
    dist = [distance_to_pareto(d, w) for w in cyc]
    far = max(distance_to_pareto(d, run["iterates"][-1]) for run in d["runs"].values())
    zx.set_xlim(x0, x1)
    zx.set_ylim(y0, y1)
    zx.set_aspect("equal", adjustable="box")
    zx.set_title("zoom: where the paths end, and eq. 10's 2-cycle\n"
                 f"every FedFV run ends $\\leq$ {far:.3f} from the Pareto set; the 2-cycle's\n"
                 f"points are {min(dist):.2f} and {max(dist):.2f} from it (on both sides, on the diagonal)", fontsize=9.5)

    band = {0.5: dict(color="C0", alpha=0.45), 0.05: dict(color="C1", alpha=0.35)}
    rho = d["eq10"]["rho"]
    for i, bx in enumerate(small):
        for lr in LRS:
            x, lo, hi = window_range(d["runs"][(i, lr)]["rho"])
            bx.fill_between(x, lo, hi, lw=0.8, edgecolor=band[lr]["color"], step="mid",
                            label=f"FedFV, $\\mathrm{{lr}} = {lr}$: range of $\\rho$ over each {WINDOW} rounds"
                            if i == 0 else "_nolegend_", **band[lr])
        if i == 0:
            x, lo, hi = window_range(rho)
            bx.fill_between(x, lo, hi, color="r", alpha=0.6, lw=0.8, edgecolor="r", step="mid",
                            label=f"eq. 10 as printed: range over each {WINDOW} rounds "
                                  f"(2-cycle, $\\rho$ = {rho[-2]:.3f} / {rho[-1]:.3f})")
        bx.set_yscale("log")
        bx.grid(True, which="major", alpha=0.3)
        bx.set_ylabel(r"$\rho$")
        bx.text(0.99, 0.93, f"start {_start_name(d['starts'][i])}", transform=bx.transAxes, ha="right", va="top",
                fontsize=8.5)
        if i < 2:
            bx.tick_params(labelbottom=False)
    small[0].set_title(r"Pareto-stationarity $\rho = \min_{\lambda\in[0,1]} \|\lambda g_1 + (1-\lambda) g_2\|$ "
                       "(exact),\none panel per start", fontsize=10)
    small[-1].set_xlabel("round")
    small[0].set_ylim(1e-10, 30)
    figure_legend(fig, (ax, zx, *small), fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=3,
                  frameon=False)
    fig.suptitle(r"004 Thm. 3: $H_1 = \mathrm{diag}(1, 0.2)$, $H_2 = \mathrm{diag}(0.2, 1)$, $c_1 = (2, -2)$, "
                 r"$c_2 = (-2, 2)$; colour = method and step size", fontsize=10, y=0.99)
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '004 Theorem 3'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Colour is the method and step size, one curve per start (circles). Left, in the model plane: FedFV with
`lr = 0.5` (blue band) and `lr = 0.05` (orange dashed, drawn on it where the paths agree) from three starts, and
eq. 10 as printed with `eta = 1/L` (red) from `(3, 3)`; the dashed box is the region the middle panel zooms into.
Middle, the zoom: the last iterate of every FedFV run (diamonds, squares) lies within 0.026 of the Pareto set (black)
- from `(3, 3)` on it, at `(4/3, 4/3)` - while eq. 10 ends in a 2-cycle between two points on the diagonal on either
side of the Pareto set, 0.53 and 0.65 away from it (red crosses); the zoom also shows that FedFV with `lr = 0.5`
from the other two starts zig-zags across the Pareto set up to its last round. Right, one small panel per start: the
exact Pareto-stationarity measure `rho` oscillates from round to round, so each band spans its smallest and largest
value over each window of 10 rounds. From `(3, 3)`, FedFV with `lr = 0.5` reaches `rho ~ 4e-9` by round 60 and
`lr = 0.05` is at `1.5e-4` after 300 rounds; from the other two starts `rho` stays between `5e-4` and `3e-2` over
rounds 200-300 for both step sizes. eq. 10 alternates between `rho = 0.316` and `0.389`.
"""


@figure("fedfv_pareto_2client", "FedFV: 2-client trajectories vs the Pareto set (Thm. 3)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "fedfv_pareto_2client", formats)
