"""RC-FL seed claims decided exactly (fairtheory.proofs.seed_rcfl, verify.claims.decided_rcfl): every certificate
re-checks, its statement implies the claim's declared one, and the library's floats agree with the proved statements
on random instances; the exact counterexample to the literal 002 Def. 2 re-checks and refutes the declared statement;
forgeries (a bound moved, a range one step too wide, a sum over the wrong clients, an assumption dropped or changed,
an edited counterexample point or margin, a counterexample of a stronger statement) are all refused."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as Fr

import numpy as np
import pytest

from fairtheory.proofs import seed_rcfl as R
from fairtheory.proofs.symbolic import IDX, at, q, sm, v
from fairtheory_kernel import symbolic as K
from fairtheory_kernel.check import check_proof, implies, statement_of
from verify.claims.decided_rcfl import DECLARED

MAKERS = sorted(R.ALL_CERTIFICATES)
#: which certificates each claim's declared statements come from
CLAIM_CERTS = {"proofs.rcfl.deviation": ["translation", "deviation_sign"],
               "proofs.rcfl.lemma1.hcvar_ru": ["hcvar_ru", "split", "weak_duality"],
               "proofs.rcfl.lemma1.dual": ["split", "weak_duality"],
               "proofs.rcfl.qalpha.closed_form": ["split", "weak_duality"],
               "proofs.rcfl.qalpha.limits": ["split", "weak_duality", "split_fedavg", "split_afl"],
               "proofs.rcfl.remark1.cvar": ["remark1"], "proofs.rcfl.lemma1.dual.parts": ["weak_duality", "complementary"],
               "proofs.rcfl.qalpha.convex": ["convex"], "proofs.rcfl.qalpha.limits.fedavg": ["fedavg_limit"],
               "proofs.rcfl.remark2.eta_range": ["remark2"]}


@pytest.fixture(scope="module")
def certs() -> dict:
    return {k: R.ALL_CERTIFICATES[k]() for k in MAKERS}


def _why(c: dict, kind: str = "symbolic") -> str:
    try:
        K._check(c, 10.0, kind)
    except Exception as exc:  # noqa: BLE001 - the reason, for the assertion message
        return f"{type(exc).__name__}: {exc}"
    return "OK"


def _refused(c: dict, kind: str = "symbolic") -> bool:
    return K.check(c, seconds=10.0, kind=kind) is False and check_proof(c) is False


# ------------------------------------------------------------------------------------ the real certificates
@pytest.mark.parametrize("name", MAKERS)
def test_certificate_rechecks_after_json_round_trip(certs: dict, name: str) -> None:
    d = json.loads(json.dumps(certs[name]))
    assert K.check(d, seconds=10.0) is True, _why(d)
    assert check_proof(d) is True


@pytest.mark.parametrize("claim_id", sorted(CLAIM_CERTS))
def test_declared_statements_implied(certs: dict, claim_id: str) -> None:
    mine = [certs[k]["statement"] for k in CLAIM_CERTS[claim_id]]
    assert len(DECLARED[claim_id]) == len(mine)
    for make in DECLARED[claim_id]:
        assert any(implies(s, make()) for s in mine), claim_id


def test_claims_end_proved_and_refuted_exactly() -> None:
    import verify.claims.rcfl_objective  # noqa: F401 - registers rcfl.lemma1.hcvar_conditional
    from verify.core import Context, run_claim

    for cid in CLAIM_CERTS:
        r = run_claim(cid, Context(quick=True, seed=0))
        assert r.status == "proved", (cid, r.note)
    r = run_claim("rcfl.lemma1.hcvar_conditional", Context(quick=True, seed=0))
    assert r.status == "refuted" and r.details.get("refuted_exactly") is True, r.note


# ------------------------------------------------------------------------------------ the second route: numbers
def _instance(rng: np.random.Generator) -> tuple:
    n = int(rng.integers(1, 8))
    p = rng.dirichlet(np.ones(n))
    a = p + rng.random(n) * (1 - p)
    return p, a, rng.normal(size=n) * 3


def test_proved_statements_hold_on_library_floats() -> None:
    """The proved inequalities, evaluated in floats on 2000 random instances (and the library's f_alpha, hcvar and
    deviations against them): no violation beyond rounding."""
    from fairtheory.objectives.qalpha import deviation, hcvar, qalpha_loss

    rng = np.random.default_rng(5)
    for _ in range(2000):
        p, a, f = _instance(rng)
        c = p / a
        tau = c.sum()
        eta, m, k = rng.normal() * 3, rng.normal(), rng.normal()
        def g(x: np.ndarray, e: float, c: np.ndarray = c) -> float:
            return e + c @ np.maximum(x - e, 0.0)

        assert abs(g(f - m, eta - m) - (g(f, eta) - m)) <= 1e-9 * (1 + abs(g(f, eta)))
        mean = (c / tau) @ f
        assert mean <= g(f, eta) + 1e-9 and k <= g(np.full(f.size, k), eta) + 1e-9
        fa = qalpha_loss(f, p, a)[0]
        assert fa <= g(f, eta) + 1e-9  # weak duality at the worst-case weights
        assert abs(hcvar(f, p, a) - fa) <= 1e-8 * max(1.0, abs(fa))
        d0, d2 = deviation(f, p, a, version="000"), deviation(f, p, a, version="002")
        assert abs(d0 - d2) <= 1e-8 * max(1.0, np.abs(f).max()) and min(d0, d2) >= -1e-9 * max(1.0, np.abs(f).max())


def test_counterexample_values_exactly() -> None:
    """The hand instance in exact rationals: tau = 4/3, beta = 1/4, pi = (1/2, 1/2), every beta-quantile is 0, the
    literal conditional mean is 1, G(f, 0) = 2/3 = min_eta G (breakpoints 0 and 1), and the library agrees."""
    from fairtheory.objectives.qalpha import hcvar, qalpha_loss

    p, a, f = [Fr(1, 2)] * 2, [Fr(3, 4)] * 2, [Fr(0), Fr(1)]
    c = [pi / ai for pi, ai in zip(p, a, strict=True)]
    tau = sum(c)
    beta, pi = 1 - 1 / tau, [ci / tau for ci in c]
    assert (tau, beta, pi) == (Fr(4, 3), Fr(1, 4), [Fr(1, 2)] * 2)
    assert 0 < beta < pi[0]  # P(f < 0) = 0 < beta < P(f <= 0): the quantile is f_1 = 0 under every convention
    g = lambda e: e + sum(ci * max(fi - e, 0) for ci, fi in zip(c, f, strict=True))  # noqa: E731
    assert min(g(Fr(0)), g(Fr(1))) == g(Fr(0)) == Fr(2, 3)
    assert hcvar([0.0, 1.0], [0.5, 0.5], 0.75, reading="conditional") == 1.0
    assert abs(qalpha_loss([0.0, 1.0], [0.5, 0.5], 0.75)[0] - 2 / 3) <= 1e-12


# ------------------------------------------------------------------------------------ the refutation
def test_counterexample_rechecks_and_refutes_the_declared_statement() -> None:
    ce = R.conditional_counterexample()
    assert check_proof(ce) is True, _why(ce, "counterexample")
    declared = DECLARED["rcfl.lemma1.hcvar_conditional"][0]()
    assert implies(statement_of(ce), {"kind": "counterexample", "statement": declared})


@pytest.mark.parametrize("key,value", [("eta", "1"), ("alpha2", "1/2"), ("p1", "1/3"), ("delta", "0"), ("f2", "2"),
                                       ("s", "1/4"), ("r", "1/2"), ("f1", "1/2")])
def test_edited_counterexample_point_refused(key: str, value: str) -> None:
    """Each edit leaves the region (an assumption or a kind fails) or makes the goal hold (eta = 1: G = 1)."""
    pt = dict(R.CONDITIONAL_POINT)
    pt[key] = value
    assert _refused(R.conditional_counterexample(pt, "1/100"), "counterexample")


def test_counterexample_margin_too_large_refused() -> None:
    assert _refused(R.conditional_counterexample(margin="1/2"), "counterexample")
    assert _refused(R.conditional_counterexample(margin="0"), "counterexample")


def test_counterexample_of_a_stronger_statement_does_not_refute() -> None:
    """Dropping the region's assumption ``c2 + r = 1`` gives a stronger statement; a counterexample to it (here the
    same point) does not refute the declared one, and the runner's implication test says so."""
    ce = R.conditional_counterexample()
    ce["statement"]["assume"] = ce["statement"]["assume"][:-1]
    ce["evidence"]["point"] = [x for x in ce["evidence"]["point"] if x[0] != "r"]
    ce["statement"]["symbols"] = [s for s in ce["statement"]["symbols"] if s[0] != "r"]
    assert check_proof(ce) is True  # a true refutation of the stronger statement
    declared = DECLARED["rcfl.lemma1.hcvar_conditional"][0]()
    assert not implies(statement_of(ce), {"kind": "counterexample", "statement": declared})


