r"""Trusted kernel of the parametric PEP checker: a statement -> an SDP whose data are polynomials in one parameter.

A ``"pep-family"`` certificate (version 1) states a worst-case bound for **every** value of one normalised
parameter ``t`` in a closed rational interval ``[lo, hi]`` (``t = h = lr L`` for gradient descent,
``t = h = lr L`` for local GD too) and carries, as evidence, dual multipliers that are rational functions of
``t``.  This module turns the statement alone into the exact SDP - interpolation conditions, initial
conditions, objective - with entries in ``Q[t]`` (:func:`build`), and :func:`check_family` checks the
multipliers against it for every ``t`` in the interval at once.  No float, no solver, no sympy: integers,
:class:`fractions.Fraction` and FLINT's exact polynomials (``fmpq_poly``, ``fmpz_poly``; their arithmetic, gcd
and squarefree factorisation - re-multiplied and compared - are the only things used).
docs/proofs.md section 7 explains each rule.

Statement (numbers are rational strings ``"p/q"`` or integers; polynomials are coefficient lists, constant
term first)::

    {"class": {"functions": "smooth-convex", "mu": "0"},
     "normalisation": {"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "lr*L"},
     "n": int, "p": [q, ...],
     "method": {"name": "gd", "N": int}                                       # parameter "h"
             | {"name": "local_gd", "kappa": int, "T_N": int,
                "schedule": "rfedfair"|"fedavg", "output": "average"|"path_average"|"last"},
     "parameter": {"name": "h", "lo": q, "hi": q},                          # the normalised step h = lr L
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

Methods (the same recursions as :mod:`fairtheory_kernel.pep`, with ``lr`` replaced by the symbol
``t``):

* ``gd``: ``x_{k+1} = x_k - t g_k`` for ``k < N``, measure ``f(x_N) - f*`` (``n = 1``);
* ``local_gd``: 002 Alg. 1 with full participation, exactly as ``pep_kernel`` (round 0 one step then the
  average for ``rfedfair``, ``kappa`` steps per round after; outputs ``average`` / ``path_average`` / ``last``).

Rows, in the order of ``pep.build`` and by the same code (:func:`fairtheory_kernel.classes.interpolation_rows`
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
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

import flint

from fairtheory_kernel import rows as R
from fairtheory_kernel.classes import interpolation_rows
from fairtheory_kernel.linalg import eliminate
from fairtheory_kernel.rows import BadStatement, Ring, Row, Symbols, fields, keys, nat, one_of, q, rat

__all__ = ["canonical", "build", "to_json", "describe", "check_family", "explain_family", "implies", "nonneg_on",
           "no_root_on", "count_roots_open", "psd_on", "poly", "poly_json", "header", "NORMALISATION", "PARAMETER"]

P = flint.fmpq_poly
FamilyStatement = dict[str, Any]

#: limits: any JSON within them is checked in bounded time (docs/proofs.md section 7)
MAX_DIM = 38              # Gram dimension of the SDP a statement may define
MAX_STEPS = 17            # N for gd; local steps per client (first round + kappa T_N) for local_gd
MAX_DEGREE = 6            # degree of a multiplier numerator or of the denominator
MAX_BOUND_DEGREE = 8      # degree of the bound's numerator and denominator
MAX_DIGITS = 60           # digits of a statement number (numerator and denominator each)
MAX_EVIDENCE_DIGITS = 40  # digits of an evidence coefficient (numerator and denominator each)
MAX_PIECES = 6
MAX_PARAM = 100           # 0 <= lo < hi <= MAX_PARAM
#: the parameter every method is stated in: the normalised step ``h = lr L``
PARAMETER = {"gd": "h", "local_gd": "h"}
NORMALISATION = {"L": "1", "D0": "1", "bound_unit": "L*D0", "parameter_unit": "lr*L"}



#: a malformed, out-of-range or oversized statement or evidence (the checker answers ``False``): the point-wise
#: kernel's error, so that both kernels share their parsing helpers
BadFamily = BadStatement
#: the class of both parametric kernels: 1-smooth convex (the units L = 1), and its words
def smooth(st: Mapping[str, Any]) -> str:
    """``L-smooth convex``, or ``L-smooth (c L)-strongly convex`` when the statement's class has ``mu = c > 0``."""
    return f"L-smooth ({st['class']['mu']} L)-strongly convex" if st["class"]["mu"] else "L-smooth convex"


