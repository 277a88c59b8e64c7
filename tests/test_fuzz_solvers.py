"""Table-driven fuzz of the exact solvers, the algorithms, the problems and the figures CLI.

Every row is one call of the public API with a malformed, extreme or ordinary argument and states
what must happen: either a value, checked against an independent computation written here (a
direct definition in plain numpy/Python, never the library routine under test), or a named
:class:`~fairtheory.errors.FairtheoryError` subclass whose message names the argument.  No row may
emit a ``RuntimeWarning`` or ``UserWarning`` (numpy overflow, cvxpy "solution may be inaccurate",
torch): a correct result is silent, and a failure is an error, not a warning.
"""

from __future__ import annotations

import math
import os
import stat
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from fairtheory.algorithms import (
    afl,
    drfa,
    fedavg,
    fedfv,
    fedfv_aggregate,
    fedmgda,
    fedprox,
    qfedavg,
    qfedsgd,
    rfedfair,
    scaffold,
    scaffpd,
)
from fairtheory.algorithms.base import run
from fairtheory.errors import (
    DivergenceError,
    FairtheoryError,
    FairtheoryTypeError,
    FairtheoryValueError,
    NonFiniteError,
    SolverError,
)
from fairtheory.exact import capped, solve_checked
from fairtheory.exact.aggregate import solve_aggregator
from fairtheory.exact.qffl import newton_polish, solve_qffl
from fairtheory.exact.rcfl import (
    maxmin_quadratic,
    smoothed_objective,
    solve_afl,
    solve_fedavg,
    solve_rcfl,
    solve_smoothed_rcfl,
)
from fairtheory.exact.relative import global_search_minimax, index_curve, select_phi, solve_integrated_minimax
from fairtheory.problems import (
    LeastSquaresProblem,
    LogisticProblem,
    QuadraticProblem,
    random_least_squares,
    random_logistic,
    random_quadratic,
    separable,
)
from fairtheory.problems.multinomial import MultinomialProblem
from fairtheory.problems.synthetic_qffl import power_law_sizes, synthetic_qffl
from fairtheory.sets import CappedSimplex, IntegratedSet

try:
    import torch

    HAVE_TORCH = True
except ImportError:  # the numpy rows still run; the rows that need torch (their ids say "torch") are skipped
    HAVE_TORCH = False

    class _NoTorch:
        """Stands in for torch when it is not installed: every attribute is inert, so the table still builds."""

        Tensor = type("NoTensor", (), {})

        def __getattr__(self, name: str) -> Any:
            return _NoTorch()

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return _NoTorch()

    torch = _NoTorch()

VE, TE, NF, SE, DE = FairtheoryValueError, FairtheoryTypeError, NonFiniteError, SolverError, DivergenceError


# ============================================================================ rows
@dataclass(frozen=True)
class Row:
    """One call: ``check(out)`` asserts the value, or ``err``/``arg`` name the expected error."""

    id: str
    call: Callable[[], Any]
    check: Callable[[Any], None] | None = None
    err: type | None = None
    arg: str = ""


def ok(id: str, call: Callable[[], Any], check: Callable[[Any], None]) -> Row:
    return Row(id, call, check=check)


def bad(id: str, call: Callable[[], Any], err: type, arg: str) -> Row:
    return Row(id, call, err=err, arg=arg)


def close(expected: Callable[[], Any], rtol: float = 1e-12, atol: float = 0.0) -> Callable[[Any], None]:
    """Check ``out`` against ``expected()`` (computed independently, after the call)."""

    def check(out: Any) -> None:
        got = np.asarray(_np(out), dtype=np.float64)
        want = np.asarray(expected(), dtype=np.float64)
        assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
        assert np.all(np.isfinite(got)), f"non-finite result {got}"
        assert np.allclose(got, want, rtol=rtol, atol=atol), f"got {got}, expected {want}"

    return check


def _np(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return x


# ============================================================================ independent formulas
def quad_losses(H: np.ndarray, c: np.ndarray, e: np.ndarray, w: Any) -> np.ndarray:
    """``0.5 (w - c_i)^T H_i (w - c_i) + e_i`` client by client (Python loop, float64)."""
    w = np.asarray(w, dtype=np.float64)
    return np.array([0.5 * (w - c[i]) @ H[i] @ (w - c[i]) + e[i] for i in range(len(e))])


def logistic_losses(X: np.ndarray, y: np.ndarray, off: np.ndarray, w: Any, l2: float = 0.0) -> np.ndarray:
    """``mean_j log(1 + exp(-y_j x_j.w)) + l2/2 |w|^2`` per client (np.logaddexp, float64)."""
    w = np.asarray(w, dtype=np.float64)
    z = y * (X @ w)
    f = np.array([np.mean(np.logaddexp(0.0, -z[off[i]:off[i + 1]])) for i in range(len(off) - 1)])
    return f + 0.5 * l2 * float(w @ w) if l2 else f


def logistic_grads(X: np.ndarray, y: np.ndarray, off: np.ndarray, w: Any) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    z = y * (X @ w)
    s = 0.5 * (1.0 - np.tanh(0.5 * z))  # sigma(-z)
    return np.array([np.mean((-y * s)[off[i]:off[i + 1], None] * X[off[i]:off[i + 1]], axis=0)
                     for i in range(len(off) - 1)])


def lsq_losses(X: np.ndarray, y: np.ndarray, off: np.ndarray, w: Any) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    r = X @ w - y
    return np.array([0.5 * np.mean(r[off[i]:off[i + 1]] ** 2) for i in range(len(off) - 1)])


def softmax_losses(X: np.ndarray, y: np.ndarray, off: np.ndarray, C: int, w: Any) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    Z = Xa @ w.reshape(Xa.shape[1], C)
    per = np.array([math.log(sum(math.exp(v) for v in row)) - row[k] for row, k in zip(Z, y, strict=True)])
    return np.array([per[off[i]:off[i + 1]].mean() for i in range(len(off) - 1)])


def sigmoid(x: Any) -> Any:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=np.float64)))


# ============================================================================ problems
HQ = np.array([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 0.0], [0.0, 3.0]], [[1.5, -0.2], [-0.2, 0.8]]])
CQ = np.array([[1.0, -1.0], [-0.5, 2.0], [0.3, 0.1]])
EQ = np.array([0.1, 0.0, 0.4])
QUAD = QuadraticProblem(HQ, CQ, EQ)
W2 = np.array([0.7, -1.2])

A_SYM = np.array([1.5, -0.5])
SYM2 = QuadraticProblem(np.stack([np.eye(2)] * 2), np.stack([A_SYM, -A_SYM]), p=[0.5, 0.5])  # optimum w = 0
ONE = QuadraticProblem(HQ[:1], CQ[:1], [0.25])  # a single client

XL = np.array([[1.0, 0.5], [-0.3, 1.0], [0.8, -1.2], [0.1, 0.4], [-1.0, -0.7], [0.6, 0.9], [0.2, -0.3]])
YL = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0])
OL = np.array([0, 3, 7])
LOG = LogisticProblem(XL, YL, OL)
LOG_L2 = LogisticProblem(XL, YL, OL, l2=0.1)
YR = np.array([0.5, -1.0, 2.0, 0.0, 1.5, -0.5, 0.3])
LSQ = LeastSquaresProblem(XL, YR, OL)
YM = np.array([0, 1, 2, 1, 0, 2, 1])
MULTI = MultinomialProblem(XL, YM, OL, 3)

QUAD6 = random_quadratic(6, 3, rng=np.random.default_rng(0), offset=0.5)
LOGI6 = random_logistic(6, 3, 12, rng=np.random.default_rng(1), l2=0.05)
LOGI_EX = random_logistic(5, 3, 30, rng=np.random.default_rng(3))
#: an ordinary logistic problem on which Clarabel's default settings end optimal_inaccurate for q = 0
QFFL_HARD = random_logistic(6, 9, 22, rng=np.random.default_rng(1030))


def ev(P: Any, which: str, w: Any) -> Any:
    return lambda: getattr(P, which)(w)


FLOAT_INPUTS = {  # how a model can be given; all mean W2
    "list": [0.7, -1.2],
    "tuple": (0.7, -1.2),
    "float32": W2.astype(np.float32),
    "torch64": torch.tensor(W2),
    "torch-requires-grad": torch.tensor(W2, requires_grad=True),
    "torch32": torch.tensor(W2, dtype=torch.float32),
}
INT_W = np.array([1, -2])
MALFORMED = [  # (id, w, error, argument)
    ("bool", np.array([True, False]), TE, "w"),
    ("bool-list", [True, False], TE, "w"),
    ("torch-bool", torch.tensor([True, False]), TE, "w"),
    ("nan", np.array([np.nan, 1.0]), NF, "w"),
    ("inf", np.array([1.0, np.inf]), NF, "w"),
    ("-inf", [-np.inf, 0.0], NF, "w"),
    ("torch-nan", torch.tensor([0.0, float("nan")], dtype=torch.float64), NF, "w"),
    ("empty", np.zeros(0), VE, "w"),
    ("2-D", np.zeros((1, 2)), VE, "w"),
    ("too long", np.zeros(3), VE, "w"),
    ("string", "ab", TE, "w"),
    ("None", None, TE, "w"),
    ("ragged", [[1.0], [2.0, 3.0]], TE, "w"),
    ("complex", np.array([1j, 0.0]), TE, "w"),
]

PROBLEM_ROWS: list[Row] = []
for pname, P, formula in [
    ("quad", QUAD, lambda w: quad_losses(HQ, CQ, EQ, w)),
    ("logistic", LOG, lambda w: logistic_losses(XL, YL, OL, w)),
    ("logistic-l2", LOG_L2, lambda w: logistic_losses(XL, YL, OL, w, 0.1)),
    ("lsq", LSQ, lambda w: lsq_losses(XL, YR, OL, w)),
]:
    PROBLEM_ROWS += [ok(f"{pname}.losses {k}", ev(P, "losses", v), close(lambda f=formula: f(W2), rtol=1e-6 if "32" in k
                                                                          else 1e-12))
                     for k, v in FLOAT_INPUTS.items()]
    PROBLEM_ROWS += [
        ok(f"{pname}.losses int array", ev(P, "losses", INT_W), close(lambda f=formula: f(INT_W.astype(float)))),
        ok(f"{pname}.losses int list", ev(P, "losses", [1, -2]), close(lambda f=formula: f(INT_W.astype(float)))),
        ok(f"{pname}.losses torch int", ev(P, "losses", torch.tensor([1, -2])),
           close(lambda f=formula: f(INT_W.astype(float)))),
        ok(f"{pname}.losses tiny 1e-300", ev(P, "losses", W2 * 1e-300), close(lambda f=formula: f(W2 * 1e-300))),
        ok(f"{pname}.losses_each clients [1, 1]", lambda P=P: P.losses_each(np.stack([W2, 2 * W2]), clients=[1, 1]),
           close(lambda f=formula: np.array([f(W2)[1], f(2 * W2)[1]]))),
        ok(f"{pname}.weighted_loss", ev(P, "weighted_loss", W2), close(lambda f=formula, P=P: P.p @ f(W2))),
        bad(f"{pname}.losses_each clients bool", lambda P=P: P.losses_each(np.zeros((2, 2)), clients=[True, False]),
            VE, "clients"),
        bad(f"{pname}.losses_each clients out of range", lambda P=P: P.losses_each(np.zeros((1, 2)), clients=[7]),
            VE, "clients"),
        bad(f"{pname}.losses_each W wrong rows", lambda P=P: P.losses_each(np.zeros((5, 2))), VE, "W"),
        bad(f"{pname}.grads_each W nan", lambda P=P: P.grads_each(np.full((P.n, 2), np.nan)), NF, "W"),
        bad(f"{pname}.hessians bool", ev(P, "hessians", np.array([True, False])), TE, "w"),
        bad(f"{pname}.hessians nan", ev(P, "hessians", np.array([np.nan, 0.0])), NF, "w"),
        bad(f"{pname}.grads inf", ev(P, "grads", np.array([np.inf, 0.0])), NF, "w"),
    ]
    PROBLEM_ROWS += [bad(f"{pname}.losses {k}", ev(P, "losses", v), e, a) for k, v, e, a in MALFORMED]

