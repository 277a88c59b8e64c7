r"""The ``"symbolic"`` proof kernel: statements about real expressions, proved by chains of checked steps.

It decides with exact rational-function arithmetic (:mod:`.normal_form`, python-flint) and the closed list of
axioms below; it never imports sympy.  A certificate::

    {"kind": "symbolic", "version": 1, "title": str, "citation": str,
     "statement": {"symbols": [[name, kind, ...], ...],
                   "goals": [{"name": str, "rel": "<=" | "==", "lhs": T, "rhs": T, "attained": [[name, T], ...]}],
                   "assume": [{"rel": "<=" | "==", "lhs": T, "rhs": T}, ...]},   # optional, at most 16
     "evidence": {"lemmas": [{"name": str, "vars": [[x, "real"], ...], "rel": "<=" | "==", "lhs": T, "rhs": T,
                              "proof": P}, ...],
                  "proofs": [{"name": goal name, **P}, ...]}}

*Meaning*: for every value of the symbols allowed by their declarations (the *domain*) that satisfies every
assumption, every goal ``lhs rel rhs`` holds, and, with ``attained``, equality holds at that point of the domain
(for every value of the symbols it leaves free, of which there is one: :meth:`.normal_form.Ctx.point`; the
assumptions hold there).  Only the statement carries meaning; the evidence is how the kernel is convinced, and
every obligation is derived from the statement.

``P`` is ``{"chain": C}`` or ``{"cases": T, "chains": [C_nonneg, C_nonpos]}``; a chain ``C = [T0, link, ...]``
runs from the goal's left side to its right side.  Terms ``T`` are JSON trees: ``["q", "3/4"]``, ``["v", name]``,
``["b", 0]`` (the index of the enclosing sum, de Bruijn), ``["+", T...]``, ``["*", T...]``, ``["/", T, T]``,
``["^", T, k]`` (integer ``|k| <= 16``), ``["exp", T]``, ``["log", T]``, ``["rpow", T, T]`` (base > 0),
``["max", T, T]``, ``["fn", f, T...]``, ``["d", T, [x, ...]]``, ``["sum", T, lo, hi]``, ``["at", family, T]``.
Symbol kinds: ``real``, ``positive``, ``nonnegative``, ``count`` (integer >= 1), ``[name, "bounded", lo, hi]``
(ends in earlier symbols, ``hi - lo >= 0`` proved), ``family_real`` / ``family_positive`` /
``family_nonnegative`` (``x_i`` for integers ``i``), ``[name, "family_bounded", lo, hi]`` (``lo_i <= x_i <= hi_i``
for every integer ``i``; the ends may use the index ``["b", 0]`` and earlier families at it, ``hi - lo >= 0``
proved for every real index), ``[name, "function", arity]`` (a positive smooth function).

A ``"counterexample"`` certificate (:func:`check_counterexample`) holds a symbolic statement and a point at which
it is false (:func:`_refutes`); its statement is the one refuted.

Axioms (sources): (1) ``exp(a + b) = exp a exp b``, ``exp 0 = 1``, ``exp x > 0``; (2) ``log`` inverts ``exp`` on
``(0, inf)``, ``log(ab) = log a + log b`` for ``a, b > 0``, ``log`` increasing, and with unique factorisation
``log`` of a rational is a sum of ``log p`` over primes, ``log p > 0``; (3) ``rpow(b, e) = exp(e log b)`` for
``b > 0`` (W. Rudin, *Principles of Mathematical Analysis*, 3rd ed., Sec. 8.6, for 1-3); (4) ``exp u >= 1 + u``
(``u >= 0``: the series; ``u < 0``: the mean value theorem, Rudin Thm. 5.10); (5) ``max(a, b) = a`` when
``a >= b``; (6) derivatives: linearity, product, quotient and chain rules (Rudin Thms. 5.3, 5.5, 9.15), with
``D_j f`` atoms for declared functions; (7) finite sums: linearity, ``sum_{i=lo}^{hi} c = c (hi - lo + 1)`` for
``hi >= lo - 1``, a short sum is its terms added; (8) arithmetic in ``Q(y_0, ..., y_63)`` (FLINT, exact).

No capture: the one binder is the sum, whose body names its index ``["b", 0]``; lemmas are instantiated by the
kernel on normal forms (:meth:`.normal_form.Ctx.substitute`), and a value that uses the index is never put inside a
sum.  Names are letters and digits, never ``exp``/``log``/``max``/``sum``/``d``/``rpow`` (the printed words use
them for mathematics).
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from fairtheory_kernel import normal_form as nfm
from fairtheory_kernel.normal_form import NONNEG, ONE, POS, Ctx, Nf, NotProved

KIND = "symbolic"
VERSION = 1
MAX_SECONDS = 4.0
MAX_JSON = 300_000
MAX_DEPTH = 40
MAX_NODES = 6000
MAX_SYMBOLS = 40
MAX_GOALS = 16
MAX_LEMMAS = 8
MAX_LINKS = 16
MAX_REP = 16
MAX_GENS = 8
MAX_DERIV = 3
MAX_NEST = 4
MAX_TEXT = 80
MAX_ASSUME = 16
MAX_TERMS_AT = 256  # terms of one sum evaluated at a point (a counterexample)
#: names: letters and digits (no "_": ``x_1`` would read as member 1 of a family ``x``), none of the words the
#: printed statement uses for its own mathematics (a "function" named ``log`` would print ``0 <= log(1/2)``)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,23}")
_RESERVED = frozenset({"exp", "log", "max", "sum", "d", "rpow"})
_RAT = re.compile(r"-?[0-9]{1,40}(/[0-9]{1,40})?")
_SCALAR = ("real", "positive", "nonnegative", "count", "bounded")
_FAMILY = ("family_real", "family_positive", "family_nonnegative", "family_bounded")
_LOCAL = ("real", "positive", "nonnegative")

class Bad(ValueError):
    """Malformed statement or certificate."""


def _rat(s: Any) -> Fraction:
    if not isinstance(s, str) or not _RAT.fullmatch(s):
        raise Bad("rational")
    if "/" in s and int(s.split("/")[1]) == 0:
        raise Bad("zero denominator")
    return Fraction(s)  # the regex admits only digits, '-' and one '/'


def _int(k: Any, bound: int) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or abs(k) > bound:
        raise Bad("integer")
    return k


def _integer(x: Nf) -> int:
    c = nfm.cval(x)
    if c is None or c.q != 1:
        raise NotProved("an index or a summation limit that is not an integer")
    return int(c.p)


def _text(s: Any) -> str:
    if not isinstance(s, str) or not 1 <= len(s) <= MAX_TEXT or not s.isprintable():
        raise Bad("text: 1-80 printable characters")
    return s


# ----------------------------------------------------------------------------------------- terms
def canon_term(t: Any, scope: Mapping[str, tuple], depth: int = 0, count: list[int] | None = None, nest: int = 0,
               level: int = 0) -> Any:
    """The canonical copy of a term (rationals reduced), every name declared in ``scope`` with a fitting kind;
    ``depth``: enclosing sums (at most 1), ``level``: tree depth.  Raises :class:`Bad`."""
    count = [0] if count is None else count
    count[0] += 1
    if count[0] > MAX_NODES or level > MAX_DEPTH or not isinstance(t, list) or not t or not isinstance(t[0], str):
        raise Bad("term")
    h, a = t[0], t[1:]

    def sub(x: Any, d: int = depth, n: int = nest) -> Any:
        return canon_term(x, scope, d, count, n, level + 1)

    def name(x: Any, kinds: tuple) -> str:
        if not isinstance(x, str) or x not in scope or scope[x][0] not in kinds:
            raise Bad(f"undeclared name {str(x)[:30]!r}")
        return x

    if h == "q" and len(a) == 1:
        return ["q", str(_rat(a[0]))]
    if h == "v" and len(a) == 1:
        return ["v", name(a[0], _SCALAR)]
    if h == "b" and len(a) == 1:
        if _int(a[0], 10) != 0 or depth < 1:
            raise Bad("bound index outside its sum")
        return ["b", 0]
    if h in ("+", "*") and 1 <= len(a) <= 64:
        return [h, *[sub(x) for x in a]]
    if h in ("/", "max") and len(a) == 2:
        return [h, sub(a[0]), sub(a[1])]
    if h == "^" and len(a) == 2:
        return ["^", sub(a[0]), _int(a[1], nfm.MAX_POW)]
    if h in ("exp", "log", "rpow") and len(a) == 1 + (h == "rpow"):
        if nest >= MAX_NEST:
            raise Bad("exp/log nested too deep")
        return [h, *[sub(x, n=nest + 1) for x in a]]
    if h == "fn" and len(a) >= 2:
        f = name(a[0], ("function",))
        if len(a) - 1 != scope[f][1]:
            raise Bad("function arity")
        return ["fn", f, *[sub(x) for x in a[1:]]]
    if h == "d" and len(a) == 2 and isinstance(a[1], list) and 1 <= len(a[1]) <= MAX_DERIV:
        return ["d", sub(a[0]), [name(x, ("real",)) for x in a[1]]]
    if h == "sum" and len(a) == 3:
        if depth:
            raise Bad("nested sums")
        return ["sum", sub(a[0], d=1), sub(a[1]), sub(a[2])]
    if h == "at" and len(a) == 2:
        return ["at", name(a[0], _FAMILY), sub(a[1])]
    raise Bad(f"head {h[:20]!r}")


def _decls(symbols: Any, scope: dict[str, tuple], kinds: tuple) -> list[list[Any]]:
    if not isinstance(symbols, list) or len(symbols) + len(scope) > MAX_SYMBOLS:
        raise Bad("symbols")
    out = []
    for d in symbols:
        if not isinstance(d, list) or len(d) < 2 or not isinstance(d[0], str) or not _NAME.fullmatch(d[0]) \
                or d[0] in _RESERVED or d[0] in scope or d[1] not in kinds:
            raise Bad("symbol declaration")
        nm, kind = d[0], d[1]
        if len(d) != (4 if "bounded" in kind else 3 if kind == "function" else 2):
            raise Bad(f"declaration of a {kind} symbol")
        if kind == "function":
            if _int(d[2], 3) < 1:
                raise Bad("arity")
            out.append([nm, kind, d[2]])
        else:  # a family's ends speak of its member's index ["b", 0]
            out.append([nm, kind, *[canon_term(x, scope, int(kind == "family_bounded")) for x in d[2:]]])
        scope[nm] = (kind, d[2]) if kind == "function" else (kind,)
    return out


def _relations(xs: Any, scope: Mapping[str, tuple], keys: set[str], most: int) -> list[dict[str, Any]]:
    """Canonical ``{"rel", "lhs", "rhs"}`` entries (plus the optional keys in ``keys``): goals and assumptions."""
    if not isinstance(xs, list) or len(xs) > most:
        raise Bad("goals/assumptions")
    out = []
    for g in xs:
        if not isinstance(g, Mapping) or not {"rel", "lhs", "rhs"} <= set(g) <= {"rel", "lhs", "rhs"} | keys \
                or g["rel"] not in ("<=", "=="):
            raise Bad("relation keys")
        out.append({"rel": g["rel"], "lhs": canon_term(g["lhs"], scope), "rhs": canon_term(g["rhs"], scope)})
    return out


def canonical_statement(st: Any) -> dict[str, Any]:
    """The frozen canonical copy of a statement (JSON data); raises ``ValueError`` when malformed.  An empty
    ``"assume"`` is dropped (the statement without assumptions)."""
    if not isinstance(st, Mapping) or not set(st) <= {"kind", "symbols", "goals", "assume"} or st.get("kind", KIND) != KIND:
        raise Bad("statement keys")
    try:
        if len(json.dumps(st)) > MAX_JSON:
            raise Bad("statement too large")
    except (TypeError, ValueError, RecursionError) as exc:
        raise Bad("statement is not JSON data") from exc
    scope: dict[str, tuple] = {}
    symbols = _decls(st.get("symbols"), scope, _SCALAR + _FAMILY + ("function",))
    assume = _relations(st.get("assume", []), scope, set(), MAX_ASSUME)
    goals, names = [], set()
    if not isinstance(st.get("goals"), list) or not 1 <= len(st["goals"]) <= MAX_GOALS:
        raise Bad("goals")
    for g, rel in zip(st["goals"], _relations(st["goals"], scope, {"name", "attained"}, MAX_GOALS), strict=True):
        nm = _text(g.get("name"))
        if nm in names:
            raise Bad("goal name")
        names.add(nm)
        out = {"name": nm, **rel}
        if "attained" in g:
            att = g["attained"]
            if not isinstance(att, list) or not 1 <= len(att) <= MAX_SYMBOLS:
                raise Bad("attained")
            pts = [[p[0], canon_term(p[1], scope)] for p in att if isinstance(p, list) and len(p) == 2
                   and isinstance(p[0], str) and scope.get(p[0], ("",))[0] in (*_LOCAL, "bounded", *_FAMILY)]
            if len(pts) != len(att) or len({p[0] for p in pts}) != len(pts):
                raise Bad("attained point")
            out["attained"] = pts
        goals.append(out)
    return {"kind": KIND, "symbols": symbols, "goals": goals, **({"assume": assume} if assume else {})}


def implies(a: Any, b: Any) -> bool:
    """Statement ``a`` implies ``b``: the same declarations, every assumption of ``a`` is an assumption of ``b`` and
    every goal of ``b`` is a goal of ``a``.  Sound: a point of the domain satisfying ``b``'s assumptions satisfies
    ``a``'s, where every goal of ``a`` holds."""
    try:
        ca, cb = canonical_statement(a), canonical_statement(b)
    except (ValueError, TypeError, RecursionError):
        return False
    return ca["symbols"] == cb["symbols"] and all(x in cb.get("assume", []) for x in ca.get("assume", [])) \
        and all(g in ca["goals"] for g in cb["goals"])


