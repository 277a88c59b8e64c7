"""Time to certify local-GD PEP worst cases exactly, per Gram size (issue 17: Gram-30 in < 10 s).

Run: ``.venv/bin/python benchmarks/bench_proofs.py``.  For each setting: the Gram dimension, the number of
scalar constraints, the float PEP solve (Clarabel), the whole certification (export, float re-solves,
projection, exact LDL^T) and the exact re-check of the JSON (``check_certificate``), side by side.
"""

from __future__ import annotations

import json
import time

from fairtheory.proofs.certificate import check_certificate
from fairtheory.worstcase import local_gd_worst_case

SETTINGS = [  # (kappa, T_N, rho2): Gram dimension grows with kappa T_N
    (2, 2, 0.0), (2, 2, 0.5), (3, 2, 0.5), (2, 5, 0.0), (3, 4, 0.0), (3, 4, 0.5), (4, 4, 0.5), (3, 8, 0.0),
]


def main() -> None:
    print(f"{'kappa':>5} {'T_N':>4} {'rho2':>5} {'dim':>4} {'rows':>5} {'pep_s':>7} {'certify_s':>9} {'recheck_s':>9} "
          f"{'rel_excess':>10}  route")
    for kappa, T_N, rho2 in SETTINGS:
        kw = dict(n=2, kappa=kappa, T_N=T_N, beta=0.25, L=1.0, D0=1.0, rho2=rho2, output="002")
        t0 = time.perf_counter()
        local_gd_worst_case(**kw)
        t_pep = time.perf_counter() - t0
        t0 = time.perf_counter()
        try:
            wc = local_gd_worst_case(**kw, certificate=True)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports failures in its table
            print(f"{kappa:>5} {T_N:>4} {rho2:>5} {'-':>4} {'-':>5} {t_pep:>7.2f} {'FAILED':>9}  {type(exc).__name__}: "
                  f"{str(exc)[:80]}")
            continue
        t_all = time.perf_counter() - t0
        c = wc.certificate
        d = json.loads(json.dumps(c.to_json()))
        t0 = time.perf_counter()
        ok = check_certificate(d)
        t_chk = time.perf_counter() - t0
        print(f"{kappa:>5} {T_N:>4} {rho2:>5} {wc.dim:>4} {wc.n_constraints:>5} {t_pep:>7.2f} {t_all:>9.2f} {t_chk:>9.2f} "
              f"{c.rel_excess:>10.2e}  {c.meta.get('route')}{'' if ok else '  RECHECK FAILED'}")


if __name__ == "__main__":
    main()
