r"""Bounds for **every** number of iterations: ``"pep-potential"`` certificates (docs/proofs.md section 8).

Each claim declares its statement (``@claim(..., proves=...)``: a ``pep-potential`` statement, "for every ``N >= 1``"
or "for every ``T_N >= 0``" and every parameter in a closed rational range); the certificate's one-step inequality
(every ``k >= 0``), initial inequality and final relation are re-checked exactly by
:mod:`fairtheory_kernel.potential_kernel`, which applies the induction itself.  Before ``proved`` each check
falsifies its statement numerically: against the exact worst case (Drori & Teboulle's closed form for gradient
descent, the independent local-GD PEP :func:`fairtheory.worstcase.local_gd_worst_case`) and explicit instances run
through the method in rationals.  Then the runner's fresh re-check falsifies every certificate's statement again
(:func:`fairtheory.proofs.falsify.falsify_certificate`): quick mode at the horizons ``1..20`` (local GD ``0..20``)
and 100, ``--full`` at ``1..50`` (``0..50``), 100 and 1000 - the same instances and parameter points either way.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from fairtheory.worstcase.references import agm_worst_case, gd_instances_value
from verify.core import Context, Outcome, claim

#: gradient descent: the proved range of h = step L
GD_RANGE = (Fraction(1, 100), Fraction(1))
#: local GD (002 Alg. 1, rFedFair, average output, n = 2, kappa = 2, rho = 0): the proved range of lr L
LOCAL_RANGE = (Fraction(1, 1000), Fraction(1, 40))
#: 002 Thm. 1 admissible steps (lr L <= 1/40; the right-hand side is infinite at 0, so the range starts at 2^-20)
THM1_RANGE = (Fraction(1, 2**20), Fraction(1, 40))
#: (kappa, weights) proved for every T_N (quick: the first three)
THM1_SETTINGS = [(2, (Fraction(1, 2),) * 2), (1, (Fraction(1, 2),) * 2), (3, (Fraction(1, 2),) * 2),
                 (4, (Fraction(1, 2),) * 2), (5, (Fraction(1, 2),) * 2), (6, (Fraction(1, 2),) * 2),
                 (7, (Fraction(1, 2),) * 2), (8, (Fraction(1, 2),) * 2),
                 (2, (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)))]


def _stmt(cert: Any) -> dict[str, Any]:
    return {"kind": "pep-potential", "statement": cert.statement}


# ------------------------------------------------------------------------------------------------ gradient descent
def gd_statement() -> dict[str, Any]:
    """GD, every ``N >= 1``, every ``h`` in ``GD_RANGE``: ``f(x_N) - f* <= 3 L D0/(8 N h + 4)`` (the step-``h`` form of
    PEPit's Lyapunov 2)."""
    from fairtheory.proofs.potential_search import prove_potential

    return _stmt(prove_potential("gd", h=GD_RANGE))


@claim("proofs.potential.gd", citation="Drori & Teboulle 2014; Taylor & Bach 2019 (potential functions)",
       statement="for every N >= 1 and every h in [1/100, 1]: gradient descent with step h/L on any L-smooth convex f "
                 "satisfies f(x_N) - f* <= 3 L D0/(8 N h + 4) (1.5 times Drori-Teboulle's exact worst case), by the "
                 "potential (2 h k + 1) L (f(x_k) - f*) + h^2 k (k + 2)||g_k||^2 + L^2 ||x_k - x*||^2 (exact "
                 "pep-potential certificate)",
       expected="proved", proves=lambda: [gd_statement()])
def potential_gd(ctx: Context) -> Outcome:
    r"""The certificate, then falsification: at ``N = 1..1000`` and 5 step sizes the proved bound against
    Drori & Teboulle's exact ``L D0/(4 N h + 2)`` and against two explicit instances run in rationals."""
    from fairtheory.proofs.potential_search import prove_potential
    from fairtheory_kernel.check import check_proof

    t0 = time.perf_counter()
    c = prove_potential("gd", h=GD_RANGE)
    js = c.to_json()
    t1 = time.perf_counter()
    ok = check_proof(js)
    check_s = time.perf_counter() - t1
    hs = [GD_RANGE[0], Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), GD_RANGE[1]]
    worst_ratio, bad = Fraction(10**9), None
    for h in hs:
        for N in range(1, 1001):
            b = c.bound(N=N, h=h, L=1, D0=1)
            dt = 1 / (4 * N * h + 2)
            worst_ratio = min(worst_ratio, b / dt)
            if b < dt or (N <= 50 and b < gd_instances_value(N, h)):
                bad = {"N": N, "h": str(h), "bound": str(b), "drori_teboulle": str(dt)}
    tight = {f"N={N},h={h}": float(c.bound(N=N, h=h) * (4 * N * h + 2)) for N in (1, 10, 1000) for h in (hs[0], hs[-1])}
    details = {"prove_s": round(t1 - t0, 3), "check_proof_s": round(check_s, 3), "bound_over_exact": tight,
               "in_words": c.describe()}
    if bad is not None:
        return Outcome(status="refuted", counterexample=bad, details=details, note="the proved bound is below the exact "
                       "worst case: a kernel bug")
    return Outcome(status="proved" if ok else "error", measured=float(1 / worst_ratio), bound=1.0, relation="<=",
                   certificate=js if ok else None, details=details,
                   explain="measured: largest Drori-Teboulle worst case / proved bound over N = 1..1000 and 5 steps h",
                   note=f"bound = 1.5 x exact worst case at every N and h; check {check_s:.2f} s")


