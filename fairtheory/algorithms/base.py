"""Shared pieces of the algorithm modules (optax-style ``init``/``step`` plus a recording ``run``).

Every algorithm module exposes ``init(problem, ..., ) -> State`` and ``step(state, problem, rng, ...)
-> State`` as pure functions over a small frozen dataclass ``State`` (which must carry the server
model as field ``w`` and a communication counter ``comms``), and uses :func:`run` to iterate and
record a :class:`History`.  Randomness comes only from the explicit ``numpy.random.Generator``
argument, so numpy and torch runs with the same generator make the same client draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairtheory.backend import to_numpy

__all__ = ["History", "run", "sample_clients"]


@dataclass
class History:
    """Recorded trajectory: server iterates, client losses at them, communication counts."""

    iterates: list[np.ndarray] = field(default_factory=list)
    losses: list[np.ndarray] = field(default_factory=list)
    comms: list[int] = field(default_factory=list)

    def as_arrays(self) -> dict[str, np.ndarray]:
        return {"iterates": np.array(self.iterates), "losses": np.array(self.losses),
                "comms": np.array(self.comms)}


def run(
    state: Any,
    step: Callable[..., Any],
    rounds: int,
    *,
    problem: Any,
    rng: np.random.Generator,
    record_every: int = 1,
    record_losses: bool = True,
    callback: Callable[[int, Any], None] | None = None,
    **step_kwargs: Any,
) -> tuple[Any, History]:
    """Apply ``step`` ``rounds`` times, recording the server model every ``record_every`` steps.

    ``callback(k, state)`` (e.g. a progress bar) is called after every step."""
    from fairtheory._validation import check_integer

    rounds = check_integer(rounds, "rounds", low=0)
    record_every = check_integer(record_every, "record_every", low=1)
    hist = History()

    def record(s: Any) -> None:
        hist.iterates.append(to_numpy(s.w).astype(np.float64, copy=True))
        if record_losses:
            hist.losses.append(to_numpy(problem.losses(s.w)).astype(np.float64, copy=True))
        hist.comms.append(int(s.comms))

    record(state)
    for k in range(1, rounds + 1):
        state = step(state, problem, rng, **step_kwargs)
        if k % record_every == 0 or k == rounds:
            record(state)
        if callback is not None:
            callback(k, state)
    return state, hist


def sample_clients(rng: np.random.Generator, p: np.ndarray, K: int) -> np.ndarray:
    """``K`` client indices drawn i.i.d. with replacement with probabilities ``p``."""
    from fairtheory._validation import check_integer

    K = check_integer(K, "K", low=1)
    return rng.choice(p.shape[0], size=K, replace=True, p=p)
