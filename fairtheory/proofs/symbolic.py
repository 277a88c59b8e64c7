r"""Certificates of the analytic lemmas for the ``"symbolic"`` kernel (untrusted proposers).

The makers below write statements and evidence as JSON terms (:class:`E` builds them with Python operators);
:mod:`fairtheory_kernel.symbolic` decides.  Nothing here is trusted: a wrong certificate is refused by
the kernel.  The format, the rules and why each is sound are in docs/proofs.md, sections 1-3.

* :func:`softplus_smoothness_certificate` - 002 Sec. 4: ``0 <= softplus_mu''(x) <= 1/(4 mu)``;
* :func:`prop1_certificate` - 002 Prop. 1: ``0 <= softplus_mu(x) - (x)_+ <= mu log 2``;
* :func:`lemma2_certificate` - 002 Lemma 2: ``0 <= F^mu_alpha - F_alpha <= mu tau_alpha log 2``;
* :func:`lemma_c1_certificate` - 002 Lemma C.1 (Hessian of ``f^{mu,i}`` and its norm bound);
* :func:`lemma12_certificate` - 003 Lemma 12 (Hessian of ``f^{q+1}/(q+1)`` and its norm bound).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

__all__ = ["E", "q", "v", "exp", "log", "rpow", "mx", "fn", "d", "sm", "at", "IDX", "statement", "check_symbolic",
           "lift", "link", "rep", "gsum", "chain", "cert", "assume_eq",
           "softplus_smoothness_certificate", "prop1_certificate", "lemma2_certificate", "lemma_c1_certificate",
           "lemma12_certificate", "ALL_CERTIFICATES", "KIND", "goal_of"]

KIND = "symbolic"


class E:
    """A kernel term (``.t``, JSON) with Python operators: ``+ - * / **`` (integer powers)."""

    def __init__(self, t: Any) -> None:
        self.t = t

    @staticmethod
    def lift(x: Any) -> Any:
        if isinstance(x, E):
            return x.t
        if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
            return ["q", str(Fraction(x))]
        raise FairtheoryTypeError(f"E: operand must be a term, an int or a Fraction, got {type(x).__name__}")

    def _op(self, h: str, a: Any, b: Any) -> E:
        xs = []
        for t in (E.lift(a), E.lift(b)):
            xs.extend(t[1:] if t[0] == h else [t])
        return E([h, *xs])

    def __add__(self, o: Any) -> E:
        return self._op("+", self, o)

    def __radd__(self, o: Any) -> E:
        return self._op("+", o, self)

    def __neg__(self) -> E:
        return E(["*", ["q", "-1"], self.t])

    def __sub__(self, o: Any) -> E:
        return self + (-E(E.lift(o)))

    def __rsub__(self, o: Any) -> E:
        return E(E.lift(o)) + (-self)

    def __mul__(self, o: Any) -> E:
        return self._op("*", self, o)

    def __rmul__(self, o: Any) -> E:
        return self._op("*", o, self)

    def __truediv__(self, o: Any) -> E:
        return E(["/", self.t, E.lift(o)])

    def __rtruediv__(self, o: Any) -> E:
        return E(["/", E.lift(o), self.t])

    def __pow__(self, k: int) -> E:
        return E(["^", self.t, k])


def q(x: Any) -> E:
    return E(["q", str(Fraction(x))])


def v(name: str) -> E:
    return E(["v", name])


def exp(x: Any) -> E:
    return E(["exp", E.lift(x)])


def log(x: Any) -> E:
    return E(["log", E.lift(x)])


def rpow(b: Any, e: Any) -> E:
    return E(["rpow", E.lift(b), E.lift(e)])


def mx(a: Any, b: Any) -> E:
    return E(["max", E.lift(a), E.lift(b)])


def fn(name: str, *args: Any) -> E:
    return E(["fn", name, *[E.lift(a) for a in args]])


def d(x: Any, *names: str) -> E:
    return E(["d", E.lift(x), list(names)])


#: the index of the enclosing sum
IDX = E(["b", 0])


def sm(body: Any, lo: Any, hi: Any) -> E:
    """``sum_{i=lo}^{hi} body`` (the body refers to ``i`` as :data:`IDX`)."""
    return E(["sum", E.lift(body), E.lift(lo), E.lift(hi)])


def at(family: str, idx: Any) -> E:
    return E(["at", family, E.lift(idx)])


def lift(x: Any) -> Any:
    """``x`` with every :class:`E` inside (lists, nested) replaced by its JSON term; ints and strings kept."""
    if isinstance(x, E):
        return x.t
    if isinstance(x, (list, tuple)):
        return [lift(y) for y in x]
    return x


def statement(symbols: list[list[Any]], goals: list[tuple[str, str, Any, Any, dict[str, Any] | None]],
              assume: list[tuple[str, Any, Any]] | None = None) -> dict[str, Any]:
    """A statement: declarations (ranges as terms) and goals ``(name, rel, lhs, rhs, attained point or None)``;
    ``assume``: hypotheses ``(rel, lhs, rhs)`` with ``rel`` ``"<="`` or ``"=="`` (the statement speaks of the
    points satisfying all of them; generators ``["assume", k]`` / ``["assume_rev", k]`` name them by position)."""
    decls = [[s[0], s[1], *[E.lift(x) if isinstance(x, E) else x for x in s[2:]]] for s in symbols]
    out = []
    for name, rel, lhs, rhs, att in goals:
        g: dict[str, Any] = {"name": name, "rel": rel, "lhs": E.lift(lhs), "rhs": E.lift(rhs)}
        if att:
            g["attained"] = [[k, E.lift(x)] for k, x in att.items()]
        out.append(g)
    st = {"kind": KIND, "symbols": decls, "goals": out}
    if assume:
        st["assume"] = [{"rel": rel, "lhs": E.lift(lhs), "rhs": E.lift(rhs)} for rel, lhs, rhs in assume]
    return st


def check_symbolic(cert: Any) -> bool:
    """The kernel's check (:func:`fairtheory_kernel.symbolic.check`) in this process."""
    from fairtheory_kernel.symbolic import check

    return check(cert)


