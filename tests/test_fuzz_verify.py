"""Table-driven fuzz of the claim API (``Tally``, ``Context``, ``claim``, outcome validation) and the CLI.

Every row is one call and its expectation, derived by hand: whether an instance holds (with the fixed
float64 rounding slack ``1e-12 max(1, |lhs|, |rhs|)``), the status it leads to, or the error class and
the argument name its message must contain.  The one invariant the tables guard above all: a non-finite
measured or reference value is never ``verified``, in any relation, whatever its type (Python float,
numpy float32/float64, a 0-d array, a torch scalar tensor).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from verify import runner
from verify.claims import load_all
from verify.core import REGISTRY, Context, Outcome, Tally, claim, run_claim
from verify.validate import OutcomeError, to_jsonable, validate_outcome

try:
    import torch
except ImportError:  # pragma: no cover - optional backend
    torch = None

VE, TE = FairtheoryValueError, FairtheoryTypeError
INF, NAN = math.inf, math.nan

NONFINITE: list[Any] = [INF, -INF, NAN, np.float32("inf"), np.float32("-inf"), np.float64("nan"),
                        np.array(INF), np.array(np.float32("nan"))]
if torch is not None:
    NONFINITE += [torch.tensor(INF, dtype=torch.float64), torch.tensor(NAN)]


def _record(rel: str, a: Any, b: Any, tally: Tally) -> bool:
    if rel == "upper":
        return tally.upper(a, b)
    if rel == "lower":
        return tally.lower(a, b)
    if rel == "equal":
        return tally.equal(a, b, rtol=1e-8)
    if rel == "equal_scaled":
        return tally.equal(a, b, rtol=0.5, atol=1.0, scale=10.0)
    if rel == "add_upper":
        return tally.add(a, b)
    assert rel == "add_equal"
    return tally.add(a, b)


RELATIONS = ["upper", "lower", "equal", "equal_scaled", "add_upper", "add_equal"]


def _fresh(rel: str) -> Tally:
    return Tally("equal") if rel == "add_equal" else Tally()


@pytest.mark.parametrize("rel", RELATIONS)
@pytest.mark.parametrize("value", NONFINITE, ids=lambda v: f"{type(v).__module__}.{type(v).__name__}:{float(v)}")
@pytest.mark.parametrize("position", ["measured", "bound", "both"])
def test_nonfinite_is_never_verified(rel: str, value: Any, position: str) -> None:
    a = value if position in ("measured", "both") else 1.0
    b = value if position in ("bound", "both") else 1.0
    if rel == "add_equal" and position in ("bound", "both"):  # (error, tolerance): a tolerance must be finite >= 0
        with pytest.raises(VE, match="tolerance"):
            _record(rel, a, b, _fresh(rel))
        return
    tally = _fresh(rel)
    if rel in ("upper", "add_upper"):
        assert tally.upper(0.0, 1.0)  # a finite instance that holds does not rescue the tally
    assert _record(rel, a, b, tally) is False
    out = tally.outcome()
    assert out.status == "refuted" and out.details["nonfinite_instances"] == 1
    assert "non-finite" in out.note and out.counterexample is not None
    json.dumps(out.counterexample)


# (relation, measured, bound, holds) - by hand, with the slack 1e-12 max(1, |lhs|, |rhs|)
FINITE = [
    ("upper", 1.0, 1.0, True), ("upper", 1.0 + 5e-13, 1.0, True), ("upper", 1.0 + 1e-11, 1.0, False),
    ("upper", -1e300, 1e300, True), ("upper", 1e300, -1e300, False), ("upper", 0.0, -0.0, True),
    ("upper", 2e12 + 1.0, 2e12, True),  # slack 1e-12 * 2e12 = 2 >= 1
    ("upper", 2e12 + 4.0, 2e12, False),
    ("lower", 1.0, 1.0, True), ("lower", 1.0 - 5e-13, 1.0, True), ("lower", 0.5, 1.0, False),
    ("lower", 5e-324, 0.0, True), ("lower", -5e-324, 0.0, True),  # within the absolute slack 1e-12
    ("equal", 1.0 + 1e-9, 1.0, True), ("equal", 1.0 + 2e-8, 1.0, False), ("equal", 0.0, 0.0, True),
    ("equal", 1e-300, 0.0, False),  # reference 0, no scale, no atol: only exact equality holds
    ("equal", 1e308, -1e308, False),  # the deviation overflows: not equal
    ("equal_scaled", 15.0, 10.0, True),  # |5| <= 0.5 * 10 + 1
    ("equal_scaled", 0.0, 1.0, True),  # |1| <= 0.5 * max(1, 10) + 1
    ("equal_scaled", 17.0, 10.0, False),  # |7| > 6
]


@pytest.mark.parametrize(("rel", "a", "b", "holds"), FINITE)
def test_finite_relations(rel: str, a: float, b: float, holds: bool) -> None:
    tally = Tally()
    assert _record(rel, a, b, tally) is holds
    assert tally.outcome().status == ("verified" if holds else "refuted")


def test_rtol_zero_means_exact_up_to_atol() -> None:
    t = Tally()
    assert t.equal(1.0, 1.0, rtol=0.0) and not t.equal(1.0 + 2**-52, 1.0, rtol=0.0)
    assert Tally().equal(1.0 + 2**-52, 1.0, rtol=0.0, atol=1e-15)


# (call, error class, text the message must contain)
ERRORS: list[tuple[str, Any, type[Exception], str]] = [
    ("kind bogus", lambda: Tally("bogus"), VE, "Tally kind"),  # type: ignore[arg-type]
    ("kind int", lambda: Tally(1), VE, "Tally kind"),  # type: ignore[arg-type]
    ("kind list", lambda: Tally(["upper"]), VE, "Tally kind"),  # type: ignore[arg-type]
    ("rounding -1", lambda: Tally(rounding=-1.0), VE, "rounding"),
    ("rounding nan", lambda: Tally(rounding=NAN), VE, "rounding"),
    ("rounding str", lambda: Tally(rounding="0"), TE, "rounding"),  # type: ignore[arg-type]
    ("upper str", lambda: Tally().upper("abc", 1), TE, "Tally.upper lhs"),
    ("upper numeric str", lambda: Tally().upper("1.0", 1), TE, "Tally.upper lhs"),
    ("upper None", lambda: Tally().upper(1, None), TE, "Tally.upper rhs"),
    ("upper complex", lambda: Tally().upper(1j, 1), TE, "Tally.upper lhs"),
    ("upper np complex", lambda: Tally().upper(np.complex128(1), 1), TE, "Tally.upper lhs"),
    ("upper list", lambda: Tally().upper([1.0, 2.0], 1), TE, "Tally.upper lhs"),
    ("upper object", lambda: Tally().upper(object(), 1), TE, "Tally.upper lhs"),
    ("lower bytes", lambda: Tally().lower(1, b"1"), TE, "Tally.lower rhs"),
    ("equal str", lambda: Tally().equal("x", 1, rtol=0.1), TE, "Tally.equal measured"),
    ("rtol inf", lambda: Tally().equal(1, 1, rtol=INF), VE, "rtol"),
    ("rtol nan", lambda: Tally().equal(1, 1, rtol=NAN), VE, "rtol"),
    ("rtol negative", lambda: Tally().equal(1, 1, rtol=-1e-8), VE, "rtol"),
    ("rtol str", lambda: Tally().equal(1, 1, rtol="1e-8"), TE, "rtol"),  # type: ignore[arg-type]
    ("atol negative", lambda: Tally().equal(1, 1, rtol=0.1, atol=-1), VE, "atol"),
    ("atol inf", lambda: Tally().equal(1, 1, rtol=0.1, atol=INF), VE, "atol"),
    ("scale inf", lambda: Tally().equal(1, 1, rtol=0.1, scale=INF), VE, "scale"),
    ("size str", lambda: Tally().upper(1, 2, size="big"), TE, "size"),  # type: ignore[arg-type]
    ("add tolerance nan", lambda: Tally("equal").add(0.1, NAN), VE, "tolerance"),
    ("two rtols", lambda: (lambda t: (t.equal(1, 1, rtol=0.1), t.equal(1, 1, rtol=0.2)))(Tally()), VE, "one rtol"),
    ("two relations", lambda: (lambda t: (t.upper(1, 2), t.lower(1, 2)))(Tally()), VE, "use another Tally"),
    ("seed -1", lambda: Context(seed=-1).rng(), VE, "seed"),
    ("seed float", lambda: Context(seed=1.5), TE, "seed"),  # type: ignore[arg-type]
    ("seed bool", lambda: Context(seed=True), TE, "seed"),
    ("seed str", lambda: Context(seed="0"), TE, "seed"),  # type: ignore[arg-type]
    ("salt int", lambda: Context().rng(5), TE, "salt"),  # type: ignore[arg-type]
    ("claim id spaces", lambda: claim("a b.c", citation="c", statement="s"), ValueError, "dotted"),
    ("claim id double dot", lambda: claim("a..b", citation="c", statement="s"), ValueError, "dotted"),
    ("claim id int", lambda: claim(3, citation="c", statement="s"), ValueError, "dotted"),  # type: ignore[arg-type]
    ("claim expected", lambda: claim("a.b", citation="c", statement="s", expected="certain"), ValueError, "expected"),
]


@pytest.mark.parametrize(("name", "call", "error", "text"), ERRORS, ids=[e[0] for e in ERRORS])
def test_named_errors(name: str, call: Any, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        call()


def test_valid_values_pass() -> None:
    assert Context(seed=np.int64(3)).rng("x").integers(10) == Context(seed=3).rng("x").integers(10)
    t = Tally("upper", rounding=0.0)
    assert t.upper(np.float32(1.0), np.array(2.0)) and t.upper(True, 1)
    assert Tally().equal(Fraction(1, 3), 1 / 3, rtol=1e-15)


# ------------------------------------------------------------------ outcome validation and JSON conversion
JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                        st.text(max_size=5), st.fractions(), st.builds(np.float32, st.floats(width=32)),
                        st.builds(np.int64, st.integers(-2**63, 2**63 - 1)))
CONVERTIBLE = st.recursive(JSON_LEAVES, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.tuples(kids, kids), st.dictionaries(st.text(max_size=4), kids, max_size=4),
    st.builds(np.asarray, st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=3)),
    st.frozensets(st.integers(), max_size=3)), max_leaves=20)
REJECTED = st.sampled_from([object(), 1 + 2j, np.complex64(1), b"bytes", {1, "a"}, np.array(["2020"], dtype="datetime64[D]"),
                            type, lambda: 0])


@settings(max_examples=150, deadline=None)
@given(CONVERTIBLE)
@pytest.mark.slow
def test_convertible_values_become_json(value: Any) -> None:
    out = to_jsonable(value)
    assert json.loads(json.dumps(out, allow_nan=False)) == out  # plain JSON, no NaN/Infinity tokens


@settings(max_examples=100, deadline=None)
@given(CONVERTIBLE, REJECTED, st.integers(0, 3))
def test_a_rejected_value_anywhere_is_an_outcome_error(value: Any, bad: Any, depth: int) -> None:
    nested: Any = bad
    for _ in range(depth):
        nested = {"k": [value, nested]}
    with pytest.raises(OutcomeError, match="no JSON form|mixed types|complex"):
        to_jsonable(nested)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["proved", "verified", "refuted", "inconclusive", "skipped", "error", "ok", "", "VERIFIED"]),
       st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10), st.text(max_size=3)),
       st.integers(-2, 3))
def test_validate_outcome_never_lets_an_invalid_outcome_through(status: str, measured: Any, instances: int) -> None:
    out = Outcome(status, measured=measured, instances=instances)  # type: ignore[arg-type]
    valid = (status in ("proved", "verified", "refuted", "inconclusive", "skipped", "error")
             and (measured is None or isinstance(measured, (int, float)))
             and not (status in ("proved", "verified") and isinstance(measured, float) and not math.isfinite(measured))
             and instances >= 0)
    if valid:
        checked = validate_outcome(out)
        assert checked.status == status and (measured is None or isinstance(checked.measured, float))
    else:
        with pytest.raises(OutcomeError):
            validate_outcome(out)


@pytest.fixture
def fake_claim():
    load_all()
    REGISTRY.pop("fuzz.claim", None)

    def register(value: Any) -> None:
        REGISTRY.pop("fuzz.claim", None)
        claim("fuzz.claim", citation="fuzz", statement="s")(lambda ctx: value)

    yield register
    REGISTRY.pop("fuzz.claim", None)


@pytest.mark.parametrize("value", NONFINITE[:4], ids=str)
def test_a_plugin_reporting_inf_equals_inf_never_passes(fake_claim, value: Any, tmp_path) -> None:
    """The issue's case end to end: a plugin doing Tally().equal(inf, inf) makes verify exit 1."""
    def check(ctx: Context) -> Outcome:
        t = Tally()
        t.equal(value, value, rtol=1e-8)
        return t.outcome()

    REGISTRY.pop("fuzz.claim", None)
    claim("fuzz.claim", citation="fuzz", statement="s")(check)
    assert run_claim("fuzz.claim", Context()).status == "refuted"
    assert runner.main(["--only", "fuzz.claim", "--json", str(tmp_path / "r.json"), "--no-markdown"]) == 1
    assert json.loads((tmp_path / "r.json").read_text())["claims"][0]["status"] == "refuted"


