r"""Aggregators of the client-loss vector: the one interface every objective and algorithm shares.

A federated objective is ``A(f(w))``: client losses ``f(w) = (f_1(w), ..., f_n(w))`` aggregated by
``A: R^n -> R``.  An aggregator exposes

* ``value(f) = A(f)``;
* ``weights(f) = grad_f A(f)`` - the client weights of a gradient step, since
  ``grad_w A(f(w)) = sum_i weights_i(f(w)) grad f_i(w)`` (a subgradient where ``A`` has kinks).

Optional capabilities (duck-typed; an algorithm that needs one says so in its error):

* ``client_grads(f, eta) -> (dh_df, dh_deta)`` and ``client_values(f, eta) -> h``: a *separable form*
  ``A(f) = min_eta sum_i p_i h_i(f_i, eta)`` with one scalar auxiliary ``eta`` (vectors ``f`` and
  ``eta`` of one entry per client).  rFedFair (002 Alg. 1) is local gradient descent with averaging on
  ``(w, eta) -> sum_i p_i h_i(f_i(w), eta)``; any separable aggregator trains with it.
* ``curvature(f)``: the diagonal ``d^2 A / d f_i^2`` (separable aggregators); q-FedSGD/q-FedAvg
  (003 Alg. 1, 3) size their step with it, as Lemma 12 does.
* ``cvxpy(t)``: a cvxpy expression of a loss *vector* ``t`` that is nondecreasing in ``t`` and has the
  same minimisers as ``A`` (a monotone transform of ``A`` is fine); exact solvers minimise it over
  ``t >= f(w)`` (:func:`fairtheory.exact.aggregate.solve_aggregator`).
* ``set`` and ``project(lam)``: support functions of a client-weight set; the primal-dual methods (AFL,
  DRFA, Scaff-PD) ascend on ``lam`` in that set.
* ``rescaled(unit)``: the aggregator of the losses in units of ``unit`` (its value at ``f/unit`` a
  monotone transform of ``A(f)``); the exact solver uses it to solve losses of order ``1e-12`` or
  ``1e12`` in units where the conic solver's tolerances mean the same (TERM, smoothed ``Q_alpha``, q-FFL).
* ``constant_weights = True``: ``weights`` does not depend on ``f`` (FedAvg's ``p``); algorithms then
  skip evaluating the losses.

Built-in adapters: :func:`fedavg` (singleton ``{p}``), :func:`afl` (simplex), :func:`cvar`,
:func:`qalpha` (002 Def. 1), :func:`integrated` (001 eqs. 6-8, reconstructed) - all
:class:`SetSupport`; :class:`SmoothedQalpha` (002 eq. 5), :class:`QFFL` (003 eq. 2) and :class:`TERM`.
Write your own as any object with ``n``, ``value(f)`` and ``weights(f)`` (the protocol :class:`Aggregator`; no
base class or underscore method needed), or subclass :class:`BaseAggregator` for its input validation (it
implements ``value``/``weights`` over ``_value``/``_weights``; see ``examples/``), and check it with
:func:`fairtheory.testing.audit`.
"""

from __future__ import annotations

import math
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from fairtheory._validation import (
    as_vector,
    check_in_range,
    check_positive,
    check_probability_vector,
)
from fairtheory.backend import as_alpha, is_torch, like, namespace, to_numpy
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, NonFiniteError
from fairtheory.sets import FEASIBILITY_TOL, CappedSimplex, IntegratedSet
from fairtheory.stable import mul_pow, sigmoid_unchecked, softplus_unchecked

_TINY = float(np.finfo(np.float64).tiny)

__all__ = [
    "Aggregator",
    "BaseAggregator",
    "SetSupport",
    "SmoothedQalpha",
    "QFFL",
    "TERM",
    "fedavg",
    "afl",
    "cvar",
    "qalpha",
    "integrated",
    "as_aggregator",
    "is_separable",
]

Array = NDArray[np.float64]


@runtime_checkable
class Aggregator(Protocol):
    """``A: R^n -> R`` with ``value(f) = A(f)`` and ``weights(f) = grad_f A(f)``."""

    n: int

    def value(self, f: Any) -> float: ...

    def weights(self, f: Any) -> Any: ...


