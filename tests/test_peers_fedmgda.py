"""peers.flgo.fedmgda compares FLGo's FedMGDA+ direction itself, not only its squared norm (issue 19)."""

from __future__ import annotations

import numpy as np
import pytest

from verify.claims.peers import compare, flgo, support
from verify.core import Tally


def _instance():
    rng = np.random.default_rng(3)
    U = rng.normal(size=(5, 4)) + rng.normal(size=4)
    sizes = np.array([3, 1, 4, 1, 5])
    return U, sizes, sizes / sizes.sum()


def test_a_flipped_direction_fails_the_comparison():
    """-d* has the exact squared norm, so the value part alone passes it; the direction part must not."""
    U, _, lam0 = _instance()
    d, v = compare.fedmgda_direction(U, lam0, 0.1, 1e-8)
    assert v > 0.1  # far from Pareto-stationary: the flip moves the direction by 2 ||d*||
    value, direction = Tally(), Tally()
    assert compare.fedmgda_compare(value, direction, d, d, v, instance={}, size=1.0)
    value, direction = Tally(), Tally()
    assert not compare.fedmgda_compare(value, direction, -d, d, v, instance={"flipped": True}, size=1.0)
    assert value.outcome().status == "verified"  # ||-d||^2 = ||d||^2: the old comparison missed it
    assert direction.outcome().status == "refuted"
    # another point of the hull's box with the same norm (a rotation of d) fails too
    rot = np.array([d[1], -d[0], d[2], d[3]])
    value, direction = Tally(), Tally()
    assert not compare.fedmgda_compare(value, direction, rot, d, v, instance={}, size=1.0)


def test_a_failed_peer_fails_both_parts():
    U, _, lam0 = _instance()
    d, v = compare.fedmgda_direction(U, lam0, 0.1, 1e-8)
    value, direction = Tally(), Tally()
    assert not compare.fedmgda_compare(value, direction, ValueError("boom"), d, v, instance={}, size=1.0)
    assert value.outcome().status == "refuted" and direction.outcome().status == "refuted"


def test_flgo_direction_agrees_and_its_flip_is_caught():
    """FLGo's own Server.aggregate: its direction passes; the same output with the sign flipped fails."""
    if support.peer_version("flgo") is None:
        pytest.skip(f"flgo is not installed: {support.PEERS['flgo'].install}")
    U, sizes, lam0 = _instance()
    w = np.zeros(U.shape[1])
    with support.float64_torch():
        new = flgo.prepare_flgo_fedmgda(w, w[None, :] - U, sizes=sizes, epsilon=0.1)()
    d_flgo = w - new
    d, v = compare.fedmgda_direction(U, lam0, 0.1, 1e-8)
    assert compare.fedmgda_compare(Tally(), Tally(), d_flgo, d, v, instance={}, size=1.0)
    assert np.linalg.norm(d_flgo - d) <= compare.FEDMGDA_DIRECTION_TOL
    assert not compare.fedmgda_compare(Tally(), Tally(), -d_flgo, d, v, instance={}, size=1.0)
