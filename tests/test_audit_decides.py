"""``fairtheory.testing.audit`` decides properties of an objective written as text: README's mean + lambda std is
monotone in every loss exactly when lambda <= 1/sqrt(n - 1) - proved below (a "symbolic" certificate for every n),
refuted exactly above (a "counterexample" certificate at n = 3, lambda = 1) - and every certificate is the kernel's
to accept: forged ones (a range one step too wide, a wrong n, an edited counterexample) are refused."""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.testing import audit
from fairtheory.testing.audit import audit_expression
from fairtheory.testing.decide import (
    ExpressionAudit,
    _ends,
    affine_form,
    between_certificate,
    between_counterexample,
    convex_certificate,
    convex_counterexample,
    monotone_certificate,
    monotone_counterexample,
    parameter_certificate,
    parameter_counterexample,
)
from fairtheory.testing.expr import parse
from fairtheory_kernel.check import check_proof, describe, implies, statement_of

README = "mean(f) + lambda * std(f)"
BELOW = {"lambda": ("0", "1/sqrt(n - 1)")}
ABOVE = {"lambda": ("0", "1")}


def _certs(params: dict) -> tuple[dict | None, dict | None]:
    obj = parse(README, params=params)
    aff = affine_form(obj)
    lo, hi = _ends(obj, aff)
    return monotone_certificate(obj, aff, lo, hi), monotone_counterexample(obj, aff, lo, hi)


# ------------------------------------------------------------------------------------------ the README example
def test_monotone_exactly_below_the_threshold_is_proved_for_every_n() -> None:
    cert, cx = _certs(BELOW)
    assert cx is None  # nothing to refute: mu^2 (n - 1) <= 1 on the whole range
    assert cert is not None and cert["kind"] == "symbolic" and check_proof(cert)
    words = describe(statement_of(cert))
    assert words.startswith("for all k integer >= 1, f_i real, x real, delta >= 0, lambda real, s > 0, t > 0")
    assert "0 <= lambda, lambda^2*k <= 1" in words  # lambda in [0, 1/sqrt(n - 1)] with n = k + 1
    assert "lambda*s <= " in words and "+ lambda*t" in words


def test_monotone_above_the_threshold_is_refuted_exactly_at_n_3() -> None:
    cert, cx = _certs(ABOVE)
    assert cert is None
    assert cx is not None and cx["kind"] == "counterexample" and check_proof(cx)
    point = dict((k, v) for k, v in cx["evidence"]["point"])
    assert point == {"k": ["q", "2"], "x": ["q", "0"], "delta": ["q", "2/3"], "lambda": ["q", "1"], "f": ["q", "1"]}
    assert "proof" in cx["evidence"]  # sqrt(2) is irrational: a chain proves the strict inequality
    margin = Fraction(cx["evidence"]["margin"])
    # the second route: numbers.  f = (1, 1, 0) -> (1, 1, 2/3) lowers A by (2/3)(sqrt 2 - 1)/3 = 0.0920...
    obj = parse(README, params=ABOVE)
    drop = obj.value([1, 1, 0], {"lambda": 1.0}) - obj.value([1, 1, 2 / 3], {"lambda": 1.0})
    assert drop == pytest.approx(2 / 9 * (math.sqrt(2) - 1), rel=1e-12)
    assert 0 < margin <= drop
    words = describe(statement_of(cx))
    assert words.startswith("the statement is false at a point of its domain: for all k integer >= 1")
    assert "0 <= lambda, lambda <= 1" in words


def test_the_refutation_refutes_every_wider_range_and_not_the_proved_one() -> None:
    _, cx = _certs(ABOVE)
    _, cx_wide = _certs({"lambda": ("0", "2")})
    proved, _ = _certs(BELOW)
    # lambda in [0, 1] false; a statement with fewer assumptions (no upper end) is false too: S_b implies S_a
    no_upper = copy.deepcopy(cx["statement"])
    no_upper["assume"] = no_upper["assume"][:1]
    assert implies(statement_of(cx), {"kind": "counterexample", "statement": no_upper})
    assert not implies(statement_of(cx), {"kind": "counterexample", "statement": proved["statement"]})
    assert check_proof(cx_wide)


