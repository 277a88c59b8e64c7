"""Fairness measures of a client-loss (or accuracy) vector.

Each function takes a 1-D vector, validates it, and returns a float.  Sections are added per family
(q-FFL uniformity measures, relative-fairness inequality measures); do not define a measure twice.
"""

from __future__ import annotations

import numpy as np

from fairtheory._validation import as_vector

__all__: list[str] = []
