"""One function per result of the seeds: one instance's parameters in, ``(measured, theory)`` out.

Modeled on PEPit's examples, each of which returns ``(pepit_tau, theoretical_tau)``: the claim sweeps
instances, the figure plots them, the test pins one - all through the same function.  Every function
here returns an :class:`InstanceResult` ``(measured, theory, extra)``; ``measured`` and ``theory`` are in
the result's natural units (e.g. a suboptimality and the theorem's right-hand side) and ``extra`` holds
whatever else the instance computed (constants, intermediate values).

Modules: :mod:`~fairtheory.instances.rcfl` (002/000), :mod:`~fairtheory.instances.qffl` (003),
:mod:`~fairtheory.instances.fedfv` (004), :mod:`~fairtheory.instances.relative` (001, reconstructed)
and :mod:`~fairtheory.instances.baselines`, exported as modules (``from fairtheory.instances import
rcfl``; the results of different seeds share names) and imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from fairtheory._lazy import lazy_exports

if TYPE_CHECKING:  # the same names, for type checkers (tests/test_public_api.py checks they match)
    from fairtheory.instances import baselines as baselines
    from fairtheory.instances import fedfv as fedfv
    from fairtheory.instances import qffl as qffl
    from fairtheory.instances import rcfl as rcfl
    from fairtheory.instances import relative as relative

__all__ = ["InstanceResult", "check_problem"]

__getattr__, __dir__, _lazy_names = lazy_exports(__name__, modules=["rcfl", "qffl", "fedfv", "relative", "baselines"])
__all__ += _lazy_names


class InstanceResult(NamedTuple):
    """``measured`` vs ``theory`` for one instance, plus what else was computed (``extra``)."""

    measured: float
    theory: float
    extra: dict[str, Any] = {}


def check_problem(problem: Any, kind: type | None = None, name: str = "problem") -> Any:
    """``problem`` if it is a federated problem (an instance of ``kind``, default
    :class:`~fairtheory.problems.base.FederatedProblem`), else a :class:`FairtheoryTypeError` naming it."""
    from fairtheory.errors import FairtheoryTypeError
    from fairtheory.problems.base import FederatedProblem

    want = FederatedProblem if kind is None else kind
    if not isinstance(problem, want):
        raise FairtheoryTypeError(f"{name} must be a {want.__name__}, got {type(problem).__name__}")
    return problem
