r"""The objective term language of :func:`fairtheory.testing.audit`: text -> syntax tree -> kernel terms / numbers.

An objective is a real function ``A(f)`` of the loss vector ``f = (f_1, ..., f_n)`` written as text::

    mean(f) + lambda * std(f)          sum(f^2) / n          log(mean(exp(t * f))) / t

Grammar (precedence low to high; ``^`` is right-associative and binds tighter than unary minus, ``-x^2 = -(x^2)``)::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := "-" unary | power
    power  := atom (("^" | "**") unary)?
    atom   := number | name | name "(" expr ("," expr)* ")" | "(" expr ")"

* ``number``: decimal digits with an optional fraction and exponent (``3``, ``0.25``, ``1e-3``), read exactly as a
  rational (``0.1`` is ``1/10``);
* names: ``f`` the loss vector, ``n`` the number of clients, and the scalar parameters the caller declares (e.g.
  ``lambda``): letters and digits, starting with a letter;
* aggregates of a vector expression (one argument that uses ``f``): ``sum``, ``mean`` (``sum/n``), ``var``
  (population variance ``mean(v^2) - mean(v)^2``), ``std`` (``sqrt(var)``, the population standard deviation),
  ``max`` and ``min`` (over the clients);
* element-wise functions: ``exp``, ``log``, ``sqrt`` (``x^(1/2)``), ``max(a, b)``, ``min(a, b)`` (two arguments);
  arithmetic between a vector and a scalar broadcasts over the clients.

The objective must be a scalar (every ``f`` inside an aggregate).  Every expression of this language is invariant
under permutations of the clients: ``f`` is reached only through the aggregates, each symmetric in the clients
(there is no indexing ``f_i`` of one client).

:func:`parse` gives an :class:`Objective` (its syntax tree ``tree``: nested tuples, see :func:`to_text`);
:func:`to_term` writes a tree as a term of the ``"symbolic"`` kernel (``fairtheory_kernel/symbolic.py``: the losses
are the family ``f``, the clients ``n`` a ``count`` symbol, parameters ``real`` symbols; sums ``["sum", body,
["q", "1"], ["v", "n"]]``, ``^`` with an integer exponent is ``["^", T, k]``, other powers ``["rpow", T, E]``);
:func:`from_term` reads such a term back.  Nothing here evaluates with sympy: numbers are evaluated by
:meth:`Objective.value_and_grad` (float64, forward-mode derivatives) and the exact side is the kernel's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

__all__ = ["Objective", "parse", "to_text", "to_term", "from_term", "uses_losses", "ExpressionError",
           "AGGREGATES", "ELEMENTWISE", "RESERVED", "MAX_LENGTH"]

#: aggregates over the clients (one vector argument)
AGGREGATES = ("sum", "mean", "var", "std", "max", "min")
#: element-wise functions (``max``/``min`` with two arguments are element-wise)
ELEMENTWISE = ("exp", "log", "sqrt")
#: names a parameter may not take
RESERVED = frozenset({"f", "n", *AGGREGATES, *ELEMENTWISE, "d", "rpow", "at", "q", "v", "b"})
#: longest objective text accepted
MAX_LENGTH = 2000
_MAX_DEPTH = 60
#: the deepest syntax tree accepted (a long chain ``a + b + c + ...`` nests one level per operand)
_MAX_TREE = 200
_MAX_DIGITS = 60
_MAX_EXPONENT = 300
_TOKEN = re.compile(r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)"
                    r"|(?P<name>[A-Za-z][A-Za-z0-9]*)|(?P<op>\*\*|[-+*/^(),]))")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,23}")


class ExpressionError(FairtheoryValueError):
    """The objective text is not in the term language; the message names the argument and the position."""


# ------------------------------------------------------------------------------------------ syntax tree
# ("num", Fraction) | ("par", name) | ("n",) | ("f",) | ("neg", a) | (op, a, b) for op in + - * / ^
# | ("call", fname, (arg, ...))
def _num(x: Fraction | int) -> tuple:
    return ("num", Fraction(x))


def _fmt_num(q: Fraction) -> str:
    """A rational ``>= 0`` as the parser reads it back: an integer, an exact decimal (denominator ``2^a 5^b``), or
    (any other denominator, which no parsed text produces) ``(p/q)``, a division."""
    d, digits = q.denominator, 0
    while d % 10 == 0 or d % 2 == 0 or d % 5 == 0:
        if d % 10 == 0:
            d //= 10
        elif d % 2 == 0:
            d //= 2
        else:
            d //= 5
        digits += 1
    if d != 1:
        return f"({q.numerator}/{q.denominator})"
    if q.denominator == 1:
        return str(q.numerator)
    scaled = q * 10 ** digits
    whole, frac = divmod(int(scaled), 10 ** digits)
    return f"{whole}.{str(frac).rjust(digits, '0')}"


def to_text(t: tuple) -> str:
    """Fully parenthesised text of a tree; ``parse(to_text(t), params=...)`` gives ``t`` back for every tree
    :func:`parse` makes (a negative number prints as ``(-q)``, which parses as ``("neg", q)``)."""
    h = t[0]
    if h == "num":
        q = t[1]
        s = _fmt_num(abs(q))
        return f"(-{s})" if q < 0 else s
    if h == "par":
        return t[1]
    if h == "n":
        return "n"
    if h == "f":
        return "f"
    if h == "neg":
        return f"(-{to_text(t[1])})"
    if h in ("+", "-", "*", "/", "^"):
        return f"({to_text(t[1])} {h} {to_text(t[2])})"
    if h == "call":
        return f"{t[1]}({', '.join(to_text(a) for a in t[2])})"
    raise FairtheoryValueError(f"to_text: t must be a syntax tree, got head {h!r}")


def uses_losses(t: tuple) -> bool:
    """Whether ``t`` is a vector expression (uses ``f`` outside every aggregate)."""
    h = t[0]
    if h == "f":
        return True
    if h in ("num", "par", "n"):
        return False
    if h == "call":
        if t[1] in AGGREGATES and len(t[2]) == 1:
            return False
        return any(uses_losses(a) for a in t[2])
    return any(uses_losses(a) for a in t[1:])


class _Parser:
    def __init__(self, text: str, params: frozenset[str], arg: str) -> None:
        self.text, self.params, self.arg = text, params, arg
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                self.fail(f"unexpected character {text[pos:].lstrip()[:1]!r}", pos + len(text[pos:]) - len(text[pos:].lstrip()))
            kind = m.lastgroup
            self.toks.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0
        self.depth = 0

    def fail(self, msg: str, pos: int | None = None) -> Any:
        if pos is None:
            pos = self.toks[self.i][2] if self.i < len(self.toks) else len(self.text)
        raise ExpressionError(f"{self.arg}: {msg} at position {pos} of {self.text[:120]!r}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, val: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[0] == "op" and tok[1] == val:
            self.i += 1
            return True
        return False

    def expect(self, val: str) -> None:
        if not self.take(val):
            tok = self.peek()
            self.fail(f"expected {val!r}, found {tok[1]!r}" if tok else f"expected {val!r}, found the end")

    def parse(self) -> tuple:
        if not self.toks:
            self.fail("empty expression", 0)
        t = self.expr()
        if self.peek() is not None:
            self.fail(f"unexpected {self.peek()[1]!r}")
        return t

    def expr(self) -> tuple:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            self.fail(f"nested deeper than {_MAX_DEPTH}")
        t = self.term()
        while True:
            if self.take("+"):
                t = ("+", t, self.term())
            elif self.take("-"):
                t = ("-", t, self.term())
            else:
                self.depth -= 1
                return t

    def term(self) -> tuple:
        t = self.unary()
        while True:
            if self.take("*"):
                t = ("*", t, self.unary())
            elif self.take("/"):
                t = ("/", t, self.unary())
            else:
                return t

    def unary(self) -> tuple:
        if self.take("-"):
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                self.fail(f"nested deeper than {_MAX_DEPTH}")
            out = self.unary()
            self.depth -= 1
            return ("neg", out)
        if self.take("+"):
            return self.unary()
        return self.power()

    def power(self) -> tuple:
        base = self.atom()
        if self.take("^") or self.take("**"):
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                self.fail(f"nested deeper than {_MAX_DEPTH}")
            out = ("^", base, self.unary())
            self.depth -= 1
            return out
        return base

    def atom(self) -> tuple:
        tok = self.peek()
        if tok is None:
            return self.fail("expected a number, a name or '(', found the end")
        kind, val, pos = tok
        self.i += 1
        if kind == "num":
            mant, _, ex = val.lower().partition("e")
            if len(mant) > _MAX_DIGITS or (ex and abs(int(ex)) > _MAX_EXPONENT):
                self.fail(f"number {val[:30]!r} too large: at most {_MAX_DIGITS} digits and an exponent of at most "
                          f"{_MAX_EXPONENT}", pos)
            return _num(Fraction(val))
        if kind == "op" and val == "(":
            t = self.expr()
            self.expect(")")
            return t
        if kind == "name":
            if self.take("("):
                if val not in AGGREGATES + ELEMENTWISE:
                    self.fail(f"unknown function {val!r} (known: {', '.join(AGGREGATES + ELEMENTWISE)})", pos)
                args = [self.expr()]
                while self.take(","):
                    args.append(self.expr())
                self.expect(")")
                return self.call(val, tuple(args), pos)
            if val == "f":
                return ("f",)
            if val == "n":
                return ("n",)
            if val in AGGREGATES + ELEMENTWISE:
                self.fail(f"function {val!r} needs arguments in parentheses", pos)
            if val not in self.params:
                self.fail(f"unknown name {val!r}: declare it in params (declared: {sorted(self.params)})", pos)
            return ("par", val)
        return self.fail(f"unexpected {val!r}", pos)

    def call(self, name: str, args: tuple, pos: int) -> tuple:
        if name in ("max", "min"):
            if len(args) == 1 and not uses_losses(args[0]):
                self.fail(f"{name}(...) with one argument aggregates over the clients: its argument must use f", pos)
            if len(args) not in (1, 2):
                self.fail(f"{name} takes 1 argument (over the clients) or 2 (element-wise), got {len(args)}", pos)
        elif name in AGGREGATES:
            if len(args) != 1:
                self.fail(f"{name} takes 1 argument, got {len(args)}", pos)
            if not uses_losses(args[0]):
                self.fail(f"{name}(...) aggregates over the clients: its argument must use f", pos)
        elif len(args) != 1:
            self.fail(f"{name} takes 1 argument, got {len(args)}", pos)
        return ("call", name, args)


def _check_params(params: Any, arg: str = "params") -> dict[str, tuple[str, str] | None]:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise FairtheoryTypeError(f"{arg} must be a dict {{name: (lo, hi)}} of parameter ranges, got "
                                  f"{type(params).__name__}")
    out: dict[str, tuple[str, str] | None] = {}
    for k, rng in params.items():
        if not isinstance(k, str) or not _NAME.fullmatch(k) or k in RESERVED:
            raise FairtheoryValueError(f"{arg}: a parameter name must be letters and digits starting with a letter, at "
                                       f"most 24, not one of {sorted(RESERVED)}; got {k!r}")
        if rng is None:
            out[k] = None
            continue
        if not isinstance(rng, (tuple, list)) or len(rng) != 2:
            raise FairtheoryTypeError(f"{arg}[{k!r}] must be a pair (lo, hi) of numbers or expressions in n, "
                                      f"got {rng!r}"[:200])
        ends = []
        for e in rng:
            if isinstance(e, bool) or not isinstance(e, (str, int, Fraction)):
                raise FairtheoryTypeError(f"{arg}[{k!r}]: each end must be a str expression in n, an int or a "
                                          f"Fraction (exact), got {e!r}"[:200])
            ends.append(str(e) if not isinstance(e, Fraction) else f"{e.numerator}/{e.denominator}")
        out[k] = (ends[0], ends[1])
    return out


@dataclass(frozen=True)
class Objective:
    """A parsed objective: ``text``, its syntax ``tree`` and its parameters (``params``: name -> ``(lo, hi)`` trees
    in ``n``, or ``None`` for a parameter without a range)."""

    text: str
    tree: tuple
    params: dict[str, tuple[tuple, tuple] | None] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text

    def value_and_grad(self, f: Any, values: dict[str, float] | None = None) -> tuple[float, np.ndarray]:
        """``A(f)`` and ``grad_f A(f)`` in float64 (forward mode; at a kink a one-sided derivative: ``max``/``min``
        take the first maximiser/minimiser, ``std`` at zero variance has gradient 0)."""
        f = np.asarray(f, dtype=np.float64)
        if f.ndim != 1 or f.size < 1:
            raise FairtheoryValueError(f"f must be a loss vector of shape (n,) with n >= 1, got shape {f.shape}")
        vals = dict(values or {})
        missing = [k for k in self.params if k not in vals]
        if missing:
            raise FairtheoryValueError(f"values must give every parameter {sorted(self.params)}, missing {missing}")
        with np.errstate(all="ignore"):
            v, j = _Eval(f, {k: float(x) for k, x in vals.items()}).ev(self.tree)
        return float(v), np.asarray(j, dtype=np.float64)

    def value(self, f: Any, values: dict[str, float] | None = None) -> float:
        return self.value_and_grad(f, values)[0]

    def bounds(self, name: str, n: int) -> tuple[float, float]:
        """The range of parameter ``name`` at ``n`` clients, in float64 (``(-inf, inf)`` when undeclared)."""
        rng = self.params.get(name)
        if rng is None:
            return (-math.inf, math.inf)
        out = []
        with np.errstate(all="ignore"):
            for t in rng:
                v, _ = _Eval(np.zeros(n), {}).ev(t)
                out.append(float(v))
        return out[0], out[1]

    def term(self) -> Any:
        """The objective as a kernel term (:func:`to_term`)."""
        return to_term(self.tree)


def parse(text: Any, *, params: dict[str, Any] | None = None) -> Objective:
    r"""Parse ``text`` (the grammar of the module docstring) into an :class:`Objective`.

    Parameters
    ----------
    text : the objective, a scalar expression of the loss vector ``f`` (at most :data:`MAX_LENGTH` characters).
    params : ``{name: (lo, hi)}``: the scalar parameters the text may use, each with its range ``lo <= name <= hi``
        (ends: numbers or expressions in ``n``, e.g. ``("0", "1/sqrt(n - 1)")``), or ``{name: None}`` (no range).

    Raises
    ------
    ExpressionError (a ``ValueError``) naming the argument, the problem and its position; ``TypeError`` for a
    non-string ``text``.
    """
    if not isinstance(text, str):
        raise FairtheoryTypeError(f"objective must be a str expression of the losses f, got {type(text).__name__}")
    if not 1 <= len(text) <= MAX_LENGTH:
        raise ExpressionError(f"objective must have 1 to {MAX_LENGTH} characters, got {len(text)}")
    ranges = _check_params(params)
    names = frozenset(ranges)
    tree = _Parser(text, names, "objective").parse()
    if _depth(tree) > _MAX_TREE:
        raise ExpressionError(f"objective: the expression nests deeper than {_MAX_TREE} levels (a chain of more than "
                              f"{_MAX_TREE} operands); group it with sum(...) or parentheses")
    if uses_losses(tree):
        raise ExpressionError(f"objective must be a scalar: put every f inside an aggregate "
                              f"({', '.join(AGGREGATES)}); got {text[:120]!r}")
    trees: dict[str, tuple[tuple, tuple] | None] = {}
    for k, rng in ranges.items():
        if rng is None:
            trees[k] = None
            continue
        ends = []
        for e in rng:
            t = _Parser(e, frozenset(), f"params[{k!r}]").parse()
            if uses_losses(t) or _mentions(t, "f"):
                raise ExpressionError(f"params[{k!r}]: a range end may use only numbers and n, got {e!r}")
            ends.append(t)
        trees[k] = (ends[0], ends[1])
    return Objective(text, tree, trees)


def _depth(t: tuple) -> int:
    """The depth of a tree, iteratively (a tree from a long chain of operands is deep)."""
    best, stack = 0, [(t, 1)]
    while stack:
        x, d = stack.pop()
        best = max(best, d)
        kids = x[2] if x[0] == "call" else [a for a in x[1:] if isinstance(a, tuple)]
        stack.extend((k, d + 1) for k in kids)
    return best


def _mentions(t: tuple, head: str) -> bool:
    if t[0] == head:
        return True
    if t[0] == "call":
        return any(_mentions(a, head) for a in t[2])
    return any(isinstance(a, tuple) and _mentions(a, head) for a in t[1:])


# ------------------------------------------------------------------------------------------ numbers
class _Eval:
    """Forward mode: a scalar is ``(value, gradient (n,))``, a vector ``(values (n,), Jacobian (n, n))``."""

    def __init__(self, f: np.ndarray, vals: dict[str, float]) -> None:
        self.f, self.vals, self.n = f, vals, f.size

    def scalar(self, v: float) -> tuple[Any, np.ndarray]:
        return float(v), np.zeros(self.n)

    def ev(self, t: tuple) -> tuple[Any, np.ndarray]:
        h, n = t[0], self.n
        if h == "num":
            return self.scalar(float(t[1]))
        if h == "par":
            return self.scalar(self.vals[t[1]])
        if h == "n":
            return self.scalar(float(n))
        if h == "f":
            return self.f.copy(), np.eye(n)
        if h == "neg":
            v, j = self.ev(t[1])
            return -v, -j
        if h in ("+", "-", "*", "/", "^"):
            (a, ja), (b, jb) = self.ev(t[1]), self.ev(t[2])
            a, ja, b, jb = self.broadcast(a, ja, b, jb)
            if h == "+":
                return a + b, ja + jb
            if h == "-":
                return a - b, ja - jb
            if h == "*":
                return a * b, _col(b) * ja + _col(a) * jb
            if h == "/":
                return a / b, (_col(b) * ja - _col(a) * jb) / _col(b * b)
            # a ^ b: a constant integer exponent for any base, else a^b = exp(b log a) (a > 0)
            if np.all(jb == 0) and np.all(np.asarray(b) == np.round(b)):
                return np.power(a, b), _col(b * np.power(a, b - 1)) * ja
            val = np.power(a, b)
            return val, _col(val) * (_col(b / a) * ja + _col(np.log(a)) * jb)
        if h == "call":
            name, args = t[1], t[2]
            if name in AGGREGATES and len(args) == 1:
                return self.aggregate(name, *self.ev(args[0]))
            if name in ("max", "min"):
                (a, ja), (b, jb) = self.ev(args[0]), self.ev(args[1])
                a, ja, b, jb = self.broadcast(a, ja, b, jb)
                pick = (a >= b) if name == "max" else (a <= b)
                return np.where(pick, a, b), np.where(_col(pick), ja, jb)
            v, j = self.ev(args[0])
            if name == "exp":
                e = np.exp(v)
                return e, _col(e) * j
            if name == "log":
                return np.log(v), j / _col(v)
            if name == "sqrt":
                r = np.sqrt(v)
                return r, j / _col(2 * r)
        raise FairtheoryValueError(f"objective tree: unknown head {h!r}")

    def broadcast(self, a: Any, ja: np.ndarray, b: Any, jb: np.ndarray) -> tuple[Any, np.ndarray, Any, np.ndarray]:
        va, vb = np.ndim(a) == 1, np.ndim(b) == 1
        if va and not vb:
            b, jb = np.full(self.n, b), np.tile(jb, (self.n, 1))
        elif vb and not va:
            a, ja = np.full(self.n, a), np.tile(ja, (self.n, 1))
        return a, ja, b, jb

    def aggregate(self, name: str, v: np.ndarray, j: np.ndarray) -> tuple[float, np.ndarray]:
        n = self.n
        if name == "sum":
            return float(v.sum()), j.sum(axis=0)
        if name == "mean":
            return float(v.mean()), j.mean(axis=0)
        if name in ("var", "std"):
            m = v.mean()
            var = float(np.mean((v - m) ** 2))
            gvar = (2.0 / n) * ((v - m) @ j)
            if name == "var":
                return var, gvar
            s = math.sqrt(max(var, 0.0))
            return s, (gvar / (2 * s) if s > 0 else np.zeros(n))
        k = int(np.argmax(v) if name == "max" else np.argmin(v))
        return float(v[k]), j[k].copy()


def _col(x: Any) -> Any:
    return x[:, None] if np.ndim(x) == 1 else x


# ------------------------------------------------------------------------------------------ kernel terms
class Untranslatable(FairtheoryValueError):
    """The tree has no term in the kernel's language (the message says which part and why)."""


