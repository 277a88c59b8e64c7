r"""Worst cases of min-max (fairness) methods traced from their own ``make()``: the saddle-operator PEP.

AFL (Mohri, Sivek & Suresh 2019) runs projected gradient descent-ascent on

.. math:: \min_w \max_{\lambda \in \Lambda} L(w, \lambda), \qquad L(w, \lambda) = \sum_i \lambda_i f_i(w).

The products ``lambda_i grad f_i(w)`` are bilinear in PEP unknowns, so the method cannot be traced on the
per-client PEP of :mod:`fairtheory.worstcase.pep_problem`.  :class:`SaddlePEP` poses instead a PEP on the
*joint* variable ``z = (w, lambda)`` (docs/worstcase.md, "Min-max worst cases"):

* the primal block (``w``, ``grad_w L``, the comparator ``w_c``) and the dual block (``lambda``,
  ``grad_lambda L = f(w)``, normal vectors of ``Lambda``, ``lambda_c``) live in one Gram matrix: a product space
  ``H_w x H_lambda``.  Every row and the objective are written blockwise (no primal-dual inner product appears), so
  fixing the cross-block entries to ``0`` changes nothing - the block-diagonal part of a PSD matrix is PSD
  (``orthogonal=True`` adds those equality rows; a test checks the value is the same);
* the gradient field ``F(z) = (grad_w L, -grad_lambda L)`` at every pair of queried points satisfies the rows of
  :class:`~fairtheory.worstcase.operators.Monotone` in the product space (the gradient field of a convex-concave
  function is monotone, Rockafellar 1970 Sec. 37; the converse fails, so these rows are a **relaxation** of
  convex-concave interpolation); ``lipschitz=L`` adds ``||F_j - F_k|| <= L ||z_j - z_k||`` (the rows of
  :class:`~fairtheory.worstcase.operators.LipschitzStronglyMonotone` ``(L, 0)``, also a relaxation);
* ``grad_lambda L(w, lambda) = f(w)`` does not depend on ``lambda`` (``L`` is linear in ``lambda``): one dual
  gradient vector ``h(w)`` per primal point;
* bounded gradients ``||grad_w L||^2 <= G_w^2`` and ``||f(w)||^2 <= G_lambda^2`` at every queried point
  (Mohri et al.'s ``sigma_w``, ``sigma_lambda`` with exact oracles);
* ``Lambda``: an arbitrary closed convex set of diameter ``<= D_lambda`` (the indicator of
  :class:`~fairtheory.worstcase.classes.ConvexIndicator`, exact; the simplex is one such set, so the value
  covers it - an upper bound for the simplex itself); the method's projection is the indicator's proximal
  step, ``lambda_0`` and the comparator ``lambda_c`` are points of the set;
* the comparator ``w_c`` with ``||w_c - w_0|| <= D_w`` (``afl.make`` does not project ``w``).

Measure (``"gap"``): the linearised ergodic gap of the points ``z_t = (w_t, lambda_t)``, ``t < T``, at which
the method evaluated its oracle,

.. math:: \sup_{z_c} \frac1T \sum_{t<T} \langle F(z_t), z_t - z_c\rangle
          = \sup_{z_c} \frac1T \sum_{t<T} \big(\langle g_t, w_t - w_c\rangle + \langle h_t, \lambda_c - \lambda_t\rangle\big),

which bounds the duality gap ``max_{lambda_c} L(w_avg, lambda_c) - min_{w_c} L(w_c, lambda_avg)`` at the
averaged iterates of every convex-concave ``L`` (gradient inequalities and Jensen; docs).  The trace checks
that the method's reported averages ``State.w_avg``, ``State.lam_avg`` are the means of those points.  The
value is therefore an **upper bound** on the worst-case duality gap of the class (``value_is = "upper bound"``),
never called exact.

The method runs unchanged: :class:`SaddlePEP` is a :class:`~fairtheory.problems.base.FederatedProblem` whose
``grads(w)`` is a lazy handle (``lam @ grads(w)`` asks the oracle at ``(w, lam)``) and ``losses(w)`` the dual
vector ``h(w)``; the dual set handed to ``make`` as ``aggregator=`` is a
:class:`~fairtheory.sets.CappedSimplex` whose projection of a symbolic vector is the indicator's projection
(:func:`fairtheory.algorithms.base.project_to` passes symbolic vectors to the set).  Client rows (``w[None, :]``,
``grads_each`` at one common point, Scaffold corrections ``lam @ C - C``) are :class:`_ClientRows`: a shared primal
vector plus formal client gradients, which become PEP vectors only under ``lam @ rows`` (``sum_i lam_i = 1``) - so
Scaff-PD (``scaffpd.make``, exact gradients, ``kappa <= 2``) traces too; it reports no averages, and
``output="last"`` measures the linearised gap at its last pair.  Refused with :class:`NotRepresentableError`,
naming the operation: gradients at client-specific points (Scaff-PD's third local step), random draws (client
sampling, noise) and converting weights to numbers (DRFA samples clients with probabilities ``lam``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairtheory._validation import check_integer, check_positive
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex
from fairtheory.worstcase import units
from fairtheory.worstcase.classes import ConvexIndicator
from fairtheory.worstcase.gram_array import NotRepresentableError
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, inner, sqnorm

__all__ = ["SaddlePEP", "MinmaxWorstCase", "minmax_worst_case", "afl_paper_bound", "gda_classical_bound",
           "afl_paper_steps", "MAX_ROUNDS"]

#: most steps a traced min-max worst case may take (the Gram dimension grows by about 3 per step)
MAX_ROUNDS = 40


def _scalar(c: Any) -> bool:
    return isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, (bool, np.bool_))


class _NS:
    """The array namespace of the saddle PEP's symbolic vectors (``zeros_like`` only)."""

    __name__ = "fairtheory.worstcase.minmax"

    def __init__(self, owner: SaddlePEP) -> None:
        self.owner = owner

    def zeros_like(self, x: Any) -> Any:
        if isinstance(x, _Sym):
            return type(x)(self.owner, self.owner.pep.zero())
        raise NotRepresentableError(f"zeros_like of {type(x).__name__} in the saddle PEP")

    def broadcast_to(self, x: Any, shape: Any) -> Any:
        if isinstance(x, _ClientRows) and tuple(shape) == (self.owner.n, self.owner.d):
            return x
        raise NotRepresentableError(f"broadcast_to({type(x).__name__}, {shape!r}) in the saddle PEP")

    def __getattr__(self, name: str) -> Any:
        raise NotRepresentableError(f"the array operation xp.{name}(...) (the saddle PEP has vectors of two blocks "
                                    "and their linear combinations only)")