@claim("proofs.potential.pepit", citation="PEPit examples potential_functions (Taylor & Bach 2019, Thm. 3; Nesterov 1983)",
       statement="at step 1/L, L-smooth convex: PEPit's gradient-descent Lyapunov 1, k(f(x_k) - f*) + (L/2)||x_k - x*||^2, "
                 "and Lyapunov 2, (2k+1) L (f(x_k) - f*) + k(k+2)||g_k||^2 + L^2||x_k - x*||^2, and the accelerated "
                 "gradient potential lambda_k^2 (f(x_k) - f*) + (L/2)||z_k - x*||^2 decrease at every k >= 0, giving "
                 "f(x_N) - f* <= L D0/(2N), <= 3 L D0/(8N + 6) (GD) and <= 2 L D0/(N + 1)^2 (AGM) for every N >= 1",
       expected="proved", proves=lambda: [pepit_statement("classical"), pepit_statement("lyapunov2"),
                                          pepit_statement("agm")])
def potential_pepit(ctx: Context) -> Outcome:
    r"""The three potentials at step ``1/L`` (GD: a one-point range, the kernel decides "every ``k >= 0``" exactly
    there; AGM: the one step for every ``s = 1/lambda_(k+1)`` in ``[0, 1]``), then falsification: the GD bounds against
    Drori & Teboulle's ``L D0/(4N + 2)`` at ``N = 1..1000``, the AGM bound against its float PEP worst case at
    ``N = 1..4``."""
    from fairtheory.proofs.potential_search import prove_potential
    from fairtheory_kernel.check import check_proof

    certs, rows, worst = [], [], 0.0
    c = prove_potential("agm")
    js = c.to_json()
    t1 = time.perf_counter()
    ok = check_proof(js)
    s = time.perf_counter() - t1
    wcs = [agm_worst_case(N) for N in range(1, 5)]
    ratios = [wc / float(c.bound(N=N, h=1)) for N, wc in enumerate(wcs, start=1)]
    worst = max(ratios)
    rows.append({"potential": "agm", "checks": ok, "check_proof_s": round(s, 3), "worst_case_over_bound": ratios})
    if ok and worst <= 1 + 1e-6:
        certs.append(js)
    for name in ("classical", "lyapunov2"):
        c = prove_potential("gd", h=1, potential=name, a0=0)
        js = c.to_json()
        t1 = time.perf_counter()
        ok = check_proof(js)
        s = time.perf_counter() - t1
        low = [N for N in range(1, 1001) if c.bound(N=N, h=1) < Fraction(1, 4 * N + 2)]
        worst = max(worst, max(float(Fraction(1, 4 * N + 2) / c.bound(N=N, h=1)) for N in range(1, 1001)))
        rows.append({"potential": name, "checks": ok, "check_proof_s": round(s, 3), "below_exact_at": low[:3],
                     "bound_over_exact_N1000": float(c.bound(N=1000, h=1) * 4002)})
        if ok and not low:
            certs.append(js)
    ok = len(certs) == 3
    return Outcome(status="proved" if ok else "error", measured=worst, bound=1.0, relation="<=",
                   certificate=certs if ok else None, details={"potentials": rows},
                   explain="measured: largest worst case / proved bound (GD: exact, N = 1..1000; AGM: PEP, N = 1..4)")


