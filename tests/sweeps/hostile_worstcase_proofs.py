"""Held-out hostile sweep, round 3: the surfaces added since round 2 (issue 24, "No silent wrong answers, round 3").

Surfaces: ``worstcase`` (:func:`fairtheory.worstcase.worst_case` over the algorithms' own ``make``, plugin-like
``make`` functions, :class:`~fairtheory.worstcase.PEPProblem`, :func:`~fairtheory.worstcase.local_gd_worst_case`,
:func:`~fairtheory.worstcase.worst_case_vs_rounds`), ``gram`` (symbolic arrays of the traced backend), ``proofs``
(:mod:`fairtheory.proofs`: certificates, forged JSON, ``implies``/``describe``/``statement_of``,
``fit_closed_form``, ``symbolic.goal_of``), ``algorithms`` (hostile hyper-parameters and callables of the
newer methods), ``verify`` (:mod:`verify.core` tallies, contexts and hostile :class:`~verify.core.Outcome`
objects through ``run_claim``) and ``cli`` (``python -m verify`` with bad arguments).

Every call comes with an oracle computed here, independently of the library:

* closed forms of the worst case of gradient descent on ``L``-smooth convex functions with
  ``||x0 - x*||^2 <= D0`` and step ``h/L``: ``L D0/(4 N h + 2)`` for ``0 < h <= 1`` (Drori & Teboulle 2014), and
  for every ``h > 0`` the lower bounds of explicit instances (the Huber function of Drori & Teboulle, the
  quadratics ``a x^2/2``, ``a`` in ``[mu, L]``); FedAvg with one local step (and Scaffold, Ditto's global model)
  is gradient descent on ``sum_i p_i f_i`` whatever the heterogeneity; with one client (or ``rho2 = 0`` and
  identical clients) local steps are gradient steps;
* exact rationals for certificates (a forged bound, edited multipliers, a relabelled statement must check
  ``False``) and for the algorithms' first steps on quadratics.

Oracles (``Val``, ``Err``, ``Any_`` and the helpers ``_matches`` / ``_finite`` are round 2's, loaded from
``hostile_library.py``): ``Val(expected, rtol, atol)``; ``Err()`` (a named error is due); ``Any_()`` (a finite
value or a named error); ``Between(lo, hi, rtol)`` (a value in ``[lo, hi]`` up to ``rtol``: a valid lower bound
from an explicit instance, an upper bound from a theorem); ``OrErr(oracle)`` (that oracle, or a named error);
``Cli(needle)`` (exit status 2 with one line ``python -m verify: error: ...`` on stderr, no claim run).  A
:class:`~fairtheory.worstcase.WorstCase` is judged by its ``value`` when ``certified()``; an uncertified one
where a value is due counts as ``refused`` (the library said it is not sure).

Classes (as in round 2): ``correct``, ``silently wrong`` (a value that contradicts the oracle, or a value where
an error is due), ``obscure`` (an exception that is not a :class:`~fairtheory.errors.FairtheoryError` - nor
:class:`verify.validate.OutcomeError` - a crash, a ``MemoryError``), ``obscure (too slow)`` (past the call's time
limit), ``refused`` (a named error where a value is due), and ``warned`` (a RuntimeWarning / UserWarning /
DeprecationWarning escaped; counted on top).  Every call runs in a forked child with a wall-clock limit and an
address-space cap (2 GiB above the parent), so a hang or a huge allocation is classified, never suffered.

``python tests/sweeps/hostile_worstcase_proofs.py [-v]`` prints the counts per class and per surface (``-v`` lists every
call that is not correct); ``tests/test_sweep_worstcase_proofs.py`` (slow) asserts no silently wrong and no obscure call.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import os
import pickle
import re
import resource
import select
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np


def _round2() -> Any:
    name = "hostile_library_helpers"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("hostile_library.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


_R2 = _round2()
Val, Err, Any_, _matches, _finite = _R2.Val, _R2.Err, _R2.Any_, _R2._matches, _R2._finite


@dataclass(frozen=True)
class Between:
    lo: float
    hi: float = math.inf
    rtol: float = 1e-6
    atol: float = 0.0


@dataclass(frozen=True)
class OrErr:
    inner: Any


@dataclass(frozen=True)
class Cli:
    needle: str = ""


class TooSlow(Exception):
    """Raised (in the parent) when a call overran its time limit."""


@dataclass(frozen=True)
class Call:
    cid: str
    surface: str
    fn: Callable[[], Any]
    oracle: Any
    timeout: float


CALLS: list[Call] = []
_SURFACE = ["?"]
DEFAULT_TIMEOUT = 60.0
#: address space a call may add to the parent's (bytes)
CHILD_MEMORY = 2 * 2**30


def call(cid: str, fn: Callable[[], Any], oracle: Any, timeout: float = DEFAULT_TIMEOUT) -> None:
    CALLS.append(Call(cid, _SURFACE[0], fn, oracle, timeout))


def surface(name: str) -> None:
    _SURFACE[0] = name


NAN, INF = float("nan"), float("inf")


# ================================================================================ independent oracles
def W_gd(N: int, h: float, L: float = 1.0, D0: float = 1.0) -> float:
    """Exact worst case of ``f(x_N) - f*`` of GD with step ``h/L`` on ``L``-smooth convex ``f``, ``||x0 - x*||^2 <= D0``:

    * ``0 < h <= 1``: ``L D0/(4 N h + 2)`` (Drori & Teboulle 2014);
    * ``h >= 2``: ``L D0 (h - 1)^(2N)/2``.  Upper bound: ``grad f/L`` is firmly nonexpansive (Baillon-Haddad), i.e.
      ``(I + N)/2`` with ``N`` nonexpansive, so ``x -> x - (h/L) grad f(x) = (1 - h/2) I - (h/2) N`` is
      ``(h - 1)``-Lipschitz, ``||x_N - x*|| <= (h - 1)^N ||x0 - x*||`` and ``f(x_N) - f* <= L/2 ||x_N - x*||^2``;
      attained by ``f = L x^2/2``."""
    if 0 < h <= 1:
        return float(Fraction(L) * Fraction(D0) / (4 * N * Fraction(h) + 2))
    assert h >= 2
    return float(Fraction(L) * Fraction(D0) * (Fraction(h) - 1) ** (2 * N) / 2)


def _quad_values(N: int, h: float, a_over_L: float, output: str) -> float:
    """``f/(L D0)`` of ``f = a x^2/2`` after ``N`` GD steps of ``h/L`` (``output`` ``last`` or ``mean`` of x_1..x_N)."""
    r = 1.0 - h * a_over_L
    if output == "last":
        x = r**N
    else:
        x = math.fsum(r**k for k in range(1, N + 1)) / N
    return 0.5 * a_over_L * x * x


def gd_lower(N: int, h: float, L: float = 1.0, D0: float = 1.0, mu: float = 0.0, output: str = "last") -> float:
    """A lower bound on the worst case of GD (step ``h/L``) from explicit instances: the Huber function of
    Drori & Teboulle (``mu = 0``; its iterates stay on the linear piece for every ``h > 0``) and the quadratics
    ``a x^2/2``, ``a in [mu, L]`` (a grid plus the stationary point of ``a (1 - h a/L)^(2N)``)."""
    best = 0.0
    if mu == 0:
        R, k = 1.0, 2 * N * h + 1  # normalised units L = D0 = 1
        xs = [R * (1 - j * h / k) for j in range(1, N + 1)]
        x = xs[-1] if output == "last" else math.fsum(xs) / N
        best = max(best, R / k * x - R * R / (2 * k * k))
    lo = mu / L
    grid = [lo + (1 - lo) * i / 2000 for i in range(2001)]
    star = 1.0 / (h * (2 * N + 1))
    if lo <= star <= 1:
        grid.append(star)
    best = max(best, max(_quad_values(N, h, a, output) for a in grid))
    return best * L * D0


def gd_mean_upper(N: int, h: float, L: float = 1.0, D0: float = 1.0) -> float:
    """``f(mean x_1..x_N) <= mean f(x_k) <= mean_k L D0/(4 k h + 2)`` (convexity and Drori & Teboulle)."""
    return math.fsum(W_gd(k, h, L, D0) for k in range(1, N + 1)) / N


# ================================================================================ shared fixtures
#: certificates the committed library produced and re-checked (data: the forgeries below start from them)
CERT_A = json.loads(  # GD, one client, h = 1, one step: f(x1) - f* <= 0.16667 (1/6 is the exact worst case)
    '{"kind":"pep-dual","version":2,"statement":{"class":{"functions":"smooth-convex","L":"1","mu":"0"},"n":1,'
    '"p":["1"],"method":{"name":"linear","evaluations":[[0,[[0,"1"]]],[0,[[0,"1"],[1,"-1"]]]],"measure":["value"],"outputs":[["1",[[[0,"1"],[1,"-1"]]]]]},'
    '"bound":{"form":"constrained","D0":"1","rho2":"0","value":"183251937963/1099511627776"}},"evidence":'
    '{"multipliers":[[0,"127401434665/549755813888"],[1,"422354379223/549755813888"],[3,"422354379223/549755813888"],'
    '[5,"147476472279/274877906944"],[6,"183251937963/1099511627776"]]}}')
CERT_B = json.loads(  # FedAvg, two clients, lr = 1/2, one round, rho2 = 1: exactly 1/4
    '{"kind":"pep-dual","version":2,"statement":{"class":{"functions":"smooth-convex","L":"1","mu":"0"},"n":2,'
    '"p":["1/2","1/2"],"method":{"name":"linear","evaluations":[[0,[[0,"1"]]],[1,[[0,"1"]]],'
    '[0,[[0,"1"],[2,"-1/4"],[3,"-1/4"]]],[1,[[0,"1"],[2,"-1/4"],[3,"-1/4"]]]],"measure":["value"],"outputs":[["1",[[[0,"1"],[2,"-1/4"],[3,"-1/4"]]]]]},'
    '"bound":{"form":"constrained","D0":"1","rho2":"1","value":"1/4"}},"evidence":{"multipliers":'
    '[[0,"86853850487/1099511627776"],[1,"462901963401/1099511627776"],[3,"462901963401/1099511627776"],'
    '[5,"188024056457/549755813888"],[6,"86853850487/1099511627776"],[7,"462901963401/1099511627776"],'
    '[9,"462901963401/1099511627776"],[11,"188024056457/549755813888"],[12,"1/4"]]}}')


def forged(base: dict[str, Any], edit: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    d = copy.deepcopy(base)
    edit(d)
    return d


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def f(d: dict[str, Any]) -> None:
        x = d
        for k in path[:-1]:
            x = x[k]
        x[path[-1]] = value
    return f


def _mult(d: dict[str, Any], row: int) -> list[Any]:
    return next(m for m in d["evidence"]["multipliers"] if m[0] == row)


def quad_problem(n: int = 4, d: int = 2) -> Any:
    """``f_i(w) = 1/2 (w - c_i)^T H_i (w - c_i)``, ``H_i = diag(1 + i, 1)``, ``c_i = (i, -i)``, uniform ``p``."""
    from fairtheory.problems import QuadraticProblem

    H = np.stack([np.diag([1.0 + i] + [1.0] * (d - 1)) for i in range(n)])
    c = np.stack([np.array([float(i), -float(i)] + [0.0] * (d - 2)) for i in range(n)])
    return QuadraticProblem(H, c)


def fq_step(w0: list[float], lr: float, kappa: int = 1, n: int = 4, lam: list[Fraction] | None = None) -> list[float]:
    """Exact FedAvg round (``kappa`` local GD steps of ``lr``, then the ``lam``-average; default uniform) on
    :func:`quad_problem`, in rationals."""
    lr_q = Fraction(lr)
    lam = lam or [Fraction(1, n)] * n
    out = [Fraction(0), Fraction(0)]
    for i in range(n):
        h = [Fraction(1 + i), Fraction(1)]
        c = [Fraction(i), Fraction(-i)]
        w = [Fraction(x) for x in w0]
        for _ in range(kappa):
            w = [w[j] - lr_q * h[j] * (w[j] - c[j]) for j in range(2)]
        out = [out[j] + lam[i] * w[j] for j in range(2)]
    return [float(x) for x in out]


def fq_grad_step(w0: list[float], lr: float, n: int = 4) -> list[float]:
    """``w0 - lr * mean_i grad f_i(w0)`` on :func:`quad_problem`, exact."""
    return fq_step(w0, lr, 1, n)


def alg_run(make: Callable[..., Any], hyper: dict[str, Any], steps: int = 2, n: int = 4,
            w0: Any = (1.0, -1.0), problem: Any = None) -> np.ndarray:
    from fairtheory.backend import to_numpy

    P = quad_problem(n) if problem is None else problem
    alg = make(P, **hyper)
    s = alg.init(w0=None if w0 is None else np.asarray(w0, dtype=np.float64))
    rng = np.random.default_rng(0)
    for _ in range(steps):
        s = alg.step(s, rng)
    return np.asarray(to_numpy(s.w), dtype=np.float64)


# ================================================================================ plugin-like methods
@dataclass(frozen=True)
class _S:
    w: Any
    comms: int = 0


def scale_make(problem: Any, *, factor: Any = 1.0) -> Any:
    """A plugin method whose step is ``w <- factor * w`` (no gradient at all)."""
    from fairtheory.algorithms.base import Algorithm

    def init(w0: Any = None) -> _S:
        return _S(problem.initial_point() if w0 is None else w0)

    def step(state: _S, rng: Any = None) -> _S:
        return _S(state.w * factor, state.comms + 1)

    return Algorithm("scale", problem, {"factor": factor}, init, step)


def gd_make(problem: Any, *, lr: Any) -> Any:
    """A plugin gradient method with no validation of its step size: ``w <- w - lr grad F(w)``."""
    from fairtheory.algorithms.base import Algorithm

    def init(w0: Any = None) -> _S:
        return _S(problem.initial_point() if w0 is None else w0)

    def step(state: _S, rng: Any = None) -> _S:
        W = problem.grads_each(problem._broadcast(state.w)) if hasattr(problem, "_broadcast") else None
        g = np.asarray(problem.p) @ W
        return _S(state.w - lr * g, state.comms + 1)

    return Algorithm("gd", problem, {"lr": lr}, init, step)


def numeric_make(problem: Any) -> Any:
    """A plugin method whose step turns the model into numbers (not PEP-representable)."""
    from fairtheory.algorithms.base import Algorithm

    def init(w0: Any = None) -> _S:
        return _S(problem.initial_point())

    def step(state: _S, rng: Any = None) -> _S:
        return _S(np.asarray(state.w, dtype=np.float64) * 0.5)

    return Algorithm("numeric", problem, {}, init, step)


def none_make(problem: Any, **kw: Any) -> Any:
    return None


# ================================================================================ the calls: worst cases
def build_worstcase() -> None:  # noqa: C901, PLR0915 - a flat table of calls
    from fairtheory.algorithms import ditto, fedavg, scaffold
    from fairtheory.worstcase import PEPProblem, local_gd_worst_case, worst_case, worst_case_vs_rounds

    surface("worstcase")
    wc = worst_case
    # ---------------------------------------------- gradient descent: one client, or FedAvg kappa = 1
    for N in (1, 2, 3, 5):
        for h in (0.25, 0.5, 1.0):
            call(f"wc fedavg n=1 N={N} h={h}", lambda N=N, h=h: wc(fedavg.make, N, n=1, L=1, D0=1, rho2=0, lr=h),
                 Val(W_gd(N, h), 1e-6))
    for N, h, n, rho2 in ((2, 0.5, 2, 1.0), (3, 1.0, 2, 0.0), (2, 1.0, 3, 2.0), (1, 0.5, 4, 1.0)):
        call(f"wc fedavg n={n} rho2={rho2} kappa=1 N={N} h={h}",
             lambda N=N, h=h, n=n, rho2=rho2: wc(fedavg.make, N, n=n, L=1, D0=1, rho2=rho2, lr=h), Val(W_gd(N, h), 1e-6))
    call("wc fedavg p=(1/4,3/4) rho2=1 N=2 h=1/2",
         lambda: wc(fedavg.make, 2, n=2, L=1, D0=1, rho2=1, p=[0.25, 0.75], lr=0.5), Val(W_gd(2, 0.5), 1e-6))
    for L, D0, lr in ((2.0, 3.0, 0.25), (1e-3, 1.0, 500.0), (10.0, 0.01, 0.1), (4.0, 2.0, 0.125)):
        h = L * lr
        call(f"wc fedavg scale L={L} D0={D0} lr={lr}",
             lambda L=L, D0=D0, lr=lr: wc(fedavg.make, 2, n=1, L=L, D0=D0, rho2=0, lr=lr), Val(W_gd(2, h, L, D0), 1e-6))
    call("wc fedavg lr schedule callable", lambda: wc(fedavg.make, 3, n=1, L=1, D0=1, rho2=0, lr=lambda r: 0.5),
         Val(W_gd(3, 0.5), 1e-6))
    call("wc fedavg hyper= mapping", lambda: wc(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, hyper={"lr": 0.5}),
         Val(W_gd(2, 0.5), 1e-6))
    call("wc fedavg rounds numpy int", lambda: wc(fedavg.make, np.int64(2), n=1, L=1, D0=1, rho2=0, lr=1.0),
         Val(W_gd(2, 1.0), 1e-6))
    # local steps with one client: N kappa gradient steps
    for N, kappa, h in ((1, 2, 1.0), (2, 2, 0.5), (1, 3, 0.5)):
        call(f"wc fedavg n=1 kappa={kappa} N={N} h={h}",
             lambda N=N, kappa=kappa, h=h: wc(fedavg.make, N, n=1, L=1, D0=1, rho2=0, lr=h, kappa=kappa),
             Val(W_gd(N * kappa, h), 1e-6))
    # local steps, several clients, rho2 = 0: identical clients are gradient descent (a lower bound)
    for N, kappa, h, n in ((1, 2, 0.5, 2), (2, 2, 1.0, 2), (1, 3, 0.5, 3)):
        call(f"wc fedavg n={n} kappa={kappa} N={N} h={h} rho2=0 >= GD",
             lambda N=N, kappa=kappa, h=h, n=n: wc(fedavg.make, N, n=n, L=1, D0=1, rho2=0, lr=h, kappa=kappa),
             Between(W_gd(N * kappa, h)))
        call(f"wc fedavg n={n} kappa={kappa} N={N} h={h} rho2=1 >= GD",
             lambda N=N, kappa=kappa, h=h, n=n: wc(fedavg.make, N, n=n, L=1, D0=1, rho2=1, lr=h, kappa=kappa),
             Between(W_gd(N * kappa, h)))
    # large steps: explicit instances give lower bounds (the case first)
    # (h >= 2: exactly L D0 (h - 1)^(2N)/2, see W_gd; 1 < h < 2: the explicit instances only)
    call("wc fedavg n=2 N=2 lr=100 (issue: two identical x^2/2 give 48029800.5)",
         lambda: wc(fedavg.make, 2, n=2, L=1, D0=1, rho2=0, lr=100), Between(48029800.5, W_gd(2, 100.0)))
    for N, h in ((1, 1.5), (2, 1.5), (3, 1.9), (2, 2.0), (2, 3.0), (1, 10.0), (3, 10.0), (2, 100.0), (1, 1000.0)):
        call(f"wc fedavg n=1 N={N} h={h} >= instances",
             lambda N=N, h=h: wc(fedavg.make, N, n=1, L=1, D0=1, rho2=0, lr=h),
             Between(gd_lower(N, h), W_gd(N, h) if h >= 2 else INF))
    call("wc fedavg n=3 N=2 h=5 rho2=1", lambda: wc(fedavg.make, 2, n=3, L=1, D0=1, rho2=1, lr=5.0),
         Between(gd_lower(2, 5.0), W_gd(2, 5.0)))
    call("wc fedavg n=2 N=2 h=100 L=2 D0=3", lambda: wc(fedavg.make, 2, n=2, L=2, D0=3, rho2=0, lr=50.0),
         Between(gd_lower(2, 100.0, 2.0, 3.0), W_gd(2, 100.0, 2.0, 3.0)))
    # output = mean: convexity and the explicit instances bracket it
    for N, h in ((2, 1.0), (3, 1.0), (3, 0.5), (4, 0.25)):
        call(f"wc fedavg mean N={N} h={h}",
             lambda N=N, h=h: wc(fedavg.make, N, n=1, L=1, D0=1, rho2=0, lr=h, output="average"),
             Between(gd_lower(N, h, output="mean"), gd_mean_upper(N, h)))
    # strongly convex: the quadratics a in [mu, L] below, the convex worst case above
    for N, h, mu in ((2, 1.0, 0.1), (3, 0.5, 0.5), (1, 1.0, 0.9)):
        call(f"wc fedavg mu={mu} N={N} h={h}",
             lambda N=N, h=h, mu=mu: wc(fedavg.make, N, n=1, L=1, D0=1, rho2=0, lr=h, class_mu=mu),
             Between(gd_lower(N, h, mu=mu), W_gd(N, h)))
    # partial participation: identical clients (rho2 = 0 allows them) are gradient descent
    for N, K, n in ((2, 1, 2), (1, 2, 2), (2, 2, 2)):
        call(f"wc fedavg K={K} n={n} N={N} h=1/2 >= GD",
             lambda N=N, K=K, n=n: wc(fedavg.make, N, n=n, L=1, D0=1, rho2=0, lr=0.5, K=K), Between(W_gd(N, 0.5)))
    # zero worst case: x0 = x*, one local step (GD on the average stays at x*)
    call("wc fedavg D0=0 rho2=1 kappa=1 is 0", lambda: wc(fedavg.make, 2, n=2, L=1, D0=0, rho2=1, lr=0.5),
         Val(0.0, 0, 1e-6))
    call("wc fedavg D0=0 rho2=1 certificate bound ~0",
         lambda: float(wc(fedavg.make, 2, n=2, L=1, D0=0, rho2=1, lr=0.5, certificate=True).certificate.bound),
         Val(0.0, 0, 1e-6))
    # certificates: the bound is an upper bound (>= the exact worst case), close to it, and re-checks
    for N, h in ((1, 1.0), (2, 0.5), (3, 1.0)):
        call(f"wc certificate bound N={N} h={h}",
             lambda N=N, h=h: float(wc(fedavg.make, N, n=1, L=1, D0=1, rho2=0, lr=h, certificate=True).certificate.bound),
             Between(W_gd(N, h), W_gd(N, h) * (1 + 1e-5), 0.0))
        call(f"wc certificate check N={N} h={h}",
             lambda N=N, h=h: wc(fedavg.make, N, n=1, L=1, D0=1, rho2=0, lr=h, certificate=True).certificate.check(),
             Val(True))
    call("wc certificate bound n=2 rho2=1 N=2 h=1/2",
         lambda: float(wc(fedavg.make, 2, n=2, L=1, D0=1, rho2=1, lr=0.5, certificate=True).certificate.bound),
         Between(W_gd(2, 0.5), W_gd(2, 0.5) * (1 + 1e-5), 0.0))
    call("wc certificate lr=100 bound >= 48029800.5",
         lambda: float(wc(fedavg.make, 2, n=2, L=1, D0=1, rho2=0, lr=100, certificate=True).certificate.bound),
         OrErr(Between(48029800.5)))
    call("wc certificate h=3 N=2 bound >= 8",
         lambda: float(wc(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, lr=3.0, certificate=True).certificate.bound),
         OrErr(Between(W_gd(2, 3.0))))
    call("wc certificate kappa=2 n=2 rho2=1 re-checks",
         lambda: wc(fedavg.make, 1, n=2, L=1, D0=1, rho2=1, lr=0.5, kappa=2, certificate=True).certificate.check(),
         OrErr(Val(True)))
    call("wc return_instance x0 in the ball",
         lambda: float(np.sum(np.asarray(wc(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, lr=0.5,
                                              return_instance=True).instance.x0) ** 2)) <= 1 + 1e-6, Val(True))
    # Scaffold and Ditto's global model are gradient descent here
    for N, kappa, el in ((2, 1, 0.5), (1, 2, 0.5), (2, 2, 0.25), (3, 1, 1.0)):
        call(f"wc scaffold n=1 kappa={kappa} R={N} lr={el}",
             lambda N=N, kappa=kappa, el=el: wc(scaffold.make, N, n=1, L=1, D0=1, rho2=0, kappa=kappa, lr=el),
             Val(W_gd(N * kappa, el), 1e-6))
    call("wc scaffold n=2 rho2=1 kappa=1", lambda: wc(scaffold.make, 3, n=2, L=1, D0=1, rho2=1, kappa=1, lr=0.5),
         Val(W_gd(3, 0.5), 1e-6))
    call("wc scaffold n=2 warm start kappa=1",
         lambda: wc(scaffold.make, 2, n=2, L=1, D0=1, rho2=1, kappa=1, lr=0.5, start={"warm_start": True}),
         Val(W_gd(2, 0.5), 1e-6))
    call("wc scaffold server_lr=2 lr=1/4 kappa=1", lambda: wc(scaffold.make, 2, n=2, L=1, D0=1, rho2=1, kappa=1,
                                                             lr=0.25, server_lr=2.0), Val(W_gd(2, 0.5), 1e-6))
    call("wc scaffold n=2 kappa=2 rho2=0 >= GD", lambda: wc(scaffold.make, 1, n=2, L=1, D0=1, rho2=0, kappa=2,
                                                            lr=0.5), Between(W_gd(2, 0.5)))
    call("wc ditto global n=1", lambda: wc(ditto.make, 2, n=1, L=1, D0=1, rho2=0, lr=0.5, lam=0.5),
         Val(W_gd(2, 0.5), 1e-6))
    call("wc ditto global n=2 rho2=1", lambda: wc(ditto.make, 2, n=2, L=1, D0=1, rho2=1, lr=1.0, lam=1.0),
         Val(W_gd(2, 1.0), 1e-6))
    # loss-dependent methods: a named error (not PEP-representable) or a finite value
    from fairtheory.algorithms import afl, drfa, fedfa, fedmgda, power_of_choice, qfedavg, rfedfair, scaffpd

    for name, mk, hyper in (("drfa", drfa.make, dict(kappa=1, lr=0.5, dual_lr=0.1, K=1)),
                            ("afl", afl.make, dict(lr=0.5, dual_lr=0.1)),
                            ("scaffpd", scaffpd.make, dict(kappa=1, lr=0.5, dual_lr=0.5)),
                            ("power_of_choice", power_of_choice.make, dict(lr=0.5, K=1, candidates=2)),
                            ("fedmgda", fedmgda.make, dict(lr=0.5, epsilon=0.1)),
                            ("qfedavg", qfedavg.make, dict(q=1.0, lr=0.5)),
                            ("rfedfair", rfedfair.make, dict(lr=0.5, kappa=1, alpha=0.75, mu=0.1)),
                            ("fedfa", fedfa.make, dict(lr=0.5, accuracy=lambda w: np.full(2, 0.5)))):
        call(f"wc {name} (loss-dependent)", lambda mk=mk, hyper=hyper: wc(mk, 2, n=2, L=1, D0=1, rho2=1, **hyper), Any_())
    # ---------------------------------------------- plugin-like steps: nan, inf, huge, exact scalings
    for f, name in ((NAN, "nan"), (INF, "inf"), (-INF, "-inf"), (np.float64(NAN), "np.nan"), (np.array(NAN), "0-d nan"),
                    (np.array([NAN, NAN]), "[nan, nan]")):
        call(f"wc plugin step w * {name}", lambda f=f: wc(scale_make, 1, n=1, L=1, D0=1, rho2=0, factor=f), Err())
    call("wc plugin step lr=nan gradient", lambda: wc(gd_make, 1, n=1, L=1, D0=1, rho2=0, lr=NAN), Err())
    call("wc plugin step lr=inf gradient", lambda: wc(gd_make, 2, n=2, L=1, D0=1, rho2=0, lr=INF), Err())
    call("wc plugin step lr=1e308 twice (overflow)", lambda: wc(gd_make, 2, n=1, L=1, D0=1, rho2=0, lr=1e308), Err())
    call("wc plugin gd lr=1/2 (GD)", lambda: wc(gd_make, 2, n=2, L=1, D0=1, rho2=1, lr=0.5), Val(W_gd(2, 0.5), 1e-6))
    call("wc plugin w * 1/2", lambda: wc(scale_make, 1, n=1, L=1, D0=1, rho2=0, factor=0.5), Val(0.125, 1e-6))
    call("wc plugin w * -1", lambda: wc(scale_make, 1, n=1, L=1, D0=1, rho2=0, factor=-1.0), Val(0.5, 1e-6))
    call("wc plugin w * 3 L=2 D0=5", lambda: wc(scale_make, 1, n=1, L=2, D0=5, rho2=0, factor=3.0), Val(45.0, 1e-6))
    call("wc plugin w * 0", lambda: wc(scale_make, 2, n=1, L=1, D0=1, rho2=0, factor=0.0), Val(0.0, 0, 1e-6))
    call("wc plugin w * 1e100", lambda: wc(scale_make, 1, n=1, L=1, D0=1, rho2=0, factor=1e100),
         OrErr(Val(0.5e200, 1e-6)))
    call("wc plugin w * 1e-300", lambda: wc(scale_make, 1, n=1, L=1, D0=1, rho2=0, factor=1e-300), Val(0.0, 0, 1e-9))
    call("wc plugin numeric step", lambda: wc(numeric_make, 1, n=1, L=1, D0=1, rho2=0), Err())
    call("wc plugin make returns None", lambda: wc(none_make, 1, n=1, L=1, D0=1, rho2=0), Err())
    # ---------------------------------------------- extreme scales: a correct value or a named error
    for L in (1e-300, 1e-150, 1e150, 1e300):
        call(f"wc fedavg L={L:g} h=1/2", lambda L=L: wc(fedavg.make, 2, n=1, L=L, D0=1, rho2=0, lr=0.5 / L),
             OrErr(Val(W_gd(2, 0.5, L, 1.0), 1e-6)))
    for D0 in (1e-300, 1e-150, 1e150, 1e300):
        call(f"wc fedavg D0={D0:g} h=1/2", lambda D0=D0: wc(fedavg.make, 2, n=1, L=1, D0=D0, rho2=0, lr=0.5),
             OrErr(Val(W_gd(2, 0.5, 1.0, D0), 1e-6)))
    for rho2 in (1e12, 1e300):
        call(f"wc fedavg kappa=1 rho2={rho2:g} (irrelevant)",
             lambda rho2=rho2: wc(fedavg.make, 2, n=2, L=1, D0=1, rho2=rho2, lr=0.5), OrErr(Val(W_gd(2, 0.5), 1e-6)))
    call("wc fedavg mu=1-1e-12", lambda: wc(fedavg.make, 1, n=1, L=1, D0=1, rho2=0, lr=1.0, class_mu=1 - 1e-12),
         OrErr(Between(0.0, W_gd(1, 1.0), 0.0, 1e-9)))
    # ---------------------------------------------- hostile arguments: named errors
    base = dict(n=1, L=1, D0=1, rho2=0, lr=0.5)
    for key, bad in (("rounds", 0), ("rounds", -1), ("rounds", 1.5), ("rounds", True), ("rounds", "2"), ("rounds", None),
                     ("n", 0), ("n", -1), ("n", 2.5), ("n", True), ("n", None), ("n", "1"),
                     ("L", 0), ("L", -1.0), ("L", NAN), ("L", INF), ("L", "1"), ("L", None), ("L", True), ("L", 1j),
                     ("D0", -1.0), ("D0", NAN), ("D0", INF), ("D0", "1"), ("D0", None),
                     ("rho2", -1.0), ("rho2", NAN), ("rho2", INF), ("rho2", None),
                     ("mu", -0.1), ("mu", NAN), ("mu", 1.0), ("mu", 2.0), ("mu", INF), ("mu", "0"),
                     ("p", [0.5, 0.6]), ("p", [1.0, 0.0]), ("p", [NAN, 1.0]), ("p", "ab"), ("p", [0.5]), ("p", [[0.5, 0.5]]),
                     ("output", "worst"), ("output", None), ("output", 3),
                     ("start", "x"), ("start", 5), ("start", {"nope": 1}), ("start", {"w0": np.zeros(2)}),
                     ("tol", -1.0), ("tol", NAN), ("tol", INF), ("tol", "a"),
                     ("lr", NAN), ("lr", 0.0), ("lr", -1.0), ("lr", INF), ("lr", "0.5"), ("lr", None),
                     ("kappa", 0), ("kappa", 1.5), ("K", 0), ("K", -2)):
        kw = dict(base)
        rounds = 2
        if key == "rounds":
            rounds = bad
        elif key == "p":
            kw.update(n=2, p=bad)
        else:
            kw[key] = bad
        call(f"wc hostile {key}={bad!r}", lambda rounds=rounds, kw=kw: wc(fedavg.make, rounds, **kw), Err())
    # output="best" is an option since issue 26: GD with h <= 1 decreases f monotonically, so the best of w_0..w_N
    # is the last, whose exact worst case is W_gd (Drori & Teboulle 2014)
    call("wc output='best' = last for GD", lambda: wc(fedavg.make, 2, output="best", **base), Between(W_gd(2, 0.5)))
    call("wc lr schedule -> nan", lambda: wc(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, lr=lambda r: NAN), Err())
    call("wc lr schedule -> -1", lambda: wc(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, lr=lambda r: -1.0), Err())
    call("wc lr schedule -> 'a'", lambda: wc(fedavg.make, 2, n=1, L=1, D0=1, rho2=0, lr=lambda r: "a"), Err())
    call("wc D0=0 rho2=0", lambda: wc(fedavg.make, 2, n=2, L=1, D0=0, rho2=0, lr=0.5), Err())
    call("wc make None", lambda: wc(None, 2, n=1, L=1, D0=1, rho2=0), Err())
    call("wc make is a module", lambda: wc(fedavg, 2, n=1, L=1, D0=1, rho2=0, lr=0.5), Err())
    call("wc max_branches=0 K=1", lambda: wc(fedavg.make, 2, n=2, L=1, D0=1, rho2=0, lr=0.5, K=1, max_branches=0), Err())
    call("wc max_branches=1 K=1 (2 branches)",
         lambda: wc(fedavg.make, 1, n=2, L=1, D0=1, rho2=0, lr=0.5, K=1, max_branches=1), Err())
    call("wc max_branches nan", lambda: wc(fedavg.make, 1, n=2, L=1, D0=1, rho2=0, lr=0.5, K=1, max_branches=NAN), Err())
    call("wc unknown hyper", lambda: wc(fedavg.make, 1, n=1, L=1, D0=1, rho2=0, lr=0.5, nope=3), Err())
    # ---------------------------------------------- sizes: refused up front, quickly, without huge allocations
    call("wc rounds=10**9 refused", lambda: wc(fedavg.make, 10**9, n=1, L=1, D0=1, rho2=0, lr=0.5), Err(), timeout=30)
    call("wc n=10**5 refused", lambda: wc(fedavg.make, 1, n=10**5, L=1, D0=1, rho2=0, lr=0.5), Err(), timeout=20)
    call("wc n=10**9 refused", lambda: wc(fedavg.make, 1, n=10**9, L=1, D0=1, rho2=0, lr=0.5), Err(), timeout=20)
    call("wc K=10**9 refused", lambda: wc(fedavg.make, 1, n=2, L=1, D0=1, rho2=0, lr=0.5, K=10**9), Err(), timeout=20)
    call("wc K=12 n=4 refused or quick", lambda: wc(fedavg.make, 1, n=4, L=1, D0=1, rho2=0, lr=0.5, K=12), Any_(),
         timeout=30)
    # ---------------------------------------------- PEPProblem
    for kw in (dict(n=0), dict(n=-1), dict(n=2.5), dict(n=True), dict(n="2"), dict(L=0), dict(L=NAN), dict(L=INF),
               dict(L=-1.0), dict(mu=1.0), dict(mu=NAN), dict(mu=-1.0), dict(D0=-1.0), dict(D0=NAN), dict(D0=INF),
               dict(rho2=INF), dict(rho2=NAN), dict(D0=0.0, rho2=0.0), dict(n=3, p=[0.5, 0.5, 0.0]), dict(p=[1.0]),
               dict(p=[NAN, 1.0]), dict(d=1), dict(d=0), dict(d=2.5)):
        args = dict(n=2, L=1.0, D0=1.0, rho2=0.0) | kw
        call(f"PEPProblem {kw}", lambda args=args: PEPProblem(args["n"], **{k: v for k, v in args.items() if k != "n"}),
             Err())
    call("PEPProblem valid", lambda: PEPProblem(3, L=2.0, mu=0.5, D0=1.0, rho2=1.0, p=[0.25, 0.25, 0.5]).n, Val(3))
    call("PEPProblem n=10**9 refused quickly", lambda: PEPProblem(10**9, L=1, D0=1, rho2=0), Err(), timeout=20)
    call("PEPProblem n=10**6 refused quickly", lambda: PEPProblem(10**6, L=1, D0=1, rho2=0), Err(), timeout=20)
    # ---------------------------------------------- local_gd_worst_case and worst_case_vs_rounds
    lg = local_gd_worst_case
    call("lgd n=1 fedavg T_N=2 last h=1", lambda: lg(n=1, kappa=1, T_N=2, lr=1.0, L=1, D0=1, rho2=0, schedule="fedavg",
                                                     output="last"), Val(W_gd(3, 1.0), 1e-6))
    call("lgd n=1 rfedfair kappa=2 T_N=1 last", lambda: lg(n=1, kappa=2, T_N=1, lr=1.0, L=1, D0=1, rho2=0, output="last"),
         Val(W_gd(3, 1.0), 1e-6))
    call("lgd n=1 fedavg T_N=3 h=1/2", lambda: lg(n=1, kappa=1, T_N=3, lr=0.5, L=1, D0=1, rho2=0, schedule="fedavg",
                                                  output="last"), Val(W_gd(4, 0.5), 1e-6))
    call("lgd n=2 rho2=1 kappa=1 T_N=2", lambda: lg(n=2, kappa=1, T_N=2, lr=1.0, L=1, D0=1, rho2=1, schedule="fedavg",
                                                    output="last"), Val(W_gd(3, 1.0), 1e-6))
    call("lgd n=2 L=4 D0=2 rho2=3 beta=1/8", lambda: lg(n=2, kappa=1, T_N=1, lr=0.125, L=4, D0=2, rho2=3,
                                                        schedule="fedavg", output="last"), Val(W_gd(2, 0.5, 4, 2), 1e-6))
    call("lgd n=1 output average T_N=2 (mean of server models)",
         lambda: lg(n=1, kappa=1, T_N=2, lr=1.0, L=1, D0=1, rho2=0, schedule="fedavg", output="average"),
         Between(gd_lower(3, 1.0, output="mean"), gd_mean_upper(3, 1.0)))
    call("lgd certificate bound", lambda: float(lg(n=1, kappa=1, T_N=2, lr=1.0, L=1, D0=1, rho2=0, schedule="fedavg",
                                                   output="last", certificate=True).certificate.bound),
         Between(W_gd(3, 1.0), W_gd(3, 1.0) * (1 + 1e-5), 0.0))
    call("lgd K=5 n=2 T_N=1: quick or refused", lambda: lg(K=5, n=2, kappa=1, T_N=1, lr=1.0, L=1, D0=1, rho2=0),
         Any_(), timeout=30)
    call("lgd K=10**9 refused", lambda: lg(K=10**9, n=2, kappa=1, T_N=1, lr=1.0, L=1, D0=1, rho2=0), Err(), timeout=20)
    call("lgd T_N=10**6 refused", lambda: lg(n=1, kappa=1, T_N=10**6, lr=1.0, L=1, D0=1, rho2=0), Err(), timeout=20)
    lbase = dict(n=1, kappa=1, T_N=1, lr=0.5, L=1.0, D0=1.0, rho2=0.0)
    for key, bad in (("lr", NAN), ("lr", 0.0), ("lr", -1.0), ("lr", INF), ("L", NAN), ("L", 0.0), ("kappa", 0),
                     ("T_N", -1), ("T_N", 1.5), ("n", 0), ("K", 0), ("output", "x"), ("schedule", "x"), ("D0", NAN),
                     ("rho2", -1.0), ("p", [0.3]), ("tol", NAN), ("tol", -1.0)):
        kw = dict(lbase) | {key: bad}
        call(f"lgd hostile {key}={bad!r}", lambda kw=kw: lg(**kw), Err())
    call("lgd certificate with K", lambda: lg(n=2, kappa=1, T_N=1, lr=0.5, L=1, D0=1, rho2=0, K=1, certificate=True),
         Err())
    call("lgd D0=rho2=0", lambda: lg(n=2, kappa=1, T_N=1, lr=0.5, L=1, D0=0, rho2=0), Err())
    vr = worst_case_vs_rounds
    call("vs_rounds values", lambda: vr(T_N_values=[0, 1, 2], n=1, kappa=1, lr=1.0, L=1, D0=1, rho2=0,
                                        schedule="fedavg", output="last")["value"],
         Val([W_gd(1, 1.0), W_gd(2, 1.0), W_gd(3, 1.0)], 1e-6))
    for bad in ([], "abc", [1.5], [NAN], None, [-1]):
        call(f"vs_rounds T_N_values={bad!r}", lambda bad=bad: vr(T_N_values=bad, n=1, kappa=1, lr=1.0, L=1, D0=1, rho2=0),
             Err())


# ================================================================================ the calls: symbolic arrays
def build_gram() -> None:
    import torch

    from fairtheory.worstcase import PEPProblem
    from fairtheory.worstcase.gram_array import GramArray

    surface("gram")

    def P() -> Any:
        return PEPProblem(2, L=1.0, D0=1.0, rho2=0.0)

    def W(pr: Any) -> Any:
        return pr.xp.broadcast_to(pr.x0[None, :], (2, pr.d))

    for name, op in (("x0 * nan", lambda x: x * NAN), ("nan * x0", lambda x: NAN * x), ("x0 * inf", lambda x: x * INF),
                     ("x0 * -inf", lambda x: x * -INF), ("x0 / nan", lambda x: x / NAN), ("x0 / inf", lambda x: x / INF),
                     ("x0 / 0", lambda x: x / 0.0), ("x0 * np.float64(nan)", lambda x: x * np.float64(NAN)),
                     ("np.float64(nan) * x0", lambda x: np.float64(NAN) * x), ("x0 * array(nan)", lambda x: x * np.array(NAN)),
                     ("x0 * [nan, nan]", lambda x: x * np.array([NAN, NAN])), ("x0 * torch nan", lambda x: x * torch.tensor(NAN)),
                     ("x0 * 1e308 * 1e308", lambda x: (x * 1e308) * 1e308), ("x0 / 1e-320 * 1e300", lambda x: x / 1e-320 * 1e300),
                     ("x0 - nan", lambda x: x - NAN), ("x0 + inf", lambda x: x + INF), ("x0 * 'a'", lambda x: x * "a"),
                     ("x0 * None", lambda x: x * None), ("x0 * (1+1j)", lambda x: x * (1 + 1j)),
                     ("zeros_like * nan", lambda x: x.xp.zeros_like(x) * NAN)):
        call(f"gram {name}", lambda op=op: op(P().x0), Err())
    for name, op in (("W * [[nan], [1]]", lambda pr: W(pr) * np.array([[NAN], [1.0]])),
                     ("[nan, 1] @ W", lambda pr: np.array([NAN, 1.0]) @ W(pr)),
                     ("[inf, 0] @ W", lambda pr: np.array([INF, 0.0]) @ W(pr)),
                     ("W / [[0], [1]]", lambda pr: W(pr) / np.array([[0.0], [1.0]])),
                     ("losses * nan", lambda pr: pr.losses_each(W(pr)) * NAN),
                     ("[nan, 1] @ losses", lambda pr: np.array([NAN, 1.0]) @ pr.losses_each(W(pr))),
                     ("grads * inf", lambda pr: pr.grads_each(W(pr)) * INF),
                     ("GramArray(nan coefficients)", lambda pr: GramArray(np.array([NAN, 1.0]), pr.xp)),
                     ("GramArray(inf coefficients)", lambda pr: GramArray(np.array([0.0, INF]), pr.xp)),
                     ("x0 * x0", lambda pr: pr.x0 * pr.x0), ("float(x0)", lambda pr: float(pr.x0)),
                     ("np.asarray(x0)", lambda pr: np.asarray(pr.x0)), ("x0 + [1, 2]", lambda pr: pr.x0 + np.array([1.0, 2.0])),
                     ("x0 * [1, 2]", lambda pr: pr.x0 * np.array([1.0, 2.0])), ("abs(x0)", lambda pr: abs(pr.x0))):
        call(f"gram {name}", lambda op=op: op(P()), Err())
    # valid linear operations: exact coefficients (x0 is one basis vector: its coefficients are 0 and 1)
    call("gram x0 * 2", lambda: sorted(np.ravel((P().x0 * 2.0).C).tolist())[-1], Val(2.0))
    call("gram x0 / 4 - x0", lambda: sorted(np.ravel((lambda x: x / 4.0 - x)(P().x0).C).tolist())[0], Val(-0.75))
    call("gram [1/2, 1/2] @ W == x0", lambda: float(np.abs(((lambda pr: np.array([0.5, 0.5]) @ W(pr) - pr.x0)(P())).C).max()),
         Val(0.0))
    call("gram x0 * 0 + x0", lambda: float(np.abs(((lambda x: x * 0.0 + x - x)(P().x0)).C).max()), Val(0.0))


# ================================================================================ the calls: proofs
def build_proofs() -> None:  # noqa: C901, PLR0915 - a flat table of calls
    import sympy as sp

    from fairtheory.proofs import (
        Certificate,
        certify_exact,
        certify_pep,
        check_certificate,
        check_proof,
        describe,
        implies,
        statement,
        statement_of,
    )
    from fairtheory.proofs.fit import fit_closed_form
    from fairtheory.proofs.symbolic import goal_of, softplus_smoothness_certificate

    surface("proofs")
    A, B = CERT_A, CERT_B
    call("check A (valid)", lambda: check_certificate(A), Val(True))
    call("check B (valid)", lambda: check_certificate(B), Val(True))
    call("check_proof A (valid)", lambda: check_proof(A), Val(True))
    # statements that stay true with the same evidence
    call("A value weakened to 1", lambda: check_certificate(forged(A, _set(("statement", "bound", "value"), 1))), Val(True))
    call("A D0 halved", lambda: check_certificate(forged(A, _set(("statement", "bound", "D0"), "1/2"))), Val(True))
    call("B rho2 halved (irrelevant for one step)",
         lambda: check_certificate(forged(B, _set(("statement", "bound", "rho2"), "1/2"))), Val(True))
    # forged: the bound below what the multipliers prove, or below the truth
    fA: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        ("value lowered 1/7", _set(("statement", "bound", "value"), "1/7")),
        ("value 1/6 (true, unproved by these multipliers)", _set(("statement", "bound", "value"), "1/6")),
        ("value 0", _set(("statement", "bound", "value"), "0")),
        ("value -1", _set(("statement", "bound", "value"), "-1")),
        ("value 'nan'", _set(("statement", "bound", "value"), "nan")),
        ("value 'inf'", _set(("statement", "bound", "value"), "inf")),
        ("value float 0.5", _set(("statement", "bound", "value"), 0.5)),
        ("value None", _set(("statement", "bound", "value"), None)),
        ("L relabelled 2", _set(("statement", "class", "L"), "2")),
        ("D0 relabelled 2", _set(("statement", "bound", "D0"), "2")),
        ("step relabelled h=2", _set(("statement", "method", "evaluations", 1, 1, 1, 1), "-2")),
        ("output weight 2", _set(("statement", "method", "outputs", 0, 0), "2")),
        ("output at x0", _set(("statement", "method", "outputs", 0, 1), [[[0, "1"]]])),
        ("class functions nonconvex", _set(("statement", "class", "functions"), "smooth")),
        ("kind sympy-proof", _set(("kind",), "sympy-proof")),
        ("version 1", _set(("version",), 1)),
        ("version '2'", _set(("version",), "2")),
        ("extra top-level key", _set(("proof",), "trust me")),
        ("statement None", _set(("statement",), None)),
        ("evidence list", _set(("evidence",), [])),
        ("evidence empty multipliers", _set(("evidence", "multipliers"), [])),
        ("multiplier 0 halved", lambda d: _mult(d, 0).__setitem__(1, str(Fraction(_mult(d, 0)[1]) / 2))),
        ("D0 multiplier doubled", lambda d: _mult(d, 6).__setitem__(1, str(Fraction(_mult(d, 6)[1]) * 2))),
        ("multiplier negative", lambda d: _mult(d, 5).__setitem__(1, "-" + _mult(d, 5)[1])),
        ("multiplier float", lambda d: _mult(d, 1).__setitem__(1, float(Fraction(_mult(d, 1)[1])))),
        ("multiplier 1/0", lambda d: _mult(d, 1).__setitem__(1, "1/0")),
        ("multiplier 'nan'", lambda d: _mult(d, 1).__setitem__(1, "nan")),
        ("multiplier huge", lambda d: _mult(d, 6).__setitem__(1, "9" * 5000)),
        ("duplicate row", lambda d: d["evidence"]["multipliers"].append(list(d["evidence"]["multipliers"][0]))),
        ("row out of range", lambda d: d["evidence"]["multipliers"].append([99, "1"])),
        ("row negative", lambda d: d["evidence"]["multipliers"].append([-1, "1"])),
        ("row bool", lambda d: _mult(d, 0).__setitem__(0, True)),
    ]
    for name, edit in fA:
        call(f"forged A: {name}", lambda edit=edit: check_certificate(forged(A, edit)), Val(False))
    for name, edit in fA[:3] + fA[8:11] + fA[21:24]:
        call(f"check_proof forged A: {name}", lambda edit=edit: check_proof(forged(A, edit)), Val(False))
    call("forged B: step relabelled h=2",
         lambda: check_certificate(forged(B, lambda d: [e[1].__setitem__(slice(1, 3), [[2, "-1"], [3, "-1"]])
                                                        for e in d["statement"]["method"]["evaluations"][2:]])), Val(False))
    call("forged B: value 1/5", lambda: check_certificate(forged(B, _set(("statement", "bound", "value"), "1/5"))),
         Val(False))
    call("forged B: D0 2", lambda: check_certificate(forged(B, _set(("statement", "bound", "D0"), "2"))), Val(False))
    for bad in (None, {}, [], "pep-dual", {"kind": "pep-dual"}, {"kind": "pep-dual", "version": 2}, 3, float("nan")):
        call(f"check_certificate({bad!r})", lambda bad=bad: check_certificate(bad), Val(False))
        call(f"check_proof({bad!r})", lambda bad=bad: check_proof(bad), Val(False))
    for secs in (0, -1.0, NAN, "x", None):
        call(f"check_proof A seconds={secs!r}", lambda secs=secs: check_proof(A, seconds=secs),
             OrErr(Val(True)) if secs is None else OrErr(Val(False)))
    # Certificate objects with hostile fields: never check True
    from fairtheory_kernel.pep import canonical

    def cert_obj(d: dict[str, Any]) -> Any:
        mult = [Fraction(0)] * (max(k for k, _ in d["evidence"]["multipliers"]) + 1)
        for k, m in d["evidence"]["multipliers"]:
            mult[k] = Fraction(m)
        st = canonical(d["statement"])
        return Certificate(statement=st, multipliers=mult, bound=st["bound"]["value"], value=float(st["bound"]["value"]),
                           seconds=0.0)

    call("Certificate(A).check()", lambda: cert_obj(A).check(), Val(True))

    def mutate(fn: Callable[[Any], Any]) -> Callable[[], Any]:
        def run() -> Any:
            c = cert_obj(A)
            fn(c)
            return c.check()
        return run

    for name, fn in (("bound attribute lowered to 1/7", lambda c: setattr(c, "bound", Fraction(1, 7))),
                     ("statement value lowered", lambda c: c.statement["bound"].__setitem__("value", Fraction(1, 7))),
                     ("statement L doubled", lambda c: c.statement["class"].__setitem__("L", Fraction(2))),
                     ("multiplier negative", lambda c: c.multipliers.__setitem__(5, -c.multipliers[5])),
                     ("multiplier nan", lambda c: c.multipliers.__setitem__(5, NAN)),
                     ("multipliers None", lambda c: setattr(c, "multipliers", None)),
                     ("statement None", lambda c: setattr(c, "statement", None)),
                     ("statement {}", lambda c: setattr(c, "statement", {})),
                     ("multipliers truncated", lambda c: setattr(c, "multipliers", c.multipliers[:2]))):
        call(f"Certificate.check(): {name}", mutate(fn), OrErr(Val(False)))
    # implies / statement_of / describe
    sa = statement_of(A)
    call("statement_of(A) kind", lambda: statement_of(A)["kind"] == "pep-dual", Val(True))
    call("statement_of(None)", lambda: statement_of(None) is None, Val(True))
    call("statement_of(string)", lambda: statement_of("pep-dual") is None, Val(True))

    def decl(edit: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
        return {"kind": "pep-dual", "statement": forged(A, edit)["statement"]}

    for name, edit, want in (("same", lambda d: None, True),
                             ("weaker value 1/5", _set(("statement", "bound", "value"), "1/5"), True),
                             ("smaller D0", _set(("statement", "bound", "D0"), "1/2"), True),
                             ("stronger value 1/7", _set(("statement", "bound", "value"), "1/7"), False),
                             ("larger D0", _set(("statement", "bound", "D0"), "2"), False),
                             ("other L", _set(("statement", "class", "L"), "2"), False),
                             ("other step", _set(("statement", "method", "evaluations", 1, 1, 1, 1), "-1/2"), False),
                             ("value 'nan'", _set(("statement", "bound", "value"), "nan"), False),
                             ("value float", _set(("statement", "bound", "value"), 0.2), False)):
        call(f"implies(A, {name})", lambda edit=edit: implies(sa, decl(edit)), Val(want))
    for a_, b_ in ((None, None), ({}, {}), ("x", "x"), (sa, None), (None, sa), (sa, {"kind": "sympy-proof", "statement": {}})):
        call(f"implies({str(a_)[:20]}, {str(b_)[:20]})", lambda a_=a_, b_=b_: implies(a_, b_), Val(False))
    for x in (None, {}, {"class": 1, "method": 2}, sa, 3, "abc"):
        call(f"describe({str(x)[:30]}) is text", lambda x=x: isinstance(describe(x), str), Val(True))
    # certify_pep / certify_exact on a local-GD template: GD N = 3, h = 1 (worst case exactly 1/14)
    tpl = statement(method={"name": "local_gd", "kappa": 1, "T_N": 2, "lr": 1, "schedule": "fedavg", "output": "last"},
                    n=1, L=1, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": 0})
    c14 = Fraction(1, 14)
    call("certify_pep bound", lambda: float(certify_pep(tpl).bound), Between(1 / 14, (1 / 14) * (1 + 1e-5), 0.0))
    call("certify_pep re-checks", lambda: certify_pep(tpl).check(), Val(True))
    call("certify_exact 1/14 (None or exact)",
         lambda: (lambda r: r is None or (r.bound == c14 and r.check()))(certify_exact(tpl, c14)), OrErr(Val(True)))
    call("certify_exact 1/15 (below the truth: None)", lambda: certify_exact(tpl, Fraction(1, 15)) is None, OrErr(Val(True)))
    f14 = Fraction(1 / 14)
    call("certify_exact float 1/14",
         lambda: (lambda r: r is None if f14 < c14 else (r is None or r.bound == f14))(certify_exact(tpl, 1 / 14)),
         OrErr(Val(True)))
    call("certify_exact -1 (None)", lambda: certify_exact(tpl, -1) is None, OrErr(Val(True)))
    for t in (NAN, INF, -INF, None, "abc", [1], 1j):
        call(f"certify_exact target={t!r}", lambda t=t: certify_exact(tpl, t), Err())
        if t is not None:
            call(f"certify_pep target={t!r}", lambda t=t: certify_pep(tpl, target=t), Err())
    for name, bad in (("None", None), ("{}", {}), ("list", [1]),
                      ("L nan", forged(tpl, _set(("class", "L"), "nan"))),
                      ("L 0", forged(tpl, _set(("class", "L"), "0"))),
                      ("n 0", forged(tpl, _set(("n",), 0))),
                      ("n 17", forged(tpl, _set(("n",), 17))),
                      ("T_N 10**6", forged(tpl, _set(("method", "T_N"), 10**6))),
                      ("lr -1", forged(tpl, _set(("method", "lr"), "-1"))),
                      ("method unknown", forged(tpl, _set(("method", "name"), "adam"))),
                      ("D0=rho2=0", forged(tpl, _set(("bound", "D0"), "0"))),
                      ("bound form x", forged(tpl, _set(("bound", "form"), "x")))):
        call(f"certify_pep template {name}", lambda bad=bad: certify_pep(bad), Err())
    for kw in (dict(rtol=NAN), dict(rtol=-1.0), dict(rtol="a"), dict(value=NAN)):
        call(f"certify_pep {kw}", lambda kw=kw: certify_pep(tpl, **kw), Err())
    hom = statement(method={"name": "local_gd_round", "kappa": 1, "lr": 1, "a": 1}, n=1, L=1,
                    bound={"form": "homogeneous", "dist": 1, "hetero": 0})
    for d in (None, (NAN, 1), (-1, 0), (0, 0), ("a", 1), (1,)):
        call(f"certify_pep homogeneous direction={d!r}", lambda d=d: certify_pep(hom, direction=d), Err())
    for kw in (dict(L=NAN), dict(L=INF), dict(L=0), dict(mu=NAN), dict(n=0), dict(p=[0.5, 0.6])):
        args = dict(method={"name": "local_gd", "kappa": 1, "T_N": 0, "lr": 1, "schedule": "fedavg", "output": "last"},
                    n=1, L=1, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": 0}) | kw
        if "p" in kw:
            args["n"] = 2
        call(f"statement({kw}) then certify_pep", lambda args=args: certify_pep(statement(**args)), Err())
    # fit_closed_form
    pts = [{"N": k} for k in range(1, 13)]
    vals = [1 / (4 * k + 2) for k in range(1, 13)]

    def at(res: Any, **x: float) -> float:
        e = res.expression
        return float(e.subs({s: sp.Rational(x[s.name]) for s in e.free_symbols}))

    call("fit 1/(4N+2) at N=100", lambda: at(fit_closed_form(pts, vals, names=["N"]), N=100), Val(1 / 402, 1e-12))
    pts2 = [{"N": N, "h": h} for N in range(1, 6) for h in (0.25, 0.5, 0.75, 1.0)]
    vals2 = [1 / (4 * p["N"] * p["h"] + 2) for p in pts2]
    call("fit 1/(4Nh+2) at N=10 h=3/10", lambda: at(fit_closed_form(pts2, vals2, names=["N", "h"], max_degree=2),
                                                    N=10, h=0.3), OrErr(Val(1 / 14, 1e-12)), timeout=120)
    bad_pts = [dict(p) for p in pts]
    bad_pts[3]["N"] = NAN
    inf_pts = [dict(p) for p in pts]
    inf_pts[2]["N"] = INF
    for name, thunk in (("nan point", lambda: fit_closed_form(bad_pts, vals, names=["N"])),
                        ("inf point", lambda: fit_closed_form(inf_pts, vals, names=["N"])),
                        ("nan point (array)", lambda: fit_closed_form(np.array([[p["N"]] for p in bad_pts]), vals, names=["N"])),
                        ("nan value", lambda: fit_closed_form(pts, [NAN] + vals[1:], names=["N"])),
                        ("values short", lambda: fit_closed_form(pts, vals[:-1], names=["N"])),
                        ("names empty", lambda: fit_closed_form(pts, vals, names=[])),
                        ("names repeated", lambda: fit_closed_form(pts2, vals2, names=["N", "N"])),
                        ("names missing", lambda: fit_closed_form(pts, vals, names=["M"])),
                        ("max_degree 7", lambda: fit_closed_form(pts, vals, names=["N"], max_degree=7)),
                        ("max_degree 2.5", lambda: fit_closed_form(pts, vals, names=["N"], max_degree=2.5)),
                        ("max_degree True", lambda: fit_closed_form(pts, vals, names=["N"], max_degree=True)),
                        ("holdout 0", lambda: fit_closed_form(pts, vals, names=["N"], holdout=0.0)),
                        ("holdout nan", lambda: fit_closed_form(pts, vals, names=["N"], holdout=NAN)),
                        ("tol nan", lambda: fit_closed_form(pts, vals, names=["N"], tol=NAN)),
                        ("tol -1", lambda: fit_closed_form(pts, vals, names=["N"], tol=-1.0)),
                        ("max_den 0", lambda: fit_closed_form(pts, vals, names=["N"], max_den=0)),
                        ("max_den -5", lambda: fit_closed_form(pts, vals, names=["N"], max_den=-5)),
                        ("max_den 1.5", lambda: fit_closed_form(pts, vals, names=["N"], max_den=1.5)),
                        ("seed -1", lambda: fit_closed_form(pts, vals, names=["N"], seed=-1)),
                        ("seed 'x'", lambda: fit_closed_form(pts, vals, names=["N"], seed="x")),
                        ("seed 1.5", lambda: fit_closed_form(pts, vals, names=["N"], seed=1.5)),
                        ("exact=3", lambda: fit_closed_form(pts, vals, names=["N"], exact=3)),
                        ("params string", lambda: fit_closed_form("abc", vals, names=["N"])),
                        ("params 3-D", lambda: fit_closed_form(np.zeros((12, 1, 1)), vals, names=["N"])),
                        ("three points", lambda: fit_closed_form(pts[:3], vals[:3], names=["N"]))):
        call(f"fit {name}", thunk, Err())
    # symbolic.goal_of
    cert = softplus_smoothness_certificate()

    def rhs_at(res: Any) -> list[float]:
        from fairtheory.proofs.falsify_symbolic import _ev  # the goal's terms evaluated at mu = 2

        rel, _, rhs = res
        return [float(rel == "<="), float(_ev(rhs, {"mu": 2}, {}, []))]

    call("goal_of(cert, 0)", lambda: rhs_at(goal_of(cert, 0)), Val([1.0, 0.125], 1e-15))
    call("goal_of(cert, 'upper')", lambda: rhs_at(goal_of(cert, "upper")), Val([1.0, 0.125], 1e-15))
    call("check_proof(softplus cert)", lambda: check_proof(cert), Val(True))
    call("check_proof(softplus rhs 1/(8 mu), statement and evidence)",
         lambda: check_proof(forged(cert, lambda d: (
             d["statement"]["goals"][0].__setitem__("rhs", ["/", ["q", "1"], ["*", ["q", "8"], ["v", "mu"]]]),
             d["evidence"]["proofs"][0]["chain"][-1].__setitem__("expr", ["/", ["q", "1"], ["*", ["q", "8"], ["v", "mu"]]])))),
         Val(False))
    call("implies(softplus, softplus)", lambda: implies(statement_of(cert), statement_of(cert)), Val(True))
    for name, thunk in (("99", lambda: goal_of(cert, 99)), ("'nope'", lambda: goal_of(cert, "nope")),
                        ("{} 0", lambda: goal_of({}, 0)), ("None 0", lambda: goal_of(None, 0)),
                        ("part None", lambda: goal_of(cert, None)), ("part 1.5", lambda: goal_of(cert, 1.5)),
                        ("part True", lambda: goal_of(cert, True)), ("part -99", lambda: goal_of(cert, -99)),
                        ("A (pep-dual) 0", lambda: goal_of(A, 0)),
                        ("unknown head", lambda: goal_of(forged(cert, _set(("statement", "goals", 0, "lhs"),
                                                                           ["Exec", "rm -rf /"])), 0)),
                        ("undeclared symbol", lambda: goal_of(forged(cert, _set(("statement", "goals", 0, "lhs"),
                                                                                ["v", "zeta"])), 0)),
                        ("symbols None", lambda: goal_of(forged(cert, _set(("statement", "symbols"), None)), 0))):
        call(f"goal_of {name}", thunk, Err())


# ================================================================================ the calls: algorithms
def build_algorithms() -> None:  # noqa: C901, PLR0915 - a flat table of calls
    from fairtheory.algorithms import (
        afl,
        ditto,
        drfa,
        fedavg,
        fedfa,
        fedfv,
        fedmgda,
        power_of_choice,
        qfedavg,
        qfedsgd,
        rfedfair,
        scaffold,
        scaffpd,
    )

    surface("algorithms")
    acc = lambda w: np.full(4, 0.5)  # noqa: E731 - a constant accuracy callable
    ALGS: dict[str, tuple[Any, dict[str, Any], dict[str, str]]] = {
        # name: (make, valid hyper-parameters, {parameter: kind})
        "fedavg": (fedavg.make, dict(lr=0.1, kappa=2), {"lr": "pos", "kappa": "int", "K": "optint"}),
        "scaffold": (scaffold.make, dict(kappa=2, lr=0.1), {"lr": "pos", "server_lr": "pos", "grad_noise": "nonneg",
                                                               "kappa": "int", "K": "optint"}),
        "ditto": (ditto.make, dict(lr=0.1, lam=0.5, kappa=2), {"lr": "pos", "lam": "nonneg", "lr_personal": "optpos",
                                                              "kappa": "int", "s": "optint", "K": "optint"}),
        "drfa": (drfa.make, dict(kappa=2, lr=0.1, dual_lr=0.1, K=2), {"lr": "pos", "dual_lr": "nonneg", "grad_noise": "nonneg",
                                                                     "loss_noise": "nonneg", "kappa": "int", "K": "int"}),
        "afl": (afl.make, dict(lr=0.1, dual_lr=0.1), {"lr": "pos", "dual_lr": "nonneg", "grad_noise": "nonneg",
                                                       "loss_noise": "nonneg", "K": "optint"}),
        "scaffpd": (scaffpd.make, dict(kappa=2, lr=0.1, dual_lr=0.5), {"lr": "pos", "dual_lr": "pos", "server_lr": "pos",
                                                                        "theta": "nonneg", "mu_accel": "nonneg",
                                                                        "grad_noise": "nonneg", "loss_noise": "nonneg",
                                                                        "kappa": "int"}),
        "power_of_choice": (power_of_choice.make, dict(lr=0.1, K=2, candidates=3), {"lr": "pos", "K": "int", "candidates": "int",
                                                                           "kappa": "int"}),
        "fedmgda": (fedmgda.make, dict(lr=0.1, epsilon=0.1), {"lr": "pos", "epsilon": "nonneg", "server_lr": "pos",
                                                              "offset": "nonneg", "kappa": "int", "K": "optint"}),
        "qfedavg": (qfedavg.make, dict(q=1.0, lr=0.1), {"q": "nonneg", "lr": "pos", "L": "optpos", "offset": "nonneg",
                                                        "kappa": "int", "K": "optint"}),
        "qfedsgd": (qfedsgd.make, dict(q=1.0, L=10.0), {"q": "nonneg", "L": "pos", "offset": "nonneg", "K": "optint"}),
        "rfedfair": (rfedfair.make, dict(lr=0.1, kappa=2, alpha=0.5, mu=0.1), {"lr": "pos", "mu": "pos",
                                                                                 "alpha": "unitpos", "kappa": "int",
                                                                                 "K": "optint"}),
        "fedfa": (fedfa.make, dict(lr=0.1, accuracy=acc), {"lr": "pos", "beta": "unit", "gamma": "unitopen",
                                                           "server_lr": "pos", "eps_acc": "nonneg", "eps_freq": "nonneg",
                                                           "kappa": "int", "K": "optint"}),
        "fedfv": (fedfv.make, dict(lr=0.1, alpha=0.25, tau=1), {"lr": "pos", "alpha": "unit", "tau": "int0",
                                                                "kappa": "int", "K": "optint"}),
    }
    common = [-1.0, NAN, INF, -INF, "0.1", True, 1 + 1j, [0.1], np.array([0.1, 0.2])]
    extra = {"pos": [0.0, -1e-300, None], "nonneg": [-1e-300, None], "optpos": [0.0], "unit": [1.5, None],
             "unitopen": [1.0, None], "unitpos": [0.0, 1.5]}
    ints = [0, -1, 1.5, True, "2", NAN, np.float64(2.0)]
    for name, (mk, hyper, kinds) in ALGS.items():
        call(f"{name} valid", lambda mk=mk, hyper=hyper: alg_run(mk, hyper), Any_())
        for param, kind in kinds.items():
            if kind in ("int", "optint", "int0"):
                bads = [b for b in ints if not (kind == "int0" and b == 0)] + ([None] if kind in ("int", "int0") else [])
            else:
                bads = common + extra[kind]
            for bad in bads:
                hy = dict(hyper) | {param: bad}
                call(f"{name} {param}={bad!r}", lambda mk=mk, hy=hy: alg_run(mk, hy), Err())
    # K = 10**9 draws: refused up front (no 7 GiB of client draws)
    for name in ("fedavg", "scaffold", "ditto", "drfa", "afl", "fedmgda", "qfedavg", "qfedsgd", "rfedfair", "fedfa"):
        mk, hyper, _ = ALGS[name]
        call(f"{name} K=10**9 refused", lambda mk=mk, hyper=hyper: alg_run(mk, dict(hyper) | {"K": 10**9}), Err(), timeout=20)
    call("base.run rounds=10**12 refused", lambda: __import__("fairtheory.algorithms.base", fromlist=["run"]).run(
        fedavg.make(quad_problem(), lr=0.1), 10**12), Err(), timeout=20)
    # fedfa's accuracy callable
    for name, fn in (("> 1", lambda w: np.full(4, 1.5)), ("7 values for 4 clients", lambda w: np.full(7, 0.5)),
                     ("nan", lambda w: np.array([0.5, NAN, 0.5, 0.5])), ("negative", lambda w: np.full(4, -0.1)),
                     ("inf", lambda w: np.full(4, INF)), ("string", lambda w: "abcd"), ("None", lambda w: None),
                     ("2-D", lambda w: np.full((4, 1), 0.5)), ("strings", lambda w: ["a", "b", "c", "d"]),
                     ("scalar", lambda w: 0.5), ("complex", lambda w: np.full(4, 0.5 + 1j))):
        call(f"fedfa accuracy {name}", lambda fn=fn: alg_run(fedfa.make, dict(lr=0.1, accuracy=fn)), Err())
    call("fedfa accuracy not callable", lambda: alg_run(fedfa.make, dict(lr=0.1, accuracy=3)), Err())
    import torch

    call("fedfa accuracy torch", lambda: alg_run(fedfa.make, dict(lr=0.1, accuracy=lambda w: torch.full((4,), 0.5))), Any_())
    call("fedfa accuracy list", lambda: alg_run(fedfa.make, dict(lr=0.1, accuracy=lambda w: [0.5] * 4)), Any_())
    # exact first steps on the quadratics
    w0 = [1.0, -1.0]
    call("fedavg kappa=1 one step", lambda: alg_run(fedavg.make, dict(lr=0.1), steps=1), Val(fq_grad_step(w0, 0.1)))
    call("fedavg kappa=3 one round", lambda: alg_run(fedavg.make, dict(lr=0.1, kappa=3), steps=1), Val(fq_step(w0, 0.1, 3)))
    call("scaffold kappa=1 one round", lambda: alg_run(scaffold.make, dict(kappa=1, lr=0.1), steps=1),
         Val(fq_grad_step(w0, 0.1)))
    call("ditto global one round", lambda: alg_run(ditto.make, dict(lr=0.1, lam=0.3, kappa=2), steps=1),
         Val(fq_step(w0, 0.1, 2)))
    call("afl dual_lr=0 one step", lambda: alg_run(afl.make, dict(lr=0.1, dual_lr=0.0), steps=1), Val(fq_grad_step(w0, 0.1)))
    call("fedfa uniform accuracy one round", lambda: alg_run(fedfa.make, dict(lr=0.1, accuracy=acc), steps=1),
         Val(fq_grad_step(w0, 0.1)))
    call("fedfa uniform accuracy kappa=2", lambda: alg_run(fedfa.make, dict(lr=0.1, kappa=2, accuracy=acc), steps=1),
         Val(fq_step(w0, 0.1, 2)))
    call("power_of_choice candidates=K=n is FedAvg",
         lambda: alg_run(power_of_choice.make, dict(lr=0.1, K=4, candidates=4), steps=1), Val(fq_grad_step(w0, 0.1)))
    call("power_of_choice candidates=10**9 refused",
         lambda: alg_run(power_of_choice.make, dict(lr=0.1, K=2, candidates=10**9)), Err())
    call("power_of_choice K > candidates", lambda: alg_run(power_of_choice.make, dict(lr=0.1, K=3, candidates=2)), Err())
    call("rfedfair alpha below p", lambda: alg_run(rfedfair.make, dict(lr=0.1, kappa=1, alpha=0.1, mu=0.1)), Err())
    call("rfedfair alpha only", lambda: alg_run(rfedfair.make, dict(lr=0.1, kappa=1, alpha=0.5)), Err())
    call("qfedavg q and aggregator", lambda: alg_run(qfedavg.make, dict(q=1.0, lr=0.1, aggregator=object())), Err())
    call("fedavg aggregator object()", lambda: alg_run(fedavg.make, dict(lr=0.1, aggregator=object())), Err())
    call("fedavg lr schedule nan", lambda: alg_run(fedavg.make, dict(lr=lambda r: NAN)), Err())
    call("fedavg lr schedule 'a'", lambda: alg_run(fedavg.make, dict(lr=lambda r: "a")), Err())
    call("fedavg w0 nan", lambda: alg_run(fedavg.make, dict(lr=0.1), w0=[NAN, 1.0]), Err())
    call("fedavg w0 wrong shape", lambda: alg_run(fedavg.make, dict(lr=0.1), w0=[1.0, 2.0, 3.0]), Err())
    call("fedavg problem None", lambda: fedavg.make(None, lr=0.1), Err())


# ================================================================================ the calls: verify core
def build_verify() -> None:  # noqa: PLR0915 - a flat table of calls
    from fairtheory_kernel.check import statement_of
    from verify import core
    from verify.core import Context, Outcome, Tally

    surface("verify")
    for kw in (dict(rounding=1e9), dict(rounding=NAN), dict(rounding=-1.0), dict(rounding=INF),
               dict(rounding="x"), dict(rounding=None), dict(kind="max"), dict(kind=3)):
        call(f"Tally({kw})", lambda kw=kw: Tally(**kw), Err())
    call("Tally(rounding=1e-9) valid", lambda: Tally("upper", rounding=1e-9).upper(1.0, 1.0 - 1e-10), Val(True))
    call("Tally upper(1, 2)", lambda: Tally("upper").upper(1.0, 2.0), Val(True))
    call("Tally upper(nan, 1) fails", lambda: Tally("upper").upper(NAN, 1.0), Val(False))
    call("Tally upper(1, inf) fails", lambda: Tally("upper").upper(1.0, INF), Val(False))
    call("Tally lower(2, 1)", lambda: Tally("lower").lower(2.0, 1.0), Val(True))
    call("Tally equal within rtol", lambda: Tally("equal").equal(1.0, 1.0 + 1e-13, rtol=1e-12), Val(True))
    call("Tally equal inf == inf fails", lambda: Tally("equal").equal(INF, INF, rtol=1e-12), Val(False))
    for name, thunk in (("upper('1', 2)", lambda: Tally("upper").upper("1", 2.0)),
                        ("upper(None, 1)", lambda: Tally("upper").upper(None, 1.0)),
                        ("upper(1j, 1)", lambda: Tally("upper").upper(1j, 1.0)),
                        ("equal rtol nan", lambda: Tally("equal").equal(1.0, 1.0, rtol=NAN)),
                        ("equal rtol -1", lambda: Tally("equal").equal(1.0, 1.0, rtol=-1.0)),
                        ("equal rtol inf", lambda: Tally("equal").equal(1.0, 1.0, rtol=INF)),
                        ("equal atol nan", lambda: Tally("equal").equal(1.0, 1.0, rtol=0.1, atol=NAN)),
                        ("upper then lower", lambda: (lambda t: (t.upper(1.0, 2.0), t.lower(2.0, 1.0)))(Tally())),
                        ("upper size 'big'", lambda: Tally("upper").upper(1.0, 2.0, size="big"))):
        call(f"Tally {name}", thunk, Err())

    def refuted() -> bool:
        t = Tally("upper")
        t.upper(1.0, 2.0)
        t.upper(3.0, 2.0)
        o = t.outcome()
        return o.status == "refuted" and o.counterexample is not None

    call("Tally outcome refuted", refuted, Val(True))

    def nonfinite_not_verified() -> bool:
        t = Tally("upper")
        t.upper(1.0, 2.0)
        t.upper(NAN, 2.0)
        return t.outcome().status != "verified"

    call("Tally nan instance never verified", nonfinite_not_verified, Val(True))
    for kw in (dict(quick="no"), dict(quick=None), dict(quick=2.5), dict(quick="False"), dict(seed=-1), dict(seed=1.5),
               dict(seed=True), dict(seed="3"), dict(seed=None)):
        call(f"Context({kw})", lambda kw=kw: Context(**kw), Err())
    call("Context(seed=np.int64(3)).rng", lambda: float(Context(seed=np.int64(3)).rng("a").uniform() < 1.0), Val(1.0))
    call("Context().rng(5)", lambda: Context().rng(5), Err())
    call("Context().count(-1, 5)", lambda: Context().count(-1, 5), Err())
    call("Context().count('a', 5)", lambda: Context().count("a", 5), Err())
    call("Context(quick=False).count(1, 7)", lambda: Context(quick=False).count(1, 7), Val(7))
    for name, thunk in (("combine({})", lambda: core.combine({})), ("combine({'a': 3})", lambda: core.combine({"a": 3})),
                        ("relative_error('a', 1)", lambda: core.relative_error("a", 1.0)),
                        ("attach_adversarial(None)", lambda: core.attach_adversarial(Outcome("verified"), None))):
        call(name, thunk, Err())
    # hostile outcomes through run_claim: the claim ends "error", never "verified"/"proved"
    counter = [0]

    def through(make_out: Callable[[], Any], proves: Any = None, want: str = "error") -> Callable[[], Any]:
        def run() -> bool:
            counter[0] += 1
            cid = f"sweep3.hostile{counter[0]}"
            core.claim(cid, citation="sweep round 3", statement="a hostile outcome", proves=proves)(lambda ctx: make_out())
            try:
                return core.run_claim(cid, Context()).status == want
            finally:
                core.REGISTRY.pop(cid, None)
        return run

    sa = statement_of(CERT_A)["statement"]
    bad_a = forged(CERT_A, _set(("statement", "bound", "value"), "1/7"))
    for name, mk in (("verified measured nan", lambda: Outcome("verified", measured=NAN, bound=1.0)),
                     ("verified bound inf", lambda: Outcome("verified", measured=1.0, bound=INF)),
                     ("verified tightness inf", lambda: Outcome("verified", tightness=INF)),
                     ("proved no certificate", lambda: Outcome("proved")),
                     ("proved forged certificate", lambda: Outcome("proved", certificate=bad_a)),
                     ("verified forged certificate", lambda: Outcome("verified", certificate=bad_a)),
                     ("status bogus", lambda: Outcome("bogus")),
                     ("status None", lambda: Outcome(None)),
                     ("note None", lambda: Outcome("verified", note=None)),
                     ("measured '1.0'", lambda: Outcome("verified", measured="1.0")),
                     ("measured True", lambda: Outcome("verified", measured=True)),
                     ("measured complex", lambda: Outcome("verified", measured=1j)),
                     ("instances -1", lambda: Outcome("verified", instances=-1)),
                     ("instances 1.5", lambda: Outcome("verified", instances=1.5)),
                     ("details object", lambda: Outcome("verified", details={"a": object()})),
                     ("details list", lambda: Outcome("verified", details=[1])),
                     ("counterexample list", lambda: Outcome("refuted", counterexample=[1])),
                     ("certificate string", lambda: Outcome("verified", certificate="trust me")),
                     ("certificate empty list", lambda: Outcome("verified", certificate=[])),
                     ("returns None", lambda: None),
                     ("returns a dict", lambda: {"status": "verified"}),
                     ("raises", lambda: 1 / 0)):
        call(f"run_claim {name}", through(mk), Val(True))
    call("run_claim refuted with measured inf", through(lambda: Outcome("refuted", measured=INF, bound=1.0), want="refuted"),
         Val(True))
    call("run_claim verified plain", through(lambda: Outcome("verified", measured=1.0, bound=2.0), want="verified"),
         Val(True))
    call("run_claim proved A, no declared statement", through(lambda: Outcome("proved", certificate=CERT_A)), Val(True))
    call("run_claim proved A, declared A", through(lambda: Outcome("proved", certificate=CERT_A), proves=sa, want="proved"),
         Val(True))
    stronger = forged(CERT_A, _set(("statement", "bound", "value"), "1/7"))["statement"]
    call("run_claim proved A, declared stronger", through(lambda: Outcome("proved", certificate=CERT_A), proves=stronger),
         Val(True))
    call("run_claim proved A, declared other L",
         through(lambda: Outcome("proved", certificate=CERT_A),
                 proves=forged(CERT_A, _set(("statement", "class", "L"), "2"))["statement"]), Val(True))


# ================================================================================ the calls: the CLI
def build_cli() -> None:
    surface("cli")
    for args, needle in ((["--plugin", "/no/such.py"], ""), (["--plugin", "os"], "claim"),
                         (["--only", "nonexistent.*"], ""), (["--plugin", "fairtheory.no_such_module"], ""),
                         (["--seed", "-1"], ""), (["--timeout", "nan"], ""), (["--workers", "0"], "")):
        call(f"cli {' '.join(args)!r}", lambda args=args: run_cli(args), Cli(needle), timeout=40)


def run_cli(args: list[str], seconds: float = 30.0) -> tuple[int, str, str]:
    import verify

    root = Path(verify.__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-m", "verify", *args, "--no-json", "--no-markdown"], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        ran = len(re.findall(r"^\[\d+/\d+\]", out, re.M))
        raise TooSlow(f"still running after {seconds:g} s ({ran} claims ran)") from None
    return proc.returncode, out, err


# ================================================================================ classification and the run
def _named(exc: BaseException) -> bool:
    from fairtheory.errors import FairtheoryError

    try:
        from verify.validate import OutcomeError
    except ImportError:  # pragma: no cover
        OutcomeError = FairtheoryError  # noqa: N806
    return isinstance(exc, (FairtheoryError, OutcomeError))


def _within(x: Any, o: Between) -> bool:
    try:
        v = float(x)
    except (TypeError, ValueError, OverflowError):
        return False
    if isinstance(x, (bool, np.bool_)) or not math.isfinite(v):
        return False
    return o.lo - o.rtol * abs(o.lo) - o.atol <= v <= o.hi + o.rtol * abs(o.hi) + o.atol


def classify(oracle: Any, out: Any, exc: BaseException | None) -> tuple[str, str]:
    """``(class, what happened)`` of one call (module doc)."""
    if isinstance(exc, TooSlow):
        return "obscure (too slow)", str(exc)
    err_ok = isinstance(oracle, OrErr)
    if err_ok:
        oracle = oracle.inner
    if exc is not None:
        what = f"{type(exc).__name__}: {exc}"
        if not _named(exc):
            return "obscure", what
        if isinstance(oracle, (Err, Any_)) or err_ok:
            return "correct", what
        return "refused", what
    if isinstance(oracle, Cli):
        return _classify_cli(oracle, out)
    if isinstance(oracle, Err):
        return "silently wrong", f"returned {_short(out)} (a named error is due)"
    if callable(getattr(out, "certified", None)) and hasattr(out, "value"):  # a WorstCase
        return _classify_wc(oracle, out)
    if isinstance(oracle, Val):
        good = _matches(out, oracle.expected, oracle.rtol, oracle.atol)
        return ("correct" if good else "silently wrong"), f"returned {_short(out)} (expected {_short(oracle.expected)})"
    if isinstance(oracle, Between):
        good = _within(out, oracle)
        return ("correct" if good else "silently wrong"), f"returned {_short(out)} (expected in [{oracle.lo!r}, {oracle.hi!r}])"
    good = _finite(out)
    return ("correct" if good else "silently wrong"), f"returned {_short(out)}"


def _classify_wc(oracle: Any, wc: Any) -> tuple[str, str]:
    """A :class:`~fairtheory.worstcase.WorstCase` against the bracket ``[lo, hi]`` of the oracle (``Val``: its value).

    * ``wc.lower`` (the value of the replayed instance, where the library reports one) is claimed to be reached by
      explicit functions of the class: it may not exceed a proven upper bound ``hi`` (slack ``1e-6`` relative
      plus ``1e-12`` of the unit ``scale = L D0 + rho2/L``);
    * an uncertified value is ``refused`` (the library said so) - unless it is a claimed lower bound above ``hi``;
    * a certified value must lie in ``[lo, hi]`` up to the oracle's ``rtol`` (and ``atol`` for ``Val``) below and,
      above, ``rtol`` plus the documented accuracy of a certified worst case, ``2e-6 scale``."""
    val, ok = wc.value, bool(wc.certified())
    scale = float(getattr(wc, "scale", math.nan))
    sc = scale if math.isfinite(scale) else 0.0
    what = (f"value {val!r} certified={ok} value_is={getattr(wc, 'value_is', '-')} lower={getattr(wc, 'lower', '-')!r} "
            f"scale={scale!r} status={wc.status}")
    if isinstance(oracle, Any_):
        return ("correct" if _finite(val) or not ok else "silently wrong"), what
    if isinstance(oracle, Val):
        lo = hi = float(np.asarray(oracle.expected, dtype=np.float64))
        rtol, atol_lo, atol_hi = oracle.rtol, oracle.atol, oracle.atol
    else:
        lo, hi, rtol, atol_lo, atol_hi = oracle.lo, oracle.hi, oracle.rtol, 0.0, oracle.atol
    lower = getattr(wc, "lower", math.nan)
    if isinstance(lower, float) and math.isfinite(lower) and math.isfinite(hi) \
            and lower > hi + 1e-6 * abs(hi) + 1e-12 * sc + atol_hi:
        return "silently wrong", f"{what}: the replayed lower bound exceeds the proven worst case {hi!r}"
    if not ok:
        if getattr(wc, "value_is", "") == "lower" and math.isfinite(hi) and _finite(val) \
                and val > hi + 1e-6 * abs(hi) + 1e-12 * sc + atol_hi:
            return "silently wrong", f"{what}: an uncertified lower bound above the proven worst case {hi!r}"
        return "refused", f"uncertified: {what}"
    try:
        v = float(val)
    except (TypeError, ValueError):
        return "silently wrong", what
    good = math.isfinite(v) and lo - rtol * abs(lo) - atol_lo <= v <= hi + rtol * abs(hi) + atol_hi + 2e-6 * sc
    return ("correct" if good else "silently wrong"), f"{what} (expected in [{lo!r}, {hi!r}])"


def _classify_cli(o: Cli, res: tuple[int, str, str]) -> tuple[str, str]:
    rc, out, err = res
    lines = [x for x in err.strip().splitlines() if x.strip()]
    ran = len(re.findall(r"^\[\d+/\d+\]", out, re.M))
    what = f"exit {rc}, {ran} claims ran, stderr {err.strip()[-200:]!r}"
    if ran or rc not in (2,):
        return "silently wrong", what
    if len(lines) == 1 and lines[0].startswith("python -m verify: error:") and o.needle in lines[0]:
        return "correct", what
    return "obscure", what


def _short(x: Any) -> str:
    try:
        s = repr(x)
    except Exception:  # noqa: BLE001
        s = f"<{type(x).__name__}>"
    return s if len(s) <= 200 else s[:197] + "..."


def _loud(rec: list[Any]) -> list[str]:
    return [str(w.message)[:80] for w in rec if issubclass(w.category, (RuntimeWarning, UserWarning, DeprecationWarning))]


def _evaluate(c: Call) -> tuple[str, str, list[str]]:
    """Run one call in this process and classify it."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            out, exc = c.fn(), None
        except TooSlow as e:
            out, exc = None, e
        except Exception as e:  # noqa: BLE001 - classified
            out, exc = None, e
        kind, what = classify(c.oracle, out, exc)
    return kind, what, _loud(rec)


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover
        pass
    return 0


