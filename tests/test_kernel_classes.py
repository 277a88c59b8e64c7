"""One class abstraction down to the certificate: the builder's rows are the kernel table's rows, and every
certifiable class gets a certificate the trusted kernel accepts.

* twin: for every class of :mod:`fairtheory.worstcase.classes` that names a kernel entry (``kernel_class()``), on
  random points with exact rational coordinates, the rows the builder adds (``interpolation``) are exactly - same
  order, same Gram entries, values and constants - the rows :mod:`fairtheory_kernel.classes` re-derives from its
  table; relaxation classes name no entry;
* acceptance: ``worst_case(..., certificate=True)`` returns a certificate that ``check_proof`` accepts for every
  table entry, with the measures and outputs the tracer offers;
* forgeries: a relabelled class, a lowered parameter, a lowered bound, another measure or output, weights of the
  ``best`` output edited, a certificate attached to another claim - all refused.
"""

from __future__ import annotations

import copy
import math
import random
from fractions import Fraction as Q
from typing import Any

import numpy as np
import pytest

from fairtheory.algorithms import fedavg
from fairtheory.worstcase import classes as C
from fairtheory.worstcase import operators as O
from fairtheory.worstcase.traced import worst_case
from fairtheory_kernel import classes as KC
from fairtheory_kernel import pep as K
from fairtheory_kernel.check import check_proof, implies
from fairtheory_kernel.rows import RATIONALS, gram

try:  # the Gram algebra's module (it moved from sdp to gram)
    from fairtheory.worstcase.gram import Scalar, Vec, _Point
except ImportError:  # pragma: no cover - older layout
    from fairtheory.worstcase.sdp import Scalar, Vec, _Point  # type: ignore[no-redef]

#: one instance of every certifiable builder class (exact parameters), and its table key
CERTIFIABLE = [
    (C.SmoothStronglyConvex(Q(3, 2), Q(1, 3)), "smooth-convex"),
    (C.SmoothStronglyConvex(Q(2), 0), "smooth-convex"),
    (C.Convex(), "convex"),
    (C.ConvexLipschitz(Q(5, 4)), "convex-lipschitz"),
    (C.StronglyConvex(Q(1, 5)), "strongly-convex"),
    (C.SmoothNonconvex(Q(3)), "smooth-nonconvex"),
    (C.ConvexIndicator(D=Q(7, 3)), "convex-indicator"),
    (C.ConvexIndicator(), "convex-indicator"),
    (C.ConvexSupport(M=Q(2)), "convex-support"),
    (C.ConvexSupport(), "convex-support"),
    (O.Monotone(), "monotone"),
    (O.StronglyMonotone(Q(2, 3)), "strongly-monotone"),
    (O.Lipschitz(Q(3, 2)), "lipschitz-operator"),
    (O.Nonexpansive(), "lipschitz-operator"),
    (O.Cocoercive(Q(1, 4)), "cocoercive"),
    (O.NegativelyComonotone(Q(1, 3)), "negatively-comonotone"),
]
#: classes whose conditions are relaxations (or need symbols the table has not): no kernel entry
NOT_CERTIFIABLE = [C.SmoothConvexLipschitz(1, 1), C.RsiEb(Q(1, 2), 1), C.ConvexQG(1),
                   C.SmoothQuadraticLojasiewicz(1, Q(1, 2)), C.ConvexIndicator(R=1)]
#: classes whose builder writes its conditions as equalities with a lifting (``on_point``, not ``interpolation``): their
#: twin is by value and by member in tests/test_kernel_operator_classes.py
LIFTED = [(C.SmoothStronglyConvexQuadratic(1, 0), "quadratic"), (O.Linear(1), "linear-operator"),
          (O.SymmetricLinear(1, -1), "symmetric-linear"), (O.SkewSymmetricLinear(1), "skew-symmetric-linear")]


def _parsed(cls: Any) -> dict[str, Any]:
    k = cls.kernel_class()
    return KC.parse_class({a: (v if v == "inf" or a == "functions" else str(v)) for a, v in k.items()}, K.q)


def _as_row(s: Any) -> tuple[dict[tuple[int, int], Q], dict[int, Q], Q]:
    """A builder row (a :class:`Scalar`) as the kernel's ``(G, F, c)``."""
    G: dict[tuple[int, int], Q] = {}
    for c, u, v in s.quad:
        gram({i: Q(x) for i, x in enumerate(u.c) if x != 0}, {i: Q(x) for i, x in enumerate(v.c) if x != 0}, Q(c), G)
    return {a: x for a, x in G.items() if x != 0}, {f: Q(w) for f, w in s.lin.items() if w != 0}, Q(s.const)


