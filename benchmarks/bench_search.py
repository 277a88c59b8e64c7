"""Exact multiplier search (:func:`fairtheory.proofs.search.find_multipliers`) on local-GD and one-round potential PEPs.

Run: ``.venv/bin/python benchmarks/bench_search.py [auto|clarabel|sdpa] [--reference-check]``.  For each PEP: Gram
dimension, rows, the reference solver and where the value came from, the time in float solves (reference, back-off,
KKT Newton), in the float/exact search (rounding, projections, eigenvalues) and in exact PSD checks, the total, and
``(bound - value) / value``.  ``--reference-check`` also solves every PEP with SDPA-GMP (slow above ~150 rows) and
prints ``(bound - value_sdpa) / value_sdpa``.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from typing import Any

from fairtheory.proofs.certificate import verify_multipliers
from fairtheory.proofs.search import find_multipliers

LOCAL_GD = [(k, t, r) for k, t in ((2, 2), (2, 3), (2, 4), (3, 3), (2, 6), (4, 3)) for r in (0, Fraction(1, 2))]
ROUND_BETA = [Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(5, 4), Fraction(3, 2)]


def local_gd(kappa: int, T_N: int, rho2: Fraction) -> dict[str, Any]:
    """The normalised local-GD PEP (``beta = 1/4``, two uniform clients, 002 output) as the trusted kernel builds
    it from a statement (the tests build the same SDP with the hand-written builder)."""
    from fairtheory.proofs.certificate import statement
    from fairtheory.worstcase.results import units
    from fairtheory_kernel import pep as pep_kernel

    _, D0n, R2n = units(1, 1, rho2)
    st = statement(method={"name": "local_gd", "kappa": kappa, "T_N": T_N, "lr": Fraction(1, 4), "schedule": "rfedfair",
                           "output": "average"}, n=2, bound={"form": "constrained", "D0": D0n, "rho2": R2n, "value": 0})
    return pep_kernel.build(pep_kernel.canonical(st))


def round_pep(h: Fraction, kappa: int = 2) -> dict[str, Any]:
    from fairtheory.worstcase.potential import _round_pep

    R = (h * kappa) ** -3
    pep, _ = _round_pep(2, [Fraction(1, 2)] * 2, h, kappa, h / 2, R, None, exact=True)
    return pep.export()


def main() -> None:
    mode = next((a for a in sys.argv[1:] if not a.startswith("--")), "auto")
    check_ref = "--reference-check" in sys.argv
    print(f"{'PEP':<22} {'dim':>4} {'rows':>5} {'value from':<24} {'solve_s':>7} {'search_s':>8} {'check_s':>7} "
          f"{'total_s':>7} {'rel_excess':>10}" + (f" {'vs sdpa':>10}" if check_ref else "") + "  route")
    cases = [(f"local_gd k={k} T={t} r={r}", local_gd(k, t, r)) for k, t, r in LOCAL_GD]
    cases += [(f"round k=2 h={b}", round_pep(b)) for b in ROUND_BETA]
    for name, data in cases:
        t0 = time.perf_counter()
        try:
            res = find_multipliers(data, reference=mode)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports failures in its table
            print(f"{name:<22} {data['dim']:>4} {len(data['rows']):>5} FAILED {type(exc).__name__}: {str(exc)[:200]}")
            continue
        total = time.perf_counter() - t0
        ok = verify_multipliers(data["rows"], data["objective"], res.multipliers, dim=data["dim"], nf=data["nf"],
                                n_eq=data["n_eq"]) == res.bound
        m = res.meta
        extra = ""
        if check_ref:
            from fairtheory.worstcase.solvers import ExportedPEP, solve_sdpa

            s = solve_sdpa(ExportedPEP(data))
            extra = f" {float(res.bound - Fraction(s.value)) / s.value:>10.2e}" if s is not None else f" {'-':>10}"
        print(f"{name:<22} {data['dim']:>4} {len(data['rows']):>5} {str(m.get('value_from'))[:24]:<24} "
              f"{m['solve_s']:>7.2f} {m['search_s']:>8.2f} {m['check_s']:>7.2f} {total:>7.2f} {res.rel_excess:>10.2e}"
              f"{extra}  {res.route}{'' if ok else '  RECHECK FAILED'}")
        if name.startswith("round"):
            print(f"{'':<22} bound = {float(res.bound):.17g} (denominator 2^{res.bound.denominator.bit_length() - 1}"
                  f"{'' if res.bound.denominator & (res.bound.denominator - 1) == 0 else ' x odd'}), "
                  f"C = bound / R = {float(res.bound / (2 * b_of(name)) ** -3):.15g}")


def b_of(name: str) -> Fraction:
    return Fraction(name.split("bL=")[1])


if __name__ == "__main__":
    main()
