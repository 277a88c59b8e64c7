r"""What the peers are compared with, and how: fairtheory's answers in each peer's conventions, the few
independent references that check them, and the audit's one comparator, :func:`vec_equal`.

References (fairtheory's own functions, the peer's conventions mapped):

* superquantile and its L2 smoothing: the support of and projection onto the capped simplex
  (:class:`fairtheory.sets.CappedSimplex`; exact routes :func:`fairtheory.exact.capped.support_lp`,
  :func:`~fairtheory.exact.capped.project_qp`);
* q-FedAvg's server step from :class:`fairtheory.aggregators.QFFL`; AFL's step with
  :meth:`CappedSimplex.project`; FedFV's direction from :func:`fairtheory.algorithms.fedfv_aggregate.aggregate`
  (its per-vector oracle :func:`~fairtheory.algorithms.fedfv_aggregate.aggregate_loop` checks it);
  FedMGDA+'s direction from :func:`fairtheory.algorithms.fedmgda.aggregate`.

Two independent definitions are kept here on purpose, because each is the second route that a fairtheory
answer is checked against before a peer is compared with it (:func:`check_reference` raises when they
disagree: then our reference, not the peer, is wrong), and fairtheory has no such twin:

* :func:`qffl_direct`: q-FedAvg's step written per device as in 003 Alg. 2, not through the aggregator;
* :func:`fedmgda_direction` with ``exact=True``: the min-norm QP over the FedMGDA+ box as a cvxpy problem
  in ``R^d`` (fairtheory's twin :func:`fairtheory.exact.pareto.min_norm_point_qp` covers the simplex only).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from verify.claims.peers.support import attempt, err, lst, note
from verify.core import Context, Outcome, Tally, combine

__all__ = ["vec_equal", "check_reference", "combine_parts", "tail_set", "superquantile", "superquantile_smooth",
           "smooth_weights", "projection_qp", "check_projection", "exact_grad_error", "qffl_update", "qffl_direct", "qffl_check",
           "local_sgd", "qffl_mse_round", "afl_update", "fedfv_direction", "fedmgda_direction",
           "FEDMGDA_VALUE_TOL", "FEDMGDA_DIRECTION_TOL", "fedmgda_compare"]


# ============================================================================ the comparator
def vec_equal(tally: Tally, peer: Any, ours: Any, *, rtol: float, instance: dict[str, Any], size: float,
              floor: float | None = None) -> bool:
    """The one comparator of the peer audit (every ``peers.*`` claim records its peer-vs-reference
    comparisons of values with it).

    Records one :meth:`Tally.equal` instance of the peer's array against ours and returns whether it held:

    * the peer raised (``peer`` is the exception): ``nan`` - a disagreement, the error in ``peer_error``;
    * the peer's value is not an array of real numbers, or its **shape differs** from ours (no
      flattening, no broadcasting: ``[1, 2, 99]`` against ``[1, 2]`` is a disagreement): ``nan``, the shapes
      in ``peer_shape`` / ``our_shape``;
    * a non-finite peer entry: that entry (never equal);
    * otherwise the component of largest deviation, relative to ``max |ours|`` (or ``floor`` when larger).
    """
    o = np.asarray(ours, dtype=np.float64)
    scale = max(float(np.max(np.abs(o))) if o.size and np.all(np.isfinite(o)) else 0.0, floor or 0.0,
                np.finfo(float).tiny)
    first = float(o.flat[0]) if o.size else 0.0

    def disagree(**why: Any) -> bool:
        return tally.equal(math.nan, first, rtol=rtol, scale=scale, instance={**instance, **why}, size=size)

    if isinstance(peer, BaseException):
        return disagree(peer_error=err(peer))
    try:
        p = np.asarray(peer, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        return disagree(peer_error=f"not an array of real numbers: {err(exc)}")
    if p.shape != o.shape:
        return disagree(peer_shape=list(p.shape), our_shape=list(o.shape))
    if p.size == 0:
        return tally.equal(0.0, 0.0, rtol=rtol, scale=scale, instance=instance, size=size)
    pf, of = p.ravel(), o.ravel()
    bad = ~np.isfinite(pf)
    j = int(np.flatnonzero(bad)[0]) if bad.any() else int(np.argmax(np.abs(pf - of)))
    return tally.equal(float(pf[j]), float(of[j]), rtol=rtol, scale=scale, instance=instance, size=size)


def check_reference(name: str, a: np.ndarray | float, b: np.ndarray | float, tol: float, instance: Any) -> float:
    """fairtheory vs the independent definition: must agree (else our reference is wrong: raise).
    Returns the deviation, relative to ``max(1, max |b|)``."""
    a_, b_ = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a_.shape != b_.shape:
        raise AssertionError(f"{name}: fairtheory's shape {a_.shape} and the independent definition's {b_.shape} differ "
                             f"on {instance}")
    dev = float(np.max(np.abs(a_ - b_))) / max(1.0, float(np.max(np.abs(b_))))
    if not dev <= tol:
        raise AssertionError(f"{name}: fairtheory and the independent definition differ by {dev:.3e} on {instance}")
    return dev


def combine_parts(parts: Mapping[str, Tally | Outcome], note: str, explain: str | Mapping[str, str] = "",
                  details: Mapping[str, Any] | None = None) -> Outcome:
    """:func:`verify.core.combine` of the parts (a tally's outcome explained by ``explain``, one text or one per
    part), each part's counterexample in ``details["counterexamples"]``, then ``details`` added."""
    def outcome(k: str, t: Tally | Outcome) -> Outcome:
        return t if isinstance(t, Outcome) else t.outcome(explain=explain if isinstance(explain, str) else explain[k])

    outs = {k: outcome(k, t) for k, t in parts.items()}
    out = combine(outs, note=note)
    out.details["counterexamples"] = {k: o.counterexample for k, o in outs.items() if o.counterexample}
    out.details.update(details or {})
    return out


