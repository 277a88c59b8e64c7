"""002 Theorem 1 at every number of rounds: the minimum of proved bounds (fairtheory.proofs.theorem1, docs/theorem1.md).

The minimum is compared exactly with the worst case (the Huber instance's value, computed in rationals, is attained,
so it is at most the worst case; the per-round certificates prove it is also at least it), every certificate
re-checks, and forged certificates are refused by the kernel and never lower the minimum.
"""

from __future__ import annotations

import copy
import functools
from fractions import Fraction as Q
from typing import Any

import pytest

from fairtheory.proofs import theorem1 as T
from fairtheory_kernel.check import check_proof, implies, statement_of

slow = pytest.mark.slow


@functools.lru_cache(maxsize=1)
def _certs() -> tuple[dict[str, Any], ...]:
    """The claim's certificates: the potential, then the per-round ones from the shipped file (never searched here: the
    searches take minutes; a missing one fails the tests that need it)."""
    return tuple(T.every_round_certificates(quick=True, search=False))  # type: ignore[arg-type]


@functools.lru_cache(maxsize=1)
def _bounds() -> T.ProvedBounds:
    return T.ProvedBounds(list(_certs()))


def _cert(kind: str, T_N: int, h: Q | None = None) -> dict[str, Any]:
    for c in _certs():
        m = c["statement"]["method"]
        if c["kind"] == kind and m.get("T_N") == T_N and (h is None or Q(m["lr"]) == h):
            return copy.deepcopy(c)
    raise AssertionError(f"no {kind} certificate at T_N = {T_N}, h = {h}")


def _promised(T_N: int) -> tuple[Q, ...]:
    """The steps at which a per-round certificate covers T_N (the family's: any step of the range)."""
    return (Q(1, 2**20), Q(1, 1000), Q(1, 100), Q(1, 40)) if T_N in T.FAMILY_ROUNDS else T.POINT_STEPS


# ------------------------------------------------------------------------------------------------ the minimum
def test_every_certificate_rechecks_and_states_what_the_claim_declares() -> None:
    pb = _bounds()
    assert all(pb.checked) and len(pb.checked) == len(T.every_round_statements()) == 18
    for declared, st in zip(T.every_round_statements(), pb.statements, strict=True):
        assert implies(st, declared)
    # the family kernel admits every T_N = 1..8 since its limits were raised (Gram dimension 38); the family
    # certificates are searched at T_N <= 4 only (minutes each beyond), T_N = 5..8 are point certificates
    assert all(T.family_fits(2, t) for t in T.ROUNDS) and T.FAMILY_ROUNDS == (1, 2, 3, 4)


@pytest.mark.parametrize("T_N", T.ROUNDS)
def test_the_minimum_is_the_exact_worst_case_and_within_2x(T_N: int) -> None:
    pb = _bounds()
    for h in _promised(T_N):
        b, i = pb.at(T_N, h)  # type: ignore[misc]
        low = T.huber_lower(2, T_N, h)
        assert pb.statements[i]["kind"] == ("pep-family" if T_N <= 4 else "pep-dual")
        assert b == low == T.rho0_value(2, T_N, h)  # upper (proved) = lower (attained): the worst case exactly
        assert low <= b <= 2 * low
        # the all-round potential alone is 2 + 1/(h (T_N + 1)) times the worst case: more than 2x everywhere
        pot = pb.bound_of(pb.statements[0], T_N, h)
        assert pot == 1 / (2 * h * (T_N + 1)) and pot / low == 2 + 1 / (h * (T_N + 1)) > 2


def test_between_the_point_steps_the_trivial_bound_applies_within_2x() -> None:
    pb = _bounds()
    for T_N in (5, 8):
        for h in (Q(1, 50), Q(1, 40) - Q(1, 10**6), Q(1, 2**20)):
            b, i = pb.at(T_N, h)  # type: ignore[misc]
            assert i == 1 and b == Q(1, 2)  # the trivial bound (statement 1), for every T_N
            assert b / T.huber_lower(2, T_N, h) == 1 + 2 * h * (T_N + 1) < Q(3, 2)
    assert pb.at(5, Q(1, 20)) is None  # outside every proved range
    assert pb.at(39, Q(1, 40))[0] == Q(1, 2)  # type: ignore[index]  # both 1/2 at lr L (T_N + 1) = 1
    for T_N in (40, 1000):  # from lr L (T_N + 1) > 1 on, the potential is the smaller
        assert pb.at(T_N, Q(1, 40)) == (Q(20, T_N + 1), 0)


