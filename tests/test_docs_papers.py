"""docs/papers.md and README's paper table agree with the code: every claim id and figure name the documents cite
exists, every claim citing one of the papers (000-004) is listed in docs/papers.md, and README names the five papers
with the titles docs/papers.md gives."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

from verify.catalogue import CATALOGUE
from verify.core import REGISTRY, all_ids
from verify.plugins import load_builtin

ROOT = Path(__file__).resolve().parents[1]
PAPERS = (ROOT / "docs" / "papers.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
LABELS = ("000", "001", "002", "003", "004")
#: the first part of every built-in claim id
AREAS = ("rcfl", "relfair", "qffl", "fedfv", "base", "fedmgda", "peers", "proofs", "worstcase")
CLAIM_TOKEN = re.compile(rf"^(?:{'|'.join(AREAS)})\.[\w.*-]+$")
FIGURE_TOKEN = re.compile(r"^(?:rcfl|relfair|qffl|fedfv|worstcase)_[a-z0-9_]+$")


def _ticked(text: str) -> list[str]:
    return re.findall(r"`([^`\s]+)`", text)


def _builtin_ids() -> list[str]:
    load_builtin()
    return [i for i in all_ids() if i not in REGISTRY or REGISTRY[i].source == "built-in"]


def _citation(cid: str) -> str:
    return REGISTRY[cid].citation if cid in REGISTRY else CATALOGUE[cid][0]


def unknown_ids(text: str, ids: list[str]) -> list[str]:
    """Claim ids (or fnmatch patterns) ticked in ``text`` that name no claim of ``ids``."""
    cited = [t for t in _ticked(text) if CLAIM_TOKEN.match(t)]
    return [t for t in cited if not (fnmatch.filter(ids, t) if "*" in t else t in ids)]


def _paper_table(text: str) -> dict[str, str]:
    """``label -> title`` from the first Markdown table whose rows start with a paper label."""
    rows = re.findall(r"^\| (00[0-4]) \| ([^|]+?) \|", text, re.M)
    return {label: title.strip() for label, title in rows}


def test_the_parsers_find_ids_figures_and_tables() -> None:
    sample = "see `rcfl.theorem1.v002`, `base.pepit.*`, `rcfl_theorem1`, `x = 1` and `python -m verify`\n| 002 | T |"
    ticked = _ticked(sample)
    assert [t for t in ticked if CLAIM_TOKEN.match(t)] == ["rcfl.theorem1.v002", "base.pepit.*"]
    assert [t for t in ticked if FIGURE_TOKEN.match(t)] == ["rcfl_theorem1"]
    assert _paper_table(sample) == {"002": "T"}
    ids = ["rcfl.theorem1.v002", "base.pepit.gradient_descent"]
    assert unknown_ids(sample, ids) == []
    assert unknown_ids(sample + " `rcfl.theorem9.v002` `peers.*`", ids) == ["rcfl.theorem9.v002", "peers.*"]


def test_every_claim_id_in_papers_md_is_registered() -> None:
    ids = _builtin_ids()
    cited = [t for t in _ticked(PAPERS) if CLAIM_TOKEN.match(t)]
    assert len(cited) >= 80, "docs/papers.md cites the claims that check each statement"
    unknown = unknown_ids(PAPERS, ids)
    assert not unknown, f"docs/papers.md cites claims that are not registered: {unknown}"


def test_every_claim_citing_a_paper_is_in_papers_md() -> None:
    cited = set(_ticked(PAPERS))
    citing = [i for i in _builtin_ids() if re.search(r"\b00[0-4]\b", _citation(i))]
    assert len(citing) >= 60
    missing = [i for i in citing if i not in cited]
    assert not missing, f"claims citing 000-004 that docs/papers.md does not list: {missing}"


def test_every_figure_named_in_papers_md_exists() -> None:
    pytest.importorskip("matplotlib")
    from figures import load_all
    from figures.registry import FIGURES

    load_all()
    named = {t for t in _ticked(PAPERS) if FIGURE_TOKEN.match(t)}
    assert len(named) >= 15
    assert named <= set(FIGURES), f"docs/papers.md names figures that are not registered: {sorted(named - set(FIGURES))}"


def test_readme_names_the_five_papers_as_papers_md_does() -> None:
    in_papers, in_readme = _paper_table(PAPERS), _paper_table(README)
    assert sorted(in_papers) == list(LABELS) and sorted(in_readme) == list(LABELS)
    assert in_readme == in_papers, "README's paper table and docs/papers.md give different titles"
    assert all(len(title.split()) >= 3 for title in in_papers.values())