PROBLEM_ROWS += [
    ok("multinomial.losses list", ev(MULTI, "losses", list(np.linspace(-1, 1, 9))),
       close(lambda: softmax_losses(XL, YM, OL, 3, np.linspace(-1, 1, 9)))),
    ok("multinomial.losses int", ev(MULTI, "losses", np.arange(9) - 4),
       close(lambda: softmax_losses(XL, YM, OL, 3, np.arange(9.0) - 4))),
    ok("multinomial.losses torch", ev(MULTI, "losses", torch.linspace(-1, 1, 9, dtype=torch.float64)),
       close(lambda: softmax_losses(XL, YM, OL, 3, np.linspace(-1, 1, 9)))),
    bad("multinomial.losses bool", ev(MULTI, "losses", np.ones(9, dtype=bool)), TE, "w"),
    bad("multinomial.losses nan", ev(MULTI, "losses", np.full(9, np.nan)), NF, "w"),
    bad("multinomial.hessians wrong length", ev(MULTI, "hessians", np.zeros(4)), VE, "w"),
    bad("multinomial.accuracies inf", ev(MULTI, "accuracies", np.full(9, np.inf)), NF, "w"),
    ok("logistic.losses huge 1e200 (fits float64)", ev(LOG, "losses", W2 * 1e200),
       close(lambda: logistic_losses(XL, YL, OL, W2 * 1e200), rtol=1e-12)),
    ok("logistic.grads huge 1e200", ev(LOG, "grads", W2 * 1e200),
       close(lambda: logistic_grads(XL, YL, OL, W2 * 1e200), rtol=1e-12, atol=1e-300)),
    ok("logistic.grads list", ev(LOG, "grads", [0.7, -1.2]), close(lambda: logistic_grads(XL, YL, OL, W2))),
    ok("logistic.accuracies int", ev(LOG, "accuracies", INT_W),
       close(lambda: [np.mean((YL * (XL @ INT_W) > 0)[OL[i]:OL[i + 1]]) for i in range(2)])),
    ok("quad.losses 1e150 (fits float64)", ev(QUAD, "losses", W2 * 1e150),
       close(lambda: quad_losses(HQ, CQ / 1e150, EQ / 1e300, W2) * 1e300, rtol=1e-12)),
    bad("quad.losses 1e200 overflows float64", ev(QUAD, "losses", W2 * 1e200), VE, "float64"),
    ok("quad.grads 1e200 (fits float64)", ev(QUAD, "grads", W2 * 1e200),
       close(lambda: np.einsum("nij,nj->ni", HQ, W2[None, :] * 1e200 - CQ), rtol=1e-12)),
    ok("quad.hessians list", ev(QUAD, "hessians", [1, 2]), close(lambda: HQ)),
    ok("quad.losses torch requires_grad differentiable", lambda: _autograd(QUAD, W2),
       close(lambda: QUAD.p @ np.einsum("nij,nj->ni", HQ, W2[None, :] - CQ))),
    # constructors
    bad("QuadraticProblem H nan", lambda: QuadraticProblem(np.full((1, 2, 2), np.nan), np.zeros((1, 2))), VE, "H"),
    bad("QuadraticProblem H string", lambda: QuadraticProblem("abc", np.zeros((1, 2))), TE, "H"),
    bad("QuadraticProblem H bool", lambda: QuadraticProblem(np.ones((1, 2, 2), dtype=bool), np.zeros((1, 2))), TE,
        "H"),
    bad("QuadraticProblem H ragged", lambda: QuadraticProblem([[[1.0]], [[1.0, 2.0]]], np.zeros((2, 1))), TE, "H"),
    bad("QuadraticProblem c shape", lambda: QuadraticProblem(HQ, np.zeros((3, 3))), VE, "c"),
    bad("QuadraticProblem c inf", lambda: QuadraticProblem(HQ, np.full((3, 2), np.inf)), VE, "c"),
    bad("QuadraticProblem H not PSD", lambda: QuadraticProblem(-HQ, CQ), VE, "H"),
    bad("QuadraticProblem e nan", lambda: QuadraticProblem(HQ, CQ, [0.0, np.nan, 0.0]), VE, "e"),
    bad("QuadraticProblem p wrong sum", lambda: QuadraticProblem(HQ, CQ, p=[0.5, 0.5, 0.5]), VE, "p"),
    bad("QuadraticProblem p bool", lambda: QuadraticProblem(HQ, CQ, p=[True, False, False]), TE, "p"),
    ok("QuadraticProblem from lists", lambda: QuadraticProblem(HQ.tolist(), CQ.tolist(), EQ.tolist()).losses(W2),
       close(lambda: quad_losses(HQ, CQ, EQ, W2))),
    ok("QuadraticProblem from torch", lambda: QuadraticProblem(torch.tensor(HQ), torch.tensor(CQ)).losses(W2),
       close(lambda: quad_losses(HQ, CQ, np.zeros(3), W2))),
    ok("QuadraticProblem int H", lambda: QuadraticProblem(np.eye(2, dtype=int)[None], [[1, 2]]).losses([0, 0]),
       close(lambda: [2.5])),
    bad("LogisticProblem X nan", lambda: LogisticProblem(np.full((2, 2), np.nan), [1, -1], [0, 2]), VE, "X"),
    bad("LogisticProblem X string", lambda: LogisticProblem("ab", [1, -1], [0, 2]), TE, "X"),
    bad("LogisticProblem X bool", lambda: LogisticProblem(np.ones((2, 2), dtype=bool), [1, -1], [0, 2]), TE, "X"),
    bad("LogisticProblem y bool", lambda: LogisticProblem(XL, YL > 0, OL), TE, "y"),
    bad("LogisticProblem y in {0,1}", lambda: LogisticProblem(XL, (YL > 0).astype(float), OL), VE, "y"),
    bad("LogisticProblem y shape", lambda: LogisticProblem(XL, YL[:3], OL), VE, "y"),
    bad("LogisticProblem offsets float", lambda: LogisticProblem(XL, YL, [0, 2.5, 7]), TE, "offsets"),
    bad("LogisticProblem offsets decreasing", lambda: LogisticProblem(XL, YL, [0, 5, 3, 7]), VE, "offsets"),
    bad("LogisticProblem offsets end", lambda: LogisticProblem(XL, YL, [0, 3, 6]), VE, "offsets"),
    bad("LogisticProblem offsets string", lambda: LogisticProblem(XL, YL, "07"), TE, "offsets"),
    bad("LogisticProblem l2 negative", lambda: LogisticProblem(XL, YL, OL, l2=-1.0), VE, "l2"),
    bad("LogisticProblem l2 nan", lambda: LogisticProblem(XL, YL, OL, l2=float("nan")), VE, "l2"),
    ok("LogisticProblem from lists", lambda: LogisticProblem(XL.tolist(), YL.astype(int).tolist(), OL.tolist())
       .losses(W2), close(lambda: logistic_losses(XL, YL, OL, W2))),
    bad("LeastSquaresProblem y inf", lambda: LeastSquaresProblem(XL, np.full(7, np.inf), OL), VE, "y"),
    bad("MultinomialProblem y bool", lambda: MultinomialProblem(XL, YM > 0, OL, 2), TE, "y"),
    bad("MultinomialProblem y float", lambda: MultinomialProblem(XL, YM + 0.5, OL, 3), VE, "y"),
    bad("MultinomialProblem n_classes 1", lambda: MultinomialProblem(XL, YM * 0, OL, 1), VE, "n_classes"),
    bad("MultinomialProblem X string", lambda: MultinomialProblem("abc", YM, OL, 3), TE, "X"),
    bad("MultinomialProblem offsets string", lambda: MultinomialProblem(XL, YM, "abc", 3), TE, "offsets"),
    bad("MultinomialProblem y string", lambda: MultinomialProblem(XL, ["a"] * 7, OL, 3), TE, "y"),
    # generators
    bad("random_quadratic rng None", lambda: random_quadratic(3, 2, rng=None), TE, "rng"),
    bad("random_quadratic rng int", lambda: random_quadratic(3, 2, rng=0), TE, "rng"),
    bad("random_quadratic n 0", lambda: random_quadratic(0, 2, rng=np.random.default_rng(0)), VE, "n"),
    bad("random_quadratic d bool", lambda: random_quadratic(3, True, rng=np.random.default_rng(0)), TE, "d"),
    bad("random_quadratic L < mu", lambda: random_quadratic(3, 2, rng=np.random.default_rng(0), mu=2.0, L=1.0), VE,
        "L"),
    bad("random_quadratic spread nan", lambda: random_quadratic(3, 2, rng=np.random.default_rng(0),
                                                                 spread=float("nan")), VE, "spread"),
    bad("random_quadratic offset inf", lambda: random_quadratic(3, 2, rng=np.random.default_rng(0),
                                                                 offset=float("inf")), VE, "offset"),
    ok("random_quadratic single client", lambda: random_quadratic(1, 2, rng=np.random.default_rng(0)).p,
       close(lambda: [1.0])),
    bad("random_logistic rng None", lambda: random_logistic(3, 2, 5, rng=None), TE, "rng"),
    bad("random_logistic n float", lambda: random_logistic(2.5, 2, 5, rng=np.random.default_rng(0)), TE, "n"),
    bad("random_logistic m list bad", lambda: random_logistic(2, 2, [5, 0], rng=np.random.default_rng(0)), VE, "m"),
    bad("random_logistic flip > 1", lambda: random_logistic(2, 2, 5, rng=np.random.default_rng(0), flip=1.5), VE,
        "flip"),
    bad("random_logistic l2 nan", lambda: random_logistic(2, 2, 5, rng=np.random.default_rng(0), l2=float("nan")),
        VE, "l2"),
    bad("random_least_squares rng None", lambda: random_least_squares(3, 2, 5, rng=None), TE, "rng"),
    bad("random_least_squares noise inf", lambda: random_least_squares(3, 2, 5, rng=np.random.default_rng(0),
                                                                        noise=float("inf")), VE, "noise"),
    bad("synthetic_qffl rng None", lambda: synthetic_qffl(rng=None), TE, "rng"),
    bad("synthetic_qffl n 0", lambda: synthetic_qffl(rng=np.random.default_rng(0), n=0), VE, "n"),
    bad("power_law_sizes rng None", lambda: power_law_sizes(3, rng=None), TE, "rng"),
    bad("power_law_sizes n -1", lambda: power_law_sizes(-1, rng=np.random.default_rng(0)), VE, "n"),
    bad("separable X string", lambda: separable("ab", [1, -1]), TE, "X"),
    bad("separable X nan", lambda: separable(np.full((2, 2), np.nan), [1, -1]), VE, "X"),
    bad("separable y shape", lambda: separable(np.ones((2, 2)), [1, -1, 1]), VE, "y"),
    ok("separable two points", lambda: separable([[1.0], [-1.0]], [1, -1]), lambda out: _is(out, True)),
    ok("separable XOR-like", lambda: separable([[1.0, 1.0], [1.0, 1.0]], [1, -1]), lambda out: _is(out, False)),
]


