"""Falsification before ``proved`` (fairtheory/proofs/falsify.py): false PEP statements of every method are refuted
by an explicit instance, true ones are not, the instances come close to the suite's tight bounds, and a false
statement that a (fake) kernel accepted ends ``error`` naming the instance."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

import fairtheory.proofs.check as check_mod
from fairtheory.proofs.falsify import best_ratio, falsify_certificate, falsify_family, falsify_pep
from fairtheory.proofs.recheck import Verdict, recheck_row


def _st(method: dict[str, Any], bound: dict[str, Any], n: int = 1, L: str = "1", mu: str = "0") -> dict[str, Any]:
    return {"class": {"functions": "smooth-convex", "L": L, "mu": mu}, "n": n, "p": [f"1/{n}"] * n,
            "method": method, "bound": bound}


GD1 = {"name": "local_gd", "kappa": 1, "T_N": 0, "beta": "1", "schedule": "rfedfair", "output": "last"}
#: one GD step with step 1/L in the linear form: x_0 = x0, x_1 = x0 - g_0; measure f(x_1) - f*
GD1_LINEAR = {"name": "linear", "evaluations": [[0, [[0, "1"]]], [0, [[0, "1"], [1, "-1"]]]], "objective": [["1", 1]]}


def _constrained(value: Any, D0: str = "1", rho2: str = "0") -> dict[str, Any]:
    return {"form": "constrained", "D0": D0, "rho2": rho2, "value": str(value)}


@pytest.mark.parametrize("method", [GD1, GD1_LINEAR], ids=["local_gd", "linear"])
def test_gradient_descent_one_step(method: dict[str, Any]) -> None:
    """Drori & Teboulle 2014: L D0 / (4N + 2) = 1/6 is the exact worst case; the Huber grid attains it."""
    assert falsify_pep(_st(method, _constrained(Fraction(1, 6)))) is None
    best = [-1.0]
    falsify_pep(_st(method, _constrained(Fraction(1, 6))), best=best)
    assert best[0] > 1 - 1e-9
    cx = falsify_pep(_st(method, _constrained(Fraction(1, 6) * Fraction(999, 1000))))
    assert cx is not None and cx["instance"] == "huber" and float(cx["measure"]) > float(cx["bound"])


def test_strongly_convex_quadratic_is_exact() -> None:
    """mu = L/2: on f = (L/2) x^2, one step of 1/L lands on x*, on f = (mu/2) x^2 it keeps half the distance; a
    bound below the attained value is refuted in exact arithmetic."""
    st = _st(GD1, _constrained(Fraction(1, 20)), L="1", mu="1/2")
    cx = falsify_pep(st)
    assert cx is not None and cx["arithmetic"] == "exact" and Fraction(cx["measure"]) > Fraction(1, 20)


def test_scaffold() -> None:
    m = {"name": "scaffold", "kappa": 2, "R": 1, "eta_l": "1/2", "eta_g": "1", "warm_start": True, "output": "last"}
    true = _st(m, _constrained("6004805681069235269559/36028797018963968000000", rho2="0"), n=2)
    assert falsify_pep(true) is None
    false = copy.deepcopy(true)
    false["bound"]["value"] = "3/20"
    assert falsify_pep(false) is not None
    # warm control variates cancel the heterogeneity: the same bound at rho^2 <= 1 is not refuted either
    hetero = copy.deepcopy(true)
    hetero["bound"]["rho2"] = "1"
    assert falsify_pep(hetero) is None


def test_one_round_potential() -> None:
    """On f = 0 the round leaves theta in place: ||theta+ - x*||^2 = ||theta - x*||^2, so dist < 1 is false."""
    m = {"name": "local_gd_round", "kappa": 2, "beta": "1/2", "a": "1/4"}
    st = _st(m, {"form": "homogeneous", "dist": "1", "hetero": "13/4"}, n=2)
    assert falsify_pep(st) is None
    st["bound"]["dist"] = "99/100"
    cx = falsify_pep(st)
    assert cx is not None and cx["arithmetic"] == "exact"
    # client drift: two local steps on heterogeneous clients need a rho^2 term
    st["bound"] = {"form": "homogeneous", "dist": "1", "hetero": "0"}
    cx = falsify_pep(st)
    assert cx is not None and Fraction(cx["rho2"]) > 0


def test_families() -> None:
    """GD for every h in [0, 1]: L D0 / (4 h + 2) (N = 1); 0.9 times it is false at h = 0 (f = x^2/2)."""
    fam = {"class": {"functions": "smooth-convex", "mu": "0"},
           "normalisation": {"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "step*L"},
           "n": 1, "p": ["1"], "method": {"name": "gd", "N": 1}, "parameter": {"name": "h", "lo": "0", "hi": "1"},
           "bound": {"form": "constrained", "rho2": "0", "value": {"num": ["1"], "den": ["2", "4"]}}}
    assert falsify_family(fam) is None
    assert falsify_certificate({"kind": "pep-family", "statement": fam}) is None
    fam["bound"]["value"]["num"] = ["9/10"]
    cx = falsify_family(fam)
    assert cx is not None and cx["parameter"] == "0"


def test_other_kinds_are_skipped_not_passed() -> None:
    assert str(falsify_certificate({"kind": "made-up", "statement": {}})).startswith("skipped")
    assert str(falsify_certificate({"kind": "pep-dual"})).startswith("skipped")


# ------------------------------------------------------------------------------------------------ suite certificates
def _fast_certificates() -> list[dict[str, Any]]:
    """Certificates of the proof makers, fast ones: certify_exact, prove_family, and the claim checks
    proofs.stepsize.points and proofs.rcfl.theorem1.points (quick mode)."""
    from fairtheory.proofs import certify_exact, prove_family
    from verify.claims.proofs_pep import stepsize_points, theorem1_points
    from verify.core import Context

    out = [certify_exact(_st(GD1, _constrained(0)), Fraction(1, 6)).to_json(),
           prove_family("local_gd", n=2, kappa=1, T_N=1, output="002", schedule="rfedfair", rho2=0,
                        beta_L=(Fraction(0), Fraction(1, 2))).to_json()]
    for fn in (stepsize_points, theorem1_points):
        out += fn(Context(quick=True)).certificate
    return out


def test_no_certificate_the_suite_makes_is_refuted() -> None:
    certs = _fast_certificates()
    assert {c["kind"] for c in certs} == {"pep-dual", "pep-family"} and len(certs) >= 7
    for c in certs:
        assert check_mod.check_proof(c)
        assert falsify_certificate(c) is None, c["statement"]
    # the search is not vacuous: on the tight bounds it comes within rounding of the bound
    assert best_ratio(certs[0]) > 1 - 1e-9 and best_ratio(certs[1]) > 1 - 1e-9


@pytest.mark.slow
def test_no_certificate_of_any_proof_claim_is_refuted() -> None:
    """Every certificate of every proofs.* claim (quick mode), symbolic ones through falsify_symbolic."""
    from verify.claims import load_all
    from verify.core import REGISTRY, Context, run_claim

    load_all()
    seen = 0
    for cid in [i for i in REGISTRY if i.startswith("proofs.")]:
        r = run_claim(cid, Context(quick=True))
        certs = r.certificate if isinstance(r.certificate, list) else [r.certificate] if r.certificate else []
        for c in certs:
            res = falsify_certificate(c)
            assert not isinstance(res, dict), (cid, res)
            seen += 1
    assert seen >= 30


# ------------------------------------------------------------------------------------------------ kernel bug path
def _false_certificate(gd_value: Fraction) -> dict[str, Any]:
    """A genuine one-step GD certificate (1/6) relabelled with a false bound."""
    from fairtheory.proofs import certify_exact

    c = certify_exact(_st(GD1, _constrained(0)), Fraction(1, 6)).to_json()
    c["statement"]["bound"]["value"] = str(gd_value)
    return c


def test_a_false_statement_a_fake_kernel_accepted_is_a_kernel_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    cert = _false_certificate(Fraction(1, 7))
    assert not check_mod.check_proof(cert)
    monkeypatch.setattr(check_mod, "check_proof", lambda *a, **k: True)  # the "kernel" accepts it
    declared = [cert["statement"]]
    v = recheck_row(cert, declared, [check_mod.describe(declared[0])])
    assert not v.ok and v.reason.startswith("KERNEL BUG: certificate 0 re-checked but its statement is false at ")
    assert '"instance": "huber"' in v.reason and '"bound": "0.14285714285714285"' in v.reason
    assert isinstance(v.falsify[0], dict)
    # without falsification the fake kernel's word would have stood
    assert recheck_row(cert, declared, None, falsify=False).ok


def test_the_runner_ends_such_a_claim_error_naming_the_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the runner's gate: a claim whose false certificate the (fake) kernel accepted ends ``error``."""
    from verify import runner
    from verify.core import REGISTRY, Context, Outcome, claim, run_claim

    class InProcess:  # the fresh interpreter's decision, made here with the fake kernel
        def check(self, certificates: Any, declared: Any, words: Any = None) -> Verdict:
            return recheck_row(certificates, declared, words)

    cert = _false_certificate(Fraction(1, 7))
    monkeypatch.setattr(check_mod, "check_proof", lambda *a, **k: True)
    REGISTRY.pop("test.falsify.bug", None)
    claim("test.falsify.bug", citation="x", statement="one GD step <= 1/7", expected="proved",
          proves=cert["statement"])(lambda ctx: Outcome("proved", certificate=cert))
    try:
        r = run_claim("test.falsify.bug", Context())
    finally:
        REGISTRY.pop("test.falsify.bug", None)
    assert r.status == "proved"  # the fake kernel's verdict in the claim worker
    r = runner.fresh_gate(r, InProcess())  # type: ignore[arg-type]
    assert r.status == "error" and r.proved_statement is None
    assert r.note.startswith("fresh re-check failed: KERNEL BUG") and '"instance": "huber"' in r.note
    assert isinstance(r.details["falsification"][0], dict)
