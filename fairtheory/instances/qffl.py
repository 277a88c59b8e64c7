r"""q-FFL results (003) as instance functions: one instance's parameters in, ``(measured, theory)`` out.

Ground truth comes from :func:`fairtheory.exact.qffl.solve_qffl` (p-norm form, Clarabel, Newton polish).
``w*_q`` is the exact minimiser of the unweighted objective ``(1/m) sum_k F_k^{q+1}`` (003 eq. 22) in
Lemmas 6-7, of the weighted ``f_q`` (003 eq. 2) elsewhere; Lemma 8 uses its own ``w*_p``
(:func:`lemma8`).  Random instances: :func:`random_convex_instance`, :func:`random_multinomial`.

=======================  ==========================================  =====================================
function                 measured                                    theory (relation)
=======================  ==========================================  =====================================
:func:`q0_is_fedavg`     ``f_0(F(w))``                               ``sum_k p_k F_k(w)`` (==)
:func:`limits`           ``max_k F_k(w*_q)``                         ``p_min^{-1/(q+1)} AFL*`` (<=)
:func:`lemma12`          ``||Hess(f^{q+1}/(q+1))(w)||_2``            ``L f^q + q f^{q-1} ||grad f||^2`` (<=)
:func:`lemma6`           ``Var F(w*_1)``                             ``Var F(w*_0)`` (<=)
:func:`lemma7`           ``cos(F(w*_1), 1)``                         ``cos(F(w*_0), 1)`` (>=)
:func:`lemma8`           ``d/dp H(F^q(w*_p))`` at ``p = q`` (FD)     ``0`` (>=)
:func:`lemma10`          ``lam . F``                                 ``||lam||_p ||F||_{q+1}`` (<=)
:func:`reduction`        q-FedAvg (``q = 0``, one step) model        FedSGD model, step ``1/L`` (==)
:func:`convergence`      ``f_q(w_T)`` of full q-FedSGD               ``f_q*`` (==, relative)
=======================  ==========================================  =====================================
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy as np

from fairtheory._validation import (
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_positive,
    check_rng,
)
from fairtheory.backend import as_array
from fairtheory.exact.qffl import newton_polish, solve_qffl
from fairtheory.exact.result import SolverError, solve_checked
from fairtheory.instances import InstanceResult, check_problem
from fairtheory.metrics import angle_cosine, entropy, variance
from fairtheory.objectives.qffl import hessian_powered, lipschitz_estimate, qffl_value
from fairtheory.problems.base import FederatedProblem
from fairtheory.problems.multinomial import MultinomialProblem
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic

__all__ = ["random_convex_instance", "random_multinomial", "exact_losses", "afl_value", "q0_is_fedavg", "limits",
           "lemma12", "lemma6", "lemma7", "lemma8", "entropy_derivative_ift", "lemma10", "reduction",
           "convergence"]


# ----------------------------------------------------------------------------------------- instances
def random_convex_instance(rng: np.random.Generator, n_max: int = 6, d_max: int = 3) -> QuadraticProblem:
    """Random strongly convex quadratic clients (``mu = 0.2``, ``L = 2``) with positive losses (offsets
    ``e_k >= 0.05``), ``2 <= n <= n_max`` clients in dimension ``1 <= d <= d_max``."""
    rng = check_rng(rng)
    n_max = check_integer(n_max, "n_max", low=2)
    d_max = check_integer(d_max, "d_max", low=1)
    n = int(rng.integers(2, n_max + 1))
    d = int(rng.integers(1, d_max + 1))
    P = random_quadratic(n, d, rng=rng, mu=0.2, L=2.0, spread=float(rng.uniform(0.3, 3.0)), offset=1.0)
    return QuadraticProblem(P.H, P.c, P.e + 0.05, P.p)


def random_multinomial(rng: np.random.Generator, *, n: int = 3, d_in: int = 3, C: int = 3, l2: float = 0.01,
                       sizes: tuple[int, int] = (5, 15), shift: float = 1.0) -> MultinomialProblem:
    """Multinomial logistic clients with random labels: sizes uniform in ``[sizes[0], sizes[1])``,
    features ``N(0, I)`` shifted per client by ``shift * N(0, I)``; ridge ``l2``."""
    rng = check_rng(rng)
    n = check_integer(n, "n", low=1)
    m = rng.integers(sizes[0], sizes[1], size=n)
    N = int(m.sum())
    X = rng.normal(size=(N, d_in)) + np.repeat(rng.normal(size=(n, d_in)) * shift, m, axis=0)
    y = rng.integers(0, C, size=N)
    return MultinomialProblem(X, y, np.concatenate([[0], np.cumsum(m)]), C, l2=l2)


_EXACT: weakref.WeakKeyDictionary[Any, dict[tuple[float, str], np.ndarray]] = weakref.WeakKeyDictionary()


def exact_losses(problem: FederatedProblem, q: float, *, form: str = "unweighted") -> np.ndarray:
    """``F(w*_q)`` at the exact minimiser of the q-FFL ``form`` (remembered per problem object, so
    Lemmas 6 and 7 on one instance solve once)."""
    check_problem(problem)
    q = check_in_range(q, "q", low=0.0)
    try:
        memo = _EXACT.setdefault(problem, {})
    except TypeError:  # an unhashable problem class: no memo
        memo = {}
    key = (float(q), form)
    if key not in memo:
        memo[key] = np.asarray(solve_qffl(problem, q, form=form).extra["losses"], dtype=np.float64)
    return memo[key].copy()


def afl_value(problem: FederatedProblem) -> float:
    """``AFL* = min_w max_k F_k(w)`` (epigraph LP/QP, Clarabel, status checked), as ``max_k F_k`` at the
    solver's point."""
    import cvxpy as cp

    check_problem(problem)
    w, t = cp.Variable(problem.d), cp.Variable()
    prob = cp.Problem(cp.Minimize(t), [f <= t for f in problem.cvxpy_losses(w)])
    solve_checked(prob, "AFL epigraph", "CLARABEL")
    return float(np.max(problem.losses(np.asarray(w.value))))