def _is(out: Any, want: Any) -> None:
    assert type(out) is type(want) and out == want, f"got {out!r}, expected {want!r}"


def _autograd(P: Any, w: np.ndarray) -> Any:
    wt = torch.tensor(w, requires_grad=True)
    (g,) = torch.autograd.grad(P.weighted_loss(wt), wt)
    return g


# ============================================================================ exact solvers
def fedavg_closed_form(P: QuadraticProblem) -> tuple[np.ndarray, float]:
    """``w = (sum p_i H_i)^{-1} sum p_i H_i c_i`` and ``p . f(w)``."""
    Hbar = sum(P.p[i] * P.H[i] for i in range(P.n))
    rbar = sum(P.p[i] * P.H[i] @ P.c[i] for i in range(P.n))
    w = np.linalg.solve(Hbar, rbar)
    return w, float(P.p @ quad_losses(P.H, P.c, P.e, w))


def _scaled(P: QuadraticProblem, s: float) -> QuadraticProblem:
    return QuadraticProblem(s * P.H, P.c, s * P.e, P.p)


def _check_solution(value: float, w: Callable[[], np.ndarray] | None = None, rtol: float = 1e-8, atol: float = 1e-9
                    ) -> Callable[[Any], None]:
    def check(out: Any) -> None:
        assert np.isfinite(out.value) and math.isclose(out.value, value, rel_tol=rtol, abs_tol=atol), \
            f"value {out.value!r}, expected {value!r}"
        if w is not None:
            assert np.allclose(out.argmin, w(), rtol=1e-6, atol=1e-6), f"argmin {out.argmin}, expected {w()}"

    return check


def _stationary(P: Any, grad: Callable[[np.ndarray], np.ndarray], tol: float) -> Callable[[Any], None]:
    def check(out: Any) -> None:
        g = grad(np.asarray(out.argmin))
        assert np.linalg.norm(g) <= tol, f"gradient norm {np.linalg.norm(g):.3g} at the returned point"

    return check


def _qffl_grad(P: LogisticProblem, q: float) -> Callable[[np.ndarray], np.ndarray]:
    """``sum_k p_k F_k^q grad F_k`` from the logistic definition (independent of the library)."""
    X, y, off = P.X, P.y, P.offsets

    def grad(w: np.ndarray) -> np.ndarray:
        F = logistic_losses(X, y, off, w)
        return (P.p * F**q) @ logistic_grads(X, y, off, w)

    return grad


def _force_inaccurate(monkeypatch_cascade: tuple[Any, ...]) -> Callable[[], Any]:
    import fairtheory.exact.qffl as qmod

    def call() -> Any:
        saved = qmod.QFFL_CASCADE
        qmod.QFFL_CASCADE = monkeypatch_cascade
        try:
            return solve_qffl(QFFL_HARD, 0.0)
        finally:
            qmod.QFFL_CASCADE = saved

    return call


def _check_certified_inaccurate(out: Any) -> None:
    assert out.status == "optimal_inaccurate (certified)", out.status
    assert out.certificate["grad_rel"] <= 1e-7
    assert np.linalg.norm(_qffl_grad(QFFL_HARD, 0.0)(out.argmin)) <= 1e-9


W_SYM = 0.5 * float(A_SYM @ A_SYM)  # value of every minimax objective of SYM2 (optimum w = 0)


def _sym(s: float) -> QuadraticProblem:
    """SYM2 with every loss multiplied by ``s``: the optimum stays at ``w = 0`` with value ``s W_SYM``."""
    return QuadraticProblem(s * SYM2.H, SYM2.c, p=[0.5, 0.5])


def _at_zero(value: float, rtol: float = 1e-8, atol_w: float = 1e-6) -> Callable[[Any], None]:
    def check(out: Any) -> None:
        _rel(out.value, value, rtol)
        assert np.max(np.abs(out.argmin)) <= atol_w, f"argmin {out.argmin}, expected 0"

    return check


#: the same symmetric instance at loss scales 1e-12 and 1e12: certificates and solves must be scale-aware
SCALE_ROWS: list[Row] = []
for _s in (1e-12, 1e12):
    SCALE_ROWS += [
        ok(f"solve_fedavg scale {_s:g}", lambda s=_s: solve_fedavg(_sym(s)), _at_zero(_s * W_SYM)),
        ok(f"solve_rcfl scale {_s:g}", lambda s=_s: solve_rcfl(_sym(s), 0.7), _at_zero(_s * W_SYM)),
        ok(f"solve_afl scale {_s:g}", lambda s=_s: solve_afl(_sym(s)), _at_zero(_s * W_SYM)),
        ok(f"maxmin_quadratic scale {_s:g}", lambda s=_s: maxmin_quadratic(_sym(s), CappedSimplex.simplex(2)),
           _at_zero(_s * W_SYM, rtol=1e-7, atol_w=1e-5)),
        ok(f"solve_qffl q=1 scale {_s:g}", lambda s=_s: solve_qffl(_sym(s), 1.0), _at_zero(_s**2 * W_SYM**2 / 2)),
        ok(f"solve_smoothed_rcfl scale {_s:g}", lambda s=_s: solve_smoothed_rcfl(_sym(s), 0.7, 0.1 * s),
           lambda out: np.testing.assert_allclose(out.argmin, 0.0, atol=1e-6)),
        ok(f"solve_aggregator set scale {_s:g}", lambda s=_s: solve_aggregator(_sym(s), AGG_SET),
           _at_zero(_s * W_SYM, rtol=1e-7, atol_w=1e-5)),
        ok(f"solve_integrated_minimax scale {_s:g}", lambda s=_s: solve_integrated_minimax(
            _sym(s), IntegratedSet(AGG_SET, CappedSimplex.cvar(2, 0.6), 0.3)), _at_zero(_s * W_SYM, rtol=1e-7,
                                                                                       atol_w=1e-5)),
        ok(f"global_search_minimax scale {_s:g}", lambda s=_s: global_search_minimax(
            _sym(s), IntegratedSet(AGG_SET, CappedSimplex.cvar(2, 0.6), 0.3)), _at_zero(_s * W_SYM, rtol=1e-7,
                                                                                       atol_w=1e-5)),
    ]
S3 = CappedSimplex.simplex(3)
ISET = IntegratedSet(S3, CappedSimplex.cvar(3, 0.5), 0.3)
AGG_SET = CappedSimplex.simplex(2)

def _interp_ls() -> LeastSquaresProblem:
    """Least squares that interpolate: y = X w_true exactly, min of every objective 0 at w_true."""
    X = np.random.default_rng(0).normal(size=(12, 3))
    return LeastSquaresProblem(X, X @ W_TRUE, [0, 4, 8, 12])


W_TRUE = np.array([1.0, -2.0, 0.5])
ONE_HUGE_H = QuadraticProblem(1e200 * np.eye(2)[None], np.full((1, 2), 1e-100), [1e-30])
ONE_HUGE_H2 = QuadraticProblem(1e300 * np.eye(2)[None], np.zeros((1, 2)), [1e-30])


def _interval(lo: float, hi: float, w: np.ndarray, rtol_w: float = 1e-12, atol_w: float = 1e-9
              ) -> Callable[[Any], None]:
    def check(out: Any) -> None:
        assert lo <= out.value <= hi, f"value {out.value!r} outside [{lo!r}, {hi!r}]"
        np.testing.assert_allclose(out.argmin, w, rtol=rtol_w, atol=atol_w)

    return check


ROUND2_ROWS: list[Row] = [
    ok("solve_fedavg interpolating least squares", lambda: solve_fedavg(_interp_ls()), _interval(0.0, 1e-20, W_TRUE, 1e-8)),
    ok("solve_afl interpolating least squares", lambda: solve_afl(_interp_ls()), _interval(0.0, 1e-20, W_TRUE, 1e-8)),
    ok("solve_rcfl interpolating least squares", lambda: solve_rcfl(_interp_ls(), 0.5),
       _interval(0.0, 1e-20, W_TRUE, 1e-8)),
    ok("solve_rcfl n=1 alpha=1 gap at float resolution", lambda: solve_rcfl(ONE_HUGE_H, 1.0),
       _interval(1e-30, 1.1e-30, np.full(2, 1e-100), atol_w=0.0)),
    ok("solve_rcfl n=1 H 1e300 loss 1e-30", lambda: solve_rcfl(ONE_HUGE_H2, 1.0),
       _interval(1e-30, 1e-30 * (1 + 1e-12), np.zeros(2), atol_w=1e-150)),
    # SYM2: min F^mu = W_SYM + O(mu tau log 2) at w = 0 (symmetric clients)
    ok("solve_smoothed_rcfl mu 1e-12", lambda: solve_smoothed_rcfl(SYM2, 0.7, 1e-12),
       _interval(W_SYM, W_SYM + 1e-12 * (1 / 0.7) * math.log(2) + 1e-12, np.zeros(2))),
    ok("solve_smoothed_rcfl mu 1e-300", lambda: solve_smoothed_rcfl(SYM2, 0.7, 1e-300),
       _interval(W_SYM, W_SYM + 1e-12, np.zeros(2))),
    ok("solve_smoothed_rcfl mu 1e-12 newton", lambda: solve_smoothed_rcfl(SYM2, 0.7, 1e-12, method="newton"),
       _interval(W_SYM, W_SYM + 1e-12 * (1 / 0.7) * math.log(2) + 1e-12, np.zeros(2))),
    ok("solve_smoothed_rcfl mu 1e-4 newton", lambda: solve_smoothed_rcfl(SYM2, 0.7, 1e-4, method="newton"),
       _interval(W_SYM, W_SYM + 1e-4 * (1 / 0.7) * math.log(2), np.zeros(2), 1e-6)),
    ok("solve_qffl interpolating least squares", lambda: solve_qffl(_interp_ls(), 1.0), _interval(0.0, 1e-40, W_TRUE, 1e-8)),
    ok("solve_qffl losses 1e100", lambda: solve_qffl(_sym(1e100), 1.0),
       _interval(0.5 * (1e100 * W_SYM) ** 2 * (1 - 1e-9), 0.5 * (1e100 * W_SYM) ** 2 * (1 + 1e-9), np.zeros(2))),
    bad("random_least_squares n 1e12", lambda: random_least_squares(10**12, 2, 5, rng=np.random.default_rng(0)), VE,
        "MAX_ENTRIES"),
    bad("random_logistic m 1e12", lambda: random_logistic(2, 2, 10**12, rng=np.random.default_rng(0)), VE, "MAX_ENTRIES"),
    bad("random_logistic m list huge", lambda: random_logistic(2, 2, [10**11, 10**11], rng=np.random.default_rng(0)), VE,
        "MAX_ENTRIES"),
    bad("solve_smoothed_rcfl mu_floor -1", lambda: solve_smoothed_rcfl(SYM2, 0.7, 0.1, mu_floor=-1.0), VE, "mu_floor"),
    bad("solve_smoothed_rcfl mu_floor nan", lambda: solve_smoothed_rcfl(SYM2, 0.7, 0.1, mu_floor=float("nan")), VE,
        "mu_floor"),
    bad("solve_smoothed_rcfl mu_floor string", lambda: solve_smoothed_rcfl(SYM2, 0.7, 0.1, mu_floor="1"), TE,
        "mu_floor"),
]

