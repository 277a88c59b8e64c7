r"""Trusted kernel of ``"pep-potential"`` certificates: a bound for **every** number of iterations, by induction.

Statement (numbers are rational strings; a *t-polynomial* is a coefficient list in the parameter ``t``, constant
term first; a *k-polynomial* is a list of t-polynomials, the coefficients of ``k^0, k^1, ...``)::

    {"class": {"functions": "smooth-convex", "mu": "0"}, "normalisation": NORMALISATION, "n": int, "p": [q, ...],
     "method": {"name": "gd"} | {"name": "local_gd", "kappa": int, "schedule": "rfedfair"|"fedavg", "output": "average"},
     "parameter": {"name": "h", "lo": q, "hi": q},        # the normalised step h = lr L; 0 <= lo <= hi; lo = hi: one value
     "potential": {"terms": {"f"|"xx"|"xg"|"gg": k-poly, ...}, "den": t-poly,
                   "initial": {"num": t-poly, "den": t-poly},                     # B0(t)
                   "weight": {"num": t-poly, "den": t-poly}},                     # w(t): local_gd only
     "bound": {"rho2": "0", "num": k-poly, "den": k-poly}}                       # in N (gd) / T_N (local_gd)

**Strong convexity and linear rates** (gd): the class may have ``"mu": q`` with ``0 <= mu < 1`` (units ``L = 1``: every
client ``L``-smooth and ``(mu L)``-strongly convex; its rows are Taylor-Hendrickx-Glineur's Thm 4 interpolation
conditions, :mod:`fairtheory_kernel.classes`), and the statement may add ``"rate": q`` (``0 < rate <= 1``, default 1)
and ``"measure": "value" | "distance"`` (default ``"value"``).  Then the step obligation is
``phi_(k+1)(x - t g) - rate phi_k(x) <= 0`` and the final one bounds ``B0 den_b(N) m(x) - num_b(N) phi_N(x) <= 0`` with
``m = f - f*`` or ``||x - x*||^2``; the bound is ``m(x_N) <= rate^N num(N)/den(N)`` in units ``L D0`` (value) or ``D0``
(distance; the normalisation's ``bound_unit`` names the value's unit): ``phi_N <= rate^N phi_0 <= rate^N B0``.

**Every round within a constant** (local_gd, ``rho = 0``): ``"bound": {..., "final": "each"}`` with ``num``, ``den``
constant in ``k`` replaces the final obligation by ``B0 den_b (G(x) - G*) - num_b phi_k(x) <= 0`` at every round ``k``
and drops the scalar condition on ``B0/(w (T_N + 1))``: ``phi_k(x_k) <= B0`` for every server model (the step, ``w > 0``,
``G >= G*``), so ``G(x_k) - G* <= num/den`` for each, and for their average by Jensen (e.g. the trivial
``L D0/2`` for every ``T_N``).

For every heterogeneity (local_gd, rFedFair) the bound is ``{"hetero": {"num": k-poly, "den": k-poly}, "num", "den"}``
(``+ (rho^2/L) hnum/hden``, ``rho^2 = sum_i p_i ||grad f_i(x*)||^2`` any value: the optimum gradients are free) and the
potential gains ``"drift": {"num": t-poly, "den": t-poly}`` = ``C``: the step is ``... <= C rho^2`` and the kernel
also requires ``hnum w >= hden C`` for every ``T >= 0``.

The potential at iteration (gd) or round (local_gd) ``k`` of a state ``x`` is
``phi_k(x) = (c_f (G(x) - G*) + c_xx ||x - x*||^2 + c_xg <x - x*, grad G(x)> + c_gg ||grad G(x)||^2) / den(t)``,
each ``c`` a k-polynomial.  **Meaning** (units as in ``pep-family``, docs/proofs.md 7.1): for every ``t`` in
``[lo, hi]`` and every instance (``n`` L-smooth convex clients, ``grad f_i(x*) = 0``, ``||x0 - x*||^2 <= D0``, step
``t / L``), gd: ``f(x_N) - f* <= L D0 num(N, t)/den(N, t)`` for **every** ``N >= 1``; local_gd (002 Alg. 1, full
participation, ``"average"`` output): ``G(theta_tilde) - G* <= L D0 num(T_N, t)/den(T_N, t)`` for **every** ``T_N >= 0``.

Obligations the kernel builds from the statement alone (each a small PEP over ``Q[t][k]``, L = D0 = 1):

* ``step``, for every ``k >= 0``: gd ``phi_{k+1}(x - t g) - phi_k(x) <= 0``; local_gd (one round of ``kappa`` local
  steps from the server model ``x``, then the ``p``-average ``x+``) ``phi_{k+1}(x+) - phi_k(x) + w (G(x) - G*) <= 0``;
* ``initial``: ``phi_0(start) <= B0`` with ``||x0 - x*||^2 <= 1`` (gd: ``start = x0``; local_gd: round 0 from ``x0``);
* ``final``, gd, for every ``N >= 1``: ``B0 den_b(N) (f(x) - f*) - num_b(N) phi_N(x) <= 0`` at any point ``x``;
  local_gd, for every ``k >= 0``: ``-phi_k(x) <= 0``;

and scalar conditions: ``den(t), B0, w > 0`` on the range; gd ``num_b(N) >= 0``, ``den_b(N) > 0`` for ``N >= 1``;
local_gd ``den_b(T) > 0`` and ``num_b(T) w (T + 1) - den_b(T) B0 >= 0`` for ``T >= 0``.  Induction (gd:
``phi_N <= ... <= phi_0 <= B0``; local_gd: telescoping over rounds ``0..T_N`` plus one virtual round, then Jensen
for the convex ``G``) gives the bound: docs/proofs.md section 8.

Evidence: ``{"step" | "initial" | "final": {"denominator": t-poly d, "multipliers": [[row, k-poly], ...]}}``.  For an
obligation ``E <= 0`` with rows ``<A_r, Gram> + a_r . F + c_r <= 0`` (``lambda_r = num_r(k, t)/d(t)``) the kernel
checks exactly: ``d > 0``; ``num_r >= 0``; function values ``sum_r num_r a_r = d E_F`` as polynomials in ``(k, t)``;
``S = sum_r num_r A_r - d E_G`` PSD and ``d E_c - sum_r num_r c_r <= 0``, for every ``k >= 0`` (``k`` is ``N - 1``
in ``final`` of gd) and every ``t`` in the range.  "For every ``k >= 0``" is decided by *coefficients*: a
k-polynomial whose every coefficient is ``>= 0`` (a matrix: PSD) on the range is so for all real ``k >= 0``.  When
``lo = hi`` it is decided exactly instead: ``t`` is substituted and ``p(k) >= 0`` on ``[0, inf)`` iff
``u^D p((1-u)/u) >= 0`` on ``[0, 1]`` (:func:`_u`), decided by the ``pep-family`` routines.

``{"name": "agm"}`` (``h = 1``; ``"potential"`` the fixed string :data:`AGM_POTENTIAL`): only a ``step`` obligation,
the accelerated gradient method's one step multiplied by ``s^2``, ``s = 1/lambda_(k+1)``, for every ``s`` in ``[0, 1]``
(:func:`_agm`); ``lambda_N >= (N + 1)/2`` then gives ``f(x_N) - f* <= 2 L D0/(N + 1)^2`` (docs/proofs.md 8.2).
Evidence may add
``"scale": [[basis index, k-poly s_i], ...]`` (each ``s_i > 0`` for every ``k >= 0``): the PSD test is then run on
``D S D``, ``D = diag(s)``, which is PSD exactly when ``S`` is.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import partial
from math import comb
from typing import Any

import flint

from fairtheory_kernel import family as _fam
from fairtheory_kernel import rows as R
from fairtheory_kernel.classes import interpolation_rows

# the pep-family kernel's exact routines (root counting, PSD over Q[t]) and parsers, reused - not copied
from fairtheory_kernel.family import POLYNOMIALS, SMOOTH1, P, _fq, _frac, _poly, _pstr, no_root_on, nonneg_on, poly_json, psd_on
from fairtheory_kernel.rows import BadStatement, Symbols, add, avg, envelope, explain, gram, initial, keys, nat, one_of, q, sparse

__all__ = ["canonical", "to_json", "obligations", "check_potential", "explain_potential", "implies",
           "describe", "bound_at", "KP", "TERMS", "PARAMETER"]

TERMS = ("f", "xx", "xg", "gg")
PARAMETER = {"gd": "h", "local_gd": "h", "agm": "h"}
#: the methods and their fields (:func:`fairtheory_kernel.family.header`)
METHODS = {"gd": {"name": one_of("gd")}, "agm": {"name": one_of("agm")},
           "local_gd": {"name": one_of("local_gd"), "kappa": partial(nat, lo=1, hi=8),
                        "schedule": one_of("rfedfair", "fedavg"), "output": one_of("average")}}
#: the potential of the accelerated gradient method (``"agm"``, step ``1/L``, ``x_0 = z_0``), fixed by the method
AGM_POTENTIAL = ("lambda_k^2 (f(x_k) - f*) + (L/2) ||z_k - x*||^2, lambda_0 = 0, "
                 "lambda_(k+1) = (1 + sqrt(4 lambda_k^2 + 1))/2")
MAX_DIM, MAX_KDEG, MAX_TDEG, MAX_DIGITS, MAX_EV_DIGITS, MAX_PARAM = 28, 4, 8, 60, 40, 100


# ------------------------------------------------------------------------------------------------ k-polynomials
class KP(list):
    """A k-polynomial: t-polynomials (``fmpq_poly``), the coefficient of ``k^m`` at index ``m``, trailing zeros
    dropped.  A ring element too: ``+``, ``-``, ``*`` by a k-polynomial, or coefficient-wise by a t-polynomial, an
    integer or a rational, ``/`` by an integer; so an obligation is built by :func:`fairtheory_kernel.rows.gram` and
    :meth:`fairtheory_kernel.rows.Symbols.gap` and checked by :func:`fairtheory_kernel.rows.dual`, the weak duality
    of every PEP kind, over ``Q[t][k]``.  (``!= 0`` stays list inequality, always true: ``dual`` then keeps zero
    entries, and :func:`_check_ob` decides zeros itself, by :meth:`_Range.zero` and before the PSD test.)"""

    def __init__(self, cs: Any = ()) -> None:
        super().__init__(cs)
        while len(self) > 1 and self[-1] == 0:
            self.pop()
        if not self:
            self.append(P(0))

    def __add__(self, o: Any) -> KP:  # o a k-polynomial, or 0 (the start of a sum)
        o = o if isinstance(o, list) else [o]
        return KP([(self[m] if m < len(self) else P(0)) + (o[m] if m < len(o) else P(0)) for m in range(max(len(self), len(o)))])

    __radd__ = __add__

    def __sub__(self, o: KP) -> KP:
        return self + KP(o) * -1

    def __mul__(self, o: Any) -> KP:
        if not isinstance(o, list):  # a t-polynomial, an integer or a rational: coefficient-wise
            return KP([x * (P(_fq(o)) if isinstance(o, Fraction) else o) for x in self])
        out = [P(0)] * (len(self) + len(o) - 1)
        for i, x in enumerate(self):
            for j, y in enumerate(o):
                out[i + j] += x * y
        return KP(out)

    __rmul__ = __mul__

    def __truediv__(self, o: int) -> KP:
        return KP([x / o for x in self])

    def shift(self) -> KP:
        """``p(k + 1)``."""
        return KP([sum((comb(m, j) * self[m] for m in range(j, len(self))), P(0)) for j in range(len(self))])


def _kp(x: Any, what: str, digits: int = MAX_DIGITS) -> KP:
    if not isinstance(x, list) or not 1 <= len(x) <= MAX_KDEG + 1:
        raise BadStatement(f"{what}: a list of 1 to {MAX_KDEG + 1} t-polynomials (powers of k)")
    return KP([_poly(c, what, MAX_TDEG, digits) for c in x])


def _u(a: KP, t: Fraction, D: int) -> Any:
    """``u^D p((1 - u)/u)`` at ``t`` (``D >= deg p``): ``p(k) >= 0`` for all ``k >= 0`` iff this is ``>= 0`` on
    ``[0, 1]`` (``k = (1 - u)/u`` maps ``(0, 1]`` onto ``[0, inf)``; ``u = 0`` by continuity)."""
    u, v = P([0, 1]), P([1, -1])
    return sum((c(_fq(t)) * v ** m * u ** (D - m) for m, c in enumerate(a)), P(0))


class _Range:
    """The parameter range: coefficient-wise decisions for ``lo < hi``, exact in ``k`` for ``lo = hi``."""

    def __init__(self, lo: Fraction, hi: Fraction) -> None:
        self.lo, self.hi, self.point = lo, hi, lo == hi

    def zero(self, a: KP) -> bool:
        """``a = 0`` for every ``k`` (at ``t = lo`` when ``lo = hi``, else as polynomials in ``t``)."""
        return all((c(_fq(self.lo)) if self.point else c) == 0 for c in a)

    def pos_t(self, f: Any) -> bool:
        return bool(f(_fq(self.lo)) > 0) and (self.point or no_root_on(f, self.lo, self.hi))

    def nonneg_k(self, a: KP) -> bool:
        if self.point:
            return nonneg_on(_u(a, self.lo, len(a) - 1), Fraction(0), Fraction(1))
        return all(nonneg_on(c, self.lo, self.hi) for c in a)

    def pos_k(self, a: KP) -> bool:
        if self.point:
            return no_root_on(_u(a, self.lo, len(a) - 1), Fraction(0), Fraction(1)) and a[0](_fq(self.lo)) > 0
        return self.pos_t(a[0]) and self.nonneg_k(a)

    def psd_k(self, M: Mapping[tuple[int, int], KP], dim: int) -> tuple[bool, str]:
        D = max((len(v) for v in M.values()), default=1) - 1
        if self.point:
            return psd_on({key: _u(v, self.lo, D) for key, v in M.items()}, dim, Fraction(0), Fraction(1))
        for m in range(D + 1):
            ok, why = psd_on({key: v[m] for key, v in M.items() if m < len(v) and v[m] != 0}, dim, self.lo, self.hi)
            if not ok:
                return False, f"k^{m} block: {why}"
        return True, ""


# ------------------------------------------------------------------------------------------------ statement
def _ratio(x: Any, what: str) -> tuple[Any, Any]:
    x = keys(x, what, {"num", "den"})
    return _poly(x["num"], what, MAX_TDEG, MAX_DIGITS), _poly(x["den"], what, MAX_TDEG, MAX_DIGITS)


def canonical(st: Any) -> dict[str, Any]:
    """The statement with every number parsed and every field validated (raises :class:`BadStatement`)."""
    opt = {"rate", "measure"} & set(st) if isinstance(st, Mapping) else set()  # gd only: rate^N, a distance bound
    out = _fam.header(st, {"potential", "bound"} | opt, METHODS, point=True)
    method, n, lo, hi = out["method"], out["n"], out["parameter"]["lo"], out["parameter"]["hi"]
    if method["name"] in ("gd", "agm") and n != 1:
        raise BadStatement(f"{method['name']}: n must be 1")
    out |= {"rate": q(st.get("rate", 1), "rate", MAX_DIGITS),
            "measure": one_of("value", "distance")(st.get("measure", "value"), "measure")}
    if not 0 < out["rate"] <= 1 or (opt and method["name"] != "gd") or (out["class"]["mu"] and method["name"] == "agm"):
        raise BadStatement("rate in (0, 1] and measure 'value' | 'distance': gd only; agm: mu = 0")
    b = st["bound"]
    het = isinstance(b, Mapping) and "hetero" in b  # L D0 num/den + (rho^2/L) hnum/hden, any rho (local_gd, rFedFair)
    each = isinstance(b, Mapping) and b.get("final") == "each" and method["name"] == "local_gd" and not het
    b = keys(b, "bound", {"hetero" if het else "rho2", "num", "den"} | ({"final"} if each else set()))
    if (not het and q(b["rho2"], "rho2", MAX_DIGITS) != 0) or (het and method.get("schedule") != "rfedfair"):
        raise BadStatement("bound: rho2 = 0, or a 'hetero' part for every rho (local_gd, rfedfair schedule)")
    out |= {"potential": None, "bound": {"rho2": None if het else Fraction(0), "num": _kp(b["num"], "bound num"),
                                         "den": _kp(b["den"], "bound den"), "final": "each" if each else None}}
    if het:
        hb = keys(b["hetero"], "bound.hetero", {"num", "den"})
        out["bound"]["hetero"] = (_kp(hb["num"], "hetero num"), _kp(hb["den"], "hetero den"))
    if method["name"] == "agm":
        if (lo, hi) != (1, 1) or st["potential"] != AGM_POTENTIAL:
            raise BadStatement(f"agm: h = 1 (step 1/L) and the potential {AGM_POTENTIAL!r}")
        return out | {"potential": AGM_POTENTIAL}
    pot = keys(st["potential"], "potential", {"terms", "den", "initial"} | ({"weight"} if method["name"] == "local_gd" else set())
                | ({"drift"} if het else set()))
    terms = pot["terms"]
    if not isinstance(terms, Mapping) or not terms or not set(terms) <= set(TERMS):
        raise BadStatement(f"potential.terms: a non-empty map from {TERMS} to k-polynomials")
    potential = {"terms": {k: _kp(terms[k], f"potential term {k}") for k in TERMS if k in terms},
                 "den": _poly(pot["den"], "potential den", MAX_TDEG, MAX_DIGITS),
                 "initial": _ratio(pot["initial"], "potential initial")}
    for key in {"weight", "drift"} & set(pot):  # drift C: one round is phi_(k+1) - phi_k + w (G - G*) <= C rho^2
        potential[key] = _ratio(pot[key], f"potential {key}")
    return out | {"potential": potential}


def to_json(st: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical statement as plain JSON: a t-polynomial as its coefficients, a k-polynomial as a list of them, a
    pair ``(num, den)`` as ``{"num", "den"}``, a rational as its string (``rho2 = None``, "every rho", left out)."""
    def j(x: Any) -> Any:
        if isinstance(x, Mapping):
            return {k: j(v) for k, v in x.items() if v is not None}
        if isinstance(x, tuple):
            return {"num": j(x[0]), "den": j(x[1])}
        return [j(v) for v in KP(x)] if isinstance(x, list) else x if isinstance(x, str) else \
            str(x) if isinstance(x, Fraction) else poly_json(x)

    opt = {k: str(st[k]) for k, dflt in (("rate", 1), ("measure", "value")) if st[k] != dflt}
    return _fam.header_json(st) | opt | {"potential": j(st["potential"]), "bound": j(st["bound"])}


