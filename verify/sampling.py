"""Draw Hypothesis examples outside pytest, reproducibly, for claim checks.

Claim checks combine seeded random instances with Hypothesis-generated edge cases (ties, extreme
weights, tiny/huge values; the public strategies of :mod:`fairtheory.testing`).  Hypothesis is a
test-case generator, not a sampler: :func:`hypothesis_examples` runs a ``@given`` function that only
records what it is given, in *generate* phase only, with no example database and a seed derived
from ``seed``, so the same ``(strategy, count, seed)`` gives the same list on every run.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any, TypeVar

from fairtheory._validation import FairtheoryTypeError, check_integer

__all__ = ["hypothesis_examples"]

T = TypeVar("T")


def hypothesis_examples(strategy: Any, count: int, seed: int = 0) -> list[Any]:
    """Draw up to ``count`` examples from a Hypothesis ``strategy``, reproducibly.

    Parameters
    ----------
    strategy : hypothesis.strategies.SearchStrategy
        Any strategy (e.g. ``fairtheory.testing.qalpha_instances(max_n=12)``).
    count : int
        Number of examples wanted (``>= 0``); passed as ``max_examples``.
    seed : int
        Seed of Hypothesis' random source (``>= 0``): equal seeds give equal lists.

    Returns
    -------
    list
        The examples in the order Hypothesis generated them.

    Notes
    -----
    Hypothesis may return *fewer* than ``count`` examples: it stops early when it has exhausted a
    small search space (e.g. ``st.booleans()`` gives at most 2) and it may skip duplicates.  It also
    tends to start with simple examples (small sizes, zeros, interval ends), which is what the
    verification suite wants from it; uniform random coverage comes from the seeded random instances
    that every claim draws next to these.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis.strategies import SearchStrategy

    if not isinstance(strategy, SearchStrategy):
        raise FairtheoryTypeError(
            f"strategy must be a Hypothesis SearchStrategy, got {type(strategy).__name__}")
    count = check_integer(count, "count", low=0)
    seed = check_integer(seed, "seed", low=0)
    if count == 0:
        return []
    out: list[Any] = []

    @hseed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False, report_multiple_bugs=False)
    @given(strategy)
    def _collect(example: Any) -> None:
        out.append(example)

    with warnings.catch_warnings(), _no_local_constants():
        warnings.simplefilter("ignore")  # e.g. NonInteractiveExampleWarning outside a test run
        _collect()
    return out[:count]


@contextlib.contextmanager
def _no_local_constants() -> Iterator[None]:
    """Keep Hypothesis from mixing literals of the *imported* modules into generation.

    Recent Hypothesis versions scan every loaded local module for numeric/string constants and use
    them as interesting values; the examples then depend on which modules happen to be imported
    (``--only X`` would see other instances than a full run).  Measured here: importing
    ``fairtheory.exact.result`` alone changed the examples of ``st.lists(st.floats(0, 1))`` under a
    fixed seed.  During the draw the pool is replaced by an empty one (internal API; if it moves,
    nothing is patched and only this cross-import reproducibility is lost)."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover
        yield
        return
    original = getattr(providers, "_get_local_constants", None)
    empty_type = getattr(providers, "Constants", None)
    if original is None or empty_type is None:  # pragma: no cover
        yield
        return
    empty = empty_type()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
