"""Toy statements and ``"counterexample"`` certificates for the runner's tests (``x <= 1`` for every real ``x``, false at
``x = 2``), written as the kernel's JSON directly (:mod:`fairtheory_kernel.symbolic`, kind ``"counterexample"``:
statement, evidence ``{"goal", "point", "margin"}``), so that what the tests forge is the certificate itself.  It
imports nothing from ``verify``."""

from __future__ import annotations

from typing import Any


def goal(name: str, lhs: Any, rhs: Any, rel: str = "<=") -> dict[str, Any]:
    return {"name": name, "rel": rel, "lhs": lhs, "rhs": rhs}


X = ["v", "x"]
#: ``x <= 1`` for every real x (false: x = 2)
G1 = goal("atmostone", X, ["q", "1"])
#: ``x <= 0`` for every real x (false: x = 1/2, where G1 holds)
G2 = goal("atmostzero", X, ["q", "0"])
#: ``x <= 1`` (weaker) and ``x <= 1 and x <= 0`` (stronger: it implies the first); ``x <= 0`` alone
WEAK = {"symbols": [["x", "real"]], "goals": [G1]}
STRONG = {"symbols": [["x", "real"]], "goals": [G1, G2]}
ONLY_G2 = {"symbols": [["x", "real"]], "goals": [G2]}
#: ``x <= 1`` for every x with ``x <= 0`` (true: more assumptions make a weaker statement than WEAK)
ASSUMED_NONPOS = {"symbols": [["x", "real"]], "assume": [{"rel": "<=", "lhs": X, "rhs": ["q", "0"]}], "goals": [G1]}
#: ``x <= 1`` for every x with ``2 <= x`` (false at x = 2; WEAK implies it, so refuting it refutes WEAK)
ASSUMED_GE2 = {"symbols": [["x", "real"]], "assume": [{"rel": "<=", "lhs": ["q", "2"], "rhs": X}], "goals": [G1]}


def counterexample(statement: dict[str, Any], goal_name: str, x: str, margin: str,
                   title: str = "toy counterexample") -> dict[str, Any]:
    """A ``"counterexample"`` certificate of ``statement`` at ``x`` (a rational string) for goal ``goal_name``."""
    return {"kind": "counterexample", "version": 1, "title": title, "citation": "test",
            "statement": statement, "evidence": {"goal": goal_name, "point": [["x", ["q", x]]], "margin": margin}}


def kernel_knows_counterexamples() -> bool:
    """Whether the kernel checks kind ``"counterexample"``."""
    import fairtheory_kernel.check as check_mod

    return "counterexample" in check_mod.KINDS
