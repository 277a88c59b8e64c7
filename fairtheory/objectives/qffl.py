r"""q-FFL: the q-Fair Federated Learning objective and the Lemma 12 Lipschitz estimate (seed 003).

Three forms of the aggregator of the client-loss vector ``F = (F_1, ..., F_m) >= 0`` (``q >= 0``):

- ``"weighted"`` (003 eq. 2): ``f_q = sum_k p_k/(q+1) F_k^{q+1}``; ``q = 0`` is the FedAvg objective.
- ``"unweighted"`` (003 eq. 22): ``(1/m) sum_k F_k^{q+1}`` (ignores ``p``).
- ``"root"`` (003 App. A.1): ``((1/m) sum_k F_k^{q+1})^{1/(q+1)}`` (ignores ``p``); same minimiser as
  ``"unweighted"``; tends to ``max_k F_k`` as ``q -> infinity`` (min-max / AFL).

All three are convex in ``w`` when every ``F_k`` is convex and nonnegative (``t -> t^{q+1}`` is convex and
nondecreasing on ``t >= 0``).  Negative losses are rejected: ``F^{q+1}`` is then not the q-FFL
objective (and not even real for non-integer ``q``).

Lemma 12 (003 App. B): if ``f >= 0`` has an ``L``-Lipschitz gradient, the Hessian of
``f^{q+1}/(q+1)``, ``q f^{q-1} grad f grad f^T + f^q Hess f``, has spectral norm at most
``L_q(w) = L f(w)^q + q f(w)^{q-1} ||grad f(w)||^2``.

Behaviour at ``f = 0`` (documented choice): for ``q < 1`` the factor ``f^{q-1}`` is infinite at
``f = 0``.  But a nonnegative ``L``-smooth ``f`` satisfies ``||grad f||^2 <= 2 L f``, so
``q f^{q-1} ||grad f||^2 <= 2 q L f^q -> 0`` and the estimate stays finite: we define the second
term as ``0`` where ``f = 0`` and ``grad f = 0``, and raise where ``f = 0`` but ``grad f != 0`` (such
data cannot come from a nonnegative smooth function).  ``q = 0`` gives ``L_0 = L`` (``f^0 = 1``).
The algorithms avoid the issue altogether by adding a small ``offset`` (``1e-10``, as in the published
code) to ``F_k`` before taking powers: they take their client weights from the aggregator form
:class:`fairtheory.aggregators.QFFL` (``weights = p_k (F_k + o)^q``, ``curvature = q p_k (F_k + o)^{q-1}``).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from fairtheory._validation import (
    FairtheoryValueError,
    check_in_range,
    check_probability_vector,
)
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.problems.base import Array, FederatedProblem

Form = Literal["weighted", "unweighted", "root"]
FORMS = ("weighted", "unweighted", "root")

__all__ = [
    "FORMS",
    "check_losses",
    "qffl_value",
    "qffl_grad",
    "lipschitz_estimate",
    "hessian_powered",
    "QFFLProblem",
]


def _check_q(q: Any) -> float:
    return check_in_range(q, "q", low=0.0)


def _check_form(form: Any) -> str:
    if form not in FORMS:
        raise FairtheoryValueError(f"form must be one of {FORMS}, got {form!r}")
    return str(form)


def check_losses(losses: Any, name: str = "losses") -> Any:
    """Raise unless ``losses`` is a finite 1-D vector of nonnegative numbers (numpy or torch).

    q-FFL needs ``F_k >= 0`` (003 Sec. 3.2: "non-negative cost functions")."""
    arr = to_numpy(losses)
    if arr.ndim != 1 or arr.size == 0:
        raise FairtheoryValueError(f"{name} must be a non-empty 1-D vector, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise FairtheoryValueError(f"{name} must be finite, got {arr[bad]} at index {bad}")
    if np.any(arr < 0):
        bad = int(np.argmin(arr))
        raise FairtheoryValueError(
            f"{name} must be >= 0 (q-FFL needs nonnegative losses), got {arr[bad]!r} at index {bad}"
        )
    return losses


def _weights(p: Any, m: int, form: str) -> Array:
    if form != "weighted":
        return np.full(m, 1.0 / m)
    if p is None:
        return np.full(m, 1.0 / m)
    p_arr = check_probability_vector(p, "p")
    if p_arr.shape != (m,):
        raise FairtheoryValueError(f"p must have shape ({m},) (one weight per client), got {p_arr.shape}")
    return p_arr


def qffl_value(losses: Any, q: float, p: Any = None, *, form: Form = "weighted") -> Any:
    r"""The q-FFL aggregator of a client-loss vector (003 eq. 2, eq. 22, App. A.1).

    ``weighted``: ``sum_k p_k F_k^{q+1}/(q+1)`` (``p`` uniform if omitted);
    ``unweighted``: ``(1/m) sum_k F_k^{q+1}``; ``root``: ``((1/m) sum_k F_k^{q+1})^{1/(q+1)}``.

    Parameters
    ----------
    losses : (m,) nonnegative numpy array or torch tensor ``F``.
    q : float, ``q >= 0``.
    p : (m,) probability vector (``weighted`` only).
    form : ``"weighted"``, ``"unweighted"`` or ``"root"``.

    Returns
    -------
    Scalar of the input's library (a 0-d array / tensor; use ``float(...)`` for a Python float).
    """
    q = _check_q(q)
    form = _check_form(form)
    check_losses(losses)
    xp = namespace(losses)
    m = int(losses.shape[0])
    c = like(_weights(p, m, form), losses)
    s = xp.sum(c * losses ** (q + 1.0))
    if form == "weighted":
        return s / (q + 1.0)
    if form == "unweighted":
        return s
    return s ** (1.0 / (q + 1.0))


def qffl_grad(losses: Any, grads: Any, q: float, p: Any = None, *, form: Form = "weighted") -> Any:
    r"""Gradient of the q-FFL aggregator by the chain rule.

    With ``J`` the Jacobian (rows ``grad F_k``): ``weighted``: ``sum_k p_k F_k^q grad F_k``;
    ``unweighted``: ``((q+1)/m) sum_k F_k^q grad F_k``; ``root``: ``S^{-q/(q+1)} (1/m) sum_k F_k^q
    grad F_k`` with ``S = (1/m) sum_k F_k^{q+1}`` (the ``root`` form is not differentiable at
    ``F = 0``; a ``FairtheoryValueError`` is raised there).
    """
    q = _check_q(q)
    form = _check_form(form)
    check_losses(losses)
    xp = namespace(losses, grads)
    m = int(losses.shape[0])
    if tuple(grads.shape[:1]) != (m,) or len(grads.shape) != 2:
        raise FairtheoryValueError(f"grads must have shape ({m}, d), got {tuple(grads.shape)}")
    c = like(_weights(p, m, form), losses)
    g = xp.sum((c * losses**q)[:, None] * grads, axis=0)
    if form == "weighted":
        return g
    if form == "unweighted":
        return (q + 1.0) * g
    S = xp.sum(c * losses ** (q + 1.0))
    if float(S) <= 0.0:
        raise FairtheoryValueError("the root form is not differentiable where every loss is 0 (S = 0)")
    return S ** (-q / (q + 1.0)) * g


def lipschitz_estimate(losses: Any, grad_sq_norms: Any, L: float | Any, q: float) -> Array:
    r"""003 Lemma 12: ``L_q = L F^q + q F^{q-1} ||grad F||^2`` (vectorised over clients).

    Parameters
    ----------
    losses : (m,) nonnegative values ``F_k(w)``.
    grad_sq_norms : (m,) values ``||grad F_k(w)||^2 >= 0``.
    L : smoothness constant(s) of the ``F_k`` (scalar or (m,)), ``> 0``.
    q : ``q >= 0``.

    Returns
    -------
    (m,) numpy array of upper bounds on ``||Hess(F_k^{q+1}/(q+1))(w)||_2``.

    Notes
    -----
    Where ``F_k = 0``: for ``q = 0`` the value is ``L``; for ``q > 0`` the second term is defined as
    its limit ``0`` (valid because ``||grad F||^2 <= 2 L F`` for nonnegative smooth ``F``); a point with
    ``F_k = 0`` but ``||grad F_k|| > 0`` raises (see module docstring).
    """
    q = _check_q(q)
    f = np.asarray(to_numpy(check_losses(losses)), dtype=np.float64)
    g2 = np.asarray(to_numpy(grad_sq_norms), dtype=np.float64)
    if g2.shape != f.shape:
        raise FairtheoryValueError(f"grad_sq_norms must have shape {f.shape}, got {g2.shape}")
    if not np.all(np.isfinite(g2)) or np.any(g2 < 0):
        raise FairtheoryValueError("grad_sq_norms must be finite and >= 0")
    L_arr = np.broadcast_to(np.asarray(to_numpy(L), dtype=np.float64), f.shape)
    if not np.all(np.isfinite(L_arr)) or np.any(L_arr <= 0):
        raise FairtheoryValueError(f"L must be finite and > 0, got {to_numpy(L)!r}")
    if q == 0.0:
        return L_arr.copy()
    zero = f == 0.0
    if np.any(zero & (g2 > 0)):
        bad = int(np.flatnonzero(zero & (g2 > 0))[0])
        raise FairtheoryValueError(
            f"losses[{bad}] = 0 with grad_sq_norms[{bad}] = {g2[bad]!r} > 0: a nonnegative smooth loss "
            "has zero gradient where it vanishes"
        )
    fs = np.where(zero, 1.0, f)
    second = np.where(zero, 0.0, q * fs ** (q - 1.0) * g2)
    return L_arr * f**q + second


def hessian_powered(loss: float, grad: Array, hess: Array, q: float) -> Array:
    r"""Exact Hessian of ``F^{q+1}/(q+1)``: ``q F^{q-1} g g^T + F^q H`` (003 eq. 28), batched.

    ``loss`` (m,), ``grad`` (m, d), ``hess`` (m, d, d), numpy; ``F = 0`` handled as in
    :func:`lipschitz_estimate` (first term ``0`` when ``g = 0``)."""
    q = _check_q(q)
    f = np.asarray(check_losses(np.atleast_1d(np.asarray(loss, dtype=np.float64))))
    g = np.asarray(grad, dtype=np.float64).reshape(f.shape[0], -1)
    H = np.asarray(hess, dtype=np.float64).reshape(f.shape[0], g.shape[1], g.shape[1])
    if q == 0.0:
        return H.copy()
    fs = np.where(f == 0.0, 1.0, f)
    coef = np.where(f == 0.0, 0.0, q * fs ** (q - 1.0))
    return coef[:, None, None] * np.einsum("ni,nj->nij", g, g) + (f**q)[:, None, None] * H


class QFFLProblem(FederatedProblem):
    r"""The federated problem whose client losses are ``F_k^{q+1}/(q+1)`` (003 eq. 2).

    Its :meth:`weighted_loss` is ``f_q``, so any FedAvg-objective tool (e.g. FedSGD from
    ``fairtheory.algorithms.fedavg`` with one local step) applied to it runs on the q-FFL objective.
    Gradients ``F_k^q grad F_k``; Hessians by 003 eq. 28.  The gradient is not globally Lipschitz
    for ``q > 0``: :meth:`smoothness` returns ``inf`` (use the local estimate of Lemma 12).
    """

    def __init__(self, base: FederatedProblem, q: float) -> None:
        if not isinstance(base, FederatedProblem):
            raise FairtheoryValueError(f"base must be a FederatedProblem, got {type(base).__name__}")
        self.base = base
        self.q = _check_q(q)
        self.n, self.d, self.p = base.n, base.d, base.p

    def losses_each(self, W: Any, clients: Any = None) -> Any:
        F = self.base.losses_each(W, clients=clients)
        check_losses(F, "base losses")
        return F ** (self.q + 1.0) / (self.q + 1.0)

    def grads_each(self, W: Any, clients: Any = None) -> Any:
        F, G = self.base.loss_grad_each(W, clients=clients)
        check_losses(F, "base losses")
        return (F**self.q)[:, None] * G

    def hessians(self, w: Array) -> Array:
        w = np.asarray(w, dtype=np.float64)
        return hessian_powered(self.base.losses(w), self.base.grads(w), self.base.hessians(w), self.q)

    def cvxpy_losses(self, w: Any) -> list[Any]:
        """``power(F_k, q+1)/(q+1)`` (DCP only where cvxpy knows ``F_k >= 0``; the exact solver in
        ``fairtheory.exact.qffl`` uses the p-norm form instead)."""
        import cvxpy as cp

        return [cp.power(f, self.q + 1.0) / (self.q + 1.0) for f in self.base.cvxpy_losses(w)]

    def smoothness(self) -> float:
        return float(self.base.smoothness()) if self.q == 0.0 else float("inf")

    def strong_convexity(self) -> float:
        return float(self.base.strong_convexity()) if self.q == 0.0 else 0.0

    def initial_point(self) -> Array:
        return self.base.initial_point()
