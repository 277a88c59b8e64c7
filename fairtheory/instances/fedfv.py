r"""FedFV (004) results, one instance at a time: ``(measured, theory)`` in each result's own units.

Conflict results (004 Thm. 1-2, App. A.1) take one gradient set ``grads`` (rows ``g_1..g_m``), each
``g_i`` projected onto the normal planes of ``g_1, ..., g_m`` in index order on conflict, skipping
itself (:func:`fairtheory.bounds.fedfv.sequential_projections`), ``gbar' = (1/m) sum_i g_i^{(m)}``,
and a target position ``k`` (1-based):

* :func:`theorem1_conflict` - 004 Thm. 1 / App. A.1 eq. 5: conflict ``-g_k . gbar'`` (one-sided, as
  derived) or ``|g_k . gbar'|`` (as printed) against ``(eps^2/m) ||g_k|| sum_{j=k}^{m-1}
  sum_{i != j+1} ||g_i^{(j)}||``;
* :func:`theorem2_conflict` - 004 Thm. 2: the same left-hand sides against ``(m-1)/m (max_i
  ||g_i||)^2 f(m, k, eps1, eps2)``;
* :func:`last_target` - 004 App. A.1: ``g_m . gbar' >= 0`` (a sign condition);
* :func:`projection_step`, :func:`projection_norm` - 004 Alg. 2 / App. A.2 eq. 7 at one target;
* :func:`alpha_limit` - 004 Sec. 3.4: ``alpha = 1`` is FedAvg, ``alpha = 0`` projects every client.

Two-client and descent results (004 Thm. 3-4) take quadratic clients ``F_i(theta) = 0.5 (theta -
c_i)^T H_i (theta - c_i)``: :func:`theorem3_descent` (eq. 18), :func:`pareto_two_client` (the eq. 10
iteration or FedFV itself, measured by the Pareto-stationarity ``rho``), :func:`theorem4_descent`
(eq. 21).  :func:`order_effect` is one seed of 004 Table 4's projection-order comparison.

The gradient-set generators (:func:`noisy_simplex`, :func:`gradient_sets`) and the minimal
counterexamples of the refuted results (``MIN_*``) are shared by the claims, the figures and the
tests.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer, check_positive, check_rng
from fairtheory.backend import as_array
from fairtheory.instances import InstanceResult, check_problem

__all__ = [
    "MIN_ABSOLUTE",
    "MIN_LAST_TARGET",
    "MIN_THEOREM3_DESCENT",
    "MIN_THEOREM3_PARETO",
    "noisy_simplex",
    "gradient_sets",
    "conflict_profile",
    "theorem1_conflict",
    "theorem2_conflict",
    "last_target",
    "projection_step",
    "projection_norm",
    "alpha_limit",
    "eq10_direction",
    "theorem3_descent",
    "pareto_two_client",
    "theorem4_descent",
    "order_effect",
]

Version = Literal["one_sided", "absolute"]

#: 004 Thm. 1/2 with ``|.|`` (as printed): ``m = 2``, ``d = 2``, inside the hypothesis
#: (``g_1 . g_2 = -1 < 0``).  ``g_1' = (1/2, 1/2)``, ``g_2' = (0, 1)``, ``gbar' = (1/4, 3/4)``;
#: ``g_2 . gbar' = 1/2 > 0`` = both bounds at ``k = m``.
MIN_ABSOLUTE = np.array([[1.0, 0.0], [-1.0, 1.0]])
#: 004 App. A.1 "the last target never conflicts with gbar'": ``m = 3``, ``d = 2``.  ``g_3 = (1, 0)``
#: is projected onto ``g_1``'s and ``g_2``'s normal planes: ``(1/2, 1/2)`` then ``(-3/29, 15/58)``;
#: ``g_1^{(3)} = (0, 1)`` and ``g_2^{(3)} = (0, -2)`` are orthogonal to ``g_3``, so ``g_3 . gbar' = -1/29``.
#: Minimal: with ``m = 2``, ``g_2^{(1)} . g_2 >= 0`` by Cauchy-Schwarz, and in ``d = 1`` every
#: projection gives 0.
MIN_LAST_TARGET = np.array([[-1.0, 1.0], [-5.0, -2.0], [1.0, 0.0]])
#: 004 Thm. 3 eq. 18: ``F_i = 0.5 ||theta - c_i||^2`` (``L = 1``), ``theta = 0``, ``eta = 1/L = 1``:
#: ``F`` increases.
MIN_THEOREM3_DESCENT: dict[str, Any] = {"H1": [[1.0, 0.0], [0.0, 1.0]], "H2": [[1.0, 0.0], [0.0, 1.0]],
                                        "c1": [1.0, 0.0], "c2": [-0.1, 1.0], "theta": [0.0, 0.0], "eta": 1.0}
#: 004 Thm. 3 convergence: ``H_1 = diag(1, 0.2)``, ``H_2 = diag(0.2, 1)``, ``c_1 = (2, -2)``,
#: ``c_2 = (-2, 2)``, ``eta = 1/L = 1``, ``theta_0 = (3, 3)``: the eq. 10 iteration settles on a
#: 2-cycle through ``theta ~ (1.7923, 1.7923)`` with ``rho ~ 0.389``.
MIN_THEOREM3_PARETO: dict[str, Any] = {"H1": [[1.0, 0.0], [0.0, 0.2]], "H2": [[0.2, 0.0], [0.0, 1.0]],
                                       "c1": [2.0, -2.0], "c2": [-2.0, 2.0], "theta0": [3.0, 3.0], "eta": 1.0}


# ------------------------------------------------------------------------------------ gradient sets
def noisy_simplex(m: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` noisy regular-simplex directions in ``R^d`` (pairwise ``cos = -1/(m-1)`` before noise, so
    most projection steps conflict) with log-normal magnitudes."""
    rng = check_rng(rng)
    m = check_integer(m, "m", low=1)
    d = check_integer(d, "d", low=1)
    E = np.eye(m) - 1.0 / m
    Q, _ = np.linalg.qr(rng.normal(size=(max(d, m), max(d, m))))
    V = E @ Q[:m, :d] if d >= m - 1 else E[:, :d]
    V = V + 0.15 * rng.normal(size=V.shape) * np.linalg.norm(V, axis=1, keepdims=True).mean()
    return V * np.exp(rng.normal(size=(m, 1)))


