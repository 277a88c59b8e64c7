"""The verification runner: listing, selection, reports, exit codes, atomic writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify import runner
from verify.catalogue import CATALOGUE
from verify.claims import load_all
from verify.core import REGISTRY, Context, Outcome, claim, run_claim
from verify.report import atomic_write

FAKE = "test.fake.claim"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake_claim(monkeypatch: pytest.MonkeyPatch):
    """Register a temporary claim id whose check returns a chosen status; removed afterwards."""
    load_all()

    def register(status: str, expected: str = "verified", crash: bool = False) -> None:
        REGISTRY.pop(FAKE, None)

        @claim(FAKE, citation="test only", statement="a fake claim for the runner tests", expected=expected)
        def check(ctx: Context) -> Outcome:
            if crash:
                raise RuntimeError("boom")
            return Outcome(status, measured=1.0, bound=0.5, instances=1, note="fake")

    yield register
    REGISTRY.pop(FAKE, None)


def test_list_and_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert runner.main(["--list", "--only", "relfair.sets.*,rcfl.qalpha.closed_form"]) == 0
    out = capsys.readouterr().out
    assert "relfair.sets.closed_form" in out and "rcfl.qalpha.closed_form" in out
    assert "relfair.integrated.support" not in out
    assert runner.select(["relfair.integrated.*"]) == ["relfair.integrated.support"]
    assert runner.main(["--list", "--only", "no.such.claim*"]) == 2


def test_run_small_selection_writes_valid_reports(tmp_path: Path) -> None:
    js, md = tmp_path / "r" / "v.json", tmp_path / "r" / "v.md"
    code = runner.main(["--only", "relfair.integrated.support", "--json", str(js), "--markdown", str(md)])
    assert code == 0
    doc = json.loads(js.read_text())
    assert doc["meta"]["mode"] == "quick" and doc["meta"]["complete"] is True
    (row,) = doc["claims"]
    assert row["id"] == "relfair.integrated.support" and row["status"] == "verified" and row["as_expected"]
    assert row["instances"] > 0 and row["measured"] <= row["bound"]
    text = md.read_text()
    assert text.startswith("# fairtheory verification report")
    assert "| `relfair.integrated.support` |" in text
    header = [ln for ln in text.splitlines() if ln.startswith("| id |")][0]
    row_line = [ln for ln in text.splitlines() if ln.startswith("| `relfair")][0]
    assert header.count("|") == row_line.count("|")  # a well-formed table row
    assert not [p for p in js.parent.iterdir() if p.name.endswith(".tmp")]  # no temp files left


def test_unexpected_status_gives_exit_1(fake_claim, tmp_path: Path) -> None:
    fake_claim("refuted")
    js = tmp_path / "x.json"
    assert runner.main(["--only", FAKE, "--json", str(js), "--no-markdown"]) == 1
    row = json.loads(js.read_text())["claims"][0]
    assert row["status"] == "refuted" and row["as_expected"] is False
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


def test_expected_refutation_gives_exit_0(fake_claim, tmp_path: Path) -> None:
    fake_claim("refuted", expected="refuted")
    assert runner.main(["--only", FAKE, "--json", str(tmp_path / "x.json"), "--no-markdown"]) == 0


def test_crashing_check_is_reported_as_error(fake_claim, tmp_path: Path) -> None:
    fake_claim("verified", crash=True)
    r = run_claim(FAKE, Context())
    assert r.status == "error" and "RuntimeError: boom" in r.note and "traceback" in r.details
    assert runner.main(["--only", FAKE, "--json", str(tmp_path / "x.json"), "--no-markdown"]) == 1


def test_registry_is_clean_after_fake_claims() -> None:
    load_all()
    assert FAKE not in REGISTRY and FAKE not in CATALOGUE


def test_atomic_write_replaces_whole_file_and_keeps_old_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    atomic_write(target, "old")
    atomic_write(target, "new content")
    assert target.read_text() == "new content"
    with pytest.raises(TypeError):
        atomic_write(target, 12345)  # type: ignore[arg-type]  # fails while writing the temp file
    assert target.read_text() == "new content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_cli_subprocess_list() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run(
        [sys.executable, "-m", "verify", "--list", "--only", "relfair.sets.*"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert res.returncode == 0, res.stderr
    assert "relfair.sets.closed_form" in res.stdout


def test_hypothesis_examples_reproducible_and_bounded() -> None:
    import numpy as np
    from hypothesis import strategies as st

    from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
    from fairtheory.testing import qalpha_instances
    from verify.sampling import hypothesis_examples

    a = hypothesis_examples(qalpha_instances(max_n=5), 15, seed=3)
    b = hypothesis_examples(qalpha_instances(max_n=5), 15, seed=3)
    assert len(a) == 15
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[2], y[2]) for x, y in zip(a, b, strict=True))
    assert len(hypothesis_examples(st.booleans(), 10, seed=0)) <= 2  # small spaces give fewer examples
    assert hypothesis_examples(st.integers(), 0) == []
    with pytest.raises(FairtheoryTypeError, match="strategy"):
        hypothesis_examples([1, 2], 3)
    with pytest.raises(FairtheoryValueError, match="count"):
        hypothesis_examples(st.integers(), -1)


def test_every_catalogue_claim_has_a_check() -> None:
    """The catalogue is fully implemented: no claim is left as 'not implemented'."""
    from verify.catalogue import CATALOGUE
    from verify.claims import load_all
    from verify.core import REGISTRY

    errors = load_all()
    assert not errors, f"claim modules failed to import: {list(errors)}"
    missing = sorted(set(CATALOGUE) - set(REGISTRY))
    assert not missing, f"claims without a check: {missing}"
