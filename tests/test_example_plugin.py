"""The examples/ plugin package end to end: a user's objective audited, trained through the aggregator
interface with rFedFair and q-FedAvg, matched to its exact optimum, and run by ``python -m verify`` both
as a path plugin and as an installed package (entry point)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "fairtheory-propfair"
EXPECTED = {"propfair.audit": "verified", "propfair.meanstd.monotone": "refuted",
            "propfair.rfedfair.exact": "verified", "propfair.qfedavg.exact": "verified",
            "propfair.fedavgm.worstcase": "verified"}


@pytest.fixture(scope="module")
def plugin():
    sys.path.insert(0, str(EXAMPLE))
    try:
        import fairtheory_propfair

        yield fairtheory_propfair
    finally:
        sys.path.remove(str(EXAMPLE))


@pytest.mark.slow
def test_audit_passes_propfair_and_catches_meanstd(plugin) -> None:
    from fairtheory.testing import audit

    p = np.array([0.1, 0.2, 0.3, 0.15, 0.15, 0.1])
    rep = audit(plugin.PropFair(p, 10.0), max_examples=150)
    assert rep.passed, rep.table()
    assert rep["separable_form"].status == "held" and rep["translation_equivariant"].status == "violated"
    bad = audit(plugin.MeanStd(np.full(6, 1 / 6), 0.5), max_examples=300)
    assert not bad.passed and {"monotone", "weights_nonnegative"} <= set(bad.violated())
    cx = bad["monotone"].counterexample
    f = np.asarray(cx["f"])
    g = f.copy()
    g[cx["client"]] += cx["increase"]
    agg = plugin.MeanStd(np.full(6, 1 / 6), 0.5)
    assert agg.value(g) < agg.value(f)  # the shrunk counterexample really lowers the objective


def test_trains_with_rfedfair_and_qfedavg_to_the_exact_optimum(plugin) -> None:
    from fairtheory.algorithms import qfedavg, rfedfair
    from fairtheory.algorithms.base import run
    from fairtheory.exact.aggregate import solve_aggregator
    from fairtheory.problems import random_logistic

    P = random_logistic(5, 3, 20, rng=np.random.default_rng(4), l2=0.1)
    agg = plugin.PropFair(P.p, 10.0)
    ex = solve_aggregator(P, agg)
    assert ex.certificate["gap"] <= 1e-6 * max(1.0, abs(ex.value))
    from fairtheory_propfair.claims import _step

    for alg in (rfedfair.make(P, lr=_step(P), kappa=1, aggregator=agg),
                qfedavg.make(P, lr=1.0 / P.smoothness(), kappa=1, aggregator=agg)):
        state, _ = run(alg, 3000, rng=np.random.default_rng(0), record_losses=False, record_every=3000)
        value = agg.value(P.losses(np.asarray(state.w)))
        assert abs(value - ex.value) <= 1e-6 * max(1.0, abs(ex.value)), alg.name
        assert np.linalg.norm(np.asarray(state.w) - ex.argmin) <= 1e-3


@pytest.mark.slow
def test_verify_runs_the_plugin_by_path(tmp_path: Path) -> None:
    js = tmp_path / "r.json"
    res = subprocess.run([sys.executable, "-m", "verify", "--plugin",
                          str(EXAMPLE / "fairtheory_propfair" / "claims.py"), "--only", "propfair.*",
                          "--json", str(js), "--no-markdown"],
                         cwd=REPO, capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert res.returncode == 0, res.stdout + res.stderr
    rows = {r["id"]: r["status"] for r in json.loads(js.read_text())["claims"]}
    assert rows == EXPECTED


@pytest.mark.slow
def test_installed_package_registers_through_its_entry_point(tmp_path: Path) -> None:
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--no-index", "--target", str(target), str(EXAMPLE)],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    env = dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}{target}")
    res = subprocess.run([sys.executable, "-m", "verify", "--list", "--only", "propfair.*"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    for cid, expected in EXPECTED.items():
        line = next(ln for ln in res.stdout.splitlines() if ln.startswith(cid))
        assert expected in line and "plugin fairtheory_propfair.claims" in line
    res = subprocess.run([sys.executable, "-m", "verify", "--list", "--only", "propfair.*", "--no-entry-points"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 2  # without the entry point no propfair claim is known
