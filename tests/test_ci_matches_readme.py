"""The CI script must run exactly the test command the README gives newcomers, and then the ``--full`` run."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FULL = ".venv/bin/python -m pytest -q --full -n 2"


def _ci_commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    return [s for s in (line.strip() for line in lines) if s and not s.startswith("#")]


def test_ci_runs_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```bash")[1:]]
    test_cmds = [b for b in blocks if "pytest" in b]
    assert len(test_cmds) == 1, "README must show exactly one test command"
    cmds = _ci_commands()
    assert test_cmds[0] in cmds, "the CI script must run the README's test command verbatim"


def test_ci_runs_the_full_suite_after_the_readme_command() -> None:
    """Issue 34: CI runs README's test command and then ``pytest --full`` (the whole suite: --full also raises the
    Hypothesis profile to 1,000 examples, so ``-m slow`` alone would not do), with ``set -e`` so either failing
    fails CI."""
    readme = (ROOT / "README.md").read_text()
    test_cmd = next(b.split("```", 1)[0].strip() for b in readme.split("```bash")[1:] if "pytest" in b)
    cmds = _ci_commands()
    assert "set -euo pipefail" in cmds
    assert FULL in cmds, f"the CI script must run {FULL!r}"
    assert cmds.index(FULL) > cmds.index(test_cmd), "the --full run comes after the README's test command"
    assert cmds[-1] == FULL
    assert f"`{FULL.replace(' -q', '')}`" in readme, "README must name the --full run CI makes"
