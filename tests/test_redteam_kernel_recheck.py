"""Held-out red team of ``python -m fairtheory.proofs recheck`` (fairtheory/proofs/recheck.py): report rows a hostile
sender could hand a reviewer - a status that reads like ``proved``, the certificate of another claim, duplicate rows,
a declared statement no certificate implies, printed words that misrepresent the checked statement (lookalike
characters, a changed number), certificates in odd containers.  Each asserts that the re-check fails naming the row
(exit status 1); the unedited rows are the control.  The rows are real ones (tests/data_redteam_kernel.json, from
``python -m verify --only 'proofs.*' --json``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from fairtheory.proofs.__main__ import main as proofs_main
from fairtheory.proofs.recheck import recheck_row

DATA = json.loads((Path(__file__).with_name("data_redteam_kernel.json")).read_text())


def row(name: str) -> dict[str, Any]:
    return copy.deepcopy(DATA[name])


def run(tmp_path: Path, rows: list[Any], capsys: pytest.CaptureFixture[str], text: str | None = None) -> tuple[int, str]:
    path = tmp_path / "report.json"
    path.write_text(text if text is not None else json.dumps({"claims": rows}))
    code = proofs_main(["recheck", str(path), "--no-falsify"])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def test_control_rows_recheck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, [row("row_softplus"), row("row_potential_gd")], capsys)
    assert code == 0, out
    assert "ok    proofs.rcfl.softplus.smoothness" in out and "ok    proofs.potential.gd" in out


@pytest.mark.parametrize("status", ["\ufeffproved", "proved\u00a0", "pro\u00adved", "\uff50roved", "proved\x00",
                                    "prove\u0501", "proved\t", "PROVED"],
                         ids=["bom", "nbsp", "soft-hyphen", "fullwidth-p", "nul", "cyrillic-d", "tab", "upper"])
def test_a_status_that_reads_like_proved_fails_naming_the_row(tmp_path: Path, status: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    r = row("row_potential_gd")
    r["status"] = status
    code, out = run(tmp_path, [r], capsys)
    assert code == 1, out
    assert "FAIL  proofs.potential.gd: row 0: unknown status" in out


def test_the_certificate_of_another_claim(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each row carries the other's (valid) certificate: each re-checks, neither implies the row's declared
    statement."""
    a, b = row("row_softplus"), row("row_potential_gd")
    a["certificate"], b["certificate"] = b["certificate"], a["certificate"]
    code, out = run(tmp_path, [a, b], capsys)
    assert code == 1, out
    assert "FAIL  proofs.rcfl.softplus.smoothness: no certificate implies declared statement 1" in out
    assert "FAIL  proofs.potential.gd: no certificate implies declared statement 1" in out


def test_a_declared_statement_implied_by_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The potential row's declared rate lowered from ``3/(8hN + 4)`` to ``3/(9hN + 4)``, its words regenerated to
    match: no certificate implies it."""
    from fairtheory_kernel.check import describe

    r = row("row_potential_gd")
    d = r["details"]["declared_statements"][0]
    d["statement"]["bound"]["den"] = [["4"], ["0", "9"]]
    r["proved_statement"] = [describe(d)]
    code, out = run(tmp_path, [r], capsys)
    assert code == 1 and "FAIL  proofs.potential.gd: no certificate implies declared statement 1 of 1" in out, out


def test_a_true_declared_statement_plus_a_false_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fairtheory_kernel.check import describe

    r = row("row_softplus")
    false = copy.deepcopy(r["details"]["declared_statements"][0])
    false["goals"][0]["rhs"] = ["/", ["q", "1"], ["*", ["q", "5"], ["v", "mu"]]]  # 1/(5 mu) < 1/(4 mu)
    r["details"]["declared_statements"].append(false)
    r["proved_statement"] = [describe(d) for d in r["details"]["declared_statements"]]
    code, out = run(tmp_path, [r], capsys)
    assert code == 1 and "no certificate implies declared statement 2 of 2" in out, out


def test_duplicate_rows_with_one_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two rows named alike, the second forged (no certificate): the good twin does not cover it."""
    good, bad = row("row_potential_gd"), row("row_potential_gd")
    bad["certificate"] = None
    code, out = run(tmp_path, [good, bad], capsys)
    assert code == 1, out
    assert "ok    proofs.potential.gd" in out and "FAIL  proofs.potential.gd: no certificate" in out


