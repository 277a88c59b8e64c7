"""Certificates for the exact operator classes: the kernel table's pairwise operator entries
(:mod:`fairtheory_kernel.classes`: monotone, strongly monotone, Lipschitz, cocoercive, negatively comonotone), the
traced forward step ``x <- x - lr A(x)`` (FedAvg with one client, the operator as the client's "gradient") certified
with ``certificate=True``, and forgeries refused: a relabelled class, a parameter changed so that the claim is false,
the value measure over an operator class, a lowered bound.  The twin test (builder rows == kernel rows) is in
tests/test_kernel_classes.py (``CERTIFIABLE`` lists the operator classes).

Also the quadratic class (kernel key ``"quadratic"``, builder
:class:`~fairtheory.worstcase.classes.SmoothStronglyConvexQuadratic`), whose ``T >= 0`` condition both sides lift to
new Gram vectors: members satisfy the kernel's rows exactly (with the
lifting vectors ``u_j = R dx_j``), and gradient descent's certified bounds are the known rates
``max_{mu <= q <= L} m(q) (1 - lr q)^(2N)``."""

from __future__ import annotations

import copy
from fractions import Fraction as Q
from typing import Any

import pytest

from fairtheory.algorithms import fedavg
from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase import operators as O
from fairtheory.worstcase.traced import worst_case
from fairtheory_kernel import pep as K
from fairtheory_kernel.check import check_proof


def _cert(cls: Any, measure: str, output: str, rounds: int = 2, lr: float = 0.5) -> Any:
    return worst_case(fedavg.make, rounds, n=1, D0=1, rho2=0, function_class=cls, lr=lr, output=output, measure=measure,
                      certificate=True)


def _edited(d: dict[str, Any], edit: Any) -> dict[str, Any]:
    e = copy.deepcopy(d)
    edit(e["statement"])
    return e


#: (class, measure, output, known rate or None): the forward step x_{k+1} = x_k - lr A x_k, ||x0 - x*||^2 <= 1.
#: Cocoercive with lr <= 2 beta: I - lr A is nonexpansive, ||x_2 - x*||^2 <= 1 (tight: A = 0).  L-Lipschitz:
#: ||x_2 - x*||^2 <= (1 + lr L)^4 (tight: A = -L I).  Without a Lipschitz bound (monotone, strongly monotone,
#: comonotone) the forward step is unbounded: the bounded measure is the best of w_0..w_2.
GRID = [
    (O.Cocoercive(1), "distance", "last", Q(1)),
    (O.Cocoercive(1), "grad_norm", "last", None),
    (O.Lipschitz(1), "distance", "last", Q(3, 2) ** 4),
    (O.Nonexpansive(), "distance", "last", Q(3, 2) ** 4),
    (O.Lipschitz(Q(1, 2)), "grad_norm", "best", None),
    (O.Monotone(), "distance", "best", None),
    (O.StronglyMonotone(Q(1, 2)), "distance", "best", None),
    (O.NegativelyComonotone(Q(1, 4)), "distance", "best", None),
    # linear classes (lifted PSD condition): ||I - lr M||^4 over the class; skew: |1 - lr i|^4 = (1 + lr^2)^2
    (O.Linear(1), "distance", "last", Q(3, 2) ** 4),
    (O.SymmetricLinear(1, -1), "distance", "last", Q(3, 2) ** 4),
    (O.SkewSymmetricLinear(1), "distance", "last", Q(5, 4) ** 2),
    (O.SymmetricLinear(1, 0), "grad_norm", "last", Q(64, 729)),  # max_q q^2 (1 - q/2)^4 at q = 2/3
]


@pytest.mark.parametrize("cls,measure,output,rate", GRID, ids=[f"{c!r}-{m}-{o}" for c, m, o, _ in GRID])
def test_every_exact_operator_class_certifies(cls: Any, measure: str, output: str, rate: Any) -> None:
    w = _cert(cls, measure, output)
    d = w.certificate.to_json()
    assert d["statement"]["class"] == {k: (str(v) if k != "functions" else v) for k, v in cls.kernel_class().items()}
    assert d["statement"]["method"]["measure"] == [measure]
    assert check_proof(d) is True
    assert float(w.certificate.bound) >= w.value - 1e-6 * max(1.0, abs(w.value))
    assert abs(float(w.certificate.bound) - w.value) <= 1e-4 * max(1.0, abs(w.value))
    if rate is not None:
        assert abs(w.value - float(rate)) <= 1e-5 * float(rate)
        assert abs(float(w.certificate.bound) - float(rate)) <= 1e-5 * float(rate)
    assert "operator" in K.describe(K.canonical(d["statement"]))


