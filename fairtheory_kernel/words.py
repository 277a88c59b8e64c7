"""Trusted kernel: the one function that turns a checked statement into words.

:func:`words` reads only the canonical statement the kernel checked (:func:`fairtheory_kernel.check.
canonical_statement`): the PEP kinds through their kernels' ``describe`` (every number printed from the parsed
rationals and polynomials, signs normalised: :func:`fairtheory_kernel.family.canonical` reduces a bound
``P/Q`` to lowest terms with a positive leading coefficient of ``Q``), the symbolic kind through its kernel's
``describe``.  The result is one line: user text (goal names, titles) never contains a control character (refused
here and by :func:`fairtheory_kernel.check.admissible`), is at most ``MAX_TEXT`` characters, and appears
quoted (:func:`user_text`) after the mathematics it labels, never as mathematics.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["words", "user_text"]


def user_text(s: Any) -> str:
    """``s`` quoted as a JSON string (``"..."``, quotes and backslashes escaped), after checking it is a string of at
    most ``MAX_TEXT`` characters with no control character; raises ``ValueError`` otherwise."""
    from fairtheory_kernel.check import MAX_TEXT, _control

    if not isinstance(s, str) or len(s) > MAX_TEXT or _control(s):
        raise ValueError(f"user text must be a string of at most {MAX_TEXT} characters without control characters")
    return json.dumps(s, ensure_ascii=True)


def _one_line(text: str) -> str:
    """Lines joined into one: after a line ending in ``":"`` with a space, otherwise with ``"; "`` (the user texts
    in it have no line breaks, so every line break is the describer's own)."""
    out = ""
    for line in (x.strip() for x in text.split("\n")):
        if line:
            out += ("" if not out else " " if out.endswith(":") else "; ") + line
    return out


def words(kind: Any, st: Any) -> str:
    """The canonical statement ``st`` of ``kind`` in words, on one line; raises on anything malformed (a statement the
    kernel would not check, or user text that is not allowed)."""
    from fairtheory_kernel import check

    if not check._texts_ok(st):
        raise ValueError("a statement's texts must be short and free of control characters")
    if kind == "pep-dual":
        from fairtheory_kernel import pep

        text = pep.describe(pep.canonical(st))
    elif kind == "pep-family":
        from fairtheory_kernel import family

        text = family.describe(family.canonical(st))
    elif kind == "pep-potential":
        from fairtheory_kernel import potential_kernel

        text = potential_kernel.describe(potential_kernel.canonical(st))
    elif kind == "symbolic":
        mod = check._symbolic()
        if mod is None:
            raise ValueError("the symbolic kernel is not installed")
        text = _one_line(mod.describe(st))
    else:
        raise ValueError(f"unknown statement kind {str(kind)[:20]!r}")
    if not isinstance(text, str) or check._control(text):
        raise ValueError("the words of a statement must be one line")
    return text
