"""Shared pytest configuration: ``--full`` runs slow tests and the large Hypothesis profile;
the ``xp`` fixture runs a test on numpy and (when installed) torch."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("full", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true", default=False,
                     help="run slow/exhaustive tests and the large Hypothesis profile")


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("full" if config.getoption("--full") else "ci")
    # the tests run the proof searches: quick claims do not read the certificates shipped with the package unless a
    # test asks for them (fairtheory.proofs.shipped; tests/test_proofs_shipped.py sets "use" itself)
    os.environ.setdefault("FAIRTHEORY_SHIPPED", "search")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--full"):
        return
    skip = pytest.mark.skip(reason="slow: run with --full")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=["numpy", "torch"])
def xp_name(request: pytest.FixtureRequest) -> str:
    """Backend name; torch tests skip when torch is not installed."""
    if request.param == "torch":
        pytest.importorskip("torch")
    return request.param


@pytest.fixture
def to_backend(xp_name: str):
    """Convert a numpy array to the fixture's backend (float64)."""
    def conv(x):
        if xp_name == "torch":
            import torch

            return torch.as_tensor(np.asarray(x, dtype=np.float64))
        return np.asarray(x, dtype=np.float64)

    return conv