def test_the_potential_and_the_trivial_bound_hold_at_every_round_against_the_attained_value() -> None:
    pb = _bounds()
    for T_N in [*range(0, 41), 100]:
        for h in T.STEP_RANGE:
            assert pb.bound_of(pb.statements[0], T_N, h) >= T.huber_lower(2, T_N, h)
            assert pb.bound_of(pb.statements[1], T_N, h) == Q(1, 2) > T.huber_lower(2, T_N, h)


@pytest.mark.parametrize("name", ["bound lowered", "range widened", "final multiplier", "average rule"])
def test_a_forged_trivial_bound_is_refused(name: str) -> None:
    c = T.trivial_certificate()
    assert check_proof(c)
    st = c["statement"]
    if name == "bound lowered":  # 9/20 < 1/2: false for tiny steps (x^2/2 from x0 = 1)
        st["bound"]["num"] = [["9/10"]]
    elif name == "range widened":
        st["parameter"]["hi"] = "5/2"
    elif name == "final multiplier":
        c["evidence"]["final"]["multipliers"][0][1] = [["9/10"]]
    else:  # without the per-round rule, the averaged conclusion 1/(2 h (T_N + 1)) is not 1/2
        del st["bound"]["final"]
    assert not check_proof(c), name


def test_rho0_value_is_the_huber_value_and_below_the_trivial_bound() -> None:
    for T_N in range(0, 40):
        for h in (Q(1, 2**20), Q(1, 1000), Q(1, 40), Q(1, 2)):
            assert T.huber_lower(2, T_N, h) == T.rho0_value(2, T_N, h) < Q(1, 2)


@slow
def test_the_minimum_against_the_float_pep_worst_case() -> None:
    from fairtheory.worstcase import local_gd_worst_case

    pb = _bounds()
    for T_N in T.ROUNDS:
        h = Q(1, 40)
        wc = local_gd_worst_case(n=2, kappa=2, T_N=T_N, lr=float(h), L=1.0, D0=1.0, rho2=0.0, output="average")
        b = float(pb.at(T_N, h)[0])  # type: ignore[index]
        assert wc.certified() and wc.value <= b * (1 + 1e-6) and b <= 2 * wc.value
        assert b == pytest.approx(wc.value, rel=1e-6)


# ------------------------------------------------------------------------------------------------ forgeries
def _family_forgeries() -> list[tuple[str, Any]]:
    def lower(c: dict[str, Any]) -> None:  # 1/(21/10 + 16 h) < the worst case 1/(2 + 16 h)
        c["statement"]["bound"]["value"]["den"][0] = "21/10"

    def shift(c: dict[str, Any]) -> None:  # the T_N = 3 certificate attached to T_N = 4
        c["statement"]["method"]["T_N"] = 4

    def three(c: dict[str, Any]) -> None:
        c["statement"]["n"], c["statement"]["p"] = 3, ["1/3", "1/3", "1/3"]

    def widen(c: dict[str, Any]) -> None:
        c["statement"]["parameter"]["hi"] = "2"

    return [("bound lowered", lower), ("T_N shifted", shift), ("n changed", three), ("range widened", widen)]


@pytest.mark.parametrize("name,edit", _family_forgeries())
def test_a_forged_family_certificate_is_refused(name: str, edit: Any) -> None:
    c = _cert("pep-family", 3)
    assert check_proof(c)
    edit(c)
    assert not check_proof(c), name
    pb = T.ProvedBounds([_certs()[0], c])
    assert pb.checked == [True, False]
    assert pb.at(3, Q(1, 40))[0] == 1 / (2 * Q(1, 40) * 4)  # type: ignore[index]  # only the potential is left


def test_a_certificate_of_another_round_or_another_n_proves_nothing_declared() -> None:
    genuine3 = statement_of(_cert("pep-family", 3))
    assert not implies(genuine3, T.family_statement(2, 4))  # attached to T_N = 4
    assert not implies(genuine3, T.family_statement(2, 3, p=(Q(1, 3),) * 3))  # n changed
    assert not implies(genuine3, T.family_statement(2, 3, hi=Q(1)))  # range widened beyond [0, 1/2]
    assert implies(genuine3, T.family_statement(2, 3))
    genuine5 = statement_of(_cert("pep-dual", 5, Q(1, 40)))
    assert not implies(genuine5, T.point_statement(2, 6, Q(1, 40))["statement"])
    assert not implies(genuine5, T.point_statement(2, 5, Q(1, 100))["statement"])


