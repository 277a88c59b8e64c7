r"""Exact rational dual certificates for performance-estimation (PEP) worst cases: statement + evidence.

A certificate (``"kind": "pep-dual"``, version 2) is a declarative *statement* - function class, clients,
method, measure and exact bound, :mod:`fairtheory_kernel.pep` - and *evidence*: rational dual
multipliers ``lambda``, one per row of the SDP the statement defines, sparse (``[[row, "p/q"], ...]``).
The checker (:func:`check_certificate`) rebuilds the SDP **from the statement alone** with the trusted
kernel and recomputes, in exact arithmetic,

(i)   ``sum_k lambda_k a_k = c`` (the function values cancel exactly),
(ii)  ``S = sum_k lambda_k A_k - C`` positive semidefinite (exact ``L D L^T``, :mod:`fairtheory.proofs.exact_linalg`),
(iii) ``c_0 - sum_k lambda_k b_k <= claimed`` (the statement's ``value``; 0 for a homogeneous bound),

with ``lambda_k >= 0``.  Weak duality then gives the statement for every instance of the class in any
dimension: every feasible ``(G, F)`` has objective ``= -<S, G> + sum_k lambda_k (<A_k,G> + a_k F + b_k) +
c_0 - sum_k lambda_k b_k <= c_0 - sum_k lambda_k b_k``.  No row, objective, scale or metadata of the JSON
enters the check: an edited bound, a relabelled parameter or a certificate of another problem fails.

Finding ``lambda`` (:func:`certify_pep`, untrusted and free to use floats): the statement is normalised
(the largest ``L`` of its classes becomes 1, ``D0 + rho2/L^2`` about 1; each class parameter scales by its unit,
:data:`fairtheory_kernel.classes.TABLE`), the normalised SDP is solved and rounded to an exact dual certificate
by :mod:`fairtheory.proofs.search`, and the multipliers are mapped back exactly by homogeneity (each row of the
physical SDP is an exact multiple ``U_k`` of the normalised one, computed from the two; the measure scales by
``O``: ``lambda_k = lambda'_k O / U_k``); the result is re-checked with the checker before it is returned.
:func:`certify_exact` asks for a bound *equal* to a given rational.  Every statement - ``"pep-dual"``
(:func:`statement`), ``"pep-family"`` (:func:`family_statement`), ``"pep-potential"`` (:func:`potential_statement`)
- is written here, in the kernel's vocabulary: step sizes ``lr`` (Scaffold's server step ``server_lr``), the
normalised step ``h = lr L`` of the parametric kinds, outputs ``"average"`` / ``"path_average"`` / ``"last"``.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.proofs.exact_linalg import solve_sparse
from fairtheory_kernel import pep as kernel
from fairtheory_kernel.pep import check_certificate, verify_multipliers

__all__ = ["Certificate", "certify_pep", "certify_exact", "check_certificate", "verify_multipliers", "fraction_str",
           "statement", "family_statement", "potential_statement", "statement_of", "exact_multipliers"]

Row = tuple[dict[tuple[int, int], Fraction], dict[int, Fraction], Fraction]


# ----------------------------------------------------------------------------------------------- statements
def statement_of(d: Any) -> dict[str, Any] | None:
    """The canonical statement of a ``"pep-dual"`` certificate dict (``None`` when malformed)."""
    try:
        return kernel.parse(d)[0]
    except Exception:  # noqa: BLE001 - untrusted data
        return None


def exact_number(x: Any, name: str) -> Fraction:
    """``x`` as the exact rational it is: an ``int``, a :class:`Fraction`, a finite float (``0.1`` is the double
    nearest 1/10), a :class:`~decimal.Decimal` or a string ``"p/q"`` / ``"0.25"``.  Booleans, ``None``, nan, inf and
    anything else raise :class:`~fairtheory.errors.FairtheoryTypeError` / ``FairtheoryValueError`` naming ``name``."""
    from decimal import Decimal

    if isinstance(x, bool) or x is None or (type(x).__module__ == "numpy" and type(x).__name__ in ("bool", "bool_")):
        raise FairtheoryTypeError(f"{name} must be an exact number (int, Fraction, finite float or 'p/q'), got {x!r}")
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, numbers.Integral):  # numpy integers: exactly, not through a float
        return Fraction(int(x))
    if isinstance(x, str):
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise FairtheoryValueError(f"{name} must be a rational number such as '1/5' or '0.25', got {x!r}"[:200]) from None
    if isinstance(x, Decimal) or isinstance(x, float) or hasattr(x, "__float__"):
        try:
            v = x if isinstance(x, (Decimal, float)) else float(x)
            if not (v.is_finite() if isinstance(v, Decimal) else math.isfinite(v)):
                raise FairtheoryValueError(f"{name} must be finite, got {x!r}")
            return Fraction(v)
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, FairtheoryValueError):
                raise
            raise FairtheoryTypeError(f"{name} must be an exact number, got {x!r}"[:200]) from None
    raise FairtheoryTypeError(f"{name} must be an exact number (int, Fraction, finite float or 'p/q'), got "
                              f"{type(x).__name__}")


_PASS = ("name", "schedule", "output", "warm_start", "kappa", "T_N", "R", "evaluations", "measure",
         "outputs")


def statement(*, method: Mapping[str, Any], n: int, p: Sequence[Any] | None = None, L: Any = 1, mu: Any = 0,
              bound: Mapping[str, Any], classes: Any = None) -> dict[str, Any]:
    """A ``"pep-dual"`` statement as plain JSON (rational strings; uniform ``p`` when None): the one place where the
    builders, the traced backend and the claims write what is proved.  Numbers may be ``int``, :class:`Fraction`,
    floats (a float is the rational it is, e.g. ``0.1`` is the double nearest 1/10) or rational strings.

    The class: ``L``-smooth ``mu``-strongly convex (``"smooth-convex"``), or ``classes``: one function class of
    :mod:`fairtheory.worstcase.classes` or one per client, each naming its kernel table entry by ``kernel_class()``
    (:mod:`fairtheory_kernel.classes`; a class without one is refused by name).  The class and clients are validated
    here (``1 <= n <= 16``, ``p`` of length ``n`` with ``p_i > 0`` summing to 1 exactly, ``L > 0``,
    ``0 <= mu < L``); the method and bound fields only for their types (every number finite and exact): what they
    mean is the kernel's to decide (:func:`fairtheory_kernel.pep.canonical`).  Raises
    :class:`~fairtheory.errors.FairtheoryTypeError` / ``FairtheoryValueError`` naming the field."""
    if not isinstance(method, Mapping):
        raise FairtheoryTypeError(f"method must be a mapping such as {{'name': 'local_gd', ...}}, got "
                                  f"{type(method).__name__}")
    if not isinstance(bound, Mapping):
        raise FairtheoryTypeError(f"bound must be a mapping such as {{'form': 'constrained', ...}}, got "
                                  f"{type(bound).__name__}")
    if isinstance(n, bool) or not isinstance(n, int):
        raise FairtheoryTypeError(f"n must be an integer in [1, {kernel.MAX_CLIENTS}], got {n!r}")
    if not 1 <= n <= kernel.MAX_CLIENTS:
        raise FairtheoryValueError(f"n must lie in [1, {kernel.MAX_CLIENTS}], got {n}")
    if p is None:
        pw = [Fraction(1, n)] * n
    else:
        if isinstance(p, (str, bytes, Mapping)) or not isinstance(p, Iterable):
            raise FairtheoryTypeError(f"p must be a sequence of n = {n} weights, got {type(p).__name__}")
        pw = [exact_number(x, f"p[{i}]") for i, x in enumerate(p)]
        if len(pw) != n:
            raise FairtheoryValueError(f"p must have n = {n} weights, got {len(pw)}")
        if any(x <= 0 for x in pw) or sum(pw) != 1:
            raise FairtheoryValueError(f"p must have weights > 0 summing to 1 exactly (as rationals; pass Fractions), "
                                       f"got sum {sum(pw)}"[:200])
    def r(x: Any, what: str) -> Any:
        return str(exact_number(x, what))

    if classes is None:
        Lq, muq = exact_number(L, "L"), exact_number(mu, "mu")
        if not Lq > 0:
            raise FairtheoryValueError(f"L must be > 0, got {L!r}")
        if not 0 <= muq < Lq:
            raise FairtheoryValueError(f"mu must lie in [0, L) = [0, {Lq}), got {mu!r}")
        cls: Any = {"functions": "smooth-convex", "L": str(Lq), "mu": str(muq)}
    else:
        each = list(classes) if isinstance(classes, (list, tuple)) else [classes]
        if len(each) not in (1, n):
            raise FairtheoryValueError(f"classes must be one class or one per client ({n}), got {len(each)}")
        ks = []
        for i, c in enumerate(each):
            k = c.kernel_class() if callable(getattr(c, "kernel_class", None)) else None
            if k is None:
                raise FairtheoryValueError(f"classes[{i}] = {c!r} is not in the trusted kernel's class table "
                                           "(fairtheory_kernel.classes): no certificate states it")
            ks.append({"functions": k["functions"]} | {a: (v if v == "inf" else r(v, f"classes[{i}].{a}"))
                                                        for a, v in k.items() if a != "functions"})
        cls = ks[0] if all(k == ks[0] for k in ks) else ks * (n if len(ks) == 1 else 1)
    m = {str(k): (v if k in _PASS else r(v, f"method[{k!r}]")) for k, v in method.items()}
    b = {str(k): (v if k == "form" else r(v, f"bound[{k!r}]")) for k, v in bound.items()}
    return {"class": cls, "n": n, "p": [str(x) for x in pw], "method": m, "bound": b}


def _parametric(method: Mapping[str, Any], n: int, p: Sequence[Any] | None, lo: Any, hi: Any) -> dict[str, Any]:
    """The part the parametric statements share (:func:`fairtheory_kernel.family.header`): 1-smooth convex clients
    in the units ``L = D0 = 1``, ``n`` clients with weights ``p`` (uniform when None), the method, the normalised step
    ``h = lr L`` in ``[lo, hi]``."""
    from fairtheory_kernel.family import NORMALISATION

    pw = [str(Fraction(1, n))] * n if p is None else [str(exact_number(x, f"p[{i}]")) for i, x in enumerate(p)]
    return {"class": {"functions": "smooth-convex", "mu": "0"}, "normalisation": dict(NORMALISATION), "n": n, "p": pw,
            "method": dict(method), "parameter": {"name": "h", "lo": str(exact_number(lo, "lo")),
                                                  "hi": str(exact_number(hi, "hi"))}}


def family_statement(method: str, *, lo: Any, hi: Any, num: Any, den: Any, N: int | None = None, n: int = 2,
                     kappa: int | None = None, T_N: int | None = None, output: str = "average",
                     schedule: str = "rfedfair", p: Sequence[Any] | None = None) -> dict[str, Any]:
    """A ``"pep-family"`` statement as plain JSON (:mod:`fairtheory_kernel.family`), validated: ``gd`` (``N`` steps,
    one client) or ``local_gd`` (``kappa``, ``T_N``, ``schedule``, ``output``), the bound ``L D0 num(h)/den(h)``
    (``fmpq_poly``) for every ``h`` in ``[lo, hi]``."""
    from fairtheory_kernel import family as pk

    if method == "gd":
        m: dict[str, Any] = {"name": "gd", "N": N}
        n, p = 1, None
    elif method == "local_gd":
        m = {"name": "local_gd", "kappa": kappa, "T_N": T_N, "schedule": schedule, "output": output}
    else:
        raise FairtheoryValueError(f"method must be 'gd' or 'local_gd', got {method!r}")
    st = _parametric(m, n, p, lo, hi) | {"bound": {"form": "constrained", "rho2": "0", "value": {
        "num": pk.poly_json(num), "den": pk.poly_json(den)}}}
    try:
        pk.canonical(st)
    except pk.BadFamily as exc:
        raise FairtheoryValueError(f"invalid family statement: {exc}") from exc
    return st


def potential_statement(method: str, *, lo: Any, hi: Any, bound: tuple[Any, Any], terms: dict[str, Any] | None = None,
                        initial: tuple[Any, Any] | None = None, den: Any = ("1",), weight: tuple[Any, Any] | None = None,
                        n: int = 1, p: Any = None, kappa: int | None = None, schedule: str = "rfedfair") -> dict[str, Any]:
    """A ``"pep-potential"`` statement as plain JSON (:mod:`fairtheory_kernel.potential_kernel`) of ``"gd"``,
    ``"local_gd"`` or ``"agm"`` (its fixed potential); ``terms`` / ``bound`` entries are k-polynomials in JSON,
    ``initial`` / ``weight`` pairs of t-polynomials."""
    from fairtheory_kernel.potential_kernel import AGM_POTENTIAL

    m: dict[str, Any] = {"name": method} if method in ("gd", "agm") else {
        "name": "local_gd", "kappa": kappa, "schedule": schedule, "output": "average"}
    pot: Any = AGM_POTENTIAL
    if method != "agm":
        pot = {"terms": terms, "den": list(den), "initial": {"num": list(initial[0]), "den": list(initial[1])}}
    if weight is not None:
        pot["weight"] = {"num": list(weight[0]), "den": list(weight[1])}
    return _parametric(m, n, p, lo, hi) | {"potential": pot, "bound": {"rho2": "0", "num": bound[0], "den": bound[1]}}


@dataclass
class Certificate:
    r"""A statement and the rational multipliers proving it (module doc).

    ``bound`` is the quantity the search minimised, in the caller's units: the statement's ``value`` for a
    constrained bound, the factor ``r`` of the searched direction for a homogeneous one (e.g. the one-round
    constant ``C`` or a worst-case ratio); ``value`` the float SDP value it certifies."""

    statement: dict[str, Any]            #: canonical (:func:`fairtheory_kernel.pep.canonical`)
    multipliers: list[Fraction]          #: one per row of ``pep_kernel.build(statement)``
    bound: Fraction
    value: float
    seconds: float
    route: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    #: homogeneous: ``(dist, hetero, dd, dh)``, the template's fixed part and the searched direction, so that
    #: :meth:`check` also verifies the claimed ``bound`` (``r``); ``None`` for a constrained statement
    claim: tuple[Fraction, Fraction, Fraction, Fraction] | None = None

    @property
    def rel_excess(self) -> float:
        """``(bound - value) / max(|value|, tiny)``: how far the certified bound lies above the float value
        (``nan`` when the fields are not numbers)."""
        try:
            if not math.isfinite(self.value):
                return math.inf
            return float(Fraction(self.bound) - Fraction(self.value)) / max(abs(self.value), 1e-300)
        except (TypeError, ValueError, OverflowError, ZeroDivisionError):
            return math.nan

    def _canonical(self) -> dict[str, Any]:
        """The statement re-validated by the kernel (it may have been replaced since the certificate was made)."""
        err: Exception | None = None
        for form in (lambda: kernel.to_json(self.statement), lambda: self.statement):  # canonical, or JSON form
            try:
                return kernel.canonical(form())
            except Exception as exc:  # noqa: BLE001 - a statement replaced by anything
                err = err or exc
        raise FairtheoryValueError(f"Certificate.statement is not a valid statement ({type(err).__name__}: "
                                   f"{err})"[:300])

    def describe(self) -> str:
        """The proved statement in words (raises :class:`~fairtheory.errors.FairtheoryValueError` when ``statement``
        is not a valid statement)."""
        return kernel.describe(self._canonical())

    def check(self) -> bool:
        """The exact re-check of :func:`check_certificate` on :meth:`to_json` (statement rebuilt, no trust), and that
        the statement proves the claimed ``bound``: ``value <= bound`` for a constrained statement, ``dist <= dist_0 +
        bound dd`` and ``hetero <= hetero_0 + bound dh`` for a homogeneous one with its :attr:`claim`.  ``False`` when
        the fields were replaced by anything that is not a statement, rational multipliers and a rational bound."""
        try:
            if check_certificate(self.to_json()) is not True:
                return False
            bd, b = self._canonical()["bound"], exact_number(self.bound, "bound")
            if bd["form"] == "constrained":
                return bd["value"] <= b
            if self.claim is None:  # a homogeneous certificate made by hand: its bound is not tied to the statement
                return True
            d0, h0, dd, dh = (exact_number(x, "claim") for x in self.claim)
            return bd["dist"] <= d0 + b * dd and bd["hetero"] <= h0 + b * dh
        except Exception:  # noqa: BLE001 - a checker rejects broken data
            return False

    def to_json(self) -> dict[str, Any]:
        """``{"kind": "pep-dual", "version": 2, "statement", "evidence": {"multipliers": [[row, "p/q"], ...]},
        "meta"}``; ``meta`` (solver route, float value, seconds) is informational and never read by the checker.
        Raises :class:`~fairtheory.errors.FairtheoryValueError` / ``FairtheoryTypeError`` when the fields do not hold
        a statement and a sequence of rationals."""
        st = self._canonical()
        if isinstance(self.multipliers, (str, bytes, Mapping)) or not isinstance(self.multipliers, Iterable):
            raise FairtheoryTypeError(f"Certificate.multipliers must be a sequence of Fractions, got "
                                      f"{type(self.multipliers).__name__}")
        mult = []
        for k, m in enumerate(self.multipliers):
            if isinstance(m, bool) or not isinstance(m, (int, Fraction)):
                raise FairtheoryTypeError(f"Certificate.multipliers[{k}] must be a Fraction, got {m!r}"[:200])
            if m != 0:
                mult.append([k, str(Fraction(m))])
        meta = self.meta if isinstance(self.meta, Mapping) else {"meta": self.meta}
        return {"kind": "pep-dual", "version": 2, "statement": kernel.to_json(st),
                "evidence": {"multipliers": mult},
                "meta": _jsonable(dict(meta) | {"value": self.value, "route": self.route, "seconds": self.seconds,
                                                "in_words": kernel.describe(st)})}


def fraction_str(q: Fraction) -> str:
    """``"p/q"`` (``"p"`` for an integer)."""
    return str(q)


def _jsonable(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return x
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return f if math.isfinite(f) else str(f)


# ----------------------------------------------------------------------------------------------- float side
def _slack_float(data: dict[str, Any], z: Sequence[float]) -> Any:
    import numpy as np

    dim = data["dim"]
    S = np.zeros((dim, dim))
    for lam, (G, _, _) in zip(z, data["rows"], strict=True):
        if lam != 0:
            for (a, b), v in G.items():
                S[a, b] += lam * float(v)
    for (a, b), v in data["objective"][0].items():
        S[a, b] -= float(v)
    return np.triu(S) + np.triu(S, 1).T


def _structural_zeros(data: dict[str, Any], z: Sequence[float], rel: float = 1e-7) -> list[int]:
    S = _slack_float(data, z)
    import numpy as np

    top = max(1.0, float(np.abs(S).max()))
    return [i for i in range(data["dim"]) if S[i, i] <= rel * top]


def _null_space(data: dict[str, Any], z: Sequence[float], rel: float = 1e-6,
                den: int = 10**6, fit: float = 1e-10) -> list[dict[int, Fraction]]:
    """Rational basis (reduced row echelon form, entries recovered at small denominators when they fit to
    ``1e-10``) of the near-null space of the float slack ``S``: eigenvalues below ``rel * max |S|``."""
    import numpy as np

    S = _slack_float(data, z)
    w, U = np.linalg.eigh(S)
    top = max(1.0, float(np.abs(S).max()))
    V = U[:, w < rel * top].T.copy()  # (r, dim)
    r, dim = V.shape
    piv_cols = []
    for i in range(r):  # numerical RREF with column pivoting on the largest entry
        rest = [c for c in range(dim) if c not in piv_cols]
        c = max(rest, key=lambda c: abs(V[i, c]))
        V[i] /= V[i, c]
        for j in range(r):
            if j != i:
                V[j] -= V[j, c] * V[i]
        piv_cols.append(c)
    out = []
    for i in range(r):
        vec: dict[int, Fraction] = {}
        for c in range(dim):
            x = float(V[i, c])
            if c in piv_cols:
                q = Fraction(int(c == piv_cols[i]))
            elif abs(x) < 1e-13:
                continue
            else:
                q = Fraction(x).limit_denominator(den)
                if abs(float(q) - x) > fit:
                    q = _round(x, 30)
            if q != 0:
                vec[c] = q
        out.append(vec)
    return out


def _round(x: float, bits: int) -> Fraction:
    """``x`` on the dyadic grid ``2^-bits`` (``bits >= 0``, ``x`` finite: internal callers guarantee both)."""
    if not (math.isfinite(x) and isinstance(bits, int) and bits >= 0):
        raise FairtheoryValueError(f"_round: need a finite x and an integer bits >= 0, got x={x!r}, bits={bits!r}")
    return Fraction(round(math.ldexp(x, bits)), 1 << bits)


def _project(data: dict[str, Any], lam0: dict[int, Fraction], zeros: Sequence[int],
             target: Fraction | None, null: Sequence[dict[int, Fraction]] = (),
             refine: bool = False) -> list[Fraction] | None:
    """Exact multipliers near ``lam0`` (support only) with (i), ``S_{Z,:} = 0``, ``S v = 0`` for every ``v`` in
    ``null`` and optionally ``bound = target``."""
    from fairtheory.proofs.search import linear_conditions

    rows, (CG, _, c0) = data["rows"], data["objective"]
    n_eq = data["n_eq"]
    support = sorted(lam0)
    eqs, rhs = linear_conditions(rows, data["objective"], support, zeros)
    for v in null:  # (S v)_a = sum_b S_ab v_b = 0 for every a
        eqN: dict[int, dict[int, Fraction]] = {}
        for k in support:
            for a, coef in _matvec(rows[k][0], v).items():
                eqN.setdefault(a, {})[k] = coef
        cv = _matvec(CG, v)
        for a in set(eqN) | set(cv):
            eqs.append(eqN.get(a, {}))
            rhs.append(cv.get(a, Fraction(0)))
    if target is not None:
        eqs.append({k: rows[k][2] for k in support if rows[k][2] != 0})
        rhs.append(c0 - target)
    if refine:
        lam0 = _float_refine(eqs, rhs, lam0, n_eq)
        support = sorted(lam0)
    # residual of lam0, then a correction on pivot multipliers (equalities first, then the largest)
    res = [r - sum((v * lam0.get(k, 0) for k, v in e.items()), Fraction(0)) for e, r in zip(eqs, rhs, strict=True)]
    order = sorted(support, key=lambda k: (k >= n_eq, -abs(lam0[k])))
    # only the largest multipliers move (a few more than there are equations): bounded fill-in
    corr = solve_sparse(eqs, res, order[: 2 * len(eqs) + 8])
    if corr is None:
        return None
    lam = [Fraction(0)] * len(rows)
    for k in support:
        lam[k] = lam0[k] + corr.get(k, Fraction(0))
    return lam


def _float_refine(eqs: Sequence[Mapping[int, Fraction]], rhs: Sequence[Fraction], lam0: dict[int, Fraction],
                  n_eq: int, bits: int = 48) -> dict[int, Fraction]:
    """Weighted least-norm float correction of ``lam0`` onto the equations (changes relative to each multiplier,
    so small multipliers move little), rounded back to a dyadic grid; negative inequality multipliers -> 0."""
    import numpy as np

    cols = sorted(lam0)
    pos = {k: i for i, k in enumerate(cols)}
    M = np.zeros((len(eqs), len(cols)))
    for r, e in enumerate(eqs):
        for k, v in e.items():
            if k in pos:
                M[r, pos[k]] = float(v)
    x0 = np.array([float(lam0[k]) for k in cols])
    b = np.array([float(r) for r in rhs])
    free = np.array([k < n_eq for k in cols])
    x1 = x0.copy()
    for _ in range(4):  # weighted least-change correction; multipliers pushed below 0 are fixed at 0 and it repeats
        w = np.where(free, 1.0, np.abs(x1))
        w[(~free) & (x1 < 1e-7 * max(float(np.abs(x1).max()), 1e-300))] = 0.0  # tiny ones stay
        y = np.linalg.lstsq(M * w, b - M @ x1, rcond=None)[0]
        x1 = x1 + w * y
        neg = (~free) & (x1 < 0)
        if not neg.any():
            break
        x1[neg] = 0.0
    if not np.all(np.isfinite(x1)):
        return lam0  # a failed correction leaves the multipliers as they were (the exact projection follows)
    out = {}
    for k, x in zip(cols, x1, strict=True):
        if k >= n_eq and x <= 0:
            continue
        q = _round(float(x), bits)
        if q != 0:
            out[k] = q
    return out


def _matvec(G: Mapping[tuple[int, int], Fraction], v: Mapping[int, Fraction]) -> dict[int, Fraction]:
    """``M v`` for the symmetric ``M`` given by upper-triangle entries (sparse, exact)."""
    out: dict[int, Fraction] = {}
    for (a, b), m in G.items():
        if b in v:
            out[a] = out.get(a, Fraction(0)) + m * v[b]
        if a != b and a in v:
            out[b] = out.get(b, Fraction(0)) + m * v[a]
    return {k: x for k, x in out.items() if x != 0}



# ----------------------------------------------------------------------------------------------- certify (untrusted)
def _normalise(st: dict[str, Any]) -> tuple[dict[str, Any], Fraction, Fraction, Fraction]:
    """The statement in normalised units and ``(O, l, u)``: the reference curvature ``l`` (the largest ``L`` of the
    classes, else 1) becomes 1, distances are in units ``s = sqrt(u)`` (a rational square near ``D0 + rho2/l^2`` for a
    constrained bound), values in ``S = l u``, gradients in ``S/s = l s``; ``O`` is the measure's unit.  A class's
    parameters scale by their unit (:data:`fairtheory_kernel.classes.TABLE`): curvature ``/ l``, gradient bounds
    ``/ (l s)``, distances ``/ s``, an operator's cocoercivity or comonotonicity (distance^2/value) ``* l``.
    Several measures of different units (a minimum of them) are not normalised."""
    from fairtheory_kernel.classes import TABLE

    cls = kernel.classes_of(st)
    ell = max((c[k] for c in cls for k in ("L",) if k in c), default=Fraction(1))
    bd, m = st["bound"], dict(st["method"])
    meas = m.get("measure", ["value"])
    if len(meas) > 1:
        return st, Fraction(1), Fraction(1), Fraction(1)
    if bd["form"] == "constrained":
        S = ell * bd["D0"] + bd["rho2"] / ell
        if S == 0:
            raise FairtheoryValueError("D0 and rho2 are both 0: the worst case is 0 (nothing to certify)")
        u = S / ell
    else:
        u = Fraction(1)
    r = None  # s = sqrt(u) enters only through a gradient bound or a distance: then u is made a rational square
    if any(v != "inf" and unit not in ("curvature", "inverse-curvature")
           for c in cls for name, unit, _ in TABLE[c["functions"]].params
           for v in [c[name]]):
        r = Fraction(math.sqrt(float(u))).limit_denominator(1 << 20) or Fraction(1)
        u = r * r
    O = {"value": ell * u, "grad_norm": ell * ell * u, "distance": u}[meas[0]]
    if m["name"] == "local_gd_round":
        O = u
    for k in ("lr", "a"):  # server_lr is a ratio: unchanged
        if k in m:
            m[k] = m[k] * ell
    if m["name"] == "linear":
        n = st["n"]

        def pt(x: Mapping[int, Fraction]) -> dict[int, Fraction]:
            return {b: (c * ell if b >= n else c) for b, c in x.items()}

        m["evaluations"] = [(i, pt(x)) for i, x in m["evaluations"]]
        if "outputs" in m:
            m["outputs"] = [(w, [pt(x) for x in xs]) for w, xs in m["outputs"]]
    div = {"curvature": ell, "inverse-curvature": 1 / ell, "gradient": ell * (r or 1), "distance": r or 1}
    ncls = [{"functions": c["functions"]} | {k: c[k] if c[k] == "inf" else c[k] / div[unit]
                                             for k, unit, _ in TABLE[c["functions"]].params} for c in cls]
    if bd["form"] == "constrained":
        b2: dict[str, Any] = {"form": "constrained", "D0": bd["D0"] / u, "rho2": bd["rho2"] / (ell * ell * u),
                              "value": bd["value"] / O}
    else:
        b2 = {"form": "homogeneous", "dist": bd["dist"] * u / O, "hetero": bd["hetero"] * ell * ell * u / O}
    out = {"class": ncls[0] if isinstance(st["class"], Mapping) else ncls, "n": st["n"], "p": list(st["p"]),
           "method": m, "bound": b2}
    return out, O, ell, u


def _row_units(phys: Sequence[Row], norm: Sequence[Row], ell: Fraction, u: Fraction, n: int,
               n_values: int) -> list[Fraction]:
    """Per row ``k``, the exact ``U_k`` with ``row_k(physical) = U_k row_k(normalised)`` (module doc of
    :func:`_normalise`): from its first Gram entry (basis 0 has unit ``s``, every other ``l s``), else its first value
    entry (unit ``S = l u``) among the first ``n_values`` values, else its constant; 1 for an empty row."""
    def scale(a: int) -> int:
        return 0 if a == 0 else 1

    out = []
    for (G, F, c), (G2, F2, c2) in zip(phys, norm, strict=True):
        U = Fraction(1)
        keys = [k for k in G if G2.get(k)]
        fs = [f for f in F if f < n_values and F2.get(f)]
        if keys:
            a, b = keys[0]
            U = G[(a, b)] * u * ell ** (scale(a) + scale(b)) / G2[(a, b)]
        elif fs:
            U = F[fs[0]] * ell * u / F2[fs[0]]
        elif c and c2:
            U = c / c2
        out.append(U)
    return out


def _search(data: dict[str, Any], *, rtol: float, value: float | None, target: Fraction | None,
            unit: float) -> tuple[list[Fraction], Fraction, float, str]:
    """Exact multipliers of ``data`` (rows may include a search row): ``(lambda, bound, float value, route)``."""
    from fairtheory.errors import SolverError
    from fairtheory.proofs import search

    if target is not None:
        ex = exact_multipliers(data, target)
        if ex is None:
            raise SolverError(f"certify_exact: no certificate with bound exactly {target}", "exact recovery", "no certificate")
        return ex
    res = search.find_multipliers(data, value=value, rtol=rtol, unit=unit)
    return res.multipliers, res.bound, res.value, res.route


def _template(template: Any) -> dict[str, Any]:
    """The canonical statement of a template (its constrained ``value`` ignored), or a named error."""
    if not isinstance(template, Mapping):
        raise FairtheoryTypeError(f"certify_pep: template must be a statement mapping (see statement()), got "
                                  f"{type(template).__name__}")
    tpl = dict(template)
    bd = tpl.get("bound")
    if isinstance(bd, Mapping) and bd.get("form") == "constrained":
        tpl["bound"] = dict(bd) | {"value": "0"}
    try:
        return kernel.canonical(tpl)
    except kernel.BadStatement as exc:
        raise FairtheoryValueError(f"certify_pep: template is not a valid statement: {exc}") from None


def _direction(direction: Any, hom: bool) -> tuple[Fraction, Fraction] | None:
    if not hom:
        if direction is not None:
            raise FairtheoryValueError(f"certify_pep: direction applies to a homogeneous template only (a constrained "
                                       f"one searches its value), got direction={direction!r}"[:200])
        return None
    if direction is None:
        raise FairtheoryValueError("certify_pep: a homogeneous template needs direction=(dd, dh), two numbers >= 0, "
                                   "not both 0")
    pair = list(direction) if isinstance(direction, Iterable) and not isinstance(direction, (str, bytes, Mapping)) \
        else None
    if pair is None or len(pair) != 2:
        raise FairtheoryTypeError(f"certify_pep: direction must be a pair (dd, dh) of numbers >= 0, got "
                                  f"{direction!r}"[:200])
    dd, dh = exact_number(pair[0], "direction[0]"), exact_number(pair[1], "direction[1]")
    if dd < 0 or dh < 0 or dd == dh == 0:
        raise FairtheoryValueError(f"certify_pep: direction must be >= 0 and non-zero, got {direction!r}")
    return dd, dh


def certify_pep(template: Mapping[str, Any], *, direction: tuple[Any, Any] | None = None, rtol: float = 1e-6,
                value: float | None = None, target: Any = None, meta: Mapping[str, Any] | None = None) -> Certificate:
    r"""A certificate for the smallest bound of the form ``template`` allows (untrusted search, checked result).

    * ``template["bound"]["form"] == "constrained"``: the bound ``value`` is found (the template's is ignored):
      within ``rtol`` of the SDP value, or exactly ``target`` (:func:`certify_exact`);
    * ``"homogeneous"`` with ``direction = (dd, dh)``: the smallest ``r`` with ``measure <= (dist + r dd)
      ||x0 - x*||^2 + (hetero + r dh) rho^2`` (the template's ``dist``, ``hetero`` are the fixed part), e.g.
      ``(0, 1)`` with ``dist = 1`` for the one-round potential constant ``C``, ``(a, b)`` for a worst-case ratio.

    ``rtol`` (in ``(0, 1]``) is relative to the problem's scale: a bound is accepted within ``rtol max(|value|,
    unit)`` of the float value, ``unit`` the statement's unit in normalised units (``L = 1``, ``D0 + rho2/L^2 = 1``:
    1 for a constrained bound; for a homogeneous one the ``r`` that moves the bound by one unit), so that a worst case
    of 0 computed as ``1e-10`` is certified (by a bound of 0 or a tiny rational).  ``value``: the float value of the
    searched quantity in normalised units when known (finite).  ``target``: an exact number (int, Fraction, finite
    float or ``"p/q"``).  Raises :class:`~fairtheory.errors.FairtheoryTypeError` / ``FairtheoryValueError`` on bad
    arguments (naming the argument), :class:`~fairtheory.errors.SolverError` when no certificate is found; the
    returned one has re-checked exactly (a certificate whose :meth:`Certificate.check` fails is never returned)."""
    from fairtheory._validation import check_in_range
    from fairtheory.errors import SolverError

    t0 = time.perf_counter()
    st = _template(template)
    rtol = check_in_range(rtol, "rtol", low=0.0, high=1.0, low_inclusive=False)
    if value is not None:
        value = check_in_range(value, "value")
    if meta is not None and not isinstance(meta, Mapping):
        raise FairtheoryTypeError(f"certify_pep: meta must be a mapping or None, got {type(meta).__name__}")
    hom = st["bound"]["form"] == "homogeneous"
    dirn = _direction(direction, hom)
    tq = None if target is None else exact_number(target, "target")
    try:
        need = kernel.check_work(st)  # before any solve: a statement the checker would refuse is not searched
    except kernel.BadStatement as exc:
        raise FairtheoryValueError(f"certify_pep: template: {exc}") from None
    if need > kernel.MAX_WORK:
        raise FairtheoryValueError(f"certify_pep: template: checking its certificate would need about {need:.3g} work "
                                   f"units, more than pep_kernel.MAX_WORK = {kernel.MAX_WORK}: use fewer steps or "
                                   f"simpler parameters")
    stn, O, L, u = _normalise(st)
    data = kernel.build(stn)
    phys = kernel.build(st)
    n_vals = len(st["method"]["evaluations"]) if st["method"]["name"] == "linear" else phys["nf"]
    units = _row_units(phys["rows"], data["rows"], L, u, st["n"], n_vals)
    unit = 1.0
    if dirn is not None:
        dd, dh = dirn
        cd, ch = dd * u / O, dh * L * L * u / O  # the search row's coefficients of ||x0 - x*||^2 and rho^2
        unit = 1.0 / float(max(cd, ch))  # the r that moves the normalised bound by one unit
        row: dict[tuple[int, int], Fraction] = {}
        for src, c in ((data["dist"], cd), (data["hetero"], ch)):
            for k, v in src.items():
                row[k] = row.get(k, Fraction(0)) + c * v
        data["rows"] = data["rows"] + [({k: v for k, v in row.items() if v}, {}, Fraction(-1))]
    tgt = None if tq is None else tq / (1 if hom else O)
    lam, bnd, val, route = _search(data, rtol=rtol, value=value, target=tgt, unit=unit)
    mult = [x * O / U for x, U in zip(lam, units, strict=False)]  # row k scales by U_k, the measure by O; the
    # search row of a homogeneous template (past the statement's rows) is left out
    if dirn is not None:
        r = bnd
        b = dict(st["bound"])
        b["dist"] = b["dist"] + r * dirn[0]
        b["hetero"] = b["hetero"] + r * dirn[1]
        found, fval = r, val
    else:
        b = dict(st["bound"]) | {"value": bnd * O}
        found, fval = bnd * O, _times(val, O)
    cst = dict(st) | {"bound": b}
    claim = None if dirn is None else (st["bound"]["dist"], st["bound"]["hetero"], dirn[0], dirn[1])
    cert = Certificate(statement=cst, multipliers=mult, bound=found, value=fval, seconds=time.perf_counter() - t0,
                       route=route, meta=dict(meta or {}), claim=claim)
    d = cert.to_json()
    if not check_certificate(d):
        try:
            need = kernel.check_work(kernel.canonical(d["statement"]), mult)
        except kernel.BadStatement as exc:
            need, why = math.inf, str(exc)
        else:
            why = f"needs about {need:.3g} work units"
        if need > kernel.MAX_WORK:
            raise FairtheoryValueError(f"certify_pep: the statement's certificate is too large for the checker ({why}; "
                                       f"the budget is pep_kernel.MAX_WORK = {kernel.MAX_WORK}): use fewer steps or "
                                       f"simpler parameters")
        raise SolverError("certify_pep: the mapped certificate failed the exact re-check", "exact check", "internal")
    cert.seconds = time.perf_counter() - t0
    return cert


def certify_exact(template: Mapping[str, Any], target: Any, *, direction: tuple[Any, Any] | None = None,
                  meta: Mapping[str, Any] | None = None) -> Certificate | None:
    """A certificate whose bound equals ``target`` exactly (caller's units; an int, Fraction, finite float or
    ``"p/q"``), or ``None`` when none is found (see :func:`certify_pep`; bad arguments raise named errors)."""
    from fairtheory.errors import SolverError

    if target is None:
        raise FairtheoryTypeError("certify_exact: target must be an exact number (int, Fraction, finite float or 'p/q'), "
                                  "got None")
    exact_number(target, "target")
    try:
        return certify_pep(template, direction=direction, target=target, meta=meta)
    except SolverError:
        return None


def _times(x: float, q: Fraction) -> float:
    if not math.isfinite(x):
        return x
    try:
        return float(Fraction(x) * q)
    except OverflowError:
        return math.inf if x * q > 0 else -math.inf


def exact_multipliers(data: dict[str, Any], target: Fraction, *,
                      denominators: Sequence[int] = (10, 100, 1000, 10_000, 100_000, 1_000_000)
                      ) -> tuple[list[Fraction], Fraction, float, str] | None:
    r"""Multipliers whose bound equals ``target`` exactly, or ``None``: a float dual recovered at small
    denominators (``limit_denominator``), projected exactly onto (i), ``S V = 0`` (``V`` the slack's recovered
    near-null space) and ``bound = target``; then (ii) with no back-off.  Three independent duals are tried in
    turn: Clarabel's, the multipliers :func:`fairtheory.proofs.search.find_multipliers` certifies (Newton-polished,
    projected on the optimal face) and SDPA-GMP's with the free rows capped (small PEPs).  An interior-point method
    ends near the analytic centre of the optimal dual face, whose entries need not be simple rationals, so which
    source recovers the tight multipliers varies; on the rho = 0 grid of ``proofs.localgd.rho0_points`` they
    succeed at 10, 8 and 5 of 10 points respectively.  It can only succeed when ``target`` is at least the true
    worst case (weak duality)."""
    import numpy as np

    from fairtheory.proofs import search  # numpy and the float solvers: not loaded by importing the checker
    from fairtheory.worstcase import solvers

    if isinstance(denominators, (str, bytes)) or not isinstance(denominators, Iterable):
        raise FairtheoryTypeError(f"denominators must be a sequence of integers >= 1, got {denominators!r}"[:200])
    denominators = list(denominators)
    if not denominators or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in denominators):
        raise FairtheoryValueError(f"denominators must be a non-empty sequence of integers >= 1, got {denominators!r}"[:200])
    target = exact_number(target, "target")
    P = solvers.exported_pep(data, "exact_multipliers")
    dim = data["dim"]

    def clarabel() -> tuple[list[float], float, str] | None:
        cl = solvers.solve_clarabel(P, tol=1e-10)
        return (list(cl.z), cl.value, "clarabel") if cl.ok else None

    def searched() -> tuple[list[float], float, str] | None:
        res = search.find_multipliers(data)
        return [float(x) for x in res.multipliers], res.value, "search"

    def gmp() -> tuple[list[float], float, str] | None:
        s = solvers.solve_sdpa(P) if P.m <= 150 and P.dim <= 24 else None  # SDPA-GMP: ~3 s at 86 rows, ~10 s at 146
        # the free rows' multipliers (e.g. rho^2 <= 0) capped: SDPA drives them to ~1e16
        return (list(search._cap(P, s.z, 10.0)), s.value, "sdpa-gmp, capped") if s is not None and s.ok else None

    def sources():  # each an independent float dual; an interior-point dual need not have simple entries
        for make in (clarabel, searched, gmp):
            try:
                src = make()
            except Exception:  # noqa: BLE001 - a failed solve only removes one source
                src = None
            if src is not None:
                yield src

    for z, value, how in sources():
        zmax = max((abs(x) for x in z), default=0.0)
        nulls = [(f"null(den={d}, fit={f:g})", [], _null_space(data, z, 1e-6, d, f))
                 for d, f in ((100, 1e-5), (1000, 1e-5), (100, 1e-4), (1000, 1e-6), (10_000, 1e-7), (10**6, 1e-10))]
        for tag, zs, null in nulls + [("zeros", _structural_zeros(data, z), []), ("plain", [], [])]:
            for den in denominators:
                lam0 = {k: Fraction(x).limit_denominator(den) for k, x in enumerate(z)
                        if (k < data["n_eq"] and x != 0) or x > 1e-9 * max(zmax, 1e-300)}
                lam0 = {k: q for k, q in lam0.items() if q != 0}
                try:
                    lam = _project(data, lam0, zs, target, null, refine=bool(null))
                except (ArithmeticError, ValueError, np.linalg.LinAlgError):  # a degenerate float refinement
                    lam = None
                if lam is None:
                    continue
                bnd = verify_multipliers(data["rows"], data["objective"], lam, dim=dim, nf=data["nf"], n_eq=data["n_eq"])
                if bnd is not None and bnd == target:
                    return lam, bnd, value, f"exact({how}, {tag}, den={den})"
    return None