@pytest.fixture(scope="module")
def cocoercive() -> dict[str, Any]:
    return _cert(O.Cocoercive(1), "distance", "last").certificate.to_json()


def test_operator_forgeries_refused(cocoercive: dict[str, Any]) -> None:
    d = cocoercive
    assert check_proof(d) is True
    bound = Q(d["statement"]["bound"]["value"])
    forged = {
        # a larger class: the forward step on a monotone (or comonotone) operator is unbounded
        "relabelled monotone": _edited(d, lambda s: s.update({"class": {"functions": "monotone"}})),
        "relabelled comonotone": _edited(d, lambda s: s.update({"class": {"functions": "negatively-comonotone",
                                                                          "rho": "1"}})),
        # beta = 1/8 < lr/2: I - lr A is no longer nonexpansive, the claim ||x_2 - x*||^2 <= 1 is false
        "beta lowered (false claim)": _edited(d, lambda s: s["class"].update(beta="1/8")),
        "relabelled lipschitz": _edited(d, lambda s: s.update({"class": {"functions": "lipschitz-operator", "L": "1"}})),
        "bound lowered": _edited(d, lambda s: s["bound"].update(value=str(bound * Q(99, 100)))),
        "D0 raised": _edited(d, lambda s: s["bound"].update(D0="2")),
        "measure value": _edited(d, lambda s: s["method"].update(measure=["value"])),
        "measure value and distance": _edited(d, lambda s: s["method"].update(measure=["value", "distance"])),
    }
    for what, e in forged.items():
        assert check_proof(e) is False, what


def test_the_kernel_refuses_the_value_measure_over_an_operator_class(cocoercive: dict[str, Any]) -> None:
    x0 = [[0, "1"]]
    two = {"class": [{"functions": "smooth-convex", "L": "1", "mu": "0"}, {"functions": "lipschitz-operator", "L": "1"}],
           "n": 2, "p": ["1/2", "1/2"], "method": {"name": "linear", "evaluations": [[0, x0], [1, x0]],
                                                   "measure": ["value"], "outputs": [["1", [x0]]]},
           "bound": {"form": "constrained", "D0": "1", "rho2": "1", "value": "1"}}
    sts = [_edited(cocoercive, lambda s, c=c, m=m: s.update({"class": c, "method": dict(s["method"], measure=m)}))["statement"]
           for c in ({"functions": "monotone"}, {"functions": "cocoercive", "beta": "1"}) for m in (["value"],
                                                                                                  ["distance", "value"])]
    for st in sts + [two]:
        with pytest.raises(K.BadStatement, match="operator class"):
            K.canonical(st)
    # the same statements with function classes are statements
    ok = _edited(cocoercive, lambda s: s.update({"class": {"functions": "convex"},
                                                 "method": dict(s["method"], measure=["value"])}))
    assert K.canonical(ok["statement"])["method"]["measure"] == ["value"]
    two["class"][1] = {"functions": "convex"}
    assert K.canonical(two)["n"] == 2


def test_operator_parameters_are_validated() -> None:
    from fairtheory_kernel.classes import parse_class

    for bad in ({"functions": "cocoercive", "beta": "0"}, {"functions": "strongly-monotone", "mu": "-1"},
                {"functions": "lipschitz-operator", "L": "0"}, {"functions": "negatively-comonotone", "rho": "0"},
                {"functions": "monotone", "mu": "1"}, {"functions": "cocoercive", "beta": "inf"}):
        with pytest.raises(K.BadStatement):
            parse_class(bad, K.q)


def test_value_measure_and_relaxations_refused_by_the_tracer() -> None:
    with pytest.raises(FairtheoryValueError, match="operator"):
        worst_case(fedavg.make, 1, n=1, D0=1, rho2=0, function_class=O.Cocoercive(1), lr=0.5, measure="value")
    for cls in (O.LipschitzStronglyMonotone(1, Q(1, 2)), O.CocoerciveStronglyMonotone(1, Q(1, 2))):
        assert cls.kernel_class() is None
        with pytest.raises(FairtheoryValueError, match="kernel"):
            _cert(cls, "distance", "last", rounds=1)


