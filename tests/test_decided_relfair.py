"""The relfair seed claims decided exactly (fairtheory.proofs.seed_relfair, verify.claims.decided_relfair): every
symbolic certificate re-checks and proves its claim's declared statement; the two counterexamples (Thm. 1, skewness)
re-check and refute their claims' declared statements, and the runner counts them as refuted exactly; forgeries
(bound changed, a range one step too wide, wrong n, a hypothesis dropped, an edited instance, an edited
counterexample point, a stationarity assumption changed, the goal reversed) are refused; the declared statements
hold at random points where their hypotheses hold (floats, an independent second route)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from fairtheory.proofs import seed_relfair as S
from fairtheory_kernel.symbolic import check, implies
from verify.claims import decided_relfair as D

PAIRS = [("prop9", "proofs.relfair.prop9.majorization", 0), ("theorem1", "proofs.relfair.theorem1.shared_point", 0),
         ("integrated_sum", "proofs.relfair.integrated.support", 0),
         ("integrated_upper", "proofs.relfair.integrated.support", 1),
         ("integrated_attained", "proofs.relfair.integrated.support", 2),
         ("lemma8", "proofs.relfair.lemma8.strong_convexity", 0),
         ("skewness_step", "proofs.relfair.skewness.nested_sets", 0),
         ("skewness_start", "proofs.relfair.skewness.nested_sets", 1), ("theorem2", "proofs.relfair.theorem2.instance", 0),
         ("cvar_top", "proofs.relfair.example2.sorted", 0), ("cvar_bottom", "proofs.relfair.example2.sorted", 1),
         ("cvar_attained", "proofs.relfair.index.named_measures", 2),
         ("capped_support", "proofs.relfair.sets.closed_form", 0),
         ("capped_projection", "proofs.relfair.sets.closed_form", 1),
         ("theorem1", "proofs.relfair.penguins.index_monotone", 0),
         ("penguins_positive", "proofs.relfair.penguins.index_monotone", 1),
         ("penguins_assumption1", "proofs.relfair.penguins.index_monotone", 2)]
T1, SK = "proofs.relfair.theorem1.monotone", "proofs.relfair.skewness.monotone"


def _declared(claim_id: str, k: int = 0) -> dict[str, Any]:
    out = D.DECLARED[claim_id]()
    return out[k] if isinstance(out, list) else out


@pytest.mark.parametrize(("name", "claim_id", "k"), PAIRS, ids=[f"{p[0]}-{p[1]}" for p in PAIRS])
def test_certificate_rechecks_and_proves_the_declared_statement(name: str, claim_id: str, k: int) -> None:
    cert = S.ALL_RELFAIR[name]()
    assert check(cert)
    assert implies(cert["statement"], _declared(claim_id, k))
    json.dumps(cert)  # plain JSON


def test_refuted_rows_declare_their_statements_and_the_instance() -> None:
    from verify.core import REGISTRY

    assert set(D.REFUTED) == {T1, SK} and not set(D.REFUTED) & set(D.DECLARED)
    for cid in D.REFUTED:
        spec = REGISTRY[cid]
        assert spec.expected == "refuted" and spec.refutes is D.REFUTED[cid] and spec.proves is None
    for cid in D.DECLARED:
        assert REGISTRY[cid].expected == "proved"
    # the seed ids are the refuted rows; the restricted proofs have their own ids (no seed id is proved by them)
    assert {c.removeprefix("proofs.") for c in D.DECLARED} & {"relfair.theorem1.monotone", "relfair.skewness.monotone",
                                                               "relfair.penguins.figure"} == set()
    cert = S.theorem1_instance_solutions_certificate()
    assert check(cert) and implies(cert["statement"], D.WITNESSES[T1]())


def _q(x: Any) -> list[str]:
    return ["q", str(Fraction(x))]


def _edit(cert: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    c = copy.deepcopy(cert)
    node = c
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return c


def _replace(t: Any, old: Any, new: Any) -> Any:
    if t == old:
        return copy.deepcopy(new)
    if isinstance(t, list):
        return [_replace(x, old, new) for x in t]
    if isinstance(t, dict):
        return {k: _replace(x, old, new) for k, x in t.items()}
    return t


def _in_statement(cert: dict[str, Any], old: Any, new: Any) -> dict[str, Any]:
    c = copy.deepcopy(cert)
    c["statement"] = _replace(c["statement"], old, new)
    assert c["statement"] != cert["statement"], "the forgery changed nothing"
    return c


def _drop_assumption(cert: dict[str, Any], k: int) -> dict[str, Any]:
    c = copy.deepcopy(cert)
    del c["statement"]["assume"][k]
    return c


# ---------------------------------------------------------------------------------- forgeries, one per kind
def test_prop9_forgeries_refused() -> None:
    cert = S.prop9_certificate()
    # bound changed: the upper bound with C in place of c (false: U/V > phi + (U - phi V)/C when V < C)
    g = cert["statement"]["goals"][1]
    forged = _edit(cert, ["statement", "goals", 1, "rhs"], _replace(g["rhs"], ["v", "c"], ["v", "C"]))
    assert not check(forged)
    # a hypothesis dropped: c <= V, V <= C, phi V <= U (each is needed by some goal)
    for k in range(3):
        assert not check(_drop_assumption(cert, k))
    # one step too wide: phi V <= U + 1/100
    wide = _edit(cert, ["statement", "assume", 2, "rhs"], ["+", ["v", "U"], _q(Fraction(1, 100))])
    assert not check(wide)
    # the derivative's sign flipped
    flip = _edit(cert, ["statement", "goals", 2, "rhs"], ["*", _q(-1), cert["statement"]["goals"][2]["rhs"]])
    assert not check(flip)


def test_theorem1_forgeries_refused() -> None:
    cert = S.theorem1_certificate()
    assert not check(_drop_assumption(cert, 1))  # no shared point: false (proofs.relfair.theorem1.monotone)
    assert not check(_drop_assumption(cert, 2)) and not check(_drop_assumption(cert, 3))  # an optimality inequality
    wide = _edit(cert, ["statement", "assume", 0, "rhs"], _q(Fraction(101, 100)))  # phi' up to 101/100
    assert not check(wide)
    # phi' = phi allowed (delta >= 0): eq. 21 needs delta > 0
    assert not check(_in_statement(cert, ["delta", "positive"], ["delta", "nonnegative"]))
    # the index bound tightened by 1/1000
    g = cert["statement"]["goals"][2]
    assert not check(_edit(cert, ["statement", "goals", 2, "rhs"], ["+", g["rhs"], _q(Fraction(-1, 1000))]))


def test_theorem1_instance_exactly_by_a_second_route() -> None:
    """Fractions, by hand: the objectives of (8) at phi = 0, 1/2 are w^2 + 1/100 and (w + 1)^2 - 149/50, stationary
    only at 0 and -1; there I rises from 1/200 to 101/500; U < V there (A, B share no point, so the proved
    shared-point step does not apply)."""
    def f(w: Fraction) -> tuple[Fraction, Fraction]:
        return w * w + Fraction(1, 100), (w - 1) ** 2 + 1

    def obj(w: Fraction, phi: Fraction) -> Fraction:
        u, v = f(w)
        return (u - phi * v) / (1 - phi)

    h = Fraction(1, 2)
    for k in range(-400, 401):  # exact: obj(w) - obj(w_k) = (w - w_k)^2 on a grid of rationals
        w = Fraction(k, 100)
        assert obj(w, Fraction(0)) - obj(Fraction(0), Fraction(0)) == w * w
        assert obj(w, h) - obj(Fraction(-1), h) == (w + 1) ** 2
        assert obj(w, h) == (w + 1) ** 2 - Fraction(149, 50)
    (u0, v0), (u1, v1) = f(Fraction(0)), f(Fraction(-1))
    assert (u0 / v0, u1 / v1) == (Fraction(1, 200), Fraction(101, 500)) and u1 / v1 - u0 / v0 == Fraction(197, 1000)
    assert u0 < v0 and u1 < v1
    assert 2 * Fraction(0) == 0 and (2 * Fraction(-1) - h * 2 * (Fraction(-1) - 1)) / (1 - h) == 0  # stationarity


def _point(ce: dict[str, Any], **values: Any) -> dict[str, Any]:
    edited = copy.deepcopy(ce)
    edited["evidence"]["point"] = [[k, _q(values[k]) if k in values else x] for k, x in ce["evidence"]["point"]]
    assert edited != ce
    return edited


def test_theorem1_counterexample_checks_and_refutes_the_declared_statement() -> None:
    from fairtheory_kernel.check import check_proof, statement_of
    from fairtheory_kernel.check import implies as implies_any

    ce = S.theorem1_instance_counterexample()
    assert check_proof(ce) and ce["evidence"]["margin"] == "197/1000"
    assert dict((k, x) for k, x in ce["evidence"]["point"]) == {"w0": _q(0), "w1": _q(-1)}
    assert implies_any(statement_of(ce), {"kind": "counterexample", "statement": D.REFUTED[T1]()})
    # the proved shared-point step is another statement: not refuted by this certificate
    assert not implies_any(statement_of(ce), {"kind": "counterexample",
                                              "statement": _declared("proofs.relfair.theorem1.shared_point")})


def test_theorem1_counterexample_forgeries_refused() -> None:
    from fairtheory_kernel.check import check_proof, statement_of
    from fairtheory_kernel.check import implies as implies_any

    ce = S.theorem1_instance_counterexample()
    # an edited counterexample point: each breaks a stationarity assumption (or the goal)
    for edit in ({"w0": Fraction(1, 10)}, {"w1": Fraction(-1, 2)}, {"w0": -1, "w1": 0}, {"w1": 0}):
        assert not check_proof(_point(ce, **edit)), edit
    wide = copy.deepcopy(ce)
    wide["evidence"]["margin"] = "198/1000"  # margin one step too wide
    assert not check_proof(wide)
    # a stationarity assumption changed: at phi' = 1/4 instead of 1/2 (stationary at -1/3, not at -1)
    st = ce["statement"]
    a1 = st["assume"][1]
    changed = copy.deepcopy(ce)
    changed["statement"]["assume"][1]["lhs"] = _replace(a1["lhs"], _q(Fraction(1, 2)), _q(Fraction(1, 4)))
    assert changed["statement"]["assume"][1] != a1 and not check_proof(changed)
    assert not check_proof(_point(changed, w1=Fraction(-1, 3)))  # stationary there, but I(-1/3) < I(0)
    # ... and the declared statement with it changed is not refuted by the genuine certificate
    declared = D.REFUTED[T1]()
    moved = copy.deepcopy(declared)
    moved["assume"][1]["lhs"] = _replace(moved["assume"][1]["lhs"], _q(Fraction(1, 2)), _q(Fraction(1, 4)))
    assert moved != declared
    assert not implies_any(statement_of(ce), {"kind": "counterexample", "statement": moved})
    # refuting S refutes what implies S: the declared statement less a stationarity assumption (stronger) is refuted,
    # the declared statement plus an assumption (weaker, e.g. w1 = -1 pinned) is not (the kernel's rule is syntactic)
    dropped = copy.deepcopy(declared)
    del dropped["assume"][0]
    assert implies_any(statement_of(ce), {"kind": "counterexample", "statement": dropped})
    pinned = copy.deepcopy(declared)
    pinned["assume"].append({"rel": "==", "lhs": ["v", "w1"], "rhs": _q(-1)})
    assert not implies_any(statement_of(ce), {"kind": "counterexample", "statement": pinned})
    # the goal reversed (I(w0) <= I(w1), true at the point): the certificate fails, and refutes no reversed claim
    rev = copy.deepcopy(ce)
    g = rev["statement"]["goals"][0]
    g["lhs"], g["rhs"] = g["rhs"], g["lhs"]
    assert not check_proof(rev)
    rdecl = copy.deepcopy(declared)
    rg = rdecl["goals"][0]
    rg["lhs"], rg["rhs"] = rg["rhs"], rg["lhs"]
    assert not implies_any(statement_of(ce), {"kind": "counterexample", "statement": rdecl})


def test_theorem1_solutions_certificate_forgeries_refused() -> None:
    cert = S.theorem1_instance_solutions_certificate()
    g = cert["statement"]["goals"][1]
    # margin doubled: obj(w0) + 2 (w - w0)^2 <= obj(w) is false
    twice = _edit(cert, ["statement", "goals", 1, "lhs"],
                  _replace(g["lhs"], ["^", ["+", ["v", "w"], ["*", _q(-1), ["v", "w0"]]], 2],
                           ["*", _q(2), ["^", ["+", ["v", "w"], ["*", _q(-1), ["v", "w0"]]], 2]]))
    assert twice != cert and not check(twice)
    # a stationarity assumption changed (2 w0 = 1: w0 = 1/2 is not the minimiser) or dropped
    moved = _edit(cert, ["statement", "assume", 0, "rhs"], _q(1))
    assert not check(moved)
    assert not check(_drop_assumption(cert, 0))
    # Assumption 1 one step too high: V(w) >= 1 + 1/1000 fails at w = 1
    assert not check(_edit(cert, ["statement", "goals", 0, "lhs"], _q(Fraction(1001, 1000))))
    cert2 = S.theorem2_witness()
    assert not check(_in_statement(cert2, _q(Fraction(11, 441)), _q(Fraction(12, 441))))
    assert not check(_in_statement(cert2, _q(Fraction(-1, 19)), _q(Fraction(-1, 20))))  # not the minimiser
    assert not check(_in_statement(cert2, _q(Fraction(19, 10)), _q(Fraction(2))))  # margin too large


def test_refutations_bind_exactly_and_decide_the_seed_claims() -> None:
    """The runner's binding (verify.core.bind_refutation) records both rows as refuted exactly, verify.decided counts
    them for the seed ids; an edited point or a reversed goal is not exact."""
    from verify.core import REGISTRY, Context, bind_refutation
    from verify.decided import decide

    ctx = Context(True, 0)
    rows = []
    for cid, fn in ((T1, D.theorem1_monotone), (SK, D.skewness_monotone)):
        out = bind_refutation(fn(ctx), REGISTRY[cid], ctx)
        assert out.status == "refuted" and out.details["refuted_exactly"] is True, out.details
        rows.append({"id": cid, "status": out.status, "details": out.details})
    section = decide(rows, ["relfair.theorem1.monotone", "relfair.skewness.monotone", "relfair.penguins.figure"])
    claims = section["claims"]
    assert claims["relfair.theorem1.monotone"] == {"decided": True, "how": "refuted exactly", "by": T1, "why": None,
                                                   "status": None}
    assert claims["relfair.skewness.monotone"]["how"] == "refuted exactly"
    assert not claims["relfair.penguins.figure"]["decided"] and section["refuted_exactly"] == 2
    # forgeries through the same binding: an edited point, a reversed goal
    out = D.theorem1_monotone(ctx)
    out.certificate[0] = _point(out.certificate[0], w1=Fraction(-1, 2))
    assert bind_refutation(out, REGISTRY[T1], ctx).details["refuted_exactly"] is False
    out = D.skewness_monotone(ctx)
    g = out.certificate[0]["statement"]["goals"][0]
    g["lhs"], g["rhs"] = g["rhs"], g["lhs"]
    assert bind_refutation(out, REGISTRY[SK], ctx).details["refuted_exactly"] is False


def test_integrated_forgeries_refused() -> None:
    cert = S.integrated_sum_certificate()
    n = ["v", "n"]
    g = cert["statement"]["goals"][0]
    wrong_n = _edit(cert, ["statement", "goals", 0, "lhs"], [*g["lhs"][:3], ["+", n, _q(1)]])  # n + 1 terms
    assert not check(wrong_n)
    assert not check(_drop_assumption(cert, 2))  # t = 1 - phi dropped
    up = S.integrated_upper_certificate()
    assert not check(_in_statement(up, ["phi", "nonnegative"], ["phi", "real"]))  # phi < 0 allowed: false
    assert not check(_drop_assumption(up, 2))  # b.f >= V dropped
    att = S.integrated_attained_certificate()
    assert not check(_edit(att, ["statement", "assume", 2, "rel"], "<="))  # equality needs b.f = V


def test_lemma8_forgeries_refused() -> None:
    cert = S.lemma8_certificate()
    mu, k = ["v", "mu"], ["v", "k"]
    wide = _in_statement(cert, ["h", "family_bounded", mu, ["+", mu, k]],
                         ["h", "family_bounded", ["+", mu, _q(-1)], ["+", mu, k]])  # h_i >= mu - 1
    assert not check(wide)
    assert not check(_drop_assumption(cert, 0))  # sum a = 1 dropped
    assert not check(_in_statement(cert, ["phi", "nonnegative"], ["phi", "real"]))
    g = cert["statement"]["goals"][0]
    assert not check(_edit(cert, ["statement", "goals", 0, "lhs"], ["+", g["lhs"], _q(Fraction(1, 100))]))


def test_skewness_forgeries_refused() -> None:
    cert = S.skewness_step_certificate()
    assert not check(_drop_assumption(cert, 1))  # the maximality of (a, b) over (a, a): false without it
    assert not check(_drop_assumption(cert, 0))  # phi + delta + t = 1
    start = S.skewness_start_certificate()
    g = start["statement"]["goals"][0]
    assert not check(_edit(start, ["statement", "goals", 0, "rhs"], ["*", _q(Fraction(101, 100)), g["rhs"]]))


def test_declared_statements_are_not_implied_by_narrowed_certificates() -> None:
    """A certificate with one more hypothesis does not prove the declared statement (implies refuses)."""
    cert = S.prop9_certificate()
    extra = copy.deepcopy(cert)
    extra["statement"]["assume"].append({"rel": "<=", "lhs": ["v", "phi"], "rhs": _q(Fraction(1, 2))})
    assert check(extra)
    assert not implies(extra["statement"], _declared("proofs.relfair.prop9.majorization"))


# ---------------------------------------------------------------------------------- the float route
def test_statements_hold_at_random_points() -> None:
    rng = np.random.default_rng(7)
    for _ in range(3000):
        c = rng.uniform(0.01, 3.0)
        V = c * rng.uniform(1.0, 5.0)
        C = V * rng.uniform(1.0, 5.0)
        phi = rng.uniform(-2.0, 2.0)
        U = phi * V + rng.exponential(2.0)
        assert phi + (U - phi * V) / C <= U / V * (1 + 1e-12) + 1e-12
        assert U / V <= (phi + (U - phi * V) / c) * (1 + 1e-12) + 1e-12
        n = int(rng.integers(1, 6))
        a, b = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
        ph = rng.uniform(0.0, 0.99)
        lam = (a - ph * b) / (1 - ph)
        f = rng.normal(size=n)
        assert abs(lam.sum() - 1.0) < 1e-9
        assert lam @ f <= (f.max() - ph * f.min()) / (1 - ph) + 1e-9
        mu = rng.normal()
        L = mu + rng.exponential()
        h = rng.uniform(mu, L, size=n)
        assert lam @ h >= (mu - ph * L) / (1 - ph) - 1e-9
        x, y = rng.normal(size=n), rng.normal(size=n)
        p1 = rng.uniform(0.01, 0.98)
        p2 = rng.uniform(p1, 0.99)
        l1, l2 = (x - p1 * y) / (1 - p1), (x - p2 * y) / (1 - p2)
        if x @ x <= l1 @ l1:
            assert l1 @ l1 <= l2 @ l2 * (1 + 1e-9) + 1e-12


def test_theorem1_step_on_random_optimality_pairs() -> None:
    """Random quadruples meeting the hypotheses (floats): the index never rises."""
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(20000):
        phi = rng.uniform(0.0, 1.0)
        p2 = rng.uniform(phi, 1.0)
        V, V2 = rng.uniform(0.1, 4.0, size=2)
        U, U2 = V + rng.exponential(2.0), rng.uniform(0.0, 10.0)
        if U - phi * V <= U2 - phi * V2 and U2 - p2 * V2 <= U - p2 * V:
            seen += 1
            assert U2 / V2 <= U / V * (1 + 1e-12)
    assert seen > 100


def test_claims_end_proved() -> None:
    from verify.core import Context

    ctx = Context(True, 0)
    for fn in (D.prop9, D.theorem1_shared_point, D.integrated_support, D.lemma8, D.skewness_nested, D.theorem2,
               D.example2, D.named_measures, D.sets_closed_form, D.penguins_index_monotone):
        out = fn(ctx)
        assert out.status == "proved", (fn.__name__, out.note)
    out = D.theorem1_monotone(ctx)
    assert out.status == "refuted" and len(out.certificate) == 2 and out.measured > out.bound
    assert [c["kind"] for c in out.certificate] == ["counterexample", "symbolic"]
    out = D.skewness_monotone(ctx)
    assert out.status == "refuted" and out.measured > out.bound


def test_cvar_and_capped_forgeries_refused() -> None:
    top = S.cvar_top_certificate()
    kap = ["v", "kap"]
    # caps one step too wide: lam_i <= 1/kap + 1/100
    wide = _in_statement(top, ["lam", "family_bounded", _q(0), ["/", _q(1), kap]],
                         ["lam", "family_bounded", _q(0), ["+", ["/", _q(1), kap], _q(Fraction(1, 100))]])
    assert not check(wide)
    for k in range(4):  # every hypothesis is needed
        assert not check(_drop_assumption(top, k))
    g = top["statement"]["goals"][0]
    wrong_n = _edit(top, ["statement", "goals", 0, "lhs"], [*g["lhs"][:3], ["+", ["v", "n"], _q(1)]])
    assert not check(wrong_n)
    bottom = S.cvar_bottom_certificate()
    swapped = copy.deepcopy(bottom)  # the bottom set with the top set's complementarity: false
    swapped["statement"]["assume"][2:] = copy.deepcopy(top["statement"]["assume"][2:])
    assert not check(swapped)
    sup = S.capped_support_certificate()
    assert not check(_drop_assumption(sup, 2)) and not check(_drop_assumption(sup, 3))
    proj = S.capped_projection_certificate()
    assert not check(_drop_assumption(proj, 2)) and not check(_drop_assumption(proj, 3))
    assert not check(_in_statement(proj, ["al", "family_nonnegative"], ["al", "family_real"]))  # al_i < 0 allowed


def test_skewness_singletons_counterexample_and_edits() -> None:
    from fairtheory_kernel.check import check_proof, statement_of
    from fairtheory_kernel.check import implies as implies_any

    ce = S.skewness_singletons_counterexample()
    assert check_proof(ce) and ce["evidence"]["margin"] == "1/81"  # n (41/81 - 1/2), n = 2
    refuted = D.REFUTED[SK]()
    assert implies_any(statement_of(ce), {"kind": "counterexample", "statement": refuted})
    # the proved nested-sets step (maximality assumed) is not refuted by it: its statement differs
    step = _declared("proofs.relfair.skewness.nested_sets", 0)
    assert not implies_any(statement_of(ce), {"kind": "counterexample", "statement": step})
    point = dict((k, x) for k, x in ce["evidence"]["point"])
    for name in ("a", "phi", "n"):
        edited = copy.deepcopy(ce)
        # a = b: |lam|^2 constant, the relation holds; phi = 1/2 breaks phi + delta + t = 1; n = 3 breaks sum a = 1
        value = point["b"] if name == "a" else _q(Fraction(1, 2)) if name == "phi" else _q(3)
        edited["evidence"]["point"] = [[k, value if k == name else x] for k, x in point.items()]
        assert not check_proof(edited), name
    rev = copy.deepcopy(ce)  # goal reversed
    g = rev["statement"]["goals"][0]
    g["lhs"], g["rhs"] = g["rhs"], g["lhs"]
    assert not check_proof(rev)
    wide = copy.deepcopy(ce)
    wide["evidence"]["margin"] = "2/161"  # one step above 1/81 = 2/162
    assert not check_proof(wide)
    # an assumption added that the point does not meet (phi = 0): refused
    extra = copy.deepcopy(ce)
    extra["statement"]["assume"].append({"rel": "==", "lhs": ["v", "phi"], "rhs": _q(0)})
    assert not check_proof(extra)


def _threshold(f: np.ndarray, kap: float, top: bool) -> tuple[float, np.ndarray]:
    """The threshold ``tau`` and set ``z`` of the statements, built by sorting (descending for the top set)."""
    order = np.argsort(-f if top else f, kind="stable")
    z = np.zeros(f.size)
    left = kap
    for i in order:
        z[i] = min(1.0, left)
        left -= z[i]
        if left <= 0:
            tau = f[i]
            break
    return float(tau), z


def test_threshold_sets_are_the_sorted_means_of_the_library() -> None:
    """The statements' threshold form (f = tau + p - m, complementarity) is the sorted top / bottom mean, and the
    library's CVaR support / lower agree with it (floats)."""
    from fairtheory.sets import CappedSimplex

    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 9))
        f = rng.integers(0, 5, size=n).astype(float) if rng.random() < 0.3 else rng.normal(size=n)
        kap = float(rng.uniform(1.0, n)) if rng.random() < 0.5 else float(rng.integers(1, n + 1))
        for top in (True, False):
            tau, z = _threshold(f, kap, top)
            p, m = np.maximum(f - tau, 0.0), np.maximum(tau - f, 0.0)
            assert abs(z.sum() - kap) < 1e-12 and np.all((0 <= z) & (z <= 1))
            if top:
                assert abs(((1 - z) * p).sum()) < 1e-12 and abs((z * m).sum()) < 1e-12
            else:
                assert abs(((1 - z) * m).sum()) < 1e-12 and abs((z * p).sum()) < 1e-12
            s = np.sort(f)[::-1] if top else np.sort(f)
            take = np.clip(kap - np.arange(n), 0.0, 1.0)
            want = float(take @ s / kap)
            assert abs(float(z @ f) / kap - want) < 1e-9
            C = CappedSimplex.cvar(n, kap / n)
            lib = C.support(f) if top else -C.support(-f)
            assert abs(lib - want) < 1e-9 * (1 + abs(want))


def test_penguins_forgeries_refused() -> None:
    cert = S.penguins_positive_certificate()
    g = cert["statement"]["goals"][0]
    e1 = Fraction(g["lhs"][1])
    assert e1 > 0
    assert not check(_in_statement(cert, g["lhs"], _q(e1 + Fraction(1, 10 ** 9))))  # the bound one step too high
    c1 = dict(g["attained"])["w2"]
    assert not check(_in_statement(cert, c1, _q(Fraction(c1[1]) + Fraction(1, 10 ** 6))))  # not the exact fit
    a1 = S.penguins_assumption1_certificate()
    assert not check(_drop_assumption(a1, 0))  # lam need not sum to 1: false (lam = 0)
    # an edited data row: the certificate's statement no longer implies the declared one
    rows = [list(r) for r in S.PENGUIN_ROWS]
    rows[0][0] = ("18.8", "181", "39.1")
    saved = S.PENGUIN_ROWS
    try:
        S.PENGUIN_ROWS = tuple(tuple(r) for r in rows)
        forged = S.penguins_positive_certificate()
    finally:
        S.PENGUIN_ROWS = saved
    assert check(forged)  # a true statement about other data
    assert not implies(forged["statement"], _declared("proofs.relfair.penguins.index_monotone", 1))
