r"""Trusted kernel: the PEP's symbols and interpolation rows, written once, generic in the number ring.

Both PEP kernels build the same semidefinite program: :mod:`fairtheory_kernel.pep` over the rationals
(:class:`fractions.Fraction`), :mod:`fairtheory_kernel.family` over ``Q[t]`` (FLINT ``fmpq_poly``, the step
size ``t`` a symbol).  This module holds everything they share, written for any commutative ring whose elements
support ``+``, ``*``, ``/ 2`` and ``!= 0`` (a :class:`Ring` says how a rational enters it and how a vector of its
elements is compared):

* vectors over the Gram basis as sparse dicts ``{basis index: element}`` (:func:`add`, :func:`avg`), and the
  bilinear form :func:`gram` (``into += c <u, v>`` on upper-triangle entries);
* :class:`Symbols`: the basis ``x0 - x*``, the optimum gradients ``grad f_i(x*)`` (``i < n - 1`` free, the last
  ``-sum_i p_i/p_n`` of the others, so that ``grad G(x*) = 0``) and one new gradient and value per evaluation
  (the *oracle*; a client asked twice at the same point answers the same);
* :func:`local_gd_output`: 002 Alg. 1 on symbols;
* :func:`interpolation_rows`: for each client ``i`` and each ordered pair ``(j, k)``, ``j != k``, of its points
  (``x*`` first, then its evaluations in order) the interpolation condition of Taylor, Hendrickx & Glineur (2017,
  Thm. 4) for ``L``-smooth ``mu``-strongly convex functions

  .. math:: f_k - f_j + \langle g_k, x_j - x_k\rangle + \frac{1}{2(1-\mu/L)}\Big(\frac{1}{L}\|g_j-g_k\|^2
            + \mu\|x_j-x_k\|^2 - \frac{2\mu}{L}\langle g_j-g_k, x_j-x_k\rangle\Big) \le 0 ,

  as ``(G, F, c)``: ``<G, Gram> + F . values + c <= 0`` (``x* = 0``, ``f_i(x*) = 0`` without loss of generality).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["BadStatement", "Ring", "RATIONALS", "add", "avg", "gram", "Symbols", "local_gd_output", "interpolation_rows"]

Vec = dict[int, Any]
Row = tuple[dict[tuple[int, int], Any], dict[int, Fraction], Fraction]


class BadStatement(ValueError):
    """A malformed, out-of-range or oversized statement or evidence (the checker answers ``False``; the project's
    certificate builders re-raise it as a ``FairtheoryValueError``)."""


@dataclass(frozen=True)
class Ring:
    """How a rational enters the ring (``const``) and a hashable key of an element (``key``: equal keys iff equal
    elements)."""

    const: Callable[[Fraction], Any]
    key: Callable[[Any], Any]


RATIONALS = Ring(const=Fraction, key=lambda x: x)


def add(u: Vec, v: Vec, c: Any = 1) -> Vec:
    """``u + c v`` (zero entries dropped)."""
    out = dict(u)
    for k, x in v.items():
        y = out.get(k, 0) + c * x
        if y != 0:
            out[k] = y
        else:
            out.pop(k, None)
    return out


def avg(vs: Sequence[Vec], w: Sequence[Any]) -> Vec:
    """``sum_k w_k v_k`` (``w`` ring elements)."""
    out: Vec = {}
    for v, c in zip(vs, w, strict=True):
        out = add(out, v, c)
    return out


def gram(u: Vec, v: Vec, c: Any, into: dict[tuple[int, int], Any]) -> None:
    """``into += c <u, v>`` on upper-triangle entries (an off-diagonal product counts half on ``(a, b)``)."""
    for a, x in u.items():
        cx = c * x
        for b, y in v.items():
            t = cx * y
            key = (a, b) if a <= b else (b, a)
            into[key] = into.get(key, 0) + (t if a == b else t / 2)


class Symbols:
    """Basis vectors and evaluations of one statement: per client, its points ``(x, g, value index)``, ``x*`` first
    (value index ``None``: ``f_i(x*) = 0``)."""

    def __init__(self, n: int, p: Sequence[Fraction], ring: Ring, max_dim: int, st: Any = None) -> None:
        self.st, self.ring, self.max_dim = st, ring, max_dim
        one = ring.const(Fraction(1))
        self.dim, self.nf = n, 0  # x0 - x* and the n - 1 free optimum gradients
        self.stars: list[Vec] = [{i: one} for i in range(1, n)]
        last: Vec = {}
        for i in range(n - 1):
            last = add(last, self.stars[i], ring.const(-p[i] / p[n - 1]))
        self.stars.append(last)
        self.points: list[list[tuple[Vec, Vec, int | None]]] = [[({}, self.stars[i], None)] for i in range(n)]
        self._seen: list[dict[Any, int]] = [{} for _ in range(n)]

    def oracle(self, i: int, x: Vec, *, dedupe: bool = True) -> tuple[Vec, int]:
        """Gradient (a new basis vector) and value index of client ``i`` at ``x`` (reused when ``x`` was seen)."""
        key = tuple(sorted((k, self.ring.key(v)) for k, v in x.items()))
        if dedupe and key in self._seen[i]:
            _, g, f = self.points[i][self._seen[i][key]]
            return g, f  # type: ignore[return-value]
        if self.dim >= self.max_dim:
            raise BadStatement(f"the statement's PEP exceeds Gram dimension {self.max_dim}")
        g: Vec = {self.dim: self.ring.const(Fraction(1))}
        self.dim += 1
        f = self.nf
        self.nf += 1
        self._seen[i][key] = len(self.points[i])
        self.points[i].append((x, g, f))
        return g, f


def local_gd_output(b: Symbols, x0: Vec, *, n: int, p: Sequence[Fraction], kappa: int, T_N: int, schedule: str,
                    output: str, step: Any) -> Vec:
    """002 Alg. 1 on symbols: every client takes ``x <- x + step grad f_i(x)`` (``step = -beta``), one step in the first
    round (``"rfedfair"``; ``kappa`` with ``"fedavg"``) and ``kappa`` in each of the ``T_N`` next, the server averages
    with ``p``; returns the ``output`` point ("002": mean of the server models, "000": mean of every averaged
    iterate from ``x0``, "last")."""
    const = b.ring.const
    pw = [const(x) for x in p]
    theta, spath, vpath = x0, [], [x0]
    for r in range(T_N + 1):
        steps = kappa if (r > 0 or schedule == "fedavg") else 1
        Y = [theta] * n
        for s in range(steps):
            Y = [add(Y[i], b.oracle(i, Y[i])[0], step) for i in range(n)]
            if s < steps - 1:
                vpath.append(avg(Y, pw))
        theta = avg(Y, pw)
        spath.append(theta)
        vpath.append(theta)
    out = {"002": spath, "000": vpath, "last": [theta]}[output]
    return avg(out, [const(Fraction(1, len(out)))] * len(out))


def interpolation_rows(b: Symbols, L: Fraction, mu: Fraction, *, max_rows: int) -> list[Row]:
    """The interpolation rows of every client's points (module doc), in the order client, ``j``, ``k``; raises
    :class:`BadStatement` past ``max_rows`` rows (before building them)."""
    const = b.ring.const
    one, k_inv = const(Fraction(1)), 1 / (2 * (1 - mu / L))
    c_g, c_x, c_gx = const(k_inv / L), const(k_inv * mu), const(-2 * k_inv * mu / L)
    rows: list[Row] = []
    for pts in b.points:
        if len(pts) * (len(pts) - 1) + len(rows) > max_rows:
            raise BadStatement(f"the statement's PEP exceeds {max_rows} interpolation conditions")
        for j, (xj, gj, fj) in enumerate(pts):
            for k, (xk, gk, fk) in enumerate(pts):
                if j == k:
                    continue
                G: dict[tuple[int, int], Any] = {}
                dx, dg = add(xj, xk, -one), add(gj, gk, -one)
                gram(gk, dx, one, G)
                gram(dg, dg, c_g, G)
                if mu:
                    gram(dx, dx, c_x, G)
                    gram(dg, dx, c_gx, G)
                F: dict[int, Fraction] = {}
                if fk is not None:
                    F[fk] = Fraction(1)
                if fj is not None:
                    F[fj] = Fraction(-1)
                rows.append(({a: v for a, v in G.items() if v != 0}, F, Fraction(0)))
    return rows
