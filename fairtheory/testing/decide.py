r"""Deciding properties of an objective written in the term language (:mod:`fairtheory.testing.expr`).

The proposers below write kernel statements and certificates (JSON) for the objectives of one template,
``A(f) = alpha mean(f) + beta std(f) + gamma`` (``alpha > 0`` and ``gamma`` rationals, ``beta`` a rational or a
rational ``c`` times one parameter ``lambda`` whose range ends are numbers or ``c'/sqrt(n - 1)``); nothing here is
trusted: every certificate is re-checked by :func:`fairtheory_kernel.check.check_proof`, and one it refuses never
makes a row ``proved`` / ``refuted``.  The mathematics (docs/audit.md has it in full):

*Monotone in each loss* (``mu = beta/alpha``): for ``n = k + 1 >= 2`` clients with losses ``f_1..f_k`` and ``x``
(the raised loss; by permutation invariance of the language any client can be put last), ``d >= 0``, ``s, t > 0``
the standard deviations before and after raising ``x`` by ``d``, ``u = m - x``, ``u' = m' - x - d``::

    A(x + d) - A(x) = alpha [d/n + mu (t - s)],        s^2 - t^2 = (d/n)(u + u'),
    2 s (s - mu u) = (s - mu u)^2 + s^2 (1 - mu^2 k) + mu^2 (k s^2 - u^2),
    k s^2 - u^2 = (1/n) sum_{i<=k} k (f_i - a)^2   (a = mean of f_1..f_k; Cauchy-Schwarz as one sum of squares),

so ``d/n + mu (t - s) = d/(n (s + t)) [(s - mu u) + (t - mu u')] >= 0`` whenever ``mu^2 k <= 1``: the statement
holds on the points with ``s, t > 0``, which are dense; both sides are continuous, so it holds everywhere.  When
``mu^2 k > 1`` for some ``n`` and a rational parameter value in range, ``f = (1, ..., 1, 0)`` raised by ``1 - 1/p``
lowers ``A`` (:func:`monotone_counterexample`; a chain proves the margin when ``sqrt(k)`` is irrational).

*Between mean and max* (:func:`between_certificate`): ``A - mean = beta s`` and Samuelson's inequality
``s <= sqrt(n - 1) (max - mean)`` as one sum over the losses written ``M - g_i`` with ``0 <= g_i <= G = sum g``.

*Convex* (:func:`convex_certificate`): ``std`` is a norm; the triangle inequality from Cauchy-Schwarz as one sum.

*Nondecreasing in the parameter*: ``A(lambda + e) - A(lambda) = c e std(f) >= 0`` for ``beta = c lambda``, ``c >= 0``.

*Permutation invariant*: holds by construction (every objective of the language reaches ``f`` through symmetric
aggregates only); no kernel rule states it, so the row is ``checked`` and says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory.errors import FairtheoryValueError
from fairtheory.proofs.symbolic import IDX, E, at, q, sm, v
from fairtheory.testing.expr import AGGREGATES, Objective, Untranslatable

__all__ = ["Decision", "ExpressionAudit", "decide_property", "PROPERTIES", "STATUSES", "affine_form", "Affine",
           "monotone_certificate", "monotone_counterexample", "parameter_certificate", "parameter_counterexample",
           "between_certificate", "between_counterexample", "convex_certificate", "convex_counterexample",
           "eval_term"]

#: the properties an expression audit decides, in report order
PROPERTIES = ("monotone", "convex", "permutation_invariant", "between_mean_and_max", "parameter_monotone")
#: the statuses of a row
STATUSES = ("proved", "refuted", "checked", "not applicable")
CITATION = "fairtheory.testing.audit"


@dataclass(frozen=True)
class Decision:
    """One property of an expression objective.

    ``status``: ``"proved"`` (``certificate`` a ``"symbolic"`` certificate the kernel re-checked), ``"refuted"``
    (``certificate`` a re-checked ``"counterexample"`` certificate), ``"checked"`` (numeric only: ``reason`` says why
    it was not decided) or ``"not applicable"``.  ``statement``: the certificate's statement in the kernel's words;
    ``numeric``: the Hypothesis search's outcome (``"held"`` / ``"violated"`` with the example) beside it."""

    property: str
    status: str
    reason: str
    certificate: dict[str, Any] | None = None
    statement: str = ""
    numeric: str = ""
    numeric_counterexample: dict[str, Any] | None = None

    @property
    def decided(self) -> bool:
        return self.status in ("proved", "refuted")

    @property
    def agrees(self) -> bool:
        """False when the numeric search contradicts the exact decision (a proved row violated numerically: that
        is a kernel or proposer bug to report)."""
        return not (self.status == "proved" and self.numeric.startswith("violated"))


@dataclass
class ExpressionAudit:
    """What :func:`fairtheory.testing.audit` returns for an objective given as text."""

    objective: str
    params: dict[str, Any]
    rows: list[Decision] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Decision:
        for r in self.rows:
            if r.property == name:
                return r
        raise KeyError(name)

    def statuses(self) -> dict[str, str]:
        """``{property: status}``."""
        return {r.property: r.status for r in self.rows}

    def table(self) -> str:
        """A plain-text table: property, status, reason, and the numeric search's outcome in brackets."""
        lines = [f"audit of {self.objective!r} with {self.params or 'no parameters'}",
                 f"{'property':22s} {'status':15s} reason [numeric search]"]
        for r in self.rows:
            lines.append(f"{r.property:22s} {r.status:15s} {r.reason}" + (f" [{r.numeric}]" if r.numeric else ""))
        return "\n".join(lines)

    __str__ = table


# ------------------------------------------------------------------------------------------ the template
@dataclass(frozen=True)
class Affine:
    """``A = alpha mean(f) + beta std(f) + gamma``: ``alpha``, ``gamma`` rationals, ``beta = c0`` (``param`` None) or
    ``c1 * param``."""

    alpha: Fraction
    gamma: Fraction
    coef: Fraction
    param: str | None


def _lin(t: tuple) -> dict[str, dict[tuple, Fraction]] | None:
    """``t`` as ``{atom: {monomial: coefficient}}`` with atoms ``"1"``, ``"mean"``, ``"std"`` and monomials tuples
    of parameter names, or None when ``t`` is not of that form."""
    h = t[0]
    if h == "num":
        return {"1": {(): t[1]}}
    if h == "par":
        return {"1": {(t[1],): Fraction(1)}}
    if h == "call" and t[1] in ("mean", "std") and t[2] == (("f",),):
        return {t[1]: {(): Fraction(1)}}
    if h == "neg":
        a = _lin(t[1])
        return None if a is None else _scale(a, {(): Fraction(-1)})
    if h in ("+", "-"):
        a, b = _lin(t[1]), _lin(t[2])
        if a is None or b is None:
            return None
        b = b if h == "+" else _scale(b, {(): Fraction(-1)})
        out: dict[str, dict[tuple, Fraction]] = {}
        for x in (a, b):
            for k, poly in x.items():
                for m, c in poly.items():
                    out.setdefault(k, {})[m] = out.get(k, {}).get(m, Fraction(0)) + c
        return out
    if h == "*":
        a, b = _lin(t[1]), _lin(t[2])
        if a is None or b is None:
            return None
        if set(a) == {"1"}:
            return _scale(b, a["1"])
        if set(b) == {"1"}:
            return _scale(a, b["1"])
        return None
    if h == "/":
        a, b = _lin(t[1]), _lin(t[2])
        if a is None or b is None or set(b) != {"1"} or set(b["1"]) != {()} or b["1"][()] == 0:
            return None
        return _scale(a, {(): 1 / b["1"][()]})
    return None


