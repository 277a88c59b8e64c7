"""What a report row says: a refuted row's numbers are its counterexample's own, notes are separated and short,
skipped and within-rounding rows say so (console table, progress line, Markdown and JSON)."""

from __future__ import annotations

import json

import pytest
from rich.console import Console
from rich.text import Text

from verify.core import REGISTRY, Context, Outcome, Tally, claim, run_claim
from verify.report import NOTE_MAX, row_numbers, to_json, to_markdown
from verify.runner import progress_line, results_table

PREFIX = "test.rows."


@pytest.fixture
def run():
    """Register a temporary claim returning ``fn()`` and run it; the claims are removed afterwards."""
    made: list[str] = []

    def go(name: str, fn, expected: str = "verified"):
        cid = PREFIX + name
        REGISTRY.pop(cid, None)

        def check(ctx: Context) -> Outcome:
            return fn()

        check.__qualname__ = f"check_{name}"
        claim(cid, citation="test", statement="report row test", expected=expected)(check)
        made.append(cid)
        return run_claim(cid, Context(quick=True, seed=0))

    yield go
    for cid in made:
        REGISTRY.pop(cid, None)


def _md_row(md: str, cid: str) -> dict[str, str]:
    lines = md.splitlines()
    header = next(ln for ln in lines if ln.startswith("| id |"))
    row = next(ln for ln in lines if ln.startswith(f"| `{cid}`"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cols) == len(cells)
    return dict(zip(cols, cells, strict=True))


def _console_row(result) -> dict[str, str]:
    table = results_table([result])
    return {str(col.header): Text.from_markup(str(list(col.cells)[0])).plain for col in table.columns}


def _three_instances() -> Outcome:
    """A refuted ``>=`` claim whose worst violation, largest ratio and smallest counterexample are three
    different instances."""
    t = Tally()
    t.lower(1.0, 20.0, instance={"i": "worst violation"}, size=5)    # margin -19 (the worst), ratio 20
    t.lower(0.1, 3.728, instance={"i": "largest ratio"}, size=3)     # margin -3.628, ratio 37.28 (the largest)
    t.lower(2.0, 2.5, instance={"i": "smallest"}, size=1)            # margin -0.5, ratio 1.25: the counterexample
    t.lower(4.0, 1.0, instance={"i": "holds"}, size=0.5)             # holds
    return t.outcome(explain="measured = lhs, bound = rhs")


def test_refuted_row_prints_the_counterexamples_own_numbers(run) -> None:
    r = run("three", _three_instances, expected="refuted")
    assert r.status == "refuted" and r.as_expected
    # the raw result mixes three instances ...
    assert (r.measured, r.bound, r.tightness) == (1.0, 20.0, pytest.approx(37.28))
    assert r.counterexample["i"] == "smallest"
    # ... the row does not
    row = row_numbers(r)
    assert row.numbers_of == "counterexample"
    assert (row.measured, row.bound) == (2.0, 2.5)
    assert row.margin == pytest.approx(-0.5)
    assert row.tightness == pytest.approx(1.25)

    md = to_markdown([r], {"mode": "quick"})
    cells = _md_row(md, r.id)
    assert cells["measured"] == "2" and cells["bound"] == "2.5"
    assert cells["margin"] == "-0.5" and cells["tightness"] == "1.25"
    assert cells["numbers of"] == "counterexample"
    assert "37.28" not in cells.values() and "20" not in cells.values()
    # the worst violation is still reported, named as such, in the notes
    assert "worst violation over the 4 instances (not the row's numbers): measured 1 >= bound 20" in md
    assert "largest ratio over the instances 37.28" in md

    console = _console_row(r)
    assert (console["measured"], console["bound"], console["tight"]) == ("2", "2.5", "1.25")
    assert console["margin"] == "-0.5" and console["of"] == "cx"
    line = progress_line(r, 1, 1, 160)
    assert "refuted (recorded finding) measured=2 >= bound=2.5 tight=1.25 (counterexample)" in line

    doc = json.loads(to_json([r], {"mode": "quick"}))
    (c,) = doc["claims"]
    assert c["row"]["numbers_of"] == "counterexample"
    assert (c["row"]["measured"], c["row"]["bound"]) == (2.0, 2.5)
    assert c["row"]["tightness"] == pytest.approx(1.25)
    # the claim's own fields are the counterexample's too (as the console and Markdown print them) ...
    assert (c["measured"], c["bound"], c["margin"], c["tightness"]) == (2.0, 2.5, -0.5, pytest.approx(1.25))
    # ... and the raw worst instance stays in the JSON, named as such
    assert (c["worst_violation"]["measured"], c["worst_violation"]["bound"]) == (1.0, 20.0)
    assert c["worst_violation"]["tightness"] == pytest.approx(37.28)


def test_refuted_upper_and_equality_rows(run) -> None:
    def upper() -> Outcome:
        t = Tally()
        t.upper(10.0, 1.0, instance={"i": "big"}, size=2)
        t.upper(0.5, 0.0, instance={"i": "small"}, size=1)  # bound 0: no ratio
        return t.outcome()

    def equal() -> Outcome:
        t = Tally()
        t.equal(100.0, 1.0, rtol=1e-8, size=3)
        t.equal(1.0, 2 / 3, rtol=1e-8, size=1)
        return t.outcome()

    ru = row_numbers(run("upper", upper, expected="refuted"))
    assert (ru.measured, ru.bound, ru.margin, ru.tightness) == (0.5, 0.0, -0.5, None)
    re_ = row_numbers(run("equal", equal, expected="refuted"))
    assert re_.numbers_of == "counterexample"
    assert (re_.measured, re_.bound) == (1.0, pytest.approx(2 / 3))
    assert re_.error == pytest.approx(0.5) and re_.tolerance == 1e-8 and re_.tightness is None


def test_refuted_without_numeric_counterexample_reports_no_ratio(run) -> None:
    r = run("no_numbers", lambda: Outcome("refuted", measured=1.0, bound=3.0, relation=">=", margin=-2.0,
                                          tightness=3.0, instances=2, counterexample={"x": "a string"}),
             expected="refuted")
    row = row_numbers(r)
    assert row.numbers_of == "worst margin" and row.tightness is None
    assert (row.measured, row.bound, row.margin) == (1.0, 3.0, -2.0)
    assert _md_row(to_markdown([r], {}), r.id)["tightness"] == "-"


def test_verified_row_within_rounding_says_so(run) -> None:
    def slack() -> Outcome:
        t = Tally()
        t.upper(1.0 + 2.1e-14, 1.0)
        t.upper(0.5, 1.0)
        return t.outcome()

    r = run("slack", slack)
    assert r.status == "verified" and r.margin < 0
    row = row_numbers(r)
    assert row.within_rounding and row.numbers_of == "worst margin"
    assert _md_row(to_markdown([r], {}), r.id)["margin"] == f"{r.margin:.4g} (within rounding)"
    assert _console_row(r)["margin"].endswith("(within rounding)")
    assert json.loads(to_json([r], {}))["claims"][0]["row"]["within_rounding"] is True
    plain = run("plain", lambda: (lambda t: (t.upper(0.5, 1.0), t.outcome())[1])(Tally()))
    assert not row_numbers(plain).within_rounding
    assert "within rounding" not in _md_row(to_markdown([plain], {}), plain.id)["margin"]


def test_skipped_row_says_it_is_fine(run) -> None:
    r = run("skip", lambda: Outcome("skipped", note="peer is not installed: pip install peer"), expected="refuted")
    assert r.as_expected
    cells = _md_row(to_markdown([r], {}), r.id)
    assert cells["status"] == "skipped (not run: fine)" and cells["expected"] == "refuted"
    assert "unexpected" not in cells["status"]
    assert _console_row(r)["status"].startswith("skipped (not run: fine)")


def test_notes_are_separated_and_long_logs_stay_in_the_json(run) -> None:
    log = "solver log line\n" * 120
    r = run("notes", lambda: Outcome("verified", measured=1.0, bound=2.0, relation="<=", instances=1,
                                     explain="measured = a, bound = b.", note="Checked on 1 instance." + log))
    md = to_markdown([r], {})
    assert f"- `{r.id}` (verified)" in md
    assert "  - what the numbers are: measured = a, bound = b." in md
    note_line = next(ln for ln in md.splitlines() if ln.startswith("  - note:"))
    assert note_line.startswith("  - note: Checked on 1 instance.")
    assert len(note_line) < NOTE_MAX and "the whole note is in the JSON report" in note_line
    assert md.count("solver log line") <= 1
    assert "b.Checked" not in md and "b. Checked" not in md  # never glued together
    assert json.loads(to_json([r], {}))["claims"][0]["note"].count("solver log line") == 120

    short = run("short", lambda: Outcome("verified", measured=1.0, bound=2.0, note="a short note"))
    assert "  - note: a short note" in to_markdown([short], {})


def test_console_table_renders_every_row(run) -> None:
    rows = [run("three2", _three_instances, expected="refuted"),
            run("skip2", lambda: Outcome("skipped", note="absent"))]
    console = Console(record=True, width=250)
    console.print(results_table(rows))
    text = console.export_text()
    assert "test.rows.three2" in text and "test.rows.skip2" in text


def test_refuted_row_with_a_non_finite_counterexample(run) -> None:
    def nan_cx() -> Outcome:
        t = Tally()
        t.equal(5.0, 1.0, rtol=1e-9, size=2)                        # a finite violation
        t.equal(float("nan"), 0.5, rtol=1e-9, size=1, instance={"peer_error": "ZeroDivisionError"})
        return t.outcome()

    r = run("nan_cx", nan_cx, expected="refuted")
    assert r.counterexample["measured"] == "nan"  # as the JSON stores it
    row = row_numbers(r)
    assert row.numbers_of == "counterexample"
    assert row.bound == 0.5 and row.measured != row.measured  # NaN: the counterexample's own value
    assert row.margin == float("-inf") and row.error == float("inf") and row.tightness is None
    cells = _md_row(to_markdown([r], {}), r.id)
    assert (cells["measured"], cells["bound"], cells["numbers of"]) == ("nan", "0.5", "counterexample")
    assert json.loads(to_json([r], {}))["claims"][0]["row"]["measured"] == "nan"
