r"""Symbolic proofs of the analytic lemmas, as JSON certificates re-checked with sympy.

A certificate (``"kind": "sympy-proof"``, ``"version": 2``) is plain data, never code: expressions are nested
lists with whitelisted heads (:func:`to_tree` / :func:`from_tree`), e.g. ``["Mul", ["Rational", "1/4"],
["Pow", ["Symbol", "mu"], ["Integer", "-1"]]]`` for ``1/(4 mu)``.  Nothing from a certificate is ever parsed,
``eval``-ed or ``sympify``-ed; unknown heads, undeclared names, deep or large trees give ``False``.

A certificate separates what is proved (the *statement*) from how (the *evidence*)::

    {"kind": "sympy-proof", "version": 2, "title": str, "citation": str,
     "statement": {"symbols": [[name, kind, ...], ...],
                   "goals": [{"name": str, "rel": "<=" | "==", "lhs": T, "rhs": T,
                              "attained": {"subs": [[name, T], ...]}          (optional)}, ...]},
     "evidence": {"symbols": [[name, kind], ...],
                  "parts": [{"name": str, "goal": {"rel", "lhs", "rhs"},
                             "cases": {"var": x, "param": v, "scale": T}     (optional),
                             "chains": [[T0, link, link, ...], ...],
                             "attained": {"subs": [[name, T], ...]}         (optional)}, ...]}}

The statement reads: for every value of the statement symbols allowed by their declarations (the
hypotheses, ranges included), every goal ``lhs rel rhs`` holds, with equality at the ``attained`` point
when one is given.  The checker derives its obligations from the statement alone: each goal must be proved
by the evidence part of the same name, with the same relation and the same two sides, and that part's goal
may not mention an auxiliary (evidence) symbol.  Evidence symbols are fresh names of the kinds ``real``,
``positive``, ``nonnegative``, ``index``, ``count`` only - never ``bounded``: they range over non-empty
domains and add no hypothesis.  Further parts (premises such as 002 Prop. 1 inside 002 Lemma 2) are checked
like the others.  Version 1 certificates (no statement) are refused.

Symbol kinds: ``real``, ``positive``, ``nonnegative``, ``index`` (an integer summation index),
``count`` (a positive integer), ``bounded`` ``[name, "bounded", low, high]`` (a real number in
``[low, high]``; ``high - low >= 0`` is checked), ``indexed_real`` / ``indexed_positive`` /
``indexed_nonnegative`` (families ``x_i``), ``function`` ``[name, "function", arity]`` (a generic positive
smooth function).  The symbols carry these assumptions into sympy; ``bounded`` ranges enter through the
sign test below.

Expressions are real by construction: ``Pow`` with a non-integer exponent needs a base proved ``>= 0``, with
an exponent not proved ``>= 0`` a base proved ``> 0`` or ``< 0``; ``log`` an argument proved ``> 0``;
``Derivative`` only in ``real`` variables and never of a ``Max``; ``Sum`` limits with ``hi >= lo - 1``.

Each chain is ``e_0 = lhs``, then links ``{"rel", "expr": e_{k+1}, "by", ...}`` ending at ``rhs`` (both ends
checked by exact cancellation).  Rules (each re-derived by the checker):

* ``identity`` (``==``): ``e_{k+1} - e_k`` is zero (derivatives evaluated, then ``expand``, ``cancel``,
  ``expand_log`` with sympy's assumptions, ``simplify`` on small expressions).
* ``sos`` (``<=``): ``e_{k+1} - e_k = sum_j w_j q_j^2`` identically, every weight ``w_j >= 0`` and every
  ``q_j`` real on the declared domain.
* ``log_mono`` (``<=``): ``e_k = c log a``, ``e_{k+1} = c log b``, ``c >= 0``, ``a > 0`` and
  ``b - a = sum_j w_j q_j^2`` as in ``sos``.
* ``sum_mono`` (``<=``): ``e_k = Sum(w A(t_i), (i, lo, hi))``, ``e_{k+1} = Sum(w B(t_i), ...)`` where an
  earlier part proved ``A(x) <= B(x)`` for every real ``x`` and ``w >= 0``, ``t_i`` real.

Sign tests (``>= 0``, ``> 0``, real) are sympy's assumption system on ``factor(together(w))``, after
replacing each bounded symbol ``y in [lo, hi]`` by ``lo``, ``hi`` and ``lo + (hi - lo) a/(a + b)``
(``a, b > 0``) in turn - every combination must pass, which covers the closed range exactly.

``cases`` splits a real variable: ``x = scale log(1 + v)`` and ``x = -scale log(1 + v)`` with ``v >= 0``
and ``scale > 0`` cover ``x >= 0`` and ``x <= 0``; the two chains prove the goal in each.  ``attained``
substitutes a point of the domain where ``lhs == rhs`` exactly (tightness).

:func:`check_symbolic` runs the check in a forked child process with a wall-clock budget
(:data:`MAX_SECONDS`), a CPU-time limit and an address-space cap; a child that overruns, runs out of memory
or dies is killed and the answer is ``False``.  The trusted base is sympy (its simplification and assumption
system), nothing else.  See docs/proofs.md.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

__all__ = ["to_tree", "from_tree", "check_symbolic", "statement_of", "statements_equal", "describe", "goal_of",
           "softplus_smoothness_certificate", "prop1_certificate", "lemma2_certificate", "lemma_c1_certificate",
           "lemma12_certificate", "ALL_CERTIFICATES", "MAX_SECONDS"]

KIND = "sympy-proof"
VERSION = 2
#: wall-clock budget of one check (seconds); the five certificates of this module take at most ~1.5 s
MAX_SECONDS = 5.0
#: address space the checking child may add to the parent's (bytes)
MAX_MEMORY = 2 * 1024 ** 3
#: ``len(json.dumps(certificate))`` at most this (the largest certificate here is ~20 KB)
MAX_JSON = 200_000
MAX_DEPTH = 40
MAX_NODES = 4000
MAX_POW = 16
MAX_SYMBOLS = 40
MAX_PARTS = 12
MAX_GOALS = 12
MAX_LINKS = 12
MAX_TERMS = 12
MAX_BOUNDED = 6
MAX_DEGREE = 64
MAX_SUM_LIMIT = 100
#: product of the numeric ranges of nested sums (what ``doit`` could expand to)
MAX_SUM_TERMS = 1000
#: sums nested inside each other at most this deep (symbolic limits make ``doit`` run Faulhaber-type closed forms)
MAX_SUM_NESTING = 2
#: ``exp`` / ``log`` nested inside each other at most this deep (``log(1 + exp(x))`` is 2)
MAX_NESTING = 3
MAX_DERIVATIVES = 8
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,23}")
_INT = re.compile(r"-?[0-9]{1,40}")
_RAT = re.compile(r"-?[0-9]{1,40}/[0-9]{1,40}")
_KINDS = ("real", "positive", "nonnegative", "index", "count", "bounded", "indexed_real", "indexed_positive",
          "indexed_nonnegative", "function")
#: kinds an evidence (auxiliary) symbol may have: non-empty domains that constrain no statement symbol
_AUX_KINDS = ("real", "positive", "nonnegative", "index", "count")


class _Bad(Exception):
    """Malformed, hostile or unproved certificate data (never escapes the public functions)."""


# --------------------------------------------------------------------------------------- serialisation


def to_tree(e: Any) -> Any:
    """``e`` (a sympy expression) as a nested JSON list with whitelisted heads; raises
    :class:`~fairtheory.errors.FairtheoryTypeError` for anything else (a string is never parsed)."""
    if isinstance(e, (str, bytes)) or e is None:
        raise FairtheoryTypeError(f"to_tree: e must be a sympy expression or a number, got {type(e).__name__}")
    try:
        e = sp.sympify(e, strict=True)
    except (sp.SympifyError, TypeError, ValueError) as exc:
        raise FairtheoryTypeError(f"to_tree: e must be a sympy expression or a number, got {type(e).__name__}") from exc
    return _to_tree(e)


def _to_tree(e: Any) -> Any:
    if isinstance(e, sp.Integer):
        return ["Integer", str(int(e))]
    if isinstance(e, sp.Rational):
        return ["Rational", f"{e.p}/{e.q}"]
    if isinstance(e, sp.Indexed):
        return ["Indexed", str(e.base.label), str(e.indices[0])]
    if isinstance(e, sp.Symbol):
        return ["Symbol", e.name]
    if isinstance(e, sp.Add):
        return ["Add", *[_to_tree(a) for a in e.args]]
    if isinstance(e, sp.Mul):
        return ["Mul", *[_to_tree(a) for a in e.args]]
    if isinstance(e, sp.Pow):
        return ["Pow", _to_tree(e.base), _to_tree(e.exp)]
    if isinstance(e, sp.exp):
        return ["exp", _to_tree(e.args[0])]
    if isinstance(e, sp.log):
        return ["log", _to_tree(e.args[0])]
    if isinstance(e, sp.Max):
        return ["Max", *[_to_tree(a) for a in e.args]]
    if isinstance(e, sp.Sum):
        (i, lo, hi), = e.limits
        return ["Sum", _to_tree(e.function), str(i), _to_tree(lo), _to_tree(hi)]
    if isinstance(e, sp.Derivative):
        return ["Derivative", _to_tree(e.expr), [[str(v), int(k)] for v, k in e.variable_count]]
    if isinstance(e, sp.core.function.AppliedUndef):
        return ["Function", e.func.__name__, *[_to_tree(a) for a in e.args]]
    raise FairtheoryTypeError(f"to_tree: unsupported expression {type(e).__name__} (allowed: integers, rationals, "
                              "symbols, Indexed, Add, Mul, Pow, exp, log, Max, Sum, Derivative, applied functions)")


class _Env:
    """Declared symbols of one certificate (statement symbols, then evidence symbols), with their sympy
    objects and ranges."""

    def __init__(self, decls: Any, aux: Any = None, seconds: float | None = None) -> None:
        self.deadline = time.perf_counter() + (MAX_SECONDS if seconds is None else seconds)
        self.kind: dict[str, str] = {}
        self.obj: dict[str, Any] = {}
        self.arity: dict[str, int] = {}
        self.bounds: dict[str, tuple[Any, Any]] = {}
        self._declare(decls, _KINDS)
        #: names declared by the statement; the others are auxiliary (evidence) symbols
        self.statement_names = frozenset(self.kind)
        if aux is not None:
            self._declare(aux, _AUX_KINDS)
        self.aux = frozenset(self.kind) - self.statement_names
        if len(self.kind) > MAX_SYMBOLS or len(self.bounds) > MAX_BOUNDED:
            raise _Bad("too many symbols")
        #: symbols some range depends on: never a universally quantified variable of cases / sum_mono
        self.in_bounds = set().union(*[lo.free_symbols | hi.free_symbols for lo, hi in self.bounds.values()])

    def _declare(self, decls: Any, kinds: tuple[str, ...]) -> None:
        if not isinstance(decls, list) or len(decls) > MAX_SYMBOLS:
            raise _Bad("symbols")
        for d in decls:
            if not isinstance(d, list) or len(d) < 2 or not all(isinstance(x, str) for x in d[:2]):
                raise _Bad("symbol declaration")
            name, kind = d[0], d[1]
            if not _NAME.fullmatch(name) or name in self.kind or kind not in kinds:
                raise _Bad("symbol name/kind")
            if kind == "bounded":
                if len(d) != 4:
                    raise _Bad("bounded")
                lo, hi = self.build(d[2]), self.build(d[3])
                if _nonneg(hi - lo, self) is not True:
                    raise _Bad("empty range")
                self.bounds[name] = (lo, hi)
                obj: Any = sp.Symbol(name, real=True)
            elif kind == "function":
                if len(d) != 3 or not isinstance(d[2], int) or isinstance(d[2], bool) or not 1 <= d[2] <= 3:
                    raise _Bad("function")
                obj = sp.Function(name, positive=True)
                self.arity[name] = d[2]
            elif len(d) != 2:
                raise _Bad("declaration length")
            elif kind == "index":
                obj = sp.Symbol(name, integer=True)
            elif kind == "count":
                obj = sp.Symbol(name, integer=True, positive=True)
            elif kind.startswith("indexed_"):
                obj = sp.IndexedBase(name, **{kind[8:]: True})
            else:
                obj = sp.Symbol(name, **{kind: True})
            self.kind[name] = kind
            self.obj[name] = obj

    def sym(self, name: Any, kinds: tuple[str, ...]) -> Any:
        if not isinstance(name, str) or self.kind.get(name) not in kinds:
            raise _Bad("undeclared symbol")
        return self.obj[name]

    def tick(self) -> None:
        if time.perf_counter() > self.deadline:
            raise _Bad("time budget exhausted")

    def build(self, tree: Any) -> Any:
        self.tick()
        if _degree(tree, 0) > MAX_DEGREE:
            raise _Bad("degree too large")
        return _build(tree, self, 0, [0, 0], 1, 0, 0)


_SCALAR = ("real", "positive", "nonnegative", "index", "count", "bounded")


def _int(s: Any) -> int:
    if not isinstance(s, str) or not _INT.fullmatch(s):
        raise _Bad("integer")
    return int(s)


def _degree(t: Any, depth: int) -> int:
    """Polynomial degree bound of a tree: what ``expand`` could produce (checked before anything is built)."""
    if depth > MAX_DEPTH or not isinstance(t, list) or not t or not isinstance(t[0], str):
        raise _Bad("tree")
    head, args = t[0], t[1:]
    if head in ("Integer", "Rational", "Symbol", "Indexed"):
        return 1
    if head in ("Add", "Max", "Mul"):
        if not args:
            raise _Bad("empty")
        ds = [_degree(a, depth + 1) for a in args]
        return sum(ds) if head == "Mul" else max(ds)
    if head == "Pow" and len(args) == 2:
        e = args[1]
        k = 1
        if isinstance(e, list) and len(e) == 2 and e[0] == "Integer":
            k = abs(_int(e[1]))
        elif isinstance(e, list) and len(e) == 2 and e[0] == "Rational" and isinstance(e[1], str) and _RAT.fullmatch(e[1]):
            k = abs(int(e[1].split("/")[0]))
        return max(min(k, 10 ** 6), 1) * _degree(args[0], depth + 1)
    if head in ("exp", "log", "Sum", "Derivative") and args:
        return _degree(args[0], depth + 1)
    if head == "Function":
        return sum(_degree(a, depth + 1) for a in args[1:]) or 1
    raise _Bad(f"head {head!r}")


def _build(t: Any, env: _Env, depth: int, count: list[int], span: int, nest: int, sums: int) -> Any:
    """The sympy expression of a tree; every ``Pow`` / ``log`` is real-valued on the declared domain.  ``span``:
    product of the numeric ranges of the enclosing sums, ``nest``: enclosing ``exp`` / ``log``, ``sums``:
    enclosing sums."""
    count[0] += 1
    if depth > MAX_DEPTH or count[0] > MAX_NODES or not isinstance(t, list) or not t or not isinstance(t[0], str):
        raise _Bad("tree")
    head, args = t[0], t[1:]

    def sub(x: Any, span_: int = span, nest_: int = nest, sums_: int = sums) -> Any:
        return _build(x, env, depth + 1, count, span_, nest_, sums_)

    if head == "Integer" and len(args) == 1:
        return sp.Integer(_int(args[0]))
    if head == "Rational" and len(args) == 1:
        if not isinstance(args[0], str) or not _RAT.fullmatch(args[0]):
            raise _Bad("rational")
        p, q = args[0].split("/")
        if int(q) == 0:
            raise _Bad("zero denominator")
        return sp.Rational(int(p), int(q))
    if head == "Symbol" and len(args) == 1:
        return env.sym(args[0], _SCALAR)
    if head == "Indexed" and len(args) == 2:
        base = env.sym(args[0], ("indexed_real", "indexed_positive", "indexed_nonnegative"))
        return base[env.sym(args[1], ("index",))]
    if head in ("Add", "Mul", "Max") and 1 <= len(args) <= 64:
        xs = [sub(a) for a in args]
        return sp.Add(*xs) if head == "Add" else sp.Mul(*xs) if head == "Mul" else sp.Max(*xs)
    if head == "Pow" and len(args) == 2:
        b, e = sub(args[0]), sub(args[1])
        if e.is_Integer and abs(int(e)) > MAX_POW:
            raise _Bad("power too large")
        if e.is_Rational and not e.is_Integer and (abs(e.p) > MAX_POW or e.q > MAX_POW):
            raise _Bad("power too large")
        if not _power_ok(b, e, env):
            raise _Bad("power not proved real: a non-integer exponent needs a base >= 0, a possibly negative one a base != 0")
        return sp.Pow(b, e)
    if head in ("exp", "log") and len(args) == 1:
        if nest + 1 > MAX_NESTING:
            raise _Bad("exp/log nested too deep")
        x = sub(args[0], nest_=nest + 1)
        if head == "exp":
            return sp.exp(x)
        if not _log_ok(x, env):
            raise _Bad("log of an argument not proved > 0")
        return sp.log(x)
    if head == "Sum" and len(args) == 4:
        if sums + 1 > MAX_SUM_NESTING:
            raise _Bad("sums nested too deep")
        i = env.sym(args[1], ("index",))
        lims = [sub(args[2]), sub(args[3])]
        for lim in lims:
            ok = (lim.is_Integer and abs(int(lim)) <= MAX_SUM_LIMIT) or \
                (lim.is_Symbol and env.kind.get(lim.name) == "count" and env.obj[lim.name] == lim)
            if not ok:
                raise _Bad("summation limit")
        lo, hi = lims
        if not _nonneg(hi - lo + 1, env):  # sympy's Karr convention: Sum(f, (i, 3, 1)) = -f(2), not an empty sum
            raise _Bad("summation range not proved hi >= lo - 1")
        if lo.is_Integer and hi.is_Integer:
            span *= max(int(hi) - int(lo) + 1, 1)
            if span > MAX_SUM_TERMS:
                raise _Bad("nested sums too long")
        return sp.Sum(sub(args[0], span_=span, sums_=sums + 1), (i, lo, hi))
    if head == "Derivative" and len(args) == 2 and isinstance(args[1], list) and 1 <= len(args[1]) <= 3:
        count[1] += 1
        if count[1] > MAX_DERIVATIVES:
            raise _Bad("too many derivatives")
        expr = sub(args[0])
        if expr.has(sp.Max):
            raise _Bad("derivative of a Max")
        vc = []
        for pair in args[1]:
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[1], int) or isinstance(pair[1], bool) \
                    or not 1 <= pair[1] <= 3:
                raise _Bad("derivative order")
            vc.append((env.sym(pair[0], ("real",)), pair[1]))
        return sp.Derivative(expr, *vc)
    if head == "Function" and 2 <= len(t) <= 5:
        f = env.sym(args[0], ("function",))
        if len(args) - 1 != env.arity[args[0]]:
            raise _Bad("function arity")
        return f(*[sub(a) for a in args[1:]])
    raise _Bad(f"head {head!r}")


def _power_ok(b: Any, e: Any, env: _Env) -> bool:
    """``b^e`` is a real number for every value of the declared symbols: ``b >= 0`` unless ``e`` is an integer,
    ``b != 0`` (proved ``> 0`` or ``< 0``) unless ``e >= 0``."""
    env.tick()
    if e.is_integer is not True and not _nonneg(b, env):
        return False
    return e.is_nonnegative is True or _positive(b, env) or _positive(-b, env)


def _log_ok(x: Any, env: _Env) -> bool:
    """``log x`` is a real number for every value of the declared symbols: ``x > 0``."""
    env.tick()
    return _positive(x, env)


def _names(t: Any) -> set[str]:
    """Every name a (validated) tree mentions: symbols, indexed bases and indices, summation indices,
    differentiation variables, functions."""
    out: set[str] = set()
    stack = [t]
    while stack:
        x = stack.pop()
        if not isinstance(x, list) or not x:
            continue
        head = x[0]
        if head == "Symbol":
            out.add(x[1])
        elif head == "Indexed":
            out.update(x[1:3])
        elif head == "Sum":
            out.add(x[2])
            stack.extend([x[1], x[3], x[4]])
        elif head == "Derivative":
            stack.append(x[1])
            out.update(p[0] for p in x[2])
        elif head == "Function":
            out.add(x[1])
            stack.extend(x[2:])
        elif head not in ("Integer", "Rational"):
            stack.extend(x[1:])
    return out


def from_tree(tree: Any, symbols: Any) -> Any:
    """Rebuild an expression from its tree and symbol declarations (a certificate's
    ``statement["symbols"] + evidence["symbols"]``); raises ``ValueError`` on anything outside the whitelist."""
    try:
        return _Env(symbols).build(tree)
    except _Bad as exc:
        raise FairtheoryValueError(f"from_tree: not a valid expression tree for these symbols: {exc}") from None
    except (TypeError, ValueError, AttributeError, RecursionError) as exc:  # e.g. a bounded range of a wrong kind
        raise FairtheoryValueError(f"from_tree: not a valid expression tree for these symbols ({type(exc).__name__})") \
            from None


# ------------------------------------------------------------------------------------------- deciders


def _is_zero(d: Any) -> bool:
    """``d == 0`` identically (exact sympy transformations only)."""
    if d.has(sp.Derivative):
        d = d.doit()
    if d == 0:
        return True
    for step in (sp.expand, lambda z: sp.cancel(sp.together(sp.expand(z))),
                 lambda z: sp.cancel(sp.expand(sp.expand_log(z, force=False)))):
        z = step(d)
        if z == 0:
            return True
    if sp.count_ops(d) <= 300:
        return sp.simplify(d) == 0
    return False


def _ranges(env: _Env, w: Any) -> list[list[tuple[Any, Any]]]:
    """Substitutions covering every bounded symbol's range; later-declared symbols come first (a range may
    use earlier-declared bounded symbols, which are then replaced in turn)."""
    subs_options = []
    for k, (name, (lo, hi)) in reversed(list(enumerate(env.bounds.items()))):
        a, b = sp.Symbol(f"_a{k}", positive=True), sp.Symbol(f"_b{k}", positive=True)
        y = env.obj[name]
        if y not in w.free_symbols and not any(y in lo_.free_symbols | hi_.free_symbols
                                               for n_, (lo_, hi_) in env.bounds.items() if env.obj[n_] in w.free_symbols):
            continue
        subs_options.append([(y, lo), (y, hi), (y, lo + (hi - lo) * a / (a + b))])
    return [list(c) for c in itertools.product(*subs_options)] if subs_options else [[]]


def _sign_ok(w: Any, env: _Env | None, attr: str) -> bool:
    """``getattr(w, attr) is True`` for every value of the bounded symbols in their ranges."""
    if getattr(w, attr) is True:  # already from the declared assumptions (bounded symbols are real)
        return True
    variants = _ranges(env, w) if env is not None else [[]]
    for s in variants:
        if env is not None:
            env.tick()
        z = w
        for y, val in s:
            z = z.subs(y, val)
        if getattr(z, attr) is True:
            continue
        z = sp.factor(sp.together(z))
        if getattr(z, attr) is not True:
            return False
    return True


def _nonneg(w: Any, env: _Env | None) -> bool:
    return _sign_ok(w, env, "is_nonnegative")


def _positive(w: Any, env: _Env | None) -> bool:
    return _sign_ok(w, env, "is_positive")


def _real(w: Any, env: _Env | None) -> bool:
    return _sign_ok(w, env, "is_real")


# -------------------------------------------------------------------------------------------- checker


def _sos(env: _Env, terms: Any) -> Any:
    """``sum_j w_j q_j^2`` with every ``w_j >= 0`` and every ``q_j`` real on the declared domain."""
    if not isinstance(terms, list) or not 1 <= len(terms) <= MAX_TERMS:
        raise _Bad("terms")
    total = sp.Integer(0)
    for pair in terms:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad("term")
        w, q = env.build(pair[0]), env.build(pair[1])
        if not _nonneg(w, env):
            raise _Bad("weight not provably >= 0")
        if not _real(q, env):
            raise _Bad("squared term not provably real")
        total += w * q ** 2
    return total


def _link(env: _Env, prev: Any, link: Any, proved: list[dict[str, Any]]) -> tuple[str, Any]:
    env.tick()
    if not isinstance(link, Mapping) or link.get("rel") not in ("==", "<=") or "expr" not in link:
        raise _Bad("link")
    rel, by = link["rel"], link.get("by")
    nxt = env.build(link["expr"])
    if by == "identity" and rel == "==":
        if not _is_zero(nxt - prev):
            raise _Bad("identity fails")
    elif by == "sos" and rel == "<=":
        if not _is_zero(nxt - prev - _sos(env, link.get("terms"))):
            raise _Bad("sos identity fails")
    elif by == "log_mono" and rel == "<=":
        c, a, b = (env.build(link.get(k)) for k in ("c", "a", "b"))
        if not (_nonneg(c, env) and _positive(a, env)):
            raise _Bad("log_mono signs")
        if not (_is_zero(prev - c * sp.log(a)) and _is_zero(nxt - c * sp.log(b))
                and _is_zero(b - a - _sos(env, link.get("terms")))):
            raise _Bad("log_mono identity")
    elif by == "sum_mono" and rel == "<=":
        k = link.get("premise")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(proved):
            raise _Bad("premise")
        prem = proved[k]
        x = env.sym(link.get("var"), ("real",))
        if prem["rel"] != "<=" or x not in prem["free"] or x in env.in_bounds:
            raise _Bad("premise variable")
        i = env.sym(link.get("index"), ("index",))
        term, weight = env.build(link.get("term")), env.build(link.get("weight"))
        lo, hi = env.build(link.get("lo")), env.build(link.get("hi"))
        # the limits pass the same test as a Sum in a tree (hi >= lo - 1: a genuine, possibly empty, sum)
        env.build(["Sum", ["Integer", "0"], link.get("index"), link.get("lo"), link.get("hi")])
        if not _real(term, env) or not _nonneg(weight, env):
            raise _Bad("sum_mono term/weight")
        if i in prem["free"] or i in prem["lhs"].free_symbols | prem["rhs"].free_symbols:
            raise _Bad("index clash")
        want_a = sp.Sum(weight * prem["lhs"].subs(x, term), (i, lo, hi))
        want_b = sp.Sum(weight * prem["rhs"].subs(x, term), (i, lo, hi))
        if not (_is_zero(prev - want_a) and _is_zero(nxt - want_b)):
            raise _Bad("sum_mono identity")
    else:
        raise _Bad("rule")
    return rel, nxt


def _chain(env: _Env, chain: Any, lhs: Any, rhs: Any, rel: str, proved: list[dict[str, Any]]) -> None:
    if not isinstance(chain, list) or not 2 <= len(chain) <= MAX_LINKS + 1:
        raise _Bad("chain")
    cur = env.build(chain[0])
    if not _is_zero(cur - lhs):
        raise _Bad("chain does not start at the goal's left side")
    rels = set()
    for link in chain[1:]:
        r, cur = _link(env, cur, link, proved)
        rels.add(r)
    if not _is_zero(cur - rhs):
        raise _Bad("chain does not end at the goal's right side")
    if rel == "==" and rels != {"=="}:
        raise _Bad("an equality goal needs identity links only")


def _in_domain(env: _Env, name: str, val: Any) -> bool:
    kind = env.kind[name]
    if kind == "positive":
        return _positive(val, env)
    if kind == "nonnegative":
        return _nonneg(val, env)
    if kind == "bounded":
        lo, hi = env.bounds[name]
        return _nonneg(val - lo, env) and _nonneg(hi - val, env)
    return kind in ("real", "indexed_real") and _real(val, env)


def _attained(env: _Env, att: Any, lhs: Any, rhs: Any) -> None:
    """``lhs == rhs`` at the point ``att["subs"]`` of the domain (an ``indexed_real`` family is set to one
    value for every index)."""
    if not isinstance(att, Mapping) or set(att) != {"subs"} or not isinstance(att["subs"], list) \
            or not 1 <= len(att["subs"]) <= MAX_SYMBOLS:
        raise _Bad("attained")
    subs: dict[str, Any] = {}
    for pair in att["subs"]:
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str) or pair[0] in subs:
            raise _Bad("attained pair")
        name, val = pair[0], env.build(pair[1])
        env.sym(name, ("real", "positive", "nonnegative", "bounded", "indexed_real"))
        if not _in_domain(env, name, val):
            raise _Bad("attained point outside the domain")
        subs[name] = val

    def at(e: Any) -> Any:
        for name, val in subs.items():
            if env.kind[name] == "indexed_real":
                base = env.obj[name]
                e = e.replace(lambda z, b=base: isinstance(z, sp.Indexed) and z.base == b, lambda z, v=val: v)
            else:
                e = e.subs(env.obj[name], val)
        return e.doit()

    if not _is_zero(at(lhs) - at(rhs)):
        raise _Bad("not attained")


def _goal_trees(g: Any) -> tuple[str, Any, Any]:
    if not isinstance(g, Mapping) or g.get("rel") not in ("<=", "==") or "lhs" not in g or "rhs" not in g:
        raise _Bad("goal")
    return g["rel"], g["lhs"], g["rhs"]


def _part(env: _Env, part: Any, proved: list[dict[str, Any]]) -> dict[str, Any]:
    if not isinstance(part, Mapping):
        raise _Bad("part")
    rel, tl, tr = _goal_trees(part.get("goal"))
    lhs, rhs = env.build(tl), env.build(tr)
    chains = part.get("chains")
    if not isinstance(chains, list):
        raise _Bad("chains")
    cases = part.get("cases")
    if cases is None:
        if len(chains) != 1:
            raise _Bad("one chain without cases")
        _chain(env, chains[0], lhs, rhs, rel, proved)
    else:
        if not isinstance(cases, Mapping) or len(chains) != 2:
            raise _Bad("cases")
        x = env.sym(cases.get("var"), ("real",))
        v = env.sym(cases.get("param"), ("nonnegative",))
        scale = env.build(cases.get("scale"))
        if v in lhs.free_symbols | rhs.free_symbols or x in scale.free_symbols or v in scale.free_symbols \
                or x in env.in_bounds or v in env.in_bounds:
            raise _Bad("case parameter clash")
        if not _positive(scale, env):
            raise _Bad("case scale")
        for sign, chain in zip((1, -1), chains, strict=True):
            val = sign * scale * sp.log(1 + v)
            _chain(env, chain, lhs.subs(x, val), rhs.subs(x, val), rel, proved)
    if part.get("attained") is not None:
        _attained(env, part["attained"], lhs, rhs)
    return {"rel": rel, "lhs": lhs, "rhs": rhs, "free": lhs.free_symbols | rhs.free_symbols}


def _statement_goals(env: _Env, goals: Any) -> dict[str, dict[str, Any]]:
    """The statement's goals by name, built; each may mention statement symbols only."""
    if not isinstance(goals, list) or not 1 <= len(goals) <= MAX_GOALS:
        raise _Bad("goals")
    out: dict[str, dict[str, Any]] = {}
    for g in goals:
        if not isinstance(g, Mapping) or not set(g) <= {"name", "rel", "lhs", "rhs", "attained"}:
            raise _Bad("goal keys")
        name = g.get("name")
        rel, tl, tr = _goal_trees(g)
        if not isinstance(name, str) or not name or len(name) > 80 or name in out:
            raise _Bad("goal name")
        lhs, rhs = env.build(tl), env.build(tr)
        if not (_names(tl) | _names(tr)) <= env.statement_names:
            raise _Bad("a statement goal mentions an undeclared symbol")
        att = g.get("attained")
        if att is not None:
            if not isinstance(att, Mapping) or not isinstance(att.get("subs"), list) \
                    or not all(isinstance(p, list) and len(p) == 2 and p[0] in env.statement_names for p in att["subs"]):
                raise _Bad("attained names")
        out[name] = {"rel": rel, "lhs": lhs, "rhs": rhs, "trees": (tl, tr), "attained": att}
    return out


