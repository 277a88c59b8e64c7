r"""Gradient descent is tight for every N: ``f(x_N) - f* <= L D0/(4 N h + 2)`` (Drori & Teboulle 2014, Thm. 3.1).

For gradient descent ``x_(k+1) = x_k - (h/L) grad f(x_k)`` on ``L``-smooth convex ``f`` with
``||x_0 - x*||^2 <= D0``, the horizon-**independent** potential (``L = 1``, ``f_k = f(x_k) - f*``,
``g_k = grad f(x_k)``, ``x* = 0``; docs/tight_gd.md)::

    phi_k = h (2k + 1) f_k + ||x_k||^2 - h <x_k, g_k> + (h^2 k^2 + h k + h/2) ||g_k||^2

satisfies, for every ``k >= 0`` and every ``h`` in ``[0, sqrt 2]``:

* ``phi_(k+1) <= phi_k`` (rows ``(x*, x_k)``, ``(x*, x_(k+1))`` times ``h``, ``(x_k, x_(k+1))`` times
  ``2 (k+1)(h k + h + 1)``, ``(x_(k+1), x_k)`` times ``2 (k+1)(h k + 1)``; slack
  ``(k+1)(2 - h^2 + k h (2 - h)) ||g_k - g_(k+1)||^2``, rank one),
* ``phi_0 <= ||x_0||^2 <= 1`` (row ``(x*, x_0)`` times ``h``, no slack),
* ``(4 N h + 2) f_N <= phi_N`` (row ``(x*, x_N)`` times ``2 h N + 2 - h``; slack ``||x_N - (h N + 1) g_N||^2``),

so ``f(x_N) - f* <= L D0/(4 N h + 2)`` for every ``N >= 1``: exactly Drori & Teboulle's worst case for ``h <= 1``
(attained by their Huber function, :func:`huber_instance`).  Row ``(i, j)`` is the interpolation inequality
``f_i >= f_j + <g_j, x_i - x_j> + ||g_i - g_j||^2/2`` (Taylor, Hendrickx & Glineur 2017).

Three views of one certificate:

* :func:`tight_gd_certificate` - the ``"pep-potential"`` JSON that the trusted kernel
  (:mod:`fairtheory_kernel.potential_kernel`) checks symbolically in ``k`` (hence ``N``) with its existing rule;
* :func:`prototype_certificate` / :func:`check_prototype` - the same proof in an explicit *rank-one* form checked
  here with arithmetic of this module only (FLINT ``fmpq_poly``; no float, no sympy, no solver): every obligation
  ``E <= 0`` carries multipliers ``lambda_r(k, h)`` and slack terms ``w_j(k, h) (v_j . z)^2`` and the check is the
  polynomial identity ``E = sum_r lambda_r row_r - sum_j w_j (v_j . z)^2`` in ``(k, h)`` plus coefficient-wise
  non-negativity of every ``lambda_r`` and ``w_j`` on ``k >= 0``, ``h`` in ``[lo, hi]`` (no PSD test at all);
  :func:`check_prototype_at` re-checks the chain at each integer ``N`` (steps ``k < N``, initial, final at ``N``);
* :func:`check_full_pep` - the telescoped sum, an exact dual certificate of the whole ``N``-step PEP with the
  slack ``S(N) = sum_(k < N) c_k (g_k - g_(k+1))^(x2) + (x_N - (h N + 1) g_N)^(x2)`` written as rank-one terms.

:func:`compare_with_drori_teboulle` compares the certified bound with ``1/(4 N h + 2)`` exactly, as rational
functions of ``h``, at every ``N`` up to a limit.  :func:`drori_teboulle_slack` builds Drori & Teboulle's own dual
(multipliers ``i/(2N + 1 - i)``, independent of ``h``) and decides its slack's PSD-ness and rank exactly at one
``h``.  :func:`horizon_independent_ratio` is the (untrusted, float) SDP that found the potential.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from math import comb
from typing import Any

import flint

__all__ = ["tight_gd_statement", "tight_gd_certificate", "prototype_certificate", "check_prototype",
           "check_prototype_at", "check_full_pep", "compare_with_drori_teboulle", "huber_instance", "run_gd",
           "drori_teboulle_slack", "horizon_independent_ratio", "SQRT2_BELOW"]

P = flint.fmpq_poly
Q = flint.fmpq
#: a rational below sqrt 2 (the step obligation's weight ``2 - h^2`` is >= 0 exactly up to sqrt 2)
SQRT2_BELOW = Fraction(7, 5)
MAX_KDEG, MAX_TDEG, MAX_DIGITS, MAX_DEPTH = 4, 8, 60, 16


# ------------------------------------------------------------------------------------------------ exact arithmetic
def _q(x: Any, what: str) -> Fraction:
    """A rational from an int, a Fraction or a string ``"p/q"`` (never a float)."""
    if isinstance(x, bool) or isinstance(x, float):
        raise ValueError(f"{what}: an exact rational (int, Fraction or 'p/q' string), got {x!r}")
    if isinstance(x, str) and len(x) > MAX_DIGITS:
        raise ValueError(f"{what}: at most {MAX_DIGITS} characters, got {len(x)}")
    try:
        return Fraction(x)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"{what}: an exact rational (int, Fraction or 'p/q' string), got {x!r}") from None


def _fq(x: Fraction) -> Any:
    return Q(x.numerator, x.denominator)


def _tpoly(x: Any, what: str) -> Any:
    """A t-polynomial (coefficients in ``h``, constant first) from a list of rationals."""
    if not isinstance(x, list) or not 1 <= len(x) <= MAX_TDEG + 1:
        raise ValueError(f"{what}: a list of 1 to {MAX_TDEG + 1} rationals (powers of h)")
    return P([_fq(_q(c, what)) for c in x])


class KH:
    """A polynomial in ``(k, h)``: ``sum_m k^m c_m(h)``, ``c_m`` an ``fmpq_poly`` (index ``m``)."""

    __slots__ = ("c",)

    def __init__(self, cs: Sequence[Any] = ()) -> None:
        c = [P(x) if not isinstance(x, P) else x for x in cs]
        while c and c[-1] == 0:
            c.pop()
        self.c = c

    @staticmethod
    def parse(x: Any, what: str) -> KH:
        """From JSON: a list (powers of ``k``) of t-polynomials (lists of rationals)."""
        if not isinstance(x, list) or not 1 <= len(x) <= MAX_KDEG + 1:
            raise ValueError(f"{what}: a list of 1 to {MAX_KDEG + 1} t-polynomials (powers of k)")
        return KH([_tpoly(c, what) for c in x])

    def __add__(self, o: KH) -> KH:
        n = max(len(self.c), len(o.c))
        return KH([(self.c[m] if m < len(self.c) else P(0)) + (o.c[m] if m < len(o.c) else P(0)) for m in range(n)])

    def __neg__(self) -> KH:
        return KH([-x for x in self.c])

    def __sub__(self, o: KH) -> KH:
        return self + (-o)

    def __mul__(self, o: KH) -> KH:
        out = [P(0)] * max(len(self.c) + len(o.c) - 1, 0)
        for i, x in enumerate(self.c):
            for j, y in enumerate(o.c):
                out[i + j] += x * y
        return KH(out)

    def is_zero(self) -> bool:
        return not self.c

    def shift(self) -> KH:
        """``p(k + 1, h)``."""
        n = len(self.c)
        return KH([sum((comb(m, j) * self.c[m] for m in range(j, n)), P(0)) for j in range(n)])

    def at(self, k: int) -> Any:
        """``p(k, h)`` as an ``fmpq_poly`` in ``h``."""
        return sum((x * k ** m for m, x in enumerate(self.c)), P(0))


def kh(*coeffs: Any) -> KH:
    """``kh(c0, c1, ...)``: ``sum_m k^m c_m(h)``, each ``c_m`` a list of rationals (powers of ``h``) or a rational."""
    return KH([P([_fq(Fraction(v)) for v in c]) if isinstance(c, (list, tuple)) else P([_fq(Fraction(c))])
               for c in coeffs])


H = kh([0, 1])  # the polynomial h
ONE = kh(1)


def _bernstein_nonneg(p: Any, lo: Fraction, hi: Fraction, strict: bool, depth: int = 0) -> bool:
    """A sufficient exact test of ``p >= 0`` (``> 0`` when ``strict``) on ``[lo, hi]``: the Bernstein coefficients of
    ``p(lo + (hi - lo) u)`` on ``[0, 1]`` are all ``>= 0`` (``> 0``), bisecting up to :data:`MAX_DEPTH` times;
    ``False`` when a value at an end point or a midpoint is negative (or zero when ``strict``), or undecided."""
    for x in (lo, hi):
        v = p(_fq(x))
        if v < 0 or (strict and v == 0):
            return False
    if lo == hi or p.degree() <= 0:
        return True
    a = p(P([_fq(lo), _fq(hi - lo)]))  # in u on [0, 1]
    n, cs = a.degree(), a.coeffs()
    b = [sum((Q(comb(i, j), comb(n, j)) * cs[j] for j in range(i + 1)), Q(0)) for i in range(n + 1)]
    if all(x > 0 if strict else x >= 0 for x in b[1:-1]):
        return True
    if depth >= MAX_DEPTH:
        return False
    mid = (lo + hi) / 2
    return (_bernstein_nonneg(p, lo, mid, strict, depth + 1)
            and _bernstein_nonneg(p, mid, hi, strict, depth + 1))


def nonneg_on(p: Any, lo: Fraction, hi: Fraction) -> bool:
    """``p(h) >= 0`` for every ``h`` in ``[lo, hi]`` (sufficient, exact)."""
    return p == 0 or _bernstein_nonneg(p, lo, hi, strict=False)


def pos_on(p: Any, lo: Fraction, hi: Fraction) -> bool:
    """``p(h) > 0`` for every ``h`` in ``[lo, hi]`` (sufficient, exact)."""
    return _bernstein_nonneg(p, lo, hi, strict=True)


def nonneg_k(a: KH, lo: Fraction, hi: Fraction) -> bool:
    """``a(k, h) >= 0`` for every real ``k >= 0`` and ``h`` in ``[lo, hi]``: every ``k``-coefficient ``>= 0``."""
    return all(nonneg_on(c, lo, hi) for c in a.c)


# ------------------------------------------------------------------------------------------------ quadratic forms
Vec = dict  # basis index -> KH
Form = tuple  # (Gram coefficients {(i, j), i <= j: KH}, function values {name: KH}, constant KH)


def _vadd(u: Vec, v: Vec, s: KH = ONE) -> Vec:
    out = dict(u)
    for i, x in v.items():
        out[i] = out.get(i, KH()) + s * x
    return out


def _ip(u: Vec, v: Vec, c: KH, G: dict[tuple[int, int], KH]) -> None:
    """``G += c <u, v>`` in Gram coordinates ``(i, j)``, ``i <= j``."""
    for i, x in u.items():
        for j, y in v.items():
            key = (min(i, j), max(i, j))
            G[key] = G.get(key, KH()) + c * x * y


def _form() -> list[Any]:
    return [{}, {}, KH()]


def _fadd(E: list[Any], F: Form, c: KH) -> None:
    """``E += c F``."""
    for key, v in F[0].items():
        E[0][key] = E[0].get(key, KH()) + c * v
    for key, v in F[1].items():
        E[1][key] = E[1].get(key, KH()) + c * v
    E[2] = E[2] + c * F[2]


def _row(pi: tuple[Vec, Vec, str | None], pj: tuple[Vec, Vec, str | None]) -> Form:
    """``f_j - f_i + <g_j, x_i - x_j> + ||g_i - g_j||^2/2 <= 0`` (row ``(i, j)``; ``f*`` = 0 at ``x*``)."""
    (xi, gi, fi), (xj, gj, fj) = pi, pj
    G: dict[tuple[int, int], KH] = {}
    _ip(gj, _vadd(xi, xj, -ONE), ONE, G)
    d = _vadd(gi, gj, -ONE)
    _ip(d, d, kh(Fraction(1, 2)), G)
    F: dict[str, KH] = {}
    if fj is not None:
        F[fj] = F.get(fj, KH()) + ONE
    if fi is not None:
        F[fi] = F.get(fi, KH()) - ONE
    return (G, F, KH())


STAR: tuple[Vec, Vec, None] = ({}, {}, None)


def _phi(pot: Mapping[str, KH], x: Vec, g: Vec, f: str, E: list[Any], c: KH) -> None:
    """``E += c phi(x, g, f)`` with the potential's ``k``-polynomials ``pot`` (already shifted as needed)."""
    if "f" in pot:
        E[1][f] = E[1].get(f, KH()) + c * pot["f"]
    for name, (u, v) in {"xx": (x, x), "xg": (x, g), "gg": (g, g)}.items():
        if name in pot:
            _ip(u, v, c * pot[name], E[0])


