"""The fairtheory verification suite: every claim of the seed catalogue as a check, open to your own.

Run ``python -m verify --help``.  Write a claim of your own::

    from verify import Context, Outcome, Tally, claim

    @claim("mine.lemma1", citation="My paper, Lemma 1", statement="g(x) <= 2 x on [0, 1]")
    def lemma1(ctx: Context) -> Outcome:
        rng = ctx.rng("mine.lemma1")
        tally = Tally()
        for x in rng.uniform(0, 1, size=ctx.count(100, 10_000)):
            tally.upper(g(x), 2 * x, instance={"x": x})
        return tally.outcome(explain="measured = g(x), bound = 2 x")

and run it with ``python -m verify --plugin path/to/mine.py --only 'mine.*'``.  Programmatic use::

    from verify import load_builtin, run_claim, Context
    load_builtin(); print(run_claim("rcfl.lemma2.gap", Context(quick=True)))
"""

from verify.core import REGISTRY, ClaimResult, Context, Outcome, Tally, all_ids, claim, combine, run_claim
from verify.plugins import load_builtin, load_entry_points, load_plugin, load_plugins

__all__ = ["claim", "Tally", "Outcome", "Context", "ClaimResult", "REGISTRY", "all_ids", "combine", "run_claim",
           "load_builtin", "load_plugin", "load_plugins", "load_entry_points"]