# -------------------------------------------------------------------------------------- checking
class _Checker:
    def __init__(self, st: dict[str, Any], deadline: float) -> None:
        self.ctx = Ctx(deadline)
        self.st = st
        self.scope: dict[str, tuple] = {}
        self.var: dict[str, int] = {}
        self.cache: dict[str, Nf] = {}
        self.bvar = self.ctx.bvar
        self.lemmas: dict[str, dict[str, Any]] = {}
        self.families: dict[str, Any] = {}  # a counterexample's family values (terms in the index)
        self.members: set[tuple[str, int]] = set()  # the family members a value at a point used
        for d in st["symbols"]:
            self.declare(d)
        #: the assumptions ``(rel, lhs, rhs)``: every claim of the check is made at points satisfying all of them
        self.assume = [(a["rel"], self.nf(a["lhs"]), self.nf(a["rhs"])) for a in st.get("assume", [])]

    def declare(self, d: list[Any]) -> None:
        nm, kind = d[0], d[1]
        self.scope[nm] = (kind, d[2]) if kind == "function" else (kind,)
        if kind != "function":
            depth = int(kind == "family_bounded")
            x = self.ctx.declare(nm, kind, (self.nf(d[2], depth), self.nf(d[3], depth)) if "bounded" in kind else None)
            if x is not None:
                self.var[nm] = nfm.used(x).pop()

    def nf(self, t: Any, depth: int = 0, pt: tuple[dict[str, Nf], int] | None = None) -> Nf:
        """Normal form of a canonical term (memoised by its JSON); with ``pt`` (values of the symbols, the index),
        its value at that point (:meth:`value`)."""
        if pt is not None:
            return self._nf(t, depth, pt)
        key = f"{depth}{json.dumps(t)}"
        if key not in self.cache:
            self.cache[key] = self._nf(t, depth, None)
        return self.cache[key]

    def _nf(self, t: Any, depth: int, pt: tuple[dict[str, Nf], int] | None) -> Nf:
        c, h, a = self.ctx, t[0], t[1:]
        if h == "q":
            return nfm.const(Fraction(a[0]))
        if pt is not None and h in ("v", "b", "at", "d", "sum"):
            return self.value(t, depth, pt)
        if h == "v":
            return (nfm._GENS[self.var[a[0]]], nfm._ONE_P)
        if h == "b":
            return self.bvar
        xs = [self.nf(x, depth, pt) for x in a] if h in ("+", "*", "/", "max", "exp", "log", "rpow") else \
            [self.nf(a[0], depth, pt)] if h == "^" else []
        if h == "+":
            return c.total(xs)
        if h == "*":
            return functools.reduce(c.mul, xs, ONE)
        if h == "/":
            return c.mul(xs[0], c.inv(xs[1]))
        if h in ("^", "exp", "log", "max"):
            return {"^": lambda: c.pow(xs[0], a[1]), "exp": lambda: c.exp(xs[0]), "log": lambda: c.log(xs[0]),
                    "max": lambda: c.max(*xs)}[h]()
        if h == "rpow":
            if c.sign_of(xs[0]) != POS:
                raise NotProved("rpow of a base not proved > 0")
            return c.exp(c.mul(xs[1], c.log(xs[0])))
        if h == "fn":
            args = tuple(self.nf(x, depth, pt) for x in a[1:])
            return c.fn(a[0], (0,) * len(args), args)
        if h == "at":
            return c.at(a[0], c.fsign[a[0]], self.nf(a[1], depth))
        if h == "d":
            if set(a[1]) & self.ctx.in_ranges:
                raise NotProved("derivative in a variable that a range uses")
            out = self.nf(a[0], depth)
            for x in a[1]:
                out = c.diff(out, self.var[x])
            return out
        if h == "sum":
            return c.sum(self.nf(a[0], 1), self.nf(a[1]), self.nf(a[2]), nfm.used(self.bvar).pop())
        raise NotProved("head")

    def value(self, t: Any, depth: int, pt: tuple[dict[str, Nf], int]) -> Nf:
        """The value of a symbol, the index, a family member, a derivative or a sum at the point ``pt`` (the
        other heads are the constructors of :meth:`_nf` on values).  Families are evaluated only at integer
        indices, each recorded in ``self.members`` (:func:`_refutes` checks the family's kind there); a sum
        ``sum_{i=lo}^{hi}`` with integer limits ``hi >= lo - 1`` is its terms added (axiom 7); a derivative is
        refused (a substitution goes through :meth:`.normal_form.Ctx.point` only)."""
        c, (vals, k), h, a = self.ctx, pt, t[0], t[1:]
        if h == "v":
            return vals[a[0]]
        if h == "b":
            return nfm.const(k)
        if h == "at":
            i = _integer(self.nf(a[1], depth, pt))
            self.members.add((a[0], i))
            return self.nf(self.families[a[0]], 1, ({}, i))
        if h == "sum":
            lo, hi = (_integer(self.nf(x, depth, pt)) for x in a[1:])
            if not lo - 1 <= hi <= lo + MAX_TERMS_AT:
                raise NotProved("summation range at the point")
            return c.total([self.nf(a[0], 1, (vals, i)) for i in range(lo, hi + 1)])
        raise NotProved("a derivative at a point (state the derivative's closed form instead)")

    def term(self, t: Any, scope: Mapping[str, tuple], depth: int = 0) -> Nf:
        return self.nf(canon_term(t, scope, depth), depth)

    # ---------------------------------------------------------------- non-negativity by representation
    def rep(self, terms: Any, scope: Mapping[str, tuple], hyp: Nf | None, depth: int = 0) -> Nf:
        """A *representation* ``sum_j c_j prod_k g_jk``: rationals ``c_j >= 0``, at most 8 generators per product
        (:meth:`generator`).  Sound: each generator is ``>= 0`` at every point of the domain satisfying the
        assumptions (in a case branch: where its hypothesis holds; in a sum body, ``depth`` 1: at every integer
        value of the index), so every product and every non-negative combination is."""
        if not isinstance(terms, list) or not 1 <= len(terms) <= MAX_REP:
            raise Bad("representation")
        c, out = self.ctx, []
        for item in terms:
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], list) or len(item[1]) > MAX_GENS:
                raise Bad("representation term")
            coef = _rat(item[0])
            if coef < 0:
                raise NotProved("negative coefficient")
            prod = nfm.const(coef)
            for g in item[1]:
                prod = c.mul(prod, self.generator(g, scope, hyp, depth))
            out.append(prod)
        return c.total(out)

    def generator(self, g: Any, scope: Mapping[str, tuple], hyp: Nf | None, depth: int = 0) -> Nf:
        """The closed list, each ``>= 0``: ``["sq", T]`` (a real square), ``["pos", T]`` (the sign test),
        ``["lo", y]`` / ``["hi", y]`` (``y - lo``, ``hi - y`` of a bounded ``y``: its declared range),
        ``["hyp"]`` (the case hypothesis, in a branch only), ``["exp1", T]`` (``exp T - 1 - T``, axiom 4),
        ``["assume", k]`` / ``["assume_rev", k]`` (``rhs_k - lhs_k``; ``lhs_k - rhs_k`` of an ``==`` assumption),
        in a sum body ``["flo", x]`` / ``["fhi", x]`` (``x_i - lo_i``, ``hi_i - x_i`` of a ``family_bounded`` ``x``
        at the index ``i``), ``["sum", lo, hi, R]`` (:meth:`sum_rep`), ``["max_ge", a, b]`` (``max(a, b) - a``:
        ``max`` is at least each argument) and ``["max_le", a, b, R]`` (``a - max(a, b)``, which is 0 where the
        representation ``R`` of ``a - b`` holds: axiom 5).

        Sound: an assumption holds at every point the statement speaks of; a family's range holds at every
        integer index (its declaration), and a sum body's index takes integer values only.  Every other term is
        proved ``>= 0`` on the whole domain, for every real value of the index."""
        c = self.ctx
        if not isinstance(g, list) or not g:
            raise Bad("generator")
        if g[0] == "sq" and len(g) == 2:  # a real term squared
            return c.pow(self.term(g[1], scope, depth), 2)
        if g[0] == "pos" and len(g) == 2:  # sign by the kernel's coefficient test
            x = self.term(g[1], scope, depth)
            if c.sign_of(x) < NONNEG:
                raise NotProved("generator not proved >= 0")
            return x
        if g[0] in ("lo", "hi", "flo", "fhi") and len(g) == 2 and scope.get(g[1], ("",))[0] == \
                ("family_bounded" if g[0][0] == "f" else "bounded") and depth >= (g[0][0] == "f"):
            lo, hi = self.ctx.domain[g[1]][2]
            y = c.at(g[1], c.fsign[g[1]], self.bvar) if g[0][0] == "f" else (nfm._GENS[self.var[g[1]]], nfm._ONE_P)
            return c.sub(y, lo) if g[0][-2:] == "lo" else c.sub(hi, y)
        if g[0] == "hyp" and len(g) == 1 and hyp is not None:
            return hyp
        if g[0] == "exp1" and len(g) == 2:  # axiom: exp(u) >= 1 + u for real u
            u = self.term(g[1], scope, depth)
            return c.sub(c.exp(u), c.add(ONE, u))
        if g[0] in ("assume", "assume_rev") and len(g) == 2 and 0 <= _int(g[1], MAX_ASSUME) < len(self.assume):
            rel, lhs, rhs = self.assume[g[1]]
            if g[0] == "assume_rev" and rel != "==":
                raise NotProved("assume_rev of an inequality")
            return c.sub(rhs, lhs) if g[0] == "assume" else c.sub(lhs, rhs)
        if g[0] == "sum" and len(g) == 4 and not depth:
            return self.sum_rep(g[1], g[2], g[3], scope, hyp)
        if g[0] in ("max_ge", "max_le") and len(g) == 3 + (g[0] == "max_le"):  # axiom 5
            a, b = self.term(g[1], scope, depth), self.term(g[2], scope, depth)
            if g[0] == "max_le" and not c.eq(c.sub(a, b), self.rep(g[3], scope, hyp, depth)):
                raise NotProved("max_le: a - b not represented")
            return c.sub(c.max(a, b), a) if g[0] == "max_ge" else c.sub(a, c.max(a, b))
        raise Bad("generator kind")

    def sum_rep(self, lo: Any, hi: Any, body: Any, scope: Mapping[str, tuple], hyp: Nf | None) -> Nf:
        """``sum_{i=lo}^{hi} R_i`` for a representation ``R`` checked in the scope of a sum body (index
        ``["b", 0]``).  Sound: :meth:`.normal_form.Ctx.sum` forms the sum only over a genuine range (limits
        integers or counts, ``hi >= lo - 1`` proved; an empty range gives 0); each ``R_i`` with ``i`` an integer
        of the range is ``>= 0`` (:meth:`generator`; the hypothesis and assumptions do not use the index), so
        their finite sum is."""
        return self.ctx.sum(self.rep(body, scope, hyp, 1), self.term(lo, scope), self.term(hi, scope), nfm.used(self.bvar).pop())

    # ---------------------------------------------------------------- rules
    def link(self, prev: Nf, lk: Any, scope: Mapping[str, tuple], hyp: Nf | None) -> tuple[str, Nf]:
        """One step ``prev rel next`` of a chain, by its rule; each is sound at every point of the domain:

        * ``identity`` (``==``): equal normal forms are equal reduced rational functions in the same atoms, and
          an atom's value is determined by its key;
        * ``sos`` (``<=``): ``next - prev`` equals a representation (:meth:`rep`), which is ``>= 0``;
        * ``log_mono`` (``<=``): ``prev = c log a``, ``next = c log b``, ``c >= 0`` by the sign test, ``a, b > 0``
          (else ``log`` is not formed), ``b - a`` a representation: ``log`` is increasing (axiom 2);
        * ``max`` (``==``): with ``a - b`` a representation, ``max(a, b) = a`` pointwise (axiom 5), so replacing
          the atom by ``a`` in both sides keeps their values (and their denominators' non-zero values); the sides
          must then agree cross-multiplied;
        * ``sum_mono`` (``<=``): :meth:`sum_mono`;
        * ``assume_eq`` (``==``): ``next - prev = sum_k T_k (rhs_k - lhs_k)`` over ``==`` assumptions ``k`` with
          multipliers ``T_k`` (terms, defined on the whole domain): each ``rhs_k - lhs_k`` is 0 at every point the
          statement speaks of, so ``next = prev`` there."""
        c = self.ctx
        c.tick()
        if not isinstance(lk, Mapping) or lk.get("rel") not in ("==", "<=") or "expr" not in lk:
            raise Bad("link")
        rel, by, nxt = lk["rel"], lk.get("by"), self.term(lk["expr"], scope)
        if by == "identity" and rel == "==":
            ok = c.eq(prev, nxt)
        elif by == "sos" and rel == "<=":
            ok = c.eq(c.sub(nxt, prev), self.rep(lk.get("terms"), scope, hyp))
        elif by == "log_mono" and rel == "<=":
            k, a, b = (self.term(lk.get(x), scope) for x in ("c", "a", "b"))
            ok = c.sign_of(k) >= NONNEG and c.eq(prev, c.mul(k, c.log(a))) and c.eq(nxt, c.mul(k, c.log(b))) \
                and c.eq(c.sub(b, a), self.rep(lk.get("terms"), scope, hyp))
        elif by == "max" and rel == "==":  # axiom: max(a, b) = a when a - b >= 0
            a, b = self.term(lk.get("a"), scope), self.term(lk.get("b"), scope)
            if not c.eq(c.sub(a, b), self.rep(lk.get("terms"), scope, hyp)):
                raise NotProved("max: a - b not represented")
            key = ("max", *sorted((nfm.nkey(a), nfm.nkey(b))))
            j = c.index.get(key)
            if j is None:
                raise NotProved("max: no such atom")
            at = lambda z: c.poly_at(z, lambda i: a if i == j else (nfm._GENS[i], nfm._ONE_P))  # noqa: E731
            # max(a, b) = a on this domain, so prev's and next's denominators stay non-zero at a
            ok = c.eq(c.mul(at(prev[0]), at(nxt[1])), c.mul(at(nxt[0]), at(prev[1])))
        elif by == "sum_mono" and rel == "<=":
            ok = self.sum_mono(prev, nxt, lk, scope)
        elif by == "assume_eq" and rel == "==" and isinstance(lk.get("mult"), list) and len(lk["mult"]) <= MAX_ASSUME:
            parts = []
            for m in lk["mult"]:
                if not isinstance(m, list) or len(m) != 2 or not 0 <= _int(m[0], MAX_ASSUME) < len(self.assume) \
                        or self.assume[m[0]][0] != "==":
                    raise Bad("assume_eq multiplier")
                parts.append(c.mul(self.term(m[1], scope), c.sub(self.assume[m[0]][2], self.assume[m[0]][1])))
            ok = c.eq(c.sub(nxt, prev), c.total(parts))
        else:
            raise Bad("rule")
        if not ok:
            raise NotProved(f"{by} step fails")
        return rel, nxt

    def sum_mono(self, prev: Nf, nxt: Nf, lk: Mapping[str, Any], scope: Mapping[str, tuple]) -> bool:
        """``R + sum_i w_i A(t_i) <= R + sum_i w_i B(t_i)`` (any common remainder ``R``: ``prev - sum w A`` and
        ``next - sum w B`` equal) from a proved lemma ``A(x) <= B(x)`` in one variable.
        The kernel substitutes ``t_i`` for ``x`` in the lemma's normal forms itself, through the domain's one door
        (:meth:`.normal_form.Ctx.substitute`: the point ``x = t_i`` is in the lemma's domain, ``t_i`` of ``x``'s
        sign for every real index, for every value of the other names).  Sound: the lemma holds at ``x = t_i`` for
        each index, ``w_i >= 0`` (sign test) keeps the direction, adding over a genuine range (``hi >= lo - 1``) and
        adding ``R`` keep ``<=``.  No capture: the lemma's sides are closed terms without a sum (refused otherwise),
        only ``t_i`` and ``w_i`` use the index."""
        c, lem = self.ctx, self.lemmas.get(lk.get("lemma"))
        if lem is None or lem["rel"] != "<=" or len(lem["vars"]) != 1:
            raise NotProved("sum_mono needs a proved <= lemma in one variable")
        x = self.var[lem["vars"][0][0]]
        t, w = self.term(lk.get("term"), scope, 1), self.term(lk.get("weight"), scope, 1)
        lo, hi = self.term(lk.get("lo"), scope), self.term(lk.get("hi"), scope)
        if c.sign_of(w) < NONNEG:
            raise NotProved("sum_mono weight not proved >= 0")
        if any(c.kind[j][0] == "sum" for j in nfm.used(lem["lhs"]) | nfm.used(lem["rhs"])):
            raise NotProved("sum_mono lemma with a sum")
        bv = nfm.used(self.bvar).pop()
        a, b = (c.sum(c.mul(w, side), lo, hi, bv) for side in c.substitute([lem["lhs"], lem["rhs"]], {x: t}, {}))
        return c.eq(c.sub(prev, a), c.sub(nxt, b))

    def chain(self, ch: Any, lhs: Nf, rhs: Nf, rel: str, scope: Mapping[str, tuple], hyp: Nf | None) -> None:
        """A chain from ``lhs`` to ``rhs`` (compared as normal forms); ``==`` needs every link ``==``.  Sound:
        ``<=`` and ``==`` compose."""
        if not isinstance(ch, list) or not 2 <= len(ch) <= MAX_LINKS + 1:
            raise Bad("chain")
        cur = self.term(ch[0], scope)
        if not self.ctx.eq(cur, lhs):
            raise NotProved("chain does not start at the left side")
        rels = set()
        for lk in ch[1:]:
            r, cur = self.link(cur, lk, scope, hyp)
            rels.add(r)
        if not self.ctx.eq(cur, rhs) or (rel == "==" and rels != {"=="}):
            raise NotProved("chain does not end at the right side with the goal's relation")

    def proof(self, p: Any, lhs: Nf, rhs: Nf, rel: str, scope: Mapping[str, tuple]) -> None:
        """A chain, or ``cases`` on a term ``h``: the first chain with the hypothesis ``h >= 0`` (generator
        ``["hyp"]``), the second with ``-h >= 0``.  Sound: every point has ``h >= 0`` or ``h <= 0``; a branch whose
        hypothesis never holds proves nothing about any point.  No substitution happens here: an attained point
        is checked by :meth:`attained` whatever the proof."""
        if isinstance(p, Mapping) and set(p) == {"chain"}:
            return self.chain(p["chain"], lhs, rhs, rel, scope, None)
        if isinstance(p, Mapping) and set(p) == {"cases", "chains"} and isinstance(p["chains"], list) and len(p["chains"]) == 2:
            h = self.term(p["cases"], scope)  # every point has h >= 0 or -h >= 0
            self.chain(p["chains"][0], lhs, rhs, rel, scope, h)
            return self.chain(p["chains"][1], lhs, rhs, rel, scope, self.ctx.neg(h))
        raise Bad("proof")

    def attained(self, pts: list[list[Any]], lhs: Nf, rhs: Nf) -> None:
        """``lhs == rhs`` at the point: :meth:`.normal_form.Ctx.substitute` proves the point in the domain (with
        every range that depends on it non-empty and containing it), then the identity test, and every assumption
        at the point (``==``: the identity test, ``<=``: the sign test of ``rhs - lhs``).  Sound: the identity and
        the assumptions hold at every point of the non-empty set the substitution leaves, which lies in the
        domain."""
        sym, fam = {}, {}
        for nm, t in pts:
            if nm in self.var:
                sym[self.var[nm]] = self.nf(t)
            else:
                fam[nm] = self.nf(t)
        c, sides = self.ctx, [x for a in self.assume for x in a[1:]]
        a, b, *vals = c.substitute([lhs, rhs, *sides], sym, fam)
        if not c.eq(a, b) or not all(c.eq(x, y) if rel == "==" else c.sign_of(c.sub(y, x)) >= NONNEG
                                     for (rel, _, _), x, y in zip(self.assume, vals[::2], vals[1::2], strict=True)):
            raise NotProved("not attained, or an assumption fails at the point")

    def run(self, ev: Any) -> None:
        """Lemmas first, each proved like a goal with the statement's symbols and its own 1-2 fresh variables in
        scope (sound: it then holds on the whole domain and for all values of its variables); then exactly one
        proof per goal, by name, in the statement's scope, and the goal's ``attained`` point."""
        if not isinstance(ev, Mapping) or set(ev) != {"lemmas", "proofs"} or not isinstance(ev["lemmas"], list) \
                or len(ev["lemmas"]) > MAX_LEMMAS or not isinstance(ev["proofs"], list) or len(ev["proofs"]) > MAX_GOALS:
            raise Bad("evidence")
        base = dict(self.scope)
        for lem in ev["lemmas"]:
            if not isinstance(lem, Mapping) or set(lem) != {"name", "vars", "rel", "lhs", "rhs", "proof"} \
                    or lem["rel"] not in ("<=", "==") or _text(lem["name"]) in self.lemmas:
                raise Bad("lemma")
            scope = dict(base)
            decls = _decls(lem["vars"], scope, _LOCAL)
            if not 1 <= len(decls) <= 2 or any(d[0] in self.scope for d in decls):
                raise Bad("lemma variables")
            for d in decls:
                self.declare(d)
            lhs, rhs = self.term(lem["lhs"], scope), self.term(lem["rhs"], scope)
            self.proof(lem["proof"], lhs, rhs, lem["rel"], scope)
            self.lemmas[lem["name"]] = {"rel": lem["rel"], "vars": decls, "lhs": lhs, "rhs": rhs}
        proofs = {}
        for p in ev["proofs"]:
            if not isinstance(p, Mapping) or _text(p.get("name")) in proofs:
                raise Bad("proof entry")
            proofs[p["name"]] = {k: x for k, x in p.items() if k != "name"}
        if set(proofs) != {g["name"] for g in self.st["goals"]}:
            raise NotProved("one proof per goal")
        for g in self.st["goals"]:
            lhs, rhs = self.nf(g["lhs"]), self.nf(g["rhs"])
            self.proof(proofs[g["name"]], lhs, rhs, g["rel"], base)
            if "attained" in g:
                self.attained(g["attained"], lhs, rhs)


