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

import functools
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

    return _stmt(prove_potential("gd", h=GD_RANGE, potential="lyapunov2"))


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
    c = prove_potential("gd", h=GD_RANGE, potential="lyapunov2")
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


# ------------------------------------------------------------------------------------------------ searched (issue 43)
#: strongly convex gd: (h, mu, measure) proved with a linear rate (the acceptance case first)
LINEAR_SETTINGS = [(Fraction(1), Fraction(1, 10), "value"), (Fraction(1), Fraction(1, 10), "distance"),
                   (Fraction(1, 2), Fraction(1, 10), "value"), (Fraction(3, 2), Fraction(1, 10), "value")]
#: gd beyond h = 13/10 (where the tight potential's step fails): (h, searched template (kdeg, scale sigma))
BEYOND_SETTINGS = [(Fraction(3, 2), (2, Fraction(3, 4))), (Fraction(17, 10), (2, Fraction(17, 27)))]


@functools.cache
def _searched(kind: str, h: Fraction, mu: Fraction = Fraction(0), measure: str = "value") -> Any:
    """The certificates of the searched claims, made once per process (the declared statement and the claim's own
    re-check use the same one)."""
    from fairtheory.proofs.potential_search import prove_potential

    if kind == "tight":
        return prove_potential("gd", h=GD_RANGE)
    if kind == "linear":
        return prove_potential("gd", h=h, mu=mu, measure=measure)
    kdeg, sigma = dict(BEYOND_SETTINGS)[h]
    return prove_potential("gd", h=h, potential="search", kdeg=kdeg, scale=sigma)


def tight_statement() -> dict[str, Any]:
    """GD, every ``N >= 1``, every ``h`` in ``GD_RANGE``: ``f(x_N) - f* <= L D0/(4 N h + 2)`` (tight)."""
    return _stmt(_searched("tight", GD_RANGE[1]))


def _linear_settings(ctx: Context) -> list[tuple[Fraction, Fraction, str]]:
    """Quick mode: the acceptance case (h = 1, mu = 1/10) in both measures; ``--full``: all."""
    return LINEAR_SETTINGS[:2] if ctx.quick else LINEAR_SETTINGS


def linear_statements(ctx: Context) -> list[dict[str, Any]]:
    return [_stmt(_searched("linear", h, mu, m)) for h, mu, m in _linear_settings(ctx)]


def beyond_statements() -> list[dict[str, Any]]:
    return [_stmt(_searched("beyond", h)) for h, _ in BEYOND_SETTINGS]


def _check_s(js: dict[str, Any]) -> tuple[bool, float]:
    from fairtheory_kernel.check import check_proof

    t1 = time.perf_counter()
    ok = check_proof(js)
    return ok, round(time.perf_counter() - t1, 3)


@claim("proofs.potential.gd_tight", citation="Drori & Teboulle 2014 (exact worst case); issue 43; docs/tight_gd.md",
       statement="for every N >= 1 and every h in [1/100, 1]: gradient descent with step h/L on any L-smooth convex f "
                 "satisfies f(x_N) - f* <= L D0/(4 N h + 2), Drori-Teboulle's exact worst case, by the potential "
                 "h(2k+1)(f - f*) + L||x - x*||^2 - h <x - x*, g> + (h^2 k^2 + h k + h/2)||g||^2/L (exact "
                 "pep-potential certificate, the default of prove_potential)",
       expected="proved", proves=lambda: [tight_statement()])