def _points(rng: random.Random, count: int, dim: int) -> tuple[list[Any], list[Any]]:
    """``count`` points (``x*`` first: origin, value 0) with random rational coordinates: builder and kernel forms."""
    def vec() -> dict[int, Q]:
        return {i: Q(rng.randint(-9, 9), rng.randint(1, 5)) for i in range(dim) if rng.random() < 0.8}

    def arr(v: dict[int, Q]) -> Any:
        a = np.zeros(dim, dtype=object)
        a[:] = Q(0)
        for i, x in v.items():
            a[i] = x
        return Vec(a)

    builder, kernel = [], []
    for j in range(count):
        x, g = ({}, vec()) if j == 0 else (vec(), vec())
        f = Scalar() if j == 0 else Scalar([], {j - 1: Q(1)}, 0)
        builder.append(_Point(arr(x), arr(g), f))
        kernel.append((x, g, None if j == 0 else j - 1))
    return builder, kernel


@pytest.mark.parametrize("cls,key", CERTIFIABLE, ids=[repr(c) for c, _ in CERTIFIABLE])
def test_builder_rows_are_the_kernel_table_rows(cls: Any, key: str) -> None:
    parsed = _parsed(cls)
    assert parsed["functions"] == key
    rng = random.Random(hash(repr(cls)) % 1000)
    for count in (1, 2, 4):
        builder, kernel = _points(rng, count, 5)
        mine = [_as_row(s) for s, _ in cls.interpolation(builder)]
        theirs = KC.TABLE[key].rows(kernel, parsed, RATIONALS)
        assert mine == theirs
        assert len(theirs) <= KC.TABLE[key].count(count)


def test_every_table_entry_has_a_builder_class_and_a_soundness_paragraph() -> None:
    assert {k for _, k in CERTIFIABLE + LIFTED} == set(KC.TABLE)
    for key, e in KC.TABLE.items():
        doc = e.rows.__doc__ or ""
        assert "Exact" in doc and ("Thm" in doc or "Cor" in doc), key


@pytest.mark.parametrize("cls", NOT_CERTIFIABLE, ids=repr)
def test_relaxations_name_no_kernel_entry(cls: Any) -> None:
    assert getattr(cls, "kernel_class", lambda: None)() is None
    with pytest.raises(Exception, match="kernel"):
        worst_case(fedavg.make, 1, n=1, D0=1, rho2=0, function_class=cls, lr=0.5, certificate=True)


# ------------------------------------------------------------------------------------------------ acceptance
@pytest.fixture(scope="module")
def lipschitz_best() -> Any:
    """The issue's acceptance call."""
    return worst_case(fedavg.make, 3, n=1, D0=1, rho2=0, function_class=C.ConvexLipschitz(1), lr=0.5, output="best",
                      certificate=True)


def test_acceptance_convex_lipschitz_best(lipschitz_best: Any) -> None:
    w = lipschitz_best
    d = w.certificate.to_json()
    st = d["statement"]
    assert st["class"] == {"functions": "convex-lipschitz", "M": "1"}
    assert st["method"]["measure"] == ["value"] and len(st["method"]["outputs"][0][1]) == 4  # w_0..w_3
    assert check_proof(d) is True
    assert abs(float(w.certificate.bound) - w.value) <= 1e-5 * max(1.0, abs(w.value))


#: (class, measure, output) for every table entry; n = 1 unless the class fixes more
GRID = [
    (C.SmoothStronglyConvex(1, Q(1, 4)), "grad_norm", "last"),
    (C.SmoothStronglyConvex(2, 0), "distance", "best"),
    (C.Convex(), "distance", "best"),  # convex / strongly convex / indicator steps are unbounded: best of w_0..w_T
    (C.ConvexLipschitz(2), "distance", "average"),
    (C.StronglyConvex(Q(1, 2)), "distance", "best"),
    (C.SmoothNonconvex(1), "grad_norm", "best"),
    (C.ConvexIndicator(D=2), "distance", "best"),
    (C.ConvexSupport(M=1), "value", "average"),
]


@pytest.mark.parametrize("cls,measure,output", GRID, ids=[f"{c!r}-{m}-{o}" for c, m, o in GRID])
def test_every_table_entry_certifies(cls: Any, measure: str, output: str) -> None:
    w = worst_case(fedavg.make, 2, n=1, D0=1, rho2=0, function_class=cls, lr=0.5, output=output, measure=measure,
                   certificate=True)
    d = w.certificate.to_json()
    assert d["statement"]["class"]["functions"] == cls.kernel_class()["functions"]
    assert d["statement"]["method"]["measure"] == [measure]
    assert check_proof(d) is True
    assert float(w.certificate.bound) >= w.value - 1e-6 * max(1.0, abs(w.value))
    assert abs(float(w.certificate.bound) - w.value) <= 1e-4 * max(1.0, abs(w.value))


