r"""Try to refute a ``"symbolic"`` statement numerically (defence in depth before ``proved``).

Every goal is evaluated with mpmath at 50 digits at ``points`` points of the declared domain and its boundary:
range end points, ``0`` for non-negative symbols, small and large magnitudes, ``n = 1, 2, 3, 5`` for counts,
random values otherwise; generic functions are replaced in turn by explicit positive smooth functions
(derivatives by mpmath's high-precision differentiation).  Symbols are sampled in declaration order, so a
range whose ends use earlier symbols is evaluated at their sampled values and its symbol sampled inside it.  An
``attained`` goal is also evaluated at its equality point, rebuilt the same way (:func:`_at_point`): the assigned
symbols take their values, every later range is evaluated again and its symbol re-sampled at the same relative
position inside it; the point must lie in the domain (its values in their kinds and ranges, and consistent: a value
that uses a re-sampled symbol must not change) and equality must hold there.  Not a proof and not part of the
trusted base: a statement the kernel accepted and this finds violated is a kernel bug.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath

__all__ = ["falsify", "FUNCTIONS", "HONOURS_ASSUMPTIONS"]

#: the falsifier samples only points that meet a statement's ``"assume"`` list (:func:`_meet_assumptions`) and
#: samples ``family_bounded`` members inside their ranges: the re-check may run it on statements with assumptions
HONOURS_ASSUMPTIONS = True

#: explicit positive smooth functions standing for a declared generic function, by arity
FUNCTIONS: dict[int, list[Callable[..., Any]]] = {
    1: [lambda w: 1 + w ** 2, lambda w: mpmath.exp(w / 3), lambda w: 2 + mpmath.sin(w), lambda w: mpmath.cosh(w / 2)],
    2: [lambda a, b: 1 + a ** 2 + b ** 2 / 2, lambda a, b: mpmath.exp(a - b / 2), lambda a, b: 2 + mpmath.sin(a * b),
        lambda a, b: mpmath.cosh(a) + b ** 2],
    3: [lambda a, b, c: 1 + a ** 2 + b ** 2 + c ** 2, lambda a, b, c: mpmath.exp((a - b + c) / 3)]}


class _Undefined(Exception):
    pass


def _ev(t: Any, env: dict[str, Any], fns: dict[str, Callable[..., Any]], idx: list[Any]) -> Any:
    h, a = t[0], t[1:]
    if h == "q":
        f = Fraction(a[0])
        return mpmath.mpf(f.numerator) / f.denominator
    if h == "v":
        return env[a[0]]
    if h == "b":
        return idx[-1 - a[0]]
    ev = lambda x: _ev(x, env, fns, idx)  # noqa: E731
    if h == "+":
        return mpmath.fsum(ev(x) for x in a)
    if h == "*":
        out = mpmath.mpf(1)
        for x in a:
            out *= ev(x)
        return out
    if h == "/":
        den = ev(a[1])
        if den == 0:
            raise _Undefined
        return ev(a[0]) / den
    if h == "^":
        b = ev(a[0])
        if b == 0 and a[1] < 0:
            raise _Undefined
        return b ** a[1]
    if h == "exp":
        return mpmath.exp(ev(a[0]))
    if h in ("log", "rpow"):
        b = ev(a[0])
        if b <= 0:
            raise _Undefined
        return mpmath.log(b) if h == "log" else mpmath.exp(ev(a[1]) * mpmath.log(b))
    if h == "max":
        return max(ev(a[0]), ev(a[1]))
    if h == "fn":
        return fns[a[0]](*[ev(x) for x in a[1:]])
    if h == "at":
        return env[a[0]](int(ev(a[1])))
    if h == "sum":
        lo, hi = int(ev(a[1])), int(ev(a[2]))
        return mpmath.fsum(_ev(a[0], env, fns, [*idx, mpmath.mpf(i)]) for i in range(lo, hi + 1))
    if h == "d":
        names = list(dict.fromkeys(a[1]))
        orders = tuple(a[1].count(n) for n in names)

        def g(*xs: Any) -> Any:
            return _ev(a[0], {**env, **dict(zip(names, xs, strict=True))}, fns, idx)

        return mpmath.diff(g, tuple(env[n] for n in names), orders)
    raise ValueError(f"falsify: unknown head {h!r}")


_REAL = [0, 1, -1, "1/1000", "-1/1000", 30, -30]
_POS = ["1/1000", 1, 10, 100]
_NONNEG = [0, "1/1000", 1, 10]


def _pick(rng: random.Random, k: int, edge: list[Any], rand: Callable[[], Any]) -> Any:
    """A boundary / special value (often in the first 100 points), else a random one."""
    if k < 100 and rng.random() < 0.5:
        f = Fraction(str(rng.choice(edge)))
        return mpmath.mpf(f.numerator) / f.denominator
    return rand()


def _point(st: dict[str, Any], rng: random.Random, k: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A sampled point: values (families as functions of the index), explicit functions, and the point as shown;
    ``env["#u"]`` holds each bounded symbol's relative position ``u`` in its range."""
    env: dict[str, Any] = {"#u": {}}
    shown: dict[str, Any] = {}
    fns: dict[str, Callable[..., Any]] = {}
    for d in st["symbols"]:
        name, kind = d[0], d[1]
        if kind == "real":
            env[name] = _pick(rng, k, _REAL, lambda: mpmath.mpf(rng.gauss(0, 3)))
        elif kind == "positive":
            env[name] = _pick(rng, k, _POS, lambda: mpmath.exp(mpmath.mpf(rng.gauss(0, 2))))
        elif kind == "nonnegative":
            env[name] = _pick(rng, k, _NONNEG, lambda: mpmath.exp(mpmath.mpf(rng.gauss(0, 2))))
        elif kind == "count":
            env[name] = mpmath.mpf(rng.choice([1, 2, 3, 5]))
        elif kind == "bounded":
            lo, hi = _ev(d[2], env, fns, []), _ev(d[3], env, fns, [])
            u = rng.choice([0, 1, rng.random(), rng.random(), mpmath.mpf(1) / 2])
            env[name], env["#u"][name] = lo + (hi - lo) * u, u
        elif kind == "function":
            fns[name] = FUNCTIONS[d[2]][(k + len(fns)) % len(FUNCTIONS[d[2]])]
            shown[name] = f"explicit function #{(k + len(fns) - 1) % len(FUNCTIONS[d[2]])}"
            continue
        elif kind == "family_bounded":  # lo_i <= x_i <= hi_i: each member at a random place of its own range
            vals = {}
            for i in range(-2, 12):
                try:
                    lo, hi = _ev(d[2], env, fns, [mpmath.mpf(i)]), _ev(d[3], env, fns, [mpmath.mpf(i)])
                except (_Undefined, ZeroDivisionError, OverflowError, ValueError):
                    continue
                vals[i] = lo + (hi - lo) * rng.choice([0, 1, rng.random(), rng.random()])
            env[name] = vals.__getitem__
            shown[name] = [mpmath.nstr(vals[i], 8) for i in range(1, 6) if i in vals]
            continue
        else:  # families
            gen = {"family_real": lambda: mpmath.mpf(rng.gauss(0, 3)),
                   "family_positive": lambda: mpmath.exp(mpmath.mpf(rng.gauss(0, 1))),
                   "family_nonnegative": lambda: abs(mpmath.mpf(rng.gauss(0, 1)))}[kind]
            vals = {i: gen() for i in range(-2, 12)}
            env[name] = vals.__getitem__
            shown[name] = [mpmath.nstr(vals[i], 8) for i in range(1, 6)]
            continue
        shown[name] = mpmath.nstr(env[name], 12)
    return env, fns, shown


