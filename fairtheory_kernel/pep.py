r"""Trusted kernel of the PEP checker: a declarative statement -> the exact SDP it asserts a bound on, and the check.

A ``"pep-dual"`` certificate (version 2) is a *statement* and *evidence* (dual multipliers).  This module
turns the statement alone into the problem data - interpolation conditions, initial conditions and
objective - in exact rationals (:func:`canonical`, :func:`build`), and :func:`check_certificate` checks the
multipliers against that data by weak duality (:func:`verify_multipliers`, with the exact PSD test of
:mod:`fairtheory.proofs.exact_linalg`).  Nothing in a certificate other than the statement shapes the obligations:
no constraint row, objective, normalising scale or metadata is read from it.  The lines below are the
trusted base; docs/proofs.md explains them one by one.

Statement (every number a rational string ``"p/q"`` or an integer)::

    {"class": {"functions": "smooth-convex", "L": q, "mu": q},   # every client L-smooth, mu-strongly convex
     "n": int, "p": [q, ...],                                     # clients and their weights (> 0, sum 1)
     "method": {...},                                             # see below; it also fixes the measure
     "bound": {"form": "constrained", "D0": q, "rho2": q, "value": q}
            | {"form": "homogeneous", "dist": q, "hetero": q}}

Instances: ``n`` functions ``f_i`` of the class on ``R^d`` (any ``d``), ``G = sum_i p_i f_i`` minimised at
``x*`` (``sum_i p_i grad f_i(x*) = 0``), a starting point ``x0``; ``rho^2 = sum_i p_i ||grad f_i(x*)||^2``.
``"constrained"`` asserts ``measure <= value`` for every instance with ``||x0 - x*||^2 <= D0`` and
``rho^2 <= rho2``; ``"homogeneous"`` asserts ``measure <= dist ||x0 - x*||^2 + hetero rho^2`` for every
instance.  Methods and their measures:

* ``{"name": "local_gd", "kappa", "T_N", "beta", "schedule": "rfedfair"|"fedavg", "output": "002"|"000"|"last"}``:
  002 Alg. 1 with full participation (module :mod:`fairtheory.worstcase.local_gd`); measure ``G(x_out) - G*``;
* ``{"name": "scaffold", "kappa", "R", "eta_l", "eta_g", "warm_start": bool, "output": "last"|"avg"}``:
  deterministic Scaffold (option II); measure ``G(x_out) - G*``;
* ``{"name": "local_gd_round", "kappa", "beta", "a"}``: one round of ``kappa`` local steps from ``theta = x0``
  then the ``p``-average ``theta+``; measure ``a (G(theta) - G*) + ||theta+ - x*||^2``;
* ``{"name": "linear", "evaluations": [[i, [[b, q], ...]], ...], "objective": [[q, e], ...]}``: any method
  whose iterates are fixed linear combinations, as traced: evaluation ``e`` asks client ``i`` for its gradient
  ``g_e`` and value at ``x_e = v_0 + sum_b q_b v_b`` over the basis ``v_0 = x0 - x*`` (coefficient exactly 1: an
  algorithm starts from ``x0``) and ``v_{n+e'} = g_{e'}`` for the *earlier* evaluations ``e' < e`` only; the
  objective's weights must be ``q_o p_i`` on every client ``i`` at each output point ``x_o`` with ``q_o > 0``,
  ``sum_o q_o = 1`` (:func:`linear_outputs`), so the measure is ``E[G(x_out)] - G*`` with ``x_out = x_o`` with
  probability ``q_o``, and is printed so.

The SDP (symbols and rows: :mod:`fairtheory_kernel.rows`, shared with the parametric kernel): Gram basis
``x0 - x*``, ``grad f_i(x*)`` for ``i < n`` (the last one is ``-sum_i p_i/p_n`` of the others), then one gradient
per evaluation; one value per evaluation (``x* = 0`` and ``f_i(x*) = 0`` without loss of generality: translations
and constant shifts).  Rows, in this order: for each client ``i``, for each ordered pair ``(j, k)``, ``j != k``, of
its points (``x*`` first, then its evaluations in order) the interpolation condition of Taylor, Hendrickx &
Glineur (2017, Thm. 4)

.. math:: f_k - f_j + \langle g_k, x_j - x_k\rangle + \frac{1}{2(1-\mu/L)}\Big(\frac{1}{L}\|g_j-g_k\|^2
          + \mu\|x_j-x_k\|^2 - \frac{2\mu}{L}\langle g_j-g_k, x_j-x_k\rangle\Big) \le 0 ;

then, for ``"constrained"``, ``||x0 - x*||^2 - D0 <= 0`` and (``n > 1``) ``rho^2 - rho2 <= 0``.  The
objective is the measure (``"constrained"``) or ``measure - dist ||x0 - x*||^2 - hetero rho^2``
(``"homogeneous"``, claimed bound 0).  Pure Python (``int``/:class:`Fraction`), no numpy.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from fairtheory_kernel.linalg import is_psd
from fairtheory_kernel.rows import RATIONALS, BadStatement, Symbols, add, avg, gram, interpolation_rows, local_gd_output

__all__ = ["Statement", "BadStatement", "build", "canonical", "describe", "implies", "verify_multipliers",
           "check_certificate", "check_work", "parse", "statement_of", "MAX_DIM", "MAX_ROWS", "MAX_DIGITS", "MAX_WORK"]

#: limits on what a statement may ask for (a hostile statement is refused before anything is built).  Each is a
#: bound on one quantity; :data:`MAX_WORK` bounds their combination (a statement within every limit may still be
#: refused by the work estimate, e.g. a dense 100-dimensional PEP with 200-digit coefficients)
MAX_DIM = 100
MAX_ROWS = 20_000
MAX_DIGITS = 200
MAX_CLIENTS = 16
MAX_STEPS = 400
#: work budget of one check, in units of one multiply-add of two small rationals (5-10 us on the 2-core machine of
#: docs/proofs.md): :func:`check_work` estimates the work of a certificate from its statement (Gram dimension,
#: rows, coefficient and multiplier sizes) before the SDP is built, and a larger estimate is refused (``False``), so
#: that every certificate the checker accepts to check is decided in a few seconds (about 2.5 s at most, measured on
#: hostile certificates just inside it; a dense 140-evaluation one took 49 s before).  The largest certificate the
#: suite produces (Gram 36, 614 rows) needs about 30% of it; local GD with two clients fits up to Gram 54
MAX_WORK = 300_000
#: bits (common denominator plus numerator) beyond which a coefficient or multiplier family is refused outright
MAX_BITS = 1 << 14

Vec = dict[int, Fraction]
Row = tuple[dict[tuple[int, int], Fraction], dict[int, Fraction], Fraction]
Statement = dict[str, Any]

_RAT = re.compile(r"-?[0-9]+(/[0-9]+)?")


# ------------------------------------------------------------------------------------------------ parsing
def q(x: Any, what: str, length: int = 2 * MAX_DIGITS + 2) -> Fraction:
    """An exact rational from an ``int`` or a ``"p/q"`` string of at most ``length`` characters (default: about
    :data:`MAX_DIGITS` digits each)."""
    if isinstance(x, bool):
        raise BadStatement(f"{what}: a boolean is not a number")
    if isinstance(x, int):
        if abs(x).bit_length() > 4 * MAX_DIGITS:
            raise BadStatement(f"{what}: too large")
        return Fraction(x)
    if not isinstance(x, str) or len(x) > length or not _RAT.fullmatch(x):
        raise BadStatement(f"{what}: not a rational string")
    num, _, den = x.partition("/")
    d = int(den) if den else 1
    if d <= 0:
        raise BadStatement(f"{what}: zero denominator")
    return Fraction(int(num), d)


def _int(x: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        raise BadStatement(f"{what} must be an integer in [{lo}, {hi}]")
    return x


def _keys(d: Any, what: str, keys: set[str]) -> Mapping[str, Any]:
    if not isinstance(d, Mapping) or set(d) != keys:
        raise BadStatement(f"{what} must have exactly the keys {sorted(keys)}")
    return d


def canonical(st: Any) -> Statement:
    """The statement with every number parsed (:class:`Fraction`) and every field validated; raises
    :class:`BadStatement`.  Two statements are the same statement iff their canonical forms are equal."""
    st = _keys(st, "statement", {"class", "n", "p", "method", "bound"})
    cl = _keys(st["class"], "class", {"functions", "L", "mu"})
    if cl["functions"] != "smooth-convex":
        raise BadStatement("class.functions must be 'smooth-convex'")
    L, mu = q(cl["L"], "L"), q(cl["mu"], "mu")
    if not (L > 0 and 0 <= mu < L):
        raise BadStatement("class: need L > 0 and 0 <= mu < L")
    n = _int(st["n"], "n", 1, MAX_CLIENTS)
    if not isinstance(st["p"], list) or len(st["p"]) != n:
        raise BadStatement("p must list n weights")
    p = [q(x, "p") for x in st["p"]]
    if any(x <= 0 for x in p) or sum(p) != 1:
        raise BadStatement("p: weights must be > 0 and sum to 1 exactly")
    m = st["method"]
    if not isinstance(m, Mapping) or "name" not in m:
        raise BadStatement("method must name a method")
    name = m["name"]
    if name == "local_gd":
        m = _keys(m, "method", {"name", "kappa", "T_N", "beta", "schedule", "output"})
        if m["schedule"] not in ("rfedfair", "fedavg") or m["output"] not in ("002", "000", "last"):
            raise BadStatement("local_gd: schedule 'rfedfair'|'fedavg', output '002'|'000'|'last'")
        method: dict[str, Any] = {"name": name, "kappa": _int(m["kappa"], "kappa", 1, MAX_STEPS),
                                  "T_N": _int(m["T_N"], "T_N", 0, MAX_STEPS), "beta": q(m["beta"], "beta"),
                                  "schedule": m["schedule"], "output": m["output"]}
        if method["beta"] <= 0:
            raise BadStatement("beta must be > 0")
    elif name == "scaffold":
        m = _keys(m, "method", {"name", "kappa", "R", "eta_l", "eta_g", "warm_start", "output"})
        if not isinstance(m["warm_start"], bool) or m["output"] not in ("last", "avg"):
            raise BadStatement("scaffold: warm_start a boolean, output 'last'|'avg'")
        method = {"name": name, "kappa": _int(m["kappa"], "kappa", 1, MAX_STEPS), "R": _int(m["R"], "R", 1, MAX_STEPS),
                  "eta_l": q(m["eta_l"], "eta_l"), "eta_g": q(m["eta_g"], "eta_g"), "warm_start": m["warm_start"],
                  "output": m["output"]}
        if method["eta_l"] <= 0 or method["eta_g"] <= 0:
            raise BadStatement("eta_l and eta_g must be > 0")
    elif name == "local_gd_round":
        m = _keys(m, "method", {"name", "kappa", "beta", "a"})
        method = {"name": name, "kappa": _int(m["kappa"], "kappa", 1, MAX_STEPS), "beta": q(m["beta"], "beta"),
                  "a": q(m["a"], "a")}
        if method["beta"] <= 0 or method["a"] < 0:
            raise BadStatement("local_gd_round: beta > 0, a >= 0")
    elif name == "linear":
        m = _keys(m, "method", {"name", "evaluations", "objective"})
        ev, ob = m["evaluations"], m["objective"]
        if not isinstance(ev, list) or not isinstance(ob, list) or len(ev) > MAX_DIM or len(ob) > MAX_ROWS:
            raise BadStatement("linear: evaluations and objective must be (bounded) lists")
        evals = []
        for e, item in enumerate(ev):
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], list) or len(item[1]) > MAX_DIM:
                raise BadStatement("linear: evaluation [client, [[basis, coefficient], ...]]")
            i = _int(item[0], "evaluation client", 0, n - 1)
            x: Vec = {}
            for pair in item[1]:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise BadStatement("linear: basis coefficient pair")
                b = _int(pair[0], "basis index", 0, n + e - 1)
                if 1 <= b < n:
                    raise BadStatement("linear: an iterate cannot use the unknown optimum gradients")
                if b in x:
                    raise BadStatement("linear: repeated basis index")
                c = q(pair[1], "coefficient")
                if c != 0:
                    x[b] = c
            if x.get(0) != 1:
                raise BadStatement("linear: every evaluation point is x0 plus earlier gradients (coefficient 1 on x0 - x*)")
            evals.append((i, x))
        obj = []
        for pair in ob:
            if not isinstance(pair, list) or len(pair) != 2:
                raise BadStatement("linear: objective pair [weight, evaluation]")
            obj.append((q(pair[0], "weight"), _int(pair[1], "objective evaluation", 0, len(evals) - 1)))
        linear_outputs(n, p, evals, obj)
        method = {"name": name, "evaluations": evals, "objective": obj}
    else:
        raise BadStatement(f"unknown method {name!r}")
    b = st["bound"]
    if not isinstance(b, Mapping):
        raise BadStatement("bound must be a mapping")
    if b.get("form") == "constrained":
        b = _keys(b, "bound", {"form", "D0", "rho2", "value"})
        bound: dict[str, Any] = {"form": "constrained", "D0": q(b["D0"], "D0"), "rho2": q(b["rho2"], "rho2"),
                                 "value": q(b["value"], "value")}
        if bound["D0"] < 0 or bound["rho2"] < 0:
            raise BadStatement("D0 and rho2 must be >= 0")
    elif b.get("form") == "homogeneous":
        b = _keys(b, "bound", {"form", "dist", "hetero"})
        bound = {"form": "homogeneous", "dist": q(b["dist"], "dist"), "hetero": q(b["hetero"], "hetero")}
    else:
        raise BadStatement("bound.form must be 'constrained' or 'homogeneous'")
    return {"class": {"functions": "smooth-convex", "L": L, "mu": mu}, "n": n, "p": p, "method": method, "bound": bound}


def linear_outputs(n: int, p: Sequence[Fraction], evals: Sequence[tuple[int, Vec]],
                   obj: Sequence[tuple[Fraction, int]]) -> list[tuple[Fraction, int]]:
    """The measure of a ``linear`` method as ``[(q_o, e_o), ...]``: ``E[G(x_out)] - G*`` with ``x_out`` the point of
    evaluation ``e_o`` with probability ``q_o``.  The objective's weights, summed per point and client, must be
    ``q_o p_i`` for every client ``i`` at every output point, with ``q_o > 0`` and ``sum_o q_o = 1`` exactly; anything
    else (a weight on one client only, a negative or unnormalised weight) is not this measure and raises
    :class:`BadStatement`."""
    groups: dict[tuple[tuple[int, Fraction], ...], dict[int, Fraction]] = {}
    first: dict[tuple[tuple[int, Fraction], ...], int] = {}
    for w, e in obj:
        i, x = evals[e]
        key = tuple(sorted(x.items()))
        first.setdefault(key, e)
        ws = groups.setdefault(key, {})
        ws[i] = ws.get(i, 0) + w
    out = []
    for key, ws in groups.items():
        qo = ws.get(0, Fraction(0)) / p[0]
        if qo <= 0 or any(ws.get(i, 0) != qo * p[i] for i in range(n)):
            raise BadStatement("linear: the objective must be E[G(x_out)] - G*: weight q p_i on every client i at each "
                               "output point, q > 0")
        out.append((qo, first[key]))
    if sum(qo for qo, _ in out) != 1:
        raise BadStatement("linear: the output probabilities must sum to 1 exactly")
    return out


def to_json(st: Statement) -> dict[str, Any]:
    """A canonical statement as plain JSON (rational strings)."""
    def s(x: Any) -> Any:
        if isinstance(x, Fraction):
            return str(x)
        if isinstance(x, Mapping):
            return {k: s(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [s(v) for v in x]
        return x

    out = s(st)
    if st["method"]["name"] == "linear":
        out["method"]["evaluations"] = [[i, [[b, str(c)] for b, c in sorted(x.items())]]
                                        for i, x in st["method"]["evaluations"]]
        out["method"]["objective"] = [[str(w), e] for w, e in st["method"]["objective"]]
    return out


# ------------------------------------------------------------------------------------------------ building
def _symbols(st: Statement) -> Symbols:
    """The statement's symbols over the rationals (:class:`fairtheory_kernel.rows.Symbols`)."""
    return Symbols(st["n"], st["p"], RATIONALS, MAX_DIM, st)


