r"""RC-FL / FAFL results (002, and 000 where it differs), one instance at a time.

Each function takes the parameters of one instance (keyword-only, except the federated ``problem`` of
the convergence results) and returns an :class:`~fairtheory.instances.InstanceResult`
``(measured, theory, extra)`` in the result's natural units.  The claims of :mod:`verify.claims`
sweep them, the figures plot them, the tests pin one instance each.

Objective (one loss vector ``f``, weights ``p``, conservatism ``alpha_i in [p_i, 1]``):

* :func:`qalpha_closed_form` - 002 Def. 1: greedy closed form of ``f_alpha`` vs the HiGHS LP;
* :func:`qalpha_limit` - 002 Sec. 3.1: ``alpha = 1`` gives ``sum p_i f_i``, ``alpha = p`` gives ``max f``;
* :func:`qalpha_midpoint` - 002 Sec. 3.2: ``f_alpha((a+b)/2) <= (f_alpha(a) + f_alpha(b))/2`` on convex clients;
* :func:`lemma1_dual` - 002 Lemma 1 (first equality): ``sup_{Q_alpha} = min_eta g(eta)``;
* :func:`lemma1_hcvar` - 002 Lemma 1 (second equality) / Def. 2: HCVaR in the RU or the literal reading;
* :func:`remark1_cvar` - 002 Remark 1: scalar ``alpha = chi`` gives ``CVaR_{1-chi}``;
* :func:`remark2_eta` - 002 Remark 2: the minimising ``eta`` lies in ``[0, B]``;
* :func:`deviation_agreement` - 000 / 002 Sec. 3.2: the two deviation definitions;
* :func:`smoothness_of_softplus` - 002 Sec. 4: ``softplus_mu'' <= 1/mu`` (tight ``1/(4 mu)``);
* :func:`prop1_softplus` - 002 Prop. 1: ``0 <= softplus_mu - (x)_+ <= mu`` (tight ``mu log 2``);
* :func:`lemma2_gap` - 002 Lemma 2: ``0 <= F^mu_alpha - F_alpha <= mu tau_alpha`` (tight ``mu tau_alpha log 2``);
* :func:`lemmaC1_smoothness` - 002 Lemma C.1: Hessian norms of ``f^{mu,i}`` and ``F^mu_alpha`` vs ``L``.

Convergence of rFedFair (002 / 000 Thms. 1-2) on a federated problem meeting 002 Assump. 1-2
(:func:`check_assumptions`): :func:`theorem_setup` computes the exact ground truth and constants once;
:func:`rfedfair_theorem1_gap` / :func:`rfedfair_theorem2_gap` give one ``(beta, kappa, T[, K])``
instance; the ``*_curve`` variants evaluate several horizons ``T`` of one run (the iterates do not
depend on ``T``), which is how the claims and figures sweep them.

Baseline: :func:`fedavg_converges` (FedAvg, McMahan et al. 2017, the ``alpha = 1`` limit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_positive,
)
from fairtheory.algorithms.names import THEOREM_OUTPUT, refuses_old_names
from fairtheory.backend import as_alpha, as_array
from fairtheory.instances import InstanceResult, check_problem
from fairtheory.objectives.qalpha import (
    F_alpha,
    F_mu,
    deviation,
    hcvar,
    hcvar_level,
    qalpha_dual,
    qalpha_loss,
    tau_alpha,
)
from fairtheory.sets import CappedSimplex
from fairtheory.stable import sigmoid, sigmoid_unchecked, softplus

__all__ = [
    "qalpha_closed_form",
    "qalpha_limit",
    "qalpha_midpoint",
    "lemma1_dual",
    "lemma1_hcvar",
    "ru_cvar_reference",
    "remark1_cvar",
    "remark2_eta",
    "deviation_agreement",
    "smoothness_of_softplus",
    "prop1_softplus",
    "lemma2_gap",
    "smoothed_client_hessians",
    "lemmaC1_smoothness",
    "check_assumptions",
    "theorem_setup",
    "rfedfair_theorem1_gap",
    "rfedfair_theorem1_curve",
    "rfedfair_theorem2_gap",
    "rfedfair_theorem2_curve",
    "fedavg_converges",
]

_BETA = {"beta": "lr"}  #: 002's symbol for the step, refused as a keyword naming lr=

Version = Literal["002", "000"]


def _alpha_vector(alpha: Any, n: int) -> np.ndarray:
    """``alpha`` (a scalar or an ``(n,)`` vector; array-likes or torch) as a float64 ``(n,)`` vector."""
    if np.ndim(alpha) == 0 and not hasattr(alpha, "detach"):
        return np.full(n, check_in_range(alpha, "alpha"))
    a = as_array(alpha, "alpha", ndim=(0, 1))
    if a.ndim == 1 and a.shape != (n,):
        raise FairtheoryValueError(f"alpha must be a scalar or have shape ({n},) (one per client), got {a.shape}")
    return np.broadcast_to(a, (n,)).copy()


def _vectors(p: Any, alpha: Any, losses: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p, alpha, losses)`` as float64 vectors (lists, integer arrays, torch tensors detached; booleans,
    nan and inf rejected naming the argument); ranges are checked by the objective functions."""
    p_arr = as_vector(p, "p")
    return p_arr, _alpha_vector(alpha, p_arr.size), as_vector(losses, "losses")


