"""Public Hypothesis strategies and property checks for fairness objectives.

Use them to property-test your own aggregators of the client-loss vector::

    from hypothesis import given
    from fairtheory.testing import qalpha_instances, loss_vectors
    from fairtheory.testing import check_monotone

    @given(qalpha_instances(max_n=10))
    def test_mine(inst):
        p, alpha, losses = inst
        ...

Strategies (keyword-only, arguments validated eagerly): :func:`probability_vectors`,
:func:`loss_vectors`, :func:`qalpha_instances`, :func:`capped_simplices`, :func:`integrated_sets`.
Property checks (raise ``AssertionError`` with the violating numbers): :func:`check_monotone`,
:func:`check_translation_equivariant`, :func:`check_positively_homogeneous`,
:func:`check_convex_in_losses`, :func:`check_between_mean_and_max`.

One call for an aggregator of your own (:mod:`fairtheory.aggregators`): :func:`audit` runs every
property with strategies suited to it and returns a table of held/violated with shrunk
counterexamples::

    from fairtheory.testing import audit
    report = audit(my_aggregator)
    print(report.table()); assert report.passed

An objective written as text (``audit("mean(f) + lambda * std(f)", params={"lambda": ("0", "1/sqrt(n - 1)")})``)
is parsed into the proof kernel's terms and each property is decided where the kernel can
(:class:`ExpressionAudit` of :class:`Decision` rows: ``proved`` / ``refuted`` with a re-checked certificate, else
``checked`` with the reason); docs/audit.md.
"""

from fairtheory.testing.audit import AuditReport, PropertyResult, audit
from fairtheory.testing.decide import Decision, ExpressionAudit
from fairtheory.testing.properties import (
    check_between_mean_and_max,
    check_convex_in_losses,
    check_monotone,
    check_positively_homogeneous,
    check_translation_equivariant,
)
from fairtheory.testing.strategies import (
    capped_simplices,
    integrated_sets,
    loss_vectors,
    probability_vectors,
    qalpha_instances,
)

__all__ = [
    "audit",
    "AuditReport",
    "PropertyResult",
    "ExpressionAudit",
    "Decision",
    "probability_vectors",
    "loss_vectors",
    "qalpha_instances",
    "capped_simplices",
    "integrated_sets",
    "check_monotone",
    "check_translation_equivariant",
    "check_positively_homogeneous",
    "check_convex_in_losses",
    "check_between_mean_and_max",
]
