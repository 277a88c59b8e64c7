r"""Exact worst cases vs rounds of local SGD (against 002 Thm. 1) and of FedProx, traced from their own ``make``.

Left: :mod:`fairtheory.algorithms.fedavg` with ``kappa = 1`` (002's schedule at ``kappa = 1``), one client,
``beta = 1/(40 L)`` (Theorem 1's largest step), output the mean of the server models (002's ``w_tilde``), gradients
``grad f(x) + e`` with ``e`` of variance ``sigma2`` (two-atom noise, :func:`fairtheory.worstcase.worst_case`'s
``sigma2=``).  The dashed line is 002 Thm. 1's right-hand side less ``mu tau_alpha`` (= Thm. 2's at one client),
``2 D0/(beta T)``: it holds at ``sigma2 = 0``; the theorem assumes exact gradients and its bound is crossed once the
noise is large enough.  Right: :mod:`fairtheory.algorithms.fedprox` with the exact prox (``gamma = 1/prox_mu``):
one client (the proximal point method) on the band ``L D0/(2 + 4 gamma L N)`` (an explicit Huber instance reaches
it, verify claim ``worstcase.fedprox.ppm``) below Taylor et al.'s ``D0/(4 gamma N)``; two clients with
``rho2 = 1``.  ``L = D0 = 1``.  Quick mode: ``T <= 3`` with noise, ``N <= 6``; ``--full``: ``T <= 4``, ``N <= 10``.
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

L, D0, BETA = 1.0, 1.0, 1.0 / 40.0
SIGMA2 = (0.0, 1e3, 1e4, 1e5)
GAMMAS = (0.5, 2.0)


def sgd_curves(rounds: list[int]) -> dict[float, np.ndarray]:
    """Traced worst case of ``E f(w_tilde) - f*`` of one-client local SGD per ``sigma2`` and round count."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import worst_case

    return {s2: np.array([worst_case(fedavg.make, T, n=1, L=L, D0=D0, rho2=0.0, sigma2=s2, output="mean", lr=BETA,
                                     kappa=1).value for T in rounds]) for s2 in SIGMA2}


def fedprox_curves(rounds: list[int]) -> dict[str, np.ndarray]:
    """Traced FedProx (exact prox) worst cases: one client per ``gamma``, and two clients with ``rho2 = 1``."""
    from fairtheory.algorithms import fedprox
    from fairtheory.worstcase import worst_case

    out = {}
    for g in GAMMAS:
        out[f"n=1 g={g}"] = np.array([worst_case(fedprox.make, N, n=1, L=L, D0=D0, rho2=0.0, prox_mu=1.0 / g,
                                                 solver="exact", tol=1e-9).value for N in rounds])
    out["n=2 rho2=1"] = np.array([worst_case(fedprox.make, N, n=2, L=L, D0=D0, rho2=1.0, prox_mu=1.0 / GAMMAS[0],
                                             solver="exact", tol=1e-9).value for N in rounds])
    return out


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Rounds ``T`` and ``N``, the local-SGD worst cases per ``sigma2`` with the bound ``2 D0/(beta T)``, the FedProx
    worst cases with the PPM band ``L D0/(2 + 4 gamma L N)`` and Taylor et al.'s ``D0/(4 gamma N)`` per ``gamma``."""
    T = np.arange(1, 4 if quick else 5)
    N = np.arange(1, 7 if quick else 11)
    return {"T": T, "sgd": sgd_curves(list(map(int, T))), "sgd_bound": 2.0 * D0 / (BETA * T),
            "N": N, "fedprox": fedprox_curves(list(map(int, N))),
            "ppm": {g: L * D0 / (2.0 + 4.0 * g * L * N) for g in GAMMAS},
            "taylor": {g: D0 / (4.0 * g * N) for g in GAMMAS}}


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11.0, 4.4))
    T, N = d["T"], d["N"]
    for (s2, vals), style in zip(d["sgd"].items(), ("o-", "s-", "^-", "D-"), strict=True):
        lab = "0" if s2 == 0 else f"10^{{{int(round(np.log10(s2)))}}}"
        ax.semilogy(T, vals, style, label=f"local SGD, $\\sigma^2 = {lab}$")
    ax.semilogy(T, d["sgd_bound"], "k--", label=r"002 Thm. 1 RHS $-\,\mu\tau_\alpha$: $2D_0/(\beta T)$")
    ax.set_xlabel(r"rounds $T$ (one local step each)")
    ax.set_ylabel(r"worst case of $\mathbb{E}\,f(\tilde w) - f^\star$")
    ax.set_xticks(T)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(r"local SGD, $n = 1$, $\beta = 1/(40L)$, $L = D_0 = 1$ (noise outside the theorem)", fontsize=9)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, frameon=False)

    fp = d["fedprox"]
    for g, color in zip(GAMMAS, ("tab:blue", "tab:green"), strict=True):
        bx.semilogy(N, d["ppm"][g], "-", color=color, lw=7, alpha=0.35,
                    label=f"$LD_0/(2 + 4\\gamma L N)$, $\\gamma L = {g:g}$ (Huber instance)")
        bx.semilogy(N, fp[f"n=1 g={g}"], "o-", color=color, lw=1.5, ms=4,
                    label=f"FedProx $n = 1$, $\\gamma L = {g:g}$ (PEP)")
        bx.semilogy(N, d["taylor"][g], "--", color=color, label=f"Taylor et al. $D_0/(4\\gamma N)$, $\\gamma L = {g:g}$")
    bx.semilogy(N, fp["n=2 rho2=1"], "^-", color="tab:red",
                label=f"FedProx $n = 2$, $\\rho^2 = 1$, $\\gamma L = {GAMMAS[0]:g}$ (PEP)")
    bx.set_xlabel(r"rounds $N$")
    bx.set_ylabel(r"worst case of ${\sum}_i\, p_i f_i(w_N) - f^\star$")
    bx.set_xticks(N)
    bx.grid(True, which="both", alpha=0.3)
    bx.set_title(r"FedProx with the exact prox ($\gamma = 1/\mu_{\mathrm{prox}}$), $L = D_0 = 1$", fontsize=9)
    bx.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


@figure("worstcase_stochastic", "Exact worst case vs rounds of local SGD at several gradient-noise levels against "
        "002 Thm. 1, and of FedProx (exact prox) against the proximal point bounds (PEP backend, traced)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "worstcase_stochastic", formats)
