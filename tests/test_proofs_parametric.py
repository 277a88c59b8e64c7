"""Parametric ("pep-family") certificates: proofs for every step size in a range (issue 25).

The kernel (:mod:`fairtheory_kernel.family`) is checked against the point kernel, its real-algebra
primitives against sympy, and every forgery of the issue is rejected."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction as Q

import pytest
import sympy as sp

from fairtheory.errors import FairtheoryError, FairtheoryTypeError, FairtheoryValueError, SolverError
from fairtheory.proofs.certificate import statement
from fairtheory.proofs.parametric import FamilyNotProved, OutOfRange, check_family, explain_family, largest_range, prove_family
from fairtheory.proofs.parametric import at as family_at_value
from fairtheory_kernel import family as pk
from fairtheory_kernel import pep as pep_kernel


@pytest.fixture(scope="module")
def gd2():
    return prove_family("gd", N=2, h=(Q(0), Q(1)))


@pytest.fixture(scope="module")
def lgd12():
    return prove_family("local_gd", n=2, kappa=1, T_N=2, output="average", schedule="rfedfair", rho2=0,
                        h=(Q(0), Q(1, 2)))


def _fam(method, n, lo, hi, num=("1",), den=("2", "4")):
    return {"class": {"functions": "smooth-convex", "mu": "0"}, "normalisation": dict(pk.NORMALISATION),
            "n": n, "p": [str(Q(1, n))] * n, "method": method,
            "parameter": {"name": pk.PARAMETER[method["name"]], "lo": str(lo), "hi": str(hi)},
            "bound": {"form": "constrained", "rho2": "0", "value": {"num": list(num), "den": list(den)}}}


# ------------------------------------------------------------------------------------------------ the kernel's SDP
@pytest.mark.parametrize("N", [1, 3])
def test_gd_sdp_equals_point_kernel(N):
    """At rational steps the parametric SDP of N steps of GD is exactly the point kernel's (local GD, one client,
    kappa = 1, T_N = N - 1, output last)."""
    data = pk.build(pk.canonical(_fam({"name": "gd", "N": N}, 1, 0, 2)))
    for h in (Q(1, 3), Q(1), Q(7, 5)):
        at = family_at_value(data, h)
        ks = pep_kernel.canonical(statement(method={"name": "local_gd", "kappa": 1, "T_N": N - 1, "lr": h,
                                                    "schedule": "rfedfair", "output": "last"}, n=1,
                                            bound={"form": "constrained", "D0": 1, "rho2": 0, "value": 0}))
        ref = pep_kernel.build(ks)
        assert at["dim"] == ref["dim"] and at["nf"] == ref["nf"]
        assert at["rows"] == ref["rows"]
        assert at["objective"] == ref["objective"]


@pytest.mark.parametrize("kappa,T_N", [(1, 2), (2, 2), (3, 2)])
def test_local_gd_sdp_equals_point_kernel(kappa, T_N):
    """The parametric local-GD SDP at h = 1/7, 1/4, 1/2 equals pep_kernel.build's (rows, objective, sizes)."""
    data = pk.build(pk.canonical(_fam({"name": "local_gd", "kappa": kappa, "T_N": T_N, "schedule": "rfedfair",
                                       "output": "average"}, 2, 0, Q(1, 2))))
    for b in (Q(1, 7), Q(1, 4), Q(1, 2)):
        at = family_at_value(data, b)
        ks = pep_kernel.canonical(statement(method={"name": "local_gd", "kappa": kappa, "T_N": T_N, "lr": b,
                                                    "schedule": "rfedfair", "output": "average"}, n=2,
                                            bound={"form": "constrained", "D0": 1, "rho2": 0, "value": 0}))
        ref = pep_kernel.build(ks)
        assert (at["dim"], at["nf"], len(at["rows"])) == (ref["dim"], ref["nf"], len(ref["rows"]))
        assert at["rows"] == ref["rows"]
        assert at["objective"] == ref["objective"]