def goal_of(cert: Any, part: int | str = -1) -> tuple[str, Any, Any]:
    """``(rel, lhs, rhs)`` (canonical JSON terms) of one statement goal of ``cert``, by index (``-len(goals) <= part <
    len(goals)``) or by name; named errors otherwise (also for a malformed statement)."""
    if isinstance(part, bool) or not isinstance(part, (int, str)):
        raise FairtheoryTypeError(f"goal_of: part must be an integer index or a goal name, got {part!r}"[:200])
    from fairtheory_kernel.symbolic import canonical_statement

    try:
        goals = canonical_statement(cert.get("statement") if isinstance(cert, dict) else None)["goals"]
    except (ValueError, TypeError, RecursionError) as exc:
        raise FairtheoryValueError("goal_of: cert must be a symbolic certificate with a well-formed statement "
                                   f"(e.g. prop1_certificate()): {exc}"[:300]) from None
    names = [g.get("name") for g in goals]
    if isinstance(part, str):
        if part not in names:
            raise FairtheoryValueError(f"goal_of: part must be one of the goal names {names}, got {part!r}"[:300])
        g = goals[names.index(part)]
    elif not -len(goals) <= part < len(goals):
        raise FairtheoryValueError(f"goal_of: part must lie in [{-len(goals)}, {len(goals) - 1}], got {part}")
    else:
        g = goals[part]
    return g["rel"], g["lhs"], g["rhs"]


# ------------------------------------------------------------------------------------------ evidence
def _link(rel: str, expr: Any, by: str, **kw: Any) -> dict[str, Any]:
    out = {"rel": rel, "expr": E.lift(expr), "by": by}
    for k, x in kw.items():
        out[k] = lift(x)
    return out


def _rep(*terms: tuple[Any, list[Any]]) -> list[Any]:
    """``[[c, [generator, ...]], ...]`` with term arguments lifted (also inside a ``["sum", lo, hi, R]``)."""
    return [[str(Fraction(c)), [lift(g) for g in gens]] for c, gens in terms]