def every_f(st: Mapping[str, Any]) -> str:
    """Whom a one-function statement covers, in words."""
    return f"on every {smooth(st)} f (any L > 0, any dimension) whenever ||x0 - x*||^2 <= D0"
SMOOTH1 = {"functions": "smooth-convex", "L": Fraction(1), "mu": Fraction(0)}


# ------------------------------------------------------------------------------------------------ parsing
def _fq(c: Fraction) -> Any:
    return flint.fmpq(c.numerator, c.denominator)


def poly(coeffs: Sequence[Fraction]) -> Any:
    """The ``fmpq_poly`` with these coefficients (constant term first)."""
    return P([_fq(Fraction(c)) for c in coeffs])


def _poly(x: Any, what: str, degree: int, digits: int) -> Any:
    if not isinstance(x, list) or not 1 <= len(x) <= degree + 1:
        raise BadFamily(f"{what}: a list of 1 to {degree + 1} coefficients")
    return poly([q(c, what, digits) for c in x])


def _frac(c: Any) -> Fraction:
    """A FLINT rational as a :class:`Fraction`."""
    return Fraction(int(c.p), int(c.q))


def poly_json(p: Any) -> list[str]:
    """Coefficients (constant term first) as rational strings; ``["0"]`` for the zero polynomial."""
    return [str(_frac(c)) for c in p.coeffs()] or ["0"]


def header(st: Any, extra: set[str], methods: Mapping[str, Mapping[str, Any]], point: bool) -> dict[str, Any]:
    """What the parametric kernels' statements share (``pep-family``, ``pep-potential``): the class (1-smooth convex:
    ``{"functions": "smooth-convex", "mu": "0"}``, the units exactly :data:`NORMALISATION`), ``n <= 4`` clients and
    their weights, the method (a name of ``methods`` and exactly its fields), the normalised step ``h = lr L`` in
    ``[lo, hi]`` with ``0 <= lo < hi <= MAX_PARAM`` (``lo = hi`` too when ``point``).  Raises :class:`BadStatement`."""
    st = keys(st, "statement", {"class", "normalisation", "n", "p", "method", "parameter"} | extra)
    mu = fields(st["class"], "class", {"functions": one_of("smooth-convex"), "mu": rat(Fraction(0), digits=MAX_DIGITS)})["mu"]
    if not mu < 1:
        raise BadFamily("class must be smooth-convex with 0 <= mu < 1 (units L = 1)")
    if not isinstance(st["normalisation"], Mapping) or dict(st["normalisation"]) != NORMALISATION:
        raise BadFamily(f"normalisation must be exactly {NORMALISATION}: the kernel builds L = 1, D0 = 1 only")
    n, p = R.clients(st, 4)
    m = st["method"]
    if not isinstance(m, Mapping) or m.get("name") not in methods:
        raise BadFamily(f"method.name must be one of {sorted(methods)}")
    par = fields(st["parameter"], "parameter", {"name": one_of("h"), "lo": rat(digits=MAX_DIGITS), "hi": rat(digits=MAX_DIGITS)})
    if not (0 <= par["lo"] <= par["hi"] <= MAX_PARAM and (point or par["lo"] < par["hi"])):
        raise BadFamily(f"parameter range must satisfy 0 <= lo {'<=' if point else '<'} hi <= {MAX_PARAM}")
    return {"class": {"functions": "smooth-convex", "mu": mu}, "normalisation": dict(NORMALISATION), "n": n,
            "p": p, "method": fields(m, "method", methods[m["name"]]), "parameter": par}


