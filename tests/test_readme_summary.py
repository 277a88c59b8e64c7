"""The README's summary block is generated from a run's JSON report and agrees with the claim registry: adding a
claim (or changing an expectation) without re-running ``python -m verify`` and ``python -m verify.readme_summary``
fails here.  Nothing here runs the suite."""

from __future__ import annotations

import json
import re
from collections import Counter
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from verify.core import REGISTRY, STATUSES, all_ids
from verify.plugins import ENTRY_POINT_GROUP, load_builtin, load_entry_points
from verify.readme_summary import (
    END,
    FINDINGS_END,
    FINDINGS_START,
    START,
    SummaryError,
    block_of,
    claim_counts,
    main,
    render,
    render_findings,
    replace_block,
)

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _counts(text: str) -> Counter[str]:
    """``"9 proved, 68 verified"`` -> Counter."""
    out: Counter[str] = Counter()
    for part in text.split(", "):
        n, status = part.strip().rstrip(".").split(" ", 1)
        assert status in STATUSES, status
        out[status] = int(n)
    return out


def _registry() -> tuple[list[str], list[str]]:
    """(built-in ids, ids registered by installed entry points) as ``python -m verify`` would run them."""
    load_entry_points()
    load_builtin()
    builtin = [i for i in all_ids() if i not in REGISTRY or REGISTRY[i].source == "built-in"]
    tops = {ep.module.split(".")[0] for ep in entry_points(group=ENTRY_POINT_GROUP)}
    plugin = [i for i, spec in REGISTRY.items()
              if spec.source != "built-in" and spec.check.__module__.split(".")[0] in tops]
    return builtin, plugin


def test_readme_block_has_the_registrys_claim_count() -> None:
    block = block_of(README)
    total, builtin_n, plugin_n = claim_counts(block)
    assert total == builtin_n + plugin_n
    builtin, plugin = _registry()
    assert builtin_n == len(builtin), (
        f"README's summary block says {builtin_n} built-in claims, the registry has {len(builtin)}: run "
        "python -m verify, then python -m verify.readme_summary")
    if any(True for _ in entry_points(group=ENTRY_POINT_GROUP)):  # the example plugin is installed
        assert plugin_n == len(plugin), f"README's block says {plugin_n} plugin claims, installed: {len(plugin)}"


def test_readme_block_states_what_a_machine_without_peers_prints() -> None:
    block = block_of(README)
    total, _, _ = claim_counts(block)
    line = re.search(r"^(\d+) claims in \.\.\.s: (.+)$", block, re.M)
    assert line is not None, "the block shows the runner's last line"
    assert int(line[1]) == total
    without = _counts(line[2])
    assert sum(without.values()) == total
    builtin, plugin = _registry()
    peers = [i for i in builtin if i.startswith("peers.")]
    assert without["skipped"] == len(peers), "without the peer libraries every peers.* claim is skipped"
    # with the peers installed every claim ends as recorded: the registry's expectations
    with_line = re.search(r"end as recorded: (.+?)\.$", block, re.M)
    assert with_line is not None
    with_peers = _counts(with_line[1])
    assert sum(with_peers.values()) == total
    if any(True for _ in entry_points(group=ENTRY_POINT_GROUP)):  # the example plugin is installed
        expected = Counter(REGISTRY[i].expected if i in REGISTRY else "not implemented" for i in builtin + plugin)
        assert with_peers == expected, f"README: {dict(with_peers)}, the registry's expectations: {dict(expected)}"


def test_readme_block_tables_add_up() -> None:
    block = block_of(README)
    total, _, _ = claim_counts(block)
    status_rows = [(s, n) for s, n in re.findall(r"^\| `([a-z ]+)` \| (\d+) \|", block, re.M) if s in STATUSES]
    assert status_rows and sum(int(n) for _, n in status_rows) == total
    area_rows = re.findall(r"^\| `([a-z0-9_-]+)` \| (\d+) \|", block, re.M)
    areas = [(a, int(n)) for a, n in area_rows if a not in STATUSES]
    assert sum(n for _, n in areas) == total


# ------------------------------------------------------------------------------------------- the generator
def _claim(cid: str, status: str, expected: str | None = None, seconds: float = 0.1,
           source: str = "built-in") -> dict:
    return {"id": cid, "status": status, "expected": expected or status, "seconds": seconds, "source": source,
            "as_expected": status in ("skipped", expected or status)}


def _doc(*claims: dict, complete: bool = True) -> dict:
    return {"meta": {"mode": "quick", "seed": 0, "python": "3.11", "complete": complete, "elapsed_s": 12.0},
            "claims": list(claims)}


DOC = _doc(_claim("a.one", "verified", seconds=3.0),
           _claim("a.two", "refuted", seconds=0.5) | {
               "citation": "my notes, Lemma 2", "statement": "x^2 >= x on [0, 2]", "relation": ">=",
               "counterexample": {"x": 0.1, "grid": [0.0, 0.05, 0.1], "measured": 0.01, "bound": 0.1},
               "row": {"measured": 0.01, "bound": 0.1}},
           _claim("b.one", "proved", seconds=9.0), _claim("peers.x.y", "skipped", "refuted"),
           _claim("peers.z.w", "skipped", "verified"), _claim("mine.p", "verified", source="plugin mine"))


