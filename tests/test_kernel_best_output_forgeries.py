"""Forgeries of a ``best``-output certificate (the minimum over candidate points, 002-style subgradient runs on
convex Lipschitz functions): each edit below makes the statement false or unproved by the multipliers given, and the
kernel must refuse it.  The genuine certificate is Drori-Teboulle's tight ``M R / sqrt(N + 1) = 1/2`` for three
subgradient steps of ``lr = 1/2`` (``M = R = 1``)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from fairtheory.algorithms import fedavg
from fairtheory.worstcase import worst_case
from fairtheory.worstcase.classes import ConvexLipschitz
from fairtheory_kernel.check import check_inline, check_proof, implies, statement_of


@pytest.fixture(scope="module")
def cert() -> dict[str, Any]:
    wc = worst_case(fedavg.make, 3, n=1, D0=1, rho2=0, function_class=ConvexLipschitz(1), lr=0.5, output="best",
                    certificate=True)
    return wc.certificate.to_json()


def test_the_genuine_certificate_is_the_tight_rate(cert: dict[str, Any]) -> None:
    assert check_proof(cert) is True
    assert cert["statement"]["bound"]["value"] == "1/2"  # M R / sqrt(N + 1) with N + 1 = 4 points
    assert cert["statement"]["class"] == {"functions": "convex-lipschitz", "M": "1"}


def _leaf(d: dict[str, Any]) -> list[Any]:
    return d["statement"]["method"]["outputs"][0]


def _unevaluated(d: dict[str, Any]) -> None:  # a candidate past the last evaluation: its value is unconstrained
    _leaf(d)[1].append([[0, "1"], [1, "-1/2"], [2, "-1/2"], [3, "-1/2"], [4, "-1/2"]])


def _last_step(d: dict[str, Any]) -> None:
    d["statement"]["method"]["evaluations"][-1][1][-1][1] = "-1"


FORGERIES: dict[str, Callable[[dict[str, Any]], None]] = {
    "a candidate that was never evaluated": _unevaluated,
    "leaf probability 2": lambda d: _leaf(d).__setitem__(0, "2"),
    "leaf probability 1/2": lambda d: _leaf(d).__setitem__(0, "1/2"),
    "D0 doubled with the same bound": lambda d: d["statement"]["bound"].__setitem__("D0", "2"),
    "M unbounded": lambda d: d["statement"]["class"].__setitem__("M", "inf"),
    "M doubled": lambda d: d["statement"]["class"].__setitem__("M", "2"),
    "the last step doubled": _last_step,
    "two clients": lambda d: d["statement"].update(n=2, p=["1/2", "1/2"]),
    "the bound lowered to 49/100": lambda d: d["statement"]["bound"].__setitem__("value", "49/100"),
    "the candidates cut to the last point": lambda d: _leaf(d).__setitem__(1, _leaf(d)[1][-1:]),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forgery_refused(cert: dict[str, Any], name: str) -> None:
    d = copy.deepcopy(cert)
    FORGERIES[name](d)
    assert check_inline(d) is False, name
    forged = statement_of(d)
    if forged is not None:  # a forged statement is never read as implied by the genuine one when it says more
        assert not (implies(statement_of(cert), forged) and name.startswith(("D0", "M doubled", "the bound")))