def header_json(st: Mapping[str, Any]) -> dict[str, Any]:
    """The shared part (:func:`header`) of a canonical statement as plain JSON."""
    return {"class": {"functions": "smooth-convex", "mu": str(st["class"]["mu"])}, "normalisation": dict(NORMALISATION),
            "n": st["n"], "p": [str(x) for x in st["p"]], "method": dict(st["method"]),
            "parameter": {"name": "h", "lo": str(st["parameter"]["lo"]), "hi": str(st["parameter"]["hi"])}}


_STEPS = partial(nat, lo=1, hi=MAX_STEPS)
METHODS = {"gd": {"name": one_of("gd"), "N": _STEPS},
           "local_gd": {"name": one_of("local_gd"), "kappa": _STEPS, "T_N": partial(nat, lo=0, hi=MAX_STEPS),
                        "schedule": one_of("rfedfair", "fedavg"), "output": one_of(*R.OUTPUTS)}}


def canonical(st: Any) -> FamilyStatement:
    """The statement with every number parsed and every field validated (raises :class:`BadFamily`)."""
    out = header(st, {"bound"}, METHODS, point=False)
    m = out["method"]
    if m["name"] == "gd" and out["n"] != 1:
        raise BadFamily("gd: n must be 1")
    if m["name"] == "local_gd" and (1 if m["schedule"] == "rfedfair" else m["kappa"]) + m["kappa"] * m["T_N"] > MAX_STEPS:
        raise BadFamily(f"local_gd: at most {MAX_STEPS} local steps per client")
    b = fields(st["bound"], "bound", {"form": one_of("constrained"), "rho2": rat(digits=MAX_DIGITS),
                                      "value": partial(keys, names={"num", "den"})})
    if b["rho2"] != 0:
        raise BadFamily("bound: form 'constrained' with rho2 = 0 (the only form of version 1)")
    num = _poly(b["value"]["num"], "bound numerator", MAX_BOUND_DEGREE, MAX_DIGITS)
    den = _poly(b["value"]["den"], "bound denominator", MAX_BOUND_DEGREE, MAX_DIGITS)
    if den == 0:
        raise BadFamily("bound denominator is the zero polynomial")
    num, den = _lowest_terms(num, den)
    return out | {"bound": {"form": "constrained", "rho2": Fraction(0), "num": num, "den": den}}


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
    return header_json(st) | {"bound": {"form": "constrained", "rho2": "0", "value": {
        "num": poly_json(st["bound"]["num"]), "den": poly_json(st["bound"]["den"])}}}


# ------------------------------------------------------------------------------------------------ building
#: ``Q[t]``: rationals enter as constant polynomials; a polynomial is compared by its coefficients
POLYNOMIALS = Ring(const=lambda c: P(_fq(c)), key=lambda v: tuple(_frac(c) for c in v.coeffs()))


def build(st: FamilyStatement) -> dict[str, Any]:
    """The SDP of a canonical statement at ``L = 1``, ``D0 = 1``, entries in ``Q[t]``:
    ``{"dim", "nf", "n_interp", "rows": [(G, F, c), ...], "objective": (G, F, c)}``; a row reads
    ``<G(t), Gram> + F . values + c <= 0`` (``G`` upper-triangle ``fmpq_poly`` entries, ``F`` and ``c`` rational)."""
    b, m = Symbols(st["n"], st["p"], POLYNOMIALS, MAX_DIM, st), st["method"]
    if m["name"] == "gd":  # x_(k+1) = x_k - t g_k, k < N: local GD with one client, one step per round, output last
        m = {"kappa": 1, "T_N": m["N"] - 1, "schedule": "rfedfair", "output": "last"}
    x = R.local_gd_output(b, {0: P(1)}, n=st["n"], p=st["p"], kappa=m["kappa"], T_N=m["T_N"], schedule=m["schedule"],
                          output=m["output"], step=-P([0, 1]))  # the method on the symbols, step t (the parameter)
    vals: dict[int, Fraction] = {}
    b.gap(x, 1, vals)  # the measure G(x_out) - G* as weights over value indices
    rows = interpolation_rows(b, [SMOOTH1 | st["class"]] * st["n"], max_rows=MAX_DIM * MAX_DIM)
    n_interp, (dist, het) = len(rows), R.initial(b, st["p"])
    rows += [(dist, {}, Fraction(-1))] + ([(het, {}, Fraction(0))] if st["n"] > 1 else [])  # ||x0 - x*||^2 <= 1, rho = 0
    objective: Row = ({}, {f: w for f, w in vals.items() if w}, Fraction(0))
    return {"dim": b.dim, "nf": b.nf, "n_interp": n_interp, "rows": rows, "objective": objective}