# ============================================================================ superquantiles (SQwash)
def tail_set(n: int, theta: float) -> Any:
    """The capped simplex of the superquantile at tail fraction ``theta``: caps ``1/(theta n)``
    (:meth:`CappedSimplex.cvar`); ``theta = 0``: the simplex."""
    from fairtheory.sets import CappedSimplex

    return CappedSimplex.cvar(n, theta) if theta > 0 else CappedSimplex.simplex(n)


def superquantile(x: Any, theta: float, *, exact: bool = False) -> float:
    r"""Superquantile (CVaR) of the empirical distribution of ``x`` at tail fraction ``theta``:
    ``max {q . x : 0 <= q_i <= 1/(theta n), sum q = 1}`` (``theta = 0``: ``max x``), via
    :meth:`fairtheory.sets.CappedSimplex.support` (``exact=True``: the HiGHS LP)."""
    from fairtheory.exact.capped import support_lp

    v = np.asarray(x, dtype=np.float64)
    S = tail_set(v.size, theta)
    return float(support_lp(S, v).value) if exact else S.support(v)


def smooth_weights(x: Any, theta: float, nu: float) -> np.ndarray:
    """The maximiser ``q* = Proj_C(1/n + n x/nu)`` of the smoothed superquantile (closed-form projection,
    :meth:`fairtheory.sets.CappedSimplex.project`)."""
    v = np.asarray(x, dtype=np.float64)
    return tail_set(v.size, theta).project(1.0 / v.size + v.size * v / nu)


def projection_qp(S: Any, v: Any) -> tuple[np.ndarray, float]:
    """The certified Clarabel projection QP of ``v`` onto ``S`` (:func:`fairtheory.exact.capped.project_qp`)
    and its accuracy radius ``sqrt(2 gap)`` (1-strong convexity: the exact projection lies within it)."""
    from fairtheory.exact.capped import project_qp

    qp = project_qp(S, np.asarray(v, dtype=np.float64))
    return qp.weights, float(np.sqrt(2.0 * max(qp.certificate["gap"], 0.0)))