def _q(x: Fraction | int) -> list[Any]:
    return ["q", str(Fraction(x))]


def to_term(t: tuple, *, losses: Any = None, count: Any = None) -> Any:
    r"""The kernel term of a scalar tree, for every number of clients: ``f`` -> ``["at", "f", ["b", 0]]`` inside
    a sum ``["sum", body, ["q", "1"], count]`` (``count`` default ``["v", "n"]``), ``n`` -> ``count``, a parameter
    ``p`` -> ``["v", p]``.  ``mean(v) = sum(v)/n``, ``var(v) = sum(v^2)/n - (sum(v)/n)^2``, ``std = rpow(var,
    1/2)``, ``sqrt(x) = rpow(x, 1/2)``, ``min(a, b) = -max(-a, -b)``; ``x^k`` with an integer ``|k| <= 16`` is
    ``["^", x, k]``, any other power ``["rpow", x, e]``.

    ``losses`` (a function of the index term giving the member term) replaces ``["at", "f", index]``.  Raises
    :class:`Untranslatable` for aggregates ``max``/``min`` over the clients (the kernel has a binary ``max`` only),
    an aggregate inside an aggregate (the kernel has one binder), and integer powers beyond 16.
    """
    count = ["v", "n"] if count is None else count
    member = (lambda i: ["at", "f", i]) if losses is None else losses
    return _Term(member, count).go(t, inside=False)


