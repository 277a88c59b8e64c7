"""004 (FedFV) decided exactly: the counterexample certificates of the five refuted claims and the symbolic proofs of
eq. 7 (projection step) and eq. 21 (Theorem 4) re-check in the kernel, bind to the declared statements, agree with the
library's floats (the second route), and every forgery - an edited point, eps one step too small, a wrong m, a
changed bound, a widened range, a dropped hypothesis - is refused."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import verify.claims.decided_fedfv as D
from fairtheory.instances import fedfv as inst
from fairtheory.proofs import seed_fedfv as S
from fairtheory.proofs.recheck import recheck_refutation
from fairtheory_kernel.check import check_proof
from fairtheory_kernel.symbolic import check as check_here
from fairtheory_kernel.symbolic import check_counterexample, implies

CX = S.ALL_COUNTEREXAMPLES


def _point(cert: dict[str, Any]) -> dict[str, Fraction]:
    return {k: S.value(t, {}) for k, t in cert["evidence"]["point"]}


def _with_point(cert: dict[str, Any], **edit: Any) -> dict[str, Any]:
    """``cert`` with some point values replaced (Fractions); the margin recomputed when the goal is still violated,
    else kept (the kernel must refuse either way)."""
    c = copy.deepcopy(cert)
    c["evidence"]["point"] = [[k, ["q", str(Fraction(edit[k]))] if k in edit else t] for k, t in c["evidence"]["point"]]
    return c


# ------------------------------------------------------------------------------------------ counterexamples
@pytest.mark.parametrize("cid", sorted(CX))
def test_counterexample_rechecks_and_binds(cid: str) -> None:
    cert = CX[cid]()
    assert check_counterexample(cert) is True
    assert check_proof(cert) is True  # forked, bounded: what the runner uses
    declared = D.REFUTED[cid]()
    assert implies(declared, cert["statement"]) and implies(cert["statement"], declared)
    v = recheck_refutation(cert, [declared])
    assert v.ok, v.reason
    assert Fraction(cert["evidence"]["margin"]) > 0


@pytest.mark.parametrize("cid", sorted(CX))
def test_counterexample_margin_one_step_too_large_is_refused(cid: str) -> None:
    cert = CX[cid]()
    cert["evidence"]["margin"] = str(Fraction(cert["evidence"]["margin"]) + Fraction(1, 10 ** 6))
    assert check_counterexample(cert) is False


@pytest.mark.parametrize("cid", sorted(CX))
def test_counterexample_refutes_no_stronger_hypothesis(cid: str) -> None:
    # a declared statement with one more hypothesis (here: the first symbol's square at most 0) is weaker: the
    # counterexample's statement is not implied by it, so it refutes nothing there
    declared = D.REFUTED[cid]()
    x = declared["symbols"][0][0]
    declared["assume"] = [*declared.get("assume", []), {"rel": "<=", "lhs": ["^", ["v", x], 2], "rhs": ["q", "0"]}]
    assert not recheck_refutation(CX[cid](), [declared]).ok


def test_counterexample_for_another_theorem_is_refused() -> None:
    assert not recheck_refutation(S.theorem1_absolute_counterexample(), [D.statement_theorem2_absolute()]).ok
    assert not recheck_refutation(S.theorem3_descent_counterexample(), [D.statement_theorem3_pareto()]).ok


def test_theorem1_absolute_forgeries() -> None:
    cert = S.theorem1_absolute_counterexample()
    assert _point(cert) == {"a1": 1, "a2": 0, "b1": -1, "b2": 1, "e2": Fraction(1, 2), "s": 1}
    assert cert["evidence"]["margin"] == "1/2"
    # eps one step too small: cos^2(g_1, g_2) = 1/2 > e2
    assert check_counterexample(_with_point(cert, e2=Fraction(1, 2) - Fraction(1, 1000))) is False
    # eps above 1: outside 0 < eps <= 1
    assert check_counterexample(_with_point(cert, e2=Fraction(1001, 1000))) is False
    # the conflict slack edited: g_1 . g_2 + s != 0
    assert check_counterexample(_with_point(cert, s=2)) is False
    # the point edited so that the relation holds: antiparallel g_2 = (-1, 0) gives gbar' = 0
    assert check_counterexample(_with_point(cert, b2=0, e2=1)) is False
    # no conflict: g_2 = (1, 1) (the hypothesis fails even with a matching s)
    assert check_counterexample(_with_point(cert, b1=1)) is False
    # the bound changed: at k = 2 the bound 1/2 is not violated (margin kept)
    forged = copy.deepcopy(cert)
    goal = next(g for g in forged["statement"]["goals"] if g["name"] == "k = 2")
    goal["rhs"] = ["q", "1/2"]
    assert check_counterexample(forged) is False
    # wrong m: gbar' as the mean over 3 (a factor 1/3 for 1/2) is another statement; it binds to nothing declared
    wrong = json.loads(json.dumps(cert).replace('["q", "1/2"]', '["q", "1/3"]'))
    wrong["evidence"]["margin"] = "1/1000"
    assert wrong["statement"] != cert["statement"]
    assert not recheck_refutation(wrong, [D.statement_theorem1_absolute()]).ok


def test_theorem2_absolute_forgeries() -> None:
    cert = S.theorem2_absolute_counterexample()
    # eps2 one step too small: cos^2 = 1/2 > E2
    assert check_counterexample(_with_point(cert, E2=Fraction(1, 2) - Fraction(1, 1000))) is False
    # eps1 too large: E1 = 16/25 > cos^2 = 1/2 (r = 3/5 keeps r^2 = 1 - E1 exact)
    assert check_counterexample(_with_point(cert, E1=Fraction(16, 25), r=Fraction(3, 5))) is False
    # r not (1 - E1)^{1/2}
    assert check_counterexample(_with_point(cert, r=Fraction(3, 4) + Fraction(1, 100))) is False
    # eps1 > eps2
    assert check_counterexample(_with_point(cert, E2=Fraction(7, 16) - Fraction(1, 100))) is False


def test_last_target_forgeries() -> None:
    cert = S.last_target_counterexample()
    assert cert["evidence"]["margin"] == "1/29"
    # g_3 = (0, 1) (with n_3 = 1): g_3 . gbar' = 18/29 >= 0, the relation holds
    assert check_counterexample(_with_point(cert, c1=0, c2=1)) is False
    # n_3 not ||g_3||^2
    assert check_counterexample(_with_point(cert, n3=2)) is False
    # the kernel evaluates FedFV's max(0, .) exactly: g_2 flipped to (5, 2) gives 4/3 >= 0
    assert check_counterexample(_with_point(cert, b1=5, b2=2)) is False


def test_theorem3_descent_forgeries() -> None:
    cert = S.theorem3_descent_counterexample()
    assert cert["evidence"]["margin"] == "201/202"
    # the step end (X, Y) edited: not theta - eta gbar'
    assert check_counterexample(_with_point(cert, X=1)) is False
    # a range one step too wide: eta = 1 with L = 1 - 1/1000 violates eta <= 1/L; A_i, C_i = 1 leave [0, L]
    assert check_counterexample(_with_point(cert, L=Fraction(999, 1000))) is False
    # eta = 1/20 (a step the printed inequality survives here), step end recomputed: the relation holds
    assert check_counterexample(_with_point(cert, eta=Fraction(1, 20), X=Fraction(5, 101), Y=Fraction(111, 2020))) is False
    # H_1 not <= L I: B_1^2 = 1/100 > (L - A_1)(L - C_1) = 0
    assert check_counterexample(_with_point(cert, B1=Fraction(1, 10))) is False


def test_theorem3_pareto_forgeries() -> None:
    cert = S.theorem3_pareto_counterexample()
    pt = _point(cert)
    assert cert["evidence"]["margin"] == "1"
    # not a 2-cycle: p moved
    assert check_counterexample(_with_point(cert, X=pt["X"] + Fraction(1, 1000))) is False
    # L = 1/2 below H's largest eigenvalue (about 0.695): C_i = 1769/2925 leaves [0, L]
    assert check_counterexample(_with_point(cert, L=Fraction(1, 2))) is False
    # eta above 1/L
    assert check_counterexample(_with_point(cert, eta=Fraction(1001, 1000))) is False


def test_counterexamples_agree_with_the_library_floats() -> None:
    """The second route: the library's float results at the same instances give the exact margins."""
    A = np.array([[1.0, 0.0], [-1.0, 1.0]])
    r = inst.theorem1_conflict(grads=A, k=2, version="absolute")
    assert r.measured == pytest.approx(0.5, abs=1e-15) and r.theory == 0.0
    r2 = inst.theorem2_conflict(grads=A, k=2, version="absolute")
    assert r2.measured == pytest.approx(0.5, abs=1e-15) and r2.theory == 0.0
    lt = inst.last_target(grads=np.array([[-1.0, 1.0], [-5.0, -2.0], [1.0, 0.0]]))
    assert lt.measured == pytest.approx(-1 / 29, abs=1e-15)
    I2 = np.eye(2)
    d = inst.theorem3_descent(H1=I2, H2=I2, c1=[1.0, 0.0], c2=[-0.1, 1.0], theta=[0.0, 0.0], eta=1.0)
    assert d.measured - d.theory == pytest.approx(-201 / 202, abs=1e-12)  # decrease - claimed = -margin
    a, b, c = (float(x) for x in S.CYCLE["H"])
    H = [[a, b], [b, c]]
    kw = {"H1": H, "H2": H, "c1": [float(x) for x in S.CYCLE["c1"]], "c2": [float(x) for x in S.CYCLE["c2"]],
          "theta0": [0.0, 0.0], "eta": 1.0}
    back = inst.pareto_two_client(**kw, T=2)
    assert np.allclose(back.extra["theta_T"], [0.0, 0.0], atol=1e-12)
    assert back.measured == pytest.approx(2 / np.sqrt(13), rel=1e-12)  # rho = sqrt(Gram det / |g1 - g2|^2)
    half = inst.pareto_two_client(**kw, T=1)
    assert np.allclose(half.extra["theta_T"], [float(x) for x in S.CYCLE["p"]], atol=1e-12)
    assert back.extra["L"] <= 1.0  # eta = 1 <= 1/L
    # H = H^T with c_i = H^{-1} beta_i: the float data is the exact cycle's
    Hq = [[S.CYCLE["H"][0], S.CYCLE["H"][1]], [S.CYCLE["H"][1], S.CYCLE["H"][2]]]
    for ci, bi in (("c1", "beta1"), ("c2", "beta2")):
        assert [sum(Hq[r][k] * S.CYCLE[ci][k] for k in range(2)) for r in range(2)] == list(S.CYCLE[bi])


