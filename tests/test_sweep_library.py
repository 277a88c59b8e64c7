"""The held-out hostile sweep of round 2 (``tests/sweeps/hostile_library.py``) as a slow test: no silently
wrong value, at most 5 obscure errors (issue 18's acceptance), no warning on any call."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_hostile_sweep_round2() -> None:
    path = Path(__file__).parent / "sweeps" / "hostile_library.py"
    spec = importlib.util.spec_from_file_location("hostile_library", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    res = mod.run()
    c = res["counts"]
    assert c["calls"] >= 700
    detail = "\n".join(res["bad"])
    assert c.get("silently wrong", 0) == 0, detail
    assert c.get("obscure", 0) <= 5, detail
    assert c.get("warned", 0) == 0, detail
