r"""Seeded adversarial search: the largest ``measured/bound`` of a bound over a parametrised instance space.

Where no performance-estimation problem applies (the objective lemmas, q-FFL, FedFV, the DRO baselines,
relative fairness), a bound's *sampled* tightness only says how close the instances we happened to draw
came to it.  :func:`adversarial_max` searches for the instance that comes closest: it maximises
``measured/bound`` (``bound/measured`` for a lower bound) over a box- and simplex-parametrised
:class:`Space` with :func:`scipy.optimize.differential_evolution` (fixed seed, a fixed number of
evaluations) followed by a bounded Nelder-Mead polish from the best point.  For a given ``seed`` and
``budget`` the search is deterministic.

An instance is a ``dict`` of named parameters (:meth:`Space.decode`); ``ratio_fn(**instance)`` returns
``(measured, bound)`` (any tuple whose first two entries are these, e.g. an
:class:`~fairtheory.instances.InstanceResult`), a plain ratio, or ``None`` when the instance lies outside
the claim's hypothesis.  Instances known to be bad for the bound (e.g. the worst sampled one) can seed the
initial population (``x0=``), so the search never reports less than them.

What the search finds is evidence, not a proof: a larger ratio is a lower estimate of the true worst case
(which only a PEP computes, see :mod:`fairtheory.worstcase`), and a violating instance (``violated``) is
a counterexample exactly like a sampled one.  See docs/worstcase.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairtheory.errors import FairtheoryValueError

__all__ = ["Interval", "Integer", "Vector", "Simplex", "Choice", "Space", "AdversarialResult", "adversarial_max",
           "ratio_of"]

#: float64 rounding slack of a violation (the same rule as ``verify.core.Tally``: ``lhs - rhs >
#: rounding max(1, |lhs|, |rhs|)`` for an upper bound)
ROUNDING = 1e-12

#: the optimisers' score of an infinite ratio (finite, so that the population statistics stay finite)
_HUGE = 1e100


# ----------------------------------------------------------------------------------------------- dimensions
class _Dim:
    size = 1

    def decode(self, z: np.ndarray) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def encode(self, value: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class Interval(_Dim):
    """A real number in ``[lo, hi]`` (log-uniform coordinates with ``log=True``, then ``0 < lo``)."""

    lo: float
    hi: float
    log: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo <= self.hi):
            raise FairtheoryValueError(f"Interval needs finite lo <= hi, got ({self.lo}, {self.hi})")
        if self.log and self.lo <= 0:
            raise FairtheoryValueError(f"a log Interval needs lo > 0, got {self.lo}")

    def _ends(self) -> tuple[float, float]:
        return (math.log(self.lo), math.log(self.hi)) if self.log else (self.lo, self.hi)

    def decode(self, z: np.ndarray) -> float:
        a, b = self._ends()
        v = a + float(z[0]) * (b - a)
        return float(min(max(math.exp(v) if self.log else v, self.lo), self.hi))

    def encode(self, value: Any) -> np.ndarray:
        a, b = self._ends()
        v = float(value)
        v = math.log(v) if self.log else v
        return np.array([0.0 if b == a else min(max((v - a) / (b - a), 0.0), 1.0)])


@dataclass(frozen=True)
class Integer(_Dim):
    """An integer in ``{lo, ..., hi}`` (each value owns an equal share of ``[0, 1]``)."""

    lo: int
    hi: int

    def __post_init__(self) -> None:
        if int(self.lo) != self.lo or int(self.hi) != self.hi or self.lo > self.hi:
            raise FairtheoryValueError(f"Integer needs integers lo <= hi, got ({self.lo}, {self.hi})")

    def decode(self, z: np.ndarray) -> int:
        k = self.hi - self.lo + 1
        return int(self.lo + min(int(float(z[0]) * k), k - 1))

    def encode(self, value: Any) -> np.ndarray:
        k = self.hi - self.lo + 1
        return np.array([(min(max(int(value), self.lo), self.hi) - self.lo + 0.5) / k])


@dataclass(frozen=True)
class Vector(_Dim):
    """A vector in ``[lo, hi]^n`` (log-uniform coordinates with ``log=True``)."""

    n: int
    lo: float
    hi: float
    log: bool = False

    def __post_init__(self) -> None:
        if self.n < 1:
            raise FairtheoryValueError(f"Vector needs n >= 1, got {self.n}")
        Interval(self.lo, self.hi, self.log)  # validates the ends

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.n

    def decode(self, z: np.ndarray) -> np.ndarray:
        iv = Interval(self.lo, self.hi, self.log)
        return np.array([iv.decode(z[i:i + 1]) for i in range(self.n)])

    def encode(self, value: Any) -> np.ndarray:
        iv = Interval(self.lo, self.hi, self.log)
        v = np.broadcast_to(np.asarray(value, dtype=np.float64), (self.n,))
        return np.concatenate([iv.encode(x) for x in v])


@dataclass(frozen=True)
class Simplex(_Dim):
    """A point of the probability simplex in ``R^n``: coordinates ``z`` map to ``(z + floor)/sum(z + floor)``
    (``floor > 0`` keeps every weight positive; ``floor = 0`` reaches the faces)."""

    n: int
    floor: float = 0.0

    def __post_init__(self) -> None:
        if self.n < 1 or self.floor < 0:
            raise FairtheoryValueError(f"Simplex needs n >= 1 and floor >= 0, got ({self.n}, {self.floor})")

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.n

    def decode(self, z: np.ndarray) -> np.ndarray:
        w = np.clip(np.asarray(z, dtype=np.float64), 0.0, 1.0) + self.floor
        s = float(w.sum())
        return np.full(self.n, 1.0 / self.n) if s <= 0 else w / s

    def encode(self, value: Any) -> np.ndarray:
        p = np.asarray(value, dtype=np.float64).reshape(self.n)
        # a preimage: z = t p - floor with the largest t keeping z <= 1 (z >= 0 needs p >= floor/t)
        t = (1.0 + self.floor * self.n) if self.floor > 0 else 1.0 / max(float(p.max()), 1e-300)
        return np.clip(t * p - self.floor, 0.0, 1.0)


@dataclass(frozen=True)
class Choice(_Dim):
    """One of finitely many options (each owns an equal share of ``[0, 1]``)."""

    options: tuple[Any, ...]

    def __post_init__(self) -> None:
        if len(self.options) == 0:
            raise FairtheoryValueError("Choice needs at least one option")

    def decode(self, z: np.ndarray) -> Any:
        k = len(self.options)
        return self.options[min(int(float(z[0]) * k), k - 1)]

    def encode(self, value: Any) -> np.ndarray:
        for j, o in enumerate(self.options):
            if bool(np.all(np.asarray(o == value))):
                return np.array([(j + 0.5) / len(self.options)])
        raise FairtheoryValueError(f"{value!r} is not one of the options {self.options!r}")


class Space:
    """Named dimensions; an instance is the ``dict`` :meth:`decode` builds from a point of ``[0, 1]^dim``.

    ``Space(mu=Interval(1e-8, 1e8, log=True), x=Interval(-50, 50))`` ->
    ``{"mu": ..., "x": ...}``; ``fixed=`` adds constant entries to every instance."""

    def __init__(self, fixed: dict[str, Any] | None = None, **dims: _Dim) -> None:
        if not dims:
            raise FairtheoryValueError("a Space needs at least one dimension")
        for k, d in dims.items():
            if not isinstance(d, _Dim):
                raise FairtheoryValueError(f"dimension {k!r} must be an Interval, Integer, Vector, Simplex or Choice, "
                                           f"got {type(d).__name__}")
        self.dims = dict(dims)
        self.fixed = dict(fixed or {})

    @property
    def dimension(self) -> int:
        return sum(d.size for d in self.dims.values())

    def decode(self, z: Sequence[float] | np.ndarray) -> dict[str, Any]:
        z = np.asarray(z, dtype=np.float64)
        if z.shape != (self.dimension,):
            raise FairtheoryValueError(f"a point of this space has {self.dimension} coordinates, got shape {z.shape}")
        out: dict[str, Any] = dict(self.fixed)
        i = 0
        for k, d in self.dims.items():
            out[k] = d.decode(z[i:i + d.size])
            i += d.size
        return out

    def encode(self, instance: dict[str, Any]) -> np.ndarray:
        """A point whose :meth:`decode` is ``instance`` (as nearly as the dimensions allow)."""
        missing = [k for k in self.dims if k not in instance]
        if missing:
            raise FairtheoryValueError(f"instance lacks {missing}")
        return np.concatenate([d.encode(instance[k]) for k, d in self.dims.items()])


# ----------------------------------------------------------------------------------------------- result
@dataclass
class AdversarialResult:
    """The best instance the search found.

    ``ratio``: the largest ``measured/bound`` (``bound/measured`` for ``">="``), ``>= 0``; ``inf`` when a
    violation has a non-positive bound.  ``violated``: whether the best instance (or any evaluated one:
    ``violations`` counts them) breaks the bound beyond float rounding; ``counterexample`` is then the
    violating instance of largest ratio."""

    ratio: float
    instance: dict[str, Any] | None
    measured: float | None
    bound: float | None
    evaluations: int
    feasible: int
    violations: int
    counterexample: dict[str, Any] | None
    seed: int
    budget: int
    relation: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def violated(self) -> bool:
        return self.violations > 0

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly summary (instance arrays as lists)."""
        return {"ratio": self.ratio, "measured": self.measured, "bound": self.bound, "relation": self.relation,
                "instance": _plain(self.instance), "evaluations": self.evaluations, "feasible": self.feasible,
                "violations": self.violations, "counterexample": _plain(self.counterexample), "seed": self.seed,
                "budget": self.budget}


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def ratio_of(measured: float, bound: float, relation: str = "<=", rounding: float = ROUNDING) -> tuple[float, bool]:
    """``(ratio, violated)`` of one instance, with ``verify.core.Tally``'s conventions: ``"<="``:
    ``measured/bound`` clipped at 0 (``nan`` when ``bound <= 0`` and it holds); ``">="``: ``bound/measured``
    when both are positive (``nan`` otherwise when it holds); a violation with no finite ratio is ``inf``."""
    m, b = float(measured), float(bound)
    if relation not in ("<=", ">="):
        raise FairtheoryValueError(f"relation must be '<=' or '>=', got {relation!r}")
    if not (math.isfinite(m) and math.isfinite(b)):
        return math.inf, True
    margin = (b - m) if relation == "<=" else (m - b)
    violated = margin < -rounding * max(1.0, abs(m), abs(b))
    if relation == "<=":
        r = max(m / b, 0.0) if b > 0 else math.nan
    else:
        r = b / m if (m > 0 and b > 0) else math.nan
    if violated and not math.isfinite(r):
        r = math.inf
    return r, violated


