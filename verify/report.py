"""Report writers (JSON and Markdown), written atomically: a temp file then ``os.replace``."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verify.core import STATUSES, ClaimResult
from verify.validate import certificate_summary


def atomic_write(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never a torn one."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; a report gets the usual mode
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fmt(x: Any, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if not math.isfinite(x):
            return str(x)
        return f"{x:.{digits}g}"
    return str(x)


def _cell(text: str) -> str:
    """Plugin text inside a Markdown table cell: one line, ``|`` escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def status_counts(results: Sequence[ClaimResult]) -> dict[str, int]:
    """Claims per status, in :data:`verify.core.STATUSES` order (statuses with no claim left out)."""
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    return {s: n for s, n in counts.items() if n}


def to_json(results: Sequence[ClaimResult], meta: dict[str, Any]) -> str:
    summary = status_counts(results)
    doc = {"meta": meta, "summary": summary, "claims": [r.to_json() for r in results]}
    return json.dumps(doc, indent=2, sort_keys=False)


def to_markdown(results: Sequence[ClaimResult], meta: dict[str, Any]) -> str:
    lines = [
        "# fairtheory verification report",
        "",
        ", ".join(f"{k}: `{v}`" for k, v in meta.items()),
        "",
        "| id | citation | status | expected | measured | rel | bound | margin | error / tol | tightness "
        "| adversarial | worst case | instances | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        flag = "" if r.as_expected else " **(unexpected)**"
        src = "" if r.source == "built-in" else " (plugin)"
        errtol = f"{fmt(r.error)} / {fmt(r.tolerance)}" if r.tolerance is not None else "-"
        lines.append(
            f"| `{r.id}`{src} | {_cell(r.citation)} | {r.status}{flag} | {r.expected} | {fmt(r.measured)} | "
            f"{_cell(r.relation) or '-'} | {fmt(r.bound)} | {fmt(r.margin)} | {errtol} | {fmt(r.tightness)} | "
            f"{fmt(r.adversarial)} | {fmt(r.worstcase)} | {r.instances} | {r.seconds:.2f} |"
        )
    lines += ["", "`rel` is how measured compares with bound: `<=` upper bound (tightness = measured/bound), "
              "`>=` lower bound (tightness = bound/measured), `==` equality (error = relative deviation, "
              "verified when error <= tol); other symbols are explained per claim below.  For bounds, three "
              "ratios: `tightness` (largest over the sampled instances), `adversarial` (largest a seeded search "
              "over the instance space found; its best instance is in the JSON details) and `worst case` (exact, "
              "from a performance-estimation SDP, where one applies); `-` where not available."]
    lines += ["", "Statuses: `proved` (an exact certificate, re-checked by the runner with "
              "`fairtheory.proofs.check.check_proof`; the certificate is in the JSON report), `verified` (the numbers "
              "held on every instance checked), `refuted`, `inconclusive`, `skipped`, `not implemented`, `error`."]
    notes = [r for r in results if r.note or r.counterexample or r.explain or r.certificate is not None
             or r.proved_statement]
    if notes:
        lines += ["", "## Notes and counterexamples", ""]
        for r in notes:
            text = " ".join(x for x in (r.explain, r.note) if x)
            lines.append(f"- `{r.id}` ({r.status})" + (f": {text}" if text else ""))
            for words in r.proved_statement or []:
                lines.append(f"  - proved: {_cell(words)}")
            if r.certificate is not None:
                lines.append(f"  - certificate ({certificate_summary(r.certificate)}): "
                             f"{'re-checked exactly' if r.status == 'proved' else 'see the note'}, in the JSON report")
            if r.counterexample:
                lines.append(f"  - counterexample: `{json.dumps(r.to_json()['counterexample'])}`")
            searched = r.details.get("adversarial") if isinstance(r.details, dict) else None
            if isinstance(searched, dict) and searched.get("what"):
                lines.append(f"  - adversarial search ({fmt(r.adversarial)}): {searched['what']}")
    return "\n".join(lines) + "\n"
