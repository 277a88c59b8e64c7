r"""PEPit parity for operators: the builder with the operator classes of :mod:`fairtheory.worstcase.operators`
reproduces the tight values the papers behind PEPit's monotone-inclusion and fixed-point examples state.

One claim per example of :data:`fairtheory.worstcase.pepit_operator_examples.OPERATOR_EXAMPLES` (id
``base.pepit.operators.<name>``): the example, written from its paper's statement, solved by
:meth:`~fairtheory.worstcase.sdp.PEP.solve` with ``gmp="always"`` (SDPA-GMP, 200-bit, wherever the PEP is small
enough; the float solve alone misses Kim's ``1/n^2`` by ``4e-6`` relative at ``n = 10``), must equal the paper's tight
value to :data:`~fairtheory.worstcase.pepit_examples.REL_TOL` relative with the solver ``Solved`` - or, for the
Krasnoselskii-Mann bounds (Lieder 2018's constant-step bound; a textbook bound for increasing steps, for which PEPit
states no value), lie below it. ``douglas_rachford_splitting_cocoercive`` is a recorded finding (expected ``refuted``,
:data:`_FINDINGS`): the formula of RTBG 2020 Thm 4.1 as PEPit transcribes it fails at a setting beyond PEPit's own.
The ground truth is always the paper's closed form. Each result records ``value_is`` (``"upper bound"`` for the
Douglas-Rachford example, whose Lipschitz monotone class is a relaxation; its agreement with RTBG 2020 Thm 4.3 shows
the relaxation is tight there).
Quick mode: PEPit's published parameters (Halpern at ``n = 10``); full mode adds others.
"""

from __future__ import annotations

from fairtheory.worstcase.pepit_examples import REL_TOL
from fairtheory.worstcase.pepit_operator_examples import OPERATOR_EXAMPLES
from verify.core import Context, Outcome, Tally, claim

#: the ids this module registers (one per example), literal so that ``python -m verify`` reads them without importing
CLAIM_IDS = (
    "base.pepit.operators.proximal_point",
    "base.pepit.operators.accelerated_proximal_point",
    "base.pepit.operators.optimal_strongly_monotone_proximal_point",
    "base.pepit.operators.douglas_rachford_splitting",
    "base.pepit.operators.douglas_rachford_splitting_cocoercive",
    "base.pepit.operators.halpern_iteration",
    "base.pepit.operators.optimal_contractive_halpern_iteration",
    "base.pepit.operators.krasnoselskii_mann_constant_step_sizes",
    "base.pepit.operators.krasnoselskii_mann_increasing_step_sizes",
)

#: recorded findings (expected ``refuted``), with the counterexample
_FINDINGS = {
    "douglas_rachford_splitting_cocoercive": "RTBG 2020 Thm 4.1 as PEPit transcribes it is not an upper bound at beta = "
                                             "0.7, mu = 1.3, alpha = 1, theta = 1: formula 0.28177, worst case 100/273 "
                                             "= 0.366300, reached by explicit 2x2 linear operators",
}


def _check(name: str, ctx: Context) -> Outcome:
    ex = OPERATOR_EXAMPLES[name]
    tally = Tally()
    rows = []
    reference = ""
    for params in (ex.quick if ctx.quick else ex.quick + ex.full):
        r = ex.run(**params)
        reference = r.reference
        ok_status = r.status == "Solved"   # a failed solve never counts as agreement
        if ex.kind == "bound":
            tally.upper(r.ours if ok_status else float("nan"), r.theory, instance=dict(params))
        else:
            tally.equal(r.ours if ok_status else float("nan"), r.theory, rtol=REL_TOL, instance=dict(params))
        rows.append(dict(params) | {"ours": r.ours, "theory": r.theory, "rel_diff": r.rel_diff, "gap": r.gap,
                                    "status": r.status, "value_is": r.value_is, "seconds": round(r.seconds, 4)})
    what = "upper bound (the paper states a bound)" if ex.kind == "bound" else "tight value"
    return tally.outcome(explain=f"measured = our PEP value of PEPit's {name} example on operator classes, theory = "
                                 f"the paper's {what} ({reference})", details={"settings": rows})


def _register(name: str) -> None:
    ex = OPERATOR_EXAMPLES[name]
    assert ex.pepit is not None
    where = f"PEPit examples/{ex.pepit[0].split('PEPit.examples.')[1].replace('.', '/')}.py"
    ref = (ex.run.__doc__ or "").strip().split("\n")[0][:120]

    def check(ctx: Context) -> Outcome:
        return _check(name, ctx)

    check.__name__ = check.__qualname__ = f"operator_parity_{name}"
    rel = (f"is at most the paper's upper bound ({ref} ...)" if ex.kind == "bound" else
           f"equals the paper's tight worst case to {REL_TOL:g} relative ({ref} ...)")
    claim(f"base.pepit.operators.{name}", citation=where, statement=f"our PEP of {name} {rel}",
          expected="refuted" if name in _FINDINGS else "verified")(check)


if CLAIM_IDS != tuple(f"base.pepit.operators.{n}" for n in OPERATOR_EXAMPLES):
    raise RuntimeError("verify/claims/pepit_operators.py: CLAIM_IDS does not list exactly the examples of "
                       "fairtheory.worstcase.pepit_operator_examples.OPERATOR_EXAMPLES (update it)")
for _name in OPERATOR_EXAMPLES:
    _register(_name)
