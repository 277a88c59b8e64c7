r"""Symbolic proofs of the analytic lemmas, as JSON certificates re-checked with sympy.

A certificate (``"kind": "sympy-proof"``) is plain data, never code: expressions are nested lists with
whitelisted heads (:func:`to_tree` / :func:`from_tree`), e.g. ``["Mul", ["Rational", "1/4"], ["Pow",
["Symbol", "mu"], ["Integer", "-1"]]]`` for ``1/(4 mu)``.  Nothing from a certificate is ever parsed,
``eval``-ed or ``sympify``-ed; unknown heads, undeclared names, deep or large trees give ``False``.

Layout::

    {"kind": "sympy-proof", "version": 1, "title": str, "citation": str,
     "symbols": [[name, kind, ...], ...],
     "parts": [{"name": str, "goal": {"rel": "<=" | "==", "lhs": T, "rhs": T},
                "cases": {"var": x, "param": v, "scale": T}          (optional),
                "chains": [[T0, link, link, ...], ...],
                "attained": {"subs": [[name, T], ...]}               (optional)}, ...]}

Symbol kinds: ``real``, ``positive``, ``nonnegative``, ``index`` (an integer summation index),
``count`` (a positive integer), ``bounded`` ``[name, "bounded", low, high]`` (a real number in
``[low, high]``; ``high - low >= 0`` is checked), ``indexed_real`` / ``indexed_positive`` /
``indexed_nonnegative`` (families ``x_i``), ``function`` ``[name, "function", arity]`` (a generic positive
smooth function).  The symbols carry these assumptions into sympy; ``bounded`` ranges are used only by
the non-negativity test below.

A part proves ``lhs rel rhs`` for every value of its symbols allowed by the declarations.  Each chain is
``e_0 = lhs``, then links ``{"rel", "expr": e_{k+1}, "by", ...}`` ending at ``rhs`` (both ends checked
by exact cancellation).  Rules (each re-derived by the checker):

* ``identity`` (``==``): ``e_{k+1} - e_k`` is zero (derivatives evaluated, then ``expand``, ``cancel``,
  ``expand_log`` with sympy's assumptions, ``simplify`` on small expressions).
* ``sos`` (``<=``): ``e_{k+1} - e_k = sum_j w_j q_j^2`` identically, with every weight ``w_j >= 0``.
* ``log_mono`` (``<=``): ``e_k = c log a``, ``e_{k+1} = c log b``, ``c >= 0``, ``a > 0`` and
  ``b - a = sum_j w_j q_j^2`` with ``w_j >= 0``.
* ``sum_mono`` (``<=``): ``e_k = Sum(w A(t_i), (i, lo, hi))``, ``e_{k+1} = Sum(w B(t_i), ...)`` where an
  earlier part proved ``A(x) <= B(x)`` for every real ``x`` and ``w >= 0``, ``t_i`` real.

Non-negativity of a weight is sympy's assumption system (``is_nonnegative``) on ``factor(together(w))``,
after replacing each bounded symbol ``y in [lo, hi]`` by ``lo``, ``hi`` and ``lo + (hi - lo) a/(a + b)``
(``a, b > 0``) in turn - every combination must pass, which covers the closed range exactly.

``cases`` splits a real variable: ``x = scale log(1 + v)`` and ``x = -scale log(1 + v)`` with ``v >= 0``
and ``scale > 0`` cover ``x >= 0`` and ``x <= 0``; the two chains prove the goal in each.  ``attained``
substitutes a point of the domain where ``lhs == rhs`` exactly (tightness).

The trusted base is sympy (its simplification and assumption system), nothing else.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Mapping
from typing import Any

import sympy as sp

__all__ = ["to_tree", "from_tree", "check_symbolic", "goal_of", "softplus_smoothness_certificate",
           "prop1_certificate", "lemma2_certificate", "lemma_c1_certificate", "lemma12_certificate",
           "ALL_CERTIFICATES"]

KIND = "sympy-proof"
MAX_DEPTH = 40
MAX_NODES = 4000
MAX_DIGITS = 40
MAX_POW = 16
MAX_SYMBOLS = 40
MAX_PARTS = 12
MAX_LINKS = 12
MAX_TERMS = 12
MAX_BOUNDED = 6
MAX_DEGREE = 64
#: a check that has run this long stops at its next step with False (hostile certificates cannot loop)
MAX_SECONDS = 60.0
MAX_SUM_LIMIT = 100
MAX_DERIVATIVES = 8
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,23}")
_INT = re.compile(r"-?[0-9]{1,40}")
_RAT = re.compile(r"-?[0-9]{1,40}/[0-9]{1,40}")
_KINDS = ("real", "positive", "nonnegative", "index", "count", "bounded", "indexed_real", "indexed_positive",
          "indexed_nonnegative", "function")


class _Bad(Exception):
    """Malformed or hostile certificate data (never escapes :func:`check_symbolic`)."""


# --------------------------------------------------------------------------------------- serialisation


def to_tree(e: Any) -> Any:
    """``e`` (a sympy expression) as a nested JSON list with whitelisted heads."""
    e = sp.sympify(e)
    if isinstance(e, sp.Integer):
        return ["Integer", str(int(e))]
    if isinstance(e, sp.Rational):
        return ["Rational", f"{e.p}/{e.q}"]
    if isinstance(e, sp.Indexed):
        return ["Indexed", str(e.base.label), str(e.indices[0])]
    if isinstance(e, sp.Symbol):
        return ["Symbol", e.name]
    if isinstance(e, sp.Add):
        return ["Add", *[to_tree(a) for a in e.args]]
    if isinstance(e, sp.Mul):
        return ["Mul", *[to_tree(a) for a in e.args]]
    if isinstance(e, sp.Pow):
        return ["Pow", to_tree(e.base), to_tree(e.exp)]
    if isinstance(e, sp.exp):
        return ["exp", to_tree(e.args[0])]
    if isinstance(e, sp.log):
        return ["log", to_tree(e.args[0])]
    if isinstance(e, sp.Max):
        return ["Max", *[to_tree(a) for a in e.args]]
    if isinstance(e, sp.Sum):
        (i, lo, hi), = e.limits
        return ["Sum", to_tree(e.function), str(i), to_tree(lo), to_tree(hi)]
    if isinstance(e, sp.Derivative):
        return ["Derivative", to_tree(e.expr), [[str(v), int(k)] for v, k in e.variable_count]]
    if isinstance(e, sp.core.function.AppliedUndef):
        return ["Function", e.func.__name__, *[to_tree(a) for a in e.args]]
    raise TypeError(f"to_tree: unsupported expression {type(e).__name__}")


class _Env:
    """Declared symbols of one certificate, with their sympy objects and ranges."""

    def __init__(self, decls: Any) -> None:
        if not isinstance(decls, list) or len(decls) > MAX_SYMBOLS:
            raise _Bad("symbols")
        self.deadline = time.perf_counter() + MAX_SECONDS
        self.kind: dict[str, str] = {}
        self.obj: dict[str, Any] = {}
        self.bounds: dict[str, tuple[Any, Any]] = {}
        for d in decls:
            if not isinstance(d, list) or len(d) < 2 or not all(isinstance(x, str) for x in d[:2]):
                raise _Bad("symbol declaration")
            name, kind = d[0], d[1]
            if not _NAME.fullmatch(name) or name in self.kind or kind not in _KINDS:
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
        if len(self.bounds) > MAX_BOUNDED:
            raise _Bad("too many bounded symbols")
        #: symbols some range depends on: never a universally quantified variable of cases / sum_mono
        self.in_bounds = set().union(*[lo.free_symbols | hi.free_symbols for lo, hi in self.bounds.values()])

    def sym(self, name: Any, kinds: tuple[str, ...]) -> Any:
        if not isinstance(name, str) or self.kind.get(name) not in kinds:
            raise _Bad("undeclared symbol")
        return self.obj[name]

    def build(self, tree: Any) -> Any:
        count = [0, 0]
        out = _build(tree, self, 0, count)
        if _degree(tree) > MAX_DEGREE:
            raise _Bad("degree too large")
        return out


_SCALAR = ("real", "positive", "nonnegative", "index", "count", "bounded")


def _int(s: Any) -> int:
    if not isinstance(s, str) or not _INT.fullmatch(s):
        raise _Bad("integer")
    return int(s)


def _degree(t: Any) -> int:
    """Polynomial degree bound of a (validated) tree: what ``expand`` could produce."""
    head, args = t[0], t[1:]
    if head in ("Integer", "Rational", "Symbol", "Indexed"):
        return 1
    if head == "Add" or head == "Max":
        return max(_degree(a) for a in args)
    if head == "Mul":
        return sum(_degree(a) for a in args)
    if head == "Pow":
        e = args[1]
        k = abs(_int(e[1])) if e[0] == "Integer" else abs(int(e[1].split("/")[0])) if e[0] == "Rational" else 1
        return max(k, 1) * _degree(args[0])
    if head in ("exp", "log", "Sum", "Derivative"):
        return _degree(args[0])
    return sum(_degree(a) for a in args[1:]) if head == "Function" else 1


def _build(t: Any, env: _Env, depth: int, count: list[int]) -> Any:
    count[0] += 1
    if depth > MAX_DEPTH or count[0] > MAX_NODES or not isinstance(t, list) or not t or not isinstance(t[0], str):
        raise _Bad("tree")
    head, args = t[0], t[1:]

    def sub(x: Any) -> Any:
        return _build(x, env, depth + 1, count)

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
        return sp.Pow(b, e)
    if head in ("exp", "log") and len(args) == 1:
        x = sub(args[0])
        return sp.exp(x) if head == "exp" else sp.log(x)
    if head == "Sum" and len(args) == 4:
        body, i = sub(args[0]), env.sym(args[1], ("index",))
        lims = [sub(args[2]), sub(args[3])]
        for lim in lims:
            ok = (lim.is_Integer and abs(int(lim)) <= MAX_SUM_LIMIT) or \
                (lim.is_Symbol and env.kind.get(lim.name) == "count" and env.obj[lim.name] == lim)
            if not ok:
                raise _Bad("summation limit")
        return sp.Sum(body, (i, *lims))
    if head == "Derivative" and len(args) == 2 and isinstance(args[1], list) and 1 <= len(args[1]) <= 3:
        count[1] += 1
        if count[1] > MAX_DERIVATIVES:
            raise _Bad("too many derivatives")
        expr = sub(args[0])
        vc = []
        for pair in args[1]:
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[1], int) or isinstance(pair[1], bool) \
                    or not 1 <= pair[1] <= 3:
                raise _Bad("derivative order")
            vc.append((env.sym(pair[0], ("real", "positive", "nonnegative")), pair[1]))
        return sp.Derivative(expr, *vc)
    if head == "Function" and 2 <= len(t) <= 5:
        f = env.sym(args[0], ("function",))
        xs = [sub(a) for a in args[1:]]
        return f(*xs)
    raise _Bad(f"head {head!r}")


def from_tree(tree: Any, symbols: Any) -> Any:
    """Rebuild an expression from its tree and the certificate's symbol declarations (raises ``ValueError``
    on anything outside the whitelist)."""
    try:
        return _Env(symbols).build(tree)
    except _Bad as exc:
        raise ValueError(f"not a valid expression tree: {exc}") from None


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
    variants = _ranges(env, w) if env is not None else [[]]
    for s in variants:
        if env is not None and time.perf_counter() > env.deadline:
            raise _Bad("time budget exhausted")
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


# -------------------------------------------------------------------------------------------- checker


def _sos(env: _Env, terms: Any) -> Any:
    if not isinstance(terms, list) or not 1 <= len(terms) <= MAX_TERMS:
        raise _Bad("terms")
    total = sp.Integer(0)
    for pair in terms:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad("term")
        w, q = env.build(pair[0]), env.build(pair[1])
        if not _nonneg(w, env):
            raise _Bad("weight not provably >= 0")
        total += w * q ** 2
    return total


def _link(env: _Env, prev: Any, link: Any, proved: list[dict[str, Any]]) -> tuple[str, Any]:
    if time.perf_counter() > env.deadline:
        raise _Bad("time budget exhausted")
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
        if term.is_real is not True or not _nonneg(weight, env):
            raise _Bad("sum_mono term/weight")
        if any(s in prem["free"] for s in (i,)) or i in prem["lhs"].free_symbols | prem["rhs"].free_symbols:
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
    return kind == "real" and val.is_real is True


def _part(env: _Env, part: Any, proved: list[dict[str, Any]]) -> dict[str, Any]:
    if not isinstance(part, Mapping) or not isinstance(part.get("goal"), Mapping):
        raise _Bad("part")
    g = part["goal"]
    rel = g.get("rel")
    if rel not in ("<=", "=="):
        raise _Bad("goal relation")
    lhs, rhs = env.build(g.get("lhs")), env.build(g.get("rhs"))
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
    att = part.get("attained")
    if att is not None:
        if not isinstance(att, Mapping) or not isinstance(att.get("subs"), list) or len(att["subs"]) > MAX_SYMBOLS:
            raise _Bad("attained")
        subs = {}
        for pair in att["subs"]:
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise _Bad("attained pair")
            name, val = pair[0], env.build(pair[1])
            if env.kind.get(name) in ("indexed_real",):
                subs[name] = val
                continue
            env.sym(name, ("real", "positive", "nonnegative", "bounded"))
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
    return {"rel": rel, "lhs": lhs, "rhs": rhs, "free": lhs.free_symbols | rhs.free_symbols}


def _check(d: Any) -> list[dict[str, Any]]:
    if not isinstance(d, Mapping) or d.get("kind") != KIND or d.get("version") != 1:
        raise _Bad("kind/version")
    env = _Env(d.get("symbols"))
    parts = d.get("parts")
    if not isinstance(parts, list) or not 1 <= len(parts) <= MAX_PARTS:
        raise _Bad("parts")
    proved: list[dict[str, Any]] = []
    for part in parts:
        proved.append(_part(env, part, proved))
    return proved


def check_symbolic(d: Any) -> bool:
    """``True`` iff ``d`` is a well-formed ``"sympy-proof"`` certificate every step of which re-checks.

    Never raises: malformed, hostile or oversized data gives ``False``."""
    try:
        _check(d)
    except (_Bad, TypeError, ValueError, AttributeError, KeyError, IndexError, ZeroDivisionError, RecursionError,
            MemoryError, OverflowError):
        return False
    except Exception:  # noqa: BLE001 - sympy may raise its own errors on hostile input
        return False
    return True


def goal_of(d: Mapping[str, Any], part: int | str = -1) -> tuple[str, Any, Any]:
    """``(rel, lhs, rhs)`` of one part's goal as sympy expressions (by index or name), for a caller that
    compares a certificate's statement with the statement it expects."""
    env = _Env(d["symbols"])
    parts = d["parts"]
    p = next(x for x in parts if x.get("name") == part) if isinstance(part, str) else parts[part]
    return p["goal"]["rel"], env.build(p["goal"]["lhs"]), env.build(p["goal"]["rhs"])


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