# =========================================================================== objective
def qalpha_closed_form(*, p: Any, alpha: Any, losses: Any) -> InstanceResult:
    r"""002 Def. 1: ``f_alpha = sup_{q in Q_alpha} sum_i q_i p_i f_i``.

    ``measured`` = the greedy closed form :meth:`CappedSimplex.support` of ``Q_alpha`` in weight
    coordinates, ``theory`` = the LP :func:`fairtheory.exact.capped.qalpha_sup_lp` (HiGHS, built from
    ``p`` and ``alpha`` directly).  ``extra["scale"] = max(1, max|f|)``: the data's scale, against
    which an LP's feasibility tolerance is measured."""
    from fairtheory.exact.capped import qalpha_sup_lp

    f = as_vector(losses, "losses")
    closed = CappedSimplex.qalpha(p, alpha).support(f)
    lp = qalpha_sup_lp(f, p, alpha)
    return InstanceResult(float(closed), float(lp.value), {"scale": max(1.0, float(np.max(np.abs(f))))})


def qalpha_limit(*, p: Any, losses: Any, limit: Literal["fedavg", "afl"]) -> InstanceResult:
    r"""002 Sec. 3.1: ``alpha = 1`` gives ``f_alpha = sum_i p_i f_i`` (FedAvg) and ``alpha = p`` gives
    ``max_i f_i`` (AFL; a client with ``p_i = 0`` gets ``alpha_i = 1``, cap 0, and the maximum is over
    the support of ``p``).  ``measured`` = :func:`qalpha_loss` at that ``alpha``, ``theory`` = the limit."""
    if limit not in ("fedavg", "afl"):
        raise FairtheoryValueError(f"limit must be 'fedavg' or 'afl', got {limit!r}")
    p_arr, f = as_vector(p, "p"), as_vector(losses, "losses")
    if f.shape != p_arr.shape:
        raise FairtheoryValueError(f"losses must have the same shape as p {p_arr.shape}, got {f.shape}")
    if limit == "fedavg":
        a: Any = 1.0
        ref = float(p_arr @ f)
    elif limit == "afl":
        a = np.where(p_arr > 0, p_arr, 1.0)
        ref = float(f[p_arr > 0].max())
    else:
        raise FairtheoryValueError(f"limit must be 'fedavg' or 'afl', got {limit!r}")
    v, _ = qalpha_loss(f, p_arr, a)
    return InstanceResult(float(v), ref, {"alpha": a})


def qalpha_midpoint(*, problem: Any, alpha: Any, a: Any, b: Any) -> InstanceResult:
    r"""002 Sec. 3.2: convex ``f_i`` make ``w -> f_alpha(w)`` convex.  ``measured`` =
    ``f_alpha((a+b)/2)``, ``theory`` = ``(f_alpha(a) + f_alpha(b))/2`` (midpoint convexity)."""
    check_problem(problem)
    S = CappedSimplex.qalpha(problem.p, alpha)
    a_arr, b_arr = as_vector(a, "a"), as_vector(b, "b")
    fa, fb = S.support(problem.losses(a_arr)), S.support(problem.losses(b_arr))
    fm = S.support(problem.losses(0.5 * (a_arr + b_arr)))
    return InstanceResult(float(fm), 0.5 * (fa + fb), {"f_alpha_a": fa, "f_alpha_b": fb})


def _g(f: np.ndarray, c: np.ndarray, eta: np.ndarray) -> np.ndarray:
    """``g(eta) = eta + sum_i c_i (f_i - eta)_+`` for a vector of ``eta``."""
    return eta + np.maximum(f[None, :] - eta[:, None], 0.0) @ c


def lemma1_dual(*, p: Any, alpha: Any, losses: Any, lp: bool = False) -> InstanceResult:
    r"""002 Lemma 1 (first equality): ``sup_{q in Q_alpha} sum q_i p_i f_i = min_eta g(eta)``,
    ``g(eta) = eta + sum_i (p_i/alpha_i)(f_i - eta)_+``.

    ``measured`` = ``g(eta*)`` of the exact 1-D dual :func:`qalpha_dual`, ``theory`` = the closed-form
    sup :func:`qalpha_loss`.  ``extra``: ``eta`` (``eta*``, in ``[min f, max f]`` by the proof of Lemma 1),
    ``g_min`` (``g`` minimised over every breakpoint ``f_k``: ``g`` is linear outside
    ``[min f, max f]`` with slopes ``1 - tau_alpha <= 0`` and ``1``), ``f_min``/``f_max``,
    ``tau_alpha``; with ``lp=True`` also ``lp_value`` from
    :func:`fairtheory.exact.capped.qalpha_dual_lp` (HiGHS)."""
    p_arr, a_arr, f = _vectors(p, alpha, losses)
    vp, _ = qalpha_loss(f, p_arr, a_arr)
    vd, eta = qalpha_dual(f, p_arr, a_arr)
    c = p_arr / a_arr
    extra: dict[str, Any] = {"eta": eta, "g_min": float(_g(f, c, f).min()), "f_min": float(f.min()),
                             "f_max": float(f.max()), "tau_alpha": float(c.sum())}
    if lp:
        from fairtheory.exact.capped import qalpha_dual_lp

        extra["lp_value"] = float(qalpha_dual_lp(f, p_arr, a_arr).value)
    return InstanceResult(float(vd), float(vp), extra)