def _parse_statement(st: Any) -> tuple[_Env, dict[str, dict[str, Any]]]:
    if not isinstance(st, Mapping) or not set(st) <= {"kind", "symbols", "goals"} or st.get("kind", KIND) != KIND:
        raise _Bad("statement")
    env = _Env(st.get("symbols"))
    return env, _statement_goals(env, st.get("goals"))


def _check(d: Any, seconds: float | None = None) -> list[dict[str, Any]]:
    """Every obligation of the statement proved by the evidence (raises :class:`_Bad` otherwise)."""
    if not isinstance(d, Mapping) or d.get("kind") != KIND or d.get("version") != VERSION:
        raise _Bad("kind/version")
    if not set(d) <= {"kind", "version", "title", "citation", "statement", "evidence"}:
        raise _Bad("certificate keys")
    st, ev = d.get("statement"), d.get("evidence")
    if not isinstance(st, Mapping) or not set(st) <= {"kind", "symbols", "goals"} or st.get("kind", KIND) != KIND \
            or not isinstance(ev, Mapping) or not set(ev) <= {"symbols", "parts"}:
        raise _Bad("statement/evidence")
    env = _Env(st.get("symbols"), ev.get("symbols", []), seconds)
    goals = _statement_goals(env, st.get("goals"))
    parts = ev.get("parts")
    if not isinstance(parts, list) or not 1 <= len(parts) <= MAX_PARTS:
        raise _Bad("parts")
    names = [p.get("name") if isinstance(p, Mapping) else None for p in parts]
    if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
        raise _Bad("part names")
    # obligations first (cheap): each goal is the goal of the part of the same name, free of auxiliary symbols
    for name, g in goals.items():
        if name not in names:
            raise _Bad(f"no part proves the goal {name!r}")
        rel, tl, tr = _goal_trees(parts[names.index(name)].get("goal"))
        if rel != g["rel"] or (_names(tl) | _names(tr)) & env.aux:
            raise _Bad(f"the part {name!r} proves another goal")
        if (tl, tr) != g["trees"] and not (_is_zero(env.build(tl) - g["lhs"]) and _is_zero(env.build(tr) - g["rhs"])):
            raise _Bad(f"the part {name!r} proves another goal")
    proved: list[dict[str, Any]] = []
    for part in parts:
        proved.append(_part(env, part, proved))
    for g in goals.values():
        if g["attained"] is not None:
            _attained(env, g["attained"], g["lhs"], g["rhs"])
    return proved