# ------------------------------------------------------------------------------------------------- proofs
PROOFS = {"proofs.fedfv.projection.step": (S.projection_step_certificate, D.statement_projection_step),
          "proofs.fedfv.theorem4.descent": (S.theorem4_descent_certificate, D.statement_theorem4_descent)}


@pytest.mark.parametrize("cid", sorted(PROOFS))
def test_proof_rechecks_and_binds(cid: str) -> None:
    make, declared = PROOFS[cid]
    cert = make()
    assert check_here(cert) is True
    assert check_proof(cert) is True
    assert implies(cert["statement"], declared()) and implies(declared(), cert["statement"])


def _drop_assumption(cert: dict[str, Any], k: int) -> dict[str, Any]:
    c = copy.deepcopy(cert)
    del c["statement"]["assume"][k]
    return c


def _replace(cert: dict[str, Any], old: Any, new: Any, where: str = "statement") -> dict[str, Any]:
    text = json.dumps(cert[where])
    assert json.dumps(old) in text
    c = copy.deepcopy(cert)
    c[where] = json.loads(text.replace(json.dumps(old), json.dumps(new), 1))
    return c


def test_projection_step_forgeries() -> None:
    cert = S.projection_step_certificate()
    # every assumption is needed: dropping one (indices shift, the kernel's identities fail)
    for k in range(3):
        assert check_here(_drop_assumption(cert, k)) is False
    # eq. 7 with cos instead of cos^2 (the bound changed): (1 - (g.h)/(M N)) M
    st = cert["statement"]
    rhs = st["goals"][1]["rhs"]
    forged = copy.deepcopy(cert)
    forged["statement"]["goals"][1]["rhs"] = json.loads(json.dumps(rhs).replace('2]', '1]', 1))
    assert forged["statement"] != st and check_here(forged) is False
    # c = g.h/(2N): another coefficient, the residual is not 0
    forged = _replace(cert, {"rel": "==", "lhs": ["v", "c"], "rhs": st["assume"][2]["rhs"]},
                      {"rel": "==", "lhs": ["v", "c"], "rhs": ["*", ["q", "1/2"], st["assume"][2]["rhs"]]})
    assert check_here(forged) is False