@pytest.mark.parametrize("name", ["hcvar_ru", "translation", "deviation_sign"])
def test_counterexample_to_a_proved_statement_refused(certs: dict, name: str) -> None:
    """A point of the domain of a proved statement never refutes it (n = 2, p = (1/2, 1/2), alpha = (3/4, 1))."""
    st = certs[name]["statement"]
    goal = st["goals"][0]["name"]
    vals = {"n": ["q", "2"], "p": ["q", "1/2"], "alpha": ["+", ["q", "1/2"], ["*", ["q", "1/4"], ["b", 0]]],
            "f": ["*", ["q", "3"], ["b", 0]], "eta": ["q", "1"], "m": ["q", "1/3"], "e": ["q", "1"], "t": ["q", "7/6"],
            "k": ["q", "2"]}  # alpha = (3/4, 1), tau = 2/3 + 1/2 = 7/6, f = (3, 6)
    ce = {"kind": "counterexample", "version": 1, "title": "forged", "citation": "test", "statement": st,
          "evidence": {"goal": goal, "point": [[s[0], vals[s[0]]] for s in st["symbols"]], "margin": "1/1000"}}
    assert _refused(ce, "counterexample")
    assert "the goal holds at the point" in _why(ce, "counterexample")  # in the domain, the relation holds


