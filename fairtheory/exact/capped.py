r"""cvxpy twins of the capped-simplex closed forms (``docs/exact.md`` Sec. 1): the ground truth they are
checked against.

Every function builds an explicit LP or QP, solves it, raises :class:`SolverError` unless the status
is ``optimal`` and returns an :class:`ExactResult` with a *certificate*: a bound from weak duality
evaluated at the solver's own multiplier.  The LPs are solved on normalised data (the losses mapped
affinely to ``[-1, 1]``, exact because members of the sets sum to one) and their value is accepted only
when the certified gap is at most ``1e-9 |value| + 1e-11 max |v|`` (the second term is the resolution
of an LP whose feasibility tolerance is ``1e-10``): a wrong ``optimal`` raises instead of being returned.

* LPs use **HiGHS** on purpose.  Measured on this project's machine (``docs/exact.md`` Sec. 4):
  Clarabel, cvxpy's default for LPs, returned ``optimal`` with relative error ``1e-6`` at
  ``n = 1e4``, failed at ``1e5`` and at ``1e6`` returned a value off by up to 35% after hitting its
  iteration limit; HiGHS agrees with the closed forms to ``~1e-8`` up to ``n = 1e6``.
* The projection QP uses **Clarabel** with tolerances ``1e-10`` (fallbacks in :func:`project_qp`)
  and is certified by the Lagrangian
  dual bound ``d(s) = min_{0 <= lam <= u} 0.5||lam - v||^2 + s (sum lam - 1)`` (attained at
  ``lam = clip(v - s, 0, u)``), so ``0.5||lam_qp - v||^2 - d(s) >= 0`` is a certified gap.

Weak-duality certificates used for the LPs (``h_u(eta) >= max_{lam in S(u)} lam . v`` for every
real ``eta``, 002 Lemma 1):

.. math:: h_u(\eta) = \eta + \sum_i u_i (v_i - \eta)_+ .

Sign conventions of cvxpy's equality multipliers differ between ``maximize`` and ``minimize``; every
``eta`` gives a valid bound, so the certificate takes the better of ``+eta`` and ``-eta``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_alpha,
    check_probability_vector,
)
from fairtheory.exact.result import ExactResult, SolverError, solve_checked
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = [
    "support_lp",
    "lower_lp",
    "argmax_lp",
    "project_qp",
    "qalpha_sup_lp",
    "qalpha_dual_lp",
    "integrated_support_lp",
    "LP_SOLVER",
    "QP_SOLVER",
]

#: LP solver (see the module docstring for why not Clarabel)
LP_SOLVER = "HIGHS"
#: QP solver for the Euclidean projection
QP_SOLVER = "CLARABEL"
#: HiGHS presolve is the bottleneck on these one-row LPs (n = 1e5: 134 s with presolve, 2.4 s without,
#: same answer to 1e-14 on this machine); box constraints are passed as variable bounds for the same reason
_HIGHS_OPTS: dict[str, Any] = {"highs_options": {"presolve": "off", "primal_feasibility_tolerance": 1e-10,
                                                "dual_feasibility_tolerance": 1e-10}}
#: an LP's value is accepted when its certified gap is at most ``GAP_RTOL |value| + GAP_DATA max |v|``
GAP_RTOL = 1e-9
GAP_DATA = 1e-11
_CLARABEL_OPTS: dict[str, Any] = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10,
                                  "max_iter": 500}


# -------------------------------------------------------------------- helpers
_HIGHS_BANNER_DONE = False


def _quiet_highs() -> None:
    """Create the process's first ``highspy.Highs`` with file descriptor 1 sent to ``/dev/null``: HiGHS
    prints its copyright banner to the C-level stdout once per process, whatever ``output_flag`` says,
    which put two lines on the console of every program that used an LP twin (no print in library code)."""
    global _HIGHS_BANNER_DONE
    if _HIGHS_BANNER_DONE:
        return
    _HIGHS_BANNER_DONE = True
    import os
    import sys

    try:
        import highspy
    except ImportError:  # pragma: no cover - cvxpy reports the missing solver itself
        return
    try:
        sys.stdout.flush()
        saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):  # no file descriptor 1 to redirect
        return
    try:
        os.dup2(null, 1)
        highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def _solve_highs(prob: Any, what: str) -> float:
    """:func:`solve_checked` with HiGHS and :data:`_HIGHS_OPTS`, its banner kept off the console."""
    _quiet_highs()
    return solve_checked(prob, what, LP_SOLVER, **_HIGHS_OPTS)


def _check_set(S: Any, name: str = "S") -> CappedSimplex:
    if not isinstance(S, CappedSimplex):
        raise FairtheoryTypeError(f"{name} must be a CappedSimplex, got {type(S).__name__}")
    return S


def _check_vec(v: Any, n: int, name: str = "v") -> np.ndarray:
    x = as_vector(v, name)
    if x.shape != (n,):
        raise FairtheoryValueError(f"{name} must have shape ({n},), got {x.shape}")
    return x


def _normalisations(v: np.ndarray) -> list[tuple[float, float]]:
    """Affine maps ``v = c + s v'`` tried in order for the LPs over sets whose members sum to one.

    First ``c`` = midrange and ``s`` = half the range of ``v`` (``v'`` in ``[-1, 1]``): HiGHS' absolute
    tolerances (``1e-10``) then act relative to the data, which matters for tiny losses - unscaled, the
    LPs reported ``optimal`` while 6-41% wrong for losses of order ``1e-10``.  Then the data unscaled:
    with a huge loss on a tiny cap the normalised objective is ``~1e-7`` and HiGHS stopped ``9e-7``
    (absolute, normalised units) below the optimum, which the raw form avoids.  The first solution
    whose certificate passes (:data:`GAP_RTOL`) is returned; if none does, :class:`SolverError`."""
    lo, hi = float(v.min()), float(v.max())
    c, s = 0.5 * lo + 0.5 * hi, 0.5 * hi - 0.5 * lo
    out = [(c, s)] if s > 0 and np.isfinite(s) else [(c, 1.0)]
    if out[0] != (0.0, 1.0):
        out.append((0.0, 1.0))
    return out


def _gap_ok(gap: float, data: np.ndarray, *vals: float) -> bool:
    """A certified gap is at most :data:`GAP_RTOL` relative to the values it brackets plus
    :data:`GAP_DATA` relative to the data's magnitude (an LP with feasibility tolerance ``1e-10`` on
    ``sum lam = 1`` cannot resolve the value more finely than a small multiple of ``1e-10 max |v|``;
    seen: ``4e-7`` at ``max |v| = 9e5``, value 377)."""
    allowed = GAP_RTOL * max([abs(x) for x in vals] + [0.0]) + GAP_DATA * float(np.max(np.abs(data))) + 1e-300
    return -allowed <= gap <= allowed


def _h(caps: np.ndarray, v: np.ndarray, eta: float) -> float:
    """``eta + sum_i u_i (v_i - eta)_+``: an upper bound on ``max_{lam in S(u)} lam . v`` for any eta."""
    return float(eta + caps @ np.maximum(v - eta, 0.0))


def _times(x: Any, c: float) -> float | None:
    return None if x is None else float(np.squeeze(x)) * c


def _dual_bound(caps: np.ndarray, v: np.ndarray, eta: Any, *, shift: float = 0.0, scale: float = 1.0) -> float:
    """Best of ``h_u`` at ``c + s eta``, ``c - s eta`` and ``c`` (all valid upper bounds; ``eta`` is the
    multiplier of the LP solved on ``v' = (v - c)/s`` and may be None)."""
    cands = [shift]
    if eta is not None and np.isfinite(float(np.squeeze(eta))):
        e = float(np.squeeze(eta))
        cands += [shift + scale * e, shift - scale * e]
    return min(_h(caps, v, c) for c in cands)


def _infeasibility(lam: np.ndarray, caps: np.ndarray) -> float:
    """Largest violation of ``lam >= 0``, ``lam <= caps``, ``sum lam = 1``."""
    return float(max(0.0, -lam.min(), (lam - caps).max(), abs(lam.sum() - 1.0)))


def _box_variable(caps: np.ndarray) -> Any:
    """A cvxpy variable with bounds ``0 <= lam <= caps`` (variable bounds, not constraint rows)."""
    import cvxpy as cp

    return cp.Variable(caps.size, bounds=[np.zeros(caps.size), np.asarray(caps, dtype=np.float64)])


def _support_lp(S: CappedSimplex, v: np.ndarray, what: str) -> ExactResult:
    import cvxpy as cp

    tried = []
    for c, sc in _normalisations(v):
        lam = _box_variable(S.caps)
        cons = [cp.sum(lam) == 1]
        prob = cp.Problem(cp.Maximize(((v - c) / sc) @ lam), cons)
        val = c + sc * _solve_highs(prob, what)
        w = np.asarray(lam.value, dtype=np.float64)
        bound = _dual_bound(S.caps, v, _times(cons[0].dual_value, 1.0), shift=c, scale=sc)
        cert = {"dual_bound": bound, "gap": bound - val, "primal_infeasibility": _infeasibility(w, S.caps),
                "weights_value": float(w @ v), "normalisation": (c, sc)}
        if _gap_ok(bound - val, v, val, bound):
            return ExactResult(value=val, weights=w, solver=LP_SOLVER, status=str(prob.status), certificate=cert)
        tried.append(f"gap {bound - val:.3g} at value {val:.6g} (shift {c:.3g}, scale {sc:.3g})")
    raise SolverError(what, LP_SOLVER, "uncertified: " + "; ".join(tried))


# -------------------------------------------------------------------- capped simplex
def support_lp(S: CappedSimplex, v: Any) -> ExactResult:
    r"""``max_{lam in S(u)} lam . v`` as an LP (HiGHS): twin of :meth:`CappedSimplex.support`.

    ``weights`` is the LP's maximiser (a vertex; with ties it may differ from
    :meth:`CappedSimplex.argmax`, the value may not).  ``certificate``: ``dual_bound`` =
    ``h_u(eta)`` at the multiplier of ``sum lam = 1``, ``gap = dual_bound - value`` (``>= 0`` up to
    rounding), ``primal_infeasibility`` of the weights and ``weights_value = weights . v``.
    """
    S = _check_set(S)
    x = _check_vec(v, S.n)
    return _support_lp(S, x, "support LP over a capped simplex")


def argmax_lp(S: CappedSimplex, v: Any) -> ExactResult:
    """Same LP as :func:`support_lp`; named for call sites that want the maximising weights."""
    return support_lp(S, v)


def lower_lp(S: CappedSimplex, v: Any) -> ExactResult:
    r"""``min_{lam in S(u)} lam . v`` as an LP (HiGHS), solved as ``-max lam . (-v)``.

    ``weights`` is a minimiser; the certificate's ``dual_bound`` is a lower bound on the minimum."""
    S = _check_set(S)
    x = _check_vec(v, S.n)
    r = _support_lp(S, -x, "lower LP over a capped simplex")
    cert = dict(r.certificate)
    cert["dual_bound"] = -cert["dual_bound"]
    cert["weights_value"] = -cert["weights_value"]
    return ExactResult(value=-r.value, weights=r.weights, solver=r.solver, status=r.status, certificate=cert)


def project_qp(S: CappedSimplex, v: Any) -> ExactResult:
    r"""Euclidean projection ``argmin_{lam in S(u)} 0.5 ||lam - v||^2`` as a QP (Clarabel, tol ``1e-10``).

    **Reduction to data in** ``[-u_max, u_max]`` (exact; the projection is not scale-invariant, so the
    data cannot simply be divided by its magnitude).  The projection is ``lam_i = clip(v_i - s, 0, u_i)``
    for a root ``s`` of the nonincreasing ``g(s) = sum_i clip(v_i - s, 0, u_i) = 1``.  Sort ``v``
    descending and let ``m`` be the first position where the caps of the top ``m`` entries sum to at
    least one, ``b = v_(m)`` (the pivot), ``u_max = max_i u_i``.  At ``s = b - u_max`` each of the top
    ``m`` entries has ``v_(j) - s >= u_max``, so ``g >= 1``; at ``s = b`` only the ``< m`` entries
    above ``b`` contribute, so ``g < 1``: a root lies in ``[b - u_max, b)``.  Entries ``v_i <= b - u_max``
    get ``0`` and entries ``v_i >= b + u_max`` get ``u_i`` for every ``s`` in that bracket, so replacing
    ``v`` by ``d = clip(v - b, -2 u_max, 2 u_max)`` (and shifting by ``b``, which only adds a constant on
    the set: members sum to one) changes neither ``g`` on the bracket nor the projection; the factor 2
    keeps a clipped entry ``u_max`` away from its bound, so the QP stays strictly complementary there
    (clipping at ``u_max`` itself put such entries exactly on the threshold and left interior-point
    weights ``1.6e-6`` off zero).  The QP
    ``min 0.5||lam||^2 - d . lam`` over ``S`` is then solved with data of order ``u_max <= 1`` whatever
    the magnitude of ``v`` (``1e300`` failed in every solver before, ``1e-300`` lost all digits).  If
    Clarabel does not end ``optimal`` it is re-run with static regularisation ``1e-12``, then HiGHS'
    active-set QP solver, then OSQP (polished, ``1e-10``) are tried; the configuration that succeeded is
    ``extra["attempt"]``; if none ends ``optimal``, :class:`SolverError` is raised.  Solver warnings
    (OSQP's option deprecations) are not passed on.

    ``weights`` is the projection; ``value = 0.5||lam - v||^2`` in the units of ``v``, evaluated with
    scaling (``+inf`` exactly when the true value exceeds the float64 range, e.g. ``v ~ 1e300``: the
    weights are then the answer).  Certificate on the reduced problem (same minimiser): the dual bound
    ``d(s) = min_{0 <= lam <= u} 0.5||lam - d||^2 + s (sum lam - 1)`` at the multiplier ``s`` of
    ``sum lam = 1`` (either sign; every ``s`` gives a lower bound), ``gap = 0.5||lam - d||^2 - d(s)``,
    evaluated as ``0.5||lam - z||^2 + |(lam - z) * (z - d + s)|_1 + |s| |1 - sum lam|`` with ``z = clip(d - s,
    0, u)`` (for feasible ``lam`` the same sum of nonnegative terms; no cancellation, so the gap is not
    lost in the rounding of two values of order one, and the interior point's infeasibility ``~1e-15``
    counts against it instead of making it negative); by 1-strong convexity
    ``||lam - lam*||_2 <= sqrt(2 gap)``.
    ``extra["pivot"] = b``.

    Note: an interior-point solver's *weights* are only accurate to about the square root of its
    tolerance (the objective is flat at the optimum; on ``u = (0.5, 0.82)``, ``v ~ 1e-3`` Clarabel
    reported ``optimal`` with weights ``6e-8`` off and objective ``2e-14`` above the closed form's).
    Compare objective values, or weights against ``sqrt(2 gap)``.
    """
    import warnings

    import cvxpy as cp

    S = _check_set(S)
    x = _check_vec(v, S.n)
    pivot, d = _reduce_projection(x, S.caps)
    attempts = [("CLARABEL", _CLARABEL_OPTS, "clarabel"),
                ("CLARABEL", {**_CLARABEL_OPTS, "static_regularization_constant": 1e-12}, "clarabel-reg"),
                ("HIGHS", _HIGHS_OPTS, "highs-qp"),
                ("OSQP", _osqp_opts(), "osqp-polished")]
    last: SolverError | None = None
    for solver, opts, label in attempts:  # noqa: B007 - the one that succeeded is reported
        lam = cp.Variable(S.n)
        cons = S.cvxpy_constraints(lam)
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(lam) - d @ lam), cons)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # solver deprecations and chatter are not the caller's
                if solver == "HIGHS":
                    _quiet_highs()
                solve_checked(prob, "projection QP onto a capped simplex", solver, **opts)
        except SolverError as exc:
            last = exc
            continue
        break
    else:
        assert last is not None
        raise last
    w = np.asarray(lam.value, dtype=np.float64)
    with np.errstate(over="ignore"):
        diff = w - x
        sc = float(np.max(np.abs(diff)))
        val = 0.0 if sc == 0.0 else 0.5 * sc * sc * float(np.sum((diff / sc) ** 2)) if np.isfinite(sc) else np.inf

    def dual(s: float) -> float:
        z = np.clip(d - s, 0.0, S.caps)
        return float(0.5 * np.sum((z - d) ** 2) + s * (z.sum() - 1.0))

    def gap(s: float) -> float:
        # 0.5||w - d||^2 - dual(s) without cancellation: with z = clip(d - s, 0, u) and the KKT residual
        # r = z - (d - s) (>= 0 where z = 0, <= 0 where z = u, 0 between) it is
        # 0.5||w - z||^2 + (w - z) . r + s (1 - sum w), a sum of terms >= 0 for feasible w; the terms an
        # interior point's infeasibility (~1e-15) makes negative are counted in absolute value, so the gap
        # (and the radius sqrt(2 gap)) never drops below what the point's own residuals allow
        z = np.clip(d - s, 0.0, S.caps)
        return float(0.5 * np.sum((w - z) ** 2) + np.sum(np.abs((w - z) * (z - (d - s))))
                     + abs(s) * abs(1.0 - w.sum()))

    eta = cons[2].dual_value
    s_mult = float(np.squeeze(eta)) if eta is not None else 0.0
    s_best = s_mult if gap(s_mult) <= gap(-s_mult) else -s_mult
    cert = {"dual_bound": dual(s_best), "gap": gap(s_best), "primal_infeasibility": _infeasibility(w, S.caps)}
    return ExactResult(value=val, weights=w, solver=solver, status=str(prob.status), certificate=cert,
                       extra={"attempt": label, "pivot": pivot})