# ------------------------------------------------------------------ CLI: exit status and one-line messages
CLI: list[tuple[list[str], int, str]] = [
    (["--seed", "-1"], 2, "seed"), (["--seed", "1e3"], 2, "seed"), (["--seed", ""], 2, "seed"),
    (["--workers", "0"], 2, "--workers"), (["--workers", "100000"], 2, "at most 1024"), (["--workers", "two"], 2, "--workers"),
    (["--timeout", "-5"], 2, "--timeout"), (["--timeout", "nan"], 2, "--timeout"), (["--timeout", "inf"], 2, "--timeout"),
    (["--timeout", ""], 2, "--timeout"), (["--json", ""], 2, "--json"), (["--json", "/"], 2, "directory"),
    (["--markdown", " "], 2, "--markdown"), (["--quick", "--full"], 2, "not allowed"), (["--executor", "mpi"], 2, "--executor"),
    (["--unknown-flag"], 2, "unrecognized"),
]


@pytest.mark.parametrize(("argv", "code", "text"), CLI, ids=[" ".join(c[0]) or "empty" for c in CLI])
def test_cli_usage_errors(argv: list[str], code: int, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    load_all()
    with pytest.raises(SystemExit) as exc:
        runner.main([*argv, "--only", "rcfl.lemma2.gap", "--no-json", "--no-markdown"]
                    if "--json" not in argv and "--markdown" not in argv else [*argv, "--only", "rcfl.lemma2.gap"])
    out, err = capsys.readouterr()
    assert exc.value.code == code
    assert err.count("\n") == 1 and text in err, err
    assert "[1/" not in out  # before any claim ran


def test_cli_valid_edge_values(capsys: pytest.CaptureFixture[str]) -> None:
    load_all()
    for argv in (["--timeout", "0.5"], ["--timeout", "0"], ["--workers", "auto"], ["--seed", str(2**64)]):
        assert runner.main([*argv, "--list", "--only", "rcfl.lemma2.gap"]) == 0, argv
    assert runner.main(["--list", "--only", "nothing.matches*"]) == 2
    capsys.readouterr()