def _scale(a: dict[str, dict[tuple, Fraction]], p: dict[tuple, Fraction]) -> dict[str, dict[tuple, Fraction]]:
    out: dict[str, dict[tuple, Fraction]] = {}
    for k, poly in a.items():
        for m1, c1 in poly.items():
            for m2, c2 in p.items():
                m = tuple(sorted(m1 + m2))
                out.setdefault(k, {})[m] = out.get(k, {}).get(m, Fraction(0)) + c1 * c2
    return out


def affine_form(obj: Objective) -> Affine | None:
    """The template's coefficients of ``obj``, or None when ``obj`` is not ``alpha mean + beta std + gamma`` with a
    rational ``alpha > 0``, rational ``gamma`` and ``beta`` a rational or a rational times one parameter."""
    lin = _lin(obj.tree)
    if lin is None:
        return None
    clean = {k: {m: c for m, c in p.items() if c != 0} for k, p in lin.items()}
    al, ga, be = clean.get("mean", {}), clean.get("1", {}), clean.get("std", {})
    if set(al) != {()} or not set(ga) <= {()} or al[()] <= 0:
        return None
    mentioned = sorted(_names(obj.tree))
    if len(mentioned) > 1:
        return None
    if not be:  # a parameter with coefficient 0 still names a symbol of the statements
        return Affine(al[()], ga.get((), Fraction(0)), Fraction(0), mentioned[0] if mentioned else None)
    if len(be) != 1:
        return None
    (m, c), = be.items()
    if len(m) > 1 or (not m and mentioned):
        return None
    return Affine(al[()], ga.get((), Fraction(0)), c, m[0] if m else None)


def _names(t: tuple) -> set[str]:
    if t[0] == "par":
        return {t[1]}
    if t[0] == "call":
        return set().union(*[_names(a) for a in t[2]])
    return set().union(set(), *[_names(a) for a in t[1:] if isinstance(a, tuple)])


# ------------------------------------------------------------------------------------------ ranges
@dataclass(frozen=True)
class End:
    """A range end: ``c`` (``sqrt`` False) or ``c / sqrt(n - 1)`` (``sqrt`` True, ``c >= 0``)."""

    c: Fraction
    sqrt: bool

    def at(self, n: int) -> float:
        return float(self.c) / math.sqrt(n - 1) if self.sqrt else float(self.c)

    def exact_at_square(self, j: int) -> Fraction:
        """The value at ``n = j^2 + 1`` (rational)."""
        return self.c / j if self.sqrt else self.c


def _const(t: tuple) -> Fraction | None:
    h = t[0]
    if h == "num":
        return t[1]
    if h == "neg":
        a = _const(t[1])
        return None if a is None else -a
    if h in ("+", "-", "*", "/"):
        a, b = _const(t[1]), _const(t[2])
        if a is None or b is None or (h == "/" and b == 0):
            return None
        return a + b if h == "+" else a - b if h == "-" else a * b if h == "*" else a / b
    return None


def _end(t: tuple) -> End | None:
    c = _const(t)
    if c is not None:
        return End(c, False)
    sq = ("call", "sqrt", (("-", ("n",), ("num", Fraction(1))),))
    if t == sq:
        return End(Fraction(1), True)
    if t[0] == "/" and t[2] == sq:
        c = _const(t[1])
        if c is not None and c >= 0:
            return End(c, True)
    return None


def _range_assumptions(lo: End, hi: End, lam: E, km1: E) -> list[dict[str, Any]] | None:
    """Assumptions equivalent to ``lo <= lam <= hi`` with ``km1 = n - 1`` (None when a ``sqrt`` end has a possibly
    negative partner: squaring would not be an equivalence)."""
    out = []
    if lo.sqrt or hi.sqrt:
        if (not lo.sqrt and lo.c < 0) or lo.c < 0:
            return None
    if lo.sqrt:  # c/sqrt(n-1) <= lam with lam >= 0  <=>  c^2 <= lam^2 (n-1), lam >= 0
        out += [_asm("<=", q(0), lam), _asm("<=", q(lo.c ** 2), lam ** 2 * km1)]
    else:
        out.append(_asm("<=", q(lo.c), lam))
    if hi.sqrt:  # lam <= c/sqrt(n-1) with lam >= 0  <=>  lam^2 (n-1) <= c^2
        out.append(_asm("<=", lam ** 2 * km1, q(hi.c ** 2)))
    else:
        out.append(_asm("<=", lam, q(hi.c)))
    return out


def _asm(rel: str, lhs: Any, rhs: Any) -> dict[str, Any]:
    return {"rel": rel, "lhs": E.lift(lhs), "rhs": E.lift(rhs)}


# ------------------------------------------------------------------------------------------ terms
def _split_term(obj: Objective, x: E, k: E, sd: E | None, member: Callable[[Any], Any] | None = None) -> E:
    """The objective at the loss vector ``(f_1, ..., f_k, x)`` (``n = k + 1``), ``std(f)`` written ``sd``; the
    member ``f_i`` is ``member(i)`` (default the family ``f``)."""
    member = (lambda i: ["at", "f", i]) if member is None else member
    from fairtheory.testing.expr import _Term

    class Split(_Term):
        def go(self, t: tuple, inside: bool) -> Any:
            if t[0] == "call" and t[1] in AGGREGATES and len(t[2]) == 1 and not inside:
                if t[1] == "std" and t[2] == (("f",),) and sd is not None:
                    return sd.t
                body = self.go(t[2][0], True)
                last = _Term(lambda i: x.t, self.count).go(t[2][0], True)
                if t[1] in ("max", "min"):
                    raise Untranslatable(f"{t[1]} over the clients")
                total = lambda b, lb: ["+", ["sum", b, ["q", "1"], k.t], lb]  # noqa: E731
                s = total(body, last)
                nn = (k + 1).t
                if t[1] == "sum":
                    return s
                mean = ["/", s, nn]
                if t[1] == "mean":
                    return mean
                var = ["+", ["/", total(["^", body, 2], ["^", last, 2]), nn], ["*", ["q", "-1"], ["^", mean, 2]]]
                return var if t[1] == "var" else ["rpow", var, ["q", "1/2"]]
            if t[0] == "n":
                return (k + 1).t
            return super().go(t, inside)

    return E(Split(member, (k + 1).t).go(obj.tree, False))


def _var_split(k: E, x: E) -> E:
    f = at("f", IDX)
    n = k + 1
    return (sm(f ** 2, 1, k) + x ** 2) / n - ((sm(f, 1, k) + x) / n) ** 2


