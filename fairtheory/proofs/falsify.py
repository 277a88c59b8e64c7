r"""Try to refute a certificate's statement numerically, before it is printed ``proved`` (defence in depth).

The kernel (:mod:`fairtheory_kernel`) decides ``proved``; this module, outside it, runs the statement's
method on explicit instances of the statement's function class and compares the measure with the bound.  A
statement the kernel accepted and an instance here refutes is a kernel bug: :func:`falsify_certificate` returns
the instance, and the runner (:mod:`fairtheory.proofs.recheck`) ends the claim ``error`` naming it.

**PEP statements** (``"pep-dual"``, ``"pep-family"``; the class ``L``-smooth, ``mu``-strongly convex).  Every
instance has ``x* = 0`` and

.. math:: f_i(x) = \tfrac{\mu}{2}\|x\|^2 + (L - \mu)\,\phi_i(x - c_i) - \langle s_i, x\rangle,
          \qquad s_i = (L-\mu)\nabla\phi_i(-c_i) - r_i,\quad \textstyle\sum_i p_i r_i = 0,

with ``phi_i`` convex and 1-smooth - a quadratic ``x^T D x / 2`` (``D`` diagonal in ``[0, 1]``) or the Huber
function ``H_delta(||x||)`` (``||x||^2/2`` up to ``delta``, ``delta ||x|| - delta^2/2`` beyond; the Moreau
envelope of ``delta ||.||``; a grid of radii with identical clients, :data:`HUBER_GRID`, then random ones) -
so ``f_i`` is in the class, ``grad f_i(0) = r_i``, ``sum_i p_i grad f_i(0) = 0`` and ``G = sum_i p_i f_i`` is
minimised at ``0`` with ``rho^2 = sum_i p_i ||r_i||^2``.  ``x0`` has
``||x0||^2 = D0`` (constrained bounds, with ``rho^2 <= rho2``) or any length (homogeneous bounds).  The Huber
functions of small ``delta`` are the worst cases of gradient descent (Drori & Teboulle 2014, Thm. 3.1); the
quadratics ``(L/2) x^2`` and ``(mu/2) x^2`` are the other extreme.  The method is run by an implementation
written here from the statement's definition (:mod:`fairtheory_kernel.pep` module doc), independent of the
kernel's own recurrences.

Comparison: quadratic instances with rational data run in exact :class:`~fractions.Fraction` arithmetic (every
method is linear on quadratics) and are refuted by ``measure > bound`` exactly; Huber instances run in float64
and are refuted by ``measure > bound + 1e-9 max(1, |measure|, |bound|)``: the values are ``O(1)`` sums of at most
a few hundred rounded operations (relative error ``<= 1e-13``), so ``1e-9`` is rounding with four orders to
spare, and a statement false by more than that is caught.

**Potential statements** (``"pep-potential"``: a bound for every ``N >= 1`` / ``T_N >= 0`` and every parameter in a
range, docs/proofs.md 8.1): :func:`falsify_potential` runs the same instances along whole trajectories (every
horizon ``1..50`` from one run), the worst-case shapes at every horizon and at 100 and 1000, and compares gradient
descent with its exact worst case in closed form (Drori & Teboulle) and local GD with
:func:`fairtheory.worstcase.local_gd_worst_case` at ``T_N = 0``.

**Symbolic statements** (``"sympy-proof"``, ``"symbolic"``): :func:`fairtheory.proofs.falsify_symbolic.falsify`
at 200 points (the quick run: 50) with 50 digits, when that module exists.

The extracted worst-case instance of the PEP itself is not used: it needs an SDP solve, and the families above
already attain the bounds the suite proves to within a few percent (tests/test_proofs_falsify.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["falsify_certificate", "falsify_pep", "falsify_family", "falsify_potential", "best_ratio", "RTOL"]

#: relative float64 slack of a Huber instance (module doc); quadratic instances compare exactly
RTOL = 1e-9
#: identical Huber clients centred at ``x*`` with radius ``sqrt(D0) / (1 + j/4)``, ``j < HUBER_GRID``: the shape of
#: the worst case of gradient descent (Drori & Teboulle 2014) and of local GD at ``rho = 0``, whose radius
#: ``1 / (1 + beta L (kappa T_N + 2))`` is on this grid for the suite's step sizes (``beta L`` in quarters)
HUBER_GRID = 25


def _q(x: Any) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, str, Fraction)):
        raise ValueError(f"not a rational: {x!r}")
    return Fraction(x)


# ------------------------------------------------------------------------------------------------ instances
class _Instance:
    """``n`` functions ``f_i`` of the class with ``x* = 0`` (module doc), exact (``Fraction`` arrays) or float."""

    def __init__(self, L: Any, mu: Any, p: list[Any], kinds: list[str], D: list[Any], c: list[Any],
                 delta: list[float], r: list[Any]) -> None:
        self.L, self.mu, self.p, self.kinds, self.D, self.c, self.delta = L, mu, p, kinds, D, c, delta
        self.r = r
        self.s = [(L - mu) * self._gphi(i, -c[i]) - r[i] for i in range(len(p))]
        self.f0 = [self._value(i, 0 * c[i]) for i in range(len(p))]

    def _phi(self, i: int, y: Any) -> Any:
        if self.kinds[i] == "quad":
            return (y * self.D[i] * y).sum() / 2
        t, d = float(np.sqrt(float((y * y).sum()))), self.delta[i]
        return t * t / 2 if t <= d else d * t - d * d / 2

    def _gphi(self, i: int, y: Any) -> Any:
        if self.kinds[i] == "quad":
            return self.D[i] * y
        t, d = float(np.sqrt(float((y * y).sum()))), self.delta[i]
        return y if t <= d else (d / t) * y

    def _value(self, i: int, x: Any) -> Any:
        return self.mu * (x * x).sum() / 2 + (self.L - self.mu) * self._phi(i, x - self.c[i]) - (self.s[i] * x).sum()

    def grad(self, i: int, x: Any) -> Any:
        return self.mu * x + (self.L - self.mu) * self._gphi(i, x - self.c[i]) - self.s[i]

    def gap(self, i: int, x: Any) -> Any:
        """``f_i(x) - f_i(x*)``."""
        return self._value(i, x) - self.f0[i]

    def G(self, x: Any) -> Any:
        return sum(self.p[i] * self.gap(i, x) for i in range(len(self.p)))

    def rho2(self) -> Any:
        return sum(self.p[i] * (self.r[i] * self.r[i]).sum() for i in range(len(self.p)))


def _avg(vs: list[Any], w: list[Any]) -> Any:
    if np.asarray(vs[0]).dtype.kind != "O":
        w = [float(c) for c in w]
    out = w[0] * vs[0]
    for v, c in zip(vs[1:], w[1:], strict=True):
        out = out + c * v
    return out


# ------------------------------------------------------------------------------------------------ methods
def _local_gd(f: _Instance, x0: Any, m: Mapping[str, Any], step: Any) -> Any:
    """002 Alg. 1, full participation: round 0 one local step (``rfedfair``; ``kappa`` for ``fedavg``), then
    ``kappa`` per round for ``T_N`` rounds, each round averaged with ``p``; the output point's ``G - G*``."""
    n, p = len(f.p), f.p
    theta, spath, vpath = x0, [], [x0]
    for rnd in range(m["T_N"] + 1):
        steps = m["kappa"] if (rnd > 0 or m["schedule"] == "fedavg") else 1
        Y = [theta] * n
        for s in range(steps):
            Y = [Y[i] - step * f.grad(i, Y[i]) for i in range(n)]
            if s < steps - 1:
                vpath.append(_avg(Y, p))
        theta = _avg(Y, p)
        spath.append(theta)
        vpath.append(theta)
    out = {"average": spath, "path_average": vpath, "last": [theta]}[m["output"]]
    return f.G(_avg(out, [Fraction(1, len(out))] * len(out)))


