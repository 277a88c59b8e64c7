"""Every registered figure regenerates from code (quick mode) into a fresh folder."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from figures import load_all  # noqa: E402
from figures.registry import FIGURES  # noqa: E402

load_all()

EXPECTED = {
    "rcfl_smoothing_gap", "rcfl_qalpha_path", "rcfl_theorem1", "rcfl_theorem2",
    "qffl_uniformity", "qffl_lipschitz", "qffl_vs_fedsgd",
    "fedfv_conflict_bounds", "fedfv_pareto_2client", "fedfv_order_effect",
    "relfair_penguins", "relfair_prop9", "relfair_lorenz", "relfair_scaffpd_rate",
    "rcfl_stepsize_region",
}


def test_all_issue_figures_are_registered() -> None:
    assert EXPECTED <= set(FIGURES), f"missing figures: {sorted(EXPECTED - set(FIGURES))}"


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_regenerates(name: str, tmp_path) -> None:
    paths = FIGURES[name].make(tmp_path, ("png",), True)
    assert paths, f"{name} wrote nothing"
    for p in paths:
        assert p.exists() and p.stat().st_size > 5_000, f"{p} missing or empty"
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_only_and_pdf(tmp_path) -> None:
    from figures.runner import main

    assert main(["--out", str(tmp_path), "--only", "relfair_prop9", "--pdf"]) == 0
    assert (tmp_path / "relfair_prop9.png").exists() and (tmp_path / "relfair_prop9.pdf").exists()
    assert main(["--out", str(tmp_path), "--only", "no_such_figure"]) == 2