# ------------------------------------------------------------------------------------------------ real algebra
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
    # g: its integer numerator (FLINT's canonical p = numer / q, q > 0), a positive multiple: the same signs
    g = P(list(reversed(h.coeffs())))(P([1, 1])).numer()
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
    if any(count_roots_open(g, lo, hi) for g in _split_odd(f)[1] if g.degree() > 0):
        return False
    deg = max(f.degree(), 0)
    for k in range(1, deg + 2):  # deg + 1 distinct inner points: f vanishes at at most deg of them
        y = f(_fq(lo + (hi - lo) * Fraction(k, deg + 2)))
        if y != 0:
            return bool(y > 0)
    return False  # pragma: no cover - unreachable for a non-zero polynomial


def no_root_on(f: Any, lo: Fraction, hi: Fraction) -> bool:
    """Whether the polynomial ``f`` has no root in the closed ``[lo, hi]``."""
    return f != 0 and f(_fq(lo)) != 0 and f(_fq(hi)) != 0 and (f.degree() <= 0 or count_roots_open(f, lo, hi) == 0)


def psd_on(M: Mapping[tuple[int, int], Any], dim: int, lo: Fraction, hi: Fraction) -> tuple[bool, str]:
    r"""Whether the symmetric polynomial matrix ``M(t)`` (upper-triangle entries) is PSD for every ``t`` in
    ``[lo, hi]``, and where it fails.

    ``M`` is first multiplied by the positive integer ``s`` clearing every denominator (same PSD-ness), then the
    fraction-free (Bareiss) ``L D L^T`` of :func:`fairtheory_kernel.linalg.eliminate` in ``Z[t]``, in index order,
    without pivoting: a candidate pivot ``w_kk`` that is the zero polynomial needs its whole remaining row to be
    zero polynomials (the index is dropped); otherwise it must be ``>= 0`` on ``[lo, hi]`` (:func:`nonneg_on`) and
    the step ``w_ij <- (w_kk w_ij - w_ik w_kj) / D_k`` is an exact division in ``Z[t]`` (checked).
    Sound: at every ``t`` that is not a root of a kept pivot (all but finitely many) the same elimination is a
    valid Bareiss elimination of ``M(t)`` with positive pivots and zero dropped rows, so ``M(t) >= 0``; at the
    finitely many others ``M(t)`` is a limit of PSD matrices (polynomial entries, closed cone)."""
    Z = flint.fmpz_poly
    scale = 1
    for (a, b), v in M.items():
        if not (0 <= a <= b < dim):
            raise BadFamily("matrix entry out of range")
        scale = math.lcm(scale, int(v.denom()))
    W = [[Z(0)] * dim for _ in range(dim)]
    for (a, b), v in M.items():
        W[a][b] = W[b][a] = Z([int(c * scale) for c in v.coeffs()])
    why: list[str] = []
    if eliminate(W, nonneg=lambda p: nonneg_on(P(p), lo, hi), why=why):
        return True, ""
    return False, f"{why[0]} (t somewhere in [{lo}, {hi}])"


