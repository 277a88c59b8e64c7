r"""Where 002 Theorem 1 (optimisation part) is proved for **every** number of rounds (potential certificates).

Left: for each ``kappa`` the step sizes ``beta L`` on which a ``pep-potential`` certificate, checked exactly by the
kernel when the data are computed, proves ``G(theta_tilde) - G* <= L D0/(2 beta L (T_N + 1))`` for every
``T_N >= 0`` (two uniform ``L``-smooth convex clients, rFedFair schedule, 002 output, ``rho = 0``; the potential
``||theta - theta*||^2``, docs/proofs.md 8.3) - the range ``[2^-20, 1]``; the same certificate stated on ``[1, 2]``,
which the kernel refuses (crosses); the range ``[2^-20, 1/40]`` where the bound with a heterogeneity term
``(c/2) L beta^2 rho^2`` is proved for every ``rho`` (green, ``c`` from the certificate); and the theorem's admissible
steps ``beta L <= min(1/40, 1/(sqrt 6 (kappa - 1)))`` (red).  Middle and right, at ``beta L = 1/40``, ``kappa = 2``,
``rho = 0``, ``T_N = 1..200``: the minimum of proved bounds of ``proofs.rcfl.theorem1.every_round``
(:mod:`fairtheory.proofs.theorem1`: the all-round potential, exact per-round certificates at ``T_N = 1..8``), the
potential alone, the theorem's first term ``2 L D0/(beta L (T_N + 1))`` and the trivial ``L D0/2`` (proved for every
``T_N`` too), against the attained value of the Huber instance (equal to the worst case where a per-round
certificate applies) and the exact worst case of :func:`fairtheory.worstcase.local_gd_worst_case` (one SDP per
``T_N``; quick mode: ``T_N = 1..4``, ``--full``: ``1..8``); right: each divided by the attained value.
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, figure_legend, save

KAPPAS = range(1, 9)
#: the ranges' left end (002 Thm. 1's right-hand side is infinite at beta L = 0)
LO = Fraction(1, 2**20)
#: the largest range the rho = 0 potential proves, the range it is refused on, the theorem's largest step
RHO0_HI, REFUSED, THM_HI = Fraction(1), (Fraction(1), Fraction(2)), Fraction(1, 40)
#: the right panel's setting
KAPPA_R, STEP_R = 2, Fraction(1, 40)


def admissible(kappa: int) -> float:
    """002 Thm. 1's largest step ``beta L``: ``min(1/40, 1/(sqrt 6 (kappa - 1)))`` (``1/40`` for ``kappa = 1``)."""
    return 1 / 40 if kappa == 1 else min(1 / 40, 1 / (math.sqrt(6) * (kappa - 1)))