def test_render_counts_statuses_areas_and_peers() -> None:
    block = render(DOC)
    assert block.startswith(START) and block.endswith(END)
    assert claim_counts(block) == (6, 5, 1)
    assert "6 claims in ...s: 1 proved, 2 verified, 1 refuted, 2 skipped" in block
    assert "end as recorded: 1 proved, 3 verified, 2 refuted." in block
    assert "| `peers` | 2 |" in block and "| `a` | 2 |" in block
    assert "slowest" not in block  # per-claim seconds are in the report, not in README
    assert "every claim as expected, exit status 0." in block


def test_render_reports_unexpected_statuses_and_refuses_partial_runs() -> None:
    bad = _doc(_claim("a.one", "refuted", "verified"))
    assert "exit status 1: a.one (refuted)" in render(bad)
    with pytest.raises(SummaryError, match="incomplete"):
        render(_doc(_claim("a.one", "verified"), complete=False))
    with pytest.raises(SummaryError, match="no claims"):
        render(_doc())


def test_replace_block_changes_only_the_block() -> None:
    text = f"# title\n\nbefore\n\n{START} -->\nold numbers\n{END}\n\nafter\n"
    new = replace_block(text, render(DOC))
    assert new.startswith("# title\n\nbefore\n\n") and new.endswith(f"{END}\n\nafter\n")
    assert "old numbers" not in new and replace_block(new, render(DOC)) == new
    with pytest.raises(SummaryError, match="no generated block"):
        replace_block("no markers", render(DOC))


def test_cli_rewrites_and_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import verify.readme_summary as rs

    monkeypatch.setattr(rs, "registered_count", lambda: len(DOC["claims"]))
    report, readme = tmp_path / "verify.json", tmp_path / "README.md"
    report.write_text(json.dumps(DOC))
    readme.write_text(f"intro\n{START} -->\n{END}\nmiddle\n{FINDINGS_START} -->\nold\n{FINDINGS_END}\noutro\n")
    args = ["--json", str(report), "--readme", str(readme)]
    assert main([*args, "--check"]) == 1
    assert main(args) == 0
    assert main([*args, "--check"]) == 0
    assert claim_counts(readme.read_text()) == (6, 5, 1)
    assert readme.read_text().startswith("intro\n") and readme.read_text().endswith("outro\n")
    assert "\nmiddle\n" in readme.read_text() and "`a.two`" in block_of(readme.read_text(), FINDINGS_START, FINDINGS_END)
    readme.write_text(readme.read_text().replace("`x = 0.1`", "`x = 0.2`"))  # a hand edit of the findings
    assert main([*args, "--check"]) == 1
    monkeypatch.setattr(rs, "registered_count", lambda: 99)  # a report of an --only run
    assert main(args) == 2


# ------------------------------------------------------------------------------------------- the findings
def test_render_findings_lists_every_refuted_claim_with_its_counterexample() -> None:
    doc = _doc(*DOC["claims"], _claim("peers.lib.f", "refuted"), _claim("b.two", "refuted", "verified"),
               _claim("mine.q", "refuted", source="plugin mine"))
    block = render_findings(doc)
    assert block.startswith(FINDINGS_START) and block.endswith(FINDINGS_END)
    assert "4 claims refuted in the run above (3 of the catalogue and plugins, 1 of the peer audit)" in block
    row = next(ln for ln in block.splitlines() if ln.startswith("| `a.two`"))
    assert "my notes, Lemma 2: x^2 >= x on [0, 2]" in row
    assert "`x = 0.1`, `grid = (0, 0.05, 0.1)`" in row and "measured =" not in row   # its own numbers: last column
    assert row.endswith("| `0.01 >= 0.1` |")
    assert "| `b.two` **unexpected** |" in block and "| `mine.q` (plugin) |" in block
    assert "| peer audit (1 claims) |" in block and "peers.lib.f" not in block
    with pytest.raises(SummaryError, match="incomplete"):
        render_findings(_doc(_claim("a.one", "refuted"), complete=False))


def test_readme_findings_are_the_registrys_recorded_findings() -> None:
    """The README's findings block lists exactly the claims recorded as findings (expected ``refuted``, the peer
    audit aside): a new finding, or a finding that no longer holds, means re-running python -m verify and
    python -m verify.readme_summary."""
    block = block_of(README, FINDINGS_START, FINDINGS_END)
    listed = set(re.findall(r"^\| `([\w.-]+)`", block, re.M))
    builtin, plugin = _registry()
    want = {i for i in builtin if i in REGISTRY and REGISTRY[i].expected == "refuted" and not i.startswith("peers.")}
    assert want <= listed, f"recorded findings missing from README's findings block: {sorted(want - listed)}"
    if any(True for _ in entry_points(group=ENTRY_POINT_GROUP)):  # the example plugin is installed
        want |= {i for i in plugin if REGISTRY[i].expected == "refuted"}
        assert listed == want, f"README lists {sorted(listed - want)} that the registry does not record as refuted"
    else:
        assert listed - want <= {i for i in listed if "(plugin)" in block.split(f"`{i}`", 1)[1][:12]}