class _Sym:
    """A symbolic vector of one block (a PEP :class:`~fairtheory.worstcase.gram.Vec`); linear operations only."""

    __fairtheory_symbolic__ = True
    block = ""

    def __init__(self, owner: SaddlePEP, v: Vec) -> None:
        self.owner, self.v = owner, v

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.owner.d,) if self.block == "primal" else (self.owner.n,)

    def __array_namespace__(self, api_version: Any = None) -> _NS:
        return self.owner.xp

    def _other(self, o: Any, op: str) -> Vec | None:
        if isinstance(o, _Sym):
            if o.owner is not self.owner or o.block != self.block:
                raise NotRepresentableError(f"{op} of a {self.block} and a {o.block} vector (different blocks)")
            return o.v
        if _scalar(o) and o == 0:
            return None
        raise NotRepresentableError(f"{op} of a symbolic {self.block} vector and {type(o).__name__} {o!r}")

    def __add__(self, o: Any) -> Any:
        v = self._other(o, "+")
        return self if v is None else type(self)(self.owner, self.v + v)

    __radd__ = __add__

    def __sub__(self, o: Any) -> Any:
        v = self._other(o, "-")
        return self if v is None else type(self)(self.owner, self.v - v)

    def __rsub__(self, o: Any) -> Any:
        v = self._other(o, "-")
        return type(self)(self.owner, -self.v) if v is None else type(self)(self.owner, v - self.v)

    def __neg__(self) -> Any:
        return type(self)(self.owner, -self.v)

    def __mul__(self, c: Any) -> Any:
        if not _scalar(c):
            raise NotRepresentableError(f"a product of a symbolic {self.block} vector and {type(c).__name__} "
                                        "(bilinear in PEP unknowns)")
        return type(self)(self.owner, self.v * float(c))

    __rmul__ = __mul__

    def __truediv__(self, c: Any) -> Any:
        if not _scalar(c) or c == 0:
            raise NotRepresentableError(f"division of a symbolic {self.block} vector by {c!r}")
        return type(self)(self.owner, self.v / float(c))

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        return self

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotRepresentableError(f"converting a symbolic {self.block} vector to numbers")

    def __matmul__(self, o: Any) -> Any:
        raise NotRepresentableError(f"the product {self.block} @ {type(o).__name__}")

    def __getitem__(self, k: Any) -> Any:
        raise NotRepresentableError(f"indexing a symbolic {self.block} vector ([{k!r}]: per-client rows, "
                                    "broadcasting)")


