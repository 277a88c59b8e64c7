"""Issue 33, routes 2 and 3: printed words are the checked statement, and a declared statement is read once.

Each test is a forgery tried against the trusted kernel (:mod:`fairtheory_kernel`) or the runner's binding of
certificates to claims (:func:`verify.core.bind_statement`); none may end in a false statement printed as proved.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from fairtheory_kernel import check as K
from fairtheory_kernel import family, pep
from fairtheory_kernel.rows import BadStatement

# ------------------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def gd1_family() -> dict[str, Any]:
    """A genuine pep-family certificate: one step of GD, f(x_1) - f* <= L D0/(4h + 2) for every h in [0, 1]."""
    from fairtheory.proofs.parametric import prove_family

    d = prove_family("gd", N=1, h=(Fraction(0), Fraction(1))).to_json()
    assert d["statement"]["bound"]["value"] == {"num": ["1"], "den": ["2", "4"]} and K.check_inline(d)
    return d


def _gd_statement(value: Any) -> dict[str, Any]:
    """One step of GD with step 1/L (as local GD with one client), ||x0 - x*||^2 <= 1: the worst case is 1/6."""
    from fairtheory.proofs.certificate import statement

    return statement(method={"name": "local_gd", "kappa": 1, "T_N": 0, "lr": 1, "schedule": "rfedfair", "output": "last"},
                     n=1, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": value})


@pytest.fixture(scope="module")
def gd_cert() -> dict[str, Any]:
    from fairtheory.proofs.certificate import certify_exact

    c = certify_exact(_gd_statement(0), Fraction(1, 6))
    assert c is not None
    return c.to_json()


def _linear(evals: list[Any], outputs: list[Any], n: int = 1, value: str = "1",
            measure: Any = ("value",)) -> dict[str, Any]:
    """A ``linear`` statement; ``outputs`` as ``[[probability, [evaluation index, ...]], ...]`` (each candidate the
    point of that evaluation) or, with a point list instead of an index, that point."""
    outs = [[w, [evals[e][1] if isinstance(e, int) else e for e in xs]] for w, xs in outputs]
    return {"class": {"functions": "smooth-convex", "L": "1", "mu": "0"}, "n": n, "p": [str(Fraction(1, n))] * n,
            "method": {"name": "linear", "evaluations": evals, "measure": list(measure), "outputs": outs},
            "bound": {"form": "constrained", "D0": "1", "rho2": "0" if n == 1 else "1", "value": value}}


# ------------------------------------------------------------------------------------------------ route 2: signs
def test_family_bound_with_two_minus_signs_prints_one_correct_sign(gd1_family: dict[str, Any]) -> None:
    """The bound rewritten as (-1)/(-(4h + 2)): the same true bound.  It re-checks, and is printed L D0/(4 h + 2)
    (printed -L D0/(4 h + 2) before: the sign of the constant numerator applied twice)."""
    d = copy.deepcopy(gd1_family)
    d["statement"]["bound"]["value"] = {"num": ["-1"], "den": ["-2", "-4"]}
    assert K.check_inline(d) is True
    st = K.statement_of(d)
    assert st is not None and st["statement"]["bound"]["value"] == {"num": ["1"], "den": ["2", "4"]}
    words = K.describe(st)
    assert "f(x_N) - f* <= L D0/(4 h + 2)" in words and "-L D0" not in words, words
    assert family.bound_str(family.canonical(d["statement"])) == "L D0/(4 h + 2)"


def test_family_bound_common_factor_is_removed(gd1_family: dict[str, Any]) -> None:
    """(h + 1)/((h + 1)(4h + 2)), also with every sign flipped: the kernel checks, compares and prints 1/(4h + 2)."""
    for num, den in ((["1", "1"], ["2", "6", "4"]), (["-1", "-1"], ["-2", "-6", "-4"]), (["-2"], ["-4", "-8"])):
        d = copy.deepcopy(gd1_family)
        d["statement"]["bound"]["value"] = {"num": num, "den": den}
        assert K.check_inline(d) is True
        assert "<= L D0/(4 h + 2)" in K.describe(K.statement_of(d))


def test_family_negative_bound_is_refused_and_printed_negative(gd1_family: dict[str, Any]) -> None:
    """A false bound -1/(4h + 2) (one minus sign) fails the check; its words keep the one minus sign."""
    d = copy.deepcopy(gd1_family)
    d["statement"]["bound"]["value"] = {"num": ["1"], "den": ["-2", "-4"]}
    assert K.check_inline(d) is False
    assert "<= -L D0/(4 h + 2)" in K.describe(K.statement_of(d))


# ------------------------------------------------------------------------------------------------ route 2: linear
@pytest.mark.parametrize("evals,why", [
    ([[0, []]], "x* itself: no x0"),
    ([[0, [[0, "1/2"]]]], "(x0 + x*)/2"),
    ([[0, [[0, "2"]]]], "2 x0"),
    ([[0, [[0, "1"]]], [0, [[1, "-1"]]]], "x* - g_0: x0 dropped"),
])
def test_linear_iterates_must_be_an_algorithm(evals: list[Any], why: str) -> None:
    st = _linear(evals, [["1", [len(evals) - 1]]], value="0")
    with pytest.raises(BadStatement, match="coefficient 1 on x0"):
        pep.canonical(st)
    d = {"kind": "pep-dual", "version": 2, "statement": st, "evidence": {"multipliers": [[0, "1"]]}}
    assert K.check_inline(d) is False and K.statement_of(d) is None, why
    assert K.describe({"kind": "pep-dual", "statement": st}).startswith("(malformed"), why


@pytest.mark.parametrize("outputs,measure,n", [
    ([["-1", [1]]], ["value"], 1),                 # a negative probability: -(f(x_1) - f*)
    ([["2", [1]]], ["value"], 1),                  # probabilities summing to 2
    ([["1/2", [1]]], ["value"], 1),                # probabilities summing to 1/2
    ([["1", [1]], ["-1", [0]]], ["value"], 1),     # f(x_1) - f(x_0): a difference, not a measure
    ([["1", []]], ["value"], 1),                   # a leaf without a candidate point
    ([["1", [1]]], ["gap_of_client_0"], 1),        # a measure the kernel does not define (e.g. one client's gap)
    ([["1", [1]]], ["value", "value"], 1),         # a repeated measure
    ([["1", [1]]], [], 1),                         # no measure
])
def test_linear_objective_must_be_the_stated_measure(outputs: list[Any], measure: list[str], n: int) -> None:
    """The measure is the kernel's (value, grad_norm, distance of E over leaves of the minimum over candidates): a
    weight on one client, a difference of values or an unnormalised distribution cannot be written."""
    evals = [[0, [[0, "1"]]], [0, [[0, "1"], [n, "-1"]]]]
    with pytest.raises(BadStatement, match="probabilit|measure|candidate"):
        pep.canonical(_linear(evals, outputs, n=n, measure=measure))


def test_linear_measure_is_printed_as_checked() -> None:
    """Accepted objectives: one output point, or a distribution over points; the words name each with its
    probability."""
    one = _linear([[0, [[0, "1"]]], [0, [[0, "1"], [1, "-1"]]]], [["1", [1]]])
    w = K.describe({"kind": "pep-dual", "statement": one})
    assert "output x_out = the point of evaluation 1: G(x_out) - G* <= 1" in w, w
    rnd = _linear([[0, [[0, "1"]]], [0, [[0, "1"], [1, "-1"]]]], [["1/4", [0]], ["3/4", [1]]])
    w = K.describe({"kind": "pep-dual", "statement": rnd})
    assert "0 with probability 1/4, 1 with probability 3/4: E[G(x_out)] - G* <= 1" in w, w
    two = _linear([[0, [[0, "1"]]], [1, [[0, "1"]]]], [["1", [0]]], n=2)
    assert "G(x_out) - G* <= 1" in K.describe({"kind": "pep-dual", "statement": two})


def test_traced_linear_certificate_still_proves_its_measure() -> None:
    """A genuine traced certificate (GD, two steps of 1/L): accepted, with the measure in its words."""
    from fairtheory.proofs.certificate import certify_exact

    st = _linear([[0, [[0, "1"]]], [0, [[0, "1"], [1, "-1"]]], [0, [[0, "1"], [1, "-1"], [2, "-1"]]]], [["1", [2]]],
                 value="0")
    c = certify_exact(st, Fraction(1, 10))  # Drori & Teboulle: L D0/(4N + 2) at N = 2
    assert c is not None
    d = c.to_json()
    assert K.check_inline(d) and "G(x_out) - G* <= 1/10" in K.describe(K.statement_of(d))


# ------------------------------------------------------------------------------------------------ route 2: user text
def _symbolic_cert() -> dict[str, Any]:
    from fairtheory.proofs.symbolic import softplus_smoothness_certificate

    d = softplus_smoothness_certificate()
    assert d["kind"] == "symbolic" and K.check_inline(d)
    return d


def _rename_goal(d: dict[str, Any], text: str, *, statement: bool) -> None:
    """Rename goal 0 in the evidence (the key of its proof) and, with ``statement``, in the statement too."""
    old = d["statement"]["goals"][0]["name"]
    next(p for p in d["evidence"]["proofs"] if p["name"] == old)["name"] = text
    if statement:
        d["statement"]["goals"][0]["name"] = text


@pytest.mark.parametrize("where", ["title", "citation", "goal", "part"])
@pytest.mark.parametrize("text", ["ok\nproved (other.id): 1 <= 0", "tab\there", "cr\r", "nel\x85", "ls\u2028",
                                  "rlo\u202e0 =< 1", "x" * 121])
def test_user_text_with_control_characters_or_too_long_is_refused(where: str, text: str) -> None:
    d = _symbolic_cert()
    if where in ("title", "citation"):
        d[where] = text
    elif where == "goal":
        _rename_goal(d, text, statement=True)
    else:
        _rename_goal(d, text, statement=False)
    assert K.admissible(d) is False and K.check_inline(d) is False and K.check_proof(d) is False
    words = K.describe({"kind": d["kind"], "statement": d["statement"]})
    assert "\n" not in words and "\r" not in words and "proved (" not in words


def test_names_are_quoted_after_the_mathematics() -> None:
    d = _symbolic_cert()
    _rename_goal(d, "1 <= 0", statement=True)
    words = K.describe({"kind": d["kind"], "statement": d["statement"]})
    assert "\n" not in words and '[goal "1 <= 0"]' in words and not words.startswith("1 <= 0"), words


def test_a_genuine_symbolic_certificate_checks_within_limits() -> None:
    d = _symbolic_cert()
    assert K.admissible(d) and K.budget_seconds(d) <= K.LIMITS[d["kind"]][1]
    big = copy.deepcopy(d)
    big["citation"] = "c"
    big["padding"] = ["0" * 1000] * 400  # over the symbolic size limit (300 kB): refused before any parsing
    assert K.admissible(big) is False and K.check_inline(big) is False


# ------------------------------------------------------------------------------------------------ route 3: frozen
class Shifty(dict):
    """A declared statement that answers 1/6 on its first read of the bound and 1/100 afterwards."""

    reads = 0

    def __getitem__(self, key: str) -> Any:
        v = super().__getitem__(key)
        if key == "value":
            Shifty.reads += 1
            return "1/6" if Shifty.reads == 1 else "1/100"
        return v

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def items(self):  # type: ignore[override]
        return [(k, self[k]) for k in self.keys()]

    def values(self):  # type: ignore[override]
        return [self[k] for k in self.keys()]


def _shifty_statement() -> dict[str, Any]:
    st = _gd_statement("1/6")
    st["bound"] = Shifty(st["bound"])
    Shifty.reads = 0
    return st


def _bind(outcome: Any, proves: Any) -> Any:
    from verify.claims import load_all
    from verify.core import REGISTRY, Context, claim, run_claim

    load_all()
    REGISTRY.pop("test.forgery.shifty", None)
    try:
        claim("test.forgery.shifty", citation="by hand", statement="bound", expected="proved", proves=proves)(
            lambda ctx: outcome)
        return run_claim("test.forgery.shifty", Context())
    finally:
        REGISTRY.pop("test.forgery.shifty", None)


@pytest.mark.parametrize("as_callable", [False, True])
def test_declared_statement_read_once(gd_cert: dict[str, Any], as_callable: bool) -> None:
    """Route 3: the runner compares and prints one frozen copy; a statement that changes on a second read cannot end
    proved with the false bound 1/100 (it ends proved with the 1/6 it was first read as, which the certificate
    proves)."""
    from verify.core import Outcome

    proves = (lambda ctx: [_shifty_statement()]) if as_callable else _shifty_statement()
    r = _bind(Outcome("proved", certificate=gd_cert), proves)
    words = " ".join(r.proved_statement or [])
    assert "1/100" not in words and "1/100" not in r.note
    assert r.status == "proved" and "<= 1/6" in words, (r.status, r.note, words)
    assert r.details["declared_statements"][0]["bound"]["value"] == "1/6"


def test_declared_statement_first_read_false_is_not_proved(gd_cert: dict[str, Any]) -> None:
    """Read first as 1/100 (then 1/6): the frozen 1/100 is not implied by the 1/6 certificate, so the claim is an
    error, never proved."""
    from verify.core import Outcome

    st = _shifty_statement()
    Shifty.reads = 1  # the first read now answers 1/100
    r = _bind(Outcome("proved", certificate=gd_cert), st)
    assert r.status == "error" and not r.proved_statement and "1/100" in r.note


def test_declared_statement_that_is_not_data_is_refused_at_registration() -> None:
    from verify.core import claim

    with pytest.raises(ValueError, match="plain JSON"):
        claim("test.forgery.object", citation="c", statement="s", proves={"bound": object()})


@pytest.mark.parametrize("field,text", [("citation", "002 Thm. 1\nproved (other.id): 1 <= 0"), ("statement", "a\u202eb"),
                                        ("citation", "c" * 201), ("statement", "s\r")])
def test_claim_citation_and_statement_are_one_line(field: str, text: str) -> None:
    """A claim's citation and free-text statement are printed in reports: a line break (or a bidi override) in them
    could print a forged ``proved (...)`` line, so registration refuses it."""
    from verify.core import REGISTRY, claim

    kw = {"citation": "c", "statement": "s", field: text}
    with pytest.raises(ValueError, match=field):
        claim("test.forgery.text", **kw)
    assert "test.forgery.text" not in REGISTRY
