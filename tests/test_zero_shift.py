"""The zero-shift repair (fairtheory/worstcase/exact_repair.py ``zero_shift``, issue 41): PEPs whose Gram trace has no
bound (composite and operator problems) certified with ``S(lambda) >= 0`` exactly (``eps = 0``) and no GMP; every
certificate re-checked from scratch by ``verify``; forged certificates refused."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from fairtheory.worstcase import exact_repair as X
from fairtheory.worstcase.sdp import PEP

#: the parity set's parameters (benchmarks/bench_pepit_parity.py PARITY_SET)
SETTINGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "proximal gradient N=5": ("f", "proximal_gradient", {"L": 1.0, "mu": 0.1, "gamma": 1.0, "n": 5}),
    "accelerated proximal gradient N=6": ("f", "accelerated_proximal_gradient_simplified",
                                          {"mu": 0.0, "L": 1.0, "n": 6}),
    "Douglas-Rachford": ("op", "douglas_rachford_splitting", {"L": 1.0, "mu": 0.1, "alpha": 1.3, "theta": 0.9}),
}


def _run(kind: str, name: str, p: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, PEP, Any]:
    """The example at ``p`` with ``PEP.solve(gmp="never")``: ``(example result, its PEP, the solution returned)``."""
    from fairtheory.worstcase.pepit_examples import EXAMPLES
    from fairtheory.worstcase.pepit_operator_examples import OPERATOR_EXAMPLES

    rec: dict[str, Any] = {}
    orig = PEP.solve

    def solve(pep: PEP, *a: Any, **k: Any) -> Any:
        k["gmp"] = "never"
        rec["pep"], rec["sol"] = pep, orig(pep, *a, **k)
        return rec["sol"]

    monkeypatch.setattr(PEP, "solve", solve)
    res = (EXAMPLES if kind == "f" else OPERATOR_EXAMPLES)[name].run(**p)
    monkeypatch.setattr(PEP, "solve", orig)
    return res, rec["pep"], rec["sol"]


@pytest.fixture(scope="module")
def cases() -> dict[str, tuple[Any, PEP, Any]]:
    mp = pytest.MonkeyPatch()
    try:
        return {label: _run(*SETTINGS[label], mp) for label in SETTINGS}
    finally:
        mp.undo()


@pytest.mark.parametrize("label", list(SETTINGS))
def test_exact_bracket_without_gmp(cases, label: str) -> None:
    """Issue 41's acceptance for these settings: ``value_is == "exact"`` with GMP off, the bracket within 1e-7
    relative, the value within 1e-7 of the documented tight value, never above the proved bound, and the proved
    bound by an exactly PSD slack (the zero-shift stage, ``eps = 0``)."""
    res, _, sol = cases[label]
    th = float(res.theory)
    assert sol.value_is == "exact" and sol.status == "Solved"
    assert sol.value <= sol.upper and sol.upper - sol.lower <= 1e-7 * abs(sol.upper)
    assert abs(sol.value - th) <= 1e-7 * abs(th)
    assert any(s.startswith("zero shift") and "failed" not in s for s in sol.bracket_info["stages"]) or \
        sol.bracket_info.get("eps") == 0.0
    assert sol.bracket_info["eps"] == 0.0


def _certificate(pep: PEP) -> tuple[Any, X.Repair]:
    raw = pep.solve(raw=True, method="dense")
    got = X.newton_polish(raw)
    src = got[0] if got is not None else raw
    rep = X.zero_shift(src)
    assert rep is not None
    return src, rep


@pytest.mark.parametrize("label", list(SETTINGS))
def test_zero_shift_certificate_rechecked(cases, label: str) -> None:
    """``zero_shift`` on a plain float solve: ``eps == 0``, ``verify`` (plain rationals, the kernel's exact PSD test)
    accepts it, and its bound is not below the tight value beyond the data's float rounding (1e-12 relative) and
    within 1e-6 of it (a solver's multipliers; 1e-12 after the KKT polish)."""
    res, pep, _ = cases[label]
    src, rep = _certificate(pep)
    assert rep.eps == 0 and X.verify(src, rep)
    th = Fraction(float(res.theory))
    assert rep.bound >= th * (1 - Fraction(1, 10 ** 12))
    assert rep.bound <= th * (1 + Fraction(1, 10 ** 6))


# ------------------------------------------------------------------------------------------------ forgeries
@pytest.fixture(scope="module")
def drs(cases) -> tuple[Any, X.Repair, Any]:
    res, pep, _ = cases["Douglas-Rachford"]
    src, rep = _certificate(pep)
    return src, rep, res


def _slack_float(sol: Any, lam: list[Fraction]) -> np.ndarray:
    d = X._Data(sol)
    return X._float_slack(d, np.array([float(x) for x in lam]))


def test_forged_multiplier_breaking_psd_refused(drs) -> None:
    """A multiplier moved so that ``S`` loses its exact PSD (``S V != 0`` on the certificate's null directions), the
    bound recomputed to match: refused by the PSD test alone."""
    src, rep, _ = drs
    d = X._Data(src)
    S = _slack_float(src, rep.lam)
    w, Q = np.linalg.eigh(S)
    v = Q[:, 0]  # a null direction of the certificate's slack
    best, k_best = 0.0, None
    for k in range(d.n_eq, d.m):
        e = np.zeros(d.m)
        e[k] = 1.0
        curv = float(v @ (X._float_slack(d, e) - X._float_slack(d, np.zeros(d.m))) @ v)
        if curv > best:
            best, k_best = curv, k
    assert k_best is not None and rep.lam[k_best] > 0
    lam = list(rep.lam)
    lam[k_best] -= rep.lam[k_best] / 2 ** 20  # v^T S v drops by ~1e-6: indefinite
    b = X._bound(d, lam)
    assert not X.verify(src, dataclasses.replace(rep, lam=lam, bound=b))


def test_forged_bound_lowered_refused(drs) -> None:
    src, rep, _ = drs
    assert X.verify(src, rep)
    assert not X.verify(src, dataclasses.replace(rep, bound=rep.bound * (1 - Fraction(1, 10 ** 9))))


def test_forged_negative_multiplier_refused(drs) -> None:
    src, rep, _ = drs
    d = X._Data(src)
    lam = list(rep.lam)
    k = min(range(d.n_eq, d.m), key=lambda i: lam[i])
    lam[k] = -Fraction(1, 2 ** 40)
    assert not X.verify(src, dataclasses.replace(rep, lam=lam, bound=X._bound(d, lam)))


def test_certificate_of_another_pep_refused(drs) -> None:
    """The Douglas-Rachford certificate at alpha = 1.3 attached to the same PEP at alpha = 1.2 (same rows, other
    data): refused; and the composite certificate at mu = 0.1 attached to mu = 0.2."""
    from fairtheory.worstcase.operators import LipschitzStronglyMonotone, StronglyMonotone
    from fairtheory.worstcase.pepit_operator_examples import _drs

    src, rep, _ = drs
    other = _drs(LipschitzStronglyMonotone(1.0, 0), StronglyMonotone(0.1), 1.2, 0.9).solve(raw=True, method="dense")
    assert other.rows.shape == src.rows.shape
    assert not X.verify(other, rep)
    s1 = _prox_grad(2, 0.1).solve(raw=True, method="dense")
    s2 = _prox_grad(2, 0.2).solve(raw=True, method="dense")
    r1, r2 = X.zero_shift(s1), X.zero_shift(s2)
    assert r1 is not None and X.verify(s1, r1) and r2 is not None and X.verify(s2, r2)
    assert s2.rows.shape == s1.rows.shape
    # mu = 0.2's bound (0.8^4) attached to mu = 0.1 (tight 0.9^4, larger): false, refused
    assert r2.bound < Fraction(0.9 ** 4) and not X.verify(s1, r2)
    # mu = 0.1's bound attached to mu = 0.2: a true, weaker statement (the stronger class's rows dominate), accepted
    assert r1.bound > Fraction(0.8 ** 4) and X.verify(s2, r1)


def test_perturbed_multipliers_never_undercut(drs) -> None:
    """Whatever float multipliers ``zero_shift`` is handed, it refuses or proves a bound that ``verify`` accepts and
    that is not below the tight value (beyond the data's rounding)."""
    src, _, res = drs
    th = Fraction(float(res.theory))
    rng = np.random.default_rng(1)
    for scale in (1e-9, 1e-6, 1e-3, 1e-1):
        z = np.asarray(src.z) * (1 + scale * rng.standard_normal(len(src.z)))
        s2 = dataclasses.replace(src, z=z)
        rep = X.zero_shift(s2)
        if rep is None:
            continue
        assert rep.eps == 0 and X.verify(s2, rep)
        assert rep.bound >= th * (1 - Fraction(1, 10 ** 12))


def _prox_grad(n: int, mu: float) -> PEP:
    """Proximal gradient, f1 SmoothStronglyConvex(1, mu) + f2 Convex(), gamma = 1 (tight ``(1 - mu)^(2n)``)."""
    from fairtheory.worstcase.classes import Convex, SmoothStronglyConvex
    from fairtheory.worstcase.sdp import sqnorm

    pep = PEP()
    f1 = pep.function(SmoothStronglyConvex(1.0, mu))
    f2 = pep.function(Convex())
    pep.optimum_of_sum([f1, f2])
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(n):
        x = f2.prox(x - f1.grad(x), 1.0)[0]
    pep.maximize(sqnorm(x))
    return pep


@pytest.mark.parametrize("n,mu", [(1, 0.1), (2, 0.1), (3, 0.1), (2, 0.2)])
def test_composite_family_bound_above_tight(n: int, mu: float) -> None:
    """Proximal gradient at other sizes and moduli (its invariance - opposite shifts of the two gradients - is broken
    at 1e-17 by the float coefficients): when a zero-shift certificate is found it is re-checked and lies between the
    tight value (less the data's rounding) and 1e-6 above it; at the KKT point it is found."""
    pep = _prox_grad(n, mu)
    raw = pep.solve(raw=True, method="dense")
    th = Fraction((1 - mu) ** (2 * n))
    got = X.newton_polish(raw)
    for s in ([raw] + ([got[0]] if got is not None else [])):
        rep = X.zero_shift(s)
        if rep is None:
            continue
        assert rep.eps == 0 and X.verify(s, rep)
        assert th * (1 - Fraction(1, 10 ** 12)) <= rep.bound <= th * (1 + Fraction(1, 10 ** 6))
    assert got is not None and X.zero_shift(got[0]) is not None


def test_float_data_without_a_certificate_claims_nothing() -> None:
    """Proximal gradient, n = 3, mu = 1/4: along the invariance direction ``y`` (the two gradients shifted oppositely)
    the float coefficients give ``q_i = y^T A_i y <= 0`` on every row (some ``< 0`` where the tight multipliers are
    positive) and ``q_0 = y^T C y = 0``, so every certificate of these float data needs ``alpha = sum_i lambda_i q_i
    >= 0``, i.e. those multipliers 0: none lies near the tight value ``0.75^6`` (the float-data PEP is not the exact
    one: its Gram matrix can grow along ``y y^T``, loosening those rows).  ``zero_shift`` proves nothing there, at the
    solver's point or the KKT point, rather than a bound below what these data allow."""
    pep = _prox_grad(3, 0.25)
    raw = pep.solve(raw=True, method="dense")
    d = X._Data(raw)
    y = [Fraction(v) for v in (-1, 0, -1, 1, -1, 1, -1, 1)]
    e = [y[int(d.pos_a[j])] * y[int(d.pos_b[j])] for j in range(d.nG)]
    R = d.R[:, :d.nG].tocsr()
    q = [sum((e[j] * Fraction(float(v)) for j, v in zip(R.indices[R.indptr[i]:R.indptr[i + 1]].tolist(),
                                                         R.data[R.indptr[i]:R.indptr[i + 1]].tolist(), strict=True)),
             Fraction(0)) for i in range(d.m)]
    q0 = sum((e[j] * Fraction(float(d.obj[j])) for j in range(d.nG)), Fraction(0))
    z = np.asarray(raw.z)
    assert q0 == 0 and max(q) == 0 and any(qi < 0 and z[i] > 1e-3 * z.max() for i, qi in enumerate(q))
    got = X.newton_polish(raw)
    for s in [raw] + ([got[0]] if got is not None else []):
        assert X.zero_shift(s) is None


def test_zero_shift_does_not_depend_on_last_bits(drs) -> None:
    """The last bits of the float multipliers and Gram matrix change neither the decision nor, beyond 1e-9, the bound."""
    src, _, _ = drs
    outs = []
    for k in range(3):
        s2 = dataclasses.replace(src, z=np.asarray(src.z) * (1 + k * 2.0 ** -50),
                                 gram=np.asarray(src.gram) * (1 + k * 2.0 ** -50))
        rep = X.zero_shift(s2)
        outs.append(None if rep is None else float(rep.bound))
    assert None not in outs and max(outs) - min(outs) <= 1e-9 * max(outs)


# ------------------------------------------------------------------------------------ low-rank faces (face push)
#: low-rank worst cases (a rank-one slack, a Gram matrix of rank dim - 1) that the free multipliers cannot curve:
#: the face push (``_face_push``) certifies them from the first float solve
LOW_RANK: dict[str, tuple[str, str, dict[str, Any]]] = {
    "OGM N=5": ("f", "optimized_gradient", {"L": 3.0, "n": 5}),
    "Halpern N=10": ("op", "halpern_iteration", {"n": 10}),
}


@pytest.fixture(scope="module")
def low_rank() -> dict[str, tuple[Any, PEP, Any]]:
    mp = pytest.MonkeyPatch()
    try:
        return {label: _run(*LOW_RANK[label], mp) for label in LOW_RANK}
    finally:
        mp.undo()


def _raw(pep: PEP) -> Any:
    return pep.solve(raw=True, method="dense")


@pytest.mark.parametrize("label", list(LOW_RANK))
def test_face_push_certifies_the_first_solve(low_rank, label: str) -> None:
    """The solver's own multipliers (no KKT polish, no interior end): ``zero_shift`` proves ``S >= 0`` exactly on the
    slack's low-rank face, ``verify`` accepts it from scratch, and the bound lies between the documented tight value
    (less the data's rounding) and 1e-7 above it."""
    res, pep, _ = low_rank[label]
    raw = _raw(pep)
    rep = X.zero_shift(raw)
    assert rep is not None and rep.meta["zero_shift"] in ("face push", "face") and rep.meta["face_rank"] == 1
    assert rep.eps == 0 and X.verify(raw, rep)
    th = Fraction(float(res.theory))
    assert th * (1 - Fraction(1, 10 ** 12)) <= rep.bound <= th * (1 + Fraction(1, 10 ** 7))


@pytest.mark.parametrize("label", list(LOW_RANK))
def test_face_push_bracket_needs_no_second_solve(low_rank, label: str) -> None:
    """``exact_bracket`` without an interior end and without the KKT Newton: ``value_is == "exact"``, the bracket within
    1e-7, the upper end proved with ``eps = 0``; and the checked solve (``PEP.solve``) takes that route (no interior
    end; no Newton stage unless the solver's point lies above the proved bound)."""
    res, pep, sol = low_rank[label]
    raw = _raw(pep)
    br = X.exact_bracket(raw, None, newton=False)
    assert br.value_is == "exact" and br.tight is not None and br.tight.eps == 0 and X.verify(raw, br.tight)
    assert br.lower <= br.upper and br.upper - br.lower <= 1e-7 * abs(br.upper)
    assert Fraction(br.upper) >= br.upper_exact
    st = sol.bracket_info["stages"]
    assert "zero shift" in st and "interior end" not in st
    # the Newton stage runs only for the lower end, where the solver's point lies above the proved bound (Halpern
    # N = 10: an infeasible point, not a lower end)
    assert "kkt newton" not in st or float(raw.value) > br.upper
    assert abs(sol.value - float(res.theory)) <= 1e-7 * abs(float(res.theory))


def test_face_point_is_feasible_and_on_the_bound(low_rank) -> None:
    """OGM: the face point that replaces the solver's point as the lower end satisfies every row to 1e-12 and has a
    PSD Gram matrix (float), and its objective is within 1e-9 (relative) below the proved bound."""
    _, pep, _ = low_rank["OGM N=5"]
    raw = _raw(pep)
    br = X.exact_bracket(raw, None, newton=False)
    assert br.info["lower_is"] == "face point" and br.point is not None
    d = X._Data(raw)
    G, F = np.asarray(br.point.gram), np.asarray(br.point.F)
    rows = d.R @ np.concatenate([G[d.pos_a, d.pos_b], F]) - d.consts
    assert rows.max() <= 1e-12 * max(1.0, float(np.abs(d.consts).max()))
    assert np.linalg.eigvalsh(G)[0] >= -1e-12 * np.linalg.eigvalsh(G)[-1]
    assert br.point.value == br.lower and 0 <= br.upper - br.lower <= 1e-9 * br.upper


@pytest.fixture(scope="module")
def ogm(low_rank) -> tuple[Any, X.Repair, Any]:
    res, pep, _ = low_rank["OGM N=5"]
    raw = _raw(pep)
    rep = X.zero_shift(raw)
    assert rep is not None and rep.meta["zero_shift"] == "face push"
    return raw, rep, res


def test_face_push_forged_multiplier_breaking_psd_refused(ogm) -> None:
    """A Gram-only row's multiplier (so (i) still holds) moved by 1e-9 in the direction that bends the slack down on
    its near-null space, the bound recomputed to match: refused by the exact PSD test alone."""
    raw, rep, _ = ogm
    d = X._Data(raw)
    S = _slack_float(raw, rep.lam)
    w, U = np.linalg.eigh(S)
    Q = U[:, w < 1e-6 * abs(w).max()]
    AF = d.R[:, d.nG:].tocsr()
    forged = 0
    for k in range(d.m):
        if AF[k].nnz or rep.lam[k] == 0:
            continue
        e = np.zeros(d.m)
        e[k] = 1.0
        curv = np.linalg.eigvalsh(Q.T @ (X._float_slack(d, e) - X._float_slack(d, np.zeros(d.m))) @ Q)
        if curv[-1] > 1e-3:  # lowering lambda_k bends S down along a near-null direction
            lam = list(rep.lam)
            lam[k] -= Fraction(1, 10 ** 9)
            assert np.linalg.eigvalsh(_slack_float(raw, lam))[0] < -1e-12
            assert not X.verify(raw, dataclasses.replace(rep, lam=lam, bound=X._bound(d, lam)))
            forged += 1
    assert forged >= 1


def test_face_push_forged_bound_and_other_pep_refused(ogm) -> None:
    """The face-push certificate with its bound lowered by 1e-9 (relative) is refused; attached to gradient descent's
    PEP (same rows and sizes, other coefficients), it is refused."""
    from fairtheory.worstcase.pepit_examples import EXAMPLES

    raw, rep, _ = ogm
    assert X.verify(raw, rep)
    assert not X.verify(raw, dataclasses.replace(rep, bound=rep.bound * (1 - Fraction(1, 10 ** 9))))
    rec: dict[str, Any] = {}
    mp = pytest.MonkeyPatch()
    orig = PEP.solve

    def solve(pep: PEP, *a: Any, **k: Any) -> Any:
        k["gmp"] = "never"
        rec["pep"] = pep
        return orig(pep, *a, **k)

    mp.setattr(PEP, "solve", solve)
    try:
        EXAMPLES["gradient_descent"].run(L=3.0, gamma=1 / 3, n=5)
    finally:
        mp.undo()
    other = _raw(rec["pep"])
    assert other.rows.shape == raw.rows.shape and not np.array_equal(other.rows.toarray(), raw.rows.toarray())
    assert not X.verify(other, rep)


def test_face_push_perturbed_multipliers_never_undercut(ogm) -> None:
    """Perturbed float multipliers (and a perturbed point): ``zero_shift`` refuses or proves a bound that ``verify``
    accepts and that is not below the tight value (beyond the data's rounding)."""
    raw, _, res = ogm
    th = Fraction(float(res.theory))
    rng = np.random.default_rng(3)
    for scale in (1e-9, 1e-6, 1e-3, 1e-1):
        s2 = dataclasses.replace(raw, z=np.asarray(raw.z) * (1 + scale * rng.standard_normal(len(raw.z))),
                                 gram=np.asarray(raw.gram) * (1 + scale * rng.standard_normal(raw.gram.shape)))
        rep = X.zero_shift(s2)
        if rep is None:
            continue
        assert rep.eps == 0 and X.verify(s2, rep)
        assert rep.bound >= th * (1 - Fraction(1, 10 ** 12))


def test_face_push_does_not_depend_on_last_bits(ogm) -> None:
    """The last bits of the float multipliers and Gram matrix change neither the route nor, beyond 1e-12, the bound."""
    raw, _, _ = ogm
    outs = []
    for k in range(3):
        s2 = dataclasses.replace(raw, z=np.asarray(raw.z) * (1 + k * 2.0 ** -50),
                                 gram=np.asarray(raw.gram) * (1 + k * 2.0 ** -50))
        rep = X.zero_shift(s2)
        outs.append(None if rep is None else (rep.meta["zero_shift"], float(rep.bound)))
    assert None not in outs and len({o[0] for o in outs}) == 1
    b = [o[1] for o in outs]
    assert max(b) - min(b) <= 1e-12 * max(b)


def test_face_push_with_free_inactive_rows() -> None:
    """Halpern, N = 20: the solver's inactive multipliers alone do not give a Slater direction of the face (the
    projections onto the affine set and the cone stall), the inactive rows are then freed (``D_i >= 0``); the
    certificate from the first solve is re-checked by ``verify`` and lies within 1e-7 above the tight value
    ``1/(N+1)^2``, and the checked solve asks for no interior end."""
    mp = pytest.MonkeyPatch()
    try:
        res, pep, sol = _run("op", "halpern_iteration", {"n": 20}, mp)
    finally:
        mp.undo()
    raw = _raw(pep)
    rep = X.zero_shift(raw)
    assert rep is not None and rep.meta["zero_shift"] == "face push" and rep.eps == 0 and X.verify(raw, rep)
    th = Fraction(float(res.theory))
    assert th * (1 - Fraction(1, 10 ** 12)) <= rep.bound <= th * (1 + Fraction(1, 10 ** 7))
    st = sol.bracket_info["stages"]
    assert "zero shift" in st and not any(s.startswith("interior end") for s in st)
    assert sol.value_is == "exact" and sol.upper - sol.lower <= 1e-7 * abs(sol.upper)
    # a forgery: the same certificate with its bound lowered by 1e-9 (relative)
    assert not X.verify(raw, dataclasses.replace(rep, bound=rep.bound * (1 - Fraction(1, 10 ** 9))))


def test_face_push_has_a_size_guard(low_rank, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above :data:`FACE_MAX_WORK` (rows x Gram entries) the face push is not tried (a size rule, no clock): OGM N=5's
    zero shift then has no certificate, and with the guard at its default it has one."""
    _, pep, _ = low_rank["OGM N=5"]
    raw = _raw(pep)
    d = X._Data(raw)
    assert d.m * d.nG <= X.FACE_MAX_WORK and X.zero_shift(raw) is not None
    monkeypatch.setattr(X, "FACE_MAX_WORK", d.m * d.nG - 1)
    assert X.zero_shift(raw) is None
