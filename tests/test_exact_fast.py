"""The lean route of the exact bracket of small PEPs (fairtheory/worstcase/exact_repair.py, issue 41): the zero shift
first when the solver's slack is indefinite (the shifted repair only where the zero shift fails), one
:class:`~fairtheory.worstcase.exact_repair._Data` per solution shared by every stage, and cached pivots of the exact
restore of (i) re-checked against the data.  Every certificate of the route passes the independent re-check
``verify``; forged ones (a lowered bound, multipliers whose slack is not PSD, a certificate of another PEP, poisoned
pivots) are refused."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from fairtheory.worstcase import exact_repair as X
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.sdp import PEP, sqnorm


def _gd(n: int, L: float, h: float = 1.0) -> PEP:
    """GD with step ``h / L`` on ``L``-smooth convex functions, ``||x0 - x*||^2 <= 1``, ``f(x_n) - f*``: for
    ``h = 1`` the tight worst case is ``L / (4 n + 2)`` (Drori & Teboulle 2014); exact data for ``L`` a power of 2."""
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    for _ in range(n):
        x = x - (h / L) * f.grad(x)
    pep.maximize(f.value(x))
    return pep


def _exact(n: int, L: float) -> Fraction:
    return Fraction(L) / (4 * n + 2)


@pytest.fixture(scope="module")
def push() -> object:
    """GD, n = 5, L = 4: the solver's slack is indefinite; the zero shift pushes (``meta["zero_shift"] == "push"``)."""
    return _gd(5, 4.0).solve(raw=True, method="dense")


@pytest.fixture(scope="module")
def definite() -> object:
    """GD, n = 5, L = 2: the solver's multipliers repair with ``eps = 0`` (no zero shift needed)."""
    return _gd(5, 2.0).solve(raw=True, method="dense")


# ------------------------------------------------------------------------------------------------ the route
def test_zero_shift_first_when_the_slack_is_indefinite(push) -> None:
    d = X._Data(push)
    assert X._shift_needed(d, push)
    br = X.exact_bracket(push, None, tol=1e-7)
    assert br.info["stages"] == ["zero shift"]  # no shifted repair: it would prove nothing without a payer
    assert br.tight is not None and br.tight.eps == 0 and br.tight.meta["zero_shift"] == "push"
    assert X.verify(push, br.tight)
    assert br.upper_exact is not None and br.upper_exact >= _exact(5, 4.0)
    assert br.value_is == "exact" and br.value <= br.upper
    assert br.upper - br.lower <= 1e-7 * br.upper


def test_solver_multipliers_first_when_the_slack_is_definite(definite) -> None:
    d = X._Data(definite)
    assert not X._shift_needed(d, definite)
    br = X.exact_bracket(definite, None, tol=1e-7)
    assert br.info["stages"][0] == "solver multipliers"
    assert X.verify(definite, br.tight) and br.upper_exact >= _exact(5, 2.0)


def test_trace_bound_keeps_the_shifted_repair_first(push) -> None:
    """With an a-priori trace bound the shifted repair pays for itself: it runs first, as before."""
    br = X.exact_bracket(push, None, tol=1e-7, trace_bound=Fraction(100))
    assert br.info["stages"][0] == "solver multipliers"
    assert br.upper_exact is not None and br.upper_exact >= _exact(5, 4.0)
    assert X.verify(push, br.tight)


def test_shifted_repair_runs_when_the_zero_shift_fails(push, monkeypatch) -> None:
    monkeypatch.setattr(X, "zero_shift", lambda sol, data=None: None)
    br = X.exact_bracket(push, None, tol=1e-7, newton=False)
    assert br.info["stages"][:2] == ["solver multipliers", "zero shift failed"]
    assert br.tight is not None and br.tight.eps > 0 and X.verify(push, br.tight)
    # nothing pays the shift (no trace bound, no interior end): no upper end is claimed
    assert br.upper == float("inf") and br.value_is == "lower"


