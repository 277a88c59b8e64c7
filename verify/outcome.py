"""What a claim's check returns: :class:`Outcome` and its :data:`STATUSES`.

The bottom of :mod:`verify`: :mod:`verify.validate` checks an untrusted :class:`Outcome`, :mod:`verify.core` runs the
checks and builds the report rows from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Status", "STATUSES", "Outcome"]

Status = Literal["proved", "verified", "refuted", "inconclusive", "skipped", "not implemented", "error"]
#: every status, in report order.  ``proved``: an exact certificate (``Outcome.certificate``) that the runner
#: re-checked with :func:`fairtheory_kernel.check.check_proof`; ``verified``: the numbers held on every instance;
#: ``refuted``: an instance violates the claim - *exactly* when ``Outcome.certificate`` holds a re-checked
#: ``"counterexample"`` certificate of the statement the claim declares refuted (:func:`verify.core.bind_refutation`)
STATUSES = ("proved", "verified", "refuted", "inconclusive", "skipped", "not implemented", "error")


@dataclass
class Outcome:
    """What a check returns (before the runner adds id, citation, timing).

    ``measured``/``bound`` are in the claim's natural units (e.g. suboptimality and the theorem's
    right-hand side).  ``relation`` says how they compare: ``"<="`` (upper bound: ``tightness`` is
    ``measured/bound``, ``>= 0``), ``">="`` (lower bound: ``tightness`` is ``bound/measured``), ``"=="``
    (equality: ``error`` is the relative deviation, verified when ``error <= tolerance``; no tightness),
    or another short symbol whose meaning ``explain`` gives (e.g. a fitted slope).  ``explain`` is one
    sentence saying what the numbers are; the report prints it.

    Next to the sampled ``tightness`` (the largest ratio over the instances checked), an upper or lower
    bound may report ``adversarial``: the largest ratio a seeded search over the instance space found
    (:func:`fairtheory.worstcase.adversarial.adversarial_max`, recorded by :func:`verify.core.attach_adversarial`),
    and ``worstcase``: the exact worst-case ratio over a whole function class (a PEP,
    :mod:`fairtheory.worstcase`).  Both are ``None`` where they are not available."""

    status: Status
    measured: float | None = None
    bound: float | None = None
    margin: float | None = None
    tightness: float | None = None
    instances: int = 0
    counterexample: dict[str, Any] | None = None
    note: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    relation: str = ""
    error: float | None = None
    tolerance: float | None = None
    explain: str = ""
    adversarial: float | None = None
    worstcase: float | None = None
    certificate: Any = None