def _check_inline(d: Any, seconds: float | None = None) -> bool:
    """:func:`check_symbolic` in this process (the time budget is only polled between steps, not inside sympy)."""
    try:
        _check(d, seconds)
    except Exception:  # noqa: BLE001 - malformed / hostile data and sympy's own errors all mean "not proved"
        return False
    return True


# ---------------------------------------------------------------------------------- bounded execution


def _bounded(fn: Callable[..., Any], args: tuple[Any, ...], seconds: float, default: Any) -> Any:
    """``fn(*args)`` in a forked child limited to ``seconds`` of wall time, about as much CPU time and
    :data:`MAX_MEMORY` more memory (:func:`fairtheory.proofs.bounded.run_bounded`); ``default`` when the child
    overruns, raises or dies."""
    from fairtheory.proofs.bounded import run_bounded

    if not seconds > 0:
        return default
    status, out = run_bounded(fn, *args, seconds=seconds, memory_bytes=MAX_MEMORY)
    return out if status == "ok" else default


def _budget(seconds: Any) -> float:
    """The wall-clock budget: :data:`MAX_SECONDS` (read at call time) when ``seconds`` is None, else ``seconds`` in
    ``(0, 1e6]`` (a named error otherwise)."""
    if seconds is None:
        return MAX_SECONDS
    from fairtheory._validation import check_in_range

    return check_in_range(seconds, "seconds", low=0.0, high=1e6, low_inclusive=False)