# ----------------------------------------------------------------------------------------- Sec. 3.2
def q0_is_fedavg(*, problem: FederatedProblem, w: Any) -> InstanceResult:
    """003 Sec. 3.2: at ``q = 0``, ``f_q`` is the FedAvg objective: ``f_0(F(w)) = sum_k p_k F_k(w)``.

    ``extra["scale"] = max(1, max_k F_k(w))`` (the claim's reference for the comparison)."""
    check_problem(problem)
    w = as_vector(w, "w")
    F = problem.losses(w)
    return InstanceResult(float(qffl_value(F, 0.0, problem.p)), float(problem.weighted_loss(w)),
                          {"scale": max(1.0, float(F.max()))})


def limits(*, problem: FederatedProblem, q: float, afl: float | None = None) -> InstanceResult:
    r"""003 Sec. 3.2, quantitative: ``AFL* <= max_k F_k(w*_q) <= p_min^{-1/(q+1)} AFL*``.

    With ``N_q(w) = (sum_k p_k F_k^{q+1})^{1/(q+1)}``, ``p_min^{1/(q+1)} max F <= N_q <= max F`` gives the
    upper bound; the lower bound is the definition of ``AFL*``.  ``measured = max_k F_k(w*_q)`` (``w*_q``
    the exact minimiser of eq. 2), ``theory`` the upper bound; ``extra["afl"] = AFL*`` (solved unless
    given)."""
    check_problem(problem)
    q = check_in_range(q, "q", low=0.0)
    afl = afl_value(problem) if afl is None else check_in_range(afl, "afl")
    M = float(solve_qffl(problem, q).extra["losses"].max())
    return InstanceResult(M, float(problem.p.min() ** (-1.0 / (q + 1.0)) * afl), {"afl": afl})


