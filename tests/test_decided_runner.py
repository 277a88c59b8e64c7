"""Exact refutations in the runner (``@claim(..., refutes=...)`` and ``"counterexample"`` certificates) and the report's
``decided`` section (:mod:`verify.decided`, issue 42).

The certificates are small toy statements (``x <= 1`` for every real ``x``: false at ``x = 2``; :mod:`runner_cx_toys`),
checked by the kernel itself.  Every forgery - a counterexample of a stronger statement attached to a weaker claim, one
whose assumptions make it weaker, an edited point, a certificate on a row that is not refuted - is kept as a test that
asserts it is refused."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import runner_cx_toys as toys
from runner_cx_toys import ASSUMED_GE2, ASSUMED_NONPOS, ONLY_G2, STRONG, WEAK, counterexample

import fairtheory_kernel.check as check_mod
from verify import runner
from verify.console import closing_lines, detail_lines
from verify.core import REGISTRY, ClaimResult, Context, Outcome, Tally, claim, run_claim
from verify.decided import DEFAULT_REASON, NOT_RUN, SEED_COUNT, UNDECIDED_REASONS, decide, seed_ids
from verify.readme_summary import render, render_findings
from verify.report import to_json, to_markdown

PREFIX = "test.cx."
#: the certificates: x = 2 refutes x <= 1 (margin 1); x = 1/2 refutes x <= 0 but not x <= 1
CX_WEAK = counterexample(WEAK, "atmostone", "2", "1")
CX_STRONG = counterexample(STRONG, "atmostzero", "1/2", "1/2")


class InProcessChecker:
    """The runner's fresh checker, in this process (for a test that makes it disagree)."""

    def __init__(self, **_: Any) -> None:
        pass

    def check(self, certificates: Any, declared: Any, words: Any = None) -> Any:
        from fairtheory.proofs.recheck import recheck_row

        return recheck_row(certificates, declared, words, falsify=False)

    def check_refutation(self, certificates: Any, declared: Any, words: Any = None) -> Any:
        from fairtheory.proofs.recheck import recheck_refutation

        return recheck_refutation(certificates, declared, words)

    def close(self) -> None:
        pass


@pytest.fixture
def kernel() -> None:
    """The kernel's own counterexample check (skipped where the kernel lacks the kind)."""
    if not toys.kernel_knows_counterexamples():
        pytest.skip("the kernel does not check kind 'counterexample'")


@pytest.fixture
def register():
    made: list[str] = []

    def go(name: str, outcome: Outcome, *, refutes: Any = None, proves: Any = None, expected: str = "refuted") -> str:
        cid = PREFIX + name
        REGISTRY.pop(cid, None)

        def check(ctx: Context) -> Outcome:
            return copy.deepcopy(outcome)

        check.__qualname__ = f"check_{re.sub(r'[^a-z]', '_', name)}"
        claim(cid, citation="toy, Lemma 1", statement="x <= 1 for every real x", expected=expected,
              refutes=refutes, proves=proves)(check)
        made.append(cid)
        return cid

    yield go
    for cid in made:
        REGISTRY.pop(cid, None)


def _numeric() -> Outcome:
    """A float refutation of ``x <= 1`` (the tally's counterexample x = 2)."""
    t = Tally()
    t.upper(0.5, 1.0, instance={"x": 0.5})
    t.upper(2.0, 1.0, instance={"x": 2.0})
    return t.outcome()


def _refuted(cert: Any, numeric: bool = True) -> Outcome:
    out = _numeric() if numeric else Outcome("refuted", instances=1)
    out.certificate = cert
    return out


# ------------------------------------------------------------------------------------------------ run_claim
def test_an_exact_counterexample_of_the_declared_statement_is_refuted_exactly(kernel: None, register) -> None:
    cid = register("exact", _refuted(CX_WEAK), refutes=WEAK)
    r = run_claim(cid, Context())
    assert r.status == "refuted" and r.details["refuted_exactly"] is True, r.note
    assert r.details["declared_refuted"] == [WEAK] or r.details["declared_refuted"][0]["goals"] == WEAK["goals"]
    assert r.details["refuted_statements"] == [check_mod.describe(WEAK)]
    assert r.certificate == CX_WEAK and r.as_expected