def _run_method(b: Symbols) -> tuple[dict[int, Fraction], list[tuple[Fraction, Vec]]]:
    """Run the statement's method on the symbols: the measure as (linear part over values, quadratic terms)."""
    st, m = b.st, b.st["method"]
    n, p = st["n"], st["p"]
    x0: Vec = {0: Fraction(1)}
    vals: dict[int, Fraction] = {}
    quad: list[tuple[Fraction, Vec]] = []

    def gap(x: Vec, w: Fraction) -> None:
        for i in range(n):
            f = b.oracle(i, x)[1]
            vals[f] = vals.get(f, 0) + w * p[i]

    name = m["name"]
    if name == "local_gd":
        gap(local_gd_output(b, x0, n=n, p=p, kappa=m["kappa"], T_N=m["T_N"], schedule=m["schedule"],
                            output=m["output"], step=-m["beta"]), Fraction(1))
    elif name == "scaffold":
        el, eg, kappa = m["eta_l"], m["eta_g"], m["kappa"]
        x = x0
        ci = [b.oracle(i, x0)[0] if m["warm_start"] else {} for i in range(n)]
        c = avg(ci, p)
        server = []
        for _ in range(m["R"]):
            Y = [x] * n
            for _k in range(kappa):
                Y = [add(Y[i], add(add(b.oracle(i, Y[i])[0], ci[i], Fraction(-1)), c), -el) for i in range(n)]
            new = [add(add(ci[i], c, Fraction(-1)), add(x, Y[i], Fraction(-1)), 1 / (kappa * el)) for i in range(n)]
            x = add(x, avg([add(Y[i], x, Fraction(-1)) for i in range(n)], p), eg)
            c = add(c, avg([add(new[i], ci[i], Fraction(-1)) for i in range(n)], p))
            ci = new
            server.append(x)
        out = [x] if m["output"] == "last" else server
        gap(avg(out, [Fraction(1, len(out))] * len(out)), Fraction(1))
    elif name == "local_gd_round":
        Y = [x0] * n
        for _ in range(m["kappa"]):
            Y = [add(Y[i], b.oracle(i, Y[i])[0], -m["beta"]) for i in range(n)]
        gap(x0, m["a"])
        quad.append((Fraction(1), avg(Y, p)))
    else:  # linear: evaluations in order; basis n + e is the gradient of evaluation e
        for i, x in m["evaluations"]:
            b.oracle(i, x, dedupe=False)  # evaluation e gets gradient basis n + e and value index e
        for w, e in m["objective"]:
            vals[e] = vals.get(e, 0) + w
    return vals, quad


