"""``verify.sampling.hypothesis_examples`` is reproducible whatever else is imported."""

from __future__ import annotations

import importlib
import sys

from hypothesis import strategies as st

from verify.sampling import hypothesis_examples


def test_examples_do_not_depend_on_imported_modules(tmp_path, monkeypatch) -> None:
    strat = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12)
    before = hypothesis_examples(strat, 300, 0)
    # a newly imported local module full of literals: Hypothesis would mine these constants
    mod = tmp_path / "ft_constants_probe.py"
    mod.write_text("A = [0.123456789, 0.987654321, 0.5000001, 0.25, 0.75, 1e-7, 0.3333]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("ft_constants_probe")
    try:
        after = hypothesis_examples(strat, 300, 0)
    finally:
        sys.modules.pop("ft_constants_probe", None)
    assert before == after


def test_equal_seeds_equal_lists_and_different_seeds_differ() -> None:
    strat = st.integers(0, 10**9)
    assert hypothesis_examples(strat, 50, 1) == hypothesis_examples(strat, 50, 1)
    assert hypothesis_examples(strat, 50, 1) != hypothesis_examples(strat, 50, 2)