def test_refuting_the_weaker_statement_refutes_the_stronger_claim(kernel: None, register) -> None:
    """A claim declaring x <= 1 and x <= 0 is refuted by x = 2 against x <= 1 alone (STRONG implies WEAK)."""
    cid = register("stronger_claim", _refuted(CX_WEAK), refutes=STRONG)
    r = run_claim(cid, Context())
    assert r.status == "refuted" and r.details["refuted_exactly"] is True, r.note


def test_forgery_a_counterexample_of_a_stronger_statement_does_not_refute_a_weaker_claim(kernel: None, register) -> None:
    """x = 1/2 refutes 'x <= 1 and x <= 0' exactly (its goal x <= 0 fails), not 'x <= 1': refused, stays numeric."""
    assert check_mod.check_proof(CX_STRONG) is True  # the certificate itself is sound
    cid = register("forged_stronger", _refuted(CX_STRONG), refutes=WEAK)
    r = run_claim(cid, Context())
    assert r.status == "refuted" and r.details["refuted_exactly"] is False
    assert "no counterexample refutes declared statement 1 of 1" in r.details["not_exact_because"]
    assert "refuted numerically, not exactly" in r.note
    # the same with a statement that shares no goal
    cid = register("forged_other", _refuted(counterexample(ONLY_G2, "atmostzero", "1/2", "1/2")), refutes=WEAK)
    assert run_claim(cid, Context()).details["refuted_exactly"] is False


def test_assumptions_weaken_what_a_counterexample_refutes(kernel: None, register) -> None:
    """``x <= 1`` on ``2 <= x`` is false at x = 2 and refutes the claim 'x <= 1 for every x' (which implies it); a
    counterexample of 'x <= 1 for every x' does not refute 'x <= 1 for every x <= 0' (more assumptions: weaker, and
    here true) - the forgery of a range one step too wide."""
    restricted = counterexample(ASSUMED_GE2, "atmostone", "2", "1")
    assert check_mod.check_proof(restricted) is True
    cid = register("assumed_ok", _refuted(restricted), refutes=WEAK)
    r = run_claim(cid, Context())
    assert r.details["refuted_exactly"] is True, r.note
    cid = register("assumed_forged", _refuted(CX_WEAK), refutes=ASSUMED_NONPOS)
    r = run_claim(cid, Context())
    assert r.details["refuted_exactly"] is False
    assert "no counterexample refutes declared statement 1 of 1" in r.details["not_exact_because"]
    # a point outside the certificate's own assumptions is not a counterexample at all
    outside = counterexample(ASSUMED_GE2, "atmostone", "3/2", "1/2")
    assert check_mod.check_proof(outside) is False
    cid = register("assumed_outside", _refuted(outside), refutes=WEAK)
    assert "fails its exact re-check" in run_claim(cid, Context()).details["not_exact_because"]


@pytest.mark.parametrize("edit", ["point holds", "margin too large", "zero margin", "unknown goal", "point missing",
                                  "statement edited"])
def test_forgery_an_edited_counterexample_is_not_exact(kernel: None, register, edit: str) -> None:
    cert = copy.deepcopy(CX_WEAK)
    if edit == "point holds":
        cert["evidence"]["point"] = [["x", ["q", "1/2"]]]
    elif edit == "margin too large":
        cert["evidence"]["margin"] = "3/2"
    elif edit == "zero margin":
        cert["evidence"]["margin"] = "0"
    elif edit == "unknown goal":
        cert["evidence"]["goal"] = "nosuchgoal"
    elif edit == "point missing":
        cert["evidence"]["point"] = []
    else:
        cert["statement"]["goals"][0]["rhs"] = ["q", "3"]  # x <= 3: x = 2 no longer refutes it
    assert check_mod.check_proof(cert) is False
    cid = register("edited", _refuted(cert), refutes=WEAK)
    r = run_claim(cid, Context())
    assert r.status == "refuted" and r.details["refuted_exactly"] is False, edit
    assert "fails its exact re-check" in r.details["not_exact_because"]
    assert r.certificate == cert  # kept for inspection


def test_a_failing_counterexample_without_a_numeric_one_is_an_error(kernel: None, register) -> None:
    cert = copy.deepcopy(CX_WEAK)
    cert["evidence"]["point"] = [["x", ["q", "1"]]]
    cid = register("no_numbers", _refuted(cert, numeric=False), refutes=WEAK)
    r = run_claim(cid, Context())
    assert r.status == "error" and "no numeric counterexample" in r.note
    assert r.details["claimed_status"] == "refuted"