# ------------------------------------------------------------------------------------------------ work estimate
def _weight(bits: float) -> float:
    """Cost of one rational multiply-add on ``bits``-bit operands, relative to small ones (CPython's gcd is
    quadratic: about 6x at 1000 bits, 45x at 4000, measured)."""
    return 1.0 + (bits / 512.0) ** 2


def _height(x: Fraction) -> int:
    return x.numerator.bit_length() + x.denominator.bit_length()


def _common_bits(values: Iterable[Fraction]) -> int:
    """Bits of the lcm of the denominators plus the largest numerator's: about the size of any short sum of products
    of the values; ``MAX_BITS + 1`` as soon as the lcm exceeds :data:`MAX_BITS` (unrelated denominators)."""
    den, num = 1, 0
    for v in values:
        d = v.denominator
        if den % d:
            den = den // math.gcd(den, d) * d
            if den.bit_length() > MAX_BITS:
                return MAX_BITS + 1
        num = max(num, v.numerator.bit_length())
    return den.bit_length() + num


def _run_work(st: Statement) -> float:
    """Work of running the method on the symbols (:func:`_run_method`), from the statement alone: at most ``~4 dim^2``
    vector updates, with coefficients products of a few parameters (local GD, Scaffold and the round never multiply
    a coefficient by a step size twice); a ``linear`` method's points are given, nothing is computed."""
    m, n = st["method"], st["n"]
    if m["name"] == "linear":
        return 0.0
    h = sum(_height(m[k]) for k in ("beta", "a", "eta_l", "eta_g") if k in m) + max(_height(x) for x in st["p"])
    h += int(m["kappa"]).bit_length() + int(m.get("T_N", m.get("R", 1))).bit_length() + 8
    steps = m["kappa"] * (m.get("T_N", m.get("R", 0)) + 1)
    dim = min(MAX_DIM, n * (steps + 2))
    return 4.0 * dim * dim * _weight(4 * h)