class _Prim(_Sym):
    block = "primal"

    def __getitem__(self, k: Any) -> Any:
        if k == (None, slice(None)):  # w[None, :]: one row per client, all equal to w
            return _ClientRows(self.owner, self.v, {})
        return super().__getitem__(k)


class _ClientRows:
    r"""An ``(n, d)`` array of client rows ``row_i = common + sum_k c_k grad f_i(y_k)``: a primal vector shared by every
    client plus formal client gradients at common points ``y_k`` (Scaffold-type corrections ``-c_i + c``).  The formal
    terms become PEP vectors only under the weights: ``lam @ rows = (sum_i lam_i) common + sum_k c_k grad_w L(y_k,
    lam)`` with ``sum_i lam_i = 1`` (every point of a capped simplex; the tracer's one assumption about the dual set,
    used only by methods that contract client rows with ``lam``)."""

    __fairtheory_symbolic__ = True

    def __init__(self, owner: SaddlePEP, common: Vec, formal: dict[bytes, tuple[Vec, float]]) -> None:
        self.owner, self.common = owner, common
        self.formal = {k: (y, c) for k, (y, c) in formal.items() if c != 0.0}

    @property
    def shape(self) -> tuple[int, int]:
        return (self.owner.n, self.owner.d)

    def _combine(self, o: Any, sign: float, op: str) -> _ClientRows:
        if isinstance(o, _ClientRows) and o.owner is self.owner:
            common, extra = o.common, o.formal
        elif isinstance(o, _Grads) and o.owner is self.owner:
            common, extra = self.owner.pep.zero(), {o.w.key(): (o.w, 1.0)}
        elif _scalar(o) and o == 0:
            return self
        else:
            raise NotRepresentableError(f"{op} of client rows and {type(o).__name__}")
        formal = dict(self.formal)
        for k, (y, c) in extra.items():
            formal[k] = (y, formal.get(k, (y, 0.0))[1] + sign * c)
        return _ClientRows(self.owner, self.common + common * sign, formal)

    def __add__(self, o: Any) -> _ClientRows:
        return self._combine(o, 1.0, "+")

    __radd__ = __add__

    def __sub__(self, o: Any) -> _ClientRows:
        return self._combine(o, -1.0, "-")

    def __mul__(self, c: Any) -> _ClientRows:
        if not _scalar(c):
            raise NotRepresentableError(f"a product of client rows and {type(c).__name__}")
        return _ClientRows(self.owner, self.common * float(c), {k: (y, v * float(c)) for k, (y, v) in self.formal.items()})

    __rmul__ = __mul__

    def __getattr__(self, name: str) -> Any:
        raise NotRepresentableError(f"client rows .{name} in the saddle PEP")

    def contract(self, lam: Vec) -> Vec:
        """``lam @ rows`` (``sum_i lam_i = 1``)."""
        out = self.common
        for y, c in self.formal.values():
            out = out + self.owner._grad_w(y, lam) * (c * self.owner.c_w)
        return out


class _Dual(_Sym):
    block = "dual"

    def __matmul__(self, o: Any) -> Any:
        if isinstance(o, _Grads) and o.owner is self.owner:
            return _Prim(self.owner, self.owner._grad_w(o.w, self.v) * self.owner.c_w)
        if isinstance(o, _ClientRows) and o.owner is self.owner:
            return _Prim(self.owner, o.contract(self.v))
        return super().__matmul__(o)