def ru_cvar_reference(f: Any, w: Any, beta: float) -> float:
    r"""Independent CVaR reference: ``(1/(1-beta)) int_beta^1 VaR_u(f) du`` under weights ``w``
    (Acerbi-Tasche integral of the quantile function; equals the RU minimum, Rockafellar-Uryasev 2002)."""
    f, w = as_vector(f, "f"), as_vector(w, "w")
    if w.shape != f.shape:
        raise FairtheoryValueError(f"w must have the same shape as f {f.shape}, got {w.shape}")
    beta = check_in_range(beta, "beta", low=0.0, high=1.0, high_inclusive=False)
    order = np.argsort(f, kind="stable")
    fs, ws = f[order], w[order]
    hi = np.cumsum(ws)
    hi[-1] = max(hi[-1], 1.0)
    lo = np.concatenate([[0.0], hi[:-1]])
    width = np.clip(hi, beta, 1.0) - np.clip(lo, beta, 1.0)
    return float(width @ fs / (1.0 - beta))


def lemma1_hcvar(*, p: Any, alpha: Any, losses: Any, reading: Literal["ru", "conditional"] = "ru") -> InstanceResult:
    r"""002 Lemma 1 (second equality): ``f_alpha = HCVaR_{1-alpha}(f)`` (Def. 2), with
    ``pi_i = p_i/(alpha_i tau_alpha)`` and ``beta = 1 - 1/tau_alpha``.

    ``measured`` = :func:`hcvar` in the given reading (``"ru"``: Rockafellar-Uryasev CVaR of ``f`` under
    ``pi`` at level ``beta``; ``"conditional"``: the literal ``E_pi[f | f > Q_beta(f)]``), ``theory`` =
    ``f_alpha``.  ``extra``: ``beta``, ``cvar_integral`` (the quantile integral
    :func:`ru_cvar_reference`, independent of both)."""
    p_arr, a_arr, f = _vectors(p, alpha, losses)
    vp, _ = qalpha_loss(f, p_arr, a_arr)
    h = hcvar(f, p_arr, a_arr, reading)
    pi, beta = hcvar_level(p_arr, a_arr)  # beta >= 0 by construction (1 - 1/tau can round to -2.2e-16)
    return InstanceResult(float(h), float(vp), {"beta": beta, "cvar_integral": ru_cvar_reference(f, pi, beta)})


def remark1_cvar(*, p: Any, chi: float, losses: Any) -> InstanceResult:
    r"""002 Remark 1: with ``alpha_i = chi`` (``chi in [max p, 1]``), ``f_alpha = CVaR_{1-chi}`` of ``f``
    under ``p``.  ``measured`` = ``f_alpha``, ``theory`` = the quantile integral
    ``(1/chi) int_{1-chi}^1 VaR_u du`` under ``p`` (:func:`ru_cvar_reference`; independent of the
    capped-simplex code).  ``extra``: for uniform weights ``1/n`` and ``chi_u = max(chi, 1/n)``,
    ``uniform_f_alpha`` and ``uniform_cvar_set`` (the CVaR set ``CappedSimplex.cvar(n, chi_u)``)."""
    p_arr, f = as_vector(p, "p"), as_vector(losses, "losses")
    chi = check_in_range(chi, "chi", low=0.0, high=1.0, low_inclusive=False)
    vp, _ = qalpha_loss(f, p_arr, chi)
    ref = ru_cvar_reference(f, p_arr, 1.0 - chi)
    n = p_arr.size
    chi_u = max(float(chi), 1.0 / n)
    vu, _ = qalpha_loss(f, np.full(n, 1.0 / n), chi_u)
    return InstanceResult(float(vp), ref, {"chi_uniform": chi_u, "uniform_f_alpha": float(vu),
                                           "uniform_cvar_set": float(CappedSimplex.cvar(n, chi_u).support(f))})


