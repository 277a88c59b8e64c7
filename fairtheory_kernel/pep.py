r"""Trusted kernel of the PEP checker: a declarative statement -> the exact SDP it asserts a bound on, and the check.

A ``"pep-dual"`` certificate (version 2) is a *statement* and *evidence* (dual multipliers).  This module
turns the statement alone into the problem data - interpolation conditions, initial conditions and
objective - in exact rationals (:func:`canonical`, :func:`build`), and :func:`check_certificate` checks the
multipliers against that data by weak duality (:func:`verify_multipliers`, with the exact PSD test of
:mod:`fairtheory.proofs.exact_linalg`).  Nothing in a certificate other than the statement shapes the obligations:
no constraint row, objective, normalising scale or metadata is read from it.  The lines below are the
trusted base; docs/proofs.md explains them one by one.

Statement (every number a rational string ``"p/q"`` or an integer)::

    {"class": {"functions": key, ...} | [one per client],   # fairtheory_kernel.classes.TABLE, e.g.
                                                           # {"functions": "smooth-convex", "L": q, "mu": q}
     "n": int, "p": [q, ...],                              # clients and their weights (> 0, sum 1)
     "method": {...},                                      # see below; it also fixes the measure
     "bound": {"form": "constrained", "D0": q, "rho2": q, "value": q}
            | {"form": "homogeneous", "dist": q, "hetero": q}}

Instances: ``n`` functions ``f_i``, each of its class, on ``R^d`` (any ``d``), ``G = sum_i p_i f_i`` minimised at
``x*`` (``sum_i p_i g_i(x*) = 0``, ``g_i`` the (sub)gradients the oracle answers), a starting point ``x0``;
``rho^2 = sum_i p_i ||g_i(x*)||^2``.  ``"constrained"`` asserts ``measure <= value`` for every instance with
``||x0 - x*||^2 <= D0`` and ``rho^2 <= rho2``; ``"homogeneous"`` asserts ``measure <= dist ||x0 - x*||^2 +
hetero rho^2`` for every instance.  Methods (step sizes ``lr``, Scaffold's server step ``server_lr``) and measures:

* ``{"name": "local_gd", "kappa", "T_N", "lr", "schedule": "rfedfair"|"fedavg", "output": "average"|"path_average"
  |"last"}``: 002 Alg. 1 with full participation (:func:`fairtheory_kernel.rows.local_gd_output`); measure
  ``G(x_out) - G*``;
* ``{"name": "scaffold", "kappa", "R", "lr", "server_lr", "warm_start": bool, "output": "last"|"average"}``:
  deterministic Scaffold (option II); measure ``G(x_out) - G*``;
* ``{"name": "local_gd_round", "kappa", "lr", "a"}``: one round of ``kappa`` local steps from ``theta = x0``
  then the ``p``-average ``theta+``; measure ``a (G(theta) - G*) + ||theta+ - x*||^2``;
  (these three for one ``"smooth-convex"`` class only);
* ``{"name": "linear", "evaluations": [[i, point], ...], "measure": [m, ...], "outputs": [[q, [point, ...]], ...]}``:
  any method whose iterates are fixed linear combinations, as traced: evaluation ``e`` asks client ``i`` for its
  gradient ``g_e`` and value at a *point* ``[[b, q], ...]`` ``= v_0 + sum_b q_b v_b`` over the basis
  ``v_0 = x0 - x*`` (coefficient exactly 1: an algorithm starts from ``x0``) and ``v_{n+e'} = g_{e'}`` for the
  *earlier* evaluations ``e' < e`` only.  The measure is ``E_leaf[min_{x, m} m(x)]``: leaf ``x_out`` with
  probability ``q`` (``> 0``, summing to 1), ``x`` over its candidate points (one for ``last`` / ``average``,
  ``w_0..w_T`` for ``best``), ``m`` over the measures ``"value"`` ``G(x) - G*``, ``"grad_norm"``
  ``||sum_i p_i g_i(x)||^2``, ``"distance"`` ``||x - x*||^2`` (:func:`_outputs`).

The SDP (symbols: :mod:`fairtheory_kernel.rows`, rows: :mod:`fairtheory_kernel.classes`, shared with the
parametric kernels): Gram basis ``x0 - x*``, ``g_i(x*)`` for ``i < n`` (the last one is ``-sum_i p_i/p_n`` of the
others), then one gradient per evaluation; one value per evaluation (``x* = 0`` and ``f_i(x*) = 0`` without loss
of generality: translations and constant shifts).  Rows, in this order: for each client its class's interpolation
rows over its points (``x*`` first, then its evaluations in order); the rows ``t - m(x) <= 0`` of a minimum;
then, for ``"constrained"``, ``||x0 - x*||^2 - D0 <= 0`` and (``n > 1``) ``rho^2 - rho2 <= 0``.  The objective is
the measure (``"constrained"``) or ``measure - dist ||x0 - x*||^2 - hetero rho^2`` (``"homogeneous"``, claimed
bound 0).  Pure Python (``int``/:class:`Fraction`), no numpy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

from fairtheory_kernel import rows as R
from fairtheory_kernel.classes import TABLE, interpolation_rows, parse_class
from fairtheory_kernel.linalg import is_psd
from fairtheory_kernel.rows import BadStatement, Row, Symbols, Vec, add, avg, fields, gram, keys, nat, one_of, q, rat

__all__ = ["Statement", "BadStatement", "build", "canonical", "describe", "implies", "verify_multipliers",
           "check_certificate", "check_work", "parse", "MAX_DIM", "MAX_ROWS", "MAX_DIGITS", "MAX_WORK"]

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

Statement = dict[str, Any]

#: the measures of a ``linear`` method's ``outputs`` form
MEASURES = ("value", "grad_norm", "distance")


# ------------------------------------------------------------------------------------------------ parsing
def _point(item: Any, n: int, end: int) -> Vec:
    """A point ``x0 + sum_b q_b v_b`` of a ``linear`` method: ``[[b, q], ...]`` over the basis ``v_0 = x0 - x*``
    (coefficient exactly 1: an algorithm starts from ``x0``) and gradients ``v_b``, ``n <= b < end`` (never an
    optimum gradient ``1 <= b < n``)."""
    if not isinstance(item, list) or len(item) > MAX_DIM:
        raise BadStatement("linear: a point is a list [[basis, coefficient], ...]")
    x: Vec = {}
    for pair in item:
        if not isinstance(pair, list) or len(pair) != 2:
            raise BadStatement("linear: basis coefficient pair")
        b = nat(pair[0], "basis index", 0, end - 1)
        if 1 <= b < n or b in x:
            raise BadStatement("linear: an optimum gradient or a repeated basis index in a point")
        c = q(pair[1], "coefficient")
        if c != 0:
            x[b] = c
    if x.get(0) != 1:
        raise BadStatement("linear: every point is x0 plus earlier gradients (coefficient 1 on x0 - x*)")
    return x


def _linear(m: Mapping[str, Any], n: int) -> dict[str, Any]:
    """The ``linear`` method (module doc): evaluations in order, the measures, the output leaves."""
    m = keys(m, "method", {"name", "evaluations", "measure", "outputs"})
    ev, ob, meas = m["evaluations"], m["outputs"], m["measure"]
    if not isinstance(ev, list) or not isinstance(ob, list) or len(ev) > MAX_DIM or len(ob) > MAX_ROWS:
        raise BadStatement("linear: evaluations and outputs must be (bounded) lists")
    evals = []
    for e, item in enumerate(ev):
        if not isinstance(item, list) or len(item) != 2:
            raise BadStatement("linear: evaluation [client, [[basis, coefficient], ...]]")
        evals.append((nat(item[0], "evaluation client", 0, n - 1), _point(item[1], n, n + e)))
    if not isinstance(meas, list) or not meas or len(set(map(str, meas))) != len(meas) or not all(x in MEASURES for x in meas):
        raise BadStatement(f"linear: measure is a non-empty list of distinct names of {MEASURES}")
    outs, rows = [], 0  # the rows t - m(x) of the minima: at most MAX_ROWS / 4
    for leaf in ob:
        rows += len(leaf[1]) * len(meas) if isinstance(leaf, list) and len(leaf) == 2 and isinstance(leaf[1], list) else 0
        if not isinstance(leaf, list) or len(leaf) != 2 or not 1 <= len(leaf[1]) <= MAX_DIM or rows > MAX_ROWS // 4:
            raise BadStatement("linear: output [probability, [point, ...]] (1 to MAX_DIM candidate points, in all at most "
                               "MAX_ROWS / 4 times the measures)")
        outs.append((q(leaf[0], "output probability"), [_point(x, n, n + len(evals)) for x in leaf[1]]))
    if any(w <= 0 for w, _ in outs) or sum(w for w, _ in outs) != 1:
        raise BadStatement("linear: the output probabilities must be > 0 and sum to 1 exactly")
    return {"name": "linear", "evaluations": evals, "measure": list(meas), "outputs": outs}


def canonical(st: Any) -> Statement:
    """The statement with every number parsed (:class:`Fraction`) and every field validated; raises
    :class:`BadStatement`.  Two statements are the same statement iff their canonical forms are equal."""
    st = keys(st, "statement", {"class", "n", "p", "method", "bound"})
    n, p = R.clients(st, MAX_CLIENTS)
    cls = st["class"]
    if isinstance(cls, list) and len(cls) != n:
        raise BadStatement("class: one class, or a list of one class per client")
    each = [parse_class(c, q) for c in (cls if isinstance(cls, list) else [cls])]
    cls = each[0] if all(c == each[0] for c in each) else each
    m = st["method"]
    name = m.get("name") if isinstance(m, Mapping) else None
    steps, pos = partial(nat, lo=1, hi=MAX_STEPS), rat(Fraction(0), strict=True)
    if name == "linear":
        method = _linear(m, n)
        if "value" in method["measure"] and not all(TABLE[c["functions"]].values for c in each):
            raise BadStatement("linear: measure 'value' over an operator class (it has no values)")
    elif name in METHODS and not isinstance(cls, list) and cls["functions"] == "smooth-convex":
        spec = {"name": one_of(name), "kappa": steps, "T_N": partial(nat, lo=0, hi=MAX_STEPS), "R": steps, "lr": pos,
                "server_lr": pos, "a": rat(Fraction(0)), "schedule": one_of("rfedfair", "fedavg"),
                "warm_start": one_of(True, False),
                "output": one_of(*R.OUTPUTS) if name == "local_gd" else one_of("last", "average")}
        method = fields(m, "method", {k: spec[k] for k in METHODS[name]})
    else:
        raise BadStatement(f"method.name must be one of {sorted(METHODS) + ['linear']} (local_gd, scaffold and "
                           "local_gd_round for one smooth-convex class)")
    hom = isinstance(st["bound"], Mapping) and st["bound"].get("form") == "homogeneous"
    bound = fields(st["bound"], "bound", {"form": one_of("homogeneous"), "dist": rat(), "hetero": rat()} if hom else
                   {"form": one_of("constrained"), "D0": rat(Fraction(0)), "rho2": rat(Fraction(0)), "value": rat()})
    return {"class": cls, "n": n, "p": p, "method": method, "bound": bound}


#: the fields of the methods of one smooth-convex class (``linear``: :func:`_linear`)
METHODS = {"local_gd": ("name", "kappa", "T_N", "lr", "schedule", "output"),
           "scaffold": ("name", "kappa", "R", "lr", "server_lr", "warm_start", "output"),
           "local_gd_round": ("name", "kappa", "lr", "a")}


def classes_of(st: Statement) -> list[dict[str, Any]]:
    """One parsed class per client of a canonical statement."""
    return st["class"] if isinstance(st["class"], list) else [st["class"]] * st["n"]


def to_json(st: Statement) -> dict[str, Any]:
    """A canonical statement as plain JSON (rational strings; a point ``{basis: q}`` as ``[[basis, q], ...]``)."""
    def s(x: Any) -> Any:
        if isinstance(x, Fraction):
            return str(x)
        if isinstance(x, Mapping):
            return {k: s(v) for k, v in x.items()} if all(isinstance(k, str) for k in x) else [
                [k, s(v)] for k, v in sorted(x.items())]
        return [s(v) for v in x] if isinstance(x, (list, tuple)) else x

    return s(st)


# ------------------------------------------------------------------------------------------------ building
def _run_method(b: Symbols) -> tuple[dict[int, Fraction], list[tuple[Fraction, Vec]]]:
    """Run the statement's method on the symbols: the measure as (linear part over values, quadratic terms)."""
    st, m = b.st, b.st["method"]
    n, p = st["n"], st["p"]
    x0: Vec = {0: Fraction(1)}
    vals: dict[int, Fraction] = {}
    quad: list[tuple[Fraction, Vec]] = []
    name = m["name"]
    if name == "local_gd":
        b.gap(R.local_gd_output(b, x0, n=n, p=p, kappa=m["kappa"], T_N=m["T_N"], schedule=m["schedule"],
                              output=m["output"], step=-m["lr"]), Fraction(1), vals)
    elif name == "scaffold":
        el, eg, kappa = m["lr"], m["server_lr"], m["kappa"]
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
        b.gap(avg(out, [Fraction(1, len(out))] * len(out)), Fraction(1), vals)
    elif name == "local_gd_round":
        quad.append((Fraction(1), R.local_gd_output(b, x0, n=n, p=p, kappa=m["kappa"], T_N=0, schedule="fedavg",
                                                    output="last", step=-m["lr"])))  # theta+: one round of kappa steps
        b.gap(x0, m["a"], vals)
    else:  # linear: evaluations in order; basis n + e is the gradient of evaluation e
        for i, x in m["evaluations"]:
            b.oracle(i, x, dedupe=False)  # evaluation e gets gradient basis n + e and value index e
    return vals, quad