# ----------------------------------------------------------------------------------------- Lemma 12
def lemma12(*, loss: float, grad: Any, hess: Any, L: float, q: float) -> InstanceResult:
    r"""003 Lemma 12 for one nonnegative ``L``-smooth ``f`` at one point: the spectral norm of the exact
    Hessian of ``f^{q+1}/(q+1)``, ``q f^{q-1} g g^T + f^q H``, is at most ``L f^q + q f^{q-1} ||g||^2``.

    ``loss = f(w) >= 0``, ``grad = g`` (d,), ``hess = H`` (d, d); ``extra["hessian"]`` is the powered
    Hessian (the figure averages them over clients)."""
    loss = check_in_range(loss, "loss", low=0.0)
    g = as_array(grad, "grad", ndim=1).reshape(1, -1)
    H = as_array(hess, "hess", ndim=2)
    if H.shape != (g.shape[1], g.shape[1]):
        raise FairtheoryValueError(f"hess must have shape ({g.shape[1]}, {g.shape[1]}) to match grad, got {H.shape}")
    Hq = hessian_powered(np.array([loss]), g, H[None], q)[0]
    norm = float(np.abs(np.linalg.eigvalsh(Hq)).max())
    bound = float(lipschitz_estimate(np.array([loss]), np.sum(g * g, axis=1), L, q)[0])
    return InstanceResult(norm, bound, {"hessian": Hq})


# ----------------------------------------------------------------------------------------- Lemmas 6, 7
def lemma6(*, problem: FederatedProblem) -> InstanceResult:
    """003 Lemma 6: ``Var F(w*_1) <= Var F(w*_0)`` for the unweighted objective (the seed says strict;
    strictness needs ``w*_1 != w*_0``).  ``extra``: the loss vectors ``F0``, ``F1``."""
    F0, F1 = exact_losses(problem, 0.0), exact_losses(problem, 1.0)
    return InstanceResult(variance(F1), variance(F0), {"F0": F0, "F1": F1})


def lemma7(*, problem: FederatedProblem) -> InstanceResult:
    """003 Lemma 7 (Def. 4): ``cos(F(w*_1), 1) >= cos(F(w*_0), 1)``, the cosine being
    ``mean F / sqrt(mean F^2)``.  The proof's second inequality is printed with the wrong direction
    (``mean F^2(w*_1) <= mean F^2(w*_0)`` holds); the statement follows anyway.  ``extra``: ``F0``, ``F1``."""
    F0, F1 = exact_losses(problem, 0.0), exact_losses(problem, 1.0)
    return InstanceResult(angle_cosine(F1), angle_cosine(F0), {"F0": F0, "F1": F1})


# ----------------------------------------------------------------------------------------- Lemma 8
def entropy_derivative_ift(problem: FederatedProblem, w: np.ndarray, p: float, q: float) -> float:
    r"""``d/dp H(F^q(w*_p))`` by the implicit function theorem at a minimiser ``w`` of ``G = sum_k F_k^p``:
    ``dw/dp = -(Hess G)^{-1} sum_k F_k^{p-1} (1 + p ln F_k) grad F_k`` and
    ``dH/dF_k = -(q/F_k) pi_k (ln pi_k + H)`` with ``pi = F^q / sum F^q``."""
    check_problem(problem)
    F, J, Hs = problem.losses(w), problem.grads(w), problem.hessians(w)
    HG = (np.einsum("n,ni,nj->ij", p * (p - 1) * F ** (p - 2), J, J)
          + np.einsum("n,nij->ij", p * F ** (p - 1), Hs))
    dw = -np.linalg.solve(HG, (F ** (p - 1) * (1 + p * np.log(F))) @ J)
    pi = F**q / np.sum(F**q)
    H = -np.sum(pi * np.log(pi))
    return float((-(q / F) * pi * (np.log(pi) + H)) @ J @ dw)