@pytest.mark.parametrize("L", [1.0, 4.0, 16.0, 0.25])
def test_upper_end_never_below_the_truth(L: float) -> None:
    raw = _gd(5, L).solve(raw=True, method="dense")
    br = X.exact_bracket(raw, None, tol=1e-7)
    assert br.upper_exact is not None and br.upper_exact >= _exact(5, L)
    assert X.verify(raw, br.tight)
    assert br.value <= br.upper


# ------------------------------------------------------------------------------------------------ shared data
def test_data_is_shared_only_for_the_very_same_arrays(push) -> None:
    d = X._Data(push)
    assert X._data(push, d) is d
    assert X._data(dataclasses.replace(push, z=np.asarray(push.z) * 2), d) is d  # other multipliers, same data
    assert X._data(dataclasses.replace(push, consts=np.array(push.consts, copy=True)), d) is not d
    other = _gd(5, 8.0).solve(raw=True, method="dense")
    assert X._data(other, d) is not d
    assert X._data(push, None) is not d


def test_a_stale_data_object_is_not_used(push) -> None:
    """``zero_shift(sol, data)`` with the data of another PEP builds its own: the certificate is ``sol``'s."""
    other = _gd(5, 8.0).solve(raw=True, method="dense")
    rep = X.zero_shift(push, X._Data(other))
    assert rep is not None and X.verify(push, rep) and rep.bound >= _exact(5, 4.0)
    assert not X.verify(other, rep)


def test_cached_pivots_are_rechecked(push) -> None:
    """Pivots cached by one restore of (i) are re-checked exactly at the next use: poisoned pivots (a wrong square
    block) are dropped and the restore solves afresh - the same certificate as with a clean cache."""
    from flint import fmpq

    d = X._Data(push)
    clean = X.zero_shift(push, d)
    assert clean is not None and X.verify(push, clean)
    piv = d._cache["pivots"]
    assert piv  # the restore on the free multipliers left its pivots
    for key, (cols, M) in list(piv.items()):
        bad = M * 1  # a copy
        bad[0, 0] = bad[0, 0] + fmpq(1, 3)
        piv[key] = (cols, bad)
    again = X.zero_shift(push, d)
    assert again is not None and X.verify(push, again)
    assert again.bound == clean.bound and again.lam == clean.lam


# ------------------------------------------------------------------------------------------------ forgeries
def test_lowered_bound_refused(push) -> None:
    rep = X.zero_shift(push)
    assert rep is not None and X.verify(push, rep)
    forged = dataclasses.replace(rep, bound=rep.bound - rep.bound * Fraction(1, 10 ** 9))
    assert not X.verify(push, forged)


def test_multipliers_with_an_indefinite_slack_refused(push) -> None:
    """Multipliers that meet (i) exactly but whose slack is not PSD: the solver's own (restored, the slack indefinite
    at 1e-9) and an extrapolation past them, presented with ``eps = 0`` - refused by ``verify`` and by the exact check
    of the route (:func:`_face_check`)."""
    d = X._Data(push)
    zs = X.zero_shift(push, d)
    rp = X.repair(push, polish=False, data=d)
    assert zs is not None and rp is not None and rp.eps > 0
    assert not X.verify(push, dataclasses.replace(rp, eps=Fraction(0)))
    assert not X._face_check(d, rp.lam, [], list(range(d.dim)))[0]
    ext = [2 * a - b for a, b in zip(rp.lam, zs.lam, strict=True)]  # (i) holds: weights 2 and -1 sum to 1
    ineq_ok = all(x >= 0 for x in ext[d.n_eq:])
    S = X._float_slack(d, np.array([float(x) for x in ext]))
    assert float(np.linalg.eigvalsh(S)[0]) < 0
    forged = dataclasses.replace(zs, lam=ext, bound=X._bound(d, ext))
    assert not X.verify(push, forged)
    if ineq_ok:  # the exact PSD test is what refuses it
        assert not X._face_check(d, ext, [], list(range(d.dim)))[0]


