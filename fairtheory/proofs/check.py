"""One entry point that re-checks any certificate exactly: no solver, no float.

A certificate is plain JSON data (a dict with a ``"kind"``), never code.  :func:`check_proof` dispatches
on the kind:

* ``"pep-dual"``: rational dual multipliers of a performance-estimation SDP
  (:func:`fairtheory.proofs.certificate.check_certificate`);
* ``"sympy-..."``: a symbolic derivation re-run with sympy (:func:`fairtheory.proofs.symbolic.check_symbolic`).

Anything a plugin hands over is untrusted: a malformed dict, a wrong type or an unknown kind gives
``False``, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["check_proof"]


def check_proof(cert: Any) -> bool:
    """``True`` iff ``cert`` is a well-formed certificate of a known kind that re-checks exactly."""
    if not isinstance(cert, Mapping):
        return False
    kind = cert.get("kind")
    if not isinstance(kind, str):
        return False
    try:
        if kind == "pep-dual":
            from fairtheory.proofs.certificate import check_certificate

            return check_certificate(cert) is True
        if kind.startswith("sympy"):
            from fairtheory.proofs.symbolic import check_symbolic

            return check_symbolic(cert) is True
    except (ImportError, RecursionError, MemoryError):
        return False
    except Exception:  # noqa: BLE001 - hostile certificate data must never stop the caller
        return False
    return False
