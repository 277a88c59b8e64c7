r"""Certified step sizes of local GD with averaging (the 002 Theorem 1 iteration) against the theorem's condition,
and how loose the proof's per-round constant is along them.

For each number of local steps ``kappa``, :func:`fairtheory.worstcase.stepsize_region` finds by bisection on
exact one-round PEPs (2 clients, every client ``L``-smooth convex; see docs/worstcase.md) the largest
``beta L`` at which

* a horizon-free certificate exists at all (some ``a > 0``),
* a certificate exists with the proof's ``a = beta/2``,
* the proof's own per-round constant ``C = 13 L beta^3 (kappa-1)^2 kappa`` is certified, so that 002 Thm. 1's
  optimisation bound holds for every ``T_N``.

Along ``beta L`` from 0.01 to the second boundary, :func:`fairtheory.worstcase.round_constant` gives the smallest
certified ``C`` at ``a = beta/2``; the left panel draws it against the proof's ``C``, the right panel their ratio.
The theorem assumes ``beta <= min(1/(40 L), 1/(sqrt(6) L (kappa-1)))`` (:func:`fairtheory.bounds.rcfl.theorem1_lr_max`;
``1/(40 L)`` for ``kappa <= 17``), drawn as the black line over the shaded allowed range, the boundaries as vertical
lines (each curve ends at its own ``kappa``'s boundary).  Quick mode: ``kappa <= 5``, bisection to 1 %, 10 steps per
curve; ``--full``: ``kappa <= 10``, 0.1 %, 24 steps.  The boundaries are measured (bisection on a grid, assuming each
region is an interval, which the grid check confirms or reports: red crosses), the SDP values they rest on are exact.
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

_KINDS = (("exists", "some certificate ($a > 0$)", "C2", "o-"),
          ("theorem_a", "certificate with the proof's $a = \\beta/2$", "C0", "s--"),
          ("theorem_constants", "the proof's constants certified (every $T_N$)", "C4", "^:"))


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """``kappa``, the regions of :func:`fairtheory.worstcase.stepsize_region` per ``kappa``, the largest certified
    ``beta L`` per kind (``tops``) and the theorem's condition ``thm`` per ``kappa``."""
    from fairtheory.bounds.rcfl import theorem1_lr_max
    from fairtheory.worstcase import round_constant, stepsize_region

    kappas = list(range(1, 6)) if quick else list(range(1, 11))
    regions = [stepsize_region(kappa=k, rtol=1e-2 if quick else 1e-3, coarse_points=8 if quick else 16) for k in kappas]
    tops = {key: np.array([r[key] for r in regions]) for key, *_ in _KINDS}
    # the per-round constants along the certified range: what varies with beta L and kappa
    grid = {}
    for k, top in zip(kappas, tops["theorem_a"], strict=True):
        steps = np.union1d(np.geomspace(1e-2, top, 10 if quick else 24), [1.0 / 40.0])
        C = np.array([round_constant(kappa=k, lr=float(b), a=float(b) / 2.0).C for b in steps])
        grid[k] = {"step": steps, "C": C, "C_proof": 13.0 * steps**3 * (k - 1) ** 2 * k}
    return {"kappa": kappas, "regions": regions, "tops": tops, "grid": grid,
            "thm": np.array([theorem1_lr_max(1.0, k) for k in kappas]),
            "flat": max(k for k in range(1, 100) if theorem1_lr_max(1.0, k) == 1.0 / 40.0)}


def ratio(d: dict[str, Any]) -> float:
    """Smallest certified ``beta L`` of the proof's constants over the largest step the theorem allows."""
    return float(np.min(d["tops"]["theorem_constants"]) / np.max(d["thm"]))


def looseness(d: dict[str, Any], kappa: int) -> np.ndarray:
    """The proof's per-round constant over the certified one, ``13 L beta^3 (kappa-1)^2 kappa / C(beta/2)``, along
    the grid of ``kappa`` (``kappa >= 2``)."""
    g = d["grid"][kappa]
    return g["C_proof"] / g["C"]