def _work(b: Symbols, mult: Sequence[Fraction]) -> dict[str, float]:
    """The work of building the rows of ``b`` (its method already run), of ``S = sum_k lambda_k A_k - C`` and of the
    PSD test, from the point and multiplier sizes; raises :class:`BadStatement` past :data:`MAX_ROWS` rows."""
    st = b.st
    L, mu = st["class"]["L"], st["class"]["mu"]
    k_inv = 1 / (2 * (1 - mu / L))
    h_c = max(_height(c) for c in ([k_inv / L] + ([k_inv * mu, 2 * k_inv * mu / L] if mu else [])))
    coefs = [c for pts in b.points for x, _, _ in pts for c in x.values()] + [c for g in b.stars for c in g.values()]
    h_g = 2 * _common_bits(coefs) + h_c + 8  # a row entry: products of two point coefficients and a constant
    build_ops, slack_ops, rows = 0, 0, 0
    for i, pts in enumerate(b.points):
        P, gs = len(pts), len(b.stars[i])  # point 0 is x* (x = {}, g = g*_i with gs entries), the others new gradients
        rows += P * (P - 1)
        if rows > MAX_ROWS:
            raise BadStatement(f"the statement's PEP exceeds {MAX_ROWS} interpolation conditions")
        sizes = [len(x) for x, _, _ in pts]
        S1, S2 = sum(sizes), sum(z * z for z in sizes)
        # over the ordered pairs (j, k): <g_k, x_j - x_k> has |g_k| (|x_j| + |x_k|) terms, ||g_j - g_k||^2 at most
        # (gs + 1)^2 with x* and 4 without, and mu adds ||dx||^2 and <dg, dx>
        terms = (gs + 2 * P - 3) * S1 + 2 * (P - 1) * (gs + 1) ** 2 + 4 * (P - 1) * (P - 2)
        if mu:  # and two more products per row (~20 units of overhead)
            terms += 2 * (P - 1) * S2 + 2 * (S1 * S1 - S2) + (gs + 2) * 2 * (P - 1) * S1 + 20 * P * (P - 1)
        build_ops += terms + (P - 1) * S1 + 20 * P * (P - 1)  # the differences x_j - x_k, and ~20 per row (dicts)
        slack_ops += terms + 5 * P * (P - 1)  # S = sum_k lambda_k A_k has at most as many terms as the rows
    nz = [x for x in mult if x != 0]
    h_s = _common_bits(nz) + h_g + rows.bit_length()  # an entry of S (common denominators)
    dim = b.dim
    return {"method": _run_work(st), "rows": build_ops * _weight(h_g),
            "multipliers": sum(_weight(_height(x)) for x in nz), "slack": slack_ops * _weight(h_s),
            "psd": 0.25 * dim ** 3 * _weight(h_s + dim.bit_length())}  # FLINT rref + congruence, ~D^3/4 units


