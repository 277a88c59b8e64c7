"""Softplus smoothing gap of RC-FL's joint objective (002 Lemma 2, Prop. 1, Sec. 4).

``F^mu_alpha(eta) - F_alpha(eta) = sum_i (p_i/alpha_i)(softplus_mu(f_i - eta) - (f_i - eta)_+)`` against
``mu`` on log-log axes, for one fixed loss vector at four values of ``eta`` (the exact minimiser of
``F_alpha``, ``min f``, ``max f`` and a value below every loss), with Lemma 2's bound ``mu tau_alpha``
and the tight bound ``mu tau_alpha log 2`` (attained when every loss equals ``eta``).  Every point is
:func:`fairtheory.instances.rcfl.lemma2_gap`, the function the claim ``rcfl.lemma2.gap`` sweeps.
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save


def gap_curve(f: np.ndarray, p: np.ndarray, alpha: np.ndarray, eta: float, mus: np.ndarray) -> np.ndarray:
    """``F^mu - F`` for each ``mu`` (:func:`fairtheory.instances.rcfl.lemma2_gap`, term by term)."""
    from fairtheory.instances.rcfl import lemma2_gap

    return np.array([lemma2_gap(p=p, alpha=alpha, losses=f, eta=eta, mu=float(mu)).measured for mu in mus])


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """``mu``, ``tau_alpha``, ``f_alpha``, the losses and per ``eta`` (with its mathtext label) the gap ``F^mu - F``."""
    from fairtheory.objectives.qalpha import qalpha_dual, tau_alpha

    rng = np.random.default_rng(7)
    n = 8
    p = rng.dirichlet(np.ones(n))
    alpha = p + 0.4 * (1.0 - p)
    f = np.sort(rng.uniform(0.0, 1.0, n))
    f_star, eta_star = qalpha_dual(f, p, alpha)
    mus = np.logspace(-4, 2, 120 if quick else 400)
    etas = [(eta_star, r"$\eta^\star$ (minimiser of $F_\alpha$)"), (float(f.min()), r"$\eta = \min f$"),
            (float(f.max()), r"$\eta = \max f$"), (float(f.min()) - 0.25, r"$\eta = \min f - 0.25$")]
    return {"n": n, "f": f, "mu": mus, "tau": tau_alpha(p, alpha), "f_star": f_star,
            "curves": [(eta, lab, gap_curve(f, p, alpha, eta, mus)) for eta, lab in etas]}


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    mus, tau = d["mu"], d["tau"]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ax.loglog(mus, mus * tau, color="k", lw=1.6, label=r"Lemma 2 bound $\mu\,\tau_\alpha$")
    ax.loglog(mus, mus * tau * np.log(2.0), color="k", lw=1.2, ls="--",
              label=r"tight bound $\mu\,\tau_\alpha \log 2$")
    for (_, lab, g), col in zip(d["curves"], ("C0", "C1", "C2", "C3"), strict=True):
        ax.loglog(mus, np.where(g > 0, g, np.nan), color=col, label=lab)
    ax.set_ylim(1e-7, mus[-1] * tau * 3)
    ax.set_xlabel(r"smoothing parameter $\mu$")
    ax.set_ylabel(r"$F^\mu_\alpha(\eta) - F_\alpha(\eta)$")
    ax.set_title(f"Softplus smoothing gap ($n = {d['n']}$, " + r"$\tau_\alpha$" + f" = {tau:.2f}, "
                 + r"$f_\alpha$" + f" = {d['f_star']:.3f})", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '002 Lemma 2 and Prop. 1'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
The softplus smoothing gap `F^mu_alpha(eta) - F_alpha(eta)` against `mu` (log-log) for one loss vector at
four values of `eta`. Every coloured curve stays below the black line (Lemma 2's bound `mu tau_alpha`) and
below the dashed tight bound `mu tau_alpha log 2`; at small `mu` the curves run parallel to the bounds
(log-log slope 1 within 0.02 for `mu <= 1e-3`), and the curve for `eta` below every loss falls off
exponentially: `log(gap/mu)` is linear in `1/mu` with slope `-(min f - eta) = -0.25` (within 5%).
"""


@figure("rcfl_smoothing_gap",
        "F^mu - F against mu with the bounds mu tau_alpha and mu tau_alpha log 2 (002 Lemma 2)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_smoothing_gap", formats)
