"""Parallel and distributed verification: the same report as a serial run (statuses and measured
values), with whole claims and instance chunks of chunked claims on local processes or Ray."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from verify.core import Context
from verify.parallel import ProcessExecutor, SerialExecutor, worker_count

REPO = Path(__file__).resolve().parents[1]
SELECTION = ["rcfl.qalpha.*", "rcfl.lemma2.gap", "qffl.lemma12.lipschitz", "qffl.lemma10.holder"]

CHUNKED = textwrap.dedent('''
    """A chunked plugin claim: its instances go through ctx.map."""
    import numpy as np

    from verify import Context, Outcome, Tally, claim


    def one(seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0, 10, 50)
        return float(np.max(np.sqrt(x) - (1 + x) / 2))


    @claim("par.chunked", citation="test", statement="sqrt(x) <= (1 + x)/2", chunked=True)
    def chunked(ctx: Context) -> Outcome:
        seeds = ctx.rng("par.chunked").integers(0, 2**32, size=ctx.count(40, 400)).tolist()
        tally = Tally()
        for s, gap in zip(seeds, ctx.map(one, seeds)):
            tally.upper(gap, 0.0, instance={"seed": s})
        return tally.outcome(explain="measured = max sqrt(x) - (1 + x)/2 over 50 draws, bound = 0")
''')


def _run(tmp: Path, tag: str, *extra: str) -> dict:
    js = tmp / f"{tag}.json"
    plugin = tmp / "par_plugin.py"
    plugin.write_text(CHUNKED)
    args = [sys.executable, "-m", "verify", "--plugin", str(plugin), "--json", str(js), "--no-markdown",
            "--only", "par.*"] + [a for p in SELECTION for a in ("--only", p)] + list(extra)
    res = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=900,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return json.loads(js.read_text())


def _same(a: dict, b: dict) -> None:
    keys = ("id", "status", "measured", "bound", "margin", "tightness", "instances", "counterexample", "error")
    assert [[r[k] for k in keys] for r in a["claims"]] == [[r[k] for k in keys] for r in b["claims"]]
    assert a["summary"] == b["summary"] and b["meta"]["complete"]


def test_ctx_map_is_ordered_and_serial_without_executor() -> None:
    assert Context().map(lambda x: x * x, range(5)) == [0, 1, 4, 9, 16]
    ex = ProcessExecutor(2)
    try:
        assert Context(executor=ex).map(abs, list(range(-50, 50))) == [abs(i) for i in range(-50, 50)]
        assert ex.submit(pow, 2, 10).result() == 1024
    finally:
        ex.shutdown()
    assert SerialExecutor().submit(pow, 3, 2).result() == 9
    assert worker_count("3") == 3 and worker_count("auto") >= 1
    with pytest.raises(ValueError):
        worker_count("0")


@pytest.mark.slow
def test_workers_give_the_serial_report(tmp_path: Path) -> None:
    serial = _run(tmp_path, "serial")
    parallel = _run(tmp_path, "workers2", "--workers", "2")
    _same(serial, parallel)
    assert parallel["meta"]["workers"] == 2
    assert [r["id"] for r in parallel["claims"]][0] == "rcfl.qalpha.closed_form"  # report in id order


def test_bad_workers_is_a_usage_error() -> None:
    res = subprocess.run([sys.executable, "-m", "verify", "--workers", "0"], cwd=REPO, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert res.returncode == 2 and "workers" in res.stderr


@pytest.mark.slow
def test_ray_executor_gives_the_serial_report(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    serial = _run(tmp_path, "serial")
    ray = _run(tmp_path, "ray", "--executor", "ray", "--workers", "2")
    _same(serial, ray)
    assert ray["meta"]["executor"] == "ray"