def _span(values: np.ndarray) -> str:
    """One boundary for every ``kappa`` (``1.73``) or its range (``1.70-1.75, each curve ends at its own``)."""
    lo, hi = float(np.min(values)), float(np.max(values))
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f} (line at the smallest)"


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    kappas, tops = d["kappa"], d["tops"]
    top = float(np.min(tops["theorem_a"]))
    same = np.allclose(tops["theorem_a"], tops["theorem_constants"], rtol=1e-12, atol=0)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5.6))
    thm = float(np.max(d["thm"]))
    for a in (ax, bx):
        a.axvspan(1e-2 / 1.15, thm, color="k", alpha=0.10, lw=0, label="_nolegend_")
        a.axvline(thm, color="k", lw=1.5, label=f"002 Thm. 1's condition: $\\beta L \\leq 1/40$ (shaded; "
                  f"$\\kappa \\leq {d['flat']}$)" if a is ax else "_nolegend_")
        a.axvline(top, color="C0", lw=1.5, ls="-.",
                  label=(f"largest certified $\\beta L$ with $a = \\beta/2$: {_span(tops['theorem_a'])}"
                         + (" (the proof's constants too)" if same else "")) if a is ax else "_nolegend_")
        a.axvline(float(np.min(tops["exists"])), color="C2", lw=1.5, ls=":",
                  label=f"largest $\\beta L$ with some certificate ($a > 0$): {_span(tops['exists'])}"
                  if a is ax else "_nolegend_")
    cols = {k: plt.cm.viridis(0.85 * (k - 2) / max(len(kappas) - 2, 1)) for k in kappas if k >= 2}
    for k in kappas:
        if k < 2:
            continue
        g = d["grid"][k]
        ax.loglog(g["step"], g["C"], "o-", color=cols[k], ms=4, label=f"$\\kappa = {k}$")
        ax.loglog(g["step"], g["C_proof"], "--", color=cols[k], lw=1.2, label="_nolegend_")
        bx.semilogx(g["step"], looseness(d, k), "o-", color=cols[k], ms=4, label="_nolegend_")
    odd = [k for k, r in zip(kappas, d["regions"], strict=True)
           if any(r.get(f"{key}_nonmonotone", 0.0) for key, *_ in _KINDS) and k >= 2]
    if odd:
        ax.loglog([d["grid"][k]["step"][-1] for k in odd], [d["grid"][k]["C"][-1] for k in odd], "x", color="r", ms=10,
                  mew=2, label="region not an interval on the coarse grid: boundary approximate")
    ticks = [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0]
    for a in (ax, bx):
        a.set_xlim(1e-2 / 1.15, 2.3)
        a.xaxis.set_major_locator(FixedLocator(ticks))
        a.xaxis.set_minor_locator(NullLocator())
        a.set_xticklabels([f"{t:g}" for t in ticks])
        a.set_xlabel(r"step size $\beta L$ (log scale)")
        a.grid(True, which="major", alpha=0.3)
    ax.set_ylabel(r"per-round constant $C$ ($L = 1$; log scale)")
    ax.set_title("solid: the smallest $C$ an exact one-round PEP certifies at $a = \\beta/2$;\n"
                 "dashed: the proof's $C = 13 L\\beta^3(\\kappa-1)^2\\kappa$ (same colour); $\\kappa = 1$: both 0",
                 fontsize=9.5)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    lo, hi = min(float(np.min(looseness(d, k))) for k in kappas if k >= 2), \
        max(float(np.max(looseness(d, k))) for k in kappas if k >= 2)
    bx.axhline(1.0, color="C3", lw=1.2, ls="--", label="ratio 1: the proof's constant is certified above it")
    bx.set_yscale("log")
    yt = [1, 2, 5, 10, 20, 50, 100]
    bx.yaxis.set_major_locator(FixedLocator(yt))
    bx.yaxis.set_minor_locator(NullLocator())
    bx.set_yticklabels([f"{y:g}" for y in yt])
    bx.set_ylim(0.7, 160)
    bx.set_ylabel(r"proof's $C$ / certified $C$ (log scale)")
    at = {k: float(looseness(d, k)[np.isclose(d["grid"][k]["step"], thm)][0]) for k in kappas if k >= 2}
    bx.set_title(f"how loose the proof's constant is: {lo:.0f} to {hi:.0f} times the certified one\n"
                 f"(at $\\beta L = 1/40$: {min(at.values()):.0f} to {max(at.values()):.0f}; colours as on the left)",
                 fontsize=9.5)
    bx.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False)
    fig.suptitle(f"Local GD with averaging, 2 clients: the theorem's condition uses at most 1/{ratio(d):.0f} of the "
                 f"certified step-size range at $\\kappa \\leq {kappas[-1]}$", fontsize=11)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = "how far beyond Theorem 1's step-size condition certificates exist, and how loose the proof's constant is"
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Left (log-log): for `kappa = 2..5`, the smallest per-round constant `C` that an exact one-round PEP (two smooth
convex clients) certifies with the proof's `a = beta/2` (solid), and the proof's `C = 13 L beta^3 (kappa - 1)^2
kappa` (dashed, same colour), along the step sizes from 0.01 to the largest certified one; `kappa = 1` is left out,
both constants are 0 there (one local step is gradient descent). Vertical lines: the theorem's condition
`beta L <= 1/40` (black, shaded; it is `1/40` for `kappa <= 17`), the largest `beta L` with a certificate at
`a = beta/2` - 1.73 for every `kappa <= 5`, where the proof's own constants are certified up to the same step - and
the largest with some `a > 0`, 1.98. The condition uses at most 1/69 of the certified range (title). Right: the
proof's constant over the certified one, 52 to 78 times at `beta L = 1/40` (growing with `kappa`) and 7 to 93 times
over the whole range; it stays above the red line at 1 everywhere and falls only near the end of the range (to 7.3
for `kappa = 2` at 1.73).
"""


@figure("rcfl_stepsize_region", "Certified step sizes beta L of local GD with averaging (one-round PEPs) vs kappa, "
        "with 002 Theorem 1's condition beta <= min(1/(40 L), 1/(sqrt(6) L (kappa-1)))")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_stepsize_region", formats)