def _check(cert: Any, seconds: float, kind: str = KIND) -> None:
    if not isinstance(cert, Mapping) or cert.get("kind") != kind or cert.get("version") != VERSION \
            or not set(cert) <= {"kind", "version", "title", "citation", "statement", "evidence"}:
        raise Bad("kind/version/keys")
    if len(json.dumps(cert, allow_nan=False)) > MAX_JSON:
        raise Bad("certificate too large")
    for k in ("title", "citation"):
        if k in cert and not (isinstance(cert[k], str) and len(cert[k]) <= 300 and cert[k].isprintable()):
            raise Bad("title/citation: at most 300 printable characters")
    st, deadline = canonical_statement(cert["statement"]), time.perf_counter() + seconds
    if kind == KIND:
        return _Checker(st, deadline).run(cert.get("evidence"))
    return _refutes(st, cert.get("evidence"), deadline)


def _refutes(st: dict[str, Any], ev: Any, deadline: float) -> None:
    """A ``"counterexample"``'s evidence ``{"goal", "point", "margin", "proof"?}`` (:func:`check_counterexample`).

    The point gives every non-function symbol a closed term: a count an integer ``>= 1``, a family ``x`` a term
    ``P`` in the index ``["b", 0]`` (``x_i = P(i)``), any other symbol a value.  The goal's sides and the
    assumptions are evaluated exactly at the point (:meth:`_Checker.value`), which records every family member
    ``(x, i)`` they use; then the domain is checked: each scalar's value has its kind's sign and lies in its
    range (ends evaluated at the point), each recorded member ``P(i)`` has its family's sign and lies in its range
    at ``i`` (members the ranges use are recorded and checked in turn).  Then every assumption holds (``==``:
    identical values, ``<=``: the sign test) and ``lhs - rhs >= margin > 0`` (``<=`` goal) or
    ``|lhs - rhs| >= margin`` (``==`` goal): by the sign test, or by ``proof``, a chain (without assumptions)
    from ``rhs + margin`` to ``lhs`` or, for ``==``, from ``lhs + margin`` to ``rhs``.

    Sound: the members not recorded can be chosen in their ranges (non-empty at every index and every point of
    the domain, proved at declaration), so some point of the domain has exactly the checked values, satisfies
    every assumption and violates the goal; declared functions stay free (the sign test holds for all their
    values, and positive smooth functions exist).  The statement, a claim about every such point, is false."""
    ck = _Checker(st, deadline)
    if not isinstance(ev, Mapping) or not {"goal", "point", "margin"} <= set(ev) <= {"goal", "point", "margin", "proof"} \
            or not isinstance(ev["point"], list):
        raise Bad("evidence")
    c, goal = ck.ctx, next((g for g in st["goals"] if g["name"] == ev["goal"]), None)
    margin, vals = nfm.const(_rat(ev["margin"])), {}
    for p in ev["point"]:
        if not isinstance(p, list) or len(p) != 2 or p[0] not in ck.scope or p[0] in vals or p[0] in ck.families \
                or ck.scope[p[0]][0] == "function":
            raise Bad("point")
        if ck.scope[p[0]][0] in _FAMILY:
            ck.families[p[0]] = canon_term(p[1], {}, 1)
        else:
            vals[p[0]] = ck.nf(canon_term(p[1], {}), 0, ({}, 0))
    names = {d[0] for d in st["symbols"] if d[1] != "function"}
    if goal is None or _rat(ev["margin"]) <= 0 or vals.keys() | ck.families.keys() != names:
        raise NotProved("no such goal, a margin <= 0, or a symbol without a value")
    at = (vals, 0)
    lhs, rhs = ck.nf(goal["lhs"], 0, at), ck.nf(goal["rhs"], 0, at)
    sides = [(a["rel"], ck.nf(a["lhs"], 0, at), ck.nf(a["rhs"], 0, at)) for a in st.get("assume", [])]
    def inside(x: Nf, kind: str, ends: list[Nf]) -> bool:  # the kind's sign, and lo <= x <= hi
        gaps = [c.sub(x, ends[0]), c.sub(ends[1], x)] if ends else []
        return c.sign_of(x) >= nfm.SIGN.get(kind, 0) and all(c.sign_of(g) >= NONNEG for g in gaps)

    for d in (d for d in st["symbols"] if d[0] in vals):  # the scalars
        x, ends = vals[d[0]], [ck.nf(e, 0, at) for e in d[2:]] if d[1] == "bounded" else []
        if d[1] == "count" and (nfm.cval(x) is None or nfm.cval(x).q != 1) or not inside(x, d[1], ends):
            raise NotProved(f"value of {d[0]} outside its domain")
    done: set[tuple[str, int]] = set()
    while ck.members - done:  # the family members used, and those their ranges use
        nm, i = min(ck.members - done)
        done.add((nm, i))
        d, x = next(d for d in st["symbols"] if d[0] == nm), ck.nf(ck.families[nm], 1, ({}, i))
        if not inside(x, d[1], [ck.nf(e, 1, (vals, i)) for e in d[2:]]):
            raise NotProved(f"member {i} of {nm} outside its domain")
    if not all(c.eq(a, b) if rel == "==" else c.sign_of(c.sub(b, a)) >= NONNEG for rel, a, b in sides):
        raise NotProved("an assumption fails at the point")
    ck.assume = []
    for a, b in [(lhs, rhs), (rhs, lhs)][:1 + (goal["rel"] == "==")]:  # b + margin <= a
        try:
            if "proof" in ev:
                return ck.proof(ev["proof"], c.add(b, margin), a, "<=", ck.scope)
            if c.sign_of(c.sub(c.sub(a, b), margin)) >= NONNEG:
                return None
        except NotProved:
            continue
    raise NotProved("the goal holds at the point (up to the margin)")


