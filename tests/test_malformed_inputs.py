"""Malformed inputs raise FairtheoryValueError / FairtheoryTypeError naming the argument.

Never an IndexError deep inside, never a NaN out: every row states the call, the expected error type
and the argument name that must appear in the message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.exact import (
    integrated_support_lp,
    lower_lp,
    project_qp,
    qalpha_dual_lp,
    qalpha_sup_lp,
    support_lp,
)
from fairtheory.sets import CappedSimplex, IntegratedSet

VE, TE = FairtheoryValueError, FairtheoryTypeError
S3 = CappedSimplex.simplex(3)
C3 = CappedSimplex.cvar(3, 0.5)
P3 = np.array([0.2, 0.3, 0.5])
F3 = np.array([1.0, 2.0, 3.0])
NAN3 = np.array([1.0, np.nan, 3.0])
INF3 = np.array([1.0, np.inf, 3.0])

Case = tuple[str, Callable[[], Any], type, str]

SETS: list[Case] = [
    ("caps negative", lambda: CappedSimplex([0.5, -0.1, 0.6]), VE, "caps"),
    ("caps sum < 1", lambda: CappedSimplex([0.2, 0.3]), VE, "caps"),
    ("caps empty", lambda: CappedSimplex([]), VE, "caps"),
    ("caps NaN", lambda: CappedSimplex([0.5, np.nan, 0.6]), VE, "caps"),
    ("caps inf", lambda: CappedSimplex([0.5, np.inf]), VE, "caps"),
    ("caps string", lambda: CappedSimplex("abc"), TE, "caps"),
    ("caps None", lambda: CappedSimplex(None), TE, "caps"),
    ("caps 2-D", lambda: CappedSimplex(np.ones((2, 2))), VE, "caps"),
    ("caps objects", lambda: CappedSimplex([{"a": 1}, 2]), TE, "caps"),
    ("simplex n = 0", lambda: CappedSimplex.simplex(0), VE, "n"),
    ("simplex n float", lambda: CappedSimplex.simplex(3.0), TE, "n"),
    ("simplex n string", lambda: CappedSimplex.simplex("3"), TE, "n"),
    ("cvar a = 0", lambda: CappedSimplex.cvar(4, 0.0), VE, "a"),
    ("cvar a > 1", lambda: CappedSimplex.cvar(4, 1.5), VE, "a"),
    ("cvar a NaN", lambda: CappedSimplex.cvar(4, float("nan")), VE, "a"),
    ("cvar a None", lambda: CappedSimplex.cvar(4, None), TE, "a"),
    ("qalpha p not summing to 1", lambda: CappedSimplex.qalpha([0.2, 0.2], 0.5), VE, "p"),
    ("qalpha alpha < p", lambda: CappedSimplex.qalpha(P3, 0.3), VE, "alpha"),
    ("qalpha alpha > 1", lambda: CappedSimplex.qalpha(P3, 1.5), VE, "alpha"),
    ("qalpha alpha shape", lambda: CappedSimplex.qalpha(P3, [0.5, 0.5]), VE, "alpha"),
    ("qalpha alpha string", lambda: CappedSimplex.qalpha(P3, "x"), TE, "alpha"),
    ("singleton p negative", lambda: CappedSimplex.singleton([1.2, -0.2]), VE, "p"),
    ("support wrong shape", lambda: S3.support([1.0, 2.0]), VE, "v"),
    ("support 2-D", lambda: S3.support(np.ones((3, 1))), VE, "v"),
    ("support NaN", lambda: S3.support(NAN3), VE, "v"),
    ("support inf", lambda: C3.support(INF3), VE, "v"),
    ("support empty", lambda: S3.support([]), VE, "v"),
    ("support string", lambda: S3.support("abc"), TE, "v"),
    ("support None", lambda: S3.support(None), TE, "v"),
    ("lower NaN", lambda: C3.lower(NAN3), VE, "v"),
    ("argmax wrong shape", lambda: C3.argmax([1.0]), VE, "v"),
    ("threshold NaN", lambda: C3.threshold(NAN3), VE, "v"),
    ("project wrong shape", lambda: S3.project([1.0, 2.0, 3.0, 4.0]), VE, "v"),
    ("project NaN", lambda: S3.project(NAN3), VE, "v"),
    ("project -inf", lambda: S3.project(-INF3), VE, "v"),
    ("contains wrong shape", lambda: S3.contains([1.0]), VE, "lam"),
    ("contains negative tol", lambda: S3.contains([1.0, 0, 0], tol=-1.0), VE, "tol"),
    ("vertices max_n", lambda: CappedSimplex.simplex(12).vertices(max_n=10), VE, "max_n"),
    ("integrated phi = 1", lambda: IntegratedSet(S3, C3, 1.0), VE, "phi"),
    ("integrated phi < 0", lambda: IntegratedSet(S3, C3, -0.1), VE, "phi"),
    ("integrated phi NaN", lambda: IntegratedSet(S3, C3, float("nan")), VE, "phi"),
    ("integrated phi string", lambda: IntegratedSet(S3, C3, "0.5"), TE, "phi"),
    ("integrated A not a set", lambda: IntegratedSet([1, 0, 0], C3, 0.5), TE, "A"),
    ("integrated B not a set", lambda: IntegratedSet(S3, None, 0.5), TE, "B"),
    ("integrated n mismatch", lambda: IntegratedSet(S3, CappedSimplex.simplex(4), 0.5), VE, "A and B"),
    ("integrated support NaN", lambda: IntegratedSet(S3, C3, 0.5).support(NAN3), VE, "v"),
    ("integrated contains shape", lambda: IntegratedSet(S3, C3, 0.5).contains([1.0]), VE, "lam"),
]

EXACT: list[Case] = [
    ("support_lp not a set", lambda: support_lp([1, 1, 1], F3), TE, "S"),
    ("support_lp wrong shape", lambda: support_lp(S3, [1.0, 2.0]), VE, "v"),
    ("support_lp NaN", lambda: support_lp(S3, NAN3), VE, "v"),
    ("lower_lp inf", lambda: lower_lp(S3, INF3), VE, "v"),
    ("project_qp string", lambda: project_qp(S3, "abc"), TE, "v"),
    ("qalpha_sup_lp alpha < p", lambda: qalpha_sup_lp(F3, P3, 0.1), VE, "alpha"),
    ("qalpha_sup_lp shape mismatch", lambda: qalpha_sup_lp([1.0, 2.0], P3, 0.5), VE, "losses"),
    ("qalpha_sup_lp p sum", lambda: qalpha_sup_lp(F3, [0.3, 0.3, 0.3], 0.5), VE, "p"),
    ("qalpha_dual_lp NaN losses", lambda: qalpha_dual_lp(NAN3, P3, 0.5), VE, "losses"),
    ("integrated_support_lp not a set", lambda: integrated_support_lp(S3, F3), TE, "I"),
    (
        "integrated_support_lp shape",
        lambda: integrated_support_lp(IntegratedSet(S3, C3, 0.2), [1.0]),
        VE,
        "v",
    ),
]


def _qalpha_cases() -> list[Case]:
    import fairtheory.objectives.qalpha as qa  # the project's own module: an import error must fail, not skip
    return [
        ("qalpha_loss alpha < p", lambda: qa.qalpha_loss(F3, P3, 0.1), VE, "alpha"),
        ("qalpha_loss alpha > 1", lambda: qa.qalpha_loss(F3, P3, 1.2), VE, "alpha"),
        ("qalpha_loss p sum", lambda: qa.qalpha_loss(F3, [0.5, 0.5, 0.5], 0.6), VE, "p"),
        ("qalpha_loss shape", lambda: qa.qalpha_loss([1.0, 2.0], P3, 0.6), VE, "losses"),
        ("qalpha_loss NaN", lambda: qa.qalpha_loss(NAN3, P3, 0.6), VE, "losses"),
        ("qalpha_dual alpha vector shape", lambda: qa.qalpha_dual(F3, P3, [0.6, 0.7]), VE, "alpha"),
        ("tau_alpha alpha zero", lambda: qa.tau_alpha(P3, 0.0), VE, "alpha"),
        ("hcvar bad reading", lambda: qa.hcvar(F3, P3, 0.6, reading="xyz"), VE, "reading"),
        ("deviation bad version", lambda: qa.deviation(F3, P3, 0.6, version="001"), VE, "version"),
        ("F_alpha eta NaN", lambda: qa.F_alpha(F3, float("nan"), P3, 0.6), VE, "eta"),
        ("F_mu mu = 0", lambda: qa.F_mu(F3, 0.0, P3, 0.6, 0.0), VE, "mu"),
        ("F_mu mu < 0", lambda: qa.F_mu(F3, 0.0, P3, 0.6, -1.0), VE, "mu"),
        ("F_mu_grad eta string", lambda: qa.F_mu_grad(F3, "x", P3, 0.6, 0.1), TE, "eta"),
        ("softplus mu = 0", lambda: qa.softplus(np.array([1.0]), 0.0), VE, "mu"),
        ("client_weights_mu mu inf", lambda: qa.client_weights_mu(F3, 0.0, 0.6, float("inf")), VE, "mu"),
    ]


def _ids(cases: list[Case]) -> list[str]:
    return [c[0] for c in cases]


def _check(call: Callable[[], Any], err: type, arg: str) -> None:
    with pytest.raises((FairtheoryValueError, FairtheoryTypeError)) as info:
        out = call()
        pytest.fail(f"no error raised; returned {out!r}")  # pragma: no cover
    assert isinstance(info.value, err), (
        f"expected {err.__name__}, got {type(info.value).__name__}: {info.value}"
    )
    assert arg in str(info.value), f"message does not name {arg!r}: {info.value}"


@pytest.mark.parametrize("name,call,err,arg", SETS, ids=_ids(SETS))
def test_sets_malformed(name: str, call: Callable[[], Any], err: type, arg: str) -> None:
    _check(call, err, arg)


@pytest.mark.parametrize("name,call,err,arg", EXACT, ids=_ids(EXACT))
def test_exact_malformed(name: str, call: Callable[[], Any], err: type, arg: str) -> None:
    _check(call, err, arg)


@pytest.mark.parametrize("idx", range(15))
def test_qalpha_malformed(idx: int) -> None:
    name, call, err, arg = _qalpha_cases()[idx]
    _check(call, err, arg)


def test_table_size() -> None:
    assert len(SETS) + len(EXACT) + 15 >= 25
