r"""Certified step sizes of local GD with averaging (the 002 Theorem 1 iteration) against the theorem's condition.

For each number of local steps ``kappa``, :func:`fairtheory.worstcase.stepsize_region` finds by bisection on
exact one-round PEPs (2 clients, every client ``L``-smooth convex; see docs/worstcase.md) the largest
``beta L`` at which

* a horizon-free certificate exists at all (some ``a > 0``),
* a certificate exists with the proof's ``a = beta/2``,
* the proof's own per-round constant ``C = 13 L beta^3 (kappa-1)^2 kappa`` is certified, so that 002 Thm. 1's
  optimisation bound holds for every ``T_N``.

The theorem assumes ``beta <= min(1/(40 L), 1/(sqrt(6) L (kappa-1)))`` (:func:`fairtheory.bounds.rcfl.theorem1_beta_max`),
drawn as the black line (it is ``1/(40 L)`` for ``kappa <= 17``).  Where two boundaries coincide they are drawn
as one entry.  Quick mode: ``kappa <= 5``, bisection to 1 %;
``--full``: ``kappa <= 10``, 0.1 %.  The boundaries are measured (bisection on a grid, assuming each region is an
interval, which the grid check confirms or reports), the SDP values they rest on are exact.  :func:`data` returns
what the figure plots, :func:`plot` draws it.
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
    from fairtheory.bounds.rcfl import theorem1_beta_max
    from fairtheory.worstcase import stepsize_region

    kappas = list(range(1, 6)) if quick else list(range(1, 11))
    regions = [stepsize_region(kappa=k, rtol=1e-2 if quick else 1e-3, coarse_points=8 if quick else 16) for k in kappas]
    return {"kappa": kappas, "regions": regions, "tops": {key: np.array([r[key] for r in regions]) for key, *_ in _KINDS},
            "thm": np.array([theorem1_beta_max(1.0, k) for k in kappas]),
            "flat": max(k for k in range(1, 100) if theorem1_beta_max(1.0, k) == 1.0 / 40.0)}


def ratio(d: dict[str, Any]) -> float:
    """Smallest certified ``beta L`` of the proof's constants over the largest step the theorem allows."""
    return float(np.min(d["tops"]["theorem_constants"]) / np.max(d["thm"]))


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    kappas, regions, tops = d["kappa"], d["regions"], d["tops"]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    kinds = list(_KINDS)
    if np.allclose(tops["theorem_a"], tops["theorem_constants"], rtol=1e-12, atol=0):
        # the two boundaries coincide (at this bisection tolerance): one entry, not one hidden under the other
        kinds = [k for k in kinds if k[0] != "theorem_constants"]
        kinds = [(key, label + "; the proof's constants (every $T_N$) up to the same $\\beta L$", color, style)
                 if key == "theorem_a" else (key, label, color, style) for key, label, color, style in kinds]
    separate = len(kinds) == len(_KINDS)  # the proof's constants drawn on the a = beta/2 boundary (a band)
    for j, (key, label, color, style) in enumerate(kinds):
        top = tops[key]
        band = dict(lw=7, alpha=0.35, zorder=1.5) if separate and key == "theorem_a" else dict(lw=2.5 - 0.5 * j)
        ax.semilogy(kappas, top, style.replace("--", "-") if "alpha" in band else style, color=color, ms=6 - j,
                    label=f"largest certified $\\beta L$: {label}" + (" (band)" if "alpha" in band else ""), **band)
        if j == 0:
            ax.fill_between(kappas, 1e-3, top, color=color, alpha=0.08, label="_nolegend_")
        odd = [k for k, r in zip(kappas, regions, strict=True) if r.get(f"{key}_nonmonotone", 0.0)]
        if odd:
            ax.semilogy(odd, [r[key] for k, r in zip(kappas, regions, strict=True) if k in odd], "x", color="r", ms=8,
                        label=f"{key}: not an interval on the grid (boundary approximate)")
    ax.semilogy(kappas, d["thm"], "s-", color="k", ms=4,
                label=r"002 Thm. 1 condition: $\beta L \leq \min(1/40,\, 1/(\sqrt{6}(\kappa-1)))$"
                      f" ($= 1/40$ for $\\kappa \\leq {d['flat']}$)")
    ax.fill_between(kappas, 1e-3, d["thm"], color="k", alpha=0.12, label="_nolegend_")
    ax.set_ylim(1e-2 / 2, 4.0)
    ax.set_xlabel(r"local steps $\kappa$")
    ax.set_ylabel(r"step size $\beta L$")
    ax.set_xticks(kappas)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"Step sizes certified by exact one-round PEPs (2 clients); the theorem's condition\n"
                 f"uses at most 1/{ratio(d):.0f} of the certified range at these $\\kappa$ (shaded: allowed / certified)",
                 fontsize=10)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    return fig


@figure("rcfl_stepsize_region", "Certified step sizes beta L of local GD with averaging (one-round PEPs) vs kappa, "
        "with 002 Theorem 1's condition beta <= min(1/(40 L), 1/(sqrt(6) L (kappa-1)))")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_stepsize_region", formats)