def check_counterexample(cert: Any, *, seconds: float = MAX_SECONDS) -> bool:
    """True iff ``cert`` is a ``"counterexample"`` certificate: ``{"kind": "counterexample", "version": 1,
    "title", "citation", "statement": <symbolic statement>, "evidence": {"goal": name, "point": [[symbol, T],
    ...], "margin": "p/q", "proof"?: P}}`` whose point refutes the statement (:func:`_refutes`); never raises."""
    return check(cert, seconds=seconds, kind="counterexample")


def check(cert: Any, *, seconds: float = MAX_SECONDS, kind: str = KIND) -> bool:
    """True iff ``cert`` is a ``"symbolic"`` certificate whose evidence proves every goal of its statement (with
    ``kind="counterexample"``: :func:`check_counterexample`); never raises (hostile data, limits and the deadline
    give False)."""
    try:
        _check(cert, seconds, kind)
    except Exception:  # noqa: BLE001 - Bad, NotProved, limits, malformed data, python-flint errors: "not proved"
        return False
    return True


# ------------------------------------------------------------------------------------------ words
_KIND_WORDS = {"real": "{} real", "positive": "{} > 0", "nonnegative": "{} >= 0", "count": "{} integer >= 1",
               "family_real": "{}_i real", "family_positive": "{}_i > 0", "family_nonnegative": "{}_i >= 0"}


