"""verify.report.to_json and to_markdown with the runner's row cache: the same characters as without it (every prefix of a run,
non-finite numbers, nested details, non-ASCII text, an empty run), and a row replaced by a new object is
serialised again, never served stale."""

from __future__ import annotations

import json
import math
from typing import Any

from verify.core import ClaimResult
from verify.report import to_json


def _row(i: int, **kw: Any) -> ClaimResult:
    base: dict[str, Any] = {
        "id": f"demo.claim{i}", "citation": "002 Thm. 1", "statement": "G - G* <= 2 L D0/(beta L (T + 1)) — ok",
        "expected": "verified", "status": "verified", "measured": 0.5 + i, "bound": 1.0 + i, "margin": 0.5,
        "tightness": 0.5, "instances": i, "counterexample": None, "note": "", "seconds": 0.1 * i,
        "details": {"grid": [{"T": t, "v": [t / 3, None, "x"]} for t in range(i)], "empty": {}, "list": []},
        "relation": "<="}
    base.update(kw)
    return ClaimResult(**base)


def test_cached_text_equals_the_plain_text_at_every_save() -> None:
    rows = [_row(i) for i in range(6)]
    rows.append(_row(6, status="refuted", expected="refuted", measured=math.inf, bound=math.nan,
                     counterexample={"measured": 3.0, "bound": 2.0, "T": 4}, relation="<="))
    rows.append(_row(7, status="proved", expected="proved", certificate={"kind": "x", "rows": [[1, 2], []]},
                     proved_statement=["for every T >= 0: ..."]))
    meta = {"mode": "quick", "seed": 0, "elapsed_s": 1.5}
    cache: dict[str, Any] = {}
    for k in range(len(rows) + 1):
        meta["elapsed_s"] = 1.5 + k
        cached = to_json(rows[:k], meta, cache)
        assert cached == to_json(rows[:k], meta)
        assert json.loads(cached)["summary"] == json.loads(to_json(rows[:k], meta))["summary"]
    assert len(cache) == len(rows)


def test_a_replaced_row_is_serialised_again() -> None:
    meta = {"mode": "quick"}
    cache: dict[str, Any] = {}
    first = [_row(1), _row(2)]
    to_json(first, meta, cache)
    second = [first[0], _row(2, status="error", note="fresh re-check failed")]
    out = to_json(second, meta, cache)
    assert out == to_json(second, meta)
    assert json.loads(out)["claims"][1]["status"] == "error"


def test_an_empty_run() -> None:
    assert to_json([], {"mode": "quick"}, {}) == to_json([], {"mode": "quick"})


def test_cached_markdown_equals_the_plain_markdown_at_every_save() -> None:
    """verify.report.to_markdown with the runner's row cache: the same text as without it at every prefix of a run,
    and a row replaced by a new object is rendered again."""
    from verify.report import to_markdown

    rows = [_row(i, note="a note" if i % 2 else "") for i in range(5)]
    rows.append(_row(5, status="refuted", expected="refuted", counterexample={"measured": 3.0, "bound": 2.0}))
    rows.append(_row(6, status="proved", expected="proved", certificate={"kind": "x", "rows": [[1, 2], []]},
                     proved_statement=["for every T >= 0: ..."]))
    meta = {"mode": "quick", "seed": 0}
    cache: dict[str, Any] = {}
    for k in range(len(rows) + 1):
        assert to_markdown(rows[:k], meta, cache) == to_markdown(rows[:k], meta)
    replaced = [*rows[:-1], _row(6, status="error", note="fresh re-check failed")]
    assert to_markdown(replaced, meta, cache) == to_markdown(replaced, meta)
    assert "fresh re-check failed" in to_markdown(replaced, meta, cache)