def _square(v: Vec) -> Form:
    G: dict[tuple[int, int], KH] = {}
    _ip(v, v, ONE, G)
    return (G, {}, KH())


def _identity_zero(E: list[Any]) -> str:
    """``""`` when every Gram coefficient, function value and the constant vanish identically, else which does not."""
    for key, v in E[0].items():
        if not v.is_zero():
            return f"Gram entry {key}"
    for key, v in E[1].items():
        if not v.is_zero():
            return f"function value {key}"
    return "" if E[2].is_zero() else "the constant term"


# ------------------------------------------------------------------------------------------------ certificate
def _s(x: Any) -> str:
    return str(Fraction(x))


def _kpj(*coeffs: Any) -> list[list[str]]:
    """A k-polynomial in JSON: each argument the t-polynomial of ``k^m`` (a list) or a constant."""
    return [[_s(c) for c in a] if isinstance(a, (list, tuple)) else [_s(a)] for a in coeffs]


def _range(lo: Any, hi: Any) -> tuple[Fraction, Fraction]:
    lo, hi = _q(lo, "lo"), _q(hi, "hi")
    if not 0 <= lo <= hi <= 100:
        raise ValueError(f"lo, hi: need 0 <= lo <= hi <= 100, got [{lo}, {hi}]")
    return lo, hi


