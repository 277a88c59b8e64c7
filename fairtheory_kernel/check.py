"""One entry point that re-checks any certificate exactly, under a hard time, size and memory budget.

A certificate is plain JSON data (a dict with a ``"kind"``), never code: a *statement* and *evidence*.
:func:`check_proof` dispatches on the kind, to modules of this package only:

* ``"pep-dual"``: rational dual multipliers of the performance-estimation SDP that the statement defines
  (:func:`fairtheory_kernel.pep.check_certificate`);
* ``"pep-family"``: rational-function multipliers proving a PEP bound for every value of a parameter in an
  interval (:func:`fairtheory_kernel.family.check_family`);
* ``"pep-potential"``: a bound for every number of iterations by a potential function
  (:func:`fairtheory_kernel.potential_kernel.check_potential`);
* ``"symbolic"``: a derivation checked with exact arithmetic the kernel owns (:mod:`fairtheory_kernel.symbolic`).

The older ``"sympy-proof"`` kind (sympy's simplification and assumptions in the trusted base) is no longer accepted.

Before anything is parsed the certificate must pass :func:`admissible`: a known kind, JSON of at most the kind's
size (:data:`LIMITS`), no control character in any string (a newline in a name could forge a line of a report), and
every ``title``, ``citation`` and ``name`` at most :data:`MAX_TEXT` characters.  The check then runs in a forked
child process with a wall-clock limit (the kind's cap of :func:`budget_seconds`), a CPU limit and a memory cap
(:func:`fairtheory_kernel.bounded.run_bounded`).  Anything a plugin hands over is untrusted: a malformed dict, a
wrong type, an unknown kind, a timeout or a crash gives ``False``, never an exception.

:func:`statement_of`, :func:`implies` and :func:`describe` read statements: the verify runner gives ``proved`` only
when a re-checked certificate's statement implies the statement the claim declares, and prints that declared
statement in words generated from its canonical form (:mod:`fairtheory_kernel.words`).
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["check_proof", "check_inline", "admissible", "statement_of", "canonical_statement", "implies", "describe",
           "budget_seconds", "MAX_SECONDS", "KINDS", "LIMITS", "MAX_TEXT"]

#: wall-clock budget of one check: a base plus an allowance per byte of certificate JSON, capped per kind
BASE_SECONDS = 8.0
SECONDS_PER_MB = 20.0
MEMORY_BYTES = 3 * 2**30
#: per kind: (largest certificate JSON in bytes, largest default time budget in seconds).  ``pep-dual`` is bounded
#: by its work estimate (about 2.5 s at pep.MAX_WORK), ``pep-family`` by its size limits (about 15 s at all of
#: them at once), the symbolic kind by its own size limit (``MAX_JSON``) and deadline (``MAX_SECONDS``, which the
#: symbolic kernel enforces itself; the cap here leaves room for starting the child on a loaded machine)
LIMITS: dict[str, tuple[int, float]] = {"pep-dual": (20_000_000, 60.0), "pep-family": (5_000_000, 30.0),
                                        "symbolic": (300_000, 10.0),
                                        "pep-potential": (1_000_000, 20.0)}  # potential_kernel's size limits
#: largest length of a user-supplied text (a ``title``, ``citation`` or ``name``)
MAX_TEXT = 120

#: largest ``seconds`` :func:`check_proof` accepts
MAX_SECONDS = 1e6
_TEXT_KEYS = ("title", "citation", "name")
MAX_BYTES = max(b for b, _ in LIMITS.values())


def _symbolic() -> Any:
    """The symbolic kernel module, or ``None`` while it is not installed."""
    try:
        return importlib.import_module("fairtheory_kernel.symbolic")
    except ImportError:
        return None


KINDS = ("pep-dual", "pep-family", "pep-potential", "symbolic")


def _kind(cert: Any) -> str | None:
    if not isinstance(cert, Mapping):
        return None
    kind = cert.get("kind")
    return kind if isinstance(kind, str) else None


def _limits(kind: str) -> tuple[int, float]:
    size, secs = LIMITS[kind]
    if kind == "symbolic":
        size = min(size, int(getattr(_symbolic(), "MAX_JSON", size)))
    return size, secs


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _control(s: str) -> bool:
    """Whether ``s`` holds a control, line-breaking or bidirectional-override character (C0, DEL, C1, U+2028/2029,
    the bidi marks and embeddings that reorder how a printed line reads)."""
    return _CONTROL.search(s) is not None


def _texts_ok(x: Any) -> bool:
    """No string anywhere in ``x`` has a control character; every ``title``/``citation``/``name`` string is at most
    :data:`MAX_TEXT` characters.  Iterative over the JSON tree (lists and string-keyed dicts only)."""
    stack = [(x, None)]
    while stack:
        v, key = stack.pop()
        if isinstance(v, str):
            if _control(v) or (key in _TEXT_KEYS and len(v) > MAX_TEXT):
                return False
        elif isinstance(v, Mapping):
            for k, w in v.items():
                if not isinstance(k, str) or _control(k):
                    return False
                stack.append((w, k))
        elif isinstance(v, (list, tuple)):
            stack.extend((w, None) for w in v)
    return True


def admissible(cert: Any) -> bool:
    """Whether ``cert`` may be checked at all: a known kind, JSON within the kind's size, no control character in any
    string, user texts (``title``, ``citation``, ``name``) of at most :data:`MAX_TEXT` characters."""
    kind = _kind(cert)
    if kind not in KINDS or (kind == "symbolic" and _symbolic() is None):
        return False
    try:
        size = len(json.dumps(cert, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return False
    return size <= _limits(kind)[0] and _texts_ok(cert)


def budget_seconds(cert: Any) -> float:
    """The time :func:`check_proof` allows for ``cert``: ``8 s + 20 s per MB`` of its JSON, at most the kind's cap
    (:data:`LIMITS`); 0 for anything that is not JSON of a known kind."""
    kind = _kind(cert)
    try:
        size = len(json.dumps(cert))
    except (TypeError, ValueError, RecursionError):
        return 0.0
    if kind not in LIMITS:
        return 0.0
    return min(BASE_SECONDS + SECONDS_PER_MB * size / 1e6, _limits(kind)[1])


def check_inline(cert: Any) -> bool:
    """The exact check in this process, without the time limit (for tests and debuggers); refuses what
    :func:`admissible` refuses."""
    if not admissible(cert):
        return False
    kind = _kind(cert)
    try:
        if kind == "pep-dual":
            from fairtheory_kernel.pep import check_certificate

            return check_certificate(cert) is True
        if kind == "pep-family":
            from fairtheory_kernel.family import check_family

            return check_family(cert) is True
        if kind == "pep-potential":
            from fairtheory_kernel.potential_kernel import check_potential

            return check_potential(cert) is True
        if kind == "symbolic":
            return _symbolic().check(cert) is True
    except (ImportError, RecursionError, MemoryError):
        return False
    except Exception:  # noqa: BLE001 - hostile certificate data must never stop the caller
        return False
    return False


def check_proof(cert: Any, *, seconds: float | None = None) -> bool:
    """``True`` iff ``cert`` is an admissible certificate (:func:`admissible`) of a known kind that re-checks exactly
    within the budget (``seconds`` in ``(0, 1e6]``; default :func:`budget_seconds`).  Any ``cert`` gives ``True`` or
    ``False``; a ``seconds`` that is not such a number raises :class:`~fairtheory.errors.FairtheoryTypeError` /
    ``FairtheoryValueError``."""
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError(f"seconds must be a number in (0, {MAX_SECONDS:g}], got {type(seconds).__name__}")
        if not 0 < seconds <= MAX_SECONDS:
            raise ValueError(f"seconds must be in (0, {MAX_SECONDS:g}], got {seconds!r}")
    if not admissible(cert):
        return False
    limit = budget_seconds(cert) if seconds is None else seconds
    if not 0 < limit <= MAX_SECONDS:
        return False
    from fairtheory_kernel.bounded import run_bounded

    status, result = run_bounded(check_inline, cert, seconds=limit, memory_bytes=MEMORY_BYTES)
    return status == "ok" and result is True


# ------------------------------------------------------------------------------------------------ statements
def _split(s: Any) -> tuple[str | None, Any]:
    """``(kind, statement)`` of a declared statement: ``{"kind": ..., "statement": ...}`` or a bare statement
    (a PEP statement has ``"class"``; a symbolic one ``"symbols"`` and ``"goals"``, of the kind it names)."""
    if not isinstance(s, Mapping):
        return None, None
    if "kind" in s and "statement" in s:
        return s.get("kind"), s.get("statement")
    if "class" in s and "method" in s:
        return ("pep-potential" if "potential" in s else "pep-family" if "parameter" in s else "pep-dual"), s
    if "symbols" in s and "goals" in s:
        kind = s.get("kind", "symbolic")
        return (kind if kind == "symbolic" else None), s
    return None, None


def canonical_statement(kind: Any, st: Any) -> Any:
    """The canonical JSON form of a statement of ``kind`` (what the kernel checks, every number normalised); raises
    on anything malformed."""
    if kind == "pep-dual":
        from fairtheory_kernel import pep

        return pep.to_json(pep.canonical(st))
    if kind == "pep-family":
        from fairtheory_kernel import family

        return family.to_json(family.canonical(st))
    if kind == "pep-potential":
        from fairtheory_kernel import potential_kernel

        return potential_kernel.to_json(potential_kernel.canonical(st))
    if kind == "symbolic":
        mod = _symbolic()
        if mod is None:
            raise ValueError("the symbolic kernel is not installed")
        return mod.canonical_statement(st)
    raise ValueError(f"unknown statement kind {kind!r}"[:100])


def statement_of(cert: Any) -> dict[str, Any] | None:
    """``{"kind", "statement"}`` of a certificate, the statement in canonical form (what it proves when it re-checks),
    or ``None`` when it is not a well-formed statement of a known kind."""
    kind = _kind(cert)
    st = cert.get("statement") if isinstance(cert, Mapping) else None
    if kind not in KINDS or not isinstance(st, Mapping):
        return None
    try:
        return {"kind": kind, "statement": canonical_statement(kind, st)}
    except Exception:  # noqa: BLE001 - untrusted data
        return None


def implies(a: Any, b: Any) -> bool:
    """Whether statement ``a`` (e.g. :func:`statement_of` a certificate) implies the declared statement ``b``:
    the same kind and, for PEP statements, :func:`fairtheory_kernel.pep.implies` (the same problem with a
    bound at least as strong), for families :func:`fairtheory_kernel.family.implies`, for symbolic statements
    the symbolic kernel's ``implies``.  ``False`` on anything malformed."""
    ka, sa = _split(a)
    kb, sb = _split(b)
    if ka == "pep-potential" and kb in ("pep-potential", "pep-family"):  # every N implies one N and any sub-range
        from fairtheory_kernel import potential_kernel

        try:
            return potential_kernel.implies(potential_kernel.canonical(sa), kb, sb) is True
        except Exception:  # noqa: BLE001 - untrusted statements
            return False
    if ka is None or ka != kb or ka not in KINDS:
        return False
    try:
        if ka == "pep-dual":
            from fairtheory_kernel import pep

            return pep.implies(pep.canonical(sa), pep.canonical(sb)) is True
        if ka == "pep-family":
            from fairtheory_kernel import family

            return family.implies(family.canonical(sa), family.canonical(sb)) is True
        if ka == "symbolic":
            mod = _symbolic()
            return mod is not None and mod.implies(mod.canonical_statement(sa), mod.canonical_statement(sb)) is True
    except Exception:  # noqa: BLE001 - untrusted statements
        return False
    return False


def describe(s: Any) -> str:
    """A statement in words, generated from its canonical form only (:func:`fairtheory_kernel.words.words`);
    a malformed statement is described as such."""
    from fairtheory_kernel.words import words

    kind, st = _split(s)
    try:
        return words(kind, canonical_statement(kind, st))
    except Exception as exc:  # noqa: BLE001 - a malformed statement is described as such
        return f"(malformed {str(kind)[:20]!r} statement: {type(exc).__name__})"