def _json_size_ok(d: Any) -> bool:
    try:
        return len(json.dumps(d, allow_nan=False)) <= MAX_JSON
    except (TypeError, ValueError, RecursionError, OverflowError):
        return False


def check_symbolic(d: Any, *, seconds: float | None = None) -> bool:
    """``True`` iff ``d`` is a well-formed version-2 ``"sympy-proof"`` certificate whose evidence proves every
    goal of its statement, every step re-checked.

    The check runs in a forked child process killed after ``seconds`` of wall time (default
    :data:`MAX_SECONDS`, read at call time) and capped in CPU time and memory.  Never raises: malformed,
    hostile, oversized or slow data gives ``False``."""
    budget = _budget(seconds)
    if not isinstance(d, Mapping) or d.get("kind") != KIND or d.get("version") != VERSION or not _json_size_ok(d):
        return False
    return _bounded(_check_inline, (d, budget), budget, False) is True


def statement_of(cert: Any) -> dict[str, Any] | None:
    """The statement of a version-2 ``"sympy-proof"`` certificate, ``{"kind", "symbols", "goals"}`` (a copy),
    or ``None`` when ``cert`` is not one.  What it means holds only if the certificate re-checks
    (:func:`check_symbolic`)."""
    if not isinstance(cert, Mapping) or cert.get("kind") != KIND or cert.get("version") != VERSION:
        return None
    st = cert.get("statement")
    if not isinstance(st, Mapping) or not isinstance(st.get("symbols"), list) or not isinstance(st.get("goals"), list):
        return None
    if not _json_size_ok(st):
        return None
    return {"kind": KIND, **json.loads(json.dumps({"symbols": st["symbols"], "goals": st["goals"]}))}


