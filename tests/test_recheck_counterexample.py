"""``python -m fairtheory.proofs recheck`` on rows refuted exactly (``"counterexample"`` certificates) and on the report's
``decided`` section: a forger edits a report (the counterexample's point so that the relation holds, the declared
refuted statement, the words, the exact flag, the decided section) and every edit fails naming the row.

The report is made once by the runner from two toy claims (``x <= 1`` for every real ``x``, refuted at ``x = 2``;
:mod:`runner_cx_toys`), with the kernel's own checks and the fresh interpreter."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import runner_cx_toys as toys
from runner_cx_toys import STRONG, WEAK, counterexample

from fairtheory.proofs.__main__ import main as proofs_main
from fairtheory.proofs.recheck import FreshChecker, check_decided, recheck_refutation, recheck_report

pytestmark = pytest.mark.skipif(not toys.kernel_knows_counterexamples(),
                                reason="the kernel does not check kind 'counterexample'")

EXACT = "test.recheckcx.exact"
NUMERIC = "test.recheckcx.numeric"
SEED = "rcfl.lemma1.hcvar_conditional"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The runner's report of an exact refutation and a numeric one (its certificate refutes a stronger statement)."""
    from verify import runner
    from verify.core import REGISTRY, Context, Outcome, Tally, claim

    def numeric() -> Outcome:
        t = Tally()
        t.upper(2.0, 1.0, instance={"x": 2.0})
        return t.outcome()

    def exact_check(ctx: Context) -> Outcome:
        out = numeric()
        out.certificate = counterexample(WEAK, "atmostone", "2", "1")
        return out

    def numeric_check(ctx: Context) -> Outcome:
        out = numeric()
        out.certificate = counterexample(STRONG, "atmostzero", "1/2", "1/2")
        return out

    for cid, fn in ((EXACT, exact_check), (NUMERIC, numeric_check)):
        REGISTRY.pop(cid, None)
        claim(cid, citation="toy, Lemma 1", statement="x <= 1 for every real x", expected="refuted", refutes=WEAK)(fn)
    js = tmp_path_factory.mktemp("rep") / "verify.json"
    try:
        assert runner.main(["--only", f"{EXACT},{NUMERIC}", "--json", str(js), "--no-markdown"]) == 0
    finally:
        for cid in (EXACT, NUMERIC):
            REGISTRY.pop(cid, None)
    return json.loads(js.read_text())


def _row(doc: dict[str, Any], cid: str = EXACT) -> dict[str, Any]:
    return next(r for r in doc["claims"] if r["id"] == cid)