def remark2_eta(*, p: Any, alpha: Any, losses: Any, B: float) -> InstanceResult:
    r"""002 Remark 2: for losses in ``[0, B]`` the minimising ``eta`` of Lemma 1 can be taken in
    ``[0, B]``.  ``measured`` = ``eta*/B`` (the exact minimiser of :func:`qalpha_dual`), ``theory`` = 1
    (the upper end; the lower end is ``eta*/B >= 0``).  ``extra["eta"] = eta*``."""
    p_arr, a_arr, f = _vectors(p, alpha, losses)
    B = check_positive(B, "B")
    _, eta = qalpha_dual(f, p_arr, a_arr)
    return InstanceResult(eta / B, 1.0, {"eta": eta, "B": B})


def deviation_agreement(*, p: Any, alpha: Any, losses: Any) -> InstanceResult:
    r"""000 / 002 Sec. 3.2: ``D_000 = HCVaR(f) - E_pi f`` and ``D_002 = HCVaR(f - E_pi f)`` (RU reading).

    ``measured`` = ``D_000``, ``theory`` = ``D_002`` (they agree).  ``extra``: ``f_alpha`` and
    ``mean`` (``E_pi f``; ``f_alpha = E_pi f + D``), ``scale = max(1, max|f|)`` and, for the constant
    vector ``f_1 1``, ``const_d000``, ``const_d002`` (both 0) with ``const_scale = max(1, |f_1|)``."""
    p_arr, a_arr, f = _vectors(p, alpha, losses)
    d0, d2 = deviation(f, p_arr, a_arr, "000"), deviation(f, p_arr, a_arr, "002")
    c = p_arr / a_arr
    vp, _ = qalpha_loss(f, p_arr, a_arr)
    cf = np.full(p_arr.size, f[0])
    return InstanceResult(float(d0), float(d2), {
        "f_alpha": float(vp), "mean": float((c / c.sum()) @ f), "scale": max(1.0, float(np.abs(f).max())),
        "const_d000": deviation(cf, p_arr, a_arr, "000"), "const_d002": deviation(cf, p_arr, a_arr, "002"),
        "const_scale": max(1.0, abs(float(f[0])))})


def smoothness_of_softplus(*, mu: float, x: Any) -> InstanceResult:
    r"""002 Sec. 4: ``softplus_mu`` is ``1/mu``-smooth.  On the grid ``x``: ``measured`` =
    ``mu max_x softplus_mu''(x)`` by central second differences of :func:`~fairtheory.stable.softplus`
    (step ``h = 1e-3 mu``), ``theory`` = 1 (the seed's constant ``1/mu``, in units of ``1/mu``).
    ``extra``: ``analytic`` = ``mu max_x sigma(x/mu)(1 - sigma(x/mu))/mu`` (the tight constant is 1/4,
    attained at 0), ``x_fd``/``x_analytic`` where the maxima are."""
    mu = check_positive(mu, "mu")
    x = as_vector(x, "x")
    h = 1e-3 * mu
    with np.errstate(over="ignore", invalid="ignore"):
        sec = (softplus(x + h, mu) - 2.0 * softplus(x, mu) + softplus(x - h, mu)) / h**2
        s = sigmoid(x / mu)
    ana = s * (1.0 - s) / mu
    k, j = int(np.argmax(sec * mu)), int(np.argmax(ana * mu))
    return InstanceResult(float(sec[k] * mu), 1.0, {"analytic": float(ana[j] * mu), "x_fd": float(x[k]),
                                                     "x_analytic": float(x[j])})


def prop1_softplus(*, mu: float, x: Any) -> InstanceResult:
    r"""002 Prop. 1 (Bullins 2020, Lemma 3): ``(x)_+ <= softplus_mu(x) <= (x)_+ + mu``.  ``measured`` =
    ``max_x (softplus_mu(x) - (x)_+)`` on the grid ``x``, ``theory`` = ``mu``.  ``extra``: ``tight`` =
    ``mu log 2`` (attained at 0), ``min_gap`` (``>= 0``), ``x_max``/``x_min``."""
    mu = check_positive(mu, "mu")
    x = as_vector(x, "x")
    gap = softplus(x, mu) - np.maximum(x, 0.0)
    k, j = int(np.argmax(gap)), int(np.argmin(gap))
    return InstanceResult(float(gap[k]), float(mu), {"tight": mu * math.log(2.0), "min_gap": float(gap[j]),
                                                     "x_max": float(x[k]), "x_min": float(x[j])})


def lemma2_gap(*, p: Any, alpha: Any, losses: Any, eta: float, mu: float) -> InstanceResult:
    r"""002 Lemma 2: ``F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha`` at one ``(f, eta, mu)``.

    ``measured`` = ``F^mu - F = sum_i (p_i/alpha_i)(softplus_mu(x_i) - (x_i)_+)``, ``x_i = f_i - eta``,
    summed term by term (the difference of the public :func:`F_mu` and :func:`F_alpha` loses the gap
    to cancellation when ``|f| >> mu``), ``theory`` = ``mu tau_alpha``.  ``extra``: ``tight`` =
    ``mu tau_alpha log 2`` (equality when every ``f_i = eta``), ``public_mismatch`` =
    ``|(F_mu - F_alpha) - gap|/scale``."""
    p_arr, a_arr, f = _vectors(p, alpha, losses)
    eta = check_in_range(eta, "eta")
    mu = check_positive(mu, "mu")
    c = p_arr / a_arr
    x = f - eta
    gap = float(c @ (softplus(x, mu) - np.maximum(x, 0.0)))
    tau = tau_alpha(p_arr, a_arr)
    Fa, Fm = F_alpha(f, eta, p_arr, a_arr), F_mu(f, eta, p_arr, a_arr, mu)
    scale = max(1.0, abs(Fa), float(c @ np.abs(x)), abs(eta))
    return InstanceResult(gap, mu * tau, {"tight": mu * tau * math.log(2.0),
                                          "public_mismatch": abs((Fm - Fa) - gap) / scale})