# ------------------------------------------------------------------------------------------------ real algebra
def test_root_count_matches_sympy():
    x = sp.Symbol("x")
    rng = random.Random(7)
    for _ in range(40):
        deg = rng.randint(1, 7)
        roots = [Q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(rng.randint(0, deg))]
        cs = [Q(rng.randint(-5, 5)) for _ in range(deg - len(roots) + 1)]
        if all(c == 0 for c in cs):
            cs[0] = Q(1)
        f = pk.poly(cs)
        for r in roots:
            f = f * pk.poly([-r, Q(1)])
        lo, hi = sorted((Q(rng.randint(-12, 12), rng.randint(1, 3)), Q(rng.randint(-12, 12), rng.randint(1, 3))))
        if lo == hi:
            hi = lo + 1
        expr = sum(sp.Rational(c.numerator, c.denominator) * x ** e
                   for e, c in enumerate(pk._frac(c) for c in f.coeffs()))
        # sympy counts distinct roots in the closed interval; ours in the open one
        ends = sum(1 for e in (lo, hi) if expr.subs(x, sp.Rational(e.numerator, e.denominator)) == 0)
        closed = sp.Poly(expr, x).count_roots(sp.Rational(lo.numerator, lo.denominator),
                                              sp.Rational(hi.numerator, hi.denominator))
        sqf = sp.Poly(sp.sqf_part(expr), x).count_roots(sp.Rational(lo.numerator, lo.denominator),
                                                        sp.Rational(hi.numerator, hi.denominator))
        assert pk.count_roots_open(f, lo, hi) == sqf - ends
        assert closed >= sqf


def test_nonneg_on():
    t = pk.poly([Q(0), Q(1)])
    assert pk.nonneg_on(t * t, Q(-1), Q(1)) is True
    assert pk.nonneg_on(t, Q(-1), Q(1)) is False
    assert pk.nonneg_on(t, Q(0), Q(1)) is True
    half = t - pk.poly([Q(1, 2)])
    assert pk.nonneg_on(half * half * (t + pk.poly([Q(3)])), Q(0), Q(1)) is True   # touches 0 at 1/2
    assert pk.nonneg_on(half * half * half, Q(0), Q(1)) is False                     # odd multiplicity
    assert pk.nonneg_on(pk.poly([Q(0)]), Q(0), Q(1)) is True
    assert pk.no_root_on(t + pk.poly([Q(1)]), Q(0), Q(1)) is True
    assert pk.no_root_on(t, Q(0), Q(1)) is False


def test_psd_on():
    t = pk.poly([Q(0), Q(1)])
    one = pk.poly([Q(1)])
    assert pk.psd_on({(0, 0): t, (1, 1): one - t}, 2, Q(0), Q(1))[0] is True
    assert pk.psd_on({(0, 0): t, (1, 1): one - t}, 2, Q(0), Q(2))[0] is False
    assert pk.psd_on({(0, 0): t * t, (0, 1): t, (1, 1): one}, 2, Q(-3), Q(3))[0] is True      # rank 1 everywhere
    ok, why = pk.psd_on({(0, 1): t, (1, 1): one}, 2, Q(0), Q(1))
    assert ok is False and "identically 0" in why
    # [[1, t], [t, 1]] is PSD exactly for |t| <= 1
    assert pk.psd_on({(0, 0): one, (0, 1): t, (1, 1): one}, 2, Q(-1), Q(1))[0] is True
    assert pk.psd_on({(0, 0): one, (0, 1): t, (1, 1): one}, 2, Q(0), Q(11, 10))[0] is False


# ------------------------------------------------------------------------------------------------ gradient descent
@pytest.mark.parametrize("N", [1, 2, 3])
def test_gd_proved_and_checked(N):
    c = prove_family("gd", N=N, h=(Q(0), Q(1)))  # the times to prove and check: benchmarks/bench_proofs.py --parametric
    assert c.check() is True
    j = c.to_json()
    assert check_family(j) is True
    assert check_family(json.loads(json.dumps(j))) is True      # plain JSON round trip
    assert j["kind"] == "pep-family" and j["version"] == 1
    assert c.range == (Q(0), Q(1)) and c.parameter == "h"
    assert c.describe().startswith(f"for every h in [0, 1]: f(x_N) - f* <= L D0/({4 * N} h + 2)")


def test_gd_refuses_false_range():
    with pytest.raises(FamilyNotProved) as err:
        prove_family("gd", N=2, h=(Q(0), Q(19, 10)))
    e = err.value
    assert isinstance(e, SolverError) and isinstance(e, FairtheoryError)
    assert "false at h =" in str(e)
    assert e.point is not None and Q(1) < e.point <= Q(19, 10)
    assert e.worst > float(e.claimed)
    # the quadratic x^2/2 refutes it exactly at 19/10: (1 - h)^4 / 2 > 1/(8 h + 2)
    h = Q(19, 10)
    assert (1 - h) ** 4 / 2 > 1 / (8 * h + 2)


