r"""Normal forms of symbolic terms, and the domain they live on (trusted; read after :mod:`.symbolic`'s doc).

A term (a JSON tree, :mod:`.symbolic`) is mapped to ``N/D`` with ``N, D`` python-flint ``fmpq_mpoly``
polynomials, ``gcd(N, D) = 1``, ``D`` monic: the unique reduced form of a rational function.  Its variables are
declared symbols, the summation index and *atoms*, each with a canonical key (the normal forms of its
arguments): ``exp(m/(b D))`` (one per monomial of a normalised exponent), ``log(P)`` (``P`` a polynomial proved
``> 0``), ``log p`` (``p`` prime), generic functions and their derivatives, family members ``x_i``,
``max(a, b)`` and sums.

Soundness.  *Zero test*: two terms are equal iff their normal forms are; a non-zero form only means "not
proved" (atoms need not be algebraically independent), so soundness needs only that every rewrite is an identity
on the domain (each constructor's doc names its axiom, :mod:`.symbolic` lists them).  *Well-defined*: every
denominator formed is a product of denominators already non-zero and numerators proved non-zero (:meth:`Ctx.inv`),
a ``gcd`` divides only by non-zero factors, so a normal form is a real number at every point of the domain.
*Signs* (:meth:`Ctx.psign`): a polynomial with coefficients ``>= 0`` whose odd powers are of variables known
``>= 0`` is ``>= 0`` (even powers of reals are); ``> 0`` when some monomial has only variables known ``> 0``.  A
variable's sign is a fact on the domain: its declaration (:meth:`Ctx.declare`), or an atom's definition
(``exp``, functions, ``log p`` for primes ``> 0``; ``max`` and sums the signs of their parts).  The domain changes
only through :meth:`Ctx.substitute`, which re-proves it (:meth:`Ctx.point`).  Nothing here imports sympy.
"""

from __future__ import annotations

import time
from functools import reduce
from typing import Any

from flint import fmpq, fmpq_mpoly, fmpq_mpoly_ctx, fmpz

NVARS = 64
MAX_TERMS = 3000
MAX_DEGREE = 64
MAX_POW = 16
_RING = fmpq_mpoly_ctx.get(tuple(f"y{i}" for i in range(NVARS)), "lex")
_GENS = _RING.gens()
_ONE_P = _RING.constant(1)
_ZERO_P = _RING.constant(0)
POS, NONNEG, UNKNOWN = 2, 1, 0
#: the sign every value of a declared kind has (``bounded``: the sign of its lower end, computed)
SIGN = {"real": 0, "positive": POS, "nonnegative": NONNEG, "count": POS, "index": 0, "family_real": 0,
        "family_positive": POS, "family_nonnegative": NONNEG}


class NotProved(Exception):
    """A side condition or limit failed (the certificate does not re-check)."""


Nf = tuple  # (N, D)
ZERO: Nf = (_ZERO_P, _ONE_P)
ONE: Nf = (_ONE_P, _ONE_P)


def const(q: Any) -> Nf:
    """A rational constant (int, Fraction or fmpq)."""
    if not isinstance(q, fmpq):
        q = fmpq(int(q.numerator), int(q.denominator))
    return (_RING.constant(q), _ONE_P)


def cval(a: Nf) -> fmpq | None:
    """The rational value of a constant normal form, else None."""
    if not (a[1].is_one() and a[0].is_constant()):
        return None
    d = a[0].to_dict()
    return next(iter(d.values())) if d else fmpq(0)


def pkey(p: fmpq_mpoly) -> tuple:
    """A hashable canonical key of a polynomial."""
    return tuple(sorted((tuple((i, e) for i, e in enumerate(ex) if e), (int(c.p), int(c.q))) for ex, c in p.to_dict().items()))


def nkey(a: Nf) -> tuple:
    return (pkey(a[0]), pkey(a[1]))


def used(a: Nf) -> set[int]:
    return {i for p in a for i, d in enumerate(p.degrees()) if d > 0}