def smoothed_client_hessians(problem: Any, w: Any, eta: float, alpha: Any, mu: float) -> np.ndarray:
    r"""Exact Hessians of ``f^{mu,i}(w, eta) = (1/alpha_i) softplus_mu(f_i(w) - eta) + eta`` (002 eq. 5),
    shape ``(n, d+1, d+1)``: ``(1/alpha_i)[s(1-s)/mu (g, -1)(g, -1)^T + s (Hess f_i, 0)]`` with
    ``s = sigma((f_i - eta)/mu)``, ``g = grad f_i``."""
    check_problem(problem)
    w = as_vector(w, "w")
    a = _alpha_vector(alpha, problem.n)
    eta = check_in_range(eta, "eta")
    mu = check_positive(mu, "mu")
    f, G, H = problem.losses(w), problem.grads(w), problem.hessians(w)
    s = sigmoid_unchecked((f - eta) / mu)
    Ge = np.hstack([G, -np.ones((problem.n, 1))])
    out = (s * (1 - s) / mu)[:, None, None] * Ge[:, :, None] * Ge[:, None, :]
    out[:, :problem.d, :problem.d] += s[:, None, None] * H
    return out / a[:, None, None]


def lemmaC1_smoothness(*, problem: Any, w: Any, eta: float, alpha: Any, mu: float) -> InstanceResult:
    r"""002 Lemma C.1: ``||Hess f^{mu,i}||_2 <= L`` and ``||Hess F^mu_alpha||_2 <= L`` with
    ``L = (L1 + (L2^2 + 1)/mu) max_i 1/alpha_i`` (``L1``, ``L2``: the problem's smoothness and Lipschitz
    constants), both Hessians PSD.

    ``measured`` = ``max_i ||Hess f^{mu,i}(w, eta)||_2``, ``theory`` = ``L``.  ``extra``: ``F_norm``
    (``||Hess F^mu_alpha||_2``), ``min_relative_eigenvalue`` (PSD check), ``L_quarter`` (the sharper
    constant from ``s(1-s) <= 1/4``, reported only), ``L1``, ``L2``."""
    from fairtheory.bounds.rcfl import lemma_c1_L

    check_problem(problem)
    a = _alpha_vector(alpha, problem.n)
    mu = check_positive(mu, "mu")
    L1, L2 = problem.smoothness(), problem.lipschitz()
    L = lemma_c1_L(L1, L2, mu, a)
    Lq = (L1 + (L2**2 + 1.0) / (4.0 * mu)) * float(np.max(1.0 / a))
    Hc = smoothed_client_hessians(problem, w, eta, a, mu)
    ev = np.linalg.eigvalsh(Hc)
    evF = np.linalg.eigvalsh(np.einsum("n,nij->ij", problem.p, Hc))
    min_rel = min(float(ev[:, 0].min() / max(1.0, ev[:, -1].max())), float(evF[0] / max(1.0, evF[-1])))
    return InstanceResult(float(np.abs(ev).max()), L, {"F_norm": float(np.abs(evF).max()),
                                                       "min_relative_eigenvalue": min_rel, "L_quarter": Lq,
                                                       "L1": L1, "L2": L2})


# =========================================================================== convergence (002 / 000 Thms. 1-2)
def check_assumptions(problem: Any, points: Sequence[Any]) -> str | None:
    """``None`` if 002 Assump. 1-2 hold with the problem's constants at ``points``, else the reason.

    Checks: no ridge term (a ridge is not globally Lipschitz), finite ``L1``, ``L2``, pooled data not
    separable (a minimiser exists), and at every point Hessians PSD, ``lambda_max(Hess f_i) <= L1`` and
    ``||grad f_i|| <= L2``."""
    from fairtheory.problems.generators import separable

    check_problem(problem)
    if getattr(problem, "l2", 0.0) != 0.0:
        return "ridge term present: the loss is not globally Lipschitz (Assump. 2)"
    L1, L2 = problem.smoothness(), problem.lipschitz()
    if not (math.isfinite(L1) and math.isfinite(L2)):
        return f"non-finite constants L1={L1}, L2={L2}"
    if separable(problem.X, problem.y):
        return "pooled data separable: no minimiser"
    for w in points:
        w = as_vector(w, "points[i]")
        eig = np.linalg.eigvalsh(problem.hessians(w))
        if eig.min() < -1e-12 * max(1.0, L1):
            return f"Hessian not PSD (min eigenvalue {eig.min():.3g}) at a sampled point"
        if eig.max() > L1 * (1 + 1e-12):
            return f"lambda_max(Hess f_i) = {eig.max():.6g} > L1 = {L1:.6g} at a sampled point"
        gn = np.linalg.norm(problem.grads(w), axis=1).max()
        if gn > L2 * (1 + 1e-12):
            return f"||grad f_i|| = {gn:.6g} > L2 = {L2:.6g} at a sampled point"
    return None


