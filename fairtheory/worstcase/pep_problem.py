r"""A federated problem whose clients are the worst-case functions of a PEP (the traced backend's problem).

:class:`PEPProblem` is a :class:`~fairtheory.problems.base.FederatedProblem` of ``n`` clients with weights
``p`` in which client ``i`` is an *arbitrary* ``L``-smooth, ``mu``-strongly convex function ``f_i`` on a
space of free dimension (the function class of Taylor, Hendrickx & Glineur 2017), with

* a common minimiser ``x*`` of ``sum_i p_i f_i`` (shifted to the origin, ``f_i(x*) = 0``, so ``f* = 0``):
  ``sum_i p_i grad f_i(x*) = 0``;
* the heterogeneity bound ``sum_i p_i ||grad f_i(x*)||^2 <= rho2``;
* the starting point ``x0`` with ``||x0 - x*||^2 <= D0``.

Its evaluations return symbolic arrays (:mod:`fairtheory.worstcase.gram_array`): ``grads_each(W)`` asks
each row's client for its gradient at that row (a new Gram basis vector the first time, the recorded one
when the point was seen), ``losses_each`` for the value (a new value variable), so an algorithm's own
``make(problem, **hyper)`` runs unchanged on it.  :func:`fairtheory.worstcase.worst_case` then adds the
objective and solves the SDP.

``mu > 0``: ``f_i`` is ``mu``-strongly convex and ``L``-smooth iff ``h_i = f_i - mu/2 ||. - x*||^2`` is
``(L - mu)``-smooth convex; the PEP's functions are the ``h_i`` (interpolation conditions of
:class:`fairtheory.worstcase.sdp.PEP`), each client point ``(x, g, f)`` is stored as
``(x, g - mu x, f - mu/2 ||x||^2)``.

Units: the PEP is posed in the normalised units of :func:`fairtheory.worstcase.local_gd_worst_case`: with
``s^2 = D0 + rho2/L^2`` and ``S = L s^2``, a point ``x``, gradient ``g`` and value ``f`` enter the SDP as ``x/s``,
``g/(L s)``, ``f/S`` of a ``(1 - mu/L)``-smooth convex function, the constraints as ``||x0'||^2 <= D0/s^2`` and
``sum_i p_i ||g_i'(x*)||^2 <= rho2/(L s)^2``, and values are scaled back by ``S``.  The algorithm's arrays hold
``x/s`` (its step sizes are used as given): a linear method commutes with the common scale ``1/s`` of every
vector, so the starting point is the basis vector ``e_0`` itself and a gradient is ``L e_k`` - with ``L = 1`` and
dyadic step sizes and weights the SDP data are the hand-written PEPs' to the bit.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive, check_probability_vector
from fairtheory.errors import FairtheoryValueError
from fairtheory.problems.base import FederatedProblem
from fairtheory.worstcase.gram_array import GramArray, GramNamespace, NotRepresentableError, ValueArray, oracle_rows
from fairtheory.worstcase.local_gd import MAX_PEP_DIM, scaled, units
from fairtheory.worstcase.sdp import PEP, Function, Scalar, Vec, sqnorm

__all__ = ["PEPProblem"]


class PEPProblem(FederatedProblem):
    """``n`` worst-case clients of a PEP as a federated problem (module doc).

    Parameters
    ----------
    n : clients (``>= 1``).
    L : smoothness of every client (``> 0``).  mu : strong convexity, ``0 <= mu < L``.
    p : client weights (default uniform; positive).
    D0 : bound on ``||x0 - x*||^2`` (``>= 0``).  rho2 : bound on ``sum_i p_i ||grad f_i(x*)||^2`` (``>= 0``).
    d : the logical model dimension the arrays report (their last axis); the PEP itself is dimension-free
        and no coordinate is ever read (``>= 2``, so coordinate-wise operations are caught).
    """

    def __init__(self, n: int, *, L: float, mu: float = 0.0, p: Any = None, D0: float, rho2: float,
                 d: int = 2) -> None:
        self.n = check_integer(n, "n", low=1, high=MAX_PEP_DIM - 1)  # n - 1 optimum gradients and x0 are basis vectors
        self.L = check_positive(L, "L")
        self.mu = check_in_range(mu, "mu", low=0.0)
        if not self.mu < self.L:
            raise FairtheoryValueError(f"mu must satisfy 0 <= mu < L = {self.L}, got {mu!r}")
        self.D0 = check_in_range(D0, "D0", low=0.0)
        self.rho2 = check_in_range(rho2, "rho2", low=0.0)
        if self.D0 == 0 and self.rho2 == 0:
            raise FairtheoryValueError("D0 and rho2 are both 0: the worst case is 0 (nothing to compute)")
        self.d = check_integer(d, "d", low=2)
        p_arr = np.full(self.n, 1.0 / self.n) if p is None else check_probability_vector(p, "p")
        if p_arr.shape != (self.n,):
            raise FairtheoryValueError(f"p must have shape ({self.n},) (one weight per client), got {p_arr.shape}")
        if np.any(p_arr <= 0):
            raise FairtheoryValueError("p must be positive (a client of weight 0 plays no part)")
        self.p = p_arr
        self._p_in = p
        #: exact S and normalised constraint levels (rationals of the float inputs; fairtheory.worstcase.local_gd.units)
        self.S_exact, self.D0_level, self.rho2_level = units(self.L, self.D0, self.rho2)
        s2 = self.S_exact / Fraction(self.L)  # D0 + rho2/L^2, exactly
        s2f = scaled(1.0, s2)
        self.unit = scaled(1.0, self.S_exact)  # value unit S
        if not (0 < s2f < math.inf and math.isfinite(self.unit) and self.unit > 0):
            raise FairtheoryValueError(
                f"the units of this class are beyond float64: distance^2 D0 + rho2/L^2 = {s2f:.3g} and value "
                f"L D0 + rho2/L = {self.unit:.3g} (L={L!r}, D0={D0!r}, rho2={rho2!r}); rescale the problem "
                "(the worst case is homogeneous: it scales with L D0 + rho2/L)")
        self.s = math.sqrt(s2f)  # distance unit
        self.pep = PEP()
        self.xp = GramNamespace(self.pep, self.d)
        # normalised client functions h_i' = f_i'/S - (mu/L)/2 ||x'||^2, (1 - mu/L)-smooth convex,
        # minimiser of sum p_i f_i at x* = 0 with f_i(x*) = 0
        self.funcs: list[Function] = [self.pep.function(1.0 - self.mu / self.L, f"f{i}") for i in range(self.n)]
        stars = [self.pep.vector() for _ in range(self.n - 1)]
        last = Vec(np.zeros(0))
        for i in range(self.n - 1):
            last = last - float(self.p[i] / self.p[-1]) * stars[i]
        stars.append(last)
        self.stars = stars  # normalised optimum gradients
        zero = Vec(np.zeros(0))
        #: every oracle call that created a point, in order: (client, normalised point x/s); evaluation e has
        #: gradient basis vector n + e and value variable e (the recurrence a certificate statement records)
        self.evaluations: list[tuple[int, Vec]] = []
        #: per client: key of the point -> (gradient and value as the algorithm sees them, normalised value)
        self._seen: list[dict[bytes, tuple[Vec, Scalar, Scalar]]] = [{} for _ in range(self.n)]
        for i, (f, g) in enumerate(zip(self.funcs, stars, strict=True)):
            f.add_point(zero, g, Scalar())
            self._seen[i][zero.key()] = (g * self.L, Scalar(), Scalar())
        x0 = self.pep.vector()
        self._x0n = x0  #: the normalised starting point x0/s
        self.x0 = GramArray(x0.c.copy(), self.xp)  # the arrays hold x/s (module doc)

    def __repr__(self) -> str:
        return (f"PEPProblem(n={self.n}, L={self.L}, mu={self.mu}, D0={self.D0}, rho2={self.rho2}, "
                f"basis={self.pep.dim})")

    # ------------------------------------------------------------ the oracle
    def oracle(self, i: int, x: Vec) -> tuple[Vec, Scalar]:
        """Gradient and value of client ``i`` at the symbolic point ``x``, as the algorithm sees them (``x/s``
        scale, module doc; new symbols unless the point was seen)."""
        g, f, _ = self._point(i, x)
        return g, f

    def _point(self, i: int, x: Vec) -> tuple[Vec, Scalar, Scalar]:
        key = x.key()
        seen = self._seen[i]
        if key in seen:
            return seen[key]
        if self.pep.dim >= MAX_PEP_DIM:
            raise FairtheoryValueError(
                f"the traced PEP reached Gram dimension {self.pep.dim} (limit {MAX_PEP_DIM}: the SDP would need many "
                "GiB and hours); use fewer rounds / local steps / clients / draws")
        gn = self.pep.vector()
        fn = self.pep.value()
        xn = x  # the arrays hold x/s already
        self.evaluations.append((i, xn))
        if self.mu > 0:
            r = self.mu / self.L
            self.funcs[i].add_point(xn, gn - r * xn, fn - (0.5 * r) * sqnorm(xn))
        else:
            self.funcs[i].add_point(xn, gn, fn)
        out = (gn * self.L, fn * self.L, fn)  # g/s = L g', f/s^2 = L f' (module doc)
        seen[key] = out
        return out

    def _rows(self, W: Any, clients: Any) -> tuple[ValueArray, GramArray]:
        c = self.client_index(clients)
        W = self._check_models(W, c)
        idx = list(range(self.n)) if c is None else [int(i) for i in c]
        return oracle_rows(W, idx, lambda k, x: self.oracle(idx[k], x))

    def _check_models(self, W: Any, c: Any) -> GramArray:
        k = self.n if c is None else int(c.size)
        if not isinstance(W, GramArray) or W.xp is not self.xp:
            raise NotRepresentableError(
                f"W must be a symbolic model array of this PEP problem (from its own models), got {type(W).__name__}: "
                "evaluating a PEP client at numbers")
        if W.shape != (k, self.d):
            raise FairtheoryValueError(f"W must have shape {(k, self.d)}, got {W.shape}")
        return W

    def as_model(self, w: Any, name: str = "w") -> GramArray:
        if not isinstance(w, GramArray) or w.xp is not self.xp:
            raise NotRepresentableError(
                f"{name} must be a symbolic model of this PEP problem, got {type(w).__name__}: a numeric model")
        if w.shape != (self.d,):
            raise FairtheoryValueError(f"{name} must have shape ({self.d},), got {w.shape}")
        return w

    # ------------------------------------------------------------ FederatedProblem
    def losses_each(self, W: Any, clients: Any = None) -> ValueArray:
        return self._rows(W, clients)[0]

    def grads_each(self, W: Any, clients: Any = None) -> GramArray:
        return self._rows(W, clients)[1]

    def loss_grad_each(self, W: Any, clients: Any = None) -> tuple[ValueArray, GramArray]:
        return self._rows(W, clients)

    def _broadcast(self, w: Any) -> GramArray:
        w = self.as_model(w)
        return self.xp.broadcast_to(w[None, :], (self.n, self.d))

    def hessians(self, w: Any) -> Any:
        raise NotRepresentableError("hessians(...) is not PEP-representable (the clients are arbitrary functions)")

    def cvxpy_losses(self, w: Any) -> list[Any]:
        raise NotRepresentableError("cvxpy_losses(...) is not PEP-representable (the clients are arbitrary functions)")

    def smoothness(self) -> float:
        return self.L

    def strong_convexity(self) -> float:
        return self.mu

    def initial_point(self) -> GramArray:  # type: ignore[override]
        """The symbolic starting point ``x0`` (``||x0 - x*||^2 <= D0``)."""
        return self.x0

    def weighted_value(self, w: GramArray) -> Scalar:
        """``(sum_i p_i f_i(w) - f*)/S`` as a :class:`Scalar` in normalised units (``f* = 0``; module doc)."""
        x = self.as_model(w).vecs()[0]
        out = Scalar()
        for i in range(self.n):
            out = out + float(self.p[i]) * self._point(i, x)[2]
        return out

    def linear_statement(self, objective: Scalar) -> dict[str, Any]:
        r"""The traced method as a ``"linear"`` certificate statement (:mod:`fairtheory.proofs.pep_kernel`):
        evaluation ``e`` is client ``i`` at ``x_e = c_0 (x0 - x*) + sum_j (c_j / L) g_j`` (physical units: the
        traced arrays hold ``x/s`` with gradients ``g/s = L g'``), the measure ``sum_e w_e f_e`` with the
        objective's weights (the branch probabilities times ``p_i``), the class and the constraint levels as the
        rationals the floats are.  The bound's ``value`` is left 0 (a template for
        :func:`fairtheory.proofs.certificate.certify_pep`)."""
        from fractions import Fraction

        from fairtheory.proofs.certificate import statement
        from fairtheory.worstcase.local_gd import exact_weights

        n, Lq = self.n, Fraction(self.L)
        evals = []
        for i, x in self.evaluations:
            coef = []
            for j in np.flatnonzero(x.c):
                c = Fraction(float(x.c[j]))
                if j == n - 1:
                    coef.append([0, str(c)])
                elif j >= n:
                    coef.append([int(j), str(c / Lq)])
                else:
                    raise FairtheoryValueError("the traced iterate uses an optimum gradient: not a method")
            evals.append([i, coef])
        if objective.quad:
            raise FairtheoryValueError("the traced objective is not a weighted sum of function values")
        obj = [[str(Fraction(float(w))), int(k)] for k, w in sorted(objective.lin.items()) if w != 0]
        return statement(method={"name": "linear", "evaluations": evals, "objective": obj}, n=n,
                         p=exact_weights(self._p_in, self.p), L=self.L, mu=self.mu,
                         bound={"form": "constrained", "D0": self.D0, "rho2": self.rho2, "value": 0})

    def constraints(self) -> tuple[Scalar, Scalar | None]:
        """Normalised ``||x0||^2 <= D0`` and ``sum_i p_i ||grad f_i(x*)||^2 <= rho2`` as ``Scalar <= 0``
        with exact rational levels (the second ``None`` for one client)."""
        c1 = sqnorm(self._x0n) - self.D0_level
        if self.n == 1:
            return c1, None
        c2 = Scalar()
        for pi, g in zip(self.p, self.stars, strict=True):
            c2 = c2 + float(pi) * sqnorm(g)
        return c1, c2 - self.rho2_level
