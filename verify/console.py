"""The console table of ``python -m verify``: one block of short lines per claim, fitted to the terminal width.

Each claim takes a head line and one or more detail lines, every line at most ``width`` characters::

    proofs.rcfl.softplus.smoothness   002 Sec. 4                               proved      1.2 s
      re-checked exactly in 0.21 s (symbolic, 3.1 kB)
      proved: for all mu > 0, x real: ...
    rcfl.theorem1.v002                002 Thm. 1                               verified    2.3 s
      measured 1.2e-04 <= bound 0.57, margin 0.57 (smallest margin) | tight 2.1e-04, adv 2.1e-04 | 40 inst.

* head: id, citation (shortened to fit; whole in the Markdown report), status (with ``(expected ...)`` when it
  differs from the claim's expectation) and seconds;
* a ``proved`` claim: the exact re-check (its time, the certificates' kinds and size) and its proved statements in
  words - the words :func:`fairtheory_kernel.check.describe` generates from the checked statement, which the runner
  stores in :attr:`verify.core.ClaimResult.proved_statement` - wrapped, at most :data:`STATEMENTS` statements of at
  most :data:`STATEMENT_LINES` lines each (all of them in the Markdown and JSON reports).  No measured/bound
  numbers: a proof's evidence is its certificate;
* any other claim: the numbers of :func:`verify.report.row_numbers` (a refuted claim's are its counterexample's
  own), the ratios that exist and the instance count; a ``skipped``, ``error`` or ``not implemented`` claim its
  note, shortened.

Cells that do not apply are left out rather than printed as ``-``.  The width is :func:`console_width`
(``COLUMNS``, else the terminal's, else :data:`DEFAULT_WIDTH`).  Plugin text is printed literally
(:class:`rich.text.Text`, never markup).
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from verify.core import ClaimResult
from verify.report import fmt, margin_text, row_numbers, status_text
from verify.validate import certificate_summary

#: width when neither ``COLUMNS`` nor a terminal says (a log file, CI)
DEFAULT_WIDTH = 100
#: narrowest and widest table laid out
MIN_WIDTH, MAX_WIDTH = 60, 240
#: proved statements shown per claim, and wrapped lines per statement (the reports keep them whole)
STATEMENTS, STATEMENT_LINES = 2, 3
#: colour of each status (the head line's status cell)
STYLE = {"proved": "bold green", "verified": "green", "refuted": "red", "inconclusive": "yellow", "skipped": "cyan",
         "not implemented": "dim", "error": "bold red"}
INDENT = "  "


def console_width(default: int = DEFAULT_WIDTH) -> int:
    """Columns to lay the table out in: ``COLUMNS`` when set, else the terminal's, else ``default``; clipped
    to ``[MIN_WIDTH, MAX_WIDTH]``."""
    cols = shutil.get_terminal_size((default, 24)).columns
    return max(MIN_WIDTH, min(MAX_WIDTH, cols if cols > 0 else default))


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _cut(text: str, n: int) -> str:
    """``text`` in at most ``n`` characters (``...`` marks a cut)."""
    return text if len(text) <= n else text[:max(0, n - 3)].rstrip() + "..."


def _wrap(text: str, width: int, first: str, rest: str, max_lines: int | None = None) -> list[str]:
    """``text`` wrapped to ``width`` with prefixes ``first``/``rest``; past ``max_lines`` the last line ends in
    ``...``.  Long unbreakable words (a formula) are broken."""
    lines = textwrap.wrap(_one_line(text), width=width, initial_indent=first, subsequent_indent=rest,
                          break_long_words=True, break_on_hyphens=False) or [first.rstrip()]
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1] if len(lines[-1]) + 4 <= width else lines[-1][:width - 4].rstrip()
        lines[-1] = last + " ..."
    return lines


def status_cell(r: ClaimResult) -> str:
    """The status as the head line prints it (``(expected ...)`` when it differs from the expectation)."""
    return status_text(r) if r.as_expected else f"{r.status} (expected {r.expected})"


def head_line(r: ClaimResult, width: int) -> Text:
    """``id  citation  status  seconds`` in ``width`` columns; the citation is shortened (or left out) to fit,
    the id is never cut (a longer id than the line puts the rest on its own lines)."""
    right = f"{status_cell(r):<12}  {r.seconds:7.1f} s"
    room = width - len(right) - 2
    if len(r.id) > room:  # a very long id: on its own line(s), status and seconds right-aligned below
        text = Text("\n".join(textwrap.wrap(r.id, width, break_long_words=True)) + "\n" + right.rjust(width))
    else:
        cite_room = room - len(r.id) - 2
        cite = _cut(_one_line(r.citation), cite_room) if cite_room >= 12 else ""
        left = f"{r.id}  {cite}".rstrip() if cite else r.id
        text = Text(left.ljust(room) + "  " + right)
    start = text.plain.rfind(status_cell(r))
    style = STYLE.get(r.status)
    if style and start >= 0:
        text.stylize(style, start, start + len(r.status))
    return text


def _numbers(r: ClaimResult) -> list[str]:
    """The row's numbers in words: measured, relation, bound, margin and which instance they are, then the
    ratios that exist and the instance count."""
    row = row_numbers(r)
    parts: list[str] = []
    if row.measured is not None or row.bound is not None:
        rel = r.relation or "vs"
        whose = {"counterexample": " (counterexample)", "worst margin": " (smallest margin)"}.get(row.numbers_of, "")
        first = f"measured {fmt(row.measured)} {rel} bound {fmt(row.bound)}"
        if row.margin is not None:
            first += f", margin {margin_text(row)}"
        parts.append(first + whose)
    if row.tolerance is not None:
        parts.append(f"error {fmt(row.error)} / tol {fmt(row.tolerance)}")
    ratios = [f"{name} {fmt(v)}" for name, v in (("tight", row.tightness), ("adv", r.adversarial),
                                                   ("worst case", r.worstcase)) if v is not None]
    if ratios:
        parts.append(", ".join(ratios))
    if r.instances:
        parts.append(f"{r.instances} instance{'s' if r.instances != 1 else ''}")
    return parts


def _join(parts: Sequence[str], width: int) -> list[str]:
    """``parts`` joined by `` | `` on lines of at most ``width`` characters, a part broken only when it does
    not fit on a line of its own."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " | " + part
        elif len(INDENT * (2 if lines else 1)) + len(part) <= width:
            lines.append(INDENT * (2 if lines else 1) + part)
        else:
            lines += _wrap(part, width, INDENT * (2 if lines else 1), INDENT * 2)
    return lines


