"""Report writers (JSON and Markdown), written atomically: a temp file then ``os.replace``."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from verify.core import STATUSES, ClaimResult
from verify.decided import decide, markdown_lines, ran
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


#: a note longer than this (or of several lines: a solver log, a traceback) is shortened in the Markdown
#: report; the JSON report keeps it whole
NOTE_MAX = 800


@dataclass(frozen=True)
class RowNumbers:
    """The headline numbers of one report row and the instance they belong to.

    ``numbers_of`` is ``"counterexample"`` for a refuted claim whose counterexample carries its own
    ``measured`` and ``bound`` (then ``margin``, ``tightness`` and ``error`` are computed from those two
    numbers, so every number on the row describes that one instance), ``"worst margin"`` otherwise
    (``measured``, ``bound`` and ``margin`` of the instance with the smallest margin; ``tightness`` the largest
    ratio over all instances - a refuted claim without a numeric counterexample reports none: a ratio says
    nothing once the bound is violated), ``"-"`` when the claim reported no numbers.  ``within_rounding``:
    a ``verified``/``proved`` claim whose smallest margin is negative but inside the rounding slack
    (:data:`verify.core.ROUNDING`; a claim may allow up to :data:`verify.core.MAX_ROUNDING`)."""

    measured: float | None
    bound: float | None
    margin: float | None
    tightness: float | None
    error: float | None
    tolerance: float | None
    numbers_of: str
    within_rounding: bool = False

    def to_json(self) -> dict[str, Any]:
        return {k: (v if not isinstance(v, float) or math.isfinite(v) else repr(v)) for k, v in asdict(self).items()}


def _number(x: Any) -> float | None:
    """``x`` as a float, or ``None`` when it is not a number (booleans and other strings are not).  Non-finite
    values count (a peer returning NaN is the finding); the reports store them as ``"nan"``/``"inf"``."""
    if isinstance(x, str) and x in ("nan", "inf", "-inf"):
        return float(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def _own_numbers(r: ClaimResult, m: float, b: float) -> dict[str, Any]:
    """The counterexample's own margin and error that :class:`verify.core.Tally` recorded beside it
    (``details["counterexample_numbers"]``), when they belong to this counterexample (same measured and bound)."""
    own = r.details.get("counterexample_numbers") if isinstance(r.details, dict) else None
    if not isinstance(own, dict) or _number(own.get("measured")) != m or _number(own.get("bound")) != b:
        return {}
    return {k: v for k in ("margin", "error") if (v := _number(own.get(k))) is not None}


def row_numbers(r: ClaimResult) -> RowNumbers:
    """What a report row prints for ``r`` (see :class:`RowNumbers`).

    A counterexample's margin follows the definition of :class:`verify.core.Outcome`'s ``margin``: ``bound -
    measured`` (``<=``), ``measured - bound`` (``>=``), the allowed deviation minus the deviation (``==``: the one
    :class:`~verify.core.Tally` recorded, else ``tolerance |bound| - |measured - bound|``); its error (``==``) the
    deviation relative to the reference the tally used (else to ``|bound|``)."""
    cx = r.counterexample if isinstance(r.counterexample, dict) else {}
    m, b = _number(cx.get("measured")), _number(cx.get("bound"))
    if r.status == "refuted" and m is not None and b is not None:
        margin = tight = error = None
        own = _own_numbers(r, m, b)
        if not (math.isfinite(m) and math.isfinite(b)):  # never holds (verify.core.Tally): no ratio, no finite margin
            margin, error = -math.inf, (math.inf if r.relation == "==" else None)
        elif r.relation == "<=":
            margin, tight = b - m, (max(m / b, 0.0) if b > 0 else None)
        elif r.relation == ">=":
            margin, tight = m - b, (b / m if m > 0 and b > 0 else None)
        elif r.relation == "==":
            dev = abs(m - b)
            margin = own.get("margin", (r.tolerance * abs(b) - dev) if r.tolerance is not None else -dev)
            error = own.get("error", dev / abs(b) if b != 0 else None)
        return RowNumbers(m, b, margin, tight, error, r.tolerance, "counterexample")
    if r.measured is None and r.bound is None:
        return RowNumbers(None, None, r.margin, r.tightness, r.error, r.tolerance, "-")
    tight = None if r.status == "refuted" else r.tightness
    slack = r.status in ("verified", "proved") and r.margin is not None and r.margin < 0
    return RowNumbers(r.measured, r.bound, r.margin, tight, r.error, r.tolerance, "worst margin", slack)


def margin_text(row: RowNumbers) -> str:
    """The margin cell: the number, and ``(within rounding)`` when a verified claim's margin is negative."""
    return fmt(row.margin) + (" (within rounding)" if row.within_rounding else "")