def theorem_setup(problem: Any, alpha: Any, mu: float) -> dict[str, Any]:
    r"""Exact ground truth and the constants of 002 / 000 Thms. 1-2 for one ``(problem, alpha, mu)``.

    Never from rFedFair: ``f_star`` is the *lower* certificate (``dual_value``) of
    :func:`fairtheory.exact.rcfl.solve_rcfl` (so a measured suboptimality is, if anything,
    over-estimated; ``f_star_upper`` is its primal value); ``(w_star, eta_star) = argmin F^mu_alpha``
    from :func:`fairtheory.exact.rcfl.solve_smoothed_rcfl` (Newton-polished, gradient norm certified).
    Constants: ``L`` (002 Lemma C.1), ``rho2`` (heterogeneity at ``(w*, eta*)``), ``tau``
    (``tau_alpha``), ``D0 = ||theta_0 - theta*||^2`` for the start ``theta_0 = (0, 0)``.  Also ``S`` (the
    ``Q_alpha`` capped simplex), ``w_rcfl`` (``argmin f_alpha``), ``alpha`` (validated vector), ``mu``."""
    from fairtheory.bounds.rcfl import heterogeneity_rho2, lemma_c1_L
    from fairtheory.exact.rcfl import solve_rcfl, solve_smoothed_rcfl

    check_problem(problem)
    a = as_alpha(alpha, problem.p, "alpha")
    mu = check_positive(mu, "mu")
    ex = solve_rcfl(problem, a)
    sm = solve_smoothed_rcfl(problem, a, mu)
    w_s, eta_s = np.asarray(sm.argmin, dtype=np.float64), float(sm.extra["eta"])
    return {
        "S": CappedSimplex.qalpha(problem.p, a),
        "f_star": float(ex.certificate.get("dual_value", ex.value)), "f_star_upper": float(ex.value),
        "w_rcfl": np.asarray(ex.argmin), "w_star": w_s, "eta_star": eta_s,
        "L": lemma_c1_L(problem.smoothness(), problem.lipschitz(), mu, a),
        "rho2": heterogeneity_rho2(problem, w_s, eta_s, a, mu),
        "tau": tau_alpha(problem.p, a),
        "D0": float(w_s @ w_s + eta_s**2),
        "mu": mu, "alpha": a,
    }


def _setup_for(problem: Any, alpha: Any, mu: float, setup: dict[str, Any] | None) -> dict[str, Any]:
    if setup is None:
        return theorem_setup(problem, alpha, mu)
    if not isinstance(setup, dict) or not {"mu", "alpha", "S", "f_star", "L", "rho2", "tau", "D0"} <= setup.keys():
        raise FairtheoryTypeError(f"setup must be the dict returned by theorem_setup, got {type(setup).__name__}")
    a = _alpha_vector(alpha, problem.n)
    if float(setup["mu"]) != float(mu) or not np.allclose(setup["alpha"], a, rtol=0.0, atol=1e-15):
        raise FairtheoryValueError("setup was computed for another (alpha, mu) than the one given")
    return setup


def _suboptimality(problem: Any, setup: dict[str, Any], w: Any) -> float:
    f = np.asarray(problem.losses(w), dtype=np.float64)
    return float(setup["S"].support(f) - setup["f_star"])


def _run_outputs(problem: Any, setup: dict[str, Any], *, lr: float, kappa: int, Ts: list[int],
                 K: int | None = None, rng: np.random.Generator | None = None) -> dict[int, dict[str, Any]]:
    """One rFedFair run from ``theta_0 = (0, 0)`` to ``max(Ts)`` with both outputs at every horizon, keyed by the
    theorem version whose output each is (:data:`fairtheory.algorithms.names.THEOREM_OUTPUT`)."""
    from fairtheory.algorithms.rfedfair import run_rfedfair

    res = run_rfedfair(problem, T=Ts[-1], lr=lr, mu=setup["mu"], alpha=setup["alpha"], kappa=kappa, K=K,
                       rng=rng, w0=np.zeros(problem.d), eta0=0.0, output="path_average", checkpoints=Ts,
                       record_every=10**9)
    return {T: {v: outs[THEOREM_OUTPUT[v]] for v in THEOREM_OUTPUT} for T, outs in res.checkpoints.items()}


