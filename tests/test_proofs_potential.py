"""``pep-potential`` certificates: bounds for every number of iterations (docs/proofs.md section 8).

The kernel (:mod:`fairtheory_kernel.potential_kernel`) must accept the classical proofs and refuse every
forgery: a lowered bound, a widened or false range, an edited potential coefficient, edited multipliers, a statement
up to ``h = 21/10``.  Each proved bound is falsified against the exact worst case."""

from __future__ import annotations

import copy
from fractions import Fraction as Q

import pytest

from fairtheory.proofs import check_proof, describe, implies, prove_potential, statement_of
from fairtheory.proofs.potential_search import PotentialNotProved
from fairtheory_kernel import potential_kernel as K

GD = (Q(1, 100), Q(1))
LOCAL = (Q(1, 1000), Q(1, 40))


@pytest.fixture(scope="module")
def gd() -> dict:
    """The Lyapunov-2 certificate (1.5 x Drori-Teboulle; the default is now the tight potential, tested in
    tests/test_proofs_potential_search.py): the forgeries below are edits of its fields."""
    c = prove_potential("gd", h=GD, potential="lyapunov2")
    assert c.check()
    return c.to_json()


@pytest.fixture(scope="module")
def local() -> dict:
    c = prove_potential("local_gd", n=2, kappa=2, output="average", schedule="rfedfair", rho2=0, h=LOCAL)
    assert c.check()
    return c.to_json()


def _edit(js: dict, f) -> dict:
    d = copy.deepcopy(js)
    f(d)
    return d


def test_gd_acceptance(gd: dict) -> None:
    c = prove_potential("gd", h=GD, potential="lyapunov2")
    assert check_proof(gd)
    for h in (Q(1, 100), Q(1, 7), Q(1, 2), Q(1)):
        for N in range(1, 1001):
            b = c.bound(N=N, h=h, L=1, D0=1)
            assert b >= Q(1, 1) / (4 * N * h + 2)          # Drori-Teboulle's exact worst case
            assert b * N <= Q(3, 4) / h                     # O(1/N), explicitly
    assert c.bound(N=3, h=Q(1, 2), L=2, D0=5) == 10 * Q(3, 16)          # 3 L D0/(8 N h + 4)
    assert all(c.bound(N=N, h=h) == Q(3, 2) / (4 * N * h + 2) for N in (1, 9, 999) for h in (Q(1, 100), Q(1)))
    with pytest.raises(ValueError):
        c.bound(N=3, h=Q(3, 2))
    with pytest.raises(ValueError):
        c.bound(N=0, h=Q(1, 2))


def test_gd_beyond_two_refused() -> None:
    with pytest.raises(PotentialNotProved, match="no bound for every N"):
        prove_potential("gd", h=(Q(1), Q(21, 10)))


def test_gd_template_fails_past_golden_ratio_named() -> None:
    # the classical potential's one-step inequality holds for h <= (1 + sqrt 5)/2 only: the kernel names the block
    with pytest.raises(PotentialNotProved, match="step obligation"):
        prove_potential("gd", h=(Q(1), Q(19, 10)), a0=0)