def potential_gd_tight(ctx: Context) -> Outcome:
    r"""The certificate, then the exact comparison with Drori & Teboulle's ``L D0/(4 N h + 2)`` at ``N = 1..1000`` and
    5 steps (equal everywhere), and two explicit instances run in rationals (``N <= 50``; the Huber instance attains
    the bound)."""
    c = _searched("tight", GD_RANGE[1])
    js = c.to_json()
    ok, s = _check_s(js)
    bad, unequal = None, 0
    for h in [GD_RANGE[0], Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), GD_RANGE[1]]:
        for N in range(1, 1001):
            b = c.bound(N=N, h=h)
            unequal += b != 1 / (4 * N * h + 2)
            if N <= 50 and b < gd_instances_value(N, h):
                bad = {"N": N, "h": str(h), "bound": str(b), "instance": str(gd_instances_value(N, h))}
    details = {"check_proof_s": s, "bound_not_equal_to_drori_teboulle": unequal, "in_words": c.describe()}
    if bad is not None:
        return Outcome(status="refuted", counterexample=bad, details=details, note="an instance above the bound")
    return Outcome(status="proved" if ok and unequal == 0 else "error", measured=float(unequal), bound=0.0,
                   relation="<=", certificate=js if ok else None, details=details,
                   explain="measured: (N, h) among N = 1..1000 and 5 steps where the bound differs from L D0/(4Nh + 2)",
                   note=f"tight at every N and h; check {s:.2f} s")


def _sc_step(x: Fraction, h: Fraction, mu: Fraction, c: Fraction | None, tau: Fraction | None) -> tuple[Fraction, Fraction]:
    """``(f(x), f'(x))`` of ``(c/2) x^2`` (``tau`` None) or of ``(mu/2) x^2 + (1 - mu) huber_tau(x)``."""
    if tau is None:
        return c * x * x / 2, c * x
    hub = x * x / 2 if abs(x) <= tau else tau * abs(x) - tau * tau / 2
    dh = x if abs(x) <= tau else tau * (1 if x > 0 else -1)
    return mu * x * x / 2 + (1 - mu) * hub, mu * x + (1 - mu) * dh


def _sc_instances(N: int, h: Fraction, mu: Fraction) -> tuple[Fraction, Fraction]:
    """Largest ``f(x_N) - f*`` and ``|x_N - x*|^2`` (``|x0 - x*| = 1``) over L-smooth (mu L)-strongly convex
    instances run in rationals: ``(c/2) x^2`` for ``c`` in {mu, 1} and ``(mu/2) x^2 + (1 - mu) huber_tau`` for a few
    ``tau``."""
    best_f, best_d = Fraction(0), Fraction(0)
    for c, tau in [(mu, None), (Fraction(1), None)] + [(None, t) for t in (Fraction(1, 2), Fraction(1, 10),
                                                                             1 / (2 * N * h + 1))]:
        x = Fraction(1)
        for _ in range(N):
            x -= h * _sc_step(x, h, mu, c, tau)[1]
        best_f, best_d = max(best_f, _sc_step(x, h, mu, c, tau)[0]), max(best_d, x * x)
    return best_f, best_d


@claim("proofs.potential.gd_linear", citation="issue 43 (linear rates); Taylor, Hendrickx & Glineur 2017/2018",
       statement="for every N >= 1, gradient descent with step h/L on any L-smooth (mu L)-strongly convex f, "
                 "mu = 1/10: f(x_N) - f* <= (81/100)^N L D0/2 at h = 1 (per-step factor exactly (1 - mu)^2), "
                 "||x_N - x*||^2 <= (81/100)^N D0 at h = 1, f(x_N) - f* <= (361/400)^N L D0/2 at h = 1/2 and "
                 "<= (289/400)^N L D0/2 at h = 3/2 (each factor max((1 - h mu)^2, (1 - h)^2), attained on quadratics; "
                 "quick mode: the two h = 1 statements), "
                 "by the potential ||x_k - x*||^2 found by prove_potential's rate search (exact pep-potential "
                 "certificates)",
       expected="proved", proves=lambda ctx: linear_statements(ctx))