def pepit_statement(name: str) -> dict[str, Any]:
    from fairtheory.proofs.potential_search import prove_potential

    if name == "agm":
        return _stmt(prove_potential("agm"))
    return _stmt(prove_potential("gd", h=1, potential=name, a0=0))


# ------------------------------------------------------------------------------------------------ local GD
def local_statement(kappa: int = 2, p: tuple[Fraction, ...] = (Fraction(1, 2),) * 2, rng: Any = LOCAL_RANGE,
                    bound: Any = None, hetero: Any = None) -> dict[str, Any]:
    from fairtheory.proofs.potential_search import prove_potential

    return _stmt(prove_potential("local_gd", n=len(p), p=list(p), kappa=kappa, h=rng, bound=bound,
                                 rho2="any" if hetero else 0, hetero=hetero))


def _falsify_local(cert: Any, kappa: int, p: tuple[Fraction, ...], T_Ns: list[int], steps: list[Fraction], rho2: int = 0,
                   D0: int = 1) -> tuple[float, dict[str, Any] | None, list[dict[str, Any]]]:
    """Largest (exact worst case / proved bound) over the grid, the first violation, the rows."""
    from fairtheory.worstcase import local_gd_worst_case
    from fairtheory.worstcase.results import TINY

    worst, bad, rows = 0.0, None, []
    for T_N in T_Ns:
        for t in steps:
            wc = local_gd_worst_case(n=len(p), p=[float(x) for x in p], kappa=kappa, T_N=T_N, lr=float(t), L=1.0,
                                     D0=float(D0), rho2=float(rho2), output="average").value
            b = float(cert.bound(T_N=T_N, h=t, rho2=rho2, D0=D0))
            # values below TINY (L D0 + rho^2/L) are solver noise, never exact (fairtheory.worstcase.results.TINY)
            floor = TINY * (D0 + rho2)
            ratio = wc / b if b > 0 else (0.0 if wc <= floor else float("inf"))  # kappa = 1, D0 = 0: both 0
            rows.append({"T_N": T_N, "h": str(t), "rho2": rho2, "worst_case": wc, "bound": b, "ratio": ratio})
            worst = max(worst, ratio)
            if wc > b * (1 + 1e-6) + floor and bad is None:
                bad = rows[-1]
    return worst, bad, rows


@claim("proofs.potential.local_gd", citation="002 Alg. 1 (rFedFair, average output, rho = 0); Taylor & Bach 2019",
       statement="for every T_N >= 0 and every lr L in [1/1000, 1/40]: local GD (002 Alg. 1, rFedFair schedule, full "
                 "participation, average output), kappa = 2, two uniform L-smooth convex clients, rho = 0: G(theta_tilde) - G* "
                 "<= L D0/(2 lr L (T_N + 1)), by the potential ||theta_r - theta*||^2 (exact pep-potential certificate)",
       expected="proved", proves=lambda: [local_statement()])
