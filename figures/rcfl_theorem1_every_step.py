r"""How tight 002 / 000 Theorem 1 is along the admissible step sizes (rho = 0), where it is proved for every step.

``proofs.rcfl.theorem1.every_step`` proves, with one parametric certificate per setting, that the worst case of
``G(theta_tilde) - G*`` (two ``L``-smooth convex clients, ``rho = 0``) is at most the theorem's right-hand side
``2 L D0 / (beta L (T_N + 1))`` (002 output) or ``2 L D0 / (beta L T)`` (000 output, ``T = T_N kappa + 2``) for every
``beta L`` in ``[2^-20, 1/40]``.  This figure draws the ratio worst case / right-hand side against ``beta L``:
for the 002 output the worst case is the proved closed form ``L D0 / (2 + 2 beta L (kappa T_N + 2))``
(``proofs.localgd.rho0_formula``), for the 000 output the float PEP value
(:func:`fairtheory.worstcase.local_gd_worst_case`) at each marked step.  The dotted line is the theorem's largest
admissible step ``1/(40 L)``.  Quick mode: 6 steps per 000 curve; ``--full``: 12.  :func:`data` returns what the
figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

#: (output, kappa, T_N) of proofs.rcfl.theorem1.every_step (its (002, 3, 2) draws on top of (002, 2, 2) here: omitted)
SETTINGS = [("002", 2, 2), ("000", 2, 2), ("000", 3, 2), ("002", 2, 4)]


def rhs(version: str, kappa: int, T_N: int, t: np.ndarray) -> np.ndarray:
    m = T_N + 1 if version == "002" else T_N * kappa + 2
    return 2.0 / (t * m)


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Per setting ``(output, kappa, T_N)`` of :data:`SETTINGS` the steps ``beta L`` and the ratio worst case /
    right-hand side (``kind``: ``"proved formula"`` for the 002 output, ``"PEP"`` for the 000 output)."""
    from fairtheory.worstcase import local_gd_worst_case
    from fairtheory.worstcase.ratio import THEOREM_OUTPUT

    dense = np.geomspace(2.0**-20, 1 / 40, 200)
    out = []
    for version, kappa, T_N in SETTINGS:
        if version == "002":
            worst = 1.0 / (2.0 + 2.0 * dense * (kappa * T_N + 2))
            out.append({"setting": (version, kappa, T_N), "kind": "proved formula", "step": dense,
                        "ratio": worst / rhs(version, kappa, T_N, dense)})
        else:
            ts = np.geomspace(1e-4, 1 / 40, 6 if quick else 12)
            vals = np.array([local_gd_worst_case(n=2, kappa=kappa, T_N=T_N, lr=float(t), L=1.0, D0=1.0, rho2=0.0,
                                                 output=THEOREM_OUTPUT[version]).value for t in ts])
            out.append({"setting": (version, kappa, T_N), "kind": "PEP", "step": ts,
                        "ratio": vals / rhs(version, kappa, T_N, ts)})
    return {"curves": out}


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    styles = ["C0-", "C1--", "C3-.", "C4-"]
    for c, style in zip(d["curves"], styles, strict=True):
        version, kappa, T_N = c["setting"]
        label = f"{version} output, $\\kappa = {kappa}$, $T_N = {T_N}$ ({c['kind']})"
        if c["kind"] == "PEP":
            ax.plot(c["step"], c["ratio"], style, marker="o", ms=4, lw=1.2, label=label)
        else:
            ax.plot(c["step"], c["ratio"], style, lw=1.6, label=label)
    ax.axvline(1 / 40, color="k", ls=":", lw=1.0, label=r"largest admissible step $1/(40L)$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"step size $\beta L$")
    ax.set_ylabel("worst case / Theorem 1 right-hand side")
    ax.set_title(r"002 / 000 Theorem 1 at $\rho = 0$: proved for every $\beta L \in [2^{-20}, 1/40]$", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '002 and 000 Theorem 1 at rho = 0, proved for every admissible step'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
The worst case of `G(theta_tilde) - G*` (two smooth convex clients, `rho = 0`) divided by the theorem's
right-hand side, against the step `beta L` (log-log), up to the largest admissible step `1/(40 L)` (dotted).
`proofs.rcfl.theorem1.every_step` proves the ratio is at most 1 on the whole range `[2^-20, 1/40]` with one
parametric certificate per setting; the figure shows how far below 1 it stays: the solid 002 curves are the
proved closed form `1/(2 + 2 beta L (kappa T_N + 2))`, the dashed 000 curves float PEP values at the marked
steps. Read the slope: the ratio grows like `beta L` (log-log slope 1 within 0.02 below `beta L = 1e-3`) and
is at most 0.043 at `1/40` - at `rho = 0` the theorem is loose by a factor of 20 or more, and far more at
small steps.
"""


@figure("rcfl_theorem1_every_step", "Worst case / 002-000 Theorem 1's right-hand side (rho = 0) against the step "
        "beta L, on the range where parametric certificates prove the theorem")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_theorem1_every_step", formats)