def _horizons(Ts: Any, kappa: int, versions: Sequence[str]) -> list[int]:
    out = sorted({check_integer(T, "T", low=2) for T in (Ts if np.ndim(Ts) else [Ts])})
    if "002" in versions:
        from fairtheory.algorithms.rfedfair import rounds_for

        for T in out:
            rounds_for(T, kappa)
    return out


@refuses_old_names(None, also=_BETA)
def rfedfair_theorem1_curve(problem: Any, *, alpha: Any, mu: float, lr: float, kappa: int, Ts: Sequence[int],
                            versions: Sequence[Version] = ("002", "000"), setup: dict[str, Any] | None = None
                            ) -> dict[str, list[InstanceResult]]:
    r""":func:`rfedfair_theorem1_gap` at every horizon ``T`` in ``Ts`` from one run (full participation),
    for each version: ``{version: [InstanceResult per T]}`` in increasing ``T``."""
    from fairtheory.bounds.rcfl import theorem1_step_ok, theorem1_terms

    setup = _setup_for(problem, alpha, mu, setup)
    kappa = check_integer(kappa, "kappa", low=1)
    Ts_l = _horizons(Ts, kappa, versions)
    cps = _run_outputs(problem, setup, lr=lr, kappa=kappa, Ts=Ts_l)
    ok = theorem1_step_ok(setup["L"], lr, kappa)
    out: dict[str, list[InstanceResult]] = {}
    for v in versions:
        rows = []
        for T in Ts_l:
            w, eta = cps[T][v]
            terms = theorem1_terms(dist0_sq=setup["D0"], lr=lr, T=T, kappa=kappa, L=setup["L"],
                                   rho2=setup["rho2"], mu=setup["mu"], tau_alpha=setup["tau"], version=v)
            rows.append(InstanceResult(_suboptimality(problem, setup, w), float(sum(terms.values())),
                                       {"terms": terms, "conditions_met": ok, "T": T, "T_N": (T - 2) // kappa,
                                        "w": w, "eta": eta, "version": v}))
        out[v] = rows
    return out


@refuses_old_names(None, also=_BETA)
def rfedfair_theorem1_gap(problem: Any, *, alpha: Any, mu: float, lr: float, kappa: int, T: int,
                          version: Version = "002", setup: dict[str, Any] | None = None) -> InstanceResult:
    r"""002 Thm. 1 (``version="002"``) or 000 Thm. 1 (``"000"``) at one ``(lr, kappa, T)`` (``lr`` is 002's step
    ``beta``, written ``beta`` in the formulas below; ``beta=`` is refused naming ``lr=``), full
    participation, from ``theta_0 = (0, 0)``.

    ``measured`` = ``f_alpha(w_tilde) - f*_alpha`` (the version's output ``w_tilde``; ``f*_alpha`` the
    solver's lower certificate), ``theory`` = the right-hand side

    * 002: ``2 D0/(beta (T_N+1)) + 26 L beta^2 (kappa-1)^2 kappa rho^2 + mu tau_alpha``, ``T_N = (T-2)/kappa``;
    * 000: ``2 D0/(beta T) + 26 L beta^2 (kappa-1)^2 rho^2 + mu tau_alpha``.

    The theorem assumes ``beta <= 1/(40 L)`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1``; other ``beta`` are
    run too and flagged ``extra["conditions_met"] = False``.  ``extra`` also holds the three ``terms``,
    ``w``/``eta`` (the output) and ``T_N``.  ``setup`` (from :func:`theorem_setup` for the same
    ``(problem, alpha, mu)``) avoids re-solving."""
    return rfedfair_theorem1_curve(problem, alpha=alpha, mu=mu, lr=lr, kappa=kappa, Ts=[T], versions=(version,),
                                   setup=setup)[version][0]


def _t_interval(x: np.ndarray, level: float) -> tuple[float, float, float]:
    """Mean, standard error and upper end of the two-sided ``level`` t-interval."""
    from scipy.stats import t as student_t

    n = x.size
    mean = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n))
    return mean, se, mean + float(student_t.ppf(0.5 + level / 2, n - 1)) * se


