"""Lemma 12 along a q-FedSGD trajectory: exact Hessian norm of f_q against the estimate sum p_k L_q,k.

:func:`data` returns what the figure plots, :func:`plot` draws it."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

QS = (1.0, 2.0, 5.0)


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Per ``q``: the exact ``||Hess f_q(w_t)||`` (``hessian``) and Lemma 12's estimate ``sum_k p_k L_q,k``
    (``estimate``) at every round ``t`` of a q-FedSGD run."""
    from fairtheory.algorithms import qfedsgd
    from fairtheory.instances.qffl import lemma12, random_multinomial

    r = np.random.default_rng(0)
    P = random_multinomial(r, n=8, d_in=4, C=3, l2=0.01, sizes=(10, 40), shift=1.5)
    Lk = P.client_smoothness()
    L = qfedsgd.estimate_L(P)
    rounds = 60 if quick else 200
    out: dict[str, Any] = {"rounds": np.arange(rounds), "n": P.n, "d": P.d, "q": {}}
    for q in QS:
        alg = qfedsgd.make(P, q=q, L=L)
        s = alg.init(r.normal(size=P.d) * 0.5)
        hn, est = [], []
        for _ in range(rounds):
            F, J, Hs = P.losses(s.w), P.grads(s.w), P.hessians(s.w)
            # Lemma 12 per client; f_q's Hessian and the step's estimate are their p-averages
            res = [lemma12(loss=F[k], grad=J[k], hess=Hs[k], L=Lk[k], q=q) for k in range(P.n)]
            H = np.einsum("n,nij->ij", P.p, np.stack([x.extra["hessian"] for x in res]))
            hn.append(np.abs(np.linalg.eigvalsh(H)).max())
            est.append(float(P.p @ np.array([x.theory for x in res])))
            s = alg.step(s, None)
        out["q"][q] = {"hessian": np.array(hn), "estimate": np.array(est)}
    return out


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    t = d["rounds"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.9))
    for (q, r), col in zip(d["q"].items(), ("C0", "C1", "C2"), strict=True):
        axes[0].semilogy(t, r["hessian"], color=col, label=f"$\\|\\nabla^2 f_q\\|$, $q = {q:g}$")
        axes[0].semilogy(t, r["estimate"], color=col, ls="--", label=f"Lemma 12 estimate $\\bar L_q$, $q = {q:g}$")
        axes[1].plot(t, r["hessian"] / r["estimate"], color=col, label=f"$q = {q:g}$")
    axes[0].set_title(r"exact Hessian norm (solid) vs Lemma 12's $\bar L_q = {\sum}_k\, p_k L_{q,k}$ (dashed)", fontsize=10)
    axes[1].set_title(r"tightness $\|\nabla^2 f_q\| \,/\, \bar L_q$ (Lemma 12: $\leq 1$)", fontsize=10)
    axes[1].axhline(1.0, color="k", lw=0.8, label="1 (Lemma 12: the ratio never exceeds it)")
    axes[1].set_ylim(0.0, 1.1)
    axes[0].set_ylabel(r"$\|\nabla^2 f_q\|$ and $\bar L_q$ (log scale)")
    axes[1].set_ylabel(r"$\|\nabla^2 f_q\| \,/\, \bar L_q$")
    for ax in axes:
        ax.set_xlabel("q-FedSGD round")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)
    axes[1].legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    fig.suptitle(f"{d['n']} multinomial logistic clients ($d = {d['d']}$), full-participation q-FedSGD, "
                 "$L$ = certified smoothness", fontsize=11)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '003 Lemma 12'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Along a q-FedSGD run: the exact Hessian norm of `f_q` (solid) under Lemma 12's estimate (dashed, same
colour per `q`), and their ratio on the right. The ratio stays below the black line at 1 (the lemma) and
between 0.17 and 0.46: the estimate is safe and 2-6x loose.
"""


@figure("qffl_lipschitz", "||Hess f_q(w_t)|| against the Lemma 12 estimate along q-FedSGD (003 Lemma 12)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "qffl_lipschitz", formats)