def _in_child(c: Call) -> tuple[str, str, list[str]]:
    """Run one call in a forked child: wall-clock limit ``c.timeout``, address space capped at
    :data:`CHILD_MEMORY` above the parent's; a child that dies or overruns is classified here."""
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(r)
            os.setpgid(0, 0)
            vm = _vm_bytes()
            if vm:
                lim = vm + CHILD_MEMORY
                resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            try:
                res = _evaluate(c)
            except BaseException as e:  # noqa: BLE001 - MemoryError, RecursionError while classifying
                res = ("obscure", f"{type(e).__name__} while classifying: {e}"[:300], [])
            data = pickle.dumps(res)
            view = memoryview(data)
            while view:
                n = os.write(w, view)
                view = view[n:]
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    chunks: list[bytes] = []
    deadline = time.monotonic() + c.timeout
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            continue
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    if timed_out:
        for target in (-pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except ProcessLookupError:
                pass
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return "obscure (too slow)", f"no answer within {c.timeout:g} s", []
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - the child died (killed by the memory cap, a signal, a crash)
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return "obscure", f"the child died (status {status}, signal {sig})", []


def build() -> None:
    CALLS.clear()
    build_worstcase()
    build_gram()
    build_proofs()
    build_algorithms()
    build_verify()
    build_cli()


def run(verbose: bool = False, only: str | None = None) -> dict[str, Any]:
    """Run every call (in forked children) and count the classes, in total and per surface."""
    import sympy  # noqa: F401 - loaded once in the parent: children fork with it
    import torch  # noqa: F401

    import fairtheory.proofs.fit  # noqa: F401
    import fairtheory.proofs.symbolic  # noqa: F401
    import verify.core  # noqa: F401
    import verify.validate  # noqa: F401

    build()
    surfaces = {c.surface for c in CALLS}
    calls = [c for c in CALLS if only is None or (c.surface == only if only in surfaces else only in c.cid)]
    counts: Counter[str] = Counter()
    per: dict[str, Counter[str]] = {}
    bad: list[str] = []
    t0 = time.perf_counter()
    for c in calls:
        t = time.perf_counter()
        kind, what, loud = _in_child(c)
        secs = time.perf_counter() - t
        counts[kind] += 1
        sc = per.setdefault(c.surface, Counter())
        sc[kind] += 1
        sc["calls"] += 1
        if loud:
            counts["warned"] += 1
            sc["warned"] += 1
        if kind != "correct" or loud:
            warn = f" [warnings: {loud}]" if loud else ""
            line = f"{kind:18s} [{c.surface}] {c.cid}: {what[:300]}{warn} ({secs:.1f} s)"
            bad.append(line)
            if verbose:
                print(line, flush=True)
    counts["calls"] = len(calls)
    return {"counts": dict(counts), "per_surface": {k: dict(v) for k, v in per.items()}, "bad": bad,
            "seconds": time.perf_counter() - t0}


KINDS = ("correct", "silently wrong", "obscure", "obscure (too slow)", "refused", "warned")


def _line(c: dict[str, int]) -> str:
    return ", ".join(f"{k} {c.get(k, 0)}" for k in KINDS)


if __name__ == "__main__":
    only = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")), None)
    res = run(verbose="-v" in sys.argv, only=only)
    c = res["counts"]
    print(f"calls {c['calls']}: {_line(c)}  ({res['seconds']:.0f} s)")
    for name, sc in res["per_surface"].items():
        print(f"  {name:10s} {sc['calls']:4d} calls: {_line(sc)}")