def check_work(st: Statement, multipliers: Sequence[Fraction] = ()) -> float:
    """Estimated work (units of :data:`MAX_WORK`) of checking ``multipliers`` against the canonical statement ``st``:
    running the method on the symbols, building the rows, ``S`` and the exact PSD test.  Raises
    :class:`BadStatement` when a structural limit (:data:`MAX_DIM`, :data:`MAX_ROWS`) is exceeded."""
    if _run_work(st) > MAX_WORK:
        raise BadStatement(f"running the statement's method exceeds the work budget MAX_WORK = {MAX_WORK}")
    b = _symbols(st)
    _run_method(b)
    return sum(_work(b, multipliers).values())


def build(st: Statement, *, multipliers: Sequence[Fraction] | None = None,
          max_work: float | None = None) -> dict[str, Any]:
    """The exact SDP data of a canonical statement (:func:`canonical`):
    ``{"dim", "nf", "n_eq": 0, "rows", "objective", "claimed"}`` with rows and objective as ``(G, F, c)``
    (``G`` upper-triangle entries, row means ``<= 0``) and ``claimed`` the bound the certificate must reach
    (``value`` or 0).  With ``max_work``, the statement (and the ``multipliers`` to be checked against it) is refused
    with :class:`BadStatement` when :func:`check_work` exceeds it, before any row is built."""
    if max_work is not None and _run_work(st) > max_work:
        raise BadStatement(f"running the statement's method exceeds the work budget {max_work:.3g}")
    b = _symbols(st)
    vals, quad = _run_method(b)
    if max_work is not None:
        need = sum(_work(b, multipliers or ()).values())
        if need > max_work:
            raise BadStatement(f"checking this certificate needs about {need:.3g} work units, more than the budget "
                               f"{max_work:.3g} (Gram dimension {b.dim})")
    n, p = st["n"], st["p"]
    rows = interpolation_rows(b, st["class"]["L"], st["class"]["mu"], max_rows=MAX_ROWS)
    n_interp = len(rows)
    x0: Vec = {0: Fraction(1)}
    dist: dict[tuple[int, int], Fraction] = {}
    gram(x0, x0, Fraction(1), dist)
    hetero: dict[tuple[int, int], Fraction] = {}
    for i in range(n):
        gram(b.stars[i], b.stars[i], p[i], hetero)
    hetero = {a: v for a, v in hetero.items() if v}
    CG: dict[tuple[int, int], Fraction] = {}
    for w, v in quad:
        gram(v, v, w, CG)
    bd = st["bound"]
    if bd["form"] == "constrained":
        rows.append((dist, {}, -bd["D0"]))
        if n > 1:
            rows.append((hetero, {}, -bd["rho2"]))
        claimed = bd["value"]
    else:
        for src, c in ((dist, bd["dist"]), (hetero, bd["hetero"])):
            for a, v in src.items():
                CG[a] = CG.get(a, 0) - c * v
        claimed = Fraction(0)
    objective = ({a: v for a, v in CG.items() if v}, {f: w for f, w in vals.items() if w}, Fraction(0))
    return {"dim": b.dim, "nf": b.nf, "n_eq": 0, "n_interp": n_interp, "rows": rows, "objective": objective,
            "claimed": claimed, "dist": dist, "hetero": hetero}