def gradient_sets(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """``count`` seeded gradient sets (``2 <= m <= 6``, ``2 <= d <= 5``), cycling through four kinds:
    Gaussian, Gaussian with wide magnitudes, near-antiparallel, noisy simplices."""
    rng = check_rng(rng)
    count = check_integer(count, "count", low=0)
    out = []
    for i in range(count):
        m, d = int(rng.integers(2, 7)), int(rng.integers(2, 6))
        kind = i % 4
        if kind == 0:
            A = rng.normal(size=(m, d))
        elif kind == 1:
            A = rng.normal(size=(m, d)) * np.exp(2.0 * rng.normal(size=(m, 1)))
        elif kind == 2:
            base = rng.normal(size=d)
            sign = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)[:, None]
            A = (sign * base + 0.1 * rng.normal(size=(m, d))) * np.exp(rng.normal(size=(m, 1)))
        else:
            A = noisy_simplex(m, max(d, m - 1), rng)
        out.append(A)
    return out


# ------------------------------------------------------------------------------------ conflict results
def _grads(grads: Any) -> np.ndarray:
    """``grads`` as a finite float64 ``(m, d)`` array (lists, integer arrays, torch tensors detached);
    booleans, nan and inf are rejected naming ``grads``."""
    A = as_array(grads, "grads")
    if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1:
        raise FairtheoryValueError(f"grads must be a non-empty 2-D array (m gradients x d), got shape {A.shape}")
    return A


@lru_cache(maxsize=4096)
def _profile(key: bytes, shape: tuple[int, int]) -> dict[str, Any]:
    from fairtheory.bounds.fedfv import (
        all_steps_conflict,
        epsilons,
        sequential_projections,
        theorem1_bound,
        theorem2_bound,
    )

    A = np.frombuffer(key, dtype=np.float64).reshape(shape)
    P = sequential_projections(A)
    e1, e2 = epsilons(A)
    out = {"projections": P, "dot": A @ P[-1].mean(axis=0), "theorem1": theorem1_bound(A, e2),
           "theorem2": theorem2_bound(A, e1, e2), "eps1": e1, "eps2": e2,
           "hypothesis": all_steps_conflict(A), "scale": float(np.max(np.sum(A * A, axis=1)))}
    for v in out.values():
        if isinstance(v, np.ndarray):
            v.flags.writeable = False
    return out


