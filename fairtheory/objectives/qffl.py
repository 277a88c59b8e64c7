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

import math
from typing import Any, Literal

import numpy as np

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    check_in_range,
    check_probability_vector,
)
from fairtheory.backend import as_array, as_float, is_torch, like, namespace, to_numpy
from fairtheory.problems.base import Array, FederatedProblem
from fairtheory.stable import FLOAT_TINY, mul_pow_parts, pow2_exponent, times_pow2

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
    if not isinstance(form, str) or form not in FORMS:
        raise FairtheoryValueError(f"form must be one of {FORMS}, got {form!r}")
    return str(form)


def check_losses(losses: Any, name: str = "losses") -> Any:
    """``losses`` as a finite, non-empty 1-D vector of nonnegative floats, or raise naming ``name``.

    q-FFL needs ``F_k >= 0`` (003 Sec. 3.2: "non-negative cost functions").  Returns a floating array of
    the input's library: torch tensors keep their device, floating dtype and autograd graph (integer
    tensors become float64); lists, tuples and numpy arrays of any real dtype become float64 numpy.
    Booleans are rejected (:class:`FairtheoryTypeError`), as are nan and infinities."""
    F = as_float(losses, name, ndim=1)
    arr = to_numpy(F)
    if np.any(arr < 0):
        bad = int(np.argmin(arr))
        raise FairtheoryValueError(
            f"{name} must be >= 0 (q-FFL needs nonnegative losses), got {arr[bad]!r} at index {bad}"
        )
    return F


def _weights(p: Any, m: int, form: str) -> Array:
    if form != "weighted" or p is None:
        return np.full(m, 1.0 / m)
    p_arr = check_probability_vector(p, "p")
    if p_arr.shape != (m,):
        raise FairtheoryValueError(f"p must have shape ({m},) (one weight per client), got {p_arr.shape}")
    return p_arr


def _support_max(F: Any, c: Array) -> float:
    """``max_k F_k`` over the clients with ``c_k > 0`` (``0`` if none)."""
    arr = to_numpy(F)[c > 0]
    return float(arr.max()) if arr.size else 0.0


def _overflow(what: str, q: float) -> FairtheoryValueError:
    return FairtheoryValueError(
        f"the {what} exceeds the float64 range (about 1.8e308) for these losses and q = {q!r}: the true "
        "value does not fit a float64; rescale the losses")


def _qffl_value_scaled(F: Any, c_np: Array, q: float, form: str) -> Any:
    """q-FFL value with every loss divided by ``M = max F`` (no overflow or underflow in the powers):
    ``sum c F^{q+1} = M^{q+1} sum c (F/M)^{q+1}``; ``M`` is a constant, so a torch result keeps the exact
    gradient."""
    xp = namespace(F)
    M = _support_max(F, c_np)
    c = like(c_np, F)
    with np.errstate(under="ignore"):
        s = xp.sum(c * (F / M) ** (q + 1.0))  # >= max_k c_k: no underflow
    if form == "root":
        return M * s ** (1.0 / (q + 1.0))
    f, k = mul_pow_parts(1.0 / (q + 1.0) if form == "weighted" else 1.0, M, q + 1.0)  # factor M^{q+1} = f 2^k
    out = times_pow2(s * f, k)
    if not math.isfinite(float(to_numpy(out))):
        raise _overflow(f"q-FFL value (form {form!r})", q)
    return out


def qffl_value(losses: Any, q: float, p: Any = None, *, form: Form = "weighted") -> Any:
    r"""The q-FFL aggregator of a client-loss vector (003 eq. 2, eq. 22, App. A.1).

    ``weighted``: ``sum_k p_k F_k^{q+1}/(q+1)`` (``p`` uniform if omitted);
    ``unweighted``: ``(1/m) sum_k F_k^{q+1}``; ``root``: ``((1/m) sum_k F_k^{q+1})^{1/(q+1)}``.

    Evaluated directly; where a power leaves the float64 range (losses beyond about ``1e154`` for
    ``q = 1``, or underflowing powers of tiny losses) it is re-evaluated with the losses divided by
    their maximum, so that every value that fits a float64 is returned (the ``root`` form always fits:
    it lies in ``[mean F, max F]``).  A value that does not fit raises :class:`FairtheoryValueError`.

    Parameters
    ----------
    losses : (m,) nonnegative vector ``F``: numpy array of any real dtype, list, tuple or torch tensor.
    q : float, ``q >= 0``.
    p : (m,) probability vector (``weighted`` only).
    form : ``"weighted"``, ``"unweighted"`` or ``"root"``.

    Returns
    -------
    Scalar of the input's library: a 0-d float64 numpy array for numpy/list input (use ``float(...)``),
    a 0-d tensor for torch input.  Torch evaluation is differentiable: a tensor with ``requires_grad``
    gives a result in its autograd graph (``.backward()`` yields ``p_k F_k^q`` for ``weighted``).
    """
    q = _check_q(q)
    form = _check_form(form)
    F = check_losses(losses)
    xp = namespace(F)
    m = int(F.shape[0])
    c_np = _weights(p, m, form)
    c = like(c_np, F)
    with np.errstate(over="ignore", under="ignore"):
        s = xp.sum(c * F ** (q + 1.0))
        if form == "weighted":
            out = s / (q + 1.0)
        elif form == "unweighted":
            out = s
        else:
            out = s ** (1.0 / (q + 1.0))
    s_f = float(to_numpy(s))
    if math.isfinite(s_f) and (s_f >= FLOAT_TINY or _support_max(F, c_np) == 0.0):
        return out
    return _qffl_value_scaled(F, c_np, q, form)


