"""Claim registry, claim results and the evidence tallies every check uses.

A claim is a function ``check(ctx) -> Outcome`` registered with :func:`claim`; like a PEPit example
it returns the measured quantity next to the theoretical one.  :class:`Tally` accumulates one
inequality or equality over many instances and turns it into an :class:`Outcome` with the worst
margin, the tightness ratio and the smallest counterexample.
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from verify.catalogue import CATALOGUE

Status = Literal["verified", "refuted", "inconclusive", "skipped", "not implemented", "error"]
STATUSES = ("verified", "refuted", "inconclusive", "skipped", "not implemented", "error")

#: relative slack for floating-point rounding when comparing a computed quantity with a bound that
#: holds with equality at the tightest instances (e.g. softplus at 0).  It is a statement about
#: float64 arithmetic, fixed here once, and never tuned per claim.
ROUNDING = 1e-12


@dataclass(frozen=True)
class Context:
    """What a check may depend on: mode and seed.  Checks draw all randomness from :meth:`rng`."""

    quick: bool = True
    seed: int = 0

    def rng(self, salt: str = "") -> np.random.Generator:
        """A generator seeded by ``(seed, salt)`` so claims are independent and reproducible."""
        key = [self.seed] + [ord(c) for c in salt]
        return np.random.default_rng(key)

    def count(self, quick: int, full: int) -> int:
        """Number of instances for the current mode."""
        return quick if self.quick else full


@dataclass
class Outcome:
    """What a check returns (before the runner adds id, citation, timing)."""

    status: Status
    measured: float | None = None
    bound: float | None = None
    margin: float | None = None
    tightness: float | None = None
    instances: int = 0
    counterexample: dict[str, Any] | None = None
    note: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class ClaimResult:
    """One row of the report."""

    id: str
    citation: str
    statement: str
    expected: str
    status: str
    measured: float | None
    bound: float | None
    margin: float | None
    tightness: float | None
    instances: int
    counterexample: dict[str, Any] | None
    note: str
    seconds: float
    details: dict[str, Any]

    @property
    def as_expected(self) -> bool:
        """Whether the status matches the claim's expectation (``not implemented``/``skipped`` do)."""
        if self.status in ("not implemented", "skipped"):
            return True
        return self.status == self.expected

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["as_expected"] = self.as_expected
        return _jsonable(d)


@dataclass(frozen=True)
class ClaimSpec:
    id: str
    citation: str
    statement: str
    expected: str
    check: Callable[[Context], Outcome]


REGISTRY: dict[str, ClaimSpec] = {}


def claim(claim_id: str, *, expected: str = "verified", citation: str | None = None) -> Callable[
    [Callable[[Context], Outcome]], Callable[[Context], Outcome]
]:
    """Register ``check`` as the verification of catalogue id ``claim_id``.

    ``expected`` is ``"verified"`` unless a recorded finding says the claim is ``"refuted"``."""
    if claim_id not in CATALOGUE:
        raise KeyError(f"claim id {claim_id!r} is not in verify.catalogue.CATALOGUE")
    if expected not in ("verified", "refuted", "inconclusive"):
        raise ValueError(f"expected must be verified/refuted/inconclusive, got {expected!r}")

    def deco(fn: Callable[[Context], Outcome]) -> Callable[[Context], Outcome]:
        cite, statement = CATALOGUE[claim_id]
        if claim_id in REGISTRY:
            raise KeyError(f"claim {claim_id!r} registered twice")
        REGISTRY[claim_id] = ClaimSpec(claim_id, citation or cite, statement, expected, fn)
        return fn

    return deco


def run_claim(claim_id: str, ctx: Context) -> ClaimResult:
    """Run one claim (or report it as not implemented); exceptions become status ``error``."""
    cite, statement = CATALOGUE[claim_id]
    spec = REGISTRY.get(claim_id)
    if spec is None:
        return ClaimResult(claim_id, cite, statement, "verified", "not implemented", None, None, None,
                           None, 0, None, "no check registered yet", 0.0, {})
    t0 = time.perf_counter()
    try:
        out = spec.check(ctx)
    except Exception as exc:  # a crashing check is reported, never hidden
        out = Outcome("error", note=f"{type(exc).__name__}: {exc}",
                      details={"traceback": traceback.format_exc(limit=8)})
    secs = time.perf_counter() - t0
    return ClaimResult(claim_id, spec.citation, spec.statement, spec.expected, out.status, out.measured,
                       out.bound, out.margin, out.tightness, out.instances, out.counterexample, out.note,
                       secs, out.details)