def check_projection(name: str, ours: Any, S: Any, v: Any, instance: Any) -> float:
    """A closed-form projection ``ours`` of ``v`` onto ``S`` against the certified QP's
    (:func:`projection_qp`): it must lie within the QP's radius (``1e-9`` for the rounding of the gap
    itself), else our reference is wrong: raise.  Returns the distance."""
    qp, radius = projection_qp(S, v)
    dist = float(np.linalg.norm(np.asarray(ours, dtype=np.float64) - qp))
    if not dist <= radius + 1e-9:
        raise AssertionError(f"{name}: closed-form projection {dist:.3e} from the QP's, beyond its certified radius "
                             f"{radius:.3e} on {instance}")
    return dist


def superquantile_smooth(x: Any, theta: float, nu: float, *, exact: bool = False) -> float:
    r"""L2-smoothed superquantile ``max_{q in C} q . x - nu/(2n) ||q - 1/n||^2`` over the capped simplex
    ``C`` (caps ``1/(theta n)``): ``q* = Proj_C(1/n + n x / nu)`` (:func:`smooth_weights`; ``exact=True``
    uses the certified Clarabel projection QP instead)."""
    v = np.asarray(x, dtype=np.float64)
    n = v.size
    q = projection_qp(tail_set(n, theta), 1.0 / n + n * v / nu)[0] if exact else smooth_weights(v, theta, nu)
    return float(q @ v - nu / (2 * n) * np.sum((q - 1.0 / n) ** 2))


def exact_grad_error(x: Any, theta: float, g: Any) -> float:
    r"""How far ``g`` is from being a gradient (a subgradient) of the superquantile at ``x``: the subdifferential
    is the set of maximisers ``argmax_{q in C} q . x`` over the capped simplex ``C``, so the error is the
    larger of ``g``'s infeasibility in ``C`` and ``(SQ(x) - g . x)/max(1, max|x|)`` (``0`` iff ``g`` is one)."""
    v = np.asarray(x, dtype=np.float64)
    q = np.asarray(g, dtype=np.float64)
    if not np.all(np.isfinite(q)):
        return math.inf
    u = tail_set(v.size, theta).caps
    infeas = max(float(np.max(-q, initial=0.0)), float(np.max(q - u, initial=0.0)), abs(float(np.sum(q)) - 1.0))
    gap = abs(superquantile(v, theta) - float(q @ v)) / max(1.0, float(np.max(np.abs(v))))
    return max(infeas, gap)


# ============================================================================ q-FedAvg (FLGo, Flower, FedLab)
def qffl_update(w: Any, W: Any, F: Any, q: float, lr: float, offset: float) -> np.ndarray:
    r"""q-FedAvg's server step (003 Alg. 2, camera-ready scaling ``L = 1/lr``) from the aggregator
    :class:`fairtheory.aggregators.QFFL`: ``Delta_k = L (w - w_k)``,
    ``w+ = w - sum_k (F_k+o)^q Delta_k / sum_k [q (F_k+o)^{q-1} ||Delta_k||^2 + L (F_k+o)^q]``."""
    from fairtheory.aggregators import QFFL

    w, W, F = (np.asarray(a, dtype=np.float64) for a in (w, W, F))
    m = F.size
    agg = QFFL(np.full(m, 1.0 / m), q, offset)
    L = 1.0 / lr
    D = L * (w[None, :] - W)
    c = agg.client_grads(F, None)[0]
    h = agg.client_curvature(F) * np.sum(D * D, axis=1) + L * c
    return w - (c @ D) / np.sum(h)