# ------------------------------------------------------------------------------------------ forgeries
def test_a_proof_for_lambda_up_to_1_over_sqrt_n_minus_1_does_not_prove_a_wider_range() -> None:
    cert, _ = _certs(BELOW)
    assert check_proof(cert)
    for rhs in (["q", "101/100"], ["q", "2"]):  # lambda^2 (n - 1) <= 1.01: one step too wide
        bad = copy.deepcopy(cert)
        bad["statement"]["assume"][1]["rhs"] = rhs
        assert not check_proof(bad), rhs
    bad = copy.deepcopy(cert)  # lambda <= 1 instead of lambda <= 1/sqrt(n - 1)
    bad["statement"]["assume"][1] = {"rel": "<=", "lhs": ["v", "lambda"], "rhs": ["q", "1"]}
    assert not check_proof(bad)
    bad = copy.deepcopy(cert)  # no upper end at all
    del bad["statement"]["assume"][1]
    assert not check_proof(bad)


def test_a_proof_with_a_wrong_n_or_a_larger_coefficient_is_refused() -> None:
    cert, _ = _certs(BELOW)
    bad = copy.deepcopy(cert)  # the mean over k clients instead of k + 1
    goal = bad["statement"]["goals"][0]
    goal["lhs"][1][2] = ["v", "k"]
    assert goal["lhs"][1][0] == "/"
    assert not check_proof(bad)
    bad = copy.deepcopy(cert)  # lambda^2 k <= 1 kept, but the threshold stated for n - 2 = k - 1
    bad["statement"]["assume"][1]["lhs"] = ["*", ["^", ["v", "lambda"], 2], ["+", ["v", "k"], ["q", "-1"]]]
    assert not check_proof(bad)
    bad = copy.deepcopy(cert)  # mean + 2 lambda std: monotone only for lambda <= 1/(2 sqrt(n - 1))
    for side in ("lhs", "rhs"):
        t = bad["statement"]["goals"][0][side]
        t[2] = ["*", ["q", "2"], *t[2][1:]]
    assert not check_proof(bad)
    other, _ = _certs({"lambda": ("0", "1/sqrt(n - 1)")})
    assert other == cert  # deterministic


def test_an_edited_counterexample_is_refused() -> None:
    _, cx = _certs(ABOVE)
    assert check_proof(cx)

    def edited(name: str, value: list) -> dict:
        bad = copy.deepcopy(cx)
        bad["evidence"]["point"] = [[k, value if k == name else v] for k, v in bad["evidence"]["point"]]
        return bad

    assert not check_proof(edited("lambda", ["q", "1/2"]))   # lambda sqrt(2) < 1: the relation holds there
    assert not check_proof(edited("lambda", ["q", "2"]))     # outside the range [0, 1]
    assert not check_proof(edited("delta", ["q", "-2/3"]))   # a decrease, not an increase
    assert not check_proof(edited("x", ["q", "1"]))          # all losses equal: raising one raises A
    assert not check_proof(edited("k", ["q", "1"]))          # n = 2: lambda = 1 is the threshold, monotone
    bad = copy.deepcopy(cx)
    bad["evidence"]["margin"] = "1/10"                         # more than the true drop 0.0920...
    assert not check_proof(bad)
    bad = copy.deepcopy(cx)
    bad["statement"]["assume"][1]["rhs"] = ["q", "1/2"]        # the range [0, 1/2] at n = 3: lambda = 1 outside it
    assert not check_proof(bad)
    bad = copy.deepcopy(cx)                                    # the counterexample moved to the proved statement
    proved, _ = _certs(BELOW)
    bad["statement"]["assume"][1] = proved["statement"]["assume"][1]
    assert not check_proof(bad)


