r"""PEPit parity: the hand-written PEP builder reproduces the tight worst cases PEPit 0.5.1's examples document.

One claim per example of :data:`fairtheory.worstcase.pepit_examples.EXAMPLES` (id ``base.pepit.<name>``): the
example, written from its mathematical statement with :class:`fairtheory.worstcase.sdp.PEP` and the function
classes of :mod:`fairtheory.worstcase.classes`, solved by Clarabel (tolerance ``1e-8``), must equal the
theoretical value the PEPit example documents as tight (a closed form from the paper it cites), to ``1e-6``
relative, with Clarabel ``Solved`` / ``AlmostSolved`` - or, for the examples whose paper proves an upper bound
only (``Example.kind == "bound"``: Frank-Wolfe, the epsilon-subgradient method, the relatively inexact proximal
point method), lie below it.  Quick mode: the example's published parameters (small
``n``); full mode adds larger ``n`` and other step sizes.  The ground truth is always the closed form, never
PEPit's or our own solver output.

Formerly a recorded finding: ``base.pepit.inexact_gradient_descent`` was refuted because the float solve
missed the tight value by more than ``1e-6`` (``epsilon = 0``, ``n = 2``: ``1.28e-6`` relative; ``epsilon = 0.1``,
``n = 4``: ``2.6e-6``).  The paper's rate holds: an artefact of float accuracy.  ``inexact_grad(x, 0)`` is now the
exact gradient (the row ``||d - g||^2 <= 0`` has no strictly feasible point; ``d = g`` is the same set), and
:meth:`~fairtheory.worstcase.sdp.PEP.solve` re-solves small PEPs whose float Gram matrix is PSD only to more than
``1e-9`` in GMP arithmetic (SDPA-GMP): ``n = 4`` and ``n = 6`` then meet the closed form to ``2e-15``.  Same
closed form, same tolerance; see docs/worstcase.md, "PEPit parity".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fairtheory.worstcase.pepit_examples import EXAMPLES, REL_TOL
from verify.core import Context, Outcome, Tally, claim

#: the ids this module registers (one per example), literal so that ``python -m verify`` can read them without
#: importing (:func:`verify.plugins.builtin_claim_ids`); checked against the examples at import
CLAIM_IDS = (
    "base.pepit.gradient_descent",
    "base.pepit.subgradient_method",
    "base.pepit.proximal_point",
    "base.pepit.optimized_gradient",
    "base.pepit.optimized_gradient_for_gradient",
    "base.pepit.inexact_gradient_descent",
    "base.pepit.information_theoretic_exact_method",
    "base.pepit.gradient_descent_contraction",
    "base.pepit.polyak_steps_in_distance_to_optimum",
    "base.pepit.polyak_steps_in_function_value",
    "base.pepit.sgd_overparametrized",
    "base.pepit.proximal_gradient",
    "base.pepit.proximal_gradient_projected",
    "base.pepit.accelerated_proximal_gradient_simplified",
    "base.pepit.douglas_rachford_splitting_contraction",
    "base.pepit.nonconvex_gradient_descent",
    # the catalogue's other classes and steps (fairtheory.worstcase.classes / steps)
    "base.pepit.gradient_exact_line_search",
    "base.pepit.inexact_gradient_exact_line_search",
    "base.pepit.conjugate_gradient",
    "base.pepit.conjugate_gradient_qg_convex",
    "base.pepit.gradient_descent_qg_convex",
    "base.pepit.heavy_ball_momentum_qg_convex",
    "base.pepit.subgradient_method_rsi_eb",
    "base.pepit.gradient_descent_quadratics",
    "base.pepit.proximal_gradient_quadratics",
    "base.pepit.gradient_descent_quadratic_lojasiewicz",
    "base.pepit.no_lips_in_function_value",
    "base.pepit.no_lips_in_bregman_divergence",
    "base.pepit.bregman_proximal_point",
    "base.pepit.randomized_coordinate_descent_smooth_strongly_convex",
    "base.pepit.frank_wolfe",
    "base.pepit.epsilon_subgradient_method",
    "base.pepit.relatively_inexact_proximal_point_algorithm",
    "base.pepit.gradient_flow_strongly_convex",
    "base.pepit.online_gradient_descent",
)

#: examples whose claim is a recorded finding (expected refuted), with the reason; none since the GMP re-solve
#: (module doc: inexact_gradient_descent was refuted by float accuracy alone)
_FINDINGS: dict[str, str] = {}


def parity_outcome(name: str, ex: Any, ctx: Context, *, ok_statuses: tuple[str, ...], explain: str) -> Outcome:
    """One parity claim's outcome: every setting of ``ex`` (quick, or quick + full) run, its value compared with
    the paper's closed form (``ex.kind == "bound"``: at most it; else equal to :data:`REL_TOL` relative); a
    solve whose status is not in ``ok_statuses`` never counts as agreement (nan)."""
    tally = Tally()
    rows = []
    reference = ""
    for params in (ex.quick if ctx.quick else ex.quick + ex.full):
        r = ex.run(**params)
        reference = r.reference
        inst = dict(params)
        value = r.ours if r.status in ok_statuses else float("nan")
        if ex.kind == "bound":  # the paper proves an upper bound only: the exact worst case must lie below it
            tally.upper(value, r.theory, instance=inst)
        else:
            tally.equal(value, r.theory, rtol=REL_TOL, instance=inst)
        rows.append(inst | {"ours": r.ours, "theory": r.theory, "rel_diff": r.rel_diff, "gap": r.gap,
                            "status": r.status, "seconds": round(r.seconds, 4)}
                    | ({"value_is": r.value_is} if hasattr(r, "value_is") else {}))
    return tally.outcome(explain=f"{explain} ({reference})", details={"settings": rows})


def register_parity(examples: Mapping[str, Any], *, prefix: str, claim_ids: tuple[str, ...], findings: Mapping[str, str],
                    where: Callable[[Any], str], ok_statuses: tuple[str, ...], source: str,
                    fn_prefix: str = "parity_") -> None:
    """Register one claim ``prefix + name`` per example (expected ``refuted`` for the recorded ``findings``, whose text
    starts the claim's statement and its note), after
    checking that the literal ``claim_ids`` list exactly the examples (the claim-id scanner reads the literal)."""
    if claim_ids != tuple(f"{prefix}{n}" for n in examples):
        raise RuntimeError(f"{source}: CLAIM_IDS does not list exactly the examples (update it)")
    for name, ex in examples.items():
        ref = (ex.run.__doc__ or "").strip().split("\n")[0][:120]
        what = ("upper bound (a paper's bound, not tight)" if ex.kind == "bound" else "tight value")
        as_written = " as PEPit's example writes it" if name in findings else ""
        what += as_written

        def check(ctx: Context, name: str = name, ex: Any = ex, what: str = what) -> Outcome:
            out = parity_outcome(name, ex, ctx, ok_statuses=ok_statuses,
                                 explain=f"measured = our PEP worst case of PEPit's {name} example, theory = the "
                                         f"paper's {what}")
            if name in findings:  # a recorded finding says what it is in the row's note
                out.note = f"recorded finding: {findings[name]}" + (f"; {out.note}" if out.note else "")
            return out

        check.__name__ = check.__qualname__ = f"{fn_prefix}{name}"
        rel = (f"is at most the paper's upper bound ({ref} ...)" if ex.kind == "bound" else
               f"equals the paper's tight worst case{as_written} to {REL_TOL:g} relative ({ref} ...)")
        # a recorded finding says what it is first (the README's findings table shows a statement's beginning)
        statement = (f"recorded finding (expected refuted): {findings[name]}. The check: our PEP of {name} {rel}"
                     if name in findings else f"our PEP of {name} {rel}")
        claim(f"{prefix}{name}", citation=where(ex), statement=statement,
              expected="refuted" if name in findings else "verified")(check)


register_parity(EXAMPLES, prefix="base.pepit.", claim_ids=CLAIM_IDS, findings=_FINDINGS, ok_statuses=("Solved", "AlmostSolved"),
                source="verify/claims/pepit_parity.py",
                where=lambda ex: (f"PEPit 0.5.1 examples/{ex.pepit[0].split('PEPit.examples.')[1].replace('.', '/')}.py"
                                  if ex.pepit else "PEPit 0.5.1 examples/composite_convex_minimization/proximal_gradient.py "
                                  "with f_2 an indicator"))