# ------------------------------------------------------------------------------------ forged proofs
def _goal(c: dict, k: int = 0) -> dict:
    return c["statement"]["goals"][k]


def test_translation_bound_moved_refused(certs: dict) -> None:
    c = copy.deepcopy(certs["translation"])
    _goal(c)["rhs"] = ["+", _goal(c)["rhs"], ["q", "1/1000"]]
    assert _refused(c)


@pytest.mark.parametrize("edit", ["lhs shifted", "alpha up to 2", "sum p = 1/2", "sum from 2", "tau changed"])
def test_deviation_sign_forgeries_refused(certs: dict, edit: str) -> None:
    c = copy.deepcopy(certs["deviation_sign"])
    st = c["statement"]
    if edit == "lhs shifted":  # E_pi f + 1/100 <= G: false at f constant, eta = f
        _goal(c)["lhs"] = ["+", _goal(c)["lhs"], ["q", "1/100"]]
    elif edit == "alpha up to 2":  # a range one step too wide: tau >= 1 fails
        st["symbols"][2][3] = ["q", "2"]
    elif edit == "sum p = 1/2":  # tau may be < 1: E_pi f <= G fails for eta far below
        st["assume"][0]["rhs"] = ["q", "1/2"]
    elif edit == "sum from 2":  # the mean over clients 2..n only
        _goal(c)["lhs"][2] = ["q", "2"]
    else:  # t = 2 tau
        st["assume"][1]["rhs"] = ["*", ["q", "2"], st["assume"][1]["rhs"]]
    assert _refused(c)


def test_weak_duality_range_too_wide_refused(certs: dict) -> None:
    c = copy.deepcopy(certs["weak_duality"])
    qd = next(s for s in c["statement"]["symbols"] if s[0] == "q")
    qd[3] = ["*", ["q", "2"], qd[3]]  # q_i <= 2/alpha_i: outside Q_alpha, weak duality fails
    assert _refused(c)


@pytest.mark.parametrize("edit", ["client not convex", "bound lowered", "q below 0"])
def test_convex_forgeries_refused(certs: dict, edit: str) -> None:
    c = copy.deepcopy(certs["convex"])
    sym = {s[0]: s for s in c["statement"]["symbols"]}
    if edit == "client not convex":  # fl_i up to mid_i + g_i: the client values may lie above the chord
        sym["fl"][3] = ["+", sym["fl"][3], ["at", "g", ["b", 0]]]
    elif edit == "bound lowered":  # (the kernel inequality holds for any real lam; lam in [0, 1] serves the sup step)
        c["statement"]["goals"][0]["rhs"] = ["+", c["statement"]["goals"][0]["rhs"], ["q", "-1/1000"]]
    else:  # q_i may be negative: -1/alpha_i <= q_i
        sym["q"][2] = ["*", ["q", "-1"], sym["q"][3]]
    assert _refused(c)