def _show(t: list[Any], bound: str, prec: int = 0) -> str:
    """Infix text of a canonical term; precedence 0 sum, 1 product, 2 power/atom, 3 base or exponent of a power
    (sign-correct, every power and sum delimited)."""
    h, a = t[0], t[1:]
    if h in ("v", "b", "at"):
        return a[0] if h == "v" else bound if h == "b" else f"{a[0]}_{_show(a[1], bound, 2)}"
    if h in ("exp", "log", "max", "fn"):  # f(x, ...): the function's name, then its arguments
        name, args = (a[0], a[1:]) if h == "fn" else (h, a)
        return f"{name}({', '.join(_show(x, bound) for x in args)})"
    if h == "q":
        s, wrap = a[0], prec > 0 and ("/" in a[0] or a[0].startswith("-"))
    elif h == "+":  # a sum among the terms is parenthesised: "sum_i i + n" would read as sum_i (i + n)
        parts = [_show(x, bound, 1 if x[0] == "sum" else 0) for x in a]
        s, wrap = parts[0] + "".join(f" - {p[1:]}" if p.startswith("-") else f" + {p}" for p in parts[1:]), prec > 0
    elif h == "*":
        neg = a[0][0] == "q" and a[0][1].startswith("-") and len(a) > 1
        rest = [["q", a[0][1][1:]], *a[1:]] if neg else list(a)
        if rest[0] == ["q", "1"] and len(rest) > 1:
            rest = rest[1:]
        s = "*".join(_show(x, bound, 2) for x in rest)
        s, wrap = f"-{s}" if neg else s, prec > 1 or (neg and prec > 0)
    elif h == "/":
        s, wrap = f"{_show(a[0], bound, 2)}/{_show(a[1], bound, 2)}", prec > 1
    elif h == "^":  # precedence 3 inside a power: (x^2)^3, never x^2^3 (which reads x^(2^3))
        s, wrap = f"{_show(a[0], bound, 3)}^{a[1] if a[1] >= 0 else f'({a[1]})'}", prec > 2
    elif h == "rpow":
        s, wrap = f"{_show(a[0], bound, 3)}^{_show(a[1], bound, 3)}", prec > 2
    elif h == "d":
        s, wrap = (f"d/d{a[1][0]}[{_show(a[0], bound)}]" if len(a[1]) == 1 else
                   f"d^{len(a[1])}/{''.join('d' + x for x in a[1])}[{_show(a[0], bound)}]"), prec > 1
    elif h == "sum":
        s, wrap = f"sum_{{{bound}={_show(a[1], bound)}..{_show(a[2], bound)}}} {_show(a[0], bound, 1)}", prec > 0
    else:
        raise Bad("head")
    return f"({s})" if wrap else s