def test_counterexamples_hold_numerically_across_coefficients_and_ranges() -> None:
    seen = 0
    for text, rng in [("mean(f) + lambda * std(f)", ("0", "1/10")), ("2 * mean(f) + std(f)", None),
                      ("3 * mean(f) - lambda * std(f) / 2 + 7", ("1", "2")),
                      ("mean(f) + lambda * std(f)", ("0", "3/sqrt(n - 1)")),
                      ("mean(f) - lambda * std(f)", ("0", "3/5"))]:
        obj = parse(text, params=None if rng is None else {"lambda": rng})
        aff = affine_form(obj)
        lo, hi = _ends(obj, aff)
        assert monotone_certificate(obj, aff, lo, hi) is None
        cx = monotone_counterexample(obj, aff, lo, hi)
        assert cx is not None and check_proof(cx), text
        pt = {k: v for k, v in cx["evidence"]["point"]}
        k, x, d = (float(Fraction(pt[z][1])) for z in ("k", "x", "delta"))
        vals = {} if rng is None else {"lambda": float(Fraction(pt["lambda"][1]))}
        f = np.ones(int(k) + 1)
        f[-1] = x
        g = f.copy()
        g[-1] = x + d
        assert obj.value(f, vals) - obj.value(g, vals) >= float(Fraction(cx["evidence"]["margin"])) * (1 - 1e-12)
        seen += 1
    assert seen == 5


def test_proofs_across_coefficients_and_ranges() -> None:
    for text, rng in [("mean(f) + lambda * std(f) / 3", ("0", "3/sqrt(n - 1)")),
                      ("2 * mean(f) - lambda * std(f) + 5", ("1/2", "2/sqrt(n - 1)")),
                      ("mean(f) - 0 * std(f)", None), ("7 * mean(f)", None)]:
        obj = parse(text, params=None if rng is None else {"lambda": rng})
        aff = affine_form(obj)
        lo, hi = _ends(obj, aff)
        cert = monotone_certificate(obj, aff, lo, hi)
        assert cert is not None and check_proof(cert), text
        assert monotone_counterexample(obj, aff, lo, hi) is None


def test_parameter_monotonicity_proved_refuted_and_a_forgery_refused() -> None:
    obj = parse(README, params=BELOW)
    aff = affine_form(obj)
    cert = parameter_certificate(obj, aff, *_ends(obj, aff))
    assert cert is not None and check_proof(cert)
    neg = parse("mean(f) - lambda * std(f)", params=ABOVE)
    aff_n = affine_form(neg)
    assert parameter_certificate(neg, aff_n, *_ends(neg, aff_n)) is None
    cx = parameter_counterexample(neg, aff_n, *_ends(neg, aff_n))
    assert cx is not None and check_proof(cx)
    forged = copy.deepcopy(cert)  # the proof of mean + lambda std attached to mean - lambda std
    forged["statement"]["goals"] = copy.deepcopy(parameter_counterexample(neg, aff_n, *_ends(neg, aff_n))
                                                 ["statement"]["goals"])
    forged["statement"]["assume"] = cx["statement"]["assume"]
    assert not check_proof(forged)


def _pair(make_cert, make_cx, text: str, params: dict | None) -> tuple[dict | None, dict | None]:
    obj = parse(text, params=params)
    aff = affine_form(obj)
    lo, hi = _ends(obj, aff)
    return make_cert(obj, aff, lo, hi), make_cx(obj, aff, lo, hi)


def test_between_mean_and_max_has_the_same_threshold_and_forgeries_are_refused() -> None:
    cert, cx = _pair(between_certificate, between_counterexample, README, BELOW)
    assert cx is None and check_proof(cert)
    words = describe(statement_of(cert))
    assert "0 <= g_i <= G" in words and "G == (sum_{i=1..k} g_i) + y" in words
    no_cert, cx = _pair(between_certificate, between_counterexample, README, ABOVE)
    assert no_cert is None and check_proof(cx)
    assert cx["evidence"]["goal"] == "A <= max f" and "proof" in cx["evidence"]  # n = 3: A - max f = (sqrt 2 - 1)/3
    obj = parse(README, params=ABOVE)
    assert obj.value([1, 1, 0], {"lambda": 1.0}) - 1 >= float(Fraction(cx["evidence"]["margin"]))
    bad = copy.deepcopy(cert)  # one step too wide
    bad["statement"]["assume"][1]["rhs"] = ["q", "101/100"]
    assert not check_proof(bad)
    bad = copy.deepcopy(cert)  # losses only bounded by G, not summing to it: G no longer ties max - mean
    del bad["statement"]["assume"][2]
    assert not check_proof(bad)
    bad = copy.deepcopy(cx)  # the counterexample at lambda = 1/2: A <= max f holds there
    bad["evidence"]["point"] = [[k, ["q", "1/2"] if k == "lambda" else v] for k, v in bad["evidence"]["point"]]
    assert not check_proof(bad)
    for text, params in [("2 * mean(f)", None), ("mean(f) + 1/5", None), ("mean(f) - lambda * std(f)", ABOVE)]:
        c, x = _pair(between_certificate, between_counterexample, text, params)
        assert c is None and x is not None and check_proof(x), text


