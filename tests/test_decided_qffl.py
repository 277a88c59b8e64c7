"""The decided q-FFL claims (verify/claims/decided_qffl.py, fairtheory/proofs/seed_qffl.py): every certificate re-checks
and proves its claim's declared statement; forged statements (bound changed, range one step too wide, wrong n or
normalisation, hypothesis dropped) are refused; the declared statements hold on float instances with exact minimisers
(the second route)."""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from fairtheory.proofs import seed_qffl as S
from fairtheory.proofs.symbolic import IDX, E, at, q, rpow, sm, v
from fairtheory_kernel.check import check_proof
from fairtheory_kernel.symbolic import implies
from verify.claims import decided_qffl as D
from verify.core import Context

#: certificate maker -> (claim id, position of its statement among the claim's declared statements)
PAIRS = {"reduction": ("proofs.qffl.qfedavg.reduction", 0), "limits_q0": ("proofs.qffl.limits.sandwich", 0),
         "limits_sandwich": ("proofs.qffl.limits.sandwich", 1),
         "limits_epsilon": ("proofs.qffl.limits.sandwich", 2), "lemma6": ("proofs.qffl.lemma6.variance", 0),
         "lemma7": ("proofs.qffl.lemma7.angle", 0), "lemma7_angle": ("proofs.qffl.lemma7.angle", 1),
         "holder": ("proofs.qffl.lemma10.holder_positive", 0), "holder_q0": ("proofs.qffl.lemma10.holder_positive", 1),
         "dual_norm": ("proofs.qffl.lemma10.holder_positive", 2), "lemma8": ("proofs.qffl.lemma8.entropy_sign", 0),
         "lemma8_chain_rule": ("proofs.qffl.lemma8.entropy_sign", 1)}


def _declared(claim_id: str) -> list[dict[str, Any]]:
    st = D.DECLARED[claim_id]()
    return st if isinstance(st, list) else [st]


@pytest.mark.parametrize("name", sorted(S.ALL_CERTIFICATES))
def test_every_certificate_rechecks(name: str) -> None:
    assert check_proof(S.ALL_CERTIFICATES[name]()) is True


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_certificate_proves_the_declared_statement(name: str) -> None:
    claim_id, k = PAIRS[name]
    assert implies(S.ALL_CERTIFICATES[name]()["statement"], _declared(claim_id)[k]) is True


def test_every_declared_statement_has_its_certificate() -> None:
    assert {c for c, _ in PAIRS.values()} == set(D.DECLARED)
    for claim_id in D.DECLARED:
        assert sorted(k for c, k in PAIRS.values() if c == claim_id) == list(range(len(_declared(claim_id))))


# ---------------------------------------------------------------------------------------------- forgeries
def _forge(name: str, edit: Any) -> dict[str, Any]:
    cert = copy.deepcopy(S.ALL_CERTIFICATES[name]())
    edit(cert["statement"])
    return cert


def _goal(st: dict[str, Any]) -> dict[str, Any]:
    return st["goals"][0]


def _set_kind(sym: str, *decl: Any) -> Any:
    def edit(st: dict[str, Any]) -> None:
        for j, d in enumerate(st["symbols"]):
            if d[0] == sym:
                st["symbols"][j] = [sym, *[E.lift(x) if isinstance(x, E) else x for x in decl]]
    return edit


def _drop_assumption(k: int) -> Any:
    def edit(st: dict[str, Any]) -> None:
        del st["assume"][k]
    return edit


def _scale_rhs(goal_factor: Fraction) -> Any:
    def edit(st: dict[str, Any]) -> None:
        _goal(st)["rhs"] = ["*", ["q", str(goal_factor)], _goal(st)["rhs"]]
    return edit


def _assumption_rhs(k: int, rhs: Any) -> Any:
    def edit(st: dict[str, Any]) -> None:
        st["assume"][k]["rhs"] = E.lift(rhs)
    return edit


def _replace(old: Any, new: Any) -> Any:
    """Every occurrence of the subterm ``old`` in the statement's goals and assumptions replaced by ``new``."""
    def sub(t: Any) -> Any:
        if t == old:
            return copy.deepcopy(new)
        return [sub(x) if isinstance(x, list) else x for x in t] if isinstance(t, list) else t

    def edit(st: dict[str, Any]) -> None:
        for part in (*st["goals"], *st.get("assume", [])):
            part["lhs"], part["rhs"] = sub(part["lhs"]), sub(part["rhs"])
    return edit