def _meet_assumptions(st: dict[str, Any], env: dict[str, Any], fns: dict[str, Any], shown: dict[str, Any],
                      tol: Any) -> bool:
    """Move the sampled point onto the statement's ``"assume"`` list, in order: where one side of an ``==``
    assumption is a bare scalar symbol ``x`` (or ``x^2`` with ``x`` non-negative/positive) that the other side does
    not use, ``x`` takes the other side's value (its square root); where one side of a ``<=`` assumption is a bare
    real symbol, it is put on the boundary or inside by a random gap.  Then whether every assumption holds
    (tolerance ``tol`` relative): a point where one fails is not a point of the statement and is skipped."""
    kinds = {d[0]: d[1] for d in st["symbols"]}

    def uses(t: Any, x: str) -> bool:
        return t == ["v", x] or isinstance(t, list) and any(isinstance(u, list) and uses(u, x) for u in t[1:])

    for k, a in enumerate(st.get("assume", [])):
        if a["rel"] == "<=":  # a bare real symbol alone on one side: put it on the boundary or just inside
            for one, other, sign in ((a["lhs"], a["rhs"], -1), (a["rhs"], a["lhs"], 1)):
                if one[0] == "v" and kinds.get(one[1]) == "real" and not uses(other, one[1]):
                    try:
                        val = _ev(other, env, fns, [])
                    except (_Undefined, ZeroDivisionError, OverflowError, ValueError):
                        return False
                    gap = 0 if (k + len(shown)) % 3 == 0 else mpmath.mpf(random.Random(str(val)).random())
                    env[one[1]] = val + sign * gap * (1 + abs(val))
                    shown[one[1]] = mpmath.nstr(env[one[1]], 12)
                    break
            continue
        for one, other in ((a["lhs"], a["rhs"]), (a["rhs"], a["lhs"])):
            if one[0] == "v" and kinds.get(one[1]) in ("real", "positive", "nonnegative") and not uses(other, one[1]):
                x, root = one[1], False
            elif one[0] == "^" and one[2] == 2 and one[1][0] == "v" and kinds.get(one[1][1]) in ("positive", "nonnegative") \
                    and not uses(other, one[1][1]):
                x, root = one[1][1], True
            else:
                continue
            try:
                val = _ev(other, env, fns, [])
            except (_Undefined, ZeroDivisionError, OverflowError, ValueError):
                return False
            if root:
                if val < 0:
                    return False
                val = mpmath.sqrt(val)
            env[x] = val
            shown[x] = mpmath.nstr(val, 12)
            break
    for a in st.get("assume", []):
        try:
            lhs, rhs = _ev(a["lhs"], env, fns, []), _ev(a["rhs"], env, fns, [])
        except (_Undefined, ZeroDivisionError, OverflowError, ValueError):
            return False
        scale = tol * (1 + abs(lhs) + abs(rhs))
        if (lhs - rhs > scale) if a["rel"] == "<=" else abs(lhs - rhs) > scale:
            return False
    for d in st["symbols"]:  # a moved symbol must stay in its kind
        if d[1] in ("positive", "nonnegative") and d[0] in env and (env[d[0]] < 0 or d[1] == "positive" and env[d[0]] == 0):
            return False
    return True