def _cert(title: str, citation: str, symbols: list[list[Any]], parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": KIND, "version": 1, "title": title, "citation": citation, "symbols": symbols, "parts": parts}


def _softplus(z: Any, mu: Any) -> Any:
    return mu * sp.log(1 + sp.exp(z / mu))


def softplus_smoothness_certificate() -> dict[str, Any]:
    r"""002 Sec. 4: ``0 <= softplus_mu''(x) <= 1/(4 mu)`` for all real ``x``, equality at ``x = 0``.

    ``softplus_mu''(x) = s(1 - s)/mu`` with ``s = sigma(x/mu)`` (identity), and
    ``1/(4 mu) - s(1 - s)/mu = (s - 1/2)^2/mu`` (sum of squares)."""
    mu, x = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True)
    d2 = sp.Derivative(_softplus(x, mu), (x, 2))
    s = 1 / (1 + sp.exp(-x / mu))
    mid = s * (1 - s) / mu
    upper = {"name": "upper", "goal": {"rel": "<=", "lhs": T(d2), "rhs": T(1 / (4 * mu))},
             "chains": [[T(d2), _link_t("==", mid, "identity"),
                         _link_t("<=", 1 / (4 * mu), "sos", terms=[(1 / mu, s - sp.Rational(1, 2))])]],
             "attained": {"subs": [["x", T(sp.Integer(0))]]}}
    lower = {"name": "convex", "goal": {"rel": "<=", "lhs": T(sp.Integer(0)), "rhs": T(d2)},
             "chains": [[T(sp.Integer(0)), _link_t("<=", mid, "sos", terms=[(mid, sp.Integer(1))]),
                         _link_t("==", d2, "identity")]]}
    return _cert("softplus_mu'' lies in [0, 1/(4 mu)], tight at x = 0", "002 Sec. 4",
                 [["mu", "positive"], ["x", "real"]], [upper, lower])