HALF = Fraction(1, 2)
FORGERIES = {
    # Alg. 1
    "reduction: FedSGD step halved (bound changed)": ("reduction", _scale_rhs(HALF)),
    "reduction: q = 1 instead of 0": ("reduction", _replace(["q", "0"], ["q", "1"])),
    "reduction: L real (range too wide)": ("reduction", _set_kind("L", "real")),
    "reduction: losses real (hypothesis F_k > 0 dropped)": ("reduction", _set_kind("F", "family_real")),
    "reduction: mean over n instead of sum p (wrong normalisation)":
        ("reduction", lambda st: _goal(st).__setitem__("rhs", E.lift(
            v("w") - (1 / v("L")) * (sm(at("p", IDX) * at("g", IDX), 1, v("n")) / v("n"))))),
    # Sec. 3.2
    "limits q0: f_0 = 2 sum p F": ("limits_q0", _scale_rhs(Fraction(2))),
    "limits: weights sum to 2": ("limits_sandwich", _assumption_rhs(0, q(2))),
    "limits: c_i up to 2 C (range too wide)": ("limits_sandwich", _set_kind("c", "family_bounded",
                                                                            v("C") / (1 + v("s")), 2 * v("C"))),
    "limits: optimality of w*_q dropped": ("limits_sandwich", _drop_assumption(1)),
    "limits: client 2 left out of f_q (wrong n)": ("limits_sandwich", _replace(["q", "2"], ["q", "3"])),
    "limits: bound halved": ("limits_sandwich", _scale_rhs(HALF)),
    "limits eps: threshold on q dropped": ("limits_epsilon", _drop_assumption(2)),
    "limits eps: (1 + eps/2) AFL*": ("limits_epsilon", lambda st: _goal(st).__setitem__(
        "rhs", E.lift((1 + v("eps") / 2) * v("C")))),
    "limits eps: c_i up to 2 C": ("limits_epsilon", _set_kind("c", "family_bounded", v("C") / (1 + v("s")), 2 * v("C"))),
    # Lemma 6
    "lemma6: optimality of w*_0 dropped": ("lemma6", _drop_assumption(1)),
    "lemma6: optimality of w*_1 dropped": ("lemma6", _drop_assumption(0)),
    "lemma6: losses real (range too wide)": ("lemma6", lambda st: (_set_kind("a", "family_real")(st),
                                                                    _set_kind("b", "family_real")(st))),
    "lemma6: Var F(w*_0) halved": ("lemma6", _scale_rhs(HALF)),
    "lemma6: Var F(w*_0) over n + 1 clients (wrong n)": ("lemma6", lambda st: _goal(st).__setitem__("rhs", E.lift(
        sm(at("b", IDX) ** 2, 1, v("n")) / (v("n") + 1) - (sm(at("b", IDX), 1, v("n")) / (v("n") + 1)) ** 2))),
    # Lemma 7
    "lemma7: optimality of w*_1 dropped": ("lemma7", _drop_assumption(0)),
    "lemma7: losses real": ("lemma7", lambda st: (_set_kind("a", "family_real")(st), _set_kind("b", "family_real")(st))),
    "lemma7 literal: optimality of w*_0 dropped": ("lemma7_angle", _drop_assumption(1)),
    "lemma7 literal: bound times 1/2": ("lemma7_angle", _scale_rhs(HALF)),
    # Lemma 10
    "young: p = 2(q+1)/q (not the conjugate)": ("young", _assumption_rhs(0, 2 * (v("q") + 1) / v("q"))),
    "holder: p = 2(q+1)/q (not the conjugate)": ("holder", _assumption_rhs(0, 2 * (v("q") + 1) / v("q"))),
    "holder: bound halved": ("holder", _scale_rhs(HALF)),
    "holder: U not the p-norm": ("holder", lambda st: (_drop_assumption(3)(st), _drop_assumption(1)(st))),
    "holder q = 0: lam up to M + 1 (range one step too wide)": ("holder_q0", _set_kind("lam", "family_bounded", q(0),
                                                                                     v("M") + 1)),
    "holder q = 0: F real": ("holder_q0", _set_kind("F", "family_real")),
    "dual norm: V = ||F||_(q+1) doubled": ("dual_norm", lambda st: (
        _assumption_rhs(0, 2 * E(st["assume"][0]["rhs"]))(st),
        _assumption_rhs(1, rpow(q(2), v("q") + 1) * E(st["assume"][1]["rhs"]))(st))),
    # Lemma 8
    "lemma8: implicit-function identity dropped": ("lemma8", _drop_assumption(1)),
    "lemma8: stationarity dropped": ("lemma8", _drop_assumption(0)),
    "lemma8: Hessian form Q real (PSD hypothesis dropped)": ("lemma8", _set_kind("Q", "real")),
    "lemma8: q real (range too wide)": ("lemma8", _set_kind("q", "real")),
    "lemma8 chain rule: rhs doubled": ("lemma8_chain_rule", _scale_rhs(Fraction(2))),
}