def test_gd_range_beyond_one():
    """N = 1: the bound L D0/(4 h + 2) holds up to h = 3/2 exactly (where (1 - h)^2/2 takes over)."""
    c = prove_family("gd", N=1, h=(Q(0), Q(3, 2)))
    assert c.check() is True
    with pytest.raises(FamilyNotProved):
        prove_family("gd", N=1, h=(Q(0), Q(8, 5)))


def test_bound_values(gd2):
    assert gd2.bound(h=Q(1, 3)) == Q(1) / (8 * Q(1, 3) + 2)
    assert gd2.bound(h=Q(1, 3), L=Q(2), D0=Q(1)) == Q(3, 7)
    assert gd2.bound(h=0, L=3, D0=Q(1, 2)) == Q(3, 4)
    assert gd2.bound(Q(1)) == Q(1, 10)
    assert isinstance(gd2.bound(h=Q(1, 2)), Q)
    with pytest.raises(OutOfRange):
        gd2.bound(h=Q(11, 10))
    with pytest.raises(OutOfRange):
        gd2.bound(h=Q(-1, 10))
    with pytest.raises(FairtheoryValueError):
        gd2.bound(beta_L=Q(1, 2))
    with pytest.raises(FairtheoryValueError):
        gd2.bound(h=Q(1, 2), L=0)


def test_user_bounds(gd2):
    h = sp.Symbol("h")
    c = prove_family("gd", N=2, h=(Q(0), Q(1)), bound=1 / (8 * h + 2))
    assert c.statement["bound"] == gd2.statement["bound"] and c.check() is True
    weaker = prove_family("gd", N=2, h=(Q(0), Q(1)), bound=lambda x: 1 / (6 * x + 2))
    assert weaker.check() is True and weaker.bound(h=Q(1)) == Q(1, 8)
    with pytest.raises(FamilyNotProved):
        prove_family("gd", N=2, h=(Q(0), Q(1)), bound=1 / (9 * h + 2))   # below the worst case for h > 0
    with pytest.raises(FairtheoryValueError):
        prove_family("gd", N=2, h=(Q(0), Q(1)), bound=sp.sqrt(2) / (8 * h + 2))
    with pytest.raises(FairtheoryValueError):
        prove_family("gd", N=2, h=(Q(0), Q(1)), bound=1 / (8 * sp.Symbol("L") + 2))


def test_invalid_arguments():
    with pytest.raises(FairtheoryValueError):
        prove_family("sgd", N=2, h=(0, 1))
    with pytest.raises(FairtheoryTypeError, match=r"prove_family: the keyword beta_L= was renamed h=; pass h="):
        prove_family("gd", N=2, beta_L=(0, 1))  # the removed keyword: a named error, nothing proved
    with pytest.raises(FairtheoryValueError):
        prove_family("gd", N=0, h=(0, 1))
    with pytest.raises(FairtheoryValueError):
        prove_family("gd", N=2, h=(1, 1))
    with pytest.raises(FairtheoryValueError):
        prove_family("local_gd", kappa=1, T_N=2, rho2=Q(1, 2), h=(0, Q(1, 2)))


# ------------------------------------------------------------------------------------------------ forgeries
def _edit(c, fn):
    j = copy.deepcopy(c.to_json())
    fn(j)
    return j


def test_forgery_range_widened(gd2):
    def widen(j):
        j["statement"]["parameter"]["hi"] = "19/10"
        j["evidence"]["pieces"][-1]["hi"] = "19/10"
    bad = _edit(gd2, widen)
    assert check_family(bad) is False
    # only the statement widened: the pieces no longer cover it
    assert check_family(_edit(gd2, lambda j: j["statement"]["parameter"].update(hi="19/10"))) is False
    # a certificate of [1/2, 1] relabelled as [0, 1]
    c = prove_family("gd", N=2, h=(Q(1, 2), Q(1)))
    assert c.check() is True

    def lower(j):
        j["statement"]["parameter"]["lo"] = "0"
        j["evidence"]["pieces"][0]["lo"] = "0"
    assert check_family(_edit(c, lower)) in (True, False)  # may hold (the bound is true there); never raises
    def negative(j):
        j["statement"]["parameter"]["lo"] = "-1"
        j["evidence"]["pieces"][0]["lo"] = "-1"
    assert check_family(_edit(c, negative)) is False