@pytest.mark.parametrize("edit", ["q up to 2", "sum q p = 1/2", "f box one-sided"])
def test_fedavg_forgeries_refused(certs: dict, edit: str) -> None:
    c = copy.deepcopy(certs["fedavg_limit"])
    sym = {s[0]: s for s in c["statement"]["symbols"]}
    if edit == "q up to 2":  # alpha_i = 1/2 instead of 1: Q is no longer {1}
        sym["q"][3] = ["q", "2"]
    elif edit == "sum q p = 1/2":
        c["statement"]["assume"][1]["rhs"] = ["q", "1/2"]
    else:  # m - w <= f_i <= m + w: still true, but the flo generators no longer give f_i - m (evidence mismatch)
        sym["f"][2] = ["+", ["v", "m"], ["*", ["q", "-1"], ["v", "w"]]]
    assert _refused(c)


def test_complementary_without_slackness_refused(certs: dict) -> None:
    c = copy.deepcopy(certs["complementary"])
    c["statement"]["assume"] = c["statement"]["assume"][:2]
    assert _refused(c)


def test_hcvar_ru_and_remark1_level_changed_refused(certs: dict) -> None:
    for name in ("hcvar_ru", "remark1"):
        c = copy.deepcopy(certs[name])
        s = json.dumps(c["statement"]["goals"][0]["lhs"])
        s2 = s.replace('["/", ["q", "1"], ["v", "t"]]', '["/", ["q", "2"], ["v", "t"]]', 1)
        assert s2 != s
        c["statement"]["goals"][0]["lhs"] = json.loads(s2)
        assert _refused(c), name


def test_remark2_certificate_and_forgeries() -> None:
    """002 Remark 2 with the generators max_le / max_ge inside sums: the certificate re-checks, its statement implies
    the declared one, and widening the loss range or the eta range is refused."""
    c = R.remark2_certificate()
    assert K.check(c, seconds=10.0) is True, _why(c)
    assert implies(c["statement"], DECLARED["proofs.rcfl.remark2.eta_range"][0]())
    wide = copy.deepcopy(c)
    next(s for s in wide["statement"]["symbols"] if s[0] == "f")[3] = ["*", ["q", "2"], ["v", "B"]]  # f_i <= 2B
    assert _refused(wide)
    late = copy.deepcopy(c)
    late["statement"]["assume"][1]["rhs"] = ["q", "1"]  # eta1 <= 1
    assert _refused(late)


def test_statement_words() -> None:
    """What the report prints for the refuted statement: the region and the inequality the literal reading implies."""
    from fairtheory_kernel.check import describe

    words = describe(DECLARED["rcfl.lemma1.hcvar_conditional"][0]())
    assert "p1/alpha1 + p2/alpha2 == 1 + s" in words and "f2 <= eta + (p1/alpha1)*max(f1 - eta, 0)" in words
    n, p = v("n"), at("p", IDX)
    assert json.dumps(sm(p, 1, n).t) in json.dumps(DECLARED["proofs.rcfl.deviation"][1]())
    assert q(1).t == ["q", "1"]



# ------------------------------------------------------------------------------------ Lemma 1 on the split form
def _brute_sup(caps: list, f: list) -> Fr:
    """The LP ``max lam . f`` over the capped simplex, exactly: the best vertex (every coordinate at 0 or its cap but
    one, which takes the remainder)."""
    import itertools

    best = None
    for j in range(len(f)):
        for at_cap in itertools.product([0, 1], repeat=len(f)):
            if at_cap[j]:
                continue
            lam = [caps[i] if at_cap[i] else Fr(0) for i in range(len(f))]
            rest = 1 - sum(lam)
            if 0 <= rest <= caps[j]:
                lam[j] = rest
                val = sum(x * y for x, y in zip(lam, f, strict=True))
                best = val if best is None or val > best else best
    return best