@pytest.mark.parametrize("name,edit", [
    ("bound lowered 10%", lambda d: d["statement"]["bound"].update(num=[["27/10"]])),
    ("bound denominator 9 h N", lambda d: d["statement"]["bound"].update(den=[["4"], ["0", "9"]])),
    ("range widened to 21/10", lambda d: d["statement"]["parameter"].update(hi="21/10")),
    ("range widened to 2", lambda d: d["statement"]["parameter"].update(hi="2")),
    ("false range lo > hi", lambda d: d["statement"]["parameter"].update(lo="1", hi="1/2")),
    ("negative range", lambda d: d["statement"]["parameter"].update(lo="-1")),
    ("potential slope 3h", lambda d: d["statement"]["potential"]["terms"].update(f=[["1"], ["0", "3"]])),
    ("potential f(x_0) weight 1/2", lambda d: d["statement"]["potential"]["terms"].update(f=[["1/2"], ["0", "2"]])),
    ("distance weight 1/2", lambda d: d["statement"]["potential"]["terms"].update(xx=[["1/2"]])),
    ("gradient term 3 h^2 k", lambda d: d["statement"]["potential"]["terms"].update(gg=[["0"], ["0", "0", "3"], ["0", "0", "1"]])
     ),
    ("gradient term dropped", lambda d: d["statement"]["potential"]["terms"].pop("gg")),
    ("scale dropped", lambda d: d["evidence"]["final"].pop("scale")),
    ("scale negative", lambda d: d["evidence"]["final"].update(scale=[[0, [["-1"], ["0", "2"]]]])),
    ("initial bound lowered", lambda d: d["statement"]["potential"]["initial"].update(num=["1"])),
    ("multiplier negated", lambda d: d["evidence"]["step"]["multipliers"][1].__setitem__(1, [["0", "-1"]])),
    ("multiplier dropped", lambda d: d["evidence"]["step"]["multipliers"].pop()),
    ("multiplier moved", lambda d: d["evidence"]["step"]["multipliers"][1].__setitem__(0, 2)),
    ("initial multiplier changed", lambda d: d["evidence"]["initial"]["multipliers"][1].__setitem__(1, [["2"]])),
    ("denominator with a root", lambda d: d["evidence"]["step"].update(denominator=["-1/2", "1"])),
    ("mu = 1/10", lambda d: d["statement"]["class"].update(mu="1/10")),
    ("normalisation L = 2", lambda d: d["statement"]["normalisation"].update(L="2")),
    ("method local_gd", lambda d: d["statement"].update(method={"name": "local_gd", "kappa": 1, "schedule": "rfedfair",
                                                                "output": "average"})),
    ("unknown key", lambda d: d["statement"].update(extra=1)),
    ("other kind", lambda d: d.update(kind="pep-family")),
    ("float coefficient", lambda d: d["statement"]["bound"].update(num=[[1.5]])),
    ("huge degree", lambda d: d["statement"]["potential"]["terms"].update(f=[["1"]] * 50)),
])
def test_gd_forgeries_rejected(gd: dict, name: str, edit) -> None:
    d = _edit(gd, edit)
    ok, why = K.explain_potential(d)
    assert not ok, name
    assert not check_proof(d), name


def test_h_up_to_21_10_statement_rejected(gd: dict) -> None:
    # a statement claiming 3/(4Nh+2) up to h = 21/10, with the pieces of evidence that work up to 1: false at h > 2
    d = _edit(gd, lambda d: d["statement"]["parameter"].update(hi="21/10"))
    ok, why = K.explain_potential(d)
    assert not ok and "not PSD" in why


def test_meta_is_not_read(gd: dict) -> None:
    assert check_proof(_edit(gd, lambda d: d["meta"].update(in_words="f(x_N) - f* <= 0")))


def test_gd_implies(gd: dict) -> None:
    from fairtheory.proofs.parametric import family_statement
    from fairtheory_kernel.family import poly

    s = statement_of(gd)
    fam = lambda lo, num, N=5: {"kind": "pep-family", "statement": family_statement(  # noqa: E731
        "gd", lo=lo, hi=Q(1, 2), num=poly(num), den=poly([2, 4 * N]), N=N)}
    assert implies(s, fam(Q(1, 10), [3]))            # one N, a sub-range, the same bound
    assert implies(s, fam(Q(1, 10), [4], N=12))      # a weaker bound at another N
    assert not implies(s, fam(Q(1, 10), [1]))        # Drori-Teboulle's exact bound is stronger: not implied
    assert not implies(s, fam(Q(0), [3]))            # outside the proved range
    assert implies(s, fam(Q(1, 10), [Q(3, 2)]))      # exactly the proved bound, 1.5 x Drori-Teboulle
    weaker = _edit(gd["statement"], lambda d: d["bound"].update(num=[["4"]]))
    stronger = _edit(gd["statement"], lambda d: d["bound"].update(num=[["2"]]))
    sub = _edit(gd["statement"], lambda d: d["parameter"].update(lo="1/2"))
    wider = _edit(gd["statement"], lambda d: d["parameter"].update(hi="3/2"))
    assert implies(s, {"kind": "pep-potential", "statement": weaker})
    assert implies(s, {"kind": "pep-potential", "statement": sub})
    assert not implies(s, {"kind": "pep-potential", "statement": stronger})
    assert not implies(s, {"kind": "pep-potential", "statement": wider})
    assert "for every N >= 1" in describe(s) and "[1/100, 1]" in describe(s)