# ------------------------------------------------------------------------------------------------ obligations
class _Ob:
    """One obligation ``E <= 0``: ``E`` as k-polynomials (``G`` Gram entries, ``F`` values, ``c`` constant)."""

    def __init__(self, st: Mapping[str, Any]) -> None:
        self.st, self.b = st, Symbols(st["n"], st["p"], POLYNOMIALS, MAX_DIM, st)
        if st["bound"]["rho2"] is not None:  # rho^2 = 0 exactly: every grad f_i(x*) = 0 (their basis vectors unused)
            self.b.stars = [{} for _ in range(st["n"])]
            self.b.points = [[({}, {}, None)] for _ in range(st["n"])]
        self.G: dict[tuple[int, int], KP] = {}
        self.F: dict[int, KP] = {}
        self.c = KP([P(0)])

    def grad(self, x: dict[int, Any]) -> dict[int, Any]:
        return avg([self.b.oracle(i, x)[0] for i in range(self.st["n"])], [P(_fq(w)) for w in self.st["p"]])

    def value(self, x: dict[int, Any], c: KP) -> None:
        self.b.gap(x, c, self.F)  # E += c (G(x) - G*)

    def quad(self, u: dict[int, Any], v: dict[int, Any], c: KP) -> None:
        gram(u, v, c, self.G)  # E += c <u, v>

    def phi(self, x: dict[int, Any], scale: KP, shift: bool = False, at0: bool = False) -> None:
        """``E += scale * den * phi_{k + shift}(x)`` (``at0``: ``phi_0(x)``, no ``k``)."""
        terms = {name: c.shift() if shift else c for name, c in self.st["potential"]["terms"].items()}  # p(k + 1)
        cs = {name: scale * (c[:1] if at0 else c) for name, c in terms.items()}  # p(0) when at0
        g = self.grad(x) if {"xg", "gg"} & set(cs) else {}
        if "f" in cs:
            self.value(x, cs["f"])
        for name, (u, v) in {"xx": (x, x), "xg": (x, g), "gg": (g, g)}.items():
            if name in cs:
                self.quad(u, v, cs[name])

    def rows(self, dist: bool) -> list[Any]:
        rows = interpolation_rows(self.b, [SMOOTH1 | self.st["class"]] * self.st["n"], max_rows=MAX_DIM * MAX_DIM)
        return rows + ([(initial(self.b, self.st["p"])[0], {}, Fraction(-1))] if dist else [])  # ||x0 - x*||^2 <= 1


