"""Held-out red team of the runner's ``proved`` gate (``python -m verify --plugin``): a plugin that does not patch
anything, only declares statements and hands over genuine certificates that do not imply them - a goal without its
``attained`` point, a symbolic goal proved for a narrower domain, a ``pep-family`` range wider than the potential
certificate covers, a certificate of another kind, a claim that reuses a built-in claim's id, a citation and prose
that read like a built-in's.  None may end ``proved``; the controls (a certificate that implies its declaration) do."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = json.loads((Path(__file__).with_name("data_redteam_kernel.json")).read_text())

PLUGIN = '''
import copy
from verify import Context, Outcome, claim

SOFT = {soft!r}
POT = {pot!r}
DUAL = {dual!r}
LR516 = {lr516!r}

# the softplus certificate proves "<= 1/(4 mu)" with equality at x = 0; declared: the same goal at x = 1
att = copy.deepcopy(SOFT["statement"])
att["goals"][0]["attained"] = [["x", ["q", "1"]]]
# declared for every real mu (the certificate: mu > 0)
wide = copy.deepcopy(SOFT["statement"])
wide["symbols"][0][1] = "real"
# a family statement over h in [1/100, 2] (the potential covers [1/100, 1])
FAM = {{"class": {{"functions": "smooth-convex", "mu": "0"}},
        "normalisation": {{"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "lr*L"}},
        "n": 1, "p": ["1"], "method": {{"name": "gd", "N": 2}}, "parameter": {{"name": "h", "lo": "1/100", "hi": "1"}},
        "bound": {{"form": "constrained", "rho2": "0", "value": {{"num": ["3"], "den": ["4", "16"]}}}}}}
FAM_WIDE = copy.deepcopy(FAM)
FAM_WIDE["parameter"]["hi"] = "2"


def _c(cid, declared, cert, text="a statement"):
    @claim(cid, citation="002 Lemma 2", statement=text, expected="proved",
           proves={{"kind": declared[0], "statement": declared[1]}})
    def run(ctx: Context) -> Outcome:
        return Outcome("proved", certificate=copy.deepcopy(cert))
    return run


_c("redteam.attained_moved", ("symbolic", att), SOFT)
_c("redteam.domain_widened", ("symbolic", wide), SOFT)
_c("redteam.family_wider_than_potential", ("pep-family", FAM_WIDE), POT)
_c("redteam.dual_for_family", ("pep-family", FAM), DUAL)
_c("redteam.potential_for_dual", ("pep-dual", DUAL["statement"]), POT)
_c("redteam.control_family", ("pep-family", FAM), POT, "GD, N = 2, every h in [1/100, 1]: <= 3/(16 h + 4)")
_c("redteam.control_symbolic", ("symbolic", SOFT["statement"]), SOFT)
# proved: 2 subgradient steps of lr 5/16 (bound 0.6076); the prose says lr 1/2 (false at that bound: 0.7225)
_c("redteam.words_lr", ("pep-dual", LR516["statement"]), LR516,
   "two subgradient steps of lr 1/2 on convex 1-Lipschitz f: f(x_2) - f* <= 0.6076")
'''

DUP_PLUGIN = '''
import copy
from verify import Context, Outcome, claim

SOFT = {soft!r}
trivial = {{"kind": "symbolic", "symbols": [["x", "real"]],
            "goals": [{{"name": "upper", "rel": "<=", "lhs": ["q", "0"], "rhs": ["^", ["v", "x"], 2]}}]}}
CERT = {{"kind": "symbolic", "version": 1, "title": "t", "citation": "c", "statement": trivial,
         "evidence": {{"lemmas": [], "proofs": [{{"name": "upper", "chain": [["q", "0"], {{"rel": "<=",
         "expr": ["^", ["v", "x"], 2], "by": "sos", "terms": [["1", [["sq", ["v", "x"]]]]]}}]}}]}}}}


@claim("proofs.rcfl.softplus.smoothness", citation="002 Sec. 4", statement=SOFT_TEXT, expected="proved",
       proves=trivial)
def hijack(ctx: Context) -> Outcome:
    return Outcome("proved", certificate=CERT)
'''


def _run(tmp: Path, text: str, only: str) -> tuple[int, dict[str, dict[str, Any]], str]:
    plugin = tmp / "plugin.py"
    plugin.write_text(text)
    js = tmp / "r.json"
    res = subprocess.run([sys.executable, "-m", "verify", "--plugin", str(plugin), "--only", only, "--json", str(js),
                          "--no-markdown"], cwd=REPO, capture_output=True, text=True, timeout=900,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    rows = {r["id"]: r for r in json.loads(js.read_text())["claims"]} if js.exists() else {}
    return res.returncode, rows, res.stdout + res.stderr


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, dict[str, Any]], str]:
    text = PLUGIN.format(soft=DATA["row_softplus"]["certificate"], pot=DATA["potential_gd"], dual=DATA["dual_local_gd"],
                       lr516=DATA["convex_lipschitz_lr5_16"])
    return _run(tmp_path_factory.mktemp("redteam_runner"), text, "redteam.*")


@pytest.mark.parametrize("cid", ["redteam.attained_moved", "redteam.domain_widened",
                                 "redteam.family_wider_than_potential", "redteam.dual_for_family",
                                 "redteam.potential_for_dual"])
def test_a_genuine_certificate_that_does_not_imply_the_declaration_is_not_proved(
        report: tuple[int, dict[str, dict[str, Any]], str], cid: str) -> None:
    code, rows, out = report
    assert cid in rows, out[-3000:]
    assert rows[cid]["status"] != "proved", rows[cid]
    assert rows[cid]["proved_statement"] is None
    assert code != 0


def test_controls_are_proved(report: tuple[int, dict[str, dict[str, Any]], str]) -> None:
    _code, rows, out = report
    for cid in ("redteam.control_family", "redteam.control_symbolic"):
        assert rows[cid]["status"] == "proved", (cid, rows[cid].get("note"), out[-2000:])


def test_a_plugin_claim_reusing_a_built_in_id_does_not_prove_under_its_name(tmp_path: Path) -> None:
    """A plugin registers ``proofs.rcfl.softplus.smoothness`` (a built-in's id, prose and citation) with a trivial
    statement ``0 <= x^2`` and its genuine certificate: the run must not print a ``proved`` row under the
    built-in's id whose checked statement is the trivial one (refused at registration, or the built-in's row)."""
    text = DUP_PLUGIN.replace("SOFT_TEXT", json.dumps(DATA["row_softplus"]["statement"])).format(
        soft=DATA["row_softplus"]["certificate"])
    code, rows, out = _run(tmp_path, text, "proofs.rcfl.softplus.smoothness")
    row = rows.get("proofs.rcfl.softplus.smoothness")
    hijacked = row is not None and row["status"] == "proved" and "0 <= x^2" in " ".join(row["proved_statement"] or [])
    assert not hijacked, (code, out[-2000:])


# H10 finding, fixed by H2 the same evening: the proved words of a 'linear' pep-dual statement omitted its step sizes
# (the row proved for lr 5/16 printed exactly the words of the false lr 1/2 statement)
def test_the_proved_words_tell_the_proved_method_from_a_false_one(
        report: tuple[int, dict[str, dict[str, Any]], str]) -> None:
    """The row is rightly ``proved`` (B is true); its printed words must not also be the words of A (lr 1/2, the same
    bound, false), which is what the claim's prose says."""
    import copy

    from fairtheory_kernel.check import describe

    _code, rows, _out = report
    row = rows["redteam.words_lr"]
    assert row["status"] == "proved", row.get("note")
    a = copy.deepcopy(DATA["convex_lipschitz_lr5_16"]["statement"])
    x1, x2 = [[0, "1"], [1, "-1/2"]], [[0, "1"], [1, "-1/2"], [2, "-1/2"]]
    a["method"]["evaluations"], a["method"]["outputs"] = [[0, [[0, "1"]]], [0, x1], [0, x2]], [["1", [x2]]]
    assert row["proved_statement"] != [describe({"kind": "pep-dual", "statement": a})]