def _reduce_projection(x: np.ndarray, caps: np.ndarray) -> tuple[float, np.ndarray]:
    """``(b, clip(x - b, -2 u_max, 2 u_max))``: the pivot and the reduced data of :func:`project_qp`."""
    order = np.argsort(-x, kind="stable")
    reach = np.flatnonzero(np.cumsum(caps[order]) >= 1.0)
    m = int(reach[0]) if reach.size else x.size - 1  # sum(caps) an ulp below one: the set is {caps}
    pivot = float(x[order[m]])
    span = 2.0 * float(caps.max())  # twice the bracket: clipped entries keep a margin u_max from it
    with np.errstate(over="ignore"):  # x - b = +-inf beyond the float range is clipped like any large value
        return pivot, np.clip(x - pivot, -span, span)


def _osqp_opts() -> dict[str, Any]:
    """OSQP settings ``1e-10``, polished: ``polishing`` since osqp 1.0 (``polish`` is deprecated there)."""
    try:
        import osqp

        major = int(str(osqp.__version__).split(".")[0])
    except (ImportError, ValueError, AttributeError):
        major = 1
    key = "polishing" if major >= 1 else "polish"
    return {"eps_abs": 1e-10, "eps_rel": 1e-10, key: True, "max_iter": 200000}


# -------------------------------------------------------------------- Q_alpha (002 Def. 1, Lemma 1)
def _qalpha_args(losses: Any, p: Any, alpha: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pv = check_probability_vector(p, "p")
    f = as_vector(losses, "losses")
    if f.shape != pv.shape:
        raise FairtheoryValueError(f"losses and p must have the same shape, got {f.shape} and {pv.shape}")
    if isinstance(alpha, (bool, np.bool_, str, bytes)) or alpha is None:  # float(True), float("0.5") would pass
        raise FairtheoryTypeError(f"alpha must be a number or a vector of numbers, got {alpha!r}")
    a = check_alpha(alpha, pv, "alpha")
    return f, pv, a


def qalpha_sup_lp(losses: Any, p: Any, alpha: Any) -> ExactResult:
    r"""``f_alpha = sup_{q in Q_alpha} sum_i q_i p_i f_i`` with
    ``Q_alpha = {q : sum_i q_i p_i = 1, 0 <= q_i <= 1/alpha_i}`` (002 Def. 1, eq. 1) as an LP (HiGHS).

    Solved in weight coordinates ``lam_i = p_i q_i`` (``0 <= lam_i <= p_i/alpha_i``, ``sum lam = 1``),
    built here from ``p`` and ``alpha`` directly (not through :class:`CappedSimplex`), so it checks
    the closed form :meth:`CappedSimplex.qalpha` ``(...).support`` independently.

    Why not the paper's ``q`` coordinates: with weight ratios ``p_max/p_min ~ 1e12`` that LP is badly
    scaled (bounds ``1/alpha_i`` up to ``1e12``, coefficients ``p_i f_i`` near ``1e-12``) and HiGHS
    returned status ``optimal`` with value ``1.44e6`` for losses whose maximum is ``7.4e5`` (an
    impossible value; found by the Hypothesis instances of ``rcfl.qalpha.closed_form``).  The
    ``lam`` form has bounds in ``[0, 1]``.

    ``weights = lam``, ``extra = {"q": lam/p}`` (``q_i = 0`` where ``p_i = 0``); certificate as in
    :func:`support_lp` with caps ``p/alpha``.
    """
    import cvxpy as cp

    f, pv, a = _qalpha_args(losses, p, alpha)
    caps = np.minimum(pv / a, 1.0)
    what = "Q_alpha supremum LP (002 Def. 1)"
    tried = []
    for c, sc in _normalisations(f):
        lam = _box_variable(caps)
        cons = [cp.sum(lam) == 1]
        prob = cp.Problem(cp.Maximize(((f - c) / sc) @ lam), cons)
        val = c + sc * _solve_highs(prob, what)
        w = np.asarray(lam.value, dtype=np.float64)
        bound = _dual_bound(caps, f, _times(cons[0].dual_value, 1.0), shift=c, scale=sc)
        if _gap_ok(bound - val, f, val, bound):
            cert = {"dual_bound": bound, "gap": bound - val, "primal_infeasibility": _infeasibility(w, caps),
                    "weights_value": float(w @ f), "normalisation": (c, sc)}
            q = np.divide(w, pv, out=np.zeros_like(w), where=pv > 0)
            return ExactResult(value=val, weights=w, solver=LP_SOLVER, status=str(prob.status), certificate=cert,
                               extra={"q": q})
        tried.append(f"gap {bound - val:.3g} at value {val:.6g}")
    raise SolverError(what, LP_SOLVER, "uncertified: " + "; ".join(tried))


def qalpha_dual_lp(losses: Any, p: Any, alpha: Any) -> ExactResult:
    r"""Lemma 1 dual ``min_eta eta + sum_i (p_i/alpha_i)(f_i - eta)_+`` (002 Lemma 1) as an LP
    (HiGHS) in ``(eta, s)`` with slacks ``s >= 0``, ``s >= f - eta``.

    ``extra = {"eta": eta*}``; ``weights`` are the multipliers of ``s >= f - eta`` (a maximiser of the
    primal, ``lam in Q_alpha`` in weight coordinates); certificate ``primal_bound = weights . f``
    (a lower bound when the weights are feasible), ``gap = value - primal_bound`` and the weights'
    ``primal_infeasibility``."""
    import cvxpy as cp

    f, pv, a = _qalpha_args(losses, p, alpha)
    caps = pv / a
    what = "Lemma 1 dual LP (002 Lemma 1)"
    tried = []
    for c, sc in _normalisations(f):
        # eta = c + sc eta', f = c + sc f': eta + sum u (f - eta)_+ = c + sc (eta' + sum u (f' - eta')_+)
        eta = cp.Variable()
        s_var = cp.Variable(f.size, nonneg=True)
        cons = [s_var >= (f - c) / sc - eta]
        prob = cp.Problem(cp.Minimize(eta + caps @ s_var), cons)
        val = c + sc * _solve_highs(prob, what)
        eta_v = c + sc * float(eta.value)
        lam = np.abs(np.asarray(cons[0].dual_value, dtype=np.float64))
        # the multipliers are a point of the capped simplex up to the solver's tolerance: project, then
        # lam . f is a certified lower bound of the optimum
        lam = CappedSimplex(caps).project(lam)
        lower = float(lam @ f)
        if _gap_ok(val - lower, f, val, lower):
            cert = {"primal_bound": lower, "gap": val - lower, "primal_infeasibility": _infeasibility(lam, caps),
                    "normalisation": (c, sc)}
            return ExactResult(value=val, argmin=np.array([eta_v]), weights=lam, solver=LP_SOLVER,
                               status=str(prob.status), certificate=cert, extra={"eta": eta_v})
        tried.append(f"gap {val - lower:.3g} at value {val:.6g}")
    raise SolverError(what, LP_SOLVER, "uncertified: " + "; ".join(tried))


# -------------------------------------------------------------------- integrated set (001 eqs. 6-8)
def integrated_support_lp(I: IntegratedSet, v: Any) -> ExactResult:
    r"""``max_{lam in Lambda_phi(A, B)} lam . v`` as an LP over ``(a, b) in A x B`` (HiGHS), with
    ``lam = (a - phi b)/(1 - phi)`` (001 eqs. 6-8, reconstructed).

    ``weights = lam``, ``extra = {"a": a, "b": b}``.  Certificate: the weak-duality bound
    ``(h_A(eta_a) + phi h_B(eta_b; -v))/(1 - phi)`` at the two equality multipliers and the gap."""
    import cvxpy as cp

    if not isinstance(I, IntegratedSet):
        raise FairtheoryTypeError(f"I must be an IntegratedSet, got {type(I).__name__}")
    x = _check_vec(v, I.n)
    phi = I.phi
    what = "integrated-set support LP (001 eqs. 6-8)"
    tried = []
    for c, sc in _normalisations(x):
        xs = (x - c) / sc  # members of Lambda_phi sum to one: lam . x = c + sc lam . xs
        av, bv = _box_variable(I.A.caps), _box_variable(I.B.caps)
        ca, cb = [cp.sum(av) == 1], [cp.sum(bv) == 1]
        prob = cp.Problem(cp.Maximize((xs @ av - phi * (xs @ bv)) / (1.0 - phi)), ca + cb)
        val = c + sc * _solve_highs(prob, what)
        a_, b_ = np.asarray(av.value, dtype=np.float64), np.asarray(bv.value, dtype=np.float64)
        lam = (a_ - phi * b_) / (1.0 - phi)
        # scale the multipliers back: the objective carries 1/(1-phi) and phi/(1-phi), the data (v - c)/sc
        ea, eb = ca[0].dual_value, cb[0].dual_value
        bound_a = _dual_bound(I.A.caps, x, _times(ea, 1.0 - phi), shift=c, scale=sc)
        if phi > 0 and eb is not None:
            bound_b = _dual_bound(I.B.caps, -x, _times(eb, (1.0 - phi) / phi), shift=-c, scale=sc)
        else:
            bound_b = _dual_bound(I.B.caps, -x, None, shift=-c) if phi > 0 else 0.0
        bound = (bound_a + phi * bound_b) / (1.0 - phi)
        if _gap_ok(bound - val, x, val, bound):
            cert = {"dual_bound": bound, "gap": bound - val,
                    "primal_infeasibility": max(_infeasibility(a_, I.A.caps), _infeasibility(b_, I.B.caps)),
                    "weights_value": float(lam @ x), "weights_sum": float(lam.sum()), "normalisation": (c, sc)}
            return ExactResult(value=val, weights=lam, solver=LP_SOLVER, status=str(prob.status), certificate=cert,
                               extra={"a": a_, "b": b_})
        tried.append(f"gap {bound - val:.3g} at value {val:.6g}")
    raise SolverError(what, LP_SOLVER, "uncertified: " + "; ".join(tried))
