"""Claim registry, claim results and the evidence tallies every check uses.

A claim is a function ``check(ctx) -> Outcome`` registered with :func:`claim` (built-in or from a
plugin module); like a PEPit example it returns the measured quantity next to the theoretical one.  :class:`Tally` accumulates one
inequality or equality over many instances and turns it into an :class:`Outcome` with the worst
margin, the tightness ratio and the smallest counterexample.
"""

from __future__ import annotations

import math
import re
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from verify.catalogue import CATALOGUE
from verify.outcome import STATUSES as STATUSES  # re-exported: the report orders rows by it
from verify.outcome import Outcome, Status
from verify.validate import recheck_certificates, validate_outcome

#: relative slack for floating-point rounding when comparing a computed quantity with a bound that
#: holds with equality at the tightest instances (e.g. softplus at 0).  It is a statement about
#: float64 arithmetic, fixed here once, and never tuned per claim.
ROUNDING = 1e-12

#: the largest ``rounding`` a :class:`Tally` accepts.  The slack stands for the accuracy of the computation
#: itself - float64 rounding (:data:`ROUNDING`), or at most the certified relative accuracy of the exact
#: solvers the catalogue uses (``1e-6``: :data:`fairtheory.exact.rcfl.DEFAULT_GAP_TOL`, the SDP values of
#: :mod:`verify.claims.worstcase`).  A looser slack is no longer "rounding" but a change of the claim
#: (``Tally(rounding=1e9).upper(2, 1)`` would verify ``2 <= 1``): state such a tolerance in the bound itself.
MAX_ROUNDING = 1e-6

_ID = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+")
#: a claim's citation and free-text statement are printed in reports: one line each (no control, line-breaking or
#: bidirectional-override character), of bounded length
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
MAX_CITATION = 200
MAX_STATEMENT = 1000