def lemma8(*, problem: FederatedProblem, q: float, h: float = 1e-3) -> InstanceResult:
    r"""003 Lemma 8: ``d/dp H(F^q(w*_p))|_{p=q} >= 0`` with ``w*_p = argmin_w sum_k F_k^p`` (exponent
    ``p``, as the lemma's proof writes ``sum_k grad F_k^p(w*_p) = 0``).

    ``measured``: central finite difference with step ``h`` between exact minimisers at ``p = q +- h``
    (cvxpy at ``p = q``, certified Newton continuation to ``q +- h``); ``theory = 0``.  Needs ``q - h >= 1``
    (``sum F^p`` convex on both sides).  ``extra``: the implicit-function derivative ``ift`` (a second
    route) and the worst Newton gradient norm ``polish_grad``."""
    check_problem(problem)
    q = check_in_range(q, "q", low=1.0)
    h = check_in_range(h, "h", low=0.0, high=q - 1.0, low_inclusive=False)
    c = np.full(problem.n, 1.0 / problem.n)
    w = solve_qffl(problem, q - 1.0, form="unweighted").argmin
    wp, ip = newton_polish(problem, w, q + h - 1.0, weights=c, max_steps=50)
    wm, im = newton_polish(problem, w, q - h - 1.0, weights=c, max_steps=50)
    fd = (entropy(problem.losses(wp) ** q) - entropy(problem.losses(wm) ** q)) / (2 * h)
    return InstanceResult(float(fd), 0.0, {"ift": entropy_derivative_ift(problem, w, q, q),
                                           "polish_grad": max(ip["grad_norm"], im["grad_norm"])})


# ----------------------------------------------------------------------------------------- Lemma 10
_TIGHT = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12}


