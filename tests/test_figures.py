"""Every registered figure regenerates from code (quick mode) into a fresh folder, and shows what its legend says:
:func:`figures.checks.figure_problems` finds nothing in any of them, and finds every defect of a figure broken on
purpose."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from figures import load_all  # noqa: E402
from figures.checks import figure_problems  # noqa: E402
from figures.registry import FIGURES, SAVE_HOOKS, figure, save  # noqa: E402

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


@pytest.fixture
def inspected():
    """Problems found in every figure saved while the test runs, by figure name."""
    found: dict[str, list[str]] = {}

    def hook(fig: object, name: str) -> None:
        found[name] = figure_problems(fig)

    SAVE_HOOKS.append(hook)
    yield found
    SAVE_HOOKS.remove(hook)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_regenerates_and_shows_its_legend(name: str, tmp_path, inspected) -> None:
    paths = FIGURES[name].make(tmp_path, ("png",), True)
    assert paths, f"{name} wrote nothing"
    for p in paths:
        assert p.exists() and p.stat().st_size > 5_000, f"{p} missing or empty"
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert name in inspected, f"{name} was not saved through figures.registry.save"
    assert inspected[name] == [], f"{name}: " + "; ".join(inspected[name])


# ------------------------------------------------------------------------------------- a broken figure
def _broken() -> plt.Figure:
    """One figure with every defect the check knows."""
    fig, (ax, bx) = plt.subplots(1, 2)
    x = np.linspace(1, 10, 20)
    ax.plot(x, x, "-", color="C0", label="measured")
    ax.plot(x, x, "--", color="C1", label="bound")                       # identical data: hides "measured"
    ax.plot(x, x * (1 + 1e-4), ":", color="C2", label="certificate")     # on "bound" within a pixel
    ax.plot(x, x + 100, "-", color="C3", label="far away")               # outside the limits set below
    ax.plot(x, 2 * x, "-", color="C4", alpha=0.0, label="invisible")     # fully transparent
    ax.plot([], [], "-", color="C5", label="proxy")                      # a handle with no data
    ax.plot(x, 3 * x, "-", color="C6")                                   # a colour the legend does not list
    ax.set_ylim(0, 40)
    ax.set_xlabel("x")                                                   # no y label
    ax.legend()
    bx.plot(x, x, "o-", label="alone")                                   # no labels at all
    bx.legend()
    return fig


def test_check_finds_every_defect_of_a_broken_figure() -> None:
    fig = _broken()
    problems = figure_problems(fig)
    plt.close(fig)
    text = "\n".join(problems)
    assert "axes 0: the y axis has no label" in text
    assert "axes 1: the x axis has no label" in text and "axes 1: the y axis has no label" in text
    assert "legend entries 'measured' and 'bound' draw identical data" in text
    assert "legend entries 'bound' and 'certificate' lie on each other" in text
    assert "legend entry 'far away': nothing with this label is visible" in text
    assert "legend entry 'invisible': nothing with this label is visible" in text
    assert "legend entry 'proxy': nothing with this label is visible" in text
    assert "axes 0: an unlabelled Line2D is drawn in a colour that no legend entry lists" in text
    assert "legend entries 'measured' and 'certificate' lie on each other" in text
    assert len(problems) == 10, problems


def test_check_accepts_the_repaired_figure() -> None:
    fig, (ax, bx) = plt.subplots(1, 2)
    x = np.linspace(1, 10, 20)
    ax.plot(x, x, "-", color="C0", lw=6, alpha=0.4, label="measured (wide band)")    # a halo ...
    ax.plot(x, x * (1 + 1e-4), "--", color="C1", lw=1.5, label="bound (on the band)")  # ... with a line on it
    ax.plot(x, 2 * x, "o-", ms=9, mfc="none", color="C2", label="a")                  # large hollow circles ...
    ax.plot(x, 2 * x * (1 + 1e-4), "x--", ms=4, color="C3", label="b")                # ... around crosses
    ax.plot(x, 3 * x, "-", color="C6", label="_nolegend_")                            # deliberately unexplained
    ax.set_ylim(0, 40)
    ax.set(xlabel="x", ylabel="y")
    ax.legend()
    bx.plot(x, x, "o-", label="alone")
    bx.set(xlabel="x", ylabel="y")
    bx.legend()
    assert figure_problems(fig) == []
    plt.close(fig)


def test_shared_axes_and_figure_legends() -> None:
    fig, axes = plt.subplots(1, 2, sharey=True)
    x = np.linspace(0, 1, 5)
    axes[0].plot(x, x, label="first panel")
    axes[1].bar([0.5], [0.5], color="C1", label="bars")
    for ax in axes:
        ax.set_xlabel("x")
    axes[0].set_ylabel("y")  # the second panel shares it
    fig.legend()
    assert figure_problems(fig) == []
    plt.close(fig)


# ------------------------------------------------------------------------------------ the command line
@pytest.fixture
def fake_figures():
    """Register figures ``test_fig_*`` for one test."""
    made: list[str] = []

    def add(name: str, fn) -> None:
        figure(name, "test figure")(fn)
        made.append(name)

    yield add
    for name in made:
        FIGURES.pop(name, None)


def test_cli_check_fails_on_a_broken_figure(tmp_path, fake_figures, capsys) -> None:
    from figures.runner import main

    fake_figures("test_fig_broken", lambda out, formats, quick: save(_broken(), out, "test_fig_broken", formats))
    assert main(["--out", str(tmp_path), "--only", "test_fig_broken"]) == 0  # written: checks are opt-in
    capsys.readouterr()
    assert main(["--out", str(tmp_path), "--only", "test_fig_broken", "--check"]) == 1
    out = capsys.readouterr().out
    assert "check: test_fig_broken: legend entries 'measured' and 'bound' draw identical data" in out
    assert "figure check: problems in test_fig_broken" in out


def test_cli_reports_each_figure_when_it_is_made_on_one_line(tmp_path, fake_figures, capsys) -> None:
    from figures.runner import main

    seen: list[str] = []

    def make(name: str):
        def fn(out: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
            seen.append(capsys.readouterr().out)  # what was printed before this figure started
            fig, ax = plt.subplots()
            ax.plot([0, 1], [0, 1], label="y = x")
            ax.set(xlabel="x", ylabel="y")
            ax.legend()
            return save(fig, out, name, formats)
        return fn

    fake_figures("test_fig_a", make("test_fig_a"))
    fake_figures("test_fig_b", make("test_fig_b"))
    deep = tmp_path / ("a_long_folder_name_" * 5)
    assert main(["--out", str(deep), "--only", "test_fig_*", "--check"]) == 0
    rest = capsys.readouterr().out
    assert "[1/2] test_fig_a" in seen[1], "the first figure's line was printed only at the end"
    line = next(ln for ln in rest.splitlines() if ln.startswith("[2/2] test_fig_b"))
    assert str(deep / "test_fig_b.png") in line and len(line) > 80  # not wrapped at 80 columns


def test_cli_only_and_pdf(tmp_path) -> None:
    from figures.runner import main

    assert main(["--out", str(tmp_path), "--only", "relfair_prop9", "--pdf"]) == 0
    assert (tmp_path / "relfair_prop9.png").exists() and (tmp_path / "relfair_prop9.pdf").exists()
    assert main(["--out", str(tmp_path), "--only", "no_such_figure"]) == 2
