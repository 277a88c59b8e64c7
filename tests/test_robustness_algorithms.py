"""Regression tests for the robustness round 3 (issue 24, algorithms and verification items): one test per cause.

* ``fedfa`` accepted an ``accuracy`` callable returning values outside ``[0, 1]``, the wrong shape or nan
  (an ``IndexError``); a user aggregator's weights and an ``lr(r)`` schedule are checked the same way.
* ``ditto.make(problem, K=10**9)`` tried to allocate 7.45 GiB at its first step: every size argument
  (``K``, the recorded rounds of ``run``) is bounded up front, naming the argument; rFedFair no longer
  gathers ``K x d`` rows when ``K > n``.
* ``Tally(rounding=1e9)`` made ``2 <= 1`` hold; ``Context(quick='no')`` was accepted.
* ``python -m verify --plugin /no/such.py`` printed a traceback and ran the whole suite; ``--plugin os``
  was accepted; ``--only 'nonexistent.*'`` failed only after importing every claim module.
* The peer audit's ``_vec_equal`` agreed with a peer returning ``[1, 2, 99]`` for ``[1, 2]``.

Expected values are computed here independently (plain numpy), never by the routine under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairtheory import _validation
from fairtheory.algorithms import afl, ditto, drfa, fedavg, fedfa, fedmgda, fedprox, qfedavg, qfedsgd, rfedfair, scaffold
from fairtheory.algorithms.base import draw_participants, run, sample_clients
from fairtheory.errors import FairtheoryError, FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems import random_quadratic

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def P() -> Any:
    return random_quadratic(4, 3, rng=np.random.default_rng(0))


# ================================================================== 1. what user callables return
@pytest.mark.parametrize("returned, says", [
    (np.full(4, 1.5), "1.5 at index 0"),                       # an accuracy above 1
    (np.array([0.5, -0.1, 0.5, 0.5]), "-0.1 at index 1"),     # below 0
    (np.full(7, 0.5), "shape (7,)"),                            # 7 values for 4 clients
    (np.full((4, 1), 0.5), "shape (4, 1)"),                     # a column, not (n,)
    (np.array([0.5, np.nan, 0.5, 0.5]), "nan at index 1"),     # was an IndexError
    (np.array([0.5, np.inf, 0.5, 0.5]), "inf at index 1"),
    ("high", "'high'"),
    (None, "None"),
])
def test_fedfa_checks_what_accuracy_returns(P: Any, returned: Any, says: str) -> None:
    alg = fedfa.make(P, lr=0.1, accuracy=lambda w: returned)
    with pytest.raises(FairtheoryValueError, match=r"accuracy\(w\) must return an array of shape \(4,\)") as exc:
        alg.step(alg.init(), None)
    assert says in str(exc.value) and "[0, 1]" in str(exc.value)
    # partial participation checks the whole returned vector too (not only the drawn entries)
    alg = fedfa.make(P, lr=0.1, K=2, accuracy=lambda w: returned)
    with pytest.raises(FairtheoryValueError, match=r"accuracy\(w\)"):
        alg.step(alg.init(), np.random.default_rng(0))


def test_fedfa_valid_accuracy_still_runs(P: Any) -> None:
    acc = np.array([0.9, 0.5, 1.0, 0.0])  # the edges 0 and 1 are valid accuracies
    alg = fedfa.make(P, lr=0.1, accuracy=lambda w: acc.tolist())
    s = alg.step(alg.init(), None)
    assert s.p.shape == (4,) and abs(float(np.sum(s.p)) - 1.0) < 1e-12 and np.all(np.isfinite(s.w))


class _UserAggregator:
    """A user's aggregator (not a fairtheory class) whose weights are whatever the test sets."""

    def __init__(self, n: int, out: Any) -> None:
        self.n, self.out = n, out

    def value(self, f: Any) -> float:
        return float(np.mean(f))

    def weights(self, f: Any) -> Any:
        return self.out

    def client_grads(self, f: Any, eta: Any) -> tuple[Any, Any]:
        return self.out, self.out

    def client_values(self, f: Any, eta: Any) -> Any:
        return np.asarray(f)


@pytest.mark.parametrize("out, says", [(np.full(5, 0.2), "shape (5,)"), (np.array([0.25, np.nan, 0.25, 0.5]), "nan")])
def test_user_aggregator_weights_are_checked(P: Any, out: Any, says: str) -> None:
    for make, kw in ((fedavg.make, {"lr": 0.1}), (qfedsgd.make, {"L": 1.0}), (qfedavg.make, {"lr": 0.1})):
        alg = make(P, aggregator=_UserAggregator(4, out), **kw)
        with pytest.raises(FairtheoryValueError, match=r"aggregator\.weights\(f\) of _UserAggregator") as exc:
            alg.step(alg.init(), None)
        assert says in str(exc.value)
    alg = rfedfair.make(P, lr=0.1, kappa=1, aggregator=_UserAggregator(4, out))
    with pytest.raises(FairtheoryValueError, match=r"client_grads\(f, eta\)\[0\]") as exc:
        alg.step(alg.init(), None)
    assert says in str(exc.value)