def describe(st: Any) -> str:
    """The statement in words, from its canonical form only: one line per goal, the mathematics first and the
    goal's name (user text) quoted after it."""
    c = canonical_statement(st)
    names = {d[0] for d in c["symbols"]}
    bound = next(x for x in ("i", "j", "k", "i0", "i1", "i2") if x not in names)
    hyps = []
    for d in c["symbols"]:
        if d[1] in ("bounded", "family_bounded"):
            x = d[0] if d[1] == "bounded" else f"{d[0]}_{bound}"
            hyps.append(f"{_show(d[2], bound)} <= {x} <= {_show(d[3], bound)}")
        elif d[1] == "function":
            hyps.append(f"{d[0]} a positive smooth function of {d[2]} real variable{'s' * (d[2] > 1)}")
        else:
            hyps.append(_KIND_WORDS[d[1]].format(d[0]))
    assume = ", ".join(f"{_show(a['lhs'], bound)} {a['rel']} {_show(a['rhs'], bound)}" for a in c.get("assume", []))
    lines = [f"for all {', '.join(hyps)}{' with ' + assume if assume else ''}:"]
    for g in c["goals"]:
        line = f"  {_show(g['lhs'], bound)} {g['rel']} {_show(g['rhs'], bound)}"
        if "attained" in g:
            line += ", with equality at " + ", ".join(
                f"{p[0]}{'_i' if p[0] in names and any(d[0] == p[0] and d[1] in _FAMILY for d in c['symbols']) else ''}"
                f" = {_show(p[1], bound)}" for p in g["attained"])
        lines.append(f"{line}  [goal {json.dumps(g['name'])}]")
    return "\n".join(lines)