class _Outside(Exception):
    """The equality point is not a point of the domain (the message says where)."""


_SIGNS = {"positive": 1, "family_positive": 1, "nonnegative": 0, "family_nonnegative": 0}


def _at_point(st: dict[str, Any], env: dict[str, Any], fns: dict[str, Any], att: list[list[Any]], tol: Any) -> dict[str, Any]:
    """``env`` moved to the equality point ``att`` (module doc); raises :class:`_Outside` when it is not a point of
    the domain."""
    vals = dict(att)
    out = dict(env)

    def small(x: Any) -> Any:
        return tol * (1 + abs(x))

    for d in st["symbols"]:
        name, kind = d[0], d[1]
        if name in vals:
            v = _ev(vals[name], out, fns, [])
            if kind in _SIGNS and (v < -small(v) or (_SIGNS[kind] and v <= small(v))):
                raise _Outside(f"{name} = {mpmath.nstr(v, 12)} is not {'> 0' if _SIGNS[kind] else '>= 0'}")
            out[name] = (lambda i, v=v: v) if kind.startswith("family") else v
        if kind == "bounded":
            lo, hi = _ev(d[2], out, fns, []), _ev(d[3], out, fns, [])
            if hi - lo < -small(hi) - small(lo):
                raise _Outside(f"the range of {name} is empty: [{mpmath.nstr(lo, 12)}, {mpmath.nstr(hi, 12)}]")
            if name not in vals:
                out[name] = lo + (hi - lo) * env["#u"][name]
            elif out[name] < lo - small(lo) or out[name] > hi + small(hi):
                raise _Outside(f"{name} = {mpmath.nstr(out[name], 12)} outside [{mpmath.nstr(lo, 12)}, {mpmath.nstr(hi, 12)}]")
    for name, t in att:  # a value that uses a re-sampled symbol must be the same at the final point
        v, w = _ev(t, out, fns, []), out[name](1) if callable(out[name]) else out[name]
        if abs(v - w) > small(v) + small(w):
            raise _Outside(f"{name} = {mpmath.nstr(w, 12)} but its value there is {mpmath.nstr(v, 12)}")
    return out


def falsify(statement: dict[str, Any], *, points: int = 200, dps: int = 50, seed: int = 0) -> dict[str, Any] | None:
    """The first point where a goal of the (canonical or raw) ``statement`` fails, as ``{"goal", "point", "lhs",
    "rhs"}``, or ``None`` when every goal holds at every sampled point (tolerance ``1e-25`` relative)."""
    from fairtheory_kernel.symbolic import canonical_statement

    st = canonical_statement(statement)
    rng = random.Random(seed)
    with mpmath.workdps(dps):
        tol = mpmath.mpf(10) ** (-25)
        for k in range(points):
            env, fns, shown = _point(st, rng, k)
            if "assume" in st and not _meet_assumptions(st, env, fns, shown, tol):
                continue
            for g in st["goals"]:
                trials = [(env, shown)]
                if "attained" in g:
                    at = {**shown, "attained at": [p[0] for p in g["attained"]]}
                    try:
                        trials.append((_at_point(st, env, fns, g["attained"], tol), at))
                    except _Outside as exc:
                        return {"goal": g["name"], "point": at, "outside the domain": str(exc)}
                    except (_Undefined, ZeroDivisionError, OverflowError, ValueError):
                        pass
                for j, (e, sh) in enumerate(trials):
                    try:
                        lhs, rhs = _ev(g["lhs"], e, fns, []), _ev(g["rhs"], e, fns, [])
                    except (_Undefined, ZeroDivisionError, OverflowError, ValueError):
                        continue
                    scale = tol * (1 + abs(lhs) + abs(rhs))
                    bad = (lhs - rhs > scale) if g["rel"] == "<=" and j == 0 else abs(lhs - rhs) > scale
                    if bad:
                        return {"goal": g["name"], "point": sh, "lhs": mpmath.nstr(lhs, 20), "rhs": mpmath.nstr(rhs, 20)}
    return None