def _cubic(potential: dict[str, Any]) -> Fraction:
    """``c`` with drift ``C(t) = c t^3`` and weight ``w(t) = 2 t``: the bound's ``rho^2`` part ``C/w`` is
    ``(c/2) t^2`` in units of ``rho^2/L`` (docs/proofs.md 8.3); ``ValueError`` for another form."""
    num, den = potential["drift"]["num"], potential["drift"]["den"]
    coeffs = [Fraction(x) for x in num] + [Fraction(0)] * (4 - len(num))
    if den != ["1"] or potential["weight"] != {"num": ["0", "2"], "den": ["1"]} or any(coeffs[:3]) or any(coeffs[4:]):
        raise ValueError(f"drift {potential['drift']} / weight {potential['weight']}: not c t^3 / 2t")
    return coeffs[3]


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """What :func:`plot` draws.  ``rows``: one dict per ``kappa`` with ``rho0`` (the kernel accepts the ``rho = 0``
    certificate on ``[LO, RHO0_HI]``), ``refused`` (it rejects the same certificate stated on ``REFUSED``),
    ``every_rho`` (the every-``rho`` certificate on ``[LO, THM_HI]`` checks), ``c`` (its ``rho^2`` coefficient:
    bound ``+ (c/2) L beta^2 rho^2``, a Fraction) and ``admissible``; ``T`` (rounds), ``worst`` (exact worst case),
    ``proved`` and ``rhs`` (both in units of ``L D0``) at ``KAPPA_R``, ``STEP_R``."""
    from fairtheory.proofs.potential_search import PotentialNotProved, _local_gd, prove_potential
    from fairtheory.worstcase import local_gd_worst_case
    from fairtheory_kernel.potential_kernel import explain_potential

    rows = []
    for kappa in KAPPAS:
        try:  # the largest range this potential proves: beta L <= 1; checked exactly here
            rho0 = prove_potential("local_gd", n=2, kappa=kappa, h=(LO, RHO0_HI)).check()
        except PotentialNotProved:
            rho0 = False
        c: Fraction | None = None
        try:  # the whole optimisation part, for every rho, on the theorem's range
            cert = prove_potential("local_gd", n=2, kappa=kappa, rho2="any", h=(LO, THM_HI))
            every = cert.check()
            c = _cubic(cert.statement["potential"])
        except PotentialNotProved:
            every = False
        # the same certificate stated on [1, 2]: the kernel refuses it (the potential does not decrease past 1)
        st, ev = _local_gd(*REFUSED, 2, [Fraction(1, 2)] * 2, kappa, "rfedfair", None)
        refused = not explain_potential({"kind": "pep-potential", "version": 1, "statement": st, "evidence": ev})[0]
        rows.append({"kappa": kappa, "rho0": bool(rho0), "refused": refused, "every_rho": bool(every), "c": c,
                     "admissible": admissible(kappa)})
    T = np.arange(1, (4 if quick else 8) + 1)
    worst = np.array([local_gd_worst_case(n=2, kappa=KAPPA_R, T_N=int(k), lr=float(STEP_R), L=1.0, D0=1.0,
                                          rho2=0.0, output="average").value for k in T])
    proved = 1.0 / (2 * float(STEP_R) * (T + 1))
    rhs = 2.0 / (float(STEP_R) * (T + 1))
    return {"rows": rows, "T": T, "worst": worst, "proved": proved, "rhs": rhs, "every_round": every_round()}


#: the rounds of the minimum-of-proved-bounds panels
ROUNDS_MIN = np.arange(1, 201)


def every_round() -> dict[str, Any]:
    """The minimum of proved bounds (:class:`fairtheory.proofs.theorem1.ProvedBounds` of the certificates of
    ``proofs.rcfl.theorem1.every_round``, re-checked here; the per-round ones from the shipped file, never searched) at
    ``KAPPA_R``, ``STEP_R``, ``rho = 0``, for ``T_N`` in :data:`ROUNDS_MIN`: ``T``, ``min`` (units ``L D0``),
    ``source`` (the kind of the certificate giving it), ``huber`` (the attained value :func:`huber_lower`, a lower
    bound of the worst case at every ``T_N``, equal to it where a per-round certificate applies), ``potential`` and
    ``rhs`` (002 Thm. 1's first term)."""
    from fairtheory.proofs.theorem1 import ProvedBounds, every_round_certificates, huber_lower

    pb = ProvedBounds(every_round_certificates(quick=True, search=False))
    mins, source = [], []
    for k in ROUNDS_MIN:
        got = pb.at(int(k), STEP_R)
        if got is None:
            raise RuntimeError(f"no proved bound at T_N = {k}")
        mins.append(float(got[0]))
        source.append(pb.statements[got[1]]["kind"])
    t = float(STEP_R)
    return {"T": ROUNDS_MIN, "min": np.array(mins), "source": source, "checked": list(pb.checked),
            "huber": np.array([float(huber_lower(KAPPA_R, int(k), STEP_R)) for k in ROUNDS_MIN]),
            "potential": 1.0 / (2 * t * (ROUNDS_MIN + 1)), "rhs": 2.0 / (t * (ROUNDS_MIN + 1))}


