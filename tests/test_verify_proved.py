"""Status ``proved``: only with a certificate the runner re-checks exactly; anything else is ``error``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import fairtheory_kernel.check as check_mod
from verify import runner
from verify.claims import load_all
from verify.core import REGISTRY, STATUSES, ClaimResult, Context, Outcome, claim, combine, run_claim

FAKE = "test.proved.fake"


def _fake_check_proof(cert: Any) -> bool:
    """Stands in for the exact checkers: a certificate of kind 'test-exact' holds iff its value is 42."""
    return isinstance(cert, dict) and cert.get("kind") == "test-exact" and cert.get("value") == 42


def _fake_statement_of(cert: Any) -> Any:
    return {"kind": "test-exact", "statement": {"value": cert.get("value")}} if isinstance(cert, dict) else None


class _InProcessChecker:
    """Stands in for the runner's fresh-interpreter checker in tests of the fake kind, which only this (patched)
    process knows; the real one is tested in tests/test_proofs_recheck.py and test_proofs_forgeries_runner.py."""

    def __init__(self, **_: Any) -> None:
        pass

    def check(self, certificates: Any, declared: Any, words: Any = None) -> Any:
        from fairtheory.proofs.recheck import Verdict

        certs = certificates if isinstance(certificates, list) else [certificates]
        ok = bool(declared) and all(check_mod.check_proof(c) for c in certs) and all(
            any(check_mod.implies(check_mod.statement_of(c), d) for c in certs) for d in declared)
        return Verdict(ok, "" if ok else "fake re-check failed", [check_mod.describe(d) for d in declared or []])

    def close(self) -> None:
        pass


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):
    """A fake certificate kind: 'test-exact' holds iff its value is 42 and proves the statement {"value": 42}."""
    load_all()
    monkeypatch.setattr(runner, "FreshChecker", _InProcessChecker)
    monkeypatch.setattr(check_mod, "check_proof", _fake_check_proof)
    monkeypatch.setattr(check_mod, "statement_of", _fake_statement_of)
    monkeypatch.setattr(check_mod, "implies", lambda a, b: a == b)
    monkeypatch.setattr(check_mod, "describe", lambda s: f"the value is {s['statement']['value']}")

    def register(outcome: Outcome, expected: str = "proved") -> None:
        REGISTRY.pop(FAKE, None)

        @claim(FAKE, citation="test [Thm. 2]", statement="a fake proved claim", expected=expected,
               proves={"kind": "test-exact", "statement": {"value": 42}})
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
    assert row["proved_statement"] == ["the value is 42"] and "proved: the value is 42" in md


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


def _gd_statement(value: Any) -> dict[str, Any]:
    """Gradient descent, one step of 1/L from ||x0 - x*||^2 <= 1 (one 1-smooth convex function): f(x1) - f* <= value
    (the exact worst case is 1/6, Drori & Teboulle 2014)."""
    from fairtheory.proofs.certificate import statement

    return statement(method={"name": "local_gd", "kappa": 1, "T_N": 0, "lr": 1, "schedule": "rfedfair", "output": "last"},
                     n=1, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": value})


@pytest.fixture(scope="module")
def gd_cert() -> dict[str, Any]:
    from fractions import Fraction

    from fairtheory.proofs.certificate import certify_exact

    c = certify_exact(_gd_statement(0), Fraction(1, 6))
    assert c is not None
    return c.to_json()


PROOF_PLUGIN = '''
import copy

from verify import Context, Outcome, claim

CERT = {cert!r}


@claim("hand.proved", citation="by hand", statement="one step of GD: f(x1) - f* <= L D0 / 6", expected="proved",
       proves=CERT["statement"])
def proved(ctx: Context) -> Outcome:
    return Outcome("proved", measured=1.0, bound=1.0, relation="<=", certificate=CERT)


@claim("hand.tampered", citation="by hand", statement="the same with a doubled multiplier", expected="proved",
       proves=CERT["statement"])
def tampered(ctx: Context) -> Outcome:
    bad = copy.deepcopy(CERT)
    bad["evidence"]["multipliers"][0][1] = "2"
    return Outcome("proved", certificate=bad)
'''


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_real_pep_certificate_end_to_end(tmp_path: Path, workers: str, gd_cert: dict[str, Any]) -> None:
    PEP_CERT = gd_cert
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
    assert "exit status 1: 1 claim did not end as expected: hand.tampered (error, expected proved)" in " ".join(
        res.stdout.split())
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


# ------------------------------------------------------------------------------- binding certificates to claims
BIND = "test.proved.bind"


def _bind_claim(outcome: Outcome, proves: Any) -> ClaimResult:
    load_all()
    REGISTRY.pop(BIND, None)
    claim(BIND, citation="by hand", statement="bound", expected="proved", proves=proves)(lambda ctx: outcome)
    try:
        return run_claim(BIND, Context())
    finally:
        REGISTRY.pop(BIND, None)


def test_a_genuine_certificate_of_its_statement_proves_it(gd_cert: dict[str, Any]) -> None:
    r = _bind_claim(Outcome("proved", certificate=gd_cert), _gd_statement("1/6"))
    assert r.status == "proved", r.note
    assert r.proved_statement and "<= 1/6" in r.proved_statement[0] and "local GD" in r.proved_statement[0]
    # a weaker declared statement is implied (1/6 <= 1/5); a declared callable of ctx works too
    assert _bind_claim(Outcome("proved", certificate=gd_cert), lambda ctx: [_gd_statement("1/5")]).status == "proved"


def test_certificate_of_another_problem_cannot_prove_a_claim(gd_cert: dict[str, Any]) -> None:
    """A plugin claim "FedAvg worst case <= 1/8" returning a genuine certificate of another PEP (one GD step,
    1/6) re-checked True under version 1; now its statement does not imply the declared one."""
    from fairtheory.proofs.certificate import statement

    fedavg = statement(method={"name": "local_gd", "kappa": 2, "T_N": 1, "lr": 1, "schedule": "fedavg", "output": "last"},
                       n=2, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": "1/8"})
    r = _bind_claim(Outcome("proved", certificate=gd_cert), fedavg)
    assert r.status == "error" and "no certificate proves the claim's declared statement" in r.note
    r = _bind_claim(Outcome("proved", certificate=gd_cert), _gd_statement("1/7"))  # stronger than proved
    assert r.status == "error" and r.proved_statement is None


def test_free_text_claims_cannot_be_proved(gd_cert: dict[str, Any]) -> None:
    """"P = NP" with a genuine certificate and no structured statement, or with an emptied certificate: error."""
    r = _bind_claim(Outcome("proved", certificate=gd_cert), None)
    assert r.status == "error" and "free-text statement cannot be proved" in r.note
    emptied = dict(gd_cert, evidence={"multipliers": []})
    r = _bind_claim(Outcome("proved", certificate=emptied), _gd_statement("1/6"))
    assert r.status == "error" and "failed re-check" in r.note
    r = _bind_claim(Outcome("proved", certificate={}), _gd_statement("1/6"))
    assert r.status == "error"


def test_relabelled_certificate_cannot_prove_the_relabelled_claim(gd_cert: dict[str, Any]) -> None:
    relabelled = json.loads(json.dumps(gd_cert))
    relabelled["statement"]["method"]["T_N"] = 1
    st = _gd_statement("1/6")
    st["method"]["T_N"] = 1
    r = _bind_claim(Outcome("proved", certificate=relabelled), st)
    assert r.status == "error" and "failed re-check" in r.note


@pytest.mark.slow
def test_real_proof_claims_quick() -> None:
    """Each built-in proofs.* PEP claim ends proved in quick mode through the runner (certificates re-checked and
    bound to the declared statements)."""
    load_all()
    for cid in ("proofs.localgd.rho0_points", "proofs.stepsize.points", "proofs.rcfl.theorem1.points",
                "proofs.scaffold.points"):
        r = run_claim(cid, Context(quick=True))
        assert r.status == "proved", (cid, r.note)
        assert r.proved_statement and len(r.proved_statement) >= 2


# ------------------------------------------------------------------------------------------------ parametric (pep-family)
@pytest.fixture(scope="module")
def family_cert() -> dict[str, Any]:
    from fractions import Fraction

    from fairtheory.proofs import prove_family

    return prove_family("local_gd", n=2, kappa=1, T_N=2, output="average", schedule="rfedfair", rho2=0,
                        h=(Fraction(0), Fraction(1, 2))).to_json()


def test_family_certificate_proves_its_range_and_subranges(family_cert: dict[str, Any]) -> None:
    from fractions import Fraction

    from verify.claims.proofs_pep import rho0_family_statement

    r = _bind_claim(Outcome("proved", certificate=family_cert), rho0_family_statement(1, 2))
    assert r.status == "proved" and "for every h in [0, 1/2]" in r.proved_statement[0]
    sub = rho0_family_statement(1, 2, Fraction(1, 8), Fraction(1, 4))
    assert _bind_claim(Outcome("proved", certificate=family_cert), sub).status == "proved"


def test_family_certificate_cannot_prove_a_wider_range_or_another_setting(family_cert: dict[str, Any]) -> None:
    from fractions import Fraction

    from verify.claims.proofs_pep import rho0_family_statement

    wider = rho0_family_statement(1, 2, Fraction(0), Fraction(1))
    assert _bind_claim(Outcome("proved", certificate=family_cert), wider).status == "error"
    other = rho0_family_statement(2, 2)
    assert _bind_claim(Outcome("proved", certificate=family_cert), other).status == "error"
    widened = json.loads(json.dumps(family_cert))
    widened["statement"]["parameter"]["hi"] = "1"
    assert _bind_claim(Outcome("proved", certificate=widened), wider).status == "error"


def test_parametric_claim_quick() -> None:
    load_all()
    r = run_claim("proofs.localgd.rho0_formula", Context(quick=True))
    assert r.status == "proved", r.note
    assert len(r.proved_statement) == 2 and all("for every h in [0, 1/2]" in s for s in r.proved_statement)


@pytest.mark.slow
def test_theorem1_every_step_quick() -> None:
    """002 / 000 Thm. 1 (optimisation part, rho = 0) proved on the whole admissible range at the quick settings, and
    a certificate of the 002 setting cannot prove the 000 statement."""
    from verify.claims.proofs_pep import theorem1_family_statement

    load_all()
    r = run_claim("proofs.rcfl.theorem1.every_step", Context(quick=True))
    assert r.status == "proved", r.note
    assert all("for every h in [1/1048576, 1/40]" in s for s in r.proved_statement)
    certs = r.certificate if isinstance(r.certificate, list) else [r.certificate]
    cert_002 = next(c for c in certs if c["statement"]["method"]["output"] == "average")
    assert _bind_claim(Outcome("proved", certificate=cert_002), theorem1_family_statement("002", 2, 2)).status == "proved"
    assert _bind_claim(Outcome("proved", certificate=cert_002), theorem1_family_statement("000", 2, 2)).status == "error"
