r"""A federated problem whose clients are the worst-case functions of a PEP (the traced backend's problem).

:class:`PEPProblem` is a :class:`~fairtheory.problems.base.FederatedProblem` of ``n`` clients with weights
``p`` in which client ``i`` is an *arbitrary* ``L_i``-smooth, ``mu_i``-strongly convex function ``f_i`` on a
space of free dimension (the function class of Taylor, Hendrickx & Glineur 2017; ``L``, ``mu`` scalars or one
per client), with

* a common minimiser ``x*`` of ``sum_i p_i f_i`` (shifted to the origin, ``f_i(x*) = 0``, so ``f* = 0``):
  ``sum_i p_i grad f_i(x*) = 0``;
* the heterogeneity bound ``sum_i p_i ||grad f_i(x*)||^2 <= rho2``;
* the starting point ``x0`` with ``||x0 - x*||^2 <= D0``.

Its evaluations return symbolic arrays (:mod:`fairtheory.worstcase.gram_array`): ``grads_each(W)`` asks
each row's client for its gradient at that row (a new Gram basis vector the first time, the recorded one
when the point was seen), ``losses_each`` for the value (a new value variable), so an algorithm's own
``make(problem, **hyper)`` runs unchanged on it.  :func:`fairtheory.worstcase.worst_case` then adds the
objective and solves the SDP.

``mu_i > 0``: ``f_i`` is ``mu_i``-strongly convex and ``L_i``-smooth iff ``h_i = f_i - mu_i/2 ||. - x*||^2`` is
``(L_i - mu_i)``-smooth convex (an exact equivalence, Taylor, Hendrickx & Glineur 2017, Sec. 3); the PEP's
functions are the ``h_i`` (interpolation conditions of :class:`fairtheory.worstcase.sdp.PEP`), each client point
``(x, g, f)`` is stored as ``(x, g - mu_i x, f - mu_i/2 ||x||^2)``.

Oracles beyond the exact gradient (docs/worstcase.md, "Oracles and measures in traced worst cases"):

* ``sigma2 > 0`` (stochastic gradients): every gradient a method asks for (``grads_each``,
  ``loss_grad_each``) is ``grad f_i(x) + e`` with ``e`` drawn from a zero-mean distribution of ``m =
  noise_atoms`` equally likely atoms ``e_1, ..., e_m`` (``sum_j e_j = 0``, ``1/m sum_j ||e_j||^2 <= sigma2``):
  one distribution per client and query point (new basis vectors the first time), a fresh independent draw
  per call, asked of the traced step's scripted generator (:mod:`fairtheory.worstcase.traced` branches on it);
* ``grad_eps = eps > 0`` (relative inexactness, e.g. compression): the gradient returned is ``d`` with
  ``||d - grad f_i(x)|| <= eps ||grad f_i(x)||`` (one residual vector and one row per client and point: a
  deterministic inexact oracle; the noise, if any, is added to ``d``);
* :meth:`prox_each` (proximal steps, exact or FedProx ``gamma``-inexact, Li et al. 2020, Def. 1);
* ``constrained=True`` and :meth:`project_each` (projections onto a closed convex set ``C``, below).

``constrained=True``: ``F = sum_i p_i f_i`` is minimised over an *arbitrary* closed convex set ``C``, given by its
indicator ``i_C`` - one more function of the PEP, of the class
:class:`~fairtheory.worstcase.classes.ConvexIndicator` (exact interpolation conditions ``<s_k, x_j - x_k> <= 0``
for every pair of its points ``(x_j, s_j, 0)``, ``s_j`` a normal vector of ``C`` at ``x_j``; Taylor, Hendrickx &
Glineur 2017, SIAM J. Optim., Thm 3.6).  ``x* = 0`` is a minimiser of ``F + i_C``: ``x* in C`` and
``0 in sum_i p_i grad f_i(x*) + N_C(x*)`` (the subdifferential sum rule, ``F`` finite everywhere: Rockafellar
1970, Thm 23.8), so the ``n`` optimum gradients ``grad f_i(x*)`` are all free (``n`` basis vectors instead of
``n - 1``) and ``s* = -sum_i p_i grad f_i(x*)`` is a normal vector at ``x*``: the point ``(0, s*, 0)`` of the
indicator.  ``rho2`` still bounds ``sum_i p_i ||grad f_i(x*)||^2`` (also for ``n = 1``, where ``grad f(x*)`` need no
longer vanish; ``rho2 = 0`` makes every ``grad f_i(x*)`` the zero vector instead of a row).  ``x0`` is arbitrary
(not necessarily in ``C``; PEPit's projected / proximal gradient examples), ``||x0 - x*||^2 <= D0``.
:meth:`project_each` is the projection ``x = P_C(y)``: ``x = y - s`` with ``s`` a new basis vector (a normal vector
of ``C`` at ``x``) and ``(x, s, 0)`` a new point of the indicator (PEPit's ``proximal_step`` of an indicator;
:meth:`fairtheory.worstcase.sdp.Function.project`).  The worst case is over
every such ``C`` (``C = R^d`` included).  Without ``constrained=True`` nothing changes: the same basis, rows and
objective, bit for bit.

Units: the PEP is posed in the normalised units of :func:`fairtheory.worstcase.local_gd_worst_case` with
``L = max_i L_i``: with ``S = L D0 + (rho2 + sigma2)/L`` and ``s^2 = S/L``, a point ``x``, gradient ``g`` and
value ``f`` enter the SDP as ``x/s``, ``g/(L s)``, ``f/S`` (client ``i`` normalised is ``(L_i - mu_i)/L``-smooth
convex after the shift by ``mu_i/L``), the constraints as ``||x0'||^2 <= L D0/S``,
``sum_i p_i ||g_i'(x*)||^2 <= (rho2/L)/S``, ``1/m sum_j ||e_j'||^2 <= (sigma2/L)/S``, and values are scaled back
by ``S``.  The algorithm's arrays hold ``x/s`` (its step sizes are used as given): a linear method commutes
with the common scale ``1/s`` of every vector, so the starting point is the basis vector ``e_0`` itself and a
gradient is ``L e_k`` - with ``L = 1`` and dyadic step sizes and weights the SDP data are the hand-written PEPs'
to the bit.  Scalar ``L``, ``mu`` and ``sigma2 = grad_eps = 0`` build exactly the SDP data of the plain class.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive, check_probability_vector
from fairtheory.backend import to_numpy
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems.base import FederatedProblem
from fairtheory.proofs.certificate import statement
from fairtheory.worstcase import units as dimensions
from fairtheory.worstcase.classes import ConvexIndicator, SmoothStronglyConvex, needs_own_minimiser, rescale
from fairtheory.worstcase.finish import exact_weights
from fairtheory.worstcase.gram_array import (
    GramArray,
    GramNamespace,
    NotRepresentableError,
    ValueArray,
    is_symbolic,
    oracle_rows,
)
from fairtheory.worstcase.limits import MAX_PEP_DIM, check_size
from fairtheory.worstcase.results import scaled, units
from fairtheory.worstcase.sdp import PEP, Function, Scalar, Vec, sqnorm

__all__ = ["PEPProblem", "MEASURES", "MAX_NOISE_ATOMS"]

#: the performance measures a traced worst case can maximise (:meth:`PEPProblem.measure`)
MEASURES = ("value", "grad_norm", "distance")
#: largest number of atoms of a noise distribution (each noisy query branches ``noise_atoms`` ways)
MAX_NOISE_ATOMS = 8


def _is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) or (isinstance(x, np.ndarray) and x.ndim == 0)


def _per_client(x: Any, name: str, n: int) -> np.ndarray:
    """A per-client constant (``n`` finite numbers) as float64; the range is checked by the caller."""
    if isinstance(x, (str, bytes)) or isinstance(x, bool):
        raise FairtheoryTypeError(f"{name} must be a number or one number per client (length {n}), got {x!r}")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise FairtheoryTypeError(f"{name} must be a number or one number per client (length {n}), got {x!r}") from exc
    if arr.shape != (n,):
        raise FairtheoryValueError(f"{name} must be a number or have shape ({n},) (one per client), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise FairtheoryValueError(f"{name} must hold finite numbers, got {arr.tolist()}")
    return arr


def _classes(L: Any, mu: Any, n: int) -> tuple[float, float, np.ndarray, np.ndarray, bool]:
    """``(max L_i, min mu_i, L_each, mu_each, per_client)`` with ``L_i > 0`` and ``0 <= mu_i < L_i``; scalars
    are validated exactly as the scalar class always was (the same floats, so the same SDP data)."""
    per_client = not (_is_scalar(L) and _is_scalar(mu))
    if _is_scalar(L):
        L_f = check_positive(L, "L")
        L_each = np.full(n, L_f)
    else:
        L_each = _per_client(L, "L", n)
        if np.any(L_each <= 0):
            raise FairtheoryValueError(f"L must be positive for every client (L_i > 0), got {L_each.tolist()}")
        L_f = float(L_each.max())
    if _is_scalar(mu):
        mu_f = check_in_range(mu, "mu", low=0.0)
        mu_each = np.full(n, mu_f)
        if not per_client and not mu_f < L_f:
            raise FairtheoryValueError(f"mu must satisfy 0 <= mu < L = {L_f}, got {mu!r}")
    else:
        mu_each = _per_client(mu, "mu", n)
        mu_f = float(mu_each.min())
    bad = np.flatnonzero((mu_each < 0) | ~(mu_each < L_each))
    if bad.size:
        i = int(bad[0])
        raise FairtheoryValueError(f"mu must satisfy 0 <= mu_i < L_i for every client; client {i} has mu_i = "
                                   f"{mu_each[i]!r}, L_i = {L_each[i]!r}")
    return L_f, mu_f, L_each, mu_each, per_client


class PEPProblem(FederatedProblem):
    """``n`` worst-case clients of a PEP as a federated problem (module doc).

    Parameters
    ----------
    n : clients (``>= 1``).
    L : smoothness, a number (every client) or one per client (``L_i > 0``; the units use ``max_i L_i``).
    mu : strong convexity, a number or one per client, ``0 <= mu_i < L_i``.
    p : client weights (default uniform; positive).
    D0 : bound on ``||x0 - x*||^2`` (``>= 0``).  rho2 : bound on ``sum_i p_i ||grad f_i(x*)||^2`` (``>= 0``).
    d : the logical model dimension the arrays report (their last axis); the PEP itself is dimension-free
        and no coordinate is ever read (``>= 2``, so coordinate-wise operations are caught).
    sigma2 : variance bound of the stochastic gradients (``>= 0``; 0: exact gradients).
    noise_atoms : atoms ``m`` of each noise distribution (an integer in ``[2, 8]``; used when ``sigma2 > 0``).
    grad_eps : relative gradient inexactness ``eps`` in ``[0, 1)`` (0: exact gradients).
    constrained : ``True``: minimise ``sum_i p_i f_i`` over an arbitrary closed convex set ``C`` (module doc;
        :meth:`project_each` projects onto it).  ``False`` (default): unconstrained, the SDP data unchanged.
    classes : instead of ``L`` / ``mu``: any function class of :mod:`fairtheory.worstcase.classes` (one for every
        client, or one per client; ``L`` must then be ``None``).  Client ``i`` is a function of its class, entered in the
        normalised units through :func:`~fairtheory.worstcase.classes.rescale` (``x' = x/s``, ``f' = f/S``) without the
        strong-convexity shift; the units use ``L`` = the largest finite ``L`` of the classes (1 when none has one).
        Classes whose conditions refer to each function's own minimiser (QG+, RSI/EB, Lojasiewicz, quadratics) need
        ``n = 1`` unconstrained (the clients share only the minimiser of their sum).  Nonsmooth classes answer one
        subgradient per client and point (a deterministic oracle, as for the smooth clients).
    ``D0 = rho2 = 0`` is refused unless ``sigma2 > 0`` (the worst case is 0).
    """

    def __init__(self, n: int, *, L: Any, mu: Any = 0.0, p: Any = None, D0: float, rho2: float,
                 d: int = 2, sigma2: float = 0.0, noise_atoms: int = 2, grad_eps: float = 0.0,
                 constrained: bool = False, classes: Any = None) -> None:
        if not isinstance(constrained, (bool, np.bool_)):
            raise FairtheoryTypeError(f"constrained must be True or False, got {constrained!r}")
        #: whether ``sum_i p_i f_i`` is minimised over a closed convex set ``C`` (module doc)
        self.constrained = bool(constrained)
        self.n = check_integer(n, "n", low=1, high=MAX_PEP_DIM - 1)  # n - 1 optimum gradients and x0 are basis vectors
        #: the clients' classes when given by ``classes=`` (``None``: smooth strongly convex from ``L``, ``mu``)
        self.classes = _client_classes(classes, self.n, L, self.constrained)
        if self.classes is not None:
            L, mu = _reference_L(self.classes, D0, rho2, sigma2), 0.0
        self.L, self.mu, self.L_each, self.mu_each, self.per_client = _classes(L, mu, self.n)
        self.D0 = check_in_range(D0, "D0", low=0.0)
        self.rho2 = check_in_range(rho2, "rho2", low=0.0)
        self.sigma2 = check_in_range(sigma2, "sigma2", low=0.0)
        self.noise_atoms = check_integer(noise_atoms, "noise_atoms", low=2, high=MAX_NOISE_ATOMS)
        self.grad_eps = check_in_range(grad_eps, "grad_eps", low=0.0, high=1.0, high_inclusive=False)
        if self.D0 == 0 and self.rho2 == 0 and self.sigma2 == 0:
            raise FairtheoryValueError("D0, rho2 and sigma2 are all 0: the worst case is 0 (nothing to compute)")
        self.d = check_integer(d, "d", low=2)
        p_arr = np.full(self.n, 1.0 / self.n) if p is None else check_probability_vector(p, "p")
        if p_arr.shape != (self.n,):
            raise FairtheoryValueError(f"p must have shape ({self.n},) (one weight per client), got {p_arr.shape}")
        if np.any(p_arr <= 0):
            raise FairtheoryValueError("p must be positive (a client of weight 0 plays no part)")
        self.p = p_arr
        self._p_in = p
        #: exact S and normalised constraint levels (rationals of the float inputs; fairtheory.worstcase.results.units)
        if self.sigma2 == 0:
            self.S_exact, self.D0_level, self.rho2_level = units(self.L, self.D0, self.rho2)
            self.sigma2_level = Fraction(0)
        else:
            Lq, Dq, Rq, Sq = (Fraction(v) for v in (self.L, self.D0, self.rho2, self.sigma2))
            self.S_exact = Lq * Dq + (Rq + Sq) / Lq
            self.D0_level, self.rho2_level = Lq * Dq / self.S_exact, (Rq / Lq) / self.S_exact
            self.sigma2_level = (Sq / Lq) / self.S_exact
        s2 = self.S_exact / Fraction(self.L)  # D0 + (rho2 + sigma2)/L^2, exactly
        s2f = scaled(1.0, s2)
        self.unit = scaled(1.0, self.S_exact)  # value unit S
        if not (0 < s2f < math.inf and math.isfinite(self.unit) and self.unit > 0):
            raise FairtheoryValueError(
                f"the units of this class are beyond float64: distance^2 D0 + (rho2 + sigma2)/L^2 = {s2f:.3g} and "
                f"value L D0 + (rho2 + sigma2)/L = {self.unit:.3g} (L={L!r}, D0={D0!r}, rho2={rho2!r}, "
                f"sigma2={sigma2!r}); rescale the problem (the worst case is homogeneous: it scales with "
                "L D0 + (rho2 + sigma2)/L)")
        self.s = math.sqrt(s2f)  # distance unit
        self.pep = PEP()
        self.xp = GramNamespace(self.pep, self.d)
        #: per client: mu_i / L, the shift of the normalised client (module doc)
        self.r_each = [float(m) / self.L for m in self.mu_each]
        # normalised client functions h_i' = f_i'/S - (mu_i/L)/2 ||x'||^2, (L_i - mu_i)/L-smooth convex,
        # minimiser of sum p_i f_i at x* = 0 with f_i(x*) = 0 (L_i/L = 1.0 exactly for the largest L_i)
        if self.classes is None:
            self.funcs: list[Function] = [self.pep.function(float(self.L_each[i]) / self.L - self.r_each[i], f"f{i}")
                                          for i in range(self.n)]
        else:  # any class, rescaled into the normalised units (x' = x/s, f' = f/S), no shift (r_each = 0)
            self.funcs = [self.pep.function(rescale(c, self.s, self.unit), f"f{i}") for i, c in enumerate(self.classes)]
        zero = Vec(np.zeros(0))
        #: the indicator of ``C`` (``constrained=True``; a function of the PEP, not a client)
        self.indicator: Function | None = None
        if self.constrained:
            # 0 in sum_i p_i grad f_i(x*) + N_C(x*): the n optimum gradients are free, s* = -sum_i p_i g_i* is normal;
            # rho2 = 0 forces every g_i* = 0: then they are the zero vector (no row ||.||^2 <= 0 without a strictly
            # feasible point, which the solver meets only to ~1e-6)
            stars = [self.pep.vector() if self.rho2 > 0 else Vec(np.zeros(0)) for _ in range(self.n)]
            normal = Vec(np.zeros(0))
            for i in range(self.n):
                normal = normal - float(self.p[i]) * stars[i]
            self.indicator = self.pep.function(ConvexIndicator(), "C")
            self.indicator.add_point(zero, normal, Scalar())
        else:
            stars = [self.pep.vector() for _ in range(self.n - 1)]
            last = Vec(np.zeros(0))
            for i in range(self.n - 1):
                last = last - float(self.p[i] / self.p[-1]) * stars[i]
            stars.append(last)
        self.stars = stars  # normalised optimum gradients
        #: every plain gradient / value evaluation that created a point, in order: (client, normalised point x/s);
        #: with the plain oracle only, evaluation e has value variable e and gradient basis vector n + e in the
        #: certificate statement (the recurrence it records): ``_statement_basis`` maps the builder's basis index of
        #: that gradient to ``n + e`` (a class's own vectors, e.g. the quadratic's lifting, lie between them)
        self.evaluations: list[tuple[int, Vec]] = []
        self._statement_basis: dict[int, int] = {}
        #: per client: key of the point -> (gradient and value as the algorithm sees them, normalised value,
        #: normalised true gradient)
        self._seen: list[dict[bytes, tuple[Vec, Scalar, Scalar, Vec]]] = [{} for _ in range(self.n)]
        for i, (f, g) in enumerate(zip(self.funcs, stars, strict=True)):
            f.add_point(zero, g, Scalar())
            self._seen[i][zero.key()] = (g * self.L, Scalar(), Scalar(), g)
        x0 = self.pep.vector()
        self._x0n = x0  #: the normalised starting point x0/s
        self.x0 = GramArray(x0.c.copy(), self.xp)  # the arrays hold x/s (module doc)
        #: rows ``Scalar <= 0`` the oracles added (noise variances, inexactness, inexact prox)
        self.oracle_constraints: list[Scalar] = []
        self._atoms: list[dict[bytes, list[Vec]]] = [{} for _ in range(self.n)]
        self._residual: list[dict[bytes, Vec]] = [{} for _ in range(self.n)]
        self._prox: list[dict[tuple[bytes, float, float], Vec]] = [{} for _ in range(self.n)]
        #: whether a method called :meth:`prox_each`
        self.used_prox = False
        #: the projections :meth:`project_each` created (one new point of the indicator each): point key -> x
        self._projections: dict[bytes, Vec] = {}
        #: the scripted generator of the traced step in progress (set by fairtheory.worstcase.traced)
        self._rng: Any = None
        #: noisy gradient queries answered (each one a draw)
        self.noise_draws = 0
        #: refuse new basis vectors beyond what :func:`~fairtheory.worstcase.limits.check_size` accepts (set while
        #: :func:`fairtheory.worstcase.worst_case` traces: its solve would be refused anyway)
        self.size_guard = False

    def __repr__(self) -> str:
        L = self.L_each.tolist() if self.per_client else self.L
        mu = self.mu_each.tolist() if self.per_client else self.mu
        more = "".join(f", {k}={v}" for k, v in (("sigma2", self.sigma2), ("grad_eps", self.grad_eps),
                                                 ("constrained", self.constrained)) if v)
        cls = f"classes={self.classes!r}" if self.classes is not None else f"L={L}, mu={mu}"
        return f"PEPProblem(n={self.n}, {cls}, D0={self.D0}, rho2={self.rho2}{more}, basis={self.pep.dim})"

    @property
    def exact_oracle(self) -> bool:
        """Every gradient the method asks for is exact (``sigma2 = grad_eps = 0``), no prox was taken and the
        problem is unconstrained (no set ``C``, no projection)."""
        return self.sigma2 == 0 and self.grad_eps == 0 and not self.used_prox and not self.constrained

    @property
    def projections(self) -> int:
        """Number of distinct points :meth:`project_each` projected (new points of the indicator of ``C``)."""
        return len(self._projections)

    # ------------------------------------------------------------ symbols
    def _vector(self) -> Vec:
        if self.size_guard:
            # the Gram dimension only grows: refuse as soon as the final solve is bound to be refused
            # (MAX_PEP_DIM, or MAX_SOLVE_SECONDS at this dimension alone), before tracing further branches
            rows = sum(len(f.points) * (len(f.points) - 1) for f in self.pep.functions)
            check_size(self.pep.dim + 1, rows + len(self.oracle_constraints), "worst_case (while tracing)",
                       n_functions=len(self.pep.functions))
        if self.pep.dim >= MAX_PEP_DIM:
            raise FairtheoryValueError(
                f"the traced PEP reached Gram dimension {self.pep.dim} (limit {MAX_PEP_DIM}: the SDP would need many "
                "GiB and hours); use fewer rounds / local steps / clients / draws / noise atoms")
        return self.pep.vector()

    # ------------------------------------------------------------ the oracle
    def oracle(self, i: int, x: Vec) -> tuple[Vec, Scalar]:
        """Exact gradient and value of client ``i`` at the symbolic point ``x``, as the algorithm sees them (``x/s``
        scale, module doc; new symbols unless the point was seen)."""
        g, f, _, _ = self._point(i, x)
        return g, f

    def _point(self, i: int, x: Vec) -> tuple[Vec, Scalar, Scalar, Vec]:
        key = x.key()
        seen = self._seen[i]
        if key in seen:
            return seen[key]
        gn = self._vector()
        fn = self.pep.value()
        xn = x  # the arrays hold x/s already
        self._statement_basis[int(np.flatnonzero(gn.c)[0])] = self.n + len(self.evaluations)
        self.evaluations.append((i, xn))
        r = self.r_each[i]
        if r > 0:
            self.funcs[i].add_point(xn, gn - r * xn, fn - (0.5 * r) * sqnorm(xn))
        else:
            self.funcs[i].add_point(xn, gn, fn)
        out = (gn * self.L, fn * self.L, fn, gn)  # g/s = L g', f/s^2 = L f' (module doc)
        seen[key] = out
        return out

    def gradient_query(self, i: int, x: Vec) -> tuple[Vec, Scalar]:
        """What a method's gradient call returns for client ``i`` at ``x``: the exact gradient, plus the relative
        inexactness residual (``grad_eps > 0``) and a drawn noise atom (``sigma2 > 0``), and the exact value."""
        gL, fL, _, gn = self._point(i, x)
        if self.sigma2 == 0 and self.grad_eps == 0:
            return gL, fL
        key = x.key()
        extra = Vec(np.zeros(0))
        if self.grad_eps > 0:
            res = self._residual[i].get(key)
            if res is None:
                res = self._vector()
                # ||d - grad f_i(x)|| <= eps ||grad f_i(x)||, d = grad f_i(x) + res (normalised units)
                self.oracle_constraints.append(sqnorm(res) - (self.grad_eps ** 2) * sqnorm(gn))
                self._residual[i][key] = res
            extra = extra + res
        if self.sigma2 > 0:
            atoms = self._atoms[i].get(key)
            m = self.noise_atoms
            if atoms is None:
                free = [self._vector() for _ in range(m - 1)]
                last = Vec(np.zeros(0))
                for u in free:
                    last = last - u
                atoms = [*free, last]  # sum_j e_j = 0: zero mean
                var = Scalar()
                for u in atoms:
                    var = var + sqnorm(u)
                self.oracle_constraints.append((1.0 / m) * var - float(self.sigma2_level))
                self._atoms[i][key] = atoms
            extra = extra + atoms[self._draw()]
        return gL + self.L * extra, fL

    def _draw(self) -> int:
        """Index of the noise atom of this query, asked of the traced step's scripted generator."""
        rng = self._rng
        if rng is None:
            raise NotRepresentableError(
                "a stochastic gradient (sigma2 > 0) outside a traced step: its draws are branched only inside "
                "fairtheory.worstcase.worst_case / trace")
        j = int(rng.choice(self.noise_atoms))
        self.noise_draws += 1
        return j

    def _rows(self, W: Any, clients: Any) -> tuple[ValueArray, GramArray]:
        c = self.client_index(clients)
        W = self._check_models(W, c)
        idx = list(range(self.n)) if c is None else [int(i) for i in c]
        return oracle_rows(W, idx, lambda k, x: self.gradient_query(idx[k], x))

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

    # ------------------------------------------------------------ proximal oracle
    def prox_each(self, W: Any, gamma: Any, clients: Any = None, accuracy: Any = None) -> GramArray:
        r"""Row ``k``: the proximal point of its client ``i``, ``argmin_x f_i(x) + ||x - W_k||^2/(2 gamma)``.

        Exact (``accuracy`` None or 0): ``x = W_k - gamma g`` with ``g = grad f_i(x)`` a new basis vector (the
        optimality condition of the strongly convex subproblem; ``x`` is a new point of ``f_i``).  With
        ``accuracy = a`` in ``(0, 1)``: any ``gamma``-inexact solution in the sense of FedProx (Li et al. 2020,
        Def. 1), an ``x`` with ``||grad h(x)|| <= a ||grad h(W_k)||`` for ``h(x) = f_i(x) + ||x - W_k||^2/(2 gamma)``,
        ``grad h(W_k) = grad f_i(W_k)``: ``x = W_k - gamma (g - r)`` with ``r = grad h(x)`` a new residual vector and
        the row ``||r||^2 <= a^2 ||grad f_i(W_k)||^2`` (``f_i`` is evaluated at ``W_k`` too).  The oracle is
        deterministic (the same row, client, ``gamma`` and ``a`` give the same point) and noise-free.

        Parameters
        ----------
        W : symbolic models, shape ``(k, d)`` (``k = n``, or ``len(clients)``).
        gamma : the proximal step ``> 0`` (a number, or one per row).
        clients : the rows' clients (``None``: all ``n`` in order).
        accuracy : ``None`` or ``a`` in ``[0, 1)``.

        Returns
        -------
        GramArray of shape ``(k, d)``.
        """
        c = self.client_index(clients)
        W = self._check_models(W, c)
        idx = list(range(self.n)) if c is None else [int(i) for i in c]
        gam = _gammas(gamma, len(idx))
        a = 0.0 if accuracy is None else check_in_range(accuracy, "accuracy", low=0.0, high=1.0, high_inclusive=False)
        self.used_prox = True
        rows = [self._prox_point(idx[k], w, gam[k], a).c for k, w in enumerate(W.vecs())]
        C = np.zeros((len(rows), self.pep.dim))
        for k, row in enumerate(rows):
            C[k, : row.size] = row
        return GramArray(C, self.xp)

    def _prox_point(self, i: int, w: Vec, gamma: float, a: float) -> Vec:
        key = (w.key(), gamma, a)
        cache = self._prox[i]
        if key in cache:
            return cache[key]
        gn = self._vector()
        if a > 0:
            gw = self._point(i, w)[3]  # grad f_i(W_k), normalised
            res = self._vector()
            self.oracle_constraints.append(sqnorm(res) - (a * a) * sqnorm(gw))
            x = w - (gamma * self.L) * (gn - res)  # arrays hold x/s, gradients L g' (module doc)
        else:
            x = w - (gamma * self.L) * gn
        fn = self.pep.value()
        r = self.r_each[i]
        if r > 0:
            self.funcs[i].add_point(x, gn - r * x, fn - (0.5 * r) * sqnorm(x))
        else:
            self.funcs[i].add_point(x, gn, fn)
        self._seen[i][x.key()] = (gn * self.L, fn * self.L, fn, gn)
        cache[key] = x
        return x

    # ------------------------------------------------------------ projection onto C
    def project_each(self, W: Any, clients: Any = None) -> GramArray:
        r"""Row ``k``: the Euclidean projection ``P_C(W_k)`` onto the constraint set ``C`` (``constrained=True``).

        ``x = P_C(y)`` iff ``x in C`` and ``y - x in N_C(x)`` (the optimality condition of
        ``min_{x in C} ||x - y||^2/2``), so ``x = y - s`` with ``s`` a new basis vector and ``(x, s, 0)`` a new
        point of the indicator of ``C`` (interpolation conditions of
        :class:`~fairtheory.worstcase.classes.ConvexIndicator`, Taylor, Hendrickx & Glineur 2017, SIAM J. Optim.,
        Thm 3.6; PEPit's ``proximal_step`` of an indicator).  ``C`` is common to all clients: ``clients`` only
        fixes the number of rows (as for the other ``*_each`` calls).  Deterministic: the same point gives the
        same projection.  A point already in ``C`` is its own projection; the interpolation conditions force
        ``s = 0`` there (``<s, x_old - x> = ||s||^2 <= 0``).

        Parameters
        ----------
        W : symbolic models, shape ``(k, d)`` (``k = n``, or ``len(clients)``).
        clients : the rows' clients (``None``: all ``n`` in order).

        Returns
        -------
        GramArray of shape ``(k, d)``.
        """
        if not self.constrained:
            raise FairtheoryValueError("project_each needs a constraint set: build the problem with constrained=True "
                                       "(worst_case(..., constrained=True)); this problem is unconstrained")
        c = self.client_index(clients)
        W = self._check_models(W, c)
        rows = [self._project_point(w).c for w in W.vecs()]
        C = np.zeros((len(rows), self.pep.dim))
        for k, row in enumerate(rows):
            C[k, : row.size] = row
        return GramArray(C, self.xp)

    def project(self, w: Any) -> GramArray:
        """The projection ``P_C(w)`` of one model ``w`` of shape ``(d,)`` (:meth:`project_each`)."""
        w = self.as_model(w)
        return self.project_each(self.xp.broadcast_to(w[None, :], (1, self.d)), clients=np.array([0]))[0]

    def _project_point(self, y: Vec) -> Vec:
        key = y.key()
        x = self._projections.get(key)
        if x is not None:
            return x
        assert self.indicator is not None
        s = self._vector()  # a normal vector of C at x (any scale: the indicator's conditions are homogeneous in s)
        x = y - s
        self.indicator.add_point(x, s, Scalar())
        self._projections[key] = x
        return x

    # ------------------------------------------------------------ FederatedProblem
    def losses_each(self, W: Any, clients: Any = None) -> ValueArray:
        c = self.client_index(clients)
        W = self._check_models(W, c)
        idx = list(range(self.n)) if c is None else [int(i) for i in c]
        return oracle_rows(W, idx, lambda k, x: self.oracle(idx[k], x))[0]

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

    def measure(self, name: str, w: GramArray) -> Scalar:
        r"""A performance measure at the model ``w``, divided by the value unit ``S`` (module doc; ``x* = 0``):

        * ``"value"``: ``sum_i p_i f_i(w) - f*`` (:meth:`weighted_value`);
        * ``"grad_norm"``: ``||sum_i p_i grad f_i(w)||^2 / S = L ||sum_i p_i g_i'||^2`` (exact gradients; refused
          with ``constrained=True``: ``grad F(x*)`` need not vanish, so it measures no convergence);
        * ``"distance"``: ``||w - x*||^2 / S = ||w/s||^2 / L``.

        With ``constrained=True`` ``"value"`` is the gap ``F(w) - F*`` of the constrained problem only at models
        ``w`` in ``C`` (projections, or convex combinations of them); the caller's method must put them there."""
        if name == "grad_norm" and self.constrained:
            raise FairtheoryValueError("measure='grad_norm' is refused with constrained=True: the gradient of "
                                       "sum_i p_i f_i does not vanish at a constrained minimiser; use 'value' or "
                                       "'distance'")
        if name == "value":
            return self.weighted_value(w)
        x = self.as_model(w).vecs()[0]
        if name == "grad_norm":
            g = Vec(np.zeros(0))
            for i in range(self.n):
                g = g + float(self.p[i]) * self._point(i, x)[3]
            return self.L * sqnorm(g)
        if name == "distance":
            return (1.0 / self.L) * sqnorm(x)
        raise FairtheoryValueError(f"measure must be one of {MEASURES} (or a list of them), got {name!r}")

    def linear_statement(self, outputs: list[tuple[float, list[GramArray]]], measures: list[str]) -> dict[str, Any]:
        r"""The traced method as a ``"linear"`` certificate statement (:mod:`fairtheory_kernel.pep`):
        evaluation ``e`` is client ``i`` at ``x_e = c_0 (x0 - x*) + sum_j (c_j / L) g_j`` (physical units: the
        traced arrays hold ``x/s`` with gradients ``g/s = L g'``), the ``outputs`` (per leaf its probability and its
        candidate points) and ``measures`` as traced, each client's class by its kernel key
        (:meth:`~fairtheory.worstcase.classes.SmoothStronglyConvex.kernel_class`) and the constraint levels as the
        rationals the floats are.  The bound's ``value`` is left 0 (a template for
        :func:`fairtheory.proofs.certificate.certify_pep`).  Exact gradients only."""
        if not self.exact_oracle:
            raise FairtheoryValueError("certificate statements cover exact gradients and unconstrained problems only "
                                       "(no sigma2, grad_eps, prox_each, constrained)")
        n, Lq = self.n, Fraction(self.L)

        def point(x: Vec) -> list[list[Any]]:
            coef = []
            for j in np.flatnonzero(x.c):
                c = Fraction(float(x.c[j]))
                if j == n - 1:
                    coef.append([0, str(c)])
                elif j in self._statement_basis:
                    coef.append([self._statement_basis[j], str(c / Lq)])
                else:
                    raise FairtheoryValueError("the traced iterate uses an optimum gradient (or a class's own vector): "
                                               "not a method")
            return coef

        classes = self.classes or [SmoothStronglyConvex(Fraction(float(L)), Fraction(float(m)))
                                   for L, m in zip(self.L_each, self.mu_each, strict=True)]
        qs = [Fraction(float(q)) for q, _ in outputs]
        qs[-1] = 1 - sum(qs[:-1])  # the float branch probabilities, the last one completing the sum to 1 exactly
        leaves = [[str(q), [point(self.as_model(w).vecs()[0]) for w in pts]] for q, (_, pts) in zip(qs, outputs, strict=True)]
        return statement(method={"name": "linear", "evaluations": [[i, point(x)] for i, x in self.evaluations],
                                 "measure": list(measures), "outputs": leaves}, n=n,
                         p=exact_weights(self._p_in, self.p), classes=classes,
                         bound={"form": "constrained", "D0": self.D0, "rho2": self.rho2, "value": 0})

    def constraints(self) -> tuple[Scalar, Scalar | None]:
        """Normalised ``||x0||^2 <= D0`` and ``sum_i p_i ||grad f_i(x*)||^2 <= rho2`` as ``Scalar <= 0``
        with exact rational levels (the second ``None`` for one client of an unconstrained problem, whose
        ``grad f(x*) = 0``, and for ``constrained=True, rho2 = 0``, whose optimum gradients are the zero
        vector).  The oracles' own rows are :attr:`oracle_constraints`."""
        c1 = sqnorm(self._x0n) - self.D0_level
        if (self.n == 1 and not self.constrained) or (self.constrained and self.rho2 == 0):
            return c1, None
        c2 = Scalar()
        for pi, g in zip(self.p, self.stars, strict=True):
            c2 = c2 + float(pi) * sqnorm(g)
        return c1, c2 - self.rho2_level