def test_without_a_declared_refuted_statement_nothing_is_exact(kernel: None, register) -> None:
    cid = register("undeclared", _refuted(CX_WEAK))
    r = run_claim(cid, Context())
    assert r.status == "refuted" and r.details["refuted_exactly"] is False
    assert "declares no refuted statement" in r.details["not_exact_because"]


def test_a_declared_refutation_without_a_certificate_says_why(kernel: None, register) -> None:
    cid = register("no_cert", _refuted(None), refutes=WEAK)
    r = run_claim(cid, Context())
    assert r.status == "refuted" and r.details["refuted_exactly"] is False
    assert "returned no 'counterexample' certificate" in r.details["not_exact_because"]
    cid = register("no_cert_no_numbers", _refuted(None, numeric=False), refutes=WEAK)
    assert run_claim(cid, Context()).status == "refuted"  # nothing was claimed exact: the refutation stands as given


def test_a_counterexample_on_a_verified_row_is_ignored_with_a_note(kernel: None, register) -> None:
    out = Outcome("verified", measured=0.5, bound=1.0, relation="<=", instances=1, certificate=CX_WEAK)
    cid = register("verified", out, refutes=WEAK, expected="verified")
    r = run_claim(cid, Context())
    assert r.status == "verified" and r.certificate is None
    assert r.details["ignored_certificates"] == [CX_WEAK] and "ignored" in r.note
    assert "refuted_exactly" not in r.details


def test_forgery_a_counterexample_cannot_prove(kernel: None, register) -> None:
    """Its statement is the declared one, but a counterexample shows it false: 'proved' is refused."""
    cid = register("proved", Outcome("proved", instances=1, certificate=CX_WEAK), proves=WEAK, expected="proved")
    r = run_claim(cid, Context())
    assert r.status == "error" and "proves nothing" in r.note
    from fairtheory.proofs.recheck import recheck_row

    v = recheck_row(CX_WEAK, [WEAK], None, falsify=False)
    assert not v.ok and "is a counterexample" in v.reason


def test_refutes_must_be_a_statement(register) -> None:
    with pytest.raises(ValueError, match="refutes must be"):
        claim(PREFIX + "bad", citation="c", statement="s", refutes="x <= 1")


# ------------------------------------------------------------------------------------------------ the runner
def _main(tmp_path: Path, *ids: str) -> tuple[int, dict[str, Any], str]:
    js, md = tmp_path / "r.json", tmp_path / "r.md"
    code = runner.main(["--only", ",".join(ids), "--json", str(js), "--markdown", str(md)])
    return code, json.loads(js.read_text()), md.read_text()