def _frac_tex(c: Fraction) -> str:
    return f"{c.numerator}" if c.denominator == 1 else f"{c.numerator}/{c.denominator}"


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, (ax, bx, cx) = plt.subplots(1, 3, figsize=(17.0, 6.0), gridspec_kw={"width_ratios": [1.25, 1, 1]})
    first = {"rho0": True, "every": True, "adm": True, "refused": True}
    for r in d["rows"]:
        k = r["kappa"]
        if r["rho0"]:
            ax.hlines(k, float(LO), float(RHO0_HI), colors="C0", lw=9, alpha=0.35,
                      label=r"proved for every $T_N \geq 0$ at $\rho = 0$: "
                      r"$G(\tilde\theta) - G^\star \leq L D_0/(2 \beta L (T_N + 1))$"
                      if first.pop("rho0", False) else None)
        if r["every_rho"]:
            ax.hlines(k + 0.24, float(LO), float(THM_HI), colors="C2", lw=2.5,
                      label=r"proved for every $T_N$ and every $\rho$: the same $+\ (c/2) L \beta^2 \rho^2$ ($c$ above the line)"
                      if first.pop("every", False) else None)
            ax.text(float(THM_HI) * 1.15, k + 0.52, f"$c = {_frac_tex(r['c'])}$", fontsize=7, va="center",
                    color="C2")
        ax.hlines(k, float(LO), r["admissible"], colors="C3", lw=2.5,
                  label=r"Theorem 1's admissible steps $\beta L \leq \min(1/40,\ 1/(\sqrt{6}(\kappa - 1)))$"
                  if first.pop("adm", False) else None)
        if r["refused"]:
            ax.plot([float(x) for x in REFUSED], [k, k], "x", color="k", ms=5,
                    label=r"refused by the kernel: the same $\rho = 0$ certificate on $\beta L \in [1, 2]$"
                    if first.pop("refused", False) else None)
    ax.set_xscale("log")
    ax.set_xlim(2.0**-21, 4.0)
    ax.set_ylim(0.4, 9.2)
    ax.set_yticks(list(KAPPAS))
    ax.set_xlabel(r"step size $\beta L$")
    ax.set_ylabel(r"local steps per round $\kappa$")
    ax.set_title(r"002 Thm. 1, 002 output: exact potential certificates for every $T_N \geq 0$", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)

    e = d["every_round"]
    T, wc = e["T"], e["huber"]
    per_round = np.array([src != "pep-potential" for src in e["source"]])
    bx.plot(T, e["rhs"], "C3-", lw=1.4, label=r"Theorem 1's first term $2 L D_0/(\beta L (T_N + 1))$")
    bx.plot(T, e["potential"], "C0-", lw=1.4,
            label=r"proved for every $T_N$ (potential): $L D_0/(2 \beta L (T_N + 1))$")
    bx.axhline(0.5, color="0.5", ls="--", lw=1.0, label=r"proved for every $T_N$ (trivial): $L D_0/2$")
    bx.plot(T, e["min"], "k-", lw=2.6, alpha=0.55, label="minimum of proved bounds")
    bx.plot(T[per_round], e["min"][per_round], "kD", ms=5, mfc="none",
            label=r"per-round exact certificates ($T_N \leq 8$: pep-family / pep-dual)")
    bx.plot(T, wc, "C2-", lw=1.2, label=r"attained value $L D_0/(2 + 2\beta L(\kappa T_N + 2))$ (Huber instance; "
            r"$=$ the worst case where a per-round certificate applies)")
    bx.plot(d["T"], d["worst"], "C2o", ms=4, label=r"exact worst case, PEP (one SDP per $T_N$)")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel(r"rounds $T_N$")
    bx.set_ylabel(r"bound on $G(\tilde\theta) - G^\star$ (units of $L D_0$)")
    bx.set_title(rf"$\kappa = {KAPPA_R}$, $\beta L = {STEP_R.numerator}/{STEP_R.denominator}$, two uniform clients, "
                 r"$\rho = 0$", fontsize=10)
    bx.grid(True, which="both", alpha=0.3)

    cx.plot(T, e["rhs"] / wc, "C3-", lw=1.4)
    cx.plot(T, e["potential"] / wc, "C0-", lw=1.4)
    cx.plot(T, e["min"] / wc, "k-", lw=2.6, alpha=0.55)
    cx.plot(T[per_round], (e["min"] / wc)[per_round], "kD", ms=5, mfc="none")
    cx.plot(T, 0.5 / wc, color="0.5", ls="--", lw=1.0)
    cx.axhline(2.0, color="C1", ls=":", lw=1.2, label="2x the attained value")
    cx.set_xscale("log")
    cx.set_yscale("log")
    cx.set_ylim(0.8, 200)
    cx.set_xlabel(r"rounds $T_N$")
    cx.set_ylabel(r"bound / attained value ($\geq$ bound / worst case)")
    cx.set_title(r"the same bounds over the attained value", fontsize=10)
    cx.grid(True, which="both", alpha=0.3)
    figure_legend(fig, (ax, bx, cx), fontsize=8, loc="lower center", ncol=3)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '002 Theorem 1 proved for every number of rounds (potential certificates, the minimum of proved bounds)'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Left: one row per `kappa = 1..8` (two uniform smooth convex clients, rFedFair schedule, 002 output), the step
