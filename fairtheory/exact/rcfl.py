r"""Exact optima of the RC-FL family over the model (routes and solver measurements: docs/exact.md).

All three minimax objectives are support functions of capped simplices (``fairtheory.sets``):

* FedAvg ``min_w sum_i p_i f_i(w)`` (singleton ``{p}``)                     - :func:`solve_fedavg`;
* RC-FL ``f*_alpha = min_w f_alpha(w) = min_{w, eta} eta + sum_i (p_i/alpha_i)(f_i(w) - eta)_+``
  (002 Def. 1, Lemma 1, eq. 4; caps ``p_i/alpha_i``)                          - :func:`solve_rcfl`;
* AFL ``min_w max_i f_i(w) = min t s.t. f_i(w) <= t`` (full simplex)         - :func:`solve_afl`;
* smoothed RC-FL ``min_{w, eta} F^mu_alpha = sum_i p_i [(mu/alpha_i) log(1 + e^{(f_i(w)-eta)/mu}) + eta]``
  (002 eq. 5)                                                                 - :func:`solve_smoothed_rcfl`;
* the max-min route for quadratic clients ``max_{lam in S} g(lam)``, ``g(lam) = k(lam) -
  0.5 r(lam)^T H(lam)^{-1} r(lam)`` written as an explicit SDP (epigraph of ``matrix_frac``)
  - :func:`maxmin_quadratic`.

Solver choices follow the measurements in docs/exact.md: Clarabel with tight tolerances
(``1e-10``) for the conic models, falling back to Clarabel's defaults with
``max_step_fraction = 0.9`` when the tight solve does not end ``optimal``; a shared ridge term of a
:class:`~fairtheory.problems.logistic.LogisticProblem` is moved outside ``pos()``/``logistic()`` by
the change of variable ``eta' = eta - l2/2 ||w||^2`` (valid because ``sum_i p_i = 1``).  Exact
logistic instances should stay at ``n <= 100`` clients.

No status is trusted alone, and none is accepted without a certificate: a model whose every
Clarabel setting ends ``optimal_inaccurate`` is still returned (status ``"optimal_inaccurate
(certified)"``) when - and only when - its independent certificate passes; any other status raises
:class:`SolverError`.  Every result carries a ``certificate``:

* ``solver_value`` - the conic solver's objective; the returned ``value`` is the closed-form
  objective (``CappedSimplex.support`` of ``problem.losses(w*)``) *at the returned* ``w*``;
* ``dual_value`` - ``g(lam*) = min_w lam* . f(w)`` at the solver's optimal client weights ``lam*``
  (from the constraint multipliers), computed by Newton's method from ``w*`` (closed form for
  quadratics).  By weak duality ``dual_value <= f* <= value``; ``gap = value - dual_value``.
  A gap above ``gap_tol * max(|value|, min(1, unit))`` (Scale, below) raises :class:`SolverError` (status ``uncertified``).

Scale: certificates are relative - a gap or gradient norm is compared with ``tol * max(|value|,
min(1, unit))`` - and when the losses at a reference point (the mean-loss minimiser for quadratic
clients, else the initial point) are far from order one (outside ``[1e-3, 1e3]``) the conic models
are written for ``f / unit`` (same minimisers; values converted back), so losses of order ``1e-12``
or ``1e12`` are solved as accurately as ordinary ones instead of being accepted 10-40% wrong by an
absolute tolerance.

The smoothed problem is polished by damped Newton steps on ``F^mu`` in float64 after the conic
solve (the theorem checks need ``(w*, eta*)`` far more accurately than an interior-point
``1e-8``); its certificate is the final gradient norm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    check_alpha,
    check_in_range,
    check_positive,
)
from fairtheory.backend import to_numpy
from fairtheory.exact.result import ExactResult, SolverError, solve_checked
from fairtheory.problems.base import FederatedProblem
from fairtheory.problems.quadratic import QuadraticProblem
from fairtheory.sets import CappedSimplex
from fairtheory.stable import sigmoid_unchecked, softplus_unchecked

__all__ = ["solve_fedavg", "solve_rcfl", "solve_smoothed_rcfl", "solve_afl", "maxmin_quadratic",
           "smoothed_objective", "TIGHT", "SMOOTHED_MU_FLOOR"]

#: Clarabel settings used first for every conic model (tolerances 1e-10; see docs/exact.md)
TIGHT: dict[str, Any] = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "tol_ktratio": 1e-8,
                         "max_iter": 400}
#: settings tried in order until one ends ``optimal`` (exponential cones often end
#: ``optimal_inaccurate`` under the tight tolerances while the defaults or a shorter step succeed)
_CASCADE: tuple[tuple[str, dict[str, Any]], ...] = (
    ("tight", TIGHT),
    ("defaults", {}),
    ("step0.9", {"max_step_fraction": 0.9, "max_iter": 800}),
    ("no-equilibration", {"equilibrate_enable": False}),
)
DEFAULT_GAP_TOL = 1e-6
#: loss magnitudes (at the initial point) solved as written; outside, the models are rescaled (:func:`_unit`)
_UNIT_BAND = (1e-3, 1e3)


# ==================================================================== public solvers
def solve_fedavg(problem: FederatedProblem, *, polish: bool = True, grad_tol: float = 1e-8) -> ExactResult:
    r"""``min_w sum_i p_i f_i(w)`` (the FedAvg objective, McMahan et al. 2017).

    Conic solve (Clarabel) followed by Newton polishing on ``w -> p . f(w)`` in float64.
    ``certificate``: ``solver_value``, ``grad_norm`` (of ``p . f`` at ``w*``), ``newton_steps``;
    raises :class:`SolverError` when ``grad_norm > grad_tol * max(|value|, min(1, unit))``."""
    import cvxpy as cp

    _check_problem(problem)
    grad_tol = check_positive(grad_tol, "grad_tol")
    unit = _unit(problem)
    w = _model_variable(problem)
    fvec, shared = _loss_vector(problem, w, unit)
    prob = cp.Problem(cp.Minimize(problem.p @ fvec + shared))
    solver_value, solver, status = _solve(
        prob, "solve_fedavg",
        lambda: float(problem.p @ problem.losses(np.asarray(w.value, dtype=np.float64))))
    solver_value *= unit
    w_star = np.asarray(w.value, dtype=np.float64)
    steps = 0
    if polish:
        w_star, steps = _newton_weighted(problem, problem.p, w_star)
    gnorm = _norm(problem.p @ problem.grads(w_star))
    value = float(problem.p @ problem.losses(w_star))
    # d/dw is in units of loss per model unit: times the model scale r it is in units of the losses
    if not gnorm * _model_scale(problem) <= grad_tol * _cert_scale(value, unit):
        raise SolverError("solve_fedavg", solver, f"uncertified: gradient norm {gnorm:.3g} at the solution")
    return ExactResult(value, w_star, problem.p.copy(), solver, _status(status),
                       {"solver_value": solver_value, "grad_norm": gnorm, "newton_steps": float(steps)})


def solve_rcfl(problem: FederatedProblem, alpha: Any, *, gap_tol: float = DEFAULT_GAP_TOL) -> ExactResult:
    r"""``f*_alpha = min_{w, eta} eta + sum_i (p_i/alpha_i) (f_i(w) - eta)_+`` (002 Lemma 1, eq. 4).

    Returns ``ExactResult(value = f_alpha(w*), argmin = w*, weights = lam*, extra = {"eta": eta*,
    "eta_solver": ...})`` where ``eta*`` is the closed-form minimising ``eta`` at ``w*`` (the threshold
    of the capped simplex, a weighted quantile of ``f(w*)``) and ``lam*`` the optimal client weights
    (multipliers of ``s >= f(w) - eta``, an element of ``Q_alpha`` in weight coordinates).
    """
    import cvxpy as cp

    _check_problem(problem)
    a = _alpha(alpha, problem.p)
    gap_tol = check_in_range(gap_tol, "gap_tol", low=0.0)
    S = CappedSimplex(problem.p / a)
    unit = _unit(problem)
    w, eta, s = _model_variable(problem), cp.Variable(), cp.Variable(problem.n)
    fvec, shared = _loss_vector(problem, w, unit)
    cons = [s >= fvec - eta, s >= 0]
    prob = cp.Problem(cp.Minimize(eta + S.caps @ s + shared), cons)
    solver_value, solver, status = _solve(prob, "solve_rcfl",
                                          lambda: S.support(problem.losses(np.asarray(w.value, np.float64))))
    solver_value *= unit
    w_star, lam = _kkt_polish(problem, S, np.asarray(w.value, dtype=np.float64),
                              _clean_weights(cons[0].dual_value, S))
    f = np.asarray(problem.losses(w_star), dtype=np.float64)
    value = S.support(f)
    eta_star = S.threshold(f)
    cert = _certify(problem, lam, w_star, value, solver_value, gap_tol, "solve_rcfl", solver, unit)
    return ExactResult(value, w_star, lam, solver, _status(status), cert,
                       {"eta": eta_star, "eta_solver": unit * float(eta.value) + _shared_value(problem, w_star),
                        "alpha": a})


def solve_afl(problem: FederatedProblem, *, gap_tol: float = DEFAULT_GAP_TOL) -> ExactResult:
    r"""``min_w max_i f_i(w) = min_{w, t} t`` s.t. ``f_i(w) <= t`` (AFL, Mohri et al. 2019).

    ``weights`` = the multipliers ``lam*`` of the constraints (a point of the simplex);
    ``value = max_i f_i(w*)`` at the returned ``w*``; certificate as in :func:`solve_rcfl`."""
    import cvxpy as cp

    _check_problem(problem)
    gap_tol = check_in_range(gap_tol, "gap_tol", low=0.0)
    S = CappedSimplex.simplex(problem.n)
    unit = _unit(problem)
    w, t = _model_variable(problem), cp.Variable()
    fvec, shared = _loss_vector(problem, w, unit)
    cons = [fvec <= t]
    prob = cp.Problem(cp.Minimize(t + shared), cons)
    solver_value, solver, status = _solve(
        prob, "solve_afl", lambda: float(np.max(problem.losses(np.asarray(w.value, dtype=np.float64)))))
    solver_value *= unit
    w_star, lam = _kkt_polish(problem, S, np.asarray(w.value, dtype=np.float64),
                              _clean_weights(cons[0].dual_value, S))
    value = float(np.max(problem.losses(w_star)))
    cert = _certify(problem, lam, w_star, value, solver_value, gap_tol, "solve_afl", solver, unit)
    return ExactResult(value, w_star, lam, solver, _status(status), cert)


def smoothed_objective(problem: FederatedProblem, w: Any, eta: float, alpha: Any, mu: float
                       ) -> tuple[float, np.ndarray, np.ndarray]:
    r"""``F^mu_alpha(w, eta)``, its gradient in ``(w, eta)`` and Hessian (float64 numpy; 002 eq. 5).

    With ``c_i = p_i/alpha_i``, ``x_i = (f_i(w) - eta)/mu``, ``s_i = sigma(x_i)``:
    ``F = sum_i c_i mu log(1 + e^{x_i}) + eta``; ``grad_w = sum_i c_i s_i grad f_i``;
    ``dF/deta = 1 - sum_i c_i s_i``;
    ``Hess = sum_i c_i [s_i(1-s_i)/mu (g_i, -1)(g_i, -1)^T + s_i (H_i, 0)]``."""
    _check_problem(problem)
    a = _alpha(alpha, problem.p)
    mu = check_positive(mu, "mu")
    w_arr = np.asarray(to_numpy(problem.as_model(w, "w")), dtype=np.float64)
    eta_f = check_in_range(eta, "eta")
    with np.errstate(over="ignore", invalid="ignore"):
        out = _smoothed(problem, w_arr, eta_f, problem.p / a, mu, hessian=True)
    if not (np.isfinite(out[0]) and np.all(np.isfinite(out[1])) and np.all(np.isfinite(out[2]))):
        raise FairtheoryValueError("smoothed_objective: the value does not fit float64 at this (w, eta)")
    return out


def solve_smoothed_rcfl(problem: FederatedProblem, alpha: Any, mu: float, *, method: str = "cvxpy",
                        polish: bool = True, grad_tol: float = 1e-9, mu_floor: float | None = None) -> ExactResult:
    r"""``(w*, eta*) = argmin F^mu_alpha`` (002 eq. 5) and its value.

    ``method="cvxpy"``: ``min sum_i p_i [(mu/alpha_i) logistic((f_i(w) - eta)/mu) + eta]`` with Clarabel
    (exponential cones), then damped Newton polishing in float64.  ``method="newton"``: Newton from
    the FedAvg optimum and ``eta`` = the ``Q_alpha`` threshold there (no conic solve; for instances
    too large for the exponential-cone model).  Raises :class:`SolverError` when the final gradient
    norm exceeds ``grad_tol * max(1, |F|)`` (for losses far from order one: the ``w`` part exceeds
    ``grad_tol * max(|F|, min(1, unit))`` or the dimensionless ``eta`` part exceeds ``grad_tol``).
    When the first point (either method) is not certified, Newton is re-run from the unsmoothed optimum
    ``(w_0, eta_mu(w_0))`` (below) before giving up (small ``mu``: the conic solve degrades like
    ``1/mu`` while ``w_0`` is within the smoothing error of the answer).

    ``certificate``: ``grad_norm`` (of ``F^mu`` in ``(w, eta)``), ``solver_value`` (cvxpy only),
    ``newton_steps``, ``polish_change`` (``||(w, eta)`` moved by polishing``||``).

    **Small mu: the unsmoothed route.**  For ``mu < mu_floor * unit`` (default :data:`SMOOTHED_MU_FLOOR`
    ``= 1e-6``; ``unit`` is the loss unit of the exact solvers, 1 for losses of order one) the smoothed
    problem is not solved: its Hessian grows like ``1/mu`` and neither Clarabel nor Newton certifies
    it (measured: Clarabel fails or ends uncertified from ``mu ~ 1e-6`` on, Newton's final gradient
    grows like ``1e-17/mu``).  Instead, with ``c_i = p_i/alpha_i``, ``tau_alpha = sum_i c_i`` and
    ``(x)_+ <= softplus_mu(x) <= (x)_+ + mu log 2`` (Prop. 1, tight at 0), for every ``(w, eta)``

    .. math:: F_\alpha(w, \eta) \le F^\mu_\alpha(w, \eta) \le F_\alpha(w, \eta) + \mu\,\tau_\alpha \log 2

    (002 Lemma 2 with its tight constant), hence ``f*_alpha <= min F^mu_alpha <= f*_alpha + mu tau_alpha
    log 2``.  :func:`solve_rcfl` gives the unsmoothed optimum ``w_0`` and a dual lower bound
    ``D <= f*_alpha`` (its certificate).  Returned: ``argmin = w_0``, ``extra["eta"] = eta_mu(w_0)``
    (the exact minimiser in ``eta`` at ``w_0``, :meth:`~fairtheory.aggregators.SmoothedQalpha.eta_star`;
    ``-inf`` when ``tau_alpha = 1``, where the infimum is approached as ``eta -> -inf``) and
    ``value = F^mu_alpha(w_0, eta_mu(w_0)) = min_eta F^mu_alpha(w_0, eta)``, evaluated exactly in float64.
    It is an *upper* bound and ``D`` a *lower* bound of ``min F^mu_alpha``:

    .. math:: D \le \min F^\mu_\alpha \le \text{value} \le f_\alpha(w_0) + \mu\,\tau_\alpha \log 2,

    so ``value - min F^mu <= value - D <= gap_0 + mu tau_alpha log 2`` (``gap_0`` the unsmoothed
    duality gap).  The certificate holds ``lower_bound = D``, ``gap = value - D`` (the certified width;
    ``(w_0, eta_mu(w_0))`` is a ``gap``-minimiser of ``F^mu_alpha``), ``unsmoothed_gap = gap_0`` and
    ``smoothing_bound = mu tau_alpha log 2``; ``extra["route"] = "unsmoothed"`` (``"smoothed"`` on
    the ordinary route).  The argmin is certified only through its value: ``F^mu`` is not strongly
    convex in general, so no distance to the smoothed minimiser is claimed.
    """
    import cvxpy as cp

    _check_problem(problem)
    a = _alpha(alpha, problem.p)
    mu = check_positive(mu, "mu")
    grad_tol = check_positive(grad_tol, "grad_tol")
    mu_floor = SMOOTHED_MU_FLOOR if mu_floor is None else check_in_range(mu_floor, "mu_floor", low=0.0)
    if method not in ("cvxpy", "newton"):
        raise FairtheoryTypeError(f"method must be 'cvxpy' or 'newton', got {method!r}")
    c = problem.p / a
    solver_value = float("nan")
    conic_failure = ""
    unit = _unit(problem)
    if mu < mu_floor * unit:
        return _smoothed_via_unsmoothed(problem, a, mu)
    if method == "cvxpy":
        # in units of the losses: f/unit, mu/unit, eta/unit (F^mu is positively homogeneous in them)
        w, eta = _model_variable(problem), cp.Variable()
        fvec, shared = _loss_vector(problem, w, unit)
        mu_u = mu / unit
        prob = cp.Problem(cp.Minimize(mu_u * (c @ cp.logistic((fvec - eta) / mu_u)) + eta + shared))
        try:
            solver_value, solver, status = _solve(prob, "solve_smoothed_rcfl", lambda: _smoothed(
                problem, np.asarray(w.value, dtype=np.float64),
                unit * float(eta.value) + _shared_value(problem, np.asarray(w.value)), c, mu, hessian=False)[0])
            solver_value *= unit
            x0 = np.concatenate([np.asarray(w.value, dtype=np.float64),
                                 [unit * float(eta.value) + _shared_value(problem, np.asarray(w.value))]])
        except SolverError as exc:  # the conic solve failed: Newton from the unsmoothed optimum decides
            x0, solver, status, conic_failure = None, exc.solver, "failed", f"; conic solve: {exc.status}"
    else:
        w0 = solve_fedavg(problem).argmin
        x0 = np.concatenate([w0, [CappedSimplex(c).threshold(problem.losses(w0))]])
        solver, status = "newton", "optimal"
        polish = True
    attempts = [] if x0 is None else [(x0, solver, status, polish)]
    last = conic_failure if x0 is None else ""
    # second start, only computed when the first is not certified
    attempts.append((None, "newton(from the unsmoothed optimum)", "optimal", True))
    for start, solver, status, pol in attempts:
        if start is None:
            try:
                start = _unsmoothed_start(problem, a, mu)
            except SolverError as exc:
                last += f"; unsmoothed start: {exc}"
                break
        x, steps = start, 0
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if pol:
                x, steps = _newton(lambda z: _smoothed(problem, z[:-1], z[-1], c, mu, hessian=True), start,
                                   max_iter=200 if method == "newton" or solver.startswith("newton(") else 60)
            F, g, _ = _smoothed(problem, x[:-1], x[-1], c, mu, hessian=False)
        gnorm = _norm(g)
        r_model = _model_scale(problem)
        if unit == 1.0 and r_model == 1.0:
            certified = gnorm <= grad_tol * max(1.0, abs(F))
        else:  # r d/dw is in units of the losses (r the model scale), d/deta = 1 - sum c s is dimensionless
            certified = (r_model * _norm(g[:-1]) <= grad_tol * _cert_scale(F, unit)
                         and abs(float(g[-1])) <= grad_tol)
        if np.isfinite(F) and np.all(np.isfinite(g)) and certified:
            return ExactResult(float(F), x[:-1].copy(), None, solver, _status(status),
                               {"solver_value": solver_value, "grad_norm": gnorm, "newton_steps": float(steps),
                                "polish_change": float(np.linalg.norm(x - start))},
                               {"eta": float(x[-1]), "alpha": a, "mu": mu, "route": "smoothed"})
        last += f"; {solver}: gradient norm {gnorm:.3g} at the solution"
    raise SolverError("solve_smoothed_rcfl", solver, f"uncertified{last}")


#: ``solve_smoothed_rcfl`` takes the unsmoothed route (value within ``gap_0 + mu tau_alpha log 2``,
#: certified) for ``mu < SMOOTHED_MU_FLOOR * unit``
SMOOTHED_MU_FLOOR = 1e-6


def _unsmoothed_start(problem: FederatedProblem, a: np.ndarray, mu: float) -> np.ndarray:
    """``(w_0, eta_mu(w_0))``: the unsmoothed optimum and the exact smoothed ``eta`` there (finite
    ``eta`` only: ``tau_alpha = 1`` has no minimiser in ``eta``)."""
    from fairtheory.aggregators import SmoothedQalpha

    w0 = solve_rcfl(problem, a).argmin
    eta = SmoothedQalpha(problem.p, a, mu).eta_star(problem.losses(w0))
    if not np.isfinite(eta):
        raise SolverError("solve_smoothed_rcfl", "newton", "tau_alpha = 1: F^mu has no minimiser in eta")
    return np.concatenate([w0, [eta]])


def _smoothed_via_unsmoothed(problem: FederatedProblem, a: np.ndarray, mu: float) -> ExactResult:
    """The unsmoothed route of :func:`solve_smoothed_rcfl` (its docstring has the bounds)."""
    from fairtheory.aggregators import SmoothedQalpha

    r0 = solve_rcfl(problem, a)
    f0 = np.asarray(problem.losses(r0.argmin), dtype=np.float64)
    A = SmoothedQalpha(problem.p, a, mu)
    value = A.value(f0)  # min_eta F^mu(w_0, eta), exact eta by bracketed root finding
    eta = A.eta_star(f0)
    lower = float(r0.certificate["dual_value"])
    smoothing = mu * A.tau * float(np.log(2.0))
    gap0 = float(r0.certificate["gap"])
    # value <= f_alpha(w_0) + mu tau log 2 = lower + gap_0 + mu tau log 2 (Lemma 2); float slack 8 ulp
    slack = 8.0 * np.finfo(np.float64).eps * max(abs(value), abs(r0.value), abs(lower))
    if not (np.isfinite(value) and lower - slack <= value <= r0.value + smoothing + slack):
        raise SolverError("solve_smoothed_rcfl", r0.solver,
                          f"uncertified: smoothed value {value!r} outside [{lower!r}, {r0.value + smoothing!r}]")
    return ExactResult(float(value), r0.argmin.copy(), None, r0.solver, r0.status,
                       {"lower_bound": lower, "gap": float(value - lower), "unsmoothed_gap": gap0,
                        "smoothing_bound": smoothing, "unsmoothed_value": float(r0.value)},
                       {"eta": float(eta), "alpha": a, "mu": mu, "route": "unsmoothed"})


def maxmin_quadratic(problem: Any, S: CappedSimplex, *, gap_tol: float = DEFAULT_GAP_TOL) -> ExactResult:
    r"""Max-min route ``max_{lam in S} g(lam)``, ``g(lam) = min_w sum_i lam_i f_i(w) = k(lam) - 0.5
    r(lam)^T H(lam)^{-1} r(lam)`` for quadratic clients ``f_i = 0.5 w^T H_i w - r_i^T w + k_i``
    (equals ``min_w max_{lam in S} lam . f(w)`` by Sion's theorem; see docs/exact.md).

    ``g`` is concave: ``k(lam) - 0.5 matrix_frac(r(lam), H(lam))``; it is written as the explicit SDP
    ``max k.lam - t/2`` s.t. ``[[H(lam), r(lam)], [r(lam)^T, t]] >= 0`` (Clarabel, tolerances 1e-10).
    The model is recovered from the PSD multiplier ``Y`` as ``w = -Y[:d, d]/Y[d, d]`` and, alternatively,
    as ``H(lam*)^+ r(lam*)``; the one with the smaller closed-form primal value ``S.support(f(w))`` is
    returned.  ``certificate``: ``primal_value`` (at the returned ``w``), ``gap = primal - value``;
    a gap above ``gap_tol * max(|value|, min(1, unit))`` raises :class:`SolverError`.

    ``problem`` is a :class:`QuadraticProblem` or has ``as_quadratic()`` (least squares).
    """
    import cvxpy as cp

    if not isinstance(problem, QuadraticProblem):
        if hasattr(problem, "as_quadratic"):
            problem = problem.as_quadratic()
        else:
            raise FairtheoryTypeError(f"problem must be a QuadraticProblem (or have as_quadratic()), got "
                                      f"{type(problem).__name__}")
    if not isinstance(S, CappedSimplex):
        raise FairtheoryTypeError(f"S must be a CappedSimplex, got {type(S).__name__}")
    if S.n != problem.n:
        raise FairtheoryValueError(f"S must have n = {problem.n} (one weight per client), got n = {S.n}")
    gap_tol = check_in_range(gap_tol, "gap_tol", low=0.0)
    n, d = problem.n, problem.d
    unit = _unit(problem)  # the SDP is written for f/unit (g is positively homogeneous in f)
    rm = _model_scale(problem)  # and in model coordinates z = w/rm: H rm^2, r rm (the value is unchanged)
    H, r, k = problem.H, problem.r, problem.k
    Hu, ru, ku = H * (rm * rm / unit), r * (rm / unit), k / unit
    lam, t = cp.Variable(n), cp.Variable()
    Hl = cp.reshape(Hu.reshape(n, d * d).T @ lam, (d, d), order="C")
    rl = cp.reshape(ru.T @ lam, (d, 1), order="C")
    M = cp.bmat([[Hl, rl], [rl.T, cp.reshape(t, (1, 1), order="C")]])
    lmi = (M + M.T) / 2 >> 0
    prob = cp.Problem(cp.Maximize(ku @ lam - 0.5 * t), [lmi, *S.cvxpy_constraints(lam)])
    value, solver, status = _solve(prob, "maxmin_quadratic")
    value *= unit
    lam_v = _clean_weights(lam.value, S)
    cands: dict[str, np.ndarray] = {}
    Y = lmi.dual_value
    if Y is not None and abs(Y[d, d]) > 0:
        cands["multiplier"] = -rm * np.asarray(Y)[:d, d] / Y[d, d]
    Hs, rs = np.einsum("n,nij->ij", lam_v, H), lam_v @ r
    cands["stationary"] = np.linalg.lstsq(Hs, rs, rcond=None)[0]
    primal = {name: S.support(problem.losses(wc)) for name, wc in cands.items()}
    best = min(primal, key=primal.__getitem__)
    gap = primal[best] - value
    if not gap <= gap_tol * _cert_scale(value, unit):
        raise SolverError("maxmin_quadratic", solver, f"uncertified: primal-dual gap {gap:.3g}")
    cert = {"primal_value": primal[best], "gap": gap}
    cert.update({f"primal_value_{name}": v for name, v in primal.items()})
    return ExactResult(value, cands[best], lam_v, solver, _status(status), cert, {"w_from": best})


# ==================================================================== internals
def _norm(x: Any) -> float:
    """Euclidean norm without overflow of the squares (scaled by the largest entry, as ``hypot``):
    gradients of losses ~1e100 have norms that fit a float64 while their squares do not."""
    a = np.asarray(x, dtype=np.float64)
    if a.size == 0:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        m = float(np.max(np.abs(a)))
        if m == 0.0 or not np.isfinite(m):
            return m
        return m * float(np.linalg.norm(a / m))


def _alpha(alpha: Any, p: np.ndarray) -> np.ndarray:
    """``check_alpha`` that also refuses booleans and strings (``float(True)``, ``float("0.5")``)."""
    if isinstance(alpha, (bool, np.bool_, str, bytes)) or alpha is None:
        raise FairtheoryTypeError(f"alpha must be a number or a vector of numbers, got {alpha!r}")
    return check_alpha(alpha, p, "alpha")


def _check_problem(problem: Any) -> None:
    if not isinstance(problem, FederatedProblem):
        raise FairtheoryTypeError(f"problem must be a FederatedProblem, got {type(problem).__name__}")


def _unit(problem: FederatedProblem) -> float:
    """The unit the conic models are written in: ``max_i |f_i(w_ref)|`` when it lies outside
    ``[1e-3, 1e3]`` (losses of order 1e-12 or 1e12 are rescaled to order 1, so that the solver's
    absolute tolerances mean the same), else 1 (ordinary problems are solved as written).  ``w_ref``
    is the minimiser of the mean loss for quadratic clients (closed form), else the problem's
    initial point.  Every value is converted back; certificates use :func:`_cert_scale`.

    Floor: losses that are tiny at ``w_ref`` but not at the initial point ``w_0`` are a minimum near
    zero of a problem of ordinary scale (least squares that interpolate: ``f(w_ref) ~ 1e-31`` is
    rounding noise), not a tiny problem; the unit is then ``max(s_ref, min(1, s_0))`` with ``s_0 =
    max_i |f_i(w_0)|``, so the models are never scaled by the reciprocal of rounding noise (which made
    Clarabel report ``unbounded``) and a certificate's absolute floor ``min(1, unit)`` stays in the
    units in which the losses vary."""
    try:
        w_ref = _reference_point(problem)
    except (ArithmeticError, ValueError, TypeError, AttributeError, np.linalg.LinAlgError):
        w_ref = None
    s_ref = _loss_scale(problem, w_ref)
    if s_ref is None or s_ref == 0.0 or _UNIT_BAND[0] <= s_ref <= _UNIT_BAND[1]:
        return 1.0
    if s_ref < _UNIT_BAND[0]:
        s0 = _loss_scale(problem, _initial_point(problem))
        if s0 is not None:
            s_ref = max(s_ref, min(1.0, s0))
        if _UNIT_BAND[0] <= s_ref:
            return 1.0
    return s_ref


def _loss_scale(problem: FederatedProblem, w: np.ndarray | None) -> float | None:
    """``max_i |f_i(w)|``, or ``None`` where it cannot be evaluated or is not finite."""
    if w is None:
        return None
    try:
        with np.errstate(all="ignore"):
            f = np.asarray(to_numpy(problem.losses(w)), dtype=np.float64)
    except (ArithmeticError, ValueError, TypeError, AttributeError, np.linalg.LinAlgError):
        return None
    s = float(np.max(np.abs(f))) if f.size else 0.0
    return s if np.isfinite(s) else None


def _initial_point(problem: Any) -> np.ndarray | None:
    try:
        return problem.initial_point() if hasattr(problem, "initial_point") else np.zeros(problem.d)
    except (ArithmeticError, ValueError, TypeError, AttributeError):
        return None


def _reference_point(problem: Any) -> np.ndarray | None:
    """``argmin_w p . f(w)`` for quadratic clients (``H``/``r`` or ``quadratic_form()``), else the
    problem's initial point (zeros)."""
    H = r = None
    if hasattr(problem, "H") and hasattr(problem, "r"):
        H, r = np.asarray(problem.H, dtype=np.float64), np.asarray(problem.r, dtype=np.float64)
    elif hasattr(problem, "quadratic_form"):
        H, r, _ = problem.quadratic_form()
    if H is not None and r is not None:
        p = np.asarray(problem.p, dtype=np.float64)
        try:
            return np.linalg.lstsq(np.einsum("n,nij->ij", p, H), p @ r, rcond=None)[0]
        except (ArithmeticError, ValueError, np.linalg.LinAlgError):
            return _initial_point(problem)
    return _initial_point(problem)


def _cert_scale(value: float, unit: float) -> float:
    """Scale of a certificate's tolerance: ``max(|value|, min(1, unit))`` (``max(1, |value|)`` for
    ordinary problems; proportional to the losses for tiny ones, so a 10% error at 1e-12 is caught)."""
    return max(abs(float(value)), min(1.0, unit))


def _model_scale(problem: Any) -> float:
    """Scale of the model coordinates: ``max_i |c_i|`` for quadratic clients when it lies outside
    ``[1e-3, 1e3]``, else 1.  With centres of order ``1e-8`` (losses ``1e-16``, unit ``1e-16``) the model
    ``f/unit`` has curvature ``1e16`` around ``w ~ 1e-8`` and Clarabel failed; in ``z = w/r`` both are of
    order one (``f(r z)/unit`` has curvature ``r^2 H/unit``)."""
    c = getattr(problem, "c", None)
    if not isinstance(problem, QuadraticProblem) or c is None or np.size(c) == 0:
        return 1.0
    s = float(np.max(np.abs(c)))
    if not np.isfinite(s) or s == 0.0 or _UNIT_BAND[0] <= s <= _UNIT_BAND[1]:
        return 1.0
    return s


def _model_variable(problem: Any) -> Any:
    """The model as a cvxpy expression ``r z`` of a variable ``z`` (``r`` = :func:`_model_scale`; ``z``
    itself when ``r = 1``): ``.value`` is the model in the caller's coordinates."""
    import cvxpy as cp

    z = cp.Variable(problem.d)
    r = _model_scale(problem)
    return z if r == 1.0 else r * z


def _loss_vector(problem: FederatedProblem, w: Any, unit: float = 1.0) -> tuple[Any, Any]:
    """Client losses divided by ``unit`` as one cvxpy vector, and the shared term (split off where
    the problem provides one), also divided by ``unit``."""
    import cvxpy as cp

    if isinstance(problem, QuadraticProblem):
        # f_i/unit = 0.5 ||B_i (w - c_i)||^2 + e_i/unit with H_i/unit = B_i^T B_i: one stacked expression
        ev, Q = np.linalg.eigh(problem.H)
        # sqrt(ev)/sqrt(unit): ev/unit overflows for curvature 1e300 at a loss unit 1e-30
        B = (np.sqrt(np.clip(ev, 0.0, None)) / np.sqrt(unit))[:, :, None] * np.swapaxes(Q, 1, 2)  # (n, d, d)
        n, d = problem.n, problem.d
        Bs = B.reshape(n * d, d)
        off = np.einsum("nij,nj->ni", B, problem.c).reshape(-1)
        import scipy.sparse as sp

        A = sp.kron(sp.eye(n), np.ones((1, d)), format="csr")
        return 0.5 * (A @ cp.square(Bs @ w - off)) + problem.e / unit, 0.0
    if hasattr(problem, "cvxpy_loss_vector"):
        shared_fn = getattr(problem, "cvxpy_shared_term", None)
        if shared_fn is not None:
            fvec, shared = problem.cvxpy_loss_vector(w, shared=False), shared_fn(w)
        else:
            fvec, shared = problem.cvxpy_loss_vector(w), 0.0
    else:
        fvec, shared = cp.hstack(problem.cvxpy_losses(w)), 0.0
    if unit != 1.0:
        fvec, shared = fvec / unit, shared / unit
    return fvec, shared


def _shared_value(problem: Any, w: np.ndarray) -> float:
    l2 = float(getattr(problem, "l2", 0.0)) if hasattr(problem, "cvxpy_shared_term") else 0.0
    return 0.5 * l2 * float(w @ w)


def _solve(prob: Any, what: str, score: Callable[[], float] | None = None,
           attempts: tuple[tuple[str, str, dict[str, Any]], ...] | None = None) -> tuple[float, str, str]:
    """Solve under a cascade of ``(label, solver, settings)`` attempts (default: Clarabel under
    :data:`_CASCADE`); returns ``(value, solver label, status)``.

    The first attempt that ends ``optimal`` wins.  When every attempt ends ``optimal_inaccurate``, the
    attempt with the smallest ``score()`` (the caller's closed-form objective at the attempt's
    variables; default: the solver value) is restored and returned with that status: every caller
    then certifies the solution independently (duality gap or gradient norm) and raises
    :class:`SolverError` if the certificate fails.  Any other status raises at once."""
    import warnings

    import cvxpy as cp

    if attempts is None:
        attempts = tuple((name, "CLARABEL", settings) for name, settings in _CASCADE)
    best: tuple[float, float, str, list[Any], list[Any]] | None = None
    last_solver = attempts[0][1] if attempts else "CLARABEL"
    for name, solver, settings in attempts:
        last_solver = solver
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            try:
                return solve_checked(prob, what, solver, **settings), f"{solver}({name})", "optimal"
            except SolverError as exc:
                if exc.status != cp.OPTIMAL_INACCURATE:
                    raise
        if prob.value is None:
            continue
        val = float(prob.value)
        try:
            sc = float(score()) if score is not None else val
        except (TypeError, ValueError, ArithmeticError):  # no point, or one outside the objective's domain
            continue
        if np.isfinite(sc) and (best is None or sc < best[0]):
            best = (sc, val, f"{solver}({name})", [v.value for v in prob.variables()],
                    [c.dual_value for c in prob.constraints])
    if best is None:
        raise SolverError(what, last_solver, cp.OPTIMAL_INACCURATE)
    for v, val in zip(prob.variables(), best[3], strict=True):
        v.value = val
    for c, dv in zip(prob.constraints, best[4], strict=True):
        if dv is not None:
            c.save_dual_value(dv)
    return best[1], best[2], cp.OPTIMAL_INACCURATE


def _status(status: str) -> str:
    return "optimal" if status == "optimal" else f"{status} (certified)"


def _clean_weights(lam: Any, S: CappedSimplex) -> np.ndarray:
    """Multipliers as a point of ``S`` (Euclidean projection removes interior-point round-off)."""
    return S.project(np.asarray(lam, dtype=np.float64).reshape(-1))


def _kkt_polish(problem: FederatedProblem, S: CappedSimplex, w0: np.ndarray, lam0: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_kkt_polish_once` with active sets read at relative levels 1e-6, 1e-4, 1e-2; keeps the
    candidate with the smallest closed-form primal value (the starting point if none improves)."""
    best = (S.support(problem.losses(w0)), w0, lam0)
    for rel in (1e-6, 1e-4, 1e-2):
        w, lam = _kkt_polish_once(problem, S, w0, lam0, rel)
        val = S.support(problem.losses(w))
        if val < best[0]:
            best = (val, w, lam)
    return best[1], best[2]


def _kkt_polish_once(problem: FederatedProblem, S: CappedSimplex, w0: np.ndarray, lam0: np.ndarray,
                     rel: float, max_iter: int = 30) -> tuple[np.ndarray, np.ndarray]:
    r"""Refine an interior-point solution of ``min_w support_S(f(w))`` by Newton on its KKT system.

    With the active sets read off ``lam0`` - ``U`` (weight at the cap), ``T`` (strictly between 0 and
    the cap: tied at the threshold ``eta``), the rest at 0 - the optimality conditions are the square
    system ``sum_i lam_i grad f_i(w) = 0``, ``f_T(w) = eta``, ``sum_T lam_i = 1 - sum_U u_i`` in
    ``(w, eta, lam_T)``.  The refined point is kept only if ``lam_T`` stays in ``[0, u_T]`` and the
    closed-form primal value does not increase (the certificate then judges it)."""
    u = S.caps
    f0 = np.asarray(problem.losses(w0), dtype=np.float64)
    upper = lam0 >= (1 - rel) * u
    tied = (lam0 > rel * u) & ~upper
    if not tied.any():
        cand = np.flatnonzero(~upper)
        if cand.size == 0:
            return w0, lam0
        tied[cand[np.argmin(np.abs(f0[cand] - S.threshold(f0)))]] = True
    T = np.flatnonzero(tied)
    lam_fixed = np.where(upper, u, 0.0)
    d, k = problem.d, T.size
    x = np.concatenate([w0, [S.threshold(f0)], lam0[T]])

    def residual(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w, eta, lt = x[:d], x[d], x[d + 1:]
        lam = lam_fixed.copy()
        lam[T] = lt
        G = np.asarray(problem.grads(w), dtype=np.float64)
        f = np.asarray(problem.losses(w), dtype=np.float64)
        r = np.concatenate([lam @ G, f[T] - eta, [lam.sum() - 1.0]])
        J = np.zeros((d + k + 1, d + 1 + k))
        J[:d, :d] = np.einsum("n,nij->ij", lam, problem.hessians(w))
        J[:d, d + 1:] = G[T].T
        J[d:d + k, :d] = G[T]
        J[d:d + k, d] = -1.0
        J[d + k, d + 1:] = 1.0
        return r, J

    r, J = residual(x)
    rn = _norm(r)
    for _ in range(max_iter):
        if rn == 0:
            break
        xn = x - np.linalg.lstsq(J, r, rcond=None)[0]
        rn_new, Jn = residual(xn)
        if not _norm(rn_new) < rn:
            break
        x, r, J, rn = xn, rn_new, Jn, _norm(rn_new)
    lam = lam_fixed.copy()
    lam[T] = x[d + 1:]
    w = x[:d]
    if (np.all(np.isfinite(x)) and np.all(lam[T] >= -1e-12) and np.all(lam[T] <= u[T] + 1e-12)
            and S.support(problem.losses(w)) <= S.support(f0)):
        return w, S.project(lam)
    return w0, lam0


def _certify(problem: FederatedProblem, lam: np.ndarray, w: np.ndarray, value: float, solver_value: float,
             gap_tol: float, what: str, solver: str, unit: float = 1.0) -> dict[str, float]:
    dual, dual_grad = _dual_value(problem, lam, w)
    gap = value - dual
    cert = {"solver_value": solver_value, "dual_value": dual, "dual_grad_norm": dual_grad, "gap": gap,
            "solver_gap": abs(value - solver_value)}
    scale = _cert_scale(value, unit)
    if not (gap <= gap_tol * scale and gap >= -gap_tol * scale):
        raise SolverError(what, solver, f"uncertified: primal {value!r} vs dual {dual!r} (gap {gap:.3g})")
    return cert


def _dual_value(problem: FederatedProblem, lam: np.ndarray, w0: np.ndarray) -> tuple[float, float]:
    """``g(lam) = min_w lam . f(w)`` by Newton from ``w0``; returns value and final gradient norm."""
    w, _ = _newton_weighted(problem, lam, w0)
    g = lam @ problem.grads(w)
    Hs = np.einsum("n,nij->ij", lam, problem.hessians(w))
    step = np.linalg.lstsq(Hs, g, rcond=None)[0]
    # second-order estimate of the remaining decrease (0 at an exact minimiser)
    return float(lam @ problem.losses(w) - 0.5 * g @ step), _norm(g)


def _newton_weighted(problem: FederatedProblem, lam: np.ndarray, w0: np.ndarray) -> tuple[np.ndarray, int]:
    def fgh(w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        return (float(lam @ problem.losses(w)), lam @ problem.grads(w),
                np.einsum("n,nij->ij", lam, problem.hessians(w)))

    return _newton(fgh, np.asarray(w0, dtype=np.float64), max_iter=60)


def _smoothed(problem: FederatedProblem, w: np.ndarray, eta: float, c: np.ndarray, mu: float,
              *, hessian: bool) -> tuple[float, np.ndarray, np.ndarray]:
    f = np.asarray(problem.losses(w), dtype=np.float64)
    G = np.asarray(problem.grads(w), dtype=np.float64)
    s = sigmoid_unchecked((f - eta) / mu)
    F = float(c @ softplus_unchecked(f - eta, mu) + eta)
    grad = np.concatenate([(c * s) @ G, [1.0 - c @ s]])
    if not hessian:
        return F, grad, np.zeros(0)
    d = w.size
    sp_ = c * s * (1.0 - s) / mu
    Ge = np.hstack([G, -np.ones((problem.n, 1))])
    Hm = np.einsum("n,ni,nj->ij", sp_, Ge, Ge)
    Hm[:d, :d] += np.einsum("n,nij->ij", c * s, problem.hessians(w))
    return F, grad, Hm


def _newton(fgh: Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]], x0: np.ndarray,
            max_iter: int = 60) -> tuple[np.ndarray, int]:
    """Damped Newton (Armijo backtracking) until the gradient stops decreasing."""
    x = np.array(x0, dtype=np.float64)
    F, g, H = fgh(x)
    gn = _norm(g)
    steps = 0
    for _ in range(max_iter):
        if gn == 0 or not np.isfinite(gn):
            break
        try:
            dx = -np.linalg.solve(H, g)
            if not np.all(np.isfinite(dx)) or g @ dx >= 0:
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            reg = 1e-12 * max(1.0, float(np.abs(H).max())) * np.eye(H.shape[0])
            dx = -np.linalg.lstsq(H + reg, g, rcond=None)[0]
            if g @ dx >= 0:
                dx = -g
        t, accepted = 1.0, False
        while t > 1e-12:
            xn = x + t * dx
            Fn, gnv, Hn = fgh(xn)
            gnn = _norm(gnv)
            if np.isfinite(Fn) and (Fn <= F + 1e-4 * t * (g @ dx)
                                    or (gnn < gn and Fn <= F + 1e-13 * max(1.0, abs(F)))):
                accepted = True
                break
            t *= 0.5
        if not accepted or gnn >= gn and Fn >= F:
            break
        x, F, g, H, gn = xn, Fn, gnv, Hn, gnn
        steps += 1
    return x, steps