# ------------------------------------------------------------------------------------------------ weak duality
def verify_multipliers(rows: Sequence[Row], objective: Row, mult: Sequence[Fraction], *, dim: int, nf: int,
                       n_eq: int) -> Fraction | None:
    r"""The bound ``c_0 - sum_k lambda_k b_k`` (normalised units) when (i) and (ii) hold exactly and
    ``lambda_k >= 0`` for the inequalities, else ``None``.  Pure integer/:class:`Fraction` arithmetic."""
    if len(mult) != len(rows):
        return None
    CG, cF, c0 = objective
    F: dict[int, Fraction] = {}
    S: dict[tuple[int, int], Fraction] = {}
    bound = c0
    for k, (lam, (G, a, b)) in enumerate(zip(mult, rows, strict=True)):
        if k >= n_eq and lam < 0:
            return None
        if lam == 0:
            continue
        for key, v in a.items():
            F[key] = F.get(key, Fraction(0)) + lam * v
        for key, v in G.items():
            S[key] = S.get(key, Fraction(0)) + lam * v
        bound -= lam * b
    for key, v in cF.items():
        F[key] = F.get(key, Fraction(0)) - v
    if any(v != 0 for v in F.values()):
        return None
    for key, v in CG.items():
        S[key] = S.get(key, Fraction(0)) - v
    S = {key: v for key, v in S.items() if v != 0}
    if not is_psd(S, dim):
        return None
    return bound