def _statements_equal_inline(a: Any, b: Any) -> bool:
    ea, ga = _parse_statement(a)
    eb, gb = _parse_statement(b)
    if set(ea.kind) != set(eb.kind) or set(ga) != set(gb):
        return False
    for name, kind in ea.kind.items():
        if eb.kind[name] != kind or ea.arity.get(name) != eb.arity.get(name) or ea.obj[name] != eb.obj[name]:
            return False
        if kind == "bounded":
            (la, ha), (lb, hb) = ea.bounds[name], eb.bounds[name]
            if not (_is_zero(la - lb) and _is_zero(ha - hb)):
                return False
    for name, x in ga.items():
        y = gb[name]
        if x["rel"] != y["rel"] or (x["attained"] is None) != (y["attained"] is None):
            return False
        if x["trees"] != y["trees"] and not (_is_zero(x["lhs"] - y["lhs"]) and _is_zero(x["rhs"] - y["rhs"])):
            return False
        if x["attained"] is not None:
            pa = {p[0]: ea.build(p[1]) for p in x["attained"]["subs"]}
            pb = {p[0]: eb.build(p[1]) for p in y["attained"]["subs"]}
            if len(pa) != len(x["attained"]["subs"]) or set(pa) != set(pb) or \
                    not all(_is_zero(pa[k] - pb[k]) for k in pa):
                return False
    return True