@dataclass(frozen=True)
class Context:
    """What a check may depend on: mode and seed.  Checks draw all randomness from :meth:`rng`.

    ``executor`` is set by the runner for claims registered with ``chunked=True`` when it runs with
    several workers; such claims evaluate their instances with :meth:`map`, which is serial otherwise."""

    quick: bool = True
    seed: int = 0
    executor: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.quick, (bool, np.bool_)):
            raise FairtheoryTypeError(
                f"Context quick must be True or False (a bool), got {type(self.quick).__name__} {self.quick!r}")
        object.__setattr__(self, "quick", bool(self.quick))
        if isinstance(self.seed, (bool, np.bool_)) or not isinstance(self.seed, (int, np.integer)):
            raise FairtheoryTypeError(f"Context seed must be an integer >= 0, got {type(self.seed).__name__} {self.seed!r}")
        if self.seed < 0:
            raise FairtheoryValueError(f"Context seed must be an integer >= 0, got {self.seed}")
        object.__setattr__(self, "seed", int(self.seed))
        if self.executor is not None and not callable(getattr(self.executor, "map", None)):
            raise FairtheoryTypeError(
                f"Context executor must be None or have a map(fn, items) method, got {type(self.executor).__name__}")

    def map(self, fn: Callable[[Any], Any], items: Any) -> list[Any]:
        """``[fn(x) for x in items]``, in order - on the runner's workers when it has any.  ``fn`` must be
        picklable (a module-level function, or ``functools.partial`` of one) and must draw its randomness
        from its item (e.g. a seed derived with :meth:`rng` before mapping), never from shared state."""
        if self.executor is None:
            return [fn(x) for x in items]
        return list(self.executor.map(fn, list(items)))

    def rng(self, salt: str = "") -> np.random.Generator:
        """A generator seeded by ``(seed, salt)`` so claims are independent and reproducible."""
        if not isinstance(salt, str):
            raise FairtheoryTypeError(f"Context.rng salt must be a string, got {type(salt).__name__}")
        key = [self.seed] + [ord(c) for c in salt]
        return np.random.default_rng(key)

    def count(self, quick: int, full: int) -> int:
        """Number of instances for the current mode (``quick`` and ``full`` integers ``>= 1``)."""
        for name, v in (("quick", quick), ("full", full)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
                raise FairtheoryValueError(f"Context.count: {name} must be an integer >= 1, got {v!r}")
        return int(quick) if self.quick else int(full)


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
    relation: str = ""
    error: float | None = None
    tolerance: float | None = None
    explain: str = ""
    source: str = "built-in"
    adversarial: float | None = None
    worstcase: float | None = None
    certificate: Any = None
    #: for a ``proved`` claim: the statements the certificates were bound to, in words (one per declared statement)
    proved_statement: list[str] | None = None

    @property
    def as_expected(self) -> bool:
        """Whether the status matches the claim's expectation (``not implemented``/``skipped`` do).

        ``proved`` where ``verified`` was expected counts as expected (a re-checked exact proof is
        stronger evidence than numbers); ``verified`` where ``proved`` was expected does not (the proof
        was lost)."""
        if self.status in ("not implemented", "skipped"):
            return True
        return self.status == self.expected or (self.status == "proved" and self.expected == "verified")

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
    source: str = "built-in"
    chunked: bool = False
    proves: Any = None
    #: the statement(s) the claim refutes (``@claim(..., refutes=...)``), in the form of ``proves``
    refutes: Any = None


#: every registered claim by id, in registration order (the runner loads plugins before the built-in modules;
#: :func:`all_ids` gives the report order: catalogue, other built-in claims, plugin claims)
REGISTRY: dict[str, ClaimSpec] = {}

EXPECTATIONS = ("proved", "verified", "refuted", "inconclusive")


def claim(claim_id: str, *, citation: str | None = None, statement: str | None = None,
          expected: str = "verified", chunked: bool = False, proves: Any = None, refutes: Any = None,
          ) -> Callable[[Callable[[Context], Outcome]], Callable[[Context], Outcome]]:
    """Register ``check(ctx) -> Outcome`` as the verification of claim ``claim_id``.

    Any id is accepted (dotted words of letters, digits, '_' and '-', e.g. ``"mine.lemma3"``).  A built-in catalogue id
    (:data:`verify.catalogue.CATALOGUE`) takes its citation and statement from the catalogue unless
    given; any other id must give both: ``citation`` (paper and label, e.g. ``"002 Lemma 2"``) and
    ``statement`` (what "verified" means, one line).  ``expected`` is ``"verified"`` unless a recorded
    finding says the claim is ``"refuted"`` (or ``"inconclusive"``), or the check returns an exact,
    re-checkable certificate (``"proved"``).  ``chunked=True`` marks a claim whose
    instances go through ``ctx.map`` (the runner then spreads them over its workers).  Registering an id
    twice raises, except that re-importing the same module replaces its own claim.

    ``proves``: the claim's statement in structured form - a statement dict of a certificate kind (e.g.
    :func:`fairtheory_kernel.pep.statement`), a list of them, or a callable ``proves(ctx)`` returning
    one or a list (when the statement depends on quick/full mode).  A claim can end ``proved`` only with it:
    the runner requires every declared statement to be implied by the statement of a certificate that
    re-checked (:func:`fairtheory_kernel.check.implies`); a claim with a free-text statement only cannot be
    ``proved`` (it ends ``error``).

    ``refutes``: the statement(s) the claim shows false, in the same forms (a symbolic statement dict of
    :mod:`fairtheory_kernel.symbolic`, a list, or a callable).  A ``refuted`` outcome may carry certificates of kind
    ``"counterexample"``; the runner re-checks them and records ``details["refuted_exactly"] = True`` only when every
    declared refuted statement implies the statement of one of them (:func:`bind_refutation`: refuting a stronger
    statement refutes no weaker one)."""
    for name, value in (("proves", proves), ("refutes", refutes)):
        if value is not None and not (callable(value) or isinstance(value, (dict, list))):
            raise ValueError(f"{name} must be a statement dict, a list of them or a callable(ctx), "
                             f"got {type(value).__name__}")
    # a statement given as data is read once, here, into plain JSON: what the runner compares and prints is this copy
    frozen = proves if proves is None or callable(proves) else freeze_statements(proves)
    frozen_refutes = refutes if refutes is None or callable(refutes) else freeze_statements(refutes)
    if not isinstance(claim_id, str) or not _ID.fullmatch(claim_id):
        raise ValueError(f"claim id must be dotted words like 'family.lemma1', got {claim_id!r}")
    if expected not in EXPECTATIONS:
        raise ValueError(f"expected must be one of {EXPECTATIONS}, got {expected!r}")
    cite_default, statement_default = CATALOGUE.get(claim_id, (None, None))
    cite = citation if citation is not None else cite_default
    stmt = statement if statement is not None else statement_default
    if not cite or not stmt:
        missing = [k for k, v in (("citation", cite), ("statement", stmt)) if not v]
        raise ValueError(f"claim {claim_id!r} is not a built-in catalogue id: give {' and '.join(missing)}")
    for what, text, cap in (("citation", cite, MAX_CITATION), ("statement", stmt, MAX_STATEMENT)):
        if not isinstance(text, str) or len(text) > cap or _CONTROL.search(text):
            raise ValueError(f"claim {claim_id!r}: {what} must be one line of at most {cap} characters without control "
                             f"characters (it is printed in reports), got {str(text)[:60]!r}")

    def deco(fn: Callable[[Context], Outcome]) -> Callable[[Context], Outcome]:
        mod = sys.modules.get(fn.__module__)
        where = fn.__module__ if fn.__module__ and not fn.__module__.startswith("fairtheory_plugin_") \
            else getattr(mod, "__file__", fn.__module__)
        source = "built-in" if fn.__module__.startswith("verify.claims") else f"plugin {where}"
        old = REGISTRY.get(claim_id)
        if old is not None and (old.check.__module__, old.check.__qualname__) != (fn.__module__, fn.__qualname__):
            raise KeyError(f"claim {claim_id!r} registered twice ({old.check.__module__} and {fn.__module__})")
        REGISTRY[claim_id] = ClaimSpec(claim_id, cite, stmt, expected, fn, source, bool(chunked), frozen,
                                       frozen_refutes)
        return fn

    return deco


def all_ids() -> list[str]:
    """Every claim id the suite knows: catalogue ids (implemented or not), the other built-in ids, then plugin
    ids (each group in registration order, whichever was loaded first)."""
    extra = [i for i in REGISTRY if i not in CATALOGUE]
    return (list(CATALOGUE) + [i for i in extra if REGISTRY[i].source == "built-in"]
            + [i for i in extra if REGISTRY[i].source != "built-in"])


def run_claim(claim_id: str, ctx: Context) -> ClaimResult:
    """Run one claim (or report it as not implemented); exceptions become status ``error``.

    This is where every claim result is finalised, whatever executor runs it: the outcome is validated
    (:func:`verify.validate.validate_outcome`; a malformed one becomes ``error`` naming the field) and
    every certificate is re-checked exactly (:func:`verify.validate.recheck_certificates`): ``proved``
    without a certificate, or with one that fails its re-check, becomes ``error``; so does any other
    status carrying a certificate that fails.  The re-check counts in the claim's seconds."""
    spec = REGISTRY.get(claim_id)
    if spec is None:
        if claim_id not in CATALOGUE:
            raise KeyError(f"no claim {claim_id!r} is registered")
        cite, statement = CATALOGUE[claim_id]
        return ClaimResult(claim_id, cite, statement, "verified", "not implemented", None, None, None,
                           None, 0, None, "no check registered yet", 0.0, {})
    t0 = time.perf_counter()
    words: list[str] | None = None
    try:
        out = finalise_outcome(spec.check(ctx))
        if out.status == "proved":
            out, words = bind_statement(out, spec, ctx)
        elif out.status == "refuted" and (spec.refutes is not None
                                          or any(is_counterexample(c) for c in _cert_list(out.certificate))):
            out = bind_refutation(out, spec, ctx)
    except Exception as exc:  # a crashing check is reported, never hidden
        out = Outcome("error", note=f"{type(exc).__name__}: {exc}",
                      details={"traceback": traceback.format_exc(limit=8)})
    secs = time.perf_counter() - t0
    return ClaimResult(spec.id, spec.citation, spec.statement, spec.expected, out.status, out.measured,
                       out.bound, out.margin, out.tightness, out.instances, out.counterexample, out.note,
                       secs, out.details, out.relation, out.error, out.tolerance, out.explain, spec.source,
                       out.adversarial, out.worstcase, out.certificate, words)


#: the frozen declared statements of callables ``proves(ctx)``, by ``(claim id, callable, quick, seed)``
_FROZEN: dict[tuple[str, int, bool, int], list[Any]] = {}


def freeze_statements(statements: Any) -> list[Any]:
    """Declared statement(s) read once into plain JSON (a list): written as canonical JSON (sorted keys, a
    :class:`~fractions.Fraction` as ``"p/q"``) and parsed back, so that whatever the original objects do later (a
    ``dict`` subclass answering differently on a second read) the copy is what is compared and printed.  Raises
    ``ValueError`` for anything that is not plain data."""
    import json
    from fractions import Fraction

    def plain(x: Any) -> Any:
        if isinstance(x, Fraction):
            return str(x)
        raise TypeError(f"{type(x).__name__} is not plain JSON data")

    items = list(statements) if isinstance(statements, (list, tuple)) else [statements]
    try:
        return json.loads(json.dumps(items, default=plain, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"a declared statement must be plain JSON data: {exc}"[:300]) from None


def declared_statements(spec: ClaimSpec, ctx: Context) -> list[Any]:
    """The claim's structured statement(s) (``@claim(..., proves=...)``) as a frozen list of plain JSON
    (:func:`freeze_statements`); ``[]`` when it has none.  Data is frozen at registration; a callable is evaluated
    once per claim and mode, and its frozen result reused."""
    return _declared(spec, spec.proves, ctx)


def declared_refutations(spec: ClaimSpec, ctx: Context) -> list[Any]:
    """The statement(s) the claim declares it refutes (``@claim(..., refutes=...)``), frozen like
    :func:`declared_statements`; ``[]`` when it declares none."""
    return _declared(spec, spec.refutes, ctx)


def _declared(spec: ClaimSpec, p: Any, ctx: Context) -> list[Any]:
    if p is None:
        return []
    if not callable(p):
        return json_copy(p)
    key = (spec.id, id(p), ctx.quick, ctx.seed)
    if key not in _FROZEN:
        import inspect

        _FROZEN[key] = freeze_statements(p(ctx) if len(inspect.signature(p).parameters) else p())
    return json_copy(_FROZEN[key])


def json_copy(x: Any) -> Any:
    """A deep copy of plain JSON data (callers may edit theirs; the frozen copy stays)."""
    import json

    return json.loads(json.dumps(x))


def bind_statement(out: Outcome, spec: ClaimSpec, ctx: Context) -> tuple[Outcome, list[str] | None]:
    """A ``proved`` outcome keeps its status only when every statement the claim declares is implied by the
    statement of one of its (already re-checked) certificates: a certificate of another problem, an edited or
    relabelled one, or a claim with a free-text statement only, ends ``error`` with a one-line reason.
    Returns the outcome and the declared statements in words (:func:`fairtheory_kernel.check.describe`)."""
    from fairtheory_kernel.check import describe, implies, statement_of

    declared = declared_statements(spec, ctx)
    if not declared:
        return _demote(out, "proved without a structured statement: the claim declares none (@claim(..., proves=...)), "
                            "and a free-text statement cannot be proved"), None
    certs = out.certificate if isinstance(out.certificate, list) else [out.certificate]
    if any(is_counterexample(c) for c in certs):  # finalise_outcome refuses these already; kept as a second guard
        return _demote(out, "a 'counterexample' certificate shows its statement false; it proves nothing"), None
    stated = [statement_of(c) for c in certs]
    for k, want in enumerate(declared):
        if not any(s is not None and implies(s, want) for s in stated):
            return _demote(out, f"no certificate proves the claim's declared statement {k + 1} of {len(declared)} "
                                f"({describe(want)[:200]})"), None
    words = [describe(d) for d in declared]
    out.details["proved_statements"] = words
    out.details["declared_statements"] = declared
    return out, words


def _cert_list(cert: Any) -> list[Any]:
    return [] if cert is None else list(cert) if isinstance(cert, list) else [cert]


def is_counterexample(cert: Any) -> bool:
    """Whether ``cert`` is a certificate of kind ``"counterexample"`` (an exact refutation)."""
    from fairtheory.proofs.recheck import is_counterexample as cx

    return cx(cert)


def finalise_outcome(out: Any) -> Outcome:
    """Validate what a check returned and re-check its certificates (see :func:`run_claim`).

    Raises :class:`verify.validate.OutcomeError` for a malformed outcome; returns an ``error`` outcome
    (keeping the certificate in the report, for inspection) when a certificate is missing or fails.

    Certificates of kind ``"counterexample"`` refute: on a ``proved`` outcome they make it ``error`` (a
    counterexample proves nothing); on any status but ``refuted`` they are set aside (``details
    ["ignored_certificates"]``, with a note) and never re-checked; on a ``refuted`` outcome they are left to
    :func:`bind_refutation` (their failure costs the exactness, not the refutation)."""
    out = validate_outcome(out)
    if out.status == "proved" and out.certificate is None:
        return _demote(out, "proved without certificate: a 'proved' outcome must carry Outcome.certificate")
    certs = _cert_list(out.certificate)
    cx = [c for c in certs if is_counterexample(c)]
    if cx and out.status == "proved":
        return _demote(out, "a 'counterexample' certificate shows its statement false; it proves nothing: 'proved' not "
                            "recorded")
    if cx and out.status != "refuted":
        out.details["ignored_certificates"] = cx
        kept = [c for c in certs if not is_counterexample(c)]
        out.certificate = (kept or None) if isinstance(out.certificate, list) else None
        out.note = (out.note + " " if out.note else "") + (
            f"[{len(cx)} 'counterexample' certificate(s) ignored on a {out.status!r} row: only a refuted row carries "
            "one; kept in details.ignored_certificates]")
        cx = []
    # the certificates re-checked here: all of them, but the counterexamples of a refuted row (bind_refutation's)
    others = [c for c in _cert_list(out.certificate) if not is_counterexample(c)]
    if out.certificate is not None and (others or not cx):
        t0 = time.perf_counter()
        ok, reason = recheck_certificates(others if cx else out.certificate)
        out.details["certificate_recheck_s"] = round(time.perf_counter() - t0, 6)
        if not ok:
            return _demote(out, f"{reason}: {out.status!r} not recorded")
    return out


def bind_refutation(out: Outcome, spec: ClaimSpec, ctx: Context) -> Outcome:
    """A ``refuted`` outcome carrying ``"counterexample"`` certificates is recorded as refuted *exactly*
    (``details["refuted_exactly"] = True``, the frozen declared statements in ``details["declared_refuted"]`` and their
    words in ``details["refuted_statements"]``) only when :func:`fairtheory.proofs.recheck.recheck_refutation` accepts
    it: every certificate re-checks exactly (:func:`fairtheory_kernel.check.check_proof`, forked, within its budget)
    and every statement the claim declares refuted (``@claim(..., refutes=...)``) implies the statement of one of the
    counterexamples - refuting a stronger statement refutes no weaker claim.

    Otherwise ``details["refuted_exactly"] = False`` and ``details["not_exact_because"]`` says why (also in the note):
    the row stays ``refuted`` on its numeric counterexample (``Outcome.counterexample``), or becomes ``error`` when it
    has none (a refutation with no evidence that stands).  The certificates stay on the row, for inspection.  A claim
    that declares ``refutes=`` and returns no counterexample certificate stays as it is, with ``refuted_exactly``
    false and the reason."""
    from fairtheory.proofs.recheck import recheck_refutation

    declared = declared_refutations(spec, ctx)
    if not any(is_counterexample(c) for c in _cert_list(out.certificate)):  # refutes= declared, no certificate given
        out.details["refuted_exactly"] = False
        out.details["not_exact_because"] = "the claim declares a refuted statement but returned no 'counterexample' " \
                                           "certificate"
        return out
    t0 = time.perf_counter()
    if not declared:
        from fairtheory.proofs.recheck import Verdict

        verdict = Verdict(False, "the claim declares no refuted statement (@claim(..., refutes=...)): a counterexample "
                                 "refutes only a statement in the kernel's language")
    else:
        verdict = recheck_refutation(out.certificate, declared)
    out.details["certificate_recheck_s"] = round(out.details.get("certificate_recheck_s", 0.0)
                                                 + time.perf_counter() - t0, 6)
    if verdict.ok:
        out.details["refuted_exactly"] = True
        out.details["declared_refuted"] = declared
        out.details["refuted_statements"] = list(verdict.words)
        return out
    out.details["refuted_exactly"] = False
    out.details["not_exact_because"] = verdict.reason
    if not out.counterexample:
        return _demote(out, f"refuted without evidence that stands: the counterexample certificate is not exact "
                            f"({verdict.reason}) and there is no numeric counterexample")
    out.note = (out.note + " " if out.note else "") + f"[refuted numerically, not exactly: {verdict.reason}]"
    return out


def _demote(out: Outcome, why: str) -> Outcome:
    out.details["claimed_status"] = out.status
    out.status = "error"
    out.note = f"{why}" + (f" [claim's note: {out.note}]" if out.note else "")
    return out


def error_result(claim_id: str, note: str, seconds: float, details: dict[str, Any] | None = None) -> ClaimResult:
    """The ``error`` row for a claim that produced no result (timed out, its worker died)."""
    spec = REGISTRY.get(claim_id)
    if spec is None:
        cite, stmt = CATALOGUE.get(claim_id, ("", ""))
        expected, source = "verified", "built-in"
    else:
        cite, stmt, expected, source = spec.citation, spec.statement, spec.expected, spec.source
    return ClaimResult(claim_id, cite, stmt, expected, "error", None, None, None, None, 0, None, note, seconds,
                       dict(details or {}), source=source)


class Tally:
    """Accumulate one relation over many instances, in the claim's natural units.

    Record each instance with exactly one kind of call (a tally holds one relation):

    * :meth:`upper` ``(lhs, rhs)``: the claim is ``lhs <= rhs``.  Tightness ``max lhs/rhs`` (clipped
      at 0; undefined when ``rhs <= 0``).
    * :meth:`lower` ``(lhs, rhs)``: the claim is ``lhs >= rhs``.  Tightness ``max rhs/lhs`` (undefined
      unless ``lhs > 0`` and ``rhs > 0``: a sign condition ``lhs >= 0`` has none).
    * :meth:`equal` ``(measured, theory, rtol=...)``: ``|measured - theory| <= rtol max(|theory|,
      scale) + atol``.  The error reported is ``|measured - theory| / max(|theory|, scale)``.

    Inequalities allow the float64 rounding slack ``rounding * max(1, |lhs|, |rhs|)``
    (:data:`ROUNDING`, fixed).  ``rounding`` must be finite and in ``[0, MAX_ROUNDING]`` (``1e-6``, the
    loosest certified relative accuracy of the catalogue's exact solvers): the slack accounts for the
    accuracy of the computation, and a larger one would silently weaken the claim (``rounding=1e9`` makes
    ``2 <= 1`` hold).  The outcome reports the instance with the worst margin (its measured
    and bound), the worst tightness, and - on failure - the violating instance of smallest ``size``
    (ties: the largest violation) as counterexample.
    """

    def __init__(self, kind: Literal["upper", "lower", "equal"] | None = None, *, rounding: float = ROUNDING) -> None:
        kinds = {"upper": "<=", "lower": ">=", "equal": "==", None: None}
        if not isinstance(kind, (str, type(None))) or kind not in kinds:
            raise FairtheoryValueError(f"Tally kind must be one of 'upper', 'lower', 'equal' or None, got {kind!r}")
        self.relation: str | None = kinds[kind]
        self.rounding = _nonneg(rounding, "Tally rounding")
        if self.rounding > MAX_ROUNDING:
            raise FairtheoryValueError(
                f"Tally rounding must lie in [0, {MAX_ROUNDING:g}] (a relative slack for the accuracy of the "
                f"computation; put a looser tolerance in the bound itself), got {rounding!r}")
        self.instances = 0
        self.nonfinite = 0
        self.worst_margin = math.inf
        self.worst_measured: float | None = None
        self.worst_bound: float | None = None
        self.tightness = -math.inf
        self.worst_error = -math.inf
        self.tolerance: float | None = None
        self.violations = 0
        self.counterexample: dict[str, Any] | None = None
        #: the counterexample's own margin (and, for ``==``, its own error), beside its measured and bound
        self.counterexample_numbers: dict[str, Any] | None = None
        self._cx_key: tuple[float, float] | None = None

    # ------------------------------------------------------------ records
    def upper(self, lhs: float, rhs: float, instance: dict[str, Any] | None = None, size: float | None = None) -> bool:
        """Record one instance of ``lhs <= rhs``; returns whether it held."""
        lhs, rhs = _real(lhs, "Tally.upper lhs"), _real(rhs, "Tally.upper rhs")
        self._set_relation("<=")
        ok, margin = self._inequality(rhs - lhs, lhs, rhs)
        if rhs > 0 and math.isfinite(rhs) and math.isfinite(lhs):
            self.tightness = max(self.tightness, max(lhs / rhs, 0.0))
        return self._record(ok, margin, lhs, rhs, instance, size)

    def lower(self, lhs: float, rhs: float, instance: dict[str, Any] | None = None, size: float | None = None) -> bool:
        """Record one instance of ``lhs >= rhs``; returns whether it held."""
        lhs, rhs = _real(lhs, "Tally.lower lhs"), _real(rhs, "Tally.lower rhs")
        self._set_relation(">=")
        ok, margin = self._inequality(lhs - rhs, lhs, rhs)
        if lhs > 0 and rhs > 0 and math.isfinite(lhs) and math.isfinite(rhs):
            self.tightness = max(self.tightness, rhs / lhs)
        return self._record(ok, margin, lhs, rhs, instance, size)

    def equal(self, measured: float, theory: float, *, rtol: float, atol: float = 0.0, scale: float = 0.0,
              instance: dict[str, Any] | None = None, size: float | None = None) -> bool:
        """Record one instance of ``measured == theory`` within ``rtol max(|theory|, scale) + atol``.

        ``rtol``, ``atol`` and ``scale`` are finite and ``>= 0`` (``rtol = 0``: exact up to ``atol``).  A
        non-finite ``measured`` or ``theory`` never holds, not even ``inf == inf``."""
        m, t = _real(measured, "Tally.equal measured"), _real(theory, "Tally.equal theory")
        rtol = _nonneg(rtol, "Tally.equal rtol")
        atol, scale = _nonneg(atol, "Tally.equal atol"), _nonneg(scale, "Tally.equal scale")
        self._set_relation("==")
        if self.tolerance is None:
            self.tolerance = rtol
        elif self.tolerance != rtol:
            raise FairtheoryValueError(f"one tally compares with one rtol: it has {self.tolerance}, got rtol={rtol}")
        ref = max(abs(t), scale)
        if math.isfinite(m) and math.isfinite(t):
            dev = abs(m - t)
            allowed = rtol * ref + atol
            ok = dev <= allowed
            margin = allowed - dev
            err = dev / ref if ref > 0 else (0.0 if dev == 0 else math.inf)
        else:
            ok, margin, err = False, -math.inf, math.inf
        self.worst_error = max(self.worst_error, err)
        return self._record(ok, margin, m, t, instance, size, error=err)

    def add(self, measured: float, bound: float, instance: dict[str, Any] | None = None,
            size: float | None = None) -> bool:
        """Legacy form: ``upper`` for an upper tally, or ``(error, tolerance)`` for an ``"equal"`` tally."""
        if self.relation == "==":
            err, tol = _real(measured, "Tally.add measured"), _nonneg(bound, "Tally.add bound (tolerance)")
            self.tolerance = tol if self.tolerance is None else self.tolerance
            ok, margin = self._inequality(tol - err, err, tol)
            self.worst_error = max(self.worst_error, err)
            return self._record(ok, margin, err, tol, instance, size)
        return self.upper(measured, bound, instance, size)

    # ------------------------------------------------------------ internals
    def _set_relation(self, rel: str) -> None:
        if self.relation is None:
            self.relation = rel
        elif self.relation != rel:
            raise FairtheoryValueError(f"this tally records {self.relation!r}; use another Tally for {rel!r}")

    def _inequality(self, margin: float, a: float, b: float) -> tuple[bool, float]:
        if not (math.isfinite(a) and math.isfinite(b)):
            return False, -math.inf
        return margin >= -self.rounding * max(1.0, abs(a), abs(b)), margin

    def _record(self, ok: bool, margin: float, measured: float, bound: float,
                instance: dict[str, Any] | None, size: float | None, error: float | None = None) -> bool:
        if size is not None:
            size = _real(size, "Tally size")
        if not (math.isfinite(measured) and math.isfinite(bound)):
            self.nonfinite += 1
            ok = False
        self.instances += 1
        if margin < self.worst_margin or self.worst_measured is None:
            self.worst_margin, self.worst_measured, self.worst_bound = margin, measured, bound
        if not ok:
            self.violations += 1
            key = (float(size) if size is not None else 0.0, margin)
            if self._cx_key is None or key < self._cx_key:
                self._cx_key = key
                cx = dict(instance or {})
                cx.update(measured=measured, bound=bound)
                self.counterexample = _jsonable(cx)
                own = {"measured": measured, "bound": bound, "margin": margin}
                self.counterexample_numbers = _jsonable(own | ({"error": error} if error is not None else {}))
        return ok

    def outcome(self, note: str = "", details: dict[str, Any] | None = None, explain: str = "") -> Outcome:
        if self.instances == 0:
            return Outcome("inconclusive", note=note or "no instance was checked", details=details or {})
        status: Status = "refuted" if self.violations else "verified"
        d = dict(details or {})
        d["violations"] = self.violations
        if self.counterexample_numbers is not None:  # read by verify.report.row_numbers
            d["counterexample_numbers"] = self.counterexample_numbers
        if self.nonfinite:
            d["nonfinite_instances"] = self.nonfinite
            extra = (f"{self.nonfinite} of {self.instances} instances had a non-finite measured or bound value "
                     "(never verified; counted as violations)")
            note = f"{note} {extra}".strip() if note else extra
        eq = self.relation == "=="
        return Outcome(
            status,
            measured=self.worst_measured,
            bound=self.worst_bound,
            margin=self.worst_margin,
            tightness=None if eq or not math.isfinite(self.tightness) else self.tightness,
            instances=self.instances,
            counterexample=self.counterexample,
            note=note,
            details=d,
            relation=self.relation or "",
            error=self.worst_error if eq and math.isfinite(self.worst_error) else (math.inf if eq else None),
            tolerance=self.tolerance if eq else None,
            explain=explain,
        )


class BracketTally:
    """Equalities between two results with rigorous brackets (``value`` inside ``[lower, upper]``, e.g.
    :class:`fairtheory.worstcase.WorstCase`), compared to ``rtol`` like :meth:`Tally.equal`, the brackets deciding what
    a difference proves.  Two values farther apart than ``rtol`` refute the equality only when their brackets (each
    containing its exact value) are disjoint or missing; when they overlap, the exact values may coincide and the
    computations were not precise enough to decide ``rtol``: the instance is *undecided*.  The outcome: ``refuted``
    when some instance is refuted, else ``inconclusive`` when some is undecided, else ``verified``."""

    def __init__(self, rtol: float) -> None:
        self.rtol = _nonneg(rtol, "BracketTally rtol")
        self.tally = Tally()   # the decided instances: held, or refuted (brackets disjoint)
        self.open = Tally()    # the undecided ones (their numbers, reported when nothing is refuted)
        self.undecided: list[dict[str, Any]] = []

    def equal(self, a: Any, b: Any, instance: dict[str, Any], size: float) -> bool:
        """Record ``a.value == b.value``; returns whether it held."""
        if Tally().equal(a.value, b.value, rtol=self.rtol) or not _overlap(a, b):
            return self.tally.equal(a.value, b.value, rtol=self.rtol, instance=instance, size=size)
        self.open.equal(a.value, b.value, rtol=self.rtol, instance=instance, size=size)
        self.undecided.append(dict(instance) | {"measured": a.value, "theory": b.value,
                                                "bracket_measured": [a.lower, a.upper],
                                                "bracket_theory": [b.lower, b.upper]})
        return False

    def outcome(self, explain: str, details: dict[str, Any] | None = None) -> Outcome:
        if self.tally.violations or not self.undecided:
            out = self.tally.outcome(explain=explain, details=details)
        else:
            out = self.open.outcome(explain=explain, details=details)
            out.status = "inconclusive"
            out.counterexample = None
            out.note = (f"{len(self.undecided)} instance(s) differ by more than {self.rtol:g} while their rigorous "
                        "brackets overlap: the exact values may coincide, the computations do not decide the tolerance")
            out.details["undecided"] = self.undecided
        out.instances = self.tally.instances + self.open.instances
        return out


def _overlap(a: Any, b: Any) -> bool:
    """Whether the rigorous brackets ``[lower, upper]`` of two results are finite and share a point."""
    lo = max(float(a.lower), float(b.lower))
    up = min(float(a.upper), float(b.upper))
    return bool(np.isfinite(lo) and np.isfinite(up) and lo <= up)


def _real(x: Any, name: str) -> float:
    """``x`` as a float, or a named :class:`FairtheoryTypeError` (strings, complex numbers, ``None`` are not numbers)."""
    if isinstance(x, (str, bytes, complex, np.complexfloating)) or x is None:
        raise FairtheoryTypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError):
        raise FairtheoryTypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}") from None


