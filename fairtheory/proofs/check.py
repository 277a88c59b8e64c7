"""One entry point that re-checks any certificate exactly, under a hard time and memory budget.

A certificate is plain JSON data (a dict with a ``"kind"``), never code: a *statement* and *evidence*.
:func:`check_proof` dispatches on the kind:

* ``"pep-dual"``: rational dual multipliers of the performance-estimation SDP that the statement defines
  (:func:`fairtheory.proofs.certificate.check_certificate`, the statement rebuilt by the trusted kernel
  :mod:`fairtheory.proofs.pep_kernel`);
* ``"sympy-proof"``: a symbolic derivation re-run with sympy (:mod:`fairtheory.proofs.symbolic`);
* ``"pep-family"``: rational-function multipliers proving a PEP bound for every value of a parameter in an
  interval (:func:`fairtheory.proofs.parametric_kernel.check_family`, the parametric SDP rebuilt from the
  statement).

The check runs in a forked child process with a wall-clock limit, a CPU limit and a memory cap
(:func:`fairtheory.proofs.bounded.run_bounded`): a hostile certificate of a few kilobytes is decided or
refused within seconds, also when the work is inside sympy or big-integer arithmetic.  Anything a plugin
hands over is untrusted: a malformed dict, a wrong type, an unknown kind, a timeout or a crash gives
``False``, never an exception.

:func:`statement_of`, :func:`implies` and :func:`describe` read statements: the verify runner gives
``proved`` only when a re-checked certificate's statement implies the statement the claim declares.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["check_proof", "check_inline", "statement_of", "implies", "describe", "budget_seconds", "MAX_SECONDS", "KINDS"]

#: wall-clock budget of one check: a base plus an allowance per byte of certificate JSON
BASE_SECONDS = 4.0
SECONDS_PER_MB = 20.0
#: largest certificate JSON accepted at all (bytes)
MAX_BYTES = 20_000_000
MEMORY_BYTES = 3 * 2**30


def budget_seconds(cert: Any) -> float:
    """The time :func:`check_proof` allows for ``cert``: ``4 s + 20 s per MB`` of its JSON (a 6 KB hostile
    certificate gets about 4.1 s; the largest certificates the suite produces take well under it)."""
    try:
        size = len(json.dumps(cert))
    except (TypeError, ValueError, RecursionError):
        return 0.0
    return BASE_SECONDS + SECONDS_PER_MB * size / 1e6


def _kind(cert: Any) -> str | None:
    if not isinstance(cert, Mapping):
        return None
    kind = cert.get("kind")
    return kind if isinstance(kind, str) else None


def check_inline(cert: Any) -> bool:
    """The exact check in this process, without the time limit (for tests and debuggers)."""
    kind = _kind(cert)
    try:
        if kind == "pep-dual":
            from fairtheory.proofs.certificate import check_certificate

            return check_certificate(cert) is True
        if kind == "sympy-proof":
            from fairtheory.proofs.symbolic import _check_inline

            return _check_inline(cert) is True
        if kind == "pep-family":
            from fairtheory.proofs.parametric_kernel import check_family

            return check_family(cert) is True
    except (ImportError, RecursionError, MemoryError):
        return False
    except Exception:  # noqa: BLE001 - hostile certificate data must never stop the caller
        return False
    return False


#: the certificate kinds :func:`check_proof` knows
KINDS = ("pep-dual", "sympy-proof", "pep-family")

#: largest ``seconds`` :func:`check_proof` accepts
MAX_SECONDS = 1e6


def check_proof(cert: Any, *, seconds: float | None = None) -> bool:
    """``True`` iff ``cert`` is a well-formed certificate of a known kind that re-checks exactly within the
    budget (``seconds`` in ``(0, 1e6]``; default :func:`budget_seconds`).  Any ``cert`` gives ``True`` or ``False``;
    a ``seconds`` that is not such a number raises :class:`~fairtheory.errors.FairtheoryTypeError` /
    ``FairtheoryValueError``."""
    if seconds is not None:
        from fairtheory._validation import check_in_range

        seconds = check_in_range(seconds, "seconds", low=0.0, high=MAX_SECONDS, low_inclusive=False)
    if _kind(cert) not in KINDS:
        return False
    limit = budget_seconds(cert) if seconds is None else seconds
    if not 0 < limit <= MAX_SECONDS:
        return False
    try:
        if len(json.dumps(cert)) > MAX_BYTES:
            return False
    except (TypeError, ValueError, RecursionError):
        return False
    from fairtheory.proofs.bounded import run_bounded

    status, result = run_bounded(check_inline, cert, seconds=limit, memory_bytes=MEMORY_BYTES)
    return status == "ok" and result is True


# ------------------------------------------------------------------------------------------------ statements
def _split(s: Any) -> tuple[str | None, Any]:
    """``(kind, statement)`` of a declared statement: ``{"kind": ..., "statement": ...}`` or a bare statement
    (a PEP statement has ``"class"``; a symbolic one ``"symbols"`` and ``"goals"``)."""
    if not isinstance(s, Mapping):
        return None, None
    if "kind" in s and "statement" in s:
        return s.get("kind"), s.get("statement")
    if "class" in s and "method" in s:
        return ("pep-family" if "parameter" in s else "pep-dual"), s
    if "symbols" in s and "goals" in s:
        return "sympy-proof", s
    return None, None


def statement_of(cert: Any) -> dict[str, Any] | None:
    """``{"kind", "statement"}`` of a certificate (the statement it proves when it re-checks), or ``None``."""
    kind = _kind(cert)
    st = cert.get("statement") if isinstance(cert, Mapping) else None
    if kind not in KINDS or not isinstance(st, Mapping):
        return None
    return {"kind": kind, "statement": st}


def implies(a: Any, b: Any) -> bool:
    """Whether statement ``a`` (e.g. :func:`statement_of` a certificate) implies the declared statement ``b``:
    the same kind and, for PEP statements, :func:`fairtheory.proofs.pep_kernel.implies` (the same problem with
    a bound at least as strong); for symbolic statements, equality
    (:func:`fairtheory.proofs.symbolic.statements_equal`: the same hypotheses and goals).  ``False`` on
    anything malformed."""
    ka, sa = _split(a)
    kb, sb = _split(b)
    if ka is None or ka != kb:
        return False
    try:
        if ka == "pep-dual":
            from fairtheory.proofs import pep_kernel

            return pep_kernel.implies(pep_kernel.canonical(sa), pep_kernel.canonical(sb))
        if ka == "pep-family":
            from fairtheory.proofs import parametric_kernel as pk

            return pk.implies(pk.canonical(sa), pk.canonical(sb)) is True
        from fairtheory.proofs.symbolic import statements_equal

        return statements_equal(sa, sb) is True
    except Exception:  # noqa: BLE001 - untrusted statements
        return False


def describe(s: Any) -> str:
    """A statement in words, generated from its structured form."""
    kind, st = _split(s)
    try:
        if kind == "pep-dual":
            from fairtheory.proofs import pep_kernel

            return pep_kernel.describe(pep_kernel.canonical(st))
        if kind == "sympy-proof":
            from fairtheory.proofs.symbolic import describe as sym_describe

            return sym_describe(st)
        if kind == "pep-family":
            from fairtheory.proofs import parametric_kernel as pk

            return pk.describe(pk.canonical(st))
    except Exception as exc:  # noqa: BLE001 - a malformed statement is described as such
        return f"(malformed {kind} statement: {type(exc).__name__})"
    return "(not a structured statement)"