def _scaffold(f: _Instance, x0: Any, m: Mapping[str, Any]) -> Any:
    """Scaffold option II (Karimireddy et al. 2020, Alg. 1), full participation."""
    n, p, el, eg, kappa = len(f.p), f.p, m["lr"], m["server_lr"], m["kappa"]
    x = x0
    ci = [f.grad(i, x0) if m["warm_start"] else 0 * x0 for i in range(n)]
    c = _avg(ci, p)
    server = []
    for _ in range(m["R"]):
        Y = [x] * n
        for _k in range(kappa):
            Y = [Y[i] - el * (f.grad(i, Y[i]) - ci[i] + c) for i in range(n)]
        new = [ci[i] - c + (x - Y[i]) / (kappa * el) for i in range(n)]
        x = x + eg * _avg([Y[i] - x for i in range(n)], p)
        c = c + _avg([new[i] - ci[i] for i in range(n)], p)
        ci = new
        server.append(x)
    out = [x] if m["output"] == "last" else server
    return f.G(_avg(out, [Fraction(1, len(out))] * len(out)))


def _round(f: _Instance, x0: Any, m: Mapping[str, Any]) -> Any:
    """One round of ``kappa`` local steps from ``theta = x0``: ``a (G(theta) - G*) + ||theta+ - x*||^2``."""
    n = len(f.p)
    Y = [x0] * n
    for _ in range(m["kappa"]):
        Y = [Y[i] - m["lr"] * f.grad(i, Y[i]) for i in range(n)]
    t = _avg(Y, f.p)
    return m["a"] * f.G(x0) + (t * t).sum()


