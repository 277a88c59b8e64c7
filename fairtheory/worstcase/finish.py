r"""From a solved PEP to a :class:`~fairtheory.worstcase.results.WorstCase`: bracket, units, certificate.

:func:`finish_worst_case` is shared by the hand-written (local GD, Scaffold) and traced PEPs: the solution is
bracketed (:func:`fairtheory.worstcase.bracket.solve_bracketed`: a rigorous upper bound, a replayed lower bound),
every value is scaled to the caller's units exactly (:mod:`fairtheory.worstcase.results`), and with a statement
template the exact dual certificate is attached (:func:`fairtheory.proofs.certificate.certify_pep`).
:func:`exact_weights`: client weights as exact rationals for a certificate statement.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.proofs.certificate import certify_pep
from fairtheory.worstcase.bracket import REPLAY_RTOL, primal_objective, solve_bracketed
from fairtheory.worstcase.checked_solve import UNBOUNDED_STATUSES, unbounded_ray
from fairtheory.worstcase.results import Instance, WorstCase, scaled

if TYPE_CHECKING:
    from fairtheory.worstcase.gram import Scalar, Vec
    from fairtheory.worstcase.sdp import PEP
    from fairtheory.worstcase.solvers import SDPSolution

__all__ = ["finish_worst_case", "exact_weights"]


def exact_weights(p: Any, p_arr: np.ndarray) -> list[Fraction]:
    """Client weights as exact rationals for a certificate statement: ``1/n`` each when ``p`` is None, else the
    rationals the weights are (exact :class:`Fraction` inputs kept); they must sum to 1 exactly."""
    n = p_arr.size
    if p is None:
        return [Fraction(1, n)] * n
    out = [x if isinstance(x, Fraction) else Fraction(float(x)) for x in (list(p) if not isinstance(p, np.ndarray)
                                                                            else p.tolist())]
    if sum(out) != 1:
        raise FairtheoryValueError(f"certificate=True needs client weights p that sum to 1 exactly as rationals (e.g. "
                                   f"Fractions, or binary fractions such as 0.25, 0.75); got {p_arr.tolist()}")
    return out


def finish_worst_case(pep: PEP, sol: SDPSolution, S: Fraction, *, params: dict[str, Any],
                      instance_of: Callable[[SDPSolution], Instance] | None, extra: dict[str, Any],
                      certificate: dict[str, Any] | None, problem: str, objective: Scalar, x0: Vec, n: int, p: Any,
                      D0_level: Any, rho2_level: Any, tol: float = 1e-8, rigorous: bool = True) -> WorstCase:
    """A solved PEP in the caller's units: bracketed (:func:`fairtheory.worstcase.bracket.solve_bracketed`: a
    rigorous upper bound, a replayed lower bound, re-solves when they do not meet), every value times the exact
    unit ``S = L D0 + rho2/L`` (rounded once, :func:`~fairtheory.worstcase.results.scaled`; the upper bound rounded
    up), the solver's diagnostics in ``extra``, and with ``certificate`` (a statement template,
    :func:`fairtheory.proofs.certificate.statement`) the exact rational dual certificate of that statement
    (:func:`fairtheory.proofs.certificate.certify_pep`, the SDP rebuilt from the statement by the trusted kernel).
    ``instance_of(sol)``: the worst-case functions' data of the solution kept.  Shared by the hand-written and
    traced PEPs.  ``rigorous=False`` (a PEP the bracket does not cover,
    :class:`~fairtheory.worstcase.results.WorstCase` ``"solver"``): the solver's value, unbracketed."""
    solver_only = not rigorous
    if sol.status in UNBOUNDED_STATUSES:  # a raw solve's infeasibility certificate: a ray, when it checks
        sol = unbounded_ray(sol, pep) or sol
    if sol.status == "Unbounded":  # a checked ray (checked_solve.unbounded_ray): a result, not a failure
        return WorstCase(value=math.inf, dual_value=math.inf, gap=math.nan, status=sol.status, dim=sol.dim,
                         n_constraints=sol.n_constraints, seconds=sol.seconds, build_seconds=sol.build_seconds,
                         scale=scaled(1.0, S), params=params, instance=None,
                         extra={"iterations": sol.iterations, "n_interp": sol.n_interp,
                                "unbounded": f"{problem}: the worst case is unbounded (a ray of the PEP: every row "
                                             "holds along it and the objective grows), so no finite bound and no "
                                             "certificate exist", **extra},
                         lower=math.inf, upper=math.inf, value_is="unbounded")
    if solver_only:
        v = primal_objective(sol)
        if not (sol.status == "Solved" or (sol.status == "AlmostSolved" and math.isfinite(sol.gap)
                                           and abs(sol.gap) <= REPLAY_RTOL * max(abs(v), 1.0))):
            raise SolverError(f"{problem}: Clarabel status {sol.status} (gap {sol.gap:.3g}, r_prim {sol.r_prim:.3g}, "
                              f"r_dual {sol.r_dual:.3g}); this worst case has no rigorous bracket, so only a solved "
                              "SDP is reported", "Clarabel", sol.status)
        lower, upper, ok = math.nan, math.inf, False
        value = scaled(v, S)
        info = {"solver_value": value, "solves": ["plain"]}
    elif math.isfinite(scaled(1.0, S)):
        sol, br, ok, tried = solve_bracketed(pep, sol, objective, tol=tol, x0=x0, n=n, p=p, D0_level=D0_level,
                                             rho2_level=rho2_level)
        v = primal_objective(sol)
        lower, upper = scaled(br.lower, S), scaled(br.upper, S)
        upper = math.nextafter(upper, math.inf) if math.isfinite(upper) else upper
        value = upper if ok else lower
        info = {"solver_value": scaled(v, S), "solves": tried,
                **{f"bracket_{k}": val for k, val in br.info.items()}}
    else:  # the unit is beyond the float range: no finite value to report
        v, lower, upper, ok = sol.value, math.nan, math.inf, False
        value = scaled(v, S)
        info = {"solver_value": value, "solves": ["plain"]}
    wc = WorstCase(value=value, dual_value=scaled(sol.dual_value, S), gap=scaled(sol.gap, S),
                   status=sol.status, dim=sol.dim, n_constraints=sol.n_constraints, seconds=sol.seconds,
                   build_seconds=sol.build_seconds, scale=scaled(1.0, S), params=params,
                   instance=instance_of(sol) if instance_of is not None and math.isfinite(scaled(1.0, S)) else None,
                   extra={"iterations": sol.iterations, "r_prim": sol.r_prim, "r_dual": sol.r_dual,
                          "n_interp": sol.n_interp, "value_normalised": v, **info, **extra},
                   lower=lower, upper=upper, value_is="solver" if solver_only else ("upper" if ok else "lower"))
    if certificate is not None:
        wc.certificate = certify_pep(certificate, meta={"problem": problem, "params": params})
    return wc