class _Grads:
    """``grads(w)``: a lazy handle; ``lam @ grads(w)`` is ``grad_w L(w, lam)`` (the oracle at ``(w, lam)``)."""

    __fairtheory_symbolic__ = True

    def __init__(self, owner: SaddlePEP, w: Vec) -> None:
        self.owner, self.w = owner, w

    def __add__(self, o: Any) -> Any:
        if _scalar(o) and o == 0:
            return self
        raise NotRepresentableError("adding to the client gradients grads(w) (noise, corrections): only the "
                                    "weighted sum lam @ grads(w) = grad_w L(w, lam) is a saddle-field oracle")

    __radd__ = __add__

    def __getattr__(self, name: str) -> Any:
        raise NotRepresentableError(f"grads(w).{name}: per-client gradients are not representable in the saddle "
                                    "PEP (only lam @ grads(w))")

    def __getitem__(self, k: Any) -> Any:
        raise NotRepresentableError("indexing the client gradients grads(w)[...]: only lam @ grads(w) is an oracle")

    def __sub__(self, o: Any) -> Any:
        raise NotRepresentableError("grads(w) - ...: only lam @ grads(w) is a saddle-field oracle")

    __rsub__ = __sub__
    __mul__ = __sub__
    __rmul__ = __sub__


class _NoDraws(np.random.Generator):
    """A generator that refuses every draw: a saddle-PEP trace is deterministic (no client sampling, no noise)."""

    def __init__(self) -> None:
        super().__init__(np.random.PCG64(0))

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("__") or name == "bit_generator":
            return object.__getattribute__(self, name)
        raise NotRepresentableError(f"the random draw rng.{name}(...) (client sampling or noise: the saddle PEP "
                                    "traces deterministic full-participation steps only)")


class SymbolicDualSet(CappedSimplex):
    """The dual set of :class:`SaddlePEP` as the :class:`~fairtheory.sets.CappedSimplex` a method's ``make`` accepts:
    an arbitrary closed convex set of diameter ``<= D_lambda`` (the PEP's indicator); ``project`` of a symbolic dual
    vector is the indicator's projection, of the uniform numpy vector (a method's default start) ``lambda_0``."""

    __fairtheory_symbolic_set__ = True

    def __init__(self, owner: SaddlePEP) -> None:
        super().__init__(np.ones(owner.n))
        self._owner = owner

    def __repr__(self) -> str:
        return f"SymbolicDualSet(D_lambda={self._owner.D_lam!r})"

    def project(self, v: Any) -> Any:  # type: ignore[override]
        own = self._owner
        if isinstance(v, _Dual) and v.owner is own:
            return _Dual(own, own._project(v.v))
        if isinstance(v, np.ndarray) and v.shape == (own.n,) and np.allclose(v, 1.0 / own.n):
            return _Dual(own, own.lam0)
        raise NotRepresentableError(f"projection of {type(v).__name__} onto the symbolic dual set")

    def contains(self, lam: Any, tol: float = 0.0) -> bool:  # type: ignore[override]
        raise NotRepresentableError("an explicit lam0 (the saddle PEP's lambda_0 is the default start)")