@pytest.mark.parametrize("what", sorted(FORGERIES))
def test_forged_statements_are_refused(what: str) -> None:
    name, edit = FORGERIES[what]
    forged = _forge(name, edit)
    assert forged["statement"] != S.ALL_CERTIFICATES[name]()["statement"]
    assert check_proof(forged) is False


def test_a_certificate_of_a_narrower_statement_does_not_prove_the_declared_one() -> None:
    # a_k > 0 instead of a_k >= 0: the evidence still re-checks, but the claim's declared statement is not implied
    forged = _forge("lemma6", _set_kind("a", "family_positive"))
    assert check_proof(forged) is True
    assert not implies(forged["statement"], D.statement_lemma6())


# ---------------------------------------------------------------------------------------------- second route
def _ev(t: Any, env: dict[str, Any], b: int | None = None) -> float:
    h, a = t[0], t[1:]
    if h == "q":
        return float(Fraction(a[0]))
    if h == "v":
        return env[a[0]]
    if h == "b":
        return float(b)
    if h == "+":
        return sum(_ev(x, env, b) for x in a)
    if h == "*":
        return math.prod(_ev(x, env, b) for x in a)
    if h == "/":
        return _ev(a[0], env, b) / _ev(a[1], env, b)
    if h == "^":
        return _ev(a[0], env, b) ** a[1]
    if h == "log":
        return math.log(_ev(a[0], env, b))
    if h == "rpow":
        return _ev(a[0], env, b) ** _ev(a[1], env, b)
    if h == "sum":
        return sum(_ev(a[0], env, i) for i in range(round(_ev(a[1], env, b)), round(_ev(a[2], env, b)) + 1))
    if h == "at":
        return env[a[0]][round(_ev(a[1], env, b)) - 1]
    raise AssertionError(h)


def _holds(st: dict[str, Any], env: dict[str, Any], tol: float) -> list[tuple[float, float]]:
    """Asserts every assumption at ``env`` (to ``tol``, relative); returns the goals' ``(lhs, rhs)``."""
    for a in st.get("assume", []):
        lhs, rhs = _ev(a["lhs"], env), _ev(a["rhs"], env)
        assert (lhs <= rhs + tol * max(1.0, abs(rhs))) if a["rel"] == "<=" else abs(lhs - rhs) <= tol * max(1.0, abs(rhs))
    return [(_ev(g["lhs"], env), _ev(g["rhs"], env)) for g in st["goals"]]


def test_lemmas_6_7_and_the_sandwich_hold_at_exact_minimisers() -> None:
    import cvxpy as cp

    from fairtheory.exact.qffl import solve_qffl
    from fairtheory.instances import qffl as inst

    rng = np.random.default_rng(11)
    for _ in range(4):
        P = inst.random_convex_instance(rng, 5, 3)
        r6 = inst.lemma6(problem=P)
        env = {"n": P.n, "a": list(r6.extra["F1"]), "b": list(r6.extra["F0"])}
        for st in (D.statement_lemma6(), *D.statement_lemma7()):
            (lhs, rhs), = _holds(st, env, 1e-7)
            assert lhs <= rhs + 1e-9
        w, t = cp.Variable(P.d), cp.Variable()
        cp.Problem(cp.Minimize(t), [f <= t for f in P.cvxpy_losses(w)]).solve(solver="CLARABEL")
        c = P.losses(np.asarray(w.value))
        for qq in (0.0, 2.0):
            a = solve_qffl(P, qq).extra["losses"]
            for j in range(P.n):
                order = [j, *[k for k in range(P.n) if k != j]]
                env = {"q": qq, "n": P.n, "C": float(c.max()), "s": float(c.max() / c.min() - 1),
                       "p": list(P.p[order]), "a": list(a[order]), "c": list(c[order])}
                (lhs, rhs), = _holds(D.statement_limits_sandwich(), env, 1e-7)
                assert lhs <= rhs
                env["eps"] = float(P.p[j] ** (-1 / (qq + 1)) - 1) * (1 + 1e-9)  # the smallest eps the assumption allows
                (lhs, rhs), = _holds(D.statement_limits_epsilon(), env, 1e-7)
                assert lhs <= rhs