def _round(ob: _Ob, x: dict[int, Any], steps: int) -> dict[int, Any]:
    """``steps`` local gradient steps (size ``t``) of every client from ``x``, then the ``p``-average."""
    return R.local_gd_output(ob.b, x, n=ob.st["n"], p=ob.st["p"], kappa=steps, T_N=0, schedule="fedavg", output="last",
                             step=-P([0, 1]))  # one round of kappa = steps local steps, the last (only) server model


def _agm(st: Mapping[str, Any]) -> dict[str, tuple[_Ob, list[Any]]]:
    """The accelerated gradient method's one step, multiplied by ``s^2``, ``s = 1/lambda_(k+1)`` in ``(0, 1]`` (the
    parameter ``t`` stands for ``s``; ``w = s (z_k - x*)`` a basis vector): with ``y = (1 - s) x + w``,
    ``x+ = y - g(y)``: ``f(x+) - f* + ||w - g(y)||^2/2 - (1 - s)(f(x) - f*) - ||w||^2/2 <= 0`` (docs 8.2)."""
    ob, s = _Ob(st), P([0, 1])
    x, w = {0: P(1)}, {ob.b.dim: P(1)}
    ob.b.dim += 1
    y = add({0: 1 - s}, w)
    fx, gy = ob.b.oracle(0, x)[1], ob.b.oracle(0, y)[0]
    fp = ob.b.oracle(0, add(y, gy, -1))[1]
    ob.F = {fp: KP([P(1)]), fx: KP([s - 1])}
    ob.quad(add(w, gy, -1), add(w, gy, -1), KP([P(flint.fmpq(1, 2))]))
    ob.quad(w, w, KP([P(flint.fmpq(-1, 2))]))
    return {"step": (ob, ob.rows(False))}