def conflict_profile(grads: Any) -> dict[str, Any]:
    """Everything the conflict results read off one gradient set (cached; arrays read-only).

    Keys: ``projections`` (``(m + 1, m, d)``, ``[j, i] = g_i^{(j)}``), ``dot`` (``g_k . gbar'``,
    ``k = 1..m``), ``theorem1`` / ``theorem2`` (the right-hand sides for ``k = 1..m`` with the
    default ``eps``, ``eps1``, ``eps2``), ``eps1``, ``eps2`` (smallest/largest ``|cos|`` over the
    pairs the proofs use), ``hypothesis`` (every projection step meets a conflict, the hypothesis of
    004 Thm. 1-2) and ``scale`` (``max_i ||g_i||^2``)."""
    A = np.ascontiguousarray(_grads(grads))
    return _profile(A.tobytes(), A.shape)


def _check_k(k: int, m: int) -> int:
    return check_integer(k, "k", low=1, high=m)


def _conflict_result(grads: Any, k: int, version: Version, bound_key: str, bound: np.ndarray | None) -> InstanceResult:
    if version not in ("one_sided", "absolute"):
        raise FairtheoryValueError(f"version must be 'one_sided' or 'absolute', got {version!r}")
    prof = conflict_profile(grads)
    m = prof["dot"].shape[0]
    k = _check_k(k, m)
    dot = float(prof["dot"][k - 1])
    rhs = float((prof[bound_key] if bound is None else bound)[k - 1])
    measured = -dot if version == "one_sided" else abs(dot)
    return InstanceResult(measured, rhs, {"dot": dot, "k": k, "m": m, "eps1": prof["eps1"], "eps2": prof["eps2"],
                                          "hypothesis": prof["hypothesis"]})


def theorem1_conflict(*, grads: Any, k: int, version: Version = "one_sided", eps: float | None = None) -> InstanceResult:
    r"""004 Thm. 1 (App. A.1 eq. 5) at target position ``k``.

    ``version="one_sided"`` (what the proof derives): measured = the conflict ``-g_k . gbar'``,
    theory = ``(eps^2/m) ||g_k|| sum_{j=k}^{m-1} sum_{i != j+1} ||g_i^{(j)}||``; the claim is
    measured ``<=`` theory.  ``version="absolute"`` (as printed, ``|e_k . gbar'|`` times ``||g_k||``):
    measured = ``|g_k . gbar'|``.  At ``k = m`` the right-hand side is 0 (an empty sum): the one-sided
    form is then the sign condition ``g_m . gbar' >= 0``, the absolute one ``g_m . gbar' = 0``.
    ``eps`` defaults to the largest ``|cos|`` over the pairs the proof uses.  The theorem assumes
    every projection step meets a conflict (``extra["hypothesis"]``)."""
    bound = None
    if eps is not None:
        from fairtheory.bounds.fedfv import theorem1_bound

        bound = theorem1_bound(_grads(grads), eps)
    return _conflict_result(grads, k, version, "theorem1", bound)


def theorem2_conflict(*, grads: Any, k: int, version: Version = "one_sided", eps1: float | None = None,
                      eps2: float | None = None) -> InstanceResult:
    r"""004 Thm. 2 at target position ``k``: measured as in :func:`theorem1_conflict`, theory =
    ``(m-1)/m (max_i ||g_i||)^2 f(m, k, eps1, eps2)`` with ``f = eps2^2 r (1 - r^{m-k}) / (1 - r)``,
    ``r = (1 - eps1^2)^{1/2}`` (0 at ``k = m``).  ``eps1``/``eps2`` default to the smallest/largest
    ``|cos|`` over the pairs the proof uses."""
    bound = None
    if eps1 is not None or eps2 is not None:
        from fairtheory.bounds.fedfv import theorem2_bound

        bound = theorem2_bound(_grads(grads), eps1, eps2)
    return _conflict_result(grads, k, version, "theorem2", bound)