@refuses_old_names(None, also=_BETA)
def rfedfair_theorem2_curve(problem: Any, *, alpha: Any, mu: float, lr: float, kappa: int, K: int,
                            Ts: Sequence[int], seeds: Sequence[int], versions: Sequence[Version] = ("002", "000"),
                            setup: dict[str, Any] | None = None, level: float = 0.95
                            ) -> dict[str, list[InstanceResult]]:
    r""":func:`rfedfair_theorem2_gap` at every horizon ``T`` in ``Ts``: one run per seed (each run
    serves every horizon and version), ``{version: [InstanceResult per T]}`` in increasing ``T``."""
    from fairtheory.bounds.rcfl import theorem2_step_ok, theorem2_terms

    setup = _setup_for(problem, alpha, mu, setup)
    kappa = check_integer(kappa, "kappa", low=1)
    K = check_integer(K, "K", low=1)
    Ts_l = _horizons(Ts, kappa, versions)
    seeds = [int(s) for s in seeds]
    if len(seeds) < 2:
        raise FairtheoryValueError(f"seeds must hold at least 2 seeds (a Monte Carlo interval), got {len(seeds)}")
    subs = {v: np.empty((len(seeds), len(Ts_l))) for v in versions}
    for r, seed in enumerate(seeds):
        cps = _run_outputs(problem, setup, lr=lr, kappa=kappa, Ts=Ts_l, K=K, rng=np.random.default_rng(seed))
        for v in versions:
            subs[v][r] = [_suboptimality(problem, setup, cps[T][v][0]) for T in Ts_l]
    ok = theorem2_step_ok(setup["L"], lr, kappa, K)
    out: dict[str, list[InstanceResult]] = {}
    for v in versions:
        rows = []
        for c, T in enumerate(Ts_l):
            mean, se, upper = _t_interval(subs[v][:, c], level)
            terms = theorem2_terms(K=K, dist0_sq=setup["D0"], lr=lr, T=T, kappa=kappa, L=setup["L"],
                                   rho2=setup["rho2"], mu=setup["mu"], tau_alpha=setup["tau"], version=v)
            rows.append(InstanceResult(upper, float(sum(terms.values())),
                                       {"mean": mean, "se": se, "half_width": upper - mean, "level": level,
                                        "reps": len(seeds), "samples": subs[v][:, c].copy(), "terms": terms,
                                        "conditions_met": ok, "T": T, "T_N": (T - 2) // kappa, "version": v}))
        out[v] = rows
    return out


@refuses_old_names(None, also=_BETA)
def rfedfair_theorem2_gap(problem: Any, *, alpha: Any, mu: float, lr: float, kappa: int, K: int, T: int,
                          seeds: Sequence[int], version: Version = "002", setup: dict[str, Any] | None = None,
                          level: float = 0.95) -> InstanceResult:
    r"""002 Thm. 2 (``version="002"``) or 000 Thm. 2 (``"000"``) at one ``(K, kappa, lr, T)`` (``lr`` is 002's step
    ``beta`` of the formulas below): ``K``
    clients drawn per communication i.i.d. with replacement by ``p``; one independent draw sequence per
    seed in ``seeds`` (Monte Carlo over the draws).

    ``measured`` = upper end of the two-sided ``level`` t-interval of the mean suboptimality
    ``E f_alpha(w_tilde) - f*_alpha``, ``theory`` = the Theorem 1 right-hand side of the same version plus
    ``(12/K) beta kappa^2 rho^2`` (002) or ``(12/K) beta kappa rho^2`` (000).  The theorem assumes
    ``L beta (3 kappa/K + 2) <= 1/20`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1``
    (``extra["conditions_met"]``).  ``extra``: ``mean``, ``se``, ``half_width``, ``samples``, ``terms``."""
    return rfedfair_theorem2_curve(problem, alpha=alpha, mu=mu, lr=lr, kappa=kappa, K=K, Ts=[T], seeds=seeds,
                                   versions=(version,), setup=setup, level=level)[version][0]


# =========================================================================== baseline
def fedavg_converges(*, problem: Any, rounds: int | None = None) -> InstanceResult:
    r"""FedAvg (McMahan et al. 2017) with ``kappa = 1``, full participation and step ``1/L1``: gradient
    descent on ``F = sum_i p_i f_i`` (the ``alpha = 1`` limit of RC-FL).

    ``measured`` = ``F(w_R)`` after ``R`` rounds, ``theory`` = ``F*`` from
    :func:`fairtheory.exact.rcfl.solve_fedavg`.  Default ``R = min(20000, ceil(40 L1/mu_F))`` with
    ``mu_F`` the smallest eigenvalue of ``sum p_i Hess f_i(w*)`` (linear convergence on strongly convex
    instances reaches float64 precision).  ``extra``: ``rounds``, ``dist`` (``||w_R - w*||``)."""
    from fairtheory.algorithms import fedavg
    from fairtheory.algorithms.base import run
    from fairtheory.exact.rcfl import solve_fedavg

    check_problem(problem)
    rounds = None if rounds is None else check_integer(rounds, "rounds", low=1)
    ex = solve_fedavg(problem)
    L1 = problem.smoothness()
    if rounds is None:
        mu_F = float(np.linalg.eigvalsh(np.einsum("n,nij->ij", problem.p, problem.hessians(ex.argmin)))[0])
        rounds = int(min(20000, math.ceil(40 * L1 / max(mu_F, 1e-12))))
    s, _ = run(fedavg.make(problem, lr=1.0 / L1, kappa=1), rounds, record_losses=False, record_every=max(1, rounds))
    return InstanceResult(float(problem.p @ problem.losses(s.w)), float(ex.value),
                          {"rounds": rounds, "dist": float(np.linalg.norm(s.w - ex.argmin)), "w_star": ex.argmin})