class SaddlePEP(FederatedProblem):
    r"""The saddle-operator PEP of the module doc as a federated problem a min-max method's ``make`` runs on.

    Parameters
    ----------
    n : int >= 2
        Clients (the dual vector's shape ``(n,)``; the PEP's dual block has free dimension).
    D_w, D_lam : float > 0
        ``||w_c - w_0|| <= D_w``; diameter of ``Lambda`` ``<= D_lam``.
    G_w, G_lam : float > 0
        ``||grad_w L|| <= G_w``, ``||f(w)|| <= G_lam`` at every queried point.
    monotone : bool
        Add the monotone rows of ``F`` (default ``True``; ``False`` keeps bounded gradients only).
    lipschitz : float > 0 or None
        Also ``||F(z_j) - F(z_k)|| <= lipschitz ||z_j - z_k||`` (``L`` smooth convex-concave; with ``monotone`` the class
        :class:`~fairtheory.worstcase.operators.LipschitzStronglyMonotone` ``(L, 0)``, itself a relaxation).
    """

    def __init__(self, n: int = 2, *, D_w: float = 1.0, D_lam: float = 1.0, G_w: float = 1.0, G_lam: float = 1.0,
                 monotone: bool = True, lipschitz: float | None = None) -> None:
        self.n = check_integer(n, "n", low=2)
        self.d = 1
        self._set_weights(np.full(self.n, 1.0 / self.n), self.n)
        self.D_w = check_positive(D_w, "D_w")
        self.D_lam = check_positive(D_lam, "D_lam")
        self.G_w = check_positive(G_w, "G_w")
        self.G_lam = check_positive(G_lam, "G_lam")
        self.lipschitz = None if lipschitz is None else check_positive(lipschitz, "lipschitz")
        # homogeneity (fairtheory.worstcase.units.SADDLE_DIMENSIONS): the PEP is posed in the units a_w (primal space),
        # a_lam (dual space; = a_w when a Lipschitz row couples the two) and V (value), powers of two: w' = w/a_w,
        # lambda' = lambda/a_lam, g' = g a_w/V, h' = h a_lam/V.  The method sees its own arithmetic commute: it is
        # handed x' and the gradients (V/a^2) g' (module doc), so its steps are used as given.
        # V ~ the larger block's D G; each space's unit balances its points and gradients in the Gram matrix,
        # D/a = G a/V, i.e. a^2 = D V/G (a_w = D_w when the primal block is the larger one); a Lipschitz row ties the
        # two spaces to one unit, their geometric mean
        self.V = units.pow2(max(self.G_w * self.D_w, self.G_lam * self.D_lam))
        Vf = float(self.V)
        self.a_w = units.pow2(math.sqrt(self.D_w * Vf / self.G_w))
        self.a_lam = units.pow2(math.sqrt(self.D_lam * Vf / self.G_lam))
        if self.lipschitz is not None:
            self.a_w = self.a_lam = units.pow2(math.sqrt(float(self.a_w) * float(self.a_lam)))
        #: the factors of the gradients handed to the method (exact powers of two)
        self.c_w, self.c_lam = float(self.V / self.a_w ** 2), float(self.V / self.a_lam ** 2)
        self.pep = PEP()
        self.xp = _NS(self)
        self.blocks: dict[str, list[int]] = {"primal": [], "dual": []}
        self.monotone = bool(monotone)
        self.Lam = self.pep.function(ConvexIndicator(D=units.normalise(self.D_lam, (1, 0), self.a_lam, 1)), "Lambda")
        self.w0 = self._new("primal")
        self.lam0 = self._new("dual")
        self.Lam.add_point(self.lam0, self._new("dual"), Scalar())
        #: the oracle points (w_t, lambda_t, g_t, h_t) in the order the method queried them
        self.points: list[tuple[Vec, Vec, Vec, Vec]] = []
        self._h: dict[bytes, Vec] = {}
        self._g: dict[tuple[bytes, bytes], Vec] = {}
        self.dual_set = SymbolicDualSet(self)

    # ------------------------------------------------------------ blocks
    def _mark(self, block: str, start: int) -> None:
        self.blocks[block].extend(range(start, self.pep.dim))

    def _new(self, block: str) -> Vec:
        start = self.pep.dim
        v = self.pep.vector()
        self._mark(block, start)
        return v

    def _project(self, y: Vec) -> Vec:
        start = self.pep.dim
        x = self.Lam.project(y)
        self._mark("dual", start)
        return x

    # ------------------------------------------------------------ oracles
    def _loss_vec(self, w: Vec) -> Vec:
        k = w.key()
        if k not in self._h:
            h = self._new("dual")
            self.pep.add_le(sqnorm(h) - units.normalise(self.G_lam, (-1, 1), self.a_lam, self.V) ** 2)
            self._h[k] = h
        return self._h[k]

    def _grad_w(self, w: Vec, lam: Vec) -> Vec:
        k = (w.key(), lam.key())
        if k not in self._g:
            h = self._loss_vec(w)
            g = self._new("primal")
            self.pep.add_le(sqnorm(g) - units.normalise(self.G_w, (-1, 1), self.a_w, self.V) ** 2)
            self._g[k] = g
            self.points.append((w, lam, g, h))
        return self._g[k]

    def _primal(self, w: Any, name: str) -> Vec:
        if not (isinstance(w, _Prim) and w.owner is self):
            raise NotRepresentableError(f"{name} must be the saddle PEP's symbolic model, got {type(w).__name__}")
        return w.v

    def grads(self, w: Any) -> Any:
        """A lazy handle: ``lam @ grads(w)`` is ``grad_w L(w, lam)``."""
        return _Grads(self, self._primal(w, "w"))

    def losses(self, w: Any) -> Any:
        """The dual gradient ``f(w) = grad_lambda L(w, .)`` (one vector of the dual block per ``w``)."""
        return _Dual(self, self._loss_vec(self._primal(w, "w")) * self.c_lam)

    def initial_point(self) -> Any:
        return _Prim(self, self.w0)

    def as_model(self, w: Any, name: str = "w") -> Any:
        self._primal(w, name)
        return w

    def losses_each(self, W: Any, clients: Any = None) -> Any:
        raise NotRepresentableError("per-client losses f_i(W_i) (the saddle PEP knows L(w, lam) = sum_i lam_i f_i(w) "
                                    "through its gradient field only)")

    def grads_each(self, W: Any, clients: Any = None) -> Any:
        """Every client's gradient at one common point (rows without formal terms): formal client gradients (their
        ``lam``-weighted sum is the oracle); rows that differ between clients are refused."""
        if clients is None and isinstance(W, _ClientRows) and W.owner is self and not W.formal:
            return _ClientRows(self, self.pep.zero(), {W.common.key(): (W.common, 1.0)})
        raise NotRepresentableError("per-client gradients grad f_i(W_i) at points that differ between clients (the "
                                    "saddle PEP knows L(w, lam) = sum_i lam_i f_i(w) through its gradient field only)")

    def hessians(self, w: Any) -> Any:
        raise NotRepresentableError("hessians in the saddle PEP")

    def smoothness(self) -> Any:
        raise NotRepresentableError("smoothness constants of the saddle PEP (its class is given by G_w, G_lam)")

    def cvxpy_losses(self, w: Any) -> Any:
        raise NotRepresentableError("cvxpy losses of the saddle PEP")

    def operator_rows(self) -> list[Scalar]:
        r"""Rows ``r <= 0`` of the field ``F = (g, -h)`` at every pair of oracle points, written blockwise in the product
        space (``<F_j - F_k, z_j - z_k> = <g_j - g_k, w_j - w_k> - <h_j - h_k, lambda_j - lambda_k>``): monotone (the
        rows of :class:`~fairtheory.worstcase.operators.Monotone`) and, with ``lipschitz``, ``||g_j - g_k||^2 +
        ||h_j - h_k||^2 <= L^2 (||w_j - w_k||^2 + ||lambda_j - lambda_k||^2)`` (with monotone: the rows of
        :class:`~fairtheory.worstcase.operators.LipschitzStronglyMonotone` ``(L, 0)``, a relaxation)."""
        rows = []
        P = self.points
        for j in range(len(P)):
            for k in range(j + 1, len(P)):
                (wj, lj, gj, hj), (wk, lk, gk, hk) = P[j], P[k]
                dw, dl, dg, dh = wj - wk, lj - lk, gj - gk, hj - hk
                if self.monotone:
                    rows.append(inner(dh, dl) - inner(dg, dw))
                if self.lipschitz is not None:  # a_w = a_lam = a: L' = L a^2 / V
                    L2 = units.normalise(self.lipschitz, (-2, 1), self.a_w, self.V) ** 2
                    rows.append(sqnorm(dg) + sqnorm(dh) - sqnorm(dw) * L2 - sqnorm(dl) * L2)
        return rows

    def orthogonality_rows(self) -> list[Scalar]:
        """``<e_a, e_b> = 0`` for every primal basis vector ``a`` and dual basis vector ``b`` (the product space)."""
        dim = self.pep.dim

        def e(i: int) -> Vec:
            c = np.zeros(dim)
            c[i] = 1.0
            return Vec(c)

        return [inner(e(a), e(b)) for a in self.blocks["primal"] for b in self.blocks["dual"]]


