"""Checkable proofs: a certificate is a statement plus evidence, re-checked exactly (see docs/proofs.md).

* :mod:`fairtheory_kernel`: the trusted base - everything :func:`check_proof` executes and nothing else
  (``pep-dual``, ``pep-family``, ``pep-potential`` and ``symbolic`` certificates; exact arithmetic it owns or
  python-flint's; no solver, no float, no sympy);
* :mod:`fairtheory.proofs.certificate`: rational dual certificates of PEP statements (:class:`Certificate`,
  :func:`certify_pep`, :func:`certify_exact`, :func:`check_certificate`, :func:`statement`);
* :mod:`fairtheory.proofs.search`: the untrusted search for multipliers (float / GMP solves, exact rounding);
* :func:`check_proof`: one exact re-check for every certificate kind under a time and memory budget;
  :func:`statement_of`, :func:`implies`, :func:`describe` read statements;
* :mod:`fairtheory.proofs.symbolic` / :mod:`fairtheory.proofs.fit`: makers (proposers) of symbolic certificates
  and closed-form fits (loaded on first use);
* :func:`prove_family` / :func:`check_family`: a PEP bound proved for every step size in an interval;
  :func:`prove_potential`: a bound for every number of iterations by a potential function;
* ``python -m fairtheory.proofs recheck REPORT.json``: re-check a report's proved rows from the JSON alone.
"""

from __future__ import annotations

import importlib
from typing import Any

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.proofs.certificate import Certificate, certify_exact, certify_pep, check_certificate, statement
from fairtheory_kernel import check as _kernel_check


def _named(reader: Any) -> Any:
    """The kernel's function ``reader`` with its plain ``TypeError`` / ``ValueError`` (the kernel imports nothing of
    the project) raised as :class:`~fairtheory.errors.FairtheoryTypeError` / ``FairtheoryValueError``."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return reader(*args, **kwargs)
        except (FairtheoryTypeError, FairtheoryValueError):
            raise
        except TypeError as exc:
            raise FairtheoryTypeError(str(exc)) from exc
        except ValueError as exc:
            raise FairtheoryValueError(str(exc)) from exc

    wrapped.__name__, wrapped.__qualname__, wrapped.__doc__ = reader.__name__, reader.__qualname__, reader.__doc__
    return wrapped


check_proof = _named(_kernel_check.check_proof)
describe = _named(_kernel_check.describe)
implies = _named(_kernel_check.implies)
statement_of = _named(_kernel_check.statement_of)

__all__ = ["Certificate", "certify_pep", "certify_exact", "check_certificate", "statement", "check_proof", "describe",
           "implies", "statement_of", "fit_closed_form", "prove_family", "check_family", "prove_potential"]


def __getattr__(name: str) -> Any:
    if name == "fit_closed_form":
        return importlib.import_module("fairtheory.proofs.fit").fit_closed_form
    if name in ("prove_family", "check_family"):
        return getattr(importlib.import_module("fairtheory.proofs.parametric"), name)
    if name == "prove_potential":
        return importlib.import_module("fairtheory.proofs.potential_search").prove_potential
    if name in ("symbolic", "fit", "search", "parametric"):
        return importlib.import_module(f"fairtheory.proofs.{name}")
    raise AttributeError(f"module 'fairtheory.proofs' has no attribute {name!r}")