def link(rel: str, expr: Any, by: str, **kw: Any) -> dict[str, Any]:
    """One chain link ``{"rel", "expr", "by", ...}``; keyword values are lifted (``terms=rep(...)``,
    ``mult=[[k, T], ...]``, ``a=``, ``b=``, ...)."""
    return _link(rel, expr, by, **kw)


def rep(*terms: tuple[Any, list[Any]]) -> list[Any]:
    """A representation ``[[c, [generator, ...]], ...]`` from ``(c, [generator, ...])`` pairs; generators are
    lists such as ``["sq", T]``, ``["pos", T]``, ``["assume", k]``, ``["flo", "w"]``, ``gsum(lo, hi, ...)``."""
    return _rep(*terms)


def gsum(lo: Any, hi: Any, *terms: tuple[Any, list[Any]]) -> list[Any]:
    """The generator ``["sum", lo, hi, R]``: ``sum_{i=lo}^{hi} R_i >= 0`` for a representation ``R`` whose
    generators may use :data:`IDX` and ``["flo", x]`` / ``["fhi", x]``."""
    return ["sum", E.lift(lo), E.lift(hi), _rep(*terms)]


def assume_eq(expr: Any, mult: dict[int, Any] | list[tuple[int, Any]]) -> dict[str, Any]:
    """The link ``next == prev + sum_k T_k (rhs_k - lhs_k)`` over ``==`` assumptions ``k`` (``mult``: ``{k: T_k}``)."""
    items = mult.items() if isinstance(mult, dict) else mult
    return _link("==", expr, "assume_eq", mult=[[int(k), E.lift(t)] for k, t in items])


def chain(*xs: Any) -> dict[str, Any]:
    """A proof ``{"chain": [T0, link, ...]}`` (``T0`` the goal's left side)."""
    return _chain(*xs)


def cert(title: str, citation: str, st: dict[str, Any], proofs: dict[str, Any],
         lemmas: list[Any] | None = None) -> dict[str, Any]:
    """A ``"symbolic"`` certificate: ``proofs`` maps each goal name to its proof (``chain(...)`` or cases)."""
    return _cert(title, citation, st, proofs, lemmas)


def _cert(title: str, citation: str, st: dict[str, Any], proofs: dict[str, Any],
          lemmas: list[Any] | None = None) -> dict[str, Any]:
    return {"kind": KIND, "version": 1, "title": title, "citation": citation, "statement": st,
            "evidence": {"lemmas": lemmas or [], "proofs": [{"name": k, **p} for k, p in proofs.items()]}}


def _chain(*xs: Any) -> dict[str, Any]:
    return {"chain": [E.lift(xs[0]), *xs[1:]]}


def softplus(z: Any, mu: E) -> E:
    """``softplus_mu(z) = mu log(1 + exp(z/mu))``."""
    return mu * log(1 + exp(z / mu))


MU, X = v("mu"), v("x")


def softplus_smoothness_certificate() -> dict[str, Any]:
    r"""002 Sec. 4: ``0 <= softplus_mu''(x) <= 1/(4 mu)`` for real ``x``, ``mu > 0``, equality at ``x = 0``:
    ``1/(4 mu) - softplus_mu'' = (s - 1/2)^2/mu`` with ``s = 1/(1 + exp(-x/mu))``."""
    d2 = d(softplus(X, MU), "x", "x")
    s = 1 / (1 + exp(-X / MU))
    st = statement([["mu", "positive"], ["x", "real"]],
                   [("upper", "<=", d2, 1 / (4 * MU), {"x": q(0)}), ("convex", "<=", q(0), d2, None)])
    proofs = {"upper": _chain(d2, _link("<=", 1 / (4 * MU), "sos", terms=_rep((1, [("pos", 1 / MU), ("sq", s - q("1/2"))])))),
              "convex": _chain(q(0), _link("<=", d2, "sos", terms=_rep((1, [("pos", d2)]))))}
    return _cert("softplus_mu'' lies in [0, 1/(4 mu)], tight at x = 0", "002 Sec. 4", st, proofs)


