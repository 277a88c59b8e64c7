"""Time to certify and to check local-GD PEP worst cases exactly (issue: proofs a reviewer can trust).

Run: ``.venv/bin/python benchmarks/bench_proofs.py``.  For each setting of the acceptance grid (``n = 2``,
``beta = 1/4``, ``L = D0 = 1``, 002 output, rFedFair schedule, ``rho2`` in ``{0, 1/2}``): the Gram dimension and
number of rows of the kernel's SDP, the float PEP solve (the hand-written builder, Clarabel), the whole
certification (``local_gd_worst_case(..., certificate=True)``: kernel build, reference solve, exact search,
mapping, in-process re-check), the re-check of the JSON with ``check_proof`` (forked child, time and memory
limits; the number a reader sees) and in process (``check_certificate``), the JSON size, the certified bound's
excess over the float value and the search route.

``--parametric``: the parametric certificates of issue 25 instead (``prove_family``: gradient descent on
``h in [0, 1]`` for ``N = 1..6``, the rho = 0 local-GD formula on ``beta L in [0, 1/2]`` at the acceptance pairs):
time to prove, ``check_proof`` (forked child) and in-process ``check_family`` times, pieces, JSON size.

``--hostile``: how long the kernel takes to refuse hostile certificates, side by side with a genuine one in the same
run (the tests assert only that they are refused, and by which limit): oversized ``pep-dual`` statements (a huge
PEP, 100-digit multipliers, the largest local-GD shape inside the work budget with wrong multipliers) and oversized
``pep-family`` evidence, each timed with ``check_proof`` (forked child, the number a reader sees) and in process,
and the ratio of the in-process time to the genuine certificate's.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # fairtheory_kernel is a top-level package of the repo

from fairtheory.proofs.certificate import check_certificate  # noqa: E402
from fairtheory.worstcase import local_gd_worst_case  # noqa: E402
from fairtheory_kernel import pep as pep_kernel  # noqa: E402
from fairtheory_kernel.check import check_proof  # noqa: E402

GRID = [(2, 2), (2, 3), (2, 4), (3, 3), (2, 6), (4, 3)]


def main() -> None:
    print(f"{'kappa':>5} {'T_N':>4} {'rho2':>5} {'dim':>4} {'rows':>5} {'pep_s':>6} {'certify_s':>9} {'check_proof_s':>13} "
          f"{'inproc_s':>8} {'json_kB':>7} {'rel_excess':>10}  route")
    for rho2 in (0.0, 0.5):
        for kappa, T_N in GRID:
            kw = dict(n=2, kappa=kappa, T_N=T_N, lr=0.25, L=1.0, D0=1.0, rho2=rho2, output="average")
            t0 = time.perf_counter()
            local_gd_worst_case(**kw)
            t_pep = time.perf_counter() - t0
            t0 = time.perf_counter()
            try:
                wc = local_gd_worst_case(**kw, certificate=True)
            except Exception as exc:  # noqa: BLE001 - a benchmark reports failures in its table
                print(f"{kappa:>5} {T_N:>4} {rho2:>5} {'-':>4} {'-':>5} {t_pep:>6.2f} {'FAILED':>9}  {type(exc).__name__}: "
                      f"{str(exc)[:80]}")
                continue
            t_all = time.perf_counter() - t0
            c = wc.certificate
            d = json.loads(json.dumps(c.to_json()))
            data = pep_kernel.build(pep_kernel.canonical(d["statement"]))
            t0 = time.perf_counter()
            ok = check_proof(d)
            t_chk = time.perf_counter() - t0
            t0 = time.perf_counter()
            ok_in = check_certificate(d)
            t_in = time.perf_counter() - t0
            flag = "" if ok and ok_in else "  RECHECK FAILED"
            print(f"{kappa:>5} {T_N:>4} {rho2:>5} {data['dim']:>4} {len(data['rows']):>5} {t_pep:>6.2f} {t_all:>9.2f} "
                  f"{t_chk:>13.2f} {t_in:>8.2f} {len(json.dumps(d)) / 1000:>7.1f} {c.rel_excess:>10.2e}  {c.route}{flag}")


def parametric() -> None:
    from fractions import Fraction as Q

    from fairtheory.proofs.parametric import check_family, prove_family

    print(f"{'case':<22} {'range':<10} {'prove_s':>7} {'check_proof_s':>13} {'inproc_s':>8} {'pieces':>6} {'json_kB':>7}")
    cases = [(f"gd N={N}", "h in [0,1]", dict(method="gd", N=N, h=(Q(0), Q(1)))) for N in range(1, 7)]
    cases += [(f"local_gd ({k},{T})", "h in [0,1/2]",
               dict(method="local_gd", n=2, kappa=k, T_N=T, output="average", schedule="rfedfair", rho2=0,
                    h=(Q(0), Q(1, 2)))) for k, T in [(1, 2), (2, 2), (2, 3), (3, 2)]]
    for name, rng, kw in cases:
        t0 = time.perf_counter()
        c = prove_family(kw.pop("method"), **kw)
        t_prove = time.perf_counter() - t0
        d = json.loads(json.dumps(c.to_json()))
        t0 = time.perf_counter()
        ok = check_proof(d)
        t_chk = time.perf_counter() - t0
        t0 = time.perf_counter()
        ok_in = check_family(d)
        t_in = time.perf_counter() - t0
        flag = "" if ok and ok_in else "  RECHECK FAILED"
        print(f"{name:<22} {rng:<10} {t_prove:>7.2f} {t_chk:>13.2f} {t_in:>8.3f} {len(c.pieces):>6} "
              f"{len(json.dumps(d)) / 1000:>7.1f}{flag}")


def _edit(d: dict, fn: object) -> dict:
    e = json.loads(json.dumps(d))
    fn(e)  # type: ignore[operator]
    return e


def hostile() -> None:
    """The ``--hostile`` table (module doc)."""
    from fractions import Fraction as Q

    from fairtheory.proofs.parametric import check_family, prove_family

    wc = local_gd_worst_case(n=2, kappa=2, T_N=2, lr=0.25, L=1.0, D0=1.0, rho2=0.5, output="average", certificate=True)
    genuine = json.loads(json.dumps(wc.certificate.to_json()))
    fam = json.loads(json.dumps(prove_family("gd", N=2, h=(Q(0), Q(1))).to_json()))

    def method(**kw: object) -> object:
        return lambda j: (j["statement"]["method"].update(kw), j["evidence"].update(multipliers=mult))

    mult: list[list[object]] = [[k, str(10**99 + 7 * k) + "/" + str(10**100 + 3 * k + 1)] for k in range(60)]
    dual = [("genuine local GD (2, 2)", genuine),
            ("huge PEP (60, 60)", _edit(genuine, method(kappa=60, T_N=60))),
            ("100-digit multipliers (3, 7)", _edit(genuine, method(kappa=3, T_N=7)))]
    mult = [[k, str(Q(k + 1, 2**70))] for k in range(1406)]
    dual.append(("Gram 54, wrong multipliers", _edit(genuine, method(kappa=4, T_N=6))))
    piece = ("evidence", "pieces", 0)
    family = [("genuine gd N = 2", fam),
              ("10^4 multiplier terms", _edit(fam, lambda j: j[piece[0]][piece[1]][0]["multipliers"][0].__setitem__(
                  1, ["1"] * 10_000))),
              ("1000 x the pieces", _edit(fam, lambda j: j["evidence"].update(pieces=j["evidence"]["pieces"] * 1000))),
              ("N = 10^9", _edit(fam, lambda j: j["statement"]["method"].update(N=10**9)))]
    print(f"{'case':<30} {'kind':<10} {'verdict':>7} {'check_proof_s':>13} {'inproc_s':>8} {'x genuine':>9}")
    for kind, rows, inproc in (("pep-dual", dual, check_certificate), ("pep-family", family, check_family)):
        base = None
        for name, d in rows:
            t0 = time.perf_counter()
            ok = check_proof(d)
            t_chk = time.perf_counter() - t0
            t0 = time.perf_counter()
            ok_in = inproc(d)
            t_in = time.perf_counter() - t0
            base = t_in if base is None else base
            flag = "" if ok == ok_in else "  VERDICTS DIFFER"
            print(f"{name:<30} {kind:<10} {str(ok):>7} {t_chk:>13.3f} {t_in:>8.3f} {t_in / base:>9.2f}{flag}", flush=True)


if __name__ == "__main__":
    if "--hostile" in sys.argv[1:]:
        hostile()
    else:
        parametric() if "--parametric" in sys.argv[1:] else main()
