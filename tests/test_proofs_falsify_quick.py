"""The quick run's falsification (fairtheory/proofs/falsify.py ``falsify_certificate(..., quick=True)``): the quick
``python -m verify`` runs ``pep-potential`` statements to the horizons ``QUICK_HORIZONS`` and ``QUICK_LARGE_HORIZONS``
instead of ``HORIZONS`` and ``LARGE_HORIZONS`` (``--full``, ``recheck_report``).  Each forgery the full sweep refutes
in tests/test_proofs_falsify.py is refuted by the quick sweep too; the genuine certificates of the quick claims are
not; the flag travels from the runner through the fresh interpreter to the falsifier; every other kind is falsified
exactly as in full."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

import fairtheory.proofs.falsify as falsify_mod
import fairtheory_kernel.check as check_mod
from fairtheory.proofs.falsify import HORIZONS, LARGE_HORIZONS, QUICK_HORIZONS, QUICK_LARGE_HORIZONS, falsify_certificate
from fairtheory.proofs.recheck import FreshChecker, recheck_row


def _potential(name: str) -> dict[str, Any]:
    """A certificate (JSON) as verify/claims/proofs_potential.py makes it."""
    from fairtheory.proofs.potential_search import prove_potential
    from verify.claims import proofs_potential as pp

    if name == "gd":
        return prove_potential("gd", h=pp.GD_RANGE).to_json()
    if name == "local_gd":
        return prove_potential("local_gd", n=2, kappa=2, output="average", schedule="rfedfair", rho2=0,
                               h=pp.LOCAL_RANGE).to_json()
    kappa = int(name[5:])  # "thm1-<kappa>"
    return prove_potential("local_gd", n=2, p=[Fraction(1, 2)] * 2, kappa=kappa, h=pp.THM1_RANGE,
                           bound=pp.THM1_BOUND, rho2="any", hetero=pp.thm1_hetero(kappa)).to_json()


def test_the_quick_horizons_are_a_subset_of_the_full_ones() -> None:
    assert 1 <= QUICK_HORIZONS < HORIZONS
    assert QUICK_LARGE_HORIZONS and set(QUICK_LARGE_HORIZONS) <= set(LARGE_HORIZONS)


def test_quick_runs_potential_statements_to_the_quick_horizons_only(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(falsify_mod, "falsify_potential", lambda st, **kw: seen.append(kw))
    cert = {"kind": "pep-potential", "statement": {"method": {"name": "gd"}}}
    assert falsify_certificate(cert, quick=True) is None
    assert falsify_certificate(cert) is None
    assert seen == [{"horizons": QUICK_HORIZONS, "large": QUICK_LARGE_HORIZONS}, {}]


@pytest.mark.parametrize("kind", ["pep-dual", "pep-family"])
def test_quick_falsifies_other_kinds_as_in_full(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(falsify_mod, "falsify_pep", lambda st, **kw: seen.append(("pep", kw)))
    monkeypatch.setattr(falsify_mod, "falsify_family", lambda st, **kw: seen.append(("family", kw)))
    cert = {"kind": kind, "statement": {}}
    assert falsify_certificate(cert, quick=True) is None
    assert falsify_certificate(cert, quick=False) is None
    assert len(seen) == 2 and seen[0] == seen[1] and seen[0][1] == {}


def test_quick_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="quick must be a bool"):
        falsify_certificate({"kind": "pep-potential", "statement": {}}, quick="yes")  # type: ignore[arg-type]


def test_quick_refutes_a_bound_below_drori_teboulle_at_n1() -> None:
    """1/(4 N h + 3) < Drori & Teboulle's attained 1/(4 N h + 2): refuted at N = 1, h = 1/100, as in full."""
    st = copy.deepcopy(_potential("gd")["statement"])
    st["bound"]["num"], st["bound"]["den"] = [["1"]], [["3"], ["0", "4"]]
    cx = falsify_certificate({"kind": "pep-potential", "statement": st}, quick=True)
    assert isinstance(cx, dict) and cx["N"] == 1 and cx["parameter"] == "1/100" and cx["arithmetic"] == "exact"
    assert Fraction(cx["measure"]) == Fraction(9801, 20000) > Fraction(cx["bound"]) == Fraction(25, 76)


def test_quick_refutes_a_quarter_of_the_local_gd_bound() -> None:
    """A quarter of the proved local-GD bound fails only at large horizons (full: T_N = 1000 at 1/1000); the quick
    sweep (no T_N = 1000) finds it at the range's other end, lr L = 1/40, T_N = 20, on a Huber instance - where the
    full sweep without its large horizons finds it too (tests/test_proofs_falsify.py)."""
    st = copy.deepcopy(_potential("local_gd")["statement"])
    st["bound"]["den"] = [["0", "8"], ["0", "8"]]
    cx = falsify_certificate({"kind": "pep-potential", "statement": st}, quick=True)
    assert isinstance(cx, dict) and cx["T_N"] == 20 and cx["parameter"] == "1/40" and cx["instance"] == "huber"
    assert float(cx["measure"]) > float(cx["bound"]) * (1 + 1e-3)