def obligations(st: Mapping[str, Any]) -> dict[str, tuple[_Ob, list[Any]]]:
    """``{"step", "initial", "final"}`` -> (obligation, rows) of a canonical statement (module doc)."""
    if st["method"]["name"] == "agm":
        return _agm(st)
    pot, m = st["potential"], st["method"]
    (bn, bd), one, x = pot["initial"], KP([P(1)]), {0: P(1)}
    out = {}
    step = _Ob(st)
    if m["name"] == "gd":
        step.phi(add(x, step.grad(x), -P([0, 1])), one, shift=True)
        step.phi(x, KP([P(_fq(-st["rate"]))]))  # phi_(k+1)(x+) <= rate phi_k(x)
    else:
        (wn, wd), (cn, cd) = pot["weight"], pot.get("drift", (P(0), P(1)))
        step.phi(_round(step, x, m["kappa"]), KP([wd * cd]), shift=True)
        step.phi(x, KP([-wd * cd]))
        step.value(x, KP([wn * cd * pot["den"]]))
        for i in range(st["n"]):  # - C rho^2, rho^2 = sum_i p_i ||grad f_i(x*)||^2 (times wd cd den > 0)
            step.quad(step.b.stars[i], step.b.stars[i], KP([-wd * pot["den"] * cn * P(_fq(st["p"][i]))]))
    out["step"] = (step, step.rows(False))
    init = _Ob(st)
    start = x if m["name"] == "gd" else _round(init, x, 1 if m["schedule"] == "rfedfair" else m["kappa"])
    init.phi(start, KP([bd]), at0=True)
    init.c = KP([-bn * pot["den"]])
    out["initial"] = (init, init.rows(True))
    fin = _Ob(st)
    if m["name"] == "gd":  # k = N - 1 >= 0
        (fin.value if st["measure"] == "value" else partial(fin.quad, x))(x, st["bound"]["den"].shift() * (bn * pot["den"]))
        fin.phi(x, st["bound"]["num"].shift() * -bd, shift=True)
    else:  # local_gd, "each": B0 den_b (G(x) - G*) - num_b phi_k(x) <= 0 at every round k (else -phi_k(x) <= 0)
        fin.value(x, st["bound"]["den"] * (bn * pot["den"]) if st["bound"]["final"] else KP([P(0)]))
        fin.phi(x, st["bound"]["num"] * -bd if st["bound"]["final"] else KP([P(-1)]))
    out["final"] = (fin, fin.rows(False))
    return out


