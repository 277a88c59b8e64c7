"""Certificates shipped with the package (:mod:`fairtheory.proofs.shipped`): the quick run re-checks them instead of
searching, and nothing is proved because a file was shipped.

* every shipped certificate re-checks (:func:`fairtheory_kernel.check.check_proof`) and its statement implies a
  statement the claim asks for (a declared one, or a held-out point of the fit); every statement a claim declares in
  quick mode has a shipped certificate, so its quick run searches for none;
* forgeries: a shipped file with a lowered bound, edited multipliers, another statement, another claim's
  certificates, a wrong format, or garbage never makes a claim ``proved`` from the file (the claim searches, or is
  not proved);
* (slow) the search reproduces certificates whose statements are the shipped ones'.

The test session searches by default (``FAIRTHEORY_SHIPPED=search``, tests/conftest.py), so the other tests run the
searches; the tests here that read shipped files set ``use`` themselves.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.proofs import shipped
from fairtheory_kernel.check import check_proof, implies, statement_of
from verify.claims import load_all
from verify.claims.proofs_pep import rho0_family_statement, rho0_formula, rho0_statement
from verify.core import REGISTRY, Context, declared_statements, run_claim

CHEAP = "proofs.localgd.rho0_formula"  # two pep-family certificates in quick mode


@pytest.fixture(scope="module", autouse=True)
def _claims() -> None:
    load_all()


@pytest.fixture
def use_shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(shipped.ENV, "use")


def _copy_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the shipped folder, made the one the module reads."""
    folder = tmp_path / "shipped_certificates"
    shutil.copytree(shipped.DATA, folder)
    monkeypatch.setattr(shipped, "DATA", folder)
    return folder


def _fit_points() -> list[dict[str, Any]]:
    """The statements of the fit's held-out pep-dual certificates: each point of the fit's grid (quick) with the
    closed form's value."""
    out = []
    for b in (Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)):
        for k in (1, 2, 3):
            for T in (1, 2, 3):
                out.append(rho0_statement(k, T, b, rho0_formula(k, T, b)))
    return out


# ------------------------------------------------------------------------------------------------ the shipped files
def test_the_shipped_files_exist_for_the_hooked_claims() -> None:
    assert set(shipped.CLAIMS) <= set(shipped.shipped_ids()), (shipped.CLAIMS, shipped.shipped_ids())
    for cid in shipped.CLAIMS:
        assert cid in REGISTRY and REGISTRY[cid].expected == "proved"
        assert shipped.load(cid), cid


@pytest.mark.parametrize("cid", shipped.CLAIMS)
def test_every_shipped_certificate_rechecks_and_implies_what_the_claim_asks(cid: str) -> None:
    declared = declared_statements(REGISTRY[cid], Context(quick=True))
    asked = declared + (_fit_points() if cid == "proofs.fit.localgd_rho0" else [])
    certs = shipped.load(cid)
    assert certs
    for k, cert in enumerate(certs):
        assert check_proof(cert), (cid, k)
        st = statement_of(cert)
        assert st is not None and any(implies(st, want) for want in asked), (cid, k)
    # every declared statement is covered by a shipped certificate: the quick run searches for none of them
    for k, want in enumerate(declared):
        assert shipped.find(cid, want) is not None, (cid, k)


def test_a_shipped_certificate_does_not_prove_what_it_does_not_state() -> None:
    """The file of the two-pair claim has no certificate for a pair it does not hold, nor for a wider range."""
    assert shipped.find(CHEAP, rho0_family_statement(3, 2)) is None
    assert shipped.find(CHEAP, rho0_family_statement(1, 2, Fraction(0), Fraction(1))) is None
    assert shipped.find(CHEAP, rho0_family_statement(1, 2)) is not None
    assert shipped.find(CHEAP, rho0_family_statement(1, 2, Fraction(1, 8), Fraction(1, 4))) is not None  # a sub-range


# ------------------------------------------------------------------------------------------------ the hook
def test_quick_mode_returns_the_shipped_certificate_without_searching(use_shipped: None) -> None:
    def search() -> dict[str, Any]:
        raise AssertionError("searched although a shipped certificate matches")

    cert = shipped.shipped_or_search(CHEAP, search, declared=rho0_family_statement(2, 2), quick=True)
    assert cert is not None and cert["meta"]["origin"] == "shipped" and check_proof(cert)


