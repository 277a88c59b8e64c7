"""Held-out hostile sweep, round 2: the numerics a hostile user reaches (issue 18, library part).

Each call of the public API (``fairtheory.exact`` except the min-norm/Pareto solvers,
``fairtheory.testing``, ``fairtheory.objectives``, ``sets``, ``metrics``, ``aggregators``, ``problems``)
comes with an *oracle* computed here, independently of the library (exact rationals, ``math.fsum``,
hand-derived closed forms):

* ``Val(expected, rtol, atol)``: the call must return this value;
* ``Err()``: the input is invalid, the call must raise a :class:`~fairtheory.errors.FairtheoryError`;
* ``Any()``: either a finite value or a named error is acceptable (no oracle for the value).

Each outcome is classified as ``correct`` (value matches, or a named error where one is due),
``silently wrong`` (a value that does not match the oracle, a value where an error is due, a non-finite
value), ``obscure`` (an exception that is not a ``FairtheoryError``: IndexError, ZeroDivisionError,
raw numpy/cvxpy errors), ``refused`` (a named error on a valid call that has an oracle value) and
``warned`` (a RuntimeWarning/UserWarning/DeprecationWarning escaped a call).

Run ``python tests/sweeps/hostile_library.py`` (``-v`` lists every non-correct call); the slow test
``tests/test_sweep_library.py`` runs it and asserts no silently wrong value and at most 5 obscure errors.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared exact oracles
from oracles import capped_simplex_projection  # noqa: E402


@dataclass(frozen=True)
class Val:
    expected: Any
    rtol: float = 1e-12
    atol: float = 0.0


@dataclass(frozen=True)
class Err:
    pass


@dataclass(frozen=True)
class Any_:
    pass


CALLS: list[tuple[str, Callable[[], Any], Any]] = []


def call(cid: str, fn: Callable[[], Any], oracle: Any) -> None:
    CALLS.append((cid, fn, oracle))


# ================================================================================ independent oracles
def F(x: float) -> Fraction:
    return Fraction(float(x))


def ff(x: Fraction) -> float:
    """A rational as the nearest float, ``+-inf`` beyond the float64 range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def fmean(a: list[float]) -> float:
    return float(sum((F(x) for x in a), Fraction(0)) / len(a))


def fvar(a: list[float]) -> float:
    m = sum((F(x) for x in a), Fraction(0)) / len(a)
    return ff(sum(((F(x) - m) ** 2 for x in a), Fraction(0)) / len(a))


def fsupport(v: list[float], caps: list[float]) -> float:
    """max lam . v over the capped simplex, greedy in exact rationals."""
    order = sorted(range(len(v)), key=lambda i: -v[i])
    left, tot = Fraction(1), Fraction(0)
    for i in order:
        take = min(F(min(caps[i], 1.0)), left)
        tot += take * F(v[i])
        left -= take
        if left == 0:
            break
    return float(tot)


def flower(v: list[float], caps: list[float]) -> float:
    return -fsupport([-x for x in v], caps)


def fproject(v: list[float], caps: list[float]) -> list[float]:
    """Euclidean projection onto the capped simplex, exact (the shared oracle ``tests/oracles.py``)."""
    return [float(x) for x in capped_simplex_projection(v, caps)]


def fgini(a: list[float]) -> float:
    m = len(a)
    num = sum((abs(F(x) - F(y)) for x in a for y in a), Fraction(0))
    return float(num / (2 * m * sum((F(x) for x in a), Fraction(0))))


def fjain(a: list[float]) -> float:
    s = sum((F(x) for x in a), Fraction(0))
    return float(s * s / (len(a) * sum((F(x) ** 2 for x in a), Fraction(0))))


def fentropy(a: list[float]) -> float:
    s = math.fsum(a)
    return -math.fsum((x / s) * math.log(x / s) for x in a if x > 0)


def fqffl(f: list[float], q: int, p: list[float]) -> float:
    return ff(sum((F(pi) * F(fi) ** (q + 1) for pi, fi in zip(p, f, strict=True)), Fraction(0)) / (q + 1))


def fterm(f: list[float], p: list[float], t: float) -> float:
    m = max(f)
    return m + math.log(math.fsum(pi * math.exp(t * (fi - m)) for pi, fi in zip(p, f, strict=True))) / t


def fqalpha(f: list[float], p: list[float], alpha: float) -> float:
    return fsupport(f, [pi / alpha for pi in p])


def ftail(a: list[float], frac: float, top: bool) -> float:
    """Mean of the ceil(frac m) largest (top) or smallest entries, exact."""
    s = sorted(a, reverse=top)
    c = max(1, math.ceil(frac * len(a) - 1e-9))
    return float(sum((F(x) for x in s[:c]), Fraction(0)) / c)


