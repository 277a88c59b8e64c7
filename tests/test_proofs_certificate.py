"""fairtheory.proofs.certificate / exact_linalg: exact rational PEP dual certificates and their checker."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from fairtheory.proofs.certificate import check_certificate
from fairtheory.proofs.check import check_proof
from fairtheory.proofs.exact_linalg import is_psd, ldl_pivots, solve_sparse
from fairtheory.worstcase import local_gd_worst_case, round_constant, scaffold_worst_case


@pytest.fixture(scope="module")
def acceptance() -> object:
    return local_gd_worst_case(n=2, kappa=2, T_N=2, beta=0.25, L=1, D0=1, rho2=0, output="002", certificate=True)


def test_acceptance_certificate(acceptance: object) -> None:
    wc = acceptance
    c = wc.certificate
    assert c is not None and c.check()
    assert abs(float(c.bound) - wc.value) <= 1e-6 * wc.value
    assert float(c.bound) >= wc.value - 1e-7  # an upper bound of the float worst case (up to solver accuracy)
    d = c.to_json()
    assert d["kind"] == "pep-dual" and len(d["multipliers"]) == len(d["rows"])
    assert all(isinstance(m, str) for m in d["multipliers"])
    assert check_certificate(d) and check_proof(d)
    assert check_certificate(json.loads(json.dumps(d)))


def test_changed_multipliers_fail(acceptance: object) -> None:
    """Doubling any non-zero multiplier of a row with a function value or a constant breaks (i) or (iii)
    (doubling a pure-Gram row's multiplier, e.g. rho^2 <= 0, can give another valid certificate: not tested)."""
    d = acceptance.certificate.to_json()
    tested = 0
    for k, m in enumerate(d["multipliers"]):
        row = d["rows"][k]
        if Fraction(m) == 0 or (not row["F"] and Fraction(row["c"]) == 0):
            continue
        e = copy.deepcopy(d)
        e["multipliers"][k] = str(2 * Fraction(m))
        assert not check_certificate(e), k
        tested += 1
    assert tested >= 10
    e = copy.deepcopy(d)
    e["bound"] = str(Fraction(d["bound"]) * Fraction(999_999, 1_000_000))  # a smaller stated bound
    assert not check_certificate(e)
    e = copy.deepcopy(d)
    e["objective"]["c"] = "1"  # the data changed: the recomputed bound moves
    assert not check_certificate(e)


def test_recheck_in_fresh_process(acceptance: object, tmp_path: object) -> None:
    path = tmp_path / "cert.json"  # type: ignore[operator]
    path.write_text(json.dumps(acceptance.certificate.to_json()))
    code = ("import json,sys; from fairtheory.proofs.certificate import check_certificate as c; "
            "ok = c(json.load(open(sys.argv[1]))); "
            "bad = [m for m in ('numpy', 'clarabel', 'cvxpy', 'scipy') if m in sys.modules]; "
            "print(ok, bad); sys.exit(0 if ok and not bad else 1)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "True []"


HOSTILE = [None, [], "x", 1, {}, {"kind": "pep-dual"}, {"kind": "pep-dual", "dim": True, "nf": 0, "n_eq": 0},
           {"kind": "pep-dual", "dim": 10**9, "nf": 0, "n_eq": 0, "rows": [], "multipliers": []}]


@pytest.mark.parametrize("d", HOSTILE)
def test_hostile_input_false(d: object) -> None:
    assert check_certificate(d) is False
    assert check_proof(d) is False


def _mutations(d: dict) -> list[dict]:
    out = []
    for path, val in [(("multipliers", 0), 0.5), (("multipliers", 0), "1/0"), (("multipliers", 0), "-1"),
                      (("multipliers", 0), "9" * 20000), (("scale",), "0"), (("scale",), "-1"), (("bound",), None),
                      (("dim",), -1), (("nf",), "3"), (("rows", 0, "G"), [[0, 0]]), (("rows", 0, "G"), [[5, 0, "1"]]),
                      (("rows", 0, "F"), [[10**6, "1"]]), (("rows", 0), [])]:
        e = copy.deepcopy(d)
        tgt = e
        for p in path[:-1]:
            tgt = tgt[p]
        tgt[path[-1]] = val
        out.append(e)
    e = copy.deepcopy(d)
    e["multipliers"] = e["multipliers"][:-1]
    out.append(e)
    e = copy.deepcopy(d)
    e["rows"][0]["G"] = e["rows"][0]["G"] + e["rows"][0]["G"][:1]  # duplicate entry
    out.append(e)
    return out


def test_malformed_mutations_false(acceptance: object) -> None:
    d = acceptance.certificate.to_json()
    for e in _mutations(d):
        assert check_certificate(e) is False


def test_scaffold_and_round_constant_certificates() -> None:
    s = scaffold_worst_case(kappa=2, R=2, eta_l=0.25, L=1.0, D0=1.0, rho2=1.0, certificate=True)
    assert s.certificate.check() and check_certificate(s.certificate.to_json())
    assert abs(float(s.certificate.bound) - s.value) <= 1e-6 * s.value
    r = round_constant(kappa=2, beta=1.0, a=0.5, certificate=True)
    c = r.certificate
    assert c.check() and check_certificate(c.to_json())
    assert c.bound == Fraction(7, 10)  # C(a = beta/2) at kappa = 2, beta L = 1: exactly 7/10 (tight multipliers)
    assert abs(float(c.bound) - r.C) <= 1e-5 * r.C


def test_certificate_with_heterogeneity_and_units() -> None:
    """rho2 > 0 and L != 1: the bound is in the caller's units (scale = L D0 + rho2/L)."""
    wc = local_gd_worst_case(n=2, kappa=2, T_N=1, beta=0.125, L=2.0, D0=3.0, rho2=0.5, certificate=True)
    c = wc.certificate
    assert c.check() and c.scale == Fraction(2 * 3) + Fraction(1, 4)
    assert abs(float(c.bound) - wc.value) <= 1e-6 * wc.value


def test_is_psd_matches_eigenvalues() -> None:
    rng = np.random.default_rng(0)
    for t in range(300):
        n = int(rng.integers(1, 7))
        B = rng.integers(-3, 4, size=(n, int(rng.integers(0, n + 1))))
        M = B @ B.T - (np.eye(n, dtype=np.int64) if t % 3 == 0 else 0)
        if t % 5 == 0:
            k = int(rng.integers(0, n))
            M[k, :] = 0
            M[:, k] = 0
        ent = {(a, b): Fraction(int(M[a, b]), 7) for a in range(n) for b in range(a, n) if M[a, b]}
        assert is_psd(ent, n) == bool(np.linalg.eigvalsh(M).min() > -1e-9)


def test_ldl_pivots_exact() -> None:
    ent = {(0, 0): Fraction(4), (0, 1): Fraction(2), (1, 1): Fraction(2), (2, 2): Fraction(0)}
    assert ldl_pivots(ent, 3) == [Fraction(4), Fraction(1), Fraction(0)]
    assert ldl_pivots({(0, 0): Fraction(0), (0, 1): Fraction(1)}, 2) is None  # zero pivot, non-zero column


def test_solve_sparse_dependent_and_inconsistent() -> None:
    rows = [{0: Fraction(1), 1: Fraction(1)}, {0: Fraction(2), 1: Fraction(2)}, {1: Fraction(1), 2: Fraction(1)}]
    x = solve_sparse(rows, [Fraction(1), Fraction(2), Fraction(3)], [2, 0, 1])
    assert x is not None
    for r, b in zip(rows, [1, 2, 3], strict=True):
        assert sum(v * x.get(c, 0) for c, v in r.items()) == b
    assert solve_sparse(rows, [Fraction(1), Fraction(3), Fraction(3)], [0, 1, 2]) is None


def test_rho0_formula_exact_point_and_huber_instance() -> None:
    """At kappa = T_N = 1, beta L = 1/2 the certificate's bound equals L D0/(2 + 2 beta L (kappa T_N + 2)) = 1/5
    exactly, and the 1-D Huber instance attains it exactly: the worst case is 1/5 (proved both ways)."""
    from fairtheory.proofs.certificate import certify_exact
    from verify.claims.proofs_pep import _pep_rho0, huber_instance_value, rho0_formula

    f = rho0_formula(1, 1, Fraction(1, 2))
    assert f == Fraction(1, 5)
    c = certify_exact(_pep_rho0(1, 1, Fraction(1, 2)), f)
    assert c is not None and c.check() and c.bound == f and check_certificate(c.to_json())
    assert huber_instance_value(1, 1, Fraction(1, 2)) == f
    assert certify_exact(_pep_rho0(1, 1, Fraction(1, 2)), f * Fraction(99, 100)) is None  # below the worst case
    for kappa, T_N, bL in [(2, 2, Fraction(1, 4)), (3, 2, Fraction(1, 8)), (2, 5, Fraction(3, 2))]:
        assert huber_instance_value(kappa, T_N, bL) == rho0_formula(kappa, T_N, bL)


@pytest.mark.parametrize("cid", ["proofs.localgd.rho0_formula", "proofs.stepsize.region", "proofs.rcfl.theorem1.worstcase",
                                 "proofs.scaffold.worstcase"])
def test_pep_proof_claims_quick(cid: str) -> None:
    """Each proofs.* PEP claim is proved in quick mode with certificates that re-check exactly."""
    import verify.claims.proofs_pep as mod
    from verify.core import Context

    fn = {"proofs.localgd.rho0_formula": mod.localgd_rho0_formula, "proofs.stepsize.region": mod.stepsize_region,
          "proofs.rcfl.theorem1.worstcase": mod.theorem1_proved, "proofs.scaffold.worstcase": mod.scaffold_proved}[cid]
    out = fn(Context(quick=True))
    assert out.status == "proved", out.note
    certs = out.certificate if isinstance(out.certificate, list) else [out.certificate]
    assert certs and all(check_proof(c) for c in certs)
