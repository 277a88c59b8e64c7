"""The audit's term language (fairtheory.testing.expr): parse / print / kernel-term round trips, errors that name the
argument and the position, and the numbers (value and forward-mode gradient) against numpy."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.testing.expr import (
    ExpressionError,
    Untranslatable,
    from_term,
    parse,
    to_term,
    to_text,
    uses_losses,
)
from fairtheory_kernel.symbolic import canonical_statement

PARAMS = {"lam": ("0", "1"), "t": ("1/2", "4")}


# ------------------------------------------------------------------------------------------ trees
def _scalars() -> st.SearchStrategy:
    decimals = st.tuples(st.integers(-5000, 5000), st.sampled_from([1, 2, 4, 5, 8, 10, 16, 25, 100, 1000]))
    leaf = st.one_of(decimals.map(lambda pq: ("num", Fraction(*pq))),
                     st.sampled_from([("par", "lam"), ("par", "t"), ("n",)]))
    return st.recursive(leaf, lambda sub: st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "/"]), sub, sub),
        st.tuples(st.just("^"), sub, st.integers(-3, 3).map(lambda k: ("num", Fraction(k)))),
        st.tuples(st.just("neg"), sub),
        st.tuples(st.just("call"), st.sampled_from(["exp", "log", "sqrt"]), st.tuples(sub)),
        st.tuples(st.just("call"), st.sampled_from(["max", "min"]), st.tuples(sub, sub)),
        st.tuples(st.just("call"), st.sampled_from(["sum", "mean", "var", "std"]), st.tuples(_vectors(sub))),
    ), max_leaves=8)


def _vectors(scalar: st.SearchStrategy) -> st.SearchStrategy:
    base = st.just(("f",))
    return st.recursive(base, lambda sub: st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "/"]), sub, scalar),
        st.tuples(st.sampled_from(["+", "*"]), scalar, sub),
        st.tuples(st.just("^"), sub, st.integers(1, 3).map(lambda k: ("num", Fraction(k)))),
        st.tuples(st.just("call"), st.sampled_from(["exp", "log"]), st.tuples(sub)),
    ), max_leaves=3)


def _norm(t: tuple) -> tuple:
    """A negative number prints as ``(-q)`` and parses back as ``neg(q)``: the tree with that one rewrite."""
    if t[0] == "num" and t[1] < 0:
        return ("neg", ("num", -t[1]))
    if t[0] == "call":
        return ("call", t[1], tuple(_norm(a) for a in t[2]))
    return (t[0], *[_norm(a) if isinstance(a, tuple) else a for a in t[1:]])


@settings(max_examples=150, deadline=None)
@given(_scalars())
def test_print_then_parse_gives_the_tree_back(tree: tuple) -> None:
    text = to_text(tree)
    assert not uses_losses(tree)
    assert parse(text, params=PARAMS).tree == _norm(tree), text


@settings(max_examples=150, deadline=None)
@given(_scalars())
def test_kernel_terms_round_trip_and_are_well_formed(tree: tuple) -> None:
    try:
        term = to_term(tree)
    except Untranslatable:  # an aggregate inside an aggregate: the kernel's sums do not nest
        return
    assert to_term(from_term(term)) == term
    st_ = {"kind": "symbolic", "symbols": [["n", "count"], ["f", "family_real"], ["lam", "real"], ["t", "real"]],
           "goals": [{"name": "g", "rel": "==", "lhs": term, "rhs": term}]}
    assert canonical_statement(st_)["goals"][0]["lhs"] == term


def test_the_readme_objective_parses_to_the_expected_kernel_term() -> None:
    obj = parse("mean(f) + lambda * std(f)", params={"lambda": ("0", "1/sqrt(n - 1)")})
    assert obj.tree == ("+", ("call", "mean", (("f",),)), ("*", ("par", "lambda"), ("call", "std", (("f",),))))
    s = ["sum", ["at", "f", ["b", 0]], ["q", "1"], ["v", "n"]]
    s2 = ["sum", ["^", ["at", "f", ["b", 0]], 2], ["q", "1"], ["v", "n"]]
    mean = ["/", s, ["v", "n"]]
    var = ["+", ["/", s2, ["v", "n"]], ["*", ["q", "-1"], ["^", mean, 2]]]
    assert obj.term() == ["+", mean, ["*", ["v", "lambda"], ["rpow", var, ["q", "1/2"]]]]
    assert obj.params["lambda"] == (("num", Fraction(0)),
                                    ("/", ("num", Fraction(1)), ("call", "sqrt", (("-", ("n",), ("num", Fraction(1))),))))


def test_precedence_and_exact_numbers() -> None:
    assert parse("-2^2 + mean(f)").tree[1] == ("neg", ("^", ("num", 2), ("num", 2)))
    assert parse("2^3^2 + mean(f)").tree[1] == ("^", ("num", 2), ("^", ("num", 3), ("num", 2)))
    assert parse("0.1 * mean(f)").tree[1] == ("num", Fraction(1, 10))
    assert parse("1e-3 * mean(f)").tree[1] == ("num", Fraction(1, 1000))
    assert parse("mean(f) ** 2").tree == parse("mean(f)^2").tree
    assert parse("2 * mean(f) - 3 / 4").tree == ("-", ("*", ("num", 2), ("call", "mean", (("f",),))),
                                                  ("/", ("num", 3), ("num", 4)))


def test_untranslatable_parts_are_named() -> None:
    with pytest.raises(Untranslatable, match="binary max only"):
        to_term(parse("max(f)").tree)
    with pytest.raises(Untranslatable, match="do not nest"):
        to_term(parse("sum((f - mean(f))^2)").tree)
    with pytest.raises(Untranslatable, match="beyond the kernel's 16"):
        to_term(parse("mean(f^17)").tree)


# ------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("text, message", [
    ("mean(f) + mu * std(f)", r"unknown name 'mu'.*position 10"),
    ("median(f)", r"unknown function 'median'"),
    ("mean(f", r"expected '\)'"),
    ("mean(f) +", r"found the end"),
    ("f + 1", r"must be a scalar"),
    ("mean(2)", r"must use f"),
    ("max(f, 1, 2)", r"takes 1 argument \(over the clients\) or 2"),
    ("exp(f, f)", r"exp takes 1 argument"),
    ("mean(f) $ 2", r"unexpected character '\$'"),
    ("", r"1 to 2000 characters"),
    ("mean", r"needs arguments"),
    ("mean(f) mean(f)", r"unexpected 'mean'"),
    ("(" * 70 + "mean(f)" + ")" * 70, r"nested deeper"),
    ("mean(f)" + " + 1" * 300, r"nests deeper than 200 levels"),
    ("1e1000000000 * mean(f)", r"too large"),
    ("1" * 80 + " * mean(f)", r"too large"),
])
def test_parse_errors_name_the_argument_and_the_position(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message) as info:
        parse(text, params={"lam": ("0", "1")})
    assert "objective" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_params_are_validated_by_name() -> None:
    with pytest.raises(FairtheoryTypeError, match="params must be a dict"):
        parse("mean(f)", params=[("lam", (0, 1))])
    with pytest.raises(FairtheoryValueError, match="parameter name"):
        parse("mean(f)", params={"std": ("0", "1")})
    with pytest.raises(FairtheoryValueError, match="parameter name"):
        parse("mean(f)", params={"x_1": ("0", "1")})
    with pytest.raises(FairtheoryTypeError, match=r"params\['lam'\] must be a pair"):
        parse("mean(f)", params={"lam": ("0",)})
    with pytest.raises(FairtheoryTypeError, match="exact"):
        parse("mean(f)", params={"lam": (0.5, 1)})
    with pytest.raises(ExpressionError, match=r"params\['lam'\].*unknown name 'm'"):
        parse("mean(f)", params={"lam": ("0", "1/m")})
    with pytest.raises(ExpressionError, match=r"params\['lam'\]: a range end may use only numbers and n"):
        parse("mean(f)", params={"lam": ("0", "mean(f)")})
    with pytest.raises(FairtheoryTypeError, match="must be a str"):
        parse(3)
    obj = parse("mean(f) + lam * std(f)", params={"lam": (0, Fraction(1, 2))})
    assert obj.bounds("lam", 4) == (0.0, 0.5)
    with pytest.raises(FairtheoryValueError, match=r"values must give every parameter \['lam'\]"):
        obj.value([1.0, 2.0])


# ------------------------------------------------------------------------------------------ numbers
@pytest.mark.parametrize("text, values, fn", [
    ("mean(f) + lam * std(f)", {"lam": 0.7}, lambda f, p: f.mean() + p["lam"] * f.std()),
    ("log(mean(exp(t * f))) / t", {"t": 2.0}, lambda f, p: np.log(np.mean(np.exp(p["t"] * f))) / p["t"]),
    ("sum(f^3) / (n + 1)", {}, lambda f, p: np.sum(f ** 3) / (f.size + 1)),
    ("var(f) + max(f) - min(f)", {}, lambda f, p: f.var() + f.max() - f.min()),
    ("mean(max(f, 2) + sqrt(f))", {}, lambda f, p: np.mean(np.maximum(f, 2) + np.sqrt(f))),
    ("mean(f^(3/2)) + min(mean(f), 1)", {}, lambda f, p: np.mean(f ** 1.5) + min(f.mean(), 1)),
])
def test_values_and_gradients_match_numpy_and_differences(text: str, values: dict, fn) -> None:
    obj = parse(text, params={"lam": ("0", "1"), "t": ("1/2", "4")})
    rng = np.random.default_rng(0)
    for n in (1, 2, 5):
        f = rng.uniform(0.5, 3.0, size=n)
        val, grad = obj.value_and_grad(f, {"lam": 0.7, "t": 2.0})
        assert val == pytest.approx(fn(f, values), rel=1e-12)
        h = 1e-6
        fd = np.array([(fn(f + h * e, values) - fn(f - h * e, values)) / (2 * h) for e in np.eye(n)])
        assert np.allclose(grad, fd, rtol=1e-5, atol=1e-6), (text, grad, fd)


def test_value_rejects_a_bad_loss_vector() -> None:
    obj = parse("mean(f)")
    with pytest.raises(FairtheoryValueError, match=r"f must be a loss vector of shape \(n,\)"):
        obj.value(np.zeros((2, 2)))


def test_kernel_terms_evaluate_to_the_objective() -> None:
    """The second route: the kernel term of an objective, evaluated in floats, is the objective's value."""
    from fairtheory.testing.decide import eval_term

    f = [0.5, 2.0, 1.25]
    for text in ("mean(f) + lam * std(f)", "log(mean(exp(t * f))) / t", "sum(f^3) / (n + 1) - var(f)",
                 "mean(max(f, 1) + sqrt(f)) - min(mean(f), 1)"):
        obj = parse(text, params=PARAMS)
        got = eval_term(obj.term(), {"n": 3, "lam": 0.7, "t": 2.0}, {"f": lambda i: f[i - 1]})
        assert got == pytest.approx(obj.value(f, {"lam": 0.7, "t": 2.0}), rel=1e-12), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["mean(", "std(", "max(", "sum(", "f", "n", "lam", "t", "x", "(", ")", ",", "+", "-",
                                 "*", "/", "^", "**", "2", "0.5", "1e3", " ", "exp(", "log(", "sqrt(", "$"]),
                max_size=30))
def test_any_text_parses_or_raises_a_named_error(parts: list[str]) -> None:
    text = "".join(parts)
    try:
        obj = parse(text, params=PARAMS)
    except ExpressionError as exc:
        assert str(exc).startswith("objective") or "characters" in str(exc)
        return
    assert not uses_losses(obj.tree)
    assert parse(to_text(obj.tree), params=PARAMS).tree == obj.tree
