r"""Size limits of a worst-case PEP, checked before anything is allocated or solved.

:func:`check_size` refuses a PEP beyond :data:`MAX_PEP_DIM` / :data:`MAX_PEP_ROWS` (memory) or whose estimated solve
time exceeds :data:`MAX_SOLVE_SECONDS` (the estimate of the route :meth:`fairtheory.worstcase.sdp.PEP.solve` takes:
dense, sparse or symmetric).  ``MAX_SOLVE_SECONDS`` is read at every call: set
``fairtheory.worstcase.limits.MAX_SOLVE_SECONDS`` to accept longer solves.
"""

from __future__ import annotations

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase.solvers import estimated_seconds
from fairtheory.worstcase.sparse_solve import sparse_estimated_seconds, sparse_route
from fairtheory.worstcase.symmetric import symmetric_estimated_seconds

__all__ = ["MAX_PEP_DIM", "MAX_PEP_ROWS", "MAX_SOLVE_SECONDS", "check_size"]

#: largest Gram dimension a worst-case PEP may have (beyond it the dense builder and Clarabel need
#: many GiB and hours; :func:`check_size` refuses before allocating)
MAX_PEP_DIM = 600
#: largest number of interpolation conditions a worst-case PEP may have
MAX_PEP_ROWS = 150_000

#: refuse a PEP whose estimated solve time (:func:`check_size`) exceeds this many seconds; raise it (module
#: attribute) to accept longer solves
MAX_SOLVE_SECONDS = 60.0


def check_size(dim: int, rows: int, what: str, *, n_functions: int = 2, symmetric: bool = False) -> None:
    """Refuse a PEP beyond :data:`MAX_PEP_DIM` / :data:`MAX_PEP_ROWS` (memory) or :data:`MAX_SOLVE_SECONDS`
    (time, :func:`~fairtheory.worstcase.solvers.estimated_seconds`; for a PEP that
    :meth:`~fairtheory.worstcase.sdp.PEP.solve` routes to the sparse solve,
    :func:`fairtheory.worstcase.sparse_solve.sparse_route` with ``n_functions``, its own estimate;
    ``symmetric``: identical clients solved by :func:`fairtheory.worstcase.symmetric.solve_symmetric`, its estimate):
    a named error, before any allocation or solve."""
    if dim > MAX_PEP_DIM or rows > MAX_PEP_ROWS:
        raise FairtheoryValueError(
            f"{what}: the PEP would have Gram dimension ~{dim} and ~{rows} interpolation conditions, beyond the "
            f"limit (Gram dimension <= {MAX_PEP_DIM}, conditions <= {MAX_PEP_ROWS}); use fewer rounds / steps / clients")
    est = sparse_estimated_seconds(rows) if sparse_route(dim, n_functions) else estimated_seconds(dim, rows)
    if symmetric and n_functions >= 2:
        est = symmetric_estimated_seconds(dim // n_functions, rows // n_functions)
    if est > MAX_SOLVE_SECONDS:
        raise FairtheoryValueError(
            f"{what}: the PEP would have Gram dimension ~{dim} and ~{rows} interpolation conditions: one solve is "
            f"estimated at ~{est:.0f} s, beyond MAX_SOLVE_SECONDS = {MAX_SOLVE_SECONDS:g} s "
            "(fairtheory.worstcase.limits.MAX_SOLVE_SECONDS; raise it to wait longer); use fewer rounds / steps / "
            "clients / draws")