def _var_full(n: E) -> E:
    f = at("f", IDX)
    return sm(f ** 2, 1, n) / n - (sm(f, 1, n) / n) ** 2


def _full_term(obj: Objective, sd: E, lam_value: E | None = None) -> E:
    """The objective for ``n`` clients (family ``f``, count ``n``), ``std(f)`` written ``sd`` and the parameter
    (if ``lam_value``) replaced."""
    from fairtheory.testing.expr import _Term

    class Full(_Term):
        def go(self, t: tuple, inside: bool) -> Any:
            if t[0] == "call" and t[1] == "std" and t[2] == (("f",),) and not inside:
                return sd.t
            if t[0] == "par" and lam_value is not None:
                return lam_value.t
            return super().go(t, inside)

    return E(Full(lambda i: ["at", "f", i], ["v", "n"]).go(obj.tree, False))


# ------------------------------------------------------------------------------------------ monotone
def _mono_statement(obj: Objective, aff: Affine, ranges: list[dict[str, Any]], positive: bool) -> tuple[dict, dict]:
    K, X, D, s, t, a = v("k"), v("x"), v("delta"), v("s"), v("t"), v("a")
    f = at("f", IDX)
    lam = [] if aff.param is None else [[aff.param, "real"]]
    kind = "positive" if positive else "nonnegative"
    symbols = [["k", "count"], ["f", "family_real"], ["x", "real"], ["delta", "nonnegative"], *lam, ["s", kind],
               ["t", kind], ["a", "real"]]
    assume = list(ranges) + [_asm("==", s ** 2, _var_split(K, X)), _asm("==", t ** 2, _var_split(K, X + D)),
                             _asm("==", K * a, sm(f, 1, K))]
    lhs, rhs = _split_term(obj, X, K, s), _split_term(obj, X + D, K, t)
    st = {"kind": "symbolic", "symbols": symbols, "assume": assume,
          "goals": [{"name": "raising the last loss does not lower A", "rel": "<=", "lhs": lhs.t, "rhs": rhs.t}]}
    return st, {"lhs": lhs, "rhs": rhs}


def _mu(aff: Affine) -> E:
    return q(aff.coef / aff.alpha) * (v(aff.param) if aff.param else q(1))