def _centres(sw: float) -> QuadraticProblem:
    """SYM2 with centres +-sw A: optimum w = 0, every minimax value sw^2 W_SYM."""
    return QuadraticProblem(SYM2.H, sw * SYM2.c, p=[0.5, 0.5])


for _sw in (1e-50, 1e-8, 1e8, 1e50):
    ROUND2_ROWS += [
        ok(f"solve_afl centres {_sw:g}", lambda sw=_sw: solve_afl(_centres(sw)), _at_zero(_sw**2 * W_SYM, 1e-7, 1e-6 * _sw)),
        ok(f"solve_rcfl centres {_sw:g}", lambda sw=_sw: solve_rcfl(_centres(sw), 0.7),
           _at_zero(_sw**2 * W_SYM, 1e-7, 1e-6 * _sw)),
        ok(f"maxmin_quadratic centres {_sw:g}", lambda sw=_sw: maxmin_quadratic(_centres(sw), CappedSimplex.simplex(2)),
           _at_zero(_sw**2 * W_SYM, 1e-7, 1e-5 * _sw)),
    ]
for _sw in (1e-8, 1e8):
    ROUND2_ROWS.append(ok(f"solve_qffl centres {_sw:g}", lambda sw=_sw: solve_qffl(_centres(sw), 1.0),
                          _at_zero(0.5 * (_sw**2 * W_SYM) ** 2, 1e-7, 1e-5 * _sw)))

EXACT_ROWS: list[Row] = [
    # ---- values against closed forms
    ok("solve_fedavg quad closed form", lambda: solve_fedavg(QUAD),
       _check_solution(fedavg_closed_form(QUAD)[1], lambda: fedavg_closed_form(QUAD)[0], rtol=1e-12)),
    ok("solve_fedavg tiny scale 1e-12", lambda: solve_fedavg(_scaled(QUAD, 1e-12)),
       _check_solution(fedavg_closed_form(_scaled(QUAD, 1e-12))[1], lambda: fedavg_closed_form(QUAD)[0], rtol=1e-8,
                       atol=0.0)),
    ok("solve_fedavg huge scale 1e8", lambda: solve_fedavg(_scaled(QUAD, 1e8)),
       _check_solution(fedavg_closed_form(_scaled(QUAD, 1e8))[1], lambda: fedavg_closed_form(QUAD)[0], rtol=1e-8)),
    ok("solve_fedavg single client", lambda: solve_fedavg(ONE), _check_solution(0.25, lambda: CQ[0], rtol=1e-10)),
    ok("solve_fedavg logistic stationary", lambda: solve_fedavg(LOGI_EX),
       _stationary(LOGI_EX, lambda w: LOGI_EX.p @ logistic_grads(LOGI_EX.X, LOGI_EX.y, LOGI_EX.offsets, w), 1e-8)),
    ok("solve_rcfl symmetric", lambda: solve_rcfl(SYM2, 0.7), _check_solution(W_SYM, lambda: np.zeros(2))),
    ok("solve_rcfl alpha vector", lambda: solve_rcfl(SYM2, [0.6, 0.9]), _check_solution(W_SYM, lambda: np.zeros(2))),
    ok("solve_rcfl alpha 1 = fedavg", lambda: solve_rcfl(QUAD, 1.0),
       _check_solution(fedavg_closed_form(QUAD)[1], lambda: fedavg_closed_form(QUAD)[0])),
    ok("solve_rcfl single client", lambda: solve_rcfl(ONE, 1.0), _check_solution(0.25, lambda: CQ[0])),
    ok("solve_afl symmetric", lambda: solve_afl(SYM2), _check_solution(W_SYM, lambda: np.zeros(2))),
    ok("solve_afl single client", lambda: solve_afl(ONE), _check_solution(0.25, lambda: CQ[0])),
    ok("solve_smoothed_rcfl symmetric", lambda: solve_smoothed_rcfl(SYM2, 0.7, 0.1),
       lambda out: np.testing.assert_allclose(out.argmin, 0.0, atol=1e-9)),
    ok("solve_smoothed_rcfl newton", lambda: solve_smoothed_rcfl(SYM2, 0.7, 0.1, method="newton"),
       lambda out: np.testing.assert_allclose(out.argmin, 0.0, atol=1e-9)),
    ok("smoothed_objective value", lambda: smoothed_objective(SYM2, [0, 0], 0.0, 0.5, 0.1)[0],
       close(lambda: 0.5 * sum(0.1 / 0.5 * np.logaddexp(0.0, W_SYM / 0.1) for _ in range(2)))),
    ok("smoothed_objective int w", lambda: smoothed_objective(SYM2, np.array([1, 0]), 0.0, 0.5, 0.1)[0],
       close(lambda: 0.5 * sum(0.1 / 0.5 * np.logaddexp(0.0, f / 0.1)
                               for f in quad_losses(SYM2.H, SYM2.c, SYM2.e, [1.0, 0.0])))),
    ok("maxmin_quadratic symmetric", lambda: maxmin_quadratic(SYM2, CappedSimplex.simplex(2)),
       _check_solution(W_SYM, None, rtol=1e-7)),
    ok("solve_qffl q=0 quad closed form", lambda: solve_qffl(QUAD, 0.0),
       _check_solution(fedavg_closed_form(QUAD)[1], lambda: fedavg_closed_form(QUAD)[0], rtol=1e-10)),
    ok("solve_qffl hard logistic q=0 (cascade)", lambda: solve_qffl(QFFL_HARD, 0.0),
       _stationary(QFFL_HARD, _qffl_grad(QFFL_HARD, 0.0), 1e-9)),
    ok("solve_qffl certified optimal_inaccurate",
       _force_inaccurate((("defaults", "CLARABEL", {}),)), _check_certified_inaccurate),
    ok("solve_qffl q=2 logistic stationary", lambda: solve_qffl(LOGI_EX, 2.0),
       _stationary(LOGI_EX, _qffl_grad(LOGI_EX, 2.0), 1e-9)),
    ok("solve_qffl symmetric q=3", lambda: solve_qffl(SYM2, 3.0), lambda out: np.testing.assert_allclose(
        out.argmin, 0.0, atol=1e-8)),
    ok("newton_polish from a list", lambda: newton_polish(QUAD, [0.0, 0.0], 0.0)[0],
       close(lambda: fedavg_closed_form(QUAD)[0], rtol=1e-10)),
    ok("solve_aggregator simplex = afl", lambda: solve_aggregator(SYM2, AGG_SET),
       _check_solution(W_SYM, lambda: np.zeros(2), rtol=1e-7)),
    ok("solve_integrated_minimax phi=0 simplex", lambda: solve_integrated_minimax(
        SYM2, IntegratedSet(AGG_SET, AGG_SET, 0.0)), _check_solution(W_SYM, lambda: np.zeros(2), rtol=1e-7)),
    *SCALE_ROWS,
    # ---- errors
    bad("solve_fedavg not a problem", lambda: solve_fedavg("quad"), TE, "problem"),
    bad("solve_fedavg grad_tol 0", lambda: solve_fedavg(QUAD, grad_tol=0.0), VE, "grad_tol"),
    bad("solve_fedavg grad_tol nan", lambda: solve_fedavg(QUAD, grad_tol=float("nan")), VE, "grad_tol"),
    bad("solve_rcfl alpha < p", lambda: solve_rcfl(QUAD, 0.1), VE, "alpha"),
    bad("solve_rcfl alpha nan", lambda: solve_rcfl(QUAD, float("nan")), VE, "alpha"),
    bad("solve_rcfl alpha bool", lambda: solve_rcfl(QUAD, True), TE, "alpha"),
    bad("solve_rcfl alpha string", lambda: solve_rcfl(QUAD, "0.5"), TE, "alpha"),
    bad("solve_rcfl alpha wrong length", lambda: solve_rcfl(QUAD, [0.5, 0.5]), VE, "alpha"),
    bad("solve_rcfl gap_tol -1", lambda: solve_rcfl(QUAD, 0.5, gap_tol=-1.0), VE, "gap_tol"),
    bad("solve_rcfl not a problem", lambda: solve_rcfl(None, 0.5), TE, "problem"),
    bad("solve_afl gap_tol inf", lambda: solve_afl(QUAD, gap_tol=float("inf")), VE, "gap_tol"),
    bad("solve_smoothed_rcfl mu 0", lambda: solve_smoothed_rcfl(QUAD, 0.5, 0.0), VE, "mu"),
    bad("solve_smoothed_rcfl mu bool", lambda: solve_smoothed_rcfl(QUAD, 0.5, True), TE, "mu"),
    bad("solve_smoothed_rcfl method", lambda: solve_smoothed_rcfl(QUAD, 0.5, 0.1, method="lbfgs"), TE, "method"),
    bad("smoothed_objective w nan", lambda: smoothed_objective(QUAD, [np.nan, 0], 0.0, 0.5, 0.1), NF, "w"),
    bad("smoothed_objective w bool", lambda: smoothed_objective(QUAD, [True, False], 0.0, 0.5, 0.1), TE, "w"),
    bad("smoothed_objective eta inf", lambda: smoothed_objective(QUAD, W2, float("inf"), 0.5, 0.1), VE, "eta"),
    bad("smoothed_objective eta string", lambda: smoothed_objective(QUAD, W2, "0", 0.5, 0.1), TE, "eta"),
    bad("maxmin_quadratic S not a set", lambda: maxmin_quadratic(QUAD, [1, 0, 0]), TE, "S"),
    bad("maxmin_quadratic S wrong n", lambda: maxmin_quadratic(QUAD, CappedSimplex.simplex(2)), VE, "S"),
    bad("maxmin_quadratic logistic", lambda: maxmin_quadratic(LOG, CappedSimplex.simplex(2)), TE, "problem"),
    bad("solve_qffl q -1", lambda: solve_qffl(QUAD, -1.0), VE, "q"),
    bad("solve_qffl q nan", lambda: solve_qffl(QUAD, float("nan")), VE, "q"),
    bad("solve_qffl q bool", lambda: solve_qffl(QUAD, True), TE, "q"),
    bad("solve_qffl q array", lambda: solve_qffl(QUAD, np.array([1.0, 2.0])), TE, "q"),
    bad("solve_qffl form", lambda: solve_qffl(QUAD, 1.0, form="sqrt"), VE, "form"),
    bad("solve_qffl not a problem", lambda: solve_qffl("P", 1.0), TE, "problem"),
    bad("solve_qffl solver not a string", lambda: solve_qffl(QUAD, 1.0, solver=3), TE, "solver"),
    bad("solve_qffl max_polish_d -1", lambda: solve_qffl(QUAD, 1.0, max_polish_d=-1), VE, "max_polish_d"),
    bad("solve_qffl grad_tol 0", lambda: solve_qffl(QUAD, 1.0, grad_tol=0.0), VE, "grad_tol"),
    bad("solve_qffl uncertified (grad_tol 1e-300)", lambda: solve_qffl(LOGI_EX, 1.0, grad_tol=1e-300), SE, "grad_tol"),
    bad("solve_qffl user settings max_iter 1", lambda: solve_qffl(QUAD, 2.0, max_iter=1), SE, "user_limit"),
    bad("newton_polish w nan", lambda: newton_polish(QUAD, [np.nan, 0.0], 1.0), NF, "w"),
    bad("newton_polish w bool", lambda: newton_polish(QUAD, [True, False], 1.0), TE, "w"),
    bad("newton_polish weights shape", lambda: newton_polish(QUAD, W2, 1.0, weights=[1.0]), VE, "weights"),
    bad("newton_polish weights nan", lambda: newton_polish(QUAD, W2, 1.0, weights=[np.nan, 0, 0]), NF, "weights"),
    bad("newton_polish q inf", lambda: newton_polish(QUAD, W2, float("inf")), VE, "q"),
    bad("solve_aggregator not a problem", lambda: solve_aggregator([1], AGG_SET), TE, "problem"),
    bad("solve_aggregator gap_tol string", lambda: solve_aggregator(SYM2, AGG_SET, gap_tol="x"), TE, "gap_tol"),
    bad("solve_aggregator expr not DCP", lambda: solve_aggregator(SYM2, AGG_SET, expr=lambda t: -t[0] * t[1]), TE,
        "expr"),
    bad("solve_aggregator expr wrong shape", lambda: solve_aggregator(SYM2, AGG_SET, expr=lambda t: t @ np.ones(5)),
        TE, "expr"),
    bad("solve_aggregator expr not cvxpy", lambda: solve_aggregator(SYM2, AGG_SET, expr=lambda t: "max"), TE, "expr"),
    bad("solve_integrated_minimax iset type", lambda: solve_integrated_minimax(QUAD, S3), TE, "iset"),
    bad("solve_integrated_minimax iset n", lambda: solve_integrated_minimax(SYM2, ISET), VE, "iset"),
    bad("solve_integrated_minimax logistic", lambda: solve_integrated_minimax(LOG, ISET), TE, "problem"),
    bad("solve_integrated_minimax tol 0", lambda: solve_integrated_minimax(QUAD, ISET, tol=0.0), VE, "tol"),
    bad("global_search_minimax rng None ok, starts 0", lambda: global_search_minimax(QUAD, ISET, starts=0), VE,
        "starts"),
    bad("index_curve phis nan", lambda: index_curve(QUAD, S3, S3, [0.0, np.nan]), NF, "phis"),
    bad("index_curve phis 1", lambda: index_curve(QUAD, S3, S3, [0.0, 1.0]), VE, "phis"),
    bad("select_phi phis bool", lambda: select_phi(QUAD, S3, S3, [True]), TE, "phis"),
    bad("select_phi phis empty", lambda: select_phi(QUAD, S3, S3, []), VE, "phis"),
    # capped LP twins on extreme scales (closed forms are the reference)
    ok("support_lp tiny losses 1e-12", lambda: capped.support_lp(CappedSimplex.cvar(3, 0.5), [1e-12, 3e-12, 2e-12]),
       lambda out: _rel(out.value, (3e-12 * 2 / 3 + 2e-12 * 1 / 3), 1e-9)),
    ok("support_lp huge losses 1e300", lambda: capped.support_lp(CappedSimplex.cvar(3, 0.5), [1e300, 3e300, 2e300]),
       lambda out: _rel(out.value, (3e300 * 2 / 3 + 2e300 * 1 / 3), 1e-9)),
    ok("support_lp int list", lambda: capped.support_lp(S3, [1, 3, 2]), lambda out: _rel(out.value, 3.0, 1e-12)),
    bad("support_lp simplex bool", lambda: capped.support_lp(S3, [True, False, True]), TE, "v"),
    ok("qalpha_dual_lp tiny", lambda: capped.qalpha_dual_lp([1e-11, 5e-11, 2e-11], [0.2, 0.3, 0.5], 0.5),
       lambda out: _rel(out.value, 0.6 * 5e-11 + 0.4 * 2e-11, 1e-9)),  # caps p/alpha = (.4, .6, 1)
]