def test_theorem4_descent_forgeries() -> None:
    cert = S.theorem4_descent_certificate()
    st = cert["statement"]
    # cos(gbar, gbar') >= 1/4 instead of 1/2
    half = st["assume"][2]
    weaker = {**half, "lhs": ["/", ["*", ["v", "A"], ["v", "B"]], ["q", "4"]]}
    assert check_here(_replace(cert, half, weaker)) is False
    # eta <= 2/L: a range one step too wide (the decrease goal fails, the certificate as a whole is refused)
    assert check_here(_replace(cert, st["assume"][4], {**st["assume"][4], "rhs": ["q", "2"]})) is False
    # ||gbar'|| <= ||gbar|| dropped (and the evidence's indices kept)
    assert check_here(_drop_assumption(cert, 3)) is False
    # eq. 21 with L eta^2 instead of L eta^2/2 (the bound changed)
    from fairtheory.proofs.symbolic import E, v

    A, B, L, eta, F0 = (v(x) for x in ("A", "B", "L", "eta", "F0"))
    forged = copy.deepcopy(cert)
    forged["statement"]["goals"][0]["rhs"] = E.lift(F0 + (-eta / 2 + L * eta ** 2) * A * B)
    assert forged["statement"] != st and check_here(forged) is False


def test_proof_statements_are_true_on_samples() -> None:
    """Float samples of the proved statements (a falsifier that respects the assumptions): points drawn so that
    every equality assumption holds, every inequality assumption checked, the goals compared."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        d = int(rng.integers(1, 6))
        g, h = rng.normal(size=d), rng.normal(size=d) * np.exp(rng.normal())
        c = g @ h / (h @ h)
        gp = g - c * h
        assert abs(gp @ h) <= 1e-12 * (np.abs(g).max() * np.abs(h).max() * d + 1)
        cos2 = (g @ h) ** 2 / ((g @ g) * (h @ h))
        assert gp @ gp == pytest.approx((1 - cos2) * (g @ g), rel=1e-9, abs=1e-12)
        # Theorem 4 eq. 21 on a quadratic F = (L/2)|x|^2 whose step meets the conditions
        L = float(np.exp(rng.normal()))
        eta = float(rng.uniform(0.01, 1.0)) / L
        x = rng.normal(size=d)
        gb = L * x
        gpr = gb + 0.3 * rng.normal(size=d) * np.linalg.norm(gb) / np.sqrt(d)
        A, B = np.linalg.norm(gb), np.linalg.norm(gpr)
        if not (gb @ gpr >= A * B / 2 and B <= A):
            continue
        F0, F1 = L / 2 * x @ x, L / 2 * (x - eta * gpr) @ (x - eta * gpr)
        assert F1 <= F0 + (-eta / 2 + L * eta ** 2 / 2) * A * B + 1e-12 * (1 + abs(F0))
