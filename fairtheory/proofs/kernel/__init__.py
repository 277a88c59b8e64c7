"""The trusted base of fairtheory's proofs: everything :func:`fairtheory.proofs.check_proof` executes, nothing else.

Modules (imported on first use; this file imports nothing): ``check`` (dispatch on the certificate kind, limits,
statements), ``pep`` (``"pep-dual"``), ``family`` (``"pep-family"``), ``rows`` (the interpolation rows and the
methods on symbols, shared by both, generic in the number ring), ``linalg`` (exact PSD test), ``words`` (the
checked statement in words) and ``symbolic`` (``"symbolic"``).  Proposers - searches, fits, sympy helpers - live
outside this package and are never imported by it.  docs/proofs.md, "The trusted base", lists the files and their
sizes.
"""