def _guard(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001 - malformed statements
        return None


def statements_equal(a: Any, b: Any, *, seconds: float | None = None) -> bool:
    """``True`` iff two statements say the same thing: the same declared symbols with the same kinds (bounded
    ranges equal as expressions, function arities equal) and the same goals by name, with the same relation,
    equal sides and the same ``attained`` point.  Checked in a bounded child like :func:`check_symbolic`."""
    budget = _budget(seconds)
    if not (_json_size_ok(a) and _json_size_ok(b)):
        return False
    return _bounded(_guard, (_statements_equal_inline, a, b), budget, False) is True


_HYP = {"positive": "{} > 0", "nonnegative": "{} >= 0", "real": "{} real", "index": "{} integer",
        "count": "{} integer >= 1", "indexed_real": "{}_i real", "indexed_positive": "{}_i > 0",
        "indexed_nonnegative": "{}_i >= 0"}


def _describe_inline(st: Any) -> str:
    env, goals = _parse_statement(st)
    lines = []
    for name, g in goals.items():
        need = _names(g["trees"][0]) | _names(g["trees"][1])
        todo = list(need)
        while todo:  # a bounded symbol's range brings the symbols it uses
            n = todo.pop()
            if n in env.bounds:
                more = {s.name for s in env.bounds[n][0].free_symbols | env.bounds[n][1].free_symbols} - need
                need |= more
                todo.extend(more)
        free = {x.name for x in g["lhs"].free_symbols | g["rhs"].free_symbols if isinstance(x, sp.Symbol)}
        hyps = []
        for n, kind in env.kind.items():
            if n not in need or (kind == "index" and n not in free):  # a summation index is bound, not a hypothesis
                continue
            if kind == "bounded":
                lo, hi = env.bounds[n]
                hyps.append(f"{sp.sstr(lo)} <= {n} <= {sp.sstr(hi)}")
            elif kind == "function":
                hyps.append(f"{n} a positive smooth function of {env.arity[n]} variable{'s' if env.arity[n] > 1 else ''}")
            else:
                hyps.append(_HYP[kind].format(n))
        line = f"{name}: for all {', '.join(hyps)}: {sp.sstr(g['lhs'])} {g['rel']} {sp.sstr(g['rhs'])}"
        if g["attained"] is not None:
            pts = ", ".join(f"{p[0]}{'_i' if env.kind[p[0]] == 'indexed_real' else ''} = {sp.sstr(env.build(p[1]))}"
                            for p in g["attained"]["subs"])
            line += f", with equality at {pts}"
        lines.append(line)
    return "\n".join(lines)


def describe(statement: Any, *, seconds: float | None = None) -> str:
    """The statement in plain text, one line per goal: ``name: for all <hypotheses>: lhs rel rhs[, with
    equality at ...]`` (``sp.sstr`` of the sides; the hypotheses are those of the symbols the goal uses,
    ranges included)."""
    budget = _budget(seconds)
    out = _bounded(_guard, (_describe_inline, statement), budget, None) if _json_size_ok(statement) else None
    return out if isinstance(out, str) else "(not a well-formed sympy-proof statement)"


def goal_of(d: Mapping[str, Any], part: int | str = -1) -> tuple[str, Any, Any]:
    """``(rel, lhs, rhs)`` of one evidence part's goal as sympy expressions, by index (``-len(parts) <= part <
    len(parts)``) or by name.  Raises :class:`~fairtheory.errors.FairtheoryTypeError` /
    ``FairtheoryValueError`` naming the argument when ``d`` is not a ``"sympy-proof"`` certificate with parts, or
    ``part`` names no part."""
    if isinstance(part, bool) or not isinstance(part, (int, str)):
        raise FairtheoryTypeError(f"goal_of: part must be an integer index or a part name, got {part!r}"[:200])
    st = d.get("statement") if isinstance(d, Mapping) else None
    ev = d.get("evidence") if isinstance(d, Mapping) else None
    parts = ev.get("parts") if isinstance(ev, Mapping) else None
    if not isinstance(st, Mapping) or not isinstance(parts, list) or not parts:
        raise FairtheoryValueError("goal_of: d must be a sympy-proof certificate with 'statement' and "
                                   "'evidence': {'parts': [...]} (e.g. prop1_certificate())")
    names = [x.get("name") if isinstance(x, Mapping) else None for x in parts]
    if isinstance(part, str):
        if part not in names:
            raise FairtheoryValueError(f"goal_of: part must be one of the part names {names}, got {part!r}"[:300])
        p = parts[names.index(part)]
    else:
        if not -len(parts) <= part < len(parts):
            raise FairtheoryValueError(f"goal_of: part must lie in [{-len(parts)}, {len(parts) - 1}] (the certificate "
                                       f"has {len(parts)} parts), got {part}")
        p = parts[part]
    try:
        env = _Env(st.get("symbols"), ev.get("symbols", []))
        rel, tl, tr = _goal_trees(p.get("goal") if isinstance(p, Mapping) else None)
        return rel, env.build(tl), env.build(tr)
    except _Bad as exc:
        raise FairtheoryValueError(f"goal_of: the goal of part {part!r} is malformed: {exc}") from None
    except (TypeError, ValueError, AttributeError, RecursionError) as exc:  # sympy on odd declarations
        raise FairtheoryValueError(f"goal_of: the goal of part {part!r} is malformed ({type(exc).__name__})") from None


# ------------------------------------------------------------------------------------ certificate makers

T = to_tree


def _link_t(rel: str, expr: Any, by: str, **w: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"rel": rel, "expr": T(expr), "by": by}
    for k, v in w.items():
        if k == "terms":
            out[k] = [[T(a), T(b)] for a, b in v]
        elif isinstance(v, (int, str)):
            out[k] = v
        else:
            out[k] = T(v)
    return out


def _goal(name: str, rel: str, lhs: Any, rhs: Any, attained: dict[str, Any] | None = None) -> dict[str, Any]:
    """A statement goal ``lhs rel rhs`` (``attained``: ``{symbol name: value}`` where equality holds)."""
    g: dict[str, Any] = {"name": name, "rel": rel, "lhs": T(lhs), "rhs": T(rhs)}
    if attained:
        g["attained"] = {"subs": [[k, T(v)] for k, v in attained.items()]}
    return g


def _proof(g: dict[str, Any], chains: list[list[Any]], **extra: Any) -> dict[str, Any]:
    """The evidence part proving statement goal ``g`` (same name, relation and sides)."""
    return {"name": g["name"], "goal": {k: g[k] for k in ("rel", "lhs", "rhs")}, "chains": chains, **extra}


def _cert(title: str, citation: str, symbols: list[list[Any]], goals: list[dict[str, Any]],
          aux: list[list[Any]], parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": KIND, "version": VERSION, "title": title, "citation": citation,
            "statement": {"symbols": symbols, "goals": goals}, "evidence": {"symbols": aux, "parts": parts}}


def _softplus(z: Any, mu: Any) -> Any:
    return mu * sp.log(1 + sp.exp(z / mu))


def softplus_smoothness_certificate() -> dict[str, Any]:
    r"""002 Sec. 4: ``0 <= softplus_mu''(x) <= 1/(4 mu)`` for all real ``x`` and ``mu > 0``, equality at ``x = 0``.

    ``softplus_mu''(x) = s(1 - s)/mu`` with ``s = sigma(x/mu)`` (identity), and
    ``1/(4 mu) - s(1 - s)/mu = (s - 1/2)^2/mu`` (sum of squares)."""
    mu, x = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True)
    d2 = sp.Derivative(_softplus(x, mu), (x, 2))
    s = 1 / (1 + sp.exp(-x / mu))
    mid = s * (1 - s) / mu
    upper = _goal("upper", "<=", d2, 1 / (4 * mu), {"x": sp.Integer(0)})
    convex = _goal("convex", "<=", sp.Integer(0), d2)
    parts = [_proof(upper, [[T(d2), _link_t("==", mid, "identity"),
                             _link_t("<=", 1 / (4 * mu), "sos", terms=[(1 / mu, s - sp.Rational(1, 2))])]]),
             _proof(convex, [[T(sp.Integer(0)), _link_t("<=", mid, "sos", terms=[(mid, sp.Integer(1))]),
                              _link_t("==", d2, "identity")]])]
    return _cert("softplus_mu'' lies in [0, 1/(4 mu)], tight at x = 0", "002 Sec. 4",
                 [["mu", "positive"], ["x", "real"]], [upper, convex], [], parts)