def status_text(r: ClaimResult) -> str:
    """The status cell: ``skipped`` says that it does not count against the claim's expectation, a ``refuted``
    claim whose expectation records the refutation says it is a recorded finding, and a refutation by a re-checked
    ``"counterexample"`` certificate (``details["refuted_exactly"]``, :func:`verify.core.bind_refutation`) says
    ``refuted exactly``."""
    if r.status == "skipped":
        return "skipped (not run: fine)"
    exact = r.status == "refuted" and isinstance(r.details, dict) and r.details.get("refuted_exactly") is True
    if r.status == "refuted" and r.expected == "refuted":
        return "refuted exactly (recorded finding)" if exact else "refuted (recorded finding)"
    return "refuted exactly" if exact else r.status


def short_note(note: str, limit: int = NOTE_MAX) -> str:
    """``note`` for the Markdown report: whole when it is one line of at most ``limit`` characters, else its
    first line cut to 300 characters and a pointer to the JSON report (solver logs, tracebacks)."""
    text = str(note).strip()
    lines = text.splitlines()
    if len(lines) <= 1 and len(text) <= limit:
        return text
    head = " ".join(lines[0].split()) if lines else ""
    head = head if len(head) <= 300 else head[:297] + "..."
    return f"{head} [... {len(text):,} characters in all: the whole note is in the JSON report]"


def status_counts(results: Sequence[ClaimResult]) -> dict[str, int]:
    """Claims per status, in :data:`verify.core.STATUSES` order (statuses with no claim left out)."""
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    return {s: n for s, n in counts.items() if n}


#: the fields of a JSON claim that a refuted row replaces by its counterexample's own numbers
ROW_FIELDS = ("measured", "bound", "margin", "tightness", "error")


def claim_json(r: ClaimResult) -> dict[str, Any]:
    """One claim of the JSON report: :meth:`verify.core.ClaimResult.to_json` and ``row`` (:func:`row_numbers`).

    A refuted claim whose counterexample carries its own numbers reports them in ``measured``, ``bound``,
    ``margin``, ``tightness`` and ``error`` too - the numbers the console and the Markdown report print - and the
    worst violation over all its instances under ``worst_violation``."""
    d = r.to_json()
    row = row_numbers(r)
    d["row"] = row.to_json()
    if row.numbers_of == "counterexample":
        d["worst_violation"] = {k: d.get(k) for k in ROW_FIELDS}
        d.update({k: d["row"][k] for k in ROW_FIELDS})
    return d


def to_json(results: Sequence[ClaimResult], meta: dict[str, Any],
            cache: dict[str, tuple[ClaimResult, str]] | None = None) -> str:
    """The JSON report: ``{"meta", "summary", "decided", "claims"}`` indented by 2 (``decided``: which seed claims the
    rows decide exactly, :func:`verify.decided.decide`).  ``cache`` (the runner, which rewrites the
    report after every claim): each row's text, by claim id, reused while the row is the same object - the same
    characters as without it (a finished row is never changed), without serialising every earlier row again."""
    summary = status_counts(results)
    decided = decide(results)
    if cache is None:
        doc = {"meta": meta, "summary": summary, "decided": decided, "claims": [claim_json(r) for r in results]}
        return json.dumps(doc, indent=2, sort_keys=False)
    head = json.dumps({"meta": meta, "summary": summary, "decided": decided, "claims": []}, indent=2, sort_keys=False)
    if not results:
        return head
    rows = []
    for r in results:
        hit = cache.get(r.id)
        if hit is None or hit[0] is not r:
            text = json.dumps(claim_json(r), indent=2, sort_keys=False)
            hit = cache[r.id] = (r, "\n".join("    " + line for line in text.split("\n")))
        rows.append(hit[1])
    assert head.endswith('"claims": []\n}')
    return head[:-len("[]\n}")] + "[\n" + ",\n".join(rows) + "\n  ]\n}"


