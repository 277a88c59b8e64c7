"""``python -m fairtheory.proofs recheck``: a row whose status is not exactly a known status is refused, named with
its status (a viewer may show ``"proved "`` or ``"Proved"`` as proved; the re-check must not skip it)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fairtheory.proofs.__main__ import main as proofs_main
from fairtheory.proofs.recheck import STATUSES, recheck_report


def _recheck(tmp_path: Path, rows: list[Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"claims": rows}))
    code = proofs_main(["recheck", str(path), "--no-falsify"])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def test_the_known_statuses_are_the_runners() -> None:
    from verify.core import STATUSES as RUNNER

    assert STATUSES == RUNNER


@pytest.mark.parametrize("status", ["proved ", " proved", "Proved", "PROVED", "proved\u200b", "prov\u0435d", "",
                                    "verified ", 1, None, True, ["proved"], {"s": "proved"}])
def test_an_unknown_status_fails_naming_the_row_and_status(tmp_path: Path, status: Any,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    ok_row = {"id": "fine.row", "status": "verified"}
    code, out = _recheck(tmp_path, [ok_row, {"id": "odd.row", "status": status}], capsys)
    assert code == 1, out
    assert f"FAIL  odd.row: row 1: unknown status {json.dumps(status)}" in out, out
    assert re.search(r"rows FAIL \(.*\): odd.row", out)
    assert "fine.row" not in out


def test_a_row_without_a_status_or_not_an_object_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _recheck(tmp_path, [{"id": "no.status"}, ["proved"], "proved"], capsys)
    assert code == 1, out
    assert "FAIL  no.status: row 0: unknown status null" in out
    assert "FAIL  (row 1): row 1: unknown status (row is not an object)" in out
    assert "FAIL  (row 2): row 2: unknown status (row is not an object)" in out
    assert "3 of 3 rows FAIL (3 proved" in out


@pytest.mark.parametrize("status", [s for s in STATUSES if s != "proved"])
def test_known_statuses_other_than_proved_are_not_rechecked(tmp_path: Path, status: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _recheck(tmp_path, [{"id": "r", "status": status}], capsys)
    assert code == 0 and "the report has no proved row and no row refuted exactly" in out, out
    assert recheck_report({"claims": [{"id": "r", "status": status}]}) == []


def test_a_proved_row_is_still_rechecked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exactly ``"proved"`` goes to the full re-check (here it fails: no certificate)."""
    code, out = _recheck(tmp_path, [{"id": "p", "status": "proved", "proved_statement": []}], capsys)
    assert code == 1 and "FAIL  p: no certificate" in out, out
