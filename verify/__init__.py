"""The fairtheory verification suite: every claim of ``shared/spec/claims.md`` as a check.

Run ``python -m verify --help``.  Programmatic use::

    from verify.claims import load_all
    from verify.core import Context, run_claim
    load_all(); print(run_claim("rcfl.lemma2.gap", Context(quick=True)))
"""