def test_forgery_bound_lowered(gd2):
    def den9(j):
        j["statement"]["bound"]["value"]["den"] = ["2", "9"]
    assert check_family(_edit(gd2, den9)) is False
    def scaled(j):
        j["statement"]["bound"]["value"]["num"] = ["99/100"]
    ok, why = explain_family(_edit(gd2, scaled))
    assert ok is False and "exceeds the stated bound" in why


def test_forgery_multiplier_edited(gd2):
    def bump(j):
        pc = j["evidence"]["pieces"][0]
        k, coeffs = pc["multipliers"][1]
        pc["multipliers"][1] = [k, [str(Q(coeffs[0]) + Q(1, 1000))] + coeffs[1:]]
    assert check_family(_edit(gd2, bump)) is False
    def drop(j):
        j["evidence"]["pieces"][0]["multipliers"].pop(0)
    assert check_family(_edit(gd2, drop)) is False
    def other_row(j):
        pc = j["evidence"]["pieces"][0]
        used = {k for k, _ in pc["multipliers"]}
        k0, v = pc["multipliers"][0]
        pc["multipliers"][0] = [next(k for k in range(100) if k not in used), v]
    assert check_family(_edit(gd2, other_row)) is False


def test_forgery_multiplier_negative_somewhere(gd2):
    def sign_change(j):
        pc = j["evidence"]["pieces"][0]
        k, coeffs = pc["multipliers"][0]
        f = pk.poly([Q(x) for x in coeffs]) * pk.poly([Q(1), Q(-3, 2)])   # times (1 - 3h/2): negative for h > 2/3
        pc["multipliers"][0] = [k, pk.poly_json(f)]
    ok, why = explain_family(_edit(gd2, sign_change))
    assert ok is False and "negative" in why
    def flip(j):
        pc = j["evidence"]["pieces"][0]
        k, coeffs = pc["multipliers"][0]
        pc["multipliers"][0] = [k, [str(-Q(x)) for x in coeffs]]
    assert check_family(_edit(gd2, flip)) is False
    def den_root(j):
        j["evidence"]["pieces"][0]["denominator"] = ["-1/2", "1"]   # h - 1/2 vanishes inside
    ok, why = explain_family(_edit(gd2, den_root))
    assert ok is False and "denominator" in why


def test_forgery_relabelled(gd2, lgd12):
    assert check_family(_edit(gd2, lambda j: j["statement"]["method"].update(N=3))) is False
    assert check_family(_edit(gd2, lambda j: j["statement"]["method"].update(N=1))) is False
    def to_local(j):
        j["statement"].update(n=2, p=["1/2", "1/2"])
        j["statement"]["method"] = {"name": "local_gd", "kappa": 1, "T_N": 1, "schedule": "rfedfair",
                                    "output": "average"}
        j["statement"]["parameter"]["name"] = "h"
    assert check_family(_edit(gd2, to_local)) is False
    assert check_family(_edit(lgd12, lambda j: j["statement"]["method"].update(T_N=3))) is False
    assert check_family(_edit(lgd12, lambda j: j["statement"]["method"].update(kappa=2))) is False
    assert check_family(_edit(lgd12, lambda j: j["statement"]["method"].update(output="last"))) in (True, False)
    assert check_family(_edit(lgd12, lambda j: j["statement"]["parameter"].update(name="beta_L"))) is False  # old name
    # the normalisation is what the kernel builds; anything else is refused
    assert check_family(_edit(gd2, lambda j: j["statement"]["normalisation"].update(L="2"))) is False
    # mu > 0 is a smaller class: the kernel builds its (mu-strongly convex) rows, and these multipliers still prove
    # the bound there - a true, weaker statement, not a forgery; mu outside [0, 1) is refused
    assert check_family(_edit(gd2, lambda j: j["statement"]["class"].update(mu="1/10"))) is True
    assert check_family(_edit(gd2, lambda j: j["statement"]["class"].update(mu="1"))) is False
    assert check_family(_edit(gd2, lambda j: j["statement"]["class"].update(mu="-1/10"))) is False
    assert check_family(_edit(lgd12, lambda j: j["statement"]["bound"].update(rho2="1"))) is False


