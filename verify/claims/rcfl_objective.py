r"""Claims on RC-FL's objective: ``Q_alpha`` limits, Lemma 1 (dual, HCVaR), Remarks 1-2, deviation,
softplus smoothing (Prop. 1, smoothness constant) and Lemma 2 (spec ``rcfl.md`` Secs. 1-3).

Instances: seeded random ``(p, alpha, losses)`` (Dirichlet weights with zeros, mixed scales, ties) plus
Hypothesis-drawn edge cases from :mod:`fairtheory.testing` (ties, extreme weights, tiny/huge losses).
Equalities are checked to ``1e-8`` relative (``verify.core.relative_error``); inequalities with the
float-rounding slack of :class:`verify.core.Tally`.  Where a difference of large numbers is compared with
zero, it is measured relative to ``max(1, max|f|)`` so that float cancellation is not mistaken for a
violation (stated in each check).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from fairtheory.objectives.qalpha import (
    F_alpha,
    F_mu,
    hcvar,
    qalpha_dual,
    qalpha_loss,
    sigmoid,
    softplus,
    tau_alpha,
)
from fairtheory.sets import CappedSimplex
from verify.core import Context, Outcome, Tally, claim, combine, relative_error

#: relative agreement required of two exact computations of the same value (claims.md)
EQ_TOL = 1e-8

Instance = tuple[np.ndarray, np.ndarray, np.ndarray]


# --------------------------------------------------------------------------- instances
def hypothesis_draws(strategy: Any, count: int, seed: int) -> list[Any]:
    """``count`` reproducible draws from a Hypothesis strategy (``verify.sampling`` when present)."""
    try:
        from verify.sampling import hypothesis_examples
    except ImportError:
        return _own_draws(strategy, count, seed)
    return list(hypothesis_examples(strategy, count, seed))


def _own_draws(strategy: Any, count: int, seed: int) -> list[Any]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out: list[Any] = []

    @hseed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x: Any) -> None:
        out.append(x)

    collect()
    return out[:count]


@functools.lru_cache(maxsize=8)
def _hyp_instances(count: int, seed: int, scalar: bool = False) -> tuple[Instance, ...]:
    from fairtheory.testing import qalpha_instances

    draws = hypothesis_draws(qalpha_instances(max_n=12, scalar_alpha=scalar), count, seed)
    return tuple((np.asarray(p), np.broadcast_to(np.asarray(a, dtype=float), np.shape(p)).copy(),
                  np.asarray(f)) for p, a, f in draws)


def random_instances(rng: np.random.Generator, count: int, max_n: int = 30) -> list[Instance]:
    """Seeded ``(p, alpha, losses)``: Dirichlet ``p`` (sometimes with zeros), ``alpha_i in [p_i, 1]``
    (both ends hit), losses on scales ``1e-3 .. 1e6`` with ties in a third of the draws."""
    out = []
    for k in range(count):
        n = int(rng.integers(1, max_n + 1))
        p = rng.dirichlet(np.full(n, rng.choice([0.1, 1.0, 10.0])))
        if n > 1 and k % 5 == 0:
            p[rng.random(n) < 0.3] = 0.0
            if p.sum() == 0:
                p[0] = 1.0
            p /= p.sum()
        t = rng.random(n) ** rng.choice([1.0, 3.0])
        if k % 7 == 0:
            t[rng.random(n) < 0.3] = 0.0
        if k % 11 == 0:
            t[rng.random(n) < 0.3] = 1.0
        alpha = np.minimum(p + t * (1.0 - p), 1.0)
        alpha = np.where(alpha > 0, alpha, 1.0)
        scale = 10.0 ** rng.uniform(-3, 6)
        if k % 3 == 0:
            f = scale * rng.integers(0, 3, n).astype(float)
        else:
            f = scale * rng.exponential(size=n)
        out.append((p, alpha, f))
    return out


def instances(ctx: Context, salt: str, quick: tuple[int, int] = (300, 60),
              full: tuple[int, int] = (5000, 1000)) -> list[Instance]:
    """Random instances followed by Hypothesis-drawn ones."""
    n_rand, n_hyp = quick if ctx.quick else full
    return random_instances(ctx.rng(salt), n_rand) + list(_hyp_instances(n_hyp, ctx.seed))


def _inst(p: np.ndarray, alpha: Any, f: np.ndarray, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"p": np.asarray(p).tolist(), "alpha": np.asarray(alpha).tolist(),
                         "losses": np.asarray(f).tolist()}
    d.update(extra)
    return d


def _report(outcomes: dict[str, Outcome], main: str, note: str) -> Outcome:
    """``combine`` for the status; measured/bound/tightness of part ``main`` when nothing failed."""
    out = combine(outcomes, note)
    if out.status == "verified":
        m = outcomes[main]
        out.measured, out.bound, out.margin, out.tightness = m.measured, m.bound, m.margin, m.tightness
        out.note = note + f" [headline part: {main}]"
    return out


def _g(f: np.ndarray, c: np.ndarray, eta: np.ndarray) -> np.ndarray:
    """``g(eta) = eta + sum_i c_i (f_i - eta)_+`` for a vector of ``eta``."""
    return eta + np.maximum(f[None, :] - eta[:, None], 0.0) @ c


# --------------------------------------------------------------------------- Q_alpha limits
@claim("rcfl.qalpha.limits")
def check_limits(ctx: Context) -> Outcome:
    """002 Sec. 3.1: ``alpha = 1`` gives ``sum_i p_i f_i`` (FedAvg) and ``alpha = p`` gives ``max_i f_i``
    (AFL; clients with ``p_i = 0`` get cap 0 via ``alpha_i = 1`` and the maximum is over the support of
    ``p``).  Relative error of :func:`qalpha_loss` against the two references, tolerance 1e-8."""
    fedavg, afl = Tally("equal"), Tally("equal")
    for p, _, f in instances(ctx, "limits"):
        v1, _ = qalpha_loss(f, p, 1.0)
        fedavg.add(relative_error(v1, float(p @ f)), EQ_TOL, _inst(p, 1.0, f), size=p.size)
        a = np.where(p > 0, p, 1.0)
        vp, _ = qalpha_loss(f, p, a)
        afl.add(relative_error(vp, float(f[p > 0].max())), EQ_TOL, _inst(p, a, f), size=p.size)
    return combine({"alpha=1 (FedAvg)": fedavg.outcome(), "alpha=p (AFL)": afl.outcome()},
                   "relative error of f_alpha against sum p_i f_i and max f")


# --------------------------------------------------------------------------- Lemma 1
@claim("rcfl.lemma1.dual")
def check_lemma1_dual(ctx: Context) -> Outcome:
    """002 Lemma 1 (first equality): ``sup_{Q_alpha} = inf_eta {eta + sum_i (p_i/alpha_i)(f_i - eta)_+}``.

    Parts: (i) closed-form sup (:meth:`CappedSimplex.support` via :func:`qalpha_loss`) against the exact
    1-D dual (:func:`qalpha_dual`), relative 1e-8; (ii) the returned ``eta*`` attains the global
    minimum of ``g``, i.e. the minimum over all breakpoints ``f_k`` (outside ``[min f, max f]`` ``g`` is
    linear with slopes ``1 - tau_alpha <= 0`` and ``1``), relative 1e-8; (iii) ``eta* in [min f, max f]``;
    (iv) the cvxpy LP dual (``fairtheory.exact.capped.qalpha_dual_lp``, HiGHS) on a subset in quick mode
    and on >= 1000 instances in full mode, relative 1e-8."""
    primal_dual, brute, in_range, lp = Tally("equal"), Tally("equal"), Tally("upper"), Tally("equal")
    insts = instances(ctx, "lemma1.dual")
    unbounded = 0
    for p, a, f in insts:
        vp, _ = qalpha_loss(f, p, a)
        vd, eta = qalpha_dual(f, p, a)
        inst = _inst(p, a, f, eta=eta)
        primal_dual.add(relative_error(vd, vp), EQ_TOL, inst, size=p.size)
        c = p / np.asarray(a)
        gmin = float(_g(f, c, f).min())
        brute.add((vd - gmin) / max(1.0, abs(gmin)), EQ_TOL, inst, size=p.size)
        scale = max(1.0, float(np.abs(f).max()))
        in_range.add(max(eta - f.max(), f.min() - eta) / scale, 0.0, inst, size=p.size)
        unbounded += int(abs(c.sum() - 1.0) <= 1e-15)
    parts = {"closed form = 1-D dual": primal_dual.outcome(), "eta* attains the global min": brute.outcome(),
             "eta* in [min f, max f]": in_range.outcome()}
    try:
        from fairtheory.exact.capped import qalpha_dual_lp
        lp_name = "fairtheory.exact.capped.qalpha_dual_lp"
    except ImportError:
        qalpha_dual_lp = _dual_lp_fallback
        lp_name = "local cvxpy/HiGHS LP (fairtheory.exact.capped not available)"
    n_lp = ctx.count(25, 1000)
    lp_insts = insts[:: max(1, len(insts) // n_lp)][:n_lp]  # evenly spaced: random and Hypothesis
    for p, a, f in lp_insts:
        lp_value = float(qalpha_dual_lp(f, p, a).value)
        vd, _ = qalpha_dual(f, p, a)
        lp.add(relative_error(vd, lp_value), EQ_TOL, _inst(p, a, f, lp_value=lp_value), size=p.size)
    parts["1-D dual = cvxpy LP"] = lp.outcome()
    lp_note = f"LP part ({lp_name}) on {lp.instances} instances"
    note = (f"sup over Q_alpha vs exact 1-D dual (tol {EQ_TOL} relative); {lp_note}; "
            f"{unbounded} instances with tau_alpha = 1, where every eta <= min f is also optimal")
    return _report(parts, "closed form = 1-D dual", note)


def _dual_lp_fallback(f: np.ndarray, p: np.ndarray, a: Any) -> Any:
    """``min_{eta, s >= 0, s >= f - eta} eta + sum_i (p_i/alpha_i) s_i``, cvxpy/HiGHS (exact.md Sec. 1)."""
    import cvxpy as cp

    from fairtheory.exact.result import solve_checked

    c = p / np.broadcast_to(np.asarray(a, dtype=float), p.shape)
    eta, s = cp.Variable(), cp.Variable(p.size, nonneg=True)
    prob = cp.Problem(cp.Minimize(eta + c @ s), [s >= f - eta])
    solve_checked(prob, "Lemma 1 dual LP", cp.HIGHS)
    return prob


def _pi_beta(p: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, float]:
    c = p / a
    tau = float(c.sum())
    return c / tau, 1.0 - 1.0 / tau


def ru_cvar_reference(f: np.ndarray, w: np.ndarray, beta: float) -> float:
    r"""Independent CVaR reference: ``(1/(1-beta)) int_beta^1 VaR_u(f) du`` under weights ``w``
    (Acerbi-Tasche integral of the quantile function; equals the RU minimum, Rockafellar-Uryasev 2002)."""
    order = np.argsort(f, kind="stable")
    fs, ws = f[order], w[order]
    hi = np.cumsum(ws)
    hi[-1] = max(hi[-1], 1.0)
    lo = np.concatenate([[0.0], hi[:-1]])
    width = np.clip(hi, beta, 1.0) - np.clip(lo, beta, 1.0)
    return float(width @ fs / (1.0 - beta))


@claim("rcfl.lemma1.hcvar_ru")
def check_hcvar_ru(ctx: Context) -> Outcome:
    """002 Lemma 1 (second equality, RU reading): ``f_alpha = min_eta eta + E_pi[(f - eta)_+]/(1-beta)``
    with ``pi_i = p_i/(alpha_i tau_alpha)``, ``beta = 1 - 1/tau_alpha``.  Parts: :func:`hcvar` (RU, at
    its exact minimiser) against the closed-form ``f_alpha``; and the independent quantile-integral
    CVaR ``(1/(1-beta)) int_beta^1 VaR_u du`` against ``f_alpha``.  Relative 1e-8."""
    ru, integral = Tally("equal"), Tally("equal")
    for p, a, f in instances(ctx, "lemma1.ru"):
        vp, _ = qalpha_loss(f, p, a)
        h = hcvar(f, p, a, "ru")
        pi, beta = _pi_beta(p, a)
        ref = ru_cvar_reference(f, pi, beta)
        ru.add(relative_error(h, vp), EQ_TOL, _inst(p, a, f, hcvar_ru=h, f_alpha=vp), size=p.size)
        integral.add(relative_error(ref, vp), EQ_TOL, _inst(p, a, f, cvar_integral=ref, f_alpha=vp),
                     size=p.size)
    return _report({"hcvar(ru) = f_alpha": ru.outcome(), "quantile integral = f_alpha": integral.outcome()},
                   "hcvar(ru) = f_alpha", f"relative error, tol {EQ_TOL}")


#: the hand-sized counterexample to the literal Def. 2 (n = 2: a single client cannot violate it)
HCVAR_CONDITIONAL_COUNTEREXAMPLE = {"p": [0.5, 0.5], "alpha": 0.75, "losses": [0.0, 1.0]}


@claim("rcfl.lemma1.hcvar_conditional", expected="refuted")
def check_hcvar_conditional(ctx: Context) -> Outcome:
    """002 Def. 2 read literally: ``E_pi[f | f > Q_beta(f)] = f_alpha``?

    ``Q_beta`` is the lower quantile ``inf{t : P_pi(f <= t) >= beta}`` (see :func:`hcvar`).  With
    discrete clients the tail ``{f > Q_beta}`` carries ``pi``-mass ``< 1 - beta`` whenever an atom
    straddles the level, and the literal conditional mean drops the share of that atom that the RU
    form keeps.  Smallest counterexample (``n = 2``; with ``n = 1``, ``tau_alpha = 1`` and both readings
    give ``f_1``): ``p = (1/2, 1/2)``, ``alpha = 3/4`` (so ``beta = 1/4``, ``Q_beta = 0`` under every
    quantile convention), ``f = (0, 1)``: conditional ``1``, ``f_alpha = 2/3``.  Instances: the hand
    example first (``size = n``), then random and Hypothesis draws (``size = n + 1/2`` so that a hand
    example is preferred at equal ``n``)."""
    t = Tally("equal")
    cx = HCVAR_CONDITIONAL_COUNTEREXAMPLE
    hand = [(np.array(cx["p"]), np.full(2, cx["alpha"]), np.array(cx["losses"]))]
    hand += [(np.array([0.5, 0.5]), np.full(2, chi), np.array([0.0, 1.0])) for chi in (0.5, 0.6, 0.9, 1.0)]
    hand += [(np.array([1.0]), np.array([1.0]), np.array([3.0]))]
    atom = 0
    for k, (p, a, f) in enumerate(hand + instances(ctx, "lemma1.cond")):
        vp, _ = qalpha_loss(f, p, a)
        hc = hcvar(f, p, a, "conditional")
        pi, beta = _pi_beta(p, a)
        size = p.size + (0.0 if k == 0 else 0.5)
        ok = t.add(relative_error(hc, vp), EQ_TOL,
                   _inst(p, a, f, conditional=hc, f_alpha=vp, beta=beta), size=size)
        atom += int(not ok)
    out = t.outcome(note=(f"literal conditional expectation vs f_alpha (tol {EQ_TOL}); it differs on {atom} "
                          f"of {t.instances} instances (an atom at the quantile)"),
                    details={"hand_counterexample": cx})
    return out


@claim("rcfl.remark1.cvar")
def check_remark1(ctx: Context) -> Outcome:
    """002 Remark 1: ``alpha_i = chi`` for all ``i`` gives ``CVaR_{1-chi}`` of ``f`` under ``p``.

    ``chi in [max p, 1]``.  Reference: the quantile integral ``(1/chi) int_{1-chi}^1 VaR_u du`` under
    ``p`` (independent of the capped-simplex code); for uniform ``p`` also the 001 CVaR set
    ``CappedSimplex.cvar(n, chi)``.  Relative 1e-8."""
    t, unif = Tally("equal"), Tally("equal")
    rng = ctx.rng("remark1")
    insts = [(p, float(p.max() + rng.random() * (1 - p.max())), f)
             for p, _, f in random_instances(rng, ctx.count(300, 5000))]
    from fairtheory.testing import qalpha_instances

    insts += [(np.asarray(p), float(a), np.asarray(f))
              for p, a, f in hypothesis_draws(qalpha_instances(max_n=12, scalar_alpha=True),
                                              ctx.count(60, 1000), ctx.seed + 1)]
    for p, chi, f in insts:
        vp, _ = qalpha_loss(f, p, chi)
        ref = ru_cvar_reference(f, p, 1.0 - chi)
        t.add(relative_error(vp, ref), EQ_TOL, _inst(p, chi, f, cvar=ref, f_alpha=vp), size=p.size)
        n = p.size
        u = np.full(n, 1.0 / n)
        chi_u = max(chi, 1.0 / n)
        vu, _ = qalpha_loss(f, u, chi_u)
        unif.add(relative_error(vu, CappedSimplex.cvar(n, chi_u).support(f)), EQ_TOL,
                 _inst(u, chi_u, f), size=n)
    return _report({"quantile-integral CVaR": t.outcome(), "uniform p: CVaR set C(chi)": unif.outcome()},
                   "quantile-integral CVaR", f"f_alpha at scalar alpha = chi vs CVaR_(1-chi) (tol {EQ_TOL})")


@claim("rcfl.remark2.eta_range")
def check_remark2(ctx: Context) -> Outcome:
    """002 Remark 2: for losses in ``[0, B]`` the dual variable can be restricted to ``[0, B]``: the
    exact minimiser ``eta*`` of :func:`qalpha_dual` lies in ``[0, B]`` (reported as ``eta*/B <= 1`` and
    ``-eta* <= 0``) and attains the global minimum (checked in ``rcfl.lemma1.dual``).  ``B`` is drawn per
    instance (``1e-3 .. 1e6``); losses uniform on ``[0, B]`` with the ends and ties included."""
    upper, lower = Tally("upper"), Tally("upper")
    rng = ctx.rng("remark2")
    insts = []
    for p, a, _ in random_instances(rng, ctx.count(300, 5000)):
        B = 10.0 ** rng.uniform(-3, 6)
        f = rng.uniform(0, B, p.size)
        f[rng.random(p.size) < 0.2] = B
        f[rng.random(p.size) < 0.2] = 0.0
        insts.append((p, a, f, B))
    insts += [(p, a, f, max(float(f.max()), 1e-300))
              for p, a, f in _hyp_instances(ctx.count(60, 1000), ctx.seed)]
    for p, a, f, B in insts:
        _, eta = qalpha_dual(f, p, a)
        inst = _inst(p, a, f, B=B, eta=eta)
        upper.add(eta / B, 1.0, inst, size=p.size)
        lower.add(-eta / B, 0.0, inst, size=p.size)
    note = ("eta*/B <= 1 and -eta*/B <= 0; when tau_alpha = 1 (alpha = 1) every eta <= min f is optimal too, "
            "so 'can be restricted' (some minimiser in [0, B]) is what holds")
    return _report({"eta* <= B": upper.outcome(), "eta* >= 0": lower.outcome()}, "eta* <= B", note)


@claim("rcfl.deviation")
def check_deviation(ctx: Context) -> Outcome:
    """000 / 002 Sec. 3.2: ``D_000 = HCVaR(f) - E_pi f`` and ``D_002 = HCVaR(f - E_pi f)`` (RU reading)
    agree (relative 1e-8), ``D >= 0``, ``D = 0`` for constant ``f`` and ``f_alpha = E_pi f + D``.
    Sign and zero checks are measured relative to ``max(1, max|f|)`` (they compare a difference of
    numbers of that size with 0)."""
    from fairtheory.objectives.qalpha import deviation

    agree, nonneg, ident, const = Tally("equal"), Tally("upper"), Tally("equal"), Tally("equal")
    insts = instances(ctx, "deviation")
    for p, a, f in insts:
        d0, d2 = deviation(f, p, a, "000"), deviation(f, p, a, "002")
        scale = max(1.0, float(np.abs(f).max()))
        inst = _inst(p, a, f, d000=d0, d002=d2)
        agree.add(relative_error(d0, d2), EQ_TOL, inst, size=p.size)
        nonneg.add(-min(d0, d2) / scale, 0.0, inst, size=p.size)
        pi, _ = _pi_beta(p, a)
        vp, _ = qalpha_loss(f, p, a)
        ident.add(relative_error(float(pi @ f) + d2, vp), EQ_TOL, inst, size=p.size)
        cf = np.full(p.size, f[0])
        e0, e2 = deviation(cf, p, a, "000"), deviation(cf, p, a, "002")
        const.add(max(abs(e0), abs(e2)) / max(1.0, abs(f[0])), 1e-12, _inst(p, a, cf, d000=e0, d002=e2),
                  size=p.size)
    return _report({"D_000 = D_002": agree.outcome(), "D >= 0": nonneg.outcome(),
                    "f_alpha = E_pi f + D": ident.outcome(),
                    "D = 0 for constant f (rel. 1e-12)": const.outcome()},
                   "D_000 = D_002", "both deviation definitions (RU HCVaR)")


# --------------------------------------------------------------------------- smoothing
def _softplus_points(ctx: Context) -> list[tuple[float, np.ndarray]]:
    """(mu, x-grid) pairs: mu on 1e-8 .. 1e8, x/mu on [-50, 50] plus 0, +-tiny and +-1e300 multiples."""
    rng = ctx.rng("softplus")
    mus = list(10.0 ** np.arange(-8, 9, 2.0)) + list(10.0 ** rng.uniform(-8, 8, ctx.count(20, 400)))
    z = np.concatenate([np.linspace(-50, 50, ctx.count(201, 2001)), [0.0, 1e-300, -1e-300, 1e-8, -1e-8],
                        rng.normal(0, 5, ctx.count(50, 1000))])
    pts = [(float(mu), mu * z) for mu in mus]
    pts += [(float(mu), np.array([1e300, -1e300, 1e-300, 5e-324])) for mu in (1e-12, 1.0, 1e12)]
    from hypothesis import strategies as st

    draws = hypothesis_draws(st.tuples(st.floats(1e-12, 1e12), st.floats(-1e300, 1e300, allow_nan=False)),
                             ctx.count(60, 1000), ctx.seed + 2)
    pts += [(float(mu), np.array([x])) for mu, x in draws]
    return pts


@claim("rcfl.softplus.smoothness")
def check_softplus_smoothness(ctx: Context) -> Outcome:
    """002 Sec. 4: ``softplus_mu`` is ``1/mu``-smooth.  Measured: central second differences of the
    implemented :func:`softplus` (step ``h = 1e-3 mu``) against ``1/mu`` - tightness ``~0.25``, the tight
    constant being ``1/(4 mu)`` at ``x = 0``.  Part 2: the analytic ``sigma(x/mu)(1 - sigma(x/mu))/mu``
    against ``1/(4 mu)`` (equality at 0)."""
    fd, tight = Tally("upper"), Tally("upper")
    for mu, x in _softplus_points(ctx):
        h = 1e-3 * mu
        with np.errstate(over="ignore", invalid="ignore"):
            sec = (softplus(x + h, mu) - 2.0 * softplus(x, mu) + softplus(x - h, mu)) / h**2
            s = sigmoid(x / mu)
        ana = s * (1.0 - s) / mu
        k = int(np.argmax(sec * mu))
        fd.add(float(sec[k] * mu), 1.0, {"mu": mu, "x": float(x[k])})
        j = int(np.argmax(ana * mu))
        tight.add(float(ana[j] * mu), 0.25, {"mu": mu, "x": float(x[j])})
    return _report({"finite-difference second derivative * mu <= 1": fd.outcome(),
                    "analytic second derivative * mu <= 1/4": tight.outcome()},
                   "finite-difference second derivative * mu <= 1",
                   "max over x of mu * softplus_mu''(x); tightness vs the seed's 1/mu "
                   "(tight constant 1/(4 mu))")


@claim("rcfl.prop1.softplus")
def check_prop1(ctx: Context) -> Outcome:
    """002 Prop. 1 (Bullins 2020, Lemma 3): ``(x)_+ <= softplus_mu(x) <= (x)_+ + mu``.  Measured: the gap
    ``softplus_mu(x) - (x)_+`` against ``mu`` (tightness ``log 2 = 0.693``), against the tight constant
    ``mu log 2`` (tightness 1, attained at ``x = 0``) and ``-gap <= 0``."""
    up, tight, low = Tally("upper"), Tally("upper"), Tally("upper")
    for mu, x in _softplus_points(ctx):
        gap = softplus(x, mu) - np.maximum(x, 0.0)
        k = int(np.argmax(gap))
        inst = {"mu": mu, "x": float(x[k])}
        up.add(float(gap[k]), mu, inst)
        tight.add(float(gap[k]), mu * math.log(2.0), inst)
        j = int(np.argmin(gap))
        low.add(float(-gap[j]), 0.0, {"mu": mu, "x": float(x[j])})
    return _report({"gap <= mu": up.outcome(), "gap <= mu log 2": tight.outcome(), "gap >= 0": low.outcome()},
                   "gap <= mu", "max_x (softplus_mu(x) - (x)_+) against mu; tight constant mu log 2")


def _lemma2_cases(ctx: Context) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, float, float]]:
    rng = ctx.rng("lemma2")
    out = []
    mus = (1e-6, 1e-3, 1.0, 1e3)
    for p, a, f in instances(ctx, "lemma2", quick=(120, 40), full=(2000, 1000)):
        _, eta_star = qalpha_dual(f, p, a)
        etas = [eta_star, float(f.min()), float(f.max()), float(rng.uniform(f.min() - 1, f.max() + 1))]
        for mu in mus:
            for eta in etas:
                out.append((p, a, f, eta, mu))
    for p, a, f in random_instances(rng, ctx.count(20, 200)):  # constant losses at eta: the tight case
        cf = np.full(p.size, f[0])
        out += [(p, a, cf, float(f[0]), mu) for mu in mus]
    return out


@claim("rcfl.lemma2.gap")
def check_lemma2(ctx: Context) -> Outcome:
    """002 Lemma 2: ``F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha``.

    The gap is measured term by term, ``F^mu - F = sum_i (p_i/alpha_i)(softplus_mu(x_i) - (x_i)_+)`` with
    ``x_i = f_i - eta`` (the difference of the public :func:`F_mu` and :func:`F_alpha` loses the gap to
    cancellation when ``|f| >> mu``; their agreement to ``1e-12 * scale`` is reported in ``details``).
    Parts: gap against ``mu tau_alpha`` (headline), against the tight ``mu tau_alpha log 2`` (equality
    when every ``f_i = eta``) and ``-gap <= 0``.  eta: the dual minimiser, ``min f``, ``max f`` and a random
    value; ``mu in {1e-6, 1e-3, 1, 1e3}``."""
    up, tight, low = Tally("upper"), Tally("upper"), Tally("upper")
    worst_pub = 0.0
    for p, a, f, eta, mu in _lemma2_cases(ctx):
        c = p / a
        x = f - eta
        gap = float(c @ (softplus(x, mu) - np.maximum(x, 0.0)))
        tau = tau_alpha(p, a)
        inst = _inst(p, a, f, eta=eta, mu=mu)
        up.add(gap, mu * tau, inst, size=p.size)
        tight.add(gap, mu * tau * math.log(2.0), inst, size=p.size)
        low.add(-gap, 0.0, inst, size=p.size)
        Fa, Fm = F_alpha(f, eta, p, a), F_mu(f, eta, p, a, mu)
        scale = max(1.0, abs(Fa), float(c @ np.abs(x)), abs(eta))
        worst_pub = max(worst_pub, abs((Fm - Fa) - gap) / scale)
    return _report({"gap <= mu tau_alpha": up.outcome(), "gap <= mu tau_alpha log 2": tight.outcome(),
                    "gap >= 0": low.outcome()}, "gap <= mu tau_alpha",
                   f"F^mu - F against mu tau_alpha; max |(F_mu - F_alpha) - gap|/scale = {worst_pub:.2e}")