def test_certificate_of_another_pep_refused(push) -> None:
    rep = X.zero_shift(push)
    assert rep is not None
    same_shape = _gd(5, 8.0).solve(raw=True, method="dense")  # other data, the same rows
    assert same_shape.rows.shape == push.rows.shape
    assert not X.verify(same_shape, rep)
    other_shape = _gd(4, 4.0).solve(raw=True, method="dense")
    assert not X.verify(other_shape, rep)


# ------------------------------------------------------------------------------------------------ exact PSD signs
def test_fflu_signs() -> None:
    """The fraction-free LU decides positive definite and (a negative leading minor) not PSD; a zero pivot is left
    to the kernel's L D L^T."""
    assert X._fflu_sign([[2, 1], [1, 2]]) == (True, False)
    assert X._fflu_sign([[1, 2], [2, 1]]) == (False, True)  # minors 1, -3
    assert X._fflu_sign([[-1, 0], [0, 1]]) == (False, True)
    assert X._fflu_sign([[1, 1], [1, 1]]) == (False, False)  # semidefinite: undecided here
    assert X._psd_shifted([[2, 2], [2, 2]], 1, Fraction(0))  # ... and proved PSD by L D L^T
    assert not X._psd_shifted([[2, 4], [4, 2]], 1, Fraction(0))
    assert X._psd_shifted([[2, 4], [4, 2]], 1, Fraction(2))  # + 2 I: [[1, 2], [2, 1]] / 1 + 2 I > 0


# ------------------------------------------------------------------------------------------------ doubtful point
def _count_zero_shifts(monkeypatch) -> list[int]:
    calls = [0]
    orig = X.zero_shift

    def counted(sol, data=None):
        calls[0] += 1
        return orig(sol, data)

    monkeypatch.setattr(X, "zero_shift", counted)
    return calls


def test_doubtful_point_newton_first(push, monkeypatch) -> None:
    """A solver's point doubtful before anything is proved: the KKT point first and one zero shift there."""
    monkeypatch.setattr(X, "_lower_doubt", lambda sol: 1.0)  # every point doubtful
    calls = _count_zero_shifts(monkeypatch)
    br = X.exact_bracket(push, None, tol=1e-7)
    assert br.info["stages"] == ["kkt newton", "zero shift (kkt point)"]
    assert calls[0] == 1
    assert br.info["lower_is"] == "kkt point"
    assert br.tight is not None and br.tight.eps == 0 and X.verify(push, br.tight)
    assert br.upper_exact >= _exact(5, 4.0) and br.value <= br.upper
    assert br.value_is == "exact" and abs(br.value - float(_exact(5, 4.0))) <= 1e-7 * float(_exact(5, 4.0))


def test_doubtful_point_falls_back_when_newton_fails(push, monkeypatch) -> None:
    monkeypatch.setattr(X, "_lower_doubt", lambda sol: 1.0)
    monkeypatch.setattr(X, "newton_polish", lambda sol, data=None: None)
    br = X.exact_bracket(push, None, tol=1e-7)
    assert br.info["stages"][0] == "zero shift" and "kkt newton failed" in br.info["stages"]
    assert X.verify(push, br.tight) and br.upper_exact >= _exact(5, 4.0)


def test_forged_kkt_point_never_lifts_the_value_above_the_certificate(push, monkeypatch) -> None:
    """A "KKT point" whose objective lies far above the worst case (a forgery): the bracket's value stays at or below
    the proved upper end, and the upper end is the exact certificate's, above the truth."""
    real = X.newton_polish

    def forged(sol, data=None):
        got = real(sol, data)
        assert got is not None
        return got[0], got[1] * (1 + 1e-9)

    monkeypatch.setattr(X, "_lower_doubt", lambda sol: 1.0)
    monkeypatch.setattr(X, "newton_polish", forged)
    br = X.exact_bracket(push, None, tol=1e-7)
    assert br.value <= br.upper and br.lower <= br.upper
    assert X.verify(push, br.tight) and br.upper_exact >= _exact(5, 4.0)
    assert Fraction(br.upper) >= br.upper_exact