def _recheck(r: ClaimResult) -> str:
    """How the certificates were re-checked: the claim worker's exact re-check and, where the runner did one,
    the fresh interpreter's (``details["certificate_recheck_s"]``, ``details["fresh_recheck_s"]``)."""
    details = r.details if isinstance(r.details, dict) else {}
    secs, fresh = details.get("certificate_recheck_s"), details.get("fresh_recheck_s")
    what = certificate_summary(r.certificate)
    when = f" in {float(secs):.2f} s" if isinstance(secs, (int, float)) else ""
    again = f", again in a fresh interpreter in {float(fresh):.2f} s" if isinstance(fresh, (int, float)) else ""
    return f"re-checked exactly{when}{again}" + (f" ({what})" if what else "")


def detail_lines(r: ClaimResult, width: int) -> list[str]:
    """The lines under the head line (each at most ``width`` characters)."""
    inner = width - len(INDENT)
    out: list[str] = []
    if r.status == "proved":
        out += _wrap(_recheck(r), width, INDENT, INDENT * 2)
        # one line per statement (a symbolic certificate's words hold one goal a line)
        words = [ln for w in r.proved_statement or [] for ln in str(w).splitlines() if ln.strip()]
        for w in words[:STATEMENTS]:
            out += _wrap(w, width, INDENT + "proved: ", INDENT * 2, STATEMENT_LINES)
        if len(words) > STATEMENTS:
            more = len(words) - STATEMENTS
            out.append(_cut(f"{INDENT}... and {more} more proved statement{'s' if more > 1 else ''} "
                            "(all in the Markdown and JSON reports)", width))
        return out
    out += _join(_numbers(r), width)
    if r.status in ("skipped", "error", "not implemented", "inconclusive") and r.note:
        out.append(INDENT + _cut(_one_line(r.note.splitlines()[0] if r.note.strip() else r.note), inner))
    return out


def table_lines(results: Sequence[ClaimResult], width: int) -> list[Text]:
    """The whole table: a header, then each claim's head line and detail lines."""
    head = "claim  citation"
    right = f"{'status':<12}  {'seconds':>9}"
    lines = [Text(head.ljust(width - len(right)) + right, style="bold"), Text("-" * width)]
    for r in results:
        lines.append(head_line(r, width))
        lines += [Text(x) for x in detail_lines(r, width)]
    return lines


def print_results(console: Console, results: Sequence[ClaimResult]) -> None:
    """Print the table on ``console`` in its width (every line fits: nothing is wrapped by the console)."""
    width = max(MIN_WIDTH, min(MAX_WIDTH, console.width))
    for line in table_lines(results, width):
        console.print(line, highlight=False, overflow="ignore", crop=False, no_wrap=True)