def _check_grads(grads: Any, m: int, F: Any) -> Any:
    """``grads`` as an ``(m, d)`` array of ``F``'s library, dtype and device (a torch ``F`` keeps a torch
    ``grads``' autograd graph; numpy ``F`` detaches a torch ``grads``)."""
    G = as_float(grads, "grads", ndim=2) if is_torch(F) else as_array(grads, "grads", ndim=2)
    if tuple(G.shape[:1]) != (m,):
        raise FairtheoryValueError(f"grads must have shape ({m}, d) (one gradient row per loss), got {tuple(G.shape)}")
    if is_torch(F):
        G = G.to(dtype=F.dtype, device=F.device) if is_torch(G) else like(G, F)
    return G


def qffl_grad(losses: Any, grads: Any, q: float, p: Any = None, *, form: Form = "weighted") -> Any:
    r"""Gradient of the q-FFL aggregator by the chain rule.

    With ``J`` the Jacobian (rows ``grad F_k``): ``weighted``: ``sum_k p_k F_k^q grad F_k``;
    ``unweighted``: ``((q+1)/m) sum_k F_k^q grad F_k``; ``root``: ``S^{-q/(q+1)} (1/m) sum_k F_k^q
    grad F_k`` with ``S = (1/m) sum_k F_k^{q+1}`` (for ``q > 0`` the ``root`` form is not differentiable
    at ``F = 0``; a ``FairtheoryValueError`` is raised there).

    Inputs follow :func:`qffl_value` (lists, integer arrays and torch tensors accepted; ``grads`` of
    shape ``(m, d)``); the result has the library of ``losses`` (torch: differentiable).  Powers that
    leave the float64 range are re-evaluated with ``F`` and ``J`` divided by their maxima; a gradient
    entry that does not fit a float64 raises :class:`FairtheoryValueError`.
    """
    q = _check_q(q)
    form = _check_form(form)
    F = check_losses(losses)
    m = int(F.shape[0])
    G = _check_grads(grads, m, F)
    xp = namespace(F)
    c_np = _weights(p, m, form)
    c = like(c_np, F)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        w = c * F**q
        g = xp.sum(w[:, None] * G, axis=0)
        S = xp.sum(c * F ** (q + 1.0)) if form == "root" else None
    w_np = to_numpy(w)
    underflow = (w_np < FLOAT_TINY) & (c_np > 0) & (to_numpy(F) > 0)  # c_k F_k^q lost (part of) its digits
    fine = bool(np.all(np.isfinite(w_np)) and not np.any(underflow) and np.all(np.isfinite(to_numpy(g))))
    if form == "root":
        if q > 0.0 and _support_max(F, c_np) == 0.0:
            raise FairtheoryValueError("the root form is not differentiable where every loss is 0 (S = 0)")
        S_f = float(to_numpy(S))
        fine = fine and math.isfinite(S_f) and (S_f >= FLOAT_TINY or q == 0.0)
    if fine:
        if form == "weighted":
            return g
        if form == "unweighted":
            return (q + 1.0) * g
        return g if q == 0.0 else S ** (-q / (q + 1.0)) * g
    return _qffl_grad_scaled(F, G, c_np, q, form)