def test_convexity_proved_for_beta_at_least_0_and_refuted_below() -> None:
    cert, cx = _pair(convex_certificate, convex_counterexample, README, ABOVE)
    assert cx is None and check_proof(cert)
    assert describe(statement_of(cert)).startswith("for all n integer >= 1, f_i real, g_i real, t >= 0, u >= 0")
    cert2, cx = _pair(convex_certificate, convex_counterexample, "mean(f) - lambda * std(f)", {"lambda": ("0", "3")})
    assert cert2 is None and check_proof(cx)
    obj = parse("mean(f) - lambda * std(f)", params={"lambda": ("0", "3")})
    f, g = np.array([1.0, 0.0]), np.array([0.0, 0.5])
    gap = obj.value((f + g) / 2, {"lambda": 3.0}) - (obj.value(f, {"lambda": 3.0}) + obj.value(g, {"lambda": 3.0})) / 2
    assert gap == pytest.approx(3 / 4) and Fraction(cx["evidence"]["margin"]) == Fraction(3, 4)
    bad = copy.deepcopy(cert)  # the proof attached to mean - lambda std
    for side in ("lhs", "rhs"):
        bad["statement"]["goals"][0][side] = cx["statement"]["goals"][0][side]
    assert not check_proof(bad)
    wide = copy.deepcopy(cert)  # t + u = 2 is no convex combination, but mean + lambda std is positively homogeneous
    wide["statement"]["assume"][2]["rhs"] = ["q", "2"]  # and subadditive: that statement is true, and re-checks
    assert check_proof(wide)
    shifted, _ = _pair(convex_certificate, convex_counterexample, README + " + 1", ABOVE)
    assert check_proof(shifted)
    bad = copy.deepcopy(shifted)  # with a constant term, t + u = 1/2 is false (f = g: A(f/2) - A(f)/2 = 1/2)
    bad["statement"]["assume"][2]["rhs"] = ["q", "1/2"]
    assert not check_proof(bad)
    bad = copy.deepcopy(cx)  # the refutation moved to lambda = 0 (where A is the mean: linear)
    bad["evidence"]["point"] = [[k, ["q", "0"] if k == "lambda" else v] for k, v in bad["evidence"]["point"]]
    assert not check_proof(bad)


# ------------------------------------------------------------------------------------------ the audit
def test_audit_of_the_readme_example_decides_both_ways() -> None:
    below = audit(README, params=BELOW, max_examples=15)
    above = audit(README, params=ABOVE, max_examples=15)
    assert isinstance(below, ExpressionAudit) and isinstance(above, ExpressionAudit)
    assert below["monotone"].status == "proved" and check_proof(below["monotone"].certificate)
    assert above["monotone"].status == "refuted" and check_proof(above["monotone"].certificate)
    assert "n = 3" in above["monotone"].reason
    assert below["parameter_monotone"].status == "proved" and above["parameter_monotone"].status == "proved"
    assert below["between_mean_and_max"].status == "proved" and above["between_mean_and_max"].status == "refuted"
    assert below["convex"].status == "proved" and above["convex"].status == "proved"
    for rep in (below, above):
        for row in rep.rows:
            if row.property != "permutation_invariant":
                assert check_proof(row.certificate), row
    # holds by the language's construction, which no kernel rule states: checked, never proved without a certificate
    assert below["permutation_invariant"].status == "checked" and below["permutation_invariant"].certificate is None
    assert "by construction" in below["permutation_invariant"].reason
    for rep in (below, above):
        for row in rep.rows:
            assert row.agrees, row
            assert row.status in ("proved", "refuted", "checked", "not applicable")
            if row.status == "checked":
                assert row.certificate is None and row.reason
    # the numeric route sees the refutation too (n = 3 is among the numbers of clients it tries)
    assert above["monotone"].numeric.startswith("violated")
    assert below["monotone"].numeric.startswith("held")
    assert "monotone" in below.table() and "proved" in below.table()


