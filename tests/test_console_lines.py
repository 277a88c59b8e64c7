"""What ``python -m verify`` prints, line by line: progress lines that never break (piped or in a terminal, at any
``COLUMNS``), recorded findings marked, no relation for an inconclusive row, closing lines that say where the reports
are and what the exit status means, the same numbers for a refuted row in the console, the JSON and the Markdown
report, and a plugin run that never overwrites the main report."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verify import runner
from verify.console import closing_lines, detail_lines, head_line, progress_line, table_lines
from verify.core import REGISTRY, Context, Outcome, Tally, claim, run_claim
from verify.report import fmt, to_json, to_markdown

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "test.lines."
#: a relation and the bound it compares with: never on two lines
RELATION = re.compile(r"measured[= ]\S+ (<=|>=|==) bound[= ]\S+")


@pytest.fixture
def run():
    made: list[str] = []

    def go(name: str, fn, expected: str = "verified"):
        cid = PREFIX + name
        REGISTRY.pop(cid, None)

        def check(ctx: Context) -> Outcome:
            return fn()

        check.__qualname__ = f"check_{re.sub(r'[^a-z]', '_', name)}"
        claim(cid, citation="my notes, Lemma 9", statement="console line test", expected=expected)(check)
        made.append(cid)
        return run_claim(cid, Context(quick=True))

    yield go
    for cid in made:
        REGISTRY.pop(cid, None)


def _upper_refuted() -> Outcome:
    t = Tally()
    t.upper(10.0, 1.0, instance={"i": "worst"}, size=3)
    t.upper(2.0, 1.5, instance={"i": "small"}, size=1)
    return t.outcome()


def _equal_refuted() -> Outcome:
    """Like fedfv.theorem3.pareto: ``== 0`` within ``1e-6 max(1, scale)``; the smallest counterexample is not the worst
    violation, and its bound is 0 (a relative error to |bound| does not exist; the tally's scale does)."""
    t = Tally()
    t.equal(0.616, 0.0, rtol=1e-6, scale=1.0, instance={"i": "worst"}, size=3)
    t.equal(0.389, 0.0, rtol=1e-6, scale=1.025, instance={"i": "small"}, size=1)
    return t.outcome()


def _lower_verified() -> Outcome:
    t = Tally()
    for x in (1.0, 2.0, 3.0):
        t.lower(x * x + 1, 2 * x, instance={"x": x})
    return t.outcome()


def _inconclusive() -> Outcome:
    return Outcome("inconclusive", measured=1.0, bound=1e-5, relation="<=", instances=1,
                   note="the search found no certificate: nothing is decided")


def _all(run) -> list:
    return [run("upper", _upper_refuted, expected="refuted"), run("equal", _equal_refuted, expected="refuted"),
            run("surprise", _upper_refuted), run("lower", _lower_verified), run("inconclusive", _inconclusive,
                                                                                  expected="inconclusive"),
            run("a_very_long_identifier_that_does_not_fit_a_narrow_line.with_more_words.and_even_more", _lower_verified),
            run("boom", lambda: (_ for _ in ()).throw(RuntimeError("a crash " + "with a long message " * 20)))]


@pytest.mark.parametrize("width", [60, 80, 100, 160])
def test_progress_lines_fit_and_never_split_a_relation(run, width: int) -> None:
    results = _all(run)
    for k, r in enumerate(results, 1):
        line = progress_line(r, k, len(results), width).plain
        assert len(line) <= width and "\n" not in line, (width, line)
        assert line.startswith(f"[{k:>2}/{len(results)}] ")
        for rel in ("<=", ">=", "=="):  # a relation printed is one field with both its sides
            if f" {rel} " in line:
                assert RELATION.search(line), line
    wide = [progress_line(r, k, len(results), 160).plain for k, r in enumerate(results, 1)]
    assert "measured=2 <= bound=1.5 tight=1.333 (counterexample)" in wide[0]
    assert "measured=0.389 == bound=0 error=0.3795/tol=1e-06 (counterexample)" in wide[1]


def test_fields_are_dropped_not_wrapped(run) -> None:
    r = run("upper", _upper_refuted, expected="refuted")
    wide, narrow = progress_line(r, 1, 1, 160).plain, progress_line(r, 1, 1, 60).plain
    assert "tight=" in wide and "measured=" in wide
    assert len(narrow) <= 60 and "refuted (recorded finding)" in narrow and narrow.endswith("s)")
    assert "tight=" not in narrow  # the ratio goes first ...
    if "measured=" in narrow:       # ... the numbers stay whole or go together
        assert RELATION.search(narrow)
    long = run("a_very_long_identifier_that_does_not_fit_a_narrow_line.with_more_words.and_even_more", _lower_verified)
    line = progress_line(long, 1, 1, 60).plain
    assert len(line) <= 60 and "..." in line and line.split("] ")[1].startswith("test.lines.a_very")


def test_recorded_findings_are_marked_everywhere(run) -> None:
    found, surprise = run("upper", _upper_refuted, expected="refuted"), run("surprise", _upper_refuted)
    assert found.as_expected and not surprise.as_expected
    assert "refuted (recorded finding)" in progress_line(found, 1, 2, 100).plain
    assert "refuted (recorded finding)" in head_line(found, 100).plain
    md = to_markdown([found, surprise], {})
    assert re.search(rf"\| `{re.escape(found.id)}`( \(plugin\))? \| my notes, Lemma 9 \| refuted \(recorded finding\) "
                     r"\| refuted \|", md), md
    line = progress_line(surprise, 2, 2, 100).plain
    assert "refuted (expected verified)" in line and "recorded finding" not in line
    assert "recorded finding" not in head_line(surprise, 100).plain


def test_inconclusive_rows_print_no_relation(run) -> None:
    r = run("inconclusive", _inconclusive, expected="inconclusive")
    line = progress_line(r, 1, 1, 100).plain
    table = "\n".join(t.plain for t in table_lines([r], 100))
    for text in (line, table):
        assert "<=" not in text and ">=" not in text and "margin" not in text
    assert "measured=1, bound=1e-05 (no verdict)" in line
    assert "measured 1, bound 1e-05 (no verdict)" in table and "the search found no certificate" in table
    md = to_markdown([r], {})
    cells = [c.strip() for c in next(ln for ln in md.splitlines() if ln.startswith(f"| `{r.id}`")).strip("|").split("|")]
    assert cells[2:9] == ["inconclusive", "inconclusive", "1", "-", "1e-05", "-", "-"], cells


def test_closing_lines_say_where_the_reports_are_and_what_exit_0_means(run) -> None:
    ok = [run("upper", _upper_refuted, expected="refuted"), run("lower", _lower_verified)]
    lines = closing_lines(ok, 12.34, ["reports/verify.json", "reports/verify.md"], 80)
    assert all(len(ln) <= 80 for ln in lines)
    text = " ".join(lines)
    assert text.startswith("2 claims in 12.3s: 1 verified, 1 refuted")
    assert lines[1:4] == ["reports written:", "  reports/verify.json", "  reports/verify.md"], lines
    assert ("exit status 0: every claim ended as its expectation says (1 refuted row is a recorded finding)"
            in " ".join(text.split()))
    bad = ok + [run("surprise", _upper_refuted)]
    text = " ".join(" ".join(closing_lines(bad, 1.0, [], 80)).split())
    assert "no report written (--no-json and --no-markdown)" in text
    assert f"exit status 1: 1 claim did not end as expected: {PREFIX}surprise (refuted, expected verified)" in text


def _three_outputs(r) -> dict[str, dict[str, str]]:
    """The numbers of a refuted row as the console table, the progress line, the Markdown report and the JSON report
    print them (formatted with :func:`verify.report.fmt`)."""
    block = " ".join(" ".join(detail_lines(r, 160)).split())
    m = re.search(r"measured (\S+) (\S+) bound (\S+), margin (\S+) \(counterexample\)", block)
    assert m, block
    console = {"measured": m[1], "bound": m[3], "margin": m[4]}
    e = re.search(r"error (\S+) / tol", block)
    console["error"] = e[1] if e else "-"
    line = progress_line(r, 1, 1, 200).plain
    p = re.search(r"measured=(\S+) (\S+) bound=(\S+)", line)
    progress = {"measured": p[1], "bound": p[3]}
    pe = re.search(r"error=(\S+)/tol", line)
    progress["error"] = pe[1] if pe else "-"
    md_lines = to_markdown([r], {}).splitlines()
    header = [c.strip() for c in next(ln for ln in md_lines if ln.startswith("| id |")).strip("|").split("|")]
    cells = [c.strip() for c in next(ln for ln in md_lines if ln.startswith(f"| `{r.id}`")).strip("|").split("|")]
    md = dict(zip(header, cells, strict=True))
    markdown = {"measured": md["measured"], "bound": md["bound"], "margin": md["margin"],
                "error": md["error / tol"].split(" / ")[0]}
    js = json.loads(to_json([r], {}))["claims"][0]
    as_json = {k: fmt(js[k]) for k in ("measured", "bound", "margin", "error")}
    as_row = {k: fmt(js["row"][k]) for k in ("measured", "bound", "margin", "error")}
    return {"console": console, "progress": progress, "markdown": markdown, "json": as_json, "json row": as_row}


@pytest.mark.parametrize("name, fn", [("upper", _upper_refuted), ("equal", _equal_refuted)])
def test_refuted_rows_print_the_counterexamples_own_numbers_alike(run, name: str, fn) -> None:
    r = run(name, fn, expected="refuted")
    outs = _three_outputs(r)
    ref = outs["json"]
    cx = r.counterexample
    assert ref["measured"] == fmt(float(cx["measured"])) and ref["bound"] == fmt(float(cx["bound"]))
    for where, nums in outs.items():
        for k, v in nums.items():
            assert v == ref[k], (where, k, v, ref[k])
    if name == "equal":
        # the counterexample's own error, relative to the tally's scale 1.025 (its bound is 0), and its own margin:
        # the allowed deviation 1e-6 * 1.025 minus the deviation 0.389
        assert ref["error"] == fmt(0.389 / 1.025) and ref["margin"] == fmt(1e-6 * 1.025 - 0.389)
    else:
        assert ref["margin"] == fmt(1.5 - 2.0) and ref["error"] == "-"
    worst = json.loads(to_json([r], {}))["claims"][0]["worst_violation"]
    assert worst["measured"] in (10.0, 0.616)  # the worst violation stays in the JSON, named


def test_the_three_inconsistent_rows_of_the_catalogue() -> None:
    """rcfl.theorem3.generalization: margin = bound - measured (README's definition) everywhere; fedfv.theorem3.pareto:
    the counterexample's own numbers, its error printed, in the console, the JSON and the Markdown report."""
    import verify.claims.fedfv  # noqa: F401 - registers the claims
    import verify.claims.rcfl_generalization  # noqa: F401

    gen = run_claim("rcfl.theorem3.generalization", Context(quick=True))
    assert gen.status == "verified" and gen.relation == "<="
    assert gen.margin == pytest.approx(gen.bound - gen.measured, abs=1e-15)
    js = json.loads(to_json([gen], {}))["claims"][0]
    assert js["margin"] == js["row"]["margin"] == pytest.approx(js["bound"] - js["measured"], abs=1e-15)
    block = " ".join(" ".join(detail_lines(gen, 100)).split())
    assert f"measured {fmt(gen.measured)} <= bound {fmt(gen.bound)}, margin {fmt(gen.bound - gen.measured)}" in block

    par = run_claim("fedfv.theorem3.pareto", Context(quick=True))
    assert par.status == "refuted" and par.as_expected and par.relation == "=="
    outs = _three_outputs(par)
    for where, nums in outs.items():
        assert nums == {k: outs["json"][k] for k in nums}, where
    js = json.loads(to_json([par], {}))["claims"][0]
    assert js["measured"] == par.counterexample["measured"] and js["bound"] == par.counterexample["bound"]
    assert outs["console"]["error"] != "-" and js["error"] == pytest.approx(js["row"]["error"])
    assert js["worst_violation"]["measured"] >= js["measured"]


def _run_verify(env_columns: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if env_columns is not None:
        env["COLUMNS"] = env_columns
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900, check=False)


def test_piped_run_breaks_no_line_and_marks_the_findings(tmp_path: Path) -> None:
    """``python -m verify`` with its output piped (no terminal): COLUMNS unset means 100 columns, COLUMNS=80 means 80;
    every progress line is one line, every refuted row with a recorded expectation says so, the last lines say where
    the reports are and what exit 0 means."""
    only = ["--only", "fedfv.theorem3.pareto", "--only", "base.pepit.operators.douglas_rachford_splitting_cocoercive*",
            "--only", "rcfl.theorem3.generalization"]
    js, md = tmp_path / "r.json", tmp_path / "r.md"
    for columns, width in ((None, 100), ("80", 80)):
        proc = _run_verify(columns, *only, "--json", str(js), "--markdown", str(md))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        lines = proc.stdout.splitlines()
        # every line fits, but a report path: printed whole on its own line, however long the temporary folder is
        assert lines and all(len(ln) <= width or ln.strip() in (str(js), str(md)) for ln in lines), \
            [ln for ln in lines if len(ln) > width]
        progress = [ln for ln in lines if re.match(r"\[ \d/4\] ", ln)]
        assert len(progress) == 4, lines
        # every line before the table is a progress line: none broke onto a next line
        assert lines[:lines.index(next(ln for ln in lines if ln.startswith("claim  citation")))] == progress
        assert not any(re.match(r"\s*(\(|tight=|bound=|<=|==)", ln) for ln in lines)
        refuted = [ln for ln in progress if " refuted" in ln]
        assert len(refuted) == 2 and all(re.search(r"refuted( exactly)? \(recorded finding\)", ln) for ln in refuted)
        tail = " ".join(" ".join(lines[-6:]).split())
        k = lines.index("reports written:")
        assert lines[k + 1:k + 3] == [f"  {js}", f"  {md}"], lines[-6:]  # the paths whole, each on its own line
        assert "exit status 0: every claim ended as its expectation says (2 refuted rows are recorded findings)" in tail


def test_a_plugin_run_never_overwrites_the_main_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = tmp_path / "mine.py"
    plugin.write_text(
        "from verify import Outcome, claim\n\n"
        "@claim('mine.lemma1', citation='my notes, Lemma 1', statement='1 <= 2')\n"
        "def lemma1(ctx):\n"
        "    return Outcome('verified', measured=1.0, bound=2.0, relation='<=', margin=1.0, instances=1)\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").mkdir()
    main = tmp_path / "reports" / "verify.json"
    main.write_text('{"the main report": true}')
    assert runner.main(["--plugin", str(plugin), "--only", "mine.*", "--no-entry-points"]) == 0
    assert json.loads(main.read_text()) == {"the main report": True}
    mine = json.loads((tmp_path / "reports" / "verify-mine.json").read_text())
    assert [c["id"] for c in mine["claims"]] == ["mine.lemma1"]
    assert (tmp_path / "reports" / "verify-mine.md").exists() and not (tmp_path / "reports" / "verify.md").exists()
    # an explicit path wins
    assert runner.main(["--plugin", str(plugin), "--only", "mine.*", "--no-entry-points", "--json", "own.json",
                        "--no-markdown"]) == 0
    assert json.loads((tmp_path / "own.json").read_text())["claims"][0]["id"] == "mine.lemma1"
    assert json.loads(main.read_text()) == {"the main report": True}
    REGISTRY.pop("mine.lemma1", None)


def test_default_report_paths() -> None:
    assert runner.default_report([], ".json") == "reports/verify.json"
    assert runner.default_report(["examples/mine.py"], ".md") == "reports/verify-mine.md"
    assert runner.default_report(["fairtheory_propfair.claims", "x/b.py"], ".json") == \
        "reports/verify-fairtheory_propfair.claims+b.json"
    assert runner.default_report(["../we ird/$name.py"], ".json") == "reports/verify-name.json"


@pytest.mark.parametrize("width", [60, 70, 80])
def test_a_wrapped_detail_line_never_separates_a_relation(run, width: int) -> None:
    def long_numbers() -> Outcome:
        t = Tally()
        t.upper(1.2345678e-05, 1.2345678e-04, instance={"x": 1})
        return t.outcome()

    r = run("long_numbers", long_numbers)
    lines = detail_lines(r, width)
    assert all(len(ln) <= width and "\x00" not in ln for ln in lines)
    first = next(ln for ln in lines if "measured" in ln)
    assert RELATION.search(first) and "measured 1.235e-05 <= bound 0.0001235" in first, lines
    assert not any(ln.lstrip().startswith(("<=", "bound")) for ln in lines)
