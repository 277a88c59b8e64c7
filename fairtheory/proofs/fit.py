r"""Closed-form discovery: propose a rational function of the parameters from worst-case values.

Given values ``v_k`` at parameter points ``x_k`` (e.g. PEP worst cases of local GD over a grid of
``beta, kappa, T_N``), :func:`fit_closed_form` looks for ``v = P(x)/Q(x)`` with polynomials ``P, Q`` of
small degree.  For each pair of degrees (fewest unknowns first) it solves the linearised system
``P(x_k) - v_k Q(x_k) = 0`` on the training points (the singular vector of the smallest singular
value), normalises, snaps every coefficient to a small rational (``Fraction.limit_denominator``),
and accepts the first snapped formula whose relative error on the *held-out* points is below ``tol``.
When none fits, it says so (``found = False``) with the best held-out error seen.

Optionally ``exact(point, value) -> bool`` is asked, at every held-out point (as ``Fraction``s), whether
the formula's exact rational ``value`` there is the true value (e.g. a ``pep-dual`` certificate whose
bound equals ``value`` plus an instance attaining it, :mod:`fairtheory.proofs.certificate`);
``exact_agree`` says whether it confirmed every point.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from fairtheory._validation import as_vector, check_in_range, check_integer
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, NonFiniteError

__all__ = ["FitResult", "fit_closed_form"]


@dataclass
class FitResult:
    """Outcome of :func:`fit_closed_form`.

    ``expression``: the snapped rational function (sympy, in the symbols ``names``) or ``None``;
    ``heldout_error``: max relative error of ``expression`` on the held-out points (of the best candidate
    when nothing fits); ``train_error`` likewise on the training points; ``degrees``: ``(deg P, deg Q)``;
    ``exact``: rows ``(point, formula value, confirmed)``; ``exact_agree``: all confirmed (``None`` when no
    exact comparison was asked for)."""

    found: bool
    expression: Any
    heldout_error: float
    train_error: float
    degrees: tuple[int, int] | None
    n_train: int
    n_heldout: int
    tried: int
    exact: list[tuple[dict[str, Fraction], Fraction, bool]] = field(default_factory=list)
    exact_agree: bool | None = None


def _monomials(n_vars: int, deg: int, caps: Sequence[int] | None = None) -> list[tuple[int, ...]]:
    """Exponent tuples of total degree ``<= deg`` (and ``<= caps[j]`` in variable ``j``)."""
    caps = list(caps) if caps is not None else [deg] * n_vars
    return [e for d in range(deg + 1) for e in itertools.product(range(d + 1), repeat=n_vars)
            if sum(e) == d and all(a <= c for a, c in zip(e, caps, strict=True))]


def _design(X: np.ndarray, monos: list[tuple[int, ...]]) -> np.ndarray:
    return np.stack([np.prod(X ** np.array(m, dtype=np.float64), axis=1) for m in monos], axis=1)


def _real(x: Any, where: str) -> float:
    if isinstance(x, (bool, np.bool_, str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{where} must be a real number, got {x!r}"[:200])
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError) as exc:
        raise FairtheoryTypeError(f"{where} must be a real number, got {x!r}"[:200]) from exc


def _as_points(params: Any, names: Sequence[str]) -> np.ndarray:
    if isinstance(params, (str, bytes)):
        raise FairtheoryTypeError(f"params must be a sequence of dicts or a 2-D array, got {type(params).__name__}")
    if isinstance(params, np.ndarray) or (isinstance(params, Sequence) and params and not isinstance(params[0], Mapping)):
        if isinstance(params, Sequence) and any(isinstance(p, Mapping) for p in params):
            raise FairtheoryTypeError("params must be a sequence of dicts or a 2-D array, not a mix of both")
        raw = np.asarray(params, dtype=object) if not isinstance(params, np.ndarray) else params
        if raw.dtype.kind in "bc" or (raw.dtype == object and any(isinstance(x, (bool, np.bool_, complex, str, bytes))
                                                                  for x in np.ravel(raw))):
            raise FairtheoryTypeError("params must hold real numbers (no booleans, strings or complex values)")
        try:
            X = np.asarray(params, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise FairtheoryTypeError("params must be a sequence of dicts or a 2-D array of real numbers") from exc
        if X.ndim != 2 or X.shape[1] != len(names):
            raise FairtheoryValueError(f"params must have shape (points, {len(names)}), got {X.shape}")
    else:
        if not isinstance(params, Sequence) or not all(isinstance(p, Mapping) for p in params):
            raise FairtheoryTypeError("params must be a sequence of dicts or a 2-D array")
        missing = [(k, n) for k, p in enumerate(params) for n in names if n not in p]
        if missing:
            k, n = missing[0]
            raise FairtheoryValueError(f"every params dict must give {list(names)}; params[{k}] misses {n!r}")
        X = np.array([[_real(p[n], f"params[{k}][{n!r}]") for n in names] for k, p in enumerate(params)],
                     dtype=np.float64).reshape(len(params), len(names))
    if not np.all(np.isfinite(X)):
        k, j = (int(a[0]) for a in np.nonzero(~np.isfinite(X)))
        raise NonFiniteError(f"params must be finite, got {X[k, j]} at point {k}, parameter {names[j]!r}")
    return X


def _rel_err(pred: np.ndarray, v: np.ndarray) -> float:
    scale = np.maximum(np.abs(v), np.finfo(np.float64).tiny)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = np.abs(pred - v) / scale
    return float(np.max(e)) if e.size and np.all(np.isfinite(e)) else float("inf")


def fit_closed_form(params: Any, values: Sequence[float], *, names: Sequence[str], max_degree: int = 3,
                    holdout: float = 0.25, tol: float = 1e-5, max_den: int = 64, seed: int = 0,
                    exact: Callable[[dict[str, Fraction], Fraction], bool] | None = None) -> FitResult:
    r"""Propose ``values ~ P(x)/Q(x)`` (rational coefficients) over the points ``params``.

    Parameters
    ----------
    params : points, a sequence of dicts ``{name: value}`` or an array of shape ``(points, len(names))``;
        exact rational points (``Fraction``/``int`` entries) are kept for the ``exact`` comparison.
    values : the value at each point (finite floats).
    names : parameter names (the symbols of the returned expression).
    max_degree : largest degree of ``P`` and of ``Q`` (``0 <= max_degree <= 6``).
    holdout : fraction of the points held out for validation (``0 < holdout < 1``; at least 2 points).
    tol : accept a formula whose max relative error on the held-out points is ``<= tol``.
    max_den : largest denominator when snapping a normalised coefficient to a rational.
    seed : seed of the random train / held-out split.
    exact : optional ``exact(point, value) -> bool``: is the formula's exact ``value`` right at this held-out point?
    """
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise FairtheoryTypeError(f"names must be a sequence of parameter names (strings), got {names!r}"[:200])
    names = list(names)
    if not names or not all(isinstance(n, str) and n.isidentifier() for n in names) or len(set(names)) != len(names):
        raise FairtheoryValueError(f"names must be distinct, non-empty and identifiers such as 'beta', got {names}"[:200])
    X = _as_points(params, names)
    v = as_vector(values, "values", allow_empty=True)
    if v.shape != (X.shape[0],):
        raise FairtheoryValueError(f"values must hold one number per point of params ({X.shape[0]}), got {v.size}")
    check_integer(max_degree, "max_degree", low=0, high=6)
    holdout = check_in_range(holdout, "holdout", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    tol = check_in_range(tol, "tol", low=0.0)
    check_integer(max_den, "max_den", low=1, high=10**12)
    check_integer(seed, "seed", low=0, high=2**63 - 1)
    if exact is not None and not callable(exact):
        raise FairtheoryTypeError(f"exact must be None or a callable exact(point, value) -> bool, got {exact!r}"[:200])
    m = X.shape[0]
    n_hold = max(2, int(round(holdout * m)))
    if m - n_hold < 2:
        raise FairtheoryValueError(f"need more points: {m} points leave {m - n_hold} for training")
    perm = np.random.default_rng(seed).permutation(m)
    hold, train = perm[:n_hold], perm[n_hold:]
    syms = sp.symbols(names, real=True)
    # a variable taking r distinct values on the grid only identifies degrees < r in it (a product of
    # (x - x_j) over its r values vanishes on every point): cap its degree there
    caps = [len(np.unique(X[train, j])) - 1 for j in range(len(names))]
    cands = sorted(((dp, dq) for dp in range(max_degree + 1) for dq in range(max_degree + 1)),
                   key=lambda d: (len(_monomials(len(names), d[0], caps)) + len(_monomials(len(names), d[1], caps)), d))
    best: tuple[float, float, Any, tuple[int, int] | None] = (float("inf"), float("inf"), None, None)
    tried = 0
    for dp, dq in cands:
        mp, mq = _monomials(len(names), dp, caps), _monomials(len(names), dq, caps)
        k = len(mp) + len(mq)
        if len(train) < k:  # an underdetermined system has spurious null vectors
            continue
        tried += 1
        with np.errstate(all="ignore"):
            A = np.hstack([_design(X[train], mp), -v[train, None] * _design(X[train], mq)])
            col = np.maximum(np.linalg.norm(A, axis=0), 1e-300)
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(col))):
            continue  # the monomials overflow float64 at these points: this degree cannot be fitted
        try:
            _, s, Vt = np.linalg.svd(A / col, full_matrices=False)
        except np.linalg.LinAlgError:
            continue
        c0 = Vt[-1] / col
        big = np.abs(c0).max()
        # normalise by one coefficient and snap to small rationals: Q's constant term first, then the
        # smallest non-negligible coefficients (so a small value's coefficients become integers)
        order = [len(mp)] + [int(j) for j in np.argsort(np.abs(c0)) if abs(c0[j]) > 1e-8 * big][:6]
        for j in dict.fromkeys(order):
            if abs(c0[j]) <= 1e-8 * big:
                continue
            expr = _snapped(c0 / c0[j], mp, mq, syms, max_den)
            if expr is None:
                continue
            fn = sp.lambdify(syms, expr, "numpy")
            with np.errstate(all="ignore"):
                pred = np.broadcast_to(np.asarray(fn(*X.T), dtype=np.float64), (m,))
            e_hold, e_train = _rel_err(pred[hold], v[hold]), _rel_err(pred[train], v[train])
            if max(e_hold, e_train) < max(best[0], best[1]):
                best = (e_hold, e_train, expr, (dp, dq))
            if e_hold <= tol and e_train <= tol:
                res = FitResult(True, expr, e_hold, e_train, (dp, dq), len(train), len(hold), tried)
                if exact is not None:
                    _compare_exact(res, params, hold, names, syms, exact)
                return res
    return FitResult(False, None, best[0], best[1], best[3], len(train), len(hold), tried)


def _snapped(c: np.ndarray, mp: list[tuple[int, ...]], mq: list[tuple[int, ...]], syms: Any, max_den: int) -> Any:
    coef = [Fraction(float(x)).limit_denominator(max_den) for x in c]

    def poly(cs: list[Fraction], monos: list[tuple[int, ...]]) -> Any:
        return sp.Add(*[sp.Rational(co.numerator, co.denominator) * sp.Mul(*[s_ ** e for s_, e in zip(syms, mono, strict=True)])
                        for co, mono in zip(cs, monos, strict=True)])

    P, Q = poly(coef[:len(mp)], mp), poly(coef[len(mp):], mq)
    return None if Q == 0 else sp.cancel(P / Q)


def _compare_exact(res: FitResult, params: Any, hold: np.ndarray, names: list[str], syms: Any,
                   exact: Callable[[dict[str, Fraction], Fraction], bool]) -> None:
    rows = []
    for j in hold:
        raw = params[int(j)]
        vals = [raw[n] for n in names] if isinstance(raw, Mapping) else list(raw)
        point = {n: Fraction(x) for n, x in zip(names, vals, strict=True)}
        f_val = res.expression.subs({s: sp.Rational(x.numerator, x.denominator) for s, x in zip(syms, point.values(),
                                                                                              strict=True)})
        fv = Fraction(int(sp.fraction(f_val)[0]), int(sp.fraction(f_val)[1]))
        rows.append((point, fv, exact(point, fv) is True))
    res.exact = rows
    res.exact_agree = all(ok for _, _, ok in rows)
