"""The fresh-interpreter side of :class:`fairtheory.proofs.recheck.FreshChecker`: JSON lines in, JSON lines out.

Started as ``python -I -c BOOT ROOT THIS_FILE``: the boot runs this file as a script (``runpy.run_path``), so no
package of the project is imported when it starts.  Each request line is ``{"op": "recheck", "nonce",
"certificates", "declared", "words", "falsify", "quick"}`` (a proved row; answered with ``{"nonce", "verdict"}``),
``{"op": "recheck_refuted", "nonce", "certificates", "declared", "words"}`` (a row refuted exactly:
:func:`~fairtheory.proofs.recheck.recheck_refutation`, answered the same way) or ``{"op": "modules", "nonce"}``
(answered with the loaded module names now and when the first exact check began, for tests).

A re-check runs in two stages.  First the exact re-check of every certificate with the kernel alone
(:func:`fairtheory_kernel.check.check_proof`): when it starts, this process holds the standard library and
``fairtheory_kernel`` and nothing else of the project.  Only then the rest of
:func:`fairtheory.proofs.recheck.recheck_row` (statements, words, falsification; it imports ``fairtheory``).  It
never imports ``verify`` or a plugin, so nothing a claim module did in the runner's process reaches the decision.
Library code that prints cannot corrupt the answers: ``sys.stdout`` goes to stderr, answers to a private copy of
the original stdout.  Ends at end of input.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

#: the modules loaded when the first exact check began (answered by the ``modules`` request)
AT_FIRST_CHECK: list[str] = []


def _kernel_checks(certificates: Any) -> dict[str, Any] | None:
    """The exact re-check of every certificate, by the kernel only; a failed verdict (JSON) or ``None`` (all pass,
    or nothing to check: :func:`~fairtheory.proofs.recheck.recheck_row` then says why)."""
    if certificates is None:
        return None
    certs = certificates if isinstance(certificates, list) else [certificates]
    from fairtheory_kernel.check import check_proof

    if not AT_FIRST_CHECK:
        AT_FIRST_CHECK.extend(sorted(sys.modules))
    for i, c in enumerate(certs):
        if check_proof(c) is not True:
            kind = c.get("kind") if isinstance(c, dict) else None
            return {"ok": False, "reason": f"certificate {i} of {len(certs)} (kind {kind!r}) fails its exact re-check",
                    "words": [], "seconds": 0.0, "falsify": []}
    return None


def _answer(req: Any) -> dict[str, Any]:
    nonce = req.get("nonce") if isinstance(req, dict) else None
    op = req.get("op") if isinstance(req, dict) else None
    if op == "modules":
        return {"nonce": nonce, "modules": sorted(sys.modules), "at_first_check": AT_FIRST_CHECK}
    if op not in ("recheck", "recheck_refuted"):
        return {"nonce": nonce, "verdict": {"ok": False, "reason": f"unknown request {op!r}", "words": []}}
    failed = _kernel_checks(req.get("certificates"))
    if failed is not None:
        return {"nonce": nonce, "verdict": failed}
    words = req.get("words")
    if op == "recheck_refuted":
        from fairtheory.proofs.recheck import recheck_refutation

        verdict = recheck_refutation(req.get("certificates"), req.get("declared"),
                                     words if isinstance(words, list) else None,
                                     checked=req.get("certificates") is not None)
        return {"nonce": nonce, "verdict": verdict.to_json()}
    from fairtheory.proofs.recheck import recheck_row

    verdict = recheck_row(req.get("certificates"), req.get("declared"), words if isinstance(words, list) else None,
                          falsify=req.get("falsify") is not False, checked=req.get("certificates") is not None,
                          quick=req.get("quick") is True)
    return {"nonce": nonce, "verdict": verdict.to_json()}


def main() -> int:
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything printed by library code goes to stderr, never into the answers
    sys.stdout = sys.stderr
    for line in sys.stdin:
        try:
            req = json.loads(line)
        except (ValueError, RecursionError):
            req = None
        try:
            ans = _answer(req)
        except Exception as exc:  # noqa: BLE001 - one bad request must not end the worker
            ans = {"nonce": req.get("nonce") if isinstance(req, dict) else None,
                   "verdict": {"ok": False, "reason": f"the worker failed: {type(exc).__name__}", "words": []}}
        out.write(json.dumps(ans) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