def _recheck(tmp_path: Path, doc: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "sent.json"
    path.write_text(json.dumps(doc))
    code = proofs_main(["recheck", str(path), "--no-falsify"])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def test_the_report_carries_what_a_recheck_needs(report: dict[str, Any]) -> None:
    row = _row(report)
    assert row["status"] == "refuted" and row["details"]["refuted_exactly"] is True
    assert row["details"]["declared_refuted"] and row["details"]["refuted_statements"]
    assert row["certificate"]["kind"] == "counterexample" and row["details"]["fresh_recheck_s"] > 0
    assert _row(report, NUMERIC)["details"]["refuted_exactly"] is False


def test_recheck_of_the_report_exits_0(report: dict[str, Any], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _recheck(tmp_path, report, capsys)
    assert code == 0, out
    assert f"ok    {EXACT}: 1 statement(s) refuted exactly, re-checked" in out
    assert NUMERIC not in out  # a numeric refutation claims nothing exact: not re-checked


@pytest.mark.parametrize("edit", ["point", "margin", "goal", "statement", "kind", "no certificate"])
def test_an_edited_counterexample_fails_naming_the_row(report: dict[str, Any], tmp_path: Path, edit: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    doc = copy.deepcopy(report)
    row = _row(doc)
    cert = row["certificate"]
    if edit == "point":  # x = 1: the relation x <= 1 holds there
        cert["evidence"]["point"] = [["x", ["q", "1"]]]
    elif edit == "margin":
        cert["evidence"]["margin"] = "2"
    elif edit == "goal":
        cert["evidence"]["goal"] = "other"
    elif edit == "statement":  # x <= 3, in the certificate and the declared statement alike
        for st in (cert["statement"], row["details"]["declared_refuted"][0]):
            st["goals"][0]["rhs"] = ["q", "3"]
    elif edit == "kind":
        cert["kind"] = "symbolic"
    else:
        row["certificate"] = None
    code, out = _recheck(tmp_path, doc, capsys)
    assert code == 1 and f"FAIL  {EXACT}: " in out, (edit, out)


def test_a_weaker_declared_statement_fails(report: dict[str, Any], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The forger moves the (sound) counterexample of 'x <= 1 and x <= 0' onto the row and keeps the declared 'x <= 1'."""
    from fairtheory_kernel.check import check_proof

    doc = copy.deepcopy(report)
    row = _row(doc)
    row["certificate"] = counterexample(STRONG, "atmostzero", "1/2", "1/2")
    assert check_proof(row["certificate"]) is True
    code, out = _recheck(tmp_path, doc, capsys)
    assert code == 1 and "no counterexample refutes declared statement 1 of 1" in out, out


def test_edited_words_and_flags_fail(report: dict[str, Any], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    edits = {
        "words": lambda r: r["details"]["refuted_statements"].__setitem__(0, "for all x real: x <= 100"),
        "no words": lambda r: r["details"].pop("refuted_statements"),
        "no declared": lambda r: r["details"].pop("declared_refuted"),
        "flag on a verified row": lambda r: r.__setitem__("status", "verified"),
        "flag not a bool": lambda r: r["details"].__setitem__("refuted_exactly", "true"),
    }
    for what, edit in edits.items():
        doc = copy.deepcopy(report)
        edit(_row(doc))
        code, out = _recheck(tmp_path, doc, capsys)
        assert code == 1 and f"FAIL  {EXACT}" in out, (what, out)
    # the numeric row relabelled exact fails too: its counterexample refutes a stronger statement
    doc = copy.deepcopy(report)
    _row(doc, NUMERIC)["details"]["refuted_exactly"] = True
    _row(doc, NUMERIC)["details"]["declared_refuted"] = _row(doc)["details"]["declared_refuted"]
    _row(doc, NUMERIC)["details"]["refuted_statements"] = _row(doc)["details"]["refuted_statements"]
    code, out = _recheck(tmp_path, doc, capsys)
    assert code == 1 and f"FAIL  {NUMERIC}" in out, out


def test_a_counterexample_on_a_proved_row_fails(report: dict[str, Any]) -> None:
    row = copy.deepcopy(_row(report))
    from fairtheory_kernel.check import describe

    proved = {"id": "x.y", "status": "proved", "certificate": row["certificate"], "proved_statement": [describe(WEAK)],
              "details": {"declared_statements": [WEAK]}}
    (res,) = recheck_report({"claims": [proved]}, falsify=False)
    assert not res.verdict.ok and "is a counterexample" in res.verdict.reason


# ------------------------------------------------------------------------------------------------ decided section
def _seeded(report: dict[str, Any]) -> dict[str, Any]:
    """The report with its exact row renamed to a seed claim and the decided section made for those rows."""
    from verify.decided import decide

    doc = copy.deepcopy(report)
    _row(doc)["id"] = SEED
    doc["claims"].append({"id": "rcfl.qalpha.limits", "status": "verified", "details": {}})
    doc["decided"] = decide(doc["claims"])
    return doc


def test_the_decided_section_rechecks(report: dict[str, Any], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    doc = _seeded(report)
    assert doc["decided"]["decided"] == 1 and doc["decided"]["claims"][SEED]["how"] == "refuted exactly"
    code, out = _recheck(tmp_path, doc, capsys)
    assert code == 0, out
    assert check_decided(doc, {SEED: True}) == ""


def test_forged_decided_sections_fail(report: dict[str, Any], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    def vouch_verified(d: dict[str, Any]) -> None:
        d["decided"]["claims"]["rcfl.qalpha.limits"].update(decided=True, how="proved", by="rcfl.qalpha.limits")
        d["decided"].update(decided=2, proved=1)

    def missing_row(d: dict[str, Any]) -> None:
        d["decided"]["claims"]["rcfl.qalpha.convex"].update(decided=True, how="proved", by="proofs.rcfl.qalpha.convex")
        d["decided"].update(decided=2, proved=1)

    def other_row(d: dict[str, Any]) -> None:
        d["decided"]["claims"]["rcfl.qalpha.convex"].update(decided=True, how="refuted exactly", by=SEED)
        d["decided"].update(decided=2, refuted_exactly=2)

    edits = {
        "count raised": lambda d: d["decided"].__setitem__("decided", 30),
        "total lowered": lambda d: d["decided"].__setitem__("total", 30),
        "vouches for a verified row": vouch_verified,
        "vouches for a missing row": missing_row,
        "decided by another claim's row": other_row,
        "exact flag dropped": lambda d: _row(d, SEED)["details"].__setitem__("refuted_exactly", False),
        "point edited": lambda d: _row(d, SEED)["certificate"]["evidence"].__setitem__("point", [["x", ["q", "1"]]]),
        "not an object": lambda d: d.__setitem__("decided", []),
    }
    for what, edit in edits.items():
        doc = _seeded(report)
        edit(doc)
        code, out = _recheck(tmp_path, doc, capsys)
        assert code == 1, (what, out)
        if what != "point edited":
            assert "FAIL  (decided): the report's decided section disagrees with its rows" in out, (what, out)


# ------------------------------------------------------------------------------------------------ fresh interpreter
def test_the_fresh_checker_ignores_a_checker_patched_in_this_process(report: dict[str, Any],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import fairtheory_kernel.check as check_mod

    row = copy.deepcopy(_row(report))
    row["certificate"]["evidence"]["point"] = [["x", ["q", "1"]]]  # the relation holds at x = 1
    args = (row["certificate"], row["details"]["declared_refuted"], row["details"]["refuted_statements"])
    fc = FreshChecker(falsify=False)
    try:
        good = _row(report)
        assert fc.check_refutation(good["certificate"], good["details"]["declared_refuted"],
                                   good["details"]["refuted_statements"]).ok
        monkeypatch.setattr(check_mod, "check_proof", lambda *a, **k: True)
        assert recheck_refutation(*args).ok  # fooled in this process
        v = fc.check_refutation(*args)
    finally:
        fc.close()
    assert not v.ok and "fails its exact re-check" in v.reason


def test_the_declared_statement_in_the_kernels_counterexample_form(report: dict[str, Any]) -> None:
    """``refutes`` may be given as ``{"kind": "counterexample", "statement": S}`` ("S is false")."""
    cert = _row(report)["certificate"]
    assert recheck_refutation(cert, [{"kind": "counterexample", "statement": WEAK}]).ok
    assert recheck_refutation(cert, [{"kind": "counterexample", "statement": STRONG}]).ok
    stronger_cert = counterexample(STRONG, "atmostzero", "1/2", "1/2")
    v = recheck_refutation(stronger_cert, [{"kind": "counterexample", "statement": WEAK}])
    assert not v.ok and re.search("no counterexample refutes declared statement 1 of 1", v.reason)