class _Term:
    def __init__(self, member: Any, count: Any) -> None:
        self.member, self.count = member, count

    def go(self, t: tuple, inside: bool) -> Any:
        h = t[0]
        if h == "num":
            return _q(t[1])
        if h == "par":
            return ["v", t[1]]
        if h == "n":
            return self.count
        if h == "f":
            if not inside:
                raise Untranslatable("f outside an aggregate")
            return self.member(["b", 0])
        if h == "neg":
            return ["*", _q(-1), self.go(t[1], inside)]
        if h == "+":
            return ["+", self.go(t[1], inside), self.go(t[2], inside)]
        if h == "-":
            return ["+", self.go(t[1], inside), ["*", _q(-1), self.go(t[2], inside)]]
        if h == "*":
            return ["*", self.go(t[1], inside), self.go(t[2], inside)]
        if h == "/":
            return ["/", self.go(t[1], inside), self.go(t[2], inside)]
        if h == "^":
            e = t[2]
            if e[0] == "neg" and e[1][0] == "num":
                e = _num(-e[1][1])
            if e[0] == "num" and e[1].denominator == 1:
                if abs(e[1]) > 16:
                    raise Untranslatable(f"integer power {e[1]} beyond the kernel's 16")
                return ["^", self.go(t[1], inside), int(e[1])]
            return ["rpow", self.go(t[1], inside), self.go(e, inside)]
        if h == "call":
            name, args = t[1], t[2]
            if name in AGGREGATES and len(args) == 1:
                if inside:
                    raise Untranslatable(f"{name}(...) inside another aggregate: the kernel's sums do not nest")
                if name in ("max", "min"):
                    raise Untranslatable(f"{name} over the clients: the kernel has a binary max only, not a max over "
                                         "a family of any size")
                body = self.go(args[0], True)
                s = ["sum", body, _q(1), self.count]
                if name == "sum":
                    return s
                mean = ["/", s, self.count]
                if name == "mean":
                    return mean
                var = ["+", ["/", ["sum", ["^", body, 2], _q(1), self.count], self.count],
                       ["*", _q(-1), ["^", mean, 2]]]
                return var if name == "var" else ["rpow", var, _q(Fraction(1, 2))]
            xs = [self.go(a, inside) for a in args]
            if name in ("exp", "log"):
                return [name, xs[0]]
            if name == "sqrt":
                return ["rpow", xs[0], _q(Fraction(1, 2))]
            if name == "max":
                return ["max", xs[0], xs[1]]
            if name == "min":
                return ["*", _q(-1), ["max", ["*", _q(-1), xs[0]], ["*", _q(-1), xs[1]]]]
        raise Untranslatable(f"no kernel term for {h!r}")