def potential_gd_linear(ctx: Context) -> Outcome:
    r"""Each certificate (rate by bisection on the float SDP's feasibility, rationalised, kernel-checked), the rate
    compared exactly with the quadratics' factor ``max((1 - h mu)^2, (1 - h)^2)`` (a lower bound on any rate), and
    falsified against strongly convex instances run in rationals at ``N = 1..40``."""
    rows, certs, bad = [], [], None
    for h, mu, m in _linear_settings(ctx):
        c = _searched("linear", h, mu, m)
        js = c.to_json()
        ok, s = _check_s(js)
        rate, floor = Fraction(js["statement"]["rate"]), max((1 - h * mu) ** 2, (1 - h) ** 2)
        for N in range(1, 41):
            fv, dv = _sc_instances(N, h, mu)
            b = c.bound(N=N, h=h)
            if (dv if m == "distance" else fv) > b and bad is None:
                bad = {"h": str(h), "mu": str(mu), "measure": m, "N": N, "bound": str(b)}
        rows.append({"h": str(h), "mu": str(mu), "measure": m, "rate": str(rate), "quadratic_factor": str(floor),
                     "checks": ok, "check_proof_s": s, "prove_s": round(c.seconds, 2)})
        if ok and rate == floor:
            certs.append(js)
    details = {"settings": rows}
    if bad is not None:
        return Outcome(status="refuted", counterexample=bad, details=details, note="an instance above the bound")
    ok = len(certs) == len(rows)
    return Outcome(status="proved" if ok else "error", measured=float(len(rows) - len(certs)), bound=0.0,
                   relation="<=", certificate=certs if ok else None, details=details,
                   explain="measured: settings whose proved rate is not exactly the quadratics' factor (or not checked)",
                   note=f"{len(certs)} of {len(rows)} rates tight; slowest check {max(r['check_proof_s'] for r in rows):.2f} s")


@claim("proofs.potential.gd_beyond", citation="issue 43 (GD for h in (1, 2)); Taylor & Bach 2019 (potentials)",
       statement="for every N >= 1, gradient descent with step h/L on any L-smooth convex f: f(x_N) - f* <= "
                 "L D0/(17/3 N + 4/5) at h = 3/2 and <= L D0/(18/5 N + 3/47) at h = 17/10, by quadratic potentials "
                 "with coefficients of degree 2 in k found by prove_potential's SDP search (exact pep-potential "
                 "certificates)",
       expected="proved", proves=lambda: beyond_statements())
def potential_gd_beyond(ctx: Context) -> Outcome:
    r"""The searched certificates at ``h = 3/2`` and ``17/10`` (the tight potential holds up to 13/10 only), each
    against the explicit instances (``x^2/2``: ``(1 - h)^(2N)/2``; Drori-Teboulle's Huber function) at ``N = 1..60``,
    and the ratio to the classical potential's ``3 L D0/(4 N h + 2)`` (the former default there) at ``N = 1000``
    (0 where no earlier certificate existed: past the golden ratio)."""
    from fairtheory.proofs.potential_search import PotentialNotProved, prove_potential

    rows, certs, bad = [], [], None
    for h, _ in BEYOND_SETTINGS:
        c = _searched("beyond", h)
        js = c.to_json()
        ok, s = _check_s(js)
        for N in range(1, 61):
            if c.bound(N=N, h=h) < gd_instances_value(N, h) and bad is None:
                bad = {"h": str(h), "N": N, "bound": str(c.bound(N=N, h=h)), "instance": str(gd_instances_value(N, h))}
        try:  # the classical potential holds for h <= (1 + sqrt 5)/2 only: before the search, nothing at 17/10
            old = prove_potential("gd", h=h, potential="classical")
            over = float(c.bound(N=1000, h=h) / old.bound(N=1000, h=h))
        except PotentialNotProved:
            over = 0.0
        rows.append({"h": str(h), "bound_den": js["statement"]["bound"]["den"], "checks": ok, "check_proof_s": s,
                     "over_classical_N1000": over,
                     "over_instances_N1": float(c.bound(N=1, h=h) / gd_instances_value(1, h))})
        if ok:
            certs.append(js)
    details = {"settings": rows}
    if bad is not None:
        return Outcome(status="refuted", counterexample=bad, details=details, note="an instance above the bound")
    ok = len(certs) == len(rows)
    return Outcome(status="proved" if ok else "error", measured=max(r["over_classical_N1000"] for r in rows),
                   bound=1.0, relation="<=", certificate=certs if ok else None, details=details,
                   explain="measured: largest searched bound / the classical template's bound at N = 1000")


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
