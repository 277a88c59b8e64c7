"""The shared exact oracle ``tests/oracles.py`` checked on its own: hand-computed projections, the KKT
conditions in exact arithmetic, and an exhaustive enumeration of active sets (a second, independent method)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as Q

import numpy as np
import pytest
from oracles import capped_simplex_projection, exact


def _enumerate_projection(v: list[Q], caps: list[Q]) -> list[Q]:
    """Projection onto ``S(u)`` by brute force, exact: every split of the indices into held at ``0``, held at
    ``u_i`` and free gives the minimiser of ``||lam - v||`` on that face's affine hull (free weights
    ``v_i - s`` with ``s`` fixed by ``sum lam = 1``); the projection is the nearest feasible candidate (it lies
    in the relative interior of one face, where it is that face's candidate)."""
    n = len(v)
    u = [min(c, Q(1)) for c in caps]
    best: tuple[Q, list[Q]] | None = None
    for split in itertools.product((0, 1, 2), repeat=n):  # 0: at 0, 1: at u_i, 2: free
        free = [i for i in range(n) if split[i] == 2]
        fixed = sum((u[i] for i in range(n) if split[i] == 1), Q(0))
        if free:
            s = (sum((v[i] for i in free), Q(0)) + fixed - 1) / len(free)
            lam = [Q(0) if k == 0 else u[i] if k == 1 else v[i] - s for i, k in enumerate(split)]
        else:
            lam = [Q(0) if k == 0 else u[i] for i, k in enumerate(split)]
        if sum(lam, Q(0)) != 1 or any(x < 0 or x > ui for x, ui in zip(lam, u, strict=True)):
            continue
        d = sum(((x - vi) ** 2 for x, vi in zip(lam, v, strict=True)), Q(0))
        if best is None or d < best[0]:
            best = (d, lam)
    assert best is not None
    return best[1]


def _kkt_holds(lam: list[Q], v: list[Q], caps: list[Q]) -> bool:
    """Exact optimality: ``sum lam = 1``, ``0 <= lam <= u`` and one ``s`` with ``lam_i = v_i - s`` where
    ``0 < lam_i < u_i``, ``s >= v_i`` where ``lam_i = 0 < u_i`` and ``s <= v_i - u_i`` where ``lam_i = u_i > 0``."""
    u = [min(c, Q(1)) for c in caps]
    if sum(lam, Q(0)) != 1 or any(x < 0 or x > ui for x, ui in zip(lam, u, strict=True)):
        return False
    eq = {v[i] - lam[i] for i in range(len(v)) if 0 < lam[i] < u[i]}
    ge = [v[i] for i in range(len(v)) if lam[i] == 0 < u[i]]
    le = [v[i] - u[i] for i in range(len(v)) if lam[i] == u[i] > 0]
    if len(eq) > 1:
        return False
    low, high = max([*eq, *ge], default=None), min([*eq, *le], default=None)
    return low is None or high is None or low <= high


HAND = [
    # (v, caps, exact projection), each worked by hand in the comment
    ([Q(1, 4), Q(1), Q(-1, 2)], [1, 1, 1], [Q(1, 8), Q(7, 8), Q(0)]),  # s = (1/4 + 1 - 1)/2 = 1/8; -1/2 - s < 0
    ([1, 3, 2], [Q(1, 2)] * 3, [Q(0), Q(1, 2), Q(1, 2)]),  # s in [1, 3/2]: both large ones capped
    ([2, 0, 0], [Q(1, 2), 1, 1], [Q(1, 2), Q(1, 4), Q(1, 4)]),  # s = (0 + 0 + 1/2 - 1)/2 = -1/4
    ([5, 5, 5, 5], [1] * 4, [Q(1, 4)] * 4),  # translation: the barycentre
    ([Q(1, 2), Q(1, 4), Q(1, 4)], [1, 1, 1], [Q(1, 2), Q(1, 4), Q(1, 4)]),  # already in the set
    ([Q(-7)], [1], [Q(1)]),  # one client
    ([9, -9], [Q(1, 2), Q(1, 2)], [Q(1, 2), Q(1, 2)]),  # sum of caps 1: a single point
    ([Q(1, 3), Q(1, 3), Q(2, 3)], [5, 5, 5], [Q(2, 9), Q(2, 9), Q(5, 9)]),  # caps > 1 act as 1; s = 1/9
    ([0.5, 0.25, 1e300], [1, 1, 1], [Q(0), Q(0), Q(1)]),  # one huge coordinate takes all the mass
]


@pytest.mark.parametrize(("v", "caps", "want"), HAND)
def test_hand_computed_projections(v: list, caps: list, want: list[Q]) -> None:
    got = capped_simplex_projection(v, caps)
    assert got == want
    assert all(isinstance(x, Q) for x in got)


def test_float_inputs_are_taken_exactly() -> None:
    """0.1 is not 1/10: the oracle projects the float's exact value (here the set's only point is 1, 0)."""
    got = capped_simplex_projection([0.1, 0.2], [1.0, 0.0])
    assert got == [Q(1), Q(0)]
    got = capped_simplex_projection([0.1, 0.3], [1, 1])  # s = (0.1 + 0.3 - 1) / 2 with float values
    assert got[0] == Q(0.1) - (Q(0.1) + Q(0.3) - 1) / 2
    assert got[0] != Q(2, 5)  # the decimal answer would be 0.4
    assert sum(got) == 1


def test_agrees_with_active_set_enumeration_and_kkt() -> None:
    rng = random.Random(20240611)
    for _ in range(300):
        n = rng.randint(1, 5)
        v = [Q(rng.randint(-40, 40), rng.choice((1, 2, 3, 8))) for _ in range(n)]
        caps = [Q(rng.randint(1, 12), rng.choice((4, 6, 8))) for _ in range(n)]
        if sum(min(c, Q(1)) for c in caps) < 1:
            caps[rng.randrange(n)] = Q(1)
        got = capped_simplex_projection(v, caps)
        assert got == _enumerate_projection(v, caps), (v, caps)
        assert _kkt_holds(got, v, caps), (v, caps)


def test_kkt_check_rejects_a_wrong_answer() -> None:
    """The KKT check used above is able to fail: a feasible point that is not the projection."""
    v, caps = [Q(1, 4), Q(1), Q(-1, 2)], [Q(1)] * 3
    assert _kkt_holds([Q(1, 8), Q(7, 8), Q(0)], v, caps)
    assert not _kkt_holds([Q(1, 4), Q(3, 4), Q(0)], v, caps)
    assert not _kkt_holds([Q(1, 3)] * 3, v, caps)


def test_random_floats_across_scales() -> None:
    """Float inputs over many magnitudes: exact agreement with the enumeration (n <= 4)."""
    rng = np.random.default_rng(7)
    for scale in (1e-300, 1e-12, 1.0, 1e12, 1e300):
        for _ in range(20):
            n = int(rng.integers(1, 5))
            v = (rng.standard_normal(n) * scale).tolist()
            caps = rng.uniform(0.2, 1.2, n).tolist()
            if sum(min(c, 1.0) for c in caps) < 1:
                caps[0] = 1.0
            got = capped_simplex_projection(v, caps)
            assert got == _enumerate_projection([exact(x) for x in v], [exact(c) for c in caps])


@pytest.mark.parametrize(("v", "caps", "match"), [
    ([], [], "non-empty"),
    ([1.0, 2.0], [1.0], "one length"),
    ([float("nan"), 0.0], [1.0, 1.0], r"v\[0\]"),
    ([0.0, 1.0], [1.0, float("inf")], r"caps\[1\]"),
    ([0.0, 1.0], [0.3, 0.3], "caps"),
    ([0.0, 1.0], [-0.5, 2.0], "caps"),
    ([True, 1.0], [1.0, 1.0], r"v\[0\]"),
    (["1", 1.0], [1.0, 1.0], r"v\[0\]"),
])
def test_invalid_inputs_name_the_argument(v: list, caps: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        capped_simplex_projection(v, caps)