def qffl_direct(w: np.ndarray, W: np.ndarray, F: np.ndarray, q: float, lr: float, offset: float) -> np.ndarray:
    """The same step written per device as in 003 Alg. 2 (independent of the aggregator code: the twin
    :func:`qffl_update` is checked against)."""
    L = 1.0 / lr
    num = np.zeros_like(w)
    den = 0.0
    for k in range(F.size):
        dk = L * (w - W[k])
        fk = float(F[k]) + offset
        num += math.pow(fk, q) * dk
        den += q * math.pow(fk, q - 1.0) * float(dk @ dk) + L * math.pow(fk, q)
    return w - num / den


def _qffl_cases(rng: np.random.Generator, count: int) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []

    def add(w: np.ndarray, U: np.ndarray, F: Any, q: float, lr: float, kind: str) -> None:
        cases.append({"kind": kind, "w": w, "W": w[None, :] - U, "F": np.asarray(F, dtype=np.float64), "q": q, "lr": lr})

    add(np.zeros(1), np.array([[1.0], [0.0]]), [1.0, 0.0], 1.0, 1.0, "two clients")
    add(np.zeros(1), np.zeros((1, 1)), [0.0], 1.0, 0.1, "zero update, zero loss")
    add(np.zeros(2), np.zeros((3, 2)), [1.0, 2.0, 3.0], 2.0, 0.1, "zero aggregate")
    add(np.zeros(2), np.array([[1.0, 0.0], [-1.0, 0.0]]), [1.0, 1.0], 1.0, 0.1, "opposite updates, tied losses")
    add(np.ones(2), np.array([[1.0, 0.5], [1.0, 0.5]]), [0.5, 0.5], 5.0, 0.1, "ties")
    add(np.zeros(3), 1e-9 * rng.normal(size=(3, 3)), [1e-9, 2e-9, 3e-9], 0.5, 0.1, "tiny")
    add(np.zeros(3), 1e6 * rng.normal(size=(3, 3)), [1e3, 2e3, 5e2], 2.0, 0.1, "huge")
    for q in (0.0, 0.1, 1.0, 5.0):
        add(rng.normal(size=3), rng.normal(size=(4, 3)), rng.uniform(0, 3, size=4), q, 0.05, f"q = {q:g}")
    for _ in range(count):
        m, d = int(rng.integers(1, 7)), int(rng.integers(1, 6))
        F = rng.uniform(0, 3, size=m)
        F[rng.uniform(size=m) < 0.1] = 0.0
        add(rng.normal(size=d), rng.normal(size=(m, d)) * rng.uniform(0.01, 2), F,
            float(rng.choice([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, rng.uniform(0, 10)])),
            float(rng.choice([0.01, 0.1, 1.0])), "random")
    return cases


def qffl_check(ctx: Context, lib: str, salt: str, offset: float, run: Callable[[dict[str, Any]], Any],
               *, rtol: float = 1e-9, count: tuple[int, int] = (40, 400)) -> Outcome:
    """A peer's q-FedAvg server step (``run(case)`` gives its new model) against :func:`qffl_update` on
    edge cases and random rounds; :func:`qffl_direct` checks the reference on every case."""
    rng = ctx.rng(salt)
    tally, worst_ref = Tally(), 0.0
    for c in _qffl_cases(rng, ctx.count(*count)):
        ours = qffl_update(c["w"], c["W"], c["F"], c["q"], c["lr"], offset)
        worst_ref = max(worst_ref, check_reference("q-FFL step", ours, qffl_direct(c["w"], c["W"], c["F"], c["q"],
                                                                                    c["lr"], offset), 1e-9, c["kind"]))
        peer = attempt(lambda c=c: run(c))
        m, d = c["W"].shape
        inst = {"kind": c["kind"], "w": lst(c["w"]), "W": lst(c["W"]), "F": lst(c["F"]), "q": c["q"], "lr": c["lr"]}
        vec_equal(tally, peer, ours, rtol=rtol, instance=inst, size=m * d)
    return tally.outcome(note=f"{note(lib)}; offset {offset:g} inside the powers; L = 1/lr; F_k = client k's loss at "
                              f"the server model", details={"reference_vs_direct": worst_ref},
                         explain="measured = the peer's new model component of largest deviation, bound = q-FedAvg's "
                                 "step (003 Alg. 2) from fairtheory.aggregators.QFFL; an exception counts as nan")