def from_term(term: Any, *, count: str = "n") -> tuple:
    r"""A syntax tree of a kernel term in the image of :func:`to_term` (sums over ``1..n`` of bodies in
    ``["at", "f", ["b", 0]]``): ``["sum", B, 1, n]`` -> ``sum(B)``, ``["rpow", x, e]`` -> ``x ^ e``, ``["max", a, b]``
    -> ``max(a, b)``; ``to_term(from_term(T)) == T`` for every such ``T``.  Raises :class:`Untranslatable` otherwise."""
    return _from(term, count, inside=False)


def _from(t: Any, count: str, inside: bool) -> tuple:
    if not isinstance(t, list) or not t or not isinstance(t[0], str):
        raise Untranslatable(f"not a kernel term: {str(t)[:60]}")
    h, a = t[0], t[1:]
    if h == "q" and len(a) == 1:
        return _num(Fraction(a[0]))
    if h == "v" and len(a) == 1:
        return ("n",) if a[0] == count else ("par", a[0])
    if h == "at" and a[0] == "f" and a[1] == ["b", 0] and inside:
        return ("f",)
    if h == "*" and len(a) == 2 and a[0] == ["q", "-1"] and isinstance(a[1], list) and a[1][:1] == ["max"] \
            and len(a[1]) == 3 and all(isinstance(x, list) and len(x) == 3 and x[:2] == ["*", ["q", "-1"]]
                                       for x in a[1][1:]):
        return ("call", "min", (_from(a[1][1][2], count, inside), _from(a[1][2][2], count, inside)))
    if h == "*" and len(a) == 2 and a[0] == ["q", "-1"]:
        return ("neg", _from(a[1], count, inside))
    if h == "+" and len(a) == 2:
        if isinstance(a[1], list) and len(a[1]) == 3 and a[1][:2] == ["*", ["q", "-1"]]:
            return ("-", _from(a[0], count, inside), _from(a[1][2], count, inside))
        return ("+", _from(a[0], count, inside), _from(a[1], count, inside))
    if h in ("*", "/") and len(a) == 2:
        return (h, _from(a[0], count, inside), _from(a[1], count, inside))
    if h == "^" and len(a) == 2 and isinstance(a[1], int):
        return ("^", _from(a[0], count, inside), _num(a[1]))
    if h == "rpow" and len(a) == 2:
        return ("^", _from(a[0], count, inside), _from(a[1], count, inside))
    if h in ("exp", "log") and len(a) == 1:
        return ("call", h, (_from(a[0], count, inside),))
    if h == "max" and len(a) == 2:
        return ("call", "max", (_from(a[0], count, inside), _from(a[1], count, inside)))
    if h == "sum" and len(a) == 3 and not inside and a[1] == ["q", "1"] and a[2] == ["v", count]:
        return ("call", "sum", (_from(a[0], count, True),))
    raise Untranslatable(f"no syntax tree for the kernel term head {h!r}")