def is_separable(agg: Any) -> bool:
    """Whether ``agg`` offers the separable form ``client_grads``/``client_values`` (rFedFair needs it)."""
    return callable(getattr(agg, "client_grads", None)) and callable(getattr(agg, "client_values", None))


class BaseAggregator:
    """Shared input handling for aggregators: ``f`` must be a finite vector of shape ``(n,)``.

    Subclasses implement ``_value(f)`` and ``_weights(f)`` on a validated float array of ``f``'s own
    library (numpy, or torch where the subclass supports it) and set ``n`` (and ``p`` where the
    formula has client weights).  ``aggregator(f)`` is ``aggregator.value(f)``.

    ``f`` may be a list, a numpy array of any real dtype or a torch tensor; a tensor with
    ``requires_grad`` is detached on purpose (``value`` is a Python float, ``weights`` a tensor outside
    the graph: the weights *are* the gradient in ``f``).  Booleans, nan and inf are rejected naming
    ``f``."""

    n: int
    p: Array
    name: str = "aggregator"
    #: ``value``/``weights`` accept torch tensors natively (otherwise they round-trip through numpy)
    torch_native: bool = False
    #: loss vectors outside ``[domain[0], domain[1])`` are rejected (e.g. q-FFL needs ``f >= 0``)
    domain: tuple[float, float] = (-np.inf, np.inf)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, n={self.n})"

    def __call__(self, f: Any) -> float:
        return self.value(f)

    # ---------------------------------------------------------------- public, validated
    def value(self, f: Any) -> float:
        """``A(f)`` as a Python float."""
        return float(to_numpy(self._value(self._losses(f))))

    def weights(self, f: Any) -> Any:
        """``grad_f A(f)``: numpy for numpy/list input, a tensor of ``f``'s dtype and device for torch."""
        fa = self._losses(f)
        out = self._weights(fa)
        if is_torch(f) and not is_torch(out):
            ref = f if f.is_floating_point() else f.double()
            return like(to_numpy(out), ref)
        return out

    # ---------------------------------------------------------------- to implement
    def _value(self, f: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _weights(self, f: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---------------------------------------------------------------- helpers
    def _losses(self, f: Any) -> Any:
        """``f`` validated: a torch tensor is detached on purpose (``value`` returns a float, ``weights``
        a tensor outside the autograd graph), integer tensors become float64; everything else becomes
        float64 numpy.  Booleans, complex numbers, nan and inf are rejected naming ``f``."""
        if is_torch(f):
            import torch

            if f.dtype == torch.bool or f.is_complex():
                raise FairtheoryTypeError(f"f must be a real tensor, got dtype {f.dtype}")
            t = f.detach() if f.requires_grad else f
            if not t.is_floating_point():
                t = t.to(torch.float64)
            if tuple(t.shape) != (self.n,):
                raise FairtheoryValueError(f"f must have shape ({self.n},) (one loss per client), got {tuple(t.shape)}")
            if not bool(torch.isfinite(t).all()):
                bad = int(np.flatnonzero(~np.isfinite(to_numpy(t)))[0])
                raise NonFiniteError(f"f must be finite, got {float(t[bad])} at index {bad}")
            self._check_domain(to_numpy(t))
            return t if self.torch_native else t.cpu().numpy().astype(np.float64)
        if isinstance(f, np.ndarray) and f.dtype == np.bool_:
            raise FairtheoryTypeError("f must hold real numbers, got a boolean array")
        arr = as_vector(f, "f")
        if arr.shape != (self.n,):
            raise FairtheoryValueError(f"f must have shape ({self.n},) (one loss per client), got {arr.shape}")
        self._check_domain(arr)
        return arr

    def _check_domain(self, arr: Array) -> None:
        lo, hi = self.domain
        if np.any(arr < lo) or np.any(arr >= hi):
            bad = int(np.flatnonzero((arr < lo) | (arr >= hi))[0])
            raise FairtheoryValueError(
                f"f[{bad}] = {arr[bad]!r} is outside the domain [{lo}, {hi}) of {self!r}")


# ==================================================================== support functions of sets
class SetSupport(BaseAggregator):
    r"""``A(f) = max_{lam in S} lam . f``: the support function of a client-weight set ``S``.

    ``weights(f)`` is a maximiser (the exact greedy argmax of :class:`~fairtheory.sets.CappedSimplex`,
    a subgradient of ``A``).  FedAvg, AFL, CVaR, ``Q_alpha`` (002 Def. 1) and the integrated sets of
    relative fairness (001 eqs. 6-8, reconstructed) are all of this form."""

    def __init__(self, S: CappedSimplex | IntegratedSet, *, name: str | None = None, p: Any = None) -> None:
        if not isinstance(S, (CappedSimplex, IntegratedSet)):
            raise FairtheoryTypeError(f"S must be a CappedSimplex or IntegratedSet, got {type(S).__name__}")
        self.set = S
        self.n = S.n
        self.name = name or repr(S)
        #: a singleton set (caps summing to one) has the same maximiser for every ``f``
        self.constant_weights = isinstance(S, CappedSimplex) and S.caps.sum() <= 1.0 + FEASIBILITY_TOL * S.n
        if p is not None:
            p_arr = check_probability_vector(p, "p")
            if p_arr.shape != (self.n,):
                raise FairtheoryValueError(f"p must have shape ({self.n},), got {p_arr.shape}")
            self.p = p_arr

    def _value(self, f: Array) -> float:
        return self.set.support(f)

    def _weights(self, f: Array) -> Array:
        return self.set.argmax(f)

    def project(self, lam: Any) -> Array:
        """Euclidean projection onto the set (capped simplices only)."""
        if not isinstance(self.set, CappedSimplex):
            raise FairtheoryTypeError(f"project needs a CappedSimplex set, {self!r} holds {type(self.set).__name__}")
        return self.set.project(lam)

    def cvxpy(self, t: Any) -> Any:
        """LP dual of the support function: ``min_eta eta + caps . (t - eta)_+`` (integrated sets: the same
        for ``A`` and for ``B`` at ``-t``, combined as ``(s_A(t) + phi s_B(-t))/(1 - phi)``)."""
        import cvxpy as cp

        def supp(S: CappedSimplex, v: Any) -> Any:
            eta = cp.Variable()
            return eta + S.caps @ cp.pos(v - eta)

        if isinstance(self.set, CappedSimplex):
            return supp(self.set, t)
        I = self.set
        return (supp(I.A, t) + I.phi * supp(I.B, -t)) / (1.0 - I.phi)


def fedavg(p: Any) -> SetSupport:
    """FedAvg objective ``sum_i p_i f_i`` (support of the singleton ``{p}``; McMahan et al. 2017)."""
    return SetSupport(CappedSimplex.singleton(p), name="fedavg", p=p)


def afl(n: int, p: Any = None) -> SetSupport:
    """AFL objective ``max_i f_i`` (support of the simplex; Mohri et al. 2019)."""
    return SetSupport(CappedSimplex.simplex(n), name="afl", p=p)


def cvar(n: int, a: float, p: Any = None) -> SetSupport:
    """CVaR / superquantile: mean of the largest ``a`` fraction of the losses (caps ``1/(a n)``)."""
    return SetSupport(CappedSimplex.cvar(n, a), name=f"cvar(a={a})", p=p)


def qalpha(p: Any, alpha: Any) -> SetSupport:
    """``f_alpha = max_{q in Q_alpha} sum_i q_i p_i f_i`` (002 Def. 1; caps ``p_i/alpha_i``)."""
    p_arr = check_probability_vector(p, "p")
    return SetSupport(CappedSimplex.qalpha(p_arr, alpha), name="qalpha", p=p_arr)


def integrated(A: CappedSimplex, B: CappedSimplex, phi: float, p: Any = None) -> SetSupport:
    """Support of ``Lambda_phi(A, B) = (A - phi B)/(1 - phi)``, ``D_phi/(1 - phi)`` (001 eqs. 6-8, reconstructed)."""
    return SetSupport(IntegratedSet(A, B, phi), name=f"integrated(phi={phi})", p=p)


def as_aggregator(x: Any, n: int, name: str = "aggregator") -> Any:
    """``x`` as an aggregator over ``n`` clients: sets become :class:`SetSupport`; ``None`` is rejected."""
    if isinstance(x, (CappedSimplex, IntegratedSet)):
        x = SetSupport(x)
    if not isinstance(x, Aggregator):
        raise FairtheoryTypeError(
            f"{name} must be an aggregator (with value(f), weights(f) and n) or a client-weight set, "
            f"got {type(x).__name__}")
    if int(x.n) != int(n):
        raise FairtheoryValueError(f"{name} must aggregate n = {n} clients (one per client), got n = {x.n}")
    return x


# ==================================================================== smoothed Q_alpha (rFedFair's objective)
class SmoothedQalpha(BaseAggregator):
    r"""Smoothed ``Q_alpha`` loss (002 eq. 5, Lemma 2):

    .. math:: A_\mu(f) = \min_\eta \sum_i p_i h_i(f_i, \eta), \qquad
              h_i(f, \eta) = \tfrac{1}{\alpha_i}\,\mathrm{softplus}_\mu(f - \eta) + \eta ,

    with ``f_alpha <= A_mu <= f_alpha + mu tau_alpha log 2``.  ``weights(f) = (p_i/alpha_i)
    sigma((f_i - eta*)/mu)`` at the minimising ``eta*`` (they sum to one when ``tau_alpha > 1``).
    Separable: ``dh/df = sigma((f - eta)/mu)/alpha_i``, ``dh/deta = 1 - dh/df`` (rFedFair's local step)."""

    torch_native = False

    def __init__(self, p: Any, alpha: Any, mu: float) -> None:
        self.p = check_probability_vector(p, "p")
        self.alpha = as_alpha(alpha, self.p, "alpha")
        self.mu = check_positive(mu, "mu")
        self.n = self.p.size
        self.c = self.p / self.alpha
        self.tau = float(self.c.sum())
        self.name = f"smoothed_qalpha(mu={self.mu:g})"

    def eta_star(self, f: Any) -> float:
        """The minimising ``eta`` (root of ``sum_i c_i sigma((f_i - eta)/mu) = 1``, bracketed and solved to
        machine precision); ``-inf`` when ``tau_alpha = 1`` (then ``A_mu = p . f`` exactly)."""
        f = self._losses(f)
        b, delta = self._eta_parts(f)
        return b + delta

    def _eta_star(self, f: Array) -> float:
        """A float root of the threshold equation (:meth:`_eta_parts` refines it)."""
        if self.tau <= 1.0 + 1e-12:
            return -np.inf
        shift = self.mu * np.log(self.tau - 1.0)
        lo, hi = float(f.min()) + shift, float(f.max()) + shift

        def g(eta: float) -> float:
            with np.errstate(over="ignore", invalid="ignore"):  # (f - eta)/mu = +-inf: sigma = 1, 0
                return float(self.c @ sigmoid_unchecked((f - eta) / self.mu)) - 1.0

        if lo == hi or g(lo) <= 0.0:
            return lo
        if g(hi) >= 0.0:
            return hi
        # tolerance in the units of the losses and of mu (an absolute 1e-15 exceeded the whole bracket
        # for losses of order 1e-20 and returned eta = max f: A_mu off by 30%)
        xtol = max(1e-15 * max(abs(lo), abs(hi), self.mu), 5e-324)
        try:
            return float(brentq(g, lo, hi, xtol=xtol, rtol=8.9e-16, maxiter=400))
        except RuntimeError:  # g is a step function at this scale (losses near the float range, spacing >> mu)
            for _ in range(2200):  # bisection to adjacent floats, midpoint without overflow
                mid = 0.5 * lo + 0.5 * hi
                if not lo < mid < hi:
                    break
                if g(mid) > 0.0:
                    lo = mid
                else:
                    hi = mid
            return lo if abs(g(lo)) <= abs(g(hi)) else hi

    def _eta_parts(self, f: Array) -> tuple[float, float]:
        """``eta* = b + delta`` with ``b`` the loss nearest to the float root and ``delta`` solved on the
        offsets ``f - b``: near losses of order ``1e300`` the float spacing (``1e284``) is far coarser
        than ``mu``, no float ``eta`` solves the threshold equation, and the weights of clients tied at
        the threshold came out ``c_i sigma(0)`` (summing to 1.2 instead of 1).  ``(-inf, 0)`` when
        ``tau_alpha = 1``."""
        eta0 = self._eta_star(f)
        if not np.isfinite(eta0):
            return eta0, 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            b = float(f[int(np.argmin(np.abs(f - eta0)))])  # |f - eta0| = inf for far losses: not the nearest
            d = f - b  # exact for the losses near b (Sterbenz); far ones saturate sigma either way

            psum = math.fsum(self.p)

            def h(delta: float) -> float:
                # sum_i c_i sigma(x_i) - sum p, with the clients above the threshold written as
                # c_i - c_i sigma(-x_i) and their caps summed exactly (fsum): a residual of 1e-28 from a
                # client 1e27 below the others is resolved, not rounded into 1 + 1e-28 = 1 (its weight
                # times its loss was off by 0.6 in the value)
                x = (d - delta) / self.mu
                pos = x > 0
                return (math.fsum([*self.c[pos], -psum]) - float(self.c[pos] @ sigmoid_unchecked(-x[pos]))
                        + float(self.c[~pos] @ sigmoid_unchecked(x[~pos])))

            s = self.mu
            for _ in range(2200):  # bracket delta* (h decreases from tau - 1 > 0 to -1)
                if h(-s) >= 0.0 >= h(s) or not np.isfinite(2.0 * s):
                    break
                s *= 2.0
            lo, hi = -s, s
            if h(lo) <= 0.0:
                return b, lo
            if h(hi) >= 0.0:
                return b, hi
            try:
                delta = float(brentq(h, lo, hi, xtol=max(1e-15 * s, 5e-324), rtol=8.9e-16, maxiter=400))
            except RuntimeError:  # pragma: no cover - brentq converges on this monotone bracket
                delta = 0.5 * lo + 0.5 * hi
        return b, delta

    def _value(self, f: Array) -> float:
        r"""``A_mu(f) = sum_i w_i f_i + sum_i c_i phi(x_i)``, ``x_i = f_i - eta*``, ``w_i = c_i sigma(x_i/mu)``,
        ``phi(x) = mu log(1 + e^{-|x|/mu}) + |x| sigma(-|x|/mu) >= 0``: the same number as
        ``sum_i c_i softplus_mu(x_i) + eta*`` (substitute ``eta* = sum_i w_i eta*``, the root condition
        ``sum_i w_i = sum_i p_i``), without its cancellation: with ``eta*`` far below the top losses
        (``f = (0, 2e9, -4e16)``: ``eta* = -4e16``) the direct sum lost 3.2 of a value whose smoothing
        part is 0.14.  Rounding is now relative to ``max |f_i|``, not ``|eta*|``."""
        b, delta = self._eta_parts(f)
        if not np.isfinite(b):
            return float(self.p @ f)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            x = (f - b) - delta
            ax = np.abs(x)
            w = self.c * sigmoid_unchecked(x / self.mu)
            phi = self.mu * np.log1p(np.exp(-ax / self.mu)) + ax * sigmoid_unchecked(-ax / self.mu)
            phi = np.where(np.isfinite(ax), phi, 0.0)  # |x| beyond the float range: phi = 0 in the limit
            mask = w > 0
            val = float(w[mask] @ f[mask] + self.c @ phi)
        if not np.isfinite(val):
            raise FairtheoryValueError(f"the value of {self!r} exceeds the float64 range for this f")
        return val

    def _weights(self, f: Array) -> Array:
        b, delta = self._eta_parts(f)
        if not np.isfinite(b):
            return self.p.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            return self.c * sigmoid_unchecked(((f - b) - delta) / self.mu)

    def rescaled(self, unit: float) -> SmoothedQalpha:
        """The aggregator of the losses in units of ``unit``: ``A_{mu/unit}(f/unit) = A_mu(f)/unit``
        (positively homogeneous in ``(f, mu)``); exact solvers use it for losses far from order one."""
        return SmoothedQalpha(self.p, self.alpha, self.mu / check_positive(unit, "unit"))

    def client_values(self, f: Any, eta: Any) -> Any:
        """``h_i(f_i, eta_i)`` for per-client vectors (numpy or torch; no validation)."""
        return softplus_unchecked(f - eta, self.mu) / like(self.alpha, f) + eta

    def client_grads(self, f: Any, eta: Any) -> tuple[Any, Any]:
        """``(dh/df, dh/deta)`` per client: ``(s_i, 1 - s_i)``, ``s_i = sigma((f_i - eta_i)/mu)/alpha_i``."""
        s = sigmoid_unchecked((f - eta) / self.mu) / like(self.alpha, f)
        return s, 1.0 - s

    def cvxpy(self, t: Any) -> Any:
        import cvxpy as cp

        eta = cp.Variable()
        return eta + (self.mu * self.c) @ cp.logistic((t - eta) / self.mu)


# ==================================================================== q-FFL
class QFFL(BaseAggregator):
    r"""q-FFL (003 eq. 2): ``A(f) = sum_k p_k (f_k + o)^{q+1}/(q+1)`` for ``f >= 0``, ``q >= 0``.

    ``weights = p_k (f_k + o)^q``; ``curvature = q p_k (f_k + o)^{q-1}`` (0 where ``f_k + o = 0``: the
    limit of Lemma 12's term for a nonnegative smooth loss).  ``offset = o`` (default 0) is the constant
    the published code adds inside the powers (``1e-10``).  Separable without auxiliary:
    ``h(f) = (f + o)^{q+1}/(q+1)``."""

    torch_native = True
    domain = (0.0, np.inf)

    def __init__(self, p: Any, q: float, offset: float = 0.0) -> None:
        self.p = check_probability_vector(p, "p")
        self.q = check_in_range(q, "q", low=0.0)
        self.offset = check_in_range(offset, "offset", low=0.0)
        self.n = self.p.size
        self.name = f"qffl(q={self.q:g})"

    def _value(self, f: Any) -> Any:
        from fairtheory.objectives.qffl import qffl_value

        # the same direct formula, re-evaluated on scaled losses where a power leaves the float range
        return qffl_value(f + self.offset, self.q, self.p)

    def _weights(self, f: Any) -> Any:
        with np.errstate(over="ignore", under="ignore"):
            out = like(self.p, f) * self.client_grads(f, None)[0]
        return self._powered(out, f, self.p, self.q, "weights")

    def curvature(self, f: Any) -> Any:
        """``d^2 A/d f_k^2 = q p_k (f_k + o)^{q-1}`` (0 where ``f_k + o = 0``); ``f`` validated as in
        :meth:`weights` (a tensor of ``f``'s dtype and device for torch input)."""
        fa = self._losses(f)
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            out = like(self.p, fa) * self.client_curvature(fa)
        if self.q == 0.0:
            return out
        return self._powered(out, fa, self.q * self.p, self.q - 1.0, "curvature")

    def _powered(self, out: Any, f: Any, coef: Array, expo: float, what: str) -> Any:
        """``coef_k (f_k + o)^expo`` given its direct evaluation ``out``: entries that overflowed or
        underflowed are recomputed without intermediate overflow (:func:`~fairtheory.stable.mul_pow`);
        a value beyond the float64 range raises."""
        o_np = np.asarray(to_numpy(out), dtype=np.float64)
        Fo = np.asarray(to_numpy(f), dtype=np.float64) + self.offset
        bad = ~np.isfinite(o_np) | ((o_np < _TINY) & (coef > 0) & (Fo > 0))
        if not np.any(bad):
            return out
        fixed = o_np.copy()
        for k in np.flatnonzero(bad):
            fixed[k] = mul_pow(coef[k], Fo[k], expo)
        if not np.all(np.isfinite(fixed)):
            k = int(np.flatnonzero(~np.isfinite(fixed))[0])
            raise FairtheoryValueError(f"the {what} of {self!r} exceed the float64 range at f[{k}] = {Fo[k] - self.offset!r}: "
                                       "the true value does not fit a float64; rescale the losses")
        return like(fixed, out) if is_torch(out) else fixed

    def client_curvature(self, f: Any) -> Any:
        """``h''(f_k) = q (f_k + o)^{q-1}`` per client (0 where ``f_k + o = 0`` or ``q = 0``)."""
        xp = namespace(f)
        Fo = f + self.offset
        if self.q == 0.0:
            return xp.zeros_like(Fo)
        pos = Fo > 0
        Fs = xp.where(pos, Fo, xp.ones_like(Fo))
        return xp.where(pos, self.q * Fs ** (self.q - 1.0), xp.zeros_like(Fo))

    def rescaled(self, unit: float) -> QFFL:
        """q-FFL of the losses in units of ``unit`` (offset ``o/unit``): its value at ``f/unit`` is
        ``A(f)/unit^{q+1}``, a monotone transform with the same minimisers (exact solvers use it for
        losses far from order one)."""
        return QFFL(self.p, self.q, self.offset / check_positive(unit, "unit"))

    def client_values(self, f: Any, eta: Any) -> Any:
        return (f + self.offset) ** (self.q + 1.0) / (self.q + 1.0)

    def client_grads(self, f: Any, eta: Any) -> tuple[Any, Any]:
        xp = namespace(f)
        return (f + self.offset) ** self.q, xp.zeros_like(f)

    def cvxpy(self, t: Any) -> Any:
        """``|| p^{1/(q+1)} (t + o) ||_{q+1}``: a monotone transform of ``A`` on ``t >= 0`` (exact form of
        :func:`fairtheory.exact.qffl.solve_qffl`, accurate up to ``q = 15`` where ``power`` fails)."""
        import cvxpy as cp

        r = self.q + 1.0
        if r == 1.0:
            return self.p @ (t + self.offset)
        return cp.pnorm(cp.multiply(self.p ** (1.0 / r), cp.pos(t + self.offset)), r)


# ==================================================================== TERM
class TERM(BaseAggregator):
    r"""Tilted empirical risk (Li et al. 2021): ``A(f) = (1/t) log sum_i p_i e^{t f_i}``, ``t > 0``.

    ``weights = p_i e^{t f_i} / sum_j p_j e^{t f_j}`` (a softmax, computed shifted by ``max f``).
    Separable with one auxiliary: ``A(f) = min_eta sum_i p_i [eta + (e^{t (f_i - eta)} - 1)/t]``
    (the minimiser is ``eta = A(f)``), so rFedFair trains it."""

    torch_native = True

    def __init__(self, p: Any, t: float) -> None:
        self.p = check_probability_vector(p, "p")
        self.t = check_positive(t, "t")
        self.n = self.p.size
        self.name = f"term(t={self.t:g})"

    def _tilted(self, f: Any) -> tuple[Any, Any, Any, Any]:
        """``(xp, p, fmax, x)`` with ``x = t (f - max f) <= 0`` over the support of ``p`` (``-inf`` off it);
        where ``f - max f`` overflows, ``t f - t max f`` (finite for a small tilt)."""
        xp = namespace(f)
        pp = like(self.p, f)
        support = pp > 0
        fmax = xp.max(xp.where(support, f, xp.full_like(f, -np.inf)))
        with np.errstate(over="ignore", invalid="ignore"):
            x = self.t * (f - fmax)
            x = xp.where(xp.isfinite(x), x, self.t * f - self.t * fmax)
        return xp, pp, fmax, xp.where(support, x, xp.full_like(f, -np.inf))

    def _value(self, f: Any) -> Any:
        # log1p/expm1 keep the small-t limit (the p-mean) where e^{x} would round to one; for s < -1/2 the sum
        # S = 1 + s = sum p_i e^{x_i} can be as small as the maximum's weight (1e-300) and 1 + s would cancel:
        # there S is summed directly (positive terms).  Both give log S to ~ n eps (fairtheory.objectives.tilted);
        # each branch sees a harmless argument where it is not taken, so autograd stays finite.
        xp, pp, fmax, x = self._tilted(f)
        s = xp.sum(pp * xp.expm1(x))
        direct = s < -0.5
        near = xp.log1p(xp.where(direct, xp.zeros_like(s), s))
        far = xp.log(xp.where(direct, xp.sum(pp * xp.exp(x)), xp.ones_like(s)))
        return fmax + xp.where(direct, far, near) / self.t

    def _weights(self, f: Any) -> Any:
        xp, pp, _, x = self._tilted(f)
        e = pp * xp.exp(x)
        return e / xp.sum(e)

    def rescaled(self, unit: float) -> TERM:
        """TERM of the losses in units of ``unit``: tilt ``t unit``, value ``A(f)/unit`` at ``f/unit``
        (exact solvers use it for losses far from order one)."""
        return TERM(self.p, self.t * check_positive(unit, "unit"))

    def client_values(self, f: Any, eta: Any) -> Any:
        return eta + (namespace(f).exp(self.t * (f - eta)) - 1.0) / self.t

    def client_grads(self, f: Any, eta: Any) -> tuple[Any, Any]:
        e = namespace(f).exp(self.t * (f - eta))
        return e, 1.0 - e

    def cvxpy(self, t: Any) -> Any:
        import cvxpy as cp

        keep = self.p > 0
        return cp.log_sum_exp(self.t * t[np.flatnonzero(keep)] + np.log(self.p[keep])) / self.t