def last_target(*, grads: Any) -> InstanceResult:
    """004 App. A.1: "the final gradient gbar' will not conflict with [g_m]": measured = ``g_m . gbar'``,
    theory = 0 (the claim is the sign condition measured ``>= 0``; FedFV's conditional rule)."""
    prof = conflict_profile(grads)
    m = prof["dot"].shape[0]
    dot = float(prof["dot"][m - 1])
    return InstanceResult(dot, 0.0, {"dot": dot, "k": m, "m": m, "eps1": prof["eps1"], "eps2": prof["eps2"],
                                     "hypothesis": prof["hypothesis"]})


def projection_step(*, grads: Any, target: int) -> InstanceResult:
    r"""004 Alg. 2: after projecting onto target ``g_j`` (``j = target``, 1-based) no other vector
    conflicts with ``g_j``.

    measured = the largest remaining conflict ``max_{i != j} max(0, -g_i^{(j)} . g_j) /
    (||g_i^{(j-1)}|| ||g_j||)`` (a cosine-scaled dot product), theory = 0.  (Projected vectors are
    exactly orthogonal to ``g_j``; the others were not conflicting and are unchanged.)"""
    prof = conflict_profile(grads)
    A = _grads(grads)
    m = A.shape[0]
    j = check_integer(target, "target", low=1, high=m) - 1
    P = prof["projections"]
    before, after, g = P[j], P[j + 1], A[j]
    scale = np.linalg.norm(before, axis=1) * np.linalg.norm(g) + 1e-300
    others = np.arange(m) != j
    resid = np.maximum(-(after @ g)[others], 0.0) / scale[others]
    return InstanceResult(float(np.max(resid)), 0.0, {"target": j + 1, "projected": int(np.sum((before @ g)[others] < 0))})


def projection_norm(*, grads: Any, target: int) -> InstanceResult:
    r"""004 App. A.2 eq. 7 at target ``g_j`` (``j = target``, 1-based): a vector ``g`` projected onto
    ``g_j``'s normal plane has ``||g'||^2 = (1 - cos^2(g, g_j)) ||g||^2``.

    Over the vectors projected at this step, the one with the largest deviation: measured =
    ``||g'||^2 / ||g||^2``, theory = ``1 - cos^2(g, g_j)``.  ``nan``/``nan`` (and
    ``extra["projected"] = 0``) when no vector conflicts with ``g_j`` (nothing is projected)."""
    prof = conflict_profile(grads)
    A = _grads(grads)
    m = A.shape[0]
    j = check_integer(target, "target", low=1, high=m) - 1
    P = prof["projections"]
    before, after, g = P[j], P[j + 1], A[j]
    d_before = before @ g
    hit = (np.arange(m) != j) & (d_before < 0)
    if not np.any(hit):
        return InstanceResult(float("nan"), float("nan"), {"target": j + 1, "projected": 0})
    n2b = np.sum(before[hit] ** 2, axis=1)
    ratio = np.sum(after[hit] ** 2, axis=1) / n2b
    theory = 1.0 - d_before[hit] ** 2 / (n2b * (g @ g))
    worst = int(np.argmax(np.abs(ratio - theory)))
    return InstanceResult(float(ratio[worst]), float(theory[worst]),
                          {"target": j + 1, "client": int(np.flatnonzero(hit)[worst]) + 1,
                           "projected": int(hit.sum())})