@dataclass
class MinmaxWorstCase:
    """A traced min-max worst case: ``value`` (the solver's, an upper bound on the worst-case duality gap at the
    averaged iterates: ``value_is``), the solve's status and duality gap, and what was traced."""

    value: float
    value_is: str
    status: str
    solver_gap: float
    rounds: int
    params: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    dim: int = 0


def _mean_points(prob: SaddlePEP, state: Any, T: int) -> list[tuple[Vec, Vec, Vec, Vec]]:
    """The method's oracle points, checked: one per step, and ``State.w_avg`` / ``State.lam_avg`` their means."""
    pts = prob.points
    if len(pts) != T:
        raise NotRepresentableError(f"the method queried the saddle oracle {len(pts)} times in {T} steps; the "
                                    "averaged-iterate gap needs one oracle point per step (output='last' measures "
                                    "the last pair)")
    for name, got, idx in (("w_avg", getattr(state, "w_avg", None), 0), ("lam_avg", getattr(state, "lam_avg", None), 1)):
        want = sum((p[idx] for p in pts[1:]), pts[0][idx]) / float(T)
        if not isinstance(got, _Sym) or not np.allclose(np.asarray((got.v - want).c, dtype=float), 0.0, atol=1e-12):
            raise NotRepresentableError(f"the method's State.{name} is not the mean of its {T} oracle points: the "
                                        "linearised-gap bound on the averaged iterates does not apply")
    return pts