def _linear(f: _Instance, x0: Any, m: Mapping[str, Any]) -> Any:
    """Evaluation ``e`` at ``x* + sum_b q_b v_b`` (``v_0 = x0 - x*``, ``v_{n+e'} = g_{e'}``); the measure
    ``E_leaf[min_{x, m} m(x)]`` over the output leaves."""
    n = len(f.p)
    exact = x0.dtype == object
    basis: dict[int, Any] = {0: x0}

    def point(coeffs: Any) -> Any:
        x = 0 * x0
        for b, cq in coeffs:
            x = x + (_q(cq) if exact else float(_q(cq))) * basis[b]
        return x

    for e, (i, coeffs) in enumerate(m["evaluations"]):
        basis[n + e] = f.grad(i, point(coeffs))
    def measure(name: str, x: Any) -> Any:
        if name == "value":
            return f.G(x)
        g = x if name == "distance" else _avg([f.grad(i, x) for i in range(n)], f.p)
        return (g * g).sum()

    return sum((_q(w) if exact else float(_q(w))) * min(measure(k, point(c)) for c in xs for k in m["measure"])
               for w, xs in m["outputs"])


def _measure(f: _Instance, x0: Any, m: Mapping[str, Any]) -> Any:
    name = m["name"]
    if name == "local_gd":
        return _local_gd(f, x0, m, m["lr"])
    if name == "gd":  # pep-family: N steps of x <- x - t g, measure f(x_N) - f*
        x = x0
        for _ in range(m["N"]):
            x = x - m["lr"] * f.grad(0, x)
        return f.G(x)
    if name == "scaffold":
        return _scaffold(f, x0, m)
    if name == "local_gd_round":
        return _round(f, x0, m)
    if name == "linear":
        return _linear(f, x0, m)
    raise ValueError(f"unknown method {name!r}")


def _method(m: Mapping[str, Any]) -> dict[str, Any]:
    """The statement's method with its numbers as Fractions."""
    out = dict(m)
    for k in ("lr", "server_lr", "a"):
        if k in out:
            out[k] = _q(out[k])
    return out


# ------------------------------------------------------------------------------------------------ the search
def _rational(x: float, den: int = 64) -> Fraction:
    return Fraction(round(x * den), den)


def _instances(L: Fraction, mu: Fraction, p: list[Fraction], rng: np.random.Generator, trials: int,
               exact: bool) -> Any:
    """``(kind, f, direction u, heterogeneity directions r)`` with ``u`` of unit length and ``sum_i p_i r_i = 0``:
    the quadratics ``(L/2)||x||^2`` and ``(mu/2)||x||^2`` first, then random quadratics and Huber functions."""
    n = len(p)
    grid = [] if exact else [1 / (1 + j / 4) for j in range(HUBER_GRID)]
    for t in range(trials + len(grid)):
        d = 1 if (t % 3 or t < len(grid)) else 2
        if exact:
            kinds = ["quad"] * n
            if t == 0:
                D = [np.array([Fraction(1)] * d, dtype=object)] * n
            elif t == 1:
                D = [np.array([Fraction(0)] * d, dtype=object)] * n
            else:
                D = [np.array([_rational(v, 16) for v in rng.uniform(0, 1, d)], dtype=object) for _ in range(n)]
            c = [np.array([_rational(v, 8) for v in rng.normal(size=d)], dtype=object) for _ in range(n)]
            zero = np.array([Fraction(0)] * d, dtype=object)
            L_, mu_ = L, mu
        else:
            kinds = ["huber"] * n
            D = [None] * n
            c = [rng.normal(size=d) * rng.choice([0.0, 0.1, 1.0]) if t >= len(grid) else np.zeros(d) for _ in range(n)]
            zero = np.zeros(d)
            L_, mu_ = float(L), float(mu)
        if exact:
            u = np.array([Fraction(1)] + [Fraction(0)] * (d - 1), dtype=object)
        else:
            v = rng.normal(size=d) if t >= len(grid) else np.ones(d)
            u = v / np.linalg.norm(v)
        raw = [rng.normal(size=d) for _ in range(n)]
        if exact:
            raw = [np.array([_rational(x, 8) for x in v], dtype=object) for v in raw]
            mean = _avg(raw, p)
        else:
            mean = _avg(raw, [float(x) for x in p])
        r = [v - mean for v in raw]
        # Huber radii: log-spaced, small ones first (the tails where gradient methods are slowest)
        delta = [float(10 ** rng.uniform(-3, 0.5)) for _ in range(n)] if t >= len(grid) else [grid[t]] * n
        pw = p if exact else [float(x) for x in p]
        yield kinds, L_, mu_, pw, D, c, delta, r, u, zero


def _scale(u: Any, factor: Any) -> Any:
    return u * factor