def _gap_proofs(x: E, mu: E) -> tuple[dict[str, Any], dict[str, Any]]:
    """Proofs of ``gap(x) <= mu log 2`` and ``0 <= gap(x)``, ``gap = softplus_mu(x) - max(x, 0)``, by cases on
    the sign of ``x`` (``exp(u) >= 1 + u`` bounds ``exp(-|x|/mu) <= 1``)."""
    gap = softplus(x, mu) - mx(x, 0)
    en, ep = exp(-x / mu), exp(x / mu)
    hyp = [(1, [("hyp",)])]
    up_pos = [gap, _link("==", softplus(x, mu) - x, "max", a=x, b=q(0), terms=_rep(*hyp)),
              _link("==", mu * log(1 + en), "identity"),
              _link("<=", mu * log(2), "log_mono", c=mu, a=1 + en, b=q(2),
                    terms=_rep((1, [("pos", en), ("exp1", x / mu)]), (1, [("pos", en / mu), ("hyp",)])))]
    up_neg = [gap, _link("==", softplus(x, mu), "max", a=q(0), b=x, terms=_rep(*hyp)),
              _link("<=", mu * log(2), "log_mono", c=mu, a=1 + ep, b=q(2),
                    terms=_rep((1, [("pos", ep), ("exp1", -x / mu)]), (1, [("pos", ep / mu), ("hyp",)])))]
    low_pos = [q(0), _link("<=", mu * log(1 + en), "log_mono", c=mu, a=q(1), b=1 + en, terms=_rep((1, [("pos", en)]))),
               _link("==", softplus(x, mu) - x, "identity"), _link("==", gap, "max", a=x, b=q(0), terms=_rep(*hyp))]
    low_neg = [q(0), _link("<=", softplus(x, mu), "log_mono", c=mu, a=q(1), b=1 + ep, terms=_rep((1, [("pos", ep)]))),
               _link("==", gap, "max", a=q(0), b=x, terms=_rep(*hyp))]
    lift = lambda ch: [E.lift(ch[0]), *ch[1:]]  # noqa: E731
    return ({"cases": x.t, "chains": [lift(up_pos), lift(up_neg)]},
            {"cases": x.t, "chains": [lift(low_pos), lift(low_neg)]})


def prop1_certificate() -> dict[str, Any]:
    r"""002 Prop. 1 (tight form): ``0 <= softplus_mu(x) - (x)_+ <= mu log 2`` for real ``x``, ``mu > 0``,
    equality at ``x = 0``."""
    gap = softplus(X, MU) - mx(X, 0)
    st = statement([["mu", "positive"], ["x", "real"]],
                   [("gap <= mu log 2", "<=", gap, MU * log(2), {"x": q(0)}), ("gap >= 0", "<=", q(0), gap, None)])
    up, low = _gap_proofs(X, MU)
    return _cert("(x)_+ <= softplus_mu(x) <= (x)_+ + mu log 2, tight at x = 0", "002 Prop. 1", st,
                 {"gap <= mu log 2": up, "gap >= 0": low})


