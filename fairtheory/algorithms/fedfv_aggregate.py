r"""FedFV server aggregation (004 Alg. 1 lines 5-10, Alg. 2, Alg. 3) on one Gram matrix.

Internal conflicts (004 Alg. 2).  The ``m`` received updates ``U = [g_1; ...; g_m]`` (``m x d``) are
ordered by training loss ascending (``PO_t``; the largest loss is the *last* projection target, the
one favoured most).  The ``n_keep`` clients with the largest losses keep their updates; every other
client ``k`` walks through ``PO_t`` and, for each target ``g_j`` (an *original* update, ``j != k``)
with ``g_k^{PC} . g_j < 0``, replaces

.. math:: g_k^{PC} \leftarrow g_k^{PC} - \frac{g_k^{PC}\cdot g_j}{\|g_j\|^2}\, g_j .

The result is ``g = (1/m) sum_k g_k^{PC}`` (mean over all ``m`` clients).

Gram-matrix formulation.  Every projected update is a linear combination of the originals,
``g_k^{PC} = sum_l C_{kl} g_l``, so with ``G = U U^T`` every dot product is
``g_k^{PC} . g_j = (C G)_{kj}`` and projecting onto ``g_j``'s normal plane only changes column ``j``
of ``C``: ``C_{kj} -= (C G)_{kj} / G_{jj}``.  All clients take their ``s``-th projection at once
(each walks the same ``PO_t``, skipping itself), so the loop runs over the ``m`` target positions,
never over client pairs; the cost is ``O(m^2 d)`` for ``G``, ``O(m^3/2)`` for the walk and one
``O(m d)`` product ``g = ((1/m) 1^T C) U``.

Counting rules for the unprojected clients (``alpha`` in ``[0, 1]``):

* ``"paper"`` (default; 004 Sec. 3.2/3.4 text): ``n_keep = round(alpha m)`` (round half up), so
  ``alpha = 1`` is FedAvg and ``alpha = 0`` projects every client.  (Alg. 2's loop variable reads
  the other way round; the text of Sec. 3.2/3.4 is followed.)
* ``"reference"`` (the authors' ``flgo`` code): ``n_keep = m - ceil((m - 1)(1 - alpha))`` when
  ``alpha > 0`` (so at least one client is kept), ``0`` when ``alpha = 0``.

Both are evaluated in exact arithmetic up to ``1e-12`` (so ``alpha = 1/3`` behaves as one third).

External conflicts (004 Alg. 3), only when ``t >= tau``: for each round ``r`` of a window, oldest
first, ``g_con`` is the sum of the history updates recorded in round ``r`` that conflict with ``g``;
if ``g . g_con < 0``, ``g`` is projected onto ``g_con``'s normal plane.  Windows:

* ``"paper"`` (default; Alg. 3): rounds ``t - tau, ..., t - 1``;
* ``"reference"`` (``flgo``): rounds ``t - tau + 1, ..., t`` (includes the current round's clients,
  whose history entries are the updates just received, and skips round ``t - tau``).

Finally (Alg. 1 line 10) ``g <- g / ||g|| * ||(1/m) sum_k g_k||``; when ``||g|| = 0`` (up to
rounding: :data:`ZERO_RTOL` relative to the largest update) the result is the zero vector (the
model does not move).  Zero-norm targets never conflict (their dot products
are exactly 0) and are skipped.

Everything is written against the array API: numpy arrays or torch tensors (any device), float64
recommended.  :func:`aggregate_loop` is a deliberately straightforward per-vector numpy
implementation of the same rules, used as an independent oracle in tests and benchmarks.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError, as_vector, check_in_range, check_integer
from fairtheory.backend import is_torch, like, namespace, to_numpy
from fairtheory.errors import NonFiniteError

__all__ = [
    "n_unprojected",
    "projection_order",
    "projection_coefficients",
    "internal_projection",
    "external_projection",
    "rescale",
    "aggregate",
    "aggregate_loop",
]

Order = Literal["ascending", "random", "reversed"]
KeepRule = Literal["paper", "reference"]
Window = Literal["paper", "reference"]

_EXACT = 1e-12  # slack for evaluating the counting rules "exactly" (alpha = 1/3 is one third)


# ----------------------------------------------------------------------------------- small helpers
def n_unprojected(m: int, alpha: float, rule: KeepRule = "paper") -> int:
    r"""Number of largest-loss clients that keep their original update (004 Sec. 3.2/3.4).

    ``rule="paper"``: ``round(alpha m)`` rounded half up; ``rule="reference"`` (flgo):
    ``m - ceil((m - 1)(1 - alpha))`` for ``alpha > 0`` and ``0`` for ``alpha = 0``.
    """
    m = check_integer(m, "m", low=1)
    alpha = check_in_range(alpha, "alpha", low=0.0, high=1.0)
    if rule == "paper":
        return int(min(m, math.floor(alpha * m + 0.5 + _EXACT)))
    if rule == "reference":
        if alpha == 0.0:
            return 0
        return int(m - math.ceil((m - 1) * (1.0 - alpha) - _EXACT))
    raise FairtheoryValueError(f"keep_rule must be 'paper' or 'reference', got {rule!r}")


def _losses_numpy(losses: Any, m: int) -> np.ndarray:
    arr = as_vector(losses, "losses", allow_empty=True)
    if arr.shape != (m,):
        raise FairtheoryValueError(f"losses must have shape ({m},) (one per update), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise NonFiniteError(f"losses must be finite, got {arr!r}")
    return arr


def projection_order(losses: Any, order: Order | Any = "ascending",
                     rng: np.random.Generator | None = None) -> np.ndarray:
    """The target order ``PO_t`` as indices into the updates (004 Alg. 1 line 5).

    ``"ascending"``: losses ascending (stable sort: ties keep their index order), the paper's rule;
    ``"reversed"``: losses descending (the reverse of the paper's order, 004 Table 4);
    ``"random"``: a uniformly random permutation drawn from ``rng``;
    an integer permutation of ``range(m)``: used as given.
    """
    if np.ndim(losses) != 1 or np.size(losses) == 0:
        raise FairtheoryValueError(f"losses must be a non-empty 1-D array, got shape {np.shape(losses)}")
    loss = as_vector(losses, "losses")
    m = loss.size
    if isinstance(order, str):
        if order == "ascending":
            return np.argsort(loss, kind="stable")
        if order == "reversed":
            return np.argsort(loss, kind="stable")[::-1].copy()
        if order == "random":
            if rng is None:
                raise FairtheoryValueError("order='random' needs rng (a numpy Generator), got None")
            return rng.permutation(m)
        raise FairtheoryValueError(
            f"order must be 'ascending', 'random', 'reversed' or a permutation, got {order!r}")
    perm = np.asarray(to_numpy(order))
    if perm.shape != (m,) or not np.array_equal(np.sort(perm), np.arange(m)):
        raise FairtheoryValueError(f"order must be a permutation of range({m}), got {perm!r}")
    return perm.astype(np.int64)


def _as_array(x: Any, name: str) -> Any:
    """``x`` under the input policy of the problems (:func:`fairtheory.problems.base.as_float_array`):
    lists and integer arrays become float64, numpy/torch floating arrays keep their dtype and device,
    booleans, strings, ragged nesting and nan/inf are refused naming ``name``."""
    from fairtheory.problems.base import as_float_array

    if isinstance(x, (str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{name} must be an array of real numbers, got {type(x).__name__}")
    try:
        shape = tuple(x.shape) if hasattr(x, "shape") else np.shape(x)
    except ValueError as exc:  # ragged nested lists
        raise FairtheoryTypeError(f"{name} must be an array of real numbers, got ragged nesting") from exc
    return as_float_array(x, name, shape)


def _check_updates(U: Any) -> tuple[Any, int, int]:
    xp = namespace(U)
    if len(U.shape) != 2 or U.shape[0] == 0 or U.shape[1] == 0:
        raise FairtheoryValueError(
            f"U must be a non-empty 2-D array (m updates x d), got shape {tuple(U.shape)}")
    return xp, int(U.shape[0]), int(U.shape[1])


#: entries beyond this range (in magnitude) are rescaled before the Gram matrix: its squares would
#: overflow (or underflow to 0, turning every update into a "zero-norm" one) although the result fits
_SAFE = (1e-100, 1e100)


def _extreme_scale(U: Any) -> float | None:
    """``max |U|`` when it lies outside :data:`_SAFE` (and is > 0), else ``None`` (no rescaling)."""
    xp = namespace(U)
    s = float(to_numpy(xp.max(xp.abs(U))))
    return s if (0.0 < s < _SAFE[0] or s > _SAFE[1]) else None


def _gram(U: Any) -> Any:
    """``G = U U^T``, checked: a non-finite entry of ``U`` (or an overflow) shows on ``diag G``."""
    xp = namespace(U)
    G = U @ U.T  # (U.mT defeats numpy's BLAS dispatch: 20x slower)
    if not bool(xp.all(xp.isfinite(xp.linalg.diagonal(G)))):
        raise NonFiniteError("U must be finite (and ||g_k||^2 must not overflow float)")
    return G


# ----------------------------------------------------------------------------- internal conflicts
def projection_coefficients(G: Any, order: Any, project: Any = None, *, conditional: bool = True,
                            return_all: bool = False) -> Any:
    r"""Coefficients ``C`` with ``g_k^{PC} = sum_l C_{kl} g_l`` after the sequential projections.

    Parameters
    ----------
    G : (m, m) Gram matrix ``U U^T`` (numpy or torch).
    order : the target order (integer indices, e.g. from :func:`projection_order`).
    project : (m,) booleans, which clients are projected (default: all).
    conditional : project only on conflict (``g_k^{PC} . g_j < 0``; FedFV, 004 Alg. 2 line 5).
        ``False`` projects at every step (the update rule of 004 App. A.1).
    return_all : also return every intermediate matrix: ``(m + 1, m, m)`` stack ``C^{(s)}``,
        ``s = 0..m`` target positions done (``C^{(0)} = I``).

    Returns
    -------
    ``C`` (m, m) in the namespace of ``G``, or the stack when ``return_all``.
    """
    xp = namespace(G)
    m = int(G.shape[0])
    if tuple(G.shape) != (m, m):
        raise FairtheoryValueError(f"G must be square (m, m), got shape {tuple(G.shape)}")
    perm = np.asarray(to_numpy(order), dtype=np.int64)
    if perm.shape != (m,) or not np.array_equal(np.sort(perm), np.arange(m)):
        raise FairtheoryValueError(f"order must be a permutation of range({m}), got {perm!r}")
    proj_np = np.ones(m, dtype=bool) if project is None else np.asarray(to_numpy(project), dtype=bool)
    if proj_np.shape != (m,):
        raise FairtheoryValueError(f"project must have shape ({m},), got {proj_np.shape}")
    # work in target-position coordinates: position s <-> client perm[s]
    perm_x = _index(perm, G)
    Gp = xp.take(xp.take(G, perm_x, axis=0), perm_x, axis=1)
    diag = to_numpy(xp.linalg.diagonal(Gp))
    N = xp.zeros((m, m), dtype=G.dtype, **_device_kw(G))  # C_p = I + N, N non-zero in done columns only
    mask_base = like(proj_np[perm].astype(np.float64), G)
    stack = [xp.asarray(N, copy=True)] if return_all else None
    for s in range(m):
        if diag[s] > 0.0:
            # dots_k = g_k^{PC} . g_s = G_ks + sum_{r<s} N_kr G_rs
            dots = Gp[:, s] + (N[:, :s] @ Gp[:s, s] if s else 0.0)
            act = mask_base if not conditional else mask_base * (dots < 0)
            coef = -(dots / diag[s]) * act
            coef[s] = 0.0  # a client is never projected onto its own update
            N[:, s] = coef
        if return_all:
            stack.append(xp.asarray(N, copy=True))
    inv_x = _index(np.argsort(perm), G)
    eye = xp.eye(m, dtype=G.dtype, **_device_kw(G))
    if return_all:
        return xp.stack([eye + xp.take(xp.take(S, inv_x, axis=0), inv_x, axis=1) for S in stack])
    return eye + xp.take(xp.take(N, inv_x, axis=0), inv_x, axis=1)


def _index(idx: np.ndarray, ref: Any) -> Any:
    """Integer indices ``idx`` as an index array of ``ref``'s library and device."""
    if not is_torch(ref):  # numpy, or a symbolic (PEP) array, which takes numpy indices
        return np.asarray(idx, dtype=np.int64)
    import torch

    return torch.as_tensor(np.asarray(idx, dtype=np.int64), device=ref.device)


def _device_kw(x: Any) -> dict[str, Any]:
    return {} if isinstance(x, np.ndarray) else {"device": x.device}


def internal_projection(U: Any, losses: Any, *, alpha: float = 0.0, order: Order | Any = "ascending",
                        keep_rule: KeepRule = "paper", rng: np.random.Generator | None = None,
                        G: Any = None) -> tuple[Any, Any]:
    """004 Alg. 2: the mean of the projected updates and the coefficient matrix ``C``.

    Returns ``(g, C)`` with ``g = (1/m) 1^T C U`` (shape ``(d,)``) and ``g_k^{PC} = (C U)_k``.
    The unprojected clients are the ``n_unprojected(m, alpha, keep_rule)`` largest losses (whatever
    the target order).  ``G`` may pass a precomputed ``U U^T``.
    """
    U = _as_array(U, "U")
    xp, m, _ = _check_updates(U)
    loss = _losses_numpy(losses, m)
    s = _extreme_scale(U) if G is None else None
    if s is not None:  # g is homogeneous of degree 1 in U, C of degree 0
        g, C = internal_projection(U / s, loss, alpha=alpha, order=order, keep_rule=keep_rule, rng=rng)
        return g * s, C
    perm = projection_order(loss, order, rng)
    n_keep = n_unprojected(m, alpha, keep_rule)
    project = np.ones(m, dtype=bool)
    if n_keep:
        project[np.argsort(loss, kind="stable")[m - n_keep:]] = False
    if G is None:
        G = _gram(U)
    C = projection_coefficients(G, perm, project)
    weights = xp.sum(C, axis=0) / m
    return weights @ U, C


# ----------------------------------------------------------------------------- external conflicts
def _window(t: int, tau: int, window: Window) -> list[int]:
    if window == "paper":
        rounds = [t - i for i in range(tau, 0, -1)]
    elif window == "reference":
        rounds = [t - k for k in range(tau - 1, -1, -1)]
    else:
        raise FairtheoryValueError(f"window must be 'paper' or 'reference', got {window!r}")
    return [r for r in rounds if r >= 0]


def external_projection(g: Any, history: Any, history_round: Any, *, t: int, tau: int,
                        window: Window = "paper") -> Any:
    r"""004 Alg. 3: project ``g`` away from the summed conflicting history of each round.

    ``history`` (K, d): latest update of each of the ``K`` clients; ``history_round`` (K,) integers:
    the round it came from (``-1``: never sampled).  Applied only when ``t >= tau``; rounds of the
    window (see module doc) oldest first.  ``g_con = sum_{k: t_k = r, g . h_k < 0} h_k``; if
    ``g . g_con < 0``: ``g <- g - (g . g_con / ||g_con||^2) g_con``.
    """
    t = check_integer(t, "t", low=0)
    tau = check_integer(tau, "tau", low=0)
    if t < tau or tau == 0:
        return g
    xp = namespace(g, history)
    rounds_np = np.asarray(to_numpy(history_round)).astype(np.int64)
    if rounds_np.shape != (int(history.shape[0]),):
        raise FairtheoryValueError(
            f"history_round must have shape ({int(history.shape[0])},), got {rounds_np.shape}")
    for r in _window(t, tau, window):
        in_round = like((rounds_np == r).astype(np.float64), g)
        dots = history @ g
        w = in_round * (dots < 0)
        gcon = w @ history
        d = xp.sum(g * gcon)
        nrm2 = xp.sum(gcon * gcon)
        if bool(d < 0) and bool(nrm2 > 0):
            g = g - (d / nrm2) * gcon
    return g


#: ``||g||`` at or below ``ZERO_RTOL * max_k ||g_k||`` counts as zero before rescaling: such a ``g``
#: is floating-point residue of projections that cancel exactly (e.g. every update on one line),
#: and rescaling it to the mean norm would turn rounding noise into a full-size step.
ZERO_RTOL = 64 * float(np.finfo(np.float64).eps)


def rescale(g: Any, U: Any, *, G: Any = None) -> Any:
    """004 Alg. 1 line 10: ``g / ||g|| * ||mean_k g_k||``.

    Zero-norm guard: returns the zero vector when ``||g|| <= ZERO_RTOL * max_k ||g_k||`` (the
    projections cancelled; the model does not move).  With the Gram matrix ``G = U U^T`` the two
    norms of ``U`` come from it (``||mean||^2 = 1^T G 1 / m^2``, ``||g_k||^2 = G_kk``)."""
    g = _as_array(g, "g")
    if G is None:
        U = _as_array(U, "U")
        sU, sg = _extreme_scale(U), _extreme_scale(g)
        if sU is not None or sg is not None:  # degree 1 in U, degree 0 in g
            return rescale(g / (sg or 1.0), U / (sU or 1.0)) * (sU or 1.0)
    xp = namespace(g, U)
    if G is None:
        target = xp.linalg.vector_norm(xp.mean(U, axis=0))
        scale = xp.max(xp.linalg.vector_norm(U, axis=1))
    else:
        m = int(G.shape[0])
        target = xp.sqrt(xp.clip(xp.sum(G), min=0.0)) / m
        scale = xp.sqrt(xp.max(xp.linalg.diagonal(G)))
    gn = xp.linalg.vector_norm(g)
    if not bool(gn > ZERO_RTOL * scale) or not bool(gn > 0):
        return xp.zeros_like(g)
    return g * (target / gn)


def aggregate(U: Any, losses: Any, *, alpha: float = 0.0, tau: int = 0, t: int = 0,
              history: Any = None, history_round: Any = None, order: Order | Any = "ascending",
              keep_rule: KeepRule = "paper", window: Window = "paper",
              rng: np.random.Generator | None = None, do_rescale: bool = True) -> Any:
    """The FedFV server direction (004 Alg. 1 lines 5-10): internal projection, external
    projection (when ``history`` is given and ``t >= tau``), rescaling to the mean norm.

    The model update is ``theta <- theta - aggregate(...)``.  Updates of magnitude beyond
    ``1e100`` or below ``1e-100`` are aggregated as ``s * aggregate(U / s)`` (the direction is
    homogeneous of degree 1 in ``U``), so the result is not lost to overflow or underflow.
    """
    U = _as_array(U, "U")
    _check_updates(U)
    if history is not None:
        history = _as_array(history, "history")
        sh = _extreme_scale(history)
        if sh is not None:  # the external projection is homogeneous of degree 0 in the history
            history = history / sh
    s = _extreme_scale(U)
    if s is not None:
        return s * aggregate(U / s, losses, alpha=alpha, tau=tau, t=t, history=history, history_round=history_round,
                             order=order, keep_rule=keep_rule, window=window, rng=rng, do_rescale=do_rescale)
    G = _gram(U)
    g, _ = internal_projection(U, losses, alpha=alpha, order=order, keep_rule=keep_rule, rng=rng, G=G)
    if history is not None and tau > 0:
        if history_round is None:
            raise FairtheoryValueError("history_round must be given with history")
        g = external_projection(g, history, history_round, t=t, tau=tau, window=window)
    return rescale(g, U, G=G) if do_rescale else g


# ----------------------------------------------------------------------------- straightforward oracle
def aggregate_loop(U: Any, losses: Any, *, alpha: float = 0.0, tau: int = 0, t: int = 0,
                   history: Any = None, history_round: Any = None, order: Order | Any = "ascending",
                   keep_rule: KeepRule = "paper", window: Window = "paper",
                   rng: np.random.Generator | None = None, do_rescale: bool = True) -> np.ndarray:
    """Straightforward per-vector numpy implementation of 004 Alg. 1-3 (independent oracle).

    Projects each client's own vector target by target exactly as written in Alg. 2 (a double
    Python loop), then Alg. 3 with explicit per-client conflict tests and the rescaling.  Slow by
    design; used to test :func:`aggregate` and to benchmark it.
    """
    Un = np.asarray(to_numpy(U), dtype=np.float64)
    m = Un.shape[0]
    loss = _losses_numpy(losses, m)
    perm = projection_order(loss, order, rng)
    n_keep = n_unprojected(m, alpha, keep_rule)
    kept = set(np.argsort(loss, kind="stable")[m - n_keep:].tolist()) if n_keep else set()
    projected = []
    for k in range(m):
        v = Un[k].copy()
        if k not in kept:
            for j in perm:
                if j == k:
                    continue
                d, n2 = float(v @ Un[j]), float(Un[j] @ Un[j])
                if d < 0 and n2 > 0:  # zero-norm targets are skipped (same guard as the Gram route)
                    v = v - d / n2 * Un[j]
        projected.append(v)
    g = np.mean(projected, axis=0)
    if history is not None and tau > 0 and t >= tau:
        H = np.asarray(to_numpy(history), dtype=np.float64)
        hr = np.asarray(to_numpy(history_round)).astype(np.int64)
        for r in _window(t, tau, window):
            gcon = np.zeros_like(g)
            for k in range(H.shape[0]):
                if hr[k] == r and float(g @ H[k]) < 0:
                    gcon = gcon + H[k]
            d, n2 = float(g @ gcon), float(gcon @ gcon)
            if d < 0 and n2 > 0:
                g = g - d / n2 * gcon
    if not do_rescale:
        return g
    gn = float(np.linalg.norm(g))
    if gn == 0.0 or gn <= ZERO_RTOL * max(float(np.linalg.norm(u)) for u in Un):
        return np.zeros_like(g)
    return g / gn * float(np.linalg.norm(Un.mean(axis=0)))