def potential_local_gd(ctx: Context) -> Outcome:
    r"""The certificate, then falsification against the exact worst case (:func:`local_gd_worst_case`) at three
    steps and ``T_N = 1..4`` (quick mode: ``T_N`` in {1, 4}; the largest ratio is at ``T_N = 4``, ``lr L = 1/40``)."""
    from fairtheory.proofs.potential_search import prove_potential
    from fairtheory_kernel.check import check_proof

    c = prove_potential("local_gd", n=2, kappa=2, output="average", schedule="rfedfair", rho2=0, h=LOCAL_RANGE)
    js = c.to_json()
    t1 = time.perf_counter()
    ok = check_proof(js)
    s = time.perf_counter() - t1
    steps = [LOCAL_RANGE[0], Fraction(1, 100), LOCAL_RANGE[1]]
    horizons = [1, 4] if ctx.quick else [1, 2, 3, 4]
    worst, bad, rows = _falsify_local(c, 2, (Fraction(1, 2),) * 2, horizons, steps)
    details = {"check_proof_s": round(s, 3), "falsification": rows, "in_words": c.describe()}
    if bad is not None:
        return Outcome(status="refuted", counterexample=bad, details=details, note="worst case above the proved bound")
    return Outcome(status="proved" if ok else "error", measured=worst, bound=1.0, relation="<=",
                   certificate=js if ok else None, details=details,
                   explain=f"measured: largest exact worst case / proved bound at T_N in {{{', '.join(map(str, horizons))}}}, "
                           "lr L in {1/1000, 1/100, 1/40}",
                   note=f"check {s:.2f} s; the bound is loose by about kappa for large T_N (worst case ~ 1/(2 lr L kappa T_N))")


# ------------------------------------------------------------------------------------------------ 002 Thm. 1
#: 002 Thm. 1's optimisation part in units of L D0, as k-polynomials in T_N: 2/(lr L (T_N + 1))
THM1_BOUND = ([["2"]], [["0", "1"], ["0", "1"]])


def thm1_hetero(kappa: int) -> tuple[list[list[str]], list[list[str]]]:
    """002 Thm. 1's heterogeneity coefficient in units of rho^2/L: ``26 (lr L)^2 (kappa - 1)^2 kappa``."""
    return [["0", "0", str(26 * (kappa - 1) ** 2 * kappa)]], [["1"]]


def _thm1_settings(ctx: Context) -> list[tuple[int, tuple[Fraction, ...]]]:
    return THM1_SETTINGS[:3] if ctx.quick else THM1_SETTINGS


def _thm1_horizons(ctx: Context, kappa: int) -> list[int]:
    """The ``T_N`` of proofs.rcfl.theorem1.all_rounds's falsification: {1, 3} (``kappa > 4``: 1); quick mode 3."""
    return [3] if ctx.quick else ([1, 3] if kappa <= 4 else [1])


def _p_str(p: tuple[Fraction, ...]) -> str:
    return "(" + ", ".join(map(str, p)) + ")"


@claim("proofs.rcfl.theorem1.all_rounds", citation="002 Thm. 1 (optimisation part, potential function)",
       statement="for every number of rounds T_N >= 0, every admissible step lr L in [2^-20, 1/40] and every "
                 "heterogeneity rho^2 = sum_i p_i ||grad f_i(theta*)||^2: local GD (002 Alg. 1, rFedFair, full "
                 "participation, average output), L-smooth convex clients, each listed (kappa, p) in "
                 + ", ".join(f"({k}, {_p_str(p)})" for k, p in THM1_SETTINGS[:3]) + " (--full adds kappa = 4..8 and "
                 "(2, (1/2, 1/3, 1/6))): G(theta_tilde) - G* <= 2 L D0/(lr L (T_N + 1)) + 26 L lr^2 (kappa-1)^2 kappa "
                 "rho^2, the theorem's optimisation part (in fact <= L D0/(2 lr L (T_N + 1)) + (kappa-1) kappa "
                 "(2 kappa-1) L lr^2 rho^2/24 up to a factor <= 17/16); the 000 output is not proved here",
       expected="proved",
       proves=lambda ctx: [local_statement(k, p, THM1_RANGE, THM1_BOUND, thm1_hetero(k)) for k, p in _thm1_settings(ctx)])