def test_duplicate_keys_inside_a_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row whose JSON text holds ``"certificate"`` twice: a good one first, a forged one last (what Python keeps)."""
    r = row("row_potential_gd")
    cert = json.dumps(r.pop("certificate"))
    body = json.dumps(r)[:-1] + f', "certificate": {cert}, "certificate": null}}'
    code, out = run(tmp_path, [], capsys, text='{"claims": [' + body + "]}")
    assert code != 0, out


@pytest.mark.parametrize("edit", ["\u2264", "\u0445", "3 L D0/(8 h N + 5)", "  ", "\u200b"],
                         ids=["le-sign", "cyrillic-x", "number", "double-space", "zero-width"])
def test_printed_words_that_misrepresent_the_checked_statement(tmp_path: Path, edit: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    r = row("row_potential_gd")
    w = r["proved_statement"][0]
    r["proved_statement"] = [{"\u2264": w.replace("<=", "\u2264", 1), "\u0445": w.replace("x", "\u0445", 1),
                              "  ": w.replace(" ", "  ", 1), "\u200b": w.replace("h", "h\u200b", 1)}.get(
        edit, w.replace("3 L D0/(8 h N + 4)", edit))]
    assert r["proved_statement"][0] != w
    code, out = run(tmp_path, [r], capsys)
    assert code == 1 and "the printed words of statement 1 are not the words of the checked statement" in out, out


def test_a_good_certificate_plus_a_forged_one() -> None:
    r = row("row_potential_gd")
    forged = copy.deepcopy(r["certificate"])
    forged["statement"]["bound"]["den"] = [["4"], ["0", "100"]]
    v = recheck_row([r["certificate"], forged], r["details"]["declared_statements"], r["proved_statement"],
                    falsify=False)
    assert v.ok is False and "certificate 1 of 2" in v.reason


@pytest.mark.parametrize("container", ["json-string", "nested-list", "dict-of-certs", "empty-list"])
def test_certificates_in_odd_containers(container: str) -> None:
    r = row("row_potential_gd")
    c = r["certificate"]
    certs = {"json-string": json.dumps(c), "nested-list": [[c]], "dict-of-certs": {"0": c}, "empty-list": []}[container]
    v = recheck_row(certs, r["details"]["declared_statements"], r["proved_statement"], falsify=False)
    assert v.ok is False


def test_declared_statement_of_another_kind_or_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The potential certificate with its declared statement relabelled ``pep-dual``; a row with only
    ``proved_statements`` (the certificate's own statements) and no ``declared_statements``."""
    r = row("row_potential_gd")
    r["details"]["declared_statements"][0]["kind"] = "pep-dual"
    s = row("row_softplus")
    s["details"]["proved_statements"] = s["details"].pop("declared_statements", None) or [{"x": 1}]
    code, out = run(tmp_path, [r, s], capsys)
    assert code == 1, out
    assert "FAIL  proofs.potential.gd" in out and "FAIL  proofs.rcfl.softplus.smoothness" in out


def test_a_rows_prose_statement_is_not_what_recheck_vouches_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The row's free-text ``statement`` (the claim author's prose) changed to a stronger, false rate: ``recheck``
    vouches only for ``proved_statement`` (the words generated from the declared statements), which it prints
    on the ok line; the prose is not compared.  Recorded: the ok line must not repeat the forged prose as checked."""
    r = row("row_potential_gd")
    r["statement"] = r["statement"].replace("3 L D0/(8 N h + 4)", "L D0/(100 N h + 4)")
    code, out = run(tmp_path, [r], capsys)
    assert "L D0/(100 N h + 4)" not in out


def test_a_summary_that_counts_more_proved_rows_than_the_report_has(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A reader shown ``"summary": {"proved": 17}`` and ``recheck``'s exit status 0 may take all 17 as re-checked;
    only one row is ``proved``.  The re-check must refuse a summary that disagrees with the rows it re-checked."""
    good = row("row_potential_gd")
    demoted = row("row_softplus")
    demoted["status"] = "verified"
    text = json.dumps({"meta": {"complete": True}, "summary": {"proved": 17}, "claims": [good, demoted]})
    code, out = run(tmp_path, [], capsys, text=text)
    assert code != 0 and "(summary)" in out, out
    for bad in ({"proved": 1, "verified": 2}, {"proved": True, "verified": 1}, {"proved": "1", "verified": 1},
                {"proved": 1, "verified": 1, "proved ": 0}, [1, 1]):
        code, out = run(tmp_path, [], capsys, text=json.dumps({"summary": bad, "claims": [good, demoted]}))
        assert code != 0 and "(summary)" in out, (bad, out)
    # control: the summary that counts the rows as they are re-checks (exit 0)
    text = json.dumps({"meta": {"complete": True}, "summary": {"proved": 1, "verified": 1, "refuted": 0},
                       "claims": [good, demoted]})
    code, out = run(tmp_path, [], capsys, text=text)
    assert code == 0, out