def test_a_forged_shipped_certificate_is_handed_over_unchecked_and_refused_by_the_kernel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick run's shipped certificates (fairtheory/proofs/shipped.py) are untrusted data: a file whose first
    certificate has its bound lowered (2/7 -> 1/7) and its multipliers kept is picked (its statement implies the one
    asked for) and the kernel refuses it (the multipliers prove 2/7 only), so the claim cannot end proved with it; a
    declared statement that no shipped certificate implies makes the search run.  The package's own file (read,
    never edited) is the control."""
    import fairtheory.proofs.shipped as S
    from fairtheory_kernel.check import check_proof, implies, statement_of

    claim = "proofs.fit.localgd_rho0"
    doc = json.loads(S.path_of(claim).read_text(encoding="utf-8"))
    good = doc["certificates"][0]
    assert check_proof(good) is True
    declared = {"kind": "pep-dual", "statement": good["statement"]}
    forged = copy.deepcopy(good)
    forged["statement"]["bound"]["value"] = "1/7"
    (tmp_path / f"{claim}.json").write_text(json.dumps({**doc, "certificates": [forged, *doc["certificates"]]}))
    monkeypatch.setattr(S, "DATA", tmp_path)
    monkeypatch.delenv(S.ENV, raising=False)
    picked = S.shipped_or_search(claim, lambda: None, declared=declared, quick=True)
    assert picked is not None and picked["statement"]["bound"]["value"] == "1/7"  # picked: 1/7 implies 2/7 ...
    assert implies(statement_of(picked), declared) is True
    assert check_proof(picked) is False  # ... and refused by the kernel: the claim cannot end proved with it
    # a declared statement nothing shipped implies: the search runs (its result is what is returned)
    stronger = {"kind": "pep-dual", "statement": {**good["statement"], "bound": {**good["statement"]["bound"],
                                                                                "value": "1/100"}}}
    assert S.shipped_or_search(claim, lambda: {"searched": True}, declared=stronger, quick=True) == {"searched": True}
