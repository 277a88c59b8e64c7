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
``optimal_inaccurate`` solve (else :class:`SolverError`, status ``uncertified``).
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
from fairtheory.exact.rcfl import TIGHT, _check_problem, _solve, _status, _unit
from fairtheory.exact.result import ExactResult, SolverError
from fairtheory.objectives.qffl import FORMS, qffl_value
from fairtheory.problems.base import FederatedProblem

__all__ = ["solve_qffl", "newton_polish", "QFFL_CASCADE", "DEFAULT_GRAD_TOL"]


def _weights(problem: FederatedProblem, form: str) -> np.ndarray:
    return problem.p.copy() if form == "weighted" else np.full(problem.n, 1.0 / problem.n)


def _g_parts(problem: FederatedProblem, w: np.ndarray, q: float, c: np.ndarray,
             hess: bool) -> tuple[float, np.ndarray, np.ndarray | None]:
    """``g = sum c F^{q+1}``, its gradient ``(q+1) sum c F^q gradF`` and Hessian."""
    F = np.asarray(problem.losses(w), dtype=np.float64)
    if np.any(F < 0):
        raise FairtheoryValueError(f"q-FFL needs nonnegative client losses, got min {F.min()!r}")
    J = np.asarray(problem.grads(w), dtype=np.float64)
    val = float(c @ F ** (q + 1.0))
    grad = (q + 1.0) * (c * F**q) @ J
    if not hess:
        return val, grad, None
    Hs = np.asarray(problem.hessians(w), dtype=np.float64)
    Fs = np.where(F == 0.0, 1.0, F)
    coef = np.where(F == 0.0, 0.0, (q + 1.0) * q * Fs ** (q - 1.0)) * c if q > 0 else np.zeros_like(F)
    H = np.einsum("n,ni,nj->ij", coef, J, J) + np.einsum("n,nij->ij", (q + 1.0) * c * F**q, Hs)
    return val, grad, H


def _grad_scale(problem: FederatedProblem, w: np.ndarray, q: float, c: np.ndarray) -> float:
    """``(q+1) sum_k c_k F_k^q ||grad F_k||`` (the scale of the gradient of ``g``)."""
    F = np.maximum(np.asarray(problem.losses(w), dtype=np.float64), 0.0)
    J = np.asarray(problem.grads(w), dtype=np.float64)
    return float((q + 1.0) * (c * F**q) @ np.linalg.norm(J, axis=1))


def newton_polish(problem: FederatedProblem, w: Any, q: float, *, weights: Any = None,
                  max_steps: int = 20, gtol: float = 1e-14) -> tuple[np.ndarray, dict[str, float]]:
    """Damped Newton on ``g(w) = sum_k c_k F_k(w)^{q+1}`` from ``w`` (``c = p`` unless ``weights``).

    Returns ``(w, info)``; ``info`` has ``steps``, ``grad_norm_start`` and ``grad_norm`` (of ``g``).
    A step is kept only if it does not increase ``g`` (backtracking halves it up to 40 times)."""
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
    w = np.array(to_numpy(problem.as_model(w, "w")), dtype=np.float64)
    val, grad, H = _g_parts(problem, w, q, c, True)
    g0 = float(np.linalg.norm(grad))
    steps = 0
    for _ in range(max_steps):
        gn = float(np.linalg.norm(grad))
        # scale-aware stop: max(1, |g|) for ordinary losses, proportional to the gradients' scale
        # (q+1) sum c F^q |grad F| when the losses are tiny
        if gn <= gtol * max(abs(val), min(1.0, _grad_scale(problem, w, q, c))):
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
            v_new, g_new, H_new = _g_parts(problem, w_new, q, c, True)
            if v_new < val or (v_new <= val + 4e-16 * abs(val) and np.linalg.norm(g_new) < gn):
                accepted = True
                break
            t *= 0.5
        if not accepted:
            break
        w, val, grad, H = w_new, v_new, g_new, H_new
        steps += 1
    return w, {"steps": float(steps), "grad_norm_start": g0, "grad_norm": float(np.linalg.norm(grad))}


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
    w = cp.Variable(problem.d)
    t = cp.Variable(problem.n, nonneg=True)
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
    _, grad0, _ = _g_parts(problem, w0, q, c, False)
    gn_solver = float(np.linalg.norm(grad0)) / r
    w_best, info = w0, {"steps": 0.0, "grad_norm": gn_solver * r}
    polished = False
    if polish and problem.d <= max_polish_d:
        try:
            w_best, info = newton_polish(problem, w0, q, weights=c)
            polished = True
        except (NotImplementedError, AttributeError):
            pass
    Fw = np.asarray(problem.losses(w_best), dtype=np.float64)
    J = np.asarray(problem.grads(w_best), dtype=np.float64)
    scale = float((c * Fw**q) @ np.linalg.norm(J, axis=1))
    grad_rel = float(info["grad_norm"]) / r / scale if scale > 0 else 0.0
    value = float(qffl_value(Fw, q, problem.p if form == "weighted" else None, form=form))
    # the certificate binds every polished point and every point of an optimal_inaccurate solve; an
    # unpolished optimal point keeps the solver's own accuracy (grad_rel ~1e-7..1e-4 measured)
    if not np.isfinite(value) or ((polished or status != "optimal") and not grad_rel <= grad_tol):
        raise SolverError(what, label, f"uncertified ({status}): relative gradient norm {grad_rel:.3g} > "
                                       f"grad_tol = {grad_tol:.3g} at the returned point")
    s = (unit * max(norm_val, 0.0)) ** r  # sum c t^{q+1}
    solver_value = s / r if form == "weighted" else (s if form == "unweighted" else s ** (1.0 / r))
    return ExactResult(
        value=value, argmin=w_best, weights=None, solver=label, status=_status(status),
        certificate={"grad_norm_solver": gn_solver, "grad_norm": float(info["grad_norm"]) / r,
                     "grad_rel": grad_rel, "newton_steps": float(info["steps"])},
        extra={"losses": Fw, "solver_value": float(solver_value), "q": q, "form": form},
    )