def lemma2_certificate() -> dict[str, Any]:
    r"""002 Lemma 2 (tight form): ``0 <= F^mu_alpha - F_alpha <= mu tau_alpha log 2`` for any number ``n`` of
    clients, ``p_i, alpha_i > 0``, real ``f_i``, ``eta``; equality when every ``f_i = eta``.  Prop. 1 (two lemmas
    in fresh variables) summed with weights ``p_i/alpha_i`` (rule ``sum_mono``)."""
    eta, n = v("eta"), v("n")
    xi, w = at("f", IDX) - eta, at("p", IDX) / at("alpha", IDX)
    Fmu = sm(at("p", IDX) * (softplus(xi, MU) / at("alpha", IDX) + eta), 1, n)
    F = sm(at("p", IDX) * (mx(xi, 0) / at("alpha", IDX) + eta), 1, n)
    tau = sm(w, 1, n)
    st = statement([["mu", "positive"], ["eta", "real"], ["n", "count"], ["p", "family_positive"],
                    ["alpha", "family_positive"], ["f", "family_real"]],
                   [("F^mu - F <= mu tau_alpha log 2", "<=", Fmu - F, MU * tau * log(2), {"f": eta}),
                    ("F^mu - F >= 0", "<=", q(0), Fmu - F, None)])
    x1, x2 = v("x"), v("y")
    up1, _ = _gap_proofs(x1, MU)
    _, low2 = _gap_proofs(x2, MU)
    lemmas = [{"name": "Prop. 1 upper", "vars": [["x", "real"]], "rel": "<=", "lhs": E.lift(softplus(x1, MU) - mx(x1, 0)),
               "rhs": E.lift(MU * log(2)), "proof": up1},
              {"name": "Prop. 1 lower", "vars": [["y", "real"]], "rel": "<=", "lhs": ["q", "0"],
               "rhs": E.lift(softplus(x2, MU) - mx(x2, 0)), "proof": low2}]
    gaps = sm(w * (softplus(xi, MU) - mx(xi, 0)), 1, n)
    common = {"term": xi.t, "weight": w.t, "lo": ["q", "1"], "hi": n.t}
    top = sm(w * MU * log(2), 1, n)
    proofs = {"F^mu - F <= mu tau_alpha log 2": _chain(Fmu - F, _link("==", gaps, "identity"),
                                                       _link("<=", top, "sum_mono", lemma="Prop. 1 upper", **common),
                                                       _link("==", MU * tau * log(2), "identity")),
              "F^mu - F >= 0": _chain(q(0), _link("<=", gaps, "sum_mono", lemma="Prop. 1 lower", **common),
                                      _link("==", Fmu - F, "identity"))}
    return _cert("F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha log 2, tight when all f_i = eta", "002 Lemma 2",
                 st, proofs, lemmas)