def test_per_client_classes_and_two_measures() -> None:
    """Two clients of different classes (one per client in the statement) and the minimum of two measures."""
    w = worst_case(fedavg.make, 2, n=2, D0=1, rho2=1, function_class=[C.SmoothStronglyConvex(1, 0), C.Convex()],
                   lr=0.25, kappa=1, measure=["value", "distance"], output="best", certificate=True)
    d = w.certificate.to_json()
    assert [c["functions"] for c in d["statement"]["class"]] == ["smooth-convex", "convex"]
    assert d["statement"]["method"]["measure"] == ["value", "distance"]
    assert check_proof(d) is True


# ------------------------------------------------------------------------------------------------ forgeries
def _edited(d: dict[str, Any], edit: Any) -> dict[str, Any]:
    e = copy.deepcopy(d)
    edit(e["statement"])
    return e


def _weights(d: dict[str, Any], f: Any) -> dict[str, Any]:
    """``d`` with the multipliers of its ``t - m(x)`` rows (the last rows before ``||x0 - x*||^2 <= D0``) edited."""
    e = copy.deepcopy(d)
    data = K.build(K.canonical(e["statement"]))
    n_best = len(e["statement"]["method"]["outputs"][0][1])
    rows = range(data["n_interp"] - n_best, data["n_interp"])
    mult = {k: Q(v) for k, v in e["evidence"]["multipliers"]}
    f(mult, list(rows))
    e["evidence"]["multipliers"] = [[k, str(v)] for k, v in sorted(mult.items()) if v != 0]
    return e


def test_forgeries_refused(lipschitz_best: Any) -> None:
    d = lipschitz_best.certificate.to_json()
    assert check_proof(d) is True
    forged = {
        "relabelled smooth-convex": _edited(d, lambda s: s.update({"class": {"functions": "smooth-convex", "L": "1",
                                                                             "mu": "0"}})),
        "M raised": _edited(d, lambda s: s["class"].update(M="2")),
        "bound lowered": _edited(d, lambda s: s["bound"].update(value=str(Q(s["bound"]["value"]) * Q(99, 100)))),
        "measure changed": _edited(d, lambda s: s["method"].update(measure=["distance"])),
        "best -> last": _edited(d, lambda s: s["method"].update(
            outputs=[[q, [xs[-1]]] for q, xs in s["method"]["outputs"]])),
        "class convex": _edited(d, lambda s: s.update({"class": {"functions": "convex"}})),
        "D0 raised": _edited(d, lambda s: s["bound"].update(D0="2")),
    }
    for what, e in forged.items():
        assert check_proof(e) is False, what
    # M lowered: a smaller class, so the same multipliers prove the same bound (their dual bound sum lambda_k M^2 only
    # drops) - a true statement, checked; it is not the claim with M = 1, which it does not imply
    low = _edited(d, lambda s: s["class"].update(M="1/2"))
    assert check_proof(low) is True
    assert not implies(low, d["statement"]) and implies(d, d["statement"])


def test_best_output_weights_must_be_a_convex_combination(lipschitz_best: Any) -> None:
    d = lipschitz_best.certificate.to_json()

    def scale(m: dict[int, Q], rows: list[int]) -> None:
        for k in rows:
            m[k] = m.get(k, Q(0)) * Q(2)

    def negate(m: dict[int, Q], rows: list[int]) -> None:
        big = max(rows, key=lambda k: m.get(k, Q(0)))
        other = next(k for k in rows if k != big)
        m[other] = m.get(other, Q(0)) - Q(1, 3)
        m[big] = m.get(big, Q(0)) + Q(1, 3)

    def drop(m: dict[int, Q], rows: list[int]) -> None:
        m[max(rows, key=lambda k: m.get(k, Q(0)))] = Q(0)

    ws = [Q(v) for k, v in d["evidence"]["multipliers"]]
    assert ws
    for f in (scale, negate, drop):
        assert check_proof(_weights(d, f)) is False, f.__name__


