r"""``audit(aggregator)``: every property of an aggregator of the client losses, searched by Hypothesis.

An objective written as text instead (``audit("mean(f) + lambda * std(f)", params={"lambda": ("0", "1/sqrt(n -
1)")})``, the term language of :mod:`fairtheory.testing.expr`) is decided where the proof kernel can:
:func:`fairtheory.testing.decide.audit_expression` (``proved`` / ``refuted`` with re-checked certificates, else
``checked`` with the reason; docs/audit.md).  What follows is the numeric audit of aggregator objects.

One call runs each property with strategies suited to it and returns a table of held / violated with
the *shrunk* (smallest) counterexample Hypothesis found.

The aggregator is any object with the public protocol :class:`fairtheory.aggregators.Aggregator` - no base
class, no underscore method:

* ``n``: the number of clients;
* ``value(f)``: ``A(f)``, a real number, for a loss vector ``f`` (a float64 array of shape ``(n,)``);
* ``weights(f)``: ``grad_f A(f)`` (a subgradient where ``A`` has kinks), an array of shape ``(n,)``;
* optional: ``p`` (client weights, default uniform), ``domain`` (``(lo, hi)``: losses ``lo <= f < hi``),
  ``client_values(f, eta)``/``client_grads(f, eta)`` (the separable form), ``curvature(f)``, ``cvxpy(t)``.

(:class:`fairtheory.aggregators.BaseAggregator` is a convenience for subclasses - it validates ``f`` and calls
``_value``/``_weights`` - that the audit does not need.)

The search is reproducible and does not depend on the Hypothesis profile the caller has loaded: every
setting that decides which examples are drawn and how they shrink is fixed here (:data:`SETTINGS`: not
derandomized - ``seed`` seeds it -, no example database, every phase up to shrinking, no deadline, no
health check), and ``max_examples`` comes from the argument.  The same ``seed`` and ``max_examples`` give
the same report under any profile.

Properties (``A`` the aggregator, ``w(f)`` its ``weights``, ``p`` its client weights or uniform):

required - what the algorithms and the exact solver rely on:

* ``defined``: ``A(f)`` and ``w(f)`` are finite for every loss vector of the domain;
* ``subgradient``: ``A(g) >= A(f) + w(f) . (g - f)`` (the weights are a (sub)gradient; with convexity
  this is what ``weights`` promises);
* ``weights_nonnegative``: ``w(f) >= 0`` (a monotone aggregator; the epigraph solve and its duality
  certificate need it);
* ``monotone``: ``A(f + d e_i) >= A(f)`` for single-client increases ``d > 0`` of a drawn client and of
  the client with the smallest weight (the direct test; a non-monotone aggregator such as
  ``mean + 0.5 std`` fails it near an outlier client);
* ``convex``: ``A(t f + (1-t) g) <= t A(f) + (1-t) A(g)``;
* ``separable_form`` (aggregators with ``client_grads``/``client_values``): ``A(f) = min_eta
  sum_i p_i h_i(f_i, eta)`` and ``client_grads`` are the partial derivatives of ``client_values``.

informational - properties of coherent risk measures that many fairness objectives lack on purpose
(q-FFL and PropFair are not translation equivariant, TERM is not positively homogeneous):

* ``translation_equivariant``: ``A(f + c) = A(f) + c``;
* ``positively_homogeneous``: ``A(s f) = s A(f)``;
* ``between_mean_and_max``: ``p . f <= A(f) <= max_{p_i > 0} f_i``.

The aggregator's own code is never trusted: every call of ``value``, ``weights``, ``curvature``,
``client_values``, ``client_grads`` and ``cvxpy`` is guarded.  An exception it raises, a non-finite
number or a wrongly shaped array it returns on a loss vector of the domain is a *counterexample*: of
the property whose search met it (with the offending input and the exception's message) and of
``defined`` (when that row is requested and had held).  The audit itself never aborts on such an
aggregator; it goes on with the other properties.

Loss vectors are drawn from :func:`~fairtheory.testing.loss_vectors` (ties, extreme values) mixed with
single-outlier vectors (all clients equal but one).  Comparisons allow ``rtol`` times the largest
magnitude involved (float rounding; default ``1e-9``); derivative checks by central differences
allow ``1e-5`` relative.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

from fairtheory._validation import check_in_range, check_integer
from fairtheory.aggregators import Aggregator, is_separable
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.testing.expr import Objective, parse
from fairtheory.testing.strategies import loss_vectors

__all__ = ["audit", "audit_expression", "AuditReport", "PropertyResult", "REQUIRED", "INFORMATIONAL", "SETTINGS"]

REQUIRED = ("defined", "subgradient", "weights_nonnegative", "monotone", "convex", "separable_form")
INFORMATIONAL = ("translation_equivariant", "positively_homogeneous", "between_mean_and_max")
_FD_RTOL = 1e-5

#: the Hypothesis settings of every search besides ``max_examples``: all of them, so that nothing is inherited
#: from the profile the caller has loaded (a derandomized or shrink-free profile would change the counterexamples)
SETTINGS: dict[str, Any] = {
    "derandomize": False,          # the search is seeded by ``audit(seed=...)`` instead
    "database": None,              # no replay of examples saved by earlier runs
    "deadline": None,
    "phases": ("explicit", "reuse", "generate", "target", "shrink"),
    "suppress_health_check": "all",
    "report_multiple_bugs": False,
    "print_blob": False,
    "verbosity": "quiet",
    "stateful_step_count": 50,
    "backend": "hypothesis",
}
_EPS = float(np.finfo(np.float64).eps)


@dataclass
class PropertyResult:
    """One row of an audit: ``status`` is ``"held"``, ``"violated"`` or ``"not applicable"``."""

    name: str
    required: bool
    status: str
    examples: int
    counterexample: dict[str, Any] | None = None
    message: str = ""


@dataclass
class AuditReport:
    """What :func:`audit` returns; ``passed`` is whether every required property held."""

    aggregator: str
    rows: list[PropertyResult] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(r.status != "violated" for r in self.rows if r.required)

    def __getitem__(self, name: str) -> PropertyResult:
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(name)

    def violated(self) -> list[str]:
        """Names of the violated properties (required and informational)."""
        return [r.name for r in self.rows if r.status == "violated"]

    def table(self) -> str:
        """A plain-text table: property, kind, status, examples tried, counterexample."""
        lines = [f"audit of {self.aggregator}: {'PASSED' if self.passed else 'FAILED'} (required properties)",
                 f"{'property':26s} {'kind':13s} {'status':15s} {'examples':>8s}  counterexample"]
        for r in self.rows:
            cx = "" if r.counterexample is None else _fmt_cx(r.counterexample)
            kind = "required" if r.required else "informational"
            lines.append(f"{r.name:26s} {kind:13s} {r.status:15s} {r.examples:>8d}  {cx}")
        return "\n".join(lines)

    __str__ = table


def _fmt_cx(cx: dict[str, Any]) -> str:
    def f(v: Any) -> str:
        if isinstance(v, np.ndarray):
            return np.array2string(v, precision=6, separator=", ")
        if isinstance(v, float):
            return f"{v:.6g}"
        return repr(v)

    return ", ".join(f"{k}={f(v)}" for k, v in cx.items())


def audit(aggregator: Aggregator | str, *, max_examples: int | None = None, seed: int = 0,
          min_loss: float | None = None, max_loss: float | None = None, rtol: float = 1e-9,
          properties: tuple[str, ...] | None = None, params: dict[str, Any] | None = None) -> Any:
    r"""Search for violations of every property of ``aggregator`` (see the module docstring); or, for an objective
    given as text in the term language (:mod:`fairtheory.testing.expr`, e.g. ``"mean(f) + lambda * std(f)"`` with
    ``params={"lambda": ("0", "1/sqrt(n - 1)")}``), decide each property exactly where the kernel can
    (:func:`fairtheory.testing.decide.audit_expression`: ``proved`` / ``refuted`` with a re-checked certificate, else
    ``checked`` with the reason) and return an :class:`~fairtheory.testing.decide.ExpressionAudit`.

    Parameters
    ----------
    aggregator : any object with ``n``, ``value(f)`` and ``weights(f)`` (the protocol
        :class:`~fairtheory.aggregators.Aggregator`; optional ``p``, ``domain``, separable form, ``curvature``,
        ``cvxpy`` - module docstring).  No base class or underscore method is needed.
    max_examples : Hypothesis examples per property (``>= 1``).
    seed : seeds the search (``>= 0``): the same seed and ``max_examples`` give the same report, whatever
        Hypothesis profile is loaded (:data:`SETTINGS`).
    min_loss, max_loss : loss range searched; default ``[0, 100]`` clipped to the aggregator's
        ``domain`` (e.g. PropFair's ``f < M``).
    rtol : relative float-rounding slack of the comparisons.
    properties : names to run (default: all of :data:`REQUIRED` and :data:`INFORMATIONAL`; for text:
        :data:`fairtheory.testing.decide.PROPERTIES`).
    params : text objectives only: ``{name: (lo, hi)}``, the parameters the text uses and their ranges (ends:
        numbers or expressions in ``n``).

    Returns
    -------
    AuditReport, whose ``table()`` lists each property with its shrunk counterexample (an ``ExpressionAudit`` for
    text).  ``max_examples`` defaults to 300 per property (60 per search for text, which runs one search per number
    of clients and parameter value).
    """
    if isinstance(aggregator, (str, Objective)):
        if min_loss is not None or max_loss is not None:
            raise FairtheoryValueError("min_loss and max_loss apply to aggregator objects only; a text objective is "
                                       "decided for every loss vector")
        return audit_expression(aggregator, params=params, max_examples=60 if max_examples is None else max_examples,
                                seed=seed, properties=properties)
    if params is not None:
        raise FairtheoryValueError("params applies to objectives given as text only; got an aggregator object")
    max_examples = 300 if max_examples is None else max_examples
    if not isinstance(aggregator, Aggregator):
        raise FairtheoryTypeError(f"aggregator must have value(f), weights(f) and n, got {type(aggregator).__name__}")
    max_examples = check_integer(max_examples, "max_examples", low=1)
    seed = check_integer(seed, "seed", low=0)
    rtol = check_in_range(rtol, "rtol", low=0.0)
    n = _attribute_n(aggregator)
    dlo, dhi = _attribute_domain(aggregator)
    lo = max(0.0 if min_loss is None else check_in_range(min_loss, "min_loss"), dlo)
    hi_default = 100.0 if not math.isfinite(dhi) else min(100.0, dhi - 1e-3 * max(1.0, abs(dhi)))
    hi = hi_default if max_loss is None else check_in_range(max_loss, "max_loss")
    if hi >= dhi:
        raise FairtheoryValueError(f"max_loss must lie below the aggregator's domain end {dhi!r}, got {hi!r}")
    if not lo < hi:
        raise FairtheoryValueError(f"min_loss must be < max_loss, got [{lo!r}, {hi!r}]")
    names = REQUIRED + INFORMATIONAL if properties is None else tuple(properties)
    unknown = [k for k in names if k not in REQUIRED + INFORMATIONAL]
    if unknown:
        raise FairtheoryValueError(f"properties must be among {REQUIRED + INFORMATIONAL}, got {unknown}")
    p = _attribute_p(aggregator, n)
    ctx = _Ctx(aggregator, n, lo, hi, rtol, p)
    report = AuditReport(_name(aggregator), settings={"max_examples": max_examples, "seed": seed,
                                                      "loss_range": (lo, hi), "rtol": rtol})
    for name in names:
        strategy, check = _PROPERTIES[name](ctx)
        if strategy is None:
            report.rows.append(PropertyResult(name, name in REQUIRED, "not applicable", 0,
                                              message="the aggregator has no separable form"))
            continue
        cx, tried = _search(strategy, check, max_examples, seed, ctx.failures)
        status = "held" if cx is None else "violated"
        report.rows.append(PropertyResult(name, name in REQUIRED, status, tried,
                                          None if cx is None else cx[0], "" if cx is None else cx[1]))
    # the aggregator failed (raised, non-finite, wrong shape) on a domain point met by another search:
    # it is not defined there, whatever the ``defined`` search itself drew
    for r in report.rows:
        if r.name == "defined" and r.status == "held" and ctx.failures:
            r.status, (r.counterexample, r.message) = "violated", ctx.failures[0]
    return report


def _name(aggregator: Any) -> str:
    try:
        return str(repr(aggregator))
    except Exception:  # noqa: BLE001 - a broken __repr__ must not stop the audit
        return f"<{type(aggregator).__name__} (repr failed)>"


def _attribute_n(aggregator: Any) -> int:
    """``aggregator.n`` as an integer ``>= 1`` (a broken or non-integer attribute is a named error)."""
    try:
        n = aggregator.n
    except Exception as exc:  # noqa: BLE001 - a property of user code
        raise FairtheoryTypeError(f"aggregator.n must be the number of clients, reading it raised "
                                  f"{type(exc).__name__}: {exc}") from exc
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise FairtheoryTypeError(f"aggregator.n must be an integer >= 1, got {n!r}")
    return check_integer(int(n), "aggregator.n", low=1)


def _attribute_domain(aggregator: Any) -> tuple[float, float]:
    """``aggregator.domain`` (default the real line) as two floats ``lo < hi`` (``lo`` may be ``-inf``)."""
    dom = getattr(aggregator, "domain", (-math.inf, math.inf))
    try:
        lo, hi = (float(x) for x in dom)
    except Exception as exc:  # noqa: BLE001 - user attribute of any type
        raise FairtheoryTypeError(f"aggregator.domain must be a pair (lo, hi) of numbers, got {dom!r}") from exc
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise FairtheoryValueError(f"aggregator.domain must be a pair lo < hi, got {dom!r}")
    return lo, hi


def _attribute_p(aggregator: Any, n: int) -> np.ndarray:
    """``aggregator.p`` (default uniform) as a finite nonnegative float vector of shape ``(n,)``."""
    raw = getattr(aggregator, "p", None)
    if raw is None:
        return np.full(n, 1.0 / n)
    try:
        from fairtheory.backend import to_numpy

        p = np.asarray(to_numpy(raw))
        ok = p.dtype.kind in "fiu" and p.shape == (n,)
        p = p.astype(np.float64) if ok else p
    except Exception:  # noqa: BLE001 - user attribute of any type
        ok = False
    if not ok or not (np.all(np.isfinite(p)) and np.all(p >= 0) and p.sum() > 0):
        raise FairtheoryValueError(f"aggregator.p must be nonnegative client weights of shape ({n},), got {raw!r}")
    return p


# ---------------------------------------------------------------------------------------- machinery
@dataclass
class _Ctx:
    agg: Any
    n: int
    lo: float
    hi: float
    rtol: float
    p: np.ndarray
    #: ``(counterexample, message)`` of every failure of the aggregator met by any search (first first)
    failures: list[tuple[dict[str, Any], str]] = field(default_factory=list)

    def losses(self) -> st.SearchStrategy[np.ndarray]:
        """Loss vectors of the range: general ones (ties, extremes) and single-outlier ones (all clients
        equal but one), where non-monotone or non-convex aggregators typically break."""
        return st.one_of(loss_vectors(n=self.n, min_value=self.lo, max_value=self.hi), self.outliers())

    def outliers(self) -> st.SearchStrategy[np.ndarray]:
        vals = st.one_of(st.sampled_from([self.lo, self.hi, 0.5 * (self.lo + self.hi)]),
                         st.floats(self.lo, self.hi, allow_nan=False, allow_subnormal=False))

        def build(x: tuple[float, float, int]) -> np.ndarray:
            base, out, i = x
            f = np.full(self.n, base)
            f[i] = out
            return f

        return st.tuples(vals, vals, st.integers(0, self.n - 1)).map(build)

    def A(self, f: np.ndarray) -> float:
        """``A(f)`` through :func:`_user_scalar`: a failure of the aggregator raises :class:`_UserFailure`."""
        return _user_scalar(lambda: self.agg.value(np.array(f, dtype=np.float64)), "value(f)", f)

    def w(self, f: np.ndarray) -> np.ndarray:
        """``weights(f)`` through :func:`_user_vector` (finite, shape ``(n,)``)."""
        return _user_vector(lambda: self.agg.weights(np.array(f, dtype=np.float64)), "weights(f)", f, self.n)

    def slack(self, *vals: Any) -> float:
        return self.rtol * max([1.0] + [float(np.max(np.abs(v))) for v in vals])


Check = Callable[[Any], "tuple[dict[str, Any], str] | None"]


class _Overflow(ArithmeticError):
    """A value of the check does not fit float64: not a counterexample of the property (the
    ``defined`` property reports non-finite values of ``A`` and its weights)."""


def _finite(x: Any, what: str) -> Any:
    if not np.all(np.isfinite(x)):
        raise _Overflow(f"{what} is not finite: {x!r}")
    return x


class _UserFailure(Exception):
    """The aggregator's code raised, or returned a non-finite or wrongly shaped result, at ``f``."""

    def __init__(self, message: str, f: Any) -> None:
        super().__init__(message)
        self.f = f


def _user_call(fn: Callable[[], Any], what: str, f: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - user code failing on a domain point is a finding
        raise _UserFailure(f"{what} raised {type(exc).__name__}: {exc}", f) from exc


def _as_real(out: Any, what: str, f: Any) -> np.ndarray:
    from fairtheory.backend import to_numpy

    try:
        arr = np.asarray(to_numpy(out))
    except Exception as exc:  # noqa: BLE001 - any object a user may return
        raise _UserFailure(f"{what} returned {type(out).__name__}, not numbers ({exc})", f) from exc
    if arr.dtype.kind not in "fiu":
        raise _UserFailure(f"{what} returned {arr.dtype} data, not real numbers: {out!r}", f)
    return arr.astype(np.float64)


def _user_scalar(fn: Callable[[], Any], what: str, f: Any) -> float:
    """A real finite scalar (shape ``()`` or one entry) returned by user code, else :class:`_UserFailure`."""
    arr = _as_real(_user_call(fn, what, f), what, f)
    if arr.size != 1:
        raise _UserFailure(f"{what} must return a real scalar, got an array of shape {arr.shape}", f)
    v = float(arr.reshape(()))
    if not math.isfinite(v):
        raise _UserFailure(f"{what} returned a non-finite value {v!r}", f)
    return v


def _user_vector(fn: Callable[[], Any], what: str, f: Any, n: int) -> np.ndarray:
    """A real finite vector of shape ``(n,)`` returned by user code, else :class:`_UserFailure`."""
    arr = _as_real(_user_call(fn, what, f), what, f)
    if arr.shape != (n,):
        raise _UserFailure(f"{what} must return one number per client, shape ({n},), got shape {arr.shape}", f)
    if not np.all(np.isfinite(arr)):
        k = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise _UserFailure(f"{what} returned a non-finite entry {arr[k]!r} at index {k}", f)
    return arr


def _user_array(fn: Callable[[], Any], what: str, f: Any, n: int) -> np.ndarray:
    """A real vector of shape ``(n,)`` from user code (raising or a wrong shape: :class:`_UserFailure`);
    non-finite entries raise :class:`_Overflow` (a separable form's ``h`` may legitimately overflow
    away from its minimising ``eta``)."""
    arr = _as_real(_user_call(fn, what, f), what, f)
    if arr.shape != (n,):
        raise _UserFailure(f"{what} must return one number per client, shape ({n},), got shape {arr.shape}", f)
    return _finite(arr, what)


def _checked(check: Check, x: Any, failures: list[tuple[dict[str, Any], str]] | None = None
             ) -> tuple[dict[str, Any], str] | None:
    """``check(x)`` with numpy's warnings silenced; an example whose values overflow is skipped; a failure
    of the aggregator is a counterexample (and is recorded in ``failures`` for the ``defined`` row)."""
    import warnings

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return check(x)
        except _Overflow:
            return None
        except _UserFailure as exc:
            out = ({"f": exc.f}, f"the aggregator is not defined here: {exc}")
            if failures is not None:
                failures.append(out)
            return out


def _search(strategy: st.SearchStrategy[Any], check: Check, max_examples: int, seed: int,
            failures: list[tuple[dict[str, Any], str]] | None = None
            ) -> tuple[tuple[dict[str, Any], str] | None, int]:
    """Smallest example violating ``check`` (Hypothesis ``find``, shrunk) and the examples tried.

    The check of the shrunk example is re-run; an aggregator whose answer changes between two calls
    on the same input (a flaky example) is reported with the first counterexample seen."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    tried = [0]
    first: list[tuple[dict[str, Any], str]] = []

    def bad(x: Any) -> bool:
        tried[0] += 1
        out = _checked(check, x, failures)
        if out is not None and not first:
            first.append(out)
        return out is not None

    cfg = _settings(max_examples)
    try:
        ex = find(strategy, bad, settings=cfg, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        return None, min(tried[0], max_examples)
    except Exception as exc:  # noqa: BLE001 - Hypothesis' Flaky and friends: keep the first counterexample
        if first:
            cx, msg = first[0]
            return (cx, f"{msg} (not reproducible: {type(exc).__name__})"), tried[0]
        raise
    out = _checked(check, ex)
    if out is None:  # the same input passed on re-evaluation: the aggregator is not deterministic
        cx, msg = first[0]
        return (cx, f"{msg} (not reproducible: the aggregator's answer changed between two calls)"), tried[0]
    return out, tried[0]


def _settings(max_examples: int) -> Any:
    """Hypothesis settings of one search: :data:`SETTINGS` and ``max_examples``, on the library's own defaults
    (``parent`` given explicitly: never the profile the caller has loaded)."""
    from hypothesis import HealthCheck, Phase, Verbosity, settings

    cfg = dict(SETTINGS)
    cfg["phases"] = tuple(Phase[name] for name in cfg["phases"])
    cfg["suppress_health_check"] = list(HealthCheck)
    cfg["verbosity"] = Verbosity[cfg["verbosity"]]
    known = {k: v for k, v in cfg.items() if hasattr(_PRISTINE, k)}  # ``backend`` exists from Hypothesis 6.103
    return settings(_PRISTINE, max_examples=max_examples, **known)


def _pristine() -> Any:
    """Hypothesis' built-in default settings, read before any profile can be loaded over them (a profile
    registered later under the name ``default`` changes nothing here: every field is set in :func:`_settings`)."""
    from hypothesis import settings

    return settings.get_profile("default")


_PRISTINE = _pristine()


def _defined(c: _Ctx) -> tuple[Any, Check]:
    """``value``, ``weights`` (and ``curvature`` where offered) finite, of the right shape and raising
    nothing; a ``cvxpy`` form (where offered) builds a convex expression of a loss-vector variable."""
    cvx_failure: list[tuple[dict[str, Any], str]] = []
    if callable(getattr(c.agg, "cvxpy", None)):
        cvx_failure = _cvxpy_failure(c)

    def check(f: np.ndarray) -> tuple[dict[str, Any], str] | None:
        if cvx_failure:
            return cvx_failure[0]
        c.A(f)
        c.w(f)
        if callable(getattr(c.agg, "curvature", None)):
            _user_vector(lambda: c.agg.curvature(np.array(f, dtype=np.float64)), "curvature(f)", f, c.n)
        return None

    return c.losses(), check


def _cvxpy_failure(c: _Ctx) -> list[tuple[dict[str, Any], str]]:
    """``[]`` when ``agg.cvxpy(t)`` builds a scalar convex (DCP) expression of a variable ``t`` of shape
    ``(n,)``, else the failure as a counterexample (what :func:`~fairtheory.exact.aggregate.solve_aggregator`
    minimises over ``t >= f(w)``)."""
    import warnings

    import cvxpy as cp

    t = cp.Variable(c.n, name="t")
    cx = {"t": f"cvxpy.Variable({c.n})"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expr = c.agg.cvxpy(t)
            ok = isinstance(expr, cp.Expression) and expr.size == 1 and expr.is_convex()
    except Exception as exc:  # noqa: BLE001 - user code
        return [(cx, f"the aggregator is not defined here: cvxpy(t) raised {type(exc).__name__}: {exc}")]
    if not ok:
        return [(cx, f"cvxpy(t) must return a scalar convex cvxpy expression of t, got {expr!r}")]
    return []


def _subgradient(c: _Ctx) -> tuple[Any, Check]:
    def check(fg: tuple[np.ndarray, np.ndarray]) -> tuple[dict[str, Any], str] | None:
        f, g = fg
        a, b, w = c.A(f), c.A(g), c.w(f)
        lin = a + float(w @ (g - f))
        if b < lin - c.slack(a, b, lin, np.abs(w) * np.abs(g - f)):
            return {"f": f, "g": g}, f"A(g) = {b!r} < A(f) + w(f).(g - f) = {lin!r}"
        return None

    return st.tuples(c.losses(), c.losses()), check


def _weights_nonnegative(c: _Ctx) -> tuple[Any, Check]:
    def check(f: np.ndarray) -> tuple[dict[str, Any], str] | None:
        w = c.w(f)
        i = int(np.argmin(w))
        if w[i] < -c.rtol * max(1.0, float(np.abs(w).max())):
            return {"f": f}, f"weights[{i}] = {w[i]!r} < 0"
        return None

    return c.losses(), check


def _monotone(c: _Ctx) -> tuple[Any, Check]:
    span = c.hi - c.lo

    def check(x: tuple[np.ndarray, int, float]) -> tuple[dict[str, Any], str] | None:
        f, i, frac = x
        # the drawn client, and the client with the smallest weight (where a decrease shows first)
        for k in dict.fromkeys((i, int(np.argmin(c.w(f))))):
            g = f.copy()
            g[k] = min(f[k] + frac * span, c.hi)
            if g[k] <= f[k]:
                continue
            a, b = c.A(f), c.A(g)
            if b < a - c.slack(a, b):
                return {"f": f, "client": k, "increase": float(g[k] - f[k])}, f"A(f) = {a!r} > A(f + d e_i) = {b!r}"
        return None

    incr = st.one_of(st.sampled_from([1e-3, 1e-2, 0.1]), st.floats(1e-6, 1.0))
    return st.tuples(c.losses(), st.integers(0, c.n - 1), incr), check


def _convex(c: _Ctx) -> tuple[Any, Check]:
    def check(x: tuple[np.ndarray, np.ndarray, float]) -> tuple[dict[str, Any], str] | None:
        f, g, t = x
        m = c.A(t * f + (1 - t) * g)
        rhs = t * c.A(f) + (1 - t) * c.A(g)
        if m > rhs + c.slack(m, rhs, f, g):
            return {"f": f, "g": g, "t": t}, f"A(t f + (1-t) g) = {m!r} > t A(f) + (1-t) A(g) = {rhs!r}"
        return None

    return st.tuples(c.losses(), c.losses(), st.floats(0.0, 1.0)), check


def _separable(c: _Ctx) -> tuple[Any, Check]:
    if not is_separable(c.agg):
        return None, lambda x: None
    from scipy.optimize import minimize_scalar

    agg = c.agg

    def h(f: np.ndarray, E: np.ndarray) -> np.ndarray:
        return _user_array(lambda: agg.client_values(f.copy(), E.copy()), "client_values(f, eta)", f, c.n)

    def J_err(f: np.ndarray, eta: float) -> tuple[float, float]:
        """``J = sum_i p_i h_i(f_i, eta)`` and a bound on its float rounding: ``h_i`` of a far ``eta``
        cancel (``(f_i - eta)/alpha_i + eta``), so J may be off by ``eps (sum p |h| + |eta| + max |f|)``."""
        hv = h(f, np.full(c.n, eta))
        val = _finite(float(c.p @ hv), "sum_i p_i h_i(f_i, eta)")
        err = 8.0 * _EPS * (float(np.abs(c.p) @ np.abs(hv)) + abs(eta) + float(np.max(np.abs(f))))
        return val, err

    def J(f: np.ndarray, eta: float) -> float:
        """The lower end of J's rounding interval (an eta whose J may reach A(f))."""
        val, err = J_err(f, eta)
        return val - err

    def check(x: tuple[np.ndarray, float]) -> tuple[dict[str, Any], str] | None:
        f, eta = x
        a = c.A(f)
        # A(f) = min_eta J(eta): J never below A, and reaches it
        j, j_err = J_err(f, eta)
        if j + j_err < a - c.slack(a, j):
            return {"f": f, "eta": eta}, f"sum_i p_i h_i(f_i, eta) = {j!r} < A(f) = {a!r}"
        # A(f) = min_eta J: some eta reaches A(f).  Brackets around the data first (their width is that of
        # f, so eta is resolved to the data's precision: over a loss range of +-1e300 a bracket of that
        # width cannot resolve eta to mu), then the whole loss range; ends clamped to the float range
        tol = max(1e-7 * max(1.0, abs(a)), c.slack(a))
        # candidates first: the losses and A(f) itself (TERM's minimiser; near the float range a bracket
        # search cannot land on it when J is +inf on one side)
        overflowed: list[bool] = []
        best = min(_or_inf(J, f, float(e), overflowed) for e in (*np.unique(f)[:50], a))
        for lo_e, hi_e in ([] if best <= a + tol else _eta_brackets(f, c.hi - c.lo)):
            res = minimize_scalar(lambda e: _or_inf(J, f, e, overflowed), bounds=(lo_e, hi_e), method="bounded",
                                  options={"xatol": max(1e-12 * (0.5 * hi_e - 0.5 * lo_e), 5e-324)})
            best = min(best, float(res.fun))
            if best <= a + tol:
                break
        if best > a + tol:
            if overflowed:  # some h_i(f_i, eta) exceeded the float range (losses ~1e308): not decidable here
                raise _Overflow("sum_i p_i h_i(f_i, eta) overflowed near its minimiser")
            return {"f": f}, f"min_eta sum_i p_i h_i = {best!r} > A(f) = {a!r}"
        # client_grads are the partial derivatives of client_values (central differences)
        E = np.full(c.n, eta)
        grads = _user_call(lambda: agg.client_grads(f.copy(), E.copy()), "client_grads(f, eta)", f)
        if not isinstance(grads, (tuple, list)) or len(grads) != 2:
            raise _UserFailure(f"client_grads(f, eta) must return a pair (dh/df, dh/deta), got {grads!r}", f)
        df, deta = (_user_array(lambda v=v: v, "client_grads(f, eta)", f, c.n) for v in grads)
        st_ = 1e-6 * max(1.0, float(np.abs(f).max()), abs(eta))
        hf = _finite((h(f + st_, E) - h(f - st_, E)) / (2 * st_), "finite differences")
        he = _finite((h(f, E + st_) - h(f, E - st_)) / (2 * st_), "finite differences")
        for name, an, fd, idx in (("dh/df", df, hf, 0), ("dh/deta", deta, he, 1)):
            err = np.abs(an - fd)
            tol = _FD_RTOL * np.maximum(1.0, np.abs(fd))
            if not np.any(err > tol):
                continue
            # a difference quotient over [x - h, x + h] is the derivative at some point of that interval
            # (mean value theorem): where the derivatives at x - h, x, x + h bracket it, the step is
            # merely coarser than the function's curvature scale (a softplus kink of width mu at losses
            # 1e300, where no step finer than 1e284 exists) - not a wrong derivative
            lo_d, hi_d = (_grads_at(agg, f + sg * st_ * (idx == 0), E + sg * st_ * (idx == 1), idx, f, c.n)
                          for sg in (-1.0, 1.0))
            lo_b = np.minimum(np.minimum(lo_d, hi_d), an) - tol
            hi_b = np.maximum(np.maximum(lo_d, hi_d), an) + tol
            outside = (err > tol) & ((fd < lo_b) | (fd > hi_b))
            if np.any(outside):
                k = int(np.flatnonzero(outside)[np.argmax((err / tol)[outside])])
                return {"f": f, "eta": eta}, f"{name}[{k}] = {an[k]!r} but finite differences give {fd[k]!r}"
        return None

    etas = st.floats(c.lo, c.hi)
    return st.tuples(c.losses(), etas), check


def _grads_at(agg: Any, fx: np.ndarray, E: np.ndarray, idx: int, f: np.ndarray, n: int) -> np.ndarray:
    """Entry ``idx`` (0: ``dh/df``, 1: ``dh/deta``) of ``agg.client_grads(fx, E)``, guarded (reported at ``f``)."""
    grads = _user_call(lambda: agg.client_grads(fx.copy(), E.copy()), "client_grads(f, eta)", f)
    if not isinstance(grads, (tuple, list)) or len(grads) != 2:
        raise _UserFailure(f"client_grads(f, eta) must return a pair (dh/df, dh/deta), got {grads!r}", f)
    return _user_array(lambda: grads[idx], "client_grads(f, eta)", f, n)


def _eta_brackets(f: np.ndarray, loss_span: float) -> list[tuple[float, float]]:
    """``[min f - s, max f + s]`` for ``s`` = the spread of ``f`` (at least 1), then the loss range's width,
    then ``[f_i - 1e3, f_i + 1e3]`` around each distinct loss (relative width ``1e-6`` for large ``f_i``);
    computed without overflow and clamped to the float range."""
    big = float(np.finfo(np.float64).max)
    fmin, fmax = float(f.min()), float(f.max())
    out: list[tuple[float, float]] = []
    with np.errstate(over="ignore"):
        spans = [(fmin, fmax, max(1.0, fmax - fmin)), (fmin, fmax, max(1.0, loss_span))]
        # then around each distinct loss: the minimising eta of a separable form sits near the losses
        # (TERM: A(f); smoothed Q_alpha: a loss plus mu log(...)), resolved to 1e-9 even when f spans 1e300
        spans += [(x, x, 1e3 * max(1.0, 1e-9 * abs(x))) for x in np.unique(f)[:50]]
        for a, b, s in spans:
            s = min(s, big) if math.isfinite(s) else big
            lo, hi = max(-big, a - s), min(big, b + s)
            if (lo, hi) not in out:
                out.append((lo, hi))
    return out


def _or_inf(J: Callable[[np.ndarray, float], float], f: np.ndarray, eta: float, overflowed: list[bool]) -> float:
    """``J(f, eta)``, or ``+inf`` (noted in ``overflowed``) where it does not fit a float64."""
    try:
        return J(f, eta)
    except _Overflow:
        overflowed.append(True)
        return math.inf


def _translation(c: _Ctx) -> tuple[Any, Check]:
    def check(x: tuple[np.ndarray, float]) -> tuple[dict[str, Any], str] | None:
        f, s = x
        if not (c.lo <= float(f.min()) + s and float(f.max()) + s <= c.hi):
            return None
        a, b = c.A(f), c.A(f + s)
        if abs(b - (a + s)) > c.slack(a, b, f + s):
            return {"f": f, "shift": s}, f"A(f + c) = {b!r} != A(f) + c = {a + s!r}"
        return None

    return st.tuples(c.losses(), st.floats(-(c.hi - c.lo), c.hi - c.lo)), check


def _homogeneous(c: _Ctx) -> tuple[Any, Check]:
    def check(x: tuple[np.ndarray, float]) -> tuple[dict[str, Any], str] | None:
        f, s = x
        g = s * f
        if not (np.all(g >= c.lo) and np.all(g <= c.hi)):
            return None
        a, b = c.A(f), c.A(g)
        if abs(b - s * a) > c.slack(a, b, g):
            return {"f": f, "scale": s}, f"A(s f) = {b!r} != s A(f) = {s * a!r}"
        return None

    return st.tuples(c.losses(), st.floats(0.0, 4.0)), check


def _between(c: _Ctx) -> tuple[Any, Check]:
    def check(f: np.ndarray) -> tuple[dict[str, Any], str] | None:
        a = c.A(f)
        mean, top = float(c.p @ f), float(f[c.p > 0].max())
        sl = c.slack(a, f)
        if not mean - sl <= a <= top + sl:
            return {"f": f}, f"A(f) = {a!r} outside [p . f, max f] = [{mean!r}, {top!r}]"
        return None

    return c.losses(), check


_PROPERTIES: dict[str, Callable[[_Ctx], tuple[Any, Check]]] = {
    "defined": _defined,
    "subgradient": _subgradient,
    "weights_nonnegative": _weights_nonnegative,
    "monotone": _monotone,
    "convex": _convex,
    "separable_form": _separable,
    "translation_equivariant": _translation,
    "positively_homogeneous": _homogeneous,
    "between_mean_and_max": _between,
}


# ------------------------------------------------------------------------------------------ text objectives
def audit_expression(objective: Any, *, params: dict[str, Any] | None = None, max_examples: int = 60, seed: int = 0,
                     ns: tuple[int, ...] = (2, 3, 5), properties: tuple[str, ...] | None = None) -> Any:
    r"""Decide each property of ``objective`` (text in the term language, or a parsed :class:`Objective`).

    Each row is ``proved`` / ``refuted`` only with a certificate :func:`fairtheory_kernel.check.check_proof`
    re-checked here (``permutation_invariant``: by the construction of the language, said in the row); otherwise
    ``checked`` with the reason, and the numeric search (Hypothesis, ``max_examples`` per number of clients in
    ``ns`` and parameter value at the range's ends and middle) beside every row."""
    from fairtheory.testing.decide import PROPERTIES, Decision, ExpressionAudit, decide_property

    obj = objective if isinstance(objective, Objective) else parse(objective, params=params)
    if isinstance(objective, Objective) and params is not None:
        raise FairtheoryValueError("params must be None when objective is already parsed (its ranges are in it)")
    max_examples = check_integer(max_examples, "max_examples", low=1)
    seed = check_integer(seed, "seed", low=0)
    if not isinstance(ns, tuple) or not ns or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in ns):
        raise FairtheoryTypeError(f"ns must be a non-empty tuple of client counts >= 1, got {ns!r}"[:200])
    names = PROPERTIES if properties is None else tuple(properties)
    unknown = [p for p in names if p not in PROPERTIES]
    if unknown:
        raise FairtheoryValueError(f"properties must be among {PROPERTIES}, got {unknown}")
    out = ExpressionAudit(obj.text, {k: v for k, v in (params or {}).items()},
                          settings={"max_examples": max_examples, "seed": seed, "ns": ns})
    for prop in names:
        status, reason, cert, words = decide_property(obj, prop)
        numeric, cx = _numeric(obj, prop, max_examples, seed, ns) if status != "not applicable" else ("", None)
        out.rows.append(Decision(prop, status, reason, cert, words, numeric, cx))
    return out


