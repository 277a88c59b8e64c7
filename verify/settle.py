"""A claim's exact certificates against its declared statements: the last step of a claim that proves.

:func:`settle_symbolic` is what the symbolic proof claims (:mod:`verify.claims.proofs` and the ``decided_*`` modules)
return: ``proved`` only when every declared statement is implied by the statement of one of the certificates
(:func:`fairtheory_kernel.check.implies`) and every certificate re-checks (:func:`fairtheory_kernel.check.check_proof`,
forked and budgeted).  The runner checks both again, in the claim's process and in a fresh interpreter; this is the
claim's own account of why it is (not) proved.
"""

from __future__ import annotations

from typing import Any

from verify.core import Outcome

__all__ = ["settle_symbolic"]


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def settle_symbolic(certs: Any, declared: Any, *, measured: float, bound: float, relation: str, explain: str,
                    details: dict[str, Any], error: float | None = None, tolerance: float | None = None,
                    docs: str = "docs/proofs.md", check_numeric: bool = False) -> Outcome:
    """The outcome of a claim proved by ``certs`` (a certificate or a list) of its ``declared`` statement(s):

    * ``error`` when the numeric route beside the proof disagrees (``check_numeric``: ``measured relation bound``,
      ``==`` meaning ``error <= tolerance``; a disagreement is a kernel or library bug) or when no certificate's
      statement implies a declared statement (the note names it);
    * ``inconclusive`` when a certificate does not re-check;
    * ``proved`` otherwise, the certificates attached (one, or the list), ``docs`` named in the note."""
    from fairtheory_kernel.check import check_proof
    from fairtheory_kernel.symbolic import describe, implies

    cs, want = _as_list(certs), _as_list(declared)
    base = {"measured": measured, "bound": bound, "relation": relation, "explain": explain, "details": details}
    if check_numeric:
        agree = {"<=": measured <= bound * (1 + 1e-9) + 1e-12, ">=": measured >= bound * (1 - 1e-9) - 1e-12,
                 "==": error is not None and tolerance is not None and error <= tolerance}.get(relation, False)
        if not agree:
            return Outcome(status="error", note="the numeric route disagrees with the proved statement: a kernel or "
                                                "library bug", **base)
    for k, st in enumerate(want):
        if not any(implies(c.get("statement") if isinstance(c, dict) else None, st) for c in cs):
            try:
                what = describe(st)[:400]
            except ValueError:
                what = "(not a well-formed symbolic statement)"
            return Outcome(status="error", note=f"no certificate proves declared statement {k + 1}: {what}", **base)
    bad = [c.get("title", "?") if isinstance(c, dict) else "?" for c in cs if not check_proof(c)]
    if bad:
        return Outcome(status="inconclusive", note=f"certificate(s) did not re-check: {bad}"[:400], **base)
    details = {**details, "goals": [g["name"] for c in cs for g in c["statement"]["goals"]],
               "titles": [c["title"] for c in cs]}
    return Outcome(status="proved", measured=measured, bound=bound, relation=relation, explain=explain,
                   certificate=cs if len(cs) > 1 else cs[0], instances=sum(len(c["statement"]["goals"]) for c in cs),
                   details=details, error=error, tolerance=tolerance,
                   note=f"symbolic certificate(s) re-checked exactly, statement(s) as declared ({docs})")