def _at(b: Symbols, i: int, x: Vec) -> tuple[Vec, int]:
    """Gradient and value index of the first evaluation of client ``i`` at exactly ``x`` (raises when none)."""
    for y, g, f in b.points[i]:
        if y == x and f is not None:
            return g, f
    raise BadStatement(f"linear: an output point where client {i} was not evaluated (value and grad_norm need it)")


def _outputs(b: Symbols, vals: dict[int, Fraction], quad: list[tuple[Fraction, Vec]]) -> list[Row]:
    r"""The measure of a ``linear`` method's ``outputs`` form: ``E_leaf[min_{x in leaf, m in measure} m(x)]``.

    ``m(x)``: ``"value"`` ``sum_i p_i f_i(x)`` (``G(x) - G*``, ``f_i(x*) = 0``), ``"grad_norm"``
    ``||sum_i p_i g_i(x)||^2`` (``g_i(x)`` the gradient the oracle answered at ``x``), ``"distance"`` ``||x||^2``
    (``x* = 0``).  A leaf with one candidate and one measure adds ``q m(x)`` to the objective.  Otherwise it adds
    ``q t`` for a new free variable ``t`` (a value index of no function) and the rows ``t - m(x) <= 0`` for every
    candidate ``x`` and measure ``m``, returned here.  Sound: for every instance, ``t = min m(x)`` with the instance's
    Gram matrix and values is feasible, so the SDP's maximum is at least the true ``E[min]``; a dual certificate
    bounds that maximum.  (Its multipliers on one leaf's rows are ``>= 0`` and sum to ``q``, since ``t`` must cancel:
    the bound is on a convex combination of the candidates' measures, which is at least their minimum.)"""
    st, rows = b.st, []
    n, p, m = st["n"], st["p"], st["method"]
    for w, xs in m["outputs"]:
        # a measure as (values, vector v): value sum_i p_i f_i(x); grad_norm ||sum_i p_i g_i(x)||^2; distance ||x||^2
        terms = [({_at(b, i, x)[1]: p[i] for i in range(n)}, None) if name == "value" else ({}, x if name == "distance"
                 else avg([_at(b, i, x)[0] for i in range(n)], p)) for x in xs for name in m["measure"]]
        if len(terms) == 1:
            (F, v), t = terms[0], None
        else:
            t, b.nf, F, v = b.nf, b.nf + 1, {}, None
        for f, c in F.items():
            vals[f] = vals.get(f, 0) + w * c
        quad.extend([(w, v)] if v is not None else [])
        if t is not None:  # E[t]: t <= m(x) for every candidate and measure
            vals[t] = w
            for F, v in terms:
                G: dict[tuple[int, int], Fraction] = {}
                gram(v or {}, v or {}, Fraction(-1), G)
                rows.append(({a: c for a, c in G.items() if c}, {t: Fraction(1)} | {f: -c for f, c in F.items()}, Fraction(0)))
    return rows


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
    h = sum(_height(m[k]) for k in ("lr", "a", "server_lr") if k in m) + max(_height(x) for x in st["p"])
    h += int(m["kappa"]).bit_length() + int(m.get("T_N", m.get("R", 1))).bit_length() + 8
    steps = m["kappa"] * (m.get("T_N", m.get("R", 0)) + 1)
    dim = min(MAX_DIM, n * (steps + 2))
    return 4.0 * dim * dim * _weight(4 * h)