def _qffl_grad_scaled(F: Any, G: Any, c_np: Array, q: float, form: str) -> Any:
    """:func:`qffl_grad` with ``F`` divided by ``M = max F`` and ``J`` by ``max |J|`` (constants)."""
    xp = namespace(F)
    M = _support_max(F, c_np)
    Gm = float(np.max(np.abs(to_numpy(G)))) if G.shape[1] else 0.0
    c = like(c_np, F)
    if Gm == 0.0 or (M == 0.0 and q > 0.0):  # J = 0, or F^q = 0 wherever c > 0: the gradient is exactly 0
        return G[0] * 0.0
    M = M if M > 0.0 else 1.0  # q = 0 and F = 0 on the support: F^0 = 1, any scale works
    eG = pow2_exponent(Gm)
    with np.errstate(under="ignore"):
        r = F / M
        gs = xp.sum((c * r**q)[:, None] * times_pow2(G, -eG), axis=0)  # |gs| <= 1
    if form == "root":
        s = xp.sum(c * r ** (q + 1.0))  # >= max c_k
        return times_pow2(s ** (-q / (q + 1.0)) * gs, eG)
    f, k = mul_pow_parts(1.0 if form == "weighted" else q + 1.0, M, q)  # factor M^q = f 2^k
    out = times_pow2(gs * f, k + eG)
    if not np.all(np.isfinite(to_numpy(out))):
        raise _overflow(f"q-FFL gradient (form {form!r})", q)
    return out


def _positive_L(L: Any, shape: tuple[int, ...]) -> Array:
    if np.ndim(L) == 0 and not is_torch(L):
        if isinstance(L, (bool, np.bool_)):
            raise FairtheoryTypeError(f"L must be a real number or an array of them, got {L!r}")
        L_arr = np.full(shape, check_in_range(L, "L", low=0.0, low_inclusive=False))
    else:
        L_arr = as_array(L, "L", ndim=(0, 1))
        if L_arr.ndim == 1 and L_arr.shape != shape:
            raise FairtheoryValueError(f"L must be a scalar or have shape {shape}, got {L_arr.shape}")
        L_arr = np.broadcast_to(L_arr, shape)
        if np.any(L_arr <= 0):
            raise FairtheoryValueError(f"L must be > 0, got {L_arr.min()!r}")
    return L_arr


