"""The console table of ``python -m verify``: one block of short lines per claim, fitted to the terminal width.

Each claim takes a head line and one or more detail lines, every line at most ``width`` characters::

    proofs.rcfl.softplus.smoothness   002 Sec. 4                               proved      1.2 s
      re-checked exactly in 0.21 s (symbolic, 3.1 kB)
      proved: for all mu > 0, x real: d^2/dx^2 mu log(1 + exp(x/mu)) <= 1/(4 mu)
    rcfl.theorem1.v002                002 Thm. 1                               verified    2.3 s
      measured 1.2e-04 <= bound 0.57, margin 0.5699 (smallest margin) | tight 2.1e-04, adv 2.1e-04 | 40 instances
    fedfv.theorem3.pareto             004 Thm. 3             refuted (recorded finding)    3.3 s
      measured 0.3894 == bound 0, margin -0.3894 (counterexample) | error 0.2754 / tol 1e-06 | 13 instances

* head: id, citation (shortened to fit; whole in the Markdown report), status (with ``(expected ...)`` when it
  differs from the claim's expectation, ``(recorded finding)`` for a refuted claim whose expectation records the
  refutation) and seconds;
* a ``proved`` claim: the exact re-check (its time, the certificates' kinds and size) and its proved statements in
  words - the words :func:`fairtheory_kernel.check.describe` generates from the checked statement, which the runner
  stores in :attr:`verify.core.ClaimResult.proved_statement` - at most :data:`STATEMENTS` statements, each whole
  (wrapped onto continuation lines indented under it, never cut: its hypotheses are part of it), the others counted
  (all of them in the Markdown and JSON reports).  No measured/bound numbers: a proof's evidence is its certificate;
* any other claim: the numbers of :func:`verify.report.row_numbers` (a refuted claim's are its counterexample's
  own), the ratios that exist and the instance count; an ``inconclusive`` claim's numbers without a relation (they
  decide nothing) and its note; a ``skipped``, ``error`` or ``not implemented`` claim its note, shortened.

While the claims run, :func:`progress_line` prints one line per finished claim, fitted to the width by dropping
fields (never wrapped); after the table :func:`closing_lines` say where the reports are and what the exit status
means.

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
#: proved statements shown per claim (each whole; the reports keep all of them)
STATEMENTS = 2
#: colour of each status (the head line's status cell)
STYLE = {"proved": "bold green", "verified": "green", "refuted": "red", "inconclusive": "yellow", "skipped": "cyan",
         "not implemented": "dim", "error": "bold red"}
INDENT = "  "
#: joins the words of a unit that a wrapped line never breaks (``measured 1 <= bound 2``); printed as a space
GLUE = "\x00"


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


def _wrap(text: str, width: int, first: str, rest: str) -> list[str]:
    """``text`` wrapped whole to ``width`` with prefixes ``first``/``rest`` (continuation lines indented under the
    first); a word longer than a line (a long formula) is broken."""
    return textwrap.wrap(_one_line(text), width=width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=True, break_on_hyphens=False) or [first.rstrip()]


def status_cell(r: ClaimResult) -> str:
    """The status as the head line prints it: :func:`verify.report.status_text` (``refuted (recorded finding)``,
    ``skipped (not run: fine)``), or ``(expected ...)`` when it differs from the expectation."""
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
    if r.status == "inconclusive":  # numbers that decide nothing: no relation, no margin (the note says why)
        if row.measured is not None or row.bound is not None:
            parts.append(f"measured {fmt(row.measured)}, bound {fmt(row.bound)} (no verdict)")
    elif row.measured is not None or row.bound is not None:
        rel = r.relation or "vs"
        whose = {"counterexample": " (counterexample)", "worst margin": " (smallest margin)"}.get(row.numbers_of, "")
        # the relation is one unbreakable unit (GLUE for its spaces): a wrapped line never separates it from a side
        first = GLUE.join(["measured", fmt(row.measured), rel, "bound", fmt(row.bound)])
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
    not fit on a line of its own (never inside a :data:`GLUE`-joined unit that fits a line)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " | " + part
        elif len(INDENT * (2 if lines else 1)) + len(part) <= width:
            lines.append(INDENT * (2 if lines else 1) + part)
        else:
            lines += _wrap(part, width, INDENT * (2 if lines else 1), INDENT * 2)
    return [ln.replace(GLUE, " ") for ln in lines]


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
        # one entry per statement (a symbolic certificate's words hold one goal a line), each printed whole
        words = [ln for w in r.proved_statement or [] for ln in str(w).splitlines() if ln.strip()]
        for w in words[:STATEMENTS]:
            out += _wrap(w, width, INDENT + "proved: ", INDENT * 2 + " " * len("proved: "))
        if len(words) > STATEMENTS:
            more = len(words) - STATEMENTS
            out += _wrap(f"... and {more} more proved statement{'s' if more > 1 else ''} (all in the Markdown and "
                         "JSON reports)", width, INDENT, INDENT * 2)
        return out
    out += _join(_numbers(r), width)
    if r.status == "refuted" and isinstance(r.details, dict) and r.details.get("refuted_exactly") is True:
        # the refuted statement in words is often long (the Markdown and JSON reports hold it): one line here
        secs, fresh = r.details.get("certificate_recheck_s"), r.details.get("fresh_recheck_s")
        when = f" in {float(secs):.2f} s" if isinstance(secs, (int, float)) else ""
        again = f", again in a fresh interpreter in {float(fresh):.2f} s" if isinstance(fresh, (int, float)) else ""
        out += _wrap(f"exact counterexample re-checked{when}{again}; the refuted statement is in the reports", width,
                     INDENT, INDENT * 2)
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


def _short_id(cid: str, room: int) -> str:
    """``cid`` in at most ``room`` characters: whole when it fits, else its start and end around ``...``."""
    if len(cid) <= room:
        return cid
    if room < 6:
        return cid[:max(room, 1)]
    keep = room - 3
    head = (keep + 1) // 2
    return cid[:head] + "..." + cid[len(cid) - (keep - head):]


def _progress_fields(r: ClaimResult) -> tuple[str, str, str, str]:
    """The optional fields of a progress line: the numbers (``measured=... <= bound=...``, one unbreakable field), the
    ratio or error, which instance they are (``(counterexample)``) and the note of an ``error`` row ("" where none
    applies)."""
    row = row_numbers(r)
    nums = ratio = whose = ""
    if r.status != "proved" and (row.measured is not None or row.bound is not None):
        if r.status == "inconclusive":  # no relation: the numbers decide nothing
            nums = f"measured={fmt(row.measured)}, bound={fmt(row.bound)} (no verdict)"
        else:
            nums = f"measured={fmt(row.measured)} {r.relation or 'vs'} bound={fmt(row.bound)}"
            whose = "(counterexample)" if row.numbers_of == "counterexample" else ""
            if row.tolerance is not None and row.error is not None:
                ratio = f"error={fmt(row.error)}/tol={fmt(row.tolerance)}"
            elif row.tightness is not None:
                ratio = f"tight={fmt(row.tightness)}"
    note = _one_line(r.note) if r.status == "error" and r.note else ""
    return nums, ratio, whose, note


def progress_line(r: ClaimResult, k: int, total: int, width: int | None = None) -> Text:
    """The line printed when claim ``r`` finishes, ``k`` of ``total``, in at most ``width`` characters (default
    :func:`console_width`)::

        [ 12/161] rcfl.theorem1.v002            verified measured=1.2e-04 <= bound=0.57 tight=2.1e-04 (2.3s)

    It never wraps: when the line is too long, fields are dropped - first the ratio, then the numbers (one field:
    ``<=`` never leaves its ``bound=``; their ``(counterexample)`` marker, shortened to ``(cx)`` first, goes with them) -
    an ``error`` row's note is shortened to the room left, and an id longer than the room costs the seconds, then is
    shortened in its middle.  The id column is padded to 40 characters when that fits."""
    width = max(MIN_WIDTH, min(MAX_WIDTH, width or console_width()))
    prefix = f"[{k:>{max(2, len(str(total)))}}/{total}] "
    status = status_cell(r)
    secs = f"({r.seconds:.1f}s)"
    nums, ratio, whose, note = _progress_fields(r)
    room = width - len(prefix) - len(status) - len(secs) - 2  # what the id and the optional fields share
    if len(r.id) > room or room < 6:  # the seconds go before the id is shortened
        secs, room = "", room + len(secs) + 1
    cid = _short_id(r.id, room)

    # the fields kept, best first: the ratio goes first, then the marker shortens to "(cx)", then the numbers go
    choices = [[nums, ratio, whose], [nums, whose], [nums, "(cx)" if whose else ""], []]
    optional = next(kept for kept in ([f for f in c if f] for c in choices)
                    if len(cid) + sum(len(f) + 1 for f in kept) <= room)
    used = len(cid) + sum(len(f) + 1 for f in optional)
    pad = max(0, min(40 - len(cid), room - used))
    middle = "".join(" " + f for f in optional)
    line = f"{prefix}{cid}{' ' * pad} {status}{middle}" + (f" {secs}" if secs else "")
    if note and width - len(line) >= 12:
        line += " " + _cut(note, width - len(line) - 1)
    text = Text(line)
    start = len(prefix) + len(cid) + pad + 1
    style = STYLE.get(r.status)
    if style:
        text.stylize(style, start, start + len(r.status))
    return text


def closing_lines(results: Sequence[ClaimResult], seconds: float, reports: Sequence[str], width: int, *,
                  strict: bool = False, problems: Sequence[str] = ()) -> list[str]:
    """The last lines of a run, each at most ``width`` characters: the counts, how many seed claims the run decided
    exactly (``seed theory decided exactly: X of 56 (P proved, R refuted exactly)``, :mod:`verify.decided`; only
    when the run included seed claims), where the reports are (and how to re-check the proofs and exact refutations in
    the JSON one), and what the exit status says - 0: every claim ended as its expectation
    says (a refuted row marked ``recorded finding`` is expected; ``skipped`` rows never fail a run); 1: which claims
    did not, and the run's other ``problems`` (a report not written, a claim module that failed to import)."""
    from verify.decided import closing_line, decide, ran
    from verify.report import status_counts

    counts = status_counts(results)
    findings = sum(r.status == "refuted" and r.as_expected for r in results)
    bad = [r for r in results if not r.as_expected or (strict and r.status == "not implemented")]
    text = [f"{len(results)} claims in {seconds:.1f}s: " + ", ".join(f"{v} {k}" for k, v in counts.items())]
    section = decide(results)
    if ran(section):  # a run that included seed claims: how many of them it decided exactly (verify.decided)
        text.append(closing_line(section))
    exact = sum(r.status == "refuted" and isinstance(r.details, dict) and r.details.get("refuted_exactly") is True
                for r in results)
    paths: list[str] = []  # a path is printed whole on a line of its own, never broken (a long path is a long line)
    at = len(text)  # the paths go under "reports written:"
    if reports:
        text.append("reports written:")
        paths = [INDENT + p for p in reports]
        js = next((p for p in reports if p.endswith(".json")), None)
        if js and (counts.get("proved") or exact):
            what = "the proofs" + (" and exact refutations" if exact else "") if counts.get("proved") else \
                "the exact refutations"
            paths += [INDENT + f"re-check {what}: python -m fairtheory.proofs recheck", 2 * INDENT + js]
    elif not problems:
        text.append("no report written (--no-json and --no-markdown)")
    if bad or problems:
        why = list(problems)
        if bad:
            why.append(f"{len(bad)} claim{'s' if len(bad) != 1 else ''} did not end as expected: "
                       + ", ".join(f"{r.id} ({r.status}, expected {r.expected})" for r in bad))
        text.append("exit status 1: " + "; ".join(why))
    else:
        text.append("exit status 0: every claim ended as its expectation says"
                    + (f" ({findings} refuted row{'s are' if findings != 1 else ' is a'} recorded finding"
                       f"{'s' if findings != 1 else ''})" if findings else "")
                    + ("; skipped rows are not failures" if counts.get("skipped") else ""))
    out: list[str] = []
    for k, t in enumerate(text):
        out += _wrap(t, width, "", INDENT)
        if k == at and paths:
            out += paths
    return out
