"""q-FFL claims (seed 003): limits (Sec. 3.2), Lemma 12, Lemmas 6-8, Lemma 10, q-FedAvg/q-FedSGD (Alg. 1, 3),
Table 9.  Each claim sweeps instances through :mod:`fairtheory.instances.qffl` (the figures and tests call the
same functions); ground truth from :func:`fairtheory.exact.qffl.solve_qffl` (p-norm form + Newton polish)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from fairtheory.instances import qffl as inst
from fairtheory.metrics import variance
from fairtheory.problems.multinomial import MultinomialProblem
from fairtheory.problems.quadratic import QuadraticProblem
from fairtheory.worstcase.adversarial import Integer, Interval, Simplex, Space, Vector, adversarial_max
from verify.core import Context, Outcome, Tally, attach_adversarial, claim, combine


def _size(P: Any) -> int:
    return int(P.n * 10 + P.d)


def _desc(P: QuadraticProblem) -> dict[str, Any]:
    return {"n": P.n, "d": P.d, "H": P.H, "c": P.c, "e": P.e}


def _adv_seed(ctx: Context, salt: str) -> int:
    return int(ctx.rng(f"adversarial/{salt}").integers(2**31))


# ----------------------------------------------------------------------------------------- adversarial search
#: searched quadratic instances: up to 3 clients in the plane (eigenvalues in [0.2, 2] as in the sampled
#: instances, a rotation angle, centres in [-3, 3]^2, offsets in [0.05, 2])
_QUAD_SPACE = Space(n=Integer(2, 3), lam=Vector(6, 0.2, 2.0), angle=Vector(3, 0.0, np.pi), c=Vector(6, -3.0, 3.0),
                    e=Vector(3, 0.05, 2.0))


@functools.lru_cache(maxsize=256)
def _quad_from(n: int, lam: bytes, angle: bytes, c: bytes, e: bytes) -> QuadraticProblem:
    """One searched instance (remembered, so that its exact minimisers are solved once for Lemmas 6 and 7)."""
    lv, av = np.frombuffer(lam).reshape(3, 2), np.frombuffer(angle)
    cv, ev = np.frombuffer(c).reshape(3, 2), np.frombuffer(e)
    H = []
    for k in range(n):
        R = np.array([[np.cos(av[k]), -np.sin(av[k])], [np.sin(av[k]), np.cos(av[k])]])
        H.append((R * lv[k]) @ R.T)
    return QuadraticProblem(np.array(H), cv[:n].copy(), ev[:n].copy())


def _quad(*, n: int, lam: np.ndarray, angle: np.ndarray, c: np.ndarray, e: np.ndarray) -> QuadraticProblem:
    return _quad_from(n, lam.tobytes(), angle.tobytes(), c.tobytes(), e.tobytes())


# ----------------------------------------------------------------------------------------- limits


@claim("qffl.limits")
def check_limits(ctx: Context) -> Outcome:
    """003 Sec. 3.2: ``f_0`` is the FedAvg objective, and ``max_k F_k(w*_q)`` tends to the AFL value.

    Quantitative form: with ``N_q(w) = (sum p F^{q+1})^{1/(q+1)}``, ``p_min^{1/(q+1)} max F <= N_q <= max F``
    gives ``AFL* <= max_k F_k(w*_q) <= p_min^{-1/(q+1)} AFL*`` (both checked)."""
    # no adversarial search: the headline is the identity f_0 = FedAvg (no tightness to compare a search with)
    rng = ctx.rng("qffl.limits")
    eq, up, lo = Tally(), Tally(), Tally()
    ratios: dict[str, list[float]] = {}
    for _ in range(ctx.count(4, 30)):
        P = inst.random_convex_instance(rng, 6, 3)
        for w in rng.normal(size=(3, P.d)):
            r = inst.q0_is_fedavg(problem=P, w=w)
            eq.equal(r.measured, r.theory, rtol=1e-12, scale=r.extra["scale"], instance=_desc(P))
        afl = inst.afl_value(P)
        for q in (0.0, 1.0, 5.0, 15.0):
            M, bound, _ = inst.limits(problem=P, q=q, afl=afl)
            up.upper(M, bound, {**_desc(P), "q": q}, _size(P))
            lo.upper(afl, M * (1 + 1e-7), {**_desc(P), "q": q}, _size(P))  # 1e-7: AFL solver accuracy
            ratios.setdefault(str(q), []).append(M / afl - 1.0)
    med = {q: float(np.median(v)) for q, v in ratios.items()}
    return combine({
        "f0_equals_fedavg": eq.outcome(explain="measured = f_0(F(w)), theory = sum_k p_k F_k(w) "
                                               "(relative to max(1, max_k F_k(w)))"),
        "max_loss_upper": up.outcome(explain="measured = max_k F_k(w*_q), bound = p_min^{-1/(q+1)} AFL*"),
        "afl_lower": lo.outcome(details={"median (max F(w*_q))/AFL* - 1 by q": med},
                                explain="measured = AFL*, bound = max_k F_k(w*_q) (1 + 1e-7 AFL solver accuracy)")},
        note=f"median relative excess of max loss over AFL*, by q: {med}")


# ----------------------------------------------------------------------------------------- Lemma 12


@claim("qffl.lemma12.lipschitz")
def check_lemma12(ctx: Context) -> Outcome:
    """003 Lemma 12: ``||Hess(F^{q+1}/(q+1))(w)||_2 <= L F^q + q F^{q-1} ||grad F||^2`` at sampled points,
    quadratic clients (``L_k = lambda_max(H_k)``) and multinomial logistic clients
    (``L_k = 0.5 lambda_max(X_k^T X_k/m_k) + l2``); exact Hessians."""
    rng = ctx.rng("qffl.lemma12")
    tallies = {"quadratic": Tally(), "multinomial": Tally()}
    searched: list[tuple[Any, np.ndarray]] = []  # the clients, searched below
    worst: tuple[float, dict[str, Any] | None] = (-np.inf, None)
    for _ in range(ctx.count(6, 60)):
        for kind in tallies:
            if kind == "quadratic":
                P: Any = inst.random_convex_instance(rng, 5, 4)
                Lk = np.linalg.eigvalsh(P.H)[:, -1]
            else:
                P = inst.random_multinomial(rng)
                Lk = P.client_smoothness()
            searched.append((P, Lk))
            for q in (0.0, 0.5, 1.0, 2.0, 5.0):
                w = rng.normal(size=P.d) * rng.choice([0.1, 1.0, 3.0])
                F, J, Hs = P.losses(w), P.grads(w), P.hessians(w)
                for k in range(P.n):
                    norm, bound, _ = inst.lemma12(loss=F[k], grad=J[k], hess=Hs[k], L=Lk[k], q=q)
                    tallies[kind].upper(norm, bound, {"kind": kind, "q": q, "F": F[k]}, _size(P))
                    if norm / bound > worst[0] and np.abs(w).max() <= 10.0:
                        worst = (norm / bound, {"case": len(searched) - 1, "w": np.pad(w, (0, 12 - w.size)), "q": q,
                                                "client": k})
    explain = "measured = ||Hess(F_k^{q+1}/(q+1))(w)||_2, bound = L_k F_k^q + q F_k^{q-1} ||grad F_k||^2"
    out = combine({k: t.outcome(explain=explain) for k, t in tallies.items()})

    def ratio(*, case: int, w: np.ndarray, q: float, client: int) -> Any:
        P, Lk = searched[case]
        w = w[:P.d]
        k = client % P.n
        return inst.lemma12(loss=P.losses(w)[k], grad=P.grads(w)[k], hess=P.hessians(w)[k], L=Lk[k], q=q)

    space = Space(case=Integer(0, len(searched) - 1), w=Vector(12, -10.0, 10.0), q=Interval(0.0, 5.0),
                  client=Integer(0, 4))
    res = adversarial_max(ratio, space, seed=_adv_seed(ctx, "lemma12"), budget=ctx.count(100, 2000),
                          x0=[worst[1]] if worst[1] is not None else [])
    return attach_adversarial(out, res, what="the same clients (quadratic and multinomial), w in [-10, 10]^d, "
                                             "q in [0, 5]")


# ----------------------------------------------------------------------------------------- Lemmas 6, 7


@functools.lru_cache(maxsize=4)
def _uniformity_instances(quick: bool, seed: int) -> list[QuadraticProblem]:
    """Instances of Lemmas 6-7 (shared, so the exact minimisers are solved once per instance)."""
    ctx = Context(quick=quick, seed=seed)
    rng = ctx.rng("qffl.lemma67")
    return [inst.random_convex_instance(rng, 8, 4) for _ in range(ctx.count(12, 200))]


@claim("qffl.lemma6.variance")
def check_lemma6(ctx: Context) -> Outcome:
    """003 Lemma 6: ``Var(F(w*_1)) <= Var(F(w*_0))`` (unweighted objective, exact minimisers).
    The seed states strict inequality; strictness needs ``w*_1 != w*_0`` and is not checked."""
    t = Tally()
    for P in _uniformity_instances(ctx.quick, ctx.seed):
        m, b, _ = inst.lemma6(problem=P)
        t.upper(m, b, _desc(P), _size(P))
    out = t.outcome(note="random strongly convex quadratic clients, n <= 8, d <= 4",
                    explain="measured = Var F(w*_1), bound = Var F(w*_0)")
    # Lemmas 6 and 7 search the same space with the same seed: they share their first points (and solves)
    res = adversarial_max(lambda **x: inst.lemma6(problem=_quad(**x)), _QUAD_SPACE, seed=_adv_seed(ctx, "lemma67"),
                          budget=ctx.count(6, 300))
    return attach_adversarial(out, res, what="2-3 strongly convex quadratic clients in the plane (eigenvalues in "
                                             "[0.2, 2], centres in [-3, 3]^2, offsets in [0.05, 2])")


@claim("qffl.lemma7.angle")
def check_lemma7(ctx: Context) -> Outcome:
    """003 Lemma 7: ``cos(F(w*_1), 1) >= cos(F(w*_0), 1)`` (Def. 4).  The proof's second inequality has
    the wrong direction (``mean F^2(w*_1) <= mean F^2(w*_0)``); the statement follows anyway."""
    t = Tally()
    for P in _uniformity_instances(ctx.quick, ctx.seed):
        m, b, _ = inst.lemma7(problem=P)
        t.lower(m, b, _desc(P), _size(P))
    out = t.outcome(explain="measured = cos(F(w*_1), 1), bound = cos(F(w*_0), 1)")
    res = adversarial_max(lambda **x: inst.lemma7(problem=_quad(**x)), _QUAD_SPACE, seed=_adv_seed(ctx, "lemma67"),
                          budget=ctx.count(6, 300), relation=">=")
    return attach_adversarial(out, res, what="2-3 strongly convex quadratic clients in the plane (eigenvalues in "
                                             "[0.2, 2], centres in [-3, 3]^2, offsets in [0.05, 2])")


# ----------------------------------------------------------------------------------------- Lemma 8


@claim("qffl.lemma8.entropy")
def check_lemma8(ctx: Context) -> Outcome:
    """003 Lemma 8: ``d/dp H(F^q(w*_p))|_{p=q} >= 0`` with ``w*_p = argmin sum_k F_k^p`` (exponent ``p``).

    Central finite differences (``h = 1e-3``) between exact minimisers at ``p = q +- h`` (cvxpy at
    ``p = q``, certified Newton continuation to ``q +- h``), cross-checked against the implicit-function
    derivative.  ``q >= 1 + h`` keeps ``sum F^p`` convex on both sides.  The proof stops short of the
    sign; this is a numerical test on random strongly convex quadratics (Hessians > 0 as assumed)."""
    # no adversarial search: a sign condition (bound 0, no ratio) and an identity between two derivatives
    rng = ctx.rng("qffl.lemma8")
    sign, agree = Tally(), Tally()
    worst_polish = 0.0
    for _ in range(ctx.count(6, 200)):
        P = inst.random_convex_instance(rng, 6, 3)
        for q in (1.5, 2.0, 4.0):
            fd, zero, ex = inst.lemma8(problem=P, q=q)
            worst_polish = max(worst_polish, ex["polish_grad"])
            desc = {**_desc(P), "q": q, "fd": fd, "ift": ex["ift"]}
            sign.lower(fd, zero, desc, _size(P))
            agree.equal(fd, ex["ift"], rtol=1e-3, scale=1e-3, instance=desc, size=_size(P))
    return combine({"derivative_nonnegative": sign.outcome(
                        explain="measured = dH(F^q(w*_p))/dp at p = q (central differences), bound = 0 "
                                "(Lemma 8: the derivative is nonnegative)"),
                    "fd_matches_ift": agree.outcome(
                        explain="measured = finite-difference derivative, theory = implicit-function derivative "
                                "(relative to max(|theory|, 1e-3))")},
                   note=f"worst Newton-polish gradient norm {worst_polish:.2e}")


# ----------------------------------------------------------------------------------------- Lemma 10


@claim("qffl.lemma10.holder")
def check_lemma10(ctx: Context) -> Outcome:
    """003 Lemma 10 (proof): ``sum lam_k F_k <= ||lam||_p ||F||_{q+1}`` (Hoelder, ``1/p + 1/(q+1) = 1``)
    and the dual-norm identity ``max_{||nu||_p <= 1} nu.F = ||F||_{q+1}`` (closed-form maximiser
    ``nu = F^q/||F^q||_p``; on a few instances also a Clarabel solve, whose feasible point gives a
    certified lower bound of the maximum)."""
    rng = ctx.rng("qffl.lemma10")
    hold, ident, solv = Tally(), Tally(), Tally()
    statuses: dict[str, int] = {}
    worst: tuple[float, dict[str, Any] | None] = (-np.inf, None)
    for i in range(ctx.count(50, 2000)):
        m = int(rng.integers(1, 12))
        F = rng.exponential(size=m) * rng.choice([1e-3, 1.0, 1e3])
        lam = rng.dirichlet(np.ones(m) * rng.choice([0.2, 1.0, 5.0]))
        for q in (0.0, 0.5, 1.0, 3.0, 10.0):
            solve = i < ctx.count(3, 20) and q > 0
            lhs, rhs, ex = inst.lemma10(F=F, lam=lam, q=q, solve=solve)
            desc = {"F": F, "lam": lam, "q": q}
            hold.upper(lhs, rhs, desc, m)
            if lhs / rhs > worst[0] and m <= 12 and 1e-6 <= F.min() and F.max() <= 1e6:
                worst = (lhs / rhs, {"m": m, "F": np.pad(F, (0, 12 - m), constant_values=1.0),
                                     "lam": np.pad(lam, (0, 12 - m)), "q": q})
            ident.equal(ex["dual_closed_form"], ex["norm"], rtol=1e-12, instance=desc, size=m)
            if solve:
                solv.equal(ex["dual_cvxpy"], ex["norm"], rtol=1e-6, instance=desc, size=m)
                statuses[ex["cvxpy_status"]] = statuses.get(ex["cvxpy_status"], 0) + 1
    out = combine({"holder": hold.outcome(explain="measured = lam . F, bound = ||lam||_p ||F||_{q+1}"),
                   "dual_norm_closed_form": ident.outcome(
                       explain="measured = nu . F at nu = F^q/||F^q||_p, theory = ||F||_{q+1}"),
                   "dual_norm_cvxpy": solv.outcome(
                       details={"solver statuses": statuses},
                       explain="measured = certified lower bound of max_{||nu||_p <= 1} nu . F from a Clarabel "
                               "solve, theory = ||F||_{q+1}")})
    if out.relation != "<=":  # the headline is an identity part (no tightness): nothing to compare a search with
        return out

    def ratio(*, m: int, F: np.ndarray, lam: np.ndarray, q: float) -> Any:
        w = lam[:m] / lam[:m].sum() if lam[:m].sum() > 0 else np.full(m, 1.0 / m)
        return inst.lemma10(F=F[:m], lam=w, q=q)

    space = Space(m=Integer(1, 12), F=Vector(12, 1e-6, 1e6, log=True), lam=Simplex(12), q=Interval(0.0, 10.0))
    res = adversarial_max(ratio, space, seed=_adv_seed(ctx, "lemma10"), budget=ctx.count(100, 2000),
                          x0=[worst[1]] if worst[1] is not None else [])
    return attach_adversarial(out, res, what="Hoelder lam . F <= ||lam||_p ||F||_{q+1} over m <= 12, F in "
                                             "[1e-6, 1e6]^m, lam in the simplex, q in [0, 10]")


# ----------------------------------------------------------------------------------------- algorithms


@claim("qffl.qfedavg.reduction")
def check_reduction(ctx: Context) -> Outcome:
    """003 Alg. 1 (camera-ready scaling ``Delta w = L (w - wbar)``, ``L = 1/lr``): with ``q = 0`` and one
    full-batch local step, q-FedAvg's round equals a FedSGD step of size ``1/L`` over the drawn devices
    (same draws): ``w - (1/(K L)) sum_{k in S} grad F_k`` (``K = None``: ``w - (1/L) sum p_k grad F_k``),
    and FedAvg's round (``fedavg.make(P, lr=lr, kappa=1, K=K)``)."""
    rng = ctx.rng("qffl.reduction")
    formula, module = Tally(), Tally()
    for _ in range(ctx.count(10, 200)):
        P: Any = inst.random_convex_instance(rng, 6, 4) if rng.random() < 0.5 else inst.random_multinomial(rng)
        w = rng.normal(size=P.d)
        lr = float(rng.uniform(0.01, 1.0))
        for K in (None, 1, 4):
            seed = int(rng.integers(2**31))
            a, b, ex = inst.reduction(problem=P, w=w, lr=lr, K=K, seed=seed)
            desc = {"K": K, "lr": lr, "kind": type(P).__name__, "coordinate": ex["coordinate"]}
            formula.equal(a, b, rtol=1e-12, scale=ex["scale"], instance=desc)
            qa, fa, s = ex["qfedavg"], ex["fedavg"], ex["scale"]
            j = int(np.argmax(np.abs(qa - fa) / np.maximum(np.abs(fa), s)))
            module.equal(qa[j], fa[j], rtol=1e-12, scale=s, instance={**desc, "coordinate": j})
    ref = "relative to max(|theory|, 1, ||w||_inf), worst coordinate"
    return combine({"fedsgd_formula": formula.outcome(
                        explain=f"measured = q-FedAvg's new model (q = 0, one local step), theory = the FedSGD step, {ref}"),
                    "fedavg_module": module.outcome(
                        explain=f"measured = q-FedAvg's new model (q = 0, one local step), theory = FedAvg's, {ref}")})