def lemma_c1_certificate() -> dict[str, Any]:
    r"""002 Lemma C.1: the Hessian of ``f^{mu,i}(w, eta) = softplus_mu(f(w) - eta)/alpha + eta`` (scalar ``w``,
    identities) and, for ``s in [0, 1]``, ``g in [-L2, L2]``, ``h in [-L1, L1]`` (standing for
    ``sigma((f - eta)/mu)``, ``f'(w)``, ``f''(w)``), ``|u^T Hess u| <= (1/alpha)(L1 + (L2^2 + 1)/(4 mu)) |u|^2``,
    at most the paper's ``(1/alpha)(L1 + (L2^2 + 1)/mu) |u|^2``; in any dimension under the declared ranges
    ``G = |grad f|^2 in [0, L2^2]``, ``a = (gt.u)^2 in [0, (G + 1) U]``, ``k = u_w^T hess f u_w in [-L1 U, L1 U]``."""
    mu, al, L1, L2, w, eta = v("mu"), v("alpha"), v("L1"), v("L2"), v("w"), v("eta")
    s, g, h, u1, u0, U, G, a, k = (v(z) for z in ("s", "g", "h", "u1", "u0", "U", "G", "a", "k"))
    f = fn("f", w)
    fmu = softplus(f - eta, mu) / al + eta
    sw = 1 / (1 + exp(-(f - eta) / mu))
    pp = sw * (1 - sw) / mu
    f1, f2 = d(f, "w"), d(f, "w", "w")
    form = (s * (1 - s) / mu * (g * u1 - u0) ** 2 + s * h * u1 ** 2) / al
    nu = u1 ** 2 + u0 ** 2
    tight = (L1 + (L2 ** 2 + 1) / (4 * mu)) / al
    paper = (L1 + (L2 ** 2 + 1) / mu) / al
    form_d = (s * (1 - s) / mu * a + s * k) / al
    am, half = 1 / (al * mu), q("1/2")
    goals = [("Hessian ww", "==", d(fmu, "w", "w"), (pp * f1 ** 2 + sw * f2) / al, None),
             ("Hessian w eta", "==", d(fmu, "w", "eta"), -pp * f1 / al, None),
             ("Hessian eta eta", "==", d(fmu, "eta", "eta"), pp / al, None),
             ("form <= tight L |u|^2", "<=", form, tight * nu, None),
             ("form >= -tight L |u|^2", "<=", -tight * nu, form, None),
             ("tight L <= paper L", "<=", tight, paper, None),
             ("any d: form <= tight L |u|^2", "<=", form_d, tight * U, None),
             ("any d: form >= -tight L |u|^2", "<=", -tight * U, form_d, None)]
    reps = {"form <= tight L |u|^2": _rep(
                ("1/4", [("hi", "g"), ("lo", "g"), ("pos", am), ("sq", u1)]),
                ("1/4", [("hi", "g"), ("lo", "g"), ("pos", am), ("sq", u0)]),
                (1, [("sq", s - half), ("pos", am), ("sq", g * u1 - u0)]), ("1/4", [("pos", am), ("sq", g * u0 + u1)]),
                (1, [("pos", L1 / al), ("hi", "s"), ("sq", u1)]), (1, [("lo", "s"), ("hi", "h"), ("pos", 1 / al), ("sq", u1)]),
                (1, [("pos", L1 / al), ("sq", u0)])),
            "form >= -tight L |u|^2": _rep(
                (1, [("lo", "s"), ("hi", "s"), ("pos", am), ("sq", g * u1 - u0)]),
                (1, [("pos", L1 / al), ("hi", "s"), ("sq", u1)]), (1, [("lo", "s"), ("lo", "h"), ("pos", 1 / al), ("sq", u1)]),
                (1, [("pos", L1 / al), ("sq", u0)]), ("1/4", [("pos", (L2 ** 2 + 1) * am), ("sq", u1)]),
                ("1/4", [("pos", (L2 ** 2 + 1) * am), ("sq", u0)])),
            "tight L <= paper L": _rep(("3/4", [("pos", (L2 ** 2 + 1) * am)])),
            "any d: form <= tight L |u|^2": _rep(
                ("1/4", [("hi", "G"), ("pos", U * am)]), ("1/4", [("hi", "a"), ("pos", am)]),
                (1, [("sq", s - half), ("lo", "a"), ("pos", am)]), (1, [("pos", L1 * U / al), ("hi", "s")]),
                (1, [("lo", "s"), ("hi", "k"), ("pos", 1 / al)])),
            "any d: form >= -tight L |u|^2": _rep(
                (1, [("lo", "s"), ("hi", "s"), ("lo", "a"), ("pos", am)]), (1, [("pos", L1 * U / al), ("hi", "s")]),
                (1, [("lo", "s"), ("lo", "k"), ("pos", 1 / al)]), ("1/4", [("pos", (L2 ** 2 + 1) * U * am)]))}
    proofs = {}
    for name, _, lhs, rhs, _ in goals:
        link = _link("==", rhs, "identity") if name.startswith("Hessian") else _link("<=", rhs, "sos", terms=reps[name])
        proofs[name] = _chain(lhs, link)
    symbols = [["mu", "positive"], ["alpha", "positive"], ["L1", "nonnegative"], ["L2", "nonnegative"], ["w", "real"],
               ["eta", "real"], ["f", "function", 1], ["s", "bounded", q(0), q(1)], ["g", "bounded", -L2, L2],
               ["h", "bounded", -L1, L1], ["u1", "real"], ["u0", "real"], ["U", "nonnegative"],
               ["G", "bounded", q(0), L2 ** 2], ["a", "bounded", q(0), (G + 1) * U], ["k", "bounded", -L1 * U, L1 * U]]
    return _cert("Hessian of f^{mu,i} and |u^T Hess u| <= (1/alpha)(L1 + (L2^2+1)/(4 mu)) |u|^2 "
                 "<= (1/alpha)(L1 + (L2^2+1)/mu) |u|^2", "002 Lemma C.1", statement(symbols, goals), proofs)