@pytest.mark.parametrize("cls,measure,output", [
    (O.Cocoercive(1), "distance", "last"),
    ([O.Cocoercive(1), O.Lipschitz(2)], "grad_norm", "average"),  # one class per client; units: the largest L = 2
    (O.Lipschitz(2), "distance", "last"),
])
def test_two_clients_zero_of_the_weighted_sum(cls: Any, measure: str, output: str) -> None:
    """Two clients, two local steps each, ``x*`` a zero of ``sum_i p_i A_i`` with ``sum_i p_i ||A_i x*||^2 <= 1/2``."""
    w = worst_case(fedavg.make, 2, n=2, D0=1, rho2=0.5, function_class=cls, lr=0.25, kappa=2, measure=measure,
                   output=output, certificate=True)
    d = w.certificate.to_json()
    assert check_proof(d) is True
    assert abs(float(w.certificate.bound) - w.value) <= 1e-4 * max(1.0, abs(w.value))
    low = _edited(d, lambda s: s["bound"].update(value=str(Q(s["bound"]["value"]) * Q(999, 1000))))
    assert check_proof(low) is False


# ------------------------------------------------------------------------------------------------ quadratics
#: (L, mu, measure, lr, rounds, the measure's factor m(q) of the known rate max_q m(q) (1 - lr q)^(2 rounds))
QUAD = [
    (1, 0, "value", 1.0, 2, lambda q: q / 2),
    (2, Q(1, 2), "distance", 0.5, 2, lambda q: 1),
    (1, 0, "grad_norm", 1.5, 2, lambda q: q * q),
]


@pytest.mark.parametrize("L,mu,measure,lr,rounds,m", QUAD, ids=[f"{a}-{b}-{c}" for a, b, c, *_ in QUAD])
def test_quadratic_certificates_reach_the_known_rate(L: Any, mu: Any, measure: str, lr: float, rounds: int, m: Any
                                                     ) -> None:
    from fairtheory.worstcase.classes import SmoothStronglyConvexQuadratic

    w = _cert(SmoothStronglyConvexQuadratic(L, mu), measure, "last", rounds=rounds, lr=lr)
    d = w.certificate.to_json()
    assert d["statement"]["class"] == {"functions": "quadratic", "L": str(L), "mu": str(mu)}
    assert check_proof(d) is True
    qs = [Q(mu) + (Q(L) - Q(mu)) * Q(k, 20000) for k in range(20001)]
    known = max(float(m(q) * (1 - Q(lr) * q) ** (2 * rounds)) for q in qs)
    assert abs(float(w.certificate.bound) - known) <= 1e-6 * max(known, 1e-3)
    assert abs(w.value - known) <= 1e-6 * max(known, 1e-3)
    forged = {
        "relabelled smooth-convex": _edited(d, lambda s: s.update({"class": {"functions": "smooth-convex", "L": str(L),
                                                                             "mu": str(mu)}})),
        "L raised (false claim)": _edited(d, lambda s: s["class"].update(L=str(4 * Q(L)))),
        "bound lowered": _edited(d, lambda s: s["bound"].update(value=str(Q(s["bound"]["value"]) * Q(99, 100)))),
        "mu lowered": _edited(d, lambda s: s["class"].update(mu=str(Q(mu) - Q(1, 4)))),
    }
    for what, e in forged.items():
        assert check_proof(e) is False, what


def _gram_value(G: dict[tuple[int, int], Any], gram: list[list[Q]]) -> Q:
    """``<G, Gram>`` for the kernel's upper-triangle form (an off-diagonal key holds half the coefficient)."""
    return sum((v * gram[a][b] * (1 if a == b else 2) for (a, b), v in G.items()), Q(0))


def _diag(v: list[Q]) -> list[list[Q]]:
    return [[v[i] if i == j else Q(0) for j in range(3)] for i in range(3)]