def _powered_terms(coef: Array, f: Array, expo: float, other: Array) -> Array:
    """``coef f^expo other`` entrywise (all finite, ``f, other >= 0``); direct, with the entries whose
    direct evaluation overflowed or underflowed recomputed from exact power-of-two splits."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        out = coef * f**expo * other
    bad = ~np.isfinite(out) | ((out < FLOAT_TINY) & (coef != 0) & (f > 0) & (other != 0))
    for i in np.flatnonzero(bad):
        mo, eo = math.frexp(float(other[i]))
        fp, kp = mul_pow_parts(float(coef[i]) * mo, float(f[i]), expo)
        try:
            out[i] = math.ldexp(fp, kp + eo) if math.isfinite(fp) else fp
        except OverflowError:
            out[i] = math.inf
    return out


def lipschitz_estimate(losses: Any, grad_sq_norms: Any, L: float | Any, q: float) -> Array:
    r"""003 Lemma 12: ``L_q = L F^q + q F^{q-1} ||grad F||^2`` (vectorised over clients).

    Parameters
    ----------
    losses : (m,) nonnegative values ``F_k(w)`` (array-like or torch; converted to float64 numpy).
    grad_sq_norms : (m,) values ``||grad F_k(w)||^2 >= 0``.
    L : smoothness constant(s) of the ``F_k`` (scalar or (m,)), ``> 0``.
    q : ``q >= 0``.

    Returns
    -------
    (m,) float64 numpy array of upper bounds on ``||Hess(F_k^{q+1}/(q+1))(w)||_2`` (not differentiable:
    torch inputs are detached).  Powers are evaluated without intermediate overflow; an entry whose
    value does not fit a float64 raises :class:`FairtheoryValueError`.

    Notes
    -----
    Where ``F_k = 0``: for ``q = 0`` the value is ``L``; for ``q > 0`` the second term is defined as
    its limit ``0`` (valid because ``||grad F||^2 <= 2 L F`` for nonnegative smooth ``F``); a point with
    ``F_k = 0`` but ``||grad F_k|| > 0`` raises (see module docstring).
    """
    q = _check_q(q)
    f = to_numpy(check_losses(losses)).astype(np.float64)
    g2 = as_array(grad_sq_norms, "grad_sq_norms", ndim=1)
    if g2.shape != f.shape:
        raise FairtheoryValueError(f"grad_sq_norms must have shape {f.shape}, got {g2.shape}")
    if np.any(g2 < 0):
        raise FairtheoryValueError(f"grad_sq_norms must be >= 0, got {g2.min()!r}")
    L_arr = _positive_L(L, f.shape)
    if q == 0.0:
        return np.array(L_arr, dtype=np.float64)
    zero = f == 0.0
    if np.any(zero & (g2 > 0)):
        bad = int(np.flatnonzero(zero & (g2 > 0))[0])
        raise FairtheoryValueError(
            f"losses[{bad}] = 0 with grad_sq_norms[{bad}] = {g2[bad]!r} > 0: a nonnegative smooth loss "
            "has zero gradient where it vanishes"
        )
    fs = np.where(zero, 1.0, f)
    with np.errstate(over="ignore", under="ignore"):
        direct = L_arr * f**q + np.where(zero, 0.0, q * fs ** (q - 1.0) * g2)
    if np.all(np.isfinite(direct)) and np.all((direct >= FLOAT_TINY) | (f == 0.0)):
        return direct
    first = _powered_terms(np.array(L_arr, dtype=np.float64), f, q, np.ones_like(f))
    second = np.where(zero, 0.0, _powered_terms(np.full(f.shape, q), fs, q - 1.0, g2))
    with np.errstate(over="ignore"):
        out = first + second
    if not np.all(np.isfinite(out)):
        raise _overflow("Lemma 12 estimate", q)
    return out


def _split(x: Array) -> tuple[Array, int]:
    """``x = xs 2^e`` with ``max |xs|`` in ``[0.5, 1)`` (exact)."""
    m = float(np.max(np.abs(x))) if x.size else 0.0
    e = pow2_exponent(m) if m > 0 else 0
    return np.ldexp(x, -e), e


def hessian_powered(loss: Any, grad: Any, hess: Any, q: float) -> Array:
    r"""Exact Hessian of ``F^{q+1}/(q+1)``: ``q F^{q-1} g g^T + F^q H`` (003 eq. 28), batched.

    ``loss`` (m,) (or a scalar), ``grad`` (m, d) (any array with ``m d`` entries), ``hess`` (m, d, d)
    (any array with ``m d^2`` entries); array-likes or torch tensors, converted to float64 numpy (not
    differentiable).  ``F = 0`` handled as in :func:`lipschitz_estimate` (first term ``0`` when
    ``g = 0``).  Powers are evaluated without intermediate overflow; an entry that does not fit a
    float64 raises :class:`FairtheoryValueError`."""
    q = _check_q(q)
    f = to_numpy(check_losses(np.atleast_1d(as_array(loss, "loss")))).astype(np.float64)
    m = f.shape[0]
    g_raw = as_array(grad, "grad")
    if g_raw.size % m or g_raw.size == 0:
        raise FairtheoryValueError(f"grad must hold m * d entries (m = {m} rows of d), got shape {g_raw.shape}")
    g = g_raw.reshape(m, -1)
    d = g.shape[1]
    H_raw = as_array(hess, "hess")
    if H_raw.size != m * d * d:
        raise FairtheoryValueError(f"hess must have shape ({m}, {d}, {d}), got shape {H_raw.shape}")
    H = H_raw.reshape(m, d, d)
    if q == 0.0:
        return H.copy()
    fs = np.where(f == 0.0, 1.0, f)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        coef = np.where(f == 0.0, 0.0, q * fs ** (q - 1.0))
        b = f**q
        out = coef[:, None, None] * np.einsum("ni,nj->nij", g, g) + b[:, None, None] * H
    pos = f > 0
    good = (np.all(np.isfinite(out)) and np.all(np.isfinite(coef)) and np.all(np.isfinite(b))
            and np.all((coef[pos] >= FLOAT_TINY) & (b[pos] >= FLOAT_TINY)))
    if good:
        return out
    for k in np.flatnonzero(pos):  # scaled per client: (q F^{q-1}) (g g^T) + F^q H at a common exponent
        gs, eg = _split(g[k])
        Hs, eH = _split(H[k])
        f1, k1 = mul_pow_parts(q, f[k], q - 1.0)
        f2, k2 = mul_pow_parts(1.0, f[k], q)
        e1, e2 = k1 + 2 * eg, k2 + eH
        K = max(e1, e2)
        with np.errstate(under="ignore"):
            inner = np.ldexp(f1 * np.outer(gs, gs), e1 - K) + np.ldexp(f2 * Hs, e2 - K)
        out[k] = times_pow2(inner, K)
    if not np.all(np.isfinite(out)):
        raise _overflow("Hessian of F^(q+1)/(q+1)", q)
    return out


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
