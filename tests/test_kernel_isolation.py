"""The trusted kernel runs with nothing untrusted before it.

* A fresh interpreter (``python -I``) that imports the checker and re-checks real certificates (a ``"pep-dual"``
  and a ``"symbolic"`` one, read from JSON files) holds no project module outside ``fairtheory_kernel`` and none of
  numpy, sympy, scipy, cvxpy, mpmath.
* The fresh re-check worker of the runner and of ``recheck`` starts with no project module at all, and when it
  begins its first exact check it holds only the kernel (the rest of the re-check - statements, words,
  falsification - is imported after)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
PROJECT = ("fairtheory", "verify", "figures", "benchmarks", "tests")
HEAVY = ("numpy", "sympy", "scipy", "cvxpy", "mpmath", "clarabel")


def _foreign(mods: list[str]) -> list[str]:
    """Modules that must not be loaded: project modules outside the kernel, and heavy numerical libraries."""
    return sorted(m for m in mods if m.split(".")[0] in PROJECT + HEAVY)


@pytest.fixture(scope="module")
def cert_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from fairtheory.proofs.certificate import certify_exact, statement
    from fairtheory.proofs.symbolic import softplus_smoothness_certificate

    st = statement(method={"name": "local_gd", "kappa": 1, "T_N": 0, "lr": 1, "schedule": "rfedfair",
                           "output": "last"}, n=1, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": 0})
    pep = certify_exact(st, Fraction(1, 6))
    assert pep is not None
    tmp = tmp_path_factory.mktemp("certs")
    out = []
    for name, c in (("pep.json", pep.to_json()), ("symbolic.json", softplus_smoothness_certificate())):
        (tmp / name).write_text(json.dumps(c))
        out.append(tmp / name)
    return out


CODE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from fairtheory_kernel.check import check_inline, check_proof
ok = [check_inline(json.load(open(p))) for p in sys.argv[2:]]
ok.append(check_proof(json.load(open(sys.argv[2]))))
print(json.dumps({"ok": ok, "modules": sorted(sys.modules)}))
"""


def test_a_fresh_interpreter_checking_certificates_holds_only_the_kernel(cert_files: list[Path]) -> None:
    res = subprocess.run([sys.executable, "-I", "-c", CODE, str(REPO), *map(str, cert_files)], capture_output=True,
                         text=True, timeout=300, cwd="/")
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["ok"] == [True, True, True]
    mods = got["modules"]
    assert "fairtheory_kernel.check" in mods and "fairtheory_kernel.pep" in mods and "fairtheory_kernel.symbolic" in mods
    assert _foreign(mods) == [], _foreign(mods)
    assert not [m for m in mods if m.startswith("fairtheory.")]


def test_a_forged_certificate_is_refused_there_too(cert_files: list[Path], tmp_path: Path) -> None:
    """The same interpreter on an edited certificate (control of the test above: it really checks)."""
    c: dict[str, Any] = json.loads(cert_files[1].read_text())
    c["statement"]["goals"][0]["rhs"] = ["/", ["q", "1"], ["*", ["q", "8"], ["v", "mu"]]]  # 1/(8 mu): false
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(c))
    res = subprocess.run([sys.executable, "-I", "-c", CODE, str(REPO), str(bad)], capture_output=True, text=True,
                         timeout=300, cwd="/")
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["ok"] == [False, False]
    assert _foreign(got["modules"]) == []


def test_the_recheck_worker_checks_with_the_kernel_alone_first(cert_files: list[Path]) -> None:
    from fairtheory.proofs.recheck import FreshChecker
    from fairtheory_kernel.check import describe

    cert = json.loads(cert_files[1].read_text())
    fc = FreshChecker(falsify=False)
    try:
        assert _foreign(fc.modules()) == []  # started: no project module yet
        v = fc.check([cert], [cert["statement"]], [describe(cert["statement"])])
        assert v.ok, v.reason
        d = fc.request({"op": "modules"}, 60)
        assert d is not None
        first = d["at_first_check"]
        assert "fairtheory_kernel.check" in first and _foreign(first) == [], _foreign(first)
        assert "fairtheory.proofs.recheck" in d["modules"]  # the rest of the re-check came after
    finally:
        fc.close()