# ------------------------------------------------------------------------------------------------ checking
def _check_ob(name: str, ob: _Ob, rows: list[Any], ev: Any, rng: _Range) -> str:
    ev = keys(ev, f"evidence.{name}", {"denominator", "multipliers"} | ({"scale"} if "scale" in ev else set()))
    d = _poly(ev["denominator"], "denominator", MAX_TDEG, MAX_EV_DIGITS)
    scale: dict[int, KP] = sparse(ev.get("scale", []), ob.b.dim, lambda x: _kp(x, "scale", MAX_EV_DIGITS), "scale")
    nums: dict[int, KP] = sparse(ev["multipliers"], len(rows), lambda x: _kp(x, "multiplier", MAX_EV_DIGITS))
    where = f"{name} obligation"
    if not rng.pos_t(d):
        return f"{where}: the denominator is not positive on the range"
    if not all(rng.pos_k(v) for v in scale.values()):
        return f"{where}: a scale is not positive for some k >= 0 and parameter in the range"
    for r, a in nums.items():
        if not rng.nonneg_k(a):
            return f"{where}: the multiplier of row {r} is negative for some k >= 0 and parameter in the range"
    # weak duality, as for pep-dual and pep-family (the rows' rationals enter Q[t][k] as constants)
    F, S, K = R.dual(rows, (ob.G, ob.F, ob.c), nums, d, lambda c: c if isinstance(c, KP) else P(_fq(c)))
    if bad := [f for f, v in F.items() if not rng.zero(v)]:
        return f"{where}: the function values do not cancel (value {bad[0]})"
    if not rng.nonneg_k([-x for x in K]):
        return f"{where}: the constant term is positive for some k"
    one = KP([P(1)])  # S(k) >= 0 iff D S D >= 0 for the diagonal D = diag(scale) > 0
    S = {(i, j): v * scale.get(i, one) * scale.get(j, one) for (i, j), v in S.items()}
    ok, why = rng.psd_k({key: v for key, v in S.items() if any(x != 0 for x in v)}, ob.b.dim)
    return "" if ok else f"{where}: the slack matrix is not PSD for every k >= 0 and parameter: {why}"