def monotone_certificate(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    r"""A ``"symbolic"`` certificate of monotonicity in each loss over the parameter range ``[lo, hi]``
    (module docstring), or None when the template's condition ``mu^2 (n - 1) <= 1`` is not implied by the range."""
    K, X, D, s, t, a = v("k"), v("x"), v("delta"), v("s"), v("t"), v("a")
    N = K + 1
    lam = v(aff.param) if aff.param else None
    ranges = [] if lam is None else _range_assumptions(lo, hi, lam, K)
    if ranges is None:
        return None
    # 1 - mu^2 k as a representation
    r = aff.coef / aff.alpha
    if lam is None or r == 0:
        if r != 0:
            return None
        cond: list[Any] = [["1", []]]
    else:
        if not hi.sqrt:
            return None
        j_hi = len(ranges) - 1
        rest = 1 - (r * hi.c) ** 2
        if rest < 0:
            return None
        cond = ([[str(rest), []]] if rest else []) + [[str(r * r), [["assume", j_hi]]]]
    st, sides = _mono_statement(obj, aff, ranges, positive=True)
    f = at("f", IDX)
    S = sm(f, 1, K)
    mu = _mu(aff)
    al = q(aff.alpha)
    u, u2 = (S + X) / N - X, (S + X + D) / N - X - D
    c = D / (N * (s + t))
    body = [["1", [["pos", K.t], ["sq", (f - a).t]]]]
    rep: list[Any] = []
    for z, w in ((s, u), (t, u2)):
        rep.append(["1", [["pos", (al * c / (2 * z)).t], ["sq", (z - mu * w).t]]])
        for coef, gens in cond:
            rep.append([coef, [["pos", (al * c * z / 2).t], *gens]])
        rep.append(["1", [["pos", (al * c / (2 * z * N)).t], ["sq", mu.t], ["sum", ["q", "1"], K.t, body]]])
    n_r = len(ranges)
    T1 = al * (mu / (s + t) - c * mu ** 2 * K / (2 * s))
    T2 = al * (-mu / (s + t) - c * mu ** 2 * K / (2 * t))
    T3 = -al * (c * mu ** 2 / (2 * N)) * (1 / s + 1 / t) * (S - K * a)
    asm = st["assume"]
    extra = E(T1.t) * (E(asm[n_r]["rhs"]) - E(asm[n_r]["lhs"])) + T2 * (E(asm[n_r + 1]["rhs"]) - E(asm[n_r + 1]["lhs"])) \
        + T3 * (E(asm[n_r + 2]["rhs"]) - E(asm[n_r + 2]["lhs"]))
    lhs, rhs = sides["lhs"], sides["rhs"]
    chain = [lhs.t, {"rel": "==", "by": "assume_eq", "expr": (lhs + extra).t,
                     "mult": [[n_r, T1.t], [n_r + 1, T2.t], [n_r + 2, T3.t]]},
             {"rel": "<=", "by": "sos", "expr": rhs.t, "terms": rep}]
    return {"kind": "symbolic", "version": 1, "title": "monotone in each loss: A(.., x) <= A(.., x + d)",
            "citation": CITATION, "statement": st,
            "evidence": {"lemmas": [], "proofs": [{"name": st["goals"][0]["name"], "chain": chain}]}}


_PRIMES = tuple(p for p in range(2, 200) if all(p % d for d in range(2, math.isqrt(p) + 1)))


def _violating(aff: Affine, lo: End, hi: End, most: int = 250) -> tuple[int, Fraction] | None:
    """``(k, lambda)``: the smallest ``k = n - 1 <= most`` with a rational ``lambda`` in the range at ``n`` and
    ``|beta| sqrt(k) > alpha`` (``beta = coef * lambda``); ``c/sqrt(n - 1)`` ends are rational where ``k`` is a
    square."""
    for k in range(1, most + 1):
        j = math.isqrt(k)
        ends = []
        for e in (lo, hi):
            if e.sqrt and j * j != k:
                ends = []
                break
            ends.append(e.exact_at_square(j) if e.sqrt else e.c)
        if not ends or ends[0] > ends[1]:
            continue
        for lam in ([Fraction(1)] if aff.param is None else [ends[1], ends[0]]):
            beta = aff.coef * lam
            if beta * beta * k > aff.alpha * aff.alpha:
                return k, lam
    return None


def _literal_statement(obj: Objective, ranges: list[dict[str, Any]], param: str | None) -> dict[str, Any]:
    """Monotonicity in the last loss of the objective as written (``std`` the square root of the variance): for
    every ``k >= 1`` (``n = k + 1`` clients), losses ``f_1..f_k``, ``x``, ``delta >= 0`` and parameter in range,
    ``A(f_1..f_k, x) <= A(f_1..f_k, x + delta)``."""
    K, X, D = v("k"), v("x"), v("delta")
    lam = [] if param is None else [[param, "real"]]
    lhs, rhs = _split_term(obj, X, K, None), _split_term(obj, X + D, K, None)
    st = {"kind": "symbolic", "symbols": [["k", "count"], ["f", "family_real"], ["x", "real"],
                                          ["delta", "nonnegative"], *lam],
          "goals": [{"name": "raising the last loss does not lower A", "rel": "<=", "lhs": lhs.t, "rhs": rhs.t}]}
    if ranges:
        st["assume"] = list(ranges)
    return st


def _at_point(t: Any, vals: dict[str, Any], fam: Any, family: str = "f") -> Any:
    """The closed term of ``t`` at a point (symbols -> values, members of ``family`` -> ``fam``)."""
    if not isinstance(t, list):
        return t
    if t[0] == "v" and t[1] in vals:
        return vals[t[1]]
    if t[0] == "at" and t[1] == family:
        return fam
    return [t[0], *[_at_point(x, vals, fam, family) for x in t[1:]]]


def _sqrt_below(k: int, base: int, need: Callable[[Fraction], bool]) -> Fraction | None:
    """A rational ``rho0 = a / base^d < sqrt(k)`` with ``a`` and ``base`` prime to ``k`` (so that ``log rho0`` and
    ``log sqrt(k)`` share no prime: the kernel's normal form of ``exp(log sqrt(k) - log rho0)`` is then
    ``sqrt(k)/rho0`` literally) and ``need(B)``, ``B = rho0 (3/2 - rho0^2/(2k))``."""
    for d in range(1, 60):
        scale = base ** d
        a = math.isqrt(k * scale * scale)
        while a > 1 and math.gcd(a, k) != 1:
            a -= 1
        rho0 = Fraction(a, scale)
        if rho0 * rho0 >= k or a <= 1:
            continue
        if need(rho0 * (Fraction(3, 2) - rho0 * rho0 / (2 * k))):
            return rho0
    return None


def monotone_counterexample(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    r"""A ``"counterexample"`` certificate refuting monotonicity over the range (module docstring), or None.

    At the smallest ``n = k + 1`` with a rational parameter value in range and ``|beta| sqrt(k) > alpha``: ``f =
    (1, ..., 1, x)``, ``x = 0`` (``beta > 0``) or ``2`` (``beta < 0``), raised by ``delta = 1 - 1/p`` (``p`` the
    smallest prime prime to ``k``, and for ``x = 2`` with ``2p - 1`` prime to ``k``: every standard deviation is
    then ``sqrt(k)`` times a rational, the form the kernel's ``rpow`` gives both sides); ``A`` falls by
    ``delta (|beta| sqrt(k) - alpha)/n``.  When ``sqrt(k)`` is
    irrational the margin is ``delta (|beta| B - alpha)/n`` with
    a rational ``B < sqrt(k)`` and the evidence carries a chain: ``sqrt(k) - B = rho0 E(log sqrt(k) - log rho0) +
    (rho0/2) E(2 log rho0 - log k)``, ``E(u) = exp(u) - 1 - u >= 0`` (the kernel's axiom 4), which is the
    identity ``B = rho0 (3/2 - rho0^2/(2k))``."""
    found = _violating(aff, lo, hi)
    if found is None:
        return None
    k, lam_v = found
    lam = v(aff.param) if aff.param else None
    ranges = [] if lam is None else _range_assumptions(lo, hi, lam, v("k"))
    if ranges is None:
        return None
    st = _literal_statement(obj, ranges, aff.param)
    n = k + 1
    beta = aff.coef * lam_v
    x0 = Fraction(0) if beta > 0 else Fraction(2)
    # p prime to k (and, for x = 2, 2p - 1 too: the standard deviation after is sqrt(k) (2p - 1)/(p n))
    prime = next(pr for pr in _PRIMES if k % pr and (beta > 0 or math.gcd(2 * pr - 1, k) == 1))
    delta = 1 - Fraction(1, prime)
    vals = {"k": ["q", str(k)], "x": ["q", str(x0)], "delta": ["q", str(delta)]}
    if lam is not None:
        vals[aff.param] = ["q", str(lam_v)]
    point = [[name, val] for name, val in vals.items()] + [["f", ["q", "1"]]]
    ev: dict[str, Any] = {"goal": st["goals"][0]["name"], "point": point}
    j = math.isqrt(k)
    if j * j == k:
        margin = delta * (abs(beta) * j - aff.alpha) / n
        ev["margin"] = str(margin)
    else:
        rho0 = _sqrt_below(k, prime, lambda B: abs(beta) * B > aff.alpha)
        if rho0 is None:
            return None
        B = rho0 * (Fraction(3, 2) - rho0 * rho0 / (2 * k))
        margin = delta * (abs(beta) * B - aff.alpha) / n
        ev["margin"] = str(margin)
        close = lambda t: _at_point(t, vals, ["q", "1"])  # noqa: E731
        lhs, rhs = close(st["goals"][0]["lhs"]), close(st["goals"][0]["rhs"])
        logk, logr = ["log", ["q", str(k)]], ["log", ["q", str(rho0)]]
        half = ["*", ["q", "1/2"], logk]
        w = abs(beta) * delta / n
        terms = [[str(w * rho0), [["exp1", ["+", half, ["*", ["q", "-1"], logr]]]]],
                 [str(w * rho0 / 2), [["exp1", ["+", ["*", ["q", "2"], logr], ["*", ["q", "-1"], logk]]]]]]
        ev["proof"] = {"chain": [["+", rhs, ["q", str(margin)]], {"rel": "<=", "by": "sos", "expr": lhs,
                                                                  "terms": terms}]}
    return {"kind": "counterexample", "version": 1,
            "title": f"n = {n}: raising the last loss by {delta} lowers A by at least {margin}"[:120],
            "citation": CITATION, "statement": st, "evidence": ev}


# ------------------------------------------------------------------------------------------ parameter
def _param_statement(obj: Objective, aff: Affine, lo: End, hi: End) -> tuple[dict, E, E] | None:
    lam, e, s, n = v(aff.param), v("e"), v("s"), v("n")
    r1 = _range_assumptions(lo, hi, lam, n - 1)
    r2 = _range_assumptions(lo, hi, lam + e, n - 1)
    if r1 is None or r2 is None:
        return None
    lhs, rhs = _full_term(obj, s), _full_term(obj, s, lam + e)
    st = {"kind": "symbolic", "symbols": [["n", "count"], ["f", "family_real"], [aff.param, "real"],
                                          ["e", "nonnegative"], ["s", "nonnegative"]],
          "assume": [*r1, *r2, _asm("==", s ** 2, _var_full(n))],
          "goals": [{"name": f"A is nondecreasing in {aff.param}", "rel": "<=", "lhs": lhs.t, "rhs": rhs.t}]}
    return st, lhs, rhs


def parameter_certificate(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    """``A(f; lambda) <= A(f; lambda + e)`` for ``e >= 0``, both in range: ``c e std(f) >= 0`` (``c >= 0``)."""
    got = _param_statement(obj, aff, lo, hi)
    if got is None or aff.coef < 0:
        return None
    st, lhs, rhs = got
    chain = [lhs.t, {"rel": "<=", "by": "sos", "expr": rhs.t,
                     "terms": [[str(aff.coef), [["pos", ["v", "e"]], ["pos", ["v", "s"]]]]]}]
    return {"kind": "symbolic", "version": 1, "title": f"A is nondecreasing in {aff.param}", "citation": CITATION,
            "statement": st, "evidence": {"lemmas": [], "proofs": [{"name": st["goals"][0]["name"], "chain": chain}]}}


def parameter_counterexample(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    """For ``c < 0``: ``n = 2``, ``f = (1, 0)`` (``std = 1/2``), ``lambda = lo(2)``, ``e = hi(2) - lo(2) > 0``."""
    got = _param_statement(obj, aff, lo, hi)
    if got is None or aff.coef >= 0:
        return None
    lo2, hi2 = lo.exact_at_square(1), hi.exact_at_square(1)
    if hi2 <= lo2:
        return None
    st, _, _ = got
    e = hi2 - lo2
    point = [["n", ["q", "2"]], ["f", ["+", ["q", "2"], ["*", ["q", "-1"], ["b", 0]]]], [aff.param, ["q", str(lo2)]],
             ["e", ["q", str(e)]], ["s", ["q", "1/2"]]]
    margin = -aff.coef * e / 2
    return {"kind": "counterexample", "version": 1, "title": f"n = 2, f = (1, 0): A falls by {margin}",
            "citation": CITATION, "statement": st,
            "evidence": {"goal": st["goals"][0]["name"], "point": point, "margin": str(margin)}}


# ------------------------------------------------------------------------------------------ between
def _between_statement(obj: Objective, ranges: list[dict[str, Any]], param: str | None,
                       literal: bool) -> dict[str, Any]:
    r"""``mean f <= A(f) <= max f`` for every ``n = k + 1 >= 2``: the losses ``f_i = M - g_i`` (``i <= k``) and
    ``M - y`` with ``0 <= g_i, y <= G`` and ``G = sum g_i + y``, so that ``M >= max f`` (and every loss vector is one
    of these, with ``M = max f``): ``A <= M`` for every such ``M`` is ``A <= max f``.  ``literal``: ``std`` as the
    square root of the variance (``G >= 0``); else a symbol ``s >= 0`` with ``s^2 = var`` (and ``G > 0``)."""
    K, M, G, y, s = v("k"), v("M"), v("G"), v("y"), v("s")
    g = at("g", IDX)
    member = lambda i: (M - E(["at", "g", i])).t  # noqa: E731
    last = M - y
    sd = None if literal else s
    A = _split_term(obj, last, K, sd, member)
    mean = (M - (sm(g, 1, K) + y) / (K + 1))
    lam = [] if param is None else [[param, "real"]]
    symbols = [["k", "count"], ["M", "real"], ["G", "nonnegative" if literal else "positive"],
               ["g", "family_bounded", ["q", "0"], ["v", "G"]], ["y", "bounded", ["q", "0"], ["v", "G"]], *lam]
    assume = list(ranges) + [_asm("==", G, sm(g, 1, K) + y)]
    if not literal:
        symbols.append(["s", "nonnegative"])
        f2 = sm((M - g) ** 2, 1, K) + last ** 2
        f1 = sm(M - g, 1, K) + last
        assume.append(_asm("==", s ** 2, f2 / (K + 1) - (f1 / (K + 1)) ** 2))
    st = {"kind": "symbolic", "symbols": symbols, "assume": assume,
          "goals": [{"name": "mean f <= A", "rel": "<=", "lhs": mean.t, "rhs": A.t},
                    {"name": "A <= max f", "rel": "<=", "lhs": A.t, "rhs": M.t}]}
    return st


def between_certificate(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    r"""``mean f <= A <= max f`` for ``A = mean + beta std`` with ``beta >= 0`` and ``beta^2 (n - 1) <= 1`` on the
    range.  Lower half: ``A - mean = beta s``.  Upper half (Samuelson's inequality ``std <= sqrt(n - 1) (max - mean)``
    as one sum): with ``b = G/n = max - mean``, ``2 b (b - beta s) = (b - beta s)^2 + b^2 (1 - beta^2 k) + beta^2
    (k b^2 - s^2)`` and ``n (k b^2 - s^2) = sum_i g_i (G - g_i) + y (G - y)``; it divides by ``G > 0`` (the points
    where not every loss is the largest: dense, the rest by continuity)."""
    if aff.alpha != 1 or aff.gamma != 0:
        return None
    lam = v(aff.param) if aff.param else None
    ranges = [] if lam is None else _range_assumptions(lo, hi, lam, v("k"))
    if ranges is None:
        return None
    r = aff.coef
    # beta >= 0 on the range, and 1 - beta^2 k as a representation
    if lam is None or r == 0:
        if r != 0:
            return None
        low: list[Any] = []
        cond: list[Any] = [["1", []]]
    else:
        if r < 0 or lo.sqrt or lo.c < 0 or not hi.sqrt or (r * hi.c) ** 2 > 1:
            return None
        low = [[str(r), [["assume", 0], ["pos", ["v", "s"]]]]] + ([[str(r * lo.c), [["pos", ["v", "s"]]]]] if lo.c else [])
        rest = 1 - (r * hi.c) ** 2
        cond = ([[str(rest), []]] if rest else []) + [[str(r * r), [["assume", len(ranges) - 1]]]]
    st = _between_statement(obj, ranges, aff.param, literal=False)
    K, M, G, y, s = v("k"), v("M"), v("G"), v("y"), v("s")
    N = K + 1
    beta = q(r) * (lam if lam is not None else q(1))
    b = G / N
    goal_low, goal_up = st["goals"]
    proofs = []
    if low:
        proofs.append({"name": goal_low["name"], "chain": [goal_low["lhs"], {"rel": "<=", "by": "sos",
                                                                             "expr": goal_low["rhs"], "terms": low}]})
    else:
        proofs.append({"name": goal_low["name"], "chain": [goal_low["lhs"], {"rel": "==", "by": "identity",
                                                                             "expr": goal_low["rhs"]}]})
    body = [["1", [["flo", "g"], ["fhi", "g"]]]]
    rep: list[Any] = [["1", [["pos", (N / (2 * G)).t], ["sq", (b - beta * s).t]]]]
    rep += [[c, [["pos", (G / (2 * N)).t], *gens]] for c, gens in cond]
    rep += [["1", [["pos", (1 / (2 * G)).t], ["sq", beta.t], ["sum", ["q", "1"], K.t, body]]],
            ["1", [["pos", (1 / (2 * G)).t], ["sq", beta.t], ["lo", "y"], ["hi", "y"]]]]
    jg, js = len(ranges), len(ranges) + 1
    # var(f) uses sum g_i + y where b uses G: (sum g + y)^2 - G^2 = (sum g + y - G)(sum g + y + G) joins T_G
    Tg = 1 / N - beta ** 2 / 2 + beta ** 2 * (sm(at("g", IDX), 1, K) + y + G) / (2 * G * N)
    Ts = beta ** 2 * N / (2 * G)
    asm = st["assume"]
    extra = Tg * (E(asm[jg]["rhs"]) - E(asm[jg]["lhs"])) + Ts * (E(asm[js]["rhs"]) - E(asm[js]["lhs"]))
    A = E(goal_up["lhs"])
    proofs.append({"name": goal_up["name"], "chain": [A.t, {"rel": "==", "by": "assume_eq", "expr": (A + extra).t,
                                                            "mult": [[jg, Tg.t], [js, Ts.t]]},
                                                      {"rel": "<=", "by": "sos", "expr": M.t, "terms": rep}]})
    return {"kind": "symbolic", "version": 1, "title": "mean f <= A <= max f", "citation": CITATION,
            "statement": st, "evidence": {"lemmas": [], "proofs": proofs}}


def _exact_between(aff: Affine, lam: Fraction | None, eps: Fraction, M: Fraction) -> tuple[Fraction, Fraction]:
    """``(A - mean, max - A)`` at ``f = (M - eps, M)`` (``std = eps/2``)."""
    beta = aff.coef * (lam if lam is not None else 1)
    mean, std = M - eps / 2, eps / 2
    A = aff.alpha * mean + beta * std + aff.gamma
    return A - mean, M - A


def between_counterexample(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    r"""A counterexample to ``mean f <= A <= max f``: at ``n = 2``, ``f = (M - eps, M)`` (rational) when one half
    fails there (``alpha != 1``, ``gamma != 0`` or ``beta < 0``), else at ``f = (1, ..., 1, 0)`` with ``n = k + 1``,
    ``beta sqrt(k) > 1``: ``A - max f = (beta sqrt(k) - 1)/n`` (a chain when ``sqrt(k)`` is irrational)."""
    lam_sym = v(aff.param) if aff.param else None
    ranges = [] if lam_sym is None else _range_assumptions(lo, hi, lam_sym, v("k"))
    if ranges is None:
        return None
    st = _between_statement(obj, ranges, aff.param, literal=True)
    names = [g["name"] for g in st["goals"]]
    lams: list[Fraction | None] = [None] if aff.param is None else \
        [x for x in dict.fromkeys((lo.exact_at_square(1), hi.exact_at_square(1))) if lo.exact_at_square(1) <= x
         <= hi.exact_at_square(1)]
    for lam in lams:
        for eps in (Fraction(1), Fraction(1, 10), Fraction(1, 1000), Fraction(1, 10 ** 6)):
            cands = [Fraction(0), Fraction(1), Fraction(-1), Fraction(100), Fraction(-100)]
            if aff.alpha != 1:
                beta = aff.coef * (lam if lam is not None else 1)
                cands.append(((aff.alpha - beta) * eps / 2 - aff.gamma + 1) / (aff.alpha - 1))
            for M in cands:
                low, up = _exact_between(aff, lam, eps, M)
                if min(low, up) < 0:
                    point = [["k", ["q", "1"]], ["M", ["q", str(M)]], ["G", ["q", str(eps)]], ["g", ["q", str(eps)]],
                             ["y", ["q", "0"]]] + ([] if lam is None else [[aff.param, ["q", str(lam)]]])
                    goal, margin = (names[0], -low) if low < 0 else (names[1], -up)
                    return {"kind": "counterexample", "version": 1,
                            "title": f"n = 2, f = ({M - eps}, {M}): {goal} fails by {margin}"[:120],
                            "citation": CITATION, "statement": st,
                            "evidence": {"goal": goal, "point": point, "margin": str(margin)}}
    if aff.alpha != 1 or aff.gamma != 0:
        return None
    found = _violating(Affine(Fraction(1), Fraction(0), aff.coef, aff.param), lo, hi)
    if found is None:
        return None
    k, lam_v = found
    beta = aff.coef * lam_v
    if beta <= 0:
        return None
    n = k + 1
    vals = {"k": ["q", str(k)], "M": ["q", "1"], "G": ["q", "1"], "y": ["q", "1"]}
    if aff.param:
        vals[aff.param] = ["q", str(lam_v)]
    point = [[a, b] for a, b in vals.items()] + [["g", ["q", "0"]]]
    ev: dict[str, Any] = {"goal": names[1], "point": point}
    j = math.isqrt(k)
    if j * j == k:
        margin = (beta * j - 1) / n
    else:
        rho0 = _sqrt_below(k, next(p for p in _PRIMES if k % p), lambda B: beta * B > 1)
        if rho0 is None:
            return None
        B = rho0 * (Fraction(3, 2) - rho0 * rho0 / (2 * k))
        margin = (beta * B - 1) / n
        close = lambda t: _at_point(t, vals, ["q", "0"], "g")  # noqa: E731
        lhs, rhs = close(st["goals"][1]["lhs"]), close(st["goals"][1]["rhs"])
        logk, logr = ["log", ["q", str(k)]], ["log", ["q", str(rho0)]]
        w = beta / n
        terms = [[str(w * rho0), [["exp1", ["+", ["*", ["q", "1/2"], logk], ["*", ["q", "-1"], logr]]]]],
                 [str(w * rho0 / 2), [["exp1", ["+", ["*", ["q", "2"], logr], ["*", ["q", "-1"], logk]]]]]]
        ev["proof"] = {"chain": [["+", rhs, ["q", str(margin)]], {"rel": "<=", "by": "sos", "expr": lhs,
                                                                  "terms": terms}]}
    ev["margin"] = str(margin)
    return {"kind": "counterexample", "version": 1,
            "title": f"n = {n}, f = (1, ..., 1, 0): A exceeds max f by at least {margin}"[:120], "citation": CITATION,
            "statement": st, "evidence": ev}


# ------------------------------------------------------------------------------------------ convex
def _beta_nonneg(aff: Affine, lo: End, hi: End, ranges: list[dict[str, Any]]) -> list[Any] | None:
    """A representation ``[[c, [generators]], ...]`` whose value is ``beta`` (so ``beta >= 0`` on the range), ``[]``
    for ``beta = 0``, or None when ``beta`` takes a negative value there."""
    if aff.param is None or aff.coef == 0:
        return None if aff.coef < 0 else ([[str(aff.coef), []]] if aff.coef else [])
    if aff.coef > 0 and (lo.sqrt or lo.c >= 0):  # ranges[0] is "lo <= lambda" (or "0 <= lambda" for a sqrt end)
        low = Fraction(0) if lo.sqrt else lo.c
        return [[str(aff.coef), [["assume", 0]]]] + ([[str(aff.coef * low), []]] if low else [])
    if aff.coef < 0 and not hi.sqrt and hi.c <= 0:  # the last range assumption is "lambda <= hi"
        return [[str(-aff.coef), [["assume", len(ranges) - 1]]]] + ([[str(aff.coef * hi.c), []]] if hi.c else [])
    return None


def _convex_statement(obj: Objective, ranges: list[dict[str, Any]], param: str | None,
                      literal: bool) -> dict[str, Any]:
    r"""``A(t f + u g) <= t A(f) + u A(g)`` for every ``n``, loss vectors ``f, g`` and ``t, u >= 0`` with ``t + u = 1``.
    Not ``literal``: the standard deviations are symbols ``sf, sg, sh > 0`` (``sh`` of ``t f + u g``) fixed by
    assumptions, with the means ``af, ag`` of ``f`` and ``g``."""
    n, t, u = v("n"), v("t"), v("u")
    sf, sg, sh = (None, None, None) if literal else (v("sf"), v("sg"), v("sh"))
    F, G = at("f", IDX), at("g", IDX)
    lam = [] if param is None else [[param, "real"]]
    lhs = _full_family(obj, lambda i: (t * E(["at", "f", i]) + u * E(["at", "g", i])).t, sh)
    rhs = t * _full_family(obj, lambda i: ["at", "f", i], sf) + u * _full_family(obj, lambda i: ["at", "g", i], sg)
    symbols = [["n", "count"], ["f", "family_real"], ["g", "family_real"], ["t", "nonnegative"], ["u", "nonnegative"],
               *lam]
    assume = list(ranges) + [_asm("==", t + u, q(1))]
    if not literal:
        symbols += [["sf", "positive"], ["sg", "positive"], ["sh", "positive"], ["af", "real"], ["ag", "real"]]
        H = t * F + u * G
        var = lambda x: sm(x ** 2, 1, n) / n - (sm(x, 1, n) / n) ** 2  # noqa: E731
        assume += [_asm("==", sf ** 2, var(F)), _asm("==", sg ** 2, var(G)), _asm("==", sh ** 2, var(H)),
                   _asm("==", n * v("af"), sm(F, 1, n)), _asm("==", n * v("ag"), sm(G, 1, n))]
    return {"kind": "symbolic", "symbols": symbols, "assume": assume,
            "goals": [{"name": "A(t f + u g) <= t A(f) + u A(g)", "rel": "<=", "lhs": lhs.t, "rhs": rhs.t}]}


def _full_family(obj: Objective, member: Callable[[Any], Any], sd: E | None) -> E:
    """The objective for ``n`` clients with losses ``member(i)``, ``std(f)`` written ``sd`` (None: the square root)."""
    from fairtheory.testing.expr import _Term

    class Full(_Term):
        def go(self, t: tuple, inside: bool) -> Any:
            if t[0] == "call" and t[1] == "std" and t[2] == (("f",),) and not inside and sd is not None:
                return sd.t
            return super().go(t, inside)

    return E(Full(member, ["v", "n"]).go(obj.tree, False))


def convex_certificate(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    r"""Convexity of ``alpha mean + beta std + gamma`` for ``beta >= 0`` on the range: ``std`` is a norm.  With
    ``R = t sf + u sg``: ``R - sh = (R^2 - sh^2)/(R + sh)``, ``R^2 - sh^2 = 2 t u (sf sg - cov(f, g))`` and
    ``2 n sf sg (sf sg - cov) = sum_i (sg (f_i - af) - sf (g_i - ag))^2`` (Cauchy-Schwarz as one sum); it divides by
    ``sf sg (R + sh)`` (the points with three positive standard deviations: dense, the rest by continuity)."""
    lam = v(aff.param) if aff.param else None
    ranges = [] if lam is None else _range_assumptions(lo, hi, lam, v("n") - 1)
    if ranges is None:
        return None
    brep = _beta_nonneg(aff, lo, hi, ranges)
    if brep is None:
        return None
    st = _convex_statement(obj, ranges, aff.param, literal=False)
    n, t, u, sf, sg, sh, af, ag = (v(z) for z in ("n", "t", "u", "sf", "sg", "sh", "af", "ag"))
    F, G = at("f", IDX), at("g", IDX)
    beta = q(aff.coef) * (lam if lam is not None else q(1))
    R = t * sf + u * sg
    K = t * u / (n * sf * sg * (R + sh))
    body = [["1", [["sq", (sg * (F - af) - sf * (G - ag)).t]]]]
    rep = [[c, [*gens, ["pos", K.t], ["sum", ["q", "1"], n.t, body]]] for c, gens in brep]
    j = len(ranges)  # t + u == 1, then sf^2, sg^2, sh^2, n af, n ag
    Zf, Zg = n * af - sm(F, 1, n), n * ag - sm(G, 1, n)
    W = sg * Zf - sf * Zg
    Kz = beta * t * u / ((R + sh) * n ** 2 * sf * sg)
    mult = [[j, q(-aff.gamma)], [j + 1, -beta / (R + sh) * (t ** 2 + t * u * sg / sf)],
            [j + 2, -beta / (R + sh) * (u ** 2 + t * u * sf / sg)], [j + 3, beta / (R + sh)],
            [j + 4, Kz * W * sg], [j + 5, -Kz * W * sf]]
    asm = st["assume"]
    extra = q(0)
    for k, T in mult:
        extra = extra + T * (E(asm[k]["rhs"]) - E(asm[k]["lhs"]))
    lhs, rhs = E(st["goals"][0]["lhs"]), E(st["goals"][0]["rhs"])
    link_sos: dict[str, Any] = {"rel": "<=", "by": "sos", "expr": rhs.t, "terms": rep} if rep else \
        {"rel": "==", "by": "identity", "expr": rhs.t}
    chain = [lhs.t, {"rel": "==", "by": "assume_eq", "expr": (lhs + extra).t, "mult": [[k, T.t] for k, T in mult]},
             link_sos]
    return {"kind": "symbolic", "version": 1, "title": "convex in the loss vector", "citation": CITATION,
            "statement": st, "evidence": {"lemmas": [], "proofs": [{"name": st["goals"][0]["name"], "chain": chain}]}}


def convex_counterexample(obj: Objective, aff: Affine, lo: End, hi: End) -> dict[str, Any] | None:
    r"""For ``beta < 0`` at some rational parameter value in range at ``n = 2``: ``f = (1, 0)``, ``g = (0, 1/2)``,
    ``t = 1/2`` (standard deviations ``1/2, 1/4`` and ``1/8`` of the midpoint): ``A`` at the midpoint exceeds the
    average by ``|beta|/4``."""
    lam_sym = v(aff.param) if aff.param else None
    ranges = [] if lam_sym is None else _range_assumptions(lo, hi, lam_sym, v("n") - 1)
    if ranges is None:
        return None
    cands = [Fraction(1)] if aff.param is None else [lo.exact_at_square(1), hi.exact_at_square(1)]
    if aff.param is not None and cands[0] > cands[1]:
        return None
    lam_v = next((x for x in cands if aff.coef * x < 0), None)
    if lam_v is None:
        return None
    beta = aff.coef * lam_v
    st = _convex_statement(obj, ranges, aff.param, literal=True)
    point = [["n", ["q", "2"]], ["f", ["+", ["q", "2"], ["*", ["q", "-1"], ["b", 0]]]],
             ["g", ["*", ["q", "1/2"], ["+", ["b", 0], ["q", "-1"]]]], ["t", ["q", "1/2"]], ["u", ["q", "1/2"]]]
    if aff.param:
        point.append([aff.param, ["q", str(lam_v)]])
    margin = -beta / 4
    return {"kind": "counterexample", "version": 1,
            "title": f"n = 2, f = (1, 0), g = (0, 1/2), t = 1/2: A at the midpoint exceeds the average by {margin}",
            "citation": CITATION, "statement": st,
            "evidence": {"goal": st["goals"][0]["name"], "point": point, "margin": str(margin)}}


# ------------------------------------------------------------------------------------------ numbers
def eval_term(t: Any, env: dict[str, float], families: dict[str, Callable[[int], float]] | None = None,
              bound: int | None = None) -> float:
    """A float64 value of a kernel term (a second, numeric route; never used to decide)."""
    fam = families or {}
    h, a = t[0], t[1:]
    ev = lambda x: eval_term(x, env, fam, bound)  # noqa: E731
    if h == "q":
        return float(Fraction(a[0]))
    if h == "v":
        return float(env[a[0]])
    if h == "b":
        return float(bound)
    if h == "+":
        return sum(ev(x) for x in a)
    if h == "*":
        return math.prod(ev(x) for x in a)
    if h == "/":
        return ev(a[0]) / ev(a[1])
    if h == "^":
        return ev(a[0]) ** a[1]
    if h == "exp":
        return math.exp(ev(a[0]))
    if h == "log":
        return math.log(ev(a[0]))
    if h == "rpow":
        return ev(a[0]) ** ev(a[1])
    if h == "max":
        return max(ev(a[0]), ev(a[1]))
    if h == "at":
        return float(fam[a[0]](int(round(ev(a[1])))))
    if h == "sum":
        lo, hi = int(round(ev(a[1]))), int(round(ev(a[2])))
        return sum(eval_term(a[0], env, fam, i) for i in range(lo, hi + 1))
    raise FairtheoryValueError(f"eval_term: unknown head {h!r}")


class _ExprAggregator:
    """The objective at fixed parameter values and ``n``, with the public aggregator protocol."""

    def __init__(self, obj: Objective, n: int, values: dict[str, float]) -> None:
        self.obj, self.n, self.values = obj, n, values

    def value(self, f: np.ndarray) -> float:
        return self.obj.value_and_grad(f, self.values)[0]

    def weights(self, f: np.ndarray) -> np.ndarray:
        return self.obj.value_and_grad(f, self.values)[1]

    def __repr__(self) -> str:
        return f"{self.obj.text} at n = {self.n}, {self.values}"


def _grid(obj: Objective, ns: tuple[int, ...]) -> list[tuple[int, dict[str, float]]]:
    out = []
    for n in ns:
        combos: list[dict[str, float]] = [{}]
        for name in obj.params:
            lo, hi = obj.bounds(name, n)
            lo, hi = (max(lo, -10.0), min(hi, 10.0))
            pts = sorted({lo, hi, 0.5 * (lo + hi)}) if lo <= hi else []
            combos = [dict(c, **{name: p}) for c in combos for p in pts if math.isfinite(p)]
        out += [(n, c) for c in combos]
    return out


def _checked_cert(cert: dict[str, Any] | None) -> tuple[bool, str]:
    from fairtheory_kernel.check import check_proof, describe, statement_of

    if cert is None or not check_proof(cert):
        return False, ""
    return True, describe(statement_of(cert))


def _ends(obj: Objective, aff: Affine) -> tuple[End, End] | str:
    if aff.param is None:
        return End(Fraction(0), False), End(Fraction(0), False)
    rng = obj.params.get(aff.param)
    if rng is None:
        return f"parameter {aff.param} has no range"
    lo, hi = _end(rng[0]), _end(rng[1])
    if lo is None or hi is None:
        return "range ends must be numbers or c/sqrt(n - 1) for the template"
    return lo, hi


def _decide(obj: Objective, prop: str) -> tuple[str, str, dict[str, Any] | None]:
    """``(status, reason, certificate)`` before the kernel's re-check."""
    if prop == "permutation_invariant":
        return ("checked", "holds by construction of the term language (it reaches f only through aggregates "
                           "symmetric in the clients), but that is not a kernel proof: the kernel has no permutation "
                           "rule, so it is not called proved", None)
    aff = affine_form(obj)
    if prop == "parameter_monotone" and not obj.params:
        return "not applicable", "the objective has no parameter", None
    if aff is None:
        return ("checked", "not of the template alpha mean(f) + beta std(f) + gamma that the proposers decide", None)
    ends = _ends(obj, aff)
    if isinstance(ends, str):
        return "checked", ends, None
    lo, hi = ends
    if prop == "parameter_monotone" and aff.param is None:
        return "checked", "the parameter is not std's coefficient", None
    if prop not in _PROPOSERS:
        return "checked", f"no proposer for {prop}", None
    prove, refute, why = _PROPOSERS[prop]
    cert = prove(obj, aff, lo, hi)
    if cert is not None:
        return "proved", why, cert
    cx = refute(obj, aff, lo, hi)
    if cx is not None:
        return "refuted", cx["title"], cx
    return "checked", "the range is outside the template's decided shapes", None


#: per property: the certificate proposer, the counterexample proposer and the reason printed with a proof
_PROPOSERS: dict[str, tuple[Callable[..., Any], Callable[..., Any], str]] = {
    "monotone": (monotone_certificate, monotone_counterexample,
                 "for every n >= 2 and every parameter value in range: (beta/alpha)^2 (n - 1) <= 1 and Cauchy-Schwarz; "
                 "proved where both standard deviations are > 0, everywhere by continuity (n = 1: A = alpha f_1 + "
                 "gamma)"),
    "parameter_monotone": (parameter_certificate, parameter_counterexample,
                           "A(lambda + e) - A(lambda) = c e std(f) with c >= 0"),
    "between_mean_and_max": (between_certificate, between_counterexample,
                             "for every n >= 2: A - mean = beta std >= 0 and Samuelson's inequality std <= sqrt(n - 1) "
                             "(max - mean) as one sum; proved where not every loss is the largest, everywhere by "
                             "continuity"),
    "convex": (convex_certificate, convex_counterexample,
               "for every n: beta >= 0 on the range and std is a norm (triangle inequality by Cauchy-Schwarz as one "
               "sum); proved where the three standard deviations are > 0, everywhere by continuity"),
}


def decide_property(obj: Objective, prop: str) -> tuple[str, str, dict[str, Any] | None, str]:
    """``(status, reason, certificate, statement words)`` of one property (:data:`PROPERTIES`) of ``obj``: a
    ``proved`` / ``refuted`` status only with a certificate :func:`fairtheory_kernel.check.check_proof` re-checked
    here (``permutation_invariant`` is ``checked``: it holds by the language's construction, which no kernel rule
    states)."""
    if prop not in PROPERTIES:
        raise FairtheoryValueError(f"prop must be one of {PROPERTIES}, got {prop!r}"[:200])
    status, reason, cert = _decide(obj, prop)
    words = ""
    if cert is not None:
        ok, words = _checked_cert(cert)
        if not ok:
            status, reason, cert = "checked", f"the proposer's certificate was refused by the kernel ({reason})", None
    return status, reason, cert, words