def test_split_reduction_exactly_on_random_instances() -> None:
    """The one meta-step, in exact rationals on 300 random instances (ties included): sorted by loss, every instance
    has the split form (U <= 1, boundary cap >= 1 - U, top losses >= eta >= bottom losses), and its greedy value equals
    the LP supremum (best vertex), the minimum of G (over its breakpoints, the losses), G at the boundary loss, the
    library's f_alpha and the split value of verify.claims.decided_rcfl; eta lies in [min f, max f]."""
    import random

    from fairtheory.objectives.qalpha import qalpha_loss
    from fairtheory.proofs.seed_rcfl import split_exact as _split_exact

    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 6)
        w = [Fr(rng.randint(1, 9)) for _ in range(n)]
        p = [x / sum(w) for x in w]
        a = [x + (1 - x) * Fr(rng.randint(0, 4), 4) for x in p]
        f = [Fr(rng.randint(-6, 6), rng.randint(1, 3)) for _ in range(n)]
        c = [x / y for x, y in zip(p, a, strict=True)]
        def g(e: Fr, c: list = c, f: list = f) -> Fr:
            return e + sum(ci * max(fi - e, 0) for ci, fi in zip(c, f, strict=True))

        val, eta, k, m = _split_exact(f, p, a)
        order = sorted(range(n), key=lambda i: -f[i])
        top, bnd, bottom = order[:k], order[k], order[k + 1:]
        U = sum((c[i] for i in top), Fr(0))
        assert k + 1 + m == n and f[bnd] == eta and U <= 1 and c[bnd] >= 1 - U
        assert all(f[i] >= eta for i in top) and all(f[i] <= eta for i in bottom)
        assert val == eta + sum((c[i] * (f[i] - eta) for i in top), Fr(0)) == g(eta)
        assert val == _brute_sup(c, f) == min(g(x) for x in f)
        assert min(f) <= eta <= max(f)
        fa = qalpha_loss([float(x) for x in f], [float(x) for x in p], [float(x) for x in a])[0]
        assert abs(fa - float(val)) <= 1e-9 * max(1.0, abs(float(val)))
        # the limits: alpha = 1 (caps p) gives sum p f, alpha = p (caps 1) gives max f
        assert _split_exact(f, p, [Fr(1)] * n)[0] == sum(x * y for x, y in zip(p, f, strict=True)) == _brute_sup(p, f)
        assert _split_exact(f, p, p)[0] == max(f) == _brute_sup([Fr(1)] * n, f)


def _split_edit(c: dict, edit: str) -> dict:
    c = copy.deepcopy(c)
    st = c["statement"]
    sym = {s[0]: s for s in st["symbols"]}
    if edit == "cap sum up to 2":  # U <= 2: the boundary weight 1 - U may be negative
        st["assume"][0]["rhs"] = ["q", "2"]
    elif edit == "bottom loss above eta":  # s_i real: a bottom loss eta - s_i > eta
        sym["s"][1] = "family_real"
    elif edit == "top loss below eta":  # r_i real
        sym["r"][1] = "family_real"
    elif edit == "boundary cap too small":  # u0 >= 1/2 - U only
        st["assume"][1]["lhs"] = ["+", ["q", "-1/2"], st["assume"][1]["lhs"]]
    elif edit == "value edited":  # G(eta) <= V - 1/1000
        g = next(x for x in st["goals"] if x["name"] == "G(eta) <= greedy value")
        g["rhs"] = ["+", g["rhs"], ["q", "-1/1000"]]
    elif edit == "greedy value edited":  # the boundary weight 1 - U replaced by 1
        g = next(x for x in st["goals"] if x["name"] == "greedy value = eta + sum_top ua r")
        g["lhs"] = ["+", g["lhs"], ["*", ["v", "eta"], ["sum", ["at", "ua", ["b", 0]], ["q", "2"], ["v", "k"]]]]
    elif edit == "G top sum from 1":  # one step too wide: G counts a top client 1 that V does not
        g = next(x for x in st["goals"] if x["name"] == "G(eta) <= greedy value")
        txt = json.dumps(g["lhs"])
        assert txt.count('["q", "2"], ["v", "k"]') == 1
        g["lhs"] = json.loads(txt.replace('["q", "2"], ["v", "k"]', '["q", "1"], ["v", "k"]'))
    else:
        raise AssertionError(edit)
    return c


@pytest.mark.parametrize("edit", ["cap sum up to 2", "bottom loss above eta", "top loss below eta",
                                  "boundary cap too small", "value edited", "greedy value edited",
                                  "G top sum from 1"])
def test_split_forgeries_refused(certs: dict, edit: str) -> None:
    forged = _split_edit(certs["split"], edit)
    assert _refused(forged), edit
    # the forged statement no longer implies the declared one (the claim would not accept it either)
    assert not implies(forged["statement"], DECLARED["proofs.rcfl.lemma1.dual"][0]())