def _scalars(st: Mapping[str, Any], rng: _Range) -> str:
    """The first scalar condition (module doc) that fails, in words; ``""`` when all hold."""
    num, den, m = st["bound"]["num"], st["bound"]["den"], st["method"]["name"]
    if m == "agm":  # lambda_N >= (N + 1)/2: f(x_N) - f* <= D0/(2 lambda_N^2) <= 2 D0/(N + 1)^2
        ok = rng.pos_k(den.shift()) and rng.nonneg_k((num * KP([P(1), P(2), P(1)]) - den * 2).shift())
        return "" if ok else "the bound is below 2 L D0/(N + 1)^2 or its denominator not positive for some N >= 1"
    pot, (bn, bd) = st["potential"], st["potential"]["initial"]
    (wn, wd), each = pot.get("weight", (P(1), P(1))), st["bound"].get("final")
    checks = [(lambda: rng.pos_t(pot["den"]) and rng.pos_t(bd), "the potential's or the initial bound's denominator is "
               "not positive on the range"),
              (lambda: m == "local_gd" or rng.pos_t(bn), "the initial bound B0 is not positive on the range"),
              (lambda: m == "local_gd" or (rng.nonneg_k(num.shift()) and rng.pos_k(den.shift())),
               "the bound's numerator is negative or its denominator not positive for some N >= 1"),
              (lambda: rng.pos_t(wn) and rng.pos_t(wd), "the weight w is not positive on the range"),
              (lambda: m == "gd" or rng.pos_k(den), "the bound's denominator is not positive for some T_N >= 0"),
              # each round's model within a constant num/den: so is their average (Jensen, G convex)
              (lambda: not each or (len(num) == len(den) == 1 and rng.nonneg_k(num)), "a per-round bound is a constant >= 0"),
              (lambda: m == "gd" or each or rng.nonneg_k(num * KP([wn * bd, wn * bd]) - den * KP([wd * bn])),  # times wd B0den
               "B0 / (w (T_N + 1)) exceeds the stated bound for some T_N >= 0")]
    if "drift" in pot:  # the rho^2 part: hnum/hden >= C/w for every T_N >= 0
        (hn, hd), (cn, cd) = st["bound"]["hetero"], pot["drift"]
        checks.append((lambda: rng.pos_t(cd) and rng.pos_k(hd) and rng.nonneg_k(hn * KP([cd * wn]) - hd * KP([cn * wd])),
                       "C/w exceeds the stated rho^2 coefficient for some T_N >= 0 (or a denominator is not positive)"))
    return next((why for ok, why in checks if not ok()), "")


