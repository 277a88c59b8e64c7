"""Lemma 12 along a q-FedSGD trajectory: exact Hessian norm of f_q against the estimate sum p_k L_q,k."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("qffl_lipschitz", "||Hess f_q(w_t)|| against the Lemma 12 estimate along q-FedSGD (003 Lemma 12)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib.pyplot as plt

    from fairtheory.algorithms import qfedsgd
    from fairtheory.instances.qffl import lemma12, random_multinomial

    r = np.random.default_rng(0)
    P = random_multinomial(r, n=8, d_in=4, C=3, l2=0.01, sizes=(10, 40), shift=1.5)
    Lk = P.client_smoothness()
    L = qfedsgd.estimate_L(P)
    rounds = 60 if quick else 200
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    for q, col in zip((1.0, 2.0, 5.0), ("C0", "C1", "C2"), strict=True):
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
        t = np.arange(rounds)
        axes[0].semilogy(t, hn, color=col, label=f"||Hess f_q||, q={q:g}")
        axes[0].semilogy(t, est, color=col, ls="--", label=f"sum p_k L_q,k, q={q:g}")
        axes[1].plot(t, np.array(hn) / np.array(est), color=col, label=f"q={q:g}")
    axes[0].set_title("exact Hessian norm (solid) vs Lemma 12 estimate (dashed)")
    axes[1].set_title("tightness ||Hess f_q|| / estimate (must be <= 1)")
    axes[1].axhline(1.0, color="k", lw=0.8, label="1 (Lemma 12: the ratio never exceeds it)")
    axes[0].set_ylabel("norm (log scale)")
    axes[1].set_ylabel("||Hess f_q|| / sum p_k L_q,k")
    for ax in axes:
        ax.set_xlabel("q-FedSGD round")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("8 multinomial logistic clients (d = 15), full-participation q-FedSGD, "
                 "L = certified smoothness")
    fig.tight_layout()
    return save(fig, out_dir, "qffl_lipschitz", formats)
