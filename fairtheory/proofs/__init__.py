"""Checkable proofs: exact rational PEP certificates and symbolic derivations (see docs/proofs.md).

* :mod:`fairtheory.proofs.certificate`: rational dual certificates of performance-estimation worst cases
  (:class:`Certificate`, :func:`certify`, :func:`check_certificate`);
* :mod:`fairtheory.proofs.exact_linalg`: exact ``L D L^T`` PSD test and sparse rational solves;
* :func:`check_proof`: one exact re-check for every certificate kind (no solver, no float);
* :mod:`fairtheory.proofs.symbolic` / :mod:`fairtheory.proofs.fit`: sympy proofs and closed-form fits
  (loaded on first use: sympy is imported only when needed).
"""

from __future__ import annotations

import importlib
from typing import Any

from fairtheory.proofs.certificate import Certificate, certify, certify_exact, check_certificate
from fairtheory.proofs.check import check_proof

__all__ = ["Certificate", "certify", "certify_exact", "check_certificate", "check_proof", "fit_closed_form"]


def __getattr__(name: str) -> Any:
    if name == "fit_closed_form":
        return importlib.import_module("fairtheory.proofs.fit").fit_closed_form
    if name in ("symbolic", "fit"):
        return importlib.import_module(f"fairtheory.proofs.{name}")
    raise AttributeError(f"module 'fairtheory.proofs' has no attribute {name!r}")