@claim("qffl.qfedsgd.converges")
def check_converges(ctx: Context) -> Outcome:
    """003 Alg. 3: full-participation q-FedSGD with ``L`` = certified smoothness reaches the exact
    optimum of ``f_q`` (eq. 2): ``|f_q(w_T) - f_q*| <= 1e-6 f_q*``, q in {0, 1, 5}."""
    rng = ctx.rng("qffl.converges")
    t = Tally()
    rounds_needed: dict[str, int] = {}
    for i in range(ctx.count(3, 30)):
        P: Any = inst.random_convex_instance(rng, 10, 5) if i % 3 else inst.random_multinomial(rng, n=4, l2=0.05)
        for q in (0.0, 1.0, 5.0):
            val, ref, ex = inst.convergence(problem=P, q=q, rtol=1e-6)
            rounds_needed[f"{i}:q={q}"] = ex["rounds"]
            t.equal(val, ref, rtol=1e-6, instance={"q": q, "kind": type(P).__name__, "rounds": ex["rounds"]},
                    size=_size(P))
    return t.outcome(note=f"max rounds to relative gap <= 1e-6: {max(rounds_needed.values())}",
                     details={"rounds": rounds_needed},
                     explain="measured = f_q(w_T) after q-FedSGD (stopped at relative gap <= 1e-6 or 20000 rounds), "
                             "theory = exact f_q* (certified solve)")