# ================================================================================ the calls
def build() -> None:  # noqa: C901 - a flat table of calls
    import torch

    from fairtheory import aggregators as agg
    from fairtheory import metrics
    from fairtheory.exact import capped
    from fairtheory.exact.aggregate import solve_aggregator
    from fairtheory.exact.qffl import solve_qffl
    from fairtheory.exact.rcfl import solve_afl, solve_fedavg, solve_rcfl, solve_smoothed_rcfl
    from fairtheory.objectives import qalpha as qa
    from fairtheory.objectives import qffl as qf
    from fairtheory.objectives import relative as rel
    from fairtheory.objectives.tilted import term
    from fairtheory.problems import LeastSquaresProblem, QuadraticProblem
    from fairtheory.sets import CappedSimplex, IntegratedSet
    from fairtheory.testing import audit

    base = [1.0, 3.0, 2.0, 2.0, 5.0]
    scales = [1e-300, 1e-150, 1e-20, 1.0, 1e20, 1e150, 1e300]
    # ---------------------------------------------------------------- metrics across scales and dtypes
    for s in scales:
        a = [x * s for x in base]
        call(
            f"variance s={s:g}",
            lambda a=a: metrics.variance(a),
            Val(fvar(a)) if math.isfinite(fvar(a)) and fvar(a) < 1.7e308 else Err(),
        )
        call(f"gini s={s:g}", lambda a=a: metrics.gini(a), Val(fgini(a), 1e-12))
        call(f"jain s={s:g}", lambda a=a: metrics.jain(a), Val(fjain(a), 1e-12))
        call(f"angle_cosine s={s:g}", lambda a=a: metrics.angle_cosine(a), Val(math.sqrt(fjain(a)), 1e-12))
        call(f"entropy s={s:g}", lambda a=a: metrics.entropy(a), Val(fentropy(base), 1e-12))
        call(f"kl_to_uniform s={s:g}", lambda a=a: metrics.kl_to_uniform(a), Val(math.log(5) - fentropy(base), 1e-10, 1e-15))
        call(f"worst_mean s={s:g}", lambda a=a: metrics.worst_mean(a, 0.4), Val(ftail(a, 0.4, False)))
        call(
            f"best_mean losses s={s:g}", lambda a=a: metrics.best_mean(a, 0.4, higher_is_better=False), Val(ftail(a, 0.4, False))
        )
        call(
            f"relative_unfairness s={s:g}",
            lambda a=a: metrics.relative_unfairness(a, 0.4, 0.4),
            Val(ftail(base, 0.4, True) / ftail(base, 0.4, False), 1e-12),
        )
        call(f"atkinson inf s={s:g}", lambda a=a: metrics.atkinson(a), Val(1 - 1.0 / fmean(base), 1e-12))
        call(
            f"atkinson 0.5 s={s:g}",
            lambda a=a: metrics.atkinson(a, 0.5),
            Val(1 - math.fsum(math.sqrt(x) for x in base) ** 2 / 25 / fmean(base), 1e-12),
        )
        call(
            f"palma s={s:g}",
            lambda s=s: metrics.palma_ratio([x * s for x in range(1, 11)]),
            Val((10 / 1) / ((1 + 2 + 3 + 4) / 1), 1e-12),
        )  # share top 10% = 10/55, bottom 40% = 10/55
    for kind, conv in [
        ("float32", lambda a: np.asarray(a, dtype=np.float32)),
        ("int", lambda a: np.asarray(a, dtype=np.int64)),
        ("torch", lambda a: torch.tensor(a, dtype=torch.float64)),
        ("torch grad", lambda a: torch.tensor(a, dtype=torch.float64, requires_grad=True)),
        ("tuple", tuple),
        ("uint8", lambda a: np.asarray(a, dtype=np.uint8)),
    ]:
        call(f"gini {kind}", lambda c=conv: metrics.gini(c([1, 3, 2, 2, 5])), Val(fgini(base)))
        call(f"variance {kind}", lambda c=conv: metrics.variance(c([1, 3, 2, 2, 5])), Val(fvar(base)))
        call(f"jain {kind}", lambda c=conv: metrics.jain(c([1, 3, 2, 2, 5])), Val(fjain(base)))
    for name, fn in [
        ("variance", metrics.variance),
        ("gini", metrics.gini),
        ("jain", metrics.jain),
        ("entropy", metrics.entropy),
        ("atkinson", metrics.atkinson),
        ("angle_cosine", metrics.angle_cosine),
        ("worst_mean", metrics.worst_mean),
        ("ratio_2020", metrics.ratio_2020),
        ("lorenz_curve", metrics.lorenz_curve),
    ]:
        for bad_name, bad in [
            ("nan", [1.0, float("nan")]),
            ("inf", [1.0, float("inf")]),
            ("empty", []),
            ("string", "ab"),
            ("None", None),
            ("2-D", [[1.0, 2.0]]),
            ("bool", [True, False]),
            ("complex", [1 + 1j, 2.0]),
            ("dict", {"a": 1}),
            ("object", [object()]),
            ("ragged", [[1.0], [1.0, 2.0]]),
        ]:
            call(f"{name} {bad_name}", lambda fn=fn, bad=bad: fn(bad), Err())
        if name not in ("variance", "worst_mean"):
            call(f"{name} negative", lambda fn=fn: fn([1.0, -1.0, 2.0]), Err())
            call(f"{name} zeros", lambda fn=fn: fn([0.0, 0.0]), Err())
    call("gini n=1", lambda: metrics.gini([7.0]), Val(0.0))
    call("jain n=1", lambda: metrics.jain([7.0]), Val(1.0))
    call("entropy n=1", lambda: metrics.entropy([7.0]), Val(0.0))
    call("worst_mean k=1e-300", lambda: metrics.worst_mean(base, 1e-300), Val(1.0))
    call("worst_mean k=0", lambda: metrics.worst_mean(base, 0.0), Err())
    call("worst_mean k nan", lambda: metrics.worst_mean(base, float("nan")), Err())
    call("worst_mean k 2", lambda: metrics.worst_mean(base, 2.0), Err())
    call("relative_unfairness top 0", lambda: metrics.relative_unfairness(base, 0.0, 0.2), Err())
    call("relative_unfairness bottom zero mean", lambda: metrics.relative_unfairness([0.0, 0.0, 1.0, 2.0, 3.0]), Err())
    call("atkinson eps -1", lambda: metrics.atkinson(base, -1.0), Err())
    call("atkinson eps nan", lambda: metrics.atkinson(base, float("nan")), Err())
    call(
        "atkinson eps 1",
        lambda: metrics.atkinson(base, 1.0),
        Val(1 - math.exp(math.fsum(math.log(x) for x in base) / 5) / fmean(base), 1e-12),
    )
    call("atkinson eps 2 zero entry", lambda: metrics.atkinson([0.0, 1.0], 2.0), Err())
    call("atkinson eps 1e300", lambda: metrics.atkinson(base, 1e300), Val(1 - 1.0 / fmean(base), 1e-9))
    call("atkinson eps bool", lambda: metrics.atkinson(base, True), Err())
    big = list(np.random.default_rng(0).uniform(1, 2, size=200_000))
    call("jain n=2e5", lambda: metrics.jain(big), Val(math.fsum(big) ** 2 / (len(big) * math.fsum(x * x for x in big)), 1e-10))
    call("gini n=2e5", lambda: metrics.gini(big), Any_())

    # ---------------------------------------------------------------- sets
    caps_list = [[1.0, 1.0, 1.0], [0.5, 0.4, 0.3], [2 / 3] * 3, [0.2, 0.3, 0.5], [5.0, 0.1, 0.1]]
    for caps in caps_list:
        S = CappedSimplex(caps)
        for s in [1e-300, 1.0, 1e300]:
            for v0 in ([1.0, 3.0, 2.0], [2.0, 2.0, 2.0], [-1.0, 0.0, 1.0]):
                v = [x * s for x in v0]
                call(f"support caps={caps} v={v}", lambda S=S, v=v: S.support(v), Val(fsupport(v, caps), 1e-12))
                call(f"lower caps={caps} v={v}", lambda S=S, v=v: S.lower(v), Val(flower(v, caps), 1e-12))
                call(f"project caps={caps} v={v}", lambda S=S, v=v: S.project(v), Val(fproject(v, caps), 1e-9, 1e-12))
                call(
                    f"argmax.v caps={caps} v={v}",
                    lambda S=S, v=v: float(S.argmax(v) @ np.asarray(v)),
                    Val(fsupport(v, caps), 1e-12, 1e-15 * max(abs(x) for x in v)),
                )  # weights exact to an ulp
        call(
            f"project_qp caps={caps} 1e300",
            lambda S=S: capped.project_qp(S, [1e300, 3e300, 2e300]).weights,
            Val(fproject([1e300, 3e300, 2e300], caps), 0, 1e-5),
        )
        call(
            f"support_lp caps={caps} 1e-300",
            lambda S=S: capped.support_lp(S, [1e-300, 3e-300, 2e-300]).value,
            Val(fsupport([1e-300, 3e-300, 2e-300], caps), 1e-8),
        )
        call(
            f"lower_lp caps={caps} mixed 1e300",
            lambda S=S: capped.lower_lp(S, [1e300, -3e300, 2e300]).value,
            Val(flower([1e300, -3e300, 2e300], caps), 1e-8),
        )
    for bad_name, caps in [
        ("sum<1", [0.2, 0.2]),
        ("negative", [1.0, -0.5]),
        ("nan", [1.0, float("nan")]),
        ("inf", [float("inf"), 1.0]),
        ("empty", []),
        ("string", "a"),
        ("bool", [True, True]),
        ("2-D", [[1.0, 1.0]]),
        ("None", None),
    ]:
        call(f"CappedSimplex {bad_name}", lambda c=caps: CappedSimplex(c), Err())
    S3 = CappedSimplex.simplex(3)
    for bad_name, v in [
        ("nan", [1.0, float("nan"), 2.0]),
        ("short", [1.0, 2.0]),
        ("2-D", [[1.0, 2.0, 3.0]]),
        ("bool", [True, False, True]),
        ("string", "abc"),
        ("None", None),
        ("complex", [1j, 1, 1]),
    ]:
        for meth in ("support", "lower", "argmax", "project", "threshold"):
            call(f"{meth} {bad_name}", lambda m=meth, v=v: getattr(S3, m)(v), Err())
    for bad_name, thunk in [
        ("simplex 0", lambda: CappedSimplex.simplex(0)),
        ("simplex -1", lambda: CappedSimplex.simplex(-1)),
        ("simplex 2.5", lambda: CappedSimplex.simplex(2.5)),
        ("simplex True", lambda: CappedSimplex.simplex(True)),
        ("cvar a 0", lambda: CappedSimplex.cvar(3, 0.0)),
        ("cvar a 1.5", lambda: CappedSimplex.cvar(3, 1.5)),
        ("cvar a nan", lambda: CappedSimplex.cvar(3, float("nan"))),
        ("qalpha alpha 0", lambda: CappedSimplex.qalpha([0.5, 0.5], 0.0)),
        ("qalpha alpha < p", lambda: CappedSimplex.qalpha([0.5, 0.5], 0.25)),
        ("singleton not prob", lambda: CappedSimplex.singleton([0.5, 0.6])),
        ("vertices n too big", lambda: CappedSimplex.simplex(30).vertices()),
        ("contains tol -1", lambda: S3.contains([1, 0, 0], -1.0)),
        ("IntegratedSet phi 1", lambda: IntegratedSet(S3, S3, 1.0)),
        ("IntegratedSet phi nan", lambda: IntegratedSet(S3, S3, float("nan"))),
        ("IntegratedSet n mismatch", lambda: IntegratedSet(S3, CappedSimplex.simplex(2), 0.5)),
        ("IntegratedSet A None", lambda: IntegratedSet(None, S3, 0.5)),
    ]:
        call(bad_name, thunk, Err())
    call("cvar a 1e-300", lambda: CappedSimplex.cvar(3, 1e-300).support([1.0, 3.0, 2.0]), Val(3.0))
    call("simplex huge n support", lambda: CappedSimplex.simplex(10**6).support(np.arange(10**6, dtype=float)), Val(10**6 - 1.0))
    I = IntegratedSet(S3, CappedSimplex.cvar(3, 0.5), 0.3)
    for s in (1e-300, 1.0, 1e300):
        v = [x * s for x in (1.0, 3.0, 2.0)]
        want = (max(v) - 0.3 * flower(v, [2 / 3] * 3)) / 0.7
        call(f"IntegratedSet support s={s:g}", lambda v=v: I.support(v), Val(want, 1e-12))
    call(
        "support_many 1e300",
        lambda: CappedSimplex([0.5, 0.4, 0.3]).support_many(np.array([[1e300, 3e300, 2e300]] * 2)),
        Val([fsupport([1e300, 3e300, 2e300], [0.5, 0.4, 0.3])] * 2, 1e-12),
    )

    # ---------------------------------------------------------------- objectives
    p5 = [0.1, 0.2, 0.3, 0.15, 0.25]
    for s in scales:
        f = [x * s for x in base]
        call(f"qalpha_loss s={s:g}", lambda f=f: qa.qalpha_loss(f, p5, 0.5)[0], Val(fqalpha(f, p5, 0.5), 1e-12))
        call(f"qalpha_dual s={s:g}", lambda f=f: qa.qalpha_dual(f, p5, 0.5)[0], Val(fqalpha(f, p5, 0.5), 1e-12))
        call(f"term t=1/s s={s:g}", lambda f=f, s=s: term(f, p5, 1.0 / s), Val(fterm(base, p5, 1.0) * s, 1e-12))
        call(
            f"qffl q=1 s={s:g}",
            lambda f=f: qf.qffl_value(f, 1.0, p5),
            Val(fqffl(f, 1, p5)) if fqffl(f, 1, p5) < 1.7e308 else Err(),
        )
        call(
            f"relative_index s={s:g}",
            lambda f=f: rel.relative_index(f, CappedSimplex.cvar(5, 0.4), CappedSimplex.cvar(5, 0.4)),
            Val(ftail(base, 0.4, True) / ftail(base, 0.4, False), 1e-12),
        )
        call(
            f"discrepancy s={s:g}",
            lambda f=f: rel.discrepancy(f, CappedSimplex.cvar(5, 0.4), CappedSimplex.cvar(5, 0.4), 0.5),
            Val(float(F(ftail(f, 0.4, True)) - F(0.5) * F(ftail(f, 0.4, False))), 1e-12),
        )
        call(f"hcvar ru s={s:g}", lambda f=f: qa.hcvar(f, p5, 0.5), Any_())
    call("tau_alpha", lambda: qa.tau_alpha(p5, 0.5), Val(2.0))
    call("tau_alpha alpha=p", lambda: qa.tau_alpha(p5, p5), Val(5.0))
    call("tau_alpha alpha vector float32", lambda: qa.tau_alpha(p5, np.array(p5, dtype=np.float32)), Any_())
    call("qalpha alpha=p = max", lambda: qa.qalpha_loss(base, p5, p5)[0], Val(5.0))
    call(
        "qalpha p with zero",
        lambda: qa.qalpha_loss(base, [0.0, 0.25, 0.25, 0.25, 0.25], 0.5)[0],
        Val(fqalpha(base, [0.0, 0.25, 0.25, 0.25, 0.25], 0.5)),
    )
    call("qalpha alpha > 1", lambda: qa.qalpha_loss(base, p5, 1.5), Err())
    call("qalpha alpha nan", lambda: qa.qalpha_loss(base, p5, float("nan")), Err())
    call("qalpha p sums 2", lambda: qa.qalpha_loss(base, [0.4] * 5, 0.5), Err())
    call("qalpha p negative", lambda: qa.qalpha_loss(base, [-0.1, 0.3, 0.3, 0.25, 0.25], 0.5), Err())
    call("qalpha losses short", lambda: qa.qalpha_loss(base[:3], p5, 0.5), Err())
    call("term t 0", lambda: term(base, p5, 0.0), Err())
    call("term t -1", lambda: term(base, p5, -1.0), Err())
    call("term t inf", lambda: term(base, p5, float("inf")), Err())
    call("term t 1e300", lambda: term(base, p5, 1e300), Val(5.0, 1e-12))
    call("term t 1e-300", lambda: term(base, p5, 1e-300), Val(math.fsum(a * b for a, b in zip(p5, base, strict=True)), 1e-12))
    call("term mixed signs 1e308", lambda: term([1e308, -1e308], [0.5, 0.5], 1e-308), Any_())
    call("qffl q 0", lambda: qf.qffl_value(base, 0.0, p5), Val(math.fsum(a * b for a, b in zip(p5, base, strict=True)), 1e-12))
    call("qffl q -1", lambda: qf.qffl_value(base, -1.0, p5), Err())
    call("qffl q nan", lambda: qf.qffl_value(base, float("nan"), p5), Err())
    call("qffl negative loss", lambda: qf.qffl_value([-1.0, 2.0], 1.0, [0.5, 0.5]), Err())
    call(
        "qffl q 1000 huge",
        lambda: qf.qffl_value([2.0, 1.0], 1000.0, [0.5, 0.5]),
        Val(float(F(0.5) * 2**1001 / 1001 + F(0.5) / 1001), 1e-12),
    )
    call("qffl q 1e6", lambda: qf.qffl_value([1.0, 1.0], 1e6, [0.5, 0.5]), Val(1.0 / (1e6 + 1), 1e-12))
    call("relative_index zero denominator", lambda: rel.relative_index([0.0, 0.0, 1.0], S3, CappedSimplex.cvar(3, 1 / 3)), Err())
    call("discrepancy phi 1", lambda: rel.discrepancy(base, CappedSimplex.cvar(5, 0.4), CappedSimplex.cvar(5, 0.4), 1.0), Err())
    call("discrepancy set size mismatch", lambda: rel.discrepancy(base, S3, S3, 0.5), Err())

    # ---------------------------------------------------------------- aggregators
    for s in scales:
        f = [x * s for x in base]
        exact_mean = float(sum((F(a) * F(b) for a, b in zip(p5, f, strict=True)), Fraction(0)))
        call(f"fedavg value s={s:g}", lambda f=f: agg.fedavg(p5).value(f), Val(exact_mean, 1e-12))
        call(f"afl value s={s:g}", lambda f=f: agg.afl(5).value(f), Val(max(f)))
        call(f"cvar value s={s:g}", lambda f=f: agg.cvar(5, 0.4).value(f), Val(ftail(f, 0.4, True), 1e-12))
        call(f"qalpha value s={s:g}", lambda f=f: agg.qalpha(p5, 0.5).value(f), Val(fqalpha(f, p5, 0.5), 1e-12))
        call(f"TERM value t=1/s s={s:g}", lambda f=f, s=s: agg.TERM(p5, 1.0 / s).value(f), Val(fterm(base, p5, 1.0) * s, 1e-12))
        call(f"TERM weights sum s={s:g}", lambda f=f: float(np.sum(agg.TERM(p5, 1.0).weights(f))), Val(1.0, 1e-12))
        call(f"SmoothedQalpha value mu=s s={s:g}", lambda f=f, s=s: agg.SmoothedQalpha(p5, 0.5, 1e-3 * s).value(f), Any_())
        call(
            f"SmoothedQalpha bounds s={s:g}",
            lambda f=f, s=s: _smoothed_in_bounds(agg.SmoothedQalpha(p5, 0.5, 1e-3 * s), f, p5, 0.5, 1e-3 * s),
            Val(True),
        )
        call(
            f"QFFL q=1 s={s:g}",
            lambda f=f: agg.QFFL(p5, 1.0).value(f),
            Val(fqffl(f, 1, p5), 1e-12) if fqffl(f, 1, p5) < 1.7e308 else Err(),
        )
    call("SmoothedQalpha mu 1e-300", lambda: agg.SmoothedQalpha(p5, 0.5, 1e-300).value(base), Val(fqalpha(base, p5, 0.5), 1e-12))
    call("SmoothedQalpha mu 1e300", lambda: agg.SmoothedQalpha(p5, 0.5, 1e300).value(base), Any_())
    call("SmoothedQalpha mu 0", lambda: agg.SmoothedQalpha(p5, 0.5, 0.0), Err())
    call("SmoothedQalpha mu nan", lambda: agg.SmoothedQalpha(p5, 0.5, float("nan")), Err())
    call("TERM t 0", lambda: agg.TERM(p5, 0.0), Err())
    call("QFFL q -1", lambda: agg.QFFL(p5, -1.0), Err())
    call("QFFL negative f", lambda: agg.QFFL(p5, 1.0).value([-1.0, 1, 1, 1, 1]), Err())
    call("QFFL curvature q=0.5 at 0", lambda: agg.QFFL([0.5, 0.5], 0.5).curvature([0.0, 1.0]), Val([0.0, 0.25]))
    call("cvar a 0", lambda: agg.cvar(5, 0.0), Err())
    call("afl n 0", lambda: agg.afl(0), Err())
    call(
        "fedavg value torch float32",
        lambda: agg.fedavg(p5).value(torch.tensor(base, dtype=torch.float32)),
        Val(math.fsum(a * b for a, b in zip(p5, base, strict=True)), 1e-7),
    )
    call("fedavg weights wrong shape", lambda: agg.fedavg(p5).weights([1.0, 2.0]), Err())
    call("TERM weights nan", lambda: agg.TERM(p5, 1.0).weights([np.nan] * 5), Err())
    call("as_aggregator None", lambda: agg.as_aggregator(None, 3), Err())
    call("as_aggregator n mismatch", lambda: agg.as_aggregator(S3, 4), Err())
    call(
        "integrated value",
        lambda: agg.integrated(S3, CappedSimplex.cvar(3, 0.5), 0.3).value([1.0, 3.0, 2.0]),
        Val((3.0 - 0.3 * flower([1.0, 3.0, 2.0], [2 / 3] * 3)) / 0.7, 1e-12),
    )

    # ---------------------------------------------------------------- audit (user code and attributes)
    class Mean:
        n = 3

        def value(self, f: Any) -> float:
            return float(np.mean(f))

        def weights(self, f: Any) -> Any:
            return np.full(3, 1 / 3)

    def hostile(**over: Any) -> Any:
        m = Mean()
        for k, v in over.items():
            setattr(m, k, v)
        return m

    for label, a in [
        ("value raises", hostile(value=lambda f: 1 / 0)),
        ("value None", hostile(value=lambda f: None)),
        ("value nan", hostile(value=lambda f: float("nan"))),
        ("value list", hostile(value=lambda f: [1.0, 2.0])),
        ("weights raises", hostile(weights=lambda f: [][1])),
        ("weights dict", hostile(weights=lambda f: {"a": 1})),
        ("weights inf", hostile(weights=lambda f: np.array([np.inf, 0, 0]))),
        ("weights 2-D", hostile(weights=lambda f: np.ones((3, 1)))),
        ("weights torch", hostile(weights=lambda f: torch.full((3,), 1 / 3, dtype=torch.float64))),
        ("curvature raises", hostile(curvature=lambda f: 1 / 0)),
        ("cvxpy wrong", hostile(cvxpy=lambda t: "not an expression")),
        ("client_grads only", hostile(client_grads=lambda f, e: (f, f), client_values=lambda f, e: None)),
    ]:
        want = label == "weights torch"
        call(
            f"audit {label}",
            lambda a=a: audit(a, max_examples=10, properties=("defined", "subgradient", "separable_form")).passed,
            Val(want),
        )
    for label, a in [
        ("n None", hostile(n=None)),
        ("n -1", hostile(n=-1)),
        ("n 2.5", hostile(n=2.5)),
        ("domain 3 numbers", hostile(domain=(0, 1, 2))),
        ("domain nan", hostile(domain=(float("nan"), 1.0))),
        ("p strings", hostile(p=["a", "b", "c"])),
        ("p negative", hostile(p=[-1.0, 1.0, 1.0])),
    ]:
        call(f"audit {label}", lambda a=a: audit(a, max_examples=5), Err())
    call("audit max_loss nan", lambda: audit(Mean(), max_loss=float("nan")), Err())
    call("audit min_loss inf", lambda: audit(Mean(), min_loss=float("inf")), Err())
    call("audit properties string", lambda: audit(Mean(), properties="defined"), Err())
    call("audit rtol -1", lambda: audit(Mean(), rtol=-1.0), Err())

    # ---------------------------------------------------------------- problems
    H = np.stack([np.diag([1.0, 2.0]), np.diag([3.0, 1.0])])
    C = np.array([[1.0, 0.0], [0.0, -1.0]])
    P = QuadraticProblem(H, C, [0.5, 0.25])

    def qloss(w: list[float]) -> list[float]:
        out = []
        for i in range(2):
            d = [F(w[j]) - F(C[i][j]) for j in range(2)]
            out.append(float(sum((F(H[i][j][j]) * d[j] ** 2 for j in range(2)), Fraction(0)) / 2 + F([0.5, 0.25][i])))
        return out

    for w in ([0.0, 0.0], [1e-300, 1e300 * 0], [1e150, -1e150], [3.0, 4.0]):
        want = qloss(w)
        call(f"quadratic losses w={w}", lambda w=w: P.losses(w), Val(want, 1e-12) if max(want) < 1.7e308 else Err())
    call("quadratic losses w=1e200 overflow", lambda: P.losses([1e200, 0.0]), Err())
    call("quadratic losses w torch float32", lambda: P.losses(torch.tensor([3.0, 4.0])), Val(qloss([3.0, 4.0]), 1e-6))
    call("quadratic losses w int", lambda: P.losses(np.array([3, 4])), Val(qloss([3.0, 4.0])))
    call("quadratic losses w bool", lambda: P.losses([True, False]), Err())
    call("quadratic losses w nan", lambda: P.losses([np.nan, 0.0]), Err())
    call("quadratic losses w short", lambda: P.losses([1.0]), Err())
    call("quadratic H not PSD", lambda: QuadraticProblem(-H, C), Err())
    call("quadratic H nan", lambda: QuadraticProblem(H * np.nan, C), Err())
    call("quadratic c wrong", lambda: QuadraticProblem(H, C[:1]), Err())
    call("quadratic p wrong", lambda: QuadraticProblem(H, C, p=[0.5]), Err())
    call("quadratic p sums 2", lambda: QuadraticProblem(H, C, p=[1.0, 1.0]), Err())
    call("quadratic empty", lambda: QuadraticProblem(np.zeros((0, 2, 2)), np.zeros((0, 2))), Err())
    call("quadratic grads w 1e150", lambda: P.grads([1e150, 0.0]), Val([[1e150 - 1.0, 0.0], [3e150, 1.0]], 1e-12))
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
    y = np.array([1.0, 2.0, 3.0, 0.0])
    L = LeastSquaresProblem(X, y, [0, 2, 4])
    call("least squares losses at 0", lambda: L.losses([0.0, 0.0]), Val([(1 + 4) / 4, (9 + 0) / 4]))
    call("least squares offsets unsorted", lambda: LeastSquaresProblem(X, y, [0, 3, 2, 4]), Err())
    call("least squares offsets past N", lambda: LeastSquaresProblem(X, y, [0, 2, 5]), Err())
    call("least squares empty client", lambda: LeastSquaresProblem(X, y, [0, 0, 4]), Err())
    call("least squares y short", lambda: LeastSquaresProblem(X, y[:3], [0, 2, 4]), Err())
    call("least squares offsets float", lambda: LeastSquaresProblem(X, y, [0.0, 2.5, 4.0]), Err())

    # ---------------------------------------------------------------- exact solvers
    W_SYM = 0.5 * (1.5**2 + 0.5**2)
    A_SYM = np.array([1.5, -0.5])
    for s in (1e-100, 1e-30, 1e-8, 1.0, 1e8, 1e30, 1e100):
        Ps = QuadraticProblem(s * np.stack([np.eye(2)] * 2), np.stack([A_SYM, -A_SYM]), p=[0.5, 0.5])
        call(f"solve_rcfl sym s={s:g}", lambda Ps=Ps: solve_rcfl(Ps, 0.7).value, Val(s * W_SYM, 1e-7))
        call(f"solve_afl sym s={s:g}", lambda Ps=Ps: solve_afl(Ps).value, Val(s * W_SYM, 1e-7))
        call(f"solve_fedavg sym s={s:g}", lambda Ps=Ps: solve_fedavg(Ps).value, Val(s * W_SYM, 1e-9))
        call(f"solve_qffl q=1 sym s={s:g}", lambda Ps=Ps: solve_qffl(Ps, 1.0).value, Any_())
        call(
            f"solve_smoothed mu=1e-12 s sym s={s:g}",
            lambda Ps=Ps, s=s: solve_smoothed_rcfl(Ps, 0.7, 1e-12 * s).value,
            Val(s * W_SYM, 1e-9),
        )
        call(
            f"solve_aggregator cvar sym s={s:g}", lambda Ps=Ps: solve_aggregator(Ps, agg.cvar(2, 0.6)).value, Val(s * W_SYM, 1e-7)
        )
    for sw in (1e-50, 1e-8, 1e8, 1e50):  # the model scale: centres at +-sw A
        Pw = QuadraticProblem(np.stack([np.eye(2)] * 2), np.stack([sw * A_SYM, -sw * A_SYM]), p=[0.5, 0.5])
        want = sw * sw * W_SYM
        call(f"solve_rcfl centres s={sw:g}", lambda Pw=Pw: solve_rcfl(Pw, 0.7).value, Val(want, 1e-7))
        call(f"solve_afl centres s={sw:g}", lambda Pw=Pw: solve_afl(Pw).value, Val(want, 1e-7))
    rng = np.random.default_rng(0)
    Xi = rng.normal(size=(12, 3))
    wt = np.array([1.0, -2.0, 0.5])
    Li = LeastSquaresProblem(Xi, Xi @ wt, [0, 4, 8, 12])
    call("solve_fedavg interpolation", lambda: solve_fedavg(Li).argmin, Val(list(wt), 0, 1e-8))
    call("solve_afl interpolation", lambda: solve_afl(Li).argmin, Val(list(wt), 0, 1e-8))
    call("solve_rcfl interpolation", lambda: solve_rcfl(Li, 0.5).argmin, Val(list(wt), 0, 1e-8))
    call("solve_smoothed interpolation mu 1e-9", lambda: solve_smoothed_rcfl(Li, 0.5, 1e-9).argmin, Val(list(wt), 0, 1e-6))
    call("solve_qffl interpolation", lambda: solve_qffl(Li, 1.0).argmin, Val(list(wt), 0, 1e-5))
    P1 = QuadraticProblem(np.eye(2)[None], np.array([[2.0, -1.0]]), [0.25])
    for a in (1.0, [1.0]):
        call(f"solve_rcfl n=1 alpha={a}", lambda a=a: solve_rcfl(P1, a).value, Val(0.25, 1e-9))
        call(f"solve_smoothed n=1 alpha={a} mu=1e-12", lambda a=a: solve_smoothed_rcfl(P1, a, 1e-12).value, Val(0.25, 1e-9))
    Psym = QuadraticProblem(np.stack([np.eye(2)] * 2), np.stack([A_SYM, -A_SYM]), p=[0.5, 0.5])
    for mu in (1e-300, 1e-100, 1e-12, 1e-7, 1e-5, 1e-2, 1e2, 1e100):
        call(
            f"solve_smoothed sym mu={mu:g}",
            lambda mu=mu: _smoothed_check(solve_smoothed_rcfl(Psym, 0.7, mu), Psym, 0.7, mu, W_SYM),
            Val(True),
        )
    for bad_name, thunk in [
        ("solve_rcfl alpha 0", lambda: solve_rcfl(Psym, 0.0)),
        ("solve_rcfl alpha 2", lambda: solve_rcfl(Psym, 2.0)),
        ("solve_rcfl alpha None", lambda: solve_rcfl(Psym, None)),
        ("solve_rcfl gap_tol nan", lambda: solve_rcfl(Psym, 0.7, gap_tol=float("nan"))),
        ("solve_fedavg grad_tol 0", lambda: solve_fedavg(Psym, grad_tol=0.0)),
        ("solve_smoothed mu inf", lambda: solve_smoothed_rcfl(Psym, 0.7, float("inf"))),
        ("solve_smoothed mu -1", lambda: solve_smoothed_rcfl(Psym, 0.7, -1.0)),
        ("solve_smoothed grad_tol -1", lambda: solve_smoothed_rcfl(Psym, 0.7, 0.1, grad_tol=-1.0)),
        ("solve_smoothed method None", lambda: solve_smoothed_rcfl(Psym, 0.7, 0.1, method=None)),
        ("solve_qffl q -1", lambda: solve_qffl(Psym, -1.0)),
        ("solve_qffl q nan", lambda: solve_qffl(Psym, float("nan"))),
        ("solve_qffl form bad", lambda: solve_qffl(Psym, 1.0, form="nope")),
        ("solve_aggregator None", lambda: solve_aggregator(Psym, None)),
        ("solve_aggregator n mismatch", lambda: solve_aggregator(Psym, agg.afl(3))),
        ("solve_aggregator problem None", lambda: solve_aggregator(None, agg.afl(2))),
        ("project_qp S None", lambda: capped.project_qp(None, [1.0, 2.0])),
        ("support_lp v torch nan", lambda: capped.support_lp(S3, torch.tensor([1.0, float("nan"), 2.0]))),
        ("qalpha_dual_lp alpha 0", lambda: capped.qalpha_dual_lp([1.0, 2.0], [0.5, 0.5], 0.0)),
    ]:
        call(bad_name, thunk, Err())