def _run_check(d: Any) -> str:
    """``""`` when the scalar conditions and every obligation pass, else the first failure."""
    st = canonical(envelope(d, "pep-potential", 1)["statement"])
    rng = _Range(st["parameter"]["lo"], st["parameter"]["hi"])
    why = _scalars(st, rng)
    obs = obligations(st) if not why else {}
    ev = keys(d["evidence"], "evidence", set(obs)) if not why else {}
    for name, (ob, rows) in obs.items():
        why = why or _check_ob(name, ob, rows, ev[name], _Range(Fraction(0), Fraction(1)) if "initial" not in obs else rng)
    return why


def explain_potential(d: Any) -> tuple[bool, str]:
    """``(True, "")`` when the certificate checks, else ``(False, the first failure in words)``; never raises."""
    return explain(_run_check, d)


def check_potential(d: Any) -> bool:
    """Exact re-check of a ``"pep-potential"`` certificate dict; ``False`` on anything malformed, never raises."""
    return explain_potential(d)[0]


# ------------------------------------------------------------------------------------------------ reading
def _at(a: KP, k: int) -> Any:
    return sum((c * k ** m for m, c in enumerate(a)), P(0))


def bound_at(st: Mapping[str, Any], k: int, t: Fraction) -> Fraction:
    """The stated bound (units ``L D0``) at ``N = k`` (gd) or ``T_N = k`` (local_gd) and parameter ``t``."""
    num, den = _at(st["bound"]["num"], k), _at(st["bound"]["den"], k)
    return st["rate"] ** k * _frac(num(_fq(t))) / _frac(den(_fq(t)))


def implies(a: Mapping[str, Any], kind: str, b: Any) -> bool:
    """Whether the canonical ``pep-potential`` statement ``a`` implies the statement ``b`` of ``kind``:

    * ``"pep-potential"``: the same class, clients, weights, method and potential (``b``'s words name it; the
      drift only when ``b`` has one), ``b``'s range inside ``a``'s, and ``b``'s
      bound at least ``a``'s for every ``N >= 1`` (``T_N >= 0``) and parameter in ``b``'s range, with positive
      denominators (decided as the obligations are: by coefficients in ``k``, exactly when ``lo = hi``);
    * ``"pep-family"`` (one ``N`` or ``T_N``): the same class, clients, weights, method (gd: any ``N >= 1``; local_gd:
      the same ``kappa``, schedule and output), ``b``'s range inside ``a``'s, and ``a``'s bound at that ``N`` at most
      ``b``'s on ``b``'s range (exactly, as :func:`fairtheory_kernel.family.implies`)."""
    try:
        if kind == "pep-potential":
            b = canonical(b)
            # the potential too: b's words name it ("by the potential ..."), so it is a's (its drift C, the rho^2
            # part, only when b states one: a bound for every rho implies the rho = 0 statement)
            pa, pb = a["potential"], b["potential"]
            pa = pa if isinstance(pa, str) or "drift" in pb else {k: x for k, x in pa.items() if k != "drift"}
            same = pa == pb and all(a[k] == b[k] for k in ("class", "normalisation", "n", "p", "method", "rate", "measure"))
        elif kind == "pep-family":  # a's bound at b's N (gd) / T_N (local_gd), compared by the family kernel
            b = _fam.canonical(b)
            m = b["method"]
            N = m["T_N" if m["name"] == "local_gd" else "N"]
            at = {k: a[k] for k in ("class", "normalisation", "n", "p", "parameter")} | {
                "method": dict(a["method"]) | ({"T_N": N} if m["name"] == "local_gd" else {"N": N}),
                "bound": {"form": "constrained", "rho2": Fraction(0), "num": _at(a["bound"]["num"], N) * _fq(a["rate"] ** N),
                          "den": _at(a["bound"]["den"], N)}}
            return m["name"] == a["method"]["name"] and a["measure"] == "value" and _fam.implies(at, b)
        else:
            return False
        pa, pb = a["parameter"], b["parameter"]
        if not same or not (pa["lo"] <= pb["lo"] and pb["hi"] <= pa["hi"]):
            return False
        rng = _Range(pb["lo"], pb["hi"])
        sh = KP.shift if a["method"]["name"] != "local_gd" else (lambda x: x)
        pairs = [((a["bound"]["num"], a["bound"]["den"]), (b["bound"]["num"], b["bound"]["den"]))]
        if b["bound"]["rho2"] is None:  # b holds for every rho: a must too, with a rho^2 coefficient at most b's
            if a["bound"]["rho2"] is not None:
                return False
            pairs.append((a["bound"]["hetero"], b["bound"]["hetero"]))
        pairs = [(sh(na), sh(da), sh(nb), sh(db)) for (na, da), (nb, db) in pairs]  # b's ratio at least a's
        return all(rng.pos_k(da) and rng.pos_k(db) and rng.nonneg_k(nb * da - na * db)
                   for na, da, nb, db in pairs)
    except Exception:  # noqa: BLE001 - a malformed statement implies nothing
        return False