def _client_classes(classes: Any, n: int, L: Any, constrained: bool) -> list[Any] | None:
    """``classes=`` of :class:`PEPProblem` as one class object per client (``None`` when not given)."""
    if classes is None:
        return None
    if L is not None:
        raise FairtheoryValueError("give the clients' class once: classes= or L= (with mu=), not both")
    cs = list(classes) if isinstance(classes, (list, tuple)) else [classes] * n
    if len(cs) != n:
        raise FairtheoryValueError(f"classes must be one class or one per client ({n}), got {len(cs)}")
    for i, c in enumerate(cs):
        if isinstance(c, type) or not (hasattr(c, "interpolation") and hasattr(c, "smooth_convex")):
            raise FairtheoryTypeError(f"classes[{i}] (worst_case's function_class) must be a function class instance of "
                                      f"fairtheory.worstcase.classes (e.g. ConvexLipschitz(1.0)), got {c!r}")
        if needs_own_minimiser(c) and (n > 1 or constrained):
            raise FairtheoryValueError(
                f"classes[{i}] = {c!r} states its conditions at the function's own minimiser; the traced clients share "
                "only the minimiser of their sum (n > 1 or constrained=True): use it with n = 1, unconstrained")
    return cs


def _reference_L(classes: list[Any], D0: Any = 1.0, rho2: Any = 0.0, sigma2: Any = 0.0) -> float:
    """The units' ``L`` for :class:`PEPProblem` ``(classes=...)``: the largest finite ``L`` of the classes; for classes
    without one, the curvature their declared parameters imply (:mod:`fairtheory.worstcase.units`): a gradient bound
    ``M`` (dimension value/space) at the distance unit ``s0 = sqrt(D0)`` (``sqrt(rho2 + sigma2)/M`` when ``D0 = 0``)
    gives ``M / s0`` - the value unit ``S = L s0^2 = M s0``, gradients of size ``M``; else 1.  Any positive choice is
    exact (the problem is homogeneous); this one puts the normalised problem at unit scale."""

    Ls = [float(getattr(c, "L", math.inf)) for c in classes]
    Ls = [v for v in Ls if math.isfinite(v) and v > 0]
    if Ls:
        return max(Ls)
    Ms = []
    for c in classes:
        try:
            dims = dimensions.dimensions(c)
        except FairtheoryTypeError:
            continue
        Ms += [float(getattr(c, k)) for k, d in dims.items() if d == dimensions.GRAD and getattr(c, k, None) is not None]
    Ms = [m for m in Ms if math.isfinite(m) and m > 0]
    try:
        d0, r = float(D0), float(rho2) + float(sigma2)
    except (TypeError, ValueError):
        return 1.0
    if not Ms or not (d0 >= 0 and r >= 0 and math.isfinite(d0) and math.isfinite(r)):
        return 1.0
    M = max(Ms)
    s0 = math.sqrt(d0) if d0 > 0 else math.sqrt(r) / M
    if not (s0 > 0 and math.isfinite(M / s0)):
        return 1.0
    return M / s0


def _gammas(gamma: Any, k: int) -> list[float]:
    """Proximal steps ``gamma > 0``: one number for every row, or ``k`` numbers (one per row)."""
    if _is_scalar(gamma) and not isinstance(gamma, bool):
        return [check_positive(gamma, "gamma")] * k
    if is_symbolic(gamma):
        raise NotRepresentableError("a proximal step gamma computed from symbolic values is not PEP-representable")
    try:
        arr = np.asarray(to_numpy(gamma), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise FairtheoryTypeError(f"gamma must be a number > 0 or one per row (length {k}), got {gamma!r}") from exc
    if arr.shape != (k,):
        raise FairtheoryValueError(f"gamma must be a number > 0 or have shape ({k},) (one per row), got {arr.shape}")
    return [check_positive(float(v), f"gamma[{j}]") for j, v in enumerate(arr)]