def test_pepit_lyapunov() -> None:
    l1 = prove_potential("gd", h=1, potential="classical", a0=0)
    l2 = prove_potential("gd", h=1, potential="lyapunov2")
    assert check_proof(l1.to_json()) and check_proof(l2.to_json())
    assert l1.bound(N=7, h=1) == Q(1, 14) and l2.bound(N=7, h=1) == Q(3, 62)
    # Lyapunov 2's final relation is PSD for every N >= 1 but not coefficient-wise in N - 1: decided exactly at h = 1
    d = _edit(l2.to_json(), lambda d: d["statement"]["bound"].update(num=[["29/10"]]))
    assert not K.check_potential(d)
    c = prove_potential("gd", h=(Q(1, 2), Q(1)), potential="lyapunov2")
    assert c.check() and c.bound(N=7, h=Q(1, 2)) == Q(3, 32)
    with pytest.raises(PotentialNotProved):  # its one-step inequality needs h <= 1
        prove_potential("gd", h=(Q(1, 2), Q(11, 10)), potential="lyapunov2")


@pytest.mark.parametrize("steps", [pytest.param((LOCAL[1],)), pytest.param((LOCAL[0], Q(1, 100)), marks=pytest.mark.slow)])
def test_local_acceptance(local: dict, steps: tuple) -> None:
    from fairtheory.worstcase import local_gd_worst_case

    c = prove_potential("local_gd", n=2, kappa=2, h=LOCAL)
    assert check_proof(local)
    for T_N in (1, 2, 3, 4):
        for t in steps:
            wc = local_gd_worst_case(n=2, kappa=2, T_N=T_N, lr=float(t), L=1.0, D0=1.0, rho2=0.0, output="average").value
            assert float(c.bound(T_N=T_N, h=t)) >= wc * (1 - 1e-7)


@pytest.mark.parametrize("name,edit", [
    ("bound lowered 10%", lambda d: d["statement"]["bound"].update(num=[["9/10"]])),
    ("weight 3 beta L", lambda d: d["statement"]["potential"]["weight"].update(num=["0", "3"])),
    ("range widened to 3", lambda d: d["statement"]["parameter"].update(hi="3")),
    ("range from 0", lambda d: d["statement"]["parameter"].update(lo="0")),
    ("kappa relabelled", lambda d: d["statement"]["method"].update(kappa=3)),
    ("weights relabelled", lambda d: d["statement"].update(p=["1/3", "2/3"])),
    ("output 000", lambda d: d["statement"]["method"].update(output="000")),
    ("rho2 = 1", lambda d: d["statement"]["bound"].update(rho2="1")),
    ("distance coefficient 1/2", lambda d: d["statement"]["potential"]["terms"].update(xx=[["1/2"]])),
    ("initial bound 1/2", lambda d: d["statement"]["potential"]["initial"].update(num=["1/2"])),
])
def test_local_forgeries_rejected(local: dict, name: str, edit) -> None:
    assert not check_proof(_edit(local, edit)), name


def test_local_refusals() -> None:
    with pytest.raises(PotentialNotProved, match="for every rho"):
        prove_potential("local_gd", n=2, kappa=2, rho2=1, h=LOCAL)
    with pytest.raises(PotentialNotProved):
        prove_potential("local_gd", n=2, kappa=2, h=(Q(1, 10), Q(3)))  # w = 2 h needs h <= 1


def test_theorem1_bound_and_weights() -> None:
    c = prove_potential("local_gd", n=3, p=[Q(1, 2), Q(1, 3), Q(1, 6)], kappa=3, h=(Q(1, 2**20), Q(1, 40)),
                        bound=([["2"]], [["0", "1"], ["0", "1"]]))
    assert check_proof(c.to_json())
    assert c.bound(T_N=9, h=Q(1, 40)) == Q(8)