def alpha_limit(*, grads: Any, losses: Any, alpha: float, keep_rule: Literal["paper", "reference"] = "paper") -> InstanceResult:
    r"""004 Sec. 3.4 at the two ends of ``alpha`` (``keep_rule`` as in
    :func:`~fairtheory.algorithms.fedfv_aggregate.n_unprojected`), theory = 0 for both:

    * ``alpha = 1`` (FedAvg): measured = ``max_l |g_l - mean_i g_{i,l}| / max_i ||g_i|| + max |C - I|``
      (distance of FedFV's internal direction from the FedAvg mean, and of its projection
      coefficients ``C`` from the identity);
    * ``alpha = 0`` (every client projected): measured = ``max |C - C_all|`` plus the number of
      clients kept unprojected (``C_all``: the walk that projects every client, in loss-ascending
      order)."""
    from fairtheory.algorithms.fedfv_aggregate import internal_projection, n_unprojected, projection_coefficients

    A = _grads(grads)
    m = A.shape[0]
    loss = as_array(losses, "losses", ndim=1)
    if loss.shape != (m,):
        raise FairtheoryValueError(f"losses must have shape ({m},) (one per gradient), got {loss.shape}")
    alpha = check_in_range(alpha, "alpha", low=0.0, high=1.0)
    if keep_rule not in ("paper", "reference"):
        raise FairtheoryValueError(f"keep_rule must be 'paper' or 'reference', got {keep_rule!r}")
    if alpha == 1.0:
        g, C = internal_projection(A, loss, alpha=1.0, keep_rule=keep_rule)
        scale = float(np.max(np.linalg.norm(A, axis=1)))
        dev = float(np.max(np.abs(g - A.mean(axis=0))) / scale + np.max(np.abs(C - np.eye(m))))
        return InstanceResult(dev, 0.0, {"alpha": 1.0, "keep_rule": keep_rule})
    if alpha == 0.0:
        _, C0 = internal_projection(A, loss, alpha=0.0, keep_rule=keep_rule)
        Call = projection_coefficients(A @ A.T, np.argsort(loss, kind="stable"))
        kept = n_unprojected(m, 0.0, keep_rule)
        return InstanceResult(float(np.max(np.abs(C0 - Call))) + float(kept), 0.0,
                              {"alpha": 0.0, "keep_rule": keep_rule, "kept": kept})
    raise FairtheoryValueError(f"alpha must be 0 or 1 (the limits of 004 Sec. 3.4), got {alpha!r}")


# ------------------------------------------------------------------------------------ Theorems 3-4
def eq10_direction(g1: np.ndarray, g2: np.ndarray) -> np.ndarray:
    """004 App. A.3 eq. 10: ``g_1 + g_2 - (g_1.g_2/||g_1||^2) g_1 - (g_1.g_2/||g_2||^2) g_2`` when
    ``g_1 . g_2 < 0``; the FedAvg mean ``(g_1 + g_2)/2`` otherwise."""
    if not (isinstance(g1, np.ndarray) and g1.dtype == np.float64 and g1.ndim == 1):
        g1 = as_array(g1, "g1", ndim=1)
    if not (isinstance(g2, np.ndarray) and g2.dtype == np.float64 and g2.shape == g1.shape):
        g2 = as_array(g2, "g2", ndim=1)
        if g2.shape != g1.shape:
            raise FairtheoryValueError(f"g2 must have the shape of g1 {g1.shape}, got {g2.shape}")
    c = float(g1 @ g2)
    if c >= 0:
        return 0.5 * (g1 + g2)
    return g1 + g2 - c / float(g1 @ g1) * g1 - c / float(g2 @ g2) * g2