def _work(b: Symbols, mult: Sequence[Fraction]) -> dict[str, float]:
    """The work of building the rows of ``b`` (its method already run), of ``S = sum_k lambda_k A_k - C`` and of the
    PSD test, from the point and multiplier sizes; raises :class:`BadStatement` past :data:`MAX_ROWS` rows."""
    st, cls = b.st, classes_of(b.st)
    # a row constant is a product of at most a few class parameters (1/(2(1 - mu/L)) / L, M^2, ...)
    h_c = max(3 * sum(_height(v) for v in c.values() if isinstance(v, Fraction)) for c in cls) + 8
    mu = any(c != {"functions": "smooth-convex", "L": c.get("L"), "mu": 0} for c in cls)  # more terms per row
    outs, k = [x for _, xs in st["method"].get("outputs", ()) for x in xs], len(st["method"].get("measure", ()))
    coefs = [c for pts in b.points for x, _, _ in pts for c in x.values()] + [c for g in b.stars for c in g.values()] + [
        c for x in outs for c in x.values()]
    h_g = 2 * _common_bits(coefs) + h_c + 8  # a row entry: products of two point coefficients and a constant
    build_ops, slack_ops, rows = 0, 0, 0
    for i, pts in enumerate(b.points):
        P, gs = len(pts), len(b.stars[i])  # point 0 is x* (x = {}, g = g*_i with gs entries), the others new gradients
        rows += TABLE[cls[i]["functions"]].count(P)
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
    extra = k * sum(len(x) ** 2 + (st["n"] + 1) ** 2 + 20 for x in outs)  # the rows t - m(x): ||x||^2, ||grad||^2
    rows, build_ops, slack_ops = rows + k * len(outs), build_ops + extra, slack_ops + extra
    nz = [x for x in mult if x != 0]
    h_s = _common_bits(nz) + h_g + rows.bit_length()  # an entry of S (common denominators)
    dim = b.dim + sum(len(pts) - 1 for c, pts in zip(cls, b.points, strict=True) if TABLE[c["functions"]].lifted)
    return {"method": _run_work(st), "rows": build_ops * _weight(h_g),
            "multipliers": sum(_weight(_height(x)) for x in nz), "slack": slack_ops * _weight(h_s),
            "psd": 0.25 * dim ** 3 * _weight(h_s + dim.bit_length())}  # FLINT rref + congruence, ~D^3/4 units


