"""Argument checks for code written against fairtheory: your own algorithm's ``make``, aggregator or claim.

The library validates its own arguments with these functions, so a plugin that uses them fails the same
way: a :class:`~fairtheory.errors.FairtheoryValueError` (a ``ValueError``) or
:class:`~fairtheory.errors.FairtheoryTypeError` (a ``TypeError``) whose message names the argument, the
value and the allowed range, e.g. ``lr must lie in (0.0, inf], got -1``.  Each returns the validated value
(a Python ``float``/``int``, or a float64 array)::

    from fairtheory.validation import check_integer, check_positive

    def make(problem, *, lr, kappa=1):
        lr = check_positive(lr, "lr")
        kappa = check_integer(kappa, "kappa", low=1)
        ...

* :func:`check_positive` - a finite real ``> 0``;
* :func:`check_in_range` - a finite real in ``[low, high]`` (each end open with ``low_inclusive=False`` /
  ``high_inclusive=False``);
* :func:`check_integer` - an integer in ``[low, high]`` (booleans refused);
* :func:`check_probability_vector` - a non-negative float64 vector summing to one;
* :func:`as_vector` - a finite, non-empty 1-d float64 array (lists, integer arrays converted; booleans refused);
* :func:`check_rng` - a ``numpy.random.Generator``.

This module re-exports the library's own helpers (``fairtheory._validation``); it adds no behaviour.
"""

from fairtheory._validation import (
    as_vector,
    check_in_range,
    check_integer,
    check_positive,
    check_probability_vector,
    check_rng,
)

__all__ = ["check_positive", "check_in_range", "check_integer", "check_probability_vector", "as_vector", "check_rng"]
