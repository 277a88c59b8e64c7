"""The built-in claim catalogue: every claim id of the seed papers with its citation and what "verified" means.

The runner lists every id here; an id with no registered check is reported as ``not implemented``,
never silently missing.  Citations name the seed file prefix and the label in that seed.
"""

from __future__ import annotations

CATALOGUE: dict[str, tuple[str, str]] = {
    # RC-FL / FAFL (seeds 000, 002)
    "rcfl.qalpha.closed_form": ("002 Def. 1", "greedy closed form = cvxpy LP to 1e-8 relative"),
    "rcfl.qalpha.limits": ("002 Sec. 3.1", "alpha=1 gives sum p_i f_i; alpha=p gives max f"),
    "rcfl.qalpha.convex": ("002 Sec. 3.2", "midpoint convexity of w -> f_alpha(w) on convex clients"),
    "rcfl.lemma1.dual": ("002 Lemma 1", "sup over Q_alpha = inf over eta; minimiser in [min f, max f]"),
    "rcfl.lemma1.hcvar_ru": ("002 Lemma 1", "equals RU-CVaR of f under pi at beta = 1 - 1/tau_alpha"),
    "rcfl.lemma1.hcvar_conditional": ("002 Def. 2 (literal)", "literal conditional expectation equals f_alpha"),
    "rcfl.remark1.cvar": ("002 Remark 1", "alpha_i = chi reduces to CVaR_{1-chi}"),
    "rcfl.remark2.eta_range": ("002 Remark 2", "optimal eta in [0, B] for losses in [0, B]"),
    "rcfl.deviation": ("000 / 002 Sec. 3.2", "both deviation definitions agree, are >= 0, zero for constant f"),
    "rcfl.softplus.smoothness": ("002 Sec. 4", "second derivative <= 1/mu (tight 1/(4 mu))"),
    "rcfl.prop1.softplus": ("002 Prop. 1", "(x)_+ <= softplus_mu <= (x)_+ + mu (tight mu log 2)"),
    "rcfl.lemma2.gap": ("002 Lemma 2", "F <= F^mu <= F + mu tau_alpha"),
    "rcfl.lemmaC1.smoothness": ("002 Lemma C.1", "Hessian norm of f^{mu,i} and F^mu <= L"),
    "rcfl.theorem1.v002": ("002 Thm. 1", "suboptimality <= bound for every (beta, kappa, T) meeting the conditions"),
    "rcfl.theorem1.v000": ("000 Thm. 1", "same, 000 statement and output"),
    "rcfl.theorem2.v002": ("002 Thm. 2", "upper CI of Monte Carlo mean <= bound"),
    "rcfl.theorem2.v000": ("000 Thm. 2", "same, 000 statement"),
    "rcfl.theorem3.generalization": ("002 Thm. 3", "violation frequency over samples <= delta"),
    "rcfl.remark3.vc": ("002 Remark 3", "Monte Carlo R_m <= VC bound"),
    "rcfl.theorem4.generalization": ("002 Thm. G.1", "violation frequency <= delta"),
    "rcfl.empirical.worst_client": ("002 Table 3 (qualitative)", "more conservatism lifts the worst client"),
    # Relative fairness (seed 001, reconstructed)
    "relfair.sets.closed_form": ("001 Ex. 1 (reconstructed)", "capped-simplex support/argmax/projection = cvxpy LP/QP"),
    "relfair.index.named_measures": ("001 Sec. 3.1, App. B (reconstructed)", "index reproduces 20:20, Palma, Atkinson"),
    "relfair.example2.sorted": ("001 Ex. 2 (reconstructed)", "index with C(k/n) = top-k mean / bottom-k mean"),
    "relfair.prop9.majorization": ("001 Prop. 9 (reconstructed)", "bounds hold; monotone in phi"),
    "relfair.integrated.support": ("001 eqs. 6-8 (reconstructed)", "max over Lambda_phi = D_phi/(1-phi); members sum to 1"),
    "relfair.lemma8.strong_convexity": ("001 Lemma 8 / Prop. 10 (reconstructed)", "Hessian of lam.f >= (mu - phi L)/(1-phi)"),
    "relfair.exact.routes_agree": ("001 problem (8) (reconstructed)",
                                   "dual (matrix_frac) and global search agree in the convex regime"),
    "relfair.theorem1.monotone": ("001 Thm. 1 (reconstructed)", "index of exact solutions non-increasing in phi"),
    "relfair.theorem2.strict": ("001 Thm. 2 (reconstructed)", "strict decrease on heterogeneous instances"),
    "relfair.penguins.figure": ("001 Sec. 4.3 (reconstructed)", "penguins curve non-increasing"),
    "relfair.theorem3.rate": ("001 Thm. 3 (reconstructed)", "Scaff-PD-IA log-log slope <= -2 (det.), <= -1 (noisy)"),
    "relfair.skewness.monotone": ("001 Sec. 6 (reconstructed)", "skewness of Lambda_phi non-decreasing in phi"),
    # q-FFL (seed 003)
    "qffl.limits": ("003 Sec. 3.2", "q=0 equals FedAvg; max-loss approaches AFL value as q grows"),
    "qffl.lemma12.lipschitz": ("003 Lemma 12", "Hessian norm <= L_q(w)"),
    "qffl.lemma6.variance": ("003 Lemma 6", "Var at w*_1 <= Var at w*_0"),
    "qffl.lemma7.angle": ("003 Lemma 7", "angle criterion at w*_1 >= at w*_0"),
    "qffl.lemma8.entropy": ("003 Lemma 8", "finite-difference entropy derivative >= 0"),
    "qffl.lemma10.holder": ("003 Lemma 10", "Hoelder inequality and dual-norm identity"),
    "qffl.qfedavg.reduction": ("003 Alg. 1", "q=0, one full-batch step = FedSGD step 1/L"),
    "qffl.qfedsgd.converges": ("003 Alg. 3", "reaches the exact optimum of f_q"),
    "qffl.table9.trend": ("003 Table 9 (qualitative)", "accuracy variance decreases with q"),
    # FedFV (seed 004)
    "fedfv.projection.step": ("004 Alg. 2", "target not conflicted after projection; eq. 7 norm identity"),
    "fedfv.alpha.limits": ("004 Sec. 3.4", "alpha=1 is FedAvg; alpha=0 projects every client"),
    "fedfv.theorem1.one_sided": ("004 Thm. 1 (eq. 5)", "one-sided conflict bound"),
    "fedfv.theorem1.absolute": ("004 Thm. 1 (as printed)", "absolute-value bound"),
    "fedfv.theorem1.last_target": ("004 App. A.1", "g_m . gbar' >= 0"),
    "fedfv.theorem2.one_sided": ("004 Thm. 2", "one-sided bound"),
    "fedfv.theorem2.absolute": ("004 Thm. 2 (as printed)", "absolute bound"),
    "fedfv.theorem3.descent": ("004 Thm. 3 eq. 18", "per-step inequality as printed"),
    "fedfv.theorem3.pareto": ("004 Thm. 3", "limit point Pareto-stationary or optimal"),
    "fedfv.theorem4.descent": ("004 Thm. 4 eq. 21", "per-step inequality where its conditions hold"),
    "fedfv.order.effect": ("004 Table 4 (qualitative)", "loss-ascending order gives lower variance"),
    # Baselines the seeds compare against
    "base.fedavg.converges": ("McMahan et al. 2017", "reaches exact optimum of sum p_i f_i"),
    "base.afl.converges": ("Mohri et al. 2019", "averaged iterates reach exact AFL value"),
    "base.drfa.converges": ("Deng et al. 2020", "reaches exact DRO value within its tolerance"),
    "base.scaffold.converges": ("Karimireddy et al. 2020", "reaches exact optimum with kappa > 1"),
    "base.scaffpd.converges": ("Yu et al. 2023", "reaches the exact DRO saddle point"),
}