def _prop1_parts(mu: Any, x: Any, v: Any) -> list[dict[str, Any]]:
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
    return [{"name": "gap <= mu log 2", "goal": {"rel": "<=", "lhs": T(gap), "rhs": T(mu * sp.log(2))},
             "cases": cases, "chains": chains_up, "attained": {"subs": [["x", T(sp.Integer(0))]]}},
            {"name": "gap >= 0", "goal": {"rel": "<=", "lhs": T(sp.Integer(0)), "rhs": T(gap)},
             "cases": cases, "chains": chains_low}]


def prop1_certificate() -> dict[str, Any]:
    r"""002 Prop. 1 (tight form): ``0 <= softplus_mu(x) - (x)_+ <= mu log 2`` for all real ``x``,
    equality at ``x = 0``.  Cases ``x = +- mu log(1 + v)``, ``v >= 0``: the gap is ``mu log((2 + v)/(1 + v))``
    and ``1 <= (2 + v)/(1 + v) <= 2``."""
    mu, x, v = sp.Symbol("mu", positive=True), sp.Symbol("x", real=True), sp.Symbol("v", nonnegative=True)
    return _cert("(x)_+ <= softplus_mu(x) <= (x)_+ + mu log 2, tight at x = 0", "002 Prop. 1",
                 [["mu", "positive"], ["x", "real"], ["v", "nonnegative"]], _prop1_parts(mu, x, v))


