"""What a claim may hand to the report: outcome validation, JSON conversion and certificate re-checks.

A claim is plugin code, so its :class:`~verify.core.Outcome` is untrusted.  :func:`validate_outcome`
turns it into an outcome holding only JSON data, or raises :class:`OutcomeError` saying which field is
wrong; the runner then records that claim as ``error`` and goes on with the next one.

Rules (documented in docs/verify.md, "What a check returns: Outcome"):

* ``status`` is one of :data:`verify.core.STATUSES`; ``note``, ``explain`` and ``relation`` are strings.
* ``measured``, ``bound``, ``margin``, ``tightness``, ``error``, ``tolerance``, ``adversarial`` and
  ``worstcase`` are ``None`` or real numbers (Python/numpy ints and floats, a 0-d numeric array; not
  ``bool``), stored as ``float``.  A ``proved`` or ``verified`` outcome must have them finite: success
  is never reported on an infinite or NaN number.  Other statuses may carry ``inf``/``nan`` (e.g. the
  measured value of a refuting instance); the JSON report writes those as the strings ``"inf"``,
  ``"-inf"``, ``"nan"``.
* ``instances`` is an integer ``>= 0``.
* ``details`` (a dict), ``counterexample`` (a dict or ``None``) and ``certificate`` (a dict, a list of
  dicts, or ``None``; an object with a ``to_json()`` method, such as
  :class:`fairtheory.proofs.certificate.Certificate`, is replaced by its dict) are converted by
  :func:`to_jsonable`: what has an obvious JSON form is converted, the rest is rejected.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from verify.outcome import STATUSES, Outcome

__all__ = ["OutcomeError", "to_jsonable", "validate_outcome", "recheck_certificates", "certificate_summary"]

#: nesting depth beyond which a value is rejected (a cycle, or data that is not a report entry)
MAX_DEPTH = 64

NUMBER_FIELDS = ("measured", "bound", "margin", "tightness", "error", "tolerance", "adversarial", "worstcase")
TEXT_FIELDS = ("note", "explain", "relation")


class OutcomeError(TypeError):
    """A claim returned something the report cannot hold; the message names the field and the value."""


def _float(x: float) -> float | str:
    v = float(x)
    return v if math.isfinite(v) else repr(v)


def to_jsonable(x: Any, where: str = "value", _depth: int = 0) -> Any:
    """``x`` as plain JSON data (dict, list, str, int, float, bool, None), or :class:`OutcomeError`.

    Conversions: tuples and lists to lists; numpy scalars to Python scalars; numeric or boolean arrays
    (numpy, or anything with ``__array__`` such as a torch tensor, moved to the CPU) to nested lists;
    non-finite floats to the strings ``"inf"``, ``"-inf"``, ``"nan"``; ``Fraction`` to the exact string
    ``"p/q"`` (``"p"`` when integral); ``Decimal`` to its string; a set or frozenset to its sorted list;
    dict keys that are strings, numbers, booleans or ``None`` to strings (as ``json`` does).
    Rejected: complex numbers, bytes, arbitrary objects, sets whose elements do not sort, nesting deeper
    than :data:`MAX_DEPTH` (e.g. a cycle)."""
    if _depth > MAX_DEPTH:
        raise OutcomeError(f"{where}: nested deeper than {MAX_DEPTH} levels (a cycle?)")
    if x is None or isinstance(x, (str, bool)):
        return x
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return _float(x)
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, Decimal):
        return str(x)
    if isinstance(x, Mapping):
        out: dict[str, Any] = {}
        for k, v in x.items():
            if isinstance(k, (str, bool, int, float, np.integer, np.floating, np.bool_)) or k is None:
                key = k if isinstance(k, str) else str(to_jsonable(k, where, _depth + 1))
            else:
                raise OutcomeError(f"{where}: dict key {k!r} of type {type(k).__name__} has no JSON form")
            out[key] = to_jsonable(v, f"{where}[{key!r}]", _depth + 1)
        return out
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v, f"{where}[{i}]", _depth + 1) for i, v in enumerate(x)]
    if isinstance(x, (set, frozenset)):
        try:
            items = sorted(x)
        except TypeError:
            raise OutcomeError(f"{where}: a set of mixed types has no JSON form; pass a sorted list") from None
        return [to_jsonable(v, f"{where}[{i}]", _depth + 1) for i, v in enumerate(items)]
    if isinstance(x, (complex, np.complexfloating)):
        raise OutcomeError(f"{where}: complex number {x!r} has no JSON form; report real and imaginary parts")
    arr = _as_array(x)
    if arr is not None:
        if arr.dtype.kind in "biuf":
            return to_jsonable(arr.tolist(), where, _depth + 1)
        if arr.dtype.kind == "O":
            return to_jsonable(arr.tolist(), where, _depth + 1)
        raise OutcomeError(f"{where}: array of dtype {arr.dtype} has no JSON form")
    raise OutcomeError(f"{where}: {type(x).__name__} {_short(x)} has no JSON form")


def _as_array(x: Any) -> np.ndarray[Any, Any] | None:
    if isinstance(x, np.ndarray):
        return x
    if not hasattr(x, "__array__"):
        return None
    try:
        if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor, possibly on a GPU
            x = x.detach().cpu()
        return np.asarray(x)
    except Exception:  # noqa: BLE001 - an object that only pretends to be an array
        return None


def _short(x: Any) -> str:
    try:
        text = repr(x)
    except Exception:  # noqa: BLE001 - a hostile __repr__
        text = f"<{type(x).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _number(x: Any, name: str) -> float | None:
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)):
        raise OutcomeError(f"Outcome.{name} must be a real number or None, got the bool {x!r}")
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iuf":
        x = x.item()
    if not isinstance(x, (numbers.Real, np.integer, np.floating)):
        raise OutcomeError(f"Outcome.{name} must be a real number or None, got {type(x).__name__} {_short(x)}")
    try:
        return float(x)
    except (OverflowError, ValueError, TypeError) as exc:
        raise OutcomeError(f"Outcome.{name}: {_short(x)} does not convert to a float ({exc})") from None


def validate_outcome(out: Any) -> Any:
    """A copy of ``out`` (a :class:`verify.core.Outcome`) holding only JSON data, after checking every field.

    Raises :class:`OutcomeError` naming the first field that breaks the rules in the module docstring."""
    if not isinstance(out, Outcome):
        raise OutcomeError(f"the check returned {type(out).__name__} {_short(out)}, not a verify.Outcome")
    if not isinstance(out.status, str) or out.status not in STATUSES:
        raise OutcomeError(f"Outcome.status must be one of {STATUSES}, got {_short(out.status)}")
    for name in TEXT_FIELDS:
        if not isinstance(getattr(out, name), str):
            raise OutcomeError(f"Outcome.{name} must be a string, got {type(getattr(out, name)).__name__}")
    nums = {name: _number(getattr(out, name), name) for name in NUMBER_FIELDS}
    if out.status in ("proved", "verified"):
        bad = {k: v for k, v in nums.items() if v is not None and not math.isfinite(v)}
        if bad:
            raise OutcomeError(f"status {out.status!r} with non-finite {', '.join(f'{k}={v}' for k, v in bad.items())}:"
                               " success is never reported on an infinite or NaN number")
    n = out.instances
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise OutcomeError(f"Outcome.instances must be an integer >= 0, got {_short(n)}")
    if not isinstance(out.details, Mapping):
        raise OutcomeError(f"Outcome.details must be a dict, got {type(out.details).__name__}")
    if out.counterexample is not None and not isinstance(out.counterexample, Mapping):
        raise OutcomeError(f"Outcome.counterexample must be a dict or None, got {type(out.counterexample).__name__}")
    cert = _certificate_data(out.certificate)
    if cert is not None and not isinstance(cert, Mapping) and not (
            isinstance(cert, (list, tuple)) and cert and all(isinstance(c, Mapping) for c in cert)):
        raise OutcomeError(f"Outcome.certificate must be a dict, a non-empty list of dicts or None, "
                           f"got {type(cert).__name__}")
    return Outcome(out.status, instances=int(n), note=out.note, explain=out.explain, relation=out.relation,
                   details=to_jsonable(out.details, "Outcome.details"),
                   counterexample=to_jsonable(out.counterexample, "Outcome.counterexample"),
                   certificate=to_jsonable(cert, "Outcome.certificate"), **nums)


def _certificate_data(cert: Any) -> Any:
    """A certificate object with a ``to_json()`` method (e.g. :class:`fairtheory.proofs.certificate.Certificate`)
    is replaced by its JSON dict, in a list too; anything else is returned as it is."""
    def one(c: Any) -> Any:
        to_json = getattr(c, "to_json", None)
        if not isinstance(c, Mapping) and callable(to_json):
            try:
                return to_json()
            except Exception as exc:  # noqa: BLE001 - reported as this claim's error
                raise OutcomeError(f"Outcome.certificate: {type(c).__name__}.to_json() raised "
                                   f"{type(exc).__name__}: {exc}") from None
        return c

    return [one(c) for c in cert] if isinstance(cert, (list, tuple)) else one(cert)


def recheck_certificates(cert: Any) -> tuple[bool, str]:
    """Re-check a certificate (a dict or a list of dicts) with :func:`fairtheory_kernel.check.check_proof`.

    Returns ``(ok, reason)``: ``ok`` only when every certificate re-checks; ``reason`` names the first
    that fails (its index and kind)."""
    from fairtheory_kernel.check import check_proof

    certs = cert if isinstance(cert, list) else [cert]
    if not certs:
        return False, "empty certificate list"
    for i, c in enumerate(certs):
        ok = check_proof(c)
        if ok is not True:
            kind = c.get("kind") if isinstance(c, Mapping) else None
            label = f"certificate {i}" if len(certs) > 1 else "certificate"
            return False, f"{label} (kind {kind!r}) failed re-check"
    return True, ""


def certificate_summary(cert: Any) -> str:
    """One short phrase for reports: the kinds and the JSON size, e.g. ``"pep-dual, 12.3 kB"``."""
    import json

    if cert is None:
        return ""
    certs = cert if isinstance(cert, list) else [cert]
    kinds = sorted({str(c.get("kind")) for c in certs if isinstance(c, Mapping)})
    size = len(json.dumps(cert))
    amount = f"{size / 1000:.1f} kB" if size >= 1000 else f"{size} B"
    count = f"{len(certs)} certificates: " if len(certs) > 1 else ""
    return f"{count}{', '.join(kinds)}, {amount}"