def local_sgd(w: np.ndarray, X: np.ndarray, y: np.ndarray, *, lr: float, epochs: int, batch_size: int) -> np.ndarray:
    """Minibatch SGD on the mean squared error of a linear model, batches in order (FedLab's local solver)."""
    v = np.array(w, dtype=np.float64, copy=True)
    for _ in range(epochs):
        for s in range(0, len(y), batch_size):
            Xb, yb = X[s:s + batch_size], y[s:s + batch_size]
            v = v - lr * (2.0 / len(yb)) * (Xb.T @ (Xb @ v - yb))
    return v


def qffl_mse_round(w: np.ndarray, data: list[tuple[np.ndarray, np.ndarray]], q: float, lr: float, epochs: int,
                   batch_size: int | None) -> tuple[np.ndarray, np.ndarray]:
    """q-FedAvg's step with ``F_k`` = client k's mean squared error at ``w`` and the local models of
    :func:`local_sgd`; also returns the local models."""
    F = np.array([float(np.mean((X @ w - y) ** 2)) for X, y in data])
    local = np.array([local_sgd(w, X, y, lr=lr, epochs=epochs, batch_size=batch_size or len(y)) for X, y in data])
    return qffl_update(w, local, F, q, lr, 1e-10), local


# ============================================================================ AFL, FedFV, FedMGDA+ (FLGo)
def afl_update(w: Any, W: Any, F: Any, lam: Any, lr: float, lr_lam: float, t: int, w_avg: Any,
               *, exact: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Stochastic-AFL's server step with FLGo's conventions: ``w+ = w - lr sum_i lam_i (w - w_i)/lr``,
    ``lam+ = Proj_simplex(lam + lr_lam F)`` (:meth:`CappedSimplex.project`; ``exact=True``: the
    certified QP), running average of the models ``(t w_avg + w+)/(t + 1)`` (``t`` = 1-based round)."""
    from fairtheory.sets import CappedSimplex

    w, W, F, lam, w_avg = (np.asarray(a, dtype=np.float64) for a in (w, W, F, lam, w_avg))
    G = (w[None, :] - W) / lr
    w_new = w - lr * (lam @ G)
    S = CappedSimplex.simplex(F.size)
    v = lam + lr_lam * F
    lam_new = projection_qp(S, v)[0] if exact else S.project(v)
    return w_new, lam_new, (t * w_avg + w_new) / (t + 1)


def fedfv_direction(U: Any, losses: Any, *, alpha: float, tau: int, t: int, history: Any, history_round: Any,
                    clients: Any, independent: bool = False) -> np.ndarray:
    r"""FedFV's server direction (004 Alg. 1-3) with FLGo's conventions: keep rule ``m - ceil((m-1)(1-alpha))``
    (``keep_rule="reference"``), history window ``t - tau + 1 .. t`` (``window="reference"``: the current
    round included), the clients' current updates written to the history first.
    :func:`fairtheory.algorithms.fedfv_aggregate.aggregate` (Gram-matrix route) or, with ``independent=True``,
    its per-vector oracle :func:`~fairtheory.algorithms.fedfv_aggregate.aggregate_loop`."""
    from fairtheory.algorithms.fedfv_aggregate import aggregate, aggregate_loop

    U = np.asarray(U, dtype=np.float64)
    H = np.array(history, dtype=np.float64, copy=True)
    R = np.array(history_round, dtype=np.int64, copy=True)
    idx = np.asarray(clients, dtype=np.int64)
    H[idx], R[idx] = U, t
    route = aggregate_loop if independent else aggregate
    return np.asarray(route(U, np.asarray(losses, dtype=np.float64), alpha=alpha, tau=tau, t=t, history=H,
                            history_round=R, keep_rule="reference", window="reference"), dtype=np.float64)


def fedmgda_direction(U: Any, lam0: Any, epsilon: float, offset: float, *, exact: bool = False) -> tuple[np.ndarray, float]:
    r"""FedMGDA+'s server direction ``d = sum_i lam_i u_i`` and ``||d||^2``, ``u_i = g_i/(||g_i|| + offset)``,
    ``lam`` the min-norm weights in the box ``|lam - lam0| <= epsilon`` of the simplex:
    :func:`fairtheory.algorithms.fedmgda.aggregate` (Gram active set) or, with ``exact=True``, the cvxpy
    QP in ``R^d`` (Clarabel, tolerances ``1e-12``; the independent twin, see the module docstring)."""
    from fairtheory.algorithms.fedmgda import aggregate, normalise
    from fairtheory.exact.min_norm import fedmgda_box
    from fairtheory.exact.result import solve_checked

    U = np.asarray(U, dtype=np.float64)
    if not exact:
        d, _ = aggregate(U, lam0, epsilon=epsilon, offset=offset)
        return d, float(d @ d)
    import cvxpy as cp

    Un = normalise(U, offset)
    lo, hi = fedmgda_box(lam0, epsilon)
    lam = cp.Variable(U.shape[0])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(Un.T @ lam)), [cp.sum(lam) == 1, lam >= lo, lam <= hi])
    solve_checked(prob, "FedMGDA+ min-norm QP", "CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    lv = np.clip(np.asarray(lam.value, dtype=np.float64), lo, hi)
    d = lv @ Un
    return d, float(prob.value)


#: FLGo's FedMGDA+ tolerances: ||d||^2 within 1e-6 of the minimum (cvxopt's defaults are 1e-7 absolute,
#: 1e-6 relative), the direction within sqrt(1e-6): for a feasible d, ||d - d*||^2 <= ||d||^2 - ||d*||^2
FEDMGDA_VALUE_TOL, FEDMGDA_DIRECTION_TOL = 1e-6, 1e-3


def fedmgda_compare(value: Tally, direction: Tally, d_peer: Any, d_ours: np.ndarray, v_ours: float, *,
                    instance: dict[str, Any], size: float) -> bool:
    """Record FLGo's FedMGDA+ direction ``d_peer`` against the exact ``d_ours`` (``v_ours = ||d_ours||^2``):
    ``| ||d_peer||^2 - v_ours | <= 1e-6`` in ``value`` and ``||d_peer - d_ours|| <= 1e-3`` in ``direction``
    (a sign flip or a wrong direction of the right length fails the second).  An exception or a
    non-finite direction fails both.  Returns whether both held.

    Not :func:`vec_equal`: FLGo solves the min-norm QP to cvxopt's tolerance, so its direction is compared by
    the QP's value and by its distance from the solution (the bound that tolerance implies), not entrywise."""
    if isinstance(d_peer, BaseException):
        inst = {**instance, "peer_error": err(d_peer)}
        value.equal(math.nan, v_ours, rtol=FEDMGDA_VALUE_TOL, scale=1.0, instance=inst, size=size)
        direction.upper(math.nan, FEDMGDA_DIRECTION_TOL, instance=inst, size=size)
        return False
    dp = np.asarray(d_peer, dtype=np.float64).ravel()
    ok1 = value.equal(float(dp @ dp), v_ours, rtol=FEDMGDA_VALUE_TOL, scale=1.0, instance=instance, size=size)
    dev = float(np.linalg.norm(dp - np.asarray(d_ours, dtype=np.float64).ravel()))
    ok2 = direction.upper(dev, FEDMGDA_DIRECTION_TOL, instance=instance, size=size)
    return ok1 and ok2