@pytest.mark.parametrize("field,value", [("value", "5/14"), ("lr", "1/41"), ("T_N", 4)])  # 1/41: worst case 41/106 > 5/13
def test_a_forged_point_certificate_is_refused(field: str, value: Any) -> None:
    c = _cert("pep-dual", 5, Q(1, 40))
    assert check_proof(c) and c["statement"]["bound"]["value"] == "5/13"
    if field == "value":  # lowered below the worst case 5/13
        c["statement"]["bound"]["value"] = value
    else:
        c["statement"]["method"][field] = value
    assert not check_proof(c)
    assert T.ProvedBounds([c]).at(5, Q(1, 40)) is None


@pytest.mark.parametrize("name", ["bound lowered", "range widened", "rho^2 part lowered", "kappa relabelled"])
def test_a_forged_potential_certificate_is_refused(name: str) -> None:
    c = copy.deepcopy(_certs()[0])
    assert check_proof(c)
    st = c["statement"]
    if name == "bound lowered":  # 1/(3 h (T_N + 1)) below 1/(2 h (T_N + 1))
        st["bound"]["den"] = [["0", "3"], ["0", "3"]]
    elif name == "range widened":
        st["parameter"]["hi"] = "2"
    elif name == "rho^2 part lowered":
        st["bound"]["hetero"]["num"] = [["0", "0", "1/8"]]
    else:
        st["method"]["kappa"] = 3
    assert not check_proof(c), name


@slow
def test_the_claim_is_not_proved_when_a_round_is_covered_by_another_rounds_certificate(monkeypatch: Any) -> None:
    """The genuine T_N = 3 family certificate in place of the T_N = 4 one: it re-checks, but T_N = 4 is then covered by
    the potential only - the claim does not say proved, and the runner would not bind it (not implied)."""
    from verify.claims.theorem1_rounds import theorem1_every_round
    from verify.core import Context

    certs = list(_certs())
    k4 = next(i for i, c in enumerate(certs) if c["kind"] == "pep-family" and c["statement"]["method"]["T_N"] == 4)
    certs[k4] = _cert("pep-family", 3)
    monkeypatch.setattr(T, "every_round_certificates", lambda **kw: certs)
    monkeypatch.setattr("verify.claims.theorem1_rounds.PEP_QUICK", [(1, Q(1, 40))])
    out = theorem1_every_round(Context(quick=True, seed=0))
    assert out.status != "proved" and (4, "1/40") in out.details["uncovered"]
    assert not implies(statement_of(certs[k4]), T.family_statement(2, 4))


# ------------------------------------------------------------------------------------------------ three clients
def test_three_clients_every_rho_and_its_forgeries() -> None:
    from fairtheory.proofs.potential_search import prove_potential

    c = prove_potential("local_gd", n=3, p=[Q(1, 2), Q(1, 3), Q(1, 6)], kappa=4, rho2="any", h=T.STEP_RANGE).to_json()
    assert check_proof(c) and c["statement"]["potential"]["drift"]["num"][-1] == "7"
    for edit in ("drift halved", "two clients", "kappa 8"):
        f = copy.deepcopy(c)
        if edit == "drift halved":
            f["statement"]["potential"]["drift"]["num"][-1] = "7/2"
        elif edit == "two clients":
            f["statement"]["n"], f["statement"]["p"] = 2, ["1/2", "1/2"]
        else:
            f["statement"]["method"]["kappa"] = 8
        assert not check_proof(f), edit


# ------------------------------------------------------------------------------------------------ the figure
@slow
def test_the_figure_panels_of_the_minimum() -> None:
    import numpy as np

    from figures import rcfl_theorem1_all_rounds as m

    e = m.every_round()
    T_, mins, low = e["T"], e["min"], e["huber"]
    assert list(T_) == list(range(1, 201)) and all(e["checked"])
    per_round = np.array([s != "pep-potential" for s in e["source"]])
    assert list(T_[per_round]) == list(range(1, 9))  # exact per-round certificates at T_N = 1..8 (beta L = 1/40)
    assert np.array_equal(mins[per_round], low[per_round])  # the worst case exactly there
    assert np.all(mins >= low) and np.all(mins <= np.minimum(e["potential"], 0.5) * (1 + 1e-12))  # floats of Fractions
    # beyond T_N = 8: min(trivial, potential), x = beta L (T_N + 1): min(1 + 2x, 2 + 1/x) times the attained value
    x = (T_[~per_round] + 1) / 40
    r = mins[~per_round] / low[~per_round]
    assert np.allclose(r, np.minimum(1 + 2 * x, 2 + 1 / x), rtol=1e-12) and np.all(r <= 3)
    assert list(T_[(mins / low) <= 2]) == list(range(1, 20))  # within 2x up to T_N = 19 (x <= 1/2)
    assert np.max(mins / low) == pytest.approx(3.0, rel=1e-12)  # at x = 1, T_N = 39