CV = CappedSimplex.cvar(3, 0.5)  # caps 2/3: support = 2/3 v_(1) + 1/3 v_(2), lower = 2/3 v_(3) + 1/3 v_(2)
V3 = np.array([1.0, 3.0, 2.0])
IS3 = IntegratedSet(S3, CV, 0.3)  # support = (max v - 0.3 lower_CV(v)) / 0.7


def _cvar_support(v: Any) -> float:
    a = sorted(np.asarray(v, dtype=np.float64), reverse=True)
    return 2 / 3 * a[0] + 1 / 3 * a[1]


def _cvar_lower(v: Any) -> float:
    a = sorted(np.asarray(v, dtype=np.float64))
    return 2 / 3 * a[0] + 1 / 3 * a[1]


def _value(want: float, rtol: float = 1e-9) -> Callable[[Any], None]:
    return lambda out: _rel(out.value, want, rtol)


def _near_projection(exact: list[float]) -> Callable[[Any], None]:
    """Weights within the documented bound ``sqrt(2 gap)`` of the exact projection (1-strong convexity)."""

    def check(out: Any) -> None:
        gap = max(float(out.certificate["gap"]), 0.0)
        err = float(np.linalg.norm(out.weights - np.asarray(exact)))
        assert err <= np.sqrt(2.0 * gap) + 1e-9 and gap <= 1e-9, f"weights off by {err:.3g}, gap {gap:.3g}"

    return check


CAPPED_ROWS: list[Row] = []
for _k, _v in [("list", [1.0, 3.0, 2.0]), ("tuple", (1, 3, 2)), ("int array", np.array([1, 3, 2])),
               *([("torch", torch.tensor([1.0, 3.0, 2.0]))] if HAVE_TORCH else []),
               ("tiny 1e-300", V3 * 1e-300), ("tiny 1e-12", V3 * 1e-12),
               ("huge 1e300", V3 * 1e300), ("ties", np.array([2.0, 2.0, 2.0])),
               ("mixed signs 1e300", np.array([1e300, -1e300, 5e299]))]:
    CAPPED_ROWS += [
        ok(f"support_lp {_k}", lambda v=_v: capped.support_lp(CV, v), _value(_cvar_support(_v))),
        ok(f"lower_lp {_k}", lambda v=_v: capped.lower_lp(CV, v), _value(_cvar_lower(_v))),
        ok(f"argmax_lp {_k}", lambda v=_v: capped.argmax_lp(CV, v), _value(_cvar_support(_v))),
        ok(f"integrated_support_lp {_k}", lambda v=_v: capped.integrated_support_lp(IS3, v),
           _value((float(np.max(np.asarray(_v, dtype=np.float64))) - 0.3 * _cvar_lower(_v)) / 0.7)),
    ]
for _k, _v, _e, _a in [("bool", [True, False, True], TE, "v"), ("nan", [1.0, np.nan, 2.0], VE, "v"),
                       ("inf", [1.0, np.inf, 2.0], VE, "v"), ("2-D", [[1.0, 2.0, 3.0]], VE, "v"),
                       ("wrong length", [1.0, 2.0], VE, "v"), ("string", "abc", TE, "v"), ("empty", [], VE, "v")]:
    CAPPED_ROWS += [
        bad(f"support_lp {_k}", lambda v=_v: capped.support_lp(CV, v), _e, _a),
        bad(f"lower_lp {_k}", lambda v=_v: capped.lower_lp(CV, v), _e, _a),
        bad(f"project_qp {_k}", lambda v=_v: capped.project_qp(CV, v), _e, _a),
        bad(f"integrated_support_lp {_k}", lambda v=_v: capped.integrated_support_lp(IS3, v), _e, _a),
    ]
CAPPED_ROWS += [
    ok("project_qp inside the set", lambda: capped.project_qp(S3, [0.2, 0.3, 0.5]), _near_projection([0.2, 0.3, 0.5])),
    ok("project_qp int list", lambda: capped.project_qp(S3, [1, 0, 0]), _near_projection([1.0, 0.0, 0.0])),
    ok("project_qp tiny 1e-12", lambda: capped.project_qp(S3, [3e-12, 1e-12, 2e-12]),
       _near_projection([1 / 3 + 1e-12, 1 / 3 - 1e-12, 1 / 3])),
    ok("qalpha_sup_lp tiny 1e-12", lambda: capped.qalpha_sup_lp(V3 * 1e-12, [0.2, 0.3, 0.5], 0.5),
       _value((0.3 / 0.5 * 3 + 0.4 * 2) * 1e-12)),
    ok("qalpha_dual_lp huge 1e300", lambda: capped.qalpha_dual_lp(V3 * 1e300, [0.2, 0.3, 0.5], 0.5),
       _value((0.6 * 3 + 0.4 * 2) * 1e300)),
    bad("qalpha_sup_lp alpha bool", lambda: capped.qalpha_sup_lp(V3, [0.2, 0.3, 0.5], True), TE, "alpha"),
    bad("qalpha_sup_lp alpha string", lambda: capped.qalpha_sup_lp(V3, [0.2, 0.3, 0.5], "0.5"), TE, "alpha"),
    bad("qalpha_dual_lp p bool", lambda: capped.qalpha_dual_lp(V3, [True, False, False], 1.0), TE, "p"),
    bad("qalpha_dual_lp losses inf", lambda: capped.qalpha_dual_lp([np.inf, 1, 2], [0.2, 0.3, 0.5], 0.5), VE,
        "losses"),
    bad("solve_checked not a problem", lambda: solve_checked("x", "what", "CLARABEL"), TE, "problem"),
    bad("solve_checked solver int", lambda: solve_checked(_cp_problem(), "what", 3), TE, "solver"),
    bad("solve_checked infeasible", lambda: solve_checked(_cp_problem(infeasible=True), "toy LP", "CLARABEL"), SE,
        "infeasible"),
    ok("solve_checked optimal", lambda: solve_checked(_cp_problem(), "toy LP", "CLARABEL"),
       lambda out: _rel(out, 1.0, 1e-7)),
]