def test_face_push_keeps_its_order(monkeypatch) -> None:
    """A low-rank face (OGM-like: the zero shift is a face push bringing its own lower end) is not sent to the Newton
    first, doubtful or not: the route's float part decides, once (cached per multipliers)."""
    from fairtheory.worstcase.pepit_examples import EXAMPLES

    rec = {}
    orig = PEP.solve

    def solve(pep, *a, **k):
        rec["pep"] = pep
        return orig(pep, *a, **k)

    monkeypatch.setattr(PEP, "solve", solve)
    EXAMPLES["optimized_gradient"].run(L=3.0, n=5)
    monkeypatch.setattr(PEP, "solve", orig)
    raw = rec["pep"].solve(raw=True, method="dense")
    d = X._Data(raw)
    rt = X._zero_route(d, np.asarray(raw.z, dtype=np.float64))
    assert rt is not None and rt[-1]  # a face push
    assert X._zero_route(d, np.asarray(raw.z, dtype=np.float64)) is rt  # cached
    monkeypatch.setattr(X, "_lower_doubt", lambda sol: 1.0)
    br = X.exact_bracket(raw, None, tol=1e-7)
    assert br.info["stages"][0] == "zero shift"
    assert br.tight is not None and X.verify(raw, br.tight) and br.value <= br.upper


@pytest.mark.parametrize("L", [4.0, 1.0])
def test_sparse_rows_give_the_same_certificate(L: float, monkeypatch) -> None:
    """Rows above :data:`DENSE_MAX` stay sparse (no dense copy): the same certificate, re-checked from scratch."""
    raw = _gd(5, L).solve(raw=True, method="dense")
    dense = X.exact_bracket(raw, None, tol=1e-7)
    monkeypatch.setattr(X, "DENSE_MAX", 0)
    assert not X._Data(raw).dense
    sparse = X.exact_bracket(raw, None, tol=1e-7)
    assert sparse.upper_exact == dense.upper_exact and sparse.info["stages"] == dense.info["stages"]
    assert X.verify(raw, sparse.tight) and sparse.upper_exact >= _exact(5, L)


# ------------------------------------------------------------------------------------------------ fine shifts
def test_fine_shifts_ladder() -> None:
    """``repair(fine=True)``'s shifts below the float eigenvalues' error bound ``fl``: ``0`` first only when the float
    ``lambda_min`` is positive, then dyadics from above ``2 |lambda_min|`` by factors of 16, all below ``fl``'s
    dyadic (the standard schedule starts there)."""
    fl = 3e-14
    pos = X._fine_shifts(1e-16, fl)
    neg = X._fine_shifts(-1e-16, fl)
    assert pos[0] == 0 and 0 not in neg
    assert neg[0] >= Fraction(2e-16) and neg[0] / 2 < Fraction(2e-16)
    for got in (pos, neg):
        steps = [b / a for a, b in zip(got[1:], got[2:], strict=False)]
        assert all(x == 16 for x in steps) and got[-1] < X._dyadic_up(fl)
    assert X._fine_shifts(-fl, fl) == []  # nothing below fl left to try


def test_fine_repair_proves_only_what_holds(definite, push) -> None:
    """``fine`` never lowers what is proved below the truth: on GD ``n = 5`` (tight value ``L/22``) its certificates
    pass the independent ``verify``, bound the exact value from above, and a forged multiplier vector (the start
    condition's multiplier lowered by 1e-6 relative: the slack indefinite) is proved only with a shift, never with
    ``eps = 0``."""
    for sol, L in ((definite, 2.0), (push, 4.0)):
        for fine in (False, True):
            rep = X.repair(sol, fine=fine)
            assert rep is not None and X.verify(sol, rep)
            assert X.upper_from(rep, None, Fraction(1)) >= _exact(5, L)
        z = np.asarray(sol.z, dtype=np.float64).copy()
        d = X._Data(sol)
        i0 = max((i for i, _ in d.consts_q), key=lambda i: z[i])
        z[i0] *= 1 - 1e-6
        forged = dataclasses.replace(sol, z=z)
        rep = X.repair(forged, fine=True)
        assert rep is None or (rep.eps > 0 and X.verify(forged, rep)), rep and rep.eps