# ------------------------------------------------------------------------------------------------ checking
#: largest rational a multiplier may be (digits of numerator and denominator each)
MAX_MULT_DIGITS = 4000


class _Bad(Exception):
    pass


def parse(d: Any) -> tuple[dict[str, Any], list[Fraction]]:
    """The canonical statement and the dense multipliers of a ``"pep-dual"`` JSON dict (raises on anything
    malformed: unknown keys, a wrong version, bad numbers, out-of-range or repeated row indices)."""
    if not isinstance(d, Mapping) or d.get("kind") != "pep-dual" or d.get("version") != 2:
        raise _Bad("not a version-2 pep-dual certificate")
    if not set(d) <= {"kind", "version", "statement", "evidence", "meta"}:
        raise _Bad("unknown top-level keys")
    st = canonical(d.get("statement"))
    ev = d.get("evidence")
    if not isinstance(ev, Mapping) or set(ev) != {"multipliers"} or not isinstance(ev["multipliers"], list):
        raise _Bad("evidence must be {'multipliers': [[row, 'p/q'], ...]}")
    if len(ev["multipliers"]) > MAX_ROWS:
        raise _Bad("too many multipliers")
    sparse: dict[int, Fraction] = {}
    work = 0.0
    for pair in ev["multipliers"]:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad("multiplier pair")
        k, m = pair
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < MAX_ROWS or k in sparse:
            raise _Bad("multiplier row index")
        if not isinstance(m, str) or len(m) > 2 * MAX_MULT_DIGITS + 2:
            raise _Bad("multiplier value")
        work += _weight(3.33 * len(m))  # parsing and reducing a p/q of len(m) digits: a gcd of that size
        if work > MAX_WORK:
            raise _Bad("the multipliers exceed the work budget")
        sparse[k] = q(m, "multiplier", 2 * MAX_MULT_DIGITS + 2)
    return st, [sparse.get(k, Fraction(0)) for k in range(max(sparse, default=-1) + 1)]


def check_certificate(d: Any) -> bool:
    r"""Exact re-check of a ``"pep-dual"`` certificate dict: the statement is rebuilt into its SDP by
    :func:`fairtheory_kernel.pep.build` (interpolation conditions, initial conditions, objective, claimed
    bound - never read from the JSON), then (i) the function values cancel, (ii) ``S >= 0`` (exact
    ``L D L^T``), (iii) ``c_0 - sum_k lambda_k b_k <= claimed``, with ``lambda >= 0``.  No solver, no float.
    Malformed or hostile input gives ``False``, never an exception; so does a certificate whose estimated work
    (:func:`check_work`, before any row is built) exceeds :data:`MAX_WORK`, so an accepted one is decided in seconds.
    In-process; :func:`fairtheory.proofs.check_proof` runs it under a time and memory limit."""
    try:
        st, mult = parse(d)
        data = build(st, multipliers=mult, max_work=MAX_WORK)
        if len(mult) > len(data["rows"]):
            return False
        mult = mult + [Fraction(0)] * (len(data["rows"]) - len(mult))
        b = verify_multipliers(data["rows"], data["objective"], mult, dim=data["dim"], nf=data["nf"], n_eq=0)
        return b is not None and b <= data["claimed"]
    except (_Bad, BadStatement, ValueError, TypeError, KeyError, OverflowError, ZeroDivisionError,
            RecursionError, MemoryError):
        return False
    except Exception:  # noqa: BLE001 - a checker of untrusted data never raises
        return False


def statement_of(d: Any) -> dict[str, Any] | None:
    """The canonical statement of a ``"pep-dual"`` certificate dict (``None`` when malformed)."""
    try:
        return parse(d)[0]
    except Exception:  # noqa: BLE001 - untrusted data
        return None