def _prop1(mu: Any, x: Any, v: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """002 Prop. 1's two goals (the upper one tight at ``x = 0``) and their proofs by cases."""
    gap = _softplus(x, mu) - sp.Max(x, 0)
    cases = {"var": "x", "param": "v", "scale": T(mu)}
    r = (2 + v) / (1 + v)
    chains_up, chains_low = [], []
    for sign in (1, -1):
        xv = sign * mu * sp.log(1 + v)
        g = gap.subs(x, xv)
        chains_up.append([T(g), _link_t("==", mu * sp.log(r), "identity"),
                          _link_t("<=", mu * sp.log(2), "log_mono", c=mu, a=r, b=sp.Integer(2),
                                  terms=[(v / (1 + v), sp.Integer(1))])])
        chains_low.append([T(sp.Integer(0)), _link_t("==", mu * sp.log(1), "identity"),
                           _link_t("<=", mu * sp.log(r), "log_mono", c=mu, a=sp.Integer(1), b=r,
                                   terms=[(1 / (1 + v), sp.Integer(1))]),
                           _link_t("==", g, "identity")])
    up = _goal("gap <= mu log 2", "<=", gap, mu * sp.log(2), {"x": sp.Integer(0)})
    low = _goal("gap >= 0", "<=", sp.Integer(0), gap)
    return [up, low], [_proof(up, chains_up, cases=cases), _proof(low, chains_low, cases=cases)]


def prop1_certificate() -> dict[str, Any]:
    r"""002 Prop. 1 (tight form): ``0 <= softplus_mu(x) - (x)_+ <= mu log 2`` for all real ``x``, ``mu > 0``,
    equality at ``x = 0``.  Cases ``x = +- mu log(1 + v)``, ``v >= 0`` (an evidence symbol): the gap is
    ``mu log((2 + v)/(1 + v))`` and ``1 <= (2 + v)/(1 + v) <= 2``."""
    mu, x, v = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True), sp.Symbol("v", nonnegative=True)
    goals, parts = _prop1(mu, x, v)
    return _cert("(x)_+ <= softplus_mu(x) <= (x)_+ + mu log 2, tight at x = 0", "002 Prop. 1",
                 [["mu", "positive"], ["x", "real"]], goals, [["v", "nonnegative"]], parts)


def lemma2_certificate() -> dict[str, Any]:
    r"""002 Lemma 2 (tight form): ``0 <= F^mu_alpha - F_alpha <= mu tau_alpha log 2`` with
    ``F^mu_alpha - F_alpha = sum_i p_i [(1/alpha_i) softplus_mu(f_i - eta) + eta] - sum_i p_i [(1/alpha_i)(f_i - eta)_+ + eta]``
    and ``tau_alpha = sum_i p_i/alpha_i``, any number ``n`` of clients, ``p_i, alpha_i > 0``; equality when
    every ``f_i = eta``.  002 Prop. 1 (premise parts 0-1, in the evidence symbols ``x``, ``v``) summed with
    weights ``p_i/alpha_i`` (rule ``sum_mono``)."""
    mu, x, v = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True), sp.Symbol("v", nonnegative=True)
    i, n, eta = sp.Symbol("i", integer=True), sp.Symbol("n", integer=True, positive=True), sp.Symbol("eta", real=True)
    p, a, f = sp.IndexedBase("p", positive=True), sp.IndexedBase("alpha", positive=True), sp.IndexedBase("f", real=True)
    xi = f[i] - eta
    Fmu = sp.Sum(p[i] * (_softplus(xi, mu) / a[i] + eta), (i, 1, n))
    F = sp.Sum(p[i] * (sp.Max(xi, 0) / a[i] + eta), (i, 1, n))
    tau = sp.Sum(p[i] / a[i], (i, 1, n))
    w = p[i] / a[i]
    gap_sum = sp.Sum(w * (_softplus(xi, mu) - sp.Max(xi, 0)), (i, 1, n))
    top = sp.Sum(w * mu * sp.log(2), (i, 1, n))
    zero_sum = sp.Sum(w * 0, (i, 1, n))
    common = {"var": "x", "index": "i", "term": xi, "weight": w, "lo": sp.Integer(1), "hi": n}
    up = _goal("F^mu - F <= mu tau_alpha log 2", "<=", Fmu - F, mu * tau * sp.log(2), {"f": eta})
    low = _goal("F^mu - F >= 0", "<=", sp.Integer(0), Fmu - F)
    _, premises = _prop1(mu, x, v)
    parts = premises + [
        _proof(up, [[T(Fmu - F), _link_t("==", gap_sum, "identity"), _link_t("<=", top, "sum_mono", premise=0, **common),
                     _link_t("==", mu * tau * sp.log(2), "identity")]]),
        _proof(low, [[T(sp.Integer(0)), _link_t("==", zero_sum, "identity"),
                      _link_t("<=", gap_sum, "sum_mono", premise=1, **common), _link_t("==", Fmu - F, "identity")]])]
    symbols = [["mu", "positive"], ["eta", "real"], ["i", "index"], ["n", "count"], ["p", "indexed_positive"],
               ["alpha", "indexed_positive"], ["f", "indexed_real"]]
    return _cert("F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha log 2, tight when all f_i = eta", "002 Lemma 2",
                 symbols, [up, low], [["x", "real"], ["v", "nonnegative"]], parts)


def lemma_c1_certificate() -> dict[str, Any]:
    r"""002 Lemma C.1: the Hessian of ``f^{mu,i}(w, eta) = (1/alpha) softplus_mu(f(w) - eta) + eta`` is
    ``(1/alpha) [s(1 - s)/mu gt gt^T + s diag(f''(w), 0)]`` with ``s = sigma((f - eta)/mu)``, ``gt = (f', -1)``
    (identities, scalar ``w``), and for any direction ``u = (u1, u0)``, with ``s in [0, 1]``, ``g = f'(w) in
    [-L2, L2]`` and ``h = f''(w) in [-L1, L1]`` (declared ranges):
    ``|u^T Hess u| <= (1/alpha)(L1 + (L2^2 + 1)/(4 mu)) |u|^2``, which is at most the paper's
    ``(1/alpha)(L1 + (L2^2 + 1)/mu) |u|^2``.  Any dimension: the same bound for
    ``(1/alpha)[s(1-s)/mu a + s k]`` with ``U = |u|^2``, ``G = |grad f|^2 in [0, L2^2]``,
    ``a = (gt.u)^2 in [0, (G + 1) U]`` (Cauchy-Schwarz) and ``k = u_w^T hess f u_w in [-L1 U, L1 U]``."""
    mu, al = sp.Symbol("mu", positive=True), sp.Symbol("alpha", positive=True)
    L1, L2 = sp.Symbol("L1", nonnegative=True), sp.Symbol("L2", nonnegative=True)
    w, eta = sp.Symbol("w", real=True), sp.Symbol("eta", real=True)
    fn = sp.Function("f", positive=True)
    f = fn(w)
    fmu = _softplus(f - eta, mu) / al + eta
    s_w = 1 / (1 + sp.exp(-(f - eta) / mu))
    f1, f2 = sp.Derivative(f, w), sp.Derivative(f, (w, 2))
    pp = s_w * (1 - s_w) / mu
    hess = {"ww": (sp.Derivative(fmu, (w, 2)), (pp * f1 ** 2 + s_w * f2) / al),
            "w eta": (sp.Derivative(fmu, w, eta), -pp * f1 / al),
            "eta eta": (sp.Derivative(fmu, (eta, 2)), pp / al)}
    goals, parts = [], []
    for k, (lhs, rhs) in hess.items():
        goals.append(_goal(f"Hessian {k}", "==", lhs, rhs))
        parts.append(_proof(goals[-1], [[T(lhs), _link_t("==", rhs, "identity")]]))
    s, g, h = sp.Symbol("s", real=True), sp.Symbol("g", real=True), sp.Symbol("h", real=True)
    u1, u0 = sp.Symbol("u1", real=True), sp.Symbol("u0", real=True)
    form = (s * (1 - s) / mu * (g * u1 - u0) ** 2 + s * h * u1 ** 2) / al
    nu = u1 ** 2 + u0 ** 2
    tight = (L1 + (L2 ** 2 + 1) / (4 * mu)) / al
    paper = (L1 + (L2 ** 2 + 1) / mu) / al
    am = 1 / (al * mu)
    up_terms = [((L2 ** 2 - g ** 2) * am / 4, u1), ((L2 ** 2 - g ** 2) * am / 4, u0),
                ((s - sp.Rational(1, 2)) ** 2 * am, g * u1 - u0), (am / 4, g * u0 + u1),
                ((L1 - s * h) / al, u1), (L1 / al, u0)]
    low_terms = [(s * (1 - s) * am, g * u1 - u0), ((L1 + s * h) / al, u1), (L1 / al, u0),
                 ((L2 ** 2 + 1) * am / 4, u1), ((L2 ** 2 + 1) * am / 4, u0)]
    # any dimension: U = |u|^2, G = |grad f|^2 in [0, L2^2], a = (gt.u)^2 in [0, (G + 1) U] (Cauchy-Schwarz),
    # k = u_w^T hess f u_w in [-L1 U, L1 U]; the form is (1/alpha)[s(1-s)/mu a + s k]
    U, G = sp.Symbol("U", nonnegative=True), sp.Symbol("G", real=True)
    a, k = sp.Symbol("a", real=True), sp.Symbol("k", real=True)
    form_d = (s * (1 - s) / mu * a + s * k) / al
    one = sp.Integer(1)
    bounds = [("form <= tight L |u|^2", form, tight * nu, up_terms),
              ("form >= -tight L |u|^2", -tight * nu, form, low_terms),
              ("tight L <= paper L", tight, paper, [(3 * (L2 ** 2 + 1) * am / 4, one)]),
              ("any d: form <= tight L |u|^2", form_d, tight * U,
               [((L2 ** 2 - G) * U * am / 4, one), (((G + 1) * U - a) * am / 4, one),
                ((s - sp.Rational(1, 2)) ** 2 * a * am, one), ((L1 * U - s * k) / al, one)]),
              ("any d: form >= -tight L |u|^2", -tight * U, form_d,
               [(s * (1 - s) * a * am, one), ((L1 * U + s * k) / al, one), ((L2 ** 2 + 1) * U * am / 4, one)])]
    for name, lhs, rhs, terms in bounds:
        goals.append(_goal(name, "<=", lhs, rhs))
        parts.append(_proof(goals[-1], [[T(lhs), _link_t("<=", rhs, "sos", terms=terms)]]))
    symbols = [["mu", "positive"], ["alpha", "positive"], ["L1", "nonnegative"], ["L2", "nonnegative"],
               ["w", "real"], ["eta", "real"], ["f", "function", 1], ["s", "bounded", T(sp.Integer(0)), T(sp.Integer(1))],
               ["g", "bounded", T(-L2), T(L2)], ["h", "bounded", T(-L1), T(L1)], ["u1", "real"], ["u0", "real"],
               ["U", "nonnegative"], ["G", "bounded", T(sp.Integer(0)), T(L2 ** 2)],
               ["a", "bounded", T(sp.Integer(0)), T((G + 1) * U)], ["k", "bounded", T(-L1 * U), T(L1 * U)]]
    return _cert("Hessian of f^{mu,i} and |u^T Hess u| <= (1/alpha)(L1 + (L2^2+1)/(4 mu)) |u|^2 "
                 "<= (1/alpha)(L1 + (L2^2+1)/mu) |u|^2", "002 Lemma C.1", symbols, goals, [], parts)