#: members with a rational K^(1/2) (R with R^T R = K, module doc of fairtheory_kernel.classes._lifted): (key, params,
#: M, R, values); diagonal entries m with (m - mu)(L - m) or L^2 - m^2 a rational square
SKEW = [[Q(0), Q(3, 5), Q(0)], [Q(-3, 5), Q(0), Q(0)], [Q(0)] * 3]
LIFTED_MEMBERS = [
    ("quadratic", {"L": "1", "mu": "0"}, _diag([Q(1, 10), Q(1, 2), Q(1)]), _diag([Q(3, 10), Q(1, 2), Q(0)]), True),
    ("quadratic", {"L": "1", "mu": "0"}, _diag([Q(0), Q(4, 5), Q(9, 10)]), _diag([Q(0), Q(2, 5), Q(3, 10)]), True),
    ("symmetric-linear", {"L": "1", "mu": "-1"}, _diag([Q(-3, 5), Q(4, 5), Q(-1)]), _diag([Q(4, 5), Q(3, 5), Q(0)]), False),
    ("linear-operator", {"L": "1"}, _diag([Q(3, 5), Q(-4, 5), Q(0)]), _diag([Q(4, 5), Q(3, 5), Q(1)]), False),
    ("skew-symmetric-linear", {"L": "1"}, SKEW, _diag([Q(4, 5), Q(4, 5), Q(1)]), False),
]


@pytest.mark.parametrize("key,params,M,R,values", LIFTED_MEMBERS, ids=[f"{k}-{i}" for i, (k, *_) in enumerate(LIFTED_MEMBERS)])
@pytest.mark.parametrize("seed", range(4))
def test_lifted_members_satisfy_the_kernel_rows_exactly(key: str, params: dict[str, str], M: Any, R: Any, values: bool,
                                                        seed: int) -> None:
    """``g = M x + b`` (``f = 1/2 <x, M x> + <b, x>`` for the quadratic), ``x* = 0``, ``g* = b``; basis: 3 orthonormal
    coordinates, then the lifting vectors ``u_j = R x_j``.  Every row holds with equality (each is one side of an
    equality); a non-member (``2 M``) breaks one."""
    import random

    from fairtheory_kernel.classes import TABLE, parse_class
    from fairtheory_kernel.rows import RATIONALS

    rng = random.Random(seed)
    P = 4
    b = [Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(3)]
    xs = [[Q(rng.randint(-6, 6), rng.randint(1, 4)) for _ in range(3)] for _ in range(P)]

    def mul(A: Any, x: list[Q]) -> list[Q]:
        return [sum((A[i][k] * x[k] for k in range(3)), Q(0)) for i in range(3)]

    def dot(u: list[Q], v: list[Q]) -> Q:
        return sum((a * c for a, c in zip(u, v, strict=True)), Q(0))

    us = [mul(R, x) for x in xs]
    gram = [[Q(int(i == j and i < 3)) for j in range(3 + P)] for i in range(3 + P)]
    for j in range(P):
        for k in range(P):
            gram[3 + j][3 + k] = dot(us[j], us[k])

    def vec(v: list[Q]) -> dict[int, Q]:
        return {i: x for i, x in enumerate(v) if x != 0}

    cls = parse_class({"functions": key, **params}, K.q) | {"aux": 3}

    def violated(A: Any) -> int:
        gs = [[y + c for y, c in zip(mul(A, x), b, strict=True)] for x in xs]
        fs = [dot(x, mul(A, x)) / 2 + dot(b, x) for x in xs]
        pts = [({}, vec(b), None)] + [(vec(xs[j]), vec(gs[j]), j) for j in range(P)]
        rows = TABLE[key].rows(pts, cls, RATIONALS)
        assert len(rows) <= TABLE[key].count(P + 1)
        assert any(F for _, F, _ in rows) == values
        return sum(_gram_value(G, gram) + sum((w * fs[i] for i, w in F.items()), Q(0)) + c != 0 for G, F, c in rows)

    assert violated(M) == 0
    assert violated([[2 * v for v in row] for row in M]) > 0