def _nonneg(x: Any, name: str) -> float:
    """A finite real number ``>= 0``, or a named error."""
    v = _real(x, name)
    if not (math.isfinite(v) and v >= 0):
        raise FairtheoryValueError(f"{name} must be a finite number >= 0, got {x!r}")
    return v


def relative_error(a: float, b: float) -> float:
    """``|a - b| / max(1, |b|)``: relative for large values, absolute near zero (``a``, ``b`` real numbers)."""
    x, y = _real(a, "a"), _real(b, "b")
    return abs(x - y) / max(1.0, abs(y))


def combine(outcomes: dict[str, Outcome], note: str = "") -> Outcome:
    """Merge the outcomes of the parts of one claim: refuted if any part is, worst margin reported.

    ``proved`` only when every part is proved (or skipped); the certificates of all parts are kept (a
    list), and the runner re-checks each."""
    if not isinstance(outcomes, Mapping) or not outcomes:
        raise FairtheoryValueError(f"combine: outcomes must be a non-empty mapping of part name -> Outcome, got {outcomes!r}")
    bad = [k for k, o in outcomes.items() if not isinstance(o, Outcome)]
    if bad:
        raise FairtheoryTypeError(f"combine: every part must be an Outcome; {bad[:3]!r} are not")
    order = {"error": 0, "refuted": 1, "inconclusive": 2, "verified": 3, "proved": 4, "skipped": 5}
    worst_name = min(outcomes, key=lambda k: (order.get(outcomes[k].status, 5),
                                              outcomes[k].margin if outcomes[k].margin is not None else math.inf))
    w = outcomes[worst_name]
    parts = {k: {"status": o.status, "measured": o.measured, "bound": o.bound, "relation": o.relation,
                 "margin": o.margin, "tightness": o.tightness, "error": o.error, "tolerance": o.tolerance,
                 "instances": o.instances, "explain": o.explain}
             | ({"adversarial": o.adversarial} if o.adversarial is not None else {})
             | ({"worstcase": o.worstcase} if o.worstcase is not None else {}) for k, o in outcomes.items()}
    cx = next((o.counterexample for o in outcomes.values() if o.counterexample), None)
    certs = [c for o in outcomes.values() if o.certificate is not None
             for c in (o.certificate if isinstance(o.certificate, list) else [o.certificate])]
    return Outcome(w.status, w.measured, w.bound, w.margin, w.tightness,
                   sum(o.instances for o in outcomes.values()), cx,
                   (note + f" [worst part: {worst_name}]").strip(), {"parts": _jsonable(parts)},
                   relation=w.relation, error=w.error, tolerance=w.tolerance, explain=w.explain,
                   adversarial=w.adversarial, worstcase=w.worstcase, certificate=certs or None)


