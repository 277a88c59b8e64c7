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

    return {s2: np.array([worst_case(fedavg.make, T, n=1, L=L, D0=D0, rho2=0.0, sigma2=s2, output="average", lr=BETA,
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


def quadratic_instance(rounds: np.ndarray, sigma2: float) -> np.ndarray:
    r"""``E f(w_tilde) - f*`` of one-client local SGD (``kappa = 1``, step :data:`BETA`, output the mean of
    ``w_1..w_T``) on the explicit instance ``f(x) = (L/2) x^2``, ``x_0 = sqrt(D0)``, noise ``e = +-sqrt(sigma2)``
    with probability 1/2 each (two atoms: in the PEP's class), in closed form: ``w_t = a^t x_0 - beta sum_{s<t}
    a^{t-1-s} e_s`` with ``a = 1 - beta L``, so ``E f(w_tilde) = (L/2) (m^2 + sigma2 sum_s c_s^2)`` with ``m = (1/T)
    sum_t a^t x_0`` and ``c_s = (beta/T) (1 - a^{T-s})/(1 - a)``.  One instance of the class: a *lower* bound on
    the worst case at every ``T``."""
    a = 1.0 - BETA * L
    out = []
    for T in map(int, rounds):
        t, s = np.arange(1, T + 1), np.arange(T)
        m = float(np.sum(a**t)) * np.sqrt(D0) / T
        c = (BETA / T) * (1.0 - a ** (T - s)) / (1.0 - a)
        out.append(0.5 * L * (m**2 + sigma2 * float(np.sum(c**2))))
    return np.array(out)


def first_above(values: np.ndarray, bound: np.ndarray, rounds: np.ndarray) -> int | None:
    """The first ``T`` from which ``values`` stays above ``bound`` to the last round shown (``None`` if it does
    not end above it)."""
    above = np.asarray(values) > np.asarray(bound)
    if not above[-1]:
        return None
    k = len(above) - 1
    while k > 0 and above[k - 1]:
        k -= 1
    return int(rounds[k])


#: rounds of the explicit instance (closed form: cheap at any T)
INSTANCE_T = np.arange(1, 65)


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Rounds ``T`` (exact PEPs: 2-atom noise branches ``2^T`` ways) and ``T_inst`` (explicit instance), the
    local-SGD worst cases ``sgd`` and instance values ``instance`` per ``sigma2`` with the bound ``2 D0/(beta T)`` on
    both grids, the FedProx worst cases with the PPM band ``L D0/(2 + 4 gamma L N)`` and Taylor et al.'s
    ``D0/(4 gamma N)`` per ``gamma``."""
    T = np.arange(1, 4 if quick else 5)
    N = np.arange(1, 7 if quick else 11)
    return {"T": T, "sgd": sgd_curves(list(map(int, T))), "sgd_bound": 2.0 * D0 / (BETA * T),
            "T_inst": INSTANCE_T, "instance": {s2: quadratic_instance(INSTANCE_T, s2) for s2 in SIGMA2},
            "inst_bound": 2.0 * D0 / (BETA * INSTANCE_T),
            "N": N, "fedprox": fedprox_curves(list(map(int, N))),
            "ppm": {g: L * D0 / (2.0 + 4.0 * g * L * N) for g in GAMMAS},
            "taylor": {g: D0 / (4.0 * g * N) for g in GAMMAS}}


def _sigma_tex(s2: float) -> str:
    return "0" if s2 == 0 else f"10^{{{int(round(np.log10(s2)))}}}"


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12.0, 4.8))
    T, N, Ti = d["T"], d["N"], d["T_inst"]
    from matplotlib.legend_handler import HandlerTuple

    handles, labels = [], []
    for k, ((s2, vals), mark) in enumerate(zip(d["sgd"].items(), ("o", "s", "^", "D"), strict=True)):
        col = f"C{k}"
        (line,) = ax.loglog(Ti, d["instance"][s2], "-", color=col, lw=1.3, label="_nolegend_")
        start = first_above(d["instance"][s2], d["inst_bound"], Ti)
        above = f"; above the bound from $T = {start}$ ($\\bigstar$)" if start is not None else ""
        labels.append(f"$\\sigma^2 = {_sigma_tex(s2)}$: exact worst case (markers), instance $f = Lx^2/2$ (line)"
                      + above)
        (dots,) = ax.loglog(T, vals, mark, color=col, ms=8, mfc="none", mew=1.6, label=labels[-1])
        handles.append((line, dots))
        if start is not None:
            ax.plot([start], [d["instance"][s2][list(Ti).index(start)]], "*", color=col, ms=13, mec="k", mew=0.6,
                    label="_nolegend_", zorder=4)
    labels.append(r"002 Thm. 1 RHS $-\,\mu\tau_\alpha$: $2D_0/(\beta T)$")
    handles += ax.loglog(Ti, d["inst_bound"], "k--", lw=1.4, label=labels[-1])
    ax.set_xlabel(r"rounds $T$ (one local step each; log scale)")
    ax.set_ylabel(r"$\mathbb{E}\,f(\tilde w) - f^\star$ (log scale)")
    ticks = [1, 2, 3, 4, 8, 16, 32, 64]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(t) for t in ticks])
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title("local SGD, $n = 1$, $\\beta = 1/(40L)$, $L = D_0 = 1$ (noise: outside the theorem)\n"
                 "markers: exact worst case, $T \\leq " + f"{T[-1]}" + "$; lines: $f = Lx^2/2$, a lower bound for every $T$;"
                 "\n$\\bigstar$: from here on the instance, so the worst case, stays above the bound", fontsize=9)
    ax.legend(handles, labels, handler_map={tuple: HandlerTuple(ndivide=1)}, handlelength=3, fontsize=8,
              loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=1, frameon=False)

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
    bx.set_ylabel(r"worst case of ${\sum}_i\, p_i f_i(w_N) - f^\star$ (log scale)")
    bx.set_xticks(N)
    ytk = [0.02, 0.05, 0.1, 0.2, 0.5]
    bx.yaxis.set_major_locator(FixedLocator(ytk))
    bx.yaxis.set_minor_locator(NullLocator())
    bx.set_yticklabels([f"{y:g}" for y in ytk])
    bx.grid(True, which="major", alpha=0.3)
    bx.set_title(r"FedProx with the exact prox ($\gamma = 1/\mu_{\mathrm{prox}}$), $L = D_0 = 1$", fontsize=9)
    bx.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = 'stochastic gradients against 002 Thm. 1, and FedProx'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Left (log-log): one-client local SGD (`kappa = 1`, `beta = 1/(40 L)`, 002's averaged output) with gradient noise of
variance `sigma2` = 0, 1e3, 1e4, 1e5 against 002 Thm. 1's right-hand side `2 D0/(beta T)` (dashed). Markers: the
exact worst case of `E f(w_tilde) - f*` (PEP; the noise branches `2^T` ways, so `T <= 3` in quick mode); lines: the
same quantity on one explicit instance of the class, `f = L x^2/2` with noise `+-sqrt(sigma2)`, in closed form for
every `T` up to 64 - a lower bound on the worst case at every `T`, at most 0.6% below the markers where both are
drawn. The theorem assumes exact gradients: at `sigma2 = 0` the worst case is more than 50 times below it. With
`sigma2 = 1e5` the worst case is below the bound at `T = 1` and above it at `T = 3` (it crosses between `T = 2` and
3), and the instance - so the worst case - stays above it from `T = 3` to 64 (red star); with `sigma2 = 1e4` and
`1e3` the instance crosses the bound later and stays above it from `T = 9` and `T = 35` (stars). Right: FedProx with
the exact prox. One client (the proximal point method) lies on the band `L D0/(2 + 4 gamma L N)` (reached by an
explicit Huber instance), below Taylor et al.'s `D0/(4 gamma N)` (dashed). Two clients with `rho2 = 1` (red)
decrease over the rounds shown, from 0.29 at `N = 1` to 0.13 at `N = 6`, but more slowly than one client: the ratio
of the red curve to the one-client curve at the same `gamma L = 0.5` grows from 1.17 to 1.77. Whether it goes to 0
the picture does not say.
"""


@figure("worstcase_stochastic", "Exact worst case vs rounds of local SGD at several gradient-noise levels against "
        "002 Thm. 1, and of FedProx (exact prox) against the proximal point bounds (PEP backend, traced)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "worstcase_stochastic", formats)