def _cases(st: Mapping[str, Any], *, D0: Fraction | None, rho2: Fraction, trials: int, seed: int) -> Any:
    """The instances of ``st``'s class (module doc), each as ``(exact, f, x0, dist, info)``: ``dist = ||x0 - x*||^2``,
    ``info`` the data naming the instance (for a report).  ``D0`` given: ``||x0||^2 = D0`` and ``rho^2 = rho2`` (just
    below it in exact arithmetic, never above); ``D0 = None`` (homogeneous bounds): ``x0`` of length 1, 1/8 and 0
    against heterogeneous clients."""
    cls = st["class"]
    if not isinstance(cls, Mapping) or cls.get("functions", "smooth-convex") != "smooth-convex":
        raise ValueError("falsify: the instances are L-smooth mu-strongly convex (Huber, quadratics): statements of one "
                         "smooth-convex class only")
    L, mu = _q(cls["L"]), _q(cls.get("mu", 0))
    p = [_q(x) for x in st["p"]]
    rng = np.random.default_rng(seed)
    for exact in (True, False):
        for kinds, L_, mu_, pw, D, c, delta, r, u, _zero in _instances(L, mu, p, rng, trials, exact):
            n = len(p)
            # homogeneous bounds: ||x0 - x*|| against rho matters, so x0 also shrinks (to x0 = x*) on heterogeneous clients
            for hetero, shrink in ([(0, 1)] + ([(1, 1), (1, Fraction(1, 8)), (1, 0)] if n > 1 else [])):
                if D0 is not None and shrink != 1:
                    continue
                rr = [v * hetero for v in r]
                rho_raw = sum(pw[i] * (rr[i] * rr[i]).sum() for i in range(n))
                if D0 is not None:  # constrained: ||x0||^2 = D0 and rho^2 = rho2, or just below in exact arithmetic
                    if hetero and (rho2 == 0 or rho_raw == 0):
                        continue
                    if hetero:
                        k = _sqrt(rho2 / rho_raw, exact)
                        rr = [v * k for v in rr]
                    dist = D0 if exact else float(D0)
                    x0 = _scale(u, _sqrt(dist, exact))
                    if exact:
                        dist = (x0 * x0).sum()
                else:
                    x0 = _scale(u, shrink if exact else float(shrink))
                    dist = (x0 * x0).sum()
                f = _Instance(L_, mu_, pw, kinds, D, c, delta, rr)
                info = {"instance": "quadratic" if exact else "huber", "arithmetic": "exact" if exact else "float64",
                        "dimension": int(len(u)), "x0": [str(v) for v in x0], "rho2": str(f.rho2()),
                        "curvatures": [[str(v) for v in Dk] for Dk in D] if exact else None,
                        "centres": [[str(v) for v in ck] for ck in c], "huber_delta": None if exact else delta,
                        "gradients_at_x_star": [[str(v) for v in rk] for rk in rr]}
                yield exact, f, x0, dist, info


def _exceeds(measure: Any, rhs: Any, exact: bool) -> bool | None:
    """``measure > rhs``: exactly for rational data, else beyond float64 rounding (``RTOL``, module doc); ``None``
    when a float value is not finite (no verdict)."""
    if exact:
        return bool(measure > rhs)
    measure, rhs = float(measure), float(rhs)
    if not (math.isfinite(measure) and math.isfinite(rhs)):
        return None
    return measure > rhs + RTOL * max(1.0, abs(measure), abs(rhs))


def _search(st: Mapping[str, Any], method: Mapping[str, Any], bound_of: Callable[[Any, Any], Any], *,
            D0: Fraction | None, rho2: Fraction, trials: int, seed: int, best: list[Any] | None = None,
            ) -> dict[str, Any] | None:
    """Run ``method`` on the instances (:func:`_cases`); ``bound_of(||x0||^2, rho^2)`` is the statement's right-hand
    side.  Returns the first refuting instance (a dict) or ``None``; ``best`` (when given) collects the largest ratio
    found."""
    for exact, f, x0, dist, info in _cases(st, D0=D0, rho2=rho2, trials=trials, seed=seed):
        meth = method if exact else {k: float(v) if isinstance(v, Fraction) else v for k, v in method.items()}
        with np.errstate(all="ignore"):
            measure = _measure(f, x0, meth)
        rhs = bound_of(dist, f.rho2())
        bad = _exceeds(measure, rhs, exact)
        if bad is None:
            continue
        if best is not None and float(rhs) > 0:
            best[0] = max(best[0], float(measure) / float(rhs))
        if bad:
            return dict(info, measure=str(float(measure) if not exact else measure), bound=str(float(rhs) if not exact else rhs))
    return None