def test_forgery_unknown_keys_and_malformed(gd2):
    assert check_family(_edit(gd2, lambda j: j.update(extra=1))) is False
    assert check_family(_edit(gd2, lambda j: j["statement"].update(extra=1))) is False
    assert check_family(_edit(gd2, lambda j: j["evidence"].update(extra=1))) is False
    assert check_family(_edit(gd2, lambda j: j["evidence"]["pieces"][0].update(extra=1))) is False
    assert check_family(_edit(gd2, lambda j: j.update(version=2))) is False
    assert check_family(_edit(gd2, lambda j: j.update(kind="pep-dual"))) is False
    assert check_family(_edit(gd2, lambda j: j.pop("statement"))) is False
    assert check_family(_edit(gd2, lambda j: j["evidence"]["pieces"][0].update(denominator=[1.5]))) is False
    assert check_family(None) is False and check_family("x") is False and check_family([]) is False
    # meta is never read
    assert check_family(_edit(gd2, lambda j: j.update(meta={"anything": [1, 2]}))) is True


def test_forgery_huge_sizes(gd2):
    """Oversized evidence and statements are refused (how long that takes, against a genuine check:
    benchmarks/bench_proofs.py --hostile)."""
    assert check_family(_edit(gd2, lambda j: j["evidence"]["pieces"][0]["multipliers"][0].__setitem__(
        1, ["1"] * 10_000))) is False
    assert check_family(_edit(gd2, lambda j: j["evidence"]["pieces"][0].update(denominator=["1"] * 500))) is False
    assert check_family(_edit(gd2, lambda j: j["evidence"]["pieces"][0]["multipliers"][0].__setitem__(
        1, ["1" * 5000]))) is False
    assert check_family(_edit(gd2, lambda j: j["statement"]["method"].update(N=10**9))) is False
    assert check_family(_edit(gd2, lambda j: j["statement"]["parameter"].update(hi="10" * 400))) is False
    many = _edit(gd2, lambda j: j["evidence"].update(pieces=j["evidence"]["pieces"] * 1000))
    assert check_family(many) is False
    local = _fam({"name": "local_gd", "kappa": 12, "T_N": 12, "schedule": "rfedfair", "output": "average"}, 4, 0, 1)
    assert check_family({"kind": "pep-family", "version": 1, "statement": local,
                         "evidence": {"pieces": [{"lo": "0", "hi": "1", "denominator": ["1"],
                                                  "multipliers": []}]}}) is False


def test_subdivided_pieces_still_check(gd2):
    """Cutting a piece in two (same multipliers) proves the same statement; a gap or an overlap is refused."""
    def cut(j):
        pc = j["evidence"]["pieces"][0]
        a, b = dict(pc), dict(pc)
        a["hi"], b["lo"] = "1/3", "1/3"
        j["evidence"]["pieces"] = [a, b]
    assert check_family(_edit(gd2, cut)) is True
    def gap(j):
        pc = j["evidence"]["pieces"][0]
        a, b = dict(pc), dict(pc)
        a["hi"], b["lo"] = "1/3", "1/2"
        j["evidence"]["pieces"] = [a, b]
    assert check_family(_edit(gd2, gap)) is False


# ------------------------------------------------------------------------------------------------ local GD
def test_local_gd_rho0_formula_matches_worst_case():
    """The closed form L D0/(2 + 2 beta L (kappa T_N + 2)) against the independent hand-written PEP."""
    from fairtheory.worstcase import local_gd_worst_case

    for kappa, T_N, b in ((1, 2, 0.25), (2, 2, 0.5)):
        w = local_gd_worst_case(n=2, kappa=kappa, T_N=T_N, lr=b, L=1.0, D0=1.0, rho2=0.0, output="average",
                                schedule="rfedfair")
        formula = 1 / (2 + 2 * b * (kappa * T_N + 2))
        assert abs(w.value - formula) <= 1e-6 * formula


def test_local_gd_cheapest_proved(lgd12):
    c = lgd12
    assert c.check() is True
    j = c.to_json()
    assert check_family(j) is True
    assert c.parameter == "h" and c.range == (Q(0), Q(1, 2))
    assert c.bound(h=Q(1, 4)) == Q(1, 4)          # 1/(2 + 2 (1/4) 4)
    assert c.bound(h=Q(1, 4), L=Q(2), D0=Q(3)) == Q(3, 2)
    assert "rho^2 = 0" in c.describe() and "kappa = 1, T_N = 2" in c.describe()