# ------------------------------------------------------------------------------------------------ checking
def _evidence(ev: Any, st: FamilyStatement, n_rows: int) -> list[tuple[Fraction, Fraction, Any, dict[int, Any]]]:
    pieces, at_, out = keys(ev, "evidence", {"pieces"})["pieces"], st["parameter"]["lo"], []
    if not isinstance(pieces, list) or not 1 <= len(pieces) <= MAX_PIECES:
        raise BadFamily(f"evidence.pieces: a list of 1 to {MAX_PIECES} pieces")
    for j, pc in enumerate(pieces):
        pc = fields(pc, f"piece {j}", {"lo": rat(digits=MAX_DIGITS), "hi": rat(digits=MAX_DIGITS),
                                       "denominator": partial(_poly, degree=MAX_DEGREE, digits=MAX_EVIDENCE_DIGITS),
                                       "multipliers": lambda x, w: R.sparse(x, n_rows, partial(
                                           _poly, what=w, degree=MAX_DEGREE, digits=MAX_EVIDENCE_DIGITS))})
        if pc["lo"] != at_ or not pc["lo"] < pc["hi"]:
            raise BadFamily(f"piece {j} must start at {at_} and have lo < hi")
        at_ = pc["hi"]
        out.append((pc["lo"], pc["hi"], pc["denominator"], pc["multipliers"]))
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
    F, M, B = R.dual(data["rows"], data["objective"], nums, d, _fq)
    if F:
        return f"the function values do not cancel (value {next(iter(F))}) {where}"
    num, den = st["bound"]["num"], st["bound"]["den"]
    if not no_root_on(den, lo, hi):
        return f"the bound's denominator vanishes {where}"
    if not nonneg_on((num * d - den * B) * den, lo, hi):
        return f"the dual bound exceeds the stated bound somewhere {where}"
    ok, why = psd_on(M, data["dim"], lo, hi)
    return "" if ok else f"the slack matrix is not PSD {where}: {why}"


def _run_check(d: Any) -> str:
    """``""`` when the certificate passes rules 1-5 on every piece, else the first failure."""
    st = canonical(R.envelope(d, "pep-family", 1)["statement"])
    data = build(st)
    for lo, hi, den, nums in _evidence(d["evidence"], st, len(data["rows"])):
        why = _check_piece(data, st, lo, hi, den, nums)
        if why:
            return why
    return ""


def explain_family(d: Any) -> tuple[bool, str]:
    """``(True, "")`` when the certificate checks, else ``(False, the first failure in words)``; never raises."""
    return R.explain(_run_check, d)


def check_family(d: Any) -> bool:
    """Exact re-check of a ``"pep-family"`` certificate dict (rules 1-5 of the module doc on every piece, the
    SDP rebuilt from the statement); ``False`` on anything malformed, never an exception."""
    return explain_family(d)[0]


# ------------------------------------------------------------------------------------------------ reading
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


def _sum(cs: Sequence[str], var: str) -> str:
    """``sum_e cs[e] var^e`` in words, highest power first (``"0"`` when every ``cs[e]`` is ``"0"``): a coefficient 1
    or -1 is dropped, one that is itself a sum is bracketed."""
    parts = []
    for e, c in enumerate(cs):
        mono = "" if e == 0 else var if e == 1 else f"{var}^{e}"
        if c != "0":
            parts.append(c if not mono else mono if c == "1" else f"-{mono}" if c == "-1" else f"({c}) {mono}"
                         if " + " in c or " - " in c else f"{c} {mono}")
    return " + ".join(reversed(parts)).replace("+ -", "- ") if parts else "0"


def _pstr(p: Any, var: str) -> str:
    return _sum([str(_frac(c)) for c in p.coeffs()], var)


def bound_str(st: FamilyStatement) -> str:
    """The bound ``L D0 num/den`` in words (``L D0/(4 N h + 2)`` style), from the lowest-terms form with a positive
    leading coefficient of ``den`` (each sign printed once)."""
    var = st["parameter"]["name"]
    num, den = _lowest_terms(st["bound"]["num"], st["bound"]["den"])
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
                f"grad f(x_k), N = {m['N']}, {every_f(st)}")
    return (f"{rng}: G(x_out) - G* <= {bound_str(st)} for local GD (002 Alg. 1, {m['schedule']} schedule, full "
            f"participation), kappa = {m['kappa']}, T_N = {m['T_N']}, step lr = h/L, output "
            f"{m['output']}, on every {st['n']} clients f_i, each {smooth(st)}, weights p = "
            f"({', '.join(map(str, st['p']))}), whenever ||x0 - x*||^2 <= D0 and rho^2 = 0")
