"""The CI script must run exactly the test command the README gives newcomers."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```bash")[1:]]
    test_cmds = [b for b in blocks if "pytest" in b]
    assert len(test_cmds) == 1, "README must show exactly one test command"
    assert test_cmds[0] in ci.splitlines(), "the CI script must run the README's test command verbatim"