# ---- issue 18: project_qp at any scale (hand projections: entries 1e12 apart fill the caps in order)
C543 = CappedSimplex([0.5, 0.4, 0.3])
for _k, _S, _v, _exact in [
        ("simplex huge 1e300", S3, V3 * 1e300, [0.0, 1.0, 0.0]),
        ("simplex tiny 1e-300", S3, V3 * 1e-300, [1 / 3, 1 / 3, 1 / 3]),
        ("caps huge 1e300", C543, V3 * 1e300, [0.3, 0.4, 0.3]),
        ("caps large 1e12", C543, V3 * 1e12, [0.3, 0.4, 0.3]),
        ("caps mixed signs 1e308", C543, np.array([1e308, -1e308, 0.0]), [0.5, 0.2, 0.3]),
        ("simplex mixed signs 1.7e308", S3, np.array([1.7e308, -1.7e308, 1.6e308]), [1.0, 0.0, 0.0]),
        ("cvar huge ties 1e300", CV, np.array([1e300, 1e300, -1e300]), [0.5, 0.5, 0.0])]:
    CAPPED_ROWS.append(ok(f"project_qp {_k}", lambda S=_S, v=_v: capped.project_qp(S, v), _near_projection(_exact)))
CAPPED_ROWS += [
    ok("project_qp value beyond float64 is inf", lambda: capped.project_qp(S3, V3 * 1e300).value,
       lambda out: _is(out, math.inf)),
    ok("project_qp value at 1e-150 (squares underflow)", lambda: capped.project_qp(S3, V3 * 1e-150).value,
       lambda out: _rel(out, 0.5 * 3 * (1 / 3) ** 2, 1e-9)),  # lam = 1/3 each, v ~ 1e-150 negligible
]


def _cp_problem(infeasible: bool = False) -> Any:
    import cvxpy as cp

    x = cp.Variable()
    return cp.Problem(cp.Minimize(x), [x >= 1] + ([x <= 0] if infeasible else []))


def _audit_rows() -> list[Row]:
    from fairtheory import aggregators as agg
    from fairtheory.testing.audit import audit

    p = np.array([0.2, 0.3, 0.5])

    def statuses(out: Any) -> dict[str, str]:
        return {r.name: r.status for r in out.rows}

    return [
        bad("audit not an aggregator", lambda: audit([1, 2]), TE, "aggregator"),
        bad("audit max_examples 0", lambda: audit(agg.fedavg(p), max_examples=0), VE, "max_examples"),
        bad("audit seed -1", lambda: audit(agg.fedavg(p), seed=-1), VE, "seed"),
        bad("audit seed bool", lambda: audit(agg.fedavg(p), seed=True), TE, "seed"),
        bad("audit rtol nan", lambda: audit(agg.fedavg(p), rtol=float("nan")), VE, "rtol"),
        bad("audit min_loss > max_loss", lambda: audit(agg.fedavg(p), min_loss=5.0, max_loss=1.0), VE, "min_loss"),
        bad("audit unknown property", lambda: audit(agg.fedavg(p), properties=("nope",)), VE, "properties"),
        ok("audit fedavg: every required property holds", lambda: audit(agg.fedavg(p), max_examples=15),
           lambda out: _is(all(statuses(out)[k] in ("held", "not applicable") for k in
                               ("defined", "subgradient", "weights_nonnegative", "monotone", "convex")), True)),
        ok("audit value raising on part of the domain", lambda: audit(_Hostile("raise"), max_examples=15,
                                                                     properties=("defined", "subgradient")),
           lambda out: _is((out["defined"].status, out["subgradient"].status, float(out["defined"].counterexample["f"][0]) > 50),
                           ("violated", "violated", True))),
        ok("audit weights nan", lambda: audit(_Hostile("nan"), max_examples=15, properties=("defined",)),
           lambda out: _is("non-finite" in out["defined"].message, True)),
        ok("audit weights wrong shape", lambda: audit(_Hostile("shape"), max_examples=15, properties=("defined",)),
           lambda out: _is("shape" in out["defined"].message, True)),
        ok("audit value a string", lambda: audit(_Hostile("string"), max_examples=15, properties=("defined",)),
           lambda out: _is("not real numbers" in out["defined"].message, True)),
        ok("audit value complex", lambda: audit(_Hostile("complex"), max_examples=15, properties=("defined",)),
           lambda out: _is("not real numbers" in out["defined"].message, True)),
        ok("audit value an array", lambda: audit(_Hostile("array"), max_examples=15, properties=("defined",)),
           lambda out: _is("real scalar" in out["defined"].message, True)),
        bad("audit n a string", lambda: audit(_Hostile("raise", n="3")), TE, "aggregator.n"),
        bad("audit n 0", lambda: audit(_Hostile("raise", n=0)), VE, "aggregator.n"),
        bad("audit domain reversed", lambda: audit(_Hostile("raise", domain=(1.0, 0.0))), VE, "aggregator.domain"),
        bad("audit domain None", lambda: audit(_Hostile("raise", domain=None)), TE, "aggregator.domain"),
        bad("audit p wrong shape", lambda: audit(_Hostile("raise", p=np.ones(2) / 2)), VE, "aggregator.p"),
        ok("audit TERM over [0, 1e300]: overflow is no counterexample", lambda: audit(
            agg.TERM(p, 1.0), max_examples=15, max_loss=1e300, properties=("subgradient", "monotone", "convex",
                                                                            "separable_form")),
           lambda out: _is(set(statuses(out).values()), {"held"})),
    ]


class _Hostile:
    """A mean-of-losses aggregator over 3 clients that misbehaves as ``mode`` says (issue 18)."""

    def __init__(self, mode: str, **attrs: Any) -> None:
        self.mode, self.n = mode, 3
        for k, v in attrs.items():
            setattr(self, k, v)

    def value(self, f: Any) -> Any:
        if self.mode == "raise" and f[0] > 50:
            raise ZeroDivisionError("boom")
        return {"string": "abc", "complex": 1j, "array": np.ones(2)}.get(self.mode, float(np.mean(f)))

    def weights(self, f: Any) -> Any:
        return {"nan": np.array([np.nan, 0.0, 1.0]), "shape": np.ones(2)}.get(self.mode, np.full(3, 1 / 3))


def _fedfv_two(u0: np.ndarray, u1: np.ndarray) -> np.ndarray:
    """004 Alg. 2 + line 10 for two conflicting updates (client 1 has the larger loss, alpha = 0), by hand."""
    p0 = u0 - (u0 @ u1) / (u1 @ u1) * u1 if u0 @ u1 < 0 else u0
    p1 = u1 - (u1 @ u0) / (u0 @ u0) * u0 if u1 @ u0 < 0 else u1
    g = (p0 + p1) / 2
    return g / math.hypot(*g) * math.hypot(*((u0 + u1) / 2))


U2 = np.array([[1.0, 0.0], [-1.0, 1.0]])
FEDFV_ROWS: list[Row] = []
for _k, _s in [("", 1.0), (" huge 1e300", 1e300), (" tiny 1e-300", 1e-300)]:
    FEDFV_ROWS += [
        ok(f"fedfv aggregate{_k}", lambda s=_s: fedfv_aggregate.aggregate(U2 * s, [1.0, 2.0]),
           close(lambda s=_s: _fedfv_two(U2[0], U2[1]) * s, rtol=1e-12)),
        ok(f"fedfv internal_projection{_k}", lambda s=_s: fedfv_aggregate.internal_projection(U2 * s, [1.0, 2.0])[0],
           close(lambda s=_s: np.array([0.25, 0.75]) * s, rtol=1e-12)),
        ok(f"fedfv rescale{_k}", lambda s=_s: fedfv_aggregate.rescale(np.array([3.0, 4.0]) * s, U2 * s),
           close(lambda s=_s: np.array([0.6, 0.8]) * 0.5 * s, rtol=1e-12)),  # g/|g| * |mean U|, |mean U| = s/2
    ]
FEDFV_ROWS += [
    ok("fedfv aggregate lists and int losses", lambda: fedfv_aggregate.aggregate(U2.tolist(), [1, 2]),
       close(lambda: _fedfv_two(U2[0], U2[1]), rtol=1e-12)),
    ok("fedfv aggregate torch", lambda: fedfv_aggregate.aggregate(torch.tensor(U2), torch.tensor([1.0, 2.0])),
       close(lambda: _fedfv_two(U2[0], U2[1]), rtol=1e-12)),
    ok("fedfv aggregate orthogonal (no conflict) = mean", lambda: fedfv_aggregate.aggregate(np.eye(2), [2.0, 1.0]),
       close(lambda: [0.5, 0.5], rtol=1e-14)),
    bad("fedfv aggregate U bool", lambda: fedfv_aggregate.aggregate(U2 > 0, [1.0, 2.0]), TE, "U"),
    bad("fedfv aggregate U nan", lambda: fedfv_aggregate.aggregate([[np.nan, 0.0], [0.0, 1.0]], [1.0, 2.0]), NF, "U"),
    bad("fedfv aggregate U string", lambda: fedfv_aggregate.aggregate("U", [1.0, 2.0]), TE, "U"),
    bad("fedfv aggregate U 1-D", lambda: fedfv_aggregate.aggregate(np.ones(2), [1.0, 2.0]), VE, "U"),
    bad("fedfv aggregate losses bool", lambda: fedfv_aggregate.aggregate(U2, [True, False]), TE, "losses"),
    bad("fedfv aggregate losses inf", lambda: fedfv_aggregate.aggregate(U2, [np.inf, 1.0]), NF, "losses"),
    bad("fedfv aggregate losses shape", lambda: fedfv_aggregate.aggregate(U2, [1.0]), VE, "losses"),
    bad("fedfv aggregate alpha 2", lambda: fedfv_aggregate.aggregate(U2, [1.0, 2.0], alpha=2.0), VE, "alpha"),
    bad("fedfv projection_order nan", lambda: fedfv_aggregate.projection_order([1.0, np.nan]), NF, "losses"),
    bad("fedfv projection_order bool", lambda: fedfv_aggregate.projection_order([True, False]), TE, "losses"),
    bad("fedfv projection_order random without rng", lambda: fedfv_aggregate.projection_order([1.0, 2.0], "random"),
        VE, "rng"),
    bad("fedfv rescale g nan", lambda: fedfv_aggregate.rescale([np.nan, 1.0], U2), NF, "g"),
    bad("fedfv n_unprojected m 0", lambda: fedfv_aggregate.n_unprojected(0, 0.5), VE, "m"),
    bad("qfedsgd.estimate_L not a problem", lambda: qfedsgd.estimate_L("P"), TE, "problem"),
    bad("qfedsgd.estimate_L grid bool", lambda: qfedsgd.estimate_L(QUAD6, method="grid", grid=[True]), TE, "grid"),
    bad("qfedsgd.estimate_L grid string", lambda: qfedsgd.estimate_L(QUAD6, method="grid", grid="abc"), TE, "grid"),
    bad("qfedsgd.aggregate L nan", lambda: qfedsgd.aggregate(np.zeros(2), np.ones((3, 2)), c=np.ones(3), d=np.ones(3),
                                                             e=None, L=float("nan")), VE, "L"),
    ok("qfedsgd.aggregate value", lambda: qfedsgd.aggregate(np.zeros(2), np.array([[1.0, 0.0], [0.0, 2.0]]),
                                                            c=[0.5, 0.5], d=[1.0, 3.0], e=None, L=2.0),
       close(lambda: -np.array([0.5, 3.0]) / (2.0 * (0.5 + 1.5)))),
]