def test_lemma8_statement_is_the_finite_difference_derivative() -> None:
    """One quadratic instance in R^2: the declared ``D`` (chain rule) with ``W'`` from the implicit-function theorem
    equals the central difference of ``H(F^q(w*_p))`` between Newton-polished minimisers, and the assumptions hold."""
    rng = np.random.default_rng(4)
    A = np.array([m @ m.T + 0.3 * np.eye(2) for m in rng.normal(size=(3, 2, 2))])
    c, e, qq = rng.normal(size=(3, 2)) * 2, np.array([0.5, 1.0, 0.2]), 1.5

    def losses(w: np.ndarray) -> np.ndarray:
        r = w - c
        return 0.5 * np.einsum("ki,kij,kj->k", r, A, r) + e

    def minimiser(p: float, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        for _ in range(60):
            F, G = losses(w), np.einsum("kij,kj->ki", A, w - c)
            H = sum(p * (p - 1) * F[k] ** (p - 2) * np.outer(G[k], G[k]) + p * F[k] ** (p - 1) * A[k] for k in range(3))
            w = w - np.linalg.solve(H, (p * F ** (p - 1)) @ G)
        return w, H

    def entropy(x: np.ndarray) -> float:
        pi = x / x.sum()
        return float(-(pi * np.log(pi)).sum())

    w, H = minimiser(qq, c.mean(axis=0))
    F, G = losses(w), np.einsum("kij,kj->ki", A, w - c)
    Wp = -np.linalg.solve(H, (F ** (qq - 1) * (1 + qq * np.log(F))) @ G)
    S_ = float((F ** qq).sum())
    pi = F ** qq / S_
    env = {"q": qq, "n": 3, "F": list(F), "g": list(G @ Wp), "Q": float(Wp @ H @ Wp), "S": S_,
           "H": float(-(pi * np.log(pi)).sum())}
    (zero, dHdp), = _holds(D.statement_lemma8(), env, 1e-9)
    h = 1e-4
    fd = (entropy(losses(minimiser(qq + h, w)[0]) ** qq) - entropy(losses(minimiser(qq - h, w)[0]) ** qq)) / (2 * h)
    assert zero == 0.0 and dHdp >= 0.0
    assert abs(fd - dHdp) <= 1e-5 * max(1.0, abs(dHdp))


def test_holder_and_the_dual_norm_hold_on_floats() -> None:
    rng = np.random.default_rng(2)
    holder, q0, dual = D.statement_lemma10()
    for _ in range(30):
        n, qq = int(rng.integers(1, 7)), float(rng.choice([0.25, 1.0, 3.0]))
        lam, F = rng.dirichlet(np.ones(n)), rng.exponential(size=n)
        p = (qq + 1) / qq
        env = {"n": n, "q": qq, "p": p, "lam": list(lam), "F": list(F), "M": float(lam.max()),
               "U": float(np.sum(lam ** p) ** (1 / p)), "V": float(np.sum(F ** (qq + 1)) ** (1 / (qq + 1)))}
        for st in (holder, q0):
            (lhs, rhs), = _holds(st, env, 1e-12)
            assert lhs <= rhs * (1 + 1e-12)
        for lhs, rhs in _holds(dual, env, 1e-12):
            assert abs(lhs - rhs) <= 1e-9 * max(1.0, abs(rhs))


# ---------------------------------------------------------------------------------------------- the claims
@pytest.mark.parametrize("claim_fn", [D.reduction, D.limits, D.lemma6, D.lemma7, D.lemma8, D.lemma10])
def test_the_claims_end_proved(claim_fn: Any) -> None:
    out = claim_fn(Context(quick=True, seed=0))
    assert out.status == "proved", out.note


# ---------------------------------------------------------------------------------------------- recheck
def _row(claim_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    from verify.core import freeze_statements

    names = sorted((k, n) for n, (c, k) in PAIRS.items() if c == claim_id)
    return [S.ALL_CERTIFICATES[n]() for _, n in names], freeze_statements(_declared(claim_id))


@pytest.mark.parametrize("claim_id", sorted(D.DECLARED))
def test_recheck_accepts_each_row(claim_id: str) -> None:
    from fairtheory.proofs.recheck import recheck_row

    certs, declared = _row(claim_id)
    verdict = recheck_row(certs, declared, falsify=False)
    assert verdict.ok, verdict.why


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", sorted(D.DECLARED))
def test_recheck_with_falsification_accepts_each_row(claim_id: str) -> None:
    from fairtheory.proofs.recheck import recheck_row

    certs, declared = _row(claim_id)
    verdict = recheck_row(certs, declared, falsify=True)
    assert verdict.ok, verdict.why


@pytest.mark.parametrize("what", ["lemma6: Var F(w*_0) halved", "holder: bound halved", "lemma8: stationarity dropped",
                                  "limits: c_i up to 2 C (range too wide)", "reduction: FedSGD step halved (bound changed)"])
def test_recheck_refuses_a_row_whose_certificate_is_weakened(what: str) -> None:
    from fairtheory.proofs.recheck import recheck_row

    name, edit = FORGERIES[what]
    claim_id, k = PAIRS[name]
    certs, declared = _row(claim_id)
    certs[k] = _forge(name, edit)
    verdict = recheck_row(certs, declared, falsify=False)
    assert not verdict.ok
