"""Gradient descent, tight for every N: f(x_N) - f* <= L D0/(4 N h + 2) (Drori & Teboulle 2014, Thm. 3.1).

The horizon-independent potential of fairtheory.proofs.tight_gd (docs/tight_gd.md) checked three ways - by the trusted
kernel's existing ``pep-potential`` rule (symbolic in N), by the module's own exact prototype (symbolic in k, and at
every N <= 1000), and as the telescoped dual of the whole N-step PEP - compared exactly with Drori & Teboulle's value,
and every forgery refused by both checkers (and, when the forged statement is false, falsified by an exact instance).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction as F
from typing import Any

import pytest

from fairtheory.proofs import check_proof
from fairtheory.proofs import tight_gd as T
from fairtheory_kernel import potential_kernel as K

LOW = (T._kpj(1), T._kpj(3, [0, 4]))            # 1/(4 N h + 3): below the exact worst case
SHIFTED = (T._kpj(1), T._kpj([2, 4], [0, 4]))   # 1/(4 (N + 1) h + 2): N shifted by one


def kernel(cert: dict[str, Any]) -> tuple[bool, str]:
    return K.explain_potential(cert)


def both_refuse(kcert: dict[str, Any], pcert: dict[str, Any]) -> None:
    ok_k, why_k = kernel(kcert)
    ok_p, why_p = T.check_prototype(pcert)
    assert not ok_k and why_k, why_k
    assert not ok_p and why_p, why_p


# ------------------------------------------------------------------------------------------------ the certificate
@pytest.mark.parametrize("lo,hi", [(F(1, 100), F(1)), (F(0), F(1)), (F(1), F(1)), (F(1, 2), F(1, 2)),
                                   (F(1, 100), T.SQRT2_BELOW)])
def test_kernel_accepts_the_tight_certificate(lo: F, hi: F) -> None:
    cert = T.tight_gd_certificate(lo, hi)
    assert kernel(cert) == (True, "")
    assert T.check_prototype(T.prototype_certificate(lo, hi)) == (True, "")


def test_check_proof_and_words() -> None:
    cert = T.tight_gd_certificate()
    assert check_proof(cert)
    words = K.describe(K.canonical(cert["statement"]))
    assert "every N >= 1" in words and "[1/100, 1]" in words


def test_bound_equals_drori_teboulle_at_every_N_up_to_1000() -> None:
    st = T.tight_gd_statement()
    assert T.compare_with_drori_teboulle(st, 1000) == (True, "")
    canon = K.canonical(st)
    for N in (1, 2, 10, 999, 1000):
        for h in (F(1, 100), F(1, 3), F(1)):
            assert K.bound_at(canon, N, h) == 1 / (4 * N * h + 2)


def test_compare_refuses_other_bounds() -> None:
    ok, why = T.compare_with_drori_teboulle(T.tight_gd_statement(bound=LOW), 1000)
    assert not ok and "N = 1" in why
    ok, why = T.compare_with_drori_teboulle(T.tight_gd_statement(bound=(T._kpj(3), T._kpj(2, [0, 4]))), 10)
    assert not ok
    assert not T.compare_with_drori_teboulle(T.tight_gd_statement(hi=F(11, 10)), 10)[0]  # DT's value is exact on [0, 1]


def test_prototype_symbolic_and_at_every_N_up_to_1000() -> None:
    cert = T.prototype_certificate()
    assert T.check_prototype(cert) == (True, "")
    assert T.check_prototype_at(cert, 1000) == (True, "")


@pytest.mark.parametrize("N", list(range(1, 13)))
def test_full_pep_dual_exact(N: int) -> None:
    assert T.check_full_pep(N) == (True, "")
    assert T.check_full_pep(N, 0, T.SQRT2_BELOW) == (True, "")


@pytest.mark.slow
def test_full_pep_dual_exact_large_N() -> None:
    for N in (50, 100, 200):
        assert T.check_full_pep(N) == (True, "")


def test_full_pep_refuses_beyond_sqrt2() -> None:
    ok, why = T.check_full_pep(3, F(1, 100), F(3, 2))
    assert not ok and "c_0" in why


@pytest.mark.parametrize("N", [1, 2, 3, 5, 8, 15])
def test_drori_teboulle_dual_psd_rank_N_plus_1(N: int) -> None:
    for h in (F(1, 100), F(1, 3), F(1, 2), F(1)):
        assert T.drori_teboulle_slack(N, h) == (True, N + 1)
        assert T.drori_teboulle_slack(N, h, bound=1 / (4 * N * h + 3))[0] is False  # a lower bound: not PSD


# ------------------------------------------------------------------------------------------------ instances
@pytest.mark.parametrize("h", [F(1, 100), F(1, 3), F(1, 2), F(1)])
def test_huber_attains_the_bound_exactly(h: F) -> None:
    st = K.canonical(T.tight_gd_statement())
    for N in range(1, 21):
        f, df = T.huber_instance(N, h)
        assert f(T.run_gd(df, F(1), h, N)) == K.bound_at(st, N, h)


def test_bound_holds_on_quadratics_and_hubers_up_to_sqrt2() -> None:
    st = K.canonical(T.tight_gd_statement(0, T.SQRT2_BELOW))
    for h in (F(1, 100), F(1, 2), F(1), F(11, 10), F(13, 10), T.SQRT2_BELOW):
        for N in range(1, 16):
            x = F(1)
            for _ in range(N):
                x -= h * x
            assert x * x / 2 <= K.bound_at(st, N, h)
            for M in (N, 2 * N, max(N // 2, 1)):
                f, df = T.huber_instance(M, h)
                assert f(T.run_gd(df, F(1), h, N)) <= K.bound_at(st, N, h)


# ------------------------------------------------------------------------------------------------ forgeries
def test_forgery_bound_lowered() -> None:
    both_refuse(T.tight_gd_certificate(bound=LOW), T.prototype_certificate(bound=LOW))
    st = K.canonical(T.tight_gd_statement(bound=LOW))
    for N in range(1, 11):  # false: Drori-Teboulle's Huber function exceeds it
        f, df = T.huber_instance(N, F(1, 2))
        assert f(T.run_gd(df, F(1), F(1, 2), N)) > K.bound_at(st, N, F(1, 2))


def test_forgery_range_widened_where_false() -> None:
    both_refuse(T.tight_gd_certificate(hi=F(8, 5)), T.prototype_certificate(hi=F(8, 5)))
    both_refuse(T.tight_gd_certificate(hi=F(3)), T.prototype_certificate(hi=F(3)))
    h = F(8, 5)  # f = x^2/2, N = 1: (1 - h)^2/2 = 9/50 > 5/42 = 1/(4 h + 2)
    assert (1 - h) ** 2 / 2 == F(9, 50) > F(5, 42) == 1 / (4 * h + 2)
    assert T.check_prototype_at(T.prototype_certificate(hi=F(8, 5)), 5)[0] is False


def test_range_widened_to_11_10_is_true_and_accepted() -> None:
    """Not a forgery: 1/(4 N h + 2) holds for h up to sqrt 2 (the step's weight is (k+1)(2 - h^2 + k h (2 - h)))."""
    assert kernel(T.tight_gd_certificate(hi=F(11, 10))) == (True, "")
    assert T.check_prototype(T.prototype_certificate(hi=F(11, 10))) == (True, "")
    assert not T.compare_with_drori_teboulle(T.tight_gd_statement(hi=F(11, 10)), 5)[0]


def test_forgery_N_shifted() -> None:
    both_refuse(T.tight_gd_certificate(bound=SHIFTED), T.prototype_certificate(bound=SHIFTED))
    st = K.canonical(T.tight_gd_statement(bound=SHIFTED))
    f, df = T.huber_instance(3, F(1))
    assert f(T.run_gd(df, F(1), F(1), 3)) > K.bound_at(st, 3, F(1))


def _shift_potential() -> dict[str, Any]:
    out = {}
    for name, v in T.POTENTIAL.items():
        out[name] = [[str(c) for c in x.coeffs()] or ["0"] for x in K._kp(v, name).shift()]
    return out


def test_forgery_potential_shifted() -> None:
    pot = _shift_potential()  # phi_(k+1) in the role of phi_k: phi_0 = 3h f + ... exceeds ||x0||^2
    both_refuse(T.tight_gd_certificate(potential=pot), T.prototype_certificate(potential=pot))


MULTIPLIER_EDITS: dict[str, dict[str, Any]] = {
    "x_x+ k^0 2+2h -> 2+3h": {"x_x+": T._kpj([2, 3], [2, 4], [0, 2])},
    "x_x+ k^2 2h -> 3h": {"x_x+": T._kpj([2, 2], [2, 4], [0, 3])},
    "x+_x k^1 2+2h -> 2+h": {"x+_x": T._kpj(2, [2, 1], [0, 2])},
    "star_x h -> h/2": {"star_x": T._kpj([0, F(1, 2)])},
    "star_x+ dropped": {"star_x+": T._kpj(0)},
    "x+_x negated": {"x+_x": T._kpj(-2, [-2, -2], [0, -2])},
}


@pytest.mark.parametrize("name", list(MULTIPLIER_EDITS))
def test_forgery_one_step_multiplier_edited(name: str) -> None:
    edit = MULTIPLIER_EDITS[name]
    both_refuse(T.tight_gd_certificate(step=edit), T.prototype_certificate(step=edit))


def _edit(d: dict[str, Any], f: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    d = copy.deepcopy(d)
    f(d)
    return d


def test_forgery_initial_and_final_multipliers_edited() -> None:
    k, p = T.tight_gd_certificate(), T.prototype_certificate()

    def kern_init(d: dict[str, Any]) -> None:
        d["evidence"]["initial"]["multipliers"][0][1] = T._kpj([0, 2])

    def proto_init(d: dict[str, Any]) -> None:
        d["initial"]["multipliers"]["star_x0"] = T._kpj([0, 2])

    def kern_final(d: dict[str, Any]) -> None:
        d["evidence"]["final"]["multipliers"][0][1] = T._kpj([2, 1], [0, 1])

    def proto_final(d: dict[str, Any]) -> None:
        d["final"]["multipliers"]["star_x"] = T._kpj([2, 1], [0, 1])

    both_refuse(_edit(k, kern_init), _edit(p, proto_init))
    both_refuse(_edit(k, kern_final), _edit(p, proto_final))
    assert kernel(_edit(k, lambda d: d["evidence"]["final"].pop("scale")))[0] is False  # not PSD coefficient-wise


def test_forgery_statement_edits() -> None:
    k = T.tight_gd_certificate()
    p = T.prototype_certificate()
    # the initial bound lowered to 9/10
    both_refuse(_edit(k, lambda d: d["statement"]["potential"]["initial"].update(num=["9"], den=["10"])),
                _edit(p, lambda d: d["statement"].update(initial=["9/10"])))
    # the potential's gradient term h/2 -> h/4 at k^0
    gg = T._kpj([0, F(1, 4)], [0, 1], [0, 0, 1])
    both_refuse(_edit(k, lambda d: d["statement"]["potential"]["terms"].update(gg=gg)),
                _edit(p, lambda d: d["statement"]["potential"].update(gg=gg)))
    # a step of 2h/L (method relabelled is not expressible; the range is the step): lo = hi = 2
    both_refuse(T.tight_gd_certificate(2, 2), T.prototype_certificate(2, 2))


def test_prototype_forgeries_of_the_slack() -> None:
    p = T.prototype_certificate()
    bad = [
        _edit(p, lambda d: d["step"].update(slack=[])),                                     # slack dropped
        _edit(p, lambda d: d["step"]["slack"][0].__setitem__(0, T._kpj([2, 0, -1], [2, 2, -2], [0, 2, -2]))),
        _edit(p, lambda d: d["step"]["slack"][0][1].__setitem__(2, T._kpj(1))),           # g_k + g_(k+1)
        _edit(p, lambda d: d["final"]["slack"][0][1].__setitem__(1, T._kpj([-1, -1], [0, -2]))),
        _edit(p, lambda d: d["step"]["multipliers"].update(bogus=T._kpj(1))),             # unknown row
        _edit(p, lambda d: d["step"]["multipliers"].update(star_x=[[0.0, 1.0]])),        # a float
        _edit(p, lambda d: d.update(kind="pep-potential")),
    ]
    for i, cert in enumerate(bad):
        ok, why = T.check_prototype(cert)
        assert not ok and why, i
    ok, why = T.check_prototype_at(bad[1], 3)
    assert not ok and "k = 1" in why


def test_rank_one_step_slack_weight_is_the_unique_choice() -> None:
    """The weight (k+1)(2 - h^2 + k h (2 - h)) is forced: half of it leaves the identity unbalanced."""
    half = T._kpj([1, 0, F(-1, 2)], [1, 1, -1], [0, 1, F(-1, 2)])
    ok, why = T.check_prototype(T.prototype_certificate(step_slack=[[half, [T._kpj(0), T._kpj(1), T._kpj(-1)]]]))
    assert not ok and "identity" in why


@pytest.mark.slow
def test_float_sdp_finds_a_tight_horizon_independent_potential() -> None:
    """The untrusted search that found the potential: one sequence for every N <= 8 reaches ratio 1 (h = 1, 1/2)."""
    for h in (1.0, 0.5):
        assert T.horizon_independent_ratio(h, 8) > 1 - 1e-4
    assert T.horizon_independent_ratio(1.5, 8) < 0.95  # beyond sqrt 2 the template is not tight
