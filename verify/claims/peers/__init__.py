r"""Peer audit: the fair-FL libraries people use, checked against exact ground truth.

Each claim ``peers.<library>.<function>`` calls the peer's own code in-process on the same inputs as
fairtheory's reference, with the conventions mapped explicitly (docs/peers.md lists them per library).  A
peer that is not importable gives ``skipped`` with its install command; a claim whose peer shows a genuine
defect is recorded ``expected="refuted"`` with the smallest counterexample, and ``tests/test_peers*.py``
assert each one still reproduces while the peer is installed.

One module per library - :mod:`.flgo` (FLGo 0.4.4), :mod:`.fedlab` (FedLab 1.3.0), :mod:`.flower`
(Flower 1.41), :mod:`.sqwash` (SQwash 0.1.0): its adapters (how the peer is called) and its claims - and two
shared ones: :mod:`.support` (the peers, their installs and imports, FLGo's server objects) and
:mod:`.compare` (fairtheory's answers in the peers' conventions, the independent twins that check them, and
the one comparator :func:`~verify.claims.peers.compare.vec_equal`).  :func:`verify.claims.load_all` imports
every module of this package; nothing is imported here.
"""