def build2() -> None:  # noqa: C901 - a flat table of calls
    """Part 2: RC-FL objectives, problems and generators, relative fairness, strategies, property checks."""
    import torch

    from fairtheory import aggregators as agg
    from fairtheory.exact.relative import index_curve, select_phi
    from fairtheory.objectives import qalpha as qa
    from fairtheory.objectives import relative as rel
    from fairtheory.problems import LogisticProblem, QuadraticProblem, random_least_squares, random_logistic
    from fairtheory.problems.multinomial import MultinomialProblem
    from fairtheory.sets import CappedSimplex, IntegratedSet
    from fairtheory.testing import check_monotone, loss_vectors, probability_vectors
    from fairtheory.testing.properties import check_between_mean_and_max, check_convex_in_losses

    p5 = [0.1, 0.2, 0.3, 0.15, 0.25]
    base = [1.0, 3.0, 2.0, 2.0, 5.0]
    # ---------------------------------------------------------------- HCVaR / deviation (002 Lemma 1, Sec. 3.2)
    for s in (1e-300, 1e-20, 1.0, 1e20, 1e300):
        f = [x * s for x in base]
        fa = fqalpha(f, p5, 0.5)
        c = [pi / 0.5 for pi in p5]
        e_pi = float(sum((F(ci) * F(fi) for ci, fi in zip(c, f, strict=True)), Fraction(0)) / sum(F(ci) for ci in c))
        call(f"hcvar ru = f_alpha s={s:g}", lambda f=f: qa.hcvar(f, p5, 0.5), Val(fa, 1e-12))
        call(f"deviation 002 s={s:g}", lambda f=f: qa.deviation(f, p5, 0.5), Val(fa - e_pi, 1e-10, 1e-14 * s))
        call(f"deviation 000 s={s:g}", lambda f=f: qa.deviation(f, p5, 0.5, "000"), Val(fa - e_pi, 1e-10, 1e-14 * s))
        call(f"qalpha_dual eta in [min, max] s={s:g}", lambda f=f: min(f) <= qa.qalpha_dual(f, p5, 0.5)[1] <= max(f), Val(True))
    call("deviation constant f", lambda: qa.deviation([2.0] * 5, p5, 0.5), Val(0.0, 0, 1e-15))
    call("deviation version bad", lambda: qa.deviation(base, p5, 0.5, "001"), Err())
    call("hcvar reading bad", lambda: qa.hcvar(base, p5, 0.5, "nope"), Err())
    call("hcvar conditional ties", lambda: qa.hcvar([2.0] * 5, p5, 0.5, "conditional"), Any_())
    call("hcvar alpha=1", lambda: qa.hcvar(base, p5, 1.0), Val(math.fsum(a * b for a, b in zip(p5, base, strict=True)), 1e-12))
    for x, eta, mu in [(1.0, 0.0, 1e-300), (1.0, 0.0, 1e300), (-1e300, 1e300, 1.0), (0.5, 0.5, 1e-5)]:
        z = (x - eta) / mu if math.isfinite((x - eta) / mu) else math.copysign(math.inf, x - eta)
        sig = 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
        call(
            f"client_weights_mu x={x:g} eta={eta:g} mu={mu:g}",
            lambda x=x, eta=eta, mu=mu: qa.client_weights_mu([x, x], eta, 0.5, mu),
            Val([sig / 0.5] * 2, 1e-12),
        )
    call(
        "client_weights_mu torch grad",
        lambda: qa.client_weights_mu(torch.tensor([1.0, 2.0], requires_grad=True), 0.0, 0.5, 1.0),
        Val([2 / (1 + math.exp(-1.0)), 2 / (1 + math.exp(-2.0))], 1e-6),
    )
    call("client_weights_mu mu 0", lambda: qa.client_weights_mu(base, 0.0, 0.5, 0.0), Err())
    call("client_weights_mu eta nan", lambda: qa.client_weights_mu(base, float("nan"), 0.5, 1.0), Err())
    call("client_weights_mu alpha 0", lambda: qa.client_weights_mu(base, 0.0, 0.0, 1.0), Err())
    call("client_weights_mu empty", lambda: qa.client_weights_mu([], 0.0, 0.5, 1.0), Err())

    # ---------------------------------------------------------------- logistic / multinomial problems
    X = np.array([[1.0, 0.5], [-0.3, 1.0], [0.8, -1.2], [0.1, 0.4]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    LP = LogisticProblem(X, y, [0, 2, 4])

    def logloss(w: list[float], l2: float = 0.0) -> list[float]:
        out = []
        for a, b in ((0, 2), (2, 4)):
            terms = []
            for j in range(a, b):
                m = -y[j] * (X[j][0] * w[0] + X[j][1] * w[1])
                terms.append(m + math.log1p(math.exp(-m)) if m > 0 else math.log1p(math.exp(m)))
            out.append(math.fsum(terms) / (b - a) + (0.5 * l2 * (w[0] ** 2 + w[1] ** 2) if l2 else 0.0))
        return out

    for w in ([0.0, 0.0], [1.0, -2.0], [1e3, 1e3], [1e150, -1e150], [1e300, 0.0], [-1e300, 1e300 * 0.5]):
        try:
            want = logloss(w)
            ok = all(math.isfinite(v) for v in want)
        except OverflowError:
            ok = False
        call(f"logistic losses w={w}", lambda w=w: LP.losses(w), Val(want, 1e-12) if ok else Err())
    call(
        "logistic losses float32 w", lambda: LP.losses(np.array([1.0, -2.0], dtype=np.float32)), Val(logloss([1.0, -2.0]), 1e-12)
    )
    call(
        "logistic losses torch w",
        lambda: LP.losses(torch.tensor([1.0, -2.0], dtype=torch.float64)),
        Val(logloss([1.0, -2.0]), 1e-12),
    )
    call("logistic grads w 1e300", lambda: LP.grads([1e300, 0.0]), Any_())
    call("logistic y not +-1", lambda: LogisticProblem(X, [0.0, 1.0, 1.0, 0.0], [0, 2, 4]), Err())
    call("logistic X nan", lambda: LogisticProblem(X * np.nan, y, [0, 2, 4]), Err())
    call("logistic offsets wrong end", lambda: LogisticProblem(X, y, [0, 2, 3]), Err())
    call("logistic offsets negative", lambda: LogisticProblem(X, y, [-1, 2, 4]), Err())
    call("logistic p wrong", lambda: LogisticProblem(X, y, [0, 2, 4], p=[1.0, 1.0]), Err())
    call("logistic losses w 2-D", lambda: LP.losses([[1.0, 2.0]]), Err())
    call("logistic losses w string", lambda: LP.losses("ab"), Err())
    yc = np.array([0, 2, 1, 2])
    MP = MultinomialProblem(X, yc, [0, 2, 4], 3, intercept=False)
    call("multinomial losses at 0", lambda: MP.losses(np.zeros(MP.d)), Val([math.log(3)] * 2, 1e-14))
    call("multinomial labels out of range", lambda: MultinomialProblem(X, [0, 3, 1, 2], [0, 2, 4], 3), Err())
    call("multinomial n_classes 1", lambda: MultinomialProblem(X, [0, 0, 0, 0], [0, 2, 4], 1), Err())
    call("multinomial labels float", lambda: MultinomialProblem(X, [0.5, 1, 1, 2], [0, 2, 4], 3), Err())
    call("multinomial huge w", lambda: MP.losses(np.full(MP.d, 1e300)), Any_())
    for bad_name, thunk in [
        ("random_logistic n 0", lambda: random_logistic(0, 2, 5, rng=np.random.default_rng(0))),
        ("random_logistic m 0", lambda: random_logistic(2, 2, 0, rng=np.random.default_rng(0))),
        ("random_logistic d 0", lambda: random_logistic(2, 0, 5, rng=np.random.default_rng(0))),
        ("random_logistic flip 2", lambda: random_logistic(2, 2, 5, rng=np.random.default_rng(0), flip=2.0)),
        ("random_logistic rng int", lambda: random_logistic(2, 2, 5, rng=3)),
        ("random_logistic m list short", lambda: random_logistic(3, 2, [5, 5], rng=np.random.default_rng(0))),
        ("random_least_squares noise -1", lambda: random_least_squares(2, 2, 5, rng=np.random.default_rng(0), noise=-1.0)),
        ("random_least_squares n huge", lambda: random_least_squares(10**12, 2, 5, rng=np.random.default_rng(0))),
        ("random_logistic m huge", lambda: random_logistic(2, 2, 10**12, rng=np.random.default_rng(0))),
    ]:
        call(bad_name, thunk, Err())
    call("random_least_squares m float", lambda: random_least_squares(2, 2, 5.0, rng=np.random.default_rng(0)).n, Any_())
    call(
        "QuadraticProblem torch data",
        lambda: QuadraticProblem(torch.eye(2)[None], torch.zeros(1, 2)).losses([1.0, 1.0]),
        Val([1.0]),
    )
    call(
        "QuadraticProblem float32 data",
        lambda: QuadraticProblem(np.eye(2, dtype=np.float32)[None], np.zeros((1, 2), np.float32)).losses([0.1, 0.2]),
        Val([0.5 * (0.01 + 0.04)], 1e-12),
    )

    # ---------------------------------------------------------------- relative fairness
    S3 = CappedSimplex.simplex(3)
    C3 = CappedSimplex.cvar(3, 1 / 3)
    call("prop9 bounds", lambda: rel.prop9_bounds(3.0, 2.0, 0.5, 1.0, 4.0), Val((0.5 + 2.0 / 4.0, 0.5 + 2.0 / 1.0)))
    call("prop9 V outside [c, C]", lambda: rel.prop9_bounds(3.0, 5.0, 0.5, 1.0, 4.0), Err())
    call("prop9 c 0", lambda: rel.prop9_bounds(3.0, 2.0, 0.5, 0.0, 4.0), Err())
    call("prop9 huge", lambda: rel.prop9_bounds(1e300, 1e300, 0.5, 1e300, 1e300), Val((1.0, 1.0), 1e-12))
    call("lemma8", lambda: rel.lemma8_bound(1.0, 2.0, 0.25), Val((1.0 - 0.5) / 0.75, 1e-15))
    call("lemma8 huge", lambda: rel.lemma8_bound(1e300, 1e308, 0.5), Val((1e300 - 0.5e308) / 0.5, 1e-12))
    call("lemma8 L < mu", lambda: rel.lemma8_bound(2.0, 1.0, 0.5), Err())
    call("skewness simplex", lambda: rel.skewness(S3), Val(3.0))
    call("skewness cvar 2/3", lambda: rel.skewness(CappedSimplex.cvar(3, 2 / 3)), Val(3 * (0.25 + 0.25), 1e-12))
    call("skewness n 30 refused", lambda: rel.skewness(CappedSimplex.simplex(30)), Err())
    call("skewness None", lambda: rel.skewness(None), Err())
    Q = QuadraticProblem(np.stack([np.eye(2), 2 * np.eye(2), 3 * np.eye(2)]), np.zeros((3, 2)))
    call(
        "convex_regime common", lambda: rel.convex_regime(Q, IntegratedSet(S3, S3, 0.5)).convex, Val(False)
    )  # min eig at a = e1, b = e3: (1 - 0.5 * 3)/0.5 = -1
    call("convex_regime phi 0", lambda: rel.convex_regime(Q, IntegratedSet(S3, S3, 0.0)).min_eig, Val(1.0, 1e-12))
    call("convex_regime iset None", lambda: rel.convex_regime(Q, None), Err())
    call("convex_regime problem None", lambda: rel.convex_regime(None, IntegratedSet(S3, S3, 0.5)), Err())
    call("index_curve phis empty", lambda: index_curve(Q, S3, C3, []), Err())
    call("index_curve phis nan", lambda: index_curve(Q, S3, C3, [float("nan")]), Err())
    call("index_curve phis 1", lambda: index_curve(Q, S3, C3, [1.0]), Err())
    call("select_phi phis string", lambda: select_phi(Q, S3, C3, "abc"), Err())

    # ---------------------------------------------------------------- model coordinates far from order one
    from fairtheory.exact.aggregate import solve_aggregator
    from fairtheory.exact.qffl import solve_qffl
    from fairtheory.exact.rcfl import maxmin_quadratic, solve_smoothed_rcfl
    from fairtheory.exact.relative import global_search_minimax, solve_integrated_minimax

    A2 = np.array([1.5, -0.5])
    for sw in (1e-8, 1e8):
        Pw = QuadraticProblem(np.stack([np.eye(2)] * 2), np.stack([sw * A2, -sw * A2]), p=[0.5, 0.5])
        want = sw * sw * 0.5 * float(A2 @ A2)  # optimum w = 0 by symmetry for every minimax objective
        I2 = IntegratedSet(CappedSimplex.simplex(2), CappedSimplex.cvar(2, 0.6), 0.3)
        call(
            f"maxmin_quadratic centres {sw:g}",
            lambda Pw=Pw: maxmin_quadratic(Pw, CappedSimplex.simplex(2)).value,
            Val(want, 1e-7),
        )
        call(
            f"solve_integrated_minimax centres {sw:g}",
            lambda Pw=Pw, I2=I2: solve_integrated_minimax(Pw, I2).value,
            Val(want, 1e-7),
        )
        call(f"global_search_minimax centres {sw:g}", lambda Pw=Pw, I2=I2: global_search_minimax(Pw, I2).value, Val(want, 1e-7))
        call(f"solve_qffl q=1 centres {sw:g}", lambda Pw=Pw: solve_qffl(Pw, 1.0).value, Val(want * want / 2, 1e-7))
        call(f"solve_aggregator cvar centres {sw:g}", lambda Pw=Pw: solve_aggregator(Pw, agg.cvar(2, 0.6)).value, Val(want, 1e-7))
        call(
            f"solve_smoothed centres {sw:g}",
            lambda Pw=Pw, sw=sw, want=want: _smoothed_check(
                solve_smoothed_rcfl(Pw, 0.7, 0.1 * sw * sw), Pw, 0.7, 0.1 * sw * sw, want
            ),
            Val(True),
        )

    # -------------------------------------------- smoothed Q_alpha beyond float resolution; audits at extreme ranges
    from fairtheory.testing import audit

    sq = agg.SmoothedQalpha([0.2, 0.3, 0.5], 0.5, 0.1)
    call("SmoothedQalpha weights 1e300 ties", lambda: sq.weights([1e300, -1e300, -1e300]), Val([0.4, 0.225, 0.375], 1e-12))
    call("SmoothedQalpha weights near max", lambda: sq.weights([1.7e308, -1.7e308, 1e308]), Val([0.4, 0.0, 0.6], 1e-12))
    call("SmoothedQalpha value flat far eta", lambda: sq.value([0.0, 2.0**31, -4.32278124e16]), Val(0.6 * 2.0**31, 1e-15))
    call("SmoothedQalpha value residual 1e-28", lambda: sq.value([0.0, 1.0, -3.74109007e27]), Val(0.6, 1e-15))
    for s_ in (1e-100, 1e-12, 1e12, 1e100):
        Ps = QuadraticProblem(s_ * np.stack([np.eye(2)] * 2), np.stack([A2, -A2]), p=[0.5, 0.5])
        call(
            f"solve_aggregator TERM s={s_:g}",
            lambda Ps=Ps, s_=s_: solve_aggregator(Ps, agg.TERM(Ps.p, 1.0 / s_)).value,
            Val(1.25 * s_, 1e-9),
        )
        call(
            f"solve_aggregator QFFL s={s_:g}",
            lambda Ps=Ps: solve_aggregator(Ps, agg.QFFL(Ps.p, 1.0)).value,
            Val((1.25 * s_) ** 2 / 2, 1e-9),
        )
    p3 = np.array([0.2, 0.3, 0.5])
    for lo, hi in ((-1e300, 1e300), (0.0, 1e308), (1e300, 1.7e308), (0.0, 1e-300)):
        for name, a in (("smoothed", agg.SmoothedQalpha(p3, 0.5, 0.1)), ("term", agg.TERM(p3, 1.0)), ("cvar", agg.cvar(3, 0.5))):
            call(
                f"audit {name} range [{lo:g}, {hi:g}]",
                lambda a=a, lo=lo, hi=hi: (
                    audit(
                        a,
                        max_examples=15,
                        min_loss=lo,
                        max_loss=hi,
                        properties=("defined", "subgradient", "weights_nonnegative", "monotone", "convex", "separable_form"),
                    ).passed
                ),
                Val(True),
            )

    # ---------------------------------------------------------------- strategies and property checks
    for bad_name, thunk in [
        ("loss_vectors n 0", lambda: loss_vectors(n=0)),
        ("loss_vectors min > max", lambda: loss_vectors(min_value=5.0, max_value=1.0)),
        ("loss_vectors nan bound", lambda: loss_vectors(min_value=float("nan"))),
        ("loss_vectors inf bound", lambda: loss_vectors(max_value=float("inf"))),
        ("loss_vectors n string", lambda: loss_vectors(n="3")),
        ("probability_vectors n -1", lambda: probability_vectors(n=-1)),
        ("check_monotone not callable", lambda: check_monotone(3, [1.0], [1.0])),
        ("check_monotone shape", lambda: check_monotone(agg.afl(2), [1.0, 2.0], [1.0])),
        ("check_convex t 2", lambda: check_convex_in_losses(agg.afl(2), [1.0, 2.0], [2.0, 1.0], 2.0)),
        ("check_between p bad", lambda: check_between_mean_and_max(agg.afl(2), [1.0, 2.0], [0.7, 0.7])),
        ("check_monotone nan", lambda: check_monotone(agg.afl(2), [np.nan, 2.0], [1.0, 1.0])),
    ]:
        call(bad_name, thunk, Err())
    call("check_monotone afl huge", lambda: check_monotone(agg.afl(2), [1e308, 1.0], [1e308, 0.0]), Err())  # overflow: named
    call("check_between qalpha", lambda: check_between_mean_and_max(agg.qalpha(p5, 0.5), base, p5) is None, Val(True))


def _smoothed_in_bounds(A: Any, f: list[float], p: list[float], alpha: float, mu: float) -> bool:
    """002 Lemma 2 (tight): f_alpha <= A_mu <= f_alpha + mu tau log 2 (tau = 1/alpha), with float slack."""
    v = A.value(f)
    fa = fqalpha(f, p, alpha)
    slack = 1e-12 * max(abs(fa), 1e-300)
    return bool(fa - slack <= v <= fa + mu * (1 / alpha) * math.log(2) + slack)


def _smoothed_check(r: Any, P: Any, alpha: float, mu: float, f_star: float) -> bool:
    """The returned value is F^mu at (argmin, eta) (direct formula) and within Lemma 2 of f*_alpha."""
    w = np.asarray(r.argmin, dtype=np.float64)
    eta = float(r.extra["eta"])
    f = [0.5 * float((w - P.c[i]) @ P.H[i] @ (w - P.c[i])) + float(P.e[i]) for i in range(P.n)]
    c = [float(P.p[i]) / alpha for i in range(P.n)]
    if math.isfinite(eta):
        direct = math.fsum(ci * mu * float(np.logaddexp(0.0, (fi - eta) / mu)) for ci, fi in zip(c, f, strict=True)) + eta
    else:
        direct = math.fsum(float(P.p[i]) * f[i] for i in range(P.n))
    tau = sum(c)
    ok_val = math.isclose(r.value, direct, rel_tol=1e-9, abs_tol=1e-12 * max(1.0, abs(direct)))
    return bool(ok_val and f_star - 1e-9 * f_star <= r.value <= f_star + mu * tau * math.log(2) + 1e-9 * f_star)


# ================================================================================ the run
def _matches(out: Any, want: Any, rtol: float, atol: float) -> bool:
    try:
        import torch

        if isinstance(out, torch.Tensor):
            out = out.detach().cpu().numpy()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(want, bool) or isinstance(out, (bool, np.bool_)):
        return bool(out) == want and isinstance(out, (bool, np.bool_))
    try:
        got = np.asarray(out, dtype=np.float64)
        exp = np.asarray(want, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    if got.shape != exp.shape or not np.all(np.isfinite(got)):
        return False
    return bool(np.allclose(got, exp, rtol=rtol, atol=atol))


def _finite(out: Any) -> bool:
    try:
        import torch

        if isinstance(out, torch.Tensor):
            out = out.detach().cpu().numpy()
    except ImportError:  # pragma: no cover
        pass
    if hasattr(out, "value") and not isinstance(out, np.ndarray):
        out = out.value
    try:
        return bool(np.all(np.isfinite(np.asarray(out, dtype=np.float64))))
    except (TypeError, ValueError):
        return True  # not numeric (a report, a tuple of arrays): no finiteness to check


def run(verbose: bool = False) -> dict[str, Any]:
    from fairtheory.errors import FairtheoryError

    CALLS.clear()
    build()
    build2()
    counts: Counter[str] = Counter()
    bad: list[str] = []
    for cid, fn, oracle in CALLS:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            try:
                out, exc = fn(), None
            except Exception as e:  # noqa: BLE001 - classified below
                out, exc = None, e
        loud = [w for w in rec if issubclass(w.category, (RuntimeWarning, UserWarning, DeprecationWarning))]
        if exc is not None:
            if not isinstance(exc, FairtheoryError):
                kind = "obscure"
            elif isinstance(oracle, Val):
                kind = "refused"
            else:
                kind = "correct"
        elif isinstance(oracle, Err):
            kind = "silently wrong"
        elif isinstance(oracle, Val):
            kind = "correct" if _matches(out, oracle.expected, oracle.rtol, oracle.atol) else "silently wrong"
        else:
            kind = "correct" if _finite(out) else "silently wrong"
        counts[kind] += 1
        if loud:
            counts["warned"] += 1
        if kind != "correct" or loud:
            what = f"{type(exc).__name__}: {exc}" if exc is not None else f"returned {out!r}"
            if isinstance(oracle, Val) and exc is None:
                what += f" (expected {oracle.expected!r})"
            warn = f" [warnings: {[str(w.message)[:80] for w in loud]}]" if loud else ""
            bad.append(f"{kind:15s} {cid}: {what[:300]}{warn}")
    counts["calls"] = len(CALLS)
    if verbose:
        print("\n".join(bad))
    return {"counts": dict(counts), "bad": bad}


if __name__ == "__main__":
    res = run(verbose="-v" in sys.argv)
    c = res["counts"]
    print(
        f"calls {c['calls']}: correct {c.get('correct', 0)}, silently wrong {c.get('silently wrong', 0)}, "
        f"obscure {c.get('obscure', 0)}, refused {c.get('refused', 0)}, warned {c.get('warned', 0)}"
    )