def test_falsification_every_certificate(gd: dict, local: dict) -> None:
    """Every certificate made here, against explicit instances run in rationals (quadratic, Huber) at many N."""
    from fairtheory.worstcase.references import gd_instances_value

    others = [prove_potential("gd", h=1, potential="classical", a0=0), prove_potential("gd", h=1, potential="lyapunov2"),
              prove_potential("gd", h=GD, potential="classical")]
    for js in [gd] + [c.to_json() for c in others]:
        st = K.canonical(js["statement"])
        lo, hi = st["parameter"]["lo"], st["parameter"]["hi"]
        for h in {lo, (lo + hi) / 2, hi}:
            for N in range(1, 60):
                assert K.bound_at(st, N, h) >= gd_instances_value(N, h)


def test_fixed_horizon_statements_implied_and_not_falsified(gd: dict, local: dict) -> None:
    """At N (T_N) = 1, 2, 3 the certificate implies the pep-family statement of that horizon, and the shared
    falsifier (:func:`fairtheory.proofs.falsify.falsify_family`: quadratics, Huber functions) finds no instance above
    it."""
    from fairtheory.proofs.falsify import falsify_family
    from fairtheory.proofs.potential_search import family_at

    for js in (gd, local):
        for k in (1, 2, 3):
            fam = family_at(js["statement"], k)
            assert implies(statement_of(js), {"kind": "pep-family", "statement": fam})
            assert falsify_family(fam, trials=4) is None
    low = family_at(gd["statement"], 2)
    low["bound"]["value"]["num"] = ["1/2"]   # 1/(16 h + 4) < Drori-Teboulle's 1/(8 h + 2): not implied
    assert not implies(statement_of(gd), {"kind": "pep-family", "statement": low})


@pytest.fixture(scope="module")
def agm() -> dict:
    c = prove_potential("agm")
    assert c.check()
    return c.to_json()


def test_agm(agm: dict) -> None:
    from fairtheory.worstcase.references import agm_worst_case

    c = prove_potential("agm")
    assert check_proof(agm)
    assert c.bound(N=9, h=1, L=3, D0=2) == Q(12, 100)
    assert agm_worst_case(2) <= float(c.bound(N=2, h=1)) * (1 + 1e-7)   # PEP worst case 0.45 x the bound
    assert "accelerated gradient method" in describe(statement_of(agm))


@pytest.mark.parametrize("name,edit", [
    ("bound 19/10 (N+1)^-2", lambda d: d["statement"]["bound"].update(num=[["19/10"]])),
    ("bound 2/(N+1)^3", lambda d: d["statement"]["bound"].update(den=[["1"], ["3"], ["3"], ["1"]])),
    ("multiplier 1 - s -> s", lambda d: d["evidence"]["step"]["multipliers"][1].__setitem__(1, [["0", "1"]])),
    ("multiplier s -> s/2", lambda d: d["evidence"]["step"]["multipliers"][2].__setitem__(1, [["0", "1/2"]])),
    ("descent multiplier dropped", lambda d: d["evidence"]["step"]["multipliers"].pop(0)),
    ("step 2/L", lambda d: d["statement"]["parameter"].update(lo="2", hi="2")),
    ("another potential", lambda d: d["statement"].update(potential="lambda_k (f(x_k) - f*)")),
    ("generic potential fields", lambda d: d["statement"].update(potential={"terms": {"f": [["1"]]}, "den": ["1"],
                                                                            "initial": {"num": ["1"], "den": ["1"]}})),
    ("initial evidence added", lambda d: d["evidence"].update(initial={"denominator": ["1"], "multipliers": []})),
])
def test_agm_forgeries_rejected(agm: dict, name: str, edit) -> None:
    assert not K.check_potential(_edit(agm, edit)), name


@pytest.fixture(scope="module")
def hetero() -> dict:
    c = prove_potential("local_gd", n=2, kappa=2, rho2="any", h=(Q(1, 2**20), Q(1, 40)))
    assert c.check()
    return c.to_json()