def theorem1_all_rounds(ctx: Context) -> Outcome:
    r"""One ``pep-potential`` certificate per ``(kappa, p)``: the one-round potential ``||theta - theta*||^2`` decreases
    by ``2 lr L (G(theta) - G*)/L`` up to ``C rho^2/L^2``, ``C = c (lr L)^3``, for every ``lr L`` in the range
    (docs/proofs.md 8.3), so the average output satisfies ``L D0/(2 lr L (T_N + 1)) + (c/2) L lr^2 rho^2`` for every
    ``T_N`` - a quarter of the theorem's first term and a small fraction of its second.  Falsified against the exact
    worst case (``D0 = 1, rho = 0`` and ``D0 = 0, rho^2 = L^2``) at ``T_N`` in {1, 3} (``kappa > 4``: 1; quick mode: 3,
    where the ratios are largest) and ``lr L = 1/40``.
    The fresh re-check's falsification (module doc): quick mode at ``T_N`` in ``0..20`` and 100, ``--full`` at ``0..50``,
    100 and 1000."""
    from fairtheory.proofs.potential_search import prove_potential
    from fairtheory_kernel.check import check_proof

    certs, rows, worst = [], [], 0.0
    for kappa, p in _thm1_settings(ctx):
        c = prove_potential("local_gd", n=len(p), p=list(p), kappa=kappa, h=THM1_RANGE, bound=THM1_BOUND,
                            rho2="any", hetero=thm1_hetero(kappa))
        js = c.to_json()
        t1 = time.perf_counter()
        ok = check_proof(js)
        s = time.perf_counter() - t1
        fr: list[dict[str, Any]] = []
        bad = None
        for r2 in (0, 1):  # (D0, rho^2) = (1, 0) and (0, 1): each term of the theorem alone
            w, b, f = _falsify_local(c, kappa, p, _thm1_horizons(ctx, kappa), [THM1_RANGE[1]], rho2=r2, D0=1 - r2)
            worst, bad, fr = max(worst, w), bad or b, fr + f
        drift = js["statement"]["potential"]["drift"]["num"][-1]
        rows.append({"kappa": kappa, "p": [str(x) for x in p], "checks": ok, "check_proof_s": round(s, 3),
                     "drift_C_over_betaL3": drift, "theorem_C_over_betaL3": 13 * (kappa - 1) ** 2 * kappa,
                     "worst_case_over_rhs": [(r["T_N"], r["rho2"], r["ratio"]) for r in fr], "violation": bad})
        if ok and bad is None:
            certs.append(js)
    details = {"settings": rows, "not_proved": "the 000 output (mean of every averaged iterate, not a function of the "
               "server state) and the smoothing term mu tau_alpha (outside the optimisation part)"}
    if any(r["violation"] for r in rows):
        return Outcome(status="refuted", details=details, counterexample=next(r["violation"] for r in rows if r["violation"]))
    ok = len(certs) == len(rows)
    return Outcome(status="proved" if ok else "error", measured=worst, bound=1.0, relation="<=",
                   certificate=certs if ok else None, details=details,
                   explain="measured: largest exact worst case / the theorem's RHS at "
                           + ("T_N = 3" if ctx.quick else "T_N in {1, 3} (kappa > 4: T_N = 1)")
                           + ", lr L = 1/40, (D0, rho^2/L^2) in {(1, 0), (0, 1)}",
                   note=f"{len(certs)} of {len(rows)} settings proved for every T_N and every rho; slowest check "
                        f"{max(r['check_proof_s'] for r in rows):.2f} s; the 000 output not proved")
