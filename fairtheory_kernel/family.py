r"""Trusted kernel of the parametric PEP checker: a statement -> an SDP whose data are polynomials in one parameter.

A ``"pep-family"`` certificate (version 1) states a worst-case bound for **every** value of one normalised
parameter ``t`` in a closed rational interval ``[lo, hi]`` (``t = h = step L`` for gradient descent,
``t = beta_L = beta L`` for local GD) and carries, as evidence, dual multipliers that are rational functions of
``t``.  This module turns the statement alone into the exact SDP - interpolation conditions, initial
conditions, objective - with entries in ``Q[t]`` (:func:`build`), and :func:`check_family` checks the
multipliers against it for every ``t`` in the interval at once.  No float, no solver, no sympy: integers,
:class:`fractions.Fraction` and FLINT's exact polynomials (``fmpq_poly``, ``fmpz_poly``; their arithmetic, gcd
and squarefree factorisation - re-multiplied and compared - are the only things used).
docs/proofs.md section 7 explains each rule.

Statement (numbers are rational strings ``"p/q"`` or integers; polynomials are coefficient lists, constant
term first)::

    {"class": {"functions": "smooth-convex", "mu": "0"},
     "normalisation": {"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "step*L"},
     "n": int, "p": [q, ...],
     "method": {"name": "gd", "N": int}                                       # parameter "h"
             | {"name": "local_gd", "kappa": int, "T_N": int,
                "schedule": "rfedfair"|"fedavg", "output": "002"|"000"|"last"}, # parameter "beta_L"
     "parameter": {"name": "h"|"beta_L", "lo": q, "hi": q},
     "bound": {"form": "constrained", "rho2": "0", "value": {"num": [q, ...], "den": [q, ...]}}}

The bound is read in lowest terms with a positive leading coefficient of ``den`` (:func:`canonical`): that one form
is checked, compared and printed.  Meaning: for every ``L > 0``, ``D0 >= 0`` and ``t`` in ``[lo, hi]``, every
instance of the class (``n`` functions ``f_i``, each ``L``-smooth convex on ``R^d``, any ``d``;
``G = sum_i p_i f_i`` minimised at ``x*``;
for ``n > 1`` also ``grad f_i(x*) = 0`` for every ``i``, i.e. ``rho^2 = 0``) with ``||x0 - x*||^2 <= D0``
satisfies ``G(x_out) - G* <= L D0 num(t)/den(t)``, the method run with step ``t / L``.  The checker builds
the problem at ``L = 1``, ``D0 = 1`` only; the statement must say so (``normalisation`` exactly as above), and
the general case follows by the exact scaling ``g(y) = f(x* + s y) / (L s^2)``, ``s^2 = D0`` (docs,
"Homogeneity").

Methods (the same recursions as :mod:`fairtheory_kernel.pep`, with ``beta`` replaced by the symbol
``t``):

* ``gd``: ``x_{k+1} = x_k - t g_k`` for ``k < N``, measure ``f(x_N) - f*`` (``n = 1``);
* ``local_gd``: 002 Alg. 1 with full participation, exactly as ``pep_kernel`` (round 0 one step then the
  average for ``rfedfair``, ``kappa`` steps per round after; outputs ``002`` / ``000`` / ``last``).

Rows, in the order of ``pep.build`` and by the same code (:func:`fairtheory_kernel.rows.interpolation_rows`
over ``Q[t]``): for each client, for each ordered pair ``(j, k)``, ``j != k``, of its
points (``x*`` first, then its evaluations in order) the Taylor-Hendrickx-Glineur condition with ``mu = 0``,
``L = 1``: ``f_k - f_j + <g_k, x_j - x_k> + 1/2 ||g_j - g_k||^2 <= 0``; then ``||x0 - x*||^2 - 1 <= 0`` and
(``n > 1``) ``rho^2 <= 0``.  Evaluations at points that are the same polynomial vector are merged, as the
point kernel merges equal points; at ``t = 0`` distinct symbolic points coincide as vectors, which only adds
redundant rows (an actual run satisfies every row of every pair of its points), so the SDP still bounds the
worst case.

Evidence::

    {"pieces": [{"lo": q, "hi": q, "denominator": [q, ...], "multipliers": [[row, [q, ...]], ...]}, ...]}

pieces covering ``[lo, hi]`` in order (``lo_1 = lo``, ``hi_j = lo_{j+1}``, ``hi_last = hi``, each
``lo_j < hi_j``); on a piece ``lambda_row(t) = num_row(t) / d(t)``.  A piece passes when, for ``t`` in
``[lo_j, hi_j]``:

1. ``d(t) > 0`` (no root in the closed piece, positive at one point);
2. ``num_row(t) >= 0`` for every row (so every ``lambda >= 0``);
3. ``sum_row num_row a_row = d c`` as polynomials (the function values cancel for every ``t``);
4. ``M(t) = sum_row num_row(t) A_row(t) - d(t) C(t)`` is PSD for every ``t`` (:func:`psd_on`);
5. ``(P d - Q B) Q >= 0`` with ``bound = P/Q``, ``Q`` free of roots on the piece, and
   ``B = d c_0 - sum_row num_row c_row`` (the dual objective times ``d``).

Weak duality at each ``t`` then gives ``G(x_out) - G* <= B(t)/d(t) <= P(t)/Q(t)`` for every instance.  The rules
run in the order 1, 2, 3, 5, 4 (cheapest first); polynomial signs on an interval are decided by :func:`nonneg_on`
and :func:`no_root_on` (squarefree parts, Descartes' rule of signs with bisection: :func:`count_roots_open`).
Sizes are bounded (:data:`MAX_DIM`, :data:`MAX_DEGREE`, :data:`MAX_EVIDENCE_DIGITS`, :data:`MAX_PIECES`, ...), so
the check of any accepted JSON is bounded in time (about 15 s at the limits on a 2-core machine; the
certificates :func:`fairtheory.proofs.parametric.prove_family` makes check in well under a second).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import flint

from fairtheory_kernel.pep import _int, _keys
from fairtheory_kernel.rows import BadStatement, Ring, Symbols, add, gram, interpolation_rows, local_gd_output

__all__ = ["FamilyStatement", "BadFamily", "canonical", "build", "at", "to_json", "describe", "bound_str",
           "check_family", "explain_family", "statement_of", "implies", "nonneg_on", "no_root_on", "count_roots_open",
           "psd_on", "poly", "poly_json", "MAX_DIM", "MAX_DEGREE", "MAX_BOUND_DEGREE", "MAX_DIGITS",
           "MAX_EVIDENCE_DIGITS", "MAX_PIECES", "MAX_STEPS", "PARAMETER", "NORMALISATION"]

P = flint.fmpq_poly
FamilyStatement = dict[str, Any]

#: limits: any JSON within them is checked in bounded time (docs/proofs.md section 7)
MAX_DIM = 22              # Gram dimension of the SDP a statement may define
MAX_STEPS = 12            # N for gd; local steps per client (first round + kappa T_N) for local_gd
MAX_DEGREE = 6            # degree of a multiplier numerator or of the denominator
MAX_BOUND_DEGREE = 8      # degree of the bound's numerator and denominator
MAX_DIGITS = 60           # digits of a statement number (numerator and denominator each)
MAX_EVIDENCE_DIGITS = 40  # digits of an evidence coefficient (numerator and denominator each)
MAX_PIECES = 6
MAX_PARAM = 100           # 0 <= lo < hi <= MAX_PARAM
#: the parameter each method is stated in (step * L)
PARAMETER = {"gd": "h", "local_gd": "beta_L"}
NORMALISATION = {"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "step*L"}

_RAT = re.compile(r"-?[0-9]+(/[0-9]+)?")
Vec = dict[int, Any]          # basis index -> fmpq_poly
Row = tuple[dict[tuple[int, int], Any], dict[int, Fraction], Fraction]


#: a malformed, out-of-range or oversized statement or evidence (the checker answers ``False``): the point-wise
#: kernel's error, so that both kernels share their parsing helpers
BadFamily = BadStatement


# ------------------------------------------------------------------------------------------------ parsing
def _q(x: Any, what: str, digits: int = MAX_DIGITS) -> Fraction:
    if isinstance(x, bool):
        raise BadFamily(f"{what}: a boolean is not a number")
    if isinstance(x, int):
        if len(str(abs(x))) > digits:
            raise BadFamily(f"{what}: too many digits")
        return Fraction(x)
    if not isinstance(x, str) or len(x) > 2 * digits + 2 or not _RAT.fullmatch(x):
        raise BadFamily(f"{what}: not a rational string")
    num, _, den = x.partition("/")
    if len(num.lstrip("-")) > digits or len(den) > digits:
        raise BadFamily(f"{what}: too many digits")
    d = int(den) if den else 1
    if d <= 0:
        raise BadFamily(f"{what}: zero denominator")
    return Fraction(int(num), d)


def _fq(c: Fraction) -> Any:
    return flint.fmpq(c.numerator, c.denominator)


def poly(coeffs: Sequence[Fraction]) -> Any:
    """The ``fmpq_poly`` with these coefficients (constant term first)."""
    return P([_fq(Fraction(c)) for c in coeffs])


def _poly(x: Any, what: str, degree: int, digits: int) -> Any:
    if not isinstance(x, list) or not 1 <= len(x) <= degree + 1:
        raise BadFamily(f"{what}: a list of 1 to {degree + 1} coefficients")
    return poly([_q(c, what, digits) for c in x])


def _frac(c: Any) -> Fraction:
    """A FLINT rational as a :class:`Fraction`."""
    return Fraction(int(c.p), int(c.q))


def poly_json(p: Any) -> list[str]:
    """Coefficients (constant term first) as rational strings; ``["0"]`` for the zero polynomial."""
    cs = [str(_frac(c)) for c in p.coeffs()]
    return cs or ["0"]


def canonical(st: Any) -> FamilyStatement:
    """The statement with every number parsed and every field validated (raises :class:`BadFamily`)."""
    st = _keys(st, "statement", {"class", "normalisation", "n", "p", "method", "parameter", "bound"})
    cl = _keys(st["class"], "class", {"functions", "mu"})
    if cl["functions"] != "smooth-convex" or _q(cl["mu"], "mu") != 0:
        raise BadFamily("class must be smooth-convex with mu = 0")
    if not isinstance(st["normalisation"], Mapping) or dict(st["normalisation"]) != NORMALISATION:
        raise BadFamily(f"normalisation must be exactly {NORMALISATION}: the kernel builds L = 1, D0 = 1 only")
    n = _int(st["n"], "n", 1, 4)
    if not isinstance(st["p"], list) or len(st["p"]) != n:
        raise BadFamily("p must list n weights")
    p = [_q(x, "p") for x in st["p"]]
    if any(x <= 0 for x in p) or sum(p) != 1:
        raise BadFamily("p: weights must be > 0 and sum to 1 exactly")
    m = st["method"]
    if not isinstance(m, Mapping) or m.get("name") not in PARAMETER:
        raise BadFamily(f"method.name must be one of {sorted(PARAMETER)}")
    if m["name"] == "gd":
        m = _keys(m, "method", {"name", "N"})
        method: dict[str, Any] = {"name": "gd", "N": _int(m["N"], "N", 1, MAX_STEPS)}
        if n != 1:
            raise BadFamily("gd: n must be 1")
    else:
        m = _keys(m, "method", {"name", "kappa", "T_N", "schedule", "output"})
        if m["schedule"] not in ("rfedfair", "fedavg") or m["output"] not in ("002", "000", "last"):
            raise BadFamily("local_gd: schedule 'rfedfair'|'fedavg', output '002'|'000'|'last'")
        kappa, T_N = _int(m["kappa"], "kappa", 1, MAX_STEPS), _int(m["T_N"], "T_N", 0, MAX_STEPS)
        first = 1 if m["schedule"] == "rfedfair" else kappa
        if first + kappa * T_N > MAX_STEPS:
            raise BadFamily(f"local_gd: at most {MAX_STEPS} local steps per client")
        method = {"name": "local_gd", "kappa": kappa, "T_N": T_N, "schedule": m["schedule"], "output": m["output"]}
    par = _keys(st["parameter"], "parameter", {"name", "lo", "hi"})
    if par["name"] != PARAMETER[method["name"]]:
        raise BadFamily(f"parameter of {method['name']} must be named {PARAMETER[method['name']]!r}")
    lo, hi = _q(par["lo"], "lo"), _q(par["hi"], "hi")
    if not 0 <= lo < hi <= MAX_PARAM:
        raise BadFamily(f"parameter range must satisfy 0 <= lo < hi <= {MAX_PARAM}")
    b = _keys(st["bound"], "bound", {"form", "rho2", "value"})
    if b["form"] != "constrained" or _q(b["rho2"], "rho2") != 0:
        raise BadFamily("bound: form 'constrained' with rho2 = 0 (the only form of version 1)")
    v = _keys(b["value"], "bound.value", {"num", "den"})
    num = _poly(v["num"], "bound numerator", MAX_BOUND_DEGREE, MAX_DIGITS)
    den = _poly(v["den"], "bound denominator", MAX_BOUND_DEGREE, MAX_DIGITS)
    if den == 0:
        raise BadFamily("bound denominator is the zero polynomial")
    num, den = _lowest_terms(num, den)
    return {"class": {"functions": "smooth-convex", "mu": Fraction(0)}, "normalisation": dict(NORMALISATION),
            "n": n, "p": p, "method": method, "parameter": {"name": par["name"], "lo": lo, "hi": hi},
            "bound": {"form": "constrained", "rho2": Fraction(0), "num": num, "den": den}}


def _lowest_terms(num: Any, den: Any) -> tuple[Any, Any]:
    """``num/den`` with the common factor divided out (checked: exact divisions) and a positive leading coefficient
    of ``den``: the one form the kernel checks, compares and prints (so ``(-1)/(-(4h + 2))`` is ``1/(4h + 2)``)."""
    g = num.gcd(den)
    if g.degree() > 0:
        (num, r1), (den, r2) = divmod(num, g), divmod(den, g)
        if r1 != 0 or r2 != 0:  # pragma: no cover - a gcd divides both
            raise BadFamily("gcd does not divide the bound")
    if den.coeffs()[-1] < 0:
        num, den = -num, -den
    return num, den


def to_json(st: FamilyStatement) -> dict[str, Any]:
    """A canonical statement as plain JSON."""
    return {"class": {"functions": "smooth-convex", "mu": "0"}, "normalisation": dict(NORMALISATION),
            "n": st["n"], "p": [str(x) for x in st["p"]], "method": dict(st["method"]),
            "parameter": {"name": st["parameter"]["name"], "lo": str(st["parameter"]["lo"]),
                          "hi": str(st["parameter"]["hi"])},
            "bound": {"form": "constrained", "rho2": "0",
                      "value": {"num": poly_json(st["bound"]["num"]), "den": poly_json(st["bound"]["den"])}}}


# ------------------------------------------------------------------------------------------------ building
#: ``Q[t]``: rationals enter as constant polynomials; a polynomial is compared by its coefficients
POLYNOMIALS = Ring(const=lambda c: P(_fq(c)), key=lambda v: tuple(_frac(c) for c in v.coeffs()))


def _run(b: Symbols, st: FamilyStatement) -> dict[int, Fraction]:
    """The method on the symbols, step ``t`` (the parameter): the measure as weights over value indices."""
    m, n, p = st["method"], st["n"], st["p"]
    t = P([0, 1])
    x0: Vec = {0: P(1)}
    vals: dict[int, Fraction] = {}

    def gap(x: Vec) -> None:
        for i in range(n):
            f = b.oracle(i, x)[1]
            vals[f] = vals.get(f, Fraction(0)) + p[i]

    if m["name"] == "gd":
        x = x0
        for _ in range(m["N"]):
            x = add(x, b.oracle(0, x)[0], -t)
        gap(x)
        return vals
    gap(local_gd_output(b, x0, n=n, p=p, kappa=m["kappa"], T_N=m["T_N"], schedule=m["schedule"],
                        output=m["output"], step=-t))
    return vals


def build(st: FamilyStatement) -> dict[str, Any]:
    """The SDP of a canonical statement at ``L = 1``, ``D0 = 1``, entries in ``Q[t]``:
    ``{"dim", "nf", "n_interp", "rows": [(G, F, c), ...], "objective": (G, F, c)}``; a row reads
    ``<G(t), Gram> + F . values + c <= 0`` (``G`` upper-triangle ``fmpq_poly`` entries, ``F`` and ``c`` rational)."""
    b = Symbols(st["n"], st["p"], POLYNOMIALS, MAX_DIM, st)
    vals = _run(b, st)
    rows = interpolation_rows(b, Fraction(1), Fraction(0), max_rows=MAX_DIM * MAX_DIM)  # L = 1, mu = 0
    n_interp = len(rows)
    dist: dict[tuple[int, int], Any] = {}
    gram({0: P(1)}, {0: P(1)}, P(1), dist)
    rows.append((dist, {}, Fraction(-1)))  # ||x0 - x*||^2 <= D0 = 1
    if st["n"] > 1:
        het: dict[tuple[int, int], Any] = {}
        for i in range(st["n"]):
            gram(b.stars[i], b.stars[i], P(_fq(st["p"][i])), het)
        rows.append(({a: v for a, v in het.items() if v != 0}, {}, Fraction(0)))  # rho^2 <= rho2 = 0
    objective: Row = ({}, {f: w for f, w in vals.items() if w}, Fraction(0))
    return {"dim": b.dim, "nf": b.nf, "n_interp": n_interp, "rows": rows, "objective": objective}


def at(data: Mapping[str, Any], value: Fraction) -> dict[str, Any]:
    """The SDP at ``t = value`` with :class:`Fraction` entries (the format of :func:`pep_kernel.build`)."""
    v = _fq(Fraction(value))

    def sub(G: Mapping[tuple[int, int], Any]) -> dict[tuple[int, int], Fraction]:
        out = {k: _frac(e(v)) for k, e in G.items()}
        return {k: x for k, x in out.items() if x != 0}

    rows = [(sub(G), dict(F), c) for G, F, c in data["rows"]]
    G, F, c = data["objective"]
    return {"dim": data["dim"], "nf": data["nf"], "n_eq": 0, "n_interp": data["n_interp"], "rows": rows,
            "objective": (sub(G), dict(F), c)}


# ------------------------------------------------------------------------------------------------ real algebra
def _int_poly(p: Any) -> Any:
    """A positive rational multiple of the ``fmpq_poly`` ``p`` with integer coefficients (``fmpz_poly``): the
    same sign as ``p`` everywhere."""
    return p.numer()  # p = numer / q with q > 0 (FLINT's canonical form)


def _variations(g: Any) -> int:
    signs = [1 if c > 0 else -1 for c in g.coeffs() if c != 0]
    return sum(1 for u, w in zip(signs, signs[1:], strict=False) if u != w)


#: bisection depth and total subintervals of one root count: past them the count raises (the check then refuses;
#: never a wrong "no root")
MAX_DEPTH = 60
MAX_NODES = 4000


def _descartes_count(f: Any, a: Fraction, b: Fraction, depth: int = 0, budget: list[int] | None = None) -> int:
    r"""Distinct real roots of the squarefree ``f`` in the open ``(a, b)``, ``f(a) f(b) != 0``.

    ``g(y) = (1 + y)^d f(a + (b - a)/(1 + y))`` maps the roots of ``f`` in ``(a, b)`` one to one onto the positive
    roots of ``g``; by Descartes' rule of signs their number is at most the sign variations ``V`` of ``g``'s
    coefficients and has the parity of ``V``: ``V = 0`` means none, ``V = 1`` exactly one.  Otherwise the interval
    is halved (a root at the midpoint is counted and divided out).  Vincent's theorem makes ``V <= 1`` once the
    interval is small against the roots' separation; past :data:`MAX_DEPTH` halvings or :data:`MAX_NODES`
    subintervals the count raises."""
    budget = [MAX_NODES] if budget is None else budget
    budget[0] -= 1
    if depth > MAX_DEPTH or budget[0] < 0:
        raise BadFamily("root isolation needs more than MAX_DEPTH halvings or MAX_NODES subintervals")
    h = f(P([_fq(a), _fq(b - a)]))
    d = h.degree()
    g = _int_poly(P(list(reversed(h.coeffs())))(P([1, 1])))
    v = _variations(g)
    if v <= 1:
        return v
    m = a + (b - a) / 2
    if f(_fq(m)) == 0:
        q, r = divmod(f, P([_fq(-m), 1]))
        if r != 0 or d < 1:  # pragma: no cover - exact division by a root's linear factor
            raise BadFamily("inexact division")
        return _descartes_count(q, a, m, depth + 1, budget) + 1 + _descartes_count(q, m, b, depth + 1, budget)
    return _descartes_count(f, a, m, depth + 1, budget) + _descartes_count(f, m, b, depth + 1, budget)


def count_roots_open(f: Any, lo: Fraction, hi: Fraction) -> int:
    """Distinct real roots of the non-zero polynomial ``f`` in the open interval ``(lo, hi)``: roots at the ends are
    divided out, ``f`` is made squarefree (``f / g`` with ``g = gcd(f, f')``; ``g`` is checked to divide both, so a
    root of multiplicity ``m`` of ``f`` has multiplicity at most ``m - 1`` in ``g`` and stays a root of ``f / g``),
    then :func:`_descartes_count`."""
    if f == 0:
        raise BadFamily("count_roots_open: the zero polynomial")
    for e in (lo, hi):
        lin = P([_fq(-e), 1])
        while f.degree() > 0 and f(_fq(e)) == 0:
            f, r = divmod(f, lin)
            if r != 0:  # pragma: no cover - exact division by a root's linear factor
                raise BadFamily("inexact division")
    if f.degree() <= 0:
        return 0
    g = f.gcd(f.derivative())
    if g.degree() > 0:
        if f.derivative() % g != 0:  # pragma: no cover - FLINT's gcd is checked, never trusted
            raise BadFamily("gcd does not divide the derivative")
        f, r = divmod(f, g)
        if r != 0:  # pragma: no cover - gcd divides f
            raise BadFamily("inexact division")
    return _descartes_count(f, lo, hi)


def _split_odd(f: Any) -> tuple[Any, list[Any]]:
    """``f = c * prod g_i^{m_i}``, checked by multiplying back: the content ``c`` and the factors of odd ``m_i``."""
    c, facs = f.factor_squarefree()
    back = P(c)
    for g, m in facs:
        back *= g ** m
    if back != f:  # pragma: no cover - FLINT's factorisation is re-multiplied, never trusted
        raise BadFamily("squarefree factorisation does not multiply back")
    return P(c), [g for g, m in facs if m % 2]


def nonneg_on(f: Any, lo: Fraction, hi: Fraction) -> bool:
    """Whether the polynomial ``f >= 0`` on ``[lo, hi]`` (``lo < hi``).

    ``f = c o E^2`` with ``o`` the product of its odd-multiplicity squarefree factors (:func:`_split_odd`); when
    no factor of ``o`` has a root in ``(lo, hi)`` (:func:`count_roots_open`), ``c o`` has one sign there, so
    ``f`` is ``>= 0`` on ``(lo, hi)`` iff it is at one point where it does not vanish, and on ``[lo, hi]`` by
    continuity.  A factor with a root inside means a sign change: ``False``."""
    if f == 0:
        return True
    _, odd = _split_odd(f)
    if any(count_roots_open(g, lo, hi) for g in odd if g.degree() > 0):
        return False
    deg = max(f.degree(), 0)
    for k in range(1, deg + 2):  # deg + 1 distinct inner points: f vanishes at at most deg of them
        x = lo + (hi - lo) * Fraction(k, deg + 2)
        y = f(_fq(x))
        if y != 0:
            return bool(y > 0)
    return False  # pragma: no cover - unreachable for a non-zero polynomial


def no_root_on(f: Any, lo: Fraction, hi: Fraction) -> bool:
    """Whether the polynomial ``f`` has no root in the closed ``[lo, hi]``."""
    if f == 0:
        return False
    if f(_fq(lo)) == 0 or f(_fq(hi)) == 0:
        return False
    return f.degree() <= 0 or count_roots_open(f, lo, hi) == 0


def psd_on(M: Mapping[tuple[int, int], Any], dim: int, lo: Fraction, hi: Fraction) -> tuple[bool, str]:
    r"""Whether the symmetric polynomial matrix ``M(t)`` (upper-triangle entries) is PSD for every ``t`` in
    ``[lo, hi]``, and where it fails.

    ``M`` is first multiplied by the positive integer ``s`` clearing every denominator (same PSD-ness), then a
    fraction-free (Bareiss) ``L D L^T`` in ``Z[t]``, in index order, without pivoting: with ``D_k`` the last kept
    pivot (``D = 1`` at the start), a candidate pivot ``w_kk`` that is the zero polynomial needs its whole
    remaining row to be zero polynomials (the index is dropped); otherwise it must be ``>= 0`` on ``[lo, hi]``
    (:func:`nonneg_on`) and the step ``w_ij <- (w_kk w_ij - w_ik w_kj) / D_k`` is an exact division in ``Z[t]``
    (checked: a non-zero remainder refuses).
    Sound: at every ``t`` that is not a root of a kept pivot (all but finitely many) the same elimination is a
    valid Bareiss elimination of ``M(t)`` with positive pivots and zero dropped rows, so ``M(t) >= 0``; at the
    finitely many others ``M(t)`` is a limit of PSD matrices (polynomial entries, closed cone)."""
    Z = flint.fmpz_poly
    scale = 1
    for (a, b), v in M.items():
        if not (0 <= a <= b < dim):
            raise BadFamily("matrix entry out of range")
        q = int(v.denom())
        scale = scale * q // math.gcd(scale, q)
    W = [[Z(0)] * dim for _ in range(dim)]
    for (a, b), v in M.items():
        w = Z([int(c * scale) for c in v.coeffs()])
        W[a][b] = w
        W[b][a] = w
    live = list(range(dim))
    prev = Z(1)
    while live:
        k = live[0]
        rest = live[1:]
        piv = W[k][k]
        if piv == 0:
            bad = [j for j in rest if W[k][j] != 0]
            if bad:
                return False, f"pivot {k} is identically 0 with a non-zero entry ({k}, {bad[0]})"
            live = rest
            continue
        if not nonneg_on(P(piv), lo, hi):
            return False, f"pivot {k} (degree {piv.degree()}) is negative somewhere in [{lo}, {hi}]"
        for i in rest:
            wik = W[i][k]
            for j in rest:
                if j < i:
                    W[i][j] = W[j][i]
                    continue
                num = piv * W[i][j] - wik * W[k][j]
                qt, r = divmod(num, prev)
                if r != 0:  # pragma: no cover - Bareiss divisions are exact (Sylvester's identity)
                    return False, "inexact Bareiss division"
                W[i][j] = qt
        prev = piv
        live = rest
    return True, ""


# ------------------------------------------------------------------------------------------------ checking
def _evidence(ev: Any, st: FamilyStatement, n_rows: int) -> list[tuple[Fraction, Fraction, Any, dict[int, Any]]]:
    ev = _keys(ev, "evidence", {"pieces"})
    pieces = ev["pieces"]
    if not isinstance(pieces, list) or not 1 <= len(pieces) <= MAX_PIECES:
        raise BadFamily(f"evidence.pieces: a list of 1 to {MAX_PIECES} pieces")
    out = []
    at_ = st["parameter"]["lo"]
    for j, pc in enumerate(pieces):
        pc = _keys(pc, f"piece {j}", {"lo", "hi", "denominator", "multipliers"})
        lo, hi = _q(pc["lo"], "piece lo"), _q(pc["hi"], "piece hi")
        if lo != at_ or not lo < hi:
            raise BadFamily(f"piece {j} must start at {at_} and have lo < hi")
        at_ = hi
        d = _poly(pc["denominator"], "denominator", MAX_DEGREE, MAX_EVIDENCE_DIGITS)
        ms = pc["multipliers"]
        if not isinstance(ms, list) or len(ms) > n_rows:
            raise BadFamily("multipliers: at most one per row")
        nums: dict[int, Any] = {}
        for pair in ms:
            if not isinstance(pair, list) or len(pair) != 2:
                raise BadFamily("multiplier [row, [coefficients]]")
            k = _int(pair[0], "multiplier row", 0, n_rows - 1)
            if k in nums:
                raise BadFamily("repeated multiplier row")
            nums[k] = _poly(pair[1], "multiplier", MAX_DEGREE, MAX_EVIDENCE_DIGITS)
        out.append((lo, hi, d, nums))
    if at_ != st["parameter"]["hi"]:
        raise BadFamily("the pieces must end at the statement's hi")
    return out


def _check_piece(data: Mapping[str, Any], st: FamilyStatement, lo: Fraction, hi: Fraction, d: Any,
                 nums: Mapping[int, Any]) -> str:
    """``""`` when the piece passes rules 1-5 (module doc), else the first failure in words."""
    where = f"on [{lo}, {hi}]"
    if not (no_root_on(d, lo, hi) and d(_fq(lo)) > 0):
        return f"the denominator is not positive {where}"
    for k, nk in nums.items():
        if not nonneg_on(nk, lo, hi):
            return f"multiplier of row {k} is negative somewhere {where}"
    rows, (CG, cF, c0) = data["rows"], data["objective"]
    F: dict[int, Any] = {f: -d * _fq(w) for f, w in cF.items()}
    M: dict[tuple[int, int], Any] = {key: -d * v for key, v in CG.items()}
    B = d * _fq(c0)
    for k, nk in nums.items():
        G, a, c = rows[k]
        for f, w in a.items():
            F[f] = F.get(f, P(0)) + nk * _fq(w)
        for key, v in G.items():
            M[key] = M.get(key, P(0)) + nk * v
        if c:
            B -= nk * _fq(c)
    bad = [f for f, v in F.items() if v != 0]
    if bad:
        return f"the function values do not cancel (value {bad[0]}) {where}"
    num, den = st["bound"]["num"], st["bound"]["den"]
    if not no_root_on(den, lo, hi):
        return f"the bound's denominator vanishes {where}"
    if not nonneg_on((num * d - den * B) * den, lo, hi):
        return f"the dual bound exceeds the stated bound somewhere {where}"
    ok, why = psd_on({key: v for key, v in M.items() if v != 0}, data["dim"], lo, hi)
    if not ok:
        return f"the slack matrix is not PSD {where}: {why}"
    return ""


def parse(d: Any) -> tuple[FamilyStatement, list[tuple[Fraction, Fraction, Any, dict[int, Any]]], dict[str, Any]]:
    """Canonical statement, parsed pieces and the built SDP of a ``"pep-family"`` JSON dict (raises)."""
    if not isinstance(d, Mapping) or d.get("kind") != "pep-family" or d.get("version") != 1:
        raise BadFamily("not a version-1 pep-family certificate")
    if not set(d) <= {"kind", "version", "statement", "evidence", "meta"} or "statement" not in d \
            or "evidence" not in d:
        raise BadFamily("top-level keys: kind, version, statement, evidence (and meta, never read)")
    st = canonical(d["statement"])
    data = build(st)
    return st, _evidence(d["evidence"], st, len(data["rows"])), data


def explain_family(d: Any) -> tuple[bool, str]:
    """``(True, "")`` when the certificate checks, else ``(False, the first failure in words)``; never raises."""
    try:
        st, pieces, data = parse(d)
        for lo, hi, den, nums in pieces:
            why = _check_piece(data, st, lo, hi, den, nums)
            if why:
                return False, why
        return True, ""
    except BadFamily as exc:
        return False, f"malformed: {exc}"
    except (ValueError, TypeError, KeyError, OverflowError, ZeroDivisionError, RecursionError, MemoryError) as exc:
        return False, f"malformed: {type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - a checker of untrusted data never raises
        return False, f"malformed: {type(exc).__name__}: {exc}"


def check_family(d: Any) -> bool:
    """Exact re-check of a ``"pep-family"`` certificate dict (rules 1-5 of the module doc on every piece, the
    SDP rebuilt from the statement); ``False`` on anything malformed, never an exception."""
    return explain_family(d)[0]


# ------------------------------------------------------------------------------------------------ reading
def statement_of(d: Any) -> FamilyStatement | None:
    """The canonical statement of a ``"pep-family"`` certificate dict (``None`` when malformed)."""
    try:
        if not isinstance(d, Mapping) or d.get("kind") != "pep-family" or d.get("version") != 1:
            return None
        return canonical(d.get("statement"))
    except Exception:  # noqa: BLE001 - untrusted data
        return None


def implies(a: FamilyStatement, b: FamilyStatement) -> bool:
    """Whether the canonical statement ``a`` implies ``b``: the same class, clients, weights, method and parameter,
    ``b``'s range inside ``a``'s, and ``b``'s bound at least ``a``'s at every point of ``b``'s range (exactly:
    :func:`nonneg_on` of ``(P_b Q_a - P_a Q_b) Q_a Q_b``, both denominators free of roots there)."""
    try:
        if any(a[k] != b[k] for k in ("class", "normalisation", "n", "p", "method")):
            return False
        pa, pb = a["parameter"], b["parameter"]
        if pa["name"] != pb["name"] or not (pa["lo"] <= pb["lo"] and pb["hi"] <= pa["hi"]):
            return False
        (na, da), (nb, db) = (a["bound"]["num"], a["bound"]["den"]), (b["bound"]["num"], b["bound"]["den"])
        lo, hi = pb["lo"], pb["hi"]
        return no_root_on(da, lo, hi) and no_root_on(db, lo, hi) and nonneg_on((nb * da - na * db) * da * db, lo, hi)
    except Exception:  # noqa: BLE001 - a malformed statement implies nothing
        return False


def _pstr(p: Any, var: str) -> str:
    terms = []
    for e, c in enumerate(p.coeffs()):
        if c == 0:
            continue
        cf = _frac(c)
        mono = "" if e == 0 else var if e == 1 else f"{var}^{e}"
        if not mono:
            terms.append(str(cf))
        elif cf == 1:
            terms.append(mono)
        elif cf == -1:
            terms.append(f"-{mono}")
        else:
            terms.append(f"{cf} {mono}")
    s = " + ".join(reversed(terms)) if terms else "0"
    return s.replace("+ -", "- ")


def bound_str(st: FamilyStatement) -> str:
    """The bound ``L D0 num/den`` in words (``L D0/(4 N h + 2)`` style), from the lowest-terms form with a positive
    leading coefficient of ``den`` (each sign printed once)."""
    var = st["parameter"]["name"]
    num, den = st["bound"]["num"], st["bound"]["den"]
    num, den = _lowest_terms(num, den)
    if num.degree() <= 0 and num != 0:  # a constant c: sign(c) L D0/(den/|c|)
        c = _frac(num.coeffs()[0])
        return f"{'L D0' if c > 0 else '-L D0'}/({_pstr(den * P(_fq(1 / abs(c))), var)})"
    return f"L D0 ({_pstr(num, var)})/({_pstr(den, var)})"


def describe(st: FamilyStatement) -> str:
    """The statement in words, generated from its fields."""
    m, par = st["method"], st["parameter"]
    rng = f"for every {par['name']} in [{par['lo']}, {par['hi']}]"
    if m["name"] == "gd":
        return (f"{rng}: f(x_N) - f* <= {bound_str(st)} for gradient descent x_(k+1) = x_k - ({par['name']}/L) "
                f"grad f(x_k), N = {m['N']}, on every L-smooth convex f (any L > 0, any dimension) whenever "
                f"||x0 - x*||^2 <= D0")
    return (f"{rng}: G(x_out) - G* <= {bound_str(st)} for local GD (002 Alg. 1, {m['schedule']} schedule, full "
            f"participation), kappa = {m['kappa']}, T_N = {m['T_N']}, step beta = {par['name']}/L, output "
            f"{m['output']}, on every {st['n']} clients f_i, each L-smooth convex, weights p = "
            f"({', '.join(map(str, st['p']))}), whenever ||x0 - x*||^2 <= D0 and rho^2 = 0")
