"""The fresh-interpreter side of :class:`fairtheory.proofs.recheck.FreshChecker`: JSON lines in, JSON lines out.

Started as ``python -I -c ... ROOT`` (never imported by the runner's process).  Each request line is
``{"op": "recheck", "nonce", "certificates", "declared", "words", "falsify"}`` (answered with
``{"nonce", "verdict"}``, :func:`fairtheory.proofs.recheck.recheck_row` decided here) or ``{"op": "modules",
"nonce"}`` (answered with the loaded module names, for tests).  It imports ``fairtheory`` only - never ``verify``,
never a plugin - so nothing a claim module did in the runner's process reaches the decision.  Library code that
prints cannot corrupt the answers: ``sys.stdout`` goes to stderr, answers to a private copy of the original
stdout.  Ends at end of input.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def _answer(req: Any) -> dict[str, Any]:
    nonce = req.get("nonce") if isinstance(req, dict) else None
    op = req.get("op") if isinstance(req, dict) else None
    if op == "modules":
        return {"nonce": nonce, "modules": sorted(sys.modules)}
    if op != "recheck":
        return {"nonce": nonce, "verdict": {"ok": False, "reason": f"unknown request {op!r}", "words": []}}
    from fairtheory.proofs.recheck import recheck_row

    words = req.get("words")
    verdict = recheck_row(req.get("certificates"), req.get("declared"), words if isinstance(words, list) else None,
                          falsify=req.get("falsify") is not False)
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