def _markdown_row(r: ClaimResult) -> tuple[str, list[str]]:
    """One row of the Markdown table and the row's lines under "Notes and counterexamples" (none when it has none)."""
    row = row_numbers(r)
    flag = "" if r.as_expected else " **(unexpected)**"
    src = "" if r.source == "built-in" else " (plugin)"
    errtol = f"{fmt(row.error)} / {fmt(row.tolerance)}" if row.tolerance is not None else "-"
    # an inconclusive row's numbers decide nothing: no relation, no margin
    rel = "-" if r.status == "inconclusive" else (_cell(r.relation) or "-")
    margin = "-" if r.status == "inconclusive" else margin_text(row)
    line = (f"| `{r.id}`{src} | {_cell(r.citation)} | {status_text(r)}{flag} | {r.expected} | {fmt(row.measured)} | "
            f"{rel} | {fmt(row.bound)} | {margin} | {errtol} | {fmt(row.tightness)} | "
            f"{fmt(r.adversarial)} | {fmt(r.worstcase)} | {row.numbers_of} | {r.instances} | {r.seconds:.2f} |")
    if not (r.note or r.counterexample or r.explain or r.certificate is not None or r.proved_statement):
        return line, []
    notes = [f"- `{r.id}` ({r.status})"]
    if r.explain:
        notes.append(f"  - what the numbers are: {_cell(r.explain)}")
    if r.note:
        notes.append(f"  - note: {_cell(short_note(r.note))}")
    for words in r.proved_statement or []:
        notes.append(f"  - proved: {_cell(words)}")
    exact = r.status == "refuted" and isinstance(r.details, dict) and r.details.get("refuted_exactly") is True
    for words in (r.details.get("refuted_statements") or []) if exact else []:
        notes.append(f"  - refuted exactly: {_cell(words)}")
    if r.certificate is not None:
        how = "re-checked exactly, also in a fresh interpreter" if r.status == "proved" or exact else "see the note"
        notes.append(f"  - certificate ({certificate_summary(r.certificate)}): {how}, in the JSON report")
    if r.counterexample:
        notes.append(f"  - counterexample: `{json.dumps(r.to_json()['counterexample'])}`")
    if r.status == "refuted" and row.numbers_of == "counterexample":
        notes.append(f"  - worst violation over the {r.instances} instances (not the row's numbers): "
                     f"measured {fmt(r.measured)} {r.relation or 'vs'} bound {fmt(r.bound)}, margin "
                     f"{fmt(r.margin)}" + (f"; largest ratio over the instances {fmt(r.tightness)}"
                                           if r.tightness is not None else ""))
    searched = r.details.get("adversarial") if isinstance(r.details, dict) else None
    if isinstance(searched, dict) and searched.get("what"):
        notes.append(f"  - adversarial search ({fmt(r.adversarial)}): {searched['what']}")
    return line, notes


def to_markdown(results: Sequence[ClaimResult], meta: dict[str, Any],
                cache: dict[str, tuple[ClaimResult, str, list[str]]] | None = None) -> str:
    """The Markdown report.  ``cache`` (the runner, which rewrites the report after every claim): each row's table
    line and notes, by claim id, reused while the row is the same object - the same text as without it."""
    parts = []
    for r in results:
        hit = cache.get(r.id) if cache is not None else None
        if hit is None or hit[0] is not r:
            hit = (r, *_markdown_row(r))
            if cache is not None:
                cache[r.id] = hit
        parts.append(hit)
    lines = [
        "# fairtheory verification report",
        "",
        ", ".join(f"{k}: `{v}`" for k, v in meta.items()),
        "",
        "| id | citation | status | expected | measured | rel | bound | margin | error / tol | tightness "
        "| adversarial | worst case | numbers of | instances | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [line for _, line, _ in parts]
    lines += ["", "`rel` is how measured compares with bound: `<=` upper bound (tightness = measured/bound), "
              "`>=` lower bound (tightness = bound/measured), `==` equality (error = relative deviation, "
              "verified when error <= tol), `-` for an inconclusive row (its numbers decide nothing: no margin "
              "either); other symbols are explained per claim below.  For bounds, three "
              "ratios: `tightness` (largest over the sampled instances), `adversarial` (largest a seeded search "
              "over the instance space found; its best instance is in the JSON details) and `worst case` (exact, "
              "from a performance-estimation SDP, where one applies); `-` where not available."]
    lines += ["", "`numbers of` says which instance the row's numbers are: `counterexample` (a refuted claim: "
              "measured, bound, margin, tightness and error are all the reported counterexample's own; the worst "
              "violation is listed in the notes) or `worst margin` (measured, bound and margin of the instance "
              "with the smallest margin; tightness the largest ratio over all instances, none for a refuted "
              "claim).  `(within rounding)`: the smallest margin is negative but inside the fixed float-rounding "
              "slack (`verify.core.ROUNDING`), so the claim holds."]
    lines += ["", "Statuses: `proved` (exact certificates, re-checked by the kernel `fairtheory_kernel.check.check_proof` "
              "in the claim's process and again in a fresh interpreter; the certificates and the declared statements "
              "are in the JSON report, and `python -m fairtheory.proofs recheck REPORT.json` re-checks them), "
              "`verified` (the numbers "
              "held on every instance checked), `refuted` (`refuted exactly`: by a `counterexample` certificate - a point "
              "at which the relation fails, evaluated exactly by the kernel - re-checked like a proof, whose statement "
              "the claim's declared refuted statement implies; `recheck` re-checks these too), `inconclusive`, "
              "`skipped` (the check did not run, e.g. a "
              "peer library is not installed; it never fails the run, and `expected` is what the claim gives when "
              "it runs), `not implemented`, `error`."]
    section = decide(results)
    if ran(section):
        lines += [""] + markdown_lines(section)
    notes = [line for _, _, rows in parts for line in rows]
    if notes:
        lines += ["", "## Notes and counterexamples", "", *notes]
    return "\n".join(lines) + "\n"
