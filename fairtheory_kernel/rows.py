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
* the interpolation rows of each client's points under its class are the class table's,
  :mod:`fairtheory_kernel.classes` (``x* = 0``, ``f_i(x*) = 0`` without loss of generality).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["BadStatement", "Ring", "RATIONALS", "add", "avg", "gram", "Symbols", "local_gd_output", "q", "nat", "keys", "fields",
           "one_of", "rat", "clients", "OUTPUTS", "envelope", "sparse", "explain", "dual", "initial", "reader"]

Vec = dict[int, Any]
Row = tuple[dict[tuple[int, int], Any], dict[int, Fraction], Fraction]


class BadStatement(ValueError):
    """A malformed, out-of-range or oversized statement or evidence (the checker answers ``False``; the project's
    certificate builders re-raise it as a ``FairtheoryValueError``)."""


# ------------------------------------------------------------------------------------------------ parsing
#: the outputs of local GD (002 Alg. 1): the mean of the server models, the mean of every averaged iterate from x0,
#: the last server model
OUTPUTS = ("average", "path_average", "last")
_RAT = re.compile(r"-?[0-9]+(/[0-9]+)?")


def q(x: Any, what: str, digits: int = 200) -> Fraction:
    """An exact rational from an ``int`` or a ``"p/q"`` string, numerator and denominator of at most ``digits``
    digits each (a statement's numbers; an evidence's have their own limit)."""
    if isinstance(x, bool):
        raise BadStatement(f"{what}: a boolean is not a number")
    if isinstance(x, int):
        if abs(x).bit_length() > 4 * digits or len(str(abs(x))) > digits:
            raise BadStatement(f"{what}: too many digits")
        return Fraction(x)
    if not isinstance(x, str) or len(x) > 2 * digits + 2 or not _RAT.fullmatch(x):
        raise BadStatement(f"{what}: not a rational string")
    num, _, den = x.partition("/")
    if len(num.lstrip("-")) > digits or len(den) > digits or (den and int(den) <= 0):
        raise BadStatement(f"{what}: too many digits or a zero denominator")
    return Fraction(int(num), int(den) if den else 1)


def nat(x: Any, what: str, lo: int, hi: int) -> int:
    """An ``int`` (not a boolean) in ``[lo, hi]``."""
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        raise BadStatement(f"{what} must be an integer in [{lo}, {hi}]")
    return x


def keys(d: Any, what: str, names: set[str]) -> Mapping[str, Any]:
    """``d``, a mapping with exactly the keys ``names``."""
    if not isinstance(d, Mapping) or set(d) != names:
        raise BadStatement(f"{what} must have exactly the keys {sorted(names)}")
    return d


def fields(d: Any, what: str, spec: Mapping[str, Callable[[Any, str], Any]]) -> dict[str, Any]:
    """``{key: parse(d[key], key)}`` for exactly the keys of ``spec`` (each a parser that raises on bad data)."""
    d = keys(d, what, set(spec))
    return {k: f(d[k], k) for k, f in spec.items()}


def one_of(*allowed: Any) -> Callable[[Any, str], Any]:
    """A parser accepting exactly one of ``allowed`` (compared with ``type`` too: ``True`` is not 1)."""
    def parse(x: Any, what: str) -> Any:
        if not any(type(x) is type(a) and x == a for a in allowed):
            raise BadStatement(f"{what} must be one of {list(allowed)}")
        return x
    return parse


def rat(lo: Fraction | None = None, strict: bool = False, digits: int = 200) -> Callable[[Any, str], Fraction]:
    """A parser of a rational ``> lo`` (``strict``) or ``>= lo`` (any rational when ``lo`` is ``None``)."""
    def parse(x: Any, what: str) -> Fraction:
        v = q(x, what, digits)
        if lo is not None and (v <= lo if strict else v < lo):
            raise BadStatement(f"{what} must be {'>' if strict else '>='} {lo}")
        return v
    return parse


def envelope(d: Any, kind: str, version: int) -> Mapping[str, Any]:
    """A certificate's top level: ``kind`` and ``version``, a ``statement`` and an ``evidence`` (and ``meta``, never
    read)."""
    if not isinstance(d, Mapping) or d.get("kind") != kind or d.get("version") != version:
        raise BadStatement(f"not a version-{version} {kind} certificate")
    if not set(d) <= {"kind", "version", "statement", "evidence", "meta"} or not {"statement", "evidence"} <= set(d):
        raise BadStatement("top-level keys: kind, version, statement, evidence (and meta, never read)")
    return d


def sparse(pairs: Any, n_rows: int, parse: Callable[[Any], Any], what: str = "multiplier") -> dict[int, Any]:
    """``[[row, value], ...]`` as ``{row: parse(value)}``: at most one per row, rows in ``[0, n_rows)``."""
    if not isinstance(pairs, list) or len(pairs) > n_rows:
        raise BadStatement(f"{what}s: a list, at most one per row")
    out: dict[int, Any] = {}
    for pair in pairs:
        if not isinstance(pair, list) or len(pair) != 2:
            raise BadStatement(f"{what}: a pair [row, value]")
        k = nat(pair[0], f"{what} row", 0, n_rows - 1)
        if k in out:
            raise BadStatement(f"repeated {what} row")
        out[k] = parse(pair[1])
    return out