@pytest.mark.parametrize("edit,goal,point", [
    # U = 2 > 1 with u0 = 0: the boundary weight 1 - U = -1 < 0
    ("cap sum up to 2", "boundary weight 0 <= 1 - U",
     {"k": 2, "m": 1, "eta": 0, "ua": [0, 2], "r": [0, 0], "u0": 0, "ub": [0], "s": [0], "eta2": 0}),
    # one bottom client with loss eta + 1 and cap 1: G(eta) = eta + 1 > V = eta
    ("bottom loss above eta", "G(eta) <= greedy value",
     {"k": 1, "m": 2, "eta": 0, "ua": [0], "r": [0], "u0": 1, "ub": [0, 1], "s": [0, -1], "eta2": 0}),
    # boundary cap 1/2 with no top client: 1 - U = 1 > u0
    ("boundary cap too small", "boundary weight 1 - U <= u0",
     {"k": 1, "m": 1, "eta": 0, "ua": [0], "r": [0], "u0": Fr(1, 2), "ub": [0], "s": [0], "eta2": 0}),
])
def test_split_forged_statements_refuted_exactly(certs: dict, edit: str, goal: str, point: dict) -> None:
    """Each forged split statement is false, not merely unproved: an exact counterexample re-checks."""
    from fairtheory.proofs.counterexample import counterexample

    st = _split_edit(certs["split"], edit)["statement"]
    ce = counterexample(st, goal, point, title=f"split form, {edit}")
    assert check_proof(ce) is True, _why(ce, "counterexample")
    # and the same point is no counterexample to the real statement (it violates its domain or the goal holds)
    ce_true = counterexample(st, goal, point, title="x")
    ce_true["statement"] = certs["split"]["statement"]
    assert _refused(ce_true, "counterexample")


@pytest.mark.parametrize("edit", ["caps sum to 2", "gaps unbounded", "value shifted"])
def test_split_fedavg_forgeries_refused(certs: dict, edit: str) -> None:
    c = copy.deepcopy(certs["split_fedavg"])
    st = c["statement"]
    if edit == "caps sum to 2":  # alpha = 1 means caps summing to 1
        st["assume"][2]["rhs"] = ["q", "2"]
    elif edit == "gaps unbounded":  # s_i <= 2 S: the fhi generator no longer gives S - s_i
        next(s for s in st["symbols"] if s[0] == "s")[3] = ["*", ["q", "2"], ["v", "S"]]
    else:
        st["goals"][0]["rhs"] = ["+", st["goals"][0]["rhs"], ["q", "-1/1000"]]
    assert _refused(c), edit


@pytest.mark.parametrize("edit", ["bottom loss above eta", "greedy value halved"])
def test_split_afl_forgeries_refused(certs: dict, edit: str) -> None:
    c = copy.deepcopy(certs["split_afl"])
    st = c["statement"]
    if edit == "bottom loss above eta":  # eta is then not the largest loss: G(eta) > eta
        st["symbols"][2][1] = "family_real"
    else:
        st["goals"][0]["lhs"] = ["*", ["q", "1/2"], ["v", "eta"]]
    assert _refused(c), edit


def test_hcvar_ru_declares_both_parts() -> None:
    """proofs.rcfl.lemma1.hcvar_ru declares the RU identity AND Lemma 1's first equality (split form, weak
    duality): without the split certificate the claim's statements are not all implied."""
    from verify.claims.decided_rcfl import _settle

    declared = [make() for make in DECLARED["proofs.rcfl.lemma1.hcvar_ru"]]
    assert len(declared) == 3
    out = _settle([R.hcvar_ru_certificate(), R.weak_duality_certificate()], declared, measured=0.0, bound=0.0,
                  relation="==", explain="test", details={})
    assert out.status == "error" and "declared statement 2" in out.note


def test_minimiser_in_range_is_some_minimiser() -> None:
    """docs/decided/rcfl.md: the boundary loss is a minimiser in [min f, max f], but not every minimiser is in range:
    at p = (1/2, 1/2), alpha = 1, f = (0, 1), G(-1) = G(0) = 1/2 < G(1/2) = 3/4."""
    from fairtheory.proofs.seed_rcfl import split_exact as _split_exact

    c, f = [Fr(1, 2)] * 2, [Fr(0), Fr(1)]
    g = lambda e: e + sum(ci * max(fi - e, 0) for ci, fi in zip(c, f, strict=True))  # noqa: E731
    assert (g(Fr(-1)), g(Fr(0)), g(Fr(1, 2))) == (Fr(1, 2), Fr(1, 2), Fr(3, 4))
    val, eta, k, m = _split_exact(f, c, [Fr(1)] * 2)
    assert (val, k, m) == (Fr(1, 2), 1, 0) and min(f) <= eta <= max(f) and g(eta) == val
    with pytest.raises(ValueError, match="tau_alpha < 1"):
        _split_exact(f, c, [Fr(2)] * 2)