# ------------------------------------------------------------------------------------------------ reading
def implies(a: Statement, b: Statement) -> bool:
    """See :func:`_implies`; raises :class:`BadStatement` when ``a`` or ``b`` is not a canonical statement."""
    try:
        return _implies(a, b)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise BadStatement(f"implies: a and b must be canonical statements (pep_kernel.canonical), "
                           f"got {type(exc).__name__}: {exc}"[:200]) from None


def _implies(a: Statement, b: Statement) -> bool:
    """Whether the (canonical) statement ``a`` implies ``b``: the same class, clients, method and measure, and
    a bound at least as strong (``homogeneous (d, h)`` implies ``constrained (D0, rho2, v)`` when
    ``max(d, 0) D0 + max(h, 0) rho2 <= v``; ``constrained`` implies another with no larger ``D0``, ``rho2`` and no smaller
    ``value``; ``homogeneous (d, h)`` implies ``(d', h')`` with ``d <= d'``, ``h <= h'``)."""
    if a["class"] != b["class"] or a["n"] != b["n"] or a["p"] != b["p"] or a["method"] != b["method"]:
        return False
    ba, bb = a["bound"], b["bound"]
    if ba["form"] == "homogeneous":
        if bb["form"] == "homogeneous":
            return ba["dist"] <= bb["dist"] and ba["hetero"] <= bb["hetero"]
        # over ||x0 - x*||^2 in [0, D0] and rho^2 in [0, rho2] the right-hand side is at most this (a negative
        # coefficient is largest at 0)
        return max(ba["dist"], 0) * bb["D0"] + max(ba["hetero"], 0) * bb["rho2"] <= bb["value"]
    if bb["form"] != "constrained":
        return False
    return bb["D0"] <= ba["D0"] and bb["rho2"] <= ba["rho2"] and ba["value"] <= bb["value"]


def describe(st: Statement) -> str:
    """The statement in words, generated from its fields; raises :class:`BadStatement` when ``st`` is not a
    canonical statement (:func:`canonical`)."""
    try:
        return _describe(st)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise BadStatement(f"describe: st must be a canonical statement (pep_kernel.canonical), "
                           f"got {type(exc).__name__}: {exc}"[:200]) from None


def _describe(st: Statement) -> str:
    cl, m, bd = st["class"], st["method"], st["bound"]
    mu = f", {cl['mu']}-strongly convex" if cl["mu"] else " convex"
    who = (f"every {st['n']} clients f_i, each {cl['L']}-smooth{mu}, weights p = ({', '.join(map(str, st['p']))})")
    name = m["name"]
    if name == "local_gd":
        meth = (f"local GD (002 Alg. 1, {m['schedule']} schedule, full participation), kappa = {m['kappa']}, "
                f"T_N = {m['T_N']}, step beta = {m['beta']}, output {m['output']}")
        meas = "G(x_out) - G*"
    elif name == "scaffold":
        meth = (f"Scaffold (option II, full participation), kappa = {m['kappa']}, R = {m['R']}, eta_l = {m['eta_l']}, "
                f"eta_g = {m['eta_g']}, {'warm' if m['warm_start'] else 'zero'} control variates, output {m['output']}")
        meas = "G(x_out) - G*"
    elif name == "local_gd_round":
        meth = f"one round of local GD from theta, kappa = {m['kappa']} steps of beta = {m['beta']}, then the p-average theta+"
        meas = f"{m['a']} (G(theta) - G*) + ||theta+ - x*||^2"
    else:
        outs = linear_outputs(st["n"], st["p"], m["evaluations"], m["objective"])
        meth = (f"the linear method of the statement's recurrence ({len(m['evaluations'])} gradient evaluations, each at "
                f"x0 plus fixed multiples of earlier gradients)")
        if len(outs) == 1:
            meth += f", output x_out = the point of evaluation {outs[0][1]}"
            meas = "G(x_out) - G*"
        else:
            meth += ", output x_out = the point of evaluation " + ", ".join(f"{e} with probability {qo}" for qo, e in outs)
            meas = "E[G(x_out)] - G*"
    if bd["form"] == "constrained":
        cond = f"||x0 - x*||^2 <= {bd['D0']}" + (f" and rho^2 <= {bd['rho2']}" if st["n"] > 1 else "")
        return f"for {who}, {meth}: {meas} <= {bd['value']} whenever {cond}"
    x = "theta" if name == "local_gd_round" else "x0"
    return f"for {who}, {meth}: {meas} <= {bd['dist']} ||{x} - x*||^2 + {bd['hetero']} rho^2"
