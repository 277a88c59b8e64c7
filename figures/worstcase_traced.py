r"""Exact worst case vs rounds of FedAvg, Scaffold and the example plugin's FedAvgM, all traced from their own ``make``.

:func:`fairtheory.worstcase.worst_case` runs each method's ``init`` / ``step`` on symbolic Gram arrays and solves
the performance-estimation SDP: the worst ``sum_i p_i f_i(w_T) - f*`` over every instance with ``n = 2`` clients,
each ``L``-smooth convex, ``||w_0 - x*||^2 <= D0`` and ``sum_i p_i ||grad f_i(x*)||^2 <= rho2`` (same class for
the three methods: ``L = 1``, ``D0 = 1``, ``rho2 = 1``), ``kappa = 2`` local steps of size ``0.5/L``.  No PEP was
written for FedAvgM (the plugin's method, examples/fairtheory-propfair): its curve comes from its ``make``.
The dotted line is the exact worst case of gradient descent with the same number of gradient steps
``N = kappa T`` on identical clients, ``L D0 / (4 N lr L + 2)`` (Drori & Teboulle 2014, ``lr L <= 1``): warm-started
Scaffold lies on it (no client drift), FedAvg above it (drift from ``rho2 > 0``), and the heavy-ball server step
of FedAvgM is not monotone in ``T``.  Quick mode: ``T <= 5``; ``--full``: ``T <= 8``.  :func:`data` returns what
the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

L, D0, RHO2, KAPPA, LR, MOMENTUM = 1.0, 1.0, 1.0, 2, 0.5, 0.5


def plugin_method() -> Any:
    """The example plugin's ``fedavgm_make``: from the installed package, else from the repository's examples folder."""
    try:
        return importlib.import_module("fairtheory_propfair.methods").fedavgm_make
    except ImportError:
        path = Path(__file__).resolve().parents[1] / "examples" / "fairtheory-propfair" / "fairtheory_propfair" / "methods.py"
        spec = importlib.util.spec_from_file_location("_fairtheory_propfair_methods", path)
        mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[spec.name] = mod  # type: ignore[union-attr]  (dataclasses look their module up)
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
        return mod.fedavgm_make


def curves(rounds: list[int]) -> dict[str, np.ndarray]:
    """Worst cases per round count for the three methods (same function class)."""
    from fairtheory.algorithms import fedavg, scaffold
    from fairtheory.worstcase import worst_case

    fedavgm = plugin_method()
    cls = {"n": 2, "L": L, "D0": D0, "rho2": RHO2}
    out: dict[str, list[float]] = {"FedAvg": [], "Scaffold (warm start)": [], f"FedAvgM (plugin, momentum {MOMENTUM})": []}
    for T in rounds:
        out["FedAvg"].append(worst_case(fedavg.make, T, lr=LR, kappa=KAPPA, **cls).value)
        out["Scaffold (warm start)"].append(worst_case(scaffold.make, T, kappa=KAPPA, lr=LR, start={"warm_start": True},
                                                      **cls).value)
        out[f"FedAvgM (plugin, momentum {MOMENTUM})"].append(
            worst_case(fedavgm, T, lr=LR, kappa=KAPPA, momentum=MOMENTUM, **cls).value)
    return {k: np.array(v) for k, v in out.items()}


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Rounds ``T``, the worst case per method (``curves``) and gradient descent's ``L D0/(4 N lr L + 2)`` (``gd``)."""
    rounds = list(range(1, 6 if quick else 9))
    T = np.array(rounds)
    return {"T": T, "curves": curves(rounds), "gd": L * D0 / (4 * KAPPA * T * LR * L + 2)}


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    T = d["T"]
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    for (label, vals), style in zip(d["curves"].items(), ("o-", "s-", "^-"), strict=True):
        if label.startswith("Scaffold"):  # on the GD line (the finding): a wide band with the line drawn on it
            ax.semilogy(T, vals, style, lw=5, alpha=0.55, ms=8, zorder=1.5,
                        label=label + ": wide band, the GD line lies on it")
        else:
            ax.semilogy(T, vals, style, label=label)
    ax.semilogy(T, d["gd"], "k:", label=r"GD on identical clients, $N = \kappa T$ steps")
    ax.set_xlabel(r"rounds $T$")
    ax.set_ylabel(r"worst case of ${\sum}_i\, p_i f_i(w_T) - f^\star$")
    ax.set_xticks(T)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"Exact worst cases traced from each method's make()\n($n = 2$, $L = D_0 = \\rho^2 = 1$, "
                 f"$\\kappa = {KAPPA}$, $\\mathrm{{lr}} = {LR}$)", fontsize=9)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = "exact worst cases traced from the methods' own code"
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
The exact worst case of `sum_i p_i f_i(w_T) - f*` over every 2-client `L`-smooth convex instance, traced
from each method's own `make()`: FedAvg, warm-started Scaffold (orange band) and the example plugin's
FedAvgM. The dotted black line - gradient descent with the same number of steps on identical clients - lies
on Scaffold's band (within 0.01%: no client drift), FedAvg stays above it, and FedAvgM's heavy-ball step is
not monotone in `T` (it rises from `T = 2` to `T = 3`).
"""


@figure("worstcase_traced", "Exact worst case vs rounds of FedAvg, Scaffold and the plugin's FedAvgM, each traced "
        "from its own make() (PEP backend; L = D0 = rho2 = 1, kappa = 2)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "worstcase_traced", formats)