def test_smooth_certificate_relabelled_lipschitz_refused() -> None:
    w = worst_case(fedavg.make, 2, n=1, D0=1, rho2=0, function_class=C.SmoothStronglyConvex(1, 0), lr=0.5,
                   certificate=True)
    d = w.certificate.to_json()
    assert check_proof(d) is True
    for cls in ({"functions": "convex-lipschitz", "M": "1"}, {"functions": "smooth-convex", "L": "2", "mu": "0"},
                {"functions": "convex"},
                {"functions": "smooth-nonconvex", "L": "1"}):
        assert check_proof(_edited(d, lambda s, c=cls: s.update({"class": c}))) is False, cls
    # L lowered: 1/2-smooth functions are 1-smooth, the same bound holds and the multipliers prove it (the rows'
    # ||g_j - g_k||^2/(2L) only grows); checked, but it does not imply the claim with L = 1
    low = _edited(d, lambda s: s["class"].update(L="1/2"))
    assert check_proof(low) is True and not implies(low, d["statement"])


def test_certificate_attached_to_another_claim(lipschitz_best: Any) -> None:
    """The proved statement implies its own claim, not another one (other M, other output, other class)."""
    d = lipschitz_best.certificate.to_json()
    own = d["statement"]
    assert implies(d, own)
    for other in (_edited(d, lambda s: s["class"].update(M="1/2")),
                  _edited(d, lambda s: s["method"].update(outputs=[[q, [xs[-1]]] for q, xs in s["method"]["outputs"]])),
                  _edited(d, lambda s: s["bound"].update(value=str(Q(s["bound"]["value"]) / 2)))):
        assert not implies(d, other["statement"])


def test_table_parameters_are_validated() -> None:
    for bad in ({"functions": "convex-lipschitz", "M": "0"}, {"functions": "convex-lipschitz", "M": "inf"},
                {"functions": "smooth-convex", "L": "1", "mu": "1"}, {"functions": "strongly-convex", "mu": "0"},
                {"functions": "convex-indicator", "D": "-1"}, {"functions": "convex", "L": "1"},
                {"functions": "smooth-convex-lipschitz", "L": "1", "M": "1"}):
        with pytest.raises(K.BadStatement):
            KC.parse_class(bad, K.q)
    assert KC.parse_class({"functions": "convex-support", "M": "inf"}, K.q)["M"] == "inf"
    assert math.isfinite(float(KC.parse_class({"functions": "convex-indicator", "D": "3"}, K.q)["D"]))


@pytest.mark.parametrize("cls,measure,D0,rho2,n", [
    (C.ConvexLipschitz(3), "value", 3, 0, 1),                  # distance unit sqrt(3): a rational square nearby
    (C.SmoothStronglyConvex(4, 1), "grad_norm", 2, 0, 1),      # L = 4: curvature in units of L
    (C.SmoothNonconvex(Q(1, 2)), "grad_norm", 5, 0, 1),
    (C.ConvexIndicator(D=Q(3, 2)), "distance", 2, 0, 1),
    (C.SmoothStronglyConvex(2, 0), "value", 1, Q(1, 2), 2),    # two clients, rho2 > 0
])
def test_certificates_in_other_units(cls: Any, measure: str, D0: Any, rho2: Any, n: int) -> None:
    """The untrusted search normalises (curvature by the largest L, distances by a rational sqrt(D0 + rho2/L^2)) and maps
    the multipliers back exactly: the kernel accepts the physical statement, whose bound is the worst case."""
    w = worst_case(fedavg.make, 2, n=n, D0=float(D0), rho2=float(rho2), function_class=cls, lr=0.25, measure=measure,
                   output="best", certificate=True)
    d = w.certificate.to_json()
    assert check_proof(d) is True
    assert abs(float(w.certificate.bound) - w.value) <= 1e-4 * max(1.0, abs(w.value))


def test_too_many_output_rows_are_refused_by_the_statement() -> None:
    """A hostile ``best`` statement with thousands of candidate points (each one row ``t - m(x) <= 0`` per measure) is
    refused while parsing, before any row is built; one just inside the limit is a statement."""
    x0 = [[0, "1"]]

    def st(leaves: int, measure: list[str]) -> dict[str, Any]:
        return {"class": {"functions": "convex-lipschitz", "M": "1"}, "n": 1, "p": ["1"],
                "method": {"name": "linear", "evaluations": [[0, x0]], "measure": measure,
                           "outputs": [[str(Q(1, leaves)), [x0]] for _ in range(leaves)]},
                "bound": {"form": "constrained", "D0": "1", "rho2": "0", "value": "1"}}

    with pytest.raises(K.BadStatement, match="MAX_ROWS / 4"):
        K.canonical(st(3000, ["value", "distance"]))
    ok = K.canonical(st(K.MAX_ROWS // 4, ["value"]))
    assert len(ok["method"]["outputs"]) == K.MAX_ROWS // 4
    assert K.check_work(ok) > 0