def _rel(got: float, want: float, rtol: float) -> None:
    assert np.isfinite(got) and abs(got - want) <= rtol * abs(want), f"got {got!r}, expected {want!r}"


# ============================================================================ algorithms
#: (name, module, problem, hyper-parameters, (step size, diverging value), (integer hyper, name), bad hyper)
ALGS: list[tuple[str, Any, Any, dict[str, Any], tuple[str, float] | None, str | None, tuple[str, Any]]] = [
    ("fedavg", fedavg, QUAD6, {"lr": 0.1, "kappa": 2, "K": 4}, ("lr", 1e6), "kappa", ("lr", -0.1)),
    ("fedprox", fedprox, QUAD6, {"lr": 0.1, "kappa": 2, "K": 4, "prox_mu": 0.1}, ("lr", 1e6), "kappa", ("prox_mu", -0.1)),
    ("rfedfair", rfedfair, LOGI6, {"lr": 0.05, "kappa": 2, "alpha": 0.5, "mu": 0.1, "K": 3}, None, "kappa",
     ("alpha", 2.0)),
    ("rfedfair-quad", rfedfair, QUAD6, {"lr": 0.05, "kappa": 2, "alpha": 0.5, "mu": 0.1}, ("lr", 1e6), "kappa",
     ("mu", 0.0)),
    ("qfedsgd", qfedsgd, QUAD6, {"q": 0.0, "L": 4.0, "K": 3}, ("L", 1e-12), "K", ("L", 0.0)),
    ("qfedavg", qfedavg, QUAD6, {"q": 0.0, "lr": 0.1, "kappa": 2, "K": 3}, ("lr", 1e8), "kappa", ("q", -1.0)),
    ("afl", afl, QUAD6, {"lr": 0.05, "dual_lr": 0.05, "K": 3}, ("lr", 1e6), "K", ("lr", 0.0)),
    ("drfa", drfa, QUAD6, {"kappa": 2, "lr": 0.05, "dual_lr": 0.05, "K": 3}, ("lr", 1e6), "kappa", ("dual_lr", -1.0)),
    ("scaffold", scaffold, QUAD6, {"kappa": 2, "lr": 0.05, "K": 3}, ("lr", 1e6), "kappa", ("server_lr", 0.0)),
    ("scaffpd", scaffpd, QUAD6, {"kappa": 2, "lr": 0.05, "dual_lr": 0.05}, ("lr", 1e6), "kappa", ("dual_lr", -1.0)),
    ("fedfv", fedfv, LOGI6, {"lr": 0.1, "kappa": 2, "K": 4, "alpha": 0.2, "tau": 1}, ("lr", 1e12), "kappa",
     ("alpha", 2.0)),
    ("fedmgda", fedmgda, QUAD6, {"lr": 0.1, "kappa": 2, "K": 4, "epsilon": 0.1}, None, "kappa", ("lr", 0.0)),
]


def _no_warnings_run(alg: Any, rounds: int, **kw: Any) -> Any:
    return run(alg, rounds, rng=np.random.default_rng(0), record_losses=False, **kw)


def _w_of(state: Any) -> Any:
    return state.w


def _same_dtype(dtype: Any, values: np.ndarray) -> Callable[[Any], None]:
    def check(w: Any) -> None:
        assert w.dtype == dtype, f"dtype {w.dtype}, expected {dtype}"
        if isinstance(w, torch.Tensor):
            assert not w.requires_grad, "an algorithm's iterate must not carry an autograd graph"
        assert np.array_equal(np.asarray(_np(w), dtype=np.float64), values.astype(np.float64))

    return check


def _diverged(out: Any) -> None:
    state, hist = out
    assert hist.diverged and np.all(np.isfinite(np.asarray(_np(state.w))))


def _same_run(mod: Any, P: Any, hyper: dict[str, Any], w0: Any) -> Callable[[Any], None]:
    """The run from ``w0`` (list / int) equals the run from ``np.asarray(w0, float64)``."""

    def check(out: Any) -> None:
        ref, _ = run(mod.make(P, **hyper), 3, rng=np.random.default_rng(7), w0=np.asarray(w0, dtype=np.float64))
        assert np.array_equal(np.asarray(out[0].w), np.asarray(ref.w))

    return check


ALG_ROWS: list[Row] = []
for name, mod, P, hyper, div, int_hyper, badh in ALGS:
    d = P.d
    alg = mod.make(P, **hyper)
    other = fedavg.make(P, lr=0.1) if mod is not fedavg else afl.make(P, lr=0.1, dual_lr=0.1)
    w_int = np.arange(d) - 1
    rows = [
        bad(f"{name} make problem string", lambda mod=mod, hyper=hyper: mod.make("P", **hyper), TE, "problem"),
        bad(f"{name} make {badh[0]}={badh[1]}", lambda mod=mod, P=P, hyper=hyper, b=badh: mod.make(
            P, **{**hyper, b[0]: b[1]}), VE, badh[0]),
        bad(f"{name} make {badh[0]}=nan", lambda mod=mod, P=P, hyper=hyper, b=badh: mod.make(
            P, **{**hyper, b[0]: float("nan")}), VE, badh[0]),
        bad(f"{name} make {badh[0]}=string", lambda mod=mod, P=P, hyper=hyper, b=badh: mod.make(
            P, **{**hyper, b[0]: "0.1"}), TE, badh[0]),
        ok(f"{name} init list", lambda alg=alg, w=w_int: _w_of(alg.init(w.tolist())),
           _same_dtype(np.float64, w_int)),
        ok(f"{name} init int", lambda alg=alg, w=w_int: _w_of(alg.init(w)), _same_dtype(np.float64, w_int)),
        ok(f"{name} init float32", lambda alg=alg, w=w_int: _w_of(alg.init(w.astype(np.float32))),
           _same_dtype(np.float32, w_int)),
        ok(f"{name} init torch int", lambda alg=alg, w=w_int: _w_of(alg.init(torch.tensor(w))),
           _same_dtype(torch.float64, w_int)),
        ok(f"{name} init torch requires_grad", lambda alg=alg, w=w_int: _w_of(alg.init(
            torch.tensor(w, dtype=torch.float64, requires_grad=True))), _same_dtype(torch.float64, w_int)),
        bad(f"{name} init bool", lambda alg=alg, d=d: alg.init(np.ones(d, dtype=bool)), TE, "w0"),
        bad(f"{name} init torch bool", lambda alg=alg, d=d: alg.init(torch.ones(d, dtype=torch.bool)), TE, "w0"),
        bad(f"{name} init nan", lambda alg=alg, d=d: alg.init(np.full(d, np.nan)), VE, "w0"),
        bad(f"{name} init inf", lambda alg=alg, d=d: alg.init([np.inf] * d), VE, "w0"),
        bad(f"{name} init 2-D", lambda alg=alg, d=d: alg.init(np.zeros((1, d))), VE, "w0"),
        bad(f"{name} init wrong length", lambda alg=alg, d=d: alg.init(np.zeros(d + 1)), VE, "w0"),
        bad(f"{name} init string", lambda alg=alg: alg.init("abc"), TE, "w0"),
        bad(f"{name} step foreign state", lambda alg=alg, other=other: alg.step(other.init(), np.random.default_rng(0)),
            TE, "State"),
        bad(f"{name} step no state", lambda alg=alg: alg.step(None, np.random.default_rng(0)), TE, "State"),
        bad(f"{name} run rounds -1", lambda alg=alg: run(alg, -1, rng=np.random.default_rng(0)), VE, "rounds"),
        bad(f"{name} run rounds float", lambda alg=alg: run(alg, 2.0, rng=np.random.default_rng(0)), TE, "rounds"),
        bad(f"{name} run rng int", lambda alg=alg: run(alg, 2, rng=3), TE, "rng"),
        bad(f"{name} run on_divergence", lambda alg=alg: run(alg, 2, rng=np.random.default_rng(0), on_divergence="go"),
            VE, "on_divergence"),
        ok(f"{name} run from list = run from float64", lambda mod=mod, P=P, hyper=hyper, w=w_int: run(
            mod.make(P, **hyper), 3, rng=np.random.default_rng(7), w0=w.tolist()), _same_run(mod, P, hyper, w_int)),
    ]
    if int_hyper is not None:
        rows.append(bad(f"{name} make {int_hyper}=True", lambda mod=mod, P=P, hyper=hyper, k=int_hyper: mod.make(
            P, **{**hyper, k: True}), TE, int_hyper))
        rows.append(bad(f"{name} make {int_hyper}=2.5", lambda mod=mod, P=P, hyper=hyper, k=int_hyper: mod.make(
            P, **{**hyper, k: 2.5}), TE, int_hyper))
    if hyper.get("K") is not None:
        rows.append(bad(f"{name} step rng None with K", lambda alg=alg: alg.step(alg.init(), None), TE, "rng"))
    if div is not None:
        key, val = div
        rows.append(bad(f"{name} run diverges ({key}={val:g})", lambda mod=mod, P=P, hyper=hyper, k=key, v=val:
                        _no_warnings_run(mod.make(P, **{**hyper, k: v}), 300), DE, key))
        rows.append(ok(f"{name} run diverges, on_divergence=stop", lambda mod=mod, P=P, hyper=hyper, k=key, v=val:
                       _no_warnings_run(mod.make(P, **{**hyper, k: v}), 300, on_divergence="stop"), _diverged))
    ALG_ROWS += rows


def _fedavg_one_step(P: QuadraticProblem, w: np.ndarray, lr: float) -> np.ndarray:
    G = np.array([P.H[i] @ (w - P.c[i]) for i in range(P.n)])
    return w - lr * (P.p @ G)


