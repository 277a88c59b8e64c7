r"""Exact q-FFL optimum (003 eq. 2, eq. 22, App. A.1): the p-norm form, Clarabel, then Newton polish.

For weights ``c`` (``p`` for the weighted eq. 2, ``1/m`` for eq. 22 and the root form) every form of
q-FFL is a monotone transform of ``|| c^{1/(q+1)} * F(w) ||_{q+1}``, so all share the minimiser

    w*_q = argmin_w  || c^{1/(q+1)} * t ||_{q+1}   s.t.  F_k(w) <= t_k,  t >= 0,

solved with ``cp.pnorm`` (Clarabel).  The epigraph variables ``t`` make the model DCP for any convex
client losses (cvxpy need not know ``F_k >= 0``).  This form is accurate for ``q`` up to 15, where
the ``power`` form ``sum_k c_k power(F_k, q+1)`` fails from ``q >= 5`` on (measured with cvxpy 1.9 and
Clarabel 0.11).  cvxpy realises non-integer norms by a rational approximation of ``q+1`` with
denominator <= 1024; ``q`` in {0.1, 1.5, ...} is exact.

Solver: Clarabel under the cascade :data:`QFFL_CASCADE` (its defaults, then a shorter step, no
equilibration, tight tolerances) - the first setting that ends ``optimal`` wins; if all end
``optimal_inaccurate`` the one with the smallest ``sum_k c_k F_k^{q+1}`` is kept and must pass the
certificate.  Any other status raises :class:`SolverError`.

Certification: where the problem provides Hessians and ``d <= max_polish_d``, a few damped Newton
steps on ``g(w) = sum_k c_k F_k(w)^{q+1}`` polish the solver's point (accepted only if ``g`` does
not increase); the certificate is the scale-free gradient norm ``grad_rel`` of ``f_q`` at the
returned point, which must be at most ``grad_tol`` for every polished point and every point from an
``optimal_inaccurate`` solve (else :class:`SolverError`, status ``uncertified``).  Second certificate:
the losses are nonnegative, so ``0 <= min f_q``; a point whose largest loss is at most ``grad_tol *
min(1, unit)`` (``certificate["max_loss"]``) is within that of the lower bound (least squares that
interpolate: ``grad_rel`` is a ratio of vanishing terms there and stays of order one).  Gradients and
Newton run on the losses in units of the exact solvers' loss unit (``F/unit``, same minimiser), so
losses of order ``1e100`` do not overflow ``F^{q+1}`` or the norms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_positive,
)
from fairtheory.backend import to_numpy
from fairtheory.exact.rcfl import TIGHT, _check_problem, _loss_vector, _model_variable, _solve, _status, _unit
from fairtheory.exact.result import ExactResult, SolverError
from fairtheory.objectives.qffl import FORMS, qffl_value
from fairtheory.problems.base import FederatedProblem
from fairtheory.problems.quadratic import QuadraticProblem

__all__ = ["solve_qffl", "newton_polish", "QFFL_CASCADE", "DEFAULT_GRAD_TOL"]


def _weights(problem: FederatedProblem, form: str) -> np.ndarray:
    return problem.p.copy() if form == "weighted" else np.full(problem.n, 1.0 / problem.n)


def _g_parts(problem: FederatedProblem, w: np.ndarray, q: float, c: np.ndarray,
             hess: bool, unit: float = 1.0) -> tuple[float, np.ndarray, np.ndarray | None]:
    """``g = sum c F^{q+1}``, its gradient ``(q+1) sum c F^q gradF`` and Hessian, for the losses in units
    of ``unit`` (``F/unit``: same minimiser; keeps ``F^{q+1}`` and the gradient norms of losses ~1e100
    inside the float range)."""
    F = np.asarray(problem.losses(w), dtype=np.float64) / unit
    if np.any(F < 0):
        raise FairtheoryValueError(f"q-FFL needs nonnegative client losses, got min {F.min() * unit!r}")
    J = np.asarray(problem.grads(w), dtype=np.float64) / unit
    val = float(c @ F ** (q + 1.0))
    grad = (q + 1.0) * (c * F**q) @ J
    if not hess:
        return val, grad, None
    Hs = np.asarray(problem.hessians(w), dtype=np.float64) / unit
    Fs = np.where(F == 0.0, 1.0, F)
    coef = np.where(F == 0.0, 0.0, (q + 1.0) * q * Fs ** (q - 1.0)) * c if q > 0 else np.zeros_like(F)
    H = np.einsum("n,ni,nj->ij", coef, J, J) + np.einsum("n,nij->ij", (q + 1.0) * c * F**q, Hs)
    return val, grad, H


def _grad_scale(problem: FederatedProblem, w: np.ndarray, q: float, c: np.ndarray, unit: float = 1.0) -> float:
    """``(q+1) sum_k c_k F_k^q ||grad F_k||`` (the scale of the gradient of ``g``), losses in units of ``unit``."""
    F = np.maximum(np.asarray(problem.losses(w), dtype=np.float64) / unit, 0.0)
    J = np.asarray(problem.grads(w), dtype=np.float64) / unit
    return float((q + 1.0) * (c * F**q) @ _norms(J))


def _norms(J: np.ndarray) -> np.ndarray:
    """Row norms without overflow of the squares (hypot-style scaling by the largest entry of each row)."""
    m = np.max(np.abs(J), axis=-1, keepdims=True) if J.size else np.zeros(J.shape[:-1] + (1,))
    m = np.where(m > 0, m, 1.0)
    return (m[..., 0] * np.linalg.norm(J / m, axis=-1)) if J.ndim > 1 else float(m[0] * np.linalg.norm(J / m))


def newton_polish(problem: FederatedProblem, w: Any, q: float, *, weights: Any = None,
                  max_steps: int = 20, gtol: float = 1e-14, unit: float | None = None
                  ) -> tuple[np.ndarray, dict[str, float]]:
    """Damped Newton on ``g(w) = sum_k c_k F_k(w)^{q+1}`` from ``w`` (``c = p`` unless ``weights``).

    Returns ``(w, info)``; ``info`` has ``steps``, ``grad_norm_start`` and ``grad_norm`` (of ``g``;
    ``+inf`` where the true norm exceeds the float range) and ``grad_norm_unit`` (of ``g`` for the losses
    in units of ``unit``: ``grad_norm / unit^{q+1}``; ``unit`` defaults to the exact solvers' loss unit,
    1 for losses of order one).  Newton runs in those units (the same iterates; no overflow of
    ``F^{q+1}`` for losses ~1e100).  A step is kept only if it does not increase ``g`` (backtracking
    halves it up to 40 times)."""
    _check_problem(problem)
    q = check_in_range(q, "q", low=0.0)
    max_steps = check_integer(max_steps, "max_steps", low=0)
    gtol = check_in_range(gtol, "gtol", low=0.0)
    if weights is None:
        c = problem.p
    else:
        c = as_vector(weights, "weights")
        if c.shape != (problem.n,) or np.any(c < 0):
            raise FairtheoryValueError(f"weights must be {problem.n} nonnegative numbers (one per client), got {c!r}")
    u = _unit(problem) if unit is None else check_positive(unit, "unit")
    w = np.array(to_numpy(problem.as_model(w, "w")), dtype=np.float64)
    val, grad, H = _g_parts(problem, w, q, c, True, u)
    g0 = float(_norms(grad))
    steps = 0
    for _ in range(max_steps):
        gn = float(_norms(grad))
        # scale-aware stop: max(1, |g|) for ordinary losses, proportional to the gradients' scale
        # (q+1) sum c F^q |grad F| when the losses are tiny
        if gn <= gtol * max(abs(val), min(1.0, _grad_scale(problem, w, q, c, u))):
            break
        if H is None:  # pragma: no cover - _g_parts(..., True) always returns a Hessian
            break
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        t, accepted = 1.0, False
        for _ in range(40):
            w_new = w - t * step
            v_new, g_new, H_new = _g_parts(problem, w_new, q, c, True, u)
            if v_new < val or (v_new <= val + 4e-16 * abs(val) and _norms(g_new) < gn):
                accepted = True
                break
            t *= 0.5
        if not accepted:
            break
        w, val, grad, H = w_new, v_new, g_new, H_new
        steps += 1
    gu = float(_norms(grad))
    with np.errstate(over="ignore"):
        back = u ** (q + 1.0)
    return w, {"steps": float(steps), "grad_norm_start": g0 * back, "grad_norm": gu * back, "grad_norm_unit": gu}


#: the attempts of the default solve, in order: Clarabel's defaults (the setting this model was validated
#: with), then the settings that rescue an ``optimal_inaccurate`` end (as for the RC-FL solvers)
QFFL_CASCADE: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("defaults", "CLARABEL", {}),
    ("step0.9", "CLARABEL", {"max_step_fraction": 0.9, "max_iter": 800}),
    ("no-equilibration", "CLARABEL", {"equilibrate_enable": False}),
    ("tight", "CLARABEL", TIGHT),
)
#: default bound on the scale-free stationarity measure ``grad_rel`` of the returned point
DEFAULT_GRAD_TOL = 1e-7


def solve_qffl(problem: FederatedProblem, q: float, *, form: str = "weighted", solver: str = "CLARABEL",
               polish: bool = True, max_polish_d: int = 400, grad_tol: float = DEFAULT_GRAD_TOL,
               **solver_kwargs: Any) -> ExactResult:
    r"""Exact minimiser of q-FFL (003 eq. 2 / eq. 22 / App. A.1) by the p-norm route.

    Parameters
    ----------
    problem : a :class:`FederatedProblem` with convex, nonnegative client losses and ``cvxpy_losses``.
    q : ``q >= 0``.
    form : ``"weighted"`` (``c = p``) or ``"unweighted"``/``"root"`` (``c = 1/m``).
    solver : cvxpy solver.  With the default (Clarabel, no ``solver_kwargs``) the settings of
        :data:`QFFL_CASCADE` are tried in order until one ends ``optimal``; an explicit solver or
        settings are tried alone.
    polish : Newton-polish the solver's point (needs ``problem.hessians``; skipped when
        ``d > max_polish_d``).
    grad_tol : the returned point must satisfy ``grad_rel <= grad_tol`` (below).

    Returns
    -------
    ExactResult with ``value`` = the objective in the requested ``form`` at ``argmin``, ``argmin`` =
    ``w*_q``, ``extra["losses"]`` = ``F(w*_q)``, ``extra["solver_value"]`` (the form's value from the
    solver's optimal norm) and ``certificate`` = ``{"grad_norm_solver", "grad_norm", "newton_steps"}``
    (gradient norms of the weighted ``f_q`` with weights ``c``, i.e. ``||sum c F^q grad F||``;
    ``grad_rel`` divides it by ``sum c F^q ||grad F||``, a scale-free measure of stationarity).
    ``status`` is ``"optimal"``, or ``"optimal_inaccurate (certified)"`` when every attempt ended
    ``optimal_inaccurate`` and the best one (smallest objective) passed the certificate.

    Raises
    ------
    SolverError when no attempt ends ``optimal`` or ``optimal_inaccurate``, or when the returned point
    fails the certificate ``grad_rel <= grad_tol``.
    """
    import cvxpy as cp

    _check_problem(problem)
    q = check_in_range(q, "q", low=0.0)
    if not isinstance(form, str) or form not in FORMS:
        raise FairtheoryValueError(f"form must be one of {FORMS}, got {form!r}")
    if not isinstance(solver, str):
        raise FairtheoryTypeError(f"solver must be a cvxpy solver name (a string), got {solver!r}")
    max_polish_d = check_integer(max_polish_d, "max_polish_d", low=0)
    grad_tol = check_positive(grad_tol, "grad_tol")
    c = _weights(problem, form)
    r = q + 1.0
    what = f"q-FFL (q={q}, form={form})"
    unit = _unit(problem)  # losses of order 1e-12 or 1e12 are solved in units of the losses (same minimiser)
    w = _model_variable(problem)  # r z for quadratic centres far from order one (same minimiser)
    t = cp.Variable(problem.n, nonneg=True)
    if isinstance(problem, QuadraticProblem):  # the stacked, unit-scaled form of the RC-FL solvers
        fvec, _ = _loss_vector(problem, w, unit)
        cons = [fvec <= t]
    else:
        F = problem.cvxpy_losses(w)
        cons = [(F[k] if unit == 1.0 else F[k] / unit) <= t[k] for k in range(problem.n)]
    objective = cp.pnorm(cp.multiply(c ** (1.0 / r), t), r) if r > 1 else c @ t
    prob = cp.Problem(cp.Minimize(objective), cons)
    if solver.upper() == "CLARABEL" and not solver_kwargs:
        attempts = QFFL_CASCADE
    else:
        attempts = (("given", solver, dict(solver_kwargs)),)

    def score() -> float:  # sum c F^{q+1} at the attempt's model (smaller is better)
        Fw = np.asarray(problem.losses(np.asarray(w.value, dtype=np.float64)), dtype=np.float64)
        return float(c @ np.maximum(Fw, 0.0) ** r)

    norm_val, label, status = _solve(prob, what, score, attempts)
    if w.value is None:
        raise SolverError(what, label, "no primal value")
    w0 = np.asarray(w.value, dtype=np.float64)
    with np.errstate(over="ignore"):
        back = unit ** r  # gradient norms are computed for the losses in units of `unit`, reported in the caller's
    _, grad0, _ = _g_parts(problem, w0, q, c, False, unit)
    gn_solver_u = float(_norms(grad0)) / r
    w_best, info = w0, {"steps": 0.0, "grad_norm_unit": gn_solver_u * r}
    polished = False
    if polish and problem.d <= max_polish_d:
        try:
            w_best, info = newton_polish(problem, w0, q, weights=c, unit=unit)
            polished = True
        except (NotImplementedError, AttributeError):
            pass
    Fw = np.asarray(problem.losses(w_best), dtype=np.float64)
    scale = _grad_scale(problem, w_best, q, c, unit) / r
    grad_rel = float(info["grad_norm_unit"]) / r / scale if scale > 0 else 0.0
    value = float(qffl_value(Fw, q, problem.p if form == "weighted" else None, form=form))
    # F >= 0, so 0 <= min f_q <= value: a point whose every loss is within grad_tol of the loss unit is
    # certified by that lower bound (losses with a zero minimum - least squares that interpolate - make
    # grad_rel a ratio of vanishing terms that need not vanish)
    near_zero = float(np.max(Fw)) <= grad_tol * min(1.0, unit)
    # the certificate binds every polished point and every point of an optimal_inaccurate solve; an
    # unpolished optimal point keeps the solver's own accuracy (grad_rel ~1e-7..1e-4 measured)
    if not np.isfinite(value) or ((polished or status != "optimal") and not (grad_rel <= grad_tol or near_zero)):
        raise SolverError(what, label, f"uncertified ({status}): relative gradient norm {grad_rel:.3g} > "
                                       f"grad_tol = {grad_tol:.3g} at the returned point")
    with np.errstate(over="ignore"):
        gn_solver, gn_final = gn_solver_u * back, float(info["grad_norm_unit"]) / r * back
    s = (unit * max(norm_val, 0.0)) ** r  # sum c t^{q+1}
    solver_value = s / r if form == "weighted" else (s if form == "unweighted" else s ** (1.0 / r))
    return ExactResult(
        value=value, argmin=w_best, weights=None, solver=label, status=_status(status),
        certificate={"grad_norm_solver": gn_solver, "grad_norm": gn_final,
                     "grad_rel": grad_rel, "newton_steps": float(info["steps"]), "max_loss": float(np.max(Fw))},
        extra={"losses": Fw, "solver_value": float(solver_value), "q": q, "form": form},
    )