def test_hetero_every_rho(hetero: dict) -> None:
    """For every rho: G(theta_tilde) - G* <= L D0/(2 beta L (T_N+1)) + (17/64) L beta^2 rho^2 (kappa = 2), above the exact
    worst case with D0 = 0 (the heterogeneity term alone); it implies the rho = 0 statements, not conversely."""
    from fairtheory.worstcase import local_gd_worst_case

    c = prove_potential("local_gd", n=2, kappa=2, rho2="any", h=(Q(1, 2**20), Q(1, 40)))
    assert check_proof(hetero)
    assert hetero["statement"]["potential"]["drift"]["num"] == ["0", "0", "0", "17/32"]
    t = Q(1, 40)
    assert c.bound(T_N=3, h=t, D0=0, rho2=1) == Q(17, 64) * t * t
    wc = local_gd_worst_case(n=2, kappa=2, T_N=2, lr=float(t), L=1.0, D0=0.0, rho2=1.0, output="average").value
    assert wc <= float(c.bound(T_N=2, h=t, D0=0, rho2=1))
    s = statement_of(hetero)
    rho0 = prove_potential("local_gd", n=2, kappa=2, h=(Q(1, 2**20), Q(1, 40)))
    assert implies(s, {"kind": "pep-potential", "statement": rho0.statement})
    assert not implies(statement_of(rho0.to_json()), s)
    thm = prove_potential("local_gd", n=2, kappa=2, rho2="any", h=(Q(1, 2**20), Q(1, 40)),
                          bound=([["2"]], [["0", "1"], ["0", "1"]]), hetero=([["0", "0", "52"]], [["1"]]))
    assert implies(s, {"kind": "pep-potential", "statement": thm.statement})
    assert not implies(statement_of(thm.to_json()), s)
    with pytest.raises(ValueError):
        rho0.bound(T_N=1, h=t, rho2=1)
    assert "rho^2 = sum_i p_i ||grad f_i(x*)||^2" in describe(s)


@pytest.mark.parametrize("name,edit", [
    ("rho^2 coefficient halved", lambda d: d["statement"]["bound"]["hetero"].update(num=[["0", "0", "17/128"]])),
    ("drift halved", lambda d: d["statement"]["potential"]["drift"].update(num=["0", "0", "0", "17/64"])),
    ("drift 0", lambda d: d["statement"]["potential"]["drift"].update(num=["0"])),
    ("drift dropped", lambda d: d["statement"]["potential"].pop("drift")),
    ("hetero dropped, rho2 free", lambda d: d["statement"]["bound"].pop("hetero")),
    ("weight 3 beta L", lambda d: d["statement"]["potential"]["weight"].update(num=["0", "3"])),
    ("kappa 3 relabelled", lambda d: d["statement"]["method"].update(kappa=3)),
    ("fedavg schedule", lambda d: d["statement"]["method"].update(schedule="fedavg")),
    ("range to 1", lambda d: d["statement"]["parameter"].update(hi="1")),
])
def test_hetero_forgeries_rejected(hetero: dict, name: str, edit) -> None:
    assert not K.check_potential(_edit(hetero, edit)), name


def _evidence_mutants(js: dict):
    """Every rational of the evidence (denominators and multipliers; not the scales, nor the denominator of an
    obligation without multipliers: there any positive value proves the same) plus 1/1000, one at a time, after a JSON
    round trip."""
    import json

    base = json.loads(json.dumps(js))
    for name, ob in base["evidence"].items():
        paths = [("denominator", i) for i in range(len(ob["denominator"])) if ob["multipliers"]]
        paths += [("multipliers", j, 1, m, i) for j, (_, kp) in enumerate(ob["multipliers"])
                  for m, tp in enumerate(kp) for i in range(len(tp))]
        for path in paths:
            d = json.loads(json.dumps(base))
            node = d["evidence"][name]
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = str(Q(node[path[-1]]) + Q(1, 1000))
            yield f"{name}{path}", d


def test_mutation_sweep(gd: dict, local: dict, agm: dict, hetero: dict) -> None:
    lyap2 = prove_potential("gd", h=1, potential="lyapunov2").to_json()
    n = 0
    for js in (gd, local, agm, hetero, lyap2):
        for where, d in _evidence_mutants(js):
            assert not K.check_potential(d), where
            n += 1
    assert n > 40
