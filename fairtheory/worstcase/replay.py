r"""Replay a worst-case instance: explicit ``L``-smooth convex functions through the PEP's data.

Given points ``(x_k, g_k, f_k)`` of one function that satisfy the ``L``-smooth convex interpolation
conditions, the function (Taylor, Hendrickx & Glineur 2017, via conjugation: ``f*`` is the
``1/L``-strongly convex function ``max_k {<x_k - g_k/L, .> + const} + ||.||^2/(2L)``)

.. math:: f(x) = \min_{\lambda \in \Delta} \; \tfrac{L}{2}\Big\|x - \sum_k \lambda_k (x_k - g_k/L)\Big\|^2
          + \sum_k \lambda_k \big(f_k - \|g_k\|^2/(2L)\big)

is convex and ``L``-smooth on the whole space (it is the conjugate of a ``1/L``-strongly convex
function) and interpolates the data: ``f(x_k) = f_k``, ``grad f(x_k) = g_k``; its gradient is
``L (x - sum_k lambda*_k (x_k - g_k/L))``.  Each evaluation is a small QP over the simplex (Clarabel).

:class:`InterpolatedProblem` wraps one such function per client as a
:class:`~fairtheory.problems.base.FederatedProblem`, so the project's own algorithms
(:mod:`fairtheory.algorithms.fedavg`, :mod:`fairtheory.algorithms.scaffold`) run on the worst case;
:func:`replay_fedavg` and :func:`replay_scaffold` do so and return the suboptimality they reach, to
compare with the PEP value.  :func:`simulate_local_gd` is a plain numpy simulator of 002 Algorithm 1
on any gradient oracles (both outputs; partial participation in exact expectation by enumerating the
draws), used for sampled instances.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.problems.base import FederatedProblem
from fairtheory.worstcase.results import Instance

#: a point within this (relative) of a data point ``x_k`` is that data point for :class:`SmoothConvexInterpolant`'s
#: vertex check (rounding of the replayed recurrence: ``~1e-16``)
VERTEX_RTOL = 1e-12
#: the vertex check applies when the data violate no interpolation condition by more than this (relative to their
#: size): a KKT point's data (violations ~1e-16), not a float solve's (~1e-9)
VERTEX_VIOLATION = 1e-14
#: the vertex is taken when its objective is within this (relative) of the QP's (the QP's tolerance, 1e-12)
VERTEX_QTOL = 1e-12

__all__ = ["SmoothConvexInterpolant", "InterpolatedProblem", "replay_fedavg", "replay_scaffold",
           "simulate_local_gd", "interpolation_violation"]


def interpolation_violation(points: Sequence[tuple[np.ndarray, np.ndarray, float]], L: float) -> float:
    """Largest violation of ``f_j >= f_k + <g_k, x_j - x_k> + ||g_j - g_k||^2/(2L)`` over pairs."""
    worst = 0.0
    for j, (xj, gj, fj) in enumerate(points):
        for k, (xk, gk, fk) in enumerate(points):
            if j != k:
                v = fk + gk @ (xj - xk) + (gj - gk) @ (gj - gk) / (2 * L) - fj
                worst = max(worst, float(v))
    return worst


class SmoothConvexInterpolant:
    """The ``L``-smooth convex interpolant of ``points`` (module doc); callable ``f(x) -> (value, grad)``.

    ``vertices=True`` (data of a KKT point, :mod:`fairtheory.worstcase.kkt_bracket`): at a data point ``x_k`` the
    vertex ``e_k`` of the simplex replaces the QP's ``lambda`` when its objective is the smaller and the data violate
    no condition beyond :data:`VERTEX_VIOLATION` - the QP's flat objective leaves ``lambda`` off by ``~sqrt(tol)``;
    where the vertex's Frank-Wolfe gap alone shows it (:meth:`_vertex_without_qp`) the QP is not solved at all.
    Off by default: the data of a float solve (a ``rho2 = 0`` PEP whose optimum gradients sit at the rounding level)
    would be replayed above the worst case (fedavg ``lr = 1.87``: ``8.4e-9`` above a proved bound)."""

    def __init__(self, points: Sequence[tuple[np.ndarray, np.ndarray, float]], L: float, *,
                 vertices: bool = False) -> None:
        if not points:
            raise FairtheoryValueError("points must be non-empty")
        self.L = float(L)
        X = np.array([np.asarray(x, dtype=np.float64) for x, _, _ in points])
        Gr = np.array([np.asarray(g, dtype=np.float64) for _, g, _ in points])
        F = np.array([float(f) for _, _, f in points])
        self.X = X
        self.S = X - Gr / self.L                       # (m, d) rows s_k = x_k - g_k/L
        # the vertex check of __call__ applies to interpolable data only (violation at the rounding level): with data
        # violated by delta the interpolant lies below f_k at x_k and its gradient is ~sqrt(2 L delta) off g_k, and
        # the vertex would replay a point above the worst case (fedavg lr = 1.87: 8.4e-9 above a proved bound)
        gx = Gr @ X.T                                   # gx[k, j] = <g_k, x_j>
        gg = Gr @ Gr.T
        sq = np.diag(gg)
        viol = (F[None, :] + gx.T - np.diag(gx)[None, :] + (sq[:, None] + sq[None, :] - 2 * gg) / (2 * self.L)
                - F[:, None])                           # [j, k]: f_k + <g_k, x_j - x_k> + |g_j - g_k|^2/2L - f_j
        size = 1.0 + float(np.max(np.abs(F), initial=0.0)) + float(np.max(sq, initial=0.0)) / self.L \
            + self.L * float(np.max(np.einsum("kd,kd->k", X, X), initial=0.0))
        self._vertex_ok = bool(vertices) and bool(float(np.max(viol, initial=0.0)) <= VERTEX_VIOLATION * size)
        self.c = F - np.einsum("kd,kd->k", Gr, Gr) / (2 * self.L)
        self.m = len(points)
        self._P = sp.csc_matrix(self.L * (self.S @ self.S.T))
        A = sp.vstack([sp.csc_matrix(np.ones((1, self.m))), -sp.identity(self.m, format="csc")]).tocsc()
        self._A = A
        self._b = np.concatenate([[1.0], np.zeros(self.m)])

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        import clarabel

        x = np.asarray(x, dtype=np.float64)
        if self.m == 1:
            lam = np.ones(1)
        elif (k := self._vertex_without_qp(x)) is not None:
            lam = np.zeros(self.m)
            lam[k] = 1.0
        else:
            q = self.c - self.L * (self.S @ x)
            st = clarabel.DefaultSettings()
            st.verbose = False
            st.tol_gap_abs = st.tol_gap_rel = st.tol_feas = 1e-12
            st.max_threads = 1
            sol = clarabel.DefaultSolver(self._P, q, self._A, self._b,
                                         [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(self.m)], st).solve()
            status = str(sol.status).split(".")[-1]
            if status not in ("Solved", "AlmostSolved"):
                raise SolverError("interpolant QP", "Clarabel", status)
            lam = np.clip(np.asarray(sol.x), 0.0, None)
            lam /= lam.sum()
            # at a data point x = x_k (to rounding) the vertex e_k gives (f_k, g_k) exactly, where the QP's flat
            # objective leaves lambda off by ~sqrt(tol) (local GD lr = 1/40 at a KKT point: the QP 3.6e-13 above f_k,
            # its gradient 8.5e-7 off g_k); the vertex is kept when its objective is the smaller.  Only at data
            # points: elsewhere a vertex's gradient is that of one quadratic piece, not the interpolant's
            near = np.zeros(0, dtype=np.int64)
            if self._vertex_ok:
                near = np.flatnonzero(np.linalg.norm(self.X - x[None, :], axis=1)
                                      <= VERTEX_RTOL * max(1.0, float(np.linalg.norm(x))))
            if near.size:
                d = x[None, :] - self.S[near]
                qk = 0.5 * self.L * np.einsum("kd,kd->k", d, d) + self.c[near]
                j = int(np.argmin(qk))
                zc = x - lam @ self.S
                qlam = 0.5 * self.L * float(zc @ zc) + float(lam @ self.c)
                # within the QP's own tolerance of its objective: for interpolable data the vertex is the exact
                # minimiser and the QP's lambda only its approximation (local GD, symmetric start: a lambda 1e-13
                # better in objective carried a gradient 1.5e-11 off, and the replay drifted to 2.5e-8)
                if qk[j] <= qlam + VERTEX_QTOL * (1.0 + abs(qlam)):
                    lam = np.zeros(self.m)
                    lam[int(near[j])] = 1.0
        z = x - lam @ self.S
        return float(0.5 * self.L * z @ z + lam @ self.c), self.L * z

    def _vertex_without_qp(self, x: np.ndarray) -> int | None:
        r"""The vertex ``e_k`` of :meth:`__call__`'s check, decided without the QP where its Frank-Wolfe gap already
        settles it: at a data point ``x_k`` (:data:`VERTEX_RTOL`; the nearest-objective one, as in ``__call__``) of
        interpolable data (``vertices=True``, :data:`VERTEX_VIOLATION`), the QP's objective
        ``q(lambda) = L/2 ||x - S^T lambda||^2 + c . lambda`` is convex on the simplex, so
        ``q(e_k) - min q <= gap = grad_k - min_j grad_j`` with ``grad_j = c_j - L <s_j, x - s_k>`` (at ``x = x_k``
        exactly ``grad_j - grad_k`` is the violation of the condition between ``j`` and ``k``).  When ``gap`` is
        within :data:`VERTEX_QTOL` (relative) ``q(e_k) <= min q + tol <= q(lambda_QP) + tol`` and ``__call__``
        would keep ``e_k`` after its QP: ``k`` is returned, the QP skipped.  ``None`` (solve the QP) otherwise."""
        if not self._vertex_ok:
            return None
        near = np.flatnonzero(np.linalg.norm(self.X - x[None, :], axis=1)
                              <= VERTEX_RTOL * max(1.0, float(np.linalg.norm(x))))
        if not near.size:
            return None
        d = x[None, :] - self.S[near]
        qk = 0.5 * self.L * np.einsum("kd,kd->k", d, d) + self.c[near]
        j = int(np.argmin(qk))
        k = int(near[j])
        grad = self.c - self.L * (self.S @ (x - self.S[k]))
        gap = float(grad[k] - grad.min())
        if not (math.isfinite(gap) and gap <= VERTEX_QTOL * (1.0 + abs(float(qk[j])))):
            return None
        return k


class InterpolatedProblem(FederatedProblem):
    """A federated problem whose client ``i`` is the interpolant of the worst-case data of client ``i``."""

    def __init__(self, inst: Instance) -> None:
        self.inst = inst
        self.clients = [SmoothConvexInterpolant(pts, inst.L) for pts in inst.points]
        self.n, self.d = len(self.clients), inst.dim
        self._set_weights(inst.p, self.n)

    def _eval(self, W: Any, clients: Any) -> tuple[np.ndarray, np.ndarray]:
        c = self.client_index(clients)
        W = np.asarray(W, dtype=np.float64)
        idx = range(self.n) if c is None else c
        out = [self.clients[int(i)](W[k]) for k, i in enumerate(idx)]
        return np.array([v for v, _ in out]), np.array([g for _, g in out])

    def losses_each(self, W: Any, clients: Any = None) -> Any:
        return self._eval(W, clients)[0]

    def grads_each(self, W: Any, clients: Any = None) -> Any:
        return self._eval(W, clients)[1]

    def loss_grad_each(self, W: Any, clients: Any = None) -> tuple[Any, Any]:
        return self._eval(W, clients)

    def hessians(self, w: Any) -> Any:
        raise FairtheoryValueError("an interpolated worst-case problem has no closed-form Hessian")

    def cvxpy_losses(self, w: Any) -> list[Any]:
        raise FairtheoryValueError("an interpolated worst-case problem has no cvxpy form")

    def smoothness(self) -> float:
        return float(self.inst.L)

    def initial_point(self) -> Any:
        return self.inst.x0.copy()

    def G(self, x: np.ndarray) -> float:
        """``sum_i p_i g_i(x)`` (``G* = G(theta*) = 0`` by construction of the data)."""
        return float(self.p @ self.losses(x))


def replay_fedavg(inst: Instance) -> dict[str, float]:
    r"""Run the project's FedAvg (:func:`fairtheory.algorithms.fedavg.make`, full participation, default
    aggregator ``sum_i p_i g_i``) on the interpolated worst case with 002 Algorithm 1's schedule (one
    round of one local step, then ``T_N`` rounds of ``kappa``) and return ``G(output) - G(theta*)`` for the
    ``"average"`` and ``"last"`` outputs (FedAvg exposes server models only) plus ``||grad G(theta*)||``."""
    from fairtheory.algorithms import fedavg
    from fairtheory.algorithms.base import run

    prm = inst.params
    if prm.get("K") is not None:
        raise FairtheoryValueError("replay_fedavg replays full participation only")
    prob = InterpolatedProblem(inst)
    lr, kappa, T_N = float(prm["lr"]), int(prm["kappa"]), int(prm["T_N"])
    first = 1 if prm.get("schedule", "rfedfair") == "rfedfair" else kappa
    servers = []
    alg1 = fedavg.make(prob, lr=lr, kappa=first)
    state, _ = run(alg1, 1, state=alg1.init(inst.x0.copy()), record_losses=False)
    servers.append(np.asarray(state.w, dtype=np.float64))
    alg = fedavg.make(prob, lr=lr, kappa=kappa)
    for _ in range(T_N):
        state, _ = run(alg, 1, state=state, record_losses=False)
        servers.append(np.asarray(state.w, dtype=np.float64))
    grad_star = np.asarray(prob.p @ prob.grads(np.zeros(prob.d)))
    return {"average": prob.G(np.mean(servers, axis=0)), "last": prob.G(servers[-1]),
            "grad_G_star": float(np.linalg.norm(grad_star))}


def replay_scaffold(inst: Instance) -> dict[str, float]:
    """Run the project's Scaffold (:func:`fairtheory.algorithms.scaffold.make`, ``K=None``) on the
    interpolated worst case of :func:`~fairtheory.worstcase.scaffold.scaffold_worst_case`; returns
    ``G(x_R) - G*`` (``"last"``) and ``G(1/R sum_r x_r) - G*`` (``"average"``)."""
    from fairtheory.algorithms import scaffold
    from fairtheory.algorithms.base import run

    prm = inst.params
    prob = InterpolatedProblem(inst)
    alg = scaffold.make(prob, kappa=int(prm["kappa"]), lr=float(prm["lr"]), server_lr=float(prm["server_lr"]))
    state = alg.init(inst.x0.copy(), warm_start=bool(prm["warm_start"]))
    xs = []
    for _ in range(int(prm["R"])):
        state, _ = run(alg, 1, state=state, record_losses=False)
        xs.append(np.asarray(state.w, dtype=np.float64))
    return {"last": prob.G(xs[-1]), "average": prob.G(np.mean(xs, axis=0))}


def _outcomes(p: np.ndarray, K: int) -> list[tuple[float, np.ndarray]]:
    out = []
    for combo in itertools.combinations_with_replacement(range(p.size), K):
        counts = np.bincount(combo, minlength=p.size)
        prob = math.factorial(K) * np.prod([p[i] ** c / math.factorial(c) for i, c in enumerate(counts)])
        if prob > 0:
            out.append((float(prob), counts / K))
    return out


def simulate_local_gd(grad: Callable[[int, np.ndarray], np.ndarray], *, p: np.ndarray, x0: np.ndarray,
                      lr: float, kappa: int, T_N: int, K: int | None = None) -> list[tuple[float, dict[str, np.ndarray]]]:
    r"""002 Algorithm 1 (all clients step; averaging when ``kappa`` divides ``t``; ``T = T_N kappa + 2``) on
    oracles ``grad(i, x)``, step ``lr``.  Returns ``[(probability, {"average", "path_average", "last"})]`` (the outputs
    of :mod:`fairtheory.worstcase.local_gd`): one entry for full
    participation, one per draw sequence (exact expectation) for ``K`` draws with replacement."""
    n = p.size
    outcomes = None if K is None else _outcomes(p, K)
    nodes: list[tuple[float, np.ndarray, list[np.ndarray], list[np.ndarray]]] = [(1.0, x0, [], [x0])]
    for r in range(T_N + 1):
        steps = 1 if r == 0 else kappa
        new = []
        for prob, th, sp_, vp in nodes:
            Y = [th.copy() for _ in range(n)]
            avgs = []
            for s in range(steps):
                Y = [Y[i] - lr * grad(i, Y[i]) for i in range(n)]
                if s < steps - 1:
                    avgs.append(sum(p[i] * Y[i] for i in range(n)))
            branches = [(1.0, sum(p[i] * Y[i] for i in range(n)))] if outcomes is None else \
                [(q, sum(w[i] * Y[i] for i in range(n))) for q, w in outcomes]
            for q, srv in branches:
                new.append((prob * q, srv, sp_ + [srv], vp + avgs + [srv]))
        nodes = new
    return [(pr, {"average": np.mean(sp_, axis=0), "path_average": np.mean(vp, axis=0), "last": th})
            for pr, th, sp_, vp in nodes]
