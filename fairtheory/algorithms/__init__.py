"""Federated algorithms, one module each: ``make(problem, **hyper) -> Algorithm`` binds and validates the
hyper-parameters once and returns pure ``init``/``step`` functions over a frozen ``State``
(:mod:`fairtheory.algorithms.base`); :func:`fairtheory.algorithms.base.run` iterates any of them."""