def afl_paper_steps(T: int, *, D_w: float = 1.0, D_lam: float = 1.0, G_w: float = 1.0,
                    G_lam: float = 1.0) -> tuple[float, float]:
    r"""Mohri, Sivek & Suresh 2019, Thm 2's steps ``gamma_w = 2 D_W/(sigma_w sqrt T)``,
    ``gamma_lambda = 2 D_Lambda/(sigma_lambda sqrt T)`` (exact oracles: ``sigma = G``); every argument validated by
    name (``T`` an integer ``>= 1``, the diameters and gradient bounds finite and ``> 0``)."""
    r = math.sqrt(check_integer(T, "T", low=1))
    D_w, D_lam, G_w, G_lam = _radii(D_w=D_w, D_lam=D_lam, G_w=G_w, G_lam=G_lam)
    return 2.0 * D_w / (G_w * r), 2.0 * D_lam / (G_lam * r)


def _radii(**kw: Any) -> list[float]:
    """The diameters and gradient bounds of the saddle problem, each a finite number ``> 0`` (refused by name)."""
    return [check_positive(v, k) for k, v in kw.items()]


def afl_paper_bound(T: int, *, D_w: float = 1.0, D_lam: float = 1.0, G_w: float = 1.0, G_lam: float = 1.0) -> float:
    r"""Mohri, Sivek & Suresh 2019, Thm 2: ``3 D_W sigma_w / sqrt T + 3 D_Lambda sigma_lambda / sqrt T`` at the
    steps of :func:`afl_paper_steps` (exact oracles: ``sigma = G``)."""
    r = math.sqrt(check_integer(T, "T", low=1))
    D_w, D_lam, G_w, G_lam = _radii(D_w=D_w, D_lam=D_lam, G_w=G_w, G_lam=G_lam)
    return 3.0 * (D_w * G_w + D_lam * G_lam) / r


def gda_classical_bound(T: int, lr: float, dual_lr: float, *, D_w: float = 1.0, D_lam: float = 1.0, G_w: float = 1.0,
                        G_lam: float = 1.0) -> float:
    r"""The textbook bound on the linearised ergodic gap of projected GDA with constant steps (Nemirovski, Juditsky,
    Lan & Shapiro 2009, Sec. 3.1): ``D_w^2/(2 gamma_w T) + gamma_w G_w^2/2 + D_lam^2/(2 gamma_lam T) +
    gamma_lam G_lam^2/2`` (nonexpansive projection and bounded gradients only)."""
    T = check_integer(T, "T", low=1)
    D_w, D_lam, G_w, G_lam, lr, dual_lr = _radii(D_w=D_w, D_lam=D_lam, G_w=G_w, G_lam=G_lam, lr=lr, dual_lr=dual_lr)
    return (D_w ** 2 / (2 * lr * T) + lr * G_w ** 2 / 2 + D_lam ** 2 / (2 * dual_lr * T) + dual_lr * G_lam ** 2 / 2)