def lemma12_certificate() -> dict[str, Any]:
    r"""003 Lemma 12: the Hessian of ``f^{q+1}/(q+1)`` is ``q f^{q-1} grad f grad f^T + f^q hess f`` (generic
    positive ``f`` of two variables, identities) and ``|q F^{q-1} (g.u)^2 + F^q h |u|^2| <= (L F^q + q F^{q-1}
    |g|^2) |u|^2`` for ``F > 0``, ``q >= 0``, ``h in [-L, L]`` (Lagrange's identity); in any dimension with
    ``a = (g.u)^2 in [0, G U]`` and ``k = u^T hess f u in [-L U, L U]`` declared."""
    qq, F, L = v("q"), v("F"), v("L")
    g1, g2, u1, u2, U, G, a, k = (v(z) for z in ("g1", "g2", "u1", "u2", "U", "G", "a", "k"))
    f = fn("f", v("w1"), v("w2"))
    obj = rpow(f, qq + 1) / (qq + 1)
    goals = []
    for x, y, name in (("w1", "w1", "11"), ("w1", "w2", "12"), ("w2", "w2", "22")):
        goals.append((f"Hessian {name}", "==", d(obj, x, y),
                      qq * rpow(f, qq - 1) * d(f, x) * d(f, y) + rpow(f, qq) * d(f, x, y), None))
    c, Fq = qq * rpow(F, qq - 1), rpow(F, qq)
    gu, nu, ng = g1 * u1 + g2 * u2, u1 ** 2 + u2 ** 2, g1 ** 2 + g2 ** 2
    form, Lq = c * gu ** 2 + Fq * v("h") * nu, L * Fq + c * ng
    form_d, Lq_d = c * a + Fq * k, L * Fq + c * G
    goals += [("form <= L_q |u|^2", "<=", form, Lq * nu, None), ("form >= -L_q |u|^2", "<=", -Lq * nu, form, None),
              ("any d: form <= L_q |u|^2", "<=", form_d, Lq_d * U, None),
              ("any d: form >= -L_q |u|^2", "<=", -Lq_d * U, form_d, None)]
    reps = {"form <= L_q |u|^2": _rep((1, [("pos", c), ("sq", g1 * u2 - g2 * u1)]), (1, [("pos", Fq), ("hi", "h"), ("sq", u1)]),
                                      (1, [("pos", Fq), ("hi", "h"), ("sq", u2)])),
            "form >= -L_q |u|^2": _rep(*[(1, [("pos", c), ("sq", z)]) for z in (gu, g1 * u1, g1 * u2, g2 * u1, g2 * u2)],
                                       (1, [("pos", Fq), ("lo", "h"), ("sq", u1)]), (1, [("pos", Fq), ("lo", "h"), ("sq", u2)])),
            "any d: form <= L_q |u|^2": _rep((1, [("pos", c), ("hi", "a")]), (1, [("pos", Fq), ("hi", "k")])),
            "any d: form >= -L_q |u|^2": _rep((1, [("pos", c * G * U)]), (1, [("pos", c), ("lo", "a")]),
                                              (1, [("pos", Fq), ("lo", "k")]))}
    proofs = {}
    for name, _, lhs, rhs, _ in goals:
        link = _link("==", rhs, "identity") if name.startswith("Hessian") else _link("<=", rhs, "sos", terms=reps[name])
        proofs[name] = _chain(lhs, link)
    symbols = [["q", "nonnegative"], ["w1", "real"], ["w2", "real"], ["f", "function", 2], ["F", "positive"],
               ["L", "nonnegative"], ["g1", "real"], ["g2", "real"], ["u1", "real"], ["u2", "real"], ["h", "bounded", -L, L],
               ["G", "nonnegative"], ["U", "nonnegative"], ["a", "bounded", q(0), G * U], ["k", "bounded", -L * U, L * U]]
    return _cert("Hessian of f^{q+1}/(q+1) and its spectral norm <= L f^q + q f^{q-1} |grad f|^2", "003 Lemma 12",
                 statement(symbols, goals), proofs)


#: every certificate maker, by short name
ALL_CERTIFICATES = {"softplus_smoothness": softplus_smoothness_certificate, "prop1": prop1_certificate,
                    "lemma2": lemma2_certificate, "lemma_c1": lemma_c1_certificate, "lemma12": lemma12_certificate}
