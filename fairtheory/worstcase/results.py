r"""The results of a worst-case computation: :class:`WorstCase`, the extracted :class:`Instance`, and the units.

A worst case is computed in normalised units (``L = 1``, ``D0 + rho2/L^2 = 1``) and reported in the caller's: every
value times the exact unit ``S = L D0 + rho2/L`` (:func:`units`), rounded once (:func:`scaled`).  Values below
``TINY L D0`` are not resolvable and are reported as such (:func:`report_value`).  This module holds data only; the
function that turns a solved PEP into a :class:`WorstCase` (bracket, units, certificate) is
:func:`fairtheory.worstcase.finish.finish_worst_case`.  See docs/worstcase.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["WorstCase", "Instance", "report_value", "scaled", "units", "TINY"]

#: results below ``TINY * L * D0`` are reported as such, never as exact values
TINY = 1e-6


def scaled(x: float, scale: Fraction) -> float:
    """``x * scale`` computed exactly and rounded once (``+-inf`` beyond the float range, never an error)."""
    if not math.isfinite(x):
        return x
    v = Fraction(x) * scale
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def units(L: float, D0: float, rho2: float) -> tuple[Fraction, Fraction, Fraction]:
    """Exact ``(S, D0', rho2')``: the scale ``S = L D0 + rho2/L`` of values and the normalised constraint
    levels ``D0' = L D0/S``, ``rho2' = (rho2/L)/S`` (``D0' + rho2' = 1``)."""
    Lq, Dq, Rq = Fraction(L), Fraction(D0), Fraction(rho2)
    S = Lq * Dq + Rq / Lq
    return S, Lq * Dq / S, (Rq / Lq) / S


@dataclass
class Instance:
    """A worst-case instance extracted from a PEP solution (original units).

    ``points[i]`` is a list of ``(x, g, f)`` triples of client ``i`` (``x`` and ``g`` in ``R^dim``,
    ``theta* = 0`` and ``g_i(theta*) = 0`` by convention); ``x0`` is the starting point."""

    x0: np.ndarray
    points: list[list[tuple[np.ndarray, np.ndarray, float]]]
    p: np.ndarray
    L: float
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return int(self.x0.size)


@dataclass
class WorstCase:
    """Result of a worst-case (PEP) computation, in the caller's units.

    The worst case ``W`` (the supremum over the class) is bracketed by two numbers that do not trust the solver's
    value (:mod:`fairtheory.worstcase.bracket`): ``upper``, a rigorous upper bound from the solver's multipliers
    with every rounding error bounded, and ``lower``, the value the method reaches on explicit ``L``-smooth convex
    functions rebuilt from the solution (the replayed instance).  ``value_is`` says which one ``value`` is:

    * ``"upper"``: the bracket closed (``upper`` within ``1e-6`` of the solver's value, the replay within
      ``1e-4``): ``value = upper``, a rigorous upper bound, and :meth:`certified` holds;
    * ``"lower"``: no rigorous bound close enough (a badly conditioned PEP, e.g. ``lr L`` near 100): ``value =
      lower``, reached by the replayed instance (within ``1e-4`` of the solver's value, and ``upper`` within 5%);
      never certified;
    * ``"solver"``: the bracket does not apply - it is derived for the value measure of smooth (strongly) convex
      clients queried by exact gradients, and a traced worst case with stochastic (``sigma2``) or inexact
      (``grad_eps``) gradients, proximal steps (``prox_each``), another measure (``"grad_norm"``,
      ``"distance"``, a minimum of several) or ``output="best"`` is none of these: ``value`` is the solver's primal
      value, ``lower = nan``, ``upper = inf``, never certified; ``gap`` (dual minus primal) says how far the
      solver's two values agree (the solve must report ``Solved``, or ``AlmostSolved`` with
      ``|gap| <= 1e-4 max(|value|, scale)``, else :class:`~fairtheory.errors.SolverError`).

    * ``"unbounded"``: the PEP has a ray (every row holds along it and the objective grows; checked by
      :func:`fairtheory.worstcase.checked_solve.unbounded_ray`): there is no finite worst case, ``value = lower =
      upper = inf``, status ``"Unbounded"``, never certified (e.g. gradient descent on ``Convex()``).

    A solve that is none of these raises :class:`~fairtheory.errors.SolverError`.  ``dual_value`` / ``gap`` are the
    solver's own (not rigorous); ``extra["solver_value"]`` its primal value."""

    value: float
    dual_value: float
    gap: float
    status: str
    dim: int
    n_constraints: int
    seconds: float
    build_seconds: float
    scale: float
    params: dict[str, Any]
    instance: Instance | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    certificate: Any = None  #: :class:`fairtheory.proofs.certificate.Certificate` when asked for
    lower: float = math.nan  #: value reached by the replayed instance (a lower bound on the worst case)
    upper: float = math.inf  #: rigorous upper bound (``inf`` when none could be derived)
    #: ``"upper"``, ``"lower"``, ``"solver"`` or ``"unbounded"`` (``value = inf``: the PEP has a ray, no finite
    #: worst case): which number ``value`` is
    value_is: str = "upper"

    @property
    def solved(self) -> bool:
        return self.status == "Solved"

    @property
    def rel_gap(self) -> float:
        return abs(self.gap) / max(abs(self.value), abs(self.dual_value), 1e-300)

    def certified(self, tol: float = 1e-6) -> bool:
        """``value`` is a rigorous upper bound (``value_is == "upper"``) within ``tol * max(|value|, scale)`` of
        the solver's value, which the replayed instance reaches (``scale`` = the class's unit ``L D0 + rho2/L``);
        never for a non-finite value or scale."""
        sv = self.extra.get("solver_value", self.value)
        if not all(math.isfinite(x) for x in (self.value, self.upper, self.lower, self.scale, sv)):
            return False
        return self.value_is == "upper" and self.upper - sv <= tol * max(abs(self.value), self.scale)


def report_value(value: float, L: float, D0: float) -> str:
    """``value`` as text, or ``"below 1e-6 L D0"`` when it is below ``TINY L D0`` (not resolvable)."""
    if value < TINY * L * D0:
        return "below 1e-6 L D0"
    return f"{value:.6g}"