class Ctx:
    """Variables (symbols and atoms) of one check, their signs and dependencies, the domain, and the deadline."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.kind: list[tuple] = []      # per variable: ("sym", name, kind) / ("bvar",) / (atom kind, data...)
        self.sign: list[int] = []
        self.deps: list[frozenset] = []  # symbol names (and "#b" for the bound index) a variable depends on
        self.index: dict[tuple, int] = {}
        #: the domain, in declaration order: name -> (kind, variable index or None for a family, (lo, hi) or None)
        self.domain: dict[str, tuple[str, int | None, tuple[Nf, Nf] | None]] = {}
        self.in_ranges: set[str] = set()  # names some range uses
        self.fsign: dict[str, int] = {}  # the sign of every member of a family
        self.bvar = self.declare("#b", "index")  # the summation index, first: every value may use it

    def tick(self) -> None:
        if time.perf_counter() > self.deadline:
            raise NotProved("time budget exhausted")

    def var(self, key: tuple, kind: tuple, sign: int, deps: frozenset) -> Nf:
        i = self.index.get(key)
        if i is None:
            if len(self.kind) >= NVARS:
                raise NotProved("too many symbols and atoms")
            self.index[key] = i = len(self.kind)
            self.kind.append(kind)
            self.sign.append(sign)
            self.deps.append(deps)
        return (_GENS[i], _ONE_P)

    def deps_of(self, *xs: Nf) -> frozenset:
        return frozenset().union(*[self.deps[i] for a in xs for i in used(a)])

    # ---------------------------------------------------------------- the domain
    def declare(self, name: str, kind: str, rng: tuple[Nf, Nf] | None = None) -> Nf | None:
        """Add ``name`` after every name declared so far: a symbol (a variable with its kind's sign), a family
        (``x_i`` for integers ``i``, only a sign) or the summation index.  A range ``lo <= x <= hi`` (terms in
        earlier names) must be proved non-empty (``hi - lo >= 0``, sign test) and gives ``x`` the sign of ``lo``.
        A family's range (``family_bounded``) speaks of the member's own index, the variable of the summation
        index ``#b``: the sign test holds for every real value of it, so for every integer ``i`` the range of
        ``x_i`` is non-empty and ``x_i`` has the sign of ``lo_i``."""
        sign = SIGN.get(kind, 0)
        if rng is not None:
            if self.sign_of(self.sub(rng[1], rng[0])) < NONNEG:
                raise NotProved("range not proved non-empty")
            sign, self.in_ranges = self.sign_of(rng[0]), self.in_ranges | self.deps_of(*rng)
        x = None
        if not kind.startswith("family"):
            key = ("bvar",) if kind == "index" else ("sym", name, kind)
            x = self.var(key, key, sign, frozenset({name}))
        else:
            self.fsign[name] = sign
        self.domain[name] = (kind, None if x is None else self.index[key], rng)
        return x

    def point(self, sym: dict[int, Nf], fam: dict[str, Nf]) -> None:
        r"""Prove that the substitution ``sym`` (variable -> value) and ``fam`` (family -> value of every member) is
        a point of the domain: the one door of every substitution (attained points, lemma instances, sum
        expansions: :meth:`substitute`).  Raises :class:`NotProved` otherwise.

        The domain ``D``: values of the declared names ``n_1, n_2, ...`` (in order) with ``n_k`` in its set
        ``K_k(n_1, ..., n_{k-1})``: the reals, ``> 0``, ``>= 0``, integers ``>= 1``, ``[lo_k, hi_k]``.  Let ``A``
        be the assigned names, ``R`` the values ``u`` of the others that satisfy their sets with ``sigma``
        substituted.  Checked, in declaration order:

        1. a value uses no assigned name; the value of a name that is ranged (``bounded``) or used by a range
           uses only names declared before it (so ``R`` is again triangular: the repro ``x <= y <= x + 1/2`` with
           ``x = y + 1`` is refused here, ``y``'s range would use ``y``);
        2. an assigned name's value has the sign of its kind (for ``bounded``: of its lower end) and lies in its
           range with ``sigma`` substituted (``v - lo >= 0``, ``hi - v >= 0``); counts are never assigned;
        3. an unassigned name whose range uses an assigned name: the substituted range is non-empty
           (``hi - lo >= 0``), uses only earlier unassigned names, and its lower end keeps the name's sign.

        A family's range uses ``#b`` as its member's own index (every integer): that use is not a use of the
        summation index, so assigning ``#b`` (a sum's expansion) leaves it untouched, and a family range touched
        by an assignment while ``#b`` is assigned is refused (its own index would be substituted).

        Soundness, by induction on the declaration order: every sign test is valid wherever the variables have
        their recorded signs; on ``R`` they do (unassigned: their kind, or their range's lower end by 3; atoms:
        their definitions, rebuilt with ``sigma`` by their constructors), so 2 gives ``(u, sigma(u)) in D`` for
        every ``u in R``.  ``R`` is non-empty: choose its names in order, each set is non-empty given the earlier
        choices (an untouched range was proved non-empty at declaration, a touched one by 3, 1 keeps the choice
        well-founded).  Hence an identity after substitution holds at a point of ``D`` (attained), and a lemma
        proved on its domain holds at every instance (``R`` is then all of the other names' domain)."""
        val = {self.kind[j][1] if self.kind[j][0] == "sym" else "#b": v for j, v in sym.items()} | fam
        if len(val) != len(sym) + len(fam) or any(self.kind[j][0] not in ("sym", "bvar") for j in sym):
            raise NotProved("substitution of something other than declared names")
        before: set[str] = set()
        for nm, (kind, j, rng) in self.domain.items():
            own, need = (frozenset({"#b"}), self.fsign[nm]) if j is None else (frozenset(), self.sign[j])
            touched = rng is not None and bool((self.deps_of(*rng) - own) & val.keys())
            if touched and own and "#b" in val:
                raise NotProved(f"range of {nm} with its index assigned")
            lo_hi = [self._replace(z, sym, fam) for z in rng] if touched else None
            if nm in val:
                v, uses = val[nm], self.deps_of(val[nm])
                if kind == "count" or uses & val.keys() or ((rng or nm in self.in_ranges) and not uses <= before):
                    raise NotProved(f"value of {nm}: uses an assigned or a later name, or {nm} is a count")
                lo, hi = lo_hi or rng or (v, v)
                if self.sign_of(v) < need or self.sign_of(self.sub(v, lo)) < NONNEG or self.sign_of(self.sub(hi, v)) < NONNEG:
                    raise NotProved(f"value of {nm} outside its domain")
            elif lo_hi is not None:
                lo, hi = lo_hi
                if not self.deps_of(lo, hi) - own <= before - val.keys() or self.sign_of(self.sub(hi, lo)) < NONNEG \
                        or self.sign_of(lo) < need:
                    raise NotProved(f"range of {nm} not proved non-empty at the point")
            before.add(nm)

    def substitute(self, xs: list[Nf], sym: dict[int, Nf], fam: dict[str, Nf]) -> list[Nf]:
        """``xs`` with the point ``sym``/``fam`` substituted, after :meth:`point` proved it in the domain."""
        self.point(sym, fam)
        return [self._replace(x, sym, fam) for x in xs]

    # ---------------------------------------------------------------- field operations
    def mk(self, n: fmpq_mpoly, d: fmpq_mpoly) -> Nf:
        self.tick()
        if d.is_zero():
            raise NotProved("division by zero")
        if len(n) > MAX_TERMS or len(d) > MAX_TERMS or n.total_degree() > MAX_DEGREE or d.total_degree() > MAX_DEGREE:
            raise NotProved("polynomial too large")
        if n.is_zero():
            return ZERO
        if not d.is_one():
            g = n.gcd(d)
            if not g.is_one():
                n, d = n / g, d / g
            lc = d.leading_coefficient()
            if lc != 1:
                n, d = n * (1 / lc), d * (1 / lc)
        return (n, d)

    def add(self, a: Nf, b: Nf) -> Nf:
        if a[1] == b[1]:
            return self.mk(a[0] + b[0], a[1])
        return self.mk(a[0] * b[1] + b[0] * a[1], a[1] * b[1])

    def neg(self, a: Nf) -> Nf:
        return (-a[0], a[1])

    def sub(self, a: Nf, b: Nf) -> Nf:
        return self.add(a, self.neg(b))

    def mul(self, a: Nf, b: Nf) -> Nf:
        if max(len(a[0]), len(a[1])) * max(len(b[0]), len(b[1])) > 50 * MAX_TERMS:
            raise NotProved("product too large")
        return self.mk(a[0] * b[0], a[1] * b[1])

    def inv(self, a: Nf) -> Nf:
        """``1/a``; ``a`` must be proved ``> 0`` or ``< 0`` (its denominator is non-zero by construction)."""
        if not (self.psign(a[0]) == POS or self.psign(-a[0]) == POS):
            raise NotProved("division by a term not proved non-zero")
        return self.mk(a[1], a[0])

    def pow(self, a: Nf, k: int) -> Nf:
        if abs(k) > MAX_POW:
            raise NotProved("power too large")
        if k < 0:
            a, k = self.inv(a), -k
        if k > 1 and (max(len(a[0]), len(a[1])) ** k > 50 * MAX_TERMS
                      or max(a[0].total_degree(), a[1].total_degree()) * k > MAX_DEGREE):
            raise NotProved("power too large")
        return self.mk(a[0] ** k, a[1] ** k)

    def total(self, xs: list[Nf]) -> Nf:
        return reduce(self.add, xs, ZERO)

    def eq(self, a: Nf, b: Nf) -> bool:
        return a[0] == b[0] and a[1] == b[1]

    # ---------------------------------------------------------------- signs
    def psign(self, p: fmpq_mpoly) -> int:
        """POS if ``p > 0`` on the whole domain, NONNEG if ``p >= 0``, else UNKNOWN (coefficients and variable signs)."""
        if p.is_zero():
            return NONNEG
        strict = False
        for ex, c in p.to_dict().items():
            if c < 0:
                return UNKNOWN
            pos = True
            for i, e in enumerate(ex):
                if e:
                    s = self.sign[i]
                    if e % 2 and s == UNKNOWN:
                        return UNKNOWN
                    pos = pos and s == POS
            strict = strict or pos
        return POS if strict else NONNEG

    def sign_of(self, a: Nf) -> int:
        n, d = a
        for s in (1, -1):
            if self.psign(s * d) == POS:
                return self.psign(s * n)
        return UNKNOWN

    # ---------------------------------------------------------------- atoms
    def poly_at(self, p: fmpq_mpoly, val: Any) -> Nf:
        """``p`` with variable ``j`` replaced by ``val(j)`` (an Nf)."""
        out = []
        cache: dict[int, Nf] = {}
        for ex, c in p.to_dict().items():
            t = const(c)
            for j, e in enumerate(ex):
                if e:
                    if j not in cache:
                        cache[j] = val(j)
                    t = self.mul(t, self.pow(cache[j], e))
            out.append(t)
        return self.total(out)

    def monomial(self, ex: tuple) -> fmpq_mpoly:
        return _RING.from_dict({tuple(ex): 1})

    def exp(self, a: Nf) -> Nf:
        """``exp(a)`` split over the monomials of ``a``'s numerator (exp(u + v) = exp u exp v); a term that reduces
        to ``k log P`` (integer ``k``, after cancelling the exponent's denominator) becomes ``P^k`` (exp(log P) = P
        for P > 0)."""
        n, d = a
        out = ONE
        for ex, c in n.to_dict().items():
            e = self.mk(self.monomial(ex), d * int(c.q))  # exp(c m/d) = exp(e)^p, c = p/b
            (ee, r), = e[0].to_dict().items()
            nz = [(j, k) for j, k in enumerate(ee) if k]
            if e[1].is_one() and r.q == 1 and len(nz) == 1 and nz[0][1] == 1 and self.kind[nz[0][0]][0] in ("log", "logc"):
                j = nz[0][0]  # e = r log P with an integer r: exp(e) = P^r
                arg = self.kind[j][1] if self.kind[j][0] == "log" else const(self.kind[j][1])
                out = self.mul(out, self.pow(arg, int(r.p) * int(c.p)))
                continue
            atom = self.var(("exp", nkey(e)), ("exp", e), POS, self.deps_of(e))
            out = self.mul(out, self.pow(atom, int(c.p)))
        return out

    def log(self, a: Nf) -> Nf:
        """``log a`` for ``a`` proved ``> 0``: log of a product of positives is the sum of logs, log(exp u) = u,
        log of a positive rational is split into primes."""
        if self.sign_of(a) != POS:
            raise NotProved("log of a term not proved > 0")
        n, d = a
        if self.psign(d) != POS:
            n, d = -n, -d
        out: list[Nf] = []
        parts = []
        for p, s in ((n, 1), (d, -1)):
            mono = p.term_content()
            keep = [0] * NVARS
            for j, e in enumerate(mono.degrees()):
                e = max(e, 0)
                if e and self.sign[j] == POS:
                    term = self.kind[j][1] if self.kind[j][0] == "exp" else self._log_atom(_GENS[j])
                    out.append(self.mul(const(s * e), term))
                    keep[j] = e
            p = p / self.monomial(tuple(keep))
            lc = p.leading_coefficient()
            parts.append(p * (1 / lc))
            out.append(self._log_const(lc) if s == 1 else self.neg(self._log_const(lc)))
        # n, d > 0 (sign_of); each is (positive monomial) * lc * part with lc > 0 (else refused), so part > 0
        for p, s in zip(parts, (1, -1), strict=True):
            if not p.is_one():
                out.append(self.mul(const(s), self._log_atom(p)))
        return self.total(out)

    def _log_atom(self, p: fmpq_mpoly) -> Nf:
        r = (p, _ONE_P)
        return self.var(("log", nkey(r)), ("log", r), UNKNOWN, self.deps_of(r))

    def _log_const(self, q: fmpq) -> Nf:
        if q <= 0:
            raise NotProved("log of a constant <= 0")
        out = []
        for z, s in ((q.p, 1), (q.q, -1)):
            if abs(z) > 10 ** 20:
                out.append(self.mul(const(s), self.var(("logc", int(z)), ("logc", int(z)), UNKNOWN, frozenset())))
                continue
            for prime, e in (fmpz(z).factor() if z != 1 else []):
                lp = self.var(("logc", int(prime)), ("logc", int(prime)), POS, frozenset())
                out.append(self.mul(const(s * int(e)), lp))
        return self.total(out)

    def fn(self, name: str, orders: tuple, args: tuple) -> Nf:
        """A declared function's partial derivative of ``orders`` at ``args``; ``> 0`` for order 0 (the declared
        functions are positive)."""
        return self.var(("fn", name, orders, tuple(nkey(a) for a in args)), ("fn", name, orders, args),
                        POS if not any(orders) else UNKNOWN, self.deps_of(*args))

    def at(self, family: str, sign: int, idx: Nf) -> Nf:
        """The member ``x_idx`` of a family (``idx`` an integer or the summation index), with the family's sign."""
        u = used(idx)
        c = cval(idx)
        if not (idx[1].is_one() and ((c is not None and c.q == 1) or
                                     (len(u) == 1 and self.kind[min(u)][0] == "bvar" and idx[0] == _GENS[min(u)]))):
            raise NotProved("a family index must be the summation index or an integer")
        return self.var(("at", family, nkey(idx)), ("at", family, idx), sign, frozenset({family}) | self.deps_of(idx))

    def max(self, a: Nf, b: Nf) -> Nf:
        """``max(a, b)``: ``a`` when ``a - b`` is a constant ``>= 0`` (axiom 5), else an atom (arguments sorted:
        ``max`` is symmetric) with the better of the two signs (``max(a, b) >= a`` and ``>= b``)."""
        c = cval(self.sub(a, b))
        if c is not None:
            return a if c >= 0 else b
        a, b = sorted((a, b), key=nkey)
        return self.var(("max", nkey(a), nkey(b)), ("max", a, b), max(self.sign_of(a), self.sign_of(b)), self.deps_of(a, b))

    def sum(self, body: Nf, lo: Nf, hi: Nf, bvar: int) -> Nf:
        """``sum_{i=lo}^{hi} body``: limits integers or a count symbol with ``hi >= lo - 1`` proved; linear in the
        body (index-free factors pulled out, ``sum 1 = hi - lo + 1``)."""
        kinds = []
        for lim in (lo, hi):
            p, c = lim[0], cval(lim)
            if c is not None and c.q == 1:
                kinds.append(("int", int(c.p)))
            elif lim[1].is_one() and len(used(lim)) == 1 and p == _GENS[used(lim).pop()] \
                    and self.kind[used(lim).pop()][0] == "sym" and self.kind[used(lim).pop()][2] == "count":
                kinds.append(("count", used(lim).pop()))
            else:
                raise NotProved("a summation limit must be an integer or a count symbol")
        (kl, vl), (kh, vh) = kinds
        if (kl, kh) == ("int", "int"):
            ok, nonempty = vh >= vl - 1, vh >= vl
        elif (kl, kh) == ("int", "count"):
            ok, nonempty = vl <= 2, vl <= 1
        else:
            ok = nonempty = (kl, kh) == ("count", "count") and vl == vh
        if not ok:
            raise NotProved("summation range not proved hi >= lo - 1")
        if any(self.kind[j][0] == "sum" for j in used(body)):
            raise NotProved("nested sums")
        if (kl, kh) == ("int", "int") and vh - vl < 16:  # a short sum with integer limits: its terms, added
            return self.total([self.substitute([body], {bvar: const(i)}, {})[0] for i in range(vl, vh + 1)])
        dep = {j for j in used(body) if "#b" in self.deps[j]}
        n, d = body
        dmono = [max(e, 0) for e in d.term_content().degrees()]
        out_ex = tuple(e if j not in dep else 0 for j, e in enumerate(dmono))
        dout = self.monomial(out_ex)
        rest = d / dout
        if not any(rest.degrees()[j] > 0 for j in dep):
            dout, rest = dout * rest, _ONE_P
        groups: dict[tuple, list] = {}
        for ex, c in n.to_dict().items():
            dex = tuple(e if j in dep else 0 for j, e in enumerate(ex))
            fex = tuple(e if j not in dep else 0 for j, e in enumerate(ex))
            groups.setdefault(dex, []).append(self.mk(self.monomial(fex) * c, _ONE_P))
        count = self.add(self.sub(hi, lo), ONE)
        out = []
        for dex, free in groups.items():
            inner = self.mk(self.monomial(dex), rest)
            if self.eq(inner, ONE):
                s = count
            else:
                sg = self.sign_of(inner)
                sg = sg if (sg != POS or nonempty) else NONNEG
                deps = (self.deps_of(inner) - {"#b"}) | self.deps_of(lo, hi)
                s = self.var(("sum", nkey(inner), nkey(lo), nkey(hi)), ("sum", inner, lo, hi, bvar), sg, deps)
            out.append(self.mul(self.total(free), s))
        return self.mul(self.total(out), self.mk(_ONE_P, dout))

    # ---------------------------------------------------------------- calculus and substitution
    def diff(self, a: Nf, x: int) -> Nf:
        """``d a / d x`` for a symbol ``x`` (sum, product, quotient and chain rules; exp, log, generic functions)."""
        name = self.kind[x][1]
        memo: dict[int, Nf] = {}

        def dvar(j: int) -> Nf:
            if j == x:
                return ONE
            if name not in self.deps[j]:
                return ZERO
            if j not in memo:
                k = self.kind[j]
                if k[0] == "exp":
                    memo[j] = self.mul((_GENS[j], _ONE_P), self.diff(k[1], x))
                elif k[0] == "log":
                    memo[j] = self.mul(self.diff(k[1], x), self.inv(k[1]))
                elif k[0] == "fn":
                    terms = []
                    for pos, arg in enumerate(k[3]):
                        da = self.diff(arg, x)
                        if not self.eq(da, ZERO):
                            o = tuple(v + (i == pos) for i, v in enumerate(k[2]))
                            if sum(o) > 6:
                                raise NotProved("derivative order too high")
                            terms.append(self.mul(self.fn(k[1], o, k[3]), da))
                    memo[j] = self.total(terms)
                else:
                    raise NotProved(f"no derivative rule for {k[0]}")
            return memo[j]

        def dpoly(p: fmpq_mpoly) -> Nf:
            return self.total([self.mul((p.derivative(j), _ONE_P), dvar(j)) for j, e in enumerate(p.degrees()) if e > 0])

        n, d = a
        num = self.sub(self.mul(dpoly(n), (d, _ONE_P)), self.mul((n, _ONE_P), dpoly(d)))
        return self.mk(num[0], num[1] * d * d)

    def _replace(self, a: Nf, sym: dict[int, Nf], fam: dict[str, Nf]) -> Nf:
        """``a`` with symbols (variable index -> value) and families (every member -> value) replaced, atoms
        rebuilt by their constructors (side conditions re-checked).  A value that uses the summation index is
        never put inside a sum (no capture).  Only :meth:`point` and :meth:`substitute` call it."""
        bound = any("#b" in self.deps_of(v) for v in [*sym.values(), *fam.values()])
        names = {self.kind[j][1] if self.kind[j][0] == "sym" else "#b" for j in sym} | set(fam)
        memo: dict[int, Nf] = {}

        def val(j: int) -> Nf:
            if j in sym:
                return sym[j]
            if not (self.deps[j] & names):
                return (_GENS[j], _ONE_P)
            if j not in memo:
                k = self.kind[j]
                s = lambda z: self._replace(z, sym, fam)  # noqa: E731
                if k[0] == "exp":
                    memo[j] = self.exp(s(k[1]))
                elif k[0] == "log":
                    memo[j] = self.log(s(k[1]))
                elif k[0] == "fn":
                    memo[j] = self.fn(k[1], k[2], tuple(s(z) for z in k[3]))
                elif k[0] == "at":
                    memo[j] = fam[k[1]] if k[1] in fam else self.at(k[1], self.sign[j], s(k[2]))
                elif k[0] == "max":
                    memo[j] = self.max(s(k[1]), s(k[2]))
                elif k[0] == "sum" and not bound:
                    memo[j] = self.sum(s(k[1]), s(k[2]), s(k[3]), k[4])
                else:
                    raise NotProved("substitution")
            return memo[j]

        num, den = self.poly_at(a[0], val), self.poly_at(a[1], val)
        return self.mul(num, self.inv(den))