class Tally:
    """Accumulate one relation over instances.

    ``kind="upper"``: the claim is ``measured <= bound`` on every instance.  The outcome reports the
    worst (smallest) margin ``bound - measured``, the tightness ``max measured/bound`` and, on
    failure, the violating instance of smallest ``size`` (ties: largest violation).

    ``kind="equal"``: ``measured`` is an error (``>= 0``) that must not exceed the fixed tolerance
    ``bound``; tightness is ``max error / tolerance``.
    """

    def __init__(self, kind: Literal["upper", "equal"] = "upper", *, rounding: float = ROUNDING) -> None:
        self.kind = kind
        self.rounding = rounding
        self.instances = 0
        self.worst_margin = math.inf
        self.worst_measured: float | None = None
        self.worst_bound: float | None = None
        self.tightness = -math.inf
        self.violations = 0
        self.counterexample: dict[str, Any] | None = None
        self._cx_key: tuple[float, float] | None = None

    def add(self, measured: float, bound: float, instance: dict[str, Any] | None = None,
            size: float | None = None) -> bool:
        """Record one instance; returns whether it satisfied the relation."""
        measured, bound = float(measured), float(bound)
        self.instances += 1
        if not (math.isfinite(measured) and math.isfinite(bound)):
            ok = False
            margin = -math.inf
        else:
            margin = bound - measured
            slack = self.rounding * max(1.0, abs(bound), abs(measured))
            ok = margin >= -slack
        if margin < self.worst_margin or self.worst_measured is None:
            self.worst_margin, self.worst_measured, self.worst_bound = margin, measured, bound
        if bound != 0 and math.isfinite(bound):
            self.tightness = max(self.tightness, measured / bound)
        if not ok:
            self.violations += 1
            key = (float(size) if size is not None else 0.0, margin)
            if self._cx_key is None or key < self._cx_key:
                self._cx_key = key
                cx = dict(instance or {})
                cx.update(measured=measured, bound=bound)
                self.counterexample = _jsonable(cx)
        return ok

    def outcome(self, note: str = "", details: dict[str, Any] | None = None) -> Outcome:
        if self.instances == 0:
            return Outcome("inconclusive", note=note or "no instance was checked", details=details or {})
        status: Status = "refuted" if self.violations else "verified"
        d = dict(details or {})
        d["violations"] = self.violations
        return Outcome(
            status,
            measured=self.worst_measured,
            bound=self.worst_bound,
            margin=self.worst_margin,
            tightness=self.tightness if math.isfinite(self.tightness) else None,
            instances=self.instances,
            counterexample=self.counterexample,
            note=note,
            details=d,
        )


def relative_error(a: float, b: float) -> float:
    """``|a - b| / max(1, |b|)``: relative for large values, absolute near zero."""
    return abs(float(a) - float(b)) / max(1.0, abs(float(b)))


def combine(outcomes: dict[str, Outcome], note: str = "") -> Outcome:
    """Merge the outcomes of the parts of one claim: refuted if any part is, worst margin reported."""
    order = {"error": 0, "refuted": 1, "inconclusive": 2, "verified": 3, "skipped": 4}
    worst_name = min(outcomes, key=lambda k: (order.get(outcomes[k].status, 5),
                                              outcomes[k].margin if outcomes[k].margin is not None else math.inf))
    w = outcomes[worst_name]
    parts = {k: {"status": o.status, "measured": o.measured, "bound": o.bound, "margin": o.margin,
                 "tightness": o.tightness, "instances": o.instances} for k, o in outcomes.items()}
    cx = next((o.counterexample for o in outcomes.values() if o.counterexample), None)
    return Outcome(w.status, w.measured, w.bound, w.margin, w.tightness,
                   sum(o.instances for o in outcomes.values()), cx,
                   (note + f" [worst part: {worst_name}]").strip(), {"parts": _jsonable(parts)})


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return v if math.isfinite(v) else repr(v)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    return x
