"""docs/figures.md is generated from the registry (``python -m figures --write-docs``): every registered figure is on
the page with its heading, image and reading statement, the page states the right count, and the page in the
repository is exactly what :func:`figures.docs.render` makes of the figure modules' ``TITLE`` and ``DOC`` (edit those
and regenerate, never the page)."""

from __future__ import annotations

import re

from figures import load_all
from figures.docs import DOCS_PATH, SECTIONS, render, section_of
from figures.registry import FIGURES

load_all()
PAGE = DOCS_PATH.read_text(encoding="utf-8")


def test_every_registered_figure_has_a_title_and_a_statement() -> None:
    for name, spec in FIGURES.items():
        assert spec.title.strip(), f"{name}: its module has no TITLE"
        assert len(spec.doc) > 100 and "TODO" not in spec.doc, f"{name}: its module has no reading statement (DOC)"


def test_every_registered_figure_appears_on_the_page_with_its_statement() -> None:
    for name, spec in FIGURES.items():
        assert f"### `{name}` - {spec.title}\n" in PAGE, f"{name}: no heading on docs/figures.md"
        assert f"![{name}](../figures_out/{name}.png)" in PAGE, f"{name}: no image on docs/figures.md"
        assert spec.doc in PAGE, f"{name}: its statement is not on docs/figures.md"
    on_page = re.findall(r"^### `(\w+)`", PAGE, flags=re.M)
    assert sorted(on_page) == sorted(FIGURES), "the page lists a figure that is not registered, or one twice"


def test_the_page_states_the_number_of_figures() -> None:
    counts = re.findall(r"(\d+) figures", PAGE)
    assert counts and all(int(c) == len(FIGURES) for c in counts), (counts, len(FIGURES))


def test_the_page_is_generated_from_the_registry() -> None:
    assert PAGE == render(), "docs/figures.md is stale: run `python -m figures --write-docs`"


def test_every_figure_is_in_a_paper_section() -> None:
    heads = {head for _, head in SECTIONS}
    assert all(section_of(name) in heads for name in FIGURES)


def test_render_lists_a_new_figure_and_counts_it(tmp_path) -> None:
    from figures.registry import FigureSpec

    def make(out, formats, quick):  # pragma: no cover - never called
        return []

    extra = dict(FIGURES) | {"worstcase_zzz": FigureSpec("worstcase_zzz", "a test figure", make)}
    page = render(extra)
    assert f"{len(FIGURES) + 1} figures" in page and "### `worstcase_zzz`\n" in page
    assert page.index("### `worstcase_zzz`") > page.index("## Worst cases")


def test_write_docs_option_writes_the_page(tmp_path) -> None:
    from figures.runner import main

    target = tmp_path / "figures.md"
    assert main(["--write-docs", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == render()


def test_write_docs_without_a_path_writes_the_checkouts_page(tmp_path, monkeypatch) -> None:
    import figures.docs
    from figures.runner import main

    target = tmp_path / "docs" / "figures.md"
    target.parent.mkdir()
    monkeypatch.setattr(figures.docs, "DOCS_PATH", target)
    assert main(["--write-docs"]) == 0
    assert target.read_text(encoding="utf-8") == render()