def test_user_aggregator_with_valid_weights_runs(P: Any) -> None:
    w = np.array([0.1, 0.2, 0.3, 0.4])
    alg = fedavg.make(P, lr=0.1, aggregator=_UserAggregator(4, w))
    s0 = alg.init()
    s1 = alg.step(s0, None)
    # one local step per client, then w + sum_i lam_i (w_i - w) = w - lr sum_i lam_i grad f_i(w)
    assert np.allclose(s1.w, s0.w - 0.1 * w @ np.asarray(P.grads(s0.w)), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("make, kw", [(fedavg.make, {}), (fedmgda.make, {"epsilon": 0.1})])
@pytest.mark.parametrize("value", [-1.0, 0.0, float("nan"), "fast"])
def test_lr_schedule_value_is_checked_naming_the_round(P: Any, make: Any, kw: dict[str, Any], value: Any) -> None:
    alg = make(P, lr=lambda r: 0.1 if r < 2 else value, **kw)
    s = alg.step(alg.step(alg.init(), None), None)  # rounds 0 and 1 are fine
    with pytest.raises(FairtheoryError, match=r"lr\(r\) at r=2"):
        alg.step(s, None)


# ================================================================== 2. memory: size arguments bounded up front
def test_ditto_huge_K_is_refused_naming_K_and_the_memory(P: Any) -> None:
    with pytest.raises(FairtheoryValueError) as exc:
        ditto.make(P, lr=0.1, lam=1.0, K=10**9)
    msg = str(exc.value)
    assert "K=1000000000" in msg and "7.45 GiB" in msg and "at most K=134217728" in msg


@pytest.mark.parametrize("make, kw", [
    (fedavg.make, {"lr": 0.1}), (fedprox.make, {"lr": 0.1, "prox_mu": 0.1}),
    (fedfa.make, {"lr": 0.1, "accuracy": lambda w: np.ones(4)}),
    (fedmgda.make, {"lr": 0.1, "epsilon": 0.1}),
    (qfedsgd.make, {"q": 1.0, "L": 1.0}), (qfedavg.make, {"q": 1.0, "lr": 0.1}),
    (rfedfair.make, {"lr": 0.1, "kappa": 1, "alpha": 0.5, "mu": 0.1}), (scaffold.make, {"kappa": 1, "lr": 0.1}),
    (afl.make, {"lr": 0.1, "dual_lr": 0.1}), (drfa.make, {"kappa": 1, "lr": 0.1, "dual_lr": 0.1}),
])
def test_every_algorithm_bounds_K(P: Any, make: Any, kw: dict[str, Any]) -> None:
    with pytest.raises(FairtheoryValueError, match=r"K=1000000000 would need 7\.45 GiB"):
        make(P, K=10**9, **kw)
    make(P, K=1000, **kw)  # large but cheap: fine


def test_sampling_helpers_and_the_bound_are_one_setting(P: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(FairtheoryValueError, match="K=1000000000"):
        sample_clients(rng, P.p, 10**9)
    with pytest.raises(FairtheoryValueError, match="K=1000000000"):
        draw_participants(rng, P.p, 10**9)
    monkeypatch.setattr(_validation, "MAX_ARRAY_BYTES", 8 * 100)  # the bound is read when checked
    with pytest.raises(FairtheoryValueError, match=r"K=101 would need .*at most K=100"):
        ditto.make(P, lr=0.1, lam=1.0, K=101)
    ditto.make(P, lr=0.1, lam=1.0, K=100)


def test_run_refuses_a_history_that_does_not_fit(P: Any) -> None:
    alg = fedavg.make(P, lr=0.1)
    with pytest.raises(FairtheoryValueError, match=r"rounds=1000000000 with record_every=1 would record") as exc:
        run(alg, 10**9)
    assert "raise record_every" in str(exc.value)
    s, h = run(alg, 3, record_every=1)  # small runs unchanged
    assert len(h.iterates) == 4


def test_rfedfair_more_draws_than_clients_is_the_mean_over_the_draws(P: Any) -> None:
    """``K > n``: counts over the ``n`` rows (no ``K x d`` copy) give the plain mean over the raw draws."""
    K, beta = 5000, 0.1
    alg = rfedfair.make(P, lr=beta, kappa=1, alpha=0.5, mu=0.1, K=K)
    s0 = alg.init()
    s1 = alg.step(s0, np.random.default_rng(7))
    # independently: one local step of every client, then the mean of the drawn rows
    agg = alg.hyper["aggregator"]
    f, G = P.loss_grad_each(np.asarray(s0.W))
    dh_df, dh_deta = agg.client_grads(f, s0.E)
    W_new = np.asarray(s0.W) - beta * dh_df[:, None] * G
    E_new = s0.E - beta * dh_deta
    draws = np.random.default_rng(7).choice(P.n, size=K, replace=True, p=P.p)
    assert np.allclose(s1.w, W_new[draws].mean(axis=0), rtol=1e-12, atol=1e-15)
    assert np.isclose(float(s1.eta), float(E_new[draws].mean()), rtol=1e-12, atol=1e-15)


# ================================================================== 3. Tally rounding and Context fields
def test_tally_rounding_is_bounded() -> None:
    from verify.core import MAX_ROUNDING, Context, Tally

    for bad in (1e9, 1.0, 2e-6, float("inf")):
        with pytest.raises(FairtheoryValueError, match="rounding"):
            Tally(rounding=bad)
    assert not Tally(rounding=MAX_ROUNDING).upper(2, 1)
    assert Tally(rounding=MAX_ROUNDING).upper(1 + 1e-7, 1)  # solver-accuracy slack still allowed
    assert Tally(rounding=0.0).upper(1, 1)
    assert Context().quick is True


@pytest.mark.parametrize("kw, err, says", [
    ({"quick": "no"}, FairtheoryTypeError, "quick"), ({"quick": 1}, FairtheoryTypeError, "quick"),
    ({"quick": None}, FairtheoryTypeError, "quick"), ({"seed": -1}, FairtheoryValueError, "seed"),
    ({"seed": 1.5}, FairtheoryTypeError, "seed"), ({"executor": 3}, FairtheoryTypeError, "executor"),
])
def test_context_fields_are_validated(kw: dict[str, Any], err: type, says: str) -> None:
    from verify.core import Context

    with pytest.raises(err, match=says):
        Context(**kw)


def test_context_normalises_numpy_scalars() -> None:
    from verify.core import Context

    ctx = Context(quick=np.bool_(False), seed=np.int64(3))
    assert ctx.quick is False and type(ctx.seed) is int and ctx.count(1, 2) == 2


# ================================================================== 4. CLI: bad plugins and patterns exit 2 first
def _verify(*args: str, entry_points: bool = False, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m verify ARGS`` writing no report; installed entry points are skipped unless asked for (an
    installed example plugin costs a second of imports that these checks do not need)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    extra = [] if entry_points else ["--no-entry-points"]
    return subprocess.run([sys.executable, "-m", "verify", *args, *extra, "--no-json", "--no-markdown"], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, env=env)


def _one_line_usage_error(res: subprocess.CompletedProcess[str], *words: str) -> None:
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("python -m verify: error: "), res.stderr
    assert "Traceback" not in res.stderr
    for w in words:
        assert w in res.stderr, (w, res.stderr)
    assert "[1/" not in res.stdout and "claims in" not in res.stdout  # no claim ran, no summary


@pytest.mark.slow
def test_missing_plugin_file_or_module_exits_2_at_once(tmp_path: Path) -> None:
    _one_line_usage_error(_verify("--plugin", "/no/such.py", entry_points=True),
                          "plugin file '/no/such.py' does not exist")
    _one_line_usage_error(_verify("--plugin", "no_such_module_xyz"), "'no_such_module_xyz' cannot be found")
    _one_line_usage_error(_verify("--plugin", str(tmp_path)), "is not a file")


def test_plugin_with_a_syntax_error_exits_2_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "typo.py"
    bad.write_text("from verify import claim\n\ndef f(:\n    pass\n")
    _one_line_usage_error(_verify("--plugin", str(bad)), f"plugin {str(bad)!r} failed to import: SyntaxError",
                          "typo.py, line 3")


@pytest.mark.slow
def test_plugin_that_raises_or_registers_nothing_exits_2(tmp_path: Path) -> None:
    boom = tmp_path / "boom.py"
    boom.write_text("raise RuntimeError('boom at import')\n")
    _one_line_usage_error(_verify("--plugin", str(boom), entry_points=True),
                          "failed to import: RuntimeError: boom at import")
    _one_line_usage_error(_verify("--plugin", "os"), "plugin 'os' registered no claim")


@pytest.mark.slow
def test_plugin_debug_traceback_and_empty_plugin(tmp_path: Path) -> None:
    boom = tmp_path / "boom.py"
    boom.write_text("raise RuntimeError('boom at import')\n")
    res = _verify("--plugin", str(boom), "--debug")  # --debug adds the traceback, still exit 2 before any claim
    assert res.returncode == 2 and "Traceback" in res.stderr and "[1/" not in res.stdout
    assert res.stderr.splitlines()[-1].startswith("python -m verify: error: plugin")
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    _one_line_usage_error(_verify("--plugin", str(empty)), "registered no claim")


def test_only_matching_nothing_exits_2_before_importing_the_claim_modules() -> None:
    _one_line_usage_error(_verify("--only", "nonexistent.*", entry_points=True),
                          "--only: no claim id matches 'nonexistent.*'")
    # without plugins and entry points the patterns are matched against ids read from the sources:
    # none of the claim modules' heavy imports happens
    code = textwrap.dedent("""
        import sys
        from verify import runner
        rc = runner.main(["--only", "nonexistent.*", "--no-entry-points", "--no-json", "--no-markdown"])
        heavy = sorted(m for m in ("scipy", "sympy", "cvxpy", "torch", "hypothesis", "verify.claims.peers")
                       if m in sys.modules)
        print(rc, heavy)
    """)
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert res.stdout.strip() == "2 []", res.stdout + res.stderr
    assert res.stderr.startswith("python -m verify: error: --only: no claim id matches")


def test_static_builtin_ids_are_the_registered_ones() -> None:
    """The index the fast ``--only`` check uses must list exactly what importing the modules registers."""
    from verify.core import REGISTRY
    from verify.plugins import builtin_claim_ids, load_builtin

    load_builtin()
    registered = {cid for cid, spec in REGISTRY.items() if spec.source == "built-in"}
    assert builtin_claim_ids() == frozenset(registered)


@pytest.mark.slow  # runs a claim (imports every claim module); tests/test_plugins.py covers the same path quickly
def test_plugin_matching_only_still_runs(tmp_path: Path) -> None:
    mine = tmp_path / "mine3.py"
    mine.write_text(textwrap.dedent("""
        from verify import Context, Outcome, Tally, claim

        @claim("round3.ok", citation="notes", statement="1 <= 2")
        def ok(ctx: Context) -> Outcome:
            t = Tally()
            t.upper(1.0, 2.0)
            return t.outcome(explain="measured = 1, bound = 2")
    """))
    res = _verify("--plugin", str(mine), "--only", "round3.*")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "round3.ok" in res.stdout and "1 claims in" in res.stdout


# ================================================================== 5. one shape-strict peer comparator
def test_peer_comparator_is_shape_strict() -> None:
    from verify.claims.peers import compare, fedlab, flgo, flower, sqwash, support
    from verify.claims.peers.compare import vec_equal
    from verify.core import Tally

    # one comparator for every peer claim: each library module uses compare's, none defines its own
    for mod in (fedlab, flgo, flower, sqwash, support):
        assert getattr(mod, "vec_equal", vec_equal) is vec_equal
        assert not hasattr(mod, "_vec_equal") and not hasattr(mod, "_vec")
    assert all(getattr(m, "vec_equal", None) is vec_equal for m in (fedlab, flgo, sqwash))
    assert compare.vec_equal is vec_equal

    cases = [  # (peer, ours, holds)
        ([1.0, 2.0, 99.0], [1.0, 2.0], False),           # the peer returned an extra entry
        ([1.0], [1.0, 2.0], False),                      # would broadcast
        ([[1.0, 2.0]], [1.0, 2.0], False),               # (1, 2) is not (2,)
        ([1.0, np.nan], [1.0, 2.0], False),
        ([1.0, 2.0 * (1 + 1e-11)], [1.0, 2.0], True),    # within rtol 1e-9 of max |ours| = 2
        ([1.0, 2.0 + 1e-6], [1.0, 2.0], False),
        (RuntimeError("peer crashed"), [1.0, 2.0], False),
        ("not numbers", [1.0, 2.0], False),
        ([], [], True),
    ]
    for peer, ours, holds in cases:
        t = Tally()
        assert vec_equal(t, peer, np.asarray(ours), rtol=1e-9, instance={"case": repr(peer)}, size=1) is holds, peer
        out = t.outcome()
        assert out.instances == 1 and (out.status == "verified") is holds, (peer, out)
        if not holds:
            assert out.details["violations"] == 1 and out.counterexample["case"] == repr(peer)
    t = Tally()
    vec_equal(t, [1.0, 2.0, 99.0], np.array([1.0, 2.0]), rtol=1e-9, instance={}, size=1)
    assert t.outcome().counterexample["peer_shape"] == [3] and t.outcome().counterexample["our_shape"] == [2]
