"""README is a guide for users, not a history: at most 400 lines, the five papers named, no commit hashes, issue
numbers or "not re-run since" outside the generated blocks (history lives in CHANGELOG.md), every document it points
to present, and the generated summary names the machine its seconds were measured on."""

from __future__ import annotations

import re
from pathlib import Path

from verify.readme_summary import END, FINDINGS_END, FINDINGS_START, START, render

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 400
#: a commit hash: 7 to 40 hex digits with at least one digit and one letter
COMMIT = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
HISTORY = re.compile(r"\bissues? \d+|\bthis round\b|\bnot re-run\b|\bre-run since\b|\bon commit\b|\bround \d\b", re.I)


def without_generated_blocks(text: str) -> str:
    """``text`` without the blocks ``python -m verify.readme_summary`` writes (they name the run's commit)."""
    for start, end in ((START, END), (FINDINGS_START, FINDINGS_END)):
        text = re.sub(re.escape(start) + r".*?" + re.escape(end), "", text, flags=re.S)
    return text


def history(text: str) -> list[str]:
    """The commit hashes and history phrases in ``text``."""
    return COMMIT.findall(text) + [m.group() for m in HISTORY.finditer(text)]


def test_history_is_found_where_there_is_some() -> None:
    assert history("measured on commit 312ac2a (not re-run since); issue 44; this round") == [
        "312ac2a", "on commit", "not re-run", "issue 44", "this round"]
    assert history("margin 1e-08, 0.2027894, f*_alpha = 0.5427, seed 0, sha256") == []
    block = f"before\n{START} -->\ncommit 259ec99\n{END}\nafter"
    assert without_generated_blocks(block) == "before\n\nafter"


def test_readme_is_short() -> None:
    assert len(README.splitlines()) <= MAX_LINES


def test_readme_carries_no_history() -> None:
    found = history(without_generated_blocks(README))
    assert not found, f"README outside its generated blocks has history (move it to CHANGELOG.md): {found}"


def test_readme_names_the_papers_by_title() -> None:
    for title in ("Fairness-aware Federated Learning: A Robust Approach", "Federated Learning with Relative Fairness",
                  "Fairness-Aware Federated Learning", "Fair Resource Allocation in Federated Learning",
                  "Federated Learning with Fair Averaging"):
        assert title in README, title


def test_every_document_readme_points_to_exists() -> None:
    named = set(re.findall(r"\b((?:docs/[\w-]+|CHANGELOG|examples/[\w-]+/README)\.md)\b", README))
    assert {"docs/papers.md", "docs/verify.md", "CHANGELOG.md"} <= named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, missing


def test_the_summary_names_the_machine_its_seconds_depend_on() -> None:
    doc = {"meta": {"mode": "quick", "seed": 0, "python": "3.11", "complete": True, "elapsed_s": 61.4},
           "claims": [{"id": "a.one", "status": "verified", "expected": "verified", "seconds": 2.0,
                       "source": "built-in", "as_expected": True}]}
    assert "61 s wall time (the machine is not recorded)" in render(doc)
    assert "61 s wall time on 2-core x86_64, idle" in render(doc, machine="2-core x86_64, idle")
    doc["meta"]["machine"] = "16-core x86_64"
    assert "61 s wall time on 16-core x86_64" in render(doc)
    assert "closing lines `python -m verify` prints begin with this one" in render(doc)


def test_the_guides_beside_readme_carry_no_history() -> None:
    for name in ("papers.md", "verify.md", "library.md"):
        found = history((ROOT / "docs" / name).read_text(encoding="utf-8"))
        assert not found, f"docs/{name} has history (move it to CHANGELOG.md): {found}"