def _run(st: Statement, mult: Sequence[Fraction], max_work: float, run_limit: float) -> tuple[Any, ...]:
    """The symbols with the method run, its measure, and the work estimate; refused (:class:`BadStatement`) when
    running the method would exceed ``run_limit`` or the whole check ``max_work``, before any row is built."""
    if _run_work(st) > run_limit:
        raise BadStatement(f"running the statement's method exceeds the work budget {run_limit:.3g}")
    b = Symbols(st["n"], st["p"], R.RATIONALS, MAX_DIM, st)
    vals, quad = _run_method(b)
    need = sum(_work(b, mult).values())
    if need > max_work:
        raise BadStatement(f"checking this certificate needs about {need:.3g} work units, more than the budget "
                           f"{max_work:.3g} (Gram dimension {b.dim})")
    return b, vals, quad, need


def check_work(st: Statement, multipliers: Sequence[Fraction] = ()) -> float:
    """Estimated work (units of :data:`MAX_WORK`) of checking ``multipliers`` against the canonical statement ``st``:
    running the method on the symbols, building the rows, ``S`` and the exact PSD test.  Raises
    :class:`BadStatement` when a structural limit (:data:`MAX_DIM`, :data:`MAX_ROWS`) is exceeded."""
    return _run(st, multipliers, math.inf, MAX_WORK)[3]