def _quad(H1: Any, H2: Any, c1: Any, c2: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    H = as_array(H1, "H1"), as_array(H2, "H2")
    c = as_array(c1, "c1"), as_array(c2, "c2")
    d = c[0].shape[0] if c[0].ndim == 1 else -1
    if d < 1 or c[1].shape != (d,) or H[0].shape != (d, d) or H[1].shape != (d, d):
        raise FairtheoryValueError(f"c1, c2 must have shape (d,) and H1, H2 shape (d, d), got "
                                   f"{c[0].shape}, {c[1].shape}, {H[0].shape}, {H[1].shape}")
    return H[0], H[1], c[0], c[1]


def _point(theta: Any, name: str, d: int) -> np.ndarray:
    w = as_array(theta, name, ndim=1)
    if w.shape != (d,):
        raise FairtheoryValueError(f"{name} must have shape ({d},) to match c1, c2, got {w.shape}")
    return w


def _F(H1: np.ndarray, H2: np.ndarray, c1: np.ndarray, c2: np.ndarray,
       w: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
    r1, r2 = w - c1, w - c2
    return 0.5 * r1 @ H1 @ r1, 0.5 * r2 @ H2 @ r2, H1 @ r1, H2 @ r2


def theorem3_descent(*, H1: Any, H2: Any, c1: Any, c2: Any, theta: Any, eta: float,
                     reading: Literal["printed", "sum"] = "printed") -> InstanceResult:
    r"""004 Thm. 3 eq. 18 at one point: with ``g_1 . g_2 < 0``, ``eta <= 1/L`` and ``gbar'`` the eq. 10
    direction, ``F(theta) - F(theta - eta gbar') >= (eta/2)(1 - cos^2 phi_12) ||g_1 + g_2||^2``.

    measured = the actual decrease ``F(theta) - F(theta - eta gbar')``, theory = the claimed decrease
    (the right-hand side).  ``reading="printed"``: ``F = (F_1 + F_2)/2`` (the theorem's objective);
    ``"sum"``: ``F = F_1 + F_2`` (the objective under which the derivation holds; pair it with ``L``
    the smoothness of the sum).  ``extra["conflict"]`` says whether ``g_1 . g_2 < 0`` (the case the
    theorem treats)."""
    if reading not in ("printed", "sum"):
        raise FairtheoryValueError(f"reading must be 'printed' or 'sum', got {reading!r}")
    eta = check_positive(eta, "eta")
    h1, h2, a1, a2 = _quad(H1, H2, c1, c2)
    w = _point(theta, "theta", a1.shape[0])
    f1, f2, g1, g2 = _F(h1, h2, a1, a2, w)
    c = float(g1 @ g2)
    n1n2 = float(g1 @ g1) * float(g2 @ g2)
    cos2 = c * c / n1n2 if n1n2 > 0 else 0.0
    n1, n2, _, _ = _F(h1, h2, a1, a2, w - eta * eq10_direction(g1, g2))
    weight = 0.5 if reading == "printed" else 1.0
    decrease = weight * (f1 + f2) - weight * (n1 + n2)
    claimed = eta / 2 * (1 - cos2) * float((g1 + g2) @ (g1 + g2))
    return InstanceResult(float(decrease), float(claimed), {"conflict": c < 0, "cos2": cos2, "dot": c})


def pareto_two_client(*, H1: Any, H2: Any, c1: Any, c2: Any, theta0: Any, eta: float, T: int,
                      method: Literal["eq10", "fedfv"] = "eq10", record: bool = False) -> InstanceResult:
    r"""004 Thm. 3 (convergence): ``T`` steps from ``theta0`` and the Pareto-stationarity of the end.

    ``method="eq10"``: ``theta <- theta - eta gbar'`` with the eq. 10 direction (the theorem's
    iteration); ``"fedfv"``: FedFV itself (:func:`fairtheory.algorithms.fedfv.make` with ``lr = eta``,
    one local step, both clients every round, rescaled to the mean norm).  measured = ``rho(theta_T)
    = min_{lam in [0,1]} ||lam g_1 + (1 - lam) g_2||`` (:func:`fairtheory.exact.pareto.min_norm_point_2`),
    theory = 0 (a Pareto-stationary limit).  ``extra``: ``theta_T``, ``rho0``, ``L`` and, with
    ``record``, the iterates ``(T + 1, d)`` and ``rho`` along them."""
    from fairtheory.exact.pareto import min_norm_point_2

    if method not in ("eq10", "fedfv"):
        raise FairtheoryValueError(f"method must be 'eq10' or 'fedfv', got {method!r}")
    eta = check_positive(eta, "eta")
    T = check_integer(T, "T", low=0)
    h1, h2, a1, a2 = _quad(H1, H2, c1, c2)
    L = float(max(np.linalg.eigvalsh(h1).max(), np.linalg.eigvalsh(h2).max()))
    w0 = _point(theta0, "theta0", a1.shape[0])

    def rho(w: np.ndarray) -> float:
        _, _, g1, g2 = _F(h1, h2, a1, a2, w)
        return min_norm_point_2(g1, g2).value

    if method == "eq10":
        w, its = w0.copy(), [w0.copy()]
        for _ in range(T):
            _, _, g1, g2 = _F(h1, h2, a1, a2, w)
            w = w - eta * eq10_direction(g1, g2)
            if record:
                its.append(w)
    else:
        from fairtheory.algorithms import fedfv
        from fairtheory.algorithms.base import run
        from fairtheory.problems.quadratic import QuadraticProblem

        alg = fedfv.make(QuadraticProblem(np.stack([h1, h2]), np.stack([a1, a2])), lr=eta)
        state, hist = run(alg, T, w0=w0, record_every=1 if record else max(T, 1), record_losses=False)
        w, its = state.w, hist.iterates
    extra: dict[str, Any] = {"theta_T": w, "rho0": rho(w0), "L": L}
    if record:
        extra["iterates"] = np.array(its)
        extra["rho"] = np.array([rho(v) for v in its])
    return InstanceResult(rho(w), 0.0, extra)


def theorem4_descent(*, problem: Any, w: Any, eta: float, rescaled: bool = True) -> InstanceResult:
    r"""004 Thm. 4 eq. 21 at one model ``w``: with ``F`` the mean of the (L-smooth) client losses,
    ``gbar`` the mean gradient and ``gbar'`` FedFV's direction on the client gradients (Alg. 2,
    ``alpha = 0``; rescaled to the mean norm as in Alg. 1, or not), whenever ``cos(gbar, gbar') >= 1/2``
    and ``||gbar|| >= ||gbar'||``: ``F(w) - F(w - eta gbar') >= (eta/2 - L eta^2/2) ||gbar|| ||gbar'||``.

    measured = the actual decrease, theory = the guaranteed decrease.  ``extra["conditions"]`` says
    whether the theorem's conditions hold at ``w`` (they compare with a relative slack of ``1e-12`` on
    ``||gbar|| >= ||gbar'||``, which is equality for the rescaled direction)."""
    from fairtheory.algorithms.fedfv_aggregate import aggregate

    check_problem(problem)
    eta = check_positive(eta, "eta")
    w = as_array(w, "w", ndim=1)
    G = problem.grads(w)
    losses = problem.losses(w)
    L = float(problem.smoothness())
    gbar = G.mean(axis=0)
    gp = aggregate(G, losses, alpha=0.0, do_rescale=rescaled)
    ng, ngp = float(np.linalg.norm(gbar)), float(np.linalg.norm(gp))
    cos = float(gbar @ gp) / (ng * ngp) if ng > 0 and ngp > 0 else float("nan")
    conditions = bool(ng > 0 and ngp > 0 and cos >= 0.5 and ng >= ngp * (1 - 1e-12))
    decrease = float(np.mean(losses)) - float(np.mean(problem.losses(w - eta * gp)))
    guaranteed = (eta / 2 - L * eta ** 2 / 2) * ng * ngp
    return InstanceResult(decrease, guaranteed, {"conditions": conditions, "cos": cos, "norm_gbar": ng,
                                                 "norm_gbar_prime": ngp, "L": L})


def order_effect(*, seed: int = 0, replicate: int = 0, rounds: int = 60) -> InstanceResult:
    """One seed of 004 Table 4 (qualitative): variance of client training accuracy after ``rounds``
    FedFV rounds with each projection order, on ``random_logistic`` (10 clients, sizes 20..200,
    heterogeneity 2), full participation, ``kappa = 5``, ``lr = 0.5``, ``alpha = 0``, ``tau = 0``.

    measured = the variance with the paper's loss-ascending order, theory = the smaller of the random
    and reversed orders' variances (Table 4: ascending gives the lowest); ``extra`` holds all three."""
    from fairtheory.algorithms import fedfv
    from fairtheory.algorithms.base import run
    from fairtheory.problems.generators import random_logistic

    rounds = check_integer(rounds, "rounds", low=1)
    seed = check_integer(seed, "seed", low=0)
    replicate = check_integer(replicate, "replicate", low=0)
    rng = np.random.default_rng([seed, replicate])
    prob = random_logistic(10, 5, rng.integers(20, 200, size=10), rng=rng, heterogeneity=2.0)
    var = {}
    for order in ("ascending", "random", "reversed"):
        alg = fedfv.make(prob, lr=0.5, kappa=5, alpha=0.0, tau=0, order=order)
        st, _ = run(alg, rounds, rng=np.random.default_rng([seed, replicate, 7]), record_every=rounds,
                    record_losses=False)
        var[order] = float(np.var(prob.accuracies(st.w)))
    return InstanceResult(var["ascending"], min(var["random"], var["reversed"]), var)