def _dual_norm_cvxpy(F: np.ndarray, p: float) -> tuple[float, str]:
    """``max_{||nu||_p <= 1} nu . F`` by Clarabel, as a certified lower bound: the solver's ``nu`` scaled
    into the ball (``nu / max(1, ||nu||_p)``) is feasible, so ``nu . F`` cannot exceed the maximum.
    Solved on the well-scaled twin ``F / max F`` (the value is homogeneous); tight tolerances first, then
    Clarabel's defaults.  Returns the bound and the solver status (``optimal_inaccurate`` is accepted:
    the bound does not depend on it)."""
    import cvxpy as cp

    m = F.size
    v = cp.Variable(m)
    Fs = F / F.max()
    pr = cp.Problem(cp.Maximize(Fs @ v), [cp.pnorm(v, p) <= 1])
    status = ""
    for settings in (_TIGHT, {}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "solution may be inaccurate": status checked below
            try:
                solve_checked(pr, "dual norm (003 Lemma 10)", "CLARABEL", **settings)
                status = "optimal"
                break
            except SolverError as exc:
                if exc.status != cp.OPTIMAL_INACCURATE:
                    raise
                status = exc.status
    nu = np.asarray(v.value, dtype=np.float64)
    nu = nu / max(1.0, float(np.linalg.norm(nu, p)))
    return float(Fs @ nu) * float(F.max()), status


def lemma10(*, F: Any, lam: Any, q: float, solve: bool = False) -> InstanceResult:
    r"""003 Lemma 10 (proof): Hoelder ``lam . F <= ||lam||_p ||F||_{q+1}`` (``1/p + 1/(q+1) = 1``) and the
    dual-norm identity ``max_{||nu||_p <= 1} nu . F = ||F||_{q+1}``.

    ``measured = lam . F``, ``theory = ||lam||_p ||F||_{q+1}``.  ``extra``: ``norm = ||F||_{q+1}``,
    ``dual_closed_form = nu . F`` at the closed-form maximiser ``nu = F^q / ||F^q||_p`` (``1`` at
    ``q = 0``), and with ``solve`` (``q > 0``) ``dual_cvxpy``, a certified lower bound of the maximum from
    a conic solve, with ``cvxpy_status``."""
    F = as_vector(F, "F")
    lam = as_vector(lam, "lam")
    if lam.shape != F.shape:
        raise FairtheoryValueError(f"lam must have the same shape as F {F.shape}, got {lam.shape}")
    q = check_in_range(q, "q", low=0.0)
    p = np.inf if q == 0 else (q + 1.0) / q
    nF = float(np.linalg.norm(F, q + 1.0))
    nu = np.ones(F.size) if q == 0 else F**q / np.linalg.norm(F**q, p)
    extra: dict[str, Any] = {"norm": nF, "dual_closed_form": float(nu @ F), "p": p}
    if solve:
        extra["dual_cvxpy"], extra["cvxpy_status"] = _dual_norm_cvxpy(F, p)
    return InstanceResult(float(lam @ F), float(np.linalg.norm(lam, p)) * nF, extra)


# ----------------------------------------------------------------------------------------- algorithms
def reduction(*, problem: FederatedProblem, w: Any, lr: float, K: int | None = None, seed: int = 0) -> InstanceResult:
    r"""003 Alg. 1 (camera-ready scaling ``Delta w = L (w - wbar)``, ``L = 1/lr``): with ``q = 0`` and one
    full-batch local step, a q-FedAvg round is the FedSGD step ``w - (1/(K L)) sum_{k in S} grad F_k`` over
    the drawn devices (``K = None``: ``w - (1/L) sum_k p_k grad F_k``), draws from ``default_rng(seed)``.

    ``measured``/``theory``: the coordinate of q-FedAvg's and of the FedSGD formula's model that differ
    most relative to ``max(|theory|, scale)``, ``scale = max(1, ||w||_inf)``.  ``extra``: both models,
    FedAvg's (``fedavg.make(problem, lr=lr, kappa=1, K=K)``, same draws), ``scale`` and ``coordinate``."""
    from fairtheory.algorithms import fedavg, qfedavg
    from fairtheory.algorithms.base import sample_clients

    check_problem(problem)
    w = as_vector(w, "w")
    alg = qfedavg.make(problem, q=0.0, lr=lr, K=K)
    a = np.asarray(alg.step(alg.init(w), np.random.default_rng(seed)).w)
    G = problem.grads(w)
    if K is None:
        b = w - lr * problem.p @ G
    else:
        idx = sample_clients(np.random.default_rng(seed), problem.p, K)
        b = w - lr * G[idx].mean(axis=0)
    fa = fedavg.make(problem, lr=lr, kappa=1, K=K)
    f = np.asarray(fa.step(fa.init(w), np.random.default_rng(seed)).w)
    scale = max(1.0, float(np.abs(w).max()))
    j = int(np.argmax(np.abs(a - b) / np.maximum(np.abs(b), scale)))
    return InstanceResult(float(a[j]), float(b[j]), {"qfedavg": a, "fedsgd": b, "fedavg": f, "scale": scale,
                                                     "coordinate": j})


def convergence(*, problem: FederatedProblem, q: float, L: float | None = None, rounds: int = 20000,
                rtol: float = 1e-6, check_every: int = 50, stop: bool = True) -> InstanceResult:
    r"""003 Alg. 3 with full participation: q-FedSGD with ``L`` (default: the certified smoothness,
    :func:`~fairtheory.algorithms.qfedsgd.estimate_L`) reaches the exact optimum ``f_q*`` of eq. 2.

    Runs up to ``rounds`` rounds from ``problem.initial_point()``, evaluating ``f_q`` every
    ``check_every`` rounds and (with ``stop``) stopping once ``(f_q(w_T) - f_q*)/f_q* <= rtol``.
    ``measured = f_q(w_T)`` at the last evaluation, ``theory = f_q*``; ``extra``: ``rounds`` (``T``),
    ``gap`` (relative), ``L``, and ``trace`` = ``(rounds, gaps)`` arrays from round 0."""
    from fairtheory.algorithms import qfedsgd

    check_problem(problem)
    q = check_in_range(q, "q", low=0.0)
    rounds = check_integer(rounds, "rounds", low=0)
    check_every = check_integer(check_every, "check_every", low=1)
    rtol = check_in_range(rtol, "rtol", low=0.0)
    ref = float(solve_qffl(problem, q).value)
    L = qfedsgd.estimate_L(problem) if L is None else check_positive(L, "L")
    alg = qfedsgd.make(problem, q=q, L=L)
    s = alg.init()

    def gap_at(x: Any) -> tuple[float, float]:
        v = float(qffl_value(problem.losses(x), q, problem.p))
        return v, (v - ref) / ref

    val, gap = gap_at(s.w)
    ts, gaps = [0], [gap]
    T = 0
    for T in range(1, rounds + 1):
        s = alg.step(s, None)
        if T % check_every == 0:
            val, gap = gap_at(s.w)
            ts.append(T)
            gaps.append(gap)
            if stop and gap <= rtol:
                break
    return InstanceResult(val, ref, {"rounds": T, "gap": gap, "L": L, "w": np.asarray(s.w),
                                     "trace": (np.array(ts), np.array(gaps))})