def _kstr(a: KP, kv: str, tv: str) -> str:
    return _fam._sum([_fam._pstr(c, tv) for c in a], kv)


def _bound_words(num: KP, den: KP, kv: str, tv: str) -> str:
    """``c L D0/(den)`` when the numerator is a rational constant ``c`` (its sign printed once), else
    ``L D0 (num)/(den)``."""
    if len(num) == 1 and num[0].degree() <= 0 and num[0] != 0:
        c = _frac(num[0].coeffs()[0])
        head = "L D0" if c == 1 else "-L D0" if c == -1 else f"{_pstr(num[0], tv)} L D0"
        return f"{head}/({_kstr(den, kv, tv)})"
    return f"L D0 ({_kstr(num, kv, tv)})/({_kstr(den, kv, tv)})"


def describe(st: Mapping[str, Any]) -> str:
    """The statement in words, generated from its fields: the bound, for whom, and the potential that proves it."""
    m, par, pot = st["method"], st["parameter"], st["potential"]
    tv = par["name"]
    rng = f"{tv} = {par['lo']}" if par["lo"] == par["hi"] else f"every {tv} in [{par['lo']}, {par['hi']}]"
    kv = "T_N" if m["name"] == "local_gd" else "N"
    bound = _bound_words(st["bound"]["num"], st["bound"]["den"], kv, tv)
    rho = "rho^2 = 0"
    if st["bound"]["rho2"] is None:
        hn, hd = st["bound"]["hetero"]
        bound += f" + (rho^2/L) ({_kstr(hn, kv, tv)})/({_kstr(hd, kv, tv)})"
        rho = "rho^2 = sum_i p_i ||grad f_i(x*)||^2"
    if m["name"] == "agm":
        return (f"for every N >= 1: f(x_N) - f* <= {bound} for the accelerated gradient method (x_0 = z_0; tau_k = "
                f"1/lambda_(k+1), y_k = (1 - tau_k) x_k + tau_k z_k, z_(k+1) = z_k - (lambda_(k+1)^2 - lambda_k^2)/L "
                f"grad f(y_k), x_(k+1) = y_k - grad f(y_k)/L) {_fam.every_f(st)}; by the potential {pot}")
    names = {"f": "(f(x_k) - f*)/L", "xx": "||x_k - x*||^2", "xg": "<x_k - x*, grad/L>", "gg": "||grad||^2/L^2"}
    phi = " + ".join(f"[{_kstr(c, 'k', tv)}] {names[k]}" for k, c in pot["terms"].items())
    phi = f"({phi})/({_pstr(pot['den'], tv)})"
    if m["name"] == "gd":
        rate, dist = st["rate"], st["measure"] == "distance"
        return (f"for every N >= 1 and {rng}: {'||x_N - x*||^2' if dist else 'f(x_N) - f*'} <= "
                f"{f'({rate})^N ' if rate != 1 else ''}{bound.replace('L D0', 'D0') if dist else bound} for gradient descent "
                f"x_(k+1) = x_k - ({tv}/L) grad f(x_k) {_fam.every_f(st)}; by induction on the potential phi_k = {phi}"
                f"{f', phi_(k+1) <= ({rate}) phi_k' if rate != 1 else ''}")
    return (f"for every T_N >= 0 and {rng}: G(x_out) - G* <= {bound} for local GD (002 Alg. 1, {m['schedule']} "
            f"schedule, full participation), kappa = {m['kappa']}, step lr = {tv}/L, output average, on every {st['n']} "
            f"clients f_i, each {_fam.smooth(st)}, weights p = ({', '.join(map(str, st['p']))}), whenever ||x0 - x*||^2 <= D0 "
            f"and {rho}; by the one-round potential phi_k = {phi} (x_k the server model of round k, grad = grad G) "
            f"decreasing by w (G(x_k) - G*)/L, w = ({_pstr(pot['weight'][0], tv)})/({_pstr(pot['weight'][1], tv)})"
            + (f", up to C rho^2/L^2, C = ({_pstr(pot['drift'][0], tv)})/({_pstr(pot['drift'][1], tv)})"
               if "drift" in pot else "") + ", and every round's server model within the bound" * bool(st["bound"]["final"]))
