"""Falsification before ``proved`` (fairtheory/proofs/falsify.py): false PEP statements of every method are refuted
by an explicit instance, true ones are not, the instances come close to the suite's tight bounds, and a false
statement that a (fake) kernel accepted ends ``error`` naming the instance."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

import fairtheory_kernel.check as check_mod
from fairtheory.proofs.falsify import best_ratio, falsify_certificate, falsify_family, falsify_pep
from fairtheory.proofs.recheck import Verdict, recheck_row


def _st(method: dict[str, Any], bound: dict[str, Any], n: int = 1, L: str = "1", mu: str = "0") -> dict[str, Any]:
    return {"class": {"functions": "smooth-convex", "L": L, "mu": mu}, "n": n, "p": [f"1/{n}"] * n,
            "method": method, "bound": bound}


GD1 = {"name": "local_gd", "kappa": 1, "T_N": 0, "lr": "1", "schedule": "rfedfair", "output": "last"}
#: one GD step with step 1/L in the linear form: x_0 = x0, x_1 = x0 - g_0; measure f(x_1) - f*
GD1_LINEAR = {"name": "linear", "evaluations": [[0, [[0, "1"]]], [0, [[0, "1"], [1, "-1"]]]], "measure": ["value"],
              "outputs": [["1", [[[0, "1"], [1, "-1"]]]]]}


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
    m = {"name": "scaffold", "kappa": 2, "R": 1, "lr": "1/2", "server_lr": "1", "warm_start": True, "output": "last"}
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
    m = {"name": "local_gd_round", "kappa": 2, "lr": "1/2", "a": "1/4"}
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
           "normalisation": {"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "lr*L"},
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
           prove_family("local_gd", n=2, kappa=1, T_N=1, output="average", schedule="rfedfair", rho2=0,
                        h=(Fraction(0), Fraction(1, 2))).to_json()]
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
    assert isinstance(r.details["fresh_falsification"][0], dict)


# ------------------------------------------------------------------------------------------------ pep-potential
def _potential(name: str) -> dict[str, Any]:
    """A certificate (JSON, with evidence) as verify/claims/proofs_potential.py makes it."""
    from fairtheory.proofs.potential_search import prove_potential
    from verify.claims import proofs_potential as pp

    if name == "gd":
        return prove_potential("gd", h=pp.GD_RANGE, potential="lyapunov2").to_json()  # proofs.potential.gd's
    if name == "local_gd":
        return prove_potential("local_gd", n=2, kappa=2, output="average", schedule="rfedfair", rho2=0,
                               h=pp.LOCAL_RANGE).to_json()
    if name.startswith("thm1-"):
        kappa = int(name[5:])
        return prove_potential("local_gd", n=2, p=[Fraction(1, 2)] * 2, kappa=kappa, h=pp.THM1_RANGE,
                               bound=pp.THM1_BOUND, rho2="any", hetero=pp.thm1_hetero(kappa)).to_json()
    if name == "agm":
        return prove_potential("agm").to_json()
    return prove_potential("gd", h=1, potential=name, a0=0).to_json()


#: a short sweep for the default tests (the falsifier's own default runs before ``proved``; the slow test sweeps more)
SHORT = {"horizons": 10, "large": (100,), "extra_points": 0}


@pytest.mark.parametrize("name", ["gd", "classical", "lyapunov2", "agm"])
def test_gd_and_pepit_potential_certificates_are_not_falsified(name: str) -> None:
    """The proofs.potential.gd and proofs.potential.pepit certificates at the falsifier's own default sweep
    (N = 1..50, 100, 1000): no refutation, and the search comes close to the bound (gd: the bound is 1.5 times
    Drori & Teboulle's attained worst case, so 2/3 is the largest ratio possible)."""
    from verify.claims import proofs_potential as pp

    cert = _potential(name)
    assert check_mod.check_proof(cert)
    assert cert["statement"] == {"gd": pp.gd_statement, **{k: lambda k=k: pp.pepit_statement(k) for k in
                                                           ("classical", "lyapunov2", "agm")}}[name]()["statement"]
    assert falsify_certificate(cert) is None
    ratio = best_ratio(cert)
    assert ratio > {"gd": 2 / 3 - 1e-9, "classical": 0.49, "lyapunov2": 0.77, "agm": 0.6}[name], ratio
    assert ratio <= 1 + 1e-9


@pytest.mark.parametrize("name", ["local_gd", "thm1-2"])
def test_local_gd_potential_certificates_are_not_falsified(name: str) -> None:
    from fairtheory.proofs.falsify import falsify_potential

    cert = _potential(name)
    assert check_mod.check_proof(cert)
    best = [-1.0]
    assert falsify_potential(cert["statement"], best=best, **SHORT) is None  # type: ignore[arg-type]
    assert 0.05 < best[0] <= 1 + 1e-9


def _gd_bound(num: str, den: list[list[str]], hi: str | None = None) -> dict[str, Any]:
    st = copy.deepcopy(_potential("gd")["statement"])
    st["bound"]["num"], st["bound"]["den"] = [[num]], den
    if hi is not None:
        st["parameter"]["hi"] = hi
    return st


def test_drori_teboulle_is_attained_and_anything_below_is_falsified() -> None:
    """L D0/(4 N h + 2) is the exact worst case of GD (true, and attained to rounding by the worst-case Huber shape);
    L D0/(4 N h + 3) is false, refuted at the smallest horizon N = 1 on the first parameter h = 1/100 by an exact
    quadratic (f = x^2/2: (1 - h)^2/2 = 9801/20000 > 25/76)."""
    from fairtheory.proofs.falsify import falsify_potential

    dt = _gd_bound("1", [["2"], ["0", "4"]])
    best = [-1.0]
    assert falsify_potential(dt, best=best) is None
    assert 1 - 1e-9 < best[0] <= 1 + 1e-9
    cx = falsify_certificate({"kind": "pep-potential", "statement": _gd_bound("1", [["3"], ["0", "4"]])})
    assert isinstance(cx, dict) and cx["N"] == 1 and cx["parameter"] == "1/100"
    assert cx["instance"] == "quadratic" and cx["arithmetic"] == "exact"
    assert Fraction(cx["measure"]) == Fraction(9801, 20000) > Fraction(cx["bound"]) == Fraction(25, 76)
    # below Drori-Teboulle by a relative 10^-10 at N = 1, h = 1/100 (1/(4Nh + 2 + 10^-6 h^2 N^2)): beyond float64
    # instances, refuted by the exact closed form at N = 1; above it (- 10^-6) the statement is true at every horizon
    cx = falsify_potential(_gd_bound("1", [["2"], ["0", "4"], ["0", "0", "1/1000000"]]))
    assert cx is not None and cx["N"] == 1 and "closed form" in cx["instance"] and cx["arithmetic"] == "exact"
    assert Fraction(cx["measure"]) == Fraction(25, 51) > Fraction(cx["bound"]) == Fraction(10**10, 20400000001)
    assert falsify_potential(_gd_bound("1", [["2"], ["0", "4"], ["0", "0", "-1/1000000"]])) is None


def test_a_widened_range_is_falsified_at_the_new_end() -> None:
    """h = 3 > 2: on x^2/2 the iterates grow like 2^N; the statement is refuted at h = 3, N = 1."""
    cx = falsify_certificate({"kind": "pep-potential", "statement": _gd_bound("3", [["4"], ["0", "8"]], hi="3")})
    assert isinstance(cx, dict) and cx["parameter"] == "3" and cx["N"] == 1 and Fraction(cx["measure"]) == 2


def test_false_accelerated_and_local_gd_bounds_are_falsified() -> None:
    from fairtheory.proofs.falsify import falsify_potential

    agm = copy.deepcopy(_potential("agm")["statement"])
    agm["bound"]["num"] = [["1"]]  # 1/(N + 1)^2, half the proved bound
    cx = falsify_potential(agm)
    assert cx is not None and cx["N"] == 3 and cx["arithmetic"] == "float64"
    assert float(cx["measure"]) > float(cx["bound"]) * (1 + 1e-3)
    # local GD: a quarter of the proved 1/(2 beta L (T_N + 1)) holds up to T_N = 50 at beta L = 1/1000 and fails
    # only at a large horizon (the worst case ~ 1/(2 beta L kappa T_N)): found at T_N = 1000
    loc = copy.deepcopy(_potential("local_gd")["statement"])
    loc["bound"]["den"] = [["0", "8"], ["0", "8"]]
    cx = falsify_potential(loc)
    assert cx is not None and cx["T_N"] == 1000 and cx["parameter"] == "1/1000"
    assert cx["instance"] == "huber (worst-case shape)" and float(cx["measure"]) > 1.3 * float(cx["bound"])
    # without the large horizons it is still refuted, later in the sweep: at beta L = 1/40, T_N = 20
    cx = falsify_potential(loc, large=(), extra_points=0)
    assert cx is not None and cx["T_N"] == 20 and cx["parameter"] == "1/40" and cx["instance"] == "huber"


def test_a_heterogeneity_term_dropped_is_falsified() -> None:
    """002 Thm. 1 without its rho^2 term: clients started at x* drift apart (x0 = x*, so the distance term is 0)."""
    from fairtheory.proofs.falsify import falsify_potential

    st = copy.deepcopy(_potential("thm1-2")["statement"])
    st["bound"]["hetero"]["num"] = [["0"]]
    cx = falsify_potential(st, horizons=4, large=(), extra_points=0)
    assert cx is not None and Fraction(cx["rho2"]) > 0 and Fraction(cx["bound"]) == 0 and Fraction(cx["measure"]) > 0
    assert cx["arithmetic"] == "exact" and all(Fraction(v) == 0 for v in cx["x0"])  # an exact quadratic, x0 = x*


def test_trajectories_agree_with_the_one_horizon_methods() -> None:
    """The potential falsifier's trajectories (every horizon of one run) equal, exactly on rational quadratics, the
    pep falsifier's one-horizon runs (:func:`fairtheory.proofs.falsify._measure`) of the same method."""
    import numpy as np

    from fairtheory.proofs import falsify as fz

    p = [Fraction(1, 3), Fraction(2, 3)]
    D = [np.array([Fraction(1, 2), Fraction(3, 4)], dtype=object), np.array([Fraction(1), Fraction(1, 8)], dtype=object)]
    c = [np.array([Fraction(1, 8), Fraction(-1)], dtype=object), np.array([Fraction(0), Fraction(1, 2)], dtype=object)]
    r = [np.array([Fraction(2), Fraction(-1)], dtype=object), np.array([Fraction(-1), Fraction(1, 2)], dtype=object)]
    f = fz._Instance(Fraction(1), Fraction(0), p, ["quad"] * 2, D, c, [0.0, 0.0], r)
    x0 = np.array([Fraction(1), Fraction(-2)], dtype=object)
    t = Fraction(1, 7)
    m = {"name": "local_gd", "kappa": 3, "schedule": "rfedfair", "output": "average"}
    path = fz._trajectory(f, x0, m, t, 6)
    for T in range(7):
        assert path[T] == fz._measure(f, x0, dict(m, T_N=T, lr=t))
    g = fz._Instance(Fraction(1), Fraction(0), [Fraction(1)], ["quad"], D[:1], c[:1], [0.0], [0 * r[0]])
    path = fz._trajectory(g, x0, {"name": "gd"}, t, 6)
    assert all(path[N] == fz._measure(g, x0, {"name": "gd", "N": N, "lr": t}) for N in range(1, 7))
    assert fz._trajectory(g, x0, {"name": "gd"}, t, 6, last=True) == {6: path[6]}


@pytest.mark.slow
def test_every_potential_certificate_of_the_claims_survives_the_complete_sweep() -> None:
    """Every pep-potential certificate of verify/claims/proofs_potential.py (--full settings: kappa = 1..8 and three
    clients for 002 Thm. 1) against a larger sweep: more instances and parameter points, T_N up to 1000 and the
    local-GD PEP at T_N = 0, 1."""
    from fairtheory.proofs.falsify import falsify_potential
    from fairtheory.proofs.potential_search import prove_potential
    from verify.claims import proofs_potential as pp

    certs = [_potential(n) for n in ("gd", "local_gd", "classical", "lyapunov2", "agm")]
    certs += [prove_potential("local_gd", n=len(p), p=list(p), kappa=k, h=pp.THM1_RANGE, bound=pp.THM1_BOUND,
                              rho2="any", hetero=pp.thm1_hetero(k)).to_json() for k, p in pp.THM1_SETTINGS]
    # the same statements the claims declare
    assert [c["statement"] for c in certs[:2]] == [pp.gd_statement()["statement"], pp.local_statement()["statement"]]
    for c in certs:
        assert check_mod.check_proof(c)
        assert falsify_potential(c["statement"], trials=4, extra_points=2, large=(100, 300, 1000), exact_pep=(0, 1)) is None


def test_a_false_potential_statement_a_fake_kernel_accepted_is_a_kernel_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recheck path (before ``proved``): a gd potential certificate relabelled with 1/(4Nh + 3), below Drori &
    Teboulle's attained worst case, that a (fake) kernel accepts, fails naming the horizon and the instance."""
    cert = _potential("gd")
    cert["statement"] = _gd_bound("1", [["3"], ["0", "4"]])
    assert not check_mod.check_proof(cert)
    monkeypatch.setattr(check_mod, "check_proof", lambda *a, **k: True)
    declared = [cert["statement"]]
    v = recheck_row(cert, declared, [check_mod.describe(declared[0])])
    assert not v.ok and v.reason.startswith("KERNEL BUG: certificate 0 re-checked but its statement is false at ")
    assert '"N": 1' in v.reason and '"instance": "quadratic"' in v.reason and '"parameter": "1/100"' in v.reason
    assert recheck_row(cert, declared, None, falsify=False).ok