def test_the_runner_records_exact_refutations_in_its_reports(kernel: None, register, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    exact = register("run_exact", _refuted(CX_WEAK), refutes=WEAK)
    forged = register("run_forged", _refuted(CX_STRONG), refutes=WEAK)
    code, doc, md = _main(tmp_path, exact, forged)
    out = capsys.readouterr().out
    assert code == 0, out
    rows = {r["id"]: r for r in doc["claims"]}
    assert rows[exact]["details"]["refuted_exactly"] is True and "fresh_recheck_s" in rows[exact]["details"]
    assert rows[forged]["details"]["refuted_exactly"] is False and rows[forged]["status"] == "refuted"
    assert f"{exact}" in out and "refuted exactly (recorded finding)" in out
    assert "exact counterexample re-checked" in out
    assert "re-check the exact refutations: python -m fairtheory.proofs recheck" in out
    assert f"`{exact}` (plugin) | toy, Lemma 1 | refuted exactly (recorded finding)" in md
    assert f"`{forged}` (plugin) | toy, Lemma 1 | refuted (recorded finding)" in md
    assert "refuted exactly: " in md
    assert doc["decided"]["total"] == SEED_COUNT and doc["decided"]["not_run"] == SEED_COUNT
    assert "seed theory decided exactly" not in out  # no seed claim ran
    from fairtheory.proofs.recheck import recheck_report

    res = recheck_report(doc)
    assert [(r.id, r.what, r.verdict.ok) for r in res] == [(exact, "refuted exactly", True)], [r.line() for r in res]


def test_the_fresh_gate_takes_the_exactness_away_when_the_fresh_check_fails(kernel: None, register, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim process that was fooled (here: the fresh interpreter disagrees) keeps no exactness."""
    from fairtheory.proofs.recheck import Verdict

    class Disagrees(InProcessChecker):
        def check_refutation(self, *a: Any, **k: Any) -> Any:
            return Verdict(False, "disagrees")

    monkeypatch.setattr(runner, "FreshChecker", Disagrees)
    cid = register("gate", _refuted(CX_WEAK), refutes=WEAK)
    none = register("gate_none", _refuted(CX_WEAK, numeric=False), refutes=WEAK)
    code, doc, _ = _main(tmp_path, cid, none)
    rows = {r["id"]: r for r in doc["claims"]}
    assert rows[cid]["status"] == "refuted" and rows[cid]["details"]["refuted_exactly"] is False
    assert rows[cid]["details"]["not_exact_because"] == "fresh re-check failed: disagrees"
    assert rows[none]["status"] == "error" and code == 1


# ------------------------------------------------------------------------------------------------ decided
def _row(cid: str, status: str, details: dict[str, Any] | None = None, expected: str = "verified") -> ClaimResult:
    return ClaimResult(cid, "cite", "stmt", expected, status, None, None, None, None, 1, None, "", 0.1, details or {})


def test_there_are_56_seed_claims() -> None:
    ids = seed_ids()
    assert len(ids) == SEED_COUNT == 56 and len(set(ids)) == 56
    assert {i.split(".")[0] for i in ids} == {"rcfl", "relfair", "qffl", "fedfv"}
    assert set(UNDECIDED_REASONS) <= set(ids)


def test_decide_counts_proved_and_exact_refutations() -> None:
    ids = ["rcfl.a", "rcfl.b", "rcfl.c", "rcfl.d", "rcfl.e", "rcfl.f", "rcfl.g"]
    rows = [_row("rcfl.a", "proved"),
            _row("rcfl.b", "verified"), _row("proofs.rcfl.b", "proved"),
            _row("rcfl.c", "refuted", {"refuted_exactly": True}, "refuted"),
            _row("rcfl.d", "refuted", {"refuted_exactly": False, "not_exact_because": "no counterexample refutes"}),
            _row("rcfl.e", "verified"),
            _row("rcfl.f", "proved"), _row("proofs.rcfl.f", "refuted", {"refuted_exactly": True})]
    sec = decide(rows, ids)
    assert (sec["total"], sec["decided"], sec["proved"], sec["refuted_exactly"], sec["not_run"]) == (7, 3, 2, 1, 1)
    c = sec["claims"]
    assert c["rcfl.a"] == {"decided": True, "how": "proved", "by": "rcfl.a", "why": None, "status": "proved"}
    assert c["rcfl.b"]["by"] == "proofs.rcfl.b" and c["rcfl.b"]["status"] == "verified"
    assert c["rcfl.c"]["how"] == "refuted exactly"
    assert c["rcfl.d"]["why"].startswith("refuted numerically by rcfl.d, not exactly: no counterexample")
    assert c["rcfl.e"]["why"] == DEFAULT_REASON and c["rcfl.g"]["why"] == NOT_RUN
    assert not c["rcfl.f"]["decided"] and c["rcfl.f"]["why"].startswith("KERNEL BUG")
    # a refuted row without the exact flag, or with a truthy non-True one, decides nothing
    for details in ({}, {"refuted_exactly": "true"}, {"refuted_exactly": 1}):
        assert decide([_row("rcfl.a", "refuted", details)], ["rcfl.a"])["decided"] == 0


def test_reports_and_console_print_the_decided_section() -> None:
    rows = [_row("rcfl.qalpha.closed_form", "verified"), _row("proofs.rcfl.qalpha.closed_form", "proved"),
            _row("rcfl.lemma1.hcvar_conditional", "refuted", {"refuted_exactly": True}, "refuted"),
            _row("rcfl.empirical.worst_client", "verified")]
    lines = closing_lines(rows, 1.0, ["r.json", "r.md"], 100)
    assert lines[1] == "seed theory decided exactly: 2 of 56 (1 proved, 1 refuted exactly); 53 not in this run", lines
    assert lines[2:5] == ["reports written:", "  r.json", "  r.md"]
    doc = json.loads(to_json(rows, {"complete": True}))
    assert list(doc) == ["meta", "summary", "decided", "claims"]
    assert doc["decided"]["claims"]["rcfl.qalpha.closed_form"]["by"] == "proofs.rcfl.qalpha.closed_form"
    cache: dict[str, Any] = {}
    assert to_json(rows, {"complete": True}, cache) == to_json(rows, {"complete": True})
    md = to_markdown(rows, {})
    assert "## Seed theory decided exactly" in md and "seed theory decided exactly: 2 of 56" in md
    why = UNDECIDED_REASONS["rcfl.empirical.worst_client"]
    assert f"| `rcfl.empirical.worst_client` | verified | {why} |" in md
    assert "rcfl.qalpha.limits" not in md.split("## Seed theory decided exactly")[1].split("##")[0]  # not run: unlisted
    # a run without seed claims prints no decided line
    assert not any("decided exactly" in ln for ln in closing_lines([_row("peers.x", "verified")], 1.0, [], 100))
    assert "## Seed theory" not in to_markdown([_row("peers.x", "verified")], {})


def test_readme_findings_say_refuted_exactly() -> None:
    cert = copy.deepcopy(CX_WEAK)
    exact = _row("rcfl.lemma1.hcvar_conditional", "refuted", {"refuted_exactly": True}, "refuted")
    exact.certificate = cert
    exact.counterexample = {"x": 2.0, "measured": 2.0, "bound": 1.0}
    numeric = _row("fedfv.theorem1.absolute", "refuted", {"refuted_exactly": False}, "refuted")
    numeric.counterexample = {"x": 3.0, "measured": 3.0, "bound": 1.0}
    doc = json.loads(to_json([exact, numeric], {"complete": True}))
    block = render_findings(doc)
    line = next(ln for ln in block.splitlines() if "hcvar_conditional" in ln)
    assert "**refuted exactly** at `x = 2` (a `counterexample` certificate, re-checked); numerically: `x = 2`" in line
    assert "refuted exactly" not in next(ln for ln in block.splitlines() if "theorem1.absolute" in ln)
    summary = render(doc)
    assert "1 refuted exactly" in summary and "seed theory decided exactly: 1 of 56" in summary


def test_detail_lines_of_an_exact_refutation() -> None:
    r = _row("test.cx.lines", "refuted", {"refuted_exactly": True, "refuted_statements": ["for every x: x <= 1"],
                                          "certificate_recheck_s": 0.01, "fresh_recheck_s": 0.02}, "refuted")
    r.certificate = CX_WEAK
    text = " ".join(" ".join(detail_lines(r, 100)).split())
    assert "exact counterexample re-checked in 0.01 s, again in a fresh interpreter in 0.02 s" in text
    assert "the refuted statement is in the reports" in text
    assert all(not re.match(r"\s*(\(|tight=|bound=|<=|==)", ln) for w in (60, 80, 100) for ln in detail_lines(r, w))


def test_falsification_skips_statements_with_assumptions_the_falsifier_does_not_sample(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A falsifier that draws points outside a statement's assumptions would report a false kernel bug: until it says
    it honours them (``HONOURS_ASSUMPTIONS``), such statements are skipped, and say so."""
    import fairtheory.proofs.falsify as falsify_mod
    import fairtheory.proofs.falsify_symbolic as fs
    from fairtheory.proofs.recheck import _falsify_each

    st = {"symbols": [["x", "real"]], "assume": [{"rel": "<=", "lhs": ["v", "x"], "rhs": ["q", "0"]}],
          "goals": [{"name": "g", "rel": "<=", "lhs": ["v", "x"], "rhs": ["q", "1"]}]}
    cert = {"kind": "symbolic", "statement": st}
    monkeypatch.setattr(falsify_mod, "falsify_certificate", lambda c, quick=False: None)
    monkeypatch.setattr(fs, "HONOURS_ASSUMPTIONS", False, raising=False)
    (res,) = _falsify_each([cert])
    assert res.startswith("skipped: the statement has assumptions")
    monkeypatch.setattr(fs, "HONOURS_ASSUMPTIONS", True, raising=False)
    assert _falsify_each([cert]) == ["not refuted"]
    assert _falsify_each([{"kind": "symbolic", "statement": {**st, "assume": []}}]) == ["not refuted"]
