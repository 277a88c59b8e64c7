"""The ``Q_alpha``-weighted loss between FedAvg and AFL (002 Def. 1, Sec. 3.1).

Left: ``f_alpha`` of one fixed loss vector along ``alpha_i(t) = p_i + t (1 - p_i)`` as ``t`` goes from
1 (FedAvg, ``alpha = 1``: ``sum_i p_i f_i``) to 0 (AFL, ``alpha = p``: ``max_i f_i``), and along the
scalar path ``alpha = max p + t (1 - max p)`` (which stops at ``alpha = max p``, short of AFL).
The ends are the limits of 002 Sec. 3.1 as :func:`fairtheory.instances.rcfl.qalpha_limit` computes them
(the function the claim ``rcfl.qalpha.limits`` sweeps).
Right: the exact optimum ``min_w f_alpha(w)`` of a small quadratic federated problem along the same
per-client path (:func:`fairtheory.exact.rcfl.solve_rcfl`: the jointly convex form
``min_{w, eta} eta + sum_i (p_i/alpha_i)(f_i(w) - eta)_+`` of 002 eq. 4, certified by its duality gap),
with the exact FedAvg and AFL optima (:func:`solve_fedavg`, :func:`solve_afl`) and the average / worst
client loss at ``w*_alpha``.
On this instance the worst client's loss is not monotone along the path: at intermediate ``t`` the
lowest-weight client (``p = 0.08``, small cap ``p_i/alpha_i``) is sacrificed (2.62 at ``t ~ 0.4`` vs 2.40 at
FedAvg) before AFL brings it down to the minimax value 1.98.  :func:`data` returns what the figure plots,
:func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Left: ``t``, ``f_alpha`` along the per-client and the scalar path, the FedAvg and AFL limits.  Right: ``tq``,
    the exact optimum value, the average and worst client loss at it, the index of the worst client, the client
    weights ``p`` and the exact FedAvg and AFL optima."""
    from fairtheory.exact.rcfl import solve_afl, solve_fedavg, solve_rcfl
    from fairtheory.instances.rcfl import qalpha_limit
    from fairtheory.objectives.qalpha import qalpha_loss
    from fairtheory.problems.quadratic import random_quadratic

    rng = np.random.default_rng(11)
    p = np.array([0.35, 0.25, 0.15, 0.12, 0.08, 0.05])
    f = np.array([0.6, 1.0, 1.9, 0.9, 3.1, 2.2])
    ts = np.linspace(1.0, 0.0, 200 if quick else 800)
    out: dict[str, Any] = {"n": len(p), "t": ts,
                           "per_client": np.array([qalpha_loss(f, p, p + t * (1.0 - p))[0] for t in ts]),
                           "scalar": np.array([qalpha_loss(f, p, min(p.max() + t * (1.0 - p.max()), 1.0))[0] for t in ts]),
                           "fedavg_limit": qalpha_limit(p=p, losses=f, limit="fedavg").theory,
                           "afl_limit": qalpha_limit(p=p, losses=f, limit="afl").theory, "losses": f}
    prob = random_quadratic(5, 3, rng=rng, mu=0.5, L=2.0, spread=1.5, offset=0.5,
                            p=np.array([0.4, 0.25, 0.15, 0.12, 0.08]))
    tq = np.linspace(1.0, 0.0, 13 if quick else 49)
    vals, avg, worst, who = [], [], [], []
    for t in tq:
        ex = solve_rcfl(prob, prob.p + t * (1.0 - prob.p))
        L = np.asarray(prob.losses(ex.argmin))
        vals.append(ex.value)
        avg.append(float(prob.p @ L))
        worst.append(float(L.max()))
        who.append(int(np.argmax(L)))
    out.update(tq=tq, value=np.array(vals), average=np.array(avg), worst=np.array(worst), worst_client=np.array(who),
               p=np.asarray(prob.p), fedavg=solve_fedavg(prob).value, afl=solve_afl(prob).value)
    return out


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    ts, tq = d["t"], d["tq"]
    ax.plot(ts, d["per_client"], color="C0", lw=2, label=r"$\alpha_i = p_i + t(1-p_i)$")
    ax.plot(ts, d["scalar"], color="C1", lw=1.5, ls="-.", label=r"scalar $\alpha = \max p + t(1-\max p)$")
    ax.axhline(d["fedavg_limit"], color="C2", ls="--", label=r"FedAvg ${\sum}_i\, p_i f_i$")
    ax.axhline(d["afl_limit"], color="C3", ls="--", label=r"AFL $\max_i f_i$")
    ax.set_xlim(1.0, 0.0)
    ax.set_xlabel(r"$t$  (1: $\alpha = 1$, FedAvg;  0: $\alpha = p$, AFL)")
    ax.set_ylabel(r"$f_\alpha$ of the fixed loss vector")
    ax.set_title(f"fixed loss vector ($n = {d['n']}$)", fontsize=10)
    ax.legend(fontsize=8, loc="center left")
    ax.grid(alpha=0.3)

    bx.plot(tq, d["value"], "o-", color="C0", ms=3, lw=2, label=r"$\min_w f_\alpha(w)$ (exact)")
    bx.plot(tq, d["worst"], "s-", color="C3", ms=3, lw=1, alpha=0.7,
            label=r"worst client $\max_i f_i(w^\star_\alpha)$")
    bx.plot(tq, d["average"], "^-", color="C2", ms=3, lw=1, alpha=0.7,
            label=r"average ${\sum}_i\, p_i f_i(w^\star_\alpha)$")
    bx.axhline(d["fedavg"], color="C2", ls="--", lw=1, label=r"FedAvg optimum $\min_w {\sum}_i\, p_i f_i$")
    bx.axhline(d["afl"], color="C3", ls="--", lw=1, label=r"AFL optimum $\min_w \max_i f_i$")
    bx.set_xlim(1.0, 0.0)
    bx.set_xlabel(r"$t$  ($\alpha_i = p_i + t(1-p_i)$)")
    bx.set_ylabel("loss value at the exact optimum")
    bx.set_title(r"exact optimum of a 5-client quadratic problem ($d = 3$)", fontsize=10)
    bx.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    bx.grid(alpha=0.3)
    fig.suptitle(r"$Q_\alpha$-weighted loss between FedAvg and AFL (002 Def. 1, Sec. 3.1)", fontsize=11)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '002 Def. 1, Sec. 3.1'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Left: `f_alpha` of a fixed loss vector as `alpha` moves from FedAvg (`t = 1`) to AFL (`t = 0`); the
per-client path reaches AFL's `max_i f_i` (red dashed), the scalar path stops short of it. Right: the
exact optimum of a 5-client problem along the same path, with the worst and average client losses at the
optimum. Read the red squares: the worst client's loss is not monotone - it rises from 2.40 (FedAvg) to
2.62 at `t ~ 0.42`, where the worst client is the lowest-weight one (`p = 0.08`), before AFL brings it
down to the minimax value 1.98. The scalar path on the left ends at 2.04, short of AFL's 3.1.
"""


@figure("rcfl_qalpha_path",
        "f_alpha from the FedAvg value to the AFL value as alpha goes from 1 to p (002 Sec. 3.1)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "rcfl_qalpha_path", formats)