# ----------------------------------------------------------------------------------------------- search
def adversarial_max(ratio_fn: Callable[..., Any], space: Space, *, seed: int, budget: int, relation: str = "<=",
                    x0: Sequence[dict[str, Any]] = (), x0_values: Sequence[Any] | None = None, polish: float = 0.25,
                    rounding: float = ROUNDING, popsize: int | None = None) -> AdversarialResult:
    r"""Maximise ``measured/bound`` of ``ratio_fn(**instance)`` over ``space`` with at most ``budget`` calls.

    ``ratio_fn`` returns ``(measured, bound, ...)``, a ratio (``float``; then no violation can be
    detected) or ``None`` (instance outside the hypothesis: ranked below every feasible one).
    Differential evolution (``best1bin``, Latin-hypercube start drawn from ``seed``, ``x0`` instances
    placed first in the population) gets ``(1 - polish) budget`` evaluations, a bounded Nelder-Mead
    polish from the best point the rest; with fewer than 5 evaluations for the first phase, the ``x0``
    instances and as many Latin-hypercube points are evaluated instead of a population.  ``x0_values``
    (one per ``x0`` instance, what ``ratio_fn`` returned there, e.g. from the sampled sweep) spares
    re-evaluating the seeds; they do not count against ``budget``.  Deterministic for a given ``seed``
    and ``budget`` (and a deterministic ``ratio_fn``)."""
    from scipy.optimize import differential_evolution, minimize
    from scipy.stats import qmc

    if relation not in ("<=", ">="):
        raise FairtheoryValueError(f"relation must be '<=' or '>=', got {relation!r}")
    if int(budget) != budget or budget < 1:
        raise FairtheoryValueError(f"budget must be a positive integer, got {budget!r}")
    if not 0.0 <= polish < 1.0:
        raise FairtheoryValueError(f"polish must be in [0, 1), got {polish!r}")
    k = space.dimension
    state: dict[str, Any] = {"n": 0, "feasible": 0, "violations": 0, "best": None, "cx": None, "z": None}
    memo: dict[bytes, float] = {}

    def evaluate(z: np.ndarray) -> float:
        """``-ratio`` (what the optimisers minimise); infeasible instances score ``+1`` (ratio -1).  A point
        already evaluated is not evaluated (nor counted) again."""
        z = np.clip(np.asarray(z, dtype=np.float64), 0.0, 1.0)
        key = z.tobytes()
        if key in memo:
            return memo[key]
        if state["n"] >= budget:
            return 1.0
        memo[key] = value = _score(z)
        return value

    def _score(z: np.ndarray) -> float:
        state["n"] += 1
        inst = space.decode(z)
        return _record(z, inst, ratio_fn(**inst))

    def _record(z: np.ndarray, inst: dict[str, Any], out: Any) -> float:
        if out is None:
            return 1.0
        if isinstance(out, (tuple, list)):
            m, b = float(out[0]), float(out[1])
            r, bad = ratio_of(m, b, relation, rounding)
        else:
            m, b, r, bad = None, None, float(out), False
        if math.isnan(r):
            return 1.0
        state["feasible"] += 1
        rec = (r, inst, m, b)
        if state["best"] is None or r > state["best"][0]:
            state["best"], state["z"] = rec, z
        if bad:
            state["violations"] += 1
            if state["cx"] is None or r > state["cx"][0]:
                state["cx"] = rec
        return -_HUGE if math.isinf(r) else -max(min(r, _HUGE), -_HUGE)

    n_polish = int(round(polish * budget))
    n_de = budget - n_polish
    starts = [np.clip(space.encode(x), 0.0, 1.0) for x in x0]
    if x0_values is not None:
        if len(x0_values) != len(starts):
            raise FairtheoryValueError(f"x0_values needs one value per x0 instance, got {len(x0_values)} for {len(starts)}")
        for z, v in zip(starts, x0_values, strict=True):
            memo[z.tobytes()] = _record(z, space.decode(z), v)
    if n_de >= 5:
        npop = popsize if popsize is not None else int(min(max(5, n_de // 4), 10 + 4 * k))
        npop = max(5, min(npop, n_de))
        init = qmc.LatinHypercube(d=k, rng=np.random.default_rng([seed, 1])).random(npop)
        for j, z in enumerate(starts[:npop]):
            init[j] = z
        maxiter = max(0, (n_de - npop) // npop)
        differential_evolution(evaluate, [(0.0, 1.0)] * k, maxiter=maxiter, init=init, polish=False,
                               rng=np.random.default_rng([seed, 2]), tol=0.0, atol=0.0, updating="immediate")
    else:  # too few evaluations for a population: the seeds, then Latin-hypercube points, then the polish
        lhs = qmc.LatinHypercube(d=k, rng=np.random.default_rng([seed, 1])).random(max(n_de, 1))
        for z in [*starts, *lhs]:
            if state["n"] >= max(n_de, 1):
                break
            evaluate(z)
    remaining = budget - state["n"]
    if remaining > 0 and state["best"] is not None and not math.isinf(state["best"][0]):
        z_best = state["z"]
        minimize(evaluate, z_best, method="Nelder-Mead", bounds=[(0.0, 1.0)] * k,
                 options={"maxfev": remaining + 1, "xatol": 1e-10, "fatol": 0.0, "initial_simplex": _simplex(z_best)})
    best = state["best"]
    cx = state["cx"]
    return AdversarialResult(
        ratio=float(best[0]) if best else math.nan, instance=best[1] if best else None,
        measured=best[2] if best else None, bound=best[3] if best else None, evaluations=int(state["n"]),
        feasible=int(state["feasible"]), violations=int(state["violations"]),
        counterexample=(dict(cx[1]) | {"measured": cx[2], "bound": cx[3]}) if cx else None,
        seed=int(seed), budget=int(budget), relation=relation)


def _simplex(z: np.ndarray, step: float = 0.1) -> np.ndarray:
    """Initial Nelder-Mead simplex around ``z`` inside ``[0, 1]^k`` (steps towards the interior)."""
    k = z.size
    S = np.tile(z, (k + 1, 1))
    for i in range(k):
        S[i + 1, i] = z[i] + step if z[i] + step <= 1.0 else z[i] - step
    return S