sizes `beta L` (log scale) on which an exact `pep-potential` certificate - checked by the kernel when the data are
computed (docs/proofs.md section 8) - proves the bound for **every** `T_N >= 0`. Read the lengths: the blue band
(`rho = 0`, `G(theta_tilde) - G* <= L D0/(2 beta L (T_N + 1))`, a quarter of the theorem's right-hand side) reaches
`beta L = 1` in every row, 40 times the theorem's largest step (red: `1/40` in every row, since
`1/(sqrt 6 (kappa - 1)) >= 1/40` up to `kappa = 17`); the same certificate stated on `[1, 2]` is refused by the
kernel in every row (crosses). The green line (every heterogeneity `rho`, bound `+ (c/2) L beta^2 rho^2`) covers
the whole admissible range in every row, with the `c` printed above it: 0, 17/32, 5/2, 7, 15, 55/2, 91/2, 70 for
`kappa = 1..8`, at most 0.51% of the theorem's `52 (kappa - 1)^2 kappa` (its term `26 L beta^2 (kappa - 1)^2 kappa
rho^2`). Middle and right (`kappa = 2`, `beta L = 1/40`, `rho = 0`, `T_N = 1..200`, log axes): the minimum of
proved bounds of `proofs.rcfl.theorem1.every_round` (thick grey; docs/theorem1.md) - exact per-round certificates at
`T_N = 1..8` (diamonds), then the trivial `L D0/2` (proved for every `T_N`) and from `T_N = 40` on the potential
`L D0/(2 beta L (T_N + 1))` - against the theorem's first term `2 L D0/(beta L (T_N + 1))` and the value the Huber
instance attains, `L D0/(2 + 2 beta L (kappa T_N + 2))` (green; the exact worst case of the PEP, green dots, agrees
with it). Right, each over that value: the minimum is exactly 1 at `T_N = 1..8`, `1 + 2 beta L (T_N + 1)` (1.5 at
`T_N = 9`, within 2x up to `T_N = 19`, 3 at `T_N = 39`) until the potential takes over, `2 + 1/(beta L (T_N + 1))`
(2.2 at `T_N = 200`); the potential alone is 22.0 at `T_N = 1`, the theorem's first term 88.0.
"""


@figure("rcfl_theorem1_all_rounds", "Step sizes where 002 Theorem 1 is proved for every number of rounds "
        "(exact potential certificates, rho = 0 and every rho), and the proved bound / exact worst case against T_N")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_theorem1_all_rounds", formats)
