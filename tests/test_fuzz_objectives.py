"""Table-driven fuzz of the numpy-level public API: objectives, metrics, sets, aggregators, bounds.

Every row is one call and its expectation: either a value, computed here by an independent formula
(exact rational arithmetic with :class:`fractions.Fraction`, integer roots, a direct definition or a
hand-derived number - never the library's own code path), or an error: the
:class:`~fairtheory.errors.FairtheoryError` subclass and the argument name the message must contain.
Value rows also assert that no ``RuntimeWarning``/``UserWarning`` is emitted.

Each vector argument is fed lists, tuples, integer and float32 numpy arrays, torch tensors (float64,
integer, ``requires_grad=True``, on an explicit CPU device), booleans, nan, +-inf, empty, 2-D,
ragged, complex, ``None`` and strings; values cover huge (``1e150..1e308``) and tiny (``1e-300``)
scales, ties, zeros and single clients.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from oracles import capped_simplex_projection

from fairtheory import aggregators as agg
from fairtheory import backend, metrics, stable
from fairtheory.bounds import fedfv as bfv
from fairtheory.bounds import generalization as gen
from fairtheory.bounds import rcfl as brc
from fairtheory.errors import FairtheoryError, FairtheoryTypeError, FairtheoryValueError, NonFiniteError
from fairtheory.instances import baselines as ibl
from fairtheory.instances import fedfv as ifv
from fairtheory.instances import qffl as iqf
from fairtheory.instances import rcfl as irc
from fairtheory.instances import relative as irel
from fairtheory.objectives import qalpha as qa
from fairtheory.objectives import qffl as qf
from fairtheory.objectives import relative as rel
from fairtheory.objectives.tilted import term
from fairtheory.problems.quadratic import QuadraticProblem
from fairtheory.sets import CappedSimplex, IntegratedSet
from fairtheory.testing import properties as props
from fairtheory.testing import strategies as strat

try:
    import torch
except ImportError:  # pragma: no cover - torch is an optional backend
    torch = None

VE, TE, NF = FairtheoryValueError, FairtheoryTypeError, NonFiniteError
CPU = "cpu"


# =============================================================================== expectations
@dataclass(frozen=True)
class Value:
    """The call returns ``expected`` (numbers, arrays or tuples of them) within ``rtol``/``atol``;
    ``torch=True``: the result must be a torch tensor (the library is kept)."""

    expected: Any
    rtol: float = 1e-13
    atol: float = 0.0
    torch: bool | None = None


@dataclass(frozen=True)
class Raises:
    """The call raises ``error`` (a FairtheoryError subclass unless stated) naming ``name``."""

    error: type
    name: str


ROWS: list[Any] = []


def row(rid: str, call: Callable[[], Any], expect: Value | Raises) -> None:
    ROWS.append(pytest.param(call, expect, id=rid))


def _plain(x: Any) -> Any:
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    if isinstance(x, (tuple, list)):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _close(got: Any, exp: Any, rtol: float, atol: float, where: str = "") -> None:
    if isinstance(exp, dict):
        assert isinstance(got, dict) and set(got) >= set(exp), f"{where}: keys {got!r} vs {exp!r}"
        for k in exp:
            _close(got[k], exp[k], rtol, atol, f"{where}[{k!r}]")
        return
    if isinstance(exp, (tuple, list)):
        assert len(got) == len(exp), f"{where}: {got!r} vs {exp!r}"
        for i, (g, e) in enumerate(zip(got, exp, strict=True)):
            _close(g, e, rtol, atol, f"{where}[{i}]")
        return
    if isinstance(exp, (bool, np.bool_)) or exp is None:
        assert got == exp, f"{where}: {got!r} != {exp!r}"
        return
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(exp, dtype=np.float64)
    assert g.shape == e.shape, f"{where}: shape {g.shape} != {e.shape}"
    assert np.all(np.isfinite(g) == np.isfinite(e)), f"{where}: {g!r} vs {e!r}"
    fin = np.isfinite(e)
    assert np.all(g[~fin] == e[~fin]), f"{where}: {g!r} vs {e!r}"
    err = np.abs(g[fin] - e[fin])
    assert np.all(err <= rtol * np.abs(e[fin]) + atol), f"{where}: got {g!r}, expected {e!r} (rtol {rtol}, atol {atol})"


# =============================================================================== independent references
def fr(x: Any) -> Fraction:
    return Fraction(float(x))


def ffloat(x: Fraction) -> float:
    """Correctly rounded float of a rational (raises OverflowError where it does not fit)."""
    return float(x)


def iroot(n: int, r: int) -> int:
    """floor(n^(1/r)) for integers n >= 0, r >= 1 (Newton on integers)."""
    if n < 2 or r == 1:
        return n
    x = 1 << ((n.bit_length() + r - 1) // r)
    while True:
        y = ((r - 1) * x + n // x ** (r - 1)) // r
        if y >= x:
            return x
        x = y


def froot(S: Fraction, r: int, bits: int = 120) -> float:
    """S^(1/r) for a rational S >= 0, to about 2^-bits relative (any magnitude of S)."""
    if S == 0:
        return 0.0
    e = S.numerator.bit_length() - S.denominator.bit_length()  # log2 S, to within one
    B = max(bits, bits - e // r + 2)
    N = (S.numerator << (r * B)) // S.denominator
    return float(Fraction(iroot(N, r), 1 << B))


def ref_qffl(F: list[float], q: int, p: list[float] | None = None, form: str = "weighted") -> float:
    m = len(F)
    w = [Fraction(1, m)] * m if (form != "weighted" or p is None) else [fr(x) for x in p]
    S = sum(wk * fr(f) ** (q + 1) for wk, f in zip(w, F, strict=True))
    if form == "weighted":
        return ffloat(S / (q + 1))
    if form == "unweighted":
        return ffloat(S)
    return froot(S, q + 1)


def ref_qffl_grad(F: list[float], G: list[list[float]], q: int, p: list[float] | None = None,
                  form: str = "weighted") -> list[float]:
    m, d = len(F), len(G[0])
    w = [Fraction(1, m)] * m if (form != "weighted" or p is None) else [fr(x) for x in p]
    g = [sum(w[k] * fr(F[k]) ** q * fr(G[k][j]) for k in range(m)) for j in range(d)]
    if form == "weighted":
        return [ffloat(x) for x in g]
    if form == "unweighted":
        return [ffloat((q + 1) * x) for x in g]
    S = sum(w[k] * fr(F[k]) ** (q + 1) for k in range(m))
    # S^(-q/(q+1)) g: (g^(q+1) / S^q)^(1/(q+1)) with the sign of g
    out = []
    for x in g:
        mag = froot(abs(x) ** (q + 1) / S ** q, q + 1) if x else 0.0
        out.append(math.copysign(mag, float(x)) if x else 0.0)
    return out


def ref_mean(a: list[float]) -> Fraction:
    return sum(fr(x) for x in a) / len(a)


def ref_variance(a: list[float]) -> float:
    mu = ref_mean(a)
    return ffloat(sum((fr(x) - mu) ** 2 for x in a) / len(a))


def ref_cosine(a: list[float]) -> float:
    # mean / sqrt(mean of squares) = sqrt(mean^2 / mean(a^2))
    mu = ref_mean(a)
    ms = sum(fr(x) ** 2 for x in a) / len(a)
    return froot(mu * mu / ms, 2)


def ref_entropy(a: list[float]) -> float:
    tot = sum(fr(x) for x in a)
    return -math.fsum(float(fr(x) / tot) * math.log(float(fr(x) / tot)) for x in a if x > 0)


def ref_gini(a: list[float]) -> float:
    m = len(a)
    num = sum(abs(fr(x) - fr(y)) for x in a for y in a)
    return ffloat(num / (2 * m * m * ref_mean(a)))


def ref_jain(a: list[float]) -> float:
    return ffloat(sum(fr(x) for x in a) ** 2 / (len(a) * sum(fr(x) ** 2 for x in a)))


def ref_tail_mean(a: list[float], frac: float, top: bool) -> Fraction:
    """Mean of the largest (smallest) ``frac * m`` entries, fractional last entry (CVaR convention)."""
    xs = sorted((fr(x) for x in a), reverse=top)
    k = fr(frac) * len(a)
    if k <= 1:  # the single extreme entry (caps >= 1)
        return xs[0]
    whole = int(math.floor(k))
    s = sum(xs[:whole]) + (k - whole) * (xs[whole] if whole < len(xs) else 0)
    return s / k


def ref_qalpha(f: list[float], p: list[float], alpha: Any) -> float:
    """002 Lemma 1 dual, exact: min over the breakpoints eta = f_j of eta + sum_i (p_i/alpha_i)(f_i - eta)_+."""
    al = alpha if isinstance(alpha, (list, tuple)) else [alpha] * len(p)
    c = [fr(pi) / fr(ai) for pi, ai in zip(p, al, strict=True)]
    best = min(fr(e) + sum(ci * max(fr(fi) - fr(e), Fraction(0)) for ci, fi in zip(c, f, strict=True)) for e in f)
    return ffloat(best)


def ref_support(v: list[float], caps: list[float]) -> float:
    """max of lam . v over S(u) by the LP dual over breakpoints (exact rationals)."""
    u = [min(fr(c), Fraction(1)) for c in caps]
    return ffloat(min(fr(e) + sum(ui * max(fr(vi) - fr(e), Fraction(0)) for ui, vi in zip(u, v, strict=True))
                      for e in v))


def ref_project(v: list[float], caps: list[float]) -> list[float]:
    """Euclidean projection onto S(u), exact (the shared oracle ``tests/oracles.py``), rounded once per entry."""
    return [float(x) for x in capped_simplex_projection(v, caps)]


def ref_softplus(x: float, mu: float) -> float:
    if x / mu > 700:
        return x + mu * math.exp(-x / mu)
    return mu * math.log1p(math.exp(x / mu))


def ref_sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else math.exp(x)


def ref_term(f: list[float], p: list[float], t: float) -> float:
    return math.log(math.fsum(pi * math.exp(t * fi) for pi, fi in zip(p, f, strict=True))) / t


def ref_smoothed(f: list[float], p: list[float], alpha: float, mu: float) -> float:
    """min_eta sum_i p_i [softplus_mu(f_i - eta)/alpha + eta] by golden-section search (convex in eta)."""
    def h(e: float) -> float:
        return math.fsum(pi * (ref_softplus(fi - e, mu) / alpha + e) for pi, fi in zip(p, f, strict=True))

    lo, hi = min(f) - 50 * mu, max(f) + 50 * mu
    r = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - r * (hi - lo), lo + r * (hi - lo)
        if h(a) < h(b):
            hi = b
        else:
            lo = a
    return h(0.5 * (lo + hi))


def ref_projections(U: list[list[float]]) -> list[list[list[Fraction]]]:
    """g_i^{(j)}, j = 0..m, by the definition (004 App. A.1, conditional), in exact rationals."""
    A = [[fr(x) for x in r] for r in U]
    m = len(A)

    def dot(a: list[Fraction], b: list[Fraction]) -> Fraction:
        return sum(x * y for x, y in zip(a, b, strict=True))

    P = [[list(r) for r in A]]
    cur = [list(r) for r in A]
    for k in range(m):
        nk = dot(A[k], A[k])
        nxt = []
        for i in range(m):
            gi = cur[i]
            c = dot(gi, A[k])
            if i != k and nk > 0 and c < 0:
                gi = [x - c / nk * y for x, y in zip(gi, A[k], strict=True)]
            nxt.append(gi)
        cur = nxt
        P.append([list(r) for r in cur])
    return P


def ref_conflicts(U: list[list[float]]) -> list[float]:
    P = ref_projections(U)
    m = len(U)
    gbar = [sum(P[-1][i][j] for i in range(m)) / m for j in range(len(U[0]))]
    return [float(sum(fr(a) * b for a, b in zip(U[k], gbar, strict=True))) for k in range(m)]


def sqrt_f(x: Fraction) -> float:
    return froot(x, 2)


def ref_theorem1_bound(U: list[list[float]], eps: float) -> list[float]:
    P = ref_projections(U)
    m = len(U)
    norms = [[sqrt_f(sum(x * x for x in P[j][i])) for i in range(m)] for j in range(m)]
    per_j = [math.fsum(norms[j][i] for i in range(m) if i != j) for j in range(m)]
    out = []
    for k in range(1, m + 1):
        tail = math.fsum(per_j[j] for j in range(k, m))
        gk = sqrt_f(sum(fr(x) ** 2 for x in U[k - 1]))
        out.append(eps ** 2 / m * gk * tail)
    return out


# =============================================================================== input variants
F3 = [1.0, 3.0, 2.0]
P3 = [0.2, 0.3, 0.5]
G3 = [[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]]


def _t(x: Any, **kw: Any) -> Any:
    return torch.tensor(x, **kw)


def variants(x: list[float], *, float32: bool = True) -> list[tuple[str, Callable[[], Any]]]:
    """Equivalent encodings of the real vector ``x`` (integer-valued entries for the integer ones;
    float32 only where rounding to float32 keeps the call valid)."""
    out: list[tuple[str, Callable[[], Any]]] = [
        ("list", lambda: list(x)),
        ("tuple", lambda: tuple(x)),
    ]
    if float32:
        out.append(("float32 numpy", lambda: np.asarray(x, dtype=np.float32)))
    if all(float(v).is_integer() for v in x):
        out.append(("int numpy", lambda: np.asarray(x, dtype=np.int64)))
        out.append(("int list", lambda: [int(v) for v in x]))
    if torch is not None:
        out.append(("torch float64 cpu", lambda: _t(x, dtype=torch.float64, device=CPU)))
        out.append(("torch requires_grad", lambda: _t(x, dtype=torch.float64, requires_grad=True)))
        if all(float(v).is_integer() for v in x):
            out.append(("torch int64", lambda: _t([int(v) for v in x], dtype=torch.int64)))
    return out


def malformed(n: int, *, nonfinite: bool = True) -> list[tuple[str, Callable[[], Any], type]]:
    """Malformed encodings of a length-``n`` vector and the error class each must raise."""
    bad: list[tuple[str, Callable[[], Any], type]] = [
        ("bool numpy", lambda: np.ones(n, dtype=bool), TE),
        ("bool list", lambda: [True] * n, TE),
        ("empty", lambda: np.zeros(0), VE),
        ("2-D", lambda: np.ones((n, 2)), VE),
        ("string", lambda: "abc", TE),
        ("None", lambda: None, TE),
        ("complex", lambda: np.ones(n, dtype=complex), TE),
        ("ragged", lambda: [[1.0], [1.0, 2.0]], TE),
    ]
    if nonfinite:
        bad += [
            ("nan", lambda: [1.0] * (n - 1) + [float("nan")], NF),
            ("+inf", lambda: [float("inf")] + [1.0] * (n - 1), NF),
            ("-inf", lambda: [1.0] * (n - 1) + [-float("inf")], NF),
        ]
    if torch is not None:
        bad.append(("torch bool", lambda: torch.ones(n, dtype=torch.bool), TE))
    return bad


def vector_rows(fname: str, call: Callable[[Any], Any], good: list[float], expected: Any, arg: str, *,
                rtol: float = 1e-13, nonfinite: bool = True, torch_out: bool | None = None, float32: bool = True,
                skip: tuple[str, ...] = ()) -> None:
    """Rows for one vector argument of one function: every encoding of ``good`` gives ``expected``,
    every malformed input raises naming ``arg`` (except the encodings in ``skip``, which are valid
    for this argument: ``None`` for an optional one, ``empty``/``2-D`` for an elementwise one)."""
    for label, make in variants(good, float32=float32):
        keeps = torch_out if (torch_out is not None and label.startswith("torch")) else None
        tol = max(rtol, 1e-6) if label == "float32 numpy" else rtol  # elementwise kernels keep float32
        row(f"{fname} {arg}: {label}", lambda make=make: call(make()), Value(expected, rtol=tol, torch=keeps))
    for label, make, err in malformed(len(good), nonfinite=nonfinite):
        if label not in skip:
            row(f"{fname} {arg}: {label}", lambda make=make: call(make()), Raises(err, arg))


# =============================================================================== q-FFL (003)
for q in (0, 1, 3):
    for form in qf.FORMS:
        row(f"qffl_value q={q} {form}", lambda q=q, form=form: float(qf.qffl_value(F3, q, P3, form=form)),
            Value(ref_qffl(F3, q, P3, form), rtol=1e-14))
vector_rows("qffl_value", lambda x: qf.qffl_value(x, 1.0, P3), F3, ref_qffl(F3, 1, P3), "losses", torch_out=True)
vector_rows("qffl_value", lambda x: qf.qffl_value(F3, 1.0, x), P3, ref_qffl(F3, 1, P3), "p", float32=False, skip=("None",))
row("qffl_value int array (was 0.0)", lambda: float(qf.qffl_value(np.array([1, 3, 2]), 1.0, P3)),
    Value(ref_qffl(F3, 1, P3)))
row("qffl_value bool array (was a number)", lambda: qf.qffl_value(np.array([True, False, True]), 1.0), Raises(TE, "losses"))
for form in qf.FORMS:  # 003 App. A.1 overflowed to inf for losses 1e160..1e300
    big = [1e160, 1e300]
    if form == "root":
        row(f"qffl_value huge {form}", lambda form=form, big=big: float(qf.qffl_value(big, 1.0, form=form)),
            Value(ref_qffl(big, 1, None, form), rtol=1e-15))
    else:
        row(f"qffl_value huge {form} does not fit", lambda form=form, big=big: qf.qffl_value(big, 1.0, form=form),
            Raises(VE, "float64"))
row("qffl_value huge q=0 unweighted", lambda: float(qf.qffl_value([1e160, 1e300], 0.0, form="unweighted")),
    Value(ref_qffl([1e160, 1e300], 0, None, "unweighted")))
row("qffl_value huge fits with tiny weight", lambda: float(qf.qffl_value([1e200, 1.0], 1.0, [1e-100, 1 - 1e-100])),
    Value(ref_qffl([1e200, 1.0], 1, [1e-100, 1 - 1e-100]), rtol=1e-14))
row("qffl_value near max q=0", lambda: float(qf.qffl_value([1.7e308, 1.7e308], 0.0)), Value(1.7e308))
row("qffl_value root q=3 near max", lambda: float(qf.qffl_value([1.7e308, 1e300], 3.0, form="root")),
    Value(ref_qffl([1.7e308, 1e300], 3, None, "root"), rtol=1e-14))
row("qffl_value root tiny (underflowed to 0)", lambda: float(qf.qffl_value([1e-200, 2e-200], 1.0, form="root")),
    Value(ref_qffl([1e-200, 2e-200], 1, None, "root"), rtol=1e-15))
row("qffl_value tiny weighted", lambda: float(qf.qffl_value([1e-160, 3e-160], 1.0)),
    Value(ref_qffl([1e-160, 3e-160], 1), rtol=1e-15, atol=1e-323))
row("qffl_value zeros", lambda: float(qf.qffl_value([0.0, 0.0], 2.0, form="root")), Value(0.0))
row("qffl_value ties", lambda: float(qf.qffl_value([2.0, 2.0, 2.0], 2.0, form="root")), Value(2.0))
row("qffl_value single client", lambda: float(qf.qffl_value([5.0], 1.0)), Value(12.5))
row("qffl_value q=200 root tends to max", lambda: float(qf.qffl_value([1.0, 1.7, 0.5], 200.0, form="root")),
    Value(froot(sum((fr(x) ** 201 for x in [1.0, 1.7, 0.5]), Fraction(0)) / 3, 201), rtol=1e-13))
row("qffl_value negative loss", lambda: qf.qffl_value([1.0, -0.1], 1.0), Raises(VE, "losses"))
row("qffl_value q < 0", lambda: qf.qffl_value(F3, -0.5), Raises(VE, "q"))
row("qffl_value q nan", lambda: qf.qffl_value(F3, float("nan")), Raises(VE, "q"))
row("qffl_value q bool", lambda: qf.qffl_value(F3, True), Raises(TE, "q"))
row("qffl_value q string", lambda: qf.qffl_value(F3, "1"), Raises(TE, "q"))
row("qffl_value bad form", lambda: qf.qffl_value(F3, 1.0, form="bogus"), Raises(VE, "form"))
row("qffl_value form list", lambda: qf.qffl_value(F3, 1.0, form=["root"]), Raises(VE, "form"))
row("qffl_value p wrong length", lambda: qf.qffl_value(F3, 1.0, [0.5, 0.5]), Raises(VE, "p"))
row("qffl_value p not summing to 1", lambda: qf.qffl_value(F3, 1.0, [0.5, 0.6, 0.1]), Raises(VE, "p"))
if torch is not None:
    def _qffl_torch_grad() -> Any:
        x = torch.tensor(F3, dtype=torch.float64, requires_grad=True)
        v = qf.qffl_value(x, 2.0, P3)
        v.backward()
        return float(v.detach()), x.grad

    row("qffl_value torch requires_grad differentiates", _qffl_torch_grad,
        Value((ref_qffl(F3, 2, P3), [p * f ** 2 for p, f in zip(P3, F3, strict=True)]), rtol=1e-14))

    def _qffl_torch_grad_huge() -> Any:  # scaled path keeps the exact gradient
        x = torch.tensor([1e200, 3e200], dtype=torch.float64, requires_grad=True)
        v = qf.qffl_value(x, 1.0, form="root")
        v.backward()
        return float(v.detach()), x.grad

    # root of the mean of squares: d/dF_k = F_k / (m R)
    R = ref_qffl([1e200, 3e200], 1, None, "root")
    row("qffl_value torch huge root gradient", _qffl_torch_grad_huge, Value((R, [1e200 / (2 * R), 3e200 / (2 * R)]), rtol=1e-14))
    row("qffl_value torch float32 keeps dtype", lambda: qf.qffl_value(torch.tensor(F3, dtype=torch.float32), 1.0).dtype
        == torch.float32, Value(True))

for form in qf.FORMS:
    for q in (0, 2):
        row(f"qffl_grad q={q} {form}", lambda q=q, form=form: qf.qffl_grad(F3, G3, q, P3, form=form),
            Value(ref_qffl_grad(F3, G3, q, P3, form), rtol=1e-13))
vector_rows("qffl_grad", lambda x: qf.qffl_grad(x, G3, 1.0, P3), F3, ref_qffl_grad(F3, G3, 1, P3), "losses", torch_out=True)
row("qffl_grad int arrays (was 0)", lambda: qf.qffl_grad(np.array([1, 3, 2]), np.array([[1, 0], [0, 1], [1, -1]]), 1.0, P3),
    Value(ref_qffl_grad(F3, G3, 1, P3)))
row("qffl_grad lists", lambda: qf.qffl_grad([1.0, 3.0], [[1.0, 0.0], [0.0, 1.0]], 1.0), Value([0.5, 1.5]))
row("qffl_grad grads bool", lambda: qf.qffl_grad(F3, np.ones((3, 2), dtype=bool), 1.0), Raises(TE, "grads"))
row("qffl_grad grads nan", lambda: qf.qffl_grad(F3, [[1.0, 0.0], [np.nan, 1.0], [1.0, 1.0]], 1.0), Raises(NF, "grads"))
row("qffl_grad grads 1-D", lambda: qf.qffl_grad(F3, [1.0, 2.0, 3.0], 1.0), Raises(VE, "grads"))
row("qffl_grad grads wrong rows", lambda: qf.qffl_grad(F3, np.ones((2, 2)), 1.0), Raises(VE, "grads"))
row("qffl_grad grads string", lambda: qf.qffl_grad(F3, "abc", 1.0), Raises(TE, "grads"))
row("qffl_grad huge losses, tiny gradients", lambda: qf.qffl_grad([1e200, 2e200], [[1e-200, 0.0], [0.0, 1e-200]], 1.0),
    Value(ref_qffl_grad([1e200, 2e200], [[1e-200, 0.0], [0.0, 1e-200]], 1), rtol=1e-14))
row("qffl_grad tiny losses, huge gradients", lambda: qf.qffl_grad([1e-200, 2e-200], [[1e200, 0.0], [0.0, 1e200]], 1.0),
    Value(ref_qffl_grad([1e-200, 2e-200], [[1e200, 0.0], [0.0, 1e200]], 1), rtol=1e-14))
row("qffl_grad root tiny losses", lambda: qf.qffl_grad([1e-200, 2e-200], [[1e200, 0.0], [0.0, 1e200]], 1.0, form="root"),
    Value(ref_qffl_grad([1e-200, 2e-200], [[1e200, 0.0], [0.0, 1e200]], 1, None, "root"), rtol=1e-14))
row("qffl_grad does not fit", lambda: qf.qffl_grad([1e300, 2e300], [[1e300, 0.0], [0.0, 1.0]], 1.0), Raises(VE, "float64"))
row("qffl_grad root at F = 0", lambda: qf.qffl_grad([0.0, 0.0], [[1.0], [1.0]], 1.0, form="root"), Raises(VE, "root"))
row("qffl_grad root q=0 at F = 0", lambda: qf.qffl_grad([0.0, 0.0], [[1.0], [3.0]], 0.0, form="root"), Value([2.0]))

row("lipschitz_estimate by hand", lambda: qf.lipschitz_estimate([4.0], [9.0], 2.0, 0.5), Value([6.25]))
vector_rows("lipschitz_estimate", lambda x: qf.lipschitz_estimate(x, [1.0, 1.0, 4.0], 1.0, 2.0), F3,
            [1 + 2 * 1 * 1, 9 + 2 * 3 * 1, 4 + 2 * 2 * 4], "losses")
vector_rows("lipschitz_estimate", lambda x: qf.lipschitz_estimate(F3, x, 1.0, 2.0), [1.0, 1.0, 4.0],
            [3.0, 15.0, 20.0], "grad_sq_norms")
row("lipschitz_estimate L bool", lambda: qf.lipschitz_estimate(F3, [1.0, 1.0, 1.0], True, 2.0), Raises(TE, "L"))
row("lipschitz_estimate L vector", lambda: qf.lipschitz_estimate(F3, [0.0, 0.0, 0.0], [1.0, 2.0, 3.0], 1.0),
    Value([1.0, 6.0, 6.0]))
row("lipschitz_estimate L wrong shape", lambda: qf.lipschitz_estimate(F3, [0.0] * 3, [1.0, 2.0], 1.0), Raises(VE, "L"))
row("lipschitz_estimate L = 0", lambda: qf.lipschitz_estimate(F3, [0.0] * 3, 0.0, 1.0), Raises(VE, "L"))
row("lipschitz_estimate huge loss, tiny L", lambda: qf.lipschitz_estimate([1e200], [1e-300], 1e-200, 2.0),
    Value([ffloat(fr(1e-200) * fr(1e200) ** 2 + 2 * fr(1e200) * fr(1e-300))], rtol=1e-14))
row("lipschitz_estimate tiny loss, huge L", lambda: qf.lipschitz_estimate([1e-200], [0.0], 1e200, 2.0),
    Value([ffloat(fr(1e200) * fr(1e-200) ** 2)], rtol=1e-14))
row("lipschitz_estimate does not fit", lambda: qf.lipschitz_estimate([1e200], [1.0], 1.0, 2.0), Raises(VE, "float64"))
row("lipschitz_estimate zero loss, nonzero gradient", lambda: qf.lipschitz_estimate([0.0], [1.0], 2.0, 0.5),
    Raises(VE, "losses[0]"))
row("hessian_powered by hand", lambda: qf.hessian_powered([2.0, 3.0], [[1.0], [2.0]], [[[1.0]], [[3.0]]], 2.0),
    Value([[[2 * 2 * 1 + 4 * 1]], [[2 * 3 * 4 + 9 * 3]]]))
row("hessian_powered huge and tiny", lambda: qf.hessian_powered([1e200], [[1e-200]], [[[1e-300]]], 2.0),
    Value([[[ffloat(2 * fr(1e200) * fr(1e-200) ** 2 + fr(1e200) ** 2 * fr(1e-300))]]], rtol=1e-14))
row("hessian_powered lists and ints", lambda: qf.hessian_powered([2], [[1]], [[[1]]], 1.0), Value([[[1 + 2]]]))
row("hessian_powered grad nan", lambda: qf.hessian_powered([2.0], [[np.nan]], [[[1.0]]], 2.0), Raises(NF, "grad"))
row("hessian_powered hess bool", lambda: qf.hessian_powered([2.0], [[1.0]], np.ones((1, 1, 1), dtype=bool), 2.0),
    Raises(TE, "hess"))
row("hessian_powered hess wrong size", lambda: qf.hessian_powered([2.0], [[1.0, 0.0]], [[[1.0]]], 2.0), Raises(VE, "hess"))
row("hessian_powered loss negative", lambda: qf.hessian_powered([-2.0], [[1.0]], [[[1.0]]], 2.0), Raises(VE, "losses"))
row("QFFLProblem base not a problem", lambda: qf.QFFLProblem(object(), 1.0), Raises(VE, "base"))
row("check_losses returns float64", lambda: qf.check_losses([1, 2]), Value([1.0, 2.0]))

# =============================================================================== metrics
A5 = [3.0, 1.0, 4.0, 1.0, 5.0]
vector_rows("variance", metrics.variance, A5, ref_variance(A5), "a")
vector_rows("angle_cosine", metrics.angle_cosine, A5, ref_cosine(A5), "a", rtol=1e-15)
vector_rows("gini", metrics.gini, A5, ref_gini(A5), "a", rtol=1e-14)
vector_rows("entropy", metrics.entropy, A5, ref_entropy(A5), "a", rtol=1e-14)
vector_rows("jain", metrics.jain, A5, ref_jain(A5), "a", rtol=1e-15)
vector_rows("ratio_2020", metrics.ratio_2020, A5,
            ffloat(ref_tail_mean(A5, 0.2, True) / ref_tail_mean(A5, 0.2, False)), "a", rtol=1e-14)
for scale in (1e155, 1e300, 1e-300):  # overflowed for entries >= 1e155 (angle, Gini, Jain)
    a = [scale * x for x in (1.0, 2.0, 3.5)]
    row(f"angle_cosine scale {scale:g}", lambda a=a: metrics.angle_cosine(a), Value(ref_cosine(a), rtol=1e-15))
    row(f"gini scale {scale:g}", lambda a=a: metrics.gini(a), Value(ref_gini(a), rtol=1e-14))
    row(f"jain scale {scale:g}", lambda a=a: metrics.jain(a), Value(ref_jain(a), rtol=1e-14))
    row(f"entropy scale {scale:g}", lambda a=a: metrics.entropy(a), Value(ref_entropy(a), rtol=1e-14))
    row(f"kl_to_uniform scale {scale:g}", lambda a=a: metrics.kl_to_uniform(a),
        Value(math.log(3) - ref_entropy(a), rtol=1e-13))
    row(f"worst_mean scale {scale:g}", lambda a=a: metrics.worst_mean(a, 0.5, higher_is_better=False),
        Value(ffloat((fr(a[2]) + fr(a[1])) / 2), rtol=1e-15))
    row(f"atkinson scale {scale:g}", lambda a=a: metrics.atkinson(a),
        Value(ffloat(1 - fr(a[0]) / ref_mean(a)), rtol=1e-14))
    row(f"palma_ratio scale {scale:g}", lambda a=a: metrics.palma_ratio(a),
        Value(ffloat(ref_tail_mean(a, 0.1, True) / ref_tail_mean(a, 0.4, False) / 4), rtol=1e-14))
row("variance near max (sum overflowed)", lambda: metrics.variance([1.7e308, 1.7e308]), Value(0.0))
row("variance tiny", lambda: metrics.variance([1e-300, 3e-300]), Value(0.0, atol=1e-323))
row("variance does not fit", lambda: metrics.variance([1e155, -2e155]), Raises(VE, "float64"))
row("best_mean near max", lambda: metrics.best_mean([1.7e308, 1.7e308, 1.0], 0.6), Value(1.7e308))
row("worst_mean subnormal entry", lambda: metrics.worst_mean([1e-320, 1e300]), Value(1e-320))
row("lorenz_curve near max", lambda: metrics.lorenz_curve([1.7e308, 1.7e308]), Value(([0.0, 0.5, 1.0], [0.0, 0.5, 1.0])))
row("lorenz_curve by hand", lambda: metrics.lorenz_curve([1, 3]), Value(([0.0, 0.5, 1.0], [0.0, 0.25, 1.0])))
row("transformed_lorenz_curve by hand", lambda: metrics.transformed_lorenz_curve([1, 3]),
    Value(([0.0, 0.5, 1.0], [1.0, 0.5, 1.0])))
row("angle_degrees ties", lambda: metrics.angle_degrees([2.0, 2.0, 2.0]), Value(0.0, atol=1e-6))
row("angle_cosine single client", lambda: metrics.angle_cosine([4.0]), Value(1.0))
row("gini single client", lambda: metrics.gini([4.0]), Value(0.0))
row("entropy with zeros", lambda: metrics.entropy([0.0, 1.0, 1.0]), Value(math.log(2), rtol=1e-15))
row("entropy one-point", lambda: metrics.entropy([0.0, 5.0]), Value(0.0))
row("angle_cosine all zeros", lambda: metrics.angle_cosine([0.0, 0.0]), Raises(VE, "a"))
row("gini negative", lambda: metrics.gini([1.0, -1.0]), Raises(VE, "a"))
row("relative_unfairness top=0 (named a before)", lambda: metrics.relative_unfairness([1.0, 2.0, 3.0], top=0),
    Raises(VE, "top"))
row("relative_unfairness bottom=1.5", lambda: metrics.relative_unfairness([1.0, 2.0, 3.0], bottom=1.5), Raises(VE, "bottom"))
row("relative_unfairness top bool", lambda: metrics.relative_unfairness([1.0, 2.0, 3.0], top=True), Raises(TE, "top"))
row("relative_unfairness zero bottom mean", lambda: metrics.relative_unfairness([0.0, 0.0, 3.0]), Raises(VE, "bottom"))
row("relative_unfairness does not fit", lambda: metrics.ratio_2020([1e-320, 1e300]), Raises(VE, "float64"))
row("relative_unfairness by hand", lambda: metrics.relative_unfairness([1.0, 2.0, 3.0, 4.0], 0.5, 0.5), Value(3.5 / 1.5))
row("worst_mean k = 0", lambda: metrics.worst_mean(A5, 0.0), Raises(VE, "k"))
row("worst_mean k nan", lambda: metrics.worst_mean(A5, float("nan")), Raises(VE, "k"))
row("atkinson epsilon < 0", lambda: metrics.atkinson(A5, -1.0), Raises(VE, "epsilon"))
row("atkinson epsilon bool", lambda: metrics.atkinson(A5, True), Raises(TE, "epsilon"))
row("atkinson epsilon=1 zero entry", lambda: metrics.atkinson([0.0, 1.0], 1.0), Raises(VE, "epsilon"))
row("atkinson epsilon=0.5 by hand", lambda: metrics.atkinson([1.0, 4.0], 0.5), Value(1 - ((1 + 2) / 2) ** 2 / 2.5, rtol=1e-15))
row("atkinson epsilon=2 wide range", lambda: metrics.atkinson([1e-320, 1e300], 2.0), Value(1.0))
row("atkinson epsilon=1 geometric", lambda: metrics.atkinson([1.0, 4.0], 1.0), Value(1 - 2.0 / 2.5, rtol=1e-15))
# issue 18 sweep: eps = 1e300 is infinite aversion up to 1e-300 (EDE = min a), eps -> 1 the geometric mean
row("atkinson epsilon=1e300 is min/mean", lambda: metrics.atkinson([1.0, 4.0], 1e300), Value(1 - 1.0 / 2.5, rtol=1e-15))
row("atkinson epsilon=1-1e-12 geometric", lambda: metrics.atkinson([1.0, 4.0], 1 - 1e-12), Value(1 - 2.0 / 2.5, rtol=1e-9))
row("atkinson epsilon=1+1e-12 geometric", lambda: metrics.atkinson([1.0, 4.0], 1 + 1e-12), Value(1 - 2.0 / 2.5, rtol=1e-9))
row("atkinson epsilon=10 by hand", lambda: metrics.atkinson([1.0, 4.0], 10.0),
    Value(1 - ((1 + 4.0 ** -9) / 2) ** (-1 / 9) / 2.5, rtol=1e-14))

# =============================================================================== Q_alpha (002)
PQ = [0.5, 0.25, 0.25]
FQ = [1.0, 4.0, 2.0]
vector_rows("qalpha_loss", lambda x: qa.qalpha_loss(x, PQ, 0.6)[0], FQ, ref_qalpha(FQ, PQ, 0.6), "losses", rtol=1e-15)
vector_rows("qalpha_loss", lambda x: qa.qalpha_loss(FQ, x, 0.6)[0], PQ, ref_qalpha(FQ, PQ, 0.6), "p", rtol=1e-15)
vector_rows("qalpha_loss", lambda x: qa.qalpha_loss(FQ, PQ, x)[0], [0.6, 0.7, 1.0], ref_qalpha(FQ, PQ, [0.6, 0.7, 1.0]),
            "alpha", rtol=1e-7)
vector_rows("qalpha_dual", lambda x: qa.qalpha_dual(x, PQ, 0.6)[0], FQ, ref_qalpha(FQ, PQ, 0.6), "losses", rtol=1e-15)
vector_rows("hcvar", lambda x: qa.hcvar(x, PQ, 0.6), FQ, ref_qalpha(FQ, PQ, 0.6), "losses", rtol=1e-14)
vector_rows("F_alpha", lambda x: qa.F_alpha(x, 1.5, PQ, 0.6), FQ,
            ffloat(Fraction(3, 2) + sum(fr(p) / fr(0.6) * max(fr(f) - Fraction(3, 2), 0) for p, f in zip(PQ, FQ, strict=True))),
            "losses", rtol=1e-15)
FMU = math.fsum(p * (ref_softplus(f - 1.5, 0.1) / 0.6 + 1.5) for p, f in zip(PQ, FQ, strict=True))
vector_rows("F_mu", lambda x: qa.F_mu(x, 1.5, PQ, 0.6, 0.1), FQ, FMU, "losses", rtol=1e-14)
CWM = [ref_sigmoid((f - 1.5) / 0.1) / 0.6 for f in FQ]
vector_rows("client_weights_mu", lambda x: qa.client_weights_mu(x, 1.5, 0.6, 0.1), FQ, CWM, "losses", rtol=1e-14,
            torch_out=True)
for scale in (1e300, 1.7e308):  # overflowed in f - eta for entries of both signs near the float range
    f = [scale, -scale, 0.5 * scale]
    ref = ffloat(Fraction(2, 3) * fr(scale) + Fraction(1, 3) * fr(0.5 * scale))  # caps 2/3: top two entries
    row(f"qalpha_loss scale {scale:g}", lambda f=f: qa.qalpha_loss(f, [1 / 3] * 3, 0.5)[0], Value(ref, rtol=1e-15))
    row(f"qalpha_dual scale {scale:g}", lambda f=f: qa.qalpha_dual(f, [1 / 3] * 3, 0.5)[0], Value(ref, rtol=1e-15))
    row(f"hcvar scale {scale:g}", lambda f=f: qa.hcvar(f, [1 / 3] * 3, 0.5), Value(ref, rtol=1e-14))
    row(f"deviation 002 scale {scale:g}", lambda f=f: qa.deviation(f, [1 / 3] * 3, 0.5),
        Value(ffloat(fr(ref) - (fr(f[0]) + fr(f[1]) + fr(f[2])) / 3), rtol=1e-14))
    row(f"SmoothedQalpha value scale {scale:g}", lambda f=f: agg.SmoothedQalpha([1 / 3] * 3, 0.5, 1.0).value(f),
        Value(ref, rtol=1e-15))
    row(f"cvar aggregator scale {scale:g}", lambda f=f: agg.cvar(3, 0.5).value(f), Value(ref, rtol=1e-15))
    row(f"TERM value scale {scale:g}", lambda f=f: agg.TERM([1 / 3] * 3, 1.0).value(f),
        Value(ffloat(fr(scale)) + math.log(1 / 3), rtol=1e-15))
row("F_alpha does not fit", lambda: qa.F_alpha([1.7e308, -1.7e308, 1e308], 0.0, [1 / 3] * 3, 0.5), Raises(VE, "float64"))
row("F_mu far eta", lambda: qa.F_mu([1.0, 2.0, 3.0], -1.7e308, [1 / 3] * 3, 0.5, 1.0),
    Value(ffloat(fr(1.7e308) + Fraction(4))))
row("qalpha_loss ties", lambda: qa.qalpha_loss([2.0, 2.0, 2.0], [1 / 3] * 3, 0.5), Value((2.0, [1 / 3] * 3), rtol=1e-15))
row("qalpha_loss single client", lambda: qa.qalpha_loss([3.0], [1.0], 1.0), Value((3.0, [1.0])))
row("qalpha_loss AFL limit", lambda: qa.qalpha_loss(FQ, PQ, PQ)[0], Value(4.0))
row("qalpha_loss FedAvg limit", lambda: qa.qalpha_loss(FQ, PQ, 1.0)[0],
    Value(ffloat(sum(fr(p) * fr(f) for p, f in zip(PQ, FQ, strict=True)))))
row("qalpha_loss tiny", lambda: qa.qalpha_loss([1e-300, 3e-300, 2e-300], [1 / 3] * 3, 0.5)[0],
    Value(ref_qalpha([1e-300, 3e-300, 2e-300], [1 / 3] * 3, 0.5), rtol=1e-14))
row("hcvar conditional (002 Def. 2 counterexample)", lambda: qa.hcvar([0.0, 1.0], [0.5, 0.5], 0.75, "conditional"), Value(1.0))
row("hcvar ru same instance", lambda: qa.hcvar([0.0, 1.0], [0.5, 0.5], 0.75), Value(2 / 3, rtol=1e-15))
row("tau_alpha", lambda: qa.tau_alpha(PQ, [0.5, 0.5, 1.0]), Value(1.75))
row("tau_alpha alpha bool", lambda: qa.tau_alpha(PQ, True), Raises(TE, "alpha"))
row("tau_alpha alpha < p", lambda: qa.tau_alpha(PQ, 0.3), Raises(VE, "alpha"))
row("F_alpha eta inf", lambda: qa.F_alpha(FQ, float("inf"), PQ, 0.6), Raises(VE, "eta"))
row("F_alpha eta bool", lambda: qa.F_alpha(FQ, True, PQ, 0.6), Raises(TE, "eta"))
row("F_mu mu = 0", lambda: qa.F_mu(FQ, 0.0, PQ, 0.6, 0.0), Raises(VE, "mu"))
row("F_mu_grad", lambda: qa.F_mu_grad(FQ, 1.5, PQ, 0.6, 0.1),
    Value(([p / 0.6 * ref_sigmoid((f - 1.5) / 0.1) for p, f in zip(PQ, FQ, strict=True)],
           1 - math.fsum(p / 0.6 * ref_sigmoid((f - 1.5) / 0.1) for p, f in zip(PQ, FQ, strict=True))), rtol=1e-13))
row("client_weights_mu alpha bool", lambda: qa.client_weights_mu(FQ, 0.0, True, 1.0), Raises(TE, "alpha"))
row("client_weights_mu alpha list of bools", lambda: qa.client_weights_mu(FQ, 0.0, [True] * 3, 1.0), Raises(TE, "alpha"))
row("client_weights_mu alpha > 1", lambda: qa.client_weights_mu(FQ, 0.0, 1.5, 1.0), Raises(VE, "alpha"))
row("client_weights_mu far eta", lambda: qa.client_weights_mu(FQ, -1.7e308, 0.5, 1e-300), Value([2.0, 2.0, 2.0]))
if torch is not None:
    row("client_weights_mu numpy losses, tensor eta", lambda: qa.client_weights_mu(FQ, torch.tensor(1.5), 0.6, 0.1),
        Value(CWM, rtol=1e-14, torch=False))
    row("client_weights_mu eta bool tensor", lambda: qa.client_weights_mu(FQ, torch.tensor(True), 0.6, 0.1), Raises(VE, "eta"))

    def _cwm_grad() -> Any:
        x = torch.tensor(FQ, dtype=torch.float64, requires_grad=True)
        qa.client_weights_mu(x, 1.5, 0.6, 0.1).sum().backward()
        return x.grad

    row("client_weights_mu differentiable", _cwm_grad,
        Value([ref_sigmoid((f - 1.5) / 0.1) * (1 - ref_sigmoid((f - 1.5) / 0.1)) / 0.1 / 0.6 for f in FQ], rtol=1e-12))

# =============================================================================== TERM, stable kernels
vector_rows("term", lambda x: term(x, P3, 2.0), F3, ref_term(F3, P3, 2.0), "losses", rtol=1e-14)
row("term tiny tilt is the mean (was max f)", lambda: term([1.0, 2.0, 3.0], [1 / 3] * 3, 1e-300), Value(2.0, rtol=1e-15))
row("term huge tilt is the max", lambda: term([1.0, 2.0, 3.0], [1 / 3] * 3, 1e300), Value(3.0))
row("term both signs near max, small tilt", lambda: term([1.7e308, -1.7e308], [0.5, 0.5], 1e-308),
    Value(1.7e308 + math.log(0.5 * (1 + math.exp(-3.4))) / 1e-308, rtol=1e-14))
row("term t = 0", lambda: term(F3, P3, 0.0), Raises(VE, "t"))
row("term p shape", lambda: term(F3, [0.5, 0.5], 1.0), Raises(VE, "p"))
row("TERM aggregator tiny tilt", lambda: agg.TERM([1 / 3] * 3, 1e-300).value([1.0, 2.0, 3.0]), Value(2.0, rtol=1e-15))
vector_rows("softplus", lambda x: stable.softplus(x, 0.5), [-1.0, 0.0, 2.0], [ref_softplus(v, 0.5) for v in (-1.0, 0.0, 2.0)],
            "x", rtol=1e-15, nonfinite=False, torch_out=True, skip=("empty", "2-D"))
vector_rows("sigmoid", stable.sigmoid, [-1.0, 0.0, 2.0], [ref_sigmoid(v) for v in (-1.0, 0.0, 2.0)], "x", rtol=1e-15,
            nonfinite=False, torch_out=True, skip=("empty", "2-D"))
row("softplus +-inf limits", lambda: stable.softplus([-np.inf, np.inf]), Value([0.0, np.inf]))
row("softplus nan", lambda: stable.softplus([np.nan]), Raises(VE, "x"))
row("softplus huge", lambda: stable.softplus([1.7e308, -1.7e308], 1e-300), Value([1.7e308, 0.0]))
row("softplus mu bool", lambda: stable.softplus([1.0], True), Raises(TE, "mu"))
row("softplus list with bool", lambda: stable.softplus([1.0, True]), Raises(TE, "x"))
row("mul_pow no intermediate overflow", lambda: stable.mul_pow(1e-300, 1e200, 2.0), Value(1e100, rtol=1e-15))
row("mul_pow true overflow", lambda: stable.mul_pow(1.0, 1e200, 2.0), Value(math.inf))
row("times_pow2 beyond one float's exponent", lambda: stable.times_pow2(np.array([1.0]), -1074), Value([5e-324]))

# =============================================================================== sets
CAPS = [0.5, 0.5, 0.5]
VS = [1.0, 4.0, 2.0]
S3 = CappedSimplex(CAPS)
vector_rows("CappedSimplex.support", S3.support, VS, ref_support(VS, CAPS), "v", rtol=1e-15)
vector_rows("CappedSimplex.lower", S3.lower, VS, -ref_support([-v for v in VS], CAPS), "v", rtol=1e-15)
vector_rows("CappedSimplex.project", S3.project, [0.3, 0.9, -0.2], ref_project([0.3, 0.9, -0.2], CAPS), "v", rtol=1e-14)
vector_rows("CappedSimplex", lambda x: CappedSimplex(x).support(VS), CAPS, ref_support(VS, CAPS), "caps", rtol=1e-7)
row("project both signs near max (was wrong)", lambda: CappedSimplex([0.5] * 4).project([1.7e308, 0.2, 0.0, -1.7e308]),
    Value([0.5, 0.35, 0.15, 0.0], rtol=1e-14))
row("project ties near max (was zeros)", lambda: S3.project([1e308, 1e308, 1e308]), Value([1 / 3] * 3, rtol=1e-15))
row("project opposite signs near max", lambda: CappedSimplex.cvar(3, 0.5).project([1.7e308, 1.7e308, -1.7e308]),
    Value([0.5, 0.5, 0.0]))
row("support near max", lambda: CappedSimplex.cvar(3, 0.5).support([1.7e308, -1.7e308, 1e308]),
    Value(ffloat(Fraction(2, 3) * fr(1.7e308) + Fraction(1, 3) * fr(1e308)), rtol=1e-15))
row("support tiny", lambda: S3.support([1e-300, 4e-300, 2e-300]), Value(ref_support([1e-300, 4e-300, 2e-300], CAPS), rtol=1e-14))
row("support_many lists", lambda: S3.support_many([VS, [0.0, 0.0, 1.0]]), Value([ref_support(VS, CAPS), 0.5], rtol=1e-15))
row("support_many near max", lambda: S3.support_many(np.array([[1.7e308, 1.7e308, 1.7e308]])), Value([1.7e308]))
row("support_many bool", lambda: S3.support_many(np.ones((2, 3), dtype=bool)), Raises(TE, "V"))
row("support_many nan", lambda: S3.support_many([[1.0, np.nan, 0.0]]), Raises(NF, "V"))
row("support_many wrong length", lambda: S3.support_many([[1.0, 2.0]]), Raises(VE, "V"))
if torch is not None:
    row("support_many torch requires_grad", lambda: S3.support_many(torch.ones(2, 3, dtype=torch.float64, requires_grad=True)),
        Value([1.0, 1.0]))
row("argmax ties share mass", lambda: S3.argmax([1.0, 1.0, 1.0]), Value([1 / 3] * 3, rtol=1e-15))
row("threshold", lambda: S3.threshold(VS), Value(2.0))
row("contains", lambda: S3.contains([0.5, 0.5, 0.0]), Value(True))
row("contains tol negative", lambda: S3.contains([0.5, 0.5, 0.0], tol=-1.0), Raises(VE, "tol"))
row("simplex n bool", lambda: CappedSimplex.simplex(True), Raises(TE, "n"))
row("cvar a = 0", lambda: CappedSimplex.cvar(3, 0.0), Raises(VE, "a"))
row("qalpha caps", lambda: CappedSimplex.qalpha(PQ, 0.5).caps, Value([1.0, 0.5, 0.5]))
row("vertices single client", lambda: CappedSimplex([1.0]).vertices(), Value([[1.0]]))
I3 = IntegratedSet(S3, CappedSimplex.simplex(3), 0.5)
# (sigma_A(v) - phi min v)/(1 - phi) and (min_A v - phi max v)/(1 - phi) with phi = 1/2, B the simplex
row("IntegratedSet.support", lambda: I3.support(VS), Value(ffloat((fr(ref_support(VS, CAPS)) - Fraction(1, 2)) * 2)))
row("IntegratedSet.lower", lambda: I3.lower(VS), Value(ffloat((-fr(ref_support([-v for v in VS], CAPS)) - 2) * 2)))
row("IntegratedSet.support does not fit", lambda: IntegratedSet(S3, S3, 0.5).support([1.7e308, 1.7e308, 0.0]),
    Raises(VE, "float64"))
row("IntegratedSet.support list of bools", lambda: I3.support([True, False, True]), Raises(TE, "v"))
row("IntegratedSet phi bool", lambda: IntegratedSet(S3, S3, True), Raises(TE, "phi"))

# =============================================================================== aggregators
P2 = [0.5, 0.5]
row("QFFL value huge", lambda: agg.QFFL([1 / 3] * 3, 2.0).value([1e100, 1e50, 1.0]),
    Value(ref_qffl([1e100, 1e50, 1.0], 2, [1 / 3] * 3), rtol=1e-14))
row("QFFL weights do not fit", lambda: agg.QFFL([1 / 3] * 3, 2.0).weights([1e200, 1.0, 1.0]), Raises(VE, "float64"))
row("QFFL weights huge with tiny weight", lambda: agg.QFFL([1e-300, 1 - 1e-300], 2.0).weights([1e150, 1.0]),
    Value([ffloat(fr(1e-300) * fr(1e150) ** 2), 1.0], rtol=1e-14))
row("QFFL curvature list (was TypeError)", lambda: agg.QFFL([1 / 3] * 3, 2.0).curvature([1.0, 2.0, 3.0]),
    Value([2 / 3, 4 / 3, 2.0], rtol=1e-15))
row("QFFL curvature at 0", lambda: agg.QFFL(P2, 0.5).curvature([0.0, 0.0]), Value([0.0, 0.0]))
row("QFFL curvature bool", lambda: agg.QFFL(P2, 0.5).curvature(np.array([True, False])), Raises(TE, "f"))
row("QFFL value negative", lambda: agg.QFFL(P2, 1.0).value([-1.0, 1.0]), Raises(VE, "f[0]"))
row("QFFL offset < 0", lambda: agg.QFFL(P2, 1.0, offset=-1.0), Raises(VE, "offset"))
vector_rows("QFFL.value", agg.QFFL(P3, 1.0).value, F3, ref_qffl(F3, 1, P3), "f")
vector_rows("QFFL.weights", agg.QFFL(P3, 1.0).weights, F3, [p * f for p, f in zip(P3, F3, strict=True)], "f", torch_out=True)
vector_rows("TERM.value", agg.TERM(P3, 2.0).value, F3, ref_term(F3, P3, 2.0), "f", rtol=1e-14)
vector_rows("fedavg.value", agg.fedavg(P3).value, F3, ffloat(sum(fr(p) * fr(f) for p, f in zip(P3, F3, strict=True))), "f",
            rtol=1e-15)
vector_rows("afl.value", agg.afl(3).value, F3, 3.0, "f")
vector_rows("SmoothedQalpha.value", agg.SmoothedQalpha(P3, 0.6, 0.1).value, F3, ref_smoothed(F3, P3, 0.6, 0.1), "f", rtol=1e-10)
# issue 18 sweep: losses and mu of order 1e-20 (A_{s mu}(s f) = s A_mu(f)): the eta bracket's absolute tolerance
# 1e-15 exceeded the bracket and returned eta = max f (28% off)
for _s in (1e-300, 1e-20, 1e20, 1e300):
    row(f"SmoothedQalpha.value scale {_s:g}", lambda s=_s: agg.SmoothedQalpha(P3, 0.6, 0.1 * s).value([x * s for x in F3]),
        Value(ref_smoothed(F3, P3, 0.6, 0.1) * _s, rtol=1e-10))
row("TERM weights near max", lambda: agg.TERM([1 / 3] * 3, 1.0).weights([1.7e308, -1.7e308, 1e308]), Value([1.0, 0.0, 0.0]))
row("SmoothedQalpha weights near max", lambda: agg.SmoothedQalpha([1 / 3] * 3, 0.5, 1.0).weights([1.7e308, -1.7e308, 1e308]),
    Value([2 / 3, 0.0, 1 / 3], rtol=1e-15))
row("SmoothedQalpha mu = 0", lambda: agg.SmoothedQalpha(P2, 0.6, 0.0), Raises(VE, "mu"))
row("SmoothedQalpha alpha list of bools", lambda: agg.SmoothedQalpha(P2, [True, True], 0.1), Raises(TE, "alpha"))
row("TERM t nan", lambda: agg.TERM(P2, float("nan")), Raises(VE, "t"))
row("as_aggregator None", lambda: agg.as_aggregator(None, 3), Raises(TE, "aggregator"))
row("as_aggregator wrong n", lambda: agg.as_aggregator(S3, 4), Raises(VE, "aggregator"))
row("SetSupport not a set", lambda: agg.SetSupport([1.0, 0.0]), Raises(TE, "S"))
row("integrated phi = 1", lambda: agg.integrated(S3, S3, 1.0), Raises(VE, "phi"))
if torch is not None:
    row("aggregator weights torch int", lambda: agg.fedavg(P3).weights(torch.tensor([1, 2, 3])), Value(P3, torch=True))
    row("aggregator value torch nan", lambda: agg.TERM(P3, 1.0).value(torch.tensor([1.0, float("nan"), 2.0])), Raises(NF, "f"))

# =============================================================================== relative fairness (001)
A4 = CappedSimplex.cvar(4, 0.5)
F4 = [1.0, 2.0, 3.0, 4.0]
UV = (ffloat(ref_tail_mean(F4, 0.5, True)), ffloat(ref_tail_mean(F4, 0.5, False)))
vector_rows("relative_index", lambda x: rel.relative_index(x, A4, A4), F4, UV[0] / UV[1], "losses", rtol=1e-15)
vector_rows("discrepancy", lambda x: rel.discrepancy(x, A4, A4, 0.5), F4, UV[0] - 0.5 * UV[1], "losses", rtol=1e-15)
row("unfairness_parts", lambda: rel.unfairness_parts(F4, A4, A4), Value(UV))
row("relative_index V = 0", lambda: rel.relative_index([0.0, 0.0, 3.0, 4.0], A4, A4), Raises(VE, "Assumption 1"))
row("relative_index does not fit", lambda: rel.relative_index([1e-320, 1e-320, 1e300, 1e300], A4, A4), Raises(VE, "float64"))
row("relative_index A not a set", lambda: rel.relative_index(F4, [0.5] * 4, A4), Raises(TE, "A"))
row("relative_index n mismatch", lambda: rel.relative_index(F4, A4, S3), Raises(VE, "A and B"))
row("discrepancy phi = 1", lambda: rel.discrepancy(F4, A4, A4, 1.0), Raises(VE, "phi"))
row("prop9_bounds scalar", lambda: rel.prop9_bounds(3.0, 1.5, 0.5, 1.0, 2.0), Value((0.5 + 2.25 / 2.0, 0.5 + 2.25 / 1.0)))
row("prop9_bounds list phi", lambda: rel.prop9_bounds(3.0, 1.5, [0.0, 0.5], 1.0, 2.0), Value(([1.5, 1.625], [3.0, 2.75])))
row("prop9_bounds phi bool", lambda: rel.prop9_bounds(3.0, 1.5, True, 1.0, 2.0), Raises(TE, "phi"))
row("prop9_bounds phi bool list", lambda: rel.prop9_bounds(3.0, 1.5, [True, False], 1.0, 2.0), Raises(TE, "phi"))
row("prop9_bounds phi nan", lambda: rel.prop9_bounds(3.0, 1.5, [0.5, np.nan], 1.0, 2.0), Raises(NF, "phi"))
row("prop9_bounds V outside [c, C]", lambda: rel.prop9_bounds(3.0, 5.0, 0.5, 1.0, 2.0), Raises(VE, "V"))
row("prop9_bounds does not fit", lambda: rel.prop9_bounds(1e308, 1e-300, 0.0, 1e-300, 1e-300), Raises(VE, "float64"))
row("lemma8_bound", lambda: rel.lemma8_bound(1.0, 4.0, 0.2), Value((1.0 - 0.8) / 0.8, rtol=1e-15))
row("lemma8_bound L < mu", lambda: rel.lemma8_bound(1.0, 0.5, 0.2), Raises(VE, "L"))
row("skewness simplex", lambda: rel.skewness(CappedSimplex.simplex(3)), Value(3.0))
row("skewness not a set", lambda: rel.skewness("simplex"), Raises(TE, "S"))
row("relative_index_at not a problem", lambda: rel.relative_index_at(object(), [0.0], A4, A4), Raises(TE, "problem"))

# =============================================================================== bounds: rcfl (002)
row("lemma_c1_L", lambda: brc.lemma_c1_L(1.0, 2.0, 0.5, [0.5, 0.25]), Value((1 + 5 / 0.5) * 4))
row("lemma_c1_L huge", lambda: brc.lemma_c1_L(0.0, 1e200, 1e300, 0.5),
    Value(ffloat((fr(1e200) ** 2 + 1) / fr(1e300) * 2), rtol=1e-14))
row("lemma_c1_L does not fit (was OverflowError)", lambda: brc.lemma_c1_L(1e300, 1e300, 1e-300, 0.5), Raises(VE, "float64"))
row("lemma_c1_L alpha bool", lambda: brc.lemma_c1_L(1.0, 1.0, 1.0, True), Raises(TE, "alpha"))
row("lemma_c1_L alpha bool list", lambda: brc.lemma_c1_L(1.0, 1.0, 1.0, [True, True]), Raises(TE, "alpha"))
row("lemma_c1_L alpha 0", lambda: brc.lemma_c1_L(1.0, 1.0, 1.0, [0.5, 0.0]), Raises(VE, "alpha"))
row("lemma_c1_L mu nan", lambda: brc.lemma_c1_L(1.0, 1.0, float("nan"), 0.5), Raises(VE, "mu"))
if torch is not None:
    row("lemma_c1_L alpha torch requires_grad",
        lambda: brc.lemma_c1_L(1.0, 1.0, 1.0, torch.tensor([0.5, 0.25], requires_grad=True)), Value(12.0))
row("theorem1_lr_max", lambda: brc.theorem1_lr_max(2.0, 3), Value(min(1 / 80, 1 / (math.sqrt(6) * 2 * 2)), rtol=1e-15))
row("theorem1_lr_max does not fit", lambda: brc.theorem1_lr_max(1e-320, 3), Raises(VE, "float64"))
row("theorem1_lr_max kappa 0", lambda: brc.theorem1_lr_max(1.0, 0), Raises(VE, "kappa"))
row("theorem1_lr_max kappa float", lambda: brc.theorem1_lr_max(1.0, 2.0), Raises(TE, "kappa"))
row("theorem2_lr_max", lambda: brc.theorem2_lr_max(1.0, 1, 2), Value(1 / (20 * 3.5), rtol=1e-15))
row("theorem1_step_ok", lambda: brc.theorem1_step_ok(1.0, 1 / 40, 1), Value(True))
row("theorem2_step_ok K bool", lambda: brc.theorem2_step_ok(1.0, 0.01, 1, True), Raises(TE, "K"))
KW = {"dist0_sq": 2.0, "lr": 0.01, "T": 12, "kappa": 2, "L": 3.0, "rho2": 0.5, "mu": 0.1, "tau_alpha": 1.5}
row("theorem1_terms 002", lambda: brc.theorem1_terms(**KW),
    Value({"init": 2 * 2.0 / (0.01 * 6), "hetero": 26 * 3.0 * 0.01 ** 2 * 1 * 2 * 0.5, "smooth": 0.15}, rtol=1e-14))
row("theorem1_terms 000", lambda: brc.theorem1_terms(**{**KW, "version": "000"}),
    Value({"init": 2 * 2.0 / (0.01 * 12), "hetero": 26 * 3.0 * 0.01 ** 2 * 1 * 0.5, "smooth": 0.15}, rtol=1e-14))
row("theorem1_terms tiny lr, huge L (hetero was 0)",
    lambda: brc.theorem1_terms(**{**KW, "lr": 1e-200, "L": 1e200})["hetero"],
    Value(ffloat(26 * fr(1e200) * fr(1e-200) ** 2 * 2 * fr(0.5)), rtol=1e-14))
row("theorem1_terms init does not fit", lambda: brc.theorem1_terms(**{**KW, "lr": 1e-320}), Raises(VE, "float64"))
row("theorem1_terms version", lambda: brc.theorem1_terms(**{**KW, "version": "001"}), Raises(VE, "version"))
row("theorem1_terms rho2 < 0", lambda: brc.theorem1_terms(**{**KW, "rho2": -1.0}), Raises(VE, "rho2"))
row("theorem1_terms tau_alpha < 1", lambda: brc.theorem1_terms(**{**KW, "tau_alpha": 0.5}), Raises(VE, "tau_alpha"))
row("theorem1_bound", lambda: brc.theorem1_bound(**KW), Value(2 * 2.0 / 0.06 + 26 * 3 * 1e-4 * 2 * 0.5 + 0.15, rtol=1e-14))
row("theorem2_terms sampling", lambda: brc.theorem2_terms(K=2, **KW)["sampling"], Value(12 / 2 * 0.01 * 4 * 0.5, rtol=1e-14))
row("theorem2_bound K = 0", lambda: brc.theorem2_bound(K=0, **KW), Raises(VE, "K"))

# =============================================================================== bounds: FedFV (004)
UA = [[1.0, 0.0], [-1.0, 1.0]]  # 004 MIN_ABSOLUTE: gbar' = (1/4, 3/4)
row("conflicts MIN_ABSOLUTE", lambda: bfv.conflicts(UA), Value([0.25, 0.5]))
UR = [[1.0, 2.0, -1.0], [-2.0, 0.5, 1.0], [0.5, -1.0, -2.0]]
row("conflicts random", lambda: bfv.conflicts(UR), Value(ref_conflicts(UR), rtol=1e-13, atol=1e-15))
row("conflicts int array", lambda: bfv.conflicts(np.array([[1, 0], [-1, 1]])), Value([0.25, 0.5]))
row("theorem1_bound random", lambda: bfv.theorem1_bound(UR, 0.5), Value(ref_theorem1_bound(UR, 0.5), rtol=1e-13))
for scale in (1e150, 1e-150):
    row(f"theorem1_bound scale {scale:g}", lambda scale=scale: bfv.theorem1_bound([[scale * x for x in r] for r in UR], 0.5),
        Value([scale * scale * b for b in ref_theorem1_bound(UR, 0.5)], rtol=1e-13))
    row(f"epsilons scale {scale:g}", lambda scale=scale: bfv.epsilons([[scale * x for x in r] for r in UA]),
        Value((math.sqrt(0.5), math.sqrt(0.5)), rtol=1e-15))
row("theorem1_bound 1e300 does not fit (was nan)", lambda: bfv.theorem1_bound([[1e300, 0.0], [-1e300, 1e300]]),
    Raises(VE, "float64"))
row("theorem2_bound 1e300 does not fit", lambda: bfv.theorem2_bound([[1e300, 0.0], [-1e300, 1e300]]), Raises(VE, "float64"))
row("conflicts 1e300 does not fit", lambda: bfv.conflicts([[1e300, 0.0], [-1e300, 1e300]]), Raises(VE, "float64"))
row("sequential_projections 1e300", lambda: bfv.sequential_projections([[1e300, 0.0], [-1e300, 1e300]])[-1],
    Value([[5e299, 5e299], [0.0, 1e300]], rtol=1e-15))
row("all_steps_conflict 1e300", lambda: bfv.all_steps_conflict([[1e300, 0.0], [-1e300, 1e300]]), Value(True))
row("theorem2_f", lambda: bfv.theorem2_f(3, 1, 0.6, 0.8),
    Value(0.64 * 0.8 * (1 - 0.8 ** 2) / (1 - 0.8), rtol=1e-14))
row("theorem2_f eps1 = 0 limit", lambda: bfv.theorem2_f(4, 1, 0.0, 0.5), Value(0.25 * 3))
row("theorem2_f k > m", lambda: bfv.theorem2_f(3, 4, 0.1, 0.5), Raises(VE, "k"))
row("theorem2_f eps2 < eps1", lambda: bfv.theorem2_f(3, 1, 0.5, 0.1), Raises(VE, "eps2"))
row("theorem1_bound eps > 1", lambda: bfv.theorem1_bound(UA, 1.5), Raises(VE, "eps"))
for label, make, err in malformed(2):
    if label in ("empty", "string", "None", "ragged", "bool numpy", "bool list", "nan", "+inf", "complex"):
        row(f"conflicts U: {label}", lambda make=make: bfv.conflicts(make()), Raises(err, "U"))
row("conflicts U 1-D", lambda: bfv.conflicts([1.0, 2.0]), Raises(VE, "U"))
row("conflicts U bool 2-D", lambda: bfv.conflicts(np.ones((2, 2), dtype=bool)), Raises(TE, "U"))
if torch is not None:
    row("conflicts torch requires_grad", lambda: bfv.conflicts(torch.tensor(UA, requires_grad=True)), Value([0.25, 0.5]))

# =============================================================================== bounds: generalization (002)
row("theorem3_concentration", lambda: gen.theorem3_concentration([0.5, 0.5], 0.5, [10, 20], 0.05, 2.0),
    Value(2.0 * math.sqrt((0.25 / (2 * 0.25 * 10) + 0.25 / (2 * 0.25 * 20)) * math.log(20)), rtol=1e-14))
row("theorem3_concentration tiny delta", lambda: gen.theorem3_concentration([1.0], 1.0, [2], 1e-320),
    Value(math.sqrt(-math.log(1e-320) / 4), rtol=1e-14))
row("theorem4_concentration tiny delta", lambda: gen.theorem4_concentration([1.0], 1.0, [2], 1e-320),
    Value(math.sqrt((math.log(2) - math.log(1e-320)) / 4), rtol=1e-14))
row("theorem3_bound lists", lambda: gen.theorem3_bound([0.1, 0.2], [1.0], 1.0, [8], 0.5, 0.05),
    Value([0.1 + 0.1 + math.sqrt(math.log(2) / 16), 0.2 + 0.1 + math.sqrt(math.log(2) / 16)], rtol=1e-14))
row("theorem3_bound fhat bool", lambda: gen.theorem3_bound(np.array([True]), [1.0], 1.0, [3], 0.1, 0.1),
    Raises(TE, "fhat_alpha"))
row("theorem3_bound fhat nan", lambda: gen.theorem3_bound([np.nan], [1.0], 1.0, [3], 0.1, 0.1), Raises(NF, "fhat_alpha"))
row("theorem3_bound does not fit", lambda: gen.theorem3_bound([1.7e308], [0.5, 0.5], 0.5, [3, 3], 0.1, 0.1),
    Raises(VE, "float64"))
row("theorem4_bound rademacher_each bool", lambda: gen.theorem4_bound([0.1], [1.0], 1.0, [3], 0.1, [True]),
    Raises(TE, "rademacher_each"))
row("qalpha_values bool", lambda: gen.qalpha_values(np.array([[True, False]]), P2, 0.7), Raises(TE, "F"))
row("qalpha_values lists", lambda: gen.qalpha_values([[1.0, 3.0], [2.0, 0.0]], P2, 0.5), Value([3.0, 2.0]))
if torch is not None:
    row("qalpha_values torch requires_grad", lambda: gen.qalpha_values(torch.ones(2, 2, requires_grad=True), P2, 0.7),
        Value([1.0, 1.0]))
    row("theorem3_bound torch",
        lambda: gen.theorem3_bound(torch.tensor([0.1], dtype=torch.float64, requires_grad=True), [1.0], 1.0, [8], 0.5, 0.05),
        Value([0.1 + 0.1 + math.sqrt(math.log(2) / 16)], rtol=1e-14))
row("rademacher_coefficients", lambda: gen.rademacher_coefficients(P2, 0.5, [10, 20]), Value([0.1, 0.05]))
row("rademacher_coefficients m float", lambda: gen.rademacher_coefficients(P2, 0.5, [10.0, 20.0]), Raises(TE, "m"))
row("rademacher_coefficients m bool", lambda: gen.rademacher_coefficients(P2, 0.5, [True, True]), Raises(TE, "m"))
row("rademacher_coefficients m = 0", lambda: gen.rademacher_coefficients(P2, 0.5, [0, 3]), Raises(VE, "m"))
row("remark3_vc_bound", lambda: gen.remark3_vc_bound([1.0], 1.0, [100], 2),
    Value(math.sqrt(4 * math.log(math.e * 50) / 100), rtol=1e-14))
row("remark3_vc_bound m < d", lambda: gen.remark3_vc_bound([1.0], 1.0, [1], 2), Raises(VE, "d"))
row("clopper_pearson k = 0", lambda: gen.clopper_pearson(0, 10, 0.95), Value((0.0, 1 - 0.025 ** 0.1), rtol=1e-12))
row("clopper_pearson k = N", lambda: gen.clopper_pearson(10, 10, 0.95), Value((0.025 ** 0.1, 1.0), rtol=1e-12))
row("clopper_pearson k > N", lambda: gen.clopper_pearson(11, 10), Raises(VE, "k"))
row("clopper_pearson confidence 1", lambda: gen.clopper_pearson(1, 10, 1.0), Raises(VE, "confidence"))
row("RademacherEstimate.upper z bool", lambda: gen.RademacherEstimate(1.0, 0.1, 10).upper(True), Raises(TE, "z"))
row("RademacherEstimate.lower", lambda: gen.RademacherEstimate(1.0, 0.1, 10).lower(2.0), Value(0.8, rtol=1e-15))
row("weighted_rademacher rng None", lambda: gen.weighted_rademacher(object(), [3], [1.0], None), Raises(TE, "rng"))
row("weighted_rademacher population", lambda: gen.weighted_rademacher(object(), [3], [1.0], np.random.default_rng(0)),
    Raises(TE, "population"))

# =============================================================================== backend
row("as_array lists", lambda: backend.as_array([[1, 2], [3, 4]], "X"), Value([[1.0, 2.0], [3.0, 4.0]]))
row("as_array bool", lambda: backend.as_array([[True]], "X"), Raises(TE, "X"))
row("as_array inf", lambda: backend.as_array([[1.0, np.inf]], "X"), Raises(NF, "X"))
row("as_array inf allowed", lambda: backend.as_array([np.inf], "X", finite=False), Value([np.inf]))
row("as_array ndim", lambda: backend.as_array([1.0], "X", ndim=2), Raises(VE, "X"))
row("as_float list", lambda: backend.as_float([1, 2], "y"), Value([1.0, 2.0], torch=False))
row("namespace of a list", lambda: backend.namespace([1.0, 2.0]).__name__.endswith("numpy"), Value(True))
row("like int reference gives float64", lambda: backend.like([0.25, 0.5], np.array([1, 2])), Value([0.25, 0.5]))
row("to_numpy list", lambda: backend.to_numpy([1, 2]), Value([1, 2]))
row("scatter_add", lambda: backend.scatter_add(2, [0, 1, 0], np.array([1.0, 2.0, 3.0])), Value([4.0, 2.0]))
if torch is not None:
    row("as_float torch int", lambda: backend.as_float(torch.tensor([1, 2]), "y").dtype == torch.float64, Value(True))
    row("as_float torch nan", lambda: backend.as_float(torch.tensor([1.0, float("nan")]), "y"), Raises(NF, "y"))
    row("like int tensor reference", lambda: backend.like(np.array([0.25]), torch.tensor([1])), Value([0.25], torch=True))
    row("as_array meta tensor", lambda: backend.as_array(torch.ones(2, device="meta"), "X"), Raises(TE, "X"))
    row("qffl_value meta tensor", lambda: qf.qffl_value(torch.ones(2, device="meta"), 1.0), Raises(TE, "losses"))

# =============================================================================== testing kit
row("probability_vectors n = 0", lambda: strat.probability_vectors(n=0), Raises(VE, "n"))
row("probability_vectors n bool", lambda: strat.probability_vectors(n=True), Raises(TE, "n"))
row("probability_vectors allow_zeros int", lambda: strat.probability_vectors(allow_zeros=1), Raises(TE, "allow_zeros"))
row("loss_vectors min > max", lambda: strat.loss_vectors(min_value=2.0, max_value=1.0), Raises(VE, "min_value"))
row("loss_vectors max inf", lambda: strat.loss_vectors(max_value=float("inf")), Raises(VE, "max_value"))
row("loss_vectors span overflows", lambda: strat.loss_vectors(min_value=-1e308, max_value=1e308), Raises(VE, "max_value"))
row("loss_vectors ties string", lambda: strat.loss_vectors(ties="yes"), Raises(TE, "ties"))
row("qalpha_instances min_n > max_n", lambda: strat.qalpha_instances(min_n=5, max_n=2), Raises(VE, "min_n"))
row("capped_simplices max_n float", lambda: strat.capped_simplices(max_n=3.0), Raises(TE, "max_n"))
row("integrated_sets n = -1", lambda: strat.integrated_sets(n=-1), Raises(VE, "n"))


def _mean_agg(f: Any) -> float:
    return float(np.mean(f))


row("check_monotone holds", lambda: props.check_monotone(_mean_agg, [1, 2], [0.5, 0]), Value(None))
row("check_monotone violated", lambda: props.check_monotone(lambda f: -float(np.sum(f)), [1.0, 2.0], [1.0, 0.0]),
    Raises(AssertionError, "not monotone"))
row("check_monotone aggregator not callable", lambda: props.check_monotone("mean", [1.0], [1.0]), Raises(TE, "aggregator"))
row("check_monotone increase overflows", lambda: props.check_monotone(_mean_agg, [1.7e308], [1.7e308]), Raises(VE, "increase"))
row("check_monotone increase shape", lambda: props.check_monotone(_mean_agg, [1.0, 2.0], [1.0]), Raises(VE, "increase"))
row("check_translation_equivariant shift inf", lambda: props.check_translation_equivariant(_mean_agg, [1.0], float("inf")),
    Raises(VE, "shift"))
row("check_translation_equivariant overflows", lambda: props.check_translation_equivariant(_mean_agg, [1.7e308], 1e308),
    Raises(VE, "shift"))
row("check_positively_homogeneous scale < 0", lambda: props.check_positively_homogeneous(_mean_agg, [1.0], -1.0),
    Raises(VE, "scale"))
row("check_positively_homogeneous holds", lambda: props.check_positively_homogeneous(_mean_agg, (1, 3), 2.0), Value(None))
row("check_convex_in_losses t > 1", lambda: props.check_convex_in_losses(_mean_agg, [1.0], [2.0], 1.5), Raises(VE, "t"))
row("check_convex_in_losses g bool", lambda: props.check_convex_in_losses(_mean_agg, [1.0], [True], 0.5), Raises(TE, "g"))
row("check_between_mean_and_max p", lambda: props.check_between_mean_and_max(_mean_agg, [1.0, 2.0], [0.5, 0.6]),
    Raises(VE, "p"))
row("check_between_mean_and_max holds", lambda: props.check_between_mean_and_max(_mean_agg, [1.0, 2.0], [0.5, 0.5]),
    Value(None))

# =============================================================================== instances (input checks)
row("qalpha_closed_form", lambda: irc.qalpha_closed_form(p=PQ, alpha=0.6, losses=FQ)[:2],
    Value((ref_qalpha(FQ, PQ, 0.6), ref_qalpha(FQ, PQ, 0.6)), rtol=1e-9))
row("qalpha_closed_form losses bool", lambda: irc.qalpha_closed_form(p=PQ, alpha=0.6, losses=[True] * 3), Raises(TE, "losses"))
row("qalpha_limit afl ints", lambda: irc.qalpha_limit(p=PQ, losses=[1, 4, 2], limit="afl")[:2], Value((4.0, 4.0)))
row("qalpha_limit bad limit", lambda: irc.qalpha_limit(p=PQ, losses=FQ, limit="max"), Raises(VE, "limit"))
row("qalpha_limit p bool", lambda: irc.qalpha_limit(p=[True, False], losses=[1.0, 2.0], limit="afl"), Raises(TE, "p"))
row("lemma1_dual alpha bool", lambda: irc.lemma1_dual(p=PQ, alpha=True, losses=FQ), Raises(TE, "alpha"))
row("lemma1_dual alpha wrong length", lambda: irc.lemma1_dual(p=PQ, alpha=[0.6, 0.7], losses=FQ), Raises(VE, "alpha"))
row("lemma1_dual", lambda: irc.lemma1_dual(p=PQ, alpha=0.6, losses=FQ)[:2],
    Value((ref_qalpha(FQ, PQ, 0.6), ref_qalpha(FQ, PQ, 0.6)), rtol=1e-15))
row("lemma1_hcvar losses nan", lambda: irc.lemma1_hcvar(p=PQ, alpha=0.6, losses=[1.0, np.nan, 2.0]), Raises(NF, "losses"))
row("remark1_cvar chi = 0", lambda: irc.remark1_cvar(p=PQ, chi=0.0, losses=FQ), Raises(VE, "chi"))
row("remark2_eta B = 0", lambda: irc.remark2_eta(p=PQ, alpha=0.6, losses=FQ, B=0.0), Raises(VE, "B"))
row("remark2_eta", lambda: irc.remark2_eta(p=PQ, alpha=0.6, losses=FQ, B=4.0)[:2], Value((0.25, 1.0)))
row("ru_cvar_reference beta = 1", lambda: irc.ru_cvar_reference([1.0, 2.0], [0.5, 0.5], 1.0), Raises(VE, "beta"))
row("ru_cvar_reference", lambda: irc.ru_cvar_reference([1.0, 2.0], [0.5, 0.5], 0.5), Value(2.0))
row("smoothness_of_softplus mu = 0", lambda: irc.smoothness_of_softplus(mu=0.0, x=[0.0]), Raises(VE, "mu"))
row("prop1_softplus x bool", lambda: irc.prop1_softplus(mu=1.0, x=[True]), Raises(TE, "x"))
row("prop1_softplus", lambda: irc.prop1_softplus(mu=0.5, x=[-1.0, 0.0, 1.0])[:2], Value((0.5 * math.log(2), 0.5), rtol=1e-15))
row("lemma2_gap eta nan", lambda: irc.lemma2_gap(p=PQ, alpha=0.6, losses=FQ, eta=float("nan"), mu=0.1), Raises(VE, "eta"))
row("lemma2_gap mu < 0", lambda: irc.lemma2_gap(p=PQ, alpha=0.6, losses=FQ, eta=0.0, mu=-0.1), Raises(VE, "mu"))
row("lemma10 Hoelder", lambda: iqf.lemma10(F=[3, 4], lam=[1, 0], q=1.0)[:2], Value((3.0, 5.0), rtol=1e-15))
row("lemma10 lam shape", lambda: iqf.lemma10(F=[3.0, 4.0], lam=[1.0], q=1.0), Raises(VE, "lam"))
row("lemma10 F bool", lambda: iqf.lemma10(F=[True, False], lam=[1.0, 0.0], q=1.0), Raises(TE, "F"))
row("lemma10 q < 0", lambda: iqf.lemma10(F=[3.0, 4.0], lam=[1.0, 0.0], q=-1.0), Raises(VE, "q"))
row("lemma12 by hand", lambda: iqf.lemma12(loss=2.0, grad=[1.0], hess=[[1.0]], L=1.0, q=1.0)[:2], Value((3.0, 3.0)))
row("lemma12 hess shape", lambda: iqf.lemma12(loss=2.0, grad=[1.0, 0.0], hess=[[1.0]], L=1.0, q=1.0), Raises(VE, "hess"))
row("lemma12 loss negative", lambda: iqf.lemma12(loss=-2.0, grad=[1.0], hess=[[1.0]], L=1.0, q=1.0), Raises(VE, "loss"))
row("lemma12 grad nan", lambda: iqf.lemma12(loss=2.0, grad=[np.nan], hess=[[1.0]], L=1.0, q=1.0), Raises(NF, "grad"))
row("theorem1_conflict MIN_ABSOLUTE absolute", lambda: ifv.theorem1_conflict(grads=ifv.MIN_ABSOLUTE, k=2, version="absolute")[:2],
    Value((0.5, 0.0)))
row("last_target MIN_LAST_TARGET", lambda: ifv.last_target(grads=ifv.MIN_LAST_TARGET.tolist())[0], Value(-1 / 29, rtol=1e-14))
row("theorem1_conflict grads bool", lambda: ifv.theorem1_conflict(grads=np.ones((2, 2), dtype=bool), k=1), Raises(TE, "grads"))
row("theorem1_conflict grads inf", lambda: ifv.theorem1_conflict(grads=[[1.0, np.inf], [0.0, 1.0]], k=1), Raises(NF, "grads"))
row("theorem1_conflict k > m", lambda: ifv.theorem1_conflict(grads=ifv.MIN_ABSOLUTE, k=3), Raises(VE, "k"))
row("projection_step target 0", lambda: ifv.projection_step(grads=ifv.MIN_ABSOLUTE, target=0), Raises(VE, "target"))
row("alpha_limit alpha bool", lambda: ifv.alpha_limit(grads=ifv.MIN_ABSOLUTE, losses=[1.0, 2.0], alpha=True), Raises(TE, "alpha"))
row("alpha_limit losses shape", lambda: ifv.alpha_limit(grads=ifv.MIN_ABSOLUTE, losses=[1.0], alpha=1.0), Raises(VE, "losses"))
row("alpha_limit alpha 0.5", lambda: ifv.alpha_limit(grads=ifv.MIN_ABSOLUTE, losses=[1.0, 2.0], alpha=0.5), Raises(VE, "alpha"))
row("theorem3_descent theta shape", lambda: ifv.theorem3_descent(**{**ifv.MIN_THEOREM3_DESCENT, "theta": [0.0]}),
    Raises(VE, "theta"))
row("theorem3_descent H1 bool",
    lambda: ifv.theorem3_descent(**{**ifv.MIN_THEOREM3_DESCENT, "H1": [[True, False], [False, True]]}), Raises(TE, "H1"))
row("pareto_two_client theta0 nan", lambda: ifv.pareto_two_client(**{**ifv.MIN_THEOREM3_PARETO, "theta0": [np.nan, 0.0]}, T=1),
    Raises(NF, "theta0"))
row("prop9_majorization c_factor > 1", lambda: irel.prop9_majorization(losses=F4, A=A4, B=A4, c_factor=2.0, C_factor=2.0,
                                                                          phis=[0.0]), Raises(VE, "c_factor"))
row("prop9_majorization phis bool", lambda: irel.prop9_majorization(losses=F4, A=A4, B=A4, c_factor=0.5, C_factor=2.0,
                                                                       phis=[True]), Raises(TE, "phis"))
row("worst_step one value", lambda: irel.worst_step([1.0], increasing=True), Raises(VE, "values"))
row("worst_step", lambda: irel.worst_step([1.0, 3.0, 3.5, 2.0], increasing=True), Value(2))
row("lemma8_extremal_problem n = 1", lambda: irel.lemma8_extremal_problem(mu=1.0, L=2.0, n=1, d=2), Raises(VE, "n"))
row("skewness_monotone phis nan", lambda: irel.skewness_monotone(A=A4, B=A4, phis=[0.0, np.nan]), Raises(NF, "phis"))

# ----------------------------------------------------------------------------- helpers taking a problem
QP = QuadraticProblem(np.stack([np.eye(2), 2 * np.eye(2)]), np.array([[1.0, 0.0], [0.0, 2.0]]))
# f_1(w) = 0.5 ||w - (1, 0)||^2, f_2(w) = ||w - (0, 2)||^2: at w = 0, f = (0.5, 4), grads (-1, 0), (0, -4)
row("discrepancy_at", lambda: rel.discrepancy_at(QP, [0, 0], CappedSimplex.simplex(2), CappedSimplex.simplex(2), 0.5),
    Value(4.0 - 0.5 * 0.5))
row("relative_index_at w bool", lambda: rel.relative_index_at(QP, [True, False], CappedSimplex.simplex(2),
                                                              CappedSimplex.simplex(2)), Raises(TE, "w"))
row("convex_regime common Hessian", lambda: rel.convex_regime(QuadraticProblem(np.stack([np.eye(2)] * 2), np.zeros((2, 2))),
                                                             IntegratedSet(CappedSimplex.simplex(2), CappedSimplex.simplex(2),
                                                                           0.5)).min_eig, Value(1.0))
row("convex_regime vertices", lambda: rel.convex_regime(QP, IntegratedSet(CappedSimplex.simplex(2), CappedSimplex.simplex(2),
                                                                          0.2)).min_eig, Value((1 - 0.2 * 2) / 0.8, rtol=1e-14))
row("convex_regime not quadratic", lambda: rel.convex_regime(object(), IntegratedSet(S3, S3, 0.5)),
    Raises(TE, "QuadraticProblem"))
row("convex_regime tol < 0", lambda: rel.convex_regime(QP, IntegratedSet(CappedSimplex.simplex(2), CappedSimplex.simplex(2), 0.2),
                                                       tol=-1.0), Raises(VE, "tol"))
row("ConvexRegime fields", lambda: rel.ConvexRegime(1.0, True, "vertices").convex, Value(True))
row("heterogeneity_rho2 by hand", lambda: brc.heterogeneity_rho2(QP, [0.0, 0.0], 0.5, 1.0, 1.0),
    Value(math.fsum(0.5 * (ref_sigmoid(f - 0.5) ** 2 * g2 + (1 - ref_sigmoid(f - 0.5)) ** 2)
                    for f, g2 in ((0.5, 1.0), (4.0, 16.0))), rtol=1e-14))
row("heterogeneity_rho2 w bool", lambda: brc.heterogeneity_rho2(QP, [True, True], 0.5, 1.0, 1.0), Raises(TE, "w"))
row("heterogeneity_rho2 alpha bool", lambda: brc.heterogeneity_rho2(QP, [0.0, 0.0], 0.5, True, 1.0), Raises(TE, "alpha"))
row("involved_cosines MIN_ABSOLUTE", lambda: bfv.involved_cosines(UA)["originals"], Value([-math.sqrt(0.5)], rtol=1e-15))
row("involved_cosines U nan", lambda: bfv.involved_cosines([[1.0, np.nan]]), Raises(NF, "U"))
row("is_separable", lambda: (agg.is_separable(agg.SmoothedQalpha(P2, 0.6, 0.1)), agg.is_separable(agg.afl(2))),
    Value((True, False)))
row("BaseAggregator via a subclass, list input", lambda: agg.afl(3).weights([1, 5, 2]), Value([0.0, 1.0, 0.0]))
row("Aggregator protocol", lambda: isinstance(agg.TERM(P2, 1.0), agg.Aggregator), Value(True))
row("softplus_unchecked", lambda: stable.softplus_unchecked(np.array([0.0, 1e308]), 1.0), Value([math.log(2), 1e308]))
row("sigmoid_unchecked", lambda: stable.sigmoid_unchecked(np.array([0.0, -1e308])), Value([0.5, 0.0]))
row("real_array int", lambda: stable.real_array([1, 2], "x")[0], Value([1.0, 2.0]))
row("real_array bool list", lambda: stable.real_array([1.0, False], "x"), Raises(TE, "x"))
row("pow2_exponent", lambda: stable.pow2_exponent(1.7e308), Value(1024))
row("mul_pow_parts", lambda: math.ldexp(*stable.mul_pow_parts(3.0, 1e200, 1.5)), Value(3.0 * 1e300, rtol=1e-14))
row("FLOAT_TINY", lambda: stable.FLOAT_TINY, Value(2.2250738585072014e-308))
row("is_torch list", lambda: backend.is_torch([1.0]), Value(False))
row("torch_available", lambda: backend.torch_available(), Value(torch is not None))
row("as_alpha string", lambda: backend.as_alpha("0.5", np.array([0.5, 0.5])), Raises(TE, "alpha"))
row("as_alpha ragged", lambda: backend.as_alpha([[0.5], [0.5, 0.5]], np.array([0.5, 0.5])), Raises(TE, "alpha"))

# ----------------------------------------------------------------------------- instances: the rest
RNG = np.random.default_rng
row("random_convex_instance rng None (was AttributeError)", lambda: iqf.random_convex_instance(None), Raises(TE, "rng"))
row("random_multinomial rng int", lambda: iqf.random_multinomial(0), Raises(TE, "rng"))
row("random_convex_instance n_max 1", lambda: iqf.random_convex_instance(RNG(0), 1), Raises(VE, "n_max"))
row("exact_losses problem None", lambda: iqf.exact_losses(None, 1.0), Raises(TE, "problem"))
row("afl_value problem list", lambda: iqf.afl_value([1.0]), Raises(TE, "problem"))
row("q0_is_fedavg", lambda: iqf.q0_is_fedavg(problem=QP, w=[0, 0])[:2], Value((2.25, 2.25)))
row("q0_is_fedavg w bool", lambda: iqf.q0_is_fedavg(problem=QP, w=[True, False]), Raises(TE, "w"))
row("limits q < 0", lambda: iqf.limits(problem=QP, q=-1.0, afl=1.0), Raises(VE, "q"))
row("lemma6 problem None", lambda: iqf.lemma6(problem=None), Raises(TE, "problem"))
row("lemma7 problem None", lambda: iqf.lemma7(problem=None), Raises(TE, "problem"))
row("lemma8 q - h < 1", lambda: iqf.lemma8(problem=QP, q=1.0005), Raises(VE, "h"))
row("entropy_derivative_ift problem None", lambda: iqf.entropy_derivative_ift(None, np.zeros(2), 1.0, 1.0), Raises(TE, "problem"))
# gradients at (1/2, 1/2): (-1/2, 1/2) and (1, -3); FedSGD step w - lr p . G = (0.4375, 0.8125)
row("reduction: q-FedAvg q=0 equals FedSGD", lambda: iqf.reduction(problem=QP, w=[0.5, 0.5], lr=0.25).extra["qfedavg"],
    Value([0.4375, 0.8125], rtol=1e-15))
row("reduction w nan", lambda: iqf.reduction(problem=QP, w=[np.nan, 0.0], lr=0.25), Raises(NF, "w"))
row("convergence check_every 0", lambda: iqf.convergence(problem=QP, q=1.0, check_every=0), Raises(VE, "check_every"))
row("qalpha_midpoint", lambda: irc.qalpha_midpoint(problem=QP, alpha=1.0, a=[0, 0], b=[1, 0])[:2],
    Value((0.5 * 0.125 + 0.5 * (0.25 + 4), 0.5 * (2.25 + 2.5)), rtol=1e-15))
row("qalpha_midpoint a bool", lambda: irc.qalpha_midpoint(problem=QP, alpha=1.0, a=[True, True], b=[1, 0]), Raises(TE, "a"))
# D = f_alpha - E_pi f, pi = p/(alpha tau) = p for a scalar alpha: both definitions
DEV = ref_qalpha(FQ, PQ, 0.6) - ffloat(sum(fr(p) * fr(f) for p, f in zip(PQ, FQ, strict=True)))
row("deviation_agreement", lambda: irc.deviation_agreement(p=PQ, alpha=0.6, losses=FQ)[:2], Value((DEV, DEV), rtol=1e-14))
row("smoothed_client_hessians mu 0", lambda: irc.smoothed_client_hessians(QP, [0.0, 0.0], 0.0, 1.0, 0.0), Raises(VE, "mu"))
row("smoothed_client_hessians problem None", lambda: irc.smoothed_client_hessians(None, [0.0], 0.0, 1.0, 1.0),
    Raises(TE, "problem"))
row("lemmaC1_smoothness alpha bool", lambda: irc.lemmaC1_smoothness(problem=QP, w=[0.0, 0.0], eta=0.0, alpha=True, mu=1.0),
    Raises(TE, "alpha"))
row("check_assumptions problem None", lambda: irc.check_assumptions(None, []), Raises(TE, "problem"))
row("theorem_setup alpha bool", lambda: irc.theorem_setup(QP, True, 0.1), Raises(TE, "alpha"))
row("rfedfair_theorem1_gap alpha list of bools",
    lambda: irc.rfedfair_theorem1_gap(QP, alpha=[True, True], mu=0.1, lr=0.1, kappa=2, T=4), Raises(TE, "alpha"))
row("rfedfair_theorem1_curve setup wrong type",
    lambda: irc.rfedfair_theorem1_curve(QP, alpha=1.0, mu=0.1, lr=0.1, kappa=2, Ts=[4], setup=[1]), Raises(TE, "setup"))
row("rfedfair_theorem2_gap mu 0", lambda: irc.rfedfair_theorem2_gap(QP, alpha=1.0, mu=0.0, lr=0.1, kappa=2, K=2, T=4,
                                                                      seeds=[0, 1]), Raises(VE, "mu"))
row("rfedfair_theorem2_curve problem None", lambda: irc.rfedfair_theorem2_curve(None, alpha=1.0, mu=0.1, lr=0.1, kappa=2,
                                                                                  K=2, Ts=[4], seeds=[0, 1]),
    Raises(TE, "problem"))
row("fedavg_converges rounds 0", lambda: irc.fedavg_converges(problem=QP, rounds=0), Raises(VE, "rounds"))
row("noisy_simplex rng None", lambda: ifv.noisy_simplex(3, 2, None), Raises(TE, "rng"))
row("gradient_sets rng None", lambda: ifv.gradient_sets(None, 2), Raises(TE, "rng"))
row("gradient_sets count", lambda: len(ifv.gradient_sets(RNG(0), 3)), Value(3))
row("conflict_profile MIN_ABSOLUTE", lambda: ifv.conflict_profile([[1, 0], [-1, 1]])["dot"], Value([0.25, 0.5]))
row("theorem2_conflict MIN_ABSOLUTE", lambda: ifv.theorem2_conflict(grads=ifv.MIN_ABSOLUTE, k=2, version="absolute")[:2],
    Value((0.5, 0.0)))
row("theorem2_conflict bad version", lambda: ifv.theorem2_conflict(grads=ifv.MIN_ABSOLUTE, k=2, version="both"),
    Raises(VE, "version"))
row("projection_norm MIN_ABSOLUTE", lambda: ifv.projection_norm(grads=ifv.MIN_ABSOLUTE, target=1)[:2],
    Value((0.5, 0.5), rtol=1e-15))
row("eq10_direction lists", lambda: ifv.eq10_direction([1, 0], [-1, 1]), Value([0.5, 1.5]))
row("eq10_direction shapes", lambda: ifv.eq10_direction([1.0, 0.0], [1.0]), Raises(VE, "g2"))
row("theorem4_descent eta 0", lambda: ifv.theorem4_descent(problem=QP, w=[0.0, 0.0], eta=0.0), Raises(VE, "eta"))
row("theorem4_descent problem None", lambda: ifv.theorem4_descent(problem=None, w=[0.0], eta=0.1), Raises(TE, "problem"))
row("order_effect rounds 0", lambda: ifv.order_effect(rounds=0), Raises(VE, "rounds"))
row("order_effect seed -1", lambda: ifv.order_effect(seed=-1), Raises(VE, "seed"))
row("lemma8_strong_convexity extremal", lambda: irel.lemma8_strong_convexity(
    problem=irel.lemma8_extremal_problem(mu=1.0, L=3.0, n=3, d=2), A=CappedSimplex.simplex(3), B=CappedSimplex.simplex(3),
    phi=0.2)[:2], Value(((1 - 0.6) / 0.8, (1 - 0.6) / 0.8), rtol=1e-13))
row("lemma8_strong_convexity problem None", lambda: irel.lemma8_strong_convexity(problem=None, A=S3, B=S3, phi=0.1),
    Raises(TE, "problem"))
row("routes_agree phi 1", lambda: irel.routes_agree(problem=QP, A=CappedSimplex.simplex(2), B=CappedSimplex.simplex(2), phi=1.0),
    Raises(VE, "phi"))
row("monotone_allowance exact solutions", lambda: irel.monotone_allowance(2.0, 1.0, 1.0, 0.0, 0.0, 0.1, 0.5), Value(0.0))
row("monotone_allowance by hand", lambda: irel.monotone_allowance(2.0, 1.0, 2.0, 0.1, 0.1, 0.1, 0.5),
    Value((2.0 * 1.5 + 0.1 * 1.0) / 2.0, rtol=1e-15))
row("monotone_allowance dphi 0 (was ZeroDivisionError)", lambda: irel.monotone_allowance(2.0, 1.0, 1.0, 0.1, 0.1, 0.0, 0.5),
    Raises(VE, "dphi"))
row("certified_curve phis bool", lambda: irel.certified_curve(problem=QP, A=S3, B=S3, phis=[True]), Raises(TE, "phis"))
row("theorem1_monotone problem None", lambda: irel.theorem1_monotone(problem=None, A=S3, B=S3, phis=[0.0]),
    Raises(TE, "problem"))
row("theorem2_strict phis nan", lambda: irel.theorem2_strict(problem=QP, A=S3, B=S3, phis=[np.nan]), Raises(NF, "phis"))
row("penguins_phi_grid quick", lambda: irel.penguins_phi_grid(True).size, Value(11))
row("penguins_phi_grid quick int", lambda: irel.penguins_phi_grid(1), Raises(TE, "quick"))
row("penguins_curve sets (was KeyError)", lambda: irel.penguins_curve(sets="Delta_4", phis=[0.0]), Raises(VE, "sets"))
row("theorem3_rate rounds 0", lambda: irel.theorem3_rate(problem=QP, A=CappedSimplex.simplex(2), phi=0.1, rounds=0),
    Raises(VE, "rounds"))
row("ROUND, MOVE_TOL", lambda: (irel.ROUND, irel.MOVE_TOL), Value((1e-12, 1e-3)))
row("PENGUIN_SETS", lambda: sorted(irel.PENGUIN_SETS) == ["C(2/3)", "Delta_3"], Value(True))
# min_w 0.25 ||w - (1, 0)||^2 + 0.5 ||w - (0, 2)||^2 at w = (1/3, 4/3): 5/9 + 5/18 = 5/6
row("dual_value", lambda: ibl.dual_value(QP, [0.5, 0.5]), Value((5 / 6, [1 / 3, 4 / 3]), rtol=1e-14))
row("dual_value lam shape", lambda: ibl.dual_value(QP, [1.0]), Raises(VE, "lam"))
row("fedavg_closed_form", lambda: ibl.fedavg_closed_form(QP), Value([1 / 3, 4 / 3], rtol=1e-15))
row("fedavg_closed_form problem None", lambda: ibl.fedavg_closed_form(None), Raises(TE, "problem"))
I2 = IntegratedSet(CappedSimplex.simplex(2), CappedSimplex.simplex(2), 0.0)
row("certified_distance mu 0", lambda: ibl.certified_distance(QP, I2, [0, 0], [0.5, 0.5], [0.5, 0.5], 0.0), Raises(VE, "mu"))
row("safe_steps phi 1", lambda: ibl.safe_steps(QP, 1.0), Raises(VE, "phi"))
row("safe_steps kappa", lambda: ibl.safe_steps(QP, 0.0, kappa=2)["lr"], Value(1 / (4 * 2 * 2), rtol=1e-15))
row("scaffpd_errors rounds 0", lambda: ibl.scaffpd_errors(QP, CappedSimplex.simplex(2), [0.0, 0.0], 0), Raises(VE, "rounds"))
row("loglog_slope of r^-2", lambda: ibl.loglog_slope([r ** -2.0 for r in range(1, 101)], floor=0.0)["slope"],
    Value(-2.0, rtol=1e-12))
row("loglog_slope err bool", lambda: ibl.loglog_slope([True, False]), Raises(TE, "err"))
row("FLOOR", lambda: ibl.FLOOR, Value(1e-16))
row("afl_convergence T 0", lambda: ibl.afl_convergence(problem=QP, T=0), Raises(VE, "T"))
row("drfa_convergence seeds 0", lambda: ibl.drfa_convergence(problem=QP, T=4, seeds=0), Raises(VE, "seeds"))
row("scaffold_convergence K 0", lambda: ibl.scaffold_convergence(problem=QP, rounds=2, K=0), Raises(VE, "K"))
row("scaffpd_convergence problem None", lambda: ibl.scaffpd_convergence(problem=None, A=S3, rounds=2), Raises(TE, "problem"))


def test_table_covers_the_issue() -> None:
    """At least 200 rows, with both value and error rows."""
    kinds = [type(p.values[1]).__name__ for p in ROWS]
    assert len(ROWS) >= 200, len(ROWS)
    assert kinds.count("Value") >= 100 and kinds.count("Raises") >= 100, (kinds.count("Value"), kinds.count("Raises"))
    assert all(issubclass(p.values[1].error, (FairtheoryError, AssertionError)) for p in ROWS if isinstance(p.values[1], Raises))


# =============================================================================== the test
@pytest.mark.parametrize("call,expect", ROWS)
def test_fuzz(call: Callable[[], Any], expect: Value | Raises) -> None:
    if isinstance(expect, Raises):
        with pytest.raises(Exception) as info:
            out = call()
            pytest.fail(f"no error raised; returned {out!r}")  # pragma: no cover
        assert isinstance(info.value, expect.error), f"expected {expect.error.__name__}, got {info.type.__name__}: {info.value}"
        assert expect.name in str(info.value), f"message does not name {expect.name!r}: {info.value}"
        return
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = call()
    noisy = [f"{w.category.__name__}: {w.message}" for w in rec if issubclass(w.category, (RuntimeWarning, UserWarning))]
    assert not noisy, f"warnings on a correct result: {noisy}"
    if expect.torch is not None:
        assert (torch is not None and isinstance(out, torch.Tensor)) == expect.torch, f"library of {out!r}"
    _close(_plain(out), expect.expected, expect.rtol, expect.atol)