# ----------------------------------------------------------------------------------------- Table 9

PAPER_TABLE9 = {0.0: (80.8, 724), 0.1: (81.1, 666), 1.0: (79.0, 472), 2.0: (74.7, 410), 5.0: (67.2, 369)}


def fit_qffl_lbfgs(P: MultinomialProblem, q: float, iters: int) -> np.ndarray:
    """Minimise ``f_q`` (eq. 2) on ``P`` by L-BFGS from 0 for ``iters`` iterations (early stopping)."""
    from scipy.optimize import minimize

    def fg(w: np.ndarray) -> tuple[float, np.ndarray]:
        F, vjp = P.losses_vjp(w)
        return float(P.p @ F ** (q + 1)) / (q + 1), vjp(P.p * F**q)

    return minimize(fg, np.zeros(P.d), jac=True, method="L-BFGS-B",
                    options={"maxiter": iters, "gtol": 1e-10}).x


@claim("qffl.table9.trend")
def check_table9(ctx: Context) -> Outcome:
    """003 Table 9 (qualitative): on Synthetic(1,1) the variance of device test accuracies decreases as
    q grows over {0, 0.1, 1, 2, 5} while average accuracy eventually drops.

    Models: minimisers of ``f_q`` on the training split by L-BFGS with a fixed iteration budget
    (the objective's effect; the paper trains with q-FedAvg).  Verified = the seed-averaged variance is
    non-increasing along the q grid (checked for each consecutive pair).  Quick mode (CI budget): one
    seed, q in {0, 1, 5}, 60 iterations, and only the end points are compared (variance at q = 5 <=
    at q = 0); full: 5 seeds, the whole grid, 300 iterations, every consecutive pair."""
    from fairtheory.problems.synthetic_qffl import synthetic_qffl

    seeds, n, iters = (1, 100, 60) if ctx.quick else (5, 100, 300)
    qs = [0.0, 1.0, 5.0] if ctx.quick else list(PAPER_TABLE9)
    var = np.zeros((seeds, len(qs)))
    avg = np.zeros((seeds, len(qs)))
    for s in range(seeds):
        data = synthetic_qffl(rng=np.random.default_rng([ctx.seed, s, 9]), n=n)
        for j, q in enumerate(qs):
            w = fit_qffl_lbfgs(data.train, q, iters)
            acc = 100.0 * data.test.accuracies(w)
            var[s, j], avg[s, j] = variance(acc), float(np.mean(acc))
    mv, ma = var.mean(axis=0), avg.mean(axis=0)
    # no adversarial search: a qualitative trend on one data set (Table 9), not a bound over an instance space
    t = Tally()
    pairs = [(0, len(qs) - 1)] if ctx.quick else [(j - 1, j) for j in range(1, len(qs))]
    for a, b in pairs:
        t.upper(mv[b], mv[a], {"q_from": qs[a], "q_to": qs[b]})
    table = {str(q): {"variance": round(float(mv[j]), 1), "variance_sd": round(float(var[:, j].std()), 1),
                      "avg_acc": round(float(ma[j]), 2), "paper_avg_acc": PAPER_TABLE9[q][0],
                      "paper_variance": PAPER_TABLE9[q][1]} for j, q in enumerate(qs)}
    return t.outcome(note="variance by q (ours / paper): " + ", ".join(
        f"q={q}: {mv[j]:.0f}/{PAPER_TABLE9[q][1]}" for j, q in enumerate(qs)) + "; avg acc: " + ", ".join(
        f"{ma[j]:.1f}/{PAPER_TABLE9[q][0]}" for j, q in enumerate(qs)), details={"table": table},
        explain="measured = seed-averaged variance of device test accuracies (%^2) at the larger q, "
                "bound = at the smaller q")