def lemma2_certificate() -> dict[str, Any]:
    r"""002 Lemma 2 (tight form): ``0 <= F^mu_alpha - F_alpha <= mu tau_alpha log 2`` with
    ``F^mu_alpha - F_alpha = sum_i p_i [(1/alpha_i) softplus_mu(f_i - eta) + eta] - sum_i p_i [(1/alpha_i)(f_i - eta)_+ + eta]``
    and ``tau_alpha = sum_i p_i/alpha_i``, any number ``n`` of clients, ``p_i, alpha_i > 0``; equality when
    every ``f_i = eta``.  Prop. 1 (parts 0-1) summed with weights ``p_i/alpha_i`` (rule ``sum_mono``)."""
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
    upper = {"name": "F^mu - F <= mu tau_alpha log 2",
             "goal": {"rel": "<=", "lhs": T(Fmu - F), "rhs": T(mu * tau * sp.log(2))},
             "chains": [[T(Fmu - F), _link_t("==", gap_sum, "identity"),
                         _link_t("<=", top, "sum_mono", premise=0, **common),
                         _link_t("==", mu * tau * sp.log(2), "identity")]],
             "attained": {"subs": [["f", T(eta)]]}}
    lower = {"name": "F^mu - F >= 0", "goal": {"rel": "<=", "lhs": T(sp.Integer(0)), "rhs": T(Fmu - F)},
             "chains": [[T(sp.Integer(0)), _link_t("==", zero_sum, "identity"),
                         _link_t("<=", gap_sum, "sum_mono", premise=1, **common),
                         _link_t("==", Fmu - F, "identity")]]}
    symbols = [["mu", "positive"], ["x", "real"], ["v", "nonnegative"], ["i", "index"], ["n", "count"],
               ["eta", "real"], ["p", "indexed_positive"], ["alpha", "indexed_positive"], ["f", "indexed_real"]]
    return _cert("F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha log 2, tight when all f_i = eta", "002 Lemma 2",
                 symbols, _prop1_parts(mu, x, v) + [upper, lower])