#: the potential, JSON k-polynomials in (k, h): h(2k+1), 1, -h, h^2 k^2 + h k + h/2
POTENTIAL = {"f": _kpj([0, 1], [0, 2]), "xx": _kpj(1), "xg": _kpj([0, -1]),
             "gg": _kpj([0, Fraction(1, 2)], [0, 1], [0, 0, 1])}
#: the bound 1/(4 N h + 2) as k-polynomials in N
BOUND = (_kpj(1), _kpj(2, [0, 4]))


def tight_gd_statement(lo: Any = Fraction(1, 100), hi: Any = 1, bound: tuple[Any, Any] = BOUND,
                       potential: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``"pep-potential"`` statement (JSON) ``f(x_N) - f* <= L D0 num(N, h)/den(N, h)`` for every ``N >= 1`` and
    ``h`` in ``[lo, hi]``, proved by the potential above (default bound ``1/(4 N h + 2)``)."""
    from fairtheory.proofs.certificate import potential_statement

    lo, hi = _range(lo, hi)
    return potential_statement("gd", lo=lo, hi=hi, terms=dict(potential or POTENTIAL), initial=(["1"], ["1"]),
                               bound=bound)


#: the multipliers (JSON k-polynomials; final: k = N - 1) and the final scale, shared by both certificate forms
STEP = {"star_x": _kpj([0, 1]), "star_x+": _kpj([0, 1]), "x_x+": _kpj([2, 2], [2, 4], [0, 2]),
        "x+_x": _kpj(2, [2, 2], [0, 2])}
INITIAL = {"star_x0": _kpj([0, 1]), "distance": _kpj(1)}
FINAL = {"star_x": _kpj([2, 1], [0, 2])}          # 2 h N + 2 - h at N = k + 1
FINAL_SCALE = _kpj([1, 1], [0, 1])                # h N + 1 at N = k + 1


def tight_gd_certificate(lo: Any = Fraction(1, 100), hi: Any = 1, *, bound: tuple[Any, Any] = BOUND,
                         step: Mapping[str, Any] | None = None, potential: Mapping[str, Any] | None = None
                         ) -> dict[str, Any]:
    """The ``"pep-potential"`` certificate (``kind``, ``version``, ``statement``, ``evidence``) for the kernel's
    existing rule; ``bound``, ``step`` (multipliers by name, as :data:`STEP`) and ``potential`` may be replaced to
    build forgeries.  Checked by :func:`fairtheory_kernel.potential_kernel.check_potential`."""
    from fairtheory_kernel import potential_kernel as K

    def row(ob: Any, i: int, xj: Any, xk: Any) -> int:
        """Index of client ``i``'s interpolation row ``(x_j, x_k)`` in the kernel's order (``None``: ``x*``): pairs of
        the client's points, ``x*`` first, ordered pairs row-major without the diagonal."""
        off = sum(len(pts) * (len(pts) - 1) for pts in ob.b.points[:i])
        xs = [x for x, _, _ in ob.b.points[i]]
        j, k = xs.index({} if xj is None else xj), xs.index({} if xk is None else xk)
        return off + j * (len(xs) - 1) + (k if k < j else k - 1)

    st = tight_gd_statement(lo, hi, bound, potential)
    obs = K.obligations(K.canonical(st))
    ob = obs["step"][0]
    x, xp = ob.b.points[0][1][0], ob.b.points[0][2][0]
    m = dict(STEP) | dict(step or {})
    ev_step = {"denominator": ["1"], "multipliers": [
        [row(ob, 0, None, x), m["star_x"]], [row(ob, 0, None, xp), m["star_x+"]],
        [row(ob, 0, x, xp), m["x_x+"]], [row(ob, 0, xp, x), m["x+_x"]]]}
    ob, rows = obs["initial"]
    ev_init = {"denominator": ["1"], "multipliers": [[row(ob, 0, None, ob.b.points[0][1][0]), INITIAL["star_x0"]],
                                                     [len(rows) - 1, INITIAL["distance"]]]}
    ob = obs["final"][0]
    ev_final = {"denominator": ["1"], "multipliers": [[row(ob, 0, None, ob.b.points[0][1][0]), FINAL["star_x"]]],
                "scale": [[0, FINAL_SCALE]]}
    return {"kind": "pep-potential", "version": 1, "statement": st,
            "evidence": {"step": ev_step, "initial": ev_init, "final": ev_final},
            "meta": {"source": "fairtheory.proofs.tight_gd (docs/tight_gd.md)"}}


def prototype_certificate(lo: Any = Fraction(1, 100), hi: Any = 1, *, bound: tuple[Any, Any] = BOUND,
                          step: Mapping[str, Any] | None = None, potential: Mapping[str, Any] | None = None,
                          step_slack: Any = None) -> dict[str, Any]:
    """The same proof in the explicit rank-one form read by :func:`check_prototype` (all numbers rational strings;
    vectors over the obligation's basis: step ``(x_k, g_k, g_(k+1))``, initial and final ``(x, g)``)."""
    lo, hi = _range(lo, hi)
    c = _kpj([2, 0, -1], [2, 2, -2], [0, 2, -1])  # (k+1)(2 - h^2 + k h (2 - h))
    return {"kind": "tight-gd-prototype", "version": 1,
            "statement": {"lo": _s(lo), "hi": _s(hi), "bound": {"num": bound[0], "den": bound[1]},
                          "potential": dict(potential or POTENTIAL), "initial": ["1"]},
            "step": {"multipliers": dict(STEP) | dict(step or {}),
                     "slack": step_slack if step_slack is not None else [[c, [_kpj(0), _kpj(1), _kpj(-1)]]]},
            "initial": {"multipliers": dict(INITIAL), "slack": []},
            "final": {"multipliers": dict(FINAL), "slack": [[_kpj(1), [_kpj(1), _kpj([-1, -1], [0, -1])]]]}}


# ------------------------------------------------------------------------------------------------ prototype check
def _obligations(pot: Mapping[str, KH], B0: Any, bnum: KH, bden: KH) -> dict[str, tuple[list[Any], dict[str, Form], int]]:
    """Each obligation ``E`` (a form in ``(k, h)``, ``E <= 0`` to prove), its rows by name, its basis size."""
    out = {}
    # step: basis x = 0, g = 1, g+ = 2; x+ = x - h g
    x, g, g1 = {0: ONE}, {1: ONE}, {2: ONE}
    x1 = _vadd(x, g, -H)
    P0, P1 = (x, g, "f"), (x1, g1, "f+")
    E = _form()
    _phi({n: c.shift() for n, c in pot.items()}, x1, g1, "f+", E, ONE)
    _phi(pot, x, g, "f", E, -ONE)
    out["step"] = (E, {"star_x": _row(STAR, P0), "star_x+": _row(STAR, P1), "x_x+": _row(P0, P1),
                       "x+_x": _row(P1, P0)}, 3)
    # initial: basis x0 = 0, g0 = 1; phi_0(x0) - B0 <= 0; distance row ||x0||^2 - 1 <= 0
    x, g = {0: ONE}, {1: ONE}
    E = _form()
    _phi({n: KH(c.c[:1]) for n, c in pot.items()}, x, g, "f", E, ONE)
    E[2] = KH([-B0])
    dist = _square(x)
    dist = (dist[0], {}, KH([P(-1)]))
    out["initial"] = (E, {"star_x0": _row(STAR, (x, g, "f")), "distance": dist}, 2)
    # final at N = k + 1: B0 den(N) f - num(N) phi_N <= 0
    E = _form()
    E[1]["f"] = bden.shift() * KH([B0])
    _phi({n: c.shift() for n, c in pot.items()}, x, g, "f", E, -bnum.shift())
    out["final"] = (E, {"star_x": _row(STAR, (x, g, "f"))}, 2)
    return out


def _parse(cert: Any) -> tuple[Fraction, Fraction, dict[str, KH], Any, KH, KH, dict[str, Any]]:
    if not isinstance(cert, Mapping) or cert.get("kind") != "tight-gd-prototype" or cert.get("version") != 1:
        raise ValueError("cert: a dict with kind 'tight-gd-prototype' and version 1")
    st = cert["statement"]
    if set(st) != {"lo", "hi", "bound", "potential", "initial"}:
        raise ValueError("statement: exactly the keys lo, hi, bound, potential, initial")
    lo, hi = _range(st["lo"], st["hi"])
    if not isinstance(st["potential"], Mapping) or not set(st["potential"]) <= {"f", "xx", "xg", "gg"}:
        raise ValueError("statement.potential: a map from f, xx, xg, gg to k-polynomials")
    pot = {n: KH.parse(v, f"potential {n}") for n, v in st["potential"].items()}
    B0 = _tpoly(st["initial"], "initial")
    bnum, bden = KH.parse(st["bound"]["num"], "bound num"), KH.parse(st["bound"]["den"], "bound den")
    obs = {}
    for name in ("step", "initial", "final"):
        o = cert[name]
        mult = {r: KH.parse(v, f"{name} multiplier {r}") for r, v in o["multipliers"].items()}
        slack = [(KH.parse(w, f"{name} slack weight"), [KH.parse(e, f"{name} slack vector") for e in v])
                 for w, v in o["slack"]]
        obs[name] = (mult, slack)
    return lo, hi, pot, B0, bnum, bden, obs


def _scalars(lo: Fraction, hi: Fraction, B0: Any, bnum: KH, bden: KH) -> str:
    if not pos_on(B0, lo, hi):
        return "the initial bound B0 is not positive on the range"
    n1, d1 = bnum.shift(), bden.shift()  # in k = N - 1 >= 0
    if not nonneg_k(n1, lo, hi):
        return "the bound's numerator is negative for some N >= 1"
    if not (d1.c and pos_on(d1.c[0], lo, hi) and nonneg_k(d1, lo, hi)):
        return "the bound's denominator is not positive for some N >= 1"
    return ""


def _check_identity(E: list[Any], rows: Mapping[str, Form], mult: Mapping[str, KH],
                    slack: Sequence[tuple[KH, list[KH]]], dim: int,
                    nonneg: Callable[[KH], bool], ev: Callable[[KH], KH]) -> str:
    """``E - sum_r lambda_r row_r + sum_j w_j (v_j . z)^2 = 0`` identically, every ``lambda_r``, ``w_j >= 0``."""
    if not set(mult) <= set(rows):
        return f"unknown row {sorted(set(mult) - set(rows))[0]!r}"
    R = _form()
    _fadd(R, (E[0], E[1], E[2]), ONE)
    for r, lam in mult.items():
        lam = ev(lam)
        if not nonneg(lam):
            return f"the multiplier of row {r} is negative somewhere"
        _fadd(R, rows[r], -lam)
    for w, v in slack:
        w = ev(w)
        if len(v) != dim:
            return f"a slack vector has {len(v)} entries, the basis {dim}"
        if not nonneg(w):
            return "a slack weight is negative somewhere"
        _fadd(R, _square({i: ev(e) for i, e in enumerate(v)}), w)
    bad = _identity_zero([{k: ev(v) for k, v in R[0].items()}, {k: ev(v) for k, v in R[1].items()}, ev(R[2])])
    return f"the identity fails at {bad}" if bad else ""


def check_prototype(cert: Any) -> tuple[bool, str]:
    """Exact check **symbolically in ``k``** (hence for every ``N >= 1``) of a ``"tight-gd-prototype"`` certificate:
    ``(True, "")`` or ``(False, the first failure)``.  Decided: the scalar conditions (``B0 > 0``, the bound's
    numerator ``>= 0`` and denominator ``> 0`` for ``N >= 1``), and for each obligation the identity in
    ``Q[k, h]`` and every multiplier and slack weight ``>= 0`` coefficient-wise in ``k`` on ``[lo, hi]``.  Then
    ``phi_N(x_N) <= ... <= phi_0(x_0) <= B0`` and the final relation give ``f(x_N) - f* <= num(N)/den(N)``."""
    try:
        lo, hi, pot, B0, bnum, bden, obs = _parse(cert)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return False, f"malformed: {exc}"
    why = _scalars(lo, hi, B0, bnum, bden)
    if why:
        return False, why
    for name, (E, rows, dim) in _obligations(pot, B0, bnum, bden).items():
        mult, slack = obs[name]
        why = _check_identity(E, rows, mult, slack, dim, lambda a: nonneg_k(a, lo, hi), lambda a: a)
        if why:
            return False, f"{name} obligation: {why}"
    return True, ""


def check_prototype_at(cert: Any, N_max: int) -> tuple[bool, str]:
    """The same certificate checked at **each integer** ``N = 1..N_max`` separately: every step ``k = 0..N_max - 1``
    and the final relation at every ``N`` with ``k`` substituted (identities in ``Q[h]``, multipliers and weights
    ``>= 0`` on ``[lo, hi]`` at that ``k``), the initial once, and ``den(N) > 0``, ``num(N) >= 0``.  Independent of the
    coefficient-wise rule in ``k`` (it would also accept a certificate that is valid only at those ``N``)."""
    if isinstance(N_max, bool) or not isinstance(N_max, int) or not 1 <= N_max <= 100_000:
        raise ValueError(f"N_max: an integer in [1, 100000], got {N_max!r}")
    try:
        lo, hi, pot, B0, bnum, bden, obs = _parse(cert)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return False, f"malformed: {exc}"
    if not pos_on(B0, lo, hi):
        return False, "the initial bound B0 is not positive on the range"
    obl = _obligations(pot, B0, bnum, bden)
    one = lambda a: nonneg_on(a.at(0), lo, hi)  # noqa: E731 - a is already evaluated (constant in k)
    E, rows, dim = obl["initial"]
    why = _check_identity(E, rows, *obs["initial"], dim, one, lambda a: KH([a.at(0)]))
    if why:
        return False, f"initial obligation: {why}"
    for k in range(N_max):
        at = lambda a, k=k: KH([a.at(k)])  # noqa: E731
        for name in ("step", "final"):
            E, rows, dim = obl[name]
            why = _check_identity(E, rows, *obs[name], dim, one, at)
            if why:
                return False, f"{name} obligation at {'k' if name == 'step' else 'N'} = {k + (name == 'final')}: {why}"
        if not (pos_on(bden.at(k + 1), lo, hi) and nonneg_on(bnum.at(k + 1), lo, hi)):
            return False, f"the bound at N = {k + 1} has a non-positive denominator or a negative numerator"
    return True, ""


# ------------------------------------------------------------------------------------------------ comparisons
def compare_with_drori_teboulle(statement: Mapping[str, Any], N_max: int = 1000) -> tuple[bool, str]:
    """Whether a ``"pep-potential"`` gd statement's bound equals ``1/(4 N h + 2)`` **exactly** (as rational functions
    of ``h``: ``num(N, h) (4 N h + 2) = den(N, h)``) at every ``N = 1..N_max``, and its range lies in ``[0, 1]``
    (where Drori & Teboulle's value is the exact worst case)."""
    from fairtheory_kernel import potential_kernel as K

    st = K.canonical(statement)
    if st["method"]["name"] != "gd" or st["parameter"]["hi"] > 1:
        return False, "not gradient descent on a range inside [0, 1]"
    num, den = st["bound"]["num"], st["bound"]["den"]
    for N in range(1, N_max + 1):
        n = sum((P(c.coeffs()) * N ** m for m, c in enumerate(num)), P(0))
        d = sum((P(c.coeffs()) * N ** m for m, c in enumerate(den)), P(0))
        if n * P([2, 4 * N]) != d:
            return False, f"N = {N}: the bound is {n}/({d}), not 1/(4 N h + 2)"
    return True, ""


def huber_instance(N: int, h: Fraction) -> tuple[Callable[[Fraction], Fraction], Callable[[Fraction], Fraction]]:
    """Drori & Teboulle's worst function for ``N`` steps of size ``h`` (``L = 1``, ``x_0 = 1``, ``x* = 0``): the
    Huber function ``f(x) = a |x| - a^2/2`` for ``|x| >= a``, ``x^2/2`` otherwise, ``a = 1/(2 N h + 1)``; then
    ``f(x_N) = 1/(4 N h + 2)`` exactly.  Returns ``(f, f')`` on rationals."""
    a = 1 / (2 * N * Fraction(h) + 1)

    def f(x: Fraction) -> Fraction:
        return a * abs(x) - a * a / 2 if abs(x) >= a else x * x / 2

    def df(x: Fraction) -> Fraction:
        return (a if x > 0 else -a) if abs(x) >= a else x

    return f, df


def run_gd(df: Callable[[Fraction], Fraction], x0: Fraction, h: Fraction, N: int) -> Fraction:
    """``N`` exact gradient steps ``x <- x - h f'(x)`` on rationals."""
    x = Fraction(x0)
    for _ in range(N):
        x -= Fraction(h) * df(x)
    return x


def check_full_pep(N: int, lo: Any = Fraction(1, 100), hi: Any = 1) -> tuple[bool, str]:
    """The telescoped certificate as an exact dual of the whole ``N``-step PEP (basis ``x_0, g_0, ..., g_N``):
    ``(4 N h + 2) f_N - ||x_0||^2 = sum_r lambda_r row_r - S(N)`` with ``S(N) = sum_(k<N) c_k (g_k - g_(k+1))^(x2) +
    (x_N - (h N + 1) g_N)^(x2)``, ``c_k = (k+1)(2 - h^2 + k h (2 - h))``, checked as an identity in ``Q[h]`` with every
    multiplier and ``c_k >= 0`` on ``[lo, hi]``: so ``f_N - f* <= 1/(4 N h + 2)`` for ``||x_0 - x*||^2 <= 1``."""
    if isinstance(N, bool) or not isinstance(N, int) or not 1 <= N <= 200:
        raise ValueError(f"N: an integer in [1, 200], got {N!r}")
    lo, hi = _range(lo, hi)
    Hh = KH([P([0, 1])])
    xs: list[Vec] = [{0: ONE}]
    for k in range(N):
        xs.append(_vadd(xs[-1], {k + 1: ONE}, -Hh))
    pts = [(xs[k], {k + 1: ONE}, f"f{k}") for k in range(N + 1)]
    mult = {name: KH.parse(v, name) for name, v in (STEP | INITIAL).items()}
    final = KH.parse(FINAL["star_x"], "final")
    R = _form()  # E - sum lambda row + S, E = (4 N h + 2) f_N - ||x_0||^2 (then ||x_0||^2 <= 1 gives the bound)
    R[1][f"f{N}"] = KH([P([2, 4 * N])])
    _ip(xs[0], xs[0], -ONE, R[0])
    lam: dict[tuple[int, int], Any] = {}  # (i, j) -> multiplier in h; -1 is x*

    def use(i: int, j: int, m: Any) -> None:
        lam[(i, j)] = lam.get((i, j), P(0)) + m

    for k in range(N):  # step k, multipliers at k
        use(-1, k, mult["star_x"].at(k))
        use(-1, k + 1, mult["star_x+"].at(k))
        use(k, k + 1, mult["x_x+"].at(k))
        use(k + 1, k, mult["x+_x"].at(k))
    use(-1, 0, mult["star_x0"].at(0))
    use(-1, N, final.at(N - 1))
    for (i, j), m in lam.items():
        if not nonneg_on(m, lo, hi):
            return False, f"the multiplier of row {(i, j)} is negative on the range"
        _fadd(R, _row(STAR if i < 0 else pts[i], STAR if j < 0 else pts[j]), -KH([m]))
    c = KH.parse(_kpj([2, 0, -1], [2, 2, -2], [0, 2, -1]), "c")
    for k in range(N):
        ck = c.at(k)
        if not nonneg_on(ck, lo, hi):
            return False, f"the slack weight c_{k} is negative on the range"
        _fadd(R, _square({k + 1: ONE, k + 2: -ONE}), KH([ck]))
    _fadd(R, _square(_vadd(xs[N], {N + 1: ONE}, -KH([P([1, N])]))), ONE)
    bad = _identity_zero(R)
    return (False, f"the identity fails at {bad}") if bad else (True, "")


def drori_teboulle_slack(N: int, h: Any, bound: Any = None) -> tuple[bool, int]:
    """Drori & Teboulle's dual at one ``h``: rows ``(x_(i-1), x_i)`` times ``lambda_i = i/(2N + 1 - i)``, ``(x*, x_i)``
    times ``lambda_(i+1) - lambda_i`` (``lambda_0 = 0``, the last ``1 - lambda_N``), ``bound`` (default
    ``1/(4 N h + 2)``) on ``||x_0||^2``.  Returns ``(S(N) is PSD, rank S(N))``, decided exactly by a symmetric
    elimination over ``Q`` (function values cancel by construction; asserted)."""
    if isinstance(N, bool) or not isinstance(N, int) or not 1 <= N <= 100:
        raise ValueError(f"N: an integer in [1, 100], got {N!r}")
    hq = _q(h, "h")
    Hh = KH([P([_fq(hq)])])
    xs: list[Vec] = [{0: ONE}]
    for k in range(N):
        xs.append(_vadd(xs[-1], {k + 1: ONE}, -Hh))
    pts = [(xs[k], {k + 1: ONE}, f"f{k}") for k in range(N + 1)]
    lam = [Fraction(i, 2 * N + 1 - i) for i in range(N + 1)]
    S = _form()  # S = tau ||x0||^2 + sum lambda row - f_N (Gram part); F part must vanish
    tau = Fraction(1) / (4 * N * hq + 2) if bound is None else _q(bound, "bound")
    _ip(xs[0], xs[0], KH([P([_fq(tau)])]), S[0])
    S[1][f"f{N}"] = -ONE
    for i in range(1, N + 1):
        _fadd(S, _row(pts[i - 1], pts[i]), KH([P([_fq(lam[i])])]))
    for i in range(N + 1):
        tau = (lam[i + 1] if i < N else Fraction(1)) - lam[i]
        _fadd(S, _row(STAR, pts[i]), KH([P([_fq(tau)])]))
    assert all(v.is_zero() for v in S[1].values()), "function values do not cancel"
    n = N + 2
    M = [[Fraction(0)] * n for _ in range(n)]
    for (i, j), v in S[0].items():
        c = v.at(0).coeffs()
        val = Fraction(int(c[0].p), int(c[0].q)) if c else Fraction(0)
        if i == j:
            M[i][i] = val
        else:
            M[i][j] = M[j][i] = val / 2
    return _psd_rank(M)


def _psd_rank(M: list[list[Fraction]]) -> tuple[bool, int]:
    """Exact PSD test and rank of a symmetric rational matrix (symmetric Gaussian elimination, diagonal pivots)."""
    M = [row[:] for row in M]
    n, rank = len(M), 0
    alive = list(range(n))
    while alive:
        p = next((i for i in alive if M[i][i] != 0), None)
        if p is None:  # every remaining diagonal entry zero: PSD iff the rest is zero
            return all(M[i][j] == 0 for i in alive for j in alive), rank
        if M[p][p] < 0:
            return False, rank
        rank += 1
        alive.remove(p)
        for i in alive:
            f = M[i][p] / M[p][p]
            if f:
                for j in alive:
                    M[i][j] -= f * M[p][j]
    return True, rank


# ------------------------------------------------------------------------------------------------ untrusted search
def horizon_independent_ratio(h: float, K: int, *, per_horizon: bool = False) -> float:
    """Untrusted float SDP (cvxpy + Clarabel) that found the potential: the largest ``s`` such that ONE potential
    sequence ``phi_k = a_k f_k + b_k ||x_k||^2 + c_k <x_k, g_k> + d_k ||g_k||^2`` (``k = 0..K``, free per ``k``)
    satisfies ``phi_0 <= ||x_0||^2``, ``phi_(k+1) <= phi_k`` and ``(4 N h + 2) s f_N <= phi_N`` for every
    ``N = 1..K`` (each a small PEP over all interpolation rows among ``x*`` and the obligation's points).  ``s = 1``
    means the template proves Drori & Teboulle's tight bound at every ``N <= K`` at once; ``per_horizon`` asks it
    at ``N = K`` only (an iteration-dependent analysis)."""
    import cvxpy as cp
    import numpy as np

    def sym(u: Any, v: Any) -> Any:
        return 0.5 * (np.outer(u, v) + np.outer(v, u))

    def certify(points: list[Any], EG: Any, EF: dict[str, Any]) -> list[Any]:
        G, F = 0, {}
        for i, (xi, gi, fi) in enumerate(points):
            for j, (xj, gj, fj) in enumerate(points):
                if i != j:
                    lam = cp.Variable(nonneg=True)
                    G = G + lam * (sym(gj, xi - xj) + 0.5 * np.outer(gi - gj, gi - gj))
                    for name, sgn in ((fj, 1), (fi, -1)):
                        if name is not None:
                            F[name] = F.get(name, 0) + sgn * lam
        S = G - EG
        return [F.get(n, 0) - EF.get(n, 0) == 0 for n in set(F) | set(EF)] + [(S + S.T) / 2 >> 0]

    a, b, c, d = (cp.Variable(K + 1) for _ in range(4))
    s = cp.Variable()

    def Qf(k: int, x: Any, g: Any) -> Any:
        return b[k] * np.outer(x, x) + c[k] * sym(x, g) + d[k] * np.outer(g, g)

    e3, z3, e2, z2 = np.eye(3), np.zeros(3), np.eye(2), np.zeros(2)
    cons = []
    for k in range(K):
        x, g, g1 = e3
        x1 = x - h * g
        cons += certify([(z3, z3, None), (x, g, "f"), (x1, g1, "f1")], Qf(k + 1, x1, g1) - Qf(k, x, g),
                        {"f1": a[k + 1], "f": -a[k]})
    pts = [(z2, z2, None), (e2[0], e2[1], "f")]
    cons += certify(pts, Qf(0, e2[0], e2[1]) - np.outer(e2[0], e2[0]), {"f": a[0]})
    for N in ([K] if per_horizon else range(1, K + 1)):
        cons += certify(pts, -Qf(N, e2[0], e2[1]), {"f": (4 * N * h + 2) * s - a[N]})
    cp.Problem(cp.Maximize(s), cons).solve(solver="CLARABEL")
    return float(s.value)