def build(st: Statement, *, multipliers: Sequence[Fraction] | None = None, max_work: float | None = None) -> dict[str, Any]:
    """The exact SDP data of a canonical statement (:func:`canonical`):
    ``{"dim", "nf", "n_eq": 0, "rows", "objective", "claimed"}`` with rows and objective as ``(G, F, c)``
    (``G`` upper-triangle entries, row means ``<= 0``) and ``claimed`` the bound the certificate must reach
    (``value`` or 0).  With ``max_work``, the statement (and the ``multipliers`` to be checked against it) is refused
    with :class:`BadStatement` when :func:`check_work` exceeds it, before any row is built."""
    limit = math.inf if max_work is None else max_work
    b, vals, quad, _ = _run(st, multipliers or (), limit, limit)
    best = _outputs(b, vals, quad) if "outputs" in st["method"] else []
    rows = interpolation_rows(b, classes_of(st), max_rows=MAX_ROWS) + best
    n_interp, (dist, hetero) = len(rows), R.initial(b, st["p"])
    CG: dict[tuple[int, int], Fraction] = {}
    for w, v in quad:
        gram(v, v, w, CG)
    bd = st["bound"]
    if bd["form"] == "constrained":
        rows.append((dist, {}, -bd["D0"]))
        if st["n"] > 1:
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
    ``lambda_k >= 0`` for the inequalities (rows from ``n_eq`` on), else ``None``.  Pure :class:`Fraction`
    arithmetic."""
    if len(mult) != len(rows) or any(lam < 0 for lam in mult[n_eq:]):
        return None
    F, S, bound = R.dual(rows, objective, {k: lam for k, lam in enumerate(mult) if lam}, Fraction(1), Fraction)
    return bound if not F and is_psd(S, dim) else None


# ------------------------------------------------------------------------------------------------ checking
#: largest rational a multiplier may be (digits of numerator and denominator each)
MAX_MULT_DIGITS = 4000


def parse(d: Any) -> tuple[dict[str, Any], list[Fraction]]:
    """The canonical statement and the dense multipliers of a ``"pep-dual"`` JSON dict (raises on anything
    malformed: unknown keys, a wrong version, bad numbers, out-of-range or repeated row indices, multipliers whose
    parsing alone exceeds :data:`MAX_WORK`)."""
    st = canonical(R.envelope(d, "pep-dual", 2)["statement"])
    ev = keys(d["evidence"], "evidence", {"multipliers"})
    work = [0.0]

    def mult(m: Any) -> Fraction:
        work[0] += _weight(3.33 * len(m)) if isinstance(m, str) else 0  # a gcd of that size: reducing the p/q
        if work[0] > MAX_WORK:
            raise BadStatement("the multipliers exceed the work budget")
        return q(m, "multiplier", MAX_MULT_DIGITS)

    ms = R.sparse(ev["multipliers"], MAX_ROWS, mult)
    return st, [ms.get(k, Fraction(0)) for k in range(max(ms, default=-1) + 1)]


def _run_check(d: Any) -> str:
    st, mult = parse(d)
    data = build(st, multipliers=mult, max_work=MAX_WORK)
    if len(mult) > len(data["rows"]):
        return "more multipliers than rows"
    mult = mult + [Fraction(0)] * (len(data["rows"]) - len(mult))
    b = verify_multipliers(data["rows"], data["objective"], mult, dim=data["dim"], nf=data["nf"], n_eq=0)
    return "" if b is not None and b <= data["claimed"] else "the multipliers do not prove the claimed bound"


def check_certificate(d: Any) -> bool:
    r"""Exact re-check of a ``"pep-dual"`` certificate dict: the statement is rebuilt into its SDP by
    :func:`build` (interpolation conditions, initial conditions, objective, claimed bound - never read from the
    JSON), then (i) the function values cancel, (ii) ``S >= 0`` (exact ``L D L^T``), (iii) ``c_0 - sum_k lambda_k
    b_k <= claimed``, with ``lambda >= 0``.  No solver, no float.  Malformed or hostile input gives ``False``, never an
    exception; so does a certificate whose estimated work (:func:`check_work`, before any row is built) exceeds
    :data:`MAX_WORK`, so an accepted one is decided in seconds.  :func:`fairtheory_kernel.check.check_proof` runs it
    under a time and memory limit."""
    return R.explain(_run_check, d)[0]


# ------------------------------------------------------------------------------------------------ reading
@R.reader
def implies(a: Statement, b: Statement) -> bool:
    """Whether the canonical statement ``a`` implies ``b`` (:class:`BadStatement` when either is not one): the same
    class, clients, method and measure, and a bound at least as strong (``homogeneous (d, h)`` implies
    ``constrained (D0, rho2, v)`` when ``max(d, 0) D0 + max(h, 0) rho2 <= v``; ``constrained`` implies another with no
    larger ``D0``, ``rho2`` and no smaller ``value``; ``homogeneous (d, h)`` implies ``(d', h')`` with ``d <= d'``,
    ``h <= h'``)."""
    if a["class"] != b["class"] or a["n"] != b["n"] or a["p"] != b["p"] or a["method"] != b["method"]:
        return False
    ba, bb = a["bound"], b["bound"]
    if ba["form"] == "homogeneous":
        if bb["form"] == "homogeneous":
            return ba["dist"] <= bb["dist"] and ba["hetero"] <= bb["hetero"]
        # over ||x0 - x*||^2 in [0, D0] and rho^2 in [0, rho2] the right-hand side is at most this (a negative
        # coefficient is largest at 0)
        return max(ba["dist"], 0) * bb["D0"] + max(ba["hetero"], 0) * bb["rho2"] <= bb["value"]
    return bb["form"] == "constrained" and bb["D0"] <= ba["D0"] and bb["rho2"] <= ba["rho2"] and ba["value"] <= bb["value"]


@R.reader
def describe(st: Statement) -> str:
    """The statement in words, generated from its fields; raises :class:`BadStatement` when ``st`` is not a
    canonical statement (:func:`canonical`)."""
    cl, m, bd = st["class"], st["method"], st["bound"]
    each = "each " + TABLE[cl["functions"]].words(cl) if isinstance(cl, Mapping) else ", ".join(
        f"f_{i} {TABLE[c['functions']].words(c)}" for i, c in enumerate(cl))
    who = f"every {st['n']} clients f_i, {each}, weights p = ({', '.join(map(str, st['p']))})"
    name, meas = m["name"], "G(x_out) - G*"
    if name == "local_gd":
        meth = (f"local GD (002 Alg. 1, {m['schedule']} schedule, full participation), kappa = {m['kappa']}, "
                f"T_N = {m['T_N']}, step lr = {m['lr']}, output {m['output']}")
    elif name == "scaffold":
        meth = (f"Scaffold (option II, full participation), kappa = {m['kappa']}, R = {m['R']}, lr = {m['lr']}, "
                f"server_lr = {m['server_lr']}, {'warm' if m['warm_start'] else 'zero'} control variates, output "
                f"{m['output']}")
    elif name == "local_gd_round":
        meth = f"one round of local GD from theta, kappa = {m['kappa']} steps of lr = {m['lr']}, then the p-average theta+"
        meas = f"{m['a']} (G(theta) - G*) + ||theta+ - x*||^2"
    else:
        pts = {tuple(sorted(y.items())): e for e, (_, y) in reversed(list(enumerate(m["evaluations"])))}

        def vec(x: Vec) -> str:  # x0 + sum_b q_b g_(b - n), g_e the gradient of evaluation e
            return "x0" + "".join(f" {'-' if c < 0 else '+'} {abs(c)} g_{b - st['n']}" for b, c in sorted(x.items()) if b)

        def pt(x: Vec) -> str:  # an evaluation's index, else the point
            return str(pts.get(tuple(sorted(x.items())), vec(x)))

        ops = [not TABLE[c["functions"]].values for c in classes_of(st)]  # operator A_i: g = A_i(x), x* a zero of sum p_i A_i
        meth = "the linear method " + ", ".join(f"g_{e} = {'A' if ops[i] else 'grad f'}_{i}({vec(x)})"
                                                for e, (i, x) in enumerate(m["evaluations"]))
        meth += ", x* a zero of sum_i p_i A_i (A_i the operator or gradient of client i)" if any(ops) else ""

        best, outs = any(len(xs) > 1 for _, xs in m["outputs"]), m["outputs"]
        leaf = ["{" + ", ".join(pt(x) for x in xs) + "}" if best else pt(xs[0]) for _, xs in outs]
        meth += (", output x_out = the point of evaluation " + (leaf[0] if len(outs) == 1 else ", ".join(
            f"{x} with probability {w}" for x, (w, _) in zip(leaf, outs, strict=True))))
        meth += " (each a set of candidate points: the measure is their minimum)" * best
        words = {"value": "G(x_out) - G*", "grad_norm": "||sum_i p_i A_i(x_out)||^2" if any(ops) else "||grad G(x_out)||^2",
                 "distance": "||x_out - x*||^2"}
        ms = [words[w] for w in m["measure"]]
        meas = ms[0] if len(ms) == 1 and not best else "min(" + ", ".join(ms) + ")" + (" over the candidates" * best)
        meas = meas if len(outs) == 1 else "E[G(x_out)] - G*" if ms == [words["value"]] and not best else f"E[{meas}]"
    if bd["form"] == "constrained":
        cond = f"||x0 - x*||^2 <= {bd['D0']}" + (f" and rho^2 <= {bd['rho2']}" if st["n"] > 1 else "")
        return f"for {who}, {meth}: {meas} <= {bd['value']} whenever {cond}"
    x = "theta" if name == "local_gd_round" else "x0"
    return f"for {who}, {meth}: {meas} <= {bd['dist']} ||{x} - x*||^2 + {bd['hetero']} rho^2"