def lemma_c1_certificate() -> dict[str, Any]:
    r"""002 Lemma C.1: the Hessian of ``f^{mu,i}(w, eta) = (1/alpha) softplus_mu(f(w) - eta) + eta`` is
    ``(1/alpha) [s(1 - s)/mu gt gt^T + s diag(f''(w), 0)]`` with ``s = sigma((f - eta)/mu)``, ``gt = (f', -1)``
    (identities, scalar ``w``), and for any direction ``u = (u1, u0)``, with ``g = f'(w) in [-L2, L2]`` and
    ``h = f''(w) in [-L1, L1]`` (``|u^T hess f u| <= L1 |u|^2`` in the vector case):
    ``|u^T Hess u| <= (1/alpha)(L1 + (L2^2 + 1)/(4 mu)) |u|^2``, which is at most the paper's
    ``(1/alpha)(L1 + (L2^2 + 1)/mu) |u|^2``."""
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
    parts = [{"name": f"Hessian {k}", "goal": {"rel": "==", "lhs": T(lhs), "rhs": T(rhs)},
              "chains": [[T(lhs), _link_t("==", rhs, "identity")]]} for k, (lhs, rhs) in hess.items()]
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
    parts += [{"name": "form <= tight L |u|^2", "goal": {"rel": "<=", "lhs": T(form), "rhs": T(tight * nu)},
               "chains": [[T(form), _link_t("<=", tight * nu, "sos", terms=up_terms)]]},
              {"name": "form >= -tight L |u|^2", "goal": {"rel": "<=", "lhs": T(-tight * nu), "rhs": T(form)},
               "chains": [[T(-tight * nu), _link_t("<=", form, "sos", terms=low_terms)]]},
              {"name": "tight L <= paper L", "goal": {"rel": "<=", "lhs": T(tight), "rhs": T(paper)},
               "chains": [[T(tight), _link_t("<=", paper, "sos", terms=[(3 * (L2 ** 2 + 1) * am / 4, sp.Integer(1))])]]}]
    # any dimension: U = |u|^2, G = |grad f|^2 in [0, L2^2], a = (gt.u)^2 in [0, (G + 1) U] (Cauchy-Schwarz),
    # k = u_w^T hess f u_w in [-L1 U, L1 U]; the form is (1/alpha)[s(1-s)/mu a + s k]
    U, G = sp.Symbol("U", nonnegative=True), sp.Symbol("G", real=True)
    a, k = sp.Symbol("a", real=True), sp.Symbol("k", real=True)
    form_d = (s * (1 - s) / mu * a + s * k) / al
    one = sp.Integer(1)
    parts += [{"name": "any d: form <= tight L |u|^2", "goal": {"rel": "<=", "lhs": T(form_d), "rhs": T(tight * U)},
               "chains": [[T(form_d), _link_t("<=", tight * U, "sos", terms=[
                   ((L2 ** 2 - G) * U * am / 4, one), (((G + 1) * U - a) * am / 4, one),
                   ((s - sp.Rational(1, 2)) ** 2 * a * am, one), ((L1 * U - s * k) / al, one)])]]},
              {"name": "any d: form >= -tight L |u|^2", "goal": {"rel": "<=", "lhs": T(-tight * U), "rhs": T(form_d)},
               "chains": [[T(-tight * U), _link_t("<=", form_d, "sos", terms=[
                   (s * (1 - s) * a * am, one), ((L1 * U + s * k) / al, one), ((L2 ** 2 + 1) * U * am / 4, one)])]]}]
    symbols = [["mu", "positive"], ["alpha", "positive"], ["L1", "nonnegative"], ["L2", "nonnegative"],
               ["w", "real"], ["eta", "real"], ["f", "function", 1], ["s", "bounded", T(sp.Integer(0)), T(sp.Integer(1))],
               ["g", "bounded", T(-L2), T(L2)], ["h", "bounded", T(-L1), T(L1)], ["u1", "real"], ["u0", "real"],
               ["U", "nonnegative"], ["G", "bounded", T(sp.Integer(0)), T(L2 ** 2)],
               ["a", "bounded", T(sp.Integer(0)), T((G + 1) * U)], ["k", "bounded", T(-L1 * U), T(L1 * U)]]
    return _cert("Hessian of f^{mu,i} and |u^T Hess u| <= (1/alpha)(L1 + (L2^2+1)/(4 mu)) |u|^2 "
                 "<= (1/alpha)(L1 + (L2^2+1)/mu) |u|^2", "002 Lemma C.1", symbols, parts)


