r"""Local SGD (FedAvg with ``kappa = 1``, 002's schedule) with stochastic gradients, and 002 Thms. 1-2 at ``kappa = 1``.

002 Thms. 1-2 assume exact local gradients.  :func:`sgd_worst_case` traces :mod:`fairtheory.algorithms.fedavg`
(one local step per round, the output the mean of the server models ``w_1..w_T``, 002's ``w_tilde``) with gradients
of variance ``sigma2`` (:func:`fairtheory.worstcase.traced.worst_case`, ``sigma2=``); :func:`theorem_rhs` is the
theorems' right-hand side at the same setting, to compare it with.

A traced worst case with noise is the solver's value (``value_is == "solver"``: the bracket of
:mod:`fairtheory.worstcase.bracket` covers exact gradients only).  :func:`sgd_bracket` brackets the same SDP
rigorously: its ``upper`` end is the bound of exact rational dual multipliers (:func:`fairtheory.proofs.search.
find_multipliers`, checked by :func:`fairtheory_kernel.pep.verify_multipliers`), its ``lower`` end the objective of
an exactly feasible rational point (:func:`fairtheory.worstcase.exact_lower.lower_bound`), both computed in exact
arithmetic on the SDP's data (:meth:`fairtheory.worstcase.sdp.PEP.export`: the exact binary values of the doubles
the trace computed, so the bracket is rigorous for that SDP, whose data differ from the ideal one's in the 16th
digit).  Whether a worst case exceeds a bound is then decided by exact comparisons, the same on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory.algorithms import fedavg
from fairtheory.errors import SolverError
from fairtheory.proofs.search import SDPA_MAX_DIM, SDPA_MAX_ROWS, find_multipliers
from fairtheory.worstcase import solvers
from fairtheory.worstcase.exact_lower import ExactData, interior_point, lower_bound
from fairtheory.worstcase.pep_problem import PEPProblem
from fairtheory.worstcase.ratio import theorem_coefficients
from fairtheory.worstcase.traced import trace, worst_case

__all__ = ["theorem_rhs", "sgd_worst_case", "sgd_pep", "sgd_lower", "sgd_upper", "sgd_bracket", "SGDBracket"]


def theorem_rhs(*, T: int, lr: float, L: float, D0: float, rho2: float, K: int | None) -> float:
    """002 Thm. 1 (``K=None``) / Thm. 2 right-hand side less ``mu tau_alpha`` for ``kappa = 1`` and ``T_N = T - 1``
    at step size ``lr`` (:func:`fairtheory.worstcase.ratio.theorem_coefficients`, from :mod:`fairtheory.bounds.rcfl`)."""
    a, b = theorem_coefficients(version="002", kappa=1, T_N=T - 1, lr=lr, L=L, K=K)
    return a * D0 + b * rho2


def sgd_worst_case(n: int, K: int | None, T: int, lr: float, D0: float, rho2: float, sigma2: float,
                   tol: float = 1e-8) -> Any:
    """Traced worst case of ``E[G(w_tilde)] - G*`` of FedAvg with ``kappa = 1`` (= 002's schedule at ``kappa = 1``),
    output the mean of the server models ``w_1..w_T`` (002's ``w_tilde``), gradients of variance ``sigma2``."""
    return worst_case(fedavg.make, T, n=n, L=1.0, D0=D0, rho2=rho2, sigma2=sigma2, output="average", lr=lr, kappa=1,
                      K=K, tol=tol)


def sgd_pep(n: int, K: int | None, T: int, lr: float, D0: float, rho2: float, sigma2: float) -> tuple[Any, Fraction]:
    """``(pep, S)``: the SDP :func:`sgd_worst_case` solves (the same trace, rows and objective as
    :func:`fairtheory.worstcase.traced.worst_case` builds for ``L = 1``, measure ``"value"``, output
    ``"average"``), posed in the units of :class:`~fairtheory.worstcase.pep_problem.PEPProblem`, and its exact value
    unit ``S = L D0 + (rho2 + sigma2)/L``: the worst case is ``S`` times the SDP's value."""

    problem = PEPProblem(n, L=1.0, mu=0.0, D0=D0, rho2=rho2, sigma2=sigma2)
    problem.size_guard = True
    try:
        tr = trace(fedavg.make, T, problem, output="average", measure=["value"], lr=lr, kappa=1, K=K)
    finally:
        problem.size_guard = False
    c1, c2 = problem.constraints()
    pep = problem.pep
    pep.add_le(c1)
    if c2 is not None:
        pep.add_le(c2)
    for row in problem.oracle_constraints + tr.constraints:
        pep.add_le(row)
    pep.maximize(tr.objective)
    return pep, Fraction(problem.S_exact)


#: :func:`sgd_upper`: how far from Clarabel's value the exact upper end may lie (it is rigorous at any distance)
SGD_UPPER_RTOL = 1e-4


@dataclass(frozen=True)
class SGDBracket:
    """A rigorous bracket ``lower <= W <= upper`` of the worst case ``W`` of :func:`sgd_pep`'s SDP (caller's units,
    exact rationals; module doc)."""

    lower: Fraction
    upper: Fraction

    def __post_init__(self) -> None:
        if not self.lower <= self.upper:
            raise ValueError(f"SGDBracket: lower {float(self.lower)!r} above upper {float(self.upper)!r}")


def _solved(data: dict[str, Any], who: str) -> Any:
    """Clarabel's solution of exported SDP data (tolerance ``1e-10``), or :class:`~fairtheory.errors.SolverError`."""

    sol = solvers.solve_clarabel(solvers.exported_pep(data, who), tol=1e-10)
    if not sol.ok or sol.gram is None or sol.F is None:
        raise SolverError(f"{who}: Clarabel status {sol.status}", "Clarabel", sol.status)
    return sol


def sgd_lower(n: int, K: int | None, T: int, lr: float, D0: float, rho2: float, sigma2: float) -> Fraction:
    r"""A rigorous lower end of :func:`sgd_worst_case`'s worst case (module doc): the objective, times the exact unit
    ``S``, of an exactly feasible rational point of :func:`sgd_pep`'s SDP, made by
    :func:`fairtheory.worstcase.exact_lower.lower_bound` (re-checked exactly; on the face of
    :func:`_without_forced_zeros` when some rows have no strictly feasible point, e.g. ``D0 = 0``) from Clarabel's
    solution and, for SDPs within :data:`fairtheory.proofs.search.SDPA_MAX_ROWS` / ``SDPA_MAX_DIM``, SDPA-GMP's; the
    larger.  Clarabel's point can be poor: at ``n = 1, T = 3, sigma2 = 0`` two traced points differ only by ``2^-59``
    coefficients, no point has slack above ``1e-9`` on their interpolation rows, and mixing Clarabel's (``1.7e-9``
    infeasible) into one loses 24%; SDPA-GMP's (``2e-16``) loses ``6e-8``.  Raises
    :class:`fairtheory.worstcase.exact_lower.LowerBoundError` when no exactly feasible point is found."""

    pep, S = sgd_pep(n, K, T, lr, D0, rho2, sigma2)
    red = _without_forced_zeros(pep.export())
    ed = ExactData.from_export(red)
    points = [_solved(red, "sgd_lower")]
    P = solvers.exported_pep(red, "sgd_lower")
    if P.m <= SDPA_MAX_ROWS and P.dim <= SDPA_MAX_DIM:  # a size rule: SDPA-GMP's point where it is cheap
        gmp = solvers.solve_sdpa(P)
        if gmp is not None and gmp.ok and gmp.gram is not None and gmp.F is not None:
            points.append(gmp)
    lows = []
    for sol in points:
        low = lower_bound(ed, sol.gram, sol.F, source=sol.how)
        if not low.verify():
            raise SolverError("sgd_lower: the exactly feasible point failed its re-check", "exact check", "internal")
        lows.append(Fraction(low.value))
    return max(lows) * S


def sgd_upper(n: int, K: int | None, T: int, lr: float, D0: float, rho2: float, sigma2: float) -> Fraction:
    r"""A rigorous upper end of :func:`sgd_worst_case`'s worst case (module doc): the bound of exact rational dual
    multipliers of :func:`sgd_pep`'s SDP (:func:`fairtheory.proofs.search.find_multipliers` from Clarabel's solution;
    checked exactly by :func:`fairtheory_kernel.pep.verify_multipliers`) times the exact unit ``S``.  The bound is
    rigorous whatever its distance from the float value; it is accepted within ``rtol = 1e-4`` of it because Clarabel's
    value of these SDPs is itself that far off at large ``sigma2`` (the levels ``D0/S`` are ``~1e-5`` of the unit: at
    ``n = 1, T = 3, sigma2 = 5.6e4`` it lies ``1.4e-5`` below the exact lower end of :func:`sgd_lower`).  Raises
    :class:`~fairtheory.errors.SolverError` when no certificate is found."""

    pep, S = sgd_pep(n, K, T, lr, D0, rho2, sigma2)
    return find_multipliers(pep.export(), reference="clarabel", rtol=SGD_UPPER_RTOL).bound * S


def sgd_bracket(n: int, K: int | None, T: int, lr: float, D0: float, rho2: float, sigma2: float) -> SGDBracket:
    """:func:`sgd_lower` and :func:`sgd_upper` of one setting."""
    return SGDBracket(lower=sgd_lower(n, K, T, lr, D0, rho2, sigma2), upper=sgd_upper(n, K, T, lr, D0, rho2, sigma2))


def _without_forced_zeros(data: dict[str, Any]) -> dict[str, Any]:
    r"""The exported SDP restricted to the face on which a point of largest smallest slack
    (:func:`fairtheory.worstcase.exact_lower.interior_point`) has zero Gram diagonal entries and zero function values:
    those basis vectors and values are removed (set to 0), and the rows that become ``c <= 0`` with no variable left
    are dropped.  At ``D0 = 0`` the row ``||x0 - x*||^2 <= 0`` and the interpolation conditions between ``x0`` and
    ``x*`` have no strictly feasible point, which the mixing of :func:`~fairtheory.worstcase.exact_lower.lower_bound`
    needs; the restricted SDP has one.  Sound whatever the guess: a feasible point of the restricted SDP, padded with
    zeros, satisfies every original row with the same values (the removed entries are 0), so its objective is a lower
    bound of the original's value (:func:`sgd_bracket` checks that point exactly).  ``data`` when every row has a
    positive slack at that point."""
    for _ in range(FACE_ROUNDS):  # a removed vector can leave rows that force the next ones (x0, then g0, f0)
        red = _face_once(data)
        if red is data:
            break
        data = red
    return data


#: :func:`_without_forced_zeros`: rounds of restriction (3 at the noise-only PEP of two clients sampled one at a time)
FACE_ROUNDS = 6


def _face_once(data: dict[str, Any]) -> dict[str, Any]:
    """One round of :func:`_without_forced_zeros` (``data`` itself when nothing is removed)."""

    ed = ExactData.from_export(data)
    G, F, slack = interior_point(ed, trace_cap=10.0 * int(data["dim"]))
    if slack > 1e-7:
        return data
    diag = np.diag(G)
    gz = {a for a in range(int(data["dim"])) if diag[a] <= 1e-9 * max(1.0, float(diag.max(initial=0.0)))}
    fz = {k for k in range(int(data["nf"])) if abs(F[k]) <= 1e-9 * max(1.0, float(np.abs(F).max(initial=0.0)))}
    if not gz and not fz:
        return data
    keep = [i for i in range(int(data["dim"])) if i not in gz]
    fkeep = [k for k in range(int(data["nf"])) if k not in fz]
    pos, fpos = {i: j for j, i in enumerate(keep)}, {k: j for j, k in enumerate(fkeep)}

    def row(r: Any) -> Any:
        Gr, Fr, c = r
        return ({(pos[a], pos[b]): v for (a, b), v in Gr.items() if a in pos and b in pos and v != 0},
                {fpos[k]: v for k, v in Fr.items() if k in fpos and v != 0}, c)

    rows, n_eq = [], 0
    for k, r in enumerate(data["rows"]):
        Gr, Fr, c = row(r)
        if not Gr and not Fr:
            if c > 0 or (k < int(data["n_eq"]) and c != 0):
                return data  # the guessed face is infeasible: keep the original (lower_bound then refuses)
            continue
        rows.append((Gr, Fr, c))
        n_eq += k < int(data["n_eq"])
    return dict(data) | {"dim": len(keep), "nf": len(fkeep), "n_eq": n_eq, "rows": rows,
                         "objective": row(data["objective"])}
