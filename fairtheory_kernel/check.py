"""One entry point that re-checks any certificate exactly, under a hard time, size and memory budget; statements and
their words.

A certificate is plain JSON data (a dict with a ``"kind"``), never code: a *statement* and *evidence*.
:func:`check_proof` dispatches on the kind (:data:`KINDS`), to modules of this package only:

* ``"pep-dual"``: rational dual multipliers of the performance-estimation SDP that the statement defines
  (:func:`fairtheory_kernel.pep.check_certificate`);
* ``"pep-family"``: rational-function multipliers proving a PEP bound for every value of a parameter in an
  interval (:func:`fairtheory_kernel.family.check_family`);
* ``"pep-potential"``: a bound for every number of iterations by a potential function
  (:func:`fairtheory_kernel.potential_kernel.check_potential`);
* ``"symbolic"``: a derivation checked with exact arithmetic the kernel owns (:mod:`fairtheory_kernel.symbolic`);
* ``"counterexample"``: a point at which a symbolic statement is false, evaluated exactly
  (:func:`fairtheory_kernel.symbolic.check_counterexample`).

Before anything is parsed the certificate must pass :func:`admissible`: a known kind, JSON of at most the kind's
size (:data:`LIMITS`), no control character in any string (a newline in a name could forge a line of a report), and
every ``title``, ``citation`` and ``name`` at most :data:`MAX_TEXT` characters.  The check then runs in a forked
child process with a wall-clock limit (the kind's cap of :func:`budget_seconds`), a CPU limit and a memory cap
(:func:`fairtheory_kernel.bounded.run_bounded`).  Anything a plugin hands over is untrusted: a malformed dict, a
wrong type, an unknown kind, a timeout or a crash gives ``False``, never an exception.

:func:`statement_of`, :func:`implies` and :func:`describe` read statements: the verify runner gives ``proved`` only
when a re-checked certificate's statement implies the statement the claim declares, and prints that declared
statement in words generated from its canonical form (:func:`words`).
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["check_proof", "check_inline", "admissible", "statement_of", "canonical_statement", "implies", "describe",
           "words", "user_text", "budget_seconds", "MAX_SECONDS", "KINDS", "LIMITS", "MAX_TEXT"]

#: wall-clock budget of one check: a base plus an allowance per byte of certificate JSON, capped per kind
BASE_SECONDS = 8.0
SECONDS_PER_MB = 20.0
MEMORY_BYTES = 3 * 2**30
#: per kind: (largest certificate JSON in bytes, largest default time budget in seconds).  ``pep-dual`` is bounded
#: by its work estimate (about 2.5 s at pep.MAX_WORK), ``pep-family`` by its size limits (about 15 s at all of
#: them at once), the symbolic kind by its own size limit (``MAX_JSON``) and deadline (``MAX_SECONDS``, which the
#: symbolic kernel enforces itself; the cap here leaves room for starting the child on a loaded machine)
LIMITS: dict[str, tuple[int, float]] = {"pep-dual": (20_000_000, 60.0), "pep-family": (5_000_000, 30.0),
                                        "symbolic": (300_000, 10.0), "pep-potential": (1_000_000, 20.0),
                                        "counterexample": (300_000, 10.0)}
#: per kind: (module of this package, its checking function)
_MODULES = {"pep-dual": ("pep", "check_certificate"), "pep-family": ("family", "check_family"),
            "pep-potential": ("potential_kernel", "check_potential"), "symbolic": ("symbolic", "check"),
            "counterexample": ("symbolic", "check_counterexample")}
_SYMBOLIC = ("symbolic", "counterexample")
KINDS = tuple(_MODULES)
#: largest length of a user-supplied text (a ``title``, ``citation`` or ``name``)
MAX_TEXT = 120
#: largest ``seconds`` :func:`check_proof` accepts
MAX_SECONDS = 1e6
_TEXT_KEYS = ("title", "citation", "name")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _module(kind: str) -> Any:
    return importlib.import_module(f"fairtheory_kernel.{_MODULES[kind][0]}")


def _kind(cert: Any) -> str | None:
    kind = cert.get("kind") if isinstance(cert, Mapping) else None
    return kind if isinstance(kind, str) and kind in KINDS else None


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


def _size(cert: Any) -> int | None:
    try:
        return len(json.dumps(cert, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return None


def _max_bytes(kind: str) -> int:
    size = LIMITS[kind][0]
    return min(size, int(_module(kind).MAX_JSON)) if kind in _SYMBOLIC else size


def admissible(cert: Any) -> bool:
    """Whether ``cert`` may be checked at all: a known kind, JSON within the kind's size, no control character in any
    string, user texts (``title``, ``citation``, ``name``) of at most :data:`MAX_TEXT` characters."""
    kind, size = _kind(cert), _size(cert)
    return kind is not None and size is not None and size <= _max_bytes(kind) and _texts_ok(cert)


def budget_seconds(cert: Any) -> float:
    """The time :func:`check_proof` allows for ``cert``: ``8 s + 20 s per MB`` of its JSON, at most the kind's cap
    (:data:`LIMITS`); 0 for anything that is not JSON of a known kind."""
    kind, size = _kind(cert), _size(cert)
    return 0.0 if kind is None or size is None else min(BASE_SECONDS + SECONDS_PER_MB * size / 1e6, LIMITS[kind][1])


def check_inline(cert: Any) -> bool:
    """The exact check in this process, without the time limit (for tests and debuggers); refuses what
    :func:`admissible` refuses."""
    if not admissible(cert):
        return False
    try:
        kind = _kind(cert)
        return getattr(_module(kind), _MODULES[kind][1])(cert) is True
    except Exception:  # noqa: BLE001 - hostile certificate data must never stop the caller
        return False


def check_proof(cert: Any, *, seconds: float | None = None) -> bool:
    """``True`` iff ``cert`` is an admissible certificate (:func:`admissible`) of a known kind that re-checks exactly
    within the budget (``seconds`` in ``(0, 1e6]``; default :func:`budget_seconds`), in a forked child.  Any
    ``cert`` gives ``True`` or ``False``; a ``seconds`` that is not such a number raises ``TypeError`` /
    ``ValueError``."""
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError(f"seconds must be a number in (0, {MAX_SECONDS:g}], got {type(seconds).__name__}")
        if not 0 < seconds <= MAX_SECONDS:
            raise ValueError(f"seconds must be in (0, {MAX_SECONDS:g}], got {seconds!r}")
    if not admissible(cert):
        return False
    limit = budget_seconds(cert) if seconds is None else seconds
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
        return ("symbolic" if s.get("kind", "symbolic") == "symbolic" else None), s
    return None, None


def _canonical(kind: str, st: Any) -> Any:
    """The kernel's parsed statement of ``kind`` (the symbolic kernel's is its canonical JSON; a counterexample's
    is the symbolic statement it refutes)."""
    mod = _module(kind)
    return mod.canonical_statement(st) if kind in _SYMBOLIC else mod.canonical(st)


def canonical_statement(kind: Any, st: Any) -> Any:
    """The canonical JSON form of a statement of ``kind`` (what the kernel checks, every number normalised); raises
    on anything malformed."""
    if kind not in KINDS:
        raise ValueError(f"unknown statement kind {kind!r}"[:100])
    c = _canonical(kind, st)
    return c if kind in _SYMBOLIC else _module(kind).to_json(c)


def statement_of(cert: Any) -> dict[str, Any] | None:
    """``{"kind", "statement"}`` of a certificate, the statement in canonical form (what it proves when it re-checks),
    or ``None`` when it is not a well-formed statement of a known kind."""
    kind = _kind(cert)
    st = cert.get("statement") if kind is not None else None
    if not isinstance(st, Mapping):
        return None
    try:
        return {"kind": kind, "statement": canonical_statement(kind, st)}
    except Exception:  # noqa: BLE001 - untrusted data
        return None


def implies(a: Any, b: Any) -> bool:
    """Whether statement ``a`` (e.g. :func:`statement_of` a certificate) implies the declared statement ``b``: the
    same kind and the kind's ``implies`` (PEP: the same problem with a bound at least as strong; family: a
    sub-interval; symbolic: the same declarations, a subset of assumptions and a superset of goals); a potential
    statement (every ``N``) also implies a ``pep-family`` one.  A counterexample's statement ``S_a`` ("``S_a`` is
    false") implies "``S_b`` is false" when ``S_b`` implies ``S_a`` (the symbolic test, reversed).  ``False`` on
    anything malformed."""
    (ka, sa), (kb, sb) = _split(a), _split(b)
    try:
        if ka == "pep-potential" and kb in ("pep-potential", "pep-family"):
            mod = _module(ka)
            return mod.implies(mod.canonical(sa), kb, sb) is True
        if ka is None or ka != kb or ka not in KINDS:
            return False
        if ka == "counterexample":
            return _module(ka).implies(sb, sa) is True
        return _module(ka).implies(_canonical(ka, sa), _canonical(ka, sb)) is True
    except Exception:  # noqa: BLE001 - untrusted statements
        return False


# ------------------------------------------------------------------------------------------------ words
def user_text(s: Any) -> str:
    """``s`` quoted as a JSON string, after checking it is a string of at most :data:`MAX_TEXT` characters with
    no control character; raises ``ValueError`` otherwise."""
    if not isinstance(s, str) or len(s) > MAX_TEXT or _control(s):
        raise ValueError(f"user text must be a string of at most {MAX_TEXT} characters without control characters")
    return json.dumps(s, ensure_ascii=True)


def words(kind: Any, st: Any) -> str:
    """The canonical statement ``st`` of ``kind`` in words, on one line, from the kernel's parsed numbers only (each
    kind's ``describe``); raises on anything malformed.  User text (goal names, titles) has no control character,
    at most :data:`MAX_TEXT` characters, and appears quoted after the mathematics it labels, never as mathematics.
    The symbolic kind's lines (one per goal) are joined: after ``":"`` with a space, else with ``"; "``."""
    if kind not in KINDS or not _texts_ok(st):
        raise ValueError("a statement of a known kind, whose texts are short and free of control characters")
    text = _module(kind).describe(st if kind in _SYMBOLIC else _canonical(kind, st))
    if kind == "counterexample":
        text = "the statement is false at a point of its domain: " + text
    if kind in _SYMBOLIC:
        lines = [x.strip() for x in text.split("\n") if x.strip()]
        text = "".join(("" if not i else " " if lines[i - 1].endswith(":") else "; ") + ln for i, ln in enumerate(lines))
    if not isinstance(text, str) or _control(text):
        raise ValueError("the words of a statement must be one line")
    return text


def describe(s: Any) -> str:
    """A statement in words, generated from its canonical form only (:func:`words`); a malformed statement is
    described as such."""
    kind, st = _split(s)
    try:
        return words(kind, canonical_statement(kind, st))
    except Exception as exc:  # noqa: BLE001 - a malformed statement is described as such
        return f"(malformed {str(kind)[:20]!r} statement: {type(exc).__name__})"