@pytest.mark.parametrize("kappa,T_N", [(2, 2), pytest.param(2, 3, marks=pytest.mark.slow),
                                       pytest.param(3, 2, marks=pytest.mark.slow)])
def test_local_gd_acceptance(kappa, T_N):
    """Issue 25's targets: each proved and checked (the times: benchmarks/bench_proofs.py --parametric)."""
    c = prove_family("local_gd", n=2, kappa=kappa, T_N=T_N, output="average", schedule="rfedfair", rho2=0,
                     h=(Q(0), Q(1, 2)))
    assert check_family(c.to_json()) is True


@pytest.mark.parametrize("N", [4, pytest.param(5, marks=pytest.mark.slow), pytest.param(6, marks=pytest.mark.slow)])
def test_gd_acceptance(N):
    c = prove_family("gd", N=N, h=(Q(0), Q(1)))
    assert c.check() is True
    with pytest.raises(FamilyNotProved):
        prove_family("gd", N=N, h=(Q(0), Q(19, 10)))


def test_largest_range_gd2():
    """N = 2: the formula holds up to h* ~ 1.6058 (root of (1 - h)^4 (8 h + 2) = 2); bisection brackets it."""
    r = largest_range("gd", N=2, start=1, stop=2, steps=5)
    assert r.certificate.check() is True
    assert Q(3, 2) <= r.proved < Q(16058, 10000) < r.failed


def test_statement_of_and_implies(gd2):
    from fairtheory_kernel.check import statement_of

    got = statement_of(gd2.to_json())  # the one reader of every kind (fairtheory_kernel.check)
    assert got is not None and got["kind"] == "pep-family"
    st = pk.canonical(got["statement"])
    assert st == gd2.statement
    assert statement_of({"kind": "pep-dual"}) is None
    assert pk.implies(st, st) is True

    def variant(**kw):
        j = pk.to_json(st)
        j["parameter"].update({k: v for k, v in kw.items() if k in ("lo", "hi")})
        if "den" in kw:
            j["bound"]["value"]["den"] = kw["den"]
        if "N" in kw:
            j["method"]["N"] = kw["N"]
        return pk.canonical(j)

    assert pk.implies(st, variant(hi="1/2")) is True                 # a narrower range
    assert pk.implies(st, variant(den=["2", "6"])) is True            # a weaker bound
    assert pk.implies(st, variant(hi="3/2")) is False                 # a wider range
    assert pk.implies(st, variant(den=["2", "9"])) is False           # a stronger bound
    assert pk.implies(st, variant(N=3)) is False                      # another method
    assert pk.implies(st, variant(den=["2", "8", "-1"])) is True      # 1/(2 + 8h - h^2) >= 1/(2 + 8h)
    assert pk.implies(st, variant(den=["2", "8", "1"])) is False      # 1/(2 + 8h + h^2) < 1/(2 + 8h) for h > 0


# ------------------------------------------------------------------------------------------- finding: rho = 0 formula
@pytest.mark.parametrize("kappa,h", [(5, Q(81, 203)), (6, Q(8, 27)), (7, Q(41, 177)), (8, Q(41, 218))])
def test_rho0_formula_exceeded_at_T_N_1(kappa, h) -> None:
    """Finding (verify --full, proofs.localgd.rho0_formula: 16 of 20 pairs proved): the closed form
    ``L D0 / (2 + 2 lr L (kappa T_N + 2))`` of local GD's worst case at rho = 0 (rFedFair schedule, average output,
    two uniform clients) is exceeded at T_N = 1 for kappa = 5..8, at the points where the parametric search stopped.
    The worst case's replayed lower end - the value local GD reaches on explicit L-smooth convex functions - lies
    above the formula (kappa = 5: 0.1318203123 against 0.1318181818, 1.6e-5 relative)."""
    from fairtheory.worstcase.local_gd import local_gd_worst_case

    bound = float(1 / (2 + 2 * h * (kappa + 2)))
    r = local_gd_worst_case(n=2, kappa=kappa, T_N=1, lr=float(h), L=1.0, D0=1.0, rho2=0.0, output="average")
    assert r.lower > bound * (1 + 1e-6)
    assert r.lower <= r.upper