@pytest.mark.parametrize("seed", range(8))
def test_quadratics_satisfy_the_kernel_rows_exactly(seed: int) -> None:
    """``f(x) = 1/2 <x, Q x> + <b, x>``, ``Q = diag(q)`` with ``q_i`` in ``[0, 1]`` such that ``q (1 - q)`` is a rational
    square (so that ``R = ((Q - mu I)(L I - Q))^(1/2)`` is rational), ``L = 1``, ``mu = 0``; ``x* = 0`` (``g* = b``,
    ``f(x*) = 0``).  Basis: 3 orthonormal coordinates, then the lifting vectors ``u_j = R x_j`` (orthogonal to them):
    every row of the kernel holds with equality (each is one side of an equality)."""
    import random

    from fairtheory_kernel.classes import TABLE, parse_class
    from fairtheory_kernel.rows import RATIONALS

    rng = random.Random(seed)
    good = [Q(0), Q(1, 10), Q(1, 5), Q(1, 2), Q(4, 5), Q(9, 10), Q(1)]  # q (1 - q) = 0, 9/100, 4/25, 1/4, ...
    root = {Q(0): Q(0), Q(1, 10): Q(3, 10), Q(1, 5): Q(2, 5), Q(1, 2): Q(1, 2), Q(4, 5): Q(2, 5), Q(9, 10): Q(3, 10),
            Q(1): Q(0)}
    qd = [rng.choice(good) for _ in range(3)]
    b = [Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(3)]
    P = 4
    xs = [[Q(rng.randint(-6, 6), rng.randint(1, 4)) for _ in range(3)] for _ in range(P)]
    gs = [[qd[i] * x[i] + b[i] for i in range(3)] for x in xs]
    fs = [sum((qd[i] * x[i] * x[i] / 2 + b[i] * x[i] for i in range(3)), Q(0)) for x in xs]
    us = [[root[qd[i]] * x[i] for i in range(3)] for x in xs]
    dim = 3 + P
    gram = [[Q(0)] * dim for _ in range(dim)]
    for i in range(3):
        gram[i][i] = Q(1)
    for j in range(P):
        for k in range(P):
            gram[3 + j][3 + k] = sum((us[j][i] * us[k][i] for i in range(3)), Q(0))

    def vec(v: list[Q]) -> dict[int, Q]:
        return {i: x for i, x in enumerate(v) if x != 0}

    pts = [({}, vec(b), None)] + [(vec(xs[j]), vec(gs[j]), j) for j in range(P)]
    cls = parse_class({"functions": "quadratic", "L": "1", "mu": "0"}, K.q) | {"aux": 3}
    rows = TABLE["quadratic"].rows(pts, cls, RATIONALS)
    assert len(rows) == 2 * (P + P * (P - 1) // 2 + P * (P + 1) // 2) and len(rows) <= TABLE["quadratic"].count(P + 1)
    for G, F, c in rows:
        assert _gram_value(G, gram) + sum((w * fs[i] for i, w in F.items()), Q(0)) + c == 0
    # control: a Hessian entry outside [mu, L] breaks a row (T loses its square root: q (1 - q) < 0 for q = 3/2)
    gs_bad = [[(Q(3, 2) if i == 0 else qd[i]) * x[i] + b[i] for i in range(3)] for x in xs]
    pts_bad = [({}, vec(b), None)] + [(vec(xs[j]), vec(gs_bad[j]), j) for j in range(P)]
    fs_bad = [sum(((Q(3, 2) if i == 0 else qd[i]) * x[i] * x[i] / 2 + b[i] * x[i] for i in range(3)), Q(0)) for x in xs]
    bad = [r for r in TABLE["quadratic"].rows(pts_bad, cls, RATIONALS)
           if _gram_value(r[0], gram) + sum((w * fs_bad[i] for i, w in r[1].items()), Q(0)) + r[2] != 0]
    assert bad


def test_linear_operator_forgeries_refused() -> None:
    """Skew-symmetric ``||M|| <= 1``, two forward steps of ``lr = 1/2``: ``||x_2 - x*||^2 <= (1 + 1/4)^2``, certified;
    relabelled as a larger class (any ``||M|| <= 1``: ``(3/2)^4``), ``L`` raised, the bound lowered, the value measure:
    refused."""
    d = _cert(O.SkewSymmetricLinear(1), "distance", "last").certificate.to_json()
    assert check_proof(d) is True
    forged = {
        "relabelled linear-operator": _edited(d, lambda s: s.update({"class": {"functions": "linear-operator", "L": "1"}})),
        "relabelled symmetric": _edited(d, lambda s: s.update({"class": {"functions": "symmetric-linear", "L": "1",
                                                                         "mu": "-1"}})),
        "L raised (false claim)": _edited(d, lambda s: s["class"].update(L="2")),
        "bound lowered": _edited(d, lambda s: s["bound"].update(value=str(Q(s["bound"]["value"]) * Q(99, 100)))),
        "measure value": _edited(d, lambda s: s["method"].update(measure=["value"])),
    }
    for what, e in forged.items():
        assert check_proof(e) is False, what
    # L lowered: a smaller class, the same bound holds and is proved; it does not imply the claim with L = 1
    from fairtheory_kernel.check import implies

    low = _edited(d, lambda s: s["class"].update(L="1/2"))
    assert not implies(low, d["statement"]) and implies(d, d["statement"])
