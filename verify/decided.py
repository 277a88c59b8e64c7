"""Which claims of the seed theory a run decided exactly (issue 42): proved, or refuted with an exact counterexample.

The *seed claims* are the built-in claims of the four seed families (:data:`SEED_FAMILIES`: ``rcfl`` - seeds 000 and
002 -, ``relfair`` - 001 -, ``qffl`` - 003 - and ``fedfv`` - 004): the catalogue's ids of those families and the
other built-in claims registered under them (:func:`seed_ids`; :data:`SEED_COUNT` of them).  A seed claim ``c`` is
*decided exactly* by a report row ``r`` in ``(c, "proofs." + c)`` when

* ``r`` ended ``proved``: exact certificates re-checked by the kernel (in the claim's process and again in a fresh
  interpreter), whose statements imply the statements the claim declares; or
* ``r`` ended ``refuted`` with ``details["refuted_exactly"]`` true: a ``"counterexample"`` certificate re-checked the
  same way, whose statement is implied by the statement the claim declares refuted
  (:func:`verify.core.bind_refutation`).

Every other seed claim is *undecided*, with the reason :data:`UNDECIDED_REASONS` gives (default
:data:`DEFAULT_REASON`), or why its refutation is not exact, or that the run did not include it.  A claim proved by
one row and refuted exactly by the other would be a kernel bug: it is reported undecided, naming both rows.

:func:`decide` builds the JSON report's ``decided`` section; :func:`closing_line` and :func:`markdown_lines` print it.
``python -m fairtheory.proofs recheck`` re-checks the section against the rows
(:func:`fairtheory.proofs.recheck.check_decided`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from verify.catalogue import CATALOGUE

__all__ = ["SEED_FAMILIES", "SEED_COUNT", "UNDECIDED_REASONS", "DEFAULT_REASON", "NOT_RUN", "seed_ids", "decide",
           "closing_line", "markdown_lines", "refuted_exactly", "ran"]

#: the claim-id prefixes of the four seed papers' families
SEED_FAMILIES = ("rcfl", "relfair", "qffl", "fedfv")
#: how many seed claims the suite has (issue 42 counts 56: 53 catalogue ids and 3 further built-in ``rcfl`` claims)
SEED_COUNT = 56
#: the reason printed for an undecided seed claim that :data:`UNDECIDED_REASONS` does not name
DEFAULT_REASON = "not yet stated in the kernel's language"
#: the reason printed for a seed claim the report has no row for (a run with ``--only``)
NOT_RUN = "not in this run (--only)"

#: per seed claim id: one line saying why it cannot be stated or decided exactly (yet); others get DEFAULT_REASON
UNDECIDED_REASONS: dict[str, str] = {
    "rcfl.empirical.worst_client": "a qualitative observation on offline data (002 Table 3), not a mathematical "
                                   "statement",
    "relfair.penguins.figure": "a regenerated figure of a curve on a data set (001 Sec. 4.3), not a lemma; the curve's "
                               "monotonicity is proved apart (proofs.relfair.penguins.index_monotone: Thm. 1's "
                               "shared-point step and Assumption 1 for the 30 rows), which decides no seed claim",
    "relfair.exact.routes_agree": "two numerical solvers of problem (8) agree to a tolerance (dual matrix_frac route vs "
                                  "global search, exact.md Sec. 3): a statement about solvers, not a lemma of 001",
    "qffl.table9.trend": "a qualitative trend in an experiment table (003 Table 9), not a mathematical statement",
    "fedfv.order.effect": "a qualitative observation in an experiment table (004 Table 4), not a mathematical "
                          "statement",
    "qffl.qfedsgd.converges": "an algorithm run to a numerical tolerance, checked against an exact solver; the seed "
                              "states no convergence theorem to put in the kernel",
    "rcfl.theorem3.generalization": "a probability bound over random samples; its deterministic inequalities are "
                                    "not yet stated in the kernel's language",
    "rcfl.theorem4.generalization": "a probability bound over random samples; its deterministic inequalities are "
                                    "not yet stated in the kernel's language",
    "rcfl.remark3.vc": "a bound on a Monte Carlo estimate of a Rademacher average; not yet stated in the kernel's "
                       "language",
    # rcfl, qffl, relfair: the reasons each family's study found, condensed
    "rcfl.theorem1.v002": "the whole theorem (output and partial participation) is not stated; its optimisation "
                          "part is proved for fixed settings by the proofs.rcfl.theorem1.* claims",
    "rcfl.theorem1.v000": "the whole theorem (output and partial participation) is not stated; its optimisation "
                          "part is proved for fixed settings by the proofs.rcfl.theorem1.* claims",
    "rcfl.theorem2.v002": "an expectation over client sampling for every n, K: not yet stated in the kernel's language",
    "rcfl.theorem2.v000": "an expectation over client sampling for every n, K: not yet stated in the kernel's language",
    "qffl.limits": "the (q+1)-th root, the lower half (definition of AFL*) and the limit p_min^(-1/(q+1)) -> 1 are not "
                   "kernel steps; the sandwich is proved for losses > 0 only",
    "qffl.lemma8.entropy": "the sign is proved for every n (proofs.qffl.lemma8.entropy_sign) from the derivative's "
                           "closed form through stationarity and the implicit-function identity, but that closed form "
                           "(the chain rule for dH/dp) is checked by the kernel for n = 3 only: for other n it is a "
                           "hypothesis; no counterexample in 300 random instances",
    "qffl.lemma10.holder": "zero entries at q > 0 (kernel powers need positive bases) and the probabilistic part "
                           "(eq. 25) are not covered",
    "relfair.theorem2.strict": "its hypothesis, Assumption 2 (imbalance), was lost in extraction: no statement to "
                               "prove or refute; one instance with a strict decrease 5/3 -> 724/441 is proved as "
                               "proofs.relfair.theorem2.instance, which decides nothing",
    "relfair.theorem3.rate": "the rate's constants were lost (only O(1/T^2) deterministic, O(1/T) stochastic "
                             "survive), and a rate of an algorithm's stochastic iterates is not in the kernel's "
                             "statement language",
    "rcfl.theorem1.worstcase": "the exact worst case against Thm. 1's right-hand side for every admissible (kappa, "
                               "beta, T_N): proved for 2 clients of equal weight, kappa <= 2, every T_N and beta "
                               "(proofs.rcfl.theorem1.all_rounds); every n, p and kappa needs PEP certificates "
                               "parametric in the number of clients, which the kernel's PEP kinds do not state",
    "rcfl.theorem2.worstcase": "an exact worst case of an expectation over the client draws, per (n, K, kappa, T_N): "
                               "PEP certificates exist per setting, none parametric in n and K",
    "rcfl.stepsize.region": "a largest step found by bisection on one-round PEPs: certificates prove the constants at "
                            "the steps tried (proofs.stepsize.points), not the whole region for every kappa",
    # fedfv: the reasons its study found
    "fedfv.theorem1.one_sided": "not stateable for every m in the kernel's language: g_i^(j) is a vector family in two "
                                "indices defined by a recursion over j (the kernel has one-index scalar families and "
                                "one level of sums); a fixed-m proof is not the claim",
    "fedfv.theorem2.one_sided": "as fedfv.theorem1.one_sided (recursive projections over m vectors), and the bound "
                                "uses (1 - eps1^2)^((m-k)/2) with a symbolic m",
    "fedfv.alpha.limits": "a definitional identity of the algorithm's counting rule (round(alpha m) clients "
                          "unprojected), not a quantified statement of the paper; checked on the implementation",
}


#: the built-in claim ids read from the sources, once (:func:`seed_ids` when the built-in modules are not loaded)
_STATIC: frozenset[str] | None = None


def seed_ids() -> list[str]:
    """The seed claims: the catalogue's ids of :data:`SEED_FAMILIES` (catalogue order), then the other built-in ids of
    those families, sorted (as registered, else as :func:`verify.plugins.builtin_claim_ids` reads them from the
    sources).  Plugin claims are never seed claims."""
    global _STATIC
    from verify.core import REGISTRY

    def seed(cid: str) -> bool:
        return cid.split(".", 1)[0] in SEED_FAMILIES

    ids = [i for i in CATALOGUE if seed(i)]
    extra = {i for i, spec in REGISTRY.items() if seed(i) and i not in CATALOGUE and spec.source == "built-in"}
    if not extra:
        from verify.plugins import builtin_claim_ids

        if _STATIC is None:
            _STATIC = builtin_claim_ids() or frozenset()
        extra = {i for i in _STATIC if seed(i) and i not in CATALOGUE}
    return ids + sorted(extra)


def _get(r: Any, key: str) -> Any:
    """A field of a row: a :class:`verify.core.ClaimResult` or its JSON dict."""
    return r.get(key) if isinstance(r, Mapping) else getattr(r, key, None)


def refuted_exactly(r: Any) -> bool:
    """Whether row ``r`` (a result or its JSON) ended ``refuted`` with an exact, re-checked counterexample."""
    details = _get(r, "details")
    return _get(r, "status") == "refuted" and isinstance(details, Mapping) and details.get("refuted_exactly") is True


def _how(r: Any) -> str | None:
    if r is None:
        return None
    if _get(r, "status") == "proved":
        return "proved"
    return "refuted exactly" if refuted_exactly(r) else None


def _why(cid: str, rows: Sequence[Any]) -> str:
    """Why ``cid`` is undecided, given its rows that ran (its own, then ``proofs.<cid>``)."""
    if not rows:
        return NOT_RUN
    for r in rows:
        details = _get(r, "details")
        because = details.get("not_exact_because") if isinstance(details, Mapping) else None
        if _get(r, "status") == "refuted" and isinstance(because, str) and because:
            return f"refuted numerically by {_get(r, 'id')}, not exactly: {because}"[:300]
    return UNDECIDED_REASONS.get(cid, DEFAULT_REASON)


def decide(results: Sequence[Any], ids: Sequence[str] | None = None) -> dict[str, Any]:
    """The ``decided`` section of a report for the rows ``results`` (:class:`verify.core.ClaimResult` or their JSON
    dicts): ``{"total", "decided", "proved", "refuted_exactly", "not_run", "claims": {id: {"decided", "how", "by",
    "why", "status"}}}`` over the seed claims ``ids`` (default :func:`seed_ids`).  ``how`` is ``"proved"``, ``"refuted
    exactly"`` or ``None``; ``by`` the deciding row's id (the claim's own is preferred to ``proofs.<id>``); ``why`` the
    reason an undecided claim is undecided (``None`` when decided); ``status`` the claim's own row's status (``None``
    when it did not run)."""
    by_id = {_get(r, "id"): r for r in results}
    ids = list(seed_ids() if ids is None else ids)
    claims: dict[str, dict[str, Any]] = {}
    for cid in ids:
        rows = [by_id[k] for k in (cid, f"proofs.{cid}") if k in by_id]
        hows = {_get(r, "id"): _how(r) for r in rows}
        own = by_id.get(cid)
        entry: dict[str, Any] = {"decided": False, "how": None, "by": None, "why": None,
                                 "status": _get(own, "status") if own is not None else None}
        if "proved" in hows.values() and "refuted exactly" in hows.values():
            entry["why"] = ("KERNEL BUG: " + " and ".join(f"{k} {v}" for k, v in hows.items() if v)
                            + ": a statement proved and refuted exactly")
        else:
            by = next((k for k, v in hows.items() if v), None)
            if by is not None:
                entry.update(decided=True, how=hows[by], by=by)
            else:
                entry["why"] = _why(cid, rows)
        claims[cid] = entry
    decided = [e for e in claims.values() if e["decided"]]
    return {"total": len(claims), "decided": len(decided),
            "proved": sum(e["how"] == "proved" for e in decided),
            "refuted_exactly": sum(e["how"] == "refuted exactly" for e in decided),
            "not_run": sum(e["why"] == NOT_RUN for e in claims.values()),
            "claims": claims}


def ran(section: Mapping[str, Any]) -> bool:
    """Whether the run behind ``section`` included any seed claim (a run of plugins or ``--only 'peers.*'`` did not:
    the console and the Markdown report then leave the section out; the JSON report always has it)."""
    return bool(section.get("total")) and section.get("not_run") != section.get("total")


def closing_line(section: Mapping[str, Any]) -> str:
    """``seed theory decided exactly: X of 56 (P proved, R refuted exactly)``, and how many of them the run did not
    include when some are missing."""
    line = (f"seed theory decided exactly: {section['decided']} of {section['total']} ({section['proved']} proved, "
            f"{section['refuted_exactly']} refuted exactly)")
    if section.get("not_run"):
        line += f"; {section['not_run']} not in this run"
    return line


def markdown_lines(section: Mapping[str, Any]) -> list[str]:
    """The Markdown report's section: the closing line, then every undecided seed claim with its reason (a run that
    left seed claims out says how many, without listing them)."""
    def cell(text: Any) -> str:
        return " ".join(str(text).split()).replace("|", "\\|")

    claims = section.get("claims", {})
    lines = ["## Seed theory decided exactly", "", closing_line(section) + ".", ""]
    decided = [(cid, e) for cid, e in claims.items() if e.get("decided")]
    if decided:
        lines += ["Decided: " + ", ".join(f"`{cid}` ({e['how']}" + (f" by `{e['by']}`)" if e['by'] != cid else ")")
                                         for cid, e in decided) + ".", ""]
    undecided = [(cid, e) for cid, e in claims.items() if not e.get("decided") and e.get("why") != NOT_RUN]
    if undecided:
        lines += ["| undecided claim | status | why |", "|---|---|---|"]
        lines += [f"| `{cid}` | {cell(e.get('status') or '-')} | {cell(e.get('why') or '')} |" for cid, e in undecided]
    return lines