def _sqrt(x: Any, exact: bool) -> Any:
    """``sqrt(x)`` in float64, or in exact arithmetic a rational ``s <= sqrt(x)`` within ``2^-30`` relative (exact
    for squares): an instance scaled by it stays inside the statement's constraints."""
    if not exact:
        return math.sqrt(float(x))
    x = Fraction(x)
    a, b = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if a * a == x.numerator and b * b == x.denominator:
        return Fraction(a, b)
    scale = 1 << 60
    return Fraction(math.isqrt(x.numerator * scale * scale // x.denominator), scale)


def falsify_pep(st: Mapping[str, Any], *, trials: int = 24, seed: int = 0,
                best: list[Any] | None = None) -> dict[str, Any] | None:
    """Refute a ``"pep-dual"`` statement (module doc): the refuting instance, or ``None``."""
    method = _method(st["method"])
    b = st["bound"]
    if b["form"] == "constrained":
        value, D0, rho2 = _q(b["value"]), _q(b["D0"]), _q(b["rho2"])
        return _search(st, method, lambda dist, rho: value if not isinstance(dist, float) else float(value),
                       D0=D0, rho2=rho2 if st["n"] > 1 else Fraction(0), trials=trials, seed=seed, best=best)
    dist_c, het_c = _q(b["dist"]), _q(b["hetero"])

    def rhs(dist: Any, rho: Any) -> Any:
        if isinstance(dist, float):
            return float(dist_c) * dist + float(het_c) * float(rho)
        return dist_c * dist + het_c * rho

    return _search(st, method, rhs, D0=None, rho2=Fraction(0), trials=trials, seed=seed, best=best)


def _poly_at(coeffs: list[Any], t: Fraction) -> Fraction:
    return sum((_q(c) * t ** k for k, c in enumerate(coeffs)), Fraction(0))


def falsify_family(st: Mapping[str, Any], *, trials: int = 8, seed: int = 0,
                   best: list[Any] | None = None) -> dict[str, Any] | None:
    """Refute a ``"pep-family"`` statement at parameter values ``lo``, ``hi``, the midpoint and random rationals
    of ``[lo, hi]`` (``L = D0 = 1``, ``rho = 0``; the statement scales exactly to any ``L``, ``D0``)."""
    ts = _parameter_points(st, 2, seed)
    num, den = st["bound"]["value"]["num"], st["bound"]["value"]["den"]
    point = {"class": {"L": "1", "mu": str(st["class"]["mu"])}, "p": st["p"], "n": st["n"]}
    for t in ts:
        dv = _poly_at(den, t)
        if dv == 0:
            continue
        value = _poly_at(num, t) / dv
        m = dict(st["method"])
        m["lr"] = t
        cx = _search(point, m, lambda dist, rho, v=value: v if not isinstance(dist, float) else float(v),
                     D0=Fraction(1), rho2=Fraction(0), trials=trials, seed=seed, best=best)
        if cx is not None:
            return dict(cx, parameter=str(t))
    return None


# ------------------------------------------------------------------------------------------------ pep-potential
#: horizons ``N`` (gd, agm) or ``T_N`` (local_gd) checked along every trajectory: every one in ``1..50`` (``0..50``)
HORIZONS = 50
#: larger horizons, each run on the worst-case shapes only (float64) and against the closed forms (exactly)
LARGE_HORIZONS = (100, 1000)
#: the quick run's horizons (``python -m verify``, quick mode; ``--full`` and :func:`fairtheory.proofs.recheck.recheck_report`
#: use :data:`HORIZONS` and :data:`LARGE_HORIZONS`): every horizon in ``1..20`` (``0..20``) and 100 - the same instances,
#: parameter points and PEP comparison, about a third of the time
QUICK_HORIZONS = 20
QUICK_LARGE_HORIZONS = (100,)
#: points of a symbolic statement's falsification (``"sympy-proof"``, ``"symbolic"``; 50 digits), full and quick run
SYMBOLIC_POINTS, QUICK_SYMBOLIC_POINTS = 200, 50


def _kpoly_at(kp: list[Any], k: int, t: Fraction) -> Fraction:
    """A statement's k-polynomial (t-polynomial coefficients of ``k^0, k^1, ...``) at ``(k, t)``, from the JSON."""
    return sum((_poly_at(c, t) * k ** m for m, c in enumerate(kp)), Fraction(0))


def _potential_bound(st: Mapping[str, Any], k: int, t: Fraction) -> tuple[Fraction, Fraction] | None:
    """``(b1, b2)``: the statement's bound ``L D0 b1 + (rho^2 / L) b2`` at horizon ``k`` and parameter ``t``
    (``b2 = 0`` for ``rho = 0`` statements); ``None`` where a denominator vanishes (no claim there)."""
    b = st["bound"]
    den = _kpoly_at(b["den"], k, t)
    if den == 0:
        return None
    den /= _q(st.get("rate", 1)) ** k  # a linear rate: the bound times rate^k
    b2 = Fraction(0)
    if "hetero" in b:
        hden = _kpoly_at(b["hetero"]["den"], k, t)
        if hden == 0:
            return None
        b2 = _kpoly_at(b["hetero"]["num"], k, t) / hden
    return _kpoly_at(b["num"], k, t) / den, b2


def _trajectory(f: _Instance, x0: Any, m: Mapping[str, Any], t: Any, K: int, last: bool = False,
                distance: bool = False) -> dict[int, Any]:
    """The measure at every horizon ``<= K`` of one run (module doc of :mod:`fairtheory_kernel.potential_kernel`
    for the methods, written here from that definition): gd ``x+ = x - t g(x)``, ``f(x_N) - f*`` for ``N = 1..K``;
    agm (step ``1/L``, ``x_0 = z_0``, ``lambda_0 = 0``) the same; local_gd (002 Alg. 1, full participation; round 0
    one local step for rFedFair, ``kappa`` for FedAvg, then ``kappa`` per round, each round the ``p``-average of the
    clients' last local iterates) ``G(theta_tilde) - G*`` with ``theta_tilde`` the mean of the server models of
    rounds ``0..T_N`` (the 002 output), for ``T_N = 0..K`` (``last``: at ``K`` only); ``distance`` (gd):
    ``||x_N - x*||^2`` instead of ``f(x_N) - f*``."""
    out: dict[int, Any] = {}
    name = m["name"]
    if name == "gd":
        x = x0
        for N in range(1, K + 1):
            x = x - t * f.grad(0, x)
            if not last or N == K:
                out[N] = (x * x).sum() if distance else f.G(x)
    elif name == "agm":
        x, z, lam = x0, x0, 0.0
        for N in range(1, K + 1):
            nxt = (1 + math.sqrt(4 * lam * lam + 1)) / 2
            y = (1 - 1 / nxt) * x + (1 / nxt) * z
            g = f.grad(0, y)
            z, x, lam = z - (nxt * nxt - lam * lam) * g, y - g, nxt
            if not last or N == K:
                out[N] = f.G(x)
    elif name == "local_gd":
        n, theta, total = len(f.p), x0, 0 * x0
        for T in range(K + 1):
            Y = [theta] * n
            for _ in range(m["kappa"] if (T > 0 or m["schedule"] == "fedavg") else 1):
                Y = [Y[i] - t * f.grad(i, Y[i]) for i in range(n)]
            theta = _avg(Y, f.p)
            total = total + theta
            if not last or T == K:
                out[T] = f.G(total / (T + 1))
    else:
        raise ValueError(f"unknown method {name!r}")
    return out


def _worst_radius(m: Mapping[str, Any], k: int, t: Fraction) -> float:
    """Huber radius of the worst-case shape at horizon ``k`` (identical clients centred at ``x*``, ``||x0|| = 1``):
    Drori & Teboulle's ``1/(2 N h + 1)`` (gd; ``f(x_N) - f* = 1/(4 N h + 2)`` exactly), local GD's
    ``1/(1 + beta L (kappa T_N + 2))`` (:data:`HUBER_GRID`), the accelerated method's ``1/(N + 1)^2`` (heuristic)."""
    if m["name"] == "gd":
        return 1 / (2 * k * float(t) + 1)
    if m["name"] == "local_gd":
        return 1 / (1 + float(t) * (m["kappa"] * k + 2))
    return 1 / (k + 1) ** 2


def _parameter_points(st: Mapping[str, Any], extra: int, seed: int) -> list[Fraction]:
    """``lo``, ``hi``, the midpoint and ``extra`` random rationals of the statement's parameter range (each once)."""
    lo, hi = _q(st["parameter"]["lo"]), _q(st["parameter"]["hi"])
    rng = np.random.default_rng(seed)
    pts = [lo, hi, (lo + hi) / 2] + [lo + (hi - lo) * Fraction(int(k), 1024) for k in rng.integers(1, 1024, extra)]
    return list(dict.fromkeys(pts))


def falsify_potential(st: Mapping[str, Any], *, horizons: int = HORIZONS, large: tuple[int, ...] = LARGE_HORIZONS,
                      trials: int = 3, extra_points: int = 1, exact_pep: tuple[int, ...] = (0,), seed: int = 0,
                      best: list[Any] | None = None) -> dict[str, Any] | None:
    r"""Refute a ``"pep-potential"`` statement (docs/proofs.md 8.1: a bound for every ``N >= 1`` or ``T_N >= 0`` and
    every parameter in ``[lo, hi]``; ``L = D0 = 1``, the statement scales exactly to any ``L``, ``D0``).

    At the range's ends, its midpoint and ``extra_points`` random rationals ``t``:

    1. every instance of :func:`_cases` (exact quadratics, float64 Huber functions; ``rho = 0``: ``||x0||^2 = 1``;
       every ``rho``: ``x0`` of length 1, 1/8, 0 against heterogeneous clients, bound ``b1 ||x0||^2 + b2 rho^2``) is
       run once to horizon ``horizons`` and compared with the bound at **every** horizon on the way (trajectories:
       one run serves ``N = 1..horizons``);
    2. for every horizon ``k`` in ``1..horizons`` and ``large``, the worst-case shape :func:`_worst_radius` at that
       ``k`` is run to ``k`` (float64), and at the ``large`` ones also ``x^2/2`` (float64);
    3. gd: the bound against the exact worst case in closed form, ``max(1/(4 N h + 2), (1 - h)^(2N)/2)`` - each
       attained by an explicit instance (the Huber function of radius ``1/(2 N h + 1)``, Drori & Teboulle 2014, and
       ``x^2/2``) - at every horizon, exactly; local_gd: against :func:`fairtheory.worstcase.local_gd_worst_case`
       (a float SDP: slack ``1e-6`` relative plus its noise floor ``TINY``) at ``T_N`` in ``exact_pep`` and ``t = hi``.

    The accelerated method's ``lambda_k`` is irrational, so its runs are float64 throughout.  Quadratic instances
    compare exactly; float64 ones with :data:`RTOL` (rounding only: ``O(1)`` values, at most ``8 * 1000 + 1`` steps
    of a few operations each, relative error below ``1e-12``).  Returns the refuting instance with the **smallest
    horizon** found at the first refuted ``t`` (``"N"`` or ``"T_N"``, ``"parameter"``), or ``None``; ``best`` collects
    the largest ``measure / bound``."""
    m = dict(st["method"])
    name, kname = m["name"], ("T_N" if m["name"] == "local_gd" else "N")
    first = 0 if name == "local_gd" else 1
    het = "hetero" in st["bound"]
    mu, by_dist = _q(st["class"]["mu"]), st.get("measure", "value") == "distance"  # instances mu-strongly convex
    point = {"class": {"L": "1", "mu": str(mu)}, "p": st["p"], "n": st["n"]}
    for t in _parameter_points(st, extra_points, seed):
        bounds = {k: _potential_bound(st, k, t) for k in list(range(first, horizons + 1)) + list(large)}
        found: list[dict[str, Any]] = []

        def judge(k: int, measure: Any, dist: Any, rho: Any, exact: bool, info: Mapping[str, Any], t: Fraction = t,
                  bounds: Mapping[int, Any] = bounds, found: list[dict[str, Any]] = found) -> None:
            b = bounds.get(k)
            if b is None:
                return
            rhs = b[0] * dist + b[1] * rho if exact else float(b[0]) * float(dist) + float(b[1]) * float(rho)
            bad = _exceeds(measure, rhs, exact)
            if bad is None:
                return
            if best is not None and float(rhs) > 0:
                best[0] = max(best[0], float(measure) / float(rhs))
            if bad:
                found.append(dict(info, measure=str(measure if exact else float(measure)),
                                  bound=str(rhs if exact else float(rhs)), parameter=str(t), **{kname: k}))

        exact_ok = name != "agm"
        # 1. every instance of the class, one trajectory each, judged at every horizon on the way
        for exact, f, x0, dist, info in _cases(point, D0=None if het else Fraction(1), rho2=Fraction(0), trials=trials,
                                               seed=seed):
            if exact and not exact_ok:
                continue
            with np.errstate(all="ignore"):
                path = _trajectory(f, x0, m, t if exact else float(t), horizons, distance=by_dist)
            for k, v in path.items():
                judge(k, v, dist, f.rho2(), exact, info)
        # 2. the worst-case shapes at each horizon
        for k in list(range(first, horizons + 1)) + list(large):
            delta = _worst_radius(m, k, t)
            f = _Instance(1.0, float(mu), [float(x) for x in _q_list(st["p"])], ["huber"] * st["n"], [None] * st["n"],
                          [np.zeros(1)] * st["n"], [delta] * st["n"], [np.zeros(1)] * st["n"])
            with np.errstate(all="ignore"):
                v = _trajectory(f, np.ones(1), m, float(t), k, last=True, distance=by_dist)[k]
            judge(k, v, 1.0, 0.0, False, {"instance": "huber (worst-case shape)", "arithmetic": "float64",
                                          "dimension": 1, "x0": ["1"], "rho2": "0", "huber_delta": [delta] * st["n"]})
            if k in large:  # x^2/2 in float64 (gd: exactly in step 3)
                quad = _Instance(1.0, float(mu), [float(x) for x in _q_list(st["p"])], ["quad"] * st["n"],
                                 [np.ones(1)] * st["n"], [np.zeros(1)] * st["n"], [0.0] * st["n"], [np.zeros(1)] * st["n"])
                with np.errstate(all="ignore"):
                    v = _trajectory(quad, np.ones(1), m, float(t), k, last=True, distance=by_dist)[k]
                judge(k, v, 1.0, 0.0, False, {"instance": "quadratic x^2/2", "arithmetic": "float64", "dimension": 1,
                                              "x0": ["1"], "rho2": "0"})
        # 3. the exact worst case: closed form (gd), the local-GD PEP (local_gd, cheap horizons only)
        if name == "gd":
            for k in sorted(bounds):  # c x^2/2 for c = L, mu: (1 - c h)^(2N) (c/2 for the value); DT for mu = 0
                quads = [((1 - c * t) ** (2 * k) * (1 if by_dist else c / 2), f"quadratic {c} x^2/2")
                         for c in {Fraction(1), mu} - {0}]
                for wc, inst in ([] if mu or by_dist else [(1 / (4 * k * t + 2), "Drori-Teboulle: huber, radius 1/(2 N h + 1) = "
                                                         f"{1 / (2 * k * t + 1)}")]) + quads:
                    judge(k, wc, Fraction(1), Fraction(0), True, {"instance": inst + " (exact worst case, closed form)",
                                                                   "arithmetic": "exact", "dimension": 1, "x0": ["1"]})
        elif name == "local_gd" and t == _q(st["parameter"]["hi"]) and t > 0:
            from fairtheory.worstcase import local_gd_worst_case
            from fairtheory.worstcase.results import TINY

            for k in exact_pep:
                for D0, r2 in ((1, 0), (0, 1)) if het else ((1, 0),):
                    b = bounds.get(k)
                    if b is None:
                        continue
                    wc = local_gd_worst_case(n=st["n"], p=[float(x) for x in _q_list(st["p"])], kappa=m["kappa"], T_N=k,
                                             lr=float(t), L=1.0, D0=float(D0), rho2=float(r2), output="average",
                                             schedule=m["schedule"]).value
                    rhs = float(b[0] * D0 + b[1] * r2)
                    if best is not None and rhs > 0:
                        best[0] = max(best[0], wc / rhs)
                    if wc > rhs * (1 + 1e-6) + TINY * (D0 + r2):
                        found.append({"instance": "local_gd_worst_case (PEP, float SDP)", "arithmetic": "float64",
                                      "D0": str(D0), "rho2": str(r2), "measure": str(wc), "bound": str(rhs),
                                      "parameter": str(t), kname: k})
        if found:
            return min(found, key=lambda d: (d[kname], d["arithmetic"] != "exact"))  # smallest horizon, exact first
    return None


def _q_list(xs: list[Any]) -> list[Fraction]:
    return [_q(x) for x in xs]


def falsify_certificate(cert: Any, *, quick: bool = False) -> dict[str, Any] | str | None:
    """Refute the statement of a certificate that the kernel accepted: the refuting instance (a dict naming it),
    ``None`` when none was found, or ``"skipped: <why>"`` for a kind without a falsifier here.  ``quick`` (the quick
    ``python -m verify``): ``pep-potential`` statements are run to the horizons :data:`QUICK_HORIZONS` and
    :data:`QUICK_LARGE_HORIZONS` instead of :data:`HORIZONS` and :data:`LARGE_HORIZONS`, symbolic ones at
    :data:`QUICK_SYMBOLIC_POINTS` instead of :data:`SYMBOLIC_POINTS` points; ``pep-dual`` and ``pep-family`` ones
    as in full."""
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be a bool, got {quick!r}")
    if not isinstance(cert, Mapping) or not isinstance(cert.get("statement"), Mapping):
        return "skipped: no statement"
    kind, st = cert.get("kind"), cert["statement"]
    if kind == "pep-dual":
        return falsify_pep(st)
    if kind == "pep-family":
        return falsify_family(st)
    if kind == "pep-potential":
        if quick:
            return falsify_potential(st, horizons=QUICK_HORIZONS, large=QUICK_LARGE_HORIZONS)
        return falsify_potential(st)
    if kind in ("sympy-proof", "symbolic"):
        try:
            from fairtheory.proofs.falsify_symbolic import falsify
        except ImportError:
            return "skipped: no symbolic falsifier (fairtheory.proofs.falsify_symbolic) in this version"
        return falsify(st, points=QUICK_SYMBOLIC_POINTS if quick else SYMBOLIC_POINTS, dps=50, seed=0)
    return f"skipped: no falsifier for kind {kind!r}"


def best_ratio(cert: Mapping[str, Any], **kw: Any) -> float:
    """The largest ``measure / bound`` the search finds for a PEP certificate (how close the instances come to the
    bound; tests use it to show the search is not vacuous)."""
    best = [-math.inf]
    st = cert["statement"]
    if cert["kind"] == "pep-dual":
        falsify_pep(st, best=best, **kw)
    elif cert["kind"] == "pep-potential":
        falsify_potential(st, best=best, **kw)
    else:
        falsify_family(st, best=best, **kw)
    return best[0]