def test_objectives_outside_the_template_are_checked_with_the_reason() -> None:
    rep = audit("log(mean(exp(t * f))) / t", params={"t": ("1/2", "4")}, max_examples=10,
                properties=("monotone", "parameter_monotone"))
    assert [r.status for r in rep.rows] == ["checked", "checked"]
    assert all("template" in r.reason for r in rep.rows)
    assert all(r.numeric.startswith("held") for r in rep.rows)
    rep = audit("mean(f) + std(f)", max_examples=5, properties=("parameter_monotone",))
    assert rep["parameter_monotone"].status == "not applicable"


def test_text_audit_arguments_are_validated_by_name() -> None:
    with pytest.raises(FairtheoryValueError, match="min_loss and max_loss apply to aggregator objects only"):
        audit(README, params=BELOW, min_loss=0.0)
    with pytest.raises(FairtheoryValueError, match="properties must be among"):
        audit(README, params=BELOW, properties=("subgradient",))
    with pytest.raises(FairtheoryValueError, match="params must be None"):
        audit_expression(parse(README, params=BELOW), params=BELOW)
    with pytest.raises(FairtheoryTypeError, match="ns must be a non-empty tuple"):
        audit_expression(README, params=BELOW, ns=(0,))
    with pytest.raises(FairtheoryValueError, match="max_examples"):
        audit(README, params=BELOW, max_examples=0)

    class Mean:
        n = 2

        def value(self, f):
            return float(np.mean(f))

        def weights(self, f):
            return np.full(2, 0.5)

    with pytest.raises(FairtheoryValueError, match="params applies to objectives given as text only"):
        audit(Mean(), params=BELOW)
    assert audit(Mean(), max_examples=5).passed


def _sweep(alphas, coefs, gammas, los, his) -> tuple[int, int, list[str]]:
    import itertools

    pairs = {"monotone": (monotone_certificate, monotone_counterexample),
             "between": (between_certificate, between_counterexample),
             "convex": (convex_certificate, convex_counterexample),
             "parameter": (parameter_certificate, parameter_counterexample)}
    checked = undecided = 0
    wrong: list[str] = []
    for a, c, g, lo, hi in itertools.product(alphas, coefs, gammas, los, his):
        text = f"{a} * mean(f) + ({c}) * lambda * std(f) + {g}"
        obj = parse(text, params={"lambda": (lo, hi)})
        aff = affine_form(obj)
        ends = _ends(obj, aff)
        for name, (make_cert, make_cx) in pairs.items():
            cert, cx = make_cert(obj, aff, *ends), make_cx(obj, aff, *ends)
            undecided += cert is None and cx is None
            if cert is not None and cx is not None:
                wrong.append(f"{name} both ways: {text} {lo, hi}")
            for cc in (cert, cx):
                if cc is not None:
                    checked += 1
                    if not check_proof(cc):
                        wrong.append(f"{name} refused: {text} {lo, hi}")
    return checked, undecided, wrong


def test_a_small_sweep_of_template_objectives_is_decided_consistently() -> None:
    checked, undecided, wrong = _sweep([1, "3/2"], [1, "-1/3"], ["-3"], ["0", "1/2"], ["1", "1/sqrt(n-1)"])
    assert wrong == [] and undecided == 0 and checked == 4 * 16  # 16 objectives, 4 properties, one certificate each


@pytest.mark.slow
def test_the_sweep_docs_audit_md_reports() -> None:
    """docs/audit.md: 675 template objectives, 2202 certificates, all re-checked, none both ways."""
    checked, undecided, wrong = _sweep([1, 2, "1/2"], [1, -1, "1/3", 0, 3], [0, "1/5", -3], ["0", "1/2", "-3"],
                                       ["1", "7/3", "0", "1/sqrt(n-1)", "5/sqrt(n-1)"])
    assert wrong == [] and checked == 2202
