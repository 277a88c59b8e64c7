"""``python -m fairtheory.proofs recheck REPORT.json`` and the fresh-interpreter checker of the runner.

A small real report (``python -m verify --only proofs.stepsize.points``, three pep-dual certificates) is made once;
every test edits a copy of it as a forger would and re-checks it from the JSON alone."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from fairtheory.proofs.__main__ import main as proofs_main
from fairtheory.proofs.recheck import FreshChecker, recheck_report, recheck_row

REPO = Path(__file__).resolve().parents[1]


def _verify(tmp: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    js = tmp / "verify.json"
    res = subprocess.run([sys.executable, "-m", "verify", *args, "--json", str(js), "--no-markdown"], cwd=REPO,
                         capture_output=True, text=True, timeout=900, env=dict(os.environ, PYTHONPATH=str(REPO)))
    return res.returncode, json.loads(js.read_text()), res.stdout + res.stderr


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The runner, in this process (the claim modules are loaded once per test session)."""
    from verify import runner

    js = tmp_path_factory.mktemp("rep") / "verify.json"
    assert runner.main(["--only", "proofs.stepsize.points", "--json", str(js), "--no-markdown"]) == 0
    return json.loads(js.read_text())


def _recheck(tmp_path: Path, doc: Any, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    path = tmp_path / "sent.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    code = proofs_main(["recheck", str(path), *extra])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def _row(doc: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in doc["claims"] if r["id"] == "proofs.stepsize.points")


def test_the_report_carries_what_a_recheck_needs(report: dict[str, Any]) -> None:
    row = _row(report)
    assert row["status"] == "proved"
    assert len(row["certificate"]) == 3 and len(row["details"]["declared_statements"]) == 3
    assert row["proved_statement"] and len(row["proved_statement"]) == 3
    assert row["details"]["fresh_recheck_s"] > 0
    assert row["details"]["fresh_falsification"] == ["not refuted"] * 3


def test_recheck_of_the_report_exits_0(report: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _recheck(tmp_path, report, capsys)
    assert code == 0, out
    assert out.startswith("ok    proofs.stepsize.points: 3 statement(s) re-checked")
    assert "all 1 rows re-check (1 proved, 0 refuted exactly)" in out


@pytest.mark.parametrize("field", ["dist", "hetero"])
def test_a_lowered_certificate_bound_fails_naming_the_row(report: dict[str, Any], tmp_path: Path, field: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    doc = copy.deepcopy(report)
    b = _row(doc)["certificate"][1]["statement"]["bound"]
    b[field] = str(Fraction(b[field]) * Fraction(9, 10))
    code, out = _recheck(tmp_path, doc, capsys, "--no-falsify")
    assert code == 1, out
    assert "FAIL  proofs.stepsize.points" in out
    assert "1 of 1 rows FAIL (1 proved, 0 refuted exactly): proofs.stepsize.points" in out


def test_lowering_the_declared_bound_too_fails(report: dict[str, Any], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The forger lowers the bound in the certificate, the declared statement and the words alike: the certificate
    no longer re-checks."""
    from fairtheory_kernel.check import describe

    doc = copy.deepcopy(report)
    row = _row(doc)
    for st in (row["certificate"][0]["statement"], row["details"]["declared_statements"][0]):
        st["bound"]["hetero"] = str(Fraction(st["bound"]["hetero"]) / 2)
    row["proved_statement"][0] = describe(row["details"]["declared_statements"][0])
    code, out = _recheck(tmp_path, doc, capsys, "--no-falsify")
    assert code == 1 and "certificate 0 of 3 (kind 'pep-dual') fails its exact re-check" in out, out


def test_edited_words_fail(report: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = copy.deepcopy(report)
    row = _row(doc)
    row["proved_statement"][2] = row["proved_statement"][2].replace("<= 1 ||theta", "<= 1/100 ||theta")
    assert row["proved_statement"] != _row(report)["proved_statement"]
    code, out = _recheck(tmp_path, doc, capsys, "--no-falsify")
    assert code == 1 and "the printed words of statement 3 are not the words of the checked statement" in out, out


def test_a_stronger_declared_statement_fails_and_a_weaker_true_one_passes(report: dict[str, Any], tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from fairtheory_kernel.check import describe

    for factor, expect in ((Fraction(1, 2), 1), (Fraction(2), 0)):
        doc = copy.deepcopy(report)
        row = _row(doc)
        st = row["details"]["declared_statements"][1]  # its dist is the certificate's (its hetero far larger)
        st["bound"]["dist"] = str(Fraction(st["bound"]["dist"]) * factor)
        row["proved_statement"][1] = describe(st)
        code, out = _recheck(tmp_path, doc, capsys, "--no-falsify")
        assert code == expect, out
        if expect:
            assert "no certificate implies declared statement 2 of 3" in out


def test_rows_without_what_is_needed_fail(report: dict[str, Any], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    base = _row(report)
    edits = {"no declared statements": lambda r: r["details"].pop("declared_statements"),
             "no words": lambda r: r.pop("proved_statement"),
             "no certificate": lambda r: r.__setitem__("certificate", None),
             "empty certificate list": lambda r: r.__setitem__("certificate", []),
             "a certificate dropped": lambda r: r["certificate"].pop(0)}
    for what, edit in edits.items():
        row = copy.deepcopy(base)
        edit(row)
        code, out = _recheck(tmp_path, {"claims": [row]}, capsys, "--no-falsify")
        assert code == 1 and "FAIL  proofs.stepsize.points" in out, (what, out)


def test_a_verified_row_relabelled_proved_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row = {"id": "rcfl.theorem1.v002", "status": "proved", "certificate": None, "proved_statement": ["1 <= 2"],
           "details": {"declared_statements": [{"kind": "pep-dual", "statement": {}}]}}
    code, out = _recheck(tmp_path, {"claims": [row]}, capsys)
    assert code == 1 and "FAIL  rcfl.theorem1.v002: no certificate" in out


@pytest.mark.parametrize("text", ["{not json", "[]", '{"claims": 3}', "null"])
def test_unreadable_input_exits_2(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _recheck(tmp_path, text, capsys)
    assert code == 2 and "cannot read" in out
    assert proofs_main(["recheck", str(tmp_path / "missing.json")]) == 2


def test_deeply_nested_data_is_refused_not_raised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert not recheck_row([{"kind": "pep-dual", "statement": deep}], [deep], ["x"], falsify=False).ok
    fc = FreshChecker(falsify=False)
    try:
        v = fc.check([{"kind": "pep-dual", "statement": deep}], [deep], ["x"])
        assert not v.ok and "not JSON" in v.reason
    finally:
        fc.close()
    code, out = _recheck(tmp_path, "[" * 100_000 + "]" * 100_000, capsys)
    assert code == 2


def test_a_report_without_proved_rows_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _recheck(tmp_path, {"claims": [{"id": "a.b", "status": "verified"}]}, capsys)
    assert code == 0 and "the report has no proved row and no row refuted exactly" in out


def test_recheck_report_lines_name_hostile_ids_printably(report: dict[str, Any]) -> None:
    row = copy.deepcopy(_row(report))
    row["id"] = "x\nproved (other.id): 1 <= 0"
    row["proved_statement"][0] = "edited"
    (res,) = recheck_report({"claims": [row]}, falsify=False)
    assert "\n" not in res.line() and not res.verdict.ok


# ------------------------------------------------------------------------------------------------ fresh interpreter
def test_the_fresh_checker_is_another_interpreter_without_verify(report: dict[str, Any]) -> None:
    row = _row(report)
    fc = FreshChecker()
    try:
        v = fc.check(row["certificate"], row["details"]["declared_statements"], row["proved_statement"])
        assert v.ok, v.reason
        assert v.words == row["proved_statement"]
        assert fc.pid is not None and fc.pid != os.getpid()
        mods = fc.modules()
        assert "fairtheory_kernel.check" in mods
        assert not [m for m in mods if m == "verify" or m.startswith(("verify.", "fairtheory_plugin"))], mods
    finally:
        fc.close()


def test_the_fresh_checker_ignores_a_checker_patched_in_this_process(report: dict[str, Any],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Route 4 of issue 33: here ``check_proof``/``implies`` say True to anything; the fresh interpreter does not."""
    import fairtheory_kernel.check as check_mod

    row = copy.deepcopy(_row(report))
    row["certificate"][0]["statement"]["bound"]["hetero"] = "0"
    row["details"]["declared_statements"][0]["bound"]["hetero"] = "0"
    for name in ("check_proof", "check_inline", "implies"):
        monkeypatch.setattr(check_mod, name, lambda *a, **k: True)
    assert recheck_row(row["certificate"], row["details"]["declared_statements"], None, falsify=False).ok  # fooled
    fc = FreshChecker(falsify=False)
    try:
        v = fc.check(row["certificate"], row["details"]["declared_statements"], None)
    finally:
        fc.close()
    assert not v.ok and "fails its exact re-check" in v.reason


def test_a_dead_or_silent_child_fails_the_row_and_is_replaced(report: dict[str, Any]) -> None:
    import signal

    row = _row(report)
    fc = FreshChecker(falsify=False)
    try:
        assert fc.pid is not None
        os.kill(fc.pid, signal.SIGKILL)
        v = fc.check(row["certificate"], row["details"]["declared_statements"], row["proved_statement"])
        # the dead child is noticed before sending (a new one answers) or while waiting (this row fails)
        assert v.ok or "no answer" in v.reason
        assert fc.check(row["certificate"], row["details"]["declared_statements"], row["proved_statement"]).ok
        assert fc.started >= 2
        assert fc.request({"op": "modules"}, 1e-9) is None  # no answer in time: killed
        assert fc.check(row["certificate"], row["details"]["declared_statements"], row["proved_statement"]).ok
    finally:
        fc.close()


def test_no_interpreter_to_start_fails_the_row(report: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    import fairtheory.proofs.recheck as rc

    monkeypatch.setattr(rc, "_PYTHON", "/nonexistent/python")
    row = _row(report)
    fc = FreshChecker()
    v = fc.check(row["certificate"], row["details"]["declared_statements"], row["proved_statement"])
    assert not v.ok and "no answer" in v.reason
    fc.close()


def test_answers_are_bound_to_their_request() -> None:
    """An answer with another nonce (claim code writing into the pipe) is refused and the child replaced."""
    fc = FreshChecker(falsify=False)
    try:
        assert fc._proc is not None and fc._proc.stdin is not None
        fc._proc.stdin.write(b'{"op": "modules", "nonce": "forged"}\n')
        fc._proc.stdin.flush()
        assert fc.request({"op": "modules"}, 60) is None
        assert fc.modules()  # a fresh child answers again
    finally:
        fc.close()


# ------------------------------------------------------------------------------------------------ the whole suite
def _lower(cert: dict[str, Any]) -> bool:
    """Lower the bound of a PEP certificate in place to 0, a false statement (each measure here is positive on some
    instance; a smaller cut can leave a true, stronger statement that the same multipliers still prove when the
    certificate has slack, e.g. the loose 002 Thm. 1 bound); False for kinds without such a bound."""
    st = cert.get("statement", {})
    b = st.get("bound", {})
    if cert.get("kind") == "pep-dual" and b.get("form") == "constrained":
        b["value"] = "0"
    elif cert.get("kind") == "pep-dual":
        b["dist"], b["hetero"] = "0", "0"
    elif cert.get("kind") == "pep-family":
        b["value"]["num"] = ["0"]
    else:
        return False
    return True


@pytest.mark.slow
def test_the_whole_proofs_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Acceptance of issue 33: ``--only 'proofs.*'``, then the recheck exits 0; lowering the bound of any proved
    row's PEP certificate makes it exit 1 naming that row."""
    code, doc, out = _verify(tmp_path, "--only", "proofs.*")
    proved = [r for r in doc["claims"] if r["status"] == "proved"]
    assert len(proved) >= 12, out
    code, text = _recheck(tmp_path, doc, capsys)
    assert code == 0, text
    lowered = 0
    for k, row in enumerate(doc["claims"]):
        if row["status"] != "proved":
            continue
        edited = copy.deepcopy(doc)
        certs = edited["claims"][k]["certificate"]
        certs = certs if isinstance(certs, list) else [certs]
        if not any(_lower(c) for c in certs[:1]):
            continue
        code, text = _recheck(tmp_path, edited, capsys, "--no-falsify")
        assert code == 1 and f"FAIL  {row['id']}" in text and row["id"] in text.splitlines()[-1], text
        lowered += 1
    assert lowered >= 7
