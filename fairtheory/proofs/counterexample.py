r"""Makers of ``"counterexample"`` certificates (untrusted): a point at which a symbolic statement is false.

The kernel (:func:`fairtheory_kernel.symbolic.check_counterexample`) decides; nothing here is trusted.  A
certificate::

    {"kind": "counterexample", "version": 1, "title": str, "citation": str,
     "statement": <symbolic statement, may have "assume">,
     "evidence": {"goal": name, "point": [[symbol, T], ...], "margin": "p/q", "proof"?: P}}

*Meaning*: the statement is false: the point lies in the domain, satisfies every assumption, and there
``lhs - rhs >= margin > 0`` (``<=`` goal) or ``|lhs - rhs| >= margin`` (``==`` goal).

:func:`counterexample` builds one from a statement, a goal name and an exact point: a count gets its integer, a
scalar a rational (or a term), a family a list of rationals ``[x_lo, x_lo+1, ...]`` (from index ``lo``, default 1)
turned into the Lagrange polynomial in the index through those values (the kernel checks the family's kind at the
members the statement uses), or a term in :data:`~fairtheory.proofs.symbolic.IDX`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.proofs.symbolic import IDX, E

__all__ = ["KIND", "interpolate", "counterexample", "check_counterexample", "value_at"]

KIND = "counterexample"


def _frac(x: Any, what: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, Fraction, str)):
        raise FairtheoryTypeError(f"{what} must be an int, a Fraction or a 'p/q' string, got {type(x).__name__}")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError) as exc:
        raise FairtheoryValueError(f"{what} must be a rational, got {x!r}"[:200]) from exc


def interpolate(values: list[Any], start: int = 1) -> E:
    r"""The polynomial ``P`` in the index with ``P(start + j) = values[j]`` (Lagrange, exact rationals), as a term
    in :data:`IDX`; at most 17 values (the kernel's powers are at most 16)."""
    if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= 17:
        raise FairtheoryValueError(f"values must be a list of 1 to 17 rationals, got {values!r}"[:200])
    ys = [_frac(y, "values[j]") for y in values]
    xs = [start + j for j in range(len(ys))]
    coef = [Fraction(0)] * len(ys)
    for j, (xj, yj) in enumerate(zip(xs, ys, strict=True)):
        basis, denom = [Fraction(1)], Fraction(1)  # prod_{m != j} (i - x_m), coefficients from degree 0
        for m, xm in enumerate(xs):
            if m != j:
                basis = [Fraction(0), *basis]
                for k in range(len(basis) - 1):
                    basis[k] -= xm * basis[k + 1]
                denom *= xj - xm
        for k, b in enumerate(basis):
            coef[k] += yj * b / denom
    terms = [["q", str(c)] if k == 0 else ["*", ["q", str(c)], IDX.t if k == 1 else ["^", IDX.t, k]]
             for k, c in enumerate(coef) if c != 0]
    return E(["q", "0"] if not terms else terms[0] if len(terms) == 1 else ["+", *terms])


def _value(kind: str, x: Any, name: str) -> Any:
    if isinstance(x, E):
        return x.t
    if kind.startswith("family"):
        if isinstance(x, dict):
            if not x or any(isinstance(k, bool) or not isinstance(k, int) for k in x):
                raise FairtheoryValueError(f"point[{name!r}]: a dict of integer index -> rational")
            lo = min(x)
            if sorted(x) != list(range(lo, lo + len(x))):
                raise FairtheoryValueError(f"point[{name!r}]: consecutive indices")
            return interpolate([x[k] for k in range(lo, lo + len(x))], lo).t
        if isinstance(x, (list, tuple)):
            return interpolate(list(x)).t
    if kind == "count" and (isinstance(x, bool) or not isinstance(x, int) or x < 1):
        raise FairtheoryValueError(f"point[{name!r}]: a count is an integer >= 1, got {x!r}"[:200])
    return ["q", str(_frac(x, f"point[{name!r}]"))]


def value_at(st: dict[str, Any], point: list[list[Any]], term: Any) -> Fraction | None:
    """The exact value of a canonical term at a point (the kernel's evaluation), or ``None`` when it is not a
    rational (e.g. ``log 2``) or cannot be evaluated."""
    from fairtheory_kernel import normal_form as nfm
    from fairtheory_kernel import symbolic as K

    try:
        ck = K._Checker(K.canonical_statement(st), float("inf"))
        vals = {}
        for nm, t in point:
            if ck.scope[nm][0] in K._FAMILY:
                ck.families[nm] = K.canon_term(t, {}, 1)
            else:
                vals[nm] = ck.nf(K.canon_term(t, {}), 0, ({}, 0))
        c = nfm.cval(ck.nf(term, 0, (vals, 0)))
    except Exception:  # noqa: BLE001 - untrusted helper: no value
        return None
    return None if c is None else Fraction(int(c.p), int(c.q))


def counterexample(st: dict[str, Any], goal: str, point: dict[str, Any], *, margin: Any = None,
                   proof: dict[str, Any] | None = None, title: str = "counterexample",
                   citation: str = "") -> dict[str, Any]:
    r"""A ``"counterexample"`` certificate refuting goal ``goal`` of the symbolic statement ``st`` at ``point``
    (symbol -> value: a count an int, a scalar a rational or an :class:`E`, a family a list of rationals from
    index 1, a dict ``{index: rational}`` of consecutive indices, or an :class:`E` in ``IDX``).  ``margin``:
    default ``lhs - rhs`` at the point (``|lhs - rhs|`` for ``==``) when that is a rational; give it (and a
    ``proof`` of ``rhs + margin <= lhs`` at the point) when the values are irrational."""
    from fairtheory_kernel.symbolic import canonical_statement

    can = canonical_statement(st)
    kinds = {d[0]: d[1] for d in can["symbols"] if d[1] != "function"}
    if not isinstance(point, dict) or set(point) != set(kinds):
        raise FairtheoryValueError(f"point must give every symbol {sorted(kinds)} a value, got {sorted(point)}"[:300])
    pts = [[nm, _value(kinds[nm], point[nm], nm)] for nm in kinds]
    g = next((x for x in can["goals"] if x["name"] == goal), None)
    if g is None:
        raise FairtheoryValueError(f"goal must be one of {[x['name'] for x in can['goals']]}, got {goal!r}"[:300])
    if margin is None:
        lhs, rhs = value_at(can, pts, g["lhs"]), value_at(can, pts, g["rhs"])
        if lhs is None or rhs is None:
            raise FairtheoryValueError("margin: the goal's sides are not rational at the point; pass margin= "
                                       "(and proof=)")
        margin = lhs - rhs if g["rel"] == "<=" else abs(lhs - rhs)
    m = _frac(margin, "margin")
    if m <= 0:
        raise FairtheoryValueError(f"margin must be > 0 (the goal holds at the point), got {m}")
    ev: dict[str, Any] = {"goal": goal, "point": pts, "margin": str(m)}
    if proof is not None:
        ev["proof"] = proof
    return {"kind": KIND, "version": 1, "title": title, "citation": citation, "statement": st, "evidence": ev}


def check_counterexample(cert: Any) -> bool:
    """The kernel's check (:func:`fairtheory_kernel.symbolic.check_counterexample`) in this process."""
    from fairtheory_kernel.symbolic import check_counterexample as check

    return check(cert)