def test_quick_refutes_theorem1_without_its_heterogeneity_term() -> None:
    st = copy.deepcopy(_potential("thm1-2")["statement"])
    st["bound"]["hetero"]["num"] = [["0"]]
    cx = falsify_certificate({"kind": "pep-potential", "statement": st}, quick=True)
    assert isinstance(cx, dict) and Fraction(cx["rho2"]) > 0 and Fraction(cx["bound"]) == 0
    assert Fraction(cx["measure"]) > 0


@pytest.mark.parametrize("name", ["gd", "local_gd", "thm1-1", "thm1-2", "thm1-3"])
def test_quick_does_not_refute_the_quick_claims_certificates(name: str) -> None:
    assert falsify_certificate(_potential(name), quick=True) is None


def test_recheck_row_quick_still_names_a_kernel_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    cert = _potential("gd")
    cert["statement"]["bound"]["num"], cert["statement"]["bound"]["den"] = [["1"]], [["3"], ["0", "4"]]
    assert not check_mod.check_proof(cert)
    monkeypatch.setattr(check_mod, "check_proof", lambda *a, **k: True)
    declared = [cert["statement"]]
    v = recheck_row(cert, declared, [check_mod.describe(declared[0])], quick=True)
    assert not v.ok and v.reason.startswith("KERNEL BUG: certificate 0 re-checked but its statement is false at ")
    assert '"N": 1' in v.reason and '"parameter": "1/100"' in v.reason


def test_the_fresh_checker_sends_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(FreshChecker, "_start", lambda self: None)
    monkeypatch.setattr(FreshChecker, "request", lambda self, payload, timeout: sent.append(payload))
    for quick in (True, False):
        assert not FreshChecker(quick=quick).check(_potential("gd"), [{}]).ok  # no answer: the row fails
    assert [p["quick"] for p in sent] == [True, False]
    assert FreshChecker().quick is False


@pytest.mark.parametrize("mode", [["--quick"], ["--full"], []])
def test_the_runner_asks_for_quick_falsification_in_quick_mode_only(monkeypatch: pytest.MonkeyPatch, mode: list[str],
                                                                     tmp_path: Any) -> None:
    import verify.runner as runner

    made: list[dict[str, Any]] = []

    class Spy(FreshChecker):
        def __init__(self, **kw: Any) -> None:
            made.append(kw)
            super().__init__(**kw)

    monkeypatch.setattr(runner, "FreshChecker", Spy)
    rc = runner.main([*mode, "--only", "proofs.rcfl.prop1.softplus", "--no-entry-points", "--json",
                      str(tmp_path / "r.json"), "--no-markdown"])
    assert rc == 0
    assert made == [{"quick": mode != ["--full"]}]


def test_quick_falsifies_symbolic_statements_at_fewer_points(monkeypatch: pytest.MonkeyPatch) -> None:
    import fairtheory.proofs.falsify_symbolic as sym

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(sym, "falsify", lambda st, **kw: seen.append(kw))
    for quick in (True, False):
        assert falsify_certificate({"kind": "sympy-proof", "statement": {}}, quick=quick) is None
    assert seen == [{"points": falsify_mod.QUICK_SYMBOLIC_POINTS, "dps": 50, "seed": 0},
                    {"points": falsify_mod.SYMBOLIC_POINTS, "dps": 50, "seed": 0}]
    assert 10 <= falsify_mod.QUICK_SYMBOLIC_POINTS < falsify_mod.SYMBOLIC_POINTS == 200


def test_quick_symbolic_falsification_still_refutes_false_statements() -> None:
    """The forgeries of tests/test_proofs_symbolic.py, through falsify_certificate at the quick run's 50 points: the
    softplus smoothness bound halved, lemma 2's log 2 replaced by log(3/2), prop. 1's equality moved to x = 1."""
    import fairtheory.proofs.symbolic as S
    from fairtheory.proofs.symbolic import IDX, E, at, log, q, sm, v

    def quick(st: dict[str, Any]) -> Any:
        return falsify_certificate({"kind": "symbolic", "statement": st}, quick=True)

    certs = {k: S.ALL_CERTIFICATES[k]() for k in ("softplus_smoothness", "lemma2", "prop1")}
    assert all(quick(c["statement"]) is None for c in certs.values())
    st = copy.deepcopy(certs["softplus_smoothness"]["statement"])
    st["goals"][0]["rhs"] = E.lift(1 / (8 * v("mu")))  # the true maximum is 1/(4 mu)
    bad = quick(st)
    assert isinstance(bad, dict) and bad["goal"] == "upper" and float(bad["lhs"]) > float(bad["rhs"])
    st = copy.deepcopy(certs["lemma2"]["statement"])
    st["goals"][0]["rhs"] = E.lift(v("mu") * sm(at("p", IDX) / at("alpha", IDX), 1, v("n")) * log(q("3/2")))
    assert quick(st)["goal"] == "F^mu - F <= mu tau_alpha log 2"
    st = copy.deepcopy(certs["prop1"]["statement"])
    st["goals"][0]["attained"] = [["x", ["q", "1"]]]  # equality does not hold at x = 1
    assert quick(st)["goal"] == "gap <= mu log 2"