def minmax_worst_case(make: Callable[..., Any], rounds: int, *, n: int = 2, D_w: float = 1.0, D_lam: float = 1.0,
                      G_w: float = 1.0, G_lam: float = 1.0, monotone: bool = True, lipschitz: float | None = None,
                      measure: str = "gap", output: str = "mean", orthogonal: bool = False,
                      start: Mapping[str, Any] | None = None,
                      tol: float = 1e-8, **hyper: Any) -> MinmaxWorstCase:
    r"""Upper bound on the worst-case duality gap at the averaged iterates after ``rounds`` steps of
    ``make(problem, aggregator=problem.dual_set, **hyper)`` on the saddle-operator PEP (module doc).

    ``measure``: ``"gap"`` only.  ``output="mean"``: the linearised ergodic gap of the method's oracle points (module
    doc); the state must carry the running averages ``w_avg``, ``lam_avg`` of exactly those points (AFL's ``State``).
    ``output="last"``: the linearised gap ``sup <g, w_T - w_c> + <h, lambda_c - lambda_T>`` at the last pair
    ``(state.w, state.lam)`` (one more oracle query, by the measure), which bounds the duality gap at that pair for
    every convex-concave ``L``.  ``orthogonal=True`` adds the equality rows fixing every primal-dual Gram entry to 0
    (the same value: every row and the objective are blockwise, and the block-diagonal part of a PSD matrix is PSD;
    a test checks it).  A method whose step needs client-specific points, random draws or nonlinear
    operations raises :class:`NotRepresentableError` naming the operation."""
    T = check_integer(rounds, "rounds", low=1, high=MAX_ROUNDS)
    if measure != "gap":
        raise FairtheoryValueError(f"measure must be 'gap' (the linearised ergodic gap), got {measure!r}")
    if output not in ("mean", "last"):
        raise FairtheoryValueError(f"output must be 'mean' (averaged iterates) or 'last', got {output!r}")
    if not callable(make):
        raise FairtheoryTypeError(f"make must be callable (an algorithm's make), got {type(make).__name__}")
    t0 = time.perf_counter()
    prob = SaddlePEP(n, D_w=D_w, D_lam=D_lam, G_w=G_w, G_lam=G_lam, monotone=monotone, lipschitz=lipschitz)
    if "aggregator" in hyper:
        raise FairtheoryValueError("aggregator= is the saddle PEP's dual set (an arbitrary convex set of diameter "
                                   "<= D_lam); do not pass one")
    alg = make(prob, aggregator=prob.dual_set, **hyper)
    state = alg.init(**dict(start or {}))
    for _ in range(T):
        state = alg.step(state, _NoDraws())
    if output == "mean":
        pts = _mean_points(prob, state, T)
    else:
        w_T, lam_T = getattr(state, "w", None), getattr(state, "lam", None)
        if not (isinstance(w_T, _Prim) and isinstance(lam_T, _Dual)):
            raise NotRepresentableError("output='last' needs the state's symbolic pair (w, lam)")
        g = prob._grad_w(w_T.v, lam_T.v)
        pts = [(w_T.v, lam_T.v, g, prob._loss_vec(w_T.v))]
    pep = prob.pep
    w_c = prob._new("primal")
    lam_c = prob._new("dual")
    prob.Lam.add_point(lam_c, prob._new("dual"), Scalar())
    pep.add_le(sqnorm(w_c - prob.w0) - units.normalise(prob.D_w, (1, 0), prob.a_w, 1) ** 2)
    obj = Scalar()
    for w, lam, g, h in pts:
        obj = obj + inner(g, w - w_c) + inner(h, lam_c - lam)
    obj = obj * (1.0 / len(pts))
    for row in prob.operator_rows():
        pep.add_le(row)
    if orthogonal:
        for row in prob.orthogonality_rows():
            pep.add_eq(row)
    pep.maximize(obj)
    # posed in its own units (above): solved on these data as given - nothing else rescales (the checked solve's
    # heuristic units read ||h'||^2 <= (G_lam a_lam/V)^2 as a distance and lost the dual block: 1000.002 for 1001)
    sol = pep.solve(tol=tol, raw=True)
    if sol.status != "Solved":  # the checked solve (GMP re-solve of a face without interior; raises on failure)
        sol = pep.solve(tol=tol)
    params = {"method": f"{getattr(make, '__module__', '')}.{getattr(make, '__qualname__', repr(make))}",
              "rounds": T, "n": n, "D_w": D_w, "D_lam": D_lam, "G_w": G_w, "G_lam": G_lam, "monotone": monotone,
              "lipschitz": lipschitz, "output": output,
              "measure": "linearised ergodic gap at the averaged iterates" if output == "mean" else
              "linearised gap at the last pair",
              "hyper": {k: v for k, v in hyper.items() if isinstance(v, (int, float, str, type(None)))}}
    # always an upper bound: the linearised gap bounds the gap, and monotone rows relax convex-concave interpolation
    # the gap has the dimension of a value: the normalised worst case times V (a power of two, exact)
    return MinmaxWorstCase(value=float(sol.value) * float(prob.V), value_is="upper bound", status=sol.status,
                           solver_gap=float(sol.gap) * float(prob.V), rounds=T, params=params,
                           seconds=time.perf_counter() - t0, dim=pep.dim)
