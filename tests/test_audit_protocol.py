"""``fairtheory.testing.audit`` takes any object with the public protocol (``n``, ``value(f)``, ``weights(f)``): no
base class, no underscore method; and its report does not depend on the Hypothesis profile the caller has loaded."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings

from fairtheory.aggregators import BaseAggregator, cvar
from fairtheory.testing import audit
from fairtheory.testing import audit as audit_module_fn
from fairtheory.testing.audit import SETTINGS, _settings

EXAMPLES = 40


class SmoothMax:
    """A(f) = (1/t) log sum_i p_i exp(t f_i), with the public methods only (README's example)."""

    def __init__(self, p: list[float], t: float) -> None:
        self.p, self.t, self.n = np.asarray(p, dtype=float), float(t), len(p)

    def value(self, f: np.ndarray) -> float:
        f = np.asarray(f, dtype=float)
        return float(f.max() + np.log(self.p @ np.exp(self.t * (f - f.max()))) / self.t)

    def weights(self, f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, dtype=float)
        e = self.p * np.exp(self.t * (f - f.max()))
        return e / e.sum()


class MeanPlusStd:
    """mean + 2 std with the public methods only: not monotone (raising a low outlier client lowers it)."""

    n = 3

    def value(self, f: np.ndarray) -> float:
        f = np.asarray(f, dtype=float)
        return float(f.mean() + 2.0 * f.std())

    def weights(self, f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, dtype=float)
        s = f.std()
        return np.full(3, 1 / 3) + (2.0 * (f - f.mean()) / (3 * s) if s > 1e-9 * max(1.0, abs(f.mean())) else 0.0)


def _rows(report) -> list[tuple[str, str, int, str]]:
    return [(r.name, r.status, r.examples, repr(r.counterexample)) for r in report.rows]


def test_public_methods_only_are_enough() -> None:
    agg = SmoothMax([0.5, 0.3, 0.2], t=2.0)
    assert not isinstance(agg, BaseAggregator)
    assert not hasattr(agg, "_value") and not hasattr(agg, "_weights")
    report = audit(agg, max_examples=EXAMPLES)
    assert report.passed, report.table()
    status = {r.name: r.status for r in report.rows}
    assert status["separable_form"] == "not applicable"  # no client_values/client_grads: optional
    assert all(status[k] == "held" for k in ("defined", "subgradient", "weights_nonnegative", "monotone", "convex"))
    assert status["positively_homogeneous"] == "violated"  # log-sum-exp is not: informational, found


def test_public_methods_only_violations_are_found() -> None:
    report = audit(MeanPlusStd(), max_examples=EXAMPLES)
    assert not report.passed
    required = {r.name for r in report.rows if r.required and r.status == "violated"}
    assert required == {"weights_nonnegative", "monotone"}, report.table()
    assert report["monotone"].counterexample is not None


def test_built_in_aggregators_still_pass() -> None:
    report = audit(cvar(3, 0.5), max_examples=EXAMPLES)
    assert report.passed, report.table()


def test_an_object_without_the_protocol_is_refused_by_name() -> None:
    class NoWeights:
        n = 2

        def value(self, f: np.ndarray) -> float:
            return float(np.max(f))

    with pytest.raises(TypeError, match=r"value\(f\), weights\(f\) and n"):
        audit(NoWeights())


@pytest.fixture
def restore_profile() -> Iterator[None]:
    name = settings.get_current_profile_name()
    yield
    settings.load_profile(name)


def test_the_report_does_not_depend_on_the_loaded_profile(restore_profile: None) -> None:
    """The same seed gives the same rows (statuses, example counts and shrunk counterexamples) under the library's
    default profile, a derandomized one, one without shrinking and one with a tiny max_examples."""
    agg = SmoothMax([0.5, 0.3, 0.2], t=2.0)
    settings.register_profile("h6_default_like", parent=settings.get_profile("default"))
    settings.register_profile("h6_derandomized", derandomize=True, max_examples=7, deadline=None)
    settings.register_profile("h6_no_shrink", phases=[Phase.generate], max_examples=3,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("h6_default_like")
    reference = _rows(audit_module_fn(agg, max_examples=EXAMPLES, seed=3))
    # the informational row has a counterexample, shrunk: what a shrink-free profile would change
    assert any(status == "violated" for _, status, _, _ in reference)
    for profile in ("h6_derandomized", "h6_no_shrink"):
        settings.load_profile(profile)
        assert _rows(audit(agg, max_examples=EXAMPLES, seed=3)) == reference, profile


def test_the_search_settings_are_fixed_whatever_the_profile(restore_profile: None) -> None:
    settings.register_profile("h6_odd", derandomize=True, phases=[Phase.generate], max_examples=2, deadline=50)
    settings.load_profile("h6_odd")
    cfg = _settings(123)
    assert cfg.max_examples == 123 and cfg.derandomize is False and cfg.database is None and cfg.deadline is None
    assert Phase.shrink in cfg.phases and Phase.generate in cfg.phases
    assert set(cfg.suppress_health_check) == set(HealthCheck)
    assert SETTINGS["derandomize"] is False and "shrink" in SETTINGS["phases"]


def test_the_benchmark_finds_readmes_audit_example() -> None:
    """benchmarks/bench_audit.py times README's audit example as it stands: the block it finds runs the audit on an
    aggregator with the public methods only."""
    from pathlib import Path

    from benchmarks.bench_audit import readme_example

    code = readme_example(Path(__file__).resolve().parents[1] / "README.md")
    assert "from fairtheory.testing import audit" in code and "audit(" in code
    assert "def value(self, f)" in code and "def weights(self, f)" in code and "_value" not in code