def lemma12_certificate() -> dict[str, Any]:
    r"""003 Lemma 12: the Hessian of ``f^{q+1}/(q+1)`` is ``q f^{q-1} grad f grad f^T + f^q hess f``
    (identities for a generic positive ``f`` of two variables), and for ``u in R^2``, ``g = grad f``,
    ``h = u^T hess f u / |u|^2 in [-L, L]``, ``F = f(w) > 0``, ``q >= 0``:
    ``|q F^{q-1} (g.u)^2 + F^q h |u|^2| <= (L F^q + q F^{q-1} |g|^2) |u|^2`` (Lagrange's identity
    ``|g|^2 |u|^2 - (g.u)^2 = (g1 u2 - g2 u1)^2``), i.e. the spectral norm is at most ``L_q(w)``.  Any
    dimension: the same with ``G = |g|^2``, ``U = |u|^2``, ``a = (g.u)^2 in [0, G U]`` (Cauchy-Schwarz, a
    declared range) and ``k = u^T hess f u in [-L U, L U]``."""
    q, w1, w2 = sp.Symbol("q", nonnegative=True), sp.Symbol("w1", real=True), sp.Symbol("w2", real=True)
    fn = sp.Function("f", positive=True)
    f = fn(w1, w2)
    obj = f ** (q + 1) / (q + 1)
    goals, parts = [], []
    for a, b, name in ((w1, w1, "11"), (w1, w2, "12"), (w2, w2, "22")):
        lhs = sp.Derivative(obj, a, b) if a != b else sp.Derivative(obj, (a, 2))
        fab = sp.Derivative(f, a, b) if a != b else sp.Derivative(f, (a, 2))
        rhs = q * f ** (q - 1) * sp.Derivative(f, a) * sp.Derivative(f, b) + f ** q * fab
        goals.append(_goal(f"Hessian {name}", "==", lhs, rhs))
        parts.append(_proof(goals[-1], [[T(lhs), _link_t("==", rhs, "identity")]]))
    F, L = sp.Symbol("F", positive=True), sp.Symbol("L", nonnegative=True)
    g1, g2, u1, u2, h = (sp.Symbol(n, real=True) for n in ("g1", "g2", "u1", "u2", "h"))
    gu = g1 * u1 + g2 * u2
    nu, ng = u1 ** 2 + u2 ** 2, g1 ** 2 + g2 ** 2
    form = q * F ** (q - 1) * gu ** 2 + F ** q * h * nu
    Lq = L * F ** q + q * F ** (q - 1) * ng
    c = q * F ** (q - 1)
    # any dimension: G = |g|^2, U = |u|^2, a = (g.u)^2 in [0, G U] (Cauchy-Schwarz), k = u^T hess f u in [-L U, L U]
    G, U = sp.Symbol("G", nonnegative=True), sp.Symbol("U", nonnegative=True)
    a, k = sp.Symbol("a", real=True), sp.Symbol("k", real=True)
    form_d = c * a + F ** q * k
    Lq_d = L * F ** q + c * G
    one = sp.Integer(1)
    bounds = [("form <= L_q |u|^2", form, Lq * nu, [(c, g1 * u2 - g2 * u1), (F ** q * (L - h), u1), (F ** q * (L - h), u2)]),
              ("form >= -L_q |u|^2", -Lq * nu, form, [(c, gu), (c, g1 * u1), (c, g1 * u2), (c, g2 * u1), (c, g2 * u2),
                                                      (F ** q * (L + h), u1), (F ** q * (L + h), u2)]),
              ("any d: form <= L_q |u|^2", form_d, Lq_d * U, [(c * (G * U - a), one), (F ** q * (L * U - k), one)]),
              ("any d: form >= -L_q |u|^2", -Lq_d * U, form_d, [(c * (G * U + a), one), (F ** q * (L * U + k), one)])]
    for name, lhs, rhs, terms in bounds:
        goals.append(_goal(name, "<=", lhs, rhs))
        parts.append(_proof(goals[-1], [[T(lhs), _link_t("<=", rhs, "sos", terms=terms)]]))
    symbols = [["q", "nonnegative"], ["w1", "real"], ["w2", "real"], ["f", "function", 2], ["F", "positive"],
               ["L", "nonnegative"], ["g1", "real"], ["g2", "real"], ["u1", "real"], ["u2", "real"],
               ["h", "bounded", T(-L), T(L)], ["G", "nonnegative"], ["U", "nonnegative"],
               ["a", "bounded", T(sp.Integer(0)), T(G * U)], ["k", "bounded", T(-L * U), T(L * U)]]
    return _cert("Hessian of f^{q+1}/(q+1) and its spectral norm <= L f^q + q f^{q-1} |grad f|^2", "003 Lemma 12",
                 symbols, goals, [], parts)


#: every certificate maker, by short name
ALL_CERTIFICATES = {"softplus_smoothness": softplus_smoothness_certificate, "prop1": prop1_certificate,
                    "lemma2": lemma2_certificate, "lemma_c1": lemma_c1_certificate, "lemma12": lemma12_certificate}