def lemma12_certificate() -> dict[str, Any]:
    r"""003 Lemma 12: the Hessian of ``f^{q+1}/(q+1)`` is ``q f^{q-1} grad f grad f^T + f^q hess f``
    (identities for a generic positive ``f`` of two variables), and for ``u in R^2``, ``g = grad f``,
    ``h = u^T hess f u / |u|^2 in [-L, L]``, ``F = f(w) > 0``, ``q >= 0``:
    ``|q F^{q-1} (g.u)^2 + F^q h |u|^2| <= (L F^q + q F^{q-1} |g|^2) |u|^2`` (Lagrange's identity
    ``|g|^2 |u|^2 - (g.u)^2 = (g1 u2 - g2 u1)^2``), i.e. the spectral norm is at most ``L_q(w)``."""
    q, w1, w2 = sp.Symbol("q", nonnegative=True), sp.Symbol("w1", real=True), sp.Symbol("w2", real=True)
    fn = sp.Function("f", positive=True)
    f = fn(w1, w2)
    obj = f ** (q + 1) / (q + 1)
    parts = []
    for a, b, name in ((w1, w1, "11"), (w1, w2, "12"), (w2, w2, "22")):
        lhs = sp.Derivative(obj, a, b) if a != b else sp.Derivative(obj, (a, 2))
        fab = sp.Derivative(f, a, b) if a != b else sp.Derivative(f, (a, 2))
        rhs = q * f ** (q - 1) * sp.Derivative(f, a) * sp.Derivative(f, b) + f ** q * fab
        parts.append({"name": f"Hessian {name}", "goal": {"rel": "==", "lhs": T(lhs), "rhs": T(rhs)},
                      "chains": [[T(lhs), _link_t("==", rhs, "identity")]]})
    F, L = sp.Symbol("F", positive=True), sp.Symbol("L", nonnegative=True)
    g1, g2, u1, u2, h = (sp.Symbol(n, real=True) for n in ("g1", "g2", "u1", "u2", "h"))
    gu = g1 * u1 + g2 * u2
    nu, ng = u1 ** 2 + u2 ** 2, g1 ** 2 + g2 ** 2
    form = q * F ** (q - 1) * gu ** 2 + F ** q * h * nu
    Lq = L * F ** q + q * F ** (q - 1) * ng
    c = q * F ** (q - 1)
    parts += [{"name": "form <= L_q |u|^2", "goal": {"rel": "<=", "lhs": T(form), "rhs": T(Lq * nu)},
               "chains": [[T(form), _link_t("<=", Lq * nu, "sos", terms=[(c, g1 * u2 - g2 * u1), (F ** q * (L - h), u1),
                                                                          (F ** q * (L - h), u2)])]]},
              {"name": "form >= -L_q |u|^2", "goal": {"rel": "<=", "lhs": T(-Lq * nu), "rhs": T(form)},
               "chains": [[T(-Lq * nu), _link_t("<=", form, "sos", terms=[
                   (c, gu), (c, g1 * u1), (c, g1 * u2), (c, g2 * u1), (c, g2 * u2),
                   (F ** q * (L + h), u1), (F ** q * (L + h), u2)])]]}]
    # any dimension: G = |g|^2, U = |u|^2, a = (g.u)^2 in [0, G U] (Cauchy-Schwarz), k = u^T hess f u in [-L U, L U]
    G, U = sp.Symbol("G", nonnegative=True), sp.Symbol("U", nonnegative=True)
    a, k = sp.Symbol("a", real=True), sp.Symbol("k", real=True)
    form_d = c * a + F ** q * k
    Lq_d = L * F ** q + c * G
    one = sp.Integer(1)
    parts += [{"name": "any d: form <= L_q |u|^2", "goal": {"rel": "<=", "lhs": T(form_d), "rhs": T(Lq_d * U)},
               "chains": [[T(form_d), _link_t("<=", Lq_d * U, "sos", terms=[(c * (G * U - a), one),
                                                                             (F ** q * (L * U - k), one)])]]},
              {"name": "any d: form >= -L_q |u|^2", "goal": {"rel": "<=", "lhs": T(-Lq_d * U), "rhs": T(form_d)},
               "chains": [[T(-Lq_d * U), _link_t("<=", form_d, "sos", terms=[(c * (G * U + a), one),
                                                                              (F ** q * (L * U + k), one)])]]}]
    symbols = [["q", "nonnegative"], ["w1", "real"], ["w2", "real"], ["f", "function", 2], ["F", "positive"],
               ["L", "nonnegative"], ["g1", "real"], ["g2", "real"], ["u1", "real"], ["u2", "real"],
               ["h", "bounded", T(-L), T(L)], ["G", "nonnegative"], ["U", "nonnegative"],
               ["a", "bounded", T(sp.Integer(0)), T(G * U)], ["k", "bounded", T(-L * U), T(L * U)]]
    return _cert("Hessian of f^{q+1}/(q+1) and its spectral norm <= L f^q + q f^{q-1} |grad f|^2", "003 Lemma 12",
                 symbols, parts)


#: every certificate maker, by short name
ALL_CERTIFICATES = {"softplus_smoothness": softplus_smoothness_certificate, "prop1": prop1_certificate,
                    "lemma2": lemma2_certificate, "lemma_c1": lemma_c1_certificate, "lemma12": lemma12_certificate}
