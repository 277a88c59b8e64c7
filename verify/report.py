"""Report writers (JSON and Markdown), written atomically: a temp file then ``os.replace``."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verify.core import ClaimResult


def atomic_write(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never a torn one."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def fmt(x: Any, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if not math.isfinite(x):
            return str(x)
        return f"{x:.{digits}g}"
    return str(x)


def to_json(results: Sequence[ClaimResult], meta: dict[str, Any]) -> str:
    summary: dict[str, int] = {}
    for r in results:
        summary[r.status] = summary.get(r.status, 0) + 1
    doc = {"meta": meta, "summary": summary, "claims": [r.to_json() for r in results]}
    return json.dumps(doc, indent=2, sort_keys=False)


def to_markdown(results: Sequence[ClaimResult], meta: dict[str, Any]) -> str:
    lines = [
        "# fairtheory verification report",
        "",
        ", ".join(f"{k}: `{v}`" for k, v in meta.items()),
        "",
        "| id | citation | status | expected | measured | bound | margin | tightness | instances | s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        flag = "" if r.as_expected else " **(unexpected)**"
        lines.append(
            f"| `{r.id}` | {r.citation} | {r.status}{flag} | {r.expected} | {fmt(r.measured)} | "
            f"{fmt(r.bound)} | {fmt(r.margin)} | {fmt(r.tightness)} | {r.instances} | {r.seconds:.2f} |"
        )
    notes = [r for r in results if r.note or r.counterexample]
    if notes:
        lines += ["", "## Notes and counterexamples", ""]
        for r in notes:
            lines.append(f"- `{r.id}` ({r.status}): {r.note}")
            if r.counterexample:
                lines.append(f"  - counterexample: `{json.dumps(r.to_json()['counterexample'])}`")
    return "\n".join(lines) + "\n"
