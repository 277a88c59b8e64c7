"""Forgeries against the runner (issue 33, routes 1 and 4): none ends ``proved`` in a report that re-checks.

* a plugin that replaces the checker and the kernel functions with ``lambda *a, **k: True`` in its own process (and
  the interpreter path and ``subprocess.Popen`` the runner might use to start a checker), returning a bogus
  certificate, a genuine certificate of another claim, or evidence-free data: the fresh interpreter decides;
* a plugin that tampers with the runner's own process (its gate, the fresh checker's client): the report may then
  say ``proved``, and ``python -m fairtheory.proofs recheck`` - run by the reader, in their own interpreter - names
  the row (the limit of any in-process defence, stated in docs/proofs.md);
* a proved row whose words are edited in the JSON: the recheck names it.
"""

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

REPO = Path(__file__).resolve().parents[1]


def _gd_statement(value: Any, kappa: int = 1, T_N: int = 0, n: int = 1, schedule: str = "rfedfair") -> dict[str, Any]:
    from fairtheory.proofs.certificate import statement

    return statement(method={"name": "local_gd", "kappa": kappa, "T_N": T_N, "lr": 1, "schedule": schedule,
                             "output": "last"}, n=n, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": value})


@pytest.fixture(scope="module")
def gd_cert() -> dict[str, Any]:
    from fairtheory.proofs.certificate import certify_exact

    c = certify_exact(_gd_statement(0), Fraction(1, 6))
    assert c is not None
    return c.to_json()


PATCHING_PLUGIN = '''
import copy
import subprocess
import sys

import fairtheory_kernel.check as check
import fairtheory_kernel.family as family
import fairtheory_kernel.pep as pep
import verify.validate as validate
from verify import Context, Outcome, claim

YES = lambda *a, **k: True  # noqa: E731
for module, names in ((check, ("check_proof", "check_inline", "implies", "admissible")),
                      (pep, ("check_certificate", "implies")), (family, ("check_family", "implies"))):
    for name in names:
        if hasattr(module, name):
            setattr(module, name, YES)
validate.recheck_certificates = lambda cert: (True, "")
sys.executable = "/bin/true"  # what a checker started from now on would run


class NoProcess:
    def __init__(self, *a, **k):
        raise OSError("no process for you")


subprocess.Popen = NoProcess
assert check.check_proof({{"kind": "nonsense"}})  # the in-process checker now accepts anything

CERT = {cert!r}
BOGUS = copy.deepcopy(CERT)
BOGUS["statement"]["bound"]["value"] = "1/100"  # one GD step: f(x1) - f* <= L D0 / 100 (false: 1/6 is attained)
FEDAVG = {fedavg!r}


@claim("forged.patched_checker", citation="x", statement="one GD step <= 1/100", expected="proved",
       proves=BOGUS["statement"])
def patched_checker(ctx: Context) -> Outcome:
    return Outcome("proved", certificate=BOGUS)


@claim("forged.no_evidence", citation="x", statement="one GD step <= 1/100", expected="proved",
       proves=BOGUS["statement"])
def no_evidence(ctx: Context) -> Outcome:
    return Outcome("proved", certificate={{"kind": "pep-dual", "version": 2, "statement": BOGUS["statement"],
                                          "evidence": {{"multipliers": []}}}})


@claim("forged.wrong_claim", citation="x", statement="FedAvg, two clients, two steps: <= 1/8", expected="proved",
       proves=FEDAVG)
def wrong_claim(ctx: Context) -> Outcome:
    return Outcome("proved", certificate=CERT)  # genuine, but of one GD step


@claim("forged.control", citation="Drori & Teboulle 2014", statement="one GD step <= 1/6", expected="proved",
       proves=CERT["statement"])
def control(ctx: Context) -> Outcome:
    return Outcome("proved", certificate=CERT)
'''

RUNNER_PLUGIN = '''
import copy

import fairtheory.proofs.recheck as recheck
import verify.runner as runner
from verify import Context, Outcome, claim

runner.fresh_gate = lambda r, checker: r  # the runner's own process: out of any in-process defence's reach
recheck.FreshChecker.check = lambda self, *a, **k: recheck.Verdict(True, "", ["anything"])
import fairtheory_kernel.check as check
check.check_proof = lambda *a, **k: True
check.implies = lambda *a, **k: True

CERT = {cert!r}
BOGUS = copy.deepcopy(CERT)
BOGUS["statement"]["bound"]["value"] = "1/100"


@claim("forged.runner_tampered", citation="x", statement="one GD step <= 1/100", expected="proved",
       proves=BOGUS["statement"])
def tampered(ctx: Context) -> Outcome:
    return Outcome("proved", certificate=BOGUS)
'''


def _run(tmp: Path, plugin_text: str, *extra: str) -> tuple[int, dict[str, dict[str, Any]], str, Path]:
    plugin = tmp / "plugin.py"
    plugin.write_text(plugin_text)
    js = tmp / "r.json"
    res = subprocess.run([sys.executable, "-m", "verify", "--plugin", str(plugin), "--only", "forged.*", "--json",
                          str(js), "--no-markdown", *extra], cwd=REPO, capture_output=True, text=True, timeout=900,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    rows = {r["id"]: r for r in json.loads(js.read_text())["claims"]}
    return res.returncode, rows, res.stdout + res.stderr, js


def _recheck(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = proofs_main(["recheck", str(path)])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_a_plugin_that_patches_the_checker_proves_nothing(tmp_path: Path, workers: str, gd_cert: dict[str, Any],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    fedavg = _gd_statement("1/8", kappa=2, T_N=1, n=2, schedule="fedavg")
    code, rows, out, js = _run(tmp_path, PATCHING_PLUGIN.format(cert=gd_cert, fedavg=fedavg), "--workers", workers)
    assert code == 1, out
    assert rows["forged.control"]["status"] == "proved", rows["forged.control"]["note"]
    for cid, why in (("forged.patched_checker", "certificate 0 of 1 (kind 'pep-dual') fails its exact re-check"),
                     ("forged.no_evidence", "fails its exact re-check"),
                     ("forged.wrong_claim", "no certificate implies declared statement 1 of 1")):
        row = rows[cid]
        assert row["status"] == "error" and row["details"]["claimed_status"] == "proved", (cid, row["note"])
        assert row["note"].startswith("fresh re-check failed: ") and why in row["note"], (cid, row["note"])
        assert row["proved_statement"] is None
    assert "<= 1/100 whenever" not in out  # the false statement is never printed as proved
    assert "<= 1/6 whenever" in out  # the control's is
    code, text = _recheck(js, capsys)
    assert code == 0 and "ok    forged.control" in text, text
    assert "all 1 rows re-check (1 proved, 0 refuted exactly)" in text, text


@pytest.mark.slow
def test_a_plugin_that_tampers_with_the_runner_is_caught_by_the_recheck(tmp_path: Path, gd_cert: dict[str, Any],
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """In-process tampering with the runner itself can make the report say ``proved``; the reader's recheck of
    the JSON names the row."""
    _code, rows, out, js = _run(tmp_path, RUNNER_PLUGIN.format(cert=gd_cert))
    row = rows["forged.runner_tampered"]
    if row["status"] == "proved":
        code, text = _recheck(js, capsys)
        assert code == 1 and "FAIL  forged.runner_tampered" in text, text
    else:
        assert row["status"] == "error", row


def test_edited_words_of_a_proved_row_are_caught(tmp_path: Path, gd_cert: dict[str, Any],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from fairtheory_kernel.check import describe

    declared = [gd_cert["statement"]]
    words = [describe(d) for d in declared]
    row = {"id": "hand.gd", "status": "proved", "certificate": gd_cert, "proved_statement": words,
           "details": {"declared_statements": declared}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"claims": [row]}))
    code, text = _recheck(path, capsys)
    assert code == 0, text
    for edit in (lambda w: w.replace("<= 1/6", "<= 1/100"), lambda w: w + "\nproved (other.claim): P = NP",
                 lambda w: w.replace("1-smooth", "2-smooth")):
        forged = copy.deepcopy(row)
        forged["proved_statement"] = [edit(words[0])]
        assert forged["proved_statement"] != words
        path.write_text(json.dumps({"claims": [forged]}))
        code, text = _recheck(path, capsys)
        assert code == 1 and "FAIL  hand.gd: the printed words of statement 1 are not the words of the checked" in text


def test_a_certificate_attached_to_the_wrong_claim_fails_the_recheck(tmp_path: Path, gd_cert: dict[str, Any],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A report row moved onto another claim's declared statement (and words) by editing the JSON."""
    from fairtheory_kernel.check import describe

    other = _gd_statement("1/8", kappa=2, T_N=1, n=2, schedule="fedavg")
    row = {"id": "forged.moved", "status": "proved", "certificate": gd_cert, "proved_statement": [describe(other)],
           "details": {"declared_statements": [other]}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"claims": [row]}))
    code, text = _recheck(path, capsys)
    assert code == 1 and "FAIL  forged.moved: no certificate implies declared statement 1 of 1" in text, text