def explain(run: Callable[[Any], str], d: Any) -> tuple[bool, str]:
    """``(True, "")`` when ``run(d)`` returns ``""`` (the certificate checks), else ``(False, the first failure in
    words)``; anything ``run`` raises on untrusted data is a refusal, never an exception."""
    try:
        why = run(d)
        return not why, why
    except BadStatement as exc:
        return False, f"malformed: {exc}"
    except Exception as exc:  # noqa: BLE001 - a checker of untrusted data never raises
        return False, f"malformed: {type(exc).__name__}: {exc}"


def dual(rows: Sequence[Any], objective: Any, nums: Mapping[int, Any], d: Any, const: Callable[[Fraction], Any]
         ) -> tuple[dict[int, Any], dict[tuple[int, int], Any], Any]:
    """For multipliers ``nums`` (row -> ring element) over the common denominator ``d``: ``F = sum_k nums_k a_k -
    d c_F`` (the values, to cancel), ``S = sum_k nums_k A_k - d C`` (the slack, to be PSD) and the dual bound
    ``B = d c_0 - sum_k nums_k b_k`` of rows ``(A_k, a_k, b_k)`` and objective ``(C, c_F, c_0)`` (zeros dropped)."""
    CG, cF, c0 = objective
    F = {f: -d * const(w) for f, w in cF.items()}
    S = {key: -d * v for key, v in CG.items()}
    B = d * const(c0)
    for k, nk in nums.items():
        G, a, c = rows[k]
        for f, w in a.items():
            F[f] = F.get(f, 0) + nk * const(w)
        for key, v in G.items():
            S[key] = S.get(key, 0) + nk * v
        if c:
            B -= nk * const(c)
    return {f: v for f, v in F.items() if v != 0}, {key: v for key, v in S.items() if v != 0}, B


def reader(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` of canonical statements, raising :class:`BadStatement` (naming ``fn``) on anything else."""
    def run(*args: Any) -> Any:
        try:
            return fn(*args)
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise BadStatement(f"{fn.__name__}: the arguments must be canonical statements (canonical), got "
                               f"{type(exc).__name__}: {exc}"[:200]) from None
    return run


def clients(st: Mapping[str, Any], max_n: int) -> tuple[int, list[Fraction]]:
    """``n`` in ``[1, max_n]`` and the weights ``p``: ``n`` rationals ``> 0`` summing to 1 exactly."""
    n = nat(st["n"], "n", 1, max_n)
    if not isinstance(st["p"], list) or len(st["p"]) != n:
        raise BadStatement("p must list n weights")
    p = [q(x, "p") for x in st["p"]]
    if any(x <= 0 for x in p) or sum(p) != 1:
        raise BadStatement("p: weights must be > 0 and sum to 1 exactly")
    return n, p


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
        self.st, self.ring, self.max_dim, self.p = st, ring, max_dim, list(p)
        one = ring.const(Fraction(1))
        self.dim, self.nf = n, 0  # x0 - x* and the n - 1 free optimum gradients
        self.stars: list[Vec] = [{i: one} for i in range(1, n)]
        self.stars.append(avg(self.stars, [ring.const(-p[i] / p[n - 1]) for i in range(n - 1)]))
        self.points: list[list[tuple[Vec, Vec, int | None]]] = [[({}, self.stars[i], None)] for i in range(n)]
        self._seen: list[dict[Any, int]] = [{} for _ in range(n)]

    def gap(self, x: Vec, w: Any, vals: dict[int, Any]) -> None:
        """Add ``w (G(x) - G*) = w sum_i p_i f_i(x)`` (``f_i(x*) = 0``) to the value weights ``vals``."""
        for i, p in enumerate(self.p):
            f = self.oracle(i, x)[1]
            vals[f] = vals.get(f, 0) + w * p

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
    """002 Alg. 1 on symbols: every client takes ``x <- x + step grad f_i(x)`` (``step = -lr``), one step in the first
    round (``"rfedfair"``; ``kappa`` with ``"fedavg"``) and ``kappa`` in each of the ``T_N`` next, the server averages
    with ``p``; returns the ``output`` point (:data:`OUTPUTS`: ``"average"`` the mean of the server models,
    ``"path_average"`` the mean of every averaged iterate from ``x0``, ``"last"``)."""
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
    out = {"average": spath, "path_average": vpath, "last": [theta]}[output]
    return avg(out, [const(Fraction(1, len(out)))] * len(out))


def initial(b: Symbols, p: Sequence[Fraction]) -> tuple[dict[tuple[int, int], Any], dict[tuple[int, int], Any]]:
    """``||x0 - x*||^2`` and ``rho^2 = sum_i p_i ||g_i(x*)||^2`` as Gram entries (the initial conditions)."""
    one, dist, het = b.ring.const(Fraction(1)), {}, {}  # type: ignore[var-annotated]
    gram({0: one}, {0: one}, one, dist)
    for g, w in zip(b.stars, p, strict=True):
        gram(g, g, b.ring.const(w), het)
    return dist, {a: v for a, v in het.items() if v != 0}