def _numeric(obj: Objective, prop: str, max_examples: int, seed: int, ns: tuple[int, ...]) -> tuple[str, Any]:
    from fairtheory.testing.decide import _ExprAggregator, _grid

    numeric_audit = audit
    if prop == "permutation_invariant":
        rng = np.random.default_rng(seed)
        tried = 0
        for n, vals in _grid(obj, ns):
            for _ in range(max(1, max_examples // 10)):
                f = rng.normal(size=n) * 3
                a, b = obj.value(f, vals), obj.value(f[rng.permutation(n)], vals)
                tried += 1
                if not abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)):
                    return f"violated (n = {n}, {vals})", {"f": f.tolist(), **vals}
        return f"held on {tried} examples", None
    if prop == "parameter_monotone":
        if not obj.params:
            return "no parameter", None
        rng = np.random.default_rng(seed)
        tried = 0
        for n in ns:
            for name in obj.params:
                lo, hi = obj.bounds(name, n)
                lo, hi = max(lo, -10.0), min(hi, 10.0)
                if not lo < hi:
                    continue
                for _ in range(max(1, max_examples // 10)):
                    f = rng.normal(size=n) * 3
                    l1, l2 = np.sort(rng.uniform(lo, hi, size=2))
                    base = {p: float(np.clip(0.5 * sum(obj.bounds(p, n)), -10, 10)) for p in obj.params}
                    a, b = obj.value(f, dict(base, **{name: l1})), obj.value(f, dict(base, **{name: l2}))
                    tried += 1
                    if b < a - 1e-9 * max(1.0, abs(a)):
                        return f"violated (n = {n})", {"f": f.tolist(), name: (l1, l2)}
        return f"held on {tried} examples", None
    total = 0
    for n, vals in _grid(obj, ns):
        rep = numeric_audit(_ExprAggregator(obj, n, vals), max_examples=max_examples, seed=seed, min_loss=0.0,
                            max_loss=10.0, properties=(prop,))
        row = rep[prop]
        total += row.examples
        if row.status == "violated":
            return f"violated at n = {n}, {vals}: {row.message}", row.counterexample
    return f"held on {total} examples (n in {ns})", None


# ------------------------------------------------------------------------------------------ the audit