def test_full_mode_and_search_mode_always_search(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def search() -> dict[str, Any]:
        calls.append(1)
        return {"kind": "searched"}

    monkeypatch.setenv(shipped.ENV, "use")
    assert shipped.shipped_or_search(CHEAP, search, declared=rho0_family_statement(2, 2), quick=False) == {"kind": "searched"}
    monkeypatch.setenv(shipped.ENV, "search")
    assert shipped.shipped_or_search(CHEAP, search, declared=rho0_family_statement(2, 2), quick=True) == {"kind": "searched"}
    assert len(calls) == 2


def test_record_mode_searches_and_records(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(shipped.ENV, f"record:{tmp_path}")
    got = shipped.shipped_or_search(CHEAP, lambda: {"kind": "x", "n": 1}, declared=rho0_family_statement(2, 2), quick=True)
    shipped.shipped_or_search(CHEAP, lambda: {"kind": "x", "n": 2}, declared=rho0_family_statement(1, 2), quick=True)
    shipped.shipped_or_search(CHEAP, lambda: None, declared=rho0_family_statement(1, 2), quick=True)
    assert got == {"kind": "x", "n": 1}
    assert json.loads((tmp_path / f"{CHEAP}.json").read_text()) == [{"kind": "x", "n": 1}, {"kind": "x", "n": 2}]


def test_a_missing_or_malformed_file_searches(use_shipped: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _copy_data(tmp_path, monkeypatch)
    want = rho0_family_statement(2, 2)
    sentinel = {"kind": "searched"}
    good = json.loads((folder / f"{CHEAP}.json").read_text())
    variants = {
        "missing": None,
        "not JSON": "{not json",
        "a list": json.dumps(good["certificates"]),
        "wrong format": json.dumps(good | {"format": "something else"}),
        "wrong version": json.dumps(good | {"version": 99}),
        "another claim's file": json.dumps(good | {"claim": "proofs.fit.localgd_rho0"}),
        "certificates not a list": json.dumps(good | {"certificates": {"0": good["certificates"][0]}}),
        "garbage certificates": json.dumps(good | {"certificates": [1, "x", None, {"kind": "pep-family"}]}),
    }
    for what, text in variants.items():
        target = folder / f"{CHEAP}.json"
        if text is None:
            target.unlink(missing_ok=True)
        else:
            target.write_text(text)
        assert shipped.shipped_or_search(CHEAP, lambda: sentinel, declared=want, quick=True) is sentinel, what


def test_bad_arguments_and_environment_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FairtheoryValueError, match="claim_id"):
        shipped.shipped_or_search("../etc/passwd", lambda: None, declared={}, quick=True)
    with pytest.raises(FairtheoryValueError, match="quick"):
        shipped.shipped_or_search(CHEAP, lambda: None, declared={}, quick=1)  # type: ignore[arg-type]
    monkeypatch.setenv(shipped.ENV, "sometimes")
    with pytest.raises(FairtheoryValueError, match=shipped.ENV):
        shipped.shipped_or_search(CHEAP, lambda: None, declared={}, quick=True)


def test_write_and_load_round_trip(tmp_path: Path) -> None:
    certs = shipped.load(CHEAP)
    marked = [dict(c, meta={**c.get("meta", {}), "origin": "shipped", "seconds": 1.5}) for c in certs]
    path = shipped.write(CHEAP, marked, tmp_path)
    back = shipped.load(CHEAP, tmp_path)
    assert path == tmp_path / f"{CHEAP}.json"
    assert [statement_of(c) for c in back] == [statement_of(c) for c in certs]
    assert all("origin" not in c["meta"] and "seconds" not in c["meta"] for c in back)
    assert shipped.check_shipped([CHEAP], tmp_path) == {CHEAP: f"{len(certs)} of {len(certs)} shipped certificates re-check"}


# ------------------------------------------------------------------------------------------------ forgeries, through the claim
def _forge(folder: Path, edit: Any) -> None:
    target = folder / f"{CHEAP}.json"
    doc = json.loads(target.read_text())
    doc["certificates"] = [edit(json.loads(json.dumps(c))) for c in doc["certificates"]]
    target.write_text(json.dumps(doc))


def _lower_bound(cert: dict[str, Any]) -> dict[str, Any]:
    """The proved bound halved (its numerator polynomial's coefficients), the multipliers kept: a stronger statement
    that still implies the declared one, and that the kernel must refuse."""
    bound = cert["statement"]["bound"]
    poly = bound["value"] if isinstance(bound.get("value"), dict) else bound  # {"value": {"num", "den"}} or {"num", "den"}
    poly["num"] = [str(Fraction(c) / 2) for c in poly["num"]]
    return cert


def _edit_multiplier(cert: dict[str, Any]) -> dict[str, Any]:
    piece = cert["evidence"]["pieces"][0]
    row, poly = piece["multipliers"][0]
    piece["multipliers"][0] = [row, [str(Fraction(c) * 2) for c in poly]]
    return cert


def _other_setting(cert: dict[str, Any]) -> dict[str, Any]:
    cert["statement"]["method"]["kappa"] = 3
    return cert


def _origins(r: Any) -> list[str | None]:
    certs = r.certificate if isinstance(r.certificate, list) else [r.certificate]
    return [(c.get("meta") or {}).get("origin") if isinstance(c, dict) else None for c in certs]


def test_the_claim_is_proved_from_the_genuine_shipped_files(use_shipped: None) -> None:
    r = run_claim(CHEAP, Context(quick=True))
    assert r.status == "proved", r.note
    assert _origins(r) == ["shipped", "shipped"]


@pytest.mark.parametrize("edit", [_lower_bound, _edit_multiplier], ids=["bound lowered", "multiplier edited"])
def test_a_forged_certificate_that_still_matches_is_never_proved(edit: Any, use_shipped: None, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The forged statement still implies the declared one, so the file is used - and the kernel refuses it."""
    folder = _copy_data(tmp_path, monkeypatch)
    _forge(folder, edit)
    forged = shipped.load(CHEAP)
    assert forged and not any(check_proof(c) for c in forged)
    assert shipped.find(CHEAP, rho0_family_statement(2, 2)) is not None  # picked: the forgery matches the statement
    r = run_claim(CHEAP, Context(quick=True))
    assert r.status != "proved", r.note


def test_a_certificate_of_another_statement_is_not_used(use_shipped: None, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Edited to another setting (kappa = 3) the file matches no declared statement: the claim searches and is proved
    by certificates it found itself."""
    folder = _copy_data(tmp_path, monkeypatch)
    _forge(folder, _other_setting)
    assert shipped.find(CHEAP, rho0_family_statement(1, 2)) is None
    assert shipped.find(CHEAP, rho0_family_statement(2, 2)) is None
    r = run_claim(CHEAP, Context(quick=True))
    assert r.status == "proved", r.note
    assert _origins(r) == [None, None]


def test_another_claims_certificates_are_not_used(use_shipped: None, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The certificates of proofs.rcfl.theorem1.every_step (another range and bound) under this claim's name prove
    nothing it declares."""
    folder = _copy_data(tmp_path, monkeypatch)
    other = shipped.load("proofs.rcfl.theorem1.every_step")
    shipped.write(CHEAP, other, folder)
    for k, T in ((1, 2), (2, 2)):
        assert shipped.find(CHEAP, rho0_family_statement(k, T)) is None


def test_forged_held_out_certificates_leave_the_fit_unproved(use_shipped: None, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """proofs.fit.localgd_rho0 with each shipped held-out ``pep-dual`` certificate's bound halved (multipliers kept; the
    statement still implies the point's): the kernel refuses them, the held-out points are not confirmed, and the
    claim is not proved although its pep-family certificates are genuine."""
    cid = "proofs.fit.localgd_rho0"
    folder = _copy_data(tmp_path, monkeypatch)
    doc = json.loads((folder / f"{cid}.json").read_text())
    for cert in doc["certificates"]:
        if cert["kind"] == "pep-dual":
            cert["statement"]["bound"]["value"] = str(Fraction(cert["statement"]["bound"]["value"]) / 2)
    (folder / f"{cid}.json").write_text(json.dumps(doc))
    duals = [c for c in shipped.load(cid) if c["kind"] == "pep-dual"]
    assert duals and not any(check_proof(c) for c in duals)
    r = run_claim(cid, Context(quick=True))
    assert r.status != "proved", r.note
    assert r.details["exact_points"] and not all(p["confirmed"] for p in r.details["exact_points"])


# ------------------------------------------------------------------------------------------------ slow: the search
@pytest.mark.slow
@pytest.mark.parametrize("cid", shipped.CLAIMS)
def test_the_search_reproduces_the_shipped_statements(cid: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The claim's quick run with every search on (``record``) ends proved, and the certificates it finds state
    exactly what the shipped ones state."""
    monkeypatch.setenv(shipped.ENV, f"record:{tmp_path}")
    r = run_claim(cid, Context(quick=True))
    assert r.status == "proved", r.note
    found = json.loads((tmp_path / f"{cid}.json").read_text())
    assert all(check_proof(c) for c in found)
    key = lambda c: json.dumps(statement_of(c), sort_keys=True)  # noqa: E731
    assert sorted(map(key, found)) == sorted(map(key, shipped.load(cid)))


def test_the_shipped_files_are_package_data() -> None:
    """pyproject.toml ships every file of the folder with the package (a wheel without them would search again)."""
    import fnmatch
    import tomllib

    conf = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    globs = conf["tool"]["setuptools"]["package-data"]["fairtheory.proofs"]
    files = [p.relative_to(shipped.DATA.parent).as_posix() for p in shipped.DATA.glob("*.json")]
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), (files, globs)


def test_the_check_command_rechecks_the_shipped_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert shipped.main(["--check"]) == 0
    out = capsys.readouterr().out
    for cid in shipped.CLAIMS:
        assert f"{cid}: " in out and "shipped certificates re-check" in out


@pytest.mark.slow
def test_regenerate_writes_nothing_for_a_claim_that_is_not_proved(tmp_path: Path) -> None:
    """The write command keeps a claim's recorded certificates only when its run ended proved."""
    res = shipped.regenerate(["proofs.fit.localgd_D0zero"], folder=tmp_path)
    assert res == {"proofs.fit.localgd_D0zero": "not written: the claim ended inconclusive"}
    assert not list(tmp_path.glob("*.json"))