def _rfedfair_one_step(P: Any, w: np.ndarray, beta: float, alpha: float, mu: float) -> np.ndarray:
    f = quad_losses(P.H, P.c, P.e, w)
    s = sigmoid(f / mu) / alpha  # eta = 0
    G = np.array([P.H[i] @ (w - P.c[i]) for i in range(P.n)])
    return P.p @ (w[None, :] - beta * s[:, None] * G)


ALG_ROWS += [
    ok("fedavg one step (kappa=1) = gradient step", lambda: fedavg.make(QUAD6, lr=0.1).step(
        fedavg.make(QUAD6, lr=0.1).init([1, 0, -1]), None).w,
       close(lambda: _fedavg_one_step(QUAD6, np.array([1.0, 0.0, -1.0]), 0.1))),
    ok("rfedfair one step from an int w0", lambda: (lambda a: a.step(a.init(np.array([1, 0, -1])), None).w)(
        rfedfair.make(QUAD6, lr=0.1, kappa=1, alpha=0.5, mu=0.2)),
       close(lambda: _rfedfair_one_step(QUAD6, np.array([1.0, 0.0, -1.0]), 0.1, 0.5, 0.2))),
    ok("rfedfair.init int w0 stays float64", lambda: rfedfair.make(QUAD6, lr=0.1, kappa=1, alpha=0.5, mu=0.2)
       .init(np.array([1, 2, 3])).W, _same_dtype(np.float64, np.tile([1, 2, 3], (6, 1)))),
    ok("run_rfedfair int w0 = float w0", lambda: rfedfair.run_rfedfair(
        QUAD6, T=8, lr=0.1, kappa=2, alpha=0.5, mu=0.2, w0=np.array([1, 0, -1])).w,
       close(lambda: rfedfair.run_rfedfair(QUAD6, T=8, lr=0.1, kappa=2, alpha=0.5, mu=0.2,
                                            w0=np.array([1.0, 0.0, -1.0])).w, rtol=0.0)),
    bad("run_rfedfair lr=1e6 diverges", lambda: rfedfair.run_rfedfair(
        QUAD6, T=302, lr=1e6, kappa=2, alpha=0.5, mu=0.1), DE, "lr="),
    ok("run_rfedfair lr=1e6 on_divergence=stop", lambda: rfedfair.run_rfedfair(
        QUAD6, T=302, lr=1e6, kappa=2, alpha=0.5, mu=0.1, on_divergence="stop").history.diverged,
       lambda out: _is(out, True)),
    bad("run_rfedfair lr=1e300 diverges", lambda: rfedfair.run_rfedfair(
        QUAD6, T=302, lr=1e300, kappa=2, alpha=0.5, mu=0.1), DE, "lr="),
    ok("run_rfedfair lr=1e300 stop: the output of the finite prefix", lambda: rfedfair.run_rfedfair(
        QUAD6, T=302, lr=1e300, kappa=2, alpha=0.5, mu=0.1, on_divergence="stop").history.diverged,
       lambda out: _is(out, True)),
    bad("run_rfedfair w0 bool", lambda: rfedfair.run_rfedfair(QUAD6, T=4, lr=0.1, kappa=2, alpha=0.5, mu=0.1,
                                                              w0=[True, False, True]), TE, "w0"),
    bad("run_rfedfair eta0 nan", lambda: rfedfair.run_rfedfair(QUAD6, T=4, lr=0.1, kappa=2, alpha=0.5, mu=0.1,
                                                               eta0=float("nan")), VE, "eta0"),
    bad("run_rfedfair T 3 kappa 2 (002)", lambda: rfedfair.run_rfedfair(QUAD6, T=3, lr=0.1, kappa=2, alpha=0.5,
                                                                        mu=0.1), VE, "kappa"),
    bad("run_rfedfair output", lambda: rfedfair.run_rfedfair(QUAD6, T=4, lr=0.1, kappa=2, alpha=0.5,
                                                             mu=0.1, output="001"), VE,
        "output"),
    bad("run_rfedfair K without rng", lambda: rfedfair.run_rfedfair(QUAD6, T=4, lr=0.1, kappa=2, alpha=0.5, mu=0.1,
                                                                    K=2), TE, "rng"),
    bad("run_rfedfair checkpoints > T", lambda: rfedfair.run_rfedfair(QUAD6, T=4, lr=0.1, kappa=2, alpha=0.5,
                                                                      mu=0.1, checkpoints=[9]), VE, "checkpoints"),
    bad("run_rfedfair alpha and aggregator", lambda: rfedfair.run_rfedfair(
        QUAD6, T=4, lr=0.1, kappa=2, alpha=0.5, mu=0.1, aggregator=CappedSimplex.simplex(6)), VE, "aggregator"),
    bad("rfedfair.output foreign state", lambda: rfedfair.output(fedavg.make(QUAD6, lr=0.1).init()), TE, "state"),
    bad("afl init lam0 bool", lambda: afl.make(QUAD6, lr=0.1, dual_lr=0.1).init(None, [True] + [False] * 5), TE,
        "lam0"),
    bad("afl init lam0 nan", lambda: afl.make(QUAD6, lr=0.1, dual_lr=0.1).init(None, [np.nan] * 6), VE, "lam0"),
    bad("drfa init lam0 outside", lambda: drfa.make(QUAD6, kappa=2, lr=0.1, dual_lr=0.1, K=2).init(None, [1.0] * 6),
        VE, "lam0"),
    bad("scaffpd init a0 string", lambda: scaffpd.make(QUAD6, kappa=2, lr=0.1, dual_lr=0.1).init(None, "a"), TE,
        "a0"),
]


# ============================================================================ figures CLI
def _cli(args: list[str]) -> int:
    from figures.runner import main

    return main(args)


def _figure_mode(tmp: Any) -> Callable[[], Any]:
    def call() -> int:
        old = os.umask(0o022)
        try:
            code = _cli(["--out", str(tmp), "--only", "relfair_prop9"])
        finally:
            os.umask(old)
        return code, stat.S_IMODE((tmp / "relfair_prop9.png").stat().st_mode)

    return call


def _cli_rows(tmp: Any) -> list[Row]:
    a_file = tmp / "a_file"
    a_file.write_text("x")
    ro = tmp / "readonly"
    ro.mkdir()
    ro.chmod(0o500)
    return [
        bad("figures --out ''", lambda: _cli_raise(["--out", "", "--only", "relfair_prop9"]), VE, "--out"),
        bad("figures --out a file", lambda: _cli_raise(["--out", str(a_file), "--only", "relfair_prop9"]), VE, "--out"),
        bad("figures --out under a file", lambda: _cli_raise(["--out", str(a_file / "x"), "--only", "relfair_prop9"]),
            VE, "--out"),
        bad("figures --out read-only", lambda: _cli_raise(["--out", str(ro / "sub"), "--only", "relfair_prop9"]),
            VE, "--out"),
        bad("figures unknown option", lambda: _cli_raise(["--seed", "1"]), VE, "--seed"),
        bad("figures --only no match", lambda: _cli_raise(["--out", str(tmp), "--only", "nope*"]), VE, "nope"),
        ok("figures --list", lambda: _cli(["--list", "--only", "relfair_*"]), lambda out: _is(out, 0)),
        ok("figures file mode follows the umask", _figure_mode(tmp / "out"), lambda out: _is(out, (0, 0o644))),
    ]


class _Usage(FairtheoryValueError):
    pass


def _cli_raise(args: list[str]) -> None:
    """Run the CLI capturing stderr: exit 2 with one line naming the problem -> _Usage(that line)."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = _cli(args)
    lines = err.getvalue().strip().splitlines()
    assert code == 2, f"exit status {code}"
    assert len(lines) == 1, f"expected one line, got {lines}"
    raise _Usage(lines[0])


CLI_IDS = ["figures --out ''", "figures --out a file", "figures --out under a file", "figures --out read-only",
           "figures unknown option", "figures --only no match", "figures --list",
           "figures file mode follows the umask"]

ROWS = PROBLEM_ROWS + EXACT_ROWS + ROUND2_ROWS + CAPPED_ROWS + _audit_rows() + ALG_ROWS + FEDFV_ROWS


# ============================================================================ the tests
def _run_row(row: Row) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if row.err is None:
            out = row.call()
            assert row.check is not None
            row.check(out)
        else:
            with pytest.raises(FairtheoryError) as info:
                out = row.call()
                pytest.fail(f"no error raised; returned {out!r}"[:300])
            assert isinstance(info.value, row.err), \
                f"expected {row.err.__name__}, got {type(info.value).__name__}: {info.value}"
            assert row.arg in str(info.value), f"message does not name {row.arg!r}: {info.value}"
    loud = [f"{w.category.__name__}: {w.message}" for w in caught
            if issubclass(w.category, (RuntimeWarning, UserWarning, DeprecationWarning))]
    assert not loud, f"warnings emitted: {loud}"


def needs_torch(row_id: str) -> bool:
    """A row that calls torch (its id says so)."""
    return "torch" in row_id.lower()


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fuzz(row: Row) -> None:
    if needs_torch(row.id) and not HAVE_TORCH:
        pytest.skip("needs torch (the optional backend is not installed)")
    _run_row(row)


@pytest.mark.slow
def test_numpy_rows_run_without_torch() -> None:
    """With torch made unimportable, the module still collects and every numpy row passes; only the torch rows
    skip (issue 28: the whole module used to skip)."""
    code = ("import sys, importlib.abc\n"
            "class NoTorch(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path, target=None):\n"
            "        if name == 'torch' or name.startswith('torch.'):\n"
            "            raise ImportError('torch is not installed (blocked by the test)')\n"
            "sys.meta_path.insert(0, NoTorch())\n"
            "import pytest\n"
            "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', __file__ + '::test_fuzz']))")
    out = subprocess.run([sys.executable, "-c", code.replace("__file__", repr(__file__))], capture_output=True,
                         text=True, timeout=900, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    tail = out.stdout.strip().splitlines()[-1]
    passed = int(tail.split(" passed")[0].split()[-1])
    skipped = int(tail.split(" skipped")[0].split()[-1])
    assert passed == sum(not needs_torch(r.id) for r in ROWS) and skipped >= 1, tail


@pytest.mark.parametrize("idx", range(len(CLI_IDS)), ids=CLI_IDS)
def test_fuzz_figures_cli(idx: int, tmp_path: Any) -> None:
    rows = _cli_rows(tmp_path)
    assert [r.id for r in rows] == CLI_IDS
    if rows[idx].id == "figures --out read-only" and os.geteuid() == 0:
        (tmp_path / "readonly").chmod(0o700)
        pytest.skip("root may write into a read-only directory")
    try:
        _run_row(rows[idx])
    finally:
        (tmp_path / "readonly").chmod(0o700)


def test_table_size() -> None:
    assert len(ROWS) + len(CLI_IDS) >= 300
    assert len({r.id for r in ROWS}) == len(ROWS), "row ids must be unique"