def attach_adversarial(out: Outcome, result: Any, *, what: str = "") -> Outcome:
    """Record an adversarial search (:class:`fairtheory.worstcase.adversarial.AdversarialResult`) on ``out``.

    Sets ``out.adversarial`` to the largest ratio found (``None`` when no instance of the search was
    feasible) and ``out.details["adversarial"]`` to the search's summary (best instance, evaluations,
    seed, budget) with ``what`` (which bound of the claim was searched, in words).  A violating instance
    the search found is evidence like a sampled one: the claim becomes ``refuted`` (an ``error`` stays
    an error), the instance becomes the counterexample when the sampled instances had none, and the
    note says so loudly."""
    if not isinstance(out, Outcome):
        raise FairtheoryTypeError(f"attach_adversarial: out must be an Outcome, got {type(out).__name__}")
    if not (hasattr(result, "ratio") and hasattr(result, "summary") and hasattr(result, "violated")):
        raise FairtheoryTypeError("attach_adversarial: result must be an AdversarialResult (ratio, summary(), violated), "
                                  f"got {type(result).__name__}")
    r = float(result.ratio)
    out.adversarial = None if math.isnan(r) else r
    summary = result.summary()
    summary["what"] = what
    out.details["adversarial"] = _jsonable(summary)
    if result.violated:
        cx = dict(result.counterexample or {})
        cx["found_by"] = "adversarial search"
        if out.status != "error":
            out.status = "refuted"
        if out.counterexample is None:
            out.counterexample = _jsonable(cx)
        out.note = (out.note + " " if out.note else "") + (
            f"ADVERSARIAL SEARCH FOUND A VIOLATION ({result.violations} of {result.evaluations} searched instances): "
            f"measured {cx.get('measured')} vs bound {cx.get('bound')}, see details['adversarial']")
    return out


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
