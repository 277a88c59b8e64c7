"""Status ``proved``: only with a certificate the runner re-checks exactly; anything else is ``error``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import fairtheory.proofs.check as check_mod
from verify import runner
from verify.claims import load_all
from verify.core import REGISTRY, STATUSES, ClaimResult, Context, Outcome, claim, combine, run_claim

FAKE = "test.proved.fake"


def _fake_check_proof(cert: Any) -> bool:
    """Stands in for the exact checkers: a certificate of kind 'test-exact' holds iff its value is 42."""
    return isinstance(cert, dict) and cert.get("kind") == "test-exact" and cert.get("value") == 42


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):
    load_all()
    monkeypatch.setattr(check_mod, "check_proof", _fake_check_proof)

    def register(outcome: Outcome, expected: str = "proved") -> None:
        REGISTRY.pop(FAKE, None)

        @claim(FAKE, citation="test [Thm. 2]", statement="a fake proved claim", expected=expected)
        def check(ctx: Context) -> Outcome:
            return outcome

    yield register
    REGISTRY.pop(FAKE, None)


def _run(tmp_path: Path) -> tuple[int, dict[str, Any], str]:
    js, md = tmp_path / "r.json", tmp_path / "r.md"
    code = runner.main(["--only", FAKE, "--json", str(js), "--markdown", str(md)])
    return code, json.loads(js.read_text())["claims"][0], md.read_text()


def test_status_order_and_expectation() -> None:
    assert STATUSES == ("proved", "verified", "refuted", "inconclusive", "skipped", "not implemented", "error")
    claim("test.proved.expect", citation="c", statement="s", expected="proved")(lambda ctx: Outcome("verified"))
    REGISTRY.pop("test.proved.expect")


def test_valid_certificate_is_proved_and_exits_0(fake, tmp_path: Path) -> None:
    cert = {"kind": "test-exact", "value": 42}
    fake(Outcome("proved", measured=1.0, bound=1.0, instances=1, certificate=cert))
    code, row, md = _run(tmp_path)
    assert code == 0
    assert row["status"] == "proved" and row["as_expected"] and row["certificate"] == cert
    assert "certificate_recheck_s" in row["details"]
    assert "certificate (test-exact, 35 B): re-checked exactly" in md


def test_tampered_certificate_is_error_and_exits_1(fake, tmp_path: Path) -> None:
    fake(Outcome("proved", instances=1, certificate={"kind": "test-exact", "value": 43}))
    code, row, _ = _run(tmp_path)
    assert code == 1
    assert row["status"] == "error" and "certificate (kind 'test-exact') failed re-check" in row["note"]
    assert row["details"]["claimed_status"] == "proved"
    assert row["certificate"] == {"kind": "test-exact", "value": 43}  # kept for inspection


def test_proved_without_certificate_is_error(fake, tmp_path: Path) -> None:
    fake(Outcome("proved", instances=1, note="trust me"))
    code, row, _ = _run(tmp_path)
    assert code == 1 and row["status"] == "error"
    assert "proved without certificate" in row["note"] and "trust me" in row["note"]


def test_every_certificate_of_a_list_must_pass(fake) -> None:
    good, bad = {"kind": "test-exact", "value": 42}, {"kind": "test-exact", "value": 0}
    fake(Outcome("proved", certificate=[good, good]))
    assert run_claim(FAKE, Context()).status == "proved"
    fake(Outcome("proved", certificate=[good, bad]))
    r = run_claim(FAKE, Context())
    assert r.status == "error" and "certificate 1 (kind 'test-exact') failed re-check" in r.note
    fake(Outcome("proved", certificate=[]))
    assert run_claim(FAKE, Context()).status == "error"
    fake(Outcome("proved", certificate="not a dict"))  # type: ignore[arg-type]
    assert run_claim(FAKE, Context()).status == "error"


def test_a_failing_certificate_on_a_verified_outcome_is_an_error(fake) -> None:
    fake(Outcome("verified", certificate={"kind": "nonsense"}), expected="verified")
    r = run_claim(FAKE, Context())
    assert r.status == "error" and "failed re-check" in r.note


def test_real_checker_rejects_unknown_kinds() -> None:
    """Without the monkeypatch, check_proof itself decides: an unknown kind never proves anything."""
    load_all()
    REGISTRY.pop(FAKE, None)
    claim(FAKE, citation="c", statement="s", expected="proved")(
        lambda ctx: Outcome("proved", certificate={"kind": "made-up", "bound": "1/2"}))
    try:
        r = run_claim(FAKE, Context())
    finally:
        REGISTRY.pop(FAKE, None)
    assert r.status == "error" and "failed re-check" in r.note


def _row(status: str, expected: str) -> ClaimResult:
    return ClaimResult("a.b", "c", "s", expected, status, None, None, None, None, 0, None, "", 0.0, {})


@pytest.mark.parametrize(("status", "expected", "ok"), [
    ("proved", "proved", True), ("proved", "verified", True),  # stronger evidence than expected
    ("verified", "proved", False),  # the proof was lost: a regression
    ("refuted", "proved", False), ("error", "proved", False), ("skipped", "proved", True),
])
def test_as_expected_with_proved(status: str, expected: str, ok: bool) -> None:
    assert _row(status, expected).as_expected is ok


def test_verified_expectation_accepts_proved_in_a_run(fake, tmp_path: Path) -> None:
    fake(Outcome("proved", certificate={"kind": "test-exact", "value": 42}), expected="verified")
    code, row, _ = _run(tmp_path)
    assert code == 0 and row["status"] == "proved" and row["expected"] == "verified" and row["as_expected"]


def test_combine_keeps_every_certificate_and_the_weakest_status() -> None:
    c1, c2 = {"kind": "k", "n": 1}, {"kind": "k", "n": 2}
    both = combine({"a": Outcome("proved", certificate=c1), "b": Outcome("proved", certificate=[c2])})
    assert both.status == "proved" and both.certificate == [c1, c2]
    mixed = combine({"a": Outcome("proved", certificate=c1), "b": Outcome("verified")})
    assert mixed.status == "verified" and mixed.certificate == [c1]


def test_only_selects_proof_claims(fake, capsys: pytest.CaptureFixture[str]) -> None:
    REGISTRY.pop("proofs.test_fake", None)
    claim("proofs.test_fake", citation="c", statement="s", expected="proved")(lambda ctx: Outcome("proved"))
    try:
        assert runner.main(["--list", "--only", "proofs.*"]) == 0
        out = capsys.readouterr().out
        ids = [line.split()[0] for line in out.splitlines() if line.strip()]
        assert "proofs.test_fake" in ids and "proved" in out
        assert ids and all(i.startswith("proofs.") for i in ids), ids
    finally:
        REGISTRY.pop("proofs.test_fake", None)


# a real "pep-dual" certificate, small enough to check by hand: Gram G = [g], one function value f,
# maximise f subject to f - g <= 0 and g - 1 <= 0.  Multipliers (1, 1): the f coefficients cancel
# (1 * 1 = 1), S = 1 * (-1) + 1 * 1 - 0 = 0 is PSD, bound = 0 - (1 * 0 + 1 * (-1)) = 1: f <= 1.
PEP_CERT = {"kind": "pep-dual", "version": 1, "dim": 1, "nf": 1, "n_eq": 0,
            "rows": [{"G": [[0, 0, "-1"]], "F": [[0, "1"]], "c": "0"}, {"G": [[0, 0, "1"]], "F": [], "c": "-1"}],
            "objective": {"G": [], "F": [[0, "1"]], "c": "0"}, "multipliers": ["1", "1"], "scale": "1", "bound": "1"}

PROOF_PLUGIN = '''
import copy

from verify import Context, Outcome, claim

CERT = {cert!r}


@claim("hand.proved", citation="by hand", statement="f <= g <= 1 gives f <= 1", expected="proved")
def proved(ctx: Context) -> Outcome:
    return Outcome("proved", measured=1.0, bound=1.0, relation="<=", certificate=CERT)


@claim("hand.tampered", citation="by hand", statement="the same with a doubled multiplier", expected="proved")
def tampered(ctx: Context) -> Outcome:
    bad = copy.deepcopy(CERT)
    bad["multipliers"][0] = "2"
    return Outcome("proved", certificate=bad)
'''


@pytest.mark.parametrize("workers", ["1", "2"])
def test_real_pep_certificate_end_to_end(tmp_path: Path, workers: str) -> None:
    assert check_mod.check_proof(PEP_CERT)
    plugin = tmp_path / "hand.py"
    plugin.write_text(PROOF_PLUGIN.format(cert=PEP_CERT))
    js = tmp_path / "r.json"
    repo = Path(__file__).resolve().parents[1]
    res = subprocess.run([sys.executable, "-m", "verify", "--plugin", str(plugin), "--only", "hand.*", "--workers", workers,
                          "--json", str(js), "--no-markdown"], cwd=repo, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=str(repo)))
    assert res.returncode == 1, res.stdout + res.stderr  # the tampered claim fails the run
    rows = {r["id"]: r for r in json.loads(js.read_text())["claims"]}
    assert rows["hand.proved"]["status"] == "proved" and rows["hand.proved"]["certificate"] == PEP_CERT
    assert rows["hand.tampered"]["status"] == "error"
    assert "certificate (kind 'pep-dual') failed re-check" in rows["hand.tampered"]["note"]
    assert "unexpected: hand.tampered (error)" in res.stdout
    (tmp_path / "only_good.py").write_text(PROOF_PLUGIN.format(cert=PEP_CERT).split("@claim(\"hand.tampered\"")[0])
    res = subprocess.run([sys.executable, "-m", "verify", "--plugin", str(tmp_path / "only_good.py"), "--only", "hand.*",
                          "--no-json", "--no-markdown"], cwd=repo, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=str(repo)))
    assert res.returncode == 0 and "1 proved" in res.stdout, res.stdout + res.stderr


def test_certificate_objects_are_sent_as_their_json(fake) -> None:
    class Cert:
        def __init__(self, value: int) -> None:
            self.value = value

        def to_json(self) -> dict[str, Any]:
            return {"kind": "test-exact", "value": self.value}

    fake(Outcome("proved", certificate=Cert(42)))
    r = run_claim(FAKE, Context())
    assert r.status == "proved" and r.certificate == {"kind": "test-exact", "value": 42}
    fake(Outcome("proved", certificate=[Cert(42), Cert(1)]))
    assert run_claim(FAKE, Context()).status == "error"
